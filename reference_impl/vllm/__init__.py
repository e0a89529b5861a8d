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

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports
from geosched.reference_impl.vllm.admission import PaperGate as PaperGate
from geosched.reference_impl.vllm.config import GeoschedSchedulerConfig as GeoschedSchedulerConfig
from geosched.reference_impl.vllm.config import LengthQuery as LengthQuery
from geosched.reference_impl.vllm.config import oracle_predictor as oracle_predictor
from geosched.reference_impl.vllm.config import order_key as order_key
from geosched.reference_impl.vllm.config import resolve_predictor as resolve_predictor
from geosched.reference_impl.vllm.semantics import EngineParams as EngineParams
from geosched.reference_impl.vllm.semantics import SemRequest as SemRequest
from geosched.reference_impl.vllm.semantics import StepState as StepState
from geosched.reference_impl.vllm.semantics import VllmSemantics as VllmSemantics

if TYPE_CHECKING:  # loaded on first use (they import vLLM)
    from geosched.reference_impl.vllm.plugin import GeoschedScheduler as GeoschedScheduler
    from geosched.reference_impl.vllm.plugin import KeyOrderedQueue as KeyOrderedQueue
    from geosched.reference_impl.vllm.plugin import make_scheduler_class as make_scheduler_class

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
