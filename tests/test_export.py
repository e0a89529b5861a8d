"""Workload files out and back in (``geosched export``, :mod:`geosched.reference_impl.formats`):
a round trip per format keeps M, ids, arrivals and order, so that every policy's schedule is
unchanged; witness files are accepted wherever a workload is."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given, settings

from geosched.adversary.witness import make_witness, write_witness
from geosched.cli import main
from geosched.errors import WorkloadFormatError
from geosched.reference_impl.formats import FORMATS, get_format, read_workload_file, workload_text, write_workload
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.workloads import load_workload, read_trace
from geosched.testing import instances

SUFFIX = {name: get_format(name).suffixes[0] for name in FORMATS}  # from the registry: a new format is tested too


def _online_instance() -> Instance:
    # arrivals out of order, ids that do not sort like positions, equal keys (ties by position)
    return Instance(20, [Request("z9", 7, 3, 4), Request("a1", 0, 0, 6), Request("m", 7, 3, 4),
                         Request("r10", 2, 9, 1), Request("r2", 0, 1, 1)])


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_the_instance_and_every_schedule(fmt, tmp_path):
    inst = _online_instance()
    path = write_workload(inst, tmp_path / f"w{SUFFIX[fmt]}", fmt)
    back = load_workload(str(path))
    assert back == inst
    for policy in ("fcfs", "sjf", "svf"):
        assert simulate(back, policy).starts == simulate(inst, policy).starts


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=40, deadline=None)
@given(inst=instances(max_n=6, plain_ids=False, burst=None))
def test_round_trip_property(fmt, inst, tmp_path_factory):
    path = tmp_path_factory.mktemp("rt") / f"w{SUFFIX[fmt]}"
    write_workload(inst, path, fmt, step_seconds=0.05)
    assert read_workload_file(path) == inst


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_files_own_memory_wins_over_the_readers_default(fmt, tmp_path):
    # read_workload_file's ``memory`` is "M for a file without one": a file that states M keeps it, in every format
    inst = _online_instance()
    path = write_workload(inst, tmp_path / f"w{SUFFIX[fmt]}", fmt)
    assert read_workload_file(path, memory=inst.memory + 17).memory == inst.memory


def test_azure_csv_is_readable_as_an_azure_trace(tmp_path):
    inst = _online_instance()
    path = write_workload(inst, tmp_path / "w.csv", "azure-csv", step_seconds=0.025)
    rows = list(csv.DictReader(path.open()))
    # the trace's own columns: step 7 at 0.025 s is 0.175 s after the epoch, seven decimals
    assert rows[0]["TIMESTAMP"] == "2023-11-16 00:00:00.1750000" and rows[0]["ContextTokens"] == "3"
    trace, info = read_trace(path, arrivals="online", memory=20)  # the Azure reader, geosched columns ignored
    assert [(r.arrival, r.prompt, r.output) for r in trace.requests] == [
        (r.arrival, r.prompt, r.output) for r in inst.requests]  # the earliest arrival is 0 here


def test_vllm_bench_lines_are_vllm_timed_trace_entries(tmp_path):
    inst = Instance(40, [Request("a", 0, 31, 5), Request("b", 4, 0, 2)])
    lines = [json.loads(x) for x in workload_text(inst, "vllm-bench", step_seconds=0.5).splitlines()]
    # vLLM's prompt is P = s + 1 tokens; one hash id per 16 tokens (32 -> 2, 1 -> 1), fresh ids
    assert lines[0]["input_length"] == 32 and lines[0]["hash_ids"] == [0, 1] and lines[1]["hash_ids"] == [2]
    assert lines[1]["timestamp"] == 2.0 and lines[1]["output_length"] == 2
    # a file written by another tool (vLLM's fields only) is read from them, M given
    path = tmp_path / "plain.jsonl"
    path.write_text("\n".join(json.dumps({k: v for k, v in line.items() if k in ("timestamp", "input_length",
                                                                                "output_length", "hash_ids")})
                              for line in lines) + "\n")
    back = read_workload_file(path, memory=40, step_seconds=0.5)
    assert [(r.arrival, r.prompt, r.output) for r in back.requests] == [(0, 31, 5), (4, 0, 2)]
    with pytest.raises(WorkloadFormatError, match="memory"):
        read_workload_file(path)


def test_witness_files_are_workloads(tmp_path, capsys):
    inst = _online_instance()
    w = make_witness(inst, "svf", simulate(inst, "svf").starts, found_by="hand")
    path = write_witness(w, tmp_path / "witness.json")
    assert load_workload(str(path)) == inst
    assert main(["simulate", str(path), "--policy", "svf"]) == 0
    out = tmp_path / "w.jsonl"
    assert main(["export", str(path), "--format", "vllm-bench", "--out", str(out)]) == 0
    assert "5 requests, M = 20" in capsys.readouterr().out
    assert load_workload(str(out)) == inst


def test_export_command_errors(tmp_path, capsys):
    assert main(["export", "example", "--format", "azure-csv", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "--out" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "geosched-workload", "memory": 10}\n{"id": "a", "arrival": 0, "prompt": -1, '
                   '"output": 2}\n')
    assert main(["simulate", str(bad)]) == 2
    assert "prompt" in capsys.readouterr().err
    bad.write_text('{"hello": 1}\n')
    with pytest.raises(WorkloadFormatError, match="neither"):
        read_workload_file(bad)
