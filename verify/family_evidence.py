"""Ledger methods for the SJF and FCFS families of issue 25 (:mod:`geosched.theory.sjf_families`,
:mod:`geosched.theory.fcfs_families`): simulated members against their sympy closed forms.

``simulation:sjf-families``, ``simulation:fcfs-families`` and ``simulation:greedy-arrivals`` (SVF, SJF and FCFS on
:mod:`geosched.theory.greedy_arrivals`) (:data:`FAMILY_METHODS`, merged into
the ledger's methods) build members at several sizes, run the policy with the reference
simulator, check both the policy's and the witness schedule with the independent checker and
compare both TELs with the closed forms (an equality: any change to the trace fails). They cover
the derivations' trace steps, bounded by the sizes they ran.

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


def family_rows(module: Any, policy: str, members: list[tuple[int, ...]]) -> tuple[list[dict[str, Any]], str | None]:
    """Simulate ``policy`` on each member ``(k, T[, lag])`` of ``module``'s family; rows and the first mismatch."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate

    build = module.long_blockers if hasattr(module, "long_blockers") else module.convoy
    rows = []
    for member in members:
        instance = build(*member)
        want = module.closed_form_tels(*member)
        report = check_schedule(instance, simulate(instance, policy).starts)
        witness = check_schedule(instance, module.witness_starts(*member))
        got = {policy: report.metrics.tel if report.feasible else None,
               "witness": witness.metrics.tel if witness.feasible else None}
        rows.append({"member": list(member), "n": instance.n, "memory": instance.memory, "simulated": got,
                     "closed_form": want})
        if got != want:
            return rows, f"(k, T, ...) = {member}: simulated/checked {got} != closed form {want}"
    return rows, None


def _theory(policy: str) -> Any:
    from geosched.theory import fcfs_families, sjf_families

    return {"sjf": sjf_families, "fcfs": fcfs_families}[policy]


def _method(policy: str, sizes: Callable[[Context], tuple[list[tuple[int, ...]], str]]) -> Callable:
    label = f"simulation:{policy}-families"

    def method(claim: Any, ctx: Context) -> Evidence:
        t0 = time.perf_counter()
        module = _theory(policy)
        members, bound = sizes(ctx)
        rows, problem = family_rows(module, policy, members)
        if problem:
            return Evidence(label, "bounded", "refuted", problem, implementation=True,
                            counterexample=ctx.write(f"family_{module.CLAIM_ID}.json", rows[-1]),
                            wall_time=time.perf_counter() - t0)
        ratios = [r["simulated"][policy] / r["simulated"]["witness"] for r in rows]
        return Evidence(label, "bounded", "checked",
                        f"{module.CLAIM_ID}: simulation and checker == closed form at every member (an equality: any "
                        "change fails); certified ratios " + ", ".join(f"{x:.3f}" for x in ratios),
                        bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                        data={"rows": rows}, covers={label: ("checked", bound)})

    method.__name__ = f"_{policy}_families"
    return method


def _sjf_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ks = ctx.pick((2, 3), (2, 3, 4, 6), (2, 3, 4, 6, 8, 12))
    return [(size, length) for size in ks for length in (1, 2, 5)], f"k in {list(ks)}, T in [1, 2, 5]"


def _fcfs_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    members = sorted({(size, length, lag) for size in ks for length in (1, 3, size * size) for lag in (0, 1)})
    return members, f"k in {list(ks)}, T in [1, 3, k^2], lag in [0, 1]"


