"""Issue 21, items 3-5 and 8: inputs and the public API.

* the public API: every function ``geosched`` exports refuses a bad argument with
  :class:`~geosched.errors.ValidationError` (never ``TypeError``/``AttributeError``), and
  ``bound_at`` refuses values outside its symbols' domains;
* readers: a FIFO, a device or a directory is refused before it is opened; every export is read
  back exactly by the strict readers (the azure-csv TIMESTAMP check never refuses our own file);
  lone surrogates, NaN model outputs, coerced model-file fields are errors;
* ``local:N``: no HTTP listener, and a client without the run's TLS certificates cannot connect;
* the fast instance reader gives exactly the strict reader's instance.

The campaign's CLI cases of these categories are in ``tests/reliability_inputs.py`` and run by
``tests/test_reliability.py::test_campaign_case``.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import socket
import threading
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_inputs import api_cases, bound_at_cases, run_api_case, run_bound_at_case

import geosched as gs
from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.reference_impl.formats import read_workload_file, workload_text, write_workload
from geosched.reference_impl.jsonfile import loads, read_text
from geosched.reference_impl.model import Instance, Request
from geosched.testing import instances

SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
                    deadline=None)


# ---------------------------------------------------------------- the public API


@pytest.mark.parametrize("label, name, args, kwargs", api_cases(), ids=[c[0] for c in api_cases()])
def test_a_bad_api_argument_is_a_validation_error(label, name, args, kwargs):
    outcome, detail = run_api_case(name, args, kwargs)
    assert outcome == "clean error", f"{label}: {outcome} {detail}"


@pytest.mark.parametrize("label, claim, values", bound_at_cases(), ids=[c[0] for c in bound_at_cases()])
def test_bound_at_refuses_values_outside_the_domain(label, claim, values):
    outcome, detail = run_bound_at_case(claim, values)
    assert outcome == "clean error", f"{label}: {outcome} {detail}"


def test_bound_at_still_answers_inside_the_domain():
    assert gs.derivation("kong.thm3.2").bound_at(alpha=0.5) == 5  # 1 + 2/(1 - 1/2)
    assert gs.derivation("kong.thm3.2").bound_at(alpha=0) == 3


_INSTANCE = Instance(12, [Request("a", 0, 6, 3), Request("b", 0, 1, 5)])
# valid arguments for every required parameter; each test replaces exactly one argument by a bad value
_VALID = {
    "simulate": {"instance": _INSTANCE},
    "compare": {"instance": _INSTANCE},
    "check_schedule": {"instance": _INSTANCE, "starts": {"a": 5, "b": 0}},
    "solve_opt": {"instance": _INSTANCE},
    "lower_bound": {"instance": _INSTANCE},
    "run_claims": {"claim_ids": ["kong.volume"]},
    "derivation": {"claim_id": "kong.thm3.2"},
    "hunt": {"space": None},  # filled in by _valid (imports the adversary)
    "verify_witness": {"data": {}},
    "load_workload": {"spec": "burst:n=3"},
    "generate": {"name": "burst"},
}
# arguments whose check is the function's own (an executor spec, a progress callback)
_SELF_CHECKED = {"progress", "executor", "params"}
# values no parameter of the public API accepts
_BAD = st.sampled_from([object(), b"bytes", 1j, frozenset({1}), Ellipsis, float("nan"), float("-inf")])


def _parameters() -> list[tuple[str, str]]:
    pairs = []
    for name in _VALID:
        function = getattr(gs, name)
        for parameter in inspect.signature(function).parameters:
            if parameter not in _SELF_CHECKED:
                pairs.append((name, parameter))
    return pairs


@given(pair=st.sampled_from(_parameters()), bad=_BAD)
@SETTINGS
def test_every_parameter_of_every_public_function_is_checked(pair, bad):
    name, parameter = pair
    kwargs = dict(_VALID[name])
    if name == "hunt":
        from geosched.adversary.search import SearchSpace

        kwargs["space"] = SearchSpace("sjf", max_requests=2, memory=4)
    kwargs[parameter] = bad
    with pytest.raises((ValidationError, UnknownNameError)) as caught:
        getattr(gs, name)(**kwargs)
    assert parameter in str(caught.value) or isinstance(caught.value, UnknownNameError)


@pytest.mark.parametrize("name", ["simulate", "compare", "check_schedule", "solve_opt", "lower_bound", "run_claims",
                                  "derivation", "hunt", "verify_witness", "load_workload", "generate"])
def test_every_parameter_has_a_check(name):
    from geosched.api import WRAPPED, unchecked

    assert name in WRAPPED and unchecked(name) == []


def test_the_wrappers_keep_the_functions_answers():
    assert gs.simulate(_INSTANCE, "svf").starts == {"a": 5, "b": 0}
    assert gs.check_schedule(_INSTANCE, {"a": 0, "b": 3}).metrics.tel == 11
    assert gs.simulate.__wrapped__.__module__ == "geosched.engines"  # engine="python": the simulator's


# ---------------------------------------------------------------- readers


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "w.json"
    os.mkfifo(fifo)
    result: list[BaseException | None] = []

    def read() -> None:
        try:
            read_text(fifo)
            result.append(None)
        except WorkloadFormatError as exc:
            result.append(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(60)  # a generous bound on a loaded machine; a blocked open never returns
    if thread.is_alive():  # unblock the reader so that the test process can end
        with open(fifo, "w"):
            pass
    assert result and isinstance(result[0], WorkloadFormatError) and "FIFO" in str(result[0])


@pytest.mark.parametrize("path, kind", [("/dev/zero", "character device"), (".", "directory")])
def test_devices_and_directories_are_refused(path, kind):
    with pytest.raises(WorkloadFormatError, match=kind):
        read_text(path)


def test_a_lone_surrogate_is_refused_in_json_text_and_in_a_request():
    with pytest.raises(WorkloadFormatError, match=r"requests\[0\]\.id"):
        loads('{"requests": [{"id": "\\ud800"}]}', "demo")
    with pytest.raises(WorkloadFormatError, match="key"):
        loads('{"\\udc00": 1}', "demo")
    assert loads('{"id": "\\ud83d\\ude00"}', "demo") == {"id": "\U0001F600"}  # a surrogate *pair* is text
    with pytest.raises(ValidationError, match="id"):
        Request("\udfff", 0, 1, 1)


@given(inst=instances(max_n=6, max_arrival=10**6, plain_ids=False),
       step=st.sampled_from([0.025, 1, 1e-7, 0.1, 3.3, 1e-3, 7, 0.99999996]))
@SETTINGS
def test_every_export_reads_back_exactly(tmp_path, inst, step):
    for fmt, suffix in (("azure-csv", ".csv"), ("jsonl", ".jsonl"), ("vllm-bench", ".jsonl")):
        path = tmp_path / f"w-{fmt}{suffix}"
        write_workload(inst, path, fmt, step_seconds=step)
        assert read_workload_file(path, step_seconds=step) == inst


def test_an_azure_timestamp_is_exact_at_a_rounding_edge(tmp_path):
    # 0.99999996 s rounds up to the next second: the old writer wrote ".0000000" beside the old second
    inst = Instance(10, [Request("a", 0, 1, 1), Request("b", 1, 1, 1)])
    text = workload_text(inst, "azure-csv", step_seconds=0.99999996)
    assert "2023-11-16 00:00:01.0000000" in text
    path = tmp_path / "w.csv"
    path.write_text(text)
    assert read_workload_file(path) == inst


def test_export_refuses_what_would_overflow():
    inst = Instance(10, [Request("a", 1000, 1, 1)])
    for fmt in ("vllm-bench", "azure-csv"):  # 1000 * 1e306 s is past a float; 1e300 s past the year 9999
        for step in (1e306, 1e300):
            if fmt == "azure-csv" or step == 1e306:
                with pytest.raises(ValidationError, match="step_seconds"):
                    workload_text(inst, fmt, step_seconds=step)
    assert json.loads(workload_text(inst, "vllm-bench", step_seconds=1e300))["timestamp"] == 1e303


def test_a_year_one_trace_timestamp_is_read_exactly():
    from geosched.reference_impl.formats import parse_trace_timestamp

    assert parse_trace_timestamp("0001-01-01 00:00:00", "t") == Decimal(-62135596800)
    assert parse_trace_timestamp("1970-01-01 00:00:01.25", "t") == Decimal("1.25")


def _shipped_point_model() -> dict:
    from geosched.reference_impl.predictors.artifact import default_model_path

    return json.loads(default_model_path("point").read_text())


@pytest.mark.parametrize("edit", [
    lambda d: d["head"].__setitem__("theta", str(d["head"]["theta"])),
    lambda d: d.__setitem__("format_version", True),
    lambda d: d["weights"]["shapes"][0].__setitem__(0, d["weights"]["shapes"][0][0] + 0.5),
    lambda d: d.__setitem__("hidden", [float(h) for h in d["hidden"]]),
    lambda d: d["head"].__setitem__("edges", [3, 2]),
])
def test_model_files_are_checked_not_coerced(edit):
    from geosched.reference_impl.predictors.artifact import ModelFileError, model_from_dict

    data = _shipped_point_model()
    model_from_dict(json.loads(json.dumps(data)), "m")  # the untouched file loads
    edit(data)
    with pytest.raises(ModelFileError):
        model_from_dict(data, "m")


def test_nan_from_a_model_is_an_error_not_a_number():
    from geosched.reference_impl.predictors.metrics import PredictionSet, evaluate_predictions

    with pytest.raises(ValidationError, match="point"):
        evaluate_predictions("x", np.array([1, 2]), PredictionSet(point=np.array([1.0, np.nan])), theta=1)
    pytest.importorskip("torch")
    from geosched.reference_impl.predictors.artifact import load_default_model

    model = load_default_model("point")
    weights = tuple(np.full_like(w, np.nan) if k == 0 else w for k, w in enumerate(model.weights))
    broken = type(model)(**{**{f: getattr(model, f) for f in ("kind", "features", "text_features", "step_seconds",
                                                            "mean", "std", "hidden", "theta", "short_length",
                                                            "long_length", "max_output", "edges")},
                            "weights": weights})
    with pytest.raises(ValidationError, match="finite"):
        broken.prediction_set(np.zeros((3, broken.inputs)))


# ---------------------------------------------------------------- local:N


def _listening_ports(pids: set[int]) -> set[int]:
    psutil = pytest.importorskip("psutil")
    ports = set()
    for pid in pids:
        for connection in psutil.Process(pid).net_connections(kind="inet"):
            if connection.status == psutil.CONN_LISTEN:
                ports.add(connection.laddr.port)
    return ports


def _answers_http(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"GET /health HTTP/1.0\r\nHost: localhost\r\n\r\n")
        conn.settimeout(5)
        try:
            return conn.recv(16).startswith(b"HTTP/")
        except (TimeoutError, ConnectionError):
            return False


_STRANGER = """
import sys
import distributed
address, kind = sys.argv[1], sys.argv[2]
kwargs = dict(address=address)
if kind == "plain":
    kwargs["address"] = address.replace("tls://", "tcp://")
