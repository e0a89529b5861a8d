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

Nothing is imported here: each module is loaded when a registry entry names it.
"""
