"""geosched for vLLM 0.33: an SVF/SJF/1-bit-SVF scheduler plugin, a vLLM-semantics mode of
the pure-Python model, and a differential harness between the two (``docs/vllm.md``).

Importing this package never imports vLLM (geosched does not depend on it). The plugin,
``geosched.reference_impl.vllm.plugin.GeoschedScheduler``, imports vLLM when it is loaded;
``GeoschedScheduler``, ``KeyOrderedQueue`` and ``make_scheduler_class`` are also reachable
here lazily. Turn the plugin on with::

    LLM(model=..., scheduler_cls="geosched.reference_impl.vllm.plugin.GeoschedScheduler",
        additional_config={"geosched": {"policy": "svf", "mode": "paper"}}, async_scheduling=False)

Example (pure Python, no vLLM)
------------------------------
>>> from geosched.reference_impl.vllm import EngineParams, SemRequest, VllmSemantics
>>> sim = VllmSemantics(EngineParams(capacity_blocks=12))
>>> sim.add(SemRequest("a", 0, prompt_tokens=3, max_tokens=2))
>>> [(s.step, s.blocks_used) for s in sim.run()]
[(0, 3), (1, 4)]
"""

from __future__ import annotations

from typing import Any

from geosched.reference_impl.vllm.admission import PaperGate
from geosched.reference_impl.vllm.config import (
    GeoschedSchedulerConfig,
    LengthQuery,
    oracle_predictor,
    order_key,
    resolve_predictor,
)
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, StepState, VllmSemantics

__all__ = [
    "EngineParams",
    "GeoschedSchedulerConfig",
    "LengthQuery",
    "PaperGate",
    "SemRequest",
    "StepState",
    "VllmSemantics",
    "oracle_predictor",
    "order_key",
    "resolve_predictor",
    "GeoschedScheduler",
    "KeyOrderedQueue",
    "make_scheduler_class",
]

_LAZY = {"GeoschedScheduler", "KeyOrderedQueue", "make_scheduler_class"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from geosched.reference_impl.vllm import plugin  # imports vLLM

        return getattr(plugin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
