"""Scale-out (geosched.executor): a Dask LocalCluster returns exactly the serial result.

(Not the serving simulator of tests/test_cluster.py.)

Equality is checked on the JSON a user gets (``to_dict()`` / the files written), with only the
timing fields removed (wall times differ between any two runs, serial or not). The Dask tests
need the extra ``geosched[cluster]`` (CI installs it: ci/setup.sh) and skip without it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from geosched.errors import ValidationError
from geosched.executor import ClusterUnavailableError, SerialExecutor, make_executor, parse_spec
from geosched.verify import exhaustive as ex

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the dev-only mutation tooling

SPACE = ex.Space(max_n=3, max_prompt=2, max_output=3, max_memory=9)  # 1364 instances, 219 cells
ARRIVALS = ex.Space(max_n=2, max_prompt=1, max_output=2, max_memory=4, max_arrival=2)
TIMING = {"wall_time", "evaluations_per_second", "elapsed", "seconds"}


def _untimed(data):
    """``data`` without its timing fields (recursively): what must be equal bit for bit."""
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def _json(result) -> str:
    return json.dumps(_untimed(result.to_dict()), sort_keys=True, default=str)


@pytest.fixture(scope="module")
def local2():
    pytest.importorskip("distributed")
    with make_executor("local:2") as pool:
        yield pool


# ------------------------------------------------------------------ the interface without Dask


def test_specs_are_parsed_and_a_bad_one_names_the_flag():
    assert parse_spec("serial") == ("serial", None) and parse_spec("local:3") == ("local", 3)
    assert parse_spec("tcp://sched.example:8786") == ("tcp", "tcp://sched.example:8786")
    for bad in ("local:0", "local:", "local:two", "udp://h:1", "tcp://h", "tcp://h:70000", "dask"):
        with pytest.raises(ValidationError, match="--cluster"):
            parse_spec(bad)


def test_a_missing_dask_is_a_one_line_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ClusterUnavailableError, match=r"geosched\[cluster\]"):
        make_executor("local:2")
    assert isinstance(make_executor("serial"), SerialExecutor)  # serial never needs it


def test_cli_rejects_a_bad_cluster_spec_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "geosched", "hunt", "--policy", "sjf", "--cluster", "local:zero",
                           "--out", str(tmp_path / "h")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "--cluster" in proc.stderr and "local:zero" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "h").exists()


def test_a_time_limited_hunt_refuses_a_cluster(tmp_path):
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace

    with pytest.raises(ValidationError, match="--rounds"):
        hunt(SearchSpace("sjf", max_requests=4, memory=12), method="anneal", executor="local:2", out=tmp_path / "h")


def test_rounds_resume_after_a_killed_client_equals_an_unbroken_run():
    from geosched.adversary.rounds import run_rounds
    from geosched.adversary.search import SearchSpace

    space = SearchSpace("sjf", max_requests=5, memory=12)
    settings = {"rounds": 3, "restarts": 2, "evals": 40, "seed": 5}
    unbroken = run_rounds(space, "anneal", **settings)
    saved = []

    def save_then_die(state):
        saved.append(json.loads(json.dumps(state)))  # what the checkpoint file holds
        if len(saved) == 2:
            raise KeyboardInterrupt  # the client is killed after round 2's checkpoint

    with pytest.raises(KeyboardInterrupt):
        run_rounds(space, "anneal", save=save_then_die, **settings)
    resumed = run_rounds(space, "anneal", state=saved[-1], **settings)
    assert saved[-1]["rounds_done"] == 2
    def untimed(state):  # history rows are (wall time, best, evaluations)
        return {**_untimed(state), "history": [row[1:] for row in state["history"]]}

    assert untimed(resumed.state) == untimed(unbroken.state)
    assert [c.to_dict() for c in resumed.elite] == [c.to_dict() for c in unbroken.elite]


def test_a_hunt_killed_in_round_3_resumes_from_its_round_checkpoint(tmp_path, monkeypatch):
    from geosched.adversary import rounds
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace

    space = SearchSpace("sjf", max_requests=5, memory=12)
    kwargs = {"method": "anneal", "rounds": 3, "restarts": 2, "evals": 50, "seed": 2, "progress": False,
              "certify_budget": 60.0}
    unbroken = hunt(space, out=tmp_path / "a", **kwargs)
    real = rounds.restart_job

    def dies_in_round_3(job):
        if job[3] == 2:  # (space, method, seed, round, ...): the client is killed in the third round
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(rounds, "restart_job", dies_in_round_3)
    with pytest.raises(KeyboardInterrupt):
        hunt(space, out=tmp_path / "b", **kwargs)
    saved = json.loads((tmp_path / "b" / "checkpoint.json").read_text())
    assert saved["methods"]["anneal"]["rounds_done"] == 2 and not (tmp_path / "b" / "summary.json").exists()
    monkeypatch.undo()
    resumed = hunt(space, out=tmp_path / "b", resume=True, **kwargs)
    assert _json(resumed).replace(str(tmp_path / "b"), "OUT") == _json(unbroken).replace(str(tmp_path / "a"), "OUT")


def test_a_forged_or_broken_rounds_checkpoint_is_rescored_or_refused(tmp_path):
    from geosched.adversary.hunt import hunt
    from geosched.adversary.rounds import checked_rounds_state
    from geosched.adversary.search import Candidate, SearchSpace, fitness
    from geosched.errors import WorkloadFormatError

    space = SearchSpace("sjf", max_requests=4, memory=12)
    hunt(space, method="anneal", rounds=1, restarts=2, evals=30, seed=1, out=tmp_path / "h", progress=False,
         certify_budget=60.0)
    entry = json.loads((tmp_path / "h" / "checkpoint.json").read_text())["methods"]["anneal"]
    point = entry["elite"][0][1]
    truth = fitness(space, Candidate.from_dict(point))  # recomputed independently of the saved score
    forged = {**entry, "elite": [[99.0, point]] + entry["elite"][1:]}
    checked = checked_rounds_state(space, forged, "ck")
    assert truth in [score for score, _ in checked["elite"]] and all(score < 99.0 for score, _ in checked["elite"])
    for broken, field in (({**entry, "nfev": -1}, "nfev"),
                          ({**entry, "elite": [[1.0, {"a": [0], "s": [0]}]]}, "elite"),
                          ({**entry, "elite": [[1.0, {"a": [0], "s": [9], "o": [9]}]]}, "elite")):
        with pytest.raises(WorkloadFormatError, match=field):
            checked_rounds_state(space, broken, "ck")
    checkpoint = json.loads((tmp_path / "h" / "checkpoint.json").read_text())
    checkpoint["methods"]["anneal"]["rounds_done"] = "two"
    (tmp_path / "h" / "checkpoint.json").write_text(json.dumps(checkpoint))
    argv = ("hunt --policy sjf --requests 4 --memory 12 --method anneal --rounds 1 --restarts 2 --evals 30 --seed 1 "
            "--resume --quiet --out").split() + [str(tmp_path / "h")]
    proc = subprocess.run([sys.executable, "-m", "geosched", *argv], capture_output=True, text=True)
    assert proc.returncode == 2 and "rounds_done" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ serial against local:2, bit for bit


@pytest.mark.slow
def test_exhaustive_on_local2_equals_serial_bit_for_bit(local2, tmp_path):
    kwargs = {"arrival_space": ARRIVALS, "opt_method": "dp", "cross_check": 7, "chunk_size": 20}
    runs = {}
    for name, executor in (("serial", None), ("dask", local2)):
        out = tmp_path / name
        result = ex.run_exhaustive(SPACE, out=out, checkpoint=out / "ck.json", executor=executor, **kwargs)
        checkpoint = _untimed(ex.check_checkpoint(out / "ck.json"))
        runs[name] = (_json(result).replace(str(out), "OUT"), json.dumps(checkpoint, sort_keys=True), result)
    serial = runs["serial"][2]
    assert serial.complete and serial.instances == ex.count_instances(SPACE) == 1364
    assert runs["serial"][:2] == runs["dask"][:2]


@pytest.mark.slow
def test_montecarlo_on_local2_equals_serial_bit_for_bit(local2):
    from geosched.verify.montecarlo import run_montecarlo

    kwargs = {"grid": ((0.2, 0.5), (0.35, 0.9)), "n": 10, "replications": 24, "memory": 12, "alpha_cap": 0.5,
              "s_min": 0, "s_max": 3, "seed": 4, "n_boot": 200, "opt": "exact", "outside": ((0.35, 2.0),)}
    serial = run_montecarlo(**kwargs)
    dask = run_montecarlo(executor=local2, **kwargs)
    assert serial.samples == 72
    assert _json(serial) == _json(dask)


@pytest.mark.slow
def test_a_short_hunt_on_local2_equals_serial_bit_for_bit(local2, tmp_path):
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace

    space = SearchSpace("sjf", max_requests=5, memory=12)
    runs = {}
    for name, executor in (("serial", None), ("dask", local2)):
        result = hunt(space, method="anneal", rounds=2, restarts=4, evals=120, seed=3, out=tmp_path / name,
                      progress=False, certify_budget=60.0, executor=executor)
        files = {p: json.loads((tmp_path / name / p).read_text()) for p in sorted(os.listdir(tmp_path / name))
                 if p.startswith(("witness_", "best_witness"))}
        runs[name] = (_json(result).replace(str(tmp_path / name), "OUT"), json.dumps(files, sort_keys=True))
        assert result.nfev >= 2 * 4 * 120 and len(files) == 4  # the budget was spent; 3 witnesses + the best
    assert runs["serial"] == runs["dask"]


@pytest.mark.slow
def test_claims_and_the_mutation_campaign_on_local2_equal_serial(local2, tmp_path):
    from mutations import MUTATIONS, run_campaign

    from geosched.verify.ledger import run_claims

    claims = {}
    for name, executor in (("serial", None), ("dask", local2)):
        result = run_claims(["kong.thm3.2", "kong.thm3.4"], mode="quick", out=tmp_path / name, executor=executor,
                            follow_dependencies=False)
        # the evidence the executor computes (the claims' reach also holds time-budgeted symbolic cores)
        chunked = [e for c in result.to_dict()["claims"] for e in c["evidence"]
                   if e["method"].startswith(("exhaustive:", "monte-carlo:"))]
        claims[name] = json.dumps(_untimed(chunked), sort_keys=True, default=str).replace(str(tmp_path / name), "OUT")
    assert claims["serial"] == claims["dask"] and '"exhaustive:thm3.2"' in claims["serial"]
    chosen = tuple(m for m in MUTATIONS if m.id == "impl-svf-key")
    serial = run_campaign(mutations=chosen)
    dask = run_campaign(mutations=chosen, executor=local2)
    untimed = [[(o.id, o.baseline, o.status, re.sub(r"geosched-mutant-out-[^/]+", "OUT", o.message), o.caught)
                for o in run] for run in (serial, dask)]  # a message may name the mutant's temporary folder
    assert untimed[0] == untimed[1] and [(o.id, o.caught) for o in dask] == [("impl-svf-key", True)]


# ------------------------------------------------------------------ faults


@pytest.mark.slow
def test_a_worker_killed_mid_run_loses_nothing(tmp_path):
    pytest.importorskip("distributed")
    kwargs = {"arrival_space": None, "opt_method": "dp", "chunk_size": 8}
    serial = ex.run_exhaustive(SPACE, **kwargs)
    killed = []
    with make_executor("local:2") as pool:
        pids = sorted(pool.client.run(os.getpid).values())

        def kill_one_worker(progress):
            if progress["chunks_done"] == 3 and not killed:
                os.kill(pids[0], signal.SIGKILL)  # a worker process dies with its running chunk
                killed.append(pids[0])

        dask = ex.run_exhaustive(SPACE, executor=pool, callback=kill_one_worker, **kwargs)
        time.sleep(0.5)
        after = sorted(pool.client.run(os.getpid).values())
    assert killed and killed[0] not in after  # the process really died (the nanny started another)
    assert dask.complete and dask.instances == serial.instances == 1364
    assert _json(dask) == _json(serial)
