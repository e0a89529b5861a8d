"""``svf.lower_bound``: SVF's competitive ratio under ``alpha <= 1/2`` is at least 3/2 (a family
found by the structured search; the upper bound is Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.2).

Thm. 3.2 bounds SVF on burst arrivals by ``1 + 2/(1 - alpha)``, which is 5 at ``alpha = 1/2``.
How far below 5 does SVF's true worst case lie? The structured search
(:mod:`geosched.adversary.structured`) keeps returning one shape: many *identical* requests
``(s, o) = (0, P)`` with ``M = 2P``. This module makes it exact.

**Family** (``m >= 1``, ``q >= 1``): ``n = 2m`` requests ``(0, 3q)`` arriving at 0, ``M = 6q``,
``alpha = 1/2``.

* SVF (every key equal, ties by position; the same for FCFS and SJF) starts two requests at
  0: they fit exactly (``2 * 3q = M`` at step ``3q``). A third started at ``t < 3q`` would hold
  ``3q - t > 0`` tokens at step ``3q``, on top of ``M``: it waits for the pair to finish. So
  pairs run back to back, pair ``k`` completing at ``3qk``:
  ``TEL(SVF) = 2 * 3q (1 + ... + m) = 3q m(m+1)``.
* Witness ``S``: request ``i`` starts at ``iq`` (staggered by a third of a lifetime). At step
  ``t = jq + a`` (``1 <= a <= q``) the running requests are ``j-2, j-1, j`` with ages
  ``a + 2q, a + q, a``: ``3a + 3q <= 6q = M``. ``TEL(S) = sum_i (iq + 3q) = q(2m^2 + 5m)``.

So ``TEL(SVF)/OPT >= 3(m+1)/(2m+5) -> 3/2``: three staggered lifetimes fit where the
forward-looking check, run greedily, lines requests up in synchronised pairs. The best SVF
lower bound known to this package is this limit, 3/2, against the proved upper bound 5.

Example
-------
>>> inst = svf_pairs(2, 1)
>>> inst.memory, inst.n, closed_form_tels(2, 1)
(6, 4, {'svf': 18, 'witness': 18})
>>> best_known_lower_bound()
(3/2, 'svf-pairs')
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM_ID = "svf.lower_bound"

m = sp.Symbol("m", integer=True, positive=True)
q = sp.Symbol("q", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)
w = sp.Symbol("w", integer=True, nonnegative=True)
a = sp.Symbol("a", integer=True, positive=True)


def memory_expr():
    return 6 * q


def tel_svf_expr():
    """TEL(SVF) = 3q m(m+1)."""
    return 3 * q * m * (m + 1)


def tel_witness_expr():
    """TEL(S) = q(2m^2 + 5m)."""
    return q * (2 * m**2 + 5 * m)


def ratio_expr():
    return sp.simplify(tel_svf_expr() / tel_witness_expr())


def limit() -> sp.Expr:
    """The ratio's limit as ``m -> infinity`` (any ``q``)."""
    return sp.limit(ratio_expr(), m, sp.oo)


def best_known_lower_bound() -> tuple[sp.Expr, str]:
    """The largest family limit of an SVF lower-bound family known here, and the family's name."""
    return limit(), "svf-pairs"


