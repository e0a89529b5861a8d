"""``svf1.poisson``: a Poisson bound for 1-bit SVF of our own, beside Kong et al.'s Thm. 3.5.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Thm. 3.5, state that 1-bit SVF (a short/long class bit;
priority by the class's proxy volume) keeps Thm. 3.4's bound up to a distortion penalty
``eps`` (``kong.thm3.5``: its formulas checked, how ``eps`` enters not reconstructed). This row
does for 1-bit SVF what ``svf.poisson`` does for strict SVF, in the same model and from the
same Coq sample path:

* **model** (MODEL1): MODEL's Poisson arrivals of K types ``(s_k, o_k)``; each type carries a
  class bit ``b_k`` (any classifier that is a function of the type, right or wrong) and the
  priority key is the proxy volume ``s_k O_b + (O_b^2 + O_b)/2`` (``O_0 < O_1``); the forward
  check uses the exact lengths. Types with equal keys form one *level*, served by arrival, then
  position; with equal prompts there are two levels, short and long.
* **sample path** (Coq, every instance and *any* keys: ``online_wait_bound``, ``online_ahead``):
  a request started during ``j``'s wait has a smaller key, or an equal key and an earlier
  arrival (or the same arrival and an earlier position).
* **in expectation** (PASTA, LITTLE, WALD, BATCH of ``svf.poisson``; the stationary regime is
  ``svf.poisson.stable``'s, for any keys fixed by the type), a type ``k`` of
  level ``l``: ``w_k (1 - sigma_l) <= r0 + S_l + Q_l`` with ``Q_l = sum_{i in l} rho_i w_i``,
  ``S_l = sum_{l' < l} Q_l'``, ``sigma_l`` the load of the levels before ``l``: every type of a
  level has the same right-hand side, since arrivals of its own level during the wait are not
  ahead.
* **algebra** (sympy): the ``rho``-weighted mean of a level, ``Q_l/rho_l``, obeys
  ``svf.poisson``'s recursion with levels for classes, so Cobham's induction applies; back per
  type, ``w_k <= (r0 + S_l)/(1 - sigma_{l+1}) <= r0/((1 - sigma_l)(1 - sigma_{l+1}))``. Two
  levels: ``E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/((1 - rho_S)(1 - rho))) <= r0/(1 - rho)^2``.
* **Chebyshev** (as ``svf.poisson``, with levels for classes): the per-level bounds are
  non-decreasing in the key order, and so is ``m1_k = min(p_k o_k, p_j o_j of the types j of later
  levels) <= p_k o_k``; so ``E[W] <= Phi_1 r0/(1 - rho)`` with the **distortion penalty**

.. math::  \\Phi_1 = \\frac{E[p\\,o]}{E[m_1]} \\le \\Delta\\,\\frac{E[p\\,o]}{E[\\tilde v]},\\qquad
           \\Delta = \\max_k \\frac{\\tilde v_k}{p_k o_k},

  the analogue of the paper's ``eps`` (``tilde v`` the proxy volume, the key): it is 1 when the key order
  agrees with the order of ``p o`` and grows with their disagreement. The row's bound is
  ``1 + rho(1 + h) min(Phi_1/(1 - rho), 1/(1 - rho)^2)/E[o]``.
* **ranking**: FCFS is one level, ``E[W] <= r0/(1 - rho)`` (``Phi = 1``); every closed form has
  ``Phi >= 1`` (``m <= p o``), so the closed forms cannot rank SVF above FCFS; the per-type bounds
  ``sum_k pi_k b_l(k)`` can, and on the simulated workloads they rank SVF < 1-bit SVF < FCFS as the
  simulated mean waits do (``monte-carlo:poisson-ranking``). The word is ``proved relative to`` the
  named results, never ``proved``.

Example
-------
>>> derivation().check().status
'unknown'
>>> sp.simplify(two_level_wait().subs({rho_s: 0, rho: sp.Rational(1, 2)}))
r_0*(2 - pi_S)
"""

from __future__ import annotations

import sympy as sp

from geosched.theory import svf_poisson
from geosched.theory.claim import KONG, KONG_PAPER, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.svf_poisson import a, r0, rho

