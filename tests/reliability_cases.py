"""The reliability campaign of issue 11: bad inputs to every command, as data.

Each :class:`Case` is one command line with the files it reads (written into a scratch
folder first). ``expect`` says what a correct program does with it:

* ``"error"``: the input is malformed or outside the model; the only right answer is a clean
  error (exit 2, one line ``geosched: error: ...``, no traceback, no file changed);
* ``"answer"``: the input is valid but extreme (huge numbers); the command may either answer
  (and then ``check`` re-derives the printed numbers by hand, with Python integers) or
  refuse it cleanly. An answer that ``check`` rejects is a *silent wrong answer*;
* ``"terminated"``: the command is sent SIGTERM while it runs (the case's ``runner``); the only
  right answer is exit 143 with one line and nothing left behind (no ``.lock``).

A case with a ``runner`` (a peer to start, a signal to send) runs through it instead of
:func:`cli_harness.run_cli` (:func:`run_case`).

Used by ``tests/test_reliability.py`` (each case is a test) and
``benchmarks/reliability_campaign.py`` (the counts table).
"""

from __future__ import annotations

import copy
import functools
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from cli_harness import run_cli
from reliability_inputs import input_cases

ROOT = Path(__file__).resolve().parent.parent
SJF_WITNESS = ROOT / "docs" / "witnesses" / "sjf_burst_alpha0.5_ratio3.268.json"

TWO63 = 2**63


@dataclass
class Case:
    name: str
    argv: list[str]
    files: dict[str, str | bytes] | Callable[[], dict[str, str | bytes]] = field(default_factory=dict)
    expect: str = "error"  # "error", "answer", "terminated" (SIGTERM: exit 143) or "interrupted" (Ctrl-C: 130)
    check: Callable[[str], str | None] | None = None  # stdout -> None if right, else why it is wrong
    slow: bool = False
    runner: Callable[[Case, Path], object] | None = None  # (case, folder) -> CliRun; None: run_cli(argv)
    needs: str | None = None  # a module the case needs ("vllm"): without it the case is not run


def run_case(case: Case, folder: Path):
    """What the case's command did in ``folder`` (its files written there already)."""
    return case.runner(case, folder) if case.runner is not None else run_cli(case.argv, folder)


def _instance(memory, requests) -> str:
    return json.dumps({"memory": memory, "requests": [
        {"id": f"r{k}", "arrival": a, "prompt": s, "output": o} for k, (a, s, o) in enumerate(requests)]})


README = _instance(12, [(0, 6, 3), (0, 1, 5)])
CSV_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
CSV_ROW = "2023-11-16 18:15:46.6805900,374,44\n"


# ---------------------------------------------------------------- exact re-derivations


def _tel_matches_starts(instance_text: str) -> Callable[[str], str | None]:
    """The printed TEL must be sum(x_i + o_i - a_i) over the printed starts, in exact integers,
    and the printed starts must respect every arrival."""
    requests = json.loads(instance_text)["requests"]

    def check(stdout: str) -> str | None:
        data = json.loads(stdout)
        rows = [data] if "starts" in data else list(data["policies"].values())
        for row in rows:
            starts = row["starts"]
            tel = sum(starts[r["id"]] + r["output"] - r["arrival"] for r in requests)
            if row["tel"] != tel:
                return f"printed TEL {row['tel']} but the printed starts give {tel}"
            if any(starts[r["id"]] < r["arrival"] for r in requests):
                return "a printed start precedes its arrival"
        return None

    return check


def _check_report(expected_feasible: bool, expected_tel: int | None) -> Callable[[str], str | None]:
    def check(stdout: str) -> str | None:
        data = json.loads(stdout)
        if data["feasible"] != expected_feasible:
            return f"feasible {data['feasible']}, expected {expected_feasible}"
        tel = data["metrics"]["tel"] if data["metrics"] else None
        if expected_tel is not None and tel != expected_tel:
            return f"TEL {tel}, expected {expected_tel}"
        return None

    return check


def _starts_first(first: str, instance_text: str) -> Callable[[str], str | None]:
    exact = _tel_matches_starts(instance_text)

    def check(stdout: str) -> str | None:
        starts = json.loads(stdout)["starts"]
        if starts[first] != 0 or min(starts.values()) != 0 or list(starts.values()).count(0) != 1:
            return f"{first} should start alone at step 0 (smallest volume), got {starts}"
        return exact(stdout)

    return check


def _check_violation(step: int, amount: int) -> Callable[[str], str | None]:
    def check(stdout: str) -> str | None:
        data = json.loads(stdout)
        memory = [v for v in data["violations"] if v["kind"] == "memory"]
        if data["feasible"] or not memory:
            return "no memory violation reported"
        if (memory[0]["step"], memory[0]["amount"]) != (step, amount):
            return f"violation at step {memory[0]['step']} by {memory[0]['amount']}, expected {step} by {amount}"
        return None

    return check


# ---------------------------------------------------------------- the cases


