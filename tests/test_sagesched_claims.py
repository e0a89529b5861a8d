"""SageSched's ledger rows: the status rules on hand-made numbers, the grid's checkpoint, the ledger wiring."""

from __future__ import annotations

import pytest

from geosched.reference_impl.cluster.empirical import serving_split
from geosched.reference_impl.model import Instance, Request
from geosched.verify import sagesched_claims as sc
from geosched.verify.empirical import combine_empirical
from geosched.verify.ledger import Claim, Evidence, combine, run_claims


def _row(router, local, mean, *, ablation=None, cluster="c", load=0.8, goodput=1.0, preemptions=0):
    return {"cluster": cluster, "load": load, "router": router, "local": local, "ablation": ablation,
            "mean_latency": mean, "goodput": goodput, "preemptions": preemptions}


def _grid(sage, best=10.0, ablations=None, **kw):
    rows = [_row(r, loc, best + 1 + k, **kw) for k, (r, loc) in
            enumerate((r, loc) for r in sc.HEURISTIC_ROUTERS for loc in sc.HEURISTIC_LOCALS)]
    rows[7]["mean_latency"] = best  # the best heuristic
    rows.append(_row("sagesched", "sagesched", sage, **kw))
    for name, mean in (ablations or {}).items():
        rows.append(_row("sagesched", "sagesched", mean, ablation=name, **kw))
    return rows


def test_gain_status_rule():
    assert sc.gain_claim(_grid(sage=7.0)).status == "reproduced"  # 30% >= 28.7%
    outcome = sc.gain_claim(_grid(sage=8.0))
    assert outcome.status == "partly" and outcome.data["mean_gain"] == pytest.approx(0.2)
    assert "vs random+svf1" in outcome.message  # the 8th pair is the best heuristic
    assert sc.gain_claim(_grid(sage=10.0)).status == "not_reproduced"
    # every configuration has its own word; the weakest decides (+40% and -10%: not reproduced)
    two = _grid(sage=6.0, cluster="a") + _grid(sage=11.0, cluster="b")
    outcome = sc.gain_claim(two)
    assert outcome.data["mean_gain"] == pytest.approx(0.15) and outcome.status == "not_reproduced"
    assert [c["status"] for c in outcome.data["configurations"]] == ["reproduced", "not_reproduced"]
    assert "a rho=0.8: reproduced" in outcome.message and "b rho=0.8: not reproduced" in outcome.message


def test_gain_reports_the_quantile_trade_offs():
    rows = _grid(sage=8.0)
    for row in rows:
        row["p50_latency"], row["p99_latency"] = row["mean_latency"] / 2, row["mean_latency"] * 3
    rows[-1]["p99_latency"] = 40.0  # SageSched's tail is worse than the best heuristic's (30)
    config = sc.gain_claim(rows).data["configurations"][0]
    assert config["p50_gain"] == pytest.approx(0.2) and config["p99_gain"] == pytest.approx(1 - 40 / 30)
    assert "P99 -33.3%" in sc.gain_claim(rows).message


def test_ablation_status_rule():
    full = 9.0
    good = {"point": 10.0, "memory-only": 10.0, "compute-only": 12.0, "no-safety": 9.0}  # losses 10%, 10%, 25%
    outcome = sc.ablation_claim(_grid(full, ablations=good))
    assert outcome.status == "reproduced"
    assert outcome.data["mean_loss"]["point"] == pytest.approx(0.1)
    far = dict(good, point=18.0)  # 50% loss: positive, not "about 10%"
    assert sc.ablation_claim(_grid(full, ablations=far)).status == "partly"
    none = dict(good, **{"memory-only": 8.0})  # the memory-only cost does better than the hybrid one
    assert sc.ablation_claim(_grid(full, ablations=none)).status == "not_reproduced"


