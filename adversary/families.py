"""Parametrised bad families with closed-form TELs, checked by simulation.

``sjf-blocking`` (size ``k >= 2``, so that the smalls' peak 2 fits under ``M/2``): the pattern
the SJF hunts find, generalised. ``K = k^2``,
``M = 2K``; ``2k`` *blockers* ``(s, o) = (K - 1, 1)`` (peak ``K = M/2``, volume ``K``) and ``K``
*small* requests ``(0, 2)`` (volume 3); burst arrivals, ``alpha = 1/2`` (the regime of
Kong et al., Thm. 3.2).

* SJF (MC-SF; Jaillet et al., arXiv 2502.07115) serves the blockers first (``o = 1 < 2``), two per
  step (each pair fills ``M``): pair ``p = 1..k`` runs in step ``p``, so the blockers' TEL is
  ``2 (1 + ... + k) = k(k + 1)``. The smalls fail the forward-looking check while the last pair
  runs (one more token would exceed ``M``) and all start at ``k`` (``K`` smalls peak at ``2K = M``):
  ``K (k + 2)``. Hence ``TEL(SJF) = k(k + 1) + K(k + 2)``.
* Witness ``S`` (it is also SVF's schedule, volumes ``3 < K``): the smalls and one blocker start
  at 0 (step 1 holds ``K + K = M``); the smalls fill ``M`` at step 2; the other ``2k - 1``
  blockers run in pairs from step 2 (``k - 1`` pairs ending at ``3..k + 1``, the last single
  ending at ``k + 2``): ``TEL(S) = 2K + 1 + 2 sum_{q=1}^{k-1} (q + 2) + (k + 2) = 2K + k^2 + 4k - 1``.

So ``TEL(SJF)/OPT >= (k^3 + 3k^2 + k) / (3k^2 + 4k - 1) -> infinity`` (about ``k/3``): SJF's
competitive ratio is unbounded even under ``alpha = 1/2`` (Kong et al., the claim
``kong.sjf_unbounded``), while SVF is optimal-or-better-than-S on every member.

Every closed form is a sympy expression; :func:`evaluate_family` builds the member, simulates
the policy with the reference simulator, checks both schedules with the checker and compares.

Example
-------
>>> r = evaluate_family("sjf-blocking", 3)
>>> r["policy_tel"], r["witness_tel"], r["match"]
(57, 38, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy as sp

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.model import Instance, Request

__all__ = ["Family", "FAMILIES", "evaluate_family", "sjf_blocking"]

k = sp.Symbol("k", positive=True, integer=True)


@dataclass(frozen=True)
class Family:
    """A family member generator with closed forms in ``k``."""

    name: str
    policy: str  # the policy it hurts
    build: Callable[[int], tuple[Instance, dict[str, int]]]  # k -> (instance, witness starts)
    policy_tel: sp.Expr  # closed form of TEL(policy)
    witness_tel: sp.Expr  # closed form of TEL(S)
    min_size: int = 1
    description: str = ""

    @property
    def ratio(self) -> sp.Expr:
        return sp.simplify(self.policy_tel / self.witness_tel)

    @property
    def limit(self) -> Any:
        return sp.limit(self.ratio, k, sp.oo)


def _ids(prefix: str, count: int, width: int) -> list[str]:
    return [f"{prefix}{j:0{width}d}" for j in range(count)]


def sjf_blocking(size: int) -> tuple[Instance, dict[str, int]]:
    """The member of size ``k`` and its witness schedule (see the module docstring)."""
    big_k = size * size
    width = len(str(max(2 * size, big_k)))
    # ids "a.." sort before "b..": the tie order is irrelevant here (keys differ), kept readable
    blockers = _ids("a", 2 * size, width)
    smalls = _ids("b", big_k, width)
    requests = [Request(i, 0, big_k - 1, 1) for i in blockers] + [Request(i, 0, 0, 2) for i in smalls]
    witness = {i: 0 for i in smalls}
    witness[blockers[0]] = 0
    for q, rid in enumerate(blockers[1:]):
        witness[rid] = 2 + q // 2
    return Instance(2 * big_k, requests), witness


FAMILIES: dict[str, Family] = {
    "sjf-blocking": Family(
        name="sjf-blocking",
        policy="sjf",
        build=sjf_blocking,
        policy_tel=k * (k + 1) + k**2 * (k + 2),
        witness_tel=2 * k**2 + k**2 + 4 * k - 1,
        min_size=2,
        description="2k blockers (K-1, 1) and K = k^2 smalls (0, 2), M = 2K, alpha = 1/2",
    ),
}


def evaluate_family(name: str, size: int) -> dict[str, Any]:
    """Build member ``size``, simulate, check, and compare with the closed forms."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate

    try:
        fam = FAMILIES[name]
    except KeyError:
        raise UnknownNameError("family", name, list(FAMILIES)) from None
    if isinstance(size, bool) or not isinstance(size, int) or size < fam.min_size:
        raise ValidationError("--size", size, f"must be an integer >= {fam.min_size}")
    instance, witness = fam.build(size)
    sim = simulate(instance, fam.policy)
    policy_report = check_schedule(instance, sim.starts)
    witness_report = check_schedule(instance, witness)
    policy_tel = policy_report.metrics.tel
    witness_tel = witness_report.metrics.tel
    want_policy = int(fam.policy_tel.subs(k, size))
    want_witness = int(fam.witness_tel.subs(k, size))
    match = (policy_report.feasible and witness_report.feasible and policy_tel == want_policy
             and witness_tel == want_witness)
    return {
        "family": name,
        "size": size,
        "policy": fam.policy,
        "n": instance.n,
        "memory": instance.memory,
        "alpha": float(instance.alpha),
        "policy_tel": policy_tel,
        "policy_tel_formula": str(sp.expand(fam.policy_tel)),
        "policy_tel_closed_form_value": want_policy,
        "witness_tel": witness_tel,
        "witness_feasible": witness_report.feasible,
        "witness_tel_formula": str(sp.expand(fam.witness_tel)),
        "witness_tel_closed_form_value": want_witness,
        "certified_ratio": policy_tel / witness_tel,
        "ratio_formula": str(fam.ratio),
        "limit": str(fam.limit),
        "match": bool(match),
    }