CLAIM = Claim(
    "svf1.poisson", f"ours; beside {KONG} Thm. 3.5",
    "1-bit SVF (class bit a function of the type, priority by the proxy volume v~, exact lengths in the check), "
    "Poisson arrivals, K types: E[SVF1]/E[OPT] <= 1 + rho(1 + h) min(Phi_1/(1 - rho), 1/(1 - rho)^2)/E[o], "
    "rho = lambda E[p o]/((1-alpha)M) < 1, with the distortion penalty Phi_1 = E[p o]/E[m1] <= Delta E[p o]/E[v~], "
    "Delta = max_k v~_k/(p_k o_k) (m1_k = min of p_k o_k and the p_j o_j of the types of later levels); two levels: "
    "E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/((1 - rho_S)(1 - rho))); FCFS (one level): E[W] <= r0/(1 - rho); the "
    "closed forms have Phi >= 1 (they cannot rank SVF above FCFS), the per-type bounds sum_k pi_k b_l(k) rank "
    "SVF < 1-bit SVF < FCFS as the simulated waits do",
    "sample path in Coq for any priority keys (online_wait_bound, online_ahead: every instance); the stationary regime "
    "from svf.poisson.stable; the expectation step by PASTA, LITTLE, WALD, BATCH (svf.poisson's, assumed, each with "
    "its conditions) per type; the levels of equal keys, their weighted recursion, Cobham's induction, the per-type, "
    "two-level, monotone, telescoped and mean-wait bounds and the penalty by sympy, Chebyshev's sum inequality in Coq "
    "(chebyshev_dominated, every n); the ranking simulated (monte-carlo:poisson-ranking: SVF, 1-bit SVF and FCFS on "
    "one workload, refuted if a simulated difference contradicts the bounds' order, vacuous unless the order with two "
    "policies swapped is refuted); the residual and each hypothesis' quantity on 1-bit SVF beside SVF (svf.poisson's "
    "simulated checks)",
    "not the paper's Thm. 3.5 (how its eps enters is not stated, kong.thm3.5); finitely many types, p <= alpha M, the "
    "stationary regime; the ranking is of the bounds and of simulated means, not a theorem about the policies' waits",
    (*svf_poisson.CLAIM.methods, "monte-carlo:poisson-ranking"),
    ("svf.poisson",),
    coq=svf_poisson.CLAIM.coq,
    order=("ours", 78))

T, S, Q = sp.symbols("T S_l Q_l", nonnegative=True)  # T = r0 + S_l + Q_l; S_l, Q_l as in the module text
c1 = sp.Symbol("c_1", positive=True)  # 1 - sigma_l
rho_1, rho_2, e_1, e_2 = sp.symbols("rho_1 rho_2 e_1 e_2", nonnegative=True)
w_1, w_2, w_k = sp.symbols("w_1 w_2 w_k", nonnegative=True)
rho_l = sp.Symbol("rho_l", nonnegative=True)
rho_s = sp.Symbol("rho_S", nonnegative=True)  # the short level's load
pi_s = sp.Symbol("pi_S", nonnegative=True)
cc, dd = sp.symbols("c d", positive=True)  # c = 1 - rho, c + d = 1 - rho_S
uu = sp.Symbol("u", nonnegative=True)  # rho = u/(1 + u)
D = svf_poisson.D
R = svf_poisson.R
sigma_l = sp.Symbol("sigma_l", nonnegative=True)
PHI_1 = sp.Symbol("Phi_1", positive=True)  # the 1-bit distortion penalty E[p o]/E[m1]

MODEL1 = Hypothesis(
    "MODEL1", "MODEL's arrivals of K types (s_k, o_k), p_k <= alpha M; type k carries a class bit b_k (a function of "
              "the type); key = proxy volume s_k O_b + (O_b^2 + O_b)/2; equal keys by arrival, then position; the "
              "forward-looking check with the exact lengths; D = (1 - alpha) M",
    latex=r"MODEL's arrivals of $K$ types $(s_k, o_k)$, $p_k \le \alpha M$; type $k$ carries a class bit $b_k$ (a "
          r"function of the type); key $= s_k O_b + (O_b^2 + O_b)/2$; equal keys by arrival, then position; the "
          r"forward-looking check with the exact lengths; $D = (1-\alpha)M$",
    outside="none: MODEL1 defines the process the bound is about; a bit that depends on more than the type (a "
            "noisy classifier drawn per request) is a model with more types, (s, o, b), and obeys it as well")

HYPOTHESES = (MODEL1, *svf_poisson.HYPOTHESES[1:])


def two_level_wait():
    """``r0 (pi_S/(1 - rho_S) + (1 - pi_S)/((1 - rho_S)(1 - rho)))``: the mean wait bound with two levels."""
    return r0 * (pi_s / (1 - rho_s) + (1 - pi_s) / ((1 - rho_s) * (1 - rho)))


