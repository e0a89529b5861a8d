"""``kong.thm3.5``: 1-bit SVF under Poisson arrivals (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.5).

Statement: with ``o ~ Geometric(mu)``, ``q = 1 - mu`` and a threshold ``theta``, the proxy
lengths of the two classes are

.. math::  O_0 = E[o \\mid o \\le \\theta] = \\frac1\\mu - \\frac{\\theta q^\\theta}{1 - q^\\theta},\\qquad
           O_1 = E[o \\mid o > \\theta] = \\theta + \\frac1\\mu,

and the bound of Thm. 3.4 holds up to a volumetric distortion penalty
``eps = (1/2) (theta q^theta/(1 - q^theta))^2``, which decays exponentially in ``theta``.

Checked: ``P(o <= theta)``, ``O_0`` (finite series), ``O_1`` (memorylessness, from ``E[o]``
and the truncated mean), ``eps = (1/2)(1/mu - O_0)^2``, *our reading* of ``eps`` as the exact
quadratic remainder of the volume ``v(o) = s o + (o^2 + o)/2`` (``v'' = 1``), the bound
``eps <= theta^2 q^(2 theta)/(2 mu^2)``, its limit 0 and the exact decay rate
``eps(theta + 1)/eps(theta) -> q^2``. **What it leaves out**: the statement does not say how ``eps``
enters Thm. 3.4's bound (``B (1 + eps)``, ``B + eps``, ``eps`` in the load, ...), so the bound it claims
for 1-bit SVF is not determined; the row's word is ``unknown`` with that reason. The package's
own 1-bit bound, with a penalty ``Phi_1`` that does enter (``Delta E[p o]/E[v~]`` at most), is
``svf1.poisson``; ``monte-carlo:paper-stationary-svf1`` reports 1-bit SVF on long stationary runs
beside ``B`` and ``B (1 + eps)``, not judged.

Example
-------
>>> derivation().check().status
'unknown'
"""

from __future__ import annotations

import sympy as sp

from geosched.theory.claim import KONG, KONG_PAPER, SIMULATES, Claim
from geosched.theory.derivation import Derivation, Hypothesis, Step

CLAIM = Claim(
    "kong.thm3.5", f"{KONG} Thm. 3.5", "1-bit SVF, Poisson: proxies O_0, O_1, penalty eps",
    "O_0, O_1, eps symbolically; 1-bit SVF with the paper's proxies (priority by the proxy volume, admission by the "
    "exact lengths) on long stationary Poisson workloads reported beside Thm. 3.4's bound B and B (1 + eps) "
    "(monte-carlo:paper-stationary-svf1), not judged",
    "unknown: the statement does not say how eps enters the bound, so the bound it claims is not determined; oracle "
    "class bits; the package's own 1-bit bound with a penalty that does enter (Phi_1 <= Delta E[p o]/E[v~]) is "
    "svf1.poisson",
    ("derivation", "monte-carlo:paper-stationary-svf1", "consts:poisson", *SIMULATES), ("kong.thm3.4",),
    order=("kong", 90))

mu = sp.Symbol("mu", positive=True)
q = sp.Symbol("q", positive=True)
r = sp.Symbol("r", positive=True)
theta = sp.Symbol("theta", integer=True, positive=True)
k = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True, nonnegative=True)
s = sp.Symbol("s", nonnegative=True)
a, b = sp.symbols("a b", positive=True)
z = sp.Symbol("z", real=True)  # stands for q^theta
g = sp.Symbol("g", nonnegative=True)
_Q = {q: 1 / (1 + r), mu: r / (1 + r)}  # 0 < q < 1 and mu = 1 - q, via r > 0


def o0(th=theta):
    """E[o | o <= theta] = 1/mu - theta q^theta/(1 - q^theta)."""
    return 1 / mu - th * q**th / (1 - q**th)


def o1(th=theta):
    """E[o | o > theta] = theta + 1/mu."""
    return th + 1 / mu


def distortion(th=theta):
    """eps = (1/2) (theta q^theta / (1 - q^theta))^2."""
    return sp.Rational(1, 2) * (th * q**th / (1 - q**th)) ** 2


