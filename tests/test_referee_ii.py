"""Issue 41 (Referee II): no data file names code, exports re-derive, every command bounded, a user's
scheduler cannot hold the process.

The campaign's cases of each item are in ``tests/reliability_*cases.py`` (run by ``test_reliability.py``
and ``benchmarks/reliability_campaign.py``); the tests here look inside: the bound's numbers, the gate's
answer for each kind of name, the exported header against the referee's report. No test waits on a
clock: a search's deadline is a fake clock, a looping ``decide()`` never returns by itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from geosched.cli import main
from geosched.errors import LimitError, ValidationError, WorkloadFormatError
from geosched.reference_impl.scheduling import DecisionError

# ---------------------------------------------------------------- item 3: hunt-small is bounded before it starts


def _one_line(capsys, code: int, argv: list[str], *needles: str) -> str:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    assert status == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("geosched: error:"), err
    for needle in needles:
        assert needle in err[0], err[0]
    return err[0]


SMALL = ["hunt-small", "--policy", "svf", "--alpha-min", "0.5", "--alpha-max", "0.75", "--requests", "3",
         "--memory-range", "6", "8"]


@pytest.mark.parametrize(("extra", "needles"), [
    (["--evals", str(10**12)], ("--evals 1000000000000", "10000000")),
    (["--climb", str(10**12)], ("--climb", "1000000000000")),
    (["--climb", "1"], ("--climb",)),
    (["--evals", "1000000", "--time", "5"], ("--evals 1000000", "--time 5")),
])
def test_hunt_small_refuses_an_unbounded_plan_in_one_line(capsys, tmp_path, extra, needles):
    out = tmp_path / "w.json"
    _one_line(capsys, 2, [*SMALL, *extra, "--out", str(out)], *needles)
    assert not out.exists()


def test_small_search_checks_its_budget_before_any_evaluation(monkeypatch):
    from geosched.adversary import smalln

    def no_walk(*args, **kwargs):
        raise AssertionError("a walk started")

    monkeypatch.setattr(smalln, "anneal", no_walk)
    with pytest.raises(LimitError, match="past --time 1 s"):
        smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=20000, time_limit=1.0)
    with pytest.raises(ValidationError, match="time_limit"):
        smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=20, time_limit=float("nan"))


class _Clock:
    """A fake ``time.perf_counter`` that advances ``tick`` seconds at every reading."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        self.now += self.tick
        return self.now


def test_small_search_stops_at_its_time_limit_and_says_so(monkeypatch):
    from geosched.adversary import smalln

    monkeypatch.setattr(smalln.time, "perf_counter", _Clock(1.0))  # each reading: one more second
    result = smalln.small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=2000, climb_evals=40,
                                 time_limit=10.0)
    assert result.stopped == "time"
    assert result.nfev < 2000
    assert "stopped at --time 10 s" in result.message


def test_small_search_that_ends_by_its_evaluations_says_evaluations():
    from geosched.adversary.smalln import small_search

    result = small_search("svf", n_max=3, memory=(6, 8), band=(0.5, 0.75), max_evals=80, climb_evals=40,
                          time_limit=3600.0)
    assert result.stopped == "evaluations" and result.nfev >= 80
    assert "stopped" not in result.message


# ---------------------------------------------------------------- item 1: one gate for names of code

ROOT = Path(__file__).resolve().parent.parent
FCFS_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_burst_ratio15.264.json"
SHA = "ab" * 32


