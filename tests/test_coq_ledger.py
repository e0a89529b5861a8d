"""The Coq evidence in the ledger and in ``geosched prove`` (issue 22, item 4).

A row says ``proved`` through Coq only when its theorem is closed (compiled in this run or read
from the build cache, and the evidence says which); without coqc the Coq evidence is
``unknown (coqc not installed)`` and the row falls back to its other checks; ``prove`` marks each
step and prints the ledger's word.
"""

from __future__ import annotations

import json
import os

import pytest
from coq_stub import coq_stub, pinned_build

from geosched.cli import main
from geosched.verify import coq_engine, coq_evidence
from geosched.verify.evidence import Evidence
from geosched.verify.ledger import CLAIMS, combine, run_claims

_coq_installed = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                                    reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def needs_coq(test):
    """Skipped without coqc; marked ``coq_build`` (it compiles or reads the build cache: the mutation runner, whose
    mutants change the cache key, leaves these out)."""
    return pytest.mark.coq_build(_coq_installed(test))
ROWS = {"kong.volume": "volume_is_memory_time", "kong.prop3.1": "prop31_lower_bound",
        "kong.lemmaA.2": "lemmaA2_summed", "kong.lemmaA.2.peak": "lemmaA2_occupancy_refuted",
        "kong.thm3.2": "thm32_svf_competitive", "kong.thm3.3": "thm33_onebit_T"}



def _sympy(status: str = "proved") -> Evidence:
    return Evidence("derivation", "proof", status, "sympy", data={"open_steps": []})


def test_every_row_of_the_issue_runs_its_coq_theorem():
    for claim_id, theorem in ROWS.items():
        assert f"coq:{theorem}" in CLAIMS[claim_id].methods, claim_id
        assert theorem in coq_evidence.cited_theorems(CLAIMS[claim_id])
    assert set(coq_evidence.COQ_METHODS) == {f"coq:{t}" for t in coq_engine.THEOREMS}


def test_the_theorems_recorded_per_row_are_the_rows_coq_methods():
    listed = {c.id: set(coq_evidence.cited_theorems(c)) for c in CLAIMS.values()}
    declared = {c.id: {m[4:] for m in c.methods if m.startswith("coq:")} for c in CLAIMS.values()}
    assert listed == declared


def test_a_whole_claim_coq_proof_is_proved_and_not_capped_by_a_checked_dependency():
    claim = CLAIMS["kong.thm3.2"]
    deps = {"kong.lemmaA.2": "checked", "kong.prop3.1": "proved"}
    whole = [coq_stub(name) for name in claim.coq_whole]
    status, text, _, note = combine(claim, [_sympy(), *whole], deps)
    assert status == "proved" and text == ("proved (Coq, every n: thm32_svf_competitive, thm32_svf_feasible, "
                                           "svf_sim_eq, tel_finish_times)")
    assert "independently of kong.lemmaA.2 (checked)" in note
    # the bound alone is not the whole claim (an SVF starting everything at 0 satisfies it): it falls back
    status, text, _, _ = combine(claim, [_sympy(), coq_stub("thm32_svf_competitive")], deps)
    assert status == "checked" and "Coq" not in text
    # the same theorem not closed: the rule falls back, and the dependency caps it
    status, text, _, _ = combine(claim, [_sympy(), coq_stub("thm32_svf_competitive", "unknown"), *whole[1:]], deps)
    assert status == "checked" and "Coq" not in text


def test_refuted_evidence_still_wins_over_a_coq_proof():
    claim = CLAIMS["kong.thm3.2"]
    refuting = Evidence("exhaustive:thm3.2", "bounded", "refuted", "counterexample", counterexample="c.json")
    assert combine(claim, [*(coq_stub(name) for name in claim.coq_whole), refuting], {})[0] == "refuted"


