"""Scheduling policies as priority keys, and the one registry of policies by name.

Every policy here is a *priority rule*: waiting requests are scanned in increasing
``(key, arrival, position)`` order, where ``position`` is the request's index in the
instance, and admitted while the simulator's forward-looking memory check passes. Request
ids are labels only: renaming them never changes a schedule. The rule sees only the prompt
and the *predicted* output length.

* ``fcfs``: key 0, so the order is arrival then position.
* ``sjf``: key ``o_hat``: shortest (predicted) output first. With the forward-looking check
  this is MC-SF, the Memory-Constrained Shortest-First rule of Jaillet et al.
  (arXiv 2502.07115, Algorithm 1).
* ``svf``: key ``s*o_hat + (o_hat^2 + o_hat)/2``: Smallest Volume First (Kong et al.,
  arXiv 2606.22327, Algorithm 1).
* ``svf1``: 1-bit SVF (Kong et al., Sec. 4): the class is short iff ``o_hat <= theta``, and
  the key is the *proxy* volume ``s*O + (O^2 + O)/2`` with ``O = O_0`` for short and
  ``O = O_1`` for long requests. Defaults: ``theta`` = the median predicted output of the
  workload, ``O_0``/``O_1`` = the mean predicted output of each class.

**The registry** (:data:`REGISTRY`, the one registry of everything that schedules,
:mod:`geosched.reference_impl.scheduling`; these rules carry ``Capability.PRIORITY_RULE``)
is the one place policy names live, each with its :class:`Capability` set: who can run it
(the simulator always; the adversary's compiled
evaluator when the policy has ``array_keys``; the Z3 specifications of
:mod:`geosched.verify.policy_spec` and :mod:`geosched.adversary.z3search`, which encode the
key independently on purpose and register under these names; the vLLM plugin). Every list of
names and every command-line choice is derived from it with :func:`policy_names`.
:func:`register_policy` adds one; :func:`make_policy` with an unknown name raises
:class:`~geosched.errors.UnknownNameError` listing the known ones.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> make_policy("svf").keys(inst, [3, 5]), make_policy("sjf").keys(inst, [3, 5])
([24, 20], [3, 5])
>>> policy_names(Capability.Z3)
('fcfs', 'sjf', 'svf')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.model import MAX_VALUE, Instance
from geosched.reference_impl.scheduler_registry import REGISTRY, SchedulerEntry
from geosched.reference_impl.scheduling import Capability

__all__ = [
    "Policy",
    "Capability",
    "FCFS",
    "ShortestJobFirst",
    "SmallestVolumeFirst",
    "OneBitSVF",
    "REGISTRY",
    "policy_names",
    "make_policy",
    "register_policy",
    "parse_spec",
    "one_bit_parameters",
]


@runtime_checkable
class Policy(Protocol):
    """A priority rule: smaller key = served first; ties by arrival, then position.

    ``parameters`` returns what the policy resolved for these predictions (empty for rules
    without run-time parameters); the simulator records it in its result.
    """

    name: str

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[Any]:
        """One comparable key per request, aligned with ``instance.requests``."""
        ...

    def parameters(self, predicted: Sequence[int]) -> dict[str, Any]:
        """Parameters resolved at run time (for example 1-bit SVF's threshold)."""
        ...


def _volumes(prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
    return prompt * output + (output * output + output) // 2


def _dtype_of(values: Any) -> Any:
    """``object`` for arrays of Python integers (kept exact), else int64."""
    return object if getattr(values, "dtype", None) is np.dtype(object) else np.int64


_INT64_SAFE = 2**30  # s + o below this keeps s*o + (o^2 + o)/2 < (s + o)^2 < 2^62 in int64


def _key_arrays(instance: Instance, predicted: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Prompts and predictions as int64, or as Python integers (exact) when a volume could
    pass int64 (lengths up to the model's 2^53 make volumes up to about 2^106)."""
    prompts = [r.prompt for r in instance.requests]
    predictions = [int(v) for v in predicted]
    large = max(prompts, default=0) + max(predictions, default=0) >= _INT64_SAFE
    dtype = object if large else np.int64
    return np.array(prompts, dtype=dtype), np.array(predictions, dtype=dtype)


class _NoParameters:
    def parameters(self, predicted: Sequence[int]) -> dict[str, Any]:
        return {}

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        return [int(key) for key in self.array_keys(*_key_arrays(instance, predicted)).tolist()]


@dataclass(frozen=True)
class FCFS(_NoParameters):
    """First come, first served."""

    name: str = "fcfs"

    def array_keys(self, prompt: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """Keys of many requests at once (the adversary's compiled evaluator uses them)."""
        return np.zeros(len(predicted), dtype=np.int64)


@dataclass(frozen=True)
class ShortestJobFirst(_NoParameters):
    """Shortest predicted output first (MC-SF with the forward-looking check)."""

    name: str = "sjf"

    def array_keys(self, prompt: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """Keys of many requests at once."""
        return np.array(predicted, dtype=_dtype_of(predicted))


@dataclass(frozen=True)
class SmallestVolumeFirst(_NoParameters):
    """Smallest predicted memory-time volume first."""

    name: str = "svf"

    def array_keys(self, prompt: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """Keys of many requests at once."""
        return _volumes(np.asarray(prompt, dtype=_dtype_of(prompt)), np.asarray(predicted, dtype=_dtype_of(predicted)))


def one_bit_parameters(
    lengths: Sequence[int],
    theta: int | None = None,
    short_length: int | None = None,
    long_length: int | None = None,
) -> tuple[int, int, int]:
    """``(theta, O_0, O_1)`` of a short/long split of ``lengths``; given values are kept.

    Defaults: ``theta`` is the median length (short iff ``o <= theta``); ``O_0`` and ``O_1``
    are the rounded mean lengths of each class, the empirical ``E[o | o <= theta]`` and
    ``E[o | o > theta]`` of Kong et al., Thm. 3.5 (an empty class gets ``theta // 2`` or
    ``2 * theta``). Shared by the ``svf1`` policy and the ``onebit`` predictor
    (:mod:`geosched.reference_impl.predictors`, which imports it from here).

    >>> one_bit_parameters([1, 2, 9, 10])
    (5, 2, 10)
    """
    values = np.asarray(lengths, dtype=np.int64)
    if theta is None:
        theta = int(np.median(values)) if values.size else 1
    short, long_ = values[values <= theta], values[values > theta]
    o0 = short_length or (max(1, round(float(short.mean()))) if short.size else max(1, theta // 2))
    o1 = long_length or (max(1, round(float(long_.mean()))) if long_.size else 2 * theta)
    return theta, o0, o1


@dataclass(frozen=True)
class OneBitSVF:
    """1-bit SVF: proxy volume of the predicted class (short iff ``o_hat <= theta``)."""

    theta: int | None = None  # class threshold; None: median predicted output
    short_length: int | None = None  # O_0; None: mean predicted output of the short class
    long_length: int | None = None  # O_1; None: mean predicted output of the long class
    name: str = "svf1"

    def __post_init__(self) -> None:
        for field_name in ("theta", "short_length", "long_length"):
            value = getattr(self, field_name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 1 <= value <= MAX_VALUE):
                raise ValidationError(f"svf1 {field_name}", value, "must be an integer in [1, 2^53]")

    def resolved(self, predicted: Sequence[int]) -> tuple[int, int, int]:
        """``(theta, O_0, O_1)`` resolved for these predictions."""
        return one_bit_parameters(predicted, self.theta, self.short_length, self.long_length)

    def parameters(self, predicted: Sequence[int]) -> dict[str, Any]:
        theta, o0, o1 = self.resolved(predicted)
        return {"theta": theta, "short_length": o0, "long_length": o1}

    def array_keys(self, prompt: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """Keys of many requests at once."""
        predicted = np.asarray(predicted, dtype=_dtype_of(predicted))
        theta, o0, o1 = self.resolved(predicted)
        if predicted.dtype == object:
            proxy = np.array([o1 if p > theta else o0 for p in predicted.tolist()], dtype=object)
        else:
            proxy = np.where(predicted > theta, o1, o0)
        return _volumes(np.asarray(prompt, dtype=_dtype_of(prompt)), proxy)

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        return [int(key) for key in self.array_keys(*_key_arrays(instance, predicted)).tolist()]


_PRIORITY_RULE = frozenset({Capability.SIMULATOR, Capability.PRIORITY_RULE, Capability.CLAIRVOYANT})


def policy_names(capability: Capability | None = None) -> tuple[str, ...]:
    """The registered priority rules, in registration order; with ``capability``, those that
    have it (:func:`geosched.reference_impl.scheduler_registry.scheduler_names` lists every scheduler).

    >>> policy_names()[:4]  # the papers' rules come first (their entries' order); a new rule follows them
    ('fcfs', 'sjf', 'svf', 'svf1')
    """
    return tuple(name for name, entry in REGISTRY.items() if Capability.PRIORITY_RULE in entry.capabilities
                 and (capability is None or capability in entry.capabilities))


def register_policy(name: str, factory: Callable[..., Policy], *, summary: str = "",
                    capabilities: Iterable[Capability] = (Capability.SIMULATOR,)) -> None:
    """Add a policy under ``name`` (overwrites an existing one on purpose).

    ``capabilities`` defaults to the simulator alone: the compiled evaluator, the Z3
    specifications and the vLLM plugin know only the policies they were written for.
    """
    REGISTRY[name] = SchedulerEntry(name, factory, summary or name, frozenset(capabilities) | _PRIORITY_RULE)


def make_policy(name: str, **params: Any) -> Policy:
    """Build a registered policy; accepts a spec ``"svf1:theta=10,short_length=3"`` too.

    Parameters
    ----------
    name : str
        A registered name, optionally followed by ``:key=value,...`` parameters.
    **params
        More parameters (they win over the spec's).

    Returns
    -------
    Policy

    Raises
    ------
    UnknownNameError
        When the name is not registered (the message lists the known ones).
    ValidationError
        When a parameter is unknown or invalid.

    Examples
    --------
    >>> make_policy("svf1:theta=8").theta
    8
    """
    if ":" in name:
        name, extra = parse_spec(name)
        params = {**extra, **params}
    entry = REGISTRY.get(name)
    if entry is None or Capability.PRIORITY_RULE not in entry.capabilities:
        raise UnknownNameError("policy", name, list(policy_names())) from None
    return entry.build(**params)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:k=v,k2=v2"`` into the name and typed parameters (int, float or str).

    >>> parse_spec("noisy:sigma=0.5,seed=3")
    ('noisy', {'sigma': 0.5, 'seed': 3})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValidationError(f"spec {spec!r}", item, "parameters must look like key=value")
        if key in params:
            raise ValidationError(f"spec {spec!r}", key, "a parameter is given twice")
        params[key] = _parse_value(raw.strip())
    return name.strip(), params


# plain ASCII numbers only: int() and float() would also take "1_000", " +5" or "٣"
_INT_TEXT = re.compile(r"[-+]?[0-9]{1,4000}")
_FLOAT_TEXT = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[-+]?(nan|inf|infinity)", re.IGNORECASE)


def _parse_value(raw: str) -> Any:
    if _INT_TEXT.fullmatch(raw):
        return int(raw)
    if _FLOAT_TEXT.fullmatch(raw):
        return float(raw)
    return raw
