"""Ledger rows for code that no claim of the papers runs: the referee, block grain, the lower bounds, restarts.

Every theorem row rests on code that is not itself a claim of the papers: the schedule checker that certifies
each schedule, its block-grain sweep, the lower bounds on OPT that the Monte-Carlo and the searches divide by,
and the step engine that runs schedulers with preemption and recompute. These rows check that code against
something independent, computed here, on known-bad and seeded inputs, so that a mutation of it changes a word:

* ``ours.referee``: one hand-built infeasible schedule per violation kind (missing start, unknown id, non-integer,
  out of range, bad runs, early start, memory), each reported with its kind, step and amount, and a feasible one
  accepted with its TEL; then seeded random schedules against a step-by-step count of the memory (a brute force):
  the same verdict, the same first overflow step and amount, the same TEL;
* ``ours.block_grain``: the same brute force with memory counted in whole blocks (``B ceil(u / B)``), and the
  schedules of the priority rules simulated at block grain accepted by it;
* ``ours.lower_bounds``: every lower bound on TEL(OPT) (the cheap ones, the burst-only ones, the chain bound)
  against the exact optimum of every burst instance of the exhaustive space, each burst-only bound attained on
  some instance (so an increase of it would fail);
* ``ours.engine_restarts``: the step engine running stock vLLM's rules (``VllmScheduler``, preemption by
  recompute) against the vLLM-semantics model on seeded instances with arrivals: the same runs (starts and
  preemption ends) for every request, the checker accepting them, and preemptions in the sample.

Witness certification (``check-witness`` refusing tampered witnesses) lives in :mod:`geosched.adversary`, which
the ledger may not import: docs/claims.md names the tests that cover it.

Example
-------
>>> from geosched.verify.evidence import Context
>>> METHODS_HERE["referee:bad-schedules"](None, Context("quick", None, 0, ())).status
'checked'
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from geosched.theory.claim import Claim
from geosched.verify.evidence import Canary, Context, Coverage, Evidence, declares_canary, plant, plant_all

__all__ = ["CLAIMS", "METHODS_HERE", "brute_force_memory", "bad_schedule_cases"]

_WHY = "a property of geosched's own code (no paper states it): checked against an independent computation"


def brute_force_memory(requests: list[tuple[int, int, int]], starts: list[int], memory: int,
                       block: int = 1) -> tuple[int | None, int, int]:
    """``(first step over M or None, tokens over M there, peak)``: the memory held at every step, counted one
    step and one request at a time (a request ``(a, s, o)`` started at ``x`` holds ``s + t - x`` at
    ``x < t <= x + o``; at block grain ``block * ceil(u / block)``).

    >>> brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 6)
    (2, 1, 7)
    """
    first, over, peak = None, 0, 0
    last = max((x + o for (_, _, o), x in zip(requests, starts)), default=0)
    for t in range(min(starts, default=0) + 1, last + 1):
        used = 0
        for (_, s, o), x in zip(requests, starts):
            if x < t <= x + o:
                held = s + t - x
                used += -(-held // block) * block
        peak = max(peak, used)
        if used > memory and first is None:
            first, over = t, used - memory
    return first, over, peak


def bad_schedule_cases() -> list[tuple[str, Any, dict[str, Any], int, tuple[str, int | None, int]]]:
    """``(kind, instance, starts, block size, (kind, step, amount) expected)``: one infeasible schedule per kind of
    violation the checker knows, the expected step and amount worked out here."""
    from geosched.reference_impl.model import Instance, Request

    arrivals = Instance(10, [Request("a", 0, 2, 3), Request("b", 2, 1, 2)])
    burst = Instance(6, [Request("a", 0, 2, 3), Request("c", 0, 1, 2)])
    over = brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 6)
    over_blocks = brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 6, block=2)
    return [
        ("missing_start", arrivals, {"a": 0}, 1, ("missing_start", None, 0)),
        ("unknown_id", arrivals, {"a": 0, "b": 2, "zz": 1}, 1, ("unknown_id", None, 0)),
        ("not_integer", arrivals, {"a": 0.5, "b": 2}, 1, ("not_integer", None, 0)),
        ("out_of_range", arrivals, {"a": 2**63, "b": 2}, 1, ("out_of_range", None, 0)),
        ("bad_runs", arrivals, {"a": [(0, 1)], "b": 2}, 1, ("bad_runs", None, 0)),
        ("early_start", arrivals, {"a": 0, "b": 1}, 1, ("early_start", 1, 1)),
        ("memory", burst, {"a": 0, "c": 0}, 1, ("memory", over[0], over[1])),
        ("memory (blocks)", burst, {"a": 0, "c": 0}, 2, ("memory", over_blocks[0], over_blocks[1])),
    ]


def bad_case_problem(name: str, instance: Any, starts: dict[str, Any], expected: tuple[str, int | None, int]) -> \
        str | None:
    """The referee's verdict on one hand-built case: ``expected`` is ``(kind, step, amount)`` of the violation it
    must report, or ``("feasible", None, TEL)`` for a schedule it must accept with that TEL."""
    from geosched.reference_impl.checker import check_schedule

    kind, step, amount = expected
    report = check_schedule(instance, starts)
    if kind == "feasible":
        return None if report.feasible and report.metrics.tel == amount else \
            f"{name}: a feasible schedule (TEL {amount} by hand) is reported {report.status}, {report.message}"
    found = [v for v in report.violations if v.kind == kind]
    if report.feasible or not found or (found[0].step, found[0].amount) != (step, amount):
        got = [(v.kind, v.step, v.amount) for v in report.violations]
        return f"{name}: expected ({kind}, step {step}, amount {amount}), the checker says {got}"
    return None


@declares_canary("a schedule one token over M expected accepted")
def _bad_schedules(claim: Any, ctx: Context) -> Evidence:
    """Every violation kind reported with its step and amount; a feasible schedule accepted with its TEL."""
    from geosched.reference_impl.model import Instance, Request

    label, t0 = "referee:bad-schedules", time.perf_counter()
    problems, kinds = [], []
    for name, instance, starts, block, expected in bad_schedule_cases():
        # the grain is the instance's (block_size), as every referee reads it
        problem = bad_case_problem(name, Instance(instance.memory, instance.requests, block_size=block), starts,
                                   expected)
        kinds.append(name)
        problems += [problem] if problem else []
    good = [Request("a", 0, 2, 3), Request("c", 0, 1, 2)]  # by hand: finishes at 3 and 5, TEL 8, peak 5 (a at 3)
    problems += [p for p in [bad_case_problem("feasible", Instance(6, good), {"a": 0, "c": 3}, ("feasible", None, 8))]
                 if p]
    # both at 0: TEL 3 + 2 = 5, and at step 2 they hold 4 + 3 = 7, one token over M = 6: it must not be accepted
    canary = plant("a schedule one token over M (both at 0) expected accepted with its TEL 5",
                   lambda starts: bad_case_problem("one token over M", Instance(6, good), starts,
                                                   ("feasible", None, 5)), {"a": 0, "c": 0})
    return _evidence(label, problems, f"each of the {len(kinds)} kinds ({', '.join(kinds)}) reported with the step "
                     "and amount worked out by hand; a feasible schedule accepted with TEL 8",
                     f"the {len(kinds)} violation kinds, by hand", t0, canary=canary)


def _random_cases(seed: int, count: int, block: int, most: int = 5) -> list[tuple[Any, list[tuple[int, int, int]],
                                                                                 list[int]]]:
    from geosched.reference_impl.model import Instance, Request

    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        shapes = [(rng.randint(0, 4), rng.randint(0, 4), rng.randint(1, 5)) for _ in range(rng.randint(1, most))]
        peak = max(block * -(-(s + o) // block) for _, s, o in shapes)
        memory = block * -(-(peak + rng.randint(0, 8)) // block)
        starts = [a + rng.randint(0, 8) for a, _, _ in shapes]
        instance = Instance(memory, [Request(f"r{k}", a, s, o) for k, (a, s, o) in enumerate(shapes)],
                            block_size=block)
        cases.append((instance, shapes, starts))
    return cases


def _percentile(ordered: list[int], q: int) -> float:
    """The ``q``-th percentile of sorted values by linear interpolation between closest ranks (numpy's default,
    written out): rank ``q (n - 1)/100``."""
    rank = q * (len(ordered) - 1) / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def brute_force_metrics(shapes: list[tuple[int, int, int]], starts: list[int], memory: int,
                        block: int = 1) -> dict[str, Any]:
    """Every number the referee certifies, counted here one request and one step at a time: the first overflow
    and its amount, the peak, TEL, the mean latency, the latency percentiles P50/P95/P99 and the makespan.

    >>> brute_force_metrics([(0, 2, 3), (0, 1, 2)], [0, 0], 6)["p95"]
    2.95
    """
    first, over, peak = brute_force_memory(shapes, starts, memory, block)
    latencies = sorted(x + o - a for (a, _, o), x in zip(shapes, starts))
    return {"first": first, "over": over, "peak": peak, "tel": sum(latencies),
            "mean": sum(latencies) / len(latencies), "p50": _percentile(latencies, 50),
            "p95": _percentile(latencies, 95), "p99": _percentile(latencies, 99),
            "makespan": max(x + o for (_, _, o), x in zip(shapes, starts))}


def observed(report: Any) -> dict[str, Any]:
    """What a checker report certifies, in :func:`brute_force_metrics`' names."""
    memory = [v for v in report.violations if v.kind == "memory"]
    m = report.metrics
    return {"first": memory[0].step if memory else None, "over": memory[0].amount if memory else 0,
            "peak": m.peak_memory, "tel": m.tel, "mean": m.mean_latency, "p50": m.p50_latency, "p95": m.p95_latency,
            "p99": m.p99_latency, "makespan": m.makespan}