@pytest.mark.parametrize(("data", "field"), [
    ({"policy": "evil.Evil"}, "policy"),
    ({"policy": "sub/p.py:X"}, "policy"),  # a scheduler file, not pinned by a scheduler_sha256
    ({"policy": "svf1:theta=a.b"}, "policy"),  # a registered name with a parameter naming a module
    ({"space": {"policy": "evil:Evil"}}, "space.policy"),
    ({"geosched_workload": {"server": {"scheduler_cls": "evil.Evil"}}}, "geosched_workload.server.scheduler_cls"),
    ({"server": {"worker_cls": "evil.Evil"}}, "server.worker_cls"),
    ({"server": {"scheduling_policy": "evil.Evil"}}, "server.scheduling_policy"),
    ({"rows": [{"x": 1}, {"model_class": "torch.nn.Linear"}]}, "rows[1].model_class"),
    ({"engine": {"preemption": {"module": "os"}}}, "engine.preemption"),
    ({"plugins": ["evil"]}, "plugins"),
])
def test_the_gate_refuses_every_field_naming_code_in_one_line_naming_it(data, field):
    from geosched.reference_impl.code_names import refuse_code_names

    with pytest.raises(WorkloadFormatError) as caught:
        refuse_code_names(data, "f.json")
    message = str(caught.value)
    assert message.startswith(f"f.json: {field} ") and "names code" in message and "\n" not in message


@pytest.mark.parametrize("data", [
    {"policy": "svf"}, {"policy": "svf1:theta=8,eta=0.5"}, {"policy": "vllm-priority"}, {"policy": None},
    {"engine": {"preemption": "priority"}}, {"server": {"scheduling_policy": "fcfs", "scheduler_cls": None}},
    {"server": {"scheduler_cls": "geosched.reference_impl.vllm.plugin.GeoschedScheduler"}},
    {"policy": "mine/sched.py:Mine", "scheduler_sha256": SHA},  # a witness of the user's own file: a label
    {"server": {"scheduler_cls": "mine.py:Mine", "scheduler_sha256": SHA}},
    {"tie_rule": "by volume, then evil.Evil", "found_by": "hunt.py:X"},  # free text is not a field naming code
])
def test_the_gate_lets_built_in_names_and_pinned_labels_through(data):
    from geosched.reference_impl.code_names import refuse_code_names

    refuse_code_names(data, "f.json")


def test_the_gate_skips_the_fields_the_command_line_fills_and_walks_any_depth():
    from geosched.reference_impl.code_names import refuse_code_names

    refuse_code_names({"space": {"policy": "sub/p.py:X"}}, "c.json", own={"policy"})
    deep: dict = {"policy": "evil.Evil"}
    for _ in range(100_000):  # far past the recursion limit: the walk is iterative
        deep = {"a": [deep]}
    with pytest.raises(WorkloadFormatError, match="names code"):
        refuse_code_names(deep, "deep.json")


def test_a_pinned_label_needs_sixty_four_hex_digits():
    from geosched.reference_impl.code_names import refuse_code_names

    for sha in ("ab", "AB" * 32, 7, None):
        with pytest.raises(WorkloadFormatError):
            refuse_code_names({"policy": "p.py:X", "scheduler_sha256": sha}, "w.json")


BLOCK16_WITNESS = ROOT / "docs" / "witnesses" / "vllm-fcfs_block16_burst_ratio86.176.json"


def _export(tmp_path: Path, *argv: str, witness: Path = FCFS_WITNESS) -> Path:
    out = tmp_path / "e.jsonl"
    assert main(["export", str(witness), "--format", "vllm-bench", "--out", str(out), "--no-vllm-check",
                 "--quiet", *argv]) == 0
    return out


def _set_server(path: Path, **fields) -> None:
    rows = path.read_text().splitlines()
    head = json.loads(rows[0])
    head["geosched_workload"]["server"].update(fields)
    path.write_text("\n".join([json.dumps(head), *rows[1:]]) + "\n")


REFUSE_BEFORE_VLLM = """
import sys
from geosched.cli import main
code = main(sys.argv[1:])
print("VLLM-IMPORTED" if "vllm" in sys.modules else "NO-VLLM", code)
"""


@pytest.mark.parametrize("field", ["scheduler_cls", "worker_cls", "scheduling_policy"])
def test_serve_model_refuses_a_header_naming_code_before_vllm_is_imported(tmp_path, capsys, field):
    export = _export(tmp_path)
    _set_server(export, **{field: "evil.Evil"})
    (tmp_path / "evil.py").write_text("open('MARKER', 'w').write('x')\nclass Evil: pass\n")
    done = subprocess.run([sys.executable, "-c", REFUSE_BEFORE_VLLM, "serve-model", str(export), "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": "."})
    assert done.stdout.split() == ["NO-VLLM", "2"], done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and f"server.{field} 'evil.Evil' names code" in done.stderr
    assert not (tmp_path / "MARKER").exists()


