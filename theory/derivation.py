"""Derivations as data: ordered, individually checked steps.

A :class:`Derivation` is the proof of one claim written as a list of :class:`Step` objects.
Each step carries its statement (plain text), the sympy expressions it is about, a
justification in words, and a *method* saying how sympy checks it:

``identity``
    ``lhs - rhs`` simplifies to 0 (after the step's reparametrisation ``substitutions``).
``inequality``
    ``lhs REL rhs`` with ``REL`` one of ``>=``, ``>``, ``<=``, ``<``. The step is reduced to a
    sign fact: the difference (larger side minus smaller side) must equal the sum of the
    step's ``certificate`` terms (an identity sympy checks), and every term must be
    *manifestly* nonnegative from the symbols' declared assumptions (positive, nonnegative:
    products, sums, even powers, quotients, ``Sum`` of such terms); for a strict relation at
    least one term must be manifestly positive. Without a certificate, sympy's own
    assumption system must decide the sign of the (factored) difference.
    Side conditions such as ``0 < alpha < 1`` are encoded by reparametrising with slack
    symbols (``alpha = 1 - beta`` with ``beta`` positive) in ``substitutions``: sound, and
    visible in the rendering.
``substitution``
    The relation is checked at the concrete point ``values`` (exact rational arithmetic).
``limit``
    ``limit(lhs, variable, point, direction) == rhs``.
``assumption``
    The step *is* a named hypothesis of the derivation (``uses``: the labels of its
    :class:`Hypothesis` objects, each stating a standard result with its conditions, e.g.
    PASTA or Little's law), applied at that point of the argument. It is not checked: it is
    assumed, and the derivation says so (a label the derivation does not declare is an error).
``unchecked``
    *Not mechanically checkable* here (a combinatorial or probabilistic argument about
    schedules, not an algebraic fact); ``reason`` says why and where else it is checked.

Checking a step gives a :class:`StepCheck` whose ``status`` is

* ``"checked"``: sympy verified it, for all values allowed by the assumptions (for
  ``substitution``: at the stated point);
* ``"failed"``: sympy found it false: a nonzero difference at an exact sample point (the
  ``witness``), a wrong value or limit;
* ``"inconclusive"``: sympy could neither verify it nor find a counterexample;
* ``"not_checkable"``: an ``unchecked`` step;
* ``"assumed"``: an ``assumption`` step (a named hypothesis of the derivation, applied);
* ``"error"``: the check raised an exception (reported, never hidden).

The overall :attr:`DerivationCheck.status` of a derivation is

* ``"proved"``: every step ``checked``, and (for :func:`geosched.theory.check_claim`) every
  step of every claim it relies on (``depends_on``, transitively) too;
* ``"proved relative"``: every step of its own is ``checked``, but it relies on claims that are
  not themselves proved: the message says "proved relative to X; unchecked: X steps ..."; or
  every step is ``checked`` or ``assumed``: the message says "proved relative to the hypotheses
  Q1, Q2" (:attr:`DerivationCheck.assumed` lists them);
* ``"refuted"``: at least one step ``failed`` (some step of the derivation, as written, is
  false: a wrong formula, with the witness);
* ``"unknown"``: otherwise (some step not checkable, inconclusive or in error, or a claim it
  relies on is refuted). ``DerivationCheck.message`` then says "partially checked: k of n steps".

This is one rule, shared by ``geosched prove`` and the ledger (``geosched claims``): the word
``proved`` is used only when every step of the claim and of everything it depends on was
checked mechanically. An unchecked step may name, in ``covered_by``, the ledger methods of
:mod:`geosched.verify` that check it instead (e.g. Z3 and cvc5 over symbolic lengths for every
``n`` up to a bound); only the ledger runs those, and it reports what they reached.

Example
-------
>>> import sympy as sp
>>> s, o = sp.symbols("s o", nonnegative=True)
>>> d = Derivation("demo", "demo paper", "Eq. (1)", "v = s o + (o^2 + o)/2", steps=[
...     Step.identity("the volume formula", sp.Sum(s + sp.Symbol("j"), (sp.Symbol("j"), 1, o)),
...                   s * o + (o**2 + o) / 2, "sum of an arithmetic progression")])
>>> d.check().status
'proved'
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from geosched.errors import ValidationError
from geosched.results import Result

__all__ = [
    "METHODS",
    "STEP_STATUSES",
    "DERIVATION_STATUSES",
    "Hypothesis",
    "Step",
    "StepCheck",
    "Derivation",
    "DerivationCheck",
    "OpenStep",
    "manifestly_nonnegative",
]

METHODS = ("identity", "inequality", "substitution", "limit", "assumption", "unchecked")
STEP_STATUSES = ("checked", "failed", "inconclusive", "not_checkable", "assumed", "error")
DERIVATION_STATUSES = ("proved", "proved relative", "refuted", "unknown")
_RELATIONS = {"==": sp.Eq, ">=": sp.Ge, ">": sp.Gt, "<=": sp.Le, "<": sp.Lt}
_LATEX_REL = {"==": "=", ">=": r"\ge", ">": ">", "<=": r"\le", "<": "<"}
_SAMPLES = 24  # random exact points tried when looking for a counterexample


@dataclass(frozen=True)
class Hypothesis:
    """A premise of the claim (part of its statement or of the model)."""

    label: str  # short name, e.g. "H1"
    statement: str  # the premise in words / ascii math
    latex: str = ""  # the premise in LaTeX (text mode, math in $...$); "" falls back to the escaped statement
    # outside this premise: "fails: ..." names an instance where the conclusion fails (tests/test_hypotheses.py
    # computes it), else why no such instance is known; every premise of every claim says one (a test checks)
    outside: str = ""

    def render_latex(self) -> str:
        """The premise in LaTeX: :attr:`latex`, else the statement escaped as text."""
        return self.latex or _tex(self.statement)


@dataclass(frozen=True)
class Step:
    """One step of a derivation; build with the class methods (``Step.identity`` ...)."""

    statement: str  # what this step asserts, in words / ascii math
    method: str  # one of METHODS
    justification: str  # why it holds (the argument in words)
    lhs: Any = None  # sympy expression (left side)
    rhs: Any = None  # sympy expression (right side)
    relation: str = "=="  # "==", ">=", ">", "<=", "<"
    certificate: tuple[Any, ...] = ()  # inequality: terms summing to the difference, each >= 0
    substitutions: tuple[tuple[Any, Any], ...] = ()  # reparametrisation applied before checking
    values: tuple[tuple[Any, Any], ...] = ()  # substitution: the point
    variable: Any = None  # limit: the variable
    point: Any = None  # limit: the point
    direction: str = "+-"  # limit: "+", "-" or "+-"
    reason: str = ""  # unchecked: why not mechanically checkable, and where it is checked
    covered_by: tuple[str, ...] = ()  # unchecked: ledger methods (geosched.verify) that check this step instead
    premises: tuple[Any, ...] = ()  # inequality: expressions assumed >= 0 (stated side conditions)
    uses: tuple[str, ...] = ()  # assumption: the labels of the derivation's hypotheses this step applies

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"step method {self.method!r}; known: {', '.join(METHODS)}")
        if self.relation not in _RELATIONS:
            raise ValueError(f"step relation {self.relation!r}; known: {', '.join(_RELATIONS)}")

    # ----------------------------------------------------------------- constructors
    @classmethod
    def identity(cls, statement: str, lhs: Any, rhs: Any, justification: str,
                 substitutions: Mapping[Any, Any] | None = None) -> Step:
        """``lhs == rhs`` for all admissible values."""
        return cls(statement, "identity", justification, sp.sympify(lhs), sp.sympify(rhs),
                   substitutions=_pairs(substitutions))

    @classmethod
    def inequality(cls, statement: str, lhs: Any, relation: str, rhs: Any, justification: str,
                   certificate: Sequence[Any] = (), substitutions: Mapping[Any, Any] | None = None,
                   premises: Sequence[Any] = ()) -> Step:
        """``lhs REL rhs``; ``certificate``: terms that sum to (larger - smaller);
        ``premises``: side conditions ``expr >= 0`` that certificate terms may use as atoms."""
        return cls(statement, "inequality", justification, sp.sympify(lhs), sp.sympify(rhs), relation,
                   tuple(sp.sympify(c) for c in certificate), _pairs(substitutions),
                   premises=tuple(sp.sympify(q) for q in premises))

    @classmethod
    def substitution(cls, statement: str, lhs: Any, rhs: Any, values: Mapping[Any, Any], justification: str,
                     relation: str = "==") -> Step:
        """``lhs REL rhs`` at the point ``values``."""
        return cls(statement, "substitution", justification, sp.sympify(lhs), sp.sympify(rhs), relation,
                   values=_pairs(values))

    @classmethod
    def limit(cls, statement: str, expr: Any, variable: Any, point: Any, value: Any, justification: str,
              direction: str = "+-") -> Step:
        """``lim_{variable -> point} expr == value``."""
        return cls(statement, "limit", justification, sp.sympify(expr), sp.sympify(value),
                   variable=variable, point=sp.sympify(point), direction=direction)

    @classmethod
    def assumption(cls, statement: str, uses: Sequence[str], justification: str) -> Step:
        """A named hypothesis of the derivation (``uses``: its :class:`Hypothesis` labels), applied here:
        assumed, never checked (the derivation is then proved only *relative to* those hypotheses)."""
        if not uses:
            raise ValueError("an assumption step names the hypotheses it uses")
        return cls(statement, "assumption", justification, uses=tuple(uses))

    @classmethod
    def unchecked(cls, statement: str, justification: str, reason: str, covered_by: Sequence[str] = ()) -> Step:
        """A step sympy cannot check; ``reason`` says why; ``covered_by`` names the ledger methods of
        :mod:`geosched.verify` that check it instead (the ledger decides whether they did, in its run)."""
        return cls(statement, "unchecked", justification, reason=reason, covered_by=tuple(covered_by))

    # ----------------------------------------------------------------- checking
    def check(self, index: int = 0) -> StepCheck:
        """Run this step's check; never raises (an exception becomes status ``error``)."""
        started = time.perf_counter()
        try:
            status, detail, witness = _CHECKERS[self.method](self)
        except Exception as exc:  # noqa: BLE001 - reported, never hidden
            status, detail, witness = "error", f"{type(exc).__name__}: {exc}", None
        return StepCheck(status, detail, time.perf_counter() - started, index, self.method, witness)

    # ----------------------------------------------------------------- rendering
    def formula_text(self) -> str:
        """The step's formula in sympy's plain notation ('' for an unchecked or assumed step)."""
        if self.method in ("unchecked", "assumption"):
            return ""
        if self.method == "limit":
            return f"lim_{{{self.variable} -> {self.point}{_dir(self.direction)}}} {self.lhs} = {self.rhs}"
        text = f"{self.lhs} {self.relation} {self.rhs}"
        if self.method == "substitution":
            text += "  at  " + ", ".join(f"{k} = {v}" for k, v in self.values)
        return text

    def formula_latex(self) -> str:
        """The step's formula in LaTeX ('' for an unchecked or assumed step)."""
        if self.method in ("unchecked", "assumption"):
            return ""
        if self.method == "limit":
            return (rf"\lim_{{{sp.latex(self.variable)} \to {sp.latex(self.point)}{_dir(self.direction)}}} "
                    rf"{sp.latex(self.lhs)} = {sp.latex(self.rhs)}")
        text = f"{sp.latex(self.lhs)} {_LATEX_REL[self.relation]} {sp.latex(self.rhs)}"
        if self.method == "substitution":
            text += r"\quad\text{at}\quad " + ",\\ ".join(f"{sp.latex(k)} = {sp.latex(v)}" for k, v in self.values)
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "method": self.method,
            "formula": self.formula_text(),
            "justification": self.justification,
            **({"certificate": [str(c) for c in self.certificate]} if self.certificate else {}),
            **({"substitutions": {str(k): str(v) for k, v in self.substitutions}} if self.substitutions else {}),
            **({"premises": [f"{q} >= 0" for q in self.premises]} if self.premises else {}),
            **({"reason": self.reason} if self.reason else {}),
            **({"covered_by": list(self.covered_by)} if self.covered_by else {}),
            **({"uses": list(self.uses)} if self.uses else {}),
        }


