"""``jaillet.thm4.3``: MC-SF is O(1)-competitive (Jaillet et al., arXiv 2502.07115, Thm. 4.3).

Statement: for burst arrivals with equal prompts and ``M >= 2 max_i (s + o_i)``, MC-SF
(shortest output first with the forward-looking check; our ``sjf``) is ``O(1)``-competitive.

Our derivation (the paper's constant and proof were not available to us): with equal prompts
``s`` the volume ``v(s, o)`` is strictly increasing in ``o`` (``v(o + 1) - v(o) = s + o + 1``), so
ordering by output and by volume coincide, ties included (both then fall back to arrival and
id): MC-SF *is* SVF on these instances. ``M >= 2 max p`` means ``alpha <= 1/2``, and Thm. 3.2 with
the ratio increasing in ``alpha`` gives the explicit constant **5**. The tests check that the
simulator produces identical schedules for ``sjf`` and ``svf`` on random equal-prompt instances.

Example
-------
>>> derivation().check().status
'proved relative'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import JAILLET, JAILLET_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "jaillet.thm4.3", f"{JAILLET} Thm. 4.3", "MC-SF O(1), burst, equal prompts, predictions, M >= 2 max p",
    "exact lengths: MC-SF = SVF under equal prompts, so Thm. 3.2 at alpha <= 1/2 gives TEL <= 5 TEL(OPT); "
    "exhaustive on equal-prompt instances with M >= 2P",
    "predictions dropped; constant 5 ours (the paper's implied constant is ~9216)",
    ("derivation", "exhaustive:jaillet", "consts:jaillet", *SIMULATES), ("kong.thm3.2",),
    order=("jaillet", 20), exhaustive_variants=("sjf_jaillet",))

s = sp.Symbol("s", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, positive=True)
P = sp.Symbol("P", positive=True)
M = sp.Symbol("M", positive=True)
w = sp.Symbol("w", nonnegative=True)
alpha = sp.Symbol("alpha", positive=True)
a = sp.Symbol("a", nonnegative=True)


def vol(prompt, output):
    return prompt * output + (output**2 + output) / 2


def derivation(constant=5) -> Derivation:
    """``constant`` replaces 5 (tests break it on purpose)."""
    ratio = 1 + 2 / (1 - alpha)
    return Derivation(
        CLAIM.id,
        JAILLET_PAPER,
        "Theorem 4.3 (constant ours)",
        "MC-SF is O(1)-competitive for burst arrivals with equal prompts and M >= 2 max(s + o); explicitly "
        "TEL(MC-SF) <= 5 TEL(OPT)",
        bound=sp.Integer(constant),
        statement_latex=r"MC-SF is $O(1)$-competitive for burst arrivals with equal prompts and $M \ge 2 \max_i (s + "
                        r"o_i)$; explicitly $\mathrm{TEL}(\text{MC-SF}) \le 5\,\mathrm{TEL}(\mathrm{OPT})$.",
        hypotheses=(Hypothesis("H1", "burst arrivals; all prompts equal to s",
                               latex=r"burst arrivals; all prompts equal to $s$",
                               outside="none known: the exhaustive variant sjf (unequal prompts, any "
                                       "M) never exceeds 5 TEL(OPT) for n <= 3, s <= 2, o <= 3, M <= "
                                       "8; the proof uses equal prompts"),
                    Hypothesis("H2", "M >= 2 P with P = max_i (s + o_i)",
                               latex=r"$M \ge 2P$ with $P = \max_i (s + o_i)$",
                               outside="none known: the same search with M < 2P finds no instance "
                                       "above 5 TEL(OPT); the proof uses M >= 2P")),
        steps=(
            Step.identity("volume increment in o at fixed s", vol(s, o + 1) - vol(s, o), s + o + 1,
                          "v(s, o) = s o + (o^2 + o)/2"),
            Step.inequality("the increment is positive, so ordering by o equals ordering by v (ties included)",
                            s + o + 1, ">", 0, "s >= 0, o >= 1", certificate=[s, o, 1]),
            Step.inequality("alpha = P/M <= 1/2", sp.Rational(1, 2), ">=", P / M, "M = 2P + w",
                            certificate=[w / (2 * (2 * P + w))], substitutions={M: 2 * P + w}),
            Step.inequality("Thm. 3.2's ratio is at most 5 for alpha <= 1/2", constant, ">=", ratio,
                            "alpha = 1/2 - a: 5 - ratio = 4a/(1/2 + a)", certificate=[4 * a / (sp.Rational(1, 2) + a)],
                            substitutions={alpha: sp.Rational(1, 2) - a}),
        ),
        depends_on=("kong.thm3.2",),
        notes="MC-SF coincides with SVF under equal prompts, so Thm. 3.2's proof applies verbatim.",
    )
