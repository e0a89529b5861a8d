"""``svf.poisson``: a Poisson bound for strict SVF of our own, every step checked or a named standard result.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Thm. 3.4, state ``E[SVF]/E[OPT] <= 1 + 2/((1-alpha)(1-mu)(1-rho))``;
this is the package's own bound, for the model of the simulator (discrete steps, the forward-looking
check, strict head-of-line SVF with arrivals); ``kong.thm3.4`` derives the paper's from it under a
stated condition:

* **model** (MODEL): at each step a Poisson(lambda) number of requests arrive, independently; each
  is of class k with probability pi_k (k = 1..K), class k has prompt s_k, output o_k >= 1 and peak
  p_k = s_k + o_k <= P = alpha M, and the classes' volumes are distinct (so the queue order is
  class, then arrival); D = (1 - alpha) M.
* **stationary** (``svf.poisson.stable``): for ``lambda E[p o] < M + 1 - P`` (which ``rho < 1``
  implies) the process has a stationary regime with finite mean waits, by a Foster-Lyapunov drift
  on the peak-time workload (Coq drift inequality, Foster's criterion named).
* **sample path** (Coq, every instance: ``online_wait_bound``, ``online_ahead``; row
  ``svf.online.lemmaA2``): ``D W_j <= R_j + sum of p_i o_i over the requests started during
  j's wait``, all of them ahead of j.
* **in expectation**, by named standard results (PASTA, LITTLE, WALD, BATCH): with
  rho_i = lambda_i p_i o_i / D, sigma_k = sum_{i<k} rho_i, rho = sum rho_i and r0 = R/D + rho,
  R = sum_k lambda_k p_k o_k (o_k - 1)/2 the mean residual, the mean wait w_k of class k satisfies
  ``w_k (1 - sigma_{k+1}) <= r0 + sum_{i<k} rho_i w_i``.
* **Cobham** (sympy): ``w_k <= b_k = r0/((1 - sigma_k)(1 - sigma_{k+1})) <= r0/(1 - rho)^2``; the
  per-class bound ``E[W] <= sum_k pi_k b_k``.
* **Chebyshev** (Coq ``chebyshev_dominated``, every n, every ordered ring; the rest sympy): the
  b_k are non-decreasing in the volume order, and so is ``m_k = min_{j >= k} p_j o_j <= p_k o_k``;
  so ``E[m] sum_k pi_k b_k <= sum_k pi_k p_k o_k b_k``, which Cobham's telescoping sums to
  ``E[p o] r0/(1 - rho)``:

.. math::  \\frac{E[\\mathrm{SVF}]}{E[\\mathrm{OPT}]} \\le 1 + \\frac{\\rho\\,(1 + h)}{E[o]}
           \\min\\Bigl(\\frac{\\Phi}{1-\\rho}, \\frac{1}{(1-\\rho)^2}\\Bigr),\\quad
           \\Phi = \\frac{E[p\\,o]}{E[m]} \\le \\frac{E[p\\,o]}{E[v]} \\le 2,

``rho = lambda E[p o]/((1-alpha)M)``, ``h = E[p o (o-1)/2]/E[p o]``. ``Phi = 1`` when ``p o`` is
non-decreasing in the volume order: then the closed form is FCFS's own ``r0/(1 - rho)`` (the
per-class bound stays below it). The word is ``proved relative to`` the standard results it
assumes, never ``proved``.

Example
-------
>>> derivation().check().status
'unknown'
>>> square_bound().subs({rho: sp.Rational(1, 2), h: 1, Eo: 2})
3
>>> chebyshev_bound().subs({rho: sp.Rational(1, 2), h: 1, Eo: 2, Phi: 1})
2
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

_STATEMENT = (
    "strict SVF, Poisson arrivals, K classes: E[SVF]/E[OPT] <= 1 + rho(1 + h) min(Phi/(1 - rho), 1/(1 - rho)^2)/E[o], "
    "rho = lambda E[p o]/((1-alpha)M) < 1, h = E[p o (o-1)/2]/E[p o], Phi = E[p o]/E[m] <= E[p o]/E[v] <= 2 "
    "(m_k = min of p_j o_j over the classes j >= k in the volume order; Phi = 1 when p o is non-decreasing in it); "
    "per class E[W] <= sum_k pi_k r0/((1 - sigma_k)(1 - sigma_{k+1})), r0 = rho(1 + h)")

CLAIM = Claim(
    "svf.poisson", f"ours; beside {KONG} Thm. 3.4", _STATEMENT,
    "sample path in Coq (online_wait_bound, online_ahead: every instance); the stationary regime proved in "
    "svf.poisson.stable (drift in Coq, Foster's criterion named); the expectation step by the named standard results "
    "PASTA, LITTLE, WALD, BATCH (assumed, each with its conditions); Cobham's induction, the per-class, monotone, "
    "telescoped and mean-wait bounds by sympy, Chebyshev's sum inequality in Coq (chebyshev_dominated, every n); the "
    "expected-wait inequality itself simulated on a nearly tight workload (monte-carlo:poisson-step3: refuted if a "
    "class's mean wait exceeds it, vacuous unless the inequality with the residual dropped is refuted); the residual "
    "(monte-carlo:poisson-residual) and each hypothesis' quantity (-little, -pasta, -wald, -batch, -stable) on strict "
    "and 1-bit SVF (refuted if off; vacuous, with the row, unless the same test refutes its canary, the data planted "
    "10% off, for STABLE an overloaded run); the "
    "capacity lower bound on OPT against exact OPT (monte-carlo:capacity-bound)",
    "not the paper's bound (kong.thm3.4 derives it from this one under a condition); a finite set of classes with "
    "distinct volumes and p <= alpha M (truncated lengths), the stationary regime; E[OPT] >= E[o] per request in the "
    "closed form (the capacity relaxation's mean is a larger denominator, measured, not in closed form)",
    ("derivation", "coq:online_wait_bound", "coq:online_ahead", "coq:chebyshev_dominated",
     "monte-carlo:poisson-step3", "monte-carlo:poisson-residual", "monte-carlo:poisson-little",
     "monte-carlo:poisson-pasta", "monte-carlo:poisson-wald", "monte-carlo:poisson-batch",
     "monte-carlo:poisson-stable", "monte-carlo:capacity-bound"),
    ("svf.online.lemmaA2", "svf.poisson.stable"),
    coq=("online_wait_bound", "online_ahead", "chebyshev_dominated"),
    order=("ours", 77))

rho, h, r0 = sp.symbols("rho h r_0", nonnegative=True)
Eo = sp.Symbol("E_o", positive=True)
Phi = sp.Symbol("Phi", positive=True)
a, c = sp.symbols("a c", positive=True)  # a = 1 - sigma_{k+1} > 0; c = 1 - rho > 0
rho_k, d, e1, e2 = sp.symbols("rho_k d e_1 e_2", nonnegative=True)
W, Wk, g = sp.symbols("E_W w_k g", nonnegative=True)
s, o = sp.symbols("s o", nonnegative=True)
D = sp.Symbol("D", positive=True)
R, Q, sigma_k, sigma_k1 = sp.symbols("R Q sigma_k sigma_k+1", nonnegative=True)
_pi = sp.symbols("pi_1:4", nonnegative=True)
_slack = sp.symbols("e_w1:4", nonnegative=True)
# the Chebyshev steps: a2 = 1 - sigma_{k+2} > 0, rho_k1 = rho_{k+1}; u = o - 1 >= 0; lam the arrival rate
a2 = sp.Symbol("a_2", positive=True)
rho_k1, u, dd = sp.symbols("rho_k+1 u delta", nonnegative=True)
lam, pi_k, work_k, b_k = sp.symbols("lambda pi_k w_k b_k", positive=True)
Epo, Em, Ev, B = sp.symbols("E_po E_m E_v B", positive=True)
m_k, m_k1, v_k, v_k1 = sp.symbols("m_k m_k+1 v_k v_k+1", nonnegative=True)
F = sp.Function("F")
K = sp.Symbol("K", integer=True, positive=True)

HYPOTHESES = (
    Hypothesis("MODEL", "discrete steps; Poisson(lambda) arrivals per step, independent; class k w.p. pi_k with "
                        "(s_k, o_k), o_k >= 1, p_k = s_k + o_k <= alpha M, distinct volumes (types of equal volume "
                        "form one level: svf1.poisson's derivation with the volume as key); strict SVF with the "
                        "forward-looking check; D = (1 - alpha) M",
               latex=r"discrete steps; Poisson($\lambda$) arrivals per step, independent; class $k$ with probability "
                     r"$\pi_k$ has $(s_k, o_k)$, $o_k \ge 1$, $p_k = s_k + o_k \le \alpha M$, distinct volumes; strict "
                     r"SVF with the forward-looking check; $D = (1-\alpha)M$",
               outside="none: MODEL defines the process the bound is about; another arrival law or policy is "
                       "a different statement, not claimed"),
    Hypothesis("STABLE", "a stationary regime with finite mean waits w_k: proved in svf.poisson.stable for "
                         "lambda E[p o] < M + 1 - P, which rho < 1 implies (not assumed here)",
               latex=r"a stationary regime with finite mean waits $w_k$: proved in \texttt{svf.poisson.stable} for "
                     r"$\lambda\,\mathbb{E}[p\,o] < M + 1 - P$, which $\rho < 1$ implies",
               outside="none: for rho >= 1 the bound's formula has no value; the process may still be stationary "
                       "(svf.poisson.stable: this project's workload is stable up to rho* = 1.67), but the bound "
                       "is not claimed there"),
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
ASSUMED = ("PASTA", "LITTLE", "WALD", "BATCH")  # the hypotheses the expectation step applies (STABLE is proved)


def square_bound(r=rho, hh=h, eo=Eo):
    """1 + rho (1 + h)/((1 - rho)^2 E[o]): the bound before the Chebyshev step."""
    return 1 + r * (1 + hh) / ((1 - r) ** 2 * eo)


def chebyshev_bound(r=rho, hh=h, eo=Eo, ph=Phi):
    """1 + Phi rho (1 + h)/((1 - rho) E[o]): the Chebyshev step's bound."""
    return 1 + ph * r * (1 + hh) / ((1 - r) * eo)


