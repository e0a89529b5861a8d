"""Several policies on one workload, measured against the exact optimum or a lower bound.

For each policy, :func:`compare` runs the simulator, has the independent checker verify the
schedule and compute the metrics, and divides the TEL by a reference: ``TEL(OPT)`` when
:func:`~geosched.reference_impl.opt.solve_opt` proved optimality within its time limit, else the
best proved lower bound on it (so the ratio is an upper bound on the true ratio to OPT).

Example
-------
>>> from geosched.reference_impl.workloads import generate
>>> result = compare(generate("example"), ["svf", "sjf"], opt=True)
>>> result.status, result.reference, [row.tel for row in result.rows]
('opt', 9, [13, 9])
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from geosched.errors import InfeasibleScheduleError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt import OptResult, best_lower_bound, solve_opt
from geosched.reference_impl.policies import Capability, policy_names
from geosched.reference_impl.predictors import make_predictor
from geosched.reference_impl.simulation import simulate
from geosched.results import Result

__all__ = ["PolicyRow", "Comparison", "compare", "DEFAULT_POLICIES"]

DEFAULT_POLICIES = policy_names(Capability.FAST)  # the paper's four rules


@dataclass(frozen=True)
class PolicyRow:
    """One policy's schedule, checked, and its metrics (steps and tokens)."""

    policy: str  # the policy spec as given
    tel: int  # total end-to-end latency (from the checker)
    mean_latency: float
    p95_latency: float
    p99_latency: float
    mean_wait: float
    makespan: int
    throughput: float  # output tokens per step
    peak_memory: int
    restarts: int  # runs ended before completion (0 with exact predictions and no preemption)
    lost_tokens: int  # outputs those runs decoded and the next did not keep
    ratio: float | None  # tel / reference (None when the reference is 0)
    starts: dict[str, int] = field(repr=False)
    parameters: dict[str, Any] = field(default_factory=dict)  # resolved at run time (1-bit SVF)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class Comparison(Result):
    """Outcome of :func:`compare`.

    ``status`` is ``"opt"`` when the ratios divide by a proved ``TEL(OPT)``, ``"lower_bound"``
    when they divide by a lower bound (OPT not asked for, or not proved in the time limit).
    """

    STATUSES = ("opt", "lower_bound")
    SUCCESS = ("opt", "lower_bound")

    status: str
    message: str
    wall_time: float
    rows: tuple[PolicyRow, ...]  # in the order the policies were given
    reference: int  # the denominator of every ratio
    lower_bound: int  # the best cheap/chain lower bound on TEL(OPT)
    lower_bound_name: str
    opt: OptResult | None  # the solve, when asked for

    def row(self, policy: str) -> PolicyRow:
        """The row of ``policy`` (as given in the call)."""
        for row in self.rows:
            if row.policy == policy:
                return row
        raise KeyError(policy)


def compare(
    instance: Instance,
    policies: Sequence[str] = DEFAULT_POLICIES,
    *,
    predictor: Any = "oracle",
    backfill: bool = False,
    opt: bool = False,
    time_limit: float = 60.0,
    progress: bool = False,
    max_steps: int | None = None,
    decide_seconds: float | None = None,
) -> Comparison:
    """Run each policy, check its schedule, and compare with OPT or a lower bound.

    Parameters
    ----------
    instance : Instance
        The workload.
    policies : sequence of str
        Registered names or specs (``"svf1:theta=8"``, ``"geo-guess"``, ``"vllm-fcfs"``) or a
        user's scheduler file ``"path/to/file.py:Class"`` (any name
        :func:`~geosched.reference_impl.simulation.simulate` takes).
    predictor : str or Predictor
        What the policies believe the output lengths to be (default: exact).
    backfill : bool
        Skip misfits instead of stopping the admission scan.
    opt : bool
        Also solve the offline optimum (warm-started with the best policy schedule).
    time_limit : float
        Seconds for the optimum.
    progress : bool
        Show the solver's progress line on stderr.
    max_steps, decide_seconds : optional
        The step engine's limits for every policy (:func:`~geosched.reference_impl.simulation.simulate`).

    Returns
    -------
    Comparison
        One checked row per policy, the reference and its kind.

    Raises
    ------
    ValidationError
        When ``policies`` is empty.
    InfeasibleScheduleError
        When the checker rejects a policy's schedule (a bug in the simulator).

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> result = compare(burst_instance(12, [(6, 3), (1, 5)]), ["svf", "sjf"])
    >>> result.status, [(row.policy, row.tel) for row in result.rows], result.reference
    ('lower_bound', [('svf', 13), ('sjf', 9)], 9)
    """
    started = time.perf_counter()
    if not policies:
        raise ValidationError("policies", list(policies), "give at least one policy name")
    if isinstance(predictor, str) and predictor != "oracle":  # a name: resolved here, above the core
        predictor = make_predictor(predictor)
    limits = {"max_steps": max_steps, "decide_seconds": decide_seconds}
    measured = [_measure(instance, spec, predictor, backfill, limits) for spec in policies]
    lower = best_lower_bound(instance, chain=True)
    opt_result = None
    if opt:
        best = min(measured, key=lambda m: m[0].tel)
        opt_result = solve_opt(instance, time_limit=time_limit, warm_start=best[1], progress=progress)
    if opt_result is not None and opt_result.status == "optimal":
        status, reference = "opt", int(opt_result.tel)
        message = f"ratios to TEL(OPT) = {reference}, proved optimal by {opt_result.method}"
    else:
        status, reference = "lower_bound", lower.value
        why = "not asked for" if opt_result is None else f"not proved ({opt_result.status})"
        message = f"ratios to the lower bound {reference} ({lower.name}); OPT {why}"
    rows = tuple(_row(spec, metrics, result, reference) for spec, (metrics, _starts, result)
                 in zip(policies, measured))
    return Comparison(status, message, time.perf_counter() - started, rows, reference, lower.value,
                      lower.name, opt_result)


def _measure(instance: Instance, spec: str, predictor: Any, backfill: bool, limits: dict[str, Any]):
    result = simulate(instance, spec, predictor=predictor, backfill=backfill, **limits)
    report = check_schedule(instance, result.schedule)
    if not report.feasible:
        raise InfeasibleScheduleError(f"{spec}: the checker rejected the schedule: {report.first_violation.message}")
    return report.metrics, result.starts, result


def _row(spec: str, metrics, result, reference: int) -> PolicyRow:
    given = {"policy": spec, "ratio": metrics.tel / reference if reference else None, "starts": dict(result.starts),
             "parameters": dict(result.extra)}
    # every other field is the checker's metric of the same name (restarts: its count from the runs)
    return PolicyRow(**given, **{name: getattr(metrics, name) for name in PolicyRow.__dataclass_fields__
                                 if name not in given})
