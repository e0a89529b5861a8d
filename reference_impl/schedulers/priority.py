"""Priority rules as schedulers of the protocol, and their registry entries.

A priority rule (:mod:`geosched.reference_impl.policies`: Kong et al., arXiv 2606.22327,
Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1) is one implementation of
:class:`~geosched.reference_impl.scheduling.Scheduler`: at each step it scans the waiting
requests in ``(key, arrival, position)`` order and admits a candidate when the batch fits at
every future completion step (the forward-looking check,
:func:`~geosched.reference_impl.admission.admission_step`, the very function the event-driven
engine's decisions call, at token or block grain). It never preempts and it is clairvoyant (it
reads the lengths its keys were computed from). :func:`~geosched.reference_impl.simulation.simulate`
does not run it step by step at token grain: ``priority_rule`` routes it to the event-driven engine
(the fast path); the tests check that both give the same starts. At block grain
(``block_size > 1``) it runs on the step engine.

:data:`SCHEDULERS` declares the registry entries of the four built-in rules (``fcfs``, ``sjf``,
``svf``, ``svf1``; their classes are in :mod:`geosched.reference_impl.policies`), found by
:mod:`geosched.reference_impl.scheduling` as it finds every module's.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.policies import make_policy
>>> from geosched.reference_impl.engine import run_scheduler
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> run_scheduler(inst, PriorityRuleScheduler(make_policy("svf"), inst)).completions
{'r0': 8, 'r1': 5}
"""

from __future__ import annotations

from typing import Any

from geosched.reference_impl.admission import admission_step
from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import FCFS, OneBitSVF, Policy, ShortestJobFirst, SmallestVolumeFirst
from geosched.reference_impl.scheduler_registry import SchedulerEntry
from geosched.reference_impl.scheduling import Capability, Decision, SchedulerState

__all__ = ["PriorityRuleScheduler", "SCHEDULERS"]

_RULE = frozenset({Capability.SIMULATOR, Capability.FAST, Capability.Z3, Capability.VLLM,
                   Capability.PRIORITY_RULE, Capability.CLAIRVOYANT})
SCHEDULERS = (
    SchedulerEntry("fcfs", FCFS, "first come, first served", _RULE, order=10),
    SchedulerEntry("sjf", ShortestJobFirst, "shortest predicted output first (MC-SF)", _RULE, order=10),
    SchedulerEntry("svf", SmallestVolumeFirst, "smallest predicted volume first (SVF)", _RULE, order=10),
    SchedulerEntry("svf1", OneBitSVF, "1-bit SVF: proxy volume of the short/long class", _RULE - {Capability.Z3},
                   order=10),
)


class PriorityRuleScheduler:
    """A priority rule as a scheduler of the protocol: ``policy``'s keys for ``instance`` (exact
    lengths), scanned step by step."""

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
        chosen = admission_step(state.memory, state.time, running, candidates, backfill=self.backfill,
                                block_size=state.block_size)
        return Decision(admit=tuple(waiting[k].id for k in chosen))
