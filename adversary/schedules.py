"""Witness schedules: the best feasible schedule that can be found cheaply.

A witness schedule ``S`` only has to be feasible: ``OPT <= TEL(S)`` then certifies the ratio
``TEL(A)/TEL(S)``. The better ``S``, the tighter the certificate. Sources, cheapest first:

1. every registered policy (``fcfs``, ``sjf``, ``svf``, ``svf1``), strict and backfilling,
   through the fast evaluator (:mod:`geosched.adversary.fast`);
2. greedy list scheduling (:func:`~geosched.adversary.fast.list_schedule`) in structured
   orders (volume, output, prompt, peak, and the start order of every schedule of step 1), and
   paced (staggered) list schedules (:mod:`geosched.adversary.stagger`);
3. local search over insertion orders (swap and move, accepting ties), seeded by the best;
4. the exact solver :func:`geosched.reference_impl.opt.solve_opt` for small ``n``, warm-started
   with the incumbent (its proved optimum, when reached, also closes the ratio interval).

Every returned schedule is re-checked by the independent checker.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> best_witness_schedule(burst_instance(12, [(6, 3), (1, 5)]), exact_n=0).tel
9
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from geosched.adversary.fast import FAST_POLICIES, list_schedule, priority_keys, simulate_arrays
from geosched.adversary.stagger import stagger_pool_tel
from geosched.errors import InfeasibleScheduleError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt import solve_opt

__all__ = ["WitnessSchedule", "best_witness_schedule", "heuristic_pool_tel", "improve_order", "MONOTONE_LIST_FROM"]

SEARCH_PACE_FACTORS = (1.0, 1.05, 1.1, 1.25, 1.5)  # the search's paced schedules (certify tries more)
MONOTONE_LIST_FROM = 200  # from this many requests on, list scheduling is serial (monotone): see list_schedule


@dataclass(frozen=True)
class WitnessSchedule:
    """The best schedule found and where it came from."""

    starts: dict[str, int]  # start step of every request
    tel: int  # its TEL (checked)
    source: str  # e.g. "svf+backfill", "list:volume", "local-search", "opt:optimal"
    lower_bound: int | None = None  # a proved lower bound on OPT found on the way (solver)
    lower_bound_name: str | None = None
    tried: dict[str, int] = field(default_factory=dict)  # TEL of every source tried


def _arrays(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    reqs = instance.requests
    return (
        np.array([r.arrival for r in reqs], dtype=np.int64),
        np.array([r.prompt for r in reqs], dtype=np.int64),
        np.array([r.output for r in reqs], dtype=np.int64),
    )


def _tel(x: np.ndarray, a: np.ndarray, o: np.ndarray) -> int:
    return int((x + o - a).sum())


def heuristic_pool_tel(a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int) -> tuple[int, np.ndarray, str]:
    """Best TEL over the cheap pool (svf strict and backfilling, sjf and fcfs backfilling, list
    scheduling by volume): the search's fitness denominator. Returns (tel, starts, source)."""
    best = None
    v = s * o + (o * o + o) // 2
    # strict sjf/fcfs rarely win where their backfilling versions do not: left out for speed
    for name, backfill in (("svf", False), ("svf", True), ("sjf", True), ("fcfs", True)):
        x = simulate_arrays(name, a, s, o, memory, backfill=backfill)
        tel = _tel(x, a, o)
        if best is None or tel < best[0]:
            best = (tel, x, f"{name}{'+backfill' if backfill else ''}")
    n = len(a)
    for label, key in (("volume", v),):
        order = np.lexsort((np.arange(n), a, key))
        x = list_schedule(a, s, o, memory, order, monotone=n >= MONOTONE_LIST_FROM)
        tel = _tel(x, a, o)
        if tel < best[0]:
            best = (tel, x, f"list:{label}")
    paced = stagger_pool_tel(a, s, o, memory, SEARCH_PACE_FACTORS)  # staggered starts (adversary.stagger)
    return paced if paced[0] < best[0] else best


