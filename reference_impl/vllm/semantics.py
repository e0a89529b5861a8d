"""vLLM-semantics mode of the pure-Python model: vLLM 0.33's V1 scheduling rules, step by step.

This replays a workload under the rules of ``vllm/v1/core/sched/scheduler.py`` (vLLM
0.33.0, ``Scheduler.schedule`` and ``update_from_output``) with no vLLM import, so that the
same workload can run in both worlds and be compared step by step
(:mod:`geosched.reference_impl.vllm.harness`). One call of :meth:`VllmSemantics.step` is one
``schedule()`` + one model step (one sampled token per request whose prefill is complete)
+ ``update_from_output()``.

Rules modelled (decoder-only, full attention, no prefix caching, no speculative decoding,
no KV connector, synchronous scheduling):

* **Blocks.** A request with ``n`` slots holds ``ceil(n / B)`` blocks, allocated on demand
  as tokens are computed; nothing is reserved for future output and ``max_tokens`` is never
  consulted. ``capacity_blocks`` excludes vLLM's null block.
The two scheduling loops below (running first, then waiting) are not written here: they are
:func:`~geosched.reference_impl.schedulers.vllm.serve_running` and
:func:`~geosched.reference_impl.schedulers.vllm.admit_waiting`, the code the exact-model
schedulers ``vllm-fcfs`` and ``vllm-priority`` run; this model supplies the KV-block allocator.

* **Running first.** Running requests are served in list order while the token budget
  ``max_num_batched_tokens`` lasts; each gets ``min(num_tokens - num_computed, budget)``
  tokens (chunked prefill; a decode needs 1). If its blocks cannot be allocated, a victim
  is preempted until they can: ``fcfs`` preempts the *last* running request, ``priority``
  the one with the largest ``(priority, arrival)`` (the first such in list order); a victim
  already scheduled this step gives its tokens back. Preemption is by *recompute*: blocks
  freed, computed tokens reset to 0, generated tokens kept in the sequence (re-prefilled
  on resumption), the request re-queued.
* **Then waiting**, only if nothing was preempted this step, in queue order while
  ``len(running) < max_num_seqs`` and budget remains: admission needs the whole current
  sequence to fit (``scheduler_reserve_full_isl``, default on) plus the watermark when
  something is running; the first misfit stops admission (head-of-line blocking). Without
  chunked prefill a sequence longer than the remaining budget also stops it.
* **Queue order**: ``"key"`` (the geosched plugin's queue: ascending ``(key, arrival,
  position)``, position = the order of :meth:`VllmSemantics.add`, preempted requests
  re-inserted by key), ``"fcfs"`` (vLLM's deque: append on arrival, *prepend* on preemption)
  or ``"priority"`` (vLLM's heap on ``(priority, arrival, request id)``: stock vLLM's
  ``Request.__lt__`` does compare id strings, and the model keeps that on purpose).
* **Stop** when ``max_tokens`` outputs exist (requests run with ``ignore_eos``), or at
  ``max_model_len``.

``admission_gate`` (optional) restricts which waiting requests may be offered, to replay
the plugin's ``paper`` mode: it receives ``(step, running ids, waiting (id, sequence
tokens, generated) in order)`` and returns the offered ids in order.

Example
-------
>>> cfg = EngineParams(capacity_blocks=12, block_size=1)
>>> sim = VllmSemantics(cfg)
>>> sim.add(SemRequest("r0", 0, prompt_tokens=7, max_tokens=3))
>>> sim.add(SemRequest("r1", 0, prompt_tokens=2, max_tokens=5))
>>> [s.admitted for s in sim.run()][:2], sim.preemptions
([('r0', 'r1'), ()], 1)
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from geosched import limits
from geosched.errors import ValidationError
from geosched.reference_impl.schedulers.vllm import PREEMPTION_RULES, admit_waiting, serve_running

__all__ = ["EngineParams", "SemRequest", "StepState", "VllmSemantics", "QUEUE_ORDERS", "PREEMPTION_RULES"]

QUEUE_ORDERS = ("key", "fcfs", "priority")


@dataclass(frozen=True)
class EngineParams:
    """The vLLM engine parameters the scheduler's behaviour depends on."""

    capacity_blocks: int  # usable KV blocks (vLLM's num_gpu_blocks - 1: one is the null block)
    block_size: int = 1  # tokens per block
    max_num_seqs: int = 256  # most running requests
    max_num_batched_tokens: int = 1 << 20  # token budget per step
    enable_chunked_prefill: bool = True  # split prefills over steps when the budget binds
    preemption: str = "fcfs"  # vLLM SchedulerConfig.policy: "fcfs" (last running) or "priority"
    watermark: float = 0.0  # SchedulerConfig.watermark (fraction of all blocks, null one included)
    max_model_len: int = 32768  # longest sequence (prompt + output)

    def __post_init__(self) -> None:
        for name in ("capacity_blocks", "block_size", "max_num_seqs", "max_num_batched_tokens", "max_model_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        if self.preemption not in PREEMPTION_RULES:
            raise ValueError(f"preemption must be one of {PREEMPTION_RULES}, got {self.preemption!r}")
        if not 0.0 <= self.watermark < 1.0:
            raise ValueError(f"watermark must be in [0, 1), got {self.watermark!r}")

    @property
    def watermark_blocks(self) -> int:
        return int(self.watermark * (self.capacity_blocks + 1))


@dataclass
class SemRequest:
    """One request in vLLM terms."""

    id: str  # request id (a label; only stock vLLM's priority heap compares it, as vLLM does)
    arrival: int  # step at which it is added (vLLM arrival_time = float(arrival))
    prompt_tokens: int  # P >= 1
    max_tokens: int  # outputs; the request stops exactly there
    key: Any = 0  # order key of the "key" queue (smaller first)
    priority: int = 0  # vLLM priority (the "priority" preemption rule and queue)
    generated: int = 0  # outputs sampled so far
    computed: int = 0  # tokens whose KV is computed
    blocks: int = 0  # blocks held
    preemptions: int = 0  # times preempted
    finished: bool = False
    position: int = -1  # order of VllmSemantics.add: the plugin's tie-break after arrival

    @property
    def num_tokens(self) -> int:
        return self.prompt_tokens + self.generated


@dataclass(frozen=True)
class StepState:
    """What one scheduling step did; compared field by field across the two worlds."""

    step: int  # the step index (schedule() call number, arrivals are added before it)
    admitted: tuple[str, ...]  # ids moved from waiting to running, in admission order
    preempted: tuple[str, ...]  # ids preempted, in order
    running: tuple[str, ...]  # the running list after scheduling, in order
    scheduled: tuple[tuple[str, int], ...]  # (id, tokens computed this step), in schedule order
    finished: tuple[str, ...]  # ids that finished in this step's update
    blocks_used: int  # KV blocks held during the step's forward pass
    waiting: tuple[str, ...] = field(default=(), compare=False)  # queue after the step (not compared)

    def describe(self) -> str:
        return (f"step {self.step}: admitted={list(self.admitted)} preempted={list(self.preempted)} "
                f"finished={list(self.finished)} blocks_used={self.blocks_used}\n"
                f"    running={list(self.running)}\n    scheduled={dict(self.scheduled)}")


class _Queue:
    """The three waiting-queue disciplines of the module docstring."""

    def __init__(self, order: str) -> None:
        if order not in QUEUE_ORDERS:
            raise ValueError(f"queue order must be one of {QUEUE_ORDERS}, got {order!r}")
        self.order = order
        self._deque: deque[SemRequest] = deque()
        self._sorted: list[tuple[Any, int, int, str]] = []
        self._by_id: dict[str, SemRequest] = {}
        self._heap: list[tuple[int, int, str]] = []

    def _sort_key(self, r: SemRequest) -> tuple[Any, ...]:
        return (r.key, r.arrival, r.position, r.id) if self.order == "key" else (r.priority, r.arrival, r.id)

    def add(self, r: SemRequest) -> None:
        if self.order == "fcfs":
            self._deque.append(r)
        elif self.order == "key":
            self._by_id[r.id] = r
            bisect.insort(self._sorted, self._sort_key(r))
        else:
            self._by_id[r.id] = r
            heapq.heappush(self._heap, self._sort_key(r))

    def prepend(self, r: SemRequest) -> None:
        if self.order == "fcfs":
            self._deque.appendleft(r)
        else:
            self.add(r)

    def peek(self) -> SemRequest:
        if self.order == "fcfs":
            return self._deque[0]
        if self.order == "key":
            return self._by_id[self._sorted[0][-1]]
        return self._by_id[self._heap[0][2]]

    def pop(self) -> SemRequest:
        if self.order == "fcfs":
            return self._deque.popleft()
        if self.order == "key":
            return self._by_id.pop(self._sorted.pop(0)[-1])
        return self._by_id.pop(heapq.heappop(self._heap)[2])

    def remove(self, r: SemRequest) -> None:
        if self.order == "fcfs":
            self._deque.remove(r)
        elif self.order == "key":
            self._sorted.remove(self._sort_key(r))
            del self._by_id[r.id]
        else:
            self._heap.remove(self._sort_key(r))
            heapq.heapify(self._heap)
            del self._by_id[r.id]

    def __iter__(self) -> Iterator[SemRequest]:
        if self.order == "fcfs":
            return iter(list(self._deque))
        if self.order == "key":
            return iter([self._by_id[k[-1]] for k in self._sorted])
        return iter([self._by_id[k[2]] for k in sorted(self._heap)])

    def __len__(self) -> int:
        return len(self._deque) if self.order == "fcfs" else len(self._by_id)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


class VllmSemantics:
    """Step-by-step replay of vLLM's scheduler rules (see the module docstring)."""

    def __init__(
        self,
        params: EngineParams,
        *,
        queue_order: str = "key",
        admission_gate: Callable[[int, Sequence[str], Sequence[tuple[str, int, int]]], Sequence[str]] | None = None,
        on_admit: Callable[[str, int, SemRequest], None] | None = None,
    ) -> None:
        self.params = params
        self.queue = _Queue(queue_order)
        self.gate = admission_gate
        self.on_admit = on_admit
        self.free_blocks = params.capacity_blocks
        self.running: list[SemRequest] = []
        self.requests: dict[str, SemRequest] = {}
        self.pending: list[SemRequest] = []  # not yet arrived, sorted by (arrival, input order)
        self.step_index = 0
        self.preemptions = 0

    # -- workload ------------------------------------------------------------------------
    def add(self, request: SemRequest) -> None:
        """Queue ``request`` for arrival at ``request.arrival``."""
        if request.id in self.requests:
            raise ValueError(f"duplicate request id {request.id!r}")
        if request.prompt_tokens < 1 or request.max_tokens < 1:
            raise ValueError(f"request {request.id!r}: prompt_tokens and max_tokens must be >= 1")
        request.position = len(self.requests)
        self.requests[request.id] = request
        self.pending.append(request)
        self.pending.sort(key=lambda r: r.arrival)

    def unfinished(self) -> bool:
        return any(not r.finished for r in self.requests.values())

    def next_arrival(self) -> int | None:
        return self.pending[0].arrival if self.pending else None

    def idle(self) -> bool:
        """Nothing running or waiting (arrivals may still be pending)."""
        return not self.running and len(self.queue) == 0

    # -- one step ------------------------------------------------------------------------
    def _preempt(self, victim: SemRequest) -> None:
        self.free_blocks += victim.blocks
        victim.blocks = 0
        victim.computed = 0
        victim.preemptions += 1
        self.preemptions += 1
        self.queue.prepend(victim)

    def _allocate(self, r: SemRequest, new_tokens: int, extra_free_needed: int = 0) -> bool:
        need = _cdiv(r.computed + new_tokens, self.params.block_size) - r.blocks
        if need < 0:
            need = 0
        if need + extra_free_needed > self.free_blocks:
            return False
        self.free_blocks -= need
        r.blocks += need
        return True

    def step(self) -> StepState:
        """One schedule() + model step + update_from_output(), at step ``self.step_index``."""
        c = self.step_index
        while self.pending and self.pending[0].arrival <= c:
            self.queue.add(self.pending.pop(0))
        scheduled: dict[str, int] = {}
        preempted: list[str] = []
        budget = self._serve_running(scheduled, preempted)
        admitted = self._admit_waiting(c, scheduled, budget) if not preempted else []
        blocks_used = self.params.capacity_blocks - self.free_blocks
        running_after = tuple(q.id for q in self.running)
        finished = self._compute(scheduled)
        self.step_index += 1
        return StepState(
            step=c,
            admitted=tuple(admitted),
            preempted=tuple(preempted),
            running=running_after,
            scheduled=tuple(scheduled.items()),
            finished=tuple(finished),
            blocks_used=blocks_used,
            waiting=tuple(q.id for q in self.queue),
        )

    def _serve_running(self, scheduled: dict[str, int], preempted: list[str]) -> int:
        """Running requests first, in list order, preempting on a failed allocation (the one
        implementation of the rule, :func:`geosched.reference_impl.schedulers.vllm.serve_running`);
        returns the token budget left."""
        p = self.params

        def tokens(r: SemRequest, budget: int) -> int:
            return min(r.num_tokens - r.computed, budget, p.max_model_len - r.computed - 1)

        served, victims, budget = serve_running(self.running, p.max_num_batched_tokens, p.preemption,
                                                tokens=tokens, allocate=self._allocate, release=self._preempt,
                                                victim_key=lambda q: (q.priority, q.arrival))
        scheduled.update(served)
        preempted.extend(victims)
        return budget

    def _admit_waiting(self, c: int, scheduled: dict[str, int], budget: int) -> list[str]:
        """Waiting requests in queue order, head-of-line, while seats, budget and blocks last
        (:func:`geosched.reference_impl.schedulers.vllm.admit_waiting`)."""
        p = self.params
        offered: set[str] | None = None
        if self.gate is not None:
            waiting_view = [(q.id, q.num_tokens, q.generated) for q in self.queue]
            offered = set(self.gate(c, [q.id for q in self.running], waiting_view))

        def peek() -> SemRequest | None:
            if len(self.queue) == 0:
                return None
            r = self.queue.peek()
            return None if offered is not None and r.id not in offered else r

        def fits(r: SemRequest, new: int) -> bool:
            watermark = p.watermark_blocks if self.running else 0
            full = _cdiv(min(r.num_tokens, p.max_model_len), p.block_size)
            return full + watermark <= self.free_blocks and self._allocate(r, new, watermark)

        def take(r: SemRequest, new: int) -> None:
            self.queue.pop()
            self.running.append(r)
            scheduled[r.id] = new
            if self.on_admit is not None:
                self.on_admit(r.id, c, r)

        admitted, _ = admit_waiting(budget, peek=peek, seats=lambda: p.max_num_seqs - len(self.running),
                                    chunked=p.enable_chunked_prefill, tokens=lambda r: r.num_tokens, fits=fits,
                                    take=take)
        return admitted

    def _compute(self, scheduled: dict[str, int]) -> list[str]:
        """The model step and update_from_output(): one sampled token per completed prefill;
        finished requests free their blocks."""
        finished: list[str] = []
        for rid, new in scheduled.items():
            r = self.requests[rid]
            r.computed += new
            if r.computed >= r.num_tokens:  # prefill complete: one token is sampled
                r.generated += 1
                if r.generated >= r.max_tokens or r.num_tokens >= self.params.max_model_len:
                    r.finished = True
                    finished.append(rid)
        if finished:
            done = set(finished)
            for rid in finished:
                r = self.requests[rid]
                self.free_blocks += r.blocks
                r.blocks = 0
            self.running = [q for q in self.running if q.id not in done]
        return finished

    def skip_idle(self) -> None:
        """When nothing is running or waiting, jump to the next arrival step."""
        if self.idle() and self.pending and self.pending[0].arrival > self.step_index:
            self.step_index = self.pending[0].arrival

    def run(self, max_steps: int = 1_000_000) -> Iterator[StepState]:
        """Steps until every request has finished (idle gaps skipped).

        Bounded before the first step: a request the engine can never finish (its last token needs
        more KV blocks than the engine has: vLLM would preempt it for ever) is refused, and so is a
        run spanning more steps than the limit in force (:mod:`geosched.limits`, ``--max-steps``);
        ``max_steps`` is the livelock guard. Each is one line (a :class:`~geosched.errors.GeoschedError`).
        """
        self._check_servable()
        limit = limits.max_steps()
        what = "the vLLM-semantics model"
        limits.check_steps(limits.busy_steps((r.arrival, r.max_tokens) for r in self.requests.values()
                                             if not r.finished), limit, what)
        for done in itertools.count():
            if not self.unfinished():
                return
            if done >= limit:
                raise limits.steps_exceeded(limit, what)
            if done >= max_steps:
                raise ValidationError("vLLM-semantics model", f"{max_steps} steps",
                                      "no completion within its livelock guard")
            self.skip_idle()
            yield self.step()

    def _check_servable(self) -> None:
        p = self.params
        for r in self.requests.values():
            need = _cdiv(r.prompt_tokens + r.max_tokens - 1, p.block_size)  # the last token's KV is never computed
            if not r.finished and need > p.capacity_blocks:
                raise ValidationError("engine", f"{p.capacity_blocks} blocks of {p.block_size} tokens",
                                      f"cannot serve request {r.id!r}: its last token needs {need} KV blocks "
                                      "(vLLM would preempt it for ever)")
