"""The reliability campaign's referee categories (issue 30).

* ``code named by data files``: witnesses, workloads and checkpoints that name a scheduler file
  (relative or absolute) whose import writes ``MARKER`` into the working folder and prints
  :data:`IMPORT_SIGN` on stderr. Every case must be a clean error or a clean answer: an import
  shows as a changed file or an extra stderr line, and :func:`code_ran` counts it.
* ``tampered witnesses``: :func:`audit_rows` runs ``check-witness --json`` on every tampered
  file of ``tests/witness_audit.py`` (every shipped witness, every leaf, ``samples`` positions
  per per-request collection) and judges each (``witness_audit.judge``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cli_harness import CliRun, run_cli, snapshot
from reliability_cases import Case
from witness_audit import OK_VERDICTS, WITNESS_FILES, judge, tampers

ROOT = Path(__file__).resolve().parent.parent
IMPORT_SIGN = "IMPORTED-BY-A-DATA-FILE"
SVF_WITNESS = ROOT / "docs" / "witnesses" / "svf_burst_alpha0.5_ratio1.345.json"

MARKER_SCHEDULER = f'''
import pathlib
import sys

pathlib.Path("MARKER").write_text("imported")  # the working folder: the campaign sees it as a changed file
print("{IMPORT_SIGN}", file=sys.stderr)
from geosched.reference_impl.scheduling import Decision


class X:
    name = "x"
    clairvoyant = True
    preempts = False

    def decide(self, state):
        return Decision(admit=tuple(w.id for w in state.waiting))
'''


def code_ran(detail: str) -> bool:
    """Whether a case's outcome shows the marker scheduler's import (a changed MARKER, the sign)."""
    return "MARKER" in detail or IMPORT_SIGN in detail


def _absolute_scheduler() -> Path:
    """The marker scheduler at an absolute path outside the case's folder."""
    folder = Path(tempfile.gettempdir()) / "geosched-campaign-abs"
    folder.mkdir(exist_ok=True)
    path = folder / "p.py"
    path.write_text(MARKER_SCHEDULER)
    return path


def _witness(policy: str, **extra) -> str:
    return json.dumps({**json.loads(SVF_WITNESS.read_text()), "policy": policy, **extra})


def _files(policy: str, **extra):
    def files() -> dict[str, str]:
        name = str(_absolute_scheduler()) + ":X" if policy == "ABSOLUTE" else policy
        return {"sub/p.py": MARKER_SCHEDULER, "w.json": _witness(name, **extra)}

    return files


def _no_sign(stdout: str) -> str | None:
    return "the scheduler file ran" if IMPORT_SIGN in stdout else None


def _checkpoint_files(policy: str = "sub/p.py:X") -> dict[str, str]:
    space = {"policy": policy, "max_requests": 3, "memory": 12, "alpha_max": 0.5, "arrivals": "burst",
             "max_arrival": None}
    return {"sub/p.py": MARKER_SCHEDULER, "evil.py": EVIL,
            "h/checkpoint.json": json.dumps({"space": space, "seed": 0, "methods": {}})}


def data_file_code_cases() -> list[Case]:
    """Every command that reads a file naming a scheduler file, and check-witness's ways in."""
    c = "code named by data files"
    other_sha = {"scheduler_sha256": "0" * 64}
    hunt = ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--time", "0.5",
            "--quiet", "--resume", "--out", "h"]
    return [
        Case(f"{c}: check-witness of a witness naming sub/p.py:X", ["check-witness", "w.json"], _files("sub/p.py:X")),
        Case(f"{c}: check-witness --json, sub/p.py:X", ["check-witness", "w.json", "--json"], _files("sub/p.py:X")),
        Case(f"{c}: check-witness --vllm, sub/p.py:X", ["check-witness", "w.json", "--vllm"], _files("sub/p.py:X")),
        Case(f"{c}: check-witness of a witness naming an absolute path", ["check-witness", "w.json"],
             _files("ABSOLUTE")),
        Case(f"{c}: check-witness, ./sub/p.py:X", ["check-witness", "w.json"], _files("./sub/p.py:X")),
        Case(f"{c}: check-witness --scheduler, recorded SHA-256 of another file",
             ["check-witness", "w.json", "--scheduler", "sub/p.py:X"], _files("sub/p.py:X", **other_sha)),
        Case(f"{c}: check-witness --scheduler, no SHA-256 recorded",
             ["check-witness", "w.json", "--scheduler", "sub/p.py:X"], _files("sub/p.py:X")),
        Case(f"{c}: check-witness --scheduler of another class", ["check-witness", "w.json", "--scheduler",
                                                                   "sub/p.py:Y"], _files("sub/p.py:X", **other_sha)),
        Case(f"{c}: check-witness of a built-in policy with --scheduler",
             ["check-witness", "w.json", "--scheduler", "sub/p.py:X"], _files("svf")),
        Case(f"{c}: export of a witness naming sub/p.py:X", ["export", "w.json", "--format", "jsonl", "--out",
                                                             "o.jsonl"], _files("sub/p.py:X"), "answer", _no_sign),
        Case(f"{c}: simulate a witness naming sub/p.py:X (as a workload)", ["simulate", "w.json", "--json"],
             _files("sub/p.py:X"), "answer", _no_sign),
        Case(f"{c}: compare a witness naming an absolute path (as a workload)",
             ["compare", "w.json", "--policies", "svf", "--json"], _files("ABSOLUTE"), "answer", _no_sign),
        Case(f"{c}: hunt --resume of a checkpoint naming sub/p.py:X", hunt, _checkpoint_files),
        *server_code_cases(),
    ]