def test_an_export_of_a_scheduler_file_pins_it_and_a_server_runs_only_that_file(tmp_path, monkeypatch):
    from geosched.reference_impl.vllm.engine_replay import read_replay_settings, server_scheduler

    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text("class Mine:\n    pass\n")
    export = _export(tmp_path, "--scheduler-cls", "mine.py:Mine", witness=BLOCK16_WITNESS)
    _, _, settings = read_replay_settings(export)
    assert settings.scheduler_cls == "mine.py:Mine"
    assert settings.scheduler_sha256 == hashlib.sha256(Path("mine.py").read_bytes()).hexdigest()
    assert "SCHEDULER_CLS" in Path(str(export)[:-len(".jsonl")] + ".replay.sh").read_text()
    with pytest.raises(ValidationError, match="name that file"):
        server_scheduler(settings, None, "e.jsonl")
    assert server_scheduler(settings, "mine.py:Mine", "e.jsonl").__name__ == "Mine"
    Path("other.py").write_text("class Mine:\n    x = 1\n")
    with pytest.raises(ValidationError, match="differs from the recorded"):
        server_scheduler(settings, "other.py:Mine", "e.jsonl")
    with pytest.raises(ValidationError, match="class"):
        server_scheduler(settings, "mine.py:Other", "e.jsonl")


def test_export_refuses_a_module_path_for_the_scheduler_cls(tmp_path, capsys):
    _one_line(capsys, 2, ["export", str(FCFS_WITNESS), "--format", "vllm-bench", "--out", str(tmp_path / "e.jsonl"),
                          "--scheduler-cls", "evil.Evil"], "--scheduler-cls", "FILE.py:Class")
    assert not list(tmp_path.iterdir())


def test_the_replays_read_their_records_through_the_gate(tmp_path):
    from geosched.reference_impl.vllm.replay import read_bench_result

    (tmp_path / "bench.json").write_text(json.dumps({"latencies": [1.0], "backend_cls": "evil.Evil"}))
    with pytest.raises(WorkloadFormatError, match="backend_cls"):
        read_bench_result(tmp_path / "bench.json", 1)


# ---------------------------------------------------------------- item 2: exports carry only the referee's numbers


def test_export_plan_takes_only_a_verified_report():
    from geosched.adversary.witness import read_witness, verify_witness
    from geosched.reference_impl.formats.vllm_bench import export_plan
    from geosched.reference_impl.workloads import load_workload

    instance = load_workload(str(BLOCK16_WITNESS))
    data = read_witness(BLOCK16_WITNESS)
    for report in ({"status": "rejected", "ok": False, "policy": "vllm-fcfs"}, dict(data)):
        with pytest.raises(ValidationError, match="referee's report"):
            export_plan(instance, report)
    data["certified_ratio"] = 1000.0
    with pytest.raises(ValidationError, match="referee's report"):
        export_plan(instance, verify_witness(data).to_dict())  # the referee rejects it: no export


def test_export_of_a_tampered_witness_writes_nothing(tmp_path, capsys):
    data = json.loads(BLOCK16_WITNESS.read_text())
    data["engine"]["max_num_seqs"] = 7
    (tmp_path / "w.json").write_text(json.dumps(data))
    for fmt, out in (("vllm-bench", "e.jsonl"), ("jsonl", "e.jsonl"), ("azure-csv", "e.csv")):
        _one_line(capsys, 2, ["export", str(tmp_path / "w.json"), "--format", fmt, "--out", str(tmp_path / out)],
                  "does not verify", "engine.max_num_seqs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.json"]


