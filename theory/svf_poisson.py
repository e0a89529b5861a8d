"""``svf.poisson``: a Poisson bound for strict SVF of our own, every step checked or a named standard result.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Thm. 3.4, state ``E[SVF]/E[OPT] <= 1 + 2/((1-alpha)(1-mu)(1-rho))``;
their passage from the priority recursion to that factor could not be reconstructed here
(``kong.thm3.4``). This is the package's own bound, for the model of the simulator (discrete
steps, the forward-looking check, strict head-of-line SVF with arrivals):

* **model** (MODEL): at each step a Poisson(lambda) number of requests arrive, independently; each
  is of class k with probability pi_k (k = 1..K), class k has prompt s_k, output o_k >= 1 and peak
  p_k = s_k + o_k <= P = alpha M, and the classes' volumes are distinct (so the queue order is
  class, then arrival); D = (1 - alpha) M.
* **sample path** (Coq, every instance: ``online_wait_bound``, ``online_ahead``; row
  ``svf.online.lemmaA2``): ``D W_j <= R_j + sum of p_i o_i over the requests started during
  j's wait``, all of them ahead of j: waiting at j's arrival with class <= k, arrived with j
  in its step, or arrived during its wait with class < k.
* **in expectation**, by named standard results, each with its conditions (STABLE, PASTA,
  LITTLE, WALD, BATCH): with rho_i = lambda_i p_i o_i / D, sigma_k = sum_{i<k} rho_i,
  rho = sum rho_i and r0 = R/D + rho, R = sum_k lambda_k p_k o_k (o_k - 1)/2 the mean residual,
  the mean wait w_k of class k satisfies ``w_k (1 - sigma_{k+1}) <= r0 + sum_{i<k} rho_i w_i``.
* **algebra** (sympy): Cobham's induction gives ``w_k <= r0/((1 - sigma_k)(1 - sigma_{k+1}))
  <= r0/(1 - rho)^2``, and with E[OPT] >= E[o] per request:

.. math::  \\frac{E[\\mathrm{SVF}]}{E[\\mathrm{OPT}]} \\le 1 + \\frac{\\rho\\,(1 + h)}{(1-\\rho)^2\\,E[o]},\\qquad
           \\rho = \\frac{\\lambda E[p\\,o]}{(1-\\alpha)M},\\quad h = \\frac{E[p\\,o\\,(o-1)/2]}{E[p\\,o]}.

Against the paper's bound: our rho is at most theirs (``p o <= 2 v``); ours tends to 1 in
light traffic (theirs to ``1 + 2/((1-alpha)(1-mu)) >= 3``) and grows like ``(1 - rho)^-2`` in
heavy traffic (theirs like ``(1 - rho)^-1``): neither implies the other. The word is
``proved relative to`` the standard results it assumes, never ``proved``.

Example
-------
>>> derivation().check().status
'unknown'
>>> bound().subs({rho: sp.Rational(1, 2), h: 1, Eo: 2})
3
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "svf.poisson", f"ours; beside {KONG} Thm. 3.4",
    "strict SVF, Poisson arrivals, K classes: E[SVF]/E[OPT] <= 1 + rho(1 + h)/((1 - rho)^2 E[o]), "
    "rho = lambda E[p o]/((1-alpha)M) < 1",
    "sample path in Coq (online_wait_bound, online_ahead: every instance); the expectation step by the named "
    "standard results STABLE, PASTA, LITTLE, WALD, BATCH (assumed, each with its conditions); Cobham's induction, "
    "the per-class and mean-wait bounds and the comparison with Thm. 3.4 by sympy; the residual it assumes simulated "
    "(monte-carlo:poisson-residual), and each hypothesis' quantity on strict and 1-bit SVF (monte-carlo:poisson-"
    "little, -pasta, -wald, -batch, -stable): each refuted if off, and vacuous, with the row, unless the same test "
    "refutes its canary, the run's data planted 10% off (for STABLE an overloaded run)",
    "not the paper's bound (its passage to (1-mu)(1-rho) is not reconstructed, kong.thm3.4); a finite set of "
    "classes with distinct volumes and p <= alpha M (truncated lengths), the stationary regime",
    ("derivation", "coq:online_wait_bound", "coq:online_ahead", "monte-carlo:poisson-residual",
     "monte-carlo:poisson-little", "monte-carlo:poisson-pasta", "monte-carlo:poisson-wald", "monte-carlo:poisson-batch",
     "monte-carlo:poisson-stable"),
    ("svf.online.lemmaA2",),
    coq=(
        ("online_wait_bound",
         "forall (M P : nat) (ks ars : list nat) (rs : list Model.req) (j : nat), (forall r : "
         "Model.req, List.In r rs -> Model.peak r <= P) -> j < length rs -> let xs := "
         "OnlineSvf.osvf M ks ars rs in (M - P) * (List.nth j xs 0 - List.nth j ars 0) <= "
         "OnlineA2.oresidual rs xs (List.nth j ars 0) + OnlineA2.oahead_work rs xs (List.nth j ars "
         "0) (List.nth j xs 0)"),
        ("online_ahead",
         "forall (M : nat) (ks ars : list nat) (rs : list Model.req) (i j : nat), (forall r : "
         "Model.req, List.In r rs -> Model.peak r <= M) -> i < length rs -> j < length rs -> "
         "List.nth j ars 0 <= List.nth i (OnlineSvf.osvf M ks ars rs) 0 < List.nth j "
         "(OnlineSvf.osvf M ks ars rs) 0 -> List.nth i ks 0 < List.nth j ks 0 \\/ List.nth i ks 0 = "
         "List.nth j ks 0 /\\ (List.nth i ars 0 < List.nth j ars 0 \\/ List.nth i ars 0 = List.nth j "
         "ars 0 /\\ i < j)"),
    ),
    order=("ours", 76))
CLAIM_ID = CLAIM.id

rho, h, r0 = sp.symbols("rho h r_0", nonnegative=True)
Eo = sp.Symbol("E_o", positive=True)
a, c = sp.symbols("a c", positive=True)  # a = 1 - sigma_{k+1} > 0; c = 1 - rho > 0
rho_k, d, e1, e2 = sp.symbols("rho_k d e_1 e_2", nonnegative=True)
W, Wk, g = sp.symbols("E_W w_k g", nonnegative=True)
s, o = sp.symbols("s o", nonnegative=True)
D = sp.Symbol("D", positive=True)
R, Q, sigma_k, sigma_k1 = sp.symbols("R Q sigma_k sigma_k+1", nonnegative=True)
alpha, mu, rho_paper = sp.symbols("alpha mu rho_paper", positive=True)
_pi = sp.symbols("pi_1:4", nonnegative=True)
_slack = sp.symbols("e_w1:4", nonnegative=True)

HYPOTHESES = (
    Hypothesis("MODEL", "discrete steps; Poisson(lambda) arrivals per step, independent; class k w.p. pi_k with "
                        "(s_k, o_k), o_k >= 1, p_k = s_k + o_k <= alpha M, distinct volumes; strict SVF with the "
                        "forward-looking check; D = (1 - alpha) M",
               latex=r"discrete steps; Poisson($\lambda$) arrivals per step, independent; class $k$ with probability "
                     r"$\pi_k$ has $(s_k, o_k)$, $o_k \ge 1$, $p_k = s_k + o_k \le \alpha M$, distinct volumes; strict "
                     r"SVF with the forward-looking check; $D = (1-\alpha)M$",
               outside="none: MODEL defines the process the bound is about; another arrival law or policy is "
                       "a different statement, not claimed"),
    Hypothesis("STABLE", "rho < 1 gives a stationary regime with finite mean waits w_k",
               latex=r"$\rho < 1$ gives a stationary regime with finite mean waits $w_k$",
               outside="none: at rho >= 1 there is no stationary regime, so the means the bound compares do not "
                       "exist (the formula's value there means nothing); not a premise a counterexample can break"),
    Hypothesis("PASTA", "Poisson arrivals see time averages (arrivals independent of the past; stationary)",
               latex=r"Poisson arrivals see time averages (arrivals independent of the past; stationary)",
               outside="none known: PASTA holds for every Poisson arrival stream (Wolff 1982), assumed here, not "
                       "proved in Coq; for other arrival laws the bound is not claimed"),
    Hypothesis("LITTLE", "H = lambda G for the residual R and the waiting counts lambda_i w_i (stationary; "
                         "finite means)",
               latex=r"$H = \lambda G$ for the residual $R$ and the waiting counts $\lambda_i w_i$ (stationary; "
                     r"finite means)",
               outside="none: Little's law holds for every stationary system with finite means (STABLE gives "
                       "both); a theorem assumed here, not a restriction of the model"),
    Hypothesis("WALD", "class-i arrivals during a wait W: lambda_i E[W] in mean (its end is a stopping time)",
               latex=r"class-$i$ arrivals during a wait $W$: $\lambda_i \mathbb{E}[W]$ in mean (its end is a "
                     r"stopping time)",
               outside="none: Wald's identity holds for every stopping time of finite mean (STABLE gives it); "
                       "a theorem assumed here, not a restriction of the model"),
    Hypothesis("BATCH", "an arrival's batch mates are Poisson(lambda): their work ahead is at most rho D in mean",
               latex=r"an arrival's batch mates are Poisson($\lambda$): their work ahead is at most $\rho D$ in mean",
               outside="none known for Poisson batches (their mean size is lambda, which MODEL fixes); for other "
                       "batch laws the work ahead is not bounded by rho D and the bound is not claimed"),
)


def bound(r=rho, hh=h, eo=Eo):
    """1 + rho (1 + h)/((1 - rho)^2 E[o])."""
    return 1 + r * (1 + hh) / ((1 - r) ** 2 * eo)


def paper_bound(al=alpha, m=mu, p=rho_paper):
    """Kong et al.'s 1 + 2/((1 - alpha)(1 - mu)(1 - rho))."""
    return 1 + 2 / ((1 - al) * (1 - m) * (1 - p))


