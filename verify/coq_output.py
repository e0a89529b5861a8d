r"""Reading the Coq sources and what ``coqc`` and ``coqchk`` print: the one place that parses them.

After compiling ``verify/coq``, the build runs a generated *statements script* (:func:`statements_script`):
for every ``Theorem`` and ``Corollary`` a ``Check`` and a ``Print Assumptions``, for every definition of
the development a ``Print``, and one ``Print Libraries``, each followed by ``Print geosched_marker`` so that
the output splits into one block per query (:func:`parse_statements`). A ``Check`` is normalised into the
statement (:func:`normalise_statement`), a ``Print`` into the definition's text (:func:`normalise_print`);
:func:`uses` finds the definitions of the development a text names (the statements print them qualified,
``Model.tel``, since the script only ``Require``\ s the modules). :func:`declared_theorems` and
:func:`declared_definitions` find the names in the ``.v`` files (comments removed).

The build cache stores coqc's raw output and this module parses it again on every read, and the
cache key (:func:`geosched.verify.coq_engine.source_hash`) includes this file: a change here can
never be hidden by a cached build.

Example
-------
>>> queries = [("check", "Model.tel_nil"), ("assumptions", "Model.tel_nil")]
>>> out = ("Model.tel_nil\n     : Model.tel [] [] =\n       0\ngeosched_marker = 0\n     : nat\n"
...        "Closed under the global context\ngeosched_marker = 0\n     : nat\n")
>>> parsed = parse_statements(out, queries)
>>> parsed["statements"]["tel_nil"], parsed["closed"]["tel_nil"]
('Model.tel [] [] = 0', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CLOSED", "MARKER", "THEOREM_LINE", "DEFINITION_LINE", "normalise_statement", "normalise_print",
           "strip_comments", "declared_theorems", "theorem_words", "declared_definitions", "statements_script",
           "parse_statements", "uses", "axioms", "development_axioms", "first_error"]

CLOSED = "Closed under the global context"
# what `Print geosched_marker.` prints after each query of the statements script
MARKER = re.compile(r"^geosched_marker = 0\s*\n\s*: nat\s*$\n?", flags=re.M)
# a citable theorem: a top-level `Theorem` or `Corollary` (build.sh's sed uses the same pattern)
THEOREM_LINE = re.compile(r"^(?:Theorem|Corollary)\s+([A-Za-z0-9_']+)", flags=re.M)
# a definition a statement may use: what `Print` shows (inside a Section too; a section's `Let` is not one)
DEFINITION_LINE = re.compile(r"^\s*(?:(?:Local|Global|Program)\s+)*(?:Definition|Fixpoint|CoFixpoint|Function|"
                             r"Inductive|CoInductive|Record|Structure|Variant|Class)\s+([A-Za-z_][A-Za-z0-9_']*)",
                             flags=re.M)
_QUALIFIED = re.compile(r"(?<![\w'.])([A-Z][A-Za-z0-9_']*)\.([A-Za-z_][A-Za-z0-9_']*)(?![\w'])")
# extraction commands only, and the scripts build.sh generates: no theorem, nothing a statement uses
_NOT_CITABLE = ("Extract.v", "Assumptions.v")


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


def normalise_print(text: str) -> str:
    r"""A ``Print NAME.`` output with its whitespace collapsed: the definition's body, type and arguments.

    >>> normalise_print("Model.peak =\n  fun r : Model.req => fst r + snd r\n     : Model.req -> nat\n")
    'Model.peak = fun r : Model.req => fst r + snd r : Model.req -> nat'
    """
    return " ".join(text.split())


def strip_comments(text: str) -> str:
    """Coq source without its (nested) comments ``(* ... *)``.

    >>> strip_comments("a (* b (* c *) d *) e")
    'a  e'
    """
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


def _sources(root: Path) -> list[Path]:
    return [p for p in sorted(Path(root).glob("*.v")) if p.name not in _NOT_CITABLE and not p.name.startswith("_")]


def declared_theorems(root: Path) -> dict[str, str]:
    """Theorem name -> module (file stem) of every ``Theorem``/``Corollary`` in ``root/*.v`` but ``Extract.v``, in
    file order; a name declared twice is an error (a citation would be ambiguous)."""
    found: dict[str, str] = {}
    for path in _sources(root):
        for name in THEOREM_LINE.findall(strip_comments(path.read_text(encoding="utf-8"))):
            if name in found:
                raise ValueError(f"Coq theorem {name} is declared in {found[name]}.v and {path.stem}.v")
            found[name] = path.stem
    return found


def theorem_words(root: Path) -> dict[str, str]:
    """Theorem -> its doc comment: the ``(** ... *)`` right before its ``Theorem``/``Corollary`` line (a section
    heading, ``(** ** ...``, is not one), whitespace collapsed; "" when there is none. The generated theorem
    tables print it ("in words"), so a new theorem documents itself in its own file."""
    words: dict[str, str] = {}
    for path in _sources(root):
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"^(?:Theorem|Corollary)\s+([A-Za-z0-9_']+)", text, flags=re.M):
            before = text[:found.start()].rstrip()
            start = before.rfind("(**")
            comment = before[start:] if start >= 0 and before.endswith("*)") else ""
            if comment.startswith("(** **") or comment.count("(*") != comment.count("*)"):
                comment = ""
            words[found.group(1)] = " ".join(comment[3:-2].split())
    return words


def declared_definitions(root: Path) -> list[str]:
    """``Module.name`` of every definition in ``root/*.v`` (what ``Print`` can show), in file order."""
    names: list[str] = []
    for path in _sources(root):
        for name in DEFINITION_LINE.findall(strip_comments(path.read_text(encoding="utf-8"))):
            qualified = f"{path.stem}.{name}"
            if qualified not in names:
                names.append(qualified)
    return names


def statements_script(modules: Sequence[str], theorems: Mapping[str, str], definitions: Sequence[str],
                      *, libraries: bool = True) -> tuple[str, list[tuple[str, str]]]:
    """``(Coq script, queries)``: the script requires ``modules`` of the library ``GeoSched`` (without importing
    them, so that every name prints qualified) and asks, each answer followed by the marker: ``Check`` and
    ``Print Assumptions`` of each theorem (``theorems``: name -> module), ``Print`` of each definition
    (``Module.name``), and ``Print Libraries``. ``queries`` lists ``(kind, name)`` in the same order."""
    lines = [f"From GeoSched Require {' '.join(modules)}.", "Definition geosched_marker := 0."]
    queries: list[tuple[str, str]] = []
    for name, module in theorems.items():
        lines += [f"Check GeoSched.{module}.{name}.", "Print geosched_marker.",
                  f"Print Assumptions GeoSched.{module}.{name}.", "Print geosched_marker."]
        queries += [("check", f"{module}.{name}"), ("assumptions", f"{module}.{name}")]
    for qualified in definitions:
        lines += [f"Print GeoSched.{qualified}.", "Print geosched_marker."]
        queries.append(("print", qualified))
    if libraries:
        lines += ["Print Libraries.", "Print geosched_marker."]
        queries.append(("libraries", ""))
    return "\n".join(lines) + "\n", queries


def parse_statements(output: str, queries: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """What the statements script printed, by query: ``statements`` (theorem -> normalised ``Check``),
    ``assumptions`` (theorem -> ``Print Assumptions``' text), ``closed`` (theorem -> that text is
    :data:`CLOSED`), ``modules`` (theorem -> module), ``definitions`` (``Module.name`` -> normalised ``Print``)
    and ``libraries`` (the loaded library files). An answer not closed by its marker (coqc stopped in it) is left
    out, with every query after it."""
    blocks = MARKER.split(output)[:-1]  # each answer closed by its marker (what follows the last one is not one)
    found: dict[str, Any] = {"statements": {}, "assumptions": {}, "closed": {}, "modules": {}, "definitions": {},
                             "libraries": []}
    for (kind, name), block in zip(queries, blocks):
        module, _, short = name.rpartition(".")
        if kind == "check":
            found["statements"][short] = normalise_statement(block)
            found["modules"][short] = module
        elif kind == "assumptions":
            text = block.strip()
            found["assumptions"][short] = text
            found["closed"][short] = text == CLOSED
        elif kind == "print":
            found["definitions"][name] = normalise_print(block)
        elif kind == "libraries":
            found["libraries"] = [line.strip() for line in block.splitlines()[1:] if line.strip()]
    return found


def uses(text: str, known: Iterable[str]) -> set[str]:
    """The definitions of ``known`` (``Module.name``) that ``text`` names.

    >>> sorted(uses("forall rs, Model.tel rs (Svf.svf M rs) <= List.length rs", {"Model.tel", "Svf.svf"}))
    ['Model.tel', 'Svf.svf']
    """
    names = set(known)
    return {f"{m}.{n}" for m, n in _QUALIFIED.findall(text) if f"{m}.{n}" in names}


def axioms(output: str) -> str:
    """``coqchk -o``'s axiom summary (``"<none>"``), or ``"unparsed"``."""
    found = re.search(r"^\* Axioms:(.*?)^\* ", output, flags=re.S | re.M)
    return " ".join(found.group(1).split()) if found else "unparsed"


def development_axioms(output: str, library: str = "GeoSched") -> list[str]:
    """The axioms ``coqchk -o`` lists inside ``library`` (checked with ``-norec``, the libraries it requires
    are admitted and listed too: those are not the development's).

    >>> development_axioms("* Axioms:\\n    Coq.ssr.x.y\\n    GeoSched.Thm32.ax\\n  \\n* Constants: <none>\\n")
    ['GeoSched.Thm32.ax']
    """
    summary = axioms(output)
    if summary == "unparsed":
        return ["unparsed"]
    return [name for name in summary.split() if name.startswith(f"{library}.")]


def first_error(text: str) -> str:
    """The first error of a failed coqc/ocamlopt run, with the ``File ...`` line before it (one line)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for k, line in enumerate(lines):
        if line.startswith("Error") or " Error" in line or line.startswith("Anomaly"):
            where = lines[k - 1] if k and lines[k - 1].startswith("File ") else ""
            return " ".join(x for x in (where, line, *lines[k + 1:k + 2]) if x)[:400]
    return (lines[-1] if lines else "")[:400]
