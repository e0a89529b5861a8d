"""The reliability campaign's work-bound categories (issue 30, items 3, 5, 6 and 7), as data.

* ``size bombs``: a 10^12-token output (10^12 steps) to every command that could step through it,
  at token grain and at block grain (``simulate``, ``vllm-diff``, ``check-witness``, ``plot``),
  ``export --format vllm-bench`` of 10^12-token outputs and a 10^12-token prompt, ``hunt --rounds``
  with huge ``--evals``/``--restarts``. Each must be answered with exact numbers or refused in one
  line before the work starts;
* ``sleeping decide``: a scheduler file whose ``decide()`` sleeps, under a small ``--decide-seconds``;
* ``malformed decisions``: a scheduler file returning ``admit=None``, ``admit=[['r0']]``,
  ``quiet_until='9'``: one line naming the field;
* ``non-Dask peer``: ``--cluster tcp://`` at a local socket that answers HTTP: one line, no ``--out``;
* ``SIGTERM``: a running hunt in its own process, sent SIGTERM: exit 143, one line, no ``.lock`` left.

The files named on the command line (``--policy FILE.py:Class``) are the user's own: running them is
what the command was asked to do. The peer and the signal need more than a command line: their cases
carry a ``runner`` (see :func:`reliability_cases.run_case`). No case waits on a clock for its verdict:
the limits are tiny, the sleeping ``decide()`` would sleep for an hour, and the SIGTERM case waits for
the hunt's ``.lock`` (a deadline only bounds a run that never gets there).
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from cli_harness import CliRun, run_cli
from reliability_cases import Case, _tel_matches_starts

ROOT = Path(__file__).resolve().parent.parent
WITNESSES = ROOT / "docs" / "witnesses"
HUGE = 10**12  # output tokens: 10^12 steps, which no step-by-step loop may start
HUGE_M = 2 * HUGE + 16  # room for it, a multiple of 16 (block grain)


def _instance(memory: int, requests: list[tuple[int, int, int]]) -> str:
    return json.dumps({"memory": memory, "requests": [
        {"id": f"r{k}", "arrival": a, "prompt": s, "output": o} for k, (a, s, o) in enumerate(requests)]})


BIG = _instance(HUGE_M, [(0, 1, HUGE), (0, 1, 2)])


def _big_witness(name: str) -> str:
    """A shipped witness with its first request's output set to 10^12 and room for it in M."""
    data = json.loads((WITNESSES / name).read_text())
    data["instance"]["memory"] = HUGE_M
    data["instance"]["requests"][0]["output"] = HUGE
    return json.dumps(data)


def _not_accepted(stdout: str) -> str | None:
    """A tampered witness answered (exit 0/1) must not be reported ok."""
    return "the changed witness was accepted" if json.loads(stdout).get("ok") else None


