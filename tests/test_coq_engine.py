"""The Coq SVF, extracted, against the Python simulator and checker (issue 22, item 3).

``verify/coq/Svf.v``'s ``svf`` is the function Thm. 3.2 is proved for; here its extraction
(geosched.verify.coq_engine) must give the Python simulator's starts and the checker's TEL on
thousands of Hypothesis burst instances and on a slice of the Azure trace, and Coq's
``feasibleb`` must agree with the checker (geosched.reference_impl.checker) on feasible and
infeasible schedules. A mutated Python SVF must make the comparison fail.

Skips when coqc is not installed, unless ``GEOSCHED_REQUIRE_COQ=1`` (CI), where that fails.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geosched as gs
from geosched.cli import main
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl import admission
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.policies import ShortestJobFirst, SmallestVolumeFirst
from geosched.reference_impl.workloads import read_trace
from geosched.testing import instances
from geosched.verify import coq_engine

if os.environ.get("GEOSCHED_REQUIRE_COQ") == "1":  # CI: a missing coqc is a failure, not a skip
    assert coq_engine.coq_available(), f"GEOSCHED_REQUIRE_COQ=1 but {coq_engine.missing_tools()} missing"
elif not coq_engine.coq_available():
    pytest.skip(f"{', '.join(coq_engine.missing_tools())} not installed (Debian package coq; ci/setup.sh)",
                allow_module_level=True)

BATCH = 50  # instances per Hypothesis example: one engine process per example


@pytest.fixture(scope="module")
def built():
    result = coq_engine.build()
    assert result.status == "ok", result.message
    return result


def _seeded_corpus(seed: int, count: int, max_n: int, max_memory: int) -> list[Instance]:
    rng = random.Random(seed)
    corpus = []
    for _ in range(count):
        memory = rng.randint(2, max_memory)
        lengths = []
        for _ in range(rng.randint(1, max_n)):
            output = rng.randint(1, memory)
            lengths.append((rng.randint(0, memory - output), output))
        corpus.append(burst_instance(memory, lengths))
    return corpus


def test_the_papers_instance(built):
    # M = 12, (6, 3) and (1, 5): volumes 24 > 20, so (1, 5) starts at 0 and (6, 3) when it fits, at 5
    assert coq_engine.simulate_coq(burst_instance(12, [(6, 3), (1, 5)])) == {"r0": 5, "r1": 0}
    # ties by position: three equal volumes, two fit together (Svf.v's svf_ties example)
    assert coq_engine.simulate_coq(burst_instance(16, [(0, 8)] * 3)) == {"r0": 0, "r1": 0, "r2": 8}


@settings(max_examples=10, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          deadline=None)
@given(st.lists(instances(min_n=4, max_n=12, min_memory=20, max_memory=120, max_prompt=60, max_output=40,
                          burst=True), min_size=BATCH, max_size=BATCH))
def test_coq_equals_python_on_larger_bursts(built, batch):
    assert coq_engine.differential(batch).mismatches == ()


def test_feasibility_comparison_sees_both_answers(built):
    report = coq_engine.differential(_seeded_corpus(1, 300, 6, 16))
    assert report.mismatches == ()
    assert 0 < report.infeasible < report.schedules  # feasible and infeasible schedules were both compared


def test_the_coq_sjf_on_the_sjf_family_has_the_closed_form(built):
    # theory/kong_sjf_unbounded.py's family at m = 3: M = 2m^2, m x (m^2, 1), m^2 x (0, 2);
    # TEL(SJF) = m(m+1)/2 + m^3 + m^2 + 1 = 43 and TEL(SVF) = 2m^2 + sum_k (k + 2) = 30
    m = 3
    inst = burst_instance(2 * m * m, [(m * m, 1)] * m + [(0, 2)] * (m * m))
    (run,) = coq_engine.run_batch([(inst.memory, [(r.prompt, r.output) for r in inst.requests], ())])
    sjf = dict(zip((r.id for r in inst.requests), run.sjf))
    assert gs.check_schedule(inst, sjf).metrics.tel == 43 and run.tel == 30
    assert sjf == gs.simulate(inst, "sjf").starts
    assert coq_engine.differential([inst]).mismatches == ()


def test_common_arrival_is_shifted_back(built):
    inst = Instance(12, [Request("a", 7, 6, 3), Request("b", 7, 1, 5)])
    assert coq_engine.simulate_coq(inst) == {"a": 12, "b": 7}
    assert coq_engine.differential([inst]).mismatches == ()


@pytest.mark.slow
@pytest.mark.trace
def test_coq_equals_python_on_the_trace(built, trace_path):
    # the first 500 rows as a burst; M = twice the largest peak (alpha = 1/2, the reader's default)
    inst, info = read_trace(trace_path, limit=500)
    assert info.rows == 500 and inst.alpha <= 1
    report = coq_engine.differential([inst])
    assert report.mismatches == ()
    assert report.instances == 1 and report.schedules == 5


def _window_shortened(self, memory, prompt, output, start):
    # the forward check without its window: only the candidate's own last step is checked
    return self.usage(start + output) + prompt + output <= memory


@pytest.mark.parametrize("mutation", ["window", "key", "sjf-key"])
def test_a_mutated_python_svf_makes_the_comparison_fail(built, monkeypatch, mutation):
    corpus = _seeded_corpus(2, 400, 6, 16)
    assert coq_engine.differential(corpus).mismatches == ()
    if mutation == "window":
        monkeypatch.setattr(admission.ForwardCheck, "fits", _window_shortened)
    elif mutation == "key":  # shortest output first instead of smallest volume
        monkeypatch.setattr(SmallestVolumeFirst, "array_keys", lambda self, prompt, predicted: predicted)
    else:  # SJF by prompt instead of output
        monkeypatch.setattr(ShortestJobFirst, "array_keys", lambda self, prompt, predicted: prompt)
    report = coq_engine.differential(corpus)
    assert report.mismatches, f"the {mutation} mutation went unnoticed on {report.instances} instances"
    marker = "SJF starts Coq" if mutation == "sjf-key" else ": starts Coq"
    assert any(marker in line for line in report.mismatches)


# --------------------------------------------------------------------------- the public API and the CLI


def test_gs_simulate_with_the_coq_engine(built):
    inst = gs.Instance(12, [gs.Request("a", 0, 6, 3), gs.Request("b", 0, 1, 5)])
    coq = gs.simulate(inst, "svf", engine="coq")
    python = gs.simulate(inst, "svf")
    assert type(coq) is type(python)
    assert (coq.starts, coq.completions, coq.admission_order) == (python.starts, python.completions,
                                                                  python.admission_order)
    assert coq.starts == {"a": 5, "b": 0}
    assert "Coq" in coq.message


def test_admission_order_matches_on_a_corpus(built):
    for inst in _seeded_corpus(3, 60, 6, 16):
        assert gs.simulate(inst, "svf", engine="coq").admission_order == gs.simulate(inst, "svf").admission_order


@pytest.mark.parametrize(("call", "field"), [
    (lambda inst: gs.simulate(inst, "sjf", engine="coq"), "policy"),
    (lambda inst: gs.simulate(inst, "svf", engine="coq", backfill=True), "backfill"),
    (lambda inst: gs.simulate(inst, "svf", engine="coq", predictor="noisy"), "predictor"),
    (lambda inst: gs.simulate(Instance(12, [Request("a", 0, 6, 3), Request("b", 2, 1, 5)]), "svf", engine="coq"),
     "request 'b': arrival"),
])
def test_coq_engine_rejects_what_is_not_proved(call, field):
    with pytest.raises(ValidationError) as info:
        call(burst_instance(12, [(6, 3), (1, 5)]))
    assert info.value.field == field
    assert "\n" not in str(info.value)


def test_unknown_engine_is_named():
    with pytest.raises(UnknownNameError, match="unknown engine 'lean'; known: coq, python"):
        gs.simulate(burst_instance(12, [(6, 3)]), "svf", engine="lean")


def _python_starts(inst):
    return gs.simulate(inst, "svf").starts


def test_outputs_of_a_billion_tokens_run_without_stack_overflow(built):
    # issue 30: the step-by-step extraction overflowed its stack at ~10^6-token outputs
    for memory in (2 * 10**9, 15 * 10**8, 10**9 + 7):
        inst = burst_instance(memory, [(5, 10**9), (7, 10**9)])
        assert coq_engine.simulate_coq(inst) == _python_starts(inst)
    # by hand: M = 2e9, both fit once (5 + 1e9) + (7 + 1e9 - x) <= 2e9 at the first one's finish, x >= 12
    assert coq_engine.simulate_coq(burst_instance(2 * 10**9, [(5, 10**9), (7, 10**9)])) == {"r0": 0, "r1": 12}


def test_prompts_near_2_53_and_values_past_63_bits(built):
    # volumes (2so + o^2 + o) past 2^73: Zarith integers, no guard, no wrap-around
    big = 2**53
    inst = burst_instance(big, [(big - 2, 1), (big - 10**6, 999_999), (17, 10**9), (big // 2, 3)])
    assert coq_engine.simulate_coq(inst) == _python_starts(inst)
    lengths = [(r.prompt, r.output) for r in inst.requests]
    starts = [_python_starts(inst)[r.id] for r in inst.requests]
    (run,) = coq_engine.run_batch([(inst.memory, lengths, [starts])])
    assert run.tel == sum(x + o for x, (_, o) in zip(starts, lengths))  # TEL from the definition
    assert run.feasible and run.checks == (True,) and run.tels == (run.tel,)
    assert list(run.sjf) == [gs.simulate(inst, "sjf").starts[r.id] for r in inst.requests]


def test_many_requests_run_without_stack_overflow(built):
    # n unit requests in M = 1: one at a time, in the instance order (equal volumes: ties by position),
    # so request k starts at k; every list pass of the engine is tail-recursive
    n = 200_000
    (run,) = coq_engine.run_batch([(1, [(0, 1)] * n, ())], starts_only=True)
    assert run.starts == tuple(range(n))


def test_the_work_estimate_and_the_batch_bound():
    assert coq_engine.batch_bound(10, [0, 0, 4, 9]) == 3  # 1 + 1 + 5 <= 10 < 1 + 1 + 5 + 10
    assert coq_engine.batch_bound(5, [4, 0]) == 1 and coq_engine.batch_bound(0, [0]) == 0
    small = coq_engine.estimate_work(12, [(6, 3), (1, 5)], starts_only=True)
    assert small == 2 * 2 * 2 + 2 * (2 + 1)  # sorts 2 n bit_length(n), placement n (k + 1), k = 2 (2 + 7 <= 12)
    # grows with n and the batch, not with the lengths (below 62 bits)
    assert coq_engine.estimate_work(12, [(6, 3 * 10**12), (1, 5)], starts_only=True) == small
    assert coq_engine.estimate_work(10**6, [(0, 1)] * 100, starts_only=True) > \
        coq_engine.estimate_work(1, [(0, 1)] * 100, starts_only=True)
    # the full output adds SJF and the n^2 feasibility checks, per schedule
    full = coq_engine.estimate_work(12, [(6, 3), (1, 5)], [[0, 0]])
    assert full == 2 * small + 2 * 2 * 2
    assert coq_engine.estimate_work(2**200, [(1, 1)], starts_only=True) == 4 * \
        coq_engine.estimate_work(2**40, [(1, 1)], starts_only=True)  # 201 bits: 4 words of 62


def test_work_past_the_limit_is_refused_before_running(built, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the engine ran")

    monkeypatch.setattr(coq_engine.subprocess, "run", never)
    inst = burst_instance(50, [(1, 2)] * 40)
    needed = coq_engine.estimate_work(50, [(1, 2)] * 40, starts_only=True)
    with pytest.raises(ValidationError) as info:
        coq_engine.simulate_coq(inst, work_limit=needed - 1)
    message = str(info.value)
    assert "\n" not in message and str(needed - 1) in message and "--coq-work-limit" in message
    with pytest.raises(ValidationError, match="coq-work-limit"):
        gs.simulate(inst, "svf", engine="coq", coq_work_limit=needed - 1)
    monkeypatch.undo()
    assert coq_engine.simulate_coq(inst, work_limit=needed) == _python_starts(inst)


def test_the_default_work_limit_refuses_a_size_bomb(built, monkeypatch, capsys):
    monkeypatch.setattr(coq_engine.subprocess, "run", lambda *a, **k: pytest.fail("the engine ran"))
    # M past the sum of the peaks: the whole burst is one batch, n^2 = 10^10 visits
    assert main(["simulate", "burst:n=100000", "--memory", str(10**9), "--engine", "coq"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(coq_engine.WORK_LIMIT) in err and "--coq-work-limit" in err


def test_a_run_past_the_time_limit_is_reported_as_such(built, monkeypatch, capsys):
    seen = {}
    real_run = subprocess.run

    def timed_out(command, **kwargs):  # the engine ran past its limit: subprocess.run's own report
        if not command[0].endswith(coq_engine.BINARY):
            return real_run(command, **kwargs)  # coqc --version and the like, for the build cache's key
        seen["timeout"] = kwargs["timeout"]
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])

    monkeypatch.setattr(coq_engine.subprocess, "run", timed_out)
    with pytest.raises(gs.TimeLimitError, match="time limit of 7 s.*--coq-time-limit"):
        coq_engine.simulate_coq(burst_instance(12, [(6, 3), (1, 5)]), time_limit=7)
    assert seen["timeout"] == 7
    assert main(["simulate", "burst:n=5", "--engine", "coq", "--coq-time-limit", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "time limit of 3 s" in err and seen["timeout"] == 3
    with pytest.raises(gs.TimeLimitError):
        coq_engine.simulate_coq(burst_instance(12, [(6, 3)]))
    assert seen["timeout"] == coq_engine.TIME_LIMIT


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"coq_work_limit": 0}, "coq_work_limit"), ({"coq_time_limit": -1.0}, "coq_time_limit"),
    ({"coq_work_limit": 10, "engine": "python"}, "coq_work_limit"),
])
def test_the_limits_are_validated(kwargs, field):
    with pytest.raises(ValidationError) as info:
        gs.simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf", **{"engine": "coq", **kwargs})
    assert info.value.field.endswith(field)


def test_the_cli_help_states_the_default_limits(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"default {coq_engine.WORK_LIMIT}" in out and f"default {coq_engine.TIME_LIMIT:g}" in out


def test_the_executable_refuses_malformed_input_in_one_line(built):
    binary = Path(built.directory) / coq_engine.BINARY
    for text in ("12 2 6 3 1 x 0\n", "12 2 6 3 1 -5 0\n", "12 2 6 3\n"):
        done = subprocess.run([str(binary)], input=text, capture_output=True, text=True)
        assert done.returncode == 2 and done.stderr.startswith("bad input: instance 1") and \
            done.stderr.count("\n") == 1, (text, done.stderr)


def test_cli_simulate_engine_coq_matches_python(built, capsys):
    assert main(["simulate", "burst:n=12,seed=4", "--json"]) == 0
    python = capsys.readouterr().out
    assert main(["simulate", "burst:n=12,seed=4", "--engine", "coq", "--json"]) == 0
    coq = capsys.readouterr().out
    assert python.replace('"engine": "python"', '"engine": "coq"') == coq


@pytest.mark.parametrize("argv", [
    ["simulate", "burst:n=5", "--engine", "coq", "--policy", "sjf"],
    ["simulate", "poisson:n=20", "--engine", "coq"],
    ["simulate", "burst:n=5", "--engine", "coq", "--backfill"],
])
def test_cli_engine_coq_refuses_in_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("geosched: error: ") and err.count("\n") == 1


def test_cli_without_coqc_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(coq_engine, "missing_tools", lambda: ["coqc"])
    assert main(["simulate", "burst:n=5", "--engine", "coq"]) == 2
    err = capsys.readouterr().err
    assert "coqc" in err and "not installed" in err and err.count("\n") == 1


@pytest.mark.parametrize("theorem", coq_engine.ENGINE_THEOREMS)
def test_the_engine_runs_only_while_its_functions_are_proved_equal_to_the_model(built, monkeypatch, theorem):
    import dataclasses

    from geosched.errors import SolverError

    opened = dataclasses.replace(built, theorems={**built.theorems, theorem: False})
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: opened)
    with pytest.raises(SolverError, match=f"{theorem} not closed"):
        coq_engine.simulate_coq(burst_instance(12, [(6, 3), (1, 5)]))


def test_without_zarith_the_extraction_runs_and_nothing_is_linked(built, monkeypatch, tmp_path):
    import shutil

    src, work = tmp_path / "src", tmp_path / "work"
    shutil.copytree(Path(built.directory) / "src", src)
    work.mkdir()
    monkeypatch.setattr(coq_engine, "_zarith_dir", lambda: None)
    step = coq_engine._extract_and_compile(src, work)
    assert (step.status, step.error) == \
        ("failed", "zarith not installed (Debian package libzarith-ocaml-dev): the engine is not linked")
    assert (src / coq_engine.EXTRACTED).is_file() and not (work / coq_engine.BINARY).exists()
    assert coq_engine.engine_missing() == ["zarith (Debian package libzarith-ocaml-dev)"]


def test_without_zarith_the_engine_says_so_in_one_line(built, monkeypatch):
    import dataclasses

    unlinked = dataclasses.replace(built, engine=False)
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: unlinked)
    monkeypatch.setattr(coq_engine, "engine_missing", lambda: ["zarith (Debian package libzarith-ocaml-dev)"])
    with pytest.raises(ValidationError, match="libzarith-ocaml-dev") as info:
        coq_engine.simulate_coq(burst_instance(12, [(6, 3), (1, 5)]))
    assert info.value.field == "engine" and "\n" not in str(info.value)
