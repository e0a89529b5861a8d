"""Replay a ``vllm-bench`` export over HTTP with vLLM's own benchmark client, and measure the replay's fidelity.

:func:`replay_export` starts a server with the export's settings, runs vLLM 0.33's real client
(``vllm bench serve --dataset-name timed_trace``: :func:`geosched.reference_impl.formats.serving.bench_args`)
against it, and reads two records: the result file that vLLM's client writes
(:func:`read_bench_result`: per-request ``latencies``, ``ttfts``, ``itls``... in file order) and the
server's request log (:func:`read_arrival_log`: when the server received each request). The
server is one of

* ``"vllm"``: ``vllm serve`` on a GPU (random weights, a local model directory from
  :func:`~geosched.reference_impl.formats.serving.build_model_dir`), its request log
  (``--enable-log-requests``) written with microsecond times by the logging configuration
  :func:`vllm_logging_config`;
* ``"step"``: ``geosched serve-model`` (:mod:`geosched.reference_impl.vllm.step_server`), vLLM's engine
  core with no model at one engine step per ``step_seconds``, on CPU. It also reports each
  request's engine steps, so the server's TEL in steps is compared with the model's.

Everything else is the same code: ``benchmarks/gpu_replay.py`` runs ``--server vllm`` on a GPU
and ``--server step`` anywhere.

**Fidelity** (:func:`replay_fidelity`). The file's lines are the model's send order (arrival, then
the tie order) and its timestamps put arrival step ``a`` at ``a * step_seconds`` plus a stagger of
``rank * tie_gap_seconds`` among equal arrivals. Measured at the server, with the first request's
reception as time zero:

* **order**: the order in which the server received the lines, against the file's order; any
  difference is flagged (``reordered``), with the first inversion;
* **lag**: each request's reception after its model arrival instant,
  ``(received_i - received_0) - (a_i - a_0) * step_seconds``, in server decode steps (the step
  server's ``step_seconds``, or the median inter-token latency that vLLM's client measured). A
  request whose lag is outside ``[0, 1)`` decode step reached the server in another step than the
  model's (``drifted``): for a burst, the server saw it spread over more than one step.

The export keeps the stagger of ``k`` equal arrivals below half a step (``(k - 1) * gap <
step_seconds / 2``), leaving the other half step for the client's and the network's jitter.

Example (needs vLLM)
--------------------
>>> replay_export("worst.jsonl", "replay-out", server="step").status  # doctest: +SKIP
'faithful'
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError, ValidationError, WorkloadFormatError
from geosched.progress import note, stage
from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.formats.serving import REQUEST_ID_PREFIX, ServerSettings, bench_args, build_model_dir
from geosched.reference_impl.vllm.engine_replay import read_replay_settings, server_scheduler
from geosched.results import Result

__all__ = ["SERVERS", "BenchResult", "HttpReplay", "ReplayError", "ReplayFidelity", "read_arrival_log",
           "read_bench_result", "replay_export", "replay_fidelity", "run_bench_client", "vllm_logging_config"]

SERVERS = ("step", "vllm")
REQUEST_LOGGER = "vllm.entrypoints.serve.utils.request_logger"  # the logger of vLLM's "Received request" lines
_ARRIVAL = re.compile(r"^(\d+(?:\.\d+)?) .*?Received request cmpl-" + re.escape(REQUEST_ID_PREFIX) + r"(\d+)-\d+:")
_EPS = 1e-6  # seconds: below the log's resolution


@dataclass(frozen=True)
class BenchResult:
    """The per-request lists of vLLM 0.33's ``vllm bench serve --save-result --save-detailed`` file (file order)."""

    latencies: list[float]  # seconds from send to last token (vLLM 0.33 writes `latencies`; there is no `e2els`)
    ttfts: list[float]
    itls: list[list[float]]
    start_times: list[float]
    output_lens: list[int]
    errors: list[str]
    completed: int
    failed: int
    duration: float
    mean_tpot_ms: float | None = None


