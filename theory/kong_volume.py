"""``kong.volume``: the memory-time volume of a request (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Eq. (1)).

Statement: a request with prompt ``s`` and output ``o`` started at step ``x`` holds
``s + (t - x)`` tokens at steps ``x < t <= x + o``, so its memory-time volume is

.. math::  v = \\sum_{j=1}^{o} (s + j) = s\\,o + \\frac{o^2 + o}{2}.

The derivation also checks that ``v`` is an integer (``o(o+1)`` is even), that it does not
depend on the start step ``x``, that ``v <= p*o`` with the peak ``p = s + o``, and two values
from the model's docstring. The integrality and ``v <= p o`` steps are our additions.

Example
-------
>>> derivation().check().status
'proved'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "kong.volume", f"{KONG} Eq. (1)", "v = sum_{j<=o} (s+j) = s*o + (o^2+o)/2",
    "sympy: the sum equals the closed form for all integers s >= 0, o >= 1 (start-independent, integral, "
    "v <= (s+o) o); model.volume equals the literal sum on a grid",
    "none (integrality and v <= (s+o) o are our additions)",
    ("derivation", "enumeration:volume", "coq:volume_is_memory_time"),
    coq_whole=("volume_is_memory_time",),
    order=("kong", 10))

s = sp.Symbol("s", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
x = sp.Symbol("x", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True, positive=True)
t = sp.Symbol("t", integer=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
u = sp.Symbol("u", integer=True, nonnegative=True)


def volume_expr(prompt=s, output=o):
    """The closed form ``s*o + (o**2 + o)/2`` as a sympy expression."""
    prompt, output = sp.sympify(prompt), sp.sympify(output)
    return prompt * output + (output**2 + output) / 2


def derivation(volume_formula=None) -> Derivation:
    """The derivation; ``volume_formula`` replaces the closed form (tests break it on purpose)."""
    v = volume_formula if volume_formula is not None else volume_expr()
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Eq. (1) (volume)",
        "v = sum_{j=1..o} (s + j) = s*o + (o^2 + o)/2",
        bound=v,
        statement_latex=r"The memory-time volume of a request is $v = \sum_{j=1}^{o} (s + j) = s\,o + \frac{o^2 + "
                        r"o}{2}$.",
        hypotheses=(Hypothesis("H1", "started at x, the request holds s + (t - x) tokens at x < t <= x + o",
                               latex=r"started at step $x$, the request holds $s + (t - x)$ tokens at every step $x "
                                     r"< t \le x + o$",
                               outside="fails: without the growth term (s held at every step) the sum "
                                       "is s o, not v: (s, o) = (0, 1) holds 0 tokens for one step, v "
                                       "= 1"),
                    Hypothesis("H2", "s >= 0 and o >= 1 are integers",
                               latex=r"$s \ge 0$ and $o \ge 1$ are integers",
                               outside="fails: o = -1, s = 1: the empty sum is 0 while s o + (o^2 + "
                                       "o)/2 = -1")),
        steps=(
            Step.identity("sum of the per-step footprints s + j, j = 1..o", sp.Sum(s + j, (j, 1, o)), v,
                          "arithmetic progression: o terms s plus 1 + 2 + ... + o = o(o+1)/2"),
            Step.identity("the volume does not depend on the start step x",
                          sp.Sum(s + t - x, (t, x + 1, x + o)), v,
                          "substitute j = t - x in the sum over the steps the request holds memory (H1)"),
            Step.identity("integer for even o = 2m", v.subs(o, 2 * m), s * 2 * m + m * (2 * m + 1),
                          "(o^2 + o)/2 = m(2m + 1), a product of integers"),
            Step.identity("integer for odd o = 2m + 1", v.subs(o, 2 * m + 1),
                          s * (2 * m + 1) + (m + 1) * (2 * m + 1),
                          "(o^2 + o)/2 = (m + 1)(2m + 1), a product of integers"),
            Step.inequality("the volume is at most peak times duration, v <= (s + o) o", (s + o) * o, ">=", v,
                            "(s + o) o - v = o(o - 1)/2 >= 0 since o >= 1; write o = 1 + u, u >= 0",
                            certificate=[(1 + u) * u / 2], substitutions={o: 1 + u}),
            Step.substitution("value at s = 6, o = 3 (the model's docstring)", v, 24, {s: 6, o: 3},
                              "6*3 + (9 + 3)/2 = 24"),
            Step.substitution("value at s = 1, o = 5 (the model's docstring)", v, 20, {s: 1, o: 5},
                              "1*5 + (25 + 5)/2 = 20"),
        ),
    )
