"""``svf.lower_bound``: SVF's competitive ratio for bursts under ``alpha <= 1/2`` lies in ``[2, 5]``:
at least 2 (the ``svf-triangles`` family, ours), at most 5 (Kong, Qi, Ye, Zhou, arXiv 2606.22327,
Thm. 3.2, ``1 + 2/(1 - alpha)`` at ``alpha = 1/2``).

SVF's worst cases are *synchronisation* losses: the forward-looking check, run greedily, starts
a batch of identical requests together, and a batch of triangles ``(0, P)`` holds on average
half of its peak, while a schedule that starts them one at a time packs the same memory fully.

**Family** ``svf-triangles`` (``m, r, q >= 1``; ``p = 2r + 1``): ``N = (r + 1) m`` requests
``(0, pq)`` arriving at 0, ``M = q p (p + 1)/2 = q (2r + 1)(r + 1)``, ``alpha = pq/M = 1/(r + 1)
<= 1/2``. ``r = 1`` is the earlier ``svf-pairs`` family (``(0, 3q)``, ``M = 6q``, limit 3/2).

* SVF (every key equal, ties by position; the same for FCFS and SJF) starts ``b = r + 1``
  requests at 0: they fit exactly (``b pq = M`` at step ``pq``). Another started at
  ``t < pq`` would hold ``pq - t > 0`` tokens at step ``pq`` on top of ``M``: it waits for the
  batch to finish. Batch ``k`` completes at ``pqk``: ``TEL(SVF) = b pq m(m + 1)/2``.
* Witness ``S``: request ``i`` starts at ``iq``. At step ``t = jq + a`` (``1 <= a <= q``) the
  running requests hold ``a, a + q, ..., a + (p - 1)q``: ``pa + q p(p - 1)/2 <= M``.
  ``TEL(S) = q (N(N - 1)/2 + pN)``.

So ``TEL(SVF)/OPT >= p(m + 1)/((r + 1)m + 4r + 1) -> (2r + 1)/(r + 1)`` as ``m -> infinity``
(3/2, 5/3, 7/4, ...), which tends to 2 as ``r -> infinity``: SVF's competitive ratio under
``alpha <= 1/2`` is at least 2 (a supremum, approached from below), against Thm. 3.2's 5. At
``alpha = 1/(r + 1)`` the family's limit ``(2r + 1)/(r + 1)`` stands beside Thm. 3.2's
``1 + 2(r + 1)/r`` there (3 as ``alpha -> 0``).

Example
-------
>>> inst = svf_pairs(2, 1)
>>> inst.memory, inst.n, closed_form_tels(2, 1)
(6, 4, {'svf': 18, 'witness': 18})
>>> svf_triangles(2, 2).memory, triangle_closed_form_tels(4, 2)
(15, {'svf': 150, 'witness': 126})
>>> best_known_lower_bound()
(2, 'svf-triangles')
>>> triangle_limit().subs(r, 2)
5/3
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "svf.lower_bound", f"ours (family); {KONG} Thm. 3.2",
    "SVF's ratio (burst, alpha <= 1/2) lies in [2, 5]: best known lower bound 2 (supremum of family limits), "
    "upper bound 5 (Thm. 3.2)",
    "family svf-triangles: (r+1)m requests (0, (2r+1)q), M = q(2r+1)(r+1), alpha = 1/(r+1); TEL(SVF) = "
    "(r+1)(2r+1)q m(m+1)/2, staggered S: q(N(N-1)/2 + (2r+1)N) (sympy), simulated against the closed forms; "
    "limit (2r+1)/(r+1) -> 2 beside Thm. 3.2's 5 at alpha = 1/2; at width q = 1 SVF's trace and S's feasibility "
    "are Coq theorems for every m and r",
    "not a claim of the papers: the family is geosched's (structured search); S stands in for OPT",
    ("derivation", "simulation:svf-family", "coq:svf_triangles_starts", "coq:triangles_staggered_feasible",
     *SIMULATES), ("kong.thm3.2",),
    coq=("svf_triangles_starts", "triangles_staggered_feasible"),
    order=("ours", 10))
UPPER_CLAIM = "kong.thm3.2"  # the upper end of the interval

m = sp.Symbol("m", integer=True, positive=True)
q = sp.Symbol("q", integer=True, positive=True)
r = sp.Symbol("r", integer=True, positive=True)
u = sp.Symbol("u", integer=True, nonnegative=True)  # r - 1
i = sp.Symbol("i", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)
w = sp.Symbol("w", integer=True, nonnegative=True)
a = sp.Symbol("a", integer=True, positive=True)


def peak_expr():
    """The triangles' output ``pq`` with ``p = 2r + 1``."""
    return (2 * r + 1) * q


def batch_expr():
    """SVF's batch ``b = r + 1``."""
    return r + 1


def triangle_memory_expr():
    """``M = q p(p + 1)/2 = q(2r + 1)(r + 1)``."""
    return q * (2 * r + 1) * (r + 1)


def triangle_tel_svf_expr():
    """``TEL(SVF) = b pq m(m + 1)/2``."""
    return batch_expr() * peak_expr() * m * (m + 1) / 2


