"""The claims ledger: every claim of the papers, with a status that comes from running its checks.

One row per claim (:data:`ROWS`, plain data: the paper's statement, the project's
formalization, how they differ, the methods that check it, the claims it rests on, where it is
printed), declared beside its derivation in :mod:`geosched.theory` (``CLAIM = Claim(...)``, found by
walking the package) or, for a claim with no derivation, beside the check module that measures it
(``CLAIMS`` in :mod:`~geosched.verify.methods`, :mod:`~geosched.verify.kong_serving`,
:mod:`~geosched.verify.sagesched_claims`); :func:`check_rows` refuses, on import, a method name no
module registered, a dependency that is not an earlier row, a duplicate id or position. Each
method (:data:`geosched.verify.methods.METHODS`, registered by name) returns an
:class:`~geosched.verify.evidence.Evidence` in the words ``proved``, ``checked``,
``consistent``, ``vacuous``, ``refuted``, ``unknown`` (defined in
:mod:`geosched.verify.evidence`). The claim's status follows **one rule** (:func:`combine`; the
same words as ``geosched prove`` and ``docs/claims.md``; no refutation is masked):

1. any ``refuted`` evidence: ``refuted``, naming the check and whether it is an
   *implementation* check (our code is the paper's algorithm: the simulator's admission against
   its Z3 specification, our constants against theory's, anything that ran our simulator) or a
   *theory* check, with the counterexample file;
2. else a check that crashed: ``error``, naming it (the ledger goes on with the other rows);
2b. else a check that could not have failed (a passing check whose canary, the planted defect of its own kind
   judged by its own verdict predicate in the same run, was not refuted; :mod:`geosched.verify.evidence`):
   ``vacuous``, naming it and the defect, whatever else the row has (a Coq proof of the whole claim included:
   like a crash, a check that cannot fail is a defect of the run's tooling); this holds for the simulated
   checks of the named hypotheses of a ``proved relative to`` row too;
3. else a supporting check that did not finish (its time limit, a solver timeout): ``unknown``,
   naming it;
4. else, when no claim it depends on is refuted and a closed Coq theorem states the whole claim
   (the row's ``coq_whole`` theorems, each closed with the statement the row records, compiled this run or
   read from the build cache):
   ``proved``, naming it, whatever else its dependencies say (the Coq proof contains its own lemmas);
5. else a claim it depends on that is not established (``refuted``, ``error``, ``unknown``,
   ``not_run``): ``unknown``, naming it;
6. else ``proved`` when every proof method proved its part and every step of the derivation
   and of everything it depends on is mechanically checked (sympy, a solver proof for all
   values, or a closed Coq theorem the step names); ``proved relative to H1, H2`` when that
   holds except for steps that apply named hypotheses the derivation states with their
   conditions (standard results it assumes: ``Step.assumption``), or when a claim it depends on
   is itself proved relative to such hypotheses; otherwise the note says "proved relative
   to X; unchecked: steps ...";
7. else ``checked up to <bound>`` when that chain holds with some steps checked only up to a
   bound (solver proofs for every ``n <= N``), or when a bounded check that could have failed
   passed (``vacuous`` checks never count);
8. else ``consistent in <N> samples`` (a statistical check that could have failed agreed);
9. else ``vacuous`` when the only passing checks could not have failed; ``not_run`` when no
   check ran; else ``unknown``;
10. and never stronger than the weakest claim it depends on
   (proved > checked > consistent > vacuous), except a claim proved as a whole in Coq (rule 4).

Every check runs under a time limit (:data:`~geosched.verify.evidence.TIME_LIMITS`, per mode,
or ``run_claims(time_limit=...)``) in a worker thread; one past it is ``unknown`` ("did not
finish within ..."), and the ledger goes on (the thread is abandoned: a daemon, it cannot keep
the process alive).

Example
-------
>>> result = run_claims(["kong.volume"], mode="quick")
>>> result.claims[0].status
'proved'
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

from geosched import _signal_waits
from geosched.errors import UnknownNameError, ValidationError
from geosched.executor import using_executor
from geosched.output import check_folder
from geosched.progress import stage
from geosched.results import Result
from geosched.theory.claim import SECTIONS, Claim, sort_key
from geosched.theory.registry import CLAIMS as THEORY_CLAIMS
from geosched.theory.registry import DERIVATIONS
from geosched.verify import coq_watch, implementation_claims, kong_serving, methods, sagesched_claims, z3ceiling
from geosched.verify.coq_evidence import (
    COQ_METHODS,
    await_build,
    cited_theorems,
    pinned,
    start_build,
    stops_build_on_interrupt,
    theorem_of,
    whole_claim_proofs,
)
from geosched.verify.empirical import combine_empirical
from geosched.verify.evidence import EVIDENCE_STATUSES, MODES, STRENGTH, Context, Evidence, settle
from geosched.verify.family_evidence import FAMILY_METHODS
from geosched.verify.frontier_evidence import FRONTIER_METHODS
from geosched.verify.kong_serving import SERVING_METHODS
from geosched.verify.methods import METHODS, add_methods
from geosched.verify.poisson_boundary import BOUNDARY_METHODS
from geosched.verify.poisson_capacity import CAPACITY_METHODS
from geosched.verify.poisson_hypotheses import HYPOTHESIS_METHODS
from geosched.verify.poisson_residual import POISSON_METHODS
from geosched.verify.poisson_stationary import STATIONARY_METHODS
from geosched.verify.poisson_step3 import STEP3_METHODS
from geosched.verify.sagesched_claims import SAGESCHED_METHODS
from geosched.verify.trace_set import check_traces
from geosched.verify.upper_evidence import UPPER_METHODS

add_methods(SERVING_METHODS)  # Kong et al.'s empirical rows on every trace of the trace set (issues 13, 35, 45)
add_methods(SAGESCHED_METHODS)  # SageSched's claims in the cluster simulator (issue 14)
add_methods(COQ_METHODS)  # the Coq theorems of verify/coq, one method each (issue 22)
add_methods(FAMILY_METHODS)  # the SJF and FCFS families of issue 25, simulated against their closed forms
add_methods(FRONTIER_METHODS)  # SVF's upper side (issue 32): SvfSharp.v's and LemmaA2Head.v's statements on instances
add_methods(UPPER_METHODS)  # svf.upper_bound (issue 43): SvfUpper.v's statements on instances
add_methods(implementation_claims.METHODS_HERE)  # the referee, block grain, lower bounds, restarts (issue 34)
add_methods(POISSON_METHODS)  # the residual svf.poisson assumes (PASTA, LITTLE), simulated: it can refute the row
add_methods(HYPOTHESIS_METHODS)  # svf.poisson's LITTLE, PASTA, WALD, BATCH, STABLE, each simulated (issue 33)
add_methods({**STEP3_METHODS, **BOUNDARY_METHODS, **CAPACITY_METHODS, **STATIONARY_METHODS})  # issue 42

__all__ = ["Claim", "Evidence", "ClaimResult", "LedgerResult", "ROWS", "CLAIMS", "CLAIM_IDS", "run_claims",
           "run_claim", "combine", "versions", "EVIDENCE_STATUSES", "check_rows", "RowPrinter", "cites_coq"]

# the check modules that also declare rows: the claims with no derivation (the theory's rows are found by
# geosched.theory.registry); a new claim goes beside its derivation or its check, never into a list here
_ROW_MODULES = (methods, kong_serving, sagesched_claims, z3ceiling, implementation_claims)


def check_rows(rows: tuple[Claim, ...], known_methods: dict[str, Any], derivations: dict[str, Any]) -> None:
    """Refuse rows the ledger cannot run, when it is imported: a duplicate id or position, an order
    outside :data:`~geosched.theory.claim.SECTIONS`, a method no module registered, a dependency that is not
    a row or closes a cycle, a ``derivation`` method without a derivation, or a row
    with neither a derivation nor the reason it has none.

    Raises
    ------
    UnknownNameError
        For a method or dependency that is not registered (the message lists the known ones).
    ValidationError
        For the other defects, naming the claim.
    """
    earlier: set[str] = set()
    positions: dict[tuple[str, int], str] = {}
    for claim in rows:
        if claim.id in earlier:
            raise ValidationError("claim id", claim.id, "is declared twice")
        if claim.order is None or claim.order[0] not in SECTIONS or not isinstance(claim.order[1], int):
            raise ValidationError(f"{claim.id}: order", claim.order, f"must be (section, position), section one of "
                                  f"{', '.join(SECTIONS)}")
        if claim.order in positions:
            raise ValidationError(f"{claim.id}: order", claim.order, f"is already {positions[claim.order]}'s")
        positions[claim.order] = claim.id
        for name in claim.methods:
            if name not in known_methods:
                raise UnknownNameError(f"method (of claim {claim.id})", name, list(known_methods))
        _check_derivation(claim, derivations)
        _check_coq_citations(claim)
        earlier.add(claim.id)
    _check_dependencies(rows)
    orphans = [d for d in derivations if d not in earlier]
    if orphans:
        raise ValidationError("derivation", orphans[0], "has no ledger row")


def _check_dependencies(rows: tuple[Claim, ...] | list[Claim]) -> None:
    """Every dependency is a row, and no row depends on itself through others (a paper's row may rest on one of
    ours printed after it: ``kong.thm3.4`` on ``svf.poisson``; the runner evaluates dependencies first)."""
    graph = {claim.id: claim.depends_on for claim in rows}
    for claim in rows:
        for dependency in claim.depends_on:
            if dependency not in graph:
                raise UnknownNameError(f"dependency (of claim {claim.id})", dependency, sorted(graph))
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: tuple[str, ...]) -> None:
        if state.get(node) == 1:
            raise ValidationError("depends_on", " -> ".join((*path, node)), "must not form a cycle")
        if state.get(node) != 2:
            state[node] = 1
            for dependency in graph[node]:
                visit(dependency, (*path, node))
            state[node] = 2

    for claim in rows:
        visit(claim.id, ())


def _check_coq_citations(claim: Claim) -> None:
    """A row runs ``coq:THEOREM`` exactly for the theorems it cites by name (``coq``, ``coq_whole``), each a theorem
    of verify/coq; its ``coq_constant`` names one of its ``coq_whole`` theorems."""
    cited = cited_theorems(claim)
    for name in cited:
        if not isinstance(name, str) or theorem_of(f"coq:{name}") is None:
            raise ValidationError(f"{claim.id}: coq theorem", name, "must be the name of a Theorem or Corollary of "
                                  "verify/coq (cite by name; its statement is in verify/coq/statements.txt)")
    methods = {m[4:] for m in claim.methods if m.startswith("coq:")}
    if methods != set(cited):
        raise ValidationError(f"{claim.id}: coq citations", sorted(set(cited) ^ methods),
                              "every coq:THEOREM method needs its theorem in Claim.coq or Claim.coq_whole, and "
                              "every cited theorem its method")
    if claim.coq_constant and claim.coq_constant[0] not in claim.coq_whole:
        raise ValidationError(f"{claim.id}: coq_constant", claim.coq_constant[0], "must be one of its coq_whole "
                              "theorems")


def _check_derivation(claim: Claim, derivations: dict[str, Any]) -> None:
    """A row runs the method ``derivation`` exactly when a theory module derives it, and otherwise says why
    it has none."""
    derived = "derivation" in claim.methods
    if derived and claim.id not in derivations:
        raise ValidationError(f"{claim.id}: methods", "derivation", "needs a theory module that derives it")
    if not derived and claim.id in derivations:
        raise ValidationError(f"{claim.id}: methods", claim.methods, "must run 'derivation': theory derives it")
    if derived == bool(claim.no_derivation):
        raise ValidationError(f"{claim.id}: no_derivation", claim.no_derivation,
                              "is the reason a row has no derivation: empty exactly when it has one")


ROWS: tuple[Claim, ...] = tuple(sorted(THEORY_CLAIMS + tuple(c for m in _ROW_MODULES for c in m.CLAIMS), key=sort_key))
check_rows(ROWS, METHODS, DERIVATIONS)
CLAIMS: dict[str, Claim] = {c.id: c for c in ROWS}
CLAIM_IDS: tuple[str, ...] = tuple(CLAIMS)

# with every claim requested, the variants outside the theorems run too (a separate, smaller run) and are reported
_REPORTED_VARIANTS = ("svf_backfill", "svf1", "sjf", "svf1_sqrtT", "fcfs", "svf_arrivals")


def versions() -> dict[str, str]:
    """Versions of geosched, python, z3, cvc5, sympy and numpy, and the hash of the pinned Coq statements."""
    import cvc5
    import numpy
    import sympy

    from geosched.version import __version__

    return {"geosched": __version__, "python": platform.python_version(), "z3": z3.get_version_string(),
            "cvc5": getattr(cvc5, "__version__", "?"), "sympy": sympy.__version__, "numpy": numpy.__version__,
            # what the Coq rows are proved to state: SHA-256 of verify/coq/statements.txt (a diff of it is a diff
            # of what is proved)
            "coq_statements": pinned().sha256}


@dataclass(frozen=True)
class ClaimResult(Result):
    """A claim's combined status and the evidence behind it."""

    STATUSES = EVIDENCE_STATUSES
    SUCCESS = ("proved", "proved relative to", "checked", "consistent", "reproduced")  # ClaimResult

    id: str  # claim id
    source: str  # paper and numbering
    statement: str  # the paper's statement
    status: str  # one of EVIDENCE_STATUSES, by the rule of the module docstring
    message: str  # the ledger's wording: "checked up to <bound>", "consistent in <N> samples", ...
    methods: tuple[str, ...]  # methods run
    evidence: tuple[Evidence, ...]  # one per method
    counterexample: str | None  # file, when refuted
    note: str  # e.g. "proved relative to kong.lemmaA.2; unchecked: ..."
    wall_time: float  # seconds for this claim's own methods (shared runs are charged to the first claim; no waits)
    formalization: str = ""  # what this project checks
    difference: str = ""  # how that differs from the statement
    depends_on: tuple[str, ...] = ()  # claims it rests on
    used: float | None = None  # the headline bounded/statistical evidence's share of its constant
    discriminating: bool | None = None  # ... and whether the check with the constant 10% stronger fails
    reach: str = ""  # how far it is established: "all values", "n<=6 symbolic requests", a space
    waited: float = 0.0  # seconds spent waiting for the Coq build or another process's lock (not in wall_time)


