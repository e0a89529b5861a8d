"""``monte-carlo:ecr``'s own arithmetic (the gap RESULTS section 10 left open for issue 34): the word, the
fraction of the constant used and the flipping constant, on hand-made Monte-Carlo points whose bounds are
computed here by hand. At mu = rho = 1/2, (1 - mu)(1 - rho) = 1/4: the bound 1 + 4/(1/4) = 17, the
discriminating threshold (the constant 10% smaller) 1 + 3.6/(1/4) = 15.4."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from geosched.verify import methods, montecarlo_audit
from geosched.verify.evidence import Canary


def _evidence(monkeypatch, low: float, high: float, mean: float):
    point = SimpleNamespace(mu=0.5, rho=0.5, mean_cr=mean, cr_ci=(low, high))
    result = SimpleNamespace(points=[point], memory=12, extra={"alpha_cap": 0.5}, samples=40, n=10)
    monkeypatch.setattr(methods, "_poisson_run", lambda policy, ctx: (result, 0.0))
    monkeypatch.setattr(methods, "_mc_failures", lambda result, estimator: [])  # tested with the Monte Carlo
    monkeypatch.setattr(montecarlo_audit, "inside", lambda point, memory, alpha: True)
    # the canary and the coverage are tested with the Monte Carlo (tests/test_method_canaries.py)
    monkeypatch.setattr(methods, "mc_canary", lambda result, judged, estimator: Canary("planted", True, "refuted"))
    monkeypatch.setitem(methods.MC_POINTS, "quick", {"points": 1, "judged": 1})
    ctx = SimpleNamespace(write=lambda name, data: f"/tmp/{name}", mode="quick")
    return methods._ecr(None, ctx)


@pytest.mark.parametrize("low, high, mean, word", [
    (1.2, 1.5, 1.3, "vacuous"),  # far below the bound: could not have failed
    (15.0, 16.0, 15.5, "vacuous"),  # below 15.4 at its low end: the 10% stronger constant does not refute it
    (16.0, 16.5, 16.2, "consistent"),  # above 15.4, below 17: a stronger constant would refute it
    (16.5, 17.5, 17.0, "consistent"),  # the interval reaches past 17 but its low end does not: not refuted
    (17.5, 18.0, 17.7, "refuted"),  # the interval lies above 17
])
def test_the_word_follows_the_interval_against_17_and_15_4(monkeypatch, low, high, mean, word):
    assert _evidence(monkeypatch, low, high, mean).status == word


def test_the_constant_used_and_the_flipping_constant(monkeypatch):
    evidence = _evidence(monkeypatch, 16.0, 16.5, 16.2)
    assert evidence.used == pytest.approx((16.2 - 1) * 0.25 / 4)  # 3.8 of the constant 4
    assert evidence.data["flip_constant"] == pytest.approx((16.0 - 1) * 0.25)  # 3.75: below it, refuted
    assert evidence.discriminating is True
    vacuous = _evidence(monkeypatch, 1.2, 1.5, 1.3)
    assert vacuous.data["flip_constant"] == pytest.approx(0.05)
    assert "replaced by one below 0.05" in vacuous.message and vacuous.discriminating is False
