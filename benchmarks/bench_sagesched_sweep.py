"""SageSched examined (issue 35): every element against its simple baseline, in the configurations where it
should matter, with intervals over seeds.

Runs :func:`geosched.verify.sagesched_sweep.run_sweep` (memory-bound and compute-bound replicas, homogeneous
and mixed GPUs, oracle / empirical / poor length distributions, loads 0.5 to 1.3; seeded windows of 600
served requests of a trace (``--trace``, default the Azure conversation trace; once per trace for the docs);
the 20 heuristic pairs, SageSched and one swap per element;
``--design star``: the base configuration and each factor varied alone, 3 seeds),
checkpointed in ``--out`` (rerun the same command to resume), and writes ``--out/sweep.json`` (the record the
docs tables are generated from: ``python docs/tables.py --sagesched-sweep OUT/sweep.json``) and
``--out/tables.md``.

    nice python benchmarks/bench_sagesched_sweep.py --out /tmp/sagesched_sweep --design star
    nice python benchmarks/bench_sagesched_sweep.py --out /tmp/sweep_mooncake --design star \
        --trace ../shared/traces/mooncake_conversation.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_summary  # noqa: E402

from geosched.output import write_json_atomic, write_text_atomic  # noqa: E402
from geosched.verify.sagesched_sweep import (  # noqa: E402
    DEFAULT_SWEEP,
    STAR_SWEEP,
    format_element_table,
    format_sweep_table,
    run_sweep,
    summarize_sweep,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for the checkpoint and the results")
    parser.add_argument("--seed", type=int, default=0, help="first seed (the windows are seed, seed + 1, ...)")
    parser.add_argument("--trace", default=None, help="the trace (any format geosched reads; default: the shared "
                                                      "Azure trace); run once per trace, --out apart")
    parser.add_argument("--design", choices=("full", "star"), default="full",
                        help="full: every combination (48 configurations, 5 seeds); star: the base configuration and "
                             "each factor varied alone (7 configurations, 3 seeds; the run docs/sagesched.md shows)")
    args = parser.parse_args()
    setup = STAR_SWEEP if args.design == "star" else DEFAULT_SWEEP
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started, load = time.perf_counter(), os.getloadavg()
    record = run_sweep(setup, seed=args.seed, trace=args.trace, checkpoint=out / "checkpoint.json",
                       progress=lambda line: print(line, flush=True))
    record["machine"] = f"{machine_summary()}; load average at start {load[0]:.1f}, at end {os.getloadavg()[0]:.1f}"
    record["command"] = (f"python benchmarks/bench_sagesched_sweep.py --out {args.out} --seed {args.seed} "
                         f"--design {args.design}" + (f" --trace {args.trace}" if args.trace else ""))
    record["cpu_seconds"] = round(time.process_time())
    record["wall_seconds"] = round(time.perf_counter() - started)  # with runs resumed from the checkpoint: less
    write_json_atomic(out / "sweep.json", record)
    summary = summarize_sweep(record)
    write_text_atomic(out / "tables.md", "\n\n".join([record["machine"], format_sweep_table(summary),
                                                format_element_table(summary)]) + "\n")
    print(format_sweep_table(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
