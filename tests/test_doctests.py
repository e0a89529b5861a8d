"""Every module's doctests run (the runnable examples of the docstrings).

The examples are documentation that is executed: a docstring that shows a wrong value, or
an API that changed under it, fails here. Modules that need an optional extra (vLLM for the
scheduler plugin, matplotlib for pictures) are skipped when it is missing, with the reason.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_DIRS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
_NEEDS = {"geosched.reference_impl.vllm.plugin": "vllm", "geosched.teaching.plot": "matplotlib"}


def _modules() -> list[str]:
    names = []
    for package, folder in _DIRS.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            if path.name != "__main__.py":
                names.append(package if path.name == "__init__.py" else f"{package}.{path.stem}")
    return names


MODULES = _modules()


def test_every_package_module_is_collected():
    assert "geosched.reference_impl.simulation" in MODULES and len(MODULES) > 50


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    needed = _NEEDS.get(name)
    if needed and importlib.util.find_spec(needed) is None:
        pytest.skip(f"{name} needs {needed}, which is not installed")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctests failed in {name}"
