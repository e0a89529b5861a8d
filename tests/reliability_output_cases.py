"""Reliability campaign, issue 21's output categories: output paths, a full disk, kills during writes.

Every command that writes a file is tried against each bad target: an existing file without
``--force``, a symlink (with ``--force``: never written through), a dangling symlink, a folder,
a missing folder, a name too long, a read-only file system and a full one (small tmpfs mounts,
root only: elsewhere those cases are "not run" and say why). The only right answer is a clean
error (exit 2, one line, no file in the scratch folder created, changed or removed: no
overwrite, no leftover temporary file, no stale ``.lock``).

:func:`kill_cases` kill a command with SIGKILL in the middle of its write (the child stops
itself in the writer's fsync, so the kill lands there every time, not by timing) and then check
that the old file is intact and that the next run leaves no temporary file behind.

Used by ``tests/test_writers.py`` (each case is a test) and
``benchmarks/reliability_campaign.py`` (the counts table).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cli_harness import run_cli, snapshot, write_files
from reliability_cases import Case

TRACE = "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "".join(
    f"2023-11-16 18:{10 + k // 60:02d}:{k % 60:02d}.{k:07d},{100 + 7 * k},{10 + k % 17}\n" for k in range(120))


@dataclass
class OutputCase(Case):
    links: dict[str, str] = field(default_factory=dict)  # symlink name -> what it points to
    mount: str | None = None  # tmpfs options for the folder "disk" (mounted before the files are written)


@contextlib.contextmanager
def prepared(case: Case, folder: Path) -> Iterator[str | None]:
    """Write the case's files (after mounting its tmpfs, then remounted read-only if asked) and
    links into ``folder``; yields ``None``, or why the case cannot run on this machine."""
    mount = getattr(case, "mount", None)
    disk = folder / "disk"
    mounted = False
    try:
        if mount is not None:
            if os.geteuid() != 0:
                yield "not root: cannot mount a tmpfs"
                return
            disk.mkdir()
            size = ",".join(o for o in mount.split(",") if o != "ro")
            done = subprocess.run(["mount", "-t", "tmpfs", "-o", size, "tmpfs", str(disk)], capture_output=True,
                                  text=True)
            if done.returncode != 0:
                yield f"mount failed: {done.stderr.strip()}"
                return
            mounted = True
        write_files(folder, case.files)
        for name, target in getattr(case, "links", {}).items():
            (folder / name).symlink_to(target)
        if mounted and "ro" in mount.split(","):
            subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        yield None
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(disk)], check=False)


# command name -> (argv before --out, suffix of the file, files it reads)
_WRITERS = {
    "export jsonl": (["export", "example", "--format", "jsonl"], ".jsonl", {}),
    "export azure-csv": (["export", "example", "--format", "azure-csv"], ".csv", {}),
    "export vllm-bench": (["export", "example", "--format", "vllm-bench"], ".jsonl", {}),
    "plot memory": (["plot", "memory", "example"], ".png", {}),
    "plot gantt": (["plot", "gantt", "example"], ".svg", {}),
    "z3-bisect": (["z3-bisect", "--policy", "sjf", "--requests", "2", "--memory", "6", "--max-prompt", "2",
                   "--max-output", "2", "--timeout", "30"], ".json", {}),
    "predictor train": (["predictor", "train", "--trace", "t.csv", "--kind", "point", "--epochs", "1",
                         "--features", "log_prompt"], ".json", {"t.csv": TRACE}),
    "family": (["family", "sjf-blocking", "--size", "3"], ".json", {}),
}
# the big version for a full disk: a write far larger than the tmpfs
_BIG = {"export jsonl": "burst:n=3000,seed=1", "export azure-csv": "burst:n=3000,seed=1",
        "export vllm-bench": "burst:n=3000,seed=1"}


def _argv(command: str, out: str, *extra: str) -> list[str]:
    head, _, _ = _WRITERS[command]
    if command in _BIG and out.startswith("disk/"):
        head = [_BIG[command] if word == "example" else word for word in head]
    return [*head, "--out", out, *extra]


def _target_cases(command: str) -> list[OutputCase]:
    """``command`` against every bad target."""
    _, suffix, reads = _WRITERS[command]
    cases = []

    def case(label, out, extra=(), files=None, links=None, mount=None):
        cases.append(OutputCase(f"output {command}: {label}", _argv(command, out, *extra),
                                {**reads, **(files or {})}, links=links or {}, mount=mount))

    case("existing file without --force", f"old{suffix}", files={f"old{suffix}": "old"})
    case("symlink to a file, --force", f"link{suffix}", ["--force"], files={f"real{suffix}": "precious"},
         links={f"link{suffix}": f"real{suffix}"})
    case("dangling symlink", f"link{suffix}", links={f"link{suffix}": f"elsewhere{suffix}"})
    case("folder, --force", f"d{suffix}", ["--force"], files={f"d{suffix}/keep": "x"})
    case("missing folder", f"no/x{suffix}")
    case("name too long", "x" * 300 + suffix)
    case("read-only file system", f"disk/x{suffix}", mount="size=64k,ro")
    if command != "z3-bisect":  # its witness is a few hundred bytes, and it may find none to write
        case("full disk, --force", f"disk/old{suffix}", ["--force"], files={f"disk/old{suffix}": "old"},
             mount="size=4k")
    return cases


def output_cases() -> list[OutputCase]:
    """Every writing command against every bad target."""
    cases = [c for command in _WRITERS for c in _target_cases(command)]
    cases.append(OutputCase("output lessons: --out is a file", ["lessons", "--out", "f"], {"f": "x"}))
    cases.append(OutputCase("output hunt: --out is a file", ["hunt", "--policy", "sjf", "--requests", "3",
                                                             "--memory", "12", "--time", "0.5", "--out", "f"],
                            {"f": "x"}))
    cases.append(OutputCase("output hunt: read-only file system",
                            ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--time", "0.5",
                             "--out", "disk", "--quiet"], mount="size=64k,ro"))
    return cases


# ---------------------------------------------------------------- kills during writes

_STOP_IN_FSYNC = """
import os, signal, sys
def stop(handle):
    print("in fsync", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)  # the parent's SIGKILL lands here, mid-write
