"""The one policy registry: every list of policy names is derived from it."""

from __future__ import annotations

import argparse

import pytest

from geosched.adversary import z3search
from geosched.adversary.fast import FAST_POLICIES, priority_keys
from geosched.adversary.targets import target_names
from geosched.cli import build_parser
from geosched.errors import UnknownNameError
from geosched.reference_impl.model import burst_instance
from geosched.reference_impl.policies import REGISTRY, Capability, Policy, make_policy, policy_names, register_policy
from geosched.reference_impl.scheduler_registry import scheduler_names
from geosched.verify.policy_spec import SPEC_KEYS


def test_every_policy_satisfies_the_protocol_and_records_its_parameters():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    for name in policy_names():
        policy = make_policy(name)
        assert len(policy.keys(inst, [3, 5])) == 2
        assert isinstance(policy, Policy)
        assert policy.name == name
        assert isinstance(policy.parameters([3, 5]), dict)
    # 1-bit SVF resolves its threshold from the predictions: median of 3 and 5 is 4
    assert make_policy("svf1").parameters([3, 5]) == {"theta": 4, "short_length": 3, "long_length": 5}


def test_capability_lists_are_the_registry():
    assert FAST_POLICIES == policy_names(Capability.FAST)
    assert z3search.Z3_POLICIES == policy_names(Capability.Z3)
    # the Z3 specification is written independently, but under exactly the registry's names
    assert set(SPEC_KEYS) == set(policy_names(Capability.Z3))
    for name in policy_names(Capability.FAST):
        assert len(priority_keys(name, [1, 2], [3, 4])) == 2
    for name in policy_names(Capability.Z3):
        z3search.priority_constraints(name, z3search.Z3Bounds(n=2, memory=(4, 6), max_prompt=2, max_output=2),
                                      [1, 2], [1, 2])


def test_argparse_choices_come_from_the_registry():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    hunt_policy = next(a for a in sub.choices["hunt"]._actions if a.dest == "policy")
    z3_policy = next(a for a in sub.choices["z3-bisect"]._actions if a.dest == "policy")
    # the hunt attacks the registry's FAST policies, stock vLLM, then the registry's other schedulers
    # (geosched.adversary.targets), or a user's FILE.py:Class: a type check, not a list of choices
    assert target_names() == policy_names(Capability.FAST) + ("vllm-fcfs", "vllm-priority") + tuple(
        n for n in scheduler_names() if n not in policy_names() and not n.startswith("vllm-"))
    assert hunt_policy.choices is None and all(hunt_policy.type(n) == n for n in target_names())
    with pytest.raises(argparse.ArgumentTypeError, match="unknown hunt policy 'lifo'"):
        hunt_policy.type("lifo")
    assert tuple(z3_policy.choices) == policy_names(Capability.Z3)


def test_a_registered_policy_runs_in_the_simulator_only(monkeypatch):
    from dataclasses import dataclass

    from geosched.reference_impl.simulation import simulate

    @dataclass(frozen=True)
    class LongestFirst:
        name: str = "lof"

        def keys(self, instance, predicted):
            return [-o for o in predicted]

        def parameters(self, predicted):
            return {}

    monkeypatch.setitem(REGISTRY, "lof", REGISTRY["fcfs"])  # restored after the test
    register_policy("lof", LongestFirst, summary="longest output first")
    assert policy_names(Capability.SIMULATOR)[-1] == "lof"
    assert "lof" not in policy_names(Capability.FAST)
    assert simulate(burst_instance(12, [(6, 3), (1, 5)]), "lof").starts == {"r0": 5, "r1": 0}
    with pytest.raises(UnknownNameError):
        priority_keys("lof", [1], [1])


def test_unknown_policy_lists_the_known_ones():
    with pytest.raises(UnknownNameError, match="^unknown policy 'nope'; known: ") as info:
        make_policy("nope")
    known = str(info.value).split("known: ")[1].split(", ")
    assert {"fcfs", "sjf", "svf", "svf1"} <= set(known)  # the built-in rules
    assert known == sorted(policy_names())  # and every other registered one, in alphabetical order


def test_a_scheduler_module_declares_its_own_entries_and_the_registry_finds_it(tmp_path, monkeypatch):
    # issue 31: no hand list; a module of the package with SCHEDULERS is found by scanning it
    import textwrap

    from geosched.errors import ValidationError
    from geosched.reference_impl.scheduler_registry import SchedulerEntry, SchedulerRegistry

    package = tmp_path / "my_schedulers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "zeta.py").write_text(textwrap.dedent("""
        from geosched.reference_impl.scheduling import Capability
        from geosched.reference_impl.scheduler_registry import SchedulerEntry
        SCHEDULERS = (SchedulerEntry("late", object, "late", frozenset({Capability.SIMULATOR}), order=9),
                      SchedulerEntry("later", object, "later", frozenset({Capability.SIMULATOR}), order=9))
    """))
    (package / "alpha.py").write_text(textwrap.dedent("""
        from geosched.reference_impl.scheduling import Capability
        from geosched.reference_impl.scheduler_registry import SchedulerEntry
        SCHEDULERS = (SchedulerEntry("first", object, "first", frozenset({Capability.SIMULATOR}), order=1),)
        OTHER = 3  # a module's other names are not entries
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = SchedulerRegistry("my_schedulers")
    registry["added"] = SchedulerEntry("added", object, "added", frozenset())  # before the scan: kept after it
    assert list(registry) == ["first", "late", "later", "added"]  # by order, then each module's own order
    (package / "beta.py").write_text(
        "from geosched.reference_impl.scheduler_registry import SchedulerEntry\n"
        "SCHEDULERS = (SchedulerEntry('first', object, 'x', frozenset()),)\n")
    with pytest.raises(ValidationError, match="declared twice in my_schedulers .got .first"):
        list(SchedulerRegistry("my_schedulers"))
