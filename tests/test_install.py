"""An install the user's tools understand (issue 44, item 5).

The README's ``pip install -e .`` is a strict editable install (setup.cfg's ``[editable_wheel] mode = strict``):
a static path entry to a tree of links to the sources. These tests run against the environment the suite runs
in, which ci/setup.sh installs with the README's command: ``mypy`` on a user's file outside the repository
resolves ``geosched`` (and finds a type error in it, so it really read the package's types), and a folder named
``geosched`` in the current directory (a clone's default name, seen from its parent) does not shadow the package.
An environment installed the older way (an import hook) fails them in CI and is skipped elsewhere, naming the fix.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
USER_FILE = """\
import geosched as gs
from geosched.reference_impl.model import burst_instance

instance = burst_instance(12, [(6, 3), (1, 5)])
result = gs.simulate(instance, "svf")
n: int = instance.n
"""


def _hook_install() -> bool:
    """Whether geosched is found through setuptools' editable import hook (the lenient mode) in this process."""
    return any(type(f).__module__.startswith("__editable__") or getattr(f, "__module__", "").startswith(
        "__editable__") for f in sys.meta_path)


@pytest.fixture
def static_install():
    if _hook_install():
        message = ("geosched is installed through an import hook (a lenient editable install): run `pip install -e .` "
                   "again (setup.cfg makes it strict) or bash ci/setup.sh")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_the_editable_install_is_strict_by_setup_cfg():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert config["editable_wheel"]["mode"] == "strict"
    first = (ROOT / "README.md").read_text().split("```bash", 1)[1].split("```", 1)[0]
    assert "pip install -e ." in first  # the README's install is that one


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    user = tmp_path / "user.py"
    user.write_text(text)
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), str(user)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)


def test_mypy_resolves_geosched_from_a_users_file_outside_the_repository(tmp_path, static_install):
    good = _mypy(tmp_path, USER_FILE)
    assert good.returncode == 0, good.stdout + good.stderr
    bad = _mypy(tmp_path, USER_FILE.replace("n: int", "n: str"))
    assert bad.returncode == 1 and 'Incompatible types in assignment (expression has type "int"' in bad.stdout, \
        bad.stdout


def test_a_folder_named_geosched_in_the_current_directory_does_not_shadow_the_package(tmp_path, static_install):
    (tmp_path / "geosched" / "geosched").mkdir(parents=True)  # a clone named geosched, as git names it
    (tmp_path / "geosched" / "README.md").write_text("a clone\n")
    code = ("import geosched, geosched.reference_impl.model as m; "
            "print(geosched.__file__ is not None, m.burst_instance(12, [(6, 3)]).n)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0 and run.stdout.split() == ["True", "1"], run.stdout + run.stderr


def test_every_source_module_is_in_the_installed_tree(static_install):
    """A strict install links the files it saw: a module added since needs the install again (say which)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    missing = []
    for package, folder in mapping.items():
        for source in (ROOT / folder).glob("*.py"):
            name = f"{package}.{source.stem}" if source.stem != "__init__" else package
            if importlib.util.find_spec(name) is None:
                missing.append(name)
    assert not missing, f"not installed (run `pip install -e .` again): {missing}"
