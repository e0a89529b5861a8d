"""Event-driven continuous-batching simulator with the forward-looking memory check.

This is the discrete-time process of Kong et al. (arXiv 2606.22327, Sec. 2 and Algorithm 1)
and Jaillet et al. (arXiv 2502.07115, Sec. 3): at every step ``t`` the running requests
decode one token; then the arrived, waiting requests are scanned in the policy's priority
order and a candidate ``c`` is admitted (started at ``t``) when the batch, with ``c`` added,
fits at every future step:

.. math::  \\forall t' > t:\\ \\sum_{j \\in B \\cup \\{c\\},\\ x_j < t' \\le e_j} (s_j + t' - x_j) \\le M.

The usage is increasing between completions, so it suffices to check ``t'`` at every
completion step ``e_j`` of the batch inside ``c``'s lifetime and at ``c``'s own completion.
Admission is strict head-of-line (the first misfit ends the scan for the step, as in the
proof of Kong et al., Thm. 3.2) unless ``backfill=True``, which skips misfits. Ties in the
priority key are broken by arrival, then id.

**Event-driven.** The state changes only at arrivals, admissions and completions, so the
simulator jumps between them; cost grows with the number of requests, not of steps. One
subtlety: a blocked candidate can become admissible with no event at all, because delaying
its start shifts its staircase right (:meth:`ForwardCheck.earliest_start` computes the first such
step exactly, by jumping between lower bounds). The stepwise simulator in the tests agrees
with this one on every generated instance.

**Predictions.** Policies order and check with *predicted* lengths; memory is freed at the
*true* length. When a running request reaches its predicted length and has not finished,
the scheduler's belief is re-estimated to twice its current age (an exponential back-off, so
beliefs only grow). Beliefs are capped at ``M - s``, the longest output a valid request can
have. If the true usage of the next step would exceed ``M``, running requests
are evicted before that step, lowest priority first (largest ``(key, arrival, id)``), until
it fits: *recompute* semantics, the victim frees its memory, loses its tokens (counted in
``wasted_tokens``) and waits again with its original arrival. Memory never exceeds ``M``,
and with exact predictions no eviction ever happens.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> result = simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf")
>>> result.starts, result.evictions
({'r0': 5, 'r1': 0}, 0)
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import Policy, make_policy
from geosched.reference_impl.predictors import Predictor, make_predictor

__all__ = [
    "SimulationResult",
    "BlockedInterval",
    "ForwardCheck",
    "simulate",
    "admission_step",
    "scan_admissions",
    "earliest_start",
]


@dataclass(frozen=True)
class BlockedInterval:
    """Steps ``first_step <= t < end_step`` during which some arrived request was waiting."""

    first_step: int  # first decision step of the interval
    end_step: int  # first step after it (the next event)
    waiting: tuple[str, ...]  # waiting ids, in priority order (the head first)
    running: tuple[str, ...]  # the active batch: requests holding memory at step first_step + 1
    running_peak_mass: int  # sum of (prompt + output) over the running batch


@dataclass(frozen=True)
class SimulationResult:
    """What one simulation produced; metrics come from the checker, not from here."""

    policy: str  # policy name
    predictor: str  # predictor name
    backfill: bool  # whether misfits were skipped
    starts: dict[str, int]  # final start step of every request
    completions: dict[str, int]  # start + true output
    admission_order: tuple[str, ...]  # ids in the order they were (finally) admitted
    evictions: int  # number of evictions (0 with exact predictions)
    wasted_tokens: int  # output tokens decoded by runs that were later evicted
    evicted_segments: tuple[tuple[str, int, int], ...] = ()  # (id, start, last step held)
    decisions: int = 0  # decision points processed (a measure of the simulator's work)
    extra: dict[str, Any] = field(default_factory=dict)  # policy parameters resolved at run time


class ForwardCheck:
    """The running batch as the scheduler believes it, for the forward-looking check.

    Ends ``E`` sorted ascending; ``U(t') = sum_{E_j >= t'} (c_j + t')`` with ``c_j = s_j - x_j``
    is the believed usage at step ``t'``. ``V[m] = U(E_m) + E_m`` serves the window check.
    """

    __slots__ = ("ends", "offsets", "suffix_offset", "value")

    def __init__(self) -> None:
        self.ends: list[int] = []
        self.offsets: list[int] = []
        self.suffix_offset: list[int] = [0]
        self.value: list[int] = []

    def rebuild(self, members: Sequence[tuple[int, int]]) -> None:
        """``members``: (believed end, prompt - start) pairs."""
        pairs = sorted(members)
        self.ends = [e for e, _ in pairs]
        self.offsets = [c for _, c in pairs]
        self._refresh()

    def add(self, end: int, offset: int) -> None:
        """Insert one member in O(k) list operations, without recomputing the suffix sums.

        Every member ending at or before ``end`` now also counts the new one at its own end
        (``U(E_m)`` gains ``offset + E_m``); members ending later are unchanged.
        """
        ends, value, suffix = self.ends, self.value, self.suffix_offset
        k = bisect.bisect_right(ends, end)
        if k:
            value[:k] = [v + offset + e for v, e in zip(value[:k], ends[:k])]
            suffix[:k] = [x + offset for x in suffix[:k]]
        suffix.insert(k, suffix[k] + offset)
        ends.insert(k, end)
        self.offsets.insert(k, offset)
        if k and ends[k - 1] == end:
            own = value[k - 1]
        else:
            own = suffix[k] + end * (len(ends) - k) + end
        value.insert(k, own)

    def drop_through(self, step: int) -> None:
        """Forget members that end at or before ``step``: a prefix, counted by no one else."""
        p = bisect.bisect_right(self.ends, step)
        if p:
            del self.ends[:p], self.offsets[:p], self.suffix_offset[:p], self.value[:p]

    def _refresh(self) -> None:
        ends, offsets = self.ends, self.offsets
        k = len(ends)
        suffix = [0] * (k + 1)
        running = 0
        for m in range(k - 1, -1, -1):
            running += offsets[m]
            suffix[m] = running
        self.suffix_offset = suffix
        value = [0] * k
        m = 0
        while m < k:
            # U(E_m) counts every j with E_j >= E_m: the first index of the tie group.
            end = ends[m]
            first = m
            while m < k and ends[m] == end:
                m += 1
            usage = suffix[first] + end * (k - first)
            for q in range(first, m):
                value[q] = usage + end
        self.value = value

    def usage(self, step: int) -> int:
        """Believed tokens held at ``step`` by the batch."""
        idx = bisect.bisect_left(self.ends, step)
        return self.suffix_offset[idx] + step * (len(self.ends) - idx)

    def fits(self, memory: int, prompt: int, output: int, start: int) -> bool:
        """Forward-looking check for a candidate started at ``start``."""
        ends, value = self.ends, self.value
        lo = bisect.bisect_right(ends, start)
        hi = bisect.bisect_right(ends, start + output)
        limit = memory - prompt + start
        for m in range(lo, hi):
            if value[m] > limit:
                return False
        return self.usage(start + output) + prompt + output <= memory

    def earliest_start(self, memory: int, prompt: int, output: int, start: int) -> int:
        """Smallest ``tau >= start`` at which the candidate passes, the batch unchanged.

        Each violated constraint gives a lower bound on any feasible ``tau``: a window
        point ``E_m`` needs ``tau >= min(V_m + s - M, E_m)``; the candidate's own completion
        point needs ``tau + o`` past the next batch completion (the usage only grows until
        then). Jumping to the largest bound never skips a feasible step.
        """
        ends, value = self.ends, self.value
        k = len(ends)
        tau = start
        while True:
            lo = bisect.bisect_right(ends, tau)
            hi = bisect.bisect_right(ends, tau + output)
            bound = tau
            limit = memory - prompt + tau
            for m in range(lo, hi):
                if value[m] > limit:
                    bound = max(bound, min(value[m] + prompt - memory, ends[m]))
            idx = bisect.bisect_left(ends, tau + output)
            if self.suffix_offset[idx] + (tau + output) * (k - idx) + prompt + output > memory:
                bound = max(bound, ends[idx] - output + 1)
            if bound == tau:
                return tau
            tau = bound


def earliest_start(
    memory: int,
    running: Sequence[tuple[int, int, int]],
    prompt: int,
    output: int,
    step: int,
) -> int:
    """Earliest step ``>= step`` at which a candidate passes the forward-looking check.

    ``running``: ``(prompt, start, believed_end)`` of the batch, all ends ``> step``.
    """
    batch = ForwardCheck()
    batch.rebuild([(end, s - x) for s, x, end in running])
    return batch.earliest_start(memory, prompt, output, step)


def scan_admissions(
    batch: ForwardCheck,
    memory: int,
    step: int,
    candidates: Sequence[tuple[int, int, int]],
    backfill: bool,
) -> list[int]:
    """One admission scan: ``candidates`` are ``(handle, prompt, believed_output)`` in
    priority order; returns the admitted handles, adding them to ``batch``."""
    admitted = []
    for handle, prompt, output in candidates:
        if batch.fits(memory, prompt, output, step):
            batch.add(step + output, prompt - step)
            admitted.append(handle)
        elif not backfill:
            break
    return admitted


def admission_step(
    memory: int,
    step: int,
    running: Sequence[tuple[int, int, int]],
    waiting: Sequence[tuple[int, int]],
    *,
    backfill: bool = False,
) -> list[int]:
    """The admitted set of one scheduling step, as positions in ``waiting``.

    ``running``: ``(prompt, start, believed_end)`` with ends ``> step``; ``waiting``:
    ``(prompt, believed_output)`` already in priority order. This is the exact code path the
    simulator uses for every scan, exposed so that :mod:`geosched.verify` can check it
    against a declarative specification.

    >>> admission_step(12, 0, [(1, 0, 5)], [(6, 3)])
    []
    >>> admission_step(12, 1, [(6, 0, 3)], [(1, 5)])
    [0]
    """
    batch = ForwardCheck()
    batch.rebuild([(end, s - x) for s, x, end in running])
    return scan_admissions(batch, memory, step, [(k, s, o) for k, (s, o) in enumerate(waiting)], backfill)


def simulate(
    instance: Instance,
    policy: str | Policy = "svf",
    *,
    predictor: str | Predictor = "oracle",
    backfill: bool = False,
    observer: Callable[[BlockedInterval], None] | None = None,
) -> SimulationResult:
    """Run ``policy`` on ``instance`` and return the start times.

    Parameters
    ----------
    instance:
        The workload.
    policy:
        A registered policy name or spec (``"svf"``, ``"svf1:theta=8"``) or a policy object.
    predictor:
        A registered predictor name or a predictor object (see
        :mod:`geosched.reference_impl.predictors`).
    backfill:
        Skip a misfit and try later requests instead of stopping the scan.
    observer:
        Called with a :class:`BlockedInterval` for every maximal run of steps with the same
        state during which some arrived request waits (the certificate monitor of
        :mod:`geosched.verify` uses it). Attaching one makes every completion an event.
    """
    policy_obj = make_policy(policy) if isinstance(policy, str) else policy
    predictor_obj = make_predictor(predictor) if isinstance(predictor, str) else predictor
    requests = instance.requests
    n = len(requests)
    memory = instance.memory
    prompt = [r.prompt for r in requests]
    true_out = [r.output for r in requests]
    arrival = [r.arrival for r in requests]
    predicted = [int(v) for v in np.asarray(predictor_obj.predict(instance)).tolist()]
    if len(predicted) != n or any(v < 1 for v in predicted):
        raise ValueError("a predictor must return one prediction >= 1 per request")
    keys = policy_obj.keys(instance, predicted)
    order = sorted(range(n), key=lambda i: (keys[i], arrival[i], requests[i].id))
    rank = [0] * n
    for position, i in enumerate(order):
        rank[i] = position
    # A prediction above M - s is impossible for a valid request and would block it forever.
    belief = [min(p, memory - s) for p, s in zip(predicted, prompt)]
    exact = belief == true_out

    arrivals = sorted(range(n), key=lambda i: arrival[i])
    next_arrival = 0
    waiting: list[int] = []  # min-heap of ranks (strict) or ascending sorted ranks (backfill)
    start = [-1] * n
    running: set[int] = set()
    completions: list[tuple[int, int]] = []  # heap of (true end, request), exact mode only
    batch = ForwardCheck()
    admission_order: list[int] = []
    evictions = 0
    wasted = 0
    segments: list[tuple[str, int, int]] = []
    decisions = 0
    every_completion_is_event = observer is not None

    t = arrival[arrivals[0]] if n else 0
    while True:
        decisions += 1
        if exact:
            # believed ends are the true ends, so the finished members are a prefix of the batch
            while completions and completions[0][0] <= t:
                running.discard(heapq.heappop(completions)[1])
            batch.drop_through(t)
        elif running:
            rebuild = False
            for j in sorted(running):
                if start[j] + true_out[j] <= t:
                    running.discard(j)
                    rebuild = True
                elif start[j] + belief[j] <= t:
                    belief[j] = min(2 * (t - start[j]), memory - prompt[j])
                    rebuild = True
            # evict before step t + 1 if the true usage would exceed M
            usage = sum(prompt[j] + t + 1 - start[j] for j in running)
            while usage > memory:
                victim = max(running, key=lambda j: rank[j])
                running.discard(victim)
                usage -= prompt[victim] + t + 1 - start[victim]
                evictions += 1
                wasted += t - start[victim]
                segments.append((requests[victim].id, start[victim], t))
                start[victim] = -1
                _push(waiting, rank[victim], backfill)
                rebuild = True
            if rebuild:
                batch.rebuild([(start[j] + belief[j], prompt[j] - start[j]) for j in running])
        while next_arrival < n and arrival[arrivals[next_arrival]] <= t:
            _push(waiting, rank[arrivals[next_arrival]], backfill)
            next_arrival += 1

        if waiting:
            for i in _admit(batch, memory, t, waiting, order, prompt, belief, backfill):
                start[i] = t
                running.add(i)
                admission_order.append(i)
                if exact:
                    heapq.heappush(completions, (t + true_out[i], i))

        # the next step at which anything can change
        horizon = arrival[arrivals[next_arrival]] if next_arrival < n else None
        if waiting:
            if backfill:
                seen: dict[tuple[int, int], int] = {}
                for r in waiting:
                    i = order[r]
                    shape = (prompt[i], belief[i])
                    if shape not in seen:
                        seen[shape] = batch.earliest_start(memory, prompt[i], belief[i], t + 1)
                    horizon = _earlier(horizon, seen[shape])
            else:
                head = order[waiting[0]]
                horizon = _earlier(horizon, batch.earliest_start(memory, prompt[head], belief[head], t + 1))
        if exact:
            if every_completion_is_event and completions:
                horizon = _earlier(horizon, completions[0][0])
        elif running:
            for j in running:
                true_end = start[j] + true_out[j]
                believed_end = start[j] + belief[j]
                if every_completion_is_event or true_end < believed_end:
                    horizon = _earlier(horizon, true_end)
                if believed_end < true_end:
                    horizon = _earlier(horizon, believed_end)
            overflow = _first_overflow(memory, t, running, start, prompt, true_out)
            if overflow is not None:
                horizon = _earlier(horizon, overflow - 1)
        if observer is not None and waiting:
            active = sorted(running)
            observer(
                BlockedInterval(
                    first_step=t,
                    end_step=horizon if horizon is not None else t + 1,
                    waiting=tuple(requests[order[r]].id for r in _in_order(waiting, backfill)),
                    running=tuple(requests[j].id for j in active),
                    running_peak_mass=sum(prompt[j] + true_out[j] for j in active),
                )
            )
        if horizon is None:
            break
        t = horizon

    starts = {requests[i].id: start[i] for i in range(n)}
    extra: dict[str, Any] = {}
    if hasattr(policy_obj, "parameters"):
        theta, o0, o1 = policy_obj.parameters(predicted)
        extra = {"theta": theta, "short_length": o0, "long_length": o1}
    return SimulationResult(
        policy=policy_obj.name,
        predictor=predictor_obj.name,
        backfill=backfill,
        starts=starts,
        completions={requests[i].id: start[i] + true_out[i] for i in range(n)},
        admission_order=tuple(requests[i].id for i in admission_order),
        evictions=evictions,
        wasted_tokens=wasted,
        evicted_segments=tuple(segments),
        decisions=decisions,
        extra=extra,
    )


def _earlier(current: int | None, candidate: int) -> int:
    return candidate if current is None or candidate < current else current


def _push(waiting: list[int], item: int, backfill: bool) -> None:
    if backfill:
        bisect.insort(waiting, item)
    else:
        heapq.heappush(waiting, item)


def _in_order(waiting: list[int], backfill: bool) -> list[int]:
    return list(waiting) if backfill else sorted(waiting)


def _admit(
    batch: ForwardCheck,
    memory: int,
    t: int,
    waiting: list[int],
    order: list[int],
    prompt: list[int],
    belief: list[int],
    backfill: bool,
) -> list[int]:
    """Scan the waiting requests in rank order with :func:`scan_admissions`; remove the admitted."""
    if backfill:
        candidates = [(r, prompt[order[r]], belief[order[r]]) for r in waiting]
        admitted_ranks = scan_admissions(batch, memory, t, candidates, True)
        if admitted_ranks:
            taken = set(admitted_ranks)
            waiting[:] = [r for r in waiting if r not in taken]
        return [order[r] for r in admitted_ranks]
    admitted = []
    while waiting:
        i = order[waiting[0]]
        if not scan_admissions(batch, memory, t, [(i, prompt[i], belief[i])], False):
            break
        heapq.heappop(waiting)
        admitted.append(i)
    return admitted


def _first_overflow(
    memory: int,
    t: int,
    running: set[int],
    start: list[int],
    prompt: list[int],
    true_out: list[int],
) -> int | None:
    """First step ``> t`` at which the true usage of ``running`` exceeds ``M``, if any."""
    members = sorted((start[j] + true_out[j], prompt[j] - start[j]) for j in running)
    count = len(members)
    offset = sum(c for _, c in members)
    previous = t
    for end, c in members:
        # on (previous, end] the active set is constant: usage = offset + count * step
        if offset + count * end > memory:
            return max(previous + 1, (memory - offset) // count + 1)
        previous = end
        offset -= c
        count -= 1
    return None
