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

from geosched._lazy import exported_names
from geosched.reference_impl.formats.azure_csv import AZURE_EPOCH as AZURE_EPOCH
from geosched.reference_impl.formats.azure_csv import is_geosched_csv as is_geosched_csv
from geosched.reference_impl.formats.common import parse_token_count as parse_token_count
from geosched.reference_impl.formats.common import parse_trace_timestamp as parse_trace_timestamp
from geosched.reference_impl.formats.instance_json import instance_from_json_object as instance_from_json_object
from geosched.reference_impl.formats.registry import Companion as Companion
from geosched.reference_impl.formats.registry import ExportPlan as ExportPlan
from geosched.reference_impl.formats.registry import ExportSource as ExportSource
from geosched.reference_impl.formats.registry import WorkloadFormat as WorkloadFormat
from geosched.reference_impl.formats.registry import check_export_path as check_export_path
from geosched.reference_impl.formats.registry import detect_format as detect_format
from geosched.reference_impl.formats.registry import formats_for_path as formats_for_path
from geosched.reference_impl.formats.registry import get_format as get_format
from geosched.reference_impl.formats.registry import read_workload_file as read_workload_file
from geosched.reference_impl.formats.registry import register_format as register_format
from geosched.reference_impl.formats.registry import workload_formats as workload_formats
from geosched.reference_impl.formats.registry import workload_suffixes as workload_suffixes
from geosched.reference_impl.formats.registry import workload_text as workload_text
from geosched.reference_impl.formats.registry import writable_format_names as writable_format_names
from geosched.reference_impl.formats.registry import write_workload as write_workload
from geosched.reference_impl.formats.vllm_bench import DEFAULT_TIE_GAP_SECONDS as DEFAULT_TIE_GAP_SECONDS
from geosched.reference_impl.formats.vllm_bench import VLLM_CHUNK_TOKENS as VLLM_CHUNK_TOKENS
from geosched.reference_impl.formats.vllm_bench import export_plan as export_plan
from geosched.reference_impl.formats.vllm_bench import send_order as send_order
from geosched.reference_impl.formats.vllm_bench import vllm_bench_step_seconds as vllm_bench_step_seconds


def __getattr__(name: str) -> Any:
    if name == "FORMATS":  # the names export writes, read from the registry each time (a format may be added)
        return writable_format_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FORMATS", *exported_names(__file__)]  # each name declared once, by its `a as a` import above
