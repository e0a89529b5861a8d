"""``monte-carlo:poisson-{little,pasta,wald,batch,stable}``: each hypothesis of ``svf.poisson``, simulated.

``svf.poisson`` (geosched.theory.svf_poisson) turns Coq's sample-path inequality
``D W_j <= R_j + sum of p_i o_i over the requests i with a_j <= x_i < x_j`` (``oahead_work`` of
verify/coq/OnlineA2.v) into, for a class-k arrival,
``D w_k <= R + sum_{i<=k} lambda_i p_i o_i w_i + rho D + (sum_{i<k} lambda_i p_i o_i) w_k`` by the named
standard results STABLE, PASTA, LITTLE, WALD and BATCH ("class < k": before k in the policy's queue
order). Each method below measures, on the process of :mod:`geosched.verify.poisson_workload`
(three classes, ``rho = 0.9``, the package's simulator), the quantity that step uses and compares it
with the hypothesis' value by batch means (20 blocks of steps after a warm-up, ``|z| <= 4``). **The
canary**: every test runs again, in the same run and through the same verdict (``ZTest.refuted``), on the
run's data with a defect planted where the measured side reads it (the measured quantity 10% smaller, so a
test that compared the data with itself cannot refute it; a one-sided inequality planted violated by half;
STABLE: an overloaded run), and each must be refuted, else the evidence is ``vacuous`` and so is the row
(the ledger's rule 2b: a hypothesis check that stops discriminating lowers ``svf.poisson``'s word). The old
probe (the hypothesis' value made 10% larger) is still reported as ``discriminating``. Runs have
:data:`SIZES` arrivals (quick, default, thorough; at least 99% of them are pinned as coverage): at
``rho = 0.9`` (``rho`` counts ``p o`` against ``D = M - P``, so memory is far from full) few requests
wait at all, and the per-class WALD and PASTA tests need that many to refute the planted 10%.
Every method runs strict SVF and 1-bit SVF (:data:`~geosched.verify.poisson_workload.POLICIES`;
oracle predictions are the true outputs): it is ``refuted`` if either refutes, ``vacuous`` if a planted
test of either is not refuted.

Step convention (what an arrival at step ``t`` finds, before its own batch and before step ``t``'s
admissions): ``N_i(t) = #{j of class i : a_j < t <= x_j}``, the requests that arrived in an earlier
step and had not started before ``t``; "waiting at j's arrival" in the Coq sum is exactly
``a_i < a_j <= x_i``. Each request is counted in ``x_j - a_j = W_j`` steps, so the sum of ``N_i``
over all steps is the sum of the class-i waits (the sample-path form of Little's law; the
convention ``a_j <= t < x_j`` has the same sum but would count an arrival's batch mates).

* LITTLE (``monte-carlo:poisson-little``): per class i, the time average of ``N_i`` against
  ``lambda_i w_i`` (``w_i`` the mean wait of class-i arrivals in the same blocks); and the waiting
  work of the classes up to k, ``V_k(t) = sum_{i<=k} p_i o_i N_i(t)``, against
  ``sum_{i<=k} lambda_i p_i o_i w_i``, for every k.
* PASTA (``monte-carlo:poisson-pasta``): ``V_k`` and the residual ``R(t)`` seen by the arrivals
  (at their arrival step, before their batch) against their time averages over all steps. In
  discrete time the state at ``t`` depends only on the arrivals before ``t``, which are independent
  of the number arriving at ``t``: the two agree in mean exactly.
* WALD (``monte-carlo:poisson-wald``): per class i, ``C_i(j)`` = the class-i arrivals in the steps
  ``a_j + 1, ..., x_j`` (``W_j`` steps) against ``lambda_i E[W]``; and the derivation's term, the work
  ``sum_{i<k} p_i o_i C_i(j)`` of the arrivals of classes before j's, against
  ``(sum_{i<k} lambda_i p_i o_i) W_j``. These are the steps for which the end of the wait is a
  stopping time: step ``a_j + m`` is counted iff ``W_j >= m``, i.e. iff ``j`` did not start at the
  steps ``<= a_j + m - 1``, which depends only on the arrivals up to ``a_j + m - 1``, independent of
  those at ``a_j + m``; so Wald's identity gives exactly ``lambda_i E[W]``. (The steps
  ``a_j, ..., x_j - 1`` are *not* such a sum: the first is j's own batch, the BATCH term, and
  whether step ``a_j + m`` is counted depends on its own arrivals; that count's mean and z against
  ``lambda_i E[W]`` are recorded in ``data["policies"][policy]["steps_a_to_x_minus_1"]``, not
  tested.) Coq's sum counts fewer of them: the requests arrived after ``a_j`` and started before
  ``x_j`` (``a_j < a_i``, ``x_i < x_j``; by ``online_ahead`` all of classes before k). Their work is
  at most the derivation's term, tested one-sided against ``(sum_{i<k} lambda_i p_i o_i) W_j``;
  the number of such requests of a class not before k (``online_ahead``: none) is recorded as
  ``ahead_violations``.
* BATCH (``monte-carlo:poisson-batch``): the work ``p o`` of an arrival's batch mates (the others
  arriving in its step), against ``lambda E[p o] = rho D`` (a random arrival's mates are
  Poisson(lambda)); the work of those ahead of it in the queue (class before k, or class k and an
  earlier position), one-sided against ``rho D``, and two-sided against its exact mean
  ``sum_{i<k} lambda_i p_i o_i + lambda_k p_k o_k / 2`` (Poisson splitting; a same-class mate is
  ahead with probability 1/2).
* STABLE (``monte-carlo:poisson-stable``): the mean wait of the arrivals in the late half of the
  window against that of the early half (10 blocks each); discriminating only if the same test on
  an overloaded run (``rho =`` :data:`OVERLOAD`, at most :data:`OVERLOAD_SIZE` arrivals: its queue
  grows, and a smaller run rejects less easily) rejects. The 10% larger value is reported, not
  required: waits are rare at ``rho = 0.9`` and their mean is known to a few per cent only.

A ``consistent`` result never raises the row's word (it stays ``proved relative to``); a
``refuted`` one refutes the row; a ``vacuous`` one makes it ``vacuous``.

Example
-------
>>> from geosched.verify.evidence import Context
>>> e = HYPOTHESIS_METHODS["monte-carlo:poisson-little"](None, Context("quick", None, 0, ()))
>>> e.status, e.discriminating
('consistent', True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.verify.evidence import Canary, Context, Coverage, Evidence, declares_canary
from geosched.verify.poisson_workload import (
    BATCHES,
    CLASSES,
    LOAD,
    PERTURB,
    POLICIES,
    Z_LIMIT,
    PoissonRun,
    ZTest,
    block_means,
    poisson_run,
    residual_profile,
    z_test,
)

__all__ = ["HYPOTHESIS_METHODS", "SIZES", "OVERLOAD", "OVERLOAD_SIZE", "waiting_counts", "arrivals_during_wait",
           "started_during_wait",
           "little_formula", "pasta_formula", "wald_formula", "batch_formula", "batch_ahead_formula",
           "stable_formula", "hypothesis_evidence", "measure_little", "measure_pasta", "measure_wald", "measure_batch",
           "measure_stable"]

SIZES = (400_000, 800_000, 3_000_000)  # arrivals per run, quick/default/thorough: waits are rare at rho = 0.9
# (mean 0.14 steps), so the per-class WALD and PASTA tests need this many to reject the 1.1x value
# the arrivals each mode must reach (99% of SIZES: the Poisson steps drawn for n arrivals may hold a few fewer)
SIZES_PINNED = {"quick": 396_000, "default": 792_000, "thorough": 2_970_000}
OVERLOAD_SIZE = 100_000  # the overloaded run's arrivals at most (its queue grows; fewer samples reject less easily)
OVERLOAD = 2.5  # rho = 2.5: lambda about 1.9 per step, past what M = 40 serves (E[volume] = 26.3: at most ~1.5)


# ---- the hypotheses' values (module-level, so that a test can make one wrong) ----

def little_formula(rate: Any, mean_wait: Any) -> Any:
    """LITTLE: the time-average number waiting is ``lambda_i w_i``."""
    return rate * mean_wait


def pasta_formula(time_average: Any) -> Any:
    """PASTA: what arrivals see in mean is the time average."""
    return time_average


def wald_formula(rate: Any, mean_wait: Any) -> Any:
    """WALD: class-i arrivals during a wait number ``lambda_i E[W]`` in mean."""
    return rate * mean_wait


def batch_formula(rate: float) -> float:
    """BATCH: a random arrival's batch mates bring work ``lambda E[p o] = rho D`` in mean."""
    return rate * float(np.mean([(s + o) * o for s, o in CLASSES]))