def size_bomb_cases() -> list[Case]:
    c = "size bombs"
    w = {"w.json": BIG}
    hunt = ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--rounds", "2",
            "--time", "60", "--quiet", "--out", "h"]
    return [
        Case(f"{c}: simulate svf, output 10^12 (token grain)", ["simulate", "w.json", "--json"], w, "answer",
             _tel_matches_starts(BIG)),
        Case(f"{c}: simulate vllm-fcfs, output 10^12 (token grain)",
             ["simulate", "w.json", "--policy", "vllm-fcfs", "--json"], w, "answer", _tel_matches_starts(BIG)),
        Case(f"{c}: simulate vllm-fcfs:block=16, output 10^12 (block grain)",
             ["simulate", "w.json", "--policy", "vllm-fcfs:block=16", "--json"], w, "answer",
             _tel_matches_starts(BIG)),
        Case(f"{c}: compare --block-size 16, output 10^12 (block grain)",
             ["compare", "w.json", "--block-size", "16", "--policies", "sjf,fcfs", "--json"], w, "answer",
             _tel_matches_starts(BIG)),
        Case(f"{c}: vllm-diff, output 10^12 (token grain)", ["vllm-diff", "w.json", "--policy", "vllm-fcfs"], w,
             "answer"),
        Case(f"{c}: vllm-diff --block-size 16, output 10^12 (block grain)",
             ["vllm-diff", "w.json", "--policy", "vllm-fcfs", "--block-size", "16"], w, "answer"),
        Case(f"{c}: check-witness svf, output 10^12 (token grain)", ["check-witness", "w.json", "--json"],
             {"w.json": _big_witness("svf_burst_alpha0.5_ratio1.345.json")}, "answer", _not_accepted),
        Case(f"{c}: check-witness vllm-fcfs, output 10^12 (token grain)", ["check-witness", "w.json", "--json"],
             {"w.json": _big_witness("vllm-fcfs_burst_ratio15.264.json")}, "answer", _not_accepted),
        Case(f"{c}: check-witness vllm-fcfs block 16, output 10^12 (block grain)",
             ["check-witness", "w.json", "--json"],
             {"w.json": _big_witness("vllm-fcfs_block16_burst_ratio86.176.json")}, "answer", _not_accepted),
        Case(f"{c}: plot memory, output 10^12 (token grain)", ["plot", "memory", "w.json", "--out", "p.png"], w,
             "answer"),
        Case(f"{c}: plot gantt vllm-fcfs:block=16, output 10^12 (block grain)",
             ["plot", "gantt", "w.json", "--policy", "vllm-fcfs:block=16", "--out", "p.png"], w, "answer"),
        Case(f"{c}: export vllm-bench, outputs 10^12", ["export", "w.json", "--format", "vllm-bench", "--out",
                                                        "b.jsonl", "--quiet"],
             {"w.json": _instance(HUGE_M, [(0, 1, HUGE), (0, 600, HUGE - 1)])}, "answer", _file_right,
             runner=_export_runner),
        Case(f"{c}: export vllm-bench, prompt 10^12", ["export", "w.json", "--format", "vllm-bench", "--out",
                                                       "b.jsonl"], {"w.json": _instance(HUGE_M, [(0, HUGE, 2)])},
             "answer"),
        Case(f"{c}: hunt --rounds 2 --evals 10^12", [*hunt, "--evals", str(HUGE)]),
        Case(f"{c}: hunt --rounds 2 --restarts 10^12", [*hunt, "--restarts", str(HUGE)]),
        *hunt_small_cases(),
    ]


def hunt_small_cases() -> list[Case]:
    """Issue 41 item 3: ``hunt-small`` bounded before it starts (``--evals``/``--climb`` ranges, ``--time``)."""
    c = "size bombs"
    small = ["hunt-small", "--policy", "svf", "--requests", "3", "--memory-range", "6", "8", "--alpha-min", "0.5",
             "--alpha-max", "0.75", "--out", "w.json"]
    return [
        Case(f"{c}: hunt-small --evals 10^12", [*small, "--evals", str(HUGE)]),
        Case(f"{c}: hunt-small --climb 10^12", [*small, "--climb", str(HUGE)]),
        Case(f"{c}: hunt-small --evals 10^6 --time 1", [*small, "--evals", "1000000", "--time", "1"]),
        Case(f"{c}: hunt-small vllm-fcfs --time 2 (20000 evaluations by default)",
             ["hunt-small", "--policy", "vllm-fcfs", "--alpha-min", "0.5", "--alpha-max", "0.75", "--time", "2",
              "--quiet"], expect="answer"),
    ]


def _export_runner(case: Case, folder: Path) -> CliRun:
    """``export``, then the file's outputs against the instance's (exactly, as integers)."""
    run = run_cli(case.argv, folder)
    target = folder / "b.jsonl"
    if run.code == 0 and target.exists():
        rows = [json.loads(line) for line in target.read_text().splitlines() if line.strip()]
        outputs = sorted(row.get("output_length") for row in rows)
        if outputs != [HUGE - 1, HUGE]:
            run.stdout += f"\n{WRONG}: the file's output_length are {outputs}, not [{HUGE - 1}, {HUGE}]"
    return run


WRONG = "WRONG FILE"


def _file_right(stdout: str) -> str | None:
    return stdout.split(WRONG, 1)[1].strip() if WRONG in stdout else None


SLEEPER = '''
import time


class Sleeper:
    name = "sleeper"
    clairvoyant = False
    preempts = False

    def decide(self, state):
        time.sleep(3600)
'''

MALFORMED = '''
from geosched.reference_impl.scheduling import Decision


class _Returns:
    name = "returns"
    clairvoyant = False
    preempts = False
    decision = None

    def decide(self, state):
        return self.decision


class AdmitNone(_Returns):
    decision = Decision(admit=None)


class AdmitNested(_Returns):
    decision = Decision(admit=[["r0"]])


class QuietText(_Returns):
    decision = Decision(admit=("r0",), quiet_until="9")
'''


