"""``geosched simulate`` and ``geosched check`` of 1,000,000 requests: this checkout against a baseline.

The workload is ``burst:n=1000000`` (seed 1; M = 39, Jaillet et al.'s synthetic set) written by
:func:`geosched.reference_impl.model.write_instance` as ``burst1m.json``, and the SVF schedule
of it as ``burst1m.schedule.json`` (``{"starts": ...}``, written once by this script). Each
measurement is a fresh ``python -m geosched`` process (what a user pays), timed from here, its
peak RSS from ``wait4``; the two interpreters (this checkout's and ``--baseline-python``, e.g.
``/work/main/.venv/bin/python`` for the code before the change) alternate, ``--repeats`` times
each, and both must print the same output (the results stay exactly equal). Medians, the load
average before and after. Since the third round both commands take :mod:`geosched.reference_impl.columns`
for these files (the output is the general path's: the comparison with the baseline checks it).

    python benchmarks/bench_million.py --baseline-python /work/main/.venv/bin/python [--repeats 3] [--n 1000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402


def prepare(folder: Path, n: int) -> tuple[Path, Path]:
    """The instance and schedule files (made once, kept in ``folder``)."""
    from geosched.reference_impl.model import write_instance
    from geosched.reference_impl.simulation import simulate
    from geosched.reference_impl.workloads import load_workload

    instance_path, schedule_path = folder / f"burst{n}.json", folder / f"burst{n}.schedule.json"
    if not (instance_path.is_file() and schedule_path.is_file()):
        instance = load_workload(f"burst:n={n}", seed=1)
        write_instance(instance, instance_path)
        schedule_path.write_text(json.dumps({"starts": simulate(instance, "svf").starts}) + "\n")
    return instance_path, schedule_path


def _run(python: str, argv: list[str], folder: Path) -> tuple[float, float, float, str]:
    """``(seconds, CPU seconds, peak RSS in MiB, stdout)`` of ``python -m geosched ARGV`` run in ``folder``
    (not in a checkout, whose ``geosched/`` would shadow the interpreter's). The peak is GNU time's ``%M``:
    a child's ``ru_maxrss`` counts the pages of the large parent it was forked from. CPU is ``%U + %S``
    (user and system): on a loaded machine the wall time mostly measures the other work."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M %U %S", python, "-m", "geosched", *argv], stdout=out,
                              stderr=err, cwd=folder)
        seconds = time.perf_counter() - began
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode().strip().splitlines()
        if done.returncode != 0:
            raise SystemExit(f"{python} -m geosched {' '.join(argv)}: exit {done.returncode}: {stderr[-5:]}")
        rss, user, system = stderr[-1].split()
        return seconds, float(user) + float(system), int(rss) / 1024, out.read().decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-python", required=True, help="interpreter whose geosched is the baseline")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n", type=int, default=1_000_000, help="requests (default 1000000)")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/geosched-bench-million"),
                        help="where the files are kept")
    parser.add_argument("--commands", default="simulate,check", help="which of simulate,check to run")
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if args.prepare_only:
        prepare(args.dir, args.n)
        return 0
    # in a child process: this one stays small
    subprocess.run([sys.executable, __file__, "--prepare-only", "--n", str(args.n), "--dir", str(args.dir),
                    "--baseline-python", args.baseline_python], check=True)
    instance_path, schedule_path = args.dir / f"burst{args.n}.json", args.dir / f"burst{args.n}.schedule.json"
    commands = {"simulate": ["simulate", str(instance_path), "--policy", "svf"],
                "check": ["check", str(instance_path), str(schedule_path)]}
    pythons = {"this checkout": sys.executable, "baseline": args.baseline_python}
    print(f"machine: {machine_summary()}; n = {args.n}; load before: {open('/proc/loadavg').read().strip()}")
    print("| command | code | median (s) | runs (s) | median CPU (s) | median peak RSS (MiB) | output |")
    print("|---|---|---|---|---|---|---|")
    for name in args.commands.split(","):
        runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in pythons}
        outputs: dict[str, set[str]] = {label: set() for label in pythons}
        for _ in range(args.repeats):
            for label, python in pythons.items():  # alternating, so that a change of load hits both
                seconds, cpu, rss, stdout = _run(python, commands[name], args.dir)
                runs[label].append((seconds, cpu, rss))
                outputs[label].add(stdout)
        same = outputs["this checkout"] == outputs["baseline"] and len(outputs["baseline"]) == 1
        medians, cpu = {}, {}
        for label in pythons:
            seconds = [s for s, _, _ in runs[label]]
            medians[label] = statistics.median(seconds)
            cpu[label] = statistics.median(c for _, c, _ in runs[label])
            print(f"| geosched {name} | {label} | {medians[label]:.2f} | {', '.join(f'{s:.2f}' for s in seconds)} | "
                  f"{cpu[label]:.2f} | {statistics.median(r for _, _, r in runs[label]):.0f} | "
                  f"{'identical' if same else 'DIFFERENT'} |")
        print(f"| geosched {name} | baseline / this checkout | {medians['baseline'] / medians['this checkout']:.2f}x "
              f"| | {cpu['baseline'] / cpu['this checkout']:.2f}x | | |")
    print(f"load after: {open('/proc/loadavg').read().strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
