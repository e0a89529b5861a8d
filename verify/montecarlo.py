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

With ``opt="exact"`` (small instances), ``TEL(OPT)`` is computed exactly
(:func:`geosched.reference_impl.opt.brute_force_opt`); then both ``E[SVF]/E[OPT]`` (the
theorem's ratio of means, ``sum TEL / sum OPT``) and ``E[SVF/OPT]`` (the summary's ``E[CR]``, the
mean of per-instance ratios) are estimated with seeded bootstrap intervals, and a bound violated
beyond the interval (its lower end above the bound) is **refuted**. Instances whose exact search
hits its node limit fall back to a lower bound (for "consistent") and the best heuristic
schedule (an upper bound on OPT, for "refuted"), and the point says so.

For every point the result also reports the share of the constant ``2`` that the estimate
uses (``c* = (ratio - 1)(1-alpha)(1-mu)(1-rho)``, ``used = c*/2``), whether the same check with
the constant 10% smaller is refuted (*discriminating*), and whether it would still pass with the
constant halved (*vacuous*: the bound is far from anything observed).

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
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.executor import using_executor
from geosched.results import Result

__all__ = [
    "MCPoint",
    "BOUND_CONSTANT",
    "HEAVY_GRID",
    "judge_point",
    "OUTSIDE_GRID",
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
# heavy load for the exact-OPT check: rho up to 0.99 (the theorem needs rho < 1), small M
HEAVY_GRID: tuple[tuple[float, float], ...] = ((0.2, 0.5), (0.2, 0.9), (0.2, 0.99), (0.35, 0.5), (0.35, 0.9),
                                               (0.35, 0.99))
# outside the theorem (rho > 1): measured and reported, never judged
OUTSIDE_GRID: tuple[tuple[float, float], ...] = ((0.35, 2.0), (0.35, 4.0))
REPLICATION_CHUNK = 10  # workloads per job (the result does not depend on it; the overhead per job does)
# requests of the one long workload per point (same generator, same rate) from which the arrival rate and the load
# are measured: 20,000 exponential gaps measure the rate within 4 standard errors = 2.8% (the judged workloads,
# a few hundred requests, could not tell a rate 10% off from sampling noise)
MEASURE_REQUESTS = 20_000
BOUND_CONSTANT = 2  # the "2" of 1 + 2/((1 - alpha)(1 - mu)(1 - rho))

HYPOTHESIS_NOTES = (
    "Geometric(mu) outputs are unbounded but the model needs s + o <= alpha*M: the generator truncates "
    "o at floor(alpha_cap*M) - s, so lengths are truncated-geometric (smaller E[o], E[v]) and the "
    "effective load is below the nominal rho; the bound is reported at both.",
    "Finite workloads (n requests from an empty system, drained) stand in for the stationary expectation.",
    "OPT is replaced by a lower bound (max of sum o and the SRPT relaxation), so the measured ratio "
    "over-estimates E[TEL]/E[OPT]: below the bound = consistent, above = inconclusive.",
)


def svf_stochastic_bound(alpha: float, mu: float, rho: float, constant: float | None = None) -> float:
    """Thm. 3.4's bound ``1 + 2 / ((1 - alpha)(1 - mu)(1 - rho))`` (``inf`` when a factor is <= 0);
    ``constant`` replaces the 2 (:data:`BOUND_CONSTANT`).

    >>> svf_stochastic_bound(0.5, 0.2, 0.5)
    11.0
    """
    c = BOUND_CONSTANT if constant is None else constant
    denominator = (1 - alpha) * (1 - mu) * (1 - rho)
    return math.inf if denominator <= 0 else 1 + c / denominator


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
    rho: float  # nominal load (sets the arrival rate); >= 1 is outside the theorem (reported, not judged)
    alpha: float  # alpha_cap: the bound's alpha (every sampled peak is <= alpha_cap * M)
    rate: float  # arrival rate per step used by the generator
    replications: int  # workloads simulated
    mean_tel: float  # mean TEL of the policy
    mean_lower_bound: float  # mean lower bound on TEL(OPT) (the exact OPT with opt="exact")
    ratio: float  # mean_tel / mean_lower_bound (>= the true E[TEL]/E[OPT]; equal with exact OPT)
    ci_low: float  # bootstrap confidence interval of the ratio
    ci_high: float
    bound: float  # the theorem's bound at the nominal (alpha_cap, mu, rho)
    effective_rho: float  # the load measured on the point's long workload: 2 (arrivals/step) (mean v) / ((1-alpha) M)
    bound_effective: float  # the bound at the measured load
    truncated_fraction: float  # fraction of requests whose output hit the truncation cap
    eps: float | None  # Thm. 3.5's penalty (1-bit SVF only)
    theta: int | None  # 1-bit threshold (1-bit SVF only)
    proxies: tuple[int, int] | None  # (O_0, O_1) rounded, as used by the policy (1-bit SVF only)
    consistent: bool  # ci_high <= the bound at the nominal and at the measured load
    verdict: str  # "consistent", "refuted", "inconclusive ..." or "outside the hypotheses (rho >= 1)"
    opt: str = "lower_bound"  # "lower_bound", "exact", or "exact+bounds" (some searches hit the node limit)
    ratio_upper_ci_low: float | None = None  # exact/bounds: CI low of sum TEL / sum (upper bound on OPT)
    mean_cr: float | None = None  # E[TEL/OPT] (the summary's E[CR]); exact OPT only
    cr_ci: tuple[float, float] | None = None  # its bootstrap interval
    mean_wait: float | None = None  # mean wait per request of the policy
    used: float | None = None  # (ratio - 1)(1-alpha)(1-mu)(1-rho) / 2: share of the constant the estimate uses
    discriminating: bool | None = None  # the check with the constant 10% smaller is refuted
    vacuous: bool | None = None  # the check with the constant halved still passes (at the top of the CI)
    in_hypotheses: bool = True  # rho < 1, 0 < mu < 1, every sampled peak <= alpha M
    flip_constant: float | None = None  # the check refutes iff the bound's constant 2 is replaced by one below this
    sanity: tuple[str, ...] = ()  # the first per-sample sanity violations (OPT <= TEL, every bound <= OPT)
    sanity_failures: int = 0  # how many there were
    workload: dict[str, Any] = field(default_factory=dict)  # workload_checks: lengths and load vs the statement's
    tel_samples: tuple[int, ...] = ()  # TEL(policy) per workload (the estimator is recomputed from these)
    opt_samples: tuple[int, ...] = ()  # OPT (or its lower bound) per workload


@dataclass(frozen=True)
class MonteCarloResult(Result):
    """All grid points of one Monte-Carlo run."""

    STATUSES = ("consistent", "refuted", "inconclusive")
    SUCCESS = ("consistent",)

    policy: str  # "svf" or "svf1"
    points: list[MCPoint]  # one per (mu, rho)
    samples: int  # workloads simulated in total
    n: int  # requests per workload
    memory: int  # M
    seed: int  # base seed (workload k of point p uses seed + 1000 p + k)
    confidence: float  # confidence level of the intervals
    status: str  # "refuted" (some point beyond its CI), "consistent" (every point consistent), else "inconclusive"
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


def _bootstrap_mean(values: np.ndarray, rng: np.random.Generator, n_boot: int,
                    confidence: float) -> tuple[float, float]:
    idx = rng.integers(0, values.size, size=(n_boot, values.size))
    means = values[idx].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def truncated_mean_volume(mu: float, s_min: int, s_max: int, cap: int) -> float:
    """``E[v]`` for ``s`` uniform on ``[s_min, s_max]`` and ``o = min(Geometric(mu), cap - s)`` (the
    generator's truncated lengths), summed exactly.

    >>> round(truncated_mean_volume(0.5, 0, 0, 2), 6)   # o = 1 w.p. 1/2 (v = 1), else 2 (v = 3)
    2.0
    """
    total = 0.0
    for s in range(s_min, s_max + 1):
        top = cap - s
        pmf = [mu * (1 - mu) ** (k - 1) for k in range(1, top)]
        probs = pmf + [(1 - mu) ** (top - 1)]  # P(o >= top) lumped at the cap
        total += sum(p * (s * k + (k * k + k) / 2) for k, p in enumerate(probs, start=1))
    return total / (s_max - s_min + 1)


def _policy_spec(policy: str, mu: float, theta: int | None) -> tuple[Any, int | None, tuple[int, int] | None,
                                                                      float | None]:
    if policy != "svf1":
        return policy, None, None, None
    from geosched.reference_impl.policies import make_policy

    theta_used = theta if theta is not None else max(1, round(1 / mu))
    o0, o1 = one_bit_parameters(mu, theta_used)
    proxies = (max(1, round(o0)), max(1, round(o1)))
    spec = make_policy("svf1", theta=theta_used, short_length=proxies[0], long_length=proxies[1])
    return spec, theta_used, proxies, distortion_penalty(mu, theta_used)


def _sample(instance: Any, spec: Any, policy: str, opt: str, node_limit: int,
            with_lp: bool = False) -> tuple[int, int, int, float, tuple[str, ...]]:
    """``(TEL, lower bound on OPT, upper bound on OPT, mean wait, sanity violations)`` of one workload
    (equal bounds: exact). The sanity checks, per sample: the checker accepts the policy's schedule;
    with exact OPT, ``OPT <= TEL(policy)`` and every lower bound (the cheap bounds, the best of them,
    and with ``with_lp`` the time-indexed LP relaxation) ``<= OPT``; else every lower bound ``<=`` the
    best schedule found."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.opt import best_lower_bound, brute_force_opt, heuristic_schedule
    from geosched.reference_impl.opt.bounds import cheap_bounds
    from geosched.reference_impl.simulation import simulate

    result = simulate(instance, spec)
    report = check_schedule(instance, result.starts)
    if not report.feasible:
        return 0, 1, 1, 0.0, (f"checker rejects the {policy} schedule: {report.first_violation.message}",)
    tel = report.metrics.tel
    wait = sum(result.starts[r.id] - r.arrival for r in instance.requests) / instance.n
    bounds = [(b.name, int(b.value)) for b in cheap_bounds(instance)]
    best = best_lower_bound(instance)
    bounds.append((f"best_lower_bound ({best.name})", int(best.value)))
    if with_lp:
        from geosched.reference_impl.opt.lower import lp_relaxation_bound

        lp = lp_relaxation_bound(instance)
        if lp is not None:
            bounds.append(("lp_relaxation", math.ceil(float(lp.value) - 1e-9)))
    if opt == "exact":
        exact = brute_force_opt(instance, node_limit=node_limit)
        if exact.status == "optimal":
            value = int(exact.tel)
            problems = [f"OPT <= TEL({policy}) fails: OPT {value} > TEL {tel}"] if value > tel else []
            problems += [f"lower bound {name} <= OPT fails: {v} > OPT {value}" for name, v in bounds if v > value]
            problems += _milp_agrees(instance, value, tel) if with_lp else []
            return tel, value, value, wait, tuple(problems)
        upper = min(tel, check_schedule(instance, heuristic_schedule(instance)).metrics.tel)
    else:
        upper = tel
    problems = [f"lower bound {name} <= best schedule fails: {v} > {upper}" for name, v in bounds if v > upper]
    return tel, int(best.value), upper, wait, tuple(problems)


def _milp_agrees(instance: Any, opt: int, upper: int) -> list[str]:
    """The time-indexed MILP (HiGHS) solved to optimality must reach exactly the exact OPT, with a schedule
    the checker accepts; one that stops at its limit (60 s) proves nothing and is skipped."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.opt.timeindexed import build_model, solve_milp

    out = solve_milp(build_model(instance, upper_bound=upper), time_limit=60.0)
    if not out["proved"] or out["starts"] is None:
        return []
    report = check_schedule(instance, out["starts"])
    if not report.feasible or report.metrics.tel != opt:
        got = report.metrics.tel if report.feasible else "an infeasible schedule"
        return [f"time-indexed MILP optimum {got} != exact OPT {opt}"]
    return []


def _rate(mu: float, rho: float, cfg: dict[str, Any]) -> float:
    """The Poisson arrival rate of grid point ``(mu, rho)``."""
    from geosched.reference_impl.workloads import poisson_rate

    memory, alpha_cap = cfg["memory"], cfg["alpha_cap"]
    if cfg["opt"] == "exact":
        # the load the theorem means, for the lengths actually sampled (truncated at the cap)
        cap = int(alpha_cap * memory)
        return rho * (1 - alpha_cap) * memory / (2 * truncated_mean_volume(mu, cfg["s_min"], cfg["s_max"], cap))
    return poisson_rate(memory=memory, mu=mu, rho=rho, s_min=cfg["s_min"], s_max=cfg["s_max"], alpha_cap=alpha_cap)


def _generate(cfg: dict[str, Any], mu: float, rate: float, seed: int, n: int) -> Any:
    """One workload of the point's generator: every sampled and every measured workload comes from here."""
    from geosched.reference_impl.workloads import generate

    return generate("poisson", n=n, mu=mu, rate=rate, memory=cfg["memory"], alpha_cap=cfg["alpha_cap"],
                    s_min=cfg["s_min"], s_max=cfg["s_max"], seed=seed)


def measure_arrivals(p: int, mu: float, rate: float, cfg: dict[str, Any]) -> dict[str, Any]:
    """Raw counts of one long workload of the point (:data:`MEASURE_REQUESTS` requests, seed
    ``seed + 10^6 + p``, disjoint from the sampled workloads'): exponential gaps, the span of the (integer)
    arrival steps, the sums of the volumes and of their squares, the largest peak. The ledger compares them
    with the statement's rate and load (geosched.verify.methods)."""
    instance = _generate(cfg, mu, rate, cfg["seed"] + 10**6 + p, cfg.get("measure_requests", MEASURE_REQUESTS))
    arrivals = [r.arrival for r in instance.requests]
    volumes = [r.volume for r in instance.requests]
    return {"requests": instance.n, "gaps": instance.n - 1, "span": max(arrivals) - min(arrivals),
            "sum_volume": sum(volumes), "sum_volume_sq": sum(v * v for v in volumes),
            "max_peak": max(r.peak for r in instance.requests)}


def _workloads(job: tuple) -> list[tuple]:
    """One chunk of replications, a pure function of ``(p, mu, rate, ks, cfg)``: per workload ``k``
    (seed ``seed + 1000 p + k``) ``(TEL, LB, UB, mean wait, sum of volumes, truncated, n, arrival span,
    sum of outputs, sanity violations)``."""
    p, mu, rate, ks, cfg = job
    spec = _policy_spec(cfg["policy"], mu, cfg["theta"])[0]
    cap = int(cfg["alpha_cap"] * cfg["memory"])
    rows = []
    for k in ks:
        instance = _generate(cfg, mu, rate, cfg["seed"] + 1000 * p + k, cfg["n"])
        outputs = [r.output for r in instance.requests]
        *sample, problems = _sample(instance, spec, cfg["policy"], cfg["opt"], cfg["node_limit"],
                                    with_lp=k < cfg.get("lp_samples", 0))
        rows.append((*sample, sum(r.volume for r in instance.requests),
                     sum(1 for r in instance.requests if r.output == cap - r.prompt), instance.n,
                     max(r.arrival for r in instance.requests) - min(r.arrival for r in instance.requests),
                     sum(outputs), problems))
    return rows


def expected_output_moments(mu: float, s_min: int, s_max: int, cap: int) -> tuple[float, float]:
    """``(E[o], E[o^2])`` of the generator's lengths: ``o = min(G, cap - s)``, ``G ~ Geometric(mu)`` on
    ``{1, 2, ...}``, ``s`` uniform on ``[s_min, s_max]`` (``E[min(G, c)] = sum_{k<c} q^k``), by direct
    sums; the workload check compares the sampled lengths with them.

    >>> [round(x, 6) for x in expected_output_moments(0.5, 0, 0, 2)]
    [1.5, 2.5]
    """
    q = 1 - mu
    first = second = 0.0
    for s in range(s_min, s_max + 1):
        c = cap - s
        tail = [q**k for k in range(c)]  # P(min(G, c) > k), k = 0 .. c-1
        first += sum(tail)
        second += sum((2 * k + 1) * t for k, t in enumerate(tail))  # E[X^2] = sum_k (2k+1) P(X > k)
    width = s_max - s_min + 1
    return first / width, second / width


def workload_checks(mu: float, rho: float, rows: list[tuple], cfg: dict[str, Any], z: float = 4.0) -> dict[str, Any]:
    """The sampled workloads are the ones the statement names, from the samples alone: the mean
    output length against the truncated geometric's (a z-test, ``|z| <= 4``), and, with exact OPT
    (where the rate is set from the sampled lengths' distribution), the load ``rho`` measured as
    ``2 (arrivals per step) (mean volume) / ((1 - alpha) M)`` against the nominal one (jackknife over
    workloads, ``|z| <= 4``; the integer arrival steps shorten each workload's span by less than one step, so
    the rate measured from them is high by at most a factor ``1 / (1 - R / S)``, ``R`` workloads over a total
    span ``S``, which widens the interval's low end). A shifted length distribution or a grossly wrong arrival
    rate fails here; the long workload of :func:`measure_arrivals` measures the rate and load finely."""
    cap = int(cfg["alpha_cap"] * cfg["memory"])
    mean, second = expected_output_moments(mu, cfg["s_min"], cfg["s_max"], cap)
    count = sum(row[6] for row in rows)
    sample_mean = sum(row[8] for row in rows) / count
    z_length = (sample_mean - mean) / math.sqrt(max(second - mean * mean, 1e-12) / count)
    problems = []
    if abs(z_length) > z:
        problems.append(f"length check fails: mean output {sample_mean:.3f} vs the truncated geometric's "
                        f"{mean:.3f} (z = {z_length:.1f})")
    out: dict[str, Any] = {"mean_output": round(sample_mean, 4), "expected_output": round(mean, 4),
                           "z_length": round(z_length, 2)}
    if cfg["opt"] == "exact":
        scale = 2 / ((1 - cfg["alpha_cap"]) * cfg["memory"])

        def load(subset: list[tuple]) -> float:
            gaps, span = sum(r[6] - 1 for r in subset), sum(r[7] for r in subset)
            return scale * (gaps / max(span, 1)) * (sum(r[4] for r in subset) / sum(r[6] for r in subset))

        measured = load(rows)
        leave_one = [load(rows[:k] + rows[k + 1:]) for k in range(len(rows))]
        jack = sum(leave_one) / len(rows)
        se = math.sqrt((len(rows) - 1) / len(rows) * sum((x - jack) ** 2 for x in leave_one))
        floor_share = len(rows) / max(1, sum(r[7] for r in rows))  # <= one step lost per workload's span
        low, high = (measured - z * se) * (1 - floor_share), measured + z * se
        out.update(measured_rho=round(measured, 4), measured_rho_interval=[round(low, 4), round(high, 4)])
        if not low <= rho <= high:
            problems.append(f"load check fails: measured rho {measured:.3f} (interval {low:.3f}..{high:.3f}) vs "
                            f"nominal {rho}")
    out["problems"] = problems
    return out


def _point(p: int, mu: float, rho: float, rate: float, rows: list[tuple], cfg: dict[str, Any],
           rng: np.random.Generator) -> MCPoint:
    """The estimates at one grid point from its workloads' rows (in replication order)."""
    _, theta_used, proxies, eps = _policy_spec(cfg["policy"], mu, cfg["theta"])
    tel, low, high, wait = (np.asarray(col, dtype=float) for col in list(zip(*rows))[:4])
    truncated, count = (sum(row[j] for row in rows) for j in (5, 6))
    measured = measure_arrivals(p, mu, rate, cfg)
    effective_rho = (2 * (measured["gaps"] / max(1, measured["span"])) * (measured["sum_volume"] / measured["requests"])
                     / ((1 - cfg["alpha_cap"]) * cfg["memory"]))
    inside = 0 < mu < 1 and rho < 1 and measured["max_peak"] <= cfg["alpha_cap"] * cfg["memory"]
    point = _judge(mu, rho, rate, cfg, rng, (tel, low, high, wait), effective_rho, truncated / count,
                   (eps, theta_used, proxies), inside)
    sanity = [f"workload {k}: {problem}" for k, row in enumerate(rows) for problem in row[9]]
    checks = {**workload_checks(mu, rho, rows, cfg), "measured": measured}
    return replace(point, sanity=tuple(sanity[:5]), sanity_failures=len(sanity), workload=checks,
                   tel_samples=tuple(int(x) for x in tel), opt_samples=tuple(int(x) for x in low))


def _all_points(points: list[tuple[float, float]], cfg: dict[str, Any], rng: np.random.Generator,
                executor: Any) -> list[MCPoint]:
    """Every point's workloads in chunks of :data:`REPLICATION_CHUNK` on ``executor``, merged in order,
    then judged in point order (the bootstrap draws from ``rng`` in that order: any executor, same result)."""
    rates = [_rate(mu, rho, cfg) for mu, rho in points]
    reps = cfg["replications"]
    jobs = [(p, mu, rates[p], tuple(range(k, min(k + REPLICATION_CHUNK, reps))), cfg)
            for p, (mu, _) in enumerate(points) for k in range(0, reps, REPLICATION_CHUNK)]
    rows: list[list[tuple]] = [[] for _ in points]
    with using_executor(executor) as pool:
        for job, part in zip(jobs, pool.map(_workloads, jobs)):
            rows[job[0]].extend(part)
    return [_point(p, mu, rho, rates[p], rows[p], cfg, rng) for p, (mu, rho) in enumerate(points)]


def judge_point(point: MCPoint, result: MonteCarloResult, tel: list[int]) -> MCPoint:
    """``point`` judged again by :func:`_judge` (the run's own verdict) with its TEL samples replaced by ``tel``
    (the ledger's canary plants TELs above the bound there); its OPT samples and settings as recorded."""
    opt = np.array(point.opt_samples, dtype=float)
    cfg = {"alpha_cap": result.extra["alpha_cap"], "n_boot": result.extra["n_boot"], "confidence": result.confidence,
           "opt": "exact" if point.opt == "exact" else result.extra["opt"], "replications": point.replications}
    columns = (np.array(tel, dtype=float), opt, opt, np.zeros(len(tel)))
    return _judge(point.mu, point.rho, point.rate, cfg, np.random.default_rng(result.seed), columns,
                  point.effective_rho, point.truncated_fraction, (point.eps, point.theta, point.proxies),
                  point.in_hypotheses)


def _judge(mu: float, rho: float, rate: float, cfg: dict[str, Any], rng: np.random.Generator, columns: tuple,
           effective_rho: float, truncated: float, onebit: tuple, in_hyp: bool) -> MCPoint:
    """The estimates, their intervals and the verdict at one point."""
    tel, low, high, wait = columns
    alpha, n_boot, conf = cfg["alpha_cap"], cfg["n_boot"], cfg["confidence"]
    exact = bool(np.array_equal(low, high)) and cfg["opt"] == "exact"
    ratio = float(tel.sum() / low.sum())
    ci_low, ci_high = _bootstrap_ratio(tel, low, rng, n_boot, conf)
    upper_low = _bootstrap_ratio(tel, high, rng, n_boot, conf)[0] if cfg["opt"] == "exact" else None
    eps = onebit[0]
    bound = svf_stochastic_bound(alpha, mu, rho)
    bound_eff = svf_stochastic_bound(alpha, mu, effective_rho)
    # Thm. 3.5's penalty: how eps enters is not stated; the generous reading B (1 + eps) for refutations
    generous = max(bound, bound_eff) * (1 + (eps or 0.0))
    factor = (1 - alpha) * (1 - mu) * (1 - rho)
    used = ((ratio - 1) * factor / BOUND_CONSTANT if BOUND_CONSTANT else math.inf) if in_hyp else None
    refute_at = upper_low if upper_low is not None else None
    refuted = in_hyp and refute_at is not None and refute_at > generous
    consistent = in_hyp and ci_high <= min(bound, bound_eff)
    discriminating = in_hyp and refute_at is not None and refute_at > svf_stochastic_bound(
        alpha, mu, rho, 0.9 * BOUND_CONSTANT)
    vacuous = in_hyp and ci_high <= svf_stochastic_bound(alpha, mu, min(rho, effective_rho), BOUND_CONSTANT / 2)
    # the sensitivity check: the check refutes exactly when the constant 2 is replaced by one below this
    flip = ((refute_at / (1 + (eps or 0.0)) - 1) * factor if in_hyp and refute_at is not None else None)
    verdict = ("outside the hypotheses (rho >= 1 or a peak above alpha M): reported, not judged" if not in_hyp else
               "refuted" if refuted else "consistent" if consistent else
               "inconclusive (ratio to a lower bound above the bound)")
    cr = tel / low if exact else None
    return MCPoint(
        mu=mu, rho=rho, alpha=alpha, rate=rate, replications=cfg["replications"], mean_tel=float(tel.mean()),
        mean_lower_bound=float(low.mean()), ratio=ratio, ci_low=ci_low, ci_high=ci_high, bound=bound,
        effective_rho=effective_rho, bound_effective=bound_eff, truncated_fraction=truncated, eps=eps,
        theta=onebit[1], proxies=onebit[2], consistent=consistent, verdict=verdict,
        opt="lower_bound" if cfg["opt"] != "exact" else ("exact" if exact else "exact+bounds"),
        ratio_upper_ci_low=upper_low, mean_cr=float(cr.mean()) if cr is not None else None,
        cr_ci=_bootstrap_mean(cr, rng, n_boot, conf) if cr is not None else None, mean_wait=float(wait.mean()),
        used=used, discriminating=discriminating if in_hyp else None, vacuous=vacuous if in_hyp else None,
        in_hypotheses=in_hyp, flip_constant=flip)


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
    opt: str = "lower_bound",
    node_limit: int = 200_000,
    outside: Sequence[tuple[float, float]] = (),
    executor: Any = None,
    lp_samples: int = 0,
) -> MonteCarloResult:
    """Estimate ``E[TEL(policy)] / E[TEL(OPT)]`` at each ``(mu, rho)`` of ``grid``.

    ``policy`` is ``"svf"`` (Thm. 3.4) or ``"svf1"`` (Thm. 3.5: threshold ``theta``, default
    ``round(1/mu)``, with the paper's ``O_0``, ``O_1``). Workload ``k`` of grid point ``p``
    uses seed ``seed + 1000 p + k``; the bootstrap uses ``seed``. ``opt="exact"`` solves every
    workload exactly (small ``n``): then a point can be refuted, and ``E[SVF/OPT]`` is estimated
    too. ``outside`` points (``rho >= 1``) are measured and reported, never judged. ``executor``
    (a :class:`concurrent.futures.Executor` or a spec of :func:`geosched.executor.make_executor`,
    default serial) runs the workloads in chunks; the result does not depend on it. The first
    ``lp_samples`` workloads of each point also check the time-indexed LP relaxation bound against OPT.
    """
    if policy not in ("svf", "svf1"):
        raise ValidationError("policy", policy, "must be 'svf' (Thm. 3.4) or 'svf1' (Thm. 3.5)")
    if replications < 2:
        raise ValidationError("replications", replications, "must be >= 2 for a confidence interval")
    if opt not in ("lower_bound", "exact"):
        raise ValidationError("opt", opt, "must be 'lower_bound' or 'exact'")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    for mu, rho in grid:
        if not (0 < mu < 1 and 0 < rho < 1):
            raise ValidationError("grid point (mu, rho)", (mu, rho), "needs 0 < mu < 1 and 0 < rho < 1")
    for mu, rho in outside:
        if not (0 < mu < 1 and rho > 0):
            raise ValidationError("outside point (mu, rho)", (mu, rho), "needs 0 < mu < 1 and rho > 0")
    cfg = {"policy": policy, "n": n, "replications": replications, "memory": memory, "alpha_cap": alpha_cap,
           "s_min": s_min, "s_max": s_max, "theta": theta, "seed": seed, "n_boot": n_boot, "confidence": confidence,
           "opt": opt, "node_limit": node_limit, "lp_samples": lp_samples}
    points = _all_points([*grid, *outside], cfg, rng, executor)
    return _summary(policy, points, cfg, time.perf_counter() - t0)


