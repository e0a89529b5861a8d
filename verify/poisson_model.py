"""Poisson workloads of finitely many types, and the Poisson rows' bounds evaluated on them.

``svf.poisson``, ``svf1.poisson`` and ``kong.thm3.4`` state bounds in terms of a type distribution;
the checks of :mod:`~geosched.verify.poisson_stationary`, :mod:`~geosched.verify.poisson_step3` and
:mod:`~geosched.verify.poisson_boundary` need them as numbers, next to the simulated process:

* :class:`ClassWorkload`: memory ``M``, the peak cap ``P`` (``alpha = P/M``), the types ``(s_k, o_k)``
  with their probabilities, and the 1-bit SVF spec; :func:`geometric_workload` builds the paper's
  model (prompts uniform on ``[s_min, s_max]``, ``o = min(Geometric(mu), P - s)``: the truncated
  geometric, the generator's), :data:`PROJECT` the three-class workload of
  :mod:`~geosched.verify.poisson_workload`;
* :func:`class_bounds`: for a policy's keys (types with equal keys form a level) the per-level wait
  bounds ``b = r0/((1 - sigma_l)(1 - sigma_{l+1}))``, their mean ``sum_k pi_k b_l(k)``, the penalty
  ``Phi = E[p o]/E[m]`` (``m`` the minorant of ``p o`` over later levels), the issue's form
  ``Delta E[p o]/E[key]``, and the closed forms ``r0/(1 - rho)^2`` and ``min(Phi/(1 - rho), ...) r0``;
* :func:`paper_terms`: Kong et al.'s load ``rho_p = 2 lambda E[v]/D`` and bound, and ``kong.thm3.4``'s
  ``Gamma`` and COND;
* :func:`simulate_classes`: one seeded instance (a Poisson(lambda) count per step, types drawn
  i.i.d.) and each policy's starts from the package's simulator.

Example
-------
>>> b = class_bounds(PROJECT, PROJECT.keys("svf"), 0.9)
>>> round(b["phi"], 3), b["per_class"] < b["fcfs"] < b["square"]
(1.0, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ClassWorkload", "geometric_workload", "PROJECT", "PAPER_MODELS", "PAPER_WORKLOADS", "class_bounds",
           "paper_terms", "simulate_classes", "SimulatedClasses"]


@dataclass(frozen=True)
class ClassWorkload:
    """Finitely many types ``(s, o)`` with probabilities, in memory ``M`` with every peak ``<= P``."""

    name: str
    memory: int  # M
    cap: int  # P: every peak s + o <= P (alpha = P / M)
    types: tuple[tuple[int, int], ...]
    probs: tuple[float, ...]
    one_bit: str  # the 1-bit SVF spec simulated on it
    mu: float | None = None  # the geometric's parameter (the paper's model); None: not geometric

    def __post_init__(self) -> None:
        if any(s + o > self.cap or o < 1 or s < 0 for s, o in self.types) or self.cap >= self.memory:
            raise ValueError(f"{self.name}: every type needs o >= 1, s >= 0, s + o <= P < M")
        if abs(sum(self.probs) - 1) > 1e-9 or len(self.probs) != len(self.types):
            raise ValueError(f"{self.name}: the probabilities must sum to 1, one per type")

    @property
    def alpha(self) -> float:
        return self.cap / self.memory

    @property
    def drain(self) -> int:
        """``D = (1 - alpha) M = M - P``."""
        return self.memory - self.cap

    def column(self, name: str) -> np.ndarray:
        """Per type: ``s``, ``o``, ``po`` (``p o``), ``v`` (the volume) or ``pi``."""
        s = np.array([t[0] for t in self.types], dtype=float)
        o = np.array([t[1] for t in self.types], dtype=float)
        return {"s": s, "o": o, "po": (s + o) * o, "v": s * o + (o * o + o) / 2, "pi": np.array(self.probs)}[name]

    def mean(self, name: str) -> float:
        return float(self.column("pi") @ self.column(name))

    @property
    def h(self) -> float:
        """``E[p o (o - 1)/2] / E[p o]``: the residual's share."""
        return float(self.column("pi") @ (self.column("po") * (self.column("o") - 1) / 2)) / self.mean("po")

    def rate(self, rho: float) -> float:
        """``lambda`` at ``svf.poisson``'s load ``rho = lambda E[p o]/D``."""
        return rho * self.drain / self.mean("po")

    def rate_paper(self, rho_p: float) -> float:
        """``lambda`` at the paper's load ``rho_p = 2 lambda E[v]/D``."""
        return rho_p * self.drain / (2 * self.mean("v"))

    def keys(self, policy: str) -> np.ndarray:
        """Each type's priority key under ``policy`` (``svf``, ``fcfs`` or this workload's 1-bit spec), from the
        policy's own code (oracle predictions), so the bounds rank exactly what the simulator runs."""
        from geosched.reference_impl.model import Instance, Request
        from geosched.reference_impl.policies import make_policy

        spec = self.one_bit if policy == "svf1" else policy
        instance = Instance(self.memory, [Request(f"t{k}", 0, s, o) for k, (s, o) in enumerate(self.types)])
        return np.array(make_policy(spec).keys(instance, [o for _, o in self.types]), dtype=float)


