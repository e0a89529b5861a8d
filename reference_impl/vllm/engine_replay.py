"""Replay an exported ``vllm-bench`` file through vLLM's own engine core, on CPU, with fake model outputs.

The differential harness (:mod:`geosched.reference_impl.vllm.harness`) drives vLLM's V1
``Scheduler`` object directly. This module goes one level up, to what ``vllm serve`` runs:
vLLM 0.33's ``EngineCore`` (``vllm.v1.engine.core``), which builds the scheduler and the KV
cache manager itself from a ``VllmConfig`` (``--block-size``, ``--num-gpu-blocks-override``,
``--max-num-seqs``, ``--max-num-batched-tokens``, ``--max-model-len``, prefix caching off, the
scheduling policy: the file's ``geosched_workload.server`` settings,
:mod:`geosched.reference_impl.formats.serving`), turns each ``EngineCoreRequest`` into a vLLM
``Request`` with its own ``preprocess_add_request`` and runs ``step()``. Only the model executor is
replaced: :class:`FakeExecutor` reports the KV memory of the configured blocks and answers every
``execute_model`` with one sampled token per request whose prefill completed.

The file is read the way ``vllm bench serve`` sends it: line after line, in file order, each
request stamped with its ``timestamp`` as arrival time (a server stamps the time it receives a
request, so staggered timestamps keep the send order). A request with timestamp ``ts`` is added
before engine step ``c = round(ts / step_seconds)`` (the file's own mapping). Engine step ``c``
makes the model's admission decisions of step ``c`` (``docs/vllm.md``, step correspondence), so a
request that finishes in step ``c`` completes at model step ``c + 1``, and
``TEL = sum(c_i + 1 - arrival_i)``.

``reverse_ties=True`` sends the requests of each arrival step in the reverse order (restamped):
the check that a witness's ratio needs its tie order.

Example (needs vLLM)
--------------------
>>> replay_in_engine_core("worst.jsonl").tel  # doctest: +SKIP
10166
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.formats.serving import ServerSettings
from geosched.reference_impl.jsonfile import loads, read_text
from geosched.reference_impl.user_schedulers import load_pinned_class
from geosched.reference_impl.vllm.harness import SAMPLED_TOKEN, ensure_vllm_device, model_config
from geosched.results import Result

__all__ = ["EngineReplay", "ReplayRequest", "add_request", "engine_core", "read_replay_file", "replay_in_engine_core",
           "read_replay_settings", "server_scheduler"]

_KV_BYTES_PER_TOKEN = 8  # the fake model's FullAttentionSpec: 1 head x 1 dim x float32 x (K, V)


@dataclass(frozen=True)
class ReplayRequest:
    """One line of the file, as the client sends it."""

    id: str  # request_id
    timestamp: float  # seconds after the start of the replay
    arrival: int  # round(timestamp / step_seconds)
    input_length: int  # prompt tokens P
    output_length: int  # max_tokens (EOS ignored)


@dataclass(frozen=True)
class EngineReplay(Result):
    """A file replayed through vLLM's ``EngineCore``; every number was measured in that run."""

    STATUSES = ("completed", "stalled")
    SUCCESS = ("completed",)

    status: str  # "completed" (every request finished) or "stalled" (the step limit was reached)
    message: str
    wall_time: float
    path: str
    n: int
    tel: int | None  # sum over requests of (finish step + 1 - arrival step); None when stalled
    completions: dict[str, int] = field(default_factory=dict)  # model completion step of each request
    steps: int = 0  # engine steps run
    preemptions: int = 0  # requests vLLM preempted (recompute), counted per preemption
    send_order: tuple[str, ...] = ()  # ids in the order they were added
    settings: dict[str, Any] = field(default_factory=dict)  # the server settings used


