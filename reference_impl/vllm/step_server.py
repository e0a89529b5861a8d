"""A dry-run OpenAI-compatible server: vLLM's engine core at the model's step timing, with no model and no GPU.

``geosched serve-model EXPORT`` serves the ``vllm-bench`` export's server settings (block size, KV
blocks, batch limits, scheduling policy: :mod:`geosched.reference_impl.formats.serving`) on a loopback port,
so that the real ``vllm bench serve`` client can replay the file on a laptop before a GPU is spent on
it (``benchmarks/gpu_replay.py --server step``). What answers is vLLM 0.33's own ``EngineCore``
(its scheduler and KV cache manager, built from the settings) with a fake executor
(:func:`geosched.reference_impl.vllm.engine_replay.engine_core`); only the model is missing.

**Step timing.** One engine step is one decode step of the model: a fixed wall interval
``step_seconds`` (the export's mapping of model steps to seconds). The step clock starts when the
first request is received (time ``t0``); step ``c`` runs at ``t0 + (c + 1) * step_seconds`` and first
adds, in the order received, every request received in ``[t0 + c * step, t0 + (c + 1) * step)``: a
request the client sends at its model arrival ``a`` (plus its tie stagger) joins step ``a - a0``, as
in the model (``docs/vllm.md``, step correspondence). A late wake-up (a loaded machine) runs the
overdue steps back to back with the same windows, so the schedule depends only on when each
request was received.

**Streaming** is vLLM's: ``POST /v1/completions`` with ``"stream": true`` sends one server-sent event
per generated token as the engine step that samples it completes (``finish_reason`` ``"length"`` on the
last: EOS is ignored, as by ``vllm bench serve --ignore-eos``), the usage chunk when
``stream_options.include_usage`` asks for it, then ``[DONE]``. The prompt is a list of token ids (what
the ``timed_trace`` dataset sends) or a text (one token per word). ``GET /health`` and
``GET /v1/models`` answer as vLLM's do.

**Records.** Every request is logged when received in the line format that ``benchmarks/gpu_replay.py``
also gives ``vllm serve``'s own request log (``<unix time> Received request cmpl-<X-Request-Id>-0: ...``:
:func:`geosched.reference_impl.vllm.replay.read_arrival_log`), and the summary written at the end
holds each request's arrival, first-token and finish step.

**Bounds.** It stops by itself after ``max_requests`` responses or ``timeout`` seconds, listens on
127.0.0.1 only (port 0: a free port, announced on stdout), and refuses a request that does not fit
``max_model_len``, as vLLM does.

Example (needs vLLM)
--------------------
>>> serve_export("worst.jsonl", port=0, timeout=60)  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.formats.serving import ServerSettings
from geosched.reference_impl.vllm.engine_replay import add_request, engine_core, read_replay_settings, server_scheduler

__all__ = ["StepServer", "ServedRequest", "serve_export"]

LOOPBACK = "127.0.0.1"


@dataclass
class ServedRequest:
    """One request as the dry-run server saw it; steps are engine steps counted from the first reception."""

    request_id: str  # cmpl-<X-Request-Id>-0, vLLM's id for a single-prompt completion
    prompt_tokens: int
    max_tokens: int
    received_wall: float  # unix time of reception (the request log's time)
    received: float = field(repr=False, default=0.0)  # monotonic time of reception (the step windows)
    arrival_step: int | None = None  # the engine step it was added before
    first_token_step: int | None = None
    finish_step: int | None = None
    tokens_sent: int = 0
    queue: Any = field(repr=False, default=None)  # generated token ids, then None


class StepServer:
    """The engine side and the HTTP side of ``geosched serve-model`` (see the module docstring)."""

    def __init__(self, settings: ServerSettings, step_seconds: float, *, max_requests: int,
                 model_name: str = "geosched-dry-run", arrival_log: Path | None = None,
                 scheduler_cls: Any = None) -> None:
        if not (isinstance(step_seconds, (int, float)) and 0 < step_seconds < 3600):
            raise ValidationError("--step-seconds", step_seconds, "must be a number of seconds in (0, 3600)")
        self.settings, self.step_seconds, self.model_name = settings, float(step_seconds), model_name
        self.max_requests = max_requests
        self.core = engine_core(settings, scheduler_cls)
        self.requests: dict[str, ServedRequest] = {}
        self.waiting: list[ServedRequest] = []  # received, not yet added to the engine
        self.origin: float | None = None  # monotonic time of the first reception
        self.steps = 0
        self.preemptions = 0
        self.responses = 0
        self.stop = asyncio.Event()
        self._log = open(arrival_log, "a", buffering=1) if arrival_log else None  # noqa: SIM115 - closed in close()
        self._count_preemptions()

    def _count_preemptions(self) -> None:
        schedule = self.core.scheduler.schedule

        def counting(*args: Any, **kwargs: Any) -> Any:
            output = schedule(*args, **kwargs)
            self.preemptions += len(output.preempted_req_ids or ())
            return output

        self.core.scheduler.schedule = counting  # count only: what vLLM does is unchanged

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    # ---- the engine side -------------------------------------------------------------------------------

    def receive(self, request_id: str, prompt_tokens: int, max_tokens: int) -> ServedRequest:
        """Record a request as received now; the step loop adds it to the engine at its step."""
        now = time.monotonic()
        record = ServedRequest(request_id, prompt_tokens, max_tokens, time.time(), now, queue=asyncio.Queue())
        if self.origin is None:
            self.origin = now
        self.requests[request_id] = record
        self.waiting.append(record)
        if self._log is not None:
            self._log.write(f"{record.received_wall:.6f} Received request {request_id}: params: "
                            f"max_tokens={max_tokens}, prompt_tokens={prompt_tokens}, lora_request: None.\n")
        return record

    async def run_steps(self) -> None:
        """The step clock: step ``c`` at ``t0 + (c + 1) * step_seconds`` (module docstring)."""
        while self.origin is None and not self.stop.is_set():
            await asyncio.sleep(min(self.step_seconds, 0.05))
        while not self.stop.is_set():
            deadline = self.origin + (self.steps + 1) * self.step_seconds
            delay = deadline - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self.run_step(deadline)

    def run_step(self, window_end: float) -> None:
        """Add the requests received before ``window_end``, run one engine step, hand out its tokens."""
        step = self.steps
        while self.waiting and self.waiting[0].received < window_end:
            record = self.waiting.pop(0)
            record.arrival_step = step
            add_request(self.core, record.request_id, record.prompt_tokens, record.max_tokens, record.received_wall)
        if self.core.scheduler.has_requests():
            outputs, _ = self.core.step()
            for batch in outputs.values():
                for output in batch.outputs:
                    self._deliver(output, step)
        self.steps += 1

    def _deliver(self, output: Any, step: int) -> None:
        record = self.requests[output.request_id]
        if record.first_token_step is None and output.new_token_ids:
            record.first_token_step = step
        for token in output.new_token_ids:
            record.queue.put_nowait(int(token))
        if output.finish_reason is not None:
            record.finish_step = step
            record.queue.put_nowait(None)

    def summary(self) -> dict[str, Any]:
        """What the server did: its settings, step length and every request's steps (the report reads it)."""
        rows = [{k: v for k, v in asdict(r).items() if k not in ("queue", "received")}
                for r in self.requests.values()]
        return {"format": "geosched-serve-model", "step_seconds": self.step_seconds,
                "settings": self.settings.to_dict(), "steps": self.steps, "preemptions": self.preemptions,
                "responses": self.responses, "requests": rows}

    # ---- the HTTP side ---------------------------------------------------------------------------------

    def application(self) -> Any:
        from aiohttp import web

        app = web.Application()
        app.router.add_get("/health", self._health)
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/completions", self._completions)
        return app

    async def _health(self, request: Any) -> Any:
        from aiohttp import web

        return web.Response(status=200)

    async def _models(self, request: Any) -> Any:
        from aiohttp import web

        return web.json_response({"object": "list", "data": [
            {"id": self.model_name, "object": "model", "owned_by": "geosched",
             "max_model_len": self.settings.max_model_len}]})

    async def _completions(self, request: Any) -> Any:
        from aiohttp import web

        try:
            body = await request.json()
            prompt_tokens, max_tokens = _completion_lengths(body, self.settings.max_model_len)
            stream, usage = _stream_options(body)
        except (ValueError, TypeError, RecursionError) as exc:  # a deeply nested body: RecursionError, a 400 too
            message = "the request body is nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            return web.json_response({"object": "error", "message": message, "type": "BadRequestError",
                                      "code": 400}, status=400)
        request_id = f"cmpl-{request.headers.get('X-Request-Id') or uuid.uuid4().hex}-0"
        if request_id in self.requests:
            return web.json_response({"object": "error", "message": f"request id {request_id} is already in use",
                                      "type": "BadRequestError", "code": 400}, status=400)
        record = self.receive(request_id, prompt_tokens, max_tokens)
        if stream:
            response = await self._stream(request, record, usage)
        else:
            response = await self._whole(record)
        self.responses += 1
        if self.responses >= self.max_requests:
            self.stop.set()
        return response

    def _chunk(self, record: ServedRequest, choices: list[dict[str, Any]], usage: Any = None) -> bytes:
        data = {"id": record.request_id[: -len("-0")], "object": "text_completion", "created": int(time.time()),
                "model": self.model_name, "choices": choices, "usage": usage}
        return f"data: {json.dumps(data)}\n\n".encode()

    async def _stream(self, request: Any, record: ServedRequest, usage: bool) -> Any:
        from aiohttp import web

        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        while (token := await record.queue.get()) is not None:
            record.tokens_sent += 1
            last = record.tokens_sent == record.max_tokens
            await response.write(self._chunk(record, [{"index": 0, "text": f" w{token}", "logprobs": None,
                                                       "finish_reason": "length" if last else None,
                                                       "stop_reason": None}]))
        if usage:
            counts = {"prompt_tokens": record.prompt_tokens, "completion_tokens": record.tokens_sent,
                      "total_tokens": record.prompt_tokens + record.tokens_sent}
            await response.write(self._chunk(record, [], counts))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def _whole(self, record: ServedRequest) -> Any:
        from aiohttp import web

        tokens = []
        while (token := await record.queue.get()) is not None:
            tokens.append(token)
        record.tokens_sent = len(tokens)
        return web.json_response({
            "id": record.request_id[: -len("-0")], "object": "text_completion", "created": int(time.time()),
            "model": self.model_name,
            "choices": [{"index": 0, "text": "".join(f" w{t}" for t in tokens), "logprobs": None,
                         "finish_reason": "length", "stop_reason": None}],
            "usage": {"prompt_tokens": record.prompt_tokens, "completion_tokens": len(tokens),
                      "total_tokens": record.prompt_tokens + len(tokens)}})


