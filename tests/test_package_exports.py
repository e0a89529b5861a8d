"""One export list per package: every package of pyproject.toml declares ``__all__``, and every name
in it resolves (lazy names included: each is imported here, as a user's first access would). Each public
name is written once (issue 47, item 4): ``__all__`` is read from the package's own ``name as name``
imports (:mod:`geosched._lazy`), never a second, hand-written list of strings.

The packages are read from pyproject.toml's ``packages`` (a data-only package without an
``__init__.py``, such as the lessons, has no names to export), so a new package is checked
without editing this file.
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
PACKAGES = [name for name in _SETUPTOOLS["packages"]
            if (ROOT / _SETUPTOOLS["package-dir"][name] / "__init__.py").is_file()]


def test_the_packages_are_read_from_pyproject():
    assert {"geosched", "geosched.reference_impl", "geosched.reference_impl.formats", "geosched.teaching",
            "geosched.verify", "geosched.adversary", "geosched.theory"} <= set(PACKAGES)
    assert "geosched.lesson_files" not in PACKAGES  # data only


def _init_source(package: str) -> str:
    return (ROOT / _SETUPTOOLS["package-dir"][package] / "__init__.py").read_text()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_has_an_export_list_and_every_name_resolves(package):
    assert "__all__ = " in _init_source(package), f"{package}/__init__.py declares no __all__"
    module = importlib.import_module(package)
    exported = module.__all__
    assert isinstance(exported, (list, tuple)) and exported, f"{package}.__all__ is empty"
    assert all(isinstance(name, str) for name in exported)
    assert len(set(exported)) == len(exported), f"{package}.__all__ repeats a name"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{package}.__all__ names what it does not have: {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_each_public_name_is_written_once(package):
    import ast

    from geosched._lazy import declared_names

    tree = ast.parse(_init_source(package))
    strings = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    exported = importlib.import_module(package).__all__
    assert not strings & set(exported) - {"FORMATS"}, f"{package}: a name written again (a hand list)"
    statements = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.ImportFrom, ast.Assign))),
                        key=lambda n: n.lineno)
    declared = declared_names("\n".join(ast.unparse(n) for n in statements))[1]  # `a as a` imports, `short = a`
    assert set(exported) - {"FORMATS"} == set(declared), f"{package}: __all__ is not its declarations"
    assert len(declared) == len(set(declared)), f"{package}: a name declared twice"


def test_the_once_rule_sees_a_hand_list():
    import ast

    source = 'from m import a as a\n__all__ = ["a"]\n'
    strings = {n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)}
    assert strings & {"a"}  # what the test above refuses
