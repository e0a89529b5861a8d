"""Benchmark (2) of issue 2: exact OPT on Jaillet-style burst instances.

Instances: ``generate("burst", n=n, seed=s)`` (M ~ U[30, 50], s ~ U[1, 5], o ~ U[1, M - s];
Jaillet et al., arXiv 2502.07115, Sec. 6). For every n, seed and formulation (``method=`` of
:func:`geosched.reference_impl.opt.solve_opt`) we record wall time, status, TEL, dual bound and
gap; the table reports per (n, method) the number proved optimal, the median solve time
(time-limited runs count at the limit) and the median / max gap. The plain HiGHS MILP is the
baseline (same process, possibly a shorter limit: ``--milp-limit``). Also recorded: the best
policy TEL and the best cheap lower bound.

Usage::

    .venv/bin/python benchmarks/bench_opt.py --n 10,20,30,40 --seeds 0,1,2 --limit 60 \\
        --methods cpsat-completion,cpsat,milp --out /tmp/results_opt.md

(then merge the written section into benchmarks/RESULTS.md, section 2)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import ortools
import scipy

from geosched.reference_impl.opt import best_lower_bound, chain_bound, heuristic_schedule, solve_opt
from geosched.reference_impl.opt.heuristic import best_policy_schedule
from geosched.reference_impl.workloads import generate


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="10,20,30,40", help="comma-separated sizes")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated generator seeds")
    parser.add_argument("--limit", type=float, default=60.0, help="time limit per solve, seconds")
    parser.add_argument("--milp-limit", type=float, default=None, help="limit for milp* methods (default --limit)")
    parser.add_argument("--methods", default="cpsat-completion,cpsat,milp", help="comma-separated methods")
    parser.add_argument("--out", default=None, help="append a markdown section to this file")
    parser.add_argument("--jsonl", default=None, help="write one JSON line per solve here")
    args = parser.parse_args(argv)
    sizes, seeds = _ints(args.n), _ints(args.seeds)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    records = []
    sink = open(args.jsonl, "a") if args.jsonl else None
    started = time.time()
    load_before = os.getloadavg()
    for n in sizes:
        for seed in seeds:
            instance = generate("burst", n=n, seed=seed)
            _, policy_tel, policy_name = best_policy_schedule(instance)
            heuristic = heuristic_schedule(instance)
            heuristic_tel = sum(heuristic[r.id] + r.output for r in instance.requests)
            lower = best_lower_bound(instance)
            chain_started = time.perf_counter()
            chain = chain_bound(instance)
            chain_seconds = time.perf_counter() - chain_started
            for method in methods:
                limit = args.milp_limit if method.startswith("milp") and args.milp_limit else args.limit
                result = solve_opt(instance, method=method, time_limit=limit, seed=0)
                record = {
                    "n": n, "seed": seed, "memory": instance.memory, "method": method, "limit": limit,
                    "status": result.status, "tel": result.tel, "dual_bound": result.dual_bound,
                    "gap": result.gap, "wall_time": result.wall_time, "policy_tel": policy_tel,
                    "policy": policy_name, "heuristic_tel": heuristic_tel, "lower_bound": lower.value,
                    "chain_bound": None if chain is None else chain.value, "chain_seconds": round(chain_seconds, 3),
                    "load": os.getloadavg()[0],
                }
                records.append(record)
                print(json.dumps(record), flush=True)
                if sink:
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
    if sink:
        sink.close()
    section = _markdown(records, sizes, seeds, methods, args, argv, started, load_before)
    print(section)
    if args.out:
        with open(args.out, "a") as handle:
            handle.write(section + "\n")
    return 0


def _markdown(records, sizes, seeds, methods, args, argv, started, load_before) -> str:
    command = "python benchmarks/bench_opt.py " + " ".join(argv if argv is not None else sys.argv[1:])
    lines = [
        f"### Exact OPT on burst instances (n = {', '.join(map(str, sizes))})",
        "",
        f"- command: `{command}`",
        f"- machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"OR-Tools {ortools.__version__}, SciPy {scipy.__version__}; CP-SAT num_workers=2",
        f"- load average at start {load_before[0]:.1f}, at end {os.getloadavg()[0]:.1f} "
        "(other jobs shared the 2 cores: times are inflated and noisy)",
        f"- seeds {seeds}; time limit {args.limit:.0f} s"
        + (f" ({args.milp_limit:.0f} s for milp*)" if args.milp_limit else "")
        + f"; total wall time {time.time() - started:.0f} s",
        "- time: median over seeds of the wall time, a time-limited run counted at max(wall time, limit);"
        " gap = (TEL - dual bound) / TEL of the returned incumbent",
        "",
        "| n | method | proved optimal | median time (s) | median gap | max gap | median TEL / policy TEL |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in sizes:
        for method in methods:
            rows = [r for r in records if r["n"] == n and r["method"] == method]
            if not rows:
                continue
            proved = sum(r["status"] == "optimal" for r in rows)
            times = [r["wall_time"] if r["status"] == "optimal" else max(r["wall_time"], r["limit"]) for r in rows]
            gaps = [r["gap"] for r in rows if r["gap"] is not None]
            ratio = [r["tel"] / r["policy_tel"] for r in rows if r["tel"] is not None]
            lines.append(
                f"| {n} | {method} | {proved}/{len(rows)} | {statistics.median(times):.1f} | "
                f"{statistics.median(gaps):.3f} | {max(gaps):.3f} | {statistics.median(ratio):.3f} |"
            )
    lines += ["", "Per instance (TEL / dual bound / seconds; best policy TEL; best cheap lower bound; chain bound"
              " of `opt.chain` with its seconds):", "",
              "| n | seed | M | " + " | ".join(methods) + " | policy | cheap LB | chain LB |",
              "|---|---|---|" + "---|" * len(methods) + "---|---|---|"]
    for n in sizes:
        for seed in seeds:
            rows = {r["method"]: r for r in records if r["n"] == n and r["seed"] == seed}
            if not rows:
                continue
            first = next(iter(rows.values()))
            chain_cell = "-" if first["chain_bound"] is None else \
                f"{first['chain_bound']} ({first['chain_seconds']:.1f} s)"
            cells = []
            for method in methods:
                r = rows.get(method)
                if r is None:
                    cells.append("-")
                    continue
                mark = "*" if r["status"] == "optimal" else ""
                cells.append(f"{r['tel']}{mark} / {r['dual_bound']:.0f} / {r['wall_time']:.1f}")
            lines.append(f"| {n} | {seed} | {first['memory']} | " + " | ".join(cells)
                         + f" | {first['policy_tel']} ({first['policy']}) | {first['lower_bound']} | "
                         + chain_cell + " |")
    lines.append("")
    lines.append("`*` = proved optimal.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
