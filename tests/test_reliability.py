"""Issue 11: bad input to any command is one line on stderr, exit 2, no traceback, no file changed;
extreme valid input gets exact numbers or a clean refusal; a tampered witness is never accepted
with a number that is not true.

* ``test_campaign_case``: every case of ``tests/reliability_cases.py`` (the campaign's list; with
  issue 30's work-bound categories of ``tests/reliability_bound_cases.py``: size bombs, a sleeping
  ``decide()``, malformed decisions, a non-Dask peer, SIGTERM: select them with
  ``-k "bombs or sleeping or decisions or Dask or SIGTERM"``);
* the property tests draw malformed instances, schedules, traces, witnesses, generator specs
  and flag values, and feed them to every command of the parser;
* ``test_tampered_witness``: every field of a real witness changed, removed, duplicated or
  set to NaN/Infinity/null; each is rejected (exit 1), malformed (exit 2), or accepted with
  numbers an independent implementation re-derives (``tests/stepwise_reference.py`` for the
  policy, a per-step memory sum for the witness schedule).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from cli_harness import run_cli, write_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_cases import (
    CSV_HEADER,
    CSV_ROW,
    README,
    ROOT,
    TAMPER_OK,
    WITNESS,
    all_cases,
    classify,
    json_paths,
    remove_at,
    run_case,
    set_at,
    tamper_verdict,
    tampers,
    with_literal,
)

from geosched.adversary.witness import OPTIONAL_KEYS
from geosched.cli import build_parser, main
from geosched.errors import GeoschedError
from geosched.testing import instances, traces

CASES = all_cases()
GOOD_OUTCOMES = ("clean error", "answered", "refused cleanly")
# the property tests write into one folder per example: function-scoped tmp_path is shared
SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
                    deadline=None)


def _run_clean(tmp_path: Path, argv: list[str], files) -> None:
    """Run in a fresh subfolder and require a clean error."""
    folder = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    write_files(folder, files)
    run = run_cli(argv, folder)
    assert run.clean_error, f"geosched {' '.join(map(str, argv))}: {run.describe()}"


# ---------------------------------------------------------------- the campaign's cases


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_campaign_case(case, tmp_path):
    if case.needs is not None:
        pytest.importorskip(case.needs)
    write_files(tmp_path, case.files)
    outcome, detail = classify(case, run_case(case, tmp_path))
    assert outcome in GOOD_OUTCOMES, f"{outcome}: {detail}"


def test_campaign_names_are_unique():
    assert len({c.name for c in CASES}) == len(CASES)


# ---------------------------------------------------------------- every command


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
                    yield from _commands(sub, prefix + (name,))
                else:
                    yield prefix + (name,), sub


COMMANDS = dict(_commands(build_parser()))
GOOD_TRACE = CSV_HEADER + CSV_ROW * 3
# a minimal valid command line of each command (the files it reads are written first)
BASE = {
    ("simulate",): ["simulate", "example"],
    ("compare",): ["compare", "example"],
    ("opt",): ["opt", "example", "--time-limit", "1"],
    ("check",): ["check", "i.json", "s.json"],
    ("claims",): ["claims", "--claim", "kong.volume"],
    ("prove",): ["prove", "kong.volume"],
    ("hunt",): ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--time", "0.5", "--quiet"],
    ("hunt-small",): ["hunt-small", "--policy", "svf", "--requests", "3", "--memory-range", "6", "8", "--alpha-min",
                      "0.5", "--alpha-max", "0.75", "--evals", "40"],
    ("check-witness",): ["check-witness", "w.json"],
    ("family",): ["family", "sjf-blocking", "--size", "3"],
    ("z3-bisect",): ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8", "--max-prompt", "2",
                     "--max-output", "2"],
    ("predictor", "train"): ["predictor", "train", "--trace", "t.csv", "--kind", "point", "--out", "m.json"],
    ("predictor", "eval"): ["predictor", "eval", "--trace", "t.csv"],
    ("plot",): ["plot", "memory", "--out", "p.png"],
    ("lessons",): ["lessons", "--out", "L"],
    ("completion",): ["completion", "bash"],
    ("export",): ["export", "w.json", "--format", "jsonl", "--out", "o.jsonl"],
    ("vllm-diff",): ["vllm-diff", "burst:n=3", "--no-shrink"],
    ("serve-model",): ["serve-model", "w.json", "--timeout", "1"],
    ("cluster",): ["cluster", "chat:n=20", "--replicas", "2xunit"],
}
BASE_FILES = {"i.json": README, "s.json": '{"r0": 0, "r1": 1}', "t.csv": GOOD_TRACE,
              "w.json": (ROOT / "docs" / "witnesses" / "svf_burst_alpha0.5_ratio1.345.json").read_text()}


def test_every_command_has_a_base_line():
    """A new command must join the property tests (add its minimal command line to BASE)."""
    assert set(COMMANDS) == set(BASE)


# ---------------------------------------------------------------- --seed only where a random thing reads it

# issue 36 item 5: each command that takes --seed, and where the value goes (traced in the handlers): the
# module attribute it reaches and how to read the seed off that call
_KW = ("seed",)
SEED_CONSUMERS = {
    ("simulate",): (["simulate", "burst:n=3", "--predictor", "noisy"],
                    [("geosched.reference_impl.workloads", "load_workload", _KW),
                     ("geosched.reference_impl.predictors", "make_predictor", _KW)]),
    ("compare",): (["compare", "burst:n=3", "--policies", "svf", "--predictor", "onebit"],
                   [("geosched.reference_impl.workloads", "load_workload", _KW),
                    ("geosched.reference_impl.predictors", "make_predictor", _KW)]),
    ("opt",): (["opt", "burst:n=3"], [("geosched.reference_impl.workloads", "load_workload", _KW)]),
    ("check",): (["check", "burst:n=3", "s.json"], [("geosched.reference_impl.workloads", "load_workload", _KW)]),
    ("export",): (["export", "burst:n=3", "--format", "jsonl", "--out", "o.jsonl"],
                  [("geosched.reference_impl.workloads", "load_workload", _KW)]),
    ("plot",): (["plot", "memory", "burst:n=3", "--out", "p.png"],
                [("geosched.reference_impl.workloads", "load_workload", _KW)]),
    ("vllm-diff",): (["vllm-diff", "burst:n=3"], [("geosched.reference_impl.workloads", "load_workload", _KW)]),
    ("cluster",): (["cluster", "chat:n=20", "--replicas", "2xunit", "--router", "p2c"],
                   [("geosched.reference_impl.workloads", "load_workload", _KW),
                    ("geosched.reference_impl.cluster.simulator", "simulate_cluster", _KW)]),
    ("hunt",): (["hunt", "--policy", "sjf"], [("geosched.adversary.hunt", "hunt", _KW)]),
    ("hunt-small",): (["hunt-small", "--policy", "svf", "--alpha-min", "0.5", "--alpha-max", "0.75"],
                      [("geosched.adversary.smalln", "small_search", ("rng",))]),
    ("claims",): (["claims", "--claim", "kong.volume"], [("geosched.verify.ledger", "run_claims", _KW)]),
    ("predictor", "train"): (["predictor", "train", "--trace", "t.csv", "--kind", "point", "--out", "m.json"],
                             [("geosched.reference_impl.predictors.training", "train_model", (1, "seed"))]),
}


def test_seed_is_an_option_exactly_where_a_command_reads_it(capsys):
    """--seed parses where a command reads it; elsewhere (prove, check-witness, family, z3-bisect,
    predictor eval, serve-model, lessons, completion: nothing random) it is refused in one line
    that names the option and the command, exit 2, before any work."""
    with_seed = {c for c, p in COMMANDS.items() if any("--seed" in a.option_strings for a in p._actions)}
    assert with_seed == set(SEED_CONSUMERS)
    for command in COMMANDS:
        argv = BASE[command] + ["--seed", "1"]
        if command in SEED_CONSUMERS:
            assert build_parser().parse_args(argv).seed == 1
            continue
        with pytest.raises(SystemExit) as info:
            main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1, (argv, err)
        assert err.startswith(f"geosched: error: {' '.join(command)}: unrecognized arguments: --seed 1 "), err


class _Reached(GeoschedError):
    """Raised by the last consumer's spy: the command stops there, its seed seen."""


