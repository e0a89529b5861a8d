"""``svf.fillers``: at ``alpha = 1/2`` exactly SVF's ratio on bursts tends to 2 (a supremum).

Setting: SVF of Kong, Qi, Ye, Zhou, arXiv 2606.22327 (strict head-of-line admission in increasing volume
with the forward-looking check; equal keys by position), bursts, where Thm. 3.2 allows ``1 + 2/(1 - alpha) = 5``
at ``alpha = 1/2``. The family and its closed forms are ours.

The triangles of :mod:`geosched.theory.svf_lower_bound` lose to a staggered schedule ``S`` through
synchronisation, but ``S`` pays a ramp: in its first ``p`` steps the staggered triangles hold only
``t(t + 1)/2 < M``. Here *fillers* use that ramp in ``S``: requests of peak ``M/2`` (they make
``alpha = 1/2`` exactly) whose volume exceeds the triangles', so SVF serves them last, when
every triangle has started.

Family ``svf-fillers`` (size ``m >= 1``, ``h >= 1``): ``b = 6h + 4``, ``p = 2b - 1``, ``M = bp``,
``f = 2h + 1`` (so ``6f <= p``); ``N = bm`` triangles ``(0, p)`` (volume ``p(p + 1)/2 = M``), then ``f``
fillers ``(M/2 - 3, 3)`` (peak ``M/2``, volume ``3M/2 - 3 > M``); ``alpha = 1/2``, ``n = bm + f``.

* SVF: the triangles run in synchronised batches of ``b`` (as in ``svf-triangles``), batch ``k`` at
  ``p(k - 1)``; the fillers become the head when the last batch starts at ``p(m - 1)``. Filler ``i``
  (``0 <= i < f``) fits beside that batch from ``p(m - 1) + 3i`` (at its last step the batch holds
  ``3b(i + 1) <= M/2`` because ``6(i + 1) <= p``), never beside another filler (``2(M/2 - 2) + b > M``):
  ``TEL(SVF) = bp m(m + 1)/2 + f p(m - 1) + 3f(f + 1)/2``.
* ``S``: triangle ``i`` at ``i``, filler ``i`` at ``3i`` (at step ``t <= 3f <= p/2`` the triangles hold
  ``t(t + 1)/2 <= M/2``): ``TEL(S) = N(N - 1)/2 + pN + 3f(f + 1)/2``.

The ratio tends to ``p/b = (12h + 7)/(6h + 4)`` as ``m -> infinity`` and that to 2 as ``h -> infinity``:
the same supremum as the triangles, at ``alpha = 1/2`` exactly, reached faster in ``n`` (the fillers add
about ``f p m`` to SVF's TEL and ``3f^2/2`` to S's).

Example
-------
>>> inst = fillers(2, 1)
>>> inst.memory, inst.n, inst.alpha, closed_form_tels(2, 1)
(190, 23, Fraction(1, 2), {'svf': 645, 'witness': 588})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

# the Coq theorems the row cites (verify/coq/SvfFillers.v, Coq's q = our b; statements in verify/coq/statements.txt)
_COQ = ("svf_fillers_starts", "fillers_witness_feasible", "svf_fillers_tel", "fillers_witness_tel")
# the policy premise of the simulated SVF families with ties (here and geosched.theory.svf_alternating)
STRICT_SVF_BURST = ("burst arrivals; strict head-of-line admission in increasing volume with the forward-looking "
                    "check; equal volumes by position")

CLAIM = Claim(
    "svf.fillers", f"ours (family); {KONG} Thm. 3.2",
    "SVF's ratio for bursts at alpha = 1/2 exactly is at least 2 (a supremum, approached from below); Thm. 3.2 "
    "gives 5",
    "family svf-fillers: b = 6h+4, p = 2b-1, M = bp, bm triangles (0, p) then f = 2h+1 fillers (M/2 - 3, 3); "
    "TEL(SVF) = bp m(m+1)/2 + fp(m-1) + 3f(f+1)/2, witness TEL(S) = N(N-1)/2 + pN + 3f(f+1)/2 (sympy), both "
    "simulated and checked against the closed forms; SVF's trace, S's feasibility and both closed forms are Coq "
    "theorems for every m, h >= 1 (SvfFillers.v); limit (12h+7)/(6h+4) -> 2",
    "not a claim of the papers: the family is ours; S stands in for OPT",
    ("derivation", "simulation:svf-fillers", *(f"coq:{name}" for name in _COQ), *SIMULATES), ("kong.thm3.2",),
    coq=_COQ,
    order=("ours", 11))

m = sp.Symbol("m", integer=True, positive=True)
h = sp.Symbol("h", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
kk = sp.Symbol("kk", integer=True, positive=True)
u = sp.Symbol("u", integer=True, nonnegative=True)  # h - 1


def batch_expr():
    """``b = 6h + 4``: SVF's batch of triangles."""
    return 6 * h + 4