@dataclass(frozen=True)
class LedgerResult(Result):
    """The whole ledger: ``status`` is ``"refuted"`` when some claim is refuted, else ``"error"`` when a
    check of some claim crashed, else ``"ok"``."""

    STATUSES = ("ok", "refuted", "error")
    SUCCESS = ("ok",)

    status: str
    message: str  # "13 claims: 1 proved, 7 checked, ..."
    wall_time: float  # seconds
    claims: tuple[ClaimResult, ...]  # in the order asked for
    thorough: bool  # long versions run
    seed: int  # base seed of every random part
    out: str | None  # folder of counterexample files
    versions: dict[str, str]  # geosched, python, z3, cvc5, sympy, numpy
    variants: dict[str, Any] = field(default_factory=dict)  # exhaustive findings outside the theorems
    mode: str = "default"  # "quick", "default" or "thorough"
    extra: dict[str, Any] = field(default_factory=dict)  # the exhaustive run's spaces, the cores' largest n

    def table(self, width: int | None = None) -> str:
        """The plain-text table ``geosched claims`` prints: one row per claim, ``width`` columns at most
        (default: the terminal's, ``$COLUMNS``, else 80); the status word is never cut, the last column
        wraps; a legend for every column and a count per status follow."""
        width = width or _terminal_width()
        table = _layout(_HEADERS, [_cells(c) for c in self.claims], width)
        return "\n".join([table, "", *self.legend(width)])

    def legend(self, width: int | None = None) -> list[str]:
        """The lines after the table's rows: the legend, a blank line, the counts."""
        width = width or _terminal_width()
        return [*_wrap(LEGEND, width), "", *_wrap(self.counts_line(), width)]

    def counts_line(self) -> str:
        """``"21 claims: proved 2, checked 7, ..."``: how many rows have each word (words with none left out)."""
        counts = {s: sum(c.status == s for c in self.claims) for s in EVIDENCE_STATUSES}
        return f"{len(self.claims)} claims: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v)

    def evidence_table(self, width: int | None = None) -> str:
        """One row per evidence: claim, method, kind, status, used, discriminating, canary (its planted defect
        refuted or not), message (wrapped)."""
        width = width or _terminal_width()
        head = ("claim", "method", "kind", "status", "used", "disc.", "canary")
        cells = [(c.id, e.method, e.kind, e.status, _fraction(getattr(e, "used", None)),
                  _yes_no(getattr(e, "discriminating", None)), canary_word(getattr(e, "canary", None)))
                 for c in self.claims for e in c.evidence]
        messages = [e.message for c in self.claims for e in c.evidence]
        widths = [max(len(h), *(len(r[k]) for r in cells)) if cells else len(h) for k, h in enumerate(head)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip(),
                 "  ".join("-" * w for w in widths)]
        for row, message in zip(cells, messages):
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
            lines += ["    " + more for more in _wrap(message, width - 4)]
        return "\n".join(line[:width] if len(line) > width else line for line in lines)