def batch_ahead_formula(class_rates: np.ndarray, work: np.ndarray, ranks: np.ndarray, k: int) -> float:
    """The mates' work ahead of a class-k arrival: ``sum_{i<k} lambda_i p_i o_i + lambda_k p_k o_k / 2``."""
    before = ranks < ranks[k]
    return float((class_rates[before] * work[before]).sum() + class_rates[k] * work[k] / 2)


def stable_formula(early_mean: Any) -> Any:
    """STABLE: the late window's mean wait is the early window's."""
    return early_mean


# ---- the quantities, on any schedule ----

def waiting_counts(arrivals: np.ndarray, starts: np.ndarray, kinds: np.ndarray, classes: int,
                   horizon: int) -> np.ndarray:
    """``N_c(t) = #{j of class c : a_j < t <= x_j}`` for every class ``c`` and step ``t < horizon``.

    >>> waiting_counts(np.array([0, 0]), np.array([0, 2]), np.array([0, 0]), 1, 4).tolist()
    [[0.0, 1.0, 1.0, 0.0]]
    """
    change = np.zeros((classes, horizon + 2))
    waiting = starts > arrivals
    np.add.at(change, (kinds[waiting], arrivals[waiting] + 1), 1)
    np.add.at(change, (kinds[waiting], starts[waiting] + 1), -1)
    return np.cumsum(change, axis=1)[:, :horizon]


