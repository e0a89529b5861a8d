"""The schedule checker: accepts feasible schedules, rejects crafted infeasible ones."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance


def brute_usage(instance, starts, step):
    """Tokens held at ``step``, straight from the definition."""
    return sum(
        r.prompt + step - starts[r.id]
        for r in instance.requests
        if starts[r.id] < step <= starts[r.id] + r.output
    )


def test_readme_instance_feasible_and_metrics():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    report = check_schedule(inst, {"r0": 0, "r1": 1})
    assert report.feasible
    # r0 runs steps 1..3 and finishes at 3; r1 runs 2..6 and finishes at 6: TEL 3 + 6
    assert report.metrics.tel == 9
    assert report.metrics.makespan == 6
    # step 3: r0 holds 6+3 = 9, r1 holds 1+2 = 3 -> 12 = M exactly
    assert report.metrics.peak_memory == 12
    assert report.metrics.latencies == {"r0": 3, "r1": 6}
    assert report.metrics.mean_wait == 0.5
    assert report.metrics.throughput == pytest.approx(8 / 6)


def test_memory_violation_step_and_amount():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    report = check_schedule(inst, {"r0": 0, "r1": 0})
    # both start at 0: step 1 -> 7+2 = 9, step 2 -> 8+3 = 11, step 3 -> 9+4 = 13 > 12
    assert not report.feasible
    v = report.first_violation
    assert (v.kind, v.step, v.amount, v.request_ids) == ("memory", 3, 1, ("r0", "r1"))


def test_violation_inside_a_piece():
    # one request alone cannot violate; three identical (0, 4) started together:
    # usage 3t at steps 1..4 with M = 7 -> first step with 3t > 7 is t = 3 (9 tokens, 2 over)
    inst = burst_instance(7, [(0, 4)] * 3)
    v = check_schedule(inst, {"r0": 0, "r1": 0, "r2": 0}).first_violation
    assert (v.step, v.amount) == (3, 2)


def test_early_start_and_structural_errors():
    inst = Instance(10, [Request("a", 3, 1, 2), Request("b", 0, 1, 1)])
    report = check_schedule(inst, {"a": 1, "b": 0})
    assert [v.kind for v in report.violations] == ["early_start"]
    assert report.violations[0].amount == 2 and report.violations[0].step == 1
    report = check_schedule(inst, {"a": 3})
    assert report.violations[0].kind == "missing_start" and report.metrics is None
    report = check_schedule(inst, {"a": 3, "b": 0, "zz": 1})
    assert report.violations[0].kind == "unknown_id"
    report = check_schedule(inst, {"a": 3.5, "b": 0})
    assert report.violations[0].kind == "not_integer"


def test_evicted_segments_count_towards_memory():
    inst = burst_instance(10, [(4, 3), (4, 3)])
    # sequential is fine: r0 steps 1..3, r1 steps 4..6
    assert check_schedule(inst, {"r0": 0, "r1": 3}).feasible
    # an evicted run of r1 over steps 1..2 (5, 6 tokens) overlaps r0 (5, 6): 12 > 10 at step 2
    report = check_schedule(inst, {"r0": 0, "r1": 3}, evicted_segments=[("r1", 0, 2)])
    assert report.first_violation.step == 2 and report.first_violation.amount == 2


schedules = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 5)), min_size=n, max_size=n),
        st.lists(st.integers(0, 12), min_size=n, max_size=n),
    )
)


@given(schedules)
def test_checker_matches_the_definition(data):
    rows, starts_list = data
    inst = Instance(30, [Request(f"r{k}", a, s, o) for k, (a, s, o) in enumerate(rows)])
    starts = {f"r{k}": x for k, x in enumerate(starts_list)}
    report = check_schedule(inst, starts)
    horizon = max(starts[r.id] + r.output for r in inst.requests)
    usage = [brute_usage(inst, starts, t) for t in range(horizon + 1)]
    assert np.array_equal(report.memory_profile(), np.array(usage))
    assert report.memory_at(horizon) == usage[horizon]
    memory_bad = [t for t, u in enumerate(usage) if u > inst.memory]
    early = [r.id for r in inst.requests if starts[r.id] < r.arrival]
    assert report.feasible == (not memory_bad and not early)
    memory_violations = [v for v in report.violations if v.kind == "memory"]
    if memory_bad:
        assert memory_violations[0].step == memory_bad[0]
        assert memory_violations[0].amount == usage[memory_bad[0]] - inst.memory
    else:
        assert not memory_violations
    assert report.metrics.peak_memory == max(usage)
    assert report.metrics.tel == sum(starts[r.id] + r.output - r.arrival for r in inst.requests)