def bound(r=rho, hh=h, eo=Eo, ph=Phi):
    """The row's bound: the smaller of :func:`square_bound` and :func:`chebyshev_bound`."""
    return sp.Min(square_bound(r, hh, eo), chebyshev_bound(r, hh, eo, ph))


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
            ASSUMED,
            "the residual at arrival (PASTA, LITTLE); the waiting work of classes <= k (PASTA, LITTLE); batch "
            "mates (BATCH); arrivals of classes < k during the wait (WALD); the stationary regime and finite means "
            "are svf.poisson.stable's (STABLE, proved there)"),
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


def chebyshev_steps(order: str = "the volume order", unit: str = "class") -> tuple[Step, ...]:
    """From the per-``unit`` bounds ``b = r0/((1 - sigma)(1 - sigma'))`` to ``E[W] <= (E[p o]/E[m]) r0/(1 - rho)``:
    the bounds and the minorant ``m`` of ``p o`` are non-decreasing in ``order`` (Chebyshev's sum inequality in Coq),
    and Cobham's telescoping sums ``rho_k b_k`` (shared with ``svf1.poisson``, whose units are the levels)."""
    b = sp.symbols("b_1:4", positive=True)
    return (
        Step.inequality(
            f"the per-{unit} bounds are non-decreasing in {order}: b_k = r0/((1 - sigma_k)(1 - sigma_{{k+1}})) <= "
            "b_{k+1}",
            r0 / ((a2 + rho_k1) * a2), ">=", r0 / ((a2 + rho_k1 + rho_k) * (a2 + rho_k1)),
            "1 - sigma_{k+2} = a_2 > 0, 1 - sigma_{k+1} = a_2 + rho_{k+1}, 1 - sigma_k = a_2 + rho_{k+1} + rho_k",
            certificate=[r0 * (rho_k + rho_k1) / (a2 * (a2 + rho_k1) * (a2 + rho_k1 + rho_k))]),
        Step.inequality(
            f"the minorant m_k = min(p_k o_k, m_{{k+1}}) (the next {unit}'s), case p_k o_k <= m_{{k+1}} "
            "(m_k = p_k o_k): m_k <= m_{k+1}",
            m_k1, ">=", work_k, "the case's condition", certificate=[m_k1 - work_k], premises=[m_k1 - work_k]),
        Step.inequality(
            "the minorant, case p_k o_k > m_{k+1} (m_k = m_{k+1}): m_k <= p_k o_k; so m_k <= p_k o_k and "
            f"m_k <= m_{{k+1}} in both cases: m is non-decreasing in {order} and below p o",
            work_k, ">=", m_k1, "the case's condition", certificate=[work_k - m_k1], premises=[work_k - m_k1]),
        Step.unchecked(
            f"Chebyshev: E[m] sum_k pi_k b_k <= sum_k pi_k p_k o_k b_k (entries (pi_k, m_k, b_k), c = p o; m and b "
            f"non-decreasing in {order}, so (m_i - m_j)(b_i - b_j) >= 0 for every two; m <= p o; b >= 0; "
            "sum_k pi_k = 1)",
            "Chebyshev's sum inequality with weights, dominated form, for every list of similarly ordered entries over "
            "every commutative ordered ring (the reals among them)",
            "a statement for every number of classes K", covered_by=("coq:chebyshev_dominated",)),
        Step.identity(
            "telescoping term: rho_k b_k = r0/(1 - sigma_{k+1}) - r0/(1 - sigma_k)",
            rho_k * r0 / ((a + rho_k) * a), r0 / a - r0 / (a + rho_k),
            "1 - sigma_{k+1} = a, 1 - sigma_k = a + rho_k; partial fractions"),
        Step.identity("telescoping, induction step: S(K+1) - S(K) = F(K+1) - F(K) for S(K) = F(K+1) - F(1)",
                      (F(K + 1) - F(1)) - (F(K) - F(1)), F(K + 1) - F(K),
                      "S(K) = sum_{k<=K} (F(k+1) - F(k)), F(k) = r0/(1 - sigma_k); base S(1) = F(2) - F(1)"),
        Step.identity("the telescoped sum: sum_k rho_k b_k = r0/(1 - rho) - r0 = r0 rho/(1 - rho)",
                      r0 / (1 - rho) - r0 / (1 - 0), r0 * rho / (1 - rho), "sigma_1 = 0, sigma_{K+1} = rho"),
        Step.identity("per term: pi_k p_k o_k b_k = (D/lambda) rho_k b_k", pi_k * work_k * b_k,
                      (D / lam) * (lam * pi_k * work_k / D) * b_k, "rho_k = lambda pi_k p_k o_k / D"),
        Step.identity("so sum_k pi_k p_k o_k b_k = (D/lambda) r0 rho/(1 - rho) = E[p o] r0/(1 - rho)",
                      (D / lam) * r0 * rho / (1 - rho), Epo * r0 / (1 - rho), "rho = lambda E[p o]/D",
                      substitutions={rho: lam * Epo / D}),
        Step.inequality(
            f"so the mean of the per-{unit} bounds: sum_k pi_k b_k <= Phi r0/(1 - rho), Phi = E[p o]/E[m]",
            Phi * r0 / c, ">=", B, "E[m] B <= E[p o] r0/(1 - rho) (Chebyshev, telescoping), slack e_1 >= 0; "
            "1 - rho = c > 0", certificate=[e1 / Em], substitutions={B: (Epo * r0 / c - e1) / Em, Phi: Epo / Em}),
        Step.inequality(
            "the mean wait (K = 3 written out): E[W] = sum_k pi_k w_k <= sum_k pi_k b_k, as w_k <= b_k (Cobham)",
            sum(p * bi for p, bi in zip(_pi, b)), ">=", sum(p * (bi - e) for p, bi, e in zip(_pi, b, _slack)),
            "w_k = b_k - e_k with e_k >= 0", certificate=[p * e for p, e in zip(_pi, _slack)]),
    )


