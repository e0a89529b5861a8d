"""What several workload formats (and the Azure trace reader) share: strict numbers and timestamps.

Not a format itself (it defines no ``FORMAT``): the Azure TIMESTAMP and token-count parsers that
the ``azure-csv`` reader and :func:`geosched.reference_impl.workloads.read_trace` both use, the
step-length check every writer applies, and the first-line sniffing of a JSON-lines file.

Example
-------
>>> parse_token_count("12", "ContextTokens", "demo")
12
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.jsonfile import require_regular_file

__all__ = ["parse_trace_timestamp", "parse_token_count", "check_step_seconds", "first_json_line",
           "integer_field", "DIGITS"]

DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: int() would also take "1_000", "+5", "٣٤", " 6"
_UNIX = datetime(1970, 1, 1)


def parse_trace_timestamp(text: str, where: str) -> Decimal:
    """Seconds since 1970-01-01 of an Azure TIMESTAMP ``YYYY-MM-DD HH:MM:SS[.fraction]``, exactly
    (the clock as written: no time zone is applied). Anything else is a one-line error.

    >>> parse_trace_timestamp("0001-01-01 00:00:00.5", "demo")
    Decimal('-62135596799.5')
    >>> parse_trace_timestamp("2023-11-16 00:00:0x", "demo")
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: demo: TIMESTAMP '2023-11-16 00:00:0x' is not 'YYYY-MM-DD HH:MM:SS[.f]'
    """
    head, _, fraction = text.partition(".")
    try:
        if not head.isascii():  # strptime's %Y takes full-width and other Unicode digits
            raise ValueError(head)
        base = datetime.strptime(head, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise WorkloadFormatError(f"{where}: TIMESTAMP {text!r} is not 'YYYY-MM-DD HH:MM:SS[.f]'") from None
    if fraction and not DIGITS.fullmatch(fraction):
        raise WorkloadFormatError(f"{where}: TIMESTAMP {text!r} has a bad fractional part")
    # exact integers and decimals: a float of ~1.7e9 seconds keeps only ~0.2 us, so (T - T0) / step
    # could land just below an integer and floor to the previous step
    since = base - _UNIX
    return Decimal(since.days * 86400 + since.seconds) + (Decimal("0." + fraction) if fraction else Decimal(0))


def parse_token_count(text: str, column: str, where: str, raw: str | None = None) -> int:
    """A count written in ASCII digits only (no sign, space, underscore or other digits), at most 16 of them.

    >>> parse_token_count("+6", "ContextTokens", "demo")
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: demo: ContextTokens: must be a token count written in ASCII digits (got '+6')
    """
    if not DIGITS.fullmatch(text):
        raise ValidationError(f"{where}: {column}", text if raw is None else raw,
                              "must be a token count written in ASCII digits")
    if len(text) > 16:  # more than 2^53 (geosched's limit for one value)
        raise ValidationError(f"{where}: {column}", text if raw is None else raw, "must be at most 2^53")
    return int(text)


def check_step_seconds(step_seconds: Any) -> Decimal:
    """``step_seconds`` as an exact decimal, if it is a positive finite number (else a ValidationError)."""
    if isinstance(step_seconds, bool) or not isinstance(step_seconds, (int, float)) \
            or not math.isfinite(step_seconds) or step_seconds <= 0:
        raise ValidationError("step_seconds", step_seconds, "must be a positive number")
    return Decimal(str(step_seconds))


def integer_field(row: Any, key: str, where: str) -> int:
    """``row[key]`` if it is an integer (not a bool), else a one-line error naming the field."""
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorkloadFormatError(f"{where}: {key!r} must be an integer, got {value!r}")
    return value


def first_json_line(path: Path) -> Any:
    """The JSON value of the first non-blank line of ``path``, read leniently (for ``detect``:
    None when the file cannot be read or the line is not JSON; the format's reader is the strict one)."""
    try:
        with require_regular_file(path).open(encoding="utf-8", errors="replace") as handle:  # never a FIFO
            for line in handle:
                if line.strip():
                    return json.loads(line)
    except (OSError, ValueError, RecursionError, WorkloadFormatError):
        return None
    return None
