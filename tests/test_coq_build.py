"""The Coq development builds, its main theorems are closed, coqchk accepts it (issue 22, item 2).

* no ``Admitted``, ``admit``, ``Axiom``, ``Parameter`` or ``Conjecture`` in ``verify/coq/*.v``
  (outside comments): runs without coqc;
* ``Print Assumptions`` prints "Closed under the global context" for every main theorem, and
  ``coqchk`` checks the compiled library and finds no axiom;
* the build cache is keyed by the sources and the coqc version, and says where a build came from.

The build tests skip when coqc is absent, unless ``GEOSCHED_REQUIRE_COQ=1`` (CI).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from geosched.verify import coq_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the dev-only mutation tooling

COQ_DIR = coq_engine.COQ_DIR
FORBIDDEN = re.compile(r"(?<![\w'])(Admitted|admit|Axioms?|Parameters?|Conjecture)(?![\w'])")
needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def strip_comments(text: str) -> str:
    """Coq source without its (nested) comments ``(* ... *)``; string literals kept."""
    out, depth, k = [], 0, 0
    while k < len(text):
        if text.startswith("(*", k):
            depth, k = depth + 1, k + 2
        elif depth and text.startswith("*)", k):
            depth, k = depth - 1, k + 2
        else:
            if not depth:
                out.append(text[k])
            k += 1
    return "".join(out)


def forbidden_words(text: str) -> list[str]:
    return FORBIDDEN.findall(strip_comments(text))


def test_the_grep_can_fail():
    assert forbidden_words("Lemma x : True.\nProof. admit. Admitted.") == ["admit", "Admitted"]
    assert forbidden_words("Axiom ax : False. Parameter p : nat. Conjecture c : True.") == [
        "Axiom", "Parameter", "Conjecture"]
    assert forbidden_words("(* an Axiom (* nested: Admitted *) in a comment *) Qed.") == []
    assert forbidden_words("Lemma admitted_free : True.") == []


def test_no_admitted_axiom_parameter_or_conjecture_in_the_sources():
    sources = sorted(COQ_DIR.glob("*.v"))
    assert {p.stem for p in sources} >= {"Model", "Svf", "Volume", "Prop31", "LemmaA2", "Extract"}
    for path in sources:
        assert forbidden_words(path.read_text(encoding="utf-8")) == [], path.name


def test_every_main_theorem_names_a_source_file():
    for theorem, module in coq_engine.THEOREMS.items():
        text = strip_comments((COQ_DIR / f"{module}.v").read_text(encoding="utf-8")) \
            if (COQ_DIR / f"{module}.v").exists() else ""
        if not text:
            pytest.skip(f"{module}.v not in the tree yet")
        assert re.search(rf"^(Theorem|Corollary)\s+{theorem}\b", text, re.M), f"{theorem} not in {module}.v"


@pytest.fixture(scope="module")
def built():
    result = coq_engine.build()
    assert result.status == "ok", result.message
    return result


@needs_coq
def test_print_assumptions_closed_for_every_main_theorem(built):
    assert set(built.theorems) == set(coq_engine.THEOREMS)  # every Theorem and Corollary of the sources
    for theorem in coq_engine.THEOREMS:
        assert built.assumptions[theorem] == coq_engine.CLOSED, (theorem, built.assumptions[theorem])
        assert built.closed(theorem)
        assert built.statements[theorem] and not built.statements[theorem].startswith(theorem)  # the type alone


@needs_coq
def test_coqchk_checked_the_library_and_found_no_axiom(built):
    assert built.coqchk
    assert built.coqchk_axioms == "<none>"


@needs_coq
def test_the_extraction_maps_arithmetic_to_big_integers(built):
    code = (Path(built.directory) / "src" / coq_engine.EXTRACTED).read_text(encoding="utf-8")
    assert coq_engine.unary_arithmetic(code) == []
    for name in ("svf_engine", "sjf_engine", "tel_engine", "feasibleb_engine"):
        assert f"let {name} " in code, name
    assert "Z.add" in code and "Z.mul" in code and "Z.leq" in code  # Zarith, no 63-bit int
    # the slow model functions are not what runs: no step-by-step search, no list of the window's steps
    assert "let rec find_start" not in code and "let rec seq" not in code
    assert built.engine


@needs_coq
def test_a_second_build_reads_the_cache(built):
    again = coq_engine.build()
    assert again.from_cache and again.source_hash == built.source_hash
    assert again.theorems == built.theorems
    assert again.provenance() in ("compiled this run", f"build cache {built.source_hash[:16]}")


def test_the_cache_key_follows_the_sources(tmp_path):
    copy = tmp_path / "coq"
    shutil.copytree(COQ_DIR, copy, ignore=shutil.ignore_patterns("*.vo", "*.vok", "*.vos", "*.glob"))
    first, _ = coq_engine.source_hash(copy)
    assert coq_engine.source_hash(copy)[0] == first
    (copy / "Model.v").write_text((copy / "Model.v").read_text() + "\n(* edited *)\n")
    assert coq_engine.source_hash(copy)[0] != first


def test_no_coqc_means_unavailable_not_ok(monkeypatch):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    result = coq_engine.build()
    assert result.status == "unavailable" and not result.success
    assert result.message.startswith("coqc not installed")
    assert not any(result.closed(t) for t in coq_engine.THEOREMS)


def test_every_coq_mutation_names_one_marked_line():
    from mutations import COQ_MUTATIONS

    assert {m.id for m in COQ_MUTATIONS} >= {"coq-factor2", "coq-window", "coq-growth"}
    root = COQ_DIR.parent.parent
    for mutation in COQ_MUTATIONS:
        assert (root / mutation.path).read_text().count(mutation.old) == 1, mutation.id
        assert mutation.old != mutation.new


@needs_coq
@pytest.mark.slow
def test_every_coq_mutation_stops_the_build_or_opens_a_theorem():
    from mutations import run_coq_mutations

    outcomes = run_coq_mutations()
    assert [o.id for o in outcomes if not o.caught] == [], [(o.id, o.how) for o in outcomes]
    assert all(o.how.startswith(("build stopped: ", "not closed: ")) for o in outcomes)


def _proved_md_script() -> str:
    """The coqtop session of docs/proved.md ("Stepping through a proof"), as written there."""
    text = (COQ_DIR.parent.parent / "docs" / "proved.md").read_text(encoding="utf-8")
    section = text[text.index("## Stepping through a proof"):]
    blocks = re.findall(r"```\n(.*?)```", section, flags=re.S)
    return next(b for b in blocks if b.startswith("From Coq Require"))


@needs_coq
def test_the_coqtop_session_of_the_docs_works(built):
    import subprocess

    script = _proved_md_script()
    assert "Qed." in script and script.rstrip().endswith("Print Assumptions again.")
    done = subprocess.run(["coqtop", "-R", ".", "GeoSched"], input=script, capture_output=True, text=True,
                          cwd=Path(built.directory) / "src", timeout=600)
    out = done.stdout + done.stderr
    assert "Error" not in out, out[-2000:]
    assert out.rstrip().splitlines()[-1].startswith("Closed under the global context") or \
        "Closed under the global context" in out.split("Print Assumptions")[-1]
