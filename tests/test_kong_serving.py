"""Kong et al.'s throughput, fairness and memory-intensive rows (verify/kong_serving.py): the metrics by hand,
the word rule with every sub-comparison in the message, the long-prompt workload's load, the ledger wiring."""

from __future__ import annotations

import math

import pytest

from geosched.reference_impl.model import Request
from geosched.verify import kong_serving as ks
from geosched.verify.empirical import seed_interval


def test_run_metrics_by_hand():
    # three requests; completions give latencies 4, 3, 10 steps (outputs 2, 3, 5): waits 2, 0, 5
    requests = [Request("a", 0, 10, 2), Request("b", 1, 1, 3), Request("c", 2, 100, 5)]
    m = ks.run_metrics(requests, {"a": 4, "b": 4, "c": 12}, horizon=8)
    assert m["requests_per_step"] == pytest.approx(2 / 8)  # a and b done by step 8
    assert m["tokens_per_step"] == pytest.approx((2 + 3 + 1) / 8)  # c started at 7: one token by step 8
    assert m["mean_latency_s"] == pytest.approx((4 + 3 + 10) / 3 * 0.025)
    assert m["max_wait_s"] == pytest.approx(5 * 0.025) and m["starved"] == 0
    assert m["top_volume_slowdown"] == pytest.approx(10 / 5)  # c has the largest volume; its slowdown 2
    assert m["top_output_slowdown"] == pytest.approx(2.0)
    assert m["jain_slowdown"] == pytest.approx((2 + 1 + 2) ** 2 / (3 * (4 + 1 + 4)))


def test_starvation_threshold_is_sixty_seconds():
    steps = int(ks.STARVATION_SECONDS / 0.025)
    requests = [Request("a", 0, 1, 1), Request("b", 0, 1, 1)]
    m = ks.run_metrics(requests, {"a": steps + 1, "b": steps + 2}, horizon=1)  # waits: steps, steps + 1
    assert m["starved"] == 1


def _entries(values: dict[str, list[float]], metric: str) -> list[dict]:
    seeds = len(next(iter(values.values())))
    return [{"metrics": {p: {metric: v[k]} for p, v in values.items()}} for k in range(seeds)]


def test_word_follows_every_sub_comparison():
    base = {"setup": {"seeds": 3}}
    better = dict(base, trace={"1.0": _entries({"svf": [2.0, 2.1, 2.2], "sjf": [1.0, 1.0, 1.1]}, "tokens_per_step")})
    outcome = ks._outcome("x", better, "trace", [("tokens_per_step", "sjf", True)])
    assert outcome["status"] == "reproduced" and outcome["comparisons"][0]["result"] == "better"
    assert "u=1 tokens/step vs SJF +" in outcome["detail"] and "] better" in outcome["detail"]
    mixed = dict(base, trace={"0.8": _entries({"svf": [1.0, 1.0, 1.0], "sjf": [1.0, 1.1, 0.9]}, "max_wait_s"),
                              "1.2": _entries({"svf": [1.0, 1.1, 1.0], "sjf": [2.0, 2.0, 2.1]}, "max_wait_s")})
    outcome = ks._outcome("x", mixed, "trace", [("max_wait_s", "sjf", False)])
    assert [c["result"] for c in outcome["comparisons"]] == ["tie", "better"] and outcome["status"] == "partly"
    assert outcome["detail"].count("max wait vs SJF") == 2
    worse = dict(base, trace={"1.0": _entries({"svf": [3.0, 3.1, 3.2], "sjf": [1.0, 1.1, 1.0]}, "max_wait_s")})
    assert ks._outcome("x", worse, "trace", [("max_wait_s", "sjf", False)])["status"] == "not_reproduced"
    assert ks.word(["tie", "tie"]) == "not_reproduced"
    # a significantly worse sub-comparison is the opposite of the claim measured: never "partly"
    both = dict(base, trace={"0.8": mixed["trace"]["1.2"], "1.2": worse["trace"]["1.0"]})
    outcome = ks._outcome("x", both, "trace", [("max_wait_s", "sjf", False)])
    assert [c["result"] for c in outcome["comparisons"]] == ["better", "worse"]
    assert outcome["status"] == "not_reproduced" and "better in 1, worse in 1 of 2" in outcome["summary"]


