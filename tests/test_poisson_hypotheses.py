"""svf.poisson's named hypotheses, simulated (geosched.verify.poisson_hypotheses, issue 33 item 3).

Every method must agree and discriminate on the quick run, and refute when the value it checks is
made wrong; the quantities themselves are checked on a small schedule counted by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from geosched.errors import ValidationError
from geosched.verify import poisson_hypotheses as hyp
from geosched.verify.evidence import Context
from geosched.verify.poisson_workload import POLICIES

NAMES = ("little", "pasta", "wald", "batch", "stable")


def _quick(name: str):
    return hyp.HYPOTHESIS_METHODS[f"monte-carlo:poisson-{name}"](None, Context("quick", None, 0, ()))


@pytest.mark.parametrize("name", NAMES)
def test_each_hypothesis_agrees_and_discriminates_on_both_policies(name):
    evidence = _quick(name)
    assert evidence.status == "consistent" and evidence.discriminating, evidence.message
    assert set(evidence.data["policies"]) == set(POLICIES)
    for measured in evidence.data["policies"].values():
        assert measured["tests"] and all(abs(t["z"]) <= 4 or t["one_sided"] for t in measured["tests"])


@pytest.mark.parametrize(("name", "formula", "wrong"), [
    ("little", "little_formula", lambda rate, wait: 1.2 * rate * wait),
    ("pasta", "pasta_formula", lambda average: 1.2 * average),
    ("wald", "wald_formula", lambda rate, wait: 1.2 * rate * wait),
    ("batch", "batch_formula", lambda rate: 1.2 * rate * float(np.mean([(s + o) * o for s, o in hyp.CLASSES]))),
    # the mean wait is known to a few per cent at rho = 0.9 (waits are rare): 1.5x, not 1.2x
    ("stable", "stable_formula", lambda early: 1.5 * early),
])
def test_a_wrong_value_for_the_hypothesis_is_refuted(monkeypatch, name, formula, wrong):
    monkeypatch.setattr(hyp, formula, wrong)
    evidence = _quick(name)
    assert evidence.status == "refuted", evidence.message
    assert "fails" in evidence.message


def test_the_batch_mates_ahead_with_a_wrong_share_are_refuted(monkeypatch):
    # a same-class mate ahead with probability 1, not 1/2: the exact mean of the work ahead is wrong
    monkeypatch.setattr(hyp, "batch_ahead_formula", lambda rates, work, ranks, k: float(
        (rates[ranks <= ranks[k]] * work[ranks <= ranks[k]]).sum()))
    assert _quick("batch").status == "refuted"


def test_stable_rejects_an_overloaded_run_and_is_vacuous_without_one(monkeypatch):
    overloaded = hyp.measure_stable(100_000, 33, load=hyp.OVERLOAD)["tests"][0]
    assert overloaded.refuted and overloaded.z > 4  # the late waits are longer
    monkeypatch.setattr(hyp, "OVERLOAD", 0.9)  # "overloaded" at the row's own load: nothing to reject
    evidence = _quick("stable")
    assert evidence.status == "vacuous" and not evidence.discriminating


def test_the_other_step_convention_for_wald_is_off():
    # counting the steps a_j .. x_j - 1 (j's batch mates, not a stopping-time sum) is measurably wrong
    evidence = _quick("wald")
    for measured in evidence.data["policies"].values():
        assert measured["ahead_violations"] == 0
        assert max(v["z"] for v in measured["steps_a_to_x_minus_1"].values()) > 4


# a schedule counted by hand: (arrival, start, class); class 0 before class 1, each class in arrival order
#   r0 (0, 0, 1)  r1 (0, 3, 1)  r2 (1, 2, 0)  r3 (2, 2, 0)  r4 (2, 5, 1)  r5 (4, 4, 0)
ARRIVALS = np.array([0, 0, 1, 2, 2, 4])
STARTS = np.array([0, 3, 2, 2, 5, 4])
KINDS = np.array([1, 1, 0, 0, 1, 0])


def test_waiting_counts_on_a_schedule_counted_by_hand():
    # N_c(t) = #{class c : a < t <= x}: r2 waits at t = 2; r1 at t = 1, 2, 3; r4 at t = 3, 4, 5
    counts = hyp.waiting_counts(ARRIVALS, STARTS, KINDS, 2, 7)
    assert counts.tolist() == [[0, 0, 1, 0, 0, 0, 0], [0, 1, 1, 2, 1, 1, 0]]
    # Little on the sample path: sum over steps = sum of the waits (class 0: 1; class 1: 3 + 3)
    assert counts.sum(axis=1).tolist() == [1, 6]


def test_arrivals_during_the_wait_on_a_schedule_counted_by_hand():
    # steps a_j + 1 .. x_j: r1 sees steps 1..3 (r2, r3 of class 0; r4 of class 1); r2 step 2 (r3; r4);
    # r4 steps 3..5 (r5); r0, r3, r5 do not wait
    during = hyp.arrivals_during_wait(ARRIVALS, STARTS, KINDS, 2)
    assert during.tolist() == [[0, 2, 1, 0, 1, 0], [0, 1, 1, 0, 0, 0]]


def test_coqs_later_arrivals_on_a_schedule_counted_by_hand():
    # a_j < a_i and x_i < x_j: for r1, r2 and r3 (started at 2 < 3); for r4, r5 (4 < 5); r4 is not
    # counted for r1 (it starts after r1) nor r3 for r2 (same start step)
    started = hyp.started_during_wait(ARRIVALS, STARTS, KINDS, 2)
    assert started.tolist() == [[0, 2, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0]]


def test_a_schedule_that_starts_a_class_out_of_order_is_refused():
    with pytest.raises(ValidationError, match="arrival order"):
        hyp.started_during_wait(np.array([0, 1]), np.array([5, 2]), np.array([0, 0]), 1)


def test_the_row_cites_every_hypothesis_method():
    from geosched.theory import svf_poisson
    from geosched.verify.ledger import METHODS

    for name in NAMES:
        assert f"monte-carlo:poisson-{name}" in svf_poisson.CLAIM.methods
        assert METHODS[f"monte-carlo:poisson-{name}"] is hyp.HYPOTHESIS_METHODS[f"monte-carlo:poisson-{name}"]
        assert name.upper() in {h.label for h in svf_poisson.HYPOTHESES}


def test_the_queue_order_of_each_policy_is_its_own():
    from geosched.verify.poisson_workload import ONE_BIT, poisson_run

    # SVF: volumes s o + (o^2 + o)/2 of (2,2), (1,5), (2,8) are 7, 20, 52; 1-bit SVF (theta 5, O_0 4, O_1 8):
    # (2,2) and (1,5) are short, proxy volumes 2*4 + 10 = 18 and 1*4 + 10 = 14; (2,8) long, 2*8 + 36 = 52
    assert poisson_run(2000, 1).ranks.tolist() == [0, 1, 2]
    assert poisson_run(2000, 1, policy=ONE_BIT).ranks.tolist() == [1, 0, 2]
