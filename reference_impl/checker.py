"""The schedule checker: the referee for everything else in geosched.

Given an instance and start times ``x_i``, a schedule is *feasible* (Kong et al., Sec. 2,
constraints (2)-(3)) when

* no request starts before it arrives: ``x_i >= a_i``;
* at every step ``t`` the running batch fits: ``sum_{i: x_i < t <= x_i + o_i} (s_i + t - x_i) <= M``.

**Schedules with restarts** (a scheduler that preempts,
:mod:`geosched.reference_impl.scheduling`): a request's value is then a list of *runs*
``(start, end)`` or ``(start, end, kept)``. A run holds ``s + kept + (t - start)`` tokens at
``start < t <= end`` and every run counts towards memory; runs are ordered and do not
overlap (``start_{k+1} >= end_k``); a run keeps at most the outputs decoded so far
(``kept_{k+1} <= kept_k + end_k - start_k``); only the last run completes, so it lasts exactly
``o - kept`` steps and every earlier one is shorter. TEL counts the last run's end. The
outputs decoded and not kept are reported as ``lost_tokens``, the runs before the last as
``restarts``. A plain start ``x`` is the single run ``(x, x + o)``: schedules without
restarts read and check exactly as before.

This module imports only :mod:`geosched.reference_impl.model` (and the error classes and the result convention of
:mod:`geosched.results`); it shares no code with the
simulator, the policies or the solvers, so that a bug there cannot hide here. The memory
check is exact and does not walk every step: between consecutive breakpoints (the start and
completion steps) the active set is constant and the usage is increasing in ``t``, so the
maximum of each piece is at its right end and only the breakpoints are evaluated.

Every number is exact. The sweep runs on int64 arrays when no partial sum can reach
``2^63`` (a bound checked first, from ``n`` and the largest magnitude), and on arrays of
Python integers otherwise, so a schedule with starts near ``2^62`` gets its true TEL rather
than a wrapped-around one. Starts must lie in ``[-2^63, 2^63)`` (:data:`STEP_RANGE`); one
outside it is a violation of kind ``out_of_range``.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> report = check_schedule(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 5, "r1": 0})
>>> report.feasible, report.metrics.tel
(True, 13)
>>> check_schedule(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 0, "r1": 0}).first_violation.step
3
>>> report = check_schedule(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 0, "r1": [(0, 2), (3, 8)]})
>>> report.feasible, report.metrics.tel, report.metrics.lost_tokens
(True, 11, 2)
"""

from __future__ import annotations

import functools
import operator
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.model import STEP_LIMIT, Instance
from geosched.results import Result

__all__ = ["Violation", "Metrics", "CheckReport", "check_schedule", "schedule_metrics", "sorted_unique", "STEP_RANGE",
           "check_start_columns"]

STEP_RANGE = (-STEP_LIMIT, STEP_LIMIT)  # starts the checker represents: [low, high)
MAX_PROFILE_STEPS = 10**8  # CheckReport.memory_profile allocates one entry per step


@dataclass(frozen=True)
class Violation:
    """One way in which a schedule breaks the model."""

    kind: str  # "missing_start", "unknown_id", "not_integer", "out_of_range", "bad_runs", "early_start", "memory"
    step: int | None  # the step of a memory violation or of an early start, else None
    amount: int  # tokens over M (memory) or steps too early (early_start); 0 otherwise
    request_ids: tuple[str, ...]  # the requests involved (for memory: the active batch)
    message: str  # one human-readable line

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "step": self.step,
            "amount": self.amount,
            "request_ids": list(self.request_ids),
            "message": self.message,
        }


