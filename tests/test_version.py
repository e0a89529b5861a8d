"""One version: geosched/version.py (the bottom floor) equals pyproject's, and no module imports it from the root."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import geosched
from geosched.version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_version_module_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["version"] == __version__ == geosched.__version__


def test_the_citation_and_the_changelog_name_this_version():
    assert re.search(rf'^version: "{re.escape(__version__)}"$', (ROOT / "CITATION.cff").read_text(), re.M)
    # a release note for it, with a date (the tag v{__version__} marks the commit)
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$",
                     (ROOT / "CHANGELOG.md").read_text(), re.M)


def test_no_module_imports_the_version_from_the_root_package():
    upward = re.compile(r"^\s*from geosched import .*__version__", re.M)
    offenders = [str(p.relative_to(ROOT)) for folder in ("geosched", "reference_impl", "theory", "verify", "adversary")
                 for p in (ROOT / folder).rglob("*.py") if upward.search(p.read_text())]
    assert offenders == []


def test_ci_runs_the_readmes_test_command():
    """The README's second opening command is the command .ci/run runs (CI checks what users run)."""
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in first_block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == commands[1]