def sample_path_steps(keys: str = "SVF's volume keys") -> tuple[Step, ...]:
    """The two Coq steps of the sample path, one theorem each (shared with ``svf1.poisson``)."""
    return (
        Step.unchecked(
            "sample path: D W_j <= R_j + sum of p_i o_i over the requests started during j's wait",
            "every waiting step certifies active peaks > M - P (online Lemma A.2); summed over the wait",
            "a statement about every trace", covered_by=("coq:online_wait_bound",)),
        Step.unchecked(
            f"each request started during j's wait is ahead of j ({keys}): a smaller key, or an equal key and an "
            "earlier arrival, or the same arrival and an earlier position",
            "strict head-of-line: the head is the first waiting request in (key, arrival, position) order",
            "a statement about every trace", covered_by=("coq:online_ahead",)),
    )


def _expectation_steps() -> tuple[Step, ...]:
    return (
        *sample_path_steps(),
        Step.assumption(
            "in mean, class k: D w_k <= R + sum_{i<=k} lambda_i p_i o_i w_i + rho D + (sum_{i<k} lambda_i p_i o_i) w_k",
            ("STABLE", "PASTA", "LITTLE", "WALD", "BATCH"),
            "the residual at arrival (PASTA, LITTLE); the waiting work of classes <= k (PASTA, LITTLE); batch "
            "mates (BATCH); arrivals of classes < k during the wait (WALD); means finite (STABLE)"),
        Step.identity(
            "rearranged and divided by D: w_k (1 - sigma_{k+1}) <= r0 + sum_{i<k} rho_i w_i =: S_k, r0 = R/D + rho",
            D * Wk - (R + rho * D + D * Q + D * rho_k * Wk + D * sigma_k * Wk),
            D * (Wk * (1 - sigma_k1) - (R / D + rho + Q)),
            "lambda_i p_i o_i = D rho_i; Q = sum_{i<k} rho_i w_i; sigma_{k+1} = sigma_k + rho_k",
            substitutions={sigma_k1: sigma_k + rho_k}),
    )


