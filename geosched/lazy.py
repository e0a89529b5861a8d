"""Public names of a package that are imported on first use.

``geosched``'s packages re-export their main names (``from geosched.adversary import
verify_witness``) without importing every module at ``import`` time: the command line builds
its parser from all the packages, and eager imports (numba, sympy, Z3) would cost seconds
before ``geosched --help`` prints anything.

Example
-------
>>> getattr_, dir_ = lazy_exports("pkg", {"sqrt": "math", "join": ("os.path", "join")}, {})
>>> getattr_("sqrt")(16.0)
4.0
>>> getattr_("join")("a", "b")
'a/b'
>>> dir_()
['join', 'sqrt']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str | tuple[str, str]],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module-level ``__getattr__`` and ``__dir__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's name (for the error message).
    exports : mapping
        Public name -> the module that defines it under the same name, or a pair
        ``(module, attribute)`` where the public name differs (``derivation`` is
        ``geosched.theory.get_derivation``).
    namespace : dict
        The package's ``globals()``: a resolved name is stored there, so later accesses are
        plain lookups.

    Returns
    -------
    (__getattr__, __dir__)
        Assign them at the package's top level.

    Raises
    ------
    AttributeError
        From ``__getattr__``, for a name that is not exported.
    """

    def getattr_(name: str) -> Any:
        try:
            target = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        module_name, attribute = (target, name) if isinstance(target, str) else target
        value = getattr(importlib.import_module(module_name), attribute)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return getattr_, dir_
