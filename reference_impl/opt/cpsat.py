"""OR-Tools CP-SAT models of the offline optimum.

Formulations, selectable by ``method=`` in :func:`~geosched.reference_impl.opt.solve_opt`
(``benchmarks/bench_opt.py`` compares them):

* ``cpsat``: integer starts and one ``AddCumulative`` constraint, the staircase of request ``i``
  split into a base bar of height ``s_i`` over its ``o_i`` steps and ``o_i`` unit-height bars,
  the ``j``-th covering steps ``x_i + j .. x_i + o_i``, all sharing the start variable, with the
  *enhancements*: (i) the tight start windows ``x_i - a_i <= UB - o_i - LB(I - i)``
  (:mod:`.timeindexed`), (ii) a solution hint (the warm start or
  :func:`~.heuristic.heuristic_schedule`), (iii) symmetry breaking among identical requests
  (equal ``(a, s, o)`` => starts ordered by input position, valid by exchanging the two), (iv) the
  objective cut ``TEL >= best_lower_bound`` (Kong et al., arXiv 2606.22327, Prop. 3.1 and the
  refinements in :mod:`.bounds`), and (v) a search strategy for one worker: the unfixed start with
  the lowest minimum, set to that minimum (schedule-or-postpone, natural for a regular objective).
* ``cpsat-completion`` (the default, ``auto``): completion times only
  (:func:`_completion_model`): memory is checked at completion steps, where it peaks, plus
  the pairwise separation rule and its no-overlap form for big requests
  (:func:`_big_no_overlap`); tight windows, hint, symmetry breaking and the objective cut
  as in ``cpsat``; no decision strategy (CP-SAT's default search). Proved the n = 10
  benchmark instances in 0.1-0.9 s against 1.7-6.2 s for ``cpsat`` (same run); like every
  model here it does not close the gap at n = 20 within 60 s (``benchmarks/RESULTS.md``,
  section 2).

Retired (issue 47), beaten by these two in the project's own benchmark (``benchmarks/RESULTS.md``,
section 2, n = 10, 30 s): the plain cumulative model (``cpsat-cumulative``, ``cpsat`` without the
enhancements: 6.3 s against 5.9 s, larger gaps at n >= 20) and the time-indexed CP-SAT programs
(``cpsat-ti``, ``cpsat-ti-plain``, ``cpsat-ti-dom``, ``cpsat-hybrid``: 0 or 1 of 2 proved in 30 s,
where ``cpsat`` proved both in 6 s). The time-indexed program stays HiGHS's (``milp``).

Step ``t`` of the model (memory held during ``(t-1, t]``) maps to the CP time interval
``[t-1, t)``, so a request started at ``x`` occupies ``[x, x + o)``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt.chain import is_big
from geosched.reference_impl.opt.deadline import BuildStopped, Deadline
from geosched.reference_impl.opt.result import METHODS
from geosched.reference_impl.opt.timeindexed import start_windows

__all__ = ["solve_cpsat", "CPSAT_METHODS", "big_separation_spans", "MAX_CPSAT_VALUE", "MAX_UNIT_BARS"]

MAX_CPSAT_VALUE = 2**52  # TEL bound + largest arrival: CP-SAT rejects models whose sums may pass int64
MAX_UNIT_BARS = 2_000_000  # the cumulative models add one interval per output token (sum of o_i)

CPSAT_METHODS = tuple(m for m in METHODS if m.startswith("cpsat"))  # the formulations built here


def _identical_groups(instance: Instance) -> list[list[int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, r in enumerate(instance.requests):
        groups.setdefault((r.arrival, r.prompt, r.output), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _cumulative(model_cp, instance: Instance, upper_bound: int, tight: bool, deadline: Deadline | None = None):
    from ortools.sat.python import cp_model

    deadline = deadline or Deadline.never()
    bars = sum(r.output for r in instance.requests)
    if bars > MAX_UNIT_BARS:
        raise BuildStopped(f"cumulative model: {bars} unit bars (one per output token), more than {MAX_UNIT_BARS}")
    windows = start_windows(instance, upper_bound, tight=tight, deadline=deadline)
    starts = []
    intervals, demands = [], []
    for i, (r, (lo, hi)) in enumerate(zip(instance.requests, windows)):
        deadline.check("cumulative model")
        x = model_cp.NewIntVar(lo, hi, f"start{i}")
        starts.append(x)
        if r.prompt > 0:
            intervals.append(model_cp.NewFixedSizeIntervalVar(x, r.output, f"base{i}"))
            demands.append(r.prompt)
        for j in range(1, r.output + 1):
            intervals.append(model_cp.NewFixedSizeIntervalVar(x + (j - 1), r.output - j + 1, f"bar{i}_{j}"))
            demands.append(1)
    model_cp.AddCumulative(intervals, demands, instance.memory)
    objective = cp_model.LinearExpr.Sum(starts) + sum(r.output - r.arrival for r in instance.requests)
    return starts, objective


def _completion_model(model_cp, instance: Instance, upper_bound: int, deadline: Deadline | None = None):
    """Completion-time model: integer ``C_i = x_i + o_i`` only, no intervals.

    **Memory peaks at completion steps.** The usage ``U_t`` of a schedule can exceed ``M``
    only at a step where some request completes: if none completes at ``t``, every request
    running at ``t`` also runs at ``t + 1`` holding one more token, so ``U_{t+1} >= U_t``;
    repeating, ``U`` does not decrease until a completion step (and some request completes,
    as ``U_t > 0`` means one runs). So the memory constraint at the steps ``C_i`` alone is
    *exact*. At step ``C_i`` request ``i`` holds its peak ``p_i = s_i + o_i`` and ``j != i``
    runs iff ``0 <= C_j - C_i < o_j``, holding ``p_j - (C_j - C_i)``:
    ``p_i + sum_{j != i} [0 <= C_j - C_i < o_j] (p_j - (C_j - C_i)) <= M`` for every ``i``
    (encoded with ``h_ij >= p_j - d_ij`` enforced by a literal forced true on that range).

    **Pairwise separation** (implied, added for propagation): if ``C_i <= C_j`` then either
    ``j`` runs at ``C_i`` (so ``p_i + p_j - (C_j - C_i) <= M``) or it starts at or after
    ``C_i`` (so ``C_j >= C_i + o_j``); hence ``C_j - C_i >= min(o_j, p_i + p_j - M)``, one
    of the two orders holds, and pairs with ``p_i + p_j <= M`` are unconstrained.
    Valid with arrivals (they only bound the domains ``C_i >= a_i + o_i``).
    """
    deadline = deadline or Deadline.never()
    windows = start_windows(instance, upper_bound, tight=True, deadline=deadline)
    requests = instance.requests
    n = len(requests)
    memory = instance.memory
    peak = [r.prompt + r.output for r in requests]
    completions = [model_cp.NewIntVar(lo + r.output, hi + r.output, f"C{i}")
                   for i, (r, (lo, hi)) in enumerate(zip(requests, windows))]
    for i in range(n):
        deadline.check("completion model (pairwise separation)")
        for j in range(i + 1, n):
            overlap = peak[i] + peak[j] - memory
            if overlap <= 0:
                continue
            first = model_cp.NewBoolVar(f"before{i}_{j}")
            model_cp.Add(completions[j] >= completions[i] + min(requests[j].output, overlap)).OnlyEnforceIf(first)
            model_cp.Add(completions[i] >= completions[j] + min(requests[i].output, overlap)).OnlyEnforceIf(first.Not())
    for i in range(n):
        deadline.check("completion model (memory at completions)")
        held = []
        for j in range(n):
            if j == i:
                continue
            diff = completions[j] - completions[i]
            hold = model_cp.NewIntVar(0, peak[j], f"h{i}_{j}")
            running, earlier, later = (model_cp.NewBoolVar(f"{name}{i}_{j}") for name in ("run", "lt", "ge"))
            model_cp.Add(diff <= -1).OnlyEnforceIf(earlier)
            model_cp.Add(diff >= requests[j].output).OnlyEnforceIf(later)
            model_cp.AddBoolOr([earlier, later, running])
            model_cp.Add(hold >= peak[j] - diff).OnlyEnforceIf(running)
            held.append(hold)
        model_cp.Add(peak[i] + sum(held) <= memory)
    _big_no_overlap(model_cp, instance, completions, windows)
    starts = [c - r.output for c, r in zip(completions, requests)]
    from ortools.sat.python import cp_model

    objective = cp_model.LinearExpr.Sum(completions) - sum(r.arrival for r in requests)
    return completions, starts, objective


def big_separation_spans(instance: Instance) -> dict[int, tuple[int, int]]:
    """``{i: (a_i, b_i)}``: big request ``i`` occupies ``[C_i - a_i, C_i + b_i)``, and these
    intervals are pairwise disjoint in every feasible schedule (burst or not).

    Big: ``2 p_i > M`` (:func:`~.chain.is_big`). With ``M = M1 + M2`` (``M1 = floor(M/2)``)
    and ``s* = max s`` over the big requests, ``a_i = p_i - M2`` and
    ``b_i = min(p_i - M1, M2 - s*)``. For big ``i`` completing no later than big ``j``,
    ``a_j + b_i <= (p_j - M2) + (p_i - M1) = p_i + p_j - M`` and ``a_j + b_i <= p_j - s* <= o_j``,
    so ``a_j + b_i <= sep(i, j) <= C_j - C_i`` (pairwise separation, :func:`_completion_model`).
    Requests whose interval would be empty (``a_i + b_i <= 0``) are left out, as is
    everything when fewer than two requests are big.
    """
    memory = instance.memory
    low_half, high_half = memory // 2, memory - memory // 2
    big = [i for i, r in enumerate(instance.requests) if is_big(r, memory)]
    if len(big) < 2:
        return {}
    top_prompt = max(instance.requests[i].prompt for i in big)
    spans = {}
    for i in big:
        peak = instance.requests[i].peak
        before, after = peak - high_half, min(peak - low_half, high_half - top_prompt)
        if before + after > 0:
            spans[i] = (before, after)
    return spans


def _big_no_overlap(model_cp, instance: Instance, completions, windows) -> None:
    """:func:`big_separation_spans` as one ``AddNoOverlap`` (implied; for propagation).

    Unlike the pairwise disjunctions, one no-overlap constraint lets CP-SAT reason on all big
    requests at once (edge finding, energy); it sped up proofs 1.6-8x at n = 12-14
    (``benchmarks/RESULTS.md``).
    """
    intervals = []
    for i, (before, after) in big_separation_spans(instance).items():
        output, (earliest, latest) = instance.requests[i].output, windows[i]
        start = model_cp.NewIntVar(earliest + output - before, latest + output - before, f"tail{i}")
        model_cp.Add(start == completions[i] - before)
        intervals.append(model_cp.NewFixedSizeIntervalVar(start, before + after, f"big{i}"))
    if intervals:
        model_cp.AddNoOverlap(intervals)


def solve_cpsat(
    instance: Instance,
    *,
    method: str,
    upper_bound: int,
    hint: dict[str, int] | None,
    lower_bound: int,
    time_limit: float,
    seed: int = 0,
    workers: int = 2,
    params: dict | None = None,
    progress: Any = None,
) -> dict:
    """Build and solve one CP-SAT formulation; raw outcome as a dict (see :mod:`.solve`).

    ``time_limit`` covers building and solving. Raises :class:`~.deadline.BuildStopped` when
    building reaches it, or when the model would be too large (:data:`MAX_CPSAT_VALUE`,
    :data:`MAX_UNIT_BARS`, the time-indexed limits).
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    deadline = Deadline(t0 + time_limit)
    largest = upper_bound + max((r.arrival for r in instance.requests), default=0)
    if largest > MAX_CPSAT_VALUE:
        raise BuildStopped(f"CP-SAT model: values up to {largest}, past {MAX_CPSAT_VALUE} (2^52)")
    model_cp = cp_model.CpModel()
    ids = [r.id for r in instance.requests]
    if method == "cpsat-completion":
        completions, start_exprs, objective = _completion_model(model_cp, instance, upper_bound, deadline)
        if hint is not None:
            for c, r in zip(completions, instance.requests):
                model_cp.AddHint(c, hint[r.id] + r.output)
    elif method == "cpsat":
        start_vars, objective = _cumulative(model_cp, instance, upper_bound, tight=True, deadline=deadline)
        start_exprs = list(start_vars)
        if hint is not None:
            for i, x in enumerate(start_vars):
                model_cp.AddHint(x, hint[ids[i]])
        model_cp.AddDecisionStrategy(start_vars, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    else:  # pragma: no cover - dispatcher validates
        raise ValueError(method)
    for group in _identical_groups(instance):
        for i, j in zip(group, group[1:]):
            model_cp.Add(start_exprs[i] <= start_exprs[j])
    model_cp.Add(objective >= lower_bound)
    model_cp.Minimize(objective)

    def read(solver) -> dict[str, int]:
        return {ids[i]: int(solver.Value(start_exprs[i])) for i in range(instance.n)}

    build_time = time.perf_counter() - t0
    deadline.check("CP-SAT model")

    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.01, deadline.remaining())
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    for key, value in (params or {}).items():
        setattr(solver.parameters, key, value)

    callback = None
    if progress is not None:
        class _Progress(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                progress(self.ObjectiveValue(), self.BestObjectiveBound())

        callback = _Progress()
    status = solver.Solve(model_cp, callback) if callback is not None else solver.Solve(model_cp)
    starts = read(solver) if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    bound = solver.BestObjectiveBound()
    return {
        "proved": status == cp_model.OPTIMAL,
        "starts": starts,
        "dual_bound": float(bound) if np.isfinite(bound) else None,
        "message": f"CP-SAT {solver.StatusName(status)} (build {build_time:.2f}s, {solver.NumBranches()} branches)",
        "nodes": int(solver.NumBranches()),
        "infeasible": status == cp_model.INFEASIBLE,
    }