@pytest.mark.parametrize("command", sorted(SEED_CONSUMERS), ids=" ".join)
def test_seed_reaches_the_random_thing(command, tmp_path, monkeypatch):
    """--seed 7 arrives at each consumer the table names (the last one stops the command: no work done)."""
    import importlib

    argv, consumers = SEED_CONSUMERS[command]
    write_files(tmp_path, BASE_FILES)
    monkeypatch.chdir(tmp_path)
    seen = []
    for index, (module_name, name, where) in enumerate(consumers):
        module = importlib.import_module(module_name)
        real, last = getattr(module, name), index == len(consumers) - 1

        def spy(*args, _real=real, _last=last, _where=where, _name=name, **kwargs):
            seen.append((_name, getattr(args[_where[0]], _where[1]) if len(_where) == 2 else kwargs.get(_where[0])))
            if _last:
                raise _Reached(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, spy)
    assert main([*argv, "--seed", "7", "--quiet"]) == 2
    assert seen == [(name, 7) for _, name, _ in consumers]


# values that no typed flag accepts, by the flag's type
_NOT_INTEGERS = ["abc", "1.5", "1e3", "\u0661\u0662", "1_0", "", "0x10", "5 5", "+-3", "NaN"]
BAD_VALUES = {
    "integer": _NOT_INTEGERS,
    "positive_int": _NOT_INTEGERS + ["0", "-1", "-9223372036854775808"],
    "non_negative_int": _NOT_INTEGERS + ["-1", str(2**63), str(2**200)],
    "positive_float": ["abc", "nan", "inf", "-inf", "1e400", "0", "-1", "", "1,5"],
    "seconds": ["abc", "nan", "inf", "-inf", "1e400", "0", "-1", "", "1,5", "1e30", "604801"],  # a week at most
    "scheduler_file_spec": ["", "evil.Evil", "evil:Evil", "x.py", "x.py:", "x.py:1a", "x.py:A B"],  # FILE.py:Class
    "non_negative_float": ["abc", "nan", "inf", "-inf", "1e400", "-1", "", "1,5"],
    "dotted_name": ["", "nope", "a..b", "1a.B", "a.b c", ".x"],
    "finite_float": ["abc", "nan", "inf", "-inf", "1e400", ""],
    "unit_fraction": ["abc", "nan", "inf", "0", "1", "-0.5", "1.5", ""],
    "probability_level": ["abc", "nan", "inf", "0", "-0.5", "1.5", ""],
    "cluster_spec": ["", "dask", "local:0", "local:", "local:x", "udp://h:8786", "tcp://h", "tcp://h:0",
                     "tcp://h:65536"],
}
# string flags whose values are parsed by the command (bad values per flag)
BAD_STRINGS = {
    "--policy": ["lifo", "svf:k=1", "svf1:theta=0", "svf1:theta=nan", "svf1:theta=1.5", ":", "svf:=", "svf1:theta"],
    "--policies": ["svf,nope", ",", " , ", "svf:x=1"],
    "--predictor": ["nope", "noisy:sigma=-1", "noisy:sigma=nan", "noisy:seed=-1", "noisy:bogus=1",
                    "onebit:flip_rate=2", "onebit:theta=0", "learned:kind=nope", "learned:model=missing.json",
                    "noisy:sigma=1,sigma=2"],
    "--method": ["nope"],
    "--alpha-max": ["x", "1/0", "0", "-1/2", "3/2"],
    "--alpha-min": ["x", "1/0", "0", "-1/2", "3/2"],
    "--hi": ["abc", "0", "1", "1/0", "-2"],
    "--lo": ["abc", "0", "1/2", "1/0", "-2", "9"],
    "--param": ["q", "q=", "=2", "nope=2", "q=abc", "q=0"],
    "--scheduler": ["nope", "nope.Scheduler", "geosched.Nope", "os.path", "geosched.errors.ValidationError"],
    "--replicas": ["", "0xunit", "2xnope", "x", "2x", "-1xunit", "2xunit,"],
    "--local": ["nope", "svf:k=1", ":"],
    "--sizes": ["abc", "0:100", "5:1", "", "1,,x"],
    "--family": ["nope"],
    "--claim": ["nope"],
    "--features": ["nope", ","],
    "--model": ["missing.json", "i.json", "nope"],  # predictor files, cluster model names
    "--schedule": ["missing.json"],
    "--trace": ["missing.csv", "s.json"],  # a schedule is no workload (an instance file is one)
    "--witnesses": ["missing", "i.json"],  # plot ratio-curve: a folder of witness files
}


