"""The reliability campaign's input categories of issue 21 (items 3 and 4), as data.

* ``unencodable text``: a lone surrogate (``"\\ud800"``) as a request id in every reader, as a
  schedule key, in a witness;
* ``float overflow``: vLLM timestamps past any step, ``export --step-seconds`` so large that a
  timestamp overflows a float or passes the year 9999;
* ``azure-csv export``: the export reader refuses what the trace reader refuses (``' 6'``,
  ``'+6'``, ``'6_0'``, full-width digits, garbage or contradicting TIMESTAMPs, extra fields);
* ``vllm-bench``: ``request_id`` null, a number, empty;
* ``model files``: fields coerced until now (``theta "7"``, a shape of 32.5, ``format_version
  true``...) and NaN weights (with a matching hash) given to ``predictor eval``;
* ``special files``: a FIFO, a character device and a directory as every kind of input path
  (a FIFO hung ``predictor eval`` before);
* ``API arguments``: :func:`api_cases`, bad arguments to every function ``geosched`` exports
  (the right answer is :class:`~geosched.errors.ValidationError`, or
  :class:`~geosched.errors.UnknownNameError` for an unknown name).

:func:`input_cases` gives :class:`reliability_cases.Case` objects (CLI); each one's name starts
with its category.
"""

from __future__ import annotations

import atexit
import base64
import copy
import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

CATEGORIES = ("unencodable text", "float overflow", "azure-csv export", "vllm-bench", "model files",
              "special files", "trace timestamps")
_README = {"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": 6, "output": 3},
                                      {"id": "b", "arrival": 0, "prompt": 1, "output": 5}]}
_AZ_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens,RequestId,ArrivalStep,MemoryTokens\n"
_AZ_ROW0 = "2023-11-16 00:00:00.0000000,6,3,a,0,12\n"
_AZ_ROW2 = "2023-11-16 00:00:00.0500000,1,5,b,2,12\n"  # step 2 at 0.025 s
_TRACE_CSV = ("TIMESTAMP,ContextTokens,GeneratedTokens\n"
              + "".join(f"2023-11-16 18:15:{10 + k:02d}.0000000,{100 + 7 * k},{20 + 13 * k}\n" for k in range(40)))


def _case(*args, **kwargs):
    from reliability_cases import Case

    return Case(*args, **kwargs)


def _json(data) -> str:
    # ensure_ascii keeps a lone surrogate as the escape \ud800, as another tool's JSON would
    return json.dumps(data)


def _with_id(new_id) -> str:
    data = copy.deepcopy(_README)
    data["requests"][0]["id"] = new_id
    return _json(data)


def _unencodable_cases() -> list:
    bad = _with_id("\ud800")
    jsonl = '{"format": "geosched-workload", "memory": 12}\n{"id": "\\udfff", "arrival": 0, "prompt": 6, "output": 3}\n'
    vllm = '{"timestamp": 0.0, "input_length": 7, "output_length": 3, "request_id": "\\ud800", "memory": 12}\n'
    witness = json.loads((Path(__file__).resolve().parent.parent / "docs" / "witnesses"
                          / "svf_burst_alpha0.5_ratio1.345.json").read_text())
    witness["instance"]["requests"][0]["id"] = "\ud800"
    return [
        _case("unencodable text: id in simulate", ["simulate", "w.json"], {"w.json": bad}),
        _case("unencodable text: id in opt", ["opt", "w.json", "--time-limit", "5"], {"w.json": bad}),
        _case("unencodable text: id in export azure-csv", ["export", "w.json", "--format", "azure-csv",
                                                            "--out", "o.csv"], {"w.json": bad}),
        _case("unencodable text: id in plot gantt", ["plot", "gantt", "w.json", "--out", "g.png"], {"w.json": bad}),
        _case("unencodable text: id in a jsonl workload", ["simulate", "w.jsonl"], {"w.jsonl": jsonl}),
        _case("unencodable text: request_id in a vllm-bench trace", ["simulate", "w.jsonl"], {"w.jsonl": vllm}),
        _case("unencodable text: schedule key", ["check", "w.json", "s.json"],
              {"w.json": _json(_README), "s.json": '{"starts": {"a": 5, "b": 0, "\\ud800": 1}}'}),
        _case("unencodable text: key of an instance", ["simulate", "w.json"],
              {"w.json": '{"memory": 12, "requests": [], "\\udc00": 1}'}),
        _case("unencodable text: witness id", ["check-witness", "w.json"], {"w.json": _json(witness)}),
    ]