def _completion_lengths(body: Any, max_model_len: int) -> tuple[int, int]:
    """(prompt tokens, max_tokens) of a completion request, checked as vLLM checks them."""
    if not isinstance(body, dict):
        raise ValueError("the request body must be a JSON object")
    if body.get("n", 1) != 1 or isinstance(body.get("n"), bool):
        raise ValueError(f"n must be 1 (the dry run serves one sequence per request), got {body.get('n')!r}")
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], list):
        prompt = prompt[0]  # one pre-tokenized prompt in a batch of one
    if isinstance(prompt, str):
        prompt_tokens = max(1, len(prompt.split()))
    elif isinstance(prompt, list) and prompt and all(isinstance(t, int) and not isinstance(t, bool) for t in prompt):
        prompt_tokens = len(prompt)
    else:
        raise ValueError("prompt must be a text or a non-empty list of token ids (one prompt per request)")
    max_tokens = body.get("max_tokens", 16)
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
    if prompt_tokens + max_tokens > max_model_len:
        raise ValueError(f"This model's maximum context length is {max_model_len} tokens. However, you requested "
                         f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, {max_tokens} in "
                         "the completion).")
    return prompt_tokens, max_tokens


def _stream_options(body: dict[str, Any]) -> tuple[bool, bool]:
    """``(stream, include_usage)`` of a completion request, checked before anything is sent (a bad value is a
    400, never a stream cut short): ``stream`` a boolean, ``stream_options`` an object (or null) whose
    ``include_usage`` is a boolean, and only with ``stream``, as vLLM checks them."""
    stream = body.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise ValueError(f"stream must be a boolean, got {stream!r}")
    options = body.get("stream_options")
    if options is None:
        return bool(stream), False
    if not isinstance(options, dict):
        raise ValueError(f"stream_options must be an object, got {options!r}")
    if not stream:
        raise ValueError("stream_options can only be set when stream is true")
    usage = options.get("include_usage", False)
    if usage is not None and not isinstance(usage, bool):
        raise ValueError(f"stream_options.include_usage must be a boolean, got {usage!r}")
    return True, bool(usage)


