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

``svf-triangles`` (size ``m``, ``r``, ``q``; the same module): ``(r+1)m`` requests ``(0, (2r+1)q)``,
``M = q(2r+1)(r+1)``, ``alpha = 1/(r+1)``; SVF runs synchronised batches of ``r+1``, the witness
starts one request every ``q`` steps and fills ``M`` exactly; the limit is ``(2r+1)/(r+1)``
(5/3 at ``r = 2``), whose supremum 2 is the best SVF lower bound known here.

``svf1-blockers`` (size ``k >= 3``; 1-bit SVF with its default median threshold, Kong et al., Thm. 3.3
claims O(T)): ``2k + 3`` dummies ``(0, 1)`` make the median output 1, so ``theta = 1`` and every other
request is *long*, where the proxy volume orders by prompt alone. Two blockers ``(P - T, T)``
(``T = k^2``, ``P = 3T``, ``M = 2P``) run first and leave less than ``P`` free until they finish, so
``2k`` requests ``(P - 2, 2)`` wait ``T`` steps: ``TEL(svf1) = D + 2T + KT + K^2/2 + K`` with ``D = 2k + 3``,
``K = 2k``; the witness runs them first: ``D + K^2/2 + 4K + 2 + 2T``. The ratio
``(2k^3 + 4k^2 + 4k + 3)/(4k^2 + 10k + 5)`` grows like ``k/2 = sqrt(T)/2``: slope 1/2 in ``sqrt(T)``,
below the claimed ``O(T)`` (unequal prompts: outside the hypothesis E1 of our derivation of Thm. 3.3).

``svf1-proxy-range`` (size ``k >= 2``; 1-bit SVF with ``theta = 1 = floor(sqrt T)``, ``T = 2``,
``O_0 = 1``, ``O_1 = 2^20``): the ``sjf-blocking`` member. Its blockers ``(K - 1, 1)`` are short (key
``K``), its smalls ``(0, 2)`` long with the proxy key ``(O_1^2 + O_1)/2 > K``, so every blocker goes first,
as under SJF: the ratio ``(k^3 + 3k^2 + k)/(3k^2 + 4k - 1) ~ k/3`` grows without bound at ``T = 2``. It
satisfies E2 (exact class bits), E3 (``O_0 < O_1``) and the threshold of our Thm. 3.3 derivation; what
it breaks is the proxy range ``O_1 <= T`` of the Coq theorem for unequal prompts
(``verify/coq/OneBit.v``, ``thm33_onebit_T``), so 1-bit SVF is O(T) only with proxies in range.

``svf-pairs`` (size ``m >= 1``, width ``q >= 1``; ``svf-triangles`` with ``r = 1``;
:mod:`geosched.theory.svf_lower_bound`, the claim ``svf.lower_bound``): ``2m`` identical requests
``(0, 3q)``, ``M = 6q``, alpha = 1/2, the shape the structured search (:mod:`geosched.adversary.structured`)
first found for SVF. SVF runs synchronised pairs, ``TEL(SVF) = 3q m(m+1)``; the witness staggers starts by ``q`` (three
lifetimes overlap), ``TEL(S) = q(2m^2 + 5m)``; ratio ``3(m+1)/(2m+5) -> 3/2``.
:func:`best_svf_lower_bound` is the largest supremum of an SVF family's limit here, next to Thm. 3.2's 5.

Every closed form is a sympy expression; :func:`evaluate_family` builds the member, simulates
the policy with the reference simulator, checks both schedules with the checker and compares.

Example
-------
>>> r = evaluate_family("sjf-blocking", 3)
>>> r.policy_tel, r.witness_tel, r.match
(57, 38, True)
>>> r = evaluate_family("svf-pairs", 4, q=2)
>>> r.policy_tel, r.witness_tel, r.limit
(120, 104, '3/2')
>>> r = evaluate_family("svf-triangles", 60, r=2)
>>> r.certified_ratio >= 1.6, r.limit, r.alpha
(True, '5/3', Fraction(1, 3))
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy as sp

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulation import simulate
from geosched.results import Result
from geosched.theory import fcfs_families, sjf_families, svf_lower_bound
from geosched.theory import svf_alternating as alternating_theory
from geosched.theory import svf_distinct as distinct_theory
from geosched.theory import svf_fillers as fillers_theory

