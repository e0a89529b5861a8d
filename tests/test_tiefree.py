"""Worst cases that do not rest on ties (issue 43, item 2): the family svf-distinct, the tie-free searches
(``hunt-small --ties distinct`` and ``--scale``, ``z3-bisect --distinct-volumes``) and their witnesses.

Every expected TEL is recomputed here with the simulator and the independent checker from the instance, or
written out by hand; the volumes are counted here.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from geosched.adversary.families import FAMILIES, evaluate_family
from geosched.adversary.tiefree import pairwise_distinct, scaled_variants
from geosched.adversary.witness import verify_witness
from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, burst_instance, instance_from_dict
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_distinct
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, METHODS

WITNESSES = Path(__file__).resolve().parent.parent / "docs" / "witnesses"


def _tels(instance: Instance, starts: dict[str, int]) -> tuple[int, int]:
    svf = check_schedule(instance, simulate(instance, "svf").starts)
    other = check_schedule(instance, starts)
    assert svf.feasible and other.feasible
    return svf.metrics.tel, other.metrics.tel


@pytest.mark.parametrize("size, half", [(1, 1), (1, 2), (2, 1), (3, 1), (2, 2)])
def test_the_family_has_distinct_volumes_and_its_closed_forms(size, half):
    instance = svf_distinct.distinct(size, half)
    volumes = [r.volume for r in instance.requests]
    assert len(set(volumes)) == len(volumes) == 2 * (2 * half + 1) * size
    c, n = 2 * half + 1, (2 * half + 1) * size
    big_k = c * n
    # the order is forced: X_0 < H_0 < X_1 < ... by volume, whatever the tie rule
    assert [r.id[0] for r in sorted(instance.requests, key=lambda r: r.volume)] == ["x", "y"] * n
    svf, witness = _tels(instance, svf_distinct.witness_starts(size, half))
    # written out: TEL(SVF) = K(c + 1) n^2 + Kcn; TEL(S) = K(c^2 m(m + 1)/2 + c^2 m^2 + cm(cm + 1)/2)
    assert svf == big_k * (c + 1) * n * n + big_k * c * n
    assert 2 * witness == big_k * (c * c * size * (size + 1) + 2 * c * c * size * size + c * size * (c * size + 1))
    reversed_tel = check_schedule(instance, simulate(Instance(instance.memory, tuple(reversed(instance.requests))),
                                                     "svf").starts).metrics.tel
    assert reversed_tel == svf  # no tie: the reversed request order runs the same schedule


def test_the_growth_tends_to_one_half_over_one_minus_alpha():
    # the limit (c + 1)/2 at alpha -> (c^2 + 3)/(c^2 + c + 2): (c + 1)(1 - alpha) = (c^2 - 1)/(c^2 + c + 2) -> 1
    assert svf_distinct.derivation().check().status == "unknown"  # two trace steps covered by simulation
    growth = []
    for size, half in ((4, 2), (10, 5), (20, 10)):
        member = svf_distinct.distinct(size, half)
        c = 2 * half + 1
        assert abs(member.alpha - Fraction(c * c + 3, c * c + c + 2)) < Fraction(1, 100)
        svf, witness = _tels(member, svf_distinct.witness_starts(size, half))
        growth.append(Fraction(svf, witness) * 2 * (1 - member.alpha))  # the certified ratio against 1/(2(1 - a))
    assert growth == sorted(growth) and growth[-1] > Fraction(9, 10)


def test_a_wrong_closed_form_is_refuted_by_the_derivation():
    wrong = svf_distinct.tel_svf_expr() + svf_distinct.scale_expr()
    check = svf_distinct.derivation(tel_svf=wrong).check()
    assert check.status == "refuted"


def test_the_simulation_method_checks_the_members_and_refutes_its_canary(monkeypatch):
    evidence = METHODS["simulation:svf-distinct"](CLAIMS["svf.distinct"], Context("quick", None, 0, ()))
    assert evidence.status == "checked" and evidence.canary.refuted
    assert not evidence.coverage.fewer() and evidence.coverage.covered["members"] == 3
    for row in evidence.data["rows"]:  # the members run have distinct volumes (counted here)
        volumes = [r.volume for r in svf_distinct.distinct(*row["member"]).requests]
        assert len(set(volumes)) == len(volumes) == row["n"]
    real = svf_distinct.closed_form_tels
    monkeypatch.setattr(svf_distinct, "closed_form_tels", lambda *a: {**real(*a), "svf": real(*a)["svf"] - 1})
    assert METHODS["simulation:svf-distinct"](CLAIMS["svf.distinct"], Context("quick", None, 0, ())).status \
        == "refuted"


def test_the_ten_request_witness_has_distinct_volumes_a_ratio_above_two_and_the_optimum_as_witness():
    path = WITNESSES / "svf_burst_alpha0.877_family_distinct_k1_h2.json"
    raw = json.loads(path.read_text())
    instance = instance_from_dict(raw["instance"])
    assert instance.n == 10 and pairwise_distinct(instance)
    svf, witness = _tels(instance, raw["witness_schedule"]["starts"])
    assert (svf, witness) == (4375, 1625) and Fraction(svf, witness) == Fraction(35, 13) > 2
    assert witness == svf_distinct.closed_form_tels(1, 2)["witness"]  # the optimum is the family's schedule
    report = verify_witness(raw)
    assert report.ok and report.depends_on_ties is False and report.reversed_ties_tel == svf
    assert raw["ratio_upper"] == raw["certified_ratio"] and "proved optimal" in raw["found_by"]


def test_the_family_is_registered_with_its_limit():
    fam = FAMILIES["svf-distinct"]
    report = evaluate_family("svf-distinct", 1, h=1)
    assert report.match and (report.policy_tel, report.witness_tel) == (405, 216)
    assert str(fam.limit.subs(fam.symbols["h"], 2).simplify()) == "3"


# --------------------------------------------------------------------------- scaling and the searches


def test_scaled_variants_break_every_tie_both_ways():
    base = burst_instance(40, [(6, 4), (33, 1), (6, 4), (33, 1)])  # four volumes 34: ties
    assert not pairwise_distinct(base)
    variants = scaled_variants(base, 3)
    assert variants and all(pairwise_distinct(v) for v in variants)
    for v in variants:
        assert max(r.prompt + r.output for r in v.requests) <= v.memory
        assert [r.output for r in v.requests] == [12, 3, 12, 3]
    orders = {tuple(sorted(range(4), key=lambda i: v.requests[i].volume)) for v in variants}
    assert len(orders) >= 2  # the two tie orders, each made strict
    with pytest.raises(ValidationError, match="scale"):
        scaled_variants(base, 0)


def test_hunt_small_scores_only_distinct_volumes(tmp_path):
    from geosched.adversary.smalln import small_search

    result = small_search("svf", n_max=4, memory=(8, 16), band=(0.75, 0.85), max_evals=400, rng=3,
                          ties="distinct")
    assert result.x is None or pairwise_distinct(result.x)
    scaled = small_search("svf", n_max=4, memory=(8, 16), band=(0.75, 0.85), max_evals=400, rng=3, ties="distinct:4")
    assert scaled.x is not None and pairwise_distinct(scaled.x) and scaled.x.memory >= 32
    svf, opt = _tels(scaled.x, scaled.opt_starts)
    assert Fraction(svf, opt) == Fraction(scaled.policy_tel, scaled.opt_tel)
    with pytest.raises(ValidationError, match="ties"):
        small_search("svf", n_max=4, memory=(8, 16), band=(0.75, 0.85), max_evals=10, ties="tied")


def test_z3_with_distinct_volumes_finds_only_distinct_instances():
    from geosched.adversary.z3search import Z3Bounds, query

    bounds = Z3Bounds(n=3, memory=(10, 10), max_prompt=8, max_output=4, alpha_max="9/10", alpha_min="3/4",
                      distinct_volumes=True)
    answer = query("svf", bounds, "1", rlimit=50_000_000)
    assert answer.status == "sat"
    instance = answer.witness.instance
    assert pairwise_distinct(instance)
    # equal volumes are allowed without the option, forbidden with it: two identical requests are unsat
    same = Z3Bounds(n=2, memory=(4, 4), max_prompt=0, max_output=1, alpha_max="1/4", distinct_volumes=True)
    assert query("svf", same, "1", rlimit=50_000_000).status == "unsat"
    assert query("svf", Z3Bounds(n=2, memory=(4, 4), max_prompt=0, max_output=1, alpha_max="1/4"), "1",
                 rlimit=50_000_000).status == "sat"
