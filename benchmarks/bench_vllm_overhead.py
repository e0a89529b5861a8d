"""Overhead of the geosched vLLM scheduler: time per ``schedule()`` call, on CPU.

vLLM 0.33's real V1 scheduler is driven with fake model outputs (no model, no GPU; see
:class:`geosched.reference_impl.vllm.harness.VllmDriver`) on one workload, replayed under

* vLLM's stock ``Scheduler`` with ``policy="fcfs"`` (the baseline) and ``policy="priority"``,
* the geosched plugin, SVF order, ``mode="native"`` and ``mode="paper"``;
* with ``--learned``: the plugin in ``paper`` mode with the shipped learned predictors running
  in the background worker (SVF with the point model, 1-bit SVF with the 1-bit classifier and
  the classifier's theta, O_0, O_1). For these the worker's own time (features + model, per
  request and per ``schedule()`` call) is reported too; it runs in a thread of the same process,
  so it also competes with the scheduler for the GIL and the 2 cores.

The ``schedule()`` calls are timed (``time.perf_counter`` around each call); the
figure is the mean time per call of one replay, and the reported value the median over
``--runs`` rounds; each round replays every variant once (interleaved, so that a shared
machine's load hits them alike). Ratios are against stock FCFS measured in the same process.

Workload: the first ``--n`` conversations of ``../shared/traces/azure_llm_2023_conv.csv``
as a burst when the trace is present, else the seeded ``chat`` generator. KV capacity:
``--memory-factor`` x the largest request's peak, in 16-token blocks; ``max_num_seqs`` 256,
token budget 8192 (vLLM's defaults for a GPU server are of that order).

Usage: ``python benchmarks/bench_vllm_overhead.py [--n 600] [--runs 5] [--out FILE]``
(merge the written section into benchmarks/RESULTS.md, section 4)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from geosched.reference_impl.vllm import harness  # noqa: E402
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest  # noqa: E402
from geosched.reference_impl.workloads import default_trace_path, generate, read_trace  # noqa: E402

VARIANTS = [
    ("vLLM stock FCFS", None, "fcfs", None),
    ("vLLM stock priority", None, "priority", None),
    ("geosched SVF native", harness.PLUGIN_PATH, "fcfs", {"policy": "svf", "mode": "native"}),
    ("geosched SVF paper", harness.PLUGIN_PATH, "fcfs", {"policy": "svf", "mode": "paper"}),
]


def learned_variants() -> list:
    """SVF with the learned point model and 1-bit SVF with the learned classifier, both in the background."""
    from geosched.reference_impl.predictors import load_default_model

    one_bit = load_default_model("onebit").one_bit_policy()
    return [
        ("geosched SVF paper, learned point", harness.PLUGIN_PATH, "fcfs",
         {"policy": "svf", "mode": "paper", "predictor": "learned:kind=point"}),
        ("geosched 1-bit SVF paper, learned onebit", harness.PLUGIN_PATH, "fcfs",
         {"policy": one_bit, "mode": "paper", "predictor": "learned:kind=onebit"}),
    ]


def workload(n: int, seed: int):
    path = default_trace_path()
    if path is not None:
        instance, _ = read_trace(path, arrivals="burst", limit=n)
        return instance, f"first {n} rows of {path.name} (burst)"
    return generate("chat", n=n, seed=seed), f"chat generator n={n} seed={seed} (trace absent)"


def replay(params: EngineParams, specs: list[SemRequest], scheduler_cls, geosched) -> tuple[float, int, int, dict]:
    """One full replay; returns (mean seconds per schedule() call, calls, preemptions, extra figures)."""
    driver = harness.VllmDriver(params, scheduler_cls, geosched)
    adding = 0.0
    original_add = driver.scheduler.add_request

    def timed_add(request):
        nonlocal adding
        start = time.perf_counter()
        original_add(request)
        adding += time.perf_counter() - start

    driver.scheduler.add_request = timed_add
    for spec in specs:
        driver.add(SemRequest(spec.id, spec.arrival, spec.prompt_tokens, spec.max_tokens, priority=spec.priority))
    scheduler = driver.scheduler
    original = scheduler.schedule
    spent = 0.0
    calls = 0

    def timed(*args, **kwargs):
        nonlocal spent, calls
        start = time.perf_counter()
        out = original(*args, **kwargs)
        spent += time.perf_counter() - start
        calls += 1
        return out

    scheduler.schedule = timed
    preemptions = 0
    step = 0
    while not driver.done():
        state = driver.step(step)
        preemptions += len(state.preempted)
        step += 1
    extra = {"add_seconds_per_request": adding / max(len(specs), 1)}
    stats = driver.scheduler.predictor_stats() if hasattr(driver.scheduler, "predictor_stats") else None
    if stats is not None:
        extra.update(worker_seconds_per_request=stats.seconds_per_request,
                     worker_seconds_per_step=stats.busy_seconds / max(calls, 1),
                     batches=stats.batches, largest_batch=stats.largest_batch, fallback_reads=stats.fallbacks,
                     predicted=stats.predicted)
    if hasattr(driver.scheduler, "shutdown"):
        driver.scheduler.shutdown()
    return spent / max(calls, 1), calls, preemptions, extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-factor", type=float, default=4.0)
    parser.add_argument("--decode-step-ms", type=float, default=25.0,
                        help="assumed GPU decode step time, to express the overhead as a fraction")
    parser.add_argument("--out", default=None, help="write the markdown section here")
    parser.add_argument("--learned", action="store_true", help="add the learned-predictor variants")
    args = parser.parse_args(argv)
    variants = VARIANTS + (learned_variants() if args.learned else [])

    instance, source = workload(args.n, args.seed)
    specs = harness.requests_from_instance(instance)
    for spec in specs:  # stock priority: all equal priorities -> arrival order, like FCFS
        spec.priority = 0
    block = 16
    peak_tokens = max(r.prompt + 1 + r.output for r in instance.requests)
    capacity = -(-int(args.memory_factor * peak_tokens) // block)
    params = EngineParams(capacity_blocks=capacity, block_size=block, max_num_seqs=256,
                          max_num_batched_tokens=8192)
    harness.model_config()
    replay(params, specs[:50], None, None)  # warm-up: imports, first-call caches

    # Rounds interleave the variants, so that the load of a shared machine hits them alike.
    samples: dict[str, list[float]] = {label: [] for label, *_ in variants}
    extras: dict[str, list[dict]] = {label: [] for label, *_ in variants}
    facts: dict[str, tuple[int, int]] = {}
    for round_index in range(args.runs):
        for label, cls, preemption, geosched in variants:
            p = EngineParams(**{**params.__dict__, "preemption": preemption})
            per_call, calls, preemptions, extra = replay(p, specs, cls, geosched)
            samples[label].append(per_call)
            extras[label].append(extra)
            facts[label] = (calls, preemptions)
        print(f"round {round_index + 1}/{args.runs}: " + ", ".join(
            f"{label} {samples[label][-1] * 1e3:.3f} ms" for label, *_ in variants), flush=True)
    rows = [(label, statistics.median(samples[label]), *facts[label], samples[label]) for label, *_ in variants]

    baseline = rows[0][1]
    import vllm

    lines = [
        "## vLLM scheduler overhead (CPU, fake model outputs)",
        "",
        f"Command: `python benchmarks/bench_vllm_overhead.py --n {args.n} --runs {args.runs}"
        f" --memory-factor {args.memory_factor}{' --learned' if args.learned else ''}`",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, vLLM {vllm.__version__} (lean CPU install), shared with other jobs "
        "(timings are noisy).",
        f"Workload: {source}; KV capacity {capacity} blocks x {block} tokens "
        f"({args.memory_factor} x the largest peak), max_num_seqs 256, token budget 8192.",
        "",
        "| scheduler | ms per schedule() (median of runs) | min-max over runs (ms) | ratio vs stock FCFS |"
        " schedule() calls | preemptions |",
        "|---|---|---|---|---|---|",
    ]
    for label, median, calls, preemptions, runs in rows:
        lines.append(f"| {label} | {median * 1e3:.3f} | {min(runs) * 1e3:.3f}-{max(runs) * 1e3:.3f} | "
                     f"{median / baseline:.2f} | {calls} | {preemptions} |")
    worst = max(r[1] for r in rows[2:4])
    extra = max(0.0, worst - baseline)
    lines += [
        "",
        f"Added scheduling time per step of the slower geosched mode (oracle lengths) over stock FCFS: "
        f"{extra * 1e3:.3f} ms, i.e. "
        f"{100 * extra / (args.decode_step_ms * 1e-3):.2f}% of a decode step *if* a step takes "
        f"{args.decode_step_ms:g} ms on the GPU (an assumption, not measured here: no GPU was available). "
        "The paper reports predictor overhead <= 0.06% of end-to-end latency; this figure is the "
        "scheduler-side cost only (the oracle predictor reads max_tokens).",
        "",
    ]
    learned = [label for label, *_ in variants if "learned" in label]
    if learned:
        lines += [
            "Learned predictors in the background worker (medians over runs). add_request includes the O(1) "
            "submission, and its wall time also counts waiting for the GIL while the worker thread computes; "
            "the worker time is that thread's CPU time (features + model, batched); fallback reads = "
            "prediction not ready when a schedule() call looked:",
            "",
            "| variant | add_request (us/request) | worker (us/request) | worker (ms per schedule() call) | "
            f"worker per call / {args.decode_step_ms:g} ms step | model calls | largest batch | "
            "fallback reads |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for label in learned:
            runs = extras[label]

            def med(key, runs=runs):
                return statistics.median(r[key] for r in runs)

            per_step = med("worker_seconds_per_step")
            lines.append(f"| {label} | {med('add_seconds_per_request') * 1e6:.1f} | "
                         f"{med('worker_seconds_per_request') * 1e6:.1f} | {per_step * 1e3:.4f} | "
                         f"{100 * per_step / (args.decode_step_ms * 1e-3):.3f}% | {med('batches'):.0f} | "
                         f"{med('largest_batch'):.0f} | {med('fallback_reads'):.0f} |")
        stock_add = statistics.median(r["add_seconds_per_request"] for r in extras[variants[0][0]])
        lines += ["", f"(stock FCFS add_request: {stock_add * 1e6:.1f} us/request.)", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