LEGEND = ("Legend: status = the row's word by the ledger's one rule (docs/claims.md); used = the share of the "
          "claim's constant the worst observed case of the headline check needed (worst observed / bound, read on "
          "the constant; - when the check has no constant); disc. = discriminating: the same check with the "
          "constant made 10% stronger fails (yes), or still passes (no); time = seconds spent on this row's own checks "
          "(a run shared by several rows is charged to the first; the rows it rests on are timed apart), and apart "
          "from them any wait for the Coq build (compiled in the background while the rows that need no Coq ran) "
          "or for another process's lock.")


_HEADERS = ("id", "status", "used", "disc.", "time", "established; statement")


def _cells(claim: ClaimResult) -> tuple[str, ...]:
    return (claim.id, claim.status, _fraction(claim.used), _yes_no(claim.discriminating), _seconds(claim),
            f"{claim.message}. {claim.statement}")


class RowPrinter:
    """The table of :meth:`LedgerResult.table` printed a row at a time, as rows finish (``geosched claims``:
    the table grows): the columns are sized before any row is known, from the ids asked for and the words.

    >>> printer = RowPrinter(["kong.volume"], width=80)
    >>> printer.head()[0].split()
    ['id', 'status', 'used', 'disc.', 'time', 'established;', 'statement']
    """

    def __init__(self, ids: list[str] | tuple[str, ...], width: int | None = None) -> None:
        self.width = width or _terminal_width()
        widths = [max(len(_HEADERS[0]), *map(len, ids)), max(map(len, EVIDENCE_STATUSES)), len("0.0625"),
                  len(_HEADERS[3]), len("1234.5s"), 0]
        self._columns = _Columns(_HEADERS, widths, self.width)

    def head(self) -> list[str]:
        """The header line and its rule."""
        return self._columns.head()

    def row(self, claim: ClaimResult) -> list[str]:
        """The lines of one finished row."""
        return self._columns.lines(_cells(claim))


