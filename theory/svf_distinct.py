"""``svf.distinct``: SVF's ratio grows like ``1/(2(1 - alpha))`` as ``alpha -> 1`` also on bursts whose volumes
are pairwise distinct (no tie for the order to decide).

Setting: SVF of Kong, Qi, Ye, Zhou, arXiv 2606.22327 (strict head-of-line admission in increasing volume with
the forward-looking check), bursts, where Thm. 3.2 allows ``1 + 2/(1 - alpha)``. ``svf.alternating`` reaches
``1/(2(1 - alpha))`` with equal volumes, served by position; reversed, its ties still serialise the two kinds, but a
search scored on distinct volumes cannot use it. Here the ties are broken by the lengths themselves: the family and
its closed forms are ours.

Family ``svf-distinct`` (size ``m >= 1``, ``h >= 1``; ``c = 2h + 1``, ``n = cm``, time scale ``K = cn``):
``a = (c^2 + 3)/2``, ``b = ac + (c^2 - 1)/2``, ``M = cK(a + c) + c(n - 1)``; for ``j < n`` a *narrow*
``X_j = (Ka + j, Kc)`` and a *wide* ``H_j = (Kb + cj + c, K)``.

* Volumes: ``v(X_j) = K^2 (ac + c^2/2) + K(cj + c/2)``, ``v(H_j) = v(X_j) + K(c + 1)/2``: strictly
  ``v(X_0) < v(H_0) < v(X_1) < v(H_1) < ...`` (each step ``K(c + 1)/2`` or ``K(c - 1)/2``), all distinct, so SVF's
  order is ``X_0, H_0, X_1, ...`` whatever the tie rule.
* An X and an H never overlap: their first steps alone hold ``Ka + 1 + Kb + c + 1 > M`` (``K > c(n - 2) - 2``).
  So SVF runs the ``2n`` requests one at a time: ``X_j`` on ``[jK(c + 1), jK(c + 1) + Kc)``, ``H_j`` until
  ``(j + 1)K(c + 1)``: ``TEL(SVF) = K(c + 1) n^2 + Kcn``.
* Witness ``S``: the X's in batches of ``c`` (``c`` peaks ``Ka + n - 1 + Kc`` fit in ``M``), batch ``g`` at
  ``gKc``; then the H's one after another: ``TEL(S) = K(c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2)``.

The ratio tends to ``(c + 1)/2`` as ``m -> infinity`` (``K`` cancels), at ``alpha -> (c^2 + 3)/(c^2 + c + 2)``; the
limit times ``2(1 - alpha)`` is ``(c^2 - 1)/(c^2 + c + 2) -> 1`` as ``c -> infinity``:
the growth ``1/(2(1 - alpha))`` of ``svf.alternating``, without a tie. At ``m = 1, h = 2`` (10 requests,
``M = 2395``) the ratio is ``35/13 = 2.6923`` and ``S`` is optimal (the exact solver proves it).

Example
-------
>>> inst = distinct(1, 1)
>>> inst.memory, inst.n, closed_form_tels(1, 1)
(249, 6, {'svf': 405, 'witness': 216})
>>> len({r.volume for r in inst.requests}) == inst.n
True
"""

from __future__ import annotations

import sympy as sp

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "svf.distinct", f"ours (family); {KONG} Thm. 3.2",
    "SVF's ratio for bursts with pairwise distinct volumes grows like 1/(2(1 - alpha)) as alpha -> 1 (no tie "
    "decides the order)",
    "family svf-distinct: c = 2h + 1, n = cm, K = cn, a = (c^2 + 3)/2, b = ac + (c^2 - 1)/2, M = cK(a + c) + c(n - "
    "1); X_j = (Ka + j, Kc) and H_j = (Kb + cj + c, K), volumes interleaved and distinct; TEL(SVF) = K(c + 1)n^2 + "
    "Kcn, witness TEL(S) = K(c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2) (sympy), both simulated and checked against "
    "the closed forms; limit (c + 1)/2, and limit * 2(1 - alpha) -> 1",
    "not a claim of the papers: the family is ours; S stands in for OPT (at m = 1, h = 2 it is the proved optimum); "
    "SVF's trace is simulated for the members run, not proved for every member",
    ("derivation", "simulation:svf-distinct", *SIMULATES), ("kong.thm3.2",), order=("ours", 13))
POLICIES = ("svf",)

