"""Tests of geosched.adversary: the fast evaluator against the reference simulator, witness
files, the searches, the Z3 bisection against an independent brute force, the families'
closed forms, resume, and the CLI's errors."""

from __future__ import annotations

import functools
import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

from geosched.adversary.fast import fast_starts, ids_for, list_schedule, simulate_arrays
from geosched.adversary.witness import make_witness, read_witness, verify_witness, write_witness
from geosched.cli import main
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.simulation import simulate


def _random_instance(rng: np.random.Generator, burst: bool) -> Instance:
    n = int(rng.integers(1, 11))
    memory = int(rng.integers(3, 25))
    ids = [f"q{int(v)}" for v in rng.permutation(50)[:n]]  # ids whose order is not the index order
    reqs = []
    for rid in ids:
        s = int(rng.integers(0, memory))
        o = int(rng.integers(1, memory - s + 1))
        reqs.append(Request(rid, 0 if burst else int(rng.integers(0, 12)), s, o))
    return Instance(memory, reqs)


@pytest.mark.parametrize("burst", [True, False])
def test_fast_evaluator_equals_reference_simulator(burst):
    rng = np.random.default_rng(20240 + burst)
    for _ in range(250):
        inst = _random_instance(rng, burst)
        for policy in ("fcfs", "sjf", "svf", "svf1"):
            for backfill in (False, True):
                assert fast_starts(inst, policy, backfill=backfill) == simulate(inst, policy, backfill=backfill).starts


def test_hand_worked_example_and_list_schedule_feasible():
    # Kong et al.'s example: SVF starts (6,3) at 5, (1,5) at 0: TEL 8 + 5 = 13 (by hand)
    a, s, o = np.zeros(2, np.int64), np.array([6, 1]), np.array([3, 5])
    assert simulate_arrays("svf", a, s, o, 12).tolist() == [5, 0]
    rng = np.random.default_rng(3)
    for _ in range(200):
        inst = _random_instance(rng, burst=bool(rng.integers(2)))
        arr = [np.array([getattr(r, f) for r in inst.requests]) for f in ("arrival", "prompt", "output")]
        x = list_schedule(*arr, inst.memory, rng.permutation(inst.n))
        assert check_schedule(inst, {r.id: int(v) for r, v in zip(inst.requests, x)}).feasible


def test_ids_for_sort_like_indices():
    ids = ids_for(12)
    assert sorted(ids) == ids and ids[0] == "r00"


def _witness():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    # OPT by hand: r0 at 0 (ends 3), r1 at 1 (ends 6): step 3 holds 9 + 3 = 12 <= M; TEL 9
    return make_witness(inst, "svf", {"r0": 0, "r1": 1}, found_by="hand", seed=7)


def test_witness_round_trip_and_verification(tmp_path):
    w = _witness()
    assert (w.policy_tel, w.witness_tel) == (13, 9)
    path = write_witness(w, tmp_path / "w.json")
    data = read_witness(path)
    report = verify_witness(data)
    assert report.ok, report.problems
    assert report.certified_ratio == Fraction(13, 9)
    written = json.loads(path.read_text())
    assert set(written) == {
        "policy", "instance", "policy_schedule", "witness_schedule", "certified_ratio", "ratio_upper",
        "found_by", "seed", "tie_rule", "tie_check"}
    # keys differ (volumes 24 vs 20): reversing the tie order cannot change SVF's TEL 13
    assert written["tie_check"] == {"order": "reversed", "policy_tel": 13, "certified_ratio": 13 / 9,
                                    "depends_on_ties": False}
    assert report.depends_on_ties is False and "position" in report.tie_rule
    assert main(["check-witness", str(path)]) == 0


@pytest.mark.parametrize("tamper", ["witness_infeasible", "witness_tel", "policy_start", "ratio", "upper"])
def test_check_witness_rejects_tampering(tmp_path, tamper, capsys):
    data = _witness().to_dict()
    if tamper == "witness_infeasible":
        data["witness_schedule"]["starts"]["r1"] = 0  # step 3: 9 + 4 = 13 > 12
    elif tamper == "witness_tel":
        data["witness_schedule"]["tel"] = 8
    elif tamper == "policy_start":
        data["policy_schedule"]["starts"]["r0"] = 6
    elif tamper == "ratio":
        data["certified_ratio"] = 2.0
    else:
        data["ratio_upper"] = 13 / 10  # claims OPT >= 10 > TEL(S) = 9
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert not verify_witness(read_witness(path)).ok
    assert main(["check-witness", str(path)]) == 1
    assert "does not verify" in capsys.readouterr().err


