"""Honest baselines for output-length prediction (no torch): what a learned model must beat.

* :class:`GlobalMedian`: every request gets the median output of the training requests.
* :class:`BucketEmpirical`: the empirical distribution of the training outputs among requests
  of a similar prompt length (bucket ``floor(log2(1 + s))``,
  :func:`~geosched.reference_impl.predictors.features.prompt_bucket`); a bucket with fewer than
  ``min_count`` training requests falls back to all of them. Its point prediction is the
  bucket's median, its 1-bit prediction ``P(o > theta) > 1/2`` in the bucket, and its
  distribution the bucket's histogram over the given bins with ``smoothing`` added to each bin
  (so that no length in the bins has probability 0).

Example
-------
>>> import numpy as np
>>> base = BucketEmpirical.fit(np.array([1, 1, 1000, 1000]), np.array([5, 7, 300, 500]),
...                            edges=[1, 10, 1001], min_count=2, smoothing=0.0)
>>> base.predict(np.array([1, 1000])).point.tolist(), base.distribution(1).probabilities
([6, 400], (1.0, 0.0))
>>> GlobalMedian.fit(np.array([5, 7, 300, 500])).predict(np.array([3])).point.tolist()
[154]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.predictors.distribution import LengthDistribution
from geosched.reference_impl.predictors.features import prompt_bucket
from geosched.reference_impl.predictors.metrics import PredictionSet

__all__ = ["GlobalMedian", "BucketEmpirical"]


def _median_length(values: np.ndarray) -> int:
    return max(1, int(round(float(np.median(values)))))


@dataclass(frozen=True)
class GlobalMedian:
    """The median training output, for every request."""

    median: int  # the prediction
    name: str = "global median"

    @classmethod
    def fit(cls, output: Any) -> GlobalMedian:
        """Fit on the training outputs."""
        output = np.asarray(output)
        if output.size == 0:
            raise ValidationError("output", [], "need at least one training output")
        return cls(_median_length(output))

    def predict(self, prompt: Any) -> PredictionSet:
        """The same point prediction for every prompt."""
        return PredictionSet(point=np.full(np.asarray(prompt).size, self.median, dtype=np.int64))


@dataclass(frozen=True)
class BucketEmpirical:
    """Per prompt-length bucket: median, P(long) and a smoothed histogram of the training outputs."""

    edges: tuple[int, ...]  # bins [e_b, e_{b+1} - 1]
    medians: dict[int, int]  # bucket -> median output (bucket -1: all requests)
    means: dict[int, float]  # bucket -> mean output (the ranking score)
    long_fraction: dict[int, float]  # bucket -> fraction with o > theta
    histograms: dict[int, tuple[float, ...]]  # bucket -> bin masses
    theta: int  # the 1-bit threshold the long fractions refer to
    name: str = "bucket empirical"

    @classmethod
    def fit(cls, prompt: Any, output: Any, *, edges: Sequence[int], theta: int | None = None, min_count: int = 50,
            smoothing: float = 0.5) -> BucketEmpirical:
        """Fit on training prompts and outputs.

        Parameters
        ----------
        prompt, output : arrays of int
            Training requests.
        edges : sequence of int
            Bin edges of the distribution (e.g. :func:`~geosched.reference_impl.predictors.log_spaced_edges`).
        theta : int, optional
            1-bit threshold (default: the median training output).
        min_count : int
            Buckets with fewer training requests use all of them.
        smoothing : float
            Pseudo-count added to every bin of every histogram.
        """
        prompt, output = np.asarray(prompt), np.asarray(output)
        if output.size == 0 or prompt.shape != output.shape:
            raise ValidationError("training data", (prompt.shape, output.shape), "need aligned, non-empty arrays")
        edges = tuple(int(e) for e in edges)
        theta = _median_length(output) if theta is None else int(theta)
        buckets = np.array([prompt_bucket(int(s)) for s in prompt])
        groups = {-1: output}
        for bucket in np.unique(buckets).tolist():
            members = output[buckets == bucket]
            if members.size >= min_count:
                groups[bucket] = members
        medians, means, longs, histograms = {}, {}, {}, {}
        for bucket, members in groups.items():
            medians[bucket] = _median_length(members)
            means[bucket] = float(members.mean())
            longs[bucket] = float(np.mean(members > theta))
            counts = np.histogram(np.clip(members, edges[0], edges[-1] - 1), bins=np.asarray(edges) - 0.5)[0]
            masses = counts + smoothing
            histograms[bucket] = tuple((masses / masses.sum()).tolist())
        return cls(edges, medians, means, longs, histograms, theta)

    def _bucket(self, prompt: int) -> int:
        bucket = prompt_bucket(int(prompt))
        return bucket if bucket in self.medians else -1

    def distribution(self, prompt: int) -> LengthDistribution:
        """The predicted distribution for one prompt length."""
        return LengthDistribution.from_bins(self.edges, self.histograms[self._bucket(prompt)])

    def predict(self, prompt: Any) -> PredictionSet:
        """Point, 1-bit and distribution predictions for each prompt."""
        buckets = [self._bucket(int(s)) for s in np.asarray(prompt)]
        return PredictionSet(
            point=np.array([self.medians[b] for b in buckets], dtype=np.int64),
            long_probability=np.array([self.long_fraction[b] for b in buckets]),
            probabilities=np.array([self.histograms[b] for b in buckets]).reshape(len(buckets), -1),
            edges=np.asarray(self.edges),
            score=np.array([self.means[b] for b in buckets]),
        )
