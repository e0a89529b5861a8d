"""The offline optimum: brute force == MILP == CP-SAT, hand-worked optima, honest limits."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.errors import GeoschedError, UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.opt import (
    METHODS,
    OptResult,
    best_lower_bound,
    brute_force_opt,
    heuristic_schedule,
    solve_opt,
)
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.workloads import generate
from geosched.testing import instances

SOLVER_METHODS = [m for m in METHODS if m not in ("auto", "brute")]
README = burst_instance(12, [(6, 3), (1, 5)])


def tiny_instances(max_n: int = 4, max_len: int = 5, burst: bool | None = None):
    return instances(max_n=max_n, max_prompt=max_len, max_output=max_len, burst=burst)


def naive_opt(instance: Instance) -> int:
    """Every start vector in the windows ``a_i + [0, UB - sum o]`` (UB: one request at a time,
    in input order), judged by the checker alone."""
    clock, serial_tel = 0, 0
    for r in instance.requests:
        clock = max(clock, r.arrival) + r.output
        serial_tel += clock - r.arrival
    slack = serial_tel - sum(r.output for r in instance.requests)
    best = serial_tel
    ranges = [range(r.arrival, r.arrival + slack + 1) for r in instance.requests]
    for combo in itertools.product(*ranges):
        starts = {r.id: x for r, x in zip(instance.requests, combo)}
        tel = sum(x + r.output - r.arrival for r, x in zip(instance.requests, combo))
        if tel < best and check_schedule(instance, starts).feasible:
            best = tel
    return best


def assert_feasible(instance: Instance, result: OptResult) -> None:
    report = check_schedule(instance, result.starts)
    assert report.feasible, report.first_violation
    assert report.metrics.tel == result.tel


# --- hand-worked instances -------------------------------------------------------------

def test_readme_instance_opt_is_9_and_svf_is_13():
    # r0 = (s 6, o 3) at 0 holds 7, 8, 9 at steps 1-3; r1 = (1, 5) at 1 holds 2..6 at steps
    # 2-6: step 3 has 9 + 3 = 12 <= 12. TEL = 3 + (1 + 5) = 9. Both at 0 would hold 9 + 4 = 13
    # at step 3, so some request waits >= 1 and TEL >= 3 + 5 + 1 = 9. SVF starts r1 (volume
    # 20 < 24) first; r0 fits only at 5: TEL = 5 + (5 + 3) = 13.
    svf = simulate(README, "svf")
    assert check_schedule(README, svf.starts).metrics.tel == 13
    for method in METHODS:
        result = solve_opt(README, method=method, time_limit=20)
        assert result.status == "optimal", (method, result)
        assert result.tel == 9 and result.dual_bound == 9
        assert result.starts == {"r0": 0, "r1": 1}
        assert result.gap == 0.0


def test_online_instance_by_hand():
    # M = 8. a: arrival 0, (3, 3): 4, 5, 6 at steps 1-3 when started at 0. b: arrival 1,
    # (2, 3): 3, 4, 5. b at 1 -> step 3 holds 6 + 4 = 10; b at 2 -> step 3 holds 6 + 3 = 9;
    # b at 3 fits (a is done): TEL = 3 + 5 = 8. TEL 6 or 7 would need (a0, b1), (a0, b2) or
    # (a1, b1) (step 3: 5 + 4 = 9): all infeasible. So OPT = 8 with a at 0, b at 3.
    inst = Instance(8, [Request("a", 0, 3, 3), Request("b", 1, 2, 3)])
    assert naive_opt(inst) == 8
    for method in METHODS:
        result = solve_opt(inst, method=method, time_limit=20)
        assert (result.status, result.tel, result.starts) == ("optimal", 8, {"a": 0, "b": 3}), method


def test_empty_and_single_request():
    assert solve_opt(Instance(5, [])).tel == 0
    assert brute_force_opt(Instance(5, [])).tel == 0
    single = Instance(5, [Request("x", 7, 2, 3)])
    for method in METHODS:
        result = solve_opt(single, method=method)
        assert (result.status, result.tel, result.starts) == ("optimal", 3, {"x": 7})


# --- cross-checks ---------------------------------------------------------------------

@settings(max_examples=30)
@given(tiny_instances(max_n=3, max_len=3))
def test_brute_force_equals_naive_enumeration(inst):
    result = brute_force_opt(inst)
    assert result.status == "optimal"
    assert_feasible(inst, result)
    assert result.tel == naive_opt(inst)


@settings(max_examples=30)
@given(tiny_instances(max_n=3, max_len=3), st.sampled_from([2, 3, 4]))
def test_brute_force_at_block_grain_equals_naive_enumeration(inst, block):
    # the naive enumeration judges by the checker, which counts whole blocks of the instance's block_size
    inst = Instance(block * -(-inst.memory // block), inst.requests, block)
    result = brute_force_opt(inst)
    assert result.status == "optimal"
    assert_feasible(inst, result)
    assert result.tel == naive_opt(inst) >= naive_opt(inst.with_block_size(1))


@settings(max_examples=40)
@given(tiny_instances(burst=True))
def test_brute_milp_cpsat_agree_burst(inst):
    _agree(inst)


@settings(max_examples=40)
@given(tiny_instances(burst=False))
def test_brute_milp_cpsat_agree_online(inst):
    _agree(inst)


def _agree(inst: Instance) -> None:
    exact = brute_force_opt(inst)
    assert exact.status == "optimal"
    assert_feasible(inst, exact)
    for method in SOLVER_METHODS:
        result = solve_opt(inst, method=method, time_limit=20)
        assert result.status == "optimal", (method, result)
        assert result.tel == exact.tel, (method, result, exact)
        assert_feasible(inst, result)


def test_medium_instance_methods_agree():
    # n = 6 from the Jaillet-style generator with the memory fixed small (contention)
    inst = generate("burst", n=6, seed=3, memory=16, s_max=3)
    exact = brute_force_opt(inst)
    assert exact.status == "optimal"
    for method in METHODS:  # every formulation, the default (auto) included
        result = solve_opt(inst, method=method, time_limit=60)
        assert result.status == "optimal" and result.tel == exact.tel, (method, result)


def _usage(inst: Instance, starts: dict[str, int]) -> dict[int, int]:
    """Tokens held at every step, summed by hand from the definition (s_i + t - x_i on x_i < t <= C_i)."""
    usage: dict[int, int] = {}
    for r in inst.requests:
        for t in range(starts[r.id] + 1, starts[r.id] + r.output + 1):
            usage[t] = usage.get(t, 0) + r.prompt + t - starts[r.id]
    return usage


@settings(max_examples=80)
@given(tiny_instances(max_n=5, max_len=6), st.lists(st.integers(0, 8), min_size=5, max_size=5))
def test_memory_peaks_at_a_completion_step(inst, delays):
    # the claim behind the cpsat-completion model, for any start vector (feasible or not)
    starts = {r.id: r.arrival + d for r, d in zip(inst.requests, delays)}
    usage = _usage(inst, starts)
    completions = {starts[r.id] + r.output for r in inst.requests}
    assert max(usage.values()) == max(usage[t] for t in completions)


@settings(max_examples=60)
@given(tiny_instances(max_n=5, max_len=6), st.sampled_from(["fcfs", "sjf", "svf"]), st.booleans())
def test_pairwise_separation_holds_in_feasible_schedules(inst, policy, backfill):
    # C_i <= C_j  =>  C_j - C_i >= min(o_j, p_i + p_j - M), on simulator and brute-force schedules
    for starts in (simulate(inst, policy, backfill=backfill).starts, brute_force_opt(inst).starts):
        assert check_schedule(inst, starts).feasible
        done = {r.id: starts[r.id] + r.output for r in inst.requests}
        for a, b in itertools.permutations(inst.requests, 2):
            if done[a.id] <= done[b.id]:
                overlap = a.prompt + a.output + b.prompt + b.output - inst.memory
                assert done[b.id] - done[a.id] >= min(b.output, overlap), (a, b, starts)


def test_completion_model_proves_a_generated_instance():
    # n = 8: the heuristic is not optimal here, so the model itself must prove the optimum;
    # the reference value comes from the independent cumulative model and the HiGHS MILP
    inst = generate("burst", n=8, seed=1)
    results = {m: solve_opt(inst, method=m, time_limit=60) for m in ("cpsat-completion", "cpsat", "milp")}
    assert all(r.status == "optimal" for r in results.values()), results
    assert len({r.tel for r in results.values()}) == 1, results
    assert "CP-SAT OPTIMAL" in results["cpsat-completion"].message  # not settled by the bound alone
    assert_feasible(inst, results["cpsat-completion"])


# --- heuristic, warm start, honesty ---------------------------------------------------

@settings(max_examples=30)
@given(tiny_instances(max_n=5))
def test_heuristic_is_feasible_and_no_worse_than_the_policies(inst):
    starts = heuristic_schedule(inst)
    report = check_schedule(inst, starts)
    assert report.feasible
    for policy in ("fcfs", "sjf", "svf"):
        for backfill in (False, True):
            policy_tel = check_schedule(inst, simulate(inst, policy, backfill=backfill).starts).metrics.tel
            assert report.metrics.tel <= policy_tel


def test_time_limit_is_honest():
    inst = generate("burst", n=20, seed=0)
    heuristic_tel = check_schedule(inst, heuristic_schedule(inst)).metrics.tel
    assert heuristic_tel > best_lower_bound(inst).value  # not trivially optimal
    for method in ("cpsat", "cpsat-completion", "milp"):
        result = solve_opt(inst, method=method, time_limit=0.5)
        assert result.status == "time_limit", result
        assert result.dual_bound is not None and result.dual_bound <= result.tel
        assert result.dual_bound >= best_lower_bound(inst).value
        assert result.gap > 0
        assert_feasible(inst, result)
        assert result.tel <= heuristic_tel
    data = result.to_dict()
    assert set(data) == {"status", "success", "tel", "dual_bound", "gap", "starts", "wall_time", "method", "message"}
    assert data["success"] is False  # a time limit is not a proof


def test_brute_force_node_limit_is_honest():
    inst = generate("burst", n=7, seed=1, memory=20, s_max=3)
    result = brute_force_opt(inst, node_limit=3)
    assert result.status in ("time_limit", "no_solution")
    assert result.dual_bound <= (result.tel if result.tel is not None else math.inf)
    if result.starts is not None:
        assert_feasible(inst, result)


def test_warm_start_used_and_bad_warm_start_ignored():
    good = solve_opt(README, warm_start={"r0": 0, "r1": 1})
    assert good.status == "optimal" and good.tel == 9
    bad = solve_opt(README, warm_start={"r0": 0, "r1": 0})  # 13 tokens at step 3
    assert bad.status == "optimal" and bad.tel == 9
    assert "warm start rejected" in bad.message


def test_progress_line_goes_to_stderr(capsys, monkeypatch):
    monkeypatch.setenv("GEOSCHED_PROGRESS_SECONDS", "0")  # a line at every update: no wait on the clock
    inst = generate("burst", n=8, seed=2)  # heuristic 403 > lower bound 267: a search runs
    result = solve_opt(inst, time_limit=1, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "opt[auto]" in captured.err and "TEL 403" in captured.err
    assert result.tel is not None


# --- bad inputs -------------------------------------------------------------------------

def test_unknown_method_lists_known_ones():
    with pytest.raises(UnknownNameError) as info:
        solve_opt(README, method="gurobi")
    assert "cpsat" in str(info.value) and "milp" in str(info.value)


@pytest.mark.parametrize("limit", [0, -1, float("nan"), float("inf"), "10", True])
def test_bad_time_limit(limit):
    with pytest.raises(ValidationError, match="time_limit"):
        solve_opt(README, time_limit=limit)


@pytest.mark.parametrize("limit", [0, -3, 2.5, True])
def test_bad_node_limit(limit):
    with pytest.raises(ValidationError, match="node_limit"):
        brute_force_opt(README, node_limit=limit)


def test_errors_are_geosched_errors():
    with pytest.raises(GeoschedError):
        solve_opt(README, method="nope")


def test_module_examples_run():
    import doctest

    from geosched.reference_impl import opt
    from geosched.reference_impl.opt import bounds, brute, cpsat, heuristic, result, solve, timeindexed

    for module in (opt, bounds, brute, cpsat, heuristic, result, solve, timeindexed):
        failures, _ = doctest.testmod(module)
        assert failures == 0, module.__name__