def _arrived_by(arrivals: np.ndarray, kinds: np.ndarray, classes: int, steps: np.ndarray) -> np.ndarray:
    """``[c, j]``: the class-c requests with arrival ``<= steps[j]``."""
    return np.array([np.searchsorted(np.sort(arrivals[kinds == c]), steps, side="right") for c in range(classes)])


def arrivals_during_wait(arrivals: np.ndarray, starts: np.ndarray, kinds: np.ndarray, classes: int) -> np.ndarray:
    """``[c, j]``: the class-c arrivals in the steps ``a_j + 1, ..., x_j`` (WALD's sum, ``W_j`` steps).

    >>> arrivals_during_wait(np.array([0, 1, 2]), np.array([2, 1, 2]), np.array([0, 0, 0]), 1).tolist()
    [[2, 0, 0]]
    """
    return _arrived_by(arrivals, kinds, classes, starts) - _arrived_by(arrivals, kinds, classes, arrivals)


def started_during_wait(arrivals: np.ndarray, starts: np.ndarray, kinds: np.ndarray, classes: int) -> np.ndarray:
    """``[c, j]``: the class-c requests ``i`` with ``a_j < a_i`` and ``x_i < x_j``: those of Coq's
    ``oahead_work`` for ``j`` that arrived after it.

    Within a class (one key) a strict head-of-line schedule starts requests in arrival order, so
    the class's starts are non-decreasing in its arrival order and the count is
    ``#{x_i < x_j} - #{a_i <= a_j}`` when positive; a schedule breaking that order is refused.

    >>> started_during_wait(np.array([0, 1, 1]), np.array([3, 1, 2]), np.array([1, 0, 0]), 2).tolist()
    [[2, 0, 0], [0, 0, 0]]
    """
    counts = []
    for c in range(classes):
        order = np.flatnonzero(kinds == c)
        order = order[np.argsort(arrivals[order], kind="stable")]
        if np.any(np.diff(starts[order]) < 0):
            raise ValidationError("schedule", f"class {c}", "must start each class in arrival order")
        before = np.searchsorted(starts[order], starts, side="left")
        arrived = np.searchsorted(arrivals[order], arrivals, side="right")
        counts.append(np.maximum(before - arrived, 0))
    return np.array(counts)


