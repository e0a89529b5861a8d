"""The cluster simulator: one code path with the simulator, a seconds clock checked step by step,
the hybrid cost exact over bins, the routers, the empirical predictor, the command."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.cli import main
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.cluster import (
    ClusterState,
    EmpiricalLengthModel,
    HybridCost,
    StepTimeModel,
    make_router,
    simulate_cluster,
    step_time_model,
    time_ordered_split,
)
from geosched.reference_impl.cluster.empirical import serving_split
from geosched.reference_impl.cluster.routers import SageSchedRouter
from geosched.reference_impl.cluster.steptime import replica_models
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.predictors import LengthDistribution, NoisyPredictor, OneBitPredictor
from geosched.reference_impl.simulation import simulate

# ------------------------------------------------------------------ helpers


class FixedKeys:
    """A policy object returning recorded keys (to replay a replica in simulate())."""

    name = "recorded"

    def __init__(self, keys):
        self._keys = keys

    def keys(self, instance, predicted):
        return [self._keys[r.id] for r in instance.requests]

    def parameters(self, predicted):
        return {}


class FixedPredictions:
    name = "recorded"

    def __init__(self, values):
        self._values = values

    def predict(self, instance):
        return np.array([self._values[r.id] for r in instance.requests], dtype=np.int64)


def point_beliefs(predicted_by_id):
    """A distribution source that is a point mass at a given prediction per request."""
    return lambda request: LengthDistribution.point(int(predicted_by_id[request.id]))


def naive_clock(model: StepTimeModel, instance: Instance, starts, restarted):
    """tau_k for k = 0..horizon, summing d_k = c0 + c1 n_k + c2 U_k + c_p P_k step by step from the
    schedule alone (runs: final starts, and the earlier runs of each request that restarted)."""
    by_id = instance.by_id()
    runs = [(starts[r.id], starts[r.id] + r.output, r.prompt) for r in instance.requests]
    runs += [(run.start, run.end, by_id[rid].prompt) for rid, rs in restarted.items() for run in rs[:-1]]
    horizon = max(end for _, end, _ in runs)
    tau = [0.0]
    for k in range(1, horizon + 1):
        active = [(x, s) for x, end, s in runs if x < k <= end]
        used = sum(s + k - x for x, s in active)
        prefill = sum(s for x, _, s in runs if x == k - 1)
        tau.append(tau[-1] + model.c0 + model.c1 * len(active) + model.c2 * used + model.c_prefill * prefill)
    return tau


small_instances = st.integers(1, 7).flatmap(
    lambda n: st.tuples(
        st.integers(6, 24),
        st.lists(st.tuples(st.integers(0, 8), st.integers(0, 10), st.integers(1, 14)), min_size=n, max_size=n),
    )
).map(
    lambda data: Instance(
        data[0],
        [Request(f"q{k}", a, min(s, data[0] - 1), max(1, min(o, data[0] - min(s, data[0] - 1))))
         for k, (a, s, o) in enumerate(data[1])],
    )
)

step_models = st.tuples(st.floats(0.1, 2.0), st.floats(0, 1.0), st.floats(0, 0.2), st.floats(0, 0.5))


# ------------------------------------------------------------------ one code path


@given(small_instances, st.sampled_from(["fcfs", "sjf", "svf", "svf1:theta=4,short_length=2,long_length=8"]),
       st.booleans(), st.sampled_from(["oracle", "noisy", "onebit"]), st.integers(0, 1000))
def test_single_unit_replica_equals_simulate(inst, policy, backfill, predictor_name, seed):
    # the unit-step model: seconds are steps, the cluster is the existing simulator
    predictor = {"oracle": None, "noisy": NoisyPredictor(0.8, seed=seed),
                 "onebit": OneBitPredictor(flip_rate=0.3, seed=seed)}[predictor_name]
    predicted = [r.output for r in inst.requests] if predictor is None else predictor.predict(inst).tolist()
    by_id = {r.id: p for r, p in zip(inst.requests, predicted)}
    expected = simulate(inst, policy, predictor=FixedPredictions(by_id), backfill=backfill)
    result = simulate_cluster(inst.requests, [StepTimeModel.unit(inst.memory)], router="round-robin",
                              local=policy, distribution=point_beliefs(by_id), belief="mean", backfill=backfill)
    (replica,) = result.replicas
    assert replica.starts == expected.starts
    assert replica.restarts == expected.restarts
    assert replica.instance == inst  # arrival steps are the instance's own
    report = check_schedule(inst, expected.starts)
    for r in inst.requests:
        assert result.latencies[r.id] == pytest.approx(report.metrics.latencies[r.id])
    assert result.metrics["tel_steps"] == report.metrics.tel
    assert result.metrics["mean_latency"] == pytest.approx(report.metrics.mean_latency)


@settings(max_examples=40)
@given(small_instances, step_models, st.integers(1, 3), st.sampled_from(["random", "jsq", "sagesched", "least-kv"]),
       st.sampled_from(["fcfs", "svf", "sagesched"]), st.booleans(), st.integers(0, 1000))
def test_every_replica_is_simulate_on_its_own_steps(inst, coefficients, replicas, router, local, noisy, seed):
    # any step-time model, any router: each replica's schedule is simulate() on the instance of the
    # arrival steps it resolved, with the keys and beliefs it used; the clock matches a naive sum
    c0, c1, c2, cp = coefficients
    model = StepTimeModel("toy", c0, c1, c2, cp, inst.memory)
    predicted = (NoisyPredictor(0.8, seed=seed).predict(inst).tolist() if noisy
                 else [r.output for r in inst.requests])
    by_id = {r.id: p for r, p in zip(inst.requests, predicted)}
    result = simulate_cluster(inst.requests, [model] * replicas, router=router, local=local,
                              distribution=point_beliefs(by_id), step_seconds=0.7, seed=seed)
    arrival_seconds = {r.id: r.arrival * 0.7 for r in inst.requests}
    for replica in result.replicas:
        if not replica.requests:
            continue
        again = simulate(replica.instance, FixedKeys(replica.keys), predictor=FixedPredictions(replica.beliefs))
        assert again.starts == replica.starts
        assert again.restarts == replica.restarts
        assert check_schedule(replica.instance, replica.schedule).feasible
        tau = naive_clock(model, replica.instance, replica.starts, replica.runs)
        for r in replica.instance.requests:
            k = r.arrival  # the first step whose time reaches the arrival
            assert tau[k] >= arrival_seconds[r.id] - 1e-9
            assert k == 0 or tau[k - 1] < arrival_seconds[r.id] + 1e-9
            end = tau[replica.starts[r.id] + r.output]
            assert result.latencies[r.id] == pytest.approx(end - arrival_seconds[r.id], rel=1e-9, abs=1e-9)


def test_readme_example_on_one_replica():
    # SVF starts r1 (volume 20) at 0 and r0 (24) at 5: latencies 8 and 5 steps = seconds
    result = simulate_cluster(burst_instance(12, [(6, 3), (1, 5)]).requests, [StepTimeModel.unit(12)],
                              router="jsq", local="svf")
    assert result.replicas[0].starts == {"r0": 5, "r1": 0}
    assert result.latencies == {"r0": 8.0, "r1": 5.0}


def test_seconds_by_hand():
    # one replica, c0 = 1, c1 = 0.5, c2 = 0.1, c_p = 0.01; r0 (s=10, o=2) arrives at 0, r1 (s=0, o=1) at 1.5.
    # step 1: r0 alone holds 11 -> 1 + 0.5 + 1.1 + 0.01*10 (prefill) = 2.7, tau_1 = 2.7 >= 1.5: r1 joins at step 1.
    # step 2: r0 holds 12, r1 holds 1 -> 1 + 1.0 + 1.3 + 0 (r1 has no prompt) = 3.3, tau_2 = 6.0.
    model = StepTimeModel("toy", 1.0, 0.5, 0.1, 0.01, 100)
    requests = [Request("r0", 0, 10, 2), Request("r1", 3, 0, 1)]  # arrival 3 steps of 0.5 s = 1.5 s
    result = simulate_cluster(requests, [model], router="jsq", local="fcfs", step_seconds=0.5)
    assert result.replicas[0].starts == {"r0": 0, "r1": 1}
    assert result.latencies["r0"] == pytest.approx(6.0)
    assert result.latencies["r1"] == pytest.approx(6.0 - 1.5)


# ------------------------------------------------------------------ step-time model and hybrid cost


def test_named_parameter_sets_from_the_published_figures():
    # recomputed by hand from the datasheets and the Llama 3.1 configurations (module docstring)
    a100 = step_time_model("llama-3.1-8b", "A100-80G")
    assert a100.c0 == pytest.approx(2 * 8.03e9 / (0.8 * 2.039e12))
    assert a100.c1 == pytest.approx(2 * 8.03e9 / (0.5 * 312e12)) == a100.c_prefill
    assert a100.c2 == pytest.approx(2 * 32 * 8 * 128 * 2 / (0.8 * 2.039e12))
    assert a100.memory == int((0.9 * 80e9 - 2 * 8.03e9 - 2e9) // 131072)
    h70 = step_time_model("llama-3.1-70b", "H100-80G")
    assert h70.c0 == pytest.approx(2 * 70.6e9 / (4 * 0.8 * 3.35e12))
    assert h70.c2 == pytest.approx(2 * 80 * 8 * 128 * 2 / (4 * 0.8 * 3.35e12))
    assert h70.memory == int((4 * 0.9 * 80e9 - 2 * 70.6e9 - 4 * 2e9) // 327680)
    assert step_time_model("llama-3.1-8b", "H100-80G").c0 < a100.c0  # the faster GPU is faster
    with pytest.raises(UnknownNameError, match="known: A100-80G, H100-80G"):
        step_time_model("llama-3.1-8b", "B200")


def test_isolated_latency_is_the_sum_of_its_steps():
    model = StepTimeModel("toy", 1.0, 0.5, 0.1, 0.01, 100)
    s, o = 7, 4
    by_steps = model.c_prefill * s + sum(model.decode_time(batch=1, kv_tokens=s + k) for k in range(1, o + 1))
    assert model.isolated_latency(s, o) == pytest.approx(by_steps)
    assert StepTimeModel.unit(10).isolated_latency(3, 5) == 5.0


def test_expected_hybrid_cost_is_exact_over_the_bins():
    dist = LengthDistribution((1, 4, 10), (2, 8, 10), (0.25, 0.5, 0.25))
    cost = HybridCost(w_compute=0.003, w_memory=0.0007, flops_per_token=2.0)
    s = 5
    # brute force: every integer length with its probability (uniform inside each bin)
    expected = 0.0
    for lo, hi, p in zip(dist.lows, dist.highs, dist.probabilities):
        for o in range(lo, hi + 1):
            flops = 2.0 * (s + o)
            volume = s * o + (o * o + o) / 2
            expected += p / (hi - lo + 1) * (0.003 * flops + 0.0007 * volume)
    assert cost.expected(s, dist) == pytest.approx(expected, rel=1e-12)
    assert HybridCost(0.003, 0.0007, 2.0, "memory").expected(s, dist) == pytest.approx(
        0.0007 * dist.expected_volume(s))
    assert HybridCost(0.003, 0.0007, 2.0, "compute").expected(s, dist) == pytest.approx(0.006 * (s + dist.mean()))
    with pytest.raises(ValidationError):
        HybridCost(0.1, 0.1, 1.0, "bogus")


def test_cost_weights_come_from_the_bottlenecks():
    model = step_time_model("llama-3.1-8b", "A100-80G")
    cost = HybridCost.from_step_time(model)
    # the request's summed contribution to its iterations: c_p s + c1 o + c2 v
    s, o = 1000, 200
    assert cost.point(s, o) == pytest.approx(model.c_prefill * s + model.c1 * o + model.c2 * (s * o + (o * o + o) / 2))


# ------------------------------------------------------------------ routers


def _state(n, **values):
    state = ClusterState.empty(n)
    for name, seq in values.items():
        getattr(state, name)[:] = [float(v) for v in seq]
    return state


def test_heuristic_routers_by_hand():
    state = _state(3, running=[4, 1, 1], waiting=[0, 2, 0], kv_in_use=[50, 10, 30], memory=[100, 100, 40])
    request = {"prompt": 1, "mean": 2.0, "volume": 4.0, "reserve": 2}
    assert make_router("jsq").choose(state, **request) == 2  # loads 4, 3, 1
    assert make_router("least-kv").choose(state, **request) == 1  # fractions 0.5, 0.1, 0.75
    rr = make_router("round-robin")
    assert [rr.choose(state, **request) for _ in range(4)] == [0, 1, 2, 0]
    draws = [make_router("random", seed=5).choose(state, **request) for _ in range(3)]
    assert len(set(draws)) == 1  # same seed, same first draw
    p2c = make_router("p2c", seed=1)
    picks = [p2c.choose(state, **request) for _ in range(50)]
    assert set(picks) == {1, 2}  # replica 0 has the longest queue: any pair containing it picks the other
    with pytest.raises(UnknownNameError, match="known: jsq"):
        make_router("nope")


def test_sagesched_router_by_hand():
    # two unit replicas, c1 = c2 = 0: cost = 0, own = E[o] * c0, imposed = 0; the faster one (c0 = 0.5) wins
    state = _state(2, c0=[1.0, 0.5], memory=[100, 100], running=[3, 3])
    router = SageSchedRouter()
    assert router.scores(state, prompt=2, mean=4.0, volume=20.0, reserve=6) == [4.0, 2.0]
    assert router.choose(state, prompt=2, mean=4.0, volume=20.0, reserve=6) == 1
    # memory kept under the safety quantile: replica 1 is full, so replica 0 is chosen despite its score
    state.reserved[:] = [10.0, 95.0]
    assert router.choose(state, prompt=2, mean=4.0, volume=20.0, reserve=6) == 0
    # both full: the smallest score including the expected wait, (need - M) / M * remaining / n * step:
    # replica 1 lacks 3 of 100 tokens and must decode 3000 / 3 steps of 0.5 s first: 2 + 15
    state.reserved[:] = [99.0, 95.0]
    state.remaining_tokens[:] = [0.0, 3000.0]
    scores = router.scores(state, prompt=2, mean=4.0, volume=20.0, reserve=6)
    assert scores == [4.0, pytest.approx(17.0)]
    assert router.choose(state, prompt=2, mean=4.0, volume=20.0, reserve=6) == 0
    # with c1 > 0 the imposed delay counts the co-resident requests: (n + w) * c1 * E[o]
    state = _state(2, c1=[0.1, 0.1], memory=[100, 100], running=[5, 0], waiting=[1, 0])
    scores = router.scores(state, prompt=0, mean=4.0, volume=10.0, reserve=4)
    assert scores[0] == pytest.approx(0.4 + 4 * (1 + 0.5) + 6 * 0.4)
    assert scores[1] == pytest.approx(0.4 + 4 * 1)


def test_routing_is_linear_in_the_replicas():
    # O(N): the router computes exactly one score per replica
    for n in (1, 2, 17, 256):
        state = _state(n, memory=[100] * n)
        assert len(SageSchedRouter().scores(state, prompt=1, mean=2.0, volume=3.0, reserve=2)) == n


# ------------------------------------------------------------------ empirical predictor


def test_time_ordered_split_and_no_look_ahead():
    requests = [Request(f"r{k}", a, s, o) for k, (a, s, o) in
                enumerate([(5, 10, 3), (0, 10, 9), (0, 500, 40), (7, 10, 1), (2, 600, 60), (9, 10, 2)])]
    train, serve = time_ordered_split(Instance(1000, requests), 0.5)
    assert [r.id for r in train] == ["r1", "r2", "r4"]  # arrivals 0, 0, 2 (ties by position)
    model = EmpiricalLengthModel.fit(train, prompt_buckets=2, length_bins=3, min_count=1)
    # the served requests' outputs are never read: changing them leaves the fitted predictor unchanged
    split = serving_split(Instance(1000, requests), train_fraction=0.5)
    changed = [Request(r.id, r.arrival, r.prompt, 900 if r.id in {"r0", "r3", "r5"} else r.output) for r in requests]
    assert serving_split(Instance(1000, changed), train_fraction=0.5).distribution == split.distribution
    small, large = model(Request("x", 0, 10, 1)), model(Request("y", 0, 550, 1))
    assert small.mean() < large.mean()
    assert model.counts == (1, 2)  # edge at the median prompt 500: {10} below, {500, 600} above
    # a bucket with too few requests falls back to the whole training part
    coarse = EmpiricalLengthModel.fit(train, prompt_buckets=2, length_bins=3, min_count=2)
    assert coarse.distributions[0] == EmpiricalLengthModel.fit(train, prompt_buckets=1, length_bins=3,
                                                               min_count=1).distributions[0]


# ------------------------------------------------------------------ options, ablations, svf1


def _mixed(n=60, seed=0):
    rng = np.random.default_rng(seed)
    reqs = []
    for k in range(n):
        long_ = rng.random() < 0.2
        o = int(rng.integers(40, 80)) if long_ else int(rng.integers(1, 8))
        reqs.append(Request(f"r{k}", int(k // 3), int(rng.integers(1, 6)), o))
    return reqs


def test_ablations_run_checked_and_change_what_they_say():
    requests = _mixed()
    dist = LengthDistribution((1, 40), (7, 79), (0.8, 0.2))
    models = [StepTimeModel("toy", 1.0, 0.1, 0.01, 0.02, 200)] * 2
    base = simulate_cluster(requests, models, router="sagesched", local="sagesched", distribution=lambda r: dist,
                            belief="quantile")
    assert (base.belief, base.reserve) == ("quantile", "quantile")
    assert set(base.replicas[0].beliefs.values()) | set(base.replicas[1].beliefs.values()) == {dist.quantile(0.9)}
    point = simulate_cluster(requests, models, router="sagesched", local="sagesched", distribution=lambda r: dist,
                             ablation="point")
    assert {b for rep in point.replicas for b in rep.beliefs.values()} == {round(dist.mean())}
    no_safety = simulate_cluster(requests, models, router="sagesched", local="sagesched",
                                 distribution=lambda r: dist, ablation="no-safety")
    assert (no_safety.belief, no_safety.reserve) == ("mean", "mean")
    memory_only = simulate_cluster(requests, models, router="sagesched", local="sagesched",
                                   distribution=lambda r: dist, ablation="memory-only")
    key = next(iter(memory_only.replicas[0].keys.values()))
    r0 = memory_only.replicas[0].instance.requests[0]
    assert key == pytest.approx(0.01 * dist.expected_volume(r0.prompt))
    for result in (base, point, no_safety, memory_only):
        assert all(rep.feasible for rep in result.replicas)
    # mean beliefs under-predict the long requests: they overrun and are preempted; the quantile does not
    assert no_safety.metrics["preemptions"] > 0
    assert base.metrics["preemptions"] <= no_safety.metrics["preemptions"]


def test_sagesched_pairs_admit_like_every_other_pair(monkeypatch):
    """Issue 35: the replica's admission is the same for every pair (the mean of the distribution); SageSched's
    uncertainty is its placement's reserve (the quantile), not an admission rule of its own. Before, SageSched's
    pairs alone admitted by the 0.9 quantile, and the gain row compared two admission rules."""
    from geosched.reference_impl.cluster.routers import SageSchedRouter

    requests = _mixed()
    dist = LengthDistribution((1, 40), (7, 79), (0.8, 0.2))
    models = [StepTimeModel("toy", 1.0, 0.1, 0.01, 0.02, 200)] * 2
    reserves = []
    choose = SageSchedRouter.choose

    def spy(self, state, **request):
        reserves.append(request["reserve"])
        return choose(self, state, **request)

    monkeypatch.setattr(SageSchedRouter, "choose", spy)
    for router, local in (("sagesched", "sagesched"), ("sagesched", "fcfs"), ("jsq", "sagesched"), ("jsq", "fcfs")):
        result = simulate_cluster(requests, models, router=router, local=local, distribution=lambda r: dist)
        assert result.belief == "mean"
        assert {b for rep in result.replicas for b in rep.beliefs.values()} == {round(dist.mean())}
        assert result.reserve == ("quantile" if "sagesched" in (router, local) else "mean")
    assert set(reserves) == {dist.quantile(0.9)}  # the SageSched router placed by the quantile


def test_svf1_online_needs_fixed_parameters():
    requests = _mixed(12)
    with pytest.raises(ValidationError, match="svf1 online"):
        simulate_cluster(requests, [StepTimeModel.unit(200)], router="jsq", local="svf1")
    result = simulate_cluster(requests, [StepTimeModel.unit(200)], router="jsq", local="svf1",
                              svf1_lengths=[1, 2, 3, 50, 60])
    theta, o0, o1 = 3, 2, 55  # median 3; mean of {1, 2, 3} and of {50, 60}
    policy = make_policy(f"svf1:theta={theta},short_length={o0},long_length={o1}")
    for request in result.replicas[0].instance.requests:
        assert result.replicas[0].keys[request.id] == policy.array_keys(
            np.array([request.prompt]), np.array([request.output]))[0]


def test_bad_options():
    requests = _mixed(5)
    unit = [StepTimeModel.unit(200)]
    with pytest.raises(ValidationError, match="ablation"):
        simulate_cluster(requests, unit, ablation="nope")
    with pytest.raises(UnknownNameError, match="local policy"):
        simulate_cluster(requests, unit, local="lifo")
    with pytest.raises(ValidationError, match="smallest M = 5"):
        simulate_cluster(requests, [StepTimeModel.unit(5)])
    with pytest.raises(ValidationError, match="replicas"):
        simulate_cluster(requests, [])
    with pytest.raises(ValidationError, match="c0"):
        StepTimeModel("bad", 0.0, 0.0, 0.0, 0.0, 10)
    assert [m.memory for m in replica_models("2xunit", memory=7)] == [7, 7]
    with pytest.raises(ValidationError, match="--replicas"):
        replica_models("A100-80G")


def test_seconds_and_seed_determinism():
    requests = _mixed(40)
    models = [StepTimeModel("toy", 1.0, 0.1, 0.01, 0.02, 200)] * 3
    a = simulate_cluster(requests, models, router="p2c", local="svf", seed=3)
    b = simulate_cluster(requests, models, router="p2c", local="svf", seed=3)
    assert a.assignment == b.assignment and a.latencies == b.latencies
    assert all(math.isfinite(v) and v > 0 for v in a.latencies.values())


# ------------------------------------------------------------------ the command


def test_cli_table_and_json(capsys):
    args = ["cluster", "burst:n=30,seed=2", "--replicas", "2xunit", "--memory", "60", "--router", "sagesched",
            "--local", "svf", "--train-fraction", "0.5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "router sagesched, local svf" in out and "accepted by the checker" in out
    assert main(args + ["--json", "--seed", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["router"] == "sagesched" and data["n"] == 15 and data["seed"] == 4
    assert len(data["replicas"]) == 2 and all(r["feasible"] for r in data["replicas"])


@pytest.mark.parametrize("spec", ["4xB200", "0xA100-80G", "A100-80G", "2xA100-80G,,", "x4"])
def test_cli_bad_replica_spec_is_one_line(capsys, spec):
    assert main(["cluster", "burst:n=5", "--replicas", spec]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--replicas" in err and "Traceback" not in err


@pytest.mark.trace
def test_trace_slice_on_a_heterogeneous_cluster():
    from geosched.reference_impl.workloads import default_trace_path, read_trace

    path = default_trace_path()
    if path is None:
        pytest.skip("the shared trace is absent")
    instance, _ = read_trace(path, arrivals="online", limit=900)
    split = serving_split(instance, train_fraction=0.3)
    models = replica_models("1xA100-80G,1xH100-80G")
    result = simulate_cluster(split.serve, models, router="sagesched", local="svf", distribution=split.distribution,
                              step_seconds=0.025, speedup=30)
    assert sum(rep.requests for rep in result.replicas) == len(split.serve)
    for replica in result.replicas:
        again = simulate(replica.instance, FixedKeys(replica.keys), predictor=FixedPredictions(replica.beliefs))
        assert again.starts == replica.starts and again.restarts == replica.restarts
    assert result.metrics["mean_latency"] > 0


def test_learned_distributions_plug_in_without_look_ahead():
    pytest.importorskip("torch")
    from geosched.reference_impl.cluster.empirical import learned_distribution

    requests = [Request(f"r{k}", 40 * k, 50 + 97 * (k % 9), 3 + (k * 37) % 400) for k in range(60)]
    instance = Instance(10_000, requests)
    predict = learned_distribution(instance, step_seconds=0.025)
    first = [predict(r) for r in requests]
    assert all(isinstance(d, LengthDistribution) for d in first)
    # the outputs of requests arriving at or after r30 cannot change r30's prediction (nor any earlier one's)
    changed = Instance(10_000, [Request(r.id, r.arrival, r.prompt, 999 if k >= 30 else r.output)
                                for k, r in enumerate(requests)])
    again = learned_distribution(changed, step_seconds=0.025)
    assert [again(r) for r in changed.requests[:31]] == first[:31]
    with pytest.raises(ValidationError, match="train_fraction"):
        learned_distribution(instance, train_fraction=0.5)
    result = simulate_cluster(requests[30:], [StepTimeModel("toy", 1.0, 0.01, 0.001, 0.001, 10_000)] * 2,
                              router="sagesched", local="sagesched", distribution=predict)
    assert all(rep.feasible for rep in result.replicas)
