"""CCAC-style lemma machinery on top of Z3: a lemma, its three checks, and their results.

A *lemma* is a pair (assumptions, conclusion) over Z3 variables, plus a *slightly stronger*
conclusion used to test tightness. Following CCAC (Arun et al., "Toward Formally Verifying
Congestion Control Behavior", SIGCOMM 2021), three solver calls are made:

* :func:`prove`: ``assumptions AND NOT conclusion``; ``unsat`` means **proved**, ``sat`` means
  **refuted** (the model is a counterexample), ``unknown`` or a timeout means **unknown**
  (never "proved").
* :func:`check_nonvacuous`: ``assumptions`` alone; ``sat`` means the lemma is not vacuously
  true (a proof from contradictory assumptions proves nothing).
* :func:`check_tight`: ``assumptions AND NOT stronger``; ``sat`` means the stronger
  conclusion is *not* provable, so the proved bound cannot be improved by that step; the
  model is the witness.

Every result is a frozen :class:`CheckResult`; :class:`LemmaReport` bundles all three with
an overall status (``proved`` only when the proof is unsat, the assumptions are satisfiable
and the stronger conclusion is refuted).

Example
-------
>>> import z3
>>> x = z3.Int("x")
>>> lemma = Lemma("demo", "x >= 1 implies x >= 0", (x >= 1,), x >= 0, x >= 2, {"x": x})
>>> run_checks(lemma, timeout_ms=5000).status
'proved'
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from geosched.results import Result

__all__ = [
    "Lemma",
    "CheckResult",
    "LemmaReport",
    "make_solver",
    "prove",
    "check_nonvacuous",
    "check_tight",
    "run_checks",
    "model_to_dict",
    "z3_value",
]

DEFAULT_TIMEOUT_MS = 20_000


@dataclass(frozen=True)
class Lemma:
    """A lemma: ``assumptions => conclusion``, with a slightly stronger conclusion for tightness."""

    name: str  # registry name, e.g. "peak_volume"
    statement: str  # the claim in words and formulas
    assumptions: tuple[z3.BoolRef, ...]  # conjunction of hypotheses
    conclusion: z3.BoolRef  # what is proved
    stronger: z3.BoolRef  # a slightly stronger conclusion that must NOT be provable
    variables: Mapping[str, z3.ExprRef]  # named variables reported in counterexamples/witnesses
    parameters: Mapping[str, Any] = field(default_factory=dict)  # bounds / sizes this instance covers
    reference: str = ""  # paper and numbering
    encoding: str = ""  # one line on how it is encoded (theory, quantifiers)


@dataclass(frozen=True)
class CheckResult(Result):
    """The outcome of one solver call on a lemma."""

    STATUSES = ("proved", "refuted", "unknown", "nonvacuous", "vacuous", "tight", "not tight")
    SUCCESS = ("proved", "nonvacuous", "tight")

    lemma: str  # lemma name
    check: str  # "prove", "nonvacuous" or "tight"
    status: str  # prove: proved/refuted/unknown; nonvacuous: nonvacuous/vacuous/unknown;
    #              tight: tight/not tight/unknown
    wall_time: float  # seconds spent in the solver call
    counterexample: dict[str, Any] | None  # prove: the refuting model; else None
    witness: dict[str, Any] | None  # nonvacuous/tight: the satisfying model; else None
    parameters: dict[str, Any]  # bounds / parameters of the lemma instance
    message: str  # z3's reason for unknown, or a one-line explanation

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {
            "lemma": self.lemma,
            "check": self.check,
            "status": self.status,
            "success": self.success,
            "wall_time": round(self.wall_time, 6),
            "counterexample": self.counterexample,
            "witness": self.witness,
            "parameters": dict(self.parameters),
            "message": self.message,
        }


@dataclass(frozen=True)
class LemmaReport(Result):
    """The three checks of one lemma and the overall verdict."""

    STATUSES = ("proved", "refuted", "unknown", "vacuous", "not tight")
    SUCCESS = ("proved",)

    lemma: str  # lemma name
    statement: str  # the claim
    status: str  # proved / refuted / unknown / vacuous / not tight
    proof: CheckResult  # assumptions AND NOT conclusion
    nonvacuous: CheckResult  # assumptions alone
    tight: CheckResult  # assumptions AND NOT stronger
    wall_time: float  # total seconds of the three calls
    parameters: dict[str, Any]  # bounds / parameters covered
    reference: str  # paper and numbering
    message: str  # one line summarising the verdict

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {
            "lemma": self.lemma,
            "statement": self.statement,
            "status": self.status,
            "success": self.success,
            "wall_time": round(self.wall_time, 6),
            "parameters": dict(self.parameters),
            "reference": self.reference,
            "message": self.message,
            "proof": self.proof.to_dict(),
            "nonvacuous": self.nonvacuous.to_dict(),
            "tight": self.tight.to_dict(),
        }


def z3_value(value: z3.ExprRef) -> Any:
    """A JSON-friendly Python value for an evaluated Z3 term.

    Integers become ``int``; rationals ``int`` or the string ``"p/q"``; algebraic numbers
    (from nonlinear real arithmetic) a decimal string ending in ``?``; booleans ``bool``.
    """
    if z3.is_int_value(value):
        return value.as_long()
    if z3.is_rational_value(value):
        frac = Fraction(value.numerator_as_long(), value.denominator_as_long())
        return frac.numerator if frac.denominator == 1 else f"{frac.numerator}/{frac.denominator}"
    if z3.is_algebraic_value(value):
        return value.as_decimal(12)
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    return str(value)


def model_to_dict(model: z3.ModelRef, variables: Mapping[str, z3.ExprRef]) -> dict[str, Any]:
    """Evaluate every named variable in ``model`` (completing unconstrained ones)."""
    return {name: z3_value(model.eval(term, model_completion=True)) for name, term in variables.items()}


def make_solver(constraints: Iterable[z3.BoolRef], timeout_ms: int = DEFAULT_TIMEOUT_MS) -> z3.Solver:
    """A fresh solver holding ``constraints``, with a time limit and a fixed random seed.

    The seed makes runs reproducible; the limit turns a slow query into ``unknown``.
    """
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
        raise ValueError(f"timeout_ms: must be an integer >= 1 (got {timeout_ms!r})")
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.set("random_seed", 0)
    solver.add(*constraints)
    return solver


def _run(constraints: list[z3.BoolRef], timeout_ms: int) -> tuple[z3.CheckSatResult, z3.Solver, float]:
    solver = make_solver(constraints, timeout_ms)
    begin = time.perf_counter()
    outcome = solver.check()
    return outcome, solver, time.perf_counter() - begin


def prove(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Check ``assumptions AND NOT conclusion``: unsat -> proved, sat -> refuted, else unknown."""
    outcome, solver, elapsed = _run([*lemma.assumptions, z3.Not(lemma.conclusion)], timeout_ms)
    counterexample = None
    if outcome == z3.unsat:
        status, message = "proved", "assumptions AND NOT conclusion is unsat"
    elif outcome == z3.sat:
        status = "refuted"
        counterexample = model_to_dict(solver.model(), lemma.variables)
        message = "assumptions AND NOT conclusion is sat: counterexample attached"
    else:
        status, message = "unknown", f"z3 returned unknown: {solver.reason_unknown()}"
    return CheckResult(lemma.name, "prove", status, elapsed, counterexample, None, dict(lemma.parameters), message)


