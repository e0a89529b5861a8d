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
* **in expectation** (STABLE, PASTA, LITTLE, WALD, BATCH of ``svf.poisson``), a type ``k`` of
  level ``l``: ``w_k (1 - sigma_l) <= r0 + S_l + Q_l`` with ``Q_l = sum_{i in l} rho_i w_i``,
  ``S_l = sum_{l' < l} Q_l'``, ``sigma_l`` the load of the levels before ``l``: every type of a
  level has the same right-hand side, since arrivals of its own level during the wait are not
  ahead.
* **algebra** (sympy): the ``rho``-weighted mean of a level, ``Q_l/rho_l``, obeys
  ``svf.poisson``'s recursion with levels for classes, so Cobham's induction applies; back per
  type, ``w_k <= (r0 + S_l)/(1 - sigma_{l+1}) <= r0/((1 - sigma_l)(1 - sigma_{l+1}))``. Two
  levels: ``E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/((1 - rho_S)(1 - rho))) <= r0/(1 - rho)^2``.

.. math::  \\frac{E[\\mathrm{SVF}_1]}{E[\\mathrm{OPT}]} \\le 1 + \\frac{\\rho\\,(1 + h)}{(1-\\rho)^2\\,E[o]}

the bound of ``svf.poisson`` with **no penalty**: that bound never uses the volume order (any
key fixed by the type obeys it), so the bit's distortion costs nothing at its resolution, where
the paper's Thm. 3.5 pays ``eps`` on a bound that does use it. Neither implies the other. The
word is ``proved relative to`` the named results, never ``proved``.

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
from geosched.theory.claim import KONG, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.svf_poisson import a, r0, rho

CLAIM = Claim(
    "svf1.poisson", f"ours; beside {KONG} Thm. 3.5",
    "1-bit SVF (class bit a function of the type, priority by the proxy volume, exact lengths in the check), "
    "Poisson arrivals, K types: E[SVF1]/E[OPT] <= 1 + rho(1 + h)/((1 - rho)^2 E[o]), rho = lambda E[p o]/"
    "((1-alpha)M) < 1, with no penalty; two levels (equal prompts): E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/"
    "((1 - rho_S)(1 - rho)))",
    "sample path in Coq for any priority keys (online_wait_bound, online_ahead: every instance); the expectation "
    "step by STABLE, PASTA, LITTLE, WALD, BATCH (svf.poisson's, assumed, each with its conditions) per type; the "
    "levels of equal keys, their weighted recursion, Cobham's induction, the per-type, two-level and mean-wait "
    "bounds by sympy; the residual and each hypothesis' quantity simulated on 1-bit SVF beside SVF "
    "(monte-carlo:poisson-residual, -little, -pasta, -wald, -batch, -stable: refuted if off, vacuous with the row "
    "unless the same test refutes its canary, the data planted 10% off, for STABLE an overloaded run)",
    "not the paper's Thm. 3.5 (how its eps enters is not reconstructed, kong.thm3.5); the bound does not use the "
    "volume order, so it holds as well for any key fixed by the type (it cannot show 1-bit SVF better than FCFS); "
    "finitely many types, p <= alpha M, the stationary regime",
    svf_poisson.CLAIM.methods,  # the same sample path and the same simulated hypotheses
    ("svf.poisson",),
    coq=svf_poisson.CLAIM.coq,
    order=("ours", 77))
CLAIM_ID = CLAIM.id

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
            ("STABLE", "PASTA", "LITTLE", "WALD", "BATCH"),
            "as in svf.poisson step 3, per type (Little's law per type: its work p_k o_k is fixed)"),
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


def derivation() -> Derivation:
    return Derivation(
        CLAIM_ID,
        "ours (beside Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.5)",
        "our derivation",
        "1-bit SVF: E[SVF1]/E[OPT] <= 1 + rho (1 + h)/((1 - rho)^2 E[o]), rho = lambda E[p o]/((1 - alpha) M), "
        "h = E[p o (o - 1)/2]/E[p o]; with two levels E[W] <= r0 (pi_S/(1 - rho_S) + pi_L/((1 - rho_S)(1 - rho)))",
        bound=svf_poisson.bound(),
        statement_latex=r"1-bit SVF: $\dfrac{\mathbb{E}[\mathrm{SVF}_1]}{\mathbb{E}[\mathrm{OPT}]} \le 1 + "
                        r"\dfrac{\rho(1+h)}{(1-\rho)^2\,\mathbb{E}[o]}$ with $\rho = \dfrac{\lambda\,\mathbb{E}[p\,o]}"
                        r"{(1-\alpha)M}$, $h = \dfrac{\mathbb{E}[p\,o\,(o-1)/2]}{\mathbb{E}[p\,o]}$; with two "
                        r"levels $\mathbb{E}[W] \le "
                        r"r_0\bigl(\frac{\pi_S}{1-\rho_S} + \frac{\pi_L}{(1-\rho_S)(1-\rho)}\bigr)$.",
        hypotheses=HYPOTHESES,
        steps=(*_level_steps(), *svf_poisson.cobham_steps(), *_per_type_steps(), *svf_poisson.assembly_steps(),
               *svf_poisson.comparison_steps()),
        depends_on=("svf.poisson",),
        notes="Proved relative to STABLE, PASTA, LITTLE, WALD and BATCH (svf.poisson's standard results); the "
              "sample path is Coq's for any keys. Cobham's steps read with levels for classes and Q_l/rho_l for "
              "w_k. No penalty: the bound holds for every key fixed by the type, so the bit's distortion (the "
              "paper's eps) does not enter; it cannot separate 1-bit SVF from SVF or FCFS. The comparison steps are "
              "svf.poisson's against Thm. 3.4's bound, which Thm. 3.5 keeps up to eps: in light traffic ours tends "
              "to 1 and the paper's stays at 1 + 2/((1 - alpha)(1 - mu)) or more, in heavy traffic ours grows like "
              "(1 - rho)^-2 and the paper's like (1 - rho)^-1: neither implies the other.",
    )
