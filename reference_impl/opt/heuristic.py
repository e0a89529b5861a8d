"""The best heuristic schedule: warm start and horizon bound for the exact solvers.

:func:`heuristic_schedule` simulates the reference policies (``fcfs``, ``sjf``, ``svf``, each
strict head-of-line and with backfill, exact lengths), keeps the schedule of smallest TEL and
then improves it by *left shifts*: a request is moved to the earliest step at or after its
arrival at which it fits with every other request held in place (each move lowers TEL by at
least 1, so the pass terminates). The result is checked by the independent checker.

Under a time limit (:func:`timed_heuristic`, used by ``solve_opt``) the strict runs come
first and always finish (they are ``O(n log n)``: the first incumbent); a backfilling run
scans the whole queue at every decision, about ``n / 10`` times a strict run's cost, and is
skipped when that estimate exceeds the time left; the left-shift pass stops after half the
time left (every prefix of it is feasible) and is skipped for schedules longer than
:data:`MAX_LEFT_SHIFT_STEPS` steps (it keeps one integer per step).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> heuristic_schedule(burst_instance(12, [(6, 3), (1, 5)]))
{'r0': 0, 'r1': 1}
"""

from __future__ import annotations

import time

import numpy as np

from geosched.errors import InfeasibleScheduleError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt.deadline import Deadline
from geosched.reference_impl.policies import Capability, policy_names
from geosched.reference_impl.simulation import simulate

__all__ = ["heuristic_schedule", "timed_heuristic", "HEURISTIC_POLICIES", "left_shift", "best_policy_schedule",
           "MAX_LEFT_SHIFT_STEPS"]

HEURISTIC_POLICIES = policy_names(Capability.FAST)  # compiled-speed rules; each schedule is a candidate
MAX_LEFT_SHIFT_STEPS = 10**7  # the left-shift pass keeps one int64 per step up to the makespan
LEFT_SHIFT_SHARE = 0.5  # of the time left under a deadline (timed_heuristic)
BACKFILL_COST_FACTOR = 0.1  # a backfilling run costs about n * this times the strict run (measured: n / 25)


def best_policy_schedule(instance: Instance, deadline: Deadline | None = None,
                         notes: list[str] | None = None) -> tuple[dict[str, int], int, str]:
    """``(starts, tel, label)`` of the best policy run (label like ``"svf+backfill"``).

    With a ``deadline``, backfilling runs whose estimated cost exceeds the time left are
    skipped (and listed in ``notes``); the strict runs always run. Ties keep the first run in
    the order policy by policy, strict before backfill.
    """
    deadline = deadline or Deadline.never()
    runs: dict[tuple[str, bool], tuple[dict[str, int], int]] = {}
    strict_seconds: dict[str, float] = {}
    for name in HEURISTIC_POLICIES:
        began = time.perf_counter()
        runs[(name, False)] = _policy_run(instance, name, False)
        strict_seconds[name] = time.perf_counter() - began
    skipped = []
    for name in HEURISTIC_POLICIES:
        if strict_seconds[name] * max(1.0, instance.n * BACKFILL_COST_FACTOR) > deadline.remaining():
            skipped.append(name)
            continue
        runs[(name, True)] = _policy_run(instance, name, True)
    if skipped and notes is not None:
        notes.append(f"backfilling runs of {', '.join(skipped)} skipped (estimated past the time limit)")
    best: tuple[dict[str, int], int, str] | None = None
    for name in HEURISTIC_POLICIES:
        for backfill in (False, True):
            if (name, backfill) in runs:
                starts, tel = runs[(name, backfill)]
                if best is None or tel < best[1]:
                    best = (starts, tel, name + ("+backfill" if backfill else ""))
    assert best is not None
    return best


def _policy_run(instance: Instance, name: str, backfill: bool) -> tuple[dict[str, int], int]:
    starts = simulate(instance, name, backfill=backfill).starts
    return starts, sum(starts[r.id] + r.output - r.arrival for r in instance.requests)


