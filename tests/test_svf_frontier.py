"""SVF's upper side (issue 32, item 3) on instances: each Coq statement of ``verify/coq/SvfSharp.v`` and
``verify/coq/LemmaA2Head.v`` evaluated on random bursts (the reference simulator's SVF, the brute force's
optimum accepted by the checker), and a sharpness test for each: the statement is tight, or a slightly
stronger constant fails on a simulated member whose schedule S the checker accepts.

The quantities (the head at a step, the active peaks, the charges, sum_k P_k) are computed here from
their definitions, independently of :mod:`geosched.verify.frontier_evidence`.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.opt.brute import brute_force_opt
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_heavy_limit, svf_prompt_heavy, svf_sharp_bound
from geosched.verify import frontier_evidence

SEED = 20260321


def _burst(memory: int, lengths: list[tuple[int, int]]) -> Instance:
    return Instance(memory, [Request(f"r{k:05d}", 0, s, o) for k, (s, o) in enumerate(lengths)])


def _volume(s: int, o: int) -> int:
    return s * o + (o * o + o) // 2


def _run(inst: Instance) -> dict:
    """SVF (simulator) and its quantities, from the definitions (linear passes, no assumption on the trace)."""
    reqs = inst.requests
    starts = simulate(inst, "svf").starts
    x = [starts[r.id] for r in reqs]
    order = sorted(range(len(reqs)), key=lambda j: (_volume(reqs[j].prompt, reqs[j].output), j))
    peaks = [r.prompt + r.output for r in reqs]
    horizon = max(x)
    # the head at t: the first j in SVF's order with x_j > t = the first position whose running max of x exceeds t
    running, best = [], -1
    for j in order:
        best = max(best, x[j])
        running.append(best)
    delta = [0] * (horizon + max(r.output for r in reqs) + 2)  # active at t: x_j <= t < x_j + o_j
    for j, r in enumerate(reqs):
        delta[x[j]] += peaks[j]
        delta[x[j] + r.output] -= peaks[j]
    steps, mass, pos = [], 0, 0
    for t in range(horizon):
        mass += delta[t]
        while running[pos] <= t:
            pos += 1
        steps.append((t, order[pos], mass))
    upto = [0]  # upto[t] = the charges M - p_head of the steps before t
    for _, head, _ in steps:
        upto.append(upto[-1] + inst.memory - peaks[head])
    vols = sorted(_volume(r.prompt, r.output) for r in reqs)
    return {"x": x, "peaks": peaks, "steps": steps, "charges": sum(upto[xk] for xk in x),
            "tel": sum(x) + sum(r.output for r in reqs), "outputs": sum(r.output for r in reqs),
            "prefix": sum((len(vols) - k) * v for k, v in enumerate(vols))}  # sum_k P_k


def _random_bursts(count: int, rng: random.Random, classes: bool = False) -> list[Instance]:
    out = []
    while len(out) < count:
        n = rng.randint(1, 5)
        lengths = []
        for _ in range(n):
            o = rng.randint(1, 4)
            lengths.append((rng.randint(o, 2 * o) if classes else rng.randint(0, 4), o))
        top = max(s + o for s, o in lengths)
        out.append(_burst(rng.randint(top, top + 8), lengths))
    return out


@pytest.fixture(scope="module")
def solved():
    """Random bursts with their exact optimum (the brute force, re-checked by the checker) and SVF's run."""
    rng = random.Random(SEED)
    rows = []
    for inst in _random_bursts(120, rng) + _random_bursts(40, rng, classes=True):
        opt = brute_force_opt(inst)
        assert opt.status == "optimal" and check_schedule(inst, opt.starts).feasible
        rows.append((inst, opt.tel, _run(inst)))
    return rows


# ------------------------------------------------------------------ the statements hold on random bursts


