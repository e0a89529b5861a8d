"""The first hour of a new user, measured in one command, side by side with a baseline checkout (issue 44).

For each code (the baseline checkout, then this one; each with its own ``.venv``) it runs, in fresh processes:

* ``fresh``: ``geosched claims`` as on a fresh clone: empty Coq build cache, numba cache and bytecode cache
  (``GEOSCHED_COQ_CACHE``, ``NUMBA_CACHE_DIR``, ``PYTHONPYCACHEPREFIX`` point to new folders), every line of
  stdout and stderr time-stamped: the time of the first finished row, the whole wall time, the CPU seconds;
* ``quick`` and ``default``: ``geosched claims --quick`` and ``geosched claims`` with the caches warm: CPU seconds
  and wall, and every row's word and reach, compared code against code (no word may weaken);
* ``million``: ``geosched simulate`` and ``geosched check`` of 10^6 requests (files made once, by the new code);
* ``limits``: ``geosched opt burst:n=20,seed=1 --time-limit 60``, ``geosched hunt --time 60`` and
  ``geosched prove kong.thm3.2``: wall against the limit asked for.

``--burner N`` runs N busy-loop processes beside everything (the "beside a 2-process CPU burner" target); the
load average is recorded before and after each run. CPU seconds are the child's own (``os.wait4``: the process
and the children it waited for), meaningful under load; wall times are not, unless the machine is quiet.

Usage (the lead's re-measurement on a quiet machine: the whole set, then the fresh run beside a burner)::

    .venv/bin/python benchmarks/bench_first_hour.py --baseline /work/base --out /tmp/first-hour
    .venv/bin/python benchmarks/bench_first_hour.py --baseline /work/base --only fresh --burner 2 --out /tmp/fh-burn

It writes ``OUT/results.json`` (every figure), ``OUT/<code>-<run>.log`` (the time-stamped lines) and prints a
Markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = ("fresh", "quick", "default", "million", "limits")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def timed(command: list[str], cwd: Path, env: dict[str, str], log: Path, timeout: float = 7200.0) -> dict:
    """Run ``command``; every output line with its second since the start into ``log``; wall, CPU, load, the
    second of the first stdout line that is a ledger row (``ROW_START``), the exit status and stdout."""
    began, lines, lock = time.perf_counter(), [], threading.Lock()
    load_before = _load()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               bufsize=1)

    def pump(stream, name):
        for line in stream:
            with lock:
                lines.append((time.perf_counter() - began, name, line.rstrip("\n")))

    readers = [threading.Thread(target=pump, args=(s, n), daemon=True)
               for s, n in ((process.stdout, "out"), (process.stderr, "err"))]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    _, status, usage = os.wait4(process.pid, 0)
    timer.cancel()
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join()
    log.write_text("".join(f"{t:8.1f} {n} {text}\n" for t, n, text in lines))
    rows = [t for t, n, text in lines if n == "out" and _is_row(text)]
    return {"command": " ".join(command), "wall": round(wall, 1), "cpu": round(usage.ru_utime + usage.ru_stime, 1),
            "load_before": load_before, "load_after": _load(), "exit": process.returncode,
            "first_row": round(rows[0], 1) if rows else None,
            "first_lines": [f"{t:.1f} s {n}: {text[:150]}" for t, n, text in lines[:6]],
            "stdout": "\n".join(text for _, n, text in lines if n == "out")}


def _is_row(text: str) -> bool:
    """A ledger table row: an id with a dot, then a status word (not the head, the rule or a wrapped line)."""
    words = text.split()
    return len(words) > 2 and "." in words[0] and not text.startswith(" ") and words[0] not in ("id", "claim")


def _env(fresh_root: Path | None) -> dict[str, str]:
    env = dict(os.environ, COLUMNS="200", GEOSCHED_PROGRESS_SECONDS="10")
    if fresh_root is not None:
        env.update(GEOSCHED_COQ_CACHE=str(fresh_root / "coq"), NUMBA_CACHE_DIR=str(fresh_root / "numba"),
                   PYTHONPYCACHEPREFIX=str(fresh_root / "pyc"))
    return env


def _geosched(code: Path) -> str:
    return str(code / ".venv" / "bin" / "geosched")


def words(run: dict) -> dict[str, tuple[str, str]]:
    """Row id -> (status, reach) of a ``--json`` run's stdout."""
    data = json.loads(run["stdout"])
    return {c["id"]: (c["status"], c.get("reach", "")) for c in data["claims"]}


