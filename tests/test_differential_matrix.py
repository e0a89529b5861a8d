"""The differential matrix (issue 31, item 2): every independent model of the exact process runs on
the same generated instances, and the one that disagrees is named.

The roles (``docs/architecture.md``, "Roles"): the reference engine (event-driven), the step engine
(the protocol's loop), the compiled kernel (through ``simulation.compiled_run``), the naive stepwise
oracle (``tests/stepwise_reference.py``), the vLLM-semantics model (its paper gate), the Z3
specification (solved step by step), the Coq SVF and SJF (extracted) and the referee (the checker's
verdict and TEL of the oracle's schedule). A row is one (instance, policy, backfill, predictor); a
role that does not model the row (the kernel: exact lengths; Coq: exact lengths, strict head-of-line,
bursts, svf and sjf) leaves its cell empty. Every answer is ``(starts, TEL, restarts)``; the
majority answer of a row is the reference, and every role that differs from it is named.

The Coq column needs coqc (skipped without it, required when ``GEOSCHED_REQUIRE_COQ=1``, as in CI);
the other columns run everywhere. It replaces the pairwise tests engine = oracle (test_simulator),
kernel = engine (test_million), semantics = engine (test_vllm_semantics), spec = engine
(test_policy_spec) and Coq = Python on Hypothesis bursts (test_coq_engine).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stepwise_reference import stepwise_simulate

from geosched.reference_impl import simulation
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.engine import run_scheduler
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.predictors import NoisyPredictor, OneBitPredictor, make_predictor
from geosched.reference_impl.schedulers.priority import PriorityRuleScheduler
from geosched.verify import coq_engine

COQ_REQUIRED = os.environ.get("GEOSCHED_REQUIRE_COQ") == "1"


@dataclass(frozen=True)
class Row:
    instance: Instance
    policy: str
    backfill: bool
    predictor: str  # oracle | noisy | onebit
    seed: int

    @property
    def exact(self) -> bool:
        return self.predictor == "oracle"

    def predictor_object(self):
        return {"oracle": make_predictor("oracle"), "noisy": NoisyPredictor(sigma=0.7, seed=self.seed),
                "onebit": OneBitPredictor(flip_rate=0.3, seed=self.seed)}[self.predictor]

    def predicted(self) -> list[int]:
        return self.predictor_object().predict(self.instance)


def _answer(instance: Instance, starts: dict[str, int], restarts: int = 0) -> tuple:
    ordered = tuple(starts[r.id] for r in instance.requests)
    return ordered, sum(x + r.output - r.arrival for x, r in zip(ordered, instance.requests)), restarts


# --------------------------------------------------------------------------- the roles, one function each


def reference_engine(rows: list[Row]) -> list:
    out = []
    for row in rows:
        result = simulation.simulate(row.instance, row.policy, predictor=row.predictor_object(),
                                     backfill=row.backfill)
        out.append(_answer(row.instance, result.starts, result.restarts))
    return out


def step_engine(rows: list[Row]) -> list:
    out = []
    for row in rows:
        if not row.exact:
            out.append(None)
            continue
        run = run_scheduler(row.instance, PriorityRuleScheduler(make_policy(row.policy), row.instance,
                                                                backfill=row.backfill))
        out.append(_answer(row.instance, {rid: runs[-1].start for rid, runs in run.runs.items()}, run.restarts))
    return out


def compiled_kernel(rows: list[Row]) -> list:
    out = []
    for row in rows:
        if not row.exact:
            out.append(None)
            continue
        inst = row.instance
        prompt, output, arrival = (np.array(values, dtype=np.int64) for values in
                                   zip(*((r.prompt, r.output, r.arrival) for r in inst.requests)))
        keys = make_policy(row.policy).keys(inst, [r.output for r in inst.requests])
        ran = simulation.compiled_run(inst.memory, prompt, output, arrival, keys, backfill=row.backfill)
        out.append(None if ran is None else _answer(inst, {r.id: int(x) for r, x in zip(inst.requests, ran[0])}))
    return out


def stepwise_oracle(rows: list[Row]) -> list:
    out = []
    for row in rows:
        predicted = row.predicted()
        keys = make_policy(row.policy).keys(row.instance, predicted)
        starts, evictions = stepwise_simulate(row.instance, keys, predicted, backfill=row.backfill)
        out.append(_answer(row.instance, starts, evictions))
    return out


def vllm_semantics(rows: list[Row]) -> list:
    from geosched.reference_impl.vllm.admission import PaperGate
    from geosched.reference_impl.vllm.config import order_key
    from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, VllmSemantics

    out = []
    for row in rows:
        if not row.exact or row.backfill or row.policy == "svf1":
            out.append(None)
            continue
        inst, policy = row.instance, make_policy(row.policy)
        gate = PaperGate(inst.memory, 1, backfill=False)
        specs: dict[str, SemRequest] = {}

        def offer(step, running, waiting, gate=gate, specs=specs):
            return gate.select(step, running, ((rid, t, max(1, specs[rid].max_tokens - g)) for rid, t, g in waiting))

        def admitted(rid, step, r, gate=gate):
            gate.admitted(rid, step, r.num_tokens, max(1, r.max_tokens - r.generated))

        total = sum(r.prompt + 1 for r in inst.requests) + inst.n
        params = EngineParams(capacity_blocks=inst.memory, block_size=1, max_num_seqs=inst.n,
                              max_num_batched_tokens=max(total, inst.n))
        model = VllmSemantics(params, admission_gate=offer, on_admit=admitted)
        for r in inst.requests:
            specs[r.id] = SemRequest(r.id, r.arrival, r.prompt + 1, r.output,
                                     key=order_key(policy, r.prompt + 1, r.output))
            model.add(specs[r.id])
        starts = {rid: state.step for state in model.run() for rid in state.admitted}
        out.append(_answer(inst, starts, model.preemptions))
    return out


Z3_HORIZON = 4  # the specification's rows: n <= 3, outputs <= 4 (one formula per shape, built once per process)
_Z3_SPECS: dict[tuple, object] = {}


def z3_specification(rows: list[Row]) -> list:
    from geosched.verify.policy_spec import State, build_spec, spec_admitted

    out = []
    for row in rows:
        inst = row.instance
        if not row.exact or row.policy == "svf1" or inst.n > 3 or max(r.output for r in inst.requests) > Z3_HORIZON:
            out.append(None)
            continue
        starts: dict[str, int] = {}
        t = min(r.arrival for r in inst.requests)
        while len(starts) < inst.n:
            waiting = [r for r in inst.requests if r.arrival <= t and r.id not in starts]
            running = tuple((r.prompt, starts[r.id], starts[r.id] + r.output) for r in inst.requests
                            if r.id in starts and starts[r.id] < t < starts[r.id] + r.output)
            if waiting:
                shape = (len(running), len(waiting), row.policy, row.backfill)
                if shape not in _Z3_SPECS:
                    _Z3_SPECS[shape] = build_spec(row.policy, len(running), len(waiting), Z3_HORIZON,
                                                  backfill=row.backfill)
                state = State(inst.memory, t, running, tuple((r.arrival, r.prompt, r.output) for r in waiting))
                admitted = spec_admitted(_Z3_SPECS[shape], state)
                assert admitted is not None, f"Z3 gave no answer at step {t} of {inst}"
                starts.update({waiting[k].id: t for k in admitted})
            t += 1
        out.append(_answer(inst, starts))
    return out


def coq_engine_role(rows: list[Row]) -> list:
    """The extracted Coq SVF and SJF on the burst rows, in one process."""
    chosen = [k for k, row in enumerate(rows) if row.exact and not row.backfill and row.policy in ("svf", "sjf")
              and len({r.arrival for r in row.instance.requests}) == 1]
    out: list = [None] * len(rows)
    if not chosen:
        return out
    items = [(rows[k].instance.memory, coq_engine.burst_lengths(rows[k].instance)[1], ()) for k in chosen]
    for k, run in zip(chosen, coq_engine.run_batch(items)):
        inst = rows[k].instance
        first = inst.requests[0].arrival
        xs = run.starts if rows[k].policy == "svf" else run.sjf
        out[k] = _answer(inst, {r.id: first + x for r, x in zip(inst.requests, xs)})
    return out


def referee(rows: list[Row]) -> list:
    """The checker's verdict and TEL of the oracle's schedule (exact rows: the oracle never restarts)."""
    out = []
    for row, oracle in zip(rows, stepwise_oracle(rows)):
        if not row.exact:
            out.append(None)
            continue
        report = check_schedule(row.instance, dict(zip((r.id for r in row.instance.requests), oracle[0])))
        out.append((oracle[0], report.metrics.tel, report.metrics.restarts) if report.feasible else None)
    return out


ROLES: dict[str, Callable[[list[Row]], list]] = {
    "reference engine": reference_engine,
    "step engine": step_engine,
    "compiled kernel": compiled_kernel,
    "naive stepwise oracle": stepwise_oracle,
    "vLLM-semantics model": vllm_semantics,
    "Z3 specification": z3_specification,
    "Coq engine": coq_engine_role,
    "referee": referee,
}


def roles_available() -> dict[str, Callable[[list[Row]], list]]:
    """Every role whose tools are here: coqc is required in CI (GEOSCHED_REQUIRE_COQ=1)."""
    if COQ_REQUIRED or coq_engine.coq_available():
        return dict(ROLES)
    return {name: role for name, role in ROLES.items() if name != "Coq engine"}


def disagreements(rows: list[Row], roles: dict[str, Callable[[list[Row]], list]]) -> list[str]:
    """One line per (row, role) whose answer differs from the row's majority answer."""
    columns = {name: role(rows) for name, role in roles.items()}
    lines = []
    for k, row in enumerate(rows):
        answers = {name: column[k] for name, column in columns.items() if column[k] is not None}
        assert len(answers) >= 2, f"row {k} was answered by {sorted(answers)} only"
        majority, votes = Counter(answers.values()).most_common(1)[0]
        assert votes * 2 > len(answers), f"no majority on {row}: {answers}"
        lines += [f"{name} disagrees on {row.policy} backfill={row.backfill} {row.predictor} "
                  f"{row.instance.to_dict()}: (starts, TEL, restarts) {answer} != {majority} of "
                  f"{sorted(n for n, a in answers.items() if a == majority)}"
                  for name, answer in answers.items() if answer != majority]
    return lines


