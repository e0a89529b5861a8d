"""The fluid analysis of k-group burst families (adversary/fluid.py): cycle rates by hand, paced
witnesses feasible for the checker, the limits against finite members, the bound "no k-group family
exceeds its worst single group" (sympy), and the interval branch and bound over gamma."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from geosched.adversary import fluid
from geosched.adversary.fast import ids_for
from geosched.adversary.fluid import (
    FluidFamily,
    finite_member,
    maximise_gamma,
    peak_count_bound,
    ratio_bound_step,
    single_group_bound,
    single_group_scan,
    svf_cycle_rate,
    witness_pace,
)
from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulation import simulate


@pytest.mark.parametrize("s, o, memory, rate", [
    (0, 3, 6, Fraction(2, 3)),  # pairs every 3 steps (svf-pairs)
    (0, 5, 15, Fraction(3, 5)),  # triples every 5 steps (svf-triangles, r = 2)
    (0, 1, 2, Fraction(2, 1)),  # two one-step requests per step
    (1, 1, 4, Fraction(2, 1)),  # peak 2: two per step fill M = 4
])
def test_cycle_rates_by_hand(s, o, memory, rate):
    assert svf_cycle_rate(s, o, memory) == rate


def test_cycle_rate_against_the_reference_simulator():
    # (0, 4) in M = 10: the rate from state repetition equals the slope of the reference simulator's starts
    rate = svf_cycle_rate(0, 4, 10)
    inst = Instance(10, [Request(f"r{j:03d}", 0, 0, 4) for j in range(400)])
    starts = sorted(simulate(inst, "svf").starts.values())
    assert rate == Fraction(3, 4)  # 3 starts every 4 steps, once periodic
    for j in (100, 101, 102):
        assert starts[j + 3 * 60] - starts[j] == 4 * 60


def test_witness_pace_by_hand_and_feasible():
    assert witness_pace(0, 5, 15) == 1  # ages 1..5 sum to 15 = M
    assert witness_pace(0, 3, 6) == 1  # 1 + 2 + 3 = 6
    pace = witness_pace(0, 20, 200)  # v = 210 > M: a pace above 1
    assert pace > Fraction(210, 200)
    starts = {rid: (i * pace.numerator) // pace.denominator for i, rid in enumerate(ids_for(300))}
    inst = Instance(200, [Request(rid, 0, 0, 20) for rid in ids_for(300)])
    assert check_schedule(inst, starts).feasible
    # one step faster than the pace the function returns is infeasible somewhere (it is the smallest on its grid)
    faster = Fraction(210, 200)
    fast_starts = {rid: (i * faster.numerator) // faster.denominator for i, rid in enumerate(ids_for(300))}
    assert not check_schedule(inst, fast_starts).feasible


def test_single_group_limits_equal_on_the_triangles():
    fam = FluidFamily(15, ((0, 5),))
    limits = fam.limits((1,))
    assert limits == {"lower": sp.Rational(5, 3), "upper": sp.Rational(5, 3)}
    assert single_group_bound(0, 5, 15) == Fraction(5, 3) == fam.ceiling()


def test_finite_members_converge_to_the_fluid_limit():
    fam = FluidFamily(15, ((0, 5), (2, 3)))
    gam = (Fraction(1, 2), Fraction(1, 2))
    forms = fam.forms(gam)
    errors = []
    for n in (200, 400, 800):
        member = finite_member(fam, (n // 2, n // 2))
        errors.append(abs(member["svf_tel"] / n**2 - float(forms["svf"])))
        # the witness is feasible for the checker and its TEL/n^2 tends to the witness form
        ids = ids_for(n)
        inst = Instance(15, [Request(i, 0, int(s), int(o)) for i, s, o in zip(ids, member["prompt"], member["output"])])
        assert check_schedule(inst, dict(zip(ids, map(int, member["witness_starts"])))).feasible
        assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == member["svf_tel"]
        assert member["witness_tel"] / n**2 <= float(forms["witness"]) + 20 / n
    assert errors[2] < errors[1] < errors[0] and errors[2] < 0.01  # O(1/n)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_no_k_group_family_beats_its_worst_group(k):
    check = ratio_bound_step(k)
    assert check["checked"] and check["terms"] == k * (k + 1) // 2


def test_the_bound_check_can_fail():
    # with tau_j = rho v_j/M + e_j (SVF slower than rho allows) the difference has negative terms
    g = sp.symbols("g1:3", nonnegative=True)
    w = sp.symbols("w1:3", nonnegative=True)
    e = sp.symbols("e1:3", positive=True)
    rho = sp.Symbol("rho", positive=True)
    diff = sp.expand(rho * fluid.phase_limit(g, w) - fluid.phase_limit(g, [rho * a + b for a, b in zip(w, e)]))
    assert not all(t.is_nonnegative for t in sp.Add.make_args(diff))


def test_branch_and_bound_ceiling_holds_on_a_grid():
    fam = FluidFamily(15, ((0, 5), (0, 2), (3, 2)))
    result = maximise_gamma(fam, eps=1e-3)
    assert result["status"] == "certified"
    forms = fam.forms()
    syms = sorted(forms["svf"].free_symbols | forms["witness"].free_symbols, key=str)
    f = sp.lambdify(syms, forms["svf"] / forms["witness"])
    grid = [f(a, b, 1 - a - b) for a in np.linspace(0, 1, 41) for b in np.linspace(0, 1, 41) if a + b <= 1]
    assert max(grid) <= float(result["ceiling"]) + 1e-12
    assert float(result["best"]) >= max(grid) - 1e-9
    assert result["ceiling"] <= fam.ceiling() + Fraction(1, 1000)  # the witnessed ratio stays below max_j rho_j


def test_single_group_scan_small():
    res = single_group_scan(12)
    # the largest rho in M <= 12: pairs (0, 6) in M = 12, 12 / (2/6 * 21) = 12/7
    assert res["max"] == Fraction(12, 7) and res["at"] == (12, 0, 6)
    assert all(value[0] < 2 for value in res["per_memory"].values())


def test_bad_types_are_refused():
    with pytest.raises(ValidationError, match="alpha"):
        FluidFamily(10, ((3, 3),))
    with pytest.raises(ValidationError, match="distinct volumes"):
        FluidFamily(20, ((0, 3), (0, 3)))
    with pytest.raises(ValidationError, match="output"):
        svf_cycle_rate(0, 0, 10)


def test_count_bound_holds_on_the_simulated_traces_and_gives_the_single_group_bound():
    # the counting step of theory/svf_fluid_classes.single_group_steps against the simulated cycle rates, and its
    # algebra: the mean count q + min(1, (r - s)/o) bounds rho by 2M/(M + 2) at every group
    extra = 0
    for memory in range(4, 31):
        for o in range(1, memory // 2 + 1):
            for s in range(0, memory // 2 - o + 1):
                cert = peak_count_bound(s, o, memory)
                assert svf_cycle_rate(s, o, memory) * o >= cert["count"], (s, o, memory)
                assert single_group_bound(s, o, memory) <= cert["bound"] <= Fraction(2 * memory, memory + 2)
                assert cert["proves"]
                extra += cert["count"] > cert["q"]
    assert extra  # the q + 1 part is used: the plain peak count q alone does not prove every group
    assert peak_count_bound(0, 5, 14)["q"] * (0 + 5 + 1) < 14 + 2  # e.g. (0, 5) in M = 14 needs it
    assert peak_count_bound(0, 12, 24)["bound"] == Fraction(48, 26) == single_group_bound(0, 12, 24)  # attained


def test_single_group_scan_counts_proved_and_open():
    scan = single_group_scan(12)
    total = sum(sum(memory // 2 - o + 1 for o in range(1, memory // 2 + 1)) for memory in range(4, 13))
    assert scan["proved"] == total and scan["open"] == 0


def _svf_starts(s, o, memory, n):
    inst = Instance(memory, [Request(f"r{i:03d}", 0, s, o) for i in range(n)])
    starts = simulate(inst, "svf").starts
    return [starts[f"r{i:03d}"] for i in range(n)]


def _rate_terms(s, o, memory):
    q, rest = divmod(memory, s + o)
    lead = max(rest - s, 0)
    return q * o + lead, lead


def test_the_coq_start_bound_holds_on_the_reference_simulator():
    # SvfGroup.v's svf_group_start_bound, (q o + L) x_k <= o^2 k + 3 o L, on an independent implementation
    # (the Python simulator, not the extracted Coq): a disagreement would mean the Coq model or the simulator
    # is not the policy the other one is
    for memory in range(2, 25):
        for o in range(1, memory + 1):
            for s in range(0, memory - o + 1):
                mu, lead = _rate_terms(s, o, memory)
                for k, x in enumerate(_svf_starts(s, o, memory, 30)):
                    assert mu * x <= o * o * k + 3 * o * lead, (s, o, memory, k)


def test_the_coq_start_bound_is_sharp_in_its_rate():
    # with q o + L raised by one the statement is false: (0, o) in M = 2o starts pairs every o steps
    for o in range(1, 8):
        mu, lead = _rate_terms(0, o, 2 * o)
        assert (mu, lead) == (2 * o, 0)
        starts = _svf_starts(0, o, 2 * o, 4 * o + 8)
        assert all(mu * x <= o * o * k for k, x in enumerate(starts))
        assert any((mu + 1) * x > o * o * k + 3 * o * lead for k, x in enumerate(starts))


def test_the_coq_competitive_bound_holds_against_the_staggered_and_svf_schedules():
    # SvfGroup.v's svf_group_competitive with xs = SVF itself and a paced schedule, both feasible by the checker
    for memory in range(4, 21, 2):
        for o in range(1, memory // 2 + 1):
            for s in range(0, memory // 2 - o + 1):
                n = 25
                mu, lead = _rate_terms(s, o, memory)
                starts = _svf_starts(s, o, memory, n)
                inst = Instance(memory, [Request(f"r{i:03d}", 0, s, o) for i in range(n)])
                tel_svf = sum(x + o for x in starts)
                paced = {f"r{i:03d}": i * (s + o) for i in range(n)}  # one at a time: feasible as peak <= M
                assert check_schedule(inst, paced).feasible
                linear = (3 * (2 * s + o + 1) * lead + (memory + 2) * o) * n
                for tel in (tel_svf, sum(x + o for x in paced.values())):
                    assert (memory + 2) * tel_svf <= 2 * memory * tel + linear, (s, o, memory)


def test_the_coq_triangle_starts_match_the_reference_simulator():
    # SvfTriangles.v's svf_triangles_starts: p = 2b - 1, M = b p, starts p * floor(k / b)
    for b in range(1, 6):
        p = 2 * b - 1
        assert _svf_starts(0, p, b * p, 3 * b + 2) == [p * (k // b) for k in range(3 * b + 2)]


def test_the_phase_chain_needs_the_coq_slacks_and_the_limit_is_q_of_tau():
    # svf_fluid_classes.phase_bound_steps: the chain over the groups is checked only with the slacks of Coq's
    # per-request bound as premises, and the limit is Q(gamma; tau), not a weaker form
    from dataclasses import replace

    from geosched.theory import svf_fluid_classes as classes

    for k in (2, 3):
        coq_step, series, chain, limit = classes.phase_bound_steps(k)
        assert coq_step.covered_by == ("coq:svf_phase_start_bound_abs",)
        assert series.check(2).status == "checked" and chain.check(3).status == "checked"
        assert limit.check(4).status == "checked"
        assert replace(chain, premises=()).check(3).status != "checked"
        g = sp.symbols(f"gamma1:{k + 1}", nonnegative=True)  # a group may be empty (H2)
        tau = sp.symbols(f"tau1:{k + 1}", positive=True)
        assert limit.rhs == classes.phase_form(g, tau)
        wrong = replace(limit, rhs=classes.phase_form(g, [t / 2 for t in tau]))
        assert wrong.check(4).status != "checked"


def _triangle_tels(b, n):
    p = 2 * b - 1
    inst = Instance(b * p, [Request(f"r{i:03d}", 0, 0, p) for i in range(n)])
    svf = sum(x + p for x in simulate(inst, "svf").starts.values())
    staggered = {f"r{i:03d}": i for i in range(n)}
    assert check_schedule(inst, staggered).feasible
    return svf, sum(x + p for x in staggered.values())


def test_the_triangle_steps_are_the_simulated_family_and_the_coq_statement():
    # the sympy steps after the Coq-covered ones are evaluated on the family itself (p = 2b - 1, M = bp,
    # simulated, the staggered schedule checked): TEL(S), the ratio bound, the vanishing correction
    from geosched.theory import svf_fluid_classes as classes

    _, _, tel_s_step, ratio_step, correction, to_two = classes.triangle_steps(1)
    n_, b_, ts_ = sp.symbols("n b T_S", positive=True)
    for b in (1, 2, 3, 4):
        p = 2 * b - 1
        for n in (1, 5, 12, 30):
            tel_svf, tel_s = _triangle_tels(b, n)
            assert p * tel_s <= b * tel_svf + p * p * n  # the Coq statement, on the simulator
            point = {n_: n, b_: b}
            assert tel_s_step.rhs.subs(point) == tel_s
            lower = ratio_step.rhs.subs({**point, ts_: tel_s})
            assert lower == sp.Rational(p, b) - sp.Rational(p * p * n, b * tel_s) <= sp.Rational(tel_svf, tel_s)
            assert correction.lhs.subs(point) == sp.Rational(p * p * n, b * tel_s)
    assert to_two.lhs.subs(b_, 2) == sp.Rational(3, 2) and to_two.rhs == 2


def test_the_single_group_steps_are_the_coq_constant_against_prop_3_1():
    # svf.fluid.k1 steps 2-4 on concrete members: the correction is c n / ((M + 2) LB) with c the constant of
    # svf_group_competitive and LB = v n (n + 1)/(2M) Prop. 3.1's bound for n identical requests; the bound is 2
    from geosched.reference_impl.model import volume
    from geosched.theory import svf_fluid_classes as classes

    derivation = classes.derivation(1)
    _, divide, correction, below_two = derivation.steps[:4]
    m_, c_, v_, n_, ts_ = sp.Symbol("M", positive=True), *sp.symbols("c v n T_S", positive=True)
    for s, o, memory in ((0, 3, 6), (1, 2, 9), (2, 3, 17)):
        lead = max(memory % (s + o) - s, 0)
        c = 3 * (2 * s + o + 1) * lead + (memory + 2) * o
        v = sp.Rational(volume(s, o))
        for n in (1, 7, 40):
            lb = v * n * (n + 1) / (2 * memory)
            point = {m_: memory, c_: c, v_: v, n_: n}
            assert correction.lhs.subs(point) == sp.Rational(c * n) / ((memory + 2) * lb)
            assert divide.rhs.subs({**point, ts_: lb}) == sp.Rational(2 * memory, memory + 2) + correction.lhs.subs(
                point)
        assert below_two.rhs.subs(m_, memory) == sp.Rational(2 * memory, memory + 2)
    for k in (1, 2, 3, 4):
        assert classes.derivation(k).bound == 2 == below_two.lhs


def test_the_phase_series_counts_gamma_1_n_requests():
    from geosched.theory import svf_fluid_classes as classes

    series = classes.phase_bound_steps(2)[1]
    gamma1, big_n = sp.Symbol("gamma1", nonnegative=True), sp.Symbol("N", positive=True)
    tau1, a1, omega, o1 = sp.Symbol("tau1", positive=True), sp.Symbol("a1", nonnegative=True), \
        sp.Symbol("Omega", positive=True), sp.Symbol("o1", positive=True)
    point = {gamma1: 2, big_n: 5, tau1: 3, a1: 1, omega: 4, o1: 2}
    assert series.rhs.subs(point) == sum(3 * kk + 1 + 4 + 2 for kk in range(10))


def test_the_svf_pairs_ratio_and_limit_are_the_closed_forms():
    from geosched.theory import svf_lower_bound

    for size in (1, 3, 8):
        tels = svf_lower_bound.closed_form_tels(size, 1)
        assert svf_lower_bound.ratio_expr().subs(svf_lower_bound.m, size) == sp.Rational(tels["svf"], tels["witness"])
    assert svf_lower_bound.limit() == sp.Rational(3, 2)


def test_svf_triangles_ids_and_sizes_are_checked():
    from geosched.theory import svf_lower_bound

    assert [r.id for r in svf_lower_bound.svf_triangles(5, 1).requests] == [f"r{j}" for j in range(10)]
    assert svf_lower_bound.svf_triangles(6, 1).requests[0].id == "r00"
    for bad in (True, 0, 1.5):
        with pytest.raises(ValidationError):
            svf_lower_bound.svf_triangles(bad, 1)
