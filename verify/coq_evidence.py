"""The ledger's Coq evidence: a claim (or a step of its derivation) proved in Coq for every ``n``, by statement.

One method per citable Coq theorem, ``coq:THEOREM`` (:data:`COQ_METHODS`: every ``Theorem`` and
``Corollary`` of ``verify/coq``, read from the sources; merged into the ledger's methods). A row that runs
``coq:THEOREM`` records the statement it relies on (``Claim.coq`` for the steps of its derivation,
``Claim.coq_whole`` for the theorems that together state the whole claim): the normalised ``Check``
output. The method says ``proved`` and names its theorem **only** when

* the Coq development of ``verify/coq`` was compiled with the theorem closed under the global context
  (``Print Assumptions``) and ``coqchk`` accepted the library, in this run or in the build cache keyed by
  the sources, the tools' versions and the code that reads their output
  (:mod:`geosched.verify.coq_engine`); the message says which: ``Coq, every n: thm32_svf_competitive
  (compiled this run)`` or ``... (build cache <hash>)``; and
* the statement coqc printed for it (parsed now, :mod:`geosched.verify.coq_output`) is the one the row
  records. A different statement **refutes** the row, naming the theorem and both statements (our
  wiring is wrong: an implementation check), whatever the name says.

Without coqc it is ``unknown`` with the message ``coqc not installed``; a build that fails or a theorem
that is not closed is ``unknown`` too, never ``proved``.

The evidence has kind ``"coq"``: it does not stand in for the sympy derivation; it *covers* the
derivation steps that name ``coq:THEOREM`` in their ``covered_by`` (as the solver checks cover theirs),
so that a claim is ``proved`` when every step is checked by sympy or by a closed Coq theorem. A row
whose ``coq_whole`` theorems are all proved is proved as a whole (:func:`whole_claim_proofs`, the
ledger's rule 4).

Example
-------
>>> theorem_of("coq:thm32_svf_competitive"), theorem_of("core:prop31_work")
('thm32_svf_competitive', None)
"""

from __future__ import annotations

import contextlib
from typing import Any

from geosched.verify import coq_engine
from geosched.verify.evidence import Context, Evidence

__all__ = ["COQ_METHODS", "COQ_BOUND", "coq_method_name", "theorem_of", "cited_statements", "whole_claim_proofs",
           "start_build", "await_build"]

COQ_BOUND = "every n (Coq)"  # the reach a closed Coq theorem gives


def coq_method_name(theorem: str) -> str:
    """``coq:THEOREM``, the ledger method (and the ``covered_by`` name) of a Coq theorem."""
    return f"coq:{theorem}"


def theorem_of(method: str) -> str | None:
    """The theorem of a ``coq:THEOREM`` name, else None.

    >>> theorem_of("coq:prop31_lower_bound"), theorem_of("coq:no_such_theorem")
    ('prop31_lower_bound', None)
    """
    return method[4:] if method.startswith("coq:") and method[4:] in coq_engine.THEOREMS else None


def cited_statements(claim: Any) -> dict[str, str]:
    """Theorem -> the statement ``claim`` records for it (``coq`` and ``coq_whole`` together)."""
    return dict(getattr(claim, "coq", ())) | dict(getattr(claim, "coq_whole", ()))


def whole_claim_proofs(claim: Any, evidence: list[Evidence]) -> list[Evidence]:
    """The ``proved`` Coq evidence of every theorem of ``claim.coq_whole``, or ``[]`` unless all of them are
    there and proved (each proved evidence has matched its recorded statement)."""
    wanted = [name for name, _ in getattr(claim, "coq_whole", ())]
    found = {e.data.get("theorem"): e for e in evidence if e.kind == "coq" and e.status == "proved"}
    return [found[t] for t in wanted] if wanted and all(t in found for t in wanted) else []


_BUILD = "coq-build"  # the run's Coq build, in the ledger's Context cache


