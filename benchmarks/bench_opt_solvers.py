"""Exact OPT with solvers that are not geosched dependencies: Gurobi and SCIP (optional).

Companion of ``bench_opt.py`` (benchmark 2 of issue 2): it asks whether another solver, on
the same burst instances ``generate("burst", n, seed)``, proves what CP-SAT and HiGHS do not.
Neither solver is a dependency; a solver that is not installed is reported as skipped.

Formulations (each schedule returned is re-checked by
:func:`geosched.reference_impl.checker.check_schedule`; the TEL printed is the checker's):

* ``gurobi-compact``: completion times ``C_i`` only, memory checked at completion steps (the
  ``cpsat-completion`` model of :mod:`geosched.reference_impl.opt.cpsat`), written with order
  binaries ``y_ij`` (``C_i <= C_j``), running binaries ``r_ij`` (``j`` runs at ``C_i``),
  loads ``l_ij >= p_j - (C_j - C_i)`` under ``r_ij`` (indicator constraints) and the
  pairwise separation; tight windows, the heuristic schedule as MIP start, the best lower
  bound as an objective cut. Small enough (``n = 20``: about 1,000 variables) for the
  size-limited licence that ``pip install gurobipy`` carries (2,000 variables, 2,000
  constraints).
* ``gurobi-ti``: the time-indexed program of :mod:`geosched.reference_impl.opt.timeindexed`
  (tight windows). Beyond about ``n = 10`` it exceeds the size-limited licence; the error
  Gurobi raises is recorded as the result.
* ``scip-ti``: the same time-indexed program in SCIP (``pip install pyscipopt``), with the
  objective cut and the upper bound.

Usage::

    .venv/bin/pip install gurobipy pyscipopt   # not geosched dependencies
    .venv/bin/python benchmarks/bench_opt_solvers.py --n 10,14,20 --seeds 0,1,2 --limit 60 \\
        --solvers gurobi-compact,gurobi-ti,scip-ti --out /tmp/results_solvers.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _machine import machine_summary

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt import best_lower_bound, heuristic_schedule
from geosched.reference_impl.opt.timeindexed import build_model, start_windows
from geosched.reference_impl.workloads import generate

SOLVERS = ("gurobi-compact", "gurobi-ti", "scip-ti")


def _outcome(instance: Instance, proved: bool, starts: dict[str, int] | None, bound: float | None,
             seconds: float, note: str = "") -> dict:
    tel = None
    if starts is not None:
        report = check_schedule(instance, starts)
        if not report.feasible:
            raise RuntimeError(f"solver schedule rejected by the checker: {report.first_violation.message}")
        tel = report.metrics.tel
    return {"proved": proved, "tel": tel, "bound": bound, "seconds": seconds, "note": note}


def _binding_rows(ti) -> list[tuple[list[int], list[int]]]:
    """The memory rows of a time-indexed model that can be violated, as plain lists."""
    return [(cols.tolist(), coefs.tolist()) for binding, (cols, coefs) in zip(ti.row_binding, ti.memory_rows())
            if binding]


def _gurobi_compact(instance: Instance, upper_bound: int, hint: dict[str, int], lower: int, limit: float) -> dict:
    import gurobipy as gp
    from gurobipy import GRB

    requests, memory = instance.requests, instance.memory
    n = len(requests)
    peak = [r.peak for r in requests]
    output = [r.output for r in requests]
    windows = start_windows(instance, upper_bound, tight=True)
    horizon = max(hi + o for (_, hi), o in zip(windows, output))
    model = gp.Model()
    model.Params.OutputFlag = 0
    model.Params.TimeLimit = limit
    model.Params.Threads = 2
    completion = [model.addVar(lb=lo + o, ub=hi + o, vtype=GRB.INTEGER) for (lo, hi), o in zip(windows, output)]
    for i, r in enumerate(requests):
        completion[i].Start = hint[r.id] + r.output
    first = {}
    for i in range(n):
        for j in range(i + 1, n):
            first[i, j] = y = model.addVar(vtype=GRB.BINARY)
            model.addGenConstrIndicator(y, True, completion[i] <= completion[j])
            model.addGenConstrIndicator(y, False, completion[j] <= completion[i] - 1)
            overlap = peak[i] + peak[j] - memory
            if overlap > 0:  # implied separation, for the relaxation
                model.addGenConstrIndicator(y, True, completion[j] - completion[i] >= min(output[j], overlap))
                model.addGenConstrIndicator(y, False, completion[i] - completion[j] >= min(output[i], overlap))
    for i in range(n):
        loads = []
        for j in range(n):
            if j == i:
                continue
            running = model.addVar(vtype=GRB.BINARY)
            load = model.addVar(lb=0, ub=peak[j])
            i_first = first[i, j] if i < j else 1 - first[j, i]
            big_m = output[j] + horizon
            # C_i <= C_j and j not running at C_i  =>  j starts at or after C_i
            model.addConstr(completion[j] - completion[i] >= output[j] - big_m * (1 - i_first) - big_m * running)
            model.addGenConstrIndicator(running, True, load + completion[j] - completion[i] >= peak[j])
            loads.append(load)
        model.addConstr(peak[i] + gp.quicksum(loads) <= memory)
    objective = gp.quicksum(completion) - sum(r.arrival for r in requests)
    model.addConstr(objective >= lower)
    model.setObjective(objective, GRB.MINIMIZE)
    t0 = time.perf_counter()
    model.optimize()
    seconds = time.perf_counter() - t0
    starts = ({r.id: round(completion[i].X) - r.output for i, r in enumerate(requests)}
              if model.SolCount else None)
    return _outcome(instance, model.Status == GRB.OPTIMAL, starts, model.ObjBound, seconds,
                    f"{model.NumVars} vars, {model.NumConstrs + model.NumGenConstrs} constraints")


def _gurobi_time_indexed(instance: Instance, upper_bound: int, hint: dict[str, int], lower: int,
                         limit: float) -> dict:
    import gurobipy as gp
    from gurobipy import GRB

    ti = build_model(instance, upper_bound=upper_bound, tight=True)
    t0 = time.perf_counter()
    try:
        model = gp.Model()
        model.Params.OutputFlag = 0
        model.Params.TimeLimit = limit
        model.Params.Threads = 2
        x = model.addMVar(ti.n_vars, vtype=GRB.BINARY)
        for i in range(instance.n):
            model.addConstr(x[ti.request_vars(i)].sum() == 1)
        for cols, coefs in _binding_rows(ti):
            model.addConstr(gp.quicksum(coef * x[col] for col, coef in zip(cols, coefs)) <= instance.memory)
        objective = ti.cost @ x
        model.addConstr(objective >= lower)
        model.setObjective(objective, GRB.MINIMIZE)
        model.optimize()
    except gp.GurobiError as error:
        return _outcome(instance, False, None, None, time.perf_counter() - t0,
                        f"{ti.n_vars} binaries: GurobiError: {error}")
    seconds = time.perf_counter() - t0
    starts = None
    if model.SolCount:
        chosen = [j for j in range(ti.n_vars) if x.X[j] > 0.5]
        starts = {instance.requests[int(ti.var_request[j])].id: int(ti.var_start[j]) for j in chosen}
    return _outcome(instance, model.Status == GRB.OPTIMAL, starts, model.ObjBound, seconds, f"{ti.n_vars} binaries")


def _scip_time_indexed(instance: Instance, upper_bound: int, hint: dict[str, int], lower: int, limit: float) -> dict:
    from pyscipopt import Model, quicksum

    ti = build_model(instance, upper_bound=upper_bound, tight=True)
    model = Model()
    model.hideOutput()
    model.setParam("limits/time", limit)
    x = [model.addVar(vtype="B") for _ in range(ti.n_vars)]
    for i in range(instance.n):
        model.addCons(quicksum(x[j] for j in ti.request_vars(i).tolist()) == 1)
    for cols, coefs in _binding_rows(ti):
        model.addCons(quicksum(coef * x[col] for col, coef in zip(cols, coefs)) <= instance.memory)
    objective = quicksum(float(ti.cost[j]) * x[j] for j in range(ti.n_vars))
    model.addCons(objective >= lower)
    model.addCons(objective <= upper_bound)
    model.setObjective(objective, "minimize")
    t0 = time.perf_counter()
    model.optimize()
    seconds = time.perf_counter() - t0
    starts = None
    if model.getNSols():
        solution = model.getBestSol()
        starts = {instance.requests[int(ti.var_request[j])].id: int(ti.var_start[j])
                  for j in range(ti.n_vars) if model.getSolVal(solution, x[j]) > 0.5}
    return _outcome(instance, model.getStatus() == "optimal", starts, model.getDualbound(), seconds,
                    f"{ti.n_vars} binaries")


RUNNERS = {"gurobi-compact": _gurobi_compact, "gurobi-ti": _gurobi_time_indexed, "scip-ti": _scip_time_indexed}
MODULES = {"gurobi-compact": "gurobipy", "gurobi-ti": "gurobipy", "scip-ti": "pyscipopt"}


def _version(module: str) -> str | None:
    try:
        imported = __import__(module)
    except ImportError:
        return None
    if module == "gurobipy":
        return "Gurobi " + ".".join(map(str, imported.gurobi.version()))
    return f"pyscipopt {imported.__version__}, SCIP {imported.Model().version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", default="10,14,20", help="comma-separated sizes")
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated generator seeds")
    parser.add_argument("--limit", type=float, default=60.0, help="time limit per solve, seconds")
    parser.add_argument("--solvers", default=",".join(SOLVERS), help="comma-separated: " + ", ".join(SOLVERS))
    parser.add_argument("--out", default=None, help="append a markdown section to this file")
    args = parser.parse_args(argv)
    sizes = [int(v) for v in args.n.split(",") if v.strip()]
    seeds = [int(v) for v in args.seeds.split(",") if v.strip()]
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    unknown = [s for s in solvers if s not in RUNNERS]
    if unknown:
        print(f"error: unknown solver {unknown[0]!r}; known: {', '.join(SOLVERS)}", file=sys.stderr)
        return 2
    versions = {s: _version(MODULES[s]) for s in solvers}
    lines = [f"- command: `python benchmarks/bench_opt_solvers.py {' '.join(argv or sys.argv[1:])}`",
             f"- machine: {machine_summary()}",
             "- solver versions: " + ", ".join(f"{s} {v or 'not installed (skipped)'}" for s, v in versions.items()),
             f"- seeds {seeds}; time limit {args.limit:g} s; upper bound and hint: the heuristic schedule",
             "", "| n | seed | solver | status | TEL | bound | seconds | note |", "|---|---|---|---|---|---|---|---|"]
    summary = {}
    for n in sizes:
        for seed in seeds:
            instance = generate("burst", n=n, seed=seed)
            hint = heuristic_schedule(instance)
            upper = check_schedule(instance, hint).metrics.tel
            lower = best_lower_bound(instance, chain=True).value
            for solver in solvers:
                if versions[solver] is None:
                    continue
                result = RUNNERS[solver](instance, upper, hint, lower, args.limit)
                status = "optimal" if result["proved"] else ("error" if result["bound"] is None else "time_limit")
                bound = "-" if result["bound"] is None else f"{result['bound']:.1f}"
                row = (f"| {n} | {seed} | {solver} | {status} | {result['tel'] or '-'} | {bound} | "
                       f"{result['seconds']:.1f} | {result['note']} |")
                print(row, flush=True)
                lines.append(row)
                summary.setdefault((n, solver), []).append(
                    result["seconds"] if result["proved"] else max(result["seconds"], args.limit))
    lines.append("")
    for (n, solver), times in summary.items():
        lines.append(f"- n = {n}, {solver}: median time {statistics.median(times):.1f} s "
                     "(a run not proved counts at the limit)")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "a") as handle:
            handle.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
