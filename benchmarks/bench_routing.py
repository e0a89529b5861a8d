"""Routing time per request against the number of replicas N (SageSched's O(N) placement).

For N = 2, 4, ..., 1,024 replicas with random states (A100 or H100 step-time coefficients, KV in
use, running and waiting counts, reserves), the mean time of one routing decision over
``--requests`` requests, median of ``--repeats``; for ``sagesched`` (one score per replica) and,
as references, ``jsq`` (one pass) and ``p2c`` (O(1)). The growth is the least-squares exponent
of log(time) against log(N) on N >= 32, and a linear fit ``a + b N``.

    python benchmarks/bench_routing.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.cluster import make_router  # noqa: E402
from geosched.verify.sagesched_claims import fitted_exponent, random_cluster_state  # noqa: E402

SIZES = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


def per_request(router_name: str, n: int, requests: int, repeats: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    state = random_cluster_state(n, rng)
    prompts = rng.integers(1, 4000, requests)
    means = rng.uniform(10, 800, requests)
    samples = []
    for _ in range(repeats):
        router = make_router(router_name, seed=seed)
        t0 = time.perf_counter()
        for s, mu in zip(prompts, means):
            router.choose(state, prompt=int(s), mean=float(mu), volume=float(s * mu + mu * mu), reserve=int(2 * mu))
        samples.append((time.perf_counter() - t0) / requests)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"machine: {machine_summary()}; load average at start {os.getloadavg()}")
    results = {name: {n: per_request(name, n, args.requests, args.repeats, args.seed) for n in SIZES}
               for name in ("sagesched", "jsq", "p2c")}
    print("| N | " + " | ".join(f"{name} (us/request)" for name in results) + " |")
    print("|---|" + "---|" * len(results))
    for n in SIZES:
        print(f"| {n} | " + " | ".join(f"{results[name][n] * 1e6:.1f}" for name in results) + " |")
    for name, times in results.items():
        sizes = np.array(SIZES, dtype=np.float64)
        slope, intercept = np.polyfit(sizes, [times[n] for n in SIZES], 1)
        print(f"{name}: time ~ N^{fitted_exponent(times):.2f} (N >= 32); linear fit {intercept * 1e6:.1f} us + "
              f"{slope * 1e9:.0f} ns x N")
    print(f"load average at end {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
