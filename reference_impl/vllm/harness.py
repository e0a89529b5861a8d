"""Differential harness: one workload through vLLM's real scheduler and the pure-Python model.

Two comparisons, step by step (every ``schedule()`` call), field by field of
:class:`~geosched.reference_impl.vllm.semantics.StepState` (admitted, preempted, running,
scheduled tokens, finished, KV blocks in use):

* :func:`diff_paper` -- the plugin in ``paper`` mode (block size 1, budgets that never
  bind, exact lengths from ``max_tokens``) against :func:`geosched.reference_impl.simulation.simulate`
  of the same policy, whose per-step state is derived from its start times and whose
  memory comes from the independent checker (:func:`geosched.reference_impl.checker.check_schedule`).
* :func:`diff_native` -- the plugin in ``native`` mode (or vLLM's stock scheduler) against
  :class:`~geosched.reference_impl.vllm.semantics.VllmSemantics`, with block sizes, token
  budgets, chunked prefill, ``max_num_seqs`` and preemption.

**Step correspondence** (``docs/vllm.md``). Model request ``(a, s, o)`` <-> vLLM request with
``P = s + 1`` prompt tokens, ``max_tokens = o``, ``arrival_time = a``, added before
``schedule()`` call ``a``. vLLM call ``c`` makes the model's admission decisions of step
``c`` and performs the model's step ``c + 1``: admitted at call ``x``, a request computes
its ``P`` prompt slots and samples output 1 there, holds ``P + j = s + (t - x)`` slots at call
``x + j = t - 1`` (``0 <= j < o``), samples its last output at call ``x + o - 1`` and is freed in
that call's ``update_from_output``: the model's completion step ``x + o``. Memory in blocks
during call ``c`` equals the model's memory at step ``c + 1``.

A mismatch gives a :class:`DiffResult` whose :meth:`DiffResult.report` names the first
diverging step and shows both states; the tests hand the failing workload to Hypothesis,
which shrinks it to a minimal instance.

vLLM is imported lazily: this module imports without vLLM; :func:`vllm_available` says
whether the vLLM side can run. ``VLLM_TARGET_DEVICE=cpu`` and ``HF_HUB_OFFLINE=1`` are set
(unless set) when this module is imported and again before vLLM is used
(:func:`ensure_vllm_device`, which also names the variable to set when vLLM resolved its
platform earlier without a device).

Example (needs vLLM)
--------------------
>>> from geosched.reference_impl.model import burst_instance
>>> diff_paper(burst_instance(12, [(6, 3), (1, 5)]), "svf").ok  # doctest: +SKIP
True
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geosched import limits
from geosched.errors import GeoschedError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import make_policy
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.vllm.admission import PaperGate
from geosched.reference_impl.vllm.config import order_key
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, StepState, VllmSemantics
from geosched.results import Result

__all__ = [
    "DiffResult",
    "STATS",
    "VllmDriver",
    "VllmSetupError",
    "diff_native",
    "diff_paper",
    "ensure_vllm_device",
    "lockstep",
    "paper_params",
    "requests_from_instance",
    "vllm_available",
    "model_config",
    "summary_line",
]

MODEL_LEN = 32768  # max_model_len of the tiny model used for every driven scheduler
SAMPLED_TOKEN = 7  # the fake model always samples this token (never an EOS: ignore_eos anyway)
PLUGIN_PATH = "geosched.reference_impl.vllm.plugin.GeoschedScheduler"

# vLLM reads these when it resolves its platform; the harness only ever drives the scheduler on
# CPU. Set at import (unless set) so that a module importing the harness before vLLM's scheduler
# works; ensure_vllm_device() sets them again before every use and explains a platform that vLLM
# resolved too early.
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


class VllmSetupError(GeoschedError):
    """vLLM cannot drive a scheduler here; the message says what to set or install."""


def ensure_vllm_device(device: str = "cpu") -> None:
    """Make vLLM resolve its platform to ``device`` (the harness drives the scheduler on CPU).

    vLLM reads ``VLLM_TARGET_DEVICE`` when it first resolves its platform, so the variable is
    set here (unless already set) before that happens, with ``HF_HUB_OFFLINE=1`` (no hub).
    When vLLM was imported *and* resolved its platform earlier in this process without a
    device (its ``VllmConfig`` would fail with "Failed to infer device type"), this raises
    :class:`VllmSetupError` saying what to set.
    """
    os.environ.setdefault("VLLM_TARGET_DEVICE", device)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    platforms = sys.modules.get("vllm.platforms")
    resolved = getattr(platforms, "_current_platform", None) if platforms is not None else None
    if resolved is not None and not getattr(resolved, "device_type", ""):
        raise VllmSetupError(
            "vLLM resolved its platform before VLLM_TARGET_DEVICE was set and found no device; set "
            f"VLLM_TARGET_DEVICE={device} in the environment before Python starts (or call "
            "geosched.reference_impl.vllm.harness.ensure_vllm_device() before the first `import vllm`)")

# (mode -> counters) accumulated over a session, for the closing summary of the tests
STATS: dict[str, dict[str, int]] = {}


def _count(mode: str, steps: int, ok: bool, preemptions: int = 0, chunked: int = 0) -> None:
    entry = STATS.setdefault(mode, {"workloads": 0, "steps": 0, "mismatches": 0, "preemptions": 0,
                                    "chunked_prefills": 0})
    entry["workloads"] += 1
    entry["steps"] += steps
    entry["mismatches"] += 0 if ok else 1
    entry["preemptions"] += preemptions
    entry["chunked_prefills"] += chunked


def summary_line() -> str:
    """One line per mode: workloads, steps, preemptions and chunked prefills compared."""
    parts = []
    for mode in sorted(STATS):
        e = STATS[mode]
        parts.append(f"{mode}: {e['workloads']} workloads, {e['steps']} steps, {e['preemptions']} preemptions, "
                     f"{e['chunked_prefills']} partial prefill chunks, {e['mismatches']} mismatches")
    return "; ".join(parts) if parts else "no differential runs"


def vllm_available() -> bool:
    """True when vLLM imports (the lean CPU install suffices)."""
    ensure_vllm_device()
    try:
        import vllm.v1.core.sched.scheduler  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means "not usable here"
        return False
    return True


@functools.cache
def model_config(max_model_len: int = MODEL_LEN) -> Any:
    """A ``ModelConfig`` of a tiny Llama-shaped model: a temporary ``config.json`` only.

    Built once per process (the first one in a fresh ``VLLM_CACHE_ROOT`` costs seconds).
    """
    ensure_vllm_device()
    from vllm.config import ModelConfig

    directory = tempfile.mkdtemp(prefix="geosched-tiny-llama-")
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": 64,
                "intermediate_size": 128,
                "num_attention_heads": 4,
                "num_hidden_layers": 1,
                "num_key_value_heads": 4,
                "vocab_size": 1000,
                "max_position_embeddings": max_model_len,
                "torch_dtype": "float32",
            },
            handle,
        )
    return ModelConfig(model=directory, skip_tokenizer_init=True, max_model_len=max_model_len, dtype="float32")


class VllmDriver:
    """vLLM's real V1 scheduler driven on CPU with fake model outputs.

    ``scheduler_cls``: ``None`` (vLLM's stock ``Scheduler``), a class, or a dotted path
    (resolved by vLLM's own ``SchedulerConfig.get_scheduler_cls``). ``geosched``: the
    ``additional_config["geosched"]`` section for the plugin.
    """

    def __init__(
        self,
        params: EngineParams,
        scheduler_cls: Any = None,
        geosched: dict[str, Any] | None = None,
    ) -> None:
        ensure_vllm_device()
        import torch
        from vllm.config import CacheConfig, SchedulerConfig, VllmConfig
        from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec
        from vllm.v1.structured_output import StructuredOutputManager

        if params.max_model_len != MODEL_LEN:
            raise ValueError(f"the driven model has max_model_len {MODEL_LEN}; got {params.max_model_len}")
        self.params = params
        scheduler_len = MODEL_LEN if params.enable_chunked_prefill else min(MODEL_LEN, params.max_num_batched_tokens)
        scheduler_config = SchedulerConfig(
            max_num_seqs=params.max_num_seqs,
            max_num_batched_tokens=params.max_num_batched_tokens,
            max_model_len=scheduler_len,
            is_encoder_decoder=False,
            enable_chunked_prefill=params.enable_chunked_prefill,
            policy=params.preemption,
            watermark=params.watermark,
            scheduler_cls=scheduler_cls,
            async_scheduling=False,
        )
        cache_config = CacheConfig(block_size=params.block_size, enable_prefix_caching=False)
        num_blocks = params.capacity_blocks + 1  # one is vLLM's null block
        cache_config.num_gpu_blocks = num_blocks
        vllm_config = VllmConfig(
            model_config=model_config(MODEL_LEN),
            scheduler_config=scheduler_config,
            cache_config=cache_config,
            additional_config={"geosched": dict(geosched)} if geosched else {},
        )
        kv_cache_config = KVCacheConfig(
            num_blocks=num_blocks,
            kv_cache_tensors=[],
            kv_cache_groups=[
                KVCacheGroupSpec(
                    ["model.layers.0.self_attn"],
                    FullAttentionSpec(block_size=params.block_size, num_kv_heads=1, head_size=1, dtype=torch.float32),
                )
            ],
        )
        cls = scheduler_config.get_scheduler_cls()
        self.scheduler = cls(
            vllm_config=vllm_config,
            kv_cache_config=kv_cache_config,
            structured_output_manager=StructuredOutputManager(vllm_config),
            block_size=params.block_size,
            log_stats=False,
        )
        self._pending: list[SemRequest] = []
        self._known = 0
        self._finished = 0
        self.partial_chunks = 0  # scheduled prefill chunks that did not complete the prompt

    def add(self, spec: SemRequest) -> None:
        """Queue ``spec`` for arrival (added to vLLM before the call ``spec.arrival``)."""
        self._pending.append(spec)
        self._pending.sort(key=lambda r: r.arrival)

    def _admit_arrivals(self, step: int) -> None:
        from vllm import SamplingParams
        from vllm.v1.request import Request

        while self._pending and self._pending[0].arrival <= step:
            spec = self._pending.pop(0)
            self.scheduler.add_request(
                Request(
                    request_id=spec.id,
                    prompt_token_ids=[1] * spec.prompt_tokens,
                    sampling_params=SamplingParams(max_tokens=spec.max_tokens, ignore_eos=True),
                    pooling_params=None,
                    arrival_time=float(spec.arrival),
                    priority=spec.priority,
                )
            )
            self._known += 1

    def done(self) -> bool:
        return not self._pending and self._finished == self._known

    def idle(self) -> bool:
        return not self.scheduler.running and self.scheduler.get_request_counts()[1] == 0

    def next_arrival(self) -> int | None:
        return self._pending[0].arrival if self._pending else None

    def step(self, step: int) -> StepState:
        """Add the arrivals of ``step``, then schedule(), fake model output, update."""
        from vllm.v1.outputs import ModelRunnerOutput

        self._admit_arrivals(step)
        scheduler = self.scheduler
        before = {r.request_id for r in scheduler.running}
        output = scheduler.schedule()
        running = tuple(r.request_id for r in scheduler.running)
        admitted = tuple(rid for rid in running if rid not in before)
        free = scheduler.kv_cache_manager.block_pool.get_num_free_blocks()
        blocks_used = self.params.capacity_blocks - free
        ids = list(output.num_scheduled_tokens)
        sampled = []
        for rid in ids:
            request = scheduler.requests[rid]
            complete = request.num_computed_tokens >= request.num_tokens
            self.partial_chunks += 0 if complete else 1
            sampled.append([SAMPLED_TOKEN] if complete else [])
        model_output = ModelRunnerOutput(
            req_ids=ids, req_id_to_index={rid: k for k, rid in enumerate(ids)}, sampled_token_ids=sampled
        )
        engine_outputs = scheduler.update_from_output(output, model_output)
        finished = tuple(
            out.request_id for outs in engine_outputs.values() for out in outs.outputs if out.finish_reason is not None
        )
        self._finished += len(finished)
        return StepState(
            step=step,
            admitted=admitted,
            preempted=tuple(sorted(output.preempted_req_ids)),
            running=running,
            scheduled=tuple(output.num_scheduled_tokens.items()),
            finished=finished,
            blocks_used=blocks_used,
            waiting=tuple(r.request_id for r in scheduler.waiting),
        )


@dataclass(frozen=True)
class DiffResult(Result):
    """Outcome of one differential run: ``status`` is ``"agree"`` or ``"diverged"``."""

    STATUSES = ("agree", "diverged")
    SUCCESS = ("agree",)

    status: str
    message: str  # the first line of :meth:`report`
    wall_time: float  # seconds of the lockstep run
    mode: str  # "paper" or "native"
    steps: int  # steps compared
    workload: dict[str, Any]  # the workload and parameters, enough to replay it
    step: int | None = None  # first diverging step
    fields: tuple[str, ...] = ()  # fields that differ there
    vllm_state: StepState | None = None  # vLLM's state at that step
    model_state: StepState | None = None  # the model's state at that step
    history: list[tuple[StepState, StepState]] = field(default_factory=list)  # a few steps before it
    finish_calls: dict[str, int] = field(default_factory=dict)  # vLLM: the schedule() call each request finished in
    preemptions: int = 0  # vLLM: preemptions seen

    @property
    def ok(self) -> bool:
        """No step differed."""
        return self.status == "agree"

    def report(self, subject: str = "vLLM", reference: str = "model") -> str:
        """The first divergence with both states; ``subject`` labels the scheduler driven in vLLM (stock
        vLLM, or a user's class), ``reference`` the model it is compared with."""
        if self.ok:
            return f"{self.mode}: {self.steps} steps agree"
        width = max(len(subject), len(reference))
        lines = [
            f"{self.mode}: first divergence at step {self.step} in {list(self.fields)}",
            f"workload: {json.dumps(self.workload, sort_keys=True)}",
            f"{subject:<{width}} : " + (self.vllm_state.describe() if self.vllm_state else "(none)"),
            f"{reference:<{width}} : " + (self.model_state.describe() if self.model_state else "(none)"),
        ]
        if self.history:
            lines.append(f"preceding steps ({subject} | {reference}):")
            for v, m in self.history:
                lines.append("  " + v.describe().replace("\n", "\n  ") + "\n  | " + m.describe().replace("\n", "\n  "))
        return "\n".join(lines)


_COMPARED = ("admitted", "preempted", "running", "scheduled", "finished", "blocks_used")


def _normalise(state: StepState) -> StepState:
    return StepState(
        step=state.step,
        admitted=state.admitted,
        preempted=tuple(sorted(state.preempted)),  # vLLM reports a set
        running=state.running,
        scheduled=state.scheduled,
        finished=state.finished,
        blocks_used=state.blocks_used,
    )


def lockstep(
    mode: str,
    driver: VllmDriver,
    model_step: Callable[[int], StepState],
    model_done: Callable[[int], bool],
    workload: dict[str, Any],
    max_steps: int | None = None,
) -> DiffResult:
    """Drive ``driver`` (vLLM) and ``model_step`` (any model of it) call by call and compare
    every :class:`StepState` field (admitted, preempted, running, scheduled, finished, blocks).

    Parameters
    ----------
    mode : str
        A label for the report and the session counters (:data:`STATS`).
    driver : VllmDriver
        vLLM's scheduler with the workload added (:meth:`VllmDriver.add`).
    model_step, model_done : callable
        ``model_step(c)`` is the model's state of call ``c``; ``model_done(c)`` says that the
        model has nothing left after call ``c``.
    workload : dict
        What the report prints to replay the run (``requests`` or ``instance`` in it bound the
        livelock guard when ``max_steps`` is None).

    Returns
    -------
    DiffResult
        ``agree``, or ``diverged`` at the first differing call (with both states and the three
        calls before); ``finish_calls`` and ``preemptions`` of the vLLM side either way.
    """
    started = time.perf_counter()
    finish_calls: dict[str, int] = {}
    step = 0
    compared = 0
    preemptions = 0
    history: list[tuple[StepState, StepState]] = []
    reqs = workload.get("requests") or [[0, r["arrival"], r["prompt"] + 1, r["output"]]
                                        for r in workload["instance"]["requests"]]
    limit = limits.max_steps()  # the work limit in force (--max-steps): checked before the first step
    limits.check_steps(limits.busy_steps((a, o) for _, a, _, o, *_ in reqs), limit, mode)
    if max_steps is None:
        # far above any real schedule (each step serves >= 1 token while anything runs);
        # reached only by a livelock, which is then reported instead of spinning
        max_steps = 20 * sum(p + o for _, _, p, o, *_ in reqs) + max(a for _, a, *_ in reqs) + 100
    while not (driver.done() and model_done(step)):
        if compared >= limit:
            raise limits.steps_exceeded(limit, mode)
        if compared >= max_steps:
            raise ValidationError(mode, f"{max_steps} steps", "no completion within the livelock guard (the engine "
                                  "cannot serve the workload)")
        if driver.idle() and driver.next_arrival() is not None:
            step = max(step, driver.next_arrival())
        ours = _normalise(driver.step(step))
        theirs = _normalise(model_step(step))
        compared += 1
        preemptions += len(ours.preempted)
        finish_calls.update({rid: step for rid in ours.finished})
        differing = tuple(f for f in _COMPARED if getattr(ours, f) != getattr(theirs, f))
        if differing:
            _count(mode, compared, False, preemptions, driver.partial_chunks)
            return DiffResult("diverged", f"{mode}: first divergence at step {step} in {list(differing)}",
                              time.perf_counter() - started, mode, compared, workload, step, differing, ours,
                              theirs, history[-3:], finish_calls, preemptions)
        history.append((ours, theirs))
        if len(history) > 3:
            history.pop(0)
        step += 1
    _count(mode, compared, True, preemptions, driver.partial_chunks)
    return DiffResult("agree", f"{mode}: {compared} steps agree", time.perf_counter() - started, mode, compared,
                      workload, finish_calls=finish_calls, preemptions=preemptions)


def requests_from_instance(
    instance: Instance,
    policy: str = "fcfs",
    *,
    predicted: Sequence[int] | None = None,
    priority_from_key: bool = False,
) -> list[SemRequest]:
    """Model requests ``(a, s, o)`` as vLLM requests ``(a, P = s + 1, max_tokens = o)``, keyed."""
    policy_obj = make_policy(policy)
    out = []
    for k, r in enumerate(instance.requests):
        guess = r.output if predicted is None else int(predicted[k])
        key = order_key(policy_obj, r.prompt + 1, guess)
        out.append(SemRequest(r.id, r.arrival, r.prompt + 1, r.output, key=key,
                              priority=key if priority_from_key else 0))
    return out


def paper_params(instance: Instance) -> EngineParams:
    """Block size 1, ``M`` usable blocks, budgets that never bind (the exact-agreement setting)."""
    n = max(instance.n, 1)
    total = sum(r.prompt + 1 for r in instance.requests) + n
    return EngineParams(capacity_blocks=instance.memory, block_size=1, max_num_seqs=n,
                        max_num_batched_tokens=max(total, n, 2))


def diff_paper(
    instance: Instance,
    policy: str = "svf",
    *,
    plugin_policy: str | None = None,
    backfill: bool = False,
    max_steps: int | None = None,
    scheduler: Any = None,
) -> DiffResult:
    """Plugin (``paper`` mode, oracle lengths) vs the simulator's ``policy`` with exact lengths.

    ``plugin_policy`` (default ``policy``) lets a test plug a deliberately wrong variant
    into the vLLM side; ``scheduler`` (a class or dotted path) replaces the plugin there
    altogether (:func:`geosched.reference_impl.vllm.differential.diff_scheduler`).
    """
    params = paper_params(instance)
    requests = requests_from_instance(instance, plugin_policy or policy)
    if scheduler is not None:
        driver = VllmDriver(params, scheduler, None)
    else:
        driver = VllmDriver(params, PLUGIN_PATH, {"policy": plugin_policy or policy, "mode": "paper",
                                                  "predictor": "oracle", "backfill": backfill})
    for spec in requests:
        driver.add(spec)
    result = simulate(instance, policy, predictor="oracle", backfill=backfill)
    if result.restarts:
        raise AssertionError(f"simulate restarted requests with exact lengths: {result.restarts}")
    starts = result.starts
    outputs = {r.id: r.output for r in instance.requests}
    prompts = {r.id: r.prompt for r in instance.requests}
    profile = check_schedule(instance, starts).memory_profile()
    last_call = max((starts[i] + outputs[i] - 1 for i in starts), default=-1)
    by_start: dict[int, list[str]] = {}
    for rid in result.admission_order:
        by_start.setdefault(starts[rid], []).append(rid)
    active: list[str] = []

    def model_step(c: int) -> StepState:
        nonlocal active
        admitted = tuple(by_start.get(c, ()))
        running = [rid for rid in active if starts[rid] + outputs[rid] > c] if active else []
        survivors = tuple(running)
        running_all = survivors + admitted
        scheduled = tuple((rid, 1) for rid in survivors) + tuple((rid, prompts[rid] + 1) for rid in admitted)
        finished = tuple(rid for rid in running_all if starts[rid] + outputs[rid] - 1 == c)
        active = [rid for rid in running_all if rid not in finished]
        memory = int(profile[c + 1]) if c + 1 < len(profile) else 0
        return StepState(c, admitted, (), running_all, scheduled, finished, memory)

    workload = {"instance": instance.to_dict(), "policy": policy, "plugin_policy": plugin_policy or policy,
                "backfill": backfill, "params": _params_dict(params)}
    if scheduler is not None:  # the class under test replaced the plugin
        workload.pop("plugin_policy")
        workload["scheduler"] = scheduler if isinstance(scheduler, str) else \
            f"{scheduler.__module__}.{scheduler.__qualname__}"
    label = "paper" if plugin_policy in (None, policy) else "paper-wrong-variant"
    label = "paper-scheduler" if scheduler is not None else label
    return lockstep(label, driver, model_step, lambda c: c > last_call, workload, max_steps)


def _params_dict(params: EngineParams) -> dict[str, Any]:
    return {k: getattr(params, k) for k in params.__dataclass_fields__}


def diff_native(
    requests: Iterable[SemRequest],
    params: EngineParams,
    *,
    policy: str | None = "svf",
    mode: str = "native",
    max_steps: int | None = None,
    model_policy: str | None = None,
    scheduler: Any = None,
) -> DiffResult:
    """vLLM (plugin in ``mode``, or stock when ``policy`` is None) vs :class:`VllmSemantics`.

    ``requests`` carry prompt tokens, ``max_tokens`` and arrivals; keys are recomputed
    from ``policy`` (oracle lengths). For the stock scheduler the model's queue is vLLM's
    (``fcfs`` deque or ``priority`` heap, by ``params.preemption``) and priorities are the
    requests' own; for the plugin with ``priority`` preemption the priority is the key.
    ``mode="paper"`` replays the plugin's gate in the model (:class:`PaperGate`).
    ``scheduler`` (a class or dotted path) runs on the vLLM side instead of the plugin or the
    stock scheduler; the model side is chosen by ``policy`` and ``mode`` as above.
    """
    specs = [SemRequest(r.id, r.arrival, r.prompt_tokens, r.max_tokens, priority=r.priority) for r in requests]
    stock = policy is None
    if not stock:
        policy_obj = make_policy(model_policy or policy)
        for spec in specs:
            spec.key = order_key(policy_obj, spec.prompt_tokens, spec.max_tokens)
            if params.preemption == "priority":
                spec.priority = spec.key
    if scheduler is not None:
        driver = VllmDriver(params, scheduler, None)
    else:
        driver = VllmDriver(params, None if stock else PLUGIN_PATH,
                            None if stock else {"policy": policy, "mode": mode, "predictor": "oracle"})
    gate_fn = None
    on_admit = None
    if not stock and mode == "paper":
        gate = PaperGate(params.capacity_blocks, params.block_size)
        by_id = {s.id: s for s in specs}

        def gate_fn(step: int, running: Sequence[str], waiting: Sequence[tuple[str, int, int]]) -> list[str]:
            candidates = ((rid, tokens, max(1, by_id[rid].max_tokens - generated))
                          for rid, tokens, generated in waiting)
            return [str(rid) for rid in gate.select(step, running, candidates)]

        def on_admit(rid: str, step: int, request: SemRequest) -> None:
            gate.admitted(rid, step, request.num_tokens, max(1, request.max_tokens - request.generated))

    model = VllmSemantics(params, queue_order=params.preemption if stock else "key",
                          admission_gate=gate_fn, on_admit=on_admit)
    for spec in specs:
        driver.add(SemRequest(spec.id, spec.arrival, spec.prompt_tokens, spec.max_tokens,
                              key=spec.key, priority=spec.priority))
        model.add(spec)

    def model_step(c: int) -> StepState:
        model.step_index = c
        return model.step()

    workload = {
        "requests": [[s.id, s.arrival, s.prompt_tokens, s.max_tokens, s.priority] for s in specs],
        "policy": policy, "mode": mode, "params": _params_dict(params),
    }
    if scheduler is not None:
        workload["scheduler"] = scheduler if isinstance(scheduler, str) else \
            f"{scheduler.__module__}.{scheduler.__qualname__}"
    label = "stock" if stock else mode if mode == "native" else "paper-budgets"
    label = f"scheduler-vs-{label}" if scheduler is not None else label
    return lockstep(label, driver, model_step, lambda c: not model.unfinished(), workload, max_steps)
