"""``monte-carlo:poisson-residual``: the residual that ``svf.poisson`` assumes, measured where it applies.

``svf.poisson`` (geosched.theory.svf_poisson) assumes PASTA and LITTLE for the residual: the peak-time an
arrival finds still to run, ``R_j = sum_{x_i < a_j} p_i (x_i + o_i - a_j)^+``, has mean ``R = lambda E[p o (o
- 1)/2]`` in the stationary regime. This check simulates strict SVF and 1-bit SVF (the package's simulator;
the formula does not depend on the order) on a long Poisson workload of three classes and compares, for each,
the mean of ``R_j`` over the arrivals after a warm-up with ``R`` computed from the class distribution, by
batch means (20 batches of arrivals, ``|z| <= 4``). It can fail: ``refuted`` when the formula lies outside the
interval (for either policy); and its canary must be refuted: the same test (:func:`refutes`) on the residual
seen by the arrivals planted 10% smaller, else the check is ``vacuous`` and so is the row (the ledger's rule 2b;
the old probe against ``1.1 R`` is reported as ``discriminating``). A ``consistent`` result never raises
the row's word (the word is ``proved relative to`` the hypotheses); a ``refuted`` one refutes the row.
The workload, the run and the batch means are :mod:`geosched.verify.poisson_workload`'s, shared with the checks of
the other hypotheses (:mod:`geosched.verify.poisson_hypotheses`).

Example
-------
>>> from geosched.verify.evidence import Context
>>> e = POISSON_METHODS["monte-carlo:poisson-residual"](None, Context("quick", None, 0, ()))
>>> e.status, e.discriminating
('consistent', True)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from geosched.verify.evidence import Canary, Context, Evidence, declares_canary
from geosched.verify.poisson_workload import (
    ALPHA_CAP,
    CLASSES,
    LOAD,
    MEMORY,
    PERTURB,
    POLICIES,
    Z_LIMIT,
    batch_interval,
    poisson_runs,
    residual_profile,
)

__all__ = ["POISSON_METHODS", "measure_residual", "residual_formula", "CLASSES", "MEMORY", "ALPHA_CAP"]


PLANTED = "the residual seen by the arrivals planted 10% smaller (the same test must refute it, both policies)"


def residual_formula(rate: float) -> float:
    """``R = lambda E[p o (o - 1)/2]`` over the uniform class distribution."""
    return rate * float(np.mean([(s + o) * o * (o - 1) / 2 for s, o in CLASSES]))


def measure_residual(n: int, seed: int, load: float = LOAD, policy: str = "svf") -> dict[str, Any]:
    """Simulate ``policy`` on ``n`` Poisson arrivals; ``R_j`` of every arrival after the first tenth."""
    run = poisson_runs(n, seed, load, POLICIES if policy in POLICIES else (policy,))[policy]
    residual = residual_profile(run.starts, run.peaks, run.outputs, run.horizon)
    seen = residual[run.arrivals[n // 10:]]
    return {"rate": run.rate, "seen": seen, "mean_wait": float(run.waits.mean()), "n": run.n}


def residual_z(seen: np.ndarray, formula: float) -> tuple[float, float, float]:
    """The residual's test: the mean seen by the arrivals, its batch-means standard error and ``z`` against
    the formula (refuted at ``|z| > Z_LIMIT``)."""
    mean, se = batch_interval(seen)
    return mean, se, (mean - formula) / se


def refutes(abs_z: float) -> bool:
    """The residual test's verdict (the real run's and the canary's): refuted beyond ``Z_LIMIT`` standard errors."""
    return abs_z > Z_LIMIT


def _one_policy(n: int, seed: int, policy: str) -> tuple[dict[str, Any], str, float, float]:
    """The residual test on one policy's run: its data, its text, ``|z|`` and the canary's ``|z|`` (the
    residual seen by the arrivals planted 10% smaller, the same test)."""
    measured = measure_residual(n, seed=seed, policy=policy)
    formula = residual_formula(measured["rate"])
    mean, se, z = residual_z(measured["seen"], formula)
    z_planted = residual_z(measured["seen"] / PERTURB, formula)[2]
    z_perturbed = (mean - PERTURB * formula) / se
    data = {"n": measured["n"], "rate": measured["rate"], "mean_seen": mean, "standard_error": se,
            "formula": formula, "z": z, "z_at_1.1_R": z_perturbed, "mean_wait": measured["mean_wait"],
            "discriminating": abs(z_perturbed) > Z_LIMIT, "z_planted": z_planted}
    text = (f"{policy}: mean residual seen by {len(measured['seen'])} arrivals {mean:.3f} +- {se:.3f} against "
            f"lambda E[p o (o-1)/2] = {formula:.3f} (z = {z:.2f}); 1.1 R gives z = {z_perturbed:.1f}")
    return data, text, abs(z), abs(z_planted)


@declares_canary(PLANTED)
def _method(claim: Any, ctx: Context) -> Evidence:
    """Strict SVF and 1-bit SVF (the residual formula does not depend on the order): refuted if either refutes,
    vacuous unless both refute their canary."""
    started = time.perf_counter()
    n = ctx.pick(20_000, 60_000, 200_000)
    runs = {policy: _one_policy(n, ctx.seed + 33, policy) for policy in POLICIES}
    per_policy = {policy: data for policy, (data, _, _, _) in runs.items()}
    data = {"load": LOAD, "seed": ctx.seed + 33, "policies": per_policy, **per_policy["svf"]}
    text = "; ".join(text for _, text, _, _ in runs.values())
    discriminating = all(d["discriminating"] for d in per_policy.values())
    samples = sum(d["n"] for d in per_policy.values())
    if any(refutes(abs_z) for _, _, abs_z, _ in runs.values()):
        return Evidence("monte-carlo:poisson-residual", "statistical", "refuted", f"PASTA/LITTLE fail: {text}",
                        samples=samples, wall_time=time.perf_counter() - started, data=data,
                        discriminating=discriminating, implementation=True)
    planted = {policy: z for policy, (_, _, _, z) in runs.items()}
    canary = Canary(PLANTED, all(refutes(z) for z in planted.values()),
                    "; ".join(f"{policy}: |z| = {z:.1f}" for policy, z in planted.items()) + f" (limit {Z_LIMIT})")
    return Evidence("monte-carlo:poisson-residual", "statistical", "consistent", text, samples=samples,
                    wall_time=time.perf_counter() - started, data=data, discriminating=discriminating,
                    implementation=True, canary=canary)



POISSON_METHODS = {"monte-carlo:poisson-residual": _method}
