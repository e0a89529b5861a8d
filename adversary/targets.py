"""What a hunt attacks: a registry policy in the paper's model, or vLLM's own scheduler.

A *hunt target* turns an instance into the attacked scheduler's total end-to-end latency
``TEL = sum_i (C_i - a_i)`` (``C_i`` the completion step), fast enough for a search, and
into a reference run that a witness file records and :func:`~geosched.adversary.witness.verify_witness`
recomputes. Two kinds:

* **simulator targets** (``fcfs``, ``sjf``, ``svf``, ``svf1``: the registry's policies with the
  ``FAST`` capability): strict head-of-line, exact lengths, no preemption (Kong et al.,
  arXiv 2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115). Search: the compiled
  evaluator :mod:`geosched.adversary.fast`; reference: :func:`geosched.reference_impl.simulation.simulate`.
* **vLLM targets** (``vllm-fcfs``, ``vllm-priority``): *stock* vLLM 0.33 scheduling, the V1
  scheduler's rules as modelled by :class:`~geosched.reference_impl.vllm.semantics.VllmSemantics`
  (on-demand block allocation, no look-ahead, preemption by recompute; ``fcfs``: deque queue,
  the last running request is the victim; ``priority``: heap on ``(priority, arrival, request
  id)``, every priority 0, the victim the largest ``(priority, arrival)``). The model request
  ``(a, s, o)`` is vLLM's ``(arrival a, P = s + 1 prompt tokens, max_tokens = o)`` on the
  engine of :func:`vllm_engine`, derived from the instance and the target's name alone
  (``M / B`` usable blocks of the instance's block size ``B``, budgets that never bind): there
  a non-preemptive schedule of the model is also a vLLM schedule (``docs/vllm.md``, step
  correspondence), so ``TEL(vLLM) / TEL(S)`` with ``S`` a checked model schedule is a certified
  lower bound on vLLM's ratio to the best schedule. vLLM finishes a request in call ``c``: its
  completion step is ``c + 1``.

  The run is the exact-model scheduler of the same name
  (:mod:`geosched.reference_impl.schedulers.vllm`, the rules the vLLM-semantics model also
  runs: one code path) on the step engine; its runs go to the checker, which computes the TEL.
  Where the token budget splits a prefill (a preempted request re-prefills its kept outputs
  too), which the exact model does not represent, the vLLM-semantics model runs on the same
  engine. No other engine is ever used: a witness's ``engine`` field is a record that
  :func:`~geosched.adversary.witness.verify_witness` compares with this one, never an input.
* **scheduler targets** (``geo-guess``, ``geo-batch``, and a user's ``path/to/file.py:Class``):
  any protocol scheduler (:mod:`geosched.reference_impl.scheduling`) that is not a priority
  rule, run by :func:`~geosched.reference_impl.simulation.simulate` on the step engine; its
  *runs* (restarts included) are what a witness records and the checker re-verifies. A file
  is imported only when the caller names it (:func:`hunt_target`, :func:`get_target`): a
  witness that names one is refused unless the user passes the file (its SHA-256 recorded).

The hunt's list of names is :func:`target_names`: the registry's ``FAST`` policies, the vLLM
targets, then the registry's other schedulers (:func:`hunt_target` also takes a scheduler file).

**Ties.** Every target states the rule its ratios hold under (:attr:`HuntTarget.tie_rule`) and
can re-run an instance with the tie order reversed (:meth:`HuntTarget.reversed_ties_tel`): the
positions reversed and, where the scheduler compares request ids (stock vLLM's priority heap),
the id order reversed too; a ratio that changes is tie-dependent, and its witness says so.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> get_target("svf").run(inst).tel, get_target("vllm-fcfs").run(inst).tel
(13, 9)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.engine import run_scheduler
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import Capability, policy_names
from geosched.reference_impl.scheduler_registry import REGISTRY
from geosched.reference_impl.schedulers.vllm import ChunkedPrefillError, VllmScheduler
from geosched.reference_impl.simulation import resolve, simulate
from geosched.reference_impl.user_schedulers import is_file_spec
from geosched.reference_impl.vllm.semantics import EngineParams, SemRequest, VllmSemantics

__all__ = [
    "HuntTarget",
    "PolicyRun",
    "SimulatorTarget",
    "SchedulerTarget",
    "VllmTarget",
    "hunt_target",
    "TIE_RULE_POSITION",
    "VLLM_TARGETS",
    "completions_tel",
    "engine_for",
    "vllm_engine",
    "block_size_for",
    "get_target",
    "target_names",
    "reversed_instance",
]

TIE_RULE_POSITION = "equal keys: earlier arrival first, then earlier position in the instance (ids are labels)"


@dataclass(frozen=True)
class PolicyRun:
    """The attacked scheduler's run on one instance."""

    tel: int  # sum of (completion - arrival)
    completions: dict[str, int]  # completion step of every request
    starts: dict[str, int] | None = None  # start steps (simulator targets; None for vLLM targets)
    preemptions: int = 0  # preemptions (vLLM targets; 0 in the paper's model)
    engine: dict[str, Any] | None = None  # the vLLM engine parameters (vLLM targets)
    extra: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, list[list[int]]] | None = None  # every run [start, end, kept] (vLLM and scheduler targets)


