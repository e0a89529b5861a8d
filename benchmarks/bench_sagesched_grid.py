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

from geosched.verify.sagesched_claims import format_pivot, format_table, run_sagesched_claims  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder for checkpoints and results")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
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


if __name__ == "__main__":
    sys.exit(main())
