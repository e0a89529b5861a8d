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
    assert "| learned point | 114 | 26.0 | 53.3 |" in text
    page.write_text(text.replace("| learned point | 114 | 26.0 | 53.3 |", "| learned point | 114 | 26.0 | 43.3 |"))
    assert tables.stale_blocks(docs=tmp_path) == ["predictor accuracy"]
    assert tables.write_blocks(docs=tmp_path, names=("predictor accuracy",)) == ["predictor accuracy"]
    assert tables.stale_blocks(docs=tmp_path) == []
    assert page.read_text() == text


def test_a_changed_record_changes_the_table(tmp_path, monkeypatch):
    record = json.loads(tables.PREDICTIONS_RECORD.read_text())
    azure = next(t for t in record["traces"] if t["trace"] == "azure_llm_2023_conv")
    cell = next(c for c in azure["scheduling"]["cells"] if c["load"] == 1.0 and c["predictor"] == "oracle"
                and c["policy"] == "svf")
    assert f"{cell['mean_latency']:.1f} / {cell['p95_latency']:.1f}" == "17.0 / 26.3"  # the page's figure
    cell["mean_latency"] = 40.0  # SVF no longer the best with exact lengths: the page must change
    changed = tmp_path / "predictions_run.json"
    changed.write_text(json.dumps(record))
    monkeypatch.setattr(tables, "PREDICTIONS_RECORD", changed)
    assert tables.stale_blocks(names=("scheduling under predictions",)) == ["scheduling under predictions"]
    assert "| azure_llm_2023_conv | 1 | oracle | 35.9 / 63.1 | 18.9 / 37.9 | 40.0 / 26.3 |" in tables.scheduling_table()


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
    """Re-run the benchmark the record comes from (both shared traces, about a minute) and compare every figure."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        bench = _load("bench_predictions", ROOT / "benchmarks" / "bench_predictions.py")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    record = json.loads(tables.PREDICTIONS_RECORD.read_text())
    fresh_path = tmp_path / "fresh.json"
    assert bench.main(["--seed", str(record["seed"]), "--record", str(fresh_path)]) == 0
    fresh = json.loads(fresh_path.read_text())
    assert fresh["traces"] == record["traces"]


def _default_ids(text: str) -> list[str]:
    import re

    return re.findall(r"^\| `([^`]+)` \| ", tables.block(text, "ledger default words"), re.M)


def test_the_default_run_tables_list_every_row_of_the_ledger():
    """The default run's words and figures are written only by a default run (minutes, with the shared trace):
    the page lists the ledger's rows in its order, a row added since shows (or is announced) as added after
    the recorded run, with the commands that run and record it (the words of a fresh run are compared by
    tests/test_ledger.py's slow test)."""
    text = tables.CLAIMS_PAGE.read_text()
    tables.added_after(_default_ids(text), tables.claim_ids(), "docs/claims.md default words",
                       tables.DEFAULT_COMMAND)
    assert "Largest n with every core lemma proved" in tables.block(text, "ledger default cores")


def test_a_row_the_record_lacks_shows_as_added_after_the_recorded_run():
    record = {"claims": [{"id": "kong.volume", "status": "proved", "message": "m", "evidence": []}]}
    table = tables.default_words_table(record, ["kong.volume", "ours.new"])
    assert "| `kong.volume` | `proved` | m |" in table
    assert ("| `ours.new` | added after the recorded run | `geosched claims --claim ours.new` runs it; "
            f"`{tables.DEFAULT_COMMAND}` records it |") in table
    assert table.endswith("1 claims: `proved` 1; 1 added after the recorded run.")
    assert "added after" not in tables.default_words_table(record, ["kong.volume"])


def test_a_page_is_checked_against_the_registry_and_a_new_row_is_announced():
    with pytest.warns(tables.AddedAfterRecord, match=r"^b: added after the recorded run \(page\); `CMD` records it"):
        assert tables.added_after(["a", "c"], ["a", "b", "c"], "page", "CMD") == ["b"]
    for shown in (["a", "gone"], ["c", "a"]):  # a row the ledger no longer has, or out of its order: stale
        with pytest.raises(AssertionError, match="regenerate it: CMD"):
            tables.added_after(shown, ["a", "b", "c"], "page", "CMD")


@pytest.mark.parametrize("text", [
    "a\n<!-- generated: x -->\nold\n<!-- end generated: x -->\nb\n<!-- end generated: x -->\n",  # two ends
    "a\n<!-- generated: x -->\nold\n<!-- generated: x -->\n<!-- end generated: x -->\n",  # two starts
    "a\n<!-- generated: x -->\nold\n",  # no end
])
def test_the_ledger_writer_refuses_a_block_whose_markers_are_not_one_pair(text):
    from geosched.errors import ValidationError

    with pytest.raises(ValidationError, match="must occur exactly once"):
        tables.replace_block(text, "x", "new")


@pytest.mark.parametrize("row, found", [
    ("| default | 1..5 | <= 2 | 224,984 |", ["224,984"]),
    ("| `--thorough` | n<=4 | 3,682,713 instances |", ["3,682,713"]),
    ("| {(6,3),(1,5)}, M = 12 | (1,2) or 1,2 | 18 |", []),  # tuples and small integers: sizes, not counts
])
def test_the_guard_sees_counts_with_thousands_separators(tmp_path, row, found):
    page = tmp_path / "page.md"
    page.write_text(f"| a | b | c |\n|---|---|---|\n{row}\n")
    assert tables.hand_written_figures(tmp_path) == [f"page.md:1: {token}" for token in found]


def test_the_state_count_is_the_enumeration_s(tmp_path):
    """count_states (a closed form for the waiting tuples) against enumerate_states itself, on bounds small
    enough to enumerate; the table's default row then equals what the equivalence check iterates."""
    from geosched.verify.policy_spec import Bounds, enumerate_states

    for bounds in (Bounds(max_memory=3, max_waiting=2, max_prompt=2), Bounds(max_memory=4, max_running=1),
                   Bounds(min_memory=2, max_memory=3, step=1, max_arrival=1)):
        assert tables.count_states(bounds) == sum(1 for _ in enumerate_states(bounds))
    assert "| default | 1..5 | 2 | <= 2 | <= 3 | 0..1 | 1..3 | 0..1 | 224,984 |" in tables.state_space_table()


def test_the_exhaustive_table_counts_what_the_run_enumerates():
    """The quick space's count is the number of instances enumerate_instances yields (a second path), and
    the README example's TELs are the hand-derived ones: SVF runs (1,5) first (done at 5), then (6,3) (done
    at 8): 13; OPT 9 (brute force, a second exact method)."""
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.opt import brute_force_opt
    from geosched.verify.exhaustive import QUICK_SPACE, enumerate_instances

    shown = tables.exhaustive_table()
    assert f"| {sum(1 for _ in enumerate_instances(QUICK_SPACE)):,} |" in shown.splitlines()[4]
    example = Instance(12, [Request("r0", 0, 6, 3), Request("r1", 0, 1, 5)])
    assert f"(SVF {5 + 8}, OPT {brute_force_opt(example).tel})" in shown


def test_the_structure_record_is_a_fresh_run():
    """Re-measure both commits of the record (git archive, about 3 s) and compare every measure; skipped
    where this checkout's git lacks them (a tarball)."""
    import subprocess

    record = json.loads(tables.STRUCTURE_RECORD.read_text())
    commits = [record["before"]["commit"], record["after"]["commit"]]
    if any(subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", c], capture_output=True).returncode
           for c in commits):
        pytest.skip("the record's commits are not in this checkout's git")
    bench = _load("review_measures", ROOT / "benchmarks" / "review_measures.py")
    assert [bench.structure_at(c) for c in commits] == [record["before"]["measures"], record["after"]["measures"]]


def test_a_changed_structure_record_changes_the_table(tmp_path, monkeypatch):
    record = json.loads(tables.STRUCTURE_RECORD.read_text())
    record["after"]["measures"]["lines"] = 17323
    changed = tmp_path / "review_structure_run.json"
    changed.write_text(json.dumps(record))
    monkeypatch.setattr(tables, "STRUCTURE_RECORD", changed)
    assert tables.stale_blocks(names=("reference_impl structure",)) == ["reference_impl structure"]
    assert "| lines of `reference_impl/` | 15,011 | 17,323 |" in tables.structure_table()


def test_the_default_blocks_are_their_records():
    """docs/claims.md's default words, figures and cores against the record of the default run
    (docs/ledger_default_run.json), which docs/tables.py writes with them, for the rows the page shows (a row
    added since is announced by the test above)."""
    text = tables.CLAIMS_PAGE.read_text()
    record = json.loads(tables.DEFAULT_RECORD.read_text())
    for name, body in tables.default_blocks(record, ids=_default_ids(text)).items():
        assert tables.block(text, name) == body, name


def _default_result() -> dict:
    """A made-up default run: one statistical claim whose interval reaches 1, one empirical, the cores."""
    mc = {"kind": "statistical", "method": "monte-carlo:svf", "status": "vacuous", "message": "ratio at most 1.0046",
          "data": {"flip_constant": 0.0, "samples": [1, 2, 3]}}
    emp = {"kind": "empirical", "method": "trace:svf_latency", "status": "partly", "message": "lowest at 1/3",
           "data": {"rows": [[1.5]]}}
    exh = {"kind": "exhaustive", "method": "exhaustive:prop3.1", "status": "checked", "message": "1145", "data": {}}
    cores = {"per_lemma": {"prop31": {"z3": 5}}, "stopped": {"prop31": {"z3": "rlimit"}}, "per_request": {},
             "largest_n": {"z3": 5}, "rlimit": {"z3": 1000000}, "wall_time": 12.3}
    return {"mode": "default", "seed": 0, "versions": {"geosched": "x"}, "extra": {"cores": cores, "big": [0] * 99},
            "claims": [{"id": "kong.thm3.4", "status": "vacuous", "message": "m1", "evidence": [mc, exh]},
                       {"id": "kong.emp.svf_latency", "status": "partly", "message": "m2", "evidence": [emp]}]}


def test_write_docs_keeps_the_default_record_and_renders_from_it(tmp_path):
    """The default blocks a run writes are exactly the renderings of the record it writes beside the page (so
    the test above can regenerate them), and the record keeps what they show, not the run's bulk."""
    for name in ("claims.md", "proved.md"):
        shutil.copy(ROOT / "docs" / name, tmp_path / name)
    tables.write_ledger_docs(_default_result(), path=tmp_path / "claims.md", proved=tmp_path / "proved.md")
    record = json.loads((tmp_path / "ledger_default_run.json").read_text())
    assert record["seed"] == 0 and record["mode"] == "default" and "big" not in json.dumps(record)
    assert [e["method"] for c in record["claims"] for e in c["evidence"]] == ["monte-carlo:svf", "trace:svf_latency"]
    text = (tmp_path / "claims.md").read_text()
    assert "| `kong.thm3.4` | `monte-carlo:svf` | `vacuous` | ratio at most 1.0046 | no positive constant (the " \
           "interval reaches 1) |" in tables.block(text, "ledger default figures")
    assert "| `kong.emp.svf_latency` | `partly` | m2 |" in tables.block(text, "ledger default words")
    assert "Largest n with every core lemma proved: z3 5**" in tables.block(text, "ledger default cores")
    for name, body in tables.default_blocks(record).items():
        assert tables.block(text, name) == body


def test_a_default_run_that_would_lose_recorded_verdicts_writes_nothing(tmp_path, monkeypatch, capsys):
    """A default run without the shared trace turns the trace's rows into not_run: docs/tables.py refuses to
    write that record, in one line naming the rows, and leaves the pages and the record as they were."""
    for name in ("claims.md", "proved.md", "ledger_default_run.json"):
        shutil.copy(ROOT / "docs" / name, tmp_path / name)
    recorded = json.loads((tmp_path / "ledger_default_run.json").read_text())
    kept = [c for c in recorded["claims"] if c["status"] != "not_run"][:2]
    assert len(kept) == 2
    lost = [{**c, "status": "not_run", "message": "not run: the Azure trace is not in ../shared/traces"} for c in kept]
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"mode": "default", "seed": 0, "versions": {}, "extra": {}, "claims": lost}))
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    monkeypatch.setattr(tables, "CLAIMS_PAGE", tmp_path / "claims.md")
    monkeypatch.setattr(tables, "PROVED_PAGE", tmp_path / "proved.md")
    assert tables.main(["--ledger-run", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("docs: error: ledger_default_run.json: not written: 2 of its "
                                                 "verdicts would become not_run in this run (not run: the Azure trace")
    assert all(f"{c['id']} ({c['status']})" in err for c in kept)
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == before
    # the same run with the verdicts kept is written
    run.write_text(json.dumps({"mode": "default", "seed": 0, "versions": {}, "extra": {}, "claims": kept}))
    assert tables.main(["--ledger-run", str(run)]) == 0
    assert json.loads((tmp_path / "ledger_default_run.json").read_text())["claims"][0]["id"] == kept[0]["id"]


def test_every_generated_block_has_a_writer(tmp_path):
    """Markers with no writer would hide a hand-written table from the guard."""
    assert tables.unowned_blocks() == []
    (tmp_path / "page.md").write_text(
        "<!-- generated: jaillet game -->\n| 1.5 |\n<!-- end generated: jaillet game -->\n"
        "<!-- generated: my table -->\n| 2.5 |\n<!-- end generated: my table -->\n"
        "<!-- generated: svf worst case -->\n| 3.5 |\n")
    assert tables.unowned_blocks(tmp_path) == ["page.md: my table", "page.md: svf worst case"]