def _flag_cases():
    cases = []
    for command, parser in COMMANDS.items():
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            flag = action.option_strings[0]
            type_name = getattr(action.type, "__name__", None)
            values = list(BAD_VALUES.get(type_name, []))
            if action.choices:
                values.append("nope")
            values += BAD_STRINGS.get(flag, [])
            cases += [(command, flag, value) for value in values]
    return cases


FLAG_CASES = _flag_cases()


def test_every_typed_flag_has_bad_values():
    """Each flag that takes a value is exercised, unless it is a free name (a path to write, a label)."""
    covered = {(command, flag) for command, flag, _ in FLAG_CASES}
    free = {"--out"}
    for command, parser in COMMANDS.items():
        for action in parser._actions:
            if action.option_strings and action.nargs != 0 and action.option_strings[0] not in free:
                assert (command, action.option_strings[0]) in covered, (command, action.option_strings)


# flags that only some modes read: exercised in a mode that reads them
FLAG_BASE = {
    (("plot",), "--family"): ["plot", "family", "--out", "p.png"],
    (("plot",), "--sizes"): ["plot", "family", "--out", "p.png"],
    (("plot",), "--policies"): ["plot", "compare", "--no-opt", "--out", "p.png"],
    (("plot",), "--time-limit"): ["plot", "compare", "--out", "p.png"],
    (("plot",), "--witnesses"): ["plot", "ratio-curve", "--out", "p.png"],
}


