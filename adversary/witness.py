"""Certified ratios and witness files.

The competitive ratio of a policy ``A`` on an instance ``I`` is ``TEL(A, I) / OPT(I)``. Any
feasible schedule ``S`` has ``OPT(I) <= TEL(S)``, so

.. math::  \\text{certified ratio} = \\frac{TEL(A, I)}{TEL(S)} \\le \\frac{TEL(A, I)}{OPT(I)}

is a *proved* lower bound on ``A``'s ratio on ``I`` that needs no exact optimum; when a lower
bound ``LB <= OPT(I)`` is known, ``TEL(A, I) / LB`` is an upper bound, and the true ratio lies in
``[certified, upper]``. Every number in a witness file is recomputed by
:func:`verify_witness` from the instance and the policy's name alone: the policy's schedule by
the reference simulator, both schedules' feasibility and TEL by the independent checker
(:func:`geosched.reference_impl.checker.check_schedule`), the ratio, the tie rule and, for a
vLLM target, the engine (:func:`geosched.adversary.targets.vllm_engine`: capacity ``M / B``
blocks, ``B`` the instance's ``block_size``, the grain both schedules are checked at). A field of
the file is never an input: one that disagrees with the derived value is a problem naming the
field (an ``engine`` whose block size is not the instance's is refused outright).

**No witness runs code.** The policy of a witness must be a built-in name (the registry's, or a
vLLM target). A witness of a user's scheduler file (``path/to/file.py:Class``) records the
file's SHA-256 (``scheduler_sha256``); :func:`verify_witness` refuses it unless the caller
names the file (``scheduler=``, ``check-witness --scheduler FILE.py:Class``), and refuses a
file whose SHA-256 differs, before importing anything.

Witness JSON (issue 4)::

    {"policy": "sjf", "instance": {...}, "policy_schedule": {"starts": {...}, "tel": T_A},
     "witness_schedule": {"starts": {...}, "tel": T_S}, "certified_ratio": T_A / T_S,
     "ratio_upper": T_A / LB or null, "found_by": "...", "seed": ...,
     "tie_rule": "...", "tie_check": {"order": "reversed", "policy_tel": T_R,
                                      "certified_ratio": T_R / T_S, "depends_on_ties": bool}}

Policies are strict head-of-line with exact output lengths (the setting of Kong et al.,
Thm. 3.2 and Jaillet et al., Thm. 4.3), or stock vLLM's scheduler (the hunt targets
``vllm-fcfs`` and ``vllm-priority`` of :mod:`geosched.adversary.targets`); for those the
policy schedule is ``{"completions": {...}, "tel": T_A, "preemptions": k}`` (a preempted
request has no single start) and ``"engine"`` records the vLLM engine parameters (derived, and
compared field by field on verification). A scheduler
that restarts requests (the vLLM targets, ``geo-guess``, a user's ``file.py:Class``) also
records its ``"runs"``: ``{id: [[start, end, kept], ...]}``; verification re-runs it and the
checker recomputes the TEL from the runs (:mod:`geosched.reference_impl.checker`).

**Ties.** ``tie_rule`` states the order of equal keys the ratio holds under; ``tie_check``
records the policy re-run with the tie order reversed (positions, and ids where the
scheduler compares them). ``depends_on_ties`` true means the ratio is a property of that
tie order, not of the instance alone. Both are optional in a file (older witnesses lack
them) but :func:`verify_witness` always recomputes both and reports them; a stated value
that differs is an error.

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

from geosched.adversary.targets import PolicyRun, block_size_for, get_target, vllm_engine
from geosched.errors import GeoschedError, InfeasibleScheduleError, ValidationError, WorkloadFormatError
from geosched.output import write_json_atomic
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.model import Instance, instance_from_dict, instance_to_dict
from geosched.reference_impl.opt import best_lower_bound
from geosched.reference_impl.user_schedulers import is_file_spec, scheduler_file_sha256
from geosched.reference_impl.vllm.semantics import EngineParams
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
OPTIONAL_KEYS = ("tie_rule", "tie_check", "engine", "scheduler_sha256")  # engine: vLLM targets only;
# scheduler_sha256: witnesses of a scheduler file only
ENGINE_KEYS = tuple(EngineParams.__dataclass_fields__)
TIE_CHECK_KEYS = ("order", "policy_tel", "certified_ratio", "depends_on_ties")


class WitnessError(GeoschedError):
    """A witness file does not re-verify; the message lists every failed check."""


@dataclass(frozen=True)
class Witness:
    """A policy's schedule and a better feasible schedule on one instance."""

    policy: str  # hunt target: a registry policy (strict head-of-line, exact lengths) or a vLLM target
    instance: Instance  # the instance
    policy_starts: dict[str, int] | None  # the policy's schedule (reference simulator); None for vLLM targets
    policy_tel: int  # TEL(A, I)
    witness_starts: dict[str, int]  # a feasible schedule S
    witness_tel: int  # TEL(S) >= OPT(I)
    lower_bound: int | None  # a proved lower bound on OPT(I), or None
    lower_bound_name: str | None  # which bound
    found_by: str  # method that found the instance (and the witness schedule)
    seed: int | None  # seed of the search
    tie_rule: str | None = None  # the order of equal keys the ratio holds under
    tie_check: dict[str, Any] | None = None  # the policy re-run with the tie order reversed
    policy_completions: dict[str, int] | None = None  # vLLM targets: completion steps
    preemptions: int = 0  # vLLM targets: preemptions in the policy's run
    engine: dict[str, Any] | None = None  # vLLM targets: engine parameters
    policy_runs: dict[str, list[list[int]]] | None = None  # schedulers with restarts: every run
    scheduler_sha256: str | None = None  # a scheduler file's SHA-256 (policy "path/to/file.py:Class")

    @property
    def certified_ratio(self) -> float:
        """``TEL(A) / TEL(S)``: a proved lower bound on the competitive ratio."""
        return self.policy_tel / self.witness_tel

    @property
    def ratio_upper(self) -> float | None:
        """``TEL(A) / LB``: an upper bound on ``TEL(A) / OPT`` on this instance."""
        return None if not self.lower_bound else self.policy_tel / self.lower_bound

    @property
    def depends_on_ties(self) -> bool | None:
        """Whether reversing the tie order changes TEL(A) (None: not checked)."""
        return None if self.tie_check is None else bool(self.tie_check["depends_on_ties"])

    def to_dict(self) -> dict[str, Any]:
        if self.policy_starts is not None:
            schedule: dict[str, Any] = {"starts": dict(self.policy_starts), "tel": self.policy_tel}
        else:
            schedule = {"completions": dict(self.policy_completions or {}), "tel": self.policy_tel,
                        "preemptions": self.preemptions}
            if self.policy_runs is not None:
                schedule["runs"] = {i: [list(run) for run in runs] for i, runs in self.policy_runs.items()}
        data = {
            "policy": self.policy,
            "instance": instance_to_dict(self.instance),
            "policy_schedule": schedule,
            "witness_schedule": {"starts": dict(self.witness_starts), "tel": self.witness_tel},
            "certified_ratio": self.certified_ratio,
            "ratio_upper": self.ratio_upper,
            "found_by": self.found_by,
            "seed": self.seed,
        }
        if self.tie_rule is not None:
            data["tie_rule"] = self.tie_rule
        if self.tie_check is not None:
            data["tie_check"] = dict(self.tie_check)
        if self.engine is not None:
            data["engine"] = dict(self.engine)
        if self.scheduler_sha256 is not None:
            data["scheduler_sha256"] = self.scheduler_sha256
        return data


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
    """Run ``policy`` (a hunt target: the reference simulator, or the vLLM-semantics model for
    the vLLM targets), check both schedules with the checker, re-run with the tie order
    reversed, and bundle them.

    Raises :class:`~geosched.errors.InfeasibleScheduleError` when the witness schedule is
    infeasible. ``lower_bound`` defaults to the best known bound of OPT. A scheduler file
    (``policy = "path/to/file.py:Class"``, named by the caller) is recorded with its SHA-256.
    """
    target = get_target(policy)
    run = target.run(instance)
    if run.tel < 0:  # would be a simulator bug: never hide it
        raise InfeasibleScheduleError(f"{policy}: simulator schedule rejected by the checker")
    starts = {k: int(v) for k, v in witness_starts.items()}
    report = check_schedule(instance, starts)  # at the instance's grain (block_size_for), the one the policy ran at
    if not report.feasible:
        raise InfeasibleScheduleError(f"witness schedule rejected: {report.first_violation.message}")
    lb, lb_name = lower_bound if lower_bound is not None else lower_bound_of(instance)
    reversed_tel = target.reversed_ties_tel(instance)
    tie_check = {"order": "reversed", "policy_tel": reversed_tel,
                 "certified_ratio": reversed_tel / report.metrics.tel, "depends_on_ties": reversed_tel != run.tel}
    return Witness(
        policy=policy,
        instance=instance,
        policy_starts=None if run.starts is None else dict(run.starts),
        policy_tel=run.tel,
        witness_starts=starts,
        witness_tel=report.metrics.tel,
        lower_bound=min(lb, report.metrics.tel) if lb else None,
        lower_bound_name=lb_name,
        found_by=found_by,
        seed=seed,
        tie_rule=target.tie_rule,
        tie_check=tie_check,
        policy_completions=None if run.starts is not None else dict(run.completions),
        preemptions=run.preemptions,
        engine=run.engine,
        policy_runs=None if run.starts is not None else run.runs,
        scheduler_sha256=scheduler_file_sha256(policy) if is_file_spec(policy) else None,
    )