def _seconds(claim: ClaimResult) -> str:
    """The time column: checking seconds, and apart from them any wait for another process's lock."""
    return f"{claim.wall_time:.1f}s" + (f" +{claim.waited:.1f}s waiting" if claim.waited >= 0.05 else "")


def _terminal_width() -> int:
    import shutil

    return max(40, shutil.get_terminal_size((80, 24)).columns)


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width, break_long_words=True, break_on_hyphens=False) or [""]


def canary_word(canary: Any) -> str:
    """``refuted`` (the check refuted its planted defect), ``NOT refuted`` (it could not have failed), ``-``."""
    return "-" if canary is None else "refuted" if canary.refuted else "NOT refuted"


def _fraction(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _layout(headers: tuple[str, ...], rows: list[tuple[str, ...]], width: int) -> str:
    """Columns as wide as their widest cell, except the last, which gets what is left of ``width`` and
    wraps onto continuation lines; when less than 20 columns are left, it goes on indented lines below
    its row. No cell is ever cut."""
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for k, h in enumerate(headers)]
    columns = _Columns(headers, widths, width)
    return "\n".join([*columns.head(), *(line for row in rows for line in columns.lines(row))])


class _Columns:
    """A table's columns at fixed widths (all but the last, which wraps into what is left of ``width``)."""

    def __init__(self, headers: tuple[str, ...], widths: list[int], width: int) -> None:
        self.headers, self.widths, self.width = headers, widths, width
        self.used = sum(widths[:-1]) + 2 * (len(headers) - 1)
        self.below = width - self.used < 20  # the last column goes on indented lines below its row

    def head(self) -> list[str]:
        """The header line and its rule."""
        shown = self.headers[:-1] if self.below else self.headers
        rule = [*self.widths[:-1]] + ([] if self.below else [self.width - self.used])
        return ["  ".join(h.ljust(w) for h, w in zip(shown, self.widths)).rstrip()[:self.width],
                "  ".join("-" * w for w in rule)]

    def lines(self, row: tuple[str, ...]) -> list[str]:
        """One row's lines; a cell wider than its column (a row printed before the others were known) widens
        that row alone, and its last column wraps into what is left."""
        widths = [max(w, len(cell)) for w, cell in zip(self.widths[:-1], row)]
        used = sum(widths) + 2 * len(widths)
        if self.below or self.width - used < 20:
            return ["  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths)).rstrip(),
                    *("    " + more for more in _wrap(row[-1], self.width - 4))]
        wrapped = _wrap(row[-1], self.width - used)
        return ["  ".join(cell.ljust(w) for cell, w in zip((*row[:-1], wrapped[0]), (*widths, 0))).rstrip(),
                *(" " * used + more for more in wrapped[1:])]


# --------------------------------------------------------------------------- the rule


@dataclass(frozen=True)
class _Verdict:
    status: str
    text: str
    counterexample: str | None = None
    note: str = ""
    reach: str = ""  # how far it is established ("n<=6 symbolic requests", an exhaustive space, ...)
    standalone: bool = False  # proved by a closed Coq theorem of the whole claim: not capped by its dependencies


def combine(claim: Claim, evidence: list[Evidence], dependency_status: dict[str, str],
            dependency_reach: dict[str, str] | None = None) -> tuple[str, str, str | None, str]:
    """``(status, status_text, counterexample, note)`` by the ledger's rule (module docstring)."""
    verdict = _combine(claim, evidence, dependency_status, dependency_reach or {})
    return verdict.status, verdict.text, verdict.counterexample, verdict.note


def _combine(claim: Claim, evidence: list[Evidence], deps: dict[str, str], reach: dict[str, str]) -> _Verdict:
    empirical = combine_empirical(evidence)  # reproduced / partly / not_reproduced / unknown
    if empirical is not None:
        return _Verdict(empirical[0], empirical[1], empirical[2], empirical[3])
    verdict = _decide(claim, evidence, deps, reach)
    weakest = min(deps.values(), key=lambda s: STRENGTH[s], default=None)
    # refuted/unknown dependencies were handled by the rule itself (step 3)
    if (weakest is not None and not verdict.standalone
            and STRENGTH["vacuous"] <= STRENGTH[weakest] < STRENGTH[verdict.status]):
        capped = [d for d, s in deps.items() if s == weakest]
        note = "; ".join(x for x in (verdict.note, f"capped at {weakest}: rests on {', '.join(capped)}") if x)
        text = f"proved relative to the hypotheses of {', '.join(capped)}" if weakest == "proved relative to" \
            else f"{weakest} (as {', '.join(capped)})"
        return _Verdict(weakest, text, None, note, verdict.reach)
    return verdict