def overflow_cases() -> list[Case]:
    """Item 2 of issue 11 and its neighbours: numbers past int64."""
    pair = _instance(200, [(0, 1, 96), (0, 1, 96)])
    huge = _instance(3 * 10**18, [(0, 1, 2 * 10**18)] * 4)
    a63 = _instance(200, [(TWO63, 1, 96)])
    a62 = _instance(200, [(2**62, 1, 96), (0, 1, 5)])
    a50 = _instance(200, [(2**50, 1, 96), (0, 1, 5)])
    # two at a time (peaks 2^52, M = 2^53): starts up to 1023 * 2^52, TEL near 2^72, past int64
    long = _instance(2**53, [(0, 0, 2**52)] * 2048)
    order = _instance(2**32 + 101, [(0, 0, 2**32 + 1), (0, 0, 3 * 10**9)])
    cases = [
        # both start at 2^62: feasible (97 + 97 <= 200), TEL = 2 (2^62 + 96) = 2^63 + 192
        Case("check: starts 2^62 (TEL past int64)", ["check", "i.json", "s.json", "--json"],
             {"i.json": pair, "s.json": json.dumps({"starts": {"r0": 2**62, "r1": 2**62}})},
             "answer", _check_report(True, 2**63 + 192)),
        # r1 starts at 2^62 + 50 while r0 runs: at step 2^62 + 96, r0 holds 97 and r1 47: fits
        Case("check: starts 2^62 and 2^62 + 50", ["check", "i.json", "s.json", "--json"],
             {"i.json": pair, "s.json": json.dumps({"starts": {"r0": 2**62, "r1": 2**62 + 50}})},
             "answer", _check_report(True, 2 * 2**62 + 50 + 192)),
        # a start of 2^63 is past the steps geosched represents: refused, not called infeasible
        Case("check: start 2^63", ["check", "i.json", "s.json", "--json"],
             {"i.json": pair, "s.json": json.dumps({"starts": {"r0": TWO63, "r1": TWO63 + 1}})}),
        Case("check: start -2^63 - 1", ["check", "i.json", "s.json", "--json"],
             {"i.json": pair, "s.json": json.dumps({"starts": {"r0": -TWO63 - 1, "r1": 0}})}),
        # both at 2^62 with M = 100: step 2^62 + 50 holds 2 (1 + 50) = 102 > 100
        Case("check: starts 2^62, memory violation", ["check", "i.json", "s.json", "--json"],
             {"i.json": _instance(100, [(0, 1, 96), (0, 1, 96)]),
              "s.json": json.dumps({"starts": {"r0": 2**62, "r1": 2**62}})},
             "answer", _check_violation(2**62 + 50, 2)),
        # 1024 requests at their largest (peak 2^53 = M) all from step 0: at step 1 they hold
        # 1024 (2^52 + 1) > M. In int64 the usage at the piece's right end, 1024 * 2^53 = 2^63,
        # wraps to -2^63 and the violation would be missed.
        Case("check: 1024 peaks of 2^53 at once", ["check", "i.json", "s.json", "--json"],
             {"i.json": _instance(2**53, [(0, 2**52, 2**52)] * 1024),
              "s.json": json.dumps({f"r{k}": 0 for k in range(1024)})},
             "answer", _check_violation(1, 1024 * (2**52 + 1) - 2**53)),
        Case("simulate: outputs 2e18, M = 3e18", ["simulate", "i.json", "--json"], {"i.json": huge}, "answer",
             _tel_matches_starts(huge)),
        Case("simulate sjf: outputs 2e18", ["simulate", "i.json", "--policy", "sjf", "--json"], {"i.json": huge},
             "answer", _tel_matches_starts(huge)),
        Case("compare: outputs 2e18", ["compare", "i.json", "--json"], {"i.json": huge}, "answer",
             _tel_matches_starts(huge)),
        Case("simulate: arrival 2^63", ["simulate", "i.json", "--json"], {"i.json": a63}, "answer",
             _tel_matches_starts(a63)),
        Case("simulate: arrival 2^62 and 0", ["simulate", "i.json", "--json"], {"i.json": a62}, "answer",
             _tel_matches_starts(a62)),
        Case("compare: arrival 2^63", ["compare", "i.json", "--json"], {"i.json": a63}, "answer",
             _tel_matches_starts(a63)),
        Case("opt: arrival 2^63", ["opt", "i.json", "--time-limit", "2", "--json"], {"i.json": a63}, "answer",
             _tel_matches_starts(a63)),
        Case("opt: arrival 2^62 and 0", ["opt", "i.json", "--time-limit", "2", "--json"], {"i.json": a62}, "answer",
             _tel_matches_starts(a62)),
        Case("compare --opt: outputs 2e18", ["compare", "i.json", "--opt", "--time-limit", "2", "--json"],
             {"i.json": huge}, "answer", _tel_matches_starts(huge)),
        Case("simulate: memory 2^70", ["simulate", "i.json", "--json"],
             {"i.json": _instance(2**70, [(0, 2**68, 2**68), (0, 2**68, 3)])}, "answer",
             _tel_matches_starts(_instance(2**70, [(0, 2**68, 2**68), (0, 2**68, 3)]))),
        Case("simulate svf1: outputs 2e18", ["simulate", "i.json", "--policy", "svf1", "--json"], {"i.json": huge},
             "answer", _tel_matches_starts(huge)),
        Case("opt: arrival 2^50 and 0", ["opt", "i.json", "--time-limit", "2", "--json"], {"i.json": a50}, "answer",
             _tel_matches_starts(a50)),
        Case("compare --opt: arrival 2^50 and 0", ["compare", "i.json", "--opt", "--time-limit", "2", "--json"],
             {"i.json": a50}, "answer", _tel_matches_starts(a50)),
        *(Case(f"plot {kind}: arrival 2^50", ["plot", kind, "i.json", "--out", "p.png"], {"i.json": a50}, "answer")
          for kind in ("memory", "gantt", "certificate", "compare")),
        Case("simulate: 2048 requests of 2^52 (TEL about 2^72)", ["simulate", "i.json", "--json"], {"i.json": long},
             "answer", _tel_matches_starts(long)),
        Case("compare: 2048 requests of 2^52", ["compare", "i.json", "--json"], {"i.json": long}, "answer",
             _tel_matches_starts(long)),
        # volumes past int64: v(r0) = (o^2 + o)/2 with o = 2^32 + 1 is about 9.2e18; in int64
        # o^2 wraps to 2^33 + 1 and v(r0) to about 6.4e9, below v(r1) = 4.5e18, so a wrapped
        # SVF would start r0 first; the true order starts r1 (smaller volume) at step 0
        Case("simulate svf: volumes past int64 keep their order", ["simulate", "i.json", "--json"],
             {"i.json": order}, "answer", _starts_first("r1", order)),
        Case("simulate: --memory 2^64 on a generator", ["simulate", "burst:n=3", "--memory", str(2**64), "--json"],
             expect="answer"),
    ]
    return cases


