"""Kong et al.'s serving rows (verify/kong_serving.py) on every trace of the trace set: the metrics by hand, the
per-seed statistic of each sub-comparison, the verdict predicate, the memory-intensive readings, the ledger rows
on slices of each shared trace taken at run time and on a synthetic trace written in the Mooncake format."""

from __future__ import annotations

import pytest
from synthetic_traces import AZURE, MOONCAKE, mooncake_lines, shared_slice, write_mooncake

from geosched.reference_impl.model import Request
from geosched.verify import kong_serving as ks
from geosched.verify.empirical import across_traces, word

ROWS = ["kong.emp.svf_latency", "kong.emp.onebit", "kong.emp.overhead", "kong.emp.throughput", "kong.emp.fairness",
        "kong.emp.memory_intensive"]


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


def test_the_per_seed_statistic_by_hand():
    cost, competitive = ks.Sub("svf", "mean_latency_s", "sjf"), ks.Sub("svf1", "mean_latency_s", "sjf", margin=0.1)
    gain = ks.Sub("svf", "tokens_per_step", "sjf", higher_is_better=True)
    assert cost.value(8.0, 10.0) == pytest.approx(0.2) and cost.value(12.0, 10.0) == pytest.approx(-0.2)
    assert competitive.value(10.5, 10.0) == pytest.approx(0.05) and competitive.value(11.5, 10.0) < 0
    assert gain.value(12.0, 10.0) == pytest.approx(0.2) and gain.value(8.0, 10.0) == pytest.approx(-0.2)
    assert cost.value(0.0, 0.0) == 0.0 and cost.value(1.0, 0.0) == -1.0  # nothing to beat: never better


def _entries(values: dict[str, list[float]], metric: str) -> list[dict]:
    seeds = len(next(iter(values.values())))
    return [{"metrics": {p: {metric: v[k]} for p, v in values.items()}} for k in range(seeds)]


def test_the_verdict_predicate_names_every_sub_comparison():
    plan = (ks.Sub("svf", "max_wait_s", "sjf"),)
    mixed = {"0.8": _entries({"svf": [1.0, 1.0, 1.0], "sjf": [1.0, 1.1, 0.9]}, "max_wait_s"),
             "1.2": _entries({"svf": [1.0, 1.1, 1.0], "sjf": [2.0, 2.0, 2.1]}, "max_wait_s")}
    verdict = ks.judge(plan, mixed)
    assert [c["result"] for c in verdict["comparisons"]] == ["tie", "better"] and verdict["status"] == "partly"
    assert [c["label"] for c in verdict["comparisons"]] == ["u=0.8 max wait vs SJF", "u=1.2 max wait vs SJF"]
    assert verdict["comparisons"][1]["values"] == pytest.approx([0.5, 0.45, 1 - 1 / 2.1])
    worse = {"1.0": _entries({"svf": [3.0, 3.1, 3.2], "sjf": [1.0, 1.1, 1.0]}, "max_wait_s")}
    both = ks.judge(plan, {"0.8": mixed["1.2"], "1.2": worse["1.0"]})
    assert [c["result"] for c in both["comparisons"]] == ["better", "worse"] and both["status"] == "not_reproduced"
    onebit = ks.judge(ks.PLANS["kong.emp.onebit"][:1], {"1.0": _entries({"svf1": [10.5, 10.4, 10.6],
                                                                         "sjf": [10.0, 10.0, 10.0]},
                                                                        "mean_latency_s")})
    assert onebit["comparisons"][0]["label"] == "u=1 1-bit SVF mean latency vs SJF (+10% allowed)"
    assert onebit["status"] == "reproduced"  # 5% slower is within the 10% the claim allows


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
    from geosched.verify import trace_set
    from geosched.verify.ledger import run_claims

    monkeypatch.setattr(trace_set, "shared_traces", lambda: ())
    result = run_claims(ROWS)
    assert {c.status for c in result.claims} == {"not_run"}
    assert all("no trace" in c.evidence[0].message for c in result.claims)
    quick = run_claims(["kong.emp.fairness"], mode="quick").claims[0]
    assert quick.status == "not_run" and "--quick" in quick.evidence[0].message


