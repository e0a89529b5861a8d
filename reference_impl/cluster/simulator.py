"""The cluster simulator: a router places each arriving request on one of N replicas.

Each replica (:class:`~geosched.reference_impl.cluster.replica.Replica`) is the project's
simulator engine with its own memory budget, step-time model and local scheduler, plus a
seconds clock. Requests arrive at ``T_i = arrival_i * step_seconds / speedup`` seconds, in
order of ``(T_i, position)``; before each placement every replica is brought to ``T_i`` and
the router reads their state. When the last request is placed every replica runs to the end.
Every replica's schedule is then re-checked by the independent checker
(:func:`~geosched.reference_impl.checker.check_schedule`, evicted runs included).

**What a request is believed to need.** Each request gets a predicted length distribution
``D`` from ``distribution(request)`` (default: the true length, a point mass). From it:

* the *belief*: the output length the local forward-looking check uses (and the point
  prediction the local policy orders by). ``"mean"``: ``round(E[o])``; ``"quantile"``: the
  ``safety_quantile`` of ``D``; ``"auto"`` (default): the mean, for every pair of router and local
  policy, SageSched's included. The replica's admission is the project's forward-looking check, the
  same for every pair: it is none of SageSched's elements (the paper's scheduler runs in a serving
  engine that admits on free KV blocks), so SageSched does not get an admission rule of its own; its
  uncertainty enters through the distribution's moments and its placement's reserve (issue 35: with
  the quantile as the admission belief of SageSched's pairs only, the gain row compared two admission
  rules). When a request outgrows its belief the engine doubles it and, if memory would overflow,
  evicts (vLLM-style preemption with recompute; see :mod:`.replica`).
* the *reserve*: the output tokens the SageSched router counts for a request placed on a replica
  (its memory filter ``R_r + s + o_q <= M_r``): the ``safety_quantile`` of ``D`` when SageSched
  routes or orders (uncertainty-aware placement), the rounded mean otherwise and in the
  ``no-safety`` ablation.
* for ``sagesched``: ``E[o]``, ``E[v]`` exact over the bins, and the reserve.

**Local policies**: every simulator policy of the registry (``fcfs``, ``sjf``, ``svf``,
``svf1``), keyed on the belief exactly as :func:`~geosched.reference_impl.simulation.simulate`
keys on predictions, plus ``sagesched``: smallest expected hybrid cost first
(:mod:`.cost`, weights of the replica's own step-time model). 1-bit SVF resolves its
threshold and proxies from the whole workload's predictions in :func:`simulate`; online that
would be look-ahead, so here they must be given (``svf1:theta=...,short_length=...,long_length=...``)
or come from ``svf1_lengths`` (the training part's outputs, as the vLLM plugin needs fixed ones).

**Ablations** (SageSched's parts removed one at a time): ``point`` (the distribution replaced
by a point mass at its rounded mean: no variance in ``E[v]``, no safety margin),
``memory-only`` and ``compute-only`` (one term of the hybrid cost dropped, in the local
order and in the router), ``no-safety`` (the placement's reserve at the mean).

**Metrics** in seconds: latency = completion - arrival (TTLT); goodput = requests per second
finishing within ``slo_scale`` times their isolated latency on the fastest replica. In steps:
each replica's total latency from the checker.

Example
-------
>>> from geosched.reference_impl.cluster.steptime import StepTimeModel
>>> from geosched.reference_impl.model import burst_instance
>>> result = simulate_cluster(burst_instance(12, [(6, 3), (1, 5)]).requests, [StepTimeModel.unit(12)],
...                           router="round-robin", local="svf")
>>> result.replicas[0].starts, result.metrics["mean_latency"]
({'r0': 5, 'r1': 0}, 6.5)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geosched.errors import InfeasibleScheduleError, UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.cluster.cost import HybridCost, expected_volume
from geosched.reference_impl.cluster.replica import Replica, RequestStats
from geosched.reference_impl.cluster.routers import ClusterState, make_router
from geosched.reference_impl.cluster.steptime import StepTimeModel
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import Capability, OneBitSVF, make_policy, policy_names
from geosched.reference_impl.predictors import LengthDistribution, one_bit_parameters
from geosched.reference_impl.scheduling import Run
from geosched.results import Completed

__all__ = ["ClusterResult", "ReplicaReport", "simulate_cluster", "LOCAL_POLICIES", "ABLATIONS", "BELIEFS"]

LOCAL_POLICIES: tuple[str, ...] = (*policy_names(Capability.SIMULATOR), "sagesched")
ABLATIONS = ("point", "memory-only", "compute-only", "no-safety")
BELIEFS = ("auto", "mean", "quantile")


@dataclass(frozen=True)
class ReplicaReport:
    """One replica's schedule in its own steps, as the checker saw it."""

    index: int  # position in the cluster
    model: str  # step-time model name
    memory: int  # KV budget M
    requests: int  # requests placed here
    restarts: int  # runs ended before completion (evictions: recompute from scratch)
    lost_tokens: int  # output tokens decoded by those runs
    tel_steps: int  # sum of (completion step - arrival step), from the checker
    peak_memory: int  # from the checker
    feasible: bool  # the checker's verdict (always True, else simulate_cluster raises)
    decisions: int  # decision points the engine processed
    instance: Instance = field(repr=False)  # its requests, in workload order, with their arrival *steps* here
    starts: dict[str, int] = field(repr=False)  # start steps of every request's last run
    runs: dict[str, tuple[Run, ...]] = field(repr=False)  # every run of each request that restarted
    keys: dict[str, Any] = field(repr=False)  # local priority keys
    beliefs: dict[str, int] = field(repr=False)  # initial beliefs (uncapped)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in ("index", "model", "memory", "requests", "restarts",
                                                       "lost_tokens", "tel_steps", "peak_memory", "feasible",
                                                       "decisions")}

    @property
    def schedule(self) -> dict[str, Any]:
        """What the checker takes: the runs of each request that restarted, the start of every other."""
        return {**self.starts, **self.runs}