def test_interval_over_seeds():
    iv = seed_interval([0.1, 0.1, 0.1])
    assert (iv.low, iv.high, iv.result) == (pytest.approx(0.1), pytest.approx(0.1), "better")
    with pytest.raises(ValueError):
        seed_interval([0.3])
    assert seed_interval([-0.2, -0.21, -0.19]).result == "worse"
    assert seed_interval([-0.2, -0.1, -0.3]).result == "tie"  # 3 seeds: t = 4.30, the interval reaches 0


def test_long_prompt_workload_same_memory_same_load():
    window = [Request(f"r{k}", 3 * k, 100 + 50 * (k % 4), 5 + k % 7) for k in range(40)]
    load = 1.0
    trace, span = ks._instance(window, load, long_prompt=False)
    long_, horizon = ks._instance(window, load, long_prompt=True)
    assert long_.memory == max(trace.memory, max(r.peak for r in long_.requests))
    for short, longer in zip(trace.requests, long_.requests):
        assert longer.prompt == min(short.prompt * ks.PROMPT_FACTOR, ks.CONTEXT - short.output)
        assert longer.output == short.output
    offered = sum(r.volume for r in long_.requests) / (horizon * long_.memory)
    assert offered == pytest.approx(load, rel=0.05)  # arrivals stretched: the same offered load
    assert max(r.peak for r in long_.requests) / long_.memory > max(r.peak for r in trace.requests) / trace.memory


def test_rows_without_trace_or_in_quick_are_not_run(monkeypatch):
    from geosched.reference_impl import workloads
    from geosched.verify.ledger import run_claims

    monkeypatch.setattr(workloads, "default_trace_path", lambda: None)
    result = run_claims(["kong.emp.throughput", "kong.emp.fairness", "kong.emp.memory_intensive"])
    assert {c.status for c in result.claims} == {"not_run"}
    assert all("trace" in c.evidence[0].message for c in result.claims)
    quick = run_claims(["kong.emp.fairness"], mode="quick").claims[0]
    assert quick.status == "not_run" and "--quick" in quick.evidence[0].message


@pytest.mark.trace
def test_rows_on_the_trace(monkeypatch, trace_path):
    """A small run of the three rows: every sub-comparison is in the message with its interval and result."""
    from geosched.verify.ledger import run_claims

    monkeypatch.setitem(ks.SETUPS, "default", ks.ServingSetup(2, 60, (1.0,)))
    result = run_claims(["kong.emp.throughput", "kong.emp.fairness", "kong.emp.memory_intensive"])
    expected = {"kong.emp.throughput": 2, "kong.emp.fairness": 6, "kong.emp.memory_intensive": 3}
    for claim in result.claims:
        (evidence,) = claim.evidence
        assert claim.status in ("reproduced", "partly", "not_reproduced")
        comparisons = evidence.data["comparisons"]
        assert len(comparisons) == expected[claim.id]
        for c in comparisons:
            assert f"[{c['low']:+.1%}, {c['high']:+.1%}] {c['result']}" in evidence.message
        assert claim.status == ks.word([c["result"] for c in comparisons])
    fairness = result.claims[1].evidence[0].message
    assert "Jain's index" in fairness and all(f"{name} " in fairness for name in ("FCFS", "1-bit SVF", "Oracle-SJF"))
    long_ = result.claims[2].evidence[0].data["means"]["1.0"]
    assert set(long_) == {*ks.LONG_POLICIES, "alpha"} and not math.isnan(long_["alpha"])
