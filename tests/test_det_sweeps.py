"""The solver sweeps' reach is deterministic: it follows resource-limited answers, never the clock or machine load."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from geosched.verify import cores, lemmas, methods
from geosched.verify.evidence import Context
from geosched.verify.ledger import run_claim
from geosched.verify.z3util import run_checks


def _unknown_at(n_or_k: str, value: int, real=run_checks):
    """``run_checks`` whose call at ``n_or_k == value`` gets a resource limit of one unit: a genuine
    resource-limited ``unknown`` at that size, proofs elsewhere."""

    def fake(lemma, timeout_ms=20_000, backend="z3", rlimit=None):
        if lemma.parameters.get(n_or_k) == value:
            return real(lemma, timeout_ms, backend, rlimit=1)
        return real(lemma, timeout_ms, backend, rlimit=rlimit)

    return fake


def _clock_jumping(monkeypatch):
    """Every reading of the clock is an hour after the previous one."""
    state = {"now": 0.0}

    def jump() -> float:
        state["now"] += 3600.0
        return state["now"]

    monkeypatch.setattr(time, "monotonic", jump)
    monkeypatch.setattr(time, "perf_counter", jump)
    monkeypatch.setattr(time, "time", jump)


def test_a_resource_limited_unknown_at_n3_gives_bound_n2(monkeypatch):
    monkeypatch.setattr(cores, "run_checks", _unknown_at("n", 3))
    report = cores.run_cores(max_n=5, backends=("z3",), lemmas=("prop31_exchange",), rlimit=50_000_000)
    sweep = report.sweeps["prop31_exchange"]["z3"]
    assert sweep["largest_n"] == 2 and sweep["stopped"] == "n=3: unknown"
    assert report.covered("prop31_exchange") == ("checked", 2)


def test_the_ledger_bound_follows_the_resource_limited_answers(monkeypatch):
    monkeypatch.setattr(cores, "run_checks", _unknown_at("n", 3))
    evidence = methods.METHODS["cores:prop3.1"](None, Context("quick", None, 0, ("svf",)))
    # the bound is the resource-limited answers' (n <= 2); the mode pins n <= 3 (methods.CORES_REACH), so the reach
    # lost is a coverage loss that refutes the evidence (issue 46), never a quieter bound
    assert evidence.bound == "n<=2 symbolic requests (Z3 and cvc5)"
    assert evidence.status == "refuted" and "coverage lost: covered core:prop31_" in evidence.message


def test_the_clock_jumping_an_hour_between_queries_changes_no_bound(monkeypatch):
    _clock_jumping(monkeypatch)
    report = cores.run_cores(max_n=4, backends=("z3", "cvc5"), lemmas=("prop31_exchange", "prop31_completed"),
                             rlimit={"z3": 50_000_000, "cvc5": 2_000_000})
    assert report.largest_n == {"z3": 4, "cvc5": 4}
    evidence = methods.METHODS["cores:prop3.1"](None, Context("quick", None, 0, ("svf",)))
    assert evidence.status == "checked" and evidence.bound == "n<=3 symbolic requests (Z3 and cvc5)"
    sweep = lemmas.largest_k(max_k=3, rlimit=20_000_000)
    assert sweep.largest_k == 3 and sweep.stopped_because == "max_k reached"


def test_the_k_sweep_stops_at_a_resource_limited_unknown(monkeypatch):
    _clock_jumping(monkeypatch)
    monkeypatch.setattr(lemmas, "run_checks", _unknown_at("k", 3))
    sweep = lemmas.largest_k(max_k=5, rlimit=20_000_000)
    assert sweep.largest_k == 2 and sweep.stopped_because == "k=3: unknown"
    assert "resource limit" in sweep.reports[-1].proof.message


def test_every_mode_has_a_fixed_reach_and_resource_limits():
    for check, per_mode in methods.SOLVER_SWEEPS.items():
        assert set(per_mode) == {"quick", "default", "thorough"}, check
        for limits in per_mode.values():
            assert all(isinstance(v, int) and v >= 1 for v in limits.values()), check


def _bounds(result) -> list[tuple[str, str, str | None]]:
    return [(e.method, e.status, e.bound) for e in result.evidence if e.method.startswith(("cores:", "z3:"))]


@pytest.mark.slow
@pytest.mark.parametrize(("claim", "mode"), [("kong.prop3.1", "quick"), ("kong.lemmaA.2", "default")])
def test_a_cpu_hog_changes_no_bound(claim, mode):
    quiet = run_claim(claim, mode=mode)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = run_claim(claim, mode=mode)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert _bounds(loaded) == _bounds(quiet) and (loaded.status, loaded.reach) == (quiet.status, quiet.reach)
    assert any(bound for _, _, bound in _bounds(quiet))