@dataclass(frozen=True)
class Metrics:
    """Latency and utilisation metrics of a complete schedule (steps and tokens)."""

    tel: int  # total end-to-end latency sum_i (x_i + o_i - a_i)
    mean_latency: float  # tel / n
    p50_latency: float  # percentiles of per-request latency, numpy's linear interpolation
    p95_latency: float
    p99_latency: float
    mean_wait: float  # mean of x_i - a_i
    makespan: int  # max_i (x_i + o_i): the step at which the last request finishes
    throughput: float  # output tokens per step over [min a_i, makespan]
    peak_memory: int  # max over steps of the tokens held
    latencies: dict[str, int] = field(repr=False)  # per-request x_i + o_i - a_i
    restarts: int = 0  # runs that did not complete (schedules with restarts)
    lost_tokens: int = 0  # outputs decoded by those runs and not kept by the next one

    def to_dict(self, *, per_request: bool = False) -> dict[str, Any]:
        data = {
            "tel": self.tel,
            "mean_latency": self.mean_latency,
            "p50_latency": self.p50_latency,
            "p95_latency": self.p95_latency,
            "p99_latency": self.p99_latency,
            "mean_wait": self.mean_wait,
            "makespan": self.makespan,
            "throughput": self.throughput,
            "peak_memory": self.peak_memory,
            "restarts": self.restarts,
            "lost_tokens": self.lost_tokens,
        }
        if per_request:
            data["latencies"] = dict(self.latencies)
        return data


@dataclass(frozen=True)
class CheckReport(Result):
    """The checker's verdict on one schedule: ``status`` is ``"feasible"`` or ``"infeasible"``."""

    STATUSES = ("feasible", "infeasible")
    SUCCESS = ("feasible",)

    status: str
    message: str  # "feasible" or the first violation's message
    wall_time: float = field(compare=False)  # seconds spent checking (not part of equality)
    violations: tuple[Violation, ...]  # every early start, and the first memory violation
    metrics: Metrics | None  # None when some request has no valid start
    _intervals: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False, compare=False)

    @property
    def feasible(self) -> bool:
        """No violation of any kind."""
        return self.status == "feasible"

    @property
    def first_violation(self) -> Violation | None:
        """The violation at the smallest step (structural ones first), or None."""
        return self.violations[0] if self.violations else None

    def memory_at(self, step: int) -> int:
        """Tokens held at ``step`` (including evicted segments passed to the checker)."""
        lo, hi, offset = self._intervals
        active = (lo < step) & (step <= hi)
        return int(offset[active].sum() + step * int(active.sum()))

    def memory_profile(self) -> np.ndarray:
        """Dense array ``u`` with ``u[t]`` the tokens held at step ``t``, for ``0 <= t <= makespan``.

        Raises :class:`~geosched.errors.ValidationError` when the schedule has a negative start
        or more than :data:`MAX_PROFILE_STEPS` steps (one array entry per step).
        """
        lo, hi, offset = self._intervals
        horizon = int(hi.max()) if hi.size else 0
        if horizon > MAX_PROFILE_STEPS or (lo.size and int(lo.min()) < 0):
            raise ValidationError("schedule", f"steps {int(lo.min())}..{horizon}",
                                  f"a step-by-step profile needs steps in [0, {MAX_PROFILE_STEPS}]")
        constant = np.zeros(horizon + 2, dtype=np.int64)
        count = np.zeros(horizon + 2, dtype=np.int64)
        np.add.at(constant, lo + 1, offset)
        np.add.at(constant, hi + 1, -offset)
        np.add.at(count, lo + 1, 1)
        np.add.at(count, hi + 1, -1)
        steps = np.arange(horizon + 2, dtype=np.int64)
        return (np.cumsum(constant) + steps * np.cumsum(count))[: horizon + 1]

    def to_dict(self, *, per_request: bool = False) -> dict[str, Any]:
        return {
            "status": self.status,
            "success": self.success,
            "message": self.message,
            "wall_time": self.wall_time,
            "feasible": self.feasible,
            "violations": [v.to_dict() for v in self.violations],
            "metrics": None if self.metrics is None else self.metrics.to_dict(per_request=per_request),
        }


def _columns_first(check: Callable[..., CheckReport]) -> Callable[..., CheckReport]:
    """``check`` preceded by :func:`_check_columns`, the common case computed on whole columns."""
    @functools.wraps(check)
    def checked(instance: Instance, starts: Mapping[str, int], *,
                evicted_segments: Iterable[tuple[str, int, int]] = ()) -> CheckReport:
        fast = None
        if not evicted_segments and getattr(instance, "block_size", 1) == 1:  # the column path: token grain
            fast = _check_columns(instance, starts, time.perf_counter())
        return fast if fast is not None else check(instance, starts, evicted_segments=evicted_segments)

    return checked


