"""Issue 30, items 3, 5, 6 and 7: work bounded before it starts, SIGTERM, the cluster, decisions.

* item 3: a step-by-step run past ``--max-steps`` is refused before its first step (simulate,
  compare, vllm-diff), a ``decide()`` call past ``--decide-seconds`` is stopped, an export past
  ``--max-bytes`` is refused before it is built, ``hunt --rounds`` past ``--time`` is refused before
  any evaluation; each is one line, exit 2, naming the limit and its option;
* item 5: SIGTERM is Ctrl-C: one line, exit 143, the checkpoint written, the ``.lock`` removed;
* item 6: a ``tcp://`` peer that is not a Dask scheduler is one line without waiting for Dask, and
  leaves no ``--out`` folder; ``local:N``'s nodes never bind an HTTP listener (the listening ports
  of a running cluster are checked in ``tests/test_inputs.py``);
* item 7: a user scheduler's Decision is checked field by field.

Also ``claims --out`` in a folder it cannot write: one line, exit 2, before any check.

No test waits on a clock: the limits are tiny, and a looping ``decide()`` never returns by itself.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from geosched.cli import main
from geosched.errors import LimitError
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.scheduling import Decision, DecisionError
from geosched.reference_impl.simulation import simulate

HUGE = 10**12  # output tokens: 10^12 steps, which no loop may start


def _one_line_error(capsys, code: int, *needles: str) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def _workload(tmp_path: Path, requests: list[tuple[int, int, int]], memory: int = 12) -> str:
    path = tmp_path / "w.jsonl"
    rows = [{"format": "geosched-workload", "memory": memory}]
    rows += [{"id": f"r{k}", "arrival": a, "prompt": s, "output": o} for k, (a, s, o) in enumerate(requests)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


class Counting:
    """A scheduler that admits the head of the queue, counting its calls."""

    name = "counting"
    clairvoyant = False
    preempts = False

    def __init__(self) -> None:
        self.calls = 0

    def decide(self, state):
        self.calls += 1
        return Decision(admit=(state.waiting[0].id,) if state.waiting and not state.running else ())


# ---------------------------------------------------------------- item 3: steps


def test_the_step_engine_refuses_a_long_run_before_its_first_decision():
    scheduler = Counting()
    with pytest.raises(LimitError, match=r"at least 1000000000000 steps, past the limit of 1000000 steps.*--max-steps"):
        simulate(Instance(2 * HUGE, (Request("r0", 0, 1, HUGE),)), scheduler)
    assert scheduler.calls == 0
    two = Instance(12, (Request("a", 0, 1, 5), Request("b", 3, 1, 4)))  # one at a time: decisions at steps 0..8
    with pytest.raises(LimitError, match="at least 7 steps, past the limit of 6"):  # the span [0, 7), before
        simulate(two, Counting(), max_steps=6)
    with pytest.raises(LimitError, match="no complete schedule within the limit of 8 steps"):  # while running
        simulate(two, Counting(), max_steps=8)
    assert simulate(two, Counting(), max_steps=9).starts == {"a": 0, "b": 5}


@pytest.mark.parametrize("command", [["simulate", "--block-size", "2"],
                                     ["compare", "--block-size", "2", "--policies", "sjf,fcfs"],
                                     ["vllm-diff", "--policy", "vllm-fcfs", "--block-size", "2"]])
def test_a_command_refuses_a_run_past_max_steps_in_one_line(tmp_path, capsys, command):
    workload = _workload(tmp_path, [(0, 1, HUGE), (0, 2, 3)], memory=2 * HUGE)
    code = main([command[0], workload, *command[1:], "--max-steps", "1000"])
    _one_line_error(capsys, code, "past the limit of 1000 steps", "--max-steps")


class Spinner(Counting):
    """A decide() that never returns by itself (no sleep: it spins until interrupted)."""

    def decide(self, state):
        while True:
            pass


def test_a_decide_call_past_its_limit_is_stopped():
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(LimitError, match=r"scheduler 'counting': a decide\(\) call ran past its limit of 0.05 s"):
        simulate(Instance(12, (Request("r0", 0, 1, 2),)), Spinner(), decide_seconds=0.05)
    assert signal.getsignal(signal.SIGALRM) == before  # the handler before is restored
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # and no alarm is left armed


def test_a_spinning_file_scheduler_is_one_line_on_the_command_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "spin.py").write_text("from geosched.reference_impl.scheduling import Decision\n"
                                      "class Spin:\n    name = 'spin'\n    clairvoyant = False\n"
                                      "    preempts = False\n    def decide(self, state):\n"
                                      "        while True:\n            pass\n")
    monkeypatch.chdir(tmp_path)
    code = main(["simulate", _workload(tmp_path, [(0, 1, 2)]), "--policy", "spin.py:Spin", "--decide-seconds", "0.05"])
    _one_line_error(capsys, code, "decide() call ran past its limit of 0.05 s", "--decide-seconds")


# ---------------------------------------------------------------- item 3: bytes, hunts


def test_an_export_past_max_bytes_is_refused_before_it_is_built(tmp_path, capsys):
    out = tmp_path / "b.jsonl"
    workload = _workload(tmp_path, [(0, HUGE, 2)], memory=2 * HUGE)
    code = main(["export", workload, "--format", "vllm-bench", "--out", str(out)])
    _one_line_error(capsys, code, "past the limit of 1073741824 bytes", "--max-bytes")
    small = _workload(tmp_path, [(0, 6, 3), (0, 1, 5)])
    code = main(["export", small, "--format", "vllm-bench", "--out", str(out), "--max-bytes", "5"])
    _one_line_error(capsys, code, "at least 6 bytes, past the limit of 5 bytes")  # the ids "[0]", "[1]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.jsonl"]
    assert main(["export", small, "--format", "vllm-bench", "--out", str(out)]) == 0


def test_hunt_rounds_past_time_are_refused_before_any_evaluation(tmp_path, capsys):
    out = tmp_path / "h"
    code = main(["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--rounds", "2", "--restarts", "8",
                 "--evals", str(10**9), "--time", "60", "--out", str(out), "--quiet"])
    _one_line_error(capsys, code, "--evals 1000000000", "--time 60")
    assert not out.exists()


# ---------------------------------------------------------------- item 5: SIGTERM

_TERMINATED_IN_ROUND_3 = """
import os, signal, sys
from geosched.adversary import rounds
from geosched.cli import main
real = rounds.restart_job
def job(args):
    if args[3] == 2:  # the third round: SIGTERM arrives, as from kill(1)
        os.kill(os.getpid(), signal.SIGTERM)
    return real(args)