def _decide(claim: Claim, evidence: list[Evidence], deps: dict[str, str], reach: dict[str, str]) -> _Verdict:
    refuted = [e for e in evidence if e.status == "refuted"]
    if refuted:
        first = refuted[0]
        where = f" ({first.counterexample})" if first.counterexample else ""
        return _Verdict("refuted", f"refuted by {_check_kind(first)} check {first.method}{where}",
                        first.counterexample, first.message)
    crashed = [e for e in evidence if e.status == "error"]
    if crashed:
        return _Verdict("error", f"error in {crashed[0].method}", note="; ".join(f"{e.method}: {e.message}"
                                                                              for e in crashed))
    blind = [e for e in evidence if e.status == "vacuous" and e.canary is not None and not e.canary.refuted]
    if blind:  # rule 2b: a check that could not have failed
        return _Verdict("vacuous", "vacuous: " + "; ".join(f"{e.method} could not have failed (its canary, "
                                                           f"{e.canary.defect}, was not refuted)" for e in blind),
                        note="; ".join(f"{e.method}: {e.canary.verdict}" for e in blind))
    broken = [e for e in evidence if e.kind == "supporting" and e.status != "checked"]
    if broken:
        names = ", ".join(f"{e.method} ({e.status})" for e in broken)
        return _Verdict("unknown", f"unknown: supporting check did not finish: {names}",
                        note="; ".join(f"{e.method}: {e.status}: {e.message}" for e in broken))
    refuted_deps = {d: s for d, s in deps.items() if s == "refuted"}
    coq = whole_claim_proofs(claim, evidence) if not refuted_deps else []
    if coq:  # rule 4: the whole claim is a closed Coq theorem, its own lemmas inside it, checked by the kernel
        # the note adds what the text does not say: where the theorems were checked, and which lemmas the
        # Coq proof does without (``independently of X (checked)``)
        where = sorted({e.data.get("provenance") or e.message.rpartition(" (")[2].rstrip(")") for e in coq})
        open_deps = [f"{d} ({s})" for d, s in deps.items() if s != "proved"]
        note = "; ".join([f"Coq {', '.join(where)}"]
                         + ([f"independently of {', '.join(open_deps)}"] if open_deps else []))
        return _Verdict("proved", f"proved (Coq, every n: {', '.join(e.data['theorem'] for e in coq)})", note=note,
                        reach="all values (Coq)", standalone=True)
    bad = {d: s for d, s in deps.items() if s in ("refuted", "unknown", "error", "not_run")}
    if bad:
        names = ", ".join(f"{d} is {s}" for d, s in bad.items())
        return _Verdict("unknown", f"unknown: depends on a claim not established ({names})", note=names)
    chain, chain_note, bounds, assumed = _proof_chain(evidence, deps)
    if chain == "proved":
        return _Verdict("proved", "proved", note=chain_note, reach="all values")
    if chain == "proved relative to":  # proved, given named hypotheses (its own, or those of a claim it rests on)
        names = [*assumed, *(f"the hypotheses of {d}" for d, s in deps.items() if s == "proved relative to")]
        return _Verdict("proved relative to", f"proved relative to {', '.join(names)}", note=chain_note,
                        reach="all values, given the named hypotheses")
    passing = [e for e in evidence if e.kind == "bounded" and e.status == "checked"]
    if chain == "checked":
        via = [d for d, s in deps.items() if s == "checked"]
        text = _weakest_bounds(bounds | {part for d in via for part in reach.get(d, "").split("; ") if part})
        suffix = f" (via {', '.join(via)})" if via else ""
        suffix += f", relative to {', '.join(assumed)}" if assumed else ""
        return _Verdict("checked", f"checked up to {text}{suffix}", note=chain_note, reach=text)
    if passing:
        primary = next((e for e in passing if e.method.startswith(("exhaustive", "enumeration", "game"))), passing[0])
        more = len(passing) - 1
        return _Verdict("checked", f"checked up to {primary.bound}" + (f" (+{more})" if more else ""),
                        note=chain_note, reach=primary.bound or "")
    consistent = [e for e in evidence if e.status == "consistent"]
    if consistent:
        return _Verdict("consistent", f"consistent in {sum(e.samples or 0 for e in consistent)} samples",
                        note=chain_note)
    vacuous = [e for e in evidence if e.status == "vacuous"]
    if vacuous:
        return _Verdict("vacuous", "vacuous: " + "; ".join(f"{e.method} could not have failed" for e in vacuous),
                        note=chain_note)
    if evidence and all(e.status == "not_run" for e in evidence):
        return _Verdict("not_run", "not run: " + "; ".join(e.message for e in evidence), note=chain_note)
    open_checks = [e for e in evidence if e.status == "unknown" and e.kind == "statistical"]  # say why, in the row
    return _Verdict("unknown", "; ".join(["unknown", *(f"{e.method}: {e.message}" for e in open_checks)]),
                    note=chain_note)


def _check_kind(evidence: Evidence) -> str:
    """``implementation`` (our code against the paper's algorithm or theory's constants) or ``theory``."""
    return "implementation" if evidence.kind == "supporting" or evidence.implementation else "theory"


def _weakest_bounds(bounds: set[str]) -> str:
    """Bounds that differ only in their numbers keep the smallest: ``n<=3 ...`` and ``n<=5 ...`` give ``n<=3 ...``
    (the claim is established only where every step is)."""
    import re

    by_template: dict[str, tuple[tuple[int, ...], str]] = {}
    for bound in bounds:
        numbers = tuple(int(x) for x in re.findall(r"\d+", bound))
        template = re.sub(r"\d+", "#", bound)
        if template not in by_template or numbers < by_template[template][0]:
            by_template[template] = (numbers, bound)
    return "; ".join(sorted(b for _, b in by_template.values()))