@pytest.mark.parametrize("command, flag, value", FLAG_CASES, ids=[" ".join(c[0]) + f" {c[1]} {c[2]!r}"
                                                                   for c in FLAG_CASES])
def test_bad_flag_value_is_one_line(tmp_path, command, flag, value):
    argv = FLAG_BASE.get((command, flag), BASE[command]) + [flag, value]
    _run_clean(tmp_path, argv, BASE_FILES)


@SETTINGS
@given(case=st.sampled_from(sorted({(c, f) for c, f, _ in FLAG_CASES if not BAD_STRINGS.get(f)})),
       word=st.text(alphabet="abcxyz!?-_", min_size=1, max_size=6))
def test_junk_word_for_a_typed_flag_is_one_line(tmp_path, case, word):
    """A word is never a number or a choice: every typed flag refuses it in one line."""
    command, flag = case
    _run_clean(tmp_path, FLAG_BASE.get(case, BASE[command]) + [flag, "w" + word], BASE_FILES)


# ---------------------------------------------------------------- malformed files


_BAD_FIELD_VALUES = {
    "memory": [0, -1, 1.5, "12", None, True, [], {}, 2**53 + 1],
    "id": ["", 5, None, True, []],
    "arrival": [-1, 1.5, "0", None, True, 2**53 + 1, -(2**63)],
    "prompt": [-1, 1.5, "1", None, False, 2**53 + 1],
    "output": [0, -1, 1.5, "1", None, True, 2**53 + 1],
}