def volume_minorant_steps() -> tuple[Step, ...]:
    """SVF's minorant: ``v_k <= m_k``, so ``Phi = E[p o]/E[m] <= E[p o]/E[v] <= 2``."""
    return (
        Step.inequality("v <= p o: p o - v = o(o - 1)/2 >= 0 for o >= 1", (s + o) * o, ">=",
                        s * o + (o**2 + o) / 2, "v = s o + (o^2 + o)/2, p = s + o; o = 1 + u, u >= 0",
                        certificate=[(1 + u) * u / 2], substitutions={o: 1 + u}),
        Step.inequality(
            "v_k <= m_k: case m_k = m_{k+1} (else m_k = p_k o_k >= v_k, step above): m_{k+1} >= v_{k+1} "
            "(induction from the last class, m_K = p_K o_K) >= v_k (the volume order)",
            m_k1, ">=", v_k, "the two premises", certificate=[m_k1 - v_k1, v_k1 - v_k],
            premises=[m_k1 - v_k1, v_k1 - v_k]),
        Step.inequality("so Phi = E[p o]/E[m] <= E[p o]/E[v] (E[m] = E[v] + g, g >= 0)", Epo / Ev, ">=",
                        Epo / (Ev + g), "E[m] >= E[v] termwise", certificate=[Epo * g / (Ev * (Ev + g))]),
        Step.inequality("and E[p o]/E[v] <= 2: p o <= 2 v termwise (2 v - p o = s o + o), E[p o] = 2 E[v] - g",
                        2, ">=", (2 * Ev - g) / Ev, "g >= 0", certificate=[g / Ev]),
    )


