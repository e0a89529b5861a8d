"""Benchmark of issue 30, item 4: the extracted Coq SVF against the Python engine, before and after.

* **before**: the extraction of commit 70b4101 (step-by-step search over time, ``nat`` as 63-bit
  ``int``), rebuilt from ``git show`` in a temporary folder; its driver always printed the full output
  (starts, TEL, feasibility, SJF), which is what ``simulate --engine coq`` ran then.
* **after**: this tree's engine (``verify/coq/SvfEngine.v``: jumps between events, merge sorts,
  Zarith integers), with ``--starts-only`` as ``simulate --engine coq`` runs it now; also the whole
  call ``geosched.verify.coq_engine.simulate_coq`` (build-cache lookup, encoding, process).
* **python**: ``geosched.reference_impl.simulation.simulate(instance, "svf")`` in this process.

Each engine process gets the same instance; its wall time is the median of ``--repeats`` runs
(``--before-repeats`` for the old one, each under ``--before-timeout`` seconds: a run past it is
reported as ``> T``). The starts of every engine are compared with Python's. Workloads: ``chat``
(the generator, seed 0, ``M`` = twice the largest peak) and the Azure conversation trace as a burst
(first ``n`` rows, ``M`` = twice the largest peak; all 19,366 rows for 20,000), when it is present.
The machine is shared: every row records ``os.getloadavg()`` before it and the median CPU seconds
of each (the engines' from ``getrusage`` of the children, Python's from ``time.process_time``).

    python benchmarks/bench_coq_engine.py [--sizes 300,2000,20000] [--repeats 5] [--before-repeats 3]
                                          [--before-timeout 300] [--workloads chat,trace] [--no-before]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402

from geosched.reference_impl.simulation import simulate  # noqa: E402
from geosched.reference_impl.workloads import default_trace_path, generate, read_trace  # noqa: E402
from geosched.verify import coq_engine  # noqa: E402

BASE = "70b4101"
ROOT = Path(__file__).resolve().parent.parent
BEFORE_FILES = ("Model", "Svf", "SvfFacts", "SvfFast", "Volume", "Prop31", "SjfFamily")


def build_before(folder: Path) -> Path:
    """The executable of commit BASE's extraction, compiled from its sources in ``folder``."""
    listing = subprocess.run(["git", "ls-tree", "-r", "--name-only", BASE, "verify/coq"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for name in listing:
        target = folder / Path(name).relative_to("verify/coq")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(subprocess.run(["git", "show", f"{BASE}:{name}"], cwd=ROOT, capture_output=True,
                                          check=True).stdout)
    for module in BEFORE_FILES:
        subprocess.run(["coqc", "-q", "-R", ".", "GeoSched", f"{module}.v"], cwd=folder, check=True)
    subprocess.run(["coqc", "-R", ".", "GeoSched", "Extract.v"], cwd=folder, check=True, capture_output=True)
    shutil.copy(folder / "engine" / "main.ml", folder / "main.ml")
    subprocess.run(["ocamlopt", "geosched_coq.mli", "geosched_coq.ml", "main.ml", "-o", "before"], cwd=folder,
                   check=True)
    return folder / "before"


def instances(workloads: list[str], sizes: list[int], trace: Path | None):
    for workload in workloads:
        for n in sizes:
            if workload == "chat":
                yield "chat", generate("chat", n=n, seed=0)
            elif workload == "trace":
                if trace is None or not trace.is_file():
                    print("trace: not present, skipped", file=sys.stderr)
                    break
                yield "trace", read_trace(trace, limit=n)[0]


def run_process(command: list[str], text: str, timeout: float) -> tuple[float | None, float, str]:
    """(wall seconds or None past the timeout, CPU seconds of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=timeout, check=True)
        wall, out = time.perf_counter() - started, done.stdout
    except subprocess.TimeoutExpired:
        wall, out = None, ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def median_runs(command, text, repeats, timeout):
    """(median wall seconds or None when a run passed the timeout, median CPU seconds, last stdout)."""
    walls, cpus, out = [], [], ""
    for _ in range(repeats):
        wall, used, out_k = run_process(command, text, timeout)
        cpus.append(used)
        if wall is None:
            return None, statistics.median(cpus), ""
        walls.append(wall)
        out = out_k
    return statistics.median(walls), statistics.median(cpus), out


def starts_of(output: str) -> list[int]:
    return [int(v) for v in output.splitlines()[0].split()[1:]] if output else []


def timed_python(inst, repeats):
    """(median wall seconds, median CPU seconds of this process, the starts)."""
    times, cpus, result = [], [], None
    for _ in range(repeats):
        started, cpu = time.perf_counter(), time.process_time()
        result = simulate(inst, "svf")
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return statistics.median(times), statistics.median(cpus), [result.starts[r.id] for r in inst.requests]


def timed_call(inst, repeats):
    times, starts = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        starts = coq_engine.simulate_coq(inst, work_limit=10**12, time_limit=3600)
        times.append(time.perf_counter() - started)
    return statistics.median(times), [starts[r.id] for r in inst.requests]


def fmt(seconds: float | None, timeout: float) -> str:
    return f"> {timeout:g}" if seconds is None else f"{seconds:.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300,2000,20000")
    parser.add_argument("--workloads", default="chat,trace")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before-repeats", type=int, default=3)
    parser.add_argument("--before-timeout", type=float, default=300.0)
    parser.add_argument("--no-before", action="store_true", help="skip the base commit's engine (its columns: -)")
    parser.add_argument("--trace", type=Path, default=default_trace_path(), help="the Azure conversation trace")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    built = coq_engine.build()
    if built.status != "ok" or not built.engine:
        print(f"the Coq engine did not build: {built.message}", file=sys.stderr)
        return 1
    after = str(Path(built.directory) / coq_engine.BINARY)
    print(f"machine: {machine_summary()}; coqc {built.coqc_version}; base {BASE}")
    print(f"command: python benchmarks/bench_coq_engine.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    header = ("| workload | n | M | Python (s) | before (s) | after, process (s) | after, simulate_coq (s) | "
              "after / Python | before / Python | CPU s: Python, before, after | after / Python, CPU | same starts "
              "| load before row |")
    with tempfile.TemporaryDirectory(prefix="geosched-bench-coq-") as tmp:
        before = None if args.no_before else str(build_before(Path(tmp)))
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for workload, inst in instances(args.workloads.split(","), sizes, args.trace):
            load = os.getloadavg()
            lengths = [(r.prompt, r.output) for r in inst.requests]
            text = coq_engine._encode([(inst.memory, lengths, ())])
            python_s, python_cpu, python_starts = timed_python(inst, args.repeats)
            after_s, after_cpu, after_out = median_runs([after, "--starts-only"], text, args.repeats, 3600)
            call_s, call_starts = timed_call(inst, args.repeats)
            before_s, before_cpu, before_out = (None, 0.0, "") if before is None else \
                median_runs([before], text, args.before_repeats, args.before_timeout)
            same = starts_of(after_out) == python_starts == call_starts and \
                (before_s is None or starts_of(before_out) == python_starts)
            ratio_before = ("-" if before is None else f"> {args.before_timeout / python_s:.0f}" if before_s is None
                            else f"{before_s / python_s:.1f}")
            shown = "-" if before is None else fmt(before_s, args.before_timeout)
            print(f"| {workload} | {inst.n} | {inst.memory} | {python_s:.3f} | {shown} | "
                  f"{after_s:.3f} | {call_s:.3f} | {after_s / python_s:.2f} | "
                  f"{ratio_before} | {python_cpu:.3f}, {before_cpu:.2f}, {after_cpu:.3f} | "
                  f"{after_cpu / max(python_cpu, 1e-9):.2f} | {'yes' if same else 'NO'} | "
                  f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