# --------------------------------------------------------------------------- generated rows

_instances = st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.integers(4, 16), st.booleans(),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 15), st.integers(1, 8)), min_size=n, max_size=n),
)).map(lambda data: Instance(data[0], [Request(f"r{k}", 0 if data[1] else a, min(s, data[0] - 1),
                                                 min(o, data[0] - min(s, data[0] - 1)))
                                         for k, (a, s, o) in enumerate(data[2])]))
_rows = st.builds(Row, _instances, st.sampled_from(["svf", "sjf", "fcfs", "svf1"]), st.booleans(),
                  st.sampled_from(["oracle", "oracle", "noisy", "onebit"]), st.integers(0, 10_000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_rows, min_size=20, max_size=20))
def test_every_role_agrees_on_generated_rows(rows):
    assert disagreements(rows, roles_available()) == []
    for row in rows:  # with predictions, the referee judges the reference engine's runs, evicted ones too
        if not row.exact:
            result = simulation.simulate(row.instance, row.policy, backfill=row.backfill,
                                         predictor=row.predictor_object())
            report = check_schedule(row.instance, result.schedule)
            assert report.feasible, report.violations
            assert (report.metrics.restarts, report.metrics.lost_tokens) == (result.restarts, result.lost_tokens)


def _seeded_rows(seed: int, count: int) -> list[Row]:
    rng = random.Random(seed)
    rows = []
    for k in range(count):
        memory = rng.randint(6, 14)
        burst = k % 2 == 0
        requests = []
        for i in range(rng.randint(2, 3)):
            output = rng.randint(1, Z3_HORIZON)
            requests.append(Request(f"r{i}", 0 if burst else rng.randint(0, 3), rng.randint(0, memory - output),
                                    output))
        rows.append(Row(Instance(memory, requests), ("svf", "sjf", "fcfs")[k % 3], False, "oracle", k))
    return rows