def _summary(policy: str, points: list[MCPoint], cfg: dict[str, Any], elapsed: float) -> MonteCarloResult:
    judged = [pt for pt in points if pt.in_hypotheses]
    samples = cfg["replications"] * len(points)
    refuted = [pt for pt in judged if pt.verdict == "refuted"]
    insane = [pt for pt in points if pt.sanity_failures or pt.workload.get("problems")]
    all_ok = bool(judged) and all(pt.consistent for pt in judged)
    status = "refuted" if refuted or insane else "consistent" if all_ok else "inconclusive"
    theorem = "3.4" if policy == "svf" else "3.5"
    worst = max(judged, key=lambda pt: pt.ci_high / pt.bound_effective, default=None)
    if insane:
        first = insane[0]
        what = (first.sanity or tuple(first.workload["problems"]))[0]
        message = (f"{policy}: a sanity check fails at mu={first.mu}, rho={first.rho} "
                   f"({first.sanity_failures} per-sample violations): {what}")
    elif refuted:
        first = refuted[0]
        message = (f"{policy}: Thm. {theorem}'s bound {first.bound:.3f} violated beyond the CI at mu={first.mu}, "
                   f"rho={first.rho} (ratio {first.ratio:.3f}, CI low {first.ratio_upper_ci_low:.3f})")
    elif worst is None:
        message = f"{policy}: no point inside the theorem's hypotheses: nothing judged"
    else:
        message = (f"{policy}: ratio to {'OPT' if cfg['opt'] == 'exact' else 'LB(OPT)'} "
                   f"{'below' if all_ok else 'NOT below'} Thm. {theorem}'s bound at all {len(judged)} (mu, rho) "
                   f"points in {samples} workloads of n={cfg['n']}; worst CI top {worst.ci_high:.3f} vs bound "
                   f"{worst.bound_effective:.3f} at mu={worst.mu}, rho={worst.rho}")
    return MonteCarloResult(
        policy=policy, points=points, samples=samples, n=cfg["n"], memory=cfg["memory"], seed=cfg["seed"],
        confidence=cfg["confidence"], status=status, message=message, wall_time=elapsed,
        extra={"opt": cfg["opt"], "alpha_cap": cfg["alpha_cap"], "s_range": [cfg["s_min"], cfg["s_max"]],
               "n_boot": cfg["n_boot"], "measure_requests": cfg.get("measure_requests", MEASURE_REQUESTS)},
    )
