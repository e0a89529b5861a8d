"""``svf.alternating``: SVF's ratio on bursts grows like ``1/(2(1 - alpha))`` as ``alpha -> 1``.

Setting: SVF of Kong, Qi, Ye, Zhou, arXiv 2606.22327 (strict head-of-line admission in increasing volume
with the forward-looking check; equal keys by position), bursts, ``alpha = max(s + o)/M`` in ``(1/2, 1)``,
where Thm. 3.2 allows ``1 + 2/(1 - alpha)``. The family and its closed forms are ours.

Family ``svf-alternating`` (size ``m >= 1``, width ``c >= 2``): ``a = c(c - 1)/2``, ``M = c^2 (c + 1)/2``;
``n = cm`` *narrow* requests ``X = (a, c)`` (peak ``a + c = M/c``) and ``n`` *wide* ones
``H = (b, 1)`` with ``b = ac + c(c + 1)/2 - 1`` (peak ``b + 1 = c(c^2 + 1)/2``), in the order
``X_0, H_0, X_1, H_1, ...``; ``alpha = (c^2 + 1)/(c(c + 1))``, ``1 - alpha = (c - 1)/(c(c + 1))``.

* Both kinds have the volume ``ac + c(c + 1)/2 = b + 1``: SVF's keys tie and it serves the position order.
* An X and an H never overlap: at the first step of the later one, X holds at least ``a + 1`` and H at
  least ``b + 1``, and ``a + b + 2 = M + 1``. So SVF, strict head-of-line, runs the ``2n`` requests one
  at a time in the order ``X, H, X, H, ...``: pair ``j`` ends at ``(j + 1)(c + 1)``,
  ``TEL(SVF) = (c + 1) n(n + 1) - n``.
* Witness ``S``: the X's in ``m`` batches of ``c`` (``c`` peaks ``M/c`` fill ``M``), batch ``g`` at
  ``gc``; then the H's one per step from ``mc``:
  ``TEL(S) = c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2``.

The ratio tends to ``(c + 1)/2`` as ``m -> infinity``; ``(c + 1)/2 = c(c + 1)/(2(c - 1)) * (c - 1)/c``, so
``limit * 2(1 - alpha) = (c - 1)/c -> 1``: SVF's ratio grows like ``1/(2(1 - alpha))``, unbounded as
``alpha -> 1`` (a quarter of Thm. 3.2's ``2/(1 - alpha)``). The wide requests are the blockers: each has
a peak near ``alpha M``, the narrow ones do not fit beside it, and the tie hands SVF an order that serialises
both kinds, where ``S`` runs ``c`` narrow ones at once.

Example
-------
>>> inst = alternating(2, 3)
>>> inst.memory, inst.n, closed_form_tels(2, 3)
(18, 12, {'svf': 162, 'witness': 84})
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.svf_fillers import STRICT_SVF_BURST

CLAIM = Claim(
    "svf.alternating", f"ours (family); {KONG} Thm. 3.2",
    "SVF's ratio for bursts is unbounded as alpha -> 1, growing like 1/(2(1 - alpha)) (Thm. 3.2 allows "
    "1 + 2/(1 - alpha))",
    "family svf-alternating: M = c^2(c+1)/2, cm requests (c(c-1)/2, c) alternating with cm requests (b, 1), "
    "b = c(c-1)c/2 + c(c+1)/2 - 1 (equal volumes), alpha = (c^2+1)/(c(c+1)); TEL(SVF) = (c+1)n(n+1) - n, "
    "witness TEL(S) = c^2 m(m+1)/2 + c^2 m^2 + cm(cm+1)/2 (sympy), both simulated and checked against the closed "
    "forms; limit (c+1)/2, and limit * 2(1 - alpha) = (c-1)/c -> 1",
    "not a claim of the papers: the family is ours; S stands in for OPT; the SVF trace rests on the tie order "
    "(equal volumes, served by position)",
    ("derivation", "simulation:svf-alternating", "coq:svf_alternating_starts", "coq:alternating_witness_feasible",
     *SIMULATES), ("kong.thm3.2",),
    coq=("svf_alternating_starts", "alternating_witness_feasible"),
    order=("ours", 12))

m = sp.Symbol("m", integer=True, positive=True)
c = sp.Symbol("c", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
g = sp.Symbol("g", integer=True, positive=True)
t = sp.Symbol("t", integer=True, nonnegative=True)
u = sp.Symbol("u", integer=True, nonnegative=True)  # c - 2


def narrow_prompt_expr():
    """``a = c(c - 1)/2``: the narrow request ``(a, c)``."""
    return c * (c - 1) / 2


def wide_prompt_expr():
    """``b = ac + c(c + 1)/2 - 1``: the wide request ``(b, 1)``."""
    return narrow_prompt_expr() * c + c * (c + 1) / 2 - 1


def memory_expr():
    """``M = c(a + c) = c^2 (c + 1)/2``."""
    return c * (narrow_prompt_expr() + c)


def tel_svf_expr():
    """``TEL(SVF) = (c + 1) n(n + 1) - n`` with ``n = cm``."""
    size = c * m
    return (c + 1) * size * (size + 1) - size


def tel_witness_expr():
    """``TEL(S) = c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2``."""
    return c**2 * m * (m + 1) / 2 + c**2 * m**2 + c * m * (c * m + 1) / 2


def ratio_expr():
    return sp.factor(sp.simplify(tel_svf_expr() / tel_witness_expr()))


def _check(size: int, width: int) -> None:
    for name, value, low in (("m", size, 1), ("c", width, 2)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValidationError(name, value, f"must be an integer >= {low}")


def alternating(size: int, width: int = 20) -> Instance:
    """The member ``m = size``, ``c = width``: ``x..`` (narrow) and ``y..`` (wide) requests alternating."""
    _check(size, width)
    a = width * (width - 1) // 2
    b = a * width + width * (width + 1) // 2 - 1
    count = width * size
    digits = len(str(count - 1))
    requests = []
    for i in range(count):
        requests += [Request(f"x{i:0{digits}d}", 0, a, width), Request(f"y{i:0{digits}d}", 0, b, 1)]
    return Instance(width * (a + width), requests)


def witness_starts(size: int, width: int = 20) -> dict[str, int]:
    """``S``: narrow batch ``g`` (``c`` requests) at ``gc``, then the wide ones one per step from ``mc``."""
    _check(size, width)
    count = width * size
    digits = len(str(count - 1))
    starts = {f"x{i:0{digits}d}": (i // width) * width for i in range(count)}
    starts.update({f"y{i:0{digits}d}": size * width + i for i in range(count)})
    return starts


def closed_form_tels(size: int, width: int = 20) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` from the closed forms."""
    _check(size, width)
    point = {m: size, c: width}
    return {"svf": int(tel_svf_expr().subs(point)), "witness": int(tel_witness_expr().subs(point))}