@dataclass(frozen=True)
class ClusterResult(Completed):
    """What one cluster simulation produced. ``status`` is always ``"completed"``.
    ``message``: router, local, requests, mean latency, preemptions."""

    router: str
    local: str
    ablation: str | None
    belief: str  # what the local admission believes: "mean" or "quantile" as resolved
    reserve: str  # what the SageSched router reserves per placed request: "quantile" or "mean"
    safety_quantile: float
    speedup: float
    seed: int
    n: int  # requests served
    metrics: dict[str, float]  # seconds, unless the name says steps
    replicas: tuple[ReplicaReport, ...]
    routing_seconds: float  # mean router time per request (the choose call alone)
    assignment: dict[str, int] = field(repr=False)  # request id -> replica index
    latencies: dict[str, float] = field(repr=False)  # request id -> seconds


@dataclass
class _Prepared:
    stats: list[RequestStats]
    beliefs: list[int]
    keys: list[Any] | None  # registry policies: replica-independent keys; None for sagesched


def simulate_cluster(
    requests: Sequence[Request],
    replicas: Sequence[StepTimeModel],
    *,
    router: str = "sagesched",
    local: str = "svf",
    distribution: Callable[[Request], LengthDistribution] | None = None,
    step_seconds: float = 1.0,
    speedup: float = 1.0,
    safety_quantile: float = 0.9,
    belief: str = "auto",
    ablation: str | None = None,
    backfill: bool = False,
    svf1_lengths: Sequence[int] | None = None,
    slo_scale: float = 5.0,
    seed: int = 0,
) -> ClusterResult:
    """Place ``requests`` on ``replicas`` with ``router``, schedule each replica with ``local``.

    Parameters
    ----------
    requests : sequence of Request
        The workload; ``arrival`` is in steps of ``step_seconds`` seconds; ties are broken by
        arrival, then position in this sequence.
    replicas : sequence of StepTimeModel
        One step-time model (with its KV budget ``M``) per replica.
    router : str
        A router of :data:`~geosched.reference_impl.cluster.routers.ROUTER_NAMES`.
    local : str
        A local policy of :data:`LOCAL_POLICIES` (registry specs such as ``svf1:theta=90`` too).
    distribution : callable, optional
        ``request -> LengthDistribution``, the predicted output-length distribution; default
        the true length (a point mass).
    step_seconds, speedup : float
        Arrival ``a`` steps is at ``a * step_seconds / speedup`` seconds.
    safety_quantile : float
        The quantile of the distribution that SageSched's placement keeps memory under (the reserve),
        and the belief when ``belief="quantile"``.
    belief : {"auto", "mean", "quantile"}
        Which point the local check believes (module docstring).
    ablation : {None, "point", "memory-only", "compute-only", "no-safety"}
        Remove one part of SageSched.
    backfill : bool
        Local scans skip misfits.
    svf1_lengths : sequence of int, optional
        Past output lengths from which 1-bit SVF's parameters are resolved when not given.
    slo_scale : float
        A request meets its SLO when its latency is at most this times its isolated latency
        on the fastest replica.
    seed : int
        Seed of the random routers.

    Returns
    -------
    ClusterResult

    Raises
    ------
    ValidationError, UnknownNameError
        For a bad option, or a request that fits no replica.
    InfeasibleScheduleError
        If the checker rejects a replica's schedule (a bug, never expected).
    """
    started = time.perf_counter()
    requests = list(requests)
    ablation, belief_mode, reserve_mode, cost_kind = _check_options(requests, replicas, router, local, ablation,
                                                                    belief, safety_quantile, speedup, step_seconds)
    distribution = distribution or (lambda r: LengthDistribution.point(r.output))
    prepared = _prepare(requests, local, distribution, ablation, (belief_mode, reserve_mode), safety_quantile,
                        svf1_lengths)
    chosen_router = make_router(router, seed=seed, cost=cost_kind)
    nodes = [Replica(k, model, backfill) for k, model in enumerate(replicas)]
    local_costs = [HybridCost.from_step_time(model, cost_kind) for model in replicas]
    state = _initial_state(replicas)
    arrival = [r.arrival * step_seconds / speedup for r in requests]
    assignment: dict[str, int] = {}
    routing = 0.0
    for i in sorted(range(len(requests)), key=lambda k: (arrival[k], k)):
        request, stats = requests[i], prepared.stats[i]
        for node in nodes:
            node.advance_to(arrival[i])
            _refresh(state, node)
        t0 = time.perf_counter()
        target = chosen_router.choose(state, prompt=request.prompt, mean=stats.mean, volume=stats.volume,
                                      reserve=stats.reserve)
        routing += time.perf_counter() - t0
        key = (prepared.keys[i] if prepared.keys is not None
               else local_costs[target].from_moments(request.prompt, stats.mean, stats.volume))
        nodes[target].place(request, time=arrival[i], key=key, belief=prepared.beliefs[i], position=i, stats=stats)
        assignment[request.id] = target
    for node in nodes:
        node.finish()
    reports = tuple(_report(node, prepared) for node in nodes)
    latencies = {node.requests[h].id: node.completion_time[h] - node.arrival_time[h]
                 for node in nodes for h in range(len(node.requests))}
    metrics = _metrics(requests, arrival, latencies, nodes, reports, replicas, slo_scale)
    label = f"{router}+{local}" + (f" ({ablation})" if ablation else "")
    return ClusterResult(
        status="completed",
        message=f"{label}: {len(requests)} requests on {len(nodes)} replicas, mean latency "
                f"{metrics['mean_latency']:.3f} s, {metrics['preemptions']} preemptions",
        wall_time=time.perf_counter() - started,
        router=router, local=local, ablation=ablation, belief=belief_mode, reserve=reserve_mode,
        safety_quantile=safety_quantile,
        speedup=speedup, seed=seed, n=len(requests), metrics=metrics, replicas=reports,
        routing_seconds=routing / max(1, len(requests)), assignment=assignment, latencies=latencies,
    )


