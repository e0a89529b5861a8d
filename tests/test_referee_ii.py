"""Issue 41 (Referee II): no data file names code, exports re-derive, every command bounded, a user's
scheduler cannot hold the process.

The campaign's cases of each item are in ``tests/reliability_*cases.py`` (run by ``test_reliability.py``
and ``benchmarks/reliability_campaign.py``); the tests here look inside: the bound's numbers, the gate's
answer for each kind of name, the exported header against the referee's report. No test waits on a
clock: a search's deadline is a fake clock, a looping ``decide()`` never returns by itself.
"""

from __future__ import annotations

import pytest

from geosched.cli import main
from geosched.errors import LimitError, ValidationError

# ---------------------------------------------------------------- item 3: hunt-small is bounded before it starts


def _one_line(capsys, code: int, argv: list[str], *needles: str) -> str:
    assert main(argv) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("geosched: error:"), err
    for needle in needles:
        assert needle in err[0], err[0]
    return err[0]


SMALL = ["hunt-small", "--policy", "svf", "--alpha-min", "0.5", "--alpha-max", "0.75", "--requests", "3",
         "--memory-range", "6", "8"]


@pytest.mark.parametrize(("extra", "needles"), [
    (["--evals", str(10**12)], ("--evals 1000000000000", "10000000")),
    (["--climb", str(10**12)], ("--climb", "1000000000000")),
    (["--climb", "1"], ("--climb",)),
    (["--evals", "1000000", "--time", "5"], ("--evals 1000000", "--time 5")),
])
def test_hunt_small_refuses_an_unbounded_plan_in_one_line(capsys, tmp_path, extra, needles):
    out = tmp_path / "w.json"
    _one_line(capsys, 2, [*SMALL, *extra, "--out", str(out)], *needles)
    assert not out.exists()


def test_small_search_checks_its_budget_before_any_evaluation(monkeypatch):
    from geosched.adversary import smalln

    def no_walk(*args, **kwargs):
        raise AssertionError("a walk started")

    monkeypatch.setattr(smalln, "anneal", no_walk)
    with pytest.raises(LimitError, match="past --time 1 s"):
        smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=20000, time_limit=1.0)
    with pytest.raises(ValidationError, match="time_limit"):
        smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=20, time_limit=float("nan"))


class _Clock:
    """A fake ``time.perf_counter`` that advances ``tick`` seconds at every reading."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_small_search_stops_at_its_time_limit_and_says_so(monkeypatch):
    from geosched.adversary import smalln

    monkeypatch.setattr(smalln.time, "perf_counter", _Clock(1.0))  # each reading: one more second
    result = smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=2000, climb_evals=40,
                                 time_limit=10.0)
    assert result.stopped == "time"
    assert result.nfev < 2000
    assert "stopped at --time 10 s" in result.message


def test_small_search_that_ends_by_its_evaluations_says_evaluations():
    from geosched.adversary.smalln import small_search

    result = small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=80, climb_evals=40,
                          time_limit=3600.0)
    assert result.stopped == "evaluations" and result.nfev >= 80
    assert "stopped" not in result.message
