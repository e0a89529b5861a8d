"""Workload files in the formats other tools read: one module per format, found by discovery.

An instance (memory ``M``, requests ``(id, a, s, o)`` in order) is written so that reading it
back gives the *same* instance: the same ``M``, ids, arrival steps, lengths and order, hence
the same schedule under every policy (ties go by arrival, then position). The formats, each a
module of this package declaring ``FORMAT`` (:class:`~geosched.reference_impl.formats.registry.WorkloadFormat`):

* ``jsonl`` (:mod:`~geosched.reference_impl.formats.jsonl`): geosched's JSON lines.
* ``azure-csv`` (:mod:`~geosched.reference_impl.formats.azure_csv`): the Azure LLM inference
  trace's columns (Patel et al., "Splitwise", ISCA 2024) plus geosched's exact ones.
* ``vllm-bench`` (:mod:`~geosched.reference_impl.formats.vllm_bench`): the ``timed_trace``
  dataset of vLLM's ``vllm bench serve``, with the ``vllm serve`` settings that replay it.
* ``json`` (:mod:`~geosched.reference_impl.formats.instance_json`, read only): an instance or
  witness file.

:func:`read_workload_file` reads any of them back, choosing the format by the file's suffix
and, where formats share one, by its first line (:func:`detect_format`, the one suffix rule);
a file written by another tool without geosched's columns is read from the shared columns
(``memory`` must then be given). Adding a format is one new module here (or
:func:`register_format` from outside): ``geosched export --format`` and ``load_workload`` find
it (docs/architecture.md).

Example
-------
>>> import tempfile, os
>>> from geosched.reference_impl.model import Instance, Request
>>> inst = Instance(12, [Request("a", 3, 6, 3), Request("b", 0, 1, 5)])
>>> path = os.path.join(tempfile.mkdtemp(), "w.csv")
>>> _ = write_workload(inst, path, "azure-csv")
>>> read_workload_file(path) == inst
True
>>> import geosched.reference_impl.formats as formats
>>> formats.FORMATS[:2]  # the writable formats, from the registry, in their order
('jsonl', 'azure-csv')
"""

from __future__ import annotations

from typing import Any

from geosched.reference_impl.formats.azure_csv import AZURE_EPOCH, is_geosched_csv
from geosched.reference_impl.formats.common import parse_token_count, parse_trace_timestamp
from geosched.reference_impl.formats.instance_json import instance_from_json_object
from geosched.reference_impl.formats.registry import (
    Companion,
    ExportPlan,
    ExportSource,
    WorkloadFormat,
    check_export_path,
    detect_format,
    formats_for_path,
    get_format,
    read_workload_file,
    register_format,
    workload_formats,
    workload_suffixes,
    workload_text,
    writable_format_names,
    write_workload,
)
from geosched.reference_impl.formats.vllm_bench import (
    DEFAULT_TIE_GAP_SECONDS,
    VLLM_CHUNK_TOKENS,
    export_plan,
    send_order,
    vllm_bench_step_seconds,
)

__all__ = [
    "FORMATS",
    "WorkloadFormat",
    "ExportSource",
    "ExportPlan",
    "Companion",
    "workload_formats",
    "register_format",
    "get_format",
    "writable_format_names",
    "workload_suffixes",
    "formats_for_path",
    "detect_format",
    "check_export_path",
    "write_workload",
    "workload_text",
    "read_workload_file",
    "instance_from_json_object",
    "is_geosched_csv",
    "AZURE_EPOCH",
    "VLLM_CHUNK_TOKENS",
    "DEFAULT_TIE_GAP_SECONDS",
    "send_order",
    "export_plan",
    "vllm_bench_step_seconds",
    "parse_trace_timestamp",
    "parse_token_count",
]


def __getattr__(name: str) -> Any:
    if name == "FORMATS":  # the names export writes, read from the registry each time (a format may be added)
        return writable_format_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