def _check_options(requests, replicas, router, local, ablation, belief, safety_quantile, speedup,
                   step_seconds) -> tuple[str | None, str, str, str]:
    if not replicas:
        raise ValidationError("replicas", [], "need at least one replica")
    if ablation is not None and ablation not in ABLATIONS:
        raise ValidationError("ablation", ablation, f"must be one of {', '.join(ABLATIONS)}")
    if belief not in BELIEFS:
        raise ValidationError("belief", belief, f"must be one of {', '.join(BELIEFS)}")
    if not (isinstance(safety_quantile, (int, float)) and 0 < safety_quantile <= 1):
        raise ValidationError("safety_quantile", safety_quantile, "must be in (0, 1]")
    for name, value in (("speedup", speedup), ("step_seconds", step_seconds)):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValidationError(name, value, "must be a positive number")
    if local.partition(":")[0] not in LOCAL_POLICIES:
        raise UnknownNameError("local policy", local, list(LOCAL_POLICIES))
    smallest = min(model.memory for model in replicas)
    for request in requests:
        if request.peak > smallest:
            raise ValidationError(f"request {request.id!r}: prompt + output", request.peak,
                                  f"must fit every replica's memory (smallest M = {smallest})")
    uses_sage = router == "sagesched" or local == "sagesched"
    if belief == "auto" or ablation == "no-safety":
        belief = "mean"  # one admission rule for every pair (module docstring)
    reserve = "quantile" if uses_sage and ablation != "no-safety" else "mean"
    cost_kind = {"memory-only": "memory", "compute-only": "compute"}.get(ablation or "", "hybrid")
    return ablation, belief, reserve, cost_kind


