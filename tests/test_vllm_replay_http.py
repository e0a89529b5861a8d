"""The replay to a vLLM server, end to end on CPU (issue 36): vLLM's own ``vllm bench serve`` client replays an
export against ``geosched serve-model`` (vLLM's engine core, no model, one step per ``step_seconds``) through
``benchmarks/gpu_replay.py --server step``, the script the GPU runs with ``--server vllm``; and the pieces
vLLM's own code decides: the block-size rule geosched records, the export-time checks, the request log.

Pass or fail never depends on speed: the timeouts are generous bounds, and what is judged is the order in
which the server received the requests (staggered 20 ms apart, a 200 ms step) and the step counts of the
server's engine, which depend only on which step window each request fell into (the report says when one
did not: then the step comparison is not asserted, the report's flag is)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from argparse import Namespace
from pathlib import Path

import pytest

if os.environ.get("GEOSCHED_REQUIRE_VLLM") == "1":  # CI: a missing vLLM is a failure, not a skip
    import vllm  # noqa: F401
else:
    pytest.importorskip("vllm", reason="vLLM is not installed (ci/install-vllm.sh installs the lean CPU build)")

from geosched.adversary.witness import make_witness, write_witness  # noqa: E402
from geosched.errors import ValidationError  # noqa: E402
from geosched.reference_impl.formats import write_workload  # noqa: E402
from geosched.reference_impl.formats.server_check import (  # noqa: E402
    CUDA_BACKENDS,
    RECORDED_BLOCK_SIZES,
    check_server_settings,
)
from geosched.reference_impl.formats.serving import ServerSettings  # noqa: E402
from geosched.reference_impl.model import Instance, Request, burst_instance  # noqa: E402
from geosched.reference_impl.vllm.harness import ensure_vllm_device  # noqa: E402
from geosched.reference_impl.vllm.replay import read_arrival_log, vllm_logging_config  # noqa: E402

pytestmark = pytest.mark.vllm
ROOT = Path(__file__).resolve().parents[1]


def _geosched(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "geosched", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def _block16_witness(folder: Path) -> tuple[Path, int]:
    """A 5-request burst at block grain 16 (M = 64: 4 blocks); stock vLLM FCFS preempts once on it."""
    inst = burst_instance(64, [(20, 10), (5, 12), (30, 3), (1, 16), (9, 9)], block_size=16)
    serial, t = {}, 0
    for r in inst.requests:
        serial[r.id], t = t, t + r.output
    witness = make_witness(inst, "vllm-fcfs", serial, found_by="hand")
    return write_witness(witness, folder / "w16.json"), witness.policy_tel


# ---- the CPU end-to-end replay ------------------------------------------------------------------------------

@pytest.mark.slow
def test_cpu_replay_with_vllms_client_is_read_from_vllms_result_file(tmp_path):
    witness, model_tel = _block16_witness(tmp_path)
    export = tmp_path / "w16.jsonl"
    done = _geosched("export", str(witness), "--format", "vllm-bench", "--out", str(export), "--step-seconds", "0.2",
                     "--tie-gap-seconds", "0.02", "--no-vllm-check", cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "w16.replay.sh").is_file(), done.stderr
    out = tmp_path / "replay"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_replay.py"), str(export), "--server", "step",
                          "--out", str(out), "--timeout", "600"], capture_output=True, text=True, timeout=1500)
    report = json.loads((out / "report.json").read_text())
    assert report["status"] not in ("failed", "incomplete"), report.get("message") or run.stderr[-2000:]
    # vLLM's own result file: per-request `latencies` (there is no `e2els`), in the file's order
    result = json.loads((out / "bench.json").read_text())
    assert "e2els" not in result and result["completed"] == 5 and len(result["latencies"]) == 5
    assert report["latencies"] == result["latencies"] and report["completed"] == 5
    # the order in which the server received the requests, read here from its log without geosched's parser
    logged = [re.search(r"Received request cmpl-geosched-(\d+)-0:", line)
              for line in (out / "arrivals.log").read_text().splitlines()]
    received = [int(m.group(1)) for m in logged if m]
    assert report["fidelity"]["received_order"] == received
    assert (report["status"] == "reordered") is (received != sorted(received))
    assert received == [0, 1, 2, 3, 4], report["report"]  # the model's send order, kept by the stagger
    steps = report["server_steps"]
    if report["status"] == "faithful":  # every request fell in its model step: the engine's run is the model's
        assert steps["comparable"] and steps["tel_steps"] == model_tel == report["model"]["model_tel_steps"]
        assert f"took TEL {model_tel} steps = the witness's model TEL {model_tel}" in report["report"]
    else:
        assert report["status"] == "drifted" and "DRIFT" in report["report"]
    assert run.stdout.startswith("w16.jsonl: 5 requests replayed by vllm bench serve")
    if shutil.which("nvidia-smi") is None:  # the GPU path of the same script says why it does not run here
        gpu = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_replay.py"), str(export), "--out",
                              str(tmp_path / "gpu")], capture_output=True, text=True, timeout=300)
        assert gpu.returncode == 0 and json.loads(gpu.stdout)["status"] == "not_run"


def test_step_server_answers_as_vllm_does(tmp_path):
    inst = Instance(64, [Request("a", 0, 3, 2), Request("b", 0, 1, 3)])
    path = tmp_path / "w.jsonl"
    write_workload(inst, path, "vllm-bench", step_seconds=0.05, tie_gap_seconds=0.005,
                   metadata={"server": ServerSettings(64, 16, 2, 64, 8).to_dict()})
    from geosched.reference_impl.vllm.step_server import serve_export

    ports: list[str] = []
    summary: dict = {}
    thread = threading.Thread(target=lambda: summary.update(serve_export(
        path, port=0, timeout=120, arrival_log=tmp_path / "arrivals.log", announce=ports.append)), daemon=True)
    thread.start()
    for _ in range(600):
        if ports or not thread.is_alive():
            break
        threading.Event().wait(0.2)
    base = ports[0].replace("listening on ", "")
    assert urllib.request.urlopen(base + "/health", timeout=30).status == 200

    def post(body: dict, rid: str) -> tuple[int, bytes]:
        request = urllib.request.Request(base + "/v1/completions", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json", "X-Request-Id": rid})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    status, body = post({"prompt": [5] * 7, "max_tokens": 2}, "too-long")  # 7 + 2 > max_model_len 8
    assert status == 400 and b"maximum context length is 8 tokens" in body
    status, body = post({"prompt": [5, 6, 7], "max_tokens": 2}, "geosched-0")
    answer = json.loads(body)
    assert status == 200 and answer["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    status, body = post({"prompt": [5, 6], "max_tokens": 3, "stream": True,
                         "stream_options": {"include_usage": True}}, "geosched-1")
    events = [line[len("data: "):] for line in body.decode().splitlines() if line.startswith("data: ")]
    chunks = [json.loads(e) for e in events[:-1]]
    assert status == 200 and events[-1] == "[DONE]" and len(chunks) == 4  # 3 tokens, then the usage chunk
    assert [c["choices"][0]["finish_reason"] for c in chunks[:3]] == [None, None, "length"]
    assert chunks[3]["usage"]["completion_tokens"] == 3 and chunks[3]["choices"] == []
    thread.join(timeout=120)
    assert summary["stopped"] == "requests" and summary["responses"] == 2  # stopped by itself after the file's 2
    rows = {r["request_id"]: r for r in summary["requests"]}
    # each request runs its max_tokens steps from the step it joined: first token there, the last o - 1 later
    for rid, o in (("cmpl-geosched-0-0", 2), ("cmpl-geosched-1-0", 3)):
        assert rows[rid]["first_token_step"] == rows[rid]["arrival_step"]
        assert rows[rid]["finish_step"] == rows[rid]["arrival_step"] + o - 1
    assert sorted(read_arrival_log(tmp_path / "arrivals.log")) == [0, 1]


# ---- vLLM's own code: the block-size rule, the export-time checks, the request log ------------------------

def _origin(module: str) -> str:
    import importlib.util

    return importlib.util.find_spec(module).origin


def test_the_recorded_block_rule_is_vllms():
    ensure_vllm_device()
    from vllm.v1.attention.backends.registry import AttentionBackendEnum
    from vllm.v1.worker.utils import select_common_block_size

    source = Path(_origin("vllm.platforms")).with_name("cuda.py").read_text()
    body = source[source.index("def _get_backend_priorities"):]
    body = body[: body.index("\ndef ")]
    standard = body[body.index("\n    else:\n"):]  # the branch without MLA
    named = set(re.findall(r"AttentionBackendEnum\.(\w+)", standard)) - {"TRITON_FLASHINFER", "TRITON_FLASH_ATTN"}
    assert named == set(CUDA_BACKENDS)  # (the two left out serve multimodal prefixes only)
    for name in CUDA_BACKENDS:
        try:
            backend = AttentionBackendEnum[name].get_class()
        except ImportError:  # FlashInfer's kernels are not in the lean install: its source states the sizes
            text = Path(_origin("vllm.v1.attention.backends.registry")).with_name(
                f"{name.lower()}.py").read_text()
            assert "return [16, 32, 64]" in text and RECORDED_BLOCK_SIZES[name] == (16, 32, 64)
            continue
        declared = backend.get_supported_kernel_block_sizes()
        recorded = RECORDED_BLOCK_SIZES[name]
        assert [("multiple", d.base) if hasattr(d, "base") else d for d in declared] == (
            [recorded] if recorded[0] == "multiple" else list(recorded))
        for block in range(1, 130):
            try:
                kernel = select_common_block_size(block, [backend])
            except ValueError:
                kernel = None
            assert (kernel is not None) is (block % 16 == 0), (name, block)


@pytest.mark.slow
def test_export_asks_vllms_parser_and_engine_config(tmp_path):
    from geosched.reference_impl.formats import ExportSource
    from geosched.reference_impl.formats.vllm_bench import plan_export

    accepted = check_server_settings(ServerSettings(64, 16, 5, 75, 34))
    assert accepted.accepted is True and accepted.by.startswith("vLLM 0.33")
    assert accepted.backends["FLASH_ATTN"] == "kernel block 16" and not accepted.problems
    # a witness engine without chunked prefill and a budget below the longest request: vLLM's config refuses it
    inst = Instance(64, [Request("a", 0, 20, 5), Request("b", 0, 1, 2)], block_size=16)
    engine = {"capacity_blocks": 4, "block_size": 16, "max_num_seqs": 2, "max_num_batched_tokens": 16,
              "enable_chunked_prefill": False, "preemption": "fcfs"}
    # the referee's report of a witness with that engine (an export of a witness takes nothing else)
    witness = {"status": "verified", "ok": True, "policy": "vllm-fcfs", "policy_tel": 1, "witness_tel": 1,
               "certified_ratio": 1.0, "certified_ratio_exact": "1", "tie_rule": "", "depends_on_ties": False,
               "reversed_ties_tel": 1, "engine": engine, "block_size": 16}
    args = Namespace(block_size=None, scheduler_cls=None, tie_gap_seconds=0.002, out=str(tmp_path / "x.jsonl"),
                     vllm_check=True, quiet=True)
    with pytest.raises(ValidationError, match=r"vLLM 0\.33 refuses them: vLLM's create_engine_config: .*"
                                              r"max_num_batched_tokens \(16\) is smaller than max_model_len \(26\)"):
        plan_export(ExportSource("w.json", inst, witness=lambda: witness), args)


def test_vllm_serve_writes_its_request_log_where_the_replay_reads_it(tmp_path):
    config = tmp_path / "logging.json"
    config.write_text(json.dumps(vllm_logging_config(tmp_path / "arrivals.log")))
    code = ("from vllm.entrypoints.common.cli_args import make_arg_parser\n"
            "from vllm.logger import configure_logging_from_args\n"
            "from vllm.utils.argparse_utils import FlexibleArgumentParser\n"
            "args = make_arg_parser(FlexibleArgumentParser()).parse_args(['model', '--enable-log-requests'])\n"
            "configure_logging_from_args(args)  # what the vllm command does with vllm serve's arguments\n"
            "from vllm.entrypoints.serve.utils.request_logger import RequestLogger\n"
            "from vllm import SamplingParams\n"
            "RequestLogger(max_log_len=None).log_inputs('cmpl-geosched-7-0', None, [1, 2], None, "
            "params=SamplingParams(max_tokens=3), lora_request=None)\n")
    env = dict(os.environ, VLLM_LOGGING_CONFIG_PATH=str(config), VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    received = read_arrival_log(tmp_path / "arrivals.log")
    assert list(received) == [7] and received[7] > 1e9  # a unix time with microseconds, from vLLM's own logger