@dataclass(frozen=True)
class StepCheck(Result):
    """The result of checking one step."""

    STATUSES = STEP_STATUSES
    SUCCESS = ("checked",)

    status: str  # one of STEP_STATUSES
    message: str  # what was verified, or why not
    wall_time: float  # seconds
    index: int  # 1-based position in the derivation
    method: str  # the step's method
    witness: dict[str, str] | None  # a counterexample point for "failed" (symbol -> value)


@dataclass(frozen=True)
class OpenStep:
    """A step that sympy did not check, in a derivation or in one it relies on."""

    claim_id: str  # the derivation the step belongs to
    index: int  # 1-based position in that derivation
    statement: str  # what the step asserts
    status: str  # its StepCheck status ("not_checkable", "inconclusive", "error")
    covered_by: tuple[str, ...] = ()  # ledger methods that check it instead (geosched.verify)

    def label(self) -> str:
        """``kong.lemmaA.2 step 5``."""
        return f"{self.claim_id} step {self.index}"

    def to_dict(self) -> dict[str, Any]:
        return {"claim_id": self.claim_id, "index": self.index, "statement": self.statement, "status": self.status,
                "covered_by": list(self.covered_by)}


@dataclass(frozen=True)
class DerivationCheck(Result):
    """The result of :meth:`Derivation.check` (its own steps) or of
    :func:`geosched.theory.check_claim` (its steps and those of every claim it relies on)."""

    STATUSES = DERIVATION_STATUSES
    SUCCESS = ("proved",)

    status: str  # "proved", "proved relative", "refuted" or "unknown" (see the module docstring)
    message: str  # one line: "all 5 steps mechanically checked", "partially checked: 3 of 5 steps ..."
    wall_time: float  # seconds for the whole check
    claim_id: str  # the ledger key
    steps: tuple[StepCheck, ...]  # per-step results, in order
    depends_on: tuple[str, ...]  # claim ids this derivation cites
    open_steps: tuple[OpenStep, ...] = ()  # steps not checked by sympy, here and (check_claim) in the dependencies
    relative_to: tuple[str, ...] = ()  # dependencies not shown proved by this check
    assumed: tuple[str, ...] = ()  # "LABEL (statement)" of each hypothesis its assumption steps apply (check_claim:
    #                                 also its dependencies', as "CLAIM LABEL (statement)")

    @property
    def n_checked(self) -> int:
        return sum(s.status == "checked" for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {"claim_id": self.claim_id, "status": self.status, "success": self.success, "message": self.message,
                "n_steps": len(self.steps), "n_checked": self.n_checked,
                "depends_on": list(self.depends_on), "relative_to": list(self.relative_to),
                "assumed": list(self.assumed),
                "open_steps": [o.to_dict() for o in self.open_steps], "wall_time": round(self.wall_time, 6),
                "steps": [s.to_dict() for s in self.steps]}


# where the bounds' symbols live (the claims' hypotheses): (low, low included, high, high included, integer)
_SYMBOL_DOMAINS: dict[str, tuple[Any, bool, Any, bool, bool]] = {
    "alpha": (0, True, 1, False, False),  # max peak / M; every bound divides by 1 - alpha
    "mu": (0, False, 1, False, False),  # the geometric parameter, 0 < mu < 1
    "rho": (0, True, 1, False, False),  # the load, rho < 1 (stability)
    "q": (0, False, 1, False, False),  # 1 - mu
    "theta": (1, True, None, False, True),  # the 1-bit threshold, an integer >= 1
    "T": (1, True, None, False, True),  # the longest output, an integer >= 1
    "m": (1, True, None, False, True),  # a family's size parameter
    "K": (1, True, None, False, True),
    "s": (0, True, None, False, True),  # a prompt length
    "o": (1, True, None, False, True),  # an output length
}


def _bound_value(claim_id: str, name: str, value: Any) -> Any:
    """``value`` as an exact sympy number inside the symbol's domain, else a ValidationError.

    >>> _bound_value("kong.thm3.2", "alpha", 2)
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: kong.thm3.2: alpha: must be a real number in [0, 1) (got 2)
    """
    low, low_in, high, high_in, integral = _SYMBOL_DOMAINS.get(name, (None, False, None, False, False))
    interval = (f"{'[' if low_in else '('}{low}, {high if high is not None else 'oo'}"
                f"{']' if high_in else ')'}" if low is not None else "")
    requirement = f"must be {'an integer' if integral else 'a real number'}" + (f" in {interval}" if interval else "")
    if isinstance(value, bool) or isinstance(value, str):
        raise ValidationError(f"{claim_id}: {name}", value, requirement)
    try:
        number = sp.nsimplify(value) if isinstance(value, float) else sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError, ValueError):
        raise ValidationError(f"{claim_id}: {name}", value, requirement) from None
    if not (number.is_number and number.is_real and number.is_finite) or (integral and not number.is_integer):
        raise ValidationError(f"{claim_id}: {name}", value, requirement)
    below = low is not None and (number < low if low_in else number <= low)
    above = high is not None and (number > high if high_in else number >= high)
    if below or above:
        raise ValidationError(f"{claim_id}: {name}", value, requirement)
    return number