def _held(instance: Instance, r) -> np.ndarray:
    """What ``r`` holds at each step of its run (whole blocks of the instance's ``block_size``)."""
    tokens = r.prompt + np.arange(1, r.output + 1, dtype=np.int64)
    b = instance.block_size
    return tokens if b == 1 else -(-tokens // b) * b


def _usage(instance: Instance, starts: dict[str, int], horizon: int) -> np.ndarray:
    profile = np.zeros(horizon + 2, dtype=np.int64)
    for r in instance.requests:
        x = starts[r.id]
        profile[x + 1 : x + r.output + 1] += _held(instance, r)
    return profile


def left_shift(instance: Instance, starts: dict[str, int], *, max_rounds: int = 50,
               deadline: Deadline | None = None) -> dict[str, int]:
    """Move requests, in order of start, to the earliest step where they fit alone.

    Never increases any start; the returned schedule is feasible when ``starts`` is. Stops at
    ``deadline`` (after any move, the schedule is feasible); returns ``starts`` unchanged when
    the makespan exceeds :data:`MAX_LEFT_SHIFT_STEPS`.
    """
    deadline = deadline or Deadline.never()
    starts = dict(starts)
    if not instance.requests:
        return starts
    memory = instance.memory
    horizon = max(starts[r.id] + r.output for r in instance.requests)
    if horizon > MAX_LEFT_SHIFT_STEPS or min(starts.values()) < 0:
        return starts
    profile = _usage(instance, starts, horizon)
    for _ in range(max_rounds):
        moved = False
        for r in sorted(instance.requests, key=lambda q: (starts[q.id], q.id)):
            if deadline.passed():
                return starts
            x = starts[r.id]
            if x == r.arrival:
                continue
            best = _earliest_fit(profile, r, _held(instance, r), x, memory, deadline)
            if best != x:
                starts[r.id] = best
                moved = True
        if not moved:
            break
    return starts


def _earliest_fit(profile: np.ndarray, r, own: np.ndarray, x: int, memory: int, deadline: Deadline) -> int:
    """Move ``r`` (holding ``own`` at its steps) from ``x`` to the earliest step it fits with the
    others held (``profile`` updated in place); ``x`` itself when nothing earlier fits or the deadline passes."""
    profile[x + 1 : x + r.output + 1] -= own
    best = x
    for y in range(r.arrival, x):
        if (y - r.arrival) % 256 == 255 and deadline.passed():
            break
        if int((profile[y + 1 : y + r.output + 1] + own).max()) <= memory:
            best = y
            break
    profile[best + 1 : best + r.output + 1] += own
    return best


def heuristic_schedule(instance: Instance) -> dict[str, int]:
    """Best of the policies (fcfs/sjf/svf, strict and backfill) by TEL, then left-shifted.

    The schedule is feasible (re-checked by :func:`~geosched.reference_impl.checker.check_schedule`)
    and its TEL is an upper bound on OPT's.
    """
    return timed_heuristic(instance, Deadline.never())[0]


def timed_heuristic(instance: Instance, deadline: Deadline) -> tuple[dict[str, int], list[str]]:
    """:func:`heuristic_schedule` within ``deadline`` (module docstring): the checked schedule
    and notes on what was skipped or stopped."""
    notes: list[str] = []
    starts, _, _ = best_policy_schedule(instance, deadline, notes)
    # the pass gets half the time left, so that a solver still has the other half
    shift_deadline = Deadline.after(LEFT_SHIFT_SHARE * deadline.remaining())
    improved = left_shift(instance, starts, deadline=shift_deadline)
    if shift_deadline.passed():
        notes.append(f"left-shift pass stopped after {LEFT_SHIFT_SHARE:g} of the time left")
    report = check_schedule(instance, improved)
    if not report.feasible:  # pragma: no cover - a bug in left_shift; fall back to the policy
        report = check_schedule(instance, starts)
        if not report.feasible:
            raise InfeasibleScheduleError(f"heuristic schedule infeasible: {report.first_violation}")
        return dict(starts), notes
    return improved, notes
