"""OR-Tools CP-SAT models of the offline optimum.

Formulations, selectable by ``method=`` in :func:`~geosched.reference_impl.opt.solve_opt`
(``benchmarks/bench_opt.py`` compares them):

* ``cpsat-cumulative``: integer starts and one ``AddCumulative`` constraint, the staircase of
  request ``i`` split into a base bar of height ``s_i`` over its ``o_i`` steps and ``o_i``
  unit-height bars, the ``j``-th covering steps ``x_i + j .. x_i + o_i``, all sharing the
  start variable; plain windows ``x_i - a_i <= UB - sum_j o_j``, no hint (the "plain
  CP-SAT" of issue 2).
* ``cpsat``: the same cumulative model plus the *enhancements*: (i) the tight
  start windows ``x_i - a_i <= UB - o_i - LB(I - i)`` (:mod:`.timeindexed`), (ii) a solution
  hint (the warm start or :func:`~.heuristic.heuristic_schedule`), (iii) symmetry breaking
  among identical requests (equal ``(a, s, o)`` => starts ordered by input position, valid
  by exchanging the two), (iv) the objective cut ``TEL >= best_lower_bound`` (Kong et al.,
  arXiv 2606.22327, Prop. 3.1 and the refinements in :mod:`.bounds`), and (v) a search
  strategy for one worker: the unfixed start with the lowest minimum, set to that minimum
  (schedule-or-postpone, natural for a regular objective).
* ``cpsat-ti-plain``: the time-indexed program of :mod:`.timeindexed` with Boolean start
  variables, ``AddExactlyOne`` per request and one linear memory row per step; plain windows.
* ``cpsat-ti``: ``cpsat-ti-plain`` with enhancements (i)-(iv).
* ``cpsat-ti-dom``: ``cpsat-ti`` plus the left-justified dominance rule
  (:func:`_left_justified`): every optimal schedule satisfies it.
* ``cpsat-hybrid``: ``cpsat-ti-dom`` and the cumulative model together, starts channelled.
* ``cpsat-completion`` (the default, ``auto``): completion times only
  (:func:`_completion_model`): memory is checked at completion steps, where it peaks, plus
  the pairwise separation rule and its no-overlap form for big requests
  (:func:`_big_no_overlap`); tight windows, hint, symmetry breaking and the objective cut
  as in ``cpsat``; no decision strategy (CP-SAT's default search). Proved the n = 10
  benchmark instances in 0.1-0.9 s against 1.7-6.2 s for ``cpsat`` (same run); like every
  model here it does not close the gap at n = 20 within 60 s (``benchmarks/RESULTS.md``,
  section 2).

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
from geosched.reference_impl.opt.timeindexed import build_model, start_windows

__all__ = ["solve_cpsat", "CPSAT_METHODS", "big_separation_spans", "MAX_CPSAT_VALUE", "MAX_UNIT_BARS"]

MAX_CPSAT_VALUE = 2**52  # TEL bound + largest arrival: CP-SAT rejects models whose sums may pass int64
MAX_UNIT_BARS = 2_000_000  # the cumulative models add one interval per output token (sum of o_i)

CPSAT_METHODS = ("cpsat", "cpsat-completion", "cpsat-cumulative", "cpsat-ti", "cpsat-ti-plain", "cpsat-ti-dom",
                 "cpsat-hybrid")


def _identical_groups(instance: Instance) -> list[list[int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, r in enumerate(instance.requests):
        groups.setdefault((r.arrival, r.prompt, r.output), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _time_indexed(model_cp, instance: Instance, upper_bound: int, tight: bool, dominance: bool = False,
                  deadline: Deadline | None = None):
    from ortools.sat.python import cp_model

    deadline = deadline or Deadline.never()
    ti = build_model(instance, upper_bound=upper_bound, tight=tight, all_rows=dominance, deadline=deadline)
    xs = [model_cp.NewBoolVar(f"x{j}") for j in range(ti.n_vars)]
    start_exprs = []
    for i in range(instance.n):
        idx = ti.request_vars(i)
        model_cp.AddExactlyOne([xs[j] for j in idx])
        start_exprs.append(cp_model.LinearExpr.WeightedSum([xs[j] for j in idx], ti.var_start[idx].tolist()))
    memory = instance.memory
    usage = {}
    for r, (cols, coefs) in enumerate(ti.memory_rows()):
        expr = cp_model.LinearExpr.WeightedSum([xs[j] for j in cols.tolist()], coefs.tolist())
        usage[int(ti.row_steps[r])] = expr
        if ti.row_binding[r]:
            model_cp.Add(expr <= memory)
    deadline.check("time-indexed CP-SAT model")
    if dominance:
        _left_justified(model_cp, instance, ti, xs, usage, deadline)
    objective = cp_model.LinearExpr.WeightedSum(xs, ti.cost.tolist())
    return ti, xs, start_exprs, objective


def _left_justified(model_cp, instance: Instance, ti, xs, usage, deadline: Deadline) -> None:
    """Every optimal schedule is left-justified: no request can start one step earlier with
    all others fixed (that would lower TEL by 1). Moving ``i`` from ``k`` to ``k - 1`` adds
    ``s_i + 1`` tokens at step ``k`` and 1 token at steps ``k+1 .. k+o_i-1`` (step ``k+o_i``
    loses ``i``), so it is infeasible iff ``U_k >= M - s_i`` or ``U_t = M`` for such a ``t``.
    Hence ``x_{i,k} => b_{k,s_i} or OR_t full_t`` for ``k > a_i``, with ``b_{t,s} => U_t >= M - s``
    and ``full_t => U_t >= M``: a dominance rule that keeps every optimal schedule."""
    memory = instance.memory
    full: dict[int, Any] = {}
    blocked: dict[tuple[int, int], Any] = {}

    def full_at(t: int):
        if t not in usage:
            return None
        if t not in full:
            full[t] = model_cp.NewBoolVar(f"full{t}")
            model_cp.Add(usage[t] >= memory).OnlyEnforceIf(full[t])
        return full[t]

    def blocked_at(t: int, prompt: int):
        if t not in usage:
            return None
        key = (t, prompt)
        if key not in blocked:
            blocked[key] = model_cp.NewBoolVar(f"blocked{t}_{prompt}")
            model_cp.Add(usage[t] >= memory - prompt).OnlyEnforceIf(blocked[key])
        return blocked[key]

    requests = instance.requests
    for j in range(ti.n_vars):
        if j % 1024 == 0:
            deadline.check("dominance rule")
        i = int(ti.var_request[j])
        k = int(ti.var_start[j])
        r = requests[i]
        if k == r.arrival:
            continue
        reasons = [blocked_at(k, r.prompt)] + [full_at(t) for t in range(k + 1, k + r.output)]
        reasons = [b for b in reasons if b is not None]
        model_cp.AddBoolOr([xs[j].Not()] + reasons)


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
    enhanced = method in ("cpsat", "cpsat-completion", "cpsat-ti", "cpsat-ti-dom", "cpsat-hybrid")
    if method in ("cpsat-ti", "cpsat-ti-plain", "cpsat-ti-dom", "cpsat-hybrid"):
        ti, xs, start_exprs, objective = _time_indexed(model_cp, instance, upper_bound, tight=enhanced,
                                                       dominance=method in ("cpsat-ti-dom", "cpsat-hybrid"),
                                                       deadline=deadline)
        if enhanced and hint is not None:
            for j in range(ti.n_vars):
                request_id = ids[int(ti.var_request[j])]
                model_cp.AddHint(xs[j], int(hint[request_id] == ti.var_start[j]))
        if method == "cpsat-hybrid":
            start_vars, _ = _cumulative(model_cp, instance, upper_bound, tight=True, deadline=deadline)
            for x, expr in zip(start_vars, start_exprs):
                model_cp.Add(x == expr)
            start_exprs = list(start_vars)
            model_cp.AddDecisionStrategy(start_vars, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    elif method == "cpsat-completion":
        completions, start_exprs, objective = _completion_model(model_cp, instance, upper_bound, deadline)
        if hint is not None:
            for c, r in zip(completions, instance.requests):
                model_cp.AddHint(c, hint[r.id] + r.output)
    elif method in ("cpsat", "cpsat-cumulative"):
        start_vars, objective = _cumulative(model_cp, instance, upper_bound, tight=enhanced, deadline=deadline)
        start_exprs = list(start_vars)
        if enhanced and hint is not None:
            for i, x in enumerate(start_vars):
                model_cp.AddHint(x, hint[ids[i]])
        if enhanced:
            model_cp.AddDecisionStrategy(start_vars, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    else:  # pragma: no cover - dispatcher validates
        raise ValueError(method)
    if enhanced:
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