rounds.restart_job = job
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_is_one_line_exit_143_with_the_checkpoint_kept_and_the_lock_released(tmp_path):
    out = tmp_path / "h"
    argv = ["hunt", "--policy", "sjf", "--method", "anneal", "--requests", "3", "--memory", "12", "--rounds", "3",
            "--restarts", "1", "--evals", "10", "--seed", "2", "--out", str(out), "--quiet"]
    proc = subprocess.run([sys.executable, "-c", _TERMINATED_IN_ROUND_3, *argv], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 143, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "SIGTERM" in proc.stderr, proc.stderr
    assert not (out / ".lock").exists()
    saved = json.loads((out / "checkpoint.json").read_text())
    assert saved["methods"]["anneal"]["rounds_done"] == 2  # --resume continues from it (tests/test_scaleout.py)
    assert not (out / "summary.json").exists()


# ---------------------------------------------------------------- item 6: the cluster


class _Peer:
    """A TCP peer on 127.0.0.1 that sends ``greeting`` to each connection (None: nothing) and keeps it open."""

    def __init__(self, greeting: bytes | None) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.greeting = greeting
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(conn)
            if self.greeting is not None:
                conn.sendall(self.greeting)

    def close(self) -> None:
        self.server.close()
        for conn in self.connections:
            conn.close()


HTTP_REPLY = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"


@pytest.mark.parametrize(("greeting", "reason"), [(HTTP_REPLY, "first bytes are no Dask handshake"),
                                                  (None, "no Dask handshake within 0.2 s"),
                                                  ((12).to_bytes(8, "little") + b"hello world!",
                                                   "first message is no Dask handshake")])
def test_a_peer_that_is_not_a_dask_scheduler_is_refused(greeting, reason):
    from geosched.executor import ClusterUnavailableError, check_dask_peer

    peer = _Peer(greeting)
    try:
        with pytest.raises(ClusterUnavailableError, match=reason):
            check_dask_peer(f"tcp://127.0.0.1:{peer.port}", seconds=0.2)
    finally:
        peer.close()


def test_a_port_nobody_listens_on_is_one_error():
    from geosched.executor import ClusterUnavailableError, check_dask_peer

    with socket.socket() as unused:  # bound, never listening: a connection is refused
        unused.bind(("127.0.0.1", 0))
        with pytest.raises(ClusterUnavailableError, match="no Dask scheduler reachable"):
            check_dask_peer(f"tcp://127.0.0.1:{unused.getsockname()[1]}", seconds=0.2)


def test_a_dask_scheduler_passes_the_peer_check():
    """Non-vacuity: a real Dask scheduler greets at once and is accepted."""
    distributed = pytest.importorskip("distributed")
    from geosched.executor import check_dask_peer

    with distributed.LocalCluster(n_workers=0, processes=False, host="127.0.0.1", protocol="tcp://",
                                  dashboard_address=None) as cluster:
        check_dask_peer(cluster.scheduler_address)


@pytest.mark.parametrize("command", [["hunt", "--policy", "sjf", "--requests", "3", "--memory", "12", "--rounds", "1",
                                      "--restarts", "1", "--evals", "10"],
                                     ["claims", "--quick", "--claim", "kong.volume", "--no-progress"]])
def test_cli_with_a_peer_that_is_not_dask_is_one_line_and_leaves_no_folder(tmp_path, capsys, command):
    pytest.importorskip("distributed")
    peer = _Peer(HTTP_REPLY)
    try:
        out = tmp_path / "out"
        code = main([*command, "--cluster", f"tcp://127.0.0.1:{peer.port}", "--out", str(out)])
    finally:
        peer.close()
    _one_line_error(capsys, code, "is not a Dask scheduler")
    assert not out.exists()


def test_local_cluster_nodes_never_bind_an_http_listener(monkeypatch):
    """The scheduler's and the workers' start_http_server builds the server Dask closes, and never listens."""
    pytest.importorskip("distributed")
    from tornado.httpserver import HTTPServer

    from geosched import _dask_nodes as dask_nodes

    def listen(*args, **kwargs):
        raise AssertionError("an HTTP server was bound")

    monkeypatch.setattr(HTTPServer, "listen", listen)
    for node in (dask_nodes.QuietScheduler, dask_nodes.QuietWorker):
        bare = object.__new__(node)
        bare.start_http_server([], ":8787", default_port=8787)
        assert isinstance(bare.http_server, HTTPServer)
    built = {}
    monkeypatch.setattr(dask_nodes.distributed, "SpecCluster", lambda **spec: built.update(spec))
    dask_nodes.private_cluster(2, security=None)
    assert built["scheduler"]["cls"] is dask_nodes.QuietScheduler
    assert [w["options"]["worker_class"] for w in built["workers"].values()] == [dask_nodes.QuietWorker] * 2


# ---------------------------------------------------------------- item 7: decisions


class Returns(Counting):
    def __init__(self, decision) -> None:
        super().__init__()
        self.decision = decision

    def decide(self, state):
        return self.decision


@pytest.mark.parametrize(("decision", "field"), [
    (Decision(admit=None), "Decision.admit"),
    (Decision(admit=[["r0"]]), "Decision.admit[0]"),
    (Decision(preempt="r0"), "Decision.preempt"),
    (Decision(admit=("r0",), quiet_until="9"), "Decision.quiet_until"),
    (Decision(admit=("r0",), quiet_until=True), "Decision.quiet_until"),
])
def test_a_bad_decision_field_is_one_error_naming_it(decision, field):
    with pytest.raises(DecisionError) as caught:
        simulate(Instance(12, (Request("r0", 0, 1, 2),)), Returns(decision))
    assert field in str(caught.value) and "\n" not in str(caught.value)


def test_a_list_of_ids_is_a_good_decision():
    class Once(Counting):
        def decide(self, state):
            return Decision(admit=[w.id for w in state.waiting])  # a list, not a tuple

    assert simulate(Instance(12, (Request("r0", 0, 1, 2),)), Once()).starts == {"r0": 0}


# ---------------------------------------------------------------- claims --out


def test_claims_out_in_a_folder_it_cannot_write_is_one_line_before_any_check(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code = main(["claims", "--quick", "--claim", "kong.volume", "--no-progress", "--out", str(blocker / "sub")])
    _one_line_error(capsys, code, "--out", "is not a folder")
    disk = tmp_path / "ro"
    disk.mkdir()
    if os.geteuid() != 0:
        disk.chmod(0o555)
    elif subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", str(disk)],
                        capture_output=True).returncode != 0:
        pytest.skip("root, and cannot mount a read-only tmpfs here")
    try:
        code = main(["claims", "--quick", "--claim", "kong.volume", "--no-progress", "--out", str(disk / "x")])
        _one_line_error(capsys, code, "--out", "is not writable")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(disk)], check=False)
        else:
            disk.chmod(0o755)



