"""Benchmark (1) of the foundation issue: simulate the whole Azure conversation trace.

Runs strict SVF on the 19,366-request trace of ../shared/traces, as a burst and with its
arrivals (0.025 s per step), M = 2 x the largest peak; reports the median wall time of
``--repeats`` runs and requests per second. The baseline, run in the same process, is the
same admission rule visiting every step (cost grows with the number of steps), checked to
produce the same schedule.

    python benchmarks/bench_simulator.py [--repeats 5] [--baseline-repeats 3]
"""

from __future__ import annotations

import argparse
import heapq
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.checker import check_schedule  # noqa: E402
from geosched.reference_impl.policies import make_policy  # noqa: E402
from geosched.reference_impl.simulator import ForwardCheck, simulate  # noqa: E402
from geosched.reference_impl.workloads import default_trace_path, read_trace  # noqa: E402


def per_step_baseline(instance, policy_name: str) -> dict[str, int]:
    """The same strict admission rule, evaluated at every step (exact lengths)."""
    requests = instance.requests
    n = len(requests)
    keys = make_policy(policy_name).keys(instance, [r.output for r in requests])
    order = sorted(range(n), key=lambda i: (keys[i], requests[i].arrival, requests[i].id))
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-repeats", type=int, default=3)
    parser.add_argument("--policy", default="svf")
    args = parser.parse_args()
    trace = default_trace_path()
    if trace is None:
        print("trace not found beside the project (../shared/traces); nothing to measure")
        return 0
    print(f"machine: {machine_summary()}")
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