@dataclass(frozen=True)
class Derivation:
    """The proof of one claim as data."""

    claim_id: str  # ledger key, e.g. "kong.thm3.2"
    paper: str  # citation
    numbering: str  # the paper's numbering ("Theorem 3.2"), or "our derivation"
    statement: str  # the claim, quoted / paraphrased
    hypotheses: tuple[Hypothesis, ...] = ()  # the claim's premises
    steps: tuple[Step, ...] = ()  # ordered steps
    depends_on: tuple[str, ...] = ()  # other claim ids this proof cites
    notes: str = ""  # what is our own derivation, extra hypotheses, open points
    bound: Any = None  # the claim's bound or formula as a sympy expression (None: no single expression)
    statement_latex: str = ""  # the claim in LaTeX (text mode, math in $...$); "" falls back to the escaped text

    def __post_init__(self) -> None:
        object.__setattr__(self, "hypotheses", tuple(self.hypotheses))
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "depends_on", tuple(self.depends_on))

    def bound_at(self, **values: Any) -> Any:
        """The claim's :attr:`bound` with symbols replaced by name, exactly.

        >>> from geosched.theory import get_derivation
        >>> get_derivation("kong.thm3.2").bound_at(alpha=sp.Rational(1, 2))
        5
        """
        if self.bound is None:
            raise ValidationError(f"{self.claim_id}: bound", None, "this claim has no single bound expression")
        symbols = {str(symbol): symbol for symbol in self.bound.free_symbols}
        unknown = sorted(set(values) - set(symbols))
        if unknown:
            raise ValidationError(f"{self.claim_id}: bound symbol", unknown[0],
                                  f"must be one of {', '.join(sorted(symbols))}")
        exact = {name: _bound_value(self.claim_id, name, v) for name, v in values.items()}
        return sp.simplify(self.bound.subs({symbols[name]: v for name, v in exact.items()}))

    def check(self) -> DerivationCheck:
        """Check every step; the status vocabulary is in the module docstring.

        This checks the derivation's *own* steps: with all of them checked it is ``proved`` only
        when it relies on no other claim and assumes no named hypothesis, else ``proved relative``
        (to :attr:`depends_on`, and to the hypotheses its assumption steps apply, listed in
        :attr:`DerivationCheck.assumed`); :func:`geosched.theory.check_claim` follows the dependencies.
        """
        started = time.perf_counter()
        results = tuple(self._check_step(i, step) for i, step in enumerate(self.steps, start=1))
        n = len(results)
        failed = [r.index for r in results if r.status == "failed"]
        open_steps = tuple(OpenStep(self.claim_id, r.index, self.steps[r.index - 1].statement, r.status,
                                    self.steps[r.index - 1].covered_by)
                           for r in results if r.status not in ("checked", "assumed"))
        # each assumed hypothesis with its statement: "proved relative to X" states X, not only a label
        stated = {h.label: h.statement for h in self.hypotheses}
        assumed = tuple(dict.fromkeys(f"{label} ({stated[label]})" for step, r in zip(self.steps, results)
                                      if r.status == "assumed" for label in step.uses))
        relative_to: tuple[str, ...] = ()
        if failed:
            status = "refuted"
            summary = f"refuted: step(s) {', '.join(map(str, failed))} failed"
        elif not open_steps and n:
            status = "proved relative" if self.depends_on or assumed else "proved"
            summary = f"all {n} steps mechanically checked"
            if assumed:
                summary = (f"all {n} steps checked or assumed ({sum(r.status == 'assumed' for r in results)} "
                           f"apply named hypotheses); proved relative to the hypotheses {', '.join(assumed)}")
            if self.depends_on:
                relative_to = self.depends_on
                summary += f"; proved relative to {', '.join(self.depends_on)}"
        else:
            status = "unknown"
            kinds: dict[str, list[int]] = {}
            for step in open_steps:
                kinds.setdefault(step.status.replace("_", " "), []).append(step.index)
            detail = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in kinds.items())
            summary = f"partially checked: {n - len(open_steps)} of {n} steps mechanically checked ({detail})"
            if assumed:
                summary += f"; assumed: {', '.join(assumed)}"
        return DerivationCheck(status, summary, time.perf_counter() - started, self.claim_id, results,
                               self.depends_on, open_steps, relative_to, assumed)

    def _check_step(self, index: int, step: Step) -> StepCheck:
        """``step.check``, except that an assumption naming a hypothesis this derivation does not declare
        is an ``error`` (an assumption is only as good as its stated conditions)."""
        declared = {h.label for h in self.hypotheses}
        missing = [label for label in step.uses if label not in declared]
        if step.method == "assumption" and missing:
            return StepCheck("error", f"assumes {', '.join(missing)}, which this derivation does not declare",
                             0.0, index, step.method, None)
        return step.check(index)

    # ----------------------------------------------------------------- rendering
    def render_text(self, check: DerivationCheck | None = None, marks: Mapping[int, str] | None = None,
                    footer: str = "") -> str:
        """Plain-text rendering, step by step; with ``check``, each step's result; ``marks`` (1-based
        step index -> text, e.g. "sympy", "Coq, every n: THM", "checked for n<=3 ...") say what
        establishes each step (``geosched prove`` computes them from the ledger), ``footer`` ends it."""
        lines = [f"{self.claim_id}: {self.paper}, {self.numbering}", "", "Claim: " + self.statement]
        if self.hypotheses:
            lines.append("Hypotheses:")
            lines += [f"  {h.label}: {h.statement}" for h in self.hypotheses]
        if self.depends_on:
            lines.append("Uses: " + ", ".join(self.depends_on))
        lines.append("")
        results = check.steps if check is not None else (None,) * len(self.steps)
        for i, (step, result) in enumerate(zip(self.steps, results), start=1):
            tag = f"[{step.method}]" if result is None else f"[{step.method}: {result.status}]"
            lines.append(f"Step {i} {tag} {step.statement}")
            if step.formula_text():
                lines.append(f"    {step.formula_text()}")
            if step.substitutions:
                lines.append("    where " + ", ".join(f"{k} = {v}" for k, v in step.substitutions))
            if step.premises:
                lines.append("    given: " + ", ".join(f"{q} >= 0" for q in step.premises))
            if step.certificate:
                lines.append("    certificate: difference = " + " + ".join(f"({c})" for c in step.certificate))
            lines.append(f"    because: {step.justification}")
            if step.reason:
                lines.append(f"    not mechanically checkable: {step.reason}")
            if step.covered_by:
                lines.append(f"    checked instead by (geosched claims): {', '.join(step.covered_by)}")
            if step.uses:
                lines.append(f"    assumes: {', '.join(step.uses)} (hypotheses above)")
            if marks and i in marks:
                lines.append(f"    established by: {marks[i]}")
            if result is not None and result.status not in ("checked", "not_checkable", "assumed"):
                lines.append(f"    result: {result.message}")
                if result.witness:
                    lines.append("    witness: " + ", ".join(f"{k} = {v}" for k, v in result.witness.items()))
        if self.notes:
            lines += ["", "Notes: " + self.notes]
        if check is not None:
            lines += ["", f"Status: {check.status} ({check.message}; {check.wall_time:.2f} s)"]
        if footer:
            lines.append(footer)
        return "\n".join(lines)

    def render_latex(self, check: DerivationCheck | None = None, marks: Mapping[int, str] | None = None,
                     footer: str = "") -> str:
        """A LaTeX fragment (an ``enumerate`` of the steps) for teaching notes (``marks``, ``footer``: as in
        :meth:`render_text`)."""
        out = [rf"\paragraph{{{_tex(self.claim_id)}}} {_tex(self.paper)}, {_tex(self.numbering)}.",
               r"\emph{Claim.} " + self.claim_latex()]
        if self.hypotheses:
            out.append(r"\emph{Hypotheses.} " + "; ".join(f"{_tex(h.label)}: {h.render_latex()}"
                                                         for h in self.hypotheses))
        out += self._steps_latex(check, marks, footer)
        return "\n".join(out)

    def claim_latex(self) -> str:
        """The claim in LaTeX: :attr:`statement_latex`, else the statement escaped as text."""
        return self.statement_latex or _tex(self.statement)

    def render_latex_document(self, check: DerivationCheck | None = None, marks: Mapping[int, str] | None = None,
                              footer: str = "") -> str:
        """A complete LaTeX document (``article``, amsmath) that compiles with pdflatex on its own.

        The claim and the hypotheses are set in mathematical notation (their LaTeX forms), each
        step's formula by :func:`sympy.latex`; with ``check``, each step's result and the status.
        """
        title = rf"\texttt{{{_tex(self.claim_id)}}}: {_tex(self.numbering)}"
        out = [r"\documentclass[11pt]{article}", r"\usepackage[utf8]{inputenc}", r"\usepackage[T1]{fontenc}",
               r"\usepackage{amsmath,amssymb}", r"\allowdisplaybreaks", r"\setlength{\parindent}{0pt}",
               rf"\title{{{title}}}", rf"\author{{{_tex(self.paper)}}}", r"\date{}", r"\begin{document}",
               r"\maketitle", r"\section*{Claim}", self.claim_latex()]
        if self.hypotheses:
            out += [r"\section*{Hypotheses}", r"\begin{description}"]
            out += [rf"\item[{_tex(h.label)}] {h.render_latex()}" for h in self.hypotheses]
            out.append(r"\end{description}")
        if self.depends_on:
            out.append(r"\emph{Uses:} " + ", ".join(rf"\texttt{{{_tex(c)}}}" for c in self.depends_on) + ".")
        out.append(r"\section*{Derivation}")
        out += self._steps_latex(check, marks, footer)
        out += [r"\end{document}", ""]
        return "\n".join(out)

    def _steps_latex(self, check: DerivationCheck | None, marks: Mapping[int, str] | None = None,
                     footer: str = "") -> list[str]:
        out = [r"\begin{enumerate}"]
        results = check.steps if check is not None else (None,) * len(self.steps)
        for index, (step, result) in enumerate(zip(self.steps, results), start=1):
            tag = step.method if result is None else f"{step.method}: {result.status}"
            item = rf"\item[] \textbf{{[{_tex(tag)}]}} {_tex(step.statement)}"
            if step.formula_latex():
                item += "\n  \\[ " + step.formula_latex() + " \\]"
            if step.substitutions:
                item += "\n  where $" + ",\\ ".join(f"{sp.latex(k)} = {sp.latex(v)}"
                                                  for k, v in step.substitutions) + "$."
            if step.premises:
                item += "\n  Given $" + ",\\ ".join(f"{sp.latex(q)} \\ge 0" for q in step.premises) + "$."
            if step.certificate:
                item += "\n  Certificate: difference $= " + " + ".join(
                    f"\\left({sp.latex(c)}\\right)" for c in step.certificate) + "$."
            item += "\n  " + _tex(step.justification)
            if step.reason:
                item += r" \emph{Not mechanically checkable:} " + _tex(step.reason)
            if step.covered_by:
                item += r" \emph{Checked instead by:} " + _tex(", ".join(step.covered_by)) + "."
            if step.uses:
                item += r" \emph{Assumes:} " + _tex(", ".join(step.uses)) + "."
            if marks and index in marks:
                item += r" \emph{Established by:} " + _tex(marks[index]) + "."
            out.append(item)
        out.append(r"\end{enumerate}")
        if self.notes:
            out.append(r"\emph{Notes.} " + _tex(self.notes))
        if check is not None:
            out.append(rf"\emph{{Status:}} {_tex(check.status)} ({_tex(check.message)}).")
        if footer:
            out.append(_tex(footer))
        return out

    def to_dict(self, check: DerivationCheck | None = None) -> dict[str, Any]:
        data = {"claim_id": self.claim_id, "paper": self.paper, "numbering": self.numbering,
                "statement": self.statement,
                "hypotheses": [{"label": h.label, "statement": h.statement,
                                **({"latex": h.latex} if h.latex else {})} for h in self.hypotheses],
                **({"statement_latex": self.statement_latex} if self.statement_latex else {}),
                "depends_on": list(self.depends_on), "notes": self.notes,
                "steps": [s.to_dict() for s in self.steps]}
        if check is not None:
            for step_data, result in zip(data["steps"], check.steps):
                step_data["check"] = result.to_dict()
            data.update(status=check.status, message=check.message, wall_time=round(check.wall_time, 6))
        return data