def read_bench_result(path: str | Path, n: int) -> BenchResult:
    """The result file of ``vllm bench serve`` for ``n`` requests.

    Raises
    ------
    WorkloadFormatError
        When a per-request list is missing (a client that is not vLLM 0.33's, or a run without
        ``--save-detailed``) or does not have ``n`` entries.
    """
    from geosched.reference_impl.jsonfile import read_json

    data = read_json(path)
    refuse_code_names(data, str(path))
    lists = {}
    for key in ("latencies", "ttfts", "itls", "start_times", "output_lens", "errors"):
        value = data.get(key) if isinstance(data, dict) else None
        if not isinstance(value, list) or len(value) != n:
            raise WorkloadFormatError(
                f"{path}: {key!r} must be a list of {n} entries (vLLM 0.33's `vllm bench serve --save-result "
                f"--save-detailed`); keys found: {', '.join(sorted(data)) if isinstance(data, dict) else type(data)}")
        lists[key] = value
    return BenchResult(**lists, completed=int(data.get("completed", 0)), failed=int(data.get("failed", 0)),
                       duration=float(data.get("duration", 0.0)), mean_tpot_ms=data.get("mean_tpot_ms"))


def read_arrival_log(path: str | Path) -> dict[int, float]:
    """``{line: unix time}``: when the server received the file's line ``line`` (request id
    ``geosched-<line>``), from ``vllm serve``'s request log or ``geosched serve-model``'s; the first
    reception counts."""
    received: dict[int, float] = {}
    for text in Path(path).read_text(errors="replace").splitlines():
        match = _ARRIVAL.match(text)
        if match:
            received.setdefault(int(match.group(2)), float(match.group(1)))
    return received