os.fsync = stop
from geosched.cli import main
sys.exit(main(sys.argv[1:]))
"""

KILL_OUTCOMES = ("old file kept, leftover cleaned", "not reached", "overwritten", "leftover", "rerun failed")


@dataclass
class KillCase:
    name: str
    argv: list[str]  # writes "out" (replacing an old one, with --force)
    out: str
    files: dict[str, str] = field(default_factory=dict)


def kill_cases() -> list[KillCase]:
    cases = []
    for command in ("export jsonl", "export azure-csv", "plot memory", "predictor train"):
        head, suffix, reads = _WRITERS[command]
        out = f"old{suffix}"
        argv = [_BIG.get(command, w) if w == "example" and command in _BIG else w for w in head]
        cases.append(KillCase(f"kill {command}", [*argv, "--out", out, "--force"], out, {**reads, out: "old"}))
    cases.append(KillCase("kill hunt (checkpoint)", ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12",
                                                     "--method", "anneal", "--time", "0.5", "--out", "h", "--force",
                                                     "--quiet"], "h/checkpoint.json", {"h/checkpoint.json": "old"}))
    return cases


def kill_verdict(case: KillCase, folder: Path, timeout: float = 300.0) -> tuple[str, str]:
    """Kill the command in its write, check the old file, rerun it: ``(outcome, detail)``."""
    write_files(folder, case.files)
    before = snapshot(folder)
    child = subprocess.Popen([sys.executable, "-c", _STOP_IN_FSYNC, *case.argv], cwd=folder,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([child.stdout], [], [], timeout)
        line = child.stdout.readline() if ready else ""
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        child.stderr.close()
    if "in fsync" not in line:
        return "not reached", f"the command never reached its fsync: {line!r}"
    if (folder / case.out).read_text(errors="replace") != "old":
        return "overwritten", f"{case.out} changed by a killed write"
    created = sorted(set(snapshot(folder)) - set(before))
    run = run_cli(case.argv, folder)
    if run.code != 0:
        return "rerun failed", run.describe()
    names = {p.name for p in folder.rglob("*")}
    leftovers = sorted(n for n in names if n.endswith(".tmp") or n == ".lock")
    if leftovers:
        return "leftover", f"after the rerun: {leftovers}"
    return "old file kept, leftover cleaned", f"temporaries after the kill: {created}"
