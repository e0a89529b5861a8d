"""Monte-Carlo check of Kong et al.'s stochastic bounds (Thm. 3.4 for SVF, Thm. 3.5 for 1-bit SVF).

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Thm. 3.4: with Poisson arrivals of rate ``lambda``,
outputs ``o ~ Geometric(mu)`` on ``{1, 2, ...}`` and independent prompts,

.. math::  \\frac{E[\\mathrm{TEL}(SVF)]}{E[\\mathrm{TEL}(OPT)]} \\le 1 + \\frac{2}{(1-\\alpha)(1-\\mu)(1-\\rho)},
           \\qquad \\rho = \\frac{2 \\lambda E[v]}{(1-\\alpha) M}.

Thm. 3.5 (1-bit SVF, threshold ``theta``, ``q = 1 - mu``): the scheduler knows only whether
``o <= theta`` and uses the proxy lengths ``O_0 = E[o | o <= theta] = 1/mu - theta q^theta /
(1 - q^theta)`` and ``O_1 = E[o | o > theta] = theta + 1/mu``; the volumetric distortion
penalty is ``eps = (1/2) (theta q^theta / (1 - q^theta))^2``.

What is computed, per ``(mu, rho)``: ``R`` seeded workloads from
``generate("poisson", n=..., mu=..., rho=..., memory=..., alpha_cap=..., seed=...)``; for each,
``TEL(policy)`` (re-computed by the schedule checker) and a *lower bound* ``LB <= TEL(OPT)``
(:func:`geosched.reference_impl.opt.best_lower_bound`: with arrivals, the larger of
``sum o`` and the SRPT relaxation). The estimate is ``sum TEL / sum LB`` (the ratio of the
sample means) with a seeded percentile-bootstrap confidence interval over workloads.
Because ``LB <= OPT``, this over-estimates ``E[TEL]/E[OPT]``: an interval below the bound is
evidence *consistent* with the theorem; an estimate above it is *inconclusive* (the lower
bound may be loose), never a refutation.

Where the theorem's hypotheses fail for the simulated workload (reported in every result):

* geometric lengths are unbounded, while the model needs ``s + o <= alpha M``; the generator
  truncates ``o`` at ``floor(alpha_cap M) - s``. The simulated lengths are therefore a
  *truncated* geometric: ``E[o]`` and ``E[v]`` are smaller than ``1/mu`` and
  ``E[s]/mu + 1/mu^2``, so the arrival rate computed from the nominal ``rho`` gives a
  smaller *effective* load. The result reports the truncated fraction and the effective
  ``rho`` (from the sampled volumes), and evaluates the bound at both;
* the workload is finite (``n`` requests from an empty system, drained at the end), not the
  stationary regime the expectation refers to;
* 1-bit SVF here classifies by the true length (oracle class bit) and checks memory with the
  true lengths; ``O_0``, ``O_1`` are rounded to integers (the policy works in tokens), and they
  are the untruncated geometric's conditional means.

So the outcome is "consistent in N samples", never "proved".

Example
-------
>>> res = run_montecarlo(grid=((0.2, 0.5),), n=40, replications=5, seed=1, n_boot=200)
>>> res.samples, res.points[0].consistent
(5, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.results import Result

__all__ = [
    "MCPoint",
    "MonteCarloResult",
    "svf_stochastic_bound",
    "one_bit_parameters",
    "distortion_penalty",
    "run_montecarlo",
    "DEFAULT_GRID",
    "HYPOTHESIS_NOTES",
]

# Small M against the lengths, so that requests do queue: under rho < 1 the memory is at most
# (1 - alpha)/2 utilised on average, and with M = 200 nothing ever waits (ratio exactly 1).
DEFAULT_GRID: tuple[tuple[float, float], ...] = ((0.2, 0.5), (0.2, 0.9), (0.35, 0.5), (0.35, 0.9))

HYPOTHESIS_NOTES = (
    "Geometric(mu) outputs are unbounded but the model needs s + o <= alpha*M: the generator truncates "
    "o at floor(alpha_cap*M) - s, so lengths are truncated-geometric (smaller E[o], E[v]) and the "
    "effective load is below the nominal rho; the bound is reported at both.",
    "Finite workloads (n requests from an empty system, drained) stand in for the stationary expectation.",
    "OPT is replaced by a lower bound (max of sum o and the SRPT relaxation), so the measured ratio "
    "over-estimates E[TEL]/E[OPT]: below the bound = consistent, above = inconclusive.",
)


def svf_stochastic_bound(alpha: float, mu: float, rho: float) -> float:
    """Thm. 3.4's bound ``1 + 2 / ((1 - alpha)(1 - mu)(1 - rho))`` (``inf`` when a factor is <= 0).

    >>> svf_stochastic_bound(0.5, 0.2, 0.5)
    11.0
    """
    denominator = (1 - alpha) * (1 - mu) * (1 - rho)
    return math.inf if denominator <= 0 else 1 + 2 / denominator


def one_bit_parameters(mu: float, theta: int) -> tuple[float, float]:
    """Thm. 3.5's proxies ``(O_0, O_1)`` for ``o ~ Geometric(mu)`` and threshold ``theta``.

    ``O_0 = 1/mu - theta q^theta / (1 - q^theta)``, ``O_1 = theta + 1/mu`` (memorylessness).

    >>> [round(x, 4) for x in one_bit_parameters(0.5, 1)]
    [1.0, 3.0]
    """
    q = 1 - mu
    return 1 / mu - theta * q**theta / (1 - q**theta), theta + 1 / mu


def distortion_penalty(mu: float, theta: int) -> float:
    """Thm. 3.5's ``eps = (1/2) (theta q^theta / (1 - q^theta))^2``, ``q = 1 - mu``.

    >>> distortion_penalty(0.5, 1)
    0.5
    """
    q = 1 - mu
    return 0.5 * (theta * q**theta / (1 - q**theta)) ** 2


@dataclass(frozen=True)
class MCPoint:
    """The Monte-Carlo estimate at one ``(mu, rho)``."""

    mu: float  # geometric parameter of the outputs
    rho: float  # nominal load (sets the arrival rate)
    alpha: float  # alpha_cap: the bound's alpha (every sampled peak is <= alpha_cap * M)
    rate: float  # arrival rate per step used by the generator
    replications: int  # workloads simulated
    mean_tel: float  # mean TEL of the policy
    mean_lower_bound: float  # mean lower bound on TEL(OPT)
    ratio: float  # mean_tel / mean_lower_bound (>= the true E[TEL]/E[OPT])
    ci_low: float  # bootstrap confidence interval of the ratio
    ci_high: float
    bound: float  # the theorem's bound at the nominal (alpha_cap, mu, rho)
    effective_rho: float  # 2 * rate * (sampled mean volume) / ((1 - alpha) M)
    bound_effective: float  # the bound at the effective rho (stricter)
    truncated_fraction: float  # fraction of requests whose output hit the truncation cap
    eps: float | None  # Thm. 3.5's penalty (1-bit SVF only)
    theta: int | None  # 1-bit threshold (1-bit SVF only)
    proxies: tuple[int, int] | None  # (O_0, O_1) rounded, as used by the policy (1-bit SVF only)
    consistent: bool  # ci_high <= bound_effective (and so <= bound)
    verdict: str  # "consistent" or "inconclusive (ratio to a lower bound above the bound)"


@dataclass(frozen=True)
class MonteCarloResult(Result):
    """All grid points of one Monte-Carlo run."""

    STATUSES = ("consistent", "inconclusive")
    SUCCESS = ("consistent",)

    policy: str  # "svf" or "svf1"
    points: list[MCPoint]  # one per (mu, rho)
    samples: int  # workloads simulated in total
    n: int  # requests per workload
    memory: int  # M
    seed: int  # base seed (workload k of point p uses seed + 1000 p + k)
    confidence: float  # confidence level of the intervals
    status: str  # "consistent" (every point consistent) or "inconclusive"
    message: str  # one line
    hypothesis_notes: tuple[str, ...] = HYPOTHESIS_NOTES  # where the theorem's hypotheses fail
    wall_time: float = 0.0  # seconds
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success": self.success}


def _bootstrap_ratio(tel: np.ndarray, lower: np.ndarray, rng: np.random.Generator, n_boot: int,
                     confidence: float) -> tuple[float, float]:
    k = tel.size
    idx = rng.integers(0, k, size=(n_boot, k))
    ratios = tel[idx].sum(axis=1) / lower[idx].sum(axis=1)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(ratios, [tail, 100 - tail])
    return float(lo), float(hi)


def run_montecarlo(
    grid: Sequence[tuple[float, float]] = DEFAULT_GRID,
    *,
    policy: str = "svf",
    n: int = 150,
    replications: int = 20,
    memory: int = 40,
    alpha_cap: float = 0.5,
    s_min: int = 1,
    s_max: int = 6,
    theta: int | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    confidence: float = 0.95,
) -> MonteCarloResult:
    """Estimate ``E[TEL(policy)] / E[LB(OPT)]`` at each ``(mu, rho)`` of ``grid``.

    ``policy`` is ``"svf"`` (Thm. 3.4) or ``"svf1"`` (Thm. 3.5: threshold ``theta``, default
    ``round(1/mu)``, with the paper's ``O_0``, ``O_1``). Workload ``k`` of grid point ``p``
    uses seed ``seed + 1000 p + k``; the bootstrap uses ``seed``.
    """
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.opt import best_lower_bound
    from geosched.reference_impl.simulator import simulate
    from geosched.reference_impl.workloads import generate, poisson_rate

    if policy not in ("svf", "svf1"):
        raise ValidationError("policy", policy, "must be 'svf' (Thm. 3.4) or 'svf1' (Thm. 3.5)")
    if replications < 2:
        raise ValidationError("replications", replications, "must be >= 2 for a confidence interval")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    points = []
    for p, (mu, rho) in enumerate(grid):
        if not (0 < mu < 1 and 0 < rho < 1):
            raise ValidationError("grid point (mu, rho)", (mu, rho), "needs 0 < mu < 1 and 0 < rho < 1")
        rate = poisson_rate(memory=memory, mu=mu, rho=rho, s_min=s_min, s_max=s_max, alpha_cap=alpha_cap)
        cap = int(alpha_cap * memory)
        spec: Any = policy
        eps = theta_used = proxies = None
        if policy == "svf1":
            theta_used = theta if theta is not None else max(1, round(1 / mu))
            o0, o1 = one_bit_parameters(mu, theta_used)
            proxies = (max(1, round(o0)), max(1, round(o1)))
            eps = distortion_penalty(mu, theta_used)
            from geosched.reference_impl.policies import make_policy

            spec = make_policy("svf1", theta=theta_used, short_length=proxies[0], long_length=proxies[1])
        tels, lowers, volumes, truncated, count = [], [], 0, 0, 0
        for k in range(replications):
            instance = generate("poisson", n=n, mu=mu, rho=rho, memory=memory, alpha_cap=alpha_cap,
                                s_min=s_min, s_max=s_max, seed=seed + 1000 * p + k)
            result = simulate(instance, spec)
            report = check_schedule(instance, result.starts)
            if not report.feasible:
                raise RuntimeError(f"checker rejected the {policy} schedule: {report.first_violation.message}")
            tels.append(report.metrics.tel)
            lowers.append(best_lower_bound(instance).value)
            volumes += sum(r.volume for r in instance.requests)
            truncated += sum(1 for r in instance.requests if r.output == cap - r.prompt)
            count += instance.n
        tel_a = np.asarray(tels, dtype=float)
        low_a = np.asarray(lowers, dtype=float)
        ratio = float(tel_a.sum() / low_a.sum())
        ci_low, ci_high = _bootstrap_ratio(tel_a, low_a, rng, n_boot, confidence)
        effective_rho = 2 * rate * (volumes / count) / ((1 - alpha_cap) * memory)
        bound = svf_stochastic_bound(alpha_cap, mu, rho)
        bound_eff = svf_stochastic_bound(alpha_cap, mu, effective_rho)
        consistent = ci_high <= bound_eff
        points.append(MCPoint(
            mu=mu, rho=rho, alpha=alpha_cap, rate=rate, replications=replications,
            mean_tel=float(tel_a.mean()), mean_lower_bound=float(low_a.mean()), ratio=ratio,
            ci_low=ci_low, ci_high=ci_high, bound=bound, effective_rho=effective_rho,
            bound_effective=bound_eff, truncated_fraction=truncated / count, eps=eps, theta=theta_used,
            proxies=proxies, consistent=consistent,
            verdict="consistent" if consistent else "inconclusive (ratio to a lower bound above the bound)",
        ))
    samples = replications * len(points)
    all_ok = all(pt.consistent for pt in points)
    status = "consistent" if all_ok else "inconclusive"
    worst = max(points, key=lambda pt: pt.ci_high / pt.bound_effective)
    message = (f"{policy}: ratio to LB(OPT) {'below' if all_ok else 'NOT below'} Thm. "
               f"{'3.4' if policy == 'svf' else '3.5'}'s bound at all {len(points)} (mu, rho) points in "
               f"{samples} workloads of n={n}; worst CI top {worst.ci_high:.3f} vs bound "
               f"{worst.bound_effective:.3f} at mu={worst.mu}, rho={worst.rho}")
    return MonteCarloResult(
        policy=policy, points=points, samples=samples, n=n, memory=memory, seed=seed,
        confidence=confidence, status=status, message=message, wall_time=time.perf_counter() - t0,
    )
