"""The time limit of :func:`~geosched.reference_impl.opt.solve_opt`, shared by every phase.

A solver's own time limit covers only its search; building a model (the pair loops of the
completion model, the start windows, the time-indexed rows), the heuristic's improvement
pass and the bound computations would otherwise run past it (41 s against a 5 s limit at
n = 8,000, issue 11). Each phase takes the one :class:`Deadline` and checks it between units
of work; model building that reaches it raises :class:`BuildStopped`, which ``solve_opt``
turns into an honest ``time_limit`` result with the checked incumbent.

Example
-------
>>> deadline = Deadline.after(60.0)
>>> deadline.remaining() > 59
True
>>> Deadline.after(0.0).check("the completion model")
Traceback (most recent call last):
...
geosched.reference_impl.opt.deadline.BuildStopped: the completion model: stopped at the time limit
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

__all__ = ["Deadline", "BuildStopped"]


class BuildStopped(Exception):
    """Building a model stopped: the time limit was reached, or the model would be too large.

    Internal to :mod:`geosched.reference_impl.opt`: ``solve_opt`` catches it and reports
    ``time_limit`` with its reason in the message; it never reaches a user.
    """

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Deadline:
    """An absolute ``time.perf_counter()`` value."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(time.perf_counter() + seconds)

    @classmethod
    def never(cls) -> Deadline:
        """No deadline (for the public functions called without a limit)."""
        return cls(math.inf)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.at - time.perf_counter()

    def passed(self) -> bool:
        return time.perf_counter() >= self.at

    def check(self, what: str) -> None:
        """Raise :class:`BuildStopped` naming ``what`` when the deadline has passed."""
        if self.passed():
            raise BuildStopped(f"{what}: stopped at the time limit")
