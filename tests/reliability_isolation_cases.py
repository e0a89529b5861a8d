"""The reliability campaign's categories of issue 41, items 4 and 5, as data.

* ``user schedulers``: a scheduler file whose ``decide()`` retries a sleep under ``except BaseException``,
  runs one long call into C, raises ``SystemExit(0)``, or whose file imports a local module: under the
  per-call limit each is one line, exit 2; sent SIGTERM or Ctrl-C while it decides (under ``simulate``,
  ``hunt``, ``hunt-small``), the command ends in one line, exit 143 or 130, and no worker is left;
* ``signals``: SIGTERM and Ctrl-C to commands without ``--resume`` (their line must not promise it),
  Ctrl-C to ``z3-bisect`` while Z3 searches (never a traceback), SIGTERM to ``serve-model`` (its
  ``server.json`` written);
* ``second writers``: ``hunt-small --out F`` and ``claims --out D`` while another geosched writes the same
  target: one line, exit 2;
* ``server bodies``: malformed request bodies to ``serve-model`` (deep nesting, ``stream_options`` not an
  object, ...): each answered with HTTP 400, the server goes on.

No case waits on a clock for its verdict: a signal is sent once the command is where it should be (the
scheduler has written ``DECIDING``, the server has printed its port, Z3 has begun), with a deadline that
only bounds a run that never gets there.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from cli_harness import CliRun, run_cli, snapshot
from reliability_cases import Case

ROOT = Path(__file__).resolve().parent.parent
WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_burst_ratio15.264.json"
PROBE = "DECIDING"  # written by a scheduler when its decide() begins: the moment to send a signal

SCHEDULERS = f'''
import pathlib
import time


class _Base:
    name = "held"
    clairvoyant = True
    preempts = False
    probe = True  # write {PROBE} when decide() begins (the signal cases wait for it)

    def began(self):
        if self.probe:
            pathlib.Path("{PROBE}").write_text("x")


class Stubborn(_Base):
    def decide(self, state):
        self.began()
        while True:
            try:
                time.sleep(3600)
            except BaseException:
                pass


class LongC(_Base):
    def decide(self, state):
        self.began()
        return sum(range(10**13))


class QuietStubborn(Stubborn):
    probe = False


class QuietLongC(LongC):
    probe = False


class Exits(_Base):
    def decide(self, state):
        raise SystemExit(0)
'''
LOCAL = "import helper_beside\nfrom held import Stubborn\n"
SMALL = json.dumps({"memory": 12, "requests": [{"id": "r0", "arrival": 0, "prompt": 6, "output": 3},
                                                {"id": "r1", "arrival": 0, "prompt": 1, "output": 5}]})
FILES = {"held.py": SCHEDULERS, "local.py": LOCAL, "helper_beside.py": "X = 1\n", "w.json": SMALL}
DEADLINE = 120.0  # seconds: only a command that never reaches its probe (or never ends) meets it


def _geosched() -> list[str]:
    return [sys.executable, "-m", "geosched"]


def _signalled(sig: int, ready) -> object:
    """A runner: the command in its own process, ``sig`` once ``ready(folder, process, stderr so far)``, then its
    end; the probe file is the case's own and is not counted as a changed file."""
    def runner(case: Case, folder: Path) -> CliRun:
        before = snapshot(folder)
        proc = subprocess.Popen([*_geosched(), *case.argv], cwd=folder, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        give_up = time.monotonic() + DEADLINE
        while proc.poll() is None and not ready(folder) and time.monotonic() < give_up:
            time.sleep(0.05)
        proc.send_signal(sig)
        try:
            stdout, stderr = proc.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += f"\nstill running {DEADLINE:g} s after the signal (killed)"
        after = snapshot(folder)
        changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n) and n != PROBE)
        return CliRun(case.argv, proc.returncode, stdout, stderr, None, changed)

    return runner


def _deciding(folder: Path) -> bool:
    return (folder / PROBE).exists()


