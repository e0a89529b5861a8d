"""Waits that a signal can end: the main thread's waits for other threads, woken every :data:`POLL` seconds.

CPython runs a Python signal handler only in the main thread, and the kernel may deliver a process-directed
signal (``kill PID``, SIGTERM from a supervisor) to any thread that does not block it. The C-level handler then
only marks the signal as pending; a main thread asleep in an untimed lock wait (``Future.result()``,
``Thread.join()``, ``concurrent.futures.wait``) is not woken by it, and the command's SIGTERM and Ctrl-C handling
(:mod:`geosched.cli`) never runs: ``geosched claims`` waited for its Coq build for minutes after a SIGTERM that
had landed in a build thread (CI, reproduced by sending the signal to that thread with ``tgkill``). The waits
below give the interpreter a moment every :data:`POLL` seconds, where a pending handler runs and its exception
ends the wait; what they wait for is unchanged.

Example
-------
>>> import concurrent.futures
>>> with concurrent.futures.ThreadPoolExecutor(1) as pool:
...     result(pool.submit(pow, 2, 10))
1024
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Collection
from typing import Any

__all__ = ["POLL", "result", "join", "wait_first"]

POLL = 0.1  # seconds between two looks at a pending signal (the delay it adds to a stop, at most)


def result(future: concurrent.futures.Future) -> Any:
    """``future.result()``, waited for in steps of :data:`POLL` seconds (its exception raised as there)."""
    while not future.done():
        concurrent.futures.wait((future,), timeout=POLL)
    return future.result()


def join(thread: threading.Thread, timeout: float | None = None) -> None:
    """``thread.join(timeout)``, waited for in steps of :data:`POLL` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while thread.is_alive():
        left = POLL if deadline is None else min(POLL, deadline - time.monotonic())
        if left <= 0:
            return
        thread.join(left)


def wait_first(futures: Collection[concurrent.futures.Future]) -> set[concurrent.futures.Future]:
    """The futures of ``futures`` that are done, once one is (``wait(..., return_when=FIRST_COMPLETED)``),
    waited for in steps of :data:`POLL` seconds; none of them: none."""
    while futures:
        done, _ = concurrent.futures.wait(futures, timeout=POLL, return_when=concurrent.futures.FIRST_COMPLETED)
        if done:
            return done
    return set()