@st.composite
def malformed_instance(draw):
    """Instance JSON text (or bytes) that no reader may accept, and what was done to it."""
    data = draw(instances(max_n=3, max_arrival=5)).to_dict()
    kind = draw(st.sampled_from(["value", "drop", "extra", "duplicate", "non-finite", "truncate", "bytes", "shape",
                                 "duplicate id", "peak over memory"]))
    requests = data["requests"]
    k = draw(st.integers(0, len(requests) - 1))
    if kind == "value":
        key = draw(st.sampled_from(sorted(_BAD_FIELD_VALUES)))
        target = data if key == "memory" else requests[k]
        target[key] = draw(st.sampled_from(_BAD_FIELD_VALUES[key]))
        return json.dumps(data), kind
    if kind == "drop":
        key = draw(st.sampled_from(["memory", "requests", "id", "arrival", "prompt", "output"]))
        del (data if key in ("memory", "requests") else requests[k])[key]
        return json.dumps(data), kind
    if kind == "extra":
        (data if draw(st.booleans()) else requests[k])["note"] = 1
        return json.dumps(data), kind
    if kind == "duplicate":
        key = draw(st.sampled_from(["memory", "requests", "id", "arrival", "prompt", "output"]))
        text = json.dumps(data)
        marker = f'"{key}": '
        at = text.index(marker)
        return text[:at] + f'"{key}": 1, ' + text[at:], kind
    if kind == "non-finite":
        key = draw(st.sampled_from(["memory", "arrival", "prompt", "output"]))
        literal = draw(st.sampled_from(["NaN", "Infinity", "-Infinity"]))
        text = json.dumps(data)
        at = text.index(f'"{key}": ') + len(key) + 4
        end = min(i for i in (text.find(",", at), text.find("}", at)) if i >= 0)
        return text[:at] + literal + text[end:], kind
    if kind == "truncate":
        text = json.dumps(data)
        return text[: draw(st.integers(0, len(text) - 2))], kind
    if kind == "bytes":
        text = json.dumps(data).encode()
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"])) + text[at:], kind
    if kind == "shape":
        return json.dumps(draw(st.sampled_from([[], None, 3, "x", [data], {"instance": data}]))), kind
    if kind == "duplicate id":
        if len(requests) < 2:
            requests.append(dict(requests[0]))
        requests[1]["id"] = requests[0]["id"]
        return json.dumps(data), kind
    requests[k]["prompt"] = data["memory"]  # peak = M + output > M
    return json.dumps(data), kind


INSTANCE_COMMANDS = [
    ["simulate", "x.json"], ["compare", "x.json"], ["opt", "x.json", "--time-limit", "1"],
    ["check", "x.json", "s.json"], ["plot", "memory", "x.json", "--out", "p.png"],
    ["plot", "certificate", "x.json", "--out", "p.png"], ["plot", "compare", "x.json", "--out", "p.png"],
]


@SETTINGS
@given(bad=malformed_instance(), argv=st.sampled_from(INSTANCE_COMMANDS))
def test_malformed_instance_is_one_line(tmp_path, bad, argv):
    text, _ = bad
    _run_clean(tmp_path, argv, {"x.json": text, "s.json": '{"r0": 0}'})


@st.composite
def malformed_schedule(draw):
    kind = draw(st.sampled_from(["duplicate", "extra top-level", "non-finite", "not an object", "truncate",
                                 "bytes", "out of range", "starts not an object", "deep"]))
    starts = {"r0": draw(st.integers(0, 9)), "r1": draw(st.integers(0, 9))}
    wrapped = draw(st.booleans())
    text = json.dumps({"starts": starts} if wrapped else starts)
    if kind == "duplicate":
        return text.replace('"r0": ', '"r0": 1, "r0": ', 1)
    if kind == "extra top-level":
        return json.dumps({"starts": starts, draw(st.sampled_from(["tel", "note", "r0"])): 1})
    if kind == "non-finite":
        return text.replace(f'"r1": {starts["r1"]}', f'"r1": {draw(st.sampled_from(["NaN", "Infinity"]))}')
    if kind == "not an object":
        return json.dumps(draw(st.sampled_from([[0, 1], 3, None, "r0"])))
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text) - 2))]
    if kind == "bytes":
        return text.encode() + b"\xff"
    if kind == "out of range":
        starts["r1"] = draw(st.sampled_from([2**63, 2**64 + 3, -(2**63) - 1, 10**30]))
        return json.dumps({"starts": starts} if wrapped else starts)
    if kind == "starts not an object":
        return json.dumps({"starts": draw(st.sampled_from([[0, 1], 3, None, "x"]))})
    return "[" * 5000 + "]" * 5000


