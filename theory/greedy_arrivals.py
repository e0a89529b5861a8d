"""``greedy.arrivals``: with arrivals over time, SVF, SJF and FCFS all have a ratio linear in n at alpha = 1/2.

Setting: adversarial (non-burst) arrivals, against Jaillet et al., arXiv 2502.07115, Thm. 4.1 (no deterministic
online algorithm is better than ``Omega(sqrt n)``-competitive); the policies of Kong, Qi, Ye, Zhou, arXiv
2606.22327 (SVF) and of Jaillet et al. (MC-SF = SJF) and FCFS, strict head-of-line with the forward-looking check.
The family is ``fcfs-convoy`` at lag 1 (:mod:`geosched.theory.fcfs_families`): ``M = 4T``; two *long* requests
``(T, T)`` (peak ``2T = M/2``) arrive at 0; ``2k`` *short* ones ``(2T - 1, 1)`` (peak ``2T``) arrive at 1;
``alpha = 1/2``, ``n = 2k + 2``.

* At step 0 only the long pair has arrived, and it fits (``2 (T + T) = M``): SVF, SJF and FCFS all start it
  there (each is greedy when it is alone). A short request then never fits beside the pair (at ``t + 1 <= T`` the
  pair holds ``2 (T + t + 1)`` and the short one ``2T``), and from ``T`` on they run in pairs, each pair filling
  ``M``: the same trace for the three policies (the short ones are identical), ``TEL = 2T + 2kT + k^2 - k``.
* The witness ``S`` runs the short pairs at ``1 .. k`` and the long pair at ``k + 1``:
  ``TEL(S) = k^2 + 3k + 2T + 2``.

At ``T = k^2`` the ratio is at least ``n/4`` for every ``k >= 3`` (``4 TEL - n TEL(S) = 2(k^3 - 7k - 2)``) and its
slope is ``2/3`` in ``k``, i.e. ``n/3``; it tends to ``k + 1`` as ``T -> infinity`` at fixed ``k``. This does not
contradict Thm. 4.1, which bounds *every* deterministic algorithm from below by ``sqrt n`` against an adversary
that adapts to it: an algorithm that idles at step 0 avoids this instance (and that adversary then punishes
idling), while the three greedy policies meet this one fixed instance and are ``Omega(n)`` on it, linear where
the universal bound is a square root. In bursts SVF stays below 5 (Thm. 3.2): the arrivals make the difference.

Example
-------
>>> closed_form_tels(3, 9)
{'greedy': 78, 'witness': 38}
"""

from __future__ import annotations

import sympy as sp

from geosched.reference_impl.model import Instance
from geosched.theory import fcfs_families as convoy_family
from geosched.theory.claim import JAILLET_PAPER, KONG, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "greedy.arrivals", f"ours (family); against {JAILLET_PAPER} Thm. 4.1; the policies of {KONG} and {JAILLET_PAPER}",
    "with arrivals over time at alpha = 1/2, SVF, SJF (MC-SF) and FCFS all have a ratio linear in n "
    "(>= n/4 for k >= 3); Thm. 4.1's sqrt(n) bounds every deterministic algorithm",
    "family fcfs-convoy at lag 1: M = 4T, 2 x (T, T) arriving at 0, 2k x (2T - 1, 1) arriving at 1; "
    "TEL(SVF) = TEL(SJF) = TEL(FCFS) = 2T + 2kT + k^2 - k, witness TEL(S) = k^2 + 3k + 2T + 2 (sympy), each "
    "policy simulated and checked against the closed form; at T = k^2 the ratio is >= n/4 for k >= 3 and grows "
    "like n/3 (n = 2k + 2)",
    "not a claim of the papers: the family is ours; S stands in for OPT; the three policies' common trace is "
    "checked by simulation at the ledger's sizes, not proved for every k",
    ("derivation", "simulation:greedy-arrivals", *SIMULATES),
    order=("ours", 71))
POLICIES = ("svf", "sjf", "fcfs")

k, T, t = convoy_family.k, convoy_family.T, convoy_family.t
j = sp.Symbol("j", integer=True, nonnegative=True)  # k = j + 3


def tel_greedy_expr():
    """``TEL = 2T + 2kT + k^2 - k``: the convoy's FCFS closed form at lag 1, which SVF and SJF share."""
    return sp.expand(convoy_family.tel_fcfs_expr().subs(convoy_family.ell, 1))


def tel_witness_expr():
    """``TEL(S) = k^2 + 3k + 2T + 2``."""
    return sp.expand(convoy_family.tel_witness_expr().subs(convoy_family.ell, 1))


# The member, its witness and their closed forms are fcfs-convoy's at lag 1, which also checks ``k, T >= 1``.


def member(size: int, length: int) -> Instance:
    """The member ``k = size``, ``T = length``: ``fcfs-convoy`` at lag 1."""
    return convoy_family.convoy(size, length, lag=1)


def witness_starts(size: int, length: int) -> dict[str, int]:
    """``S``: short pair ``p`` at ``p``, the long pair at ``k + 1``."""
    return convoy_family.witness_starts(size, length, lag=1)