EVIL = MARKER_SCHEDULER + "\n\nEvil = X\n"  # evil.Evil: the module path a data file names
FCFS_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_burst_ratio15.264.json"


def _export_files(where: str, value) -> callable:
    """A vllm-bench export of the vllm-fcfs witness (written by this checkout's export) with ``where`` (a path of
    keys into the first line) set to ``value``, and evil.py beside it (it marks its import)."""
    def files() -> dict[str, str]:
        with tempfile.TemporaryDirectory() as folder:
            run = run_cli(["export", str(FCFS_WITNESS), "--format", "vllm-bench", "--out", "e.jsonl", "--quiet"],
                          Path(folder))
            assert run.code == 0, run.describe()
            rows = Path(folder, "e.jsonl").read_text().splitlines()
        head = json.loads(rows[0])
        node = head
        for key in where.split(".")[:-1]:
            node = node[key]
        node[where.split(".")[-1]] = value
        text = "\n".join([json.dumps(head), *rows[1:]]) + "\n"
        return {"evil.py": EVIL, "sub/p.py": MARKER_SCHEDULER, "e.jsonl": text}

    return files


def process_runner(prefix: list[str], env: dict[str, str] | None = None):
    """The case's command in a process of its own (``prefix`` + argv, in the case's folder): the way a user starts
    it, with the folder on ``sys.path`` (``python -m``, ``PYTHONPATH=.``), where an evil.py would be found."""
    def runner(case: Case, folder: Path) -> CliRun:
        before = snapshot(folder)
        try:
            done = subprocess.run([*prefix, *case.argv], cwd=folder, capture_output=True, text=True, timeout=300,
                                  env=_with(env or {}))
            code, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            code, stdout = None, str(exc.stdout or "")
            stderr = f"{exc.stderr or ''}\nstill running after 300 s (killed)"
        after = snapshot(folder)
        changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
        return CliRun(case.argv, code, stdout, stderr, None, changed)

    return runner


def _with(env: dict[str, str]) -> dict[str, str]:
    """This process's environment with ``env``; a ``PYTHONPATH`` of the case goes in front of the one already set
    (a campaign pointed at another checkout by ``PYTHONPATH`` keeps running that checkout)."""
    merged = {**os.environ, **env}
    if "PYTHONPATH" in env and os.environ.get("PYTHONPATH"):
        merged["PYTHONPATH"] = env["PYTHONPATH"] + os.pathsep + os.environ["PYTHONPATH"]
    return merged


PYTHON_M = [sys.executable, "-m", "geosched"]

def _checkout_of_geosched() -> Path:
    """The checkout whose geosched this interpreter imports (the campaign may run another checkout's)."""
    import geosched

    return Path(geosched.__file__).resolve().parent.parent


GPU_REPLAY = [sys.executable, str(_checkout_of_geosched() / "benchmarks" / "gpu_replay.py")]


def server_code_cases() -> list[Case]:
    """Issue 41 item 1: an export's header naming code, through serve-model, the HTTP replay and the readers."""
    c = "code named by data files"
    serve = ["serve-model", "e.jsonl", "--port", "0", "--timeout", "5"]
    scheduler_cls = _export_files("geosched_workload.server.scheduler_cls", "evil.Evil")
    return [
        Case(f"{c}: python -m geosched serve-model, server.scheduler_cls evil.Evil", serve, scheduler_cls,
             runner=process_runner(PYTHON_M)),
        Case(f"{c}: PYTHONPATH=. geosched serve-model, server.scheduler_cls evil.Evil", serve, scheduler_cls,
             runner=process_runner(PYTHON_M, {"PYTHONPATH": "."})),
        Case(f"{c}: gpu_replay.py --server step, server.scheduler_cls evil.Evil", ["e.jsonl", "--server", "step"],
             scheduler_cls, runner=process_runner(GPU_REPLAY, {"PYTHONPATH": "."})),
        Case(f"{c}: serve-model, server.worker_cls evil.Evil", serve,
             _export_files("geosched_workload.server.worker_cls", "evil.Evil"), runner=process_runner(PYTHON_M)),
        Case(f"{c}: serve-model, server.scheduling_policy evil.Evil", serve,
             _export_files("geosched_workload.server.scheduling_policy", "evil.Evil"),
             runner=process_runner(PYTHON_M)),
        Case(f"{c}: serve-model, server.scheduler_cls sub/p.py:X (not pinned)", serve,
             _export_files("geosched_workload.server.scheduler_cls", "sub/p.py:X"), runner=process_runner(PYTHON_M)),
        Case(f"{c}: simulate an export whose header names evil.Evil (as a workload)", ["simulate", "e.jsonl"],
             scheduler_cls),
        Case(f"{c}: check-witness of a witness naming evil.Evil", ["check-witness", "w.json"], _files("evil.Evil")),
        Case(f"{c}: hunt --resume of a checkpoint naming evil.Evil",
             ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--time", "0.5",
              "--quiet", "--resume", "--out", "h"], _checkpoint_files("evil.Evil")),
    ]