def _json_instance_cases() -> list[Case]:
    bad = {
        "not JSON": "{memory: 12}",
        "empty file": "",
        "a list": "[]",
        "null": "null",
        "duplicate key memory": '{"memory": 12, "memory": 50, "requests": []}',
        "duplicate request key": '{"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": 1, '
                                 '"output": 2, "output": 3}]}',
        "NaN prompt": '{"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": NaN, "output": 2}]}',
        "Infinity memory": '{"memory": Infinity, "requests": []}',
        "float output": _instance(12, [(0, 1, 2.5)]),
        "float 3.0 output": _instance(12, [(0, 1, 3.0)]),
        "string output": _instance(12, [(0, 1, "3")]),
        "bool output": _instance(12, [(0, 1, True)]),
        "null arrival": _instance(12, [(None, 1, 3)]),
        "negative arrival": _instance(12, [(-1, 1, 3)]),
        "zero output": _instance(12, [(0, 1, 0)]),
        "peak over memory": _instance(12, [(0, 6, 7)]),
        "memory 0": _instance(0, [(0, 0, 1)]),
        "missing requests": '{"memory": 12}',
        "extra key": '{"memory": 12, "requests": [], "note": 1}',
        "request not an object": '{"memory": 12, "requests": [3]}',
        "duplicate ids": '{"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": 1, "output": 2}, '
                         '{"id": "a", "arrival": 0, "prompt": 1, "output": 2}]}',
        "empty id": '{"memory": 12, "requests": [{"id": "", "arrival": 0, "prompt": 1, "output": 2}]}',
        "numeric id": '{"memory": 12, "requests": [{"id": 5, "arrival": 0, "prompt": 1, "output": 2}]}',
        "deeply nested": "[" * 100000 + "]" * 100000,
        "huge exponent": '{"memory": 1e999, "requests": []}',
        "arrival -2^63": _instance(12, [(-TWO63, 1, 3)]),
    }
    cases = [Case(f"instance: {what}", ["simulate", "i.json"], {"i.json": text}) for what, text in bad.items()]
    cases += [
        Case("instance: invalid UTF-8", ["simulate", "i.json"], {"i.json": b'{"memory": 12, "requests": []}\xff'}),
        Case("instance: UTF-16", ["simulate", "i.json"], {"i.json": README.encode("utf-16")}),
        Case("instance: binary", ["simulate", "i.json"], {"i.json": bytes(range(256))}),
        Case("instance: missing file", ["simulate", "missing.json"]),
        Case("instance: a directory", ["simulate", "d.json"], {"d.json/x": "1"}),
        Case("opt: invalid UTF-8", ["opt", "i.json"], {"i.json": b"\xfe\xff{}"}),
        Case("compare: duplicate key", ["compare", "i.json"], {"i.json": '{"memory": 12, "memory": 13, '
                                                                         '"requests": []}'}),
        Case("plot: invalid UTF-8 instance", ["plot", "memory", "i.json", "--out", "p.png"], {"i.json": b"\xff"}),
    ]
    return cases


def _schedule_cases() -> list[Case]:
    bad = {
        "not JSON": "{r0: 1}",
        "a list": "[0, 1]",
        "duplicate id": '{"r0": 0, "r0": 5, "r1": 1}',
        "duplicate starts": '{"starts": {"r0": 0, "r1": 1}, "starts": {"r0": 5, "r1": 0}}',
        "extra top-level key": '{"starts": {"r0": 0, "r1": 1}, "tel": 9}',
        "starts not an object": '{"starts": [0, 1]}',
        "NaN start": '{"r0": NaN, "r1": 1}',
        "Infinity start": '{"r0": Infinity, "r1": 1}',
        "deeply nested": "[" * 100000 + "]" * 100000,
    }
    cases = [Case(f"schedule: {what}", ["check", "i.json", "s.json"], {"i.json": README, "s.json": text})
             for what, text in bad.items()]
    cases += [
        Case("schedule: invalid UTF-8", ["check", "i.json", "s.json"],
             {"i.json": README, "s.json": b'{"r0": 0, "r1": 1}\xff'}),
        Case("schedule: missing file", ["check", "i.json", "missing.json"], {"i.json": README}),
        Case("plot --schedule: duplicate key", ["plot", "gantt", "i.json", "--schedule", "s.json", "--out", "p.png"],
             {"i.json": README, "s.json": '{"r0": 0, "r0": 1, "r1": 1}'}),
        Case("plot --schedule: NaN", ["plot", "gantt", "i.json", "--schedule", "s.json", "--out", "p.png"],
             {"i.json": README, "s.json": '{"r0": NaN, "r1": 1}'}),
        Case("plot --schedule: invalid UTF-8", ["plot", "gantt", "i.json", "--schedule", "s.json", "--out", "p.png"],
             {"i.json": README, "s.json": b"\xff\xfe"}),
    ]
    return cases