def test_sharp_bound_and_waiting_peak_bound_hold(solved):
    for inst, opt, run in solved:
        big_m, top, outs = inst.memory, max(run["peaks"]), run["outputs"]
        assert (big_m - top) * run["tel"] <= 2 * big_m * opt + (big_m - top) * outs
        waiting = max((p for p, x in zip(run["peaks"], run["x"]) if x > 0), default=0)
        d = max(0, big_m - waiting)
        assert d * run["tel"] <= 2 * big_m * opt + d * outs
    assert any(max(p for p, x in zip(r["peaks"], r["x"]) if x > 0) < max(r["peaks"])
               for _, _, r in solved if r["steps"]), "no instance where the waiting-peak bound is the stronger"


def test_head_lemma_at_every_blocked_step(solved):
    blocked = 0
    for inst, _, run in solved:
        for _, head, mass in run["steps"]:
            assert mass + run["peaks"][head] > inst.memory
            blocked += 1
    assert blocked > 100


def test_head_lemma_is_tight_and_sharper_than_m_minus_p(solved):
    # the strict inequality cannot be strengthened by one token: equality + 1 occurs
    assert any(mass + run["peaks"][h] == inst.memory + 1 for inst, _, run in solved for _, h, mass in run["steps"])
    # some blocked step is charged more than M - P (its head is not the largest request)
    assert any(run["peaks"][h] < max(run["peaks"]) for _, _, run in solved for _, h, _ in run["steps"])


def test_summed_charges(solved):
    for inst, opt, run in solved:
        x, outs = run["x"], [r.output for r in inst.requests]
        pairs = sum(run["peaks"][j] * outs[j] for k in range(len(x)) for j in range(len(x)) if x[j] < x[k])
        assert run["charges"] <= pairs <= 2 * run["prefix"] <= 2 * inst.memory * opt


def test_prompt_heavy_bound_holds_on_its_classes(solved):
    seen = set()
    for inst, opt, run in solved:
        big_m, d, outs = inst.memory, inst.memory - max(run["peaks"]), run["outputs"]
        for a, b in ((1, 2), (1, 1), (2, 1), (3, 2)):
            if all(a * r.output <= b * r.prompt for r in inst.requests):
                seen.add((a, b))
                assert (2 * a + b) * d * run["tel"] <= 2 * (a + b) * big_m * opt + (2 * a + b) * d * outs
    assert seen == {(1, 2), (1, 1), (2, 1), (3, 2)}


# ------------------------------------------------------------------ sharpness


def _triangles(q: int, n: int) -> tuple[Instance, int, int]:
    """svf-triangles: (TEL(SVF), TEL(S)) with S one start per step, accepted by the checker."""
    p = 2 * q - 1
    inst = _burst(q * p, [(0, p)] * n)
    svf = check_schedule(inst, simulate(inst, "svf").starts)
    stagger = check_schedule(inst, {r.id: k for k, r in enumerate(inst.requests)})
    assert svf.feasible and stagger.feasible
    return inst, svf.metrics.tel, stagger.metrics.tel


@pytest.mark.parametrize("b", [1, 2])
def test_the_two_of_the_sharp_bound_cannot_be_lowered(b):
    # Coq's witness (svf_sharp_bound_tight) at a = 2b - 1: q = 4b, n = 160 b^2
    a, q = 2 * b - 1, 4 * b
    inst, tel_svf, tel_s = _triangles(q, 160 * b * b)
    p, big_m = 2 * q - 1, inst.memory
    outs = p * inst.n
    assert b * (big_m - p) * tel_svf > a * big_m * tel_s + b * (big_m - p) * outs
    assert (big_m - p) * tel_svf <= 2 * big_m * tel_s + (big_m - p) * outs  # the constant 2 itself holds
    # the same closed forms as the theory module's algebra
    assert 2 * b * (big_m - p) * tel_svf - 2 * a * big_m * tel_s - 2 * b * (big_m - p) * outs == \
        2 * svf_sharp_bound.violation_expr(a, b)


def test_the_summed_charge_constant_two_is_sharp():
    # C <= 2 sum_k P_k: on the triangles C / sum_k P_k exceeds 1.8, so 1.8 in place of 2 fails
    inst, _, _ = _triangles(30, 1800)
    run = _run(inst)
    assert run["charges"] > Fraction(18, 10) * run["prefix"]


