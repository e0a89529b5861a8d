"""``geosched simulate`` and ``geosched check`` of large instance files on columns (issue 21, item 8).

The command line's general path builds an :class:`~geosched.reference_impl.model.Instance` (a
``Request`` and an id string per request), the schedule's dict, the simulator's ``starts`` and
``completions`` dicts and the checker's ``Metrics.latencies``: about 450-600 MiB at a million
requests. For a file in :func:`~geosched.reference_impl.model.write_instance`'s layout with at least
:data:`COLUMN_MIN_REQUESTS` requests, this module reads the file straight into int64 columns (the
ids kept as one bytes blob and offsets, :class:`IdColumn`), runs the compiled kernel
(:func:`~geosched.reference_impl.simulation.compiled_run`) and the checker's column sweep
(:func:`~geosched.reference_impl.checker.check_start_columns`) on them, and returns what the commands
print. Every rule the strict reader enforces is checked on whole columns; on any doubt (another
layout, a rule broken, a duplicate id, a schedule whose ids are not the instance's in its order)
the functions return None and the command runs its general path, which gives the answer or the
one-line error. ``tests/test_million.py`` checks that the printed output is the same.
The model: Kong et al. (arXiv 2606.22327, Sec. 2), Jaillet et al. (arXiv 2502.07115, Sec. 2).
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from geosched.errors import InfeasibleScheduleError
from geosched.reference_impl.checker import Metrics, Violation, check_start_columns
from geosched.reference_impl.jsonfile import read_bytes
from geosched.reference_impl.model import MAX_VALUE, canonical_rows, canonical_schedule_rows

__all__ = ["COLUMN_MIN_REQUESTS", "IdColumn", "InstanceColumns", "ColumnReport", "read_instance_columns",
           "read_start_column", "check_files", "simulate_file"]

COLUMN_MIN_REQUESTS = 20_000  # as simulation.COMPILED_MIN_REQUESTS: below it the general path is fast enough
_KEY_SAFE = 2**30  # s + o below this keeps every priority key in int64 (policies' _INT64_SAFE)
_POLICIES = ("svf", "sjf", "fcfs")  # priority rules with int keys from array_keys, exact lengths


class IdColumn:
    """Request ids as one bytes blob and offsets: ``ids[k]`` is request ``k``'s id (a ``str``).

    >>> ids = IdColumn(b"r0r1x", np.array([0, 2, 4, 5]))
    >>> len(ids), ids[1], ids[np.int64(2)]
    (3, 'r1', 'x')
    """

    def __init__(self, blob: bytes, offsets: np.ndarray) -> None:
        self.blob, self.offsets = blob, offsets

    def __len__(self) -> int:
        return int(self.offsets.size) - 1

    def __getitem__(self, k: Any) -> str:
        k = int(k)
        return self.blob[int(self.offsets[k]):int(self.offsets[k + 1])].decode("ascii")

    def segment(self, lo: int, hi: int) -> bytes:
        """The ids of requests ``lo .. hi - 1``, joined."""
        return self.blob[int(self.offsets[lo]):int(self.offsets[hi])]


@dataclass(frozen=True)
class InstanceColumns:
    """An instance as columns in file order: the same requests ``read_instance`` would give."""

    memory: int
    ids: IdColumn
    arrival: np.ndarray
    prompt: np.ndarray
    output: np.ndarray

    @property
    def n(self) -> int:
        return int(self.output.size)

    @property
    def alpha(self) -> Fraction:
        """``max_i (s_i + o_i) / M``, as :attr:`Instance.alpha`."""
        return Fraction(int((self.prompt + self.output).max()), self.memory) if self.n else Fraction(0)


@dataclass(frozen=True)
class ColumnReport:
    """What ``geosched check`` prints of a :class:`~geosched.reference_impl.checker.CheckReport`."""

    violations: tuple[Violation, ...]
    metrics: Metrics

    @property
    def feasible(self) -> bool:
        return not self.violations


def read_instance_columns(path: str | Path, minimum: int | None = None) -> InstanceColumns | None:
    """The columns of an instance file in ``write_instance``'s layout with at least ``minimum``
    requests (default :data:`COLUMN_MIN_REQUESTS`) whose values keep every rule of ``Request`` and
    ``Instance`` (ids distinct); None otherwise (the strict reader then gives the instance or the error)."""
    raw = read_bytes(path)
    parsed = canonical_rows(raw)
    if parsed is None:
        return None
    memory, chunks = parsed
    if not 1 <= memory <= MAX_VALUE:
        return None
    blobs: list[bytes] = []
    lengths, hashes, columns = [], [], ([], [], [])
    collecting = gc.isenabled()
    gc.disable()  # lists of a chunk's bytes and ints: nothing cyclic
    try:
        for ids, *values in chunks:
            if not len(ids) == len(values[0]) == len(values[1]) == len(values[2]):  # cannot happen once rows tile
                return None
            blobs.append(b"".join(ids))
            lengths.append(np.fromiter(map(len, ids), dtype=np.int64, count=len(ids)))
            hashes.append(np.fromiter(map(hash, ids), dtype=np.int64, count=len(ids)))
            for column, chunk in zip(columns, values):
                column.append(np.array(chunk, dtype=np.int64))  # at most 16 digits: within int64
    finally:
        if collecting:
            gc.enable()
    del raw
    arrival, prompt, output = (np.concatenate(column) if column else np.zeros(0, np.int64) for column in columns)
    n = int(output.size)
    if n == 0 or n < (COLUMN_MIN_REQUESTS if minimum is None else minimum) or int(output.min()) < 1 \
            or max(int(arrival.max()), int(prompt.max()), int(output.max())) > MAX_VALUE \
            or int((prompt + output).max()) > memory:
        return None
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.concatenate(lengths), out=offsets[1:])
    ids = IdColumn(b"".join(blobs), offsets)
    del blobs
    if not _distinct(ids, np.concatenate(hashes)):
        return None
    return InstanceColumns(memory, ids, arrival, prompt, output)


def _distinct(ids: IdColumn, hashes: np.ndarray) -> bool:
    """Whether the ids are distinct: by their hashes, and exactly where two hashes agree."""
    order = np.argsort(hashes, kind="stable")
    same = np.nonzero(hashes[order][1:] == hashes[order][:-1])[0]
    if same.size == 0:
        return True
    suspects = np.unique(np.concatenate([order[same], order[same + 1]]))
    groups: dict[int, set[str]] = {}
    for k in suspects.tolist():
        text = ids[k]
        if text in groups.setdefault(int(hashes[k]), set()):
            return False
        groups[int(hashes[k])].add(text)
    return True


def read_start_column(path: str | Path, ids: IdColumn) -> np.ndarray | None:
    """The starts of a schedule file in ``json.dumps({"starts": ...})``'s layout whose ids are
    exactly ``ids``, in the same order, as an int64 column aligned with them; None for anything else
    (another layout or order, a missing, extra or repeated id: the general path then decides)."""
    raw = read_bytes(path)
    chunks = canonical_schedule_rows(raw)
    if chunks is None:
        return None
    columns: list[np.ndarray] = []
    done = 0
    for chunk in chunks:
        if chunk is None:
            return None
        names, steps = chunk
        end = done + len(names)
        if end > len(ids) or b"".join(names) != ids.segment(done, end) or not np.array_equal(
                np.fromiter(map(len, names), dtype=np.int64, count=len(names)), np.diff(ids.offsets[done:end + 1])):
            return None
        columns.append(np.array(steps, dtype=np.int64))  # at most 18 digits: within int64
        done = end
    return np.concatenate(columns) if done == len(ids) and columns else None


def _verdict(columns: InstanceColumns, start: np.ndarray) -> ColumnReport | None:
    verdict = check_start_columns(columns.memory, columns.ids, start, columns.arrival, columns.prompt,
                                  columns.output)
    if verdict is None:
        return None
    violations, fields, _, _ = verdict
    return ColumnReport(tuple(violations), Metrics(**fields, latencies={}))


def check_files(instance_path: str, schedule_path: str) -> tuple[int, ColumnReport] | None:
    """``(M, report)`` of ``geosched check INSTANCE SCHEDULE`` on columns, or None (general path)."""
    if not (instance_path.endswith(".json") and Path(instance_path).is_file() and Path(schedule_path).is_file()):
        return None
    columns = read_instance_columns(instance_path)
    if columns is None:
        return None
    start = read_start_column(schedule_path, columns.ids)
    return None if start is None else _pair(columns.memory, _verdict(columns, start))


def _pair(memory: int, report: ColumnReport | None) -> tuple[int, ColumnReport] | None:
    return None if report is None else (memory, report)


def simulate_file(path: str, policy: str) -> tuple[InstanceColumns, dict[str, Any]] | None:
    """``(columns, row)`` of ``geosched simulate PATH --policy POLICY`` (exact lengths, no backfill,
    token grain) on columns: the row holds the metrics the command prints. None: the general path."""
    if policy not in _POLICIES or not (path.endswith(".json") and Path(path).is_file()):
        return None
    columns = read_instance_columns(path)
    if columns is None or int((columns.prompt + columns.output).max()) >= _KEY_SAFE:
        return None
    from geosched.reference_impl.policies import make_policy
    from geosched.reference_impl.simulation import compiled_run

    keys = np.asarray(make_policy(policy).array_keys(columns.prompt, columns.output), dtype=np.int64)
    compiled = compiled_run(columns.memory, columns.prompt, columns.output, columns.arrival, keys)
    del keys
    if compiled is None:
        return None
    start = compiled[0]
    del compiled
    report = _verdict(columns, start)  # the independent checker, as the general path runs it
    if report is None:
        return None
    if not report.feasible:
        raise InfeasibleScheduleError(f"{policy}: the checker rejected the schedule: {report.violations[0].message}")
    m = report.metrics
    return columns, {"tel": m.tel, "mean_latency": m.mean_latency, "p95_latency": m.p95_latency,
                     "p99_latency": m.p99_latency, "mean_wait": m.mean_wait, "makespan": m.makespan,
                     "throughput": m.throughput, "peak_memory": m.peak_memory, "restarts": 0, "lost_tokens": 0}
