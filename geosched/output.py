"""Output helpers shared by every command: the ``--json`` contract.

This module sits below both :mod:`geosched.cli` and the subpackages' ``commands`` modules,
so that neither imports the other's internals (no import cycle through the CLI).

>>> from fractions import Fraction
>>> emit_json({"ratio": Fraction(3, 2)})
{
 "ratio": 1.5
}
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

__all__ = ["emit_json", "json_default", "to_json"]


def json_default(value: Any) -> Any:
    """The ``default=`` hook of :func:`json.dumps` for geosched's values.

    Fractions become floats, numpy scalars Python numbers, and any object with ``to_dict()``
    its dictionary; anything else is a ``TypeError`` as in :mod:`json`.
    """
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    # numpy scalars, without importing numpy here
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def to_json(data: Any) -> str:
    """``data`` as indented JSON text with :func:`json_default`."""
    return json.dumps(data, indent=1, sort_keys=False, default=json_default)


def emit_json(data: Any) -> None:
    """Print one JSON object on stdout (the ``--json`` contract of every command)."""
    print(to_json(data))
