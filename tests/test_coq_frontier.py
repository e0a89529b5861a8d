"""The ledger rows of SVF's upper side (issue 32, item 3) and their Coq theorems (SvfSharp.v, LemmaA2Head.v).

With coqc every row is ``proved``, naming its theorems, and each theorem's statement is the one the row records
(``Claim.coq`` / ``coq_whole``); without coqc every row falls back to ``checked`` by the exhaustive check and the
simulated triangles, never ``proved`` through Coq; a theorem that prints another statement refutes the row.
"""

from __future__ import annotations

import os

import pytest
from coq_stub import pinned_build

from geosched.verify import coq_engine, coq_evidence, coq_pinned
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, METHODS, combine, run_claims

_coq_installed = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                                    reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def needs_coq(test):
    """Skipped without coqc; marked ``coq_build`` (it compiles or reads the build cache)."""
    return pytest.mark.coq_build(_coq_installed(test))


FRONTIER = ("svf.sharp_bound", "svf.constant_two", "svf.lemmaA2.head", "svf.prompt_heavy", "svf.heavy_limit")
NEW = ("lemmaA2_blocked_head", "svf_head_charge_po", "svf_head_charge_pairmin", "svf_head_charge_competitive",
       "svf_waiting_peak_bound", "svf_sharp_bound", "svf_prompt_heavy_bound", "svf_sharp_bound_tight")
# what makes a bound on the Coq svf's TEL a statement about SVF (as for kong.thm3.2)
MEANING = ["svf_feasible", "svf_sim_eq", "tel_finish_times"]
WHOLE = {"svf.sharp_bound": ["svf_sharp_bound", *MEANING],
         "svf.constant_two": ["svf_sharp_bound_tight", "svf_sim_eq", "tel_finish_times"],
         "svf.lemmaA2.head": ["lemmaA2_blocked_head", "svf_head_charge_competitive", "svf_waiting_peak_bound",
                              *MEANING],
         "svf.prompt_heavy": ["svf_prompt_heavy_bound", *MEANING], "svf.heavy_limit": []}


def _statement(theorem: str) -> str:
    return coq_pinned.read().theorems[theorem]


def _word(claim) -> tuple[str, str, dict]:
    """The ledger's word for ``claim`` from its Coq evidence alone (its other checks take seconds; none refutes)."""
    ctx = Context("quick", None, 0, ())
    evidence = [METHODS[m](claim, ctx) for m in claim.methods if m.startswith("coq:")]
    status, text, _, _ = combine(claim, evidence, {})
    return status, text, {e.method: e for e in evidence}


def test_the_new_theorems_are_found_in_the_sources_and_cited_with_their_statements():
    for theorem in NEW:  # no list: coq_engine.THEOREMS is read from the .v files
        assert coq_engine.THEOREMS[theorem] in ("LemmaA2Head", "SvfSharp")
    cited = {name for row in FRONTIER for name in coq_evidence.cited_theorems(CLAIMS[row])}
    assert set(NEW) <= cited
    for row in FRONTIER:  # every row's text states the hypotheses its proof uses
        claim = CLAIMS[row]
        assert list(claim.coq_whole) == WHOLE[row]
        assert {m[4:] for m in claim.methods if m.startswith("coq:")} == set(coq_evidence.cited_theorems(claim))
        assert "burst" in claim.statement + claim.formalization and claim.order[0] == "ours"


def test_the_pinned_statements_say_what_the_rows_say():
    assert _statement("svf_sharp_bound").endswith(
        "Model.peak r <= P) -> Model.feasible M rs xs -> (M - P) * Model.tel rs (Svf.svf M rs) <= 2 * M * "
        "Model.tel rs xs + (M - P) * Model.sumf Model.output rs")
    assert "a * Model.output r <= b * Model.prompt r" in _statement("svf_prompt_heavy_bound")
    assert _statement("svf_sharp_bound_tight").startswith("forall a b : nat, a < 2 * b -> exists")
    assert "0 < x -> Model.peak r <= Pw" in _statement("svf_waiting_peak_bound")


def test_the_rows_are_proved_when_coqc_prints_the_pinned_statements(monkeypatch):
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: pinned_build())
    for row in FRONTIER[:4]:
        status, text, _ = _word(CLAIMS[row])
        assert (status, text) == ("proved", f"proved (Coq, every n: {', '.join(WHOLE[row])})"), row


def test_a_theorem_with_another_statement_refutes_its_rows(monkeypatch):
    printed = _statement("svf_sharp_bound")
    assert "<= 2 * M *" in printed
    weaker = printed.replace("<= 2 * M *", "<= 3 * M *")
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: pinned_build({"svf_sharp_bound": weaker}))
    for row in ("svf.sharp_bound", "svf.heavy_limit"):  # the two rows that cite it, and only them
        status, text, evidence = _word(CLAIMS[row])
        coq = evidence["coq:svf_sharp_bound"]
        assert coq.status == "refuted" and "svf_sharp_bound states" in coq.message and "3 * M" in coq.message
        assert status == "refuted" and "coq:svf_sharp_bound" in text, row
    assert _word(CLAIMS["svf.prompt_heavy"])[0] == "proved"


def test_the_whole_claim_needs_svf_to_be_the_process(monkeypatch):
    # without svf_sim_eq the bound could be about any function named svf: not proved by Coq
    build = pinned_build(assumptions={"svf_sim_eq": "Axioms:\nSim.planted : False"})
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: build)
    for row in FRONTIER[:4]:
        status, text, _ = _word(CLAIMS[row])
        assert status != "proved" and "Coq" not in text, row


def test_without_coqc_the_rows_are_checked_not_proved(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    by_id = {c.id: c for c in run_claims(list(FRONTIER), mode="quick").claims}
    for row in FRONTIER:
        claim = by_id[row]
        assert claim.status == "checked" and "Coq" not in claim.message, (row, claim.message)
        assert all(e.status == "unknown" for e in claim.evidence if e.kind == "coq")
    assert "svf-triangles q <= " in by_id["svf.constant_two"].message
    assert "every burst with n<=3" in by_id["svf.sharp_bound"].message


@needs_coq
def test_with_coq_every_row_is_proved_and_names_its_theorems():
    assert coq_engine.build().status == "ok"  # compile (or read the cache) first: --quick only reads it
    by_id = {c.id: c for c in run_claims(list(FRONTIER), mode="quick").claims}
    for row in FRONTIER[:4]:
        assert by_id[row].message == f"proved (Coq, every n: {', '.join(WHOLE[row])})", row
    # svf.heavy_limit: no single theorem; every step sympy cannot check is a closed Coq theorem (rule 6)
    assert by_id["svf.heavy_limit"].status == "proved"
    for row in FRONTIER:
        coq = [e for e in by_id[row].evidence if e.kind == "coq"]
        assert coq and all(e.status == "proved" for e in coq), row
