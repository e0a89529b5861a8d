"""Pure-Python tests of the vLLM pieces that need no vLLM: configuration, keys, the paper
gate and the vLLM-semantics model (the differential tests against real vLLM are in
``test_vllm_differential.py``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.vllm.admission import PaperGate
from geosched.reference_impl.vllm.config import GeoschedSchedulerConfig, LengthQuery, order_key, resolve_predictor
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, VllmSemantics


def test_package_imports_without_vllm():
    code = (
        "import sys; sys.modules['vllm'] = None\n"  # any 'import vllm' now raises ImportError
        "import geosched.reference_impl.vllm as v\n"
        "from geosched.reference_impl.vllm import semantics, config, admission, harness\n"
        "assert not harness.vllm_available()\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# -- configuration and keys ----------------------------------------------------------------
def test_config_sources_precedence():
    env = {"GEOSCHED_POLICY": "sjf", "GEOSCHED_MODE": "native", "GEOSCHED_BACKFILL": "1"}
    cfg = GeoschedSchedulerConfig.from_sources(None, env)
    assert (cfg.policy, cfg.mode, cfg.backfill) == ("sjf", "native", True)
    cfg = GeoschedSchedulerConfig.from_sources({"policy": "svf", "mode": "paper"}, env)
    assert (cfg.policy, cfg.mode, cfg.backfill) == ("svf", "paper", True)
    assert GeoschedSchedulerConfig.from_sources(None, {}) == GeoschedSchedulerConfig()


@pytest.mark.parametrize(
    "section, error, text",
    [
        ({"mode": "eager"}, ValidationError, "geosched mode"),
        ({"polcy": "svf"}, ValidationError, "unknown key"),
        ({"policy": "lifo"}, UnknownNameError, "fcfs"),
        ({"policy": "svf1"}, ValidationError, "theta"),
        ({"backfill": "maybe"}, ValidationError, "backfill"),
        ({"predictor": "no_such_module_xyz:f"}, ValidationError, "predictor"),
        ({"predictor": "oracle-ish"}, ValidationError, "predictor"),
    ],
)
def test_config_errors_name_the_field(section, error, text):
    with pytest.raises(error, match=text):
        GeoschedSchedulerConfig.from_sources(section, {})


def test_order_key_by_hand():
    # vLLM prompt P = s + 1. SVF: volume(s, o) = s*o + o(o+1)/2.
    assert order_key(make_policy("svf"), 7, 3) == 6 * 3 + 6  # 24
    assert order_key(make_policy("svf"), 2, 5) == 1 * 5 + 15  # 20
    assert order_key(make_policy("sjf"), 100, 5) == 5
    assert order_key(make_policy("fcfs"), 100, 5) == 0
    # 1-bit SVF: o_hat = 9 > theta = 8 -> long class, proxy O_1 = 20: volume(4, 20) = 80 + 210
    assert order_key(make_policy("svf1:theta=8,short_length=3,long_length=20"), 5, 9) == 290
    with pytest.raises(ValidationError, match="prompt_tokens"):
        order_key(make_policy("svf"), 0, 3)


def test_predictors():
    oracle = resolve_predictor("oracle")
    assert oracle(LengthQuery("a", 3, 17, 0.0)) == 17
    with pytest.raises(ValidationError, match="max_tokens"):
        oracle(LengthQuery("a", 3, None, 0.0))
    halve = resolve_predictor(lambda q: q.max_tokens // 2)
    assert halve(LengthQuery("a", 3, 17, 0.0)) == 8
    assert resolve_predictor("geosched.reference_impl.vllm.config:oracle_predictor") is oracle


# -- the paper gate is the simulator's check --------------------------------------------------
@st.composite
def instances(draw, max_n=8, max_memory=40):
    memory = draw(st.integers(2, max_memory))
    requests = []
    for k in range(draw(st.integers(1, max_n))):
        s = draw(st.integers(0, memory - 1))
        requests.append(Request(f"r{k}", draw(st.integers(0, 12)), s, draw(st.integers(1, memory - s))))
    return Instance(memory, requests)


def _gated_semantics(instance, policy, block_size=1, capacity=None, backfill=False):
    policy_obj = make_policy(policy)
    gate = PaperGate(capacity or instance.memory, block_size, backfill=backfill)
    specs = {}

    def offer(step, running, waiting):
        cands = ((rid, tokens, max(1, specs[rid].max_tokens - g)) for rid, tokens, g in waiting)
        return gate.select(step, running, cands)

    def admitted(rid, step, r):
        gate.admitted(rid, step, r.num_tokens, max(1, r.max_tokens - r.generated))

    total = sum(r.prompt + 1 for r in instance.requests) + instance.n
    params = EngineParams(capacity_blocks=capacity or instance.memory, block_size=block_size,
                          max_num_seqs=instance.n, max_num_batched_tokens=max(total, instance.n))
    model = VllmSemantics(params, admission_gate=offer, on_admit=admitted)
    for r in instance.requests:
        spec = SemRequest(r.id, r.arrival, r.prompt + 1, r.output, key=order_key(policy_obj, r.prompt + 1, r.output))
        specs[r.id] = spec
        model.add(spec)
    starts = {}
    for state in model.run():
        for rid in state.admitted:
            starts[rid] = state.step
    return starts, model


@given(instance=instances(max_memory=60), block_size=st.sampled_from([2, 4, 16]), slack=st.integers(0, 3))
def test_gate_with_blocks_never_preempts(instance, block_size, slack):
    """Inflating prompts by B - 1 makes the gate safe with blocks: exact predictions, no
    preemption, and every request is served, even with just enough blocks for the largest."""
    need = max(-(-(r.prompt + r.output) // block_size) for r in instance.requests)
    starts, model = _gated_semantics(instance, "svf", block_size, capacity=need + slack)
    assert model.preemptions == 0
    assert set(starts) == {r.id for r in instance.requests}


def test_gate_admits_a_request_that_fits_alone_only_without_inflation():
    # P = 24, o = 1, B = 4: ceil(24 / 4) = 6 blocks = the whole capacity. Inflated, s = 23 + 3
    # = 26 > M = 24, yet alone it fits: the gate must start it (regression: it never did).
    gate = PaperGate(capacity_blocks=6, block_size=4)
    assert gate.select(0, [], [("a", 24, 1)]) == ["a"]
    gate.admitted("a", 0, 24, 1)
    assert gate.select(0, ["a"], [("b", 1, 1)]) == []  # nothing joins it


# -- the semantics model by hand --------------------------------------------------------------
def test_semantics_fcfs_preempts_last_running_by_hand():
    # capacity 12, B = 1. Call 0: r0 (P=7) then r1 (P=2) admitted: 9 blocks. Call 1: 8 + 3 = 11.
    # Call 2: r0 needs 9 (1 new, 1 free left -> ok: 12), r1 needs 4: none free -> the last
    # running request is r1 itself: preempted; r0 samples its 3rd token and finishes.
    model = VllmSemantics(EngineParams(capacity_blocks=12), queue_order="fcfs")
    model.add(SemRequest("r0", 0, 7, 3))
    model.add(SemRequest("r1", 0, 2, 5))
    states = list(model.run())
    assert states[0].admitted == ("r0", "r1") and states[0].blocks_used == 9
    assert states[1].blocks_used == 11
    assert states[2].preempted == ("r1",) and states[2].finished == ("r0",) and states[2].blocks_used == 9
    # call 3: r1 re-prefills P + 2 generated = 4 tokens and samples its 3rd output; calls 4
    # and 5 sample the 4th and 5th, holding 2 + 4 = 6 blocks in the last one.
    assert states[3].admitted == ("r1",) and dict(states[3].scheduled) == {"r1": 4}
    assert states[-1].finished == ("r1",) and states[-1].step == 5 and states[-1].blocks_used == 6


def test_semantics_priority_preempts_largest_priority():
    # priority policy: victim = max (priority, arrival) = r0 (priority 5) although it runs first.
    model = VllmSemantics(EngineParams(capacity_blocks=12, preemption="priority"), queue_order="priority")
    model.add(SemRequest("r0", 0, 7, 3, priority=5))
    model.add(SemRequest("r1", 0, 2, 5, priority=1))
    states = list(model.run())
    assert states[0].admitted == ("r1", "r0")  # the heap serves priority 1 first
    assert states[2].preempted == ("r0",)


def test_semantics_chunked_prefill_and_budget():
    # budget 4 tokens per step: a 10-token prompt is prefilled in chunks 4, 4, 2; the first
    # output is sampled in the step of the last chunk.
    model = VllmSemantics(EngineParams(capacity_blocks=64, max_num_batched_tokens=4, max_num_seqs=4))
    model.add(SemRequest("a", 0, 10, 2))
    states = list(model.run())
    assert [dict(s.scheduled)["a"] for s in states] == [4, 4, 2, 1]
    assert states[-1].finished == ("a",)


def test_semantics_head_of_line_blocking_and_max_num_seqs():
    # max_num_seqs = 1: the second request waits until the first finishes
    model = VllmSemantics(EngineParams(capacity_blocks=64, max_num_seqs=1))
    model.add(SemRequest("a", 0, 3, 2))
    model.add(SemRequest("b", 0, 1, 1))
    states = list(model.run())
    assert [s.admitted for s in states] == [("a",), (), ("b",)]


def test_engine_params_validation():
    with pytest.raises(ValueError, match="capacity_blocks"):
        EngineParams(capacity_blocks=0)
    with pytest.raises(ValueError, match="preemption"):
        EngineParams(capacity_blocks=4, preemption="lifo")
