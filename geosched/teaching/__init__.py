"""The teaching wing: pictures (:mod:`geosched.teaching.plot`), the lessons as notebooks
(:mod:`geosched.teaching.lessons`) and their commands ``geosched plot`` and ``geosched lessons``
(:mod:`geosched.teaching.commands`).

Nothing else in the package imports it; it imports the packages below it. The submodules load on
first use (``from geosched.teaching import plot``; matplotlib itself only when a picture is drawn),
and ``from geosched import plot`` still works.

Example
-------
>>> from geosched.teaching import lessons
>>> lessons.__name__
'geosched.teaching.lessons'
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["plot", "lessons", "commands"]


def __getattr__(name: str) -> Any:
    if name in __all__:  # a submodule, imported on first use
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