# --------------------------------------------------------------------- checkers


def _pairs(mapping: Mapping[Any, Any] | None) -> tuple[tuple[Any, Any], ...]:
    return tuple((k, sp.sympify(v)) for k, v in (mapping or {}).items())


def _dir(direction: str) -> str:
    return {"+": "^+", "-": "^-"}.get(direction, "")


_TEX_ESCAPES = str.maketrans({"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
                               "^": r"\^{}", "$": r"\$", "{": r"\{", "}": r"\}", "~": r"\~{}"})


def _tex(text: str) -> str:
    """Escape plain text for LaTeX (one pass, so escapes are not escaped again)."""
    return text.translate(_TEX_ESCAPES)


def _apply(step: Step, expr: Any) -> Any:
    return expr.subs(dict(step.substitutions)) if step.substitutions else expr


def _evaluate(expr: Any) -> Any:
    expr = expr.doit() if hasattr(expr, "doit") else expr
    return sp.piecewise_fold(expr) if isinstance(expr, sp.Basic) else expr


def _is_zero(expr: Any) -> bool:
    expr = _evaluate(expr)
    if expr == 0:
        return True
    for simplify in (sp.cancel, sp.expand, sp.simplify):
        try:
            if simplify(expr) == 0:
                return True
        except Exception:  # noqa: BLE001 - try the next normal form
            continue
    return False


