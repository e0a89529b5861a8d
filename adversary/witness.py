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

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError, InfeasibleScheduleError, WorkloadFormatError
from geosched.reference_impl.model import Instance, instance_from_dict, instance_to_dict

__all__ = [
    "Witness",
    "WitnessError",
    "make_witness",
    "witness_from_dict",
    "read_witness",
    "write_witness",
    "verify_witness",
    "cheap_lower_bound",
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


def cheap_lower_bound(instance: Instance) -> tuple[int, str]:
    """The best of two closed-form lower bounds on ``OPT(I)`` (TEL, integer):

    * ``sum_i o_i`` (every request runs ``o_i`` steps after it arrives);
    * burst only: ``ceil(sum_k (sum of the k smallest volumes) / M)`` (Kong et al., Prop. 3.1).

    >>> from geosched.reference_impl.model import burst_instance
    >>> cheap_lower_bound(burst_instance(12, [(6, 3), (1, 5)]))
    (8, 'sum_outputs')
    """
    outputs = sum(r.output for r in instance.requests)
    best, name = outputs, "sum_outputs"
    if instance.is_burst and instance.n:
        vols = sorted(r.volume for r in instance.requests)
        n = len(vols)
        prefix_total = sum(v * (n - k) for k, v in enumerate(vols))
        bound = -(-prefix_total // instance.memory)
        if bound > best:
            best, name = bound, "volume_prefix"
    return best, name


def _best_known_lower_bound(instance: Instance) -> tuple[int, str]:
    best, name = cheap_lower_bound(instance)
    try:
        from geosched.reference_impl.opt import best_lower_bound
    except ImportError:
        return best, name
    try:
        lb = best_lower_bound(instance)
    except Exception:  # noqa: BLE001 - a missing optional bound must not break a witness
        return best, name
    value = math.ceil(lb.value - 1e-9)
    return (value, lb.name) if value > best else (best, name)


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
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate

    sim = simulate(instance, policy)
    policy_report = check_schedule(instance, sim.starts)
    if not policy_report.feasible:  # would be a simulator bug: never hide it
        raise InfeasibleScheduleError(f"{policy}: simulator schedule rejected: {policy_report.first_violation.message}")
    starts = {k: int(v) for k, v in witness_starts.items()}
    report = check_schedule(instance, starts)
    if not report.feasible:
        raise InfeasibleScheduleError(f"witness schedule rejected: {report.first_violation.message}")
    lb, lb_name = lower_bound if lower_bound is not None else _best_known_lower_bound(instance)
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
    """Validate the shape of a witness object; returns it with the instance parsed."""
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
    if not isinstance(data["policy"], str):
        raise WorkloadFormatError(f"{source}: 'policy' must be a string, got {data['policy']!r}")
    parsed = dict(data)
    parsed["instance"] = instance_from_dict(data["instance"], source=f"{source}: instance")
    return parsed


def write_witness(witness: Witness, path: str | Path) -> Path:
    """Write the witness JSON; returns the path."""
    path = Path(path)
    path.write_text(json.dumps(witness.to_dict(), indent=1) + "\n")
    return path


def read_witness(path: str | Path) -> dict[str, Any]:
    """Read and shape-check a witness file (see :func:`verify_witness` to re-verify it)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise WorkloadFormatError(f"{path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise WorkloadFormatError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    return witness_from_dict(data, source=str(path))


def _close(a: Any, b: float) -> bool:
    return isinstance(a, (int, float)) and not isinstance(a, bool) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def verify_witness(data: Mapping[str, Any]) -> dict[str, Any]:
    """Re-verify a witness from scratch; returns a report dict with ``ok`` and ``problems``.

    Checks: the policy schedule equals the reference simulator's; both schedules are
    feasible for the checker; both recorded TELs equal the checker's; the certified ratio
    equals ``TEL(A)/TEL(S)``; a given upper ratio implies a lower bound on OPT that is at most
    the witness TEL and at most a lower bound recomputed here (else it is unjustified).
    """
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate

    parsed = data if isinstance(data.get("instance"), Instance) else witness_from_dict(data)
    instance: Instance = parsed["instance"]
    problems: list[str] = []
    notes: list[str] = []
    policy = parsed["policy"]
    try:
        sim = simulate(instance, policy)
    except GeoschedError as exc:
        raise WitnessError(f"policy {policy!r}: {exc}") from None
    recorded_policy = {str(k): v for k, v in parsed["policy_schedule"]["starts"].items()}
    if recorded_policy != sim.starts:
        diff = sorted(k for k in set(recorded_policy) | set(sim.starts) if recorded_policy.get(k) != sim.starts.get(k))
        problems.append(
            f"policy_schedule differs from the simulated {policy} schedule at {', '.join(diff[:5])}"
            f" (e.g. {diff[0]}: recorded {recorded_policy.get(diff[0])}, simulated {sim.starts.get(diff[0])})"
        )
    tels = {}
    witness_starts = parsed["witness_schedule"]["starts"]
    for key, starts in (("policy_schedule", recorded_policy), ("witness_schedule", witness_starts)):
        report = check_schedule(instance, dict(starts))
        if not report.feasible:
            problems.append(f"{key}: infeasible: {report.first_violation.message}")
        if report.metrics is None:
            continue
        tels[key] = report.metrics.tel
        if parsed[key]["tel"] != report.metrics.tel:
            problems.append(f"{key}: recorded tel {parsed[key]['tel']!r} but the checker computes {report.metrics.tel}")
    ratio = None
    if len(tels) == 2 and tels["witness_schedule"] > 0:
        ratio = tels["policy_schedule"] / tels["witness_schedule"]
        if not _close(parsed["certified_ratio"], ratio):
            problems.append(f"certified_ratio: recorded {parsed['certified_ratio']!r} but TEL(A)/TEL(S) = {ratio!r}")
        upper = parsed["ratio_upper"]
        if upper is not None:
            if not isinstance(upper, (int, float)) or isinstance(upper, bool) or upper <= 0:
                problems.append(f"ratio_upper: must be a positive number or null, got {upper!r}")
            else:
                implied = tels["policy_schedule"] / upper
                known, name = _best_known_lower_bound(instance)
                if upper < ratio * (1 - 1e-9):
                    problems.append(f"ratio_upper {upper!r} is below the certified ratio {ratio!r}")
                elif implied > tels["witness_schedule"] * (1 + 1e-9):
                    problems.append(
                        f"ratio_upper {upper!r} implies OPT >= {implied:.4f} > TEL(S) = {tels['witness_schedule']}"
                    )
                elif implied > known * (1 + 1e-9):
                    notes.append(
                        f"ratio_upper implies OPT >= {implied:.4f}, above the lower bound recomputed here "
                        f"({known}, {name}): it rests on a solver bound that this check does not re-derive"
                    )
    return {
        "ok": not problems,
        "problems": problems,
        "notes": notes,
        "policy": policy,
        "n": instance.n,
        "memory": instance.memory,
        "alpha": float(instance.alpha),
        "burst": instance.is_burst,
        "policy_tel": tels.get("policy_schedule"),
        "witness_tel": tels.get("witness_schedule"),
        "certified_ratio": ratio,
        "ratio_upper": parsed["ratio_upper"],
    }
