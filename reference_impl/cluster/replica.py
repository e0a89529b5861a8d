"""One replica of a cluster: the simulator's engine, a seconds clock, and what a router may read.

A :class:`Replica` wraps a :class:`~geosched.reference_impl.engine.ReplicaEngine`, the very
engine :func:`~geosched.reference_impl.simulation.simulate` runs, so a replica schedules with the
same forward-looking check, the same head-of-line or backfill scan, the same evictions with
recompute and the same ties. What it adds is time in seconds.

**The clock** (:class:`StepClock`). Steps are numbered as in the simulator: a request started
at step ``x`` holds ``s + (k - x)`` tokens at steps ``x < k <= x + o``. Step ``k`` lasts
``d_k = c0 + c1 n_k + c2 U_k + c_p P_k`` seconds (:mod:`.steptime`), with ``n_k`` requests
holding ``U_k`` tokens at step ``k`` and ``P_k`` the prompts of those started at ``k - 1``; the
decision at step ``k`` happens at time ``tau_k = tau_0 + d_1 + ... + d_k``, ``tau_0 = 0``. An
empty replica still ticks at ``c0`` per step (an idle iteration), so every time maps to a step.
Between two changes of the running set the step time grows linearly (``U`` grows by ``n`` a
step), so the clock advances by closed-form sums over such segments, never step by step.

**Online arrivals.** A request arriving at ``T`` seconds joins the replica's queue at the first
step ``k`` with ``tau_k >= T``: the replica first processes every decision whose time is before
``T`` (:meth:`Replica.advance_to`), then the clock runs on to ``k``. Nothing placed later can
change steps ``<= k`` (a request admitted at ``k`` holds memory from ``k + 1``), so the engine
sees exactly the instance whose arrival steps are these ``k``: a single replica equals
:func:`~geosched.reference_impl.simulation.simulate` on it (tested), and with the unit step
model (``c0 = 1``, nothing else) ``k = ceil(T)`` and seconds are steps.

**vLLM-style preemption.** When beliefs are wrong, the engine evicts the lowest-priority running
requests before a step that would overflow ``M`` and requeues them with their original
arrival; they restart from scratch (recompute). vLLM's scheduler does the same when it cannot
allocate a KV block for a running sequence: it preempts the most recently arrived running
request (under the default FCFS priority, i.e. the lowest priority), frees its blocks and
recomputes it later (``PreemptionMode.RECOMPUTE``). Differences: vLLM preempts when a *block*
is missing (granularity 16 tokens here 1) and admits without a forward-looking check.

Example
-------
>>> from geosched.reference_impl.cluster.steptime import StepTimeModel
>>> from geosched.reference_impl.model import Request
>>> replica = Replica(0, StepTimeModel.unit(12))
>>> [replica.place(Request(f"r{k}", 0, s, o), time=0.0, key=s * o + (o * o + o) // 2, belief=o, position=k)
...  for k, (s, o) in enumerate([(6, 3), (1, 5)])]
[0, 1]
>>> replica.finish()
>>> replica.engine.start, replica.completion_time
([5, 0], [8.0, 5.0])
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

from geosched.reference_impl.cluster.steptime import StepTimeModel
from geosched.reference_impl.engine import ReplicaEngine
from geosched.reference_impl.model import Request

__all__ = ["StepClock", "Replica", "RequestStats"]


class StepClock:
    """The seconds clock of one replica (module docstring): ``time`` is ``tau`` of ``step``.

    Members are runs of requests, ``(prompt - start)`` offsets ending at their true last step;
    ``count``/``offset`` describe the members alive at step ``step + 1``.
    """

    def __init__(self, model: StepTimeModel) -> None:
        self.c0, self.c1, self.c2, self.c_prefill = model.c0, model.c1, model.c2, model.c_prefill
        self.step = 0
        self.time = 0.0
        self.count = 0  # members alive at step self.step + 1
        self.offset = 0  # sum of (prompt - start) over them: they hold offset + count * k at step k
        self.started = 0  # sum of start steps over them (for the tokens decoded so far)
        self.prefill = 0  # prompt tokens prefilled in step self.step + 1
        self._ends: list[tuple[int, int, int]] = []  # heap of (last step, handle, start)
        self._alive: dict[int, tuple[int, int]] = {}  # handle -> (start, prompt) of the current run
        self.finished: list[tuple[int, float]] = []  # (handle, completion time), in completion order

    @property
    def kv_in_use(self) -> int:
        """Tokens held at the current step by the requests that are still running after it."""
        return self.offset + self.count * self.step

    def join(self, handle: int, prompt: int, start: int, last_step: int) -> None:
        """A run starts at ``start`` (the current step) and would end at ``last_step``."""
        self._alive[handle] = (start, prompt)
        self.count += 1
        self.offset += prompt - start
        self.started += start
        self.prefill += prompt
        heapq.heappush(self._ends, (last_step, handle, start))

    def leave(self, handle: int) -> None:
        """The current run of ``handle`` stops after the current step (an eviction)."""
        start, prompt = self._alive.pop(handle)
        self.count -= 1
        self.offset -= prompt - start
        self.started -= start

    def _next_end(self) -> int | None:
        ends = self._ends
        while ends and self._alive.get(ends[0][1], (None,))[0] != ends[0][2]:
            heapq.heappop(ends)  # an evicted run's stale entry
        return ends[0][0] if ends else None

    def _span(self, first: int, last: int) -> float:
        """Seconds of steps ``first..last`` with the current members and no prefill."""
        length = last - first + 1
        base = self.c0 + self.c1 * self.count + self.c2 * self.offset
        return length * base + self.c2 * self.count * (first + last) * length / 2

    def _close(self, last: int, seconds: float) -> None:
        self.step = last
        self.time += seconds
        ends = self._ends
        while ends and ends[0][0] == last:
            _, handle, start = heapq.heappop(ends)
            if self._alive.get(handle, (None,))[0] == start:
                self.leave(handle)
                self.finished.append((handle, self.time))

    def _first_reaching(self, first: int, last: int | None, target: float) -> int:
        """Smallest ``m >= first`` (``<= last`` when given) with ``time + span(first, m) >= target``;
        ``last`` when even that is short of it."""
        gap = target - self.time
        if last is None:  # no member: every step lasts c0 (count and offset are 0)
            steps = max(1, math.ceil(gap / self.c0))
            while self.time + steps * self.c0 < target:
                steps += 1
            while steps > 1 and self.time + (steps - 1) * self.c0 >= target:
                steps -= 1
            return first + steps - 1
        lo, hi = first, last
        if self._span(first, hi) < gap:
            return last
        while lo < hi:
            mid = (lo + hi) // 2
            if self._span(first, mid) >= gap:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def advance(self, *, until_step: int | None = None, until_time: float | None = None) -> None:
        """Run forward to ``until_step``, or to the first step whose time reaches ``until_time``
        (whichever comes first; at least one of them must be given)."""
        while True:
            if until_step is not None and self.step >= until_step:
                return
            if until_time is not None and self.time >= until_time:
                return
            first = self.step + 1
            if self.prefill:
                seconds = self._span(first, first) + self.c_prefill * self.prefill
                self.prefill = 0
                self._close(first, seconds)
                continue
            last = self._next_end()
            if until_step is not None:
                last = until_step if last is None else min(last, until_step)
            if until_time is not None:
                last = self._first_reaching(first, last, until_time)
            if last is None:
                raise ValueError("StepClock.advance needs until_step or until_time")
            self._close(last, self._span(first, last))

    def drain(self) -> None:
        """Run until every member has finished."""
        while (last := self._next_end()) is not None:
            self.advance(until_step=last)


@dataclass
class RequestStats:
    """What the router and the local order know of a request: its predicted distribution's moments."""

    mean: float  # E[o]
    volume: float  # E[v] = s E[o] + (E[o^2] + E[o]) / 2
    reserve: int  # output tokens reserved by the memory check (a safety quantile, or the belief)


