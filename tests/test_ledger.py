"""The claims ledger: statuses come from running checks, follow one rule, and a broken formula changes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docs_pages import tables

from geosched.cli import main
from geosched.errors import UnknownNameError, ValidationError
from geosched.theory.claim import SECTIONS, sort_key
from geosched.verify import ledger
from geosched.verify.evidence import Evidence
from geosched.verify.ledger import CLAIM_IDS, CLAIMS, ROWS, Claim, combine, run_claims

THEORY_DIR = Path(__file__).resolve().parent.parent / "theory"


def _documented_ids() -> list[str]:
    """The ids of docs/claims.md's quick table, in its order (a committed file: the order before any change)."""
    import re

    return re.findall(r"^\| `([^`]+)` \| `", tables.block(tables.CLAIMS_PAGE.read_text(), "ledger quick words"), re.M)


def _shown(ids: list[str], where: str, command: str = tables.QUICK_COMMAND) -> list[str]:
    """``ids`` as a page shows them must be the ledger's rows in its order; a row added since (not on the page
    yet) is announced as added after the recorded run, with ``command``, not failed."""
    tables.added_after(ids, list(CLAIM_IDS), where, command)
    return ids


def test_every_theory_file_declares_its_row_and_the_ledger_has_it():
    """Walked here on disk, independently of the registry's package walk: a module that derives a claim
    (``def derivation``) declares its row, and the ledger holds it, so none is silently dropped."""
    import importlib

    found = []
    for path in sorted(THEORY_DIR.glob("*.py")):
        if path.stem in ("__init__", "claim", "derivation", "registry"):
            continue
        module = importlib.import_module(f"geosched.theory.{path.stem}")
        rows = (module.CLAIM,) if hasattr(module, "CLAIM") else getattr(module, "CLAIMS", ())
        assert rows or "def derivation" not in path.read_text(), f"{path.name} derives a claim but declares no row"
        found += [row.id for row in rows]
    assert found and set(found) <= set(CLAIMS)
    assert set(found) == {c.id for c in ROWS if "derivation" in c.methods}


def test_the_printed_order_is_the_documented_order_and_total():
    _shown(_documented_ids(), "docs/claims.md quick words")  # the ledger's order; a new row: added after
    keys = [sort_key(c) for c in ROWS]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert all(c.order[0] in SECTIONS for c in ROWS)


def test_the_docs_table_regenerates_byte_for_byte_in_the_ledger_order():
    """``--write-docs`` writes the quick table in :data:`CLAIM_IDS` order: rebuilding it from the documented
    words gives docs/claims.md back, byte for byte (a fresh run is compared in the slow test below)."""
    import re

    text = tables.CLAIMS_PAGE.read_text()
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| (.*) \|$", tables.block(text, "ledger quick words"), re.M)
    documented = {claim_id: (status, message) for claim_id, status, message in rows}
    claims = [{"id": c, "status": documented[c][0], "message": documented[c][1]} for c in CLAIM_IDS if c in documented]
    assert tables.replace_block(text, "ledger quick words", tables.words_table(claims, "quick")) == text


def _refused(rows, error=ValidationError):
    from geosched.theory import DERIVATIONS

    with pytest.raises(error) as info:
        ledger.check_rows(tuple(rows), ledger.METHODS, DERIVATIONS)
    return str(info.value)


