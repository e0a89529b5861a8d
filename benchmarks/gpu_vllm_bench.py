"""GPU benchmark: a trace slice through real vLLM with FCFS, SJF, SVF and 1-bit SVF (the plugin).

Needs a CUDA GPU and the *full* vLLM 0.33.0 install (``docs/vllm.md`` explains how to bring
it as wheels to a machine with no package index); never needed by the tests. Nothing is
downloaded: the model is a directory holding only a Llama-3.1-8B-shaped ``config.json``
and the weights are random (``load_format="dummy"``); prompts are token ids, outputs run to
``max_tokens`` exactly (``ignore_eos``), so the lengths are the trace's.

For each policy a fresh engine is built in-process (``VLLM_ENABLE_V1_MULTIPROCESSING=0``,
synchronous scheduling so that the plugin's ``Scheduler`` subclass is used as is), the
slice is submitted as a burst (or with its arrival times, ``--online``) and the engine is
stepped until every request finishes. Recorded per policy: mean and P95 end-to-end latency
(submission to the step returning the last token, wall clock), makespan, throughput (output
tokens / s), and the number of preemptions (counted on the engine's scheduler).

Usage::

    python benchmarks/gpu_vllm_bench.py --n 1000 --offset 0 --kv-blocks 4000 \
        --policies fcfs,sjf,svf,svf1 --out benchmarks/results_vllm_gpu.md

Not yet run: no GPU was lent to the session that wrote it (see benchmarks/RESULTS.md, section 4).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from geosched.reference_impl.policies import Capability, policy_names

os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

LLAMA_31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-5,
    "rope_theta": 500000.0,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "bos_token_id": 128000,
    "eos_token_id": 128001,
}

PLUGIN = "geosched.reference_impl.vllm.plugin.GeoschedScheduler"


def load_slice(args):
    from geosched.reference_impl.workloads import default_trace_path, generate, read_trace

    path = args.trace or default_trace_path()
    if path:
        instance, _ = read_trace(path, arrivals="online" if args.online else "burst", limit=args.n,
                                 offset=args.offset, step_seconds=args.step_seconds)
        return instance, str(path)
    return generate("chat", n=args.n, seed=args.seed), "chat generator"


def policy_section(name: str, instance) -> dict:
    if name == "svf1":
        outputs = sorted(r.output for r in instance.requests)
        theta = outputs[len(outputs) // 2]
        short = [o for o in outputs if o <= theta] or [theta]
        long_ = [o for o in outputs if o > theta] or [2 * theta]
        spec = (f"svf1:theta={theta},short_length={max(1, round(statistics.mean(short)))},"
                f"long_length={max(1, round(statistics.mean(long_)))}")
        return {"policy": spec, "mode": "paper"}
    return {"policy": name, "mode": "paper"}


def run_policy(name, instance, model_dir, args):
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    section = policy_section(name, instance) if name != "stock" else None
    if section is not None:
        section["mode"] = args.mode
    kwargs = dict(
        model=model_dir, load_format="dummy", skip_tokenizer_init=True, enforce_eager=True,
        max_model_len=args.max_model_len, num_gpu_blocks_override=args.kv_blocks,
        max_num_seqs=args.max_num_seqs, enable_prefix_caching=False, async_scheduling=False,
        gpu_memory_utilization=args.gpu_memory_utilization, seed=args.seed,
    )
    if section is not None:
        kwargs.update(scheduler_cls=PLUGIN, additional_config={"geosched": section})
    llm = LLM(**kwargs)
    engine = llm.llm_engine
    preemptions = [0]
    try:  # in-process engine core: count preemptions on the real scheduler
        scheduler = engine.engine_core.engine_core.scheduler
        original = scheduler._preempt_request

        def counting(*a, **k):
            preemptions[0] += 1
            return original(*a, **k)

        scheduler._preempt_request = counting
    except AttributeError:
        preemptions[0] = -1  # unknown: engine layout differs
    order = sorted(instance.requests, key=lambda r: r.arrival)
    submitted, finished = {}, {}
    start = time.perf_counter()
    pending = list(order)
    while pending or engine.has_unfinished_requests():
        now_steps = (time.perf_counter() - start) / args.step_seconds
        while pending and (not args.online or pending[0].arrival <= now_steps):
            r = pending.pop(0)
            prompt = TokensPrompt(prompt_token_ids=[(7 * k + 11) % 32000 + 100 for k in range(max(1, r.prompt))])
            params = SamplingParams(max_tokens=r.output, ignore_eos=True, detokenize=False, temperature=0.0)
            engine.add_request(r.id, prompt, params)
            submitted[r.id] = time.perf_counter()
        for out in engine.step():
            if out.finished:
                finished[out.request_id] = time.perf_counter()
        if not engine.has_unfinished_requests() and pending and args.online:
            time.sleep(0.001)
    makespan = time.perf_counter() - start
    latencies = sorted(finished[i] - submitted[i] for i in finished)
    tokens = sum(r.output for r in instance.requests)
    del llm
    return {
        "policy": name if section is None else section["policy"],
        "mode": "stock" if section is None else section["mode"],
        "mean_latency_s": statistics.mean(latencies),
        "p95_latency_s": latencies[int(0.95 * (len(latencies) - 1))],
        "makespan_s": makespan,
        "throughput_tok_s": tokens / makespan,
        "preemptions": preemptions[0],
        "finished": len(finished),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Trace slice through real vLLM with geosched policies")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--trace", default=None)
    parser.add_argument("--online", action="store_true", help="replay arrival times instead of a burst")
    parser.add_argument("--step-seconds", type=float, default=0.025)
    parser.add_argument("--policies", default="stock," + ",".join(policy_names(Capability.VLLM)))
    parser.add_argument("--mode", default="paper", choices=["paper", "native"])
    parser.add_argument("--kv-blocks", type=int, default=4000, help="num_gpu_blocks_override (16 tokens each)")
    parser.add_argument("--max-num-seqs", type=int, default=256)
    parser.add_argument("--max-model-len", type=int, default=16384)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    instance, source = load_slice(args)
    model_dir = tempfile.mkdtemp(prefix="llama31-8b-shape-")
    with open(os.path.join(model_dir, "config.json"), "w") as handle:
        json.dump(LLAMA_31_8B, handle)
    rows = []
    for name in [p.strip() for p in args.policies.split(",") if p.strip()]:
        row = run_policy(name, instance, model_dir, args)
        rows.append(row)
        print(json.dumps(row), flush=True)
    import torch
    import vllm

    lines = [
        "## vLLM on GPU: trace slice, Llama-3.1-8B shape, dummy weights",
        "",
        f"Command: `python benchmarks/gpu_vllm_bench.py {' '.join(argv or sys.argv[1:])}`",
        f"GPU: {torch.cuda.get_device_name(0)}; vLLM {vllm.__version__}; workload: {source}, n={instance.n}, "
        f"offset={args.offset}, {'online' if args.online else 'burst'}; KV blocks {args.kv_blocks} x 16.",
        "",
        "| policy | mode | mean latency (s) | P95 latency (s) | makespan (s) | throughput (tok/s) | preemptions |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['policy']} | {r['mode']} | {r['mean_latency_s']:.2f} | {r['p95_latency_s']:.2f} | "
                     f"{r['makespan_s']:.1f} | {r['throughput_tok_s']:.0f} | {r['preemptions']} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