def user_scheduler_cases() -> list[Case]:
    c = "user schedulers"
    simulate = ["simulate", "w.json", "--policy"]
    hunt = ["hunt", "--policy", "held.py:Stubborn", "--requests", "3", "--memory", "12", "--method", "anneal",
            "--time", "60", "--quiet", "--out", "h", "--decide-seconds", "3000"]
    small = ["hunt-small", "--policy", "held.py:Stubborn", "--requests", "3", "--memory-range", "6", "8",
             "--alpha-min", "0.5", "--alpha-max", "0.75", "--quiet", "--decide-seconds", "3000"]
    return [
        Case(f"{c}: decide() retries under except BaseException, --decide-seconds 0.5",
             [*simulate, "held.py:QuietStubborn", "--decide-seconds", "0.5"], FILES),
        Case(f"{c}: decide() in one long C call, --decide-seconds 0.5",
             [*simulate, "held.py:QuietLongC", "--decide-seconds", "0.5"], FILES),
        Case(f"{c}: decide() raises SystemExit(0)", [*simulate, "held.py:Exits"], FILES),
        Case(f"{c}: the file imports a local module", [*simulate, "local.py:Stubborn"], FILES),
        Case(f"{c}: SIGTERM while decide() retries (simulate)",
             [*simulate, "held.py:Stubborn", "--decide-seconds", "3000"], FILES, "terminated",
             runner=_signalled(signal.SIGTERM, _deciding)),
        Case(f"{c}: Ctrl-C while decide() retries (simulate)",
             [*simulate, "held.py:Stubborn", "--decide-seconds", "3000"], FILES, "interrupted",
             runner=_signalled(signal.SIGINT, _deciding)),
        Case(f"{c}: Ctrl-C in a long C call (simulate)", [*simulate, "held.py:LongC", "--decide-seconds", "3000"],
             FILES, "interrupted", runner=_signalled(signal.SIGINT, _deciding)),
        Case(f"{c}: SIGTERM while decide() retries (hunt)", hunt, FILES, "terminated",
             runner=_signalled(signal.SIGTERM, _deciding)),
        Case(f"{c}: Ctrl-C while decide() retries (hunt-small)", small, FILES, "interrupted",
             runner=_signalled(signal.SIGINT, _deciding)),
        Case(f"{c}: SIGTERM while decide() retries (hunt-small)", small, FILES, "terminated",
             runner=_signalled(signal.SIGTERM, _deciding)),
    ]


def _z3_runner(sig: int):
    """z3-bisect in its own process; ``sig`` once its first progress line says a query runs (a line at every
    update: ``GEOSCHED_PROGRESS_SECONDS=0``)."""
    def runner(case: Case, folder: Path) -> CliRun:
        before = snapshot(folder)
        proc = subprocess.Popen([*_geosched(), *case.argv], cwd=folder, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "GEOSCHED_PROGRESS_SECONDS": "0"})
        give_up = time.monotonic() + DEADLINE
        first = ""
        while proc.poll() is None and "z3-bisect" not in first and time.monotonic() < give_up:
            first = proc.stderr.readline()
        proc.send_signal(sig)
        try:
            stdout, stderr = proc.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += f"\nstill running {DEADLINE:g} s after the signal (killed)"
        after = snapshot(folder)
        changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
        stderr = "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith("z3-bisect: "))
        return CliRun(case.argv, proc.returncode, stdout, stderr, None, changed)  # without the progress lines

    return runner


def signal_cases() -> list[Case]:
    c = "signals"
    z3 = ["z3-bisect", "--policy", "svf", "--requests", "5", "--memory", "16", "--max-prompt", "6", "--max-output",
          "8", "--timeout", "60"]
    simulate = ["simulate", "w.json", "--policy", "held.py:Stubborn", "--decide-seconds", "3000"]
    return [
        Case(f"{c}: z3-bisect, Ctrl-C while Z3 searches", z3, {}, "interrupted", runner=_z3_runner(signal.SIGINT)),
        Case(f"{c}: z3-bisect, SIGTERM while Z3 searches", z3, {}, "terminated", runner=_z3_runner(signal.SIGTERM)),
        Case(f"{c}: simulate, SIGTERM (no --resume promised)", simulate, FILES, "terminated",
             runner=_signalled(signal.SIGTERM, _deciding)),
        Case(f"{c}: serve-model, SIGTERM writes server.json", ["serve-model", "e.jsonl", "--port", "0", "--out",
                                                                 "srv", "--timeout", "300"], _export_files,
             "terminated", runner=_server_runner([]), needs="vllm"),
    ]