class HuntTarget(Protocol):
    """A scheduler a hunt attacks (see the module docstring)."""

    name: str
    kind: str  # "simulator", "vllm" or "scheduler"
    tie_rule: str  # the rule equal keys are ordered by

    def array_tel(self, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, block_size: int = 1) -> int:
        """TEL on arrays (ids ``ids_for(n)``, memory in blocks of ``block_size``): the search's inner loop."""
        ...

    def run(self, instance: Instance) -> PolicyRun:
        """The reference run that witness files record and verification recomputes (from the
        instance and the target's name alone)."""
        ...

    def reversed_ties_tel(self, instance: Instance) -> int:
        """TEL with the tie order reversed (positions, and ids where they are compared)."""
        ...


def reversed_instance(instance: Instance, *, reverse_id_order: bool = False) -> Instance:
    """The same requests in reversed positions; with ``reverse_id_order`` the ids are also
    exchanged so that their string order is reversed (the request keeps its lengths).

    >>> from geosched.reference_impl.model import burst_instance
    >>> [r.id for r in reversed_instance(burst_instance(9, [(1, 1), (2, 2)])).requests]
    ['r1', 'r0']
    >>> [r.id for r in reversed_instance(burst_instance(9, [(1, 1), (2, 2)]), reverse_id_order=True).requests]
    ['r0', 'r1']
    """
    reqs = list(reversed(instance.requests))
    if reverse_id_order:
        ranked = sorted(r.id for r in reqs)
        swap = {rid: ranked[len(ranked) - 1 - k] for k, rid in enumerate(ranked)}
        reqs = [Request(swap[r.id], r.arrival, r.prompt, r.output) for r in reqs]
    return instance.with_requests(reqs)


@dataclass(frozen=True)
class SimulatorTarget:
    """A registry policy in the paper's model (strict head-of-line, exact lengths)."""

    name: str
    kind: str = "simulator"
    tie_rule: str = TIE_RULE_POSITION

    def array_tel(self, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, block_size: int = 1) -> int:
        if block_size != 1:  # SearchSpace refuses it first; this keeps the compiled evaluator honest
            raise ValidationError("block_size", block_size, f"{self.name}: the compiled evaluator counts tokens")
        return _fast().policy_tel(self.name, a, s, o, memory)

    def run(self, instance: Instance) -> PolicyRun:
        starts = simulate(instance, self.name).starts
        report = check_schedule(instance, starts)
        out = {r.id: r.output for r in instance.requests}
        return PolicyRun(report.metrics.tel if report.feasible else -1, {i: x + out[i] for i, x in starts.items()},
                         dict(starts))

    def reversed_ties_tel(self, instance: Instance) -> int:
        return self.run(reversed_instance(instance)).tel