def _check_identity(step: Step) -> tuple[str, str, dict[str, str] | None]:
    difference = _apply(step, step.lhs) - _apply(step, step.rhs)
    if _is_zero(difference):
        return "checked", "lhs - rhs simplifies to 0", None
    witness = _find_point(_evaluate(difference), lambda value: value != 0)
    if witness is not None:
        return "failed", "lhs - rhs is not 0 at the witness point", witness
    return "inconclusive", "sympy could not reduce lhs - rhs to 0, and found no counterexample", None


def _check_inequality(step: Step) -> tuple[str, str, dict[str, str] | None]:
    lhs, rhs = _apply(step, step.lhs), _apply(step, step.rhs)
    strict = step.relation in (">", "<")
    difference = lhs - rhs if step.relation in (">=", ">") else rhs - lhs
    if step.certificate:
        terms = [_apply(step, c) for c in step.certificate]
        if not _is_zero(difference - sp.Add(*terms)):
            witness = _find_point(_evaluate(difference), (lambda v: v <= 0) if strict else (lambda v: v < 0))
            if witness is not None:
                return "failed", "the relation is false at the witness point", witness
            return "inconclusive", "the certificate does not sum to the difference", None
        atoms = {q: sp.Dummy(f"premise{n}", nonnegative=True) for n, q in enumerate(step.premises)}
        terms = [t.subs(atoms) if atoms else t for t in terms]
        bad = [str(t) for t in terms if not manifestly_nonnegative(t)]
        if bad:
            return "inconclusive", f"certificate term(s) not manifestly nonnegative: {', '.join(bad)}", None
        if strict and not any(manifestly_positive(t) for t in terms):
            return "inconclusive", "strict relation, but no certificate term is manifestly positive", None
        return "checked", (f"difference = sum of {len(terms)} manifestly "
                           f"{'nonnegative' if not strict else 'nonnegative (one positive)'} term(s)"), None
    reduced = sp.factor(sp.simplify(_evaluate(difference)))
    sign = reduced.is_positive if strict else reduced.is_nonnegative
    if sign:
        return "checked", "sympy's assumptions decide the sign of the factored difference", None
    if manifestly_nonnegative(reduced) and (not strict or manifestly_positive(reduced)):
        return "checked", "the factored difference is manifestly of the right sign", None
    witness = _find_point(_evaluate(difference), (lambda v: v <= 0) if strict else (lambda v: v < 0))
    if witness is not None:
        return "failed", "the relation is false at the witness point", witness
    return "inconclusive", "no certificate, and sympy could not decide the sign", None