@_columns_first
def check_schedule(
    instance: Instance,
    starts: Mapping[str, int],
    *,
    evicted_segments: Iterable[tuple[str, int, int]] = (),
) -> CheckReport:
    """Check feasibility of ``starts`` for ``instance`` and compute its metrics.

    The independent referee of the model (Kong et al., arXiv 2606.22327, Sec. 2): no start
    before the arrival, and ``sum_{i: x_i < t <= x_i + o_i} (s_i + t - x_i) <= M`` at every step.

    Parameters
    ----------
    instance : Instance
        The instance. Its ``block_size`` ``B`` (vLLM's ``--block-size``) is the grain memory is
        counted in: a request holding ``u`` tokens holds ``ceil(u / B)`` blocks of ``B`` tokens, so
        the memory check is ``sum_i B * ceil(u_i(t) / B) <= M``. ``1`` is the paper's token grain.
    starts : mapping of str to int or to a list of runs
        Start step of every request, keyed by id, or its runs ``[(start, end[, kept]), ...]``
        (see the module docstring).
    evicted_segments : iterable of (str, int, int)
        ``(id, start, last_step)`` for runs that were evicted before completion (a request
        whose predicted length was wrong); such a run held ``s + t - start`` tokens at
        ``start < t <= last_step``, and counts towards memory but not towards latency.

    Returns
    -------
    CheckReport
        ``status`` (``feasible`` or ``infeasible``), every violation found, and the metrics
        (TEL, latency percentiles, makespan, peak memory) when every request has a start.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> inst = burst_instance(12, [(6, 3), (1, 5)])
    >>> check_schedule(inst, {"r0": 0, "r1": 1}).metrics.tel
    9
    >>> check_schedule(inst, {"r0": 0, "r1": 0}).message  # step 3: r0 holds 6 + 3, r1 holds 1 + 3
    'step 3: 13 tokens held by 2 request(s), 1 over M = 12'
    """
    started = time.perf_counter()
    block_size = instance.block_size  # validated by the Instance (model.py), once
    by_id = instance.by_id()
    violations: list[Violation] = []
    clean, runs = _read_starts(by_id, starts, violations)
    for request in instance.requests:
        if request.id not in starts:
            violations.append(
                Violation("missing_start", None, 0, (request.id,), f"request {request.id!r} has no start time")
            )

    early = []
    for request_id, start in clean.items():
        arrival = by_id[request_id].arrival
        start = runs[request_id][0][0] if request_id in runs else start  # a history starts with its first run
        if start < arrival:
            early.append(
                Violation(
                    "early_start",
                    start,
                    arrival - start,
                    (request_id,),
                    f"request {request_id!r} starts at step {start}, before its arrival at {arrival}",
                )
            )
    violations.extend(sorted(early, key=lambda v: (v.step, v.request_ids)))

    ids, lo, hi, offset = [], [], [], []
    for request_id, start in clean.items():
        request = by_id[request_id]
        for run_start, run_end, kept in runs.get(request_id, [(start, start + request.output, 0)]):
            ids.append(request_id)
            lo.append(run_start)
            hi.append(run_end)
            offset.append(request.prompt + kept - run_start)
    for request_id, start, last_step in evicted_segments:
        request = by_id[request_id]
        if last_step > start:
            ids.append(request_id)
            lo.append(int(start))
            hi.append(int(last_step))
            offset.append(request.prompt - int(start))
    dtype = _exact_dtype(len(lo), instance.memory, lo, hi, offset)
    lo_a = np.asarray(lo, dtype=dtype)
    hi_a = np.asarray(hi, dtype=dtype)
    off_a = np.asarray(offset, dtype=dtype)

    if block_size == 1:
        peak_memory, memory_violation = _sweep_memory(instance.memory, ids, lo_a, hi_a, off_a)
    else:
        peak_memory, memory_violation = _sweep_blocks(instance.memory, ids, lo_a, hi_a, off_a, block_size)
    if memory_violation is not None:
        violations.append(memory_violation)

    metrics = None
    if len(clean) == instance.n and not any(v.kind in _STRUCTURAL for v in violations):
        metrics = schedule_metrics(instance, clean, peak_memory=peak_memory)
        if runs:
            lost = sum(_lost(r) for r in runs.values())
            metrics = replace(metrics, restarts=sum(len(r) - 1 for r in runs.values()), lost_tokens=lost)
    return CheckReport(
        status="infeasible" if violations else "feasible",
        message=violations[0].message if violations else "feasible",
        wall_time=time.perf_counter() - started,
        violations=tuple(violations),
        metrics=metrics,
        _intervals=(lo_a, hi_a, off_a),
    )


