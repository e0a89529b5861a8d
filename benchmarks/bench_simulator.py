"""Benchmark (1) of the foundation issue: simulate the whole Azure conversation trace; and
issue 11's large bursts that fit at once.

Trace: strict SVF on the 19,366-request trace of ../shared/traces, as a burst and with its
arrivals (0.025 s per step), M = 2 x the largest peak; reports the median wall time of
``--repeats`` runs and requests per second. The baseline, run in the same process, is the
same admission rule visiting every step (cost grows with the number of steps), checked to
produce the same schedule.

Large bursts (issue 11, item 8): ``n`` small requests (``s ~ U[1, 5]``, ``o ~ U[1, 50]``,
seed 0) with ``M`` = the sum of their peaks, so that all of them start at step 0 and the
batch grows to ``n``; the simulator (strict SVF and FCFS) against the checker on the same
instance and schedule, in the same process (the checker is vectorised numpy and does not
depend on the batch size). Before issue 11 the simulator was quadratic here (8.6 / 30.6 s at
8k / 16k, 100k not finished in 10 minutes).

    python benchmarks/bench_simulator.py [--repeats 5] [--baseline-repeats 3] [--sizes 8000,16000,100000]
"""

from __future__ import annotations

import argparse
import heapq
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.admission import ForwardCheck  # noqa: E402
from geosched.reference_impl.checker import check_schedule  # noqa: E402
from geosched.reference_impl.model import burst_instance  # noqa: E402
from geosched.reference_impl.policies import make_policy  # noqa: E402
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.workloads import default_trace_path, read_trace  # noqa: E402


def per_step_baseline(instance, policy_name: str) -> dict[str, int]:
    """The same strict admission rule, evaluated at every step (exact lengths)."""
    requests = instance.requests
    n = len(requests)
    keys = make_policy(policy_name).keys(instance, [r.output for r in requests])
    order = sorted(range(n), key=lambda i: (keys[i], requests[i].arrival, i))  # ties: arrival, then position
    rank = {i: k for k, i in enumerate(order)}
    by_arrival = sorted(range(n), key=lambda i: requests[i].arrival)
    start = [-1] * n
    waiting: list[int] = []
    running: list[int] = []
    batch = ForwardCheck()
    next_arrival = 0
    done = 0
    t = 0
    while done < n:
        ended = [j for j in running if start[j] + requests[j].output <= t]
        if ended:
            done += len(ended)
            running = [j for j in running if start[j] + requests[j].output > t]
            batch.rebuild([(start[j] + requests[j].output, requests[j].prompt - start[j]) for j in running])
        while next_arrival < n and requests[by_arrival[next_arrival]].arrival <= t:
            heapq.heappush(waiting, rank[by_arrival[next_arrival]])
            next_arrival += 1
        while waiting:
            i = order[waiting[0]]
            r = requests[i]
            if not batch.fits(instance.memory, r.prompt, r.output, t):
                break
            heapq.heappop(waiting)
            start[i] = t
            running.append(i)
            batch.add(t + r.output, r.prompt - t)
        t += 1
    return {requests[i].id: start[i] for i in range(n)}


def timed(function, repeats: int):
    times = []
    result = None
    for _ in range(repeats):
        begin = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - begin)
    return statistics.median(times), times, result


def fitting_burst(n: int, seed: int = 0):
    """``n`` small requests whose peaks sum to ``M``: all of them start at step 0."""
    rng = np.random.default_rng(seed)
    lengths = [(int(s), int(o)) for s, o in zip(rng.integers(1, 6, n), rng.integers(1, 51, n))]
    return burst_instance(sum(s + o for s, o in lengths), lengths)


def large_bursts(sizes: list[int], repeats: int) -> None:
    print("| n | M | policy | simulate median (s) | check median (s) | simulate / check |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        instance = fitting_burst(n)
        for policy in ("svf", "fcfs"):
            median, _, result = timed(lambda inst=instance, p=policy: simulate(inst, p), repeats)
            assert max(result.starts.values()) == 0, "every request fits at once"
            check_median, _, report = timed(lambda inst=instance, r=result: check_schedule(inst, r.starts), repeats)
            assert report.feasible
            print(f"| {n} | {instance.memory} | {policy} | {median:.3f} | {check_median:.3f} | "
                  f"{median / check_median:.1f}x |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=3)
    parser.add_argument("--policy", default="svf")
    parser.add_argument("--sizes", default="8000,16000,100000", help="large-burst sizes (issue 11)")
    args = parser.parse_args()
    print(f"machine: {machine_summary()}")
    large_bursts([int(n) for n in args.sizes.split(",") if n], args.repeats)
    trace = default_trace_path()
    if trace is None:
        print("trace not found beside the project (../shared/traces); no trace table")
        return 0
    print("| arrivals | n | M | event-driven median (s) | requests/s | per-step baseline median (s) | speed-up |")
    print("|---|---|---|---|---|---|---|")
    for arrivals in ("burst", "online"):
        instance, _ = read_trace(trace, arrivals=arrivals)
        median, _, result = timed(lambda inst=instance: simulate(inst, args.policy), args.repeats)
        report = check_schedule(instance, result.starts)
        assert report.feasible
        base_median, _, base_starts = timed(lambda inst=instance: per_step_baseline(inst, args.policy),
                                            args.baseline_repeats)
        assert base_starts == result.starts, "baseline and simulator disagree"
        print(f"| {arrivals} | {instance.n} | {instance.memory} | {median:.3f} | {instance.n / median:,.0f} | "
              f"{base_median:.3f} | {base_median / median:.1f}x |")
        print(f"<!-- {arrivals}: TEL {report.metrics.tel}, makespan {report.metrics.makespan} steps, "
              f"{result.decisions} decision points -->")
    return 0


if __name__ == "__main__":
    sys.exit(main())
