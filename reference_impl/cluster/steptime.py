"""The step-time model: how long one continuous-batching iteration takes, in seconds.

One decode iteration of a replica (every running request produces one token) takes

.. math::  d = c_0 + c_1\\, b + c_2\\, K + c_p\\, P,

with ``b`` the requests in the batch, ``K`` the KV tokens they hold (every one of them is
read once by attention), and ``P`` the prompt tokens of the requests admitted just before
this iteration (their prefill runs in it, as with vLLM's chunked prefill folded into one
step). It is the linear roofline reading of a decode step: ``c_0`` reads the weights once,
``c_1`` is the dense compute of one more token, ``c_2`` the bandwidth of one more KV token,
``c_p`` the (compute-bound) prefill of one prompt token. SageSched (Gan et al., arXiv
2603.07917) calls this mix of compute and memory cost the *hybridity* of LLM inference.

The paper's unit-step model (Kong et al., arXiv 2606.22327, Sec. 2) is the special case
:meth:`StepTimeModel.unit`: ``c_0 = 1``, everything else 0, so that a step lasts one time
unit, a request takes ``o`` steps and there is no prefill time.

**Named parameter sets** (:data:`STEP_TIME_MODELS`, :func:`step_time_model`): Llama-3.1-8B
(one GPU) and Llama-3.1-70B (tensor parallel over 4 GPUs) on A100-80G and H100-80G. They are
*derived*, not measured, from these published figures:

* GPUs. A100-80G SXM: HBM2e 2,039 GB/s, BF16 dense 312 TFLOP/s (NVIDIA A100 Tensor Core GPU
  datasheet). H100-80G SXM: HBM3 3,350 GB/s, BF16 dense 989.4 TFLOP/s (NVIDIA H100 Tensor
  Core GPU datasheet; 1,979 TFLOP/s is the sparse figure). Both 80 GB.
* Models (Grattafiori et al., "The Llama 3 Herd of Models", arXiv 2407.21783, Table 3, and
  the released configurations): 8B: 8.03e9 parameters, 32 layers, 8 KV heads of dimension
  128; 70B: 70.6e9 parameters, 80 layers, 8 KV heads of dimension 128. BF16 weights and KV
  cache (2 bytes per value), so a token's KV entry is ``2 * layers * 8 * 128 * 2`` bytes:
  131,072 B (8B) and 327,680 B (70B).
* vLLM's default ``gpu_memory_utilization = 0.9``.

Derivation, with ``g`` GPUs per replica, weights ``W = 2 N`` bytes, KV bytes per token
``kappa``, bandwidth ``B``, peak FLOP/s ``F``:

* ``c_0 = W / (g * eta_B * B)``; ``c_1 = c_p = 2 N / (g * eta_F * F)``; ``c_2 = kappa / (g * eta_B * B)``;
* memory budget ``M = floor((g * 0.9 * 80e9 - W - g * 2e9) / kappa)`` tokens.

Assumptions (ours, not published): achieved bandwidth ``eta_B = 0.8`` and achieved compute
``eta_F = 0.5`` of peak; 2 GB per GPU reserved for activations; no tensor-parallel
communication cost, no CPU overhead per step, no attention FLOPs in the prefill term. The
resulting figures are of the right order for these systems (an 8B decode step of 6-10 ms at
small batch), but they are a model: who needs measured numbers should fit ``c_0..c_p`` to a
profile of their own and pass a :class:`StepTimeModel`.

Example
-------
>>> model = step_time_model("llama-3.1-8b", "H100-80G")
>>> round(model.c0 * 1e3, 2), round(model.c2 * 1e9, 1), model.memory
(5.99, 48.9, 411529)
>>> StepTimeModel.unit(40).decode_time(batch=3, kv_tokens=17)
1.0
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from geosched.errors import UnknownNameError, ValidationError

__all__ = [
    "StepTimeModel",
    "GpuSpec",
    "ModelSpec",
    "GPUS",
    "MODELS",
    "STEP_TIME_MODELS",
    "step_time_model",
    "replica_models",
    "derive_step_time",
    "BANDWIDTH_EFFICIENCY",
    "COMPUTE_EFFICIENCY",
]

BANDWIDTH_EFFICIENCY = 0.8  # assumed fraction of peak HBM bandwidth achieved by decode kernels
COMPUTE_EFFICIENCY = 0.5  # assumed fraction of peak BF16 FLOP/s achieved by dense matmuls
_MEMORY_UTILIZATION = 0.9  # vLLM's default gpu_memory_utilization
_ACTIVATION_RESERVE = 2e9  # bytes per GPU kept for activations (assumed)


@dataclass(frozen=True)
class StepTimeModel:
    """Seconds per iteration: ``c0 + c1 * batch + c2 * kv_tokens + c_prefill * prompt_tokens``."""

    name: str  # e.g. "llama-3.1-8b@A100-80G"
    c0: float  # seconds per iteration (weights read once)
    c1: float  # seconds per request in the batch (dense compute of one token)
    c2: float  # seconds per KV token held (attention reads it)
    c_prefill: float  # seconds per prompt token prefilled
    memory: int  # KV-cache budget M in tokens
    flops_per_token: float = 1.0  # dense FLOPs of one token (2 * parameters); 1 for the unit model

    def __post_init__(self) -> None:
        for field_name in ("c0", "c1", "c2", "c_prefill", "flops_per_token"):
            value = getattr(self, field_name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValidationError(f"step time {field_name}", value, "must be a finite number >= 0")
        if not self.c0 > 0:
            raise ValidationError("step time c0", self.c0, "must be > 0 (an iteration takes time)")
        if isinstance(self.memory, bool) or not isinstance(self.memory, int) or self.memory < 1:
            raise ValidationError("step time memory", self.memory, "must be an integer >= 1")

    @classmethod
    def unit(cls, memory: int) -> StepTimeModel:
        """The paper's unit-step model: one time unit per step, no prefill, memory ``M``."""
        return cls("unit", 1.0, 0.0, 0.0, 0.0, memory)

    def with_memory(self, memory: int) -> StepTimeModel:
        """The same timings with another KV budget."""
        return StepTimeModel(self.name, self.c0, self.c1, self.c2, self.c_prefill, memory, self.flops_per_token)

    def decode_time(self, *, batch: int, kv_tokens: int, prompt_tokens: int = 0) -> float:
        """Seconds of one iteration with ``batch`` requests holding ``kv_tokens``."""
        return self.c0 + self.c1 * batch + self.c2 * kv_tokens + self.c_prefill * prompt_tokens

    def isolated_latency(self, prompt: int, output: int) -> float:
        """Seconds for one request alone: its prefill and ``output`` iterations at batch 1.

        ``c_p s + sum_{k=1}^{o} (c0 + c1 + c2 (s + k)) = c_p s + o (c0 + c1) + c2 v(s, o)``.
        """
        volume = prompt * output + (output * output + output) // 2
        return self.c_prefill * prompt + output * (self.c0 + self.c1) + self.c2 * volume


