"""The compiled kernel against both compiled simulators it replaced, in one process (issue 31, item 1).

``reference_impl/kernel.py`` replaced ``reference_impl/fastsim.py`` (the simulator's compiled path:
head-of-line, for >= 20,000 requests) and the step kernels of ``adversary/fast.py`` (the hunts'
evaluator: the batch kernel below 32 requests, the usage-profile kernel above, both modes). Both are
deleted from the tree, so this script loads them from git at the base commit (``--base``, default
``70b4101``, the commit before the kernel): ``git show BASE:reference_impl/fastsim.py`` and
``git show BASE:adversary/fast.py`` are written to a temporary folder and imported from there, next
to this checkout's kernel. Every contender runs on the same arrays and orders, their starts or TELs
are asserted equal, and the timings alternate between them (a change of load hits all; the order is
reversed every other round). Times are
CPU seconds of this process (``time.process_time``: the machine is shared) and wall seconds; each
cell is the median of ``--repeats`` runs; the load average is printed before and after each part.

(a) ``burst:n=1000000`` (seed 1, M = 39: ``benchmarks/bench_million.py``'s workload), SVF, strict
    head-of-line: one compiled call each (the old fastsim with the ``by_arrival`` its caller passed,
    the old batch kernel; the old usage-profile kernel scans every request at every decision, so it
    runs on smaller ``burst`` instances of the same generator, ``--profile-sizes``).
(b) a hunt's evaluations (``benchmarks/bench_adversary.py``'s populations: random burst and online
    instances of n = 10 and 30, M = 40, peaks <= 20), SVF, strict and backfill: the compiled calls
    alone (one per instance from Python, and the population in one call), then what a search pays per
    evaluation (``adversary.fast``'s ``policy_tel``, ``simulate_arrays``, ``batch_policy_tel``, the old
    module's against the new) and the search's fitness (policy + certified heuristic pool) with the old
    module patched in against the new.
(c) the structured search's large instances (``bench_adversary.py --large``): SJF, both modes.

    python benchmarks/bench_kernel.py [--repeats 5] [--count 300] [--n 1000000] [--base 70b4101]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _machine import machine_summary  # noqa: E402
from bench_adversary import large_instances, population  # noqa: E402

from geosched.adversary import fast as new_fast  # noqa: E402
from geosched.reference_impl import kernel  # noqa: E402
from geosched.reference_impl.policies import make_policy  # noqa: E402

STARTS = "kernel.starts_exact per instance (starts back, as the base's kernels)"
OLD_FILES = {"base_fastsim": "reference_impl/fastsim.py", "base_adversary_fast": "adversary/fast.py"}


def load_base(base: str, folder: Path) -> dict[str, ModuleType]:
    """The old modules, from ``git show BASE:PATH``, imported under names of their own."""
    modules = {}
    for name, path in OLD_FILES.items():
        text = subprocess.run(["git", "show", f"{base}:{path}"], cwd=HERE.parent, capture_output=True, text=True,
                              check=True).stdout
        file = folder / f"{name}.py"
        file.write_text(text)
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        modules[name] = module
    return modules


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def timed(contenders: dict[str, Callable[[], Any]], repeats: int) -> dict[str, tuple[float, float, float]]:
    """``{name: (median CPU s, median wall s, least CPU s)}``, the contenders alternating in every round
    (in reverse order every other round: none always runs first). On a loaded machine the least CPU
    time is the least disturbed run: it is printed beside the median."""
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    wall: dict[str, list[float]] = {name: [] for name in contenders}
    for round_ in range(repeats):
        for name, run in (list(contenders.items())[::-1] if round_ % 2 else contenders.items()):
            began_cpu, began = time.process_time(), time.perf_counter()
            run()
            cpu[name].append(time.process_time() - began_cpu)
            wall[name].append(time.perf_counter() - began)
    return {name: (statistics.median(cpu[name]), statistics.median(wall[name]), min(cpu[name])) for name in contenders}


def svf_order(arrival: np.ndarray, prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
    keys = np.asarray(make_policy("svf").array_keys(prompt, output), dtype=np.int64)
    return np.lexsort((np.arange(len(keys), dtype=np.int64), arrival, keys)).astype(np.int64)


def burst_columns(n: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    from geosched.reference_impl.workloads import load_workload

    instance = load_workload(f"burst:n={n}", seed=1)
    columns = tuple(np.fromiter((getattr(r, f) for r in instance.requests), dtype=np.int64, count=n)
                    for f in ("arrival", "prompt", "output"))
    return (instance.memory, *columns)


def million(old: dict[str, ModuleType], n: int, repeats: int, profile_sizes: list[int]) -> None:
    fastsim, adv = old["base_fastsim"], old["base_adversary_fast"]
    memory, a, s, o = burst_columns(n)
    order = svf_order(a, s, o)
    contenders = {
        "kernel.run_exact (this checkout)": lambda: kernel.run_exact(memory, s, o, a, order, False)[0],
        "fastsim.run_exact (base)": lambda: fastsim.run_exact(memory, s, o, a, order, np.argsort(a, kind="stable"))[0],
        "adversary.fast batch kernel (base)": lambda: adv._simulate_core(a, s, o, order, memory, False),
    }
    first = [run() for run in contenders.values()]  # compiles; the starts must agree
    assert all(np.array_equal(first[0], x) for x in first), "the simulators disagree"
    print(f"\n## (a) burst:n={n} (seed 1, M = {memory}), SVF, head-of-line: one compiled call\n")
    print(f"load before: {load()}; TEL {int((first[0] + o - a).sum())} (all equal)\n")
    results = timed(contenders, repeats)
    _table(results, "kernel.run_exact (this checkout)")
    print(f"\nload after: {load()}")
    if profile_sizes:
        print("\nThe base's usage-profile kernel (what `simulate_arrays` picked from 32 requests on) on smaller "
              "bursts of the same generator (one run each, CPU s):\n")
        print("| n | usage-profile kernel (base) | kernel.run_exact | ratio |")
        print("|---|---|---|---|")
        for size in profile_sizes:
            got = timed(_profile_contenders(adv, *burst_columns(size)), 1)
            print(f"| {size:,} | {got['profile'][0]:.3f} | {got['kernel'][0]:.4f} | "
                  f"{got['profile'][0] / got['kernel'][0]:,.0f}x |")


def _profile_contenders(adv: ModuleType, memory: int, a: np.ndarray, s: np.ndarray, o: np.ndarray) -> dict:
    order = svf_order(a, s, o)
    runs = {"profile": lambda: adv._simulate_profile_core(a, s, o, order, memory, False),
            "kernel": lambda: kernel.run_exact(memory, s, o, a, order, False)[0]}
    assert np.array_equal(runs["profile"](), runs["kernel"]())
    return runs


def _table(results: dict[str, tuple[float, float, float]], ours: str, count: int = 0) -> None:
    """Markdown rows: median CPU and wall and least CPU (evaluations per second when ``count``), and the
    ratios of the median and of the least CPU time to ours."""
    head = "eval/s" if count else "s"
    print(f"| contender | median CPU {head} | median wall {head} | best CPU {head} | CPU / ours (median, best) |\n"
          "|---|---|---|---|---|")
    for name, (cpu, wall, least) in results.items():
        shown = [count / v if count else v for v in (cpu, wall, least)]
        cells = " | ".join(f"{v:,.0f}" if count else f"{v:.3f}" for v in shown)
        print(f"| {name} | {cells} | {cpu / results[ours][0]:.2f}, {least / results[ours][2]:.2f} |")


def _glued(pop: list) -> tuple[np.ndarray, ...]:
    offsets = np.zeros(len(pop) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(item[0]) for item in pop])
    a, s, o = (np.concatenate([item[k] for item in pop]) for k in range(3))
    orders = np.concatenate([svf_order(*item[:3]) for item in pop])
    return np.array([item[3] for item in pop], dtype=np.int64), a, s, o, offsets, orders


def hunt(old: dict[str, ModuleType], count: int, repeats: int) -> None:
    print(f"\n## (b) a hunt's evaluations: {count} instances per population, SVF, M = 40\n")
    print(f"load before: {load()}\n")
    for online in (False, True):
        for n in (10, 30):
            pop = population(n, count, online, seed=n)
            for backfill in (False, True):
                label = f"{'online' if online else 'burst'} n={n}, {'backfill' if backfill else 'head-of-line'}"
                compiled, wrappers = _hunt_contenders(old, pop, backfill)
                print(f"### {label}: compiled calls\n")
                _table(timed(compiled, repeats), STARTS, count=count)
                print(f"\n### {label}: what a search calls\n")
                _table(timed(wrappers, repeats), "adversary.fast.policy_tel (this checkout)", count=count)
                print()
            fitness(old["base_adversary_fast"], n, online, pop, repeats)
    print(f"load after: {load()}")


def _hunt_contenders(old: dict[str, ModuleType], pop: list, backfill: bool) -> tuple[dict, dict]:
    """The compiled calls alone (same orders) and the adversary's wrappers, old and new, on ``pop``."""
    fastsim, adv = old["base_fastsim"], old["base_adversary_fast"]
    prepared = [(a, s, o, svf_order(a, s, o), m, np.argsort(a, kind="stable")) for a, s, o, m in pop]
    memories, a, s, o, offsets, orders = _glued(pop)
    each = adv._simulate_core if len(pop[0][0]) < adv.PROFILE_MIN_REQUESTS else adv._simulate_profile_core
    compiled = {
        "kernel.tel_exact per instance": lambda: [kernel.tel_exact(m, s_, o_, a_, r_, backfill)
                                                  for a_, s_, o_, r_, m, _ in prepared],
        STARTS: lambda: [
            kernel.starts_exact(m, s_, o_, a_, r_, backfill) for a_, s_, o_, r_, m, _ in prepared],
        "kernel.batch_tel, one call": lambda: kernel.batch_tel(memories, a, s, o, offsets, orders, backfill),
        "base adversary kernel per instance": lambda: [each(a_, s_, o_, r_, m, backfill)
                                                       for a_, s_, o_, r_, m, _ in prepared],
        "base adversary _batch_core, one call": lambda: adv._batch_core(a, s, o, offsets, memories, orders, backfill),
    }
    if not backfill:  # fastsim had head-of-line only; its by_arrival is made beforehand (not timed)
        compiled["base fastsim.run_exact per instance"] = lambda: [fastsim.run_exact(m, s_, o_, a_, r_, b_)
                                                                   for a_, s_, o_, r_, m, b_ in prepared]
    wrappers = {}
    for label, module in (("this checkout", new_fast), ("base", adv)):
        wrappers.update({
            f"adversary.fast.policy_tel ({label})": partial(_each, module.policy_tel, pop, backfill),
            f"adversary.fast.simulate_arrays ({label})": partial(_each, module.simulate_arrays, pop, backfill),
            f"adversary.fast.batch_policy_tel ({label})": partial(module.batch_policy_tel, "svf", pop,
                                                                  backfill=backfill),
        })
    tels = adv._batch_core(a, s, o, offsets, memories, orders, backfill).tolist()
    assert kernel.batch_tel(memories, a, s, o, offsets, orders, backfill).tolist() == tels
    assert new_fast.batch_policy_tel("svf", pop, backfill=backfill).tolist() == tels
    assert [int(v) for v in compiled["kernel.tel_exact per instance"]()] == tels
    for run in (*compiled.values(), *wrappers.values()):
        run()  # compiles
    return compiled, wrappers