def _greedy_arrivals(claim: Any, ctx: Context) -> Evidence:
    """SVF, SJF and FCFS on ``greedy.arrivals``' members (the convoy at lag 1): each policy's schedule and the
    witness checked by the checker, both TELs equal to the closed forms."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate
    from geosched.theory import greedy_arrivals as family

    label = "simulation:greedy-arrivals"
    t0 = time.perf_counter()
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    rows = []
    for size, length in sorted({(m, length) for m in ks for length in (1, 3, m * m)}):
        instance, want = family.member(size, length), family.closed_form_tels(size, length)
        witness = check_schedule(instance, family.witness_starts(size, length))
        got = {"witness": witness.metrics.tel if witness.feasible else None}
        for policy in family.POLICIES:
            report = check_schedule(instance, simulate(instance, policy).starts)
            got[policy] = report.metrics.tel if report.feasible else None
        rows.append({"member": [size, length], "n": instance.n, "simulated": got, "closed_form": want})
        expected = {"witness": want["witness"], **{policy: want["greedy"] for policy in family.POLICIES}}
        if got != expected:
            return Evidence(label, "bounded", "refuted", f"(k, T) = ({size}, {length}): simulated/checked {got} != "
                            f"closed form {expected}", implementation=True, wall_time=time.perf_counter() - t0,
                            counterexample=ctx.write("family_greedy_arrivals.json", rows[-1]))
    bound = f"k in {list(ks)}, T in [1, 3, k^2]"
    ratios = [r["simulated"]["svf"] / r["simulated"]["witness"] for r in rows]
    return Evidence(label, "bounded", "checked",
                    f"{family.CLAIM_ID}: SVF, SJF and FCFS simulated and checked == closed form at every member (an "
                    "equality: any change fails); certified ratios " + ", ".join(f"{x:.3f}" for x in ratios),
                    bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                    data={"rows": rows}, covers={label: ("checked", bound)})


def _svf_family_method(label: str, module_name: str, build: str,
                       members: Callable[[Context], tuple[list[tuple[int, ...]], str]]) -> Callable:
    """An SVF family of issue 32 (a theory module with ``build(*member)``, ``witness_starts`` and
    ``closed_form_tels``): SVF simulated and both schedules checked against the closed forms."""

    def method(claim: Any, ctx: Context) -> Evidence:
        import importlib

        from geosched.reference_impl.checker import check_schedule
        from geosched.reference_impl.simulator import simulate

        t0 = time.perf_counter()
        module = importlib.import_module(f"geosched.theory.{module_name}")
        chosen, bound = members(ctx)
        rows = []
        for member in chosen:
            instance = getattr(module, build)(*member)
            report = check_schedule(instance, simulate(instance, "svf").starts)
            witness = check_schedule(instance, module.witness_starts(*member))
            got = {"svf": report.metrics.tel if report.feasible else None,
                   "witness": witness.metrics.tel if witness.feasible else None}
            want = module.closed_form_tels(*member)
            rows.append({"member": list(member), "n": instance.n, "memory": instance.memory, "simulated": got,
                         "closed_form": want})
            if got != want:
                return Evidence(label, "bounded", "refuted", f"member {member}: simulated/checked {got} != closed "
                                f"form {want}", implementation=True, wall_time=time.perf_counter() - t0,
                                counterexample=ctx.write(f"family_{module.CLAIM_ID}.json", rows[-1]))
        ratios = [r["simulated"]["svf"] / r["simulated"]["witness"] for r in rows]
        return Evidence(label, "bounded", "checked",
                        f"{module.CLAIM_ID}: simulation and checker == closed form at every member (an equality: any "
                        "change fails); certified ratios " + ", ".join(f"{x:.3f}" for x in ratios),
                        bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                        data={"rows": rows}, covers={label: ("checked", bound)})

    method.__name__ = "_" + label.split(":")[1].replace("-", "_")
    return method


def _alternating_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    widths = ctx.pick((2, 3, 5), (2, 3, 5, 8, 20), (2, 3, 5, 8, 20, 22))
    return [(size, width) for size in ms for width in widths], f"m in {list(ms)}, c in {list(widths)}"


def _fillers_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], str]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    halves = ctx.pick((1, 2), (1, 2, 3, 5), (1, 2, 3, 5, 8))
    return [(size, half) for size in ms for half in halves], f"m in {list(ms)}, h in {list(halves)}"


FAMILY_METHODS: dict[str, Callable[[Any, Context], Evidence]] = {
    "simulation:sjf-families": _method("sjf", _sjf_sizes),
    "simulation:fcfs-families": _method("fcfs", _fcfs_sizes),
    "simulation:greedy-arrivals": _greedy_arrivals,
    # issue 32: SVF families found from the hunts' shapes (theory modules of their own)
    "simulation:svf-alternating": _svf_family_method("simulation:svf-alternating", "svf_alternating", "alternating",
                                                     _alternating_sizes),
    "simulation:svf-fillers": _svf_family_method("simulation:svf-fillers", "svf_fillers", "fillers", _fillers_sizes),
}
