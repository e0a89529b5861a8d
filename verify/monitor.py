"""The certificate monitor: Kong et al.'s macroscopic certificate, checked at every blocked step.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Lemma A.2: while a request ``j`` waits under *strict*
SVF (burst arrivals, exact lengths), the head of the queue fails the forward-looking check,
so at some future step the batch plus the head exceed ``M``; the batch holds at most its
peaks and the head at most ``P = max_i (s_i + o_i) = alpha M``, hence

.. math::  \\sum_{i \\in B(t)} (s_i + o_i) > (1 - \\alpha) M = M - P,

and every active ``i`` precedes ``j`` in volume order. Summed over the waiting steps and with
``p_i o_i + o_i <= 2 v_i`` this is the certificate behind Thm. 3.2.

The simulator (:func:`geosched.reference_impl.simulation.simulate`) calls an ``observer`` with
a :class:`~geosched.reference_impl.engine.BlockedInterval` for every maximal interval of
steps ``first_step <= t < end_step`` with an unchanged state during which some arrived request
waits. :class:`CertificateMonitor` is such an observer: for each interval it checks, in exact
integer arithmetic,

* ``peak_mass``: the running batch's peak mass is ``> M - P`` (the certificate proper);
* ``order`` (optional): every running request precedes the waiting head in the order
  ``(volume, arrival, id)`` of strict SVF on true lengths.

Each interval stands for ``end_step - first_step`` blocked steps (the state is constant on
it), which is what ``blocked_steps`` counts. Under strict SVF with burst arrivals and exact
lengths neither check can fail (that is Lemma A.2); for backfilling, arrivals over time,
1-bit SVF or SJF the ``order`` part is not guaranteed, and with inexact predictions even the
``peak_mass`` part is not (the forward check then uses believed lengths).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.simulation import simulate
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> monitor = CertificateMonitor(inst)
>>> _ = simulate(inst, "svf", observer=monitor)
>>> res = monitor.result()
>>> res.ok, res.blocked_steps, res.min_slack
(True, 5, 3)

(By hand: ``P = 9``, so ``M - P = 3``; ``r1`` (volume 20 < 24) runs alone on steps 0..4 with
peak 6 while ``r0`` waits: 5 blocked steps, slack ``6 - 3 = 3``.)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from geosched.output import write_text_atomic
from geosched.reference_impl.engine import BlockedInterval
from geosched.reference_impl.model import Instance, instance_to_dict
from geosched.reference_impl.simulation import SimulationResult, simulate
from geosched.results import Result

__all__ = ["CertificateViolation", "MonitorResult", "CertificateMonitor", "monitor_run"]


@dataclass(frozen=True)
class CertificateViolation:
    """One blocked interval on which the certificate fails."""

    kind: str  # "peak_mass" (batch peaks <= M - P) or "order" (a running request follows the head)
    first_step: int  # first blocked step of the interval
    end_step: int  # first step after it
    head: str  # the waiting head (first waiting id in the policy's priority order)
    running: tuple[str, ...]  # the active batch
    running_peak_mass: int  # sum of s + o over the batch
    threshold: int  # M - P: the certificate needs running_peak_mass > threshold
    offenders: tuple[str, ...] = ()  # for "order": running ids that do not precede the head

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "first_step": self.first_step,
            "end_step": self.end_step,
            "head": self.head,
            "running": list(self.running),
            "running_peak_mass": self.running_peak_mass,
            "threshold": self.threshold,
            "offenders": list(self.offenders),
        }


@dataclass(frozen=True)
class MonitorResult(Result):
    """What the monitor saw over one simulation (``status``: ``"held"`` or ``"violated"``)."""

    STATUSES = ("held", "violated")
    SUCCESS = ("held",)

    intervals: int  # blocked intervals observed
    blocked_steps: int  # blocked steps checked (sum of interval lengths)
    peak_mass_violations: int  # intervals with running peak mass <= M - P
    order_violations: int  # intervals with a running request not preceding the head (if checked)
    min_slack: int | None  # min over intervals of running_peak_mass - (M - P); None if never blocked
    min_slack_step: int | None  # first step of the interval attaining min_slack
    threshold: int  # M - P
    violations: tuple[CertificateViolation, ...]  # the recorded violations (at most max_recorded)
    instance: Instance = field(repr=False)  # the monitored instance
    counterexample_path: str | None = None  # file the counterexample was written to, if any
    status: str = "held"  # "violated" when either kind of violation was seen
    message: str = ""  # one line
    wall_time: float = 0.0  # seconds spent in the monitor's checks

    @property
    def ok(self) -> bool:
        """No violation of either kind."""
        return self.status == "held"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "success": self.success,
            "message": self.message,
            "wall_time": self.wall_time,
            "intervals": self.intervals,
            "blocked_steps": self.blocked_steps,
            "peak_mass_violations": self.peak_mass_violations,
            "order_violations": self.order_violations,
            "min_slack": self.min_slack,
            "min_slack_step": self.min_slack_step,
            "threshold": self.threshold,
            "violations": [v.to_dict() for v in self.violations],
            "counterexample_path": self.counterexample_path,
        }


class CertificateMonitor:
    """Observer for :func:`~geosched.reference_impl.simulation.simulate` checking Lemma A.2.

    Parameters
    ----------
    instance:
        The simulated instance (for ``M``, ``P`` and the true lengths).
    check_order:
        Also check that every running request precedes the waiting head in strict-SVF order
        ``(volume, arrival, position)`` on true lengths.
    max_recorded:
        Keep at most this many violations (all are counted).
    """

    def __init__(self, instance: Instance, *, check_order: bool = True, max_recorded: int = 20,
                 record_intervals: bool = False) -> None:
        self.instance = instance
        self.check_order = check_order
        self.record_intervals = record_intervals
        self.seen: list[tuple[int, int, tuple[str, ...]]] = []  # (first, end, running) with record_intervals
        self.max_recorded = max_recorded
        peak = max((r.peak for r in instance.requests), default=0)
        self.threshold = instance.memory - peak
        self._peak = {r.id: r.peak for r in instance.requests}
        self._order_key = {r.id: (r.volume, r.arrival, position) for position, r in enumerate(instance.requests)}
        self.intervals = 0
        self.blocked_steps = 0
        self.peak_mass_violations = 0
        self.order_violations = 0
        self.min_slack: int | None = None
        self.min_slack_step: int | None = None
        self.violations: list[CertificateViolation] = []
        self.wall_time = 0.0

    def __call__(self, interval: BlockedInterval) -> None:
        started = time.perf_counter()
        self._check(interval)
        self.wall_time += time.perf_counter() - started

    def _check(self, interval: BlockedInterval) -> None:
        self.intervals += 1
        if self.record_intervals:
            self.seen.append((interval.first_step, interval.end_step, interval.running))
        self.blocked_steps += max(1, interval.end_step - interval.first_step)
        # recomputed from the instance rather than trusted from the simulator
        mass = sum(self._peak[i] for i in interval.running)
        slack = mass - self.threshold
        if self.min_slack is None or slack < self.min_slack:
            self.min_slack = slack
            self.min_slack_step = interval.first_step
        head = interval.waiting[0]
        if slack <= 0:
            self.peak_mass_violations += 1
            self._record(CertificateViolation("peak_mass", interval.first_step, interval.end_step, head,
                                              interval.running, mass, self.threshold))
        if self.check_order:
            head_key = self._order_key[head]
            offenders = tuple(i for i in interval.running if self._order_key[i] > head_key)
            if offenders:
                self.order_violations += 1
                self._record(CertificateViolation("order", interval.first_step, interval.end_step, head,
                                                  interval.running, mass, self.threshold, offenders))

    def occupancy_failures(self, starts: dict[str, int]) -> list[tuple[int, int]]:
        """The *occupancy* reading of the certificate, on the recorded intervals (``record_intervals``):
        ``(t, occupancy)`` for every blocked step ``t`` at which the running requests hold at most
        ``M - P`` tokens (``sum s_i + (t - x_i)`` over those started before ``t``).

        Lemma A.2 bounds the running requests' *peaks*; this reading is false in general:

        >>> from geosched.reference_impl.model import burst_instance
        >>> inst = burst_instance(16, [(0, 8), (0, 8), (0, 8)])
        >>> monitor = CertificateMonitor(inst, record_intervals=True)
        >>> sim = simulate(inst, "svf", observer=monitor)
        >>> monitor.result().ok, monitor.occupancy_failures(sim.starts)[:2]
        (True, [(0, 0), (1, 2)])
        """
        by_id = self.instance.by_id()
        failures = []
        for first, end, running in self.seen:
            for step in range(first, max(end, first + 1)):
                held = sum(by_id[i].prompt + step - starts[i] for i in running if starts[i] < step)
                if held <= self.threshold:
                    failures.append((step, held))
        return failures

    def _record(self, violation: CertificateViolation) -> None:
        if len(self.violations) < self.max_recorded:
            self.violations.append(violation)

    def result(self, counterexample_path: str | None = None) -> MonitorResult:
        """The counts so far as a :class:`MonitorResult`."""
        violated = self.peak_mass_violations or self.order_violations
        message = (f"{self.peak_mass_violations} peak-mass and {self.order_violations} order violations in "
                   f"{self.intervals} blocked intervals" if violated else
                   f"certificate held at {self.blocked_steps} blocked steps (min slack {self.min_slack})")
        given = {"violations": tuple(self.violations), "counterexample_path": counterexample_path,
                 "status": "violated" if violated else "held", "message": message}
        # every other field is the monitor's count of the same name
        return MonitorResult(**given, **{f.name: getattr(self, f.name) for f in fields(MonitorResult)
                                         if f.name not in given})


def write_counterexample(path: str | Path, instance: Instance, simulation: SimulationResult,
                         monitor: MonitorResult, *, policy: str, backfill: bool, predictor: str) -> str:
    """Write ``{"kind": "certificate", "instance", "policy", "schedule", "violations"}`` as JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "kind": "certificate_violation",
        "claim": "kong.lemmaA.2",
        "instance": instance_to_dict(instance),
        "policy": policy,
        "backfill": backfill,
        "predictor": predictor,
        "schedule": {"starts": simulation.starts},
        "threshold": monitor.threshold,
        "violations": [v.to_dict() for v in monitor.violations],
    }
    write_text_atomic(path, json.dumps(data, indent=1) + "\n")
    return str(path)


def monitor_run(
    instance: Instance,
    policy: Any = "svf",
    *,
    predictor: Any = "oracle",
    backfill: bool = False,
    check_order: bool = True,
    counterexample_path: str | Path | None = None,
) -> tuple[SimulationResult, MonitorResult]:
    """Simulate ``policy`` on ``instance`` under a :class:`CertificateMonitor`.

    When a violation is found and ``counterexample_path`` is given, the instance, the
    schedule and the violations are written there as JSON (its path is in the result).

    >>> from geosched.reference_impl.model import burst_instance
    >>> _, res = monitor_run(burst_instance(12, [(6, 3), (1, 5)]), "svf")
    >>> res.peak_mass_violations, res.order_violations
    (0, 0)
    """
    monitor = CertificateMonitor(instance, check_order=check_order)
    simulation = simulate(instance, policy, predictor=predictor, backfill=backfill, observer=monitor)
    result = monitor.result()
    if not result.ok and counterexample_path is not None:
        written = write_counterexample(counterexample_path, instance, simulation, result,
                                       policy=str(getattr(policy, "name", policy)), backfill=backfill,
                                       predictor=str(getattr(predictor, "name", predictor)))
        result = monitor.result(counterexample_path=written)
    return simulation, result
