"""Commands of :mod:`geosched.adversary`: ``hunt``, ``check-witness``, ``family``, ``z3-bisect``.

(``export`` lives with the workload commands in :mod:`geosched.cli`, its formats in
:mod:`geosched.reference_impl.formats`.)
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

from geosched.adversary.targets import VLLM_TARGETS, hunt_target, target_names
from geosched.arguments import (
    add_command,
    add_work_limits,
    integer,
    non_negative_int,
    positive_float,
    positive_int,
    seconds,
    show_progress,
)
from geosched.errors import GeoschedError, ValidationError
from geosched.executor import SPEC_HELP, cluster_spec
from geosched.reference_impl.policies import Capability, policy_names

__all__ = ["add_commands"]


DEFAULT_HUNT_MEMORY = 40  # M when --memory is not given: the paper-scale instances of benchmarks/RESULTS.md


def _hunt_policy(text: str) -> str:
    """A hunt target's name (one line naming the known ones otherwise)."""
    try:
        hunt_target(text)
    except GeoschedError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_commands(subparsers, common) -> None:
    _add_hunt(subparsers, common)
    _add_hunt_small(subparsers, common)
    _add_check_witness(subparsers, common)
    _add_family_and_z3(subparsers, common)


def _add_hunt(subparsers, common) -> None:
    p = add_command(subparsers, "hunt", common, help="search for instances that hurt a policy (certified)",
                    memory=f"the memory budget M of every instance searched (tokens; default {DEFAULT_HUNT_MEMORY})",
                    seed="seed of the search's random starts and moves (>= 0; default 0; the witnesses record it)",
                    description="Search for instances on which a policy is far from the optimum "
                                "(simulated annealing, differential evolution, Z3, structured groups); "
                                "every ratio printed is certified by a witness file whose schedules "
                                f"the checker accepts. --memory defaults to {DEFAULT_HUNT_MEMORY}.",
                    examples=["geosched hunt --policy sjf --method anneal --time 5 --out hunt-demo",
                              "geosched hunt --policy svf --method anneal --rounds 2 --out hunt-svf"])
    p.add_argument("--policy", required=True, type=_hunt_policy, metavar="POLICY",
                   help=f"{', '.join(target_names())}, or a scheduler of your own: FILE.py:Class")
    p.add_argument("--method", default="all", choices=("anneal", "de", "z3", "structured", "all"),
                   help="structured: a few groups of requests, for large --requests and --memory")
    p.add_argument("--ties", choices=("given", "robust"), default="given",
                   help="structured: robust scores the worse of the given and the reversed tie order")
    p.add_argument("--block-size", type=positive_int, default=1, metavar="B",
                   help="vLLM targets: every instance searched counts memory in KV blocks of B tokens (its "
                   "block_size: ceil(tokens / B) blocks per request; --memory stays in tokens and must be a "
                   "multiple of B); the witness schedule is checked at the same grain")
    p.add_argument("--requests", type=integer, default=20, help="at most this many requests (default 20)")
    p.add_argument("--alpha-max", type=positive_float, default=0.5, help="every peak <= alpha_max * M (default 0.5)")
    p.add_argument("--alpha-min", type=positive_float, default=None,
                   help="alpha band: every instance has alpha = max(s + o)/M in (alpha_min, alpha_max] "
                   "(0 < alpha_min < alpha_max < 1; default: no lower side)")
    p.add_argument("--exact-ties", action="store_true",
                   help="also the tie mutation: a request takes exactly another's volume (same or another shape)")
    p.add_argument("--arrivals", choices=("burst", "online"), default="burst")
    p.add_argument("--time", type=seconds, default=60.0, help="seconds in total (default 60)")
    p.add_argument("--out", default="hunt-out", help="output directory (default hunt-out)")
    p.add_argument("--resume", action="store_true",
                   help="continue from DIR/checkpoint.json (--time is this run's budget, added to the earlier runs')")
    p.add_argument("--force", action="store_true", help="replace an earlier hunt in --out instead of refusing")
    p.add_argument("--target", type=positive_float, default=None, help="stop a search once this ratio is reached")
    p.add_argument("--proposals", action="store_true",
                   help="structured: also start from and jump to the fluid analysis's family proposals")
    p.add_argument("--rounds", type=positive_int, default=None,
                   help="reproducible mode: this many rounds of --restarts restarts of --evals evaluations, the best "
                   "witnesses passed on between rounds (--method anneal or structured; --time is not used)")
    p.add_argument("--restarts", type=positive_int, default=8, help="with --rounds: restarts per round (default 8)")
    p.add_argument("--evals", type=positive_int, default=2000,
                   help="with --rounds: evaluations per restart (default 2000)")
    p.add_argument("--cluster", type=cluster_spec, default="serial", metavar="SPEC",
                   help=f"with --rounds, where the restarts run: {SPEC_HELP}; default serial (same result everywhere)")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_hunt,
                   stopped="what was saved is kept: the checkpoint in --out (continue with --resume)")


