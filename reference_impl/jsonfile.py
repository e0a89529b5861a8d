"""Strict JSON input: every file geosched reads (instances, schedules, witnesses, checkpoints).

Python's :mod:`json` accepts things a referee must not: a duplicated key silently keeps the
last value (``"certified_ratio": 99, "certified_ratio": 3.2`` reads as 3.2), ``NaN`` and
``Infinity`` are read as floats, and a file that is not UTF-8 raises a ``UnicodeDecodeError``
with a traceback. Here each of them is a :class:`~geosched.errors.WorkloadFormatError` with
one line naming the file, the place and the value.

Example
-------
>>> loads('{"a": 1}', "demo")
{'a': 1}
>>> loads('{"a": 1, "a": 2}', "demo")
Traceback (most recent call last):
...
geosched.errors.WorkloadFormatError: demo: duplicate key 'a' in a JSON object
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from geosched.errors import WorkloadFormatError

__all__ = ["loads", "read_json", "read_text"]


def _no_duplicates(source: str):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for key, value in pairs:
            if key in data:
                raise WorkloadFormatError(f"{source}: duplicate key {key!r} in a JSON object")
            data[key] = value
        return data

    return hook


class _NonFinite:
    """Stands for a ``NaN``/``Infinity`` literal until the whole document is read, so that the
    error can name where it was."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _find_non_finite(data: Any, path: str) -> tuple[str, str] | None:
    if isinstance(data, _NonFinite):
        return path, data.literal
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _find_non_finite(value, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found:
            return found
    return None


def loads(text: str, source: str) -> Any:
    """Parse ``text`` strictly (no duplicate keys, no NaN/Infinity); ``source`` names it in errors.

    >>> loads('{"requests": [{"prompt": NaN}]}', "demo")
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: demo: requests[0].prompt: NaN is not a number (strict JSON)
    """
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates(source), parse_constant=_NonFinite)
    except json.JSONDecodeError as exc:
        raise WorkloadFormatError(f"{source}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise WorkloadFormatError(f"{source}: invalid JSON (nested too deeply)") from None
    except WorkloadFormatError:  # from the hooks above (it is a ValueError too)
        raise
    except ValueError as exc:  # an integer of more than 4300 digits (Python's int-string limit)
        raise WorkloadFormatError(f"{source}: invalid JSON ({str(exc).split(':')[0]})") from None
    try:
        found = _find_non_finite(data, "")
    except RecursionError:
        raise WorkloadFormatError(f"{source}: invalid JSON (nested too deeply)") from None
    if found:
        where, literal = found
        raise WorkloadFormatError(f"{source}: {where.lstrip('.') or 'value'}: {literal} is not a number (strict JSON)")
    return data


def read_text(path: str | Path) -> str:
    """The file's text, decoded as UTF-8; unreadable or undecodable files are one-line errors."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise WorkloadFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkloadFormatError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def read_json(path: str | Path) -> Any:
    """Read and parse a JSON file strictly (see :func:`loads`)."""
    return loads(read_text(path), str(path))
