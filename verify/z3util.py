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

Every call takes either a *resource limit* ``rlimit`` (Z3's ``rlimit``, cvc5's ``rlimit-per``: work units
each solver counts itself, so a query that hits it is ``unknown`` on every machine, however loaded) or,
when ``rlimit`` is ``None``, a time limit ``timeout_ms`` (interactive use only: its verdict can depend on
machine load, so the claims ledger always passes ``rlimit``). Each result records the units it spent
(``resources``).

Every result is a frozen :class:`CheckResult`; :class:`LemmaReport` bundles all three with
an overall status (``proved`` only when the proof is unsat, the assumptions are satisfiable
and the stronger conclusion is refuted).

Every call takes ``backend="z3"`` (default) or ``backend="cvc5"``: the second exports the very
same formula as SMT-LIB 2 (:func:`smtlib`) and hands it to cvc5 (PyPI ``cvc5``), an independent
solver, so that no result rests on one solver's correctness.

Example
-------
>>> import z3
>>> x = z3.Int("x")
>>> lemma = Lemma("demo", "x >= 1 implies x >= 0", (x >= 1,), x >= 0, x >= 2, {"x": x})
>>> run_checks(lemma, timeout_ms=5000).status
'proved'
>>> run_checks(lemma, timeout_ms=5000, backend="cvc5").status
'proved'
>>> run_checks(lemma, rlimit=1_000_000).proof.resources > 0
True
"""

from __future__ import annotations

import dataclasses
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
    "smtlib",
    "BACKENDS",
    "MAX_RLIMIT",
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
    resources: int | None = None  # the solver's own work units spent (Z3 "rlimit count" delta, cvc5 resource units)
    rlimit: int | None = None  # the resource limit of the call (None: a time limit was used instead)

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
            "resources": self.resources,
            "rlimit": self.rlimit,
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


def make_solver(constraints: Iterable[z3.BoolRef], timeout_ms: int = DEFAULT_TIMEOUT_MS,
                rlimit: int | None = None) -> z3.Solver:
    """A fresh solver holding ``constraints``, with a limit and a fixed random seed.

    The seed makes runs reproducible; the limit turns a slow query into ``unknown``. With
    ``rlimit`` the limit is Z3's resource count (deterministic: the same on every machine) and no
    time limit is set; otherwise it is ``timeout_ms`` milliseconds.
    """
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
        raise ValueError(f"timeout_ms: must be an integer >= 1 (got {timeout_ms!r})")
    _check_rlimit(rlimit)
    solver = z3.Solver()
    if rlimit is None:
        solver.set("timeout", timeout_ms)
    else:
        solver.set("rlimit", rlimit)
    solver.set("random_seed", 0)
    solver.add(*constraints)
    return solver


BACKENDS = ("z3", "cvc5")


MAX_RLIMIT = 2**32 - 1  # Z3 reads its rlimit parameter as an unsigned 32-bit integer: a larger one wraps around


def _check_rlimit(rlimit: int | None) -> None:
    if rlimit is not None and (isinstance(rlimit, bool) or not isinstance(rlimit, int)
                               or not 1 <= rlimit <= MAX_RLIMIT):
        raise ValueError(f"rlimit: must be an integer in 1..{MAX_RLIMIT} or None (got {rlimit!r})")


@dataclass(frozen=True)
class _Outcome:
    """One solver call: ``"sat"``, ``"unsat"`` or ``"unknown"``, and a model reader for ``sat``."""

    result: str
    reason: str  # the solver's reason for unknown
    elapsed: float  # seconds
    model: Any = None  # callable(variables) -> dict, for sat
    resources: int | None = None  # the solver's own work units spent


def _rlimit_count(solver: z3.Solver) -> int:
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def _run(constraints: list[z3.BoolRef], timeout_ms: int, backend: str = "z3", rlimit: int | None = None) -> _Outcome:
    if backend == "z3":
        solver = make_solver(constraints, timeout_ms, rlimit)
        before = _rlimit_count(solver)  # Z3's count is the context's running total: the call spends the difference
        begin = time.perf_counter()
        outcome = solver.check()
        elapsed = time.perf_counter() - begin
        spent = _rlimit_count(solver) - before
        result = "sat" if outcome == z3.sat else "unsat" if outcome == z3.unsat else "unknown"
        model = (lambda variables: model_to_dict(solver.model(), variables)) if result == "sat" else None
        return _Outcome(result, _reason(solver.reason_unknown(), rlimit) if result == "unknown" else "", elapsed,
                        model, spent)
    if backend == "cvc5":
        _check_rlimit(rlimit)
        return _run_cvc5(constraints, timeout_ms, rlimit)
    raise ValueError(f"backend: must be one of {', '.join(BACKENDS)} (got {backend!r})")


def smtlib(constraints: Iterable[z3.BoolRef]) -> str:
    """The conjunction of ``constraints`` as an SMT-LIB 2 script (declarations, asserts, check-sat)."""
    solver = z3.Solver()
    solver.add(*constraints)
    return solver.to_smt2()


def _reason(reason: str, rlimit: int | None) -> str:
    return f"{reason} (resource limit {rlimit} reached)" if rlimit is not None and reason == "canceled" else reason


def _run_cvc5(constraints: list[z3.BoolRef], timeout_ms: int, rlimit: int | None = None) -> _Outcome:
    """The same formula, exported as SMT-LIB 2 from Z3's terms, decided by cvc5 (an independent solver).

    A small portfolio, half the limit each: cylindrical algebraic coverings (``nl-cov``), much
    faster on our nonlinear per-request lemmas, then cvc5's defaults (incremental
    linearization), faster on others. The first definite answer counts.
    """
    spent = 0.0
    units = 0
    outcome = _Outcome("unknown", "", 0.0)
    for options in ({"nl-cov": "true"}, {}):
        outcome = _cvc5_once(constraints, max(1, timeout_ms // 2), options,
                             None if rlimit is None else max(1, rlimit // 2))
        spent += outcome.elapsed
        units += outcome.resources or 0
        if outcome.result != "unknown":
            break
    return _Outcome(outcome.result, outcome.reason, spent, outcome.model, units)


def _cvc5_once(constraints: list[z3.BoolRef], timeout_ms: int, options: dict[str, str],
               rlimit: int | None = None) -> _Outcome:
    import cvc5

    manager = cvc5.TermManager()
    solver = cvc5.Solver(manager)
    if rlimit is None:
        solver.setOption("tlimit-per", str(timeout_ms))
    else:
        solver.setOption("rlimit-per", str(rlimit))
    solver.setOption("produce-models", "true")
    solver.setOption("seed", "0")
    for key, value in options.items():
        solver.setOption(key, value)
    solver.setLogic("ALL")
    symbols = cvc5.SymbolManager(manager)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, smtlib(constraints), "geosched")
    while True:
        command = parser.nextCommand()
        if command.isNull() or str(command).startswith("(check-sat"):
            break
        command.invoke(solver, symbols)
    begin = time.perf_counter()
    outcome = solver.checkSat()
    elapsed = time.perf_counter() - begin
    units = _cvc5_units(solver)
    if outcome.isUnsat():
        return _Outcome("unsat", "", elapsed, None, units)
    if outcome.isSat():
        declared = {str(term): term for term in symbols.getDeclaredTerms()}

        def model(variables: Mapping[str, z3.ExprRef]) -> dict[str, Any]:
            values = {}
            for name, term in variables.items():
                found = declared.get(str(term))
                values[name] = _cvc5_value(solver.getValue(found)) if found is not None else None
            return values

        return _Outcome("sat", "", elapsed, model, units)
    reason = str(outcome.getUnknownExplanation())
    return _Outcome("unknown", f"{reason} (resource limit {rlimit})" if rlimit is not None else reason, elapsed, None,
                    units)


def _cvc5_units(solver: Any) -> int | None:
    try:
        return int(solver.getStatistics()["resource::resourceUnitsUsed"]["value"])
    except (KeyError, TypeError, ValueError, RuntimeError):
        return None


def _cvc5_value(term: Any) -> Any:
    text = str(term)
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text.replace("(- ", "-").replace(")", ""))
    except ValueError:
        return text


def prove(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS, backend: str = "z3",
          rlimit: int | None = None) -> CheckResult:
    """Check ``assumptions AND NOT conclusion``: unsat -> proved, sat -> refuted, else unknown."""
    return _query(lemma, "prove", [*lemma.assumptions, z3.Not(lemma.conclusion)], {
        "unsat": ("proved", f"assumptions AND NOT conclusion is unsat ({backend})"),
        "sat": ("refuted", f"assumptions AND NOT conclusion is sat ({backend}): counterexample attached")},
        timeout_ms, backend, rlimit)


def check_nonvacuous(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS, backend: str = "z3",
                     rlimit: int | None = None) -> CheckResult:
    """Check that the assumptions alone are satisfiable (the proof is not vacuous)."""
    return _query(lemma, "nonvacuous", list(lemma.assumptions), {
        "sat": ("nonvacuous", f"assumptions are satisfiable ({backend}): witness attached"),
        "unsat": ("vacuous", f"assumptions are contradictory ({backend}): the proof proves nothing")},
        timeout_ms, backend, rlimit)


def _query(lemma: Lemma, check: str, formulas: list[Any], words: dict[str, tuple[str, str]], timeout_ms: int,
           backend: str, rlimit: int | None) -> CheckResult:
    """One solver call of ``check``: ``words`` gives the status and message of a sat and of an unsat answer (any
    other answer is unknown); a sat model is the counterexample of ``prove`` and the witness of the others."""
    out = _run(formulas, timeout_ms, backend, rlimit)
    status, message = words.get(out.result, ("unknown", f"{backend} returned unknown: {out.reason}"))
    model = out.model(lemma.variables) if out.result == "sat" else None
    counterexample, witness = (model, None) if check == "prove" else (None, model)
    return CheckResult(lemma.name, check, status, out.elapsed, counterexample, witness, dict(lemma.parameters), message,
                       out.resources, rlimit)


def check_tight(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS, backend: str = "z3",
                rlimit: int | None = None) -> CheckResult:
    """The lemma's canary: :func:`prove` (the same verdict) on the lemma with its conclusion made stronger must
    refute it (``assumptions AND NOT stronger`` is sat): ``tight``, with the refuting model as witness."""
    planted = prove(dataclasses.replace(lemma, conclusion=lemma.stronger), timeout_ms, backend, rlimit)
    witness = None
    if planted.status == "refuted":
        status = "tight"
        message = f"the stronger conclusion fails under the assumptions ({backend}): witness attached"
        witness = planted.counterexample
    elif planted.status == "proved":
        status, message = "not tight", f"the stronger conclusion is provable too ({backend})"
    else:
        status, message = "unknown", planted.message
    return CheckResult(lemma.name, "tight", status, planted.wall_time, None, witness, dict(lemma.parameters), message,
                       planted.resources, rlimit)


def run_checks(lemma: Lemma, timeout_ms: int = DEFAULT_TIMEOUT_MS, backend: str = "z3",
               rlimit: int | None = None) -> LemmaReport:
    """Prove, check non-vacuity and tightness; combine into one verdict.

    Overall status: ``refuted`` if the proof found a counterexample; ``unknown`` if any call
    was inconclusive; ``vacuous`` if the assumptions are contradictory; ``not tight`` if the
    stronger conclusion is provable too; ``proved`` otherwise. ``rlimit`` (each of the three calls):
    see the module docstring.
    """
    proof = prove(lemma, timeout_ms, backend, rlimit)
    nonvacuous = check_nonvacuous(lemma, timeout_ms, backend, rlimit)
    tight = check_tight(lemma, timeout_ms, backend, rlimit)
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
