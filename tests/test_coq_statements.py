"""Coq evidence by statement: rows cite theorems by name, the statement is written once (verify/coq/statements.txt)
and the ledger compares it with what coqc prints (issue 34 item 1, issue 46 item 4, issue 47 item 3); the theorem
and module lists come from the sources, never a hand list.

Most tests run without coqc: they read recorded coqc output or a build that printed the pinned file.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from coq_stub import pinned_build

from geosched.verify import coq_compile, coq_engine, coq_evidence, coq_output, coq_pinned
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, METHODS, ROWS, check_rows, combine

COQ_DIR = coq_engine.COQ_DIR
ROOT = COQ_DIR.parent.parent
_coq_installed = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                                    reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def needs_coq(test):
    """Skipped without coqc; marked ``coq_build`` (it compiles or reads the build cache: the mutation runner, whose
    mutants change the cache key, leaves these out)."""
    return pytest.mark.coq_build(_coq_installed(test))


MARK = "geosched_marker = 0\n     : nat\n"
# coqc's output for a statements script (recorded from a build): two Checks and Print Assumptions, two Prints,
# Print Libraries
QUERIES = [("check", "Model.tel_finish_times"), ("assumptions", "Model.tel_finish_times"),
           ("check", "Thm32.open_one"), ("assumptions", "Thm32.open_one"), ("print", "Model.peak"),
           ("print", "Model.req"), ("libraries", "")]
RECORDED = ("Model.tel_finish_times\n     : Model.tel nil nil = 0 /\\\n       (forall (s o x : nat) (rs : list (nat * "
            "nat)) (xs : list nat),\n        Model.tel ((s, o) :: rs) (x :: xs) = x + o + Model.tel rs xs)\n" + MARK
            + "Closed under the global context\n" + MARK
            + "Thm32.open_one\n     : forall n : nat,\n       n <= n\n" + MARK
            + "Axioms:\nThm32.some_axiom : False\n" + MARK
            + "Model.peak = fun r : Model.req => Model.prompt r + Model.output r\n     : Model.req -> nat\n\n"
              "Arguments Model.peak r\n" + MARK
            + "Model.req = (nat * nat)%type\n     : Set\n" + MARK
            + "Loaded library files: \n  Coq.Init.Notations\n  GeoSched.Model\n" + MARK)


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


def test_the_recorded_output_parses_by_query():
    parsed = coq_output.parse_statements(RECORDED, QUERIES)
    assert parsed["statements"]["tel_finish_times"] == (
        "Model.tel nil nil = 0 /\\ (forall (s o x : nat) (rs : list (nat * nat)) (xs : list nat), "
        "Model.tel ((s, o) :: rs) (x :: xs) = x + o + Model.tel rs xs)")
    assert parsed["closed"] == {"tel_finish_times": True, "open_one": False}
    assert parsed["modules"] == {"tel_finish_times": "Model", "open_one": "Thm32"}
    assert parsed["assumptions"]["open_one"] == "Axioms:\nThm32.some_axiom : False"
    assert parsed["definitions"] == {
        "Model.peak": "Model.peak = fun r : Model.req => Model.prompt r + Model.output r : Model.req -> nat "
                      "Arguments Model.peak r",
        "Model.req": "Model.req = (nat * nat)%type : Set"}
    assert parsed["libraries"] == ["Coq.Init.Notations", "GeoSched.Model"]
    assert coq_output.normalise_statement("x\n  : forall  n,\n  n = n") == "forall n, n = n"
    assert coq_output.normalise_statement("Error: no such theorem") == ""


def test_an_output_cut_short_drops_the_answer_it_did_not_finish():
    cut = RECORDED[:RECORDED.index("Axioms:")] + "Axioms:\nThm32.some_axiom"  # coqc stopped in the 4th answer
    parsed = coq_output.parse_statements(cut, QUERIES)
    assert "tel_finish_times" in parsed["closed"] and "open_one" not in parsed["closed"]
    assert "open_one" in parsed["statements"] and parsed["definitions"] == {}


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
    assert "coqdep" in build and not re.search(r'FILES="[A-Z]', build)  # the order is coqdep's
    assert (COQ_DIR / "_CoqProject").read_text().split() == ["-R", ".", "GeoSched"]
    generated = COQ_DIR / "Assumptions.v"  # absent from git; a local build.sh run writes it
    assert not generated.exists() or "Generated by build.sh" in generated.read_text()


def test_rows_cite_theorems_by_name_and_no_statement_is_written_twice():
    """Issue 47 item 3: one statement per theorem. Every citation is a name of verify/coq; no Python source of the
    package (theory/, verify/, reference_impl/) holds a pinned statement as a string (a second copy to keep)."""
    pinned = coq_pinned.read()
    cited = {name for claim in ROWS for name in coq_evidence.cited_theorems(claim)}
    assert cited and cited <= set(coq_engine.THEOREMS) and all(isinstance(n, str) for n in cited)
    statements = {" ".join(s.split()) for s in pinned.theorems.values()}
    copies = []
    for folder in ("theory", "verify", "reference_impl", "geosched"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                        " ".join(node.value.split()) in statements:
                    copies.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert copies == []


def test_a_row_that_gives_a_statement_is_refused_at_import():
    from geosched.theory import DERIVATIONS

    volume = CLAIMS["kong.volume"]
    paired = dataclasses.replace(volume, coq_whole=(("volume_is_memory_time", "forall r, ..."),))
    with pytest.raises(Exception, match="cite by name"):
        check_rows(tuple(paired if c.id == "kong.volume" else c for c in ROWS), METHODS, DERIVATIONS)
    bad = dataclasses.replace(volume, coq_whole=())
    with pytest.raises(Exception, match="coq citations"):
        check_rows(tuple(bad if c.id == "kong.volume" else c for c in ROWS), METHODS, DERIVATIONS)


def test_the_rows_are_proved_when_coqc_prints_the_pinned_file(fake):
    fake(pinned_build())
    assert _word(CLAIMS["kong.thm3.2"])[:2] == ("proved", "proved (Coq, every n: thm32_svf_competitive, "
                                                "thm32_svf_feasible, svf_sim_eq, tel_finish_times)")
    assert _word(CLAIMS["kong.sjf_unbounded"])[:2] == ("proved", "proved (Coq, every n: sjf_not_competitive, "
                                                       "tel_finish_times)")


def test_a_statement_that_differs_from_the_pinned_file_refutes_the_row_naming_the_theorem(fake):
    printed = coq_pinned.read().theorems["thm32_svf_competitive"].replace("(3 * M - P)", "(4 * M - P)")
    fake(pinned_build({"thm32_svf_competitive": printed}))
    status, text, evidence = _word(CLAIMS["kong.thm3.2"])
    coq = evidence["coq:thm32_svf_competitive"]
    assert coq.status == "refuted" and "thm32_svf_competitive states" in coq.message and "(4 * M - P)" in coq.message
    assert status == "refuted" and "implementation check coq:thm32_svf_competitive" in text


def test_the_whole_claim_needs_every_listed_theorem(fake):
    # an SVF starting everything at step 0 satisfies the bound alone: feasibility and TEL's meaning are needed too
    fake(pinned_build(assumptions={"thm32_svf_feasible": "Axioms:\nThm32.planted : False"}))
    status, text, _ = _word(CLAIMS["kong.thm3.2"])
    assert status != "proved" and "Coq, every n" not in text
    assert list(CLAIMS["kong.thm3.2"].coq_whole) == ["thm32_svf_competitive", "thm32_svf_feasible", "svf_sim_eq",
                                                     "tel_finish_times"]
    assert list(CLAIMS["kong.sjf_unbounded"].coq_whole) == ["sjf_not_competitive", "tel_finish_times"]


def test_sjf_unbounded_is_not_proved_by_the_family_tel_formula(fake):
    """The SJF row's whole claim is unboundedness: pointing it at sjf_family_tel (a true, pinned closed form) is
    refuted by the row's own form ("for every c ..."), never proved."""
    fake(pinned_build())
    row = CLAIMS["kong.sjf_unbounded"]
    swapped = dataclasses.replace(
        row, coq_whole=tuple("sjf_family_tel" if n == "sjf_not_competitive" else n for n in row.coq_whole),
        coq=tuple(c for c in row.coq if c != "sjf_family_tel"), coq_constant=("sjf_family_tel", "unbounded"),
        methods=tuple(m for m in row.methods if m != "coq:sjf_not_competitive"))
    status, text, evidence = _word(swapped)
    assert status == "refuted" and "sjf_family_tel" in text
    assert "not 'for every c" in evidence["coq:sjf_family_tel"].message


