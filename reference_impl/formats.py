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
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.jsonfile import loads, read_json, read_text
from geosched.reference_impl.model import Instance, Request, instance_from_dict

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


def _check_step_seconds(step_seconds: Any) -> Decimal:
    if isinstance(step_seconds, bool) or not isinstance(step_seconds, (int, float)) \
            or not math.isfinite(step_seconds) or step_seconds <= 0:
        raise ValidationError("step_seconds", step_seconds, "must be a positive number")
    return Decimal(str(step_seconds))


def workload_text(instance: Instance, fmt: str, *, step_seconds: float = 0.025,
                  tie_gap_seconds: float = DEFAULT_TIE_GAP_SECONDS, metadata: Mapping[str, Any] | None = None,
                  tie_order: Sequence[int] | None = None) -> str:
    """The file contents of ``instance`` in format ``fmt`` (see the module docstring).

    ``tie_gap_seconds``, ``metadata`` (merged into the first line's ``geosched_workload``) and
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
            stamp = AZURE_EPOCH + timedelta(seconds=float(r.arrival * step))
            seconds = Decimal(r.arrival) * step
            fraction = f"{seconds - int(seconds):.7f}"[1:]  # ".0250000": seven decimals, as the trace
            writer.writerow([stamp.strftime("%Y-%m-%d %H:%M:%S") + fraction, r.prompt, r.output, r.id, r.arrival,
                             instance.memory])
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
    gap = _check_tie_gap(tie_gap_seconds)
    order = send_order(instance, tie_order)
    ranks: list[int] = []
    for k, p in enumerate(order):
        same = k > 0 and instance.requests[order[k - 1]].arrival == instance.requests[p].arrival
        ranks.append(ranks[-1] + 1 if same else 0)
    widest = max(ranks, default=0)
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
            raise ValidationError("--step-seconds", float(step), f"gives a timestamp past the float range "
                                  f"(arrival {r.arrival})")
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
        return instance_from_json_object(read_json(path), str(path))
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
        stamp = row.get("timestamp")
        if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp):
            raise WorkloadFormatError(f"{where}: 'timestamp' must be a number, got {stamp!r}")
        arrival = stamp / step
        if not math.isfinite(arrival) or abs(arrival) > 2 ** 53:
            raise WorkloadFormatError(f"{where}: 'timestamp' {stamp!r} is out of range at {step} s per step")
        arrival = round(arrival)
    rid = row.get("request_id", f"r{index}")
    if not isinstance(rid, str):
        raise WorkloadFormatError(f"{where}: 'request_id' must be a string, got {rid!r}")
    return Request(rid, arrival, prompt, output)


def is_geosched_csv(path: str | Path) -> bool:
    """Whether a CSV file's header carries geosched's exact columns (an ``azure-csv`` export)."""
    try:
        with Path(path).open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError):
        return False
    return all(column in header for column in _GEOSCHED_COLUMNS)


def _read_azure_csv(path: Path) -> Instance:
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = reader.fieldnames or []
    missing = [c for c in _AZURE_COLUMNS + _GEOSCHED_COLUMNS if c not in header]
    if missing:
        raise WorkloadFormatError(f"{path}: missing column(s) {', '.join(missing)} (not a geosched azure-csv export)")
    requests, memories = [], set()
    for number, row in enumerate(reader, start=2):
        where = f"{path}:{number}"
        values = {}
        for column in ("ContextTokens", "GeneratedTokens", "ArrivalStep", "MemoryTokens"):
            try:
                values[column] = int(row[column])
            except (TypeError, ValueError):
                raise WorkloadFormatError(f"{where}: {column} must be an integer, got {row[column]!r}") from None
        memories.add(values["MemoryTokens"])
        requests.append(Request(row["RequestId"], values["ArrivalStep"], values["ContextTokens"],
                                values["GeneratedTokens"]))
    if len(memories) != 1:
        raise WorkloadFormatError(f"{path}: MemoryTokens must be one value on every row, got {sorted(memories)}")
    return Instance(memories.pop(), requests)
