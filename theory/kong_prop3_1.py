"""``kong.prop3.1``: the volume lower bound on OPT (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Prop. 3.1).

Statement (burst arrivals): every feasible schedule satisfies

.. math::  M \\cdot TEL \\;\\ge\\; \\sum_{k=1}^{n} P_k,\\qquad P_k = \\text{sum of the } k
           \\text{ smallest volumes},

and, with the volumes sorted ``v_1 <= ... <= v_n``, the prefix-sum identity

.. math::  \\sum_{k=1}^{n} P_k = \\sum_i v_i + \\sum_{a<b} \\min(v_a, v_b) = \\sum_i (n - i + 1) v_i.

The "reversed" form (sum of the k *largest* volumes) is false: ``s = 0``, ``o = (1, 2)``,
``M = 2`` has a feasible schedule with ``M * TEL = 6 < 7``.

Our derivation (the argument is the standard one; the paper's text was not available to us):
let ``C_(k)`` be the k-th smallest completion step. By ``C_(k)`` the k requests finished so
far have been served entirely inside steps ``1..C_(k)``; each contributes exactly its volume
(``kong.volume``, step 2), and the memory constraint bounds the total by ``M C_(k)``. Any k
volumes sum to at least ``P_k``. Summing over k gives the bound since ``TEL = sum_k C_(k)``
for burst arrivals. The counting steps are not sympy-checkable and are marked so; each names
the solver check of :mod:`geosched.verify.cores` that covers it (``covered_by``).

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.kong_volume import volume_expr

CLAIM = Claim(
    "kong.prop3.1", f"{KONG} Prop. 3.1", "M*TEL(OPT) >= sum_k (sum of the k smallest volumes), burst",
    "every feasible burst schedule has M TEL >= sum_k P_k: the counting steps by Z3 and cvc5 over n symbolic "
    "requests for every n <= N, the algebra by sympy; exhaustively with exact OPT",
    "the derivation is ours (standard argument, paper text unavailable); its counting steps hold for n <= N "
    "in this run; the whole bound for every n in Coq (prop31_lower_bound, exact model, any M)",
    ("derivation", "cores:prop3.1", "exhaustive:prop3.1", "consts:prop3.1", "coq:prop31_lower_bound",
     "coq:Q_eq_pairmin"), ("kong.volume",),
    coq=("Q_eq_pairmin",),
    coq_whole=("prop31_lower_bound",),
    order=("kong", 20), exhaustive_variants=("svf",))

n = sp.Symbol("n", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
b = sp.Symbol("b", integer=True, positive=True)
M, C = sp.symbols("M C", positive=True)
W, V, P = sp.symbols("W_k V_k P_k", nonnegative=True)
h1, h2, h3 = sp.symbols("h_1 h_2 h_3", nonnegative=True)
_N_CONCRETE = 5
# the counterexample to the reversed form: s = 0, o = (1, 2), M = 2, both started at x = 0
_x1, _x2 = sp.symbols("x_1 x_2", integer=True, nonnegative=True)
_EXAMPLE = {M: 2, _x1: 0, _x2: 0}
_V1, _V2 = volume_expr(0, 1), volume_expr(0, 2)
_TEL = (_x1 + 1) + (_x2 + 2)
_USAGE_1 = (0 + 1 - _x1) + (0 + 1 - _x2)  # both started at or before step 0 hold s + (1 - x) at step 1
_USAGE_2 = (0 + 2 - _x2)  # request 1 (o = 1) has finished; request 2 holds s + (2 - x_2)
_gaps = sp.symbols(f"d1:{_N_CONCRETE + 1}", nonnegative=True)


def _sorted_volumes() -> list[sp.Expr]:
    """v_i = d_1 + ... + d_i with d >= 0: a generic sorted sequence."""
    return [sp.Add(*_gaps[: idx + 1]) for idx in range(_N_CONCRETE)]


def prefix_sum_total(volumes) -> sp.Expr:
    """sum_k P_k for volumes given in increasing order."""
    return sp.Add(*[sp.Add(*volumes[: kk + 1]) for kk in range(len(volumes))])


def pairwise_min_total(volumes) -> sp.Expr:
    """sum v + sum_{a<b} min(v_a, v_b)."""
    pairs = [sp.Min(volumes[a], volumes[bb]) for a in range(len(volumes)) for bb in range(a + 1, len(volumes))]
    return sp.Add(*volumes) + sp.Add(*pairs)


HYPOTHESES = (Hypothesis("H1", "burst arrivals: a_i = 0, so TEL = sum_i C_i (completion steps)",
                         latex=r"burst arrivals: $a_i = 0$, so $\mathrm{TEL} = \sum_i C_i$ (completion steps)",
                         outside="fails: with arrivals, M = 1, (a, s, o) = (0, 0, 1) and (1, 0, "
                                 "1): M TEL(OPT) = 2 < sum_k P_k = 3"),
              Hypothesis("H2", "feasibility: the usage U(t) <= M at every step t",
                         latex=r"feasibility: the usage $U(t) \le M$ at every step $t$",
                         outside="fails: an infeasible schedule, M = 1, two (0, 1) both started "
                                 "at 0: M TEL = 2 < 3"))


def derivation() -> Derivation:
    vols = _sorted_volumes()
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Proposition 3.1",
        "every feasible schedule has M * TEL >= sum_k P_k (P_k = sum of the k smallest volumes), and "
        "sum_k P_k = sum v + sum_{a<b} min(v_a, v_b); the reversed prefix form is false",
        statement_latex=r"Every feasible schedule has $M \cdot \mathrm{TEL} \ge \sum_{k=1}^{n} P_k$, where $P_k$ is "
                        r"the sum of the $k$ smallest volumes, and $\sum_k P_k = \sum_i v_i + \sum_{a<b} \min(v_a, "
                        r"v_b)$; the reversed prefix form is false.",
        hypotheses=HYPOTHESES,
        steps=(
            Step.unchecked(
                "memory-time work by C_(k): W_k = sum_{t <= C_(k)} U(t) <= M C_(k)",
                "sum the memory constraint H2 over the steps 1..C_(k) (induction on C: W(0) = 0, "
                "W(C) = W(C-1) + U(C) <= W(C-1) + M)",
                "a sum over the steps of an arbitrary schedule; Z3 and cvc5 check the induction's base and step "
                "for n symbolic requests",
                covered_by=("core:prop31_work",)),
            Step.unchecked(
                "W_k >= V_k, the total volume of the k requests completed by C_(k)",
                "each completed request ran entirely inside 1..C_(k) and contributes exactly its volume "
                "(kong.volume, step 2); the other requests contribute >= 0",
                "a counting argument over the schedule (symbolic lengths and starts in Z3/cvc5)",
                covered_by=("core:prop31_completed",)),
            Step.unchecked(
                "V_k >= P_k: any k volumes sum to at least the k smallest",
                "replace each chosen volume by the next unused smallest one; each replacement does not increase "
                "the sum",
                "an exchange argument over subsets, not an algebraic identity",
                covered_by=("core:prop31_exchange",)),
            Step.inequality(
                "composition: M C_(k) >= P_k, from the three slacks h1 = M C - W, h2 = W - V, h3 = V - P",
                M * C, ">=", P, "M C - P = h1 + h2 + h3, each >= 0 by steps 1-3",
                certificate=[h1, h2, h3], substitutions={W: M * C - h1, V: M * C - h1 - h2, P: M * C - h1 - h2 - h3}),
            Step.unchecked(
                "the k-th smallest completion C_(k) has at least k requests completed by it",
                "the completions sorted are a permutation of the C_i; C_(1) <= ... <= C_(k) are all <= C_(k)",
                "an order-statistics fact about the schedule's completions",
                covered_by=("core:prop31_order",)),
            Step.unchecked(
                "summing over k: M TEL = M sum_k C_(k) >= sum_k P_k (burst: TEL = sum_i C_i)",
                "add step 4 over k = 1..n; the sorted completions sum to the completions",
                "a finite sum over the instance of the per-k inequalities",
                covered_by=("core:prop31_sum",)),
            Step.identity(
                "prefix identity, coefficient of v_i on the left: #{k : i <= k <= n} = n - i + 1",
                sp.Sum(1, (k, i, n)), n - i + 1,
                "both sides are linear in v; sum_k P_k = sum_k sum_{i<=k} v_i counts v_i once per k >= i"),
            Step.identity(
                "prefix identity, coefficient of v_i on the right: 1 + #{b : i < b <= n} = n - i + 1",
                1 + sp.Sum(1, (b, i + 1, n)), n - i + 1,
                "sorted volumes: min(v_a, v_b) = v_a for a < b, so v_i appears once alone and once per later b"),
            Step.identity(
                f"prefix identity, all terms written out for n = {_N_CONCRETE} with Min (v_i = d_1 + ... + d_i)",
                prefix_sum_total(vols), pairwise_min_total(vols),
                "a generic sorted sequence: gaps d_i >= 0; sympy evaluates every Min from the gaps' signs"),
            Step.substitution(
                "on the example s = 0, o = (1, 2), M = 2, schedule x = (0, 0): M * TEL >= P_1 + P_2 holds",
                M * _TEL, sp.Min(_V1, _V2) + (_V1 + _V2), _EXAMPLE,
                "volumes (1, 3) from kong.volume; TEL = (0 + 1) + (0 + 2) = 3; 2 * 3 >= 1 + 4", relation=">="),
            Step.substitution(
                "that schedule is feasible: usage at step 1 <= M",
                _USAGE_1, M, _EXAMPLE, "both requests hold s + 1 = 1 token at step 1", relation="<="),
            Step.substitution(
                "that schedule is feasible: usage at step 2 <= M",
                _USAGE_2, M, _EXAMPLE, "request (0, 1) finished at step 1; request (0, 2) holds 2", relation="<="),
            Step.substitution(
                "the reversed form fails there: M * TEL < (largest volume) + (sum of the 2 largest)",
                M * _TEL, sp.Max(_V1, _V2) + (_V1 + _V2), _EXAMPLE,
                "2 * 3 = 6 < 3 + 4 = 7", relation="<"),
        ),
        depends_on=("kong.volume",),
        notes="Steps 1-3, 5 and 6 are the combinatorial core (not sympy-checkable); the ledger checks them with Z3 "
              "and cvc5 over symbolic lengths and start times for every n up to a bound, and the bound itself on "
              "every small burst instance. The prefix identity and the counterexample are fully checked.",
    )
