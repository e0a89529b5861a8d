"""SVF families of issue 32, item 2 (:mod:`geosched.theory.svf_alternating`, ...).

Expectations are derived by hand in the tests (small members traced step by step) or recomputed by the
simulator and the independent checker; the closed forms are what is under test.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from geosched.adversary.families import FAMILIES, best_svf_lower_bound, evaluate_family
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import instance_from_dict
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_alternating, svf_fillers
from geosched.verify.evidence import Context
from geosched.verify.family_evidence import FAMILY_METHODS

WITNESS_DIR = Path(__file__).resolve().parent.parent / "docs" / "witnesses"


# ------------------------------------------------------------------ svf-alternating

def test_svf_alternating_by_hand():
    # c = 2, m = 1: M = 6, X = (1, 2) (peak 3, volume 1*2 + 3 = 5), H = (4, 1) (peak 5, volume 4 + 1 = 5)
    inst = svf_alternating.alternating(1, 2)
    assert inst.memory == 6 and [(r.prompt, r.output) for r in inst.requests] == [(1, 2), (4, 1)] * 2
    # X and H never overlap (first steps hold 2 + 5 > 6): SVF runs X0 [0, 2], H0 [2, 3], X1 [3, 5], H1 [5, 6]
    starts = simulate(inst, "svf").starts
    assert [starts[r.id] for r in inst.requests] == [0, 2, 3, 5]
    assert check_schedule(inst, starts).metrics.tel == 2 + 3 + 5 + 6
    # the witness: both X at 0 (2 x 3 = M), the H's at 2 and 3: 2 + 2 + 3 + 4
    witness = check_schedule(inst, svf_alternating.witness_starts(1, 2))
    assert witness.feasible and witness.metrics.tel == 11
    assert svf_alternating.closed_form_tels(1, 2) == {"svf": 16, "witness": 11}
    assert inst.alpha == Fraction(5, 6)  # peak 5 over M = 6


@pytest.mark.parametrize("size, c", [(1, 2), (2, 3), (3, 4), (2, 7), (1, 20), (3, 22)])
def test_svf_alternating_closed_form_matches_simulation(size, c):
    report = evaluate_family("svf-alternating", size, c=c)
    assert report.match and report.witness_feasible, report.message
    assert report.alpha == Fraction(c * c + 1, c * (c + 1))


def test_svf_alternating_grows_like_one_over_two_one_minus_alpha():
    fam = FAMILIES["svf-alternating"]
    c = fam.symbols["c"]
    assert fam.limit == (c + 1) / 2 and fam.supremum.is_infinite
    for width in (5, 20, 60):
        alpha = Fraction(width * width + 1, width * (width + 1))
        limit = Fraction(width + 1, 2)
        assert limit * 2 * (1 - alpha) == Fraction(width - 1, width)  # -> 1 as c -> infinity
        assert limit < 1 + 2 / (1 - alpha)  # below Thm. 3.2 at its alpha
    # the alpha <= 1/2 lower bound is not raised by a family at alpha > 1/2
    assert best_svf_lower_bound()["lower"] == "2"


def test_svf_alternating_derivation_checks_and_refutes_a_wrong_closed_form():
    derivation = svf_alternating.derivation()
    steps = derivation.check().steps
    assert [s.method for s, c in zip(derivation.steps, steps) if c.status != "checked"] == ["unchecked", "unchecked"]
    assert svf_alternating.derivation(svf_alternating.tel_svf_expr() + 1).check().status == "refuted"


def test_svf_alternating_ledger_method_checks_and_can_fail(monkeypatch):
    ctx = Context("quick", None, 0, ())
    method = FAMILY_METHODS["simulation:svf-alternating"]
    good = method(None, ctx)
    assert good.status == "checked" and good.covers["simulation:svf-alternating"][0] == "checked"
    wrong = svf_alternating.tel_witness_expr() + svf_alternating.m
    monkeypatch.setattr(svf_alternating, "tel_witness_expr", lambda: wrong)
    assert method(None, ctx).status == "refuted"


def test_committed_svf_alternating_witness_is_the_member_and_above_ten():
    path = WITNESS_DIR / "svf_burst_alpha0.958_family_alternating_k20_c22.json"
    data = json.loads(path.read_text())
    instance = instance_from_dict(data["instance"])
    built = svf_alternating.alternating(20, 22)
    assert [(r.id, r.prompt, r.output) for r in instance.requests] == [(r.id, r.prompt, r.output)
                                                                       for r in built.requests]
    svf = check_schedule(instance, simulate(instance, "svf").starts)
    witness = check_schedule(instance, data["witness_schedule"]["starts"])
    assert witness.feasible and instance.alpha <= Fraction(96, 100)
    assert Fraction(svf.metrics.tel, witness.metrics.tel) >= 10


# ------------------------------------------------------------------ svf-fillers

def test_svf_fillers_by_hand():
    # h = 1: b = 10, p = 19, M = 190; m = 1: 10 triangles (0, 19), then f = 3 fillers (92, 3) (peak 95 = M/2)
    inst = svf_fillers.fillers(1, 1)
    assert inst.memory == 190 and inst.alpha == Fraction(1, 2)
    shapes = [(r.prompt, r.output) for r in inst.requests]
    assert shapes == [(0, 19)] * 10 + [(92, 3)] * 3
    # SVF: the 10 triangles together at 0 (10 x 19 = M at step 19); each filler beside them, one at a time:
    # at step 3(i + 1) the batch holds 30(i + 1) and the filler 95, <= 190 for i <= 2
    starts = simulate(inst, "svf").starts
    assert [starts[r.id] for r in inst.requests] == [0] * 10 + [0, 3, 6]
    assert check_schedule(inst, starts).metrics.tel == 10 * 19 + 3 + 6 + 9
    # S: triangle j at j (ends j + 19), filler j at 3j
    witness = check_schedule(inst, svf_fillers.witness_starts(1, 1))
    assert witness.feasible and witness.metrics.tel == sum(j + 19 for j in range(10)) + 3 + 6 + 9
    assert svf_fillers.closed_form_tels(1, 1) == {"svf": 208, "witness": 253}


@pytest.mark.parametrize("size, h", [(1, 1), (2, 1), (3, 2), (5, 1), (2, 4), (4, 3)])
def test_svf_fillers_closed_form_matches_simulation(size, h):
    report = evaluate_family("svf-fillers", size, h=h)
    assert report.match and report.witness_feasible, report.message
    assert report.alpha == Fraction(1, 2)


def test_svf_fillers_limit_tends_to_two_at_alpha_one_half():
    fam = FAMILIES["svf-fillers"]
    h = fam.symbols["h"]
    assert sp.simplify(fam.limit - (12 * h + 7) / (6 * h + 4)) == 0 and fam.supremum == 2
    assert best_svf_lower_bound()["lower"] == "2"


def test_svf_fillers_derivation_and_ledger_method_can_fail(monkeypatch):
    derivation = svf_fillers.derivation()
    steps = derivation.check().steps
    assert [s.method for s, c in zip(derivation.steps, steps) if c.status != "checked"] == ["unchecked", "unchecked"]
    assert svf_fillers.derivation(svf_fillers.tel_svf_expr() + 1).check().status == "refuted"
    ctx = Context("quick", None, 0, ())
    method = FAMILY_METHODS["simulation:svf-fillers"]
    assert method(None, ctx).status == "checked"
    wrong = svf_fillers.tel_svf_expr() + svf_fillers.m
    monkeypatch.setattr(svf_fillers, "tel_svf_expr", lambda: wrong)
    assert method(None, ctx).status == "refuted"


@pytest.mark.parametrize("stem, member, n_max, floor", [
    ("svf_burst_alpha0.5_family_fillers_k146_h5", (146, 5), 5000, Fraction(194, 100)),
    ("svf_burst_alpha0.5_family_fillers_k90_h3", (90, 3), 2000, Fraction(19, 10)),
])
def test_committed_svf_fillers_witnesses_are_the_members(stem, member, n_max, floor):
    data = json.loads((WITNESS_DIR / f"{stem}.json").read_text())
    instance = instance_from_dict(data["instance"])
    built = svf_fillers.fillers(*member)
    assert [(r.id, r.prompt, r.output) for r in instance.requests] == [(r.id, r.prompt, r.output)
                                                                       for r in built.requests]
    svf = check_schedule(instance, simulate(instance, "svf").starts)
    witness = check_schedule(instance, data["witness_schedule"]["starts"])
    assert witness.feasible and instance.alpha == Fraction(1, 2) and instance.n <= n_max
    assert Fraction(svf.metrics.tel, witness.metrics.tel) >= floor


def test_svf_alternating_c4_beats_two_against_the_proved_optimum():
    # m = 1, c = 4: n = 8, M = 40, X = (6, 4), H = (33, 1), alpha = 34/40; SVF serial: 4 + 5 + 9 + ... = 96
    from geosched.reference_impl.opt.solve import solve_opt

    inst = svf_alternating.alternating(1, 4)
    assert (inst.n, inst.memory, inst.alpha) == (8, 40, Fraction(17, 20))
    assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == sum(5 * j - 1 + 5 * j for j in range(1, 5))
    opt = solve_opt(inst, time_limit=30, seed=0)
    assert opt.status == "optimal" and check_schedule(inst, opt.starts).metrics.tel == opt.tel == 42
    assert Fraction(96, opt.tel) > 2
    data = json.loads((WITNESS_DIR / "svf_burst_alpha0.85_family_alternating_k1_c4.json").read_text())
    assert check_schedule(inst, data["witness_schedule"]["starts"]).metrics.tel == 42