def test_the_cache_key_covers_the_build_method(tmp_path, monkeypatch):
    """The build cache is shared by every worktree: a build with another method (coq_compile.py, or the code that
    reads coqc's output) never reads or writes the same folder."""
    before = coq_engine.source_hash()[0]
    for module in (coq_output, coq_compile):
        copy = tmp_path / Path(module.__file__).name
        shutil.copy(module.__file__, copy)
        monkeypatch.setattr(module, "__file__", str(copy))
        assert coq_engine.source_hash()[0] == before
        copy.write_text(copy.read_text() + "\n# another method\n")
        assert coq_engine.source_hash()[0] != before
        monkeypatch.undo()


def test_a_cached_build_is_parsed_again_on_every_read(tmp_path, monkeypatch):
    """The manifest keeps coqc's raw output; the statements and closedness come from parsing it now."""
    manifest = {"status": "ok", "message": "m", "coqc_version": "v", "coqchk": True, "coqchk_axioms": "<none>",
                "statements": [{"queries": QUERIES, "output": RECORDED, "status": "ok"}]}
    build = coq_engine._from_manifest(manifest, tmp_path, "0" * 64, 0.0, from_cache=True)
    assert build.theorems == {"tel_finish_times": True, "open_one": False}
    assert build.statements["open_one"] == "forall n : nat, n <= n" and "Model.peak" in build.definitions
    monkeypatch.setattr(coq_output, "CLOSED", "Closed")  # a reader that misreads the output: seen at once
    assert not coq_engine._from_manifest(manifest, tmp_path, "0" * 64, 0.0, from_cache=True).theorems[
        "tel_finish_times"]