def _float_overflow_cases() -> list:
    online = {"w.json": _json({"memory": 12, "requests": [{"id": "a", "arrival": 5, "prompt": 6, "output": 3}]})}
    late = {"w.json": _json({"memory": 12, "requests": [{"id": "a", "arrival": 2**40, "prompt": 6, "output": 3}]})}
    cases = [
        _case(f"float overflow: vllm-bench timestamp {stamp}", ["simulate", "w.jsonl"],
              {"w.jsonl": f'{{"timestamp": {stamp}, "input_length": 7, "output_length": 3, "memory": 12}}\n'})
        for stamp in ("1e308", "1.7976931348623157e308", "-1e308", "1e300", "3e14")
    ]
    huge = {"w.json": _json({"memory": 12, "requests": [{"id": "a", "arrival": 1000, "prompt": 6, "output": 3}]})}
    cases += [  # 5 * 1e300 s is a float; 1000 * 1e306 s is not; both are past the year 9999 of a TIMESTAMP
        _case("float overflow: export vllm-bench --step-seconds 1e300 (a float)",
              ["export", "w.json", "--format", "vllm-bench", "--out", "o.jsonl", "--step-seconds", "1e300"], online,
              expect="answer"),
        _case("float overflow: export vllm-bench --step-seconds 1e306",
              ["export", "w.json", "--format", "vllm-bench", "--out", "o.jsonl", "--step-seconds", "1e306"], huge),
        _case("float overflow: export azure-csv --step-seconds 1e300",
              ["export", "w.json", "--format", "azure-csv", "--out", "o.csv", "--step-seconds", "1e300"], online)]
    cases.append(_case("float overflow: export azure-csv past the year 9999",
                       ["export", "w.json", "--format", "azure-csv", "--out", "o.csv", "--step-seconds", "1"], late))
    return cases


def _azure_csv_cases() -> list:
    variants = {
        "ContextTokens ' 6'": _AZ_ROW0.replace(",6,3,", ", 6,3,"),
        "ContextTokens '+6'": _AZ_ROW0.replace(",6,3,", ",+6,3,"),
        "ContextTokens '6_0'": _AZ_ROW0.replace(",6,3,", ",6_0,3,"),
        "ContextTokens full-width": _AZ_ROW0.replace(",6,3,", ",\uff16,3,"),
        "GeneratedTokens '3 '": _AZ_ROW0.replace(",6,3,", ",6,3 ,"),
        "ArrivalStep '+0'": _AZ_ROW0.replace(",a,0,", ",a,+0,"),
        "MemoryTokens '1_2'": _AZ_ROW0.replace(",0,12", ",0,1_2"),
        "garbage TIMESTAMP": _AZ_ROW0.replace("2023-11-16 00:00:00.0000000", "yesterday"),
        "TIMESTAMP full-width year": _AZ_ROW0.replace("2023", "\uff12\uff10\uff12\uff13"),
        "TIMESTAMP contradicts ArrivalStep 0": _AZ_ROW0.replace("00:00:00.0000000", "00:00:07.0000000"),
        "TIMESTAMPs contradict each other": _AZ_ROW0 + _AZ_ROW2 + "2023-11-16 00:00:09.0000000,1,5,c,3,12\n",
        "TIMESTAMP before the epoch": _AZ_ROW2.replace("2023-11-16 00:00:00.0500000", "2023-11-15 00:00:00.0500000"),
        "extra field": _AZ_ROW0.replace(",0,12", ",0,12,9"),
        "missing field": _AZ_ROW0.replace(",0,12", ",0"),
    }
    cases = [_case(f"azure-csv export: {what}", ["simulate", "w.csv"], {"w.csv": _AZ_HEADER + row})
             for what, row in variants.items()]
    cases.append(_case("azure-csv export: extra column", ["simulate", "w.csv"],
                       {"w.csv": _AZ_HEADER.replace("\n", ",Extra\n") + _AZ_ROW0.replace("\n", ",x\n")}))
    cases.append(_case("azure-csv export: consistent rows are read", ["simulate", "w.csv"],
                       {"w.csv": _AZ_HEADER + _AZ_ROW0 + _AZ_ROW2}, expect="answer"))
    return cases


