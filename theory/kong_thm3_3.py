"""``kong.thm3.3``: 1-bit SVF is O(T)-competitive (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.3).

Statement: with a one-bit (short/long) classification, 1-bit SVF has competitive ratio
``O(T)``, ``T`` the largest output length.

Our derivation, with an explicit constant and the extra hypotheses it needs (the paper's
proof was not available to us):

* **Inversion lemma.** The certificate of Lemma A.2 (items 1 and 3) does not use the
  order; only "every active request precedes j" does. For any strict head-of-line priority
  order, ``(1 - alpha) M Wsum <= 2 sum_j sum_{i before j} v_i``. If every pair ``i`` before
  ``j`` has ``v_i <= R v_j`` (``R >= 1``), then ``v_i <= R min(v_i, v_j)`` and the composition
  of Thm. 3.2 gives ``TEL <= (1 + 2R/(1 - alpha)) TEL(OPT)``.
* **The inversion ratio of 1-bit SVF**, under the extra hypotheses (E1) equal prompts ``s``,
  (E2) exact class bits, (E3) ``O_0 < O_1`` (so every short request precedes every long one):
  inside the short class (``1 <= o <= theta``) ``v_i / v_j <= theta(theta + 1)/2``; inside the
  long class (``theta < o <= T``) ``v_i / v_j <= T(T + 1)/((theta + 1)(theta + 2))``.
* **Threshold.** With ``theta = floor(sqrt(T))`` both are ``<= T``, hence

  .. math::  TEL(\\text{1-bit SVF}) \\le \\Bigl(1 + \\frac{2T}{1-\\alpha}\\Bigr) TEL(OPT)

  (``1 + 4T`` at ``alpha = 1/2``).
* **Without E1** (unequal prompts): Coq proves O(T) for every threshold when the proxies lie
  in the outputs' range, ``1 <= O_0 < O_1 <= T`` (``verify/coq/OneBit.v``, ``thm33_onebit_T``):
  every pair the order places has ``2 v_i <= T (T + 1) v_j`` (a long request with a small prompt
  before a short one needs the larger prompt on the short one; a short one before a long one
  has a prompt at most ``s_j T + T (T + 1)/2``), and the square-root inversion lemma
  (``Inversion.hol_inversion_sqrt``: ``v_i <= rho^2 v_j`` for every placed pair gives
  ``(M - P) TEL <= (M - P + 2 (2 rho - 1) M) TEL(S)``) with ``rho = T`` gives
  ``TEL <= (1 + (4T - 2)/(1 - alpha)) TEL(OPT)``. The same lemma under E1 gives O(sqrt T)
  (``thm33_onebit_E1_sqrt``).

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.kong_thm3_2 import composition_step

CLAIM = Claim(
    "kong.thm3.3", f"{KONG} Thm. 3.3", "1-bit SVF is O(T)-competitive",
    "Coq, every n (OneBit.v, Inversion.v): 1-bit SVF = strict head-of-line placement of a burst in the order of "
    "the proxy volume s O + (O^2+O)/2 (O = O_0 if o <= theta, else O_1; E2: the class bit is exact), ties by "
    "position, admitted by the forward-looking check with the exact lengths; outputs 1 <= o <= T, every peak <= P, "
    "alpha = P/M. (a) unequal prompts, any theta, proxies 1 <= O_0 < O_1 <= T: (M-P) TEL <= (M-P+2(2T-1)M) TEL(S) "
    "for every feasible S, i.e. TEL <= (1 + (4T-2)/(1-alpha)) TEL(OPT) = O(T) (thm33_onebit_T); (b) under E1 equal "
    "prompts, E3 O_0 < O_1, theta = floor(sqrt T): (M-P) TEL <= (M-P+2TM) TEL(S), i.e. 1 + 2T/(1-alpha) "
    "(thm33_onebit_E1; sympy composition); without coqc: (b) by sympy relative to kong.lemmaA.2 and exhaustively "
    "on equal-prompt instances in every request order",
    "(a) holds without E1 but needs the proxies within the outputs' range (the class means satisfy it when both "
    "classes are non-empty); constants, thresholds and E1-E3 are ours; burst arrivals, exact class bits, "
    "admission by exact lengths",
    ("derivation", "cores:lemmaA.2", "exhaustive:thm3.3", "consts:thm3.3", "coq:thm33_onebit_T", "coq:thm33_onebit",
     "coq:thm33_onebit_E1", "coq:thm33_onebit_E1_sqrt", "coq:hol_inversion", "coq:hol_inversion_sqrt",
     "coq:onebit_sim_eq", *SIMULATES),
    ("kong.lemmaA.2", "kong.prop3.1", "kong.thm3.2"),
    coq=("thm33_onebit", "thm33_onebit_E1_sqrt", "hol_inversion", "hol_inversion_sqrt", "onebit_sim_eq"),
    # reading (a), unequal prompts, and reading (b), E1-E3 with the package's constant
    coq_whole=("thm33_onebit_T", "thm33_onebit_E1"),
    coq_constant=("thm33_onebit_E1", "ratio", "P = alpha * M"), order=("kong", 60),
    exhaustive_variants=("svf1_sqrtT_equal",))

s = sp.Symbol("s", integer=True, nonnegative=True)
theta = sp.Symbol("theta", integer=True, positive=True)
T = sp.Symbol("T", integer=True, positive=True)
u, w, a = sp.symbols("u w a", integer=True, nonnegative=True)
R = sp.Symbol("R", positive=True)
ve, vl = sp.symbols("v_e v_l", positive=True)  # earlier / later volume of a pair
k1, k2 = sp.symbols("k_1 k_2", nonnegative=True)
alpha = sp.Symbol("alpha", positive=True)


def vol(prompt, output):
    prompt, output = sp.sympify(prompt), sp.sympify(output)
    return prompt * output + (output**2 + output) / 2


def short_ratio(th=theta):
    """Largest volume ratio inside the short class ``1 <= o <= theta``."""
    return th * (th + 1) / 2


def long_ratio(th=theta, t_max=T):
    """Largest volume ratio inside the long class ``theta < o <= T``."""
    return t_max * (t_max + 1) / ((th + 1) * (th + 2))


def threshold(t_max: int) -> int:
    """The threshold of this derivation, ``theta = floor(sqrt(T))`` (the exhaustive check must use it)."""
    import math

    return math.isqrt(int(t_max))


def constant(t_max=T, a_=alpha):
    """The explicit competitive ratio ``1 + 2T/(1 - alpha)`` (with theta = floor(sqrt(T)))."""
    return 1 + 2 * t_max / (1 - a_)


HYPOTHESES = (
      Hypothesis("H1", "burst arrivals, strict head-of-line admission, forward-looking check, alpha < 1",
                 latex=r"burst arrivals, strict head-of-line admission, forward-looking check, $\alpha < 1$",
                 outside="none known: with backfilling or arrivals the proof's order argument "
                         "fails (the exhaustive variants svf_backfill and svf_arrivals break "
                         "SVF's certificate order), but no instance above the bound is known; "
                         "1-bit SVF was searched on bursts only"),
      Hypothesis("H2", "output lengths 1 <= o <= T",
                 latex=r"output lengths $1 \le o_i \le T$",
                 outside="none: T is the largest output, so 1 <= o <= T defines T"),
      Hypothesis("E1", "extra (ours): all prompts equal, s_i = s",
                 latex=r"extra (ours): all prompts equal, $s_i = s$",
                 outside="none known: the exhaustive variant svf1_sqrtT (prompts unequal) never "
                         "exceeds the bound for n <= 3, s <= 2, o <= 3, M <= 8; E1 is what our "
                         "proof uses"),
      Hypothesis("E2", "extra (ours): the class bit is exact (short iff o <= theta)",
                 latex=r"extra (ours): the class bit is exact (short iff $o \le \theta$)",
                 outside="none known (not searched): with flipped class bits 1-bit SVF is "
                         "another priority order, which the proof does not cover"),
      Hypothesis("E3", "extra (ours): proxy lengths O_0 < O_1, so short requests precede long ones",
                 latex=r"extra (ours): proxy lengths $O_0 < O_1$, so short requests precede long ones",
                 outside="none known (not searched): with O_0 >= O_1 the long class goes first, "
                         "which the proof does not cover"),
      Hypothesis("E3'", "reading (a), without E1 (Coq thm33_onebit_T): any theta, proxies within the outputs' "
                        "range, 1 <= O_0 < O_1 <= T (needed: docs/adversary.md, svf1-proxy-range)",
                 latex=r"reading (a), without E1 (Coq \texttt{thm33\_onebit\_T}): any $\theta$, proxies "
                       r"within the outputs' range, $1 \le O_0 < O_1 \le T$",
                 outside="fails: svf1-proxy-range k = 40 (T = 2, alpha = 1/2, O_1 = 2^20 > T): 1-bit SVF's TEL "
                         "over a feasible schedule's is above 1 + (4T - 2)/(1 - alpha) = 13"),
  )


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Theorem 3.3 (1-bit SVF, O(T))",
        "1-bit SVF has competitive ratio O(T), T the largest output length; explicitly (ours) "
        "TEL <= (1 + 2T/(1 - alpha)) TEL(OPT) with theta = floor(sqrt(T)), under E1-E3",
        bound=constant(),
        statement_latex=r"1-bit SVF has competitive ratio $O(T)$, $T$ the largest output length; explicitly (our "
                        r"derivation) $\mathrm{TEL} \le \bigl(1 + "
                        r"\frac{2T}{1-\alpha}\bigr)\,\mathrm{TEL}(\mathrm{OPT})$ with $\theta = \lfloor \sqrt{T} "
                        r"\rfloor$, under E1--E3.",
        hypotheses=HYPOTHESES,
        steps=(
            Step.unchecked(
                "order-free certificate: for any strict head-of-line priority order, "
                "(1 - alpha) M Wsum <= 2 sum_j sum_{i before j} v_i",
                "Lemma A.2 items 1 and 3 do not use the volume order; item 2 holds with 'before' in the policy's "
                "own order",
                "the same combinatorial argument as kong.lemmaA.2 (its solver checks take arbitrary priority ranks)",
                covered_by=("core:lemmaA2_precede", "core:lemmaA2_blocked_sum", "core:lemmaA2_sum_over_j",
                            "coq:hol_inversion")),
            Step.inequality(
                "pair bound, case v_e <= v_l: v_e <= R min(v_e, v_l) = R v_e", R * ve, ">=", ve,
                "R >= 1: R v_e - v_e = (R - 1) v_e", certificate=[k1 * ve], substitutions={R: 1 + k1}),
            Step.inequality(
                "pair bound, case v_e > v_l: v_e <= R v_l = R min(v_e, v_l)", R * vl, ">=", ve,
                "R is an upper bound of the pair's ratio: v_e = R v_l - k2", certificate=[k2],
                substitutions={ve: R * vl - k2}),
            composition_step(R),
            Step.inequality(
                "short class ratio: v(s, o_i) <= theta(theta+1)/2 * v(s, o_j) for 1 <= o_j, o_i <= theta",
                short_ratio() * vol(s, 1), ">=", vol(s, theta),
                "v is increasing in o, so the largest is v(s, theta) and the smallest v(s, 1) = s + 1; the difference "
                "is s theta (theta - 1)/2 (theta = 1 + u)",
                certificate=[s * (1 + u) * u / 2], substitutions={theta: 1 + u}),
            Step.inequality(
                "long class ratio: v(s, T) <= T(T+1)/((theta+1)(theta+2)) * v(s, theta + 1) for theta < o <= T",
                long_ratio() * vol(s, theta + 1), ">=", vol(s, T),
                "difference = s T (T - theta - 1)/(theta + 2) >= 0 with T = theta + 1 + w",
                certificate=[s * (theta + 1 + w) * w / (theta + 2)], substitutions={T: theta + 1 + w}),
            Step.inequality(
                "v is increasing in o (so the extreme ratios above are the worst pairs)",
                vol(s, theta + 1) - vol(s, theta), ">", 0, "v(s, o+1) - v(s, o) = s + o + 1",
                certificate=[s, theta, 1]),
            Step.inequality(
                "threshold theta = floor(sqrt(T)): theta^2 <= T gives theta(theta+1)/2 <= T",
                T, ">=", short_ratio(),
                "T - theta(theta+1)/2 = (T - theta^2) + theta(theta - 1)/2 with T = theta^2 + a, theta = 1 + u",
                certificate=[a, (1 + u) * u / 2], substitutions={T: theta**2 + a, theta: 1 + u}),
            Step.inequality(
                "threshold: T <= theta^2 + 2 theta (i.e. T < (theta+1)^2) gives T(T+1)/((theta+1)(theta+2)) <= T",
                T, ">=", long_ratio(),
                "T - T(T+1)/((theta+1)(theta+2)) = T ((theta^2 + 2 theta - T) + theta + 1)/((theta+1)(theta+2))",
                certificate=[T * (theta**2 + 2 * theta - T) / ((theta + 1) * (theta + 2)),
                             T * (theta + 1) / ((theta + 1) * (theta + 2))],
                premises=[theta**2 + 2 * theta - T]),
            Step.substitution("explicit constant at alpha = 1/2: 1 + 4T", constant(), 1 + 4 * T,
                              {alpha: sp.Rational(1, 2)}, "2T/(1/2) = 4T"),
        ),
        depends_on=("kong.lemmaA.2", "kong.prop3.1", "kong.thm3.2"),
        notes="Our own derivation of reading (b) (constant and extra hypotheses E1-E3 are ours). Reading (a), "
              "unequal prompts: a long request with a small prompt can precede a short one with a larger prompt, "
              "and the volume ratio of such a pair reaches order T^2; Coq bounds it by T(T+1)/2 when "
              "1 <= O_0 < O_1 <= T and proves O(T) through the square-root inversion lemma (thm33_onebit_T).",
    )