def _csv_cases() -> list[Case]:
    bad = {
        "invalid UTF-8": (CSV_HEADER + CSV_ROW).encode() + b"\xff,1,1\n",
        "count 1e20": CSV_HEADER + "2023-11-16 18:15:46.6805900,1e20,44\n",
        "count 10^20": CSV_HEADER + f"2023-11-16 18:15:46.6805900,{10**20},44\n",
        "count 1_000": CSV_HEADER + "2023-11-16 18:15:46.6805900,1_000,44\n",
        "count with spaces inside": CSV_HEADER + "2023-11-16 18:15:46.6805900,1 000,44\n",
        "count +5": CSV_HEADER + "2023-11-16 18:15:46.6805900,+5,44\n",
        "count Arabic-Indic digits": CSV_HEADER + "2023-11-16 18:15:46.6805900,\u0663\u0664,44\n",
        "negative count": CSV_HEADER + "2023-11-16 18:15:46.6805900,-4,44\n",
        "superscript in fraction": CSV_HEADER + "2023-11-16 18:15:46.68\u00b2,374,44\n",
        "superscript count": CSV_HEADER + "2023-11-16 18:15:46.6805900,3\u00b2,44\n",
        "extra field": CSV_HEADER + "2023-11-16 18:15:46.6805900,374,44,9\n",
        "missing field": CSV_HEADER + "2023-11-16 18:15:46.6805900,374\n",
        "bad timestamp": CSV_HEADER + "yesterday,374,44\n",
        "timestamp year 99999": CSV_HEADER + "99999-11-16 18:15:46,374,44\n",
        "missing column": "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,374\n",
        "header only": CSV_HEADER,
        "empty": "",
        "only zero outputs": CSV_HEADER + "2023-11-16 18:15:46.6805900,374,0\n",
        "NUL byte": CSV_HEADER + "2023-11-16 18:15:46.6805900,3\x0074,44\n",
        "peak beyond int64": CSV_HEADER + f"2023-11-16 18:15:46.6805900,{TWO63},44\n",
        "duplicate column": "TIMESTAMP,ContextTokens,GeneratedTokens,ContextTokens\n" + "2023-11-16 18:15:46,1,2,3\n",
    }
    cases = [Case(f"trace csv: {what}", ["simulate", "t.csv"], {"t.csv": text}) for what, text in bad.items()]
    good = {"t.csv": CSV_HEADER + CSV_ROW * 3}
    cases += [
        Case("--step-seconds 1e-300", ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "1e-300"],
             {"t.csv": CSV_HEADER + CSV_ROW + "2023-11-16 18:15:47.6805900,374,44\n"}),
        Case("--step-seconds 0", ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "0"], good),
        Case("--step-seconds -1", ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "-1"], good),
        Case("--step-seconds nan", ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "nan"], good),
        Case("--step-seconds inf", ["simulate", "t.csv", "--arrivals", "online", "--step-seconds", "inf"], good),
        Case("--step-seconds abc", ["simulate", "t.csv", "--step-seconds", "abc"], good),
        Case("--limit 0", ["simulate", "t.csv", "--limit", "0"], good),
        Case("--limit -1", ["simulate", "t.csv", "--limit", "-1"], good),
        Case("--limit abc", ["simulate", "t.csv", "--limit", "abc"], good),
        Case("--arrivals sideways", ["simulate", "t.csv", "--arrivals", "sideways"], good),
        Case("csv with --memory too small", ["simulate", "t.csv", "--memory", "5"], good),
        Case("trace csv: a directory", ["simulate", "d.csv"], {"d.csv/x": "1"}),
    ]
    return cases


def _generator_cases() -> list[Case]:
    specs = [
        "burst:s_min=6,s_max=5", "burst:m_min=50,m_max=30", "burst:n=-1", "burst:n=abc", "burst:n=1.5",
        "burst:n=10000000000", "burst:n=1_000", "burst:seed=-1", "burst:seed=1.5", "burst:memory=0", "burst:memory=-3",
        "burst:s_min=-2", "burst:bogus=1", "burst:n", "burst:=3", "burst:n=3,n=4",
        "poisson:rho=nan", "poisson:rho=inf", "poisson:rho=-1", "poisson:rate=inf", "poisson:rate=nan",
        "poisson:rate=0", "poisson:rate=1e-300", "poisson:n=-1", "poisson:n=0", "poisson:mu=0", "poisson:mu=2",
        "poisson:mu=nan", "poisson:alpha_cap=nan", "poisson:alpha_cap=2", "poisson:memory=1e20",
        "poisson:s_min=5,s_max=2",
        "chat:n=0", "chat:n=-1", "chat:n=1e3", "chat:memory=10", "chat:seed=abc",
        "longprompt:n=0", "longprompt:n=-5", "longprompt:memory=0",
        "example:n=3", "nosuch", "nosuch:n=3", "", ":", "burst:n=3:4",
        "trace:limit=abc", "trace:limit=-1", "trace:limit=0", "trace:offset=-5", "trace:offset=abc",
        "trace:bogus=1", "trace:arrivals=sideways", "trace:step_seconds=0", "trace:step_seconds=nan",
        "trace:arrivals=online,step_seconds=1e-300",
    ]
    cases = [Case(f"spec {spec!r}", ["simulate", spec]) for spec in specs]
    cases += [Case(f"opt spec {spec!r}", ["opt", spec, "--time-limit", "1"])
              for spec in ("burst:n=0,m_min=5", "burst:n=-2", "poisson:rho=nan")]
    return cases


