"""Priority rules as schedulers of the protocol.

A priority rule (:mod:`geosched.reference_impl.policies`: Kong et al., arXiv 2606.22327,
Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1) is one implementation of
:class:`~geosched.reference_impl.scheduling.Scheduler`: at each step it scans the waiting
requests in ``(key, arrival, position)`` order and admits a candidate when the batch fits at
every future completion step (the forward-looking check, through
:func:`~geosched.reference_impl.simulator.admission_step`, the very function the
event-driven simulator calls). It never preempts and it is clairvoyant (it reads the lengths
its keys were computed from). :func:`~geosched.reference_impl.simulator.simulate` does not
run it step by step: ``priority_rule`` routes it to the event-driven engine (the fast path);
the tests check that both give the same starts.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.policies import make_policy
>>> from geosched.reference_impl.schedulers.engine import run_scheduler
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> run_scheduler(inst, PriorityRuleScheduler(make_policy("svf"), inst)).completions
{'r0': 8, 'r1': 5}
"""

from __future__ import annotations

from typing import Any

from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import Policy
from geosched.reference_impl.scheduling import Decision, SchedulerState
from geosched.reference_impl.simulator import admission_step

__all__ = ["PriorityRuleScheduler"]


class PriorityRuleScheduler:
    """``policy``'s keys for ``instance`` (exact lengths), scanned step by step."""

    clairvoyant = True
    preempts = False

    def __init__(self, policy: Policy, instance: Instance, *, backfill: bool = False) -> None:
        self.priority_rule = policy  # simulate() runs this on the event-driven engine
        self.name = policy.name
        self.backfill = backfill
        keys = policy.keys(instance, [r.output for r in instance.requests])
        self.keys: dict[str, Any] = {r.id: key for r, key in zip(instance.requests, keys)}

    def decide(self, state: SchedulerState) -> Decision:
        waiting = sorted(state.waiting, key=lambda w: (self.keys[w.id], w.arrival, w.position))
        running = [(r.prompt, r.start, r.start + r.output) for r in state.running]
        chosen = admission_step(state.memory, state.time, running, [(w.prompt, w.output) for w in waiting],
                                backfill=self.backfill)
        return Decision(admit=tuple(waiting[k].id for k in chosen))
