"""Issue 30: a certificate depends only on the instance, and no data file runs code.

* Every shipped witness (``docs/witnesses/*.json``, a glob) verifies with numbers equal to an
  independent recomputation (``tests/witness_audit.py``: ``truth``).
* Every leaf of every shipped witness tampered (numbers +1, -1, x2 and another valid value;
  strings to other valid values; one sampled leaf per per-request collection and file, all
  the others, and a block size added to the token-grain vLLM witnesses) is refused, rejected,
  harmless or re-derived to true numbers (``witness_audit.tampers(path, samples=1)``).
* The audit can fail: a referee that takes the engine's capacity from the file is caught, and so
  is one that takes the block grain from the file's engine record instead of the instance.
* The cases of the issue: ``instance.memory = 400`` of the 15.264 witness; the block size of the
  block-16 witness changed (since issue 31 the block size is the instance's ``block_size``: a
  changed one, or one added to a token-grain witness, differs from the engine record and is
  refused; the old spelling ``vllm-fcfs:block=64`` in the name is refused too); ``--vllm --json``;
  an engine that cannot serve its instance.
* A witness naming a scheduler file (relative or absolute) never imports it; ``--scheduler``
  runs the file the user names only when its SHA-256 is the recorded one; a ``vllm-bench``
  file naming a vLLM scheduler class is refused before vLLM is asked to import it.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from cli_harness import run_cli
from witness_audit import OK_VERDICTS, WITNESS_FILES, judge, leaves, pattern, tampers, truth, verify_api

from geosched.adversary.witness import make_witness, verify_witness
from geosched.errors import GeoschedError
from geosched.reference_impl.model import burst_instance

IDS = [p.stem for p in WITNESS_FILES]
FCFS_15 = next(p for p in WITNESS_FILES if p.name == "vllm-fcfs_burst_ratio15.264.json")
BLOCK_16 = next(p for p in WITNESS_FILES if p.name.startswith("vllm-fcfs_block16_"))


def _data(path: Path) -> dict:
    return json.loads(path.read_text())


def test_the_glob_finds_every_kind_of_witness():
    policies = {_data(p)["policy"].partition(":")[0] for p in WITNESS_FILES}
    assert {"fcfs", "sjf", "svf", "svf1", "geo-guess", "vllm-fcfs", "vllm-priority"} <= policies
    assert any(_data(p)["instance"].get("block_size", 1) > 1 for p in WITNESS_FILES)  # block grain: the instance's


@pytest.mark.parametrize("path", WITNESS_FILES, ids=IDS)
def test_shipped_witness_numbers_equal_an_independent_recomputation(path):
    data = _data(path)
    report = verify_api(data)
    assert report is not None and report["ok"], report
    expected = truth(data)
    for key, value in expected.items():
        if key == "engine":
            assert {k: report["engine"][k] for k in value} == value
        else:
            assert report[key] == value, key
    assert report["lower_bound"] <= expected["witness_tel"]


@pytest.mark.parametrize("path", WITNESS_FILES, ids=IDS)
def test_every_tampered_leaf_is_refused_or_rederived(path):
    original = _data(path)
    original_report = verify_api(original)
    cases = tampers(path, samples=1)
    # every kind of leaf of the file is tampered (one sampled position per per-request collection)
    tampered_patterns = {pattern(tuple(_label_path(label, original))) for label, _ in cases
                         if not label.endswith("(added)")}
    kinds = {pattern(p) for p, _ in leaves(original)}
    assert kinds <= tampered_patterns, kinds - tampered_patterns
    wrong = []
    for label, data in cases:
        verdict = judge(verify_api(data), data, original, original_report)
        if verdict not in OK_VERDICTS:
            wrong.append(f"{label}: {verdict}")
    assert not wrong, wrong[:10]


def _label_path(label: str, data: dict) -> list:
    """The leaf path of a tamper label ``"file: a.b.3.c = value"`` (list positions as ints)."""
    dotted = label.split(": ", 1)[1].split(" = ", 1)[0]
    path, node = [], data
    for part in dotted.split("."):
        key = int(part) if isinstance(node, list) else part
        path.append(key)
        node = node[key]
    return path


def test_the_audit_catches_a_referee_that_takes_the_engine_from_the_file(monkeypatch):
    """The bug of issue 30, put back: the vLLM engine sized from the file's M = 200, whatever
    the instance says. Raising instance.memory to 400 is then verified with the old numbers,
    and the audit calls it a wrong certificate."""
    import geosched.adversary.targets as targets
    import geosched.adversary.witness as witness_module
    from geosched.reference_impl.model import Instance

    real_engine, real_run = targets.vllm_engine, targets.VllmTarget.run

    def engine_from_the_file(instance, policy):
        return real_engine(Instance(200, instance.requests), policy)

    def run_from_the_file(self, instance):
        return real_run(self, Instance(200, instance.requests))

    monkeypatch.setattr(witness_module, "vllm_engine", engine_from_the_file)
    monkeypatch.setattr(targets.VllmTarget, "run", run_from_the_file)
    original = _data(FCFS_15)
    tampered = json.loads(json.dumps(original))
    tampered["instance"]["memory"] = 400
    verdict = judge(verify_api(tampered), tampered, original, verify_api(original))
    assert verdict.startswith("ACCEPTED WITH WRONG") and "policy_tel" in verdict


# ---------------------------------------------------------------- the cases, through the CLI


def _check(tmp_path: Path, data: dict, *flags: str):
    (tmp_path / "w.json").write_text(json.dumps(data))
    return run_cli(["check-witness", "w.json", *flags], tmp_path)


def test_raised_memory_of_the_vllm_witness_is_rejected_naming_the_engine(tmp_path):
    data = _data(FCFS_15)
    data["instance"]["memory"] = 400
    run = _check(tmp_path, data)
    assert run.code == 1 and not run.traceback and len(run.stderr.splitlines()) == 1
    assert "engine.capacity_blocks: stated 200" in run.stderr and "has 400" in run.stderr
    assert "OK" not in run.stdout


def test_a_block_size_of_the_instance_that_differs_from_the_engine_is_refused(tmp_path):
    data = _data(BLOCK_16)
    assert data["instance"]["block_size"] == 16 and data["policy"] == "vllm-fcfs"
    data["instance"]["block_size"] = 64  # divides M: a valid instance, certified at 16 by its engine record
    run = _check(tmp_path, data)
    assert run.clean_error and "engine: block_size 16 differs from the instance's block_size 64" in run.stderr
    assert "OK" not in run.stdout
    added = _data(FCFS_15)  # token grain: no block_size key; one added differs from the engine's 1
    added["instance"]["block_size"] = 8
    run = _check(tmp_path, added)
    assert run.clean_error and "engine: block_size 1 differs from the instance's block_size 8" in run.stderr
    data["engine"]["capacity_blocks"], data["engine"]["block_size"] = 50, 64  # a consistent lie: the run says so
    run = _check(tmp_path, data, "--json")
    assert run.code == 1 and json.loads(run.stdout)["problems"]
    old = _data(BLOCK_16)
    old["policy"] = "vllm-fcfs:block=64"  # the spelling before issue 31: refused, whatever B
    run = _check(tmp_path, old)
    assert run.clean_error and "block size is the instance's block_size" in run.stderr
    old["policy"] = "vllm-fcfs:block=16"  # even naming the instance's own block size
    assert _check(tmp_path, old).clean_error


def test_the_audit_catches_a_referee_that_takes_the_grain_from_the_engine_record(monkeypatch):
    """A referee that reads the block size from the file's ``engine`` record (the instance's own
    ``block_size`` overwritten with it): the block-16 witness with ``instance.block_size = 32``
    is then verified with its block-16 numbers, and the audit calls it a wrong certificate."""
    import geosched.adversary.witness as witness_module

    real = witness_module.witness_from_dict

    def grain_from_the_engine(data, **kwargs):
        parsed = real(data, **kwargs)
        if parsed.get("engine"):
            parsed["instance"] = parsed["instance"].with_block_size(parsed["engine"]["block_size"])
        return parsed

    monkeypatch.setattr(witness_module, "witness_from_dict", grain_from_the_engine)
    original = _data(BLOCK_16)
    tampered = json.loads(json.dumps(original))
    tampered["instance"]["block_size"] = 32
    verdict = judge(verify_api(tampered), tampered, original, verify_api(original))
    assert verdict.startswith("ACCEPTED WITH WRONG") and "block_size" in verdict


def test_an_engine_that_cannot_serve_the_instance_is_one_line(tmp_path):
    data = _data(FCFS_15)
    data["instance"]["memory"] = 100_000
    data["instance"]["requests"][0]["output"] = 40_000  # s + 1 + o past vLLM's max_model_len 32768
    run = _check(tmp_path, data)
    assert run.clean_error and "max_model_len" in run.stderr and "request 'r000'" in run.stderr
    data = _data(BLOCK_16)
    data["instance"]["memory"] = 3201  # not a multiple of the instance's block size (the Instance refuses it)
    run = _check(tmp_path, data)
    assert run.clean_error and "memory" in run.stderr and "3201" in run.stderr


def test_vllm_json_reports_the_replay_and_never_skips_it_silently(tmp_path):
    data = _data(FCFS_15)
    data["instance"]["memory"] = 400
    run = _check(tmp_path, data, "--vllm", "--json")
    assert run.code == 1 and json.loads(run.stdout)["vllm_replay"]["status"] == "not_run"
    run = _check(tmp_path, _data(WITNESS_FILES[0]), "--vllm", "--json")
    assert run.clean_error and "--vllm" in run.stderr  # not a vLLM witness: said, not skipped


@pytest.mark.vllm
def test_vllm_json_replays_on_the_engine_derived_from_the_instance(tmp_path):
    pytest.importorskip("vllm")
    inst = burst_instance(12, [(6, 3), (1, 5), (2, 2)])
    witness = make_witness(inst, "vllm-priority", {"r0": 0, "r1": 3, "r2": 8}, found_by="hand").to_dict()
    run = _check(tmp_path, witness, "--vllm", "--json")
    assert run.code == 0, run.describe()
    report = json.loads(run.stdout)
    replay = report["vllm_replay"]
    assert replay["status"] == "agree" and replay["vllm_tel"] == report["policy_tel"] == replay["model_tel"]
    assert replay["witness_tel"] == report["witness_tel"] and report["engine"]["capacity_blocks"] == 12


# ---------------------------------------------------------------- no data file runs code


MARKER_CODE = textwrap.dedent("""
    import pathlib
    pathlib.Path({marker!r}).write_text("imported")
    from geosched.reference_impl.scheduling import Decision


    class X:
        name = "x"
        clairvoyant = False
        preempts = False

        def decide(self, state):
            return Decision(admit=tuple(w.id for w in state.waiting[:1]) if not state.running else ())
