"""The main thread's waits end on a signal that landed in another thread (geosched._signal_waits).

Each case runs in a process of its own: the main thread waits for something that never ends (a future never
set, a thread that never returns) while a helper thread sends SIGUSR1 to itself every 0.05 s (``pthread_kill``:
the signal lands there, as the kernel may place a process-directed SIGTERM). The Python handler, which only the
main thread runs, raises once it runs inside the wait (a signal handled before the wait began is let go, so that a
pass always means the wait was ended); the wait must end with it. Written plainly (``future.result()``,
``thread.join()``, ``concurrent.futures.wait``; the mutation, tried) the same waits hang until the bound below.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

_SCRIPT = """
import concurrent.futures, os, signal, sys, threading
from geosched import _signal_waits

class Stopped(Exception):
    pass

def handler(signum, frame):
    if frame is not None and frame.f_code.co_filename != "<string>":  # inside the wait, not before it
        raise Stopped

signal.signal(signal.SIGUSR1, handler)
never = concurrent.futures.Future()
idle = threading.Thread(target=threading.Event().wait, daemon=True)
idle.start()
waits = {"result": lambda: _signal_waits.result(never), "join": lambda: _signal_waits.join(idle),
         "wait_first": lambda: _signal_waits.wait_first([never])}

def sender():
    while not threading.Event().wait(0.05):
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)  # to this thread, never the main one

threading.Thread(target=sender, daemon=True).start()
try:
    waits[sys.argv[1]]()
except Stopped:
    print("stopped", flush=True)
    os._exit(0)  # at once: the sender keeps signalling, and a handler run during the interpreter's shutdown is noise
"""


@pytest.mark.parametrize("wait", ["result", "join", "wait_first"])
def test_a_signal_landed_in_another_thread_ends_the_wait(wait):
    done = subprocess.run([sys.executable, "-c", _SCRIPT, wait], capture_output=True, text=True,
                          timeout=300, check=False)  # a bound for a hung process, not a timing
    assert (done.returncode, done.stdout.strip()) == (0, "stopped"), done.stderr


def test_what_is_waited_for_is_unchanged():
    import concurrent.futures
    import threading

    from geosched import _signal_waits

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert _signal_waits.result(pool.submit(pow, 2, 10)) == 1024
        failing = pool.submit(int, "x")
        with pytest.raises(ValueError):
            _signal_waits.result(failing)
        gate = threading.Event()
        slow, quick = pool.submit(gate.wait), pool.submit(abs, -3)
        assert _signal_waits.wait_first([slow, quick]) == {quick}
        gate.set()
        assert _signal_waits.wait_first([]) == set()
    thread = threading.Thread(target=gate.wait)
    thread.start()
    _signal_waits.join(thread)
    assert not thread.is_alive()
    blocked = threading.Thread(target=threading.Event().wait, daemon=True)
    blocked.start()
    _signal_waits.join(blocked, timeout=0.01)  # returns at its timeout, as Thread.join does
    assert blocked.is_alive()
