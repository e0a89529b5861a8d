"""The one safe writer (geosched.output) and first contact (help texts, citation, changelog).

Issue 21, items 2 and 6: every command that writes a file goes through
:func:`geosched.output.write_bytes_atomic` (temporary file in the target's folder, fsync,
rename; an existing file needs ``--force``; a symlink is refused; an OSError is one line, exit
2, with nothing left behind); finished work whose final write fails is kept and the error says
where. No test here times anything: kills are made deterministic by stopping the writer at a
known point (its fsync) before the SIGKILL.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from geosched import output
from geosched.cli import build_parser, main
from geosched.output import OutputError, rescue_text, write_bytes_atomic, write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
README_INSTANCE = {"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": 6, "output": 3},
                                              {"id": "b", "arrival": 0, "prompt": 1, "output": 5}]}


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ---------------------------------------------------------------- the writer itself


def test_refuses_an_existing_file_without_force_and_keeps_it(tmp_path):
    target = tmp_path / "a.json"
    target.write_text("old")
    with pytest.raises(OutputError, match=r"^--out: .*a\.json exists \(use --force\)$"):
        write_text_atomic(target, "new", force=False)
    assert target.read_text() == "old" and _listing(tmp_path) == ["a.json"]
    write_text_atomic(target, "new", force=True)
    assert target.read_text() == "new" and _listing(tmp_path) == ["a.json"]


def test_check_target_refuses_before_any_work(tmp_path):
    target = tmp_path / "a.json"
    output.check_target(target, force=False)  # absent: fine
    target.write_text("old")
    with pytest.raises(OutputError, match=r"exists \(use --force\)$"):
        output.check_target(target, force=False)
    assert output.check_target(target, force=True) == target


def test_a_file_that_appears_during_the_work_is_not_clobbered(tmp_path, monkeypatch):
    """Without --force the rename cannot replace a file made after the checks (by another
    process): the no-replace hard link refuses it."""
    target = tmp_path / "a.json"
    with pytest.raises(OutputError, match="exists"):
        with output.atomic_path(target, force=False) as temporary:
            temporary.write_text("mine")
            target.write_text("theirs")  # appears after the first check...
            monkeypatch.setattr(output, "_refusal", lambda path, force, field: None)  # ...and after the second
    assert target.read_text() == "theirs" and _listing(tmp_path) == ["a.json"]


@pytest.mark.parametrize("force", [False, True])
def test_never_writes_through_or_replaces_a_symlink(tmp_path, force):
    real = tmp_path / "real.txt"
    real.write_text("precious")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(OutputError, match="symbolic link"):
        write_text_atomic(link, "new", force=force)
    assert real.read_text() == "precious" and link.is_symlink()
    assert _listing(tmp_path) == ["link.txt", "real.txt"]


def test_a_dangling_symlink_is_refused_too(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "elsewhere.txt")
    with pytest.raises(OutputError, match="symbolic link"):
        write_text_atomic(link, "new", force=False)
    assert not (tmp_path / "elsewhere.txt").exists()


def test_os_errors_are_one_line_naming_path_and_reason(tmp_path):
    cases = {
        tmp_path: "is a folder",
        tmp_path / "missing" / "a.json": "no folder",
        tmp_path / ("x" * 300 + ".json"): "too long",
    }
    for target, reason in cases.items():
        with pytest.raises(OutputError) as info:
            write_text_atomic(target, "data", force=True)
        message = str(info.value)
        assert "\n" not in message and reason in message.lower() and str(target)[:40] in message, message
    assert _listing(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="Permission denied"):
            write_text_atomic(folder / "a.json", "data")
        assert _listing(folder) == []
    finally:
        folder.chmod(0o755)


def test_disk_full_on_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "a.json"
    target.write_text("old")

    def full(handle, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output.os, "write", full)
    with pytest.raises(OutputError, match=r"cannot write .*a\.json \(no space left on the device\)"):
        write_text_atomic(target, "new" * 1000, force=True)
    assert target.read_text() == "old" and _listing(tmp_path) == ["a.json"]


def test_failed_rename_leaves_no_temporary(tmp_path, monkeypatch):
    def refuse(source, destination):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(output.os, "replace", refuse)
    with pytest.raises(OutputError, match="Input/output error"):
        write_text_atomic(tmp_path / "a.json", "new", force=True)
    assert _listing(tmp_path) == []


def test_the_target_path_is_never_opened(tmp_path, monkeypatch):
    """What makes a kill harmless: the writer opens only its temporary file, and the target
    appears only through the rename (or the no-replace hard link)."""
    target = tmp_path / "a.json"
    opened = []
    real_open = os.open

    def spy(path, *args, **kwargs):
        opened.append(Path(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(output.os, "open", spy)
    monkeypatch.setattr("tempfile._os.open", spy)
    for force in (False, True):
        write_text_atomic(target, "x" * 100_000, force=force)
    assert target not in opened and any(p.name.startswith(".a.json.") for p in opened)
    assert target.read_text() == "x" * 100_000


def test_a_text_that_cannot_be_encoded_is_refused_before_any_file(tmp_path):
    with pytest.raises(OutputError, match="not encodable"):
        write_text_atomic(tmp_path / "a.txt", "\ud800")
    assert _listing(tmp_path) == []


_KILLED_WRITER = """
import os, sys
from geosched import output
def stop(handle):
    print("in fsync", flush=True)
    os.kill(os.getpid(), 19)  # SIGSTOP: the parent kills us here, mid-write
