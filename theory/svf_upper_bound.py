"""``svf.upper_bound``: an upper bound on SVF's ratio strictly below Thm. 3.2's, for every burst (ours; from the
proof of Thm. 3.2 of Kong, Qi, Ye, Zhou, arXiv 2606.22327, with the mean-busy-time bound of single-machine
scheduling in place of Prop. 3.1).

Statement (bursts, strict SVF with the forward-looking check, outputs ``o_i >= 1``, every peak ``<= P``, every
feasible schedule ``S``; ``verify/coq/SvfUpper.v``, ``svf_upper_bound``):

.. math::  3(M - P)\\,TEL(SVF) \\le \\bigl(6M + \\max(0, M - 3P)\\bigr)\\,TEL(S),

so with ``alpha = P/M < 1``

.. math::  \\frac{TEL(SVF)}{OPT} \\le R(\\alpha) = \\max\\Bigl(\\frac{2}{1 - \\alpha},
   \\frac{7 - 3\\alpha}{3(1 - \\alpha)}\\Bigr) = \\begin{cases} \\frac{7 - 3\\alpha}{3(1-\\alpha)} &
   \\alpha < 1/3 \\\\ \\frac{2}{1 - \\alpha} & \\alpha \\ge 1/3 \\end{cases}

against Thm. 3.2's ``1 + 2/(1 - alpha)``: lower by 1 for ``alpha >= 1/3`` and by ``2/(3(1 - alpha))`` below.

========  ==================  ==================
alpha     Thm. 3.2            this bound
========  ==================  ==================
1/4       11/3 = 3.667        25/9 = 2.778
1/2       5                   4
3/4       9                   8
0.9       21                  20
========  ==================  ==================

**Proof.** Thm. 3.2's proof adds three facts: Lemma A.2 summed, ``(M - P) sum_i x_i <= 2Q`` with
``Q = sum_{i<j} min(v_i, v_j)`` (``lemmaA2_summed``, ``lemmaA2_summed_pairs``); Prop. 3.1,
``M TEL(S) >= V + Q`` (``V = sum_i v_i``); and ``sum_i o_i <= TEL(S)``. Its ``1 +`` is the outputs charged to
``TEL(S)`` a second time. Here Prop. 3.1 is replaced by a bound that also counts them (``opt_mean_busy``):

.. math::  6M\\,TEL(S) \\ge 6Q + 3V + 2M \\textstyle\\sum_i o_i .

Memory is a machine of capacity ``M`` per step. (a) A profile ``U(t) <= M`` with total ``W`` has
``M sum_t (2t - 1) U(t) >= W^2``. (b) So every set ``A`` of requests has ``M sum_{j in A} y_j >= (sum_{j in A}
v_j)^2``, ``y_j = sum_t (2t - 1) u_j(t)`` the moment of ``j`` in ``S``. (c) By parts with the non-increasing
weights ``1/v_j`` (volumes sorted ascending): ``M sum_j y_j / v_j >= sum_k (V_k^2 - V_{k-1}^2)/v_k = 2Q + V``.
(d) ``y_j + e_j = 2 v_j C_j`` with ``e_j = s_j o_j^2 + o_j(o_j + 1)(2o_j + 1)/6 >= 2 o_j v_j/3`` (the completion
``C_j`` lies at least ``o_j/3`` after ``j``'s mean busy time ``y_j/(2v_j)``). Summing (d) and using (c):
``2M TEL(S) >= 2Q + V + (2/3) M sum o``. Composed with Lemma A.2 summed, in two cases of ``3P`` against ``M``.

**Where the method stops.** The coefficient of ``Q`` is ``2/(M - P)`` on SVF's side (Lemma A.2: every waiting
step costs ``M - P``, every earlier request at most ``p o <= 2v``) and ``1/M`` on the optimum's (the staggered
triangles attain it up to lower-order terms), so no bound built from these two inequalities goes below
``2/(1 - alpha)``: the growth constant in front of ``1/(1 - alpha)`` stays 2 (the lower side: 1/2,
``svf.alternating``), and ``R(1/2) = 4``, not 3. Lowering it needs a sharper inequality on SVF's waiting than
Lemma A.2's charge.

Example
-------
>>> derivation().check().status
'unknown'
>>> ratio_bound(sp.Rational(1, 2)), ratio_bound(sp.Rational(1, 4))
(4, 25/9)
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.svf_sharp_bound import (
    BURST_SVF,
    BURST_SVF_LATEX,
    OUTSIDE_BURST,
    OUTSIDE_RATIO,
    SVF_MEANING,
)

STEPS = ("lemmaA2_summed", "lemmaA2_summed_pairs", "opt_mean_busy", "svf_upper_bound_half")  # the derivation's
WHOLE = ("svf_upper_bound", *SVF_MEANING)  # together they state the whole row


CLAIM = Claim(
    "svf.upper_bound", f"ours; {KONG} Lemma A.2, Prop. 3.1, Thm. 3.2; the mean-busy-time bound (Goemans 1997)",
    "bursts, strict SVF with the forward-looking check, outputs >= 1, P >= every peak: 3(M - P) TEL(SVF) <= (6M + "
    "max(0, M - 3P)) TEL(S) for every feasible S; with alpha = P/M < 1, TEL(SVF)/OPT <= 2/(1 - alpha) for alpha >= "
    "1/3 and (7 - 3 alpha)/(3(1 - alpha)) below, strictly below Thm. 3.2's 1 + 2/(1 - alpha) at every alpha (4 "
    "against 5 at alpha = 1/2); the constant 2 in front of 1/(1 - alpha) as alpha -> 1 is not lowered",
    "every burst with outputs >= 1, every M, every P >= every peak, every feasible S: Coq svf_upper_bound for the "
    "Coq SVF (strict head-of-line, forward-looking check, ties by position; svf_sim_eq ties it to the step-by-step "
    "process, the differential test to the simulator), from lemmaA2_summed with lemmaA2_summed_pairs and "
    "opt_mean_busy (6M TEL(S) >= 6 sum_{i<j} min(v_i, v_j) + 3 sum v + 2M sum o, every feasible S); "
    "svf_upper_bound_half: TEL(SVF) <= 4 TEL(S) at M = 2P; sympy: the algebra of the mean-busy-time bound, the "
    "composition in both cases, the ratio form, the comparison with Thm. 3.2 and the values; exhaustively on small "
    "bursts against the exact optimum (both tie orders)",
    "not a claim of the papers; the growth constant 2 (Lemma A.2's charge) is not lowered, so the targets R(1/2) "
    "<= 3 and a constant below 2 as alpha -> 1 are not reached by this method",
    ("derivation", "exhaustive:svf-upper", *(f"coq:{name}" for name in (*STEPS, *WHOLE)), *SIMULATES),
    ("kong.lemmaA.2",), coq=STEPS, coq_whole=WHOLE, coq_constant=("svf_upper_bound", "ratio", "P = alpha * M"),
    order=("ours", 115))

alpha, beta = sp.symbols("alpha beta", positive=True)
M, P, d = sp.symbols("M P d", positive=True)  # d = M - P
g, h, u = sp.symbols("g h u", nonnegative=True)
X, O, V, Q, T = sp.symbols("X O V Q T_S", nonnegative=True)  # sum x (SVF), sum o, sum v, sum_{i<j} min, TEL(S)
s, x = sp.symbols("s x", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
S, Y, a, H = sp.symbols("S Y a H", nonnegative=True)  # one profile: sum, moment, last value, length
W, v, Vp = sp.symbols("W v V_prev", positive=True)  # weights: W = w v; the prefix V_{k-1}
THIRD = sp.Rational(1, 3)


def ratio_bound(a_value=alpha):
    """``R(alpha) = max(2/(1 - alpha), (7 - 3 alpha)/(3(1 - alpha)))``; at a number, its value."""
    upper, lower = 2 / (1 - a_value), (7 - 3 * a_value) / (3 * (1 - a_value))
    if a_value is alpha:
        return sp.Piecewise((lower, alpha < THIRD), (upper, True))
    return sp.nsimplify(max(upper, lower))


def thm32(a_value=alpha):
    """Thm. 3.2's ``1 + 2/(1 - alpha)``."""
    return 1 + 2 / (1 - a_value)