def _prepare(requests, local, distribution, ablation, modes, safety_quantile, svf1_lengths) -> _Prepared:
    """Beliefs, distribution moments, reserves and (for registry policies) the local keys of every request;
    ``modes`` is ``(belief, reserve)``, each ``"mean"`` or ``"quantile"``."""
    belief_mode, reserve_mode = modes
    cache: dict[Any, tuple[float, float, int, int]] = {}
    stats, beliefs = [], []
    for request in requests:
        dist = distribution(request)
        if dist not in cache:
            if ablation == "point":
                dist_used = LengthDistribution.point(max(1, round(dist.mean())))
            else:
                dist_used = dist
            cache[dist] = (dist_used.mean(), dist_used.second_moment(), max(1, round(dist_used.mean())),
                           dist_used.quantile(safety_quantile))
        mean, second, rounded_mean, quantile = cache[dist]
        beliefs.append(quantile if belief_mode == "quantile" else rounded_mean)
        reserve = quantile if reserve_mode == "quantile" else rounded_mean
        stats.append(RequestStats(mean, expected_volume(request.prompt, mean, second), reserve))
    keys = None
    if local != "sagesched":
        policy = _local_policy(local, svf1_lengths)
        prompts = np.array([r.prompt for r in requests], dtype=np.int64)
        keys = policy.array_keys(prompts, np.array(beliefs, dtype=np.int64)).tolist() if requests else []
    return _Prepared(stats, beliefs, keys)


def _local_policy(spec: str, svf1_lengths: Sequence[int] | None):
    policy = make_policy(spec)
    if isinstance(policy, OneBitSVF) and None in (policy.theta, policy.short_length, policy.long_length):
        if not svf1_lengths:
            raise ValidationError("svf1 online", spec, "needs theta, short_length and long_length, or past "
                                                       "output lengths to resolve them from (no look-ahead)")
        theta, o0, o1 = one_bit_parameters(svf1_lengths, policy.theta, policy.short_length, policy.long_length)
        policy = OneBitSVF(theta=theta, short_length=o0, long_length=o1)
    if not hasattr(policy, "array_keys"):
        raise ValidationError("local policy", spec, "needs per-request keys (array_keys) to run online")
    return policy