output.os.fsync = stop
output.write_text_atomic(sys.argv[1], "new " * 250_000, force=True)
"""


def test_sigkill_during_a_write_keeps_the_old_file_and_the_next_write_cleans_up(tmp_path):
    target = tmp_path / "big.jsonl"
    target.write_text("old")
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "in fsync"  # blocks until the writer is mid-write
    child.send_signal(signal.SIGKILL)
    child.wait()
    leftovers = [n for n in _listing(tmp_path) if n != "big.jsonl"]
    assert target.read_text() == "old" and len(leftovers) == 1 and f".{child.pid}." in leftovers[0]
    write_text_atomic(target, "newer", force=True)  # the dead writer's temporary file is removed
    assert target.read_text() == "newer" and _listing(tmp_path) == ["big.jsonl"]


def test_rescue_keeps_the_text_beside_or_in_the_temporary_folder(tmp_path):
    kept = rescue_text(tmp_path / "model.json", "{}")
    assert kept.parent == tmp_path and kept.name == f"model.json.rescued-{os.getpid()}" and kept.read_text() == "{}"
    elsewhere = rescue_text(tmp_path / "no" / "model.json", "[]")
    try:
        assert elsewhere.parent != tmp_path / "no" and elsewhere.read_text() == "[]"
    finally:
        elsewhere.unlink()


def test_bytes_and_mode(tmp_path):
    target = write_bytes_atomic(tmp_path / "a.bin", b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600


# ---------------------------------------------------------------- the commands


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _assert_one_line_error(code, err, *needles):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("geosched: error: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("argv_head", [
    ["export", "example", "--format", "jsonl"],
    ["plot", "memory", "example"],
])
def test_commands_refuse_existing_symlink_folder_and_missing_folder(tmp_path, capsys, argv_head):
    pytest.importorskip("matplotlib")
    suffix = ".jsonl" if argv_head[0] == "export" else ".png"
    existing = tmp_path / f"old{suffix}"
    existing.write_text("old")
    code, _, err = _run([*argv_head, "--out", str(existing)], capsys)
    _assert_one_line_error(code, err, "exists (use --force)")
    assert existing.read_text() == "old"
    link = tmp_path / f"link{suffix}"
    link.symlink_to(existing)
    code, _, err = _run([*argv_head, "--out", str(link), "--force"], capsys)
    _assert_one_line_error(code, err, "symbolic link")
    assert existing.read_text() == "old"
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    code, _, err = _run([*argv_head, "--out", str(folder), "--force"], capsys)
    _assert_one_line_error(code, err, "is a folder")
    code, _, err = _run([*argv_head, "--out", str(tmp_path / "no" / f"x{suffix}")], capsys)
    _assert_one_line_error(code, err, "no folder")
    code, out, err = _run([*argv_head, "--out", str(existing), "--force"], capsys)
    assert code == 0, err
    assert existing.read_bytes() != b"old"
    assert sorted(_listing(tmp_path)) == sorted([existing.name, link.name, folder.name])


def test_z3_bisect_refuses_an_existing_out_before_solving(tmp_path, capsys):
    pytest.importorskip("z3")
    out = tmp_path / "w.json"
    out.write_text("old")
    code, _, err = _run(["z3-bisect", "--policy", "sjf", "--requests", "2", "--memory", "6", "--max-prompt", "2",
                         "--max-output", "2", "--timeout", "30", "--out", str(out)], capsys)
    _assert_one_line_error(code, err, "exists (use --force)")
    assert out.read_text() == "old"


def _write_trace(path: Path, n: int = 120) -> None:
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    lines += [f"2023-11-16 18:{10 + k // 60:02d}:{k % 60:02d}.{k:07d},{100 + 7 * k},{10 + k % 17}" for k in range(n)]
    path.write_text("\n".join(lines) + "\n")


def test_predictor_train_keeps_the_model_when_the_final_write_fails(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch")
    trace = tmp_path / "t.csv"
    _write_trace(trace)
    out = tmp_path / "m.json"
    real = output.write_bytes_atomic

    def full_disk(path, data, *, force=True, field="--out"):
        if Path(path) == out:
            raise OutputError(f"{field}: cannot write {path} (no space left on the device)")
        return real(path, data, force=force, field=field)

    monkeypatch.setattr(output, "write_bytes_atomic", full_disk)
    code, _, err = _run(["predictor", "train", "--trace", str(trace), "--kind", "point", "--out", str(out),
                         "--epochs", "2", "--features", "log_prompt"], capsys)
    _assert_one_line_error(code, err, "no space left", "the trained model was kept in")
    kept = Path(err.strip().rsplit(" kept in ", 1)[1])
    try:
        assert not out.exists() and kept.name.startswith("m.json.rescued-")
        assert json.loads(kept.read_text())["kind"] == "point"
    finally:
        kept.unlink(missing_ok=True)


@pytest.mark.parametrize("only_checkpoint", [False, True])
def test_hunt_keeps_its_results_and_leaves_no_lock_when_its_folder_fails(tmp_path, capsys, monkeypatch,
                                                                         only_checkpoint):
    """Every write into --out fails, or only the checkpoint's (the results could not be resumed):
    either way everything is kept in a fresh folder, named in the one error line."""
    from geosched.adversary import hunt as hunt_module

    out = tmp_path / "h"
    real = hunt_module.write_json_atomic

    def failing(path, data, **kwargs):
        if Path(path).parent == out and (Path(path).name == "checkpoint.json" or not only_checkpoint):
            raise OutputError(f"--out: cannot write {path} (no space left on the device)")
        return real(path, data, **kwargs)

    monkeypatch.setattr(hunt_module, "write_json_atomic", failing)
    monkeypatch.setattr("geosched.adversary.witness.write_json_atomic", failing)
    code, _, err = _run(["hunt", "--policy", "sjf", "--method", "anneal", "--requests", "4", "--memory", "12",
                         "--rounds", "1", "--restarts", "1", "--evals", "50", "--out", str(out), "--quiet"], capsys)
    lines = [line for line in err.strip().splitlines() if line.startswith("geosched: error: ")]
    assert code == 2 and len(lines) == 1 and "the hunt's results were kept in" in lines[0], err
    kept = Path(lines[0].split(" kept in ", 1)[1].split(" (resume", 1)[0])
    try:
        assert {"checkpoint.json", "summary.json", "best_witness.json"} <= set(_listing(kept))
        assert not (out / ".lock").exists()
    finally:
        shutil.rmtree(kept, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_hunt_in_a_read_only_folder_is_one_line_and_leaves_no_lock(tmp_path, capsys):
    out = tmp_path / "h"
    out.mkdir()
    out.chmod(0o555)
    try:
        code, _, err = _run(["hunt", "--policy", "sjf", "--method", "anneal", "--requests", "3", "--memory", "12",
                             "--time", "0.5", "--out", str(out), "--quiet"], capsys)
        _assert_one_line_error(code, err, ".lock", "Permission denied")
        assert _listing(out) == []
    finally:
        out.chmod(0o755)


def _mount_tmpfs(folder: Path, options: str) -> bool:
    if os.geteuid() != 0:
        return False
    folder.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
                          capture_output=True, text=True)
    return done.returncode == 0


def test_read_only_file_system_for_export_and_hunt(tmp_path):
    """As root a read-only folder is writable, so a read-only tmpfs stands in (skipped where
    mount is impossible)."""
    disk = tmp_path / "ro"
    if not _mount_tmpfs(disk, "size=64k,ro"):
        pytest.skip("cannot mount a tmpfs here (not root, or no mount permission)")
    try:
        proc = subprocess.run([sys.executable, "-m", "geosched", "export", "example", "--format", "jsonl",
                               "--out", str(disk / "a.jsonl")], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "Read-only file system" in proc.stderr
        proc = subprocess.run([sys.executable, "-m", "geosched", "hunt", "--policy", "sjf", "--method", "anneal",
                               "--requests", "3", "--memory", "12", "--time", "0.5", "--out", str(disk), "--quiet"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert ".lock" in proc.stderr and "Read-only file system" in proc.stderr
        assert _listing(disk) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def test_export_to_a_full_tmpfs_is_one_line_and_keeps_the_old_file(tmp_path):
    """A real full disk: a 64 KiB tmpfs (skipped where mount is impossible)."""
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "size=64k"):
        pytest.skip("cannot mount a tmpfs here (not root, or no mount permission)")
    try:
        target = disk / "big.jsonl"
        target.write_text("old")
        proc = subprocess.run([sys.executable, "-m", "geosched", "export", "burst:n=3000,seed=1", "--format", "jsonl",
                               "--out", str(target), "--force"], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "no space left on the device" in lines[0], proc.stderr
        assert target.read_text() == "old" and _listing(disk) == ["big.jsonl"]
    finally:
        subprocess.run(["umount", str(disk)], check=False)


# ---------------------------------------------------------------- --help: description and example


def _subparsers(parser, path=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _subparsers(sub, (*path, name))


def test_every_subcommand_has_a_description_and_an_example():
    found = list(_subparsers(build_parser()))
    assert len(found) >= 18
    problems = []
    for path, sub in found:
        if not (sub.description or "").strip():
            problems.append(f"{' '.join(path)}: no description")
        commands = re.findall(r"^  (geosched .*)$", sub.epilog or "", re.M)
        if not commands:
            problems.append(f"{' '.join(path)}: no example")
        for command in commands:
            if command.split()[1:1 + len(path)] != list(path):
                problems.append(f"{' '.join(path)}: example {command!r} is not of this command")
        if "-q, --quiet" not in sub.format_help() and sub._subparsers is None:
            problems.append(f"{' '.join(path)}: no --quiet")
        if "%%" in sub.format_help():  # argparse expands % only in help= texts, never in a description
            problems.append(f"{' '.join(path)}: '%%' printed in --help")
    assert not problems, problems


def test_help_shows_the_example_unwrapped(capsys):
    with pytest.raises(SystemExit):
        main(["z3-bisect", "--help"])
    help_text = capsys.readouterr().out
    assert "\n  geosched z3-bisect --policy sjf --requests 3 --memory 8 --max-prompt 3 --max-output 4 " in help_text


# ---------------------------------------------------------------- first contact files


def test_citation_cff_is_valid_and_names_the_package_and_papers():
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    for key in ("cff-version", "message", "title", "authors", "version", "license"):
        assert key in data, key
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert data["title"].startswith("geosched") and str(data["version"]) == version
    assert data["license"] == "Apache-2.0"
    text = json.dumps(data)
    for paper in ("2606.22327", "2502.07115", "2603.07917", "Splitwise"):
        assert paper in text, paper
    for reference in data["references"]:
        assert {"type", "title", "authors"} <= set(reference), reference


def test_changelog_names_the_version_and_license_is_apache():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert re.search(rf"^## \[?{re.escape(version)}\]?", (ROOT / "CHANGELOG.md").read_text(), re.M)
    license_text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text


def test_install_hints_work_from_a_clone():
    offenders = []
    for folder in ("geosched", "reference_impl", "adversary", "verify", "theory"):
        for path in sorted(set((ROOT / folder).rglob("*.py")) - {ROOT / "geosched" / "output.py"}):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"""["'].*pip install 'geosched\[""", line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert not offenders, f"use geosched.output.install_hint: {offenders}"
    assert "pip install -e '.[plot]'" in output.install_hint("plot")


def test_readme_first_command_puts_geosched_on_path():
    """The README's opening block activates the venv before calling a bare ``geosched``, so that
    the quick tour after it (bare ``geosched ...``) works in the same shell."""
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    first = commands[0]
    assert ". .venv/bin/activate" in first or "source .venv/bin/activate" in first
    assert first.index("activate") < first.index("geosched claims")


# ---------------------------------------------------------------- --quiet / --verbose, library logs


def test_vllm_log_lines_do_not_leak_into_check_witness():
    pytest.importorskip("vllm")
    witness = ROOT / "docs" / "witnesses" / "vllm-fcfs_burst_ratio15.264.json"
    if not witness.is_file():
        pytest.skip("no vllm-fcfs witness in docs/witnesses")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VLLM_LOGGING")}
    proc = subprocess.run([sys.executable, "-m", "geosched", "check-witness", str(witness), "--vllm"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "vLLM replay (" in proc.stdout
    noise = [line for line in (proc.stdout + proc.stderr).splitlines()
             if "INFO" in line or "WARNING" in line or "Triton" in line or "vllm._C" in line]
    assert not noise, noise


def test_quiet_and_verbose_are_exclusive(capsys):
    with pytest.raises(SystemExit) as info:
        main(["simulate", "example", "--quiet", "--verbose"])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# ---------------------------------------------------------------- the campaign's output categories

from cli_harness import run_cli  # noqa: E402
from reliability_cases import classify  # noqa: E402
from reliability_output_cases import kill_cases, kill_verdict, output_cases, prepared  # noqa: E402

OUTPUT_CASES = output_cases()
KILL_CASES = kill_cases()


@pytest.mark.parametrize("case", OUTPUT_CASES, ids=[c.name for c in OUTPUT_CASES])
def test_output_case_is_a_clean_error(case, tmp_path, tmp_path_factory, monkeypatch):
    if "predictor" in case.argv:
        pytest.importorskip("torch")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path_factory.mktemp("system-tmp")))  # rescued work goes here
    with prepared(case, tmp_path) as why:
        if why is not None:
            pytest.skip(why)
        outcome, detail = classify(case, run_cli(case.argv, tmp_path))
    assert outcome == "clean error", f"{outcome}: {detail}"


@pytest.mark.parametrize("case", KILL_CASES, ids=[c.name for c in KILL_CASES])
def test_sigkill_in_a_commands_write_keeps_the_old_file(case, tmp_path):
    if "predictor" in case.argv:
        pytest.importorskip("torch")
    outcome, detail = kill_verdict(case, tmp_path)
    assert outcome == "old file kept, leftover cleaned", f"{outcome}: {detail}"
