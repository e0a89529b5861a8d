"""The Mooncake trace format (reference_impl/formats/mooncake.py): arrivals at the Azure reader's step convention,
lengths, the prefix side table, every malformed line refused naming its line and field, the suffix rule against
vLLM's timed_trace, and the shared trace read whole (skipped when absent)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from synthetic_traces import MOONCAKE, mooncake_lines, write_mooncake

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.formats import detect_format, read_workload_file
from geosched.reference_impl.formats.mooncake import read_mooncake, shared_prefix_blocks
from geosched.reference_impl.predictors.tracelog import read_trace_log
from geosched.reference_impl.workloads import is_trace, load_workload, read_trace_instance


def _line(stamp: int, prompt: int, output: int, ids: list[int] | None = None) -> dict:
    return {"timestamp": stamp, "input_length": prompt, "output_length": output,
            "hash_ids": ids if ids is not None else list(range(-(-prompt // 512)))}


def test_arrivals_follow_the_azure_step_convention(tmp_path):
    # floor((T - T_0) / step): T_0 the earliest timestamp, 25 ms per step (written out by hand)
    path = write_mooncake(tmp_path / "t.jsonl", [_line(1000, 600, 3), _line(1024, 10, 2), _line(1025, 10, 2),
                                                 _line(1999, 1024, 1), _line(900, 1, 1)])
    trace = read_mooncake(path, step_seconds=0.025)
    assert [r.arrival for r in trace.instance.requests] == [4, 4, 5, 43, 0]
    assert [(r.prompt, r.output) for r in trace.instance.requests] == [(600, 3), (10, 2), (10, 2), (1024, 1), (1, 1)]
    assert trace.instance.memory == 2 * 1025 and [r.id for r in trace.instance.requests] == ["r0", "r1", "r2", "r3",
                                                                                            "r4"]
    assert read_mooncake(path, step_seconds=0.001).instance.requests[3].arrival == 1099  # milliseconds exactly
    assert read_workload_file(path, memory=5000).memory == 5000
    assert trace.prefix_blocks[3] == (0, 1) and trace.timestamps_ms == (1000, 1024, 1025, 1999, 900)


def test_zero_outputs_are_dropped_and_counted_slices_by_line(tmp_path):
    path = write_mooncake(tmp_path / "t.jsonl", [_line(0, 5, 1), _line(10, 5, 0), _line(20, 5, 4), _line(30, 5, 2)])
    trace = read_mooncake(path)
    assert (trace.lines, trace.dropped_zero_output, trace.instance.n) == (4, 1, 3)
    part = read_mooncake(path, offset=2, limit=1)
    assert part.lines == 1 and [(r.arrival, r.output) for r in part.instance.requests] == [(0, 4)]
    with pytest.raises(WorkloadFormatError, match="no usable line"):
        read_mooncake(path, offset=1, limit=1)
    with pytest.raises(ValidationError, match="limit"):
        read_mooncake(path, limit=0)


@pytest.mark.parametrize("line, message", [
    ({"timestamp": 0, "input_length": 5, "output_length": 1}, "t.jsonl:2: missing key 'hash_ids'"),
    ({**_line(0, 5, 1), "prompt": "hi"}, "t.jsonl:2: unknown key 'prompt'"),
    (_line(-1, 5, 1), "t.jsonl:2: 'timestamp' must be an integer"),
    (_line(0, 5, 1.5), "t.jsonl:2: 'output_length' must be an integer"),
    (_line(0, True, 1), "t.jsonl:2: 'input_length' must be an integer"),
    (_line(0, 1025, 1, [0, 1]), "t.jsonl:2: 'hash_ids' has 2 id.s.; input_length 1025 needs ceil.1025 / 512. = 3"),
    (_line(0, 5, 1, [-3]), "t.jsonl:2: 'hash_ids' must be a list of non-negative integers"),
    ([1, 2], "t.jsonl:2: expected a JSON object"),
])
def test_a_bad_line_is_refused_naming_the_line_and_field(tmp_path, line, message):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(_line(0, 5, 1)) + "\n" + json.dumps(line) + "\n")
    with pytest.raises(WorkloadFormatError, match=message):
        read_mooncake(path)


def test_the_cli_refuses_a_bad_line_in_one_line_exit_2(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(_line(0, 5, 1)) + "\n" + json.dumps(_line(7, 600, 2, [4])) + "\n")
    run = subprocess.run([sys.executable, "-m", "geosched", "simulate", str(path)], capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [f"geosched: error: {path}:2: 'hash_ids' has 1 id(s); input_length 600 "
                                               "needs ceil(600 / 512) = 2 (one per 512-token block)"]


def test_the_suffix_rule_tells_mooncake_from_vllm_timed_trace(tmp_path):
    moon = write_mooncake(tmp_path / "m.jsonl", mooncake_lines(5, seed=1))
    assert detect_format(moon).name == "mooncake" and is_trace(moon)
    # vLLM's timed_trace has the same keys, seconds and one hash id per 16 tokens: vllm-bench reads it
    vllm = tmp_path / "v.jsonl"
    vllm.write_text(json.dumps({"timestamp": 0.5, "input_length": 40, "output_length": 3, "hash_ids": [0, 1, 2]})
                    + "\n")
    assert detect_format(vllm).name == "vllm-bench"
    assert load_workload(str(moon)).n == 5  # the one workload argument of every command reads it


def test_the_prefix_side_table_counts_reusable_blocks():
    # by hand: r1 reuses (0, 1), r2 reuses (0,), r3 nothing, r4 reuses all of r0's three
    table = [(0, 1, 2), (0, 1, 5), (0, 7), (9,), (0, 1, 2)]
    assert shared_prefix_blocks(table) == 2 + 1 + 0 + 3
    assert shared_prefix_blocks([]) == 0


def test_the_request_log_keeps_milliseconds(tmp_path):
    path = write_mooncake(tmp_path / "t.jsonl", [_line(1500, 5, 1), _line(1501, 5, 2), _line(3000, 7, 3)])
    log = read_trace_log(path)
    assert log.arrival_seconds.tolist() == [0.0, 0.001, 1.5] and log.clock_origin is None
    assert read_trace_instance(path, limit=2).n == 2


def _independent_reuse(table) -> int:
    seen, reused = set(), 0
    for ids in table:
        hits = [k for k in range(1, len(ids) + 1) if tuple(ids[:k]) in seen]
        reused += max(hits, default=0)
        seen.update(tuple(ids[:k]) for k in range(1, len(ids) + 1))
    return reused


@pytest.mark.trace
def test_the_shared_mooncake_trace_reads_whole():
    if not MOONCAKE.is_file():
        pytest.skip(f"trace not found at {MOONCAKE}")
    trace = read_mooncake(MOONCAKE)
    requests = trace.instance.requests
    # the trace's README: 12,031 requests, timestamps 0 .. 3,536,999 ms, prompt max 126,195, output max 2,000
    assert (trace.lines, trace.instance.n, trace.dropped_zero_output) == (12031, 12031, 0)
    assert max(r.arrival for r in requests) == 3536999 // 25
    assert max(r.prompt for r in requests) == 126195 and max(r.output for r in requests) == 2000
    assert detect_format(MOONCAKE).name == "mooncake"
    head = trace.prefix_blocks[:300]
    assert shared_prefix_blocks(head) == _independent_reuse(head)
