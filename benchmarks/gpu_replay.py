"""End-to-end replay of a geosched export on a GPU: ``vllm serve`` + ``vllm bench serve``, measured latencies
beside the model's (issue 26).

Usage::

    geosched export docs/witnesses/vllm-fcfs_burst_ratio15.264.json --format vllm-bench --out worst.jsonl
    python benchmarks/gpu_replay.py worst.jsonl [--out gpu-replay] [--port 8000] [--timeout 900]

It builds a small Llama-shaped model locally (``config.json`` and a word-level tokenizer: nothing is
downloaded; the weights are random, ``--load-format dummy``), starts ``vllm serve`` with the server
settings the export states (its first line's ``geosched_workload.server``: block size, the KV
blocks of the model's ``M``, batch limits, prefix caching off), replays the file with
``vllm bench serve --dataset-name timed_trace`` (the file's order and timestamps, EOS ignored), and
writes ``report.json``: vLLM's measured end-to-end latencies (seconds, per request and their sum)
next to the model's (steps: ``TEL`` from the export's witness numbers), and the measured time
per output token, which converts between the two.

Without a GPU (no ``nvidia-smi`` that lists one, or torch reports no CUDA device) it runs nothing
and writes ``{"status": "not_run", "reason": ...}``: the end-to-end numbers are never replaced by a
CPU proxy. It needs the full vLLM install (CUDA build), which ``ci/install-vllm.sh``'s lean CPU build is not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

VOCAB = 4096  # the local tokenizer's words: enough that vLLM's random token ids are all valid


def gpu_reason() -> str | None:
    """None when a CUDA GPU is usable here, else why not."""
    if shutil.which("nvidia-smi") is None:
        return "no nvidia-smi on PATH (no NVIDIA driver)"
    listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    if listed.returncode != 0 or "GPU" not in listed.stdout:
        return "nvidia-smi lists no GPU"
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} sees no CUDA device (a CPU build?)"
    return None


def build_model_dir(folder: Path, max_len: int) -> Path:
    """A tiny Llama config and a word-level tokenizer, written locally (random weights at serve time)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
              "intermediate_size": 512, "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 4,
              "vocab_size": VOCAB, "max_position_embeddings": max(max_len, 2048), "torch_dtype": "bfloat16",
              "bos_token_id": 1, "eos_token_id": 2, "rms_norm_eps": 1e-5, "tie_word_embeddings": False}
    (folder / "config.json").write_text(json.dumps(config, indent=1))
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, **{f"w{k}": k for k in range(3, VOCAB)}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
        "model_max_length": max(max_len, 2048)}))
    (folder / "special_tokens_map.json").write_text(json.dumps({"bos_token": "<s>", "eos_token": "</s>",
                                                                "unk_token": "<unk>"}))
    return folder


def _wait_healthy(port: int, timeout: float, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"vllm serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(2)
    raise TimeoutError(f"vllm serve not healthy after {timeout:.0f} s")


def _model_numbers(meta: dict) -> dict:
    return {"policy": meta.get("policy"), "model_tel_steps": meta.get("policy_tel"),
            "witness_tel_steps": meta.get("witness_tel"), "certified_ratio": meta.get("certified_ratio")}


def replay(export: Path, out: Path, port: int, timeout: float) -> dict:
    """Serve and replay; returns the report (see the module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from geosched.reference_impl.formats.serving import ServerSettings, bench_args

    first = json.loads(export.read_text().splitlines()[0])
    meta = first["geosched_workload"]
    settings = ServerSettings(**{k: v for k, v in meta["server"].items() if k != "num_gpu_blocks_override"})
    n = sum(1 for line in export.read_text().splitlines() if line.strip())
    model = build_model_dir(out / "model", settings.max_model_len)
    serve = settings.serve_args(str(model)) + ["--port", str(port), "--host", "127.0.0.1"]
    with open(out / "serve.log", "w") as log:
        server = subprocess.Popen(serve, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_healthy(port, timeout, server)
            bench = bench_args(str(export), str(model), n, port=port) + ["--result-dir", str(out),
                                                                          "--result-filename", "bench.json",
                                                                          "--save-detailed"]
            subprocess.run(bench, check=True, timeout=timeout, stdout=log, stderr=subprocess.STDOUT)
        finally:
            server.terminate()
            server.wait(timeout=60)
    result = json.loads((out / "bench.json").read_text())
    e2e = result.get("e2els") or []
    return {"status": "ran", "export": str(export), "requests": n, "server": serve,
            "vllm_e2e_seconds_sum": sum(e2e) if e2e else None, "vllm_e2e_seconds": e2e,
            "vllm_mean_tpot_ms": result.get("mean_tpot_ms"), "vllm_completed": result.get("completed"),
            "model": _model_numbers(meta),
            "note": "model latencies are in scheduler steps; vLLM's in seconds: divide by the measured time per "
                    "output token to compare shapes, never the absolute values"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", type=Path, help="a geosched export --format vllm-bench file")
    parser.add_argument("--out", type=Path, default=None, help="result folder (default: a new temporary folder)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for the server start and the replay")
    args = parser.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="geosched-gpu-replay-"))
    out.mkdir(parents=True, exist_ok=True)
    reason = gpu_reason()
    if reason is not None:
        report = {"status": "not_run", "reason": reason, "export": str(args.export)}
    elif shutil.which("vllm") is None:
        report = {"status": "not_run", "reason": "the vllm command is not on PATH (the full vLLM install)"}
    else:
        report = replay(args.export, out, args.port, args.timeout)
    (out / "report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "vllm_e2e_seconds"}, indent=1))
    print(f"report: {out / 'report.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
