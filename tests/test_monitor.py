"""The certificate monitor (Kong et al. Lemma A.2): silent where the lemma applies, loud where not."""

from __future__ import annotations

import json
import random

import pytest

from geosched.reference_impl.engine import BlockedInterval
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.predictors import make_predictor
from geosched.reference_impl.simulation import simulate
from geosched.verify.monitor import CertificateMonitor, monitor_run


def _random_burst(rng: random.Random) -> Instance:
    n = rng.randint(1, 7)
    pairs = [(rng.randint(0, 6), rng.randint(1, 8)) for _ in range(n)]
    peak = max(s + o for s, o in pairs)
    return burst_instance(rng.randint(peak, 3 * peak), pairs)


def test_strict_svf_burst_never_violates_and_counts_every_blocked_step():
    rng = random.Random(7)
    total_blocked = 0
    for _ in range(150):
        inst = _random_burst(rng)
        sim, res = monitor_run(inst, "svf")
        assert res.ok, res.violations
        # independent count: with burst arrivals some request waits at step t exactly when
        # t < the latest start, so the blocked steps are 0 .. max start - 1
        assert res.blocked_steps == max(sim.starts.values())
        if res.blocked_steps:
            assert res.min_slack >= 1
        total_blocked += res.blocked_steps
    assert total_blocked > 100  # the sample does exercise blocking


def test_hand_example_slack():
    # M = 12, P = 9: threshold 3; r1 (volume 20) runs alone, peak 6, while r0 (volume 24) waits 5 steps
    inst = burst_instance(12, [(6, 3), (1, 5)])
    _, res = monitor_run(inst, "svf")
    assert (res.blocked_steps, res.min_slack, res.threshold) == (5, 3, 3)


def test_fcfs_breaks_the_order_half():
    # FCFS starts r0 (volume 24) first; r1 (volume 20) waits behind a larger volume
    inst = burst_instance(12, [(6, 3), (1, 5)])
    _, res = monitor_run(inst, "fcfs")
    assert res.order_violations >= 1 and res.peak_mass_violations == 0
    violation = next(v for v in res.violations if v.kind == "order")
    assert violation.head == "r1" and violation.offenders == ("r0",)


def test_overestimated_lengths_break_the_peak_mass_half(tmp_path):
    # two (s=0, o=2) requests, M = 10, P = 2: threshold 8. Predicting 9 for both makes the
    # forward check believe one request fills the memory, so the second waits while the true
    # running peak mass is 2 <= 8: the certificate fails (its proof needs exact lengths).
    inst = burst_instance(10, [(0, 2), (0, 2)])
    predictor = make_predictor("onebit", theta=1, short_length=9, long_length=9)
    path = tmp_path / "cx.json"
    sim, res = monitor_run(inst, "svf", predictor=predictor, counterexample_path=path)
    assert res.peak_mass_violations >= 1
    v = next(v for v in res.violations if v.kind == "peak_mass")
    assert (v.running_peak_mass, v.threshold) == (2, 8)
    data = json.loads(path.read_text())
    assert data["instance"]["memory"] == 10 and data["schedule"]["starts"] == sim.starts
    assert res.counterexample_path == str(path)


def test_crafted_interval():
    inst = Instance(10, [Request("a", 0, 1, 2), Request("b", 0, 0, 1), Request("c", 0, 4, 4)])
    monitor = CertificateMonitor(inst)  # P = 8, threshold 2
    monitor(BlockedInterval(0, 3, ("b",), ("a",), 3))  # mass 3 > 2, but a (v=5) after b (v=1)
    monitor(BlockedInterval(3, 4, ("c",), ("b",), 1))  # mass 1 <= 2, order fine
    res = monitor.result()
    assert (res.intervals, res.blocked_steps) == (2, 4)
    assert (res.peak_mass_violations, res.order_violations) == (1, 1)
    assert res.min_slack == -1 and res.min_slack_step == 3
    assert not res.ok


def test_check_order_can_be_disabled():
    inst = burst_instance(12, [(6, 3), (1, 5)])
    monitor = CertificateMonitor(inst, check_order=False)
    simulate(inst, "fcfs", observer=monitor)
    assert monitor.result().ok


@pytest.mark.parametrize("policy", ["sjf", "svf1"])
def test_peak_mass_half_holds_for_other_strict_policies_with_exact_lengths(policy):
    # the peak-mass half only needs "the head failed the exact forward check"
    rng = random.Random(3)
    for _ in range(60):
        _, res = monitor_run(_random_burst(rng), policy, check_order=False)
        assert res.peak_mass_violations == 0


def test_the_certificate_is_about_peaks_not_occupancy():
    # M = 16, three (0, 8): SVF starts two at step 0; at t = 1 they hold 1 + 1 = 2 <= M - P = 8 tokens while
    # the third waits, yet their peaks sum to 16 > 8 (Lemma A.2 holds)
    inst = burst_instance(16, [(0, 8)] * 3)
    monitor = CertificateMonitor(inst, record_intervals=True)
    sim = simulate(inst, "svf", observer=monitor)
    assert monitor.result().ok and sim.starts == {"r0": 0, "r1": 0, "r2": 8}
    assert (1, 2) in monitor.occupancy_failures(sim.starts)
