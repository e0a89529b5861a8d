"""svf.upper_bound (issue 43, item 1): SVF's ratio below Thm. 3.2 for every burst (verify/coq/SvfUpper.v), its
optimum-side bound (opt_mean_busy), the row, its derivation and its exhaustive check.

The expected numbers are computed here by hand from the instances (volumes, outputs, the exact optimum of the DP
of ``verify.exhaustive``, independent of the simulator and the solvers) and from the formulas written out in the
tests, never from the module under test.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction

import pytest
from coq_stub import pinned_build

from geosched.reference_impl.model import Instance, burst_instance
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_upper_bound as ub
from geosched.verify import coq_engine, coq_pinned, upper_evidence
from geosched.verify.evidence import Context
from geosched.verify.exhaustive import Space, dp_opt, enumerate_instances
from geosched.verify.ledger import CLAIMS, METHODS, combine

ROW = "svf.upper_bound"
NEW = ("opt_mean_busy", "svf_upper_bound", "svf_upper_bound_half")
WHOLE = ["svf_upper_bound", "svf_feasible", "svf_sim_eq", "tel_finish_times"]


def _facts(instance: Instance, opt: int) -> dict[str, int]:
    """M, P, sum x, TEL(SVF), OPT, Q = sum_{i<j} min(v_i, v_j), V, sum o, each computed here."""
    reqs = instance.requests
    starts = simulate(instance, "svf").starts
    vols = [r.volume for r in reqs]
    pairs = sum(min(vols[i], vols[j]) for i, j in itertools.combinations(range(len(vols)), 2))
    return {"M": instance.memory, "P": max(r.prompt + r.output for r in reqs), "X": sum(starts.values()),
            "tel": sum(starts[r.id] + r.output for r in reqs), "opt": opt, "Q": pairs, "V": sum(vols),
            "O": sum(r.output for r in reqs)}


def _mean_busy_exact(instance: Instance) -> Fraction:
    """The exact mean-busy-time bound (Q + V/2)/M + sum_j C_j - MB_j, the residual written out per request."""
    reqs, big_m = instance.requests, instance.memory
    vols = sorted(r.volume for r in reqs)
    pairs = sum(v * (len(vols) - 1 - k) for k, v in enumerate(vols))
    residual = sum(Fraction(sum((2 * (r.output - i) + 1) * (r.prompt + i) for i in range(1, r.output + 1)),
                            2 * r.volume) for r in reqs)  # sum_i (o - i + 1/2)(s + i) / v
    return Fraction(2 * pairs + sum(vols), 2 * big_m) + residual


@pytest.fixture(scope="module")
def cases() -> list[dict[str, int]]:
    """Every burst of a small box in both request orders, with the DP's exact optimum."""
    out = []
    for base in enumerate_instances(Space(max_n=3, max_prompt=2, max_output=3, max_memory=7)):
        opt, _ = dp_opt(base)
        for inst in (base, Instance(base.memory, tuple(reversed(base.requests)))):
            out.append(_facts(inst, opt))
    return out


# --------------------------------------------------------------------------- the bound on instances


def test_the_three_inequalities_hold_on_every_small_burst_and_are_not_vacuous(cases):
    assert len(cases) > 1000
    busy_used = 0.0
    for c in cases:
        d = max(0, c["M"] - c["P"])
        assert d * c["X"] <= 2 * c["Q"], c  # Lemma A.2 summed, pairs form
        assert 6 * c["M"] * c["opt"] >= 6 * c["Q"] + 3 * c["V"] + 2 * c["M"] * c["O"], c  # opt_mean_busy
        assert 3 * d * c["tel"] <= (6 * c["M"] + max(0, c["M"] - 3 * c["P"])) * c["opt"], c  # svf_upper_bound
        busy_used = max(busy_used, (6 * c["Q"] + 3 * c["V"] + 2 * c["M"] * c["O"]) / (6 * c["M"] * c["opt"]))
    assert busy_used > 0.9  # the optimum's bound comes close to OPT on the box


