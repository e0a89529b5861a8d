"""The ``geosched`` command line.

Foundation commands live here (``simulate``, ``compare``, ``opt``, ``check``, and ``export``, whose
formats come from :mod:`geosched.reference_impl.formats`); the other
subpackages contribute theirs through a module ``commands`` exposing
``add_commands(subparsers, common)``, so that each part of the project owns its commands.
Every command takes ``--json`` (the ``common`` parent), and ``--memory`` and ``--seed`` where it reads
them (:func:`geosched.arguments.add_command`). User errors (any
:class:`~geosched.errors.GeoschedError`) print one line and exit 2, without a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from geosched.arguments import (
    LIMIT_OPTIONS,
    MEMORY_OVERRIDE,
    SEED_WORKLOAD,
    OneLineParser,
    add_block_size,
    add_command,
    add_verbosity,
    add_work_limits,
    command_modules,
    configure_logging,
    positive_float,
    positive_int,
    seconds,
    show_progress,
)
from geosched.errors import GeoschedError, ValidationError, WorkloadFormatError
from geosched.limits import work_limits
from geosched.output import emit_json, working
from geosched.progress import reporting
from geosched.reference_impl.opt.result import METHODS as OPT_METHODS
from geosched.reference_impl.policies import Capability, policy_names
from geosched.reference_impl.scheduler_registry import scheduler_names
from geosched.version import __version__

__all__ = ["main", "build_parser"]


def _common_parent() -> argparse.ArgumentParser:
    """The options every command shares; ``--memory`` and ``--seed`` are added by the commands that read them
    (add_command)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    add_verbosity(common)
    return common


# --seed of simulate and compare: the generated workload's and the noisy predictors' (_predictor)
SEED_PREDICTOR = (f"{SEED_WORKLOAD[:-1]}; also of --predictor noisy and onebit, unless they name their own "
                  "seed)")


def _workload_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "workload",
        nargs="?",
        default="burst:n=10",
        help="instance .json, trace .csv, 'trace' (the shared Azure trace) or a generator spec "
        "such as burst:n=12 or poisson:mu=0.2,rho=0.6 (default: burst:n=10)",
    )
    parser.add_argument("--arrivals", choices=("burst", "online"), default="burst",
                        help="for traces: all at step 0, or at their timestamps")
    parser.add_argument("--step-seconds", type=positive_float, default=0.025,
                        help="for online traces: seconds per decode step (default 0.025)")
    parser.add_argument("--limit", type=positive_int, default=None, help="for traces: read at most this many rows")
    parser.add_argument("--predictor", default="oracle", help="oracle, noisy[:sigma=0.5], onebit[:flip_rate=0.1], "
                        "learned[:kind=point|onebit|dist,model=FILE]")
    parser.add_argument("--backfill", action="store_true", help="skip a misfit instead of stopping the scan")
    add_block_size(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="geosched",
        description="Geometry-aware LLM scheduling: simulate, solve, check, prove.",
    )
    parser.add_argument("--version", action="version", version=f"geosched {__version__}")
    common = _common_parent()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_simulate_and_compare(sub, common)
    _add_opt_and_check(sub, common)
    _add_export(sub, common)
    for module_name in command_modules():  # each package's ``commands`` module (geosched.arguments), found
        importlib.import_module(module_name).add_commands(sub, common)
    _add_completion(sub)
    return parser


