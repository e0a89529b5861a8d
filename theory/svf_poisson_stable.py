"""``svf.poisson.stable``: the stationary regime that ``svf.poisson`` needs, by a Foster-Lyapunov drift.

``svf.poisson`` and ``svf1.poisson`` (beside Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.4 and 3.5,
whose stability hypothesis ``rho < 1`` is stated, not proved) compare stationary means; this row
proves that they exist, from the online form of the paper's Lemma A.2. The
process (MODEL0): discrete steps, a Poisson(lambda) number of arrivals per step of finitely many
types ``(s_k, o_k)`` (peaks ``p_k <= P <= M``, outputs ``<= O``), served by a strict head-of-line
policy whose keys are fixed by the type (SVF, 1-bit SVF, FCFS) with the forward-looking check. Its
state (the queue in its order, the running requests with their remaining steps) is a Markov chain.
The Lyapunov function is the **peak-time workload** ``L(t) = sum_{arrived} p_i (x_i + o_i -
max(t, x_i))``: a waiting request counts ``p o``, a running one ``p`` per remaining step.

* **balance** (Coq ``owork_step``): ``L(t+1) + active_peaks(t) = L(t) + A(t+1)``, ``A`` the work ``p o``
  arriving at ``t + 1``;
* **drift** (Coq ``online_drift``, from the online Lemma A.2): while a request waits,
  ``L(t+1) + (M + 1 - P) <= L(t) + A(t+1)``; so ``E[L(t+1) - L(t) | state] <= lambda E[p o] - (M + 1 - P)
  = -eps < 0`` when ``lambda E[p o] < M + 1 - P``;
* **idle set** (Coq ``online_idle_work``): while nobody waits, ``L(t) <= M P O``; so the drift is
  negative off the finite set ``F = {L <= M P O}`` and bounded on it (FOSTER: positive recurrent, a
  unique stationary law);
* **finite means** (Coq ``online_active_peaks_bound``: the drain is at most ``M P``; sympy): the
  drift of ``L^2`` is ``<= -2 eps L + C`` off ``F``, so ``E[L] <= (C + b)/(2 eps)`` in the stationary
  law (COMPARISON); each waiting request adds ``>= 1`` to ``L``, so the mean number waiting is finite
  and, by LITTLE, the mean wait.

The condition ``lambda E[p o] < M + 1 - P`` is what the drift proves; ``rho < 1`` (``svf.poisson``'s
load, ``lambda E[p o] < (1 - alpha) M = M - P``) implies it. It is sufficient, not necessary: this
project's three-class workload (``verify/poisson_workload.py``, ``M = 40``, ``P = 10``) is stable under
strict SVF up to ``rho* = 1.67`` (the saturation throughput of its largest class;
``monte-carlo:poisson-boundary``) and unstable above. The word is ``proved relative to`` FOSTER,
COMPARISON, COMPOUND and LITTLE (standard results, named with their conditions).

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "svf.poisson.stable", "ours; the STABLE hypothesis of svf.poisson, proved",
    "strict head-of-line SVF (any keys fixed by the type: 1-bit SVF, FCFS), Poisson arrivals of finitely many types "
    "with peaks <= P <= M: if lambda E[p o] < M + 1 - P (rho < 1 implies it) the process is positive recurrent, with "
    "a stationary law of finite mean peak-time workload and finite mean waits",
    "the drift inequality, the balance of the workload, its bound on the idle set and the bounded drain in Coq "
    "(online_drift, owork_step, online_idle_work, online_active_peaks_bound: every instance, any keys); the drift "
    "algebra (mean, square, the condition) by sympy; Foster's criterion, the comparison theorem, the compound Poisson "
    "moments and Little's law named; the boundary of this project's workload simulated (monte-carlo:poisson-boundary: "
    "the largest class's saturation throughput gives rho*, direct runs stable below and unstable above it; vacuous "
    "unless the stability test rejects a run it must reject)",
    "the condition is sufficient, not necessary: the project's workload is stable up to rho* = 1.67 (strict SVF), "
    "far past 1 + 1/D; the boundary is simulated, not proved",
    ("derivation", "coq:owork_step", "coq:online_drift", "coq:online_idle_work", "coq:online_active_peaks_bound",
     "monte-carlo:poisson-stable", "monte-carlo:poisson-boundary"),
    ("svf.online.lemmaA2",),
    coq=("owork_step", "online_drift", "online_idle_work", "online_active_peaks_bound"),
    order=("ours", 76))

lam, Epo, Epo2 = sp.symbols("lambda E_po E_po2", positive=True)
M, P, O = sp.symbols("M P O", positive=True)
L, eps, AP, gap = sp.symbols("L epsilon AP gamma", nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
p_i, r_i = sp.symbols("p_i r_i", positive=True)

HYPOTHESES = (
    Hypothesis("MODEL0", "discrete steps; Poisson(lambda) arrivals per step, independent, of finitely many types "
                         "(s_k, o_k) with p_k <= P <= M and o_k <= O; a strict head-of-line policy with keys fixed by "
                         "the type and the forward-looking check; its state (queue in order, running requests with "
                         "their remaining steps) is a Markov chain, irreducible on the states reachable from empty",
               latex=r"discrete steps; Poisson($\lambda$) arrivals per step, independent, of finitely many types "
                     r"$(s_k, o_k)$, $p_k \le P \le M$, $o_k \le O$; strict head-of-line policy with type-fixed keys "
                     r"and the forward-looking check; its state is an irreducible Markov chain",
               outside="none: MODEL0 defines the process; another arrival law or a policy that looks at more "
                       "than the state is a different statement, not claimed"),
    Hypothesis("FOSTER", "an irreducible Markov chain on a countable space with L >= 0 whose one-step drift is <= "
                         "-eps < 0 off a finite set F and finite on F is positive recurrent, with a unique stationary "
                         "law (Foster 1953; Meyn and Tweedie, Thm. 11.3.4); here F = {L <= M P O} is finite: a state "
                         "is a list of at most M P O requests (each adds >= 1 to L) of finitely many (type, "
                         "remaining) values",
               latex=r"Foster's criterion (Foster 1953; Meyn--Tweedie Thm.~11.3.4): drift $\le -\varepsilon$ off a "
                     r"finite set $F$, finite on $F$: positive recurrent; here $F = \{L \le MPO\}$ is finite",
               outside="none: a theorem about Markov chains, assumed here (not proved in Coq)"),
    Hypothesis("COMPARISON", "if the drift of V >= 0 is <= -f + b 1_F with f >= 0, the stationary law has E[f] <= b "
                             "(Meyn and Tweedie, Thm. 14.3.7)",
               latex=r"comparison theorem (Meyn--Tweedie Thm.~14.3.7): drift of $V$ $\le -f + b\,1_F$ gives "
                     r"$\mathbb{E}_\pi[f] \le b$",
               outside="none: a theorem about Markov chains, assumed here"),
    Hypothesis("COMPOUND", "the work A arriving in a step, a Poisson(lambda) number of i.i.d. works p o independent "
                           "of the past: E[A] = lambda E[p o], E[A^2] = lambda E[(p o)^2] + lambda^2 E[p o]^2",
               latex=r"compound Poisson work per step: $\mathbb{E}[A] = \lambda\,\mathbb{E}[p\,o]$, "
                     r"$\mathbb{E}[A^2] = \lambda\,\mathbb{E}[(p\,o)^2] + \lambda^2\,\mathbb{E}[p\,o]^2$",
               outside="none for Poisson arrivals (MODEL0 fixes them); the Poisson moments are checked by sympy"),
    Hypothesis("LITTLE", "mean number waiting = lambda x mean wait (stationary, finite means)",
               latex=r"Little's law: mean number waiting $= \lambda \times$ mean wait",
               outside="none: Little's law holds for every stationary system with finite means"),
)


def _coq_steps() -> tuple[Step, ...]:
    return (
        Step.unchecked("balance: L(t+1) + active_peaks(t) = L(t) + A(t+1), for every schedule with x_i >= a_i",
                       "a waiting request keeps p o, a running one loses p per step, an arrival adds p o",
                       "a statement about every trace", covered_by=("coq:owork_step",)),
        Step.unchecked("drift: while a request waits at t, L(t+1) + (M + 1 - P) <= L(t) + A(t+1)",
                       "the online Lemma A.2: active_peaks(t) + p_h > M with p_h <= P", "a statement about every trace",
                       covered_by=("coq:online_drift",)),
        Step.unchecked("idle set: while no request waits at t, L(t) <= M P O",
                       "only running requests count, at most M of them (each holds a token at t + 1)",
                       "a statement about every trace", covered_by=("coq:online_idle_work",)),
        Step.unchecked("bounded drain: active_peaks(t) <= M P at every step", "at most M requests run at once",
                       "a statement about every trace", covered_by=("coq:online_active_peaks_bound",)),
    )


def _poisson_moment(power):
    k = sp.Symbol("k", integer=True, nonnegative=True)
    return sp.Sum(power(k) * sp.exp(-lam) * lam**k / sp.factorial(k), (k, 0, sp.oo))


def _drift_steps() -> tuple[Step, ...]:
    return (
        Step.identity("Poisson counts: E[N] = lambda", _poisson_moment(lambda k: k), lam, "the exponential series"),
        Step.identity("Poisson counts: E[N (N - 1)] = E[N^2] - E[N] = lambda^2",
                      _poisson_moment(lambda k: k**2) - _poisson_moment(lambda k: k), lam**2,
                      "the exponential series, term by term (sympy sums k^2 and k at once; k (k - 1) takes it 1.5 s)"),
        Step.assumption("the arriving work: E[A] = lambda E[p o], E[A^2] = lambda E[(p o)^2] + lambda^2 E[p o]^2",
                        ("COMPOUND",), "i.i.d. works, independent of the count; the count's moments above"),
        Step.inequality(
            "mean drift while waiting: E[L(t+1) - L(t) | state] <= lambda E[p o] - (M + 1 - P) = -eps",
            -eps, ">=", lam * Epo - (M + 1 - P) - gap,
            "the Coq drift, in mean (A(t+1) independent of the state); the condition lambda E[p o] = M + 1 - P - eps "
            "with eps > 0; gamma >= 0 the slack of the drift", certificate=[gap],
            substitutions={lam: (M + 1 - P - eps) / Epo}),
        Step.inequality(
            "the load condition: rho < 1 (lambda E[p o] < M - P) implies lambda E[p o] < M + 1 - P",
            M + 1 - P, ">", M - P, "one more than M - P"),
        Step.inequality(
            "square drift while waiting: E[(L + Delta)^2 - L^2] = 2 L E[Delta] + E[Delta^2] <= -2 eps L + C, "
            "C = lambda E[(p o)^2] + lambda^2 E[p o]^2 + (M P)^2",
            -2 * eps * L + lam * Epo2 + lam**2 * Epo**2 + (M * P) ** 2, ">=",
            2 * L * (-eps - gap) + lam * Epo2 + lam**2 * Epo**2 - 2 * AP * lam * Epo + AP**2,
            "Delta = A - active_peaks, E[Delta] <= -eps (drift), E[Delta^2] = E[A^2] - 2 AP E[A] + AP^2 with "
            "AP = active_peaks <= M P (Coq); gamma >= 0",
            certificate=[2 * L * gap, 2 * AP * lam * Epo, (M * P - AP) * (M * P + AP)],
            premises=[M * P - AP]),
        Step.assumption("so the chain is positive recurrent (drift <= -eps off F = {L <= M P O}, bounded on F) and "
                        "its stationary law has E[2 eps L] <= C + b (b the square drift's bound on F)",
                        ("FOSTER", "COMPARISON"), "Foster's criterion with L; the comparison theorem with V = L^2"),
        Step.inequality("each waiting request adds p_i r_i >= 1 to L (p_i, r_i >= 1 integers): the number waiting is "
                        "at most L", p_i * r_i, ">=", 1, "p_i = 1 + x, r_i = 1 + y with x, y >= 0",
                        certificate=[sp.Symbol("x", nonnegative=True) + sp.Symbol("y", nonnegative=True)
                                     + sp.Symbol("x", nonnegative=True) * sp.Symbol("y", nonnegative=True)],
                        substitutions={p_i: 1 + sp.Symbol("x", nonnegative=True),
                                       r_i: 1 + sp.Symbol("y", nonnegative=True)}),
        Step.assumption("so the mean number waiting is finite, and the mean wait = (mean number waiting)/lambda",
                        ("LITTLE",), "Little's law in the stationary regime"),
    )


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        "ours (the STABLE hypothesis of svf.poisson)",
        "our derivation",
        "if lambda E[p o] < M + 1 - P, the strict head-of-line process with type-fixed keys is positive recurrent, "
        "with finite mean workload and finite mean waits in its stationary law",
        statement_latex=r"If $\lambda\,\mathbb{E}[p\,o] < M + 1 - P$, the strict head-of-line process with type-fixed "
                        r"keys is positive recurrent, with finite mean workload and mean waits.",
        hypotheses=HYPOTHESES,
        steps=(*_coq_steps(), *_drift_steps()),
        depends_on=("svf.online.lemmaA2",),
        notes="Proved relative to FOSTER, COMPARISON, COMPOUND and LITTLE (standard results); the drift, the balance, "
              "the idle bound and the bounded drain are Coq theorems about osvf with any keys. The condition is "
              "sufficient: the simulated boundary of the project's workload is rho* = 1.67 (monte-carlo:poisson-"
              "boundary).",
    )