def test_the_mean_busy_residual_cannot_be_raised_to_a_half(cases):
    # C_j - MB_j >= o_j/3 is what the bound uses; o_j/2 (a rectangle's) would be false: refuted on the box
    assert any(6 * c["M"] * c["opt"] < 6 * c["Q"] + 3 * c["V"] + 3 * c["M"] * c["O"] for c in cases)


def test_the_exact_mean_busy_bound_holds_against_the_optimum_on_random_bursts():
    rng = random.Random(43)
    for _ in range(40):
        memory = rng.randint(4, 12)
        lengths = [(rng.randint(0, 2), rng.randint(1, max(1, memory // 3))) for _ in range(rng.randint(1, 4))]
        inst = burst_instance(memory, lengths)
        opt, _ = dp_opt(inst)
        exact = _mean_busy_exact(inst)
        facts = _facts(inst, opt)
        assert exact <= opt, (lengths, memory)
        # the Coq form is the exact bound with every residual at least o/3
        assert 6 * memory * exact >= 6 * facts["Q"] + 3 * facts["V"] + 2 * memory * facts["O"]


def test_the_staggered_triangles_meet_the_pairs_coefficient():
    # q = 3, p = 5, M = 15, N triangles (0, 5) one per step: (Q + V/2)/M is N^2/2, TEL(S) = N(N - 1)/2 + 5N
    for n in (10, 40):
        vols = [15] * n
        pairs = 15 * n * (n - 1) // 2
        tel_s = n * (n - 1) // 2 + 5 * n
        assert Fraction(2 * pairs + sum(vols), 2 * 15) == Fraction(n * n, 2) <= tel_s


# --------------------------------------------------------------------------- the row and its derivation


def test_the_values_before_and_after_are_the_formulas_written_out():
    for alpha, before, after in ub.values_table():
        assert before == 1 + Fraction(2) / (1 - alpha)
        assert after == max(Fraction(2) / (1 - alpha), (7 - 3 * alpha) / (3 * (1 - alpha)))
        assert after < before
    assert [str(v) for _, _, v in ub.values_table()] == ["25/9", "4", "8", "20"]


def test_the_derivation_checks_every_algebraic_step_and_leaves_the_schedule_steps_to_coq():
    check = ub.derivation().check()
    open_steps = [s for s in check.steps if s.status != "checked"]
    assert {s.status for s in open_steps} == {"not_checkable"} and len(open_steps) == 4
    steps = ub.derivation().steps
    covered = {m for s in steps if s.method == "unchecked" for m in s.covered_by}
    assert {"coq:opt_mean_busy", "coq:lemmaA2_summed", "coq:lemmaA2_summed_pairs"} <= covered


def test_a_wrong_composition_is_refuted_by_the_derivation():
    # the alpha < 1/3 case with 6M in place of 7M - 3P is false (one request (0, 1) alone in a large M): the
    # step's check must find it, with a witness point
    step = ub.composition_steps()[2]
    wrong = dataclasses.replace(step, lhs=6 * (3 * ub.P + ub.g) * (ub.O + ub.h))
    assert step.check().status == "checked"
    assert wrong.check().status == "failed"


def test_the_row_cites_the_new_theorems_with_their_statements():
    claim = CLAIMS[ROW]
    for theorem in NEW:
        assert coq_engine.THEOREMS[theorem] == "SvfUpper"
    assert list(claim.coq_whole) == WHOLE
    pinned = coq_pinned.read().theorems  # the reviewed statement of each cited theorem
    cited = {m[4:]: pinned[m[4:]] for m in claim.methods if m.startswith("coq:")}
    assert cited["svf_upper_bound"].endswith("3 * (M - P) * Model.tel rs (Svf.svf M rs) <= (6 * M + (M - 3 * P)) * "
                                             "Model.tel rs xs")
    assert "1 <= Model.output r" in cited["opt_mean_busy"] and "1 <= Model.output r" in cited["svf_upper_bound"]
    assert cited["svf_upper_bound_half"].endswith("<= 4 * Model.tel rs xs")
    assert set(NEW) <= set(cited)
    for hypothesis in ("outputs >= 1", "P >= every peak", "feasible S", "burst"):  # every hypothesis in its text
        assert hypothesis in claim.statement, hypothesis


def _coq_word(monkeypatch, build) -> tuple[str, str, dict]:
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: build)
    claim = CLAIMS[ROW]
    evidence = [METHODS[m](claim, Context("quick", None, 0, ())) for m in claim.methods if m.startswith("coq:")]
    status, text, _, _ = combine(claim, evidence, {})
    return status, text, {e.method: e for e in evidence}


def test_the_row_is_proved_when_coqc_prints_its_statements(monkeypatch):
    status, text, _ = _coq_word(monkeypatch, pinned_build())
    assert status == "proved" and text.startswith("proved (Coq") and all(name in text for name in WHOLE), text


def test_a_weaker_printed_statement_refutes_the_row(monkeypatch):
    printed = coq_pinned.read().theorems["svf_upper_bound"]
    weaker = printed.replace("(6 * M + (M - 3 * P))", "(9 * M - 3 * P)")
    assert weaker != printed
    status, text, evidence = _coq_word(monkeypatch, pinned_build(printed={"svf_upper_bound": weaker}))
    assert evidence["coq:svf_upper_bound"].status == "refuted" and status == "refuted"


def test_an_open_theorem_leaves_the_row_unproved_by_coq(monkeypatch):
    build = pinned_build(assumptions={"svf_upper_bound": "Axioms:\nsvf_upper_bound_admitted : False"})
    status, text, _ = _coq_word(monkeypatch, build)
    assert status != "proved" and "Coq, every n" not in text


# --------------------------------------------------------------------------- the exhaustive method


def test_the_exhaustive_method_passes_with_a_refuted_canary():
    evidence = METHODS["exhaustive:svf-upper"](CLAIMS[ROW], Context("quick", None, 0, ()))
    assert evidence.status == "checked" and evidence.canary is not None and evidence.canary.refuted
    assert evidence.data["runs"] > 1000 and evidence.data["busy"] > 0.9


def test_the_verdict_predicate_finds_each_violation():
    ok = {"M": 12, "P": 9, "x": [5, 0], "tel": 13, "opt": 9, "Q": 20, "V": 44, "O": 8}  # M = 12, (6, 3), (1, 5)
    assert upper_evidence.upper_problems(ok) == []
    assert "Lemma A.2" in upper_evidence.upper_problems({**ok, "x": [30, 0]})[0]  # 3 * 30 > 40
    assert "mean busy" in upper_evidence.upper_problems({**ok, "opt": 6})[0]  # 432 < 444
    assert "3(M - P) TEL(SVF)" in upper_evidence.upper_problems({**ok, "tel": 73})[0]  # 657 > 648
    assert upper_evidence.upper_problems({**ok, "tel": 72}) == []  # 648 <= 648: the bound itself
    small = {**ok, "P": 3, "x": [4, 0]}  # alpha = 1/4: the factor is 6M + (M - 3P) = 75
    assert upper_evidence.upper_problems({**small, "tel": 25}) == []  # 27 * 25 = 675 <= 75 * 9
    assert "3(M - P) TEL(SVF) = 702" in upper_evidence.upper_problems({**small, "tel": 26})[0]


def test_a_simulator_that_loses_steps_is_refuted(monkeypatch):
    # SVF's starts delayed by a step after the first request: the bound or Lemma A.2 fails on the box
    from geosched.reference_impl import simulation

    real = simulation.simulate

    def late(instance, policy, *args, **kwargs):
        result = real(instance, policy, *args, **kwargs)
        slow = {k: v * 3 + 2 * (v > 0) for k, v in result.starts.items()}
        return dataclasses.replace(result, starts=slow)

    monkeypatch.setattr(simulation, "simulate", late)
    evidence = METHODS["exhaustive:svf-upper"](CLAIMS[ROW], Context("quick", None, 1, ()))
    assert evidence.status == "refuted"
