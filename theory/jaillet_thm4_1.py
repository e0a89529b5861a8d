"""``jaillet.thm4.1``: no deterministic online algorithm is O(1)-competitive.

Jaillet et al., arXiv 2502.07115, Theorem 4.1.

Statement: under adversarial arrivals, every deterministic online algorithm has competitive
ratio ``Omega(sqrt(n))``.

Our construction in this package's model (the paper's construction was not available to
us), for ``K >= 2``: memory ``M = K^2 (K + 1)``; a long request ``L`` (arrival 0, prompt
``M - K``, output ``K``, peak ``M``); ``K^2`` small requests (prompt ``K``, output 1, peak
``K + 1``) that arrive one step after the algorithm starts ``L``. While ``L`` runs, no small
request fits (``L`` holds ``>= M - K + 2`` tokens), so every small one waits ``K`` steps; OPT
serves them first. ``n = K^2 + 1``.

* **Our policies** (fcfs, sjf, svf, svf1 are greedy: they start ``L`` at step 0, so the small
  requests arrive at step 1): ``TEL = K^3 + K`` exactly, while the schedule "small requests
  at step 1, ``L`` at step 2" has ``TEL = K^2 + K + 2``, so the ratio is ``>= K - 1 =
  sqrt(n - 1) - 1``. :func:`adversarial_family` and :func:`closed_form_tels` expose this; the
  tests compare with the simulator and check the witness schedule.
* **Any deterministic algorithm** (case split on the step ``d`` at which it starts ``L`` when
  alone): if ``d >= K^2`` nothing else arrives and the ratio is ``>= (d + K)/K >= K + 1``;
  otherwise the small requests arrive at ``d + 1`` and the ratio is
  ``>= (K^3 + K)/(2 K^2 + K + 2) >= K/3``. Either way ``>= sqrt(n - 1)/3``.

Example
-------
>>> inst = adversarial_family(3)
>>> inst.memory, inst.n, closed_form_tels(3)
(36, 10, {'greedy': 30, 'witness': 14})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import JAILLET, JAILLET_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "jaillet.thm4.1", f"{JAILLET} Thm. 4.1", "no deterministic online alg. is O(1) (Omega(sqrt n))",
    "our adaptive adversary; the game solved exactly: every deterministic online algorithm has ratio >= V_K "
    "(>= K/3, increasing) for small K, each continuation after the release checked to be the exact "
    "optimum by exhaustive search; the greedy policies' closed form simulated",
    "construction ours; bounded K; the algorithm is granted the optimal continuation after the release",
    ("derivation", "game:jaillet4.1", "simulation:construction", *SIMULATES),
    order=("jaillet", 10))

K = sp.Symbol("K", integer=True, positive=True)
u = sp.Symbol("u", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
t = sp.Symbol("t", integer=True, nonnegative=True)
d = sp.Symbol("d", integer=True, nonnegative=True)
e = sp.Symbol("e", integer=True, nonnegative=True)
c = sp.Symbol("c", integer=True, positive=True)
_K_GE_2 = {K: 2 + u}


def memory_expr():
    return K**2 * (K + 1)


def tel_greedy_expr():
    """TEL of every greedy policy: K (for L) + K^2 * K (each small request waits K)."""
    return K**3 + K


def tel_witness_expr():
    """TEL of the schedule 'small at step 1, L at step 2': K^2 + (K + 2)."""
    return K**2 + K + 2


def adversarial_family(size: int) -> Instance:
    """The instance for ``K = size >= 2`` as seen by a greedy policy (small requests at step 1)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValidationError("K", size, "must be an integer >= 2")
    memory = size * size * (size + 1)
    requests = [Request("long", 0, memory - size, size)]
    requests += [Request(f"s{i}", 1, size, 1) for i in range(1, size * size + 1)]
    return Instance(memory, requests)


def witness_starts(size: int) -> dict[str, int]:
    """A feasible schedule (upper bound on OPT): small requests at step 1, ``long`` at step 2."""
    starts = {"long": 2}
    starts.update({f"s{i}": 1 for i in range(1, size * size + 1)})
    return starts


def closed_form_tels(size: int) -> dict[str, int]:
    """``{"greedy": TEL of our policies, "witness": TEL of witness_starts}`` at ``K = size``."""
    adversarial_family(size)
    return {"greedy": int(tel_greedy_expr().subs(K, size)), "witness": int(tel_witness_expr().subs(K, size))}