def assembly_steps() -> tuple[Step, ...]:
    """From the mean wait to the ratio bound (shared with ``svf1.poisson``)."""
    return (
        Step.inequality(
            "per request E[OPT] >= E[o]: E[SVF]/E[OPT] <= (E[W] + E[o])/E[o] = 1 + E[W]/E[o]",
            (W + Eo) / Eo, ">=", (W + Eo) / (Eo + g),
            "TEL per request is W + o under SVF and at least o under any schedule: E[OPT] = E[o] + g, g >= 0 (the "
            "capacity relaxation, geosched.reference_impl.opt.bounds.capacity_bound, measures a g > 0)",
            certificate=[(W + Eo) * g / (Eo * (Eo + g))]),
        Step.inequality(
            "with E[W] <= r0/(1 - rho)^2 and r0 = R/D + rho = rho (1 + h): the square bound",
            square_bound(), ">=", 1 + (r0 / (1 - rho) ** 2 - e1) / Eo,
            "R/D = rho h by the definitions of rho and h; e_1 >= 0 the slack of the mean-wait bound",
            certificate=[e1 / Eo], substitutions={r0: rho * (1 + h)}),
        Step.inequality(
            "with E[W] <= Phi r0/(1 - rho): the Chebyshev bound; the row's bound is the smaller of the two",
            chebyshev_bound(), ">=", 1 + (Phi * r0 / (1 - rho) - e1) / Eo,
            "r0 = rho (1 + h); e_1 >= 0 the slack of the mean-wait bound",
            certificate=[e1 / Eo], substitutions={r0: rho * (1 + h)}),
    )


