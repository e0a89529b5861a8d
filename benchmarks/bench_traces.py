"""CPU seconds of the empirical rows on each trace, and of simulations at each trace's full size (issue 45).

1. **The ledger's empirical rows**: ``geosched claims`` for the six ``kong.emp.*`` rows and the four
   ``sagesched.*`` rows in the default mode, on each trace alone and on both (the shared runs: one set of seeded
   windows per trace serves all six ``kong.emp`` rows), CPU seconds of this process.
2. **Full size**: every request of each trace (the Mooncake trace: all 12,031, prompts up to 126,195 tokens; the
   Azure trace: all 19,366 as the baseline in the same run) online at 0.025 s per step, at loads 0.8, 1.0, 1.2
   with ``M = max(ceil(V / (T u)), max peak)``, FCFS, SJF, SVF and 1-bit SVF under the trace's learned
   predictions (the event-driven engine with recompute evictions) and SVF on exact lengths (the compiled kernel
   where it applies), each schedule re-checked by the checker; CPU seconds per run and in all.

Usage: ``nice python benchmarks/bench_traces.py [--trace PATH ...] [--skip-rows]`` (default: every trace in
../shared/traces/).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.predictors import LearnedPredictor
from geosched.reference_impl.predictors.tracelog import read_trace_log
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.workloads import shared_traces, trace_label
from geosched.verify.trace_set import check_traces, trace_models

ROWS = ("kong.emp.svf_latency", "kong.emp.onebit", "kong.emp.overhead", "kong.emp.throughput", "kong.emp.fairness",
        "kong.emp.memory_intensive")
SAGESCHED = ("sagesched.gain", "sagesched.ablation", "sagesched.routing", "sagesched.preemption")


class _Fixed:
    def __init__(self, lengths):
        self.name, self.lengths = "learned", lengths

    def predict(self, instance):
        return self.lengths


def rows_cpu(paths: list[Path]) -> list[str]:
    from geosched.verify.ledger import run_claims

    lines = []
    for label, chosen in [*((trace_label(p), [p]) for p in paths), ("both", paths)]:
        for name, ids in (("kong.emp (6 rows)", ROWS), ("sagesched (4 rows)", SAGESCHED)):
            cpu = time.process_time()
            result = run_claims(list(ids), traces=chosen)
            words = ", ".join(f"{c.id.split('.', 1)[1]} {c.status}" for c in result.claims)
            lines.append(f"| {label} | {name} | {time.process_time() - cpu:.1f} | {words} |")
    return lines


def full_size(path: Path) -> list[str]:
    log = read_trace_log(path)
    steps = np.floor(log.arrival_seconds / 0.025).astype(np.int64)
    requests = [Request(f"r{k}", int(a), int(s), int(o)) for k, (a, s, o) in enumerate(zip(steps, log.prompt,
                                                                                           log.output))]
    volume, span, peak = sum(r.volume for r in requests), max(r.arrival for r in requests), max(r.peak for r in
                                                                                               requests)
    models = trace_models(path, log).paths
    probe = Instance(2 * peak, requests)
    cpu = time.process_time()
    point = np.asarray(LearnedPredictor(kind="point", model=models["point"], step_seconds=0.025).predict(probe))
    onebit_model = LearnedPredictor(kind="onebit", model=models["onebit"], step_seconds=0.025)
    onebit = np.asarray(onebit_model.predict(probe))
    lines = [f"| {trace_label(path)} | predictions (point, 1-bit) | - | - | {time.process_time() - cpu:.2f} | - |"]
    total = 0.0
    for load in (0.8, 1.0, 1.2):
        memory = max(math.ceil(volume / (span * load)), peak)
        instance = Instance(memory, requests)
        runs = [("fcfs", "fcfs", point), ("sjf", "sjf", point), ("svf", "svf", point),
                ("1-bit SVF", onebit_model.one_bit_policy(), onebit), ("svf (exact)", "svf", None)]
        for label, spec, lengths in runs:
            cpu = time.process_time()
            result = simulate(instance, spec, predictor="oracle" if lengths is None else _Fixed(lengths))
            report = check_schedule(instance, result.schedule)
            seconds = time.process_time() - cpu
            total += seconds
            assert report.feasible, label
            lines.append(f"| {trace_label(path)} | u={load:g} {label} | {memory:,} ({peak / memory:.2f}) | "
                         f"{report.metrics.mean_latency * 0.025:.1f} | {seconds:.2f} | {result.restarts} |")
    lines.append(f"| {trace_label(path)} | all 15 runs ({len(requests):,} requests each) | - | - | {total:.1f} | - |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="append", default=None, metavar="PATH")
    parser.add_argument("--skip-rows", action="store_true", help="only the full-size simulations")
    args = parser.parse_args(argv)
    paths = list(check_traces(args.trace) if args.trace else shared_traces())
    if not paths:
        print("no trace: nothing to measure", file=sys.stderr)
        return 2
    LearnedPredictor(kind="point").predict(Instance(100, [Request("w", 0, 1, 1)]))  # torch imported before timing
    print(f"load average at start: {os.getloadavg()}")
    if not args.skip_rows:
        print("| traces | rows | CPU s | words |\n|---|---|---|---|")
        print("\n".join(rows_cpu(paths)))
    print("\n| trace | run | M (alpha) | mean latency (s) | CPU s | restarts |\n|---|---|---|---|---|---|")
    for path in paths:
        print("\n".join(full_size(path)), flush=True)
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