def run_all(codes: dict[str, Path], only: tuple[str, ...], out: Path, million_dir: Path) -> dict:
    results: dict = {name: {} for name in codes}
    for run in only:
        for name, code in codes.items():  # the codes alternate within each run: the same load for both
            results[name].update(_one(run, name, code, out, million_dir))
    for mode in ("quick", "default"):
        if mode in only and len(codes) == 2:
            (a, ra), (b, rb) = [(name, results[name]) for name in codes]
            wa, wb = words(ra[f"{mode}-json"]), words(rb[f"{mode}-json"])
            results.setdefault("words_compared", {})[mode] = {
                "rows": len(wb), "differ": {k: {a: wa.get(k), b: wb.get(k)} for k in sorted(set(wa) | set(wb))
                                            if wa.get(k) != wb.get(k)}}
    return results


def _one(run: str, name: str, code: Path, out: Path, million_dir: Path) -> dict:
    geosched = _geosched(code)
    log = lambda label: out / f"{name}-{label}.log"  # noqa: E731
    if run == "fresh":
        with tempfile.TemporaryDirectory(prefix="geosched-fresh-") as fresh:
            return {"fresh": timed([geosched, "claims"], code, _env(Path(fresh)), log("fresh"))}
    if run in ("quick", "default"):
        flag = ["--quick"] if run == "quick" else []
        return {run: timed([geosched, "claims", *flag], code, _env(None), log(run)),
                f"{run}-json": timed([geosched, "claims", *flag, "--json", "--quiet"], code, _env(None),
                                     log(f"{run}-json"))}
    if run == "million":
        instance, schedule = make_million(million_dir)
        return {"simulate-1e6": timed([geosched, "simulate", str(instance), "--policy", "svf"], code, _env(None),
                                      log("simulate")),
                "check-1e6": timed([geosched, "check", str(instance), str(schedule)], code, _env(None),
                                   log("check"))}
    with tempfile.TemporaryDirectory(prefix="geosched-limits-") as tmp:
        return {"opt-60": timed([geosched, "opt", "burst:n=20,seed=1", "--time-limit", "60"], code, _env(None),
                                log("opt")),
                "hunt-60": timed([geosched, "hunt", "--policy", "svf", "--time", "60", "--out", f"{tmp}/hunt",
                                  "--quiet"], code, _env(None), log("hunt")),
                "prove": timed([geosched, "prove", "kong.thm3.2"], code, _env(None), log("prove"))}


def make_million(directory: Path) -> tuple[Path, Path]:
    """A burst of 10^6 requests (seed 1) in write_instance's layout and its SVF schedule (bench_million's files,
    made once by this checkout's code)."""
    from bench_million import prepare

    directory.mkdir(parents=True, exist_ok=True)
    return prepare(directory, 10**6)


def table(results: dict) -> str:
    names = [n for n in results if n not in ("words_compared", "setup")]
    keys = [k for k in results[names[0]] if not k.endswith("-json")]
    lines = ["| run | " + " | ".join(f"{n}: wall s / CPU s / first row s / load" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    for key in keys:
        cells = []
        for n in names:
            r = results[n].get(key)
            cells.append("-" if r is None else f"{r['wall']} / {r['cpu']} / {r['first_row'] or '-'} / "
                                               f"{r['load_before']} -> {r['load_after']}")
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    for mode, compared in results.get("words_compared", {}).items():
        lines.append(f"\n{mode}: {compared['rows']} rows, {len(compared['differ'])} with another word or reach "
                     f"{json.dumps(compared['differ'])[:2000]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, default=None, help="a checkout of the previous commit with .venv")
    parser.add_argument("--only", default=",".join(RUNS), help=f"comma-separated subset of {','.join(RUNS)}")
    parser.add_argument("--burner", type=int, default=0, metavar="N", help="N busy-loop processes beside the runs")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--million-dir", type=Path, default=Path(tempfile.gettempdir()) / "geosched-million-1e6")
    args = parser.parse_args(argv)
    only = tuple(x for x in args.only.split(",") if x)
    unknown = [x for x in only if x not in RUNS]
    if unknown:
        parser.error(f"--only: unknown run {unknown[0]!r}; choose from {', '.join(RUNS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    codes = {"baseline": args.baseline.resolve()} if args.baseline else {}
    codes["this"] = ROOT
    if "million" in only:
        make_million(args.million_dir)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burner)]
    try:
        results = run_all(codes, only, args.out, args.million_dir)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    results["setup"] = {"burner": args.burner, "codes": {k: str(v) for k, v in codes.items()},
                        "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    for name in codes:
        for r in results[name].values():
            r.pop("stdout", None)
    (args.out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