def improve_order(
    a: np.ndarray,
    s: np.ndarray,
    o: np.ndarray,
    memory: int,
    order: np.ndarray,
    *,
    rng: np.random.Generator,
    iterations: int = 2000,
    deadline: float | None = None,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Local search over list-scheduling orders (random swap or move; ties accepted)."""
    order = np.asarray(order, dtype=np.int64).copy()
    monotone = len(order) >= MONOTONE_LIST_FROM
    x = list_schedule(a, s, o, memory, order, monotone=monotone)
    best_tel = _tel(x, a, o)
    best_x = x
    n = len(order)
    if n < 2:
        return best_tel, best_x, order
    for it in range(iterations):
        if deadline is not None and it % 64 == 0 and time.perf_counter() > deadline:
            break
        trial = order.copy()
        i, j = rng.choice(n, size=2, replace=False)
        if rng.random() < 0.5:
            trial[i], trial[j] = trial[j], trial[i]
        else:
            item = trial[i]
            trial = np.insert(np.delete(trial, i), j, item)
        x = list_schedule(a, s, o, memory, trial, monotone=monotone)
        tel = _tel(x, a, o)
        if tel <= best_tel:
            order, best_tel, best_x = trial, tel, x
    return best_tel, best_x, order


def best_witness_schedule(
    instance: Instance,
    *,
    rng: np.random.Generator | int | None = 0,
    local_iterations: int = 3000,
    time_budget: float = 5.0,
    exact_n: int = 10,
    exact_time_limit: float = 10.0,
) -> WitnessSchedule:
    """The best feasible schedule over the sources listed in the module docstring.

    ``exact_n``: call the exact solver when ``n <= exact_n`` (0 disables it).
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    deadline = time.perf_counter() + time_budget
    a, s, o = _arrays(instance)
    ids = [r.id for r in instance.requests]
    memory = instance.memory
    n = len(ids)
    # ties by position, as the reference simulator (ids are labels only)
    position = np.arange(n)
    tried: dict[str, int] = {}
    candidates: list[tuple[int, np.ndarray, str]] = []
    for name in FAST_POLICIES:
        keys = priority_keys(name, s, o)
        order = np.lexsort((position, a, keys))
        for backfill in (False, True):
            x = simulate_arrays(name, a, s, o, memory, backfill=backfill, order=order)
            label = f"{name}{'+backfill' if backfill else ''}"
            candidates.append((_tel(x, a, o), x, label))
    v = s * o + (o * o + o) // 2
    structured = {"volume": v, "output": o, "prompt": s, "peak": s + o, "-output": -o}
    monotone = n >= MONOTONE_LIST_FROM
    for label, key in structured.items():
        order = np.lexsort((position, a, key))
        x = list_schedule(a, s, o, memory, order, monotone=monotone)
        candidates.append((_tel(x, a, o), x, f"list:{label}"))
    for _, x, label in list(candidates):
        order = np.lexsort((position, x))
        x2 = list_schedule(a, s, o, memory, order, monotone=monotone)
        candidates.append((_tel(x2, a, o), x2, f"list:order-of-{label}"))
    candidates.append(stagger_pool_tel(a, s, o, memory))  # paced (staggered) starts: adversary.stagger
    for tel, _, label in candidates:
        tried[label] = tel
    candidates.sort(key=lambda c: c[0])
    best_tel, best_x, best_label = candidates[0]
    if n >= 2 and local_iterations > 0:
        seeds = [c for c in candidates if c[2].startswith("list:")][:2]
        for _, x0, label in seeds:
            order = np.lexsort((position, x0))
            tel, x, _ = improve_order(a, s, o, memory, order, rng=rng, iterations=local_iterations // 2,
                                      deadline=deadline)
            tried[f"local-search({label})"] = tel
            if tel < best_tel:
                best_tel, best_x, best_label = tel, x, "local-search"
    starts = {rid: int(v) for rid, v in zip(ids, best_x)}
    lower, lower_name = None, None
    if exact_n and n <= exact_n:
        result = solve_opt(instance, time_limit=exact_time_limit, warm_start=starts)
        if result.starts is not None and result.tel is not None and result.tel < best_tel:
            best_tel, starts, best_label = int(result.tel), dict(result.starts), f"opt:{result.status}"
        tried[f"opt:{result.status}"] = result.tel
        if result.status == "optimal" and result.tel is not None:
            lower, lower_name = int(result.tel), "opt"
        elif result.dual_bound is not None:
            lower, lower_name = int(np.ceil(result.dual_bound - 1e-9)), "solver dual bound"
    report = check_schedule(instance, starts)
    if not report.feasible:
        raise InfeasibleScheduleError(f"witness from {best_label} rejected: {report.first_violation.message}")
    return WitnessSchedule(starts, report.metrics.tel, best_label, lower, lower_name, tried)