SCHEDULE_COMMANDS = [["check", "i.json", "x.json"],
                     ["plot", "gantt", "i.json", "--schedule", "x.json", "--out", "p.png"],
                     ["plot", "memory", "i.json", "--schedule", "x.json", "--out", "p.png"]]


@SETTINGS
@given(text=malformed_schedule(), argv=st.sampled_from(SCHEDULE_COMMANDS))
def test_malformed_schedule_is_one_line(tmp_path, text, argv):
    _run_clean(tmp_path, argv, {"i.json": README, "x.json": text})


@st.composite
def malformed_trace(draw):
    lines = draw(traces(min_rows=2, max_rows=6)).splitlines()
    row = draw(st.integers(1, len(lines) - 1))
    fields = lines[row].split(",")
    kind = draw(st.sampled_from(["extra field", "missing field", "count", "fraction", "NUL", "bytes", "header",
                                 "timestamp"]))
    if kind == "extra field":
        lines[row] += ",9"
    elif kind == "missing field":
        lines[row] = ",".join(fields[:2])
    elif kind == "count":
        column = draw(st.sampled_from([1, 2]))
        fields[column] = draw(st.sampled_from(["1_000", "+5", "\u0663", "1e3", "-4", "4.5", "", "x", "3\u00b2",
                                               str(2**70)]))
        lines[row] = ",".join(fields)
    elif kind == "fraction":
        fields[0] = fields[0].split(".")[0] + "." + draw(st.sampled_from(["68\u00b2", "6x", "\u0663", "-5", "5e3"]))
        lines[row] = ",".join(fields)
    elif kind == "NUL":
        lines[row] = lines[row].replace(",", ",\x00", 1)
    elif kind == "header":
        lines[0] = draw(st.sampled_from(["TIMESTAMP,ContextTokens", "TIMESTAMP,ContextTokens,GeneratedTokens,"
                                         "ContextTokens", "timestamp,contexttokens,generatedtokens", ""]))
    elif kind == "timestamp":
        fields[0] = draw(st.sampled_from(["yesterday", "2023-13-01 00:00:00", "99999-01-01 00:00:00", ""]))
        lines[row] = ",".join(fields)
    text = "\n".join(lines) + "\n"
    if kind == "bytes":
        return text.encode()[:-1] + b"\xff\n"
    return text


TRACE_COMMANDS = [["simulate", "x.csv"], ["compare", "x.csv"], ["simulate", "x.csv", "--arrivals", "online"],
                  ["predictor", "eval", "--trace", "x.csv"]]


@SETTINGS
@given(text=malformed_trace(), argv=st.sampled_from(TRACE_COMMANDS))
def test_malformed_trace_is_one_line(tmp_path, text, argv):
    _run_clean(tmp_path, argv, {"x.csv": text})


# generator parameters no generator accepts (each alone makes the spec invalid)
_BAD_PARAMETERS = {
    "burst": {"n": [-1, 0, 1.5, "abc", 10**7], "seed": [-1, 1.5, "x"], "memory": [0, -3, 1.5, 2**60],
              "s_min": [-2, 1.5], "s_max": [-1], "m_min": [0, -1], "bogus": [1]},
    "poisson": {"n": [-1, 0, 2.5], "rho": [float("nan"), float("inf"), -1, 0], "rate": [float("inf"), 0, -2],
                "mu": [0, 2, float("nan")], "alpha_cap": [0, 2, float("nan")], "memory": [0, 1e20],
                "bogus": [1], "seed": [-5]},
    "chat": {"n": [0, -1, 1e3], "memory": [10, 0], "seed": ["abc", -1], "bogus": [1]},
    "longprompt": {"n": [0, -5], "memory": [0, 1], "bogus": [1]},
    "example": {"n": [3]},
}


