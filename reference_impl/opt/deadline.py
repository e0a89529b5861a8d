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
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Deadline", "BuildStopped", "run_until"]


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


POLL_SECONDS = 0.1  # the parent's wait wakes this often, so that a signal's handler runs (geosched._signal_waits)


def run_until(deadline: Deadline, work: Callable[[], Any]) -> tuple[bool, Any]:
    """``(True, work())`` computed in a forked child process, or ``(False, None)`` when ``deadline`` came first
    (the child is killed then).

    For a solver that checks its own time limit only between its phases: HiGHS ran 2.7 s past a 4 s limit on the
    time-indexed program of 30 requests, 1.5 s past 0.5 s at 20 (benchmarks/RESULTS.md 25). An exception ``work``
    raises is raised here. Where ``fork`` is not available, ``work`` runs in this process, bounded only by its own
    limit.

    >>> run_until(Deadline.after(30.0), lambda: 6 * 7)
    (True, 42)
    >>> run_until(Deadline.after(0.2), lambda: time.sleep(30))
    (False, None)
    """
    for stream in (sys.stdout, sys.stderr):  # what is buffered here is written once, here (the child never flushes)
        stream.flush()
    if "fork" not in multiprocessing.get_all_start_methods():
        return True, work()
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(work, sender), daemon=True)
    child.start()
    sender.close()
    try:
        while not receiver.poll(max(0.0, min(POLL_SECONDS, deadline.remaining()))):  # an answer, or the child's end
            if deadline.passed():
                return False, None
        try:
            kind, value = receiver.recv()
        except EOFError:  # the child ended without an answer (killed from outside)
            return False, None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receiver.close()
    if kind == "raised":
        raise value
    return True, value


def _child(work: Callable[[], Any], sender: Any) -> None:
    """The forked side of :func:`run_until`: the answer through the pipe, then a silent exit (no traceback, no
    handler of the parent's, no atexit of the parent's runs here)."""
    try:
        try:
            answer = ("returned", work())
        except Exception as error:  # noqa: BLE001 - handed to the parent, which raises it
            answer = ("raised", error)
        try:
            sender.send(answer)
        except Exception as error:  # noqa: BLE001 - an answer that cannot be pickled is said, not lost
            sender.send(("raised", RuntimeError(f"the child's answer could not be sent back: {error!r}")))
    finally:
        os._exit(0)
