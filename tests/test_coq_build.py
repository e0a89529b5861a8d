"""The Coq development builds, its main theorems are closed, coqchk accepts it (issue 22, item 2; issue 44).

* no ``Admitted``, ``admit``, ``Axiom``, ``Parameter`` or ``Conjecture`` in ``verify/coq/*.v``
  (outside comments): runs without coqc;
* ``Print Assumptions`` prints "Closed under the global context" for every main theorem, and
  ``coqchk`` checks the compiled library and finds no axiom;
* the build cache is keyed by the sources, the coqc version and the build method, and says where a build came from;
* the build compiles independent files side by side in coqdep's order, measures each file's CPU, goes on with what
  still builds when a file fails, and reports an ``Admitted`` per theorem (a small planted development).

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


# a small development with one Admitted lemma, one file that does not compile and one file that needs it
PLANTED = {
    "Planted.v": ("From GeoSched Require Import Model.\n"
                  "Lemma planted_lemma : forall r, peak r <= peak r + 0.\nAdmitted.\n"
                  "(** rests on the admitted lemma *)\nTheorem planted_uses : forall r, peak r <= peak r + 0.\n"
                  "Proof. exact planted_lemma. Qed.\n"
                  "(** does not *)\nTheorem planted_clean : forall r, peak r = peak r.\nProof. reflexivity. Qed.\n"),
    "Broken.v": "From GeoSched Require Import Model.\nTheorem broken_thm : forall r, peak r = 0.\n"
                "Proof. reflexivity. Qed.\n",
    "Dependent.v": "From GeoSched Require Import Broken.\nTheorem dependent_thm : True.\nProof. exact I. Qed.\n",
}


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("planted-coq")
    for name in ("Model.v", "_CoqProject"):
        shutil.copy(COQ_DIR / name, folder / name)
    for name, text in PLANTED.items():
        (folder / name).write_text(text)
    return folder


@needs_coq
def test_an_admitted_lemma_and_a_broken_file_are_reported_per_theorem(planted):
    """Issue 46, item 4: the build goes on with what still builds; the theorem resting on the Admitted lemma is not
    closed (Print Assumptions names it, coqchk lists it), the others are; the broken file and the one that needs it
    are named, and their theorems are simply absent (the rows citing them say the file did not compile)."""
    result = coq_engine.check_sources(planted)
    assert result.status == "partial", result.message
    assert result.theorems == {"tel_finish_times": True, "feasibleb_correct": True, "volume2_eq": True,
                               "planted_uses": False, "planted_clean": True}
    assert "Planted.planted_lemma" in result.assumptions["planted_uses"]
    assert result.coqchk and result.coqchk_axioms == "GeoSched.Planted.planted_lemma"
    assert result.failed_files["Broken"].startswith('File "./Broken.v", line 3')
    assert result.failed_files["Dependent"] == "needs Broken.v, which did not compile"
    assert "Model.peak" in result.definitions and "Model.tel" in result.definitions
    assert {m: f["status"] for m, f in result.files.items()} == {"Model": "ok", "Planted": "ok", "Broken": "failed",
                                                                  "Dependent": "skipped"}
    assert all(f["cpu_seconds"] > 0 for m, f in result.files.items() if f["status"] != "skipped")


@needs_coq
def test_coqdep_gives_the_order_and_each_file_ends_after_what_it_requires(planted, tmp_path):
    from geosched.verify import coq_compile

    copy = tmp_path / "src"
    shutil.copytree(planted, copy)
    deps = coq_compile.dependencies(copy, ["Model", "Planted", "Broken", "Dependent"])
    assert deps == {"Model": set(), "Planted": {"Model"}, "Broken": {"Model"}, "Dependent": {"Broken"}}
    ended = []
    steps = coq_compile.compile_all(copy, deps, jobs=2, timeout=600, on_file=lambda step: ended.append(step.name))
    assert sorted(ended) == sorted(deps) and all(ended.index(d) < ended.index(m) for m in deps for d in deps[m])
    assert steps["Dependent"].status == "skipped" and (copy / "Planted.vo").exists()


def test_independent_files_run_side_by_side(monkeypatch, tmp_path):
    """With two workers, the two files that need only Model run at the same time (each waits for the other at a
    barrier: run one after the other, the first would wait in vain and the test fail); Last starts only after both."""
    import threading

    from geosched.verify import coq_compile

    barrier, running, order = threading.Barrier(2, timeout=120), set(), []

    def fake(name, command, cwd, timeout):
        order.append(("start", name))
        if name in ("Left", "Right"):
            running.add(name)
            barrier.wait()
        order.append(("end", name))
        return coq_compile.Step(name, "ok", 0.1, 0.1)

    monkeypatch.setattr(coq_compile, "run_measured", fake)
    deps = {"Model": set(), "Left": {"Model"}, "Right": {"Model"}, "Last": {"Left", "Right"}}
    steps = coq_compile.compile_all(tmp_path, deps, jobs=2, timeout=60)
    assert all(step.status == "ok" for step in steps.values()) and running == {"Left", "Right"}
    assert order.index(("start", "Last")) > max(order.index(("end", "Left")), order.index(("end", "Right")))


def test_the_longest_recorded_chain_starts_first():
    from geosched.verify import coq_compile

    deps = {"Model": set(), "Cheap": {"Model"}, "Heavy": {"Model"}, "Last": {"Heavy"}}
    paths = coq_compile.critical_paths(deps, {"Model": 1.0, "Cheap": 5.0, "Heavy": 2.0, "Last": 4.0})
    assert paths == {"Last": 4.0, "Heavy": 6.0, "Cheap": 5.0, "Model": 7.0}
    assert coq_compile.left_fraction(["Model", "Heavy"], {"Model": 1.0, "Heavy": 3.0, "Last": 4.0},
                                     ["Model", "Heavy", "Last"]) == 0.5
    assert coq_compile.left_fraction(["Model"], {}, ["Model", "Last"]) is None  # unrecorded: the caller counts files
    with pytest.raises(ValueError, match="cycle"):
        coq_compile.topological({"A": {"B"}, "B": {"A"}})


def test_cached_only_never_takes_the_lock(monkeypatch, tmp_path):
    """``claims --quick`` and ``prove`` read the cache without waiting for another process's build (issue 44)."""
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: [])
    monkeypatch.setattr(coq_engine, "cache_root", lambda: tmp_path)

    def locked(*args, **kwargs):
        raise AssertionError("cached_only took the build lock")

    monkeypatch.setattr(coq_engine, "_locked", locked)
    result = coq_engine.build(cached_only=True)
    assert result.status == "not_built" and result.lock_wait_seconds == 0.0


def test_a_background_build_reports_its_progress_and_leaves_the_progress_line_alone(monkeypatch, tmp_path):
    """With ``on_progress`` the build calls it (steps done, steps in all) and neither notes nor stages."""
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: [])
    monkeypatch.setattr(coq_engine, "cache_root", lambda: tmp_path)
    monkeypatch.setattr(coq_engine, "note", lambda *a: pytest.fail("note() from a background build"))
    monkeypatch.setattr(coq_engine, "staged", lambda *a: pytest.fail("staged() from a background build"))

    def build_into(target, digest, coqc, progress):
        for done in (1, 2, 3):
            progress(done, 3)
        return {"status": "failed", "message": "not run in this test", "failed_step": "coqc"}

    monkeypatch.setattr(coq_engine, "_build_into", build_into)
    seen = []
    assert coq_engine.build(on_progress=lambda done, total: seen.append((done, total))).status == "failed"
    assert seen == [(1, 3), (2, 3), (3, 3)]
