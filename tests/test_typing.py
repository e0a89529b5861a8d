"""The typed public API passes a type checker (mypy): the package's public modules, and a user's code
written against them.

The package maps folders onto subpackages (``reference_impl/`` is ``geosched.reference_impl``), which
mypy cannot follow from the source tree, so the check runs on a tree of links laid out as the wheel
installs it. The modules named in :data:`PUBLIC` are checked with every function annotated; what they
import is analysed for its types (``--follow-imports=silent``) but judged only through them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# geosched/__init__.py, api.py, results.py, testing.py and what they expose: the lazy names' modules
# that define the public types (engines: simulate's front; model: Instance, Request), the plugin, errors
PUBLIC = ["geosched/__init__.py", "geosched/api.py", "geosched/results.py", "geosched/testing.py",
          "geosched/pytest_plugin.py", "geosched/engines.py", "geosched/errors.py", "geosched/_lazy.py",
          "geosched/version.py", "geosched/reference_impl/model.py"]
FLAGS = ["--follow-imports=silent", "--ignore-missing-imports", "--disallow-untyped-defs",
         "--disallow-incomplete-defs", "--warn-unused-ignores", "--no-implicit-reexport", "--no-error-summary"]

# a user's code: what the README and docs/schedulers.md show, written with the public names
USER_CODE = '''
from hypothesis import given

import geosched as gs
from geosched.reference_impl.scheduling import Decision, SchedulerState
from geosched.testing import SchedulerCheck, check_scheduler, instances


class Serial:
    name = "serial"
    clairvoyant = False
    preempts = False

    def decide(self, state: SchedulerState) -> Decision:
        if state.running or not state.waiting:
            return Decision()
        return Decision(admit=(state.waiting[0].id,))


instance: gs.Instance = gs.Instance(12, [gs.Request("a", 0, 6, 3), gs.Request("b", 0, 1, 5)])
starts: dict[str, int] = gs.simulate(instance, "svf").starts
report = gs.check_schedule(instance, starts)
tel: int | None = report.metrics.tel if report.metrics is not None else None
result: SchedulerCheck = check_scheduler(Serial, examples=5)
ok: bool = result.success


@given(instances(max_n=3))
def test_feasible(generated: gs.Instance) -> None:
    assert gs.check_schedule(generated, gs.simulate(generated, "sjf").starts).feasible
'''


def _installed_layout(tmp: Path) -> Path:
    """Links to the sources, laid out as the wheel installs them (pyproject's package-dir)."""
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in mapping.items():
        target = tmp / package.replace(".", "/")
        target.mkdir(parents=True, exist_ok=True)
        for source in [*(ROOT / folder).glob("*.py"), ROOT / folder / "py.typed"]:
            if source.is_file():
                (target / source.name).symlink_to(source)
    return tmp


@pytest.fixture(scope="module")
def mypy(tmp_path_factory):
    """Run mypy with :data:`FLAGS` in one linked tree and one cache: ``mypy(user_code, *files)``."""
    pytest.importorskip("mypy", reason="mypy is in the test extra: pip install -e '.[test]'")
    tmp = tmp_path_factory.mktemp("typing")
    tree = _installed_layout(tmp / "tree")

    def run(code: str, *files: str) -> subprocess.CompletedProcess:
        (tree / "user_code.py").write_text(textwrap.dedent(code))
        return subprocess.run([sys.executable, "-m", "mypy", *FLAGS, "--cache-dir", str(tmp / "cache"), *files,
                               "user_code.py"], cwd=tree, capture_output=True, text=True)

    return run


def test_the_public_api_and_a_users_code_type_check(mypy):
    done = mypy(USER_CODE, *PUBLIC)
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr


def test_the_check_can_fail(mypy):
    """The same run on a user's mistake (a string where the memory budget goes) reports it."""
    done = mypy('import geosched as gs\n\ngs.Instance("12", [])\n')
    assert done.returncode == 1 and 'Argument 1 to "Instance" has incompatible type "str"' in done.stdout
