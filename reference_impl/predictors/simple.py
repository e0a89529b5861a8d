"""Output-length predictors: what a policy believes ``o_i`` to be.

A scheduler never sees true output lengths in production; it sees a prediction. The
simulator orders and admits by the prediction and frees memory at the true length
(Kong et al., Sec. 4 on 1-bit predictions; Jaillet et al., Sec. 6 on predicted lengths).

* ``oracle``: the exact length.
* ``noisy``: ``max(1, round(o * exp(sigma * Z)))`` with ``Z ~ N(0, 1)`` drawn from a seeded
  generator: a multiplicative, log-normal error of scale ``sigma``.
* ``learned``: a trained model (torch, extra ``geosched[predict]``):
  :class:`~geosched.reference_impl.predictors.learned_predictor.LearnedPredictor`.
* ``onebit``: a short/long classifier with threshold ``theta`` (short iff ``o <= theta``)
  that flips the class with probability ``flip_rate``; the prediction is the class's proxy
  length ``short_length`` (O_0) or ``long_length`` (O_1). Left unset, ``theta`` is the median
  output of the workload and the proxies are the conditional means of the true lengths on
  each side of it (the paper's O_0 = E[o | o <= theta], O_1 = E[o | o > theta]).

Every predictor returns an integer array of predictions ``>= 1`` aligned with the
instance's requests, and is deterministic given its seed.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(50, [(1, 2), (1, 30)])
>>> make_predictor("onebit", theta=10, short_length=4, long_length=40).predict(inst).tolist()
[4, 40]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.model import MAX_VALUE, Instance
from geosched.reference_impl.policies import one_bit_parameters  # the svf1 rule's split, shared with onebit

__all__ = [
    "Predictor",
    "OraclePredictor",
    "NoisyPredictor",
    "OneBitPredictor",
    "PREDICTORS",
    "make_predictor",
    "register_predictor",
    "one_bit_parameters",
]


class Predictor(Protocol):
    """Anything with ``name`` and ``predict(instance) -> int array`` of predicted outputs."""

    name: str

    def predict(self, instance: Instance) -> np.ndarray: ...


@dataclass(frozen=True)
class OraclePredictor:
    """The exact output lengths."""

    name: str = "oracle"

    def predict(self, instance: Instance) -> np.ndarray:
        return np.array([r.output for r in instance.requests], dtype=np.int64)


@dataclass(frozen=True)
class NoisyPredictor:
    """Multiplicative log-normal error ``o * exp(sigma * Z)``, rounded, at least 1."""

    sigma: float = 0.5  # scale of the log-error; 0 gives the oracle
    seed: int = 0  # seed of the error draws
    name: str = "noisy"

    def __post_init__(self) -> None:
        if isinstance(self.sigma, bool) or not (isinstance(self.sigma, (int, float)) and math.isfinite(self.sigma)
                                                and self.sigma >= 0):
            raise ValidationError("sigma", self.sigma, "must be a finite number >= 0")
        _check_seed(self.seed)

    def predict(self, instance: Instance) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        true = np.array([r.output for r in instance.requests], dtype=np.float64)
        with np.errstate(over="ignore"):  # a huge sigma overflows to inf, clipped just below
            noisy = true * np.exp(self.sigma * rng.standard_normal(true.size))
        # a prediction is a length of the model: in [1, 2^53] (inf or 1e300 would wrap in int64)
        return np.clip(np.rint(noisy), 1, MAX_VALUE).astype(np.int64)


@dataclass(frozen=True)
class OneBitPredictor:
    """A short/long classifier with misclassification rate ``flip_rate`` and class proxies."""

    theta: int | None = None  # short iff o <= theta; None: the workload's median output
    short_length: int | None = None  # O_0; None: mean true output of the short class
    long_length: int | None = None  # O_1; None: mean true output of the long class
    flip_rate: float = 0.0  # probability that the class is flipped
    seed: int = 0  # seed of the flips
    name: str = "onebit"

    def __post_init__(self) -> None:
        if isinstance(self.flip_rate, bool) or not (isinstance(self.flip_rate, (int, float))
                                                    and 0 <= self.flip_rate <= 1):
            raise ValidationError("flip_rate", self.flip_rate, "must be a number in [0, 1]")
        for field_name in ("theta", "short_length", "long_length"):
            value = getattr(self, field_name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 1 <= value <= MAX_VALUE):
                raise ValidationError(field_name, value, "must be an integer in [1, 2^53]")
        _check_seed(self.seed)

    def classes(self, instance: Instance) -> np.ndarray:
        """Predicted class per request: 0 short, 1 long (after the seeded flips)."""
        true = np.array([r.output for r in instance.requests], dtype=np.int64)
        theta, _, _ = one_bit_parameters(true, self.theta, self.short_length, self.long_length)
        is_long = (true > theta).astype(np.int64)
        flips = np.random.default_rng(self.seed).random(true.size) < self.flip_rate
        return np.where(flips, 1 - is_long, is_long)

    def proxies(self, instance: Instance) -> tuple[int, int]:
        """``(O_0, O_1)`` as used for this instance."""
        true = [r.output for r in instance.requests]
        _, o0, o1 = one_bit_parameters(true, self.theta, self.short_length, self.long_length)
        return o0, o1

    def predict(self, instance: Instance) -> np.ndarray:
        o0, o1 = self.proxies(instance)
        return np.where(self.classes(instance) == 1, o1, o0).astype(np.int64)


def _check_seed(seed: Any) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValidationError("seed", seed, "must be an integer >= 0")


def _learned(**params: Any) -> Any:
    # imported on use: the learned predictor reads model files and needs torch to predict
    from geosched.reference_impl.predictors.learned_predictor import LearnedPredictor

    return LearnedPredictor(**params)


PREDICTORS: dict[str, Callable[..., Any]] = {
    "oracle": OraclePredictor,
    "noisy": NoisyPredictor,
    "onebit": OneBitPredictor,
    "learned": _learned,
}


def register_predictor(name: str, factory: Callable[..., Any]) -> None:
    """Add a predictor factory to the registry (an open registry, like the policies')."""
    PREDICTORS[name] = factory


def make_predictor(name: str = "oracle", **params: Any) -> Predictor:
    """Build a registered predictor by name or spec (``"learned:kind=onebit"``); unknown names list the known ones.

    >>> make_predictor("noisy:sigma=0.25,seed=3")
    NoisyPredictor(sigma=0.25, seed=3, name='noisy')
    """
    if ":" in name:
        name, extra = _split_spec(name)
        params = {**extra, **params}
    try:
        factory = PREDICTORS[name]
    except KeyError:
        raise UnknownNameError("predictor", name, list(PREDICTORS)) from None
    try:
        return factory(**params)
    except TypeError as exc:
        raise ValidationError(f"predictor {name!r}", params, f"bad parameters ({exc})") from None


def _split_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:k=v,..."`` -> name and parameters (int, float or str), as ``policies.parse_spec``
    (which cannot be imported here: the policies import this module)."""
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValidationError(f"predictor spec {spec!r}", item, "parameters must look like key=value")
        value: Any = raw.strip()
        for convert in (int, float):
            try:
                value = convert(value)
                break
            except ValueError:
                pass
        params[key.strip()] = value
    return name.strip(), params