m = sp.Symbol("m", integer=True, positive=True)
h = sp.Symbol("h", integer=True, positive=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
g = sp.Symbol("g", integer=True, nonnegative=True)
v, w = sp.symbols("v w", integer=True, nonnegative=True)


def width_expr():
    """``c = 2h + 1``."""
    return 2 * h + 1


def count_expr():
    """``n = cm``: the number of narrow (and of wide) requests."""
    return width_expr() * m


def scale_expr():
    """``K = cn``: the time scale."""
    return width_expr() * count_expr()


def narrow_prompt_expr():
    """``a = (c^2 + 3)/2`` (narrow prompts are ``Ka + j``)."""
    return (width_expr()**2 + 3) / 2


def wide_prompt_expr():
    """``b = ac + (c^2 - 1)/2`` (wide prompts are ``Kb + cj + c``)."""
    c = width_expr()
    return narrow_prompt_expr() * c + (c**2 - 1) / 2


def memory_expr():
    """``M = cK(a + c) + c(n - 1)``."""
    c, n, big_k = width_expr(), count_expr(), scale_expr()
    return c * big_k * (narrow_prompt_expr() + c) + c * (n - 1)


def tel_svf_expr():
    """``TEL(SVF) = K(c + 1) n^2 + Kcn``."""
    c, n, big_k = width_expr(), count_expr(), scale_expr()
    return big_k * (c + 1) * n**2 + big_k * c * n


def tel_witness_expr():
    """``TEL(S) = K(c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2)``."""
    c, big_k = width_expr(), scale_expr()
    return big_k * (c**2 * m * (m + 1) / 2 + c**2 * m**2 + c * m * (c * m + 1) / 2)


def ratio_expr():
    return sp.factor(sp.simplify(tel_svf_expr() / tel_witness_expr()))


def _check(size: int, half: int) -> None:
    for name, value in (("m", size), ("h", half)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")


def _lengths(size: int, half: int) -> tuple[int, int, int, int, int, int]:
    c = 2 * half + 1
    n = c * size
    big_k = c * n
    a = (c * c + 3) // 2
    b = a * c + (c * c - 1) // 2
    return c, n, big_k, a, b, c * big_k * (a + c) + c * (n - 1)


def distinct(size: int, half: int = 2) -> Instance:
    """The member ``m = size``, ``h = half``: ``x..`` (narrow) and ``y..`` (wide) requests alternating."""
    _check(size, half)
    c, n, big_k, a, b, memory = _lengths(size, half)
    digits = len(str(n - 1))
    requests = []
    for i in range(n):
        requests += [Request(f"x{i:0{digits}d}", 0, big_k * a + i, big_k * c),
                     Request(f"y{i:0{digits}d}", 0, big_k * b + c * i + c, big_k)]
    return Instance(memory, requests)


def witness_starts(size: int, half: int = 2) -> dict[str, int]:
    """``S``: narrow batch ``g`` (``c`` requests) at ``gKc``, then the wide ones one after another from ``mKc``."""
    _check(size, half)
    c, n, big_k, *_ = _lengths(size, half)
    digits = len(str(n - 1))
    starts = {f"x{i:0{digits}d}": (i // c) * big_k * c for i in range(n)}
    starts.update({f"y{i:0{digits}d}": size * big_k * c + i * big_k for i in range(n)})
    return starts


def closed_form_tels(size: int, half: int = 2) -> dict[str, int]:
    """``{"svf": TEL(SVF), "witness": TEL(S)}`` from the closed forms."""
    _check(size, half)
    point = {m: size, h: half}
    return {"svf": int(tel_svf_expr().subs(point)), "witness": int(tel_witness_expr().subs(point))}


def _volume(s, o):
    return s * o + (o**2 + o) / 2


def derivation(tel_svf=None) -> Derivation:
    """``tel_svf`` replaces the SVF closed form (tests break it on purpose)."""
    svf = tel_svf if tel_svf is not None else tel_svf_expr()
    wit = tel_witness_expr()
    c, n, big_k = width_expr(), count_expr(), scale_expr()
    a, b, big_m = narrow_prompt_expr(), wide_prompt_expr(), memory_expr()
    vx = _volume(big_k * a + j, big_k * c)
    vh = _volume(big_k * b + c * j + c, big_k)
    vx_next = _volume(big_k * a + j + 1, big_k * c)
    alpha_limit = (c**2 + 3) / (c**2 + c + 2)
    growth = (c**2 - 1) / (c**2 + c + 2)
    return Derivation(
        CLAIM.id, KONG_PAPER,
        "Thm. 3.2 (the upper bound 1 + 2/(1 - alpha)); the family and its closed forms are ours",
        "on svf-distinct (pairwise distinct volumes) TEL(SVF)/TEL(S) -> (c + 1)/2 as m -> infinity, at alpha -> "
        "(c^2 + 3)/(c^2 + c + 2); the limit times 2(1 - alpha), (c^2 - 1)/(c^2 + c + 2), tends to 1 as c -> "
        "infinity: SVF's ratio grows like 1/(2(1 - alpha)) without a tie",
        bound=svf / wit,
        statement_latex=r"On svf-distinct (pairwise distinct volumes) $\mathrm{TEL}(\mathrm{SVF})/\mathrm{TEL}(S) "
                        r"\to (c+1)/2$ as $m \to \infty$, at $\alpha \to (c^2+3)/(c^2+c+2)$; the limit times "
                        r"$2(1-\alpha)$, $(c^2-1)/(c^2+c+2)$, tends to $1$ as $c \to \infty$.",
        hypotheses=(Hypothesis("H1", "burst arrivals; strict head-of-line admission in increasing volume with the "
                               "forward-looking check (no tie occurs)",
                               latex=r"burst arrivals; strict head-of-line admission in increasing volume with the "
                                     r"forward-looking check (no tie occurs)",
                               outside="none: H1 names the policy whose ratio is computed; the volumes are distinct, "
                                       "so every tie rule gives the same trace"),
                    Hypothesis("H2", "family: c = 2h + 1, n = cm, K = cn, a = (c^2 + 3)/2, b = ac + (c^2 - 1)/2, "
                               "M = cK(a + c) + c(n - 1); X_j = (Ka + j, Kc), H_j = (Kb + cj + c, K), j < n",
                               latex=r"family: $c = 2h + 1$, $n = cm$, $K = cn$, $a = (c^2 + 3)/2$, $b = ac + "
                                     r"(c^2 - 1)/2$, $M = cK(a + c) + c(n - 1)$; $X_j = (Ka + j, Kc)$, $H_j = (Kb + "
                                     r"cj + c, K)$, $j < n$",
                               outside="none: H2 defines the family")),
        steps=(
            Step.identity("the wide volume: v(H_j) = v(X_j) + K(c + 1)/2", vh, vx + big_k * (c + 1) / 2,
                          "b + 1/2 = ac + c^2/2: the K^2 terms cancel"),
            Step.inequality("interleaved: v(H_j) < v(X_{j+1}), by K(c - 1)/2 = Kh", vx_next, ">", vh,
                            "v(X_{j+1}) - v(X_j) = Kc", certificate=[big_k * h]),
            Step.inequality("an X and an H never overlap: (Ka + 1) + (Kb + c + 1) > M",
                            big_k * a + 1 + big_k * b + c + 1, ">", big_m,
                            "a + b = c(a + c) + 1, so the difference is K + c + 2 - c(n - 1) = 2c + 2 with K = cn",
                            certificate=[4 * h + 4]),
            Step.inequality("c narrow requests fit together: c(Ka + n - 1 + Kc) <= M", big_m, ">=",
                            c * (big_k * a + n - 1 + big_k * c), "equality", certificate=[0 * h]),
            Step.inequality("the largest wide request fits alone: Kb + cn + K <= M (h = 1 + v, m = 1 + w)", big_m, ">=",
                            big_k * b + c * n + big_k, "difference K(c^2 - 1)/2 - c",
                            certificate=list(sp.Add.make_args(sp.expand((big_m - big_k * b - c * n - big_k).subs(
                                {h: 1 + v, m: 1 + w})))), substitutions={h: 1 + v, m: 1 + w}),
            Step.unchecked("the trace: SVF runs X_0, H_0, X_1, ... one at a time; X_j starts at jK(c + 1)",
                           "steps 1-3: the order is forced and no two of them overlap; a request alone fits",
                           "a statement about the policy's complete trace: simulated and checked against the closed "
                           "form on the members of simulation:svf-distinct (not proved for every member)",
                           covered_by=("simulation:svf-distinct",)),
            Step.identity("TEL(SVF) in closed form", sp.Sum(j * big_k * (c + 1) + big_k * c + (j + 1) * big_k * (c + 1),
                                                            (j, 0, n - 1)), svf, "sum over the pairs"),
            Step.unchecked("S is feasible: each batch of c narrow requests fits (step 4); the wide ones run alone",
                           "steps 3-5", "a statement about every step of S: the checker on the members of "
                           "simulation:svf-distinct", covered_by=("simulation:svf-distinct",)),
            Step.identity("TEL(S) in closed form", sp.Sum(c * (g + 1) * big_k * c, (g, 0, m - 1))
                          + sp.Sum(m * big_k * c + (j + 1) * big_k, (j, 0, n - 1)), wit,
                          "batch g ends at (g + 1)Kc (c requests), wide j at mKc + (j + 1)K"),
            Step.limit("as m -> infinity the ratio tends to (c + 1)/2 = h + 1", svf / wit, m, sp.oo, h + 1,
                       "leading terms K(c + 1)c^2 m^2 against 2Kc^2 m^2"),
            Step.limit("alpha = (K(b + 1) + cn)/M -> (b + 2)/(c(a + c) + 1) = (c^2 + 3)/(c^2 + c + 2) as m -> "
                       "infinity", (big_k * b + c * n + big_k) / big_m, m, sp.oo, alpha_limit,
                       "leading terms in m; c^3 + 2c^2 + 3c + 2 = (c + 1)(c^2 + c + 2)"),
            Step.identity("the limit times 2(1 - alpha): (c^2 - 1)/(c^2 + c + 2)",
                          (c + 1) * (1 - alpha_limit), growth, "1 - alpha = (c - 1)/(c^2 + c + 2)"),
            Step.limit("which tends to 1 as h -> infinity: SVF's ratio grows like 1/(2(1 - alpha)) without ties",
                       growth, h, sp.oo, 1, "leading terms c^3/c^3"),
        ),
        depends_on=("kong.thm3.2",),
        notes="TEL(OPT) <= TEL(S), so TEL(SVF)/OPT >= the ratio. The distinct volumes cost a time scale K = cn "
              "(the prompts' spread must stay below the prompts' gap to the conflict) and a slightly larger "
              "narrow prompt than svf.alternating's, so alpha is a little larger at the same c.",
    )