def geometric_workload(name: str, mu: float, s_min: int, s_max: int, memory: int, alpha: float,
                       theta: int | None = None) -> ClassWorkload:
    """The paper's model, truncated: ``s`` uniform on ``[s_min, s_max]``, ``o = min(G, P - s)``, ``G ~
    Geometric(mu)`` on ``{1, 2, ...}``, ``P = floor(alpha M)``; 1-bit SVF with threshold ``theta`` (default
    ``round(1/mu)``) and the paper's proxies ``O_0``, ``O_1`` rounded (as :mod:`~geosched.verify.montecarlo`)."""
    from geosched.verify.montecarlo import one_bit_parameters

    cap, q = int(alpha * memory), 1 - mu
    types, probs = [], []
    for s in range(s_min, s_max + 1):
        top = cap - s
        for o in range(1, top + 1):
            types.append((s, o))
            probs.append((mu * q ** (o - 1) if o < top else q ** (top - 1)) / (s_max - s_min + 1))
    theta = max(1, round(1 / mu)) if theta is None else theta
    o0, o1 = one_bit_parameters(mu, theta)
    spec = f"svf1:theta={theta},short_length={max(1, round(o0))},long_length={max(1, round(o1))}"
    return ClassWorkload(name, memory, cap, tuple(types), tuple(probs), spec, mu)


def _project() -> ClassWorkload:
    from geosched.verify.poisson_workload import ALPHA_CAP, CLASSES, MEMORY, ONE_BIT

    return ClassWorkload("project", MEMORY, ALPHA_CAP, tuple(CLASSES), (1 / 3,) * 3, ONE_BIT)


PROJECT = _project()
# the paper's model, two configurations (name, mu, s_min, s_max, M, alpha): W1 alpha = 1/2, mu = 0.2; W2 alpha = 1/4,
# mu = 0.1, longer prompts. The statement's parameters stay here, apart from the types and probabilities built from
# them: the stationary runs' workload audit (verify/poisson_stationary.py) judges the simulated requests against them
PAPER_MODELS = (("W1", 0.2, 0, 3, 40, 0.5), ("W2", 0.1, 1, 6, 80, 0.25))
PAPER_WORKLOADS = tuple(geometric_workload(*model) for model in PAPER_MODELS)


def _levels(keys: np.ndarray, rho_k: np.ndarray, r0: float) -> np.ndarray:
    """Each type's bound ``r0/((1 - sigma_l)(1 - sigma_{l+1}))`` of its level (equal keys), levels by key."""
    bound, sigma = np.zeros(len(keys)), 0.0
    for key in np.unique(keys):
        members = keys == key
        level = float(rho_k[members].sum())
        bound[members] = r0 / ((1 - sigma) * (1 - sigma - level)) if sigma + level < 1 else math.inf
        sigma += level
    return bound


