"""Mutation score per module by a maintained tool (cosmic-ray's operators; the ledger and fast tests judge).

Usage::

    python benchmarks/bench_mutation_tool.py [--per-module K | --fraction F] [--seed S]
        [--modules model,checker,...] [--cluster local:2] [--timeout SECONDS] [--json OUT.json]

Prints, per module of :data:`geosched.verify.mutation_tool.TARGETS`: how many mutants the tool
makes, how many were sampled (seeded), killed, survived, timed out, and the score
killed / (killed + survived); then every survivor (file, line, operator, the changed line) for
triage in docs/verification.md. The full run (every mutant, ``--fraction 1``) is days of CPU on
the 2-core machine; RESULTS.md records the sample actually run, with its fraction and seed.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from geosched.executor import cluster_spec
from geosched.verify import mutation_tool as mt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--per-module", type=int, default=None)
    group.add_argument("--fraction", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modules", default=",".join(mt.TARGETS))
    parser.add_argument("--cluster", type=cluster_spec, default="serial")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--root", default=None, help="the tree to mutate (default: this checkout)")
    parser.add_argument("--json", default=None, metavar="OUT.json")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve() if args.root else Path(__file__).resolve().parent.parent
    begin = time.perf_counter()
    every = mt.enumerate_mutants(root, tuple(args.modules.split(",")))
    per_module = args.per_module if args.fraction is None else None
    sample = mt.sample_mutants(every, per_module=per_module if per_module is not None else (
        None if args.fraction else 3), fraction=args.fraction, seed=args.seed)
    print(f"{len(every)} mutants in {args.modules}; sampled {len(sample)} (seed {args.seed}); python "
          f"{platform.python_version()}", flush=True)
    outcomes, baseline = mt.run_tool_campaign(sample, root=root, executor=args.cluster, timeout=args.timeout,
                                              progress=lambda o: print(
                                                  f"  {o.mutant.module:<10} {o.mutant.path}:{o.mutant.line} "
                                                  f"{o.mutant.operator[5:]:<40} {o.outcome:<9} {o.by[:40]:<40} "
                                                  f"{o.seconds:5.1f}s", flush=True))
    table = mt.scores(outcomes)
    totals = {m: sum(1 for x in every if x.module == m) for m in table}
    print("\nmodule      mutants  sampled  killed  survived  timeout  score")
    for module, row in table.items():
        score = "-" if row["score"] is None else f"{row['score']:.0%}"
        print(f"{module:<10}  {totals[module]:>7}  {row['run']:>7}  {row['killed']:>6}  {row['survived']:>8}  "
              f"{row['timeout']:>7}  {score:>5}")
    print("\nsurvivors:")
    for o in outcomes:
        if o.outcome == "survived":
            print(f"  {o.mutant.path}:{o.mutant.line} {o.mutant.operator}#{o.mutant.occurrence}: {o.diff}")
    seconds = time.perf_counter() - begin
    print(f"\n{len(outcomes)} mutants in {seconds:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"seed": args.seed, "fraction": args.fraction,
                                               "per_module": per_module, "baseline": baseline,
                                               "mutants_total": totals, "scores": table, "seconds": round(seconds),
                                               "outcomes": mt.outcomes_to_json(outcomes)}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
