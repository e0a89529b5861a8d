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
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request, block_tokens
from geosched.reference_impl.policies import Policy, make_policy, parse_spec
from geosched.reference_impl.predictors import Predictor, make_predictor
from geosched.reference_impl.schedulers.engine import StepRun, capabilities_of, run_scheduler
from geosched.reference_impl.scheduling import (
    REGISTRY,
    Capability,
    Decision,
    Run,
    SchedulerState,
    is_file_spec,
    load_scheduler_class,
)
from geosched.results import Result

__all__ = [
    "SimulationResult",
    "BlockedInterval",
    "ForwardCheck",
    "simulate",
    "admission_step",
    "scan_admissions",
    "earliest_start",
    "ReplicaEngine",
    "EngineListener",
    "resolve",
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
class SimulationResult(Result):
    """What one simulation produced; metrics come from the checker, not from here.

    ``status`` is always ``"completed"``: every request is started (a valid request always
    fits alone), so a simulation cannot end otherwise; errors raise instead.
    """

    STATUSES = ("completed",)
    SUCCESS = ("completed",)

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
    status: str = "completed"
    message: str = ""  # one line: policy, requests, evictions
    wall_time: float = field(default=0.0, compare=False)  # seconds (not part of equality)
    runs: dict[str, tuple[Run, ...]] | None = None  # every run (step engine); None: priority rules
    recomputed_tokens: int = 0  # tokens re-prefilled on resumption (Restart.KEEP_OUTPUTS)

    @property
    def schedule(self) -> dict[str, Any]:
        """What the checker takes: the runs of every request, or the start times."""
        return dict(self.runs) if self.runs is not None else dict(self.starts)


class ForwardCheck:
    """The running batch as the scheduler believes it, for the forward-looking check.

    Ends ``E`` sorted ascending; ``U(t') = sum_{E_j >= t'} (c_j + t')`` with ``c_j = s_j - x_j``
    is the believed usage at step ``t'``. ``V[m] = U(E_m) + E_m`` serves the window check.

    **Cost.** :meth:`fits` first tries two sufficient conditions in O(1). Every member's term
    ``c_j + t'`` is positive for ``t' > x_j``, so ``U(t') <= C + k t'`` with ``C = sum_j c_j``
    and ``k`` members: the candidate fits whenever ``C + k (x + o) + s + o <= M`` (the batch
    fits even if nobody finished). And a member never holds more than its peak
    ``c_j + E_j``, so it also fits whenever ``C + sum_j E_j + s + o <= M`` (every member at its
    peak at once: the test that passes when members end at different steps, which the first
    one overestimates by ``x + o - E_j`` each). Only when both fail is the exact window check run,
    on suffix sums refreshed lazily after insertions. Insertions wait in a pending list until
    the sorted order is needed (an exact check, a completion, a usage query), then merge in one
    pass: a batch with room to spare costs ``O(1)`` per admission (the 100,000-request burst of
    ``benchmarks/bench_simulator.py``), and the exact ``O(k)`` work is paid only when memory is
    nearly full, where ``k`` is bounded by ``M`` over the peaks.
    """

    __slots__ = ("_ends", "_offsets", "_pending", "_suffix", "_value", "_total_offset", "_total_end", "_stale")

    _SMALL_MERGE = 8  # this few pending members are inserted one by one (bisection + list insert)

    def __init__(self) -> None:
        self._ends: list[int] = []
        self._offsets: list[int] = []
        self._pending: list[tuple[int, int]] = []
        self._suffix: list[int] = [0]
        self._value: list[int] = []
        self._total_offset = 0
        self._total_end = 0
        self._stale = False

    @property
    def ends(self) -> list[int]:
        """Believed completion steps of the members, ascending."""
        self._merge()
        return self._ends

    @property
    def offsets(self) -> list[int]:
        """``s_j - x_j`` of the members, in the order of :attr:`ends`."""
        self._merge()
        return self._offsets

    def rebuild(self, members: Sequence[tuple[int, int]]) -> None:
        """``members``: (believed end, prompt - start) pairs."""
        pairs = sorted(members)
        self._ends = [e for e, _ in pairs]
        self._offsets = [c for _, c in pairs]
        self._pending = []
        self._total_offset = sum(self._offsets)
        self._total_end = sum(self._ends)
        self._stale = True

    def add(self, end: int, offset: int) -> None:
        """Insert one member (kept pending until the order is needed; the suffix sums go stale)."""
        self._pending.append((end, offset))
        self._total_offset += offset
        self._total_end += end
        self._stale = True

    def _merge(self) -> None:
        """Bring the pending members into the sorted lists (members with equal ends are
        interchangeable: every quantity here sums over whole groups of equal ends)."""
        pending = self._pending
        if not pending:
            return
        self._pending = []
        if len(pending) <= self._SMALL_MERGE:
            for end, offset in pending:
                k = bisect.bisect_right(self._ends, end)
                self._ends.insert(k, end)
                self._offsets.insert(k, offset)
            return
        pending.sort()
        pairs = list(heapq.merge(zip(self._ends, self._offsets), pending))
        self._ends = [e for e, _ in pairs]
        self._offsets = [c for _, c in pairs]

    def drop_through(self, step: int) -> None:
        """Forget members that end at or before ``step``: a prefix, counted by no one else.

        The suffix sums of the members left are unchanged, so nothing goes stale.
        """
        self._merge()
        p = bisect.bisect_right(self._ends, step)
        if p:
            self._total_offset -= sum(self._offsets[:p])
            self._total_end -= sum(self._ends[:p])
            del self._ends[:p], self._offsets[:p]
            if not self._stale:
                del self._suffix[:p], self._value[:p]

    def __len__(self) -> int:
        return len(self._ends) + len(self._pending)

    def _refresh(self) -> None:
        self._merge()
        ends, offsets = self._ends, self._offsets
        k = len(ends)
        suffix = [0] * (k + 1)
        running = 0
        for m in range(k - 1, -1, -1):
            running += offsets[m]
            suffix[m] = running
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
        self._suffix, self._value, self._stale = suffix, value, False

    def usage(self, step: int) -> int:
        """Believed tokens held at ``step`` by the batch."""
        if self._stale:
            self._refresh()
        idx = bisect.bisect_left(self._ends, step)
        return self._suffix[idx] + step * (len(self._ends) - idx)

    def _fits_without_completions(self, memory: int, prompt: int, output: int, start: int) -> bool:
        # the smaller of two upper bounds on the batch's usage during the candidate's run:
        # everyone still running at its last step, or everyone at its own peak (class docstring)
        held = self._total_offset + min(len(self) * (start + output), self._total_end)
        return held + prompt + output <= memory

    def fits(self, memory: int, prompt: int, output: int, start: int) -> bool:
        """Forward-looking check for a candidate started at ``start``."""
        if self._fits_without_completions(memory, prompt, output, start):
            return True
        if self._stale:
            self._refresh()
        ends, value = self._ends, self._value
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
        if self._fits_without_completions(memory, prompt, output, start):
            return start
        if self._stale:
            self._refresh()
        ends, value = self._ends, self._value
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
            if self._suffix[idx] + (tau + output) * (k - idx) + prompt + output > memory:
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
    ``(prompt, believed_output)`` already in priority order. It calls the very function every
    decision of :func:`simulate` calls (``_admit``, on a waiting queue of ranks), so that
    :mod:`geosched.verify` checks the simulator's own code path against a declarative
    specification; there is no second admission implementation.

    >>> admission_step(12, 0, [(1, 0, 5)], [(6, 3)])
    []
    >>> admission_step(12, 1, [(6, 0, 3)], [(1, 5)])
    [0]
    """
    batch = ForwardCheck()
    batch.rebuild([(end, s - x) for s, x, end in running])
    ranks = list(range(len(waiting)))  # rank k is position k; a sorted list is a valid heap
    prompts = [s for s, _ in waiting]
    beliefs = [o for _, o in waiting]
    return sorted(_admit(batch, memory, step, ranks, ranks[:], prompts, beliefs, backfill))


def simulate(
    instance: Instance,
    policy: str | Policy = "svf",
    *,
    predictor: str | Predictor = "oracle",
    backfill: bool = False,
    observer: Callable[[BlockedInterval], None] | None = None,
    block_size: int = 1,
) -> SimulationResult:
    """Run ``policy`` on ``instance`` and return the start times.

    The discrete-time process of Kong et al. (arXiv 2606.22327, Algorithm 1) and Jaillet et
    al. (arXiv 2502.07115, Algorithm 1), simulated from event to event (see the module
    docstring for the semantics). Ties in the priority key are broken by arrival, then by the
    request's position in ``instance``; ids are labels only.

    Parameters
    ----------
    instance : Instance
        The workload.
    policy : str, Policy or Scheduler
        A registered name or spec (``"svf"``, ``"svf1:theta=8"``, ``"geo-guess"``), a user's
        scheduler file ``"path/to/file.py:Class"``, a policy object, or a scheduler (object
        or class) of :mod:`geosched.reference_impl.scheduling`. Priority rules run on the
        event-driven engine; every other scheduler on the step engine
        (:func:`~geosched.reference_impl.schedulers.engine.run_scheduler`), with restarts.
    predictor : str or Predictor
        A registered predictor name or a predictor object (see
        :mod:`geosched.reference_impl.predictors`); the default is exact lengths.
    backfill : bool
        Skip a misfit and try later requests instead of stopping the scan.
    observer : callable, optional
        Called with a :class:`BlockedInterval` for every maximal run of steps with the same
        state during which some arrived request waits (the certificate monitor of
        :mod:`geosched.verify` uses it). Attaching one makes every completion an event.
    block_size : int
        KV block grain ``B`` (``M`` must be a multiple of it): a request holding ``u`` tokens holds
        ``ceil(u / B)`` blocks of ``B`` tokens, as in vLLM. ``1`` is the paper's token grain; at
        ``B > 1`` every scheduler runs on the step engine (priority rules with the block-grain
        forward check, exact lengths only).

    Returns
    -------
    SimulationResult
        Start times, admission order, evictions; metrics come from the checker.

    Raises
    ------
    UnknownNameError
        For an unknown policy or predictor name.
    ValidationError
        When the predictor does not return one prediction ``>= 1`` per request.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf").starts
    {'r0': 5, 'r1': 0}
    """
    started = time.perf_counter()
    policy_obj = resolve(policy)
    if block_size != 1:
        return _simulate_blocks(instance, policy_obj, predictor, backfill, observer, block_size, started)
    if not isinstance(policy_obj, Policy) and hasattr(policy_obj, "decide"):
        return _simulate_steps(instance, policy_obj, predictor, backfill, started)
    if not isinstance(policy_obj, Policy):
        raise ValidationError("policy", type(policy_obj).__name__,
                              "must have name, keys(instance, predicted) and parameters(predicted)")
    predictor_obj = make_predictor(predictor) if isinstance(predictor, str) else predictor
    predicted = [int(v) for v in np.asarray(predictor_obj.predict(instance)).tolist()]
    if len(predicted) != instance.n or any(v < 1 for v in predicted):
        raise ValidationError(f"predictor {predictor_obj.name!r}", len(predicted),
                              f"must return one prediction >= 1 per request ({instance.n} requests)")
    keys = policy_obj.keys(instance, predicted)
    if not backfill and observer is None and instance.n >= COMPILED_MIN_REQUESTS:
        compiled = _simulate_compiled(instance, policy_obj, predictor_obj.name, keys, predicted, started)
        if compiled is not None:
            return compiled
    run = ReplicaEngine.from_instance(instance, keys, predicted, backfill=backfill, observer=observer)
    run.run()
    requests = instance.requests
    return SimulationResult(
        policy=policy_obj.name,
        predictor=predictor_obj.name,
        backfill=backfill,
        starts={r.id: run.start[i] for i, r in enumerate(requests)},
        completions={r.id: run.start[i] + r.output for i, r in enumerate(requests)},
        admission_order=tuple(requests[i].id for i in run.admission_order),
        evictions=run.evictions,
        wasted_tokens=run.wasted,
        evicted_segments=tuple(run.segments),
        decisions=run.decisions,
        extra=dict(policy_obj.parameters(predicted)),
        message=f"{policy_obj.name}: {instance.n} requests started, {run.evictions} evictions, "
                f"{run.decisions} decision points",
        wall_time=time.perf_counter() - started,
    )


COMPILED_MIN_REQUESTS = 20_000  # from here on the compiled loop pays for loading numba (about a second)


def _simulate_compiled(instance: Instance, policy_obj: Policy, predictor_name: str, keys: list[Any],
                       predicted: list[int], started: float) -> SimulationResult | None:
    """:func:`simulate`'s result from the compiled kernel (:mod:`.kernel`), for exact lengths, int keys
    and int64-safe instances; None otherwise (the engine then runs). The kernel is a port of
    :class:`ReplicaEngine`'s exact mode: the same decisions, starts and order (``tests/test_million.py``)."""
    from geosched.reference_impl import kernel

    requests = instance.requests
    n, memory = len(requests), instance.memory
    prompt = np.fromiter(map(operator.attrgetter("prompt"), requests), dtype=np.int64, count=n)
    output = np.fromiter(map(operator.attrgetter("output"), requests), dtype=np.int64, count=n)
    arrival = np.fromiter(map(operator.attrgetter("arrival"), requests), dtype=np.int64, count=n)
    belief = np.asarray(predicted)  # the engine's beliefs are min(prediction, M - s): exact mode needs them = o
    if belief.dtype != np.int64 or not np.array_equal(np.minimum(belief, memory - prompt), output) \
            or not kernel.fits_int64(memory, arrival, output):
        return None
    order = kernel.priority_order(keys, arrival)
    if order is None:
        return None
    start, admitted, decisions = kernel.run_exact(memory, prompt, output, arrival, order, False)
    ids = [r.id for r in requests]
    starts = start.tolist()
    return SimulationResult(
        policy=policy_obj.name,
        predictor=predictor_name,
        backfill=False,
        starts=dict(zip(ids, starts)),
        completions=dict(zip(ids, (start + output).tolist())),
        admission_order=tuple(map(ids.__getitem__, admitted.tolist())),
        evictions=0,
        wasted_tokens=0,
        evicted_segments=(),
        decisions=int(decisions),
        extra=dict(policy_obj.parameters(predicted)),
        message=f"{policy_obj.name}: {n} requests started, 0 evictions, {decisions} decision points",
        wall_time=time.perf_counter() - started,
    )


def resolve(policy: Any) -> Any:
    """A priority rule (:class:`Policy`) or a scheduler object, from a name, a spec, a user's
    ``file.py:Class``, a class or an object; a protocol scheduler that wraps a priority rule
    (``priority_rule``) gives the rule itself (the fast path).

    >>> type(resolve("svf")).__name__, type(resolve("geo-guess")).__name__
    ('SmallestVolumeFirst', 'GeometricGuess')
    """
    if isinstance(policy, str):
        if is_file_spec(policy):
            policy = load_scheduler_class(policy)
        else:
            base = policy.partition(":")[0]
            entry = REGISTRY.get(base)
            if entry is None or Capability.PRIORITY_RULE in entry.capabilities:
                return make_policy(policy)  # an unknown name lists the priority rules
            params = parse_spec(policy)[1] if ":" in policy else {}
            obj = entry.build(**params)
            declared = entry.capabilities & {Capability.CLAIRVOYANT, Capability.PREEMPTS}
            if declared != capabilities_of(obj) - {Capability.SIMULATOR}:
                raise ValidationError(f"policy {base!r}", sorted(c.value for c in declared),
                                      "the registry's capabilities differ from the scheduler's own declaration")
            return obj
    if isinstance(policy, type):
        try:
            policy = policy()
        except TypeError as exc:
            raise ValidationError("policy", policy.__name__, f"a scheduler class must build with no arguments "
                                  f"({exc})") from None
    return getattr(policy, "priority_rule", None) or policy


def _simulate_blocks(instance: Instance, policy_obj: Any, predictor: Any, backfill: bool, observer: Any,
                     block_size: int, started: float) -> SimulationResult:
    """``simulate(..., block_size=B > 1)``: every scheduler on the step engine at block grain."""
    if getattr(predictor, "name", predictor) != "oracle" or observer is not None:
        raise ValidationError("block_size", block_size, "block grain runs exact lengths without an observer "
                              "(predictor 'oracle')")
    if isinstance(policy_obj, Policy):
        policy_obj = PriorityRuleScheduler(policy_obj, instance, backfill=backfill)
        backfill = False
    if getattr(policy_obj, "block_grain", False) is not True:
        raise ValidationError("block_size", block_size,
                              f"scheduler {getattr(policy_obj, 'name', policy_obj)!r} counts tokens, not blocks "
                              "(block grain: the priority rules and vllm-fcfs/vllm-priority; a scheduler declares "
                              "block_grain = True when it reads SchedulerState.block_size)")
    return _simulate_steps(instance, policy_obj, predictor, backfill, started, block_size)


def _simulate_steps(instance: Instance, scheduler: Any, predictor: Any, backfill: bool,
                    started: float, block_size: int = 1) -> SimulationResult:
    """A protocol scheduler on the step engine, as a :class:`SimulationResult` with its runs."""
    if getattr(predictor, "name", predictor) != "oracle" or backfill:
        raise ValidationError("policy", getattr(scheduler, "name", scheduler),
                              "a protocol scheduler sees what it declares: predictor and backfill apply "
                              "to priority rules only")
    run: StepRun = run_scheduler(instance, scheduler, block_size=block_size)
    name = getattr(scheduler, "name", type(scheduler).__name__)
    return SimulationResult(
        policy=name, predictor="oracle", backfill=False,
        starts={i: runs[-1].start for i, runs in run.runs.items()},
        completions=run.completions,
        admission_order=run.admission_order,
        evictions=run.preemptions,
        wasted_tokens=run.lost_tokens,
        decisions=run.decisions,
        extra=dict(run.extra),
        message=f"{name}: {instance.n} requests completed, {run.preemptions} preemptions, "
                f"{run.lost_tokens} tokens lost, {run.decisions} decision points",
        wall_time=time.perf_counter() - started,
        runs=run.runs,
        recomputed_tokens=run.recomputed_tokens,
    )


class EngineListener(Protocol):
    """What a :class:`ReplicaEngine` tells an attached listener (for example a seconds clock).

    Handles are positions in submission order. ``before_decision`` is called before anything
    changes at decision step ``t``; ``admitted`` when a request starts at ``t`` (it holds
    memory from step ``t + 1``); ``evicted`` when a running request is evicted at ``t`` (it
    held memory through step ``t``).
    """

    def before_decision(self, step: int) -> None: ...

    def admitted(self, handle: int, step: int) -> None: ...

    def evicted(self, handle: int, step: int) -> None: ...


class ReplicaEngine:
    """One replica's continuous-batching scheduler, steppable, fed at once or online.

    This is the state and the steps of :func:`simulate`, public so that a cluster of
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
        self.evictions = 0
        self.wasted = 0
        self.segments: list[tuple[str, int, int]] = []
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
        priority requests are evicted before step ``t + 1`` if it would exceed ``M``."""
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
            self.evictions += 1
            self.wasted += t - start[victim]
            self.segments.append((self.ids[victim], start[victim], t))
            if self.listener is not None:
                self.listener.evicted(victim, t)
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
        for i in _admit(self.batch, self.memory, t, self.waiting, self.order, self.prompt, self.belief,
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


def _admit(
    batch: ForwardCheck,
    memory: int,
    t: int,
    waiting: list[Any],
    order: Any,
    prompt: list[int],
    belief: list[int],
    backfill: bool,
) -> list[int]:
    """Scan the waiting items in priority order with :func:`scan_admissions`; remove the admitted.

    ``order`` maps an item to its request (a list of ranks or a dict of online items)."""
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


class PriorityRuleScheduler:
    """A priority rule as a scheduler of the protocol: ``policy``'s keys for ``instance`` (exact
    lengths), scanned step by step (:mod:`geosched.reference_impl.schedulers.priority`)."""

    clairvoyant = True
    preempts = False
    block_grain = True  # it reads SchedulerState.block_size

    def __init__(self, policy: Policy, instance: Instance, *, backfill: bool = False) -> None:
        self.priority_rule = policy  # simulate() runs this on the event-driven engine
        self.name = policy.name
        self.backfill = backfill
        keys = policy.keys(instance, [r.output for r in instance.requests])
        self.keys: dict[str, Any] = {r.id: key for r, key in zip(instance.requests, keys)}

    def decide(self, state: SchedulerState) -> Decision:
        waiting = sorted(state.waiting, key=lambda w: (self.keys[w.id], w.arrival, w.position))
        running = [(r.prompt, r.start, r.start + r.output) for r in state.running]
        candidates = [(w.prompt, w.output) for w in waiting]
        if state.block_size == 1:
            chosen = admission_step(state.memory, state.time, running, candidates, backfill=self.backfill)
        else:
            chosen = block_admission_step(state.memory, state.time, running, candidates, state.block_size,
                                          backfill=self.backfill)
        return Decision(admit=tuple(waiting[k].id for k in chosen))


def _blocks_at(batch: list[tuple[int, int, int]], step: int, block: int) -> int:
    """Tokens of the whole blocks the batch ``(s, x, end)`` holds at ``step``."""
    return sum(block_tokens(s + step - x, block) for s, x, end in batch if x < step <= end)


def block_admission_step(memory: int, t: int, running: list[tuple[int, int, int]],
                         candidates: list[tuple[int, int]], block: int, *, backfill: bool = False) -> list[int]:
    """The forward-looking check at block grain: which ``candidates`` (in priority order) start at ``t``.

    A candidate ``(s, o)`` is admitted when the batch with it holds at most ``M`` tokens of whole
    blocks at every step of its lifetime. Every member's blocks only grow while it runs, so the
    usage is non-decreasing between completions and it suffices to check each completion step in
    ``(t, t + o]`` and ``t + o`` (as at token grain: :func:`geosched.reference_impl.simulator.admission_step`).
    Strict head-of-line unless ``backfill``. Cost ``O(k^2)`` per candidate for ``k`` running.
    """
    batch = list(running)
    chosen = []
    for index, (s, o) in enumerate(candidates):
        member = (s, t, t + o)
        checkpoints = {end for _, _, end in batch if t < end <= t + o} | {t + o}
        if all(_blocks_at(batch + [member], step, block) <= memory for step in checkpoints):
            batch.append(member)
            chosen.append(index)
        elif not backfill:
            break
    return chosen