def _add_simulate_and_compare(sub, common) -> None:
    p = add_command(
        sub, "simulate", common, help="run one policy on a workload", memory=MEMORY_OVERRIDE, seed=SEED_PREDICTOR,
        description="Run one scheduling policy on a workload and print its checked metrics (TEL, mean and tail "
                    "latency, makespan, throughput, peak memory); the independent checker accepts the schedule "
                    "first.",
        examples=["geosched simulate example --policy svf",
                  "geosched simulate poisson:mu=0.2,rho=0.6 --policy svf1 --predictor onebit:flip_rate=0.1"])
    _workload_options(p)
    p.add_argument("--policy", default="svf", help=f"{', '.join(scheduler_names())} (or name:k=v,...), "
                   "or a scheduler of your own: FILE.py:Class")
    p.add_argument("--engine", choices=("python", "coq"), default="python",
                   help="python (default) or coq: the SVF proved in Coq (verify/coq), extracted to OCaml; "
                        "svf on bursts only, needs coqc and Zarith")
    p.add_argument("--coq-work-limit", type=positive_int, default=None, metavar="N",
                   help="--engine coq: refuse before running when the estimated work exceeds N element visits "
                        "(default 50000000, about 25 s at worst on a loaded 2-core machine)")
    p.add_argument("--coq-time-limit", type=seconds, default=None, metavar="S",
                   help="--engine coq: stop the engine after S seconds (default 50)")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_simulate)

    p = add_command(
        sub, "compare", common, help="compare policies (and OPT) on a workload", memory=MEMORY_OVERRIDE,
        seed=SEED_PREDICTOR,
        description="Run several policies on one workload and print a table of their metrics, with the ratio to "
                    "the exact optimum (--opt) or to the best lower bound on it.",
        examples=["geosched compare example --opt", "geosched compare burst:n=40,seed=3 --policies fcfs,sjf,svf"])
    _workload_options(p)
    defaults = ",".join(policy_names(Capability.FAST))
    p.add_argument("--policies", default=defaults,
                   help=f"comma-separated names or FILE.py:Class (default {defaults}; "
                        f"all: {','.join(scheduler_names())})")
    p.add_argument("--opt", action="store_true", help="also solve the exact optimum")
    p.add_argument("--time-limit", type=seconds, default=60.0, help="seconds for the optimum (default 60)")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_compare)