def closed_form_tels(size: int, length: int) -> dict[str, int]:
    """``{"greedy": TEL of SVF, SJF and FCFS, "witness": TEL(S)}``: the convoy's closed forms at lag 1, FCFS's
    being the one SVF and SJF share (:func:`tel_greedy_expr`)."""
    tels = convoy_family.closed_form_tels(size, length, lag=1)
    return {"greedy": tels["fcfs"], "witness": tels["witness"]}


def derivation(tel_greedy=None) -> Derivation:
    """``tel_greedy`` replaces the greedy closed form (tests break it on purpose)."""
    greedy = tel_greedy if tel_greedy is not None else tel_greedy_expr()
    wit = tel_witness_expr()
    ratio = greedy / wit
    gap = sp.expand((4 * greedy - (2 * k + 2) * wit).subs(T, k**2).subs(k, j + 3))
    return Derivation(
        CLAIM.id, JAILLET_PAPER,
        "Thm. 4.1's setting (adversarial arrivals); the policies SVF (Kong et al.), MC-SF = SJF and FCFS; family ours",
        "on fcfs-convoy at lag 1 the ratio of SVF, SJF and FCFS is (2T(k+1) + k^2 - k)/(k^2 + 3k + 2T + 2): "
        ">= n/4 at T = k^2 for every k >= 3, slope 2/3 in k (n/3), limit k + 1 as T -> infinity (n = 2k + 2)",
        bound=ratio,
        statement_latex=r"On the family below $\mathrm{TEL}(A)/\mathrm{TEL}(S) = (2T(k+1) + k^2 - k)/"
                        r"(k^2 + 3k + 2T + 2)$ "
                        r"for $A \in \{\mathrm{SVF}, \mathrm{SJF}, \mathrm{FCFS}\}$; at $T = k^2$ it is at least $n/4$ "
                        r"for every $k \ge 3$ and grows like $n/3$ ($n = 2k + 2$).",
        hypotheses=(Hypothesis("H1", "strict head-of-line admission with the forward-looking check, each policy in its "
                               "own order (volume, output, arrival); equal keys by arrival, then position",
                               latex=r"strict head-of-line admission with the forward-looking check, each policy in "
                                     r"its own order; equal keys by arrival, then position",
                               outside="none on the family: backfilling changes nothing (no short request fits "
                                       "beside the long pair, and after it all short ones are identical)"),
                    Hypothesis("H2", "family: M = 4T, 2 x (T, T) arriving at 0, then 2k x (2T - 1, 1) arriving at 1; "
                               "k, T >= 1",
                               latex=r"family: $M = 4T$; two requests $(T, T)$ arriving at 0, then $2k$ requests "
                                     r"$(2T - 1, 1)$ arriving at 1; $k, T \ge 1$",
                               outside="fails: the same requests all arriving at 0 (lag 0): SVF and SJF serve the "
                                       "short ones first and their ratio is 1 (the burst is S)")),
        steps=(
            Step.identity("alpha = 2T / M = 1/2 (both kinds peak at 2T)", 2 * T / (4 * T), sp.Rational(1, 2), "M = 4T"),
            Step.inequality("a short request started at t >= 0 beside the long pair overflows at t + 1 <= T",
                            2 * (T + t + 1) + 2 * T, ">", 4 * T, "difference 2t + 2", certificate=[2 * t, 2]),
            Step.unchecked("the trace: SVF, SJF and FCFS start the long pair at 0 (alone there, it fits) and short "
                           "pair p at T + p - 1",
                           "step 2, then the short ones in pairs (each pair fills M; all short ones are identical)",
                           "a statement about each policy's complete trace; the ledger simulates the three policies "
                           "and checks both schedules against the closed forms",
                           covered_by=("simulation:greedy-arrivals",)),
            Step.identity("TEL of the three in closed form (lag 1)", tel_greedy_expr(), greedy,
                          "fcfs.convoy's TEL at l = 1: long T each, short pair p latency T + p - 1"),
            Step.identity("TEL(S) in closed form (lag 1)", tel_witness_expr(), wit,
                          "short pair p at p: latency p; long pair at k + 1: k + 1 + T"),
            Step.inequality("at T = k^2, k = j + 3 >= 3: 4 TEL - n TEL(S) >= 0, so the ratio is >= n/4", gap, ">=", 0,
                            "2(k^3 - 7k - 2) with k = j + 3: every coefficient in j is >= 0",
                            certificate=list(sp.Add.make_args(gap))),
            Step.limit("at T = k^2 the slope in k is 2/3 (the ratio grows like n/3)", ratio.subs(T, k**2) / k, k,
                       sp.oo, sp.Rational(2, 3), "leading terms 2k^3 and 3k^2"),
            Step.limit("T -> infinity at fixed k: the ratio tends to k + 1 = n/2", ratio, T, sp.oo, k + 1,
                       "leading terms 2T(k + 1) and 2T"),
        ),
        notes="TEL(OPT) <= TEL(S) because S is feasible, so TEL(A)/TEL(OPT) >= the ratio for each of the three. "
              "Jaillet et al.'s Thm. 4.1 (jaillet.thm4.1): every deterministic algorithm is Omega(sqrt n) against an "
              "adaptive adversary; this fixed instance shows the greedy policies are Omega(n), no contradiction "
              "(an algorithm that idles at step 0 avoids it).",
    )