def _proof_chain(evidence: list[Evidence], deps: dict[str, str]) -> tuple[str, str, set[str], list[str]]:
    """How far the proofs go: ``"proved"`` (every step and dependency mechanically checked),
    ``"proved relative to"`` (the same, given the named hypotheses the derivation assumes, or a
    dependency proved relative to its own), ``"checked"`` (some steps only up to a bound), or
    ``"unknown"``; the note saying why; the bounds of the checks that cover the open steps; and the
    named hypotheses the derivation assumes."""
    proofs = [e for e in evidence if e.kind == "proof"]
    if not proofs:
        return "unknown", "", set(), []
    covers: dict[str, tuple[str, str]] = {}
    for e in evidence:
        for name, (status, bound) in e.covers.items():
            if name not in covers or STRENGTH[status] > STRENGTH[covers[name][0]]:
                covers[name] = (status, bound)
    levels: list[str] = []
    unchecked, bounded, bounds = [], [], set()
    assumed = list(dict.fromkeys(label for e in proofs for label in e.data.get("assumed", [])))
    for e in proofs:
        if e.status not in ("proved", "proved relative to", "unknown") or (
                e.status == "unknown" and not e.data.get("open_steps")):
            return "unknown", f"{e.method}: {e.status}", set(), assumed
        for step in e.data.get("open_steps", []):
            found = [covers[name] for name in step["covered_by"] if name in covers]
            best = max(found, key=lambda c: STRENGTH[c[0]], default=("unknown", ""))
            label = f"step {step['index']}"
            if best[0] == "checked":
                bounded.append(label)
                bounds.add(best[1])
            elif best[0] != "proved":
                unchecked.append(label)
            levels.append(best[0] if best[0] in ("proved", "checked") else "unknown")
    levels += [s if s in ("proved", "proved relative to", "checked") else "unknown" for s in deps.values()]
    level = min(levels, key=STRENGTH.get, default="proved")
    if level == "proved" and assumed:
        level = "proved relative to"
    relative = [d for d, s in deps.items() if s != "proved"]
    parts = [f"proved relative to {', '.join(relative)}"] if relative else []
    parts += [f"assumes the named hypotheses {', '.join(assumed)} (stated in the derivation)"] if assumed else []
    parts += [f"unchecked: {', '.join(unchecked)}"] if unchecked else []
    parts += [f"checked only up to a bound: {', '.join(bounded)}"] if bounded else []
    return level, "; ".join(parts), bounds, assumed


# --------------------------------------------------------------------------- running


Progress = Callable[[str], None]
Finished = Callable[["ClaimResult"], None]


# methods --quick does not run (their claims stay unknown there, honestly): the trace table takes ~20 s
_NOT_IN_QUICK = ("trace:svf_latency", "trace:onebit_vs_sjf", "trace:predictor_overhead", "cluster:sagesched")


def _run_methods(claim: Claim, ctx: Context, progress: Progress | None) -> list[Evidence]:
    evidence = []
    report = progress if progress is not None else stage  # else the command's reporter (`prove`), if any
    for name in claim.methods:
        report(f"{claim.id} {name}")
        if ctx.quick and name in _NOT_IN_QUICK:
            evidence.append(Evidence(name, "empirical", "not_run", "not run in --quick (the trace table takes "
                                     "about 20 s); the default run computes it"))
            continue
        evidence.append(run_method(name, claim, ctx))
    return evidence


def run_method(name: str, claim: Any, ctx: Context) -> Evidence:
    """Run one method under ``ctx.time_limit`` seconds in a daemon thread: its evidence; ``error``
    (naming the exception) when it raised; ``unknown`` when it did not finish in time (the thread
    is abandoned, the ledger goes on)."""
    import threading

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["evidence"] = METHODS[name](claim, ctx)
        except BaseException as exc:  # noqa: BLE001 - a crashing check is reported, never hidden
            box["error"] = exc

    started = time.perf_counter()
    worker = threading.Thread(target=target, name=f"geosched-check-{name}", daemon=True)
    worker.start()
    _signal_waits.join(worker, ctx.time_limit)  # a SIGTERM landed in the check's thread still stops the run
    elapsed = time.perf_counter() - started
    if worker.is_alive():
        return Evidence(name, "supporting", "unknown", f"unknown (time limit): did not finish within its time limit "
                        f"of {ctx.time_limit:g} s, a safety net against a hung check; solver sweeps stop on "
                        "resource limits, so a slow machine never gives a smaller bound, only this unknown",
                        wall_time=elapsed, data={"time_limit": ctx.time_limit})
    if "error" in box:
        exc = box["error"]
        return Evidence(name, "supporting", "error", f"check raised {type(exc).__name__}: {exc}", wall_time=elapsed)
    return settle(METHODS[name], box["evidence"])  # a declared canary that did not run: vacuous


def _dependencies(claim: Claim, evidence: list[Evidence]) -> tuple[str, ...]:
    declared = list(claim.depends_on) + [d for e in evidence for d in e.depends_on]
    return tuple(d for d in dict.fromkeys(declared) if d in CLAIMS and d != claim.id)


