"""Mutation testing by a maintained tool (cosmic-ray's operators; benchmarks/mutation_by_tool.py).

The fast tests check the targets, the sampling, the annotation rule, the resource bound and the
bookkeeping; the slow ones run a seeded sample (one mutant per module) through the module runners,
with a mutant that must die (model.volume's closed form), and the benchmark's checkpoint/resume.
"""

from __future__ import annotations

import concurrent.futures
import json
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from geosched.errors import ValidationError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the dev-only mutation tooling
import mutation_by_tool as mt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_has_files_and_a_fast_test_selection():
    assert set(mt.TARGETS) == set(mt.MODULE_TESTS) == set(mt.MODULE_CLAIMS)
    assert len(mt.TARGETS) >= 10
    for module, selectors in mt.TARGETS.items():
        for selector in selectors:
            assert (ROOT / selector.partition("::")[0]).is_file(), selector
        files = [t for t in mt.MODULE_TESTS[module] if t.startswith("tests/")]
        assert files and all((ROOT / t.split("::")[0]).is_file() for t in files), module


def test_a_selector_a_tree_lacks_selects_nothing_there(tmp_path):
    """A target names the code of two trees (before and after a change): what a tree lacks is skipped, what it has
    is mutated. This tree has verify/coq_output.py and no coq_engine._assumptions."""
    every = mt.enumerate_mutants(ROOT, ("verify-coq",))
    paths = {m.path for m in every}
    assert paths == {"verify/coq_evidence.py", "verify/coq_output.py", "verify/coq_engine.py"}
    import ast

    tree = ast.parse((ROOT / "verify/coq_engine.py").read_text())
    spans = {n.name: (n.lineno, n.end_lineno) for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "_assumptions" not in spans
    lines = {m.line for m in every if m.path == "verify/coq_engine.py"}
    kept = [spans["_from_manifest"], spans["_theorem_fields"]]
    assert lines and all(any(a <= line <= b for a, b in kept) for line in lines)
    (tmp_path / "verify").mkdir()
    (tmp_path / "verify" / "coq_evidence.py").write_text("x = 1 + 2\n")
    assert {m.path for m in mt.enumerate_mutants(tmp_path, ("verify-coq",))} == {"verify/coq_evidence.py"}


def test_the_onebit_class_and_the_rest_of_policies_split_the_file():
    every = mt.enumerate_mutants(ROOT, ("policies", "onebit"))
    onebit = [m for m in every if m.module == "onebit"]
    rest = [m for m in every if m.module == "policies" and m.path == "reference_impl/policies.py"]
    assert onebit and rest and not {m.key for m in onebit} & {m.key for m in rest}
    source = (ROOT / "reference_impl/policies.py").read_text().splitlines()
    first = next(i for i, line in enumerate(source, 1) if line.startswith("class OneBitSVF"))
    assert all(m.line >= first - 1 for m in onebit)  # the class (and its decorator)
    # the occurrences are the file's own (cosmic-ray's coordinates): the union is every mutant of the file
    whole = {(m.operator, m.occurrence) for m in onebit + rest}
    counts: dict[str, int] = {}
    for m in onebit + rest:
        counts[m.operator] = max(counts.get(m.operator, -1), m.occurrence)
    assert whole == {(op, k) for op, top in counts.items() for k in range(top + 1)}


def test_enumeration_is_deterministic_and_sampling_is_seeded_and_stratified():
    first = mt.enumerate_mutants(ROOT, ("model", "witness"))
    assert first == mt.enumerate_mutants(ROOT, ("model", "witness")) and len(first) > 50
    assert {m.path for m in first} == {"reference_impl/model.py", "adversary/witness.py"}
    a = mt.sample_mutants(first, per_module=5, seed=3)
    assert a == mt.sample_mutants(first, per_module=5, seed=3) and len(a) == 10
    assert sum(m.module == "model" for m in a) == sum(m.module == "witness" for m in a) == 5
    assert a != mt.sample_mutants(first, per_module=5, seed=4)
    model = [m for m in first if m.module == "model"]
    assert len(mt.sample_mutants(model, fraction=0.1, seed=0)) == round(0.1 * len(model))
    assert mt.sample_mutants(model, fraction=1, seed=0) == model


def test_annotation_mutants_are_recognised_in_a_real_file():
    every = mt.enumerate_mutants(ROOT, ("witness",))
    cache: dict = {}
    lines = (ROOT / "adversary/witness.py").read_text().splitlines()
    flagged = [m for m in every if mt.is_annotation(ROOT, m, cache)]
    assert flagged and len(flagged) < len(every)
    for m in flagged:  # every flagged position is on a def line, after a return arrow (a signature's continuation
        line = lines[m.line - 1]  # line) or after an annotated name: never in a body expression
        assert "def " in line or ":" in line[:m.column] or "->" in line[:m.column], (m, line)
    code = [m for m in every if m.operator.startswith("core/ReplaceBinaryOperator") and "return" in lines[m.line - 1]]
    assert code and not any(mt.is_annotation(ROOT, m, cache) for m in code)


def test_bad_arguments_name_the_field():
    with pytest.raises(ValidationError, match="module"):
        mt.enumerate_mutants(ROOT, ("nope",))
    with pytest.raises(ValidationError, match="fraction"):
        mt.sample_mutants([], fraction=1.5)
    with pytest.raises(ValidationError, match="per_module/fraction"):
        mt.sample_mutants([], per_module=1, fraction=0.5)
    with pytest.raises(ValidationError, match="per_module"):
        mt.sample_mutants([], per_module=0)
    with pytest.raises(ValidationError, match="cpu_seconds"):
        mt.Limits(cpu_seconds=0).validate()


def test_a_runaway_process_is_a_limit_never_a_verdict(tmp_path):
    status, code, _, cpu = mt.run_limited([sys.executable, "-c", "while True: pass"], tmp_path,
                                          mt.Limits(cpu_seconds=1, wall_factor=600))  # the CPU limit, never the clock
    assert status == "cpu limit" and code != 0 and cpu > 0.5
    status, _, _, _ = mt.run_limited([sys.executable, "-c", "x = bytearray(2**31)"], tmp_path,
                                     mt.Limits(cpu_seconds=30, memory_bytes=2**29))
    assert status == "memory limit"
    status, code, output, _ = mt.run_limited([sys.executable, "-c", "print('ok')"], tmp_path, mt.Limits())
    assert (status, code, output.strip()) == ("done", 0, "ok")


def test_scores_count_kills_over_kills_and_survivors():
    m = mt.ToolMutant("model", "reference_impl/model.py", "core/NumberReplacer", 0, 1)
    kinds = ("killed", "killed", "survived", "timeout", "equivalent", "no_change")
    outcomes = [mt.ToolOutcome(m, o, "", 1.0, "") for o in kinds]
    row = mt.scores(outcomes)["model"]
    assert {k: row[k] for k in ("run", "killed", "survived", "timeout", "equivalent", "score")} == {
        "run": 5, "killed": 2, "survived": 1, "timeout": 1, "equivalent": 1, "score": 2 / 3}
    low, high = row["interval"]
    assert 0 < low < 2 / 3 < high < 1
    assert mt.outcome_from_json(mt.outcomes_to_json(outcomes)[0]) == outcomes[0]


def _volume_mutant(every: list[mt.ToolMutant]) -> mt.ToolMutant:
    # the volume's closed form, (o*o + o) // 2 -> (o*o - o) // 2: the model's tests must kill it
    lines = (ROOT / "reference_impl/model.py").read_text().splitlines()
    return next(m for m in every if m.module == "model" and m.operator == "core/ReplaceBinaryOperator_Add_Sub"
                and "output * output + output" in lines[m.line - 1].replace("(", "").replace(")", ""))


@pytest.mark.slow
def test_a_seeded_sample_through_the_module_runners():
    every = mt.enumerate_mutants(ROOT)
    cache: dict = {}
    runnable = [m for m in every if not mt.is_annotation(ROOT, m, cache)]
    # CI's seeded sample: one mutant from each of 4 modules drawn by the seed (the suite's time; the per-module
    # figures come from the benchmark, benchmarks/RESULTS.md section 10), plus the volume mutant that must die
    modules = set(random.Random(1).sample(sorted(mt.TARGETS), 4))
    sample = [m for m in mt.sample_mutants(runnable, per_module=1, seed=1) if m.module in modules]
    sample.append(_volume_mutant(every))
    before = {p: (ROOT / p).read_text() for p in {m.path for m in sample}}
    with concurrent.futures.ProcessPoolExecutor(2) as pool:  # the benchmark's --jobs 2 path
        outcomes, _ = mt.run_tool_campaign(sample, executor=pool, limits=mt.Limits(cpu_seconds=300))
    assert {o.outcome for o in outcomes} <= {"killed", "survived", "timeout", "no_change"}
    assert {o.mutant.module for o in outcomes} == modules | {"model"}
    last = outcomes[-1]
    assert last.outcome == "killed" and last.by, last
    assert all((ROOT / p).read_text() == text for p, text in before.items())  # never mutated in place


@pytest.mark.slow
def test_the_benchmark_checkpoints_and_resumes(tmp_path, capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_mutation_tool as bench

    out = tmp_path / "run.json"
    argv = ["--per-module", "1", "--modules", "onebit", "--seed", "2", "--checkpoint", str(out)]
    assert bench.main(argv) == 0
    first = json.loads(out.read_text())
    assert len(first["outcomes"]) == 1 and first["outcomes"][0]["outcome"] in ("killed", "survived", "timeout")
    assert bench.main(argv) == 2  # an existing checkpoint is never overwritten silently
    assert "--checkpoint" in capsys.readouterr().err
    assert bench.main([*argv, "--resume"]) == 0
    assert "1 already judged, 0 to run" in capsys.readouterr().out
    assert json.loads(out.read_text())["outcomes"] == first["outcomes"]
    assert not list(tmp_path.glob(".*.tmp"))