def _flag_cases() -> list[Case]:
    cases = []
    for command in ("simulate", "hunt", "compare", "opt", "family", "claims", "plot"):
        base = {"simulate": ["simulate", "example"], "hunt": ["hunt", "--policy", "sjf", "--time", "1"],
                "compare": ["compare", "example"], "opt": ["opt", "example"],
                "family": ["family", "sjf-blocking", "--size", "3"], "claims": ["claims", "--claim", "kong.thm3.2"],
                "plot": ["plot", "memory", "--out", "p.png"]}[command]
        for flag, value in (("--seed", "-1"), ("--seed", "abc"), ("--seed", "1.5"), ("--memory", "0"),
                            ("--memory", "-5"), ("--memory", "abc")):
            cases.append(Case(f"{command} {flag} {value}", [*base, flag, value]))
    cases += [Case(f"{command} --seed 2^63 - 1", [command, "example", "--seed", str(2**63 - 1), "--json"],
                   expect="answer") for command in ("simulate", "compare")]
    cases += [Case("simulate --seed 2^63", ["simulate", "example", "--seed", str(2**63)]),
              Case("hunt --seed 2^63", ["hunt", "--policy", "sjf", "--time", "1", "--seed", str(2**63)])]
    cases += [
        Case("hunt --memory 2^63", ["hunt", "--policy", "sjf", "--memory", str(TWO63), "--time", "1"]),
        Case("hunt --memory 10^12", ["hunt", "--policy", "sjf", "--memory", str(10**12), "--time", "1"]),
        Case("hunt --target -1", ["hunt", "--policy", "sjf", "--target", "-1", "--time", "1"]),
        Case("hunt --target nan", ["hunt", "--policy", "sjf", "--target", "nan", "--time", "1"]),
        Case("hunt --requests 0", ["hunt", "--policy", "sjf", "--requests", "0", "--time", "1"]),
        Case("hunt --requests 10^9", ["hunt", "--policy", "sjf", "--requests", str(10**9), "--time", "1"]),
        Case("hunt --time 0", ["hunt", "--policy", "sjf", "--time", "0"]),
        Case("hunt --time nan", ["hunt", "--policy", "sjf", "--time", "nan"]),
        Case("hunt --time inf", ["hunt", "--policy", "sjf", "--time", "inf"]),
        Case("hunt --alpha-max 2", ["hunt", "--policy", "sjf", "--alpha-max", "2", "--time", "1"]),
        Case("hunt --alpha-max nan", ["hunt", "--policy", "sjf", "--alpha-max", "nan", "--time", "1"]),
        Case("hunt --alpha-max 1e-9", ["hunt", "--policy", "sjf", "--alpha-max", "1e-9", "--time", "1"]),
        Case("hunt --policy lifo", ["hunt", "--policy", "lifo"]),
        Case("hunt --method z3 online", ["hunt", "--policy", "sjf", "--method", "z3", "--arrivals", "online"]),
        Case("hunt --resume without checkpoint", ["hunt", "--policy", "sjf", "--resume", "--out", "h"]),
        Case("hunt --out is a file", ["hunt", "--policy", "sjf", "--time", "1", "--out", "f"], {"f": "x"}),
        Case("opt --time-limit 0", ["opt", "example", "--time-limit", "0"]),
        Case("opt --time-limit nan", ["opt", "example", "--time-limit", "nan"]),
        Case("opt --time-limit inf", ["opt", "example", "--time-limit", "inf"]),
        Case("opt --time-limit -1", ["opt", "example", "--time-limit", "-1"]),
        Case("opt --method nope", ["opt", "example", "--method", "nope"]),
        Case("compare --time-limit nan --opt", ["compare", "example", "--opt", "--time-limit", "nan"]),
        Case("compare --policies ,", ["compare", "example", "--policies", ","]),
        Case("compare --policies nope", ["compare", "example", "--policies", "svf,nope"]),
        Case("simulate --policy nope", ["simulate", "example", "--policy", "nope"]),
        Case("simulate --policy svf1:theta=0", ["simulate", "example", "--policy", "svf1:theta=0"]),
        Case("simulate --policy svf1:theta=nan", ["simulate", "example", "--policy", "svf1:theta=nan"]),
        Case("simulate --policy svf:k=1", ["simulate", "example", "--policy", "svf:k=1"]),
        Case("simulate --predictor nope", ["simulate", "example", "--predictor", "nope"]),
        Case("simulate --predictor noisy:sigma=-1", ["simulate", "example", "--predictor", "noisy:sigma=-1"]),
        Case("simulate --predictor noisy:sigma=nan", ["simulate", "example", "--predictor", "noisy:sigma=nan"]),
        Case("simulate --predictor noisy:sigma=1e308", ["simulate", "burst:n=5", "--predictor",
                                                        "noisy:sigma=1e308"], expect="answer"),
        Case("simulate --predictor onebit:flip_rate=2", ["simulate", "example", "--predictor",
                                                         "onebit:flip_rate=2"]),
        Case("simulate --predictor noisy:seed=-1", ["simulate", "example", "--predictor", "noisy:seed=-1"]),
        Case("simulate --predictor noisy:bogus=1", ["simulate", "example", "--predictor", "noisy:bogus=1"]),
        Case("family --size 10^9", ["family", "sjf-blocking", "--size", str(10**9)]),
        Case("family --size 0", ["family", "sjf-blocking", "--size", "0"]),
        Case("family --size -3", ["family", "sjf-blocking", "--size", "-3"]),
        Case("family nope", ["family", "nope", "--size", "3"]),
        Case("z3-bisect without --memory", ["z3-bisect", "--policy", "svf", "--requests", "2", "--max-prompt", "2",
                                            "--max-output", "2"]),
        Case("z3-bisect --requests 0", ["z3-bisect", "--policy", "svf", "--requests", "0", "--memory", "8",
                                        "--max-prompt", "2", "--max-output", "2"]),
        Case("z3-bisect --requests 50", ["z3-bisect", "--policy", "svf", "--requests", "50", "--memory", "8",
                                         "--max-prompt", "2", "--max-output", "2"]),
        Case("z3-bisect --alpha-max x", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                         "--max-prompt", "2", "--max-output", "2", "--alpha-max", "x"]),
        Case("z3-bisect --alpha-max 1/0", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                           "--max-prompt", "2", "--max-output", "2", "--alpha-max", "1/0"]),
        Case("z3-bisect --hi abc", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                    "--max-prompt", "2", "--max-output", "2", "--hi", "abc"]),
        Case("z3-bisect --hi 0", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                  "--max-prompt", "2", "--max-output", "2", "--hi", "0"]),
        Case("z3-bisect --max-output 0", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                          "--max-prompt", "2", "--max-output", "0"]),
        Case("z3-bisect --memory-max below --memory", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory",
                                                       "8", "--memory-max", "4", "--max-prompt", "2",
                                                       "--max-output", "2"]),
        Case("z3-bisect --timeout nan", ["z3-bisect", "--policy", "svf", "--requests", "2", "--memory", "8",
                                         "--max-prompt", "2", "--max-output", "2", "--timeout", "nan"]),
        Case("claims --claim nope", ["claims", "--claim", "nope"]),
        Case("prove nope", ["prove", "nope"]),
        Case("prove --standalone without --latex", ["prove", "kong.thm3.2", "--standalone"]),
        Case("plot nope", ["plot", "nope"]),
        Case("plot --sizes abc", ["plot", "family", "--sizes", "abc", "--out", "p.png"]),
        Case("plot --sizes 0:100", ["plot", "family", "--sizes", "0:100", "--out", "p.png"]),
        Case("plot --sizes 1:1", ["plot", "family", "--sizes", "1:1", "--out", "p.png"]),
        Case("plot --out exists", ["plot", "memory", "--out", "p.png"], {"p.png": b"keep"}),
        Case("plot --out .txt", ["plot", "memory", "--out", "p.txt"]),
        Case("plot --family nope", ["plot", "family", "--family", "nope", "--out", "p.png"]),
        Case("plot --policy nope", ["plot", "memory", "--policy", "nope", "--out", "p.png"]),
        Case("plot compare --time-limit nan", ["plot", "compare", "--time-limit", "nan", "--out", "p.png"]),
        Case("lessons --out is a file", ["lessons", "--out", "f"], {"f": "x"}),
        Case("no command", []),
        Case("unknown command", ["frobnicate"]),
        Case("unknown flag", ["simulate", "--frobnicate"]),
    ]
    return cases