BLOCK16_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_block16_burst_ratio86.176.json"
TAMPERS = {  # issue 41 item 2: each was copied into the export's header and replay.sh before
    "certified_ratio 1000": lambda w: w.update(certified_ratio=1000),
    "policy_schedule.tel 5": lambda w: w["policy_schedule"].update(tel=5),
    "engine.max_num_seqs 7": lambda w: w["engine"].update(max_num_seqs=7),
    "engine.preemption priority": lambda w: w["engine"].update(preemption="priority"),
}


def _tampered(label: str | None):
    def files() -> dict[str, str]:
        data = json.loads(BLOCK16_WITNESS.read_text())
        if label is not None:
            TAMPERS[label](data)
        return {"w.json": json.dumps(data)}

    return files


def _header_rederived(stdout: str) -> str | None:
    """Set by the runner below: the export's header against the shipped witness's own numbers (verified by
    tests/test_witness_audit.py and check-witness, independently of the export)."""
    return stdout.split(WRONG_HEADER, 1)[1].strip() if WRONG_HEADER in stdout else None


WRONG_HEADER = "WRONG HEADER"


def _export_runner(case: Case, folder: Path) -> CliRun:
    run = run_cli(case.argv, folder)
    target = folder / "e.jsonl"
    if run.code == 0 and target.exists():
        meta = json.loads(target.read_text().splitlines()[0])["geosched_workload"]
        truth = json.loads(BLOCK16_WITNESS.read_text())
        expected = {"policy_tel": truth["policy_schedule"]["tel"], "witness_tel": truth["witness_schedule"]["tel"],
                    "certified_ratio": truth["certified_ratio"], "max_num_seqs": truth["engine"]["max_num_seqs"],
                    "scheduling_policy": truth["engine"]["preemption"]}
        found = {**{k: meta.get(k) for k in ("policy_tel", "witness_tel", "certified_ratio")},
                 "max_num_seqs": meta["server"]["max_num_seqs"],
                 "scheduling_policy": meta["server"]["scheduling_policy"]}
        script = (folder / "e.replay.sh").read_text() if (folder / "e.replay.sh").exists() else ""
        if found != expected or f"--max-num-seqs {expected['max_num_seqs']} " not in script:
            run.stdout += f"\n{WRONG_HEADER}: the header has {found}, the witness's true numbers are {expected}"
    return run


def export_rederive_cases() -> list[Case]:
    """Issue 41 item 2: ``export`` of a witness verifies it first and writes only the referee's numbers."""
    c = "tampered witnesses exported"
    argv = ["export", "w.json", "--format", "vllm-bench", "--out", "e.jsonl", "--no-vllm-check"]
    return [
        *(Case(f"{c}: vllm-fcfs, {label}", argv, _tampered(label), runner=_export_runner) for label in TAMPERS),
        Case(f"{c}: vllm-fcfs, untampered (the header re-derived)", argv, _tampered(None), "answer",
             _header_rederived, runner=_export_runner),
    ]


def audit_rows(samples: int = 1) -> list[dict]:
    """``check-witness --json`` on every tampered witness of ``tests/witness_audit.py``, judged."""
    rows = []
    for path in WITNESS_FILES:
        original = json.loads(path.read_text())
        original_report = _report(original)[0]
        kind = original["policy"]
        for label, data in tampers(path, samples):
            report, trouble = _report(data)
            verdict = trouble or judge(report, data, original, original_report)
            rows.append({"kind": kind, "file": path.name, "tamper": label, "verdict": verdict})
    return rows


def _report(data: dict) -> tuple[dict | None, str | None]:
    """``check-witness --json``'s report (None for a clean exit-2 error), or what went wrong."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "w.json").write_text(json.dumps(data))
        run = run_cli(["check-witness", "w.json", "--json"], Path(folder))
    if run.traceback:
        return None, f"traceback: {run.describe()}"
    if run.code == 2:
        return None, (None if run.clean_error else f"unclean: {run.describe()}")
    if run.code in (0, 1):
        return json.loads(run.stdout), None
    return None, f"exit {run.code}: {run.describe()}"


def audit_outcome(verdict: str) -> str:
    """The table's column of a verdict."""
    if verdict in OK_VERDICTS:
        return verdict
    if verdict.startswith("ACCEPTED"):
        return "accepted with a wrong number"
    return "traceback" if verdict.startswith("traceback") else "other"