__all__ = ["Family", "FAMILIES", "FamilyEvaluation", "MAX_REQUESTS", "best_svf_lower_bound", "evaluate_family",
           "family_witness", "fcfs_convoy", "sjf_blocking", "sjf_long_blockers", "svf_pairs",
           "svf_alternating", "svf_distinct", "svf_fillers", "svf_triangles", "svf1_blockers", "svf1_proxy_range",
           "SVF1_PROXY_LONG"]

k = sp.Symbol("k", positive=True, integer=True)


@dataclass(frozen=True)
class Family:
    """A family member generator with closed forms in ``k`` (the size) and optional fixed
    parameters (``parameters``: name -> default; their sympy symbols in ``symbols``)."""

    name: str
    policy: str  # the policy it hurts
    build: Callable[..., tuple[Instance, dict[str, int]]]  # (k, **parameters) -> (instance, witness starts)
    policy_tel: sp.Expr  # closed form of TEL(policy)
    witness_tel: sp.Expr  # closed form of TEL(S)
    min_size: int = 1
    description: str = ""
    requests: Callable[..., int] = lambda size, **_: 0  # number of requests of member ``size``
    parameters: dict[str, int] = field(default_factory=dict)  # the other parameters and their defaults
    symbols: dict[str, sp.Symbol] = field(default_factory=dict)  # their symbols in the closed forms
    grows: tuple[str, ...] = ()  # parameters whose growth raises the limit: the supremum lets them -> infinity
    high_alpha: bool = False  # its members have alpha > 1/2: outside best_svf_lower_bound's alpha <= 1/2
    minimum: dict[str, int] = field(default_factory=dict)  # a parameter's least value when it is not 1

    @property
    def ratio(self) -> sp.Expr:
        return sp.simplify(self.policy_tel / self.witness_tel)

    @property
    def limit(self) -> Any:
        """The ratio's limit as the size ``k -> infinity`` (an expression in the other parameters)."""
        return sp.limit(self.ratio, k, sp.oo)

    @property
    def growth(self) -> Any:
        """``lim_{k -> infinity} ratio / k``: the slope of an unbounded family (0 for a bounded one)."""
        return sp.limit(self.ratio / k, k, sp.oo)

    @property
    def supremum(self) -> Any:
        """The limit's supremum over the family: the parameters in :attr:`grows` tend to infinity."""
        value = self.limit
        for name in self.grows:
            value = sp.limit(value, self.symbols[name], sp.oo)
        return value


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


SVF1_PROXY_LONG = 2**20  # O_1 of svf1-proxy-range: far above T = 2 (the Coq theorem needs O_1 <= T)


def svf1_proxy_range(size: int) -> tuple[Instance, dict[str, int]]:
    """The ``svf1-proxy-range`` member ``k = size``: ``sjf-blocking``'s instance and witness (the policy differs)."""
    return sjf_blocking(size)


def svf_pairs(size: int, q: int = 1) -> tuple[Instance, dict[str, int]]:
    """The ``svf-pairs`` member ``m = size`` and its staggered witness schedule."""
    return svf_lower_bound.svf_pairs(size, q), svf_lower_bound.witness_starts(size, q)


def svf_triangles(size: int, r: int = 2, q: int = 1) -> tuple[Instance, dict[str, int]]:
    """The ``svf-triangles`` member ``m = size`` and its schedule staggered by ``q``."""
    return svf_lower_bound.svf_triangles(size, r, q), svf_lower_bound.triangle_witness_starts(size, r, q)


