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
the tests check that both give the same starts. At block grain (``block_size > 1``) it runs on
the step engine with :func:`~geosched.reference_impl.simulator.block_admission_step`. Both are
defined beside the forward check in :mod:`geosched.reference_impl.simulator`, which runs them,
and re-exported here.

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

from geosched.reference_impl.simulator import PriorityRuleScheduler, block_admission_step

__all__ = ["PriorityRuleScheduler", "block_admission_step"]
