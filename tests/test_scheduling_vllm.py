"""vLLM's stock rules in the exact model against vLLM 0.33's real scheduler, call by call.

``tests/test_scheduling.py`` shows that the exact-model schedulers ``vllm-fcfs`` and
``vllm-priority`` equal the vLLM-semantics model (whose loops they share); here they meet vLLM
itself (:func:`geosched.reference_impl.vllm.exact.diff_exact`: every call's admissions,
preemptions, running list, scheduled tokens, completions and KV blocks), on instances of the
differential suite's shape, and a user's scheduler file goes through ``vllm-diff`` by name.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geosched.reference_impl.model import Instance, Request, burst_instance

if os.environ.get("GEOSCHED_REQUIRE_VLLM") == "1":  # CI: a missing vLLM is a failure, not a skip
    import vllm  # noqa: F401
else:
    pytest.importorskip("vllm", reason="vLLM is not installed")

from geosched.reference_impl.vllm.exact import diff_exact  # noqa: E402

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


@st.composite
def model_instances(draw, max_n: int = 7, max_memory: int = 30, max_arrival: int = 10) -> Instance:
    memory = draw(st.integers(2, max_memory))
    requests = []
    for k in range(draw(st.integers(1, max_n))):
        prompt = draw(st.integers(0, memory - 1))
        requests.append(Request(f"r{k}", draw(st.integers(0, max_arrival)), prompt,
                                draw(st.integers(1, memory - prompt))))
    return Instance(memory, requests)


@pytest.mark.parametrize("name", ["vllm-fcfs", "vllm-priority"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=model_instances())
def test_exact_model_vllm_equals_real_vllm(name, instance):
    result = diff_exact(instance, name)
    assert result.ok, result.report()


def test_hand_example_preempts_in_both_worlds():
    result = diff_exact(burst_instance(12, [(6, 3), (1, 5)]), "vllm-fcfs")
    assert result.ok and result.preemptions == 1 and result.finish_calls == {"r0": 2, "r1": 5}


def test_a_different_scheduler_diverges_and_the_rule_comes_from_the_scheduler():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    # vllm-priority's own preemption attribute sets vLLM's policy, whatever the default says
    assert diff_exact(inst, "vllm-priority", preemption="fcfs").ok
    wrong = diff_exact(inst, "geo-guess")  # smallest believed volume first: r1 before r0, vLLM r0 first
    assert not wrong.ok and wrong.step == 0 and "admitted" in wrong.fields


def test_vllm_diff_accepts_a_scheduler_file(tmp_path):
    (tmp_path / "mine.py").write_text(textwrap.dedent('''
        from geosched.reference_impl.schedulers.vllm import VllmScheduler

        class Mine(VllmScheduler):
            name = "mine"
    '''))
    env = dict(os.environ, VLLM_TARGET_DEVICE="cpu", HF_HUB_OFFLINE="1")
    proc = subprocess.run([str(Path(sys.executable).parent / "geosched"), "vllm-diff", "example", "--reference",
                           "policy", "--policy", "mine.py:Mine"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "agrees with the policy:mine.py:Mine model" in proc.stdout