def _array_instance(a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, block_size: int) -> Instance:
    ids = _fast().ids_for(len(o))
    return Instance(int(memory), [Request(i, int(x), int(y), int(z)) for i, x, y, z in zip(ids, a, s, o)],
                    block_size)


def _checked_runs(instance: Instance, runs: Mapping[str, Any]) -> tuple[int, dict[str, list[list[int]]]]:
    """The checker's TEL of a schedule with restarts (-1 when infeasible) and its runs as lists."""
    plain = {i: [[int(v) for v in run] for run in rs] for i, rs in runs.items()}
    report = check_schedule(instance, plain)
    return (report.metrics.tel if report.feasible else -1), plain


@dataclass(frozen=True)
class SchedulerTarget:
    """A protocol scheduler that is not a priority rule (a registry name or ``file.py:Class``),
    on the step engine; the checker computes its TEL from its runs."""

    name: str
    kind: str = "scheduler"
    tie_rule: str = TIE_RULE_POSITION

    def array_tel(self, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, block_size: int = 1) -> int:
        # the search's score: the engine's own run (it checks M at every step); the independent
        # checker re-verifies the runs of every reported witness (run())
        inst = _array_instance(a, s, o, memory, block_size)
        return completions_tel(inst, simulate(inst, self.name).completions)

    def run(self, instance: Instance) -> PolicyRun:
        result = simulate(instance, self.name)
        out = {r.id: r.output for r in instance.requests}
        tel, runs = _checked_runs(instance, result.runs if result.runs is not None else
                                  {i: [(x, x + out[i], 0)] for i, x in result.starts.items()})
        return PolicyRun(tel, dict(result.completions), None, result.restarts, None,
                         {"lost_tokens": result.lost_tokens}, runs)

    def reversed_ties_tel(self, instance: Instance) -> int:
        return self.run(reversed_instance(instance)).tel


def block_size_for(instance: Instance, policy: str) -> int:
    """The KV block grain ``B`` that ``policy`` runs at on ``instance``: the one place a
    certificate reads it. It is the instance's ``block_size``
    (:class:`~geosched.reference_impl.model.Instance`, validated there: an integer >= 1 dividing
    ``M``); no target name carries one (``vllm-fcfs:block=16`` is refused by :func:`get_target`).

    >>> from geosched.reference_impl.model import burst_instance
    >>> block_size_for(burst_instance(32, [(6, 3)], block_size=16), "vllm-fcfs")
    16
    """
    return instance.block_size


def vllm_engine(instance: Instance, policy: str) -> EngineParams:
    """The vLLM engine of a vLLM target on ``instance``, from the instance and the target's name
    alone (the one derivation: hunts, witnesses, their verification and the vLLM replay all
    use it): ``M / B`` usable blocks of ``B = block_size_for(instance, policy)`` tokens,
    ``max_num_seqs = n`` and a token budget that holds every prompt in one step (a resumed request's
    recompute, prompt and kept outputs, can still use it up), the
    preemption rule of the name, no watermark, vLLM's ``max_model_len``.

    Raises
    ------
    ValidationError
        When the name is not a vLLM target, or the engine cannot serve the instance: a request
        needs ``s + 1 + o`` tokens, more than ``max_model_len``.

    >>> from geosched.reference_impl.model import burst_instance
    >>> e = vllm_engine(burst_instance(32, [(6, 3), (1, 5)], block_size=8), "vllm-priority")
    >>> e.capacity_blocks, e.block_size, e.max_num_seqs, e.max_num_batched_tokens, e.preemption
    (4, 8, 2, 11, 'priority')
    """
    target = _vllm_target(policy)
    block = block_size_for(instance, policy)
    n = max(instance.n, 1)
    budget = max(sum(r.prompt + 1 for r in instance.requests) + n, 2)
    params = EngineParams(capacity_blocks=instance.memory // block, block_size=block, max_num_seqs=n,
                          max_num_batched_tokens=budget, enable_chunked_prefill=True, preemption=target.preemption)
    longest = max(instance.requests, key=lambda r: r.prompt + 1 + r.output, default=None)
    if longest is not None and longest.prompt + 1 + longest.output > params.max_model_len:
        raise ValidationError(f"request {longest.id!r}", longest.prompt + 1 + longest.output,
                              f"needs s + 1 + o tokens, more than vLLM's max_model_len {params.max_model_len}: the "
                              f"engine of {policy!r} cannot serve this instance")
    return params


