"""Empirical claims (verify/empirical.py): statuses by hand, the Thm. 3.5 flip penalty against
the theory module's symbolic eps, and the ledger rows on the trace."""

from __future__ import annotations

import pytest
import sympy as sp

from geosched.verify import empirical
from geosched.verify.empirical import EmpiricalEvidence, ScheduleCell, SchedulingTable, combine_empirical


def table(cells: dict[tuple[float, str], tuple[float, float]], seconds=None) -> SchedulingTable:
    """cells: (load, policy) -> (mean, p95), all under the 'learned' predictor."""
    rows = tuple(ScheduleCell(load, 100, "learned", policy, mean, p95, int(mean * 1000), 0, 0)
                 for (load, policy), (mean, p95) in cells.items())
    return SchedulingTable("completed", "", 0.0, rows, 10, "hand", 0.025, 0.5, {}, 0, 1.0, seconds or {})


def grid(values: dict[str, tuple[float, float]], loads=(0.8, 1.0)) -> dict:
    return {(load, policy): v for load in loads for policy, v in values.items()}


def test_svf_lowest_statuses():
    best = grid({"fcfs": (5, 9), "sjf": (4, 8), "svf": (3, 7), "svf1": (4, 8)})
    assert empirical.svf_lowest_latency(table(best)).status == "reproduced"
    tail_lost = grid({"fcfs": (5, 6), "sjf": (4, 8), "svf": (3, 7), "svf1": (4, 8)})
    assert empirical.svf_lowest_latency(table(tail_lost)).status == "partly"
    nowhere = grid({"fcfs": (2, 6), "sjf": (4, 8), "svf": (3, 7), "svf1": (4, 8)})
    assert empirical.svf_lowest_latency(table(nowhere)).status == "not_reproduced"


def test_one_bit_versus_sjf_statuses():
    ok = grid({"fcfs": (9, 9), "sjf": (10, 20), "svf": (9, 9), "svf1": (10.9, 19)})  # +9% mean, lower tail
    assert empirical.one_bit_versus_sjf(table(ok)).status == "reproduced"
    slow = grid({"fcfs": (9, 9), "sjf": (10, 20), "svf": (9, 9), "svf1": (11.2, 19)})  # +12%: not competitive
    assert empirical.one_bit_versus_sjf(table(slow)).status == "partly"
    worse = grid({"fcfs": (9, 9), "sjf": (10, 20), "svf": (9, 9), "svf1": (12, 21)})
    assert empirical.one_bit_versus_sjf(table(worse)).status == "not_reproduced"


def test_partly_names_each_sub_comparison_and_the_tolerance_used():
    slow = grid({"fcfs": (9, 9), "sjf": (10, 20), "svf": (9, 9), "svf1": (11.2, 19)})
    outcome = empirical.one_bit_versus_sjf(table(slow))
    assert outcome.sub == (("mean within 10% of SJF at load 0.8", "failed"), ("P95 below SJF at load 0.8", "held"),
                           ("mean within 10% of SJF at load 1", "failed"), ("P95 below SJF at load 1", "held"))
    # the message and the sub-comparisons name the tolerance actually used, never a fixed "10%"
    loose = empirical.one_bit_versus_sjf(table(slow), tolerance=1.0)
    assert "within 100% of SJF" in loose.message and loose.sub[0][0].startswith("mean within 100%")
    assert loose.status == "reproduced"
    row = {c.id: c for c in empirical.CLAIMS}["kong.emp.onebit"]
    assert f"within {empirical.COMPETITIVE:.0%}" in row.formalization
    assert f"{1 + empirical.COMPETITIVE:.2f}" in row.flips
    text = combine_empirical([EmpiricalEvidence("trace:onebit_vs_sjf", "empirical", outcome.status, outcome.message,
                                                samples=10, data={"sub": list(outcome.sub)})])[1]
    assert text == ("partly on 10 trace requests (2 of 4 held: mean within 10% of SJF at load 0.8 failed, P95 below "
                    "SJF at load 0.8 held, mean within 10% of SJF at load 1 failed, P95 below SJF at load 1 held)")


def test_overhead_is_not_run_whatever_the_cpu_proxy_says():
    # the claim is GPU end-to-end latency of an LLM server: the CPU figures are reported, never a word
    cells = grid({"fcfs": (10, 20), "sjf": (10, 20), "svf": (10, 20), "svf1": (10, 20)}, loads=(1.0,))
    for seconds in ({"point": 5e-3, "onebit": 0.9e-3}, {"point": 7e-3, "onebit": 2e-3}):
        outcome = empirical.predictor_overhead(table(cells, seconds))
        assert outcome.status == "not_run" and "8 x A100" in outcome.message
        assert outcome.numbers["point"]["fraction"] == pytest.approx(seconds["point"] / 10)


