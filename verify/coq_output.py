r"""Reading what ``coqc`` and ``coqchk`` print: the one place that parses the Coq tools' output.

``verify/coq/build.sh`` generates ``Assumptions.v`` from the sources (a ``Check`` and a ``Print
Assumptions`` for every ``Theorem`` and ``Corollary`` of every module, each followed by ``Print
geosched_marker``) and prints its output (``Assumptions.out``). This module splits that output at the
markers (:func:`parse_assumptions`), normalises each ``Check`` into the statement a ledger row records
(:func:`normalise_statement`), and reads the ``coqchk`` summary and the first error of a failed step.
:func:`declared_theorems` finds the same theorems in the ``.v`` files (what the ledger may cite, with
their modules), with the same pattern as ``build.sh``'s ``sed``.

The build cache stores coqc's raw output and this module parses it again on every read, and the
cache key (:func:`geosched.verify.coq_engine.source_hash`) includes this file: a change here can
never be hidden by a cached build.

Example
-------
>>> out = ("Model.tel_nil\n     : Model.tel [] [] =\n       0\ngeosched_marker = 0\n     : nat\n"
...        "Closed under the global context\ngeosched_marker = 0\n     : nat\n")
>>> parse_assumptions(out)["tel_nil"]["statement"], parse_assumptions(out)["tel_nil"]["closed"]
('Model.tel [] [] = 0', True)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["CLOSED", "MARKER", "THEOREM_LINE", "normalise_statement", "parse_assumptions", "declared_theorems",
           "axioms", "coqchk_summary", "first_error"]

CLOSED = "Closed under the global context"
# what `Print geosched_marker.` prints after each Check and each Print Assumptions of Assumptions.v
MARKER = re.compile(r"^geosched_marker = 0\s*\n\s*: nat\s*$\n?", flags=re.M)
# a citable theorem: a top-level `Theorem` or `Corollary` (build.sh's sed uses the same pattern)
THEOREM_LINE = re.compile(r"^(?:Theorem|Corollary)\s+([A-Za-z0-9_']+)", flags=re.M)


def normalise_statement(check: str) -> str:
    r"""The statement of a ``Check NAME.`` output: the type after the name's line, whitespace collapsed.

    >>> normalise_statement("Thm32.x\n     : forall n : nat,\n       n <= n")
    'forall n : nat, n <= n'
    """
    _, _, rest = check.strip().partition("\n")
    rest = rest.strip()
    if not rest.startswith(":"):
        return ""
    return " ".join(rest[1:].split())


def parse_assumptions(output: str) -> dict[str, dict[str, Any]]:
    """Theorem name -> ``{"module", "statement", "assumptions", "closed"}`` from ``Assumptions.out``.

    The output alternates a ``Check`` and a ``Print Assumptions`` block, each closed by the marker; a
    block whose first line is not ``Module.name`` is skipped (it cannot be attributed)."""
    blocks = MARKER.split(output)
    found: dict[str, dict[str, Any]] = {}
    for check, assumptions in zip(blocks[0::2], blocks[1::2]):
        head = check.strip().split("\n", 1)[0].strip()
        module, dot, name = head.rpartition(".")
        if not dot or not re.fullmatch(r"[A-Za-z0-9_']+", name):
            continue
        text = assumptions.strip()
        found[name] = {"module": module, "statement": normalise_statement(check), "assumptions": text,
                       "closed": text == CLOSED}
    return found


def declared_theorems(root: Path) -> dict[str, str]:
    """Theorem name -> module (file stem) of every ``Theorem``/``Corollary`` in ``root/*.v`` but the
    generated ``Assumptions.v`` and ``Extract.v``; a name declared twice is an error (a citation would be
    ambiguous)."""
    found: dict[str, str] = {}
    for path in sorted(Path(root).glob("*.v")):
        if path.name in ("Assumptions.v", "Extract.v"):
            continue
        for name in THEOREM_LINE.findall(path.read_text(encoding="utf-8")):
            if name in found:
                raise ValueError(f"Coq theorem {name} is declared in {found[name]}.v and {path.stem}.v")
            found[name] = path.stem
    return found


def axioms(output: str) -> str:
    """``coqchk -o``'s axiom summary (``"<none>"``), or ``"unparsed"``."""
    found = re.search(r"^\* Axioms:(.*?)^\* ", output, flags=re.S | re.M)
    return " ".join(found.group(1).split()) if found else "unparsed"


def coqchk_summary(build_output: str) -> tuple[bool, str] | None:
    """build.sh runs ``coqchk -o`` on every module it compiled and prints "coqchk: OK" after it:
    ``(True, axioms)``, or None when it did not."""
    if "coqchk: OK" not in build_output or "CONTEXT SUMMARY" not in build_output:
        return None
    return True, axioms(build_output)


def first_error(text: str) -> str:
    """The first error of a failed coqc/ocamlopt run, with the ``File ...`` line before it (one line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if line.startswith("Error") or " Error" in line or line.startswith("Anomaly"):
            where = lines[k - 1] if k and lines[k - 1].startswith("File ") else ""
            return " ".join(x for x in (where, line, *lines[k + 1:k + 2]) if x)[:400]
    return (lines[-1] if lines else "")[:400]
