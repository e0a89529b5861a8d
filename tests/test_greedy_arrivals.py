"""``greedy.arrivals`` (issue 32, item 4): with arrivals over time SVF, SJF and FCFS share one trace on the convoy at
lag 1 and their ratio is linear in n. The closed forms are compared with the reference simulator and the
independent checker; the numbers written here were computed by hand from the family's description."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from geosched.adversary.witness import make_witness, verify_witness
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.simulation import simulate
from geosched.theory import greedy_arrivals as family

WITNESS = Path(__file__).resolve().parents[1] / "docs" / "witnesses" / \
    "svf_arrivals_alpha0.5_family_greedy_arrivals_k99_T9801.json"


def test_a_member_by_hand():
    """k = 3, T = 9 (M = 36): the long pair runs 1..9, short pairs start at 9, 10, 11 (latencies 9, 10, 11):
    TEL = 2*9 + 2*(9 + 10 + 11) = 78; S: short pairs at 1, 2, 3 (latencies 1, 2, 3), long pair at 4 (13 each)."""
    assert family.closed_form_tels(3, 9) == {"greedy": 78, "witness": 2 * (1 + 2 + 3) + 2 * 13}
    instance = family.member(3, 9)
    assert instance.memory == 36 and instance.n == 8
    for policy in family.POLICIES:
        starts = simulate(instance, policy).starts
        assert {starts["a0"], starts["a1"]} == {0} and sorted(v for r, v in starts.items() if r[0] == "b") == \
            [9, 9, 10, 10, 11, 11]
        assert check_schedule(instance, starts).metrics.tel == 78


@pytest.mark.parametrize("size, length", [(2, 1), (4, 16), (5, 7), (6, 36)])
@pytest.mark.parametrize("policy", family.POLICIES)
def test_the_closed_forms_are_the_simulated_and_checked_tels(policy, size, length):
    instance = family.member(size, length)
    want = family.closed_form_tels(size, length)
    assert check_schedule(instance, simulate(instance, policy).starts).metrics.tel == want["greedy"]
    report = check_schedule(instance, family.witness_starts(size, length))
    assert report.feasible and report.metrics.tel == want["witness"]


def test_the_derivation_fails_when_the_closed_form_is_wrong():
    assert family.derivation().check().status in ("unknown", "checked")  # the trace step is the ledger's
    broken = family.derivation(tel_greedy=family.tel_greedy_expr() + 1).check()
    assert any(step.status in ("refuted", "failed", "error") for step in broken.steps)


def test_outside_h2_the_burst_gives_svf_ratio_one():
    """The hypothesis' stated failure: the same requests all at 0 (lag 0): SVF serves the short ones first."""
    from geosched.theory.fcfs_families import convoy, witness_starts

    instance = convoy(4, 16, lag=0)
    svf = check_schedule(instance, simulate(instance, "svf").starts).metrics.tel
    assert svf == check_schedule(instance, witness_starts(4, 16, lag=0)).metrics.tel


def test_the_shipped_witness_is_the_member_k99_and_certifies_at_least_n_over_4():
    data = json.loads(WITNESS.read_text())
    report = verify_witness(data)
    assert report.ok and report.policy == "svf" and not report.burst and report.n == 200
    rebuilt = make_witness(family.member(99, 99 * 99), "svf", family.witness_starts(99, 99 * 99), found_by="test")
    assert rebuilt.to_dict()["instance"] == data["instance"]
    assert Fraction(report.certified_ratio) == Fraction(1969902, 29702) >= Fraction(report.n, 4)


@pytest.mark.parametrize("policy", ["sjf", "fcfs"])
def test_the_shipped_sjf_and_fcfs_witnesses_score_the_same_as_svf(policy):
    """SJF and FCFS on the same member k = 99, T = 9801 (n = 200): by hand TEL = 2T + 2kT + k^2 - k =
    19602 + 1940598 + 9702 = 1969902 and TEL(S) = k^2 + 3k + 2T + 2 = 9801 + 297 + 19602 + 2 = 29702."""
    path = WITNESS.with_name(WITNESS.name.replace("svf_", f"{policy}_", 1))
    data = json.loads(path.read_text())
    report = verify_witness(data)
    assert report.ok and report.policy == policy and not report.burst and report.n == 200
    assert data["instance"] == json.loads(WITNESS.read_text())["instance"]
    assert Fraction(report.certified_ratio) == Fraction(19602 + 1940598 + 9702, 9801 + 297 + 19602 + 2) \
        >= Fraction(report.n, 4)


def test_the_ledger_method_checks_the_three_policies_and_can_fail(monkeypatch):
    from geosched.verify.evidence import Context
    from geosched.verify.family_evidence import FAMILY_METHODS

    method = FAMILY_METHODS["simulation:greedy-arrivals"]
    evidence = method(None, Context("quick", None, 0, ()))
    assert evidence.status == "checked" and set(evidence.data["rows"][0]["simulated"]) == {"svf", "sjf", "fcfs",
                                                                                          "witness"}
    right = family.closed_form_tels
    monkeypatch.setattr(family, "closed_form_tels", lambda k, t: {**right(k, t), "greedy": right(k, t)["greedy"] + 1})
    assert method(None, Context("quick", None, 0, ())).status == "refuted"