@SETTINGS
@given(data=st.data(), argv_head=st.sampled_from([["simulate"], ["compare"], ["opt"], ["plot", "memory"]]))
def test_bad_generator_spec_is_one_line(tmp_path, data, argv_head):
    name = data.draw(st.sampled_from(sorted(_BAD_PARAMETERS)))
    key = data.draw(st.sampled_from(sorted(_BAD_PARAMETERS[name])))
    value = data.draw(st.sampled_from(_BAD_PARAMETERS[name][key]))
    others = data.draw(st.sampled_from(["", ",n=3", ",seed=2"]))
    if others and others[1:].split("=")[0] == key:
        others = ""
    spec = f"{name}:{key}={value}{others}"
    argv = argv_head + [spec] + (["--out", "p.png"] if argv_head[0] == "plot" else [])
    if argv_head[0] == "opt":
        argv += ["--time-limit", "1"]
    _run_clean(tmp_path, argv, {})


@SETTINGS
@given(spec=st.sampled_from(["burst:n=3,n=4", "burst:n", "burst:=3", "burst:n=1_000", "nosuch:n=3", "", ":",
                             "trace:limit=abc", "trace:bogus=1", "trace:offset=-5", "trace:limit=0",
                             "trace:arrivals=sideways", "trace:step_seconds=0"]),
       command=st.sampled_from(["simulate", "compare", "opt"]))
def test_bad_spec_syntax_is_one_line(tmp_path, spec, command):
    _run_clean(tmp_path, [command, spec], {})


# ---------------------------------------------------------------- witnesses

@st.composite
def malformed_witness(draw):
    """Witness text a reader must refuse as malformed (exit 2): structure, not values."""
    paths = [p for p, _ in json_paths(WITNESS) if p and not isinstance(p[-1], int)]
    path = draw(st.sampled_from(paths))
    kind = draw(st.sampled_from(["remove", "duplicate", "non-finite", "extra", "truncate", "bytes", "wrong type"]))
    top_level_required = (len(path) == 1 and path[0] not in OPTIONAL_KEYS) or path[0] == "instance" and len(path) <= 2
    if kind == "remove" and (top_level_required or path[-2:-1] in (("policy_schedule",), ("witness_schedule",))
                             or path[0] == "instance"):
        return json.dumps(remove_at(WITNESS, path))
    if kind == "duplicate":
        text = json.dumps(WITNESS)
        marker = json.dumps(path[-1]) + ": "
        at = text.index(marker)
        return text[:at] + marker + "1, " + text[at:]
    if kind == "non-finite":
        return with_literal(path, draw(st.sampled_from(["NaN", "Infinity", "-Infinity"])))
    if kind == "extra":
        return json.dumps(dict(WITNESS, extra_field=1))
    if kind == "truncate":
        text = json.dumps(WITNESS)
        return text[: draw(st.integers(0, len(text) - 2))]
    if kind == "bytes":
        return json.dumps(WITNESS).encode()[:-1] + b"\xff}"
    # wrong type where the type is fixed
    typed = {("policy",): 5, ("certified_ratio",): "3", ("found_by",): 1, ("seed",): "x",
             ("policy_schedule", "tel"): 1.5, ("witness_schedule", "tel"): "197", ("instance",): [],
             ("policy_schedule",): None, ("witness_schedule", "starts"): [], ("instance", "requests"): {}}
    key = draw(st.sampled_from(sorted(typed)))
    return json.dumps(set_at(WITNESS, key, typed[key]))


@SETTINGS
@given(text=malformed_witness(), json_mode=st.booleans())
def test_malformed_witness_is_one_line(tmp_path, text, json_mode):
    _run_clean(tmp_path, ["check-witness", "w.json"] + (["--json"] if json_mode else []), {"w.json": text})


# ---------------------------------------------------------------- tampered witnesses


TAMPERS = tampers()
FAST_TAMPERS = [t for t in TAMPERS if "requests" not in t[0] and ".starts." not in t[0]]


@pytest.mark.parametrize("label, text", FAST_TAMPERS, ids=[t[0] for t in FAST_TAMPERS])
def test_tampered_witness_top_fields(label, text):
    verdict = tamper_verdict(text)
    assert verdict in TAMPER_OK, verdict