# ---- the measurements on a run ----

def _wait_blocks(run: PoissonRun, inside: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """``[c, b]``: the mean wait of the class-c arrivals of block b."""
    waits = run.waits[inside].astype(float)
    kinds = run.kinds[inside]
    return np.array([block_means(waits[kinds == c], blocks[kinds == c]) for c in range(len(CLASSES))])


def _name(c: int) -> str:
    return f"{CLASSES[c][0]},{CLASSES[c][1]}"


def _little_tests(run: PoissonRun, scale: float = 1.0) -> list[ZTest]:
    steps, step_block = run.step_blocks()
    inside, arrival_block = run.arrival_blocks()
    counts = waiting_counts(run.arrivals, run.starts, run.kinds, len(CLASSES), run.horizon)[:, steps] * scale
    waits = _wait_blocks(run, inside, arrival_block)
    rates, work = run.class_rates, run.work
    tests = [z_test(f"N[{_name(c)}] vs lambda_i w_i", block_means(counts[c], step_block),
                    little_formula(rates[c], waits[c])) for c in range(len(CLASSES))]
    for k in np.argsort(run.ranks):
        upto = run.ranks <= run.ranks[k]
        held = (work[upto, None] * counts[upto]).sum(axis=0)
        target = sum(work[c] * little_formula(rates[c], waits[c]) for c in np.flatnonzero(upto))
        tests.append(z_test(f"V[<={_name(k)}] vs sum lambda_i p_i o_i w_i", block_means(held, step_block), target))
    return tests


def _pasta_tests(run: PoissonRun, scale: float = 1.0) -> list[ZTest]:
    steps, step_block = run.step_blocks()
    inside, arrival_block = run.arrival_blocks()
    counts = waiting_counts(run.arrivals, run.starts, run.kinds, len(CLASSES), run.horizon)
    profiles = {}
    for k in np.argsort(run.ranks):
        upto = run.ranks <= run.ranks[k]
        profiles[f"V[<={_name(k)}]"] = (run.work[upto, None] * counts[upto]).sum(axis=0)
    profiles["R"] = residual_profile(run.starts, run.peaks, run.outputs, run.horizon)
    seen = {name: profile[run.arrivals[inside]] * scale for name, profile in profiles.items()}  # what arrivals see
    return [z_test(f"{name} seen vs time average", block_means(seen[name], arrival_block),
                   pasta_formula(block_means(profile[steps], step_block))) for name, profile in profiles.items()]


def _wald_tests(run: PoissonRun, scale: float = 1.0) -> tuple[list[ZTest], dict[str, Any]]:
    inside, blocks = run.arrival_blocks()
    classes, rates = len(CLASSES), run.class_rates
    during = arrivals_during_wait(run.arrivals, run.starts, run.kinds, classes)[:, inside] * scale
    mean_wait = block_means(run.waits[inside], blocks)
    tests = [z_test(f"C[{_name(c)}] vs lambda_i E[W]", block_means(during[c], blocks),
                    wald_formula(rates[c], mean_wait)) for c in range(classes)]
    before = run.ranks[:, None] < run.ranks[run.kinds[inside]][None, :]  # [c, j]: class c before j's class
    ahead_rate = (run.work[:, None] * before * rates[:, None]).sum(axis=0)  # sum_{i<k} lambda_i p_i o_i, per j
    tests.append(z_test("arrivals' work of classes < k vs sum_{i<k} lambda_i p_i o_i W",
                        block_means((run.work[:, None] * before * during).sum(axis=0), blocks),
                        block_means(wald_formula(ahead_rate, run.waits[inside]), blocks)))
    started = started_during_wait(run.arrivals, run.starts, run.kinds, classes)[:, inside]
    tests.append(_one_sided("Coq's later arrivals' work vs sum_{i<k} lambda_i p_i o_i W",
                            block_means((run.work[:, None] * started * before).sum(axis=0), blocks),
                            block_means(wald_formula(ahead_rate, run.waits[inside]), blocks), scale))
    extra = {"ahead_violations": int((started * ~before).sum()), "steps_a_to_x_minus_1": {}}
    alternative = _arrived_by(run.arrivals, run.kinds, classes, run.starts - 1) - \
        _arrived_by(run.arrivals, run.kinds, classes, run.arrivals - 1)
    alternative = (alternative - (run.kinds[None, :] == np.arange(classes)[:, None])) * (run.waits > 0)
    for c in range(classes):
        alt = z_test("", block_means(alternative[c, inside], blocks), wald_formula(rates[c], mean_wait))
        extra["steps_a_to_x_minus_1"][_name(c)] = {"mean": alt.mean, "target": alt.target, "z": alt.z}
    return tests, extra


def _batch_tests(run: PoissonRun, scale: float = 1.0) -> list[ZTest]:
    inside, blocks = run.arrival_blocks()
    work = run.work[run.kinds]
    step_work = np.bincount(run.arrivals, weights=work)
    mates = step_work[run.arrivals] - work
    ahead = np.zeros(run.n)
    for c in range(len(CLASSES)):
        of_c = run.kinds == c
        class_work = np.bincount(run.arrivals[of_c], weights=work[of_c], minlength=len(step_work))
        ahead += np.where(run.ranks[c] < run.ranks[run.kinds], class_work[run.arrivals], 0.0)
        # same class, earlier position in the step: its place among the class's arrivals of that step
        index = np.flatnonzero(of_c)
        first = np.searchsorted(run.arrivals[index], run.arrivals[index], side="left")
        ahead[index] += (np.arange(len(index)) - first) * run.work[c]
    exact = np.array([batch_ahead_formula(run.class_rates, run.work, run.ranks, k) for k in range(len(CLASSES))])
    rho_d = batch_formula(run.rate)
    return [z_test("mates' work vs lambda E[p o]", block_means(mates[inside] * scale, blocks), rho_d),
            _one_sided("mates' work ahead vs rho D", block_means(ahead[inside], blocks), rho_d, scale),
            z_test("mates' work ahead vs its Poisson mean", block_means(ahead[inside] * scale, blocks),
                   block_means(exact[run.kinds[inside]], blocks))]


def _one_sided(name: str, measured: np.ndarray, target: Any, scale: float) -> ZTest:
    """The one-sided test ``measured <= target``; planted (``scale`` != 1): the same test against a target
    :data:`ONE_SIDED_PLANT` times below what was measured (the inequality violated), which it must refute."""
    return z_test(name, measured, target if scale == 1.0 else np.mean(measured) / ONE_SIDED_PLANT, one_sided=True)


# the canary's planted data: two-sided tests see the measured quantity 10% smaller (the hypothesis' value then 10%
# too large, the direction of the old probe); a one-sided inequality is planted violated by half (its quantities are
# rare: Coq's later arrivals number a few per cent of the waits, too few to see a 10% violation at rho = 0.9)
PLANT_SCALE = 1 / PERTURB
ONE_SIDED_PLANT = 1.5


def _stable_test(run: PoissonRun, name: str) -> ZTest:
    inside, blocks = run.arrival_blocks()
    means = block_means(run.waits[inside], blocks)
    early, late = means[: BATCHES // 2], means[BATCHES // 2:]
    target = stable_formula(early)
    se = math.hypot(late.std(ddof=1), target.std(ddof=1)) / math.sqrt(len(late))
    se_perturbed = math.hypot(late.std(ddof=1), PERTURB * target.std(ddof=1)) / math.sqrt(len(late))
    difference = float(late.mean() - target.mean())
    return ZTest(name, float(late.mean()), float(target.mean()), se, difference / se,
                 float(late.mean() - PERTURB * target.mean()) / se_perturbed, False)


def measure_little(n: int, seed: int, policy: str = "svf", load: float = LOAD) -> dict[str, Any]:
    """LITTLE's tests on one run (see the module docstring)."""
    run = poisson_run(n, seed, load, policy)
    return {"tests": _little_tests(run), "n": run.n, "planted": _little_tests(run, PLANT_SCALE)}


def measure_pasta(n: int, seed: int, policy: str = "svf", load: float = LOAD) -> dict[str, Any]:
    """PASTA's tests on one run."""
    run = poisson_run(n, seed, load, policy)
    return {"tests": _pasta_tests(run), "n": run.n, "planted": _pasta_tests(run, PLANT_SCALE)}


def measure_wald(n: int, seed: int, policy: str = "svf", load: float = LOAD) -> dict[str, Any]:
    """WALD's tests on one run, with the Coq sum's out-of-order count and the other step convention."""
    run = poisson_run(n, seed, load, policy)
    tests, extra = _wald_tests(run)
    return {"tests": tests, "n": run.n, **extra, "planted": _wald_tests(run, PLANT_SCALE)[0]}


def measure_batch(n: int, seed: int, policy: str = "svf", load: float = LOAD) -> dict[str, Any]:
    """BATCH's tests on one run."""
    run = poisson_run(n, seed, load, policy)
    return {"tests": _batch_tests(run), "n": run.n, "planted": _batch_tests(run, PLANT_SCALE)}


def measure_stable(n: int, seed: int, policy: str = "svf", load: float = LOAD,
                   overload: float | None = None) -> dict[str, Any]:
    """STABLE's test at ``load``, and the same test on ``min(n, OVERLOAD_SIZE)`` arrivals at ``overload``
    (default :data:`OVERLOAD`, read at call time), which must reject."""
    overload = OVERLOAD if overload is None else overload
    overloaded = _stable_test(poisson_run(min(n, OVERLOAD_SIZE), seed + 1, overload, policy),
                              f"late vs early mean wait at rho={overload}")
    run = poisson_run(n, seed, load, policy)
    return {"tests": [_stable_test(run, f"late vs early mean wait at rho={load}")], "n": run.n,
            "overloaded": overloaded, "discriminating": overloaded.refuted, "planted": [overloaded]}


# ---- the ledger's methods ----

def _discriminates(measured: dict[str, Any]) -> bool:
    if "discriminating" in measured:
        return bool(measured["discriminating"])
    return all(test.discriminating for test in measured["tests"] if not test.one_sided)


def _json_ready(measured: dict[str, Any]) -> dict[str, Any]:
    return {key: ([t.as_dict() for t in value] if key in ("tests", "planted") else value.as_dict()
                  if isinstance(value, ZTest) else value) for key, value in measured.items()}


PLANTED = ("the measured quantity 10% smaller in the data (two-sided tests), the inequality violated by half "
           "(one-sided), an overloaded run (STABLE)")


def hypothesis_canary(measured: dict[str, dict[str, Any]]) -> Canary:
    """Every planted test of every policy (``measured[policy]["planted"]``, the same tests on the run's data with
    the defect of :data:`PLANTED`) must be refuted by the same predicate as the real ones (``ZTest.refuted``)."""
    planted = [(policy, t) for policy, m in measured.items() for t in m["planted"]]
    blind = [(policy, t) for policy, t in planted if not t.refuted]
    if blind:
        policy, weak = min(blind, key=lambda pt: abs(pt[1].z))
        return Canary(PLANTED, False, f"{len(blind)} of {len(planted)} planted tests not refuted, e.g. {weak.name} "
                                      f"({policy}): z = {weak.z:+.1f}, |z| <= {Z_LIMIT}")
    smallest = min(abs(t.z) for _, t in planted)
    return Canary(PLANTED, bool(planted), f"all {len(planted)} planted tests refuted (smallest |z| {smallest:.1f})")


def _message(hypothesis: str, measured: dict[str, dict[str, Any]]) -> str:
    tests = [(policy, t) for policy, m in measured.items() for t in m["tests"]]
    worst_policy, worst = max(tests, key=lambda pt: pt[1].z if pt[1].one_sided else abs(pt[1].z))
    sizes = ", ".join(str(m["n"]) for m in measured.values())
    text = (f"{hypothesis}: {len(tests)} tests on {' and '.join(measured)}, {sizes} arrivals; "
            f"largest z {worst.z:+.2f} ({worst.name}, {worst_policy})")
    perturbed = [(policy, t) for policy, t in tests if t.z_perturbed is not None]
    if perturbed:
        weak_policy, weak = min(perturbed, key=lambda pt: abs(pt[1].z_perturbed))
        text += f"; at {PERTURB}x the smallest |z| is {abs(weak.z_perturbed):.1f} ({weak.name}, {weak_policy})"
    overloaded = [(policy, m["overloaded"]) for policy, m in measured.items() if "overloaded" in m]
    if overloaded:
        text += "; overloaded run: z " + ", ".join(f"{t.z:+.1f} ({policy})" for policy, t in overloaded)
    return text


def hypothesis_evidence(label: str, hypothesis: str, measured: dict[str, dict[str, Any]], *, seed: int,
                        started: float, mode: str = "quick") -> Evidence:
    """One evidence from every policy's tests: refuted if any test refutes, vacuous unless every planted test
    (the canary) is refuted."""
    refuted = [f"{t.name} ({policy}, z = {t.z:+.1f})" for policy, m in measured.items() for t in m["tests"]
               if t.refuted]
    discriminating = all(_discriminates(m) for m in measured.values())
    text = _message(hypothesis, measured)
    canary = hypothesis_canary(measured)
    # the canary judges the word (a passing check whose planted tests pass too is vacuous: Evidence); the 1.1x
    # probe of each test stays reported as ``discriminating``
    status = "refuted" if refuted else "consistent"
    if refuted:
        text = f"{hypothesis} fails: {'; '.join(refuted)}; {text}"
    data = {"seed": seed, "load": LOAD, "z_limit": Z_LIMIT, "perturbation": PERTURB, "batches": BATCHES,
            "policies": {policy: _json_ready(m) for policy, m in measured.items()}}
    return Evidence(label, "statistical", status, text, samples=sum(m["n"] for m in measured.values()),
                    wall_time=time.perf_counter() - started, data=data, discriminating=discriminating,
                    implementation=True, canary=canary,
                    coverage=Coverage({"arrivals per policy": min(m["n"] for m in measured.values()),
                                       "policies": len(measured)}, {"policies": len(POLICIES)},
                                      floor={"arrivals per policy": SIZES_PINNED[mode]}))


def _method(label: str, hypothesis: str, measure: Callable[..., dict[str, Any]]) -> Callable[[Any, Context], Evidence]:
    def method(claim: Any, ctx: Context) -> Evidence:
        started = time.perf_counter()
        n, seed = ctx.pick(*SIZES), ctx.seed + 33
        measured = {policy: measure(n, seed, policy) for policy in POLICIES}
        return hypothesis_evidence(label, hypothesis, measured, seed=seed, started=started, mode=ctx.mode)

    method = declares_canary(PLANTED)(method)
    method.__name__ = method.__qualname__ = label.split(":")[1].replace("-", "_")
    method.__doc__ = f"``{label}``: {hypothesis} on strict SVF and 1-bit SVF (see the module docstring)."
    return method


HYPOTHESIS_METHODS = {
    "monte-carlo:poisson-little": _method("monte-carlo:poisson-little", "LITTLE", measure_little),
    "monte-carlo:poisson-pasta": _method("monte-carlo:poisson-pasta", "PASTA", measure_pasta),
    "monte-carlo:poisson-wald": _method("monte-carlo:poisson-wald", "WALD", measure_wald),
    "monte-carlo:poisson-batch": _method("monte-carlo:poisson-batch", "BATCH", measure_batch),
    "monte-carlo:poisson-stable": _method("monte-carlo:poisson-stable", "STABLE", measure_stable),
}
