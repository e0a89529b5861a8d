"""Work limits: a loop whose length the input decides is bounded, and refused before it starts.

Three kinds of work are not bounded by the size of the input file alone, and each has one limit,
one command-line option and one Python keyword (the same spelling everywhere):

* **steps** (``--max-steps``, ``max_steps=``; default :data:`DEFAULT_MAX_STEPS`): the loops that
  advance time one step at a time (the step engine, :func:`geosched.reference_impl.engine.run_scheduler`;
  the vLLM-semantics model; ``vllm-diff``'s lockstep with vLLM). Before the first step the
  run's span is bounded from below by :func:`busy_steps` (every request is present from its arrival
  until at least ``arrival + output``, and each of those steps is a decision); past the limit the run
  is refused in one line (:class:`~geosched.errors.LimitError`) naming the limit and the option. A run
  that passes the estimate but decides more steps than the limit (restarts, a livelock) stops with
  the same error when it reaches it.
* **the time of one ``decide()`` call** of a scheduler (``--decide-seconds``, ``decide_seconds=``;
  default :data:`DEFAULT_DECIDE_SECONDS`, in ``[MIN_DECIDE_SECONDS, MAX_DECIDE_SECONDS]`` = 1 ms to one
  day: below a millisecond an interval timer rounds to "off", past a day is no limit):
  :func:`time_limited` interrupts a call that runs longer,
  with ``SIGALRM`` in the main thread (no thread is started, none leaks); outside the main thread a
  signal cannot be used, and the call is measured instead: one that returned late is the same error.
  A scheduler of the user's own runs in a process of its own, stopped at the same limit
  (:mod:`geosched.reference_impl.user_schedulers`).
* **bytes of an export** (``--max-bytes``, ``max_bytes=``; default :data:`DEFAULT_MAX_BYTES`, at most
  :data:`MAX_MAX_BYTES` = 2 GiB, since the file is built in memory before its atomic write):
  the vllm-bench format lists a hash id per 16 prompt tokens, so its size is estimated from the
  instance before anything is allocated (:mod:`geosched.reference_impl.formats.vllm_bench`).

A command line sets the limits of its options for everything it calls (:func:`work_limits`, a
context variable, like :func:`decimal.localcontext`); a Python keyword given to a function wins over
the context. The hunts' ``--evals``/``--restarts`` are checked against ``--time`` instead
(:mod:`geosched.adversary.hunt`).

Example
-------
>>> busy_steps([(0, 5), (3, 4), (20, 1)])  # [0, 7) and [20, 21)
8
>>> with work_limits(max_steps=5):
...     check_steps(8, None, "a run")
Traceback (most recent call last):
...
geosched.errors.LimitError: a run: at least 8 steps, past the limit of 5 steps (raise it with --max-steps, ...)
"""

from __future__ import annotations

import contextlib
import contextvars
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from geosched.errors import LimitError, ValidationError

__all__ = ["decide_expired", "DEFAULT_MAX_STEPS", "DEFAULT_DECIDE_SECONDS", "DEFAULT_MAX_BYTES", "MIN_DECIDE_SECONDS",
           "MAX_DECIDE_SECONDS", "MAX_MAX_BYTES", "WorkLimits", "current",
           "work_limits", "max_steps", "decide_seconds", "max_bytes", "busy_steps", "check_steps", "steps_exceeded",
           "check_bytes", "time_limited"]

DEFAULT_MAX_STEPS = 1_000_000  # a step-by-step run: about 100 s at the step engine's 10^4 steps/s (RESULTS.md)
DEFAULT_DECIDE_SECONDS = 10.0  # one decide() call; the built-in schedulers take microseconds
DEFAULT_MAX_BYTES = 2**30  # one exported file (held in memory before its atomic write)
MIN_DECIDE_SECONDS = 1e-3  # below this setitimer's microseconds round a limit towards "disarmed"
MAX_DECIDE_SECONDS = 86_400.0  # one day: past it a limit limits nothing (and setitimer overflows near 2^31 s)
MAX_MAX_BYTES = 2**31  # the largest export built in memory (a few times its size at the peak)

_STEPS = ("--max-steps", "max_steps")
_DECIDE = ("--decide-seconds", "decide_seconds")
_BYTES = ("--max-bytes", "max_bytes")


