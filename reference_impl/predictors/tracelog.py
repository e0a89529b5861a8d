"""The Azure trace as a :class:`~geosched.reference_impl.predictors.features.RequestLog`.

Rows are read by :func:`geosched.reference_impl.workloads.read_trace` (the one trace reader:
same validation, rows with zero output dropped) with microsecond arrival steps, so that
``arrival_seconds`` keeps the timestamps' resolution; ``clock_origin`` is the clock time of the
first row (seconds after midnight, as written in the file).

Example
-------
>>> from geosched.reference_impl.workloads import default_trace_path
>>> path = default_trace_path()
>>> log = read_trace_log(path, limit=3) if path else RequestLog([0.0, 4.3, 4.5], [374, 396, 879], [44, 109, 55])
>>> log.n, log.prompt.tolist()
(3, [374, 396, 879])
"""

from __future__ import annotations

import csv
from pathlib import Path

from geosched.errors import WorkloadFormatError
from geosched.reference_impl.predictors.features import RequestLog
from geosched.reference_impl.workloads import read_trace

__all__ = ["read_trace_log"]

_MICROSECOND = 1e-6


def _clock_origin(path: Path) -> float | None:
    with path.open(newline="") as handle:
        row = next(csv.DictReader(handle), None)
    if not row or not row.get("TIMESTAMP"):
        return None
    clock = row["TIMESTAMP"].strip().partition(" ")[2]
    try:
        hours, minutes, seconds = clock.split(":")
        return int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    except ValueError:
        raise WorkloadFormatError(f"{path}:2: TIMESTAMP {row['TIMESTAMP']!r} has no HH:MM:SS clock") from None


def read_trace_log(path: str | Path, *, limit: int | None = None, offset: int = 0) -> RequestLog:
    """Read an Azure-format trace CSV (``TIMESTAMP, ContextTokens, GeneratedTokens``) into a log.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    limit, offset : int, optional
        Read at most ``limit`` rows after skipping ``offset``.

    Returns
    -------
    RequestLog
        Arrivals in seconds since the first row read, prompts, outputs and the clock origin.

    Raises
    ------
    WorkloadFormatError, ValidationError
        As :func:`~geosched.reference_impl.workloads.read_trace`.
    """
    path = Path(path)
    instance, _ = read_trace(path, arrivals="online", step_seconds=_MICROSECOND, limit=limit, offset=offset)
    requests = instance.requests
    origin = _clock_origin(path) if offset == 0 else None
    return RequestLog([r.arrival * _MICROSECOND for r in requests], [r.prompt for r in requests],
                      [r.output for r in requests], clock_origin=origin)