def triangle_tel_witness_expr():
    """``TEL(S) = q (N(N - 1)/2 + pN)`` with ``N = b m``."""
    n = batch_expr() * m
    return q * (n * (n - 1) / 2 + (2 * r + 1) * n)


def triangle_ratio_expr():
    return sp.factor(sp.simplify(triangle_tel_svf_expr() / triangle_tel_witness_expr()))


def triangle_limit() -> sp.Expr:
    """The ratio's limit as ``m -> infinity``: ``(2r + 1)/(r + 1)``."""
    return sp.limit(triangle_ratio_expr(), m, sp.oo)


def memory_expr():
    return 6 * q


def tel_svf_expr():
    """``svf-pairs`` (``r = 1``): TEL(SVF) = 3q m(m+1)."""
    return 3 * q * m * (m + 1)


def tel_witness_expr():
    """``svf-pairs`` (``r = 1``): TEL(S) = q(2m^2 + 5m)."""
    return q * (2 * m**2 + 5 * m)


def ratio_expr():
    return sp.simplify(tel_svf_expr() / tel_witness_expr())


def limit() -> sp.Expr:
    """``svf-pairs``' limit as ``m -> infinity`` (any ``q``): 3/2."""
    return sp.limit(ratio_expr(), m, sp.oo)


def best_known_lower_bound() -> tuple[sp.Expr, str]:
    """The best lower bound on SVF's ratio known here (the supremum over ``r`` of the
    ``svf-triangles`` limits) and the family's name."""
    return sp.limit(triangle_limit(), r, sp.oo), "svf-triangles"


def interval() -> tuple[sp.Expr, sp.Expr]:
    """``[lower, upper]`` for SVF's competitive ratio on bursts with ``alpha <= 1/2``."""
    return best_known_lower_bound()[0], sp.Integer(5)


def _check(**values: int) -> None:
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")


def svf_triangles(size: int, half: int = 1, width: int = 1) -> Instance:
    """The member ``m = size``, ``r = half``, ``q = width``: ``(r + 1) m`` requests ``(0, (2r + 1) q)``,
    ``M = q (2r + 1)(r + 1)``."""
    _check(m=size, r=half, q=width)
    count = (half + 1) * size
    digits = len(str(count - 1))
    return Instance(width * (2 * half + 1) * (half + 1),
                    [Request(f"r{j:0{digits}d}", 0, 0, (2 * half + 1) * width) for j in range(count)])


def triangle_witness_starts(size: int, half: int = 1, width: int = 1) -> dict[str, int]:
    """The staggered schedule: request ``i`` starts at ``i q``."""
    return {req.id: j * width for j, req in enumerate(svf_triangles(size, half, width).requests)}


