"""Ledger methods for the families with closed forms (:mod:`geosched.theory.sjf_families`,
:mod:`~geosched.theory.fcfs_families`, :mod:`~geosched.theory.greedy_arrivals`,
:mod:`~geosched.theory.svf_alternating`, :mod:`~geosched.theory.svf_fillers`): simulated members against their
sympy closed forms.

Each method of :data:`FAMILY_METHODS` (merged into the ledger's methods) builds members at several sizes, runs
the policy (or policies) with the reference simulator, checks both the policy's and the witness schedule with the
independent checker and compares both TELs with the closed forms (an equality: any change to the trace fails).
They cover the derivations' trace steps, bounded by the sizes they ran.

Example
-------
>>> from geosched.verify.evidence import Context
>>> FAMILY_METHODS["simulation:fcfs-families"](None, Context("quick", None, 0, ())).status
'checked'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from geosched.verify.evidence import Context, Evidence

__all__ = ["FAMILY_METHODS", "family_rows"]


def family_rows(module: Any, build: str, policies: tuple[str, ...], members: list[tuple[int, ...]],
                tel_key: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Simulate each of ``policies`` on each member of ``module``'s family (``getattr(module, build)(*member)``),
    check its schedule and the witness's with the checker, and compare the TELs with
    ``module.closed_form_tels(*member)``, whose key for a policy is the policy's name, or ``tel_key`` when one
    closed form covers them all. Returns the rows and the first mismatch."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate

    rows = []
    for member in members:
        instance = getattr(module, build)(*member)
        closed = module.closed_form_tels(*member)
        want = {policy: closed[tel_key or policy] for policy in policies} | {"witness": closed["witness"]}
        got = {}
        for policy in policies:
            report = check_schedule(instance, simulate(instance, policy).starts)
            got[policy] = report.metrics.tel if report.feasible else None
        witness = check_schedule(instance, module.witness_starts(*member))
        got["witness"] = witness.metrics.tel if witness.feasible else None
        rows.append({"member": list(member), "n": instance.n, "memory": instance.memory, "simulated": got,
                     "closed_form": want})
        if got != want:
            return rows, f"member {member}: simulated/checked {got} != closed form {want}"
    return rows, None


def _method(label: str, module_name: str, build: str, policies: tuple[str, ...] | None,
            sizes: Callable[[Context], tuple[list[tuple[int, ...]], str]], tel_key: str | None = None) -> Callable:
    """The ledger method ``label``: :func:`family_rows` over the members ``sizes`` picks for the run's mode
    (``policies`` None: the module's own ``POLICIES``)."""

    def method(claim: Any, ctx: Context) -> Evidence:
        import importlib

        t0 = time.perf_counter()
        module = importlib.import_module(f"geosched.theory.{module_name}")
        policies_run = policies or module.POLICIES
        members, bound = sizes(ctx)
        rows, problem = family_rows(module, build, policies_run, members, tel_key)
        if problem:
            return Evidence(label, "bounded", "refuted", problem, implementation=True,
                            counterexample=ctx.write(f"family_{module.CLAIM_ID}.json", rows[-1]),
                            wall_time=time.perf_counter() - t0)
        ratios = [r["simulated"][policies_run[0]] / r["simulated"]["witness"] for r in rows]
        simulated = "simulation" if len(policies_run) == 1 else f"simulation ({', '.join(policies_run)})"
        return Evidence(label, "bounded", "checked",
                        f"{module.CLAIM_ID}: {simulated} and checker == closed form at every member (an equality: "
                        "any change fails); certified ratios " + ", ".join(f"{x:.3f}" for x in ratios),
                        bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                        data={"rows": rows}, covers={label: ("checked", bound)})

    method.__name__ = "_" + label.split(":")[1].replace("-", "_")
    return method


def _sjf_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ks = ctx.pick((2, 3), (2, 3, 4, 6), (2, 3, 4, 6, 8, 12))
    return [(size, length) for size in ks for length in (1, 2, 5)], f"k in {list(ks)}, T in [1, 2, 5]"


def _fcfs_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    members = sorted({(size, length, lag) for size in ks for length in (1, 3, size * size) for lag in (0, 1)})
    return members, f"k in {list(ks)}, T in [1, 3, k^2], lag in [0, 1]"


def _greedy_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    return sorted({(m, length) for m in ks for length in (1, 3, m * m)}), f"k in {list(ks)}, T in [1, 3, k^2]"


def _alternating_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    widths = ctx.pick((2, 3, 5), (2, 3, 5, 8, 20), (2, 3, 5, 8, 20, 22))
    return [(size, width) for size in ms for width in widths], f"m in {list(ms)}, c in {list(widths)}"


def _fillers_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    halves = ctx.pick((1, 2), (1, 2, 3, 5), (1, 2, 3, 5, 8))
    return [(size, half) for size in ms for half in halves], f"m in {list(ms)}, h in {list(halves)}"


FAMILY_METHODS: dict[str, Callable[[Any, Context], Evidence]] = {
    "simulation:sjf-families": _method("simulation:sjf-families", "sjf_families", "long_blockers", ("sjf",),
                                       _sjf_sizes),
    "simulation:fcfs-families": _method("simulation:fcfs-families", "fcfs_families", "convoy", ("fcfs",),
                                        _fcfs_sizes),
    # one closed form for the common trace of the module's greedy policies (SVF, SJF, FCFS)
    "simulation:greedy-arrivals": _method("simulation:greedy-arrivals", "greedy_arrivals", "member", None,
                                          _greedy_sizes, tel_key="greedy"),
    # issue 32: SVF families found from the hunts' shapes (theory modules of their own)
    "simulation:svf-alternating": _method("simulation:svf-alternating", "svf_alternating", "alternating", ("svf",),
                                          _alternating_sizes),
    "simulation:svf-fillers": _method("simulation:svf-fillers", "svf_fillers", "fillers", ("svf",), _fillers_sizes),
}