def _add_opt_and_check(sub, common) -> None:
    p = add_command(
        sub, "opt", common, help="solve the exact offline optimum", memory=MEMORY_OVERRIDE, seed=SEED_WORKLOAD,
        description="Solve the offline optimum of an instance exactly (CP-SAT, MILP or brute force) and print its "
                    "honest status: optimal, or time_limit with the incumbent and the dual bound.",
        examples=["geosched opt burst:n=8,seed=1 --time-limit 10"])
    p.add_argument("instance", help="instance .json or generator spec")
    add_block_size(p, "; cpsat models refuse B > 1, brute force solves it")
    p.add_argument("--time-limit", type=seconds, default=60.0,
                   help="seconds for the whole command, model building included (default 60)")
    p.add_argument("--method", default="auto", help="one of: " + ", ".join(OPT_METHODS))
    p.set_defaults(handler=_cmd_opt)

    p = add_command(
        sub, "check", common, help="check a schedule against an instance", memory=MEMORY_OVERRIDE,
        seed=SEED_WORKLOAD,
        description="Check a schedule (start step per request) against an instance with the independent "
                    "checker: arrivals, memory at every step, no preemption; print feasible or every violation, "
                    "and the metrics. Exit 0 when feasible, 1 when not.",
        examples=["geosched check example.json schedule.json"])
    p.add_argument("instance", help="instance .json")
    p.add_argument("schedule", help='schedule .json: {"starts": {"r0": 0, ...}} or {"r0": 0, ...}')
    add_block_size(p)
    p.set_defaults(handler=_cmd_check)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as Ctrl-C's KeyboardInterrupt is: every ``finally`` and
    every ``except KeyboardInterrupt`` (a hunt's checkpoint and lock, a cluster's shutdown, a temporary
    file) runs as for Ctrl-C, then :func:`main` says so in one line and exits 143 (128 + SIGTERM)."""


_RECEIVED: list[int] = []  # the signals received while the command runs (an error they cause is their line)


def _terminate(signum: int, frame: Any) -> None:
    _RECEIVED.append(signum)
    raise _Terminated


def _interrupt(signum: int, frame: Any) -> None:
    _RECEIVED.append(signum)
    raise KeyboardInterrupt


def _stopped(args: argparse.Namespace, signum: int) -> tuple[str, int]:
    """The one line and the exit status of a command stopped by ``signum``: ``geosched: terminated (SIGTERM)``
    or ``geosched: interrupted``, then what the command keeps, as it declares it (``set_defaults(stopped=...)``:
    a hunt's checkpoint and ``--resume``; nothing is promised for a command that declares nothing)."""
    kept = getattr(args, "stopped", None)
    word = "terminated (SIGTERM)" if signum == signal.SIGTERM else "interrupted"
    return f"geosched: {word}{f'; {kept}' if kept else ''}", 128 + signum


def _redeliver_dropped_interrupt(previous_hook: Callable[[Any], None],
                                 timers: list[threading.Timer]) -> Callable[[Any], None]:
    """A ``sys.unraisablehook`` that delivers a dropped interrupt again.

    An interrupt that lands while C code runs a Python callback (numba's compiler calls llvmlite's
    object-cache callbacks through ctypes) is raised inside that callback, where Python prints it
    as "Exception ignored" and goes on: the hunt would run to its end. The signal is raised again
    instead, silently, until its handler runs in Python code, where the exception unwinds."""
    def hook(unraisable: Any) -> None:
        kind = unraisable.exc_type
        if kind is not None and issubclass(kind, KeyboardInterrupt):  # _Terminated is one
            again = signal.SIGTERM if issubclass(kind, _Terminated) else signal.SIGINT
            # not from here: a handler run inside this hook would be dropped too; a moment later the callback
            # has returned (if the signal lands in another callback, it comes back here)
            timer = threading.Timer(0.05, os.kill, (os.getpid(), again))
            timer.daemon = True
            timers.append(timer)  # cancelled when the command ends first
            timer.start()
        else:
            previous_hook(unraisable)
    return hook


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM handled like SIGINT while a command runs (main thread only; the handler before is restored),
    and an interrupt dropped inside a callback from C delivered again (:func:`_redeliver_dropped_interrupt`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:  # Ctrl-C as before, recorded (an ignored one stays ignored)
        signal.signal(signal.SIGINT, _interrupt)
    previous_hook, timers = sys.unraisablehook, []
    sys.unraisablehook = _redeliver_dropped_interrupt(previous_hook, timers)
    _RECEIVED.clear()
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        for timer in timers:
            timer.cancel()
        signal.signal(signal.SIGTERM, previous)
        if previous_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous_int)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args)
    try:
        # the work limits of the command's options (geosched.limits), for everything it calls; one progress
        # reporter per command: a line every few seconds on stderr, also off a terminal
        with (_sigterm_as_interrupt(), work_limits(**{name: getattr(args, name, None) for name in LIMIT_OPTIONS}),
              reporting(args.command, enabled=show_progress(args) and getattr(args, "progress", True))):
            return int(args.handler(args) or 0)
    except KeyboardInterrupt as exc:  # SIGTERM (_Terminated) or Ctrl-C: the command's own line
        line, status = _stopped(args, signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT)
        print(line, file=sys.stderr)
        return status
    except Exception as exc:
        if _RECEIVED and not isinstance(exc, BrokenPipeError):  # an error a signal caused (a library's cleanup)
            line, status = _stopped(args, _RECEIVED[-1])
            print(line, file=sys.stderr)
            return status
        if isinstance(exc, BrokenPipeError):  # the reader (e.g. `| head`) went away: not an error of ours
            sys.stderr.close()
            return 0
        if isinstance(exc, GeoschedError):
            print(f"geosched: error: {exc}", file=sys.stderr)
            return 2
        if isinstance(exc, OSError):  # a file the OS refused (geosched.output words its own; this is the rest)
            where = f"{exc.filename}: " if exc.filename else ""
            print(f"geosched: error: {where}{exc.strerror or exc}", file=sys.stderr)
            return 2
        raise


# ---------------------------------------------------------------- foundation commands


def _load(args: argparse.Namespace, spec: str):
    from geosched.reference_impl.workloads import load_workload

    return load_workload(
        spec,
        memory=args.memory,
        seed=args.seed,
        arrivals=getattr(args, "arrivals", "burst"),
        step_seconds=getattr(args, "step_seconds", 0.025),
        limit=getattr(args, "limit", None),
        block_size=getattr(args, "block_size", None),
    )