def test_rows_the_ledger_cannot_run_are_refused():
    from dataclasses import replace

    from geosched.theory import DERIVATIONS

    ledger.check_rows(ROWS, ledger.METHODS, DERIVATIONS)  # the real rows pass
    rows = list(ROWS)
    first, last = rows[0], rows[-1]
    assert "no.such.method" in _refused([replace(first, methods=(*first.methods, "no.such.method")), *rows[1:]],
                                        UnknownNameError)
    assert "no.such.claim" in _refused([replace(first, depends_on=("no.such.claim",)), *rows[1:]], UnknownNameError)
    # a row may rest on one printed after it (kong.thm3.4 on svf.poisson), but not on itself through others
    ledger.check_rows(tuple([replace(first, depends_on=(last.id,)), *rows[1:]]), ledger.METHODS, DERIVATIONS)
    cycle = _refused([replace(first, depends_on=(last.id,)), *rows[1:-1], replace(last, depends_on=(first.id,))])
    assert "cycle" in cycle and f"{first.id} -> {last.id} -> {first.id}" in cycle
    assert "declared twice" in _refused([*rows, replace(last, order=(last.order[0], last.order[1] + 1))])
    assert "already" in _refused([*rows[:-1], replace(last, order=rows[-2].order)])
    assert "section" in _refused([*rows[:-1], replace(last, order=None)])
    assert "section" in _refused([*rows[:-1], replace(last, order=("no-such-section", 1))])
    assert "theory module" in _refused([*rows[:-1], replace(last, methods=("derivation",))])
    assert "must run 'derivation'" in _refused([replace(first, methods=first.methods[1:]), *rows[1:]])
    assert "no_derivation" in _refused([*rows[:-1], replace(last, no_derivation="")])
    leaf = next(c for c in rows if "derivation" in c.methods and not any(c.id in r.depends_on for r in rows))
    assert "no ledger row" in _refused([c for c in rows if c is not leaf])  # a derivation without its row


def test_an_unknown_method_name_is_an_error_when_the_ledger_is_imported():
    import subprocess
    import sys

    code = ("from dataclasses import replace; import geosched.theory.kong_volume as m; "
            "m.CLAIM = replace(m.CLAIM, methods=('derivation', 'enumeration:volumes')); "
            "import geosched.verify.ledger")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0 and "UnknownNameError" in run.stderr and "enumeration:volumes" in run.stderr
    assert "kong.volume" in run.stderr


def test_a_method_name_is_registered_once():
    from geosched.verify.methods import add_methods

    add_methods({"enumeration:volume": ledger.METHODS["enumeration:volume"]})  # the same function again: fine
    with pytest.raises(ValidationError, match="registered twice"):
        add_methods({"enumeration:volume": lambda claim, ctx: None})


def test_quick_does_not_run_the_trace_and_says_so():
    claim = run_claims(["kong.emp.svf_latency"], mode="quick").claims[0]
    assert claim.status == "not_run" and "--quick" in claim.note


def test_every_row_says_statement_formalization_and_difference():
    from geosched.theory import DERIVATIONS
    from geosched.verify.exhaustive import VARIANTS

    for claim in ROWS:
        assert claim.statement and claim.formalization and claim.difference, claim.id
        assert all(m in ledger.METHODS for m in claim.methods), claim.id
        assert all(d in CLAIMS for d in claim.depends_on), claim.id
        # a derivation, or the reason it has none
        assert (claim.id in DERIVATIONS) == ("derivation" in claim.methods) == (not claim.no_derivation), claim.id
        assert all(v in VARIANTS for v in claim.exhaustive_variants), claim.id
        # what would flip the word is said for the empirical rows, and only for them
        kinds = {m.split(":")[0] for m in claim.methods}
        assert bool(claim.flips) == (kinds <= {"trace", "cluster"}), claim.id


def test_the_claims_doc_has_every_row():
    import re

    shown = re.findall(r"^\| `([^`]+)` \|", tables.block(tables.CLAIMS_PAGE.read_text(), "ledger rows"), re.M)
    _shown(shown, "docs/claims.md rows", "python docs/tables.py")


def test_cli_json_one_claim(capsys):
    assert main(["claims", "--json", "--quick", "--claim", "kong.volume"]) == 0
    data = json.loads(capsys.readouterr().out)
    (claim,) = data["claims"]
    assert claim["id"] == "kong.volume" and claim["status"] == "proved"
    assert claim["formalization"] and claim["difference"]
    methods = {e["method"]: e for e in claim["evidence"]}
    assert methods["enumeration:volume"]["status"] == "checked"
    assert methods["enumeration:volume"]["discriminating"] is True
    assert set(data["versions"]) == {"geosched", "python", "z3", "cvc5", "sympy", "numpy", "coq_statements"}
    assert data["seed"] == 0 and data["mode"] == "quick"


