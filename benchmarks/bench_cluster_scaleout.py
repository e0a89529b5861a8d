"""Scale-out of the exhaustive check (geosched.executor): serial against a Dask LocalCluster,
the exact size of the thorough spaces for n = 4, 5, 6, and a projection to 10-1,000 workers.

Measured here:

1. **Throughput**: the same exhaustive run (``--space``; the thorough run's variants ``svf``,
   ``svf1_sqrtT_equal``, ``sjf_jaillet``, exact OPT by ``dp``, cross-check every 50th instance,
   ``--chunk`` cells per job) serially and on ``local:2`` (medians of ``--repeats`` runs; the
   cluster's start is timed apart); instances per second, per worker, and the speed-up.
   A control without Dask runs the whole serial run in two plain processes at once: on a shared
   machine it shows what two cores give at that moment (``plain_pair_speedup_equivalent``).
2. **Overhead per task**: ``--tasks`` no-op jobs through the executor's ordered ``map`` (the
   path the checks use: a window of 8 jobs per worker, at least 32) and all at once
   (``client.map``), so the scheduler's own cost per task; plus the client's serial cost per chunk (merging a chunk's
   counts into the state and writing the checkpoint).
3. **Cost per instance at n = 4, 5, 6**: a deterministic sample of multisets of exactly n
   requests at the thorough bounds (every k-th in the module's order), all their budgets M.

Counted exactly (no enumeration needed; the module's own enumeration cross-checks it up to n = 6):
instances of ``Space(max_n=N, max_prompt=4, max_output=5, max_memory=16)``, the n <= 4 box of
``THOROUGH_SPACE`` grown to N = 5 and 6.

    python benchmarks/bench_cluster_scaleout.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import machine_summary  # noqa: E402

from geosched.executor import make_executor  # noqa: E402
from geosched.output import write_text_atomic  # noqa: E402
from geosched.verify import exhaustive as ex  # noqa: E402

VARIANTS = ("svf", "svf1_sqrtT_equal", "sjf_jaillet")  # what `geosched claims --thorough` runs exhaustively
BOUNDS = {"max_prompt": 4, "max_output": 5, "max_memory": 16}  # the n <= 4 box of THOROUGH_SPACE


def exact_size(max_n: int, max_prompt: int, max_output: int, max_memory: int, min_prompt: int = 0) -> int:
    """Instances of a burst space by formula: a multiset with largest peak ``p`` stands for the
    ``max_memory - p + 1`` budgets ``p <= M <= max_memory``, and the multisets of size k whose
    peaks are all <= p number ``C(T(p) + k - 1, k)``, with ``T(p)`` the (s, o) types of peak <= p."""
    def types(p: int) -> int:
        return sum(1 for s in range(min_prompt, max_prompt + 1) for o in range(1, max_output + 1) if s + o <= p)

    total = 0
    for k in range(1, max_n + 1):
        for p in range(1, min(max_prompt + max_output, max_memory) + 1):
            exactly_p = comb(types(p) + k - 1, k) - comb(types(p - 1) + k - 1, k)
            total += exactly_p * (max_memory - p + 1)
    return total


def per_instance_seconds(n: int, sample: int) -> tuple[float, int]:
    """Seconds per instance on ``sample`` multisets of exactly ``n`` requests (every k-th, all M)."""
    import itertools

    kinds = [(0, s, o) for s in range(BOUNDS["max_prompt"] + 1) for o in range(1, BOUNDS["max_output"] + 1)]
    total = comb(len(kinds) + n - 1, n)
    step = max(1, total // sample)
    chosen = [ms for k, ms in enumerate(itertools.combinations_with_replacement(kinds, n)) if k % step == 0][:sample]
    cells = [[[list(t) for t in ms], max(s + o for _, s, o in ms), BOUNDS["max_memory"]] for ms in chosen]
    t0 = time.perf_counter()
    part = ex._run_chunk((cells, VARIANTS, "dp", 50, False))  # noqa: SLF001 - the job function itself is timed
    return (time.perf_counter() - t0) / part["instances"], part["instances"]


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_now(executor) -> float:
    """CPU seconds used so far by this process, or by all the executor's worker processes."""
    if isinstance(executor, str):
        return _cpu_seconds()
    return sum(executor.client.run(_cpu_seconds).values())