def _export_files() -> dict[str, str]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        run = run_cli(["export", str(WITNESS), "--format", "vllm-bench", "--out", "e.jsonl", "--quiet"], Path(folder))
        assert run.code == 0, run.describe()
        return {"e.jsonl": Path(folder, "e.jsonl").read_text()}


BAD_BODIES = {
    "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
    "an object nested 5,000 deep": '{"a": ' * 5_000 + "1" + "}" * 5_000,
    "stream_options 'yes'": json.dumps({"prompt": [1, 2], "max_tokens": 2, "stream": True, "stream_options": "yes"}),
    "stream_options.include_usage 'yes'": json.dumps({"prompt": [1, 2], "max_tokens": 2, "stream": True,
                                                      "stream_options": {"include_usage": "yes"}}),
    "stream 1": json.dumps({"prompt": [1, 2], "max_tokens": 2, "stream": 1}),
    "n 2": json.dumps({"prompt": [1, 2], "max_tokens": 2, "n": 2}),
    "not JSON": "\xff\xfe{",
    "max_tokens null": json.dumps({"prompt": [1, 2], "max_tokens": None}),
    "prompt of lists": json.dumps({"prompt": [[1], [2]], "max_tokens": 2}),
}


def _post(port: int, body: str) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=body.encode("utf-8", "replace"),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _server_runner(bodies: list[str]):
    """serve-model in its own process: ``bodies`` posted (each must get HTTP 400, then one good request 200),
    then SIGTERM; ``srv/server.json`` must be written and say so. A wrong answer is appended to stderr."""
    def runner(case: Case, folder: Path) -> CliRun:
        before = snapshot(folder)
        proc = subprocess.Popen([*_geosched(), *case.argv], cwd=folder, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        wrong = []
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        if match:
            port = int(match.group(1))
            wrong += [f"{label}: HTTP {code}" for label in bodies if (code := _post(port, BAD_BODIES[label])) != 400]
            if bodies and (code := _post(port, json.dumps({"prompt": [1, 2], "max_tokens": 2}))) != 200:
                wrong.append(f"a good request after them: HTTP {code}")
        proc.send_signal(signal.SIGTERM)
        try:
            stdout, stderr = proc.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            stderr += f"\nstill running {DEADLINE:g} s after SIGTERM (killed)"
        record = folder / "srv" / "server.json"
        if not record.exists() or json.loads(record.read_text()).get("stopped") != "signal":
            wrong.append("no srv/server.json saying it was stopped by the signal")
        if wrong:
            stderr += "\nWRONG: " + "; ".join(wrong)
        after = snapshot(folder)
        changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n)
                         and not n.startswith("srv/"))  # what it served: the point of --out
        return CliRun(case.argv, proc.returncode, stdout, stderr, None, changed)

    return runner


def server_body_cases() -> list[Case]:
    return [Case("server bodies: serve-model, every malformed body a 400, then SIGTERM",
                 ["serve-model", "e.jsonl", "--port", "0", "--out", "srv", "--timeout", "300"], _export_files,
                 "terminated", runner=_server_runner(list(BAD_BODIES)), needs="vllm")]


def _held_writer(case: Case, folder: Path) -> CliRun:
    """The command while this process holds the target's one-writer lock (as a running geosched does)."""
    target = folder / case.argv[case.argv.index("--out") + 1]
    try:
        from geosched.output import writer_lock
    except ImportError:  # a checkout before issue 41: no lock, the command writes beside the other writer
        return run_cli(case.argv, folder)
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with writer_lock(target.name):
            return run_cli(case.argv, folder)
    finally:
        os.chdir(cwd)


def second_writer_cases() -> list[Case]:
    c = "second writers"
    return [
        Case(f"{c}: hunt-small --out F while another geosched writes F",
             ["hunt-small", "--policy", "svf", "--requests", "3", "--memory-range", "6", "8", "--alpha-min", "0.5",
              "--alpha-max", "0.75", "--evals", "40", "--out", "s.json"], runner=_held_writer),
        Case(f"{c}: claims --out D while another geosched writes D",
             ["claims", "--claim", "kong.volume", "--out", "D"], runner=_held_writer),
    ]


def isolation_cases() -> list[Case]:
    """Every case of issue 41's items 4 and 5."""
    return user_scheduler_cases() + signal_cases() + server_body_cases() + second_writer_cases()
