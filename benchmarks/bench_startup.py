"""Command start-up: building the CLI parser (`geosched --help`) against loading every package eagerly.

Each measurement is a fresh interpreter (what a user pays per command), timed from this
process; the baseline, in the same run, imports what building the parser used to import
before the packages' exports became lazy (the adversary's search with numba, every
derivation with sympy), then builds the parser. Median of ``--repeats`` runs each, the load
average before and after.

    python benchmarks/bench_startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _machine import machine_summary  # noqa: E402

CASES = {
    "python -c pass (interpreter alone)": "pass",
    "geosched --help (lazy exports)": "import sys; sys.argv = ['geosched', '--help']\n"
                                      "from geosched.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass",
    "baseline: eager imports, then the parser": "import geosched.adversary.search, geosched.theory.registry\n"
                                                "from geosched.cli import build_parser\nbuild_parser()",
}


def wall(code: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"machine: {machine_summary()}; load before: {os.getloadavg()}")
    for code in CASES.values():  # warm the file cache and numba's on-disk cache once
        wall(code)
    medians = {}
    print("| case | median (s) | runs (s) |")
    print("|---|---|---|")
    for name, code in CASES.items():
        runs = [wall(code) for _ in range(args.repeats)]
        medians[name] = statistics.median(runs)
        print(f"| {name} | {medians[name]:.3f} | {', '.join(f'{r:.2f}' for r in runs)} |")
    lazy, eager = medians["geosched --help (lazy exports)"], medians["baseline: eager imports, then the parser"]
    print(f"eager / lazy: {eager / lazy:.1f}x; load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