def test_the_engine_checks_the_pinned_statements_it_relies_on(fake):
    # the executable runs the *_engine functions: each equality is checked against the pinned file, not by name
    fake(pinned_build(engine=True))
    assert coq_engine._ready_build().engine
    pinned = coq_pinned.read()
    for theorem in coq_engine.ENGINE_THEOREMS:
        fake(pinned_build({theorem: pinned.theorems[theorem].replace(" = ", " <> ", 1)}, engine=True))
        with pytest.raises(Exception, match=f"{theorem} is not the reviewed one: {theorem} states"):
            coq_engine._ready_build()
    fake(pinned_build(definitions={"SvfEngine.svf_engine": "SvfEngine.svf_engine = fun M rs => nil"}, engine=True))
    with pytest.raises(Exception, match="the definition SvfEngine.svf_engine"):
        coq_engine._ready_build()


@needs_coq
def test_the_pinned_file_is_what_coqc_prints():
    """The reviewed file equals what coqc prints for the development, byte for byte as `--pin` writes it: every
    theorem's statement and every definition the statements reach, none missing, none stale."""
    build = coq_engine.build()
    assert build.status == "ok", build.message
    assert set(build.statements) == set(coq_engine.THEOREMS)  # every Theorem/Corollary checked, none missing
    pinned = coq_pinned.read()
    printed = coq_pinned.Printed(build.statements, build.definitions, build.assumptions)
    assert {name: coq_pinned.problems(name, printed, pinned) for name in pinned.theorems} == \
        {name: [] for name in pinned.theorems}
    added = sorted(set(coq_engine.THEOREMS) - set(pinned.theorems))  # a theorem added since: its rows say so
    if added:
        import warnings

        warnings.warn(f"not pinned yet: {', '.join(added)} (python -m geosched.verify.coq_engine --pin)", stacklevel=1)