def _each(function: Callable, pop: list, backfill: bool) -> list:
    return [function("svf", *item, backfill=backfill) for item in pop]


def fitness(adv: ModuleType, n: int, online: bool, pop: list, repeats: int) -> None:
    """The search's fitness (policy TEL + certified heuristic pool) with each evaluator."""
    from geosched.adversary import schedules, targets
    from geosched.adversary.search import Candidate, SearchSpace
    from geosched.adversary.search import fitness as score

    space = SearchSpace("svf", max_requests=n, memory=40, alpha_max=0.5, arrivals="online" if online else "burst",
                        max_arrival=39)
    candidates = [Candidate(a, s, o) for a, s, o, _ in pop]
    new_simulate, new_evaluator = schedules.simulate_arrays, targets._fast

    def with_base() -> list[float]:
        schedules.simulate_arrays, targets._fast = adv.simulate_arrays, lambda: adv
        try:
            return [score(space, c) for c in candidates]
        finally:
            schedules.simulate_arrays, targets._fast = new_simulate, new_evaluator

    assert with_base() == [score(space, c) for c in candidates]
    got = timed({"search fitness, this checkout's evaluator": lambda: [score(space, c) for c in candidates],
                 "search fitness, the base's evaluator": with_base}, repeats)
    print(f"### {'online' if online else 'burst'} n={n}: the search's fitness (policy + pool)\n")
    _table(got, "search fitness, this checkout's evaluator", count=len(candidates))
    print()