elif kind == "other-ca":
    kwargs["security"] = distributed.security.Security.temporary()
try:
    with distributed.Client(timeout="5s", **kwargs) as client:
        print("RAN", client.submit(sum, [1]).result(timeout=5))
except Exception as exc:  # a refusal of any kind (Dask raises OSError, TypeError, CommClosedError by version)
    print("REFUSED", type(exc).__name__)
"""


def _stranger_ran(address: str, kind: str) -> bool:
    """Whether a client in another process, without this run's certificates, got work done.

    It runs in its own process with a time limit: a connection attempt that hangs is a refusal
    too (no work was done), and it must not hang the suite.
    """
    import subprocess
    import sys

    try:
        proc = subprocess.run([sys.executable, "-c", _STRANGER, address, kind], capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired:
        return False
    return "RAN" in proc.stdout


def test_local_cluster_has_no_http_listener_and_refuses_strangers(monkeypatch):
    pytest.importorskip("distributed")
    pytest.importorskip("cryptography")
    psutil = pytest.importorskip("psutil")
    from tornado.httpserver import HTTPServer

    from geosched.executor import make_executor

    bound = []  # an HTTP listener of the scheduler (in this process), even for a moment during start-up
    monkeypatch.setattr(HTTPServer, "listen", lambda self, *args, **kwargs: bound.append(args or kwargs))
    with make_executor("local:2") as pool:
        assert bound == []
        assert pool.submit(sum, [1, 2]).result() == 3
        me = psutil.Process()
        ports = _listening_ports({me.pid} | {p.pid for p in me.children(recursive=True)})
        assert ports and 8787 not in ports
        assert not [port for port in ports if _answers_http(port)]
        address = pool.client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        for kind in ("no-certificate", "plain", "other-ca"):
            assert not _stranger_ran(address, kind), kind


def test_the_stranger_probe_can_see_work_done():
    """Non-vacuity of the refusal test: the same probe, on a cluster without TLS, reports work done."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1", protocol="tcp://",
                                  dashboard_address=None) as cluster:
        assert _stranger_ran(cluster.scheduler_address, "no-certificate")


