"""How a time-limited ``hunt`` spends ``--time``: searches, then certifying and writing, on a fake clock
(no test here reads the wall clock)."""

from __future__ import annotations

import pytest

from geosched.adversary import hunt as hunt_module
from geosched.adversary.commands import _overrun
from geosched.adversary.options import HuntOptions


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("time_limit, methods, reserve", [
    (60.0, ["anneal", "de", "z3"], 6.0),  # a tenth of --time
    (2.0, ["anneal", "de", "z3"], 6 * 0.05 + 0.2),  # six certifications' floor and the files
    (2.0, ["anneal"], max(0.2, 3 * 0.05 + 0.2)),
    (1.0, ["z3"], 0.2),  # z3's witnesses are checked, not certified again
])
def test_the_finish_keeps_a_tenth_or_what_the_certifications_and_files_need(time_limit, methods, reserve):
    assert hunt_module._finish_reserve(time_limit, methods) == pytest.approx(reserve)


def _spend(monkeypatch, methods: list[str], overshoot) -> tuple[dict[str, float], float, float]:
    """Run ``_run_methods`` on a fake clock, each search running its budget plus ``overshoot(method, budget)``:
    the budgets given, the clock at the end, the deadline."""
    clock = FakeClock()
    monkeypatch.setattr(hunt_module.time, "perf_counter", clock)
    monkeypatch.setattr(hunt_module, "_pyplot", lambda: None)
    budgets: dict[str, float] = {}

    def fake_method(run, method, budget, seed_sequence):
        budgets[method] = budget
        clock.now += budget + overshoot(method, budget)
        return method

    monkeypatch.setattr(hunt_module, "_run_method", fake_method)
    options = HuntOptions(method="all", time_limit=20.0)
    run = hunt_module._Hunt(None, options, None, {}, None, deadline=clock.now + 20.0)
    hunt_module._run_methods(run, methods, options)
    return budgets, clock.now, run.deadline


def test_each_search_takes_its_share_of_the_time_left_when_it_starts(monkeypatch):
    # a search's start-up (loading the compiled kernel, a first population) runs past its budget; the next
    # searches take their share of what is left, so the run still ends by the deadline
    methods = ["anneal", "de", "z3"]
    budgets, end, deadline = _spend(monkeypatch, methods, lambda m, budget: 1.0 if m == "anneal" else 0.0)
    searching = 20.0 - hunt_module._finish_reserve(20.0, methods)  # 18 s
    assert budgets["anneal"] == pytest.approx(0.45 * searching)
    left = searching - 0.45 * searching - 1.0  # after anneal's overshoot
    assert budgets["de"] == pytest.approx(left * 0.35 / 0.55)
    assert budgets["z3"] == pytest.approx(left * 0.20 / 0.55)
    assert end == pytest.approx(deadline - hunt_module._finish_reserve(20.0, methods))


def test_a_search_that_ate_the_time_leaves_the_others_none(monkeypatch):
    budgets, _, _ = _spend(monkeypatch, ["anneal", "de"], lambda m, budget: 50.0)
    assert budgets["de"] == 0.0 and budgets["anneal"] > 0


def test_the_summary_says_why_a_short_run_went_over():
    assert _overrun(2.1, 2.0) == "" and _overrun(66.0, 60.0) == ""
    said = _overrun(1.5, 1.0)
    assert said.startswith(" (0.5 s over: ") and "certification" in said and "--time" in said
