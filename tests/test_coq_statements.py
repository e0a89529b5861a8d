"""Coq evidence by statement (issue 34, item 1): a row cites a theorem with the statement it relies on, and the
ledger compares it with what coqc prints; the theorem and module lists come from the sources, never a hand list.

Most tests run without coqc: they read recorded coqc output or a build whose statements are the rows' own.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess

import pytest

from geosched.verify import coq_engine, coq_evidence, coq_output
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, METHODS, ROWS, check_rows, combine

COQ_DIR = coq_engine.COQ_DIR
_coq_installed = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                                    reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def needs_coq(test):
    """Skipped without coqc; marked ``coq_build`` (it compiles or reads the build cache: the mutation runner, whose
    mutants change the cache key, leaves these out)."""
    return pytest.mark.coq_build(_coq_installed(test))
MARK = "geosched_marker = 0\n     : nat\n"
# coqc's output for two theorems, as build.sh's Assumptions.v prints it (recorded from a build)
RECORDED = ("Model.tel_finish_times\n     : Model.tel nil nil = 0 /\\\n       (forall (s o x : nat) (rs : list (nat * "
            "nat)) (xs : list nat),\n        Model.tel ((s, o) :: rs) (x :: xs) = x + o + Model.tel rs xs)\n" + MARK
            + "Closed under the global context\n" + MARK
            + "Thm32.open_one\n     : forall n : nat,\n       n <= n\n" + MARK
            + "Axioms:\nThm32.some_axiom : False\n" + MARK)


def _recorded_statements() -> dict[str, str]:
    statements: dict[str, str] = {}
    for claim in ROWS:
        statements.update(coq_evidence.cited_statements(claim))
    return {name: " ".join(text.split()) for name, text in statements.items()}


def _fake_build(statements: dict[str, str] | None = None, **changes) -> coq_engine.CoqBuild:
    """A build whose theorems are closed and print exactly ``statements`` (default: what the rows record)."""
    statements = _recorded_statements() if statements is None else statements
    build = coq_engine.CoqBuild("ok", "fake", 0.0, source_hash="f" * 64, coqc_version="test",
                                theorems={n: True for n in statements}, statements=statements,
                                assumptions={n: coq_output.CLOSED for n in statements}, coqchk=True,
                                coqchk_axioms="<none>", from_cache=True)
    return dataclasses.replace(build, **changes)


def _word(claim) -> tuple[str, str, dict]:
    """The ledger's word and text for ``claim`` from its Coq evidence alone (the rule is the ledger's ``combine``;
    the row's other checks, which take seconds, are left out: none of them refutes)."""
    ctx = Context("quick", None, 0, ())
    evidence = [METHODS[m](claim, ctx) for m in claim.methods if m.startswith("coq:")]
    status, text, _, _ = combine(claim, evidence, {})
    return status, text, {e.method: e for e in evidence}


@pytest.fixture
def fake(monkeypatch):
    def install(build):
        monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: build)
        return build

    return install


def test_the_recorded_output_parses_into_statements_and_assumptions():
    parsed = coq_output.parse_assumptions(RECORDED)
    assert parsed["tel_finish_times"]["statement"] == (
        "Model.tel nil nil = 0 /\\ (forall (s o x : nat) (rs : list (nat * nat)) (xs : list nat), "
        "Model.tel ((s, o) :: rs) (x :: xs) = x + o + Model.tel rs xs)")
    assert parsed["tel_finish_times"]["closed"] and parsed["tel_finish_times"]["module"] == "Model"
    assert parsed["open_one"] == {"module": "Thm32", "statement": "forall n : nat, n <= n",
                                  "assumptions": "Axioms:\nThm32.some_axiom : False", "closed": False}
    assert coq_output.normalise_statement("x\n  : forall  n,\n  n = n") == "forall n, n = n"
    assert coq_output.normalise_statement("Error: no such theorem") == ""


def test_the_theorem_list_is_read_from_the_sources_as_build_sh_reads_it():
    """build.sh generates Assumptions.v with a sed over every module; Python scans with coq_output's pattern:
    both find the same theorems, so a new Theorem in a .v file is checked and citable without a list."""
    sources = sorted(p for p in COQ_DIR.glob("*.v") if p.name not in ("Assumptions.v", "Extract.v"))
    expression = re.search(r'sed -n -E "(s/[^"]+)"', (COQ_DIR / "build.sh").read_text()).group(1)
    done = subprocess.run(["sed", "-n", "-E", expression, *map(str, sources)], capture_output=True, text=True,
                          check=True)  # build.sh's own sed expression
    assert sorted(done.stdout.split()) == sorted(coq_engine.THEOREMS)
    assert {"thm32_svf_competitive", "tel_finish_times", "svf_fast_eq"} <= set(coq_engine.THEOREMS)


def test_no_hand_kept_module_or_theorem_list():
    build = (COQ_DIR / "build.sh").read_text()
    assert "coqdep -sort" in build and not re.search(r'FILES="[A-Z]', build)  # the order is coqdep's
    assert (COQ_DIR / "_CoqProject").read_text().split() == ["-R", ".", "GeoSched"]
    generated = COQ_DIR / "Assumptions.v"  # absent from git; a local build.sh run writes it
    assert not generated.exists() or "Generated by build.sh" in generated.read_text()


