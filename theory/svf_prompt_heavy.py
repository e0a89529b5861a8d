"""``svf.prompt_heavy``: a constant below 2 in front of ``1/(1 - alpha)`` for prompt-heavy bursts (ours, from the
proof of Thm. 3.2 of Kong, Qi, Ye, Zhou, arXiv 2606.22327).

The 2 of Thm. 3.2 (and of ``svf.sharp_bound``) comes from one inequality: a request active for its ``o``
steps holds at most its peak ``p = s + o``, and ``p o <= 2 v``. When every prompt is at least ``lambda = a/b``
times its output (``a o <= b s``), ``(2a + b) p o <= 2 (a + b) v`` (the difference is ``o (b s - a o) +
(a + b) o``), so the same argument gives (``verify/coq/SvfSharp.v``, ``svf_prompt_heavy_bound``), for every
feasible ``S``,

.. math::  (2a + b)(M - P)\\,TEL(SVF) \\le 2(a + b)\\,M\\,TEL(S) + (2a + b)(M - P)\\sum_i o_i,
   \\qquad \\frac{TEL(SVF)}{OPT} \\le \\frac{c_\\lambda}{1 - \\alpha} + \\frac{\\sum_i o_i}{OPT},
   \\quad c_\\lambda = \\frac{2(\\lambda + 1)}{2\\lambda + 1},

``c_0 = 2`` (``svf.sharp_bound``), ``c_1 = 4/3``, ``c_lambda -> 1`` as ``lambda -> infinity``. The worst
bursts for the constant 2 (svf-triangles, ``s = 0``) are outside every class ``lambda > 0``. How close the
class's worst ratio comes to ``c_lambda`` is not proved here: identical requests ``(lambda o, o)`` started in
batches reach ``2(s + o)/(2s + o + 1) -> c_lambda`` in the fluid limit (``tests/test_svf_frontier.py``
certifies finite members).

Example
-------
>>> derivation().check().status
'unknown'
>>> constant().subs(lam, 1)
4/3
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
    OUTSIDE_RATIO,
    PROP31_LATEX,
    SVF_MEANING,
    coq_methods,
)

CLAIM = Claim(
    "svf.prompt_heavy", f"ours; {KONG} Lemma A.2, Prop. 3.1, Thm. 3.2",
    "bursts with a o_i <= b s_i for every i (prompt >= lambda = a/b times the output), strict SVF with the "
    "forward-looking check, P >= every peak: (2a + b)(M - P) TEL(SVF) <= 2(a + b) M TEL(S) + (2a + b)(M - P) "
    "sum(o) for every feasible S; with b >= 1 and alpha = P/M < 1, TEL(SVF)/OPT <= c/(1 - alpha) + sum(o)/OPT, "
    "c = 2(lambda + 1)/(2 lambda + 1) < 2 for lambda > 0 (4/3 at lambda = 1)",
    "every burst with a o_i <= b s_i (any naturals a, b), every M, every P >= every peak, every feasible S: Coq "
    "svf_prompt_heavy_bound for the Coq SVF; sympy: (2a + b) p o <= 2(a + b) v under the class hypothesis, the "
    "constant and its values; exhaustively on the small bursts of the classes (a, b) = (0, 1), (1, 2), (1, 1), "
    "(2, 1) against the exact optimum",
    "not a claim of the papers; an upper bound for the class only (how close its worst case comes is not proved)",
    ("derivation", "exhaustive:svf-sharp", *coq_methods("svf_head_charge_po", "svf_prompt_heavy_bound", *SVF_MEANING),
     *SIMULATES), ("kong.prop3.1",),
    coq=("svf_head_charge_po",), coq_whole=("svf_prompt_heavy_bound", *SVF_MEANING),
    coq_constant=("svf_prompt_heavy_bound", "ratio", "P = alpha * M", "a = lambda * b"), order=("ours", 140))

s = sp.Symbol("s", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
a = sp.Symbol("a", integer=True, nonnegative=True)
b = sp.Symbol("b", integer=True, positive=True)
w = sp.Symbol("w", nonnegative=True)  # b s - a o
lam = sp.Symbol("lambda", nonnegative=True)
alpha = sp.Symbol("alpha", positive=True)
M, d = sp.symbols("M d", positive=True)  # d = M - P
C, W, O, Pi, T = sp.symbols("C W O Pi T_S", nonnegative=True)


def constant(x=lam):
    """``c_lambda = 2 (lambda + 1)/(2 lambda + 1)``."""
    return 2 * (x + 1) / (2 * x + 1)


def derivation() -> Derivation:
    v = s * o + (o**2 + o) / 2
    prop = M * T - Pi
    pairs = 2 * (a + b) * Pi - (2 * a + b) * C  # step 3: (2a + b) C <= 2 (a + b) Pi
    waits = C - d * W  # step 1: C >= (M - P) W
    return Derivation(
        CLAIM.id, f"ours; {KONG_PAPER}", "Thm. 3.2's proof with p o at most c v on a class",
        CLAIM.statement, bound=constant() / (1 - alpha) + sp.Symbol("omega", nonnegative=True),
        statement_latex=r"For bursts with $a o_i \le b s_i$ for every $i$: "
                        r"$(2a + b)(M - P)\,\mathrm{TEL}(\mathrm{SVF}) \le 2(a + b) M\,\mathrm{TEL}(S) + "
                        r"(2a + b)(M - P)\sum_i o_i$ for every feasible $S$; so "
                        r"$\mathrm{TEL}(\mathrm{SVF})/\mathrm{OPT} \le c_\lambda/(1 - \alpha) + "
                        r"\sum_i o_i/\mathrm{OPT}$, "
                        r"$c_\lambda = 2(\lambda + 1)/(2\lambda + 1) < 2$ for $\lambda = a/b > 0$.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX, outside=OUTSIDE_BURST),
                    Hypothesis("H2", "a o_i <= b s_i for every request (a, b naturals, b >= 1 for the ratio form); "
                               "every peak <= P; S a feasible schedule of the burst",
                               latex=r"$a\,o_i \le b\,s_i$ for every request ($a, b$ naturals, $b \ge 1$ for the "
                                     r"ratio form); every peak $\le P$; $S$ a feasible schedule of the burst",
                               outside="fails: (a, b) = (1, 1) and svf-triangles q = 8 (640 requests (0, 15), prompt "
                                       "0 < output, M = 120, P = 15; S one start per step, feasible): 3(M - P) "
                                       "TEL(SVF) = 122,472,000 > 4M TEL(S) + 3(M - P) sum o = 105,782,400"),
                    Hypothesis("H3", "kong.prop3.1: sum_k P_k <= M TEL(S)", latex=PROP31_LATEX, outside=OUTSIDE_PROP31),
                    Hypothesis("H4", "for the ratio form only: alpha = P/M < 1",
                               latex=r"for the ratio form only: $\alpha = P/M < 1$", outside=OUTSIDE_RATIO)),
        steps=(
            Step.unchecked("the charges C of the waiting steps (Lemma A.2 with the head, svf.lemmaA2.head): (M - P) "
                           "sum x <= C <= sum over the pairs (j started before k) of p_j o_j",
                           "every blocked head has peak <= P; whoever is active while k waits started before k",
                           "Coq's svf_head_charge_po and svf_prompt_heavy_bound, every instance",
                           covered_by=("coq:svf_head_charge_po", "coq:svf_prompt_heavy_bound", "exhaustive:svf-sharp")),
            Step.inequality("under a o <= b s: 2 (a + b) v >= (2a + b) p o", 2 * (a + b) * v, ">=",
                            (2 * a + b) * (s + o) * o,
                            "difference o (b s - a o) + (a + b) o; write b s = a o + w, w >= 0",
                            certificate=[o * w, a * o, b * o], substitutions={s: (a * o + w) / b}),
            Step.unchecked("so (2a + b) C <= 2 (a + b) sum_k P_k",
                           "each pair counts once, with its smaller volume (starts and volumes never decrease in SVF's "
                           "order), and step 2 for every request", "Coq's svf_prompt_heavy_bound, every instance",
                           covered_by=("coq:svf_prompt_heavy_bound", "exhaustive:svf-sharp")),
            Step.inequality("with Prop. 3.1: (2a + b)(M - P) TEL(SVF) <= 2(a + b) M TEL(S) + (2a + b)(M - P) sum o",
                            2 * (a + b) * M * T + (2 * a + b) * d * O, ">=", (2 * a + b) * d * (W + O),
                            "difference 2(a + b)(M TEL(S) - Pi) + (2(a + b) Pi - (2a + b) C) + (2a + b)(C - (M - P) "
                            "sum x)", certificate=[2 * a * prop, 2 * b * prop, pairs, 2 * a * waits, b * waits],
                            premises=[prop, pairs, waits]),
            Step.identity("the ratio form with lambda = a/b: 2(a + b) M/((2a + b)(M - P)) = c_lambda/(1 - alpha)",
                          2 * (a + b) / ((2 * a + b) * (1 - alpha)), constant() / (1 - alpha),
                          "divide by b", substitutions={a: lam * b}),
            Step.inequality("c_lambda < 2 for lambda > 0", 2, ">", constant(),
                            "difference 2 lambda/(2 lambda + 1)", certificate=[2 * lam / (2 * lam + 1)],
                            substitutions={lam: sp.Symbol("l", positive=True)}),
            Step.substitution("c_0 = 2: svf.sharp_bound", constant(), 2, {lam: 0}, "2 * 1/1"),
            Step.substitution("c_1 = 4/3 (prompt >= output)", constant(), sp.Rational(4, 3), {lam: 1}, "2 * 2/3"),
            Step.limit("c_lambda -> 1 as lambda -> infinity", constant(), lam, sp.oo, 1, "2 lambda/(2 lambda)"),
        ),
        depends_on=("kong.prop3.1",),
        notes="Coq proves the whole inequality (svf_prompt_heavy_bound, SvfSharp.v) for every instance of the class. "
              "The svf-triangles (s = 0) that make the constant 2 sharp for all bursts (svf.constant_two) are not in "
              "any class with lambda > 0.",
    )
