"""``kong.thm3.4.half``: the alpha = 1/2 form of Kong et al.'s Poisson bound, read as a bound on E[CR].

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Thm. 3.4 bounds a *ratio of expectations*,
``E[TEL(SVF)] / E[TEL(OPT)] <= 1 + 2/((1-alpha)(1-mu)(1-rho))``; the paper's summary states, at
``alpha = 1/2``, ``E[CR] <= 1 + 4/((1-mu)(1-rho))`` with ``CR = TEL(SVF)/TEL(OPT)`` per instance,
an *expectation of a ratio*. The substitution ``alpha = 1/2`` is algebra (checked). The change
from ``E[X]/E[Y]`` to ``E[X/Y]`` is not: two checked two-point examples with ``X >= Y > 0`` show
that either can be the larger, so neither form implies the other, and the E[CR] form is a
separate statement. **What it leaves out**: ``CR = TEL(SVF)/TEL(OPT)`` is a ratio over one finite
workload, and the statement fixes neither its size ``n`` nor its starting state, so ``E[CR]`` is not
defined: from an empty system ``E[CR]`` is 1 at ``n = 1`` and depends on ``n`` (the ledger measures
it, ``monte-carlo:paper-ecr``), tending to the ratio of stationary means as ``n -> oo`` only if the
ratios are uniformly integrable (not shown). The row's word is ``unknown`` with that reason; the
reading ``n -> oo`` would reduce it to ``kong.thm3.4``.

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.theory.kong_thm3_4 import alpha, bound, mu, rho

CLAIM = Claim(
    "kong.thm3.4.half", f"{KONG} Thm. 3.4 at alpha = 1/2", "E[CR] <= 1 + 4/((1-mu)(1-rho))",
    "the alpha = 1/2 algebra and the two-point examples by sympy; E[TEL(SVF)/LB] of n-request Poisson workloads from "
    "empty reported for n = 10, 100, 1000 (monte-carlo:paper-ecr), not judged",
    "unknown: E[CR] is not defined until n (the workload's size) and the starting state are fixed, which the "
    "statement does not; E[CR] = E[SVF/OPT] is not the theorem's E[SVF]/E[OPT] and neither bounds the other; read "
    "as n -> oo from empty it would need uniform integrability to reduce to kong.thm3.4",
    ("derivation", "monte-carlo:paper-ecr", "consts:poisson", *SIMULATES),
    order=("kong", 80))

x1, y1, x2, y2 = sp.symbols("x_1 y_1 x_2 y_2", positive=True)


def ecr_bound(m=mu, p=rho):
    """``1 + 4/((1 - mu)(1 - rho))``: the summary's alpha = 1/2 form."""
    return 1 + 4 / ((1 - m) * (1 - p))


def _mean_of_ratios():
    return (x1 / y1 + x2 / y2) / 2


def _ratio_of_means():
    return (x1 + x2) / (y1 + y2)


def derivation() -> Derivation:
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Thm. 3.4 at alpha = 1/2, as stated in the summary (E[CR])",
        "at alpha = 1/2, E[CR] = E[TEL(SVF)/TEL(OPT)] <= 1 + 4/((1 - mu)(1 - rho)) under Poisson arrivals and "
        "geometric outputs",
        bound=ecr_bound(),
        statement_latex=r"At $\alpha = 1/2$, $\mathbb{E}[\mathrm{CR}] = \mathbb{E}\bigl[\mathrm{TEL}(\mathrm{SVF}) / "
                        r"\mathrm{TEL}(\mathrm{OPT})\bigr] \le 1 + \dfrac{4}{(1-\mu)(1-\rho)}$ under Poisson arrivals "
                        r"and geometric outputs.",
        hypotheses=(Hypothesis("H1", "the hypotheses of kong.thm3.4 with alpha = max p / M = 1/2",
                               latex=r"the hypotheses of \texttt{kong.thm3.4} with $\alpha = \max_i p_i / M = 1/2$",
                               outside="none as an instance: kong.thm3.4's hypotheses at alpha = 1/2 "
                                       "(see that row)"),
                    Hypothesis("H2", "CR = TEL(SVF)/TEL(OPT) of one random instance; E[CR] its expectation",
                               latex=r"$\mathrm{CR} = \mathrm{TEL}(\mathrm{SVF})/\mathrm{TEL}(\mathrm{OPT})$ of one "
                                     r"random instance, $\mathbb{E}[\mathrm{CR}]$ its expectation",
                               outside="none: H2 defines E[CR], the quantity bounded")),
        steps=(
            Step.identity("Thm. 3.4's bound at alpha = 1/2 is 1 + 4/((1 - mu)(1 - rho))",
                          bound().subs(alpha, sp.Rational(1, 2)), ecr_bound(), "2/(1/2) = 4"),
            Step.substitution(
                "E[X/Y] can exceed E[X]/E[Y] (X >= Y > 0): (X, Y) = (2, 1) or (4, 4), each with probability 1/2",
                _mean_of_ratios(), _ratio_of_means(), {x1: 2, y1: 1, x2: 4, y2: 4},
                "E[X/Y] = (2 + 1)/2 = 3/2 > E[X]/E[Y] = 6/5", relation=">"),
            Step.substitution(
                "and fall below it: (X, Y) = (1, 1) or (4, 2), each with probability 1/2",
                _mean_of_ratios(), _ratio_of_means(), {x1: 1, y1: 1, x2: 4, y2: 2},
                "E[X/Y] = (1 + 2)/2 = 3/2 < E[X]/E[Y] = 5/3", relation="<"),
            Step.unchecked(
                "E[TEL(SVF)/TEL(OPT)] <= 1 + 4/((1 - mu)(1 - rho))",
                "the summary's reading of Thm. 3.4; by steps 2-3 it does not follow from the bound on "
                "E[TEL(SVF)]/E[TEL(OPT)] in either direction",
                "not a statement until n and the starting state are fixed: E[CR] of n requests from empty is 1 at "
                "n = 1 and depends on n (monte-carlo:paper-ecr); its limit as n -> oo is the ratio of stationary "
                "means only under uniform integrability, not shown"),
        ),
        notes="The E[CR] form is not implied by Thm. 3.4 (ratio of expectations); steps 2-3 show that neither "
              "quantity bounds the other in general; and E[CR] needs n and the starting state, which the statement "
              "does not fix (step 4): unknown with that reason.",
    )