def check_nonvacuous(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Check that the assumptions alone are satisfiable (the proof is not vacuous)."""
    outcome, solver, elapsed = _run(list(lemma.assumptions), timeout_ms)
    witness = None
    if outcome == z3.sat:
        status, message = "nonvacuous", "assumptions are satisfiable: witness attached"
        witness = model_to_dict(solver.model(), lemma.variables)
    elif outcome == z3.unsat:
        status, message = "vacuous", "assumptions are contradictory: the proof proves nothing"
    else:
        status, message = "unknown", f"z3 returned unknown: {solver.reason_unknown()}"
    return CheckResult(lemma.name, "nonvacuous", status, elapsed, None, witness, dict(lemma.parameters), message)


def check_tight(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Check ``assumptions AND NOT stronger`` is sat: the stronger conclusion is not provable."""
    outcome, solver, elapsed = _run([*lemma.assumptions, z3.Not(lemma.stronger)], timeout_ms)
    witness = None
    if outcome == z3.sat:
        status = "tight"
        message = "the stronger conclusion fails under the assumptions: witness attached"
        witness = model_to_dict(solver.model(), lemma.variables)
    elif outcome == z3.unsat:
        status, message = "not tight", "the stronger conclusion is provable too"
    else:
        status, message = "unknown", f"z3 returned unknown: {solver.reason_unknown()}"
    return CheckResult(lemma.name, "tight", status, elapsed, None, witness, dict(lemma.parameters), message)


def run_checks(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> LemmaReport:
    """Prove, check non-vacuity and tightness; combine into one verdict.

    Overall status: ``refuted`` if the proof found a counterexample; ``unknown`` if any call
    was inconclusive; ``vacuous`` if the assumptions are contradictory; ``not tight`` if the
    stronger conclusion is provable too; ``proved`` otherwise.
    """
    proof = prove(lemma, timeout_ms)
    nonvacuous = check_nonvacuous(lemma, timeout_ms)
    tight = check_tight(lemma, timeout_ms)
    if proof.status == "refuted":
        status, message = "refuted", "counterexample found"
    elif "unknown" in (proof.status, nonvacuous.status, tight.status):
        which = [c.check for c in (proof, nonvacuous, tight) if c.status == "unknown"]
        status, message = "unknown", f"inconclusive: {', '.join(which)}"
    elif nonvacuous.status == "vacuous":
        status, message = "vacuous", "assumptions are contradictory"
    elif tight.status == "not tight":
        status, message = "not tight", "proved, but the stronger conclusion is provable too"
    else:
        status, message = "proved", "proved, non-vacuous, tight"
    return LemmaReport(
        lemma=lemma.name,
        statement=lemma.statement,
        status=status,
        proof=proof,
        nonvacuous=nonvacuous,
        tight=tight,
        wall_time=proof.wall_time + nonvacuous.wall_time + tight.wall_time,
        parameters=dict(lemma.parameters),
        reference=lemma.reference,
        message=message,
    )