def timed_run(space: ex.Space, chunk: int, executor) -> tuple[float, int, str, float]:
    """(wall seconds, instances, the result's JSON without timings, CPU seconds of the workers or this process)."""
    with tempfile.TemporaryDirectory() as tmp:
        cpu0, t0 = cpu_now(executor), time.perf_counter()
        result = ex.run_exhaustive(space, arrival_space=None, variants=VARIANTS, opt_method="dp", cross_check=50,
                                   chunk_size=chunk, executor=executor, checkpoint=Path(tmp) / "ck.json")
        seconds, cpu = time.perf_counter() - t0, cpu_now(executor) - cpu0
    data = result.to_dict()
    data.pop("wall_time")
    data.pop("checkpoint")  # a temporary path
    return seconds, result.instances, json.dumps(data, sort_keys=True, default=str), cpu


def client_cost_per_chunk(space: ex.Space, chunk: int) -> float:
    """Seconds the client spends per chunk: merging its counts and writing the checkpoint."""
    jobs = ex._jobs(space, None, list(VARIANTS), [], "dp", 50, chunk)  # noqa: SLF001
    parts = [ex._run_chunk(job) for job in jobs[:5]]  # noqa: SLF001
    state = ex._new_state(VARIANTS)  # noqa: SLF001
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        for part in parts:
            ex._merge(state, part)  # noqa: SLF001
            write_text_atomic(Path(tmp) / "ck.json", json.dumps({"state": state}))
        return (time.perf_counter() - t0) / len(parts)


def plain_pair(space: ex.Space, chunk: int) -> tuple[float, float]:
    """Control without Dask: the whole serial run in two plain processes at once (what two cores
    give right now). Returns (wall seconds of the pair, mean CPU seconds per run)."""
    import concurrent.futures

    with concurrent.futures.ProcessPoolExecutor(2) as pair:
        list(pair.map(abs, range(2)))  # both processes up
        t0 = time.perf_counter()
        runs = list(pair.map(timed_run, [space, space], [chunk, chunk], ["serial", "serial"]))
        return time.perf_counter() - t0, statistics.mean(r[3] for r in runs)


def task_overhead(pool, tasks: int) -> tuple[float, float]:
    """(seconds per no-op task through the ordered window, seconds per task submitted all at once)."""
    list(pool.map(abs, range(50)))  # warm
    t0 = time.perf_counter()
    list(pool.map(abs, range(tasks)))
    ordered = (time.perf_counter() - t0) / tasks
    t0 = time.perf_counter()
    futures = pool.client.map(abs, range(tasks), pure=False)
    pool.client.gather(futures)
    bulk = (time.perf_counter() - t0) / tasks
    return ordered, bulk


