"""The ledger's independent re-derivation of a Monte-Carlo run (Kong et al., Thm. 3.4 and 3.5).

:mod:`geosched.verify.montecarlo` simulates; this module re-derives, with code of its own, what the
ledger's words rest on, so that a wrong number there cannot pass unnoticed:

* **the workload is the statement's** (:func:`load_problems`): the arrival rate the statement means,
  ``lambda* = rho (1 - alpha) M / (2 E[v])`` with ``E[v]`` of the generator's truncated lengths in closed
  form (:func:`mean_volume`, not the sums the simulation uses), against the rate measured on the point's
  long workload (arrivals per step), and the load measured there, ``2 (arrivals per step) (mean volume) /
  ((1 - alpha) M)``, against ``rho``; each within ``z`` standard errors derived from the sample size (the
  gaps are exponential: relative error ``1/sqrt(gaps)``; the mean volume's from its sample variance), plus
  one step of the integer arrival grid;
* **a point outside the theorem's hypotheses is never evidence** (:func:`inside`): ``0 < mu < 1``,
  ``rho < 1`` and every measured peak ``<= alpha M``, recomputed here;
* **the bootstrap interval** (:func:`bootstrap_problems`): a second percentile bootstrap, in plain Python
  with its own seeded generator and more resamples, must put the reported ends at the same quantiles,
  within the Monte-Carlo error of both (a tolerance in probability from the two resample counts).

Example
-------
>>> round(mean_volume(0.5, 0, 0, 2), 6)   # o = 1 w.p. 1/2 (v = 1), else 2 (v = 3)
2.0
"""

from __future__ import annotations

import math
import random
from typing import Any

__all__ = ["Z", "mean_volume", "statement_rate", "inside", "load_problems", "bootstrap_interval",
           "bootstrap_problems"]

Z = 4.0  # standard errors a measured figure may be off before it is a problem (a false alarm is ~1e-4 per check)
SECOND_RESAMPLES = 4000  # the second bootstrap's resamples


def mean_volume(mu: float, s_min: int, s_max: int, cap: int) -> float:
    """``E[v]``, ``v = s o + (o^2 + o)/2``, for ``s`` uniform on ``[s_min, s_max]`` and ``o = min(G, cap - s)``,
    ``G ~ Geometric(mu)`` on ``{1, 2, ...}``, in closed form: with ``q = 1 - mu`` and ``c = cap - s``,
    ``E[o] = (1 - q^c)/mu`` and ``E[o^2] = (1 + q - (2c + 1) q^c + (2c - 1) q^(c+1)) / mu^2``."""
    q = 1 - mu
    total = 0.0
    for s in range(s_min, s_max + 1):
        c = cap - s
        first = (1 - q**c) / mu
        second = (1 + q - (2 * c + 1) * q**c + (2 * c - 1) * q ** (c + 1)) / mu**2
        total += s * first + (second + first) / 2
    return total / (s_max - s_min + 1)


def statement_rate(mu: float, rho: float, memory: int, alpha: float, s_min: int, s_max: int) -> float:
    """The arrival rate per step at which the generator's lengths give load ``rho`` (Thm. 3.4's
    ``rho = 2 lambda E[v] / ((1 - alpha) M)``)."""
    return rho * (1 - alpha) * memory / (2 * mean_volume(mu, s_min, s_max, int(alpha * memory)))


def inside(point: Any, memory: int, alpha: float) -> bool:
    """The point lies inside the theorem's hypotheses: ``0 < mu < 1``, ``rho < 1``, every measured peak
    ``<= alpha M`` (the long workload's and the sampled workloads' lengths come from the same generator)."""
    measured = (getattr(point, "workload", None) or {}).get("measured") or {}
    peak = measured.get("max_peak", math.inf)
    return 0 < point.mu < 1 and 0 < point.rho < 1 and peak <= alpha * memory