def test_short_seeded_hunt_finds_certified_ratio_and_resumes(tmp_path):
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace

    space = SearchSpace("sjf", max_requests=12, memory=20, alpha_max=0.5)
    first = hunt(space, method="anneal", time_limit=4.0, seed=3, out=tmp_path, progress=False, certify_budget=1.0)
    assert first.fun > 1.0
    best = read_witness(tmp_path / "best_witness.json")
    report = verify_witness(best)
    assert report.ok, report.problems
    assert float(report.certified_ratio) == pytest.approx(first.fun)
    assert best["instance"].alpha <= Fraction(1, 2)
    ckpt = json.loads((tmp_path / "checkpoint.json").read_text())
    nfev_first = ckpt["methods"]["anneal"]["state"]["nfev"]
    second = hunt(space, method="anneal", time_limit=2.0, seed=3, out=tmp_path, resume=True, progress=False,
                  certify_budget=1.0)
    nfev_second = json.loads((tmp_path / "checkpoint.json").read_text())["methods"]["anneal"]["state"]["nfev"]
    assert nfev_second > nfev_first
    assert second.methods["anneal"]["wall_time"] > first.methods["anneal"]["wall_time"]
    assert second.methods["anneal"]["search_best"] >= first.methods["anneal"]["search_best"]
    assert (tmp_path / "progress.csv").is_file()


def test_hunt_refuses_a_used_or_locked_directory(tmp_path):
    import os

    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace
    from geosched.errors import ValidationError

    space = SearchSpace("sjf", max_requests=5, memory=12, alpha_max=0.5)
    run = dict(method="anneal", time_limit=0.5, seed=0, out=tmp_path, progress=False, certify_budget=0.2)
    first = hunt(space, **run)
    summary = (tmp_path / "summary.json").read_text()
    with pytest.raises(ValidationError, match="holds an earlier hunt"):
        hunt(space, **run)
    assert (tmp_path / "summary.json").read_text() == summary  # nothing was overwritten
    assert hunt(space, **run, force=True).fun is not None
    (tmp_path / ".lock").write_text(str(os.getpid()))  # a live process holds the directory
    with pytest.raises(ValidationError, match="another hunt"):
        hunt(space, **run, resume=True)
    (tmp_path / ".lock").write_text("999999999")  # a killed hunt's lock is taken over
    assert hunt(space, **run, resume=True).status in ("completed", "target_reached")
    assert not (tmp_path / ".lock").exists()
    assert first.fun is not None


def test_hunt_all_methods_online_svf1_skips_z3(tmp_path):
    from geosched.adversary.hunt import hunt
    from geosched.adversary.search import SearchSpace

    space = SearchSpace("svf1", max_requests=6, memory=12, alpha_max=0.5, arrivals="online")
    result = hunt(space, method="all", time_limit=3.0, seed=1, out=tmp_path, progress=False, certify_budget=0.5)
    assert set(result.methods) == {"anneal", "de"}
    for path in result.witnesses:
        assert verify_witness(read_witness(path)).ok


def test_differential_evolution_search_runs_and_is_certified():
    from geosched.adversary.search import SearchSpace, differential_evolution_search

    space = SearchSpace("fcfs", max_requests=6, memory=12, alpha_max=0.5)
    res = differential_evolution_search(space, time_limit=3.0, rng=1, popsize=5)
    assert res.nfev > 0 and res.fun >= 1.0
    w = make_witness(res.x, "fcfs", simulate(res.x, "svf", backfill=True).starts, found_by="test")
    assert w.policy_tel == res.elite[0].policy_tel


def _brute_opt(s, o, memory):
    """Exhaustive min TEL over every start vector within the horizon sum(o) (independent of opt/)."""
    horizon = int(sum(o))
    starts = np.array(list(itertools.product(*[range(horizon - oi + 1) for oi in o])), dtype=np.int64)
    t = np.arange(1, horizon + 1)[None, :, None]
    y = starts[:, None, :]
    active = (y < t) & (t <= y + np.asarray(o)[None, None, :])
    use = np.where(active, np.asarray(s)[None, None, :] + t - y, 0).sum(axis=2)
    feasible = (use <= memory).all(axis=1)
    return int((starts + np.asarray(o)).sum(axis=1)[feasible].min())


@functools.cache
def _brute_worst_ratio(policy, n, memory, max_prompt, max_output):
    shapes = [(s, o) for o in range(1, max_output + 1) for s in range(max_prompt + 1) if 2 * (s + o) <= memory]
    best = Fraction(0)
    for combo in itertools.product(shapes, repeat=n):
        inst = burst_instance(memory, combo)
        tel = check_schedule(inst, simulate(inst, policy).starts).metrics.tel
        best = max(best, Fraction(tel, _brute_opt([c[0] for c in combo], [c[1] for c in combo], memory)))
    return best


