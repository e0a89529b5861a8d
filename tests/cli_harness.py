"""Run ``geosched`` commands in-process on files in a scratch folder, and classify the outcome.

Used by ``tests/test_reliability.py`` (every bad input must be a clean error) and by
``benchmarks/reliability_campaign.py`` (the counts table of issue 11).

A *clean error* is what the developers' guide asks of bad input: exit status 2, exactly one
line on stderr, starting ``geosched: error:``, no traceback, and no file in the folder
created, changed or removed. An exception escaping :func:`geosched.cli.main` is a traceback
(the installed ``geosched`` script would print one).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import traceback
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class CliRun:
    """What one command did."""

    argv: list[str]
    code: int | None  # exit status; None when an exception escaped main()
    stdout: str
    stderr: str
    exception: str | None  # the escaped exception's traceback text, if any
    changed: list[str] = field(default_factory=list)  # files created, changed or removed

    @property
    def traceback(self) -> bool:
        return self.exception is not None or "Traceback (most recent call last)" in self.stderr

    @property
    def clean_error(self) -> bool:
        lines = self.stderr.splitlines()
        return (self.code == 2 and not self.traceback and len(lines) == 1
                and lines[0].startswith("geosched: error:") and not self.changed)

    def describe(self) -> str:
        if self.exception is not None:
            return f"traceback: {self.exception.strip().splitlines()[-1]}"
        return f"exit {self.code}; stderr {self.stderr.strip()[-300:]!r}; changed {self.changed}"


def snapshot(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder``."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def write_files(folder: Path, files) -> None:
    """Write ``files`` (name -> text or bytes, or a function returning that) under ``folder``."""
    if callable(files):
        files = files()
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def run_cli(argv: list[str], folder: Path) -> CliRun:
    """Run ``geosched ARGV`` with ``folder`` as the working directory, capturing everything."""
    from geosched.cli import main

    before = snapshot(folder)
    out, err = io.StringIO(), io.StringIO()
    code: int | None = None
    exception = None
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse (usage errors, --help, --version)
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
            except BaseException:  # noqa: BLE001 - exactly what the user would see as a traceback
                exception = traceback.format_exc()
    finally:
        os.chdir(cwd)
    after = snapshot(folder)
    changed = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
    return CliRun(list(argv), code, out.getvalue(), err.getvalue(), exception, changed)