def referee_problems(brute: dict[str, Any], seen: dict[str, Any], where: str) -> list[str]:
    """The referee's verdict on one schedule: every number it certifies equals the brute force's (percentiles
    within 1e-9)."""
    bad = [k for k in brute if (abs(seen[k] - brute[k]) > 1e-9 if isinstance(brute[k], float) else seen[k] != brute[k])]
    return [f"{where}: {', '.join(f'{k} {seen[k]} (brute force {brute[k]})' for k in bad)}"] if bad else []


def _brute_force_problems(cases: list, block: int, both_paths: bool = False) -> tuple[list[str], int, Any]:
    """The checker against :func:`brute_force_metrics` on each case; with ``both_paths`` the checker's two paths
    (plain integer starts: the column path; numpy integers: the general path) are each compared. Returns the
    problems, the number of infeasible schedules and the first infeasible case's ``(brute, seen, where)``."""
    import numpy as np

    from geosched.reference_impl.checker import check_schedule

    problems, infeasible, sample = [], 0, None
    for instance, shapes, starts in cases:
        brute = brute_force_metrics(shapes, starts, instance.memory, block)
        where = f"M={instance.memory}, B={block}, {shapes}, starts {starts}"
        infeasible += brute["first"] is not None
        paths = {"column path": {f"r{k}": x for k, x in enumerate(starts)}}
        if both_paths:
            paths["general path"] = {f"r{k}": np.int64(x) for k, x in enumerate(starts)}
        for path, given in paths.items():
            seen = observed(check_schedule(instance, given))  # at the instance's grain
            if block > 1:  # block grain: the overflow is what is compared (the peak is in blocks there)
                brute, seen = ({k: d[k] for k in ("first", "over", "tel")} for d in (brute, seen))
            problems += referee_problems(brute, seen, f"{where} ({path})")
            if sample is None and brute["first"] is not None:
                sample = (brute, seen, where)
    return problems, infeasible, sample


