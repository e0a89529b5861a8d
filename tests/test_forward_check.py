"""The simulator's forward-looking check (``ForwardCheck``) against a brute-force model of it,
and large batches against the per-step reference (issue 11, item 8).

``ForwardCheck`` keeps insertions pending and merges them when the order is needed, and
answers ``fits`` from two O(1) sufficient bounds before the exact window check. Here every
answer is compared with the definition: the batch plus the candidate fits at every step of
the candidate's run.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from stepwise_reference import stepwise_simulate

from geosched.reference_impl.admission import ForwardCheck
from geosched.reference_impl.model import burst_instance
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.simulation import simulate


def _held(members: list[tuple[int, int]], step: int) -> int:
    """Believed tokens at ``step`` of members ``(end, prompt - start)``: those with ``end >= step``
    (the check's convention: a member counts until its end)."""
    return sum(offset + step for end, offset in members if end >= step)


def _fits(members, memory: int, prompt: int, output: int, start: int) -> bool:
    """The definition: at every step of the candidate's run, batch plus candidate fit."""
    return all(_held(members, t) + prompt + (t - start) <= memory for t in range(start + 1, start + output + 1))


member = st.tuples(st.integers(1, 6), st.integers(1, 8))  # (prompt, output), started at the current step
operation = st.one_of(
    st.tuples(st.just("add"), st.lists(member, min_size=1, max_size=20)),  # 1..20 pending: both merge paths
    st.tuples(st.just("advance"), st.integers(1, 4)),
    st.tuples(st.just("ask"), member),
)


@given(st.integers(10, 120), st.lists(operation, min_size=1, max_size=25))
def test_forward_check_agrees_with_the_definition(memory, operations):
    batch = ForwardCheck()
    members: list[tuple[int, int]] = []
    step = 0
    for kind, value in operations:
        if kind == "add":
            for prompt, output in value:
                batch.add(step + output, prompt - step)
                members.append((step + output, prompt - step))
        elif kind == "advance":
            step += value
            batch.drop_through(step)
            members = [(end, offset) for end, offset in members if end > step]
        elif value[0] + value[1] <= memory:  # the simulator asks only for peaks within M
            prompt, output = value
            assert batch.fits(memory, prompt, output, step) == _fits(members, memory, prompt, output, step)
            earliest = batch.earliest_start(memory, prompt, output, step)
            assert _fits(members, memory, prompt, output, earliest)
            assert not any(_fits(members, memory, prompt, output, tau) for tau in range(step, earliest))
        assert len(batch) == len(members)
        assert batch.ends == sorted(end for end, _ in members)
        assert batch.usage(step + 1) == _held(members, step + 1)


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(1, 6)), min_size=10, max_size=40),
       st.integers(0, 30), st.sampled_from(["fcfs", "sjf", "svf"]), st.booleans())
def test_large_batches_equal_the_per_step_reference(lengths, spare, policy, backfill):
    """Bursts where most requests fit at once (M near the sum of the peaks), so dozens of
    admissions are pending between merges."""
    instance = burst_instance(max(s + o for s, o in lengths) + sum(s + o for s, o in lengths) // 2 + spare, lengths)
    outputs = [r.output for r in instance.requests]
    keys = make_policy(policy).keys(instance, outputs)
    expected, _ = stepwise_simulate(instance, keys, outputs, backfill=backfill)
    assert simulate(instance, policy, backfill=backfill).starts == expected