def test_the_pin_command_reproduces_the_file_from_a_build(tmp_path):
    """`--pin` writes exactly the reviewed file from a build that printed it (the file is the build's output,
    sorted and wrapped; nothing is written by hand)."""
    written = coq_engine.pin(pinned_build(), tmp_path / "statements.txt")
    assert written.read_text() == coq_pinned.PINNED_FILE.read_text()


def test_adding_a_coq_file_and_theorem_touches_only_the_file(tmp_path):
    """Issue 31, item 3 and issue 47: a new .v file with a Theorem is ordered by coqdep and checked by the build's
    statements script; the theorem's words are its doc comment (the generated tables show them)."""
    copy = tmp_path / "coq"
    shutil.copytree(COQ_DIR, copy, ignore=shutil.ignore_patterns("*.vo", "*.vok", "*.vos", "*.glob", ".*.aux"))
    (copy / "AddedByTest.v").write_text("From GeoSched Require Import Model.\n"
                                        "(** TEL of nothing is 0. *)\n"
                                        "Theorem added_by_test : forall rs : list req, tel rs [] = 0.\n"
                                        "Proof. intros rs. unfold tel, tel_js. destruct rs; reflexivity. Qed.\n")
    assert coq_output.declared_theorems(copy)["added_by_test"] == "AddedByTest"
    assert coq_output.theorem_words(copy)["added_by_test"] == "TEL of nothing is 0."
    script, queries = coq_output.statements_script(["Model", "AddedByTest"], {"added_by_test": "AddedByTest"}, ())
    assert "Print Assumptions GeoSched.AddedByTest.added_by_test." in script
    if shutil.which("coqdep") is None:
        pytest.skip("coqdep not installed (Debian package coq)")
    deps = coq_compile.dependencies(copy, [p.stem for p in copy.glob("*.v") if p.stem != "Extract"])
    order = coq_compile.topological(deps)
    assert "AddedByTest" in order and order.index("Model") < order.index("AddedByTest")
    assert deps["Model"] == set() and deps["AddedByTest"] == {"Model"} and "Extract" not in order


def test_coqchks_summary_and_the_first_error_are_read_from_recorded_output():
    summary = ("coqchk: some preamble\nCONTEXT SUMMARY\n===============\n\n* Theory: Set is predicative\n\n"
               "* Axioms:\n    <none>\n\n* Constants/Inductives relying on type-in-type: <none>\n")
    assert coq_output.axioms(summary) == "<none>" and coq_output.development_axioms(summary) == []
    admitted = summary.replace("<none>\n\n", "Coq.ssr.ssrunder.Under_rel.Over_rel\n    GeoSched.Planted.lemma\n\n", 1)
    assert coq_output.development_axioms(admitted) == ["GeoSched.Planted.lemma"]  # -norec's admitted Coq.* apart
    assert coq_output.axioms("no summary") == "unparsed" and coq_output.development_axioms("x") == ["unparsed"]
    failed = ('coqc -q -R . GeoSched Model.v\nFile "./Model.v", line 82, characters 37-48:\nError:\n'
              "In environment\ns, o, x : nat\n")
    assert coq_output.first_error(failed) == 'File "./Model.v", line 82, characters 37-48: Error: In environment'
    assert coq_output.first_error("Anomaly: bug.\nPlease report.") == "Anomaly: bug. Please report."
    assert coq_output.first_error("Error at the start") == "Error at the start"
    assert coq_output.first_error("just a line\nthe last line\n") == "the last line"
    assert coq_output.first_error("") == ""
    assert len(coq_output.first_error("Error: " + "x" * 500)) == 400
