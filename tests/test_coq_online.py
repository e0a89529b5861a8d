"""The online Lemma A.2 and the wait bound (verify/coq/OnlineSvf.v, OnlineA2.v; rows svf.online.lemmaA2, svf.poisson):
Coq's osvf is the package's simulator with arrivals, the inequalities hold on simulated traces, and the rows' words."""

from __future__ import annotations

import os
import random
from fractions import Fraction

import pytest
from coq_stub import coq_stub

from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf_poisson
from geosched.verify import coq_engine
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, combine
from geosched.verify.methods import METHODS
from geosched.verify.poisson_residual import POISSON_METHODS

needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def _random_instances(seed: int, count: int) -> list[tuple[int, list[int], list[tuple[int, int]]]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        memory = rng.randint(6, 16)
        n = rng.randint(1, 6)
        lengths = []
        for _ in range(n):
            output = rng.randint(1, memory // 2)
            lengths.append((rng.randint(0, memory - output), output))
        cases.append((memory, [rng.randint(0, 5) for _ in range(n)], lengths))
    return cases


def _instance(memory, arrivals, lengths) -> Instance:
    return Instance(memory, [Request(f"r{i}", a, s, o) for i, (a, (s, o)) in enumerate(zip(arrivals, lengths))])


def _starts(instance: Instance) -> list[int]:
    result = simulate(instance, "svf")
    return [result.starts[r.id] for r in instance.requests]


@needs_coq
def test_coq_osvf_is_the_simulators_svf_with_arrivals():
    from geosched.verify.coq_session import evaluate

    cases = _random_instances(7, 40)
    expressions = [f"osvf_volume {m} [{'; '.join(map(str, ars))}] [{'; '.join(f'({s}, {o})' for s, o in rs)}]"
                   for m, ars, rs in cases]
    values = evaluate(expressions, imports=("Model", "OnlineSvf"))
    staggered = 0
    for (memory, arrivals, lengths), value in zip(cases, values):
        python = _starts(_instance(memory, arrivals, lengths))
        assert value == str(python).replace(",", ";"), (memory, arrivals, lengths)
        staggered += len(set(arrivals)) > 1 and python != sorted(python)
    assert staggered >= 5  # the arrivals matter on many of them


def _wait_bound_terms(memory, arrivals, lengths, starts, j):
    a, x = arrivals[j], starts[j]
    residual = sum((s + o) * max(xi + o - a, 0) for (s, o), xi in zip(lengths, starts) if xi < a)
    ahead = sum((s + o) * o for (s, o), xi in zip(lengths, starts) if a <= xi < x)
    return residual, ahead


def test_the_wait_bound_and_the_blocked_steps_on_simulated_traces():
    best = Fraction(0)
    for memory, arrivals, lengths in _random_instances(11, 300):
        starts = _starts(_instance(memory, arrivals, lengths))
        peak = max(s + o for s, o in lengths)
        for j in range(len(lengths)):
            residual, ahead = _wait_bound_terms(memory, arrivals, lengths, starts, j)
            wait = starts[j] - arrivals[j]
            assert (memory - peak) * wait <= residual + ahead, (memory, arrivals, lengths, j)
            if (memory - peak) * wait > 0:
                best = max(best, Fraction((memory - peak) * wait, residual + ahead))
            for t in range(arrivals[j], starts[j]):  # the online Lemma A.2 at each step of j's wait
                active = sum(s + o for (s, o), xi in zip(lengths, starts) if xi <= t < xi + o)  # Model.activeb
                assert active + peak > memory
    assert best >= Fraction(1, 2)  # not attained on these traces, but within a factor 2 (M = 7: (M - P) W = 2, 4)



def test_the_online_row_is_proved_only_by_both_of_its_theorems():
    claim = CLAIMS["svf.online.lemmaA2"]
    derivation = METHODS["derivation"](claim, None)
    both = [derivation, coq_stub("online_lemmaA2"), coq_stub("online_wait_bound")]
    status, text, _, _ = combine(claim, both, {"kong.lemmaA.2": "proved"})
    assert status == "proved" and "online_lemmaA2" in text and "online_wait_bound" in text
    assert combine(claim, both[:2], {"kong.lemmaA.2": "proved"})[0] != "proved"


def test_the_poisson_row_is_proved_relative_to_its_named_hypotheses_and_states_them():
    claim = CLAIMS["svf.poisson"]
    derivation = METHODS["derivation"](claim, None)
    labels = [h.label for h in svf_poisson.HYPOTHESES]
    assert labels[:2] == ["MODEL", "STABLE"] and [x.split(" (")[0] for x in derivation.data["assumed"]] == labels[2:]
    assert tuple(labels[2:]) == svf_poisson.ASSUMED  # STABLE is proved (svf.poisson.stable), not assumed
    evidence = [derivation, coq_stub("online_wait_bound"), coq_stub("online_ahead"), coq_stub("chebyshev_dominated")]
    deps = {"svf.online.lemmaA2": "proved", "svf.poisson.stable": "proved relative to"}
    status, text, _, _ = combine(claim, evidence, deps)
    assert status == "proved relative to" and text.startswith("proved relative to PASTA (Poisson arrivals")
    assert all(h.statement in text for h in svf_poisson.HYPOTHESES[2:])
    assert "the hypotheses of svf.poisson.stable" in text
    # without the sample-path step, or Chebyshev's inequality, in Coq it is not even that
    for missing in ("online_wait_bound", "chebyshev_dominated"):
        weaker = [derivation, *(coq_stub(name, "unknown" if name == missing else "proved")
                                for name in ("online_wait_bound", "online_ahead", "chebyshev_dominated"))]
        assert combine(claim, weaker, deps)[0] not in ("proved", "proved relative to")
    assert combine(claim, evidence, {**deps, "svf.poisson.stable": "unknown"})[0] == "unknown"


@pytest.mark.parametrize("name, wrong", [
    # (1 - rho)^-1 where the Cobham step gives (1 - rho)^-2
    ("square_bound", lambda r=svf_poisson.rho, hh=svf_poisson.h, eo=svf_poisson.Eo: 1 + r * (1 + hh) / ((1 - r) * eo)),
    # the Chebyshev bound without its penalty Phi (it is >= 1)
    ("chebyshev_bound", lambda r=svf_poisson.rho, hh=svf_poisson.h, eo=svf_poisson.Eo, ph=svf_poisson.Phi:
     1 + r * (1 + hh) / ((1 - r) * eo)),
])
def test_a_wrong_constant_in_our_poisson_bound_is_refuted(monkeypatch, name, wrong):
    # (unmutated it is 'unknown' on its own, open: the Coq steps; tests/test_theory.py checks every step)
    assert svf_poisson.derivation().check().status == "unknown"
    monkeypatch.setattr(svf_poisson, name, wrong)
    assert svf_poisson.derivation().check().status == "refuted"


def test_the_residual_check_agrees_and_discriminates_and_a_wrong_residual_is_refuted(monkeypatch):
    from geosched.verify import poisson_residual

    ctx = Context("quick", None, 0, ())
    evidence = POISSON_METHODS["monte-carlo:poisson-residual"](None, ctx)
    assert evidence.status == "consistent" and evidence.discriminating and abs(evidence.data["z"]) <= 4
    # the continuous-time residual o(o + 1)/2 instead of the discrete o(o - 1)/2: refuted
    monkeypatch.setattr(poisson_residual, "residual_formula", lambda rate: rate * sum(
        (s + o) * o * (o + 1) / 2 for s, o in poisson_residual.CLASSES) / len(poisson_residual.CLASSES))
    assert POISSON_METHODS["monte-carlo:poisson-residual"](None, ctx).status == "refuted"
