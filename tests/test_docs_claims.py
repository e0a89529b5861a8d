"""The docs' words about claims come from a run (issue 36, item 3): docs/claims.md's rows table is the
ledger's rows as declared, docs/theory.md's derivation words are a fresh ``check_claim`` of every
derivation, and ``geosched prove``'s status line is one sentence."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from docs_pages import tables

from geosched.verify.ledger import CLAIMS, ROWS, ClaimResult, Evidence, combine
from geosched.verify.prove import ledger_footer

ROOT = Path(__file__).resolve().parents[1]


def _block(text: str, name: str) -> str:
    return text.split(f"<!-- generated: {name} -->", 1)[1].split(f"<!-- end generated: {name} -->", 1)[0].strip()


def _tables():
    spec = importlib.util.spec_from_file_location("docs_tables", ROOT / "docs" / "tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rows_table_of_claims_md_is_the_ledgers_rows():
    shown = _block(tables.CLAIMS_PAGE.read_text(), "ledger rows")
    ids = re.findall(r"^\| `([^`]+)` \|", shown, re.M)
    tables.added_after(ids, [c.id for c in ROWS], "docs/claims.md rows", "python docs/tables.py")  # a new row: noted
    assert shown == tables.rows_table(ids=ids)  # every row it shows, as declared
    assert len(tables.rows_table().splitlines()) == len(ROWS) + 2  # one line per row, no row left out


def test_write_docs_regenerates_the_rows_table(tmp_path):
    page = tmp_path / "claims.md"
    page.write_text(tables.replace_block(tables.CLAIMS_PAGE.read_text(), "ledger rows",
                                         "| `kong.prop3.1` | checked on small n |"))
    tables.write_ledger_docs({"mode": "default", "claims": []}, page)  # a default run touches docs/claims.md alone
    assert _block(page.read_text(), "ledger rows") == tables.rows_table()


def test_a_row_whose_text_changes_changes_the_table():
    row = CLAIMS["kong.prop3.1"]
    changed = tuple(r if r.id != row.id else type(r)(**{**r.__dict__, "difference": "checked only for small n"})
                    for r in ROWS)
    assert tables.rows_table(changed) != tables.rows_table()
    assert "checked only for small n" in tables.rows_table(changed)


def test_the_derivation_words_of_theory_md_are_a_fresh_run():
    from geosched.theory.registry import claim_ids

    shown = re.findall(r"^\| `([^`]+)` \|", tables.documented(), re.M)
    tables.added_after(shown, list(claim_ids()), "docs/theory.md derivation words", "python docs/tables.py")
    assert tables.documented() == tables.derivation_table(ids=shown)  # `python docs/tables.py --check`: all rows


def test_the_theory_check_fails_on_a_stale_page(tmp_path, monkeypatch, capsys):
    tables = _tables()
    fresh = tables.documented()
    page = tmp_path / "theory.md"
    page.write_text(tables.THEORY_PAGE.read_text().replace("| `kong.volume` | proved |", "| `kong.volume` | unknown |"))
    monkeypatch.setattr(tables, "THEORY_PAGE", page)
    monkeypatch.setattr(tables, "derivation_table", lambda: fresh)  # the run above, not a second sympy run
    check = ["--check", "--block", "derivation words"]
    assert tables.main(check) == 1 and "differs from a fresh run" in capsys.readouterr().err
    tables.write()
    assert tables.main(check) == 0 and tables.documented() == fresh


def _result(status: str, message: str, note: str) -> ClaimResult:
    return ClaimResult(id="kong.thm3.2", source="", statement="", status=status, message=message, methods=(),
                       evidence=(), counterexample=None, note=note, wall_time=0.0)


def test_the_prove_status_line_is_one_sentence():
    claim = CLAIMS["kong.thm3.2"]
    coq = [Evidence(f"coq:{name}", "coq", "proved", f"Coq, every n: {name} (build cache 0123)",
                    data={"theorem": name, "provenance": "build cache 0123"})
           for name in claim.coq_whole]  # the whole claim is these theorems together
    assert coq[0].data["theorem"] == "thm32_svf_competitive"
    sympy = Evidence("derivation", "proof", "proved", "sympy", data={"open_steps": []})
    status, text, _, note = combine(claim, [sympy, *coq], {"kong.lemmaA.2": "checked", "kong.prop3.1": "proved"})
    line = ledger_footer(_result(status, text, note), "quick", "kong.thm3.2").splitlines()[-1]
    assert line == ("Status: proved (Coq, every n: thm32_svf_competitive, thm32_svf_feasible, svf_sim_eq, "
                    "tel_finish_times), Coq build cache 0123, independently of "
                    "kong.lemmaA.2 (checked), as geosched claims --quick --claim kong.thm3.2 says.")
    for status, message, note in [("checked", "checked up to n<=6 (via kong.prop3.1)", "a; b"),
                                  ("unknown", "unknown: depends on a claim not established (x is error)", ""),
                                  ("proved", "proved", "")]:
        line = ledger_footer(_result(status, message, note), "default", "kong.thm3.2").splitlines()[-1]
        assert line.startswith(f"Status: {status}") and line.endswith("says.") and line.count(".") >= 1
        assert ";" not in line and f"{status} ({status}" not in line and "\n" not in line
        assert not re.search(r"\([^)]*\(", line.replace("(via", "").replace("(x is", "")), line  # nothing nested


def test_the_readme_says_how_long_its_two_commands_take_and_what_coqc_changes():
    readme = (ROOT / "README.md").read_text()
    opening = readme.split("## The model", 1)[0]
    assert re.search(r"first `geosched claims` took \d+ minutes with `coqc`", opening)
    assert re.search(r"The test command took\s+\d+ minutes", opening)
    assert "without `coqc` nothing compiles" in opening and "fall back to\n`checked`" in opening


def test_the_readme_names_the_traces_public_source():
    data = (ROOT / "README.md").read_text().split("## Data", 1)[1]
    assert "https://github.com/Azure/AzurePublicDataset" in data and "AzureLLMInferenceTrace_conv.csv" in data
