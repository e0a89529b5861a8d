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
import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = ["emit_json", "json_default", "to_json", "write_text_atomic", "write_json_atomic"]


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


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` so that a reader (or a kill) never sees a partial file.

    The text goes to a temporary file in the same folder, is flushed to disk, and replaces
    ``path`` in one ``os.replace``: after a crash the file is either the old one or the new one.
    """
    path = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def write_json_atomic(path: str | Path, data: Any) -> Path:
    """:func:`write_text_atomic` of :func:`to_json` (indented, one trailing newline)."""
    return write_text_atomic(path, to_json(data) + "\n")
