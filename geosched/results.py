"""One result convention for every result object geosched returns (scipy.optimize-like).

Every result is a frozen dataclass that mixes in :class:`Result` and has at least the fields

* ``status``: one string of the class's literal set ``STATUSES``;
* ``message``: one human-readable line;
* ``wall_time``: seconds spent producing it;

and gets ``success`` (``status`` in the class's ``SUCCESS``), ``outcome`` and ``to_dict()`` (JSON-ready,
``success`` included) from the mixin. A status outside ``STATUSES`` is a bug and raises.

**One vocabulary, two kinds of word** (issue 47). Every status word of every result class is one of
:data:`OUTCOMES` (how a run ended: it says nothing about the thing checked) or one of :data:`VERDICTS`
(what a run established), each word with one meaning across the package (``tests/test_results.py``
refuses a word in neither, or in both). ``outcome`` is the status when it is an outcome word, else
``"completed"``: a verdict is given only by a run that completed.

Example
-------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Probe(Result):
...     STATUSES = ("done", "failed")
...     SUCCESS = ("done",)
...     status: str
...     message: str
...     wall_time: float
>>> Probe("done", "ok", 0.5).to_dict()
{'status': 'done', 'message': 'ok', 'wall_time': 0.5, 'success': True}
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, ClassVar

__all__ = ["Result", "Completed", "plain", "OUTCOMES", "VERDICTS"]

# how a run ended, whatever it was checking
OUTCOMES = {
    "completed": "it ran to its end (what it found is in the other fields)",
    "empty": "it ran to its end with nothing to show (a picture with no step to draw)",
    "time_limit": "stopped at its time limit; what it had found so far is kept",
    "max_evaluations": "stopped at its evaluation budget",
    "stopped_by_callback": "stopped by the caller's callback",
    "target_reached": "stopped early: it reached the target it was given",
    "no_solution": "a solver ran out of time before any schedule",
    "no_witness": "a search ended without any certified witness",
    "stalled": "a replay stopped making progress",
    "incomplete": "a replay did not serve every request",
    "unavailable": "not run: a tool it needs is not installed",
    "not_built": "not run: the build it reads was not made",
    "not_run": "not run (the reason in the message: no trace, --quick, ...)",
    "error": "it crashed (the error in the message)",
}
# what a run established; the strength order of the claim words is geosched.verify.evidence's
VERDICTS = {
    "proved": "a proof for every instance (sympy, a solver proof, a closed Coq theorem)",
    "proved relative": "a derivation whose own steps are proved, relying on claims not proved",
    "proved relative to": "proved, relying on named hypotheses or claims (they are named)",
    "checked": "a check that could have failed passed, up to the bounds it names",
    "consistent": "a check that could have failed agreed (a statistical check; every point under its ceiling)",
    "vacuous": "a check that could not have failed",
    "nonvacuous": "the hypotheses of a lemma are satisfiable",
    "tight": "a slightly stronger conclusion has a counterexample",
    "not tight": "a slightly stronger conclusion holds too",
    "refuted": "a counterexample was found",
    "unknown": "ran, and neither established nor refuted it",
    "inconclusive": "a statistical check whose interval decides nothing",
    "not_checkable": "a step no solver here can check (what checks it is named)",
    "assumed": "a step that applies a stated hypothesis",
    "reproduced": "an empirical claim held on the data it names",
    "partly": "an empirical claim held on part of its data",
    "not_reproduced": "an empirical claim did not hold",
    "optimal": "an exact optimum, proved",
    "feasible": "the referee accepts the schedule",
    "infeasible": "the referee refuses the schedule (the violation is named)",
    "agree": "equal to the reference it is compared with",
    "diverged": "differs from the reference (the first difference is named)",
    "faithful": "a replay served every request in the planned order and times",
    "reordered": "a replay served every request, in another order",
    "drifted": "a replay's times moved past the tolerance",
    "held": "an invariant held at every step observed",
    "violated": "an invariant failed at a step (named)",
    "passed": "every rule of a scheduler check held",
    "failed": "a rule, a step or a build failed (named)",
    "ok": "every part ran and none was refuted",
    "partial": "no part refuted, but not every part ran",
    "verified": "a witness re-verified from its instance alone",
    "rejected": "a witness the referee does not accept",
    "sat": "a solver found a model",
    "unsat": "a solver proved there is none",
    "interval": "both sides of a bisection were established",
    "lower_only": "only the lower side was established",
    "upper_only": "only the upper side was established",
    "none": "nothing was established (no bound, no instance)",
    "opt": "ratios are to the proved optimum",
    "lower_bound": "ratios are to a lower bound on the optimum (so they are upper bounds on the true ones)",
    "inconsistent": "a point lies above a proved ceiling",
}


class Result:
    """Mixin of every result dataclass: ``success`` and ``to_dict()`` from ``status``."""

    STATUSES: ClassVar[tuple[str, ...]] = ()
    SUCCESS: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        status = getattr(self, "status", None)
        if status not in self.STATUSES:
            raise ValueError(f"{type(self).__name__}.status: {status!r} is not one of {self.STATUSES}")

    @property
    def outcome(self) -> str:
        """How the run ended (:data:`OUTCOMES`): the status when it is an outcome word, else ``"completed"``."""
        status = self.status  # type: ignore[attr-defined]
        return status if status in OUTCOMES else "completed"

    @property
    def success(self) -> bool:
        """True when ``status`` is one of the class's successful statuses."""
        return self.status in self.SUCCESS  # type: ignore[attr-defined]

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (nested results and dataclasses too), plus ``success``."""
        data = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if not f.name.startswith("_") and f.repr}
        data["success"] = self.success
        return data


@dataclasses.dataclass(frozen=True)
class Completed(Result):
    """A result whose only status is ``"completed"``: a run that either ends or raises (a table, a trained model, an
    export). Its three fields come first; a subclass adds its own after them.

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class Count(Completed):
    ...     n: int
    >>> Count("completed", "3 found", 0.25, 3).to_dict()
    {'status': 'completed', 'message': '3 found', 'wall_time': 0.25, 'n': 3, 'success': True}
    """

    STATUSES = ("completed",)
    SUCCESS = ("completed",)

    status: str
    message: str  # one line
    wall_time: float  # seconds


def plain(value: Any) -> Any:
    """``value`` with dataclasses, tuples, Fractions and numpy scalars turned into JSON values."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    return value