VALUES = (sp.Rational(1, 4), sp.Rational(1, 2), sp.Rational(3, 4), sp.Rational(9, 10))


def values_table() -> list[tuple[sp.Rational, sp.Expr, sp.Expr]]:
    """``(alpha, Thm. 3.2, this bound)`` at alpha = 1/4, 1/2, 3/4, 9/10 (what the issue asks to show)."""
    return [(value, thm32(value), ratio_bound(value)) for value in VALUES]


def mean_busy_steps() -> list[Step]:
    """The optimum's side: opt_mean_busy, its algebra checked here, its combinatorics by Coq."""
    vol = s * o + (o**2 + o) / 2
    e = s * o**2 + o * (o + 1) * (2 * o + 1) / 6
    covered = ("coq:opt_mean_busy", "exhaustive:svf-upper")
    return [
        Step.inequality("(a) one step more of a profile U <= M: (S + a)^2 <= M (Y + (2H + 1) a) from S^2 <= M Y, "
                        "S <= H M, a <= M", M * (Y + (2 * H + 1) * a), ">=", (S + a)**2,
                        "difference (M Y - S^2) + 2a (H M - S) + a (M - a)",
                        certificate=[M * Y - S**2, 2 * a * (H * M - S), a * (M - a)],
                        premises=[M * Y - S**2, H * M - S, M - a]),
        Step.unchecked("(b) every set A of requests in S: M sum_{j in A} y_j >= (sum_{j in A} v_j)^2, y_j = sum_t "
                       "(2t - 1) u_j(t)", "step (a) on the profile of A (at most M at every step), by induction on t",
                       "a statement about every feasible schedule: Coq's opt_mean_busy (square_moment, subset_square)",
                       covered_by=covered),
        Step.identity("(c) by parts: with w_k v_k = W and V_k = V_{k-1} + v_k, w_k (V_k^2 - V_{k-1}^2) = W (V_k + "
                      "V_{k-1}); summed over the volumes sorted ascending, W (2Q + V)",
                      (W / v) * ((Vp + v)**2 - Vp**2), W * ((Vp + v) + Vp), "difference of squares"),
        Step.unchecked("(c) M sum_j w_j y_j >= sum_k w_k (V_k^2 - V_{k-1}^2) for non-increasing w_k = W / v_k",
                       "Abel summation of (b) over the prefixes of the volume order",
                       "a statement about every feasible schedule: Coq's opt_mean_busy (abel, weights W / v with W "
                       "the product of the volumes)", covered_by=covered),
        Step.identity("(d) the moment of a request started at x: y + e = 2 v C, C = x + o, e = s o^2 + o(o + 1)(2o + "
                      "1)/6", sp.Sum((2 * (x + i) - 1) * (s + i), (i, 1, o)) + e, 2 * vol * (x + o),
                      "sums of i and i^2 (Coq: moment_identity)"),
        Step.inequality("(d) e >= 2 o v / 3: the completion lies o/3 or more after the mean busy time",
                        3 * e, ">=", 2 * o * vol, "difference s o^2 + o(o + 1)/2",
                        certificate=[s * o**2, o * (o + 1) / 2]),
        Step.unchecked("6M TEL(S) >= 6Q + 3V + 2M sum o for every feasible S (outputs >= 1)",
                       "(d) weighted by w_j = W / v_j and summed, with (c); divided by 2W",
                       "a statement about every feasible schedule: Coq's opt_mean_busy", covered_by=covered),
    ]