def _initial_state(models: Sequence[StepTimeModel]) -> ClusterState:
    state = ClusterState.empty(len(models))
    state.memory[:] = [float(m.memory) for m in models]
    state.c0[:] = [m.c0 for m in models]
    state.c1[:] = [m.c1 for m in models]
    state.c2[:] = [m.c2 for m in models]
    state.c_prefill[:] = [m.c_prefill for m in models]
    return state


def _refresh(state: ClusterState, node: Replica) -> None:
    k = node.index
    running = node.running
    state.kv_in_use[k] = node.clock.kv_in_use
    state.running[k] = running
    state.waiting[k] = node.waiting
    state.reserved[k] = node.reserved
    state.remaining_tokens[k] = max(node.expected_tokens - node.decoded_tokens, running)


def _report(node: Replica, prepared: _Prepared) -> ReplicaReport:
    engine = node.engine
    # in workload order, so that simulate() on this instance breaks ties as the engine did
    handles = sorted(range(len(node.requests)), key=lambda h: node.positions[h])
    instance = Instance(node.model.memory, [Request(node.requests[h].id, engine.arrival[h], node.requests[h].prompt,
                                                    node.requests[h].output) for h in handles])
    starts = {node.requests[h].id: engine.start[h] for h in handles}
    log = engine.restarts
    runs = {node.requests[h].id: log.runs(h, Run(engine.start[h], engine.start[h] + node.requests[h].output))
            for h in handles if h in log.earlier}
    check = check_schedule(instance, {**starts, **runs})
    if not check.feasible:
        raise InfeasibleScheduleError(f"replica {node.index}: the checker rejected the schedule: {check.message}")
    return ReplicaReport(
        index=node.index, model=node.model.name, memory=node.model.memory, requests=len(node.requests),
        restarts=log.count, lost_tokens=log.lost_tokens,
        tel_steps=check.metrics.tel if check.metrics else 0,
        peak_memory=check.metrics.peak_memory if check.metrics else 0, feasible=True,
        decisions=engine.decisions, instance=instance, starts=starts, runs=runs,
        keys={node.requests[h].id: engine.rank[h][0] for h in handles},
        beliefs={node.requests[h].id: prepared.beliefs[node.positions[h]] for h in handles},
    )


def _metrics(requests, arrival, latencies, nodes, reports, models, slo_scale) -> dict[str, float]:
    if not requests:
        return {"mean_latency": 0.0, "p50_latency": 0.0, "p95_latency": 0.0, "p99_latency": 0.0,
                "slo_attainment": 0.0, "goodput": 0.0, "throughput": 0.0, "preemptions": 0, "lost_tokens": 0,
                "tel_steps": 0, "makespan": 0.0}
    values = np.array([latencies[r.id] for r in requests])
    slo = np.array([slo_scale * min(m.isolated_latency(r.prompt, r.output) for m in models) for r in requests])
    end = max(max(node.completion_time) for node in nodes if node.requests)
    span = end - min(arrival)
    met = int((values <= slo).sum())
    p50, p95, p99 = np.percentile(values, [50, 95, 99])
    return {
        "mean_latency": float(values.mean()),
        "p50_latency": float(p50),
        "p95_latency": float(p95),
        "p99_latency": float(p99),
        "slo_attainment": met / len(requests),
        "goodput": met / span if span > 0 else 0.0,
        "throughput": sum(r.output for r in requests) / span if span > 0 else 0.0,
        # the restart record under the cluster report's older keys: geosched.verify.sagesched_claims reads them
        "preemptions": sum(rep.restarts for rep in reports),
        "lost_tokens": sum(rep.lost_tokens for rep in reports),
        "tel_steps": sum(rep.tel_steps for rep in reports),
        "makespan": float(end),
    }