def large(old: dict[str, ModuleType], repeats: int) -> None:
    adv = old["base_adversary_fast"]
    print(f"\n## (c) the structured search's large instances, SJF\n\nload before: {load()}\n")
    print("| instance | mode | kernel.run_exact (ms CPU) | base usage-profile kernel | base batch kernel | "
          "best base / kernel |")
    print("|---|---|---|---|---|---|")
    for label, a, s, o, memory in large_instances():
        for backfill in (False, True):
            got = timed(_large_contenders(adv, a, s, o, memory, backfill), repeats)
            best = min(got["profile"][0], got["batch"][0])
            print(f"| {label} | {'backfill' if backfill else 'head-of-line'} | {got['kernel'][0] * 1e3:,.2f} | "
                  f"{got['profile'][0] * 1e3:,.2f} | {got['batch'][0] * 1e3:,.1f} | {best / got['kernel'][0]:,.1f}x |")
    print(f"\nload after: {load()}")


def _large_contenders(adv: ModuleType, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int,
                      backfill: bool) -> dict:
    keys = np.asarray(make_policy("sjf").array_keys(s, o), dtype=np.int64)
    order = np.lexsort((np.arange(len(keys)), a, keys)).astype(np.int64)
    runs = {"kernel": lambda: kernel.run_exact(memory, s, o, a, order, backfill)[0],
            "profile": lambda: adv._simulate_profile_core(a, s, o, order, memory, backfill),
            "batch": lambda: adv._simulate_core(a, s, o, order, memory, backfill)}
    first = [run() for run in runs.values()]
    assert all(np.array_equal(first[0], x) for x in first)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--count", type=int, default=300, help="instances per population in (b)")
    parser.add_argument("--n", type=int, default=1_000_000, help="requests in (a)")
    parser.add_argument("--base", default="70b4101", help="the commit whose fastsim.py and adversary/fast.py are timed")
    parser.add_argument("--profile-sizes", default="10000,30000,100000",
                        help="burst sizes for the base's usage-profile kernel in (a) (empty: none)")
    parser.add_argument("--parts", default="a,b,c", help="which of a (1M), b (hunt), c (large) to run")
    args = parser.parse_args()
    print(f"machine: {machine_summary()}; base {args.base}; median of {args.repeats} runs")
    with tempfile.TemporaryDirectory(prefix="bench-kernel-") as folder:
        old = load_base(args.base, Path(folder))
        parts = args.parts.split(",")
        if "a" in parts:
            million(old, args.n, args.repeats, [int(v) for v in args.profile_sizes.split(",") if v])
        if "b" in parts:
            hunt(old, args.count, args.repeats)
        if "c" in parts:
            large(old, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
