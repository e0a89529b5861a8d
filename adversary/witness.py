"""Certified ratios and witness files.

The competitive ratio of a policy ``A`` on an instance ``I`` is ``TEL(A, I) / OPT(I)``. Any
feasible schedule ``S`` has ``OPT(I) <= TEL(S)``, so

.. math::  \\text{certified ratio} = \\frac{TEL(A, I)}{TEL(S)} \\le \\frac{TEL(A, I)}{OPT(I)}

is a *proved* lower bound on ``A``'s ratio on ``I`` that needs no exact optimum; when a lower
bound ``LB <= OPT(I)`` is known, ``TEL(A, I) / LB`` is an upper bound, and the true ratio lies in
``[certified, upper]``. Every number in a witness file is recomputed by
:func:`verify_witness` from the instance alone: the policy's schedule by the reference
simulator, both schedules' feasibility and TEL by the independent checker
(:func:`geosched.reference_impl.checker.check_schedule`), and the ratio.

Witness JSON (issue 4)::

    {"policy": "sjf", "instance": {...}, "policy_schedule": {"starts": {...}, "tel": T_A},
     "witness_schedule": {"starts": {...}, "tel": T_S}, "certified_ratio": T_A / T_S,
     "ratio_upper": T_A / LB or null, "found_by": "...", "seed": ...}

Policies are strict head-of-line with exact output lengths (the setting of Kong et al.,
Thm. 3.2 and Jaillet et al., Thm. 4.3).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> w = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "svf", {"r0": 0, "r1": 1}, found_by="hand")
>>> w.policy_tel, w.witness_tel, round(w.certified_ratio, 4)
(13, 9, 1.4444)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError, InfeasibleScheduleError, WorkloadFormatError
from geosched.output import write_json_atomic
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.model import Instance, instance_from_dict, instance_to_dict
from geosched.reference_impl.opt import best_lower_bound
from geosched.reference_impl.simulator import simulate
from geosched.results import Result

__all__ = [
    "Witness",
    "WitnessError",
    "make_witness",
    "witness_from_dict",
    "read_witness",
    "write_witness",
    "verify_witness",
    "WitnessReport",
    "lower_bound_of",
]

WITNESS_KEYS = (
    "policy",
    "instance",
    "policy_schedule",
    "witness_schedule",
    "certified_ratio",
    "ratio_upper",
    "found_by",
    "seed",
)


class WitnessError(GeoschedError):
    """A witness file does not re-verify; the message lists every failed check."""


@dataclass(frozen=True)
class Witness:
    """A policy's schedule and a better feasible schedule on one instance."""

    policy: str  # registered policy name, strict head-of-line, exact lengths
    instance: Instance  # the instance
    policy_starts: dict[str, int]  # the policy's schedule (reference simulator)
    policy_tel: int  # TEL(A, I)
    witness_starts: dict[str, int]  # a feasible schedule S
    witness_tel: int  # TEL(S) >= OPT(I)
    lower_bound: int | None  # a proved lower bound on OPT(I), or None
    lower_bound_name: str | None  # which bound
    found_by: str  # method that found the instance (and the witness schedule)
    seed: int | None  # seed of the search

    @property
    def certified_ratio(self) -> float:
        """``TEL(A) / TEL(S)``: a proved lower bound on the competitive ratio."""
        return self.policy_tel / self.witness_tel

    @property
    def ratio_upper(self) -> float | None:
        """``TEL(A) / LB``: an upper bound on ``TEL(A) / OPT`` on this instance."""
        return None if not self.lower_bound else self.policy_tel / self.lower_bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "instance": instance_to_dict(self.instance),
            "policy_schedule": {"starts": dict(self.policy_starts), "tel": self.policy_tel},
            "witness_schedule": {"starts": dict(self.witness_starts), "tel": self.witness_tel},
            "certified_ratio": self.certified_ratio,
            "ratio_upper": self.ratio_upper,
            "found_by": self.found_by,
            "seed": self.seed,
        }