@dataclass(frozen=True)
class GpuSpec:
    """Published figures of one GPU."""

    name: str
    bandwidth: float  # bytes per second (HBM, peak)
    flops: float  # BF16 dense FLOP/s (peak)
    memory_bytes: float  # HBM capacity in bytes
    source: str  # where the figures come from


@dataclass(frozen=True)
class ModelSpec:
    """Published figures of one model."""

    name: str
    parameters: float  # number of parameters
    layers: int
    kv_heads: int
    head_dim: int
    gpus: int  # tensor-parallel degree of one replica (our choice)
    source: str

    @property
    def kv_bytes_per_token(self) -> int:
        """Keys and values of every layer, BF16: ``2 * layers * kv_heads * head_dim * 2``."""
        return 2 * self.layers * self.kv_heads * self.head_dim * 2


GPUS: dict[str, GpuSpec] = {
    "A100-80G": GpuSpec("A100-80G", 2.039e12, 312e12, 80e9, "NVIDIA A100 Tensor Core GPU datasheet (SXM, 80GB)"),
    "H100-80G": GpuSpec("H100-80G", 3.35e12, 989.4e12, 80e9, "NVIDIA H100 Tensor Core GPU datasheet (SXM)"),
}

MODELS: dict[str, ModelSpec] = {
    "llama-3.1-8b": ModelSpec("llama-3.1-8b", 8.03e9, 32, 8, 128, 1, "arXiv 2407.21783 Table 3; released config"),
    "llama-3.1-70b": ModelSpec("llama-3.1-70b", 70.6e9, 80, 8, 128, 4, "arXiv 2407.21783 Table 3; released config"),
}