def composition_steps() -> list[Step]:
    """SVF's side (Lemma A.2 summed) and the composition in the two cases of 3P against M."""

    def premises(big_m, tel):  # Lemma A.2 summed (pairs form), opt_mean_busy; with M - P = big_m - P
        return 2 * Q - (big_m - P) * X, 6 * big_m * tel - 6 * Q - 3 * V - 2 * big_m * O

    waits_a, busy_a = premises(3 * P - g, T)  # alpha >= 1/3: M = 3P - g
    waits_b, busy_b = premises(3 * P + g, O + h)  # alpha < 1/3: M = 3P + g, TEL(S) = sum o + h
    return [
        Step.unchecked("Lemma A.2 summed: (M - P) sum_i x_i <= 2 sum_{i<j} min(v_i, v_j) = 2Q; TEL(SVF) = sum x + "
                       "sum o (burst)", "kong.lemmaA.2 (its own row), the pairs form",
                       "a statement about SVF's trace for every instance: Coq's lemmaA2_summed and "
                       "lemmaA2_summed_pairs", covered_by=("coq:lemmaA2_summed", "coq:lemmaA2_summed_pairs",
                                                           "exhaustive:svf-upper")),
        Step.inequality("alpha >= 1/3 (M = 3P - g, g >= 0): 3(M - P) TEL(SVF) <= 6M TEL(S)",
                        6 * (3 * P - g) * T, ">=", 3 * (2 * P - g) * (X + O),
                        "difference 3(2Q - (M - P) sum x) + (6M TEL(S) - 6Q - 3V - 2M sum o) + 3V + g sum o",
                        certificate=[waits_a, waits_a, waits_a, busy_a, 3 * V, g * O], premises=[waits_a, busy_a]),
        Step.inequality("alpha < 1/3 (M = 3P + g, g >= 0; TEL(S) = sum o + h, h >= 0): 3(M - P) TEL(SVF) <= (7M - "
                        "3P) TEL(S)", (7 * (3 * P + g) - 3 * P) * (O + h), ">=", 3 * (2 * P + g) * (X + O),
                        "difference 3(2Q - (M - P) sum x) + (6M TEL(S) - 6Q - 3V - 2M sum o) + 3V + g h",
                        certificate=[waits_b, waits_b, waits_b, busy_b, 3 * V, g * h], premises=[waits_b, busy_b]),
        Step.identity("both cases in one: 6M + max(0, M - 3P) is 6M for 3P >= M and 7M - 3P below",
                      6 * M + sp.Max(0, M - 3 * P), 7 * M - 3 * P, "M - 3P = g >= 0",
                      substitutions={M: 3 * P + g}),
    ]