def derivation(tel_greedy=None) -> Derivation:
    """``tel_greedy`` replaces the greedy closed form (tests break it on purpose)."""
    greedy = tel_greedy if tel_greedy is not None else tel_greedy_expr()
    witness = tel_witness_expr()
    big_m = memory_expr()
    return Derivation(
        CLAIM.id,
        JAILLET_PAPER,
        "Theorem 4.1 (construction ours)",
        "no deterministic online algorithm has a constant competitive ratio under adversarial arrivals: "
        "ratio >= sqrt(n - 1)/3 on n = K^2 + 1 requests; >= sqrt(n - 1) - 1 for our greedy policies",
        bound=greedy / witness,
        statement_latex=r"No deterministic online algorithm has a constant competitive ratio under adversarial "
                        r"arrivals: the ratio is at least $\sqrt{n-1}/3$ on $n = K^2 + 1$ requests, and at least "
                        r"$\sqrt{n-1} - 1$ for our greedy policies.",
        hypotheses=(Hypothesis("H1", "arbitrary (adversarial) arrival times; deterministic online algorithm",
                               latex=r"arbitrary (adversarial) arrival times; a deterministic online algorithm",
                               outside="none as a game: under burst arrivals the conclusion is false "
                                       "(SVF is (1 + 2/(1 - alpha))-competitive, kong.thm3.2), but "
                                       "the adversary's power is exactly the choice of arrival times"),
                    Hypothesis("H2", "M = K^2 (K + 1); L = (a=0, s=M-K, o=K); K^2 x (s=K, o=1) arriving at d + 1, "
                                     "d = the step at which the algorithm starts L; K >= 2",
                               latex=r"$M = K^2(K+1)$; one request $L = (a, s, o) = (0, M - K, K)$; $K^2$ requests "
                                     r"$(s, o) = (K, 1)$ arriving at $d + 1$, where $d$ is the step at which the "
                                     r"algorithm starts $L$; $K \ge 2$",
                               outside="none: H2 defines the adversary's instance")),
        steps=(
            Step.inequality("L fits alone (peak M) and all K^2 small requests fit together: K^2 (K + 1) <= M",
                            big_m, ">=", K**2 * (K + 1), "equality", certificate=[0 * K]),
            Step.inequality(
                "while L runs, no small request fits: at step d + 1 + t (1 <= t = c < K) L holds M - K + 1 + t",
                (big_m - K + 1 + c) + (K + 1), ">", big_m, "excess c + 2 > 0", certificate=[c + 2]),
            Step.unchecked(
                "so every small request waits until L finishes at d + K: latency >= K each; ALG >= d + K + K^3",
                "steps 1-2; small requests arriving at d + 1 start at d + K at the earliest",
                "a statement about every schedule the algorithm can produce (the adversary argument); the ledger "
                "solves the game against this adversary exactly for small K",
                covered_by=("game:jaillet4.1",)),
            Step.inequality("OPT <= K^2 + d + K + 2: small requests at d + 1, L at d + 2 (feasible by step 1)",
                            K**2 + (d + K + 2), ">=", K**2 * 1 + (d + 2 + K), "direct count", certificate=[0 * K]),
            Step.inequality("greedy policies (d = 0): K^3 + K >= (K - 1)(K^2 + K + 2)", greedy, ">=",
                            (K - 1) * witness, "difference 2", certificate=[2]),
            Step.identity("greedy TEL in closed form: K for L plus K^2 small requests of latency K",
                          K + sp.Sum(K, (t, 1, K**2)), greedy, "L runs at once; each small waits K - 1 steps"),
            Step.inequality("case d < K^2: ratio >= (K^3 + K)/(2K^2 + K + 2) >= K/3",
                            3 * (K**3 + K), ">=", K * (2 * K**2 + K + 2),
                            "3(K^3 + K) - K(2K^2 + K + 2) = K^3 - K^2 + K = K^2 (K - 1) + K",
                            certificate=[(2 + u) ** 2 * (1 + u), 2 + u], substitutions=_K_GE_2),
            Step.inequality("case d < K^2: OPT <= 2K^2 + K + 2 (using d <= K^2)", 2 * K**2 + K + 2, ">=",
                            K**2 + d + K + 2, "d = K^2 - e with e >= 0", certificate=[e],
                            substitutions={d: K**2 - e}),
            Step.inequality("case d >= K^2 (nothing else arrives): (d + K)/K >= K + 1", (d + K) / K, ">=", K + 1,
                            "d = K^2 + e", certificate=[e / K], substitutions={d: K**2 + e}),
            Step.unchecked("either way the ratio is >= min(K + 1, K/3) = K/3",
                           "the adversary picks the case from the algorithm's deterministic choice of d",
                           "a case analysis over algorithms (logic, not algebra); the ledger's game search computes "
                           "min over every deterministic algorithm of the adversary's best ratio for small K",
                           covered_by=("game:jaillet4.1",)),
            Step.identity("with n = K^2 + 1 requests, K/3 = sqrt(n - 1)/3", sp.sqrt(n - 1) / 3,
                          K / 3, "n - 1 = K^2, K > 0", substitutions={n: K**2 + 1}),
            Step.limit("the greedy ratio grows like sqrt(n): ratio/K -> 1", greedy / (witness * K), K, sp.oo, 1,
                       "leading terms K^3 / K^3"),
        ),
        notes="Construction and constants are ours, in this package's discrete model.",
    )
