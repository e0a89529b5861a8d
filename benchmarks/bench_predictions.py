"""Learned length predictors on every trace, and across traces: the accuracy tables and the scheduling tables.

1. **Accuracy per trace and across traces** (:func:`~geosched.reference_impl.predictors.training.accuracy_across`):
   for each trace ``T`` (test part: its last 30% by time), the two baselines (global median, per-prompt-bucket
   empirical distribution) and the three learned models trained on each trace ``S`` (its shipped models: the
   ones whose recorded training-data hash is ``S``'s first 70%), scored on ``T``; ``S == T`` is the per-trace
   table, ``S != T`` the transfer (trained on one trace, tested on the other).
2. **Scheduling** per trace (:func:`geosched.verify.empirical.scheduling_table`): the test part replayed online at
   0.025 s per step, loads ``u`` = offered KV demand / M in {0.8, 1.0, 1.2} (set by the memory ``M``), FCFS, SJF,
   SVF and 1-bit SVF under oracle, learned (the trace's own models) and noisy predictions, plus SVF on the
   learned distributions' expected volumes; mean and P95 latency (s), TEL (steps) and evictions, every schedule
   re-checked by the checker.

No training happens here: a trace without shipped models gets its models trained in the run
(:func:`geosched.verify.trace_set.trace_models`, recorded as such).

Usage: ``python benchmarks/bench_predictions.py [--trace PATH ...] [--limit N] [--seed S] [--record FILE]``
(default: every trace in ../shared/traces/; ``--record docs/predictions_run.json`` writes the record
docs/predictions.md's tables are generated from, by ``python docs/tables.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from geosched.reference_impl.predictors import load_model
from geosched.reference_impl.predictors.tracelog import read_trace_log
from geosched.reference_impl.predictors.training import accuracy_across
from geosched.reference_impl.workloads import shared_traces, trace_label
from geosched.verify import empirical
from geosched.verify.trace_set import check_traces, trace_models

SCHEDULING_KEYS = ("n", "source", "step_seconds", "noisy_sigma", "one_bit", "seed", "mean_volume_rate", "cells",
                   "models")


def run(paths: list[Path], *, limit: int | None, seed: int) -> dict:
    """The figures of every trace: accuracy across the traces, and each trace's scheduling table."""
    logs = {trace_label(p): read_trace_log(p) for p in paths}
    chosen = {trace_label(p): trace_models(p, logs[trace_label(p)], seed=seed) for p in paths}
    models = {label: {kind: load_model(file) for kind, file in m.paths.items()} for label, m in chosen.items()}
    across = accuracy_across(logs, models)
    out = {"traces": []}
    for path in paths:
        label = trace_label(path)
        table = empirical.scheduling_table(path, limit=limit, seed=seed)
        acc, sched = across[label].to_dict(), table.to_dict()
        out["traces"].append({"trace": label, "file": path.name, "models": chosen[label].origin,
                              "accuracy": {key: acc[key] for key in ("theta", "test_rows", "train_rows", "rows")},
                              "scheduling": {key: sched[key] for key in SCHEDULING_KEYS}})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", action="append", default=None, metavar="PATH",
                        help="a trace (repeatable; default: every trace in ../shared/traces/)")
    parser.add_argument("--limit", type=int, default=None, help="first N requests of each test part (default all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", default=None, metavar="FILE.json",
                        help="write the run's record (what docs/predictions.md's tables are generated from: "
                             "python docs/tables.py)")
    args = parser.parse_args(argv)
    paths = list(check_traces(args.trace) if args.trace else shared_traces())
    if not paths:
        print("no trace: ../shared/traces holds none and no --trace was given; nothing to measure", file=sys.stderr)
        return 2
    started, cpu = time.perf_counter(), time.process_time()
    figures = run(paths, limit=args.limit, seed=args.seed)
    import geosched

    command = ("python benchmarks/bench_predictions.py" + "".join(f" --trace {p}" for p in args.trace or ())
               + (f" --limit {args.limit}" if args.limit else "") + f" --seed {args.seed} --record {args.record}")
    record = {"command": command, "seed": args.seed,
              "mode": f"the first {args.limit} requests of each test part" if args.limit else "the whole test parts",
              "source": "a run of the command on " + ", ".join(p.name for p in paths),
              "versions": {"geosched": geosched.__version__, "python": platform.python_version()},
              "machine": f"{platform.machine()}, {os.cpu_count()} cores", **figures}
    print(f"{len(paths)} traces in {time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU "
          f"(load average {os.getloadavg()[0]:.1f})")
    for entry in figures["traces"]:
        print(f"{entry['trace']}: models {entry['models']}; {entry['scheduling']['source']}")
    if args.record:
        from geosched.output import write_text_atomic

        write_text_atomic(Path(args.record), json.dumps(record, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
