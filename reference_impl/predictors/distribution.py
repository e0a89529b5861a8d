"""A predicted *distribution* of output lengths (SageSched, Gan et al., arXiv 2603.07917).

:class:`LengthDistribution` is a categorical distribution over integer bins ``[lo, hi]``,
uniform over the integers inside each bin; a bin with ``lo == hi`` is a point mass. Every
moment is exact over the bins, in particular the expected memory-time volume of Kong et al.
(arXiv 2606.22327, Eq. (1)):

.. math::  E[v] = \\sum_b p_b \\, E[s\\,o + (o^2 + o)/2 \\mid o \\in b]
           = s\\,E[o] + (E[o^2] + E[o])/2,

with ``E[o | b] = (lo + hi)/2`` and ``E[o^2 | b] = (sum_{k=lo}^{hi} k^2)/(hi - lo + 1)``.

Example
-------
>>> d = LengthDistribution.from_samples([2, 2, 4, 8])  # volumes at s = 1: 5, 5, 14, 44
>>> d.mean(), d.quantile(0.5), d.cdf(4), d.expected_volume(prompt=1)
(4.0, 2, 0.75, 17.0)
>>> LengthDistribution.point(3).expected_volume(prompt=6) == 6 * 3 + (9 + 3) / 2
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.errors import ValidationError

__all__ = ["LengthDistribution", "log_spaced_edges"]


def _sum_squares(n: int) -> int:
    """``sum_{k=1}^{n} k^2`` (0 for n <= 0)."""
    return n * (n + 1) * (2 * n + 1) // 6 if n > 0 else 0


@dataclass(frozen=True)
class LengthDistribution:
    """Probabilities over integer bins of output lengths, uniform inside each bin.

    Bins are sorted, disjoint, with ``1 <= lo <= hi``; probabilities are finite, ``>= 0`` and sum
    to 1 (within 1e-9; they are renormalised exactly at construction).
    """

    lows: tuple[int, ...]  # first length of each bin
    highs: tuple[int, ...]  # last length of each bin (inclusive)
    probabilities: tuple[float, ...]  # mass of each bin

    def __post_init__(self) -> None:
        lows, highs = tuple(int(v) for v in self.lows), tuple(int(v) for v in self.highs)
        probs = tuple(float(p) for p in self.probabilities)
        if not lows or not (len(lows) == len(highs) == len(probs)):
            raise ValidationError("distribution bins", len(lows), "need >= 1 bin, each with low, high, probability")
        previous_high = 0
        for lo, hi in zip(lows, highs):
            if lo < 1 or hi < lo or lo <= previous_high:
                raise ValidationError("distribution bin", (lo, hi), "bins must be sorted, disjoint, 1 <= lo <= hi")
            previous_high = hi
        if any(not math.isfinite(p) or p < 0 for p in probs):
            raise ValidationError("distribution probabilities", probs, "must be finite and >= 0")
        total = math.fsum(probs)
        if abs(total - 1.0) > 1e-9:
            raise ValidationError("distribution probabilities", total, "must sum to 1")
        object.__setattr__(self, "lows", lows)
        object.__setattr__(self, "highs", highs)
        object.__setattr__(self, "probabilities", tuple(p / total for p in probs))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def point(cls, length: int) -> LengthDistribution:
        """All mass on one length (a point prediction as a distribution)."""
        return cls((length,), (length,), (1.0,))

    @classmethod
    def from_samples(cls, samples: Iterable[int]) -> LengthDistribution:
        """The empirical distribution of ``samples`` (one point mass per distinct value)."""
        counts = Counter(int(v) for v in samples)
        if not counts:
            raise ValidationError("samples", [], "need at least one sample")
        values = sorted(counts)
        total = sum(counts.values())
        return cls(tuple(values), tuple(values), tuple(counts[v] / total for v in values))

    @classmethod
    def from_bins(cls, edges: Sequence[int], probabilities: Sequence[float]) -> LengthDistribution:
        """Bins ``[edges[k], edges[k+1] - 1]`` with the given masses; empty-mass bins are kept."""
        edges = [int(e) for e in edges]
        if len(edges) != len(probabilities) + 1:
            raise ValidationError("edges", len(edges), "need len(probabilities) + 1 edges")
        return cls(tuple(edges[:-1]), tuple(e - 1 for e in edges[1:]), tuple(probabilities))

    # ------------------------------------------------------------------ moments
    def _bin_moments(self) -> tuple[np.ndarray, np.ndarray]:
        lows = np.array(self.lows, dtype=np.float64)
        highs = np.array(self.highs, dtype=np.float64)
        width = highs - lows + 1
        first = (lows + highs) / 2
        second = np.array([(_sum_squares(hi) - _sum_squares(lo - 1)) for lo, hi in zip(self.lows, self.highs)],
                          dtype=np.float64) / width
        return first, second

    def mean(self) -> float:
        """``E[o]``."""
        first, _ = self._bin_moments()
        return float(np.dot(self.probabilities, first))

    def second_moment(self) -> float:
        """``E[o^2]``."""
        _, second = self._bin_moments()
        return float(np.dot(self.probabilities, second))

    def expected_volume(self, prompt: int) -> float:
        """``E[s o + (o^2 + o)/2]`` for a prompt of ``prompt`` tokens, exact over the bins."""
        mean = self.mean()
        return prompt * mean + (self.second_moment() + mean) / 2

    def cdf(self, length: float) -> float:
        """``P(o <= length)``."""
        total = 0.0
        for lo, hi, p in zip(self.lows, self.highs, self.probabilities):
            if length >= hi:
                total += p
            elif length >= lo:
                total += p * (math.floor(length) - lo + 1) / (hi - lo + 1)
        return min(1.0, total)

    def quantile(self, q: float) -> int:
        """Smallest length ``L`` with ``P(o <= L) >= q`` (``q`` in ``[0, 1]``)."""
        if not (0.0 <= q <= 1.0):
            raise ValidationError("q", q, "must be in [0, 1]")
        cumulative = 0.0
        for lo, hi, p in zip(self.lows, self.highs, self.probabilities):
            if p > 0 and cumulative + p >= q - 1e-12:
                width = hi - lo + 1
                inside = max(0.0, q - cumulative) / p * width
                return lo + max(0, min(width - 1, math.ceil(inside - 1e-9) - 1))
            cumulative += p
        return self.highs[-1]

    def sample(self, rng: np.random.Generator, size: int | None = None) -> Any:
        """Draw lengths (an int, or an array of ``size``) with the generator ``rng``."""
        count = 1 if size is None else size
        bins = rng.choice(len(self.lows), size=count, p=np.array(self.probabilities))
        lows = np.array(self.lows)[bins]
        highs = np.array(self.highs)[bins]
        draws = lows + np.floor(rng.random(count) * (highs - lows + 1)).astype(np.int64)
        return int(draws[0]) if size is None else draws

    def to_dict(self) -> dict[str, Any]:
        return {"lows": list(self.lows), "highs": list(self.highs), "probabilities": list(self.probabilities)}


def log_spaced_edges(max_length: int, bins: int) -> list[int]:
    """Integer bin edges ``1 = e_0 < e_1 < ... < e_k = max_length + 1``, about log-spaced.

    >>> edges = log_spaced_edges(1000, 8)
    >>> edges[0], edges[-1], len(edges), edges == sorted(set(edges))
    (1, 1001, 9, True)
    """
    if max_length < 1 or bins < 1:
        raise ValidationError("log_spaced_edges", (max_length, bins), "need max_length >= 1 and bins >= 1")
    raw = np.unique(np.round(np.geomspace(1, max_length + 1, bins + 1)).astype(np.int64))
    edges = sorted(set(int(e) for e in raw) | {1, max_length + 1})
    return edges
