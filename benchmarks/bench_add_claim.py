"""Adding a claim, to a green suite: how long (issue 47, item 2).

In a copy of the repository (tests/test_one_file_additions.py's ``RepoCopy``: the package sources, the
tests, the docs, every process importing the copy), this writes the one file of a new sympy-proved claim
(the test's ``theory/growth_sum.py``), runs the row (``geosched claims --quick --claim ours.growth_sum``),
then the suites over every row that must see it, whole files, without the slow marker: the ledger's,
the theory's, the hypotheses', the docs' comparisons (claims.md, proved.md, theory.md, the default record)
and the new module's doctest. No trace and no ledger run are needed: a row the pages do not show yet is
announced as added after the recorded run. Reported: wall seconds and CPU seconds (this process's children:
every command and pytest run), the load average before and after, and the files the addition touched.

    python benchmarks/bench_add_claim.py [--root CHECKOUT]

``--root`` measures another checkout (a worktree of an older commit: its own tests and copy helper; there a
suite that compares the pages with the ledger fails until a ledger run regenerates them).
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402

SUITES = ("tests/test_ledger.py", "tests/test_theory.py", "tests/test_hypotheses.py", "tests/test_docs_claims.py",
          "tests/test_docs_tables.py", "tests/test_doctests.py::test_doctests[geosched.theory.growth_sum]")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(ROOT), help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.root).resolve() / "tests"))
    additions = importlib.import_module("test_one_file_additions")  # the checkout's own copy helper and claim
    print(f"checkout {args.root}; machine: {machine_summary()}; load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        copy = additions.RepoCopy(Path(folder))
        began, cpu = time.perf_counter(), _children_cpu()
        copy.add(additions.ADDED["claim"], additions.CLAIM)
        run = copy.geosched("claims", "--quick", "--claim", "ours.growth_sum")
        assert run.returncode == 0 and "proved" in run.stdout, run.stdout + run.stderr
        out = copy.python("-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-rf", "-m", "not slow",
                          *SUITES)
        wall, used = time.perf_counter() - began, _children_cpu() - cpu
        summary = out.stdout.strip().splitlines()[-1]
        announced = out.stdout.count("ours.growth_sum: added after the recorded run")
        failed = [line.split()[1] for line in out.stdout.splitlines() if line.startswith("FAILED ")]
        print(f"pytest: {summary} (exit {out.returncode}); failed: {failed or 'none'}; 'added after the recorded "
              f"run' announced {announced} times; files touched: {copy.touched()}")
    print(f"add a claim, run it and its suites: {wall:.1f} s wall, {used:.1f} s CPU; load after: {os.getloadavg()}")
    return 0 if out.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
