"""SageSched's hybrid cost of a request: compute and KV memory, priced in seconds.

SageSched (Gan et al., arXiv 2603.07917, abstract) prices an inference request by its
"true service cost ... with both compute and memory aspects considered". geosched's form:

.. math::  C(s, o) = w_{c}\\, \\mathrm{FLOPs}(s, o) + w_{m}\\, v(s, o),
           \\qquad \\mathrm{FLOPs}(s, o) = 2N (s + o),
           \\qquad v(s, o) = s\\,o + (o^2 + o)/2,

with ``2N`` the dense FLOPs of one token and ``v`` the memory-time volume of Kong et al.
(arXiv 2606.22327, Eq. (1)): the KV tokens the request holds, summed over its decode steps.

**The weights come from the step-time model's bottlenecks**
(:class:`~geosched.reference_impl.cluster.steptime.StepTimeModel`). A request adds to the
iteration time ``c_1`` (compute of its token) and ``c_2 (s + k)`` (its KV tokens read) at its
``k``-th decode step, and ``c_p s`` once for its prefill. Summed over its life, that is
``c_p s + c_1 o + c_2 v(s, o)``: the compute roofline prices a FLOP at ``w_c = c_1 / 2N``
seconds (``= c_p / 2N`` in the named parameter sets, where prefill and decode compute run at
the same rate), the bandwidth roofline prices one KV token read in one step at
``w_m = c_2`` seconds. So ``C`` is the machine time the request costs its replica, beyond the
per-iteration constant ``c_0`` that the whole batch shares. On an A100 with Llama-3.1-8B a
request ``(s, o) = (1000, 200)`` costs 0.124 s of compute and 0.018 s of memory; a request with
a long output is memory-heavy (``v`` grows like ``o^2``).

**Under a length distribution** ``D`` (:class:`~geosched.reference_impl.predictors.LengthDistribution`)
the expected cost is exact over the bins, since ``C`` is linear in ``o`` and ``v``:
``E[C] = w_c 2N (s + E[o]) + w_m E[v]`` with ``E[v] = s E[o] + (E[o^2] + E[o]) / 2``.

Ablations (:data:`COST_KINDS`): ``memory`` keeps only the ``w_m`` term (expected-volume order,
SVF under a distribution), ``compute`` only the ``w_c`` term (expected-token order).

Example
-------
>>> from geosched.reference_impl.cluster.steptime import StepTimeModel
>>> cost = HybridCost.from_step_time(StepTimeModel("toy", 1.0, 0.5, 0.01, 0.5, 100, flops_per_token=2.0))
>>> cost.w_compute, cost.w_memory, cost.point(2, 3)  # 0.25*2*(2+3) + 0.01*(6 + 6)
(0.25, 0.01, 2.62)
"""

from __future__ import annotations

from dataclasses import dataclass

from geosched.errors import ValidationError
from geosched.reference_impl.cluster.steptime import StepTimeModel
from geosched.reference_impl.predictors import LengthDistribution

__all__ = ["HybridCost", "COST_KINDS", "expected_volume"]

COST_KINDS = ("hybrid", "memory", "compute")


def expected_volume(prompt: int, mean: float, second_moment: float) -> float:
    """``E[v] = s E[o] + (E[o^2] + E[o]) / 2`` from the first two moments of ``o``."""
    return prompt * mean + (second_moment + mean) / 2


@dataclass(frozen=True)
class HybridCost:
    """``w_compute * FLOPs + w_memory * volume`` in seconds; ``kind`` says which terms are kept."""

    w_compute: float  # seconds per dense FLOP (c_1 / 2N)
    w_memory: float  # seconds per KV token held for one step (c_2)
    flops_per_token: float  # 2N
    kind: str = "hybrid"  # "hybrid", "memory" (w_compute dropped) or "compute" (w_memory dropped)

    def __post_init__(self) -> None:
        if self.kind not in COST_KINDS:
            raise ValidationError("cost kind", self.kind, f"must be one of {', '.join(COST_KINDS)}")

    @classmethod
    def from_step_time(cls, model: StepTimeModel, kind: str = "hybrid") -> HybridCost:
        """Weights from the step-time model's bottlenecks: ``w_c = c_1 / 2N``, ``w_m = c_2``."""
        return cls(model.c1 / model.flops_per_token, model.c2, model.flops_per_token, kind)

    @property
    def compute_weight(self) -> float:
        """Seconds per token of dense compute (``w_c 2N``, 0 for the memory-only cost)."""
        return 0.0 if self.kind == "memory" else self.w_compute * self.flops_per_token

    @property
    def memory_weight(self) -> float:
        """Seconds per unit of volume (``w_m``, 0 for the compute-only cost)."""
        return 0.0 if self.kind == "compute" else self.w_memory

    def from_moments(self, prompt: int, mean: float, volume: float) -> float:
        """The cost from ``E[o]`` and ``E[v]`` (what every other method reduces to)."""
        return self.compute_weight * (prompt + mean) + self.memory_weight * volume

    def point(self, prompt: int, output: int) -> float:
        """The cost of a request whose output length is known."""
        return self.from_moments(prompt, output, prompt * output + (output * output + output) / 2)

    def expected(self, prompt: int, distribution: LengthDistribution) -> float:
        """``E[C]`` under ``distribution``, exact over its bins."""
        mean = distribution.mean()
        return self.from_moments(prompt, mean, expected_volume(prompt, mean, distribution.second_moment()))
