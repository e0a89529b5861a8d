"""The ledger's Coq evidence: a claim (or a step of its derivation) proved in Coq for every ``n``.

One method per Coq theorem, ``coq:THEOREM`` (:data:`COQ_METHODS`, merged into the ledger's
methods). It says ``proved`` and names its theorem **only** when the Coq development of
``verify/coq`` was compiled with the theorem closed under the global context (``Print
Assumptions``) and ``coqchk`` accepted the library, either in this run or in the build cache
keyed by the hash of the sources and the coqc version (:mod:`geosched.verify.coq_engine`);
the message says which: ``Coq, every n: thm32_svf_competitive (compiled this run)`` or
``... (build cache <hash>)``. Without coqc it is ``unknown`` with the message
``coqc not installed``, and a build that fails or a theorem that is not closed is
``unknown`` too, never ``proved``; so is a whole-claim theorem whose statement, as the build's
``Check`` prints it, is not the one :data:`STATEMENTS` pins (the word checks what the theorem says,
not its name).

The evidence has kind ``"coq"``: it does not stand in for the sympy derivation; it *covers*
the derivation steps that name ``coq:THEOREM`` in their ``covered_by`` (as the solver checks
cover theirs, geosched.verify.ledger's rule 4), so that a claim is ``proved`` when every
step is checked by sympy or by a closed Coq theorem. :data:`CLAIM_THEOREMS` lists the
theorems of each ledger row.

Example
-------
>>> sorted(CLAIM_THEOREMS["kong.thm3.2"])
['svf_engine_eq', 'svf_feasible', 'svf_sim_eq', 'thm32_svf_competitive']
"""

from __future__ import annotations

from typing import Any

from geosched.verify import coq_engine
from geosched.verify.evidence import Context, Evidence

__all__ = ["COQ_METHODS", "CLAIM_THEOREMS", "WHOLE_CLAIM", "STATEMENTS", "COQ_BOUND", "coq_method_name",
           "theorem_of", "whole_claim_proofs", "normalized", "states_as_pinned"]

COQ_BOUND = "every n (Coq)"  # the reach a closed Coq theorem gives
# ledger row -> the Coq theorems it reports (verify/coq: every n, every M, every instance)
CLAIM_THEOREMS: dict[str, tuple[str, ...]] = {
    "kong.volume": ("volume_is_memory_time",),
    "kong.prop3.1": ("prop31_lower_bound", "Q_eq_pairmin"),
    "kong.lemmaA.2": ("lemmaA2_peak_mass", "lemmaA2_active_precede", "lemmaA2_peak_time", "lemmaA2_double_count",
                      "lemmaA2_summed", "lemmaA2_summed_pairs", "svf_js_sorted"),
    "kong.lemmaA.2.peak": ("lemmaA2_peak_mass", "lemmaA2_occupancy_refuted"),
    "kong.thm3.2": ("thm32_svf_competitive", "svf_feasible", "svf_sim_eq", "svf_engine_eq"),
    "kong.thm3.3": ("thm33_onebit_T", "thm33_onebit", "thm33_onebit_E1", "thm33_onebit_E1_sqrt", "hol_inversion",
                    "hol_inversion_sqrt", "onebit_sim_eq"),
    "kong.sjf_unbounded": ("sjf_not_competitive", "sjf_family_tel", "svf_family_tel"),
    "svf.lower_bound": ("svf_triangles_starts", "triangles_staggered_feasible"),
    "svf.fluid.k1": ("svf_group_competitive", "svf_group_start_bound", "svf_triangles_ratio",
                     "triangles_staggered_feasible"),
    **{f"svf.fluid.k{k}": ("svf_phase_start_bound_abs", "svf_group_competitive", "svf_group_start_bound",
                           "svf_triangles_ratio", "triangles_staggered_feasible") for k in (2, 3, 4)},
}
# the rows whose whole formalization Coq states (the ledger's rule 3): all of these closed => proved.
WHOLE_CLAIM: dict[str, tuple[str, ...]] = {
    "kong.volume": ("volume_is_memory_time",),
    "kong.prop3.1": ("prop31_lower_bound",),
    # items 1, 2, 3 and the summed form
    "kong.lemmaA.2": ("lemmaA2_peak_mass", "lemmaA2_active_precede", "lemmaA2_peak_time", "lemmaA2_summed"),
    "kong.lemmaA.2.peak": ("lemmaA2_peak_mass", "lemmaA2_occupancy_refuted"),
    "kong.thm3.2": ("thm32_svf_competitive",),
    # reading (a), unequal prompts, and reading (b), E1-E3 with the package's constant
    "kong.thm3.3": ("thm33_onebit_T", "thm33_onebit_E1"),
    "kong.sjf_unbounded": ("sjf_not_competitive",),
}