def _level_steps() -> tuple[Step, ...]:
    slack = {w_1: (T - e_1) / c1, w_2: (T - e_2) / c1}  # w_k (1 - sigma_l) = T - e_k, e_k >= 0 (step 4)
    return (
        *svf_poisson.sample_path_steps("any keys fixed by the type; 1-bit SVF's are the proxy volumes"),
        Step.assumption(
            "in mean, type k of level l: D w_k <= R + D (S_l + Q_l) + rho D + D sigma_l w_k: the waiting work of "
            "levels <= l, batch mates, and arrivals of levels < l during the wait (not of level l: not ahead)",
            svf_poisson.ASSUMED,
            "as in svf.poisson step 3, per type (Little's law per type: its work p_k o_k is fixed); the stationary "
            "regime is svf.poisson.stable's"),
        Step.identity(
            "divided by D: w_k (1 - sigma_l) <= r0 + S_l + Q_l =: T, the same T for every type of the level",
            D * w_k - (R + D * (S + Q) + rho * D + D * sigma_l * w_k),
            D * (w_k * (1 - sigma_l) - (R / D + rho + S + Q)), "r0 = R/D + rho"),
        Step.inequality(
            "the level's rho-weighted sum (two types written out): (1 - sigma_l) Q_l <= rho_l T",
            (rho_1 + rho_2) * T, ">=", c1 * (rho_1 * w_1 + rho_2 * w_2),
            "Q_l = rho_1 w_1 + rho_2 w_2, rho_l = rho_1 + rho_2; e_k the slack of step 4 for type k",
            certificate=[rho_1 * e_1, rho_2 * e_2], substitutions=slack),
        Step.identity(
            "with T = r0 + S_l + Q_l: Q_l (1 - sigma_{l+1}) <= rho_l (r0 + S_l), svf.poisson's recursion for the "
            "level's weighted mean wait Q_l/rho_l (sigma_{l+1} = sigma_l + rho_l)",
            rho_l * T - c1 * Q, rho_l * (r0 + S) - (c1 - rho_l) * Q, "expand T",
            substitutions={T: r0 + S + Q}),
    )


def _per_type_steps() -> tuple[Step, ...]:
    e_3, e_4 = sp.symbols("e_3 e_4", nonnegative=True)
    return (
        Step.inequality(
            "back per type: w_k <= T/(1 - sigma_l) and Q_l <= rho_l (r0 + S_l)/(1 - sigma_{l+1}) give "
            "w_k <= (r0 + S_l)/(1 - sigma_{l+1})",
            (r0 + S) / a, ">=", (r0 + S + rho_l * (r0 + S) / a - e_4 - e_3) / (a + rho_l),
            "1 - sigma_l = a + rho_l, a = 1 - sigma_{l+1} > 0; e_3, e_4 >= 0 the slacks of the two bounds",
            certificate=[e_3 / (a + rho_l), e_4 / (a + rho_l)]),
        Step.inequality(
            "with Cobham's r0 + S_l <= r0/(1 - sigma_l): w_k <= r0/((1 - sigma_l)(1 - sigma_{l+1}))",
            r0 / ((a + rho_l) * a), ">=", (r0 / (a + rho_l) - e_3) / a, "e_3 >= 0 the slack of Cobham's bound",
            certificate=[e_3 / a]),
        Step.identity(
            "two levels (equal prompts: short, then long): short types wait <= r0/(1 - rho_S), long types "
            "<= r0/((1 - rho_S)(1 - rho)); the mean wait bound",
            pi_s * r0 / ((1 - 0) * (1 - rho_s)) + (1 - pi_s) * r0 / ((1 - rho_s) * (1 - rho)), two_level_wait(),
            "sigma_1 = 0, sigma_2 = rho_S, sigma_3 = rho; pi_S the short share of arrivals"),
        Step.inequality(
            "the two-level bound is at most r0/(1 - rho)^2",
            r0 / cc**2, ">=", two_level_wait().subs({rho_s: 1 - cc - dd, rho: 1 - cc}),
            "1 - rho = c = 1/(1 + u) (rho = u/(1 + u) in [0, 1)), 1 - rho_S = c + d, d >= 0",
            certificate=[r0 * dd / (cc**2 * (cc + dd)), r0 * pi_s * (uu / (1 + uu)) / (cc * (cc + dd))],
            substitutions={cc: 1 / (1 + uu)}),
    )


