"""The time-indexed integer program of the offline optimum, and its HiGHS solvers.

Variables ``x_{i,k} in {0, 1}``: request ``i`` starts at step ``k``, for ``k`` in a window
``a_i <= k <= a_i + w_i``. Constraints (Jaillet et al., arXiv 2502.07115, Sec. 5; Kong et
al., arXiv 2606.22327, Sec. 2):

* ``sum_k x_{i,k} = 1`` for every request;
* memory at every step ``t``: ``sum_i sum_{k: k < t <= k + o_i} x_{i,k} (s_i + t - k) <= M``;

objective ``min sum_{i,k} (k + o_i - a_i) x_{i,k}`` = TEL.

**Windows.** Given a feasible schedule of TEL ``UB``, any schedule with TEL ``<= UB`` has
``x_i - a_i <= UB - sum_j o_j`` (the *plain* window of the issue), and, sharper,
``x_i - a_i <= UB - o_i - LB(I - i)`` where ``LB(I - i)`` is a lower bound on the optimum of
the instance without ``i`` (the best cheap bound, and for bursts of up to
:data:`~.chain.CHAIN_MAX_N` requests also the chain bound, which one dynamic program gives for
every ``I - i``) (the other requests form a feasible schedule of it, so their part
of the TEL is at least that). Every optimal schedule lies inside either window, so the
restricted program has the same optimum, and its relaxations give valid lower bounds.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> model = build_model(burst_instance(12, [(6, 3), (1, 5)]), upper_bound=13)
>>> model.windows
[(0, 5), (0, 5)]
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.opt.bounds import best_cheap_bound
from geosched.reference_impl.opt.chain import chain_subset_bounds
from geosched.reference_impl.opt.deadline import BuildStopped, Deadline, run_until
from geosched.reference_impl.opt.heuristic import heuristic_schedule

__all__ = ["TimeIndexedModel", "build_model", "start_windows", "solve_milp", "solve_lp_relaxation",
           "MAX_NONZEROS", "MAX_STEPS"]

MAX_NONZEROS = 20_000_000  # memory-row coefficients of one time-indexed model (about 0.5 GB of arrays)
MAX_STEPS = 10**8  # the model keeps one entry per step up to the last possible completion


def start_windows(instance: Instance, upper_bound: int, *, tight: bool = True,
                  deadline: Deadline | None = None) -> list[tuple[int, int]]:
    """``[(a_i, latest start), ...]`` for schedules of TEL ``<= upper_bound`` (see module doc).

    ``tight=False`` gives the plain window ``a_i + UB - sum_j o_j``. The tight windows cost one
    cheap bound of ``I - i`` per request (``O(n^2 log n)``); with a ``deadline`` they stop
    there with :class:`~.deadline.BuildStopped`.
    """
    deadline = deadline or Deadline.never()
    requests = instance.requests
    total_output = sum(r.output for r in requests)
    subset_bounds = chain_subset_bounds(instance) if tight else None
    everyone = (1 << len(requests)) - 1
    windows = []
    for position, r in enumerate(requests):
        deadline.check("start windows")
        slack = upper_bound - total_output
        if tight and len(requests) > 1:
            rest = Instance(instance.memory, requests[:position] + requests[position + 1 :])
            rest_bound = best_cheap_bound(rest).value
            if subset_bounds is not None:
                rest_bound = max(rest_bound, int(subset_bounds[everyone ^ (1 << position)]))
            slack = max(0, upper_bound - r.output - rest_bound)
        windows.append((r.arrival, r.arrival + max(0, slack)))
    return windows


@dataclass
class TimeIndexedModel:
    """The sparse data of the time-indexed program (0-based variable and row indices)."""

    instance: Instance
    windows: list[tuple[int, int]]  # (earliest, latest) start of each request
    var_request: np.ndarray  # request index of each variable
    var_start: np.ndarray  # start step of each variable
    cost: np.ndarray  # k + o_i - a_i per variable
    row_steps: np.ndarray  # the step t of each kept memory row
    rows: np.ndarray  # COO row index (into row_steps) of each nonzero
    cols: np.ndarray  # COO variable index
    coefs: np.ndarray  # s_i + t - k
    row_binding: np.ndarray  # per row: can the memory constraint be violated there at all

    @property
    def n_vars(self) -> int:
        return int(self.var_request.size)

    def request_vars(self, i: int) -> np.ndarray:
        return np.nonzero(self.var_request == i)[0]

    def memory_rows(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(variables, coefficients)`` of each memory row, in ``row_steps`` order (the COO
        nonzeros grouped by row, their order within a row kept)."""
        order = np.argsort(self.rows, kind="stable")
        cols, coefs = self.cols[order], self.coefs[order]
        edges = np.searchsorted(self.rows[order], np.arange(self.row_steps.size + 1))
        return [(cols[lo:hi], coefs[lo:hi]) for lo, hi in zip(edges[:-1], edges[1:])]


