"""Structured search at scale, the compiled kernel on large instances, serial list scheduling, the hunt targets
(registry policies and stock vLLM through the semantics model) and the tie checks of witnesses.

Expected values come from hand computations (written out below), from the reference
simulator (an independent implementation of the same process), or from a naive list
scheduler written here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from geosched.adversary.fast import list_schedule, simulate_arrays
from geosched.adversary.search import SearchSpace
from geosched.adversary.structured import (
    Description,
    Group,
    mutate_description,
    random_description,
    score_description,
    structured_search,
)
from geosched.adversary.targets import engine_for, get_target, reversed_instance, target_names
from geosched.adversary.witness import make_witness, read_witness, verify_witness, write_witness
from geosched.cli import main
from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.simulation import simulate


def _random_arrays(rng, n, memory, burst):
    o = rng.integers(1, memory + 1, size=n)
    s = rng.integers(0, memory - o + 1)
    a = np.zeros(n, np.int64) if burst else rng.integers(0, 15, size=n)
    return a.astype(np.int64), s.astype(np.int64), o.astype(np.int64)


@pytest.mark.parametrize("burst", [True, False])
def test_kernel_equals_reference_up_to_seventy_requests(burst):
    # once the batch kernel against the usage-profile kernel (both compared with the reference every
    # fifth trial); now the one kernel, compared with the reference simulator in every trial
    rng = np.random.default_rng(7 + burst)
    for _ in range(150):
        n = int(rng.integers(1, 70))
        memory = int(rng.integers(3, 40))
        a, s, o = _random_arrays(rng, n, memory, burst)
        inst = Instance(memory, [Request(f"q{k}", int(x), int(y), int(z)) for k, (x, y, z) in enumerate(zip(a, s, o))])
        for policy in ("fcfs", "sjf", "svf"):
            for backfill in (False, True):
                ref = simulate(inst, policy, backfill=backfill).starts
                assert simulate_arrays(policy, a, s, o, memory, backfill=backfill).tolist() == [
                    ref[r.id] for r in inst.requests]


def test_kernel_on_a_large_hand_worked_family():
    # sjf-blocking, k = 30 (K = 900, M = 1800): SJF runs the 60 blockers (899, 1) in pairs, pair p
    # in step p - 1 (TEL 2(1 + ... + 30) = 930); the 900 smalls (0, 2) start at 30: 900 * 32 = 28800.
    # Total 29730 = k(k+1) + k^2 (k + 2). SVF: smalls first (TEL 1800), blockers 1 + ... = 1019.
    k, big = 30, 900
    s = np.array([big - 1] * (2 * k) + [0] * big)
    o = np.array([1] * (2 * k) + [2] * big)
    a = np.zeros(len(s), np.int64)
    assert int((simulate_arrays("sjf", a, s, o, 2 * big) + o).sum()) == 29730
    assert int((simulate_arrays("svf", a, s, o, 2 * big) + o).sum()) == 3 * k * k + 4 * k - 1


def _naive_list(a, s, o, memory, order, monotone):
    """Place each request at its earliest feasible start, scanning start steps one by one."""
    usage: dict[int, int] = {}
    starts = [None] * len(a)
    previous = 0
    for i in order:
        x = max(a[i], previous) if monotone else a[i]
        while any(usage.get(t, 0) + s[i] + t - x > memory for t in range(x + 1, x + o[i] + 1)):
            x += 1
        for t in range(x + 1, x + o[i] + 1):
            usage[t] = usage.get(t, 0) + s[i] + t - x
        starts[i] = x
        previous = x
    return starts


@pytest.mark.parametrize("monotone", [False, True])
def test_list_schedule_jumps_equal_the_naive_scan(monotone):
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 12))
        memory = int(rng.integers(3, 25))
        a, s, o = _random_arrays(rng, n, memory, burst=bool(rng.integers(2)))
        order = rng.permutation(n)
        got = list_schedule(a, s, o, memory, order, monotone=monotone).tolist()
        assert got == _naive_list(a.tolist(), s.tolist(), o.tolist(), memory, order.tolist(), monotone)


def test_description_expands_with_clipping():
    space = SearchSpace("sjf", max_requests=10, memory=10, alpha_max=0.5)  # P = 5
    d = Description((Group(3, 1, 2, 0, 2, 1, 0), Group(2, 0, 9)))
    a, s, o = d.expand(space)
    # group 1: o = 2, 3, 4 (within P); s = 1, 3, 5 clipped to P - o = 3, 2, 1 -> 1, 2, 1
    # group 2: o = 9 clipped to 5, s = 0
    assert o.tolist() == [2, 3, 4, 5, 5] and s.tolist() == [1, 2, 1, 0, 0] and a.tolist() == [0] * 5
    assert d.n == 5 and "3x(s=1+2j, o=2+1j)" in d.describe()
    assert Description.from_list(d.to_list()) == d


def test_mutations_stay_inside_the_space():
    space = SearchSpace("svf", max_requests=50, memory=30, alpha_max=0.5, arrivals="online")
    rng = np.random.default_rng(0)
    d = random_description(space, rng)
    for _ in range(500):
        d, _ = mutate_description(space, d, rng)
        a, s, o = d.expand(space)
        assert 1 <= len(o) <= 50 and 1 <= len(d.groups) <= 4
        assert (o >= 1).all() and (s >= 0).all() and (s + o <= space.peak_max).all()
        assert (a >= 0).all() and (a <= space.arrival_max).all()


def test_robust_score_takes_the_worse_tie_order():
    # every output is 1, so every SJF key ties and the position decides. Big first: 4 blockers
    # (9, 1) (peak 10 = M/2) run in pairs in steps 0, 1 (TEL 2 + 2*2 = 6), the 20 smalls (0, 1)
    # then start at 2: 20 * 3 = 60, TEL 66. Reversed (smalls first): 20 smalls at 0 (TEL 20) and
    # the blockers at 1, 2 (TEL 2*2 + 2*3 = 10), TEL 30. The pool's best (SVF: smalls first) is 30.
    space = SearchSpace("sjf", max_requests=24, memory=20, alpha_max=0.5)
    d = Description((Group(4, 9, 1), Group(20, 0, 1)))
    given = score_description(space, d)
    robust = score_description(space, d, "robust")
    assert (given.policy_tel, given.pool_tel) == (66, 30)
    assert robust.policy_tel == 30 and robust.score == pytest.approx(1.0)


def test_structured_search_from_random_starts_beats_the_small_hunts():
    # M = 400, up to 400 requests, a fixed number of evaluations (machine-independent):
    # the old anneal hunts reached 3.27 at M = 40, n = 60
    space = SearchSpace("sjf", max_requests=400, memory=400, alpha_max=0.5)
    result = structured_search(space, time_limit=120, max_evals=1500, rng=0, ties="robust")
    assert result.status == "max_evaluations" and result.method == "structured"
    assert result.fun > 3.5, result.message
    best = result.elite[0]
    assert best.note and best.score == pytest.approx(result.fun)
    resumed = structured_search(space, time_limit=60, max_evals=1600, rng=0, state=result.state)
    assert resumed.nfev >= 1600 and resumed.fun >= result.fun


def test_structured_rejects_bad_options():
    space = SearchSpace("sjf", max_requests=10, memory=10)
    with pytest.raises(ValidationError, match="ties"):
        structured_search(space, time_limit=0.1, ties="sometimes")
    with pytest.raises(ValidationError, match="max_groups"):
        structured_search(space, time_limit=0.1, max_groups=0)


def test_a_time_limited_structured_hunt_resumes_and_its_saved_state_is_rescored_or_refused(tmp_path):
    """Resuming ``--method structured`` used to fail with a KeyError (no checker for its state)."""
    from geosched.adversary.hunt import hunt
    from geosched.adversary.structured import checked_structured_state

    space = SearchSpace("sjf", max_requests=20, memory=20)
    first = hunt(space, method="structured", time_limit=1.0, seed=2, out=tmp_path, progress=False,
                 certify_budget=0.3)
    entry = json.loads((tmp_path / "checkpoint.json").read_text())["methods"]["structured"]["state"]
    resumed = hunt(space, method="structured", time_limit=0.5, seed=2, out=tmp_path, resume=True, progress=False,
                   certify_budget=0.3)
    assert resumed.methods["structured"]["nfev"] > first.methods["structured"]["nfev"]
    # a forged score is recomputed: the saved best, described by hand, scores what score_description says
    forged = {**entry, "best": [99.0, entry["best"][1]], "elite": [[99.0, d] for _, d in entry["elite"]]}
    checked = checked_structured_state(space, forged, "ck")
    truth = score_description(space, Description.from_list(entry["best"][1])).score
    assert checked["best"][0] == truth and all(score < 99.0 for score, _ in checked["elite"])
    for broken, field in (({**entry, "nfev": -1}, "nfev"), ({**entry, "ties": "sometimes"}, "ties"),
                          ({**entry, "max_groups": 0}, "max_groups"),
                          ({**entry, "best": [1.0, [[0, 1, 1, 0, 0, 0, 0]]]}, "best"),
                          ({**entry, "current": [1.0, [[21, 1, 1, 0, 0, 0, 0]]]}, "current"),
                          ({**entry, "elite": [[1.0, [[1, 2, 3]]]]}, "elite"),
                          ({k: v for k, v in entry.items() if k != "rng"}, "rng")):
        with pytest.raises(WorkloadFormatError, match=f"structured state: {field}"):
            checked_structured_state(space, broken, "ck")


def test_hunt_structured_writes_checked_witnesses_with_tie_checks(tmp_path, capsys):
    out = tmp_path / "h"
    argv = ["hunt", "--policy", "sjf", "--method", "structured", "--requests", "200", "--memory", "200",
            "--time", "3", "--seed", "2", "--out", str(out), "--quiet", "--ties", "robust"]
    assert main(argv) == 0
    data = json.loads((out / "best_witness.json").read_text())
    assert data["found_by"].startswith("hunt:structured [") and "tie_check" in data and "tie_rule" in data
    assert main(["check-witness", str(out / "best_witness.json")]) == 0
    assert "reversed tie order" in capsys.readouterr().out


# -- hunt targets -----------------------------------------------------------------------------


def test_target_names_and_unknown_name():
    names = target_names()
    assert names[:4] == ("fcfs", "sjf", "svf", "svf1")  # the registry's FAST priority rules first
    assert {"vllm-fcfs", "vllm-priority", "geo-guess", "geo-batch"} <= set(names[4:])
    with pytest.raises(UnknownNameError, match="vllm-fcfs"):
        get_target("vllm-lifo")
    with pytest.raises(UnknownNameError):
        SearchSpace("vllm-lifo", max_requests=3, memory=10)


def test_vllm_targets_by_hand():
    # Kong's example, M = 12: r0 (s=6, o=3) is vLLM's P = 7, r1 (s=1, o=5) P = 2.
    # Stock FCFS: call 0 admits both (7 + 2 = 9 blocks); call 1: 8 + 3 = 11; call 2: r0 takes the
    # 12th block, r1 cannot grow: the last running request (r1) is preempted; r0 finishes in call 2
    # (completion 3). r1 resumes in call 3 re-prefilling its 2 + 2 tokens and finishes in call 5
    # (completion 6). TEL 9, 1 preemption.
    inst = burst_instance(12, [(6, 3), (1, 5)])
    fcfs = get_target("vllm-fcfs").run(inst)
    assert (fcfs.tel, fcfs.completions, fcfs.preemptions) == (9, {"r0": 3, "r1": 6}, 1)
    # Priority (all 0): in call 2 the victim is the largest (priority, arrival), the first such in
    # the running list: r0 (9 blocks back). r1 finishes in call 4 (completion 5); r0 (9 tokens)
    # fits again only in call 5 and finishes there (completion 6). TEL 11.
    prio = get_target("vllm-priority").run(inst)
    assert (prio.tel, prio.completions, prio.preemptions) == (11, {"r0": 6, "r1": 5}, 1)
    assert fcfs.engine == engine_for(inst) and fcfs.engine["capacity_blocks"] == 12


def test_reversed_instance_for_id_comparing_heaps():
    inst = Instance(10, [Request("b", 0, 1, 1), Request("a", 0, 2, 2), Request("c", 0, 3, 3)])
    flipped = reversed_instance(inst, reverse_id_order=True)
    # by id the prompts read 2 (a), 1 (b), 3 (c); flipped, the positions are reversed and the ids
    # exchanged (c <-> a, b stays) so that by id they read 3, 1, 2: the id order reversed too
    assert [(r.id, r.prompt) for r in flipped.requests] == [("a", 3), ("c", 2), ("b", 1)]
    assert [r.prompt for r in sorted(flipped.requests, key=lambda r: r.id)] == [3, 1, 2]


def test_vllm_target_witness_verifies_and_tampering_is_caught(tmp_path):
    inst = burst_instance(12, [(6, 3), (1, 5)])
    w = make_witness(inst, "vllm-fcfs", {"r0": 0, "r1": 1}, found_by="hand")
    data = w.to_dict()
    # stock FCFS by hand (tests/test_scheduling.py): r1 is preempted at 2 holding its 2 outputs, resumes at 3
    assert data["policy_schedule"] == {"completions": {"r0": 3, "r1": 6}, "tel": 9, "preemptions": 1,
                                       "runs": {"r0": [[0, 3, 0]], "r1": [[0, 2, 0], [3, 6, 2]]}}
    assert data["engine"]["preemption"] == "fcfs" and data["tie_check"]["order"] == "reversed"
    report = verify_witness(data)
    assert report.ok and report.preemptions == 1 and report.certified_ratio == 1
    bad = json.loads(json.dumps(data))
    bad["policy_schedule"]["completions"]["r1"] = 7
    assert "completions" in verify_witness(bad).message
    bad = json.loads(json.dumps(data))
    bad["policy_schedule"]["preemptions"] = 0
    assert not verify_witness(bad).ok
    no_engine = {k: v for k, v in data.items() if k != "engine"}
    with pytest.raises(WorkloadFormatError):
        verify_witness(no_engine)
    path = write_witness(w, tmp_path / "v.json")
    assert verify_witness(read_witness(path)).ok


def test_tie_check_is_recomputed_and_a_wrong_one_rejected():
    # FCFS on Kong's example: every key is 0, the position decides. r0 = (6, 3) first: it holds 7, 8, 9
    # at steps 1..3; r1 = (1, 5) started at 1 holds 2, 3 at steps 2, 3 (8 + 2, 9 + 3 <= 12): TEL 3 + 6 = 9.
    # Reversed, r1 first at 0 (2..6 at steps 1..5): r0 started at t <= 4 collides (e.g. t = 1: 5 + 9 at
    # step 4), so it waits for r1's end at 5: TEL 5 + 8 = 13. The ratio depends on the tie order.
    inst = burst_instance(12, [(6, 3), (1, 5)])
    w = make_witness(inst, "fcfs", {"r0": 0, "r1": 1}, found_by="hand")
    assert w.policy_tel == simulate_tel(inst, "fcfs") and w.depends_on_ties is True
    assert w.tie_check["policy_tel"] == simulate_tel(reversed_instance(inst), "fcfs") == 13
    data = w.to_dict()
    assert verify_witness(data).depends_on_ties is True
    data["tie_check"]["depends_on_ties"] = False
    assert not verify_witness(data).ok
    data = w.to_dict()
    data["tie_rule"] = "ties by id"
    assert "tie_rule" in verify_witness(data).message


def simulate_tel(inst: Instance, policy: str) -> int:
    return check_schedule(inst, simulate(inst, policy).starts).metrics.tel


# ------------------------------------------------------------------ paced (staggered) witness schedules


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("burst", [True, False])
def test_paced_schedules_are_feasible(seed, burst):
    from geosched.adversary.stagger import PACE_FACTORS, paced_list_schedule

    rng = np.random.default_rng(seed)
    memory = int(rng.integers(6, 40))
    a, s, o = _random_arrays(rng, int(rng.integers(1, 40)), memory // 2, burst)
    inst = Instance(memory, [Request(f"r{j:02d}", int(a[j]), int(s[j]), int(o[j])) for j in range(len(a))])
    order = rng.permutation(len(a))
    for factor in PACE_FACTORS:
        x = paced_list_schedule(a, s, o, memory, order, factor)
        report = check_schedule(inst, {f"r{j:02d}": int(x[j]) for j in range(len(a))})
        assert report.feasible, (factor, report.first_violation)


def test_paced_schedule_by_hand_and_in_the_pool():
    from geosched.adversary.schedules import heuristic_pool_tel
    from geosched.adversary.stagger import paced_list_schedule, stagger_pool_tel

    # 9 requests (0, 5) in M = 15: v = 15 = M, so the pace is one start per step (ages 1..5 hold 15)
    a, s, o = np.zeros(9, np.int64), np.zeros(9, np.int64), np.full(9, 5, np.int64)
    assert paced_list_schedule(a, s, o, 15, np.arange(9), 1.0).tolist() == list(range(9))
    # greedy list scheduling rebuilds SVF's triples (0, 0, 0, 5, 5, 5, 10, 10, 10): TEL 3 (5 + 10 + 15) = 90
    greedy = list_schedule(a, s, o, 15, np.arange(9))
    assert int((greedy + o).sum()) == 90
    assert stagger_pool_tel(a, s, o, 15)[0] == sum(range(9)) + 45 == 81
    tel, _, source = heuristic_pool_tel(a, s, o, 15)
    assert tel == 81 and source.startswith("paced")
    svf = int((simulate_arrays("svf", a, s, o, 15) + o).sum())
    assert svf == 90


def test_fluid_proposals_and_the_fluid_mutation():
    from geosched.adversary.structured import fluid_proposals

    # M = 15: (0, 5) runs in triples under SVF (rate 3/5) and one per step paced (d = 1): limit 5/3, the best
    space = SearchSpace("svf", max_requests=60, memory=15)
    assert fluid_proposals(space)[0] == (0, 5)
    assert fluid_proposals(SearchSpace("sjf", max_requests=60, memory=15)) == []  # SVF on bursts only
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(400):
        d, kind = mutate_description(space, Description((Group(10, 1, 2),)), rng)
        if kind == "fluid":
            seen.add((d.groups[0].prompt, d.groups[0].output, d.n))
    assert seen and all((s, o) in fluid_proposals(space) and n == 60 for s, o, n in seen)


# -- family proposals of the fluid analysis (issue 25, item 2) ---------------------------------

_EXACT = {"max_evals": 300, "cycle_evals": 60, "time_limit": float("inf")}  # a function of rng alone


def _proposal_lists(space, seed):
    from geosched.adversary.structured import proposal_descriptions

    return [d.to_list() for d in proposal_descriptions(space, seed)]


def test_proposals_are_drawn_and_accepted_when_enabled_and_seed_a_share_of_the_starts():
    space = SearchSpace("svf", max_requests=40, memory=20)
    off = structured_search(space, rng=3, **_EXACT)
    assert "proposal_seed" not in off.state and "family proposals" not in off.message
    on = structured_search(space, rng=3, proposals=True, **_EXACT)
    drawn, accepted = on.state["proposal_counts"]
    assert 0 < accepted <= drawn and f"family proposals: {drawn} drawn, {accepted} accepted" in on.message
    scores = [score_description(space, Description.from_list(d)).score
              for d in _proposal_lists(space, on.state["proposal_seed"])]
    assert on.fun >= max(scores) > 1.0  # every proposal accepted was scored; the best one at least is reached
    # max_evals=1: the search only scores its start, a proposal (counted) or a random description
    space = SearchSpace("svf", max_requests=12, memory=12)
    starts = [structured_search(space, rng=seed, proposals=True, max_evals=1, time_limit=float("inf")).state
              for seed in range(8)]
    from_proposals = [s for s in starts if s["current"][1] in _proposal_lists(space, s["proposal_seed"])]
    assert 0 < len(from_proposals) < len(starts)
    assert all(s["proposal_counts"] == ([1, 1] if s in from_proposals else [0, 0]) for s in starts)


def test_proposals_keep_the_search_a_function_of_its_seed():
    from geosched.adversary.structured import _PROPOSAL_CACHE

    space = SearchSpace("svf", max_requests=40, memory=20, arrivals="online")
    first = structured_search(space, rng=5, proposals=True, **_EXACT)
    assert _PROPOSAL_CACHE  # the second run finds the proposals cached: the rng stream must not care
    second = structured_search(space, rng=5, proposals=True, **_EXACT)
    _PROPOSAL_CACHE.clear()
    third = structured_search(space, rng=5, proposals=True, **_EXACT)
    for other in (second, third):
        assert (other.fun, other.nfev, other.message, other.state["best"], other.state["rng"]) == \
               (first.fun, first.nfev, first.message, first.state["best"], first.state["rng"])
    assert structured_search(space, rng=6, proposals=True, **_EXACT).state["proposal_seed"] != \
        first.state["proposal_seed"]


def test_proposals_fit_the_space_and_are_staggered_only_online():
    from geosched.adversary.structured import proposal_descriptions

    for n in (3, 7, 40):
        burst, online = (SearchSpace("svf", max_requests=n, memory=20, arrivals=a) for a in ("burst", "online"))
        for d in proposal_descriptions(burst, 1) + proposal_descriptions(online, 1):
            assert 1 <= d.n <= n and len(d.groups) <= 4
        assert all(g.arrival == 0 for d in proposal_descriptions(burst, 1) for g in d.groups)
    staggered = [d for d in proposal_descriptions(online, 1) if len({g.arrival for g in d.groups}) > 1]
    assert staggered  # group j arrives when the paced witness would start it
    a, _, _ = staggered[0].expand(online)
    assert a.max() > 0 == a.min()
    assert proposal_descriptions(SearchSpace("svf", max_requests=40, memory=1200), 1) == []  # beyond the analysis


def test_proposals_option_is_checked_and_a_bad_saved_proposal_seed_refused():
    from geosched.adversary.options import SearchOptions
    from geosched.adversary.structured import checked_structured_state

    for bad in (1, "yes", None):
        with pytest.raises(ValidationError, match="proposals"):
            SearchOptions(proposals=bad)
    space = SearchSpace("svf", max_requests=12, memory=12)
    state = json.loads(json.dumps(structured_search(space, rng=1, proposals=True, max_evals=30,
                                                    time_limit=float("inf")).state))  # as a checkpoint holds it
    assert checked_structured_state(space, state, "ck")["proposal_seed"] == state["proposal_seed"]
    for broken, field in (({**state, "proposal_seed": -1}, "proposal_seed"),
                          ({**state, "proposal_seed": 2**40}, "proposal_seed"),
                          ({**state, "proposal_counts": [1]}, "proposal_counts")):
        with pytest.raises(WorkloadFormatError, match=f"structured state: {field}"):
            checked_structured_state(space, broken, "ck")


def test_an_online_hunt_with_proposals_writes_a_witness_that_check_witness_reverifies(tmp_path, capsys):
    out = tmp_path / "h"
    argv = ["hunt", "--policy", "svf", "--method", "structured", "--requests", "40", "--memory", "20",
            "--arrivals", "online", "--time", "3", "--seed", "1", "--proposals", "--out", str(out), "--quiet",
            "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)["methods"]["structured"]
    assert "family proposals:" in summary["message"] and " 0 drawn" not in summary["message"]
    assert json.loads((out / "checkpoint.json").read_text())["options"]["search"]["proposals"] is True
    report = verify_witness(read_witness(out / "best_witness.json"))  # the independent checker
    assert report.ok and report.certified_ratio > 1
    assert main(["check-witness", str(out / "best_witness.json")]) == 0


def test_rounds_pass_the_proposals_on_to_every_restart(tmp_path):
    from geosched.adversary.hunt import hunt

    space = SearchSpace("svf", max_requests=12, memory=12, arrivals="online")
    keywords = {"method": "structured", "rounds": 1, "restarts": 2, "evals": 80, "seed": 2, "progress": False,
                "certify_budget": 0.5}
    flags = (False, True, True)
    results = [hunt(space, out=tmp_path / str(k), proposals=flag, **keywords) for k, flag in enumerate(flags)]
    assert results[1].x.to_dict() == results[2].x.to_dict() and results[1].nfev == results[2].nfev
    assert results[0].x.to_dict() != results[1].x.to_dict()  # the restarts' random streams differ
