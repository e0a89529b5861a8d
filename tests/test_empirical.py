"""The empirical rows' vocabulary (verify/empirical.py) and its audit (verify/empirical_audit.py): the words and the
cross-trace rule by hand, intervals against printed Student-t quantiles, the Thm. 3.5 flip penalty against the
theory module's symbolic eps, and each planted defect of the audit (an interval over n instead of sqrt(n), every
better/worse swapped, partly beside a significantly worse sub-comparison) moving the row's word."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from geosched.verify import empirical, empirical_audit, kong_serving
from geosched.verify.empirical import EmpiricalEvidence, across_traces, combine_empirical, seed_interval, word
from geosched.verify.evidence import Canary

# the 0.975 quantiles of Student's t, as printed in every table (degrees of freedom -> t)
PRINTED_T = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 30: 2.042}


def test_word_rule_by_hand():
    assert word(["better"] * 3) == "reproduced"
    assert word(["better", "tie"]) == "partly"
    assert word(["tie", "tie"]) == "not_reproduced"
    assert word(["better", "better", "worse"]) == "not_reproduced"  # the opposite measured: never partly


@pytest.mark.parametrize("words, expected", [
    (("reproduced", "reproduced"), "reproduced"),
    (("reproduced", "not_reproduced"), "partly"),  # issue 45: reproduced on one and not the other is partly
    (("reproduced", "partly"), "partly"),
    (("partly", "partly"), "partly"),
    (("partly", "not_reproduced"), "not_reproduced"),  # the weaker one
    (("not_reproduced", "not_reproduced"), "not_reproduced"),
    (("reproduced", "vacuous"), "vacuous"),  # a trace whose check could not have failed says nothing
    (("reproduced", "not_run"), "not_run"),
    (("error", "reproduced"), "error"),
    (("reproduced",), "reproduced"),
])
def test_the_cross_trace_rule_by_hand(words, expected):
    named = {f"t{k}": w for k, w in enumerate(words)}
    assert across_traces(named) == expected
    assert empirical_audit.row_word(list(words)) == expected  # the audit's independent reading agrees


def test_interval_by_hand_and_against_printed_quantiles():
    iv = seed_interval([0.1, 0.2, 0.3])  # mean 0.2, sd 0.1, t(2) = 4.303
    assert iv.mean == pytest.approx(0.2) and (iv.high - iv.low) / 2 == pytest.approx(4.303 * 0.1 / math.sqrt(3),
                                                                                       rel=1e-3)
    assert seed_interval([0.1, 0.1, 0.1]).result == "better" and seed_interval([-0.2, -0.21, -0.19]).result == "worse"
    assert seed_interval([-0.2, -0.1, -0.3]).result == "tie"  # t = 4.30: the interval reaches 0
    with pytest.raises(ValueError):
        seed_interval([0.3])
    for df, t in PRINTED_T.items():
        assert round(empirical_audit.t_quantile(0.975, df), 3) == t


def test_the_independent_interval_agrees_and_flags_a_narrowed_one():
    values = [0.05, -0.02, 0.11, 0.07, 0.01]
    stored = {"label": "x", "values": values, **seed_interval(values).to_dict()}
    assert empirical_audit.interval_findings([stored], "t") == []
    half = (stored["high"] - stored["low"]) / 2 * math.sqrt(5) / 5  # divided by n instead of sqrt(n)
    narrowed = {**stored, "low": stored["mean"] - half, "high": stored["mean"] + half}
    assert empirical_audit.interval_findings([narrowed], "t")
    swapped = {**stored, "result": "better" if stored["result"] != "better" else "worse"}
    assert "result" in empirical_audit.interval_findings([swapped], "t")[0]


def test_combine_weakest_outcome_and_other_claims_untouched():
    def ev(status):
        return EmpiricalEvidence("m", "empirical", status, "d", samples=5)

    assert combine_empirical([ev("reproduced"), ev("partly")])[0] == "partly"
    assert combine_empirical([ev("reproduced")])[:2] == ("reproduced", "reproduced on 5 trace requests")
    assert combine_empirical([ev("not_reproduced"), ev("unknown")])[0] == "unknown"
    assert combine_empirical([ev("not_reproduced"), ev("vacuous")])[0] == "vacuous"
    assert combine_empirical([ev("partly"), ev("error")])[0] == "error"
    from geosched.verify.ledger import Evidence

    other = Evidence("m", "proof", "proved", "d")
    assert combine_empirical([other]) is None and combine_empirical([other, ev("reproduced")]) is None
    assert combine_empirical([]) is None


@pytest.mark.parametrize("status", empirical.VERDICTS)
def test_an_unrefuted_canary_makes_every_verdict_vacuous(status):
    quiet = EmpiricalEvidence("m", "empirical", status, "d", canary=Canary("planted", False, "judged partly"))
    assert quiet.status == "vacuous" and "could not have failed" in quiet.message
    loud = EmpiricalEvidence("m", "empirical", status, "d", canary=Canary("planted", True, "judged not_reproduced"))
    assert loud.status == status


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



# ------------------------------------------------------------------ the audit through a row's method


def _runs(label: str, ratio: dict[str, float], seeds: int = 4, loads=("1.0",)) -> dict:
    """Synthetic runs of one trace: every policy's metrics are a base value times ``ratio[policy]`` (SVF 1.0), with
    a small per-seed wobble, so that each comparison's direction is known by construction."""
    entries = {}
    for load in loads:
        entries[load] = []
        for s in range(seeds):
            metrics = {}
            for k, policy in enumerate(kong_serving.TRACE_POLICIES):
                r = ratio.get(policy, 1.0) * (1 + 0.01 * (s - seeds / 2) * (1 + 0.3 * k))
                metrics[policy] = {"mean_latency_s": 10 * r, "p95_latency_s": 30 * r, "requests_per_step": 2 / r,
                                   "tokens_per_step": 300 / r, "top_volume_slowdown": 5 * r,
                                   "top_output_slowdown": 4 * r, "max_wait_s": 20 * r, "starved": 0,
                                   "jain_slowdown": 0.5, "mean_wait_s": 1.0}
            entries[load].append({"seed": s, "offset": 0, "memory": 100, "alpha": 0.3, "metrics": metrics})
    return {"label": label, "file": f"{label}.jsonl", "reading": "as recorded", "models": "shipped",
            "setup": {"seeds": seeds, "window": 10, "loads": [float(x) for x in loads]}, "seed": 0, "window": 10,
            "svf1": "svf1", "source": "synthetic", "trace": entries, "long": {},
            "onebit": {"policy": "svf1", "theta": 1, "flip_short": 0.1, "flip_long": 0.1, "train_mean_output": 2.0,
                       "predictor_seconds": {"point": 1e-6, "onebit": 1e-6}}}