def _check_substitution(step: Step) -> tuple[str, str, dict[str, str] | None]:
    point = dict(step.values)
    lhs = sp.nsimplify(_evaluate(step.lhs.subs(point)))
    rhs = sp.nsimplify(_evaluate(step.rhs.subs(point)))
    truth = _RELATIONS[step.relation](lhs, rhs)
    where = {str(k): str(v) for k, v in step.values}
    if truth is sp.true:
        return "checked", f"at the point: {lhs} {step.relation} {rhs}", None
    if truth is sp.false:
        return "failed", f"at the point: {lhs} {step.relation} {rhs} is false", where
    return "inconclusive", f"could not decide {lhs} {step.relation} {rhs}", None


def _check_limit(step: Step) -> tuple[str, str, dict[str, str] | None]:
    value = sp.limit(_evaluate(step.lhs), step.variable, step.point, step.direction)
    if _is_zero(value - step.rhs) or value == step.rhs:
        return "checked", f"sympy.limit gives {value}", None
    if value.is_number and step.rhs.is_number or value.has(sp.oo) or step.rhs.has(sp.oo):
        return "failed", f"sympy.limit gives {value}, not {step.rhs}", None
    return "inconclusive", f"sympy.limit gives {value}; could not compare with {step.rhs}", None


def _check_unchecked(step: Step) -> tuple[str, str, dict[str, str] | None]:
    return "not_checkable", step.reason or "not mechanically checkable", None