def derive_step_time(model: ModelSpec, gpu: GpuSpec, *, bandwidth_efficiency: float = BANDWIDTH_EFFICIENCY,
                     compute_efficiency: float = COMPUTE_EFFICIENCY) -> StepTimeModel:
    """The roofline coefficients of ``model`` on ``model.gpus`` GPUs of kind ``gpu`` (module docstring)."""
    g = model.gpus
    weights = 2.0 * model.parameters
    bandwidth = g * bandwidth_efficiency * gpu.bandwidth
    per_token_compute = 2.0 * model.parameters / (g * compute_efficiency * gpu.flops)
    kv_bytes = g * _MEMORY_UTILIZATION * gpu.memory_bytes - weights - g * _ACTIVATION_RESERVE
    if kv_bytes <= 0:
        raise ValidationError(f"{model.name} on {g} x {gpu.name}", kv_bytes, "leaves no memory for the KV cache")
    return StepTimeModel(
        name=f"{model.name}@{gpu.name}",
        c0=weights / bandwidth,
        c1=per_token_compute,
        c2=model.kv_bytes_per_token / bandwidth,
        c_prefill=per_token_compute,
        memory=int(kv_bytes // model.kv_bytes_per_token),
        flops_per_token=2.0 * model.parameters,
    )


STEP_TIME_MODELS: dict[tuple[str, str], StepTimeModel] = {
    (m, g): derive_step_time(MODELS[m], GPUS[g]) for m in MODELS for g in GPUS
}


def step_time_model(model: str, gpu: str) -> StepTimeModel:
    """The named parameter set of ``model`` on ``gpu`` (see :data:`STEP_TIME_MODELS`).

    Raises
    ------
    UnknownNameError
        For an unknown model or GPU name (the message lists the known ones).

    Examples
    --------
    >>> step_time_model("llama-3.1-70b", "A100-80G").name
    'llama-3.1-70b@A100-80G'
    """
    if model not in MODELS:
        raise UnknownNameError("model", model, list(MODELS))
    if gpu not in GPUS:
        raise UnknownNameError("GPU", gpu, list(GPUS))
    return STEP_TIME_MODELS[(model, gpu)]


_SPEC = re.compile(r"^\s*(\d+)\s*x\s*([A-Za-z0-9._-]+)\s*$")
_MAX_REPLICAS = 100_000


def replica_models(spec: str, *, model: str = "llama-3.1-8b", memory: int | None = None,
                   unit_memory: int | None = None) -> list[StepTimeModel]:
    """The replicas of a spec such as ``"4xA100-80G,4xH100-80G"``, in order.

    Each item is ``COUNTxGPU`` with a GPU of :data:`GPUS`, or ``unit`` (the unit-step model,
    whose budget is ``memory``, else ``unit_memory``). ``memory`` overrides every replica's KV budget.

    Raises
    ------
    ValidationError
        For a malformed spec (one line naming it).
    UnknownNameError
        For an unknown model.

    Examples
    --------
    >>> [m.name for m in replica_models("1xA100-80G,2xunit", memory=500)]
    ['llama-3.1-8b@A100-80G', 'unit', 'unit']
    """
    usage = f"must look like 4xA100-80G,4xH100-80G (GPUs: {', '.join(GPUS)}, unit)"
    if model not in MODELS:
        raise UnknownNameError("model", model, list(MODELS))
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory < 1):
        raise ValidationError("memory", memory, "must be an integer >= 1")
    models: list[StepTimeModel] = []
    for item in spec.split(","):
        match = _SPEC.match(item)
        if match is None or int(match.group(1)) < 1 or (match.group(2) not in GPUS and match.group(2) != "unit"):
            raise ValidationError("--replicas", spec, usage)
        count, gpu = int(match.group(1)), match.group(2)
        if len(models) + count > _MAX_REPLICAS:
            raise ValidationError("--replicas", spec, f"at most {_MAX_REPLICAS} replicas")
        if gpu == "unit":
            budget = memory if memory is not None else unit_memory
            if budget is None:
                raise ValidationError("--replicas", spec, "unit replicas need a memory budget (--memory)")
            base = StepTimeModel.unit(budget)
        else:
            base = step_time_model(model, gpu)
            base = base if memory is None else base.with_memory(memory)
        models.extend([base] * count)
    return models
