"""Commands of :mod:`geosched.adversary`: ``hunt``, ``check-witness``, ``family``, ``z3-bisect``."""

from __future__ import annotations

import argparse
import sys

from geosched.arguments import integer, non_negative_int, positive_float, positive_int
from geosched.errors import ValidationError
from geosched.reference_impl.policies import Capability, policy_names

__all__ = ["add_commands"]


DEFAULT_HUNT_MEMORY = 40  # M when --memory is not given: the paper-scale instances of benchmarks/RESULTS.md


def add_commands(subparsers, common) -> None:
    p = subparsers.add_parser("hunt", parents=[common], help="search for instances that hurt a policy (certified)",
                              description=f"Search for instances that hurt a policy; --memory defaults to "
                                          f"{DEFAULT_HUNT_MEMORY}.")
    p.add_argument("--policy", required=True, choices=policy_names(Capability.FAST))
    p.add_argument("--method", default="all", choices=("anneal", "de", "z3", "all"))
    p.add_argument("--requests", type=integer, default=20, help="at most this many requests (default 20)")
    p.add_argument("--alpha-max", type=positive_float, default=0.5, help="every peak <= alpha_max * M (default 0.5)")
    p.add_argument("--arrivals", choices=("burst", "online"), default="burst")
    p.add_argument("--time", type=positive_float, default=60.0, help="seconds in total (default 60)")
    p.add_argument("--out", default="hunt-out", help="output directory (default hunt-out)")
    p.add_argument("--resume", action="store_true",
                   help="continue from DIR/checkpoint.json (--time is this run's budget, added to the earlier runs')")
    p.add_argument("--force", action="store_true", help="replace an earlier hunt in --out instead of refusing")
    p.add_argument("--target", type=positive_float, default=None, help="stop a search once this ratio is reached")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(handler=_cmd_hunt)

    p = subparsers.add_parser("check-witness", parents=[common], help="re-verify a witness file from scratch")
    p.add_argument("file", help="witness .json")
    p.set_defaults(handler=_cmd_check_witness)

    p = subparsers.add_parser("family", parents=[common],
                              help="evaluate a member of a worst-case family and check its closed form")
    p.add_argument("name", help="family name (see geosched.adversary.families.FAMILIES)")
    p.add_argument("--size", type=integer, required=True, help="family parameter k")
    p.set_defaults(handler=_cmd_family)

    p = subparsers.add_parser("z3-bisect", parents=[common], help="bisect the worst ratio with Z3 on small bounds")
    p.add_argument("--policy", required=True, choices=policy_names(Capability.Z3))
    p.add_argument("--requests", type=integer, required=True, help="exactly n requests (1..10)")
    p.add_argument("--memory-max", type=positive_int, default=None, help="M ranges over [--memory, --memory-max]")
    p.add_argument("--max-prompt", type=non_negative_int, required=True)
    p.add_argument("--max-output", type=positive_int, required=True)
    p.add_argument("--alpha-max", default="1/2", help="fraction, e.g. 1/2")
    p.add_argument("--hi", default="5", help="upper end of the bisection (queried first)")
    p.add_argument("--timeout", type=positive_float, default=60.0, help="seconds per query")
    p.add_argument("--out", default=None, help="write the best sat witness here")
    p.set_defaults(handler=_cmd_z3)


def _cmd_hunt(args: argparse.Namespace) -> int:
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace
    from geosched.output import emit_json

    memory = DEFAULT_HUNT_MEMORY if args.memory is None else args.memory
    space = SearchSpace(args.policy, max_requests=args.requests, memory=memory, alpha_max=args.alpha_max,
                        arrivals=args.arrivals)
    seed = 0 if args.seed is None else args.seed
    result = hunt(space, method=args.method, time_limit=args.time, seed=seed, out=args.out, resume=args.resume,
                  force=args.force, target=args.target, progress=not args.quiet)
    if args.json:
        emit_json(result.to_dict())
        return 0
    for path in result.counterexamples:
        print(f"COUNTEREXAMPLE to Kong et al. Thm 3.2: {path}")
    best = f"{result.fun:.4f}" if result.fun is not None else "none"
    print(f"best certified ratio {best} ({result.message}); M = {memory}, {args.time:g} s this run")
    for m, info in result.methods.items():
        if "certified" in info:
            certified = [round(c, 4) for c in info["certified"]]
            print(f"  {m:<7} search best {info['search_best']:.4f}  certified {certified}"
                  f"  evals {info['nfev']}  {info['evaluations_per_second']:.0f}/s")
        else:
            print(f"  {m:<7} best sat {info['best_sat']:.4f}  queries {info['queries']}")
    print(f"witnesses in {args.out}; plot {result.plot or '(matplotlib missing: see ' + str(result.csv) + ')'}")
    return 0