def _check_assumption(step: Step) -> tuple[str, str, dict[str, str] | None]:
    return "assumed", f"assumed: {', '.join(step.uses)} (a named hypothesis, not checked)", None


_CHECKERS = {
    "identity": _check_identity,
    "inequality": _check_inequality,
    "substitution": _check_substitution,
    "limit": _check_limit,
    "assumption": _check_assumption,
    "unchecked": _check_unchecked,
}


def manifestly_nonnegative(expr: Any) -> bool:
    """True when ``expr`` is built from nonnegative pieces by +, *, /, even powers or Sum.

    Sound but incomplete: False means "not manifest", not "negative".

    >>> x = sp.Symbol("x", nonnegative=True); y = sp.Symbol("y", real=True)
    >>> manifestly_nonnegative(x * (x + 2) / 3 + y**2), manifestly_nonnegative(x - 1)
    (True, False)
    """
    expr = sp.sympify(expr)
    if expr.is_nonnegative:
        return True
    if isinstance(expr, sp.Add) or isinstance(expr, sp.Mul):
        if isinstance(expr, sp.Mul) and expr.could_extract_minus_sign():
            return False
        return all(manifestly_nonnegative(a) for a in expr.args)
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if exponent.is_integer and exponent.is_even and base.is_real:
            return True
        return manifestly_nonnegative(base) and bool(exponent.is_real)
    if isinstance(expr, sp.Sum):
        return manifestly_nonnegative(expr.function)
    return False