def _vllm_cases() -> list:
    def line(rid: str) -> dict:
        return {"w.jsonl": f'{{"timestamp": 0.0, "input_length": 7, "output_length": 3, "request_id": {rid}, '
                           '"memory": 12}\n'}

    return [_case(f"vllm-bench: request_id {rid}", ["simulate", "w.jsonl"], line(rid))
            for rid in ("null", "5", '""', "true", '["a"]')]


def _trace_timestamp_cases() -> list:
    def trace(first: str) -> dict:
        return {"t.csv": "TIMESTAMP,ContextTokens,GeneratedTokens\n" + f"{first},374,44\n"
                         + "2023-11-16 18:15:46.6805900,10,4\n"}

    return [
        _case("trace timestamps: year 1, online", ["simulate", "t.csv", "--arrivals", "online"],
              trace("0001-01-01 00:00:00.0000000"), expect="answer"),
        _case("trace timestamps: year 1, online at 1 us steps",
              ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "1e-6"], trace("0001-01-01 00:00:00")),
        _case("trace timestamps: year 0", ["simulate", "t.csv"], trace("0000-01-01 00:00:00")),
        _case("trace timestamps: full-width digits", ["simulate", "t.csv"],
              trace("\uff12\uff10\uff12\uff13-11-16 18:15:46")),
    ]


@functools.cache
def _shipped_model() -> dict:
    from geosched.reference_impl.predictors.artifact import default_model_path

    return json.loads(default_model_path("point").read_text())


def _model_variants() -> dict[str, str]:
    base = _shipped_model()

    def changed(edit) -> str:
        data = copy.deepcopy(base)
        edit(data)
        return json.dumps(data)

    def nan_weights(data) -> None:
        blob = bytearray(base64.b64decode(data["weights"]["data"]))
        blob[0:4] = np.array([np.nan], dtype="<f4").tobytes()
        data["weights"]["data"] = base64.b64encode(bytes(blob)).decode("ascii")
        data["weights_sha256"] = hashlib.sha256(bytes(blob)).hexdigest()  # a consistent hash: only NaN is wrong

    return {
        'theta "7"': changed(lambda d: d["head"].__setitem__("theta", str(d["head"]["theta"]))),
        "theta 7.0": changed(lambda d: d["head"].__setitem__("theta", float(d["head"]["theta"]))),
        "shape 32.5": changed(lambda d: d["weights"]["shapes"][0].__setitem__(0, d["weights"]["shapes"][0][0] + 0.5)),
        "shape -1": changed(lambda d: d["weights"]["shapes"][0].__setitem__(0, -1)),
        "format_version true": changed(lambda d: d.__setitem__("format_version", True)),
        "format_version 1.0": changed(lambda d: d.__setitem__("format_version", 1.0)),
        "feature_version true": changed(lambda d: d.__setitem__("feature_version", True)),
        "hidden [32.5]": changed(lambda d: d.__setitem__("hidden", [h + 0.5 for h in d["hidden"]])),
        'step_seconds "x"': changed(lambda d: d.__setitem__("step_seconds", "x")),
        "text_features true": changed(lambda d: d.__setitem__("text_features", True)),
        "head a list": changed(lambda d: d.__setitem__("head", [])),
        "standardize.mean strings": changed(lambda d: d["standardize"].__setitem__(
            "mean", [str(v) for v in d["standardize"]["mean"]])),
        "max_output 0": changed(lambda d: d["head"].__setitem__("max_output", 0)),
        "features a string": changed(lambda d: d.__setitem__("features", "abc")),
        "NaN weights (hash matching)": changed(nan_weights),
    }


