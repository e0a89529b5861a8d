"""Tests of the declarative one-step specification and the bounded equivalence check
(geosched.verify.policy_spec). Hand-derived cases first, then the exhaustive check, then
deliberately wrong implementations that the check must refute."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.admission import admission_step
from geosched.reference_impl.model import volume
from geosched.verify.policy_spec import (
    Bounds,
    State,
    build_spec,
    check_policy_equivalence,
    enumerate_states,
    prove_unique,
    spec_admitted,
)

SMALL = {"max_memory": 4, "max_running": 1, "max_waiting": 3, "max_output": 2}


@pytest.mark.parametrize(
    "policy, state, expected",
    [
        # M=12, t=0, nothing running; w0 = (6, 3) volume 24, w1 = (1, 5) volume 20.
        # SVF: w1 first (peak 6 at step 5); then w0 with w1: at step 3 usage 4 + 9 = 13 > 12 -> stop.
        ("svf", State(12, 0, (), ((0, 6, 3), (0, 1, 5))), {1}),
        # SJF: w0 (o=3) first, then w1: at step 3 usage 9 + 4 = 13 > 12 -> stop.
        ("sjf", State(12, 0, (), ((0, 6, 3), (0, 1, 5))), {0}),
        # FCFS: w0 arrives at 1, w1 at 0 -> w1 first, same as SVF here.
        ("fcfs", State(12, 1, (), ((1, 6, 3), (0, 1, 5))), {1}),
        # M=5, running (1, start 0, end 3) holds 1 + 3 = 4 at step 3; the head (0, 1) started at 2
        # adds 0 + 1 at step 3: 5 <= 5 -> admitted. With M = 4: 5 > 4 -> blocked.
        ("svf", State(5, 2, ((1, 0, 3),), ((0, 0, 1),)), {0}),
        ("svf", State(4, 2, ((1, 0, 3),), ((0, 0, 1),)), set()),
        # M=5, head w0 = (1, 1) (volume 2) adds 2 at step 3: 6 > 5 -> blocked; strict stops before
        # w1 = (0, 2) (volume 3).
        ("svf", State(5, 2, ((1, 0, 3),), ((0, 1, 1), (0, 0, 2))), set()),
    ],
)
def test_spec_hand_cases(policy, state, expected):
    spec = build_spec(policy, len(state.running), len(state.waiting), 5)
    assert spec_admitted(spec, state) == expected


def test_backfill_spec_skips_misfits():
    # the strict case above: w0 = (1, 1) misfits; w1 = (0, 2) adds 1 at step 3 (4 + 1 = 5 <= 5)
    # and holds 2 at step 4 after the running one ended: fits
    state = State(5, 2, ((1, 0, 3),), ((0, 1, 1), (0, 0, 2)))
    spec = build_spec("svf", 1, 2, 5, backfill=True)
    assert spec_admitted(spec, state) == {1}
    assert admission_step(5, 2, [(1, 0, 3)], [(1, 1), (0, 2)], backfill=True) == [1]


def test_uniqueness_proved_for_every_small_shape():
    for backfill in (False, True):
        for n_run in range(3):
            for n_wait in range(4):
                status, _ = prove_unique(build_spec("svf", n_run, n_wait, 3, backfill=backfill))
                assert status == "proved", (backfill, n_run, n_wait)


def test_enumeration_counts_small_case_by_hand():
    # M = 1, t = 0, o <= 1, s <= 0, arrival 0: running item (0, 0, 1); waiting item (0, 0, 1).
    # running batches {}, {r} (feasible: 1 <= 1), {r, r} (2 > 1: dropped); waiting tuples of
    # length 0..2 from one item: 1 + 1 + 1 = 3 -> 2 * 3 = 6 states.
    bounds = Bounds(max_memory=1, step=0, max_running=2, max_waiting=2, max_prompt=0, max_output=1, max_arrival=0)
    assert sum(1 for _ in enumerate_states(bounds)) == 6


@pytest.mark.parametrize("policy", ["svf", "sjf", "fcfs"])
def test_equivalence_small(policy):
    result = check_policy_equivalence(policy, **SMALL)
    assert result.status == "checked", result.message
    assert result.states_checked == sum(1 for _ in enumerate_states(Bounds(**{**Bounds().to_dict(), **SMALL})))
    assert result.z3_cross_checked == 200
    json.dumps(result.to_dict())


def test_equivalence_backfill_small():
    assert check_policy_equivalence("svf", backfill=True, **SMALL).status == "checked"


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["svf", "sjf", "fcfs"])
def test_equivalence_default_bounds(policy):
    result = check_policy_equivalence(policy)
    assert result.status == "checked", result.message
    assert all(u["status"] == "proved" for u in result.uniqueness.values())


@dataclass(frozen=True)
class VolumeWithoutPrompt:
    """Deliberately wrong SVF: ignores the prompt term of the volume."""

    name: str = "svf"

    def keys(self, instance, predicted):
        return [(o * o + o) // 2 for o in predicted]


def test_wrong_order_is_refuted():
    result = check_policy_equivalence(VolumeWithoutPrompt(), **SMALL)
    assert result.status == "refuted"
    cex = result.counterexample
    assert cex["python_admitted"] != cex["spec_admitted"]
    # the differing state has two waiting requests whose true volumes order differently
    vols = [volume(w["prompt"], w["output"]) for w in cex["state"]["waiting"]]
    assert len(vols) >= 2


def test_scan_that_does_not_stop_is_refuted():
    def no_stop(memory, step, running, waiting, *, backfill=False):
        return admission_step(memory, step, running, waiting, backfill=True)

    result = check_policy_equivalence("svf", admission=no_stop, **SMALL)
    assert result.status == "refuted"
    cex = result.counterexample
    assert set(cex["spec_admitted"]) < set(cex["python_admitted"])  # the strict spec admits a prefix only


def test_off_by_one_check_is_refuted():
    def strict_by_one(memory, step, running, waiting, *, backfill=False):
        return admission_step(memory - 1, step, running, waiting, backfill=backfill)

    result = check_policy_equivalence("sjf", admission=strict_by_one, **SMALL)
    assert result.status == "refuted"
    assert result.counterexample["state"]["memory"] >= 1


def test_bad_arguments():
    with pytest.raises(UnknownNameError):
        check_policy_equivalence("svf", no_such_bound=3)
    with pytest.raises(UnknownNameError):
        check_policy_equivalence("svf1")  # no specification for the 1-bit policy
    with pytest.raises(ValidationError, match="max_arrival"):
        check_policy_equivalence("svf", step=0, max_arrival=1)


def test_a_simulator_whose_strict_path_backfills_is_caught(monkeypatch):
    """The spec is checked against the very function simulate calls (one code path)."""
    from geosched.reference_impl import admission, engine, simulation
    from geosched.reference_impl.model import burst_instance
    from geosched.verify.policy_spec import check_runs_against_spec

    original = admission.admit_from_queue
    backfilling = lambda *args: original(*args[:-1], True)  # noqa: E731
    monkeypatch.setattr(admission, "admit_from_queue", backfilling)  # admission_step's scan
    monkeypatch.setattr(engine, "admit_from_queue", backfilling)  # the event-driven engine's
    # by hand: M = 4, volumes 3 (s=0,o=2), 6 (s=0,o=3), 1 (s=0,o=1): strict SVF starts (0,1) and (0,2) at 0,
    # then (0,3) waits; a backfilling scan would not change that here, so add a misfit head:
    inst = burst_instance(5, [(0, 1), (3, 2), (0, 2)])  # volumes 1, 9, 3: order (0,1), (0,2), (3,2)
    result = check_runs_against_spec([inst], "svf")
    strict = simulation.simulate(inst, "svf").starts
    assert result.status == "violated", (result.message, strict)
    assert check_policy_equivalence("svf", max_memory=4, max_waiting=2).status == "refuted"


ONEBIT = "svf1:theta=1,short_length=1,long_length=3"


def test_onebit_spec_parameters_and_unknown_names():
    from geosched.verify.policy_spec import onebit_spec_parameters, spec_key

    assert onebit_spec_parameters(ONEBIT) == (1, 1, 3)
    assert onebit_spec_parameters("svf1:theta=1") is None and onebit_spec_parameters("svf1") is None
    with pytest.raises(UnknownNameError):
        spec_key("svf1:theta=0,short_length=1,long_length=3")


def test_onebit_matches_its_spec_and_a_wrong_boundary_or_key_is_refuted():
    from geosched.reference_impl.policies import OneBitSVF

    assert check_policy_equivalence(ONEBIT, max_memory=4, max_waiting=2, max_prompt=2).status == "checked"

    @dataclass(frozen=True)
    class WrongBoundary(OneBitSVF):
        def keys(self, instance, predicted):  # short iff o < theta: the boundary moved by one
            return [volume(r.prompt, 1 if p < 1 else 3) for r, p in zip(instance.requests, predicted)]

    @dataclass(frozen=True)
    class LengthKey(OneBitSVF):
        def keys(self, instance, predicted):  # the proxy length instead of the proxy volume
            return [1 if p <= 1 else 3 for p in predicted]

    for wrong in (WrongBoundary(theta=1, short_length=1, long_length=3),
                  LengthKey(theta=1, short_length=1, long_length=3)):
        result = check_policy_equivalence(wrong, spec_policy=ONEBIT, max_memory=4, max_waiting=2, max_prompt=2)
        assert result.status == "refuted", type(wrong).__name__


def test_the_ledger_checks_onebit_where_it_differs_from_svf():
    from geosched.verify.ledger import run_claims

    claim = run_claims(["kong.thm3.3"], mode="quick", follow_dependencies=False).claims[0]
    spec = next(e for e in claim.evidence if e.method == "policy-spec")
    assert spec.status == "checked" and spec.data["onebit_differs_from_svf"] > 0
    assert any(k.startswith("states:svf1:") for k in spec.data) and any(k.startswith("runs:svf1:") for k in spec.data)


def test_the_enumeration_specifies_onebit_too(monkeypatch):
    import numpy as np

    from geosched.reference_impl import policies
    from geosched.verify import exhaustive as ex

    run = ex.run_exhaustive(ex.QUICK_SPACE, variants=("svf1",), opt_method="dp")
    check = run.variants["svf1"]["checks"]["onebit_spec"]
    assert check["checked"] == run.variants["svf1"]["instances"] > 0 and check["failed"] == 0

    def boundary_moved(self, prompt, predicted):  # short iff o < theta
        predicted = np.asarray(predicted, dtype=np.int64)
        theta, o0, o1 = self.resolved(predicted)
        proxy = np.where(predicted >= theta, o1, o0)
        return np.asarray(prompt, dtype=np.int64) * proxy + (proxy * proxy + proxy) // 2

    monkeypatch.setattr(policies.OneBitSVF, "array_keys", boundary_moved)
    wrong = ex.run_exhaustive(ex.QUICK_SPACE, variants=("svf1",), opt_method="dp")
    assert wrong.variants["svf1"]["checks"]["onebit_spec"]["failed"] > 0