@dataclass
class Replica:
    """A replica: engine, clock, and running sums a router reads in O(1) (module docstring)."""

    index: int  # position in the cluster
    model: StepTimeModel  # timings and the KV budget M
    backfill: bool = False
    engine: ReplicaEngine = field(init=False)
    clock: StepClock = field(init=False)
    requests: list[Request] = field(default_factory=list)  # by handle
    positions: list[int] = field(default_factory=list)  # workload position of each handle
    arrival_time: list[float] = field(default_factory=list)  # seconds
    start_time: list[float] = field(default_factory=list)  # seconds of the (final) admission
    completion_time: list[float] = field(default_factory=list)  # seconds (nan until finished)
    unfinished: int = 0  # placed and not finished
    reserved: int = 0  # sum of prompt + reserve over unfinished requests
    expected_tokens: float = 0.0  # sum of E[o] over unfinished requests
    prompt_tokens: int = 0  # sum of prompts over placed, not yet admitted requests
    _stats: list[RequestStats | None] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.engine = ReplicaEngine(self.model.memory, backfill=self.backfill, listener=self)
        self.clock = StepClock(self.model)

    # ----------------------------------------------------------------- the engine's listener
    def before_decision(self, step: int) -> None:
        self.clock.advance(until_step=step)
        self._collect()

    def admitted(self, handle: int, step: int) -> None:
        request = self.requests[handle]
        self.clock.join(handle, request.prompt, step, step + request.output)
        self.start_time[handle] = self.clock.time
        self.prompt_tokens -= request.prompt

    def restarted(self, handle: int, step: int) -> None:
        self.clock.leave(handle)
        self.prompt_tokens += self.requests[handle].prompt

    # ----------------------------------------------------------------- driving
    def advance_to(self, time: float) -> None:
        """Process every decision before ``time`` and run the clock to the first step at or after it."""
        engine, clock = self.engine, self.clock
        while True:
            upcoming = engine.next_decision
            clock.advance(until_step=upcoming, until_time=time)
            if upcoming is not None and clock.step == upcoming and clock.time < time:
                engine.step()
                continue
            self._collect()
            return

    def place(self, request: Request, *, time: float, key, belief: int, position: int,
              stats: RequestStats | None = None) -> int:
        """Queue ``request`` arriving at ``time`` seconds; returns its handle."""
        self.advance_to(time)
        handle = self.engine.submit(request, key=key, belief=belief, position=position, arrival=self.clock.step)
        self.requests.append(request)
        self.positions.append(position)
        self.arrival_time.append(time)
        self.start_time.append(math.nan)
        self.completion_time.append(math.nan)
        self._stats.append(stats)
        self.unfinished += 1
        self.prompt_tokens += request.prompt
        if stats is not None:
            self.reserved += request.prompt + stats.reserve
            self.expected_tokens += stats.mean
        return handle

    def finish(self) -> None:
        """Run every remaining decision and let every request complete."""
        self.engine.run()
        self.clock.drain()
        self._collect()

    def _collect(self) -> None:
        finished = self.clock.finished
        if not finished:
            return
        for handle, at in finished:
            self.completion_time[handle] = at
            self.unfinished -= 1
            stats = self._stats[handle]
            if stats is not None:
                self.reserved -= self.requests[handle].prompt + stats.reserve
                self.expected_tokens -= stats.mean
        finished.clear()

    # ----------------------------------------------------------------- what a router reads
    @property
    def running(self) -> int:
        """Requests decoding after the current step."""
        return self.clock.count

    @property
    def waiting(self) -> int:
        """Placed requests not running (queued, or admitted at a decision the clock has not passed)."""
        return self.unfinished - self.clock.count

    @property
    def decoded_tokens(self) -> int:
        """Output tokens produced so far by the running requests."""
        return self.clock.count * self.clock.step - self.clock.started
