"""The ledger rows of SVF's upper side (issue 32, item 3) and their Coq theorems (SvfSharp.v, LemmaA2Head.v).

With coqc every row is ``proved``, naming its theorems, and each theorem's statement is the one the row relies
on (``coq_evidence.STATEMENTS``); without coqc every row falls back to ``checked`` by the exhaustive check and
the simulated triangles, never ``proved`` through Coq; a theorem with another statement is not evidence.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

from geosched.verify import coq_engine, coq_evidence
from geosched.verify.ledger import CLAIMS, run_claims

needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")
ROWS = ("svf.sharp_bound", "svf.constant_two", "svf.lemmaA2.head", "svf.prompt_heavy", "svf.heavy_limit")
NEW = ("lemmaA2_blocked_head", "svf_head_charge_po", "svf_head_charge_pairmin", "svf_head_charge_competitive",
       "svf_waiting_peak_bound", "svf_sharp_bound", "svf_prompt_heavy_bound", "svf_sharp_bound_tight")


def test_the_new_theorems_are_listed_everywhere():
    coq = coq_engine.COQ_DIR
    assumptions = (coq / "Assumptions.v").read_text()
    for theorem in NEW:
        assert coq_engine.THEOREMS[theorem] in ("LemmaA2Head", "SvfSharp")
        assert f"Print Assumptions {theorem}." in assumptions and theorem in coq_evidence.STATEMENTS
    for module in ("LemmaA2Head", "SvfSharp"):
        assert f"{module}.v" in (coq / "_CoqProject").read_text() and module in (coq / "build.sh").read_text()
    for row in ROWS:  # every row's text states the hypotheses its proof uses
        assert "burst" in CLAIMS[row].statement + CLAIMS[row].formalization
        assert CLAIMS[row].order[0] == "ours"


def test_the_pinned_statements_say_what_the_rows_say():
    sharp = coq_evidence.STATEMENTS["svf_sharp_bound"]
    assert "Model.peak r <= P) -> Model.feasible M rs xs -> (M - P) * Model.tel rs (Svf.svf M rs) <= 2 * M * " \
           "Model.tel rs xs + (M - P) * Model.sumf Model.output rs" in sharp
    assert "a * Model.output r <= b * Model.prompt r" in coq_evidence.STATEMENTS["svf_prompt_heavy_bound"]
    assert coq_evidence.STATEMENTS["svf_sharp_bound_tight"].startswith(
        "SvfSharp.svf_sharp_bound_tight : forall a b : nat, a < 2 * b -> exists")
    assert "0 < x -> Model.peak r <= Pw" in coq_evidence.STATEMENTS["svf_waiting_peak_bound"]


def test_without_coqc_the_rows_are_checked_not_proved(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    by_id = {c.id: c for c in run_claims(list(ROWS), mode="quick").claims}
    for row in ROWS:
        claim = by_id[row]
        assert claim.status == "checked" and "Coq" not in claim.message, (row, claim.message)
        assert all(e.status == "unknown" for e in claim.evidence if e.kind == "coq")
    assert "svf-triangles q <= " in by_id["svf.constant_two"].message
    assert "every burst with n<=3" in by_id["svf.sharp_bound"].message


@needs_coq
def test_with_coq_every_row_is_proved_and_names_its_theorems():
    assert coq_engine.build().status == "ok"  # compile (or read the cache) first: --quick only reads it
    by_id = {c.id: c for c in run_claims(list(ROWS), mode="quick").claims}
    assert by_id["svf.sharp_bound"].message == "proved (Coq, every n: svf_sharp_bound)"
    assert by_id["svf.constant_two"].message == "proved (Coq, every n: svf_sharp_bound_tight)"
    assert by_id["svf.prompt_heavy"].message == "proved (Coq, every n: svf_prompt_heavy_bound)"
    assert by_id["svf.lemmaA2.head"].message == ("proved (Coq, every n: lemmaA2_blocked_head, "
                                                 "svf_head_charge_competitive, svf_waiting_peak_bound)")
    # svf.heavy_limit: no single theorem; every step sympy cannot check is a closed Coq theorem (rule 6)
    assert by_id["svf.heavy_limit"].status == "proved"
    for row in ROWS:
        coq = [e for e in by_id[row].evidence if e.kind == "coq"]
        assert coq and all(e.status == "proved" for e in coq), row


@needs_coq
def test_a_theorem_with_another_statement_is_not_evidence(monkeypatch):
    real = coq_engine.build

    def weakened(*args, **kwargs):
        result = real(*args, **kwargs)
        text = coq_evidence.normalized(result.statements["svf_sharp_bound"])
        assert "<= 2 * M *" in text
        statements = {**result.statements, "svf_sharp_bound": text.replace("<= 2 * M *", "<= 3 * M *")}
        return dataclasses.replace(result, statements=statements)

    monkeypatch.setattr(coq_engine, "build", weakened)
    claim = run_claims(["svf.sharp_bound"], mode="quick", follow_dependencies=False).claims[0]
    coq = {e.method: e for e in claim.evidence}["coq:svf_sharp_bound"]
    assert coq.status == "unknown" and "no longer states" in coq.message
    assert claim.status != "proved" or "svf_sharp_bound" not in claim.message