def test_every_cited_theorem_has_its_statement_and_method():
    cited = {name for claim in ROWS for name in coq_evidence.cited_statements(claim)}
    assert cited and cited <= set(coq_engine.THEOREMS)
    for claim in ROWS:
        methods = {m[4:] for m in claim.methods if m.startswith("coq:")}
        assert methods == set(coq_evidence.cited_statements(claim)), claim.id
    bad = dataclasses.replace(CLAIMS["kong.volume"], coq_whole=())
    from geosched.theory import DERIVATIONS

    with pytest.raises(Exception, match="coq statements"):
        check_rows(tuple(bad if c.id == "kong.volume" else c for c in ROWS), METHODS, DERIVATIONS)


def test_the_rows_are_proved_when_coqc_prints_their_statements(fake):
    fake(_fake_build())
    assert _word(CLAIMS["kong.thm3.2"])[:2] == ("proved", "proved (Coq, every n: thm32_svf_competitive, "
                                                "thm32_svf_feasible, svf_sim_eq, tel_finish_times)")
    assert _word(CLAIMS["kong.sjf_unbounded"])[:2] == ("proved", "proved (Coq, every n: sjf_not_competitive, "
                                                       "tel_finish_times)")


def test_a_statement_that_differs_refutes_the_row_naming_the_theorem(fake):
    printed = _recorded_statements()
    printed["thm32_svf_competitive"] = printed["thm32_svf_competitive"].replace("(3 * M - P)", "(4 * M - P)")
    fake(_fake_build(printed))
    status, text, evidence = _word(CLAIMS["kong.thm3.2"])
    coq = evidence["coq:thm32_svf_competitive"]
    assert coq.status == "refuted" and "thm32_svf_competitive states" in coq.message and "(4 * M - P)" in coq.message
    assert status == "refuted" and "implementation check coq:thm32_svf_competitive" in text


def test_cause_1_the_whole_claim_pointed_at_another_theorem_is_refuted_not_proved(fake, monkeypatch):
    """Issue 34, cause 1 (Coq evidence wired by name). The mutation: kong.thm3.2's whole-claim theorem renamed to
    svf_feasible (the old table's one-token change). Word before this issue: ``proved (Coq, every n:
    svf_feasible)``; now ``refuted``: svf_feasible does not state what the row records."""
    fake(_fake_build())
    row = CLAIMS["kong.thm3.2"]
    rewired = tuple(("svf_feasible" if name == "thm32_svf_competitive" else name, text) for name, text in row.coq_whole)
    mutated = dataclasses.replace(row, coq_whole=rewired, coq=tuple(c for c in row.coq if c[0] != "svf_feasible"),
                                  methods=tuple(m for m in row.methods if m != "coq:thm32_svf_competitive"))
    assert _word(row)[0] == "proved"
    status, text, evidence = _word(mutated)
    assert status == "refuted" and "coq:svf_feasible" in text
    assert evidence["coq:svf_feasible"].message.startswith("Coq: svf_feasible states")


def test_the_whole_claim_needs_every_listed_theorem(fake):
    # an SVF starting everything at step 0 satisfies the bound alone: feasibility and TEL's meaning are needed too
    statements = _recorded_statements()
    fake(_fake_build(theorems={**{n: True for n in statements}, "thm32_svf_feasible": False}))
    status, text, _ = _word(CLAIMS["kong.thm3.2"])
    assert status != "proved" and "Coq" not in text
    assert [n for n, _ in CLAIMS["kong.thm3.2"].coq_whole] == ["thm32_svf_competitive", "thm32_svf_feasible",
                                                               "svf_sim_eq", "tel_finish_times"]
    assert [n for n, _ in CLAIMS["kong.sjf_unbounded"].coq_whole] == ["sjf_not_competitive", "tel_finish_times"]


def test_sjf_unbounded_is_not_proved_by_the_family_tel_formula(fake):
    """The SJF row's whole claim is sjf_not_competitive's statement: pointing it at sjf_family_tel (whose statement is
    a closed form, not unboundedness) is refuted, never proved."""
    fake(_fake_build())
    row = CLAIMS["kong.sjf_unbounded"]
    whole = tuple(("sjf_family_tel" if n == "sjf_not_competitive" else n, s) for n, s in row.coq_whole)
    mutated = dataclasses.replace(row, coq_whole=whole, coq=tuple(c for c in row.coq if c[0] != "sjf_family_tel"),
                                  methods=tuple(m for m in row.methods if m != "coq:sjf_not_competitive"))
    status, text, _ = _word(mutated)
    assert status == "refuted" and "sjf_family_tel" in text


def test_the_cache_key_covers_the_code_that_reads_coqc(tmp_path, monkeypatch):
    copy = tmp_path / "coq_output.py"
    shutil.copy(coq_output.__file__, copy)
    before = coq_engine.source_hash()[0]
    monkeypatch.setattr(coq_output, "__file__", str(copy))
    assert coq_engine.source_hash()[0] == before
    copy.write_text(copy.read_text().replace('CLOSED = "Closed under the global context"', 'CLOSED = "Closed"'))
    assert coq_engine.source_hash()[0] != before