def engine_for(instance: Instance, preemption: str = "fcfs") -> dict[str, Any]:
    """:func:`vllm_engine` of ``vllm-<preemption>`` as a dict (a witness's ``engine`` record):
    ``M / B`` usable blocks of the instance's ``B = block_size`` tokens, ``max_num_seqs = n`` and
    a token budget that holds every prompt in one step.

    >>> from geosched.reference_impl.model import burst_instance
    >>> engine_for(burst_instance(12, [(6, 3), (1, 5)]))["max_num_batched_tokens"]
    11
    """
    if preemption not in ("fcfs", "priority"):
        raise ValidationError("preemption", preemption, "must be 'fcfs' or 'priority'")
    params = vllm_engine(instance, f"vllm-{preemption}")
    return {k: getattr(params, k) for k in params.__dataclass_fields__}


def _semantics_run(instance: Instance, params: EngineParams) -> tuple[dict[str, int], int]:
    """Completion steps (finish call + 1) and preemptions of stock vLLM on ``instance``, in the
    vLLM-semantics model (chunked prefills included)."""
    model = VllmSemantics(params, queue_order=params.preemption)
    for r in instance.requests:
        model.add(SemRequest(r.id, r.arrival, r.prompt + 1, r.output))
    completions: dict[str, int] = {}
    limit = 20 * sum(r.prompt + 1 + r.output for r in instance.requests) + max(r.arrival for r in instance.requests)
    try:
        for state in model.run(max_steps=limit + 100):
            for rid in state.finished:
                completions[rid] = state.step + 1
    except RuntimeError:  # the model's livelock guard: one line, not a traceback
        raise ValidationError("instance", f"{instance.n} requests", f"vLLM's engine ({params.capacity_blocks} "
                              f"blocks of {params.block_size}) finished no request within {limit + 100} "
                              "steps") from None
    return completions, model.preemptions


@dataclass(frozen=True)
class VllmTarget:
    """Stock vLLM's scheduler (``preemption`` = ``SchedulerConfig.policy``), as the exact-model
    scheduler on the engine of :func:`vllm_engine`; replayed in vLLM itself by
    :mod:`geosched.adversary.vllm_replay`."""

    name: str
    preemption: str  # "fcfs" or "priority"
    tie_rule: str
    kind: str = "vllm"

    def engine(self, instance: Instance) -> EngineParams:
        """The one engine this target runs on for ``instance`` (:func:`vllm_engine`)."""
        return vllm_engine(instance, self.name)

    def array_tel(self, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, block_size: int = 1) -> int:
        inst = _array_instance(a, s, o, memory, block_size)  # scored as in SchedulerTarget.array_tel
        params = self.engine(inst)
        try:
            run = run_scheduler(inst, VllmScheduler(params.preemption, params.max_num_seqs,
                                                    params.max_num_batched_tokens, self.name))
        except ChunkedPrefillError:
            return self.run(inst).tel
        return completions_tel(inst, run.completions)

    def run(self, instance: Instance) -> PolicyRun:
        params = self.engine(instance)
        described = {k: getattr(params, k) for k in params.__dataclass_fields__}
        scheduler = VllmScheduler(params.preemption, params.max_num_seqs, params.max_num_batched_tokens, self.name)
        try:
            run = run_scheduler(instance, scheduler)  # memory in blocks of the instance's block_size
        except ChunkedPrefillError:  # the budget split a prefill: only the semantics model has that
            completions, preemptions = _semantics_run(instance, params)
            return PolicyRun(completions_tel(instance, completions), completions, None, preemptions, described)
        tel, runs = _checked_runs(instance, run.runs)
        return PolicyRun(tel, run.completions, None, run.restarts, described,
                         {"recomputed_tokens": run.recomputed_tokens}, runs)

    def reversed_ties_tel(self, instance: Instance) -> int:
        flipped = reversed_instance(instance, reverse_id_order=self.preemption == "priority")
        return self.run(flipped).tel