def witness_from_dict(data: Any, source: str = "witness") -> dict[str, Any]:
    """Validate the shape and types of a witness object; returns it with the instance parsed.

    Every field must be present with its type (no extra key); numbers must be finite; the
    instance must have at least one request; no field names code that is not built in
    (:func:`~geosched.reference_impl.code_names.refuse_code_names`: a scheduler file only as a
    label pinned by ``scheduler_sha256``). Values are *not* trusted: :func:`verify_witness`
    recomputes every number.
    """
    if not isinstance(data, Mapping):
        raise WorkloadFormatError(f"{source}: expected a JSON object, got {type(data).__name__}")
    refuse_code_names({k: v for k, v in data.items() if k != "instance" or not isinstance(v, Instance)}, source)
    extra = sorted(set(data) - set(WITNESS_KEYS) - set(OPTIONAL_KEYS))
    missing = [k for k in WITNESS_KEYS if k not in data]
    if extra:
        raise WorkloadFormatError(f"{source}: unexpected key(s) {', '.join(map(repr, extra))}")
    if missing:
        raise WorkloadFormatError(f"{source}: missing key(s) {', '.join(map(repr, missing))}")
    _check_schedule_shapes(data, source)
    _check_optional_shapes(data, source)
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


def _check_schedule_shapes(data: Mapping[str, Any], source: str) -> None:
    """``witness_schedule`` is ``{starts, tel}``; ``policy_schedule`` is that too, or, for a vLLM
    target (a file with ``engine``), ``{completions, tel, preemptions}``."""
    policy_part = data["policy_schedule"]
    runs = isinstance(policy_part, Mapping) and "runs" in policy_part
    vllm = "engine" in data or runs
    for key in ("policy_schedule", "witness_schedule"):
        part = data[key]
        steps, shape = ("starts", {"starts", "tel"})
        if vllm and key == "policy_schedule":
            steps, shape = ("completions", {"completions", "tel", "preemptions"} | ({"runs"} if runs else set()))
        if not isinstance(part, Mapping) or set(part) != shape or not isinstance(part[steps], Mapping):
            wanted = ", ".join(sorted(shape))
            raise WorkloadFormatError(f"{source}: {key!r} must be an object with exactly {wanted} "
                                      f"({steps}: {{id: step}})")
        if runs and key == "policy_schedule" and not _runs_shape(part["runs"]):
            raise WorkloadFormatError(f"{source}: policy_schedule.runs must be {{id: [[start, end, kept], ...]}} "
                                      "in integers")
        for field_name in sorted(shape - {steps, "runs"}):
            if not _is_int(part[field_name]):
                raise WorkloadFormatError(f"{source}: {key}.{field_name} must be an integer, got {part[field_name]!r}")


