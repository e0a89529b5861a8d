"""``kong.lemmaA.2.peak``: Lemma A.2's certificate is about peaks, not current occupancy.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Lemma A.2: at every step at which a request waits under
strict SVF, the *peaks* ``p_i = s_i + o_i`` of the active requests sum to more than
``(1 - alpha) M``. Read as a statement about the memory the active requests *hold now* (their
occupancy ``s_i + (t - x_i)``), as the phrase "every blocked step has active memory mass > M/2"
suggests at ``alpha = 1/2``, it is false. Counterexample (checked step by step): ``M = 16``, three
requests ``(s, o) = (0, 8)``, so ``alpha = 1/2`` and ``(1 - alpha) M = 8``. SVF starts two at step 0
(they reach 8 + 8 = 16 at step 8) and the third cannot start: at ``t = 1`` the active occupancy is
``1 + 1 = 2 <= 8``, while the active peak mass is ``16 > 8``. That strict SVF reaches this state is
checked by simulation in the ledger (``simulation:occupancy``).

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
    "kong.lemmaA.2.peak", f"{KONG} Lemma A.2 (reading)", "every blocked step has active memory mass > M/2",
    "peak reading (sum of active peaks > (1-alpha)M) holds; occupancy reading (tokens held now) fails: "
    "M = 16, three (0, 8), blocked at t = 1 with occupancy 2",
    "the summary does not say which mass; only the peak reading is Lemma A.2 (both readings settled in Coq "
    "for the Coq SVF: lemmaA2_peak_mass, lemmaA2_occupancy_refuted)",
    ("derivation", "simulation:occupancy", "exhaustive:occupancy", "coq:lemmaA2_peak_mass",
     "coq:lemmaA2_occupancy_refuted", *SIMULATES), ("kong.lemmaA.2",),
    coq_whole=("lemmaA2_peak_mass", "lemmaA2_occupancy_refuted"),
    order=("kong", 40), exhaustive_variants=("svf",))

M, s, o, t, tp = sp.symbols("M s o t t'", integer=True, nonnegative=True)
_POINT = {M: 16, s: 0, o: 8, t: 1, tp: 8}
EXAMPLE = {"memory": 16, "requests": [(0, 8), (0, 8), (0, 8)], "blocked_step": 1}


def derivation() -> Derivation:
    peak = s + o
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Lemma A.2 (which reading of the certificate holds)",
        "at every blocked step the active requests' peaks sum to more than (1 - alpha) M; their current "
        "occupancy need not: M = 16, three requests (0, 8) are blocked at t = 1 with occupancy 2 <= 8",
        statement_latex=r"At every blocked step the active requests' peaks sum to more than $(1-\alpha)M$; their "
                        r"current occupancy need not: with $M = 16$ and three requests $(s, o) = (0, 8)$ the head is "
                        r"blocked at $t = 1$ while the occupancy is $2 \le 8$.",
        hypotheses=(Hypothesis("H1", "strict SVF, burst arrivals, the forward-looking check",
                               latex=r"strict SVF, burst arrivals, the forward-looking check",
                               outside="none for the peak reading: a blocked head fails the forward "
                                       "check at some step, where each active request holds at most "
                                       "its peak, whatever the order or the arrivals (only the check "
                                       "is needed; the order matters for kong.lemmaA.2's item 2)"),
                    Hypothesis("H2", "occupancy at step t: sum over active i of s_i + (t - x_i); peak: s_i + o_i",
                               latex=r"occupancy at step $t$: $\sum_{i \text{ active}} s_i + (t - x_i)$; peak: $s_i + "
                                     r"o_i$",
                               outside="none: H2 defines the two masses compared; the occupancy "
                                       "reading is the one shown false (M = 16, three (0, 8))")),
        steps=(
            Step.substitution("alpha = p/M = 1/2, so (1 - alpha) M = M - p = 8", M - peak, 8, _POINT, "16 - 8"),
            Step.substitution("two requests started at 0 fit: at step 8 they hold 2 (s + 8) = 16 <= M",
                              2 * (s + tp), M, _POINT, "the usage grows until their common completion",
                              relation="<="),
            Step.substitution("the third does not fit beside them at t = 1: at t' = 8 the batch holds "
                              "2 (s + 8) + (s + 8 - 1) = 23 > M",
                              2 * (s + tp) + (s + tp - t), M, _POINT, "forward-looking check at t' = 8", relation=">"),
            Step.substitution("peak reading holds: active peak mass 2 (s + o) = 16 > 8",
                              2 * peak, M - peak, _POINT, "Lemma A.2 item 1", relation=">"),
            Step.substitution("occupancy reading fails: active occupancy 2 (s + t - 0) = 2 <= 8",
                              2 * (s + t), M - peak, _POINT, "each started request holds s + 1 = 1 token at t = 1",
                              relation="<="),
            Step.unchecked("strict SVF reaches this state (two started at 0, the third waiting at t = 1)",
                           "the three requests are identical; SVF admits in position order while the check passes",
                           "a statement about the simulator's trace; the ledger simulates it under the certificate "
                           "monitor", covered_by=("simulation:occupancy", "coq:lemmaA2_occupancy_refuted")),
        ),
        depends_on=("kong.lemmaA.2",),
        notes="The summary's phrase 'active memory mass > M/2' is true of peaks (Lemma A.2) and false of occupancy.",
    )
