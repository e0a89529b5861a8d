"""Progress on stderr for every command: one reporter, never silent, never on stdout.

A command that can run past a few seconds is never silent. :func:`geosched.cli.main` opens one
:class:`Reporter` per command (:func:`reporting`, unless ``--quiet``); whatever runs inside reports
to it through the module functions :func:`update` (or :func:`stage`, :func:`count`, :func:`detail`) and
:func:`note`,
which do nothing when no reporter is open (a library call stays quiet):

* off a terminal (``tee``, CI, ``nohup``, a pipe) one line every few seconds
  (:data:`DEFAULT_INTERVAL`, or ``$GEOSCHED_PROGRESS_SECONDS``), e.g.
  ``claims: row 12/29, check 41/112, 41 s, now kong.thm3.2 coq:thm32_svf_competitive``;
* on a terminal the same text as one line redrawn in place, erased when the command ends;
* :func:`note` prints a line at once in both cases: what is about to take long and why (the first
  Coq build: "compiling the Coq proofs once (30 files on 2 workers; cached in DIR)", its estimate of what is left
  coming later from the files compiled so far);
* :func:`above` prints a result on stdout as soon as it is known (``geosched claims``' rows, as they
  finish): on a terminal the line is erased first and drawn again below it;
* :func:`hold_lock` takes an exclusive file lock and, while another process holds it, says so: what
  it waits for, which process holds it (its pid and command line, from the lock file) and since when,
  then a line every few seconds while waiting.

Nothing here reads the wall clock to decide a result: the clock only spaces the lines, and
:class:`Reporter` takes it (and the interval, the stream, whether it is a terminal) as arguments,
so that tests judge the lines by their content.

Example
-------
>>> import io
>>> ticks = iter([0.0, 0.0, 6.0, 6.0])
>>> out = io.StringIO()
>>> bar = Reporter("claims", total=29, unit="rows", stream=out, terminal=False, interval=5.0,
...                clock=lambda: next(ticks))
>>> bar.count(12)           # 0 s: before the first interval, no line
>>> bar.stage("kong.thm3.2")  # 6 s: a line
>>> print(out.getvalue().strip())
claims: 12/29 rows, 6 s, now kong.thm3.2
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["Reporter", "reporting", "current", "update", "stage", "staged", "count", "detail", "note", "above",
           "hold_lock", "lock_holder", "DEFAULT_INTERVAL", "INTERVAL_ENV", "interval_seconds"]

DEFAULT_INTERVAL = 5.0  # seconds between two lines off a terminal
INTERVAL_ENV = "GEOSCHED_PROGRESS_SECONDS"  # overrides it (a test sets 0: a line at every update)
_REDRAW = 0.2  # seconds between two redraws of the terminal line
_log = logging.getLogger("geosched.progress")


def interval_seconds() -> float:
    """The interval between lines off a terminal: ``$GEOSCHED_PROGRESS_SECONDS`` (a number >= 0),
    else :data:`DEFAULT_INTERVAL`."""
    text = os.environ.get(INTERVAL_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value >= 0 else DEFAULT_INTERVAL


class Reporter:
    """The progress of one command: a label, an optional count, a detail and the current stage.

    Parameters
    ----------
    label : str
        The command (``claims``), the first word of every line.
    total, unit : optional
        A count ``done/total unit`` (:meth:`count`); ``None``: no count is shown.
    stream : text stream, optional
        Where lines go (default: ``sys.stderr`` when the reporter is made).
    terminal : bool, optional
        Redraw one line in place (a terminal) or print lines (default: ``stream.isatty()``).
    interval : float, optional
        Seconds between lines off a terminal (default :func:`interval_seconds`).
    clock : callable, optional
        Seconds, monotonic (default :func:`time.monotonic`); a test passes a fake one.
    """

    def __init__(self, label: str, *, total: int | None = None, unit: str = "", stream: IO[str] | None = None,
                 terminal: bool | None = None, interval: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.done = 0
        self.now = ""  # the stage: what runs now
        self.extra = ""  # a figure of the run (a hunt's best ratio)
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = _isatty(self.stream) if terminal is None else terminal
        self.interval = interval_seconds() if interval is None else interval
        self.clock = clock
        self.started = clock()
        self._last = self.started  # when the last line was printed (off a terminal) or drawn
        self._drawn = False  # a terminal line is on screen
        self._closed = False
        self._lock = threading.RLock()

    # -- what the command reports

    def update(self, *, done: int | None = None, total: int | None = None, unit: str | None = None,
               detail: str | None = None, stage: str | None = None) -> None:
        """Set any of the count (``done`` of ``total`` ``unit``), the figure shown before the stage
        (``detail``: a hunt's best ratio) and the stage (``stage``: ``now TEXT``), then one :meth:`tick`."""
        with self._lock:
            for name, value in (("done", done), ("total", total), ("unit", unit), ("extra", detail), ("now", stage)):
                if value is not None:
                    setattr(self, name, value)
        self.tick()

    def stage(self, text: str) -> None:
        """What runs now (``now TEXT`` in the line)."""
        self.update(stage=text)

    def count(self, done: int, total: int | None = None, unit: str | None = None) -> None:
        """``done`` of ``total`` (kept when not given) items done or under way."""
        self.update(done=done, total=total, unit=unit)

    def detail(self, text: str) -> None:
        """A figure of the run shown before the stage (``best found 1.31 (not yet certified)``)."""
        self.update(detail=text)

    def note(self, text: str) -> None:
        """A line now, in both modes: what is about to take long, a wait, a warning."""
        with self._lock:
            if self._closed:
                return
            self._erase()
            self._write(f"{self.label}: {text}\n")
            self._last = self.clock()

    def above(self, text: str, stream: IO[str] | None = None) -> None:
        """Print ``text`` (a result: a ledger row) on ``stream`` (default ``sys.stdout``) now: on a terminal the
        progress line is erased first and drawn again below it, so the two never mix."""
        with self._lock:
            self._erase()
            out = stream if stream is not None else sys.stdout
            out.write(text if text.endswith("\n") else text + "\n")
            out.flush()
            if self.terminal and not self._closed:
                self._write("\r" + self.line()[:_columns() - 1] + "\x1b[K")
                self._drawn, self._last = True, self.clock()

    # -- the line

    def line(self) -> str:
        """The current line: ``LABEL: [done/total unit, ]ELAPSED s[, detail][, now STAGE]``."""
        parts = []
        if self.total is not None:
            parts.append(f"{self.done}/{self.total} {self.unit}".rstrip())
        elif self.done:
            parts.append(f"{self.done} {self.unit}".rstrip())
        parts.append(f"{self.clock() - self.started:.0f} s")
        parts += [self.extra] if self.extra else []
        parts += [f"now {self.now}"] if self.now else []
        return f"{self.label}: " + ", ".join(parts)

    def tick(self) -> None:
        """Print a line when the interval has passed since the last (off a terminal), or redraw the
        line (on one). Called on every update and by :func:`reporting`'s heartbeat thread."""
        with self._lock:
            if self._closed:
                return
            now = self.clock()
            if self.terminal:
                if now - self._last >= _REDRAW or not self._drawn:
                    self._write("\r" + self.line()[:_columns() - 1] + "\x1b[K")
                    self._drawn, self._last = True, now
            elif now - self._last >= self.interval:
                self._write(self.line() + "\n")
                self._last = now

    def close(self) -> None:
        """Erase the terminal line; no line after this."""
        with self._lock:
            self._erase()
            self._closed = True

    def _erase(self) -> None:
        if self._drawn:
            self._write("\r\x1b[K")
            self._drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: progress is never worth a crash
            self._closed = True


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _columns() -> int:
    try:
        return max(20, os.get_terminal_size(sys.stderr.fileno()).columns)
    except (OSError, ValueError, AttributeError):
        return 80


# --------------------------------------------------------------------------- the open reporter

_OPEN: list[Reporter] = []  # a stack: the innermost open reporter is the current one (any thread)
_OPEN_LOCK = threading.Lock()


def current() -> Reporter | None:
    """The innermost open reporter, or ``None`` (a library call: nothing is printed)."""
    with _OPEN_LOCK:
        return _OPEN[-1] if _OPEN else None


@contextlib.contextmanager
def reporting(label: str, *, enabled: bool = True, heartbeat: bool = True, **options) -> Iterator[Reporter | None]:
    """Open a :class:`Reporter` for the block (``options`` go to it) and make it the current one.

    With ``heartbeat``, a daemon thread calls :meth:`Reporter.tick`, so that a step that reports
    nothing for minutes (one long solver call, a compilation) still gets a line every interval.
    Yields ``None`` when not ``enabled`` (``--quiet``).
    """
    if not enabled:
        yield None
        return
    reporter = Reporter(label, **options)
    with _OPEN_LOCK:
        _OPEN.append(reporter)
    stop = threading.Event()
    thread = None
    if heartbeat:
        period = _REDRAW if reporter.terminal else max(reporter.interval, 1.0)
        thread = threading.Thread(target=_beat, args=(reporter, stop, period), name="geosched-progress", daemon=True)
        thread.start()
    try:
        yield reporter
    finally:
        stop.set()
        if thread is not None:
            thread.join()
        reporter.close()
        with _OPEN_LOCK:
            _OPEN.remove(reporter)


def _beat(reporter: Reporter, stop: threading.Event, period: float) -> None:
    while not stop.wait(period):
        reporter.tick()


def update(**fields) -> None:
    """:meth:`Reporter.update` of the current reporter (nothing when none is open)."""
    reporter = current()
    if reporter is not None:
        reporter.update(**fields)


def stage(text: str) -> None:
    """Tell the current reporter what runs now (nothing when none is open)."""
    reporter = current()
    if reporter is not None:
        reporter.stage(text)


def count(done: int, total: int | None = None, unit: str | None = None) -> None:
    """Tell the current reporter how many items are done (nothing when none is open)."""
    reporter = current()
    if reporter is not None:
        reporter.count(done, total, unit)


def detail(text: str) -> None:
    """Tell the current reporter a figure of the run (nothing when none is open)."""
    reporter = current()
    if reporter is not None:
        reporter.detail(text)


@contextlib.contextmanager
def staged(text: str) -> Iterator[Reporter | None]:
    """The current reporter's stage is ``text`` for the block, then what it was (nothing when none is open)."""
    reporter = current()
    if reporter is None:
        yield None
        return
    before = reporter.now
    reporter.stage(text)
    try:
        yield reporter
    finally:
        reporter.stage(before)


def above(text: str) -> None:
    """Print ``text`` on stdout now, above the current reporter's line (plainly when none is open)."""
    reporter = current()
    if reporter is not None:
        reporter.above(text)
    else:
        print(text, flush=True)


def note(text: str) -> None:
    """A line now on the current reporter; without one, an INFO log record (a library call)."""
    reporter = current()
    if reporter is not None:
        reporter.note(text)
    else:
        _log.info(text)


# --------------------------------------------------------------------------- waiting on a lock


def lock_holder(path: str | Path) -> str:
    """Who holds the lock ``path``, as its holder wrote it: ``pid N (COMMAND) since TIME``, or ``an
    unknown process`` when the file says nothing readable."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        text = ""
    return text.splitlines()[0] if text else "an unknown process"


def _describe_self() -> str:
    try:
        command = Path("/proc/self/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        command = " ".join(sys.argv)
    command = " ".join(command.split())  # one line
    if len(command) > 120:
        command = command[:117] + "..."
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
    return f"pid {os.getpid()} ({command}) since {since}"


@contextlib.contextmanager
def hold_lock(path: str | Path, what: str, *, poll: float = 0.5) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` for the block (``fcntl.flock``; released when the
    process dies). When another process holds it, :func:`note` says what is waited for (``what``),
    who holds it and since when, and the current reporter's stage says it is still waiting, so its
    heartbeat prints a line every interval; ``poll`` seconds between two attempts.

    The holder writes ``pid N (COMMAND) since TIME`` into the file (read by :func:`lock_holder`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked_file(path, lambda: _describe_self() + "\n", lambda handle: _wait_for_lock(handle, path, what, poll)):
        yield


@contextlib.contextmanager
def locked_file(path: str | Path, holder: Callable[[], str], on_busy: Callable[[int], None]) -> Iterator[None]:
    """The one way geosched holds a lock file: ``fcntl.flock`` on ``path`` for the block, ``holder()`` written in
    the file while it is held (what a waiting process reads), the file emptied and the lock released after.

    When another process holds the lock, ``on_busy(handle)`` either raises (a writer refuses at once:
    :func:`geosched.output.writer_lock`) or returns once it has taken the lock (:func:`hold_lock` waits).
    The kernel drops the lock when its holder dies, even by SIGKILL: no lock outlives its process.

    Examples
    --------
    >>> import os, tempfile
    >>> lock = os.path.join(tempfile.mkdtemp(), "demo.lock")
    >>> with locked_file(lock, lambda: "pid 1: demo", on_busy=lambda handle: None):
    ...     print(open(lock).read())
    pid 1: demo
    >>> open(lock).read()  # emptied once released
    ''
    """
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)  # never truncated before the lock is ours
    try:
        if not _try_lock(handle):
            on_busy(handle)
        os.ftruncate(handle, 0)
        os.pwrite(handle, holder().encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(handle, 0)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)


def _try_lock(handle: int) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _wait_for_lock(handle: int, path: Path, what: str, poll: float) -> None:
    holder = lock_holder(path)
    note(f"waiting for {what} ({path}), held by {holder}")
    reporter = current()
    before = reporter.now if reporter is not None else ""
    began = time.monotonic()
    while not _try_lock(handle):
        stage(f"waiting for {what}, held by {holder} ({time.monotonic() - began:.0f} s so far)")
        time.sleep(poll)
    if reporter is not None:
        reporter.stage(before)
    note(f"got {what} after {time.monotonic() - began:.0f} s")
