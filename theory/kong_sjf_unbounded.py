"""``kong.sjf_unbounded``: SJF's competitive ratio is unbounded (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Sec. 3).

Statement: shortest-output-first (SJF / MC-SF, with the same forward-looking check and
strict head-of-line admission) has no constant competitive ratio, even for burst arrivals
with ``alpha < 1``; SVF does.

Our explicit family (the paper's own example was not available to us), for ``m >= 2``:
memory ``M = 2 m^2``; ``m`` requests ``A`` with prompt ``m^2`` and output 1 (peak
``m^2 + 1``, volume ``m^2 + 1``) and ``m^2`` requests ``B`` with prompt 0 and output 2 (peak 2,
volume 3); all arrive at step 0, ``alpha = (m^2 + 1)/(2 m^2) <= 5/8``.

* SJF runs the ``A`` one at a time (two never fit): ``A_k`` finishes at ``k``; ``m^2 - 1`` of the
  ``B`` start beside ``A_m`` at step ``m - 1`` and the last one at ``m``:
  ``TEL(SJF) = m(m+1)/2 + m^3 + m^2 + 1``.
* SVF starts every ``B`` at step 0 (they fill ``M`` exactly at step 2); ``A_k`` finishes at ``k + 2``:
  ``TEL(SVF) = 2 m^2 + 2 m + m(m+1)/2``.

So ``TEL(SJF)/TEL(OPT) >= TEL(SJF)/TEL(SVF) >= m/3``, which tends to infinity
(``~ 2m/5``); the number of requests is ``n = m^2 + m``. :func:`sjf_family` builds the
instance and :func:`closed_form_tels` gives both TELs; the tests compare them with the
simulator and the schedule checker.

Example
-------
>>> inst = sjf_family(3)
>>> inst.memory, inst.n, closed_form_tels(3)
(18, 12, {'sjf': 43, 'svf': 30})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

# the policy premise of the SJF rows (here and geosched.theory.sjf_families): no backfilling past a blocked head
STRICT_BURST = "burst arrivals; strict head-of-line admission with the forward-looking check"
CLAIM = Claim(
    "kong.sjf_unbounded", f"{KONG} (SJF)", "SJF's competitive ratio is unbounded",
    "our family: TEL(SJF)/TEL(SVF) >= m/3 (sympy), simulated against the closed forms; in Coq for every m "
    "(closed forms of the Coq SJF and SVF, and sjf_not_competitive)",
    "family ours; SVF stands in for OPT (an upper bound on it); Coq's SJF is the same placement by output",
    ("derivation", "simulation:family", "coq:sjf_not_competitive", "coq:sjf_family_tel", "coq:svf_family_tel",
     "coq:tel_finish_times", *SIMULATES),
    coq=("sjf_family_tel", "svf_family_tel"),
    coq_whole=("sjf_not_competitive", "tel_finish_times"), coq_constant=("sjf_not_competitive", "unbounded"),
    order=("kong", 100))

m = sp.Symbol("m", integer=True, positive=True)
u = sp.Symbol("u", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True, positive=True)
_M_GE_2 = {m: 2 + u}  # m >= 2


def memory_expr():
    return 2 * m**2


def tel_sjf_expr():
    """TEL(SJF) = m(m+1)/2 + m^3 + m^2 + 1."""
    return m * (m + 1) / 2 + m**3 + m**2 + 1


def tel_svf_expr():
    """TEL(SVF) = 2 m^2 + 2 m + m(m+1)/2."""
    return 2 * m**2 + 2 * m + m * (m + 1) / 2


def sjf_family(size: int) -> Instance:
    """The family member for ``m = size >= 2`` (ids ``a1..am``, ``b1..b{m^2}``)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValidationError("m", size, "must be an integer >= 2")
    requests = [Request(f"a{i}", 0, size * size, 1) for i in range(1, size + 1)]
    requests += [Request(f"b{i}", 0, 0, 2) for i in range(1, size * size + 1)]
    return Instance(2 * size * size, requests)


def closed_form_tels(size: int) -> dict[str, int]:
    """``{"sjf": TEL(SJF), "svf": TEL(SVF)}`` at ``m = size`` from the closed forms."""
    sjf_family(size)  # validates size
    return {"sjf": int(tel_sjf_expr().subs(m, size)), "svf": int(tel_svf_expr().subs(m, size))}