def build_model(instance: Instance, *, upper_bound: int, tight: bool = True,
                all_rows: bool = False, deadline: Deadline | None = None) -> TimeIndexedModel:
    """Variables within the start windows; memory rows only at steps where the requests that
    could be running there might together exceed ``M`` (other rows are redundant), or at
    every step where some request may run if ``all_rows`` (``row_binding`` tells which).

    Raises :class:`~.deadline.BuildStopped` at the ``deadline``, or before allocating a model
    of more than :data:`MAX_NONZEROS` coefficients or :data:`MAX_STEPS` steps.
    """
    deadline = deadline or Deadline.never()
    windows = start_windows(instance, upper_bound, tight=tight, deadline=deadline)
    nonzeros = sum((hi - lo + 1) * r.output for r, (lo, hi) in zip(instance.requests, windows))
    steps = max((hi + r.output for r, (_, hi) in zip(instance.requests, windows)), default=0)
    if nonzeros > MAX_NONZEROS or steps > MAX_STEPS:
        raise BuildStopped(f"time-indexed model: {nonzeros} coefficients over {steps} steps, past the limits "
                           f"{MAX_NONZEROS} and {MAX_STEPS}")
    requests: tuple[Request, ...] = instance.requests
    var_request, var_start, cost = [], [], []
    rows_t, cols, coefs = [], [], []
    offset = 0
    last_step = 0
    for i, (r, (lo, hi)) in enumerate(zip(requests, windows)):
        deadline.check("time-indexed model")
        ks = np.arange(lo, hi + 1, dtype=np.int64)
        var_request.append(np.full(ks.size, i, dtype=np.int64))
        var_start.append(ks)
        cost.append(ks + r.output - r.arrival)
        d = np.arange(1, r.output + 1, dtype=np.int64)
        # variable j (start ks[j]) uses s + d tokens at step ks[j] + d
        rows_t.append((ks[:, None] + d[None, :]).ravel())
        cols.append(np.repeat(np.arange(offset, offset + ks.size), r.output))
        coefs.append(np.tile(r.prompt + d, ks.size))
        offset += ks.size
        last_step = max(last_step, hi + r.output)
    var_request_a = np.concatenate(var_request) if var_request else np.zeros(0, np.int64)
    var_start_a = np.concatenate(var_start) if var_start else np.zeros(0, np.int64)
    cost_a = np.concatenate(cost) if cost else np.zeros(0, np.int64)
    t_a = np.concatenate(rows_t) if rows_t else np.zeros(0, np.int64)
    col_a = np.concatenate(cols) if cols else np.zeros(0, np.int64)
    coef_a = np.concatenate(coefs) if coefs else np.zeros(0, np.int64)
    # max possible usage at step t: each request contributes at most its largest coefficient
    key = t_a * max(1, len(requests)) + var_request_a[col_a] if t_a.size else t_a
    per_pair = {}
    if t_a.size:
        order = np.lexsort((-coef_a, key))
        first = np.ones(order.size, dtype=bool)
        first[1:] = key[order][1:] != key[order][:-1]
        top = order[first]
        worst = np.zeros(last_step + 2, dtype=np.int64)
        np.add.at(worst, t_a[top], coef_a[top])
        per_pair = worst
    if t_a.size:
        binding_steps = np.nonzero((per_pair > 0) if all_rows else (per_pair > instance.memory))[0]
        row_binding = per_pair[binding_steps] > instance.memory
    else:
        binding_steps = np.zeros(0, dtype=np.int64)
        row_binding = np.zeros(0, dtype=bool)
    keep = np.isin(t_a, binding_steps)
    row_index = np.full(last_step + 2, -1, dtype=np.int64)
    row_index[binding_steps] = np.arange(binding_steps.size)
    return TimeIndexedModel(
        instance=instance,
        windows=windows,
        var_request=var_request_a,
        var_start=var_start_a,
        cost=cost_a,
        row_steps=binding_steps,
        rows=row_index[t_a[keep]],
        cols=col_a[keep],
        coefs=coef_a[keep],
        row_binding=row_binding,
    )


