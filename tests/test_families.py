"""Families with limits: the SVF lower-bound family (``svf-pairs``, claim ``svf.lower_bound``)
against the simulator and the checker, by hand and for many sizes; the best known SVF lower
bound next to Thm. 3.2's upper bound; parameters of ``geosched family``."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from geosched.adversary import families
from geosched.adversary.families import FAMILIES, best_svf_lower_bound, evaluate_family
from geosched.cli import main
from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_lower_bound


def test_svf_pairs_by_hand():
    # m = 3, q = 1: six requests (0, 3), M = 6. SVF: pairs at 0, 3, 6 complete at 3, 6, 9:
    # TEL 2 (3 + 6 + 9) = 36. Staggered by 1: completions 3..8, TEL 33. At every step the running
    # requests hold 1 + 2 + 3 = 6 = M tokens (once three run).
    inst = svf_lower_bound.svf_pairs(3, 1)
    assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == 36
    witness = check_schedule(inst, svf_lower_bound.witness_starts(3, 1))
    assert witness.feasible and witness.metrics.tel == 33
    assert max(witness.memory_profile()) == 6
    assert svf_lower_bound.closed_form_tels(3, 1) == {"svf": 36, "witness": 33}


@pytest.mark.parametrize("q", [1, 2, 3])
@pytest.mark.parametrize("m", [1, 2, 4, 7, 12])
def test_svf_pairs_closed_form_matches_simulation(m, q):
    report = evaluate_family("svf-pairs", m, q=q)
    assert report.match, report.message
    assert report.certified_ratio == sp.Rational(3 * (m + 1), 2 * m + 5)
    assert report.alpha == sp.Rational(1, 2) and report.limit == "3/2"


def test_svf_triangles_by_hand():
    # m = 2, r = 2, q = 1: six requests (0, 5), M = 15. SVF: triples at 0 and 5 (3 * 5 = M at
    # step 5; a fourth started before 5 would hold more there): TEL 3 * 5 + 3 * 10 = 45. One start
    # per step: completions 5..10, TEL 45; from the fifth start on every step holds 1+2+3+4+5 = 15.
    inst = svf_lower_bound.svf_triangles(2, 2, 1)
    assert (inst.memory, inst.n, inst.alpha) == (15, 6, sp.Rational(1, 3))
    assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == 45
    witness = check_schedule(inst, svf_lower_bound.triangle_witness_starts(2, 2, 1))
    assert witness.feasible and witness.metrics.tel == 45 and max(witness.memory_profile()) == 15
    # m = 10: SVF 3 * 5 * (1 + ... + 10) = 825; S: sum_{i<30} (i + 5) = 435 + 150 = 585
    assert svf_lower_bound.triangle_closed_form_tels(10, 2, 1) == {"svf": 825, "witness": 585}


@pytest.mark.parametrize("q", [1, 2])
@pytest.mark.parametrize("r", [1, 2, 3, 5])
@pytest.mark.parametrize("m", [1, 3, 8])
def test_svf_triangles_closed_form_matches_simulation(m, r, q):
    report = evaluate_family("svf-triangles", m, r=r, q=q)
    assert report.match, report.message
    p = 2 * r + 1
    assert report.certified_ratio == sp.Rational(p * (m + 1), (r + 1) * m + 4 * r + 1)
    assert report.alpha == sp.Rational(1, r + 1) and report.limit == str(sp.Rational(p, r + 1))


def test_svf_triangles_r1_is_svf_pairs():
    for m, q in ((3, 1), (4, 2)):
        assert svf_lower_bound.svf_triangles(m, 1, q).to_dict() == svf_lower_bound.svf_pairs(m, q).to_dict()
        assert svf_lower_bound.triangle_closed_form_tels(m, 1, q) == svf_lower_bound.closed_form_tels(m, q)


def test_a_member_above_1_6():
    # ratio 5(m+1)/(3m+9) >= 1.6 from m = 47 on (r = 2, alpha = 1/3)
    assert float(evaluate_family("svf-triangles", 46, r=2).certified_ratio) < 1.6
    report = evaluate_family("svf-triangles", 47, r=2)
    assert report.match and float(report.certified_ratio) >= 1.6 and report.alpha <= sp.Rational(1, 2)


def test_best_known_svf_lower_bound_beside_the_theorem():
    best = best_svf_lower_bound()
    assert (best["lower"], best["family"], best["upper"]) == ("2", "svf-triangles", "5")
    # svf-fillers (alpha = 1/2): (12h + 7)/(6h + 4) -> 2 as h -> infinity; svf-alternating (alpha > 1/2) is not counted
    assert best["limits"] == {"svf-pairs": "3/2", "svf-triangles": "2", "svf-fillers": "2"}
    assert svf_lower_bound.interval() == (2, 5)
    # the limit is approached from below: at m = 1000, 3 * 1001 / 2005
    report = evaluate_family("svf-pairs", 1000)
    assert float(report.certified_ratio) == pytest.approx(3003 / 2005) and report.match


def test_a_wrong_closed_form_is_a_mismatch(monkeypatch):
    fam = FAMILIES["svf-pairs"]
    broken = dataclasses.replace(fam, witness_tel=fam.witness_tel + 1)
    monkeypatch.setitem(families.FAMILIES, "svf-pairs", broken)
    assert evaluate_family("svf-pairs", 3).status == "diverged"


def test_family_parameters_are_checked(capsys):
    with pytest.raises(ValidationError, match="not a parameter"):
        evaluate_family("svf-pairs", 3, r=2)
    with pytest.raises(ValidationError, match="q"):
        evaluate_family("svf-pairs", 3, q=0)
    assert main(["family", "svf-pairs", "--size", "4", "--param", "q=2"]) == 0
    assert "limit 3/2" in capsys.readouterr().out
    assert main(["family", "svf-pairs", "--size", "4", "--param", "q"]) == 2


@pytest.mark.parametrize("size", [3, 4, 6, 9, 15])
def test_svf1_blockers_closed_form_matches_simulation(size):
    report = evaluate_family("svf1-blockers", size)
    assert report.match, report.message
    k = size
    assert report.certified_ratio == sp.Rational(2 * k**3 + 4 * k**2 + 4 * k + 3, 4 * k**2 + 10 * k + 5)
    assert report.alpha == sp.Rational(1, 2)


def test_svf1_blockers_grow_like_sqrt_t():
    fam = FAMILIES["svf1-blockers"]
    size = sp.Symbol("k", positive=True, integer=True)
    assert fam.limit == sp.oo
    assert sp.limit(fam.ratio / size, size, sp.oo) == sp.Rational(1, 2)  # T = k^2: ratio ~ sqrt(T)/2
    # by hand, k = 3 (T = 9, P = 27, M = 54): 9 dummies finish at 1, the blockers at 9, the six
    # (25, 2) run in pairs at 9, 11, 13: TEL 9 + 18 + 2 (11 + 13 + 15) = 105; witness 9 + 2 (3 + 5 + 7) + 2 * 16 = 71
    inst, witness = families.svf1_blockers(3)
    assert check_schedule(inst, simulate(inst, "svf1").starts).metrics.tel == 105
    assert check_schedule(inst, witness).metrics.tel == 71


@pytest.mark.parametrize("size", [2, 3, 5, 8])
def test_svf1_proxy_range_is_sjf_blocking_under_1bit_svf(size):
    # theta = 1 = floor(sqrt 2): the blockers (K-1, 1) are short with key K, the smalls (0, 2) long with key
    # (O_1^2 + O_1)/2 > K, so 1-bit SVF serves the blockers first, as SJF does on the same member
    report = evaluate_family("svf1-proxy-range", size)
    assert report.match, report.message
    inst, _ = families.svf1_proxy_range(size)
    assert simulate(inst, FAMILIES["svf1-proxy-range"].policy).starts == simulate(inst, "sjf").starts
    assert max(r.output for r in inst.requests) == 2 and report.alpha == sp.Rational(1, 2)


def test_svf1_proxy_range_exceeds_the_in_range_bound_at_fixed_t():
    # Coq (OneBit.thm33_onebit_T): with proxies in [1, T] the ratio is at most 1 + (4T - 2)/(1 - alpha) = 13 at
    # T = 2, alpha = 1/2; the long proxy 2^20 > T breaks that hypothesis and the ratio grows like k/3
    fam = FAMILIES["svf1-proxy-range"]
    size = sp.Symbol("k", positive=True, integer=True)
    assert fam.limit == sp.oo and sp.limit(fam.ratio / size, size, sp.oo) == sp.Rational(1, 3)
    assert evaluate_family("svf1-proxy-range", 40).certified_ratio > 13
    assert evaluate_family("svf1-proxy-range", 37).certified_ratio < 13
    # the same member with the long proxy in range (O_1 = T = 2): the smalls go first and the ratio is 1
    inst, witness = families.svf1_proxy_range(10)
    in_range = simulate(inst, "svf1:theta=1,short_length=1,long_length=2").starts
    assert check_schedule(inst, in_range).metrics.tel <= check_schedule(inst, witness).metrics.tel


def test_committed_svf1_proxy_range_witness_is_the_member():
    # tests/test_witnesses.py re-verifies the file with the checker; here: it is member k = 40, written by
    # `geosched family svf1-proxy-range --size 40 --out ...`
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "docs" / "witnesses" / \
        "svf1_burst_alpha0.5_family_proxy_range_k40_T2.json"
    data = json.loads(path.read_text())
    k = 40
    assert data["policy"] == FAMILIES["svf1-proxy-range"].policy
    assert data["policy_schedule"]["tel"] == k**3 + 3 * k**2 + k
    assert data["witness_schedule"]["tel"] == 3 * k**2 + 4 * k - 1
    assert data["certified_ratio"] > 13  # above 1 + (4T - 2)/(1 - alpha) at T = 2, alpha = 1/2


def test_family_out_writes_a_witness_and_never_overwrites(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["family", "svf1-proxy-range", "--size", "3", "--out", str(out)]) == 0
    assert "witness written" in capsys.readouterr().out
    assert main(["check-witness", str(out)]) == 0
    capsys.readouterr()
    before = out.read_text()
    assert main(["family", "svf1-proxy-range", "--size", "4", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--force" in err and out.read_text() == before
    assert main(["family", "svf1-proxy-range", "--size", "4", "--out", str(out), "--force"]) == 0
