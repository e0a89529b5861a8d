"""Regenerate docs/theory.md's table of derivation words from a run: ``python docs/tables.py [--check]``.

The table says, per claim, what ``geosched prove ID`` prints as ``Derivation:`` (sympy's word over the
claim and every claim it relies on, :func:`geosched.theory.check_claim`) and which steps sympy cannot
check, with the ledger methods that check them instead (``covered_by``). It is computed here, never
typed: ``--check`` exits 1 when the page differs from a fresh run (``tests/test_docs_claims.py`` runs it).
The ledger's own tables in docs/claims.md come from ``python -m geosched.verify.ledger --write-docs``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
THEORY_PAGE = DOCS / "theory.md"
BLOCK = "derivation words"


def derivation_table() -> str:
    """The table, from :func:`geosched.theory.check_claim` of every derivation, in the ledger's order."""
    from geosched.theory.registry import check_claim, claim_ids

    lines = ["| id | `Derivation:` (sympy) | steps sympy cannot check, and what checks them in the ledger |",
             "|---|---|---|"]
    for claim_id in claim_ids():
        check = check_claim(claim_id)
        word = check.status
        if check.relative_to:
            word += " to " + ", ".join(check.relative_to)
        elif check.status != "proved":
            word += f" ({check.n_checked} of {len(check.steps)} steps)"
        own = [o for o in check.open_steps if o.claim_id == claim_id]
        steps = "; ".join(f"{o.index}: {_short(o.statement)}"
                          + (f" ({', '.join(f'`{m}`' for m in o.covered_by)})" if o.covered_by else " (none)")
                          for o in own)
        lines.append(f"| `{claim_id}` | {word} | {steps or '-'} |")
    return "\n".join(lines)


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _marker(end: bool = False) -> str:
    return f"<!-- {'end ' if end else ''}generated: {BLOCK} -->"


def documented(path: Path | None = None) -> str:
    """The table as the page has it."""
    return (path or THEORY_PAGE).read_text().split(_marker(), 1)[1].split(_marker(end=True), 1)[0].strip()


def write(path: Path | None = None) -> None:
    """Replace the page's table with a fresh run's (a temporary file renamed into place)."""
    from geosched.output import write_text_atomic

    path = path or THEORY_PAGE
    text = path.read_text()
    head, rest = text.split(_marker(), 1)
    _, tail = rest.split(_marker(end=True), 1)
    write_text_atomic(path, f"{head}{_marker()}\n{derivation_table()}\n{_marker(end=True)}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page differs from a fresh run")
    args = parser.parse_args(argv)
    if args.check:
        fresh = derivation_table()
        if documented() != fresh:
            print(f"{THEORY_PAGE}: the table differs from a fresh run; run python docs/tables.py", file=sys.stderr)
            return 1
        print(f"{THEORY_PAGE}: the table is a fresh run's")
        return 0
    write()
    print(f"{THEORY_PAGE}: table written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