def derivation(tel_svf=None) -> Derivation:
    """``tel_svf`` replaces the SVF closed form (tests break it on purpose)."""
    svf = tel_svf if tel_svf is not None else tel_svf_expr()
    wit = tel_witness_expr()
    a, b, big_m = narrow_prompt_expr(), wide_prompt_expr(), memory_expr()
    ratio = svf / wit
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Thm. 3.2 (the upper bound 1 + 2/(1 - alpha)); the family and its closed forms are ours",
        "on svf-alternating TEL(SVF)/TEL(S) -> (c + 1)/2 as m -> infinity, at alpha = (c^2 + 1)/(c(c + 1)): "
        "the limit times 2(1 - alpha) is (c - 1)/c -> 1, so SVF's ratio grows like 1/(2(1 - alpha))",
        bound=ratio,
        statement_latex=r"On svf-alternating $\mathrm{TEL}(\mathrm{SVF})/\mathrm{TEL}(S) \to (c+1)/2$ as "
                        r"$m \to \infty$ at $\alpha = (c^2+1)/(c(c+1))$; the limit times $2(1-\alpha)$ is "
                        r"$(c-1)/c \to 1$: SVF's ratio grows like $1/(2(1-\alpha))$.",
        hypotheses=(Hypothesis("H1", STRICT_SVF_BURST, latex=STRICT_SVF_BURST,
                               outside="none: the trace rests on the tie order, but reversed (H_0, X_0, H_1, ...) it "
                                       "serialises the two kinds the same way (the witness file's reversed-tie "
                                       "ratio, 11.35 at m = 20, c = 22, beside 11.38)"),
                    Hypothesis("H2", "family: M = c^2(c+1)/2; for i < cm, X_i = (c(c-1)/2, c) then H_i = (b, 1), "
                               "b = c^2(c-1)/2 + c(c+1)/2 - 1; m >= 1, c >= 2",
                               latex=r"family: $M = c^2(c+1)/2$; for $i < cm$, $X_i = (c(c-1)/2, c)$ then "
                                     r"$H_i = (b, 1)$, $b = c^2(c-1)/2 + c(c+1)/2 - 1$; $m \ge 1$, $c \ge 2$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.identity("the volumes tie: a c + c(c + 1)/2 = b + 1", a * c + c * (c + 1) / 2, b + 1,
                          "definition of b"),
            Step.identity("alpha = (b + 1)/M = (c^2 + 1)/(c(c + 1))", (b + 1) / big_m, (c**2 + 1) / (c * (c + 1)),
                          "b + 1 = c(c^2 + 1)/2"),
            Step.inequality("alpha > 1/2 (c = 2 + u)", (c**2 + 1) / (c * (c + 1)), ">", sp.Rational(1, 2),
                            "difference (u^2 + 3u + 4)/(2(u + 2)(u + 3))",
                            certificate=[(u**2 + 3 * u + 4) / (2 * (u + 2) * (u + 3))], substitutions={c: 2 + u}),
            Step.inequality("an X and an H never overlap: their first steps alone hold a + 1 + b + 1 > M",
                            a + 1 + b + 1, ">", big_m, "difference 1", certificate=[1]),
            Step.inequality("c narrow peaks fill M: c (a + c) <= M", big_m, ">=", c * (a + c), "equality",
                            certificate=[0 * c]),
            Step.inequality("a wide request alone fits: b + 1 <= M", big_m, ">=", b + 1,
                            "difference c(c - 1)/2 (with c = 2 + u)",
                            certificate=list(sp.Add.make_args(sp.expand((big_m - b - 1).subs(c, 2 + u)))),
                            substitutions={c: 2 + u}),
            Step.unchecked("the trace: SVF runs X_0, H_0, X_1, ... one at a time; pair j ends at (j + 1)(c + 1)",
                           "steps 1, 4 under strict head-of-line admission (ties by position); peaks fit (5, 6)",
                           "a statement about the policy's complete trace: Coq's svf_alternating_starts for every "
                           "n and every (a, b, c, M) satisfying steps 1, 4, 5, 6 (verify/coq/SvfSerial.v); the "
                           "ledger and tests/test_svf_issue32_families.py also compare the closed form with the "
                           "simulator and the checker",
                           covered_by=("simulation:svf-alternating", "coq:svf_alternating_starts")),
            Step.identity("TEL(SVF) in closed form", sp.Sum(2 * (j + 1) * (c + 1) - 1, (j, 0, c * m - 1)), svf,
                          "X_j ends at (j + 1)(c + 1) - 1, H_j at (j + 1)(c + 1)"),
            Step.unchecked("S is feasible: at every step it runs at most c narrow requests (one batch) or one wide one",
                           "steps 5, 6: batch g runs in (gc, gc + c], the wide ones one per step after mc",
                           "a statement about every step of S: Coq's alternating_witness_feasible for every m and "
                           "every (a, b, c, M) satisfying steps 5, 6 (verify/coq/SvfSerial.v); the ledger and "
                           "tests/test_svf_issue32_families.py also check S with the independent checker",
                           covered_by=("simulation:svf-alternating", "coq:alternating_witness_feasible")),
            Step.identity("TEL(S) in closed form",
                          sp.Sum(c * g * c, (g, 1, m)) + sp.Sum(m * c + 1 + j, (j, 0, c * m - 1)), wit,
                          "batch g (c narrow) ends at gc; wide j ends at mc + j + 1"),
            Step.limit("m -> infinity: the ratio tends to (c + 1)/2", ratio, m, sp.oo, (c + 1) / 2,
                       "leading terms (c + 1) c^2 m^2 and 2 c^2 m^2"),
            Step.identity("the limit times 2(1 - alpha) is (c - 1)/c",
                          (c + 1) / 2 * 2 * (1 - (c**2 + 1) / (c * (c + 1))), (c - 1) / c,
                          "1 - alpha = (c - 1)/(c(c + 1))"),
            Step.limit("c -> infinity: (c - 1)/c -> 1, the growth 1/(2(1 - alpha))", (c - 1) / c, c, sp.oo, 1,
                       "1 - 1/c"),
            Step.inequality("consistent with Thm. 3.2: (c + 1)/2 < 1 + 2/(1 - alpha)",
                            1 + 2 * c * (c + 1) / (c - 1), ">", (c + 1) / 2,
                            "difference 3u/2 + 15/2 + 4/(u + 1) with c = 2 + u",
                            certificate=[3 * u / 2, sp.Rational(15, 2), 4 / (u + 1)], substitutions={c: 2 + u}),
        ),
        depends_on=("kong.thm3.2",),
        notes="TEL(OPT) <= TEL(S) because S is feasible, so TEL(SVF)/TEL(OPT) >= the ratio. The SVF trace rests on "
              "the tie between the two volumes (served by position); the family and closed forms are ours.",
    )
