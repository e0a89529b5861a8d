"""Issue 34: for each of the four causes of the audit's misses, a mutation of that kind now flips a word.

Each test names the mutation, the word the ledger gave before this issue's changes and the word it gives now.
The checks run the ledger's own methods and rule (``combine``) on small inputs, so the file stays fast: the
mutation tool runs it for every mutant of the Coq evidence, the Monte Carlo, the ledger and the routing row.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from coq_stub import pinned_build

from geosched.verify import coq_engine
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, METHODS, combine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the dev-only mutation tooling


def _word(claim, ctx: Context, methods=None) -> tuple[str, str]:
    names = methods if methods is not None else claim.methods
    status, text, _, _ = combine(claim, [METHODS[m](claim, ctx) for m in names], {})
    return status, text


# ------------------------------------------------------------------ cause 1: Coq evidence wired by name


def test_cause_1_a_row_pointed_at_another_theorem(monkeypatch):
    """Mutation: kong.thm3.2's whole-claim theorem thm32_svf_competitive renamed svf_feasible (the table's one-token
    change). Before: ``proved (Coq, every n: svf_feasible)``. Now: ``refuted``, naming svf_feasible: its statement
    is not the one the row relies on (issue 46: the row's own constant, read from the pinned statement)."""
    monkeypatch.setattr(coq_engine, "build", lambda *a, **k: pinned_build())
    row = CLAIMS["kong.thm3.2"]
    coq_methods = [m for m in row.methods if m.startswith("coq:")]
    assert _word(row, Context("quick", None, 0, ()), coq_methods)[0] == "proved"
    mutated = dataclasses.replace(
        row, coq_whole=tuple("svf_feasible" if n == "thm32_svf_competitive" else n for n in row.coq_whole),
        coq=tuple(c for c in row.coq if c != "svf_feasible"), coq_constant=("svf_feasible", "P = alpha * M"))
    status, text = _word(mutated, Context("quick", None, 0, ()), [m for m in coq_methods
                                                                  if m != "coq:thm32_svf_competitive"])
    assert (status, "coq:svf_feasible" in text) == ("refuted", True)


def test_cause_1_a_tel_shifted_by_one_per_request_breaks_a_theorem():
    """Mutation: Model.v's ``finish`` + 1 (TEL shifted by +1 per request). Before: every theorem stayed closed (only an
    Example pinned TEL), the rows ``proved``. Now tel_finish_times is false, so the build stops and every Coq word is
    ``unknown``; the hand list runs it (tests/test_coq_build.py, slow) and the whole claims need tel_finish_times."""
    from mutations import COQ_MUTATIONS

    shift = next(m for m in COQ_MUTATIONS if m.id == "coq-tel-shift")
    assert (coq_engine.COQ_DIR / "Model.v").read_text().count(shift.old) == 1
    assert "tel_finish_times" in CLAIMS["kong.thm3.2"].coq_whole
    assert "tel_finish_times" in CLAIMS["kong.sjf_unbounded"].coq_whole


# ------------------------------------------------------------------ cause 2: Monte-Carlo workloads


def _small_poisson_ctx(rate_factor: float = 1.0) -> Context:
    from geosched.verify import montecarlo as mc

    honest = mc._rate
    ctx = Context("quick", None, 0, ())
    mc._rate = lambda mu, rho, cfg: rate_factor * honest(mu, rho, cfg)
    try:
        ctx.cache["poisson:svf"] = mc.run_montecarlo(((0.2, 0.9),), policy="svf", n=8, replications=12, memory=12,
                                                     alpha_cap=0.5, s_min=0, s_max=3, seed=0, n_boot=2000,
                                                     opt="exact")
    finally:
        mc._rate = honest
    return ctx


@pytest.fixture
def one_point(monkeypatch):
    """The small run below has one grid point: its coverage pin (issue 46) is one point."""
    from geosched.verify import methods

    monkeypatch.setitem(methods.MC_POINTS, "quick", {"points": 1, "judged": 1})


def test_cause_2_an_arrival_rate_ten_percent_high_is_refuted(one_point):
    """Mutation: the Monte Carlo's arrival rate x1.1 (the audit measured 6-32% too high). Before: ``vacuous`` (the
    load was judged from the nominal rho). Now: ``refuted``: the rate measured on 20,000 requests is not the
    statement's."""
    row = CLAIMS["kong.thm3.4"]
    assert _word(row, _small_poisson_ctx(), ["monte-carlo:svf"])[0] == "vacuous"
    status, text = _word(row, _small_poisson_ctx(1.1), ["monte-carlo:svf"])
    assert status == "refuted" and "implementation check monte-carlo:svf" in text


# ------------------------------------------------------------------ cause 3: words and texts from values


def test_cause_3_consistent_needs_the_sensitivity_result(one_point):
    """Mutation: the points' ``discriminating`` flag set without the sensitivity run refuting anything. Before:
    ``consistent``. Now: ``vacuous``: the ledger recomputes the sensitivity (the constant 2 made 1.8) itself."""
    from geosched.verify import montecarlo as mc

    ctx = _small_poisson_ctx()
    run = ctx.cache["poisson:svf"]
    claimed = [dataclasses.replace(p, discriminating=True, consistent=True) for p in run.points]
    ctx.cache["poisson:svf"] = dataclasses.replace(run, points=claimed, status="consistent")
    status, _ = _word(CLAIMS["kong.thm3.4"], ctx, ["monte-carlo:svf"])
    assert status == "vacuous"
    assert not any(p.ratio_upper_ci_low > mc.svf_stochastic_bound(p.alpha, p.mu, p.rho, 1.8) for p in run.points)


def test_cause_3_a_c_level_sort_per_replica_is_counted(monkeypatch):
    """Mutation: the router sorts a state list per replica (C code: no bytecode). Before: ``reproduced`` (bytecode
    counts grew linearly). Now: ``not_reproduced``: the element reads and comparisons are counted."""
    from geosched.reference_impl.cluster.routers import SageSchedRouter
    from geosched.verify import sagesched_claims as sc

    sizes = (2, 32, 64, 128)
    assert sc.routing_claim(sc.routing_cost(sizes, requests=1)).status == "reproduced"
    honest = SageSchedRouter.scores

    def sorting(self, state, **request):
        return [s + 0.0 * sorted(state.memory)[0] for s in honest(self, state, **request)]

    monkeypatch.setattr(SageSchedRouter, "scores", sorting)
    outcome = sc.routing_claim(sc.routing_cost(sizes, requests=1))
    assert outcome.status == "not_reproduced" and outcome.data["exponents"]["bytecode"] <= sc.LINEAR_EXPONENT


def test_cause_3_the_game_names_exactly_the_k_it_rederived(monkeypatch):
    """Mutation: exhaustive re-derivation only for K <= 2. Before: the text said K = 2 and 3 were re-derived. Now it
    lists K = [2] and says that K = 3 had only the never-release ratios recomputed."""
    from geosched.verify import game

    honest = game.audit_game
    monkeypatch.setattr(game, "audit_game", lambda result, brute_k_max=3: honest(result, brute_k_max=2))
    text = METHODS["game:jaillet4.1"](CLAIMS["jaillet.thm4.1"], Context("quick", None, 0, ())).message
    assert "exhaustive search at K = [2] (" in text and "at K = [3] only the never-release ratios" in text


def test_cause_3_partly_lists_every_sub_comparison():
    """Two sub-results changing in opposite directions keep the word ``partly`` and the count; the text names each
    sub-comparison with its own result, so it changes."""
    from geosched.verify.empirical import EmpiricalEvidence, combine_empirical

    def text(sub):
        return combine_empirical([EmpiricalEvidence("trace:x", "empirical", "partly", "m", data={"sub": sub})])[1]

    before = text([("mean at 0.8", "held"), ("P95 at 0.8", "failed")])
    after = text([("mean at 0.8", "failed"), ("P95 at 0.8", "held")])
    assert before != after and "1 of 2 held: mean at 0.8 held, P95 at 0.8 failed" in before


def test_cause_3_fewer_tie_orders_are_refused(monkeypatch):
    """Mutation: the enumeration stops enumerating tie orders (one order per instance). Before: ``checked`` for
    ``exhaustive:prop3.1`` (nothing looked at the size). Now (issue 46): ``refuted``: a coverage loss refutes the
    evidence (fewer request orders than the pinned size)."""
    from geosched.verify import exhaustive as ex

    evidence = METHODS["exhaustive:prop3.1"](CLAIMS["kong.prop3.1"], Context("quick", None, 0, ("svf",)))
    assert evidence.status == "checked"
    monkeypatch.setattr(ex, "_orderings", lambda instance, mode: [instance])
    evidence = METHODS["exhaustive:prop3.1"](CLAIMS["kong.prop3.1"], Context("quick", None, 0, ("svf",)))
    assert evidence.status == "refuted" and "coverage lost: covered request orders 1145 of 1365" in evidence.message


# ------------------------------------------------------------------ cause 4: code no row ran


@pytest.mark.parametrize("kind", ["early_start", "memory"])
def test_cause_4_a_checker_that_misses_a_violation_is_refuted(monkeypatch, kind):
    """Mutation: the checker stops reporting early starts (or memory). Before: no row gave it a bad schedule, every
    word stayed. Now: ``ours.referee`` is ``refuted``."""
    from geosched.reference_impl import checker

    row = CLAIMS["ours.referee"]
    assert _word(row, Context("quick", None, 0, ()), ["referee:bad-schedules"])[0] == "checked"
    honest = checker.check_schedule

    def blind(instance, starts, **kw):
        report = honest(instance, starts, **kw)
        kept = tuple(v for v in report.violations if v.kind != kind)
        return dataclasses.replace(report, violations=kept, status="infeasible" if kept else "feasible")

    monkeypatch.setattr(checker, "check_schedule", blind)
    assert _word(row, Context("quick", None, 0, ()), ["referee:bad-schedules"])[0] == "refuted"
