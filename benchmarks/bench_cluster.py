"""The 8-replica cluster on the whole Azure conversation trace: how long one simulation takes.

Cluster 4 x A100-80G + 4 x H100-80G (Llama-3.1-8B step-time model), all 19,366 requests with
online arrivals (0.025 s per step) sped up ``--speedup`` times. Configurations:

* ``sagesched+svf``: the SageSched router, SVF locally, beliefs at the 0.9 quantile of the
  empirical length distribution (fitted on the first 30% of the trace: a speed benchmark, the
  served part overlaps it); beliefs are wrong, so the engine's prediction path runs
  (belief expiries, evictions);
* ``jsq+svf (oracle)``: join-shortest-queue with exact lengths (the engine's exact path).

Baseline in the same process: :func:`geosched.reference_impl.simulation.simulate` of the same
trace on one replica (unit steps, SVF, exact lengths). Medians of ``--repeats`` runs, wall and
CPU seconds; the load average is printed, since the machine is shared.

    python benchmarks/bench_cluster.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.cluster import simulate_cluster  # noqa: E402
from geosched.reference_impl.cluster.empirical import serving_split  # noqa: E402
from geosched.reference_impl.cluster.steptime import replica_models  # noqa: E402
from geosched.reference_impl.simulation import simulate  # noqa: E402
from geosched.reference_impl.workloads import default_trace_path, read_trace  # noqa: E402


def timed(fn, repeats: int) -> tuple[float, float, object]:
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--speedup", type=float, default=10.0)
    args = parser.parse_args()
    path = default_trace_path()
    if path is None:
        print("the shared trace is absent: nothing to measure")
        return 0
    instance, _ = read_trace(path, arrivals="online", step_seconds=0.025)
    split = serving_split(instance, train_fraction=0.3)
    models = replica_models("4xA100-80G,4xH100-80G")
    print(f"machine: {machine_summary()}; load average at start {os.getloadavg()}")
    print(f"{instance.n} requests, 8 replicas (4 x A100-80G + 4 x H100-80G), arrivals x{args.speedup:g}")
    base_wall, base_cpu, _ = timed(lambda: simulate(instance, "svf"), args.repeats)
    print(f"baseline simulate() one replica, unit steps: median wall {base_wall:.2f} s, CPU {base_cpu:.2f} s")
    configs = {
        "sagesched+svf": dict(router="sagesched", local="svf", distribution=split.distribution),
        "jsq+svf (oracle)": dict(router="jsq", local="svf"),
    }
    print("| configuration | median wall (s) | median CPU (s) | CPU / baseline CPU | mean latency (s) | "
          "preemptions | decisions |")
    print("|---|---|---|---|---|---|---|")
    for name, options in configs.items():
        wall, cpu, result = timed(lambda o=options: simulate_cluster(instance.requests, models, step_seconds=0.025,
                                                                     speedup=args.speedup, **o), args.repeats)
        decisions = sum(rep.decisions for rep in result.replicas)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {cpu / base_cpu:.1f}x | {result.metrics['mean_latency']:.2f} | "
              f"{result.metrics['preemptions']} | {decisions} |")
    print(f"load average at end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