def test_export_of_a_witness_of_a_scheduler_file_needs_the_file(tmp_path, capsys, monkeypatch):
    from geosched.adversary.witness import make_witness
    from geosched.reference_impl.model import burst_instance

    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text("from geosched.reference_impl.scheduling import Decision\n\n\nclass X:\n"
                               "    name = 'x'\n    clairvoyant = True\n    preempts = False\n\n"
                               "    def decide(self, state):\n"
                               "        return Decision(admit=() if state.running else (state.waiting[0].id,))\n")
    witness = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "mine.py:X", {"r0": 0, "r1": 3}, found_by="hand")
    Path("w.json").write_text(json.dumps(witness.to_dict()))
    _one_line(capsys, 2, ["export", "w.json", "--format", "jsonl", "--out", "e.jsonl"], "--scheduler")
    assert main(["export", "w.json", "--format", "jsonl", "--out", "e.jsonl", "--scheduler", "mine.py:X"]) == 0


# ---------------------------------------------------------------- item 3: option ranges


@pytest.mark.parametrize("value", [1e-9, 0.0009, 1e30, 86_400.5, float("inf"), float("nan"), 0, True])
def test_decide_seconds_outside_its_documented_range_is_refused(value):
    from geosched import limits

    with pytest.raises(ValidationError, match=r"--decide-seconds .*\[0.001, 86400\]"):
        limits.decide_seconds(value)
    assert limits.decide_seconds(0.001) == 0.001 and limits.decide_seconds(86_400) == 86_400.0


def test_max_bytes_past_what_is_built_in_memory_is_refused():
    from geosched import limits

    with pytest.raises(ValidationError, match="2 GiB"):
        limits.max_bytes(10**30)
    assert limits.max_bytes(limits.MAX_MAX_BYTES) == 2**31


def test_hash_ids_are_written_as_text_equal_to_the_list():
    from geosched.reference_impl.formats.vllm_bench import write
    from geosched.reference_impl.model import burst_instance

    rows = [json.loads(line) for line in write(burst_instance(10**6, [(40_000, 3), (17, 2)])).splitlines()]
    assert rows[0]["hash_ids"] == list(range(2501)) and rows[1]["hash_ids"] == [2501, 2502]  # ceil((s + 1) / 16)


def test_training_past_its_row_passes_is_refused_before_torch(monkeypatch):
    import numpy as np

    from geosched.reference_impl.predictors import training

    monkeypatch.setattr(training, "require_torch", lambda: pytest.fail("torch was asked for"))
    config = training.TrainingConfig("point", epochs=10**6)
    with pytest.raises(LimitError, match="row passes"):
        training._fit(config, np.zeros((2000, 1)), np.ones(2000, dtype=np.int64), 1, [1, 2])


# ---------------------------------------------------------------- item 4: a user's scheduler runs in a worker

MARKED = """
import os
import pathlib
from geosched.reference_impl.scheduling import Decision

pathlib.Path("IMPORTED").write_text(str(os.getpid()))


class Mine:
    name = "mine"
    clairvoyant = True
    preempts = False

    def decide(self, state):
        if state.time == 0 and not state.running:
            return Decision(admit=(state.waiting[0].id,))
        return Decision(admit=() if state.running else tuple(w.id for w in state.waiting[:1]))


class Exits(Mine):
    def decide(self, state):
        raise SystemExit(0)


class Opaque(Mine):
    def decide(self, state):
        return Decision(admit=(object(),))


class Plain(Mine):
    def decide(self, state):
        return "admit everything"
"""


def _instance():
    from geosched.reference_impl.model import burst_instance

    return burst_instance(12, [(6, 3), (1, 5)])


def test_a_scheduler_file_runs_in_a_worker_not_here(tmp_path, monkeypatch):
    from geosched.reference_impl.simulation import simulate
    from geosched.reference_impl.user_schedulers import UserScheduler, load_scheduler_class

    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text(MARKED)
    cls = load_scheduler_class("mine.py:Mine")
    assert issubclass(cls, UserScheduler) and cls.name == "mine" and cls.clairvoyant is True
    result = simulate(_instance(), "mine.py:Mine")
    assert result.starts == {"r0": 0, "r1": 3}  # one at a time, in order: r0 [0, 3), then r1
    assert int(Path("IMPORTED").read_text()) != os.getpid()  # the file ran, in another process
    assert not [m for m in sys.modules if m.startswith("geosched_user_")]


