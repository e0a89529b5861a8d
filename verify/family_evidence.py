"""Ledger methods for the families with closed forms (:mod:`geosched.theory.sjf_families`,
:mod:`~geosched.theory.fcfs_families`, :mod:`~geosched.theory.greedy_arrivals`,
:mod:`~geosched.theory.svf_alternating`, :mod:`~geosched.theory.svf_fillers`): simulated members against their
sympy closed forms.

Each method of :data:`FAMILY_METHODS` (merged into the ledger's methods) builds members at the sizes its mode
pins, and judges each member with one predicate, :func:`member_problems`:

* **the member simulated is the family stated**: the instance the theory module builds equals the one its
  statement writes from the same parameters (:data:`STATED`: the memory, every request in order, and the row's
  ``alpha``, transcribed from the derivation's family definition and the Coq theorems' ``let``s, never from the
  module's builder);
* **both TELs are the closed forms**: the policy (or policies) run by the reference simulator and the witness
  schedule, each checked by the independent checker (an infeasible schedule has no TEL), equal
  ``module.closed_form_tels``.

The same predicate judges, in the same run, the canary: on the first member, the closed form + 1, the witness
with its last start one step earlier, and the instance with one prompt one token shorter must each be refuted
(else the evidence is ``vacuous``: it could not have failed). The members covered (and the distinct values of
each parameter) are pinned per mode (:data:`FAMILY_COVERAGE`): fewer refutes the evidence. They cover the
derivations' trace steps, bounded by the sizes they ran.

Example
-------
>>> from geosched.verify.evidence import Context
>>> e = FAMILY_METHODS["simulation:fcfs-families"](None, Context("quick", None, 0, ()))
>>> e.status, e.canary.refuted, e.coverage.covered["members"]
('checked', True, 16)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from geosched.verify.evidence import Canary, Context, Coverage, Evidence, declares_canary, plant, plant_all

__all__ = ["FAMILY_METHODS", "FAMILY_COVERAGE", "STATED", "family_rows", "member_problems", "simulated_tels",
           "family_canary", "tel_problems", "tel_canary"]

def _sjf_long_blockers(k: int, t: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``K = k^2``, ``M = 2 ceil(K (T + 1)/2)``, ``P = M/2``; ``2k`` blockers ``(P - T, T)``, then ``K`` smalls
    ``(0, T + 1)``; bursts, ``alpha = 1/2``."""
    memory = 2 * math.ceil(k * k * (t + 1) / 2)
    return memory, [(0, memory // 2 - t, t)] * (2 * k) + [(0, 0, t + 1)] * (k * k), Fraction(1, 2)


def _fcfs_convoy(k: int, t: int, lag: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``M = 4T``; two long ``(T, T)`` at 0, then ``2k`` short ``(2T - 1, 1)`` at ``l``; ``alpha = 1/2``."""
    return 4 * t, [(0, t, t)] * 2 + [(lag, 2 * t - 1, 1)] * (2 * k), Fraction(1, 2)


def _svf_alternating(m: int, c: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``a = c(c - 1)/2``, ``M = c^2 (c + 1)/2``, ``b = ac + c(c + 1)/2 - 1``; ``(a, c)`` and ``(b, 1)``
    alternating, ``cm`` of each; ``alpha = (c^2 + 1)/(c(c + 1))`` (``svf_alternating_starts``)."""
    a = c * (c - 1) // 2
    b = a * c + c * (c + 1) // 2 - 1
    return c * c * (c + 1) // 2, [(0, a, c), (0, b, 1)] * (c * m), Fraction(c * c + 1, c * (c + 1))


def _svf_fillers(m: int, h: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``q = 6h + 4``, ``p = 2q - 1``, ``f = 2h + 1``, ``M = qp``: ``qm`` triangles ``(0, p)`` then ``f`` fillers
    ``((3h + 2) p - 3, 3)`` (``svf_fillers_starts``); ``alpha = 1/2`` exactly."""
    q = 6 * h + 4
    p, f = 2 * q - 1, 2 * h + 1
    return q * p, [(0, 0, p)] * (q * m) + [(0, (3 * h + 2) * p - 3, 3)] * f, Fraction(1, 2)


def _svf_triangles(m: int, r: int, q: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``(r + 1) m`` triangles ``(0, (2r + 1) q)``, ``M = q (2r + 1)(r + 1)``; ``alpha = 1/(r + 1)``."""
    return q * (2 * r + 1) * (r + 1), [(0, 0, (2 * r + 1) * q)] * ((r + 1) * m), Fraction(1, r + 1)


def _kong_sjf_family(m: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``M = 2m^2``; ``m`` requests ``(m^2, 1)`` then ``m^2`` requests ``(0, 2)``; ``alpha = (m^2 + 1)/(2m^2)``."""
    return 2 * m * m, [(0, m * m, 1)] * m + [(0, 0, 2)] * (m * m), Fraction(m * m + 1, 2 * m * m)


def _svf_distinct(m: int, h: int) -> tuple[int, list[tuple[int, int, int]], Fraction]:
    """``c = 2h + 1``, ``n = cm``, ``K = cn``, ``a = (c^2 + 3)/2``, ``b = ac + (c^2 - 1)/2``, ``M = cK(a + c) + c(n -
    1)``; ``(Ka + j, Kc)`` and ``(Kb + cj + c, K)`` alternating for ``j < n``; ``alpha = (K(b + 1) + cn)/M``
    (issue 43: volumes pairwise distinct)."""
    c = 2 * h + 1
    n = c * m
    big_k = c * n
    a, b = (c * c + 3) // 2, (c * c + 3) // 2 * c + (c * c - 1) // 2
    memory = c * big_k * (a + c) + c * (n - 1)
    requests = [r for j in range(n) for r in ((0, big_k * a + j, big_k * c), (0, big_k * b + c * j + c, big_k))]
    return memory, requests, Fraction(big_k * (b + 1) + c * n, memory)


# each family as its statement writes it, from the member's parameters: (memory, requests, alpha)
STATED: dict[str, Callable[..., tuple[int, list[tuple[int, int, int]], Fraction]]] = {
    "sjf_families": _sjf_long_blockers, "fcfs_families": _fcfs_convoy,
    "greedy_arrivals": lambda k, t: _fcfs_convoy(k, t, 1), "svf_alternating": _svf_alternating,
    "svf_fillers": _svf_fillers, "svf_distinct": _svf_distinct, "svf_lower_bound": _svf_triangles,
    "kong_sjf_unbounded": _kong_sjf_family,
}


def simulated_tels(instance: Any, policies: tuple[str, ...], witness: dict[str, int] | None) -> dict[str, int | None]:
    """Each policy's TEL (reference simulator) and the witness's (unless None), each as the checker reports it
    (None when the checker finds the schedule infeasible)."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate

    got: dict[str, int | None] = {}
    for policy in policies:
        report = check_schedule(instance, simulate(instance, policy).starts)
        got[policy] = report.metrics.tel if report.feasible else None
    if witness is not None:
        report = check_schedule(instance, witness)
        got["witness"] = report.metrics.tel if report.feasible else None
    return got


def tel_problems(got: dict[str, int | None], want: dict[str, int]) -> list[str]:
    """The simulated and checked TELs (``got``) against the closed forms (``want``), key by key."""
    mismatched = {key: (got.get(key), value) for key, value in want.items() if got.get(key) != value}
    return ["simulated/checked != closed form: " + ", ".join(f"{key} {g} vs {w}" for key, (g, w) in
                                                             mismatched.items())] if mismatched else []


def tel_canary(instance: Any, where: str, got: dict[str, int | None], want: dict[str, int],
               witness: dict[str, int] | None) -> Canary:
    """Judged by :func:`tel_problems`: the first closed form + 1, and (with a witness) the witness's last start one
    step earlier, checked again by the checker."""
    first = next(iter(want))
    plants = [plant(f"closed form of {first} + 1 at {where}", lambda w: tel_problems(got, w),
                    {**want, first: want[first] + 1})]
    if witness is not None:
        last = max(witness, key=lambda rid: (witness[rid], rid))
        earlier = simulated_tels(instance, (), {**witness, last: witness[last] - 1})["witness"]
        plants.append(plant(f"witness start of {last} - 1 at {where}", lambda g: tel_problems(g, want),
                            {**got, "witness": earlier}))
    return plant_all(plants)


def member_problems(instance: Any, stated: tuple[int, list[tuple[int, int, int]], Fraction],
                    got: dict[str, int | None], want: dict[str, int]) -> list[str]:
    """The one verdict of a member: the instance is the stated one (memory, requests, alpha), and the simulated
    and checked TELs equal the closed forms."""
    memory, requests, alpha = stated
    problems = []
    built = [(r.arrival, r.prompt, r.output) for r in instance.requests]
    if instance.memory != memory or built != requests:
        problems.append(f"the member built (M = {instance.memory}, {len(built)} requests) is not the family stated "
                        f"(M = {memory}, {len(requests)} requests; first difference at request "
                        f"{next((k for k, (x, y) in enumerate(zip(built, requests)) if x != y), len(requests))})")
    elif instance.alpha != alpha:
        problems.append(f"alpha = {instance.alpha}, the row states {alpha}")
    return problems + tel_problems(got, want)


def _member(module: Any, build: str, policies: tuple[str, ...], member: tuple[int, ...],
            tel_key: str | None) -> tuple[Any, Any, dict[str, int], dict[str, int], dict[str, int | None]]:
    instance = getattr(module, build)(*member)
    closed = module.closed_form_tels(*member)
    want = {policy: int(closed[tel_key or policy]) for policy in policies} | {"witness": int(closed["witness"])}
    witness = module.witness_starts(*member)
    return instance, STATED[module.__name__.rsplit(".", 1)[1]](*member), want, witness, \
        simulated_tels(instance, policies, witness)


def family_rows(module: Any, build: str, policies: tuple[str, ...], members: list[tuple[int, ...]],
                tel_key: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Judge each member of ``module``'s family (``getattr(module, build)(*member)``) by :func:`member_problems`;
    ``module.closed_form_tels(*member)`` keys a policy by its name, or by ``tel_key`` when one closed form covers
    them all. Returns the rows and the first problem."""
    rows = []
    for member in members:
        instance, stated, want, _, got = _member(module, build, policies, member, tel_key)
        rows.append({"member": list(member), "n": instance.n, "memory": instance.memory, "alpha": str(stated[2]),
                     "simulated": got, "closed_form": want})
        problems = member_problems(instance, stated, got, want)
        if problems:
            return rows, f"member {member}: {'; '.join(problems)}"
    return rows, None


def family_canary(module: Any, build: str, policies: tuple[str, ...], member: tuple[int, ...],
                  tel_key: str | None) -> Canary:
    """Three defects planted in ``member``, each judged by :func:`member_problems`: the closed form + 1, the witness's
    last start one step earlier (checked again by the checker), and one request's prompt one token shorter."""
    from geosched.reference_impl.model import Instance

    instance, stated, want, witness, got = _member(module, build, policies, member, tel_key)
    first = policies[0]
    last = max(witness, key=lambda rid: (witness[rid], rid))
    earlier = simulated_tels(instance, (), {**witness, last: witness[last] - 1})["witness"]
    longest = max(range(instance.n), key=lambda j: (instance.requests[j].prompt, -j))
    shorter = list(instance.requests)
    shorter[longest] = replace(shorter[longest], prompt=shorter[longest].prompt - 1)
    planted = Instance(instance.memory, shorter)
    return plant_all([
        plant(f"closed form of {first} + 1 at {member}", lambda w: member_problems(instance, stated, got, w),
              {**want, first: want[first] + 1}),
        plant(f"witness start of {last} - 1 at {member}", lambda g: member_problems(instance, stated, g, want),
              {**got, "witness": earlier}),
        plant(f"prompt of request {longest} - 1 at {member}", lambda i: member_problems(i, stated, got, want),
              planted)])


# the members each mode runs, pinned: how many, and how many distinct values of each parameter (fewer is a coverage
# loss: the evidence is refuted; tests/test_method_canaries.py recounts them from the families' definitions)
FAMILY_COVERAGE: dict[str, dict[str, dict[str, int]]] = {
    "simulation:sjf-families": {"quick": {"members": 6, "k": 2, "T": 3}, "default": {"members": 12, "k": 4, "T": 3},
                                "thorough": {"members": 18, "k": 6, "T": 3}},
    "simulation:fcfs-families": {"quick": {"members": 16, "k": 3, "T": 4, "lag": 2},
                                 "default": {"members": 28, "k": 5, "T": 6, "lag": 2},
                                 "thorough": {"members": 40, "k": 7, "T": 8, "lag": 2}},
    "simulation:greedy-arrivals": {"quick": {"members": 8, "k": 3, "T": 4}, "default": {"members": 14, "k": 5, "T": 6},
                                   "thorough": {"members": 20, "k": 7, "T": 8}},
    "simulation:svf-alternating": {"quick": {"members": 9, "m": 3, "c": 3}, "default": {"members": 20, "m": 4, "c": 5},
                                   "thorough": {"members": 36, "m": 6, "c": 6}},
    "simulation:svf-fillers": {"quick": {"members": 6, "m": 3, "h": 2}, "default": {"members": 16, "m": 4, "h": 4},
                               "thorough": {"members": 30, "m": 6, "h": 5}},
    "simulation:svf-distinct": {"quick": {"members": 3, "m": 2, "h": 2}, "default": {"members": 6, "m": 3, "h": 3},
                                "thorough": {"members": 8, "m": 4, "h": 3}},
}


def _method(label: str, module_name: str, build: str, policies: tuple[str, ...] | None,
            sizes: Callable[[Context], tuple[list[tuple[int, ...]], tuple[str, ...]]],
            tel_key: str | None = None) -> Callable:
    """The ledger method ``label``: :func:`family_rows` over the members ``sizes`` picks for the run's mode
    (``policies`` None: the module's own ``POLICIES``), with its canary and its coverage."""

    def method(claim: Any, ctx: Context) -> Evidence:
        import importlib

        t0 = time.perf_counter()
        module = importlib.import_module(f"geosched.theory.{module_name}")
        policies_run = policies or module.POLICIES
        members, names = sizes(ctx)
        rows, problem = family_rows(module, build, policies_run, members, tel_key)
        if problem:
            return Evidence(label, "bounded", "refuted", problem, implementation=True,
                            counterexample=ctx.write(f"family_{module.CLAIM.id}.json", rows[-1]),
                            wall_time=time.perf_counter() - t0)
        covered = {"members": len(rows)} | {name: len({r["member"][k] for r in rows}) for k, name in enumerate(names)}
        values = {name: sorted({r["member"][k] for r in rows}) for k, name in enumerate(names)}
        bound = ", ".join(f"{name} in {v}" for name, v in values.items())
        ratios = [r["simulated"][policies_run[0]] / r["simulated"]["witness"] for r in rows]
        simulated = "simulation" if len(policies_run) == 1 else f"simulation ({', '.join(policies_run)})"
        canary = family_canary(module, build, policies_run, tuple(members[0]), tel_key)
        return Evidence(label, "bounded", "checked",
                        f"{module.CLAIM.id}: at {len(rows)} members ({bound}) the member built is the family stated "
                        f"(M, every request, alpha = {', '.join(sorted({r['alpha'] for r in rows}))}) and "
                        f"{simulated} and checker == closed form; certified ratios "
                        + ", ".join(f"{x:.3f}" for x in ratios),
                        bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                        data={"rows": rows}, covers={label: ("checked", bound)}, canary=canary,
                        coverage=Coverage(covered, FAMILY_COVERAGE[label][ctx.mode]))

    method.__name__ = "_" + label.split(":")[1].replace("-", "_")
    return declares_canary("closed form + 1, a witness start - 1, a prompt - 1 (one member)")(method)


def _sjf_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    ks = ctx.pick((2, 3), (2, 3, 4, 6), (2, 3, 4, 6, 8, 12))
    return [(size, length) for size in ks for length in (1, 2, 5)], ("k", "T")


def _fcfs_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    members = sorted({(size, length, lag) for size in ks for length in (1, 3, size * size) for lag in (0, 1)})
    return members, ("k", "T", "lag")


def _greedy_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    ks = ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 16, 32))
    return sorted({(m, length) for m in ks for length in (1, 3, m * m)}), ("k", "T")


def _alternating_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    widths = ctx.pick((2, 3, 5), (2, 3, 5, 8, 20), (2, 3, 5, 8, 20, 22))
    return [(size, width) for size in ms for width in widths], ("m", "c")


def _fillers_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    ms = ctx.pick((1, 2, 3), (1, 2, 3, 5), (1, 2, 3, 5, 8, 13))
    halves = ctx.pick((1, 2), (1, 2, 3, 5), (1, 2, 3, 5, 8))
    return [(size, half) for size in ms for half in halves], ("m", "h")


def _distinct_sizes(ctx: Context) -> tuple[list[tuple[int, ...]], tuple[str, ...]]:
    return ctx.pick([(1, 1), (1, 2), (2, 1)], [(1, 1), (1, 2), (2, 1), (3, 1), (2, 2), (1, 3)],
                    [(1, 1), (1, 2), (2, 1), (3, 1), (2, 2), (1, 3), (5, 2), (3, 3)]), ("m", "h")


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
    # issue 43: the alternating shape with pairwise distinct volumes
    "simulation:svf-distinct": _method("simulation:svf-distinct", "svf_distinct", "distinct", ("svf",),
                                       _distinct_sizes),
}