def lower_bound_of(instance: Instance) -> tuple[int, str]:
    """The best cheap proved lower bound on ``OPT(I)`` and its name (see
    :func:`geosched.reference_impl.opt.best_lower_bound`).

    >>> from geosched.reference_impl.model import burst_instance
    >>> lower_bound_of(burst_instance(12, [(6, 3), (1, 5)]))
    (8, 'completion_order')
    """
    bound = best_lower_bound(instance)
    return bound.value, bound.name


def make_witness(
    instance: Instance,
    policy: str,
    witness_starts: Mapping[str, int],
    *,
    found_by: str,
    seed: int | None = None,
    lower_bound: tuple[int, str] | None = None,
) -> Witness:
    """Simulate ``policy``, check both schedules with the checker, and bundle them.

    Raises :class:`~geosched.errors.InfeasibleScheduleError` when the witness schedule is
    infeasible. ``lower_bound`` defaults to the best known bound of OPT.
    """
    sim = simulate(instance, policy)
    policy_report = check_schedule(instance, sim.starts)
    if not policy_report.feasible:  # would be a simulator bug: never hide it
        raise InfeasibleScheduleError(f"{policy}: simulator schedule rejected: {policy_report.first_violation.message}")
    starts = {k: int(v) for k, v in witness_starts.items()}
    report = check_schedule(instance, starts)
    if not report.feasible:
        raise InfeasibleScheduleError(f"witness schedule rejected: {report.first_violation.message}")
    lb, lb_name = lower_bound if lower_bound is not None else lower_bound_of(instance)
    return Witness(
        policy=policy,
        instance=instance,
        policy_starts=dict(sim.starts),
        policy_tel=policy_report.metrics.tel,
        witness_starts=starts,
        witness_tel=report.metrics.tel,
        lower_bound=min(lb, report.metrics.tel) if lb else None,
        lower_bound_name=lb_name,
        found_by=found_by,
        seed=seed,
    )


def witness_from_dict(data: Any, source: str = "witness") -> dict[str, Any]:
    """Validate the shape and types of a witness object; returns it with the instance parsed.

    Every field must be present with its type (no extra key); numbers must be finite; the
    instance must have at least one request. Values are *not* trusted: :func:`verify_witness`
    recomputes every number.
    """
    if not isinstance(data, Mapping):
        raise WorkloadFormatError(f"{source}: expected a JSON object, got {type(data).__name__}")
    extra = sorted(set(data) - set(WITNESS_KEYS))
    missing = [k for k in WITNESS_KEYS if k not in data]
    if extra:
        raise WorkloadFormatError(f"{source}: unexpected key(s) {', '.join(map(repr, extra))}")
    if missing:
        raise WorkloadFormatError(f"{source}: missing key(s) {', '.join(map(repr, missing))}")
    for key in ("policy_schedule", "witness_schedule"):
        part = data[key]
        if not isinstance(part, Mapping) or set(part) != {"starts", "tel"} or not isinstance(part["starts"], Mapping):
            raise WorkloadFormatError(f"{source}: {key!r} must be {{\"starts\": {{id: step}}, \"tel\": int}}")
        if not _is_int(part["tel"]):
            raise WorkloadFormatError(f"{source}: {key}.tel must be an integer, got {part['tel']!r}")
    if not isinstance(data["policy"], str):
        raise WorkloadFormatError(f"{source}: 'policy' must be a string, got {data['policy']!r}")
    for key, nullable in (("certified_ratio", False), ("ratio_upper", True)):
        value = data[key]
        if not (_is_number(value) or (nullable and value is None)):
            kind = "a finite number or null" if nullable else "a finite number"
            raise WorkloadFormatError(f"{source}: {key!r} must be {kind}, got {value!r}")
    if not isinstance(data["found_by"], str):
        raise WorkloadFormatError(f"{source}: 'found_by' must be a string, got {data['found_by']!r}")
    if data["seed"] is not None and not _is_int(data["seed"]):
        raise WorkloadFormatError(f"{source}: 'seed' must be an integer or null, got {data['seed']!r}")
    parsed = dict(data)
    parsed["instance"] = instance_from_dict(data["instance"], source=f"{source}: instance")
    if parsed["instance"].n == 0:
        raise WorkloadFormatError(f"{source}: the instance has no requests, so there is no ratio to certify")
    return parsed


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and math.isfinite(value)


