"""Ties are broken by arrival, then by position in the instance: ids are labels only.

Renaming every request (to arbitrary text, whose string order differs from the positions)
must give the same schedule, request by request, in the simulator (every policy, strict and
backfill, exact and predicted lengths) and in the adversary's compiled evaluator.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import Capability, policy_names
from geosched.reference_impl.predictors import NoisyPredictor
from geosched.reference_impl.simulation import simulate
from geosched.testing import instances


def renamed(instance: Instance, names: list[str]) -> Instance:
    return Instance(instance.memory, [Request(name, r.arrival, r.prompt, r.output)
                                      for name, r in zip(names, instance.requests)])


def by_position(instance: Instance, starts: dict[str, int]) -> list[int]:
    return [starts[r.id] for r in instance.requests]


@st.composite
def instance_and_names(draw):
    instance = draw(instances(max_n=6, max_memory=12, max_output=4, max_prompt=3))
    names = draw(st.lists(st.text(min_size=1, max_size=4), min_size=instance.n, max_size=instance.n, unique=True))
    return instance, names


def test_string_order_is_not_position_order():
    # the case the rule is about: "r10" < "r2" as strings, but r2 comes first in the instance
    inst = Instance(4, [Request("r2", 0, 1, 3), Request("r10", 0, 1, 3)])
    for policy in policy_names():
        assert simulate(inst, policy).admission_order == ("r2", "r10")


@given(instance_and_names(), st.sampled_from(policy_names()), st.booleans())
def test_simulator_schedule_survives_renaming(case, policy, backfill):
    instance, names = case
    other = renamed(instance, names)
    first = simulate(instance, policy, backfill=backfill)
    second = simulate(other, policy, backfill=backfill)
    assert by_position(instance, first.starts) == by_position(other, second.starts)


@given(instance_and_names(), st.sampled_from(policy_names()), st.integers(0, 5))
def test_simulator_with_predictions_survives_renaming(case, policy, seed):
    instance, names = case
    other = renamed(instance, names)
    first = simulate(instance, policy, predictor=NoisyPredictor(sigma=0.7, seed=seed))
    second = simulate(other, policy, predictor=NoisyPredictor(sigma=0.7, seed=seed))
    assert by_position(instance, first.starts) == by_position(other, second.starts)
    assert first.restarts == second.restarts


@given(instance_and_names(), st.sampled_from(policy_names(Capability.FAST)), st.booleans())
def test_fast_evaluator_survives_renaming_and_equals_simulator(case, policy, backfill):
    from geosched.adversary.fast import fast_starts

    instance, names = case
    other = renamed(instance, names)
    reference = by_position(instance, simulate(instance, policy, backfill=backfill).starts)
    assert by_position(instance, fast_starts(instance, policy, backfill=backfill)) == reference
    assert by_position(other, fast_starts(other, policy, backfill=backfill)) == reference