def projection(compute_s: float, cells: int, chunk: int, efficiency: float, per_task_s: float, start_s: float,
               workers: int) -> float:
    """Projected wall seconds on ``workers`` Dask workers (one core each) for ``compute_s`` serial seconds.

    ``N = ceil(cells / chunk)`` jobs; at most ``min(W, N)`` run at once, each at ``efficiency``
    of a serial process; the client merges and checkpoints every chunk and the scheduler
    handles every task, one after another (``per_task_s`` = the larger of the two measured
    costs), which bounds the run from below by ``N * per_task_s``; the last chunk adds up to
    one chunk's time; the cluster's start is added.
    """
    jobs = -(-cells // chunk)
    busy = compute_s / (min(workers, jobs) * efficiency)
    return start_s + max(busy, jobs * per_task_s) + compute_s / jobs / efficiency


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--space", default="3,3,4,10", help="max_n,max_prompt,max_output,max_memory")
    args = parser.parse_args()
    space = ex.Space(*map(int, args.space.split(",")))
    print(machine_summary(), flush=True)
    print(f"load before: {os.getloadavg()}", flush=True)
    serial = [timed_run(space, args.chunk, "serial") for _ in range(args.repeats)]
    t0 = time.perf_counter()
    pool = make_executor("local:2")
    startup = time.perf_counter() - t0
    with pool:
        dask = [timed_run(space, args.chunk, pool) for _ in range(args.repeats)]
        ordered, bulk = task_overhead(pool, args.tasks)
    pair_wall, pair_cpu = plain_pair(space, args.chunk)
    print(f"load after runs: {os.getloadavg()}", flush=True)
    assert all(run[2] == serial[0][2] for run in serial + dask), "a run differs from the serial result"
    instances = serial[0][1]
    t1, t2 = statistics.median(r[0] for r in serial), statistics.median(r[0] for r in dask)
    client = client_cost_per_chunk(space, args.chunk)
    chunks = -(-len(ex.cells(space)) // args.chunk)
    report = {
        "space": space.label, "instances": instances, "chunks": chunks, "chunk_cells": args.chunk,
        "serial_s": [round(r[0], 2) for r in serial], "local2_s": [round(r[0], 2) for r in dask],
        "median_serial_s": round(t1, 2), "median_local2_s": round(t2, 2), "speedup": round(t1 / t2, 3),
        "serial_cpu_s": [round(r[3], 2) for r in serial], "local2_worker_cpu_s": [round(r[3], 2) for r in dask],
        "cpu_efficiency": round(statistics.median(r[3] for r in serial) / statistics.median(r[3] for r in dask), 3),
        "instances_per_s_serial": round(instances / t1, 1), "instances_per_s_per_worker_local2": round(
            instances / t2 / 2, 1), "cluster_start_s": round(startup, 2), "task_overhead_ordered_ms": round(
            1e3 * ordered, 3), "task_overhead_bulk_ms": round(1e3 * bulk, 3), "client_per_chunk_ms": round(
            1e3 * client, 3), "identical_json": True,
        "plain_pair_wall_s_for_2_runs": round(pair_wall, 2), "plain_pair_cpu_s_per_run": round(pair_cpu, 2),
        "plain_pair_speedup_equivalent": round(2 * t1 / pair_wall, 3),
    }
    print(json.dumps(report, indent=1), flush=True)
    per_size = {}
    for k in range(1, 7):  # exactly k requests: instances and measured cost per instance
        seconds, sampled = per_instance_seconds(k, args.sample)
        per_size[k] = {"instances": exact_size(k, **BOUNDS) - exact_size(k - 1, **BOUNDS),
                       "ms_per_instance": round(1e3 * seconds, 4), "sampled_instances": sampled}
        print(k, json.dumps(per_size[k]), flush=True)
    sizes = {}
    for n in (4, 5, 6):
        box = ex.Space(max_n=n, **BOUNDS)
        cells = ex.cells(box)
        sizes[n] = {"space": box.label, "instances": exact_size(n, **BOUNDS),
                    "enumerated": sum(high - low + 1 for _, low, high in cells), "cells": len(cells),
                    "serial_compute_s": round(sum(per_size[k]["instances"] * per_size[k]["ms_per_instance"] / 1e3
                                                  for k in range(1, n + 1)), 1)}
        print(n, json.dumps(sizes[n]), flush=True)
    report["per_size"] = per_size
    per_task = max(report["task_overhead_bulk_ms"], report["client_per_chunk_ms"]) / 1e3
    for n in (4, 5, 6):
        sizes[n]["projected_s"] = {w: round(projection(sizes[n]["serial_compute_s"], sizes[n]["cells"], 200,
                                                       report["cpu_efficiency"], per_task, report["cluster_start_s"],
                                                       w), 1) for w in (10, 100, 1000)}
        print(n, "projected (chunk 200):", sizes[n]["projected_s"], flush=True)
    print(f"load at the end: {os.getloadavg()}")
    print(json.dumps({"throughput": report, "sizes": sizes}))


if __name__ == "__main__":
    main()