def ratio_steps() -> list[Step]:
    """The ratio form, against Thm. 3.2, the values and the limits."""
    upper, lower = 2 / (1 - alpha), (7 - 3 * alpha) / (3 * (1 - alpha))
    steps = [
        Step.identity("ratio form, alpha >= 1/3: 2M/(M - P) = 2/(1 - alpha), alpha = P/M", 2 * M / (M - P),
                      upper.subs(alpha, P / M), "divide by M"),
        Step.identity("ratio form, alpha < 1/3: (7M - 3P)/(3(M - P)) = (7 - 3 alpha)/(3(1 - alpha))",
                      (7 * M - 3 * P) / (3 * (M - P)), lower.subs(alpha, P / M), "divide by M"),
        Step.inequality("the two branches meet at alpha = 1/3 and the larger is the bound: 2/(1 - alpha) >= (7 - 3 "
                        "alpha)/(3(1 - alpha)) for alpha >= 1/3 (alpha = 1 - 2/(3(1 + u)), u >= 0)", upper, ">=",
                        lower, "difference (3 alpha - 1)/(3(1 - alpha)) = u", certificate=[u],
                        substitutions={alpha: 1 - 2 / (3 * (1 + u))}),
        Step.inequality("strictly below Thm. 3.2 for alpha >= 1/3: by 1", thm32(), ">", upper, "(3 - alpha - 2)/(1 - "
                        "alpha) = 1", certificate=[sp.Integer(1)], substitutions={alpha: 1 - beta}),
        Step.inequality("strictly below Thm. 3.2 for alpha < 1/3: by 2/(3(1 - alpha))", thm32(), ">", lower,
                        "(9 - 3 alpha - 7 + 3 alpha)/(3(1 - alpha))", certificate=[2 / (3 * beta)],
                        substitutions={alpha: 1 - beta}),
    ]
    for value, before, after in values_table():
        steps.append(Step.substitution(f"alpha = {value}: {after} (Thm. 3.2: {before})", ratio_bound(), after,
                                       {alpha: value}, f"the {'first' if value < THIRD else 'second'} branch"))
    steps += [
        Step.limit("growth as alpha -> 1: (1 - alpha) R(alpha) -> 2, the constant of Lemma A.2 (not lowered)",
                   (1 - alpha) * upper, alpha, 1, 2, "2/(1 - alpha) times (1 - alpha)", direction="-"),
        Step.limit("as alpha -> 0: R -> 7/3 (Thm. 3.2: 3; the lower side: 2, svf.heavy_limit)", lower, alpha, 0,
                   sp.Rational(7, 3), "(7 - 0)/3", direction="+"),
    ]
    return steps


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id, f"ours; {KONG_PAPER}",
        "Thm. 3.2 with Prop. 3.1 replaced by the mean-busy-time bound",
        CLAIM.statement, bound=ratio_bound(),
        statement_latex=r"For every burst with $o_i \ge 1$, every $P \ge \max_i (s_i + o_i)$ and every feasible "
                        r"schedule $S$: $3(M - P)\,\mathrm{TEL}(\mathrm{SVF}) \le (6M + \max(0, M - 3P))\,"
                        r"\mathrm{TEL}(S)$; with $\alpha = P/M < 1$: $\mathrm{TEL}(\mathrm{SVF})/\mathrm{OPT} \le "
                        r"\max\bigl(\frac{2}{1-\alpha}, \frac{7 - 3\alpha}{3(1-\alpha)}\bigr) < 1 + "
                        r"\frac{2}{1-\alpha}$; $4$ at $\alpha = 1/2$.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX, outside=OUTSIDE_BURST),
                    Hypothesis("H2", "every output o_i >= 1, every peak s_i + o_i <= P, S a feasible schedule of the "
                               "same burst",
                               latex=r"every output $o_i \ge 1$, every peak $s_i + o_i \le P$, $S$ a feasible "
                                     r"schedule of the same burst",
                               outside="fails: S infeasible, M = 2, P = 1, 20 requests (0, 1) all at step 0: "
                                       "3(M - P) TEL(SVF) = 330 > (6M + max(0, M - 3P)) TEL(S) = 240 (o_i >= 1 holds "
                                       "in the package's model: a Request refuses 0)"),
                    Hypothesis("H3", "for the ratio form only: alpha = P/M < 1", latex=r"for the ratio form only: "
                               r"$\alpha = P/M < 1$", outside=OUTSIDE_RATIO)),
        steps=(*mean_busy_steps(), *composition_steps(), *ratio_steps()),
        depends_on=("kong.lemmaA.2",),
        notes="Coq proves the whole inequality (svf_upper_bound, SvfUpper.v) for every instance. The optimum's side "
              "(opt_mean_busy) is a bound of its own on every feasible schedule, stronger than Prop. 3.1 whenever "
              "alpha <= 2/3 (it trades V/2 for (M/3) sum o). The growth constant 2 is Lemma A.2's: the coefficient "
              "of sum_{i<j} min(v_i, v_j) is 2/(M - P) on SVF's side and 1/M on the optimum's.",
    )