def _witness_cases() -> list[Case]:
    good = SJF_WITNESS.read_text()
    data = json.loads(good)
    empty = dict(data, instance={"memory": 12, "requests": []},
                 policy_schedule={"starts": {}, "tel": 0}, witness_schedule={"starts": {}, "tel": 0},
                 certified_ratio=999)
    cases = [
        Case("witness: empty instance, ratio 999", ["check-witness", "w.json"], {"w.json": json.dumps(empty)}),
        Case("witness: invalid UTF-8", ["check-witness", "w.json"], {"w.json": good.encode() + b"\xff"}),
        Case("witness: duplicate certified_ratio", ["check-witness", "w.json"],
             {"w.json": good.replace('"certified_ratio":', '"certified_ratio": 99.0, "certified_ratio":', 1)}),
        Case("witness: ratio_upper NaN", ["check-witness", "w.json"],
             {"w.json": good.replace('"ratio_upper": ', '"ratio_upper": NaN, "x_": ', 1)}),
        Case("witness: not JSON", ["check-witness", "w.json"], {"w.json": "{"}),
        Case("witness: a list", ["check-witness", "w.json"], {"w.json": "[]"}),
        Case("witness: missing file", ["check-witness", "nope.json"]),
        Case("witness: unknown policy", ["check-witness", "w.json"], {"w.json": json.dumps(dict(data, policy="lifo"))}),
    ]
    return cases


@functools.lru_cache(maxsize=1)
def _saved_search():
    """A real anneal state of the space the hunt cases resume (made once, on first use)."""
    from geosched.adversary.search import SearchSpace, anneal

    space = SearchSpace("sjf", max_requests=3, memory=12, alpha_max=0.5)
    return space, anneal(space, max_evals=5, time_limit=5.0, rng=0).state


def _hunt_resume_cases() -> list[Case]:
    argv = ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--time", "0.5",
            "--quiet", "--resume", "--out", "h"]
    names = ["checkpoint []", "methods: 5", "binary bytes", "garbage rng state", "rng state of another generator",
             "rng a string", "nfev -1", "wall_time nan-like string", "history garbage", "best a list",
             "best with 10^6 requests", "best output beyond the space", "best lengths mismatch", "elite not a list",
             "current missing", "unknown method", "state null", "space of another search", "seed a string",
             "truncated"]
    return [Case(f"hunt --resume: {what}", argv, functools.partial(_resume_files, what)) for what in names]


def _resume_files(what: str) -> dict[str, str | bytes]:
    return {"h/checkpoint.json": _resume_variants()[what]}


