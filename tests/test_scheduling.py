"""The scheduler protocol: priority rules through it, restarts in the checker, capabilities,
vLLM's rules in the exact model against the vLLM-semantics model, the geometric schedulers
and a user's scheduler file."""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.adversary.witness import make_witness, verify_witness
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.engine import capabilities_of, run_scheduler
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.policies import make_policy, policy_names
from geosched.reference_impl.scheduler_registry import REGISTRY, register_scheduler, scheduler_names
from geosched.reference_impl.schedulers.geometric import GeometricBatch, GeometricGuess
from geosched.reference_impl.schedulers.priority import PriorityRuleScheduler
from geosched.reference_impl.schedulers.vllm import VllmScheduler
from geosched.reference_impl.scheduling import Capability, CapabilityError, Decision, DecisionError
from geosched.reference_impl.simulation import resolve, simulate
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, VllmSemantics
from geosched.testing import instances


# -- priority rules: the protocol's path equals the event-driven simulator --------------------
@settings(deadline=None)
@given(instance=instances(max_n=6, max_memory=20, max_output=8), policy=st.sampled_from(policy_names()),
       backfill=st.booleans(), skip=st.booleans())
def test_priority_rules_through_the_protocol_equal_the_simulator(instance, policy, backfill, skip):
    rule = PriorityRuleScheduler(make_policy(policy), instance, backfill=backfill)
    run = run_scheduler(instance, rule, skip=skip)
    expected = simulate(instance, policy, backfill=backfill)
    assert run.restarts == 0 and all(len(runs) == 1 for runs in run.runs.values())
    assert {i: runs[0].start for i, runs in run.runs.items()} == expected.starts
    assert run.admission_order == expected.admission_order


def test_simulate_routes_a_priority_rule_scheduler_to_the_fast_path():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    result = simulate(inst, PriorityRuleScheduler(make_policy("svf"), inst))
    assert result.runs is None and result.starts == {"r0": 5, "r1": 0}  # by hand: r1 first, r0 fits at 5


# -- the checker with restarts ----------------------------------------------------------------
def _two(memory: int) -> Instance:
    return Instance(memory, [Request("r0", 0, 2, 4), Request("r1", 0, 3, 3)])


def test_checker_restart_from_scratch_by_hand():
    # r0 runs (0,2] holding 3,4 then restarts (3,7] holding 3,4,5,6; r1 starts at 2 holding
    # 4,5,6 at steps 3..5. Step 5: r0 holds 2+0+(5-3)=4, r1 holds 3+(5-2)=6: 10 tokens.
    schedule = {"r0": [(0, 2), (3, 7)], "r1": 2}
    report = check_schedule(_two(10), schedule)
    assert report.feasible
    assert report.metrics.tel == 7 + 5  # r0 completes at 7, r1 at 5
    assert report.metrics.lost_tokens == 2 and report.metrics.restarts == 1
    assert [report.memory_at(t) for t in range(1, 8)] == [3, 4, 4, 8, 10, 5, 6]
    tight = check_schedule(_two(9), schedule)
    assert not tight.feasible and tight.first_violation.kind == "memory"
    assert (tight.first_violation.step, tight.first_violation.amount) == (5, 1)


def test_checker_restart_keeping_outputs_by_hand():
    # r0 keeps its 2 decoded outputs: the second run (3,5] holds 2+2+1=5, 2+2+2=6 and completes
    # at 3 + 4 - 2 = 5; r1 starts at 5 and holds 4,5,6 at 6..8. TEL = 5 + 8, nothing lost.
    report = check_schedule(_two(10), {"r0": [(0, 2, 0), (3, 5, 2)], "r1": 5})
    assert report.feasible and report.metrics.tel == 13 and report.metrics.lost_tokens == 0
    assert [report.memory_at(t) for t in range(1, 9)] == [3, 4, 0, 5, 6, 4, 5, 6]
    # keeping 1 of the 2 decoded outputs loses one
    assert check_schedule(_two(10), {"r0": [(0, 2, 0), (3, 6, 1)], "r1": 6}).metrics.lost_tokens == 1


