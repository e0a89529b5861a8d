"""Coq stand-ins for tests that must not compile.

* :func:`coq_stub`: a Coq evidence as the ledger's ``coq:THEOREM`` method returns it, for tests of the ledger's rule
  (``combine``); a ``proved`` one has matched the pinned file (coq_evidence).
* :func:`pinned_build`: a build whose coqc output is exactly what ``verify/coq/statements.txt`` pins (every theorem
  closed, coqchk passed), for tests of the Coq evidence's verdicts; ``printed=`` / ``definitions=`` /
  ``assumptions=`` override parts of that output (a planted defect).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from geosched.verify import coq_engine, coq_evidence, coq_output, coq_pinned
from geosched.verify.evidence import Evidence


def coq_stub(theorem: str, status: str = "proved") -> Evidence:
    return Evidence(f"coq:{theorem}", "coq", status, f"Coq, every n: {theorem} (build cache 0123)",
                    data={"theorem": theorem}, covers={f"coq:{theorem}": (status, coq_evidence.COQ_BOUND)})


def pinned_build(printed: dict[str, str] | None = None, definitions: dict[str, str] | None = None,
                 assumptions: dict[str, str] | None = None, **changes: Any) -> coq_engine.CoqBuild:
    """A build that printed the pinned file's statements and definitions, each theorem closed; the keyword
    dictionaries replace entries of that output."""
    pinned = coq_pinned.read()
    statements = {**pinned.theorems, **(printed or {})}
    closed = {name: coq_output.CLOSED for name in statements}
    closed.update(assumptions or {})
    build = coq_engine.CoqBuild("ok", "fake", 0.0, source_hash="f" * 64, coqc_version="test",
                                theorems={n: text == coq_output.CLOSED for n, text in closed.items()},
                                statements=statements, assumptions=closed,
                                definitions={**pinned.definitions, **(definitions or {})}, coqchk=True,
                                coqchk_axioms="<none>", from_cache=True)
    return dataclasses.replace(build, **changes)
