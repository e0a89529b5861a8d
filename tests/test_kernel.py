"""The compiled kernel (``reference_impl/kernel.py``, issue 31 item 1) against the reference engine.

The engine is :func:`geosched.reference_impl.simulation.simulate` on instances far below its compiled
threshold (so its event-driven Python engine runs), the naive per-step simulator of
``tests/stepwise_reference.py`` a second, independent reference for the starts, and the checker
computes the TELs. Both modes (strict head-of-line and backfill), every priority rule and arbitrary
rank orders; instances with many equal keys, equal arrivals and staggered ones.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepwise_reference import stepwise_simulate

from geosched.adversary.fast import batch_policy_tel, policy_tel, simulate_arrays
from geosched.reference_impl import kernel, simulation
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import make_policy


class _Ranked:
    """A priority rule whose keys are given (ties by arrival, then position, as every rule's)."""

    name = "given-keys"

    def __init__(self, keys):
        self._keys = list(keys)

    def keys(self, instance, predicted):
        return self._keys

    def parameters(self, predicted):
        return {}


@st.composite
def instances(draw, max_n: int = 24):
    """Small budgets, few distinct lengths (many equal keys and ends), arrivals equal or staggered."""
    memory = draw(st.integers(2, 30))
    n = draw(st.integers(0, max_n))
    stagger = draw(st.sampled_from([0, 1, 3, 20]))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, min(memory, draw(st.sampled_from([2, 4, memory])))))
        prompt = draw(st.integers(0, memory - output))
        arrival = draw(st.sampled_from([0, 0, draw(st.integers(0, stagger))]))
        requests.append(Request(f"q{n - k}", arrival, prompt, output))  # ids in reverse: ids are labels
    return Instance(memory, requests)


def _columns(instance):
    return tuple(np.array([getattr(r, f) for r in instance.requests], dtype=np.int64)
                 for f in ("prompt", "output", "arrival"))


def _order(keys, instance):
    arrival = [r.arrival for r in instance.requests]
    return np.array(sorted(range(instance.n), key=lambda i: (keys[i], arrival[i], i)), dtype=np.int64)


def _compare(instance, keys, backfill, stepwise=True):
    """The kernel's starts, admission order, decisions and TELs against the engine's and the checker's
    (and the starts against the naive per-step simulator's, which is slow beyond a few dozen requests)."""
    prompt, output, arrival = _columns(instance)
    order = _order(keys, instance)
    start, admitted, decisions = kernel.run_exact(instance.memory, prompt, output, arrival, order, backfill)
    engine = simulation.simulate(instance, _Ranked(keys), backfill=backfill)
    ids = [r.id for r in instance.requests]
    assert dict(zip(ids, start.tolist())) == engine.starts
    assert tuple(ids[i] for i in admitted.tolist()) == engine.admission_order
    assert decisions == engine.decisions
    starts_only, again = kernel.starts_exact(instance.memory, prompt, output, arrival, order, backfill)
    assert starts_only.tolist() == start.tolist() and again == decisions
    if stepwise:
        naive, _ = stepwise_simulate(instance, keys, output.tolist(), backfill=backfill)
        assert dict(zip(ids, start.tolist())) == naive
    tel = check_schedule(instance, engine.starts).metrics.tel if instance.n else 0
    assert kernel.tel_exact(instance.memory, prompt, output, arrival, order, backfill) == tel
    return tel


@settings(deadline=None)
@given(instances(), st.sampled_from(["fcfs", "sjf", "svf", "svf1"]), st.booleans())
def test_kernel_equals_the_engine_for_every_rule(instance, policy, backfill):
    _compare(instance, make_policy(policy).keys(instance, [r.output for r in instance.requests]), backfill)


@settings(deadline=None)
@given(instances(), st.data(), st.booleans())
def test_kernel_equals_the_engine_for_any_order_with_ties(instance, data, backfill):
    keys = data.draw(st.lists(st.integers(0, 2), min_size=instance.n, max_size=instance.n))  # mostly equal keys
    _compare(instance, keys, backfill)