def test_onebit_reports_every_load():
    cells = grid({"fcfs": (9, 9), "sjf": (10, 20), "svf": (9, 9), "svf1": (10.5, 19)}, loads=(0.8, 1.0, 1.2))
    message = empirical.one_bit_versus_sjf(table(cells)).message
    assert all(f"load {load}:" in message for load in ("0.8", "1.0", "1.2")) and "x1.050" in message


def test_combine_weakest_outcome_and_other_claims_untouched():
    def ev(status):
        return EmpiricalEvidence("m", "empirical", status, "d", samples=5)

    assert combine_empirical([ev("reproduced"), ev("partly")])[0] == "partly"
    assert combine_empirical([ev("reproduced")])[:2] == ("reproduced", "reproduced on 5 trace requests")
    assert combine_empirical([ev("not_reproduced"), ev("unknown")])[0] == "unknown"
    from geosched.verify.ledger import Evidence

    other = Evidence("m", "proof", "proved", "d")
    assert combine_empirical([other]) is None and combine_empirical([other, ev("reproduced")]) is None
    assert combine_empirical([]) is None


def test_flip_penalty_reduces_to_theorem_eps_and_adds_the_flip_term():
    from geosched.theory.kong_thm3_5 import distortion, mu, o0, o1, q, theta

    for m, t in ((0.2, 3), (0.05, 20), (0.5, 1)):
        subs = {mu: m, q: 1 - m, theta: t}
        eps = float(distortion().subs(subs))  # the theory module's symbolic eps, independently
        gap = float((o1() - o0()).subs(subs))
        p_short = 1 - (1 - m) ** t
        for fs, fl in ((0.0, 0.0), (0.3, 0.1), (1.0, 1.0)):
            got = empirical.one_bit_flip_penalty(m, t, fs, fl)
            assert got["eps"] == pytest.approx(eps)
            assert got["flip_term"] == pytest.approx(0.5 * gap**2 * (p_short * fs + (1 - p_short) * fl))
            assert got["relative"] == pytest.approx(got["total"] / float(sp.Rational(1, 2) * (2 - m) / m**2))


@pytest.mark.trace
@pytest.mark.slow
def test_ledger_rows_on_the_trace(trace_path):
    from geosched.verify.ledger import run_claims

    result = run_claims(["kong.emp.svf_latency", "kong.emp.onebit", "kong.emp.overhead"])
    for claim in result.claims:
        assert claim.status in (("not_run",) if claim.id == "kong.emp.overhead" else
                                ("reproduced", "partly", "not_reproduced"))
        (evidence,) = claim.evidence
        assert evidence.samples == 2000 and evidence.data["numbers"]
    by_id = {c.id: c for c in result.claims}
    link = by_id["kong.emp.onebit"].evidence[0].data["thm3_5_flip_penalty"]
    assert set(link["measured_tel_ratio_learned_over_exact_bits"]) == {"0.8", "1.0", "1.2"}
    assert link["penalty"]["flip_term"] > 0


def test_ledger_rows_without_trace_are_not_run(monkeypatch):
    from geosched.reference_impl import workloads
    from geosched.verify.ledger import run_claims

    monkeypatch.setattr(workloads, "default_trace_path", lambda: None)
    claim = run_claims(["kong.emp.overhead"]).claims[0]
    assert claim.status == "not_run" and "not run" in claim.evidence[0].message


@pytest.mark.trace
def test_ledger_rows_without_torch_are_unknown(monkeypatch, trace_path):
    """A plain `pip install geosched` (no torch) with the trace present: the README's main job
    (`geosched claims`) must still finish; the learned-predictor rows say why they did not run."""
    from geosched.reference_impl import workloads
    from geosched.reference_impl.predictors import learned
    from geosched.verify.ledger import run_claims

    def no_torch():
        raise learned.MissingExtraError("learned predictors need torch, which is not installed: "
                                        "pip install 'geosched[predict]'")

    monkeypatch.setattr(workloads, "default_trace_path", lambda: trace_path)
    monkeypatch.setattr(learned, "require_torch", no_torch)
    claim = run_claims(["kong.emp.overhead"]).claims[0]
    assert claim.status == "not_run"
    assert "not run" in claim.evidence[0].message and "geosched[predict]" in claim.evidence[0].message