@pytest.mark.parametrize("runs, words", [
    ([(0, 2), (3, 6)], "must last o - kept = 4"),  # the last run is one step short
    ([(0, 4), (5, 9)], "must end before it completes"),  # a run of o steps would have completed
    ([(0, 2), (1, 5)], "before run 0 ends"),  # overlap
    ([(0, 2, 0), (3, 4, 3)], "more than the 2 decoded"),
    ([], "empty list of runs"),
    ([(0, "2")], "not (start, end)"),
])
def test_checker_rejects_malformed_runs(runs, words):
    report = check_schedule(_two(10), {"r0": runs, "r1": 10})
    assert not report.feasible and report.metrics is None
    assert report.first_violation.kind == "bad_runs" and words in report.first_violation.message


def test_checker_early_first_run():
    inst = Instance(10, [Request("r0", 3, 2, 4)])
    report = check_schedule(inst, {"r0": [(1, 2), (4, 8)]})
    assert report.first_violation.kind == "early_start" and report.first_violation.step == 1


@settings(deadline=None)
@given(instance=instances(max_n=5))
def test_a_start_and_its_single_run_check_alike(instance):
    starts = simulate(instance, "fcfs").starts
    plain = check_schedule(instance, starts)
    runs = check_schedule(instance, {r.id: [(starts[r.id], starts[r.id] + r.output)] for r in instance.requests})
    assert plain.feasible and runs.feasible and plain.metrics == runs.metrics


# -- capabilities are enforced ----------------------------------------------------------------
@dataclass
class Peeker:
    name: str = "peeker"
    clairvoyant = False
    preempts = False

    def decide(self, state):
        return Decision(admit=tuple(w.id for w in state.waiting if w.output < 3))


@dataclass
class SneakyPreempter:
    name: str = "sneaky"
    clairvoyant = True
    preempts = False

    def decide(self, state):
        return Decision(preempt=tuple(r.id for r in state.running),
                        admit=tuple(w.id for w in state.waiting)[:1])


@dataclass
class Greedy:
    name: str = "greedy"
    clairvoyant = False
    preempts = False

    def decide(self, state):
        return Decision(admit=tuple(w.id for w in state.waiting))


def test_a_non_clairvoyant_scheduler_cannot_read_outputs():
    with pytest.raises(CapabilityError, match="non-clairvoyant"):
        simulate(burst_instance(12, [(6, 3), (1, 5)]), Peeker())
    Peeker.clairvoyant = True
    try:
        assert simulate(burst_instance(12, [(6, 1), (1, 2)]), Peeker()).starts == {"r0": 0, "r1": 0}
    finally:
        Peeker.clairvoyant = False


def test_an_undeclared_preemption_and_an_overflow_raise():
    with pytest.raises(DecisionError, match="does not declare preempts"):
        simulate(burst_instance(12, [(6, 3), (1, 5)]), SneakyPreempter())
    # both at 0: step 3 holds 9 + 4 = 13 > 12 (the checker's own example)
    with pytest.raises(DecisionError, match="must fit M = 12 tokens at step 3"):
        simulate(burst_instance(12, [(6, 3), (1, 5)]), Greedy())


def test_a_decision_naming_an_unknown_request_raises():
    @dataclass
    class Ghost(Greedy):
        def decide(self, state):
            return Decision(admit=("nobody",))

    with pytest.raises(DecisionError, match="distinct waiting"):
        run_scheduler(burst_instance(12, [(6, 3)]), Ghost())


def test_the_registry_holds_everything_and_checks_declarations(monkeypatch):
    assert scheduler_names()[:4] == policy_names()[:4] == ("fcfs", "sjf", "svf", "svf1")  # the papers' rules first
    assert set(policy_names()) <= set(scheduler_names())  # a rule added later is listed after them
    for name in scheduler_names():  # every entry's declaration is the object's own
        entry, obj = REGISTRY[name], resolve(name)
        if Capability.PRIORITY_RULE in entry.capabilities:
            assert obj is make_policy(name) or obj == make_policy(name)
            continue
        declared = entry.capabilities & {Capability.CLAIRVOYANT, Capability.PREEMPTS}
        assert declared == capabilities_of(obj) - {Capability.SIMULATOR}, name
    assert "geo-guess" not in scheduler_names(Capability.CLAIRVOYANT)  # it must never see o
    monkeypatch.setitem(REGISTRY, "liar", REGISTRY["geo-batch"])
    register_scheduler("liar", GeometricGuess, capabilities=[Capability.CLAIRVOYANT])  # it is not
    with pytest.raises(ValidationError, match="differ from the scheduler's own declaration"):
        simulate(burst_instance(12, [(1, 1)]), "liar")
    with pytest.raises(UnknownNameError, match="unknown policy 'lifo'"):
        simulate(burst_instance(12, [(1, 1)]), "lifo")
    with pytest.raises(ValidationError, match="belong to priority rules"):
        register_scheduler("fast-liar", GeometricGuess, capabilities=[Capability.FAST])
    assert "fast-liar" not in REGISTRY