def start_build(ctx: Context) -> None:
    """Start the run's Coq build (or its cache read) in the background: the ledger calls it first, and the rows
    that cite no Coq theorem run while coqc compiles; the first ``coq:`` check waits for it (the wait is reported
    apart from checking time, never charged to a row)."""
    ctx.background(_BUILD, lambda: _read_or_build(ctx))


def await_build(ctx: Context) -> None:
    """Wait for the build :func:`start_build` started, outside any check's time limit (a first build may take
    minutes; the wait is counted apart from checking). A build that raised raises again in the check that reads
    it: an ``error`` there."""
    with contextlib.suppress(Exception):
        ctx.wait_for(_BUILD)


def _read_or_build(ctx: Context) -> Any:
    # --quick never compiles (a clean build takes minutes): it reads the build cache or says it could not
    return coq_engine.build(cached_only=ctx.quick)


def _build(ctx: Context) -> tuple[Any, float]:
    result, elapsed = ctx.cached(_BUILD, lambda: _read_or_build(ctx))
    if elapsed:  # built (or read) now: the time waited for another process's build lock is not checking time
        waited = getattr(result, "lock_wait_seconds", 0.0)
        ctx.lock_wait += waited
        elapsed = max(elapsed - waited, 0.0)
    return result, elapsed


def _not_proved(label: str, why: str, short: str, elapsed: float, data: dict[str, Any]) -> Evidence:
    return Evidence(label, "coq", "unknown", why, wall_time=elapsed, data=data, covers={label: ("unknown", short)})


def _method(theorem: str):
    label = coq_method_name(theorem)

    def method(claim: Any, ctx: Context) -> Evidence:
        result, elapsed = _build(ctx)
        data = {"theorem": theorem, "module": f"verify/coq/{coq_engine.THEOREMS[theorem]}.v", "build": result.status,
                "source_hash": result.source_hash, "coqc_version": result.coqc_version}
        if result.status == "unavailable":
            return _not_proved(label, "coqc not installed", "coqc not installed", elapsed, data)
        if result.status == "not_built":
            return _not_proved(label, "Coq build not in the cache (--quick does not compile; geosched claims or "
                               "python -m geosched.verify.coq_engine does)", "not built", elapsed, data)
        if result.status != "ok":
            return _not_proved(label, f"the Coq build failed: {result.message}", "build failed", elapsed, data)
        printed = result.statements.get(theorem, "")
        recorded = cited_statements(claim).get(theorem)
        data.update(provenance=result.provenance(), statement=printed, recorded_statement=recorded,
                    assumptions=result.assumptions.get(theorem, ""), coqchk_axioms=result.coqchk_axioms)
        if recorded is None:
            return _not_proved(label, f"Coq: the row records no statement for {theorem} (Claim.coq / coq_whole), "
                               "so nothing says what it relies on", "no statement", elapsed, data)
        if printed and " ".join(recorded.split()) != printed:
            return Evidence(label, "coq", "refuted", f"Coq: {theorem} states {printed!r}, but the row relies on "
                            f"{' '.join(recorded.split())!r}", wall_time=elapsed, data=data, implementation=True,
                            counterexample=ctx.write(f"coq_statement_{theorem}.json", data),
                            covers={label: ("refuted", "statement differs")})
        if not result.closed(theorem) or not result.coqchk or not printed:
            why = (result.assumptions.get(theorem) or "not found").splitlines()[0]
            return _not_proved(label, f"Coq: {theorem} not closed ({why})", "not closed", elapsed, data)
        return Evidence(label, "coq", "proved", f"Coq, every n: {theorem} ({result.provenance()})",
                        bound=COQ_BOUND, wall_time=elapsed, data=data, covers={label: ("proved", COQ_BOUND)})

    return method


COQ_METHODS = {coq_method_name(theorem): _method(theorem) for theorem in coq_engine.THEOREMS}
