"""The word ``proved relative to``: a proof given named hypotheses states them, and never reads as ``proved``."""

from __future__ import annotations

import pytest
import sympy as sp

from geosched.theory import registry
from geosched.theory.derivation import Derivation, Hypothesis, Step
from geosched.verify.evidence import STRENGTH, Evidence
from geosched.verify.ledger import Claim, combine
from geosched.verify.methods import METHODS

x = sp.Symbol("x", positive=True)
PASTA = Hypothesis("PASTA", "Poisson arrivals see time averages (stationary, arrivals independent of the past)")
LITTLE = Hypothesis("H1", "Little's law L = lambda W (stationary, finite means)")


def _relative(claim_id="t.rel", hypotheses=(PASTA, LITTLE), uses=("PASTA",), depends_on=()) -> Derivation:
    return Derivation(claim_id, "p", "n", "c", hypotheses=hypotheses, depends_on=depends_on, steps=[
        Step.identity("algebra", (x + 1) ** 2, x**2 + 2 * x + 1, ""),
        Step.assumption("the arrival sees the stationary queue", uses, "PASTA applies: Poisson arrivals")])


def test_an_assumption_step_is_assumed_and_the_derivation_is_only_proved_relative_to_it():
    check = _relative().check()
    assert [s.status for s in check.steps] == ["checked", "assumed"]
    assert check.status == "proved relative" and check.status != "proved"
    # the word states the hypothesis, not only its label; an unused hypothesis is not listed
    assert check.assumed == (f"PASTA ({PASTA.statement})",)
    assert PASTA.statement in check.message and "Little" not in check.message
    assert check.to_dict()["assumed"] == list(check.assumed)
    # the same derivation without the assumption step is proved outright
    plain = Derivation("t.plain", "p", "n", "c", steps=[Step.identity("algebra", x, x, "")]).check()
    assert plain.status == "proved" and plain.assumed == ()


def test_an_assumption_needs_a_declared_hypothesis():
    with pytest.raises(ValueError):
        Step.assumption("nothing named", (), "")
    check = _relative(uses=("PASTA", "H9")).check()
    assert check.steps[1].status == "error" and "H9" in check.steps[1].message
    assert check.status == "unknown"


def test_a_false_step_still_refutes_a_derivation_that_assumes_something():
    d = Derivation("t.bad", "p", "n", "c", hypotheses=(PASTA,), steps=[
        Step.substitution("wrong", x**2, 8, {x: 3}, ""), Step.assumption("a", ("PASTA",), "")])
    assert d.check().status == "refuted"


def test_the_closure_carries_a_dependencys_hypotheses_with_its_claim_id(monkeypatch):
    # both derivations call a premise H1: the closure keeps them apart by claim id
    dep = _relative("t.dep", uses=("H1",))
    top = _relative("t.top", uses=("H1",), depends_on=("t.dep",))
    monkeypatch.setitem(registry.DERIVATIONS, "t.dep", lambda: dep)
    monkeypatch.setitem(registry.DERIVATIONS, "t.top", lambda: top)
    check = registry.check_claim("t.top")
    assert check.status == "proved relative"
    assert check.assumed == (f"H1 ({LITTLE.statement})", f"t.dep H1 ({LITTLE.statement})")
    assert "t.dep" in check.message


def test_the_derivation_method_reports_proved_relative_to_with_the_hypotheses(monkeypatch):
    monkeypatch.setitem(registry.DERIVATIONS, "t.rel", _relative)
    evidence = METHODS["derivation"](Claim("t.rel", "s", "st", "f", "none", ("derivation",)), None)
    assert evidence.status == "proved relative to"
    assert evidence.data["assumed"] == [f"PASTA ({PASTA.statement})"]


CLAIM = Claim("x", "src", "stmt", "formal", "none", ())


def _proof(status="proved", assumed=()):
    return Evidence("derivation", "proof", status, "sympy", data={"open_steps": [], "assumed": list(assumed)})


def test_the_ledger_word_states_what_the_proof_assumes():
    stated = f"PASTA ({PASTA.statement})"
    status, text, _, note = combine(CLAIM, [_proof("proved relative to", [stated])], {})
    assert status == "proved relative to" and text == f"proved relative to {stated}" and stated in note
    assert STRENGTH["checked"] < STRENGTH["proved relative to"] < STRENGTH["proved"]
    # a claim resting on it is no stronger, and says on whose hypotheses
    status, text, _, _ = combine(CLAIM, [_proof()], {"dep": "proved relative to"})
    assert status == "proved relative to" and text == "proved relative to the hypotheses of dep"
    # nothing assumed: proved
    assert combine(CLAIM, [_proof()], {"dep": "proved"})[0] == "proved"


def test_a_refutation_is_not_masked_by_a_relative_proof():
    refuting = Evidence("monte-carlo:x", "statistical", "refuted", "beyond the bound", counterexample="c.json")
    assert combine(CLAIM, [_proof("proved relative to", ["PASTA (...)"]), refuting], {})[0] == "refuted"


def test_prove_marks_an_assumed_step_as_assumed_not_established():
    from types import SimpleNamespace

    from geosched.verify.prove import step_marks

    derivation = _relative()
    marks = step_marks(derivation, derivation.check(), SimpleNamespace(evidence=[]))
    assert marks == {1: "sympy", 2: "assumed: the named hypotheses PASTA"}