def _predictor(args: argparse.Namespace):
    from geosched.reference_impl.policies import parse_spec
    from geosched.reference_impl.predictors import make_predictor

    name, params = parse_spec(args.predictor)
    if args.seed is not None and name in ("noisy", "onebit"):
        params.setdefault("seed", args.seed)
    return make_predictor(name, **params)


def _run_policy(instance, policy: str, args: argparse.Namespace) -> dict[str, Any]:
    from geosched.engines import simulate
    from geosched.errors import InfeasibleScheduleError
    from geosched.reference_impl.checker import check_schedule

    engine = getattr(args, "engine", "python")
    predictor = args.predictor if engine == "coq" else _predictor(args)
    limits = {f"coq_{name}": getattr(args, f"coq_{name}", None) for name in ("work_limit", "time_limit")}
    result = simulate(instance, policy, engine=engine, predictor=predictor, backfill=args.backfill,
                      **{key: value for key, value in limits.items() if value is not None})
    report = check_schedule(instance, result.schedule)
    if not report.feasible:
        raise InfeasibleScheduleError(f"{policy}: the checker rejected the schedule: {report.first_violation.message}")
    metrics = report.metrics
    return {
        "tel": metrics.tel,
        "mean_latency": metrics.mean_latency,
        "p95_latency": metrics.p95_latency,
        "p99_latency": metrics.p99_latency,
        "mean_wait": metrics.mean_wait,
        "makespan": metrics.makespan,
        "throughput": metrics.throughput,
        "peak_memory": metrics.peak_memory,
        "restarts": metrics.restarts,  # the restart record, recounted by the checker from the runs
        "lost_tokens": metrics.lost_tokens,
        "starts": result.starts,
        **({"runs": {i: [list(run) for run in rs] for i, rs in result.runs.items()}}
           if result.runs is not None else {}),
        **({"parameters": result.extra} if result.extra else {}),
    }


def _workload_label(args: argparse.Namespace) -> str:
    return args.workload if getattr(args, "workload", None) else args.instance


def _cmd_simulate(args: argparse.Namespace) -> int:
    with working("simulate", show_progress(args)) as bar:
        instance, row = _simulate_columns(args) or (None, None)  # large instance files: on columns
        if instance is None:
            instance = _load(args, args.workload)
            if bar is not None:
                bar.set_description_str(f"simulate {args.policy} on {instance.n} requests")
            row = _run_policy(instance, args.policy, args)
    if args.json:
        emit_json({"workload": _workload_label(args), "memory": instance.memory,
                   "block_size": getattr(instance, "block_size", 1), "n": instance.n, "policy": args.policy,
                   "engine": args.engine, "predictor": args.predictor, "seed": args.seed, **row})
        return 0
    print(f"workload {args.workload}: n={instance.n} M={instance.memory}{_grain(instance)} "
          f"alpha={float(instance.alpha):.3f}")
    print(f"policy {args.policy} ({args.predictor}{', backfill' if args.backfill else ''}"
          f"{', Coq engine' if args.engine == 'coq' else ''})")
    for key in ("tel", "mean_latency", "p95_latency", "p99_latency", "mean_wait", "makespan", "throughput",
                "peak_memory", "restarts", "lost_tokens"):
        value = row[key]
        print(f"  {key:<14} {value:.3f}" if isinstance(value, float) else f"  {key:<14} {value}")
    return 0


def _grain(instance: Any) -> str:
    """`` B=16`` for an instance counted in blocks, nothing at token grain."""
    block = getattr(instance, "block_size", 1)  # the column path's InstanceColumns: token grain
    return f" B={block}" if block != 1 else ""


def _simulate_columns(args: argparse.Namespace):
    """``(columns, row)`` from :mod:`geosched.reference_impl.columns` when its case applies, else None."""
    if args.json or args.memory is not None or args.engine != "python" or args.block_size is not None or args.backfill \
            or args.predictor != "oracle":
        return None
    from geosched.reference_impl.columns import simulate_file

    return simulate_file(args.workload, args.policy)