def test_a_step_theorem_is_not_a_whole_claim_proof():
    # kong.lemmaA.2 is proved as a whole only with its three items and the summed form; kong.thm3.3 with both readings
    items = ["lemmaA2_peak_mass", "lemmaA2_active_precede", "lemmaA2_peak_time"]
    evidence = [_sympy(), *(coq_stub(t) for t in items), coq_stub("svf_js_sorted"), coq_stub("lemmaA2_double_count")]
    assert coq_evidence.whole_claim_proofs(CLAIMS["kong.lemmaA.2"], evidence) == []
    whole = coq_evidence.whole_claim_proofs(CLAIMS["kong.lemmaA.2"], [*evidence, coq_stub("lemmaA2_summed")])
    assert [e.data["theorem"] for e in whole] == [*items, "lemmaA2_summed"]
    thm33 = CLAIMS["kong.thm3.3"]
    assert coq_evidence.whole_claim_proofs(thm33, [coq_stub("thm33_onebit_E1"), coq_stub("hol_inversion")]) == []
    assert coq_evidence.whole_claim_proofs(thm33, [coq_stub("thm33_onebit_E1"), coq_stub("thm33_onebit_T")])
    assert coq_evidence.whole_claim_proofs(CLAIMS["kong.lemmaA.2.peak"], evidence[:2]) == []  # both theorems needed
    assert coq_evidence.whole_claim_proofs(CLAIMS["kong.lemmaA.2.peak"],
                                           [coq_stub("lemmaA2_peak_mass"), coq_stub("lemmaA2_occupancy_refuted")])


def test_without_coqc_the_coq_evidence_is_unknown_and_no_row_is_proved_by_it(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    result = run_claims(["kong.volume", "kong.thm3.2"], mode="quick")
    by_id = {c.id: c for c in result.claims}
    for claim in by_id.values():
        for evidence in claim.evidence:
            if evidence.kind == "coq":
                assert (evidence.status, evidence.message) == ("unknown", "coqc not installed")
    assert by_id["kong.thm3.2"].status != "proved" and "Coq" not in by_id["kong.thm3.2"].message
    assert by_id["kong.volume"].status == "proved" and "Coq" not in by_id["kong.volume"].message  # sympy alone


def test_a_theorem_that_is_not_closed_refutes_the_rows_citing_it_by_name(monkeypatch):
    """Issue 46, item 4: an Admitted lemma under thm32_svf_competitive (its Print Assumptions lists the axiom) refutes
    the rows that cite it, naming the theorem and the axiom; a row that does not cite it keeps its word."""
    opened = pinned_build(assumptions={"thm32_svf_competitive": "Axioms:\nThm32.some_lemma : False"})
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: opened)
    claim = run_claims(["kong.thm3.2"], mode="quick", follow_dependencies=False).claims[0]
    coq = {e.method: e for e in claim.evidence}["coq:thm32_svf_competitive"]
    assert coq.status == "refuted" and coq.message == ("Coq: thm32_svf_competitive is not closed under the global "
                                                       "context: rests on Thm32.some_lemma (an Admitted or an Axiom)")
    assert claim.status == "refuted" and "coq:thm32_svf_competitive" in claim.message
    other = run_claims(["kong.volume"], mode="quick", follow_dependencies=False).claims[0]
    assert other.status == "proved" and "volume_is_memory_time" in other.message


@needs_coq
def test_with_coq_the_rows_name_their_theorems():
    assert coq_engine.build().status == "ok"  # compile (or read the cache) first: --quick only reads it
    result = run_claims([*ROWS, "kong.sjf_unbounded"], mode="quick")
    by_id = {c.id: c for c in result.claims}
    for claim_id, theorem in ROWS.items():
        coq = {e.method: e for e in by_id[claim_id].evidence}[f"coq:{theorem}"]
        assert coq.status == "proved", (claim_id, coq.message)
        assert coq.message.startswith(f"Coq, every n: {theorem} (")
        # where the build came from: this process compiled it, or the cache held it (then the pin's hash follows)
        assert "(compiled this run; statements pinned " in coq.message or "(build cache " in coq.message
    for claim_id in ("kong.volume", "kong.prop3.1", "kong.lemmaA.2", "kong.lemmaA.2.peak", "kong.thm3.2",
                     "kong.thm3.3", "kong.sjf_unbounded"):
        assert by_id[claim_id].status == "proved", (claim_id, by_id[claim_id].message)
        assert "Coq, every n: " in by_id[claim_id].message
    assert by_id["kong.lemmaA.2"].message == ("proved (Coq, every n: lemmaA2_peak_mass, lemmaA2_active_precede, "
                                              "lemmaA2_peak_time, lemmaA2_summed)")
    assert by_id["kong.thm3.3"].message == "proved (Coq, every n: thm33_onebit_T, thm33_onebit_E1)"


