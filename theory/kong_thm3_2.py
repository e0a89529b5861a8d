"""``kong.thm3.2``: SVF is (1 + 2/(1 - alpha))-competitive (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.2).

Statement (burst arrivals, strict SVF with the forward-looking check, ``alpha = P/M < 1``
with ``P = max_i (s_i + o_i)``):

.. math::  TEL(SVF) \\le \\Bigl(1 + \\frac{2}{1-\\alpha}\\Bigr) TEL(OPT),
   \\qquad\\text{equivalently}\\qquad (M - P)\\,TEL(SVF) \\le (3M - P)\\,TEL(OPT),

so the ratio is 5 at ``alpha = 1/2`` and tends to 3 as ``alpha -> 0``.

Proof as composition (checked by sympy): with ``Wsum = sum_j W_j``, ``O = sum_j o_j``,
``V = sum_j v_j``, ``Q = sum_{a<b} min(v_a, v_b)``:
``TEL(SVF) = Wsum + O`` (burst); Lemma A.2: ``(1 - alpha) M Wsum <= 2 Q`` (under SVF the
pairs ``i before j`` have ``v_i = min``); Prop. 3.1: ``M TEL(OPT) >= V + Q``; and
``TEL(OPT) >= O``. The certificate is
``(1 + 2/beta) OPT - Wsum - O = (h1 + 2 h2 + 2 V)/(beta M) + h3`` with the slacks of the three
hypotheses and ``beta = 1 - alpha``. The integer form, the value 5 and the limit 3 are
checked too.

Example
-------
>>> derivation().check().status
'proved relative'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "kong.thm3.2", f"{KONG} Thm. 3.2", "TEL(SVF) <= (1 + 2/(1-alpha)) TEL(OPT), burst; 5 at alpha = 1/2",
    "composition of Lemma A.2 (summed) and Prop. 3.1 (sympy; Z3 and cvc5 over symbolic reals and integers); "
    "exhaustively (M-P) TEL(SVF) <= (3M-P) TEL(OPT) with exact OPT in every tie-break order",
    "strict SVF, exact lengths, discrete steps; through its lemmas' bounded checks for n <= N, and for every "
    "n, M and P < M in Coq for the Coq SVF (thm32_svf_competitive), tied to ours by the differential test",
    ("derivation", "z3:thm3_2_composition", "z3:thm3_2_composition_integer", "exhaustive:thm3.2",
     "consts:thm3.2", "coq:thm32_svf_competitive", "coq:svf_feasible", "coq:svf_sim_eq",
     "coq:svf_engine_eq", "coq:thm32_svf_feasible", "coq:tel_finish_times", *SIMULATES),
    ("kong.lemmaA.2", "kong.prop3.1"),
    coq=("svf_feasible", "svf_engine_eq"),
    coq_whole=("thm32_svf_competitive", "thm32_svf_feasible", "svf_sim_eq", "tel_finish_times"),
    coq_constant=("thm32_svf_competitive", "ratio", "P = alpha * M"), order=("kong", 50), exhaustive_variants=("svf",))

M = sp.Symbol("M", positive=True)
P = sp.Symbol("P", positive=True)
d = sp.Symbol("d", positive=True)  # M - P
alpha = sp.Symbol("alpha", positive=True)
beta = sp.Symbol("beta", positive=True)
R = sp.Symbol("R", positive=True)
Wsum, O, V, Q, OPT, SVF = sp.symbols("W_sum O V Q OPT TEL_SVF", nonnegative=True)
g = sp.Symbol("g", nonnegative=True)
h1, h2, h3 = sp.symbols("h_1 h_2 h_3", nonnegative=True)


def ratio(a=alpha):
    """The competitive ratio ``1 + 2/(1 - alpha)``."""
    return 1 + 2 / (1 - a)


def composition_step(factor=1) -> Step:
    """TEL <= (1 + 2 factor/(1 - alpha)) OPT from the three hypotheses (factor = 1 for SVF)."""
    bound = (1 + 2 * factor / beta) * OPT
    return Step.inequality(
        f"composition: Wsum + O <= (1 + 2{'' if factor == 1 else ' R'}/(1 - alpha)) OPT",
        bound, ">=", Wsum + O,
        f"with R = {factor}: substitute Wsum = (2 R Q - h1)/(beta M), Q = M OPT - V - h2, O = OPT - h3; the "
        "difference is (h1 + 2 R h2 + 2 R V)/(beta M) + h3",
        certificate=[h1 / (beta * M), 2 * factor * h2 / (beta * M), 2 * factor * V / (beta * M), h3],
        substitutions={Wsum: (2 * factor * (M * OPT - V - h2) - h1) / (beta * M), O: OPT - h3})


def derivation(ratio_formula=None) -> Derivation:
    """``ratio_formula`` (in alpha) replaces ``1 + 2/(1 - alpha)`` (tests break it on purpose)."""
    rho = ratio_formula if ratio_formula is not None else ratio()
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Theorem 3.2",
        "TEL(SVF) <= (1 + 2/(1 - alpha)) TEL(OPT) for alpha = max peak / M < 1; integer form "
        "(M - P) TEL(SVF) <= (3M - P) TEL(OPT); 5 at alpha = 1/2; tends to 3 as alpha -> 0",
        bound=rho,
        statement_latex=r"$\mathrm{TEL}(\mathrm{SVF}) \le \bigl(1 + "
                        r"\frac{2}{1-\alpha}\bigr)\,\mathrm{TEL}(\mathrm{OPT})$ for $\alpha = \max_i p_i / M < 1$; "
                        r"in integer form $(M - P)\,\mathrm{TEL}(\mathrm{SVF}) \le (3M - "
                        r"P)\,\mathrm{TEL}(\mathrm{OPT})$; the factor is $5$ at $\alpha = 1/2$ and tends to $3$ as "
                        r"$\alpha \to 0$.",
        hypotheses=(
            Hypothesis("H1", "burst arrivals, so TEL(SVF) = sum_j (W_j + o_j) = Wsum + O",
                       latex=r"burst arrivals, so $\mathrm{TEL}(\mathrm{SVF}) = \sum_j (W_j + o_j) = W_{\Sigma} + O$",
                       outside="none known: a seeded search of arrival instances (up to 5 requests, "
                               "exact OPT) reached (M - P) TEL(SVF) <= 0.29 (3M - P) TEL(OPT); every "
                               "online algorithm is Omega(sqrt n) under adversarial arrivals "
                               "(jaillet.thm4.1) only as alpha -> 1, where this bound diverges too"),
            Hypothesis("H2", "kong.lemmaA.2 summed: (1 - alpha) M Wsum <= 2 Q (slack h1 >= 0)",
                       latex=r"\texttt{kong.lemmaA.2} summed: $(1-\alpha) M W_{\Sigma} \le 2Q$ (slack $h_1 \ge 0$)",
                       outside="none separately: H2 is kong.lemmaA.2 summed, proved from the model in "
                               "its own row (its hypotheses, bursts and strict SVF, are the ones that "
                               "can fail)"),
            Hypothesis("H3", "kong.prop3.1 with its identity: M OPT >= V + Q (slack h2 >= 0)",
                       latex=r"\texttt{kong.prop3.1} with its identity: $M \cdot \mathrm{OPT} \ge V + Q$ (slack $h_2 "
                             r"\ge 0$)",
                       outside="none separately: H3 is kong.prop3.1, proved from the model in its own "
                               "row (bursts, feasibility)"),
            Hypothesis("H4", "every request runs o_i steps: OPT >= O (slack h3 >= 0); V >= 0",
                       latex=r"every request runs $o_i$ steps: $\mathrm{OPT} \ge O$ (slack $h_3 \ge 0$); $V \ge 0$",
                       outside="none: every request runs o_i >= 1 steps in the model"),
            Hypothesis("H5", "alpha = P/M < 1, written alpha = 1 - beta with beta > 0, or M = P + d with d > 0",
                       latex=r"$\alpha = P/M < 1$, written $\alpha = 1 - \beta$ with $\beta > 0$, or $M = P + d$ "
                             r"with $d > 0$",
                       outside="none: at alpha = 1 the integer form reads 0 <= 2M TEL(OPT), true, and "
                               "the real form's bound is infinite"),
        ),
        steps=(
            Step.identity("the ratio in closed form", rho, (3 - alpha) / (1 - alpha),
                          "1 + 2/(1 - alpha) = (1 - alpha + 2)/(1 - alpha)"),
            composition_step(),
            Step.identity("with alpha = 1 - beta the bound is the ratio", (1 + 2 / beta),
                          rho.subs(alpha, 1 - beta), "substitution beta = 1 - alpha"),
            Step.identity("integer form of the ratio: alpha = P/M", rho.subs(alpha, P / M), (3 * M - P) / (M - P),
                          "multiply numerator and denominator by M"),
            Step.inequality(
                "integer form: (M - P) TEL(SVF) <= (3M - P) TEL(OPT)",
                (3 * M - P) * OPT, ">=", (M - P) * SVF,
                "(3M - P) OPT - (M - P) SVF = d (ratio OPT - SVF) with d = M - P > 0 and ratio OPT - SVF = g >= 0 "
                "(step 2)",
                certificate=[d * g], substitutions={M: P + d, SVF: ((3 * (P + d) - P) * OPT / d) - g}),
            Step.substitution("corollary: 5 at alpha = 1/2", rho, 5, {alpha: sp.Rational(1, 2)},
                              "1 + 2/(1/2) = 5"),
            Step.limit("corollary: tends to 3 as alpha -> 0", rho, alpha, 0, 3, "1 + 2/1 = 3", direction="+"),
            Step.limit("the bound degenerates as alpha -> 1", rho, alpha, 1, sp.oo,
                       "2/(1 - alpha) -> infinity: the hypothesis alpha < 1 is needed", direction="-"),
            Step.inequality("the ratio is increasing in alpha", sp.diff(rho, alpha), ">", 0,
                            "derivative 2/(1 - alpha)^2 > 0", certificate=[2 / beta**2],
                            substitutions={alpha: 1 - beta}),
        ),
        depends_on=("kong.lemmaA.2", "kong.prop3.1"),
        notes="Given Lemma A.2 and Prop. 3.1 (their own ledger rows), every step is checked. The integer "
              "form is the same bound with alpha = P/M cleared of denominators.",
    )