def _runs_shape(runs: Any) -> bool:
    return isinstance(runs, Mapping) and all(
        isinstance(rs, list) and rs and all(isinstance(r, list) and len(r) == 3 and all(map(_is_int, r)) for r in rs)
        for rs in runs.values())


def _check_optional_shapes(data: Mapping[str, Any], source: str) -> None:
    if "tie_rule" in data and not isinstance(data["tie_rule"], str):
        raise WorkloadFormatError(f"{source}: 'tie_rule' must be a string, got {data['tie_rule']!r}")
    if "tie_check" in data:
        check = data["tie_check"]
        if not isinstance(check, Mapping) or set(check) != set(TIE_CHECK_KEYS):
            raise WorkloadFormatError(f"{source}: 'tie_check' must be an object with exactly "
                                      f"{', '.join(TIE_CHECK_KEYS)}")
        if check["order"] != "reversed":
            raise WorkloadFormatError(f"{source}: tie_check.order must be 'reversed', got {check['order']!r}")
        if not _is_int(check["policy_tel"]) or not _is_number(check["certified_ratio"]) \
                or not isinstance(check["depends_on_ties"], bool):
            raise WorkloadFormatError(f"{source}: tie_check needs an integer policy_tel, a finite certified_ratio "
                                      "and a boolean depends_on_ties")
    if "engine" in data and (not isinstance(data["engine"], Mapping) or set(data["engine"]) != set(ENGINE_KEYS)):
        raise WorkloadFormatError(f"{source}: 'engine' must be an object with exactly the vLLM engine parameters "
                                  f"{', '.join(ENGINE_KEYS)}")
    sha = data.get("scheduler_sha256")
    if "scheduler_sha256" in data and not (isinstance(sha, str) and len(sha) == 64
                                           and all(c in "0123456789abcdef" for c in sha)):
        raise WorkloadFormatError(f"{source}: 'scheduler_sha256' must be 64 lowercase hex digits, got {sha!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and math.isfinite(value)


def write_witness(witness: Witness, path: str | Path, *, force: bool = True) -> Path:
    """Write the witness JSON atomically (a kill never leaves a partial file); returns the path.
    ``force=False`` refuses an existing file (:func:`geosched.output.write_bytes_atomic`)."""
    return write_json_atomic(path, witness.to_dict(), force=force)


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
    ``notes`` says so. The tie rule and the reversed-tie re-run are always computed here.
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
    policy_tel: int | None  # TEL of the reference run (simulator + checker, or the vLLM-semantics model)
    witness_tel: int | None  # TEL of the witness schedule (checker), None if infeasible
    certified_ratio: Fraction | None  # policy_tel / witness_tel, exact
    lower_bound: int | None  # a lower bound on OPT recomputed here
    lower_bound_name: str | None
    ratio_upper: Fraction | None  # policy_tel / lower_bound, when the stated upper ratio is implied by it
    tie_rule: str = ""  # the order of equal keys the ratio holds under
    reversed_ties_tel: int | None = None  # TEL(A) with the tie order reversed (recomputed)
    depends_on_ties: bool | None = None  # reversed_ties_tel != policy_tel
    preemptions: int | None = None  # vLLM targets: preemptions in the reference run
    block_size: int = 1  # the KV block grain both schedules were checked at (the instance's: block_size_for)
    engine: dict[str, Any] | None = None  # vLLM targets: the engine derived from the instance and the policy
    scheduler_sha256: str | None = None  # a scheduler file's SHA-256, checked against the file the caller named

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


def verify_witness(data: Mapping[str, Any], *, scheduler: str | None = None) -> WitnessReport:
    """Re-verify a witness from scratch, with the simulator (or, for a vLLM target, the exact
    model of vLLM's scheduler on the engine derived from the instance) and the checker alone.

    Parameters
    ----------
    data : mapping
        A witness object (as read by :func:`read_witness`, or :meth:`Witness.to_dict`).
    scheduler : str, optional
        ``"path/to/file.py:Class"``: the scheduler file of a witness whose policy is one (the
        same class name; its SHA-256 must be the witness's ``scheduler_sha256``). A witness
        never names code that this function runs: without ``scheduler`` such a witness is refused.

    Returns
    -------
    WitnessReport
        ``verified`` when the policy schedule is the reference run's, both schedules
        are feasible for the checker, both stated TELs equal the checker's, the certified ratio
        equals ``TEL(A)/TEL(S)``, a stated upper ratio is at least the certified one, a stated
        tie rule and reversed-tie re-run equal the recomputed ones and, for a vLLM target, every
        field of ``engine`` equals the engine derived from the instance and the policy's name.

    Raises
    ------
    WorkloadFormatError
        When the witness is malformed (a missing or extra field, a NaN, an empty instance,
        bad engine parameters).
    WitnessError
        When the witness names a policy that neither the simulator nor a hunt target knows, a
        scheduler file the caller did not pass (or another file than the one recorded), or a
        vLLM target whose engine cannot serve the instance.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> w = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "svf", {"r0": 0, "r1": 1}, found_by="hand")
    >>> report = verify_witness(w.to_dict())
    >>> report.status, report.certified_ratio, report.depends_on_ties
    ('verified', Fraction(13, 9), False)
    """
    started = time.perf_counter()
    if isinstance(data, Mapping) and isinstance(data.get("instance"), Instance):  # as read_witness returns it
        data = {**data, "instance": instance_to_dict(data["instance"])}
    parsed = witness_from_dict(data)
    instance: Instance = parsed["instance"]
    policy = parsed["policy"]
    spec = _policy_to_run(parsed, scheduler)
    problems: list[str] = []
    target, engine = _target_and_engine(parsed, spec, problems)
    try:
        run = target.run(instance)
        reversed_tel = target.reversed_ties_tel(instance)
    except GeoschedError as exc:
        raise WitnessError(f"policy {policy!r}: {exc}") from None
    notes: list[str] = []
    tels = _recomputed_tels(instance, parsed, run, problems)
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
    _check_ties(parsed, target.tie_rule, reversed_tel, tels, problems, notes)
    status = "rejected" if problems else "verified"
    message = ("; ".join(problems) if problems else
               f"{policy}: TEL {tels['policy_schedule']} vs witness TEL {tels['witness_schedule']}, "
               f"certified ratio {ratio}")
    depends = None if tels.get("policy_schedule") is None else reversed_tel != tels["policy_schedule"]
    return WitnessReport(status, message, time.perf_counter() - started, tuple(problems), tuple(notes), policy,
                         instance.n, instance.memory, instance.alpha, instance.is_burst,
                         tels.get("policy_schedule"), tels.get("witness_schedule"), ratio, lower, lower_name, upper,
                         target.tie_rule, reversed_tel, depends, run.preemptions if engine is not None else None,
                         block_size_for(instance, spec), engine, parsed.get("scheduler_sha256"))


def _policy_to_run(parsed: Mapping[str, Any], scheduler: str | None = None) -> str:
    """The policy a witness's verification runs: its built-in name, or, for a witness of a
    scheduler file, the file the caller named (``scheduler``), after checking its class name and
    SHA-256 against the witness; nothing is imported here.

    Raises
    ------
    WitnessError
        A witness of a scheduler file without ``scheduler``, or with another file.
    ValidationError
        ``scheduler`` given for a built-in policy, not a ``FILE.py:Class``, or of another class.
    """
    policy = parsed["policy"]
    if not is_file_spec(policy):
        if scheduler is not None:
            raise ValidationError("--scheduler", scheduler, f"the witness names the built-in policy {policy!r}; "
                                  "--scheduler is for a witness of a scheduler file")
        if "scheduler_sha256" in parsed:
            raise WorkloadFormatError("witness: 'scheduler_sha256' belongs to a witness of a scheduler file, not "
                                      f"of the built-in policy {policy!r}")
        return policy
    class_name = policy.partition(":")[2]
    if scheduler is None:
        raise WitnessError(f"witness policy {policy!r} is a scheduler file: a witness never runs code it names; "
                           f"pass the file yourself: check-witness --scheduler FILE.py:{class_name} "
                           "(verify_witness(..., scheduler=...))")
    if not is_file_spec(scheduler) or scheduler.partition(":")[2] != class_name:
        raise ValidationError("--scheduler", scheduler, f"must be a scheduler file FILE.py:{class_name} (the class "
                              f"of the witness's policy {policy!r})")
    recorded = parsed.get("scheduler_sha256")
    if recorded is None:
        raise WitnessError(f"witness policy {policy!r}: the witness records no scheduler_sha256, so no file can be "
                           "shown to be the one it was made with")
    actual = scheduler_file_sha256(scheduler)
    if actual != recorded:
        raise WitnessError(f"--scheduler {scheduler}: its SHA-256 {actual} differs from the witness's "
                           f"scheduler_sha256 {recorded}: not the file the witness was made with")
    return scheduler


def _target_and_engine(parsed: Mapping[str, Any], spec: str, problems: list[str]
                       ) -> tuple[Any, dict[str, Any] | None]:
    """The hunt target of ``spec`` and, for a vLLM target, the engine derived from the instance
    and the name (:func:`~geosched.adversary.targets.vllm_engine`); every field of the file's
    ``engine`` that differs from it goes to ``problems``."""
    policy = parsed["policy"]
    try:
        target = get_target(spec)
    except GeoschedError as exc:
        raise WitnessError(f"policy {policy!r}: {exc}") from None
    stated = parsed.get("engine")
    if (target.kind == "vllm") != (stated is not None):
        need = "needs" if target.kind == "vllm" else "must not have"
        raise WorkloadFormatError(f"witness: policy {policy!r} {need} an 'engine' object")
    steps = "starts" if target.kind == "simulator" else "completions"
    if steps not in parsed["policy_schedule"]:
        raise WorkloadFormatError(f"witness: policy {policy!r} is a {target.kind} target: its policy_schedule "
                                  f"records {steps}")
    if stated is None:
        return target, None
    if stated["block_size"] != parsed["instance"].block_size:  # the grain is the instance's, never the file's word
        raise WorkloadFormatError(f"witness: engine: block_size {stated['block_size']!r} differs from the "
                                  f"instance's block_size {parsed['instance'].block_size}")
    try:
        params = vllm_engine(parsed["instance"], spec)
    except ValidationError as exc:
        raise WitnessError(f"witness instance: {exc}") from None
    engine = {key: getattr(params, key) for key in ENGINE_KEYS}
    for key, value in engine.items():
        if type(stated[key]) is not type(value) or stated[key] != value:
            problems.append(f"engine.{key}: stated {stated[key]!r} but the engine of {policy!r} derived from the "
                            f"instance (M = {parsed['instance'].memory}) has {value!r}")
    return target, engine


def _recomputed_tels(instance: Instance, parsed: dict[str, Any], run: PolicyRun,
                     problems: list[str]) -> dict[str, int | None]:
    """The recomputed TEL of both schedules; every disagreement with the file goes to ``problems``."""
    recorded = parsed["policy_schedule"]
    field_name, reference = ("starts", run.starts) if run.starts is not None else ("completions", run.completions)
    stated = {str(k): v for k, v in recorded[field_name].items()}
    if stated != reference:
        diff = sorted(k for k in set(stated) | set(reference) if stated.get(k) != reference.get(k))
        problems.append(
            f"policy_schedule differs from the recomputed {parsed['policy']} {field_name} at {', '.join(diff[:5])}"
            f" (e.g. {diff[0]}: recorded {stated.get(diff[0])}, recomputed {reference.get(diff[0])})"
        )
    if "runs" in recorded and recorded["runs"] != run.runs:
        problems.append(f"policy_schedule: the recorded runs differ from the recomputed {parsed['policy']} runs")
    if run.starts is None and recorded.get("preemptions") != run.preemptions:
        problems.append(f"policy_schedule: stated preemptions {recorded.get('preemptions')!r} but the run has "
                        f"{run.preemptions}")
    tels: dict[str, int | None] = {"policy_schedule": run.tel if run.tel >= 0 else None}
    if run.tel < 0:
        problems.append("policy_schedule: the simulated schedule is infeasible for the checker")
    elif recorded["tel"] != run.tel:
        problems.append(f"policy_schedule: stated tel {recorded['tel']!r} but the recomputed TEL is {run.tel}")
    # the witness schedule S is checked at the instance's grain, the one the policy ran at: OPT <= TEL(S) there
    report = check_schedule(instance, dict(parsed["witness_schedule"]["starts"]))
    tels["witness_schedule"] = report.metrics.tel if report.feasible else None
    if not report.feasible:
        problems.append(f"witness_schedule: infeasible: {report.first_violation.message}")
    elif parsed["witness_schedule"]["tel"] != report.metrics.tel:
        problems.append(f"witness_schedule: stated tel {parsed['witness_schedule']['tel']!r} but the checker "
                        f"computes {report.metrics.tel}")
    return tels


def _check_ties(parsed: Mapping[str, Any], rule: str, reversed_tel: int, tels: Mapping[str, int | None],
                problems: list[str], notes: list[str]) -> None:
    """A stated tie rule and reversed-tie re-run must equal the recomputed ones."""
    if "tie_rule" in parsed and parsed["tie_rule"] != rule:
        problems.append(f"tie_rule: stated {parsed['tie_rule']!r} but {parsed['policy']} breaks ties by: {rule}")
    elif "tie_rule" not in parsed:
        notes.append(f"the file states no tie rule; the ratio holds under: {rule}")
    check = parsed.get("tie_check")
    if check is None:
        return
    if check["policy_tel"] != reversed_tel:
        problems.append(f"tie_check: stated reversed-tie TEL {check['policy_tel']!r} but the re-run gives "
                        f"{reversed_tel}")
    policy_tel = tels.get("policy_schedule")
    if policy_tel is not None and check["depends_on_ties"] != (reversed_tel != policy_tel):
        problems.append(f"tie_check: stated depends_on_ties {check['depends_on_ties']!r} but TEL {policy_tel}"
                        f" vs reversed {reversed_tel}")
    if tels.get("witness_schedule") and not _close(check["certified_ratio"], reversed_tel / tels["witness_schedule"]):
        problems.append(f"tie_check: stated certified_ratio {check['certified_ratio']!r} but the reversed ratio is "
                        f"{reversed_tel / tels['witness_schedule']!r}")


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
