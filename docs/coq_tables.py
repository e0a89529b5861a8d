"""The Coq theorem tables of the docs, generated from the development: ``python docs/coq_tables.py [--check]``.

Three generated blocks, each written between ``<!-- generated: NAME -->`` markers:

* docs/proved.md, ``coq theorems``: every theorem a ledger row cites (or the extracted engine runs), with the
  rows that cite it and its words;
* docs/proved.md, ``coq statements``: the statement of every theorem that states a whole claim, from the pinned
  file ``verify/coq/statements.txt`` (the one statement per theorem the ledger and the tests read);
* verify/coq/README.md, ``coq theorem list``: every ``Theorem`` and ``Corollary`` of the development, by file.

A theorem's words are its doc comment in its ``.v`` file (:func:`geosched.verify.coq_output.theorem_words`),
the rows are the ledger's citations, the statements are the pinned file's: nothing here is kept by hand, so
a new theorem appears by running this script. ``--check`` is tolerant of additions only: a theorem, or a row
citing a theorem, that a page does not show yet is reported as added after the page was generated (the test
warns); a shown entry that differs from a fresh rendering, or names a theorem the development no longer has,
is stale (exit 1, the test fails).
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PROVED_PAGE = DOCS / "proved.md"
COQ_README = DOCS.parent / "verify" / "coq" / "README.md"
COMMAND = "python docs/coq_tables.py"


@dataclass(frozen=True)
class Entry:
    """One theorem's entry in a generated block: its text is ``render(rows)``, the rows citing it given."""

    key: str  # the theorem
    rows: tuple[str, ...]  # the ledger rows citing it, in ledger order
    render: Callable[[tuple[str, ...]], str]

    @property
    def text(self) -> str:
        return self.render(self.rows)


@dataclass(frozen=True)
class Block:
    """A generated block: its page, its marker name, the lines before and after the entries, and the entries."""

    page: Path
    name: str
    head: tuple[str, ...]
    entries: tuple[Entry, ...]
    tail: tuple[str, ...] = ()
    key_column: int | None = None  # the table column whose first code span names the theorem (None: first line)

    def text(self) -> str:
        return "\n".join([*self.head, *(e.text for e in self.entries), *self.tail])


def _code(text: str) -> str:
    """A doc comment's ``[term]`` as a Markdown code span."""
    return re.sub(r"\[([^\[\]]+)\]", r"`\1`", text).replace("|", "\\|")


def citations() -> dict[str, tuple[str, ...]]:
    """Theorem -> the ledger rows that cite it (``Claim.coq`` and ``coq_whole``), in ledger order; the extracted
    engine's theorems are cited by ``(the Coq engine)`` too."""
    from geosched.verify import coq_engine
    from geosched.verify.coq_evidence import cited_theorems
    from geosched.verify.ledger import ROWS

    found: dict[str, list[str]] = {}
    for claim in ROWS:
        for name in cited_theorems(claim):
            found.setdefault(name, []).append(claim.id)
    for name in coq_engine.ENGINE_THEOREMS:
        found.setdefault(name, []).append("(the Coq engine)")
    return {name: tuple(dict.fromkeys(rows)) for name, rows in found.items()}


def _rows(rows: tuple[str, ...]) -> str:
    return ", ".join(f"`{r}`" if not r.startswith("(") else r for r in rows)


def proved_table() -> Block:
    """docs/proved.md's table: each cited theorem, by the ledger order of the first row citing it."""
    from geosched.verify import coq_engine, coq_output

    words = coq_output.theorem_words(coq_engine.COQ_DIR)
    cited = citations()
    entries = []
    for name, rows in cited.items():
        module = coq_engine.THEOREMS.get(name, "?")
        entries.append(Entry(name, rows, lambda r, n=name, m=module: f"| {_rows(r)} | `{n}` ({m}.v) | "
                                                                     f"{_code(words.get(n, ''))} |"))
    return Block(PROVED_PAGE, "coq theorems",
                 (f"Generated from the development by `{COMMAND}`: the theorems the ledger's rows cite (`Claim.coq`, "
                  "`Claim.coq_whole`), in words (each theorem's doc comment in its `.v` file).", "",
                  "| Ledger rows | Coq theorem (file) | In words |", "|---|---|---|"), tuple(entries), key_column=1)


def statements_block() -> Block:
    """docs/proved.md's statements: every theorem a row cites as its whole claim, as pinned."""
    from geosched.verify import coq_pinned
    from geosched.verify.coq_evidence import cited_theorems
    from geosched.verify.ledger import ROWS

    pinned = coq_pinned.read()
    whole: dict[str, list[str]] = {}
    for claim in ROWS:
        for name in claim.coq_whole:
            whole.setdefault(name, []).append(claim.id)
    entries = []
    for name in dict.fromkeys(n for claim in ROWS for n in cited_theorems(claim) if n in whole):
        statement = pinned.theorems.get(name, "(not pinned)")
        body = textwrap.fill(statement, width=108, initial_indent="  : ", subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False)
        entries.append(Entry(name, (), lambda r, n=name, b=body: f"{n}\n{b}"))
    return Block(PROVED_PAGE, "coq statements",
                 (f"The statements of the theorems that state a whole claim, from `verify/coq/statements.txt` (sha256 "
                  "in every ledger run's output), as coqc prints them; generated by "
                  f"`{COMMAND}`:", "", "```"), tuple(entries), ("```",))


