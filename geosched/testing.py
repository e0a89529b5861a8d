"""Hypothesis strategies for geosched's objects, so that you can property-test your own
scheduler against the verified reference with the same generators our tests use.

* :func:`instances`: valid instances (every peak fits in ``M``), bursts or with arrivals,
  with plain (``r0, r1, ...``) or arbitrary ids;
* :func:`traces`: CSV text in the Azure LLM inference trace schema
  (``TIMESTAMP,ContextTokens,GeneratedTokens``), readable by
  :func:`geosched.reference_impl.workloads.read_trace`;
* :func:`schedules`: start-time maps for an instance, arbitrary or feasible by construction;
* :func:`check_scheduler`: your own scheduler class run through the step engine on generated
  instances, every rule of :data:`RULES` checked (the protocol, the independent checker, ...), a
  failure shrunk to a smallest instance; :func:`sample_instances`: a fixed corpus of small instances.

The pytest plugin :mod:`geosched.pytest_plugin` (loaded by pytest when geosched is installed) gives
these as fixtures (``check_scheduler``, ``paper_instance``, ``sample_instances``); docs/schedulers.md.

Example
-------
>>> from hypothesis import given, settings
>>> import geosched as gs
>>> @settings(max_examples=20, derandomize=True, deadline=None)
... @given(instances(max_n=3))
... def test_svf_is_feasible(instance):
...     result = gs.simulate(instance, "svf")
...     assert gs.check_schedule(instance, result.starts).feasible
>>> test_svf_is_feasible()
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from geosched.reference_impl._strategies import instances  # the model's own strategy, re-exported here
from geosched.reference_impl.model import Instance, Request
from geosched.results import Result

__all__ = ["instances", "traces", "schedules", "check_scheduler", "SchedulerCheck", "SchedulerRuleError", "RULES",
           "sample_instances"]

_EPOCH = datetime(2023, 11, 16, 18, 0, 0)


@st.composite
def traces(draw: st.DrawFn, *, min_rows: int = 1, max_rows: int = 30, max_prompt: int = 4000,
           max_output: int = 1000, max_gap_ms: int = 5000) -> str:
    """CSV text in the Azure trace schema, rows in time order (a zero output is allowed: the
    reader drops such rows, as it does in the real trace).

    Returns
    -------
    SearchStrategy[str]
        ``"TIMESTAMP,ContextTokens,GeneratedTokens\\n2023-11-16 18:00:00.0000000,374,44\\n..."``
    """
    n = draw(st.integers(min_rows, max_rows))
    clock = _EPOCH
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    for k in range(n):
        clock += timedelta(milliseconds=draw(st.integers(0, max_gap_ms)))
        prompt = draw(st.integers(0, max_prompt))
        output = draw(st.integers(1 if k == 0 else 0, max_output))
        lines.append(f"{clock:%Y-%m-%d %H:%M:%S}.{clock.microsecond * 10:07d},{prompt},{output}")
    return "\n".join(lines) + "\n"


@st.composite
def schedules(draw: st.DrawFn, instance: Instance, *, feasible: bool | None = None,
              max_delay: int = 10) -> dict[str, int]:
    """Start times for ``instance``.

    ``feasible=True`` gives a serial schedule (one request at a time, in a drawn order, with
    drawn idle gaps): feasible because every peak fits in ``M``. ``False`` or ``None`` draws
    every start in ``[a_i, a_i + max_delay]`` independently (feasible or not).
    """
    if feasible:
        order = draw(st.permutations(range(instance.n)))
        clock = 0
        starts = {}
        for i in order:
            request = instance.requests[i]
            clock = max(clock, request.arrival) + draw(st.integers(0, 2))
            starts[request.id] = clock
            clock += request.output
        return starts
    return {r.id: r.arrival + draw(st.integers(0, max_delay)) for r in instance.requests}


# --------------------------------------------------------------------------- your own scheduler, checked


@dataclass(frozen=True)
class SchedulerCheck(Result):
    """What :func:`check_scheduler` found: ``passed``, or ``failed`` with the rule broken and the
    smallest instance Hypothesis found that breaks it."""

    STATUSES = ("passed", "failed")
    SUCCESS = ("passed",)

    status: str
    message: str  # one line: the rule broken and why, or what passed
    wall_time: float
    scheduler: str  # its name
    examples: int  # instances run
    rules: tuple[str, ...]  # the rules checked on every instance (RULES)
    preemptions: int = 0  # runs the scheduler ended early, over every instance
    rule: str = ""  # "failed": the rule broken
    counterexample: dict[str, Any] | None = None  # "failed": the (shrunk) instance, as instance JSON


# every rule check_scheduler checks, in order, and what it means
RULES = {
    "protocol": "every decision keeps the protocol (waiting or running ids, declared preemptions only, the batch "
                "fits M at the next step, no output length read without clairvoyant)",
    "feasible": "the independent checker accepts the runs (arrivals, memory at every step, runs that do not "
                "overlap, every request completes)",
    "deterministic": "a fresh object of the scheduler gives the same runs on the same instance",
    "quiet_until": "honouring the decisions' quiet_until promises gives the same runs as deciding at every step",
    "ids_are_labels": "renaming the requests changes nothing (ties go by arrival and position, never by id)",
}


class SchedulerRuleError(AssertionError):
    """A rule of :data:`RULES` broken on ``instance``."""

    def __init__(self, rule: str, detail: str, instance: Instance) -> None:
        from geosched.reference_impl.model import instance_to_dict

        self.rule, self.detail, self.instance = rule, detail, instance_to_dict(instance)
        super().__init__(f"{rule}: {detail} on instance {json.dumps(self.instance)}")


def check_scheduler(scheduler: Any, *, examples: int = 100, max_n: int = 5, max_memory: int = 16,
                    max_prompt: int = 5, max_output: int = 6, max_arrival: int = 4, burst: bool | None = None,
                    block_size: int = 1, ids_are_labels: bool = True, seed: int = 0,
                    raise_on_failure: bool = True) -> SchedulerCheck:
    """Run your scheduler through geosched's step engine on generated instances and check every rule
    of :data:`RULES`: the protocol, the independent checker's verdict, determinism, ``quiet_until`` and
    (``ids_are_labels``) that ids are labels only.

    Parameters
    ----------
    scheduler : class, callable or str
        A scheduler class of the protocol (:mod:`geosched.reference_impl.scheduling`: ``name``,
        ``clairvoyant``, ``preempts``, ``decide(state) -> Decision``) built with no arguments, a
        callable returning a fresh scheduler, ``"path/to/file.py:Class"`` or a registered name
        (``"geo-guess"``). A fresh object serves each run.
    examples : int
        Instances to run (Hypothesis; a failure is shrunk to a smallest instance).
    max_n, max_memory, max_prompt, max_output, max_arrival, burst
        The instances (:func:`instances`): at most ``max_n`` requests, ``M <= max_memory`` (times
        ``block_size``), bursts (``True``), arrivals (``False``) or both (``None``).
    block_size : int
        KV block grain ``B`` (the scheduler must declare ``block_grain = True`` when ``B > 1``).
    seed : int
        The generation's seed (the same seed, the same instances).
    raise_on_failure : bool
        Raise :class:`SchedulerRuleError` (an ``AssertionError``: a pytest failure naming the rule and
        the instance) or return the ``failed`` result.

    Returns
    -------
    SchedulerCheck

    Examples
    --------
    >>> check_scheduler("geo-guess", examples=10).message
    'geo-guess: 10 instances, every rule holds (protocol, feasible, deterministic, quiet_until, ids_are_labels)'
    """
    import time

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    make, name = _scheduler_factory(scheduler)
    rules = tuple(r for r in RULES if ids_are_labels or r != "ids_are_labels")
    began, tally = time.perf_counter(), {"examples": 0, "preemptions": 0}
    strategy = instances(min_n=1, max_n=max_n, max_memory=max_memory, max_prompt=max_prompt, max_output=max_output,
                         max_arrival=max_arrival, burst=burst)

    @hypothesis_seed(seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def every_rule(instance: Instance) -> None:
        if block_size > 1:
            instance = Instance(instance.memory * block_size, instance.requests, block_size=block_size)
        tally["examples"] += 1
        tally["preemptions"] += _check_rules(make, instance, rules)

    try:
        every_rule()
    except SchedulerRuleError as failure:
        if raise_on_failure:
            raise
        return SchedulerCheck("failed", f"{name}: {failure}", time.perf_counter() - began, name, tally["examples"],
                              rules, tally["preemptions"], failure.rule, failure.instance)
    return SchedulerCheck("passed", f"{name}: {examples} instances, every rule holds ({', '.join(rules)})",
                          time.perf_counter() - began, name, examples, rules, tally["preemptions"])


def _scheduler_factory(scheduler: Any) -> tuple[Callable[[], Any], str]:
    """A function making a fresh scheduler object, and the scheduler's name."""
    from geosched.errors import ValidationError
    from geosched.reference_impl.simulation import resolve
    from geosched.reference_impl.user_schedulers import load_scheduler_class

    if isinstance(scheduler, str):
        label = scheduler
        make = (load_scheduler_class(scheduler) if scheduler.partition(":")[0].endswith(".py")
                else lambda: resolve(label))
    elif callable(scheduler):
        make = scheduler
    else:
        raise ValidationError("scheduler", type(scheduler).__name__, "must be a scheduler class, a callable "
                              "returning a scheduler, 'path/to/file.py:Class' or a registered name")
    probe = make()
    if not callable(getattr(probe, "decide", None)):
        raise ValidationError("scheduler", type(probe).__name__, "is not a protocol scheduler (no decide(state)); "
                              "a priority rule is checked by simulate() and the project's own tests")
    return make, str(getattr(probe, "name", type(probe).__name__))