def decision_cases() -> list[Case]:
    small = {"w.json": _instance(12, [(0, 6, 3), (0, 1, 5)])}
    return [
        Case("sleeping decide: simulate --decide-seconds 0.2", ["simulate", "w.json", "--policy", "sleep.py:Sleeper",
                                                                "--decide-seconds", "0.2"],
             {**small, "sleep.py": SLEEPER}),
        *(Case(f"malformed decisions: {label}", ["simulate", "w.json", "--policy", f"bad.py:{cls}"],
               {**small, "bad.py": MALFORMED})
          for label, cls in (("admit=None", "AdmitNone"), ("admit=[['r0']]", "AdmitNested"),
                             ("quiet_until='9'", "QuietText"))),
    ]


HTTP_REPLY = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"


def _http_peer_runner(case: Case, folder: Path) -> CliRun:
    """The command with ``--cluster tcp://`` at a local socket that answers every connection with HTTP."""
    server = socket.create_server(("127.0.0.1", 0))
    connections: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            connections.append(conn)
            conn.sendall(HTTP_REPLY)

    threading.Thread(target=serve, daemon=True).start()
    try:
        return run_cli([*case.argv, "--cluster", f"tcp://127.0.0.1:{server.getsockname()[1]}"], folder)
    finally:
        server.close()
        for conn in connections:
            conn.close()


def _sigterm_runner(case: Case, folder: Path, deadline: float = 60.0) -> CliRun:
    """The hunt in its own process; SIGTERM once its ``.lock`` exists (it is running), then its exit.
    A ``.lock`` left behind counts as a changed file."""
    lock = folder / "h" / ".lock"
    proc = subprocess.Popen([sys.executable, "-m", "geosched", *case.argv], cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    give_up = time.monotonic() + deadline  # only a hunt that never starts reaches it
    while not lock.exists() and proc.poll() is None and time.monotonic() < give_up:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    try:
        stdout, stderr = proc.communicate(timeout=deadline)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
        stderr += f"\nstill running {deadline:g} s after SIGTERM (killed)"
    return CliRun(case.argv, proc.returncode, stdout, stderr, None, [".lock"] if lock.exists() else [])


def peer_and_signal_cases() -> list[Case]:
    hunt = ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--quiet",
            "--out", "h"]
    return [
        Case("non-Dask peer: hunt --cluster tcp:// answering HTTP",
             [*hunt, "--rounds", "1", "--restarts", "1", "--evals", "10"], runner=_http_peer_runner),
        Case("SIGTERM: a running hunt", [*hunt, "--time", "60"], expect="terminated", runner=_sigterm_runner),
    ]


GOOD_TRACE = "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "2023-11-16 18:15:46.6805900,374,44\n" * 4


def option_range_cases() -> list[Case]:
    """Issue 41 item 3: every option that bounds work is checked against a documented range before it starts."""
    c = "option ranges"
    small = {"w.json": _instance(12, [(0, 6, 3), (0, 1, 5)]), "t.csv": GOOD_TRACE}
    huge_prompt = {"w.json": _instance(HUGE_M, [(0, HUGE, 2)])}
    return [
        Case(f"{c}: simulate --decide-seconds 1e-9 (would disarm the timer)",
             ["simulate", "w.json", "--policy", "geo-guess", "--decide-seconds", "1e-9"], small),
        Case(f"{c}: simulate --decide-seconds 1e30", ["simulate", "w.json", "--policy", "geo-guess",
                                                     "--decide-seconds", "1e30"], small),
        Case(f"{c}: export vllm-bench --max-bytes 10^30, prompt 10^12",
             ["export", "w.json", "--format", "vllm-bench", "--out", "b.jsonl", "--no-vllm-check", "--max-bytes",
              str(10**30)], huge_prompt),
        Case(f"{c}: simulate --engine coq --coq-time-limit 1e30",
             ["simulate", "w.json", "--engine", "coq", "--coq-time-limit", "1e30"], small),
        Case(f"{c}: hunt --time 1e30", ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method",
                                        "anneal", "--time", "1e30", "--target", "99", "--quiet", "--out", "h"]),
        Case(f"{c}: opt --time-limit 1e30", ["opt", "w.json", "--time-limit", "1e30"], small),
        Case(f"{c}: vllm-diff --search 10^18", ["vllm-diff", "w.json", "--search", str(10**18)], small),
        Case(f"{c}: predictor train --epochs 10^12", ["predictor", "train", "--trace", "t.csv", "--kind", "point",
                                                      "--out", "m.json", "--epochs", str(HUGE)], small),
    ]


def work_bound_cases() -> list[Case]:
    """Every case of the work-bound categories."""
    return size_bomb_cases() + decision_cases() + peer_and_signal_cases() + option_range_cases()
