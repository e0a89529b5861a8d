"""The SJF and FCFS families of issue 25 (theory/sjf_families.py, theory/fcfs_families.py): members simulated
by the reference simulator and checked by the independent checker against the sympy closed forms at several
sizes, hand-computed members, the growth rates, the ledger methods (which must refute a wrong closed form),
and the committed witnesses."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from geosched.adversary.families import FAMILIES, evaluate_family
from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.simulation import simulate
from geosched.theory import fcfs_families, sjf_families
from geosched.verify.evidence import Context
from geosched.verify.family_evidence import FAMILY_METHODS

WITNESSES = Path(__file__).resolve().parent.parent / "docs" / "witnesses"


def _tel(instance, starts):
    report = check_schedule(instance, starts)
    assert report.feasible, report
    return report.metrics.tel


# ------------------------------------------------------------------ sjf-long-blockers

@pytest.mark.parametrize("size", [2, 3, 4, 6])
@pytest.mark.parametrize("length", [1, 2, 5, 9])
def test_sjf_long_blockers_simulated_equals_closed_form(size, length):
    instance = sjf_families.long_blockers(size, length)
    point = {sjf_families.k: size, sjf_families.T: length}
    want_sjf = int(sjf_families.tel_sjf_expr().subs(point))
    want_witness = int(sjf_families.tel_witness_expr().subs(point))
    assert _tel(instance, simulate(instance, "sjf").starts) == want_sjf
    assert _tel(instance, sjf_families.witness_starts(size, length)) == want_witness
    assert instance.alpha == Fraction(1, 2) and instance.n == size * size + 2 * size
    svf = _tel(instance, simulate(instance, "svf").starts)  # SVF: no worse than S, equal for T >= 2
    assert svf <= want_witness and (svf == want_witness or length == 1)


def test_sjf_long_blockers_by_hand():
    # k = 2, T = 2: K = 4, M = 12, blockers (4, 2) x 4, smalls (0, 3) x 4.
    # SJF: pairs finish at 2 and 4 (2*2 + 2*4 = 12); the smalls start at 4 and finish at 7: 4 * 7 = 28.
    # S: smalls finish at 3 (12); pairs start at 3 and 5, finish at 5 and 7 (2*5 + 2*7 = 24).
    assert sjf_families.closed_form_tels(2, 2) == {"sjf": 40, "witness": 36}
    instance = sjf_families.long_blockers(2, 2)
    assert instance.memory == 12 and sorted({(r.prompt, r.output) for r in instance.requests}) == [(0, 3), (4, 2)]
    # T = 1 is sjf-blocking's instance and SJF's TEL; its witness there saves k + 1 (a blocker beside the smalls)
    for size in (2, 3, 5):
        ours, theirs = sjf_families.long_blockers(size, 1), FAMILIES["sjf-blocking"].build(size)[0]
        assert ours.memory == theirs.memory
        assert sorted((r.prompt, r.output) for r in ours.requests) == sorted(
            (r.prompt, r.output) for r in theirs.requests)
        tels = sjf_families.closed_form_tels(size, 1)
        assert tels["sjf"] == int(FAMILIES["sjf-blocking"].policy_tel.subs(sjf_families.k, size))
        assert tels["witness"] == int(FAMILIES["sjf-blocking"].witness_tel.subs(sjf_families.k, size)) + size + 1


def test_sjf_long_blockers_growth_rate():
    assert sp.simplify(sjf_families.growth_expr() - sjf_families.T / (2 * sjf_families.T + 1)) == 0
    assert FAMILIES["sjf-long-blockers"].growth == sjf_families.T / (2 * sjf_families.T + 1)
    assert FAMILIES["sjf-blocking"].growth == sp.Rational(1, 3)
    # a finite witness of the faster slope: at k = 12, T = 20 the certified ratio beats sjf-blocking's at k = 12
    fast, slow = sjf_families.closed_form_tels(12, 20), sjf_families.closed_form_tels(12, 1)
    assert Fraction(fast["sjf"], fast["witness"]) > Fraction(slow["sjf"], slow["witness"]) + 1


def test_sjf_long_blockers_bad_sizes():
    with pytest.raises(ValidationError, match="k"):
        sjf_families.long_blockers(1, 3)
    with pytest.raises(ValidationError, match="T"):
        sjf_families.long_blockers(3, 0)


# ------------------------------------------------------------------ fcfs-convoy

@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("length", [1, 3, 17, None])  # None: T = k^2
@pytest.mark.parametrize("lag", [0, 1])
def test_fcfs_convoy_simulated_equals_closed_form(size, length, lag):
    length = size * size if length is None else length
    instance = fcfs_families.convoy(size, length, lag)
    point = {fcfs_families.k: size, fcfs_families.T: length, fcfs_families.ell: lag}
    want_fcfs = int(fcfs_families.tel_fcfs_expr().subs(point))
    want_witness = int(fcfs_families.tel_witness_expr().subs(point))
    assert _tel(instance, simulate(instance, "fcfs").starts) == want_fcfs
    assert _tel(instance, fcfs_families.witness_starts(size, length, lag)) == want_witness
    if lag == 0:
        for policy in ("svf", "sjf"):  # the burst's witness is their schedule
            assert _tel(instance, simulate(instance, policy).starts) == want_witness
    else:  # the long ones arrive first: SVF and SJF start them at 0 too, and run FCFS's schedule
        for policy in ("svf", "sjf"):
            assert _tel(instance, simulate(instance, policy).starts) == want_fcfs
    assert instance.alpha == Fraction(1, 2) and instance.n == 2 * size + 2


def test_fcfs_convoy_by_hand():
    # k = 2, T = 3: M = 12, long (3, 3) x 2 finish at 3 (6); short pairs start at 3 and 4, finish at 4 and 5 (18)
    assert fcfs_families.closed_form_tels(2, 3) == {"fcfs": 24, "witness": 16}
    # S: short pairs finish at 1 and 2 (6), the long ones start at 2 and finish at 5 (10)
    # lag 1: FCFS's short pairs wait from 1 to 3 and 4 (latencies 3, 4: 14) + 6; S: 2*1 + 2*2 + 2*(3 + 3) = 18
    assert fcfs_families.closed_form_tels(2, 3, lag=1) == {"fcfs": 20, "witness": 18}
    for size in (1, 2, 3, 7):  # T = k^2: the ratio is exactly (2k + 1)/3
        tels = fcfs_families.closed_form_tels(size, size * size)
        assert Fraction(tels["fcfs"], tels["witness"]) == Fraction(2 * size + 1, 3)


def test_fcfs_convoy_limit_in_t():
    k, big_t = fcfs_families.k, fcfs_families.T
    assert sp.limit(fcfs_families.ratio_expr(), big_t, sp.oo) == k + 1
    assert FAMILIES["fcfs-convoy"].growth == sp.Rational(2, 3)
    assert evaluate_family("fcfs-convoy", 6).match and evaluate_family("fcfs-convoy", 6, lag=1).match
    with pytest.raises(ValidationError, match="lag"):
        evaluate_family("fcfs-convoy", 3, lag=2)


# ------------------------------------------------------------------ derivations and ledger methods

@pytest.mark.parametrize("module, expr", [(sjf_families, "tel_sjf_expr"), (fcfs_families, "tel_fcfs_expr")])
def test_derivation_checks_and_refutes_a_wrong_closed_form(module, expr):
    check = module.derivation().check()
    assert [s.method for s, c in zip(module.derivation().steps, check.steps) if c.status != "checked"] == ["unchecked"]
    assert module.derivation(getattr(module, expr)() + 1).check().status == "refuted"


@pytest.mark.parametrize("name, module, expr", [("simulation:sjf-families", sjf_families, "tel_sjf_expr"),
                                                ("simulation:fcfs-families", fcfs_families, "tel_fcfs_expr")])
def test_ledger_method_checks_and_can_fail(name, module, expr, monkeypatch):
    ctx = Context("quick", None, 0, ())
    good = FAMILY_METHODS[name](None, ctx)
    assert good.status == "checked" and good.covers[name][0] == "checked"
    wrong = getattr(module, expr)() + module.k  # a closed form off by k
    monkeypatch.setattr(module, expr, lambda: wrong)
    assert FAMILY_METHODS[name](None, ctx).status == "refuted"


# ------------------------------------------------------------------ committed witnesses

@pytest.mark.parametrize("stem, module, member, policy, on_ties", [
    ("sjf_burst_alpha0.5_family_long_blockers_k12_T20", sjf_families, (12, 20), "sjf", False),
    ("sjf_burst_alpha0.5_family_long_blockers_k30_T60", sjf_families, (30, 60), "sjf", False),  # certified 15.13
    ("fcfs_burst_alpha0.5_family_convoy_k8_T64", fcfs_families, (8, 64), "fcfs", True),
    ("fcfs_arrivals_alpha0.5_family_convoy_k8_T64_lag1", fcfs_families, (8, 64, 1), "fcfs", False),
])
def test_committed_family_witness_has_the_closed_forms(stem, module, member, policy, on_ties):
    # tests/test_witnesses.py re-verifies every committed file with the checker; here: they are the family's
    data = json.loads((WITNESSES / f"{stem}.json").read_text())
    tels = module.closed_form_tels(*member)
    assert data["policy"] == policy
    assert data["policy_schedule"]["tel"] == tels[policy]
    assert data["witness_schedule"]["tel"] == tels["witness"]
    assert data["witness_schedule"]["starts"] == module.witness_starts(*member)
    assert data["tie_check"]["depends_on_ties"] is on_ties