def vllm_logging_config(arrival_log: str | Path) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for ``vllm serve`` (``VLLM_LOGGING_CONFIG_PATH``): vLLM's messages on
    stdout as usual, and its request log also in ``arrival_log`` with microsecond unix times."""
    return {"version": 1, "disable_existing_loggers": False,
            "formatters": {"plain": {"format": "%(levelname)s %(asctime)s [%(name)s] %(message)s"},
                           "arrivals": {"format": "%(created).6f %(message)s"}},
            "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain",
                                     "stream": "ext://sys.stdout"},
                         "arrivals": {"class": "logging.FileHandler", "formatter": "arrivals",
                                      "filename": str(arrival_log)}},
            "loggers": {"vllm": {"handlers": ["console"], "level": "INFO", "propagate": False},
                        REQUEST_LOGGER: {"handlers": ["arrivals"], "level": "INFO", "propagate": True}}}


@dataclass(frozen=True)
class ReplayFidelity:
    """How faithfully the server received the replay (module docstring); times in seconds."""

    status: str  # "faithful", "reordered" or "drifted"
    received_order: list[int]  # file lines in the order the server received them
    missing: list[int]  # lines the server never logged
    first_inversion: str | None  # the first place where the received order differs from the file's
    decode_step_seconds: float  # the server step the lags are measured in
    lags: list[float | None]  # per line: reception after its model arrival instant (None: missing)
    timing_errors: list[float | None]  # per line: reception minus the file's timestamp (both from the first)
    off_step: list[int]  # lines whose lag is outside [0, 1) decode step
    max_lag_steps: float
    min_lag_steps: float
    max_timing_error_seconds: float

    def describe(self) -> str:
        """Two lines: the order, and the timing."""
        n = len(self.lags)
        order = (f"the server received the {n} requests in the file's order (the model's send order)"
                 if self.status != "reordered" else
                 f"ORDER DIFFERS: {self.first_inversion}" + (f"; never received: lines {self.missing}"
                                                             if self.missing else ""))
        timing = (f"each request reached the server {self.min_lag_steps:.2f} to {self.max_lag_steps:.2f} decode "
                  f"steps ({self.decode_step_seconds:g} s) after its model arrival (largest deviation from the "
                  f"file's timestamps {self.max_timing_error_seconds * 1000:.1f} ms)")
        if self.off_step:
            shown = ", ".join(map(str, self.off_step[:8])) + (f", ... ({len(self.off_step)} lines)"
                                                               if len(self.off_step) > 8 else "")
            timing += f"; DRIFT: lines {shown} reached the server outside their model step (lag outside [0, 1) step)"
        return f"order: {order}\ntiming: {timing}"


def replay_fidelity(timestamps: list[float], arrival_steps: list[int], received: dict[int, float],
                    step_seconds: float, decode_step_seconds: float) -> ReplayFidelity:
    """Order and lag of the server's receptions (``received``: line -> time) against the file's lines.

    Examples
    --------
    >>> f = replay_fidelity([0.0, 0.01, 1.0], [0, 0, 1], {0: 5.0, 1: 5.012, 2: 6.003}, 1.0, 1.0)
    >>> f.status, f.received_order, [round(x, 3) for x in f.lags]
    ('faithful', [0, 1, 2], [0.0, 0.012, 0.003])
    >>> replay_fidelity([0.0, 0.01], [0, 0], {0: 5.02, 1: 5.0}, 1.0, 1.0).first_inversion
    'line 1 was received before line 0'
    >>> replay_fidelity([0.0, 0.01], [0, 0], {0: 5.0, 1: 6.5}, 1.0, 1.0).off_step
    [1]
    """
    if not (decode_step_seconds > 0 and step_seconds > 0):
        raise ValidationError("decode_step_seconds", decode_step_seconds, "and step_seconds must be > 0")
    n = len(timestamps)
    missing = [k for k in range(n) if k not in received]
    order = sorted(received, key=lambda k: (received[k], k))
    inversion = next((f"line {order[j]} was received before line {min(order[j:])}"
                      for j in range(len(order)) if order[j] != min(order[j:])), None)
    lags: list[float | None] = [None] * n
    errors: list[float | None] = [None] * n
    if 0 in received:
        for k, t in received.items():
            if k < n:
                lags[k] = (t - received[0]) - (arrival_steps[k] - arrival_steps[0]) * step_seconds
                errors[k] = (t - received[0]) - (timestamps[k] - timestamps[0])
    in_steps = [lag / decode_step_seconds for lag in lags if lag is not None]
    off = [k for k, lag in enumerate(lags) if lag is not None and not -_EPS <= lag < decode_step_seconds - _EPS]
    status = "reordered" if (inversion or missing) else "drifted" if off else "faithful"
    return ReplayFidelity(status, order, missing, inversion, decode_step_seconds, lags, errors, off,
                          max(in_steps, default=0.0), min(in_steps, default=0.0),
                          max((abs(e) for e in errors if e is not None), default=0.0))


@dataclass(frozen=True)
class HttpReplay(Result):
    """An export replayed by vLLM's client against a server; every number was measured in that run."""

    STATUSES = ("faithful", "reordered", "drifted", "incomplete", "failed")
    SUCCESS = ("faithful",)

    status: str  # the fidelity's status; "incomplete": requests failed; "failed": the run did not finish
    message: str
    wall_time: float
    export: str
    server: str  # "step" or "vllm"
    n: int
    completed: int = 0  # vLLM's result file: requests completed
    latencies: list[float] = field(default_factory=list)  # vLLM's result file: `latencies` (s), in file order
    fidelity: ReplayFidelity | None = None
    server_steps: dict[str, Any] | None = None  # the step server's own record (None for vllm serve)
    model: dict[str, Any] = field(default_factory=dict)  # the export's witness numbers (steps)
    files: dict[str, str] = field(default_factory=dict)  # the result file, the server's log, ...
    versions: dict[str, str | None] = field(default_factory=dict)

    def report(self) -> str:
        """The status line, then the client's figures, the fidelity and the step comparison."""
        lines = [self.message]
        if self.latencies:
            lines.append(f"client: {self.completed}/{self.n} completed; vLLM's result file {self.files.get('result')}: "
                         f"latencies sum {sum(self.latencies):.3f} s, mean {statistics.fmean(self.latencies):.3f} s")
        if self.fidelity is not None:
            lines += self.fidelity.describe().splitlines()
        if self.server_steps is not None:
            lines.append(self.server_steps["verdict"])
        verdict = replay_verdict(self.fidelity, self.server_steps)
        return "\n".join(lines + ([verdict] if verdict else []))


