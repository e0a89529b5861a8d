"""Configuration of the geosched vLLM scheduler, and the pieces shared by both worlds.

Pure Python: nothing here imports vLLM, so the pure-Python vLLM-semantics model
(:mod:`geosched.reference_impl.vllm.semantics`) and the plugin
(:mod:`geosched.reference_impl.vllm.plugin`) order and admit requests with the *same* code.

**Token accounting.** vLLM computes the KV of the ``P`` prompt tokens in the admitting step
and samples the first output token there; the KV of the last sampled token is never stored.
A request with ``P`` prompt tokens and ``o`` outputs therefore holds ``P, P+1, ..., P+o-1``
slots in its ``o`` steps: exactly the staircase ``s+1, ..., s+o`` of the paper's model
(Kong et al., arXiv 2606.22327, Sec. 2) with ``s = P - 1``. Its memory-time volume in vLLM
is ``sum_{j<o} (P + j) = volume(P - 1, o)``, so :func:`order_key` keys a vLLM request by the
model prompt ``s = P - 1`` (``docs/vllm.md``, "step correspondence").

**Configuration sources** (first that sets a field wins): a class made by
:func:`geosched.reference_impl.vllm.plugin.make_scheduler_class`; vLLM's
``additional_config={"geosched": {...}}`` (``LLM(..., additional_config=...)`` or
``vllm serve --additional-config '{"geosched": {...}}'``); the environment variables
``GEOSCHED_POLICY``, ``GEOSCHED_MODE``, ``GEOSCHED_PREDICTOR``, ``GEOSCHED_BACKFILL``; the
defaults (``svf``, ``paper``, ``oracle``, strict head-of-line).

Example
-------
>>> cfg = GeoschedSchedulerConfig.from_sources({"policy": "sjf", "mode": "native"}, env={})
>>> cfg.policy, cfg.mode, order_key(cfg.policy_object(), prompt_tokens=7, predicted=3)
('sjf', 'native', 3)
>>> order_key(make_policy("svf"), prompt_tokens=7, predicted=3)  # volume(6, 3) = 18 + 6
24
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import OneBitSVF, Policy, make_policy, parse_spec

__all__ = [
    "MODES",
    "LengthQuery",
    "OutputLengthPredictor",
    "GeoschedSchedulerConfig",
    "oracle_predictor",
    "resolve_predictor",
    "order_key",
]

MODES = ("paper", "native")
ENV_PREFIX = "GEOSCHED_"


@dataclass(frozen=True)
class LengthQuery:
    """What a predictor sees about one request (vLLM token counts)."""

    request_id: str  # vLLM request id
    prompt_tokens: int  # P: prompt tokens of the request
    max_tokens: int | None  # the request's max_tokens (None when unset)
    arrival_time: float  # vLLM arrival time (seconds, or the step in the harness)
    request: Any = None  # the vLLM Request object in the plugin; None in the pure model


OutputLengthPredictor = Callable[[LengthQuery], int]


def oracle_predictor(query: LengthQuery) -> int:
    """The exact output length when requests stop only at ``max_tokens`` (``ignore_eos``)."""
    if query.max_tokens is None:
        raise ValidationError(
            f"request {query.request_id!r}: max_tokens", None,
            "the oracle predictor needs max_tokens; plug in another predictor",
        )
    return int(query.max_tokens)


def resolve_predictor(spec: str | OutputLengthPredictor, *, start: bool = True) -> OutputLengthPredictor:
    """``"oracle"``, ``"learned[:kind=...,model=...,fallback=...,point=...,max_batch=...]"``, a
    ``"package.module:callable"`` path, or any callable ``LengthQuery -> int``.

    ``learned`` gives a :class:`~geosched.reference_impl.predictors.background.BackgroundPredictor`
    (predictions batched in a worker thread, started when ``start``; the plugin submits arrivals
    and completions to it and reads ready predictions, with its ``fallback`` meanwhile).
    """
    if callable(spec):
        return spec
    if not isinstance(spec, str) or not spec:
        raise ValidationError("predictor", spec, "must be 'oracle', 'module:callable' or a callable")
    if spec == "oracle":
        return oracle_predictor
    if spec == "learned" or spec.startswith("learned:"):
        return _learned_predictor(spec, start)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValidationError("predictor", spec, "must be 'oracle' or 'package.module:callable'")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValidationError("predictor", spec, f"cannot be imported ({exc})") from None
    if not callable(target):
        raise ValidationError("predictor", spec, "does not name a callable")
    return target


_LEARNED_KEYS = ("kind", "model", "fallback", "point", "max_batch")


def _learned_predictor(spec: str, start: bool) -> OutputLengthPredictor:
    from geosched.reference_impl.predictors.artifact import default_model_path, load_model
    from geosched.reference_impl.predictors.background import BackgroundPredictor

    _, params = parse_spec(spec)
    unknown = sorted(set(params) - set(_LEARNED_KEYS))
    if unknown:
        raise ValidationError("predictor", spec, f"unknown key(s) {', '.join(unknown)}; allowed: "
                                                 f"{', '.join(_LEARNED_KEYS)}")
    kind = params.get("kind")
    model = load_model(params.get("model") or default_model_path(kind or "point"), kind=kind)
    return BackgroundPredictor(model, fallback=params.get("fallback"), point=params.get("point", "median"),
                               max_batch=params.get("max_batch", 256), start=start)


def _parse_bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValidationError(name, value, "must be a boolean (true/false/1/0)")


@dataclass(frozen=True)
class GeoschedSchedulerConfig:
    """How the geosched scheduler orders and admits.

    ``policy`` is a spec of the policy registry (:mod:`geosched.reference_impl.policies`):
    ``fcfs``, ``sjf``, ``svf`` or ``svf1:theta=T,short_length=O0,long_length=O1`` (online,
    1-bit SVF needs its three parameters: there is no workload median to default to).
    ``mode`` is ``paper`` (admit only what passes the forward-looking check of the
    pure-Python policy, from predicted lengths) or ``native`` (vLLM's on-demand allocation
    and preemption; only the waiting order changes).
    """

    policy: str = "svf"  # policy spec, resolved by the registry
    mode: str = "paper"  # "paper" or "native"
    predictor: str | OutputLengthPredictor = "oracle"  # name, "module:callable", or a callable
    backfill: bool = False  # paper mode: skip a misfit and try later requests
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # unknown keys, kept for errors

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValidationError("geosched mode", self.mode, f"must be one of {', '.join(MODES)}")
        if self.extra:
            raise ValidationError(
                "geosched config", sorted(self.extra),
                "unknown key(s); allowed: policy, mode, predictor, backfill",
            )
        self.policy_object()  # validates the spec now, not at the first request
        resolve_predictor(self.predictor, start=False)  # validates it (a learned one loads its model file)

    def policy_object(self) -> Policy:
        """The registry policy; ``svf1`` must carry theta, short_length and long_length."""
        policy = make_policy(self.policy)
        if isinstance(policy, OneBitSVF) and None in (policy.theta, policy.short_length, policy.long_length):
            raise ValidationError(
                "geosched policy", self.policy,
                "svf1 needs explicit theta, short_length and long_length online "
                "(e.g. 'svf1:theta=128,short_length=40,long_length=400')",
            )
        return policy

    def predictor_callable(self) -> OutputLengthPredictor:
        return resolve_predictor(self.predictor)

    @classmethod
    def from_sources(
        cls,
        additional: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> GeoschedSchedulerConfig:
        """Merge ``additional_config["geosched"]`` over ``GEOSCHED_*`` variables over defaults."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for key in ("policy", "mode", "predictor", "backfill"):
            raw = env.get(ENV_PREFIX + key.upper())
            if raw not in (None, ""):
                values[key] = raw
        if additional is not None:
            if not isinstance(additional, Mapping):
                raise ValidationError("additional_config['geosched']", additional, "must be a mapping")
            extra = {k: v for k, v in additional.items() if k not in ("policy", "mode", "predictor", "backfill")}
            values.update({k: v for k, v in additional.items() if k not in extra})
            if extra:
                values["extra"] = extra
        if "backfill" in values:
            values["backfill"] = _parse_bool("geosched backfill", values["backfill"])
        return cls(**values)


def order_key(policy: Policy, prompt_tokens: int, predicted: int) -> Any:
    """The policy's priority key of a vLLM request with ``P = prompt_tokens``.

    The key is the registry policy's key of the model request ``(s, o_hat) = (P - 1, o_hat)``
    (see the module docstring: vLLM's footprint staircase is the model's with ``s = P - 1``).
    Smaller is served first; ties go by arrival, then request id.

    >>> order_key(make_policy("svf"), 1, 4)  # s = 0: volume = (16 + 4) / 2
    10
    """
    if isinstance(prompt_tokens, bool) or not isinstance(prompt_tokens, int) or prompt_tokens < 1:
        raise ValidationError("prompt_tokens", prompt_tokens, "must be an integer >= 1")
    if isinstance(predicted, bool) or not isinstance(predicted, int) or predicted < 1:
        raise ValidationError("predicted output length", predicted, "must be an integer >= 1")
    s = prompt_tokens - 1
    one = Instance(s + predicted, (Request("q", 0, s, predicted),))
    return policy.keys(one, [predicted])[0]