def test_a_cached_build_is_parsed_again_on_every_read(tmp_path, monkeypatch):
    """The manifest keeps coqc's raw output; the statements and closedness come from parsing it now."""
    manifest = {"status": "ok", "message": "m", "coqc_version": "v", "assumptions_out": RECORDED, "coqchk": True,
                "coqchk_axioms": "<none>"}
    build = coq_engine._from_manifest(manifest, tmp_path, "0" * 64, 0.0, from_cache=True)
    assert build.closed("tel_finish_times") and not build.closed("open_one")
    assert build.statements["open_one"] == "forall n : nat, n <= n"
    monkeypatch.setattr(coq_output, "CLOSED", "Closed")  # a reader that misreads the output: seen at once
    assert not coq_engine._from_manifest(manifest, tmp_path, "0" * 64, 0.0, from_cache=True).closed("tel_finish_times")


def test_the_engine_checks_the_statements_it_relies_on(fake):
    # the executable runs the *_engine functions: each equality is checked by what coqc printed, not by its name
    engine = coq_engine.ENGINE_THEOREMS
    assert _recorded_statements()["svf_engine_eq"] == engine["svf_engine_eq"]  # kong.thm3.2 cites it too
    fake(_fake_build({**_recorded_statements(), **engine}, engine=True))  # as printed: accepted
    assert coq_engine._ready_build().engine
    for theorem in engine:
        fake(_fake_build({**_recorded_statements(), **engine, theorem: "forall M rs, True"}, engine=True))
        with pytest.raises(Exception, match=f"{theorem} states .*not the equality the engine relies on"):
            coq_engine._ready_build()


@needs_coq
def test_the_rows_statements_are_what_coqc_prints():
    build = coq_engine.build()
    assert build.status == "ok", build.message
    assert set(build.statements) == set(coq_engine.THEOREMS)  # every Theorem/Corollary checked, none missing
    for name, statement in _recorded_statements().items():
        assert build.statements[name] == statement, name
        assert build.closed(name), name


def test_adding_a_coq_file_and_theorem_touches_only_the_file(tmp_path):
    """Issue 31, item 3: a new .v file with a Theorem is ordered by build.sh (coqdep) and checked by the Assumptions.v
    it generates, and the ledger may cite the theorem, with no list edited anywhere."""
    copy = tmp_path / "coq"
    shutil.copytree(COQ_DIR, copy, ignore=shutil.ignore_patterns("*.vo", "*.vok", "*.vos", "*.glob", ".*.aux"))
    (copy / "AddedByTest.v").write_text("From GeoSched Require Import Model.\n"
                                        "Theorem added_by_test : forall rs : list req, tel rs [] = 0.\n"
                                        "Proof. intros rs. unfold tel, tel_js. destruct rs; reflexivity. Qed.\n")
    assert coq_output.declared_theorems(copy)["added_by_test"] == "AddedByTest"
    build = (COQ_DIR / "build.sh").read_text()
    sources = re.search(r"^SOURCES=.*$", build, re.M).group(0)
    files = re.search(r"^FILES=.*$", build, re.M).group(0)
    if shutil.which("coqdep") is None:
        pytest.skip("coqdep not installed (Debian package coq)")
    done = subprocess.run(["bash", "-c", f"{sources}\n{files}\necho $FILES"], cwd=copy, capture_output=True, text=True,
                          check=True)
    order = done.stdout.split()
    assert "AddedByTest" in order and order.index("Model") < order.index("AddedByTest")
    assert order[0] == "Model" and "Assumptions" not in order and "Extract" not in order


def test_the_coqchk_summary_and_the_first_error_are_read_from_recorded_output():
    summary = ("coqchk: some preamble\nCONTEXT SUMMARY\n===============\n\n* Theory: Set is predicative\n\n"
               "* Axioms:\n    <none>\n\n* Constants/Inductives relying on type-in-type: <none>\n")
    assert coq_output.axioms(summary) == "<none>"
    assert coq_output.coqchk_summary(summary + "coqchk: OK\n") == (True, "<none>")
    assert coq_output.coqchk_summary(summary) is None  # build.sh did not say it passed
    assert coq_output.coqchk_summary("coqchk: OK\n") is None  # no summary printed
    assert coq_output.axioms("no summary") == "unparsed"
    failed = ('coqc -q -R . GeoSched Model.v\nFile "./Model.v", line 82, characters 37-48:\nError:\n'
              "In environment\ns, o, x : nat\n")
    assert coq_output.first_error(failed) == 'File "./Model.v", line 82, characters 37-48: Error: In environment'
    assert coq_output.first_error("Anomaly: bug.\nPlease report.") == "Anomaly: bug. Please report."
    assert coq_output.first_error("Error at the start") == "Error at the start"
    assert coq_output.first_error("just a line\nthe last line\n") == "the last line"
    assert coq_output.first_error("") == ""
    assert len(coq_output.first_error("Error: " + "x" * 500)) == 400