def _run_one(claim: Claim, ctx: Context, progress: Progress | None, finished: Finished | None = None) -> ClaimResult:
    """Run a row's checks, then those of the rows it rests on, then combine; ``finished`` is told each row
    as it is combined (a row's dependencies before it)."""
    if claim.id in ctx.statuses:
        return ctx.statuses[claim.id]
    waited_before = ctx.lock_wait
    if cites_coq(claim):  # the build started in the background: waited for here, outside any check's time limit
        stage(f"{claim.id} waits for the Coq build (started in the background)")  # the line says why it waits
        await_build(ctx)
    t0, waited_at_start = time.perf_counter(), ctx.lock_wait
    evidence = _run_methods(claim, ctx, progress)
    own = max(time.perf_counter() - t0 - (ctx.lock_wait - waited_at_start), 0.0)  # its checks alone
    waited = ctx.lock_wait - waited_before  # reported apart: waiting for the Coq build or another process's lock
    deps = ({d: _run_one(CLAIMS[d], ctx, progress, finished) for d in _dependencies(claim, evidence)}
            if ctx.follow_dependencies else {})
    verdict = _combine(claim, evidence, {d: r.status for d, r in deps.items()},
                       {d: r.reach for d, r in deps.items()})
    note = verdict.note if ctx.follow_dependencies else "; ".join(
        x for x in (verdict.note, "dependencies not evaluated (follow_dependencies=False)") if x)
    headline = _headline(evidence)
    result = ClaimResult(claim.id, claim.source, claim.statement, verdict.status, verdict.text, tuple(claim.methods),
                         tuple(evidence), verdict.counterexample, note, own, claim.formalization, claim.difference,
                         tuple(deps), headline.used if headline else None,
                         headline.discriminating if headline else None, verdict.reach, waited)
    ctx.statuses[claim.id] = result
    if finished is not None:
        finished(result)
    return result


def cites_coq(claim: Claim) -> bool:
    """Whether a row runs a ``coq:THEOREM`` check (it reads the Coq build)."""
    return any(theorem_of(name) for name in claim.methods)


def _rest_on_coq(ids: list[str]) -> set[str]:
    """The rows of ``ids`` that cite a Coq theorem or rest (through their declared dependencies) on a row that
    does: they run after the others, which run while coqc compiles."""
    memo: dict[str, bool] = {}

    def needs(claim_id: str) -> bool:
        if claim_id not in memo:
            memo[claim_id] = False  # dependencies are earlier rows: no cycle, this only guards the recursion
            claim = CLAIMS[claim_id]
            memo[claim_id] = cites_coq(claim) or any(needs(d) for d in claim.depends_on if d in CLAIMS)
        return memo[claim_id]

    return {claim_id for claim_id in ids if needs(claim_id)}


def _headline(evidence: list[Evidence]) -> Evidence | None:
    """The bounded or statistical evidence with a constant that says most about the claim: the one
    using the largest share of its constant."""
    scored = [e for e in evidence if e.kind in ("bounded", "statistical") and e.used is not None]
    return max(scored, key=lambda e: e.used, default=None)


def run_claim(claim_id: str, *, mode: str = "default", out: str | Path | None = None, seed: int = 0) -> ClaimResult:
    """Run one claim's checks (and those of the claims it rests on)."""
    return run_claims([claim_id], mode=mode, out=out, seed=seed).claims[0]