def _read_starts(by_id: Mapping[str, Any], starts: Mapping[str, Any], violations: list[Violation]
                 ) -> tuple[dict[str, int], dict[str, list[tuple[int, int, int]]]]:
    """The valid start of every request (for a history of runs: the last run's end minus ``o``)
    and the runs; every structural problem goes to ``violations``."""
    clean: dict[str, int] = {}
    runs: dict[str, list[tuple[int, int, int]]] = {}
    for request_id, value in starts.items():
        if request_id in by_id and isinstance(value, (list, tuple)):
            problem = _runs_problem(by_id[request_id], value)
            if problem is not None:
                violations.append(Violation("bad_runs", None, 0, (request_id,), f"request {request_id!r}: {problem}"))
                continue
            runs[request_id] = [(int(r[0]), int(r[1]), int(r[2]) if len(r) == 3 else 0) for r in value]
            value = runs[request_id][-1][1] - by_id[request_id].output  # the effective start of the last run
        if request_id not in by_id:
            violations.append(
                Violation("unknown_id", None, 0, (str(request_id),), f"start given for unknown request {request_id!r}")
            )
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            violations.append(
                Violation("not_integer", None, 0, (request_id,),
                          f"request {request_id!r}: start {value!r} is not an integer")
            )
            continue
        if not STEP_RANGE[0] <= value < STEP_RANGE[1]:
            violations.append(
                Violation("out_of_range", None, 0, (request_id,),
                          f"request {request_id!r}: start {value} is outside the steps geosched represents "
                          f"[-2^63, 2^63)")
            )
            continue
        clean[request_id] = int(value)
    return clean, runs


_STRUCTURAL = ("missing_start", "not_integer", "out_of_range", "bad_runs")


def _runs_problem(request: Any, value: Any) -> str | None:
    """Why a list of runs is not a valid history of ``request`` (None when it is)."""
    if not value:
        return "has an empty list of runs"
    for run in value:
        if not isinstance(run, (list, tuple)) or len(run) not in (2, 3) or any(
                isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in run):
            return f"run {run!r} is not (start, end) or (start, end, kept) in integers"
        if not all(STEP_RANGE[0] <= v < STEP_RANGE[1] for v in run[:2]):
            return f"run {list(run)} lies outside the steps geosched represents [-2^63, 2^63)"
    previous = None
    for k, run in enumerate(value):
        start, end, kept = int(run[0]), int(run[1]), int(run[2]) if len(run) == 3 else 0
        remaining = request.output - kept
        if not 0 <= kept < request.output:
            return f"run {k} keeps {kept} outputs: must be in [0, o = {request.output})"
        if previous is not None and start < previous[1]:
            return f"run {k} starts at {start}, before run {k - 1} ends at {previous[1]}"
        if previous is not None and kept > previous[2] + previous[1] - previous[0]:
            return f"run {k} keeps {kept} outputs, more than the {previous[2] + previous[1] - previous[0]} decoded"
        last = k == len(value) - 1
        if last and end - start != remaining:
            return f"the last run ({start}, {end}) must last o - kept = {remaining} steps"
        if not last and not 0 < end - start < remaining:
            return f"run {k} ({start}, {end}) must end before it completes (0 < end - start < {remaining})"
        previous = (start, end, kept)
    return None


def _lost(runs: list[tuple[int, int, int]]) -> int:
    """Outputs decoded by each run and not kept by the next one."""
    return sum(end - start + kept - runs[k + 1][2] for k, (start, end, kept) in enumerate(runs[:-1]))