def peak_expr():
    """``p = 2b - 1``: the triangles' output."""
    return 2 * batch_expr() - 1


def fillers_expr():
    """``f = 2h + 1``: the number of fillers."""
    return 2 * h + 1


def memory_expr():
    """``M = bp``."""
    return batch_expr() * peak_expr()


def tel_svf_expr():
    """``TEL(SVF) = bp m(m + 1)/2 + fp(m - 1) + 3f(f + 1)/2``."""
    b, p, f = batch_expr(), peak_expr(), fillers_expr()
    return b * p * m * (m + 1) / 2 + f * p * (m - 1) + 3 * f * (f + 1) / 2


def tel_witness_expr():
    """``TEL(S) = N(N - 1)/2 + pN + 3f(f + 1)/2`` with ``N = bm``."""
    n, p, f = batch_expr() * m, peak_expr(), fillers_expr()
    return n * (n - 1) / 2 + p * n + 3 * f * (f + 1) / 2


def ratio_expr():
    return sp.factor(sp.simplify(tel_svf_expr() / tel_witness_expr()))


def _sizes(size: int, half: int) -> tuple[int, int, int, int]:
    for name, value in (("m", size), ("h", half)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")
    b = 6 * half + 4
    p = 2 * b - 1
    return b, p, b * p, 2 * half + 1


def fillers(size: int, half: int = 4) -> Instance:
    """The member ``m = size``, ``h = half``: triangles ``t..`` first, then the fillers ``u..``."""
    b, p, memory, f = _sizes(size, half)
    count = b * size
    digits = len(str(count - 1))
    requests = [Request(f"t{j:0{digits}d}", 0, 0, p) for j in range(count)]
    requests += [Request(f"u{j:0{len(str(f - 1))}d}", 0, memory // 2 - 3, 3) for j in range(f)]
    return Instance(memory, requests)


def witness_starts(size: int, half: int = 4) -> dict[str, int]:
    """``S``: triangle ``j`` at ``j``, filler ``j`` at ``3j``."""
    b, _, _, f = _sizes(size, half)
    count = b * size
    digits = len(str(count - 1))
    starts = {f"t{j:0{digits}d}": j for j in range(count)}
    starts.update({f"u{j:0{len(str(f - 1))}d}": 3 * j for j in range(f)})
    return starts


def closed_form_tels(size: int, half: int = 4) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` from the closed forms."""
    _sizes(size, half)
    point = {m: size, h: half}
    return {"svf": int(tel_svf_expr().subs(point)), "witness": int(tel_witness_expr().subs(point))}


def derivation(tel_svf=None) -> Derivation:
    """``tel_svf`` replaces the SVF closed form (tests break it on purpose)."""
    svf = tel_svf if tel_svf is not None else tel_svf_expr()
    wit = tel_witness_expr()
    b, p, f, big_m = batch_expr(), peak_expr(), fillers_expr(), memory_expr()
    ratio = svf / wit
    half_m = big_m / 2
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Thm. 3.2 (the upper bound 1 + 2/(1 - alpha), 5 at alpha = 1/2); the family and its closed forms are ours",
        "on svf-fillers (alpha = 1/2 exactly) TEL(SVF)/TEL(S) -> (12h + 7)/(6h + 4) as m -> infinity, and that "
        "-> 2 as h -> infinity",
        bound=ratio,
        statement_latex=r"On svf-fillers ($\alpha = 1/2$ exactly) $\mathrm{TEL}(\mathrm{SVF})/\mathrm{TEL}(S) \to "
                        r"(12h+7)/(6h+4)$ as $m \to \infty$, which tends to $2$ as $h \to \infty$.",
        hypotheses=(Hypothesis("H1", STRICT_SVF_BURST, latex=STRICT_SVF_BURST,
                               outside="none: H1 names the policy whose ratio is computed (no two kinds tie)"),
                    Hypothesis("H2", "family: b = 6h + 4, p = 2b - 1, M = bp; bm triangles (0, p), then 2h + 1 "
                               "fillers (M/2 - 3, 3); m, h >= 1",
                               latex=r"family: $b = 6h + 4$, $p = 2b - 1$, $M = bp$; $bm$ triangles $(0, p)$, then "
                                     r"$2h + 1$ fillers $(M/2 - 3, 3)$; $m, h \ge 1$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.identity("alpha = (M/2)/M = 1/2: the fillers peak at M/2, the triangles at p < M/2",
                          half_m / big_m, sp.Rational(1, 2), "M = bp is even (b even)"),
            Step.inequality("the triangles peak below M/2", half_m, ">", p, "bp/2 - p = p(b - 2)/2",
                            certificate=[p * (b - 2) / 2]),
            Step.inequality("the fillers' volume exceeds the triangles' p(p + 1)/2 = M: SVF serves them last",
                            3 * (half_m - 3) + 6, ">", p * (p + 1) / 2, "difference M/2 - 3",
                            certificate=list(sp.Add.make_args(sp.expand(half_m - 3).subs(h, 1 + u))),
                            substitutions={h: 1 + u}),
            Step.identity("the triangles' volume is M", p * (p + 1) / 2, big_m, "p + 1 = 2b"),
            Step.inequality("6f <= p: every filler fits beside the last batch (3b f <= M/2)", p, ">=", 6 * f,
                            "difference 1", certificate=[1]),
            Step.inequality("two fillers never fit beside a started batch: 2(M/2 - 2) + b > M", 2 * (half_m - 2) + b,
                            ">", big_m, "difference b - 4 = 6h", certificate=[6 * h]),
            Step.inequality("S's fillers fit the ramp: at t <= 3f the triangles hold t(t + 1)/2 <= M/2",
                            half_m, ">=", 3 * f * (3 * f + 1) / 2, "with h = 1 + u",
                            certificate=list(sp.Add.make_args(sp.expand(half_m - 3 * f * (3 * f + 1) / 2).subs(
                                h, 1 + u).expand())), substitutions={h: 1 + u}),
            Step.unchecked("the trace: SVF starts batch k at p(k - 1) and filler i at p(m - 1) + 3i",
                           "steps 3-6 under strict head-of-line admission (the triangles' batches as in svf-triangles)",
                           "a statement about the policy's complete trace: Coq's svf_fillers_starts for every m, "
                           "h >= 1 (verify/coq/SvfFillers.v, with svf_fillers_tel for its TEL); the ledger and "
                           "tests/test_svf_issue32_families.py compare the closed form with the simulator and "
                           "the checker",
                           covered_by=("simulation:svf-fillers", "coq:svf_fillers_starts")),
            Step.identity("TEL(SVF) in closed form",
                          sp.Sum(b * p * kk, (kk, 1, m)) + sp.Sum(p * (m - 1) + 3 * (i + 1), (i, 0, f - 1)), svf,
                          "batch k ends at pk; filler i at p(m - 1) + 3(i + 1)"),
            Step.unchecked("S is feasible: the staggered triangles hold at most M (svf-triangles), the fillers run "
                           "one at a time in the ramp", "step 7, and the triangles alone as in svf-triangles",
                           "a statement about every step of S: Coq's fillers_witness_feasible for every m, h >= 1 "
                           "(with fillers_witness_tel for its TEL); the ledger and "
                           "tests/test_svf_issue32_families.py check S with the independent checker on the "
                           "members they build",
                           covered_by=("simulation:svf-fillers", "coq:fillers_witness_feasible")),
            Step.identity("TEL(S) in closed form",
                          sp.Sum(i + p, (i, 0, b * m - 1)) + sp.Sum(3 * (i + 1), (i, 0, f - 1)), wit,
                          "triangle i ends at i + p, filler i at 3(i + 1)"),
            Step.limit("m -> infinity: the ratio tends to p/b = (12h + 7)/(6h + 4)", ratio, m, sp.oo,
                       (12 * h + 7) / (6 * h + 4), "leading terms bp m^2/2 and b^2 m^2/2"),
            Step.limit("h -> infinity: the limit tends to 2", (12 * h + 7) / (6 * h + 4), h, sp.oo, 2,
                       "2 - 1/(6h + 4)"),
        ),
        depends_on=("kong.thm3.2",),
        notes="TEL(OPT) <= TEL(S) because S is feasible, so TEL(SVF)/TEL(OPT) >= the ratio. The supremum 2 is "
              "approached from below at alpha = 1/2 exactly (svf-triangles reach it only as alpha -> 0). The "
              "family and closed forms are ours.",
    )
