"""Accuracy of output-length predictions: point, 1-bit and distribution metrics.

Every predictor, learned or baseline, is scored on the same :class:`PredictionSet`:

* **point**: median and mean absolute error in tokens, and the Spearman rank correlation
  between prediction and truth (the *order* is what SJF and SVF use);
* **1-bit** at the threshold ``theta`` (long iff ``o > theta``): accuracy, and the flip rate
  of each class, ``P(predicted long | short)`` and ``P(predicted short | long)`` (the
  misclassification rates that enter 1-bit SVF, Kong et al., arXiv 2606.22327, Sec. 4);
* **distribution** (when the predictor gives one, over bins uniform inside):
  the negative log-likelihood *per length* ``-log P(o = y)`` in nats, with
  ``P(o = y) = p_b / |b|`` for the bin ``b`` holding ``y`` (comparable across binnings); the
  discrete CRPS ``sum_{x >= 1} (F(x) - 1{y <= x})^2`` over integer lengths ``x`` (for a point
  prediction it is ``|y - y_hat|``); and the coverage of the central 50% and 90% intervals
  ``[q(0.25), q(0.75)]`` and ``[q(0.05), q(0.95)]``, with ``q`` the quantile of
  :meth:`~geosched.reference_impl.predictors.LengthDistribution.quantile`.

Example
-------
>>> truth = np.array([10, 20, 300, 400])
>>> row = evaluate_predictions("demo", truth, PredictionSet(point=np.array([12, 15, 250, 500])), theta=100)
>>> row.median_ae, row.mean_ae, row.spearman, row.accuracy
(27.5, 39.25, 1.0, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.errors import ValidationError

__all__ = ["PredictionSet", "AccuracyRow", "evaluate_predictions", "cdf_grid", "quantiles_from_grid",
           "crps_from_grid", "nll_per_length"]


@dataclass(frozen=True)
class PredictionSet:
    """Predictions for a set of requests, aligned with their true outputs."""

    point: Any  # int array: the predicted length of each request
    long_probability: Any = None  # float array P(o > theta), or None (then point > theta decides)
    probabilities: Any = None  # (n, bins) float array of bin masses, or None (no distribution)
    edges: Any = None  # bin edges e_0 < ... < e_k: bin b holds lengths [e_b, e_{b+1} - 1]
    score: Any = None  # float array ranking the requests for Spearman (None: the point prediction)

    def predicted_long(self, theta: int) -> np.ndarray:
        """The 1-bit prediction: ``P(o > theta) > 1/2`` when known, else ``point > theta``."""
        if self.long_probability is not None:
            return np.asarray(self.long_probability) > 0.5
        return np.asarray(self.point) > theta


@dataclass(frozen=True)
class AccuracyRow:
    """One predictor's scores on one test set (``None``: not applicable to this predictor)."""

    name: str  # predictor label
    n: int  # test requests
    median_ae: float  # median |y - y_hat| (tokens)
    mean_ae: float  # mean |y - y_hat| (tokens)
    spearman: float | None  # rank correlation of the score with y (None when the score is constant)
    accuracy: float  # 1-bit accuracy at theta
    flip_short: float  # P(predicted long | o <= theta)
    flip_long: float  # P(predicted short | o > theta)
    nll: float | None  # mean -log P(o = y) per length, nats
    crps: float  # mean discrete CRPS (tokens); = mean_ae for a point prediction
    coverage50: float | None  # fraction of y inside [q(.25), q(.75)]
    coverage90: float | None  # fraction of y inside [q(.05), q(.95)]
    theta: int  # the 1-bit threshold used

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def cdf_grid(probabilities: np.ndarray, edges: np.ndarray, max_length: int) -> np.ndarray:
    """``F[i, x - 1] = P_i(o <= x)`` for ``x = 1..max_length``, bins uniform inside.

    >>> cdf_grid(np.array([[0.5, 0.5]]), np.array([1, 2, 4]), 4).tolist()
    [[0.5, 0.75, 1.0, 1.0]]
    """
    edges = np.asarray(edges, dtype=np.float64)
    lows, widths = edges[:-1], np.diff(edges)
    x = np.arange(1, max_length + 1, dtype=np.float64)
    share = np.clip((x[None, :] - lows[:, None] + 1) / widths[:, None], 0.0, 1.0)  # (bins, L)
    return np.minimum(np.asarray(probabilities, dtype=np.float64) @ share, 1.0)


def quantiles_from_grid(grid: np.ndarray, q: float) -> np.ndarray:
    """Smallest ``x`` with ``F(x) >= q`` per row (the grid's last length when none)."""
    reached = grid >= q - 1e-12
    first = np.argmax(reached, axis=1) + 1
    return np.where(reached.any(axis=1), first, grid.shape[1])