def _check_rules(make: Callable[[], Any], instance: Instance, rules: tuple[str, ...]) -> int:
    """Every rule on one instance; raises :class:`SchedulerRuleError`; returns the run's preemptions."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.engine import run_scheduler
    from geosched.reference_impl.scheduling import CapabilityError, DecisionError

    def run(on: Instance, skip: bool = True) -> Any:
        try:
            return run_scheduler(on, make(), skip=skip)  # the block size is the instance's
        except (DecisionError, CapabilityError) as exc:
            raise SchedulerRuleError("protocol", str(exc), on) from None

    first = run(instance)
    report = check_schedule(instance, dict(first.runs))
    if not report.feasible:
        raise SchedulerRuleError("feasible", f"the checker rejects the runs: {report.message}", instance)
    if run(instance).runs != first.runs:
        raise SchedulerRuleError("deterministic", "a fresh scheduler object gives other runs", instance)
    if run(instance, skip=False).runs != first.runs:
        raise SchedulerRuleError("quiet_until", "deciding at every step gives other runs than honouring the "
                                 "quiet_until promises", instance)
    if "ids_are_labels" in rules:
        renamed = Instance(instance.memory, [Request(f"z{len(instance.requests) - k}", r.arrival, r.prompt, r.output)
                                             for k, r in enumerate(instance.requests)], block_size=instance.block_size)
        again = run(renamed).runs
        if [again[r.id] for r in renamed.requests] != [first.runs[r.id] for r in instance.requests]:
            raise SchedulerRuleError("ids_are_labels", "renaming the requests (in reverse order of their names) "
                                     "changes the runs", instance)
    return first.restarts


def sample_instances(count: int = 40, *, seed: int = 0, max_n: int = 5, max_memory: int = 16) -> list[Instance]:
    """``count`` small instances (bursts and arrivals), the same for the same ``seed``: a fixed corpus
    for plain loops and ``pytest.mark.parametrize``, without Hypothesis.

    >>> [inst.n for inst in sample_instances(4, seed=1)]
    [5, 4, 4, 2]
    """
    rng = random.Random(seed)
    out = []
    for k in range(count):
        memory = rng.randint(2, max_memory)
        requests = []
        for j in range(rng.randint(1, max_n)):
            output = rng.randint(1, min(6, memory))
            prompt = rng.randint(0, min(5, memory - output))
            requests.append(Request(f"r{j}", rng.randint(0, 4) if k % 2 else 0, prompt, output))
        out.append(Instance(memory, requests))
    return out