def read_replay_file(path: str | Path) -> tuple[list[ReplayRequest], dict[str, Any]]:
    """The file's requests in file (send) order and its ``geosched_workload`` metadata.

    Raises
    ------
    WorkloadFormatError
        When the file has no geosched metadata (step mapping and server settings), a bad line, or a field
        naming code (:func:`~geosched.reference_impl.code_names.refuse_code_names`, before anything is used:
        no vLLM import, no server).
    """
    path = Path(path)
    rows = []
    for k, line in enumerate(read_text(path).splitlines()):
        if line.strip():
            rows.append(loads(line, f"{path}:{k + 1}"))
            refuse_code_names(rows[-1], f"{path}:{k + 1}")
    meta = rows[0].get("geosched_workload") if rows and isinstance(rows[0], dict) else None
    if not isinstance(meta, dict) or "server" not in meta or "step_seconds" not in meta:
        raise WorkloadFormatError(f"{path}: not a geosched vllm-bench export with server settings "
                                  "(write it with `geosched export ... --format vllm-bench`)")
    step = meta["step_seconds"]
    requests = []
    for k, row in enumerate(rows):
        try:
            stamp = float(row["timestamp"])
            requests.append(ReplayRequest(str(row["request_id"]), stamp, round(stamp / step),
                                          int(row["input_length"]), int(row["output_length"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise WorkloadFormatError(f"{path}:{k + 1}: bad timed_trace line ({exc})") from None
    return requests, meta


def read_replay_settings(path: str | Path) -> tuple[list[ReplayRequest], dict[str, Any], ServerSettings]:
    """:func:`read_replay_file` and its server settings, checked (what a server or a replay reads first, before
    vLLM is imported: a bad or code-naming file is refused in milliseconds)."""
    requests, meta = read_replay_file(path)
    try:
        return requests, meta, ServerSettings.from_dict(meta["server"])
    except ValidationError as exc:
        raise WorkloadFormatError(f"{path}: {exc}") from None


def server_scheduler(settings: ServerSettings, given: str | None, source: str, *, load: bool = True) -> Any:
    """The scheduler class vLLM's engine is built with: None (stock vLLM), geosched's plugin (built in), or the
    user's plugin file, which runs only when ``given`` (the command line's ``--scheduler-cls FILE.py:Class``)
    names a file whose SHA-256 is the one the export recorded (:func:`load_pinned_class`; its class, loaded
    here; ``load=False`` checks the names only, before vLLM is imported). ``given`` for an export made without
    a file of its own is refused: the replay would not be the export's."""
    label = settings.plugin_file
    if label is None:
        if given is not None:
            raise ValidationError("--scheduler-cls", given, f"{source} was exported for "
                                  f"{settings.scheduler_cls or 'stock vLLM'}, not for a scheduler file of yours")
        return settings.scheduler_cls
    if given is None:
        raise ValidationError("--scheduler-cls", None, f"{source} was exported with your scheduler file {label!r} "
                              f"(SHA-256 {settings.scheduler_sha256}): name that file (--scheduler-cls FILE.py:Class; "
                              "Python: scheduler_cls=) to run it; a data file never names code that runs")
    if given.rpartition(":")[2] != label.rpartition(":")[2]:
        raise ValidationError("--scheduler-cls", given, f"must name the class of the export's {label!r}")
    return load_pinned_class(given, settings.scheduler_sha256) if load else given


def _reversed_ties(requests: list[ReplayRequest], gap: float, step: float) -> list[ReplayRequest]:
    out: list[ReplayRequest] = []
    k = 0
    while k < len(requests):
        j = k
        while j < len(requests) and requests[j].arrival == requests[k].arrival:
            j += 1
        group = requests[k:j][::-1]
        out += [ReplayRequest(r.id, r.arrival * step + rank * gap, r.arrival, r.input_length, r.output_length)
                for rank, r in enumerate(group)]
        k = j
    return out


def engine_core(settings: ServerSettings, scheduler_cls: Any = None) -> Any:
    """vLLM's EngineCore with the server settings and a fake executor (no model: one sampled token per
    request whose prompt is computed); also the engine of ``geosched serve-model``. ``scheduler_cls``: what
    :func:`server_scheduler` gives (never a name read from a file)."""
    ensure_vllm_device()
    from vllm.config import CacheConfig, SchedulerConfig, VllmConfig
    from vllm.v1.engine.core import EngineCore

    scheduler_config = SchedulerConfig(
        max_num_seqs=settings.max_num_seqs, max_num_batched_tokens=settings.max_num_batched_tokens,
        max_model_len=settings.max_model_len, is_encoder_decoder=False,
        enable_chunked_prefill=settings.enable_chunked_prefill, policy=settings.scheduling_policy,
        scheduler_cls=scheduler_cls, async_scheduling=False)
    cache_config = CacheConfig(block_size=settings.block_size, enable_prefix_caching=False)
    cache_config.num_gpu_blocks_override = settings.num_gpu_blocks_override
    config = VllmConfig(model_config=model_config(settings.max_model_len), scheduler_config=scheduler_config,
                        cache_config=cache_config)
    executor = _fake_executor_class(settings.block_size, settings.num_gpu_blocks_override)
    core = EngineCore(config, executor, log_stats=False)
    executor.scheduler = core.scheduler
    return core


def _fake_executor_class(block_size: int, num_blocks: int) -> type:
    """An ``Executor`` subclass that runs no model: one sampled token per request whose prompt is computed."""
    from concurrent.futures import Future

    import torch
    from vllm.v1.executor.abstract import Executor
    from vllm.v1.kv_cache_interface import FullAttentionSpec
    from vllm.v1.outputs import ModelRunnerOutput

    class FakeExecutor(Executor):
        uses_ray = False
        supports_pp = False
        scheduler: Any = None  # set once the engine core has built its scheduler

        def _init_executor(self) -> None:
            pass

        def initialize_from_config(self, kv_cache_configs: Any) -> None:
            pass

        def compile_or_warm_up_model(self) -> None:
            pass

        def determine_available_memory(self) -> list[int]:
            return [_KV_BYTES_PER_TOKEN * block_size * num_blocks]

        def get_kv_cache_specs(self) -> list[dict[str, Any]]:
            spec = FullAttentionSpec(block_size=block_size, num_kv_heads=1, head_size=1, dtype=torch.float32)
            return [{"model.layers.0.self_attn": spec}]

        def get_supported_kv_cache_layouts(self) -> list[list[str]]:
            return [["NHD"]]

        def set_kv_cache_layout(self, *args: Any, **kwargs: Any) -> None:
            pass

        def collective_rpc(self, method: Any, timeout: Any = None, args: tuple = (), kwargs: Any = None,
                           non_block: bool = False) -> list[Any]:
            return [None]

        def execute_model(self, scheduler_output: Any, non_block: bool = False) -> Any:
            # schedule() has already advanced num_computed_tokens by the scheduled tokens
            # (Scheduler._update_after_schedule): a request samples iff its prompt is now computed, and
            # a partial prefill chunk samples nothing (vLLM's GPU model runner discards its token).
            # Adding the scheduled tokens a second time would sample after every partial chunk.
            ids = list(scheduler_output.num_scheduled_tokens)
            requests = type(self).scheduler.requests
            sampled = [[SAMPLED_TOKEN] if requests[rid].num_computed_tokens >= requests[rid].num_tokens else []
                       for rid in ids]
            future: Future = Future()
            future.set_result(ModelRunnerOutput(req_ids=ids, req_id_to_index={r: k for k, r in enumerate(ids)},
                                                sampled_token_ids=sampled))
            return future

        def sample_tokens(self, grammar_output: Any, non_block: bool = False) -> Any:
            return None

        def check_health(self) -> None:
            pass

        def shutdown(self) -> None:
            pass

    return FakeExecutor


def add_request(core: Any, request_id: str, prompt_tokens: int, max_tokens: int, arrival_time: float) -> None:
    """Add one request to :func:`engine_core`'s engine the way vLLM's frontend does (EOS ignored)."""
    from vllm import SamplingParams
    from vllm.v1.engine import EngineCoreRequest

    engine_request = EngineCoreRequest(
        request_id=request_id, prompt_token_ids=[1] * prompt_tokens, mm_features=None,
        sampling_params=SamplingParams(max_tokens=max_tokens, ignore_eos=True), pooling_params=None,
        arrival_time=arrival_time, lora_request=None, cache_salt=None, data_parallel_rank=None)
    vllm_request, wave = core.preprocess_add_request(engine_request)
    core.add_request(vllm_request, wave)


def replay_in_engine_core(path: str | Path, *, reverse_ties: bool = False,
                          scheduler_cls: str | None = None) -> EngineReplay:
    """Replay ``path`` (a ``geosched export --format vllm-bench`` file) through vLLM's EngineCore.

    ``scheduler_cls``: the plugin scheduler file of an export made with ``--scheduler-cls FILE.py:Class``
    (:func:`server_scheduler`: it runs only when its SHA-256 is the one the export recorded). A file never
    names code that runs: a ``server.scheduler_cls`` other than a pinned file label or geosched's own plugin
    is refused when the file is read.

    Returns
    -------
    EngineReplay
        The TEL and completion steps measured in vLLM (see the module docstring).
    """
    started = time.perf_counter()
    requests, meta, settings = read_replay_settings(path)
    plugin = server_scheduler(settings, scheduler_cls, str(path))
    if reverse_ties:
        requests = _reversed_ties(requests, meta.get("tie_gap_seconds", 0.0), meta["step_seconds"])
    core = engine_core(settings, plugin)
    preempted: list[str] = []
    schedule = core.scheduler.schedule

    def counting_schedule(*args: Any, **kwargs: Any) -> Any:
        output = schedule(*args, **kwargs)
        preempted.extend(output.preempted_req_ids or ())
        return output

    core.scheduler.schedule = counting_schedule  # count vLLM's preemptions without changing what it does
    pending = list(requests)
    finished: dict[str, int] = {}
    step = 0
    limit = sum(r.input_length + r.output_length for r in requests) * 4 + max((r.arrival for r in requests), default=0)
    while (pending or core.scheduler.has_requests()) and step <= limit:
        while pending and pending[0].arrival <= step:
            request = pending.pop(0)
            add_request(core, request.id, request.input_length, request.output_length, request.timestamp)
        if not core.scheduler.has_requests() and pending:
            step = pending[0].arrival
            continue
        outputs, _ = core.step()
        for batch in outputs.values():
            finished.update({o.request_id: step + 1 for o in batch.outputs if o.finish_reason is not None})
        step += 1
    arrival = {r.id: r.arrival for r in requests}
    complete = len(finished) == len(requests)
    tel = sum(finished[r] - arrival[r] for r in finished) if complete else None
    note = " (ties reversed)" if reverse_ties else ""
    return EngineReplay(
        status="completed" if complete else "stalled",
        message=(f"{len(requests)} requests through vLLM's EngineCore (block size {settings.block_size}, "
                 f"{settings.num_gpu_blocks_override} blocks): TEL {tel}{note}"),
        wall_time=time.perf_counter() - started, path=str(path), n=len(requests), tel=tel, completions=finished,
        steps=step, preemptions=len(preempted), send_order=tuple(r.id for r in requests), settings=settings.to_dict())