def _add_hunt_small(subparsers, common) -> None:
    p = add_command(subparsers, "hunt-small", common,
                    help="search small bursts in an alpha band, each ratio exact (OPT proved optimal)",
                    seed="seed of the random starts and moves (>= 0; default 0; the witness records it)",
                    description="Random restarts of short annealing walks over burst instances of at most 8 "
                                "requests whose alpha = max(s + o)/M lies in (--alpha-min, --alpha-max]; every "
                                "promising instance is solved exactly, and only an optimum the solver proves "
                                "counts: the ratio printed is TEL(policy)/OPT, exact. --out writes the best as a "
                                "witness (the optimal schedule as its witness schedule).",
                    examples=["geosched hunt-small --policy svf --requests 6 --memory-range 8 16 "
                              "--alpha-min 0.75 --alpha-max 0.85 --evals 600"])
    p.add_argument("--policy", required=True, type=_hunt_policy, metavar="POLICY", help=", ".join(target_names()))
    p.add_argument("--requests", type=integer, default=6, help="at most this many requests, 1..8 (default 6)")
    p.add_argument("--memory-range", type=positive_int, nargs=2, default=(6, 30), metavar=("LO", "HI"),
                   help="M drawn in [LO, HI] (default 6 30; at most 64)")
    p.add_argument("--alpha-min", type=positive_float, required=True, help="the band's lower side (exclusive)")
    p.add_argument("--alpha-max", type=positive_float, required=True, help="the band's upper side")
    p.add_argument("--evals", type=positive_int, default=20000,
                   help="instances scored in all (default 20000; at most 10^7, and at most 10^4 per second of "
                   "--time: a plan past either is refused before it starts)")
    p.add_argument("--climb", type=positive_int, default=300,
                   help="evaluations per walk, 2..10^7, cut to --evals (default 300)")
    p.add_argument("--solver-time", type=seconds, default=20.0,
                   help="seconds per exact solve (default 20; at most what is left of --time)")
    p.add_argument("--time", type=seconds, default=30.0,
                   help="seconds for the whole search (default 30): it stops there with what it certified, and "
                   "says so (only a search that ends by --evals is reproduced by its seed)")
    p.add_argument("--ties", choices=("given", "robust", "distinct"), default="given",
                   help="robust: score each exactly solved instance by the worse of the given and the reversed "
                   "request order (a ratio that holds under both orders of equal keys); distinct: score only "
                   "instances whose volumes are pairwise distinct")
    p.add_argument("--scale", type=positive_int, default=1,
                   help="K > 1: score each promising instance's tie-free versions scaled by K (M up to 64 K; "
                   "geosched.adversary.tiefree), each solved exactly; implies --ties distinct (default 1)")
    p.add_argument("--out", default=None, help="write the best instance as a witness file here")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_hunt_small)


