"""geosched.reference_impl.schedulers: the schedulers of the protocol (:mod:`geosched.reference_impl.scheduling`),
one module per family, each declaring its registry entries (``SCHEDULERS``) beside its classes.

* :mod:`~geosched.reference_impl.schedulers.priority`: the priority rules as protocol schedulers
  (the event-driven engine runs the same rules event by event) and the entries of ``fcfs``, ``sjf``,
  ``svf``, ``svf1``;
* :mod:`~geosched.reference_impl.schedulers.vllm`: stock vLLM's rules (``vllm-fcfs``,
  ``vllm-priority``), the one implementation the vLLM-semantics model also runs;
* :mod:`~geosched.reference_impl.schedulers.geometric`: the non-clairvoyant geometric-guess
  scheduler (``geo-guess``) and its clairvoyant batching counterpart (``geo-batch``).

A new module here that defines ``SCHEDULERS = (SchedulerEntry(...), ...)`` is found by the registry
with no other file edited. The engines that run them are in :mod:`geosched.reference_impl.engine`.
Nothing is imported here: each module is loaded when the registry scans the package, or when one of
the names below is first used (:mod:`geosched._lazy`).
"""

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

# the public names, each declared once (geosched._lazy reads this block; each is imported on first use)
if TYPE_CHECKING:
    from geosched.reference_impl.schedulers.geometric import GeometricBatch as GeometricBatch
    from geosched.reference_impl.schedulers.geometric import GeometricGuess as GeometricGuess
    from geosched.reference_impl.schedulers.priority import PriorityRuleScheduler as PriorityRuleScheduler
    from geosched.reference_impl.schedulers.vllm import VllmFcfs as VllmFcfs
    from geosched.reference_impl.schedulers.vllm import VllmPriority as VllmPriority

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