def _cost(reads, value_ops=None, bytecode=None, cpu=None) -> dict[int, dict[str, float]]:
    return {n: {"reads": reads(n), "value_ops": (value_ops or reads)(n), "bytecode": (bytecode or reads)(n),
                "cpu_seconds": (cpu or (lambda m: 1e-6 * m))(n)} for n in (2, 32, 64, 256, 1024)}


def test_routing_status_rule():
    linear = {n: 1e-6 * n for n in (2, 32, 64, 256, 1024)}
    assert sc.fitted_exponent(linear) == pytest.approx(1.0)
    assert sc.routing_claim(_cost(lambda n: 3 * n)).status == "reproduced"
    # any one count growing faster than linearly decides: the word follows the largest exponent
    for count in ("reads", "value_ops", "bytecode"):
        quadratic = _cost(lambda n: 3 * n)
        for n in quadratic:
            quadratic[n][count] = n * n
        outcome = sc.routing_claim(quadratic)
        assert outcome.status == "not_reproduced" and outcome.data["summary"].startswith(count)
    # the CPU time is reported, never judged: a quadratic time leaves the word to the counts
    outcome = sc.routing_claim(_cost(lambda n: 3 * n, cpu=lambda n: 1e-9 * n * n))
    assert outcome.status == "reproduced" and outcome.data["cpu_exponent"] == pytest.approx(2.0)
    assert "CPU time ~ N^2.00, reported, not judged" in outcome.message


def test_routing_counts_operations_not_seconds(monkeypatch):
    sizes = (2, 32, 64, 128)
    first = sc.routing_cost(sizes, requests=2)
    second = sc.routing_cost(sizes, requests=2)
    counts = {n: {k: v for k, v in c.items() if k != "cpu_seconds"} for n, c in first.items()}
    assert counts == {n: {k: v for k, v in c.items() if k != "cpu_seconds"} for n, c in second.items()}  # no clock
    assert sc.routing_claim(first).status == "reproduced"
    assert all(first[n]["reads"] == 12 * n for n in sizes)  # the 10 state lists read once, 2 re-read by choose
    # a router that compares every pair of replicas is caught by the counts
    from geosched.reference_impl.cluster.routers import SageSchedRouter

    honest = SageSchedRouter.scores

    def quadratic(self, state, **request):
        scores = honest(self, state, **request)
        return [s + 0 * sum(1 for _ in scores) for s in scores]

    monkeypatch.setattr(SageSchedRouter, "scores", quadratic)
    assert sc.routing_claim(sc.routing_cost(sizes, requests=2)).status == "not_reproduced"


def test_the_counted_state_counts_reads_and_value_operations_in_c_code():
    reads = [0]
    counted = sc._CountedList([3.0, 1.0, 2.0], reads)
    sc._Counted.counter[0] = 0
    assert sorted(counted) == [1.0, 2.0, 3.0] and reads[0] == 3 and sc._Counted.counter[0] >= 2  # C's sort compares
    assert counted[0] + 1 == 4.0 and isinstance(counted[0] * 2, sc._Counted) and reads[0] == 5
    assert min(counted[1:]) == 1.0 and reads[0] == 7
    import numpy as np

    before = reads[0]
    assert np.asarray(list(counted)).sum() == 6.0 and reads[0] == before + 3


def test_preemption_status_rule():
    rows = _grid(sage=9.0, ablations={"no-safety": 9.0}, preemptions=5)
    rows[-2]["preemptions"] = 1  # SageSched
    assert sc.preemption_claim(rows).status == "reproduced"
    rows[0]["preemptions"] = 0  # one heuristic preempts even less, the best-latency one does not
    assert sc.preemption_claim(rows).status == "partly"
    rows[7]["preemptions"] = 1
    assert sc.preemption_claim(rows).status == "not_reproduced"


