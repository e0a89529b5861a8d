"""One row of the claims ledger, declared beside its derivation: plain data, no sympy, no checks.

A theory module declares the claim it derives as ``CLAIM = Claim(...)`` (or several as ``CLAIMS``,
with ``DERIVATIONS`` mapping each id to its factory); a claim with no derivation (an empirical or a
literature claim) is declared the same way beside the :mod:`geosched.verify` module that checks it,
and says why it has none (``no_derivation``). :mod:`geosched.theory.registry` finds the theory
modules by walking this package, and :mod:`geosched.verify.ledger` resolves each row's method names
(a name no method is registered under is an error when the ledger is imported). Adding a claim is
one file: its module here (the derivation and the row), plus a method in ``verify/`` only when the
claim needs a new kind of check.

The ledger prints its rows in the papers' order, by ``order = (section, position)``: the
sections of :data:`SECTIONS` in turn, then the position (spaced by 10, so a claim can go between
two others without renumbering them).

Example
-------
>>> row = Claim("my.claim", "ours", "1 + 1 = 2", "sympy", "none", ("derivation",), order=("ours", 5))
>>> sort_key(row) < sort_key(Claim("x", "s", "t", "f", "d", (), order=("literature", 10)))
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claim", "SECTIONS", "sort_key", "KONG", "JAILLET", "KONG_PAPER", "JAILLET_PAPER", "SIMULATES"]

# the ledger's sections, in printed order: the papers' theorems, ours, the literature, the experiments
SECTIONS = ("kong", "jaillet", "ours", "literature", "kong.experiments", "sagesched")

KONG_PAPER = "Kong, Qi, Ye, Zhou, arXiv 2606.22327"  # the papers, as a derivation cites them (Derivation.paper)
JAILLET_PAPER = "Jaillet et al., arXiv 2502.07115"
KONG = "Kong et al."  # as a claim's source names them ("Kong et al. Thm. 3.2")
JAILLET = "Jaillet et al."
# every claim whose checks simulate a policy also checks the simulator's admission code against its Z3 specification
SIMULATES = ("policy-spec",)


@dataclass(frozen=True)
class Claim:
    """One claim of the papers: what it says, what we check, how the two differ, and how."""

    id: str  # ledger key, e.g. "kong.thm3.2"
    source: str  # paper and numbering
    statement: str  # the paper's statement (short)
    formalization: str  # what this project checks, exactly
    difference: str  # how the formalization differs from the statement ("none" when it does not)
    methods: tuple[str, ...]  # method names (registered in geosched.verify.methods.METHODS), run in order
    depends_on: tuple[str, ...] = ()  # claims its proof rests on (their status caps this one)
    order: tuple[str, int] | None = None  # (section of SECTIONS, position): where the ledger prints it
    no_derivation: str = ""  # why the claim has no sympy derivation ("" when it has one: method "derivation")
    exhaustive_variants: tuple[str, ...] = ()  # the exhaustive run's variants its checks read (one shared run)
    flips: str = ""  # an empirical claim: what would change its word (docs/claims.md's figures table)
    # the Coq theorems the row cites, by name (a method ``coq:NAME`` each); what each one states is written once, in
    # the reviewed file verify/coq/statements.txt (``python -m geosched.verify.coq_engine --pin`` writes it), with
    # every definition the statement uses; the ledger compares coqc's output with that file in every run
    coq: tuple[str, ...] = ()  # theorems covering steps of the derivation
    coq_whole: tuple[str, ...] = ()  # theorems that together state the whole claim
    # (a coq_whole theorem, form, *arguments): where the row has a formal content, the form in which that theorem
    # must state it (geosched.verify.coq_evidence.FORMS): "ratio" with renamings ("P = alpha * M"): its conclusion,
    # read as a bound on TEL(ALG)/TEL(S), equals the derivation's bound; "unbounded": for every c some instance has
    # c TEL(S) < TEL(ALG); "sharp" with the constant K: for every a < K b the bound with a/b fails somewhere
    coq_constant: tuple[str, ...] = ()


def sort_key(claim: Claim) -> tuple[int, int]:
    """``(index of the section, position)``: the ledger's order (a row without a known section sorts last;
    the ledger refuses it when it is imported)."""
    section, position = claim.order if claim.order is not None else ("", 0)
    return (SECTIONS.index(section) if section in SECTIONS else len(SECTIONS), position)