def serve_export(export: str | Path, *, port: int = 0, step_seconds: float | None = None,
                 max_requests: int | None = None, timeout: float = 600.0, arrival_log: str | Path | None = None,
                 summary: str | Path | None = None, force: bool = False,
                 announce: Callable[[str], None] = print, scheduler_cls: str | None = None) -> dict[str, Any]:
    """Serve an export's settings until ``max_requests`` responses (default: the file's requests) or ``timeout``.

    ``announce`` receives ``"listening on http://127.0.0.1:PORT"`` once the engine is built and the port
    bound. Returns the summary (:meth:`StepServer.summary`, with ``"stopped"``: ``"requests"`` or
    ``"timeout"``), also written to ``summary`` if given (an existing one only with ``force``); stopped by
    SIGTERM or Ctrl-C, it writes the summary (``"stopped": "signal"``) and then lets the signal go on.
    ``scheduler_cls``: the plugin file of an export made with ``--scheduler-cls FILE.py:Class`` (run only with
    the recorded SHA-256: :func:`~geosched.reference_impl.vllm.engine_replay.server_scheduler`).
    """
    requests, meta, settings = read_replay_settings(export)
    plugin = server_scheduler(settings, scheduler_cls, str(export))
    step = meta["step_seconds"] if step_seconds is None else step_seconds
    limit = len(requests) if max_requests is None else max_requests
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError("--requests", limit, "must be an integer >= 1")
    if not (isinstance(timeout, (int, float)) and 0 < timeout <= 86400):
        raise ValidationError("--timeout", timeout, "must be a number of seconds in (0, 86400]")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValidationError("--port", port, "must be an integer in 0..65535 (0: a free port)")
    server = StepServer(settings, step, max_requests=limit, arrival_log=Path(arrival_log) if arrival_log else None,
                        scheduler_cls=plugin)
    signals: list[int] = []  # SIGTERM or Ctrl-C while serving: the server stops, writes its summary, then the
    signal_stop: KeyboardInterrupt | None = None  # signal goes on (its handler runs here, outside the event loop)
    try:
        stopped = asyncio.run(_serve(server, port, timeout, announce, signals))
    except KeyboardInterrupt as exc:  # a signal before the server listens (or outside the main thread)
        stopped, signal_stop = "signal", exc
    finally:
        server.close()
    data = {**server.summary(), "stopped": "signal" if signals else stopped}
    if summary is not None:
        from geosched.output import write_json_atomic

        write_json_atomic(summary, data, force=force)
    if signal_stop is not None:
        raise signal_stop
    if signals:
        signal.raise_signal(signals[0])
    return data