def _referee_canary(sample: Any, defects: dict[str, Callable[[dict[str, Any]], dict[str, Any]]]) -> Canary:
    """Each defect planted in what the checker reported on the sample's first infeasible schedule, judged by
    :func:`referee_problems` against the brute force (no infeasible schedule: nothing to plant on, not refuted)."""
    if sample is None:
        return Canary("; ".join(defects), False, "no infeasible schedule in the sample to plant on")
    brute, seen, where = sample
    return plant_all([plant(name, lambda s: referee_problems(brute, s, where), change(seen))
                      for name, change in defects.items()])


# the seeded sample of referee:brute-force per mode: schedules (n <= 12 requests), and the least share of them that
# must be infeasible and feasible (about 65% are infeasible at seed 0; both floors are over 5 standard errors away)
REFEREE_SAMPLE = {"quick": 300, "default": 2000, "thorough": 20000}


@declares_canary("the checker's TEL + 1, its P95 half a step off, an infeasible schedule reported feasible")
def _brute_force(claim: Any, ctx: Context) -> Evidence:
    label, t0 = "referee:brute-force", time.perf_counter()
    count = ctx.pick(*REFEREE_SAMPLE.values())
    problems, infeasible, sample = _brute_force_problems(_random_cases(ctx.seed, count, 1, most=12), 1,
                                                         both_paths=True)
    canary = _referee_canary(sample, {"the checker's TEL + 1": lambda s: {**s, "tel": s["tel"] + 1},
                                      "the checker's P95 half a step off": lambda s: {**s, "p95": s["p95"] + 0.5},
                                      "an infeasible schedule reported feasible": lambda s: {**s, "first": None,
                                                                                              "over": 0}})
    coverage = Coverage({"schedules": count, "infeasible": infeasible, "feasible": count - infeasible},
                        {"schedules": REFEREE_SAMPLE[ctx.mode]},
                        floor={"infeasible": count // 2, "feasible": count // 5})
    return _evidence(label, problems, f"{count} seeded schedules (n <= 12, a <= 4, s <= 4, o <= 5, starts up to 8 "
                     f"after arrival; {infeasible} infeasible, {count - infeasible} feasible), each through both paths "
                     "of the checker: verdict, first overflow step and amount, peak, TEL, mean, P50/P95/P99 and "
                     "makespan equal a step-by-step count", f"{count} seeded schedules", t0, canary=canary,
                     coverage=coverage)


@declares_canary("an infeasible block-grain schedule reported feasible; its overflow one block larger")
def _block_grain(claim: Any, ctx: Context) -> Evidence:
    """The block-grain sweep against the brute force in blocks; the priority rules' block-grain schedules accepted
    by the brute force."""
    from geosched.reference_impl.simulation import simulate

    label, t0 = "referee:block-grain", time.perf_counter()
    count = ctx.pick(200, 1000, 10000)
    problems, infeasible, simulated, sample = [], 0, 0, None
    for block in (2, 3, 4):
        cases = _random_cases(ctx.seed + block, count, block)
        found, bad, first = _brute_force_problems(cases, block)
        problems += found
        infeasible += bad
        sample = sample or first
        for instance, shapes, _ in cases[: count // 4]:
            for policy in ("svf", "fcfs"):
                starts = simulate(instance, policy).starts  # the instance carries the block size
                first, _, _ = brute_force_memory(shapes, [starts[f"r{k}"] for k in range(len(shapes))],
                                                 instance.memory, block)
                simulated += 1
                if first is not None:
                    problems.append(f"{policy} at B={block} overflows at step {first} on M={instance.memory}, {shapes}")
    canary = _referee_canary(sample, {"an infeasible block-grain schedule reported feasible":
                                      lambda s: {**s, "first": None, "over": 0},
                                      "the overflow one block larger": lambda s: {**s, "over": s["over"] + 2}})
    coverage = Coverage({"schedules": 3 * count, "infeasible": infeasible, "simulated": simulated},
                        {"schedules": 3 * BLOCK_SAMPLE[ctx.mode], "simulated": 6 * (BLOCK_SAMPLE[ctx.mode] // 4)},
                        floor={"infeasible": 3 * count // 10})
    return _evidence(label, problems, f"B = 2, 3, 4: {3 * count} seeded schedules ({infeasible} infeasible) equal a "
                     f"step-by-step count of B ceil(u/B); {simulated} block-grain schedules of svf and fcfs "
                     "accepted by it", f"{3 * count} seeded schedules, B in [2, 3, 4]", t0, canary=canary,
                     coverage=coverage)


BLOCK_SAMPLE = {"quick": 200, "default": 1000, "thorough": 10000}  # seeded schedules per block size, pinned


@declares_canary("a lower bound planted one above the exact optimum")
def _lower_bounds(claim: Any, ctx: Context) -> Evidence:
    """Every lower bound <= exact OPT on every burst instance of the space; each burst-only bound attained."""
    from geosched.reference_impl.opt.bounds import cheap_bounds
    from geosched.reference_impl.opt.lower import best_lower_bound, lower_bound
    from geosched.verify import exhaustive as ex

    label, t0 = "bounds:bursts", time.perf_counter()
    space = ctx.pick(ex.QUICK_SPACE, ex.DEFAULT_SPACE, ex.DEFAULT_SPACE)
    problems, tight, checked = [], {}, 0
    for instance in ex.enumerate_instances(space):
        opt = ex.dp_opt(instance)[0]
        bounds = [(b.name, b.value) for b in cheap_bounds(instance)]
        bounds.append(("best_lower_bound", best_lower_bound(instance).value))
        if not ctx.quick:  # the chain bound (compiled subset DP) too; --quick skips its compilation
            bounds.append(("lower_bound (chain)", lower_bound(instance).value))
        checked += 1
        for name, value in bounds:
            problem = bound_problem(name, value, opt, instance)
            problems += [problem] if problem else []
            tight[name] = tight.get(name, 0) + (value == opt)
        last = instance
    loose = [name for name, count in tight.items() if not count]
    if loose:
        problems.append(f"never attained (a larger bound could not have failed): {', '.join(loose)}")
    text = (f"every bound <= exact OPT (dynamic program) on all {checked} burst instances of {space.label}; attained "
            f"on: " + ", ".join(f"{name} {count}" for name, count in sorted(tight.items())))
    name, value = bounds[0]
    canary = plant(f"{name} planted one above OPT on the last instance", lambda v: bound_problem(name, v, opt, last),
                   opt + 1)
    return _evidence(label, problems, text, f"{space.label} ({checked} burst instances)", t0, canary=canary,
                     coverage=Coverage({"instances": checked, "bounds": len(tight)},
                                       {"instances": LOWER_BOUND_INSTANCES[ctx.mode], "bounds": ctx.pick(6, 7, 7)}))


# the burst instances of the exhaustive space per mode (ENUMERATION_SIZES' instance counts of svf), pinned
LOWER_BOUND_INSTANCES = {"quick": 1145, "default": 9509, "thorough": 9509}


def bound_problem(name: str, value: int, opt: int, instance: Any) -> str | None:
    """A lower bound's verdict on one instance: at most the exact optimum."""
    if value <= opt:
        return None
    return f"{name} = {value} > OPT = {opt} on M={instance.memory}, {[(r.prompt, r.output) for r in instance.requests]}"


@declares_canary("the semantics model's first run ended one step later")
def _engine_restarts(claim: Any, ctx: Context) -> Evidence:
    """vLLM's rules on the step engine (preemption by recompute) against the vLLM-semantics model."""
    from geosched.reference_impl.engine import run_scheduler
    from geosched.reference_impl.schedulers.vllm import VllmScheduler
    from geosched.reference_impl.vllm.semantics import EngineParams

    label, t0 = "engine:vllm-semantics", time.perf_counter()
    rng = random.Random(ctx.seed)
    count = ctx.pick(60, 300, 2000)
    problems, preemptions, planted = [], 0, None
    for instance in _arrival_instances(rng, count):
        seqs = rng.randint(1, instance.n + 1)
        params = EngineParams(capacity_blocks=instance.memory, block_size=1, max_num_seqs=seqs,
                              max_num_batched_tokens=instance.memory + seqs + rng.randint(0, 5),
                              preemption=rng.choice(["fcfs", "priority"]))
        run = run_scheduler(instance, VllmScheduler(params.preemption, params.max_num_seqs,
                                                    params.max_num_batched_tokens))
        exact = {i: [(r.start, r.end) for r in runs] for i, runs in run.runs.items()}
        preemptions += run.restarts  # every run ended before completion: a preemption by recompute
        model = _semantics_runs(instance, params)
        problem = engine_problem(instance, run.runs, exact, model, params.preemption)
        problems += [problem] if problem else []
        if run.restarts and planted is None:
            planted = (instance, run.runs, exact, model, params.preemption)
    if not preemptions:
        problems.append("no preemption in the sample: the restart path was not exercised")
    instance, runs, exact, model, rule = planted or (instance, run.runs, exact, model, params.preemption)
    later = {rid: [(s, e + 1) for s, e in r[:1]] + r[1:] for rid, r in model.items()}
    canary = plant("the semantics model's first run ended one step later (on a run with a preemption)",
                   lambda m: engine_problem(instance, runs, exact, m, rule), later)
    return _evidence(label, problems, f"{count} seeded instances with arrivals (n <= 7): the step engine's runs under "
                     f"vLLM's rules equal the vLLM-semantics model's, {preemptions} preemptions by recompute among "
                     "them, every schedule accepted by the checker", f"{count} seeded instances", t0, canary=canary,
                     coverage=Coverage({"instances": count, "preemptions": preemptions},
                                       {"instances": ENGINE_SAMPLE[ctx.mode]}, floor={"preemptions": count // 10}))


ENGINE_SAMPLE = {"quick": 60, "default": 300, "thorough": 2000}  # seeded instances, pinned


def engine_problem(instance: Any, runs: Any, exact: dict[str, Any], model: dict[str, Any], rule: str) -> str | None:
    """The step engine's verdict on one instance: its runs equal the semantics model's and the checker accepts
    them."""
    from geosched.reference_impl.checker import check_schedule

    if exact == model and check_schedule(instance, runs).feasible:
        return None
    return (f"M={instance.memory}, {[(r.arrival, r.prompt, r.output) for r in instance.requests]}, {rule}: "
            f"engine {exact}, semantics model {model}")


def _arrival_instances(rng: random.Random, count: int) -> list[Any]:
    from geosched.reference_impl.model import Instance, Request

    out = []
    for _ in range(count):
        shapes = [(rng.randint(0, 8), rng.randint(0, 8), rng.randint(1, 10)) for _ in range(rng.randint(1, 7))]
        memory = max(s + o + 1 for _, s, o in shapes) + rng.randint(0, 10)
        out.append(Instance(memory, [Request(f"r{k}", a, s, o) for k, (a, s, o) in enumerate(shapes)]))
    return out


def _semantics_runs(instance: Any, params: Any) -> dict[str, list[tuple[int, int]]]:
    """Runs read off the semantics model's per-call states: admitted at call c = start c; preempted at c = end c;
    finished at c = end c + 1 (docs/vllm.md, the step correspondence)."""
    from geosched.reference_impl.vllm.semantics import SemRequest, VllmSemantics

    model = VllmSemantics(params, queue_order=params.preemption)
    for r in instance.requests:
        model.add(SemRequest(r.id, r.arrival, r.prompt + 1, r.output))
    runs: dict[str, list[tuple[int, int]]] = {}
    open_: dict[str, int] = {}
    for state in model.run():
        for rid in state.preempted:
            runs.setdefault(rid, []).append((open_.pop(rid), state.step))
        for rid in state.admitted:
            open_[rid] = state.step
        for rid in state.finished:
            runs.setdefault(rid, []).append((open_.pop(rid), state.step + 1))
    return runs


def _evidence(label: str, problems: list[str], text: str, bound: str, t0: float, canary: Any = None,
              coverage: Any = None) -> Evidence:
    if problems:
        return Evidence(label, "bounded", "refuted", f"{len(problems)} disagreement(s): {problems[0]}", bound=bound,
                        implementation=True, wall_time=time.perf_counter() - t0, data={"problems": problems[:20]})
    return Evidence(label, "bounded", "checked", text, bound=bound, implementation=True, discriminating=True,
                    wall_time=time.perf_counter() - t0, covers={label: ("checked", bound)}, canary=canary,
                    coverage=coverage)


METHODS_HERE: dict[str, Callable[[Any, Context], Evidence]] = {
    "referee:bad-schedules": _bad_schedules, "referee:brute-force": _brute_force, "referee:block-grain": _block_grain,
    "bounds:bursts": _lower_bounds, "engine:vllm-semantics": _engine_restarts,
}

def _own_claim(claim_id: str, about: str, statement: str, formalization: str, bounded: str,
               methods: tuple[str, ...], position: int) -> Claim:
    """A row about geosched's own code: no paper states it (so no derivation), and the check's reach is said."""
    return Claim(claim_id, f"ours ({about})", statement, formalization,
                 f"not a claim of the papers; bounded: {bounded}", methods, order=("ours", position),
                 no_derivation=_WHY)


CLAIMS = (
    _own_claim("ours.referee", "the referee every row relies on",
               "the schedule checker rejects every kind of infeasible schedule and accepts the feasible ones",
               "one hand-built bad schedule per violation kind, reported with the step and amount worked out by "
               "hand; seeded random schedules against a step-by-step count of the memory (verdict, first overflow, "
               "TEL)",
               "the hand-built cases and the seeded sample", ("referee:brute-force", "referee:bad-schedules"), 200),
    _own_claim("ours.block_grain", "vLLM's KV blocks, issue 26",
               "at block grain B, a request holding u tokens holds B ceil(u/B); the checker and the block-grain "
               "schedules respect it",
               "the checker at B = 2, 3, 4 against a step-by-step count in whole blocks on seeded schedules; svf and "
               "fcfs simulated at block grain accepted by that count",
               "the seeded sample", ("referee:block-grain",), 210),
    _own_claim("ours.lower_bounds", "the bounds OPT is measured against",
               "every lower bound on TEL(OPT) geosched uses is at most the exact optimum on bursts, and the "
               "burst-only bounds are attained",
               "the cheap bounds (sum of outputs, exclusive tail, SRPT, volume prefix, completion order) and the best "
               "of them against the exact dynamic-program optimum on every burst instance of the exhaustive space",
               "the exhaustive space", ("bounds:bursts",), 220),
    _own_claim("ours.engine_restarts", "the step engine, issue 26",
               "the step engine runs stock vLLM's rules with preemption and recompute exactly as the vLLM-semantics "
               "model does",
               "seeded instances with arrivals under vLLM's fcfs and priority rules: the step engine's runs (starts "
               "and preemption ends) equal the semantics model's; the checker accepts them; preemptions occur",
               "the seeded sample; the semantics model is itself compared with real vLLM elsewhere "
               "(tests/test_scheduling_vllm.py, where vLLM is installed)", ("engine:vllm-semantics",), 230),
)
