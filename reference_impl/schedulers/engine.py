"""The step engine: any scheduler of the protocol, run in the exact model with restarts.

At every decision step ``t`` (the semantics of :mod:`geosched.reference_impl.scheduling`):

1. runs that complete at ``t`` (``start + o - kept == t``) leave;
2. requests with ``a <= t`` join the waiting list (in ``(arrival, position)`` order);
3. the scheduler sees a :class:`~geosched.reference_impl.scheduling.SchedulerState` (output
   lengths only if it declares ``clairvoyant``) and returns a ``Decision``;
4. the engine checks it (ids waiting or running, no undeclared preemption), ends the
   preempted runs at ``t``, starts the admitted ones at ``t`` (a request preempted at ``t``
   may restart at ``t``: its new run holds memory from ``t + 1``), and checks that the batch holds
   at most ``M`` tokens at step ``t + 1`` (each run holds ``s + kept + (t + 1 - start)``, rounded up to
   whole blocks of the instance's ``block_size`` tokens at block grain).

Between completions a running batch only grows, so checking every next step is checking every
step. The next decision step is ``t + 1``, or later when the decision's ``quiet_until`` says
so and no request arrives or completes before (``skip=False`` ignores the promise: the tests
check that both give the same runs).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.schedulers.vllm import VllmFcfs
>>> run = run_scheduler(burst_instance(12, [(6, 3), (1, 5)]), VllmFcfs())
>>> run.runs["r1"], run.preemptions
((Run(start=0, end=2, kept=0), Run(start=3, end=6, kept=2)), 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from geosched.reference_impl.model import Instance, block_tokens
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

__all__ = ["StepRun", "run_scheduler", "capabilities_of"]


@dataclass(frozen=True)
class StepRun:
    """What the step engine produced (the simulator wraps it in its result)."""

    runs: dict[str, tuple[Run, ...]]  # every run of every request, in order; the last completes
    admission_order: tuple[str, ...]  # ids in the order their final runs started
    preemptions: int  # runs ended before completion
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
        self.runs: list[list[Run]] = [[] for _ in self.requests]
        self.admission_order: list[int] = []
        self.admissions: list[tuple[int, str]] = []
        self.done = 0
        self.preemptions = 0
        self.lost = 0
        self.recomputed = 0

    def end_of(self, k: int) -> int:
        return self.start[k] + self.requests[k].output - self.kept[k]

    def complete(self, t: int) -> None:
        for k in [k for k in self.running if self.end_of(k) == t]:
            self.runs[k].append(Run(self.start[k], t, self.kept[k]))
            self.running.remove(k)
            self.done += 1

    def arrive(self, t: int) -> None:
        while self.next_arrival < len(self.arrivals) and self.requests[self.arrivals[self.next_arrival]].arrival <= t:
            self.waiting.append(self.arrivals[self.next_arrival])
            self.next_arrival += 1

    def state(self, t: int) -> SchedulerState:
        reqs, hide = self.requests, not self.clairvoyant
        waiting = tuple(WaitingView(reqs[k].id, reqs[k].arrival, reqs[k].prompt, k, len(self.runs[k]), self.kept[k],
                                    None if hide else reqs[k].output) for k in self.waiting)
        running = []
        for k in self.running:
            age = self.kept[k] + t - self.start[k]
            running.append(RunningView(reqs[k].id, reqs[k].arrival, reqs[k].prompt, k, self.start[k], age,
                                       reqs[k].prompt + age, len(self.runs[k]), None if hide else reqs[k].output))
        return SchedulerState(t, self.instance.memory, waiting, tuple(running), self.block_size)

    def apply(self, t: int, decision: Decision) -> None:
        if not isinstance(decision, Decision):
            raise DecisionError(f"scheduler {self.name!r} at step {t}", type(decision).__name__,
                                "decide() must return a Decision")
        preempt = self._ids(t, decision.preempt, self.running, "preempt", "running")
        if preempt and not self.preempts:
            raise DecisionError(f"scheduler {self.name!r} at step {t}", list(decision.preempt),
                                "preempts, but does not declare preempts = True")
        admit = self._ids(t, decision.admit, self.waiting + preempt, "admit", "waiting (or just preempted)")
        for k in preempt:
            decoded = t - self.start[k]
            self.runs[k].append(Run(self.start[k], t, self.kept[k]))
            self.running.remove(k)
            self.waiting.append(k)
            self.preemptions += 1
            if self.keep:
                self.kept[k] += decoded
                self.recomputed += self.requests[k].prompt + self.kept[k]
            else:
                self.lost += decoded + self.kept[k]
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


def run_scheduler(instance: Instance, scheduler: Any, *, skip: bool = True, max_steps: int | None = None) -> StepRun:
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
        Decision steps before the run is declared a livelock (default: generous, from the
        instance: every request run alone, 64 times over).

    Returns
    -------
    StepRun
        Every run of every request, preemptions, lost tokens.

    Raises
    ------
    DecisionError
        When the scheduler breaks the protocol or makes no progress within ``max_steps``.
    CapabilityError
        When a non-clairvoyant scheduler reads an output length.
    """
    book = _Book(instance, scheduler)
    limit = max_steps if max_steps is not None else 64 * (instance.n + sum(r.prompt + r.output for r in
                                                                            instance.requests)) + 64
    t = min((r.arrival for r in instance.requests), default=0)
    decisions = 0
    while book.done < instance.n:
        book.complete(t)
        book.arrive(t)
        decision = Decision()
        if book.waiting or book.running:
            decision = scheduler.decide(book.state(t))
            book.apply(t, decision)
            decisions += 1
            if decisions > limit:
                raise DecisionError(f"scheduler {book.name!r}", decisions,
                                    f"made no complete schedule within {limit} decision steps (a livelock?)")
        t = book.next_step(t, decision, skip)
    runs = {r.id: tuple(book.runs[k]) for k, r in enumerate(instance.requests)}
    last = {k: pos for pos, k in enumerate(book.admission_order)}  # the final admission of each
    order = tuple(instance.requests[k].id for k in sorted(last, key=last.__getitem__))
    return StepRun(runs, order, book.preemptions, book.lost, book.recomputed, decisions, tuple(book.admissions))
