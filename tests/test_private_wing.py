"""The private wing (issue 47, item 4; ci/private_wing.py): applied on this checkout, and re-runnable.

The script is meant to run again after every merge; the first test fails when a merged branch brings back an
old name (a module outside the wing, an import of its old name), with the command that fixes it.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


def _wing() -> SimpleNamespace:
    return SimpleNamespace(**runpy.run_path(str(ROOT / "ci" / "private_wing.py")))  # ci/ is no package


def test_the_wing_is_applied_on_this_checkout():
    done = subprocess.run([sys.executable, str(ROOT / "ci" / "private_wing.py"), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, f"run `python ci/private_wing.py` (then the tests):\n{done.stdout}{done.stderr}"
    wing = _wing()
    assert all((ROOT / wing.module_path(new)).is_file() for new in wing.WING.values())
    assert all(new.rsplit(".", 1)[1].startswith("_") for new in wing.WING.values())


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _tree(root: Path, files: dict[str, str]) -> None:
    """A committed git checkout holding ``files`` (path -> text)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "the tree")


def test_a_run_moves_and_rewrites_every_reference_and_a_second_run_does_nothing(tmp_path):
    wing = _wing()
    files = {
        "geosched/lazy.py": "def f():\n    return 1\n",
        "reference_impl/x.py": "import geosched.lazy as lz  # why\nfrom geosched.lazy import f\n",
        "tests/test_x.py": "from geosched import lazy\nfrom geosched import lazy_other\n",
        "docs/page.md": "See `geosched/lazy.py` and :mod:`geosched.lazy`; not geosched.lazy_other.\n",
        "CHANGELOG.md": "- `geosched/lazy.py` was added\n",
    }
    _tree(tmp_path, files)
    table = {"geosched.lazy": "geosched._lazy"}
    assert len(wing.pending(tmp_path, table)) == 4  # the move and three files: the check can fail
    done = wing.apply(tmp_path, table)
    assert done[0] == "moved geosched/lazy.py -> geosched/_lazy.py" and len(done) == 4
    assert not (tmp_path / "geosched/lazy.py").exists() and (tmp_path / "geosched/_lazy.py").is_file()
    assert (tmp_path / "reference_impl/x.py").read_text() == ("import geosched._lazy as lz  # why\n"
                                                             "from geosched._lazy import f\n")
    assert (tmp_path / "tests/test_x.py").read_text() == ("from geosched import _lazy as lazy\n"
                                                         "from geosched import lazy_other\n")
    assert (tmp_path / "docs/page.md").read_text() == ("See `geosched/_lazy.py` and :mod:`geosched._lazy`; "
                                                      "not geosched.lazy_other.\n")
    assert (tmp_path / "CHANGELOG.md").read_text() == files["CHANGELOG.md"]  # history keeps its names
    assert wing.pending(tmp_path, table) == [] and wing.apply(tmp_path, table) == []


def test_a_retired_module_goes_and_each_import_from_it_goes_to_the_names_own_module(tmp_path):
    wing = _wing()
    old = "geosched.reference_impl.simulator"
    files = {
        "reference_impl/simulator.py": "from geosched.reference_impl.engine import BlockedInterval\n",
        "verify/x.py": ("def f():\n    from geosched.reference_impl.simulator import BlockedInterval, simulate  # why\n"
                        '    """:func:`geosched.reference_impl.simulator.simulate`"""\n'),
        "verify/y.py": "from geosched.reference_impl.simulator import unknown_name\n",
    }
    _tree(tmp_path, files)
    table = {old: {"simulate": "geosched.reference_impl.simulation",
                   "BlockedInterval": "geosched.reference_impl.engine"}}
    done = wing.apply(tmp_path, {}, table)
    assert done[0] == "removed reference_impl/simulator.py" and not (tmp_path / "reference_impl/simulator.py").exists()
    assert (tmp_path / "verify/x.py").read_text() == (
        "def f():\n    from geosched.reference_impl.engine import BlockedInterval\n"
        "    from geosched.reference_impl.simulation import simulate  # why\n"
        '    """:func:`geosched.reference_impl.simulation.simulate`"""\n')
    assert (tmp_path / "verify/y.py").read_text() == files["verify/y.py"]  # a name the table cannot place stays
    assert wing.pending(tmp_path, {}, table) == [f"verify/y.py: {old}"]  # ... and --check names it