def cobham_steps() -> tuple[Step, ...]:
    """Cobham's induction from the recursion ``w_k (1 - sigma_{k+1}) <= r0 + sum_{i<k} rho_i w_i`` to
    ``w_k <= r0/(1 - rho)^2`` and the mean wait (shared with ``svf1.poisson``, whose levels obey it)."""
    s_k = r0 / (a + rho_k) - e1  # S_k <= r0/(1 - sigma_k), 1 - sigma_k = a + rho_k
    w_k = s_k / a - e2  # w_k <= S_k/(1 - sigma_{k+1})
    return (
        Step.identity("base: S_1 = r0 = r0/(1 - sigma_1), sigma_1 = 0", r0 / (1 - 0), r0, "no class before 1"),
        Step.inequality(
            "induction, the class: S_k <= r0/(1 - sigma_k) and w_k <= S_k/(1 - sigma_{k+1}) give "
            "w_k <= r0/((1 - sigma_k)(1 - sigma_{k+1}))",
            r0 / ((a + rho_k) * a), ">=", w_k, "e_1, e_2 >= 0 the slacks of the two hypotheses",
            certificate=[e1 / a, e2]),
        Step.inequality(
            "induction, the sum: S_{k+1} = S_k + rho_k w_k <= r0/(1 - sigma_{k+1})",
            r0 / a, ">=", s_k + rho_k * w_k, "Cobham's telescoping: r0/(a + rho_k) + rho_k r0/((a + rho_k) a) = r0/a",
            certificate=[e1, rho_k * e1 / a, rho_k * e2]),
        Step.inequality(
            "each class: r0/((1 - sigma_k)(1 - sigma_{k+1})) <= r0/(1 - rho)^2, as sigma_k <= sigma_{k+1} <= rho",
            r0 / c**2, ">=", r0 / ((c + d) * (c + d + rho_k)), "1 - sigma_{k+1} = c + d, d >= 0",
            certificate=[r0 * (2 * c * d + c * rho_k + d**2 + d * rho_k) / (c**2 * (c + d) * (c + d + rho_k))]),
        Step.inequality(
            "the mean wait (K = 3 written out): E[W] = sum_k pi_k w_k <= r0/(1 - rho)^2",
            r0 / c**2, ">=", sum(p * (r0 / c**2 - e) for p, e in zip(_pi, _slack)),
            "sum_k pi_k = 1; w_k = r0/(1 - rho)^2 - e_k with e_k >= 0",
            certificate=[p * e for p, e in zip(_pi, _slack)], substitutions={_pi[2]: 1 - _pi[0] - _pi[1]},
            premises=[1 - _pi[0] - _pi[1]]),
    )