""")


def _scheduler_file(path: Path, marker: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MARKER_CODE.format(marker=str(marker)))
    return path


@pytest.mark.parametrize("where", ["relative", "absolute"])
def test_a_witness_naming_a_scheduler_file_never_imports_it(tmp_path, where):
    marker = tmp_path / "MARKER"
    code = _scheduler_file(tmp_path / "sub" / "p.py", marker)
    data = _data(WITNESS_FILES[0])
    data["policy"] = "sub/p.py:X" if where == "relative" else f"{code}:X"
    for flags in ([], ["--json"], ["--vllm"]):
        run = _check(tmp_path, data, *flags)
        assert run.clean_error, run.describe()
    assert "--scheduler" in _check(tmp_path, data).stderr
    with pytest.raises(GeoschedError, match="never runs code"):
        verify_witness(data)
    data["scheduler_sha256"] = "0" * 64  # a recorded hash of another file: refused before the import
    run = _check(tmp_path, data, "--scheduler", "sub/p.py:X")
    assert run.clean_error and "SHA-256" in run.stderr
    for argv in (["export", "w.json", "--format", "jsonl", "--out", "o.jsonl"], ["simulate", "w.json"]):
        run_cli(argv, tmp_path)  # a witness read as a workload: its instance only
    assert not marker.exists()


def test_the_file_the_user_names_runs_when_its_hash_is_the_recorded_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "MARKER"
    _scheduler_file(tmp_path / "mine.py", marker)
    inst = burst_instance(12, [(6, 3), (1, 5)])
    witness = make_witness(inst, "mine.py:X", {"r0": 0, "r1": 3}, found_by="hand").to_dict()
    assert witness["scheduler_sha256"] and marker.exists()  # the caller named it: it ran
    marker.unlink()
    assert verify_witness(witness, scheduler="mine.py:X").ok
    run = _check(tmp_path, witness, "--scheduler", "mine.py:X")
    assert run.code == 0 and "SHA-256" in run.stdout
    _scheduler_file(tmp_path / "other" / "mine.py", tmp_path / "OTHER")
    Path("other/mine.py").write_text(Path("other/mine.py").read_text() + "# another file\n")
    run = _check(tmp_path, witness, "--scheduler", "other/mine.py:X")
    assert run.clean_error and "not the file the witness was made with" in run.stderr
    assert not (tmp_path / "OTHER").exists()
    run = _check(tmp_path, witness, "--scheduler", "mine.py:Y")
    assert run.clean_error and "--scheduler" in run.stderr


def test_a_vllm_bench_file_naming_a_scheduler_class_is_refused(tmp_path, monkeypatch):
    from geosched.errors import WorkloadFormatError
    from geosched.reference_impl.vllm.engine_replay import replay_in_engine_core

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "evil_sched.py").write_text(f"open({str(tmp_path / 'MARKER')!r}, 'w').write('x')\n")
    assert run_cli(["export", str(FCFS_15), "--format", "vllm-bench", "--out", "w.jsonl"], tmp_path).code == 0
    rows = (tmp_path / "w.jsonl").read_text().splitlines()
    head = json.loads(rows[0])
    head["geosched_workload"]["server"]["scheduler_cls"] = "evil_sched.Evil"
    (tmp_path / "w.jsonl").write_text("\n".join([json.dumps(head), *rows[1:]]) + "\n")
    with pytest.raises(WorkloadFormatError, match="scheduler_cls"):
        replay_in_engine_core(tmp_path / "w.jsonl")
    assert not (tmp_path / "MARKER").exists() and "evil_sched" not in sys.modules
