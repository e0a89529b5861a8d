"""The ``learned`` predictor of the registry: a trained model behind the ``Predictor`` protocol.

``make_predictor("learned", kind="point")`` (or the spec ``learned:kind=point,model=PATH``)
loads a model file (the shipped default of the kind when ``model`` is not given) and predicts
the outputs of an instance from the features of
:mod:`~geosched.reference_impl.predictors.features`:

* an instance has arrival *steps*; arrival step ``a`` is ``a * step_seconds`` seconds
  (``step_seconds`` defaults to the model's, 0.025 s for the shipped ones, the trace reader's
  default), so the time features and the history rule use the same clock as in training;
* the history of request ``i`` holds the requests of the same instance whose nominal
  completion ``a_j + o_j`` (in steps) is at most ``a_i``: no request that arrived at or after
  ``a_i`` ever counts. In a simulated schedule a request can finish later than nominally, so the
  history may hold a request that is still running there (a mild optimism, documented in
  ``docs/predictions.md``); in a burst (all arrivals at 0) the history is empty.

``kind="onebit"`` predicts the class proxies ``O_0``/``O_1``: ``svf`` on them *is* 1-bit SVF
(proxy volumes); :meth:`LearnedPredictor.one_bit_policy` gives the ``svf1`` spec with the
model's own ``theta``, ``O_0`` and ``O_1``. ``kind="dist"`` reduces each distribution to one
length by ``point``: its median, its mean, or ``volume`` (the length whose volume is the
expected volume, so that SVF orders by ``E[v]``).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> predictor = LearnedPredictor(kind="point")
>>> lengths = predictor.predict(burst_instance(3000, [(100, 5), (2000, 5)]))
>>> lengths.dtype.kind, bool((lengths >= 1).all())
('i', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.predictors.artifact import default_model_path, load_model
from geosched.reference_impl.predictors.features import RequestLog, feature_matrix
from geosched.reference_impl.predictors.learned import KINDS, POINT_MODES, LengthModel

__all__ = ["LearnedPredictor"]


@dataclass(frozen=True)
class LearnedPredictor:
    """A trained length model as a registry predictor (loads the file at construction)."""

    kind: str | None = None  # "point", "onebit", "dist"; None: the file's kind ("point" without a file)
    model: str | None = None  # model file; None: the shipped model of the kind
    step_seconds: float | None = None  # seconds per step of an instance; None: the model's
    point: str = "median"  # dist only: "median", "mean" or "volume"
    name: str = "learned"
    _model: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind is not None and self.kind not in KINDS:
            raise ValidationError("learned predictor kind", self.kind, f"must be one of {', '.join(KINDS)}")
        if self.point not in POINT_MODES:
            raise ValidationError("learned predictor point", self.point, f"must be one of {', '.join(POINT_MODES)}")
        if self.step_seconds is not None and not (isinstance(self.step_seconds, (int, float))
                                                  and math.isfinite(self.step_seconds) and self.step_seconds > 0):
            raise ValidationError("learned predictor step_seconds", self.step_seconds, "must be a positive number")
        path = self.model if self.model is not None else default_model_path(self.kind or "point")
        loaded = load_model(path, kind=self.kind)
        if loaded.text_features:
            raise ValidationError("learned predictor model", str(path),
                                  "reads text features, and instances carry no text")
        object.__setattr__(self, "_model", loaded)
        object.__setattr__(self, "kind", loaded.kind)

    @property
    def length_model(self) -> LengthModel:
        """The loaded model."""
        return self._model

    def log(self, instance: Any) -> RequestLog:
        """The instance on the model's clock (arrival step ``a`` -> ``a * step_seconds`` seconds)."""
        return RequestLog.from_instance(instance, self.step_seconds or self._model.step_seconds)

    def predict(self, instance: Any) -> np.ndarray:
        """One predicted output length ``>= 1`` per request of ``instance``."""
        model = self._model
        if instance.n == 0:
            return np.zeros(0, dtype=np.int64)
        log = self.log(instance)
        x = feature_matrix(log, model.features, step_seconds=self.step_seconds or model.step_seconds)
        return model.predict_lengths(x, log.prompt, self.point)

    def one_bit_policy(self) -> str:
        """The ``svf1`` spec with the model's ``theta``, ``O_0``, ``O_1``."""
        return self._model.one_bit_policy()