def _late_kernel(original):
    def run(*args, **kwargs):
        ran = original(*args, **kwargs)
        return None if ran is None else (ran[0] + (ran[0] == ran[0].max()), *ran[1:])
    return run


@pytest.mark.parametrize("broken", ["compiled kernel", "referee", "Z3 specification"])
def test_the_matrix_names_a_broken_role(monkeypatch, broken):
    """Break one role by monkeypatching what it calls; the matrix names that role and no other."""
    if broken == "compiled kernel":  # the last starters start one step late
        monkeypatch.setattr(simulation, "compiled_run", _late_kernel(simulation.compiled_run))
    elif broken == "referee":  # a TEL that forgets the outputs' last step
        original = check_schedule

        def off_by_one(instance, starts):
            report = original(instance, starts)
            return replace(report, metrics=replace(report.metrics, tel=report.metrics.tel - 1))
        monkeypatch.setitem(globals(), "check_schedule", off_by_one)
    else:  # a specification that also admits every request of the waiting queue
        from geosched.verify import policy_spec

        monkeypatch.setattr(policy_spec, "spec_admitted", lambda spec, state: set(range(len(state.waiting))))
    lines = disagreements(_seeded_rows(7, 12), roles_available())
    assert lines, "the broken role went unnoticed"
    assert {line.split(" disagrees")[0] for line in lines} == {broken}, lines
