"""Learned length predictors on the Azure trace: the accuracy table and the scheduling table.

1. **Accuracy** (test part: the last 30% of the trace by time): the two baselines (global
   median, per-prompt-bucket empirical distribution) and the three shipped models, every metric
   of :mod:`geosched.reference_impl.predictors.metrics`. Same as ``geosched predictor eval``.
2. **Scheduling** (:func:`geosched.verify.empirical.scheduling_table`): the test part replayed
   online at 0.025 s per step, loads ``u`` = offered KV demand / M in {0.8, 1.0, 1.2} (set by the
   memory ``M``), FCFS, SJF, SVF and 1-bit SVF under oracle, learned and noisy predictions, plus
   SVF on the learned distributions' expected volumes; mean and P95 latency (s), TEL (steps) and
   evictions, every schedule re-checked by the checker.
3. The three empirical claims evaluated on that table, and the Thm. 3.5 flip-penalty link.

No training happens here: the shipped models are used.

Usage: ``python benchmarks/bench_predictions.py [--limit N] [--out FILE]`` (merge the written
section into benchmarks/RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from geosched.reference_impl.predictors import load_default_model
from geosched.reference_impl.predictors.tracelog import read_trace_log
from geosched.reference_impl.predictors.training import accuracy_table
from geosched.reference_impl.workloads import default_trace_path
from geosched.verify import empirical


def markdown_accuracy(table) -> list[str]:
    def cell(value, digits=3):
        return "-" if value is None else f"{value:.{digits}f}"

    lines = ["| predictor | median AE | mean AE | Spearman | 1-bit acc. | flip S->L | flip L->S | NLL/length (nats) "
             "| CRPS | cov. 50% | cov. 90% |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.rows:
        lines.append(f"| {r.name} | {r.median_ae:.1f} | {r.mean_ae:.1f} | {cell(r.spearman)} | {r.accuracy:.3f} | "
                     f"{r.flip_short:.3f} | {r.flip_long:.3f} | {cell(r.nll)} | {r.crps:.1f} | {cell(r.coverage50)} | "
                     f"{cell(r.coverage90)} |")
    return lines


def write_record(args: argparse.Namespace, accuracy, table) -> None:
    """The record docs/predictions.md's tables come from: the command, seed, versions, machine and the raw
    figures (every accuracy row, every scheduling cell), written atomically."""
    import geosched
    from geosched.output import write_text_atomic

    command = "python benchmarks/bench_predictions.py" + (f" --limit {args.limit}" if args.limit else "") + \
        f" --seed {args.seed} --record {args.record}"
    acc, sched = accuracy.to_dict(), table.to_dict()
    record = {
        "command": command, "seed": args.seed,
        "mode": f"the first {args.limit} requests of the test part" if args.limit else "the whole test part",
        "source": "a run of the command on ../shared/traces/azure_llm_2023_conv.csv",
        "versions": {"geosched": geosched.__version__, "python": platform.python_version()},
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "accuracy": {key: acc[key] for key in ("theta", "test_rows", "train_rows", "rows")},
        "scheduling": {key: sched[key] for key in ("n", "source", "step_seconds", "noisy_sigma", "one_bit", "seed",
                                                   "mean_volume_rate", "cells")},
    }
    write_text_atomic(Path(args.record), json.dumps(record, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N requests of the test part (default all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the markdown section here")
    parser.add_argument("--record", default=None, metavar="FILE.json",
                        help="write the run's record (what docs/predictions.md's tables are generated from: "
                             "python docs/tables.py)")
    args = parser.parse_args(argv)
    path = default_trace_path()
    if path is None:
        print("the Azure trace is not in ../shared/traces; nothing to measure", file=sys.stderr)
        return 2
    started = time.perf_counter()
    log = read_trace_log(path)
    models = {f"learned {kind}": load_default_model(kind) for kind in ("point", "onebit", "dist")}
    accuracy = accuracy_table(log, models)
    table = empirical.scheduling_table(path, limit=args.limit, seed=args.seed)
    claims = [empirical.svf_lowest_latency(table), empirical.one_bit_versus_sjf(table),
              empirical.predictor_overhead(table), empirical.svf_lowest_latency(table, "oracle"),
              empirical.one_bit_versus_sjf(table, "oracle")]
    link = empirical.theory_link(table)  # the same numbers as the ledger evidence
    elapsed = time.perf_counter() - started
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines = [
        "## Learned length predictors and scheduling under them",
        "",
        f"Command: `python benchmarks/bench_predictions.py{f' --limit {args.limit}' if args.limit else ''}` "
        f"({elapsed:.0f} s). Machine: {platform.machine()}, {os.cpu_count()} cores, shared with other jobs "
        f"(`uptime`: {load.split('load average:')[-1].strip()}). Models: the shipped ones "
        "(`reference_impl/predictors/models/`, trained by `geosched predictor train --trace "
        "../shared/traces/azure_llm_2023_conv.csv --kind K --out reference_impl/predictors/models/K.json --seed 0`).",
        "",
        f"### Accuracy, test part ({accuracy.test_rows} requests; trained on the first {accuracy.train_rows}); "
        f"theta = {accuracy.theta}",
        "",
        *markdown_accuracy(accuracy),
        "",
        f"### Scheduling, {table.source}",
        "",
        f"Loads: u = V / (T M) with V the total volume and T the span of arrival steps "
        f"(V/T = {table.mean_volume_rate:.0f} tokens); 1-bit SVF uses theta = {table.one_bit['theta']}, "
        f"O_0 = {table.one_bit['short_length']}, O_1 = {table.one_bit['long_length']}; noisy: log-normal "
        f"sigma = {table.noisy_sigma:.3f} (the learned point model's log-error on the training part), "
        f"seed {table.seed}. "
        "Latencies in seconds at 0.025 s per step.",
        "",
        empirical.format_scheduling_table(table),
        "",
        "### The papers' empirical claims on this table",
        "",
        "| claim | predictor | status | what came out |",
        "|---|---|---|---|",
    ]
    for claim, predictor in zip(claims, ("learned", "learned", "learned", "oracle", "oracle")):
        lines.append(f"| {claim.claim} | {predictor} | {claim.status} | {claim.message} |")
    lines += [
        "",
        "Thm. 3.5 link (our extension of eps by the flip rates, geometric fit mu = 1/mean output): "
        f"flip rates S->L {link['flip_short']:.3f}, L->S {link['flip_long']:.3f}; predicted penalty eps = "
        f"{link['penalty']['eps']:.0f}, flip term {link['penalty']['flip_term']:.0f}, relative to E[o^2]/2: "
        f"{link['penalty']['relative']:.3f}; measured TEL(1-bit SVF, learned bits) / TEL(exact bits): "
        + ", ".join(f"u={k}: {v}" for k, v in link["measured_tel_ratio_learned_over_exact_bits"].items()),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.record:
        write_record(args, accuracy, table)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
        with open(args.out + ".json", "w") as handle:
            json.dump({"accuracy": accuracy.to_dict(), "scheduling": table.to_dict(),
                       "claims": [c.to_dict() for c in claims], "theory_link": link}, handle, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
