"""``monte-carlo:poisson-residual``: the residual that ``svf.poisson`` assumes, measured where it applies.

``svf.poisson`` (geosched.theory.svf_poisson) assumes PASTA and LITTLE for the residual: the
peak-time an arrival finds still to run, ``R_j = sum_{x_i < a_j} p_i (x_i + o_i - a_j)^+``, has
mean ``R = lambda E[p o (o - 1)/2]`` in the stationary regime. This check simulates strict SVF
(the package's simulator) on a long Poisson workload of three classes and compares the mean of
``R_j`` over the arrivals after a warm-up with ``R`` computed from the class distribution, by
batch means (20 batches of arrivals, ``|z| <= 4``). It can fail: ``refuted`` when the formula lies
outside the interval; and it must discriminate: the same test against ``1.1 R`` (the constant 10%
larger) must reject, else the check is ``vacuous``. A ``consistent`` result never raises the row's
word (the word is ``proved relative to`` the hypotheses); a ``refuted`` one refutes the row.

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

from geosched.verify.evidence import Context, Evidence

__all__ = ["POISSON_METHODS", "measure_residual", "CLASSES", "MEMORY", "ALPHA_CAP"]

MEMORY = 40
ALPHA_CAP = 10  # every peak <= P = 10 = alpha M with alpha = 1/4; D = 30
CLASSES = ((2, 2), (1, 5), (2, 8))  # (prompt, output): peaks 4, 6, 10; volumes 7, 20, 52 (distinct)
LOAD = 0.9  # rho = lambda E[p o]/D < 1: stationary, with queueing
_Z = 4.0
_BATCHES = 20
_PERTURB = 1.1


def _rate(load: float) -> float:
    mean_work = np.mean([(s + o) * o for s, o in CLASSES])
    return load * (MEMORY - ALPHA_CAP) / float(mean_work)


def residual_formula(rate: float) -> float:
    """``R = lambda E[p o (o - 1)/2]`` over the uniform class distribution."""
    return rate * float(np.mean([(s + o) * o * (o - 1) / 2 for s, o in CLASSES]))


def _workload(n: int, rate: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = int(n / rate) + 1
    counts = rng.poisson(rate, size=steps)
    arrivals = np.repeat(np.arange(steps), counts)[:n]
    kinds = rng.integers(0, len(CLASSES), size=len(arrivals))
    prompts = np.array([CLASSES[k][0] for k in kinds])
    outputs = np.array([CLASSES[k][1] for k in kinds])
    return arrivals, prompts, outputs


def measure_residual(n: int, seed: int, load: float = LOAD) -> dict[str, Any]:
    """Simulate strict SVF on ``n`` Poisson arrivals; ``R_j`` of every arrival after the first tenth."""
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulator import simulate

    rate = _rate(load)
    arrivals, prompts, outputs = _workload(n, rate, seed)
    instance = Instance(MEMORY, [Request(f"r{i}", int(a), int(s), int(o))
                                 for i, (a, s, o) in enumerate(zip(arrivals, prompts, outputs))])
    result = simulate(instance, "svf")
    starts = np.array([result.starts[r.id] for r in instance.requests])
    horizon = int((starts + outputs).max()) + 2
    residual = np.zeros(horizon)
    peaks = prompts + outputs
    for lag in range(1, int(outputs.max())):  # request i adds p_i (o_i - lag) at step x_i + lag, 1 <= lag < o_i
        live = outputs > lag
        np.add.at(residual, starts[live] + lag, peaks[live] * (outputs[live] - lag))
    seen = residual[arrivals[n // 10:]]
    return {"rate": rate, "seen": seen, "mean_wait": float((starts - arrivals).mean()), "n": int(len(arrivals))}


def _batch_interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and standard error by batch means."""
    batches = np.array_split(values, _BATCHES)
    means = np.array([b.mean() for b in batches])
    return float(values.mean()), float(means.std(ddof=1) / np.sqrt(_BATCHES))


def _method(claim: Any, ctx: Context) -> Evidence:
    started = time.perf_counter()
    n = ctx.pick(20_000, 60_000, 200_000)
    measured = measure_residual(n, seed=ctx.seed + 33)
    mean, se = _batch_interval(measured["seen"])
    formula = residual_formula(measured["rate"])
    z = (mean - formula) / se
    z_perturbed = (mean - _PERTURB * formula) / se
    discriminating = abs(z_perturbed) > _Z
    data = {"n": measured["n"], "rate": measured["rate"], "load": LOAD, "seed": ctx.seed + 33,
            "mean_seen": mean, "standard_error": se, "formula": formula, "z": z,
            "z_at_1.1_R": z_perturbed, "mean_wait": measured["mean_wait"]}
    text = (f"mean residual seen by {len(measured['seen'])} arrivals {mean:.3f} +- {se:.3f} against "
            f"lambda E[p o (o-1)/2] = {formula:.3f} (z = {z:.2f}); 1.1 R gives z = {z_perturbed:.1f}")
    if abs(z) > _Z:
        return Evidence("monte-carlo:poisson-residual", "statistical", "refuted", f"PASTA/LITTLE fail: {text}",
                        samples=measured["n"], wall_time=time.perf_counter() - started, data=data,
                        discriminating=discriminating, implementation=True)
    status = "consistent" if discriminating else "vacuous"
    return Evidence("monte-carlo:poisson-residual", "statistical", status, text, samples=measured["n"],
                    wall_time=time.perf_counter() - started, data=data, discriminating=discriminating,
                    implementation=True)


POISSON_METHODS = {"monte-carlo:poisson-residual": _method}