def comparison_steps() -> tuple[Step, ...]:
    """The Chebyshev bound's limits (shared with ``svf1.poisson``); the comparison with the paper's bound in closed
    form is ``kong.thm3.4``'s."""
    return (
        Step.inequality("our rho is at most the paper's: p o <= 2 v, as 2 v - p o = s o + o >= 0",
                        2 * (s * o + (o**2 + o) / 2), ">=", (s + o) * o, "v = s o + (o^2 + o)/2, p = s + o",
                        certificate=[s * o + o]),
        Step.limit("light traffic: the bound tends to 1 as rho -> 0", chebyshev_bound(), rho, 0, 1, "continuity",
                   direction="+"),
        Step.limit("heavy traffic: (1 - rho) x the bound stays finite (order (1 - rho)^-1, the paper's order)",
                   (1 - rho) * chebyshev_bound(), rho, 1, Phi * (1 + h) / Eo,
                   "cancel (1 - rho)", direction="-"),
    )


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        f"ours (beside {KONG_PAPER}, Thm. 3.4)",
        "our derivation",
        "E[SVF]/E[OPT] <= 1 + rho (1 + h) min(Phi/(1 - rho), 1/(1 - rho)^2)/E[o], rho = lambda E[p o]/((1 - alpha) M), "
        "h = E[p o (o - 1)/2]/E[p o], Phi = E[p o]/E[m] <= E[p o]/E[v] <= 2, m_k = min_{j >= k} p_j o_j",
        bound=bound(),
        statement_latex=r"$\dfrac{\mathbb{E}[\mathrm{SVF}]}{\mathbb{E}[\mathrm{OPT}]} \le 1 + "
                        r"\dfrac{\rho(1+h)}{\mathbb{E}[o]}\min\Bigl(\dfrac{\Phi}{1-\rho}, \dfrac{1}{(1-\rho)^2}\Bigr)$ "
                        r"with $\rho = \dfrac{\lambda\,\mathbb{E}[p\,o]}{(1-\alpha)M}$, "
                        r"$h = \dfrac{\mathbb{E}[p\,o\,(o-1)/2]}"
                        r"{\mathbb{E}[p\,o]}$, $\Phi = \dfrac{\mathbb{E}[p\,o]}{\mathbb{E}[m]} \le "
                        r"\dfrac{\mathbb{E}[p\,o]}{\mathbb{E}[v]} \le 2$, $m_k = \min_{j \ge k} p_j o_j$.",
        hypotheses=HYPOTHESES,
        steps=(*_expectation_steps(), *cobham_steps(), *chebyshev_steps(), *volume_minorant_steps(),
               *assembly_steps(), *comparison_steps()),
        depends_on=("svf.online.lemmaA2", "svf.poisson.stable"),
        notes="Proved relative to PASTA, LITTLE, WALD and BATCH (standard results, assumed with their conditions) "
              "and to svf.poisson.stable's hypotheses; the sample-path step and Chebyshev's sum inequality are Coq's. "
              "kong.thm3.4 compares the bound with Thm. 3.4's in closed form.",
    )