def _cmd_check_witness(args: argparse.Namespace) -> int:
    from geosched.adversary.witness import read_witness, verify_witness
    from geosched.output import emit_json

    report = verify_witness(read_witness(args.file))
    if args.json:
        emit_json(report.to_dict())
    elif report.ok:
        line = (f"OK {args.file}: {report.policy} TEL {report.policy_tel} vs witness TEL {report.witness_tel}: "
                f"certified ratio {report.certified_ratio} = {float(report.certified_ratio):.6f}")
        if report.ratio_upper is not None:
            line += (f", true ratio in [{float(report.certified_ratio):.6f}, {float(report.ratio_upper):.6f}] "
                     f"(upper end from {report.lower_bound_name} = {report.lower_bound}, recomputed)")
        print(line)
        for note in report.notes:
            print(f"  note: {note}")
    else:
        print(f"geosched: error: witness {args.file} does not verify: " + "; ".join(report.problems),
              file=sys.stderr)
    return 0 if report.ok else 1


def _cmd_family(args: argparse.Namespace) -> int:
    from geosched.adversary.families import evaluate_family
    from geosched.output import emit_json

    report = evaluate_family(args.name, args.size)
    if args.json:
        emit_json(report.to_dict())
    else:
        print(f"family {report.family} k={report.size}: n={report.n} M={report.memory} alpha={float(report.alpha):.4f}")
        print(f"  {report.policy} TEL simulated {report.policy_tel}  closed form {report.policy_tel_formula}")
        print(f"  witness TEL checked {report.witness_tel}  closed form {report.witness_tel_formula}")
        ratio = f"{float(report.certified_ratio):.4f}" if report.certified_ratio is not None else "-"
        print(f"  certified ratio {ratio}  closed form {report.ratio_formula}  limit {report.limit}")
        print("  closed form matches" if report.match else "  MISMATCH between simulation and closed form")
    return 0 if report.match else 1


def _ratio_above_one(text: str):
    """``--hi``: an exact fraction > 1 (the bisection runs on [1, hi])."""
    from fractions import Fraction

    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ValidationError("--hi", text, "must be a fraction or decimal such as 5 or 7/2") from None
    if value <= 1:
        raise ValidationError("--hi", text, "must be > 1 (the bisection runs on [1, hi])")
    return value


def _cmd_z3(args: argparse.Namespace) -> int:
    from geosched.adversary.witness import write_witness
    from geosched.adversary.z3search import Z3Bounds, bisect_ratio
    from geosched.output import emit_json

    if args.memory is None:
        raise ValidationError("--memory", None, "z3-bisect needs --memory M")
    try:
        bounds = Z3Bounds(n=args.requests, memory=(args.memory, args.memory_max or args.memory),
                          max_prompt=args.max_prompt, max_output=args.max_output, alpha_max=args.alpha_max)
    except (ValueError, ZeroDivisionError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError("--alpha-max", args.alpha_max, "must be a fraction such as 1/2") from None
    result = bisect_ratio(args.policy, bounds, hi=_ratio_above_one(args.hi), timeout=args.timeout)
    if args.out and result.best_witness is not None:
        write_witness(result.best_witness, args.out)
    if args.json:
        emit_json(result.to_dict())
        return 0
    print(f"z3 {args.policy}: {bounds.describe()}")
    for q in result.queries:
        print(f"  r = {q.ratio} ({float(q.ratio):.4f}): {q.status} in {q.wall_time:.2f}s"
              + (f", witness ratio {float(q.found_ratio):.4f}" if q.found_ratio is not None else ""))
    print(f"  largest certified ratio {float(result.best_sat) if result.best_sat else None}; "
          f"proved: no instance reaches {result.smallest_unsat}" if result.smallest_unsat is not None else
          f"  largest certified ratio {float(result.best_sat) if result.best_sat else None}; no upper limit proved")
    return 0