def _cmd_compare(args: argparse.Namespace) -> int:
    from geosched.reference_impl.compare import compare

    instance = _load(args, args.workload)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    if not policies:
        raise WorkloadFormatError("--policies: give at least one policy name")
    result = compare(instance, policies, predictor=_predictor(args), backfill=args.backfill, opt=args.opt,
                     time_limit=args.time_limit, progress=show_progress(args))
    opt_data = result.opt.to_dict() if result.opt is not None else None
    if args.json:
        emit_json({
            "workload": _workload_label(args),
            "memory": instance.memory,
            "block_size": instance.block_size,
            "n": instance.n,
            "alpha": float(instance.alpha),
            "seed": args.seed,
            "policies": {row.policy: _row_dict(row) for row in result.rows},
            "opt": opt_data,
            "lower_bound": result.lower_bound,
            "lower_bound_name": result.lower_bound_name,
        })
        return 0
    print(f"workload {args.workload}: n={instance.n} M={instance.memory}{_grain(instance)} "
          f"alpha={float(instance.alpha):.3f}  predictor={args.predictor}{'  backfill' if args.backfill else ''}")
    denominator_label = "/OPT" if result.status == "opt" else "/LB"
    w = max([8] + [len(row.policy) for row in result.rows])
    header = (f"{'policy':<{w}} {'TEL':>10} {'mean':>9} {'P95':>9} {'makespan':>9} {'tok/step':>9} {'restart':>7} "
              f"{denominator_label:>7}")
    print(header)
    print("-" * len(header))
    for row in result.rows:
        ratio = f"{row.ratio:>7.3f}" if row.ratio is not None else f"{'-':>7}"
        print(f"{row.policy:<{w}} {row.tel:>10} {row.mean_latency:>9.2f} {row.p95_latency:>9.2f} "
              f"{row.makespan:>9} {row.throughput:>9.2f} {row.restarts:>7} {ratio}")
    if opt_data is not None:
        status = opt_data["status"]
        tel = opt_data["tel"]
        print(f"{'OPT':<{w}} {tel if tel is not None else '-':>10}  status={status} "
              f"dual_bound={opt_data['dual_bound']} time={opt_data['wall_time']:.2f}s method={opt_data['method']}")
    print(f"lower bound on OPT: {result.lower_bound} ({result.lower_bound_name})")
    return 0


def _row_dict(row) -> dict[str, Any]:
    data = row.to_dict()
    data.pop("policy")
    data.pop("ratio")
    if not data["parameters"]:
        data.pop("parameters")
    return data


def _cmd_opt(args: argparse.Namespace) -> int:
    import time

    from geosched.reference_impl.opt import best_lower_bound, solve_opt

    began = time.perf_counter()  # --time-limit covers reading the instance too
    instance = _load(args, args.instance)
    result = solve_opt(instance, time_limit=max(0.01, args.time_limit - (time.perf_counter() - began)),
                       method=args.method, progress=show_progress(args))
    data = result.to_dict()
    if result.lower_bound is not None:
        lower_value, lower_name = result.lower_bound, result.lower_bound_name
    else:  # brute force and the empty instance compute none: the cheap bounds take milliseconds
        lower = best_lower_bound(instance)
        lower_value, lower_name = lower.value, lower.name
    if args.json:
        emit_json({"instance": args.instance, "memory": instance.memory, "block_size": instance.block_size,
                   "n": instance.n, **data,
                   "lower_bound": lower_value, "lower_bound_name": lower_name})
        return 0
    print(f"instance {args.instance}: n={instance.n} M={instance.memory}{_grain(instance)}")
    print(f"status      {data['status']}")
    print(f"TEL         {data['tel']}")
    print(f"dual bound  {data['dual_bound']}")
    print(f"lower bound {lower_value} ({lower_name})")
    print(f"method      {data['method']}, {data['wall_time']:.2f}s")
    if data["starts"]:
        print("starts      " + " ".join(f"{k}={v}" for k, v in data["starts"].items()))
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.columns import check_files
    from geosched.reference_impl.model import read_schedule

    with working("check", show_progress(args)):
        fast = None if args.json or args.memory is not None or args.block_size is not None else check_files(
            args.instance, args.schedule)  # large instance files: on columns (or None: the general path)
        if fast is None:
            instance = _load(args, args.instance)
            starts = read_schedule(args.schedule)
            report = check_schedule(instance, starts)
        memory = instance.memory if fast is None else fast[0]
        report = report if fast is None else fast[1]
    if args.json:
        emit_json({"instance": args.instance, "schedule": args.schedule, **report.to_dict(per_request=True)})
    else:
        print("feasible" if report.feasible else "INFEASIBLE")
        for violation in report.violations:
            print(f"  {violation.kind}: {violation.message}")
        if report.metrics is not None:
            m = report.metrics
            print(f"  TEL {m.tel}  mean {m.mean_latency:.2f}  P95 {m.p95_latency:.2f}  makespan {m.makespan}  "
                  f"peak memory {m.peak_memory}/{memory}{'' if fast is not None else _grain(instance)}")
    return 0 if report.feasible else 1