def _overflowing_model() -> str:
    """A model whose log-length output is 3e38: finite, but exp() of it is not (clipped to max_output)."""
    data = copy.deepcopy(_shipped_model())
    blob = bytearray(base64.b64decode(data["weights"]["data"]))
    blob[-4:] = np.array([3e38], dtype="<f4").tobytes()  # the output bias
    data["weights"]["data"] = base64.b64encode(bytes(blob)).decode("ascii")
    data["weights_sha256"] = hashlib.sha256(bytes(blob)).hexdigest()
    return json.dumps(data)


def _model_cases() -> list:
    argv = ["predictor", "eval", "--trace", "t.csv", "--model", "m.json"]
    return [_case(f"model files: {what}", argv, {"t.csv": _TRACE_CSV, "m.json": text})
            for what, text in _model_variants().items()] + [
        _case("model files: overflowing output (hash matching)", argv,
              {"t.csv": _TRACE_CSV, "m.json": _overflowing_model()}, expect="answer")]


@functools.cache
def _special_folder() -> Path:
    """A FIFO, a link to a character device and a directory under each name an input may have."""
    folder = Path(tempfile.mkdtemp(prefix="geosched-special-"))
    atexit.register(shutil.rmtree, folder, True)  # no leftovers in /tmp
    for suffix in (".json", ".jsonl", ".csv"):
        os.mkfifo(folder / f"fifo{suffix}")
        (folder / f"zero{suffix}").symlink_to("/dev/zero")
        (folder / f"dir{suffix}").mkdir()
    return folder


def _special_cases() -> list:
    folder = _special_folder()
    cases = []
    for kind in ("fifo", "zero", "dir"):
        name = {"fifo": "a FIFO", "zero": "a link to /dev/zero", "dir": "a directory"}[kind]
        json_path, csv_path, jsonl_path = (str(folder / f"{kind}{s}") for s in (".json", ".csv", ".jsonl"))
        cases += [
            _case(f"special files: {name} as the workload", ["simulate", json_path]),
            _case(f"special files: {name} as a trace", ["simulate", csv_path]),
            _case(f"special files: {name} as a jsonl workload", ["simulate", jsonl_path]),
            _case(f"special files: {name} as the schedule", ["check", "w.json", json_path],
                  {"w.json": _json(_README)}),
            _case(f"special files: {name} as the witness", ["check-witness", json_path]),
            _case(f"special files: {name} as the model", ["predictor", "eval", "--trace", "t.csv", "--model",
                                                          json_path], {"t.csv": _TRACE_CSV}),
            _case(f"special files: {name} as the training trace", ["predictor", "eval", "--trace", csv_path]),
        ]
    return cases


def input_cases() -> list:
    """Every CLI case of this module's categories."""
    return (_unencodable_cases() + _float_overflow_cases() + _azure_csv_cases() + _vllm_cases()
            + _trace_timestamp_cases() + _model_cases() + _special_cases())


# ---------------------------------------------------------------- the public API


