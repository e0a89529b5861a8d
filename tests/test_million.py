"""Issue 21 item 8: the fast paths for 1,000,000 requests give exactly what the general paths give.

The compiled kernel (:mod:`geosched.reference_impl.kernel`) against the simulator's
``ReplicaEngine`` (and the naive per-step reference); the column reader and the checker's column
path against the general ones, on generated instances with ties and on bad inputs; the command
line's column path (:mod:`geosched.reference_impl.columns`) against its general path.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stepwise_reference import stepwise_simulate

from geosched import cli
from geosched.errors import GeoschedError
from geosched.reference_impl import checker, columns, kernel, model, simulation
from geosched.reference_impl.checker import check_schedule, sorted_unique
from geosched.reference_impl.jsonfile import loads, read_text
from geosched.reference_impl.model import (
    Instance,
    Request,
    canonical_instance,
    canonical_schedule,
    instance_from_dict,
    instance_from_text,
    instance_to_dict,
    read_schedule,
    schedule_from_dict,
)
from geosched.reference_impl.policies import make_policy


@st.composite
def tied_instances(draw, max_n: int = 40):
    """Small budgets and few distinct values: many equal keys, arrivals and ends."""
    memory = draw(st.integers(2, 40))
    n = draw(st.integers(1, max_n))
    requests = []
    for k in range(n):
        output = draw(st.integers(1, min(memory, draw(st.sampled_from([2, 4, memory])))))
        prompt = draw(st.integers(0, memory - output))
        arrival = draw(st.sampled_from([0, 0, 1, 3, draw(st.integers(0, 60))]))
        requests.append(Request(f"q{n - k}", arrival, prompt, output))  # ids in reverse: ids are labels
    return Instance(memory, requests)


def _engine_result(instance, policy, backfill=False):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulation, "COMPILED_MIN_REQUESTS", 10**18)
        return simulation.simulate(instance, policy, backfill=backfill)


def _compiled_result(instance, policy, backfill=False):
    calls = []
    real = kernel.run_exact

    def counted(*args):
        calls.append(1)
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simulation, "COMPILED_MIN_REQUESTS", 0)
        patch.setattr(kernel, "run_exact", counted)
        result = simulation.simulate(instance, policy, backfill=backfill)
    assert calls == [1], "the compiled loop did not run"
    return result


@settings(deadline=None)
@given(tied_instances(), st.sampled_from(["svf", "sjf", "fcfs", "svf1"]), st.booleans())
def test_compiled_loop_equals_the_engine(instance, policy, backfill):
    expected = _engine_result(instance, policy, backfill)
    got = _compiled_result(instance, policy, backfill)
    assert got == expected  # every field: starts, completions, admission order, decisions, message
    assert got.message == expected.message and got.decisions == expected.decisions
    keys = make_policy(policy).keys(instance, [r.output for r in instance.requests])
    starts, _ = stepwise_simulate(instance, keys, [r.output for r in instance.requests], backfill=backfill)
    assert got.starts == starts


def test_compiled_loop_hand_worked():
    # M = 12: b (1, 5) first by volume, a (6, 3) waits until b's usage 1 + t leaves room: 6 + 3 + 6 > 12
    # until t = 5 (b holds 6 at step 5, a holds 7 at step 6 when b is gone)
    start, order, decisions = kernel.run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]),
                                               np.array([1, 0]), False)
    assert start.tolist() == [5, 0] and order.tolist() == [1, 0] and decisions == 2


class _Longer:
    name = "longer"

    def predict(self, instance):
        return np.array([r.output + 1 for r in instance.requests])


def test_falls_back_outside_its_case(monkeypatch):
    calls = []
    monkeypatch.setattr(simulation, "COMPILED_MIN_REQUESTS", 0)
    monkeypatch.setattr(kernel, "run_exact", lambda *a: calls.append(1))
    instance = Instance(12, [Request("a", 0, 6, 3), Request("b", 0, 1, 5)])
    simulation.simulate(instance, "svf", predictor=_Longer())
    simulation.simulate(instance.with_block_size(2), "svf")
    simulation.simulate(instance, "svf", observer=lambda interval: None)
    huge = Instance(2**53, [Request(f"r{k}", 0, 0, 2**53) for k in range(10)])  # past fits_int64's bound
    assert simulation.simulate(huge, "svf").starts == {f"r{k}": k * 2**53 for k in range(10)}
    assert calls == []


def test_block_grain_never_reaches_the_kernel(monkeypatch):
    # M = 12, B = 4, two requests (2, 3) at 0. Token grain: both start at 0 (each holds 3, 4, 5: 10 <= 12).
    # Blocks: each holds 4, 4, 8, so the second at 0 would make 16 > 12 at step 3; at 1 it holds 4 there
    # (8 + 4 <= 12) and 8 at step 4, when the first is gone: it starts at 1.
    instance = Instance(12, [Request("a", 0, 2, 3), Request("b", 0, 2, 3)])
    blocks = instance.with_block_size(4)
    columns_ = (np.array([2, 2]), np.array([3, 3]), np.array([0, 0]))
    assert simulation.compiled_run(12, *columns_, [1, 1], block_size=4) is None
    assert simulation.compiled_run(12, *columns_, [1, 1], block_size=1)[0].tolist() == [0, 0]
    calls = []
    real = kernel.run_exact
    monkeypatch.setattr(simulation, "COMPILED_MIN_REQUESTS", 0)
    monkeypatch.setattr(kernel, "run_exact", lambda *a: calls.append(1) or real(*a))
    assert simulation.simulate(instance, "svf").starts == {"a": 0, "b": 0} and calls == [1]
    got = simulation.simulate(blocks, "svf")
    assert got.starts == {"a": 0, "b": 1} and calls == [1]  # the step engine, at block grain
    assert check_schedule(blocks, got.starts).feasible and not check_schedule(blocks, {"a": 0, "b": 0}).feasible


@pytest.mark.parametrize("arrival,output,memory,fits", [
    ([0, 5], [3, 4], 39, True),
    ([2**53], [2**53], 2**53, True),  # 4 * 3 * 4 * 2^53 < 2^62
    ([0] * 10, [2**53] * 10, 2**53, False),  # 4 * 12 * 13 * 2^53 >= 2^62
])
def test_fits_int64(arrival, output, memory, fits):
    assert kernel.fits_int64(memory, np.array(arrival, dtype=np.int64), np.array(output, dtype=np.int64)) is fits


def test_priority_order_is_key_arrival_position():
    order = kernel.priority_order([3, 1, 1, 1], np.array([0, 2, 1, 1]))
    assert order.tolist() == [2, 3, 1, 0]
    assert kernel.priority_order([1.5, 2], np.array([0, 0])) is None
    assert kernel.priority_order([2**70, 1], np.array([0, 0])) is None


# ---------------------------------------------------------------- the schedule reader

_ID_CHARS = "abcxyzR019_.:-"


def _general_schedule(path):
    """The strict reader alone (what read_schedule did before the canonical layout)."""
    return schedule_from_dict(loads(read_text(path), str(path)), source=str(path))


def _outcome(read, path):
    try:
        return "ok", read(path), list(read(path))
    except GeoschedError as exc:
        return "error", type(exc).__name__, str(exc)


_steps = st.one_of(st.integers(-(10**18) + 1, 10**18 - 1), st.sampled_from([0, -1, 2**63 - 1, -(2**63), 2**63, 10**18]))
_starts = st.dictionaries(st.text(_ID_CHARS, min_size=1, max_size=6), _steps, max_size=12)


@settings(deadline=None)
@given(_starts, st.sampled_from(["plain", "duplicate", "extra", "bare", "indent", "float", "nan", "bool", "nested",
                                 "quote", "trailing", "empty", "separator"]), st.integers(1, 40))
def test_schedule_reader_equals_the_strict_reader(tmp_path_factory, starts, mutation, chunk):
    text = json.dumps({"starts": starts}) + "\n"
    if mutation == "duplicate" and starts:
        key, value = next(iter(starts.items()))
        text = text.replace("}}", f', "{key}": {value}}}}}')
    elif mutation == "extra":
        text = text.replace("}}", '}, "tel": 3}')
    elif mutation == "bare":
        text = json.dumps(starts)
    elif mutation == "indent":
        text = json.dumps({"starts": starts}, indent=1)
    elif mutation in ("float", "nan", "bool", "nested", "quote") and starts:
        value = {"float": "1.5", "nan": "NaN", "bool": "true", "nested": "[1, 2]", "quote": '"\\u0041"'}[mutation]
        key = next(iter(starts))
        text = text.replace(f'"{key}": {starts[key]}', f'"{key}": {value}', 1)
    elif mutation == "trailing":
        text += "x"
    elif mutation == "empty":
        text = '{"starts": {}}'
    elif mutation == "separator":
        text = text.replace(', "', ',,"', 1)
    path = tmp_path_factory.mktemp("schedule") / "s.json"
    path.write_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(model, "_CHUNK_BYTES", chunk)  # chunk boundaries at every row
        fast = _outcome(read_schedule, path)
        if mutation == "plain" and starts and all(abs(v) < 10**18 for v in starts.values()):
            assert canonical_schedule(path.read_bytes()) == starts  # the chunked path was taken
    assert fast == _outcome(_general_schedule, path)


def test_schedule_reader_takes_the_canonical_layout():
    starts = {"r0": 5, "a:b-c.d_e": -12, "z": 10**18 - 1}
    assert canonical_schedule((json.dumps({"starts": starts}) + "\n").encode()) == starts
    assert canonical_schedule(json.dumps({"starts": {"r0": 10**18}}).encode()) is None  # 19 digits: strict reader
    assert canonical_schedule(b'{"starts": {"r0": 5, "r0": 6}}') is None
    many = {f"r{k}": k * (-1) ** k for k in range(50)}
    for chunk in (1, 7, 10**6):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(model, "_CHUNK_BYTES", chunk)
            assert canonical_schedule(json.dumps({"starts": many}).encode()) == many


def test_instance_reader_takes_the_canonical_layout_in_chunks():
    instance = Instance(40, [Request(f"r{k}", k % 3, k % 5, 1 + k % 7) for k in range(50)])
    for indent in (None, 1):
        for chunk in (1, 7, 10**6):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(model, "_CHUNK_BYTES", chunk)
                assert canonical_instance(json.dumps(instance_to_dict(instance), indent=indent)) == instance


@settings(deadline=None)
@given(st.lists(st.integers(-5, 5) | st.integers(-(2**70), 2**70), max_size=30), st.booleans())
def test_sorted_unique_is_numpy_unique(values, exact):
    dtype = object if not exact else np.int64
    if exact:
        values = [min(max(v, -(2**63)), 2**63 - 1) for v in values]
    array = np.array(values, dtype=dtype)
    assert sorted_unique(array).tolist() == np.unique(array).tolist()


# ---------------------------------------------------------------- the instance reader, a chunk of rows at a time

_INSTANCE_MUTATIONS = [None, ("}", "},"), ('"output": ', '"output": 0, "output": '), (",\n  {", ", {"),
                       ('"id": "', '"id": "}'), ('"prompt": ', '"prompt": 99'), (",\n  {", ",\n  {}, {"),
                       ('"id": "', '"id": "r0'), (",\n  {", ",\n \t{"), (", {", ",\t{"),
                       (",\n  {", ",\n ,{"), (", {", ",,{"), "output 0", "output M"]


def _read(read, text):
    try:
        return "ok", read(text)
    except GeoschedError as exc:
        return "error", type(exc).__name__, str(exc)


@settings(deadline=None)
@given(tied_instances(max_n=12), st.integers(1, 80), st.booleans(), st.sampled_from(_INSTANCE_MUTATIONS),
       st.integers(0, 40))
def test_instance_reader_in_chunks_equals_the_strict_reader(instance, chunk, compact, mutation, where):
    text = json.dumps(instance_to_dict(instance), indent=None if compact else 1)
    if mutation in ("output 0", "output M"):  # a rule of Request or Instance broken in one row
        value = "0" if mutation == "output 0" else str(instance.memory + 1)
        text = re.sub('"output": [0-9]+', f'"output": {value}', text, count=1 + where % 3)
    elif mutation is not None:
        old, new = mutation
        places = [k for k in range(len(text)) if text.startswith(old, k)]
        if places:
            k = places[where % len(places)]
            text = text[:k] + new + text[k + len(old):]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(model, "_CHUNK_BYTES", chunk)  # chunk boundaries at every row
        fast = _read(instance_from_text, text)
        if mutation is None:
            assert canonical_instance(text) == instance  # the chunked path was taken
    strict = _read(lambda t: instance_from_dict(loads(t, "instance"), source="instance"), text)
    assert fast == strict


# ---------------------------------------------------------------- the checker's column path

@pytest.mark.parametrize("n,arrival,early", [(1100, 2**53 - 40, True), (1100, 7, True), (5, 2**53 - 40, False)])
def test_column_path_sums_are_exact_near_int64(n, arrival, early):
    """1100 early starts of 2^53 steps each: their waits sum past -2^63, so the column path must add
    them as Python integers."""
    instance = Instance(40, [Request(f"r{k}", arrival, k % 3, 1 + k % 5) for k in range(n)])
    starts = {r.id: (0 if early else r.arrival + 6 * k) for k, r in enumerate(instance.requests)}
    fast = check_schedule(instance, starts)
    assert checker_columns(instance, starts) is not None  # the column path was the one taken
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checker, "_check_columns", lambda *args: None)
        general = check_schedule(instance, starts)
    assert fast == general and fast.feasible is not early
    assert fast.metrics.mean_wait == (-arrival * n if early else sum(6 * k for k in range(n))) / n


def checker_columns(instance, starts):
    return checker._check_columns(instance, starts, 0.0)


@pytest.mark.parametrize("spec", ["burst:n=3000", "poisson:n=3000,mu=0.2,rho=0.9", "chat:n=2000"])
def test_compiled_loop_equals_the_engine_on_generated_workloads(spec):
    from geosched.reference_impl.workloads import load_workload

    instance = load_workload(spec, seed=3)
    for policy in ("svf", "fcfs"):
        assert _compiled_result(instance, policy) == _engine_result(instance, policy)


# ---------------------------------------------------------------- the command line on columns (columns.py)

def _cli(argv, column):
    """``(exit code, stdout, stderr, column path ran)`` of ``geosched ARGV``, the column path allowed
    from one request on (``column``) or never."""
    out, err, ran = io.StringIO(), io.StringIO(), []
    real = columns.check_start_columns

    def counted(*args):
        ran.append(1)
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "COLUMN_MIN_REQUESTS", 1 if column else 10**18)
        patch.setattr(columns, "check_start_columns", counted)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(argv)
    return code, out.getvalue(), err.getvalue(), bool(ran)


def _both(argv):
    """The column path's and the general path's output, which must be the same; whether the first ran."""
    code, out, err, ran = _cli(argv, True)
    general = _cli(argv, False)
    assert not general[3]
    timeless = re.compile(r'"wall_time": [0-9.e-]+')  # the one field that may differ
    assert (code, timeless.sub("", out), err) == (general[0], timeless.sub("", general[1]), general[2])
    return ran


def _schedule_text(instance, kind, rng):
    ids = [r.id for r in instance.requests]
    if kind == "simulated":
        starts = simulation.simulate(instance, "svf").starts
    else:
        starts = {i: int(rng.integers(-3, 70)) for i in ids}  # early starts and memory violations
    if kind == "reversed":
        starts = dict(reversed(list(starts.items())))
    elif kind == "missing":
        starts.pop(ids[-1])
    elif kind == "extra":
        starts["zz"] = 0
    return json.dumps({"starts": starts})


@settings(deadline=None, max_examples=30)
@given(tied_instances(max_n=30), st.sampled_from(["simulated", "random", "reversed", "missing", "extra"]),
       st.sampled_from(["svf", "sjf", "fcfs"]), st.booleans(), st.integers(0, 2**32 - 1))
def test_cli_column_path_prints_what_the_general_path_prints(instance, kind, policy, compact, seed):
    with tempfile.TemporaryDirectory() as folder:
        path, schedule = Path(folder, "i.json"), Path(folder, "s.json")
        path.write_text(json.dumps(instance_to_dict(instance), indent=None if compact else 1) + "\n")
        schedule.write_text(_schedule_text(instance, kind, np.random.default_rng(seed)) + "\n")
        ran = _both(["check", str(path), str(schedule)])
        same_order = kind in ("simulated", "random") or (kind == "reversed" and instance.n == 1)
        assert ran == same_order  # another order or id set: the general path
        assert _both(["simulate", str(path), "--policy", policy])
        outside = [["check", str(path), str(schedule), "--json"], ["simulate", str(path), "--json"],
                   ["simulate", str(path), "--policy", "svf1"], ["simulate", str(path), "--backfill"],
                   ["check", str(path), str(schedule), "--memory", "40"]]
        assert not _both(outside[seed % len(outside)])  # outside the column path's case: the general path


_BAD_ROWS = [('"output": 3', '"output": 0'), ('"output": 3', '"output": 13'),
             ('"memory": 12', '"memory": 0'),
             ('"id": "b"', '"id": "a"'), ('"arrival": 4', f'"arrival": {2**53 + 1}'),
             ('"prompt": 1,', '"prompt": 1.0,'), ('"prompt": 1,', '"prompt": 01,')]


@pytest.mark.parametrize("old,new", [*_BAD_ROWS, ('"id": "b"', '"id": "b\\u0041"')])
def test_cli_column_path_gives_the_general_paths_error(tmp_path, old, new):
    instance = Instance(12, [Request("a", 0, 6, 3), Request("b", 4, 1, 5), Request("c", 2, 2, 2)])
    text = json.dumps(instance_to_dict(instance), indent=1)
    assert old in text
    path, schedule = tmp_path / "i.json", tmp_path / "s.json"
    path.write_text(text.replace(old, new, 1))
    schedule.write_text(json.dumps({"starts": {"a": 5, "b": 4, "c": 2}}))
    for argv in (["check", str(path), str(schedule)], ["simulate", str(path)]):
        assert not _both(argv)
        if (old, new) in _BAD_ROWS:  # the escape is valid JSON: the general path reads id "bA"
            with contextlib.redirect_stderr(io.StringIO()) as err:
                assert cli.main(argv) == 2  # a one-line error, named by the general path's reader
            assert len(err.getvalue().splitlines()) == 1


def test_cli_column_path_reads_ids_by_their_text(tmp_path):
    """Ids that differ only in where one ends and the next begins ("ab","c" against "a","bc")."""
    instance = Instance(20, [Request("ab", 0, 2, 3), Request("c", 0, 1, 2)])
    path, schedule = tmp_path / "i.json", tmp_path / "s.json"
    path.write_text(json.dumps(instance_to_dict(instance), indent=1))
    schedule.write_text(json.dumps({"starts": {"a": 0, "bc": 0}}))
    assert not _both(["check", str(path), str(schedule)])
    schedule.write_text(json.dumps({"starts": {"ab": -1, "c": 0}}))
    assert _both(["check", str(path), str(schedule)])
    instance = Instance(20, [Request("x", 0, 2, 3), Request("y", 1, 1, 2)])  # ids of one length, swapped
    path.write_text(json.dumps(instance_to_dict(instance), indent=1))
    schedule.write_text(json.dumps({"starts": {"y": 0, "x": 5}}))
    assert not _both(["check", str(path), str(schedule)])


def test_distinct_ids_where_hashes_collide():
    ids = columns.IdColumn(b"xyxz", np.array([0, 1, 2, 3, 4]))
    assert columns._distinct(ids, np.array([1, 2, 1, 3])) is False  # "x" twice
    assert columns._distinct(ids, np.array([1, 1, 1, 1])) is False
    ids = columns.IdColumn(b"abcd", np.array([0, 1, 2, 3, 4]))
    assert columns._distinct(ids, np.array([7, 7, 7, 7])) is True  # equal hashes, distinct texts


def test_check_does_not_import_numba(tmp_path):
    instance = Instance(12, [Request("a", 0, 6, 3), Request("b", 4, 1, 5)])
    path, schedule = tmp_path / "i.json", tmp_path / "s.json"
    path.write_text(json.dumps(instance_to_dict(instance), indent=1))
    schedule.write_text(json.dumps({"starts": {"a": 0, "b": 4}}))
    code = ("import sys; from geosched.reference_impl import columns; columns.COLUMN_MIN_REQUESTS = 1; "
            f"from geosched import cli; assert cli.main(['check', {str(path)!r}, {str(schedule)!r}]) == 0; "
            "print('numba' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "False"