# ---------------------------------------------------------------- the fast instance reader (item 8)


def _outcome(read, text: str):
    try:
        return ("instance", read(text))
    except ValidationError as exc:  # WorkloadFormatError is not one: the classes are compared too
        return ("ValidationError", str(exc))
    except WorkloadFormatError as exc:
        return ("WorkloadFormatError", str(exc))


def _strict(text: str):
    from geosched.reference_impl.model import instance_from_dict

    return instance_from_dict(loads(text, "t"), source="t")


def _fast(text: str):
    from geosched.reference_impl.model import instance_from_text

    return instance_from_text(text, "t")


_MUTATIONS = [
    ('"arrival": ', '"arrival": 0'),  # a leading zero: not JSON
    ('"output": ', '"output": -'),
    ('"output": ', '"output": 0, "output": '),  # a duplicate key
    ('"prompt": ', '"prompt": 1e1, "x": '),
    ('"id": "', '"id": "\\u00e9'),  # an escape: the id is decoded by the strict reader only
    ('"id": "', '"id": "\\ud800'),
    ("}", "},"),  # a trailing comma after some object
    ('{"id"', '{"id": "x", "id"'),
    (", ", ",\u00a0"),  # a non-JSON space
    ('"memory": ', '"memory": 1'),
    ('"output": ', '"output": 9999'),  # a peak past M
    ('"requests": [', '"requests": [{"id": "r0", "arrival": 0, "prompt": 0, "output": 1}, '),  # a duplicate id
]