def replay_verdict(fidelity: ReplayFidelity | None, steps: dict[str, Any] | None) -> str:
    """One sentence linking the two measures: whether the requests reached the server in their model steps,
    and whether the server's TEL is the witness's; a TEL that differs after a drift is explained by the drift
    (the engine saw other arrival steps), not by a scheduler difference.

    >>> f = replay_fidelity([0.0, 0.01], [0, 0], {0: 5.0, 1: 6.5}, 1.0, 1.0)
    >>> print(replay_verdict(f, {"comparable": True, "equal": False, "tel_steps": 495, "model_tel_steps": 496})[:66])
    verdict: TEL 495 differs from the witness's 496 because the replay
    """
    if fidelity is None or not steps or not steps.get("comparable") or steps.get("tel_steps") is None:
        return ""
    tel, model = steps["tel_steps"], steps["model_tel_steps"]
    lines = ", ".join(map(str, fidelity.off_step[:8])) + (", ..." if len(fidelity.off_step) > 8 else "")
    if fidelity.status == "faithful":
        return (f"verdict: every request reached the server in its model step and the server's engine took TEL {tel}"
                f" = the witness's: the replay reproduces the witness" if steps["equal"] else
                f"verdict: every request reached the server in its model step, yet its engine took TEL {tel}, not "
                f"the witness's {model}: a difference of the scheduler, not of the replay")
    if fidelity.status == "drifted" and not steps["equal"]:
        return (f"verdict: TEL {tel} differs from the witness's {model} because the replay drifted: lines {lines} "
                f"reached the server outside their model step, so its engine admitted them at other steps than the "
                f"witness assumes (a timing of the client and server, not a scheduler difference)")
    if fidelity.status == "drifted":
        return (f"verdict: TEL {tel} = the witness's although lines {lines} reached the server outside their model "
                "step: the drift did not change the schedule")
    return (f"verdict: the server received the requests in another order ({fidelity.first_inversion}): TEL {tel} "
            f"against the witness's {model} measures another workload")



class ReplayError(GeoschedError):
    """The replay could not run to the end (a server that did not start, a client that failed)."""


def _vllm_cli(python: str) -> list[str]:
    return [python, "-m", "vllm.entrypoints.cli.main"]


def run_bench_client(argv: list[str]) -> int:
    """``vllm bench serve ARGV``: vLLM's own subcommand (its parser, ``vllm.benchmarks.serve.main``) without
    the ``vllm`` command's dispatcher, which imports every other subcommand (the server's too: uvicorn,
    FastAPI), so that the client runs in the lean CPU install as in a full one."""
    from vllm.entrypoints.cli.benchmark.serve import BenchmarkServingSubcommand
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog="vllm bench serve", description=BenchmarkServingSubcommand.help)
    BenchmarkServingSubcommand.add_cli_args(parser)
    BenchmarkServingSubcommand.cmd(parser.parse_args(argv))
    return 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(condition: Any, process: subprocess.Popen, deadline: float, what: str, log: Path) -> Any:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ReplayError(f"{what} exited with {process.returncode} before it was ready; see {log}: "
                              + _tail(log))
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise ReplayError(f"{what} was not ready in time; see {log}")


def _tail(path: Path, lines: int = 3) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _start_step_server(export: Path, out: Path, timeout: float, python: str,
                       scheduler_cls: str | None = None) -> tuple[subprocess.Popen, int]:
    log = out / "server.log"
    command = [python, "-m", "geosched", "serve-model", str(export), "--port", "0", "--timeout", str(timeout),
               "--out", str(out), "--force"] + (["--scheduler-cls", scheduler_cls] if scheduler_cls else [])
    with open(log, "w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)

    def port() -> int | None:
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read_text(errors="replace"))
        return int(match.group(1)) if match else None

    return process, _wait_for(port, process, time.monotonic() + timeout, "geosched serve-model", log)


