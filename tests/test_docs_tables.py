"""One source of truth for the docs' tables (issue 35, item 3): every table of ``docs/`` that shows a figure or
a status word is generated from a run (``docs/tables.py``, the ledger's and the sweep's writers), a test
regenerates each and fails on any difference, and a guard fails on a hand-written one."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tables = _load("docs_tables", ROOT / "docs" / "tables.py")


def test_every_generated_table_is_a_fresh_run():
    assert tables.stale_blocks() == []  # what `python docs/tables.py --check` requires


def test_a_stale_block_is_named_by_the_check_and_rewritten(tmp_path, capsys):
    for table in tables.TABLES:
        shutil.copy(ROOT / "docs" / table.page, tmp_path / table.page)
    page = tmp_path / "predictions.md"
    text = page.read_text()
    assert "| learned point | 26.0 | 53.3 |" in text
    page.write_text(text.replace("| learned point | 26.0 | 53.3 |", "| learned point | 26.0 | 43.3 |"))
    assert tables.stale_blocks(docs=tmp_path) == ["predictor accuracy"]
    assert tables.write_blocks(docs=tmp_path, names=("predictor accuracy",)) == ["predictor accuracy"]
    assert tables.stale_blocks(docs=tmp_path) == []
    assert page.read_text() == text


def test_a_changed_record_changes_the_table(tmp_path, monkeypatch):
    record = json.loads(tables.PREDICTIONS_RECORD.read_text())
    cell = next(c for c in record["scheduling"]["cells"] if c["load"] == 1.0 and c["predictor"] == "oracle"
                and c["policy"] == "svf")
    assert f"{cell['mean_latency']:.1f} / {cell['p95_latency']:.1f}" == "17.0 / 26.3"  # the page's figure
    cell["mean_latency"] = 40.0  # SVF no longer the best with exact lengths: the page must change
    changed = tmp_path / "predictions_run.json"
    changed.write_text(json.dumps(record))
    monkeypatch.setattr(tables, "PREDICTIONS_RECORD", changed)
    assert tables.stale_blocks(names=("scheduling under predictions",)) == ["scheduling under predictions"]
    assert "| 1 | oracle | 35.9 / 63.1 | 18.9 / 37.9 | 40.0 / 26.3 |" in tables.scheduling_table()


def test_the_witness_table_takes_its_numbers_from_the_referee(tmp_path, monkeypatch):
    """A file that states a ratio its instance does not give is refused, not shown."""
    folder = tmp_path / "witnesses"
    folder.mkdir()
    data = json.loads((ROOT / "docs" / "witnesses" / "svf_burst_alpha0.333_ratio1.614.json").read_text())
    (folder / "honest.json").write_text(json.dumps(data))
    monkeypatch.setattr(tables, "WITNESS_DIR", folder)
    shown = tables.witness_table()
    assert "**1.6138** (27450/17010)" in shown and Fraction(27450, 17010) == Fraction(305, 189)  # the family at m = 60
    data["certified_ratio"] = 1.9
    (folder / "honest.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="honest.json: the referee rejects it"):
        tables.witness_table()


def test_no_table_outside_a_generated_block_shows_a_figure_or_a_word():
    assert tables.hand_written_figures() == []


@pytest.mark.parametrize("row, found", [
    ("| 1.0 | oracle | 35.9 / 63.1 |", ["1.0", "35.9", "63.1"]),
    ("| SVF | `proved` | gain +14.4% |", ["proved", "14.4%"]),
    ("| k = 15 | 40.3 s |", ["40.3 s"]),
    ("| Thm. 3.2 of arXiv 2606.22327 on vLLM 0.33 | Prop. 3.1 |", []),
    ("| `geosched hunt --time 0.5` | the proved bound |", []),
])
def test_the_guard_sees_figures_and_words_not_theorem_numbers(tmp_path, row, found):
    page = tmp_path / "page.md"
    page.write_text(f"text\n\n| a | b | c |\n|---|---|---|\n{row}\n\n<!-- generated: x -->\n| q | r |\n|---|---|\n"
                    "| 9.5 | proved |\n<!-- end generated: x -->\n")
    assert tables.hand_written_figures(tmp_path) == [f"page.md:3: {token}" for token in found]


@pytest.mark.slow
@pytest.mark.trace
def test_the_predictions_record_is_a_fresh_run(tmp_path, trace_path):
    """Re-run the benchmark the record comes from (about 30 s) and compare every figure."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        bench = _load("bench_predictions", ROOT / "benchmarks" / "bench_predictions.py")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    record = json.loads(tables.PREDICTIONS_RECORD.read_text())
    fresh_path = tmp_path / "fresh.json"
    assert bench.main(["--seed", str(record["seed"]), "--record", str(fresh_path)]) == 0
    fresh = json.loads(fresh_path.read_text())
    assert fresh["accuracy"] == record["accuracy"] and fresh["scheduling"] == record["scheduling"]


def test_the_default_run_tables_list_every_row_of_the_ledger():
    """The default run's words and figures are written only by a default run (minutes): a row added since
    leaves them stale, which this catches without a run (the words of a fresh run are compared by
    tests/test_ledger.py's slow test)."""
    import re

    from geosched.verify import ledger

    text = ledger.DOCS_FILE.read_text()
    ids = re.findall(r"^\| `([^`]+)` \| `", ledger.block(text, "ledger default words"), re.M)
    assert ids == list(ledger.CLAIM_IDS)
    assert "Largest n with every core lemma proved" in ledger.block(text, "ledger default cores")


@pytest.mark.parametrize("text", [
    "a\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nb\n<!-- end generated: x -->\n",  # two ends
    "a\n<!-- generated: x -->\nold\n<!-- generated: x -->\n<!-- end generated: x -->\n",  # two starts
    "a\n<!-- generated: x -->\nold\n",  # no end
])
def test_the_ledger_writer_refuses_a_block_whose_markers_are_not_one_pair(text):
    from geosched.errors import ValidationError
    from geosched.verify.ledger import replace_block

    with pytest.raises(ValidationError, match="must occur exactly once"):
        replace_block(text, "x", "new")