def derivation(tel_sjf=None) -> Derivation:
    """``tel_sjf`` replaces the SJF closed form (tests break it on purpose)."""
    sjf = tel_sjf if tel_sjf is not None else tel_sjf_expr()
    svf = tel_svf_expr()
    big_m = memory_expr()
    pa = m**2 + 1  # peak (and volume) of A
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Sec. 3 (SJF is not constant-competitive); family and closed forms ours",
        "SJF's competitive ratio is unbounded: on the family below TEL(SJF)/TEL(SVF) >= m/3 -> infinity",
        bound=sjf / svf,
        statement_latex=r"SJF's competitive ratio is unbounded: on the family below $\mathrm{TEL}(\mathrm{SJF}) / "
                        r"\mathrm{TEL}(\mathrm{SVF}) \ge m/3 \to \infty$.",
        hypotheses=(Hypothesis("H1", STRICT_BURST, latex=STRICT_BURST,
                               outside="fails on the family: with backfilling, SJF's TEL stays below "
                                       "SVF's (0.87, 0.92, 0.96 at m = 2, 4, 8): the separation needs "
                                       "head-of-line blocking"),
                    Hypothesis("H2", "family: M = 2m^2, m x (s=m^2, o=1), m^2 x (s=0, o=2), m >= 2",
                               latex=r"family: $M = 2m^2$; $m$ requests $(s, o) = (m^2, 1)$ and $m^2$ requests $(s, "
                                     r"o) = (0, 2)$; $m \ge 2$",
                               outside="none: H2 defines the family whose closed forms are derived")),
        steps=(
            Step.inequality("orders differ: SVF puts B first (volume 3 < m^2 + 1)", m**2 + 1, ">", 3,
                            "m >= 2", certificate=[u**2, 4 * u, 2], substitutions=_M_GE_2),
            Step.inequality("SJF: one A fits: m^2 + 1 <= 2m^2", big_m, ">=", pa, "m^2 >= 1",
                            certificate=[(2 + u) ** 2 - 1], substitutions=_M_GE_2),
            Step.inequality("SJF: two A never fit together (head-of-line blocks the B)", 2 * pa, ">", big_m,
                            "difference 2", certificate=[2]),
            Step.inequality("SJF at step m - 1: m^2 - 1 B fit beside A_m at step m", big_m, ">=", pa + (m**2 - 1),
                            "equality: the memory is exactly full", certificate=[0 * m]),
            Step.inequality("SJF at step m - 1: the m^2-th B does not fit at step m", pa + m**2, ">", big_m,
                            "difference 1", certificate=[1]),
            Step.inequality("SJF at step m: the last B fits beside the others (step m + 1)", big_m, ">=",
                            2 * (m**2 - 1) + 1, "difference 1", certificate=[1]),
            Step.inequality("SVF at step 0: all m^2 B fit (usage 2m^2 at step 2)", big_m, ">=", 2 * m**2,
                            "equality", certificate=[0 * m]),
            Step.inequality("SVF at steps 0 and 1: A_1 does not fit while the B run", m**2 + pa, ">", big_m,
                            "usage m^2 (step 1) or 2m^2 (step 2) plus m^2 + 1", certificate=[1]),
            Step.unchecked(
                "the traces: SJF starts A_k at k - 1, m^2 - 1 B at m - 1, the last B at m; SVF starts every B at 0 "
                "and A_k at k + 1",
                "follows from steps 1-8 under strict head-of-line admission",
                "a statement about the policies' complete traces; the ledger compares the closed forms with the "
                "simulator and the schedule checker",
                covered_by=("simulation:family",)),
            Step.identity("TEL(SJF) in closed form", sp.Sum(k, (k, 1, m)) + (m**2 - 1) * (m + 1) + (m + 2), sjf,
                          "A_k: latency k; m^2 - 1 B: m + 1; the last B: m + 2"),
            Step.identity("TEL(SVF) in closed form", 2 * m**2 + sp.Sum(k + 2, (k, 1, m)), svf,
                          "B: latency 2 each; A_k: k + 2"),
            Step.inequality("ratio: 3 TEL(SJF) >= m TEL(SVF)", 3 * sjf, ">=", m * svf,
                            "difference m^3/2 + 2m^2 + 3m/2 + 3",
                            certificate=[m**3 / 2, 2 * m**2, 3 * m / 2, 3]),
            Step.limit("the ratio is unbounded", sjf / svf, m, sp.oo, sp.oo, "cubic over quadratic"),
            Step.limit("growth rate: TEL(SJF)/(m TEL(SVF)) -> 2/5", sjf / (m * svf), m, sp.oo, sp.Rational(2, 5),
                       "leading terms m^3 and 5m^2/2"),
            Step.inequality("alpha < 1 on the family (SVF's Thm. 3.2 applies): 2m^2 > m^2 + 1", big_m, ">", pa,
                            "m^2 - 1 > 0 for m >= 2", certificate=[(2 + u) ** 2 - 1], substitutions=_M_GE_2),
        ),
        notes="TEL(OPT) <= TEL(SVF) because SVF's schedule is feasible (no theorem needed), so TEL(SJF)/TEL(OPT) "
              ">= m/3. Family and closed forms are our construction.",
    )