@pytest.mark.parametrize(("cls", "words"), [
    ("Exits", ("scheduler 'mine' at step 0", "SystemExit: 0")),
    ("Opaque", ("scheduler 'mine' at step 0", "not plain data")),
    ("Plain", ("decide() must return a Decision", "str")),
])
def test_what_a_worker_raises_or_returns_is_one_error_naming_the_scheduler(tmp_path, monkeypatch, cls, words):
    from geosched.reference_impl.simulation import simulate

    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text(MARKED)
    with pytest.raises(DecisionError) as caught:
        simulate(_instance(), f"mine.py:{cls}")
    assert all(word in str(caught.value) for word in words) and "\n" not in str(caught.value)


def test_a_local_import_is_refused_naming_the_module(tmp_path, monkeypatch):
    from geosched.reference_impl.simulation import simulate
    from geosched.reference_impl.user_schedulers import LOCAL_MODULE_REFUSAL

    monkeypatch.chdir(tmp_path)
    Path("helper_module.py").write_text("open('HELPER', 'w').write('x')\n")
    Path("uses.py").write_text("import helper_module\n" + MARKED)
    with pytest.raises(ValidationError, match=f"{LOCAL_MODULE_REFUSAL}: it imports the local module 'helper_module'"):
        simulate(_instance(), "uses.py:Mine")
    assert not Path("HELPER").exists()


def test_a_decide_past_its_limit_kills_the_worker_and_the_next_run_starts_a_fresh_one(tmp_path, monkeypatch):
    from geosched.reference_impl.simulation import simulate

    monkeypatch.chdir(tmp_path)
    Path("spin.py").write_text(MARKED + "\n\nclass Spin(Mine):\n    def decide(self, state):\n"
                               "        while True:\n            try:\n                pass\n"
                               "            except BaseException:\n                pass\n")
    with pytest.raises(LimitError, match="ran past its limit of 0.05 s"):
        simulate(_instance(), "spin.py:Spin", decide_seconds=0.05)
    assert simulate(_instance(), "spin.py:Mine").starts == {"r0": 0, "r1": 3}


# ---------------------------------------------------------------- item 5: signals, writers, server bodies


def test_a_second_writer_of_the_same_target_is_refused_naming_the_first(tmp_path):
    from geosched.output import OutputError, writer_lock

    with writer_lock(tmp_path / "s.json"):
        with pytest.raises(OutputError, match=f"another geosched is writing it .pid {os.getpid()}"):
            with writer_lock(tmp_path / "sub" / ".." / "s.json"):  # the same file by another spelling
                pass
        with writer_lock(tmp_path / "t.json"):  # another target: no conflict
            pass
    with writer_lock(tmp_path / "s.json"):  # released
        pass


def test_each_command_says_what_it_keeps_when_stopped():
    import signal as signals

    from geosched.cli import _stopped, build_parser

    parser = build_parser()
    hunt = parser.parse_args(["hunt", "--policy", "sjf"])
    simulate = parser.parse_args(["simulate"])
    assert _stopped(hunt, signals.SIGTERM) == ("geosched: terminated (SIGTERM); what was saved is kept: the "
                                                "checkpoint in --out (continue with --resume)", 143)
    assert _stopped(simulate, signals.SIGINT) == ("geosched: interrupted", 130)


@pytest.mark.parametrize(("body", "words"), [
    ({"prompt": [1], "stream": True, "stream_options": "yes"}, "stream_options must be an object"),
    ({"prompt": [1], "stream": True, "stream_options": {"include_usage": 1}}, "include_usage must be a boolean"),
    ({"prompt": [1], "stream": "yes"}, "stream must be a boolean"),
    ({"prompt": [1], "stream_options": {"include_usage": True}}, "can only be set when stream is true"),
])
def test_stream_options_are_checked_before_anything_is_sent(body, words):
    from geosched.reference_impl.vllm.step_server import _stream_options

    with pytest.raises(ValueError, match=words):
        _stream_options(body)
    assert _stream_options({"prompt": [1], "stream": True, "stream_options": {"include_usage": True}}) == (True, True)
