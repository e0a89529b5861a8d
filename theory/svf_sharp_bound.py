"""``svf.sharp_bound``, ``svf.constant_two``: Thm. 3.2 of Kong, Qi, Ye, Zhou (arXiv 2606.22327) without its
``+ 1``, and why its constant 2 cannot be lowered.

Thm. 3.2's proof bounds the waiting: ``(M - P) sum_k x_k <= 2 sum_k P_k`` (Lemma A.2 summed, in the form Coq
proves, ``svf_starts_bound``) and ``sum_k P_k <= M TEL(S)`` for every feasible ``S`` (Prop. 3.1); its last step
adds ``(M - P) sum_k o_k <= (M - P) TEL(S)``. Leaving that step out gives, for every burst and every feasible
``S`` (``verify/coq/SvfSharp.v``, ``svf_sharp_bound``),

.. math::  (M - P)\\,TEL(SVF) \\le 2M\\,TEL(S) + (M - P) \\sum_i o_i,
   \\qquad \\frac{TEL(SVF)}{OPT} \\le \\frac{2}{1 - \\alpha} + \\frac{\\sum_i o_i}{OPT},

which is at most Thm. 3.2's ``1 + 2/(1 - alpha)`` and smaller by ``1 - sum(o)/OPT``: on heavy bursts
(``sum(o)`` small against ``OPT``) SVF is ``2/(1 - alpha) + o(1)``-competitive (``svf.heavy_limit``). It improves
Thm. 3.2 in the additive term only: over all bursts ``sum(o)/OPT`` reaches 1 (one request), so as a bound on the
ratio it is Thm. 3.2's; ``svf.upper_bound`` lowers the ratio itself.

**The 2 is sharp in that inequality** (``svf.constant_two``, ``svf_sharp_bound_tight``; the coefficient of
``M TEL(S)``, not SVF's ratio ``R(alpha)``): for every ``c = a/b < 2`` the
svf-triangles (``n`` requests ``(0, p)``, ``p = 2q - 1``, ``M = qp``, ``verify/coq/SvfTriangles.v``) with
``q = 4b`` and ``n = 160 b^2`` have ``b (M - P) TEL(SVF) > a M TEL(S) + b (M - P) sum(o)`` for the feasible
schedule ``S`` that starts one request per step. So no bound of the form ``TEL(SVF)/OPT <= c/(1 - alpha) +
sum(o)/OPT`` with ``c < 2`` holds for all bursts; a bound ``c/(1 - alpha) + K`` with a constant ``K`` is not
excluded by this family.

Example
-------
>>> derivation().check().status
'unknown'
>>> sorted(DERIVATIONS)
['svf.constant_two', 'svf.sharp_bound']
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

BURST_SVF = ("burst arrivals (every a_i = 0); strict head-of-line SVF with the forward-looking check, ties by "
             "position; exact output lengths; integer steps")
# what happens outside the premises the four upper-side rows share (Hypothesis.outside)
BURST_SVF_LATEX = (r"burst arrivals (every $a_i = 0$); strict head-of-line SVF with the forward-looking check, ties "
                   r"by position; exact output lengths; integer steps")
PROP31_LATEX = r"kong.prop3.1: $\sum_k P_k \le M\,\mathrm{TEL}(S)$"
OUTSIDE_BURST = ("none known: H1 names the arrivals and the policy the Coq theorems are about; with arrivals the "
                 "online form is svf.online.lemmaA2's, and no instance outside H1 violating these bounds was computed")
OUTSIDE_PROP31 = ("none separately: kong.prop3.1 is proved from the model in its own row (bursts, feasibility are the "
                  "premises that can fail)")
OUTSIDE_RATIO = "none: at alpha = 1 the integer form's left side is 0 and the ratio form's bound is infinite"
# what makes an upper bound on TEL(SVF) a statement about SVF: the Coq svf is the step-by-step process
# (svf_sim_eq), its schedule is feasible, and tel is the sum of the finishing steps x + o
SVF_MEANING = ("svf_feasible", "svf_sim_eq", "tel_finish_times")
TIGHT = ("svf_sharp_bound_tight", "svf_sim_eq", "tel_finish_times")  # svf.constant_two as a whole
STAIRS = ("svf_triangles_tel", "triangles_staggered_tel", "triangles_staggered_feasible")  # its derivation's steps


def coq_methods(*theorems: str) -> tuple[str, ...]:
    """The ledger methods ``coq:THEOREM`` of the theorems a row cites."""
    return tuple(f"coq:{name}" for name in theorems)

CLAIMS = (
    Claim("svf.sharp_bound", f"ours; {KONG} Lemma A.2, Prop. 3.1, Thm. 3.2",
          "bursts, strict SVF with the forward-looking check: (M - P) TEL(SVF) <= 2M TEL(S) + (M - P) sum(o) for every "
          "feasible S and every P >= every peak; with alpha = P/M < 1, TEL(SVF)/OPT <= 2/(1 - alpha) + sum(o)/OPT <= "
          "1 + 2/(1 - alpha); sharper than Thm. 3.2 in the additive term only ((M - P) sum(o) in place of (M - P) "
          "TEL(S)): over all bursts sum(o)/OPT reaches 1, so as a bound on the ratio it is Thm. 3.2's (the ratio "
          "bound below it is svf.upper_bound)",
          "every burst, every M, every P >= every peak (no P < M needed), every feasible schedule S: Coq "
          "svf_sharp_bound for the Coq SVF (strict head-of-line, forward-looking check, ties by position; "
          "svf_sim_eq ties it to the step-by-step process, the differential test to the simulator); sympy: the "
          "composition of Lemma A.2 summed (Coq's form, svf_starts_bound) with Prop. 3.1, and the ratio form at "
          "alpha = P/M < 1; exhaustively against the exact optimum on small bursts",
          "not a claim of the papers: Thm. 3.2's proof without its last step (sum(o) <= OPT)",
          ("derivation", "exhaustive:svf-sharp", *coq_methods("svf_starts_bound", "svf_sharp_bound", *SVF_MEANING),
           *SIMULATES), ("kong.prop3.1",),
          coq=("svf_starts_bound",), coq_whole=("svf_sharp_bound", *SVF_MEANING),
          coq_constant=("svf_sharp_bound", "ratio", "P = alpha * M"), order=("ours", 110)),
    Claim("svf.constant_two", f"ours (family svf-triangles); {KONG} Thm. 3.2",
          "the coefficient 2 of M TEL(S) in svf.sharp_bound's inequality cannot be lowered (strict SVF with the "
          "forward-looking check): for every c = a/b < 2 (naturals) some burst, P its largest peak, and some feasible "
          "S have b (M - P) TEL(SVF) > a M TEL(S) + b (M - P) sum(o); a statement about that inequality, not about "
          "SVF's ratio R(alpha) (it does not show R -> 2)",
          "Coq svf_sharp_bound_tight, every a < 2b: svf-triangles q = 4b, p = 2q - 1, M = qp, P = p, n = 160 b^2 "
          "requests (0, p), S = one start per step (feasible: triangles_staggered_feasible; closed forms "
          "svf_triangles_tel, triangles_staggered_tel); sympy: the same algebra for every a <= 2b - 1; simulated "
          "and checked for b <= 2 (3 in the default run)",
          "not a claim of the papers; says nothing against a bound c/(1 - alpha) + K with a constant K, nor about "
          "the ratio's value at any alpha",
          ("derivation", "simulation:svf-frontier", *coq_methods(*STAIRS, *TIGHT), *SIMULATES), (),
          coq=STAIRS, coq_whole=TIGHT, coq_constant=("svf_sharp_bound_tight", "sharp", "2"), order=("ours", 120)),
)
CLAIM_IDS = tuple(c.id for c in CLAIMS)

M, P, d = sp.symbols("M P d", positive=True)  # M = P + d in the ratio form
alpha, beta = sp.symbols("alpha beta", positive=True)
W, O, Pi, T, SVF = sp.symbols("W O Pi T_S TEL_SVF", nonnegative=True)  # sum x, sum o, sum_k P_k, TEL(S)
OPT = sp.Symbol("OPT", positive=True)
h1, h2, h3 = sp.symbols("h_1 h_2 h_3", nonnegative=True)


def composition_steps(factor=2) -> list[Step]:
    """From Lemma A.2 summed and Prop. 3.1 to the sharper bound; ``factor`` replaces the 2 (tests break it)."""
    lemma = factor * Pi - d * W  # (M - P) W <= 2 Pi, with M - P = d
    prop = (P + d) * T - Pi  # Prop. 3.1: Pi <= M TEL(S)
    return [
        Step.unchecked("Lemma A.2 summed (Coq's form): (M - P) sum_k x_k <= 2 sum_k P_k, sum_k P_k = sum_i v_i + "
                       "sum_{i<j} min(v_i, v_j)",
                       "each of the x_k steps before k starts has active peak mass > M - P (Lemma A.2); the requests "
                       "active then started before k, each for at most o_j steps, p_j o_j <= 2 v_j; summed over k each "
                       "pair counts once, with its smaller volume (SVF's order)",
                       "a statement about SVF's trace for every instance: Coq's svf_starts_bound (Thm32.v); the "
                       "exhaustive check runs the simulator against it on small bursts",
                       covered_by=("coq:svf_starts_bound", "exhaustive:svf-sharp")),
        Step.inequality("composition: 2M TEL(S) + (M - P) sum o >= (M - P) TEL(SVF) = (M - P)(sum x + sum o)",
                        2 * (P + d) * T + d * O, ">=", d * (W + O),
                        "the difference is 2(M TEL(S) - Pi) + (2 Pi - (M - P) sum x), both >= 0 (step 1, Prop. 3.1)",
                        certificate=[prop, prop, lemma], premises=[prop, lemma]),
    ]


def ratio_steps() -> list[Step]:
    """The ratio form and the comparison with Thm. 3.2."""
    return [
        Step.identity("with S = OPT, divided by (M - P) OPT: TEL(SVF)/OPT <= 2M/(M - P) + sum(o)/OPT = 2/(1 - alpha) "
                      "+ sum(o)/OPT, alpha = P/M", (2 * M * OPT + (M - P) * O) / ((M - P) * OPT),
                      2 / (1 - P / M) + O / OPT, "2M/(M - P) = 2/(1 - P/M)"),
        Step.inequality("at most Thm. 3.2's 1 + 2/(1 - alpha), smaller by 1 - sum(o)/OPT (sum o <= OPT)",
                        1 + 2 / (1 - alpha), ">=", 2 / (1 - alpha) + O / OPT, "difference (OPT - sum o)/OPT",
                        certificate=[h3 / OPT], substitutions={O: OPT - h3}),
    ]


def derivation(factor=2) -> Derivation:
    """``svf.sharp_bound``; ``factor`` replaces the 2 of Lemma A.2 summed (tests break it on purpose)."""
    return Derivation(
        "svf.sharp_bound", f"ours; {KONG_PAPER}",
        "Thm. 3.2 without its last step (Lemma A.2 summed and Prop. 3.1)",
        "for every burst, every P >= every peak and every feasible schedule S: (M - P) TEL(SVF) <= 2M TEL(S) + "
        "(M - P) sum(o); with S = OPT and alpha = P/M < 1: TEL(SVF)/OPT <= 2/(1 - alpha) + sum(o)/OPT <= 1 + "
        "2/(1 - alpha)",
        bound=2 / (1 - alpha) + sp.Symbol("omega", nonnegative=True),
        statement_latex=r"For every burst, every $P \ge \max_i (s_i + o_i)$ and every feasible schedule $S$: "
                        r"$(M - P)\,\mathrm{TEL}(\mathrm{SVF}) \le 2M\,\mathrm{TEL}(S) + (M - P)\sum_i o_i$; with "
                        r"$S = \mathrm{OPT}$ and $\alpha = P/M < 1$: $\mathrm{TEL}(\mathrm{SVF})/\mathrm{OPT} \le "
                        r"2/(1-\alpha) + \omega \le 1 + 2/(1-\alpha)$, $\omega = \sum_i o_i/\mathrm{OPT}$.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX, outside=OUTSIDE_BURST),
                    Hypothesis("H2", "every peak s_i + o_i <= P; S a feasible schedule of the same burst; TEL(SVF) "
                               "= sum x + sum o (burst)",
                               latex=r"every peak $s_i + o_i \le P$; $S$ a feasible schedule of the same burst; "
                                     r"$\mathrm{TEL}(\mathrm{SVF}) = \sum_i x_i + \sum_i o_i$ (burst)",
                               outside="fails: S infeasible, M = 2, P = 1, 20 requests (0, 1) all started at step 0: "
                                       "(M - P) TEL(SVF) = 110 > 2M TEL(S) + (M - P) sum o = 100"),
                    Hypothesis("H3", "kong.prop3.1: sum_k P_k <= M TEL(S)", latex=PROP31_LATEX, outside=OUTSIDE_PROP31),
                    Hypothesis("H4", "for the ratio form only: alpha = P/M < 1 (M = P + d, d > 0)",
                               latex=r"for the ratio form only: $\alpha = P/M < 1$ ($M = P + d$, $d > 0$)",
                               outside=OUTSIDE_RATIO)),
        steps=(*composition_steps(factor), *ratio_steps()),
        depends_on=("kong.prop3.1",),
        notes="Coq proves the whole statement (svf_sharp_bound, SvfSharp.v) for every instance, with no hypothesis "
              "P < M (for P >= M its left side is 0). Thm. 3.2 is this bound plus (M - P) sum(o) <= (M - P) OPT.",
    )


u, w, B = sp.symbols("u w B", integer=True, nonnegative=True)


def tight_member(b_value=None):
    """``(q, p, M, n, B)`` of ``svf_sharp_bound_tight``'s witness at ``b = u + 1`` (or the given b)."""
    b = u + 1 if b_value is None else b_value
    q = 4 * b
    p = 2 * q - 1
    return q, p, q * p, q * 40 * b, 40 * b