def manifestly_positive(expr: Any) -> bool:
    """True when ``expr`` is manifestly > 0 (a positive term times positive factors, ...)."""
    expr = sp.sympify(expr)
    if expr.is_positive:
        return True
    if isinstance(expr, sp.Mul):
        return not expr.could_extract_minus_sign() and all(manifestly_positive(a) for a in expr.args)
    if isinstance(expr, sp.Add):
        return all(manifestly_nonnegative(a) for a in expr.args) and any(manifestly_positive(a) for a in expr.args)
    if isinstance(expr, sp.Pow):
        return manifestly_positive(expr.args[0]) and bool(expr.args[1].is_real)
    return False


def _sample_value(symbol: sp.Symbol, rng: random.Random) -> Any:
    if symbol.is_integer:
        low = 1 if symbol.is_positive else (0 if symbol.is_nonnegative else -8)
        return sp.Integer(rng.randint(low, low + 9))
    value = Fraction(rng.randint(1, 60), rng.randint(1, 12))
    if not (symbol.is_positive or symbol.is_nonnegative) and rng.random() < 0.5:
        value = -value
    return sp.Rational(value.numerator, value.denominator)


def _find_point(expr: Any, is_witness: Any) -> dict[str, str] | None:
    """Exact random points honouring the symbols' assumptions; the first where ``is_witness``."""
    if not isinstance(expr, sp.Basic):
        return None
    symbols = sorted(expr.free_symbols, key=str)
    rng = random.Random(20260621)  # fixed: the same witness every run
    for _ in range(_SAMPLES):
        point = {sym: _sample_value(sym, rng) for sym in symbols}
        try:
            value = sp.nsimplify(_evaluate(expr.subs(point)))
        except Exception:  # noqa: BLE001 - a point outside the domain: try another
            continue
        if value.is_number and value.is_real and is_witness(value):
            return {str(k): str(v) for k, v in point.items()}
    return None