# -- witnesses carry the runs -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["geo-guess", "vllm-fcfs"])
def test_a_witness_of_a_restarting_scheduler_records_and_rechecks_its_runs(name):
    inst = burst_instance(12, [(6, 3), (1, 5)])
    data = json.loads(json.dumps(make_witness(inst, name, {"r0": 0, "r1": 1}, found_by="hand").to_dict()))
    assert data["policy_schedule"]["runs"]["r1"] == [list(r) for r in simulate(inst, name).runs["r1"]]
    assert verify_witness(data).status == "verified"
    tampered = json.loads(json.dumps(data))
    tampered["policy_schedule"]["runs"]["r1"] = [[0, 5, 0]]
    assert "recorded runs differ" in verify_witness(tampered).message
    tampered = json.loads(json.dumps(data))
    tampered["policy_schedule"]["tel"] += 1
    assert verify_witness(tampered).status == "rejected"


# -- vLLM's rules: the exact model equals the vLLM-semantics model ----------------------------
def runs_from_states(states) -> dict[str, list[tuple[int, int]]]:
    """Runs read off per-call states: admitted at call c = start c; preempted at c = end c;
    finished at c = end c + 1 (docs/vllm.md, step correspondence)."""
    runs: dict[str, list[tuple[int, int]]] = {}
    open_: dict[str, int] = {}
    for state in states:
        for rid in state.preempted:
            runs.setdefault(rid, []).append((open_.pop(rid), state.step))
        for rid in state.admitted:
            open_[rid] = state.step
        for rid in state.finished:
            runs.setdefault(rid, []).append((open_.pop(rid), state.step + 1))
    return runs


def semantics_states(instance: Instance, params: EngineParams) -> list:
    model = VllmSemantics(params, queue_order=params.preemption)
    for r in instance.requests:
        model.add(SemRequest(r.id, r.arrival, r.prompt + 1, r.output))
    return list(model.run())


@st.composite
def vllm_cases(draw):
    instance = draw(instances(max_n=7, max_memory=24, max_prompt=8, max_output=10, max_arrival=8))
    n = instance.n
    seqs = draw(st.integers(1, n + 1))
    params = EngineParams(capacity_blocks=instance.memory, block_size=1, max_num_seqs=seqs,
                          max_num_batched_tokens=instance.memory + seqs + draw(st.integers(0, 5)),
                          preemption=draw(st.sampled_from(["fcfs", "priority"])))
    return instance, params


@settings(deadline=None, max_examples=150)
@given(case=vllm_cases(), skip=st.booleans())
def test_vllm_exact_model_equals_the_semantics_model(case, skip):
    instance, params = case
    scheduler = VllmScheduler(params.preemption, params.max_num_seqs, params.max_num_batched_tokens)
    run = run_scheduler(instance, scheduler, skip=skip)
    exact = {i: [(r.start, r.end) for r in runs] for i, runs in run.runs.items()}
    assert exact == runs_from_states(semantics_states(instance, params))
    assert check_schedule(instance, run.runs).feasible


def test_vllm_fcfs_hand_example():
    # M = 12: r0 (s=6, o=3) and r1 (s=1, o=5) both admitted at 0; at call 2 they would need
    # 9 + 4 = 13 slots: the last running (r1) is preempted holding 1+1+2=3... it resumes at 3
    # with its 2 outputs and completes at 3 + 5 - 2 = 6; r0 completes at 3. TEL 9.
    result = simulate(burst_instance(12, [(6, 3), (1, 5)]), "vllm-fcfs")
    assert result.runs == {"r0": ((0, 3, 0),), "r1": ((0, 2, 0), (3, 6, 2))}
    assert result.completions == {"r0": 3, "r1": 6} and result.restarts == 1
    assert check_schedule(burst_instance(12, [(6, 3), (1, 5)]), result.schedule).metrics.tel == 9


