"""What the Coq development proves, pinned in one reviewed file: ``verify/coq/statements.txt``.

The file holds, as coqc prints them (normalised: whitespace collapsed, wrapped for reading), the statement
of every ``Theorem`` and ``Corollary`` of ``verify/coq`` and the ``Print`` of every definition of the
development those statements use, transitively (``Model.tel`` uses ``Model.tel_js``, ...): the statements and
their meaning, as far as they reach into the development (the standard library is pinned by coqc's
version). It is the **one** statement per theorem: the ledger's rows cite theorems by name
(``Claim.coq``/``Claim.coq_whole``), the docs print the statements from it, the tests read it. Its SHA-256
(:attr:`Pinned.sha256`) is in the ledger's output, so a diff of the file is a diff of what is proved.

Every build compares coqc's output with it (:func:`problems`, the Coq evidence's verdict predicate): a
statement that differs, a definition a statement reaches that differs or is missing, or a theorem that is
not closed (an ``Admitted``, an axiom) refutes exactly the rows that cite that theorem, naming the theorem
or the definition. A theorem missing from the file is not pinned: a row citing it cannot be ``proved``
(``unknown``, with the command that pins it). ``python -m geosched.verify.coq_engine --pin`` rewrites the
file from a build; the diff is the review.

Example
-------
>>> pinned = parse(render({"t": ("M", "forall n : nat, M.f n = n")}, {"M.f": "M.f = fun n : nat => n : nat -> nat"}))
>>> pinned.theorems["t"], sorted(reach(pinned.theorems["t"], pinned.definitions))
('forall n : nat, M.f n = n', ['M.f'])
"""

from __future__ import annotations

import hashlib
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from geosched.verify.coq_output import CLOSED, uses

__all__ = ["PINNED_FILE", "Pinned", "Printed", "read", "parse", "render", "reach", "problems", "file_hash",
           "cited_definitions"]

PINNED_FILE = Path(__file__).resolve().parent / "coq" / "statements.txt"
HEADER = """\
# What verify/coq proves: the statement of every Theorem and Corollary, and the Print of every definition of the
# development those statements use, transitively, as coqc 8.16 prints them (whitespace collapsed, wrapped here).
# Written by `python -m geosched.verify.coq_engine --pin` from a build; reviewed in its diff. Every build compares
# coqc's output with this file: a difference refutes exactly the ledger rows that cite the theorems it reaches.
"""
_WIDTH = 116


@dataclass(frozen=True)
class Pinned:
    """The pinned file, read: each theorem's statement and module, each definition's text, the file's hash."""

    theorems: dict[str, str] = field(default_factory=dict)  # theorem -> normalised statement
    modules: dict[str, str] = field(default_factory=dict)  # theorem -> module (file stem)
    definitions: dict[str, str] = field(default_factory=dict)  # Module.name -> normalised Print
    sha256: str = ""  # of the file's bytes ("" when there is no file)
    path: str = ""


@dataclass(frozen=True)
class Printed:
    """What coqc printed in a build: statements, definitions, ``Print Assumptions`` (the side :func:`problems`
    compares with the pinned file)."""

    statements: Mapping[str, str]
    definitions: Mapping[str, str]
    assumptions: Mapping[str, str]


def file_hash(path: Path = PINNED_FILE) -> str:
    """SHA-256 of the pinned file's bytes ("" when it is missing)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def read(path: Path = PINNED_FILE) -> Pinned:
    """The pinned file (an empty :class:`Pinned` when it is missing: nothing is pinned)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return Pinned(path=str(path))
    pinned = parse(text)
    return Pinned(pinned.theorems, pinned.modules, pinned.definitions, file_hash(path), str(path))


