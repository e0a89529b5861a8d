"""A stopped command leaves no Coq build behind (issue 44): SIGTERM or Ctrl-C reaching ``geosched claims`` while its
background Coq build compiles kills every coqc it started and removes the build's working folder; the cache keeps
what it had (here: nothing, it was empty).

A real ``geosched claims`` is started on an empty cache (``GEOSCHED_COQ_CACHE``), stopped as soon as one of its coqc
processes runs (seen in ``/proc``: a coqc whose working folder lies in that cache), and then ``/proc`` and the cache
are read. The waits are bounded by counts of polls, never by a measured time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from geosched.verify import coq_engine

needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")
_POLLS = 6000  # 0.05 s each at most: the bound of every wait below


def coq_processes_in(folder: Path, compiling: bool = False) -> list[int]:
    """The coq tools (coqc, coqchk, coqdep) running with their working folder inside ``folder``; with ``compiling``,
    only a coqc compiling a file (not the short ``--version``/``-where`` probes, nor coqdep)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            cwd = os.readlink(entry / "cwd")
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if compiling and (name != "coqc" or b"--version" in words or b"-where" in words):
            continue
        if name.startswith("coq") and (cwd == str(folder) or cwd.startswith(f"{folder}/")):
            found.append(int(entry.name))
    return found


def _as_from_a_terminal() -> None:
    """In the child before exec: Ctrl-C and SIGTERM with their default disposition and not blocked, as a command
    started from a terminal has them. A process inherits an ignored signal (a shell's background job) and the
    forking thread's blocked signals (a test worker's thread may block SIGINT); geosched rightly leaves both as it
    finds them, and the SIGINT case would then wait for a build that never ends (reproduced both ways)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def _signal_masks(pid: int) -> str:
    """The process's blocked, ignored and caught signals, as /proc shows them (for a failure's message)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return "(gone)"
    return " ".join(line.replace("\t", "") for line in lines if line.startswith(("SigBlk", "SigIgn", "SigCgt")))


def _pause() -> None:
    threading.Event().wait(0.05)


def _slow_coqc(folder: Path) -> Path:
    """A ``coqc`` that answers ``--version`` and ``-where`` as the real one and otherwise never ends (a file that
    takes long to compile): a stop must kill it, not wait for it."""
    import shutil

    real = shutil.which("coqc")
    folder.mkdir()
    (folder / "coqc").write_text(f"""#!/bin/bash
case " $* " in *" --version "*|*" -where "*) exec {real} "$@";; esac
while :; do sleep 1; done
""")
    (folder / "coqc").chmod(0o755)
    return folder


_TGKILL = {"x86_64": 234, "aarch64": 131}.get(os.uname().machine)  # the syscall's number (Python has no tgkill)


def _to_another_thread(pid: int, signum: int) -> None:
    """Send ``signum`` to one thread of ``pid`` other than its main thread (the lowest such id), as the kernel may
    place a process-directed signal: CPython runs the handler in the main thread alone, and a main thread asleep in
    an untimed wait never did (CI: SIGTERM ignored for minutes; geosched._signal_waits)."""
    import ctypes

    others = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
    assert others, "geosched runs its build in a thread of its own"
    if ctypes.CDLL(None, use_errno=True).syscall(_TGKILL, pid, others[0], int(signum)) != 0:
        raise OSError(ctypes.get_errno(), "tgkill")


@needs_coq
@pytest.mark.parametrize("signum, slow, to", [(signal.SIGTERM, False, "process"), (signal.SIGTERM, True, "process"),
                                              (signal.SIGINT, True, "process"), (signal.SIGTERM, True, "thread")],
                         ids=["SIGTERM", "SIGTERM-slow-file", "SIGINT-slow-file", "SIGTERM-to-a-build-thread"])
def test_a_stopped_claims_leaves_no_coqc_and_no_build_folder(tmp_path, signum, slow, to):
    if to == "thread" and _TGKILL is None:
        pytest.skip(f"tgkill's number on {os.uname().machine} is not listed here")
    cache = tmp_path / "cache"
    # PYTHONFAULTHANDLER: a hung process is asked for its threads' stacks (SIGABRT) before it is killed
    env = {**os.environ, "GEOSCHED_COQ_CACHE": str(cache), "PYTHONFAULTHANDLER": "1"}
    if slow:
        env["PATH"] = f"{_slow_coqc(tmp_path / 'bin')}{os.pathsep}{env['PATH']}"
    command = [sys.executable, "-m", "geosched", "claims", "--claim", "kong.volume"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,  # its own group: the signal reaches geosched alone, not coqc
                            preexec_fn=_as_from_a_terminal)
    try:
        # a coqc compiling a file, seen once: a probe or coqdep may come and go between two looks, and a real
        # file may be compiled by the time the signal comes (the build is under way either way)
        seen: list[int] = []
        for _ in range(_POLLS):
            seen = coq_processes_in(cache, compiling=True)
            if seen or proc.poll() is not None:
                break
            _pause()
        assert seen, f"no coqc seen: {proc.poll()} {proc.stderr.read() if proc.poll() is not None else ''}"
        masks = _signal_masks(proc.pid)
        if to == "thread":
            _to_another_thread(proc.pid, signum)
        else:
            proc.send_signal(signum)
        try:
            _, err = proc.communicate(timeout=120)  # a bound for a hung process (a slow file never ends), not a timing
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            pytest.fail(f"no exit 120 s after {signum.name} ({masks}); its threads: "
                        f"{proc.communicate(timeout=60)[1][-8000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 128 + signum, err
    assert err.strip().splitlines()[-1].startswith("geosched: "), err  # the CLI's one line, no traceback
    assert "Traceback" not in err, err
    left = coq_processes_in(cache)
    for _ in range(_POLLS):  # a killed coqc disappears from /proc once reaped: no coqc may survive
        if not left:
            break
        _pause()
        left = coq_processes_in(cache)
    assert left == []
    assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == [], list(cache.iterdir())


_MECHANISM = """
import sys, threading
from pathlib import Path
from geosched.verify import coq_compile

tmp = Path(sys.argv[1])
folder = coq_compile.working_folder(tmp, ".work.")
(tmp / "sleep.py").write_text("import time; time.sleep(600)")
result = []

def run():
    try:
        result.append(coq_compile.run_measured("sleep", [sys.executable, str(tmp / "sleep.py")], folder, timeout=600))
    except coq_compile.BuildStopped as exc:
        result.append(exc)

runner = threading.Thread(target=run)
runner.start()
for _ in range(6000):
    if coq_compile._Running.processes:
        break
    threading.Event().wait(0.05)
coq_compile.stop_all(wait_seconds=0.0)
runner.join(120)
again = coq_compile.working_folder(tmp, ".work.")
published = coq_compile.publish(again, tmp / "done", lambda f: (f / "build.json").write_text("{}"))
print(type(result[0]).__name__, folder.exists(), len(coq_compile._Running.processes), published,
      (tmp / "done" / "build.json").is_file())
"""


def test_a_stop_kills_the_processes_removes_the_folders_and_a_later_build_starts_afresh(tmp_path):
    """The mechanism without coqc, in a process of its own (a stop stops every build of its process): a stop kills
    the registered process (no verdict: BuildStopped), removes the working folder no build released, and once
    nothing of it is left a new build gets a folder and publishes it."""
    done = subprocess.run([sys.executable, "-c", _MECHANISM, str(tmp_path)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.stdout.split() == ["BuildStopped", "False", "0", "True", "True"], done.stderr
