"""The event-driven simulator: hand-worked examples, the per-step reference, the checker."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.admission import admission_step, earliest_start
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.engine import BlockedInterval
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.predictors import NoisyPredictor
from geosched.reference_impl.simulation import simulate


def tel(instance, starts):
    report = check_schedule(instance, starts)
    assert report.feasible, report.violations
    return report.metrics.tel


def test_readme_instance():
    # volumes: r0 = 6*3 + 6 = 24, r1 = 1*5 + 15 = 20, so SVF starts r1 first. r0 cannot join
    # until r1 is done at 5 (at tau = 4, step 5 would hold r1 6 + r0 7 = 13 > 12): TEL 5 + 8 = 13.
    # FCFS and SJF (o: 3 < 5) start r0 at 0 and r1 at 1 (step 3: 9 + 3 = 12): TEL 3 + 6 = 9.
    inst = burst_instance(12, [(6, 3), (1, 5)])
    assert simulate(inst, "svf").starts == {"r0": 5, "r1": 0}
    assert tel(inst, simulate(inst, "svf").starts) == 13
    assert tel(inst, simulate(inst, "sjf").starts) == 9
    assert tel(inst, simulate(inst, "fcfs").starts) == 9


HAND = Instance(10, [Request("r0", 0, 4, 4), Request("r1", 0, 0, 6), Request("r2", 1, 1, 2)])


def test_hand_worked_three_requests():
    # M = 10; r0 (a0, s4, o4, v26, peak 8), r1 (a0, s0, o6, v21), r2 (a1, s1, o2, v5).
    # FCFS: r0 at 0; r1 needs 8 + (4 - tau) <= 10 at step 4 -> tau = 2; r2 then waits until
    #   step 4 is past (tau = 3 gives 10 + 2 at step 4) -> 4. TEL = 4 + 8 + (6 - 1) = 17.
    # SJF (2 < 4 < 6): r0 at 0; r2 at 1 (step 3: 7 + 3 = 10); r1 at 3 (tau = 2 gives
    #   10 + 1 at step 3). TEL = 4 + 2 + 9 = 15.
    # SVF (5 < 21 < 26): r1 at 0; r0 blocked (step 4: 4 + 8 = 12); r2 at 1 (step 3: 3 + 3);
    #   r0 fails at tau = 2..5 (e.g. tau = 5: step 6 holds 6 + 5 = 11) -> 6. TEL = 6 + 2 + 10 = 18.
    assert simulate(HAND, "fcfs").starts == {"r0": 0, "r1": 2, "r2": 4}
    assert simulate(HAND, "sjf").starts == {"r0": 0, "r1": 3, "r2": 1}
    assert simulate(HAND, "svf").starts == {"r0": 6, "r1": 0, "r2": 1}
    assert [tel(HAND, simulate(HAND, p).starts) for p in ("fcfs", "sjf", "svf")] == [17, 15, 18]


def test_backfill_skips_the_misfit():
    # M = 10; r0 (0, 6) starts at 0 and holds t at step t <= 6. FCFS head r1 (5, 3): its own
    # last step tau + 3 needs (tau + 3) + 8 <= 10 while r0 runs, so tau + 3 > 6; tau = 4, 5
    # fail at step 6 (6 + 7, 6 + 6); tau = 6 fits. Strictly, r2 (0, 2) waits behind r1 and
    # joins at 6 (steps 7, 8 hold 6 + 1, 7 + 2). With backfill r2 starts at 0 (2 + 2 at step 2).
    inst = Instance(10, [Request("r0", 0, 0, 6), Request("r1", 0, 5, 3), Request("r2", 0, 0, 2)])
    assert simulate(inst, "fcfs").starts == {"r0": 0, "r1": 6, "r2": 6}
    assert simulate(inst, "fcfs", backfill=True).starts == {"r0": 0, "r1": 6, "r2": 0}


def test_ties_by_arrival_then_position_never_by_id():
    # equal keys, M = 4 admits one at a time: the order is the position in the instance,
    # whatever the ids say ("r10" sorts before "r2" as a string)
    inst = Instance(4, [Request("b", 0, 1, 3), Request("a", 0, 1, 3), Request("c", 0, 1, 3)])
    assert simulate(inst, "svf").admission_order == ("b", "a", "c")
    inst = Instance(4, [Request("r2", 0, 1, 3), Request("r10", 0, 1, 3)])
    for policy in ("fcfs", "sjf", "svf", "svf1"):
        assert simulate(inst, policy).admission_order == ("r2", "r10")
    inst = Instance(4, [Request("b", 1, 1, 3), Request("a", 0, 1, 3)])
    assert simulate(inst, "svf").admission_order == ("a", "b")


def test_admission_step_and_earliest_start():
    # running r1 (s1, started 0, ends 5) blocks r0 (6, 3) at step 0 (see the README example)
    assert admission_step(12, 0, [(1, 0, 5)], [(6, 3)]) == []
    assert earliest_start(12, [(1, 0, 5)], 6, 3, 0) == 5
    assert admission_step(12, 1, [(6, 0, 3)], [(1, 5)]) == [0]
    # strict stops at the first misfit; backfill continues
    # alone, (6, 4) peaks at 10 = M; (0, 1) beside it holds 7 + 1 at step 1: both fit
    assert admission_step(10, 0, [], [(6, 4), (0, 1), (0, 1)]) == [0, 1, 2]
    assert admission_step(10, 0, [(0, 0, 9)], [(6, 4), (0, 1)]) == []
    assert admission_step(10, 0, [(0, 0, 9)], [(6, 4), (0, 1)], backfill=True) == [1]


small_instances = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.integers(4, 20),
        st.lists(st.tuples(st.integers(0, 6), st.integers(0, 19), st.integers(1, 20)), min_size=n, max_size=n),
    )
).map(
    lambda data: Instance(
        data[0],
        [Request(f"r{k}", a, min(s, data[0] - 1), max(1, min(o, data[0] - min(s, data[0] - 1))))
         for k, (a, s, o) in enumerate(data[1])],
    )
)


@given(small_instances, st.sampled_from(["fcfs", "sjf", "svf", "svf1"]), st.booleans())
def test_exact_lengths_never_evict(inst, policy, backfill):
    result = simulate(inst, policy, backfill=backfill)
    assert result.restarts == 0
    assert check_schedule(inst, result.starts).feasible
    assert result.completions == {r.id: result.starts[r.id] + r.output for r in inst.requests}


def test_wrong_predictions_evict_and_stay_within_memory():
    # r0 is predicted to need 1 step but needs 8; r1 is admitted beside it on that belief.
    inst = burst_instance(10, [(1, 8), (2, 6)])

    class Wrong:
        name = "wrong"

        def predict(self, instance):
            return [1, 6]

    result = simulate(inst, "fcfs", predictor=Wrong())
    assert result.restarts >= 1 and result.lost_tokens >= 1
    assert check_schedule(inst, result.schedule).feasible
    assert not check_schedule(inst, result.starts).metrics.restarts  # the starts alone hide the evicted runs


@given(small_instances.filter(lambda i: i.is_burst or True))
def test_observer_certificate_for_strict_svf_on_bursts(inst):
    inst = Instance(inst.memory, [Request(r.id, 0, r.prompt, r.output) for r in inst.requests])
    seen: list[BlockedInterval] = []
    result = simulate(inst, "svf", observer=seen.append)
    volumes = {r.id: r.volume for r in inst.requests}
    peak_max = max(r.peak for r in inst.requests)
    for interval in seen:
        assert interval.first_step < interval.end_step
        # Kong et al., Lemma A.2: the blocked head sees active peak mass > (1 - alpha) M
        assert interval.running_peak_mass > inst.memory - peak_max
        head = interval.waiting[0]
        assert all(volumes[j] <= volumes[head] for j in interval.running)
    waits = sum(result.starts[r.id] for r in inst.requests)
    assert waits == sum(i.end_step - i.first_step for i in seen for _ in i.waiting)


def test_unknown_names_list_the_known_ones():
    import geosched as gs
    from geosched.reference_impl.scheduler_registry import scheduler_names

    inst = burst_instance(5, [(1, 1)])
    with pytest.raises(UnknownNameError, match="unknown policy 'lifo'; known: ") as info:
        simulate(inst, "lifo")
    assert all(name in str(info.value) for name in (*scheduler_names(), "FILE.py:Class"))  # every one, not 4
    with pytest.raises(UnknownNameError, match="known: learned, noisy, onebit, oracle"):
        gs.simulate(inst, "svf", predictor="psychic")  # names are resolved above the core
    with pytest.raises(ValidationError, match="predictor.*the core simulator takes 'oracle' or a predictor object"):
        simulate(inst, "svf", predictor="noisy")
    with pytest.raises(ValidationError, match="svf1 theta"):
        make_policy("svf1", theta=0)


def test_svf1_default_parameters():
    # outputs 1, 2, 9, 10: median 5.5 -> theta 5; O_0 = mean(1, 2) -> 2 (rounded); O_1 = 10 (9.5 rounds to even)
    inst = burst_instance(40, [(0, 1), (0, 2), (0, 9), (0, 10)])
    result = simulate(inst, "svf1")
    assert result.extra == {"theta": 5, "short_length": 2, "long_length": 10}
    keys = make_policy("svf1").keys(inst, [1, 2, 9, 10])
    assert keys == [3, 3, 55, 55]
    assert make_policy("svf1:theta=1,short_length=1,long_length=4").keys(inst, [1, 2, 9, 10]) == [1, 10, 10, 10]


def test_deterministic():
    inst = Instance(30, [Request(f"r{k}", k % 3, k % 5, 1 + (7 * k) % 11) for k in range(25)])
    assert simulate(inst, "svf", predictor=NoisyPredictor(0.5, seed=3)) == simulate(
        inst, "svf", predictor=NoisyPredictor(0.5, seed=3)
    )
