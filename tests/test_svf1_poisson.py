"""``svf1.poisson`` (theory/svf1_poisson.py): 1-bit SVF's Poisson bound rests on Coq's sample path for *any* keys, so
Coq's osvf with the 1-bit keys must be the simulator's svf1, and the sample-path inequality must hold on its traces;
the row's word, and a wrong two-level bound refuted."""

from __future__ import annotations

import os
import random

import pytest
import sympy as sp
from coq_stub import coq_stub

from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.simulation import simulate
from geosched.theory import svf1_poisson, svf_poisson
from geosched.verify import coq_engine
from geosched.verify.ledger import CLAIMS, combine
from geosched.verify.methods import METHODS

needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")
SPEC = "svf1:theta=2,short_length=1,long_length=4"


def _cases(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        memory = rng.randint(6, 16)
        lengths = []
        for _ in range(rng.randint(1, 6)):
            output = rng.randint(1, memory // 2)
            lengths.append((rng.randint(0, memory - output), output))
        arrivals = [rng.randint(0, 5) for _ in lengths]
        yield Instance(memory, [Request(f"r{i}", a, s, o) for i, (a, (s, o)) in enumerate(zip(arrivals, lengths))])


def _starts(instance: Instance, spec: str) -> list[int]:
    result = simulate(instance, spec)
    return [result.starts[r.id] for r in instance.requests]


def _keys(instance: Instance) -> list[int]:
    return make_policy(SPEC).keys(instance, [r.output for r in instance.requests])


@needs_coq
def test_coq_osvf_with_the_one_bit_keys_is_the_simulators_svf1():
    from geosched.verify.coq_session import evaluate

    cases = list(_cases(5, 40))
    expressions = [f"osvf {inst.memory} [{'; '.join(map(str, _keys(inst)))}] "
                   f"[{'; '.join(str(r.arrival) for r in inst.requests)}] "
                   f"[{'; '.join(f'({r.prompt}, {r.output})' for r in inst.requests)}]" for inst in cases]
    values = evaluate(expressions, imports=("Model", "OnlineSvf"))
    differs = 0
    for inst, value in zip(cases, values):
        python = _starts(inst, SPEC)
        assert value == str(python).replace(",", ";"), inst
        differs += python != _starts(inst, "svf")
    assert differs >= 3  # the 1-bit keys change the schedule on several of them


def test_the_sample_path_step_holds_on_one_bit_traces():
    """What online_wait_bound and online_ahead state, recomputed by hand on simulated svf1 traces."""
    checked = 0
    for inst in _cases(13, 300):
        reqs, keys = inst.requests, _keys(inst)
        starts = _starts(inst, SPEC)
        peak = max(r.prompt + r.output for r in reqs)
        for j, rj in enumerate(reqs):
            a, x = rj.arrival, starts[j]
            residual = sum((r.prompt + r.output) * max(xi + r.output - a, 0)
                           for r, xi in zip(reqs, starts) if xi < a)
            during = [i for i, xi in enumerate(starts) if a <= xi < x]
            ahead = sum((reqs[i].prompt + reqs[i].output) * reqs[i].output for i in during)
            assert (inst.memory - peak) * (x - a) <= residual + ahead, (inst, j)
            for i in during:  # online_ahead: a smaller key, or equal and earlier (arrival, position)
                assert (keys[i], reqs[i].arrival, i) < (keys[j], a, j), (inst, i, j)
            checked += len(during)
    assert checked >= 100



def test_the_row_is_proved_relative_to_the_named_hypotheses_and_states_them():
    claim = CLAIMS["svf1.poisson"]
    derivation = METHODS["derivation"](claim, None)
    evidence = [derivation, coq_stub("online_wait_bound"), coq_stub("online_ahead"), coq_stub("chebyshev_dominated")]
    status, text, _, _ = combine(claim, evidence, {"svf.poisson": "proved relative to"})
    assert status == "proved relative to"
    assert all(h.statement in text for h in svf1_poisson.HYPOTHESES if h.label in svf_poisson.ASSUMED)
    # without the sample path for any keys in Coq, without Chebyshev in Coq, or without svf.poisson, not even that
    for missing in ("online_ahead", "chebyshev_dominated"):
        weaker = [derivation, *(coq_stub(name, "unknown" if name == missing else "proved")
                                for name in ("online_wait_bound", "online_ahead", "chebyshev_dominated"))]
        assert combine(claim, weaker, {"svf.poisson": "proved relative to"})[0] not in ("proved", "proved relative to")
    assert combine(claim, evidence, {"svf.poisson": "unknown"})[0] not in ("proved", "proved relative to")


def test_the_two_level_bound_by_hand():
    # short level first: sigma = 0, then rho_S; at rho_S = 1/4, rho = 1/2, pi_S = 1/2:
    # r0 (1/2 / (3/4) + 1/2 / ((3/4)(1/2))) = r0 (2/3 + 4/3) = 2 r0 <= r0/(1/2)^2 = 4 r0
    value = svf1_poisson.two_level_wait().subs({svf1_poisson.rho_s: sp.Rational(1, 4), svf1_poisson.rho:
                                                 sp.Rational(1, 2), svf1_poisson.pi_s: sp.Rational(1, 2)})
    assert sp.simplify(value - 2 * svf1_poisson.r0) == 0


def test_a_two_level_bound_above_the_square_is_refuted(monkeypatch):
    r0, rho, rho_s, pi_s = svf1_poisson.r0, svf1_poisson.rho, svf1_poisson.rho_s, svf1_poisson.pi_s
    monkeypatch.setattr(svf1_poisson, "two_level_wait",  # the long level charged (1 - rho)^-2 on top of (1 - rho_S)
                        lambda: r0 * (pi_s / (1 - rho_s) + (1 - pi_s) / ((1 - rho_s) * (1 - rho) ** 2)))
    assert svf1_poisson.derivation().check().status == "refuted"
