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
>>> r.policy_tel, r.witness_tel, r.match
(57, 38, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulator import simulate
from geosched.results import Result

__all__ = ["Family", "FAMILIES", "FamilyEvaluation", "MAX_REQUESTS", "evaluate_family", "sjf_blocking"]

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
    requests: Callable[[int], int] = lambda size: 0  # number of requests of member ``size``

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
        requests=lambda size: 2 * size + size * size,
    ),
}


MAX_REQUESTS = 200_000  # a member larger than this is refused (simulation and checking grow with n)


@dataclass(frozen=True)
class FamilyEvaluation(Result):
    """One member simulated and checked against the closed forms.

    ``status`` is ``"matches"`` when both schedules are feasible for the checker and both TELs
    equal the closed forms at this size, else ``"mismatch"``.
    """

    STATUSES = ("matches", "mismatch")
    SUCCESS = ("matches",)

    status: str
    message: str
    wall_time: float
    family: str
    size: int
    policy: str
    n: int
    memory: int
    alpha: Fraction
    policy_tel: int  # simulated, TEL from the checker
    policy_tel_formula: str
    policy_tel_closed_form_value: int
    witness_tel: int | None  # None when the witness schedule is infeasible
    witness_feasible: bool
    witness_tel_formula: str
    witness_tel_closed_form_value: int
    certified_ratio: Fraction | None  # policy_tel / witness_tel, exact
    ratio_formula: str
    limit: str  # the ratio's limit as k -> infinity (sympy)

    @property
    def match(self) -> bool:
        return self.status == "matches"

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["alpha"] = float(self.alpha)
        data["certified_ratio"] = None if self.certified_ratio is None else float(self.certified_ratio)
        data["certified_ratio_exact"] = None if self.certified_ratio is None else str(self.certified_ratio)
        data["match"] = self.match
        return data


def evaluate_family(name: str, size: int) -> FamilyEvaluation:
    """Build member ``size``, simulate, check, and compare with the closed forms.

    Raises
    ------
    UnknownNameError
        For an unknown family.
    ValidationError
        For a size below the family's minimum or one whose member exceeds :data:`MAX_REQUESTS`.

    Examples
    --------
    >>> evaluate_family("sjf-blocking", 3).status
    'matches'
    """
    started = time.perf_counter()
    try:
        fam = FAMILIES[name]
    except KeyError:
        raise UnknownNameError("family", name, list(FAMILIES)) from None
    if isinstance(size, bool) or not isinstance(size, int) or size < fam.min_size:
        raise ValidationError("--size", size, f"must be an integer >= {fam.min_size}")
    if fam.requests(size) > MAX_REQUESTS:
        raise ValidationError("--size", size, f"gives {fam.requests(size)} requests; at most {MAX_REQUESTS} are "
                              "simulated (use the closed forms for larger sizes)")
    instance, witness = fam.build(size)
    policy_report = check_schedule(instance, simulate(instance, fam.policy).starts)
    witness_report = check_schedule(instance, witness)
    policy_tel = policy_report.metrics.tel
    witness_tel = witness_report.metrics.tel if witness_report.feasible else None
    want_policy = int(fam.policy_tel.subs(k, size))
    want_witness = int(fam.witness_tel.subs(k, size))
    match = policy_report.feasible and policy_tel == want_policy and witness_tel == want_witness
    ratio = Fraction(policy_tel, witness_tel) if witness_tel else None
    message = (f"{name} k={size}: TEL({fam.policy}) {policy_tel} (closed form {want_policy}), witness TEL "
               f"{witness_tel} (closed form {want_witness})")
    return FamilyEvaluation("matches" if match else "mismatch", message, time.perf_counter() - started, name, size,
                            fam.policy, instance.n, instance.memory, instance.alpha, policy_tel,
                            str(sp.expand(fam.policy_tel)), want_policy, witness_tel, witness_report.feasible,
                            str(sp.expand(fam.witness_tel)), want_witness, ratio, str(fam.ratio), str(fam.limit))