def _highs(model: TimeIndexedModel, *, relaxed: bool, time_limit: float) -> Any:
    """HiGHS's result on the program (integer, or its LP relaxation), or None when it ran past ``time_limit``:
    HiGHS checks its limit only between its phases, so it runs in a child process that is stopped
    :data:`HIGHS_GRACE` after the limit (:func:`~geosched.reference_impl.opt.deadline.run_until`)."""
    from scipy.optimize import milp

    c, constraints, bounds = _scipy_problem(model)
    integrality = np.zeros(model.n_vars) if relaxed else np.ones(model.n_vars)

    def solve() -> Any:
        with _quiet_stdout():
            return milp(c, constraints=constraints, bounds=bounds, integrality=integrality,
                        options={"time_limit": time_limit, "disp": False})

    finished, res = run_until(Deadline.after(time_limit + HIGHS_GRACE), solve)
    return res if finished else None


# HiGHS stops up to about 0.15 s after its own limit where it checks it (measured); past this grace it is stopped
HIGHS_GRACE = 0.2


@contextlib.contextmanager
def _quiet_stdout():
    """HiGHS sometimes prints debug lines to file descriptor 1 even with ``disp=False``; they
    would corrupt ``--json`` output, so fd 1 points at /dev/null during the solve (``run_until`` flushes
    ``sys.stdout`` first, in the parent process: a lock another thread held at the fork would stop a flush in the
    child)."""
    try:
        saved = os.dup(1)
    except OSError:  # no real stdout (e.g. some embedded interpreters)
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def _scipy_problem(model: TimeIndexedModel):
    from scipy.optimize import Bounds, LinearConstraint
    from scipy.sparse import coo_matrix

    n_vars = model.n_vars
    n = model.instance.n
    assign = coo_matrix(
        (np.ones(n_vars), (model.var_request, np.arange(n_vars))), shape=(n, n_vars)
    ).tocsr()
    constraints = [LinearConstraint(assign, 1, 1)]
    if model.row_steps.size:
        memory_rows = coo_matrix(
            (model.coefs.astype(float), (model.rows, model.cols)), shape=(model.row_steps.size, n_vars)
        ).tocsr()
        constraints.append(LinearConstraint(memory_rows, -np.inf, model.instance.memory))
    return model.cost.astype(float), constraints, Bounds(0, 1)


def solve_lp_relaxation(instance: Instance, *, upper_bound: int | None = None,
                        time_limit: float = 60.0) -> int | None:
    """``ceil`` of the LP relaxation's optimum, or None when HiGHS does not finish (or the
    model cannot be built within ``time_limit`` or the size limits of :func:`build_model`)."""
    if instance.n == 0:
        return 0
    deadline = Deadline.after(time_limit)
    if upper_bound is None:
        starts = heuristic_schedule(instance)
        upper_bound = sum(starts[r.id] + r.output - r.arrival for r in instance.requests)
    try:
        model = build_model(instance, upper_bound=upper_bound, deadline=deadline)
    except BuildStopped:
        return None
    time_limit = deadline.remaining()
    if time_limit <= 0:
        return None
    res = _highs(model, relaxed=True, time_limit=time_limit)
    if res is None or res.status != 0 or res.fun is None:
        return None
    # tolerance: HiGHS' primal/dual feasibility is ~1e-7 relative; never round a value that is
    # within 1e-6 of an integer upwards past it
    return int(np.ceil(res.fun - 1e-6))


def solve_milp(model: TimeIndexedModel, *, time_limit: float) -> dict:
    """Solve the program with HiGHS (``scipy.optimize.milp``); raw outcome as a dict."""
    res = _highs(model, relaxed=False, time_limit=time_limit)
    if res is None:
        return {"proved": False, "starts": None, "dual_bound": None, "nodes": None, "infeasible": False,
                "message": f"HiGHS: stopped at the time limit ({time_limit:.3g} s; it had not reached a point where "
                           "it checks its own)"}
    starts = None
    if res.x is not None:
        chosen = np.nonzero(res.x > 0.5)[0]
        starts = {model.instance.requests[int(model.var_request[j])].id: int(model.var_start[j]) for j in chosen}
        if len(starts) != model.instance.n:
            starts = None
    dual = getattr(res, "mip_dual_bound", None)
    return {
        "proved": res.status == 0,
        "starts": starts,
        "dual_bound": None if dual is None or not np.isfinite(dual) else float(dual),
        "message": f"HiGHS: {res.message}",
        "nodes": getattr(res, "mip_node_count", None),
        "infeasible": res.status == 2,
    }