async def _serve(server: StepServer, port: int, timeout: float, announce: Callable[[str], None],
                 signals: list[int]) -> str:
    with _stopping_on_signals(server, signals):
        return await _listen(server, port, timeout, announce)


@contextlib.contextmanager
def _stopping_on_signals(server: StepServer, signals: list[int]) -> Iterator[None]:
    """SIGTERM and Ctrl-C stop the server (its ``stop`` event) instead of raising inside a task; the handlers
    before are restored after (``remove_signal_handler`` alone would reset them to the default)."""
    loop = asyncio.get_running_loop()
    before = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(signum)
        try:
            loop.add_signal_handler(signum, lambda s=signum: (signals.append(s), server.stop.set()))
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread: the signal raises as before
            continue
        before[signum] = previous
    try:
        yield
    finally:
        for signum, previous in before.items():
            loop.remove_signal_handler(signum)
            signal.signal(signum, previous)


async def _listen(server: StepServer, port: int, timeout: float, announce: Callable[[str], None]) -> str:
    from aiohttp import web

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((LOOPBACK, port))
    except OSError as exc:
        listener.close()
        raise ValidationError("--port", port, f"cannot be bound on {LOOPBACK} ({exc.strerror})") from None
    runner = web.AppRunner(server.application(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, listener).start()
    announce(f"listening on http://{LOOPBACK}:{listener.getsockname()[1]}")
    clock = asyncio.ensure_future(server.run_steps())
    try:
        await asyncio.wait_for(server.stop.wait(), timeout)
        stopped = "requests"
    except TimeoutError:
        stopped = "timeout"
    server.stop.set()
    await clock
    await runner.cleanup()
    return stopped
