"""``svf.heavy_limit``: SVF's asymptotic competitive ratio at ``alpha -> 0`` on heavy bursts is exactly 2
(ours; Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.2 says at most 3 there).

**Heavy bursts.** For ``0 < a < 1`` and ``e > 0`` let ``H(a, e)`` be the bursts with ``alpha = P/M <= a``
(``P`` the largest peak) and ``sum_i o_i <= e OPT``, and ``R(a, e)`` the supremum of ``TEL(SVF)/OPT`` over
``H(a, e)``. "Heavy" is ``e`` small: the outputs alone are a small part of the optimum (many requests queue).
The claim: ``2 <= R(a, e) <= 2/(1 - a) + e`` for every such ``a, e``, so ``R(a, e) -> 2`` as ``(a, e) -> 0``.

* Upper side: ``svf.sharp_bound`` (Coq ``svf_sharp_bound``), ``(M - P) TEL(SVF) <= 2M OPT + (M - P) sum(o)``,
  divided by ``(M - P) OPT``.
* Lower side: the svf-triangles ``n x (0, p)``, ``p = 2q - 1``, ``M = qp`` (``verify/coq/SvfTriangles.v``):
  ``alpha = 1/q``; Prop. 3.1 gives ``OPT >= n(n + 1)/2``, so ``sum(o)/OPT <= 2p/(n + 1) -> 0``; the one-per-step
  schedule ``S`` is feasible and ``p TEL(S) <= q TEL(SVF) + p^2 n`` (``svf_triangles_ratio``), so
  ``TEL(SVF)/OPT >= p/q - p^2 n/(q TEL(S)) -> 2 - 1/q`` as ``n -> infinity``. For ``q >= 1/a`` and ``n`` large
  the member is in ``H(a, e)``; ``2 - 1/q -> 2`` as ``q -> infinity``.

Example
-------
>>> derivation().check().status
'unknown'
>>> upper_bound().subs({a: sp.Rational(1, 2), e: 0})
4
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.svf_sharp_bound import (
    BURST_SVF,
    BURST_SVF_LATEX,
    OUTSIDE_BURST,
    OUTSIDE_PROP31,
    coq_methods,
)

STEPS = ("svf_sharp_bound", "svf_triangles_ratio", "triangles_staggered_feasible")  # Coq steps of the derivation

CLAIM = Claim(
    "svf.heavy_limit", f"ours (family svf-triangles); {KONG} Prop. 3.1, Thm. 3.2",
    "SVF's (strict, forward-looking check) asymptotic ratio at alpha -> 0 in heavy bursts is exactly 2: R(a, e) = "
    "sup TEL(SVF)/OPT over bursts with alpha = max peak/M <= a < 1 and sum(o) <= e OPT (e > 0) has 2 <= R(a, e) <= "
    "2/(1 - a) + e, so R(a, e) -> 2 as a, e -> 0 (Thm. 3.2: 3)",
    "upper: Coq svf_sharp_bound divided by (M - P) OPT (sympy); lower: svf-triangles (0, 2q - 1), M = q(2q - 1), "
    "alpha = 1/q, Coq svf_triangles_ratio and triangles_staggered_feasible, Prop. 3.1 for OPT >= n(n + 1)/2, the "
    "limits n -> infinity, q -> infinity and a, e -> 0 by sympy; bounded: the exhaustive check of the upper "
    "inequality and the simulated triangles",
    "not a claim of the papers: a two-sided limit in the class of heavy bursts; the sup is approached, not "
    "attained",
    ("derivation", "exhaustive:svf-sharp", "simulation:svf-frontier", *coq_methods(*STEPS), *SIMULATES),
    ("kong.prop3.1",), coq=STEPS, order=("ours", 150))

a, e = sp.symbols("a e", positive=True)  # the class: alpha <= a < 1, sum(o) <= e OPT
beta, g = sp.symbols("beta g", positive=True)
P, d = sp.symbols("P d", positive=True)  # M = P + d
alpha = sp.Symbol("alpha", positive=True)
O, SVF, TS = sp.symbols("O TEL_SVF T_S", nonnegative=True)
OPT = sp.Symbol("OPT", positive=True)
n, q = sp.symbols("n q", integer=True, positive=True)
h = sp.Symbol("h", nonnegative=True)


def upper_bound():
    """``2/(1 - a) + e``: the upper side of ``R(a, e)``."""
    return 2 / (1 - a) + e


def upper_steps() -> list[Step]:
    sharp = 2 * (P + d) * OPT + d * O - d * SVF  # svf_sharp_bound with S = OPT, M = P + d
    heavy = e * OPT - O
    return [
        Step.unchecked("every burst: (M - P) TEL(SVF) <= 2M OPT + (M - P) sum(o)",
                       "svf.sharp_bound with S = OPT", "Coq's svf_sharp_bound (SvfSharp.v), every instance",
                       covered_by=("coq:svf_sharp_bound", "exhaustive:svf-sharp")),
        Step.inequality("in H(a, e), with M = P + d: TEL(SVF)/OPT <= 2M/(M - P) + e",
                        2 * (P + d) / d + e, ">=", SVF / OPT,
                        "difference (2M OPT + (M - P) O - (M - P) TEL(SVF))/((M - P) OPT) + (e OPT - O)/OPT",
                        certificate=[sharp / (d * OPT), heavy / OPT], premises=[sharp, heavy]),
        Step.identity("2M/(M - P) = 2/(1 - alpha), alpha = P/M", 2 * (P + d) / d, 2 / (1 - alpha),
                      "alpha = P/(P + d)", substitutions={alpha: P / (P + d)}),
        Step.inequality("alpha <= a < 1: 2/(1 - alpha) <= 2/(1 - a), so R(a, e) <= 2/(1 - a) + e",
                        2 / (1 - a), ">=", 2 / (1 - alpha), "with 1 - a = beta, a - alpha = g: 2 g/(beta (beta + g))",
                        certificate=[2 * g / (beta * (beta + g))], substitutions={alpha: 1 - beta - g, a: 1 - beta}),
        Step.identity("the excess over 2: 2/(1 - a) + e - 2 = 2a/(1 - a) + e", upper_bound() - 2,
                      2 * a / (1 - a) + e, "common denominator"),
        Step.limit("2a/(1 - a) -> 0 as a -> 0 (and e -> 0 trivially): the upper side tends to 2",
                   2 * a / (1 - a), a, 0, 0, "continuous at 0", direction="+"),
    ]


def lower_steps() -> list[Step]:
    p = 2 * q - 1
    tel_s = n * (n - 1) / 2 + p * n
    i = sp.Symbol("i", integer=True, nonnegative=True)
    k = sp.Symbol("k", integer=True, positive=True)
    prop = q * p * OPT - p * q * n * (n + 1) / 2  # Prop. 3.1 on the member: M OPT >= v n(n + 1)/2, v = pq
    opt_low = OPT - n * (n + 1) / 2
    return [
        Step.unchecked("svf-triangles n x (0, p), p = 2q - 1, M = qp: the one-per-step schedule S is feasible and "
                       "p TEL(S) <= q TEL(SVF) + p^2 n",
                       "SVF starts batches of q every p steps; at step t the staggered requests have distinct ages",
                       "Coq's triangles_staggered_feasible and svf_triangles_ratio, every q and n",
                       covered_by=("coq:svf_triangles_ratio", "coq:triangles_staggered_feasible",
                                   "simulation:svf-frontier")),
        Step.identity("alpha = p/M = 1/q", p / (q * p), 1 / q, "M = qp"),
        Step.identity("the volume of (0, p) is p(p + 1)/2 = pq = M", (p**2 + p) / 2, p * q, "p + 1 = 2q"),
        Step.identity("identical volumes: sum_k P_k = sum_{k=1..n} k v = v n(n + 1)/2", sp.Sum(k * p * q, (k, 1, n)),
                      p * q * n * (n + 1) / 2, "arithmetic series"),
        Step.inequality("Prop. 3.1 (M OPT >= sum_k P_k): OPT >= n(n + 1)/2", OPT, ">=", n * (n + 1) / 2,
                        "difference (M OPT - sum_k P_k)/M with M = v = pq", certificate=[prop / (q * p)],
                        premises=[prop]),
        Step.inequality("so sum(o)/OPT <= p n/(n(n + 1)/2) = 2p/(n + 1)", 2 * p / (n + 1), ">=", p * n / OPT,
                        "difference 2 p (OPT - n(n + 1)/2)/((n + 1) OPT)",
                        certificate=[2 * p * opt_low / ((n + 1) * OPT)],
                        premises=[opt_low]),
        Step.limit("2p/(n + 1) -> 0 as n -> infinity: the members are heavy", 2 * p / (n + 1), n, sp.oo, 0, "p fixed"),
        Step.identity("TEL(S) = n(n - 1)/2 + p n (request i completes at i + p)", sp.Sum(i + p, (i, 0, n - 1)), tel_s,
                      "the sum of i + p over i < n"),
        Step.identity("so TEL(SVF)/OPT >= TEL(SVF)/TEL(S) >= p/q - p^2 n/(q TEL(S)) (OPT <= TEL(S))",
                      (p * TS - p**2 * n) / (q * TS), p / q - p**2 * n / (q * TS), "divide step 7 by q TEL(S)"),
        Step.limit("the correction p^2 n/(q TEL(S)) -> 0 as n -> infinity", p**2 * n / (q * tel_s), n, sp.oo, 0,
                   "p^2 n against n^2/2"),
        Step.limit("the members' limit p/q = 2 - 1/q tends to 2 as q -> infinity (alpha = 1/q -> 0): R(a, e) >= 2",
                   p / q, q, sp.oo, 2, "for q >= 1/a the member is in H(a, e) once n is large (step 13)"),
        Step.inequality("consistent: 2 <= 2/(1 - a) + e", upper_bound(), ">=", 2,
                        "difference 2a/(1 - a) + e; every a in (0, 1) is g/(1 + g), g > 0",
                        certificate=[2 * g, e], substitutions={a: g / (1 + g)}),
    ]


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id, f"ours (family svf-triangles); {KONG_PAPER}",
        "Thm. 3.2 (3 as alpha tends to 0) against svf.sharp_bound and the triangles",
        "with R(a, e) = sup TEL(SVF)/OPT over the bursts with alpha <= a < 1 and sum(o) <= e OPT: 2 <= R(a, e) <= "
        "2/(1 - a) + e, so R(a, e) -> 2 as a, e -> 0: SVF's asymptotic ratio at alpha -> 0 in heavy bursts is 2",
        bound=upper_bound(),
        statement_latex=r"With $R(a, e) = \sup \mathrm{TEL}(\mathrm{SVF})/\mathrm{OPT}$ over the bursts with $\alpha "
                        r"\le a < 1$ and $\sum_i o_i \le e\,\mathrm{OPT}$: $2 \le R(a, e) \le 2/(1 - a) + e$, so "
                        r"$R(a, e) \to 2$ as $a, e \to 0$.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX, outside=OUTSIDE_BURST),
                    Hypothesis("H2", "heavy bursts H(a, e): alpha = P/M <= a < 1 with P the largest peak, and "
                               "sum_i o_i <= e OPT, e > 0",
                               latex=r"heavy bursts $H(a, e)$: $\alpha = P/M \le a < 1$ with $P$ the largest peak, "
                                     r"and $\sum_i o_i \le e\,\mathrm{OPT}$, $e > 0$",
                               outside="none: H2 defines the class whose supremum R(a, e) is computed; outside it "
                                       "Thm. 3.2's 1 + 2/(1 - alpha) is the bound"),
                    Hypothesis("H3", "kong.prop3.1: sum_k P_k <= M OPT",
                               latex=r"kong.prop3.1: $\sum_k P_k \le M\,\mathrm{OPT}$", outside=OUTSIDE_PROP31)),
        steps=(*upper_steps(), *lower_steps()),
        depends_on=("kong.prop3.1",),
        notes="The supremum 2 is approached by the triangles (q -> infinity, n -> infinity), not attained. Outside "
              "heavy bursts the same bound reads 2/(1 - alpha) + sum(o)/OPT <= 1 + 2/(1 - alpha) (Thm. 3.2).",
    )
