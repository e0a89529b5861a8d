"""Progress on stderr (geosched.progress): lines off a terminal, judged by content, never by wall time.

The reporter takes its clock, interval, stream and terminal flag as arguments: the unit tests drive a
fake clock; the command tests set ``$GEOSCHED_PROGRESS_SECONDS`` to 0 (a line at every update, whatever
the machine's load) where the suite's conftest spaces lines an hour apart.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time

from geosched import progress
from geosched.cli import main
from geosched.progress import Reporter


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _reporter(clock: FakeClock, *, terminal: bool = False, **options) -> tuple[Reporter, io.StringIO]:
    out = io.StringIO()
    return Reporter("claims", stream=out, terminal=terminal, interval=5.0, clock=clock, **options), out


def test_off_a_terminal_a_line_every_interval_with_count_elapsed_and_stage():
    clock = FakeClock()
    bar, out = _reporter(clock, total=29, unit="rows")
    bar.count(1)
    bar.stage("kong.volume derivation")
    assert out.getvalue() == ""  # nothing before the first interval
    clock.now += 41
    bar.count(12)  # the interval has passed: a line
    bar.update(detail="check 41/112", stage="kong.thm3.2 coq:thm32_svf_competitive")  # within it: none
    lines = out.getvalue().splitlines()
    assert lines == ["claims: 12/29 rows, 41 s, now kong.volume derivation"]  # one line per interval
    clock.now += 2
    bar.tick()
    assert len(out.getvalue().splitlines()) == 1
    clock.now += 3
    bar.tick()  # the heartbeat: a line although nothing changed
    last = out.getvalue().splitlines()[-1]
    assert last == "claims: 12/29 rows, 46 s, check 41/112, now kong.thm3.2 coq:thm32_svf_competitive"
    bar.close()
    clock.now += 60
    bar.tick()
    bar.note("after the end")
    assert len(out.getvalue().splitlines()) == 2  # nothing once closed


def test_a_note_is_a_line_at_once_and_restarts_the_interval():
    clock = FakeClock()
    bar, out = _reporter(clock)
    bar.note("compiling the Coq proofs once (about 9 minutes)")
    assert out.getvalue() == "claims: compiling the Coq proofs once (about 9 minutes)\n"
    clock.now += 4
    bar.tick()
    assert out.getvalue().count("\n") == 1
    clock.now += 1
    bar.tick()
    assert out.getvalue().splitlines()[-1] == "claims: 5 s"


def test_on_a_terminal_one_line_redrawn_and_erased():
    clock = FakeClock()
    bar, out = _reporter(clock, terminal=True)
    bar.stage("kong.volume derivation")
    assert out.getvalue() == "\rclaims: 0 s, now kong.volume derivation\x1b[K"
    bar.note("a note")
    assert out.getvalue().endswith("\r\x1b[Kclaims: a note\n") and "\n" not in out.getvalue()[:-1]
    clock.now += 1
    bar.tick()
    bar.close()
    assert out.getvalue().endswith("\rclaims: 1 s, now kong.volume derivation\x1b[K\r\x1b[K")


def test_module_functions_reach_the_open_reporter_and_nothing_else(caplog):
    progress.stage("no reporter: nothing happens")
    with caplog.at_level("INFO", logger="geosched.progress"):
        progress.note("a library call logs its notes")
    assert "a library call logs its notes" in caplog.text
    out = io.StringIO()
    with progress.reporting("hunt", stream=out, terminal=False, interval=0.0, heartbeat=False) as bar:
        progress.count(3, 10, "restarts")
        progress.detail("best certified ratio 1.5")
        progress.stage("anneal")
        progress.note("a note")
        assert progress.current() is bar
    assert progress.current() is None
    lines = out.getvalue().splitlines()
    assert lines[-2] == "hunt: 3/10 restarts, 0 s, best certified ratio 1.5, now anneal" and lines[-1] == "hunt: a note"
    with progress.reporting("hunt", enabled=False) as bar:
        assert bar is None and progress.current() is None


def test_the_interval_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(progress.INTERVAL_ENV, "2.5")
    assert progress.interval_seconds() == 2.5
    for bad in ("-1", "soon", ""):
        monkeypatch.setenv(progress.INTERVAL_ENV, bad)
        assert progress.interval_seconds() == progress.DEFAULT_INTERVAL


def test_claims_reports_off_a_terminal_and_quiet_silences_it(monkeypatch, capsys):
    monkeypatch.setenv(progress.INTERVAL_ENV, "0")  # a line at every update: judged by content, not time
    assert main(["claims", "--quick", "--claim", "kong.volume", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["claims"]  # stdout stays one JSON object
    lines = captured.err.splitlines()
    assert lines and all(line.startswith("claims: ") for line in lines), lines[:5]
    assert any("1/1 rows" in line and "check 1/" in line and "now kong.volume derivation" in line for line in lines)
    for flag in ("--quiet", "--no-progress"):
        assert main(["claims", "--quick", "--claim", "kong.volume", flag]) == 0
        assert capsys.readouterr().err == ""


def test_every_command_reports_through_the_one_reporter(monkeypatch, capsys):
    monkeypatch.setenv(progress.INTERVAL_ENV, "0")
    assert main(["opt", "burst:n=9,seed=1", "--time-limit", "5"]) == 0
    err = capsys.readouterr().err
    assert "opt: " in err and "now opt[auto]" in err and "TEL " in err and "bound " in err
    assert main(["opt", "burst:n=9,seed=1", "--time-limit", "5", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_prove_reports_the_ledger_checks(monkeypatch, capsys):
    monkeypatch.setenv(progress.INTERVAL_ENV, "0")
    assert main(["prove", "kong.volume"]) == 0
    err = capsys.readouterr().err
    assert "prove: " in err and "now kong.volume derivation" in err


def test_the_coq_build_says_it_compiles_once_and_estimates_from_measured_progress(monkeypatch, tmp_path):
    """Issue 44: the estimate comes from measured progress (each file's CPU in this machine's last build, or the
    files done), never a constant."""
    from geosched.verify import coq_engine

    earlier = tmp_path / "0123456789abcdef"
    earlier.mkdir()
    (earlier / "build.json").write_text(json.dumps({"files": {
        "Model": {"status": "ok", "cpu_seconds": 1.0}, "Svf": {"status": "ok", "cpu_seconds": 3.0}}}))
    assert coq_engine.recorded_weights(tmp_path) == {"Model": 1.0, "Svf": 3.0}
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: [])
    monkeypatch.setattr(coq_engine, "source_hash", lambda: ("f" * 64, "coqc fake"))
    monkeypatch.setattr(coq_engine, "cache_root", lambda: tmp_path)
    monkeypatch.setattr(coq_engine, "_build_into", lambda target, digest, coqc, progress: {
        "status": "failed", "message": "coqc: not run in this test", "failed_step": "coqc"})
    out = io.StringIO()
    with progress.reporting("claims", stream=out, terminal=False, heartbeat=False):
        result = coq_engine.build()
    assert result.status == "failed"
    files = len(coq_engine.expected_files())
    assert out.getvalue().startswith(f"claims: compiling the Coq proofs once ({files} files on ")
    ticks = iter([0.0, 10.0, 40.0])
    line = coq_engine._StageLine(tmp_path, clock=lambda: next(ticks))
    stages = []
    monkeypatch.setattr(coq_engine, "stage", stages.append)
    line(1, 2, "Model")  # 1 of 4 recorded CPU seconds done in 10 s: 30 s left
    line(2, 2, "Svf")
    assert stages == ["compiling the Coq proofs (once): 1/2 steps, about 30 s left at this rate",
                      "compiling the Coq proofs (once): 2/2 steps"]
    ticks = iter([0.0, 8.0])
    unrecorded = coq_engine._StageLine(tmp_path / "none", clock=lambda: next(ticks))
    stages.clear()
    unrecorded(1, 5, "Model")  # no recorded build: the files done, 1 of 5 in 8 s
    assert stages == ["compiling the Coq proofs (once): 1/5 steps, about 32 s left at this rate"]


_HOLDER = """
import sys
from geosched.progress import hold_lock
with hold_lock(sys.argv[1], "the test's lock"):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes stdin
"""


def test_a_held_lock_says_who_holds_it_and_waits(tmp_path):
    lock = tmp_path / "build.lock"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        out = io.StringIO()
        got = threading.Event()

        def waiter() -> None:
            with progress.reporting("simulate", stream=out, terminal=False, interval=0.0, heartbeat=False):
                with progress.hold_lock(lock, "the Coq build lock", poll=0.05):
                    got.set()

        thread = threading.Thread(target=waiter, daemon=True)
        thread.start()
        for _ in range(2000):  # a bound against a hang, not a measure: the test judges the text
            if "now waiting for" in out.getvalue():
                break
            time.sleep(0.05)
        assert not got.is_set()  # still waiting while the other process holds the lock
        lines = out.getvalue().splitlines()
        first = lines[0]
        assert first.startswith(f"simulate: waiting for the Coq build lock ({lock}), held by pid {holder.pid} (")
        assert " since " in first and "hold_lock" in first  # the holder's command line
        assert any(re.fullmatch(rf"simulate: \d+ s, now waiting for the Coq build lock, held by pid {holder.pid} .*"
                                rf"\(\d+ s so far\)", line) for line in lines)
    finally:
        holder.stdin.close()
        holder.wait()
    thread.join(timeout=60)
    assert got.is_set()
    assert out.getvalue().splitlines()[-1].startswith("simulate: got the Coq build lock after ")
    assert lock.read_text() == ""  # released: the holder line is gone


def test_no_progress_code_outside_the_one_reporter():
    """One helper, no copies: no command draws its own bar or prints its own progress lines."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offenders = []
    for folder in ("geosched", "reference_impl", "verify", "adversary", "theory", "docs"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text()
            if "tqdm" in text or ("isatty()" in text and path.name != "progress.py"):
                offenders.append(str(path.relative_to(root)))
    assert offenders == []


def test_progress_never_reaches_stdout(monkeypatch):
    env = dict(os.environ, **{progress.INTERVAL_ENV: "0"})
    done = subprocess.run([sys.executable, "-m", "geosched", "claims", "--quick", "--claim", "kong.volume",
                           "--json"], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and json.loads(done.stdout)["claims"][0]["id"] == "kong.volume"
    assert "claims: 1/1 rows" in done.stderr
