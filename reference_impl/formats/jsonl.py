"""The ``jsonl`` workload format: geosched's own JSON lines.

One header line ``{"format": "geosched-workload", "memory": M}``, then one line per request
``{"id", "arrival", "prompt", "output"}``, in the instance's order: reading it back gives the
same instance (same ``M``, ids, arrival steps, lengths and order, hence the same schedule under
every policy).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> print(write(burst_instance(12, [(6, 3)]), step_seconds=0.025), end="")
{"format": "geosched-workload", "memory": 12}
{"id": "r0", "arrival": 0, "prompt": 6, "output": 3}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from geosched.errors import WorkloadFormatError
from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.formats.common import first_json_line
from geosched.reference_impl.formats.registry import WorkloadFormat
from geosched.reference_impl.jsonfile import loads, read_text
from geosched.reference_impl.model import Instance, instance_from_dict

__all__ = ["FORMAT", "HEADER"]

HEADER = "geosched-workload"  # the first line's "format"


def write(instance: Instance, *, step_seconds: float = 0.025) -> str:
    """The file's text (``step_seconds``: not used, arrivals are steps); the header carries the
    instance's ``block_size`` when it is not 1."""
    grain = {"block_size": instance.block_size} if instance.block_size != 1 else {}
    lines = [json.dumps({"format": HEADER, "memory": instance.memory, **grain})]
    lines += [json.dumps({"id": r.id, "arrival": r.arrival, "prompt": r.prompt, "output": r.output})
              for r in instance.requests]
    return "\n".join(lines) + "\n"


def json_rows(path: Path) -> list[tuple[int, Any]]:
    """``(line number, value)`` of every non-blank line, strictly (UTF-8, no duplicate keys, no NaN, no field
    naming code: :func:`~geosched.reference_impl.code_names.refuse_code_names`)."""
    rows = [(k + 1, loads(line, f"{path}:{k + 1}")) for k, line in enumerate(read_text(path).splitlines())
            if line.strip()]
    for number, row in rows:
        refuse_code_names(row, f"{path}:{number}")
    if not rows:
        raise WorkloadFormatError(f"{path}: empty file")
    if not isinstance(rows[0][1], Mapping):
        raise WorkloadFormatError(f"{path}:{rows[0][0]}: expected a JSON object")
    return rows


def read(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """The instance of a ``jsonl`` file (``memory``, ``step_seconds``: not used, the file has both)."""
    path = Path(path)
    rows = json_rows(path)
    number, first = rows[0]
    if first.get("format") != HEADER:
        raise WorkloadFormatError(f"{path}:{number}: neither a geosched-workload header nor a line of "
                                  "another .jsonl format")
    if not {"format", "memory"} <= set(first) <= {"format", "memory", "block_size"}:
        raise WorkloadFormatError(f"{path}:{number}: the header must be exactly {{format, memory[, block_size]}}")
    requests = [instance_from_dict({"memory": first["memory"], "requests": [row]},
                                   source=f"{path}:{line}").requests[0] for line, row in rows[1:]]
    return Instance(first["memory"], requests, first.get("block_size", 1))


def detect(path: Path) -> bool:
    """Whether the first line is a geosched-workload header."""
    first = first_json_line(path)
    return isinstance(first, Mapping) and first.get("format") == HEADER


FORMAT = WorkloadFormat(
    name="jsonl", suffixes=(".jsonl",), order=10, read=read, write=write, detect=detect, label="jsonl",
    description="geosched's JSON lines: a header {format, memory}, then {id, arrival, prompt, output} per request")
