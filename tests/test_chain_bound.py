"""The chain bound (subset DP over completion orders): hand values, validity against the exact
optimum for every subset, and that it is not weaker than the cheap bounds where it applies."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.opt import (
    CHAIN_MAX_N,
    best_lower_bound,
    brute_force_opt,
    chain_bound,
    chain_subset_bounds,
    completion_order_bound,
    solve_opt,
)
from geosched.reference_impl.opt.timeindexed import start_windows
from geosched.reference_impl.workloads import generate


@st.composite
def big_heavy_bursts(draw, max_n: int = 5):
    """Bursts where peaks above M/2 are common, so the separation term matters."""
    memory = draw(st.integers(4, 14))
    n = draw(st.integers(1, max_n))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, memory))
        prompt = draw(st.integers(0, min(3, memory - output)))
        requests.append(Request(f"r{k}", 0, prompt, output))
    return Instance(memory, requests)


def test_two_big_requests_by_hand():
    # M = 10, (s, o) = (1, 8) twice: peaks 9 + 9 > 10, volumes 8 + 36 = 44 each.
    # first completion: max(o = 8, ceil(44/10) = 5) = 8; second: the first holds 9 at its
    # completion, so the other holds <= 1 < s + 1 and cannot have started: sep = min(8, 9+9-10)
    # = 8 -> 16 (volume: ceil(88/10) = 9). Bound 8 + 16 = 24, and the serial schedule reaches it.
    inst = burst_instance(10, [(1, 8), (1, 8)])
    assert chain_bound(inst).value == 24
    assert completion_order_bound(inst).value == 8 + 9
    assert brute_force_opt(inst).tel == 24


def test_partial_overlap_by_hand():
    # M = 10, (0, 6) and (0, 7): peaks 6 + 7 = 13 > 10, sep(i, j) = min(o_j, 3).
    # order (0,6) first: C1 >= max(6, ceil(21/10)) = 6, C2 >= max(7, ceil(49/10), 6 + 3) = 9: 15.
    # order (0,7) first: C1 >= 7, C2 >= max(6, 5, 7 + 3) = 10: 17. Bound = 15.
    inst = burst_instance(10, [(0, 6), (0, 7)])
    assert chain_bound(inst).value == 15
    # reached: (0,6) at 0 completes at 6 holding 6; (0,7) started at 2 holds 4 then: 10 <= M
    assert brute_force_opt(inst).tel == 15


@settings(max_examples=60)
@given(big_heavy_bursts())
def test_chain_bound_is_below_opt_for_every_subset(inst):
    bounds = chain_subset_bounds(inst)
    assert bounds is not None and bounds.size == 2 ** inst.n and bounds[0] == 0
    for size in range(1, inst.n + 1):
        for subset in itertools.combinations(range(inst.n), size):
            part = Instance(inst.memory, [inst.requests[i] for i in subset])
            mask = sum(1 << i for i in subset)
            assert bounds[mask] <= brute_force_opt(part).tel, (subset, bounds[mask])


@settings(max_examples=40)
@given(big_heavy_bursts())
def test_chain_bound_dominates_the_completion_order_bound(inst):
    # every term c_k takes the max with o and the prefix volume, and any order's prefix
    # volumes are at least the sorted prefix sums: so it is never below Prop. 3.1's refinement
    assert chain_bound(inst).value >= completion_order_bound(inst).value


def test_not_offered_with_arrivals_or_too_many_requests():
    online = Instance(10, [Request("a", 0, 1, 3), Request("b", 2, 1, 3)])
    assert chain_bound(online) is None and chain_subset_bounds(online) is None
    many = burst_instance(10 * CHAIN_MAX_N, [(0, 1)] * (CHAIN_MAX_N + 1))
    assert chain_subset_bounds(many) is None
    # too many for one table: the split bound; 21 one-step requests that all fit at once
    # have OPT = 21, and both parts' bounds count one step per request
    split = chain_bound(many)
    assert "split" in split.source and split.value == CHAIN_MAX_N + 1
    assert chain_bound(Instance(5, [])).value == 0


def test_best_lower_bound_with_chain_is_at_least_without():
    inst = generate("burst", n=10, seed=1)
    plain, strong = best_lower_bound(inst), best_lower_bound(inst, chain=True)
    assert strong.value >= plain.value
    assert strong.value == max(plain.value, chain_bound(inst).value)


@pytest.mark.slow
def test_chain_bound_on_generated_instances_is_valid_and_stronger():
    # n = 10 is solved exactly in about a second; the chain bound must stay below it and, on
    # these instances with many peaks above M/2, beat the cheap bounds
    for seed in range(3):
        inst = generate("burst", n=10, seed=seed)
        result = solve_opt(inst, time_limit=60)
        assert result.status == "optimal"
        assert chain_bound(inst).value <= result.tel
        assert chain_bound(inst).value > best_lower_bound(inst).value


@settings(max_examples=25)
@given(big_heavy_bursts(max_n=4))
def test_windows_with_the_chain_bound_keep_an_optimal_schedule(inst):
    opt = brute_force_opt(inst)
    windows = start_windows(inst, opt.tel)
    # every optimal schedule lies inside the windows (timeindexed.py), this one included
    starts = [opt.starts[r.id] for r in inst.requests]
    assert all(lo <= x <= hi for x, (lo, hi) in zip(starts, windows)), (windows, starts)


@settings(max_examples=40)
@given(big_heavy_bursts(max_n=6))
def test_split_bound_is_below_opt(inst):
    # force the split path (tables of at most 3 requests) on instances brute force can solve
    from geosched.reference_impl.opt import chain as chain_module

    saved = chain_module.CHAIN_MAX_N
    chain_module.CHAIN_MAX_N = 3
    try:
        bound = chain_module.chain_bound(inst)
    finally:
        chain_module.CHAIN_MAX_N = saved
    assert bound is not None
    if inst.n > 3:
        assert "split" in bound.source
    assert bound.value <= brute_force_opt(inst).tel


@settings(max_examples=60)
@given(big_heavy_bursts(max_n=6), st.sampled_from(["fcfs", "sjf", "svf"]), st.booleans())
def test_big_no_overlap_intervals_are_disjoint_in_feasible_schedules(inst, policy, backfill):
    # the implied constraint of the cpsat-completion model, on simulator and brute-force schedules
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.opt.cpsat import big_separation_spans
    from geosched.reference_impl.simulation import simulate

    spans = big_separation_spans(inst)
    for starts in (simulate(inst, policy, backfill=backfill).starts, brute_force_opt(inst).starts):
        assert check_schedule(inst, starts).feasible
        occupied = []
        for i, (before, after) in spans.items():
            done = starts[inst.requests[i].id] + inst.requests[i].output
            occupied.append((done - before, done + after))
        occupied.sort()
        for (_, end), (start, _) in zip(occupied, occupied[1:]):
            assert end <= start, (occupied, starts)


def test_big_separation_spans_by_hand():
    # M = 10 (M1 = M2 = 5); big: (1, 8) peak 9 and (2, 5) peak 7; (0, 3) peak 3 is not big.
    # s* = 2: a = p - 5, b = min(p - 5, 5 - 2): (1, 8) -> (4, 3); (2, 5) -> (2, 2)
    inst = burst_instance(10, [(1, 8), (0, 3), (2, 5)])
    from geosched.reference_impl.opt.cpsat import big_separation_spans

    assert big_separation_spans(inst) == {0: (4, 3), 2: (2, 2)}


def test_highs_root_bound_step_proves_a_small_instance():
    # the README instance: HiGHS solves the tight-window program outright, so the step returns
    # the optimum as bound and its schedule (TEL 9, worked by hand in test_opt.py)
    from geosched.reference_impl.opt.solve import _with_milp_bound

    inst = burst_instance(12, [(6, 3), (1, 5)])
    raw = {"starts": None, "dual_bound": None, "message": "search stopped"}
    out = _with_milp_bound(inst, raw, incumbent_tel=13, time_limit=10)
    assert out["dual_bound"] == 9
    assert sum(out["starts"][r.id] + r.output for r in inst.requests) == 9
    assert "HiGHS root bound 9" in out["message"]


@pytest.mark.slow
def test_highs_root_bound_step_stays_below_the_optimum():
    from geosched.reference_impl.opt import heuristic_schedule
    from geosched.reference_impl.opt.solve import _with_milp_bound

    inst = generate("burst", n=10, seed=0)
    reference = solve_opt(inst, method="cpsat", time_limit=300)  # the cumulative model's own proof
    assert reference.status == "optimal"
    starts = heuristic_schedule(inst)
    heuristic_tel = sum(starts[r.id] + r.output for r in inst.requests)
    out = _with_milp_bound(inst, {"starts": None, "dual_bound": None, "message": ""}, heuristic_tel, time_limit=3)
    assert "HiGHS root bound" in out["message"]
    assert out["dual_bound"] is None or out["dual_bound"] <= reference.tel
