"""Issue 46, item 1: every check shows in the same run that it can fail (its canary), and coverage is pinned.

The mechanism (geosched.verify.evidence: ``Canary``, ``plant``, ``Coverage``, ``declares_canary``, ``settle``) and
the ledger's rule 2b (a check whose canary was not refuted makes the row ``vacuous``), the canary in ``--json``
and in ``prove``'s text. The canaries of the methods themselves are tested in tests/test_method_canaries.py.
"""

from __future__ import annotations

import json

from coq_stub import coq_stub

from geosched.theory.claim import Claim
from geosched.verify import ledger
from geosched.verify.evidence import (
    Canary,
    Coverage,
    Evidence,
    canary_declaration,
    declares_canary,
    needs_no_canary,
    plant,
    settle,
)
from geosched.verify.ledger import combine

CLAIM = Claim("x", "src", "stmt", "formal", "none", ())


def _problems(tel: int) -> list[str]:
    return [] if tel <= 7 else [f"TEL {tel} > 7"]


def test_plant_runs_the_verdict_on_the_defect_and_reads_its_problems():
    assert plant("TEL one above the bound", _problems, 8) == Canary("TEL one above the bound", True, "TEL 8 > 7")
    blind = plant("TEL one above the bound", lambda tel: [], 8)
    assert not blind.refuted and "accepted the defect" in blind.verdict
    assert plant("a message", lambda x: "wrong", 1).refuted  # a message is a problem too
    assert not plant("a bool", lambda x: False, 1).refuted


def test_a_passing_evidence_whose_canary_passed_too_is_vacuous_and_says_why():
    e = Evidence("m", "bounded", "checked", "ok", bound="n<=3", canary=Canary("closed form + 1", False, "none"),
                 covers={"m": ("checked", "n<=3")})
    assert e.status == "vacuous" and "could not have failed: its canary (closed form + 1)" in e.message
    assert e.covers == {"m": ("vacuous", "n<=3")}  # it covers no derivation step either
    refuted = Evidence("m", "bounded", "checked", "ok", canary=Canary("closed form + 1", True, "differs"))
    assert refuted.status == "checked"
    # a failing evidence keeps its word: the canary judges only what passes
    assert Evidence("m", "bounded", "refuted", "no", canary=Canary("d", False)).status == "refuted"


def test_a_coverage_below_its_pin_refutes_the_evidence_and_above_it_is_unknown():
    lost = Evidence("m", "bounded", "checked", "ok", coverage=Coverage({"members": 5, "sizes": 3},
                                                                         {"members": 6, "sizes": 3}))
    assert lost.status == "refuted" and "coverage lost: covered members 5 of 6" in lost.message
    assert lost.implementation
    more = Evidence("m", "bounded", "checked", "ok", coverage=Coverage({"members": 7}, {"members": 6}))
    assert more.status == "unknown" and "pin is out of date" in more.message
    assert Evidence("m", "bounded", "checked", "ok", coverage=Coverage({"members": 6}, {"members": 6})).success


def test_a_method_that_declares_a_canary_and_passes_without_one_is_vacuous():
    @declares_canary("closed form + 1")
    def method(claim, ctx):
        return Evidence("m", "bounded", "checked", "ok")

    @needs_no_canary("a literature row: nothing is computed")
    def source(claim, ctx):
        return Evidence("s", "source", "not_run", "nothing")

    assert canary_declaration(method) == ("canary", "closed form + 1")
    assert canary_declaration(source) == ("none", "a literature row: nothing is computed")
    assert canary_declaration(lambda c, x: None) is None
    settled = settle(method, method(None, None))
    assert settled.status == "vacuous" and settled.canary == Canary("closed form + 1", False, "not run")
    assert settle(source, source(None, None)).status == "not_run"


def test_rule_2b_a_blind_check_makes_the_row_vacuous_even_beside_a_proof():
    blind = Evidence("sim", "bounded", "checked", "ok", canary=Canary("witness start - 1", False, "feasible"))
    status, text, _, note = combine(CLAIM, [Evidence("derivation", "proof", "proved", "ok"), blind], {})
    assert status == "vacuous" and "sim could not have failed (its canary, witness start - 1" in text
    assert "feasible" in note
    sound = Evidence("sim", "bounded", "checked", "ok", canary=Canary("witness start - 1", True, "infeasible"))
    assert combine(CLAIM, [Evidence("derivation", "proof", "proved", "ok"), sound], {})[0] == "proved"


