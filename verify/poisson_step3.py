"""``monte-carlo:poisson-step3``: ``svf.poisson``'s expected-wait inequality, checked directly on simulated waits.

``svf.poisson`` turns the Coq sample path into, for every class ``k`` (in the volume order),

.. math::  w_k (1 - \\sigma_{k+1}) \\le r_0 + \\sum_{i<k} \\rho_i w_i,\\qquad r_0 = R/D + \\rho

(its step 4: the residual ``R``, the waiting work of classes ``<= k``, batch mates, arrivals of
classes ``< k`` during the wait). The checks of the named hypotheses measure each ingredient; this
one measures the inequality itself: the mean waits ``w_k`` of a long simulated run, per block, on both
sides (``R``, ``rho_i``, ``sigma_k`` exact from the type distribution), a one-sided batch-means test per
class (refuted at ``z > 4``).

The workload (:data:`TIGHT`) is chosen so that the inequality is nearly tight: every peak is near
``P`` and two requests never run together (``s_i + s_j + 2 > M``), so the drain while a request waits
is ``p ~ P`` against the bound's ``D = M - P``, and the residual (outputs 4 and 10) is a large share of
``r_0``; at ``rho = 0.5`` the classes use about 0.76 and 0.86 of their right-hand sides. Planted defects,
judged by the same predicate (:func:`step3_problems`) on the same waits: the residual dropped
(``r_0 -> rho``; the canary: it must be refuted), and, reported beside it, the own class's waiting
work dropped (``sigma_{k+1} -> sigma_k``) and the later arrivals dropped (``sigma_{k+1} -> rho_k``).

Example
-------
>>> m = measure_step3(20_000, 1)
>>> step3_problems(m) == [], bool(step3_problems(m, "residual dropped"))
(True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from geosched.verify.evidence import Context, Evidence, declares_canary, plant
from geosched.verify.poisson_model import ClassWorkload, simulate_classes

__all__ = ["TIGHT", "LOAD", "DEFECTS", "measure_step3", "step3_problems", "tightness", "STEP3_METHODS"]

TIGHT = ClassWorkload("tight", 781, 400, ((396, 4), (390, 10)), (0.5, 0.5), "fcfs")
LOAD = 0.5
BLOCKS = 20
Z_LIMIT = 4.0
DEFECTS = ("residual dropped", "own class dropped", "later arrivals dropped")


def measure_step3(n: int, seed: int, workload: ClassWorkload = TIGHT, rho: float = LOAD) -> dict[str, Any]:
    """Strict SVF on ``n`` arrivals: the per-block mean wait of each class (volume order) and the exact terms."""
    run = simulate_classes(workload, workload.rate(rho), n, seed, ("svf",))
    pi, work, lam = workload.column("pi"), workload.column("po"), workload.rate(rho)
    order = np.argsort(workload.keys("svf"), kind="stable")
    first = len(run.arrivals) // 10
    blocks = np.repeat(np.arange(BLOCKS), [len(b) for b in np.array_split(np.arange(len(run.arrivals) - first),
                                                                           BLOCKS)])
    kinds, waits = run.kinds[first:], run.waits("svf")[first:].astype(float)
    per_block = np.array([[waits[(kinds == k) & (blocks == b)].mean() for b in range(BLOCKS)] for k in order])
    residual = lam * float(pi @ (work * (workload.column("o") - 1) / 2))
    return {"n": len(run.arrivals), "seed": seed, "rho": rho, "types": [workload.types[k] for k in order],
            "rho_k": (lam * pi * work / workload.drain)[order].tolist(), "residual_over_d": residual / workload.drain,
            "waits": per_block.tolist()}


def _sides(measured: dict[str, Any], defect: str | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per class, the per-block left and right sides of the inequality (with ``defect`` planted)."""
    rho_k, waits = np.array(measured["rho_k"]), np.array(measured["waits"])
    rho = rho_k.sum()
    r0 = rho + (0.0 if defect == "residual dropped" else measured["residual_over_d"])
    sides, sigma = [], 0.0
    for k in range(len(rho_k)):
        load = {"own class dropped": sigma, "later arrivals dropped": rho_k[k]}.get(defect, sigma + rho_k[k])
        right = r0 + (rho_k[:k, None] * waits[:k]).sum(axis=0)
        sides.append((waits[k] * (1 - load), right))
        sigma += rho_k[k]
    return sides


def _z(left: np.ndarray, right: np.ndarray) -> float:
    diff = left - right
    se = diff.std(ddof=1) / math.sqrt(len(diff))
    return float(diff.mean() / se) if se > 0 else (math.inf if diff.mean() > 0 else 0.0)


def step3_problems(measured: dict[str, Any], defect: str | None = None) -> list[str]:
    """The verdict: each class whose mean left side exceeds its right side significantly (``z > 4``)."""
    problems = []
    for (s, o), (left, right) in zip(measured["types"], _sides(measured, defect)):
        z = _z(left, right)
        if z > Z_LIMIT:
            problems.append(f"class ({s}, {o}): w_k (1 - sigma_k+1) = {left.mean():.3f} > r0 + sum = "
                            f"{right.mean():.3f} (z = {z:+.1f}{', ' + defect if defect else ''})")
    return problems


def tightness(measured: dict[str, Any], defect: str | None = None) -> list[float]:
    """Each class's mean left side over its mean right side (with ``defect`` planted): how nearly tight."""
    return [float(left.mean() / right.mean()) for left, right in _sides(measured, defect)]


@declares_canary("the inequality with the residual dropped must be refuted on the same waits")
def _step3(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:poisson-step3``: the expected-wait inequality on a nearly tight workload (module docstring)."""
    started = time.perf_counter()
    measured, _ = ctx.cached("poisson:step3", lambda: measure_step3(ctx.pick(40_000, 100_000, 400_000),
                                                                       ctx.seed + 61))
    problems = step3_problems(measured)
    canary = plant("the residual dropped (r0 -> rho)", lambda m: step3_problems(m, DEFECTS[0]), measured)
    mutants = {d: {"refuted": bool(step3_problems(measured, d)), "ratios": tightness(measured, d)} for d in DEFECTS}
    used = max(tightness(measured))
    data = {**measured, "tightness": tightness(measured), "mutants": mutants}
    if problems:
        return Evidence("monte-carlo:poisson-step3", "statistical", "refuted", "step 4 fails: " + "; ".join(problems),
                        samples=measured["n"], wall_time=time.perf_counter() - started, data=data, canary=canary,
                        implementation=True)
    text = (f"{measured['n']} arrivals, rho = {measured['rho']}: each class uses "
            + ", ".join(f"{r:.2f}" for r in data["tightness"]) + " of its right-hand side; planted: "
            + ", ".join(f"{d} {'refuted' if m['refuted'] else 'NOT refuted'} (x{max(m['ratios']):.2f})"
                        for d, m in mutants.items()))
    return Evidence("monte-carlo:poisson-step3", "statistical", "consistent", text, samples=measured["n"],
                    wall_time=time.perf_counter() - started, used=used, discriminating=canary.refuted, data=data,
                    canary=canary, implementation=True)


STEP3_METHODS = {"monte-carlo:poisson-step3": _step3}