@pytest.mark.slow
def test_tampered_witness_every_field():
    """Every field, nested ones included (instance requests, every start): 0 accepted with a
    number that is not true."""
    verdicts = {label: tamper_verdict(text) for label, text in TAMPERS}
    bad = {label: v for label, v in verdicts.items() if v not in TAMPER_OK}
    assert not bad, bad
    assert len(TAMPERS) > 500


def test_the_campaign_sees_a_scheduler_file_run(tmp_path):
    """The code-named-by-data-files count can fail: a file the user names on the command line
    does run, and the case's outcome shows it (a MARKER file, the sign on stderr)."""
    from reliability_referee_cases import MARKER_SCHEDULER, code_ran

    case = next(c for c in CASES if c.name.startswith("code named by data files: check-witness of"))
    write_files(tmp_path, {"sub/p.py": MARKER_SCHEDULER})
    run = run_cli(["simulate", "example", "--policy", "sub/p.py:X"], tmp_path)
    outcome, detail = classify(case, run)
    assert outcome != "clean error" and code_ran(detail)


def test_tamper_check_can_fail(monkeypatch):
    """The tamper verdict sees a forged number: with verify_witness made to trust the file's
    stated TEL, a raised tel is accepted and caught as wrong."""
    import geosched.adversary.witness as witness_module

    real = witness_module._recomputed_tels

    def trusting(instance, parsed, simulated, problems):
        tels = real(instance, parsed, simulated, problems)
        problems.clear()
        return {"policy_schedule": parsed["policy_schedule"]["tel"], "witness_schedule": tels["witness_schedule"]}

    monkeypatch.setattr(witness_module, "_recomputed_tels", trusting)
    monkeypatch.setattr(witness_module, "_check_ties", lambda *args: None)  # it would see the raised tel too
    forged = set_at(WITNESS, ("policy_schedule", "tel"), WITNESS["policy_schedule"]["tel"] + 50)
    forged["certified_ratio"] = forged["policy_schedule"]["tel"] / forged["witness_schedule"]["tel"]
    assert tamper_verdict(json.dumps(forged)).startswith("ACCEPTED WITH WRONG")



@pytest.mark.parametrize("saved", [
    {"config": {}, "state": {}},
    {"config": {}, "state": {"instances": "x", "arrival_instances": 0, "chunks_done": 0, "cross_checked": 0,
                             "variants": {}}},
    {"config": {}, "state": {"instances": 0, "arrival_instances": 0, "chunks_done": 0, "cross_checked": 0,
                             "variants": {}}, "elapsed": "x"},
    [], {"state": {}},
])
def test_corrupt_exhaustive_checkpoint_is_one_error(tmp_path, saved):
    """A checkpoint of the right outline but wrong contents is a one-line error naming the file
    (it used to surface as a KeyError or ValueError from the middle of the run)."""
    from geosched.errors import WorkloadFormatError
    from geosched.verify import exhaustive as ex

    path = tmp_path / "ck.json"
    path.write_text(json.dumps(saved))
    space = ex.Space(max_n=1, max_prompt=1, max_output=2, max_memory=3)
    with pytest.raises(WorkloadFormatError, match="not an exhaustive checkpoint"):
        ex.run_exhaustive(space, arrival_space=None, variants=("svf",), chunk_size=5, checkpoint=path, resume=True)


def test_a_sigterm_dropped_inside_a_callback_from_c_is_delivered_again():
    """A SIGTERM whose handler runs inside a Python callback called from C (numba's compiler calls llvmlite's
    object cache through ctypes) is printed and dropped there by Python; the command must still end (a hunt
    on a fresh clone once ran its whole --time after SIGTERM). Without the redelivery nothing is raised."""
    import ctypes
    import os
    import signal
    import time

    from geosched import cli

    def body() -> int:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs within this callback: its exception is dropped
        sum(range(10_000))
        return 0

    callback = ctypes.CFUNCTYPE(ctypes.c_int)(body)
    with pytest.raises(cli._Terminated), cli._sigterm_as_interrupt():
        callback()
        for _ in range(1000):  # interruptible sleeps: the redelivered signal lands here
            time.sleep(0.01)
