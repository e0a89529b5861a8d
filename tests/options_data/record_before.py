"""How golden_before.json and the two checkpoints here were made, with the code BEFORE the options
objects (commit dbb050280929ad15738f398ff8bc29b7c0ea897e): ``python record_before.py WORKDIR``.

tests/test_options.py compares today's searches and hunts with these results (same seeds, the
evaluation-counted modes, which are functions of the seed alone) and resumes the checkpoints.
"""
import json
import math
import shutil
import sys
from pathlib import Path

from geosched.adversary import rounds as rounds_mod
from geosched.adversary.hunt import hunt
from geosched.adversary.search import SearchSpace, anneal, differential_evolution_search
from geosched.adversary.structured import structured_search

out = {}


def summ(res):
    return {"fun": repr(res.fun), "nfev": res.nfev, "nit": res.nit, "status": res.status,
            "x": res.x.to_dict() if res.x is not None else None,
            "elite": [[c.a.tolist(), c.s.tolist(), c.o.tolist(), repr(c.score)] for c in res.elite]}

sp = SearchSpace("sjf", max_requests=6, memory=12)
out["anneal"] = summ(anneal(sp, time_limit=math.inf, max_evals=300, rng=3, cycle_evals=40))
out["de"] = summ(differential_evolution_search(sp, time_limit=math.inf, max_evals=200, rng=1, popsize=5))
sps = SearchSpace("svf", max_requests=30, memory=20)
out["structured"] = summ(structured_search(sps, time_limit=math.inf, max_evals=300, rng=2, cycle_evals=50,
                                           ties="robust", max_groups=3))
work = Path(sys.argv[1])
shutil.rmtree(work, ignore_errors=True)
work.mkdir()


KEPT = ("search_best", "certified", "nfev", "nit", "message", "status")


def hsumm(r):
    return {"fun": repr(r.fun), "nfev": r.nfev, "status": r.status, "message": r.message,
            "x": r.x.to_dict(), "methods": {m: {k: v for k, v in i.items() if k in KEPT} for m, i in r.methods.items()}}
h1 = hunt(SearchSpace("sjf", max_requests=5, memory=12), method="anneal", rounds=2, restarts=2, evals=60, seed=1,
          out=work / "h_anneal", progress=False, certify_budget=60.0)
out["hunt_anneal_rounds"] = hsumm(h1)
h2 = hunt(SearchSpace("svf", max_requests=8, memory=12), method="structured", rounds=2, restarts=2, evals=60, seed=4,
          ties="robust", out=work / "h_struct", progress=False, certify_budget=60.0)
out["hunt_structured_rounds"] = hsumm(h2)
# an old checkpoint killed in round 2 (rounds_done = 1)
real = rounds_mod.restart_job
def dies(job):
    if job[3] == 1:
        raise KeyboardInterrupt
    return real(job)
rounds_mod.restart_job = dies
try:
    hunt(SearchSpace("sjf", max_requests=5, memory=12), method="anneal", rounds=2, restarts=2, evals=60, seed=1,
         out=work / "h_killed", progress=False, certify_budget=60.0)
except KeyboardInterrupt:
    pass
rounds_mod.restart_job = real
# an old time-limited checkpoint (anneal + de)
hunt(SearchSpace("sjf", max_requests=5, memory=12), method="all", time_limit=1.0, seed=7, out=work / "h_timed",
     progress=False, certify_budget=0.3)
json.dump(out, open(work / "golden.json", "w"), indent=1)
print(json.dumps({k: v["fun"] for k, v in out.items()}))