def _check_rows(result, labels: list[str], readings: dict[str, str]) -> None:
    """Every row over the given traces: a word per trace in its text, the row's word by the cross-trace rule, every
    sub-comparison with its interval and result in the message, each canary refuted."""
    for claim in result.claims:
        (evidence,) = claim.evidence
        if claim.id == "kong.emp.overhead":
            assert claim.status == "not_run" and all(f"{label}: point" in evidence.message for label in labels)
            continue
        assert claim.status in ("reproduced", "partly", "not_reproduced"), (claim.id, claim.message)
        got = evidence.data["readings"]
        assert [r["trace"] for r in got] == labels
        assert claim.status == across_traces({r["name"]: r["status"] for r in got})
        for r in got:
            assert r["status"] == word([c["result"] for c in r["comparisons"]])
            assert f"{r['name']}: " in claim.message  # the word per trace in the row's text
            for c in r["comparisons"]:
                assert f"{c['label']} {c['mean']:+.1%} [{c['low']:+.1%}, {c['high']:+.1%}] {c['result']}" \
                    in evidence.message
        assert evidence.canary.refuted and not evidence.data["audit"]["findings"]
        if claim.id == "kong.emp.memory_intensive":
            assert [r["name"] for r in got] == [f"{label} ({readings[label]})" for label in labels]


def _small(monkeypatch) -> None:
    monkeypatch.setitem(ks.SETUPS, "default", ks.ServingSetup(2, 60, (1.0,)))


@pytest.mark.trace
def test_rows_on_a_slice_of_each_shared_trace(monkeypatch, tmp_path):
    """Slices of both shared traces, taken at run time: models trained in the run (the shipped ones were trained
    on the whole traces), the Azure slice read as x4 prompts for the memory-intensive row, the Mooncake slice as
    recorded."""
    from geosched.verify.ledger import run_claims

    traces = [shared_slice(AZURE, tmp_path, 500), shared_slice(MOONCAKE, tmp_path, 500)]
    _small(monkeypatch)
    result = run_claims(ROWS, traces=traces)
    labels = ["azure_llm_2023_conv", "mooncake_conversation"]
    _check_rows(result, labels, {labels[0]: "x4 prompts", labels[1]: "as recorded"})
    models = result.claims[0].evidence[0].data["traces"]
    assert all(t["models"].startswith("trained in this run") for t in models)


def test_rows_on_a_synthetic_trace_in_the_mooncake_format(monkeypatch, tmp_path):
    from geosched.verify.ledger import run_claims

    long_ = write_mooncake(tmp_path / "synthetic_long.jsonl", mooncake_lines(400, seed=3))
    short = write_mooncake(tmp_path / "synthetic_short.jsonl", mooncake_lines(400, seed=4, prompt_median=800))
    _small(monkeypatch)
    result = run_claims(ROWS, traces=[long_, short])
    _check_rows(result, ["synthetic_long", "synthetic_short"],
                {"synthetic_long": "as recorded", "synthetic_short": "x4 prompts"})


@pytest.mark.trace
@pytest.mark.slow
def test_the_default_rows_on_both_shared_traces():
    """The ledger's default run of the six rows: the shipped models of each trace, 5 seeded windows of 400."""
    from geosched.reference_impl.workloads import shared_traces, trace_label
    from geosched.verify.ledger import run_claims

    traces = [p for p in shared_traces() if p.name in (AZURE.name, MOONCAKE.name)]
    if len(traces) < 2:
        pytest.skip("the shared Azure and Mooncake traces are needed")
    result = run_claims(ROWS, traces=traces)
    labels = [trace_label(p) for p in traces]
    _check_rows(result, labels, {labels[0]: "x4 prompts", labels[1]: "as recorded"})
    assert all(t["models"] == "shipped" for t in result.claims[0].evidence[0].data["traces"])
    assert result.claims[0].evidence[0].samples == 2 * 5 * 400