def _check(size: int, width: int) -> None:
    for name, value in (("m", size), ("q", width)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")


def svf_pairs(size: int, width: int = 1) -> Instance:
    """The member ``m = size``, ``q = width``: ``2m`` requests ``(0, 3q)``, ``M = 6q``."""
    _check(size, width)
    digits = len(str(2 * size - 1))
    return Instance(6 * width, [Request(f"r{j:0{digits}d}", 0, 0, 3 * width) for j in range(2 * size)])


def witness_starts(size: int, width: int = 1) -> dict[str, int]:
    """The staggered schedule: request ``i`` starts at ``i q``."""
    return {r.id: j * width for j, r in enumerate(svf_pairs(size, width).requests)}


def closed_form_tels(size: int, width: int = 1) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` from the closed forms."""
    _check(size, width)
    values = {m: size, q: width}
    return {"svf": int(tel_svf_expr().subs(values)), "witness": int(tel_witness_expr().subs(values))}


def derivation(tel_svf=None) -> Derivation:
    """``tel_svf`` replaces the SVF closed form (tests break it on purpose)."""
    svf = tel_svf if tel_svf is not None else tel_svf_expr()
    wit = tel_witness_expr()
    big_m, p = memory_expr(), 3 * q
    return Derivation(
        CLAIM_ID,
        "Kong, Qi, Ye, Zhou, arXiv 2606.22327",
        "Thm. 3.2 (the upper bound 1 + 2/(1 - alpha)); the family and its closed forms are ours",
        "SVF's ratio under alpha <= 1/2 is at least 3/2: on the family below TEL(SVF)/TEL(S) = 3(m+1)/(2m+5) -> 3/2",
        bound=svf / wit,
        statement_latex=r"SVF's ratio under $\alpha \le 1/2$ is at least $3/2$: on the family below "
                        r"$\mathrm{TEL}(\mathrm{SVF}) / \mathrm{TEL}(S) = 3(m+1)/(2m+5) \to 3/2$.",
        hypotheses=(Hypothesis("H1", "burst arrivals; strict head-of-line admission with the forward-looking check; "
                               "ties by position",
                               latex=r"burst arrivals; strict head-of-line admission with the forward-looking "
                                     r"check; ties by position"),
                    Hypothesis("H2", "family: M = 6q, 2m identical requests (s, o) = (0, 3q), m, q >= 1",
                               latex=r"family: $M = 6q$; $2m$ identical requests $(s, o) = (0, 3q)$; "
                                     r"$m, q \ge 1$")),
        steps=(
            Step.identity("alpha = 1/2: the peak 3q is half of M", p / big_m, sp.Rational(1, 2), "3q / 6q"),
            Step.inequality("SVF: a pair fits (usage 2 * 3q at its last step)", big_m, ">=", 2 * p, "equality",
                            certificate=[0 * q]),
            Step.inequality("SVF: a third request started at t = 3q - 1 - w < 3q overflows at step 3q",
                            2 * p + (p - (p - 1 - w)), ">", big_m, "it still holds 3q - t = 1 + w tokens there",
                            certificate=[1, w]),
            Step.unchecked("the trace: SVF starts pair k = 1..m at 3q(k - 1)",
                           "steps 2-3 at every pair boundary (the batch is empty again at 3qk)",
                           "a statement about the policy's complete trace; the ledger and tests/test_families.py "
                           "compare the closed form with the simulator and the checker",
                           covered_by=("simulation:svf-family",)),
            Step.identity("TEL(SVF) in closed form", sp.Sum(2 * p * k, (k, 1, m)), svf, "pair k completes at 3qk"),
            Step.identity("S: at step t = jq + a the three running requests hold a + 2q, a + q, a",
                          (a + 2 * q) + (a + q) + a, 3 * a + 3 * q, "starts iq; lifetimes 3q"),
            Step.inequality("S is feasible: 3a + 3q <= M for a = q - w <= q", big_m, ">=",
                            3 * (q - w) + 3 * q, "difference 3w", certificate=[3 * w]),
            Step.identity("TEL(S) in closed form", sp.Sum(i * q + p, (i, 0, 2 * m - 1)), wit,
                          "request i completes at iq + 3q"),
            Step.identity("the ratio", svf / wit, 3 * (m + 1) / (2 * m + 5), "divide by qm"),
            Step.limit("the ratio tends to 3/2", svf / wit, m, sp.oo, sp.Rational(3, 2), "leading terms 3m / 2m"),
            Step.inequality("consistent with Thm. 3.2 at alpha = 1/2: 5 TEL(S) >= TEL(SVF)", 5 * wit, ">=", svf,
                            "difference q(7m^2 + 22m)", certificate=[7 * q * m**2, 22 * q * m]),
        ),
        depends_on=("kong.thm3.2",),  # it states the upper bound 5 of Thm. 3.2
        notes="TEL(OPT) <= TEL(S), so TEL(SVF)/TEL(OPT) >= 3(m+1)/(2m+5). The family is our construction "
              "(found by geosched's structured search).",
    )
