"""``kong.lemmaA.2``: the macroscopic certificate (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Lemma A.2).

Statement (burst arrivals, strict head-of-line SVF with the forward-looking check,
``alpha = max_i p_i / M < 1``, ``p_i = s_i + o_i``): while request ``j`` waits,

1. the active requests' peaks sum to more than ``(1 - alpha) M``;
2. every active request precedes ``j`` in volume order;
3. ``p_i o_i + o_i <= 2 v_i`` for every request;

and, summed over the waiting steps,

.. math::  (1 - \\alpha) M \\sum_j W_j \\;\\le\\; 2 \\sum_j \\sum_{i \\prec j} v_i .

Derivation (ours; we had no access to the paper's appendix text): if ``j`` waits at step
``t``, the head ``h`` of the queue failed the forward-looking check, so some future step
``t'`` has ``sum_{i active at t'} (s_i + t' - x_i) + (s_h + t' - t) > M``. Each active term is
at most its peak, the head's term at most ``p_h <= alpha M``: item 1 follows by a linear
combination that sympy checks. Item 3 is a polynomial identity with a nonnegative
certificate (``2v - p o - o = s o``); we also check the stronger ``p (o + 1) <= 2 v`` that
covers the convention where a request is counted active on ``o + 1`` decision steps.
Items 2 and the double counting are combinatorial (not sympy-checkable); verify/ proves the
one-step invariant with Z3 and checks the certificate on every small instance, and Coq proves
them for every n (``verify/coq/LemmaA2Sum.v``: items 1-3, the double counting and the summed
form, for the Coq SVF).

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "kong.lemmaA.2", f"{KONG} Lemma A.2", "blocked => active peaks > (1-alpha)M and precede j; summed bound",
    "Coq, every n (LemmaA2.v, LemmaA2Sum.v), for the Coq SVF of a burst with every peak <= P, alpha = P/M: item 1 "
    "active peaks + P > M at every step some request waits (lemmaA2_peak_mass); item 2 every request active while "
    "j waits has v_i <= v_j (lemmaA2_active_precede); item 3 p o + o <= 2v (lemmaA2_peak_time); summed, the "
    "paper's form (M - P) sum_j W_j <= 2 sum_j sum_{i before j} v_i, W_j = x_j, i before j in SVF's order "
    "(lemmaA2_summed), the right side = 2 sum_{i<j} min(v_i, v_j) (lemmaA2_summed_pairs); without coqc: item 1 for "
    "k <= K active requests with symbolic lengths (Z3), item 2 and both summations for n <= N symbolic requests "
    "(Z3 and cvc5), p o + o <= 2v for all integers, exhaustive with exact OPT",
    "burst arrivals (W_j = x_j), exact lengths, integer steps, strict head-of-line with the forward-looking check, "
    "ties by position; alpha = P/M for any bound P on the peaks; about peaks, not occupancy (kong.lemmaA.2.peak); "
    "without coqc bounded k and n",
    ("derivation", "z3:peak_volume", "z3:lemmaA2_invariant_k", "z3:lemmaA2_order_invariant", "cores:lemmaA.2",
     "exhaustive:certificate", "exhaustive:lemmaA2_sum", "consts:lemmaA.2", "coq:lemmaA2_peak_mass",
     "coq:lemmaA2_active_precede", "coq:lemmaA2_peak_time", "coq:lemmaA2_double_count", "coq:lemmaA2_summed",
     "coq:lemmaA2_summed_pairs", "coq:svf_js_sorted", *SIMULATES), ("kong.volume",),
    coq=("lemmaA2_double_count", "lemmaA2_summed_pairs", "svf_js_sorted"),
    # items 1, 2, 3 and the summed form
    coq_whole=("lemmaA2_peak_mass", "lemmaA2_active_precede", "lemmaA2_peak_time", "lemmaA2_summed"),
    order=("kong", 30), exhaustive_variants=("svf",))
FACTOR = 2  # the "2" of the summed form (1 - alpha) M W_j <= 2 sum_{i before j} v_i

s = sp.Symbol("s", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
u = sp.Symbol("u", integer=True, nonnegative=True)
v = s * o + (o**2 + o) / 2
p = s + o
M = sp.Symbol("M", positive=True)
alpha = sp.Symbol("alpha", positive=True)
beta = sp.Symbol("beta", positive=True)  # 1 - alpha
x, t, tp, r = sp.symbols("x t t' r", integer=True, nonnegative=True)
X, H, PA, PB = sp.symbols("X H P_A P_B", nonnegative=True)  # active usage, head usage, peak masses
a_slack, b_slack, c_slack = sp.symbols("a b c", nonnegative=True)
e_slack = sp.Symbol("e", positive=True)
Wj, n_ij = sp.symbols("W_j n_ij", nonnegative=True)


HYPOTHESES = (
      Hypothesis("H1", "burst arrivals; strict head-of-line admission in increasing volume order",
                 latex=r"burst arrivals; strict head-of-line admission in increasing volume order",
                 outside="fails: with arrivals (M = 3, (a, s, o) = (0, 0, 2), (1, 1, 1)) the "
                         "second request waits with nothing before it: (M - P) W = 1 > 0; in "
                         "FCFS order (M = 4, (0, 3) before (1, 2)): (M - P) W = 3 > 0"),
      Hypothesis("H2", "forward-looking check: the head h is admitted at t iff for all t' > t, "
                       "sum_{i active at t'} (s_i + t' - x_i) + (s_h + t' - t) <= M",
                 latex=r"forward-looking check: the head $h$ is admitted at $t$ iff $\sum_{i \text{ active at "
                       r"} t'} (s_i + t' - x_i) + (s_h + t' - t) \le M$ for all $t' > t$",
                 outside="none in the model: every admission of the simulator and of the Coq "
                         "SVF is forward-looking; an admission that checks only the current "
                         "step can overflow M later, and an infeasible run has no waiting times "
                         "to bound"),
      Hypothesis("H3", "alpha = max_i p_i / M < 1 (written alpha = 1 - beta, beta > 0)",
                 latex=r"$\alpha = \max_i p_i / M < 1$ (written $\alpha = 1 - \beta$, $\beta > 0$)",
                 outside="none: at alpha = 1 (P = M) the left side (1 - alpha) M W_j is 0, so "
                         "the bound holds trivially; alpha > 1 is a request that never fits, "
                         "outside the model"),
  )


def derivation(peak_time_inequality=None) -> Derivation:
    """``peak_time_inequality`` replaces ``2v - (p o + o)`` (tests break it on purpose)."""
    gap = peak_time_inequality if peak_time_inequality is not None else s * o
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Lemma A.2 (macroscopic certificate)",
        "while j waits under strict SVF, the active peak mass exceeds (1 - alpha) M, every active request "
        "precedes j in volume order, and p o + o <= 2 v; summed: (1 - alpha) M sum_j W_j <= 2 sum_j sum_{i<j} v_i",
        statement_latex=r"While $j$ waits under strict SVF, the active peak mass exceeds $(1-\alpha)M$, every active "
                        r"request precedes $j$ in volume order, and $p\,o + o \le 2v$; summed: $(1-\alpha) M \sum_j "
                        r"W_j \le 2 \sum_j \sum_{i<j} v_i$.",
        hypotheses=HYPOTHESES,
        steps=(
            Step.inequality(
                "an active request's footprint is at most its peak: s + t' - x <= p while t' <= x + o",
                s + o, ">=", s + tp - x, "p - (s + t' - x) = x + o - t' =: r >= 0",
                certificate=[r], substitutions={tp: x + o - r}),
            Step.inequality(
                "the head's footprint at t' <= t + o_h is at most p_h <= alpha M",
                alpha * M, ">=", H, "alpha M - H = (alpha M - p_h) + (p_h - H), both >= 0 (definition of alpha; "
                "step 1)",
                certificate=[a_slack, b_slack], substitutions={H: alpha * M - a_slack - b_slack}),
            Step.inequality(
                "certificate (item 1): if the head fails the check (X + H - M = e > 0) then P_A > (1 - alpha) M",
                PA, ">", (1 - alpha) * M,
                "P_A - (1 - alpha) M = (P_A - X) + (alpha M - H) + (X + H - M): steps 1 (summed over the active set), "
                "2, and the failed check H2",
                certificate=[c_slack, a_slack, e_slack],
                substitutions={PA: X + c_slack, H: alpha * M - a_slack, X: M + e_slack - (alpha * M - a_slack)}),
            Step.inequality(
                "the batch at t holds every request active at t' (nothing starts in between in the check), so its "
                "peak mass P_B >= P_A",
                PB, ">=", PA, "the extra requests have peaks s + o >= 0", certificate=[s + o],
                substitutions={PB: PA + s + o}),
            Step.unchecked(
                "item 2: every request in the batch while j waits precedes j in volume order",
                "burst arrivals fix the order; strict head-of-line admission admits a prefix of the order, and j is "
                "never admitted before the requests ahead of it",
                "an invariant of the admission process over time; verify/ proves the one-step inductive invariant "
                "with Z3, the consequence for n symbolic requests with Z3 and cvc5, and checks it exhaustively",
                covered_by=("core:lemmaA2_precede", "z3:lemmaA2_order_invariant", "coq:svf_js_sorted",
                            "coq:lemmaA2_active_precede")),
            Step.inequality("item 3: p o + o <= 2 v", FACTOR * v, ">=", p * o + o, "2v - (p o + o) = s o >= 0",
                            certificate=[gap]),
            Step.inequality("stronger form: p (o + 1) <= 2 v", 2 * v, ">=", p * (o + 1),
                            "2v - p(o + 1) = s (o - 1) >= 0 since o >= 1; write o = 1 + u",
                            certificate=[s * u], substitutions={o: 1 + u}),
            Step.unchecked(
                "double counting: (1 - alpha) M W_j <= sum_{i before j} p_i n_ij, n_ij = #steps j waits while i runs",
                "sum the certificate (steps 3-4) over the W_j steps at which j waits; by item 2 every term is a "
                "request before j",
                "a sum over the steps of the SVF schedule (induction on the number of blocked steps, Z3 and cvc5; "
                "Coq for every n)",
                covered_by=("core:lemmaA2_blocked_sum", "coq:lemmaA2_double_count")),
            Step.inequality(
                "n_ij <= o_i, hence p_i n_ij <= p_i o_i <= 2 v_i - o_i <= 2 v_i",
                FACTOR * v, ">=", p * n_ij,
                "2v - p n = p (o - n) + (2v - p o - o) + o: i is in the batch on exactly o_i decision steps",
                certificate=[p * c_slack, s * o, o], substitutions={n_ij: o - c_slack}),
            Step.unchecked(
                "sum over j: (1 - alpha) M sum_j W_j <= 2 sum_j sum_{i before j} v_i",
                "add the per-j bounds (step 8 with step 9)",
                "a finite sum of the per-j inequalities over the instance (Z3 and cvc5 for every n up to a bound; Coq "
                "for every n)",
                covered_by=("core:lemmaA2_sum_over_j", "coq:lemmaA2_summed")),
        ),
        depends_on=("kong.volume",),
        notes="Item 1 (the certificate) reduces to checked algebra once the failed forward-looking check is "
              "written down (H2); items 2 and the summations are combinatorial: Coq proves them for every n "
              "(LemmaA2Sum.v), Z3 and cvc5 for n up to a bound.",
    )
