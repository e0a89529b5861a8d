"""Mutation testing by a maintained tool (cosmic-ray's operators; geosched.verify.mutation_tool).

The fast tests check the sampling and the bookkeeping; the slow one runs a seeded sample of
mutants through the ledger and the fast tests, and a mutant that must die (model.volume's
closed form) dies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")

from geosched.errors import ValidationError  # noqa: E402
from geosched.verify import mutation_tool as mt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_every_target_file_exists_and_has_a_runner():
    for paths in mt.TARGETS.values():
        for path in paths:
            assert (ROOT / path).is_file(), path
            claims, tests = mt.FILE_RUNNERS[path]
            assert claims or tests, path  # every mutant is judged by the ledger, tests, or both
            assert all((ROOT / t).is_file() for t in tests)


def test_enumeration_is_deterministic_and_sampling_is_seeded():
    first = mt.enumerate_mutants(ROOT, ("model",))
    assert first == mt.enumerate_mutants(ROOT, ("model",)) and len(first) > 50
    assert {m.path for m in first} == {"reference_impl/model.py"}
    a = mt.sample_mutants(first, per_module=5, seed=3)
    assert a == mt.sample_mutants(first, per_module=5, seed=3) and len(a) == 5
    assert a != mt.sample_mutants(first, per_module=5, seed=4)
    assert len(mt.sample_mutants(first, fraction=0.1, seed=0)) == round(0.1 * len(first))


def test_bad_arguments_name_the_field():
    with pytest.raises(ValidationError, match="module"):
        mt.enumerate_mutants(ROOT, ("nope",))
    with pytest.raises(ValidationError, match="fraction"):
        mt.sample_mutants([], fraction=1.5)
    with pytest.raises(ValidationError, match="per_module/fraction"):
        mt.sample_mutants([], per_module=1, fraction=0.5)


def test_scores_count_kills_over_kills_and_survivors():
    m = mt.ToolMutant("model", "reference_impl/model.py", "core/NumberReplacer", 0, 1)
    outcomes = [mt.ToolOutcome(m, o, "", 1.0, "") for o in ("killed", "killed", "survived", "timeout", "no_change")]
    assert mt.scores(outcomes)["model"] == {"run": 4, "killed": 2, "survived": 1, "timeout": 1, "score": 2 / 3}


@pytest.mark.slow
def test_a_seeded_sample_through_the_ledger():
    every = mt.enumerate_mutants(ROOT)
    # the volume's closed form, (o*o + o) // 2 -> (o*o - o) // 2: the ledger (kong.volume) must kill it
    volume = [m for m in every if m.module == "model" and m.operator == "core/ReplaceBinaryOperator_Add_Sub"
              and "(output * output + output)" in (ROOT / m.path).read_text().splitlines()[m.line - 1]]
    sample = mt.sample_mutants(every, per_module=1, seed=1) + volume[:1]  # one per module, seeded, plus that one
    outcomes, baseline = mt.run_tool_campaign(sample, timeout=300)
    assert baseline["kong.volume"] == "proved"
    assert {o.outcome for o in outcomes} <= {"killed", "survived", "timeout", "no_change"}
    last = outcomes[-1]
    assert last.outcome == "killed" and last.by.startswith(("ledger:kong.volume", "tests", "crash")), last
