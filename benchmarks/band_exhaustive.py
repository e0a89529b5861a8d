"""Exhaustive small-n search in an alpha band (issue 32, item 1): SVF's largest ratio to the exact optimum.

Every burst instance of the box ``n <= N, 0 <= s <= S, 1 <= o <= O, M <= MAXM`` whose alpha = max(s + o)/M
lies in ``(LO, HI]`` is simulated (SVF, every order of tied volumes: the worst tie order counts) and solved
exactly (``verify.exhaustive``'s DP optimum); the largest TEL(SVF)/OPT and its instance are printed, both
schedules re-checked by the independent checker. Usage::

    python benchmarks/band_exhaustive.py LO HI N S O MAXM [MAX_SECONDS]
    python benchmarks/band_exhaustive.py 3/4 17/20 3 6 4 12 60
"""

from __future__ import annotations

import json
import sys
import time
from fractions import Fraction

from geosched.verify.exhaustive import Space, run_exhaustive


def main(argv: list[str]) -> int:
    lo, hi = Fraction(argv[0]), Fraction(argv[1])
    n, s, o, m = (int(v) for v in argv[2:6])
    max_seconds = float(argv[6]) if len(argv) > 6 else None
    space = Space(max_n=n, max_prompt=s, max_output=o, max_memory=m, alpha_band=(lo, hi))
    t0 = time.perf_counter()
    result = run_exhaustive(space, arrival_space=None, variants=("svf",), opt_method="dp", max_seconds=max_seconds)
    wall = time.perf_counter() - t0
    vs = result.to_dict()["variants"]["svf"]
    best = vs["max_ratio"]
    print(json.dumps({"box": space.label, "status": result.status, "message": result.message,
                      "wall_s": round(wall, 1), "instances": vs.get("instances"), "orderings": vs.get("orderings"),
                      "max_ratio": best and {k: best[k] for k in ("fraction", "value", "instance", "policy_tel",
                                                                  "opt_tel", "checker_confirmed")}}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
