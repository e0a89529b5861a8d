"""Workload files in the formats other tools read: JSON lines, the Azure trace CSV, vLLM's benchmark.

An instance (memory ``M``, requests ``(id, a, s, o)`` in order) is written so that reading it
back gives the *same* instance: the same ``M``, ids, arrival steps, lengths and order, hence
the same schedule under every policy (ties go by arrival, then position). Three formats:

* ``jsonl``: one header line ``{"format": "geosched-workload", "memory": M}``, then one line
  per request ``{"id", "arrival", "prompt", "output"}``.
* ``azure-csv``: the Azure LLM inference trace's columns (Patel et al., "Splitwise", ISCA
  2024) ``TIMESTAMP, ContextTokens, GeneratedTokens`` (``TIMESTAMP`` = an epoch plus
  ``arrival * step_seconds``, written like the trace: ``2023-11-16 00:00:00.0250000``;
  ``ContextTokens`` = ``s``), plus ``RequestId, ArrivalStep, MemoryTokens``, which the Azure
  columns cannot carry exactly (float timestamps lose steps; the trace has no ``M``).
  Tools that read the Azure trace by column name read it as a trace.
* ``vllm-bench``: the JSON-lines ``timed_trace`` dataset of vLLM 0.33's ``vllm bench serve``
  (``--dataset-name timed_trace --dataset-path FILE``, which ignores EOS, so that every request
  produces exactly ``output_length`` tokens). Lines are in *send order*: by arrival, then by the
  tie order (position; the witness's tie rule when exporting a witness), because the client sends
  line after line and fires requests with equal timestamps as concurrent tasks, whose order is
  lost. Equal arrivals are therefore *staggered*: ``timestamp = arrival * step_seconds + rank *
  tie_gap_seconds``, ``rank`` = place among the requests of that arrival step, and the export
  refuses a gap for which a staggered request could be read as the next step
  (``(k - 1) * tie_gap_seconds < step_seconds / 2`` for ``k`` equal arrivals). Fields:
  ``timestamp``, ``input_length`` = ``s + 1`` (vLLM's prompt: the model's ``s`` is vLLM's
  ``P - 1``, ``docs/vllm.md``, step correspondence), ``output_length`` = ``o``, ``hash_ids`` (one
  fresh id per 16-token chunk, so no two requests share a cached prefix), and geosched's own
  ``request_id``, ``geosched_arrival_step``, ``geosched_prompt`` (not ``prompt``, which is the
  text field of vLLM's ``custom`` dataset) and ``geosched_position`` (the order of the instance,
  restored on reading). The first line also carries ``geosched_workload``: the memory, the
  step-to-seconds mapping, the tie order and whether the witness's ratio depends on it, and the
  ``vllm serve`` settings (:mod:`geosched.reference_impl.vllm.serving`). vLLM ignores unknown fields.

:func:`read_workload_file` reads any of them back (and an instance or witness ``.json``),
detecting the format from the file; a file written by another tool without geosched's
columns is read from the shared columns (``memory`` must then be given).

Example
-------
>>> import tempfile, os
>>> from geosched.reference_impl.model import Instance, Request
>>> inst = Instance(12, [Request("a", 3, 6, 3), Request("b", 0, 1, 5)])
>>> path = os.path.join(tempfile.mkdtemp(), "w.csv")
>>> _ = write_workload(inst, path, "azure-csv")
>>> read_workload_file(path) == inst
True
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.jsonfile import decode_text, loads, read_bytes, read_text, require_regular_file
from geosched.reference_impl.model import MAX_VALUE, Instance, Request, canonical_instance, instance_from_dict

__all__ = [
    "FORMATS",
    "write_workload",
    "workload_text",
    "read_workload_file",
    "instance_from_json_object",
    "is_geosched_csv",
    "AZURE_EPOCH",
    "VLLM_CHUNK_TOKENS",
    "DEFAULT_TIE_GAP_SECONDS",
    "send_order",
    "vllm_bench_step_seconds",
    "parse_trace_timestamp",
    "parse_token_count",
]

FORMATS = ("jsonl", "azure-csv", "vllm-bench")
AZURE_EPOCH = datetime(2023, 11, 16, 0, 0, 0)  # the trace's first day; step 0 of an exported workload
VLLM_CHUNK_TOKENS = 16  # vLLM's --timed-trace-chunk-hash-size default: tokens per hash id
# seconds between equal arrivals in a vllm-bench file: large against an asyncio client's send jitter
DEFAULT_TIE_GAP_SECONDS = 0.002
_VLLM_META = "geosched_workload"
_JSONL_HEADER = "geosched-workload"
_AZURE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
_GEOSCHED_COLUMNS = ("RequestId", "ArrivalStep", "MemoryTokens")
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only: int() would also take "1_000", "+5", "٣٤", " 6"
_UNIX = datetime(1970, 1, 1)
_LAST_SECOND = datetime(9999, 12, 31, 23, 59, 59)  # the last TIMESTAMP a datetime can hold
_STAMP_DIGITS = 7  # fractional digits of an Azure TIMESTAMP
_HALF_TICK = Fraction(1, 2 * 10**_STAMP_DIGITS)  # a written TIMESTAMP is within this of the exact time


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
    if fraction and not _DIGITS.fullmatch(fraction):
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
    if not _DIGITS.fullmatch(text):
        raise ValidationError(f"{where}: {column}", text if raw is None else raw,
                              "must be a token count written in ASCII digits")
    if len(text) > 16:  # more than 2^53 (geosched's limit for one value)
        raise ValidationError(f"{where}: {column}", text if raw is None else raw, "must be at most 2^53")
    return int(text)


def _check_step_seconds(step_seconds: Any) -> Decimal:
    if isinstance(step_seconds, bool) or not isinstance(step_seconds, (int, float)) \
            or not math.isfinite(step_seconds) or step_seconds <= 0:
        raise ValidationError("step_seconds", step_seconds, "must be a positive number")
    return Decimal(str(step_seconds))


def workload_text(instance: Instance, fmt: str, *, step_seconds: float = 0.025,
                  tie_gap_seconds: float | None = None, metadata: Mapping[str, Any] | None = None,
                  tie_order: Sequence[int] | None = None) -> str:
    """The file contents of ``instance`` in format ``fmt`` (see the module docstring).

    ``tie_gap_seconds`` (default :data:`DEFAULT_TIE_GAP_SECONDS`, narrowed to fit when the step is too
    short for it; a gap given explicitly is checked instead), ``metadata`` (merged into the first
    line's ``geosched_workload``) and
    ``tie_order`` (positions, the send order among equal arrivals; default: position order)
    concern ``vllm-bench`` only.

    Raises
    ------
    ValidationError
        For an unknown format or a bad ``step_seconds``.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> print(workload_text(burst_instance(12, [(6, 3)]), "jsonl"), end="")
    {"format": "geosched-workload", "memory": 12}
    {"id": "r0", "arrival": 0, "prompt": 6, "output": 3}
    """
    step = _check_step_seconds(step_seconds)
    if fmt == "jsonl":
        lines = [json.dumps({"format": _JSONL_HEADER, "memory": instance.memory})]
        lines += [json.dumps({"id": r.id, "arrival": r.arrival, "prompt": r.prompt, "output": r.output})
                  for r in instance.requests]
        return "\n".join(lines) + "\n"
    if fmt == "azure-csv":
        buffer = io.StringIO()
        # csv's own "\r\n" line ends: a field holding either character is then quoted (ids are free text)
        writer = csv.writer(buffer)
        writer.writerow(_AZURE_COLUMNS + _GEOSCHED_COLUMNS)
        for r in instance.requests:
            writer.writerow([_azure_stamp(r.arrival, step), r.prompt, r.output, r.id, r.arrival, instance.memory])
        return buffer.getvalue()
    if fmt == "vllm-bench":
        return _vllm_bench_text(instance, step, tie_gap_seconds, metadata or {}, tie_order)
    raise ValidationError("--format", fmt, f"must be one of {', '.join(FORMATS)}")


def vllm_bench_step_seconds(instance: Instance, tie_gap_seconds: float = DEFAULT_TIE_GAP_SECONDS) -> float:
    """The default seconds per step of a ``vllm-bench`` export: 0.025, or wider where equal arrivals need it.

    ``k`` staggered equal arrivals need ``(k - 1) * gap < step / 2``; this returns
    ``max(0.025, 2 * k * gap)`` for the largest ``k``.
    """
    widest = max(Counter(r.arrival for r in instance.requests).values(), default=1)
    return max(0.025, float(2 * widest * _check_tie_gap(tie_gap_seconds)))


def send_order(instance: Instance, tie_order: Sequence[int] | None = None) -> list[int]:
    """Positions in the order a replay must send them: by arrival, then by ``tie_order`` (default: position)."""
    rank = {p: k for k, p in enumerate(tie_order)} if tie_order is not None else None
    if rank is not None and sorted(rank) != list(range(instance.n)):
        raise ValidationError("tie_order", list(tie_order),
                              f"must be a permutation of the positions 0..{instance.n - 1}")
    return sorted(range(instance.n), key=lambda p: (instance.requests[p].arrival, rank[p] if rank else p))


def _vllm_bench_text(instance: Instance, step: Decimal, tie_gap_seconds: Any, metadata: Mapping[str, Any],
                     tie_order: Sequence[int] | None) -> str:
    order = send_order(instance, tie_order)
    ranks: list[int] = []
    for k, p in enumerate(order):
        same = k > 0 and instance.requests[order[k - 1]].arrival == instance.requests[p].arrival
        ranks.append(ranks[-1] + 1 if same else 0)
    widest = max(ranks, default=0)
    if tie_gap_seconds is None:  # the default gap, or the widest that keeps every tie inside its step
        gap = min(Decimal(str(DEFAULT_TIE_GAP_SECONDS)), step / (2 * widest + 2))
    else:
        gap = _check_tie_gap(tie_gap_seconds)
    if widest and Decimal(widest) * gap * 2 >= step:
        raise ValidationError("--tie-gap-seconds", float(gap),
                              f"{widest + 1} requests share an arrival step: {widest} x gap must stay below "
                              f"step_seconds / 2 = {step / 2} (use a larger --step-seconds or a smaller gap)")
    meta = {"format": "geosched-vllm-bench", "memory": instance.memory, "step_seconds": float(step),
            "tie_gap_seconds": float(gap),
            "timestamp_rule": "timestamp = arrival_step * step_seconds + rank * tie_gap_seconds, rank = place among "
                              "equal arrivals in send order; arrival_step = round(timestamp / step_seconds)",
            "send_order": "by arrival, then " + ("the given tie order" if tie_order is not None else "position"),
            **metadata}
    lines, next_hash = [], 0
    for k, p in enumerate(order):
        r = instance.requests[p]
        stamp = Decimal(r.arrival) * step + ranks[k] * gap
        if not math.isfinite(float(stamp)):
            raise ValidationError("step_seconds", float(step), f"makes the timestamp of request {r.id!r} "
                                  f"(arrival step {r.arrival}) overflow a float")
        chunks = -(-(r.prompt + 1) // VLLM_CHUNK_TOKENS)
        row = {"timestamp": float(stamp), "input_length": r.prompt + 1, "output_length": r.output,
               "hash_ids": list(range(next_hash, next_hash + chunks)), "request_id": r.id,
               "geosched_arrival_step": r.arrival, "geosched_prompt": r.prompt, "geosched_position": p}
        if k == 0:
            row[_VLLM_META] = meta
        lines.append(json.dumps(row))
        next_hash += chunks
    return "\n".join(lines) + "\n"


def _check_tie_gap(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValidationError("--tie-gap-seconds", value, "must be a number >= 0")
    return Decimal(str(value))


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


def write_workload(instance: Instance, path: str | Path, fmt: str, *, step_seconds: float = 0.025,
                   force: bool = True, **options: Any) -> Path:
    """Write ``instance`` to ``path`` in format ``fmt`` atomically (``force=False`` refuses an
    existing file; :func:`geosched.output.write_text_atomic`); ``options``: those of
    :func:`workload_text`. Returns the path."""
    from geosched.output import write_text_atomic

    return write_text_atomic(path, workload_text(instance, fmt, step_seconds=step_seconds, **options), force=force)


def instance_from_json_object(data: Any, source: str) -> Instance:
    """An instance object, or a witness object's ``"instance"`` (a witness is accepted wherever
    a workload is; its other fields are not read here: ``geosched check-witness`` verifies them)."""
    if isinstance(data, Mapping) and "instance" in data and "policy" in data:
        return instance_from_dict(data["instance"], source=f"{source}: instance")
    return instance_from_dict(data, source=source)


def read_workload_file(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """Read an instance or witness ``.json``, or a ``.jsonl`` / ``.csv`` file of :data:`FORMATS`.

    Parameters
    ----------
    path : path
        The file. ``.jsonl`` is a geosched workload or a vLLM ``timed_trace`` (told apart by its
        first line); ``.csv`` must carry geosched's columns (an Azure trace without them is
        read by :func:`geosched.reference_impl.workloads.read_trace`).
    memory : int, optional
        ``M`` for a vLLM trace without geosched's ``memory`` field.
    step_seconds : float
        Seconds per step, for a vLLM trace without ``arrival_step``.

    Returns
    -------
    Instance

    Raises
    ------
    WorkloadFormatError
        For an unreadable or malformed file (the message names the line and field).
    """
    path = Path(path)
    if path.suffix == ".json":
        raw = read_bytes(path)
        instance = canonical_instance(raw)  # an instance file as geosched writes it, without a dict per request
        if instance is not None:
            return instance
        return instance_from_json_object(loads(decode_text(raw, path), str(path)), str(path))
    if path.suffix == ".jsonl":
        return _read_jsonl(path, memory, step_seconds)
    if path.suffix == ".csv":
        return _read_azure_csv(path)
    raise WorkloadFormatError(f"{path}: not a .json, .jsonl or .csv workload")


def _read_jsonl(path: Path, memory: int | None, step_seconds: float) -> Instance:
    rows = [(k + 1, loads(line, f"{path}:{k + 1}")) for k, line in enumerate(read_text(path).splitlines())
            if line.strip()]
    if not rows:
        raise WorkloadFormatError(f"{path}: empty file")
    number, first = rows[0]
    if not isinstance(first, Mapping):
        raise WorkloadFormatError(f"{path}:{number}: expected a JSON object")
    if first.get("format") == _JSONL_HEADER:
        if set(first) != {"format", "memory"}:
            raise WorkloadFormatError(f"{path}:{number}: the header must be exactly {{format, memory}}")
        requests = [instance_from_dict({"memory": first["memory"], "requests": [row]},
                                       source=f"{path}:{line}").requests[0] for line, row in rows[1:]]
        return Instance(first["memory"], requests)
    if "input_length" in first:
        return _read_vllm_bench(path, rows, memory, step_seconds)
    raise WorkloadFormatError(f"{path}:{number}: neither a geosched-workload header nor a vLLM timed_trace line")


def _field(row: Mapping[str, Any], key: str, where: str) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorkloadFormatError(f"{where}: {key!r} must be an integer, got {value!r}")
    return value


def _read_vllm_bench(path: Path, rows: list[tuple[int, Any]], memory: int | None, step_seconds: float) -> Instance:
    meta = rows[0][1].get(_VLLM_META, {}) if isinstance(rows[0][1], Mapping) else {}
    if not isinstance(meta, Mapping):
        raise WorkloadFormatError(f"{path}:{rows[0][0]}: {_VLLM_META!r} must be an object")
    if "step_seconds" in meta:
        step_seconds = meta["step_seconds"]
    step = float(_check_step_seconds(step_seconds))
    requests, memories, positions = [], {meta["memory"]} if "memory" in meta else set(), []
    for number, row in rows:
        where = f"{path}:{number}"
        if not isinstance(row, Mapping):
            raise WorkloadFormatError(f"{where}: expected a JSON object")
        requests.append(_vllm_bench_request(row, where, step, len(requests)))
        if "memory" in row:  # files written before geosched_workload carried it on every line
            memories.add(_field(row, "memory", where))
        positions.append(_field(row, "geosched_position", where) if "geosched_position" in row else len(positions))
    if sorted(positions) != list(range(len(requests))):
        raise WorkloadFormatError(f"{path}: 'geosched_position' must number the lines 0..{len(requests) - 1} once each")
    if memory is None:
        if len(memories) != 1:
            raise WorkloadFormatError(f"{path}: no single 'memory' field in the trace; pass --memory M")
        memory = memories.pop()
    ordered = [request for _, request in sorted(zip(positions, requests, strict=True), key=lambda pair: pair[0])]
    return Instance(memory, ordered)


def _vllm_bench_request(row: Mapping[str, Any], where: str, step: float, index: int) -> Request:
    output = _field(row, "output_length", where)
    if "geosched_prompt" in row:
        prompt = _field(row, "geosched_prompt", where)
    elif isinstance(row.get("prompt"), int) and not isinstance(row.get("prompt"), bool):
        prompt = row["prompt"]  # geosched's field before it was renamed (vLLM's custom dataset: text)
    else:
        prompt = _field(row, "input_length", where) - 1
    arrival_key = next((k for k in ("geosched_arrival_step", "arrival_step") if k in row), None)
    if arrival_key is not None:
        arrival = _field(row, arrival_key, where)
    else:
        arrival = _vllm_arrival(row.get("timestamp"), step, where)
    rid = row.get("request_id", f"r{index}")
    if not isinstance(rid, str):
        raise WorkloadFormatError(f"{where}: 'request_id' must be a string, got {rid!r}")
    return Request(rid, arrival, prompt, output)


def _vllm_arrival(stamp: Any, step: float, where: str) -> int:
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp):
        raise WorkloadFormatError(f"{where}: 'timestamp' must be a number, got {stamp!r}")
    steps = stamp / step
    if not math.isfinite(steps) or abs(steps) > MAX_VALUE:
        raise ValidationError(f"{where}: timestamp", stamp, f"is past the last arrival step geosched represents "
                              f"(2^53 steps of {step} s)")
    return round(steps)


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