@dataclass(frozen=True)
class WorkLimits:
    """The limits in force (see the module docstring)."""

    max_steps: int = DEFAULT_MAX_STEPS
    decide_seconds: float = DEFAULT_DECIDE_SECONDS
    max_bytes: int = DEFAULT_MAX_BYTES


_LIMITS: contextvars.ContextVar[WorkLimits] = contextvars.ContextVar(
    "geosched_work_limits", default=WorkLimits())  # noqa: B039 - a frozen dataclass


def current() -> WorkLimits:
    """The limits in force here (the defaults, or those of an enclosing :func:`work_limits`)."""
    return _LIMITS.get()


@contextlib.contextmanager
def work_limits(**changes: Any) -> Iterator[WorkLimits]:
    """Set some limits (``max_steps``, ``decide_seconds``, ``max_bytes``; None keeps the one in force)
    for the code inside; each value is checked like the keyword it stands for.

    >>> with work_limits(max_steps=10, decide_seconds=None) as limits:
    ...     limits.max_steps, limits.decide_seconds == DEFAULT_DECIDE_SECONDS
    (10, True)
    """
    checks = {"max_steps": max_steps, "decide_seconds": decide_seconds, "max_bytes": max_bytes}
    unknown = sorted(set(changes) - set(checks))
    if unknown:
        raise ValidationError("work_limits", unknown[0], f"must be one of {', '.join(checks)}")
    limits = replace(current(), **{k: checks[k](v) for k, v in changes.items() if v is not None})
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


def _field(names: tuple[str, str]) -> str:
    return f"{names[0]} ({names[1]}=)"


def _count(value: Any, names: tuple[str, str]) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(_field(names), value, "must be an integer >= 1")
    return value


def max_steps(value: int | None = None) -> int:
    """``value`` checked (an integer >= 1), or the limit in force when None."""
    return current().max_steps if value is None else _count(value, _STEPS)


def max_bytes(value: int | None = None) -> int:
    """``value`` checked (an integer in ``[1, MAX_MAX_BYTES]``), or the limit in force when None."""
    if value is None:
        return current().max_bytes
    if _count(value, _BYTES) > MAX_MAX_BYTES:
        raise ValidationError(_field(_BYTES), value, f"must be at most {MAX_MAX_BYTES} (2 GiB: an export is built in "
                              "memory before its atomic write)")
    return value


def decide_seconds(value: float | None = None) -> float:
    """``value`` checked (seconds in ``[MIN_DECIDE_SECONDS, MAX_DECIDE_SECONDS]``), or the limit in force when None.

    >>> decide_seconds(1e-9)
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: --decide-seconds (decide_seconds=): must be a number of seconds in ...
    """
    if value is None:
        return current().decide_seconds
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not (MIN_DECIDE_SECONDS <= value <= MAX_DECIDE_SECONDS):
        raise ValidationError(_field(_DECIDE), value, f"must be a number of seconds in [{MIN_DECIDE_SECONDS:g}, "
                              f"{MAX_DECIDE_SECONDS:g}] (a shorter limit would round to none, a longer one limits "
                              "nothing)")
    return float(value)


def _how(names: tuple[str, str]) -> str:
    return f"raise it with {names[0]}, or {names[1]}= in Python"


def busy_steps(spans: Iterable[tuple[int, int]]) -> int:
    """The number of steps in the union of ``[a, a + o)`` over ``(arrival, output)`` pairs: a lower
    bound on the decisions of a step-by-step run, in which a request waits or runs at every step
    from its arrival until its completion, at least ``o`` steps later.

    >>> busy_steps([(0, 10**12)])
    1000000000000
    """
    total, reach = 0, None
    for a, o in sorted(spans):
        end = a + o
        if reach is None or a >= reach:
            total += o
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def check_steps(estimate: int, limit: int | None, what: str) -> None:
    """Refuse a run of at least ``estimate`` steps past the limit (``limit``, or the one in force),
    before its first step."""
    limit = max_steps(limit)
    if estimate > limit:
        raise LimitError(f"{what}: at least {estimate} steps, past the limit of {limit} steps ({_how(_STEPS)})")


