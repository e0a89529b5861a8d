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

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

if TYPE_CHECKING:  # the wing's modules, each imported on first use
    from geosched.teaching import commands as commands
    from geosched.teaching import lessons as lessons
    from geosched.teaching import plot as plot

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
