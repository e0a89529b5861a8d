"""The two engines of the exact model, on the one admission check and with one restart record.

*Engine* means one thing in geosched: the loop that advances the exact model's time and applies
decisions to a batch (``docs/architecture.md``). There are two, for two kinds of decision-maker:

* :class:`ReplicaEngine`, the **event-driven engine** of the priority rules (Kong et al., arXiv
  2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1). The state changes only at
  arrivals, admissions and completions, so it jumps between them; cost grows with the number of
  requests, not of steps. A blocked candidate can become admissible with no event at all (its
  staircase shifts right as its start is delayed): :meth:`~.admission.ForwardCheck.earliest_start`
  computes that step exactly. At a decision step ``t``: completed requests leave; (with predictions)
  overrunning beliefs are re-estimated to twice their age (capped at ``M - s``, the longest output a
  valid request can have) and, if the next step's true usage would exceed ``M``, the lowest-priority
  running requests, largest ``(key, arrival, position)`` first, are restarted from scratch until it
  fits (an *eviction*: recompute semantics, the outputs are lost and the request waits again with its
  original arrival); arrivals join the queue; the queue is scanned in ``(key, arrival, position)``
  order by :func:`~.admission.admit_from_queue`, strict head-of-line unless ``backfill``. Memory never
  exceeds ``M``, and with exact predictions nothing is ever evicted. ``tests/stepwise_reference.py``
  is a naive per-step implementation; the two agree on every generated instance.
* :func:`run_scheduler`, the **step engine** of any scheduler of the protocol
  (:mod:`geosched.reference_impl.scheduling`): at every decision step ``t``

  1. runs that complete at ``t`` (``start + o - kept == t``) leave;
  2. requests with ``a <= t`` join the waiting list (in ``(arrival, position)`` order);
  3. the scheduler sees a :class:`~geosched.reference_impl.scheduling.SchedulerState` (output
     lengths only if it declares ``clairvoyant``) and returns a ``Decision``;
  4. the engine checks it field by field (``admit`` and ``preempt`` tuples of ids waiting or running,
     ``quiet_until`` an integer or None, no undeclared preemption), ends the preempted
     runs at ``t``, starts the admitted ones at ``t`` (a request preempted at ``t`` may restart at
     ``t``: its new run holds memory from ``t + 1``), and checks that the batch holds at most ``M``
     tokens at step ``t + 1`` (each run holds ``s + kept + (t + 1 - start)``, rounded up to whole
     blocks of the instance's ``block_size`` tokens at block grain).

  Between completions a running batch only grows, so checking every next step is checking every
  step. The next decision step is ``t + 1``, or later when the decision's ``quiet_until`` says so
  and no request arrives or completes before (``skip=False`` ignores the promise: the tests check
  that both give the same runs).

  Its work is bounded before it starts (:mod:`geosched.limits`): a run whose span is at least
  ``max_steps`` steps is refused, one that decides more often stops at the limit, and each
  ``decide()`` call runs under ``decide_seconds``; a ``decide()`` that raises is one line naming the
  scheduler, the step and the line that raised.

Both keep their restarts in one record, :class:`Restarts`: the runs that ended before their request
completed, the outputs lost and the tokens recomputed.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.schedulers.vllm import VllmFcfs
>>> run = run_scheduler(burst_instance(12, [(6, 3), (1, 5)]), VllmFcfs())
>>> run.runs["r1"], run.restarts
((Run(start=0, end=2, kept=0), Run(start=3, end=6, kept=2)), 1)
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from geosched import limits
from geosched.errors import GeoschedError, ValidationError
from geosched.reference_impl.admission import ForwardCheck, admit_from_queue
from geosched.reference_impl.model import Instance, Request, block_tokens
from geosched.reference_impl.scheduling import (
    Capability,
    Decision,
    DecisionError,
    Restart,
    Run,
    RunningView,
    SchedulerState,
    WaitingView,
)

__all__ = ["BlockedInterval", "EngineListener", "Restarts", "ReplicaEngine", "StepRun", "run_scheduler",
           "capabilities_of"]


@dataclass(frozen=True)
class BlockedInterval:
    """Steps ``first_step <= t < end_step`` during which some arrived request was waiting."""

    first_step: int  # first decision step of the interval
    end_step: int  # first step after it (the next event)
    waiting: tuple[str, ...]  # waiting ids, in priority order (the head first)
    running: tuple[str, ...]  # the active batch: requests holding memory at step first_step + 1
    running_peak_mass: int  # sum of (prompt + output) over the running batch


class Restarts:
    """The one restart record of both engines: every run that ended before its request completed.

    A *restart* ends a request's run at step ``t`` (the run held memory through ``t``) and puts the
    request back in the queue. The event-driven engine restarts a request when its prediction ran
    out and memory overflows (an eviction, from scratch); the step engine when a scheduler preempts
    (from scratch, or keeping the outputs decoded so far: :class:`~geosched.reference_impl.scheduling.Restart`).
    ``count`` is the number of such runs, ``lost_tokens`` the outputs they decoded that the next run
    does not keep, ``recomputed_tokens`` the tokens re-prefilled when a run resumes with kept
    outputs. The runs are :class:`~geosched.reference_impl.scheduling.Run`\\ s: what the checker
    reads (:mod:`geosched.reference_impl.checker`, schedules with restarts).

    >>> log = Restarts()
    >>> log.record(3, Run(0, 2), lost=2)
    >>> log.count, log.lost_tokens, log.runs(3, Run(4, 9))
    (1, 2, (Run(start=0, end=2, kept=0), Run(start=4, end=9, kept=0)))
    """

    __slots__ = ("earlier", "count", "lost_tokens", "recomputed_tokens")

    def __init__(self) -> None:
        self.earlier: dict[int, list[Run]] = {}  # request -> its runs that ended before completion, in order
        self.count = 0
        self.lost_tokens = 0
        self.recomputed_tokens = 0

    def record(self, request: int, run: Run, *, lost: int, recomputed: int = 0) -> None:
        """One run of ``request`` ended before completion."""
        self.earlier.setdefault(request, []).append(run)
        self.count += 1
        self.lost_tokens += lost
        self.recomputed_tokens += recomputed

    def runs(self, request: int, final: Run) -> tuple[Run, ...]:
        """Every run of ``request``: the earlier ones, then ``final`` (the one that completes)."""
        return (*self.earlier.get(request, ()), final)


class EngineListener(Protocol):
    """What a :class:`ReplicaEngine` tells an attached listener (for example a seconds clock).

    Handles are positions in submission order. ``before_decision`` is called before anything
    changes at decision step ``t``; ``admitted`` when a request starts at ``t`` (it holds
    memory from step ``t + 1``); ``restarted`` when a running request's run is ended at ``t`` before
    it completes (it held memory through step ``t``; see :class:`Restarts`).
    """

    def before_decision(self, step: int) -> None: ...

    def admitted(self, handle: int, step: int) -> None: ...

    def restarted(self, handle: int, step: int) -> None: ...


class ReplicaEngine:
    """One replica's continuous-batching scheduler, steppable, fed at once or online.

    This is the state and the steps of :func:`~geosched.reference_impl.simulation.simulate` for the
    priority rules, public so that a cluster of
    replicas (:mod:`geosched.reference_impl.cluster`) runs the very same code: requests are
    submitted as a router places them (:meth:`submit`), the engine is advanced decision by
    decision (:meth:`step`, :meth:`advance`, :meth:`run`) and its state can be read in
    between (``running``, ``waiting``, ``batch``, ``start``).

    Requests are referred to by their *handle*, the position in submission order. Each has a
    priority *item*; waiting requests are scanned in increasing item order. When the whole
    instance is known in advance (:meth:`from_instance`, what :func:`simulate` uses) the
    items are the ranks ``0..n-1`` of ``(key, arrival, position)`` and ``order`` is the list
    rank -> handle; requests submitted online use the tuple ``(key, arrival, position)``
    itself as the item and ``order`` is a dict item -> handle. Both give the same order.
    The waiting queue holds items: a heap for strict head-of-line, a sorted list with backfill.

    Example
    -------
    >>> from geosched.reference_impl.model import Request
    >>> engine = ReplicaEngine(12)
    >>> [engine.submit(Request(f"r{k}", 0, s, o), key=s * o + (o * o + o) // 2, belief=o, position=k)
    ...  for k, (s, o) in enumerate([(6, 3), (1, 5)])]
    [0, 1]
    >>> engine.run()
    >>> engine.start
    [5, 0]
    """

    def __init__(self, memory: int, *, backfill: bool = False,
                 observer: Callable[[BlockedInterval], None] | None = None,
                 listener: EngineListener | None = None) -> None:
        self.memory = memory
        self.backfill = backfill
        self.observer = observer
        self.listener = listener
        self.ids: list[str] = []
        self.prompt: list[int] = []
        self.true_out: list[int] = []
        self.arrival: list[int] = []
        self.belief: list[int] = []
        self.rank: list[Any] = []  # handle -> priority item
        self.order: Any = {}  # priority item -> handle (a list when the items are ranks)
        self.exact = True  # every belief equals the true length (no eviction can happen)
        self.by_arrival: list[int] = []  # handles in arrival order
        self.next_arrival = 0
        self.waiting: list[Any] = []
        self.start: list[int] = []
        self.running: set[int] = set()
        self.completions: list[tuple[int, int]] = []  # heap of (true end, request), exact mode only
        self.batch = ForwardCheck()
        self.admission_order: list[int] = []
        self.restarts = Restarts()  # runs ended by an eviction (predictions only)
        self.decisions = 0
        self.last_decision: int | None = None  # the last decision step processed
        self.next_decision: int | None = None  # the next one (None: nothing can happen)

    @classmethod
    def from_instance(cls, instance: Instance, keys: Sequence[Any], predicted: Sequence[int], *,
                      backfill: bool = False, observer: Callable[[BlockedInterval], None] | None = None,
                      listener: EngineListener | None = None) -> ReplicaEngine:
        """An engine holding every request of ``instance``, ranked by ``(key, arrival, position)``."""
        engine = cls(instance.memory, backfill=backfill, observer=observer, listener=listener)
        engine._load(instance, keys, predicted)
        return engine

    def _load(self, instance: Instance, keys: Sequence[Any], predicted: Sequence[int]) -> None:
        requests = instance.requests
        n = len(requests)
        self.ids = [r.id for r in requests]
        self.prompt = [r.prompt for r in requests]
        self.true_out = [r.output for r in requests]
        self.arrival = [r.arrival for r in requests]
        self.order = sorted(range(n), key=lambda i: (keys[i], self.arrival[i], i))
        self.rank = [0] * n
        for position, i in enumerate(self.order):
            self.rank[i] = position
        # A prediction above M - s is impossible for a valid request and would block it forever.
        self.belief = [min(p, self.memory - s) for p, s in zip(predicted, self.prompt)]
        self.exact = self.belief == self.true_out
        self.by_arrival = sorted(range(n), key=lambda i: self.arrival[i])
        self.start = [-1] * n
        self.next_decision = self.arrival[self.by_arrival[0]] if n else None

    def submit(self, request: Request, *, key: Any, belief: int, position: int,
               arrival: int | None = None) -> int:
        """Add one request online; returns its handle.

        ``arrival`` (default ``request.arrival``) is the step at which it joins the queue: it
        must not precede an earlier submission's, nor the last decision processed. Ties are
        broken by ``(key, arrival, position)``; ``position`` must be unique in the engine.
        """
        arrival = request.arrival if arrival is None else arrival
        if self.by_arrival and arrival < self.arrival[self.by_arrival[-1]]:
            raise ValidationError(f"request {request.id!r}: arrival", arrival,
                                  "must not precede an earlier submission's arrival")
        if self.last_decision is not None and arrival <= self.last_decision:
            raise ValidationError(f"request {request.id!r}: arrival", arrival,
                                  f"must come after the last decision step {self.last_decision}")
        if request.peak > self.memory:
            raise ValidationError(f"request {request.id!r}: prompt + output", request.peak,
                                  f"must be <= memory {self.memory}, else the request can never run")
        if isinstance(belief, bool) or int(belief) != belief or belief < 1:
            raise ValidationError(f"request {request.id!r}: belief", belief, "must be an integer >= 1")
        handle = len(self.ids)
        item = (key, arrival, position)
        if item in self.order:
            raise ValidationError(f"request {request.id!r}: position", position, "must be unique in the engine")
        self.order[item] = handle
        self.rank.append(item)
        self.ids.append(request.id)
        self.prompt.append(request.prompt)
        self.true_out.append(request.output)
        self.arrival.append(arrival)
        self.belief.append(min(int(belief), self.memory - request.prompt))
        self.exact = self.exact and self.belief[-1] == request.output
        self.start.append(-1)
        self.by_arrival.append(handle)
        self.next_decision = arrival if self.next_decision is None else min(self.next_decision, arrival)
        return handle

    def step(self) -> int | None:
        """Process the next decision step; returns the one after it (None: nothing left)."""
        t = self.next_decision
        if t is None:
            return None
        if self.listener is not None:
            self.listener.before_decision(t)
        self.decisions += 1
        if self.exact:
            self._retire_exact(t)
        elif self.running:
            self._retire_and_evict(t)
        self._enqueue_arrivals(t)
        if self.waiting:
            self._admit(t)
        horizon = self._next_event(t)
        if self.observer is not None and self.waiting:
            self._observe(t, horizon)
        self.last_decision = t
        self.next_decision = horizon
        return horizon

    def advance(self, until: int) -> None:
        """Process every decision step ``< until``."""
        while self.next_decision is not None and self.next_decision < until:
            self.step()

    def run(self) -> None:
        """Process decision steps until nothing is left to happen."""
        while self.next_decision is not None:
            self.step()

    # ------------------------------------------------------------------ the steps
    def _retire_exact(self, t: int) -> None:
        # believed ends are the true ends, so the finished members are a prefix of the batch
        completions = self.completions
        while completions and completions[0][0] <= t:
            self.running.discard(heapq.heappop(completions)[1])
        self.batch.drop_through(t)

    def _retire_and_evict(self, t: int) -> None:
        """With predictions: finished requests leave, overrun beliefs double, and the lowest
        priority requests are evicted before step ``t + 1`` if it would exceed ``M`` (a restart
        from scratch: recompute semantics)."""
        start, prompt, belief = self.start, self.prompt, self.belief
        changed = False
        for j in sorted(self.running):
            if start[j] + self.true_out[j] <= t:
                self.running.discard(j)
                changed = True
            elif start[j] + belief[j] <= t:
                belief[j] = min(2 * (t - start[j]), self.memory - prompt[j])
                changed = True
        usage = sum(prompt[j] + t + 1 - start[j] for j in self.running)
        while usage > self.memory:
            victim = max(self.running, key=lambda j: self.rank[j])
            self.running.discard(victim)
            usage -= prompt[victim] + t + 1 - start[victim]
            self.restarts.record(victim, Run(start[victim], t), lost=t - start[victim])  # recompute: all lost
            if self.listener is not None:
                self.listener.restarted(victim, t)
            start[victim] = -1
            self._push(self.rank[victim])
            changed = True
        if changed:
            self.batch.rebuild([(start[j] + belief[j], prompt[j] - start[j]) for j in self.running])

    def _enqueue_arrivals(self, t: int) -> None:
        n = len(self.by_arrival)
        while self.next_arrival < n and self.arrival[self.by_arrival[self.next_arrival]] <= t:
            self._push(self.rank[self.by_arrival[self.next_arrival]])
            self.next_arrival += 1

    def _admit(self, t: int) -> None:
        for i in admit_from_queue(self.batch, self.memory, t, self.waiting, self.order, self.prompt, self.belief,
                                  self.backfill):
            self.start[i] = t
            self.running.add(i)
            self.admission_order.append(i)
            if self.exact:
                heapq.heappush(self.completions, (t + self.true_out[i], i))
            if self.listener is not None:
                self.listener.admitted(i, t)

    def _next_event(self, t: int) -> int | None:
        """The next step at which anything can change (None: the run is over)."""
        n = len(self.by_arrival)
        horizon = self.arrival[self.by_arrival[self.next_arrival]] if self.next_arrival < n else None
        if self.waiting:
            horizon = _earlier_opt(horizon, self._earliest_admission(t))
        every_completion = self.observer is not None
        if self.exact:
            if every_completion and self.completions:
                horizon = _earlier(horizon, self.completions[0][0])
        elif self.running:
            for j in self.running:
                true_end = self.start[j] + self.true_out[j]
                believed_end = self.start[j] + self.belief[j]
                if every_completion or true_end < believed_end:
                    horizon = _earlier(horizon, true_end)
                if believed_end < true_end:
                    horizon = _earlier(horizon, believed_end)
            overflow = _first_overflow(self.memory, t, self.running, self.start, self.prompt, self.true_out)
            if overflow is not None:
                horizon = _earlier(horizon, overflow - 1)
        return horizon

    def _earliest_admission(self, t: int) -> int:
        """The first step after ``t`` at which some waiting request could be admitted."""
        batch, prompt, belief, order = self.batch, self.prompt, self.belief, self.order
        if not self.backfill:
            head = order[self.waiting[0]]
            return batch.earliest_start(self.memory, prompt[head], belief[head], t + 1)
        seen: dict[tuple[int, int], int] = {}
        for r in self.waiting:
            i = order[r]
            shape = (prompt[i], belief[i])
            if shape not in seen:
                seen[shape] = batch.earliest_start(self.memory, prompt[i], belief[i], t + 1)
        return min(seen.values())

    def _observe(self, t: int, horizon: int | None) -> None:
        active = sorted(self.running)
        self.observer(
            BlockedInterval(
                first_step=t,
                end_step=horizon if horizon is not None else t + 1,
                waiting=tuple(self.ids[self.order[r]] for r in _in_order(self.waiting, self.backfill)),
                running=tuple(self.ids[j] for j in active),
                running_peak_mass=sum(self.prompt[j] + self.true_out[j] for j in active),
            )
        )

    def _push(self, item: Any) -> None:
        _push(self.waiting, item, self.backfill)


def _earlier_opt(current: int | None, candidate: int | None) -> int | None:
    return current if candidate is None else _earlier(current, candidate)


def _earlier(current: int | None, candidate: int) -> int:
    return candidate if current is None or candidate < current else current


def _push(waiting: list[Any], item: Any, backfill: bool) -> None:
    if backfill:
        bisect.insort(waiting, item)
    else:
        heapq.heappush(waiting, item)


def _in_order(waiting: list[Any], backfill: bool) -> list[Any]:
    return list(waiting) if backfill else sorted(waiting)


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


@dataclass(frozen=True)
class StepRun:
    """What the step engine produced (the simulator wraps it in its result)."""

    runs: dict[str, tuple[Run, ...]]  # every run of every request, in order; the last completes
    admission_order: tuple[str, ...]  # ids in the order their final runs started
    restarts: int  # runs ended before completion (Restarts.count)
    lost_tokens: int  # outputs decoded by runs and not carried into the next run
    recomputed_tokens: int  # Restart.KEEP_OUTPUTS: tokens re-prefilled on resumption (prompt + kept)
    decisions: int  # decision steps processed
    admissions: tuple[tuple[int, str], ...] = ()  # every (step, id) admission, in the engine's order
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def completions(self) -> dict[str, int]:
        """The completion step of every request: the end of its last run."""
        return {i: runs[-1].end for i, runs in self.runs.items()}


def capabilities_of(scheduler: Any) -> frozenset[Capability]:
    """The capabilities a scheduler object declares (its attributes, not a registry's word)."""
    caps = {Capability.SIMULATOR}
    if getattr(scheduler, "clairvoyant", False) is True:
        caps.add(Capability.CLAIRVOYANT)
    if getattr(scheduler, "preempts", False) is True:
        caps.add(Capability.PREEMPTS)
    return frozenset(caps)


class _Book:
    """The engine's state: per request (by position) its runs, restarts, kept outputs."""

    def __init__(self, instance: Instance, scheduler: Any) -> None:
        self.instance = instance
        self.block_size = instance.block_size
        self.requests = instance.requests
        self.name = getattr(scheduler, "name", type(scheduler).__name__)
        self.clairvoyant = getattr(scheduler, "clairvoyant", False) is True
        self.preempts = getattr(scheduler, "preempts", False) is True
        self.keep = getattr(scheduler, "restart", Restart.FROM_SCRATCH) is Restart.KEEP_OUTPUTS
        self.index = {r.id: k for k, r in enumerate(self.requests)}
        self.arrivals = sorted(range(len(self.requests)), key=lambda k: (self.requests[k].arrival, k))
        self.next_arrival = 0
        self.waiting: list[int] = []
        self.running: list[int] = []
        self.start: dict[int, int] = {}
        self.kept = [0] * len(self.requests)
        self.final: dict[int, Run] = {}  # the run that completed, per request
        self.restarts = Restarts()
        self.admission_order: list[int] = []
        self.admissions: list[tuple[int, str]] = []
        self.done = 0

    def restarts_of(self, k: int) -> int:
        return len(self.restarts.earlier.get(k, ()))

    def end_of(self, k: int) -> int:
        return self.start[k] + self.requests[k].output - self.kept[k]

    def complete(self, t: int) -> None:
        for k in [k for k in self.running if self.end_of(k) == t]:
            self.final[k] = Run(self.start[k], t, self.kept[k])
            self.running.remove(k)
            self.done += 1

    def arrive(self, t: int) -> None:
        while self.next_arrival < len(self.arrivals) and self.requests[self.arrivals[self.next_arrival]].arrival <= t:
            self.waiting.append(self.arrivals[self.next_arrival])
            self.next_arrival += 1

    def state(self, t: int) -> SchedulerState:
        reqs, hide = self.requests, not self.clairvoyant
        waiting = tuple(WaitingView(reqs[k].id, reqs[k].arrival, reqs[k].prompt, k, self.restarts_of(k), self.kept[k],
                                    None if hide else reqs[k].output) for k in self.waiting)
        running = []
        for k in self.running:
            age = self.kept[k] + t - self.start[k]
            running.append(RunningView(reqs[k].id, reqs[k].arrival, reqs[k].prompt, k, self.start[k], age,
                                       reqs[k].prompt + age, self.restarts_of(k), None if hide else reqs[k].output))
        return SchedulerState(t, self.instance.memory, waiting, tuple(running), self.block_size)

    def apply(self, t: int, decision: Decision) -> None:
        _check_decision(f"scheduler {self.name!r} at step {t}", decision)
        preempt = self._ids(t, decision.preempt, self.running, "preempt", "running")
        if preempt and not self.preempts:
            raise DecisionError(f"scheduler {self.name!r} at step {t}", list(decision.preempt),
                                "preempts, but does not declare preempts = True")
        admit = self._ids(t, decision.admit, self.waiting + preempt, "admit", "waiting (or just preempted)")
        for k in preempt:
            decoded, run = t - self.start[k], Run(self.start[k], t, self.kept[k])
            self.running.remove(k)
            self.waiting.append(k)
            if self.keep:
                self.kept[k] += decoded
                self.restarts.record(k, run, lost=0, recomputed=self.requests[k].prompt + self.kept[k])
            else:
                self.restarts.record(k, run, lost=decoded + self.kept[k])
                self.kept[k] = 0
        self.waiting.sort(key=lambda k: (self.requests[k].arrival, k))
        for k in admit:
            self.waiting.remove(k)
            self.running.append(k)
            self.start[k] = t
            self.admission_order.append(k)
            self.admissions.append((t, self.requests[k].id))
        self._check_memory(t)

    def _ids(self, t: int, ids: Sequence[str], pool: list[int], verb: str, where: str) -> list[int]:
        ks = [self.index.get(i, -1) for i in ids]
        if len(set(ks)) != len(ks) or any(k not in pool for k in ks):
            raise DecisionError(f"scheduler {self.name!r} at step {t}: {verb}", list(ids),
                                f"must name distinct {where} request ids")
        return ks

    def _check_memory(self, t: int) -> None:
        b = self.block_size
        used = sum(block_tokens(self.requests[k].prompt + self.kept[k] + t + 1 - self.start[k], b)
                   for k in self.running)
        if used > self.instance.memory:
            grain = f" (whole blocks of {b})" if b > 1 else ""
            raise DecisionError(f"scheduler {self.name!r} at step {t}", used,
                                f"the batch must fit M = {self.instance.memory} tokens{grain} at step {t + 1}")

    def next_step(self, t: int, decision: Decision, skip: bool) -> int:
        candidates = [t + 1]
        if skip and decision.quiet_until is not None and decision.quiet_until > t + 1:
            candidates = [decision.quiet_until]
            candidates += [self.end_of(k) for k in self.running]
            if self.next_arrival < len(self.arrivals):
                candidates.append(self.requests[self.arrivals[self.next_arrival]].arrival)
        elif not self.running and not self.waiting and self.next_arrival < len(self.arrivals):
            candidates = [self.requests[self.arrivals[self.next_arrival]].arrival]
        return max(t + 1, min(candidates))


def _check_decision(where: str, decision: Any) -> None:
    """A decision of the protocol, field by field: one line naming the field, never a TypeError later."""
    if not isinstance(decision, Decision):
        raise DecisionError(where, type(decision).__name__, "decide() must return a Decision")
    for name in ("admit", "preempt"):
        ids = getattr(decision, name)
        if not isinstance(ids, (tuple, list)):
            raise DecisionError(f"{where}: Decision.{name}", ids, "must be a tuple of request ids (strings)")
        for k, rid in enumerate(ids):
            if not isinstance(rid, str):
                raise DecisionError(f"{where}: Decision.{name}[{k}]", rid, "must be a request id (a string)")
    quiet = decision.quiet_until
    if quiet is not None and (isinstance(quiet, bool) or not isinstance(quiet, int)):
        raise DecisionError(f"{where}: Decision.quiet_until", quiet, "must be an integer step or None")


def _decide(scheduler: Any, state: SchedulerState, name: str) -> Any:
    """``scheduler.decide(state)``; an exception of the scheduler's own (not one of geosched's, which
    already names its field) becomes one line naming the scheduler, the step and where it was raised."""
    try:
        return scheduler.decide(state)
    except GeoschedError:
        raise
    except Exception as exc:  # noqa: BLE001 - a user's scheduler may raise anything: one line, not a traceback
        frame = exc.__traceback__
        while frame is not None and frame.tb_next is not None:
            frame = frame.tb_next
        where = f" (at {frame.tb_frame.f_code.co_filename}:{frame.tb_lineno})" if frame is not None else ""
        raise DecisionError(f"scheduler {name!r} at step {state.time}", f"{type(exc).__name__}: {exc}",
                            f"decide() raised{where}") from None


def run_scheduler(instance: Instance, scheduler: Any, *, skip: bool = True, max_steps: int | None = None,
                  decide_seconds: float | None = None) -> StepRun:
    """Run ``scheduler`` (an object of the protocol) on ``instance`` step by step.

    Parameters
    ----------
    instance : Instance
        The workload; memory is counted in whole blocks of its ``block_size`` tokens.
    scheduler : Scheduler
        A fresh scheduler object (it may keep state across the steps of this run).
    skip : bool
        Honour the decisions' ``quiet_until`` (skip steps the scheduler promises are empty).
    max_steps : int, optional
        The most steps the run may span and decide (default: the limit in force,
        :data:`geosched.limits.DEFAULT_MAX_STEPS`, or the command line's ``--max-steps``): a run of
        at least :func:`geosched.limits.busy_steps` steps past it is refused before its first step.
    decide_seconds : float, optional
        The most seconds one ``decide()`` call may take (default: the limit in force,
        ``--decide-seconds``).

    Returns
    -------
    StepRun
        Every run of every request, restarts, lost tokens.

    Raises
    ------
    DecisionError
        When the scheduler breaks the protocol (a field of its decision named), or its ``decide()`` raises.
    LimitError
        When the run would span more than ``max_steps`` steps (before it starts), decides more often,
        or a ``decide()`` call takes longer than ``decide_seconds``.
    CapabilityError
        When a non-clairvoyant scheduler reads an output length.
    """
    book = _Book(instance, scheduler)
    limit, what = limits.max_steps(max_steps), f"scheduler {book.name!r} on the step engine"
    limits.check_steps(limits.busy_steps((r.arrival, r.output) for r in instance.requests), limit, what)
    t = min((r.arrival for r in instance.requests), default=0)
    decisions = 0
    with limits.time_limited(decide_seconds, f"scheduler {book.name!r}") as call:
        while book.done < instance.n:
            book.complete(t)
            book.arrive(t)
            decision = Decision()
            if book.waiting or book.running:
                decision = call(_decide, scheduler, book.state(t), book.name)
                book.apply(t, decision)
                decisions += 1
                if decisions > limit:
                    raise limits.steps_exceeded(limit, what)
            t = book.next_step(t, decision, skip)
    runs = {r.id: book.restarts.runs(k, book.final[k]) for k, r in enumerate(instance.requests)}
    last = {k: pos for pos, k in enumerate(book.admission_order)}  # the final admission of each
    order = tuple(instance.requests[k].id for k in sorted(last, key=last.__getitem__))
    log = book.restarts
    return StepRun(runs, order, log.count, log.lost_tokens, log.recomputed_tokens, decisions, tuple(book.admissions))