@functools.lru_cache(maxsize=1)
def _resume_variants() -> dict[str, str | bytes]:
    space, state = _saved_search()

    def checkpoint(methods, **extra):
        return json.dumps({"space": space.to_dict(), "seed": 0, "methods": methods, **extra})

    def with_state(**changes):
        return checkpoint({"anneal": {"kind": "search", "state": {**state, **changes}}})

    best = dict(state["best"])
    variants = {
        "checkpoint []": "[]",
        "methods: 5": checkpoint(5),
        "binary bytes": bytes(range(256)),
        "garbage rng state": with_state(rng={"bit_generator": "PCG64", "state": "garbage"}),
        "rng state of another generator": with_state(rng={"bit_generator": "MT19937", "state": {"key": [1],
                                                                                                 "pos": 0}}),
        "rng a string": with_state(rng="x"),
        "nfev -1": with_state(nfev=-1),
        "wall_time nan-like string": with_state(wall_time="NaN"),
        "history garbage": with_state(history=[["a"]]),
        "best a list": with_state(best=[1, 2]),
        "best with 10^6 requests": with_state(best=dict(best, a=[0] * 10**6, s=[0] * 10**6, o=[1] * 10**6)),
        "best output beyond the space": with_state(best=dict(best, o=[10**9] * len(best["o"]))),
        "best lengths mismatch": with_state(best=dict(best, a=[0])),
        "elite not a list": with_state(elite=5),
        "current missing": checkpoint({"anneal": {"kind": "search", "state": {k: v for k, v in state.items()
                                                                              if k != "current"}}}),
        "unknown method": checkpoint({"tabu": {"kind": "search", "state": state}}),
        "state null": checkpoint({"anneal": {"kind": "search", "state": None}}),
        "space of another search": json.dumps({"space": dict(space.to_dict(), memory=13), "seed": 0,
                                               "methods": {}}),
        "seed a string": json.dumps({"space": space.to_dict(), "seed": "x", "methods": {}}),
        "truncated": checkpoint({"anneal": {"kind": "search", "state": state}})[:200],
    }
    return variants


def forged_score_case() -> Case:
    """A checkpoint whose saved best score is forged (99): must not be reported as search_best."""
    def files() -> dict[str, str]:
        space, saved = _saved_search()
        state = dict(saved, best=dict(saved["best"], score=99.0), current=dict(saved["current"], score=99.0),
                     elite=[dict(e, score=99.0) for e in saved["elite"]])
        text = json.dumps({"space": space.to_dict(), "seed": 0,
                           "methods": {"anneal": {"kind": "search", "state": state}}})
        return {"h/checkpoint.json": text}

    def check(stdout: str) -> str | None:
        data = json.loads(stdout)
        best = data["methods"]["anneal"]["search_best"]
        return f"search_best {best} is the forged score" if best >= 99 else None

    argv = ["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--method", "anneal", "--time", "0.5",
            "--quiet", "--resume", "--out", "h", "--json"]
    return Case("hunt --resume: forged score 99", argv, files, "answer", check)


# ---------------------------------------------------------------- tampered witnesses

WITNESS_FILE = ROOT / "docs" / "witnesses" / "svf_burst_alpha0.5_ratio1.345.json"
WITNESS = json.loads(WITNESS_FILE.read_text())