def steps_exceeded(limit: int, what: str) -> LimitError:
    """The error of a run that reached the limit while running (restarts, or a livelock)."""
    return LimitError(f"{what}: no complete schedule within the limit of {limit} steps (a livelock, or a longer "
                      f"run: {_how(_STEPS)})")


def check_bytes(estimate: int, limit: int | None, what: str) -> None:
    """Refuse to build a file of at least ``estimate`` bytes past the limit, before allocating it."""
    limit = max_bytes(limit)
    if estimate > limit:
        raise LimitError(f"{what}: at least {estimate} bytes, past the limit of {limit} bytes ({_how(_BYTES)})")


def decide_expired(limit: float, who: str) -> str:
    """The one line of a ``decide()`` call stopped at its limit (in this process or in a worker's).

    >>> decide_expired(0.5, "scheduler 'x'")[:56]
    "scheduler 'x': a decide() call ran past its limit of 0.5"
    """
    return f"{who}: a decide() call ran past its limit of {limit:g} s ({_how(_DECIDE)})"


class _Expired(BaseException):
    """Raised by the alarm inside the limited call: a BaseException, so that the user's
    ``except Exception`` cannot swallow it."""


@contextlib.contextmanager
def time_limited(seconds: float | None, who: str) -> Iterator[Callable[..., Any]]:
    """A caller ``call(function, *args)`` that runs each call under a limit of ``seconds`` (or the
    one in force), for one run of many calls; a call past it raises :class:`~geosched.errors.LimitError`
    naming ``who`` and the limit.

    In the main thread the limit is ``SIGALRM`` (``setitimer``), armed around each call and disarmed
    after it: nothing runs beside the call, and an interval timer armed by an enclosing caller (a
    test's own time limit) is kept and re-armed with what is left of it. Elsewhere a late call is
    detected when it returns.

    >>> with time_limited(0.5, "scheduler 'demo'") as call:
    ...     call(sum, [1, 2])
    3
    """
    limit = decide_seconds(seconds)
    message = decide_expired(limit, who)
    with work_limits(decide_seconds=limit):  # the limit in force for the calls (a worker process reads it)
        if threading.current_thread() is not threading.main_thread():
            yield _measured(limit, message)
            return
        with _alarmed(limit, message) as call:
            yield call


@contextlib.contextmanager
def _alarmed(limit: float, message: str) -> Iterator[Callable[..., Any]]:
    """:func:`time_limited` in the main thread: ``SIGALRM`` around each call."""
    outer_handler = signal.getsignal(signal.SIGALRM)
    armed, inside = [False], [False]

    def expire(signum: int, frame: Any) -> None:
        if not armed[0]:  # the enclosing timer's alarm, between calls: its handler's
            _delegate(outer_handler, signum, frame)
        elif inside[0]:  # ours, during the call (an alarm of ours after the call returned is ignored)
            raise _Expired

    def call(function: Callable[..., Any], *args: Any) -> Any:
        outer = signal.getitimer(signal.ITIMER_REAL)[0]
        if outer and outer <= limit:  # an enclosing timer fires first: under its own handler
            signal.signal(signal.SIGALRM, outer_handler)
            try:
                return function(*args)
            finally:
                signal.signal(signal.SIGALRM, expire)
        began = time.monotonic()
        armed[0] = True
        signal.setitimer(signal.ITIMER_REAL, limit)
        inside[0] = True
        try:
            return function(*args)
        except _Expired:
            raise LimitError(message) from None
        finally:
            inside[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            armed[0] = False
            if outer:  # what is left of the enclosing timer (at least a moment: it must still fire)
                signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - began), 1e-3))

    signal.signal(signal.SIGALRM, expire)
    try:
        yield call
    finally:
        signal.signal(signal.SIGALRM, outer_handler)


def _delegate(handler: Any, signum: int, frame: Any) -> None:
    """Run ``handler`` for a signal it was installed for (the default action: the signal again)."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)


def _measured(limit: float, message: str) -> Callable[..., Any]:
    def call(function: Callable[..., Any], *args: Any) -> Any:
        began = time.monotonic()
        result = function(*args)
        if time.monotonic() - began > limit:
            raise LimitError(message)
        return result

    return call
