"""The code base stays ruff clean (the configuration is in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]' brings it)")
    proc = subprocess.run([ruff, "check", "--quiet", str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