def _cmd_hunt_small(args: argparse.Namespace) -> int:
    from geosched.adversary.smalln import small_search, small_witness
    from geosched.adversary.witness import write_witness
    from geosched.output import check_target, emit_json, writer_lock

    alpha_min = check_alpha_band(args.alpha_min, args.alpha_max)
    seed = 0 if args.seed is None else args.seed
    with writer_lock(args.out) if args.out is not None else contextlib.nullcontext():  # one writer of --out
        if args.out is not None:
            check_target(args.out, force=args.force)
        result = small_search(args.policy, n_max=args.requests, memory=tuple(args.memory_range),
                              band=(alpha_min, args.alpha_max), max_evals=args.evals, climb_evals=args.climb,
                              solver_time=args.solver_time, rng=seed, time_limit=args.time,
                              ties=f"distinct:{args.scale}" if args.scale > 1 else args.ties)
        if args.out is not None and result.x is not None:
            write_witness(small_witness(result, args.policy), args.out, force=args.force)
    if args.json:
        emit_json(result.to_dict())
        return 0
    if result.x is None:
        print(result.message)
        return 0
    label = f"min(TEL({args.policy}), reversed ties)" if args.ties == "robust" and args.scale == 1 else \
        f"TEL({args.policy})"
    print(f"best exact ratio {label}/OPT = {result.policy_tel}/{result.opt_tel} = {result.fun:.4f} at "
          f"alpha = {result.alpha} ({float(result.alpha):.4f}), n = {len(result.x.requests)}, M = {result.x.memory}; "
          f"{result.message}; {result.nfev} evaluations, seed {seed}")
    if args.out is not None:
        print(f"witness {args.out}")
    return 0


def _add_check_witness(subparsers, common) -> None:
    p = add_command(
        subparsers, "check-witness", common, help="re-verify a witness file from scratch",
        description="Re-verify a witness file from scratch: simulate the policy again, check both schedules with "
                    "the independent checker and recompute the certified ratio and its upper end. Every number is "
                    "derived from the instance and the policy's name (for vLLM: the engine too); a field of the file "
                    "that disagrees is a failed check. A witness never runs code it names: the policy must be built "
                    "in, or a scheduler file that you pass with --scheduler. Exit 0 when it verifies, 1 when it "
                    "does not, 2 on a malformed file.",
        examples=["geosched check-witness docs/witnesses/sjf_burst_alpha0.5_ratio3.268.json",
                  "geosched check-witness docs/witnesses/vllm-fcfs_burst_ratio15.264.json --vllm",
                  "geosched check-witness hunt-mine/best_witness.json --scheduler mine.py:MyScheduler"])
    p.add_argument("file", help="witness .json")
    p.add_argument("--vllm", action="store_true",
                   help="vLLM targets: also replay the instance in vLLM's real scheduler (on the engine derived from "
                   "the instance) and measure the ratio there")
    p.add_argument("--scheduler", default=None, metavar="FILE.py:Class",
                   help="a witness of your own scheduler: the file to run (the same class; its SHA-256 must be the "
                   "one the witness records). Without it such a witness is refused: no file named by a witness runs")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_check_witness)