@given(inst=instances(max_n=8, max_memory=40, max_arrival=50), compact=st.booleans(),
       mutation=st.sampled_from([None, "same ids", "an output 0", *_MUTATIONS]), where=st.integers(0, 30))
@SETTINGS
def test_the_fast_reader_gives_the_strict_readers_instance(inst, compact, mutation, where):
    from geosched.reference_impl.model import canonical_instance, instance_to_dict

    text = json.dumps(instance_to_dict(inst), indent=None if compact else 1)
    if mutation is None:
        assert canonical_instance(text) == inst  # the fast path is taken, and exact
    elif mutation == "same ids":
        text = re.sub('"id": "[^"]*"', '"id": "dup"', text)
    elif mutation == "an output 0":
        text = re.sub('"output": [0-9]+', '"output": 0', text, count=1 + where % 3)
    else:
        old, new = mutation
        places = [k for k in range(len(text)) if text.startswith(old, k)]
        if places:
            k = places[where % len(places)]
            text = text[:k] + new + text[k + len(old):]
    assert _outcome(_fast, text) == _outcome(_strict, text)


def test_the_fast_reader_is_used_for_instance_files(tmp_path, monkeypatch):
    from geosched.reference_impl import model
    from geosched.reference_impl.model import write_instance

    inst = Instance(40, [Request(f"r{k}", k, k % 5, 1 + k % 7) for k in range(50)])
    write_instance(inst, tmp_path / "w.json")
    monkeypatch.setattr(model, "instance_from_dict", None)  # the strict path would fail now
    assert read_workload_file(tmp_path / "w.json") == inst
    assert model.read_instance(tmp_path / "w.json") == inst


@given(inst=instances(max_n=7, max_memory=30, max_arrival=20),
       shifts=st.lists(st.integers(-6, 40), min_size=7, max_size=7), burst_all=st.booleans())
@SETTINGS
def test_the_checkers_column_path_gives_the_general_report(inst, shifts, burst_all, monkeypatch):
    from geosched.reference_impl import checker

    starts = {r.id: (0 if burst_all else r.arrival + shift) for r, shift in zip(inst.requests, shifts)}
    fast = checker.check_schedule(inst, starts)
    assert checker._check_columns(inst, starts, 0.0) is not None  # the column path was the one taken
    with monkeypatch.context() as patch:
        patch.setattr(checker, "_check_columns", lambda *args: None)
        general = checker.check_schedule(inst, starts)
    assert fast == general  # status, message, every violation, every metric (wall time aside)
    assert fast.metrics.latencies == general.metrics.latencies and list(fast.metrics.latencies) == [
        r.id for r in inst.requests]
    if min(starts.values()) >= 0:
        assert fast.memory_profile().tolist() == general.memory_profile().tolist()
