"""Benchmark: candidate evaluations per second, fast evaluator vs the reference simulator.

Usage: ``.venv/bin/python benchmarks/bench_adversary.py [--repeats 5] [--count 300]``
and ``... --large`` (the structured search's regime: :func:`geosched.adversary.fast.simulate_arrays`
on hundreds or thousands of requests, and the search's fitness per structured description). Until
issue 31 the evaluator had two step kernels (batch, usage-profile) and ``--large`` compared them; the
compiled kernel that replaced them is compared with both, and with ``fastsim``, by
``benchmarks/bench_kernel.py``.

For random burst and online instances of n = 10 and 30 (M = 40, peaks <= M/2, the hunts'
regime) it times, in the same process: the reference simulator
(:func:`geosched.reference_impl.simulation.simulate`, building the Instance included), the
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
from geosched.reference_impl.simulation import simulate


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
    parser.add_argument("--large", action="store_true", help="the kernels on large instances instead")
    args = parser.parse_args()
    if args.large:
        large(args.repeats)
        return
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


def large_instances() -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray, int]]:
    """sjf-blocking members (k = 10, 20, 30) and random bursts (peaks <= M/2) of 300 and 1000."""
    out = []
    for k in (10, 20, 30):
        big = k * k
        s = np.array([big - 1] * (2 * k) + [0] * big, np.int64)
        o = np.array([1] * (2 * k) + [2] * big, np.int64)
        out.append((f"sjf-blocking k={k} (n={len(s)})", np.zeros(len(s), np.int64), s, o, 2 * big))
    rng = np.random.default_rng(5)
    for n, memory in ((300, 400), (1000, 2000)):
        o = rng.integers(1, memory // 2 + 1, size=n)
        s = rng.integers(0, memory // 2 - o + 1)
        out.append((f"random burst n={n}, M={memory}", np.zeros(n, np.int64), s.astype(np.int64), o, memory))
    return out


def large(repeats: int) -> None:
    """Median seconds per SJF evaluation, strict and backfilling (the kernel's starts asserted equal to
    the reference simulator's), and the structured search's fitness (policy + certified pool) per
    description."""
    import sys
    from pathlib import Path

    from geosched.adversary.structured import Description, Group, score_description

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _machine import machine_summary

    simulate_arrays("sjf", *large_instances()[0][1:4], large_instances()[0][4])  # JIT
    print(f"machine: {machine_summary()}; median of {repeats} runs")
    print()
    print("| instance | head-of-line (ms) | backfill (ms) | structured fitness (ms) |")
    print("|---|---|---|---|")
    for label, a, s, o, memory in large_instances():
        def run(backfill, a=a, s=s, o=o, memory=memory):
            return simulate_arrays("sjf", a, s, o, memory, backfill=backfill)

        instance = Instance(memory, [Request(i, int(x), int(y), int(z))
                                     for i, x, y, z in zip(ids_for(len(s)), a, s, o)])
        for backfill in (False, True):
            assert run(backfill).tolist() == list(simulate(instance, "sjf", backfill=backfill).starts.values())
        t_strict, t_backfill = timed(lambda: run(False), repeats), timed(lambda: run(True), repeats)
        groups = tuple(Group(int((s == v).sum()), int(v), int(w)) for v, w in sorted({(int(x), int(y))
                                                                                        for x, y in zip(s, o)}))
        space = SearchSpace("sjf", max_requests=len(s), memory=memory, alpha_max=0.5)
        fit = ("-" if len(groups) > 4 else
               f"{timed(lambda g=groups, sp=space: score_description(sp, Description(g)), repeats) * 1e3:,.1f}")
        print(f"| {label} | {t_strict * 1e3:,.2f} | {t_backfill * 1e3:,.2f} | {fit} |")


if __name__ == "__main__":
    main()
