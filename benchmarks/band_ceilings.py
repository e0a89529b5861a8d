"""Z3 ceilings of SVF's ratio per alpha band at small n (issue 43, item 3): bisection between a certified ratio
(a ``sat`` answer, re-simulated and re-checked) and a proved ceiling (an ``unsat`` answer over every burst of
exactly n requests within the band's bounds and every order of tied volumes: the positions are free).

Every query is :func:`geosched.verify.z3ceiling.ceiling_query` limited by Z3's own work units (``rlimit``), never
by the clock, so what is proved does not depend on the machine's load; ``--max-wall`` only stops the run between
queries (the results so far are kept: the JSON file is rewritten atomically after every query, and a second run
with the same file continues where it stopped). Usage::

    nice -n 10 python benchmarks/band_ceilings.py OUT.json [--rlimit 400000000] [--max-n 8] [--steps 5]
        [--max-wall 3600] [--bands 0-1/4,1/4-1/2,1/2-3/4,3/4-11/12]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

from geosched.verify.z3ceiling import BurstBounds, ceiling_query

# per band: (alpha_min, alpha_max, M range, largest prompt, largest output); with M <= 12, alpha <= 11/12 is
# exactly P < M (the band (3/4, 1) of the ratio curve: alpha = 1 is outside Thm. 3.2)
BANDS = {
    "0-1/4": ("0", "1/4", (4, 16), 3, 4),
    "1/4-1/2": ("1/4", "1/2", (2, 12), 4, 5),
    "1/2-3/4": ("1/2", "3/4", (2, 12), 8, 4),
    "3/4-11/12": ("3/4", "11/12", (2, 12), 10, 4),
}
START = Fraction(2)  # the first ratio asked at each n


def _bounds(band: str, n: int) -> BurstBounds:
    lo, hi, memory, prompt, output = BANDS[band]
    return BurstBounds(n=n, memory=memory, max_prompt=prompt, max_output=output, alpha_max=hi, alpha_min=lo)


def _write(path: Path, data: dict) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def _bisect(band: str, n: int, entry: dict, args: argparse.Namespace, save, deadline: float) -> None:
    """Bisection at one n: ``certified`` (best sat ratio) and ``proved`` (least unsat ratio) narrow step by step."""
    while len(entry["queries"]) < args.steps and time.time() < deadline:
        lo = Fraction(entry["certified"]) if entry["certified"] else Fraction(1)
        hi = Fraction(entry["proved"]) if entry["proved"] else None
        if hi is not None and hi - lo < Fraction(1, 100):
            return
        ratio = START if hi is None and not entry["queries"] else (
            (lo + hi) / 2 if hi is not None else lo * 2).limit_denominator(200)
        began = time.time()
        answer = ceiling_query(_bounds(band, n), ratio, rlimit=args.rlimit)
        entry["queries"].append({"ratio": str(ratio), "status": answer.status, "units": answer.resources,
                                 "wall_s": round(time.time() - began, 1), "load": os.getloadavg()[0]})
        if answer.status == "unsat":
            entry["proved"] = str(ratio)
        elif answer.status == "sat":
            found = Fraction(answer.witness["ratio"])
            entry["certified"] = str(max(found, lo))
            entry["witness"] = answer.witness if found >= lo else entry.get("witness")
        else:
            entry["stopped"] = f"unknown at r = {ratio} (rlimit {args.rlimit})"
            save()
            return
        save()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--rlimit", type=int, default=400_000_000)
    parser.add_argument("--max-n", type=int, default=8)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--max-wall", type=float, default=3600.0)
    parser.add_argument("--bands", default=",".join(BANDS))
    args = parser.parse_args(argv)
    path = Path(args.out)
    data = json.loads(path.read_text()) if path.exists() else {"rlimit": args.rlimit, "bands": {}}
    deadline = time.time() + args.max_wall
    bands = args.bands.split(",")
    for band in bands:
        data["bands"].setdefault(band, {"bounds": [*BANDS[band][:2], list(BANDS[band][2]), *BANDS[band][3:]],
                                        "n": {}})
    for n in range(2, args.max_n + 1):  # every band one n at a time, so that a short run covers them all
        for band in bands:
            per_n = data["bands"][band]["n"]
            if any(e.get("stopped") for e in per_n.values()) or time.time() >= deadline:
                continue
            entry = per_n.setdefault(str(n), {"certified": None, "proved": None, "queries": []})
            _bisect(band, n, entry, args, lambda: _write(path, data), deadline)
            _write(path, data)
    _write(path, data)
    print(json.dumps({band: {n: (e["certified"], e["proved"]) for n, e in v["n"].items()}
                      for band, v in data["bands"].items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
