"""Commands of :mod:`geosched.reference_impl.vllm`: ``vllm-diff`` (a vLLM scheduler class under test) and
``serve-model`` (a dry-run server of an export's settings: vLLM's engine core at the model's step timing)."""

from __future__ import annotations

import argparse
import logging
import os

from geosched import limits
from geosched.arguments import (
    MEMORY_OVERRIDE,
    add_block_size,
    add_command,
    add_work_limits,
    non_negative_int,
    positive_float,
    positive_int,
    scheduler_file_spec,
    seconds,
    show_progress,
)
from geosched.errors import ValidationError

__all__ = ["add_commands"]

MAX_SEARCH = 10_000  # vllm-diff --search: random instances, each through vLLM's scheduler (~0.1 s)


def add_commands(subparsers, common) -> None:
    p = add_command(
        subparsers, "vllm-diff", common, memory=MEMORY_OVERRIDE,
        seed="seed of a generated workload such as burst:n=8 (a spec's own seed=... wins) and of --search's random "
             "instances (>= 0; default 0)",
        help="differential test of a vLLM scheduler class (needs vLLM)",
        description="Run WORKLOAD through your vLLM scheduler class and through a reference (the vLLM-semantics "
                    "model, or a verified policy), call by call; on a divergence, shrink the workload to a minimal "
                    "one. Exit 0 when they agree, 1 when they diverge, 2 on bad input.",
        examples=["geosched vllm-diff burst:n=8,seed=1",
                  "geosched vllm-diff burst:n=8,seed=1 --search 10"])
    p.add_argument("workload", help="instance or witness .json, .jsonl/.csv export, trace or generator spec")
    p.add_argument("--scheduler", default=None,
                   help="the class under test, 'pkg.module.Class' (default: vLLM's stock scheduler)")
    p.add_argument("--reference", choices=("semantics", "policy"), default="semantics",
                   help="semantics: the vLLM-semantics model (stock rules, or the queue ordered by --policy); "
                        "policy: the verified simulator of --policy (paper mode)")
    p.add_argument("--policy", default=None,
                   help="registry policy of the reference (sjf, svf, ...); with --reference policy also a protocol "
                   "scheduler: vllm-fcfs, vllm-priority or FILE.py:Class (compared in the exact model)")
    p.add_argument("--preemption", choices=("fcfs", "priority"), default="fcfs",
                   help="semantics: vLLM's SchedulerConfig.policy (victim rule and stock queue)")
    add_block_size(p, "; semantics: the engine's KV block size")
    p.add_argument("--no-shrink", action="store_true", help="report the workload's divergence without shrinking")
    p.add_argument("--search", type=non_negative_int, default=0,
                   help=f"when the workload agrees, try this many random small instances (Hypothesis; at most "
                   f"{MAX_SEARCH})")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_vllm_diff)
    _add_serve_model(subparsers, common)


def _add_serve_model(subparsers, common) -> None:
    p = add_command(
        subparsers, "serve-model", common,
        help="dry-run OpenAI-compatible server of a vllm-bench export (needs vLLM)",
        description="Serve EXPORT's vLLM settings (block size, KV blocks, batch limits, policy) on 127.0.0.1 with "
                    "vLLM's own engine core and no model: one engine step every --step-seconds, tokens streamed as "
                    "vLLM streams them. For replaying the export with `vllm bench serve` without a GPU "
                    "(benchmarks/gpu_replay.py --server step). Stops after --requests responses or --timeout "
                    "seconds; prints the port, then a summary.",
        examples=["geosched serve-model worst.jsonl --port 8000",
                  "geosched serve-model worst.jsonl --port 0 --out dry-run"])
    p.add_argument("export", help="a geosched export --format vllm-bench file (its first line has the settings)")
    p.add_argument("--port", type=non_negative_int, default=8000, help="loopback port (0: a free one; default 8000)")
    p.add_argument("--step-seconds", type=positive_float, default=None,
                   help="wall seconds of one engine step (default: the export's step_seconds)")
    p.add_argument("--requests", type=positive_int, default=None,
                   help="stop after this many responses (default: the export's number of requests)")
    p.add_argument("--timeout", type=seconds, default=600.0,
                   help="stop after this many seconds (default 600; at most 86400)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write DIR/arrivals.log (one line per received request: unix time, id) and DIR/server.json "
                   "(every request's arrival, first-token and finish step)")
    p.add_argument("--force", action="store_true", help="replace the files of an earlier run in --out")
    p.add_argument("--scheduler-cls", type=scheduler_file_spec, default=None, metavar="FILE.py:Class",
                   help="an export made with export --scheduler-cls FILE.py:Class: the same file again (it runs only "
                   "when its SHA-256 is the one the export recorded; an export never names code that runs)")
    p.set_defaults(handler=_cmd_serve_model, progress=False,  # a server: its own log lines, no heartbeat
                   stopped="what it served is written to --out (server.json, arrivals.log) when --out is given")