def test_z3_sat_below_and_unsat_above_the_exhaustive_worst_ratio():
    from geosched.adversary.z3search import Z3Bounds, query

    bounds = Z3Bounds(n=3, memory=(8, 8), max_prompt=3, max_output=4, alpha_max="1/2")
    worst = _brute_worst_ratio("fcfs", 3, 8, 3, 4)
    assert worst > 1
    sat = query("fcfs", bounds, worst, timeout=60)
    assert sat.status == "sat" and sat.found_ratio == worst
    assert verify_witness(sat.witness.to_dict()).ok
    assert query("fcfs", bounds, worst + Fraction(1, 100), timeout=60).status == "unsat"


@pytest.mark.parametrize("policy", ["svf", "sjf"])
@pytest.mark.parametrize("strengthen", [True, False])
def test_z3_cuts_keep_every_answer(policy, strengthen):
    # the cuts (symbolic lengths, symmetry breaking on S, the volume bound for svf) are sound:
    # with and without them the worst ratio found by brute force is sat and a hair above unsat
    from geosched.adversary.z3search import Z3Bounds, make_solver, query

    bounds = Z3Bounds(n=4, memory=(8, 8), max_prompt=2, max_output=3, alpha_max="1/2")
    worst = _brute_worst_ratio(policy, 4, 8, 2, 3)
    model = make_solver(policy, bounds, strengthen=strengthen)
    sat = query(policy, bounds, worst, timeout=120, model=model)
    assert sat.status == "sat" and sat.found_ratio == worst and verify_witness(sat.witness.to_dict()).ok
    assert query(policy, bounds, worst + Fraction(1, 200), timeout=120, model=model).status == "unsat"


def test_z3_bounds_accept_more_than_ten_requests():
    from geosched.adversary.z3search import MAX_Z3_REQUESTS, Z3Bounds
    from geosched.errors import ValidationError

    assert Z3Bounds(n=12, memory=(10, 10), max_prompt=2, max_output=2).horizon == 24
    with pytest.raises(ValidationError, match="z3 n"):
        Z3Bounds(n=MAX_Z3_REQUESTS + 1, memory=(10, 10), max_prompt=2, max_output=2)


def test_z3_bisection_brackets_the_worst_ratio_for_svf():
    from geosched.adversary.z3search import Z3Bounds, bisect_ratio

    bounds = Z3Bounds(n=3, memory=(6, 8), max_prompt=2, max_output=3, alpha_max="1/2")
    res = bisect_ratio("svf", bounds, hi="2", tol="1/50", timeout=60)
    worst = max(_brute_worst_ratio("svf", 3, m, 2, 3) for m in (6, 7, 8))
    assert res.best_sat == worst
    assert res.smallest_unsat is not None and worst < res.smallest_unsat <= worst + Fraction(1, 50)


@pytest.mark.parametrize("size", [2, 3, 5, 7])
def test_sjf_family_closed_form_matches_simulation(size):
    from geosched.adversary.families import evaluate_family

    report = evaluate_family("sjf-blocking", size)
    # closed forms worked by hand in families.py: k(k+1) + k^2(k+2) and 3k^2 + 4k - 1
    assert report.policy_tel == size * (size + 1) + size**2 * (size + 2)
    assert report.witness_tel == 3 * size**2 + 4 * size - 1
    assert report.match and report.witness_feasible and report.alpha == Fraction(1, 2)


def test_sjf_family_ratio_grows_without_bound():
    from geosched.adversary.families import FAMILIES, evaluate_family

    ratios = [evaluate_family("sjf-blocking", size).certified_ratio for size in (2, 4, 8, 12)]
    assert all(b > a for a, b in zip(ratios, ratios[1:])) and ratios[-1] > 4
    assert FAMILIES["sjf-blocking"].limit.is_infinite


@pytest.mark.parametrize(
    "argv",
    [
        ["family", "sjf-blocking", "--size", "1000000000"],  # would not finish: refused
        ["hunt", "--policy", "sjf", "--memory", "10", "--alpha-max", "0.01", "--time", "1"],
        ["hunt", "--policy", "sjf", "--memory", "10", "--requests", "0", "--time", "1"],
        ["hunt", "--policy", "svf", "--memory", "10", "--time", "1", "--resume", "--out", "/nonexistent/x"],
        ["family", "nosuch", "--size", "2"],
        ["family", "sjf-blocking", "--size", "0"],
        ["check-witness", "/nonexistent/witness.json"],
        ["hunt", "--policy", "svf1", "--method", "z3", "--memory", "10", "--time", "1"],
        ["z3-bisect", "--policy", "svf", "--memory", "8", "--requests", "31", "--max-prompt", "2", "--max-output", "2"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv, capsys, tmp_path):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("geosched: error:") and "\n" not in err


def test_cli_argparse_rejects_bad_numbers(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["hunt", "--policy", "sjf", "--memory", "10", "--time", "-3"])
    assert exc.value.code == 2
