"""SageSched's claims, thorough: the table routers x local policies x loads behind the ledger rows.

Runs :func:`geosched.verify.sagesched_claims.run_sagesched_claims` with ``thorough=True`` (the
whole Azure conversation trace split 30/70 in time, Llama-3.1-8B on 8 x A100-80G and on
4 x A100-80G + 4 x H100-80G, offered loads 0.6 / 0.8 / 1.0, every router with every local
policy, SageSched's ablations; the mixed short/long workload for the preemption row), with
checkpoints in ``--out`` (rerun the same command to resume), and writes ``--out/tables.md``
(markdown) and ``--out/claims.json``.

    python benchmarks/bench_sagesched_grid.py --out /tmp/sagesched_grid
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.cluster.empirical import serving_split  # noqa: E402
from geosched.reference_impl.workloads import default_trace_path, read_trace  # noqa: E402
from geosched.verify.sagesched_claims import (  # noqa: E402
    CLUSTERS,
    ablation_claim,
    format_pivot,
    format_table,
    gain_claim,
    run_grid,
    run_sagesched_claims,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for checkpoints and results")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lengths", choices=("empirical", "learned"), default="empirical",
                        help="learned: the trace rows only, served part = the last 30%% (the shipped distribution "
                             "model was trained on the first 70%%), gain and ablation rows")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if args.lengths == "learned":
        return learned(out, args.seed, started)
    outcomes = run_sagesched_claims(thorough=True, seed=args.seed, checkpoint_dir=out)
    elapsed = time.perf_counter() - started
    lines = [f"machine: {machine_summary()}", f"wall time {elapsed:.0f} s (including runs resumed from checkpoints)",
             ""]
    for claim, outcome in outcomes.items():
        lines.append(f"- **{claim}**: {outcome.status}. {outcome.message}")
    for name, key in (("trace", "sagesched.gain"), ("mixed short/long", "sagesched.preemption")):
        rows = outcomes[key].data.get("rows")
        if rows:
            for cluster in dict.fromkeys(r["cluster"] for r in rows):
                lines += ["", f"### {name}, {cluster} ({rows[0]['n']} requests served); cells: mean / P95 latency "
                              f"(s) / goodput (req/s) / preemptions", "", format_pivot(rows, cluster)]
            lines += ["", f"### {name}: every row", "", format_table(rows)]
    (out / "tables.md").write_text("\n".join(lines) + "\n")
    (out / "claims.json").write_text(json.dumps({k: {"status": v.status, "message": v.message, "data": v.data}
                                                 for k, v in outcomes.items()}, indent=1, default=str) + "\n")
    print("\n".join(lines[:8]))
    return 0


def learned(out: Path, seed: int, started: float) -> int:
    """The trace rows with the learned distribution model (issue 13) instead of the histogram."""
    instance, _ = read_trace(default_trace_path(), arrivals="online", step_seconds=0.025)
    split = serving_split(instance, train_fraction=0.7, lengths="learned", step_seconds=0.025)
    rows = run_grid(split, CLUSTERS, (0.6, 0.8, 1.0), full_grid=True, seed=seed, checkpoint=out / "learned.json")
    lines = [f"machine: {machine_summary()}", f"wall time {time.perf_counter() - started:.0f} s", ""]
    for name, outcome in (("sagesched.gain", gain_claim(rows)), ("sagesched.ablation", ablation_claim(rows))):
        lines.append(f"- **{name}** (learned distributions): {outcome.status}. {outcome.message}")
    for cluster in CLUSTERS:
        lines += ["", f"### trace, learned distributions, {cluster} ({rows[0]['n']} requests served); cells: mean / "
                      "P95 latency (s) / goodput (req/s) / preemptions", "", format_pivot(rows, cluster)]
    (out / "tables_learned.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
