"""Commands of :mod:`geosched.reference_impl.vllm`: ``vllm-diff`` (a vLLM scheduler class under test)."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from geosched import limits
from geosched.arguments import (
    MEMORY_OVERRIDE,
    add_block_size,
    add_command,
    add_work_limits,
    non_negative_int,
    show_progress,
)
from geosched.errors import ValidationError

__all__ = ["add_commands"]


def add_commands(subparsers, common) -> None:
    p = add_command(
        subparsers, "vllm-diff", common, memory=MEMORY_OVERRIDE,
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
                   help="when the workload agrees, try this many random small instances (Hypothesis)")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_vllm_diff)


def _search_bar(total: int):
    """A progress bar on stderr for the random search, when stderr is a terminal (never in --json output)."""
    if total <= 0 or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc="vllm-diff search", unit="instance", file=sys.stderr, leave=False)


def _cmd_vllm_diff(args: argparse.Namespace) -> int:
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    from geosched.output import emit_json, working
    from geosched.reference_impl.simulation import resolve
    from geosched.reference_impl.vllm.harness import vllm_available
    from geosched.reference_impl.workloads import load_workload

    if args.search < 0:
        raise ValidationError("--search", args.search, "must be >= 0")
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
    bar = _search_bar(args.search)
    with working(f"vllm-diff on {instance.n} requests (shrinking a divergence, searching)",
                 show_progress(args) and bar is None):
        result = vllm_diff(args.scheduler, instance, reference=args.reference, policy=args.policy,
                           preemption=args.preemption, shrink=not args.no_shrink,
                           search=args.search, seed=0 if args.seed is None else args.seed,
                           progress=None if bar is None else lambda done, total: bar.update(done - bar.n))
    if bar is not None:
        bar.close()
    if args.json:
        data = result.to_dict()
        data["instance"] = None if result.instance is None else result.instance.to_dict()
        data["report"] = result.report()
        emit_json(data)
    else:
        print(result.report())
    return 0 if result.status == "agree" else 1