WINS = {"fcfs": 1.3, "sjf": 1.2, "oracle-sjf": 1.15, "svf1": 1.25, "oracle-svf": 0.9, "oracle-svf1": 1.1}


def _evidence(claim_id: str, traces: list[dict]) -> EmpiricalEvidence:
    outcome = kong_serving.row_outcome(claim_id, traces)
    status, message, canary, _ = empirical_audit.audit_row(claim_id, traces, outcome, kong_serving.PLANS,
                                                           kong_serving.judge)
    return EmpiricalEvidence("m", "empirical", status, message, canary=canary)


def test_the_audit_passes_an_honest_row_and_its_canaries_are_refuted():
    ev = _evidence("kong.emp.svf_latency", [_runs("a", WINS), _runs("b", WINS)])
    assert ev.status == "reproduced" and ev.canary.refuted and "canaries: 6 of 6" in ev.message


def test_an_interval_over_n_instead_of_sqrt_n_is_an_error(monkeypatch):
    def narrow(values, level=0.95):
        iv = seed_interval(values, level)
        half = (iv.high - iv.low) / 2 * math.sqrt(iv.seeds) / iv.seeds
        return empirical.SeedInterval(iv.mean, iv.mean - half, iv.mean + half, iv.seeds)

    monkeypatch.setattr(kong_serving, "seed_interval", narrow)
    ev = _evidence("kong.emp.throughput", [_runs("a", WINS)])
    assert ev.status == "error" and "did not re-derive" in ev.message


def test_every_better_worse_swapped_is_caught(monkeypatch):
    swapped = property(lambda self: "worse" if self.low > 0 else "better" if self.high < 0 else "tie")
    monkeypatch.setattr(empirical.SeedInterval, "result", swapped)
    ev = _evidence("kong.emp.svf_latency", [_runs("a", WINS)])
    assert ev.status == "error"  # the recomputed results disagree, and the canary would be judged reproduced
    outcome = kong_serving.row_outcome("kong.emp.svf_latency", [_runs("a", WINS)])
    assert not any(c["refuted"] for c in empirical_audit.canaries(kong_serving.PLANS["kong.emp.svf_latency"],
                                                                   _runs("a", WINS)["trace"], kong_serving.judge, "a"))
    assert outcome["status"] == "not_reproduced"


def test_partly_beside_a_significantly_worse_comparison_is_an_error(monkeypatch):
    kind = {**WINS, "fcfs": 0.8}  # SVF significantly worse than FCFS, better than the rest
    honest = _evidence("kong.emp.svf_latency", [_runs("a", kind)])
    assert honest.status == "not_reproduced"
    monkeypatch.setattr(kong_serving, "word", lambda results: "partly" if "better" in results else "not_reproduced")
    assert _evidence("kong.emp.svf_latency", [_runs("a", kind)]).status == "error"


def test_a_predicate_that_cannot_see_a_worse_policy_is_vacuous(monkeypatch):
    blind = kong_serving.judge

    def judge(plan, runs):  # compares every policy with itself: it can never say worse
        verdict = blind(plan, runs)
        for c in verdict["comparisons"]:
            c.update(values=[0.0] * len(c["values"]), mean=0.0, low=0.0, high=0.0, result="tie")
        verdict["status"] = "partly"
        return verdict

    outcome = kong_serving.row_outcome("kong.emp.fairness", [_runs("a", WINS)])
    _, _, canary, _ = empirical_audit.audit_row("kong.emp.fairness", [_runs("a", WINS)], outcome,
                                                kong_serving.PLANS, judge)
    assert not canary.refuted
    assert EmpiricalEvidence("m", "empirical", outcome["status"], "d", canary=canary).status == "vacuous"


def test_the_row_names_where_it_was_reproduced():
    worse_on_b = {**WINS, "sjf": 0.7}
    outcome = kong_serving.row_outcome("kong.emp.throughput", [_runs("a", WINS), _runs("b", worse_on_b)])
    assert outcome["status"] == "partly"
    assert outcome["message"].startswith("reproduced on a, not on b (not reproduced); ")
    assert "a: reproduced (better in 2, worse in 0 of 2" in outcome["summary"]
    assert "b: not reproduced (better in 0, worse in 2 of 2" in outcome["summary"]


def test_ledger_rows_without_trace_are_not_run(monkeypatch):
    from geosched.verify import trace_set
    from geosched.verify.ledger import run_claims

    monkeypatch.setattr(trace_set, "shared_traces", lambda: ())
    claim = run_claims(["kong.emp.overhead"]).claims[0]
    assert claim.status == "not_run" and "no trace" in claim.evidence[0].message
