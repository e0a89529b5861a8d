"""Mutation score per module by a maintained tool (cosmic-ray's operators; each module's fast tests judge).

Usage::

    python benchmarks/bench_mutation_tool.py (--per-module K | --fraction F | --all) [--seed S]
        [--modules model,checker,...] [--jobs N] [--cpu-limit CPU_SECONDS] [--ledger]
        [--root TREE] --checkpoint OUT.json [--resume] [--force] [--rerun BEFORE.json]

Draws a seeded stratified sample (``K`` mutants per module, or a fraction ``F`` of each module;
``--all`` is the whole population) of the mutants of ``benchmarks/mutation_by_tool.py``'s ``TARGETS``,
runs each in a fresh temporary copy of ``TREE`` (default: this checkout; never mutated in place)
against its module's fast tests and doctests under a CPU-time limit, and prints per module: the
population, the annotation mutants (equivalent, not run), the sample, killed, survived, timeouts
(resource limits: unknown) and the score killed / (killed + survived) with its 95% Wilson interval;
then every survivor for triage in docs/verification.md, and the measured CPU and wall seconds per
mutant with the estimate for the whole population.

Every finished mutant is written to the checkpoint at once (a temporary file in the same folder,
then renamed: a crash never leaves half a file); ``--resume`` skips the mutants already in it (the
same tree, seed and selection are checked). ``--rerun BEFORE.json`` runs again only the mutants
that survived or timed out in ``BEFORE.json`` and copies its kills (adding tests can only kill
more: the "after" column). Bad input: one line naming the flag, exit 2, nothing overwritten.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_by_tool as mt  # noqa: E402 - beside this file (dev-only)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--per-module", type=int, default=None)
    group.add_argument("--fraction", type=float, default=None)
    group.add_argument("--all", action="store_true", help="every mutant of the population")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modules", default=",".join(mt.TARGETS))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (one mutant at a time each)")
    parser.add_argument("--cpu-limit", type=int, default=120, help="CPU seconds per interpreter (timeout beyond)")
    parser.add_argument("--ledger", action="store_true", help="also run the module's ledger claims on survivors")
    parser.add_argument("--root", default=None, help="the tree to mutate (default: this checkout)")
    parser.add_argument("--checkpoint", required=True, metavar="OUT.json")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--force", action="store_true", help="overwrite an existing checkpoint")
    parser.add_argument("--rerun", default=None, metavar="BEFORE.json")
    return parser


def _fail(message: str) -> int:
    print(f"bench_mutation_tool: {message}", file=sys.stderr)
    return 2


def _write_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def _tree_id(root: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


def _select(args: argparse.Namespace, root: Path) -> tuple[list[mt.ToolMutant], dict[str, int], dict[str, int]]:
    """The sample, the population per module and the annotation mutants per module."""
    every = mt.enumerate_mutants(root, tuple(args.modules.split(",")))
    cache: dict = {}
    static = {m for m in every if mt.is_annotation(root, m, cache)}
    runnable = [m for m in every if m not in static]
    totals = {m: sum(1 for x in every if x.module == m) for m in mt.TARGETS if any(x.module == m for x in every)}
    annotations = {m: sum(1 for x in static if x.module == m) for m in totals}
    if args.all:
        return runnable, totals, annotations
    sample = mt.sample_mutants(runnable, per_module=args.per_module, fraction=args.fraction, seed=args.seed)
    return sample, totals, annotations


def _rerun_filter(sample: list[mt.ToolMutant], before: Path) -> tuple[list[mt.ToolMutant], list[mt.ToolOutcome]]:
    """What ``--rerun`` runs again (survivors and timeouts of ``before``) and the kills it copies."""
    rows = {o.mutant.key: o for o in map(mt.outcome_from_json, json.loads(before.read_text())["outcomes"])}
    missing = [m.key for m in sample if m.key not in rows]
    if missing:
        raise ValueError(f"--rerun {before}: mutant {missing[0]} of this sample is not in it (another seed?)")
    kept = [rows[m.key] for m in sample if rows[m.key].outcome == "killed"]
    return [m for m in sample if rows[m.key].outcome != "killed"], kept


def _run(args: argparse.Namespace, sample: list[mt.ToolMutant], header: dict, done: dict[str, mt.ToolOutcome],
         out: Path) -> None:
    limits = mt.Limits(cpu_seconds=args.cpu_limit)
    todo = [m for m in sample if m.key not in done]

    def save(result: mt.ToolOutcome) -> None:
        done[result.mutant.key] = result
        o = result
        print(f"  {o.mutant.module:<18} {o.mutant.path}:{o.mutant.line} {o.mutant.operator[5:]:<36} "
              f"{o.outcome:<10} {o.by[:50]:<50} {o.seconds:5.1f}s {o.cpu_seconds:5.1f}cpu", flush=True)
        _write_atomic(out, {**header, "outcomes": mt.outcomes_to_json([done[m.key] for m in sample
                                                                        if m.key in done])})

    executor = concurrent.futures.ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        mt.run_tool_campaign(todo, root=args.root, executor=executor, limits=limits, ledger=args.ledger,
                             progress=save)
    finally:
        if executor:
            executor.shutdown()


def _report(sample: list[mt.ToolMutant], done: dict[str, mt.ToolOutcome], totals: dict[str, int],
            annotations: dict[str, int]) -> None:
    outcomes = [done[m.key] for m in sample if m.key in done]
    table = mt.scores(outcomes)
    print("\nmodule              mutants  annot.  sampled  killed  survived  timeout  score  95% interval")
    for module, row in table.items():
        score = "-" if row["score"] is None else f"{row['score']:.0%}"
        interval = "-" if row["interval"] is None else f"{row['interval'][0]:.0%}-{row['interval'][1]:.0%}"
        print(f"{module:<18}  {totals[module]:>7}  {annotations[module]:>6}  {row['run']:>7}  {row['killed']:>6}  "
              f"{row['survived']:>8}  {row['timeout']:>7}  {score:>5}  {interval}")
    killed = sum(r["killed"] for r in table.values())
    survived = sum(r["survived"] for r in table.values())
    if killed + survived:
        print(f"all modules: {killed} killed, {survived} survived ({killed / (killed + survived):.0%})")
    print("\nsurvivors:")
    for o in outcomes:
        if o.outcome in ("survived", "timeout"):
            print(f"  [{o.outcome}] {o.mutant.path}:{o.mutant.line} {o.mutant.operator}#{o.mutant.occurrence}: "
                  f"{o.diff}")
    ran = [o for o in outcomes if o.outcome not in ("equivalent", "no_change") and o.cpu_seconds > 0]
    if ran:
        cpu, wall = statistics.median(o.cpu_seconds for o in ran), statistics.median(o.seconds for o in ran)
        estimate = 0.0  # per module: its sample's mean CPU seconds times its runnable mutants (strata differ)
        for module in totals:
            mine = [o.cpu_seconds for o in ran if o.mutant.module == module]
            if mine:
                estimate += statistics.fmean(mine) * (totals[module] - annotations[module])
        print(f"\nper mutant: median {cpu:.1f} CPU s and {wall:.1f} wall s ({len(ran)} run); the "
              f"{sum(totals.values()) - sum(annotations.values())} runnable mutants: about {estimate / 3600:.1f} "
              f"CPU hours (each module's mean CPU time times its runnable mutants)")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = Path(args.root).resolve() if args.root else Path(__file__).resolve().parent.parent
    args.root = str(root)
    out = Path(args.checkpoint)
    if args.jobs < 1:
        return _fail(f"--jobs: {args.jobs} (must be >= 1)")
    if out.exists() and not (args.resume or args.force):
        return _fail(f"--checkpoint: {out} exists (give --resume to continue it or --force to overwrite it)")
    if args.rerun and not Path(args.rerun).is_file():
        return _fail(f"--rerun: {args.rerun} (no such file)")
    try:
        sample, totals, annotations = _select(args, root)
        rerun, copied = _rerun_filter(sample, Path(args.rerun)) if args.rerun else (sample, [])
    except (ValueError, KeyError) as error:  # ValidationError is a ValueError
        return _fail(str(error))
    header = {"tree": _tree_id(root), "seed": args.seed, "per_module": args.per_module, "fraction": args.fraction,
              "all": args.all, "modules": args.modules, "cpu_limit": args.cpu_limit, "ledger": args.ledger,
              "rerun_of": args.rerun, "mutants_total": totals, "annotation_mutants": annotations,
              "python": platform.python_version(), "load_at_start": os.getloadavg()}
    done: dict[str, mt.ToolOutcome] = {o.mutant.key: o for o in copied}
    earlier = 0  # wall seconds of the earlier invocations of a resumed run
    if args.resume and out.exists():
        previous = json.loads(out.read_text())
        earlier = int(previous.get("seconds", 0))
        if any(previous.get(k) != header[k] for k in ("tree", "seed", "per_module", "fraction", "all", "modules")):
            return _fail(f"--resume: {out} is a run of another tree, seed or selection")
        done.update({o.mutant.key: o for o in map(mt.outcome_from_json, previous["outcomes"])})
    print(f"{sum(totals.values())} mutants in {args.modules} ({sum(annotations.values())} in annotations); "
          f"sample {len(sample)} (seed {args.seed}), {len(done)} already judged, "
          f"{sum(m.key not in done for m in rerun)} to run; python {platform.python_version()}", flush=True)
    begin = time.perf_counter()
    _run(args, [m for m in sample if m in set(rerun) or m.key in done], header, done, out)
    _write_atomic(out, {**header, "seconds": earlier + round(time.perf_counter() - begin),
                        "load_at_end": os.getloadavg(),
                        "scores": mt.scores([done[m.key] for m in sample if m.key in done]),
                        "outcomes": mt.outcomes_to_json([done[m.key] for m in sample if m.key in done])})
    _report(sample, done, totals, annotations)
    print(f"\n{len(done)} mutants judged; this invocation {time.perf_counter() - begin:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