def violation_expr(a, b_value=None):
    """``b (M - P) TEL(SVF) - a M TEL(S) - b (M - P) sum o`` on the witness (the closed forms of SvfTriangles.v)."""
    b = u + 1 if b_value is None else b_value
    q, p, big_m, n, batches = tight_member(b_value)
    tel_svf = p * q * batches * (batches + 1) / 2
    tel_s = (n * (n - 1) + 2 * p * n) / 2
    return b * (big_m - p) * tel_svf - a * big_m * tel_s - b * (big_m - p) * p * n


def derivation_constant_two() -> Derivation:
    q, p, big_m, n, batches = tight_member()
    gap = sp.expand(violation_expr(2 * u + 1 - w))  # a = 2b - 1 - w covers every a <= 2b - 1
    return Derivation(
        "svf.constant_two", f"ours (family svf-triangles); {KONG_PAPER}",
        "Thm. 3.2 (its constant 2, in the form of svf.sharp_bound)",
        "for every c = a/b < 2 (integers, b >= 1) the burst of n = 160 b^2 requests (0, p), p = 8b - 1, M = 4bp, "
        "and the feasible schedule S (request k starts at k) have b (M - P) TEL(SVF) > a M TEL(S) + b (M - P) "
        "sum(o): no c < 2 can replace the 2 of svf.sharp_bound",
        statement_latex=r"For every $c = a/b < 2$ (integers, $b \ge 1$) the burst of $n = 160 b^2$ requests $(0, p)$, "
                        r"$p = 8b - 1$, $M = 4bp$, and the feasible schedule $S$ (request $k$ starts at $k$) have "
                        r"$b(M - P)\,\mathrm{TEL}(\mathrm{SVF}) > aM\,\mathrm{TEL}(S) + b(M - P)\sum_i o_i$.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX,
                               outside="none: H1 names the policy and the arrivals of the witness"),
                    Hypothesis("H2", "svf-triangles: q = 4b, p = 2q - 1, M = qp, P = p, n = qB requests (0, p), "
                               "B = 40b full batches; a <= 2b - 1",
                               latex=r"svf-triangles: $q = 4b$, $p = 2q - 1$, $M = qp$, $P = p$, $n = qB$ requests "
                                     r"$(0, p)$, $B = 40b$ full batches; $a \le 2b - 1$",
                               outside="none: H2 defines the witness (an existence claim needs no other instance)")),
        steps=(
            Step.unchecked("SVF starts request k at p (k div q), so 2 TEL(SVF) = p q B (B + 1)",
                           "q requests fit at once (q p = M at step p); one more started before p overflows at step p",
                           "a statement about SVF's trace: Coq's svf_triangles_tel (SvfTriangles.v), every q and B",
                           covered_by=("coq:svf_triangles_tel", "simulation:svf-frontier")),
            Step.unchecked("S (request k at step k) is feasible and 2 TEL(S) = n (n - 1) + 2 p n",
                           "at step t the running requests have distinct ages in 1..p: at most p (p + 1)/2 = M",
                           "Coq's triangles_staggered_feasible and triangles_staggered_tel, every q and n",
                           covered_by=("coq:triangles_staggered_feasible", "coq:triangles_staggered_tel",
                                       "simulation:svf-frontier")),
            Step.identity("M - P = (q - 1) p and sum o = p n", big_m - p, (q - 1) * p, "M = qp"),
            Step.inequality("the violation for every a = 2b - 1 - w <= 2b - 1 (b = u + 1): b (M - P) TEL(SVF) - a M "
                            "TEL(S) - b (M - P) sum o > 0", violation_expr(2 * u + 1 - w), ">", 0,
                            "expanded in u and w every coefficient is positive (the w = 0 part is (p q B/2)(140 u^2 "
                            "+ 267 u + 127))", certificate=list(sp.Add.make_args(gap))),
            Step.identity("alpha = P/M = 1/(4b): the violation happens at every small alpha", p / big_m,
                          1 / (4 * (u + 1)), "M = 4bp"),
            Step.limit("TEL(SVF)/TEL(S) on the family tends to (2q - 1)/q as B -> infinity (at fixed q)",
                       (p * q * B * (B + 1)) / ((q * B) * (q * B - 1) + 2 * p * q * B), B, sp.oo, p / q,
                       "the B^2 terms"),
        ),
        depends_on=(),
        notes="Coq proves the whole statement (svf_sharp_bound_tight, SvfSharp.v) for every a < 2b. The family is "
              "svf-triangles (svf.lower_bound) at batch q = 4b; the choice n = 160 b^2 makes the violation strict "
              "for every a <= 2b - 1 at once. The witness's requests are identical (equal peaks, equal volumes, "
              "s = 0), so the 2 is sharp on those classes too; a class with a smaller constant must exclude "
              "them (svf.prompt_heavy: s >= lambda o).",
    )


DERIVATIONS = {"svf.sharp_bound": derivation, "svf.constant_two": derivation_constant_two}