@settings(deadline=None)
@given(st.lists(instances(max_n=8), max_size=6), st.booleans())
def test_batch_tel_is_each_instance_tel(population, backfill):
    keys = [make_policy("svf").keys(inst, [r.output for r in inst.requests]) for inst in population]
    columns = [_columns(inst) for inst in population]
    offsets = np.cumsum([0] + [inst.n for inst in population]).astype(np.int64)
    glue = [np.concatenate([c[k] for c in columns] + [np.zeros(0, np.int64)]) for k in range(3)]
    orders = np.concatenate([_order(k, inst) for k, inst in zip(keys, population)] + [np.zeros(0, np.int64)])
    memories = np.array([inst.memory for inst in population], dtype=np.int64)
    tels = kernel.batch_tel(memories, glue[2], glue[0], glue[1], offsets, orders, backfill)
    assert tels.tolist() == [_compare(inst, k, backfill) for inst, k in zip(population, keys)]


@pytest.mark.parametrize("backfill", [False, True])
def test_long_queues_with_staggered_arrivals(backfill):
    # hundreds of requests arriving over time behind a long queue: the head-of-line heap of late
    # arrivals, the merges into the sorted run and the batch's compaction all run
    rng = np.random.default_rng(31 + backfill)
    for n, memory, spread in ((400, 60, 300), (300, 200, 40), (250, 24, 2000)):
        output = rng.integers(1, memory // 2 + 1, size=n)
        prompt = rng.integers(0, memory - output + 1)
        arrival = np.sort(rng.integers(0, spread, size=n)) if n == 300 else rng.integers(0, spread, size=n)
        instance = Instance(memory, [Request(f"r{k}", int(a), int(s), int(o))
                                     for k, (a, s, o) in enumerate(zip(arrival, prompt, output))])
        for policy in ("svf", "sjf", "fcfs"):
            _compare(instance, make_policy(policy).keys(instance, output.tolist()), backfill, stepwise=False)


def test_hand_worked_example():
    # Kong et al.'s example (M = 12): SVF starts (1, 5) at 0; (6, 3) fits once (1, 5) holds at most
    # 12 - 9 tokens at the steps it overlaps: at 5 (by hand); TEL 5 + 8 = 13. Backfill changes nothing.
    for backfill in (False, True):
        start, admitted, decisions = kernel.run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]),
                                                      np.array([1, 0]), backfill)
        assert (start.tolist(), admitted.tolist(), decisions) == ([5, 0], [1, 0], 2)


def test_backfill_admits_past_a_misfit():
    # M = 10, ranks by position. (5, 4) starts at 0 and holds 5 + u at step u <= 4. (6, 2) misfits until
    # it ends: 9 + 7 > 10 at step 4 from a start at 3, 7 and 8 at steps 5, 6 from 4 (by hand). (0, 1)
    # fits beside (5, 4) at 0 (6 + 1 <= 10), which only backfill tries; strict, it follows (6, 2) at 4.
    prompt, output, arrival = np.array([5, 6, 0]), np.array([4, 2, 1]), np.zeros(3, np.int64)
    strict, _, _ = kernel.run_exact(10, prompt, output, arrival, np.array([0, 1, 2]), False)
    backfill, _, _ = kernel.run_exact(10, prompt, output, arrival, np.array([0, 1, 2]), True)
    assert strict.tolist() == [0, 4, 4] and backfill.tolist() == [0, 4, 0]