def test_rule_2b_holds_against_a_whole_claim_coq_proof_and_a_refutation_still_wins():
    row = Claim("x", "src", "stmt", "formal", "none", ("coq:thm32_svf_competitive",),
                coq_whole=("thm32_svf_competitive",))
    blind = Evidence("sim", "bounded", "checked", "ok", canary=Canary("closed form + 1", False))
    assert combine(row, [coq_stub("thm32_svf_competitive"), blind], {})[0] == "vacuous"
    assert combine(row, [coq_stub("thm32_svf_competitive")], {})[0] == "proved"
    refuted = Evidence("other", "bounded", "refuted", "counterexample")
    assert combine(CLAIM, [blind, refuted], {})[0] == "refuted"


def test_a_proved_relative_to_row_falls_when_a_hypothesis_check_stops_discriminating():
    relative = Evidence("derivation", "proof", "proved relative to", "ok", data={"assumed": ["PASTA (...)"]})
    hypothesis = Evidence("monte-carlo:poisson-pasta", "statistical", "consistent", "z small", samples=10,
                          canary=Canary("the hypothesis' value x1.1", True, "z = 9"))
    assert combine(CLAIM, [relative, hypothesis], {})[0] == "proved relative to"
    blind = Evidence("monte-carlo:poisson-pasta", "statistical", "consistent", "z small", samples=10,
                     canary=Canary("the hypothesis' value x1.1", False, "z = 1"))
    assert combine(CLAIM, [relative, blind], {})[0] == "vacuous"
    # and a row whose proof rests on it falls too (its chain is no longer established: unknown)
    assert combine(CLAIM, [relative], {"svf.poisson": "vacuous"})[0] == "unknown"


def test_the_canary_and_coverage_are_in_the_json_and_the_evidence_table():
    e = Evidence("m", "bounded", "checked", "ok", canary=Canary("closed form + 1", True, "differs"),
                 coverage=Coverage({"members": 6}, {"members": 6}))
    data = json.loads(json.dumps(e.to_dict()))
    assert data["canary"] == {"defect": "closed form + 1", "refuted": True, "verdict": "differs"}
    assert data["coverage"] == {"covered": {"members": 6}, "expected": {"members": 6}, "floor": {}}
    result = ledger.run_claims(["kong.volume"], mode="quick", follow_dependencies=False)
    table = result.evidence_table(width=200)
    assert "canary" in table.splitlines()[0]
    assert [ledger.canary_word(c) for c in (None, Canary("d", True), Canary("d", False))] == \
        ["-", "refuted", "NOT refuted"]


def test_prove_prints_each_checks_canary_and_its_verdict():
    from geosched.verify.prove import canary_lines, evidence_json, ledger_footer

    class Row:
        evidence = (Evidence("sim", "bounded", "checked", "ok", canary=Canary("closed form + 1", True, "differs")),
                    Evidence("other", "bounded", "checked", "ok"))
        message, status, note = "checked up to n", "checked", ""

    assert canary_lines(Row) == ["Canaries (a planted defect each check must refute, in the same run): sim: "
                                 "closed form + 1: refuted."]
    assert "sim: closed form + 1: refuted" in ledger_footer(Row, "quick", "x")
    assert evidence_json(Row)[0]["canary"]["refuted"] is True and evidence_json(Row)[1]["canary"] is None


def test_the_words_strength_is_a_strict_order_with_unknown_below_vacuous():
    from geosched.verify.evidence import STRENGTH

    order = ["proved", "proved relative to", "checked", "consistent", "vacuous", "unknown"]
    assert [STRENGTH[a] > STRENGTH[b] for a, b in zip(order, order[1:])] == [True] * 5
    assert STRENGTH["refuted"] < STRENGTH["unknown"] and STRENGTH["error"] < STRENGTH["unknown"]


def test_bounds_that_differ_in_their_numbers_keep_the_smallest():
    from geosched.verify.ledger import _weakest_bounds

    assert _weakest_bounds({"n<=5 symbolic requests", "n<=3 symbolic requests", "k<=4 active"}) == \
        "k<=4 active; n<=3 symbolic requests"
