"""Rows for the code no claim of the papers runs (issue 34, item 4): each checks against an independent computation
and turns ``refuted`` when the code it covers is broken."""

from __future__ import annotations

import dataclasses

import pytest

from geosched.reference_impl.model import Instance
from geosched.verify import implementation_claims as ic
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, run_claims


def _run(method: str):
    return ic.METHODS_HERE[method](None, Context("quick", None, 0, ()))


def test_the_rows_are_in_the_ledger_and_checked_in_quick():
    ids = ["ours.referee", "ours.block_grain", "ours.lower_bounds", "ours.engine_restarts"]
    result = run_claims(ids, mode="quick")
    assert {c.id: c.status for c in result.claims} == dict.fromkeys(ids, "checked")
    assert all(CLAIMS[i].no_derivation for i in ids)


def test_every_violation_kind_has_a_bad_schedule():
    import inspect
    import re

    from geosched.reference_impl import checker

    # every kind the checker can report (read from its source: Violation("kind", ...)) has a hand-built case
    reported = set(re.findall(r'Violation\(\s*"(\w+)"', inspect.getsource(checker)))
    kinds = {kind for _, _, _, _, (kind, _, _) in ic.bad_schedule_cases()}
    assert reported and kinds == reported


def test_the_brute_force_counts_by_hand():
    # (a, s, o) = (0, 2, 3) and (0, 1, 2) at 0: steps 1, 2, 3 hold 3+2, 4+3, 5 tokens
    assert ic.brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 7) == (None, 0, 7)
    assert ic.brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 6) == (2, 1, 7)
    assert ic.brute_force_memory([(0, 2, 3), (0, 1, 2)], [0, 0], 6, block=2) == (2, 2, 8)  # 4 + 4 blocks' tokens


def test_a_checker_off_by_one_at_block_grain_is_refuted(monkeypatch):
    from geosched.reference_impl import checker

    honest = checker.check_schedule

    def token_grain(instance, starts, **kw):  # the instance's block size ignored
        return honest(Instance(instance.memory, instance.requests), starts, **kw)

    monkeypatch.setattr(checker, "check_schedule", token_grain)
    assert _run("referee:block-grain").status == "refuted"


def test_a_lower_bound_above_opt_is_refuted(monkeypatch):
    from geosched.reference_impl.opt import bounds

    honest = bounds.srpt_bound
    monkeypatch.setattr(bounds, "srpt_bound", lambda instance: dataclasses.replace(honest(instance),
                                                                                   value=honest(instance).value + 1))
    evidence = _run("bounds:bursts")
    assert evidence.status == "refuted" and "srpt" in evidence.message


def test_a_bound_that_is_never_attained_is_refused(monkeypatch):
    from geosched.reference_impl.opt import bounds

    honest = bounds.volume_prefix_bound

    def loose(instance):
        found = honest(instance)
        return None if found is None else dataclasses.replace(found, value=found.value // 2)

    monkeypatch.setattr(bounds, "volume_prefix_bound", loose)
    evidence = _run("bounds:bursts")
    assert evidence.status == "refuted" and "never attained" in evidence.message


def test_an_engine_that_restarts_differently_is_refuted(monkeypatch):
    from geosched.reference_impl.vllm import semantics

    honest = semantics.VllmSemantics.run

    def later(self):
        for state in honest(self):
            yield dataclasses.replace(state, step=state.step + 1) if state.preempted else state

    monkeypatch.setattr(semantics.VllmSemantics, "run", later)
    evidence = _run("engine:vllm-semantics")
    assert evidence.status == "refuted" and "semantics model" in evidence.message


@pytest.mark.parametrize("method", sorted(ic.METHODS_HERE))
def test_each_method_names_what_it_checked(method):
    evidence = _run(method)
    assert evidence.status == "checked" and evidence.implementation and evidence.bound
