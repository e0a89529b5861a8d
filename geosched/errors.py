"""The error hierarchy of geosched.

Every error a user can cause derives from :class:`GeoschedError`; the CLI prints
such errors as one line and exits with status 2, without a traceback.
"""

from __future__ import annotations

__all__ = [
    "GeoschedError",
    "ValidationError",
    "WorkloadFormatError",
    "UnknownNameError",
    "InfeasibleScheduleError",
    "SolverError",
    "LimitError",
    "TimeLimitError",
    "AddedAfterRecord",
]


class GeoschedError(Exception):
    """Base class of every error geosched raises on purpose."""


class ValidationError(GeoschedError, ValueError):
    """A value is outside the model: names the offending field and value."""

    def __init__(self, field: str, value: object, requirement: str):
        self.field = field
        self.value = value
        self.requirement = requirement
        super().__init__(f"{field}: {requirement} (got {_short_repr(value)})")


def _short_repr(value: object, limit: int = 120) -> str:
    """``repr(value)``, shortened in the middle when long (a 4000-digit number stays one line)."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's 4300-digit string limit
        return f"<an integer of {value.bit_length()} bits>" if isinstance(value, int) else "<unprintable>"
    if len(text) <= limit:
        return text
    return f"{text[: limit // 2]}...{text[-limit // 4:]} ({len(text)} characters)"


class WorkloadFormatError(GeoschedError, ValueError):
    """A workload or schedule file is malformed (bad JSON, missing or extra keys)."""


class UnknownNameError(GeoschedError, KeyError):
    """A name (policy, predictor, generator, claim) is not registered."""

    def __init__(self, kind: str, name: str, known: list[str] | tuple[str, ...]):
        self.kind = kind
        self.name = name
        self.known = tuple(sorted(known))
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known)}")

    def __str__(self) -> str:  # KeyError would quote the whole message otherwise
        return self.args[0]


class InfeasibleScheduleError(GeoschedError):
    """A schedule that was required to be feasible is not (the checker's report says why)."""


class SolverError(GeoschedError):
    """An external solver failed in a way that is not a time limit."""


class LimitError(GeoschedError):
    """Work past a limit (steps, a ``decide()`` call's seconds, bytes, evaluations): refused before it
    starts, or stopped where it reached the limit; the message names the limit and the option that
    raises it (:mod:`geosched.limits`)."""


class TimeLimitError(GeoschedError):
    """A computation was stopped at its time limit before it answered; the message names the
    limit and the option that raises it."""


class AddedAfterRecord(UserWarning):
    """A registered name (a claim row) that a generated docs page does not show yet: it was added after the run the
    page records. Not a failure (a claim is added in one file); the warning names the command that records it.

    It lives in the package, not beside the docs writers, because pytest-xdist's controller re-imports a warning's
    class by its module name, and ``docs/tables.py`` is not importable under one."""
