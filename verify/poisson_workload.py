"""The Poisson workload that ``svf.poisson``'s simulation checks share, and their batch-means z-test.

``svf.poisson`` (geosched.theory.svf_poisson) is ``proved relative to`` named standard results;
:mod:`~geosched.verify.poisson_residual` and :mod:`~geosched.verify.poisson_hypotheses` measure each
of them on one simulated process, built here once:

* **workload** (MODEL): ``M = 40``, peaks ``p = s + o <= P = 10 = alpha M`` (``alpha = 1/4``,
  ``D = (1 - alpha) M = 30``), three classes :data:`CLASSES` drawn uniformly, a Poisson(lambda)
  number of arrivals per step with ``lambda = load D / E[p o]`` (so ``rho = load``);
* **run** (:func:`poisson_run`): the package's simulator on that workload under a policy spec
  (``"svf"``, or 1-bit SVF ``"svf1:theta=5,short_length=4,long_length=8"``; oracle predictions are
  the true outputs), with each class's rank in the policy's queue order (its key: the volume for
  SVF, the proxy volume for 1-bit SVF), and the window the statistics use: the steps from the
  arrival of the first request after the first tenth (warm-up) to the last arrival step (excluded:
  the workload may cut that step's batch), in :data:`BATCHES` equal blocks of steps;
* **z-test** (:func:`z_test`): per block ``b`` a measured value ``m_b`` and the hypothesis' value
  ``t_b``; ``z`` is the mean of ``m_b - t_b`` over its batch-means standard error, ``z_perturbed``
  the same with ``PERTURB t_b`` (the constant 10% larger). A two-sided test is refuted at
  ``|z| > Z_LIMIT`` and discriminating when ``|z_perturbed| > Z_LIMIT``; a one-sided one (an
  inequality ``m <= t``) is refuted at ``z > Z_LIMIT``.

Example
-------
>>> run = poisson_run(2000, 1)
>>> run.n, run.ranks.tolist(), poisson_run(2000, 1, policy=ONE_BIT).ranks.tolist()
(2000, [0, 1, 2], [1, 0, 2])
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MEMORY", "ALPHA_CAP", "CLASSES", "LOAD", "Z_LIMIT", "BATCHES", "PERTURB", "ONE_BIT", "POLICIES",
           "arrival_rate", "workload", "PoissonRun", "poisson_runs", "poisson_run", "residual_profile",
           "batch_interval", "block_means", "ZTest", "z_test"]

MEMORY = 40
ALPHA_CAP = 10  # every peak <= P = 10 = alpha M with alpha = 1/4; D = 30
CLASSES = ((2, 2), (1, 5), (2, 8))  # (prompt, output): peaks 4, 6, 10; volumes 7, 20, 52 (distinct)
LOAD = 0.9  # rho = lambda E[p o]/D < 1: stationary, with queueing
Z_LIMIT = 4.0
BATCHES = 20
PERTURB = 1.1
ONE_BIT = "svf1:theta=5,short_length=4,long_length=8"  # proxy volumes 18, 14, 52: another queue order
POLICIES = ("svf", ONE_BIT)


def arrival_rate(load: float) -> float:
    """``lambda = load D / E[p o]`` over the uniform class distribution (``rho = load``)."""
    mean_work = np.mean([(s + o) * o for s, o in CLASSES])
    return load * (MEMORY - ALPHA_CAP) / float(mean_work)


def workload(n: int, rate: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Arrival steps, prompts and outputs of ``n`` requests (fewer when the Poisson steps hold fewer)."""
    arrivals, kinds = _arrivals_and_kinds(n, rate, seed)
    prompts = np.array([CLASSES[k][0] for k in kinds])
    outputs = np.array([CLASSES[k][1] for k in kinds])
    return arrivals, prompts, outputs


