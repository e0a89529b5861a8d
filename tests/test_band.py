"""The alpha band (issue 32, item 1): every instance a search builds has ``alpha_min < alpha <= alpha_max``.

alpha is recomputed here from the arrays, independently of ``SearchSpace.alpha_in_band``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from geosched.adversary.search import (
    SearchSpace,
    _decode,
    equal_volume_pair,
    mutate,
    random_candidate,
)
from geosched.adversary.structured import Description, Group
from geosched.cli import main
from geosched.errors import ValidationError


def _alpha(s: np.ndarray, o: np.ndarray, memory: int) -> Fraction:
    return Fraction(max(int(x) + int(y) for x, y in zip(s, o)), memory)


@st.composite
def bands(draw):
    memory = draw(st.integers(4, 80))
    hi_peak = draw(st.integers(2, memory - 1))
    lo_peak = draw(st.integers(1, hi_peak - 1))
    # decimal sides such that floor(alpha_min M) = lo_peak - 1 ... at most hi_peak - 1 and floor(alpha_max M) = hi_peak
    alpha_max = round((hi_peak + 0.5) / memory, 6) if hi_peak + 0.5 < memory else round(hi_peak / memory, 6)
    alpha_min = round((lo_peak - 0.5) / memory, 6)
    return memory, alpha_min, alpha_max


@given(bands(), st.integers(0, 2**32 - 1), st.sampled_from(["burst", "online"]))
def test_random_and_mutated_instances_stay_in_the_band(band, seed, arrivals):
    memory, alpha_min, alpha_max = band
    space = SearchSpace("svf", max_requests=6, memory=memory, alpha_min=alpha_min, alpha_max=alpha_max,
                        arrivals=arrivals, exact_ties=True)
    rng = np.random.default_rng(seed)
    c = random_candidate(space, rng, int(rng.integers(1, 7)))
    for _ in range(30):
        alpha = _alpha(c.s, c.o, memory)
        assert Fraction(str(alpha_min)) < alpha <= Fraction(str(alpha_max)), (c.s, c.o, memory)
        assert (c.o >= 1).all() and (c.s >= 0).all()
        c, _ = mutate(space, c, rng)


@given(bands(), st.integers(0, 2**32 - 1))
def test_differential_evolution_and_structured_instances_stay_in_the_band(band, seed):
    memory, alpha_min, alpha_max = band
    space = SearchSpace("svf", max_requests=8, memory=memory, alpha_min=alpha_min, alpha_max=alpha_max)
    rng = np.random.default_rng(seed)
    c = _decode(space, rng.integers(-2, memory + 2, size=8 * 2).astype(float))
    assert Fraction(str(alpha_min)) < _alpha(c.s, c.o, memory) <= Fraction(str(alpha_max))
    groups = tuple(Group(int(rng.integers(1, 3)), int(rng.integers(0, 3)), int(rng.integers(1, 3)), 0, 0, 0, 0)
                   for _ in range(int(rng.integers(1, 4))))
    a, s, o = Description(groups).expand(space)
    assert Fraction(str(alpha_min)) < _alpha(s, o, memory) <= Fraction(str(alpha_max))


@given(st.integers(0, 12), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_equal_volume_pair_is_an_exact_tie(s, o, seed):
    peak_max = s + o + 3
    s2, o2 = equal_volume_pair(s, o, peak_max, np.random.default_rng(seed))
    # v = s o + o (o + 1)/2, by hand
    assert 2 * s * o + o * (o + 1) == 2 * s2 * o2 + o2 * (o2 + 1)
    assert s2 >= 0 and o2 >= 1 and s2 + o2 <= peak_max


def test_equal_volume_pair_finds_another_shape():
    # v(4, 1) = 5 = v(1, 2) = 1*2 + 3 (by hand): the tie mutation may change the shape
    shapes = {equal_volume_pair(4, 1, 6, np.random.default_rng(k)) for k in range(40)}
    assert shapes == {(4, 1), (1, 2)}


@pytest.mark.parametrize("alpha_min, alpha_max, field", [
    (0.5, 0.5, "alpha-min"), (0.6, 0.5, "alpha-min"), (-0.1, 0.5, "alpha-min"), (float("nan"), 0.5, "alpha-min"),
])
def test_space_refuses_a_bad_band(alpha_min, alpha_max, field):
    with pytest.raises(ValidationError, match=field):
        SearchSpace("svf", max_requests=4, memory=20, alpha_min=alpha_min, alpha_max=alpha_max)


def test_space_refuses_a_band_without_an_integer_peak():
    # M = 10: peaks > 7.1 and <= 7.9: none (by hand)
    with pytest.raises(ValidationError, match="no integer peak"):
        SearchSpace("svf", max_requests=4, memory=10, alpha_min=0.71, alpha_max=0.79)


@pytest.mark.parametrize("argv, flag", [
    (["--alpha-min", "0.9", "--alpha-max", "0.85"], "--alpha-min"),
    (["--alpha-min", "0.85", "--alpha-max", "0.85"], "--alpha-min"),
    (["--alpha-min", "1.5", "--alpha-max", "0.85"], "--alpha-min"),
    (["--alpha-min", "0.5", "--alpha-max", "1"], "--alpha-max"),
    (["--alpha-min", "0.5"], "--alpha-min"),  # default --alpha-max 0.5
])
def test_cli_band_validation_exits_2_with_one_line(argv, flag, capsys):
    assert main(["hunt", "--policy", "svf", "--memory", "20", "--time", "1", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"geosched: error: {flag}:") and "\n" not in err


def test_hunt_in_a_band_writes_witnesses_in_the_band(tmp_path):
    out = tmp_path / "h"
    assert main(["hunt", "--policy", "svf", "--method", "anneal", "--memory", "20", "--requests", "5",
                 "--alpha-min", "0.75", "--alpha-max", "0.85", "--rounds", "1", "--restarts", "2", "--evals", "200",
                 "--out", str(out)]) == 0
    from geosched.adversary.witness import read_witness

    files = sorted(out.glob("witness_*.json"))
    assert files
    for path in files:
        data = read_witness(path)
        reqs = data["instance"].requests
        alpha = Fraction(max(r.prompt + r.output for r in reqs), data["instance"].memory)
        assert Fraction(3, 4) < alpha <= Fraction(17, 20), path


def test_z3_bounds_band_is_honoured():
    from geosched.adversary.z3search import Z3Bounds, query

    bounds = Z3Bounds(n=2, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="7/8", alpha_min="3/4")
    answer = query("svf", bounds, 1, timeout=60)  # ratio >= 1: every instance qualifies
    assert answer.status == "sat"
    inst = answer.witness.instance
    assert max(r.prompt + r.output for r in inst.requests) == 7  # the only peak in (6, 7] (by hand)
    with pytest.raises(ValidationError, match="alpha_min"):
        Z3Bounds(n=2, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="1/2", alpha_min="1/2")


_Z3_CLI = ["z3-bisect", "--policy", "svf", "--requests", "3", "--memory", "8", "--max-output", "3", "--timeout", "60"]


def test_z3_bisect_band_witness_lies_in_the_band(tmp_path, capsys):
    out = tmp_path / "z3.json"
    assert main([*_Z3_CLI, "--max-prompt", "4", "--alpha-min", "3/4", "--alpha-max", "7/8", "--lo", "1",
                 "--hi", "11/10", "--out", str(out)]) == 0
    from geosched.adversary.witness import read_witness

    reqs = read_witness(out)["instance"].requests
    assert max(r.prompt + r.output for r in reqs) == 7  # the only integer peak in (3/4 * 8, 7/8 * 8] = (6, 7]


def test_z3_bisect_empty_band_is_unsat(capsys):
    import json

    def statuses(*band):
        assert main([*_Z3_CLI, "--max-prompt", "2", *band, "--lo", "1", "--hi", "101/100", "--json"]) == 0
        return {q["status"] for q in json.loads(capsys.readouterr().out)["queries"]}

    # s <= 2, o <= 3: every peak <= 5 <= 3/4 * 8, so no instance lies in the band (by hand): even ratio 1 is unsat
    assert statuses("--alpha-min", "3/4", "--alpha-max", "7/8") == {"unsat"}
    assert "sat" in statuses("--alpha-max", "7/8")  # without the band every instance qualifies at ratio 1


@pytest.mark.parametrize("argv, flag", [
    (["--alpha-min", "0.9", "--alpha-max", "7/8"], "--alpha-min"),
    (["--alpha-min", "7/8", "--alpha-max", "7/8"], "--alpha-min"),
    (["--alpha-min", "x", "--alpha-max", "7/8"], "--alpha-min"),
    (["--alpha-min", "3/2", "--alpha-max", "7/8"], "--alpha-min"),
    (["--alpha-min", "1/2", "--alpha-max", "1"], "--alpha-max"),
    (["--alpha-min", "1/2"], "--alpha-min"),  # default --alpha-max 1/2
])
def test_z3_bisect_bad_band_exits_2_with_one_line(argv, flag, capsys):
    assert main([*_Z3_CLI, "--max-prompt", "4", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"geosched: error: {flag}:") and "\n" not in err


def test_ceiling_bounds_band_is_honoured():
    import z3

    from geosched.reference_impl.z3model import BurstBounds, BurstVariables, instance_constraints

    def sat_with_peaks_at_most(bounds, peak):
        v = BurstVariables.make(bounds.n)
        solver = z3.Solver()
        solver.add(instance_constraints(bounds, v))
        solver.add([s + o <= peak for s, o in zip(v.prompts, v.outputs)])
        return solver.check() == z3.sat

    plain = BurstBounds(n=3, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="7/8")
    band = BurstBounds(n=3, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="7/8", alpha_min="3/4")
    assert sat_with_peaks_at_most(plain, 6) and not sat_with_peaks_at_most(band, 6)  # 3/4 * 8 = 6 is excluded
    assert sat_with_peaks_at_most(band, 7)
    assert band.to_dict()["alpha_min"] == "3/4" and "max(s + o) > 3/4 M" in band.describe()
    with pytest.raises(ValidationError, match="alpha_min"):
        BurstBounds(n=2, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="1/2", alpha_min="1/2")


def test_small_search_ratio_is_exact_against_a_second_optimum(tmp_path):
    from geosched.adversary.smalln import small_search, small_witness
    from geosched.adversary.witness import verify_witness
    from geosched.reference_impl.opt import brute_force_opt
    from geosched.reference_impl.simulation import simulate

    result = small_search("svf", n_max=4, memory=(6, 10), band=(0.6, 0.8), max_evals=400, rng=3)
    assert result.status == "optimal" and result.x is not None
    assert Fraction(3, 5) < result.alpha <= Fraction(4, 5)
    # OPT by the independent exhaustive search, TEL(SVF) by the reference simulator
    assert brute_force_opt(result.x).tel == result.opt_tel
    starts = simulate(result.x, "svf").starts
    assert sum(starts[r.id] + r.output - r.arrival for r in result.x.requests) == result.policy_tel
    report = verify_witness(small_witness(result, "svf").to_dict())
    assert report.ok


def test_hunt_small_cli_refuses_a_bad_band(capsys):
    assert main(["hunt-small", "--policy", "svf", "--alpha-min", "0.8", "--alpha-max", "0.75"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("geosched: error: --alpha-min:") and "\n" not in err


@pytest.mark.parametrize("band", [(Fraction(3, 4), Fraction(17, 20)), (Fraction(1, 2), Fraction(3, 4)),
                                  (Fraction(0), Fraction(1, 2))])
def test_exhaustive_space_band_is_the_filtered_space(band):
    from geosched.verify.exhaustive import Space, SpaceUnion, enumerate_instances

    def key(inst):
        return inst.memory, tuple((r.arrival, r.prompt, r.output) for r in inst.requests)

    boxes = [dict(max_n=2, max_prompt=4, max_output=3, max_memory=14), dict(max_n=3, max_prompt=2, max_output=2,
                                                                              max_memory=10)]
    plain = SpaceUnion(tuple(Space(**b) for b in boxes))
    banded = SpaceUnion(tuple(Space(**b, alpha_band=band) for b in boxes))
    lo, hi = band
    expected = [key(i) for i in enumerate_instances(plain)
                if lo < Fraction(max(r.prompt + r.output for r in i.requests), i.memory) <= hi]
    got = [key(i) for i in enumerate_instances(banded)]
    assert got == expected and got
    with pytest.raises(ValidationError, match="alpha_band"):
        Space(max_n=2, max_prompt=2, max_output=2, max_memory=8, alpha_band=(Fraction(1, 2), Fraction(1, 2)))


def test_small_search_robust_ties_scores_the_worse_order():
    from geosched.adversary.smalln import small_search
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.opt import brute_force_opt
    from geosched.reference_impl.simulation import simulate

    def tel(instance):
        starts = simulate(instance, "svf").starts
        return sum(starts[r.id] + r.output - r.arrival for r in instance.requests)

    result = small_search("svf", n_max=4, memory=(6, 10), band=(0.6, 0.8), max_evals=400, rng=3,
                          ties="robust")
    assert result.status == "optimal" and result.x is not None
    reversed_x = Instance(result.x.memory, list(reversed(result.x.requests)))
    # the reference simulator on both request orders, OPT by the independent exhaustive search
    assert result.policy_tel == min(tel(result.x), tel(reversed_x))
    assert brute_force_opt(result.x).tel == result.opt_tel
    with pytest.raises(ValidationError, match="ties"):
        small_search("svf", n_max=4, memory=(6, 10), max_evals=10, ties="worst")


def test_robust_ties_score_a_tie_dependent_witness_by_its_worse_order():
    from pathlib import Path

    from geosched.adversary.search import fitness
    from geosched.adversary.smalln import _Best, _consider
    from geosched.adversary.witness import read_witness
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.simulation import simulate

    # a witness of the repository whose volumes tie (found by an earlier hunt-small run, read from its file)
    inst = read_witness(Path(__file__).parent.parent / "docs/witnesses/svf_burst_alpha0.85_ratio2.080.json")["instance"]
    reqs = inst.requests

    def tel(requests):
        starts = simulate(Instance(inst.memory, list(requests)), "svf").starts
        return sum(starts[r.id] + r.output - r.arrival for r in requests)

    given, backwards = tel(reqs), tel(list(reversed(reqs)))
    assert backwards < given  # the ratio depends on the order of the tied volumes
    space = SearchSpace("svf", max_requests=len(reqs), memory=inst.memory, alpha_min=0.75, alpha_max=0.85)
    c = _candidate_from(reqs)
    fitness(space, c)
    for ties, expected in (("given", given), ("robust", backwards)):
        best = _Best()
        _consider(space, c, best, 20.0, ties)
        assert best.policy_tel == expected


def _candidate_from(reqs):
    from geosched.adversary.search import Candidate

    return Candidate(*(np.array(v, dtype=np.int64) for v in zip(*((r.arrival, r.prompt, r.output) for r in reqs))))
