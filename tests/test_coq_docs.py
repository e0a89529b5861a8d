"""The Coq theorem tables of docs/proved.md and verify/coq/README.md are generated from the development (issue 47,
item 3): each theorem's words are its doc comment, its rows the ledger's citations, its statement the pinned file's.

A theorem (or a citation) added after the pages were generated is announced, never a failure: adding a Coq lemma
and its row touches the .v file and the row only; an entry a page shows that a fresh rendering does not (a changed
word, a removed theorem, a statement that moved) fails until ``python docs/coq_tables.py`` regenerates it.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from geosched.verify import coq_engine, coq_output, coq_pinned

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
import coq_tables  # noqa: E402  (docs/coq_tables.py: the writer lives in docs/, out of the package)


def _compare(block) -> tuple[list[str], list[str]]:
    stale, added = coq_tables.compare(block)
    for entry in added:
        warnings.warn(f"{block.name}: {entry} added after the page; {coq_tables.COMMAND} shows it", stacklevel=2)
    return stale, added


@pytest.mark.parametrize("make", coq_tables.BLOCKS, ids=lambda make: make.__name__)
def test_the_pages_show_what_the_development_says(make):
    stale, _ = _compare(make())
    assert stale == [], f"regenerate with {coq_tables.COMMAND}"


def test_every_theorem_has_words_in_its_file():
    words = coq_output.theorem_words(coq_engine.COQ_DIR)
    assert set(words) == set(coq_engine.THEOREMS)
    assert [name for name, text in words.items() if not text] == []  # a Theorem without its doc comment


def test_a_new_theorem_is_announced_and_a_changed_word_is_stale(monkeypatch):
    block = coq_tables.readme_table()
    _, already = coq_tables.compare(block)  # theorems added since the page was generated (a one-file addition's)
    monkeypatch.setattr(coq_engine, "THEOREMS", {**coq_engine.THEOREMS, "added_later": "Model"})
    words = coq_output.theorem_words(coq_engine.COQ_DIR)
    monkeypatch.setattr(coq_output, "theorem_words", lambda root: {**words, "added_later": "new"})
    stale, added = coq_tables.compare(coq_tables.readme_table())
    assert stale == [] and sorted(added) == sorted([*already, "added_later"])
    monkeypatch.setattr(coq_output, "theorem_words", lambda root: {**words, "tel_finish_times": "another reading"})
    stale, _ = coq_tables.compare(coq_tables.readme_table())
    assert stale == ["tel_finish_times"]
    assert len(block.entries) == len(coq_engine.THEOREMS) - 1


def test_a_new_row_citing_a_shown_theorem_is_announced_not_stale(monkeypatch):
    _, already = coq_tables.compare(coq_tables.proved_table())  # added since the page (a one-file addition's)
    cited = coq_tables.citations()
    monkeypatch.setattr(coq_tables, "citations", lambda: {**cited, "tel_finish_times": (
        *cited["tel_finish_times"], "a.new.row")})
    stale, added = coq_tables.compare(coq_tables.proved_table())
    assert stale == [] and sorted(added) == sorted([*already, "tel_finish_times: cited by a.new.row"])


def test_a_statement_that_moved_in_the_pinned_file_is_stale(monkeypatch):
    pinned = coq_pinned.read()
    name = next(iter(coq_tables.statements_block().entries)).key
    monkeypatch.setattr(coq_pinned, "read", lambda *a: coq_pinned.Pinned(
        {**pinned.theorems, name: pinned.theorems[name] + " /\\ True"}, pinned.modules, pinned.definitions))
    assert coq_tables.compare(coq_tables.statements_block())[0] == [name]