VLLM_TARGETS: dict[str, VllmTarget] = {
    "vllm-fcfs": VllmTarget("vllm-fcfs", "fcfs", "vLLM FCFS deque: requests queue in arrival order, equal "
                            "arrivals in position order; a preempted request goes back to the front"),
    "vllm-priority": VllmTarget("vllm-priority", "priority", "vLLM priority heap on (priority = 0, arrival "
                                "time, request id string): equal arrivals in id string order"),
}


@functools.cache
def _fast() -> Any:
    """:mod:`geosched.adversary.fast`, imported once on first use: it loads numba, which building
    the command line (``choices=target_names()``) must not; cached because ``array_tel`` is the
    searches' inner loop, where an import statement per call would cost about 1 us."""
    from geosched.adversary import fast

    return fast


def target_names() -> tuple[str, ...]:
    """Every name a hunt accepts: the registry's ``FAST`` policies, the vLLM targets, then the
    registry's other schedulers (and, not listed, any ``path/to/file.py:Class``).

    >>> target_names()[:4], "vllm-fcfs" in target_names(), "geo-guess" in target_names()
    (('fcfs', 'sjf', 'svf', 'svf1'), True, True)
    """
    others = tuple(name for name, entry in REGISTRY.items() if name not in VLLM_TARGETS
                   and Capability.PRIORITY_RULE not in entry.capabilities)
    return tuple(policy_names(Capability.FAST)) + tuple(VLLM_TARGETS) + others


def hunt_target(name: str) -> HuntTarget:
    """The target of a hunt: a name of :func:`target_names` or a scheduler file ``path.py:Class``.

    >>> hunt_target("geo-guess").kind
    'scheduler'
    """
    if isinstance(name, str) and (name in target_names() or is_file_spec(name)
                                  or name.partition(":")[0] in VLLM_TARGETS):
        return get_target(name)
    raise UnknownNameError("hunt policy", name, [*target_names(), "FILE.py:Class"])


def get_target(name: str) -> HuntTarget:
    """The target of that name: a vLLM target, or any registry policy (searches need a
    ``FAST`` one: :func:`target_names`; the reference run of a witness takes any).

    Raises
    ------
    UnknownNameError
        For a name that is neither a ``FAST`` registry policy nor a vLLM target.

    Examples
    --------
    >>> get_target("vllm-priority").preemption
    'priority'
    """
    if isinstance(name, str) and name.partition(":")[0] in VLLM_TARGETS:
        return _vllm_target(name)
    if is_file_spec(name):
        resolve(name)  # a bad file is a one-line error now, not in the middle of a search
        return SchedulerTarget(name)
    if isinstance(name, str) and name.partition(":")[0] in REGISTRY and name.partition(":")[0] not in policy_names():
        return SchedulerTarget(name)
    if isinstance(name, str) and name.partition(":")[0] in policy_names():
        return SimulatorTarget(name)  # also a simulator-only policy or a spec: witnesses may name one
    raise UnknownNameError("hunt policy", name, list(target_names()))


def _vllm_target(name: str) -> VllmTarget:
    """``vllm-fcfs`` / ``vllm-priority`` (they take no parameter: the block size is the instance's)."""
    base, _, spec = name.partition(":")
    if spec:
        raise ValidationError("hunt policy", name, f"a vLLM target takes no parameter: the KV block size is the "
                              f"instance's block_size (hunt --block-size B; a witness file's instance holds it), "
                              f"so write {base!r}")
    return VLLM_TARGETS[base]


def completions_tel(instance: Instance, completions: Mapping[str, int]) -> int:
    """``sum_i (C_i - a_i)``."""
    return sum(int(completions[r.id]) - r.arrival for r in instance.requests)