def _minorant(keys: np.ndarray, work: np.ndarray) -> np.ndarray:
    """``m_i = min(p_i o_i, p_j o_j of the types j of later levels)``."""
    return np.array([min(work[i], work[keys > keys[i]].min(initial=math.inf)) for i in range(len(keys))])


def class_bounds(workload: ClassWorkload, keys: np.ndarray, rho: float) -> dict[str, Any]:
    """The Poisson rows' bounds on the mean wait at load ``rho`` (``svf.poisson``'s) for a policy's ``keys``."""
    pi, work = workload.column("pi"), workload.column("po")
    lam = workload.rate(rho)
    r0 = rho * (1 + workload.h)
    per_type = _levels(np.asarray(keys, dtype=float), lam * pi * work / workload.drain, r0)
    keys = np.asarray(keys, dtype=float)
    phi = workload.mean("po") / float(pi @ _minorant(keys, work))
    delta_form = (float((keys / work).max()) * workload.mean("po") / float(pi @ keys)) if keys.max() > 0 else 1.0
    return {"rho": rho, "rate": lam, "r0": r0, "per_type": per_type.tolist(), "per_class": float(pi @ per_type),
            "phi": phi, "phi_delta": delta_form, "kappa": workload.mean("po") / workload.mean("v"),
            "fcfs": r0 / (1 - rho), "square": r0 / (1 - rho) ** 2,
            "chebyshev": min(phi / (1 - rho), 1 / (1 - rho) ** 2) * r0}


def paper_terms(workload: ClassWorkload, rho_p: float, phi: float) -> dict[str, Any]:
    """Kong et al.'s load and bound at ``rho_p``, our load there, and ``kong.thm3.4``'s ``Gamma`` and COND."""
    rho = rho_p * workload.mean("po") / (2 * workload.mean("v"))
    mu = workload.mu if workload.mu is not None else 1 / workload.mean("o")
    alpha, e_o, one_h = workload.alpha, workload.mean("o"), 1 + workload.h
    gamma = phi * one_h * (1 - alpha) * (1 - mu) / (2 * e_o)
    cond = phi * rho * one_h * (1 - alpha) * (1 - mu) * (1 - rho_p) <= 2 * (1 - rho) * e_o
    return {"rho_p": rho_p, "rho": rho, "mu": mu, "paper": 1 + 2 / ((1 - alpha) * (1 - mu) * (1 - rho_p)),
            "gamma": gamma, "cond": bool(cond)}


@dataclass(frozen=True)
class SimulatedClasses:
    """One simulated instance of a :class:`ClassWorkload` under several policies."""

    workload: ClassWorkload
    rate: float
    arrivals: np.ndarray
    kinds: np.ndarray
    starts: dict[str, np.ndarray]  # policy -> x_j
    instance: Any

    @property
    def outputs(self) -> np.ndarray:
        return self.workload.column("o")[self.kinds]

    def waits(self, policy: str) -> np.ndarray:
        return self.starts[policy] - self.arrivals


def simulate_classes(workload: ClassWorkload, rate: float, n: int, seed: int,
                     policies: tuple[str, ...] = ("svf", "svf1", "fcfs")) -> SimulatedClasses:
    """``n`` Poisson arrivals at ``rate`` per step (types i.i.d.), each policy simulated on the same instance
    (``svf1``: the workload's 1-bit spec)."""
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    rng = np.random.default_rng(seed)
    steps = int(n / rate) + 1
    arrivals = np.repeat(np.arange(steps), rng.poisson(rate, size=steps))[:n]
    kinds = rng.choice(len(workload.types), size=len(arrivals), p=np.array(workload.probs))
    instance = Instance(workload.memory, [Request(f"r{i}", int(a), *workload.types[k])
                                          for i, (a, k) in enumerate(zip(arrivals, kinds))])
    starts = {}
    for policy in policies:
        result = simulate(instance, workload.one_bit if policy == "svf1" else policy)
        starts[policy] = np.array([result.starts[r.id] for r in instance.requests])
    return SimulatedClasses(workload, rate, arrivals, kinds, starts, instance)