def crps_from_grid(grid: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Discrete CRPS ``sum_x (F(x) - 1{y <= x})^2`` per row (lengths beyond the grid count as F = 1)."""
    x = np.arange(1, grid.shape[1] + 1)
    step = (np.asarray(truth)[:, None] <= x[None, :]).astype(np.float64)
    return ((grid - step) ** 2).sum(axis=1)


def nll_per_length(probabilities: np.ndarray, edges: np.ndarray, truth: np.ndarray, floor: float = 1e-12) -> np.ndarray:
    """``-log(p_b / |b|)`` for the bin ``b`` of each ``y`` (mass floored at ``floor``; ``inf`` outside the bins)."""
    edges = np.asarray(edges)
    truth = np.asarray(truth)
    b = np.searchsorted(edges, truth, side="right") - 1
    inside = (b >= 0) & (b < len(edges) - 1)
    b = np.clip(b, 0, len(edges) - 2)
    mass = np.maximum(np.asarray(probabilities)[np.arange(truth.size), b], floor)
    width = np.diff(edges)[b]
    return np.where(inside, -np.log(mass / width), np.inf)


def _spearman(score: np.ndarray, truth: np.ndarray) -> float | None:
    from scipy.stats import spearmanr

    if np.ptp(score) == 0:
        return None
    return float(spearmanr(score, truth).statistic)


def _require_finite(label: str, values: Any) -> None:
    """NaN or infinity is an error naming the first one, never a number (NaN cast to int64 is -2^63)."""
    if values is None:
        return
    array = np.asarray(values)
    if array.dtype.kind in "fc" or array.dtype == object:
        finite = np.isfinite(array.astype(np.complex128 if array.dtype.kind == "c" else np.float64))
        if not finite.all():
            where = np.argwhere(~finite)[0]
            raise ValidationError(f"{label}[{', '.join(map(str, where))}]", array[tuple(where)].item(),
                                  "must be a finite number")


def evaluate_predictions(name: str, truth: Any, predictions: PredictionSet, *, theta: int) -> AccuracyRow:
    """Score ``predictions`` against the true outputs (module docstring for the definitions).

    Parameters
    ----------
    name : str
        Label of the predictor.
    truth : array of int
        True output lengths.
    predictions : PredictionSet
        Aligned with ``truth``.
    theta : int
        1-bit threshold: long iff ``o > theta``.

    Returns
    -------
    AccuracyRow

    Raises
    ------
    ValidationError
        Empty or misaligned inputs.

    Examples
    --------
    >>> p = PredictionSet(point=np.array([2, 2]), probabilities=np.array([[0.5, 0.5], [0.5, 0.5]]),
    ...                   edges=np.array([1, 2, 4]))
    >>> row = evaluate_predictions("d", np.array([1, 3]), p, theta=1)
    >>> round(row.nll, 4), row.crps  # -log(1/2), -log(1/4); CRPS 0.25+0.0625+0 and 0.25+0.5625+0
    (1.0397, 0.5625)
    """
    for label, values in (("truth", truth), ("predictions.point", predictions.point),
                          ("predictions.long_probability", predictions.long_probability),
                          ("predictions.probabilities", predictions.probabilities),
                          ("predictions.score", predictions.score)):
        _require_finite(label, values)
    truth = np.asarray(truth, dtype=np.int64)
    point = np.asarray(predictions.point, dtype=np.int64)
    if truth.size == 0 or point.shape != truth.shape:
        raise ValidationError("predictions", (point.shape, truth.shape), "need one prediction per true length")
    error = np.abs(point - truth).astype(np.float64)
    is_long = truth > theta
    predicted_long = predictions.predicted_long(theta)
    score = point if predictions.score is None else predictions.score
    nll = coverage50 = coverage90 = None
    crps = float(error.mean())
    if predictions.probabilities is not None:
        probabilities = np.asarray(predictions.probabilities, dtype=np.float64)
        edges = np.asarray(predictions.edges)
        grid = cdf_grid(probabilities, edges, int(max(edges[-1] - 1, truth.max())))
        crps = float(crps_from_grid(grid, truth).mean())
        nll = float(nll_per_length(probabilities, edges, truth).mean())
        q = {p: quantiles_from_grid(grid, p) for p in (0.05, 0.25, 0.75, 0.95)}
        coverage50 = float(np.mean((q[0.25] <= truth) & (truth <= q[0.75])))
        coverage90 = float(np.mean((q[0.05] <= truth) & (truth <= q[0.95])))
    return AccuracyRow(
        name=name,
        n=int(truth.size),
        median_ae=float(np.median(error)),
        mean_ae=float(error.mean()),
        spearman=_spearman(np.asarray(score, dtype=np.float64), truth),
        accuracy=float(np.mean(predicted_long == is_long)),
        flip_short=float(np.mean(predicted_long[~is_long])) if (~is_long).any() else 0.0,
        flip_long=float(np.mean(~predicted_long[is_long])) if is_long.any() else 0.0,
        nll=nll,
        crps=crps,
        coverage50=coverage50,
        coverage90=coverage90,
        theta=int(theta),
    )