def assembly_steps() -> tuple[Step, ...]:
    """From the mean wait to the ratio bound (shared with ``svf1.poisson``)."""
    return (
        Step.inequality(
            "per request E[OPT] >= E[o]: E[SVF]/E[OPT] <= (E[W] + E[o])/E[o] = 1 + E[W]/E[o]",
            (W + Eo) / Eo, ">=", (W + Eo) / (Eo + g),
            "TEL per request is W + o under SVF and at least o under any schedule: E[OPT] = E[o] + g, g >= 0",
            certificate=[(W + Eo) * g / (Eo * (Eo + g))]),
        Step.inequality(
            "with E[W] <= r0/(1 - rho)^2 and r0 = R/D + rho = rho (1 + h): the bound",
            bound(), ">=", 1 + (r0 / (1 - rho) ** 2 - e1) / Eo,
            "R/D = rho h by the definitions of rho and h; e_1 >= 0 the slack of the mean-wait bound",
            certificate=[e1 / Eo], substitutions={r0: rho * (1 + h)}),
    )


def comparison_steps() -> tuple[Step, ...]:
    """Our bound against the paper's Thm. 3.4 (shared with ``svf1.poisson``, whose bound is the same)."""
    return (
        Step.inequality("our rho is at most the paper's: p o <= 2 v, as 2 v - p o = s o + o >= 0",
                        2 * (s * o + (o**2 + o) / 2), ">=", (s + o) * o, "v = s o + (o^2 + o)/2, p = s + o",
                        certificate=[s * o + o]),
        Step.limit("light traffic: ours tends to 1 as rho -> 0", bound(), rho, 0, 1, "continuity", direction="+"),
        Step.limit("light traffic: the paper's stays at 1 + 2/((1 - alpha)(1 - mu)) as rho -> 0",
                   paper_bound(), rho_paper, 0, 1 + 2 / ((1 - alpha) * (1 - mu)), "continuity", direction="+"),
        Step.limit("heavy traffic: (1 - rho) x ours diverges (order (1 - rho)^-2)", (1 - rho) * bound(), rho, 1,
                   sp.oo, "the factor (1 - rho)^-2", direction="-"),
        Step.limit("heavy traffic: (1 - rho) x the paper's stays finite (order (1 - rho)^-1)",
                   (1 - rho_paper) * paper_bound(), rho_paper, 1, 2 / ((1 - alpha) * (1 - mu)), "cancel (1 - rho)",
                   direction="-"),
    )


def derivation() -> Derivation:
    return Derivation(
        CLAIM_ID,
        "ours (beside Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.4)",
        "our derivation",
        "E[SVF]/E[OPT] <= 1 + rho (1 + h)/((1 - rho)^2 E[o]), rho = lambda E[p o]/((1 - alpha) M), "
        "h = E[p o (o - 1)/2]/E[p o]",
        bound=bound(),
        statement_latex=r"$\dfrac{\mathbb{E}[\mathrm{SVF}]}{\mathbb{E}[\mathrm{OPT}]} \le 1 + "
                        r"\dfrac{\rho(1+h)}{(1-\rho)^2\,\mathbb{E}[o]}$ with $\rho = \dfrac{\lambda\,\mathbb{E}[p\,o]}"
                        r"{(1-\alpha)M}$, $h = \dfrac{\mathbb{E}[p\,o\,(o-1)/2]}{\mathbb{E}[p\,o]}$.",
        hypotheses=HYPOTHESES,
        steps=(*_expectation_steps(), *cobham_steps(), *assembly_steps(), *comparison_steps()),
        depends_on=("svf.online.lemmaA2",),
        notes="Proved relative to STABLE, PASTA, LITTLE, WALD and BATCH (standard results, assumed with their "
              "conditions); the sample-path step is Coq's. Neither this bound nor Thm. 3.4's implies the other.",
    )