def write_witness(witness: Witness, path: str | Path) -> Path:
    """Write the witness JSON atomically (a kill never leaves a partial file); returns the path."""
    return write_json_atomic(path, witness.to_dict())


def read_witness(path: str | Path) -> dict[str, Any]:
    """Read and shape-check a witness file (see :func:`verify_witness` to re-verify it)."""
    return witness_from_dict(read_json(path), source=str(path))


@dataclass(frozen=True)
class WitnessReport(Result):
    """What :func:`verify_witness` recomputed. Every number here was computed in this call.

    ``status`` is ``"verified"`` when every stated number equals the recomputed one (or, for
    the upper ratio, is implied by a bound recomputed here), else ``"rejected"`` with the
    reasons in ``problems``. A stated upper ratio that rests on a bound this check cannot
    re-derive is not an error, but it is *not reported*: ``ratio_upper`` is then ``None`` and
    ``notes`` says so.
    """

    STATUSES = ("verified", "rejected")
    SUCCESS = ("verified",)

    status: str
    message: str
    wall_time: float
    problems: tuple[str, ...]  # every failed check
    notes: tuple[str, ...]  # what was stated but not re-derived
    policy: str
    n: int
    memory: int
    alpha: Fraction
    burst: bool
    policy_tel: int | None  # TEL of the reference simulator's schedule (checker)
    witness_tel: int | None  # TEL of the witness schedule (checker), None if infeasible
    certified_ratio: Fraction | None  # policy_tel / witness_tel, exact
    lower_bound: int | None  # a lower bound on OPT recomputed here
    lower_bound_name: str | None
    ratio_upper: Fraction | None  # policy_tel / lower_bound, when the stated upper ratio is implied by it

    @property
    def ok(self) -> bool:
        """Every stated number re-verified."""
        return self.status == "verified"

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        for key in ("alpha", "certified_ratio", "ratio_upper"):
            value = getattr(self, key)
            data[key] = None if value is None else float(value)
            data[key + "_exact"] = None if value is None else str(value)
        data["ok"] = self.ok
        return data


