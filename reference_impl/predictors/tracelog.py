"""A trace as a :class:`~geosched.reference_impl.predictors.features.RequestLog`: arrivals in seconds, prompts, outputs.

* The Azure trace (a CSV no workload format claims): rows read by
  :func:`geosched.reference_impl.workloads.read_trace` (the one trace reader: same validation, rows with zero
  output dropped) with microsecond arrival steps, so that ``arrival_seconds`` keeps the timestamps' resolution;
  ``clock_origin`` is the clock time of the first row (seconds after midnight, as written in the file).
* The Mooncake trace: read by :func:`geosched.reference_impl.formats.mooncake.read_mooncake`; its millisecond
  timestamps are kept exactly (it has no clock time: ``clock_origin`` is None).
* Any other workload file (:func:`geosched.reference_impl.formats.read_workload_file`): arrival step ``a`` is
  ``a * 0.025`` s (the readers' default step; a file of times is read at that step), no clock time.

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
from geosched.reference_impl.formats import detect_format, read_workload_file
from geosched.reference_impl.formats.mooncake import read_mooncake
from geosched.reference_impl.predictors.features import RequestLog
from geosched.reference_impl.workloads import DEFAULT_STEP_SECONDS, read_trace

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
    """Read a trace into a log: an Azure-format CSV (``TIMESTAMP, ContextTokens, GeneratedTokens``), the Mooncake
    trace, or any workload file (module docstring).

    Parameters
    ----------
    path : str or Path
        The trace file.
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
    fmt = detect_format(path)
    if fmt is not None:
        return _workload_log(path, fmt.name, limit, offset)
    instance, _ = read_trace(path, arrivals="online", step_seconds=_MICROSECOND, limit=limit, offset=offset)
    requests = instance.requests
    origin = _clock_origin(path) if offset == 0 else None
    return RequestLog([r.arrival * _MICROSECOND for r in requests], [r.prompt for r in requests],
                      [r.output for r in requests], clock_origin=origin)


def _workload_log(path: Path, name: str, limit: int | None, offset: int) -> RequestLog:
    """The log of a workload file: the Mooncake trace at its own millisecond resolution, any other file at
    :data:`~geosched.reference_impl.workloads.DEFAULT_STEP_SECONDS` per arrival step."""
    if name == "mooncake":
        trace = read_mooncake(path, offset=offset, limit=limit)
        requests = trace.instance.requests
        return RequestLog(list(trace.arrival_seconds), [r.prompt for r in requests], [r.output for r in requests])
    requests = read_workload_file(path, step_seconds=DEFAULT_STEP_SECONDS).requests
    requests = requests[offset:] if limit is None else requests[offset:offset + limit]
    first = min(r.arrival for r in requests)
    return RequestLog([(r.arrival - first) * DEFAULT_STEP_SECONDS for r in requests],
                      [r.prompt for r in requests], [r.output for r in requests])
