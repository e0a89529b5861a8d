"""``fcfs.convoy``: FCFS's ratio grows linearly in the number of requests (a convoy behind two long ones).

Setting: the FCFS baseline of Kong, Qi, Ye, Zhou, arXiv 2606.22327 (their experiments) and
stock vLLM's default order, in Thm. 3.2's regime (bursts, ``alpha = 1/2``); strict head-of-line
admission with the forward-looking check; equal arrivals are served by position. The family and
its closed forms are ours.

Family ``fcfs-convoy`` (size ``k >= 1``, length ``T >= 1``, lag ``l`` in ``{0, 1}``): ``M = 4T``;
first in the queue two *long* requests ``(T, T)`` (peak ``2T = M/2``) arriving at 0, behind them
``2k`` *short* ones ``(2T - 1, 1)`` (peak ``2T = M/2``, one step each) arriving at ``l``;
``alpha = 1/2``; ``n = 2k + 2``. At ``l = 0`` (a burst, Thm. 3.2's regime) FCFS's order is the
queue position, so the ratio is a property of that order (reversed, FCFS serves the short ones
first); at ``l = 1`` the long ones arrive first and the ratio depends on no tie at all (but every
policy that starts the long ones at 0, SVF and SJF too, suffers the same).

* FCFS starts both long requests at 0. A short one never fits beside them: at step ``t + 1`` the
  pair holds ``2(T + t + 1) >= 2T + 2`` and the short one ``2T``. Strict head-of-line holds every
  short request until ``T``; then they run in pairs (each pair fills ``M``): pair ``p = 1..k``
  at ``T + p - 1``. ``TEL(FCFS) = 2T + 2kT + k(k + 1) - 2kl``.
* The witness ``S`` runs the pairs of short ones at ``l..l+k-1`` and the long ones at ``l + k``
  (at ``l = 0`` it is SVF's and SJF's schedule: the short ones have the smaller volume and output):
  ``TEL(S) = k(k + 1) + 2(k + T + l)``.

At ``l = 0`` the ratio ``(2T(k + 1) + k(k + 1)) / (k^2 + 3k + 2T)`` tends to ``k + 1 = n/2`` as
``T -> infinity`` (its supremum over ``T`` at fixed ``n``), and with ``T = k^2`` it is exactly
``(2k + 1)/3 = (n - 1)/3``: unbounded, linear in ``n`` (where SJF's burst families grow like
``sqrt(n)``, :mod:`geosched.theory.sjf_families`), while SVF is at most 5 (Thm. 3.2). At ``l = 1``
the limit in ``T`` is ``k + 1`` too, and the slope in ``k`` at ``T = k^2`` is ``2/3``.

Example
-------
>>> inst = convoy(3, 9)
>>> inst.memory, inst.n, closed_form_tels(3, 9), closed_form_tels(3, 9, lag=1)
(36, 8, {'fcfs': 84, 'witness': 36}, {'fcfs': 78, 'witness': 38})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "fcfs.convoy", f"ours (family); {KONG} (the FCFS baseline)",
    "FCFS's ratio is unbounded under bursts at alpha = 1/2, linear in n: a convoy behind two long requests",
    "family fcfs-convoy: M = 4T, first 2 x (T, T), then 2k x (2T - 1, 1); TEL(FCFS) = 2T + 2kT + k(k+1), "
    "witness TEL(S) = k(k+1) + 2(k + T) (sympy), both simulated and checked against the closed forms; ratio "
    "-> k + 1 = n/2 as T -> infinity, (2k + 1)/3 = (n - 1)/3 at T = k^2 (n = 2k + 2)",
    "not a claim of the papers: the family is ours; S stands in for OPT; ties by position",
    ("derivation", "simulation:fcfs-families", *SIMULATES),
    order=("ours", 70))

k = sp.Symbol("k", integer=True, positive=True)
T = sp.Symbol("T", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
p = sp.Symbol("p", integer=True, positive=True)
t = sp.Symbol("t", integer=True, nonnegative=True)
ell = sp.Symbol("l", integer=True, nonnegative=True)


def memory_expr():
    return 4 * T


def tel_fcfs_expr():
    """``TEL(FCFS) = 2T + 2kT + k(k + 1) - 2kl``."""
    return 2 * T + 2 * k * T + k * (k + 1) - 2 * k * ell


def tel_witness_expr():
    """``TEL(S) = k(k + 1) + 2(k + T + l)``."""
    return k * (k + 1) + 2 * (k + T + ell)


def ratio_expr(lag: int = 0):
    return sp.factor(sp.simplify((tel_fcfs_expr() / tel_witness_expr()).subs(ell, lag)))


def _check(size: int, length: int, lag: int = 0) -> None:
    for name, value in (("k", size), ("T", length)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")
    if isinstance(lag, bool) or lag not in (0, 1):
        raise ValidationError("lag", lag, "must be 0 or 1")


def convoy(size: int, length: int, lag: int = 0) -> Instance:
    """The member ``k = size``, ``T = length``, ``l = lag``: the long requests ``a0, a1`` first (arriving at
    0), the short ones ``b..`` after (arriving at ``l``)."""
    _check(size, length, lag)
    requests = [Request(f"a{i}", 0, length, length) for i in range(2)]
    requests += [Request(f"b{i:05d}", lag, 2 * length - 1, 1) for i in range(2 * size)]
    return Instance(4 * length, requests)


def witness_starts(size: int, length: int, lag: int = 0) -> dict[str, int]:
    """``S``: short pair ``p`` at ``l + p - 1``, the long ones at ``l + k``."""
    _check(size, length, lag)
    starts = {f"b{i:05d}": lag + i // 2 for i in range(2 * size)}
    starts.update({"a0": lag + size, "a1": lag + size})
    return starts


def closed_form_tels(size: int, length: int, lag: int = 0) -> dict[str, int]:
    """``{"fcfs": TEL(FCFS), "witness": TEL(S)}`` from the closed forms."""
    _check(size, length, lag)
    point = {k: size, T: length, ell: lag}
    return {"fcfs": int(tel_fcfs_expr().subs(point)), "witness": int(tel_witness_expr().subs(point))}


def derivation(tel_fcfs=None) -> Derivation:
    """``tel_fcfs`` replaces the FCFS closed form (tests break it on purpose)."""
    fcfs = tel_fcfs if tel_fcfs is not None else tel_fcfs_expr()
    wit = tel_witness_expr()
    big_m = memory_expr()
    ratio = fcfs / wit
    burst = ratio.subs(ell, 0)
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "the FCFS baseline, in Thm. 3.2's regime (bursts, alpha = 1/2); family and closed forms ours",
        "FCFS's ratio on fcfs-convoy is (2T(k+1) + k(k+1) - 2kl)/(k^2 + 3k + 2T + 2l): -> k + 1 = n/2 as "
        "T -> infinity; (2k + 1)/3 = (n - 1)/3 for the burst (l = 0) at T = k^2 (n = 2k + 2)",
        bound=ratio,
        statement_latex=r"On the family below $\mathrm{TEL}(\mathrm{FCFS})/\mathrm{TEL}(S) = (2T(k+1) + k(k+1) - 2kl)/"
                        r"(k^2 + 3k + 2T + 2l)$, which tends to $k + 1 = n/2$ as $T \to \infty$; for the burst "
                        r"($l = 0$) at $T = k^2$ it equals $(2k+1)/3 = (n-1)/3$ ($n = 2k + 2$).",
        hypotheses=(Hypothesis("H1", "strict head-of-line admission with the forward-looking check; equal arrivals by "
                               "position",
                               latex=r"strict head-of-line admission with the forward-looking check; equal arrivals "
                                     r"by position",
                               outside="none on the family: backfilling FCFS makes the same schedule "
                                       "(the same ratios at k = 2, 3, 4, T = k^2): the convoy forms "
                                       "through memory, not head-of-line"),
                    Hypothesis("H2", "family: M = 4T, first 2 x (T, T) arriving at 0, then 2k x (2T - 1, 1) arriving "
                               "at l in {0, 1}; k, T >= 1",
                               latex=r"family: $M = 4T$; first two requests $(T, T)$ arriving at 0, then $2k$ "
                                     r"requests $(2T - 1, 1)$ arriving at $l \in \{0, 1\}$; $k, T \ge 1$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.identity("alpha = 2T / M = 1/2 (both kinds peak at 2T)", 2 * T / big_m, sp.Rational(1, 2),
                          "M = 4T"),
            Step.inequality("the long pair fits: 2 (T + T) <= M", big_m, ">=", 4 * T, "equality", certificate=[0 * T]),
            Step.inequality("a short request started at t < T beside the long pair overflows at t + 1",
                            2 * (T + t + 1) + 2 * T, ">", big_m, "difference 2t + 2", certificate=[2 * t, 2]),
            Step.inequality("a pair of short requests fits: 2 (2T - 1 + 1) <= M", big_m, ">=", 2 * 2 * T, "equality",
                            certificate=[0 * T]),
            Step.inequality("a third short request does not fit beside a pair", 3 * 2 * T, ">", big_m,
                            "difference 2T", certificate=[2 * T]),
            Step.unchecked("the trace: FCFS starts the long pair at 0 and short pair p at T + p - 1",
                           "steps 2-5 under strict head-of-line admission in arrival, then position order (l <= T)",
                           "a statement about the policy's complete trace; the ledger and "
                           "tests/test_sjf_fcfs_families.py compare the closed form with the simulator and the checker",
                           covered_by=("simulation:fcfs-families",)),
            Step.identity("TEL(FCFS) in closed form", 2 * T + sp.Sum(2 * (T + p - ell), (p, 1, k)), fcfs,
                          "long: T each; short pair p: latency T + p - l"),
            Step.identity("TEL(S) in closed form", sp.Sum(2 * p, (p, 1, k)) + 2 * (ell + k + T), wit,
                          "short pair p (at l + p - 1): p; long (at l + k): l + k + T"),
            Step.limit("T -> infinity: the ratio tends to k + 1 = n/2", ratio, T, sp.oo, k + 1,
                       "leading terms 2T(k + 1), 2T"),
            Step.identity("the burst (l = 0) at T = k^2: the ratio is (2k + 1)/3", burst.subs(T, k**2), (2 * k + 1) / 3,
                          "(2k + 1)(k + 1) k / (3 k (k + 1))"),
            Step.identity("in n = 2k + 2: (2k + 1)/3 = (n - 1)/3", ((2 * k + 1) / 3).subs(k, (n - 2) / 2),
                          (n - 1) / 3, "k = (n - 2)/2"),
            Step.limit("l = 1 at T = k^2: slope 2/3 in k", ratio.subs({ell: 1, T: k**2}) / k, k, sp.oo,
                       sp.Rational(2, 3), "leading terms 2k^3 and 3k^2"),
            Step.inequality("the ratio is below its limit k + 1 at every T", (k + 1) * wit, ">=", fcfs,
                            "difference (k + 1)(k^2 + 2k) + 2l(2k + 1)",
                            certificate=list(sp.Add.make_args(sp.expand((k + 1) * wit - fcfs)))),
        ),
        notes="TEL(OPT) <= TEL(S) because S is feasible, so TEL(FCFS)/TEL(OPT) >= the ratio. At l = 0 S is SVF's and "
              "SJF's schedule and the ratio rests on FCFS's position order (reversed, it vanishes: the witness file "
              "says depends_on_ties); at l = 1 it rests on no tie. Family and closed forms are ours.",
    )
