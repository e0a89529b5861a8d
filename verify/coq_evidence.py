"""The ledger's Coq evidence: a claim (or a step of its derivation) proved in Coq for every ``n``.

One method per Coq theorem, ``coq:THEOREM`` (:data:`COQ_METHODS`, merged into the ledger's
methods). It says ``proved`` and names its theorem **only** when the Coq development of
``verify/coq`` was compiled with the theorem closed under the global context (``Print
Assumptions``) and ``coqchk`` accepted the library, either in this run or in the build cache
keyed by the hash of the sources and the coqc version (:mod:`geosched.verify.coq_engine`);
the message says which: ``Coq, every n: thm32_svf_competitive (compiled this run)`` or
``... (build cache <hash>)``. Without coqc it is ``unknown`` with the message
``coqc not installed``, and a build that fails or a theorem that is not closed is
``unknown`` too, never ``proved``.

The evidence has kind ``"coq"``: it does not stand in for the sympy derivation; it *covers*
the derivation steps that name ``coq:THEOREM`` in their ``covered_by`` (as the solver checks
cover theirs, geosched.verify.ledger's rule 4), so that a claim is ``proved`` when every
step is checked by sympy or by a closed Coq theorem. :data:`CLAIM_THEOREMS` lists the
theorems of each ledger row.

Example
-------
>>> sorted(CLAIM_THEOREMS["kong.thm3.2"])
['svf_fast_eq', 'svf_feasible', 'svf_sim_eq', 'thm32_svf_competitive']
"""

from __future__ import annotations

from typing import Any

from geosched.verify import coq_engine
from geosched.verify.evidence import Context, Evidence

__all__ = ["COQ_METHODS", "CLAIM_THEOREMS", "WHOLE_CLAIM", "COQ_BOUND", "coq_method_name", "theorem_of",
           "whole_claim_proofs"]

COQ_BOUND = "every n (Coq)"  # the reach a closed Coq theorem gives
# ledger row -> the Coq theorems it reports (verify/coq: every n, every M, every instance)
CLAIM_THEOREMS: dict[str, tuple[str, ...]] = {
    "kong.volume": ("volume_is_memory_time",),
    "kong.prop3.1": ("prop31_lower_bound", "Q_eq_pairmin"),
    "kong.lemmaA.2": ("lemmaA2_peak_mass", "svf_js_sorted", "svf_starts_bound"),
    "kong.lemmaA.2.peak": ("lemmaA2_peak_mass", "lemmaA2_occupancy_refuted"),
    "kong.thm3.2": ("thm32_svf_competitive", "svf_feasible", "svf_sim_eq", "svf_fast_eq"),
    "kong.sjf_unbounded": ("sjf_not_competitive", "sjf_family_tel", "svf_family_tel"),
    "svf.lower_bound": ("svf_triangles_starts", "triangles_staggered_feasible"),
    "svf.fluid.k1": ("svf_group_competitive", "svf_group_start_bound", "svf_triangles_ratio",
                     "triangles_staggered_feasible"),
    **{f"svf.fluid.k{k}": ("svf_phase_start_bound_abs", "svf_group_competitive", "svf_group_start_bound",
                           "svf_triangles_ratio", "triangles_staggered_feasible") for k in (2, 3, 4)},
}
# the rows whose whole formalization Coq states (the ledger's rule 3): all of these closed => proved.
# kong.lemmaA.2 is not one: Coq has items 1 and 2 for every n but its sum only in a weaker form.
WHOLE_CLAIM: dict[str, tuple[str, ...]] = {
    "kong.volume": ("volume_is_memory_time",),
    "kong.prop3.1": ("prop31_lower_bound",),
    "kong.lemmaA.2.peak": ("lemmaA2_peak_mass", "lemmaA2_occupancy_refuted"),
    "kong.thm3.2": ("thm32_svf_competitive",),
    "kong.sjf_unbounded": ("sjf_not_competitive",),
}


def coq_method_name(theorem: str) -> str:
    """``coq:THEOREM``, the ledger method (and the ``covered_by`` name) of a Coq theorem."""
    return f"coq:{theorem}"


def theorem_of(method: str) -> str | None:
    """The theorem of a ``coq:THEOREM`` name, else None.

    >>> theorem_of("coq:prop31_lower_bound"), theorem_of("core:prop31_work")
    ('prop31_lower_bound', None)
    """
    return method[4:] if method.startswith("coq:") and method[4:] in coq_engine.THEOREMS else None


def whole_claim_proofs(claim_id: str, evidence: list[Evidence]) -> list[Evidence]:
    """The ``proved`` Coq evidence of every theorem :data:`WHOLE_CLAIM` lists for ``claim_id``, or ``[]``
    unless all of them are there and proved."""
    wanted = WHOLE_CLAIM.get(claim_id, ())
    found = {e.data.get("theorem"): e for e in evidence if e.kind == "coq" and e.status == "proved"}
    return [found[t] for t in wanted] if wanted and all(t in found for t in wanted) else []


def _build(ctx: Context) -> tuple[Any, float]:
    # --quick never compiles (a clean build takes minutes): it reads the build cache or says it could not
    result, elapsed = ctx.cached("coq-build", lambda: coq_engine.build(cached_only=ctx.quick))
    if elapsed:  # built (or read) now: the time waited for another process's build lock is not checking time
        waited = getattr(result, "lock_wait_seconds", 0.0)
        ctx.lock_wait += waited
        elapsed = max(elapsed - waited, 0.0)
    return result, elapsed


def _method(theorem: str):
    label = coq_method_name(theorem)

    def method(claim: Any, ctx: Context) -> Evidence:
        result, elapsed = _build(ctx)
        module = coq_engine.THEOREMS[theorem]
        data = {"theorem": theorem, "module": f"verify/coq/{module}.v", "build": result.status,
                "source_hash": result.source_hash, "coqc_version": result.coqc_version}
        if result.status == "unavailable":
            return Evidence(label, "coq", "unknown", "coqc not installed", wall_time=elapsed, data=data,
                            covers={label: ("unknown", "coqc not installed")})
        if result.status == "not_built":
            return Evidence(label, "coq", "unknown", "Coq build not in the cache (--quick does not compile; "
                            "geosched claims or python -m geosched.verify.coq_engine does)", wall_time=elapsed,
                            data=data, covers={label: ("unknown", "not built")})
        if result.status != "ok":
            return Evidence(label, "coq", "unknown", f"the Coq build failed: {result.message}", wall_time=elapsed,
                            data=data, covers={label: ("unknown", "build failed")})
        data.update(provenance=result.provenance(), statement=result.statements.get(theorem, ""),
                    assumptions=result.assumptions.get(theorem, ""), coqchk_axioms=result.coqchk_axioms)
        if not result.closed(theorem) or not result.coqchk:
            why = (result.assumptions.get(theorem) or "not found").splitlines()[0]
            return Evidence(label, "coq", "unknown", f"Coq: {theorem} not closed ({why})", wall_time=elapsed,
                            data=data, covers={label: ("unknown", "not closed")})
        return Evidence(label, "coq", "proved", f"Coq, every n: {theorem} ({result.provenance()})",
                        bound=COQ_BOUND, wall_time=elapsed, data=data, covers={label: ("proved", COQ_BOUND)})

    return method


COQ_METHODS = {coq_method_name(theorem): _method(theorem) for theorem in coq_engine.THEOREMS}
