"""Every example marked runnable in README.md and docs/*.md runs as written.

A fenced block whose info string is ``bash runnable`` is run as one bash script (``set -e``:
every command must succeed); ``python runnable`` as one Python script. Each block runs in a
fresh temporary directory with this environment's ``geosched`` first on ``PATH``. Blocks
without the marker (installation steps, machine-specific recipes, usage synopses) are not run;
``test_readme_shows_runnable_examples`` makes sure the marker is used.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w+) runnable\s*\n(.*?)^```\s*$", re.S | re.M)


def _blocks() -> list[tuple[str, str, str]]:
    found = []
    for path in DOCS:
        for k, match in enumerate(_FENCE.finditer(path.read_text())):
            found.append((f"{path.relative_to(ROOT)}#{k}", match.group(1), match.group(2)))
    return found


BLOCKS = _blocks()


def test_readme_shows_runnable_examples():
    kinds = {language for name, language, _ in BLOCKS if name.startswith("README")}
    assert {"bash", "python"} <= kinds


@pytest.mark.slow
@pytest.mark.parametrize("name, language, code", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_example_runs_as_written(name, language, code, tmp_path):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               MPLBACKEND="Agg")
    if language == "bash":
        command = ["bash", "-euo", "pipefail", "-c", code]
    elif language == "python":
        command = [sys.executable, "-c", code]
    else:
        pytest.fail(f"{name}: runnable blocks must be bash or python, not {language}")
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{name} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
