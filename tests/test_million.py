"""Issue 21 item 8: the fast paths for 1,000,000 requests give exactly what the general paths give.

The compiled decision loop (:mod:`geosched.reference_impl.fastsim`) against the simulator's
``ReplicaEngine`` (and the naive per-step reference); the column reader and the checker's column
path against the general ones, on generated instances with ties and on bad inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepwise_reference import stepwise_simulate

from geosched.reference_impl import fastsim, simulator
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import make_policy


@st.composite
def tied_instances(draw, max_n: int = 40):
    """Small budgets and few distinct values: many equal keys, arrivals and ends."""
    memory = draw(st.integers(2, 40))
    n = draw(st.integers(1, max_n))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, min(memory, draw(st.sampled_from([2, 4, memory])))))
        prompt = draw(st.integers(0, memory - output))
        arrival = draw(st.sampled_from([0, 0, 1, 3, draw(st.integers(0, 60))]))
        requests.append(Request(f"q{n - k}", arrival, prompt, output))  # ids in reverse: ids are labels
    return Instance(memory, requests)


def _engine_result(instance, policy):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulator, "COMPILED_MIN_REQUESTS", 10**18)
        return simulator.simulate(instance, policy)


def _compiled_result(instance, policy):
    calls = []
    real = fastsim.run_exact

    def counted(*args):
        calls.append(1)
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulator, "COMPILED_MIN_REQUESTS", 0)
        patch.setattr(fastsim, "run_exact", counted)
        result = simulator.simulate(instance, policy)
    assert calls == [1], "the compiled loop did not run"
    return result


@settings(deadline=None)
@given(tied_instances(), st.sampled_from(["svf", "sjf", "fcfs", "svf1"]))
def test_compiled_loop_equals_the_engine(instance, policy):
    expected = _engine_result(instance, policy)
    got = _compiled_result(instance, policy)
    assert got == expected  # every field: starts, completions, admission order, decisions, message
    assert got.message == expected.message and got.decisions == expected.decisions
    keys = make_policy(policy).keys(instance, [r.output for r in instance.requests])
    starts, _ = stepwise_simulate(instance, keys, [r.output for r in instance.requests], backfill=False)
    assert got.starts == starts


def test_compiled_loop_hand_worked():
    # M = 12: b (1, 5) first by volume, a (6, 3) waits until b's usage 1 + t leaves room: 6 + 3 + 6 > 12
    # until t = 5 (b holds 6 at step 5, a holds 7 at step 6 when b is gone)
    start, order, decisions = fastsim.run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]),
                                                np.array([1, 0]), np.array([0, 1]))
    assert start.tolist() == [5, 0] and order.tolist() == [1, 0] and decisions == 2


class _Longer:
    name = "longer"

    def predict(self, instance):
        return np.array([r.output + 1 for r in instance.requests])


def test_falls_back_outside_its_case(monkeypatch):
    calls = []
    monkeypatch.setattr(simulator, "COMPILED_MIN_REQUESTS", 0)
    monkeypatch.setattr(fastsim, "run_exact", lambda *a: calls.append(1))
    instance = Instance(12, [Request("a", 0, 6, 3), Request("b", 0, 1, 5)])
    simulator.simulate(instance, "svf", backfill=True)
    simulator.simulate(instance, "svf", predictor=_Longer())
    simulator.simulate(instance, "svf", block_size=2)
    simulator.simulate(instance, "svf", observer=lambda interval: None)
    huge = Instance(2**53, [Request(f"r{k}", 0, 0, 2**53) for k in range(10)])  # past fits_int64's bound
    assert simulator.simulate(huge, "svf").starts == {f"r{k}": k * 2**53 for k in range(10)}
    assert calls == []


@pytest.mark.parametrize("arrival,output,memory,fits", [
    ([0, 5], [3, 4], 39, True),
    ([2**53], [2**53], 2**53, True),  # 4 * 3 * 4 * 2^53 < 2^62
    ([0] * 10, [2**53] * 10, 2**53, False),  # 4 * 12 * 13 * 2^53 >= 2^62
])
def test_fits_int64(arrival, output, memory, fits):
    assert fastsim.fits_int64(memory, np.array(arrival, dtype=np.int64), np.array(output, dtype=np.int64)) is fits


def test_priority_order_is_key_arrival_position():
    order = fastsim.priority_order([3, 1, 1, 1], np.array([0, 2, 1, 1]))
    assert order.tolist() == [2, 3, 1, 0]
    assert fastsim.priority_order([1.5, 2], np.array([0, 0])) is None
    assert fastsim.priority_order([2**70, 1], np.array([0, 0])) is None
