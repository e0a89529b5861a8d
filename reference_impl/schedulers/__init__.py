"""geosched.reference_impl.schedulers: schedulers of the protocol
(:mod:`geosched.reference_impl.scheduling`) beyond priority rules, and the step engine.

* :mod:`~geosched.reference_impl.schedulers.engine`: the step-driven loop that runs any
  scheduler in the exact model with restarts (:func:`run_scheduler`);
* :mod:`~geosched.reference_impl.schedulers.priority`: the priority rules as protocol
  schedulers (the simulator's fast path runs the same rules event by event);
* :mod:`~geosched.reference_impl.schedulers.vllm`: stock vLLM's rules (``vllm-fcfs``,
  ``vllm-priority``), the one implementation the vLLM-semantics model also runs;
* :mod:`~geosched.reference_impl.schedulers.geometric`: the non-clairvoyant geometric-guess
  scheduler (``geo-guess``) and its clairvoyant batching counterpart (``geo-batch``).

Nothing is imported here: each module is loaded when a registry entry names it, or when one of
the names below is first used (:mod:`geosched.lazy`).
"""

from geosched.lazy import lazy_exports

# public name -> the module that defines it (imported on first access)
_EXPORTS = {
    "run_scheduler": "geosched.reference_impl.schedulers.engine",
    "StepRun": "geosched.reference_impl.schedulers.engine",
    "PriorityRuleScheduler": "geosched.reference_impl.schedulers.priority",
    "VllmFcfs": "geosched.reference_impl.schedulers.vllm",
    "VllmPriority": "geosched.reference_impl.schedulers.vllm",
    "GeometricGuess": "geosched.reference_impl.schedulers.geometric",
    "GeometricBatch": "geosched.reference_impl.schedulers.geometric",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ = ["run_scheduler", "StepRun", "PriorityRuleScheduler", "VllmFcfs", "VllmPriority", "GeometricGuess",
           "GeometricBatch"]