@needs_coq
@pytest.mark.parametrize("claim_id", ["kong.prop3.1", "kong.thm3.2", "kong.lemmaA.2", "kong.thm3.3"])
def test_prove_prints_the_ledgers_word(claim_id, capsys):
    assert coq_engine.build().status == "ok"
    assert main(["claims", "--quick", "--claim", claim_id, "--json", "--no-progress"]) in (0, 1)
    ledger = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}[claim_id]
    assert main(["prove", claim_id, "--json"]) == 0
    proof = json.loads(capsys.readouterr().out)
    assert proof["ledger"]["status"] == ledger["status"] and proof["ledger"]["message"] == ledger["message"]
    marks = [step["established_by"] for step in proof["steps"]]
    assert "sympy" in marks and "not established in this run" not in marks


@needs_coq
def test_prove_marks_coq_steps_in_text_and_latex(capsys):
    assert coq_engine.build().status == "ok"
    assert main(["prove", "kong.lemmaA.2"]) == 0
    text = capsys.readouterr().out
    assert "established by: Coq, every n: svf_js_sorted (" in text  # step 5, item 2
    assert "established by: Coq, every n: lemmaA2_double_count (" in text  # step 8
    assert "established by: Coq, every n: lemmaA2_summed (" in text  # step 10, the summed form
    assert "established by: sympy" in text
    last = text.rstrip().splitlines()[-1]
    assert last.startswith("Status: ") and last.count(". ") == 0 and last.endswith(".")  # one sentence, last
    assert "Marked by the ledger run in mode quick (bounds here are --quick's" in text
    assert "Rests on (their own words in the same run): kong.lemmaA.2: " in text or "Rests on" in text
    assert main(["prove", "kong.thm3.2", "--latex"]) == 0
    latex = capsys.readouterr().out
    assert r"\emph{Established by:} sympy." in latex
    assert r"Status: proved (Coq, every n: thm32\_svf\_competitive, thm32\_svf\_feasible" in latex


def test_a_refuted_dependency_is_not_hidden_by_a_coq_proof():
    claim = CLAIMS["kong.thm3.2"]
    whole = [coq_stub(name) for name in claim.coq_whole]
    status, text, _, _ = combine(claim, [_sympy(), *whole], {"kong.lemmaA.2": "refuted", "kong.prop3.1": "proved"})
    assert status == "unknown" and "kong.lemmaA.2 is refuted" in text
    # an unknown (not refuted) dependency does not stop the Coq proof
    assert combine(claim, [_sympy(), *whole], {"kong.lemmaA.2": "unknown"})[0] == "proved"


@needs_coq
def test_the_single_group_and_triangle_rows_are_proved_through_their_coq_steps():
    # svf.fluid.k1, svf.fluid.k2 and svf.lower_bound: every step sympy cannot check is covered by a closed Coq
    # theorem (the single-group bound, the per-request phase bound, the triangles' trace)
    assert coq_engine.build().status == "ok"
    by_id = {c.id: c for c in run_claims(["svf.fluid.k1", "svf.fluid.k2", "svf.lower_bound"], mode="quick").claims}
    assert by_id["svf.fluid.k1"].status == "proved", by_id["svf.fluid.k1"].message
    assert by_id["svf.lower_bound"].status == "proved", by_id["svf.lower_bound"].message
    assert by_id["svf.fluid.k2"].status == "proved", by_id["svf.fluid.k2"].message
    for claim_id in ("svf.fluid.k1", "svf.fluid.k2", "svf.lower_bound"):
        coq = [e for e in by_id[claim_id].evidence if e.kind == "coq"]
        assert coq and all(e.status == "proved" for e in coq)


def test_without_coqc_lemma_a2_and_thm33_stay_checked(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    by_id = {c.id: c for c in run_claims(["kong.lemmaA.2", "kong.thm3.3"], mode="quick").claims}
    for claim_id in ("kong.lemmaA.2", "kong.thm3.3"):
        assert by_id[claim_id].status == "checked" and "Coq" not in by_id[claim_id].message, by_id[claim_id].message


def test_without_coqc_the_single_group_row_falls_back_to_its_simulation(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    claim = run_claims(["svf.fluid.k1"], mode="quick", follow_dependencies=False).claims[0]
    assert claim.status != "proved" and "Coq" not in claim.message
