"""Where SageSched's loss on the ledger's mixed workload comes from (issue 35): the predictor or the placement.

The default ledger's ``sagesched.gain`` configuration that loses (``geosched.verify.sagesched_claims``: the
mixed short/long workload of 1,500 requests, seed 0, 30% for training, 2 x A100 + 2 x H100 replicas with a
50,000-token KV budget, rho = 0.8) is run again with the ledger's histogram and with the oracle distribution
(point masses at the true lengths): the best of the 20 heuristic pairs against SageSched; then, on the oracle
distribution, SageSched's placement and local order swapped one at a time for JSQ and SVF. Prints one line per
run (mean TTLT in seconds, preemptions).

    nice python benchmarks/bench_sagesched_mixed.py
"""

from __future__ import annotations

import sys

from geosched.reference_impl.cluster import simulate_cluster
from geosched.reference_impl.cluster.empirical import oracle_distribution, serving_split
from geosched.reference_impl.cluster.steptime import replica_models
from geosched.verify.sagesched_claims import (
    HEURISTIC_LOCALS,
    HEURISTIC_ROUTERS,
    mixed_workload,
    offered_speedup,
)


def main() -> int:
    split = serving_split(mixed_workload(1500, seed=0), train_fraction=0.3)
    models = replica_models("2xA100-80G,2xH100-80G", memory=50_000)
    speedup = offered_speedup(split.serve, models, step_seconds=0.001, rho=0.8)
    svf1 = [r.output for r in split.train]

    def run(router: str, local: str, distribution, ablation: str | None = None) -> tuple[float, int]:
        m = simulate_cluster(split.serve, models, router=router, local=local, distribution=distribution,
                             step_seconds=0.001, speedup=speedup, svf1_lengths=svf1, seed=0, ablation=ablation).metrics
        return m["mean_latency"], m["preemptions"]

    for name, distribution in (("histogram", split.distribution), ("oracle", oracle_distribution)):
        heuristics = {(r, lo): run(r, lo, distribution) for r in HEURISTIC_ROUTERS for lo in HEURISTIC_LOCALS}
        best = min(heuristics, key=lambda k: heuristics[k][0])
        sage = run("sagesched", "sagesched", distribution)
        latency, preemptions = heuristics[best]
        print(f"{name}: best heuristic {'+'.join(best)} {latency:.3f} s ({preemptions} preemptions), "
              f"SageSched {sage[0]:.3f} s ({sage[1]}), gain {1 - sage[0] / heuristics[best][0]:+.1%}", flush=True)
    for router, local, ablation in (("sagesched", "svf", None), ("jsq", "sagesched", None),
                                    ("sagesched", "sagesched", "memory-only"),
                                    ("sagesched", "sagesched", "compute-only")):
        latency, preemptions = run(router, local, oracle_distribution, ablation)
        swapped = f"{router}+{local}{' ' + ablation if ablation else ''}"
        print(f"oracle: {swapped} {latency:.3f} s ({preemptions} preemptions)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