# ---------------------------------------------------------------- item 5: waiting on a lock


def test_a_wait_for_the_coq_build_lock_says_what_and_since_when(tmp_path, monkeypatch, capsys):
    from geosched.verify import coq_engine

    if coq_engine.missing_tools():
        pytest.skip("coqc not installed")
    monkeypatch.setenv("GEOSCHED_COQ_CACHE", str(tmp_path))
    # a build that would compile (not cached_only: that one reads the cache without the lock), stopped short of coqc
    monkeypatch.setattr(coq_engine, "_build_into", lambda *args: {"status": "failed", "message": "not compiled here"})
    lock = tmp_path / f"{coq_engine.source_hash()[0][:16]}.lock"
    built = []
    with coq_engine._locked(lock):  # another holder (flock: another open file is another owner)
        waiter = threading.Thread(target=lambda: built.append(coq_engine.build(on_progress=lambda *a: None)))
        waiter.start()
        said = ""
        for _ in range(60_000):  # until the waiter has said it waits (a bound, not a timing)
            said += capsys.readouterr().err
            if "waiting for" in said:
                break
            threading.Event().wait(0.001)
    waiter.join()
    assert said.count("\n") == 1 and f"waiting for the Coq build lock {lock}" in said, said
    assert f"held by process {os.getpid()} since " in said and "UTC" in said, said
    assert built[0].status == "failed" and built[0].lock_wait_seconds > 0


