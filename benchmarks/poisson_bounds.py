"""The Poisson bounds against simulation (issue 42): ours before and after the Chebyshev step, the paper's.

For each workload of the paper's model (:data:`geosched.verify.poisson_model.PAPER_WORKLOADS`: truncated
geometric outputs, uniform prompts) and each load, one long stationary run
(:func:`geosched.verify.poisson_stationary.stationary_point`: SVF, 1-bit SVF and FCFS on the same arrivals,
the first tenth dropped, a warm-up test) and the three bounds on ``E[SVF]/E[OPT]``:

* **ours before**: ``1 + r0/((1 - rho)^2 E[o])`` (``svf.poisson`` before issue 42);
* **ours after**: ``1 + r0 min(Phi/(1 - rho), 1/(1 - rho)^2)/E[o]`` (the Chebyshev step);
* **the paper's**: ``1 + 2/((1 - alpha)(1 - mu)(1 - rho_p))`` (Kong et al., Thm. 3.4).

against the simulated ``E[SVF]/E[o]`` (and ``E[SVF]/E[LB]``, the capacity lower bound on OPT), with the
policies' simulated mean waits and their per-type bounds (the ranking). Table 1 is indexed by the
paper's load ``rho_p = 2 lambda E[v]/D`` (where the paper's bound is defined); table 2 by ours,
``rho = lambda E[p o]/D`` (the paper's bound is void where ``rho_p >= 1``). Also measured: the stability
boundary of the project's workload, step 4's tightness, and the CPU seconds of the ledger's new
Poisson checks against the 10-request Monte-Carlo they replace on the paper rows (same process).

Usage::

    python benchmarks/poisson_bounds.py [--n 200000] [--seed 0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

import numpy as np
from _machine import machine_summary

LOADS = (0.5, 0.8, 0.9, 0.95)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def table_by_paper_load(n: int, seed: int) -> tuple[list[str], list[dict[str, Any]]]:
    from geosched.verify.poisson_model import PAPER_WORKLOADS
    from geosched.verify.poisson_stationary import stationary_point, warmup_problems

    lines = ["| workload | rho_p | rho (ours) | E[SVF]/E[o] | E[SVF]/E[LB] | ours before | ours after | paper's | "
             "Gamma | mean wait SVF / 1-bit / FCFS | per-type bounds SVF / 1-bit / FCFS | warm-up |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    points = []
    for i, workload in enumerate(PAPER_WORKLOADS):
        for j, rho_p in enumerate(LOADS):
            p = stationary_point(workload, rho_p, n, seed + 10 * i + j)
            points.append(p)
            warm = "FAILS" if warmup_problems(np.array(p["early"]), np.array(p["late"])) else "ok"
            w, b = p["mean_wait"], p["per_class"]
            lines.append(f"| {p['workload']} | {rho_p} | {p['rho']:.3f} | {p['e_tel_over_e_o']:.4f} | "
                         f"{p['ratio_lb']:.4f} | {p['ours_before']:.2f} | {p['ours_after']:.2f} | {p['paper']:.2f} | "
                         f"{p['gamma']:.3f} | {w['svf']:.4f} / {w['svf1']:.4f} / {w['fcfs']:.4f} | "
                         f"{b['svf']:.2f} / {b['svf1']:.2f} / {b['fcfs']:.2f} | {warm} |")
    return lines, points


def table_by_our_load(n: int, seed: int) -> list[str]:
    from geosched.verify.poisson_model import PAPER_WORKLOADS, class_bounds, paper_terms, simulate_classes

    lines = ["| workload | rho (ours) | rho_p | E[SVF]/E[o] | ours before | ours after | paper's | "
             "mean wait SVF / 1-bit / FCFS |", "|---|---|---|---|---|---|---|---|"]
    for i, workload in enumerate(PAPER_WORKLOADS):
        for j, rho in enumerate(LOADS):
            run = simulate_classes(workload, workload.rate(rho), n, seed + 100 + 10 * i + j)
            first = len(run.arrivals) // 10
            waits = {p: float(run.waits(p)[first:].mean()) for p in ("svf", "svf1", "fcfs")}
            e_o = workload.mean("o")
            b = class_bounds(workload, workload.keys("svf"), rho)
            rho_p = rho * 2 * workload.mean("v") / workload.mean("po")
            paper = f"{paper_terms(workload, rho_p, b['phi'])['paper']:.2f}" if rho_p < 1 else "void (rho_p >= 1)"
            ratio = 1 + waits["svf"] / float(run.outputs[first:].mean())
            lines.append(f"| {workload.name} | {rho} | {rho_p:.3f} | {ratio:.4f} | "
                         f"{1 + b['square'] / e_o:.2f} | {1 + b['chebyshev'] / e_o:.2f} | {paper} | "
                         f"{waits['svf']:.4f} / {waits['svf1']:.4f} / {waits['fcfs']:.4f} |")
    return lines


def checks_cpu(mode: str) -> list[str]:
    """CPU seconds of each new Poisson check and of the 10-request Monte-Carlo it replaces, one mode."""
    from geosched.verify.evidence import Context
    from geosched.verify.ledger import CLAIMS, METHODS

    lines = [f"| {mode} | method | status | CPU s |", "|---|---|---|---|"]
    ctx = Context(mode, None, 0, ())
    for name, claim in (("monte-carlo:paper-stationary", "kong.thm3.4"), ("monte-carlo:paper-stationary-svf1",
                        "kong.thm3.5"), ("monte-carlo:paper-ecr", "kong.thm3.4.half"),
                        ("monte-carlo:poisson-ranking", "svf1.poisson"), ("monte-carlo:poisson-step3", "svf.poisson"),
                        ("monte-carlo:poisson-boundary", "svf.poisson.stable"),
                        ("monte-carlo:capacity-bound", "svf.poisson"), ("monte-carlo:svf", "kong.thm3.4"),
                        ("monte-carlo:svf1", "kong.thm3.5"), ("monte-carlo:ecr", "kong.thm3.4.half")):
        started = _cpu()
        evidence = METHODS[name](CLAIMS[claim], ctx)
        replaced = " (replaced)" if name in ("monte-carlo:svf", "monte-carlo:svf1", "monte-carlo:ecr") else ""
        lines.append(f"| | `{name}`{replaced} | {evidence.status} | {_cpu() - started:.1f} |")
    return lines


def other_figures(seed: int) -> list[str]:
    from geosched.verify.poisson_boundary import measure_boundary
    from geosched.verify.poisson_step3 import DEFECTS, measure_step3, step3_problems, tightness

    boundary = measure_boundary(200_000, 300_000, seed + 7)
    low, high = boundary["saturation"]
    step3 = measure_step3(400_000, seed + 9)
    return [f"- stability boundary of the project's workload (strict SVF): saturation margin {low['margin']:+.4f} "
            f"(se {low['se']:.4f}) at rho = {low['rho']}, {high['margin']:+.4f} (se {high['se']:.4f}) at rho = "
            f"{high['rho']}: rho* = {boundary['boundary']:.3f}; rho = 1.5 stationary (z = "
            f"{boundary['stable']['z']:+.1f}), rho = 1.8 growing (z = {boundary['unstable']['z']:+.1f})",
            "- step 4 on the nearly tight workload (400,000 arrivals): each class uses "
            + ", ".join(f"{r:.3f}" for r in tightness(step3)) + " of its right-hand side; "
            + "; ".join(f"{d}: {'refuted' if step3_problems(step3, d) else 'not refuted'} "
                        f"(x{max(tightness(step3, d)):.2f})" for d in DEFECTS)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="arrivals per stationary run (>= 20000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the points as JSON here (a new file; never overwritten)")
    args = parser.parse_args(argv)
    if args.n < 20_000:
        print(f"poisson_bounds: --n: must be >= 20000 (got {args.n})", file=sys.stderr)
        return 2
    if args.json and os.path.exists(args.json):
        print(f"poisson_bounds: --json: {args.json} exists (not overwritten)", file=sys.stderr)
        return 2
    started, wall = _cpu(), time.perf_counter()
    print(f"machine: {machine_summary()}; load average at start {os.getloadavg()[0]:.2f}; seed {args.seed}")
    lines, points = table_by_paper_load(args.n, args.seed)
    print("\nTable 1 (by the paper's load)\n" + "\n".join(lines))
    print("\nTable 2 (by our load)\n" + "\n".join(table_by_our_load(args.n, args.seed)))
    print("\n" + "\n".join(other_figures(args.seed)))
    for mode in ("quick", "default"):
        print("\n" + "\n".join(checks_cpu(mode)))
    print(f"\ntotal CPU {_cpu() - started:.1f} s, wall {time.perf_counter() - wall:.1f} s, load average at end "
          f"{os.getloadavg()[0]:.2f}")
    if args.json:
        tmp = args.json + ".tmp"
        with open(tmp, "w") as handle:
            json.dump(points, handle, indent=1)
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