def load_problems(point: Any, memory: int, alpha: float, s_range: tuple[int, int], z: float = Z) -> list[str]:
    """The measured rate and load of ``point``'s long workload against the statement's, within ``z`` standard
    errors and one arrival step; an empty list when both agree."""
    measured = (getattr(point, "workload", None) or {}).get("measured")
    where = f"mu={point.mu}, rho={point.rho}"
    if not measured or measured.get("gaps", 0) < 100 or measured.get("span", 0) <= 0:
        return [f"load at {where}: no long workload was measured"]
    gaps, span, n = measured["gaps"], measured["span"], measured["requests"]
    rate = gaps / span
    want = statement_rate(point.mu, point.rho, memory, alpha, *s_range)
    grid = 1 / span  # the integer steps shorten the span by less than one step
    problems = []
    if abs(rate / want - 1) > z / math.sqrt(gaps) + grid:
        problems.append(f"rate at {where}: {rate:.5f} arrivals per step measured over {gaps} gaps, the statement's "
                        f"{want:.5f} (tolerance {z / math.sqrt(gaps) + grid:.2%})")
    mean_v = measured["sum_volume"] / n
    var_v = max(0.0, measured["sum_volume_sq"] / n - mean_v**2)
    load = 2 * rate * mean_v / ((1 - alpha) * memory)
    tolerance = z * math.sqrt(1 / gaps + var_v / (n * mean_v**2)) + grid
    if abs(load / point.rho - 1) > tolerance:
        problems.append(f"load at {where}: rho measured {load:.4f} on {n} requests, the statement's {point.rho} "
                        f"(tolerance {tolerance:.2%})")
    return problems


def bootstrap_interval(numerators: list[float], denominators: list[float] | None, confidence: float,
                       resamples: int = SECOND_RESAMPLES, seed: int = 0) -> tuple[list[float], float, float]:
    """A percentile bootstrap of ``sum(num)/sum(den)`` (``den`` None: the mean of ``num``), in plain Python with
    ``random.Random(seed)``: ``(sorted resampled statistics, low end, high end)``."""
    rng = random.Random(seed)
    k = len(numerators)
    stats = []
    for _ in range(resamples):
        picks = [rng.randrange(k) for _ in range(k)]
        top = sum(numerators[i] for i in picks)
        stats.append(top / sum(denominators[i] for i in picks) if denominators is not None else top / k)
    stats.sort()
    tail = (1 - confidence) / 2
    return stats, _quantile(stats, tail), _quantile(stats, 1 - tail)


def _quantile(ordered: list[float], p: float) -> float:
    p = min(1.0, max(0.0, p))
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p * len(ordered)) - 1))]


def bootstrap_problems(label: str, reported: tuple[float, float], numerators: list[float],
                       denominators: list[float] | None, confidence: float, first_resamples: int,
                       seed: int = 0) -> list[str]:
    """The reported interval's ends must sit at the quantiles ``(1 -+ confidence)/2`` of a second bootstrap,
    within ``Z`` standard errors of the difference of two sample quantiles, one from ``first_resamples`` draws and one
    from :data:`SECOND_RESAMPLES` (in probability: ``sqrt(p (1 - p) (1/B1 + 1/B2))``)."""
    if len(numerators) < 2:
        return []
    stats, _, _ = bootstrap_interval(numerators, denominators, confidence, seed=seed)
    problems = []
    for end, p in zip(reported, ((1 - confidence) / 2, (1 + confidence) / 2)):
        slack = Z * math.sqrt(p * (1 - p) * (1 / max(1, first_resamples) + 1 / len(stats)))
        low, high = _quantile(stats, p - slack), _quantile(stats, p + slack)
        if not low - 1e-9 * abs(low) <= end <= high + 1e-9 * abs(high):
            problems.append(f"bootstrap {label}: the reported end {end:.5f} is not the {p:.1%} quantile of a second "
                            f"bootstrap ({low:.5f} .. {high:.5f} for quantiles {max(0, p - slack):.3f} .. "
                            f"{min(1, p + slack):.3f}, {len(stats)} resamples)")
    return problems