def derivation(distortion_formula=None) -> Derivation:
    """``distortion_formula`` replaces eps (tests break it on purpose)."""
    eps = distortion_formula if distortion_formula is not None else distortion()
    pmf = mu * q ** (k - 1)
    truncated_mean = sp.Sum(k * pmf, (k, 1, theta))
    vol = lambda o: s * o + (o**2 + o) / 2  # noqa: E731 - the volume as a function of o
    eps_r = eps.subs(q, 1 / (1 + r))
    return Derivation(
        CLAIM.id,
        KONG_PAPER,
        "Theorem 3.5 (1-bit SVF, Poisson arrivals)",
        "O_0 = 1/mu - theta q^theta/(1 - q^theta), O_1 = theta + 1/mu (q = 1 - mu); the distortion "
        "penalty eps = (1/2)(theta q^theta/(1 - q^theta))^2 decays exponentially in theta",
        bound=eps,
        statement_latex=r"$O_0 = \frac{1}{\mu} - \frac{\theta q^{\theta}}{1 - q^{\theta}}$ and $O_1 = \theta + "
                        r"\frac{1}{\mu}$ ($q = 1 - \mu$); the distortion penalty $\varepsilon = \frac{1}{2} "
                        r"\bigl(\frac{\theta q^{\theta}}{1 - q^{\theta}}\bigr)^2$ decays exponentially in $\theta$.",
        hypotheses=(Hypothesis("H1", "o ~ Geometric(mu) on {1, 2, ...}, 0 < mu < 1, q = 1 - mu",
                               latex=r"$o \sim \mathrm{Geometric}(\mu)$ on $\{1, 2, \dots\}$, $0 < \mu < 1$, $q = 1 "
                                     r"- \mu$",
                               outside="fails: O_1 = theta + 1/mu is the conditional mean only for "
                                       "the geometric law: for o uniform on {1, 2, 3} (mean 2, mu = "
                                       "1/2), theta = 1: E[o | o > 1] = 2.5, not theta + 1/mu = 3"),
                    Hypothesis("H2", "theta >= 1 an integer threshold; exact class bits",
                               latex=r"$\theta \ge 1$ an integer threshold; exact class bits",
                               outside="fails: theta = 0 makes 1 - q^theta = 0, so O_0 and eps are "
                                       "undefined (a division by zero)")),
        steps=(
            Step.identity("P(o <= theta) = 1 - q^theta", sp.Sum(pmf, (k, 1, theta)), 1 - q**theta,
                          "finite geometric series", substitutions=_Q),
            Step.identity("O_0 = E[o 1{o <= theta}]/P(o <= theta)", truncated_mean / (1 - q**theta), o0(),
                          "finite differentiated geometric series", substitutions=_Q),
            Step.identity("O_1 = (E[o] - E[o 1{o <= theta}])/P(o > theta) = theta + 1/mu (memorylessness)",
                          (1 / mu - truncated_mean) / q**theta, o1(), "E[o] = 1/mu (kong.thm3.4 step 1)",
                          substitutions=_Q),
            Step.identity("eps = (1/2)(E[o] - O_0)^2", eps, sp.Rational(1, 2) * (1 / mu - o0()) ** 2,
                          "1/mu - O_0 = theta q^theta/(1 - q^theta)"),
            Step.identity("our reading: eps is the exact quadratic remainder of v between O_0 and E[o]",
                          vol(a) - vol(b) - sp.diff(vol(b), b) * (a - b), (a - b) ** 2 / 2,
                          "v is quadratic in o with v'' = 1; put a = 1/mu, b = O_0"),
            Step.identity("1 - q^theta = (1 - q) sum_{j<theta} q^j", (1 - q) * sp.Sum(q**j, (j, 0, theta - 1)),
                          1 - q**theta, "finite geometric series", substitutions={q: 1 / (1 + r)}),
            Step.inequality("sum_{j<theta} q^j >= 1, hence 1 - q^theta >= 1 - q = mu",
                            sp.Sum(q**j, (j, 0, theta - 1)), ">=", 1, "the j = 0 term is 1, the others positive",
                            certificate=[sp.Sum(q**j, (j, 1, theta - 1))]),
            Step.inequality("eps <= theta^2 q^(2 theta)/(2 mu^2)  (z = q^theta, 1 - z = mu + g, g >= 0)",
                            (theta * z / mu) ** 2 / 2, ">=", (theta * z / (1 - z)) ** 2 / 2,
                            "1/mu^2 >= 1/(1 - z)^2 because 1 - z >= mu (step 7)",
                            certificate=[theta**2 * z**2 * (2 * mu * g + g**2) / (2 * mu**2 * (mu + g) ** 2)],
                            substitutions={z: 1 - mu - g}),
            Step.limit("the bound theta^2 q^(2 theta) -> 0 (q = 1/(1 + r) < 1)", theta**2 * (1 + r) ** (-2 * theta),
                       theta, sp.oo, 0, "exponential beats polynomial"),
            Step.limit("exact exponential rate: eps(theta + 1)/eps(theta) -> q^2 (q = 1/(1 + r))",
                       sp.simplify(eps_r.subs(theta, theta + 1) / eps_r), theta, sp.oo, (1 + r) ** -2,
                       "ratio (theta+1)^2/theta^2 q^2 (1 - q^theta)^2/(1 - q^(theta+1))^2 -> q^2"),
            Step.unchecked("the Thm. 3.4 bound for 1-bit SVF holds with the penalty eps",
                           "proxy volumes replace true ones; the remainder of step 5 bounds the distortion",
                           "not a statement until it says how eps enters the bound (B (1 + eps), B + eps, eps in "
                           "the load, ...): left open; svf1.poisson proves a 1-bit bound with its own penalty"),
        ),
        depends_on=("kong.thm3.4",),
        notes="The formulas for O_0, O_1, eps and the decay are checked; the reading of eps as the volume's "
              "quadratic remainder is ours. How eps enters the bound is not stated (step 11): unknown with that "
              "reason.",
    )