def api_cases() -> list[tuple[str, str, tuple, dict]]:
    """``(label, public name, args, kwargs)``: bad arguments to every function geosched exports."""
    import geosched as gs

    inst = gs.Instance(12, [gs.Request("a", 0, 6, 3), gs.Request("b", 0, 1, 5)])
    cases = [
        ("Instance: requests an int", "Instance", (12, 5), {}),
        ("Instance: memory a str", "Instance", ("12", []), {}),
        ("Request: id an int", "Request", (5, 0, 1, 1), {}),
        ("Request: output 1.5", "Request", ("a", 0, 1, 1.5), {}),
        ("Request: id a lone surrogate", "Request", ("\ud800", 0, 1, 1), {}),
    ]
    wrong = {
        "simulate": [(("burst:n=3",), {}), ((inst, 5), {}), ((inst,), {"backfill": 1}), ((inst,), {"predictor": 3}),
                     ((inst,), {"observer": 3}), ((inst,), {"zzz": 1}), ((), {})],
        "compare": [(("x",), {}), ((inst, "svf"), {}), ((inst,), {"time_limit": -1}), ((inst,), {"opt": "yes"}),
                    ((inst,), {"time_limit": float("nan")})],
        "check_schedule": [(("x", {}), {}), ((inst, [0, 1]), {}), ((inst, {"a": 5, "b": 0}), {"evicted_segments": 3})],
        "solve_opt": [((None,), {}), ((inst,), {"time_limit": -1}), ((inst,), {"seed": True}),
                      ((inst,), {"method": 5}), ((inst,), {"warm_start": [1]})],
        "lower_bound": [(([],), {}), ((inst,), {"chain": "no"})],
        "run_claims": [(("kong.thm3.2",), {}), ((), {"seed": -1}), ((), {"thorough": 1}), (([3],), {})],
        "derivation": [((5,), {}), ((None,), {})],
        "hunt": [(("x",), {}), ((), {})],
        "verify_witness": [(("x",), {}), ((None,), {})],
        "load_workload": [((5,), {}), (("burst:n=3",), {"seed": True}), (("burst:n=3",), {"memory": 2.5}),
                          (("burst:n=3",), {"step_seconds": -1})],
        "generate": [((5,), {}), (("burst",), {"n": 2.5}), (("burst",), {"seed": True}), (("burst",), {"n": "3"})],
    }
    for name, calls in wrong.items():
        cases += [(f"{name}: {args!r} {kwargs!r}"[:100], name, args, kwargs) for args, kwargs in calls]
    return cases


def bound_at_cases() -> list[tuple[str, str, dict]]:
    """``(label, claim id, values)`` that ``derivation(claim).bound_at(**values)`` must refuse."""
    return [(f"bound_at {claim} {values!r}", claim, values) for claim, values in (
        ("kong.thm3.2", {"alpha": 2}), ("kong.thm3.2", {"alpha": 1}), ("kong.thm3.2", {"alpha": -0.5}),
        ("kong.thm3.2", {"alpha": float("nan")}), ("kong.thm3.2", {"alpha": "x"}), ("kong.thm3.2", {"alpha": True}),
        ("kong.thm3.4", {"alpha": 0.5, "mu": 0, "rho": 0.5}), ("kong.thm3.4", {"alpha": 0.5, "mu": 0.5, "rho": 1}),
        ("kong.thm3.5", {"q": 0.5, "theta": 1.5}), ("kong.thm3.5", {"q": 1, "theta": 2}),
        ("kong.volume", {"o": 0, "s": 1}), ("kong.thm3.2", {"beta": 0.5}))]


def run_api_case(name: str, args: tuple, kwargs: dict) -> tuple[str, str]:
    """``(outcome, detail)``: ``clean error`` (ValidationError, or UnknownNameError naming the
    known names), ``accepted`` (no error) or ``traceback`` (any other exception)."""
    import geosched as gs
    from geosched.errors import UnknownNameError, ValidationError

    try:
        getattr(gs, name)(*args, **kwargs)
    except (ValidationError, UnknownNameError) as exc:
        return "clean error", str(exc)
    except Exception as exc:  # noqa: BLE001 - what the campaign counts
        return "traceback", f"{type(exc).__name__}: {exc}"[:300]
    return "accepted", ""


def run_bound_at_case(claim: str, values: dict) -> tuple[str, str]:
    import geosched as gs
    from geosched.errors import ValidationError

    try:
        result = gs.derivation(claim).bound_at(**values)
    except ValidationError as exc:
        return "clean error", str(exc)
    except Exception as exc:  # noqa: BLE001
        return "traceback", f"{type(exc).__name__}: {exc}"[:300]
    return "accepted", f"returned {result}"