def test_past_int64_answers_out_of_range_and_the_wrapper_takes_the_engine():
    n, big = 10, 2**53  # 4 (n + 2) (T + 2M) >= 2^62: every entry point refuses, nothing is simulated
    prompt, output, arrival = np.zeros(n, np.int64), np.full(n, big), np.zeros(n, np.int64)
    order = np.arange(n)
    assert not kernel.fits_int64(big, arrival, output)
    assert kernel.run_exact(big, prompt, output, arrival, order, False)[2] == kernel.OUT_OF_RANGE
    assert kernel.starts_exact(big, prompt, output, arrival, order, True)[1] == kernel.OUT_OF_RANGE
    assert kernel.tel_exact(big, prompt, output, arrival, order, True) == kernel.OUT_OF_RANGE
    fine = (np.array([6, 1]), np.array([3, 5]), np.zeros(2, np.int64))
    tels = kernel.batch_tel(np.array([big, 12]), np.concatenate([arrival, fine[2]]),
                            np.concatenate([prompt, fine[0]]), np.concatenate([output, fine[1]]),
                            np.array([0, n, n + 2]), np.concatenate([order, [1, 0]]), False)
    assert tels.tolist() == [kernel.OUT_OF_RANGE, 13]
    # the adversary's wrapper runs the simulator with Python integers: starts k * 2^53 (one at a time)
    assert simulate_arrays("fcfs", arrival, prompt, output, big).tolist() == [k * big for k in range(n)]
    assert policy_tel("svf", arrival, prompt, output, big) == sum((k + 1) * big for k in range(n))
    assert batch_policy_tel("svf", [(arrival, prompt, output, big), (fine[2], *fine[:2], 12)]).tolist() == [
        sum((k + 1) * big for k in range(n)), 13]


def test_keys_past_int64_are_exact_in_the_wrapper():
    # a = (2^52, 2^12): volume 2^64 + 2^23 + 2^11, which int64 wraps to 2^23 + 2^11; b = (2^24, 1):
    # volume 2^24 + 1. SVF serves b first. They never overlap (M = a's peak), so b runs at 0 and a at 1;
    # with wrapped keys a would run first, at 0, and b at 2^12.
    memory = 2**52 + 2**12
    instance = Instance(memory, [Request("a", 0, 2**52, 2**12), Request("b", 0, 2**24, 1)])
    keys = make_policy("svf").keys(instance, [2**12, 1])
    assert keys == [2**64 + 2**23 + 2**11, 2**24 + 1]
    assert kernel.priority_order(keys, np.zeros(2, np.int64)) is None  # the simulator's compiled path refuses
    starts = simulate_arrays("svf", np.zeros(2, np.int64), np.array([2**52, 2**24]), np.array([2**12, 1]), memory)
    assert starts.tolist() == [1, 0] == [simulation.simulate(instance, "svf").starts[i] for i in "ab"]


@pytest.mark.parametrize("change, message", [
    (lambda c: c.update(order=np.array([0, 0])), "permutation"),
    (lambda c: c.update(order=np.array([0, 2])), "permutation"),
    (lambda c: c.update(memory=8), "s \\+ o <= M"),
    (lambda c: c.update(output=np.array([3, 0])), "o >= 1"),
    (lambda c: c.update(arrival=np.array([0, -1])), "a >= 0"),
    (lambda c: c.update(order=np.array([1, 0, 2])), "same length"),
])
def test_bad_input_raises(change, message):
    case = {"memory": 12, "prompt": np.array([6, 1]), "output": np.array([3, 5]), "arrival": np.array([0, 0]),
            "order": np.array([1, 0])}
    change(case)
    with pytest.raises(ValueError, match=message):
        kernel.run_exact(case["memory"], case["prompt"], case["output"], case["arrival"], case["order"], False)


def test_batch_offsets_are_checked():
    cols = (np.zeros(2, np.int64), np.array([6, 1]), np.array([3, 5]))
    for memories, offsets in (([12], [0, 1]), ([12], [1, 2]), ([12], [0, 2, 2]), ([12, 12], [0, 3, 2])):
        with pytest.raises(ValueError, match="offsets"):
            kernel.batch_tel(np.array(memories), *cols, np.array(offsets), np.array([1, 0]), False)


def test_fits_int64_refuses_a_budget_past_the_bound():
    assert not kernel.fits_int64(kernel.LIMIT, np.zeros(1, np.int64), np.ones(1, np.int64))
    assert kernel.fits_int64(2**50, np.zeros(1, np.int64), np.ones(1, np.int64))