# ---------------------------------------------------------------- completion: a shell script from this parser


def _add_completion(sub) -> None:
    from geosched.arguments import add_verbosity
    from geosched.completion import SHELLS

    p = add_command(sub, "completion", None, help="print a shell completion script (bash, zsh, fish)",
                    description="Print a completion script for your shell, generated from geosched's own argument "
                                "parser: commands, options and the values of options with fixed choices. Install "
                                "it once (bash: into ~/.local/share/bash-completion/completions/geosched; zsh: a "
                                "file _geosched on $fpath; fish: ~/.config/fish/completions/geosched.fish).",
                    examples=["geosched completion bash > ~/.local/share/bash-completion/completions/geosched",
                              "source <(geosched completion zsh)"])
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    add_verbosity(p)
    p.set_defaults(handler=_cmd_completion, progress=False)


def _cmd_completion(args: argparse.Namespace) -> int:
    from geosched.completion import script

    sys.stdout.write(script(build_parser(), args.shell))
    return 0


# ---------------------------------------------------------------- export: workload files for other tools


def _spoken_list(words: Sequence[str], last: str) -> str:
    return f"{', '.join(words[:-1])} {last} {words[-1]}" if len(words) > 1 else "".join(words)


def _add_export(sub, common) -> None:
    """``export``: every choice, help line and format-specific option comes from the format registry
    (:mod:`geosched.reference_impl.formats`), so that a new format is one new module there."""
    from geosched.reference_impl.formats import workload_formats

    writable = [fmt for fmt in workload_formats().values() if fmt.write is not None]
    suffixes: dict[str, list[str]] = {}  # the suffix an export is written with -> its formats
    for fmt in writable:
        suffixes.setdefault(fmt.suffixes[0], []).append(fmt.name)
    p = add_command(sub, "export", common, help="write a witness's or workload's instance as a "
                    + _spoken_list([f.label or f.name for f in writable], "or") + " file", memory=MEMORY_OVERRIDE,
                    seed=SEED_WORKLOAD,
                    description="Write the instance of WITNESS|WORKLOAD (M, ids, arrivals, order kept) in "
                                "a format other tools read; load_workload reads every format back. An "
                                "existing --out is kept unless --force.",
                    examples=["geosched export hunt-demo/best_witness.json --format vllm-bench --out worst.jsonl",
                              "geosched export burst:n=20,seed=1 --format azure-csv --out burst.csv"])
    p.add_argument("workload", help="a witness .json or any workload (instance file, trace, generator spec)")
    p.add_argument("--format", required=True, choices=[f.name for f in writable],
                   help="; ".join(f"{f.name}: {f.description}" for f in writable).replace("%", "%%"))
    p.add_argument("--out", required=True, help="output file (" + ", ".join(
        f"{s} for {_spoken_list(names, 'and')}" for s, names in suffixes.items()) + ")")
    p.add_argument("--step-seconds", type=positive_float, default=None,
                   help="seconds per step for timestamps (default 0.025; for vllm-bench, wider where many requests "
                   "share an arrival step: 2 x k x tie-gap for k equal arrivals)")
    add_block_size(p, "; vllm-bench: also the vllm serve settings' --block-size (GPU backends need multiples of 16)")
    for fmt in writable:
        if fmt.add_export_arguments is not None:
            fmt.add_export_arguments(p)
    p.add_argument("--scheduler", default=None, metavar="FILE.py:Class",
                   help="a witness of your own scheduler: the file to verify it with (as check-witness --scheduler)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file (and its .replay.sh)")
    add_work_limits(p, steps=True, decide=True, max_bytes=True)
    p.set_defaults(handler=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    from geosched.output import check_target, write_text_atomic
    from geosched.reference_impl.formats import ExportPlan, ExportSource, check_export_path, get_format, write_workload
    from geosched.reference_impl.formats.vllm_bench import refuse_other_grain
    from geosched.reference_impl.workloads import load_workload

    fmt = get_format(args.format, writable=True)
    check_export_path(args.out, fmt)
    check_target(args.out, force=args.force)  # before any work
    try:
        instance = load_workload(args.workload, memory=args.memory, seed=args.seed, block_size=args.block_size)
    except ValidationError:
        witness = _witness_or_none(args.workload) if args.block_size is not None else None
        if witness is not None:
            refuse_other_grain(witness, args.block_size)  # the witness's grain is the reason to name
        raise
    report = _verified_witness(args.workload, args.scheduler)  # a witness: the referee first, its numbers only
    source = ExportSource(args.workload, instance, witness=lambda: report)
    plan = fmt.plan_export(source, args) if fmt.plan_export is not None else ExportPlan()
    for companion in plan.companions:
        check_target(companion.path, force=args.force)  # before any file is written
    step_seconds = next(s for s in (args.step_seconds, plan.step_seconds, 0.025) if s is not None)
    path = write_workload(instance, args.out, args.format, step_seconds=step_seconds, force=args.force,
                          **plan.options)
    for companion in plan.companions:
        write_text_atomic(companion.path, companion.text, force=args.force)
    for warning in plan.warnings:  # after the write: a refusal before it stays one line
        print(f"geosched: warning: {warning}", file=sys.stderr)
    if args.json:
        emit_json({"out": str(path), "format": args.format, "n": instance.n, "memory": instance.memory,
                   "replay_script": plan.companions[0].path if plan.companions else None})
    else:
        print(f"wrote {path} ({args.format}): {instance.n} requests, M = {instance.memory}")
        for companion in plan.companions:
            print(f"wrote {companion.path}: {companion.note}")
    return 0


def _verified_witness(source: str, scheduler: str | None) -> dict[str, Any] | None:
    """The referee's report (``WitnessReport.to_dict``) of the witness ``source``, or None for a workload; a
    witness that does not verify is refused in one line (an export carries only numbers the referee derived)."""
    from geosched.adversary.witness import WitnessError, verify_witness

    witness = _witness_or_none(source)
    if witness is None:
        if scheduler is not None:
            raise ValidationError("--scheduler", scheduler, f"{source} is not a witness of a scheduler file")
        return None
    report = verify_witness(witness, scheduler=scheduler)
    if not report.ok:
        more = f"; {len(report.problems) - 1} more" if len(report.problems) > 1 else ""
        raise WitnessError(f"export: witness {source} does not verify ({report.problems[0]}{more}): an export carries "
                           f"only numbers the referee derived (geosched check-witness {source} lists every problem)")
    return report.to_dict()


def _witness_or_none(source: str) -> dict[str, Any] | None:
    """The witness object when ``source`` is a witness file, else None (a workload)."""
    from geosched.adversary.witness import read_witness
    from geosched.reference_impl.jsonfile import read_json

    if not source.endswith(".json"):
        return None
    try:
        data = read_json(source)
    except Exception:  # noqa: BLE001 - not ours to report: load_workload already read it as a workload
        return None
    return read_witness(source) if isinstance(data, dict) and "policy" in data and "instance" in data else None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