def _start_vllm_server(settings: ServerSettings, model: Path, out: Path, timeout: float,
                       python: str) -> tuple[subprocess.Popen, int]:
    log, port = out / "server.log", _free_port()
    config = out / "vllm-logging.json"
    config.write_text(json.dumps(vllm_logging_config(out / "arrivals.log"), indent=1))
    command = _vllm_cli(python) + settings.serve_args(str(model))[1:] + [
        "--host", "127.0.0.1", "--port", str(port), "--enable-log-requests"]
    env = dict(os.environ, VLLM_LOGGING_CONFIG_PATH=str(config), HF_HUB_OFFLINE="1")
    with open(log, "w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env)

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                return answer.status == 200
        except OSError:
            return False

    _wait_for(healthy, process, time.monotonic() + timeout, "vllm serve", log)
    return process, port


def _stop(process: subprocess.Popen, grace: float) -> None:
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _run_client(export: Path, model: Path, n: int, port: int, out: Path, timeout: float, python: str) -> None:
    command = [python, "-m", __name__] + bench_args(str(export), str(model), n, port=port, result_dir=str(out))[3:]
    (out / "bench.json").unlink(missing_ok=True)
    with open(out / "bench.log", "w") as log:
        try:
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=dict(os.environ, HF_HUB_OFFLINE="1"))
        except subprocess.TimeoutExpired:
            raise ReplayError(f"vllm bench serve did not finish in {timeout:.0f} s; see {out / 'bench.log'}") from None
    if done.returncode != 0:
        raise ReplayError(f"vllm bench serve exited with {done.returncode}; see {out / 'bench.log'}: "
                          + _tail(out / "bench.log"))


def _server_steps(summary: dict[str, Any], meta: dict[str, Any], settings: ServerSettings) -> dict[str, Any]:
    """The step server's TEL in steps (finish + 1 - arrival, its engine's steps) against the model's."""
    rows = summary["requests"]
    done = [r for r in rows if r["finish_step"] is not None and r["arrival_step"] is not None]
    tel = sum(r["finish_step"] + 1 - r["arrival_step"] for r in done) if len(done) == len(rows) else None
    policy = str(meta.get("policy") or "")
    stock = {"fcfs": "vllm-fcfs", "priority": "vllm-priority"}[settings.scheduling_policy]
    comparable = settings.scheduler_cls is None and policy.split(":")[0] == stock and meta.get("policy_tel") is not None
    preempted = f"{summary['preemptions']} preemption{'s' * (summary['preemptions'] != 1)}"
    if tel is None:
        verdict = f"steps: {len(rows) - len(done)} requests did not finish in the server's engine"
    elif comparable:
        same = "=" if tel == meta["policy_tel"] else "DIFFERS FROM"
        verdict = (f"steps: the server's engine (vLLM's scheduler, block size {settings.block_size}) took TEL {tel} "
                   f"steps {same} the witness's model TEL {meta['policy_tel']} ({policy}); "
                   f"{preempted}")
    else:
        verdict = (f"steps: the server's engine took TEL {tel} steps ({preempted}); the "
                   f"export's model TEL ({policy or 'no witness'}) is another scheduler's, not compared")
    return {"tel_steps": tel, "model_tel_steps": meta.get("policy_tel"), "comparable": comparable,
            "equal": comparable and tel == meta.get("policy_tel"), "preemptions": summary["preemptions"],
            "steps": summary["steps"], "verdict": verdict,
            "per_request": {r["request_id"]: [r["arrival_step"], r["first_token_step"], r["finish_step"]]
                            for r in rows}}


