"""Public names of a package, each written once, imported on first use.

A package declares its public names in one place: its ``if TYPE_CHECKING:`` block (or, for a name
loaded with the package, its top-level imports), in the typing
spec's explicit re-export form ``from geosched.x import name as name`` (what type checkers and
IDEs read), or as a variable of the block, ``short = name`` (a public name under another name).
:func:`lazy_exports` reads that block from the package's own source and returns the
package's ``__getattr__``, ``__dir__`` and ``__all__``: a name is imported from its module on first
access, so that ``import geosched`` loads no numpy, sympy, Z3 or numba (the command line builds its
parser from all the packages, and eager imports would cost seconds before ``geosched --help``). A
plain ``from m import x`` in the block (no ``as x``) is reachable the same way but not exported,
as the typing spec reads it.

Example
-------
>>> import geosched
>>> "simulate" in geosched.__all__, "plot" in geosched.__all__, geosched.plot.__name__
(True, False, 'geosched.teaching.plot')
>>> declared_names("from geosched.x import a as a, b\\nfrom geosched.y import c as d\\ne = b")
({'a': ('geosched.x', 'a'), 'b': ('geosched.x', 'b'), 'd': ('geosched.y', 'c'), 'e': ('geosched.x', 'b')}, ['a', 'e'])
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "exported_names", "declared_names"]


def declared_names(source: str) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The ``from M import a [as b]`` statements of ``source``: ``{name: (module, attribute)}``, and the
    exported names (those imported as themselves, ``a as a``, and the variables ``short = a``), in their order."""
    names: dict[str, tuple[str, str]] = {}
    exported: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = (node.module, alias.name)
                if alias.asname == alias.name:
                    exported.append(alias.name)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and isinstance(node.value, ast.Name) and node.value.id in names):  # short = imported: exported
            names[node.targets[0].id] = names[node.value.id]
            exported.append(node.targets[0].id)
    return names, exported


def _declarations(file: str) -> tuple[str, str]:
    """The top-level ``from ... import`` statements of ``file`` and the body of its top-level
    ``if TYPE_CHECKING:``, each as source."""
    eager, lazy = [], []
    for node in ast.parse(Path(file).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            eager.append(ast.unparse(node))
        elif isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lazy += [ast.unparse(statement) for statement in node.body]
    return "\n".join(eager), "\n".join(lazy)


def lazy_exports(package: str, file: str, namespace: dict[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` of ``package`` from the ``if TYPE_CHECKING:`` block of its
    ``__init__.py`` (``file``); a name the package imports at its top level as itself (``from m import a as
    a``: a light module, loaded with the package) is exported too, before the lazy ones.

    Parameters
    ----------
    package : str
        The package's name (for the error message).
    file : str
        The package's ``__init__.py`` (its ``__file__``).
    namespace : dict
        The package's ``globals()``: a resolved name is stored there, so later accesses are plain lookups.

    Returns
    -------
    (__getattr__, __dir__, __all__)
        Assign them at the package's top level; ``__all__`` is the exported names (``a as a``), in order.

    Raises
    ------
    AttributeError
        From ``__getattr__``, for a name that is not declared.
    """
    eager, lazy = _declarations(file)
    declared, exported = declared_names(lazy)
    exported = declared_names(eager)[1] + exported

    def getattr_(name: str) -> Any:
        try:
            module_name, attribute = declared[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        if module_name == package:  # one of the package's own modules (``from pkg import plot as plot``)
            value = importlib.import_module(f"{package}.{attribute}")
        else:
            value = getattr(importlib.import_module(module_name), attribute)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(declared))

    return getattr_, dir_, exported


def exported_names(file: str) -> list[str]:
    """``__all__`` of a package that loads its names with it: the names its ``__init__.py`` (``file``) imports
    at its top level as themselves (``from m import a as a``), in order."""
    return declared_names(_declarations(file)[0])[1]
