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
import os
import re
import stat
from pathlib import Path
from typing import Any

from geosched.errors import WorkloadFormatError

__all__ = ["loads", "read_json", "read_text", "read_bytes", "decode_text", "require_regular_file"]


def _no_duplicates(source: str):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        data = dict(pairs)  # in C; only an object with a duplicate is walked again
        if len(data) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise WorkloadFormatError(f"{source}: duplicate key {key!r} in a JSON object")
                seen.add(key)
        return data

    return hook


class _NonFinite:
    """Stands for a ``NaN``/``Infinity`` literal until the whole document is read, so that the
    error can name where it was."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def loads(text: str, source: str) -> Any:
    """Parse ``text`` strictly (no duplicate keys, no NaN/Infinity, no lone surrogates);
    ``source`` names it in errors.

    >>> loads('{"requests": [{"prompt": NaN}]}', "demo")
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: demo: requests[0].prompt: NaN is not a number (strict JSON)
    >>> loads('{"id": "\\\\ud800"}', "demo")
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: demo: id: '\\ud800' is not encodable text (a lone surrogate escape)
    """
    literals: list[_NonFinite] = []

    def constant(literal: str) -> _NonFinite:
        literals.append(_NonFinite(literal))
        return literals[-1]

    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates(source), parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise WorkloadFormatError(f"{source}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise WorkloadFormatError(f"{source}: invalid JSON (nested too deeply)") from None
    except WorkloadFormatError:  # from the hooks above (it is a ValueError too)
        raise
    except ValueError as exc:  # an integer of more than 4300 digits (Python's int-string limit)
        raise WorkloadFormatError(f"{source}: invalid JSON ({str(exc).split(':')[0]})") from None
    # the document is walked only when it holds a NaN/Infinity literal or a surrogate escape
    # (the text is decoded UTF-8, so a lone surrogate can only come from a \\uD800-\\uDFFF escape)
    if literals or _SURROGATE_ESCAPE.search(text) or (not text.isascii() and _unencodable(text)):
        try:
            found = _find_bad_value(data, "")
        except RecursionError:
            raise WorkloadFormatError(f"{source}: invalid JSON (nested too deeply)") from None
        if found:
            where, message = found
            raise WorkloadFormatError(f"{source}: {where.lstrip('.') or 'value'}: {message}")
    return data


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _find_bad_value(data: Any, path: str) -> tuple[str, str] | None:
    """``(where, message)`` of the first NaN/Infinity literal or unencodable string (key or value)."""
    if isinstance(data, _NonFinite):
        return path, f"{data.literal} is not a number (strict JSON)"
    if isinstance(data, str):
        return (path, f"{data!r} is not encodable text (a lone surrogate escape)") if _unencodable(data) else None
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, str) and _unencodable(key):
            return path, f"key {key!r} is not encodable text (a lone surrogate escape)"
        found = _find_bad_value(value, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found:
            return found
    return None


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def require_regular_file(path: str | Path) -> Path:
    """``path`` if it names a regular file (after symlinks); a FIFO, device, socket or directory
    is a one-line :class:`~geosched.errors.WorkloadFormatError` (reading a FIFO would block).

    >>> require_regular_file("/dev/null")
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: /dev/null: a character device, not a regular file
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise WorkloadFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:  # a NUL byte in the name
        raise WorkloadFormatError(f"{path!r}: cannot read ({exc})") from None
    if not stat.S_ISREG(mode):
        raise WorkloadFormatError(f"{path}: {_kind(mode)}, not a regular file")
    return path


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file (see :func:`require_regular_file`); the file is opened without
    blocking and checked again once open, so that a FIFO swapped in meanwhile cannot hang."""
    path = require_regular_file(path)
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise WorkloadFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise WorkloadFormatError(f"{path}: {_kind(mode)}, not a regular file")
        with os.fdopen(handle, "rb", closefd=False) as stream:
            return stream.read()
    except OSError as exc:
        raise WorkloadFormatError(f"{path}: cannot read ({exc.strerror or exc})") from None
    finally:
        os.close(handle)


def read_text(path: str | Path) -> str:
    """The file's text, decoded as UTF-8; unreadable or undecodable files are one-line errors."""
    return decode_text(read_bytes(path), path)


def decode_text(raw: bytes, path: str | Path) -> str:
    """``raw`` decoded as UTF-8; undecodable bytes are a one-line error naming ``path``."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkloadFormatError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def read_json(path: str | Path) -> Any:
    """Read and parse a JSON file strictly (see :func:`loads`)."""
    return loads(read_text(path), str(path))