# What each whole-claim theorem states, as the build's `Check` prints it (whitespace collapsed): a row is
# proved by a closed theorem only while it still says this. A statement weakened under the same name (a
# hypothesis added, a constant grown) makes the row's Coq evidence `unknown` until this table is changed on
# purpose; tests/test_coq_ledger.py compares it with a build.
STATEMENTS: dict[str, str] = {
    "volume_is_memory_time": (
        r"Volume.volume_is_memory_time : forall (r : Model.req) (x T : nat), x + Model.output r <= T -> "
        r"Model.sum_upto T (fun t : nat => Model.req_usage r x (S t)) = Model.volume r"),
    "prop31_lower_bound": (
        r"Prop31.prop31_lower_bound : forall (M : nat) (rs : list Model.req) (xs : list nat), "
        r"Model.feasible M rs xs -> Prop31.Q rs <= M * Model.tel rs xs"),
    "lemmaA2_peak_mass": (
        r"LemmaA2.lemmaA2_peak_mass : forall (M P : nat) (rs : list Model.req) (t : nat), (forall r : "
        r"Model.req, List.In r rs -> Model.peak r <= P) -> (exists k : nat, k < length rs /\ t < List.nth k"
        r" (Svf.svf M rs) 0) -> M < Model.active_peaks rs (Svf.svf M rs) t + P"),
    "lemmaA2_active_precede": (
        r"LemmaA2Sum.lemmaA2_active_precede : forall (M : nat) (rs : list Model.req) (t i j : nat), i < "
        r"length rs -> j < length rs -> Model.activeb (List.nth i rs (0, 0), List.nth i (Svf.svf M rs) 0) t"
        r" = true -> t < List.nth j (Svf.svf M rs) 0 -> Model.volume (List.nth i rs (0, 0)) <= Model.volume"
        r" (List.nth j rs (0, 0))"),
    "lemmaA2_peak_time": (
        r"LemmaA2Sum.lemmaA2_peak_time : forall r : Model.req, Model.peak r * Model.output r + Model.output"
        r" r <= 2 * Model.volume r"),
    "lemmaA2_summed": (
        r"LemmaA2Sum.lemmaA2_summed : forall (M P : nat) (rs : list Model.req), (forall r : Model.req, "
        r"List.In r rs -> Model.peak r <= P) -> (M - P) * Model.sumf (fun x : nat => x) (Svf.svf M rs) <= 2"
        r" * LemmaA2Sum.vol_before (List.map snd (Svf.svf_order rs))"),
    "lemmaA2_occupancy_refuted": (
        r"LemmaA2.lemmaA2_occupancy_refuted : ~ (forall (M : nat) (rs : list Model.req) (t : nat), (forall "
        r"r : Model.req, List.In r rs -> 1 <= Model.output r /\ 2 * Model.peak r <= M) -> (exists k : nat, "
        r"k < length rs /\ t < List.nth k (Svf.svf M rs) 0) -> M < 2 * Model.usage rs (Svf.svf M rs) t)"),
    "thm32_svf_competitive": (
        r"Thm32.thm32_svf_competitive : forall (M P : nat) (rs : list Model.req) (xs : list nat), (forall r"
        r" : Model.req, List.In r rs -> Model.peak r <= P) -> P < M -> (forall r : Model.req, List.In r rs "
        r"-> 1 <= Model.output r) -> Model.feasible M rs xs -> (M - P) * Model.tel rs (Svf.svf M rs) <= (3 "
        r"* M - P) * Model.tel rs xs"),
    "thm33_onebit_T": (
        r"OneBit.thm33_onebit_T : forall (M P T theta O0 O1 : nat) (rs : list Model.req) (xs : list nat), 1"
        r" <= O0 -> O0 < O1 -> O1 <= T -> (forall r : Model.req, List.In r rs -> 1 <= Model.output r <= T) "
        r"-> (forall r : Model.req, List.In r rs -> Model.peak r <= P) -> Model.feasible M rs xs -> (M - P)"
        r" * Model.tel rs (OneBit.onebit M theta O0 O1 rs) <= (M - P + 2 * (2 * T - 1) * M) * Model.tel rs "
        r"xs"),
    "thm33_onebit_E1": (
        r"OneBit.thm33_onebit_E1 : forall (M P T s O0 O1 : nat) (rs : list Model.req) (xs : list nat), 1 <="
        r" T -> O0 < O1 -> (forall r : Model.req, List.In r rs -> Model.prompt r = s /\ 1 <= Model.output r"
        r" <= T) -> (forall r : Model.req, List.In r rs -> Model.peak r <= P) -> Model.feasible M rs xs -> "
        r"(M - P) * Model.tel rs (OneBit.onebit M (PeanoNat.Nat.sqrt T) O0 O1 rs) <= (M - P + 2 * T * M) * "
        r"Model.tel rs xs"),
    "sjf_not_competitive": (
        r"SjfFamily.sjf_not_competitive : forall c : nat, exists (M : nat) (rs : list Model.req) (xs : list"
        r" nat), (forall r : Model.req, List.In r rs -> 8 * Model.peak r <= 5 * M) /\ Model.feasible M rs "
        r"xs /\ c * Model.tel rs xs < Model.tel rs (SjfFamily.sjf M rs)"),
}


def normalized(statement: str) -> str:
    """``statement`` with its whitespace collapsed (how :data:`STATEMENTS` holds it).

    >>> normalized("Volume.volume_is_memory_time\\n     : forall r : req, r = r")
    'Volume.volume_is_memory_time : forall r : req, r = r'
    """
    return " ".join(statement.split())


def states_as_pinned(theorem: str, statement: str) -> bool:
    """True when ``theorem`` has no pinned statement, or ``statement`` (as built) is the pinned one."""
    return theorem not in STATEMENTS or normalized(statement) == STATEMENTS[theorem]


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
        if not states_as_pinned(theorem, result.statements.get(theorem, "")):
            return Evidence(label, "coq", "unknown", f"Coq: {theorem} no longer states what its row rests on "
                            "(coq_evidence.STATEMENTS)", wall_time=elapsed, data=data,
                            covers={label: ("unknown", "statement changed")})
        return Evidence(label, "coq", "proved", f"Coq, every n: {theorem} ({result.provenance()})",
                        bound=COQ_BOUND, wall_time=elapsed, data=data, covers={label: ("proved", COQ_BOUND)})

    return method


COQ_METHODS = {coq_method_name(theorem): _method(theorem) for theorem in coq_engine.THEOREMS}
