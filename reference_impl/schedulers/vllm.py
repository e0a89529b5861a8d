"""Stock vLLM's scheduling rules, once: the exact-model schedulers ``vllm-fcfs`` and
``vllm-priority``, and the rules the vLLM-semantics model runs.

vLLM 0.33's V1 scheduler (``vllm/v1/core/sched/scheduler.py``, ``Scheduler.schedule``; read
and confirmed by runs, ``shared/vllm/README.md``): memory is allocated on demand and nothing
is reserved for future output; **running requests are served first**, in list order; when
one cannot get its next slot a victim is **preempted** until it can (``fcfs``: the last
running request; ``priority``: the largest ``(priority, arrival)``, every priority 0 here),
by *recompute* (memory freed, outputs kept: :attr:`~geosched.reference_impl.scheduling.Restart.KEEP_OUTPUTS`);
**then waiting requests** are admitted, only if nothing was preempted this step, in queue
order (``fcfs``: a deque, preempted requests prepended; ``priority``: a heap on
``(priority, arrival, request id)``), while ``max_num_seqs`` and the token budget last and
the whole current sequence fits; the first misfit stops admission (head-of-line).

:func:`serve_running` and :func:`admit_waiting` are those two loops, written once over an
allocator given as functions: :class:`VllmScheduler` (the exact model, one token slot per
block, request ``(a, s, o)`` = vLLM's ``(a, P = s + 1, max_tokens = o)``, ``docs/vllm.md``)
and :class:`~geosched.reference_impl.vllm.semantics.VllmSemantics` (KV blocks of any size,
chunked prefill) both call them: one code path for the rules.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.engine import run_scheduler
>>> run_scheduler(burst_instance(12, [(6, 3), (1, 5)]), VllmFcfs()).completions
{'r0': 3, 'r1': 6}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.model import block_tokens
from geosched.reference_impl.scheduler_registry import SchedulerEntry
from geosched.reference_impl.scheduling import Capability, Decision, DecisionError, Restart, SchedulerState

__all__ = ["serve_running", "admit_waiting", "VllmScheduler", "VllmFcfs", "VllmPriority", "PREEMPTION_RULES",
           "ChunkedPrefillError", "SCHEDULERS"]

PREEMPTION_RULES = ("fcfs", "priority")


class ChunkedPrefillError(DecisionError):
    """The token budget would split a prefill over steps: outside the exact model."""


def serve_running(running: list[Any], budget: int, rule: str, *, tokens: Callable[[Any, int], int],
                  allocate: Callable[[Any, int], bool], release: Callable[[Any], None],
                  victim_key: Callable[[Any], Any]) -> tuple[dict[str, int], list[str], int]:
    """Serve ``running`` (edited in place) in list order, preempting on a failed allocation.

    ``tokens(r, budget)``: tokens ``r`` computes this step; ``allocate(r, n)``: reserve them
    (False when memory is short); ``release(victim)``: free a preempted request and re-queue it;
    ``victim_key``: the ``priority`` rule's order (the largest is preempted). Returns the tokens
    scheduled per id, the preempted ids in order, and the budget left.
    """
    scheduled: dict[str, int] = {}
    preempted: list[str] = []
    idx = 0
    while idx < len(running) and budget > 0:
        r = running[idx]
        new = tokens(r, budget)
        if new <= 0:
            idx += 1
            continue
        ok = False
        while True:
            if allocate(r, new):
                ok = True
                break
            if rule == "priority":
                victim = max(running, key=victim_key)
                vi = running.index(victim)
                del running[vi]
                if vi < idx:
                    idx -= 1
                if victim.id in scheduled:  # already served this step: its tokens go back
                    budget += scheduled.pop(victim.id)
            else:
                victim = running.pop()
            release(victim)
            preempted.append(victim.id)
            if victim is r:
                break
        if not ok:
            if rule == "priority" and r.id in preempted:
                continue
            break
        scheduled[r.id] = new
        budget -= new
        idx += 1
    return scheduled, preempted, budget


def admit_waiting(budget: int, *, peek: Callable[[], Any], seats: Callable[[], int], chunked: bool,
                  tokens: Callable[[Any], int], fits: Callable[[Any, int], bool],
                  take: Callable[[Any, int], None]) -> tuple[list[str], int]:
    """Admit waiting requests head-of-line while seats, budget and memory last.

    ``peek()``: the head (None when nothing may be offered); ``seats()``: free running slots;
    ``tokens(r)``: its whole current sequence; ``fits(r, n)``: reserve memory to compute ``n``
    of them (False: stop); ``take(r, n)``: move it to running. Returns the admitted ids and the
    budget left.
    """
    admitted: list[str] = []
    while budget > 0 and seats() > 0:
        r = peek()
        if r is None:
            break
        new = tokens(r)
        if not chunked and new > budget:
            break
        new = min(new, budget)
        if not fits(r, new):
            break
        take(r, new)
        admitted.append(r.id)
        budget -= new
    return admitted, budget


@dataclass
class _Slot:
    id: str
    arrival: int
    tokens: int  # the sequence's tokens: prompt + 1 + outputs so far (vLLM's P + generated)


@dataclass(eq=False)
class VllmScheduler:
    """Stock vLLM in the exact model (see the module docstring); not clairvoyant."""

    preemption: str = "fcfs"  # vLLM SchedulerConfig.policy: the victim rule and the queue
    max_num_seqs: int = 256  # most running requests
    max_num_batched_tokens: int = 1 << 20  # token budget per step (it must hold every admitted prompt)
    name: str = "vllm"
    clairvoyant = False
    preempts = True
    block_grain = True  # it allocates whole blocks of SchedulerState.block_size slots
    restart = Restart.KEEP_OUTPUTS
    _queue: list[str] = field(default_factory=list, repr=False)  # the FCFS deque, front first

    def __post_init__(self) -> None:
        if self.preemption not in PREEMPTION_RULES:
            raise ValidationError("preemption", self.preemption, f"must be one of {', '.join(PREEMPTION_RULES)}")
        for name in ("max_num_seqs", "max_num_batched_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(name, value, "must be an integer >= 1")

    def decide(self, state: SchedulerState) -> Decision:
        b = state.block_size  # vLLM allocates whole blocks of b slots as the tokens need them
        free = [state.memory - state.used]  # tokens in free blocks
        held = {r.id: r.usage for r in state.running}
        running = [_Slot(r.id, r.arrival, r.usage) for r in state.running]
        waiting = {w.id: _Slot(w.id, w.arrival, w.prompt + 1 + w.kept) for w in state.waiting}
        self._sync(state)

        def allocate(r: _Slot, new: int) -> bool:
            need = block_tokens(held[r.id] + new, b) - block_tokens(held[r.id], b)
            if need > free[0]:
                return False
            free[0] -= need
            held[r.id] += new
            return True

        def release(victim: _Slot) -> None:
            free[0] += block_tokens(held.pop(victim.id), b)
            if self.preemption == "fcfs":
                self._queue.insert(0, victim.id)

        _, preempted, budget = serve_running(running, self.max_num_batched_tokens, self.preemption,
                                             tokens=lambda r, b: min(1, b), allocate=allocate, release=release,
                                             victim_key=lambda r: (0, r.arrival))
        admitted: list[str] = []
        if not preempted:
            admitted, budget = self._admit(state, waiting, running, free, budget, b)
        n = len(running)
        # n requests decoding k steps need at most n * ceil(k / b) new blocks: none fails before this.
        # No promise when the token budget ran out with requests still waiting: the budget is renewed
        # next step, and vLLM admits them then (a resumed request's recompute can use it all up).
        budget_bound = budget <= 0 and len(admitted) < len(waiting)
        quiet = None if preempted or budget_bound else state.time + 1 + b * ((free[0] // b) // max(n, 1))
        return Decision(admit=tuple(admitted), preempt=tuple(preempted), quiet_until=quiet)

    def _admit(self, state: SchedulerState, waiting: dict[str, _Slot], running: list[_Slot],
               free: list[int], budget: int, b: int) -> tuple[list[str], int]:
        order = self._queue if self.preemption == "fcfs" else \
            sorted(waiting, key=lambda i: (waiting[i].arrival, i))  # vLLM's heap compares id strings

        def fits(r: _Slot, new: int) -> bool:
            if block_tokens(r.tokens, b) > free[0]:
                return False
            if new < r.tokens:  # it fits, but the budget would split its prefill
                raise ChunkedPrefillError(f"{self.name} at step {state.time}", self.max_num_batched_tokens,
                                    "the token budget must hold a whole prompt: a chunked prefill is outside "
                                    "the exact model (use the vLLM-semantics model)")
            free[0] -= block_tokens(r.tokens, b)
            return True

        def take(r: _Slot, new: int) -> None:
            order.remove(r.id)
            running.append(r)

        return admit_waiting(budget, peek=lambda: waiting[order[0]] if order else None,
                             seats=lambda: self.max_num_seqs - len(running), chunked=True,
                             tokens=lambda r: r.tokens, fits=fits, take=take)

    def _sync(self, state: SchedulerState) -> None:
        """New arrivals join the back of the FCFS deque, in ``(arrival, position)`` order."""
        if self.preemption == "fcfs":
            present = {w.id for w in state.waiting}
            known = set(self._queue)
            self._queue[:] = [i for i in self._queue if i in present]
            self._queue.extend(w.id for w in state.waiting if w.id not in known)


@dataclass(eq=False)
class VllmFcfs(VllmScheduler):
    """``vllm-fcfs``: stock vLLM with ``SchedulerConfig.policy = "fcfs"``."""

    preemption: str = "fcfs"
    name: str = "vllm-fcfs"


@dataclass(eq=False)
class VllmPriority(VllmScheduler):
    """``vllm-priority``: stock vLLM with ``policy = "priority"``, every priority 0."""

    preemption: str = "priority"
    name: str = "vllm-priority"


SCHEDULERS = (  # this module's registry entries (geosched.reference_impl.scheduling finds them)
    SchedulerEntry("vllm-fcfs", VllmFcfs,
                   "stock vLLM FCFS: on-demand memory, recompute preemption of the last running",
                   frozenset({Capability.SIMULATOR, Capability.PREEMPTS}), order=20),
    SchedulerEntry("vllm-priority", VllmPriority, "stock vLLM priority: preempts the largest (priority, arrival)",
                   frozenset({Capability.SIMULATOR, Capability.PREEMPTS}), order=20),
)