def _penalty_steps() -> tuple[Step, ...]:
    """1-bit SVF's minorant: the proxy volume over Delta; the penalty; FCFS as one level; Phi >= 1."""
    vt, vt1, work, m_next, delta, gg = sp.symbols("vt_k vt_k+1 w_k m_next delta g", positive=True)
    epo, evt = sp.symbols("E_po E_vt", positive=True)
    big = sp.Symbol("Delta", positive=True)
    return (
        Step.inequality(
            "Delta = max_k v~_k/(p_k o_k): v~_k/Delta <= p_k o_k (Delta = v~_k/(p_k o_k) + delta, delta >= 0)",
            work, ">=", vt / (vt / work + delta), "the maximum is at least the type's own ratio",
            certificate=[work**2 * delta / (vt + delta * work)]),
        Step.inequality(
            "v~_k/Delta <= m1_k: case m1_k = m1 of the next level (else m1_k = p_k o_k, step above): it is >= "
            "v~_{k+1}/Delta (induction from the last level) >= v~_k/Delta (the key order)",
            m_next, ">=", vt / big, "the two premises", certificate=[m_next - vt1 / big, (vt1 - vt) / big],
            premises=[m_next - vt1 / big, vt1 - vt]),
        Step.inequality(
            "the penalty: Phi_1 = E[p o]/E[m1] <= Delta E[p o]/E[v~] (E[m1] = E[v~]/Delta + g, g >= 0)",
            big * epo / evt, ">=", epo / (evt / big + gg), "E[m1] >= E[v~]/Delta termwise",
            certificate=[big**2 * epo * gg / (evt * (evt + big * gg))]),
        Step.identity(
            "FCFS is one level (sigma_1 = 0, sigma_2 = rho): every type's bound is r0/(1 - rho), so E[W] <= "
            "r0/(1 - rho)",
            r0 / ((1 - 0) * (1 - rho)), r0 / (1 - rho), "one level: no type is ahead of another"),
        Step.inequality(
            "every closed form has Phi >= 1 (m <= p o termwise, E[m] = E[p o] - g): it is never below FCFS's",
            epo / (epo - gg), ">=", 1, "0 <= g < E[p o]", certificate=[gg / (epo - gg)], premises=[epo - gg]),
    )


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        f"ours (beside {KONG_PAPER}, Thm. 3.5)",
        "our derivation",
        "1-bit SVF: E[SVF1]/E[OPT] <= 1 + rho (1 + h) min(Phi_1/(1 - rho), 1/(1 - rho)^2)/E[o], rho = lambda E[p o]/"
        "((1 - alpha) M), h = E[p o (o - 1)/2]/E[p o], Phi_1 = E[p o]/E[m1] <= Delta E[p o]/E[v~]; with two levels "
        "E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/((1 - rho_S)(1 - rho)))",
        bound=svf_poisson.bound(ph=PHI_1),
        statement_latex=r"1-bit SVF: $\dfrac{\mathbb{E}[\mathrm{SVF}_1]}{\mathbb{E}[\mathrm{OPT}]} \le 1 + "
                        r"\dfrac{\rho(1+h)}{\mathbb{E}[o]}\min\Bigl(\dfrac{\Phi_1}{1-\rho}, "
                        r"\dfrac{1}{(1-\rho)^2}\Bigr)$ with $\Phi_1 = \mathbb{E}[p\,o]/\mathbb{E}[m_1] \le "
                        r"\Delta\,\mathbb{E}[p\,o]/\mathbb{E}[\tilde v]$, "
                        r"$\Delta = \max_k \tilde v_k/(p_k o_k)$; with two "
                        r"levels $\mathbb{E}[W] \le "
                        r"r_0\bigl(\frac{\pi_S}{1-\rho_S} + \frac{\pi_L}{(1-\rho_S)(1-\rho)}\bigr)$.",
        hypotheses=HYPOTHESES,
        steps=(*_level_steps(), *svf_poisson.cobham_steps(), *_per_type_steps(),
               *svf_poisson.chebyshev_steps("the key order (levels)", "level"), *_penalty_steps(),
               *svf_poisson.assembly_steps(), *svf_poisson.comparison_steps()),
        depends_on=("svf.poisson",),
        notes="Proved relative to PASTA, LITTLE, WALD and BATCH (svf.poisson's standard results) and to the "
              "hypotheses of svf.poisson (svf.poisson.stable's among them); the sample path is Coq's for any keys, "
              "Chebyshev's sum inequality Coq's. Cobham's and the Chebyshev steps read with levels for classes (Phi_1 "
              "for Phi in the assembly). The penalty Phi_1 is 1 when the key order agrees with p o's and grows with "
              "their disagreement: the analogue of the paper's eps, which Thm. 3.5 does not say how it enters.",
    )
