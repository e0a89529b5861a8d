"""The ``mooncake`` workload format: the Mooncake trace's JSON lines (long-context conversations).

The trace release of Qin et al., "Mooncake: Trading More Storage for Less Computation" (FAST
2025; the public kvcache-ai/Mooncake repository, ``FAST25-release/traces/``): one request per
line, ``{"timestamp", "input_length", "output_length", "hash_ids"}``, with

* ``timestamp``: the arrival in integer **milliseconds** from the trace's start;
* ``input_length`` = the prompt ``s``, ``output_length`` = the output ``o`` (tokens);
* ``hash_ids``: one id per **512-token** block of the prompt (so ``ceil(s / 512)`` of them), equal ids
  at the start of two requests meaning a shared prompt prefix (reusable KV cache).

**Arrivals** follow the Azure reader's step convention (:func:`geosched.reference_impl.workloads.read_trace`):
arrival step ``floor((T - T_0) / step_seconds)``, ``T_0`` the earliest timestamp, computed exactly
(integers and decimals, no float). **Memory**: the file has none; ``memory`` gives ``M``, else twice
the largest peak ``s + o`` (as the Azure reader). Lines with ``output_length`` 0 are dropped (no decode
step exists for them), as the Azure reader drops them, and counted (:class:`MooncakeTrace`). Every other
defect is refused in one line naming the line and the field: a missing or extra key, a count that is not
a non-negative integer, a ``hash_ids`` that is not a list of ``ceil(s / 512)`` non-negative integers.

**Prefix hashes** are kept as data beside the instance, not in it: :func:`read_mooncake` returns
:class:`MooncakeTrace`, whose ``prefix_blocks`` holds each request's ``hash_ids`` in the instance's order
(a side table: :class:`~geosched.reference_impl.model.Request` stays four fields, and nothing in the core
pays for them). The model does not use them yet (a prefix cache would); :func:`shared_prefix_blocks` counts
what could be reused.

**Read only.** A Mooncake line has no place for a request's id, the memory ``M`` or an arrival step before
the first (the earliest timestamp is step 0), so an instance written in it would not read back as the same
instance (the promise of the writable formats, :mod:`geosched.reference_impl.formats`): export as ``jsonl``,
or as ``vllm-bench`` for vLLM's ``timed_trace`` (the same keys, seconds, 16-token hash blocks).

Example
-------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "w.jsonl")
>>> _ = open(path, "w").write('{"timestamp": 1000, "input_length": 1000, "output_length": 3, "hash_ids": [0, 1]}\\n'
...                           '{"timestamp": 1060, "input_length": 600, "output_length": 5, "hash_ids": [0, 2]}\\n')
>>> trace = read_mooncake(path, step_seconds=0.025)
>>> [(r.arrival, r.prompt, r.output) for r in trace.instance.requests], trace.instance.memory
([(0, 1000, 3), (2, 600, 5)], 2006)
>>> trace.prefix_blocks, shared_prefix_blocks(trace.prefix_blocks)
(((0, 1), (0, 2)), 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.formats.common import check_step_seconds, first_json_line
from geosched.reference_impl.formats.jsonl import json_rows
from geosched.reference_impl.formats.registry import WorkloadFormat
from geosched.reference_impl.model import MAX_VALUE, Instance, Request

__all__ = ["FORMAT", "BLOCK_TOKENS", "KEYS", "MooncakeTrace", "read_mooncake", "shared_prefix_blocks", "is_mooncake"]

BLOCK_TOKENS = 512  # tokens per prefix block (one hash id each)
KEYS = ("timestamp", "input_length", "output_length", "hash_ids")  # every line has exactly these
_MILLISECOND = Decimal("0.001")


@dataclass(frozen=True)
class MooncakeTrace:
    """What :func:`read_mooncake` read: the instance, and beside it what the instance does not carry."""

    instance: Instance  # online arrivals at step_seconds per step; M given or twice the largest peak
    timestamps_ms: tuple[int, ...]  # each request's timestamp as written (milliseconds), in the instance's order
    prefix_blocks: tuple[tuple[int, ...], ...]  # each request's hash_ids, in the instance's order
    lines: int  # request lines read (the slice's, with offset/limit)
    dropped_zero_output: int  # lines with output_length 0, dropped
    step_seconds: float  # seconds per arrival step

    @property
    def arrival_seconds(self) -> tuple[float, ...]:
        """Each request's arrival in seconds after the earliest one read (millisecond resolution)."""
        first = min(self.timestamps_ms)
        return tuple((t - first) / 1000 for t in self.timestamps_ms)


def _count(row: Mapping[str, Any], key: str, where: str) -> int:
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_VALUE:
        raise WorkloadFormatError(f"{where}: {key!r} must be an integer in [0, 2^53], got {value!r}")
    return value