def replay_export(export: str | Path, out: str | Path, *, server: str = "step", timeout: float = 900.0,
                  python: str | None = None, scheduler_cls: str | None = None) -> HttpReplay:
    """Serve ``export``'s settings (``server``: ``"step"`` or ``"vllm"``), replay it with ``vllm bench serve``,
    and measure (module docstring). Files go to ``out``: ``bench.json`` (vLLM's result file),
    ``arrivals.log``, ``server.log``, ``bench.log``, ``server.json`` (step server), ``report.json``.
    ``timeout`` bounds the server start and the client run, each. The file is read first, through the gate
    for names of code (:func:`~geosched.reference_impl.vllm.engine_replay.read_replay_settings`); an export
    made with ``--scheduler-cls FILE.py:Class`` runs on the step server with ``scheduler_cls``, the same file."""
    if server not in SERVERS:
        raise ValidationError("--server", server, f"must be one of {', '.join(SERVERS)}")
    started, export, out = time.perf_counter(), Path(export), Path(out)
    python = python or sys.executable
    requests, meta, settings = read_replay_settings(export)  # the gate for names of code, before anything runs
    server_scheduler(settings, scheduler_cls, str(export), load=False)
    if server == "vllm" and settings.plugin_file is not None:
        raise ValidationError("--server", server, f"{export} was exported with your scheduler file "
                              f"{settings.plugin_file!r}: vllm serve imports a module path, so run its .replay.sh "
                              "with SCHEDULER_CLS=module.Class (a data file never names code that runs)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "arrivals.log").unlink(missing_ok=True)
    model = build_model_dir(out / "model", settings.max_model_len)
    base = {"export": str(export), "server": server, "n": len(requests), "model": _model_numbers(meta),
            "versions": _versions(), "files": {k: str(out / v) for k, v in _FILES.items()}}
    process = None
    try:
        if server == "step":
            stage("replay: starting geosched serve-model (vLLM's engine core, no model)")
            process, port = _start_step_server(export, out, timeout, python, scheduler_cls)
        else:
            note("replay: starting vllm serve on CPU (minutes: vLLM loads its engine and profiles the KV cache)")
            stage("replay: starting vllm serve")
            process, port = _start_vllm_server(settings, model, out, timeout, python)
        stage(f"replay: vllm bench serve sends {len(requests)} requests to port {port}")
        _run_client(export, model, len(requests), port, out, timeout, python)
        stage("replay: stopping the server, reading the result file and the arrival log")
    except ReplayError as exc:
        return HttpReplay("failed", str(exc), time.perf_counter() - started, **base)
    finally:
        if process is not None:
            _stop(process, 60 if server == "step" else 0)
    try:
        return _measured(requests, meta, settings, out, base, started)
    except (OSError, ValueError) as exc:  # a result file or a server record that is missing or unreadable
        return HttpReplay("failed", f"the replay ran but its records could not be read: {exc}",
                          time.perf_counter() - started, **base)


_FILES = {"result": "bench.json", "arrivals": "arrivals.log", "server_log": "server.log", "client_log": "bench.log"}


def _measured(requests: list[Any], meta: dict[str, Any], settings: ServerSettings, out: Path,
              base: dict[str, Any], started: float) -> HttpReplay:
    bench = read_bench_result(out / "bench.json", len(requests))
    summary = _server_record(out / "server.json") if base["server"] == "step" else None
    itls = [gap for per_request in bench.itls for gap in per_request]
    decode = summary["step_seconds"] if summary else (statistics.median(itls) if itls else meta["step_seconds"])
    fidelity = replay_fidelity([r.timestamp for r in requests], [r.arrival for r in requests],
                               read_arrival_log(out / "arrivals.log"), meta["step_seconds"], decode)
    steps = _server_steps(summary, meta, settings) if summary else None
    status = "incomplete" if bench.completed < len(requests) else fidelity.status
    where = ("geosched serve-model (vLLM's engine core, no model, "
             f"{meta['step_seconds']:g} s per step)" if summary else "vllm serve")
    message = (f"{Path(base['export']).name}: {len(requests)} requests replayed by vllm bench serve "
               f"(vLLM {base['versions'].get('vllm')}) against {where}: {status}")
    result = HttpReplay(status, message, time.perf_counter() - started, completed=bench.completed,
                        latencies=bench.latencies, fidelity=fidelity, server_steps=steps, **base)
    (out / "report.json").write_text(json.dumps({**result.to_dict(), "report": result.report()}, indent=1))
    return result


def _server_record(path: Path) -> dict[str, Any]:
    """The step server's ``server.json``, read strictly and through the gate for names of code."""
    from geosched.reference_impl.jsonfile import read_json

    data = read_json(path)
    refuse_code_names(data, str(path))
    if not isinstance(data, dict) or not isinstance(data.get("requests"), list):
        raise ValueError(f"{path}: not a geosched serve-model record")
    return data


def _model_numbers(meta: dict[str, Any]) -> dict[str, Any]:
    return {"policy": meta.get("policy"), "model_tel_steps": meta.get("policy_tel"),
            "witness_tel_steps": meta.get("witness_tel"), "certified_ratio": meta.get("certified_ratio"),
            "step_seconds": meta.get("step_seconds"), "tie_gap_seconds": meta.get("tie_gap_seconds")}


def _versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str | None] = {}
    for name in ("vllm", "geosched", "torch"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


if __name__ == "__main__":  # the client of replay_export: python -m geosched.reference_impl.vllm.replay ARGS
    raise SystemExit(run_bench_client(sys.argv[1:]))