def _arrivals_and_kinds(n: int, rate: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = int(n / rate) + 1
    counts = rng.poisson(rate, size=steps)
    arrivals = np.repeat(np.arange(steps), counts)[:n]
    kinds = rng.integers(0, len(CLASSES), size=len(arrivals))
    return arrivals, kinds


@dataclass(frozen=True)
class PoissonRun:
    """One simulated run of the Poisson workload (arrays in the instance's order, read-only)."""

    policy: str  # the policy spec simulated
    seed: int  # the workload's seed
    load: float  # rho
    rate: float  # lambda, arrivals per step
    arrivals: np.ndarray  # a_j, non-decreasing
    kinds: np.ndarray  # class index of each request (into CLASSES)
    starts: np.ndarray  # x_j, from the simulator
    ranks: np.ndarray  # per class: its place in the policy's queue order (0 first)
    window: tuple[int, int]  # [T0, T1): the steps the statistics use

    @property
    def n(self) -> int:
        return int(len(self.arrivals))

    @property
    def work(self) -> np.ndarray:
        """``p o`` per class."""
        return np.array([(s + o) * o for s, o in CLASSES], dtype=float)

    @property
    def class_rates(self) -> np.ndarray:
        """``lambda_i = lambda pi_i`` per class (uniform classes)."""
        return np.full(len(CLASSES), self.rate / len(CLASSES))

    @property
    def outputs(self) -> np.ndarray:
        return np.array([o for _, o in CLASSES])[self.kinds]

    @property
    def peaks(self) -> np.ndarray:
        return np.array([s + o for s, o in CLASSES])[self.kinds]

    @property
    def waits(self) -> np.ndarray:
        return self.starts - self.arrivals

    @property
    def horizon(self) -> int:
        """A step after every completion."""
        return int((self.starts + self.outputs).max()) + 2

    def step_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The window's steps and the block (0..BATCHES-1) of each."""
        steps = np.arange(*self.window)
        return steps, np.repeat(np.arange(BATCHES), [len(b) for b in np.array_split(steps, BATCHES)])

    def arrival_blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """The requests arriving in the window (indices) and the block of each."""
        steps, blocks = self.step_blocks()
        inside = np.flatnonzero((self.arrivals >= self.window[0]) & (self.arrivals < self.window[1]))
        return inside, blocks[self.arrivals[inside] - self.window[0]]


def _class_ranks(policy: str, instance: Any, kinds: np.ndarray) -> np.ndarray:
    """Each class's place in the policy's queue order, from the policy's own keys (oracle predictions)."""
    from geosched.errors import ValidationError
    from geosched.reference_impl.policies import make_policy

    keys = np.array(make_policy(policy).keys(instance, [r.output for r in instance.requests]))
    class_keys = []
    for k in range(len(CLASSES)):
        values = np.unique(keys[kinds == k])
        if len(values) != 1:
            raise ValidationError("policy", policy, f"must give every request of class {CLASSES[k]} one key")
        class_keys.append(int(values[0]))
    if len(set(class_keys)) != len(CLASSES):
        raise ValidationError("policy", policy, f"must give the classes distinct keys (got {class_keys})")
    return np.argsort(np.argsort(class_keys))


@functools.lru_cache(maxsize=3)
def poisson_runs(n: int, seed: int, load: float = LOAD, policies: tuple[str, ...] = POLICIES) -> dict[str, PoissonRun]:
    """Simulate each of ``policies`` on one workload of ``n`` Poisson arrivals of :data:`CLASSES` at
    ``rho = load`` (the instance is built once; the runs are cached)."""
    from geosched.reference_impl.model import instance_from_columns
    from geosched.reference_impl.simulation import simulate

    rate = arrival_rate(load)
    arrivals, kinds = _arrivals_and_kinds(n, rate, seed)
    prompts, outputs = (np.array(column)[kinds].tolist() for column in zip(*CLASSES))
    instance = instance_from_columns(MEMORY, [f"r{i}" for i in range(len(kinds))], arrivals.tolist(), prompts,
                                     outputs)
    window = (int(arrivals[len(arrivals) // 10]), int(arrivals[-1]))
    runs = {}
    for policy in policies:
        result = simulate(instance, policy)
        starts = np.array([result.starts[r.id] for r in instance.requests])
        ranks = _class_ranks(policy, instance, kinds)
        for array in (arrivals, kinds, starts, ranks):
            array.setflags(write=False)
        runs[policy] = PoissonRun(policy, seed, load, rate, arrivals, kinds, starts, ranks, window)
    return runs


def poisson_run(n: int, seed: int, load: float = LOAD, policy: str = "svf") -> PoissonRun:
    """:func:`poisson_runs`' run of ``policy`` (a policy of :data:`POLICIES` is simulated with the others)."""
    return poisson_runs(n, seed, load, POLICIES if policy in POLICIES else (policy,))[policy]


def residual_profile(starts: np.ndarray, peaks: np.ndarray, outputs: np.ndarray, horizon: int) -> np.ndarray:
    """``R(t) = sum_{x_i < t} p_i (x_i + o_i - t)^+`` for every step ``t < horizon``."""
    residual = np.zeros(horizon)
    for lag in range(1, int(outputs.max())):  # request i adds p_i (o_i - lag) at step x_i + lag, 1 <= lag < o_i
        live = outputs > lag
        np.add.at(residual, starts[live] + lag, peaks[live] * (outputs[live] - lag))
    return residual


def batch_interval(values: np.ndarray, batches: int = BATCHES) -> tuple[float, float]:
    """Mean and standard error by batch means (``batches`` consecutive batches)."""
    means = np.array([b.mean() for b in np.array_split(values, batches)])
    return float(values.mean()), float(means.std(ddof=1) / np.sqrt(batches))


def block_means(values: np.ndarray, blocks: np.ndarray, batches: int = BATCHES) -> np.ndarray:
    """The mean of ``values`` in each block (``blocks[i]`` is the block of ``values[i]``)."""
    counts = np.bincount(blocks, minlength=batches)
    return np.bincount(blocks, weights=np.asarray(values, dtype=float), minlength=batches) / np.maximum(counts, 1)


@dataclass(frozen=True)
class ZTest:
    """One measured quantity against the value a hypothesis gives it, by batch means."""

    name: str  # what was measured
    mean: float  # its mean over the blocks
    target: float  # the hypothesis' value, mean over the blocks
    standard_error: float  # of mean - target, by batch means
    z: float  # (mean - target) / standard_error
    z_perturbed: float | None  # the same against PERTURB x target (None: one-sided, no perturbation)
    one_sided: bool  # the hypothesis is an inequality mean <= target

    @property
    def refuted(self) -> bool:
        return self.z > Z_LIMIT if self.one_sided else abs(self.z) > Z_LIMIT

    @property
    def discriminating(self) -> bool | None:
        return None if self.z_perturbed is None else abs(self.z_perturbed) > Z_LIMIT

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "mean": self.mean, "target": self.target, "standard_error": self.standard_error,
                "z": self.z, "z_perturbed": self.z_perturbed, "one_sided": self.one_sided}


def _z(difference: np.ndarray) -> tuple[float, float]:
    se = float(difference.std(ddof=1) / np.sqrt(len(difference)))
    mean = float(difference.mean())
    if se > 0:
        return mean / se, se
    return (0.0 if mean == 0 else math.copysign(math.inf, mean)), se


def z_test(name: str, measured: np.ndarray, target: Any, *, one_sided: bool = False,
           perturb: float = PERTURB) -> ZTest:
    """Compare per-block ``measured`` with per-block (or constant) ``target`` (see the module docstring)."""
    measured = np.asarray(measured, dtype=float)
    target = np.broadcast_to(np.asarray(target, dtype=float), measured.shape)
    z, se = _z(measured - target)
    z_perturbed = None if one_sided else _z(measured - perturb * target)[0]
    return ZTest(name, float(measured.mean()), float(target.mean()), se, z, z_perturbed, one_sided)
