"""Verdicts a user can read (issue 44, item 6): a leaked block is called a leak, ``prove`` says each word once,
hunt's progress calls its running best what it is (found, not yet certified)."""

from __future__ import annotations

from geosched.reference_impl.model import burst_instance
from geosched.reference_impl.vllm.differential import interpret_divergence
from geosched.reference_impl.vllm.semantics import StepState

INSTANCE = burst_instance(40, [(6, 3), (1, 5), (2, 2)])


def test_a_block_leak_beside_running_requests_is_called_a_leak():
    # r0 runs in both; the reference admits r1 too and holds 2 blocks; ours holds 2 blocks for r0 alone
    ours = StepState(4, (), (), ("r0",), (("r0", 1),), (), 2)
    theirs = StepState(4, ("r1",), (), ("r0", "r1"), (("r0", 1), ("r1", 1)), (), 2)
    line = interpret_divergence(ours, theirs, "Leaky in vLLM", "model", INSTANCE)
    assert line.endswith("a block leak") and "holds back" in line and "2 KV blocks" in line


def test_holding_back_with_fewer_blocks_is_a_stricter_admission_not_a_leak():
    ours = StepState(4, (), (), ("r0",), (("r0", 1),), (), 1)
    theirs = StepState(4, ("r1",), (), ("r0", "r1"), (("r0", 1), ("r1", 1)), (), 2)
    line = interpret_divergence(ours, theirs, "Strict in vLLM", "model", INSTANCE)
    assert "leak" not in line and "a stricter admission or another queue head" in line


def test_hunts_progress_calls_its_best_found_not_yet_certified():
    import io

    from geosched import progress
    from geosched.adversary.hunt import _Progress

    out = io.StringIO()
    with progress.reporting("hunt", stream=out, terminal=False, interval=0.0, heartbeat=False):
        _Progress(True).show("anneal", 1.635, 120, 3.0, 40.0)
    line = out.getvalue().strip().splitlines()[-1]
    assert "best found 1.6350 (not yet certified)" in line and "certified ratio" not in line


def test_hunts_summary_says_certified_ratio_once(tmp_path, capsys):
    from geosched.cli import main

    assert main(["hunt", "--policy", "svf", "--method", "anneal", "--time", "1", "--out", str(tmp_path / "h")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("best certified ratio ") and first.count("certified ratio") == 1
    assert "(by the witness anneal_" in first


def test_proves_footer_says_each_word_once():
    from types import SimpleNamespace

    from geosched.verify.prove import ledger_footer

    dep = SimpleNamespace(id="kong.lemmaA.2", status="proved", message="proved (Coq, every n: lemmaA2_peak_mass)")
    row = SimpleNamespace(status="proved", message="proved (Coq, every n: thm32_svf_competitive)", note="",
                          evidence=())
    text = ledger_footer(row, "quick", "kong.thm3.2", (dep,))
    assert "kong.lemmaA.2: proved (Coq, every n: lemmaA2_peak_mass)" in text
    assert "proved (proved" not in text and "Status: proved (Coq, every n: thm32_svf_competitive), as" in text


def test_the_replay_verdict_explains_a_tel_that_differs_after_a_drift():
    from geosched.reference_impl.vllm.replay import replay_fidelity, replay_verdict

    drifted = replay_fidelity([0.0, 0.01, 1.0], [0, 0, 1], {0: 5.0, 1: 5.01, 2: 7.5}, 1.0, 1.0)
    faithful = replay_fidelity([0.0, 0.01, 1.0], [0, 0, 1], {0: 5.0, 1: 5.01, 2: 6.0}, 1.0, 1.0)
    assert (drifted.status, faithful.status) == ("drifted", "faithful")
    differs = {"comparable": True, "equal": False, "tel_steps": 495, "model_tel_steps": 496}
    same = {"comparable": True, "equal": True, "tel_steps": 496, "model_tel_steps": 496}
    line = replay_verdict(drifted, differs)
    assert "TEL 495 differs from the witness's 496 because the replay drifted: lines 2 reached" in line
    assert "not a scheduler difference" in line
    assert "a difference of the scheduler, not of the replay" in replay_verdict(faithful, differs)
    assert "the replay reproduces the witness" in replay_verdict(faithful, same)
    assert replay_verdict(drifted, {**differs, "comparable": False}) == ""  # another scheduler's TEL: no verdict
