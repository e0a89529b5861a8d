"""The pytest plugin and check_scheduler: a user's scheduler checked rule by rule, each rule shown to fail."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from geosched.errors import ValidationError
from geosched.reference_impl.scheduling import Decision
from geosched.testing import RULES, SchedulerRuleError, check_scheduler, sample_instances

ROOT = Path(__file__).resolve().parent.parent


class Serial:
    """One request at a time, in arrival order: keeps every rule."""

    name = "serial"
    clairvoyant = False
    preempts = False

    def decide(self, state):
        if state.running or not state.waiting:
            return Decision()
        return Decision(admit=(state.waiting[0].id,))


class AdmitEverything(Serial):
    name = "admit-everything"

    def decide(self, state):  # breaks memory as soon as two requests do not fit together
        return Decision(admit=tuple(w.id for w in state.waiting))


class ById(Serial):
    """Serial, the smallest id first: ties by the id string."""

    name = "by-id"

    def decide(self, state):
        if state.running or not state.waiting:
            return Decision()
        return Decision(admit=(min(w.id for w in state.waiting),))


class Moody(Serial):
    """Serial, but every other object waits one step longer at the start: not deterministic."""

    name = "moody"
    made = 0

    def __init__(self):
        Moody.made += 1
        self.late = Moody.made % 2 == 0

    def decide(self, state):
        if self.late and state.time == 0:
            return Decision()
        return super().decide(state)


class BrokenPromise(Serial):
    """Admits a request one step after it arrives, yet promises to stay quiet for 50 steps."""

    name = "broken-promise"

    def decide(self, state):
        if state.running or not state.waiting or state.time == state.waiting[0].arrival:
            return Decision(quiet_until=state.time + 50)
        return Decision(admit=(state.waiting[0].id,))


class Peeker(Serial):
    name = "peeker"

    def decide(self, state):
        return Decision(admit=tuple(w.id for w in state.waiting if w.output < 0))  # reads o, undeclared


def test_a_serial_scheduler_keeps_every_rule():
    result = check_scheduler(Serial, examples=30)
    assert result.success and result.examples == 30 and result.rules == tuple(RULES)
    assert result.message.startswith("serial: 30 instances, every rule holds")


def test_a_registered_scheduler_and_its_preemptions():
    result = check_scheduler("vllm-fcfs", examples=30, seed=3)
    assert result.success and result.preemptions > 0  # vLLM's recompute preemptions were exercised


@pytest.mark.parametrize("scheduler, rule", [
    (AdmitEverything, "protocol"),
    (Peeker, "protocol"),
    (Moody, "deterministic"),
    (BrokenPromise, "quiet_until"),
    (ById, "ids_are_labels"),
])
def test_each_rule_fails_on_a_scheduler_that_breaks_it(scheduler, rule):
    result = check_scheduler(scheduler, examples=60, raise_on_failure=False)
    assert result.status == "failed" and result.rule == rule, result.message
    instance = result.counterexample
    assert instance is not None and 1 <= len(instance["requests"]) <= 3  # shrunk by Hypothesis
    with pytest.raises(SchedulerRuleError) as info:
        check_scheduler(scheduler, examples=60)
    assert isinstance(info.value, AssertionError) and info.value.rule == rule
    assert json.dumps(info.value.instance) in str(info.value)


def test_ids_are_labels_can_be_left_out_for_a_scheduler_that_means_to_read_them():
    result = check_scheduler(ById, examples=30, ids_are_labels=False)
    assert result.success and "ids_are_labels" not in result.rules


def test_what_is_not_a_protocol_scheduler_is_refused():
    with pytest.raises(ValidationError, match="priority rule"):
        check_scheduler("svf")
    with pytest.raises(ValidationError, match="scheduler"):
        check_scheduler(42)


def test_sample_instances_are_a_fixed_corpus():
    first, again = sample_instances(seed=5), sample_instances(seed=5)
    assert first == again and len(first) == 40
    assert any(i.is_burst for i in first) and not all(i.is_burst for i in first)


def test_the_plugin_is_registered_for_pytest():
    found = [e for e in entry_points(group="pytest11") if e.name == "geosched"]
    assert [e.value for e in found] == ["geosched.pytest_plugin"]


def test_a_users_test_file_uses_the_fixtures(tmp_path):
    (tmp_path / "my_sched.py").write_text(textwrap.dedent('''
        from geosched.reference_impl.scheduling import Decision


        class Serial:
            name, clairvoyant, preempts = "serial", False, False

            def decide(self, state):
                if state.running or not state.waiting:
                    return Decision()
                return Decision(admit=(state.waiting[0].id,))


        class Greedy(Serial):
            def decide(self, state):
                return Decision(admit=tuple(w.id for w in state.waiting))
    '''))
    (tmp_path / "test_mine.py").write_text(textwrap.dedent('''
        import geosched as gs
        from my_sched import Greedy, Serial


        def test_serial(check_scheduler):
            assert check_scheduler(Serial).success


        def test_greedy(check_scheduler):
            check_scheduler(Greedy)


        def test_fixtures(paper_instance, sample_instances):
            assert gs.simulate(paper_instance, "svf").starts == {"r0": 5, "r1": 0}
            assert len(sample_instances) == 40
    '''))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--geosched-examples",
                           "20", "test_mine.py"], cwd=tmp_path, capture_output=True, text=True)
    out = done.stdout
    assert done.returncode == 1 and "1 failed, 2 passed" in out, out[-3000:]
    assert "test_greedy" in out and "SchedulerRuleError: protocol:" in out