def test_prompt_heavy_member_needs_a_constant_above_seven_sixths():
    # lambda = 1 (s = o): the bound says 4/3; identical (5, 5) requests, S = ten starts per step (checker), show that
    # 7/6 in place of c_1 = 4/3 fails: (M - P)(TEL(SVF) - sum o) > (7/6) M TEL(S)
    inst = _burst(400, [(5, 5)] * 4000)
    tel_svf = check_schedule(inst, simulate(inst, "svf").starts).metrics.tel
    stagger = check_schedule(inst, {r.id: k // 10 for k, r in enumerate(inst.requests)})
    assert stagger.feasible
    d, outs = 400 - 10, 5 * 4000
    assert 6 * d * (tel_svf - outs) > 7 * 400 * stagger.metrics.tel
    assert 3 * d * tel_svf <= 4 * 400 * stagger.metrics.tel + 3 * d * outs  # c_1 = 4/3 holds (Coq)
    assert svf_prompt_heavy.constant().subs(svf_prompt_heavy.lam, 1) == Fraction(4, 3)


def test_heavy_triangles_approach_two_inside_the_interval():
    # q = 10 (alpha = 1/10), n = 3000: the certified ratio and sum(o)/TEL(S) against the proved upper side
    inst, tel_svf, tel_s = _triangles(10, 3000)
    ratio, heavy = Fraction(tel_svf, tel_s), Fraction(19 * 3000, tel_s)
    assert ratio > Fraction(185, 100) and heavy < Fraction(1, 50)
    upper = svf_heavy_limit.upper_bound().subs({svf_heavy_limit.a: Fraction(1, 10), svf_heavy_limit.e: heavy})
    assert ratio <= upper  # OPT <= TEL(S), and the ratio against OPT is at most the upper side


# ------------------------------------------------------------------ the evidence's checks can fail


def test_the_exhaustive_checks_find_a_broken_trace():
    inst = _burst(6, [(0, 3), (0, 3), (0, 3)])
    facts = frontier_evidence.instance_facts(inst, {"r00000": 0, "r00001": 0, "r00002": 3})
    assert frontier_evidence.sharp_checks(facts, 11, 12)[0] == []
    late = frontier_evidence.instance_facts(inst, {"r00000": 0, "r00001": 20, "r00002": 40})  # waits while idle
    problems, _ = frontier_evidence.sharp_checks(late, 11, 3 + 23 + 43)
    assert any(p.startswith("step ") for p in problems) and "sharp" in problems


def test_the_evidence_passes_a_true_bound_close_to_its_constant():
    # triangles q = 10 with S = one start per step: the charges are near 2 M TEL(S), and every check passes
    inst, tel_svf, tel_s = _triangles(10, 200)
    facts = frontier_evidence.instance_facts(inst, simulate(inst, "svf").starts)
    problems, info = frontier_evidence.sharp_checks(facts, tel_s, tel_svf)
    run = _run(inst)
    assert problems == [] and run["charges"] > inst.memory * tel_s + 2
    assert info["blocked_steps"] == sum(1 for _, h, _ in run["steps"])


def test_the_tight_witness_reports_both_sides():
    w = frontier_evidence.tight_witness(1)
    inst, tel_svf, tel_s = _triangles(4, 160)
    p, big_m = 7, inst.memory
    assert (w["tel_svf"], w["tel_s"], w["memory"]) == (tel_svf, tel_s, big_m)
    assert w["lhs"] == (big_m - p) * tel_svf and w["rhs"] == big_m * tel_s + (big_m - p) * p * 160
    assert w["violated"] and w["lhs"] > w["rhs"]


def test_the_exhaustive_run_counts_what_it_ran():
    from geosched.verify.exhaustive import Space, enumerate_instances

    space = Space(max_n=2, max_prompt=1, max_output=2, max_memory=4)
    run = frontier_evidence._exhaustive_run(space)
    blocked = 0
    for base in enumerate_instances(space):
        for inst in (base, Instance(base.memory, tuple(reversed(base.requests)))):
            blocked += max(simulate(inst, "svf").starts.values()) > 0
    assert run["runs"] == 2 * sum(1 for _ in enumerate_instances(space)) and run["blocked"] == blocked > 0