def _add_family_and_z3(subparsers, common) -> None:
    p = add_command(
        subparsers, "family", common, help="evaluate a member of a worst-case family and check its closed form",
        description="Build member k of a worst-case family, simulate the policy, check the witness schedule and "
                    "compare both TELs and the ratio with the family's sympy closed forms. Exit 0 when they "
                    "match, 1 when not.",
        examples=["geosched family sjf-blocking --size 4", "geosched family svf-pairs --size 4 --param q=2",
                  "geosched family svf1-proxy-range --size 40 --out witness.json"])
    p.add_argument("name", help="family name (see geosched.adversary.families.FAMILIES)")
    p.add_argument("--size", type=integer, required=True, help="family parameter k")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="another parameter of the family (e.g. q=2 for svf-pairs); repeatable")
    p.add_argument("--out", default=None, help="write the member as a certified witness file (when it matches)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.set_defaults(handler=_cmd_family)

    p = add_command(
        subparsers, "z3-bisect", common, help="bisect the worst ratio with Z3 on small bounds",
        memory="the smallest memory budget M of the bounds (tokens; required)",
        description="Bisect the worst ratio of a policy to OPT with Z3 over every instance within small bounds "
                    "(n requests, M, prompt and output lengths): sat gives a certified witness, unsat proves no "
                    "instance in the bounds reaches that ratio, a timeout is unknown. Needs --memory.",
        examples=["geosched z3-bisect --policy sjf --requests 3 --memory 8 --max-prompt 3 --max-output 4 "
                  "--timeout 20 --out z3.json"])
    p.add_argument("--policy", required=True, choices=policy_names(Capability.Z3))
    p.add_argument("--requests", type=integer, required=True, help="exactly n requests (1..30)")
    p.add_argument("--memory-max", type=positive_int, default=None, help="M ranges over [--memory, --memory-max]")
    p.add_argument("--max-prompt", type=non_negative_int, required=True)
    p.add_argument("--max-output", type=positive_int, required=True)
    p.add_argument("--alpha-max", default="1/2", help="fraction, e.g. 1/2")
    p.add_argument("--alpha-min", default=None,
                   help="alpha band: only instances with alpha = max(s + o)/M in (alpha_min, alpha_max] (a fraction "
                   "such as 3/4; 0 < alpha_min < alpha_max < 1; default: no lower side)")
    p.add_argument("--hi", default="5", help="upper end of the bisection (queried first)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds per query")
    p.add_argument("--out", default=None, help="write the best sat witness here")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--lo", default="1", help="lower end of the bisection")
    p.add_argument("--strengthen", action="store_true",
                   help="add the symmetry-breaking, symbolic-length and volume cuts (sound; measured slower)")
    p.add_argument("--distinct-volumes", action="store_true",
                   help="svf: only instances whose volumes are pairwise distinct (no tie for the order to decide)")
    p.set_defaults(handler=_cmd_z3)


def check_alpha_band(alpha_min: float | None, alpha_max: float) -> float:
    """The band's lower side (0.0 when not given), checked: ``0 < alpha_min < alpha_max < 1``.

    >>> check_alpha_band(0.75, 0.85), check_alpha_band(None, 1.0)
    (0.75, 0.0)
    >>> check_alpha_band(0.9, 0.85)
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: --alpha-min: must be below --alpha-max = 0.85 (the band is (min, max]) (got 0.9)
    """
    if alpha_min is None:
        return 0.0
    if not 0 < alpha_min < 1:
        raise ValidationError("--alpha-min", alpha_min, "must be in (0, 1)")
    if not alpha_max < 1:
        raise ValidationError("--alpha-max", alpha_max, "must be < 1 with --alpha-min (a band inside (0, 1))")
    if not alpha_min < alpha_max:
        raise ValidationError("--alpha-min", alpha_min, f"must be below --alpha-max = {alpha_max:g} (the band is "
                              "(min, max])")
    return alpha_min


def _overrun(took: float, time_limit: float) -> str:
    """Why a time-limited hunt ended more than 10% past ``--time`` (a short one: what every run pays)."""
    if took <= 1.1 * time_limit:
        return ""
    return (f" ({took - time_limit:.1f} s over: each search's start-up and each certification's floor are paid "
            "whatever --time is; they dominate a --time of a few seconds)")


def _cmd_hunt(args: argparse.Namespace) -> int:
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace
    from geosched.output import emit_json

    memory = DEFAULT_HUNT_MEMORY if args.memory is None else args.memory
    alpha_min = check_alpha_band(args.alpha_min, args.alpha_max)
    space = SearchSpace(args.policy, max_requests=args.requests, memory=memory, alpha_max=args.alpha_max,
                        alpha_min=alpha_min, exact_ties=args.exact_ties, arrivals=args.arrivals,
                        block_size=args.block_size)
    seed = 0 if args.seed is None else args.seed
    began = time.perf_counter()
    result = hunt(space, method=args.method, time_limit=args.time, seed=seed, out=args.out, resume=args.resume,
                  force=args.force, target=args.target, progress=show_progress(args), ties=args.ties,
                  proposals=args.proposals, rounds=args.rounds, restarts=args.restarts, evals=args.evals,
                  executor=args.cluster)
    if args.json:
        emit_json(result.to_dict())
        return 0
    for path in result.counterexamples:
        print(f"COUNTEREXAMPLE to Kong et al. Thm 3.2: {path}")
    best = f"{result.fun:.4f}" if result.fun is not None else "none"
    took = time.perf_counter() - began
    budget = (f"{args.rounds} rounds x {args.restarts} restarts x {args.evals} evaluations" if args.rounds
              else f"--time {args.time:g} s, this run took {took:.1f} s" + _overrun(took, args.time))
    print(f"best certified ratio {best} ({result.message}); M = {memory}, {budget}")
    for m, info in result.methods.items():
        if "certified" in info:
            certified = [round(c, 4) for c in info["certified"]]
            print(f"  {m:<7} search best {info['search_best']:.4f}  certified {certified}"
                  f"  evals {info['nfev']}  {info['evaluations_per_second']:.0f}/s")
        else:
            print(f"  {m:<7} best sat {info['best_sat']:.4f}  queries {info['queries']}")
    for path, replay in result.replays.items():
        if replay["status"] == "unavailable":
            print(f"  {path}: not replayed in vLLM ({replay['message']})")
        else:
            print(f"  {path}: replayed in vLLM's scheduler ({replay['status']}): TEL {replay['vllm_tel']} "
                  f"(model {replay['model_tel']}), ratio in vLLM {replay['vllm_ratio']:.4f}")
    print(f"witnesses in {args.out}; plot {result.plot or '(matplotlib missing: see ' + str(result.csv) + ')'}")
    return 0


def _cmd_check_witness(args: argparse.Namespace) -> int:
    from geosched.adversary.witness import read_witness, verify_witness
    from geosched.output import emit_json

    data = read_witness(args.file)
    if args.vllm and data["policy"].partition(":")[0] not in VLLM_TARGETS:
        raise ValidationError("--vllm", args.file, f"replays witnesses of the vLLM targets "
                              f"({', '.join(VLLM_TARGETS)}), not of {data['policy']!r}")
    report = verify_witness(data, scheduler=args.scheduler)
    replay = None
    if args.vllm and report.ok:
        from geosched.output import working

        with working("replaying in vLLM's scheduler", show_progress(args) and not args.json):
            replay = _vllm_replay(data)
    if args.json:
        out = report.to_dict()
        if args.vllm:
            out["vllm_replay"] = replay.to_dict() if replay is not None else {
                "status": "not_run", "message": "the witness does not verify: not replayed"}
        emit_json(out)
    elif report.ok:
        _print_verified(args.file, report)
        if replay is not None:
            print(f"  vLLM replay ({replay.status}): {replay.message}")
    else:
        print(f"geosched: error: witness {args.file} does not verify: " + "; ".join(report.problems),
              file=sys.stderr)
    return 0 if report.ok else 1


def _print_verified(path: str, report) -> None:
    line = (f"OK {path}: {report.policy} TEL {report.policy_tel} vs witness TEL {report.witness_tel}: "
            f"certified ratio {report.certified_ratio} = {float(report.certified_ratio):.6f}")
    if report.ratio_upper is not None:
        line += (f", true ratio in [{float(report.certified_ratio):.6f}, {float(report.ratio_upper):.6f}] "
                 f"(upper end from {report.lower_bound_name} = {report.lower_bound}, recomputed)")
    print(line)
    if report.reversed_ties_tel is not None and report.witness_tel:
        verdict = "the ratio DEPENDS on the tie order" if report.depends_on_ties else "the ratio does not"
        print(f"  ties: {report.tie_rule}; reversed tie order: TEL {report.reversed_ties_tel} "
              f"(ratio {report.reversed_ties_tel / report.witness_tel:.6f}): {verdict}")
    if report.engine is not None:
        engine = report.engine
        print(f"  vLLM model run: {report.preemptions} preemptions; engine derived from the instance: "
              f"{engine['capacity_blocks']} blocks of {engine['block_size']} tokens (M = {report.memory})")
    if report.scheduler_sha256 is not None:
        print(f"  scheduler file: SHA-256 {report.scheduler_sha256} (the file you passed)")
    for note in report.notes:
        print(f"  note: {note}")


def _vllm_replay(data):
    from geosched.adversary.vllm_replay import replay_in_vllm

    return replay_in_vllm(data)


def _cmd_family(args: argparse.Namespace) -> int:
    from geosched.adversary.families import evaluate_family
    from geosched.output import emit_json

    params = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep or not key or not value.strip().lstrip("-").isdigit():
            raise ValidationError("--param", item, "must look like NAME=INTEGER")
        params[key.strip()] = int(value)
    if args.out is not None:
        from geosched.output import check_target

        check_target(args.out, force=args.force)  # before the member is built
    report = evaluate_family(args.name, args.size, **params)
    if args.out is not None and report.match:
        from geosched.adversary.families import family_witness
        from geosched.adversary.witness import write_witness

        write_witness(family_witness(args.name, args.size, **params), args.out, force=args.force)
    if args.json:
        emit_json(report.to_dict())
    else:
        print(f"family {report.family} k={report.size}: n={report.n} M={report.memory} alpha={float(report.alpha):.4f}")
        print(f"  {report.policy} TEL simulated {report.policy_tel}  closed form {report.policy_tel_formula}")
        print(f"  witness TEL checked {report.witness_tel}  closed form {report.witness_tel_formula}")
        ratio = f"{float(report.certified_ratio):.4f}" if report.certified_ratio is not None else "-"
        print(f"  certified ratio {ratio}  closed form {report.ratio_formula}  limit {report.limit}")
        print("  closed form matches" if report.match else "  MISMATCH between simulation and closed form")
        if args.out is not None and report.match:
            print(f"  witness written to {args.out}")
    return 0 if report.match else 1


def _exact_ratio(flag: str, text: str):
    """``--lo``/``--hi``: an exact fraction or decimal (the bisection's ends)."""
    from fractions import Fraction

    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ValidationError(flag, text, "must be a fraction or decimal such as 5 or 7/2") from None


def _cmd_z3(args: argparse.Namespace) -> int:
    from geosched.adversary.witness import write_witness
    from geosched.adversary.z3search import Z3Bounds, bisect_ratio
    from geosched.output import emit_json

    if args.memory is None:
        raise ValidationError("--memory", None, "z3-bisect needs --memory M")
    if args.out is not None:
        from geosched.output import check_target

        check_target(args.out, force=args.force)  # before the solver runs
    alpha_min = "0"
    if args.alpha_min is not None:  # the same band check as the hunts', on the exact fractions
        low = _exact_ratio("--alpha-min", args.alpha_min)
        check_alpha_band(float(low), float(_exact_ratio("--alpha-max", args.alpha_max)))
        alpha_min = str(low)
    try:
        bounds = Z3Bounds(n=args.requests, memory=(args.memory, args.memory_max or args.memory),
                          max_prompt=args.max_prompt, max_output=args.max_output, alpha_max=args.alpha_max,
                          alpha_min=alpha_min, distinct_volumes=args.distinct_volumes)
    except (ValueError, ZeroDivisionError) as exc:
        if isinstance(exc, ValidationError):
            raise
        raise ValidationError("--alpha-max", args.alpha_max, "must be a fraction such as 1/2") from None
    lo, hi = _exact_ratio("--lo", args.lo), _exact_ratio("--hi", args.hi)
    if lo < 1:
        raise ValidationError("--lo", args.lo, "must be >= 1 (a ratio to OPT)")
    if hi <= 1:
        raise ValidationError("--hi", args.hi, "must be > 1 (every instance has ratio >= 1)")
    if lo > hi:  # lo == hi asks one query
        raise ValidationError("--lo", args.lo, f"must be <= --hi ({args.hi})")
    from geosched.output import working

    with working(f"z3-bisect {args.policy} (up to {args.timeout:g} s per query)", show_progress(args)):
        result = bisect_ratio(args.policy, bounds, lo=lo, hi=hi, timeout=args.timeout, strengthen=args.strengthen)
    if args.out and result.best_witness is not None:
        write_witness(result.best_witness, args.out, force=args.force)
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
