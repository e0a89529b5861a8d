"""Block grain (issue 26): a request holding u tokens holds ceil(u / B) blocks of B tokens; M stays in tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance
from tests.test_scheduling import runs_from_states, semantics_states


def _blocks_held(instance: Instance, starts: dict[str, int], t: int, block: int) -> int:
    """Brute force, one step: every request's tokens rounded up to whole blocks."""
    held = 0
    for r in instance.requests:
        x = starts[r.id]
        if x < t <= x + r.output:
            held += -(-(r.prompt + t - x) // block) * block
    return held


@st.composite
def _scheduled(draw):
    block = draw(st.sampled_from([1, 2, 4, 8, 16]))
    memory = block * draw(st.integers(2, 12))
    n = draw(st.integers(1, 6))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, max(1, memory // 2)))
        prompt = draw(st.integers(0, memory - output))
        requests.append(Request(f"q{k}", draw(st.integers(0, 4)), prompt, output))
    inst = Instance(memory, requests, block)
    starts = {r.id: r.arrival + draw(st.integers(0, 12)) for r in requests}
    return inst, starts, block


@settings(max_examples=400, deadline=None)
@given(_scheduled())
def test_block_grain_check_equals_brute_force(case):
    inst, starts, block = case
    report = check_schedule(inst, starts)
    horizon = max(starts[r.id] + r.output for r in inst.requests) + 1
    held = [_blocks_held(inst, starts, t, block) for t in range(horizon + 1)]
    over = [t for t, h in enumerate(held) if h > inst.memory]
    assert report.feasible == (not over)
    if over:
        v = report.first_violation
        assert v.kind == "memory" and v.step == over[0] and v.amount == held[over[0]] - inst.memory
    else:
        assert report.metrics.peak_memory == max(held)
    if block == 1:
        token = inst.with_block_size(1)
        assert report == check_schedule(token, starts) or report.violations == check_schedule(token, starts).violations


def test_block_grain_is_stricter_than_token_grain():
    inst = burst_instance(16, [(6, 3), (1, 5)])
    assert check_schedule(inst, {"r0": 0, "r1": 0}).feasible  # 9 + 4 = 13 tokens at step 3
    assert check_schedule(inst.with_block_size(4), {"r0": 0, "r1": 0}).feasible  # 12 + 4 blocks' tokens
    report = check_schedule(inst.with_block_size(8), {"r0": 0, "r1": 0})  # 16 + 8 at step 3
    assert (report.first_violation.step, report.first_violation.amount) == (3, 8)


@pytest.mark.parametrize("block", [0, -16, 1.5, True, 5])
def test_bad_block_sizes_are_refused_by_the_instance(block):
    with pytest.raises(ValidationError, match="block_size"):
        burst_instance(16, [(1, 1)], block)


# -- the simulator and the schedulers at block grain ---------------------------------------------------------------

def _stepwise_blocks(instance: Instance, keys: list, block: int) -> dict[str, int]:
    """A naive per-step strict head-of-line scan with the forward check in whole blocks, every future step."""
    reqs, memory = instance.requests, instance.memory
    order = sorted(range(instance.n), key=lambda i: (keys[i], reqs[i].arrival, i))
    start: dict[int, int] = {}
    t = 0
    while len(start) < instance.n:
        waiting = [i for i in order if i not in start and reqs[i].arrival <= t]
        for i in waiting:
            trial = {**start, i: t}
            horizon = t + reqs[i].output
            fits = all(sum(-(-(reqs[j].prompt + u - x) // block) * block for j, x in trial.items()
                           if x < u <= x + reqs[j].output) <= memory for u in range(t + 1, horizon + 1))
            if not fits:
                break
            start[i] = t
        t += 1
    return {reqs[i].id: x for i, x in start.items()}


@st.composite
def _block_instances(draw):
    block = draw(st.sampled_from([2, 4, 8, 16]))
    memory = block * draw(st.integers(2, 8))
    n = draw(st.integers(1, 6))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, max(1, memory // 2)))
        prompt = draw(st.integers(0, memory - output - block + 1)) if memory - output - block + 1 >= 0 else 0
        requests.append(Request(f"q{k}", draw(st.integers(0, 5)), prompt, output))
    return Instance(memory, requests, block), block


@settings(max_examples=200, deadline=None)
@given(_block_instances(), st.sampled_from(["svf", "sjf", "fcfs"]))
def test_priority_rules_at_block_grain_equal_a_naive_scan(case, policy):
    from geosched.reference_impl.policies import make_policy
    from geosched.reference_impl.simulation import simulate

    inst, block = case
    if any(-(-(r.prompt + r.output) // block) * block > inst.memory for r in inst.requests):
        return  # a request that does not fit alone in whole blocks: refused below
    result = simulate(inst, policy)
    keys = make_policy(policy).keys(inst, [r.output for r in inst.requests])
    assert result.starts == _stepwise_blocks(inst, list(keys), block)
    assert check_schedule(inst, result.starts).feasible


@settings(max_examples=80, deadline=None)
@given(_block_instances(), st.sampled_from(["fcfs", "priority"]))
def test_vllm_rules_at_block_grain_equal_the_semantics_model(case, rule):
    from geosched.reference_impl.engine import run_scheduler
    from geosched.reference_impl.schedulers.vllm import VllmScheduler
    from geosched.reference_impl.vllm.semantics import EngineParams

    inst, block = case
    if any(-(-(r.prompt + 1 + r.output - 1) // block) > inst.memory // block for r in inst.requests):
        return
    n = max(inst.n, 1)
    budget = inst.memory + sum(r.prompt + 1 for r in inst.requests) + n
    params = EngineParams(capacity_blocks=inst.memory // block, block_size=block, max_num_seqs=n,
                          max_num_batched_tokens=budget, preemption=rule)
    run = run_scheduler(inst, VllmScheduler(rule, n, budget))
    exact = {i: [(r.start, r.end) for r in runs] for i, runs in run.runs.items()}
    assert exact == runs_from_states(semantics_states(inst, params))
    assert check_schedule(inst, run.runs).feasible


def test_a_scheduler_that_counts_tokens_is_refused_at_block_grain():
    from geosched.reference_impl.simulation import simulate

    with pytest.raises(ValidationError, match="block_size"):
        simulate(burst_instance(32, [(1, 2)], 8), "geo-guess")


# -- hunts and witnesses at block grain --------------------------------------------------------------------------

def test_block_grain_witness_is_certified_at_its_grain():
    from geosched.adversary.targets import get_target
    from geosched.adversary.witness import make_witness, verify_witness
    from geosched.errors import InfeasibleScheduleError, WorkloadFormatError

    token = burst_instance(64, [(20, 10), (5, 12), (30, 3), (1, 16), (9, 9)])
    inst = token.with_block_size(16)
    serial, t = {}, 0
    for r in inst.requests:
        serial[r.id], t = t, t + r.output
    w = make_witness(inst, "vllm-fcfs", serial, found_by="hand")
    assert w.engine["block_size"] == 16 and w.engine["capacity_blocks"] == 4  # derived from the instance
    assert w.to_dict()["instance"]["block_size"] == 16 and w.policy == "vllm-fcfs"
    report = verify_witness(w.to_dict())
    assert report.ok, report.problems
    # the policy's own run at block grain is the step engine's, and differs from token grain here
    assert w.policy_tel == get_target("vllm-fcfs").run(inst).tel != get_target("vllm-fcfs").run(token).tel
    # a schedule that fits in tokens but not in whole blocks certifies nothing at block grain
    tight = {"r0": 0, "r1": 0, "r2": 0, "r3": 12, "r4": 16}
    assert check_schedule(token, tight).feasible and not check_schedule(inst, tight).feasible
    with pytest.raises(InfeasibleScheduleError):
        make_witness(inst, "vllm-fcfs", tight, found_by="hand")
    forged = w.to_dict()
    forged["witness_schedule"] = {"starts": tight, "tel": check_schedule(token, tight).metrics.tel}
    forged["certified_ratio"] = w.policy_tel / forged["witness_schedule"]["tel"]
    assert not verify_witness(forged).ok
    # the grain is the instance's: an engine of another block size, or an instance stripped of it, is refused
    stripped = w.to_dict()
    stripped["instance"] = {k: v for k, v in stripped["instance"].items() if k != "block_size"}
    with pytest.raises(WorkloadFormatError, match="block_size 16 differs from the instance's block_size 1"):
        verify_witness(stripped)


@pytest.mark.parametrize("spec", ["vllm-fcfs:block=16", "vllm-fcfs:blocks=16", "vllm-priority:x"])
def test_the_old_block_spelling_of_vllm_targets_is_refused(spec):
    from geosched.adversary.targets import hunt_target

    with pytest.raises(ValidationError, match="block size is the instance's block_size"):
        hunt_target(spec)


def test_old_witness_files_are_converted_with_their_ratio(tmp_path):
    import json

    from geosched.adversary.upgrade import upgrade_file
    from geosched.adversary.witness import make_witness, read_witness, verify_witness

    inst = burst_instance(64, [(20, 10), (5, 12), (30, 3), (1, 16), (9, 9)], 16)
    serial, t = {}, 0
    for r in inst.requests:
        serial[r.id], t = t, t + r.output
    old = make_witness(inst, "vllm-fcfs", serial, found_by="hand").to_dict()
    old["policy"] = "vllm-fcfs:block=16"  # the spelling before issue 31: the block size in the policy
    del old["instance"]["block_size"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert "verified" in upgrade_file(path)
    new = read_witness(path)
    assert new["policy"] == "vllm-fcfs" and new["instance"] == inst
    assert verify_witness(json.loads(path.read_text())).certified_ratio == verify_witness(
        make_witness(inst, "vllm-fcfs", serial, found_by="hand").to_dict()).certified_ratio
    assert "already current" in upgrade_file(path)


def test_hunt_block_size_flag_is_checked(tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "geosched", "hunt", *args, "--out", str(tmp_path / "h"),
                               "--time", "1", "--quiet"], capture_output=True, text=True, timeout=300)

    bad = run("--policy", "svf", "--block-size", "16", "--memory", "64")
    assert bad.returncode == 2 and "block-size" in bad.stderr and "vLLM targets" in bad.stderr
    assert "Traceback" not in bad.stderr
    bad = run("--policy", "vllm-fcfs", "--block-size", "16", "--memory", "60")
    assert bad.returncode == 2 and "block_size" in bad.stderr and "M = 60" in bad.stderr and "16" in bad.stderr
    assert "Traceback" not in bad.stderr


# -- one spelling: --block-size sets the instance's block size, every command reads it (issue 31) -----------------

def _block_file(folder, block: int | None):
    import json

    inst = burst_instance(64, [(20, 10), (5, 12), (30, 3), (1, 16), (9, 9)], block or 1)
    path = folder / f"b{block}.json"
    path.write_text(json.dumps(inst.to_dict()))
    return str(path)


def test_every_command_reads_the_instance_block_size(tmp_path):
    import json

    from geosched.reference_impl.opt import brute_force_opt
    from geosched.reference_impl.simulation import simulate
    from tests.cli_harness import run_cli

    with_file, plain = _block_file(tmp_path, 16), _block_file(tmp_path, None)
    inst = burst_instance(64, [(20, 10), (5, 12), (30, 3), (1, 16), (9, 9)], 16)
    sim = run_cli(["simulate", with_file, "--policy", "vllm-fcfs", "--json"], tmp_path)
    flag = run_cli(["simulate", plain, "--policy", "vllm-fcfs", "--json", "--block-size", "16"], tmp_path)
    assert sim.code == flag.code == 0, (sim.stderr, flag.stderr)
    expected = check_schedule(inst, simulate(inst, "vllm-fcfs").schedule).metrics.tel
    assert json.loads(sim.stdout)["tel"] == json.loads(flag.stdout)["tel"] == expected
    assert json.loads(sim.stdout)["block_size"] == 16
    token = json.loads(run_cli(["simulate", plain, "--policy", "vllm-fcfs", "--json"], tmp_path).stdout)["tel"]
    assert token != expected  # the grain matters on this instance
    opt = run_cli(["opt", with_file, "--json"], tmp_path)
    assert opt.code == 0 and json.loads(opt.stdout)["tel"] == brute_force_opt(inst).tel
    assert json.loads(opt.stdout)["method"] == "brute"
    compared = run_cli(["compare", with_file, "--policies", "svf,vllm-fcfs", "--json"], tmp_path)
    assert compared.code == 0 and json.loads(compared.stdout)["policies"]["vllm-fcfs"]["tel"] == expected
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps({"starts": {"r0": 0, "r1": 0, "r2": 0, "r3": 12, "r4": 16}}))
    assert run_cli(["check", plain, str(schedule)], tmp_path).code == 0  # fits in tokens
    assert run_cli(["check", with_file, str(schedule)], tmp_path).code == 1  # not in whole blocks of 16


def test_a_different_block_size_on_the_command_line_is_an_error_naming_both(tmp_path):
    from tests.cli_harness import run_cli

    with_file = _block_file(tmp_path, 16)
    for command in (["simulate", with_file], ["check", with_file, with_file], ["opt", with_file],
                    ["compare", with_file]):
        run = run_cli([*command, "--block-size", "8"], tmp_path)
        assert run.clean_error and "16" in run.stderr and "(got 8)" in run.stderr, run.describe()
    assert run_cli(["simulate", with_file, "--block-size", "16"], tmp_path).code == 0  # the same value: fine


def test_token_models_refuse_block_grain_in_one_line(tmp_path):
    from geosched.reference_impl.opt import solve_opt

    inst = burst_instance(64, [(20, 10), (5, 12)], 16)
    for method in ("cpsat", "cpsat-completion", "milp", "milp-tight"):
        with pytest.raises(ValidationError, match="models memory in tokens.*block_size 16"):
            solve_opt(inst, method=method)
    assert solve_opt(inst).method == "brute" and solve_opt(inst, method="brute").status == "optimal"
