"""The ``azure-csv`` workload format: the Azure trace's columns plus geosched's, exactly read back.

The Azure LLM inference trace's columns (Patel et al., "Splitwise", ISCA
2024) ``TIMESTAMP, ContextTokens, GeneratedTokens`` (``TIMESTAMP`` = an epoch plus
``arrival * step_seconds``, written like the trace: ``2023-11-16 00:00:00.0250000``;
``ContextTokens`` = ``s``), plus ``RequestId, ArrivalStep, MemoryTokens``, which the Azure
columns cannot carry exactly (float timestamps lose steps; the trace has no ``M``).
Tools that read the Azure trace by column name read it as a trace.

Example
-------
>>> from geosched.reference_impl.model import Instance, Request
>>> print(write(Instance(12, [Request("a", 3, 6, 3), Request("b", 0, 1, 5)])).replace("\\r", ""), end="")
TIMESTAMP,ContextTokens,GeneratedTokens,RequestId,ArrivalStep,MemoryTokens
2023-11-16 00:00:00.0750000,6,3,a,3,12
2023-11-16 00:00:00.0000000,1,5,b,0,12

Reading it back gives the same instance (the package's example, :mod:`geosched.reference_impl.formats`).
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.formats.common import check_step_seconds, parse_token_count, parse_trace_timestamp
from geosched.reference_impl.formats.registry import WorkloadFormat
from geosched.reference_impl.jsonfile import read_text, require_regular_file
from geosched.reference_impl.model import Instance, Request

__all__ = ["FORMAT", "AZURE_EPOCH", "is_geosched_csv"]

AZURE_EPOCH = datetime(2023, 11, 16, 0, 0, 0)  # the trace's first day; step 0 of an exported workload
_AZURE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
_GEOSCHED_COLUMNS = ("RequestId", "ArrivalStep", "MemoryTokens")
_LAST_SECOND = datetime(9999, 12, 31, 23, 59, 59)  # the last TIMESTAMP a datetime can hold
_STAMP_DIGITS = 7  # fractional digits of an Azure TIMESTAMP
_HALF_TICK = Fraction(1, 2 * 10**_STAMP_DIGITS)  # a written TIMESTAMP is within this of the exact time


def write(instance: Instance, *, step_seconds: float = 0.025) -> str:
    """The file's text: ``TIMESTAMP = AZURE_EPOCH + arrival * step_seconds``, one row per request
    (token grain only: the trace's columns have no place for a block size)."""
    if instance.block_size != 1:
        raise ValidationError("block_size", instance.block_size, "azure-csv has no block size column: export a "
                              "block-grain instance as jsonl or vllm-bench (which keep it)")
    step = check_step_seconds(step_seconds)
    buffer = io.StringIO()
    # csv's own "\r\n" line ends: a field holding either character is then quoted (ids are free text)
    writer = csv.writer(buffer)
    writer.writerow(_AZURE_COLUMNS + _GEOSCHED_COLUMNS)
    for r in instance.requests:
        writer.writerow([_azure_stamp(r.arrival, step), r.prompt, r.output, r.id, r.arrival, instance.memory])
    return buffer.getvalue()


def read(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """The instance of an ``azure-csv`` export (``memory``, ``step_seconds``: not used, the file has both)."""
    return _read_azure_csv(Path(path))


def _azure_stamp(arrival: int, step: Decimal) -> str:
    """``AZURE_EPOCH + arrival * step`` written like the trace (``2023-11-16 00:00:00.0250000``), exactly."""
    with localcontext() as context:
        context.prec = 80  # exact: 16 digits of arrival times the step's digits
        seconds = Decimal(arrival) * step
        too_late = seconds > Decimal((_LAST_SECOND - AZURE_EPOCH).days) * 86400
        if not too_late:  # (quantize itself fails on a number of more than 80 digits)
            seconds = seconds.quantize(Decimal(1).scaleb(-_STAMP_DIGITS))
    if too_late:
        raise ValidationError("step_seconds", float(step), f"puts arrival step {arrival} at {float(seconds):.3g} s "
                              "after the epoch, past the year 9999 that an Azure TIMESTAMP can hold")
    whole = int(seconds)
    stamp = AZURE_EPOCH + timedelta(seconds=whole)
    return stamp.strftime("%Y-%m-%d %H:%M:%S") + f"{seconds - whole:.{_STAMP_DIGITS}f}"[1:]


def is_geosched_csv(path: str | Path) -> bool:
    """Whether a CSV file's header carries geosched's exact columns (an ``azure-csv`` export)."""
    try:
        with require_regular_file(path).open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, WorkloadFormatError, csv.Error):
        return False
    return all(column in header for column in _GEOSCHED_COLUMNS)


def _read_azure_csv(path: Path) -> Instance:
    """An ``azure-csv`` export, as strictly as the trace reader reads a trace: exactly the six columns,
    every row six fields, counts in ASCII digits, a TIMESTAMP that parses and agrees with ArrivalStep."""
    columns = _AZURE_COLUMNS + _GEOSCHED_COLUMNS
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    requests, memories, elapsed = [], set(), []
    try:
        header = next(reader, None) or []
        if tuple(header) != columns:
            missing = [c for c in columns if c not in header]
            raise WorkloadFormatError(f"{path}: " + (f"missing column(s) {', '.join(missing)} (not a geosched "
                                                     "azure-csv export)" if missing else
                                                     f"the header must be exactly {','.join(columns)}, got {header}"))
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if len(row) != len(columns):
                raise WorkloadFormatError(f"{where}: {len(row)} field(s), the header has {len(columns)}")
            stamp, prompt, output, rid, arrival, memory = row
            counts = [parse_token_count(text, column, where) for text, column in
                      ((prompt, "ContextTokens"), (output, "GeneratedTokens"), (arrival, "ArrivalStep"),
                       (memory, "MemoryTokens"))]
            memories.add(counts[3])
            requests.append(Request(rid, counts[2], counts[0], counts[1]))
            elapsed.append((where, stamp, counts[2], parse_trace_timestamp(stamp, where) - _EPOCH_SECONDS))
    except csv.Error as exc:
        raise WorkloadFormatError(f"{path}:{reader.line_num}: not CSV ({exc})") from None
    if len(memories) != 1:
        raise WorkloadFormatError(f"{path}: MemoryTokens must be one value on every row, got {sorted(memories)}")
    _check_stamps(elapsed)
    return Instance(memories.pop(), requests)


_EPOCH_SECONDS = parse_trace_timestamp(AZURE_EPOCH.strftime("%Y-%m-%d %H:%M:%S"), "AZURE_EPOCH")


def _check_stamps(elapsed: list[tuple[str, str, int, Decimal]]) -> None:
    """Some one step length ``d > 0`` puts every TIMESTAMP within half its last digit of
    ``AZURE_EPOCH + ArrivalStep * d`` (as the writer rounds it); else the row that rules it out is named."""
    low, high = Fraction(0), None
    for where, text, arrival, seconds in elapsed:
        exact = Fraction(seconds)
        if arrival == 0:
            if exact != 0:
                raise WorkloadFormatError(f"{where}: TIMESTAMP {text!r} contradicts ArrivalStep 0 "
                                          f"(step 0 is {AZURE_EPOCH})")
            continue
        low = max(low, (exact - _HALF_TICK) / arrival)
        high = (exact + _HALF_TICK) / arrival if high is None else min(high, (exact + _HALF_TICK) / arrival)
        if high <= 0 or low > high:
            raise WorkloadFormatError(f"{where}: TIMESTAMP {text!r} contradicts ArrivalStep {arrival}: no one step "
                                      "length puts every row's TIMESTAMP at its arrival step")


FORMAT = WorkloadFormat(
    name="azure-csv", suffixes=(".csv",), order=20, read=read, write=write, detect=is_geosched_csv,
    label="Azure-trace CSV",
    description="the Azure LLM trace's columns TIMESTAMP, ContextTokens, GeneratedTokens plus RequestId, "
                "ArrivalStep, MemoryTokens")