def test_cli_unknown_claim_is_a_one_line_error(capsys):
    assert main(["claims", "--claim", "kong.nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "kong.nope" in err and "kong.volume" in err


def test_restart_needs_thorough_and_out(capsys):
    assert main(["claims", "--restart"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--restart" in err


def test_unknown_claim_raises():
    with pytest.raises(UnknownNameError):
        run_claims(["nope"])


def test_broken_volume_formula_is_refuted(monkeypatch, tmp_path):
    import geosched.reference_impl.model as model

    monkeypatch.setattr(model, "volume", lambda s, o: s * o + (o * o - o) // 2)  # (o^2 - o)/2: wrong
    claim = run_claims(["kong.volume"], mode="quick", out=tmp_path).claims[0]
    assert claim.status == "refuted"
    assert claim.counterexample and Path(claim.counterexample).is_file()
    data = json.loads(Path(claim.counterexample).read_text())
    assert data["model_volume"] != data["sum_formula"]


def test_a_constant_that_disagrees_with_theory_is_named(monkeypatch, tmp_path):
    from geosched.verify import exhaustive

    # a wrong constant is our bug: it is not masked, the row is refuted and names an implementation check
    monkeypatch.setattr(exhaustive, "BOUND_NUMERATOR", 0)
    claim = run_claims(["kong.thm3.2"], mode="quick", out=tmp_path, follow_dependencies=False).claims[0]
    assert claim.status == "refuted" and "implementation check" in claim.message
    evidence = {e.method: e for e in claim.evidence}
    assert evidence["exhaustive:thm3.2"].status == "refuted" and evidence["consts:thm3.2"].status == "refuted"


def test_evidence_text_comes_from_the_constants_checked(monkeypatch):
    from geosched.verify import exhaustive

    monkeypatch.setattr(exhaustive, "JAILLET_CONSTANT", 7)
    claim = run_claims(["jaillet.thm4.3"], mode="quick", follow_dependencies=False).claims[0]
    evidence = {e.method: e for e in claim.evidence}
    assert "TEL <= 7 TEL(OPT)" in evidence["exhaustive:jaillet"].message
    assert evidence["consts:jaillet"].status == "refuted"
    assert claim.status == "refuted" and "implementation check" in claim.message


def test_a_refuted_lemma_propagates_to_the_theorem(monkeypatch):
    from geosched.theory import kong_lemma_a2

    monkeypatch.setattr(kong_lemma_a2, "FACTOR", 1)  # p o + o <= v: false, so Lemma A.2's derivation is refuted
    result = run_claims(["kong.thm3.2"], mode="quick")
    claim = result.claims[0]
    assert claim.status == "unknown" and "kong.lemmaA.2 is refuted" in claim.message
    assert {c.id: c.status for c in result.claims}["kong.thm3.2"] == "unknown"


def test_table_has_one_row_per_claim_with_used_and_discriminating():
    result = run_claims(["kong.volume"], mode="quick")
    lines = result.table(width=80).splitlines()
    assert lines[0].split()[:4] == ["id", "status", "used", "disc."]
    assert lines[2].split()[:2] == ["kong.volume", "proved"]
    assert "enumeration:volume" in result.evidence_table(width=80)


def test_table_fits_the_terminal_with_a_legend_and_counts(monkeypatch):
    result = run_claims(["kong.volume", "kong.cr48", "kong.emp.onebit"], mode="quick")
    for width in (60, 80, 120):
        for text in (result.table(width=width), result.evidence_table(width=width)):
            assert max(len(line) for line in text.splitlines()) <= width, width
        flat = " ".join(result.table(width=width).split())
        assert all(" ".join(c.message.split()) in flat for c in result.claims)  # nothing is cut
        table = result.table(width=width)
        words = {line.split()[0]: line.split()[1] for line in table.splitlines()[2:] if line[:1].strip()
                 and line.split()[0] in {c.id for c in result.claims}}
        assert words == {c.id: c.status for c in result.claims}  # the headline word whole, on the row's line
        assert "used = " in table.replace("\n", " ") and "disc. = " in table.replace("\n", " ")
        assert "3 claims: proved 1, not_run 2" in table.replace("\n", " ")
    monkeypatch.setenv("COLUMNS", "70")
    assert max(len(line) for line in result.table().splitlines()) <= 70


# ------------------------------------------------------------------- the combination rule

CLAIM = Claim("x", "src", "stmt", "formal", "none", ())


def _e(kind, status, **kw):
    return Evidence("m-" + kind + "-" + status, kind, status, "detail", **kw)


def test_rule_refuted_wins():
    status, text, cx, _ = combine(CLAIM, [_e("proof", "proved"), _e("bounded", "refuted", counterexample="f.json")],
                                  {})
    assert status == "refuted" and cx == "f.json" and "f.json" in text


def test_rule_proved_needs_every_proof_step_and_dependency():
    assert combine(CLAIM, [_e("proof", "proved"), _e("bounded", "checked", bound="B")], {})[0] == "proved"
    open_step = {"open_steps": [{"index": 3, "covered_by": ["core:x"]}]}
    covered = _e("bounded", "checked", bound="n<=5", covers={"core:x": ("checked", "n<=5")})
    status, text, _, note = combine(CLAIM, [_e("proof", "unknown", data=open_step), covered], {})
    assert status == "checked" and "n<=5" in text and "step 3" in note
    uncovered = combine(CLAIM, [_e("proof", "unknown", data=open_step)], {})
    assert uncovered[0] == "unknown" and "unchecked: step 3" in uncovered[3]
    relative = [_e("proof", "proved", depends_on=("dep",))]
    assert combine(CLAIM, relative, {"dep": "checked"})[0] == "checked"
    assert "proved relative to dep" in combine(CLAIM, relative, {"dep": "checked"})[3]
    assert combine(CLAIM, relative, {"dep": "proved"})[0] == "proved"


def test_rule_refuted_or_unknown_dependencies_propagate():
    for dep_status in ("refuted", "unknown", "error", "not_run"):
        status, text, _, _ = combine(CLAIM, [_e("proof", "proved"), _e("bounded", "checked", bound="B")],
                                     {"dep": dep_status})
        assert status == "unknown" and f"dep is {dep_status}" in text


def test_rule_never_stronger_than_a_dependency():
    assert combine(CLAIM, [_e("bounded", "checked", bound="B")], {"dep": "vacuous"})[0] == "vacuous"
    assert combine(CLAIM, [_e("bounded", "checked", bound="B")], {"dep": "consistent"})[0] == "consistent"


def test_rule_vacuous_never_counts_as_checked():
    assert combine(CLAIM, [_e("bounded", "vacuous", bound="B")], {})[0] == "vacuous"
    assert combine(CLAIM, [_e("bounded", "vacuous"), _e("statistical", "vacuous")], {})[0] == "vacuous"
    assert combine(CLAIM, [_e("bounded", "vacuous"), _e("bounded", "checked", bound="B")], {})[0] == "checked"


def test_rule_statistical_and_unknown():
    status, text, _, _ = combine(CLAIM, [_e("proof", "unknown"), _e("statistical", "consistent", samples=80)], {})
    assert (status, text) == ("consistent", "consistent in 80 samples")
    assert combine(CLAIM, [_e("proof", "unknown")], {})[0] == "unknown"
    assert combine(CLAIM, [], {})[0] == "unknown"


def test_rule_no_refutation_is_masked():
    # a supporting check alone proves nothing
    assert combine(CLAIM, [_e("supporting", "checked")], {})[0] == "unknown"
    # an implementation check that fails refutes the row and is named as such (issue 24: nothing masked)
    sim = _e("bounded", "refuted", implementation=True)
    status, text, _, _ = combine(CLAIM, [_e("supporting", "refuted"), sim], {})
    assert status == "refuted" and "implementation check m-supporting-refuted" in text
    status, text, _, _ = combine(CLAIM, [_e("proof", "proved"), _e("proof", "refuted")], {})
    assert status == "refuted" and "theory check m-proof-refuted" in text
    # a supporting check that did not finish: unknown, named
    status, text, _, _ = combine(CLAIM, [_e("supporting", "unknown"), _e("bounded", "checked", bound="B")], {})
    assert status == "unknown" and "m-supporting-unknown" in text


def test_rule_error_and_not_run():
    status, text, _, _ = combine(CLAIM, [_e("bounded", "checked", bound="B"), _e("supporting", "error")], {})
    assert status == "error" and "m-supporting-error" in text
    assert combine(CLAIM, [_e("bounded", "refuted"), _e("supporting", "error")], {})[0] == "refuted"
    assert combine(CLAIM, [_e("source", "not_run")], {})[0] == "not_run"


def test_a_crashing_check_is_that_rows_error_and_the_ledger_goes_on(monkeypatch, capsys):

    def boom(claim, ctx):
        raise ValidationError("referee", 1, "a bug inside a check is not bad input")

    monkeypatch.setitem(ledger.METHODS, "enumeration:volume", boom)
    result = run_claims(["kong.volume", "kong.cr48"], mode="quick")
    assert [c.status for c in result.claims] == ["error", "not_run"] and result.status == "error"
    assert "enumeration:volume" in result.claims[0].message
    assert any("a bug inside a check" in e.message for e in result.claims[0].evidence)
    # the exit code of a crash is 3: neither 2 (bad input) nor 1 (refuted)
    assert main(["claims", "--quick", "--claim", "kong.volume", "--no-progress"]) == 3
    assert "error" in capsys.readouterr().out


def test_a_hanging_check_has_a_time_limit(monkeypatch):
    import threading

    release = threading.Event()

    def hang(claim, ctx):  # an event loop that never returns (until the test ends)
        while not release.wait(0.05):
            pass

    monkeypatch.setitem(ledger.METHODS, "enumeration:volume", hang)
    try:
        result = run_claims(["kong.volume", "kong.cr48"], mode="quick", time_limit=1.0)
    finally:
        release.set()
    hung, other = result.claims
    assert hung.status == "unknown" and "enumeration:volume" in hung.message
    assert any("did not finish within its time limit of 1 s" in e.message for e in hung.evidence)
    assert other.status == "not_run"  # the ledger went on


def test_time_limit_is_validated():

    for bad in (0, -1.0, float("inf"), "5"):
        with pytest.raises(ValidationError, match="time_limit"):
            run_claims(["kong.volume"], mode="quick", time_limit=bad)


@pytest.mark.slow
def test_default_ledger_lists_every_claim_with_a_status():
    result = run_claims()
    assert [c.id for c in result.claims] == list(CLAIM_IDS)
    _shown(_documented_ids(), "docs/claims.md quick words")
    by_id = {c.id: c for c in result.claims}
    for claim in result.claims:
        assert claim.status in ledger.EVIDENCE_STATUSES
        for e in claim.evidence:
            assert e.status in ledger.EVIDENCE_STATUSES
            if e.kind in ("bounded", "statistical") and e.status == "vacuous":
                assert e.used is not None and e.discriminating is False
    assert by_id["kong.volume"].status == "proved"
    from geosched.verify.coq_engine import coq_available

    if coq_available():  # proved as a whole in Coq (verify/coq, docs/proved.md)
        assert by_id["kong.thm3.2"].message == ("proved (Coq, every n: thm32_svf_competitive, thm32_svf_feasible, "
                                                "svf_sim_eq, tel_finish_times)")
        assert by_id["kong.lemmaA.2.peak"].status == "proved"
        assert by_id["kong.lemmaA.2"].status == "proved"  # items 1-3 and the summed form (LemmaA2Sum.v)
        assert by_id["kong.thm3.3"].status == "proved"  # both readings (OneBit.v)
        # docs/claims.md's default words are this run's (seed 0, deterministic): the rows that read the shared trace
        # (trace:, cluster:) are compared only where the trace is present
        import re

        from conftest import TRACE

        documented = dict(re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|",
                                     tables.block(tables.CLAIMS_PAGE.read_text(), "ledger default words"), re.M))
        for claim in result.claims:
            reads_trace = any(m.startswith(("trace:", "cluster:")) for m in CLAIMS[claim.id].methods)
            if claim.id in documented and (TRACE.is_file() or not reads_trace):  # else added after the record
                assert documented[claim.id] == claim.status, claim.id
    else:
        assert by_id["kong.thm3.2"].status == "checked" and "via" in by_id["kong.thm3.2"].message
        assert by_id["kong.lemmaA.2.peak"].status == "checked"
        assert by_id["kong.lemmaA.2"].status == "checked" and by_id["kong.thm3.3"].status == "checked"
    assert by_id["kong.cr48"].status == "not_run"
    assert result.extra["cores"]["largest_n"]["z3"] >= 2 and result.extra["cores"]["largest_n"]["cvc5"] >= 2
    assert result.extra["exhaustive"]["cross_checked"] > 0
    assert result.variants["per_variant"]["svf_arrivals"]["failures"]


def test_a_malformed_thorough_checkpoint_is_one_line_and_names_restart(tmp_path, capsys):
    checkpoint = tmp_path / "exhaustive.checkpoint.json"
    checkpoint.write_text("{broken")
    assert main(["claims", "--thorough", "--out", str(tmp_path), "--claim", "kong.volume", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(checkpoint) in err and "--restart" in err
    assert checkpoint.read_text() == "{broken"  # nothing overwritten


def test_restart_discards_the_thorough_checkpoint(tmp_path):
    from geosched.verify.ledger import _prepare_checkpoint

    checkpoint = tmp_path / "exhaustive.checkpoint.json"
    checkpoint.write_text("{broken")
    _prepare_checkpoint("thorough", tmp_path, restart=True)
    assert not checkpoint.exists()


def test_generated_docs_blocks_round_trip():
    text = "a\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nb\n"
    new = tables.replace_block(text, "x", "new table")
    assert tables.block(new, "x") == "new table" and new.startswith("a\n") and new.endswith("b\n")

    with pytest.raises(ValidationError, match="docs marker"):
        tables.replace_block("no markers", "x", "t")
    claims = [{"id": "c1", "status": "proved", "message": "proved"}, {"id": "c2", "status": "vacuous", "message": "v"}]
    table = tables.words_table(claims, "quick")
    assert "| `c1` | `proved` | proved |" in table and "2 claims: `proved` 1, `vacuous` 1." in table


@pytest.mark.slow
def test_docs_words_table_equals_a_fresh_quick_run():
    import re

    from geosched.verify.coq_engine import coq_available

    if not coq_available():  # the table is written where coqc runs (CI installs it): Coq's words are in it
        pytest.skip("coqc is not installed: the documented words include the Coq proofs")
    text = tables.CLAIMS_PAGE.read_text()
    documented = dict(re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", tables.block(text, "ledger quick words"), re.M))
    fresh = run_claims(mode="quick")
    _shown(list(documented), "docs/claims.md quick words")
    assert documented == {c.id: c.status for c in fresh.claims if c.id in documented}
    papers = dict(re.findall(r"^\| `([^`]+)` \| [^|]* \| `([^`]+)` \|",
                             tables.block(tables.PROVED_PAGE.read_text(), "papers table"), re.M))
    assert papers == {c.id: c.status for c in fresh.claims if c.id in papers}  # docs/proved.md: the same run's words


def test_proved_md_lists_every_paper_statement_with_the_claims_md_word():
    # both tables are written by one quick run (python docs/tables.py --ledger quick): no
    # hand-written word in docs/proved.md can lag behind docs/claims.md's (the slow test above runs the ledger)
    import re

    words = dict(re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", tables.block(tables.CLAIMS_PAGE.read_text(),
                                                                          "ledger quick words"), re.M))
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]*) \| `([^`]+)` \| ([^|]*) \| ([^|]*) \|$",
                      tables.block(tables.PROVED_PAGE.read_text(), "papers table"), re.M)
    papers = [c.id for c in ROWS if c.order[0] in tables.PAPER_SECTIONS]
    tables.added_after([r[0] for r in rows], papers, "docs/proved.md papers table", tables.QUICK_COMMAND)
    assert "kong.thm3.3" in papers and "jaillet.thm4.3" in papers
    for claim_id, statement, word, rests, model in rows:
        assert word == words[claim_id], claim_id
        assert statement.strip() == " ".join(CLAIMS[claim_id].statement.split()).replace("|", "/")
        assert rests.strip() and model.strip()


def test_the_papers_table_says_what_each_word_rests_on():
    claims = [{"id": "kong.thm3.3", "status": "proved", "evidence": [
        {"method": "derivation", "kind": "proof", "status": "proved", "message": "all 9 steps", "bound": None},
        {"method": "coq:thm33_onebit_T", "kind": "coq", "status": "proved", "message": "m", "bound": None,
         "data": {"theorem": "thm33_onebit_T"}},
        {"method": "exhaustive:thm3.3", "kind": "bounded", "status": "checked", "message": "m", "bound": "n<=4"},
        {"method": "z3:x", "kind": "proof", "status": "unknown", "message": "m", "bound": None}]},
        {"id": "svf.lower_bound", "status": "proved", "evidence": []}]
    table = tables.papers_table(claims, "quick")
    row = next(line for line in table.splitlines() if line.startswith("| `kong.thm3.3`"))
    assert "Coq (every n): thm33_onebit_T; sympy: all 9 steps; bounded checks: exhaustive:thm3.3 (n<=4)" in row
    assert "E1: extra (ours): all prompts equal" in row and "z3:x" not in row
    assert "svf.lower_bound" not in table  # the package's own claims are not the papers'


def test_a_wrong_alpha_refutes_through_consts(monkeypatch):
    from fractions import Fraction

    from geosched.reference_impl.model import Instance

    monkeypatch.setattr(Instance, "alpha", property(lambda self: Fraction(max(r.prompt for r in self.requests),
                                                                           self.memory)))
    claim = run_claims(["kong.thm3.2"], mode="quick", follow_dependencies=False).claims[0]
    assert claim.status == "refuted" and "consts:thm3.2" in claim.message


def _enumeration_size(space, variant) -> tuple[int, int]:
    """(instances, request orders) of a variant on a space, counted from the space alone: the subset's filter,
    then every distinct order for "all", for "ties" when two shapes of one volume meet, else one."""
    import itertools

    from geosched.verify import exhaustive as ex

    v = ex.VARIANTS[variant]
    instances = orders = 0
    for multiset, low, high in ex.cells(space):
        prompts = {s for _, s, _ in multiset}
        peak = max(s + o for _, s, o in multiset)
        kept = sum(1 for memory in range(low, high + 1)
                   if v.subset is None or (len(prompts) == 1 and (v.subset == "equal_prompts" or memory >= 2 * peak)))
        distinct = len(set(itertools.permutations(multiset)))
        shapes_by_volume: dict[int, set] = {}
        for a, s, o in multiset:
            shapes_by_volume.setdefault(s * o + (o * o + o) // 2, set()).add((a, s, o))
        tie = any(len(shapes) > 1 for shapes in shapes_by_volume.values())
        per = distinct if v.orderings == "all" or (v.orderings == "ties" and tie) else 1
        instances += kept
        orders += kept * per
    return instances, orders


@pytest.mark.parametrize("mode", ["quick", "default", "thorough"])
def test_the_pinned_enumeration_sizes_are_the_spaces(mode):
    from geosched.verify import exhaustive as ex
    from geosched.verify.methods import ENUMERATION_SIZES

    space = {"quick": ex.QUICK_SPACE, "default": ex.DEFAULT_SPACE, "thorough": ex.THOROUGH_SPACE}[mode]
    for variant, pinned in ENUMERATION_SIZES[mode].items():
        assert _enumeration_size(space, variant) == pinned, (mode, variant)


def test_an_enumeration_of_another_size_is_refused(monkeypatch):
    from geosched.verify import methods
    from geosched.verify.evidence import Context

    ctx = Context("quick", None, 0, ("svf",))
    assert methods.METHODS["exhaustive:prop3.1"](CLAIMS["kong.prop3.1"], ctx).status == "checked"
    sizes = {**methods.ENUMERATION_SIZES, "quick": {**methods.ENUMERATION_SIZES["quick"], "svf": (1146, 1365)}}
    monkeypatch.setattr(methods, "ENUMERATION_SIZES", sizes)
    evidence = methods.METHODS["exhaustive:prop3.1"](CLAIMS["kong.prop3.1"], ctx)  # the shared run, read again
    # issue 46: a coverage below the pin refutes the evidence (fewer instances than pinned)
    assert evidence.status == "refuted" and "coverage lost: covered instances 1145 of 1146" in evidence.message