def readme_table() -> Block:
    """verify/coq/README.md's table: every theorem of the development, by file, then in file order."""
    from geosched.verify import coq_engine, coq_output

    words = coq_output.theorem_words(coq_engine.COQ_DIR)
    cited = citations()
    entries = []
    for name, module in sorted(coq_engine.THEOREMS.items(), key=lambda kv: kv[1]):
        entries.append(Entry(name, cited.get(name, ()),
                             lambda r, n=name, m=module: f"| `{n}` ({m}) | {_code(words.get(n, ''))} | "
                                                         f"{_rows(r) or '-'} |"))
    return Block(COQ_README, "coq theorem list",
                 (f"Generated by `{COMMAND}` from the sources: each theorem's doc comment, and the ledger rows that "
                  "cite it.", "", "| Theorem (file) | In words | Cited by |", "|---|---|---|"), tuple(entries),
                 key_column=0)


BLOCKS: tuple[Callable[[], Block], ...] = (proved_table, statements_block, readme_table)


def _marker(name: str, end: bool = False) -> str:
    return f"<!-- {'end ' if end else ''}generated: {name} -->"


def shown(block: Block) -> str:
    """The block's text as its page shows it now ("" when the page has no such block)."""
    text = block.page.read_text(encoding="utf-8")
    start, end = text.find(_marker(block.name)), text.find(_marker(block.name, end=True))
    return text[start + len(_marker(block.name)):end].strip("\n") if 0 <= start < end else ""


def _shown_entries(block: Block, text: str) -> list[str]:
    lines = text.splitlines()
    if tuple(lines[:len(block.head)]) != block.head or (block.tail and tuple(lines[-len(block.tail):]) != block.tail):
        return ["<head or tail>"]
    body = lines[len(block.head):len(lines) - len(block.tail)]
    entries: list[str] = []
    for line in body:
        if line.startswith(" ") and entries:
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    return entries


def _key(block: Block, entry: str) -> str:
    if block.key_column is None:
        return entry.split("\n")[0].strip()
    cells = entry.strip().strip("|").split(" | ")
    found = re.search(r"`([^`]+)`", cells[block.key_column]) if len(cells) > block.key_column else None
    return found.group(1) if found else entry


def compare(block: Block) -> tuple[list[str], list[str]]:
    """``(stale, added)``: the shown entries that no fresh entry renders (with a subset of its rows) or that are out
    of order, and the theorems or citations the page does not show yet."""
    fresh = {e.key: e for e in block.entries}
    order = [e.key for e in block.entries]
    stale, added, last = [], [], -1
    seen: set[str] = set()
    for text in _shown_entries(block, shown(block)):
        key = _key(block, text)
        entry = fresh.get(key)
        rows = tuple(r for r in (entry.rows if entry else ()) if (f"`{r}`" if not r.startswith("(") else r) in text)
        if entry is None or entry.render(rows) != text or order.index(key) < last:
            stale.append(key)
            continue
        last = order.index(key)
        seen.add(key)
        added += [f"{key}: cited by {r}" for r in entry.rows if r not in rows]
    added += [key for key in order if key not in seen and key not in stale]
    return stale, added


def write(block: Block) -> None:
    """Write the block into its page, between its markers (a temporary file renamed into place)."""
    from geosched.output import write_text_atomic

    text = block.page.read_text(encoding="utf-8")
    start, end = text.find(_marker(block.name)), text.find(_marker(block.name, end=True))
    if not 0 <= start < end:
        raise SystemExit(f"{block.page}: no generated block '{block.name}' (add its two markers)")
    write_text_atomic(block.page, text[:start + len(_marker(block.name))] + "\n" + block.text() + "\n" + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page shows a stale entry")
    args = parser.parse_args(argv)
    status = 0
    for make in BLOCKS:
        block = make()
        if not args.check:
            write(block)
            print(f"wrote {block.page.relative_to(DOCS.parent)}: {block.name} ({len(block.entries)} theorems)")
            continue
        stale, added = compare(block)
        for key in stale:
            print(f"{block.page.relative_to(DOCS.parent)}: {block.name}: {key} is stale; run {COMMAND}")
        for key in added:
            print(f"{block.page.relative_to(DOCS.parent)}: {block.name}: {key} added after the page; {COMMAND} "
                  "shows it")
        status |= bool(stale)
    return status


if __name__ == "__main__":
    sys.exit(main())
