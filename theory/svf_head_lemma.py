"""``svf.lemmaA2.head``: Lemma A.2 of Kong, Qi, Ye, Zhou (arXiv 2606.22327) with the blocked head's own peak.

Lemma A.2 charges every step at which a request waits with ``M - P``. Under strict head-of-line SVF the
request that is blocked at step ``t`` is the *head* ``h(t)``: the first request in SVF's order (volume, ties
by position) not started by ``t``. Its own check failed at ``t``, and every request that holds memory after
``t`` started by ``t``, so (``verify/coq/LemmaA2Head.v``, ``lemmaA2_blocked_head``)

.. math::  \\sum_{j \\text{ active at } t} p_j \\;>\\; M - p_{h(t)} .

Charging each blocked step ``M - p_{h(t)}``, once for every request waiting at it, the requests active at
``t < x_k`` started before ``k`` and run ``o_j`` steps each, so the charges of ``k``'s waiting steps are at
most ``sum_{j: x_j < x_k} p_j o_j`` (``svf_head_charge_po``), with ``p_j o_j <= 2 v_j`` and each pair counted
once with its smaller volume at most ``2 sum_k P_k`` (``svf_head_charge_pairmin``), at most ``2M TEL(S)`` for
every feasible ``S`` (Prop. 3.1, ``svf_head_charge_competitive``). With ``P_w`` the largest peak among the
requests SVF starts after step 0 (every blocked head is one of them):

.. math::  (M - P_w)\\,TEL(SVF) \\le 2M\\,TEL(S) + (M - P_w)\\sum_i o_i
   \\qquad(\\texttt{svf\\_waiting\\_peak\\_bound}),

``svf.sharp_bound`` with ``P`` replaced by ``P_w <= P``: large requests that SVF starts at once (small
volume, fitting together) do not enter the constant.

Example
-------
>>> derivation().check().status
'unknown'
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
    PROP31_LATEX,
    SVF_MEANING,
    coq_methods,
)

STEPS = ("svf_head_charge_po", "svf_head_charge_pairmin")  # Coq steps of the derivation
WHOLE = ("lemmaA2_blocked_head", "svf_head_charge_competitive", "svf_waiting_peak_bound", *SVF_MEANING)

CLAIM = Claim(
    "svf.lemmaA2.head", f"ours; {KONG} Lemma A.2, Prop. 3.1",
    "bursts, strict head-of-line SVF with the forward-looking check: at every step t at which SVF's queue is "
    "blocked, the active requests' peaks sum to more than M - p_h(t), "
    "h(t) the blocked head; summed over the steps each request waits these charges are <= 2 sum_k P_k <= 2M TEL(S) "
    "for every feasible S; so (M - Pw) TEL(SVF) <= 2M TEL(S) + (M - Pw) sum(o), Pw the largest peak among the "
    "requests SVF starts after step 0",
    "every burst, every M, every feasible S, the head h(t) = the first request in SVF's order (volume, ties by "
    "position) not started by t: Coq lemmaA2_blocked_head (no hypothesis), svf_head_charge_pairmin, "
    "svf_head_charge_competitive, svf_waiting_peak_bound for the Coq SVF (svf_sim_eq: the step-by-step process); "
    "sympy: the algebra; exhaustively on small bursts against the simulator and the exact optimum, at every blocked "
    "step",
    "not a claim of the papers: Lemma A.2 charges M - P at every blocked step",
    ("derivation", "exhaustive:svf-sharp", *coq_methods(*STEPS, *WHOLE), *SIMULATES), ("kong.prop3.1",),
    coq=STEPS, coq_whole=WHOLE, order=("ours", 130))

s = sp.Symbol("s", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
M, Pw, P = sp.symbols("M P_w P", positive=True)
d = sp.Symbol("d", positive=True)  # M - P_w
g = sp.Symbol("g", nonnegative=True)  # P - P_w
C, W, O, Pi, T = sp.symbols("C W O Pi T_S", nonnegative=True)  # charges, sum x, sum o, sum_k P_k, TEL(S)
FACTOR = 2  # p o <= 2 v (tests break it)


def derivation() -> Derivation:
    v = s * o + (o**2 + o) / 2
    prop = M * T - Pi  # Prop. 3.1
    pairs = 2 * Pi - C  # steps 2-4: C <= 2 Pi
    waits = C - d * W  # step 6: C >= (M - P_w) W
    return Derivation(
        CLAIM.id, f"ours; {KONG_PAPER}", "Lemma A.2 (with the head's peak) and Prop. 3.1",
        CLAIM.statement,
        statement_latex=r"At every step $t$ at which SVF's queue is blocked, $\sum_{j \text{ active at } t} p_j > M - "
                        r"p_{h(t)}$, $h(t)$ the blocked head; summed over the steps each request waits, the charges "
                        r"$M - p_{h(t)}$ are at most $2\sum_k P_k \le 2M\,\mathrm{TEL}(S)$ for every feasible $S$; so "
                        r"$(M - P_w)\,\mathrm{TEL}(\mathrm{SVF}) \le 2M\,\mathrm{TEL}(S) + (M - P_w)\sum_i o_i$, $P_w$ "
                        r"the largest peak among the requests SVF starts after step 0.",
        hypotheses=(Hypothesis("H1", BURST_SVF, latex=BURST_SVF_LATEX, outside=OUTSIDE_BURST),
                    Hypothesis("H2", "h(t) = the first request in SVF's order (volume, ties by position) not started "
                               "by t; j is active at t when x_j <= t < x_j + o_j; S a feasible schedule of the burst",
                               latex=r"$h(t)$ = the first request in SVF's order (volume, ties by position) not "
                                     r"started by $t$; $j$ is active at $t$ when $x_j \le t < x_j + o_j$; $S$ a "
                                     r"feasible schedule of the burst",
                               outside="none computed here: H2 defines h(t) and activity; without S feasible the "
                                       "bound fails as svf.sharp_bound's H2 shows (the same instance, Pw = P = 1)"),
                    Hypothesis("H3", "kong.prop3.1: sum_k P_k <= M TEL(S)", latex=PROP31_LATEX, outside=OUTSIDE_PROP31),
                    Hypothesis("H4", "P_w >= the peak of every request with x_j > 0 (0 if none waits)",
                               latex=r"$P_w \ge$ the peak of every request with $x_j > 0$ (0 if none waits)",
                               outside="none: H4 defines P_w")),
        steps=(
            Step.unchecked("at every step t at which some request waits, sum_{j active at t} p_j > M - p_h(t)",
                           "h(t)'s forward check failed at t (strict head-of-line: it starts at the first step its "
                           "check passes); only requests started by t hold memory after t, each at most its peak",
                           "a statement about SVF's trace: Coq's lemmaA2_blocked_head (LemmaA2Head.v), every instance; "
                           "the exhaustive check tests every blocked step of the simulator's SVF on small bursts",
                           covered_by=("coq:lemmaA2_blocked_head", "exhaustive:svf-sharp")),
            Step.unchecked("sum over t < x_k of (M - p_h(t)) <= sum_{j: x_j < x_k} p_j o_j",
                           "step 1 at each t < x_k; whoever is active at t < x_k started before k and is active o_j "
                           "steps", "Coq's svf_head_charge_po, every instance",
                           covered_by=("coq:svf_head_charge_po", "exhaustive:svf-sharp")),
            Step.inequality("p o <= 2 v (v = s o + (o^2 + o)/2)", FACTOR * v, ">=", (s + o) * o,
                            "difference s o + o", certificate=[s * o, o]),
            Step.unchecked("summed over k: C = sum_k sum_{t < x_k} (M - p_h(t)) <= 2 sum_k P_k",
                           "starts and volumes never decrease in SVF's order, so each pair counts once, with its "
                           "smaller volume; sum_i v_i + sum_{i<j} min(v_i, v_j) = sum_k P_k",
                           "Coq's svf_head_charge_pairmin, every instance",
                           covered_by=("coq:svf_head_charge_pairmin", "exhaustive:svf-sharp")),
            Step.inequality("with Prop. 3.1: C <= 2M TEL(S)", 2 * M * T, ">=", C,
                            "2M TEL(S) - C = 2 (M TEL(S) - Pi) + (2 Pi - C)", certificate=[prop, prop, pairs],
                            premises=[prop, pairs]),
            Step.unchecked("C >= (M - P_w) sum_k x_k",
                           "while k waits at t the head h(t) waits too (it is not started by t), so p_h(t) <= P_w "
                           "and each of k's x_k waiting steps is charged >= M - P_w",
                           "Coq's svf_waiting_peak_bound (with steps 1-5), every instance",
                           covered_by=("coq:svf_waiting_peak_bound", "exhaustive:svf-sharp")),
            Step.inequality("so (M - P_w)(sum x + sum o) <= 2M TEL(S) + (M - P_w) sum o", 2 * M * T + d * O, ">=",
                            d * (W + O), "difference (2M TEL(S) - C) + (C - (M - P_w) sum x)",
                            certificate=[prop, prop, pairs, waits], premises=[prop, pairs, waits]),
            Step.inequality("P_w <= P < M: the ratio 2M/(M - P_w) is at most svf.sharp_bound's 2M/(M - P)",
                            2 * (d + Pw) / (d - g), ">=", 2 * (d + Pw) / d,
                            "with M - P = d - g > 0: difference 2 M g/(d (d - g))",
                            certificate=[2 * (d + Pw) * g / (d * (d - g))],
                            substitutions={d: sp.Symbol("e", positive=True) + g}),
        ),
        depends_on=("kong.prop3.1",),
        notes="Coq proves the whole statement (LemmaA2Head.v) for every instance. P_w < P when the largest "
              "requests are started at step 0 (small volume, fitting together); P_w = P on the svf-triangles, "
              "whose ratio tends to 2, so the head charge does not lower the constant 2 for bursts (svf.constant_two).",
    )