def verify_witness(data: Mapping[str, Any]) -> WitnessReport:
    """Re-verify a witness from scratch, with the simulator and the checker alone.

    Parameters
    ----------
    data : mapping
        A witness object (as read by :func:`read_witness`, or :meth:`Witness.to_dict`).

    Returns
    -------
    WitnessReport
        ``verified`` when the policy schedule is the reference simulator's, both schedules
        are feasible for the checker, both stated TELs equal the checker's, the certified ratio
        equals ``TEL(A)/TEL(S)`` and a stated upper ratio is at least the certified one.

    Raises
    ------
    WorkloadFormatError
        When the witness is malformed (a missing or extra field, a NaN, an empty instance).
    WitnessError
        When the witness names a policy the simulator does not know.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> w = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "svf", {"r0": 0, "r1": 1}, found_by="hand")
    >>> report = verify_witness(w.to_dict())
    >>> report.status, report.certified_ratio
    ('verified', Fraction(13, 9))
    """
    started = time.perf_counter()
    if isinstance(data, Mapping) and isinstance(data.get("instance"), Instance):  # as read_witness returns it
        data = {**data, "instance": instance_to_dict(data["instance"])}
    parsed = witness_from_dict(data)
    instance: Instance = parsed["instance"]
    policy = parsed["policy"]
    try:
        sim = simulate(instance, policy)
    except GeoschedError as exc:
        raise WitnessError(f"policy {policy!r}: {exc}") from None
    problems: list[str] = []
    notes: list[str] = []
    tels = _recomputed_tels(instance, parsed, sim.starts, problems)
    ratio = None
    upper = None
    lower, lower_name = lower_bound_of(instance)
    if tels.get("policy_schedule") is not None and tels.get("witness_schedule"):
        ratio = Fraction(tels["policy_schedule"], tels["witness_schedule"])
        if not _close(parsed["certified_ratio"], float(ratio)):
            problems.append(f"certified_ratio: stated {parsed['certified_ratio']!r} but TEL(A)/TEL(S) = {ratio} "
                            f"({float(ratio)!r})")
        upper = _checked_upper(parsed["ratio_upper"], ratio, tels["policy_schedule"], lower, lower_name,
                               problems, notes)
    status = "rejected" if problems else "verified"
    message = ("; ".join(problems) if problems else
               f"{policy}: TEL {tels['policy_schedule']} vs witness TEL {tels['witness_schedule']}, "
               f"certified ratio {ratio}")
    return WitnessReport(status, message, time.perf_counter() - started, tuple(problems), tuple(notes), policy,
                         instance.n, instance.memory, instance.alpha, instance.is_burst,
                         tels.get("policy_schedule"), tels.get("witness_schedule"), ratio, lower, lower_name, upper)


def _recomputed_tels(instance: Instance, parsed: dict[str, Any], simulated: dict[str, int],
                     problems: list[str]) -> dict[str, int | None]:
    """The checker's TEL of both schedules; every disagreement with the file goes to ``problems``."""
    recorded_policy = {str(k): v for k, v in parsed["policy_schedule"]["starts"].items()}
    if recorded_policy != simulated:
        diff = sorted(k for k in set(recorded_policy) | set(simulated) if recorded_policy.get(k) != simulated.get(k))
        problems.append(
            f"policy_schedule differs from the simulated {parsed['policy']} schedule at {', '.join(diff[:5])}"
            f" (e.g. {diff[0]}: recorded {recorded_policy.get(diff[0])}, simulated {simulated.get(diff[0])})"
        )
    tels: dict[str, int | None] = {}
    for key, starts in (("policy_schedule", simulated), ("witness_schedule", parsed["witness_schedule"]["starts"])):
        report = check_schedule(instance, dict(starts))
        tels[key] = report.metrics.tel if report.feasible else None
        if not report.feasible:
            problems.append(f"{key}: infeasible: {report.first_violation.message}")
        elif parsed[key]["tel"] != report.metrics.tel:
            problems.append(f"{key}: stated tel {parsed[key]['tel']!r} but the checker computes {report.metrics.tel}")
    return tels


def _checked_upper(stated: Any, ratio: Fraction, policy_tel: int, lower: int, lower_name: str,
                   problems: list[str], notes: list[str]) -> Fraction | None:
    """The upper ratio to report: ``TEL(A)/LB`` with ``LB`` recomputed here, when the stated
    upper ratio is implied by it; ``None`` (with a note) when it is stronger than that."""
    if stated is None:
        return None
    if stated <= 0 or stated < float(ratio) * (1 - 1e-12):
        problems.append(f"ratio_upper: stated {stated!r} is below the certified ratio {float(ratio)!r} "
                        "(it would make OPT larger than a feasible schedule's TEL)")
        return None
    derived = Fraction(policy_tel, lower) if lower > 0 else None
    if derived is not None and stated >= float(derived) * (1 - 1e-12):
        return derived
    notes.append(f"ratio_upper {stated!r} is not re-derived: it needs OPT >= {policy_tel / stated:.4f}, and the "
                 f"lower bound recomputed here is {lower} ({lower_name}); not reported")
    return None


def _close(a: Any, b: float) -> bool:
    return _is_number(a) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
