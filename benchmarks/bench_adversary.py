"""Benchmark: candidate evaluations per second, fast evaluator vs the reference simulator.

Usage: ``.venv/bin/python benchmarks/bench_adversary.py [--repeats 5] [--count 300]``

For random burst and online instances of n = 10 and 30 (M = 40, peaks <= M/2, the hunts'
regime) it times, in the same process: the reference simulator
(:func:`geosched.reference_impl.simulator.simulate`, building the Instance included), the
compiled per-instance evaluator (:func:`geosched.adversary.fast.simulate_arrays`), the
population call (:func:`geosched.adversary.fast.batch_policy_tel`) and the search's full
fitness (policy + heuristic pool). Median of ``--repeats`` runs; prints a markdown table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from geosched.adversary.fast import batch_policy_tel, ids_for, simulate_arrays
from geosched.adversary.search import Candidate, SearchSpace, fitness
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulator import simulate


def population(n: int, count: int, online: bool, seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        o = rng.integers(1, 21, size=n)
        s = rng.integers(0, 21 - o)
        a = rng.integers(0, 40, size=n) if online else np.zeros(n, np.int64)
        out.append((a.astype(np.int64), s.astype(np.int64), o.astype(np.int64), 40))
    return out


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()
    # warm the JIT outside the timings
    warm = population(5, 3, False, 0)
    batch_policy_tel("svf", warm)
    simulate_arrays("svf", *warm[0])
    print(f"machine: {platform.machine()} {platform.processor() or ''} python {platform.python_version()}, "
          f"median of {args.repeats} runs, {args.count} instances each")
    print()
    print("| instances | reference simulate (eval/s) | fast per-instance (eval/s) | fast population (eval/s) "
          "| speed-up (population / reference) | search fitness (eval/s) |")
    print("|---|---|---|---|---|---|")
    for online in (False, True):
        for n in (10, 30):
            pop = population(n, args.count, online, seed=n)
            ids = ids_for(n)
            insts = [Instance(m, [Request(i, int(ai), int(si), int(oi)) for i, ai, si, oi in zip(ids, a, s, o)])
                     for a, s, o, m in pop]

            def reference(pop=pop, ids=ids):
                for a, s, o, m in pop:
                    inst = Instance(m, [Request(i, int(ai), int(si), int(oi)) for i, ai, si, oi in zip(ids, a, s, o)])
                    simulate(inst, "svf")

            def fast_each(pop=pop):
                for a, s, o, m in pop:
                    simulate_arrays("svf", a, s, o, m)

            def fast_pop(pop=pop):
                batch_policy_tel("svf", pop)

            space = SearchSpace("svf", max_requests=n, memory=40, alpha_max=0.5,
                                arrivals="online" if online else "burst", max_arrival=39)
            cands = [Candidate(a, s, o) for a, s, o, _ in pop]

            def fit(cands=cands, space=space):
                for c in cands:
                    fitness(space, c)

            # sanity: the fast TELs equal the reference's on this population
            tels = batch_policy_tel("svf", pop)
            for inst, tel in zip(insts[:50], tels[:50]):
                starts = simulate(inst, "svf").starts
                assert sum(starts[r.id] + r.output - r.arrival for r in inst.requests) == tel
            t_ref, t_each, t_pop, t_fit = (timed(f, args.repeats) for f in (reference, fast_each, fast_pop, fit))
            c = args.count
            label = f"{'online' if online else 'burst'} n={n}"
            print(f"| {label} | {c / t_ref:,.0f} | {c / t_each:,.0f} | {c / t_pop:,.0f} "
                  f"| {t_ref / t_pop:,.1f}x | {c / t_fit:,.0f} |")


if __name__ == "__main__":
    main()
