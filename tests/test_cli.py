"""The command line: outputs, JSON contract, one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from geosched.cli import main
from geosched.reference_impl import scheduler_names

BUILT_IN = ("fcfs", "geo-batch", "geo-guess", "sjf", "svf", "svf1", "vllm-fcfs")  # (and vllm-priority, last)
# what an unknown --policy lists: a scheduler file, then every name of the registry (a new one among them)
KNOWN = "known: " + ", ".join(sorted(["FILE.py:Class", *scheduler_names()]))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


README = {"memory": 12, "requests": [{"id": "r0", "arrival": 0, "prompt": 6, "output": 3},
                                     {"id": "r1", "arrival": 0, "prompt": 1, "output": 5}]}


def test_compare_readme_instance_with_opt(tmp_path, capsys):
    path = write(tmp_path, "i.json", README)
    code, out, _ = run(capsys, "compare", path, "--opt", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["policies"]["svf"]["tel"] == 13
    assert data["policies"]["svf"]["starts"] == {"r0": 5, "r1": 0}
    assert data["opt"]["status"] == "optimal" and data["opt"]["tel"] == 9
    assert data["memory"] == 12 and data["lower_bound"] <= 9
    assert set(data["policies"]["sjf"]) >= {"tel", "mean_latency", "p95_latency", "makespan", "throughput", "starts"}
    code, out, _ = run(capsys, "compare", path, "--opt")
    assert code == 0 and "OPT" in out and "status=optimal" in out
    svf_row = next(line for line in out.splitlines() if line.startswith("svf "))
    assert svf_row.split()[1] == "13" and svf_row.split()[-1] == f"{13 / 9:.3f}"


def test_simulate_and_check_round_trip(tmp_path, capsys):
    path = write(tmp_path, "i.json", README)
    code, out, _ = run(capsys, "simulate", path, "--policy", "svf", "--json")
    assert code == 0
    starts = json.loads(out)["starts"]
    schedule = write(tmp_path, "s.json", {"starts": starts})
    code, out, _ = run(capsys, "check", path, schedule, "--json")
    assert code == 0 and json.loads(out)["feasible"] and json.loads(out)["metrics"]["tel"] == 13
    bad = write(tmp_path, "bad.json", {"r0": 0, "r1": 0})
    code, out, _ = run(capsys, "check", path, bad)
    assert code == 1 and "INFEASIBLE" in out and "step 3" in out


def test_opt_command(tmp_path, capsys):
    path = write(tmp_path, "i.json", README)
    code, out, _ = run(capsys, "opt", path, "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["tel"] == 9 and data["starts"] == {"r0": 0, "r1": 1}


def test_memory_and_seed_options(capsys):
    code, out, _ = run(capsys, "simulate", "burst:n=6", "--seed", "4", "--memory", "80", "--json")
    assert code == 0 and json.loads(out)["memory"] == 80
    code, out2, _ = run(capsys, "simulate", "burst:n=6", "--seed", "4", "--memory", "80", "--json")
    assert out == out2


@pytest.mark.parametrize(
    "argv, pattern",
    [
        (["simulate", "example", "--policy", "lifo"], f"unknown policy 'lifo'; {KNOWN}"),  # every name, not the 4 rules
        (["simulate", "{dir}/neg.json"], "request 'a': prompt: must be >= 0 (got -1)"),
        (["simulate", "{dir}/big.json"], "request 'a': prompt + output: must be <= memory 4"),
        (["simulate", "{dir}/broken.json"], "invalid JSON"),
        (["simulate", "{dir}/extra.json"], "unexpected key(s) 'priority'"),
        (["simulate", "example", "--memory", "5"], "request 'r0': prompt + output: must be <= memory 5"),
        (["compare", "example", "--policies", "svf,nope"], "unknown policy 'nope'"),
        (["simulate", "{dir}/missing.json"], "cannot read"),
        (["simulate", "example", "--predictor", "noisy:sigma=-1"], "sigma"),
    ],
)
def test_user_errors_are_one_line_exit_2(tmp_path, capsys, argv, pattern):
    write(tmp_path, "neg.json", {"memory": 9, "requests": [{"id": "a", "arrival": 0, "prompt": -1, "output": 2}]})
    write(tmp_path, "big.json", {"memory": 4, "requests": [{"id": "a", "arrival": 0, "prompt": 3, "output": 2}]})
    write(tmp_path, "broken.json", '{"memory": 4,')
    write(tmp_path, "extra.json", {"memory": 9, "requests": [
        {"id": "a", "arrival": 0, "prompt": 1, "output": 2, "priority": 1}]})
    argv = [a.replace("{dir}", str(tmp_path)) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.startswith("geosched: error: ") and len(err.strip().splitlines()) == 1
    assert pattern in err
    assert "Traceback" not in err


def test_entry_point_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "geosched.cli", "simulate", "example", "--policy", "lifo"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"geosched: error: unknown policy 'lifo'; {KNOWN}"
    assert all(f" {name}," in KNOWN for name in BUILT_IN)


def test_memory_is_an_option_only_where_a_command_reads_it():
    # issue 31: claims, prove, predictor, lessons (and check-witness, family) accepted --memory and ignored it
    import argparse

    from geosched.cli import build_parser

    def commands(parser, path=()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from commands(sub, (*path, name)) if sub._subparsers else [((*path, name), sub)]

    with_memory = {" ".join(path) for path, sub in commands(build_parser())
                   if any("--memory" in a.option_strings for a in sub._actions)}
    assert with_memory == {"simulate", "compare", "opt", "check", "export", "hunt", "z3-bisect", "cluster",
                           "vllm-diff", "plot"}
    for argv in (["claims", "--memory", "5"], ["prove", "kong.volume", "--memory", "5"],
                 ["lessons", "--memory", "5"], ["predictor", "eval", "--memory", "5"]):
        with pytest.raises(SystemExit) as info:
            build_parser().parse_args(argv)
        assert info.value.code == 2, argv