def parse(text: str) -> Pinned:
    """Read the pinned format: ``theorem Module.name`` or ``definition Module.name`` lines, each followed by its
    text on indented lines; ``#`` lines and blank lines between entries.

    Raises
    ------
    ValueError
        A line that is none of these, or an entry written twice (naming the line).
    """
    theorems: dict[str, str] = {}
    modules: dict[str, str] = {}
    definitions: dict[str, str] = {}
    current: tuple[str, str] | None = None
    body: list[str] = []

    def close() -> None:
        if current is None:
            return
        kind, name = current
        text = " ".join(" ".join(body).split())
        if kind == "theorem":
            module, _, short = name.rpartition(".")
            theorems[short], modules[short] = text, module
        else:
            definitions[name] = text

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("    ") and current is not None:
            body.append(line)
            continue
        close()
        current, body = None, []
        if not line.strip() or line.startswith("#"):
            continue
        kind, _, name = line.partition(" ")
        short = name.rpartition(".")[2]
        if kind not in ("theorem", "definition") or "." not in name or " " in name:
            raise ValueError(f"line {number} of the pinned statements: {line[:80]!r} is not 'theorem Module.name' "
                             "or 'definition Module.name'")
        if (kind == "theorem" and short in theorems) or (kind == "definition" and name in definitions):
            raise ValueError(f"line {number} of the pinned statements: {kind} {name} is written twice")
        current = (kind, name)
    close()
    return Pinned(theorems, modules, definitions)


def render(theorems: Mapping[str, tuple[str, str]], definitions: Mapping[str, str]) -> str:
    """The pinned file's text: ``theorems`` (name -> (module, statement)) and ``definitions`` (``Module.name`` ->
    text), grouped by module (alphabetically), each module's definitions before its theorems, in the order given."""
    modules = sorted({m for m, _ in theorems.values()} | {d.rpartition(".")[0] for d in definitions})
    out = [HEADER]
    for module in modules:
        out.append(f"## {module}\n")
        for name, text in definitions.items():
            if name.rpartition(".")[0] == module:
                out.append(_entry("definition", name, text))
        for name, (owner, statement) in theorems.items():
            if owner == module:
                out.append(_entry("theorem", f"{module}.{name}", statement))
    return "\n".join(out)


def _entry(kind: str, name: str, text: str) -> str:
    wrapped = textwrap.fill(" ".join(text.split()), width=_WIDTH, initial_indent="    ", subsequent_indent="    ",
                            break_long_words=False, break_on_hyphens=False)
    return f"{kind} {name}\n{wrapped}\n"


def reach(text: str, definitions: Mapping[str, str]) -> set[str]:
    """The definitions of ``definitions`` that ``text`` uses, and those they use, transitively."""
    found: set[str] = set()
    todo = uses(text, definitions)
    while todo:
        name = todo.pop()
        found.add(name)
        todo |= uses(definitions[name], definitions) - found
    return found


def problems(theorem: str, printed: Printed, pinned: Pinned) -> list[str]:
    """The Coq evidence's verdict predicate: why ``theorem`` as coqc printed it is *not* what the pinned file says
    it proves (empty: it is). A statement that differs, a definition that either statement reaches and that
    differs or is missing on either side, or assumptions other than "Closed under the global context" (an
    ``Admitted``, an axiom). The caller first sets aside a theorem that is not printed or not pinned."""
    found: list[str] = []
    statement, recorded = printed.statements.get(theorem, ""), pinned.theorems.get(theorem, "")
    if statement != recorded:
        found.append(f"{theorem} states {statement!r}, but the pinned statement is {recorded!r}")
    reached = reach(statement, printed.definitions) | reach(recorded, pinned.definitions)
    for name in sorted(reached):
        now, then = printed.definitions.get(name), pinned.definitions.get(name)
        if now != then:
            found.append(f"the definition {name}, which {theorem} uses, "
                         + ("is not pinned" if then is None else "was not printed" if now is None
                            else f"is {_short(now)}, but the pinned one is {_short(then)}"))
    assumptions = printed.assumptions.get(theorem, "")
    if assumptions != CLOSED:
        found.append(f"{theorem} is not closed under the global context: {_axioms(assumptions)}")
    return found


def cited_definitions(theorems: Iterable[str], printed: Printed) -> list[str]:
    """Every definition the statements of ``theorems`` reach (what ``--pin`` writes), in printed order."""
    reached: set[str] = set()
    for name in theorems:
        reached |= reach(printed.statements.get(name, ""), printed.definitions)
    return [d for d in printed.definitions if d in reached]


def _short(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _axioms(assumptions: str) -> str:
    """The names ``Print Assumptions`` lists (``Axioms:`` then ``name : type`` lines), or its first line."""
    names = [line.split(" : ")[0].strip() for line in assumptions.splitlines()[1:]
             if line.strip() and not line[0].isspace() and not line.startswith(":")]
    return ("rests on " + ", ".join(names) + " (an Admitted or an Axiom)") if names else \
        (assumptions.splitlines()[0] if assumptions else "no Print Assumptions output")