def test_cached_only_never_waits_for_the_coq_build_lock(tmp_path, monkeypatch):
    """``claims --quick`` and ``prove`` read the cache (written by an atomic rename) without the lock: while another
    process compiles, they say ``not_built`` at once (issue 44)."""
    from geosched.verify import coq_engine

    if coq_engine.missing_tools():
        pytest.skip("coqc not installed")
    monkeypatch.setenv("GEOSCHED_COQ_CACHE", str(tmp_path))

    def locked(*args, **kwargs):
        raise AssertionError("cached_only took the build lock")

    monkeypatch.setattr(coq_engine, "_locked", locked)
    found = coq_engine.build(cached_only=True)
    assert found.status == "not_built" and found.lock_wait_seconds == 0.0


def test_the_ledger_reports_a_lock_wait_apart_from_checking(monkeypatch):
    """The build runs in the background (issue 44): a row that waits for it (the build waiting for another
    process's lock, or compiling) shows the wait apart. The wait is 6.5 s of a fake clock that the build
    advances once the ledger's main thread is blocked waiting for it (seen in its stack, not timed)."""
    from geosched.verify import coq_engine, evidence
    from geosched.verify.ledger import run_claims

    clock = [1000.0]
    main = threading.main_thread().ident

    def main_thread_waits() -> bool:
        frame = sys._current_frames().get(main)
        while frame is not None:
            if frame.f_code.co_name == "wait_for":
                return True
            frame = frame.f_back
        return False

    def build(**kw):
        for _ in range(60_000):  # a bound, not a timing: a build run inline (not waited for) fails below
            if main_thread_waits():
                break
            threading.Event().wait(0.001)
        clock[0] += 6.5
        return coq_engine.CoqBuild("not_built", "no build", 6.6, lock_wait_seconds=6.5)

    monkeypatch.setattr(coq_engine, "build", build)
    monkeypatch.setattr(evidence, "time", type("FakeTime", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    result = run_claims(["kong.volume"], mode="quick")
    (claim,) = result.claims
    assert claim.waited == 6.5 and claim.wall_time < 6.5
    assert "+6.5s waiting" in result.table(width=200)
    assert result.to_dict()["claims"][0]["waited"] == 6.5
