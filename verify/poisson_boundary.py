"""``monte-carlo:poisson-boundary``: where the project's Poisson workload stops being stable under strict SVF.

``svf.poisson.stable`` proves a stationary regime for ``lambda E[p o] < M + 1 - P`` (``rho < 31/30`` on
:data:`~geosched.verify.poisson_model.PROJECT`: ``M = 40``, ``P = 10``, ``D = 30``); the condition is
sufficient, not necessary. The true boundary of this workload is the load at which its
lowest-priority class (``(2, 8)``, the largest volume) can no longer be served:

* **saturation** (:func:`saturation_margin`): the other classes arrive as Poisson streams at load
  ``rho``, the lowest class is backlogged from step 0 (always waiting); its throughput ``theta(rho)``
  (starts per step, batch means) against its arrival rate ``lambda pi_K``. The margin ``theta -
  lambda pi_K`` is positive below the boundary and negative above; :data:`BRACKET` brackets it, and
  ``rho*`` is the linear interpolation of the two margins;
* **direct runs** (:func:`direct_run`): Poisson arrivals of all classes at :data:`STABLE_SIDE` and
  :data:`UNSTABLE_SIDE`: the late half's mean wait against the early half's (after a tenth dropped),
  ``|z| <= 4`` on the stable side, ``z > 4`` (growth) on the unstable side.

:func:`boundary_problems` is the verdict (the margins of opposite signs, each significant; the stable
side stationary; the unstable side growing); its canary: the two direct runs swapped.

Example
-------
>>> m = saturation_margin(1.3, 20_000, 1)
>>> m["margin"] > 0
True
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from geosched.verify.evidence import Context, Evidence, declares_canary, plant
from geosched.verify.poisson_model import PROJECT, ClassWorkload
from geosched.verify.poisson_stationary import late_vs_early_z

__all__ = ["BRACKET", "STABLE_SIDE", "UNSTABLE_SIDE", "saturation_margin", "direct_run", "boundary_problems",
           "measure_boundary", "BOUNDARY_METHODS"]

BRACKET = (1.64, 1.70)  # the saturation margins' signs change between these loads (strict SVF, PROJECT)
STABLE_SIDE, UNSTABLE_SIDE = 1.5, 1.8
BLOCKS = 20
Z_LIMIT = 4.0


def saturation_margin(rho: float, steps: int, seed: int, workload: ClassWorkload = PROJECT,
                      policy: str = "svf") -> dict[str, Any]:
    """The lowest-priority class backlogged, the others Poisson at load ``rho``: its throughput minus its rate."""
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    keys = workload.keys(policy)
    last = int(np.argmax(keys))
    others = [k for k in range(len(workload.types)) if k != last]
    pi = np.array(workload.probs)
    rate = workload.rate(rho)
    rng = np.random.default_rng(seed)
    arrivals = np.repeat(np.arange(steps), rng.poisson(rate * pi[others].sum(), size=steps))
    kinds = rng.choice(others, size=len(arrivals), p=pi[others] / pi[others].sum())
    backlog = int(steps * rate * pi[last] * 2) + 100  # twice what it could ever need at this rate
    requests = [Request(f"r{i}", int(a), *workload.types[k]) for i, (a, k) in enumerate(zip(arrivals, kinds))]
    requests += [Request(f"b{i}", 0, *workload.types[last]) for i in range(backlog)]
    result = simulate(Instance(workload.memory, requests), policy)
    starts = np.array([result.starts[f"b{i}"] for i in range(backlog)])
    window = np.array_split(np.arange(steps // 10, steps), BLOCKS)
    per_block = np.array([((starts >= b[0]) & (starts <= b[-1])).sum() / len(b) for b in window])
    theta = float(per_block.mean())
    return {"rho": rho, "steps": steps, "throughput": theta, "rate": rate * float(pi[last]),
            "margin": theta - rate * float(pi[last]), "se": float(per_block.std(ddof=1) / math.sqrt(BLOCKS)),
            "backlog_left": int((starts >= steps).sum())}


def direct_run(rho: float, n: int, seed: int, workload: ClassWorkload = PROJECT, policy: str = "svf") -> dict[str, Any]:
    """All classes Poisson at load ``rho``: the z of the late half's mean wait against the early half's."""
    from geosched.verify.poisson_model import simulate_classes

    run = simulate_classes(workload, workload.rate(rho), n, seed, (policy,))
    waits = run.waits(policy)[len(run.arrivals) // 10:].astype(float)
    means = np.array([b.mean() for b in np.array_split(waits, BLOCKS)])
    early, late = means[: BLOCKS // 2], means[BLOCKS // 2:]
    return {"rho": rho, "n": len(run.arrivals), "early": float(early.mean()), "late": float(late.mean()),
            "z": late_vs_early_z(early, late)}


def boundary_problems(measured: dict[str, Any]) -> list[str]:
    """The verdict: the bracket's margins significantly positive then negative (with backlog left), the stable
    side's run stationary and the unstable side's growing."""
    low, high = measured["saturation"]
    stable, unstable = measured["stable"], measured["unstable"]
    problems = []
    if not low["margin"] > Z_LIMIT * low["se"] or low["backlog_left"] == 0:
        problems.append(f"saturation at rho={low['rho']}: margin {low['margin']:+.4f} (se {low['se']:.4f}) is not "
                        "significantly positive: the boundary is not above it")
    if not high["margin"] < -Z_LIMIT * high["se"] or high["backlog_left"] == 0:
        problems.append(f"saturation at rho={high['rho']}: margin {high['margin']:+.4f} (se {high['se']:.4f}) is not "
                        "significantly negative: the boundary is not below it")
    if abs(stable["z"]) > Z_LIMIT:
        problems.append(f"rho={stable['rho']} (stable side): late vs early mean wait z = {stable['z']:+.1f}")
    if not unstable["z"] > Z_LIMIT:
        problems.append(f"rho={unstable['rho']} (unstable side): the waits do not grow (z = {unstable['z']:+.1f})")
    return problems


def measure_boundary(steps: int, n: int, seed: int) -> dict[str, Any]:
    """The saturation margins at :data:`BRACKET`, ``rho*`` interpolated, and the two direct runs."""
    saturation = [saturation_margin(rho, steps, seed + i) for i, rho in enumerate(BRACKET)]
    low, high = saturation
    boundary = low["rho"] + (high["rho"] - low["rho"]) * low["margin"] / (low["margin"] - high["margin"])
    return {"saturation": saturation, "boundary": boundary, "stable": direct_run(STABLE_SIDE, n, seed + 5),
            "unstable": direct_run(UNSTABLE_SIDE, n, seed + 6)}


@declares_canary("the stable and unstable sides' runs swapped must be refuted")
def _boundary(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:poisson-boundary``: the stability boundary of the project's workload (module docstring)."""
    started = time.perf_counter()
    measured, _ = ctx.cached("poisson:boundary", lambda: measure_boundary(
        ctx.pick(30_000, 60_000, 200_000), ctx.pick(40_000, 80_000, 300_000), ctx.seed + 67))
    problems = boundary_problems(measured)
    swapped = {**measured, "stable": measured["unstable"], "unstable": measured["stable"]}
    canary = plant("the two direct runs swapped", boundary_problems, swapped)
    low, high = measured["saturation"]
    text = (f"strict SVF on the project's workload: the largest class's saturation margin {low['margin']:+.4f} at "
            f"rho={low['rho']}, {high['margin']:+.4f} at rho={high['rho']}: boundary rho* = {measured['boundary']:.3f} "
            f"(the drift condition gives rho < {1 + 1 / PROJECT.drain:.3f}); rho={STABLE_SIDE}: stationary (z = "
            f"{measured['stable']['z']:+.1f}), rho={UNSTABLE_SIDE}: waits grow (z = {measured['unstable']['z']:+.1f})")
    status = "refuted" if problems else "consistent"
    samples = measured["stable"]["n"] + measured["unstable"]["n"]
    return Evidence("monte-carlo:poisson-boundary", "statistical", status, "; ".join([*problems, text]),
                    samples=samples, wall_time=time.perf_counter() - started, data=measured, canary=canary,
                    discriminating=canary.refuted)


BOUNDARY_METHODS = {"monte-carlo:poisson-boundary": _boundary}
