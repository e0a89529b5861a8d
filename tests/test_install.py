"""An install the user's tools understand (issue 44, item 5).

The README's ``pip install -e .`` goes through ci/build_backend.py (pyproject's build backend): it links the mapped
subpackages into ``geosched/`` and installs a static path to the repository's root (setuptools' compat mode). These
tests run against the environment the suite runs in, which ci/setup.sh installs with the README's command: a
module added after the install is importable at once, ``mypy`` on a user's file outside the repository resolves
``geosched`` (and finds a type error in it, so it read the package's types), and a folder named ``geosched`` in the
current directory (a clone's default name, seen from its parent) does not shadow the package. An environment
installed the older way (an import hook) fails them in CI and is skipped elsewhere, naming the fix.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
import uuid
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
        message = ("geosched is installed through an import hook (setuptools' default editable install): run "
                   "`pip install -e .` again (ci/build_backend.py installs a static path) or bash ci/setup.sh")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_the_readmes_install_goes_through_the_linking_backend():
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]
    assert (build["build-backend"], build["backend-path"]) == ("build_backend", ["ci"])
    first = (ROOT / "README.md").read_text().split("```bash", 1)[1].split("```", 1)[0]
    assert "pip install -e ." in first  # the README's install is that one


def test_a_module_added_after_the_install_is_imported_without_reinstalling(tmp_path, static_install):
    name = f"_probe_{uuid.uuid4().hex[:12]}"  # in a mapped folder that nothing scans for modules (the lessons)
    probe = ROOT / "docs" / "lessons" / f"{name}.py"
    probe.write_text("VALUE = 41 + 1\n")
    try:
        run = subprocess.run([sys.executable, "-c", f"import geosched.lesson_files.{name} as m; print(m.VALUE)"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=300)
    finally:
        probe.unlink()
    assert run.returncode == 0 and run.stdout.strip() == "42", run.stderr


def _mypy(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    user = tmp_path / "user.py"
    user.write_text(text)
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / ".mypy_cache"), str(user)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)


@pytest.mark.slow  # mypy reads the whole package (geosched/__init__'s TYPE_CHECKING imports) and its dependencies
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


def test_the_subpackages_are_the_source_folders_themselves(static_install):
    """Each mapped subpackage is imported from its source folder (through the link), not from a copy."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations, package
        assert Path(list(spec.submodule_search_locations)[0]).resolve() == (ROOT / folder).resolve(), package