def json_paths(node, path=()):
    """Every (path, value) in a JSON tree, containers included."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from json_paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from json_paths(value, path + (index,))


def set_at(data, path, value):
    """A copy of ``data`` with the value at ``path`` replaced."""
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def remove_at(data, path):
    """A copy of ``data`` without the entry at ``path``."""
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return data


_SENTINEL = 7.25e300  # stands for a non-finite literal until the text is written


def _text(data) -> str:
    return json.dumps(data)


def with_literal(path, literal: str) -> str:
    """The witness with the value at ``path`` written as ``literal`` (NaN, Infinity: not JSON)."""
    return _text(set_at(WITNESS, path, _SENTINEL)).replace(json.dumps(_SENTINEL), literal)


def independent_numbers(data) -> dict:
    """The numbers a correct check-witness prints for this (parsed) witness, by other code:
    the step-by-step reference simulator and a per-step memory sum."""
    from stepwise_reference import stepwise_simulate

    from geosched.reference_impl.model import instance_from_dict
    from geosched.reference_impl.policies import make_policy

    instance = instance_from_dict(data["instance"])
    outputs = [r.output for r in instance.requests]
    hand_keys = {"fcfs": [0] * instance.n, "sjf": outputs,
                 "svf": [r.prompt * r.output + (r.output**2 + r.output) // 2 for r in instance.requests]}
    keys = hand_keys.get(data["policy"]) or make_policy(data["policy"]).keys(instance, outputs)
    policy_starts, _ = stepwise_simulate(instance, keys, outputs)
    witness = data["witness_schedule"]["starts"]

    def tel(starts):
        return sum(starts[r.id] + r.output - r.arrival for r in instance.requests)

    def feasible(starts):
        if set(starts) != {r.id for r in instance.requests}:
            return False
        if any(not isinstance(starts[r.id], int) or starts[r.id] < r.arrival for r in instance.requests):
            return False
        horizon = max(starts[r.id] + r.output for r in instance.requests)
        return all(sum(r.prompt + t - starts[r.id] for r in instance.requests
                       if starts[r.id] < t <= starts[r.id] + r.output) <= instance.memory
                   for t in range(horizon + 1))

    return {"policy_tel": tel(policy_starts), "witness_tel": tel(witness) if feasible(witness) else None,
            "memory": instance.memory, "n": instance.n}


def tampers():
    """(label, text) for every field of the witness: changed, removed, duplicated, NaN,
    Infinity, null."""
    out = []
    for path, value in json_paths(WITNESS):
        if not path:
            continue
        label = ".".join(map(str, path))
        changes = []
        if isinstance(value, bool) or value is None:
            changes = [1, "x"]
        elif isinstance(value, int):
            changes = [value + 1, value - 1, 2 * value + 3, 0, -value - 1, value + 0.5, str(value), 2**63]
        elif isinstance(value, float):
            changes = [value * 1.01, value * 0.99, value + 1, 0.0, -value, 1e308, str(value), 2]
        elif isinstance(value, str):
            changes = [value + "x", "", "sjf", "svf1", "fcfs", 5]
        elif isinstance(value, (list, dict)):
            changes = [[], {}, "x"]
        for change in changes:
            out.append((f"{label} = {change!r}", _text(set_at(WITNESS, path, change))))
        out.append((f"remove {label}", _text(remove_at(WITNESS, path))))
        out.append((f"null {label}", _text(set_at(WITNESS, path, None))))
        for literal in ("NaN", "Infinity"):
            out.append((f"{literal} {label}", with_literal(path, literal)))
        if not isinstance(path[-1], int):
            text = _text(WITNESS)
            marker = json.dumps(path[-1]) + ": "
            at = text.index(marker)
            duplicate = json.dumps(value + 1 if isinstance(value, (int, float)) and not isinstance(value, bool)
                                   else "x")
            out.append((f"duplicate {label}", text[:at] + marker + duplicate + ", " + text[at:]))
    return out


def _check_witness(text: str):
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "w.json").write_text(text)
        return run_cli(["check-witness", "w.json", "--json"], Path(folder))


@functools.lru_cache(maxsize=1)
def _original_report() -> dict:
    return json.loads(_check_witness(_text(WITNESS)).stdout)


TAMPER_OK = ("rejected", "malformed", "harmless", "re-derived")


def tamper_verdict(text: str) -> str:
    """What ``check-witness --json`` did with a tampered witness: one of :data:`TAMPER_OK`
    (``rejected``: exit 1 with problems; ``malformed``: a clean exit-2 error; ``harmless``: the
    untampered numbers; ``re-derived``: other numbers, each equal to the independent
    re-computation of :func:`independent_numbers`), or a description of what went wrong
    (``ACCEPTED WITH WRONG ...`` is a forged number accepted)."""
    original = _original_report()
    run = _check_witness(text)
    if run.traceback:
        return f"traceback: {run.describe()}"
    if run.code == 2:
        return "malformed" if run.clean_error else f"unclean: {run.describe()}"
    report = json.loads(run.stdout)
    if run.code == 1:
        return "rejected" if not report["ok"] and report["problems"] else f"exit 1 without problems: {report}"
    keys = ("policy_tel", "witness_tel", "certified_ratio_exact", "memory", "n", "alpha_exact", "lower_bound")
    if all(report[k] == original[k] for k in keys) and report["ratio_upper_exact"] in (None,
                                                                                      original["ratio_upper_exact"]):
        return "harmless"
    truth = independent_numbers(json.loads(text))
    wrong = [k for k in ("policy_tel", "witness_tel", "memory", "n") if report[k] != truth[k]]
    if truth["witness_tel"] and report["certified_ratio_exact"] != str(Fraction(truth["policy_tel"],
                                                                                truth["witness_tel"])):
        wrong.append("certified_ratio")
    if report["ratio_upper_exact"] is not None and (
            report["lower_bound"] > truth["witness_tel"]
            or Fraction(report["ratio_upper_exact"]) != Fraction(truth["policy_tel"], report["lower_bound"])):
        wrong.append("ratio_upper")
    return f"ACCEPTED WITH WRONG {wrong}" if wrong else "re-derived"


OUTCOMES = ("clean error", "answered", "refused cleanly", "traceback", "accepted", "unclean error", "wrong answer")


def classify(case: Case, run) -> tuple[str, str]:
    """``(outcome, detail)``: one of :data:`OUTCOMES`.

    For a bad input (``expect == "error"``): ``clean error`` is right; ``accepted`` (exit 0)
    means a lenient input went through. For an extreme valid input: ``answered`` (exit 0 or 1
    with numbers the case's check re-derives) or ``refused cleanly`` are right; ``wrong answer``
    is a number the check contradicts (a silent wrong answer).
    """
    if run.traceback:
        return "traceback", run.describe()
    if case.expect in ("terminated", "interrupted"):  # one line, exit 143 (SIGTERM) or 130 (Ctrl-C), nothing left
        lines = run.stderr.strip().splitlines()
        code = 143 if case.expect == "terminated" else 130
        if run.code == code and len(lines) == 1 and lines[0].startswith("geosched:") and not run.changed:
            if "--resume" in lines[0] and "hunt" not in case.argv:  # a promise only a hunt keeps
                return "unclean error", f"the line promises --resume: {lines[0]}"
            return "answered", ""
        return "unclean error", run.describe()
    if case.expect == "error":
        if run.clean_error:
            return "clean error", ""
        return ("accepted" if run.code == 0 else "unclean error"), run.describe()
    if run.clean_error:
        return "refused cleanly", run.stderr.strip()
    warnings_only = all(line.startswith("geosched: warning: ") for line in run.stderr.strip().splitlines())
    if run.code in (0, 1) and warnings_only:  # a warning beside an answer is not an error
        why = case.check(run.stdout) if case.check is not None else None
        return ("answered", "") if why is None else ("wrong answer", why)
    return "unclean error", run.describe()


def all_cases() -> list[Case]:
    """Every case of the campaign (bad inputs and extreme valid inputs)."""
    from reliability_bound_cases import work_bound_cases  # they build on Case: imported here, not above
    from reliability_isolation_cases import isolation_cases
    from reliability_referee_cases import data_file_code_cases, export_rederive_cases

    return (overflow_cases() + _json_instance_cases() + _schedule_cases() + _csv_cases() + _generator_cases()
            + _flag_cases() + _witness_cases() + _hunt_resume_cases() + [forged_score_case()]
            + input_cases()  # issue 21's input categories (tests/reliability_inputs.py)
            + data_file_code_cases()  # issue 30: files naming code (tests/reliability_referee_cases.py)
            + export_rederive_cases()  # issue 41: exports carry only the referee's numbers
            + isolation_cases()  # issue 41: user schedulers, signals, writers, bodies (reliability_isolation_cases.py)
            + work_bound_cases())  # issue 30: work bounds, signals, peers, decisions (tests/reliability_bound_cases.py)