def test_combine_empirical_weakest_wins():
    claim = Claim("x", "src", "stmt", "formalization", "difference", ())
    evidence = [Evidence("a", "empirical", "reproduced", "ok"), Evidence("b", "empirical", "partly", "half")]
    status, text, _, note = combine(claim, evidence, {})
    assert (status, text) == ("partly", "partly") and "half" in note
    assert combine(claim, [Evidence("a", "empirical", "not_reproduced", "no")], {})[:2] == ("not_reproduced",
                                                                                          "not reproduced")
    with_numbers = Evidence("a", "empirical", "partly", "detail", data={"summary": "+12.5% vs >= 28.7%"})
    assert combine(claim, [with_numbers], {})[1] == "partly (+12.5% vs >= 28.7%)"
    assert combine_empirical([Evidence("a", "bounded", "checked", "b", bound="n<=3")]) is None


def _tiny_split():
    requests = [Request(f"r{k}", 40 * k, 100 + 37 * (k % 7), 5 + (k * 13) % 60) for k in range(80)]
    return serving_split(Instance(10_000, requests), train_fraction=0.3)


def test_grid_checkpoint_resumes(tmp_path, monkeypatch):
    split = _tiny_split()
    path = tmp_path / "grid.json"
    clusters = {"tiny": "1xA100-80G,1xH100-80G"}
    rows = sc.run_grid(split, clusters, (0.8,), checkpoint=path)
    assert len(rows) == 25 and path.is_file()
    assert all(r["n"] == len(split.serve) for r in rows)

    def boom(*args, **kwargs):
        raise AssertionError("should have come from the checkpoint")

    monkeypatch.setattr(sc, "simulate_cluster", boom)
    assert sc.run_grid(split, clusters, (0.8,), checkpoint=path) == rows


def test_ledger_rows_end_to_end(monkeypatch):
    tiny = sc._Setup(600, {"tiny": "1xA100-80G,1xH100-80G"}, (0.8,), 300, 50_000, (2, 4, 64, 128))
    monkeypatch.setattr(sc, "_DEFAULT", tiny)
    result = run_claims(["sagesched.gain", "sagesched.ablation", "sagesched.routing", "sagesched.preemption"])
    statuses = {c.id: c.status for c in result.claims}
    assert set(statuses.values()) <= {"reproduced", "partly", "not_reproduced", "not_run"}
    assert statuses["sagesched.routing"] in ("reproduced", "not_reproduced")
    routing = next(c for c in result.claims if c.id == "sagesched.routing")
    assert "N^" in routing.evidence[0].message
    gain = next(c for c in result.claims if c.id == "sagesched.gain")
    preemption = next(c for c in result.claims if c.id == "sagesched.preemption")
    # every sub-comparison is named with its own result in the row's text (issue 34: partly lists them)
    assert "held:" in preemption.message and "fewer than the best-latency heuristic" in preemption.message
    traces = sc.shared_traces()
    if traces:  # a word per trace (and the mixed workload), every trace's 25 rows kept
        assert "mean TTLT gain" in gain.evidence[0].message
        assert "gain > 0" in gain.message and "held:" in gain.message
        assert len(gain.evidence[0].data["rows"]) == 25 * len(traces)
        readings = gain.evidence[0].data["readings"]
        assert [sc.trace_label(p) for p in traces] == list(readings)[:len(traces)]
        assert all(f"{label}: " in gain.evidence[0].message for label in readings)
    # each row's canary ran through the row's own claim function and was refuted
    assert all(c.evidence[0].canary is not None and c.evidence[0].canary.refuted for c in result.claims
               if c.status != "not_run")


def test_absent_trace_gives_unknown(monkeypatch):
    tiny = sc._Setup(600, {"tiny": "1xA100-80G"}, (0.8,), 200, 50_000, (2, 4))
    monkeypatch.setattr(sc, "_DEFAULT", tiny)
    monkeypatch.setattr(sc, "shared_traces", lambda: ())
    outcomes = sc.run_sagesched_claims()
    assert outcomes["sagesched.gain"].status == "not_run"
    assert "no trace" in outcomes["sagesched.ablation"].message
    assert outcomes["sagesched.preemption"].status in ("reproduced", "partly", "not_reproduced")