@stops_build_on_interrupt  # SIGTERM/Ctrl-C: no coqc left running, no build folder left behind
def run_claims(claim_ids: list[str] | tuple[str, ...] | None = None, *, thorough: bool = False, mode: str | None = None,
               out: str | Path | None = None, seed: int = 0, restart: bool = False,
               progress: Progress | None = None, follow_dependencies: bool = True,
               executor: Any = None, time_limit: float | None = None,
               on_row: Finished | None = None, traces: Any = None) -> LedgerResult:
    """Run the checks of ``claim_ids`` (default: all) and combine them into statuses.

    Parameters
    ----------
    claim_ids : sequence of str, optional
        Ledger ids (see :data:`CLAIM_IDS`); default: every claim.
    thorough : bool
        Same as ``mode="thorough"``: the long versions of the checks (up to an hour or more).
    mode : {"quick", "default", "thorough"}, optional
        ``quick``: a smaller set of settings (about 17 s of CPU on the project's 2-core machine); its status
        words stay honest (what it cannot reach stays ``unknown`` or ``vacuous``). ``default``: about 70 s of CPU
        with the Coq build cached (benchmarks/RESULTS.md, section 18), plus the build the first time.
    out : path, optional
        Folder for counterexample files (a temporary one when needed and not given) and the
        thorough run's checkpoint.
    seed : int
        Base seed of every random part.
    restart : bool
        With ``thorough``: delete the exhaustive checkpoint in ``out`` and start over.
    progress : callable, optional
        Called with ``"<claim> <method>"`` before each method (the CLI's progress bar).
    follow_dependencies : bool
        ``False`` runs only the claims asked for and combines them without the claims they rest
        on (the dependency rules 4-5 and the cap are skipped; the note says so). Used by the mutation campaign.
    executor : concurrent.futures.Executor or str, optional
        Where the exhaustive run and the Monte-Carlo run their chunks: an executor or a spec of
        :func:`geosched.executor.make_executor` (``"serial"``, the default; ``"local:N"``;
        ``"tcp://HOST:PORT"``). The statuses and evidence do not depend on it.
    time_limit : float, optional
        Seconds each check may run (default :data:`~geosched.verify.evidence.TIME_LIMITS` of the
        mode); a check past it is ``unknown`` and the ledger goes on.
    on_row : callable, optional
        Called with each :class:`ClaimResult` asked for as soon as it is combined (``geosched claims``
        prints it then): the rows that cite no Coq theorem first, while the Coq build runs in the
        background, then the rest, each in the order asked for (a row's dependencies before it).
    traces : sequence of path, optional
        The trace set of the empirical rows (:mod:`~geosched.verify.trace_set`; the CLI's repeatable
        ``--trace``): any traces geosched reads; default every trace in ``../shared/traces/``.

    Returns
    -------
    LedgerResult
        One :class:`ClaimResult` per claim with its status and evidence, versions and seed.

    Raises
    ------
    UnknownNameError
        For an unknown claim id (the message lists the known ones).
    ValidationError
        For an unknown mode.

    Examples
    --------
    >>> result = run_claims(["kong.volume"], mode="quick")
    >>> result.claims[0].status, result.status
    ('proved', 'ok')
    """
    t0 = time.perf_counter()
    chosen_mode = mode or ("thorough" if thorough else "default")
    if chosen_mode not in MODES:
        raise ValidationError("mode", chosen_mode, f"must be one of {', '.join(MODES)}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and 0 < time_limit < float("inf")):
        raise ValidationError("time_limit", time_limit, "must be a positive number of seconds")
    ids = list(CLAIM_IDS) if claim_ids is None else list(claim_ids)
    for claim_id in ids:
        if claim_id not in CLAIMS:
            raise UnknownNameError("claim", claim_id, list(CLAIMS))
    chosen_traces = check_traces(traces) if traces else None  # bad input refused before any check runs
    needed = _closure(ids) if follow_dependencies else ids
    variants = tuple(dict.fromkeys(v for c in needed for v in CLAIMS[c].exhaustive_variants)) or ("svf",)
    if out is not None:
        check_folder(out)  # before any check: a check that cannot write its files would end as 'error'
    _prepare_checkpoint(chosen_mode, out, restart)
    with using_executor(executor) as pool:
        ctx = Context(chosen_mode, out, seed, variants, restart=restart, executor=pool, time_limit=time_limit)
        ctx.follow_dependencies = follow_dependencies
        ctx.traces = chosen_traces
        if any(cites_coq(CLAIMS[c]) for c in needed):
            build = start_build(ctx)  # coqc compiles (or the cache is read) while the rows that need no Coq run
            if build is not None and not ctx.quick:  # --quick never compiles
                coq_watch.watch(build)  # says how far a compilation is, at the rate measured so far
        emit = _emitter(ids, on_row)
        later = _rest_on_coq(ids)
        for claim_id in [c for c in ids if c not in later]:
            _run_one(CLAIMS[claim_id], ctx, progress, emit)
        reported = _reported_variants(ctx, progress) if claim_ids is None and chosen_mode != "quick" else {}
        for claim_id in [c for c in ids if c in later]:
            _run_one(CLAIMS[claim_id], ctx, progress, emit)
        results = [ctx.statuses[c] for c in ids]
    counts = {status: sum(c.status == status for c in results) for status in EVIDENCE_STATUSES}
    message = f"{len(results)} claims: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v)
    overall = "refuted" if counts["refuted"] else "error" if counts["error"] else "ok"
    return LedgerResult(overall, message, time.perf_counter() - t0, tuple(results),
                        chosen_mode == "thorough", seed, str(ctx.out_if_set) if ctx.out_if_set else None, versions(),
                        reported, chosen_mode, _extra(ctx))


def _emitter(ids: list[str], on_row: Finished | None) -> Finished | None:
    """``on_row`` told once of each row asked for, as it is combined (not of the rows they rest on)."""
    if on_row is None:
        return None
    wanted, told = set(ids), set()

    def emit(result: ClaimResult) -> None:
        if result.id in wanted and result.id not in told:
            told.add(result.id)
            on_row(result)

    return emit


def _prepare_checkpoint(mode: str, out: str | Path | None, restart: bool) -> None:
    """A thorough run resumes its exhaustive checkpoint in ``out``: ``restart`` deletes it first; an
    unreadable one is an error now (naming the file and ``--restart``), before hours of other checks."""
    from geosched.verify.exhaustive import check_checkpoint

    if mode != "thorough" or not out:
        return
    checkpoint = Path(out) / "exhaustive.checkpoint.json"
    if restart and checkpoint.exists():
        checkpoint.unlink()
    elif checkpoint.exists():
        check_checkpoint(checkpoint)


def _closure(ids: list[str]) -> list[str]:
    out: list[str] = []
    stack = list(ids)
    while stack:
        claim_id = stack.pop()
        if claim_id not in out:
            out.append(claim_id)
            stack += [d for d in CLAIMS[claim_id].depends_on if d in CLAIMS]
    return out


def _extra(ctx: Context) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if "exhaustive" in ctx.cache:
        ex = ctx.cache["exhaustive"]
        extra["exhaustive"] = {"space": ex.space, "arrival_space": ex.arrival_space, "instances": ex.instances,
                               "arrival_instances": ex.arrival_instances, "opt_method": ex.opt_method,
                               "cross_checked": ex.cross_checked, "wall_time": round(ex.wall_time, 3)}
    if "cores" in ctx.cache:
        cores = ctx.cache["cores"]
        extra["cores"] = {"largest_n": cores.largest_n, "per_lemma": {name: {b: s["largest_n"] for b, s in v.items()}
                                                                        for name, v in cores.sweeps.items()},
                          "stopped": {name: {b: s["stopped"] for b, s in v.items()}
                                      for name, v in cores.sweeps.items()},
                          "per_request": {name: {b: s["status"] for b, s in v.items()}
                                          for name, v in cores.per_request.items()},
                          "rlimit": cores.rlimit, "wall_time": round(cores.wall_time, 3)}
    return extra


def _reported_variants(ctx: Context, progress: Progress | None) -> dict[str, Any]:
    """The variants outside the theorems' hypotheses, on a smaller space, reported (never refutations)."""
    from geosched.verify import exhaustive as ex

    if progress is not None:
        progress("variants outside the theorems")
    space = ex.DEFAULT_VARIANT_SPACE if not ctx.thorough else ex.THOROUGH_SPACE.boxes[-1]
    arrivals = ex.DEFAULT_ARRIVAL_SPACE if not ctx.thorough else ex.THOROUGH_ARRIVAL_SPACE
    result = ex.run_exhaustive(space, arrival_space=arrivals, variants=_REPORTED_VARIANTS, opt_method="dp",
                               out=ctx.out_if_set, executor=ctx.executor)
    return {
        "space": result.space, "arrival_space": result.arrival_space, "instances": result.instances,
        "arrival_instances": result.arrival_instances, "opt_method": result.opt_method,
        "wall_time": round(result.wall_time, 3),
        "per_variant": {
            name: {"instances": v["instances"], "covered_by_theorem": v["covered_by_theorem"],
                   "max_ratio": v["max_ratio"]["fraction"] if v["max_ratio"] else None,
                   "failures": {c: {"failed": d["failed"], "of": d["checked"], "smallest": d["counterexample"]}
                                for c, d in v["checks"].items() if d["failed"]}}
            for name, v in result.variants.items()
        },
    }