def _cmd_vllm_diff(args: argparse.Namespace) -> int:
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    from geosched.output import emit_json, working
    from geosched.progress import count
    from geosched.reference_impl.simulation import resolve
    from geosched.reference_impl.vllm.harness import vllm_available
    from geosched.reference_impl.workloads import load_workload

    if not 0 <= args.search <= MAX_SEARCH:
        raise ValidationError("--search", args.search, f"must be in [0, {MAX_SEARCH}] (each instance runs vLLM's "
                              "scheduler; a larger search is bounded by nothing)")
    if args.policy is not None:
        resolve(args.policy)  # an unknown name lists the known ones; a bad scheduler file is one line
    instance = load_workload(args.workload, memory=args.memory, seed=args.seed, block_size=args.block_size)
    if instance.n == 0:
        raise ValidationError("workload", args.workload, "has no requests")
    limits.check_steps(limits.busy_steps((r.arrival, r.output) for r in instance.requests), None,
                       "vllm-diff: vLLM's scheduler, one step at a time")  # before vLLM is imported
    if not vllm_available():
        raise ValidationError("vllm", "not importable", "vllm-diff needs vLLM 0.33 (ci/install-vllm.sh installs the "
                              "lean CPU build)")
    from geosched.reference_impl.vllm.differential import vllm_diff

    logging.getLogger("vllm").setLevel(logging.ERROR)  # vLLM's CPU notices are not the report
    with working(f"vllm-diff on {instance.n} requests (shrinking a divergence, searching)", show_progress(args)):
        result = vllm_diff(args.scheduler, instance, reference=args.reference, policy=args.policy,
                           preemption=args.preemption, shrink=not args.no_shrink,
                           search=args.search, seed=0 if args.seed is None else args.seed,
                           progress=lambda done, total: count(done, total, "instances"))
    if args.json:
        data = result.to_dict()
        data["instance"] = None if result.instance is None else result.instance.to_dict()
        data["report"] = result.report()
        emit_json(data)
    else:
        print(result.report())
    return 0 if result.status == "agree" else 1


def _cmd_serve_model(args: argparse.Namespace) -> int:
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    from geosched.output import check_target, emit_json
    from geosched.reference_impl.vllm.engine_replay import read_replay_settings, server_scheduler
    from geosched.reference_impl.vllm.harness import vllm_available

    # the file first, through the gate for names of code, and the scheduler it was exported for: a refusal
    # takes milliseconds, before vLLM is imported
    _, _, settings = read_replay_settings(args.export)
    server_scheduler(settings, args.scheduler_cls, args.export, load=False)
    arrivals = summary = None
    if args.out is not None:
        from pathlib import Path

        Path(args.out).mkdir(parents=True, exist_ok=True)
        arrivals, summary = Path(args.out) / "arrivals.log", Path(args.out) / "server.json"
        for path in (arrivals, summary):
            check_target(path, force=args.force, field="--out")  # before the engine is built
        arrivals.unlink(missing_ok=True)
    if not vllm_available():
        raise ValidationError("vllm", "not importable", "serve-model needs vLLM 0.33 (ci/install-vllm.sh installs the "
                              "lean CPU build)")
    from geosched.reference_impl.vllm.step_server import serve_export

    logging.getLogger("vllm").setLevel(logging.ERROR)

    def announce(line: str) -> None:
        print(f"serve-model: {line}", flush=True)

    data = serve_export(args.export, port=args.port, step_seconds=args.step_seconds, max_requests=args.requests,
                        timeout=args.timeout, arrival_log=arrivals, summary=summary, force=args.force,
                        announce=announce, scheduler_cls=args.scheduler_cls)
    if args.json:
        emit_json(data)
    else:
        print(f"serve-model: stopped after {data['responses']} responses ({data['stopped']}), {data['steps']} steps "
              f"of {data['step_seconds']} s, {data['preemptions']} preemptions")
    return 0 if data["stopped"] == "requests" else 1
