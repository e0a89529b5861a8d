"""``sjf.long_blockers``: an SJF family beyond the ``k^3`` one, ratio ``~ k T/(2T + 1)`` (slope up to 1/2).

Setting: Kong, Qi, Ye, Zhou, arXiv 2606.22327, Sec. 3 (SJF, shortest output first, is not
constant-competitive) and Thm. 3.2's regime (bursts, ``alpha = 1/2``); SJF with the same
forward-looking check and strict head-of-line admission is MC-SF (Jaillet et al., arXiv
2502.07115). The family and its closed forms are ours.

Family ``sjf-long-blockers`` (size ``k >= 2``, blocker length ``T >= 1``): ``K = k^2``,
``M = 2 ceil(K (T + 1)/2)`` (``M = K(T + 1)`` when that is even), ``P = M/2``;

* ``2k`` *blockers* ``(P - T, T)`` (peak ``P = M/2``: a pair fills ``M`` at its last step);
* ``K`` *smalls* ``(0, T + 1)`` (peak ``T + 1 <= P``; together they hold ``K(T + 1) <= M``);
* burst arrivals, ``alpha = 1/2``.

SJF serves the blockers first (output ``T < T + 1``) in pairs: pair ``p = 1..k`` runs in
``[(p - 1)T, pT]``. A small never fits beside a running pair (at the pair's last step the pair
holds ``M`` and the small at least 1 token), and strict head-of-line keeps every small behind the
blockers, so all ``K`` start at ``kT``:

``TEL(SJF) = T k(k + 1) + K (kT + T + 1)``.

The witness ``S`` starts the ``K`` smalls at 0 and the pairs at ``T + 1 + (p - 1)T`` (SVF, which
puts the smalls first by volume, does no worse: the tests find ``TEL(SVF) = TEL(S)`` for ``T >= 2``
and below it at ``T = 1``):

``TEL(S) = K (T + 1) + 2k(T + 1) + T k(k + 1)``.

So ``TEL(SJF)/TEL(OPT) >= TEL(SJF)/TEL(S) -> infinity`` with slope
``lim ratio/k = T/(2T + 1)``: 1/3 at ``T = 1`` (where the instance is ``sjf-blocking``'s, the
``k^3`` family of :mod:`geosched.adversary.families`, whose witness saves ``k + 1`` more by starting
a blocker beside the smalls: the same slope), and ``-> 1/2`` as ``T -> infinity``.
In the number of requests ``n = k^2 + 2k`` the ratio grows like ``T/(2T + 1) sqrt(n)``, against
``sqrt(n)/3`` for ``sjf-blocking`` and ``2 sqrt(n)/5`` for the family of
:mod:`geosched.theory.kong_sjf_unbounded`: the same ``sqrt(n)`` shape with a larger constant.

Example
-------
>>> inst = long_blockers(3, 5)
>>> inst.memory, inst.n, closed_form_tels(3, 5)
(54, 15, {'sjf': 249, 'witness': 150})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.kong_sjf_unbounded import STRICT_BURST

CLAIM = Claim(
    "sjf.long_blockers", f"ours (family); {KONG} Sec. 3 (SJF)",
    "SJF's ratio is unbounded under bursts at alpha = 1/2, growing like k T/(2T + 1) on sjf-long-blockers",
    "family sjf-long-blockers: 2k blockers (M/2 - T, T), k^2 smalls (0, T + 1), M = 2 ceil(k^2 (T+1)/2); "
    "TEL(SJF) = T k(k+1) + k^2 (kT + T + 1), witness TEL(S) = k^2 (T+1) + 2k(T+1) + T k(k+1) (sympy), both "
    "simulated and checked against the closed forms; ratio/k -> T/(2T + 1) -> 1/2 (n = k^2 + 2k)",
    "not a claim of the papers: the family is ours (T = 1 is sjf-blocking's instance, slope 1/3); S stands "
    "in for OPT",
    ("derivation", "simulation:sjf-families", *SIMULATES),
    order=("ours", 60))

k = sp.Symbol("k", integer=True, positive=True)
T = sp.Symbol("T", integer=True, positive=True)
e = sp.Symbol("e", integer=True, nonnegative=True)  # M - K(T + 1): 0 or 1
u = sp.Symbol("u", integer=True, nonnegative=True)  # k - 2
w = sp.Symbol("w", integer=True, nonnegative=True)
p = sp.Symbol("p", integer=True, positive=True)
j = sp.Symbol("j", integer=True, nonnegative=True)


def memory_expr():
    """``M = K(T + 1) + e`` with ``e = K(T + 1) mod 2``."""
    return k**2 * (T + 1) + e


def tel_sjf_expr():
    """``TEL(SJF) = T k(k + 1) + k^2 (kT + T + 1)``."""
    return T * k * (k + 1) + k**2 * (k * T + T + 1)


def tel_witness_expr():
    """``TEL(S) = k^2 (T + 1) + 2k(T + 1) + T k(k + 1)``."""
    return k**2 * (T + 1) + 2 * k * (T + 1) + T * k * (k + 1)


def ratio_expr():
    return sp.factor(sp.simplify(tel_sjf_expr() / tel_witness_expr()))


def growth_expr():
    """``lim_{k -> infinity} ratio / k = T/(2T + 1)``."""
    return sp.limit(ratio_expr() / k, k, sp.oo)


def _check(size: int, length: int) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValidationError("k", size, "must be an integer >= 2")
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ValidationError("T", length, "must be an integer >= 1")


def memory(size: int, length: int) -> int:
    """``M = 2 ceil(k^2 (T + 1)/2)``."""
    _check(size, length)
    volume = size * size * (length + 1)
    return volume + volume % 2


def long_blockers(size: int, length: int = 1) -> Instance:
    """The member ``k = size``, ``T = length``: blockers ``a..`` first, smalls ``b..`` after (ids are labels)."""
    big_m = memory(size, length)
    half = big_m // 2
    requests = [Request(f"a{i:04d}", 0, half - length, length) for i in range(2 * size)]
    requests += [Request(f"b{i:06d}", 0, 0, length + 1) for i in range(size * size)]
    return Instance(big_m, requests)


def witness_starts(size: int, length: int = 1) -> dict[str, int]:
    """``S``: every small at 0, blocker pair ``p`` at ``T + 1 + (p - 1) T``."""
    _check(size, length)
    starts = {f"b{i:06d}": 0 for i in range(size * size)}
    starts.update({f"a{i:04d}": length + 1 + (i // 2) * length for i in range(2 * size)})
    return starts


def closed_form_tels(size: int, length: int = 1) -> dict[str, int]:
    """``{"sjf": TEL(SJF), "witness": TEL(S)}`` from the closed forms."""
    _check(size, length)
    point = {k: size, T: length}
    return {"sjf": int(tel_sjf_expr().subs(point)), "witness": int(tel_witness_expr().subs(point))}


def derivation(tel_sjf=None) -> Derivation:
    """``tel_sjf`` replaces the SJF closed form (tests break it on purpose)."""
    sjf = tel_sjf if tel_sjf is not None else tel_sjf_expr()
    wit = tel_witness_expr()
    big_m = memory_expr()
    half = big_m / 2
    ratio = sjf / wit
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Sec. 3 (SJF is not constant-competitive), in Thm. 3.2's regime (bursts, alpha = 1/2); family ours",
        "SJF's ratio on sjf-long-blockers grows like k T/(2T + 1) (slope -> 1/2 as T -> infinity; n = k^2 + 2k)",
        bound=ratio,
        statement_latex=r"On the family below $\mathrm{TEL}(\mathrm{SJF})/\mathrm{TEL}(S) \to \infty$ with "
                        r"$\lim_k \mathrm{ratio}/k = T/(2T+1) \to 1/2$ ($n = k^2 + 2k$ requests).",
        hypotheses=(Hypothesis("H1", STRICT_BURST, latex=STRICT_BURST,
                               outside="none on the family: backfilling SJF makes the same schedule "
                                       "(the same ratios at (k, T) = (3, 5), (4, 10), (6, 20)): the "
                                       "long blockers do not block through head-of-line"),
                    Hypothesis("H2", "family: K = k^2, M = K(T+1) + e (e = K(T+1) mod 2), 2k x (M/2 - T, T), "
                               "K x (0, T + 1); k >= 2, T >= 1",
                               latex=r"family: $K = k^2$, $M = K(T+1) + e$ ($e = K(T+1) \bmod 2$); $2k$ requests "
                                     r"$(M/2 - T, T)$ and $K$ requests $(0, T+1)$; $k \ge 2$, $T \ge 1$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.inequality("the blockers' prompt is >= 0: M/2 >= T (k = 2 + u)", half, ">=", T,
                            "K(T + 1)/2 >= 2(T + 1) > T", certificate=[
                                sp.expand(((2 + u) ** 2 - 2) * (T + 1) / 2), 1, e / 2],
                            substitutions={k: 2 + u}),
            Step.inequality("alpha <= 1/2: a small's peak T + 1 <= M/2", half, ">=", T + 1,
                            "K >= 4", certificate=[sp.expand(((2 + u) ** 2 - 2) * (T + 1) / 2), e / 2],
                            substitutions={k: 2 + u}),
            Step.inequality("SJF's order: blockers first (output T < T + 1)", T + 1, ">", T, "difference 1",
                            certificate=[1]),
            Step.inequality("a pair fits: 2 (M/2 - T + T) <= M", big_m, ">=", 2 * half, "equality",
                            certificate=[0 * k]),
            Step.inequality("a small started beside a pair of age T - 1 - w overflows at the pair's last step",
                            big_m + (1 + w), ">", big_m, "the pair holds M there, the small 1 + w tokens",
                            certificate=[1, w]),
            Step.inequality("the K smalls fit together: K (T + 1) <= M", big_m, ">=", k**2 * (T + 1),
                            "difference e", certificate=[e]),
            Step.unchecked("the trace: SJF starts pair p at (p - 1) T and every small at kT",
                           "steps 3-6 under strict head-of-line admission (the smalls queue behind the blockers, and "
                           "cannot start beside the last pair)",
                           "a statement about the policy's complete trace; the ledger and tests/test_sjf_families.py "
                           "compare the closed form with the simulator and the checker",
                           covered_by=("simulation:sjf-families",)),
            Step.identity("TEL(SJF) in closed form", sp.Sum(2 * p * T, (p, 1, k)) + k**2 * (k * T + T + 1), sjf,
                          "pair p: latency pT; smalls: kT + T + 1"),
            Step.inequality("S is feasible while the smalls run: K j <= M at step j <= T + 1 (j = T + 1 - w)",
                            big_m, ">=", k**2 * (T + 1 - w), "difference K w + e", certificate=[k**2 * w, e]),
            Step.inequality("S is feasible for a pair: 2 (M/2 - T + T) <= M", big_m, ">=", 2 * half, "equality",
                            certificate=[0 * k]),
            Step.identity("TEL(S) in closed form", k**2 * (T + 1) + sp.Sum(2 * (T + 1 + p * T), (p, 1, k)), wit,
                          "smalls: T + 1; pair p: T + 1 + pT"),
            Step.limit("the ratio is unbounded", ratio, k, sp.oo, sp.oo, "cubic over quadratic in k"),
            Step.limit("growth rate: ratio / k -> T/(2T + 1)", ratio / k, k, sp.oo, T / (2 * T + 1),
                       "leading terms k^3 T and k^2 (2T + 1)"),
            Step.limit("the slope tends to 1/2 as T -> infinity", T / (2 * T + 1), T, sp.oo, sp.Rational(1, 2),
                       "1/2 - 1/(2(2T + 1))"),
            Step.identity("T = 1 is sjf-blocking's instance (slope 1/3)", (T / (2 * T + 1)).subs(T, 1),
                          sp.Rational(1, 3), "blockers (K - 1, 1), smalls (0, 2), M = 2K"),
        ),
        notes="TEL(OPT) <= TEL(S) because S is feasible, so TEL(SJF)/TEL(OPT) >= the ratio. TEL(SVF) equals "
              "TEL(S) for T >= 2 and is smaller at T = 1 (tests/test_sjf_families.py). "
              "Family and closed forms are ours.",
    )