def triangle_closed_form_tels(size: int, half: int = 1, width: int = 1) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` of ``svf-triangles`` from the closed forms."""
    _check(m=size, r=half, q=width)
    values = {m: size, r: half, q: width}
    return {"svf": int(triangle_tel_svf_expr().subs(values)), "witness": int(triangle_tel_witness_expr().subs(values))}


def svf_pairs(size: int, width: int = 1) -> Instance:
    """The ``svf-pairs`` member ``m = size``, ``q = width`` (``svf-triangles`` with ``r = 1``)."""
    return svf_triangles(size, 1, width)


def witness_starts(size: int, width: int = 1) -> dict[str, int]:
    """``svf-pairs``' staggered schedule: request ``i`` starts at ``i q``."""
    return triangle_witness_starts(size, 1, width)


def closed_form_tels(size: int, width: int = 1) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` of ``svf-pairs`` from the closed forms."""
    _check(m=size, q=width)
    values = {m: size, q: width}
    return {"svf": int(tel_svf_expr().subs(values)), "witness": int(tel_witness_expr().subs(values))}


def _thm_consistency_step(svf, wit) -> Step:
    """5 TEL(S) - TEL(SVF) = b m ((3r + 4) m + 18 r + 4)/2 (width 1), a sum of nonnegative monomials."""
    gap = sp.expand(batch_expr() * m * ((3 * r + 4) * m + 18 * r + 4) / 2)
    return Step.inequality("consistent with Thm. 3.2 at alpha <= 1/2: 5 TEL(S) >= TEL(SVF)", 5 * wit, ">=", svf,
                           "difference b m ((3r + 4) m + 18 r + 4)/2", certificate=list(sp.Add.make_args(gap)))


def derivation(tel_svf=None) -> Derivation:
    """``tel_svf`` replaces the SVF closed form (tests break it on purpose). The derivation takes the width
    ``q = 1``: the ratio does not depend on it, and at ``q = 1`` the trace is a Coq theorem for every ``m`` and
    ``r`` (``verify/coq/SvfTriangles.v``, with Coq's ``q`` = our ``b``); the simulation checks ``q <= 2``."""
    width = {q: 1}
    svf = (tel_svf if tel_svf is not None else triangle_tel_svf_expr()).subs(width)
    wit = triangle_tel_witness_expr().subs(width)
    big_m, pq, b, p = triangle_memory_expr().subs(width), peak_expr().subs(width), batch_expr(), 2 * r + 1
    ratio = p * (m + 1) / ((r + 1) * m + 4 * r + 1)
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Thm. 3.2 (the upper bound 1 + 2/(1 - alpha), 5 at alpha = 1/2); the family and its closed forms are ours",
        "SVF's ratio for bursts under alpha <= 1/2 lies in [2, 5]: on the family below TEL(SVF)/TEL(S) = "
        "p(m+1)/((r+1)m + 4r + 1) -> (2r+1)/(r+1) -> 2; Thm. 3.2 gives 5",
        bound=ratio,
        statement_latex=r"SVF's ratio for bursts under $\alpha \le 1/2$ lies in $[2, 5]$: on the family below "
                        r"$\mathrm{TEL}(\mathrm{SVF}) / \mathrm{TEL}(S) = p(m+1)/((r+1)m + 4r + 1) \to (2r+1)/(r+1)"
                        r" \to 2$; Thm. 3.2 gives $5$.",
        hypotheses=(Hypothesis("H1", "burst arrivals; strict head-of-line admission with the forward-looking check; "
                               "ties by position",
                               latex=r"burst arrivals; strict head-of-line admission with the forward-looking "
                                     r"check; ties by position",
                               outside="none: H1 names the policy whose ratio is computed; another "
                                       "policy has another trace"),
                    Hypothesis("H2", "family svf-triangles at width q = 1: p = 2r + 1, M = p(p+1)/2, N = (r+1) m "
                               "identical requests (s, o) = (0, p), m, r >= 1",
                               latex=r"family svf-triangles at width $q = 1$: $p = 2r + 1$, $M = p(p+1)/2$; "
                                     r"$N = (r+1)m$ identical requests $(s, o) = (0, p)$; $m, r \ge 1$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.identity("alpha = pq / M = 1/(r + 1)", pq / big_m, 1 / (r + 1), "M = pq (r + 1)"),
            Step.inequality("alpha <= 1/2 (r = 1 + u, u >= 0)", sp.Rational(1, 2), ">=", 1 / (r + 1),
                            "difference u / (2(u + 2))", certificate=[u / (2 * (u + 2))], substitutions={r: 1 + u}),
            Step.inequality("SVF: a batch of b = r + 1 fits (usage b p at its last step)", big_m, ">=", b * pq,
                            "equality", certificate=[0 * r]),
            Step.inequality("SVF: one more started at t = p - 1 - w < p overflows at step p",
                            b * pq + (pq - (pq - 1 - w)), ">", big_m, "it still holds pq - t = 1 + w tokens there",
                            certificate=[1, w]),
            Step.unchecked("the trace: SVF starts batch k = 1..m (b requests) at p(k - 1)",
                           "steps 3-4 at every batch boundary (the batch is empty again at pk)",
                           "a statement about the policy's complete trace: Coq's svf_triangles_starts for every m "
                           "and r (q = 1); the ledger and tests/test_families.py also compare the closed form with "
                           "the simulator and the checker (q <= 2)",
                           covered_by=("simulation:svf-family", "coq:svf_triangles_starts")),
            Step.identity("TEL(SVF) in closed form", sp.Sum(b * pq * k, (k, 1, m)), svf, "batch k completes at pk"),
            Step.identity("S: at step t the p running requests hold 1, 2, ..., p (request i starts at i)",
                          sp.Sum(1 + i, (i, 0, p - 1)), p * (p + 1) / 2, "starts i; lifetimes p"),
            Step.unchecked("S is feasible: p(p + 1)/2 = M at every step", "step 6, and fewer requests run near the "
                           "ends", "a statement about every step of S: Coq's triangles_staggered_feasible",
                           covered_by=("simulation:svf-family", "coq:triangles_staggered_feasible")),
            Step.identity("TEL(S) in closed form", sp.Sum(i + pq, (i, 0, b * m - 1)), wit,
                          "request i completes at i + p"),
            Step.identity("the ratio", svf / wit, ratio, "divide by b m / 2"),
            Step.limit("as m -> infinity the ratio tends to (2r + 1)/(r + 1)", ratio, m, sp.oo, p / (r + 1),
                       "leading terms p m / ((r + 1) m)"),
            Step.limit("as r -> infinity the limit tends to 2: SVF's ratio is at least 2", p / (r + 1), r, sp.oo, 2,
                       "(2r + 1)/(r + 1) = 2 - 1/(r + 1)"),
            _thm_consistency_step(svf, wit),
        ),
        depends_on=(UPPER_CLAIM,),
        notes="TEL(OPT) <= TEL(S), so TEL(SVF)/TEL(OPT) >= p(m+1)/((r+1)m + 4r + 1); the supremum over the "
              "family is 2, approached from below (no member reaches it). The upper end 5 is Thm. 3.2 at "
              "alpha = 1/2 (kong.thm3.2). r = 1 is the earlier svf-pairs family (limit 3/2). The family is ours "
              "(geosched's structured search with paced witness schedules finds its members from random starts).",
    )
