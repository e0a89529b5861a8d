"""What a replay to a vLLM server needs checked without vLLM or a GPU (issue 36): the block-size rule at export
time (a setting vLLM's GPU backends refuse is an error or a warning naming the fix), the replay's fidelity
(order and lag of the server's receptions), the client's result file, and vllm-diff's reading of a divergence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from geosched.errors import WorkloadFormatError
from geosched.reference_impl.formats.server_check import CUDA_BACKENDS, recorded_block_rule
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.vllm.differential import SchedulerDiff, instance_table, interpret_divergence
from geosched.reference_impl.vllm.harness import DiffResult
from geosched.reference_impl.vllm.replay import read_arrival_log, read_bench_result, replay_fidelity
from geosched.reference_impl.vllm.semantics import StepState

ROOT = Path(__file__).resolve().parents[1]
FCFS_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_burst_ratio15.264.json"
BLOCK16_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_block16_burst_ratio86.176.json"


def _geosched(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "geosched", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


# ---- the block-size rule -------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", range(1, 70))
def test_recorded_rule_serves_exactly_the_multiples_of_16(block):
    check = recorded_block_rule(block)
    assert check.accepted is (block % 16 == 0)
    assert check.block_refused is (block % 16 != 0)
    assert set(check.backends) == set(CUDA_BACKENDS)
    if block % 16:
        assert check.refusal() == (f"--block-size {block} is rejected by every CUDA attention backend of vLLM 0.33 "
                                   f"({', '.join(CUDA_BACKENDS)}: multiples of 16)")
    else:
        assert all(v.startswith("kernel block") for v in check.backends.values())


def test_an_explicit_block_size_vllm_refuses_is_an_error_naming_the_fix(tmp_path):
    done = _geosched("export", str(FCFS_WITNESS), "--format", "vllm-bench", "--out", "w.jsonl", "--block-size", "1",
                     cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("geosched: error: --block-size: rejected by every CUDA attention backend of vLLM 0.33")
    assert "geosched hunt --policy vllm-fcfs --block-size 16 --memory 3200" in lines[0]  # M = 200 tokens -> 200 blocks
    assert not list(tmp_path.iterdir())  # nothing written
    # a witness certified at token grain cannot be served at 16 either: it names its grain and the hunt
    other = _geosched("export", str(FCFS_WITNESS), "--format", "vllm-bench", "--out", "w.jsonl", "--block-size", "16",
                      cwd=tmp_path)
    assert other.returncode == 2 and "certified at block size 1" in other.stderr and "hunt" in other.stderr


def test_a_token_grain_witness_gets_its_file_without_replay_script_and_a_warning(tmp_path):
    done = _geosched("export", str(FCFS_WITNESS), "--format", "vllm-bench", "--out", "w.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "w.jsonl").is_file() and not (tmp_path / "w.replay.sh").exists()
    warning = done.stderr.strip().splitlines()[-1]
    assert warning.startswith("geosched: warning: w.replay.sh not written: block size 1 (the witness's grain) is "
                              "rejected by every CUDA attention backend of vLLM 0.33")
    assert "`geosched hunt --policy vllm-fcfs --block-size 16" in warning
    assert "`python benchmarks/gpu_replay.py w.jsonl --server step`" in warning  # the CPU path, at token grain
    meta = json.loads((tmp_path / "w.jsonl").read_text().splitlines()[0])["geosched_workload"]
    assert meta["server_check"]["accepted"] is False and meta["server"]["block_size"] == 1


def test_a_block_16_witness_gets_its_replay_script(tmp_path):
    done = _geosched("export", str(BLOCK16_WITNESS), "--format", "vllm-bench", "--out", "w.jsonl",
                     "--no-vllm-check", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    script = (tmp_path / "w.replay.sh").read_text()
    assert "--block-size 16 --num-gpu-blocks-override 201" in script
    assert "--request-id-prefix geosched- --ready-check-timeout-sec 0 --save-result --save-detailed" in script
    check = json.loads((tmp_path / "w.jsonl").read_text().splitlines()[0])["geosched_workload"]["server_check"]
    assert check["accepted"] is True and "record" in check["by"] and check["notes"]  # says vLLM's checks did not run


# ---- the replay's fidelity -----------------------------------------------------------------------------------

def test_fidelity_of_a_faithful_replay():
    # a burst of three staggered by 10 ms at step 0.2 s, then one request at step 2
    stamps, steps = [0.0, 0.01, 0.02, 0.4], [0, 0, 0, 2]
    received = {0: 100.0, 1: 100.011, 2: 100.0205, 3: 100.404}
    f = replay_fidelity(stamps, steps, received, 0.2, 0.2)
    assert f.status == "faithful" and f.received_order == [0, 1, 2, 3] and not f.off_step and not f.missing
    assert f.lags == pytest.approx([0.0, 0.011, 0.0205, 0.004])
    assert f.timing_errors == pytest.approx([0.0, 0.001, 0.0005, 0.004])
    assert f.max_lag_steps == pytest.approx(0.1025) and f.max_timing_error_seconds == pytest.approx(0.004)
    assert "in the file's order" in f.describe() and "DRIFT" not in f.describe()


def test_fidelity_flags_a_reordered_replay():
    f = replay_fidelity([0.0, 0.01, 0.02], [0, 0, 0], {0: 5.0, 2: 5.01, 1: 5.02}, 0.2, 0.2)
    assert f.status == "reordered" and f.received_order == [0, 2, 1]
    assert f.first_inversion == "line 2 was received before line 1" and "ORDER DIFFERS" in f.describe()
    missing = replay_fidelity([0.0, 0.01], [0, 0], {0: 5.0}, 0.2, 0.2)
    assert missing.status == "reordered" and missing.missing == [1] and "never received" in missing.describe()


def test_fidelity_flags_a_request_outside_its_step():
    # the burst's last request reaches the server 1.2 steps after the burst began: the server sees it a step late
    late = replay_fidelity([0.0, 0.01], [0, 0], {0: 5.0, 1: 5.24}, 0.2, 0.2)
    assert late.status == "drifted" and late.off_step == [1] and "DRIFT" in late.describe()
    # the same reception on a server whose decode step is 5 ms: the burst spans many of its steps
    gpu = replay_fidelity([0.0, 0.01], [0, 0], {0: 5.0, 1: 5.011}, 0.025, 0.005)
    assert gpu.status == "drifted" and gpu.max_lag_steps == pytest.approx(2.2)
    # an early one (the first request was the late one)
    early = replay_fidelity([0.0, 0.2], [0, 1], {0: 5.0, 1: 5.15}, 0.2, 0.2)
    assert early.status == "drifted" and early.min_lag_steps == pytest.approx(-0.25)


def test_arrival_log_reads_vllm_and_serve_model_lines(tmp_path):
    log = tmp_path / "arrivals.log"
    log.write_text("1796323630.908082 Received request cmpl-geosched-0-0: params: max_tokens=10, ...\n"
                   "noise line\n"
                   "1796323630.929803 INFO [vllm.entrypoints.serve.utils.request_logger] Received request "
                   "cmpl-geosched-12-0: params: SamplingParams(n=1), lora_request: None.\n"
                   "1796323631.000000 Received request cmpl-geosched-0-0: a duplicate, later\n"
                   "1796323631.5 Received request cmpl-other-3-0: not a replay id\n")
    assert read_arrival_log(log) == {0: 1796323630.908082, 12: 1796323630.929803}


def test_result_file_is_read_from_latencies_not_e2els(tmp_path):
    good = {"completed": 2, "failed": 0, "duration": 1.5, "latencies": [0.5, 0.75], "ttfts": [0.1, 0.2],
            "itls": [[0.1], [0.1, 0.1]], "start_times": [1.0, 1.1], "output_lens": [2, 3], "errors": ["", ""]}
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(good))
    bench = read_bench_result(path, 2)
    assert bench.latencies == [0.5, 0.75] and bench.completed == 2 and bench.itls == [[0.1], [0.1, 0.1]]
    old = {k: v for k, v in good.items() if k != "latencies"} | {"e2els": [0.5, 0.75]}
    path.write_text(json.dumps(old))
    with pytest.raises(WorkloadFormatError, match="'latencies' must be a list of 2 entries"):
        read_bench_result(path, 2)
    with pytest.raises(WorkloadFormatError, match="latencies"):
        read_bench_result(tmp_path / "bench.json", 3)


# ---- vllm-diff's report ----------------------------------------------------------------------------------------

def _state(step, admitted=(), running=(), scheduled=(), finished=(), blocks=0, preempted=()):
    return StepState(step, tuple(admitted), tuple(preempted), tuple(running), tuple(scheduled), tuple(finished),
                     blocks)


INSTANCE = Instance(4, [Request("a", 0, 0, 2), Request("b", 0, 0, 1)])


@pytest.mark.parametrize("ours, theirs, expected", [
    (_state(1, blocks=1), _state(1, running=["b"], blocks=2),
     "Mine in vLLM holds 1 KV block with nothing running (the model holds 2): a block leak"),
    (_state(0, ["a", "b"], ["a", "b"], [("a", 1), ("b", 1)], blocks=2),
     _state(0, ["b", "a"], ["b", "a"], [("b", 1), ("a", 1)], blocks=2),
     "the same requests are admitted in another order: Mine in vLLM starts a (s = 0, o = 2) before b (s = 0, o = 1), "
     "the model the other way round (the queue order differs)"),
    (_state(0, ["a"], ["a"], [("a", 1)], blocks=1), _state(0, ["a", "b"], ["a", "b"], [("a", 1), ("b", 1)], blocks=2),
     "the model admits b (s = 0, o = 1), which Mine in vLLM holds back (a stricter admission or another queue head)"),
    (_state(2, (), ["b"], [("b", 1)], blocks=1, preempted=["a"]), _state(2, (), ["a", "b"], [("a", 1), ("b", 1)],
                                                                         blocks=2),
     "Mine in vLLM preempts a (s = 0, o = 2), which the model keeps running"),
    (_state(1, (), ["a"], [("a", 1)], ["a"], 1), _state(1, (), ["a"], [("a", 1)], (), 1),
     "Mine in vLLM finishes a (s = 0, o = 2), the model nothing: an output length (max_tokens) read differently"),
])
def test_interpretation_reads_the_differing_state(ours, theirs, expected):
    assert interpret_divergence(ours, theirs, "Mine in vLLM", "model", INSTANCE) == expected


def test_report_describes_the_shrunk_instance_with_labelled_fields():
    ours = _state(1, blocks=1)
    theirs = _state(1, running=["b"], scheduled=[("b", 1)], blocks=2)
    history = [(_state(0, ["a", "b"], ["a", "b"], [("a", 1), ("b", 1)], ["a"], 2),) * 2]
    params = {"capacity_blocks": 4, "block_size": 1, "max_num_seqs": 2, "max_num_batched_tokens": 4,
              "enable_chunked_prefill": True, "preemption": "fcfs"}
    diff = DiffResult("diverged", "native: first divergence at step 1", 0.1, "native", 2, {"params": params}, 1,
                      ("running", "blocks_used"), ours, theirs, history)
    given = DiffResult("diverged", "native: first divergence at step 7", 0.1, "native", 8, {}, 7, ("running",))
    report = SchedulerDiff("diverged", "pkg.Mine DIVERGES from the semantics model on the shrunk instance (2 requests, "
                           "M = 4; shrunk from the given 6 requests, M = 60, in 9 runs): first difference at "
                           "schedule() call 1, in running, blocks_used", 0.2, "pkg.Mine", "semantics model", given,
                           INSTANCE, diff).report().splitlines()
    assert report[1].startswith("the shrunk instance, M = 4 tokens (the model's prompt s, output o; vLLM receives "
                                "P = s + 1")
    assert [cell.strip() for cell in report[2].replace("||", "|").split("|")] == [
        "id", "arrival", "prompt s", "output o", "vLLM prompt P = s + 1", "vLLM max_tokens"]
    assert [cell.strip() for cell in report[3].replace("||", "|").split("|")] == ["a", "0", "0", "2", "1", "2"]
    assert report[5].startswith("engine: 4 usable KV blocks of 1 token")
    assert report[6].startswith("at schedule() call 1")  # the same call as the first line's, on the same instance
    assert report[7] == ("  Mine in vLLM    : admitted none | running none | tokens scheduled none | finished none "
                         "| preempted none | KV blocks in use 1")
    assert report[9] == ("interpretation: Mine in vLLM holds 1 KV block with nothing running (the semantics model "
                         "holds 2): a block leak")
    assert "native: first divergence at step 7" not in "\n".join(report)  # nothing of the given workload's run


def test_instance_table_labels_s_and_p():
    table = instance_table(burst_instance(30, [(6, 3), (0, 5)]), "the given workload")
    assert table[0].startswith("the given workload, M = 30 tokens")
    rows = [[cell.strip() for cell in line.replace("||", "|").split("|")] for line in table[2:]]
    assert rows == [["r0", "0", "6", "3", "7", "3"], ["r1", "0", "0", "5", "1", "5"]]
