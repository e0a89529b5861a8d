"""The Coq build's CPU and wall time, from clean, for one or more checkouts: ``python benchmarks/bench_coq_build.py``.

Each checkout is built with its own ``.venv`` (``python -m geosched.verify.coq_engine --force``) into a fresh
temporary build cache, one after the other; the CPU seconds are those of the process and all its children
(``getrusage``), the load is ``os.getloadavg()`` before and after. With ``--stdlib-known`` the cache starts with the
record of this machine's earlier ``coqchk`` of the standard library (what a second build on the same machine finds;
the checkouts that do not use it ignore it). A manifest that records its steps (issue 44's build) is broken down
into the CPU of the files, of the statements scripts (``Check``, ``Print Assumptions``, ``Print``), of ``coqchk``
and of the extraction.

Example::

    python benchmarks/bench_coq_build.py /work/base . --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _breakdown(manifest: dict) -> dict[str, float]:
    steps = manifest.get("steps") or {}
    files = manifest.get("files") or {}
    parts = {"files (coqc)": sum(step["cpu_seconds"] for name, step in steps.items() if name in files),
             "statements scripts": sum(s["cpu_seconds"] for n, s in steps.items() if n.startswith("statements")),
             "coqchk (development)": steps.get("coqchk", {}).get("cpu_seconds", 0.0),
             "extraction + ocamlopt": steps.get("extraction", {}).get("cpu_seconds", 0.0),
             "coqchk (standard library)": (manifest.get("stdlib") or {}).get("cpu_seconds", 0.0)}
    return {k: round(v, 1) for k, v in parts.items()} if steps else {}


def measure(checkout: Path, stdlib_from: Path | None) -> dict:
    """Build ``checkout`` from clean into a temporary cache; its CPU, wall, load and the manifest's breakdown."""
    python = checkout / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix="geosched-bench-coq-") as cache:
        if stdlib_from is not None:
            for record in stdlib_from.glob("stdlib-*.json"):
                shutil.copy(record, Path(cache) / record.name)
        env = {**os.environ, "GEOSCHED_COQ_CACHE": cache}
        load_before = os.getloadavg()
        cpu_before, began = _children_cpu(), time.perf_counter()
        done = subprocess.run([str(python), "-m", "geosched.verify.coq_engine", "--force"], cwd=checkout, env=env,
                              capture_output=True, text=True, check=False)
        wall, cpu = time.perf_counter() - began, _children_cpu() - cpu_before
        manifests = sorted(Path(cache).glob("*/build.json"))
        manifest = json.loads(manifests[0].read_text()) if manifests else {}
    return {"checkout": str(checkout), "commit": _commit(checkout), "status": done.stdout.split(":", 1)[0],
            "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1), "load_before": load_before,
            "load_after": os.getloadavg(), "stdlib_known": stdlib_from is not None,
            "files": len(manifest.get("files") or {}) or None, "breakdown": _breakdown(manifest),
            "jobs": os.environ.get("GEOSCHED_COQ_JOBS", "cores"), "message": done.stdout.splitlines()[0][:200]
            if done.stdout else done.stderr[-200:]}


def _commit(checkout: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True,
                          check=False)
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="checkouts to build, each with its .venv")
    parser.add_argument("--stdlib-known", type=Path, default=None,
                        help="a build cache folder whose stdlib-*.json records to start from")
    parser.add_argument("--json", type=Path, default=None, help="write the measures here too")
    args = parser.parse_args(argv)
    results = [measure(c.resolve(), args.stdlib_known) for c in args.checkouts]
    record = {"machine": f"{platform.node()} ({os.cpu_count()} cores)", "python": platform.python_version(),
              "results": results}
    print(json.dumps(record, indent=1))
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