def _blocks(row: Mapping[str, Any], prompt: int, where: str) -> tuple[int, ...]:
    ids = row["hash_ids"]
    expected = -(-prompt // BLOCK_TOKENS)
    if not isinstance(ids, list) or any(isinstance(h, bool) or not isinstance(h, int) or h < 0 for h in ids):
        raise WorkloadFormatError(f"{where}: 'hash_ids' must be a list of non-negative integers, got {ids!r:.80}")
    if len(ids) != expected:
        raise WorkloadFormatError(f"{where}: 'hash_ids' has {len(ids)} id(s); input_length {prompt} needs "
                                  f"ceil({prompt} / {BLOCK_TOKENS}) = {expected} (one per {BLOCK_TOKENS}-token block)")
    return tuple(ids)


def _line(row: Any, where: str) -> tuple[int, int, int, tuple[int, ...]]:
    """``(timestamp, prompt, output, hash ids)`` of one line, every field checked."""
    if not isinstance(row, Mapping):
        raise WorkloadFormatError(f"{where}: expected a JSON object with keys {', '.join(KEYS)}")
    missing = [k for k in KEYS if k not in row]
    extra = sorted(k for k in row if k not in KEYS)
    if missing or extra:
        raise WorkloadFormatError(f"{where}: " + (f"missing key {missing[0]!r}" if missing else
                                                  f"unknown key {extra[0]!r}") + f" (a Mooncake line has exactly "
                                  f"{', '.join(KEYS)})")
    stamp, prompt, output = (_count(row, key, where) for key in KEYS[:3])
    return stamp, prompt, output, _blocks(row, prompt, where)


def read_mooncake(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025,
                  offset: int = 0, limit: int | None = None) -> MooncakeTrace:
    """Read a Mooncake trace (module docstring); ``offset``/``limit`` select a slice of its lines.

    Raises
    ------
    WorkloadFormatError
        For a malformed line (naming the line and the field), or a file with no usable line.
    ValidationError
        For a bad ``step_seconds``, ``memory``, ``offset`` or ``limit``.
    """
    step = check_step_seconds(step_seconds)
    for name, value, low in (("offset", offset, 0), ("limit", limit, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise ValidationError(name, value, f"must be an integer >= {low}")
    path = Path(path)
    rows = json_rows(path)
    chosen = rows[offset:] if limit is None else rows[offset:offset + limit]
    kept = [(number, *_line(row, f"{path}:{number}")) for number, row in chosen]
    usable = [line for line in kept if line[3] > 0]
    if not usable:
        raise WorkloadFormatError(f"{path}: no usable line (every selected line has output_length 0, or none is "
                                  f"selected)")
    first = min(line[1] for line in usable)
    per_step = step / _MILLISECOND  # milliseconds per step, exact
    requests = []
    for k, (number, stamp, prompt, output, _) in enumerate(usable):
        arrival = int((stamp - first) // per_step)
        if arrival > MAX_VALUE:
            raise ValidationError(f"{path}:{number}: timestamp", stamp, f"is arrival step {arrival} at "
                                  f"{step_seconds} s per step, past geosched's limit 2^53")
        requests.append(Request(f"r{k}", arrival, prompt, output))
    if memory is None:
        memory = 2 * max(r.peak for r in requests)
    instance = Instance(memory, requests)
    return MooncakeTrace(instance, tuple(line[1] for line in usable), tuple(line[4] for line in usable), len(kept),
                         len(kept) - len(usable), float(step_seconds))


def read(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """The instance of a Mooncake file (``memory``: ``M``, default twice the largest peak)."""
    return read_mooncake(path, memory=memory, step_seconds=step_seconds).instance


def is_mooncake(path: Path) -> bool:
    """Whether the first line is a Mooncake line: exactly :data:`KEYS`, with ``ceil(s / 512)`` hash ids (a vLLM
    ``timed_trace`` line has the same keys with one id per 16 tokens, and geosched's exports add their own)."""
    first = first_json_line(path)
    if not isinstance(first, Mapping) or set(first) != set(KEYS):
        return False
    prompt, ids = first.get("input_length"), first.get("hash_ids")
    return isinstance(prompt, int) and isinstance(ids, list) and len(ids) == -(-prompt // BLOCK_TOKENS)


def shared_prefix_blocks(prefix_blocks: Sequence[Sequence[int]]) -> int:
    """How many prompt blocks an unbounded prefix cache would reuse, in this order: for each request, the
    length of the longest prefix of its ``hash_ids`` already seen as a prefix of an earlier request's.

    >>> shared_prefix_blocks([(0, 1, 2), (0, 1, 5), (0, 7), (9,)])
    3
    """
    children: dict[tuple[int, int], int] = {}  # a trie of the prefixes seen: (node, hash id) -> node
    reused = 0
    for ids in prefix_blocks:
        node, shared = 0, True
        for h in ids:
            child = children.get((node, h))
            if child is None:
                shared = False  # a longer prefix cannot have been seen either
                child = children[(node, h)] = len(children) + 1
            reused += shared
            node = child
    return reused


FORMAT = WorkloadFormat(
    name="mooncake", suffixes=(".jsonl",), order=25, read=read, detect=is_mooncake,
    label="Mooncake trace",
    description="the Mooncake trace's JSON lines: timestamp (ms), input_length, output_length, hash_ids "
                "(512-token prefix blocks)")