def _exact_dtype(count: int, memory: int, *columns: list[int]) -> Any:
    """``int64`` when every sum of the sweep stays below ``2^63`` in magnitude, else ``object``
    (Python integers: exact at any size, about ten times slower).

    The sweep adds at most ``count`` values of one column and multiplies a step by a count, so
    ``(count + 1) * (largest magnitude + memory)`` bounds every intermediate value.
    """
    largest = max((max(map(abs, column), default=0) for column in columns), default=0)
    return np.int64 if (count + 1) * (largest + memory) < 2**62 else object


def _sweep_memory(
    memory: int, ids: list[str], lo: np.ndarray, hi: np.ndarray, offset: np.ndarray
) -> tuple[int, Violation | None]:
    """Peak usage and the first memory violation, from the breakpoints alone.

    Usage at step t is ``sum_{lo < t <= hi} offset + t * #{lo < t <= hi}``. Every interval
    with ``lo < t`` and ``hi < t`` also has ``lo < t`` (hi > lo), so both sums are prefix
    sums over the intervals sorted by ``lo`` minus those sorted by ``hi``.
    """
    if lo.size == 0:
        return 0, None
    points = sorted_unique(np.concatenate([lo, hi]))
    # each temporary is dropped once used: at a million requests they are tens of MB each
    order = np.argsort(lo, kind="stable")
    started = np.searchsorted(lo[order], points, side="left")  # lo < t
    constant = np.concatenate([[0], np.cumsum(offset[order])])[started]
    order = np.argsort(hi, kind="stable")
    ended = np.searchsorted(hi[order], points, side="left")  # hi < t
    constant -= np.concatenate([[0], np.cumsum(offset[order])])[ended]
    del order
    count = started - ended
    del started, ended
    usage = points * count
    usage += constant
    peak_memory = int(usage.max(initial=0))
    over = np.nonzero(usage > memory)[0]
    if over.size == 0:
        return peak_memory, None
    k = int(over[0])
    piece_start = int(points[k - 1]) + 1 if k > 0 else int(points[k])
    a_k, n_k = int(constant[k]), int(count[k])
    # usage is a_k + n_k * t on the whole piece (points[k-1], points[k]]
    first = max(piece_start, (memory - a_k) // n_k + 1)
    used = a_k + n_k * first
    active = tuple(sorted({ids[i] for i in np.nonzero((lo < first) & (first <= hi))[0]}))
    return peak_memory, Violation(
        "memory",
        first,
        used - memory,
        active,
        f"step {first}: {used} tokens held by {len(active)} request(s), {used - memory} over M = {memory}",
    )


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by a sort and one comparison (numpy 2.3's hash-based unique of two
    million int64 takes seconds; a sort a tenth of that).

    >>> sorted_unique(np.array([3, 1, 3, 2, 1])).tolist()
    [1, 2, 3]
    """
    values = np.sort(values)
    keep = np.empty(values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _sweep_blocks(memory: int, ids: list[str], lo: np.ndarray, hi: np.ndarray, offset: np.ndarray,
                  block: int) -> tuple[int, Violation | None]:
    """:func:`_sweep_memory` at block grain: a run holding ``u`` tokens holds ``B * ceil(u / B)``.

    ``B * ceil(u / B) = u + ((-u) mod B)``, and ``u = offset + t``: the padding of a run depends
    only on ``offset mod B``, so with the active runs counted per residue class the padding at a
    step costs ``O(B)``. Each run's blocks only grow while it is active, so, as at token grain,
    the maximum of a piece between breakpoints is at its right end, and inside the first piece
    that overflows the first overflowing step is found by bisection (usage is monotone there).
    """
    if lo.size == 0:
        return 0, None
    lo, hi, offset = (np.asarray(a, dtype=object) for a in (lo, hi, offset))
    points = np.unique(np.concatenate([lo, hi]))
    residues = [int(v) % block for v in offset]
    classes = {}
    for r in sorted(set(residues)):
        mask = np.asarray([x == r for x in residues])
        classes[r] = (np.sort(lo[mask]), np.sort(hi[mask]))

    def active_counts(t_values: np.ndarray) -> dict[int, np.ndarray]:
        return {r: np.searchsorted(los, t_values, side="left") - np.searchsorted(his, t_values, side="left")
                for r, (los, his) in classes.items()}

    def pad(counts: dict[int, Any], t: Any) -> Any:
        return sum(counts[r] * ((-(r + t)) % block) for r in counts)

    order_lo, order_hi = np.argsort(lo, kind="stable"), np.argsort(hi, kind="stable")
    off_by_lo = np.concatenate([[0], np.cumsum(offset[order_lo])])
    off_by_hi = np.concatenate([[0], np.cumsum(offset[order_hi])])
    started = np.searchsorted(lo[order_lo], points, side="left")
    ended = np.searchsorted(hi[order_hi], points, side="left")
    constant, count = off_by_lo[started] - off_by_hi[ended], started - ended
    counts = active_counts(points)
    usage = constant + points * count + pad(counts, points)
    peak_memory = int(max(usage, default=0))
    over = [k for k in range(len(points)) if usage[k] > memory]
    if not over:
        return peak_memory, None
    k = over[0]
    piece = {r: int(c[k]) for r, c in counts.items()}
    a_k, n_k = int(constant[k]), int(count[k])
    low, high = (int(points[k - 1]) + 1 if k > 0 else int(points[k])), int(points[k])
    while low < high:  # the first step of the piece that overflows
        mid = (low + high) // 2
        if a_k + n_k * mid + pad(piece, mid) > memory:
            high = mid
        else:
            low = mid + 1
    used = a_k + n_k * low + pad(piece, low)
    active = tuple(sorted({ids[i] for i in range(len(ids)) if lo[i] < low <= hi[i]}))
    return peak_memory, Violation(
        "memory", low, used - memory, active,
        f"step {low}: {used} tokens ({used // block} blocks of {block}) held by {len(active)} request(s), "
        f"{used - memory} over M = {memory}")


def schedule_metrics(
    instance: Instance, starts: Mapping[str, int], *, peak_memory: int | None = None
) -> Metrics:
    """Metrics of a complete schedule (feasible or not); ``peak_memory`` computed if not given."""
    latencies = {r.id: int(starts[r.id]) + r.output - r.arrival for r in instance.requests}
    n = len(latencies)
    if n == 0:
        return Metrics(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0, {})
    tel = sum(latencies.values())  # exact: a Python integer, whatever its size
    # the mean and percentiles are floats anyway; float64 (not int64) cannot wrap around
    values = np.fromiter(map(float, latencies.values()), dtype=np.float64, count=n)
    waits = [int(starts[r.id]) - r.arrival for r in instance.requests]
    makespan = max(int(starts[r.id]) + r.output for r in instance.requests)
    first_arrival = min(r.arrival for r in instance.requests)
    tokens = sum(r.output for r in instance.requests)
    span = makespan - first_arrival
    if peak_memory is None:
        lo = [int(starts[r.id]) for r in instance.requests]
        hi = [x + r.output for x, r in zip(lo, instance.requests)]
        off = [r.prompt - x for x, r in zip(lo, instance.requests)]
        dtype = _exact_dtype(n, instance.memory, lo, hi, off)
        peak_memory, _ = _sweep_memory(instance.memory, [r.id for r in instance.requests],
                                       *(np.asarray(column, dtype=dtype) for column in (lo, hi, off)))
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return Metrics(
        tel=tel,
        mean_latency=tel / n,
        p50_latency=float(p50),
        p95_latency=float(p95),
        p99_latency=float(p99),
        mean_wait=sum(waits) / n,
        makespan=makespan,
        throughput=tokens / span if span > 0 else 0.0,
        peak_memory=int(peak_memory),
        latencies=latencies,
    )


# ---------------------------------------------------------------- the common case in whole columns (issue 21)

_COLUMN_LIMIT = 2**62  # starts within +-2^62 keep every per-request sum below int64's range


def _check_columns(instance: Instance, starts: Mapping[str, int], started: float) -> CheckReport | None:
    """:func:`check_schedule`'s report, computed on numpy columns in instance order, for the common
    case: exactly one plain ``int`` start per request, within ``+-2^62``, and sweep sums within
    int64. Returns None for anything else (the general code then decides, with Python integers).
    The report is the same in every field: early starts are sorted as there, the memory sweep is
    the same function, and every sum is exact (Python integers from ``tolist``)."""
    requests = instance.requests
    n = len(requests)
    if n == 0 or len(starts) != n:
        return None
    ids = [r.id for r in requests]
    try:
        given = list(map(starts.__getitem__, ids))  # n distinct ids all present in n keys: the same keys
    except (KeyError, TypeError):
        return None
    if not all(type(value) is int for value in given) \
            or not -_COLUMN_LIMIT <= min(given) <= max(given) <= _COLUMN_LIMIT:
        return None
    x = np.array(given, dtype=np.int64)
    a, s, o = (np.fromiter(map(operator.attrgetter(name), requests), dtype=np.int64, count=n)
               for name in ("arrival", "prompt", "output"))
    verdict = check_start_columns(instance.memory, ids, x, a, s, o)
    if verdict is None:
        return None
    violations, fields, latency, intervals = verdict
    metrics = Metrics(**fields, latencies=dict(zip(ids, latency.tolist())))
    return CheckReport(status="infeasible" if violations else "feasible",
                       message=violations[0].message if violations else "feasible",
                       wall_time=time.perf_counter() - started, violations=tuple(violations), metrics=metrics,
                       _intervals=intervals)


def check_start_columns(memory: int, ids: Sequence[str], x: np.ndarray, a: np.ndarray, s: np.ndarray,
                        o: np.ndarray) -> tuple[list[Violation], dict[str, Any], np.ndarray, tuple] | None:
    """The checker on int64 columns in instance order (starts ``x``, arrivals, prompts, outputs; ``ids[k]``
    names request ``k``): ``(violations, metric fields but latencies, latency column, intervals)``, as
    :func:`check_schedule` reports them, or None when a sum could leave int64 (starts beyond ``+-2^62``).
    The columns must keep the model's rules (:mod:`.columns` and :func:`_check_columns` ensure it).

    >>> column = np.array
    >>> violations, fields, latency, _ = check_start_columns(12, ["a", "b"], column([5, 0]), column([0, 0]),
    ...                                                      column([6, 1]), column([3, 5]))
    >>> violations, fields["tel"], fields["peak_memory"], latency.tolist()
    ([], 13, 9, [8, 5])
    """
    n = int(x.size)
    if n == 0 or not -_COLUMN_LIMIT <= int(x.min()) <= int(x.max()) <= _COLUMN_LIMIT:
        return None
    hi, offset = x + o, s - x
    largest = max(int(np.abs(x).max()), int(np.abs(hi).max()), int(np.abs(offset).max()))
    if (n + 1) * (largest + memory) >= 2**62:  # _exact_dtype's bound: the sweep needs Python integers
        return None
    violations = [Violation("early_start", int(x[k]), int(a[k]) - int(x[k]), (ids[k],),
                            f"request {ids[k]!r} starts at step {int(x[k])}, before its arrival at {int(a[k])}")
                  for k in np.nonzero(x < a)[0].tolist()]
    violations.sort(key=lambda v: (v.step, v.request_ids))
    peak_memory, memory_violation = _sweep_memory(memory, ids, x, hi, offset)
    if memory_violation is not None:
        violations.append(memory_violation)
    latency = hi - a
    p50, p95, p99 = np.percentile(latency.astype(np.float64), [50, 95, 99])
    makespan, first_arrival = int(hi.max()), int(a.min())
    # int64 sums are exact below 2^63 (|x - a| <= |x| + a, o <= 2^53); else Python integers
    small = n * (int(np.abs(x).max()) + int(a.max()) + int(o.max())) < 2**63
    tel = int(latency.sum()) if small else sum(latency.tolist())
    tokens = int(o.sum()) if small else sum(o.tolist())
    waits = int((x - a).sum()) if small else sum((x - a).tolist())
    span = makespan - first_arrival
    fields = dict(tel=tel, mean_latency=tel / n, p50_latency=float(p50), p95_latency=float(p95),
                  p99_latency=float(p99), mean_wait=waits / n, makespan=makespan,
                  throughput=tokens / span if span > 0 else 0.0, peak_memory=int(peak_memory))
    return violations, fields, latency, (x, hi, offset)
