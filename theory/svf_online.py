"""``svf.online.lemmaA2``: the sample-path part of a Poisson bound: Lemma A.2 with arrivals, and the wait bound.

Kong, Qi, Ye, Zhou (arXiv 2606.22327) prove Lemma A.2 for a burst; their Poisson bounds (Thm. 3.4,
3.5) need what a blocked step certifies when requests arrive over time. For strict head-of-line
SVF with arrivals (every step, the arrived waiting requests are scanned by (volume, arrival,
position) and started while the forward-looking check passes; the first misfit ends the scan),
for **every** instance (any arrival steps ``a_i``, any priority keys):

* at every step ``t`` at which an arrived request waits (``a_k <= t < x_k``), the first waiting
  request ``h`` in the queue order has ``sum_{i active at t} p_i + p_h > M`` (the online Lemma A.2);
* a request started while ``j`` waits comes before ``j`` in the queue order;
* with every peak ``<= P = alpha M``, summing the certificate over ``j``'s wait:

.. math::  (1-\\alpha) M\\,(x_j - a_j) \\le R_j + \\sum_{i:\\ a_j \\le x_i < x_j} p_i o_i,
           \\qquad R_j = \\sum_{i:\\ x_i < a_j} p_i (x_i + o_i - a_j)^+ ,

the wait is bounded by the peak-time work started during it (all of it ahead of ``j``) plus the
residual peak-time of the requests running when ``j`` arrives. These are Coq theorems
(``verify/coq/OnlineSvf.v``, ``OnlineA2.v``: ``online_lemmaA2``, ``online_ahead``,
``online_wait_bound``, ``osvf_feasible``, ``osvf_after_arrival``) about the Coq program
``osvf``. Not claimed here: the probabilistic part (PASTA, the stationary residual, the
priority-queue recursion) that would turn this inequality into a bound on the mean wait;
``kong.thm3.4`` says what of it is checked.

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "svf.online.lemmaA2", f"ours; the online form of {KONG} Lemma A.2",
    "strict head-of-line SVF with arrivals: a blocked step has active peaks + p_h > M; "
    "(1 - alpha) M (x_j - a_j) <= R_j + sum_{a_j <= x_i < x_j} p_i o_i",
    "Coq, every instance (any arrivals, any keys, ties by arrival then position), the Coq program osvf: "
    "online_lemmaA2 (the first waiting request h in the queue order has active_peaks(t) + p_h > M), "
    "online_wait_bound ((M - P)(x_j - a_j) <= R_j + the peak-time work started in [a_j, x_j), every peak <= P), "
    "online_ahead, osvf_feasible, osvf_after_arrival",
    "not a claim of the papers: the sample-path step a Poisson bound needs (the paper's burst Lemma A.2 "
    "with arrivals); no probabilistic statement",
    ("derivation", "coq:online_lemmaA2", "coq:online_wait_bound", "coq:online_ahead", "coq:osvf_feasible",
     "coq:osvf_after_arrival"), ("kong.lemmaA.2",),
    coq=("online_ahead", "osvf_feasible", "osvf_after_arrival"),
    coq_whole=("online_lemmaA2", "online_wait_bound"),
    order=("ours", 75))

M, P, wait, R, A = sp.symbols("M P W_j R_j A_j", positive=True)
alpha = sp.Symbol("alpha", positive=True)


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        f"ours ({KONG_PAPER}, Lemma A.2 with arrivals)",
        "the online Lemma A.2 and the wait bound",
        "(1 - alpha) M (x_j - a_j) <= R_j + sum_{i : a_j <= x_i < x_j} p_i o_i for strict head-of-line SVF "
        "with arrivals",
        statement_latex=r"$(1-\alpha)M\,(x_j - a_j) \le R_j + \sum_{i:\,a_j \le x_i < x_j} p_i o_i$ for strict "
                        r"head-of-line SVF with arrivals.",
        hypotheses=(
            Hypothesis("H1", "strict head-of-line SVF with arrivals: at each step the arrived waiting requests in "
                             "(volume, arrival, position) order, started while the forward-looking check passes",
                       latex=r"strict head-of-line SVF with arrivals, queue order (volume, arrival, position)",
                       outside="none known for another queue order: the steps use only that, at each step j "
                               "waits, the first waiting request failed the forward-looking check, which holds for "
                               "any strict head-of-line order; a policy that leaves j waiting while it fits is not "
                               "a head-of-line scan and is not claimed"),
            Hypothesis("H2", "every peak p_i = s_i + o_i <= P = alpha M, P <= M",
                       latex=r"every peak $p_i = s_i + o_i \le P = \alpha M$, $P \le M$",
                       outside="none: H2 defines P (the largest peak, or any larger number up to M); a request "
                               "with a peak above M never starts, outside the model"),
        ),
        steps=(
            Step.unchecked(
                "at every step t with an arrived request waiting, the first waiting request h in the queue order "
                "has sum_{i active at t} p_i + p_h > M",
                "h failed the forward-looking check at t (the scan stops at the first misfit); a misfit means the "
                "started requests' usage plus h's exceeds M at some later step, at most their peaks",
                "a statement about every trace of the process, for every instance",
                covered_by=("coq:online_lemmaA2",)),
            Step.unchecked(
                "summed over j's wait: (M - P)(x_j - a_j) <= R_j + sum_{a_j <= x_i < x_j} p_i o_i",
                "each waiting step has active peaks > M - p_h >= M - P; a request running during the wait "
                "contributes p_i times its overlap with [a_j, x_j): its residual if it started before a_j, at "
                "most p_i o_i if it started in the window",
                "a sum over the trace, for every instance", covered_by=("coq:online_wait_bound",)),
            Step.identity(
                "with P = alpha M: (M - P) W_j = (1 - alpha) M W_j, so W_j <= (R_j + A_j)/((1 - alpha) M)",
                (M - P) * wait, (1 - alpha) * M * wait, "substitute P = alpha M (H2)",
                substitutions={P: alpha * M}),
        ),
        depends_on=("kong.lemmaA.2",),
        notes="The sample-path inequality only; the mean wait under Poisson arrivals is not derived here.",
    )
