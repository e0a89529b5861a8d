"""Learned output-length predictors (torch, the optional extra ``geosched[predict]``).

Three small multilayer perceptrons over the features of
:mod:`~geosched.reference_impl.predictors.features` (standardised with the training means and
deviations), one per *kind*:

* ``point``: regression of ``log o`` under the absolute loss, so the prediction
  ``exp(f(x))`` estimates the conditional *median* length (the background length predictor of
  SVF's deployment, Kong et al., arXiv 2606.22327, experiments);
* ``onebit``: a logistic classifier of ``o > theta``; the prediction is the class's proxy
  length ``O_0 = E[o | o <= theta]`` or ``O_1 = E[o | o > theta]`` (training means), as used by
  1-bit SVF (Kong et al., Sec. 4 and Thm. 3.5);
* ``dist``: a softmax over log-spaced length bins (SageSched, Gan et al., arXiv 2603.07917):
  the prediction is a :class:`~geosched.reference_impl.predictors.LengthDistribution` with
  exact mean, quantiles, cdf, sampling and expected volume ``E[s o + (o^2 + o)/2]``.

A :class:`LengthModel` holds the weights as numpy arrays and builds its torch module on first
use: importing this module does not import torch, and without torch the first prediction
raises :class:`MissingExtraError` (one line naming the extra). Training lives in
:mod:`~geosched.reference_impl.predictors.training`, files in
:mod:`~geosched.reference_impl.predictors.artifact`.

Example
-------
>>> from geosched.reference_impl.predictors.artifact import load_default_model
>>> model = load_default_model("onebit")
>>> model.kind, model.short_length <= model.theta < model.long_length
('onebit', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geosched.errors import GeoschedError, ValidationError
from geosched.output import install_hint
from geosched.reference_impl.predictors.distribution import LengthDistribution
from geosched.reference_impl.predictors.metrics import PredictionSet

__all__ = ["KINDS", "POINT_MODES", "MissingExtraError", "LengthModel", "require_torch", "build_module",
           "volume_equivalent_length"]

KINDS = ("point", "onebit", "dist")
POINT_MODES = ("median", "mean", "volume")  # how a distribution becomes one integer length


class MissingExtraError(GeoschedError, ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""


def require_torch() -> Any:
    """The ``torch`` module, or :class:`MissingExtraError` naming ``geosched[predict]``."""
    try:
        import torch
    except ImportError:
        raise MissingExtraError(
            f"learned predictors need torch, which is not installed: {install_hint('predict')}") from None
    return torch


def build_module(torch: Any, inputs: int, hidden: tuple[int, ...], outputs: int) -> Any:
    """``Linear -> ReLU -> ... -> Linear``: the network of every kind (only the head differs)."""
    layers: list[Any] = []
    width = inputs
    for size in hidden:
        layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
        width = size
    layers.append(torch.nn.Linear(width, outputs))
    return torch.nn.Sequential(*layers)


def volume_equivalent_length(prompt: Any, expected_volume: Any) -> np.ndarray:
    """The integer ``o >= 1`` whose volume ``s o + (o^2 + o)/2`` is nearest ``E[v]`` (rounded root).

    SVF ranks by volume; feeding it this length ranks by *expected* volume (SageSched's
    ordering) through the integer predictor interface.

    >>> volume_equivalent_length([0, 6], [10.0, 24.0]).tolist()  # volume(0, 4) = 10, volume(6, 3) = 24
    [4, 3]
    """
    s = np.asarray(prompt, dtype=np.float64)
    v = np.asarray(expected_volume, dtype=np.float64)
    root = (-(2 * s + 1) + np.sqrt((2 * s + 1) ** 2 + 8 * v)) / 2
    return np.maximum(1, np.rint(root)).astype(np.int64)


@dataclass(frozen=True)
class LengthModel:
    """A trained predictor: what it reads, its weights, and its head's parameters."""

    kind: str  # "point", "onebit" or "dist"
    features: tuple[str, ...]  # feature names, in column order
    text_features: int  # extra columns from a text hook (0: none)
    step_seconds: float  # seconds per output token of the history rule
    mean: Any  # float array: standardisation means (training data)
    std: Any  # float array: standardisation deviations (training data, >= 1e-6)
    hidden: tuple[int, ...]  # hidden layer widths
    weights: tuple[Any, ...]  # float32 arrays: weight, bias of each Linear layer (torch layout)
    theta: int  # 1-bit threshold: long iff o > theta
    short_length: int  # O_0: mean training output of the short class
    long_length: int  # O_1: mean training output of the long class
    max_output: int  # largest training output (point predictions are clipped to it)
    edges: tuple[int, ...] = ()  # dist: bin edges, bin b = [e_b, e_{b+1} - 1]
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)  # training data, versions, seed
    metrics: dict[str, Any] = field(default_factory=dict, compare=False)  # test metrics at training time
    _module: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValidationError("kind", self.kind, f"must be one of {', '.join(KINDS)}")
        if self.kind == "dist" and len(self.edges) < 2:
            raise ValidationError("edges", self.edges, "a dist model needs >= 2 bin edges")

    @property
    def inputs(self) -> int:
        """Number of input columns."""
        return len(self.features) + self.text_features

    @property
    def outputs(self) -> int:
        """Width of the last layer: 1, or the number of bins."""
        return len(self.edges) - 1 if self.kind == "dist" else 1

    def module(self) -> Any:
        """The torch module (built once, in evaluation mode)."""
        if self._module is None:
            torch = require_torch()
            net = build_module(torch, self.inputs, self.hidden, self.outputs)
            params = list(net.parameters())
            if len(params) != len(self.weights):
                raise ValidationError("weights", len(self.weights), f"the network has {len(params)} tensors")
            with torch.no_grad():
                for param, value in zip(params, self.weights):
                    param.copy_(torch.from_numpy(np.asarray(value, dtype=np.float32)).reshape(param.shape))
            net.eval()
            object.__setattr__(self, "_module", net)
        return self._module

    def raw(self, x: Any) -> np.ndarray:
        """The network's output on feature rows ``x`` (``(n, inputs)``): log-length, logit or bin logits."""
        torch = require_torch()
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.inputs:
            raise ValidationError("feature rows", x.shape, f"need shape (n, {self.inputs})")
        z = ((x - self.mean) / self.std).astype(np.float32)
        with torch.no_grad():
            return self.module()(torch.from_numpy(z)).numpy().astype(np.float64)

    def probabilities(self, x: Any) -> np.ndarray:
        """dist: bin masses ``(n, bins)``; onebit: ``P(o > theta)`` ``(n,)``."""
        out = self.raw(x)
        if self.kind == "dist":
            out = out - out.max(axis=1, keepdims=True)
            weights = np.exp(out)
            return weights / weights.sum(axis=1, keepdims=True)
        if self.kind == "onebit":
            return 1.0 / (1.0 + np.exp(-out[:, 0]))
        raise ValidationError("kind", self.kind, "probabilities need an onebit or dist model")

    def distributions(self, x: Any) -> list[LengthDistribution]:
        """dist: one :class:`LengthDistribution` per row."""
        return [LengthDistribution.from_bins(self.edges, row) for row in self.probabilities(x)]

    def prediction_set(self, x: Any) -> PredictionSet:
        """Everything the metrics read: point, P(long), bin masses, ranking score."""
        if self.kind == "point":
            log_length = self.raw(x)[:, 0]
            return PredictionSet(point=self._clip(np.exp(log_length)), score=log_length)
        if self.kind == "onebit":
            p = self.probabilities(x)
            point = np.where(p > 0.5, self.long_length, self.short_length).astype(np.int64)
            return PredictionSet(point=point, long_probability=p, score=p)
        masses = self.probabilities(x)
        dists = [LengthDistribution.from_bins(self.edges, row) for row in masses]
        return PredictionSet(point=np.array([d.quantile(0.5) for d in dists], dtype=np.int64),
                             long_probability=np.array([1.0 - d.cdf(self.theta) for d in dists]),
                             probabilities=masses, edges=np.asarray(self.edges),
                             score=np.array([d.mean() for d in dists]))

    def predict_lengths(self, x: Any, prompt: Any = None, point: str = "median") -> np.ndarray:
        """Integer predictions ``>= 1``; ``point`` chooses how a dist model reduces to one length
        (``median``, ``mean`` or ``volume``: :func:`volume_equivalent_length`, needs ``prompt``)."""
        if self.kind != "dist":
            return self.prediction_set(x).point
        if point not in POINT_MODES:
            raise ValidationError("point", point, f"must be one of {', '.join(POINT_MODES)}")
        dists = self.distributions(x)
        if point == "median":
            return np.array([d.quantile(0.5) for d in dists], dtype=np.int64)
        if point == "mean":
            return self._clip(np.array([d.mean() for d in dists]))
        if prompt is None:
            raise ValidationError("prompt", None, "point='volume' needs the prompts")
        volumes = [d.expected_volume(int(s)) for d, s in zip(dists, np.asarray(prompt))]
        return volume_equivalent_length(prompt, volumes)

    def _clip(self, values: np.ndarray) -> np.ndarray:
        return np.clip(np.rint(values), 1, self.max_output).astype(np.int64)

    def one_bit_policy(self) -> str:
        """The ``svf1`` policy spec with this model's ``theta``, ``O_0`` and ``O_1``."""
        return f"svf1:theta={self.theta},short_length={self.short_length},long_length={self.long_length}"
