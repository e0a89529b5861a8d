"""The ``geosched`` command line.

Foundation commands live here (``simulate``, ``compare``, ``opt``, ``check``); the other
subpackages contribute theirs through a module ``commands`` exposing
``add_commands(subparsers, common)``, so that each part of the project owns its commands.
Every command takes ``--memory``, ``--seed`` and ``--json``. User errors (any
:class:`~geosched.errors.GeoschedError`) print one line and exit 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from geosched import __version__
from geosched.arguments import OneLineParser, non_negative_int, positive_float, positive_int
from geosched.errors import GeoschedError, WorkloadFormatError
from geosched.output import emit_json
from geosched.reference_impl.policies import Capability, policy_names

__all__ = ["main", "build_parser"]

# Each subpackage owns its commands in a module ``commands`` with ``add_commands(subparsers,
# common)``; a name that does not import is a bug, so it fails loudly.
_EXTENSIONS = (
    "geosched.verify.commands",
    "geosched.verify.prove",  # `prove`: the derivation (theory) marked by the ledger (verify)
    "geosched.adversary.commands",
    "geosched.reference_impl.predictors.commands",
    "geosched.reference_impl.vllm.commands",
    "geosched.teaching_commands",
    "geosched.reference_impl.cluster.commands",
)



def _common_parent() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--memory", type=positive_int, default=None, help="override the memory budget M (tokens)")
    common.add_argument("--seed", type=non_negative_int, default=None, help="seed for every random choice (>= 0)")
    common.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    return common


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


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="geosched",
        description="Geometry-aware LLM scheduling: simulate, solve, check, prove.",
    )
    parser.add_argument("--version", action="version", version=f"geosched {__version__}")
    common = _common_parent()
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("simulate", parents=[common], help="run one policy on a workload")
    _workload_options(p)
    p.add_argument("--policy", default="svf", help=f"{', '.join(policy_names())} (or name:k=v,...)")
    p.add_argument("--engine", choices=("python", "coq"), default="python",
                   help="python (default) or coq: the SVF proved in Coq (verify/coq), extracted to OCaml; "
                        "svf on bursts only, needs coqc")
    p.set_defaults(handler=_cmd_simulate)

    p = sub.add_parser("compare", parents=[common], help="compare policies (and OPT) on a workload")
    _workload_options(p)
    defaults = ",".join(policy_names(Capability.FAST))
    p.add_argument("--policies", default=defaults, help=f"comma-separated (default {defaults})")
    p.add_argument("--opt", action="store_true", help="also solve the exact optimum")
    p.add_argument("--time-limit", type=positive_float, default=60.0, help="seconds for the optimum (default 60)")
    p.set_defaults(handler=_cmd_compare)

    p = sub.add_parser("opt", parents=[common], help="solve the exact offline optimum")
    p.add_argument("instance", help="instance .json or generator spec")
    p.add_argument("--time-limit", type=positive_float, default=60.0,
                   help="seconds for the whole command, model building included (default 60)")
    p.add_argument("--method", default="auto",
                   help="one of: auto, cpsat, cpsat-cumulative, cpsat-ti, cpsat-ti-plain, cpsat-ti-dom, "
                        "cpsat-hybrid, milp, milp-tight, brute")
    p.set_defaults(handler=_cmd_opt)

    p = sub.add_parser("check", parents=[common], help="check a schedule against an instance")
    p.add_argument("instance", help="instance .json")
    p.add_argument("schedule", help='schedule .json: {"starts": {"r0": 0, ...}} or {"r0": 0, ...}')
    p.set_defaults(handler=_cmd_check)

    for module_name in _EXTENSIONS:
        importlib.import_module(module_name).add_commands(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except GeoschedError as exc:
        print(f"geosched: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("geosched: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader (e.g. `| head`) went away: not an error of ours, and no traceback
        sys.stderr.close()
        return 0


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
    result = simulate(instance, policy, engine=engine, predictor=predictor, backfill=args.backfill)
    report = check_schedule(instance, result.starts, evicted_segments=result.evicted_segments)
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
        "evictions": result.evictions,
        "wasted_tokens": result.wasted_tokens,
        "starts": result.starts,
        **({"parameters": result.extra} if result.extra else {}),
    }


def _workload_label(args: argparse.Namespace) -> str:
    return args.workload if getattr(args, "workload", None) else args.instance


def _cmd_simulate(args: argparse.Namespace) -> int:
    instance = _load(args, args.workload)
    row = _run_policy(instance, args.policy, args)
    if args.json:
        emit_json({"workload": _workload_label(args), "memory": instance.memory, "n": instance.n,
                   "policy": args.policy, "engine": args.engine, "predictor": args.predictor, "seed": args.seed,
                   **row})
        return 0
    print(f"workload {args.workload}: n={instance.n} M={instance.memory} alpha={float(instance.alpha):.3f}")
    print(f"policy {args.policy} ({args.predictor}{', backfill' if args.backfill else ''}"
          f"{', Coq engine' if args.engine == 'coq' else ''})")
    for key in ("tel", "mean_latency", "p95_latency", "p99_latency", "mean_wait", "makespan", "throughput",
                "peak_memory", "evictions", "wasted_tokens"):
        value = row[key]
        print(f"  {key:<14} {value:.3f}" if isinstance(value, float) else f"  {key:<14} {value}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from geosched.reference_impl.compare import compare

    instance = _load(args, args.workload)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    if not policies:
        raise WorkloadFormatError("--policies: give at least one policy name")
    result = compare(instance, policies, predictor=_predictor(args), backfill=args.backfill, opt=args.opt,
                     time_limit=args.time_limit, progress=not args.json and sys.stderr.isatty())
    opt_data = result.opt.to_dict() if result.opt is not None else None
    if args.json:
        emit_json({
            "workload": _workload_label(args),
            "memory": instance.memory,
            "n": instance.n,
            "alpha": float(instance.alpha),
            "seed": args.seed,
            "policies": {row.policy: _row_dict(row) for row in result.rows},
            "opt": opt_data,
            "lower_bound": result.lower_bound,
            "lower_bound_name": result.lower_bound_name,
        })
        return 0
    print(f"workload {args.workload}: n={instance.n} M={instance.memory} alpha={float(instance.alpha):.3f}"
          f"  predictor={args.predictor}{'  backfill' if args.backfill else ''}")
    denominator_label = "/OPT" if result.status == "opt" else "/LB"
    header = (f"{'policy':<8} {'TEL':>10} {'mean':>9} {'P95':>9} {'makespan':>9} {'tok/step':>9} {'evict':>6} "
              f"{denominator_label:>7}")
    print(header)
    print("-" * len(header))
    for row in result.rows:
        ratio = f"{row.ratio:>7.3f}" if row.ratio is not None else f"{'-':>7}"
        print(f"{row.policy:<8} {row.tel:>10} {row.mean_latency:>9.2f} {row.p95_latency:>9.2f} "
              f"{row.makespan:>9} {row.throughput:>9.2f} {row.evictions:>6} {ratio}")
    if opt_data is not None:
        status = opt_data["status"]
        tel = opt_data["tel"]
        print(f"{'OPT':<8} {tel if tel is not None else '-':>10}  status={status} dual_bound={opt_data['dual_bound']} "
              f"time={opt_data['wall_time']:.2f}s method={opt_data['method']}")
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
                       method=args.method, progress=not args.json and sys.stderr.isatty())
    data = result.to_dict()
    if result.lower_bound is not None:
        lower_value, lower_name = result.lower_bound, result.lower_bound_name
    else:  # brute force and the empty instance compute none: the cheap bounds take milliseconds
        lower = best_lower_bound(instance)
        lower_value, lower_name = lower.value, lower.name
    if args.json:
        emit_json({"instance": args.instance, "memory": instance.memory, "n": instance.n, **data,
                   "lower_bound": lower_value, "lower_bound_name": lower_name})
        return 0
    print(f"instance {args.instance}: n={instance.n} M={instance.memory}")
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
    from geosched.reference_impl.model import read_schedule

    instance = _load(args, args.instance)
    starts = read_schedule(args.schedule)
    report = check_schedule(instance, starts)
    if args.json:
        emit_json({"instance": args.instance, "schedule": args.schedule, **report.to_dict(per_request=True)})
    else:
        print("feasible" if report.feasible else "INFEASIBLE")
        for violation in report.violations:
            print(f"  {violation.kind}: {violation.message}")
        if report.metrics is not None:
            m = report.metrics
            print(f"  TEL {m.tel}  mean {m.mean_latency:.2f}  P95 {m.p95_latency:.2f}  makespan {m.makespan}  "
                  f"peak memory {m.peak_memory}/{instance.memory}")
    return 0 if report.feasible else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