# -- the geometric schedulers -----------------------------------------------------------------
def test_geo_guess_hand_example():
    # guesses 1, 2, 4, 8 (capped at M - s): both expire at 1 and at 3; r1 (volume 14 < 34 under
    # guess 4) restarts at 3 and r0 fits from 6 (believed end 10: step 7 holds 5 + 7 = 12);
    # r1 expires at 7 (guess 4 < 5) and restarts at 9, when r0 completed.
    result = simulate(burst_instance(12, [(6, 3), (1, 5)]), "geo-guess")
    assert [tuple(r) for r in result.runs["r0"]] == [(0, 1, 0), (1, 3, 0), (6, 9, 0)]
    assert [tuple(r) for r in result.runs["r1"]] == [(0, 1, 0), (1, 3, 0), (3, 7, 0), (9, 14, 0)]
    report = check_schedule(burst_instance(12, [(6, 3), (1, 5)]), result.schedule)
    assert report.metrics.tel == 9 + 14 and report.metrics.lost_tokens == 3 + 7 == result.lost_tokens


@settings(deadline=None)
@given(instance=instances(max_n=6, max_memory=20, max_output=12), first=st.integers(1, 4))
def test_geo_schedulers_are_feasible_and_skipping_is_safe(instance, first):
    for make in (lambda: GeometricGuess(first), GeometricBatch):
        a, b = run_scheduler(instance, make()), run_scheduler(instance, make(), skip=False)
        assert a.runs == b.runs
        assert check_schedule(instance, a.runs).feasible
    guess = run_scheduler(instance, GeometricGuess(first))
    for r in instance.requests:  # every lost run lasted exactly its doubled guess
        for k, run in enumerate(guess.runs[r.id][:-1]):
            assert run.end - run.start == min(first * 2**k, instance.memory - r.prompt)


def test_geo_batch_waits_for_the_whole_batch():
    # classes: o=3 -> 2, o=5 -> 3, o=4 -> 2. The class-2 batch at 0 is r0 alone (with r2, step 3
    # would hold 9 + 4 = 13 > 12); at 3 the smallest class is r2's again; r1 (class 3) at 7.
    inst = burst_instance(12, [(6, 3), (1, 5), (1, 4)])
    assert {i: r[0].start for i, r in simulate(inst, "geo-batch").runs.items()} == {"r0": 0, "r2": 3, "r1": 7}


# -- a user's scheduler file ------------------------------------------------------------------
USER_FILE = textwrap.dedent('''
    from geosched.reference_impl.scheduling import Decision

    class Lifo:
        name = "lifo-user"
        clairvoyant = False
        preempts = False

        def decide(self, state):
            for w in reversed(state.waiting):  # the latest arrival, alone when it fits
                if not state.running and w.prompt + 1 <= state.memory:
                    return Decision(admit=(w.id,))
            return Decision()


    class NeedsArgs(Lifo):
        def __init__(self, depth):
            self.depth = depth
''')


def test_a_scheduler_file_runs_by_name(tmp_path, monkeypatch):
    path = tmp_path / "user_sched.py"
    path.write_text(USER_FILE)
    monkeypatch.chdir(tmp_path)
    inst = Instance(20, [Request("a", 0, 1, 2), Request("b", 1, 1, 2)])
    # one at a time, latest first: a at 0 (alone), done at 2; b at 2
    assert simulate(inst, "user_sched.py:Lifo").starts == {"a": 0, "b": 2}
    assert simulate(inst, str(path) + ":Lifo").policy == "lifo-user"


@pytest.mark.parametrize("spec, words", [
    ("missing.py:Lifo", "no such file 'missing.py'"),
    ("user_sched.py:Nope", "defines no class 'Nope'"),
    ("user_sched.py:Decision", "not a scheduler"),
    ("user_sched.py:", "is named 'path/to/file.py:ClassName'"),
    ("broken.py:X", "fails to import (ZeroDivisionError"),
    ("user_sched.py:NeedsArgs", "must build with no arguments"),
])
def test_a_bad_scheduler_file_is_one_line(tmp_path, monkeypatch, spec, words):
    (tmp_path / "user_sched.py").write_text(USER_FILE)
    (tmp_path / "broken.py").write_text("1 / 0\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValidationError, match=re.escape(words)) as info:
        simulate(burst_instance(12, [(1, 1)]), spec)
    assert "\n" not in str(info.value)