def svf1_blockers(size: int) -> tuple[Instance, dict[str, int]]:
    """The ``svf1-blockers`` member ``k = size`` (``T = k^2``) and its witness schedule."""
    big_t, pairs = size * size, size
    peak = 3 * big_t
    dummies = _ids("a", 2 * size + 3, 3)
    blockers = _ids("b", 2, 1)
    shorts = _ids("c", 2 * pairs, 3)
    requests = ([Request(i, 0, 0, 1) for i in dummies] + [Request(i, 0, peak - big_t, big_t) for i in blockers]
                + [Request(i, 0, peak - 2, 2) for i in shorts])
    witness = {i: 0 for i in dummies}
    witness.update({rid: 1 + 2 * (j // 2) for j, rid in enumerate(shorts)})
    witness.update({rid: 2 * pairs + 1 for rid in blockers})
    return Instance(2 * peak, requests), witness


def sjf_long_blockers(size: int, t: int = 8) -> tuple[Instance, dict[str, int]]:
    """The ``sjf-long-blockers`` member ``k = size``, ``T = t`` (:mod:`geosched.theory.sjf_families`)."""
    return sjf_families.long_blockers(size, t), sjf_families.witness_starts(size, t)


def fcfs_convoy(size: int, lag: int = 0) -> tuple[Instance, dict[str, int]]:
    """The ``fcfs-convoy`` member ``k = size`` with ``T = k^2``, the short requests arriving at ``lag`` in
    ``{0, 1}`` (:mod:`geosched.theory.fcfs_families`)."""
    length = size * size
    return fcfs_families.convoy(size, length, lag), fcfs_families.witness_starts(size, length, lag)


# ------------------------------------------------------------------ SVF families of issue 32 (item 2)


def svf_alternating(size: int, c: int = 20) -> tuple[Instance, dict[str, int]]:
    """The ``svf-alternating`` member ``m = size``, width ``c`` (:mod:`geosched.theory.svf_alternating`)."""
    return alternating_theory.alternating(size, c), alternating_theory.witness_starts(size, c)


def svf_distinct(size: int, h: int = 2) -> tuple[Instance, dict[str, int]]:
    """The ``svf-distinct`` member ``m = size``, ``h`` (:mod:`geosched.theory.svf_distinct`): no two volumes equal."""
    return distinct_theory.distinct(size, h), distinct_theory.witness_starts(size, h)


def svf_fillers(size: int, h: int = 4) -> tuple[Instance, dict[str, int]]:
    """The ``svf-fillers`` member ``m = size``, ``h`` (:mod:`geosched.theory.svf_fillers`)."""
    return fillers_theory.fillers(size, h), fillers_theory.witness_starts(size, h)


def _svf_family(name: str, theory: Any, build: Callable[..., tuple[Instance, dict[str, int]]], *,
                parameter: str, default: int, description: str, requests: Callable[..., int],
                **more: Any) -> Family:
    """An SVF family whose member and closed forms are a theory module's: ``tel_svf_expr`` and
    ``tel_witness_expr`` in the module's size symbol ``m`` (read here at ``k``), and one more parameter,
    the module's symbol of that name. One place says how such a module becomes a :class:`Family`."""
    return Family(name=name, policy="svf", build=build, policy_tel=theory.tel_svf_expr().subs(theory.m, k),
                  witness_tel=theory.tel_witness_expr().subs(theory.m, k), min_size=1, description=description,
                  requests=requests, parameters={parameter: default},
                  symbols={parameter: getattr(theory, parameter)}, **more)


_ISSUE32_FAMILIES: dict[str, Family] = {
    "svf-fillers": _svf_family(
        "svf-fillers", fillers_theory, svf_fillers, parameter="h", default=4, grows=("h",),
        description="b = 6h+4, p = 2b-1, M = bp: bk triangles (0, p), then 2h+1 fillers (M/2 - 3, 3) that S runs in "
                    "its ramp and SVF last; alpha = 1/2 exactly; limit (12h+7)/(6h+4) -> 2",
        requests=lambda size, h=4, **_: (6 * h + 4) * size + 2 * h + 1),
    "svf-alternating": _svf_family(
        "svf-alternating", alternating_theory, svf_alternating, parameter="c", default=20, grows=("c",),
        minimum={"c": 2}, high_alpha=True,
        description="ck narrow (c(c-1)/2, c) alternating with ck wide (b, 1) of equal volume, M = c^2(c+1)/2, "
                    "alpha = (c^2+1)/(c(c+1)); SVF serialises them; limit (c+1)/2 ~ 1/(2(1 - alpha))",
        requests=lambda size, c=20, **_: 2 * c * size),
    "svf-distinct": _svf_family(  # issue 43: the same growth with pairwise distinct volumes
        "svf-distinct", distinct_theory, svf_distinct, parameter="h", default=2, grows=("h",), high_alpha=True,
        description="c = 2h+1, K = c^2 k: ck narrow (Ka + j, Kc) interleaved by volume with ck wide (Kb + cj + c, K), "
                    "every volume distinct; SVF serialises them; limit h + 1 = (c+1)/2 ~ 1/(2(1 - alpha))",
        requests=lambda size, h=2, **_: 2 * (2 * h + 1) * size),
}


def best_svf_lower_bound() -> dict[str, Any]:
    """The best known lower bound on SVF's competitive ratio under ``alpha <= 1/2`` (the largest
    limit of the SVF families in :data:`FAMILIES`), next to the proved upper bound (Kong et al.,
    Thm. 3.2, ``1 + 2/(1 - alpha)`` at ``alpha = 1/2``).

    >>> best_svf_lower_bound()["lower"], best_svf_lower_bound()["upper"]
    ('2', '5')
    """
    from geosched.theory import kong_thm3_2

    limits = {name: fam.supremum for name, fam in FAMILIES.items() if fam.policy == "svf" and not fam.high_alpha}
    name = max(limits, key=lambda n: limits[n])
    upper = kong_thm3_2.derivation().bound_at(alpha=sp.Rational(1, 2))
    return {"lower": str(limits[name]), "lower_float": float(limits[name]), "family": name,
            "upper": str(upper), "upper_float": float(upper), "limits": {n: str(v) for n, v in limits.items()}}


_SJF_BLOCKING = Family(
    name="sjf-blocking",
    policy="sjf",
    build=sjf_blocking,
    policy_tel=k * (k + 1) + k**2 * (k + 2),
    witness_tel=2 * k**2 + k**2 + 4 * k - 1,
    min_size=2,
    description="2k blockers (K-1, 1) and K = k^2 smalls (0, 2), M = 2K, alpha = 1/2",
    requests=lambda size, **_: 2 * size + size * size,
)


FAMILIES: dict[str, Family] = {
    "sjf-blocking": _SJF_BLOCKING,
    "svf-pairs": _svf_family(
        "svf-pairs", svf_lower_bound, svf_pairs, parameter="q", default=1,
        description="2k identical requests (0, 3q), M = 6q, alpha = 1/2; witness staggered by q",
        requests=lambda size, **_: 2 * size),
    "svf1-blockers": Family(
        name="svf1-blockers",
        policy="svf1",
        build=svf1_blockers,
        # D = 2k + 3 dummies (0, 1) (so the median output is 1: theta = 1), two blockers (P - T, T) and
        # K = 2k requests (P - 2, 2), T = k^2, P = 3T, M = 2P. In the long class the proxy volume orders by
        # prompt, so the blockers run first and hold M - 2(T - t) > M - P: the K requests wait T steps.
        policy_tel=(2 * k + 3) + 2 * k**2 + 2 * k * k**2 + (2 * k) ** 2 / 2 + 2 * k,
        witness_tel=(2 * k + 3) + (2 * k) ** 2 / 2 + 4 * (2 * k) + 2 + 2 * k**2,
        min_size=3,  # k <= 2 (T <= 4): the blockers' early steps leave room, so the trace differs
        description="1-bit SVF (default median threshold): 2k+3 dummies (0, 1), blockers 2x(P-T, T), 2k requests "
                    "(P-2, 2); T = k^2, P = 3T, M = 2P; ratio ~ k/2 = sqrt(T)/2",
        requests=lambda size, **_: 4 * size + 5,
    ),
    # the sjf-blocking member: the blockers (K - 1, 1) are short, key K; the smalls (0, 2) long, key
    # (O_1^2 + O_1)/2 > K (k^2 = K < 2^39), so 1-bit SVF serves them in SJF's order: the same instance,
    # witness, closed forms and request count, under another policy
    "svf1-proxy-range": replace(
        _SJF_BLOCKING,
        name="svf1-proxy-range",
        policy=f"svf1:theta=1,short_length=1,long_length={SVF1_PROXY_LONG}",
        build=svf1_proxy_range,
        description="1-bit SVF with a long proxy O_1 = 2^20 > T = 2 (theta = 1, O_0 = 1) on the sjf-blocking "
                    "member: 2k blockers (K-1, 1), K = k^2 smalls (0, 2), M = 2K; ratio ~ k/3 at fixed T",
    ),
    "svf-triangles": Family(
        name="svf-triangles",
        policy="svf",
        build=svf_triangles,
        policy_tel=svf_lower_bound.triangle_tel_svf_expr().subs(svf_lower_bound.m, k),
        witness_tel=svf_lower_bound.triangle_tel_witness_expr().subs(svf_lower_bound.m, k),
        min_size=1,
        description="(r+1)k identical requests (0, (2r+1)q), M = q(2r+1)(r+1), alpha = 1/(r+1); witness staggered "
                    "by q; limit (2r+1)/(r+1) -> 2",
        requests=lambda size, r=2, **_: (r + 1) * size,
        parameters={"r": 2, "q": 1},
        symbols={"r": svf_lower_bound.r, "q": svf_lower_bound.q},
        grows=("r",),
    ),
    "sjf-long-blockers": Family(
        name="sjf-long-blockers",
        policy="sjf",
        build=sjf_long_blockers,
        policy_tel=sjf_families.tel_sjf_expr(),
        witness_tel=sjf_families.tel_witness_expr(),
        min_size=2,
        description="2k blockers (M/2 - T, T) and k^2 smalls (0, T + 1), M = 2 ceil(k^2 (T+1)/2), alpha = 1/2; "
                    "ratio ~ k T/(2T + 1) (T = 1: sjf-blocking)",
        requests=lambda size, **_: 2 * size + size * size,
        parameters={"t": 8},
        symbols={"t": sjf_families.T},
    ),
    "fcfs-convoy": Family(
        name="fcfs-convoy",
        policy="fcfs",
        build=fcfs_convoy,
        policy_tel=fcfs_families.tel_fcfs_expr().subs(fcfs_families.T, k**2),
        witness_tel=fcfs_families.tel_witness_expr().subs(fcfs_families.T, k**2),
        min_size=1,
        description="M = 4T, first 2 x (T, T) at 0, then 2k x (2T - 1, 1) arriving at lag (0 or 1), T = k^2, "
                    "alpha = 1/2; ratio (2k + 1)/3 = (n - 1)/3 at lag 0, slope 2/3 at lag 1",
        requests=lambda size, **_: 2 * size + 2,
        parameters={"lag": 0},
        symbols={"lag": fcfs_families.ell},
        minimum={"lag": 0},
    ),
}


FAMILIES.update(_ISSUE32_FAMILIES)

MAX_REQUESTS = 200_000  # a member larger than this is refused (simulation and checking grow with n)


@dataclass(frozen=True)
class FamilyEvaluation(Result):
    """One member simulated and checked against the closed forms.

    ``status`` is ``"agree"`` when both schedules are feasible for the checker and both TELs
    equal the closed forms at this size, else ``"diverged"`` (the words of every comparison with a reference).
    """

    STATUSES = ("agree", "diverged")
    SUCCESS = ("agree",)

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
    limit: str  # the ratio's limit as k -> infinity at this member's other parameters (sympy)

    @property
    def match(self) -> bool:
        return self.status == "agree"

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data["alpha"] = float(self.alpha)
        data["certified_ratio"] = None if self.certified_ratio is None else float(self.certified_ratio)
        data["certified_ratio_exact"] = None if self.certified_ratio is None else str(self.certified_ratio)
        data["match"] = self.match
        return data


def evaluate_family(name: str, size: int, **parameters: int) -> FamilyEvaluation:
    """Build member ``size`` (with the family's other ``parameters``, e.g. ``q`` of ``svf-pairs``),
    simulate, check, and compare with the closed forms.

    Raises
    ------
    UnknownNameError
        For an unknown family.
    ValidationError
        For a size below the family's minimum or one whose member exceeds :data:`MAX_REQUESTS`,
        or an unknown or invalid parameter.

    Examples
    --------
    >>> evaluate_family("sjf-blocking", 3).status
    'agree'
    """
    started = time.perf_counter()
    try:
        fam = FAMILIES[name]
    except KeyError:
        raise UnknownNameError("family", name, list(FAMILIES)) from None
    if isinstance(size, bool) or not isinstance(size, int) or size < fam.min_size:
        raise ValidationError("--size", size, f"must be an integer >= {fam.min_size}")
    values = _parameters(fam, parameters)
    if fam.requests(size, **values) > MAX_REQUESTS:
        raise ValidationError("--size", size, f"gives {fam.requests(size, **values)} requests; at most "
                              f"{MAX_REQUESTS} are simulated (use the closed forms for larger sizes)")
    instance, witness = fam.build(size, **values)
    policy_report = check_schedule(instance, simulate(instance, fam.policy).starts)
    witness_report = check_schedule(instance, witness)
    policy_tel = policy_report.metrics.tel
    witness_tel = witness_report.metrics.tel if witness_report.feasible else None
    point = {k: size, **{fam.symbols[n]: v for n, v in values.items()}}
    want_policy = int(fam.policy_tel.subs(point))
    want_witness = int(fam.witness_tel.subs(point))
    match = policy_report.feasible and policy_tel == want_policy and witness_tel == want_witness
    ratio = Fraction(policy_tel, witness_tel) if witness_tel else None
    shown = "".join(f", {n}={v}" for n, v in values.items())
    message = (f"{name} k={size}{shown}: TEL({fam.policy}) {policy_tel} (closed form {want_policy}), witness TEL "
               f"{witness_tel} (closed form {want_witness})")
    return FamilyEvaluation("agree" if match else "diverged", message, time.perf_counter() - started, name, size,
                            fam.policy, instance.n, instance.memory, instance.alpha, policy_tel,
                            str(sp.expand(fam.policy_tel)), want_policy, witness_tel, witness_report.feasible,
                            str(sp.expand(fam.witness_tel)), want_witness, ratio, str(fam.ratio),
                            str(sp.simplify(fam.limit.subs(point))))


def family_witness(name: str, size: int, **parameters: int) -> Any:
    """Member ``size`` of family ``name`` as a :class:`~geosched.adversary.witness.Witness` (the policy run by the
    reference simulator, both schedules checked by the checker), for ``docs/witnesses``; the closed forms must
    match first (:func:`evaluate_family`).

    Raises
    ------
    ValidationError
        When the member does not match its closed forms (the message says which), or for bad arguments.
    """
    from geosched.adversary.witness import make_witness

    report = evaluate_family(name, size, **parameters)
    if not report.match:
        raise ValidationError("--size", size, f"member does not match its closed forms: {report.message}")
    fam = FAMILIES[name]
    instance, witness = fam.build(size, **_parameters(fam, parameters))
    shown = "".join(f", {n}={v}" for n, v in parameters.items())
    return make_witness(instance, fam.policy, witness, found_by=f"family {name} (k={size}{shown}); witness: the "
                        "family's closed-form schedule")


def _parameters(fam: Family, given: dict[str, int]) -> dict[str, int]:
    unknown = sorted(set(given) - set(fam.parameters))
    if unknown:
        raise ValidationError("--param", unknown[0], f"is not a parameter of {fam.name} (it has: "
                              f"{', '.join(fam.parameters) or 'none'})")
    values = {**fam.parameters, **given}
    for n, v in values.items():
        low = fam.minimum.get(n, 1)
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ValidationError(f"--param {n}", v, f"must be an integer >= {low}")
    return values
