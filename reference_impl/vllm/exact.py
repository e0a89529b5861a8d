"""A vLLM scheduler class against a protocol scheduler of the exact model, call by call.

``geosched vllm-diff --reference policy --policy NAME`` with ``NAME`` a protocol scheduler
that is not a priority rule (``vllm-fcfs``, ``vllm-priority``, a user's ``FILE.py:Class``):
the scheduler runs on the step engine
(:func:`~geosched.reference_impl.engine.run_scheduler`) and its *runs* are read as
vLLM calls (``docs/vllm.md``, step correspondence): a run ``(x, e, k)`` is admitted at call
``x`` computing ``s + 1 + k`` tokens, decodes one token per call, and is preempted at call
``e`` (an earlier run) or finishes in call ``e - 1`` (the last run); the KV blocks in use
during call ``c`` are the model's memory at step ``c + 1``. vLLM runs the same workload, the
model request ``(a, s, o)`` as ``(arrival a, P = s + 1, max_tokens = o)``, on block size 1
with budgets that never bind, and every call is compared
(:func:`~geosched.reference_impl.vllm.harness.lockstep`).

Example (needs vLLM)
--------------------
>>> from geosched.reference_impl.model import burst_instance
>>> diff_exact(burst_instance(12, [(6, 3), (1, 5)]), "vllm-fcfs").status  # doctest: +SKIP
'agree'
"""

from __future__ import annotations

from typing import Any

from geosched.reference_impl.engine import StepRun, run_scheduler
from geosched.reference_impl.model import Instance
from geosched.reference_impl.simulation import resolve
from geosched.reference_impl.vllm.harness import DiffResult, VllmDriver, lockstep
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, StepState

__all__ = ["diff_exact", "exact_engine", "states_from_runs"]


def exact_engine(instance: Instance, preemption: str = "fcfs") -> EngineParams:
    """Block size 1, ``M`` blocks, ``max_num_seqs = n``, a budget no step can exhaust (every
    admitted sequence fits in ``M``, and each running request decodes one token)."""
    n = max(instance.n, 1)
    return EngineParams(capacity_blocks=instance.memory, block_size=1, max_num_seqs=n,
                        max_num_batched_tokens=instance.memory + n + 1, preemption=preemption)


def states_from_runs(instance: Instance, run: StepRun) -> dict[int, StepState]:
    """The vLLM call states a run of the step engine stands for, by call (calls with no
    running request are absent)."""
    by_id = instance.by_id()
    order = {(rid, step): k for k, (step, rid) in enumerate(run.admissions)}  # the running list's order
    spans = [(rid, r, r is runs[-1]) for rid, runs in run.runs.items() for r in runs]
    last_call = max((r.end - 1 for _, r, final in spans if final), default=-1)
    states: dict[int, StepState] = {}
    for c in sorted({x for _, r, _ in spans for x in range(r.start, r.end + 1)}):
        active = sorted(((rid, r) for rid, r, final in spans if r.start <= c < r.end),
                        key=lambda p: order[p[0], p[1].start])
        admitted = tuple(rid for rid, r in active if r.start == c)
        preempted = tuple(sorted(rid for rid, r, final in spans if not final and r.end == c))
        scheduled = tuple((rid, 1 if r.start < c else by_id[rid].prompt + 1 + r.kept) for rid, r in active)
        finished = tuple(rid for rid, r, final in spans if final and r.end == c + 1)
        finished = tuple(rid for rid, _ in active if rid in finished)
        memory = sum(by_id[rid].prompt + r.kept + c + 1 - r.start for rid, r in active)
        if active or preempted or c <= last_call:
            states[c] = StepState(c, admitted, preempted, tuple(rid for rid, _ in active), scheduled, finished,
                                  memory)
    return states


def diff_exact(instance: Instance, policy: str, *, scheduler: Any = None, preemption: str | None = None,
               max_steps: int | None = None) -> DiffResult:
    """vLLM's ``scheduler`` class (None: stock) vs ``policy``'s runs in the exact model.

    vLLM's ``SchedulerConfig.policy`` is the protocol scheduler's own ``preemption`` attribute
    when it has one (``vllm-priority``: ``"priority"``), else ``preemption`` (default ``"fcfs"``).
    """
    model = resolve(policy)
    params = exact_engine(instance, getattr(model, "preemption", None) or preemption or "fcfs")
    states = states_from_runs(instance, run_scheduler(instance, model))
    last = max(states, default=-1)
    driver = VllmDriver(params, scheduler, None)
    for r in instance.requests:
        driver.add(SemRequest(r.id, r.arrival, r.prompt + 1, r.output))

    def model_step(c: int) -> StepState:
        return states.get(c, StepState(c, (), (), (), (), (), 0))

    workload = {"instance": instance.to_dict(), "policy": policy, "params": {
        k: getattr(params, k) for k in params.__dataclass_fields__}}
    return lockstep("exact-scheduler", driver, model_step, lambda c: c >= last, workload, max_steps)
