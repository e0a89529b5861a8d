"""End-to-end replay of a geosched export: a server with the export's settings, vLLM's own ``vllm bench serve``
client, the measured latencies beside the model's, and the replay's fidelity (issues 26 and 36).

Usage::

    geosched hunt --policy vllm-fcfs --block-size 16 --memory 160 --method anneal --time 30 --out hunt16
    geosched export hunt16/best_witness.json --format vllm-bench --out worst.jsonl
    python benchmarks/gpu_replay.py worst.jsonl [--server vllm|step] [--out DIR] [--timeout 900]

``--server vllm`` (the default) starts ``vllm serve`` with the settings the export states (its first
line's ``geosched_workload.server``: block size, the KV blocks of the model's ``M``, batch limits,
prefix caching off) on a small Llama-shaped model built locally (random weights, a word-level
tokenizer: nothing is downloaded). It needs a GPU and the full vLLM install; without a GPU it runs
nothing and reports ``{"status": "not_run", "reason": ...}``: no CPU proxy stands in for GPU numbers.
An export whose settings vLLM refused at export time (``server_check``) is not served.

``--server step`` replays the same file against ``geosched serve-model`` on CPU: vLLM's engine core
with no model, one engine step per ``step_seconds`` (a dry run; the test suite runs it).

Both are the same code, :func:`geosched.reference_impl.vllm.replay.replay_export`: the client is
vLLM's ``vllm bench serve --dataset-name timed_trace`` (the file's order and timestamps, EOS
ignored), the figures are read from the result file vLLM's client writes (``latencies``, ``ttfts``,
``itls``) and from the server's request log (the order and time in which the server received the
requests, against the model's order and arrival steps). ``DIR/report.json`` holds them all; the exit
status is 0 for a ``faithful`` replay (or ``not_run``), 1 for one that was ``reordered``, ``drifted``,
``incomplete`` or ``failed``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


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


def _refused_by_vllm(meta: dict) -> str | None:
    """The export's own verdict (written at export time): why vLLM's GPU server would refuse it, if it does."""
    check = meta.get("server_check") or {}
    if check.get("accepted") is False:
        return "vLLM refuses the export's server settings: " + "; ".join(check.get("problems") or ["(no reason)"])
    return None


def run(export: Path, out: Path | None, server: str, timeout: float, scheduler_cls: str | None = None) -> dict:
    """The report of one replay (see the module docstring). The export is read first, through geosched's gate
    for names of code (a field naming code is refused in one line before torch or vLLM is imported)."""
    from geosched.reference_impl.vllm.engine_replay import read_replay_settings
    from geosched.reference_impl.vllm.replay import replay_export

    _, meta, _ = read_replay_settings(export)
    out = out or Path(tempfile.mkdtemp(prefix="geosched-replay-"))
    out.mkdir(parents=True, exist_ok=True)
    if server == "vllm":
        reason = gpu_reason() or _refused_by_vllm(meta)
        if reason is None and not _vllm_serve_importable():
            reason = "vLLM's server does not import here (the full vLLM install is needed, not the lean CPU one)"
        if reason is not None:
            return {"status": "not_run", "reason": reason, "export": str(export), "server": server, "out": str(out)}
    result = replay_export(export, out, server=server, timeout=timeout, scheduler_cls=scheduler_cls)
    return {**result.to_dict(), "report": result.report(), "out": str(out)}


def _vllm_serve_importable() -> bool:
    code = "import vllm.entrypoints.cli.serve"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", type=Path, help="a geosched export --format vllm-bench file")
    parser.add_argument("--server", choices=("vllm", "step"), default="vllm",
                        help="vllm: vllm serve on a GPU (default); step: geosched serve-model on CPU (a dry run)")
    parser.add_argument("--out", type=Path, default=None, help="result folder (default: a new temporary folder)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds for the server start, and for the client's run (each)")
    parser.add_argument("--scheduler-cls", default=None, metavar="FILE.py:Class",
                        help="--server step: the scheduler file an export made with --scheduler-cls was pinned to")
    args = parser.parse_args(argv)
    from geosched.errors import GeoschedError

    try:
        report = run(args.export, args.out, args.server, args.timeout, args.scheduler_cls)
    except GeoschedError as exc:  # a bad or code-naming export: one line, as the geosched command says it
        print(f"geosched: error: {exc}", file=sys.stderr)
        return 2
    out = Path(report["out"])
    (out / "report.json").write_text(json.dumps(report, indent=1))
    print(report.get("report") or json.dumps(report, indent=1))
    print(f"report: {out / 'report.json'}", file=sys.stderr)
    return 0 if report["status"] in ("faithful", "not_run") else 1


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
