"""``monte-carlo:capacity-bound``: the capacity lower bound on OPT against the exact optimum on small Poisson workloads.

``svf.poisson`` divides by ``E[OPT]``; per request it is at least ``E[o]``, and the capacity relaxation
(:func:`~geosched.reference_impl.opt.bounds.capacity_bound`: at every instant, the larger of the number
of requests still within their ``o`` steps and the number SRPT leaves in the memory-time relaxation)
is a larger denominator where memory binds. It rests on a scheduling theorem (SRPT minimises the
number in the system at every instant, Schrage 1968) and on the relaxation's argument; this check
tests it where it can fail: on small Poisson workloads of the paper's model (``M = 12``, ``alpha =
1/2``, prompts 0..3) at the statement's loads and at three times the rate (where the memory
relaxation binds), with the exact optimum of each (:func:`~geosched.reference_impl.opt.brute_force_opt`).

The verdict (:func:`capacity_problems`) refutes at any workload whose bound exceeds its OPT. Its canary:
the same bound with the two counts summed instead of maxed (a plausible slip) must exceed OPT
somewhere. Reported beside it: how often the bound beats the best of the package's cheap bounds, and
how often it equals OPT.

Example
-------
>>> rows = capacity_rows(n=6, replications=4, seed=1)
>>> capacity_problems(rows), len(rows)
([], 24)
"""

from __future__ import annotations

import time
from typing import Any

from geosched.verify.evidence import Context, Evidence, declares_canary, plant

__all__ = ["GRID", "capacity_rows", "capacity_problems", "CAPACITY_METHODS"]

GRID = ((0.2, 0.9), (0.35, 0.99), (0.5, 0.99))  # (mu, rho_p) of the paper's model
LOAD_FACTORS = (1.0, 3.0)  # the statement's rate, and three times it (memory binds)


def capacity_rows(n: int, replications: int, seed: int) -> list[dict[str, Any]]:
    """Per workload: its label, exact OPT, the capacity bound, the best cheap bound, and the planted sum bound."""
    from geosched.reference_impl.opt import brute_force_opt
    from geosched.reference_impl.opt.bounds import best_cheap_bound, capacity_bound, srpt_bound, sum_outputs_bound
    from geosched.reference_impl.workloads import generate
    from geosched.verify.montecarlo_audit import statement_rate

    rows = []
    for p, ((mu, rho), factor) in enumerate((g, f) for g in GRID for f in LOAD_FACTORS):
        rate = statement_rate(mu, rho, 12, 0.5, 0, 3) * factor
        for k in range(replications):
            instance = generate("poisson", n=n, mu=mu, rate=rate, memory=12, alpha_cap=0.5, s_min=0, s_max=3,
                                seed=seed + 1000 * p + k)
            exact = brute_force_opt(instance, node_limit=500_000)
            if exact.status != "optimal":
                continue
            rows.append({"label": f"mu={mu}, rho_p={rho}, rate x{factor}, seed {seed + 1000 * p + k}",
                         "opt": int(exact.tel), "capacity": capacity_bound(instance).value,
                         "cheap": best_cheap_bound(instance).value,
                         "summed": sum_outputs_bound(instance).value + srpt_bound(instance).value})
    return rows


def capacity_problems(rows: list[dict[str, Any]], bound: str = "capacity") -> list[str]:
    """The verdict: every workload whose ``bound`` exceeds its exact OPT."""
    return [f"{r['label']}: {bound} bound {r[bound]} > OPT {r['opt']}" for r in rows if r[bound] > r["opt"]]


@declares_canary("the two counts summed instead of maxed must exceed OPT somewhere")
def _capacity(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:capacity-bound``: the capacity bound <= exact OPT on small Poisson workloads."""
    started = time.perf_counter()
    rows = capacity_rows(ctx.pick(8, 9, 10), ctx.pick(10, 30, 100), ctx.seed + 71)
    problems = capacity_problems(rows)
    canary = plant("the output and SRPT counts summed, not maxed", lambda rs: capacity_problems(rs, "summed"), rows)
    beats = sum(r["capacity"] > r["cheap"] for r in rows)
    tight = sum(r["capacity"] == r["opt"] for r in rows)
    data = {"workloads": len(rows), "beats_cheap": beats, "tight": tight, "rows": rows[:40]}
    if problems:
        return Evidence("monte-carlo:capacity-bound", "supporting", "refuted", "capacity bound above OPT: "
                        + "; ".join(problems[:3]), samples=len(rows), wall_time=time.perf_counter() - started,
                        data=data, canary=canary, implementation=True)
    text = (f"capacity bound <= exact OPT on all {len(rows)} small Poisson workloads; above the best cheap bound on "
            f"{beats}, equal to OPT on {tight}")
    return Evidence("monte-carlo:capacity-bound", "supporting", "checked", text, samples=len(rows),
                    wall_time=time.perf_counter() - started, data=data, canary=canary, implementation=True)


CAPACITY_METHODS = {"monte-carlo:capacity-bound": _capacity}
