"""Kong et al.'s empirical serving claims, re-run on every trace of the trace set with intervals over seeds.

Kong, Qi, Ye, Zhou (arXiv 2606.22327, experiments; restated in the project's REFERENCES.md and issue 35) report,
on a vLLM deployment with a learned length predictor, that

1. ``kong.emp.svf_latency``: SVF has the lowest mean and P95 latency among FCFS, SJF, SVF and 1-bit SVF;
2. ``kong.emp.onebit``: 1-bit SVF is competitive with SJF (mean within :data:`COMPETITIVE`) and better on the tail;
3. ``kong.emp.overhead``: the predictor costs at most 0.06% of end-to-end latency (1-bit: 0.01%);
4. ``kong.emp.throughput``: SVF keeps a higher throughput than SJF;
5. ``kong.emp.fairness``: unlike greedy heuristics that starve long jobs, SVF frees bounded KV memory quickly
   and improves fairness for large requests;
6. ``kong.emp.memory_intensive``: SVF beats FCFS, SJF and Oracle-SJF (SJF on the true lengths) on
   memory-intensive (long-prompt) workloads.

**Traces.** Every row runs on each trace of the trace set (:mod:`~geosched.verify.trace_set`: by default the
Azure conversation trace and the Mooncake long-context trace; ``--trace`` adds or replaces them), on its test
part (the last 30% by time, which the trace's models never saw; :func:`~geosched.verify.empirical.trace_test_instance`),
replayed online at 0.025 s per step. **Seeds**: seed ``s`` serves the window of ``window`` consecutive requests
starting at an offset drawn by ``numpy.random.default_rng(s)``, its arrivals shifted to start at step 0; the seeds
of a run are ``seed, seed + 1, ...``. **Loads**: ``u = V / (T M)``: each window's memory is
``M = max(ceil(V / (T u)), max peak)`` (``V`` the window's volume, ``T`` its span of arrival steps), so every
trace is served at the same offered loads whatever its lengths; on the Mooncake trace (prompts up to 126k
tokens) this gives ``M`` of 0.3-0.55 million tokens and ``alpha`` (largest peak over ``M``) of 0.2-0.4, against
0.1-0.2 on the Azure trace.

**Memory-intensive readings.** A trace whose mean prompt is at least :data:`LONG_PROMPT_MEAN` tokens (the
Mooncake trace: 12,035) is memory-intensive as recorded: ``kong.emp.memory_intensive`` reads its windows as they
are. Any other trace (the Azure trace: 1,155) is read as its *long-prompt* variant, labelled ``x4 prompts``:
every prompt multiplied by :data:`PROMPT_FACTOR` and capped so that ``s + o <= CONTEXT`` (65,536 tokens, the
context of Kong et al.'s setup; a longer prompt is kept as it is), served with the memory of the trace window at
that load (raised to the largest peak if one request would not fit), its arrival steps stretched by
``V' / (u T M)`` so that the offered load is again ``u``.

**Policies**: FCFS, SJF and SVF keyed by the trace's learned point model (the admission believes the same
predictions and evicts by recompute when one runs short), 1-bit SVF with the trace's classifier (its bits,
``theta``, ``O_0``, ``O_1``), Oracle-SJF on the true lengths, and beside the words Oracle-SVF and 1-bit SVF with
exact bits. Every schedule is re-checked by the independent checker, whose TEL must equal the sum of the
latencies the metrics are computed from.

**Metrics** (per run): throughput over the offered period ``[0, H]``, ``H`` the last arrival step: requests
completed by ``H`` per step and output tokens decoded by ``H`` by the runs that complete, per step; latency
``= completion - arrival`` (mean and P95), wait ``= latency - o``, slowdown ``= latency / o``; the mean slowdown
of the top decile by volume and by output; the maximum wait; the starved requests, whose wait exceeds
:data:`STARVATION_SECONDS`; Jain's index of the slowdowns, ``(sum x)^2 / (n sum x^2)``.

**Words.** A row is a list of *sub-comparisons* (:data:`PLANS`: the claim's policy against one baseline on one
metric at one load), each a per-seed relative difference, positive when the claim's side wins
(``1 + margin - m(ours) / m(B)`` for a cost, ``m(ours) / m(B) - 1`` for a throughput; ``margin`` is 10% for
"competitive", else 0), with its Student-t interval over the seeds: ``better`` above 0, ``worse`` below,
``tie`` across. A trace's word is :func:`~geosched.verify.empirical.word`, the row's
:func:`~geosched.verify.empirical.across_traces`; every sub-comparison of every trace is in the message with
its interval and result. The statistics are re-derived in the same run (:mod:`~geosched.verify.empirical_audit`):
each interval recomputed from its stored per-seed values by an independent routine, each word by an
independent reading of the rule, and each verdict run once more on planted data where the claim's policy is
made worse than a baseline (the canary): the same predicate must answer ``not_reproduced``, or the evidence is
``vacuous``.

Without a trace every row is ``not_run`` (the reason in the message); without torch (the learned predictors)
likewise. ``--quick`` does not run them. These are traces and the unit-step simulated engine, not the papers'
GPU testbed: a ``not_reproduced`` says that a claim does not carry over to this setting.

Example
-------
>>> jain_index([1.0, 1.0, 1.0]), round(jain_index([1.0, 3.0]), 3)
(1.0, 0.8)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geosched.errors import InfeasibleScheduleError
from geosched.theory.claim import KONG, Claim
from geosched.verify.empirical import (
    ACROSS_RULE,
    COMPETITIVE,
    STEP_SECONDS,
    WORD_RULE,
    EmpiricalEvidence,
    across_traces,
    one_bit_flip_penalty,
    seed_interval,
    word,
    word_text,
)
from geosched.verify.evidence import declares_canary, needs_no_canary

__all__ = ["PROMPT_FACTOR", "CONTEXT", "STARVATION_SECONDS", "LONG_PROMPT_MEAN", "ServingSetup", "SETUPS",
           "Sub", "PLANS", "jain_index", "run_metrics", "serving_runs", "judge", "row_outcome", "SERVING_METHODS",
           "CLAIMS"]

PROMPT_FACTOR = 4  # the long-prompt workload's prompts, times the trace's
CONTEXT = 65_536  # Kong et al.'s context length: s + o of a lengthened request is capped there
STARVATION_SECONDS = 60.0  # a wait longer than a minute is starvation
LONG_PROMPT_MEAN = 4_096  # a trace whose mean prompt is at least this is memory-intensive as recorded
OVERHEAD_LIMITS = {"point": 0.0006, "onebit": 0.0001}  # 0.06% and 0.01% of end-to-end latency
OVERHEAD_NEEDS = ("the end-to-end latency of the papers' LLM served on GPUs (8 x A100) with and without the "
                  "predictor in the loop (this run has no GPU and no LLM)")
TRACE_POLICIES = ("fcfs", "sjf", "oracle-sjf", "svf", "svf1", "oracle-svf", "oracle-svf1")
LONG_POLICIES = ("fcfs", "sjf", "oracle-sjf", "svf", "oracle-svf")
LABELS = {"requests_per_step": "requests/step", "tokens_per_step": "tokens/step", "mean_latency_s": "mean latency",
          "p95_latency_s": "P95 latency", "top_volume_slowdown": "top-volume-decile slowdown",
          "top_output_slowdown": "top-output-decile slowdown", "max_wait_s": "max wait", "sjf": "SJF",
          "oracle-sjf": "Oracle-SJF", "fcfs": "FCFS", "svf1": "1-bit SVF", "svf": "SVF", "oracle-svf": "Oracle-SVF",
          "oracle-svf1": "1-bit SVF (exact bits)"}


@dataclass(frozen=True)
class ServingSetup:
    """How many seeded windows of how many requests, at which loads (one per ledger mode)."""

    seeds: int
    window: int
    loads: tuple[float, ...]


SETUPS = {"default": ServingSetup(5, 400, (0.8, 1.0, 1.2)), "thorough": ServingSetup(10, 1500, (0.8, 1.0, 1.2))}


# ------------------------------------------------------------------ metrics of one run


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index ``(sum x)^2 / (n sum x^2)``: 1 when all are equal, ``1/n`` when one takes all."""
    x = np.asarray(values, dtype=np.float64)
    return float(x.sum() ** 2 / (x.size * (x * x).sum()))


def _top_decile(key: np.ndarray) -> np.ndarray:
    """Indices of the largest tenth of ``key`` (at least one), ties by position."""
    count = max(1, int(math.ceil(key.size / 10)))
    return np.argsort(-key, kind="stable")[:count]


def run_metrics(requests: Sequence[Any], completions: dict[str, int], horizon: int) -> dict[str, float]:
    """The metrics of the module docstring for one run (steps converted to seconds where named so)."""
    arrival = np.array([r.arrival for r in requests], dtype=np.float64)
    output = np.array([r.output for r in requests], dtype=np.float64)
    volume = np.array([r.volume for r in requests], dtype=np.float64)
    done = np.array([completions[r.id] for r in requests], dtype=np.float64)
    latency = done - arrival
    wait = latency - output
    slowdown = latency / output
    start = done - output
    decoded = np.clip(horizon - start, 0, output)
    return {
        "requests_per_step": float((done <= horizon).sum()) / horizon,
        "tokens_per_step": float(decoded.sum()) / horizon,
        "mean_latency_s": float(latency.mean()) * STEP_SECONDS,
        "p95_latency_s": float(np.percentile(latency, 95)) * STEP_SECONDS,
        "top_volume_slowdown": float(slowdown[_top_decile(volume)].mean()),
        "top_output_slowdown": float(slowdown[_top_decile(output)].mean()),
        "max_wait_s": float(wait.max()) * STEP_SECONDS,
        "starved": int((wait * STEP_SECONDS > STARVATION_SECONDS).sum()),
        "jain_slowdown": jain_index(slowdown),
        "mean_wait_s": float(wait.mean()) * STEP_SECONDS,
    }


# ------------------------------------------------------------------ the runs


def _window(requests: Sequence[Any], seed: int, size: int) -> tuple[list[Any], int]:
    """``(window, offset)``: ``size`` consecutive requests at a seeded offset, arrivals from 0 (the whole test
    part when it has fewer than ``size`` requests)."""
    from geosched.reference_impl.model import Request

    size = min(size, len(requests))
    offset = int(np.random.default_rng(seed).integers(0, len(requests) - size + 1))
    chosen = requests[offset:offset + size]
    first = chosen[0].arrival
    return [Request(r.id, r.arrival - first, r.prompt, r.output) for r in chosen], offset


def _instance(window: Sequence[Any], load: float, long_prompt: bool) -> tuple[Any, int]:
    """``(instance, horizon)``: the window at load ``u`` (its memory ``M``), or its long-prompt version on the
    same ``M`` at the same load (module docstring); the horizon is the last arrival step."""
    from geosched.reference_impl.model import Instance, Request

    volume = sum(r.volume for r in window)
    span = max(1, max(r.arrival for r in window))
    memory = max(math.ceil(volume / (span * load)), max(r.peak for r in window))
    if not long_prompt:
        return Instance(memory, list(window)), span
    longer = [Request(r.id, r.arrival, max(r.prompt, min(r.prompt * PROMPT_FACTOR, CONTEXT - r.output)), r.output)
              for r in window]
    memory = max(memory, max(r.peak for r in longer))
    stretch = sum(r.volume for r in longer) / (load * span * memory)
    stretched = [Request(r.id, int(r.arrival * stretch), r.prompt, r.output) for r in longer]
    return Instance(memory, stretched), max(1, max(r.arrival for r in stretched))


@dataclass(frozen=True)
class _Fixed:
    name: str
    lengths: Any

    def predict(self, instance: Any) -> np.ndarray:
        return self.lengths


def _simulate(instance: Any, spec: str, lengths: np.ndarray | None) -> dict[str, int]:
    """The completions of one policy run, after the checker accepted the schedule and its TEL agreed."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate

    result = simulate(instance, spec, predictor="oracle" if lengths is None else _Fixed("learned", lengths))
    report = check_schedule(instance, result.schedule)
    if not report.feasible:
        raise InfeasibleScheduleError(f"{spec}: the checker rejected the schedule: {report.first_violation.message}")
    tel = sum(result.completions[r.id] - r.arrival for r in instance.requests)
    if tel != report.metrics.tel:
        raise InfeasibleScheduleError(f"{spec}: TEL {tel} from the completions, {report.metrics.tel} from the checker")
    return result.completions


def _policy_runs(window: list[Any], predicted: dict[str, np.ndarray], svf1: str, load: float,
                 long_prompt: bool) -> dict[str, Any]:
    instance, horizon = _instance(window, load, long_prompt)
    specs = {"fcfs": ("fcfs", predicted["point"]), "sjf": ("sjf", predicted["point"]), "oracle-sjf": ("sjf", None),
             "svf": ("svf", predicted["point"]), "svf1": (svf1, predicted["onebit"]), "oracle-svf": ("svf", None),
             "oracle-svf1": (svf1, None)}
    policies = LONG_POLICIES if long_prompt else TRACE_POLICIES
    metrics = {p: run_metrics(instance.requests, _simulate(instance, *specs[p]), horizon) for p in policies}
    return {"memory": instance.memory, "alpha": max(r.peak for r in instance.requests) / instance.memory,
            "metrics": metrics}


def _learned_lengths(requests: Sequence[Any], models: dict[str, str]) -> tuple[dict[str, np.ndarray], dict]:
    """The point and 1-bit predictions of the test part, the 1-bit policy and what the overhead row reports."""
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.predictors import LearnedPredictor

    instance = Instance(2 * max(r.peak for r in requests), list(requests))
    point = LearnedPredictor(kind="point", model=models["point"], step_seconds=STEP_SECONDS)
    onebit = LearnedPredictor(kind="onebit", model=models["onebit"], step_seconds=STEP_SECONDS)
    lengths, seconds = {}, {}
    for kind, predictor in (("point", point), ("onebit", onebit)):
        started = time.perf_counter()  # reported beside the overhead row, never judged (it depends on the load)
        lengths[kind] = np.asarray(predictor.predict(instance))
        seconds[kind] = (time.perf_counter() - started) / instance.n
    model = onebit.length_model
    onebit_info = {"policy": onebit.one_bit_policy(), "theta": model.theta, "flip_short": model.metrics["flip_short"],
                   "flip_long": model.metrics["flip_long"], "train_mean_output": model.provenance.get(
                       "train_mean_output"), "predictor_seconds": seconds}
    return lengths, onebit_info


def serving_runs(setup: ServingSetup, *, seed: int = 0, path: Any = None, models: Any = None) -> dict[str, Any]:
    """Every policy on every seed's window at every load of one trace: as recorded and, for a trace that is not
    memory-intensive as recorded, its long-prompt variant.

    Returns ``{"label", "file", "reading", "models", "setup", "seed", "svf1", "onebit", "source", "trace": {load:
    [per seed]}, "long": {...}}`` (``long`` empty for a memory-intensive trace), each per-seed entry
    ``{"seed", "offset", "memory", "alpha", "metrics": {policy: run_metrics}}``.
    """
    from geosched.reference_impl.workloads import default_trace_path, trace_label
    from geosched.verify.empirical import trace_test_instance
    from geosched.verify.trace_set import trace_models

    path = Path(path or default_trace_path())
    requests, log, _ = trace_test_instance(path)
    models = models or trace_models(path, log, seed=0)
    lengths, onebit = _learned_lengths(requests, models.paths)
    as_recorded = float(np.mean([r.prompt for r in requests])) >= LONG_PROMPT_MEAN
    position = {r.id: k for k, r in enumerate(requests)}
    out: dict[str, Any] = {
        "label": trace_label(path), "file": path.name, "models": models.origin,
        "reading": "as recorded" if as_recorded else f"x{PROMPT_FACTOR} prompts",
        "setup": vars(setup) | {"loads": list(setup.loads)}, "seed": seed, "svf1": onebit["policy"], "onebit": onebit,
        "window": min(setup.window, len(requests)),
        "source": f"test part of {path.name} ({len(requests)} requests): {setup.seeds} windows of "
                  f"{min(setup.window, len(requests))}", "trace": {}, "long": {}}
    for kind in ("trace",) if as_recorded else ("trace", "long"):
        for load in setup.loads:
            entries = []
            for s in range(seed, seed + setup.seeds):
                window, offset = _window(requests, s, setup.window)
                index = [position[r.id] for r in window]
                predicted = {k: v[index] for k, v in lengths.items()}
                entries.append({"seed": s, "offset": offset,
                                **_policy_runs(window, predicted, onebit["policy"], load, kind == "long")})
            out[kind][str(load)] = entries
    return out


# ------------------------------------------------------------------ the verdict predicate


@dataclass(frozen=True)
class Sub:
    """One kind of sub-comparison: ``ours`` against ``baseline`` on ``metric`` (at every load)."""

    ours: str
    metric: str
    baseline: str
    higher_is_better: bool = False  # a throughput; else a cost
    margin: float = 0.0  # the claim allows ours this much worse ("competitive": within 10%)

    def value(self, ours: float, theirs: float) -> float:
        """The per-seed statistic, positive when the claim's side wins."""
        if self.higher_is_better:
            return ours / theirs - 1 + self.margin if theirs > 0 else 0.0
        return 1 + self.margin - ours / theirs if theirs > 0 else (self.margin if ours == 0 else -1.0)

    def label(self, load: float) -> str:
        who = "" if self.ours == "svf" else f"{LABELS[self.ours]} "
        allowed = f" (+{self.margin:.0%} allowed)" if self.margin else ""
        return f"u={load:g} {who}{LABELS[self.metric]} vs {LABELS[self.baseline]}{allowed}"


_FAIRNESS = ("top_volume_slowdown", "top_output_slowdown", "max_wait_s")
PLANS: dict[str, tuple[Sub, ...]] = {
    "kong.emp.svf_latency": tuple(Sub("svf", m, b) for b in ("fcfs", "sjf", "svf1")
                                  for m in ("mean_latency_s", "p95_latency_s")),
    "kong.emp.onebit": (Sub("svf1", "mean_latency_s", "sjf", margin=COMPETITIVE), Sub("svf1", "p95_latency_s", "sjf")),
    "kong.emp.throughput": (Sub("svf", "requests_per_step", "sjf", True), Sub("svf", "tokens_per_step", "sjf", True)),
    "kong.emp.fairness": tuple(Sub("svf", m, b) for b in ("sjf", "oracle-sjf") for m in _FAIRNESS),
    "kong.emp.memory_intensive": tuple(Sub("svf", "mean_latency_s", b) for b in ("fcfs", "sjf", "oracle-sjf")),
}


def judge(plan: Sequence[Sub], runs: dict[str, Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """The verdict predicate of every row: each sub-comparison of ``plan`` at each load of ``runs``
    (``{load: per-seed entries}``) with its per-seed values and interval, and the trace's word. Canaries go
    through this same function (:mod:`~geosched.verify.empirical_audit`)."""
    comparisons = []
    for load, entries in runs.items():
        for sub in plan:
            values = [sub.value(e["metrics"][sub.ours][sub.metric], e["metrics"][sub.baseline][sub.metric])
                      for e in entries]
            comparisons.append({"label": sub.label(float(load)), "load": float(load), "ours": sub.ours,
                                "baseline": sub.baseline, "metric": sub.metric, "margin": sub.margin,
                                "values": values, **seed_interval(values).to_dict()})
    return {"status": word([c["result"] for c in comparisons]), "comparisons": comparisons}


def _kind_for(claim_id: str, runs: dict[str, Any]) -> str:
    """Which runs a row reads: the long-prompt variant for the memory-intensive row on a trace that is not
    memory-intensive as recorded; else the windows as recorded."""
    return "long" if claim_id == "kong.emp.memory_intensive" and runs["long"] else "trace"


def reading(claim_id: str, runs: dict[str, Any]) -> dict[str, Any]:
    """One trace's reading of a row: the verdict, its text, and what is reported beside it."""
    kind = _kind_for(claim_id, runs)
    verdict = judge(PLANS[claim_id], runs[kind])
    comparisons = verdict["comparisons"]
    counts = {r: sum(c["result"] == r for c in comparisons) for r in ("better", "worse")}
    name = runs["label"] + (f" ({runs['reading']})" if claim_id == "kong.emp.memory_intensive" else "")
    detail = "; ".join(f"{c['label']} {c['mean']:+.1%} [{c['low']:+.1%}, {c['high']:+.1%}] {c['result']}"
                       for c in comparisons)
    return {"trace": runs["label"], "name": name, "kind": kind, "status": verdict["status"],
            "comparisons": comparisons, "detail": detail, "source": runs["source"], "models": runs["models"],
            "summary": f"{name}: {word_text(verdict['status'])} (better in {counts['better']}, worse in "
                       f"{counts['worse']} of {len(comparisons)}, 95% intervals over {runs['setup']['seeds']} seeds)",
            "beside": _BESIDE[claim_id](runs, kind)}


def row_outcome(claim_id: str, traces: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A row over every trace: each trace's reading, and the row's word by :func:`across_traces`."""
    readings = [reading(claim_id, runs) for runs in traces]
    status = across_traces({r["name"]: r["status"] for r in readings})
    where = ""
    if status == "partly" and any(r["status"] == "reproduced" for r in readings):
        held = [r["name"] for r in readings if r["status"] == "reproduced"]
        lost = [f"{r['name']} ({word_text(r['status'])})" for r in readings if r["status"] != "reproduced"]
        where = f"reproduced on {', '.join(held)}, not on {', '.join(lost)}; "
    message = where + " | ".join(f"{r['name']}: {word_text(r['status'])}: {r['detail']}"
                                 + (f" ({r['beside']})" if r["beside"] else "") for r in readings)
    return {"status": status, "readings": readings, "message": message,
            "summary": "; ".join(r["summary"] for r in readings)}


# ------------------------------------------------------------------ beside the words


def _means(entries_by_load: dict[str, Sequence[dict[str, Any]]], metrics: Sequence[str]) -> dict[str, Any]:
    """Per load and policy, each metric's mean over the seeds."""
    out: dict[str, Any] = {}
    for load, entries in entries_by_load.items():
        policies = entries[0]["metrics"]
        out[load] = {p: {m: float(np.mean([e["metrics"][p][m] for e in entries])) for m in metrics} for p in policies}
        out[load]["alpha"] = float(np.mean([e["alpha"] for e in entries]))
    return out


def _fairness_beside(runs: dict[str, Any], kind: str) -> str:
    means = _means(runs[kind], ("jain_slowdown", "starved", "max_wait_s"))
    policies = ("fcfs", "sjf", "oracle-sjf", "svf", "svf1")
    return "means over the seeds, Jain's index of slowdowns / requests waiting over " \
           f"{STARVATION_SECONDS:g} s / max wait: " + "; ".join(
               f"u={float(load):g} " + ", ".join(f"{LABELS[p]} {m[p]['jain_slowdown']:.3f} / {m[p]['starved']:g} / "
                                                 f"{m[p]['max_wait_s']:.1f} s" for p in policies)
               for load, m in means.items())


def _memory_beside(runs: dict[str, Any], kind: str) -> str:
    means = _means(runs[kind], ("mean_latency_s",))
    ratio = "; ".join(f"u={float(load):g} {m['oracle-svf']['mean_latency_s'] / m['oracle-sjf']['mean_latency_s']:.3f}"
                      for load, m in means.items())
    alpha = ", ".join(f"{m['alpha']:.2f}" for m in means.values())
    return f"alpha {alpha}; both on the true lengths, mean latency Oracle-SVF / Oracle-SJF: {ratio}"


def _onebit_beside(runs: dict[str, Any], kind: str) -> str:
    """Thm. 3.5's flip penalty with the trace's classifier (our extension) and the measured TEL ratio of 1-bit
    SVF with learned bits over exact bits."""
    info = runs["onebit"]
    mean_output = info["train_mean_output"] or 1.0
    penalty = one_bit_flip_penalty(1.0 / mean_output, info["theta"], info["flip_short"], info["flip_long"])
    means = _means(runs[kind], ("mean_latency_s",))
    ratio = ", ".join(f"u={float(load):g} {m['svf1']['mean_latency_s'] / m['oracle-svf1']['mean_latency_s']:.3f}"
                      for load, m in means.items())
    return (f"{info['policy']}; flips S->L {info['flip_short']:.3f}, L->S {info['flip_long']:.3f}; Thm. 3.5 "
            f"penalty with flips (geometric fit, a size, not a bound) {penalty['relative']:.3f} of E[o^2]/2; "
            f"mean latency learned bits / exact bits: {ratio}")


def _latency_beside(runs: dict[str, Any], kind: str) -> str:
    means = _means(runs[kind], ("mean_latency_s", "p95_latency_s"))
    return "; ".join(f"u={float(load):g} " + ", ".join(
        f"{LABELS[p]} {m[p]['mean_latency_s']:.1f}/{m[p]['p95_latency_s']:.1f} s" for p in ("fcfs", "sjf", "svf",
                                                                                           "svf1"))
        for load, m in means.items()) + " (mean/P95 over the seeds)"


_BESIDE = {"kong.emp.svf_latency": _latency_beside, "kong.emp.onebit": _onebit_beside,
           "kong.emp.throughput": lambda runs, kind: "", "kong.emp.fairness": _fairness_beside,
           "kong.emp.memory_intensive": _memory_beside}


def _overhead(traces: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """``kong.emp.overhead``: not run (it needs GPU end-to-end latencies); the CPU proxy per trace beside it
    (predictor seconds per request over the simulated mean latency of SVF, resp. 1-bit SVF, at load 1)."""
    parts, numbers = [], {}
    for runs in traces:
        load = min(runs["trace"], key=lambda u: abs(float(u) - 1.0))
        means = _means({load: runs["trace"][load]}, ("mean_latency_s",))[load]
        seconds = runs["onebit"]["predictor_seconds"]
        fractions = {"point": seconds["point"] / means["svf"]["mean_latency_s"],
                     "onebit": seconds["onebit"] / means["svf1"]["mean_latency_s"]}
        numbers[runs["label"]] = {"load": float(load), "fractions": fractions, "limits": OVERHEAD_LIMITS}
        parts.append(f"{runs['label']}: point {fractions['point']:.2e} (limit {OVERHEAD_LIMITS['point']:.0e}), "
                     f"onebit {fractions['onebit']:.2e} (limit {OVERHEAD_LIMITS['onebit']:.0e}) at load {load}")
    return (f"not run: needs {OVERHEAD_NEEDS}; measured here, not judged (CPU predictor seconds per request / "
            f"simulated mean latency): " + "; ".join(parts)), numbers


# ------------------------------------------------------------------ ledger methods


def _runs_for(ctx: Any, path: Path) -> dict[str, Any]:
    setup = SETUPS["thorough" if getattr(ctx, "thorough", False) else "default"]
    runs, _ = ctx.cached(f"kong-serving:{path}", lambda: serving_runs(setup, seed=getattr(ctx, "seed", 0),
                                                                      path=path))
    return runs


def _not_run(name: str, why: str, started: float) -> EmpiricalEvidence:
    return EmpiricalEvidence(name, "empirical", "not_run", f"not run: {why}", wall_time=time.perf_counter() - started)


def _method(name: str, claim_id: str):
    from geosched.verify.empirical_audit import CANARY

    def method(claim: Any, ctx: Any) -> EmpiricalEvidence:
        from geosched.reference_impl.predictors.learned import MissingExtraError
        from geosched.verify.empirical_audit import audit_row
        from geosched.verify.trace_set import trace_set

        started = time.perf_counter()
        if getattr(ctx, "quick", False):
            return _not_run(name, "not in --quick (the seeded windows take a few seconds per trace); the default "
                                  "run computes it", started)
        paths = trace_set(ctx)
        if not paths:
            return _not_run(name, "no trace: ../shared/traces holds none and no --trace was given (tests and the "
                                  "ledger skip it when absent)", started)
        try:
            traces = [_runs_for(ctx, path) for path in paths]
        except MissingExtraError as exc:  # a plain `pip install geosched`: the other rows still run
            return _not_run(name, str(exc), started)
        samples = sum(r["setup"]["seeds"] * r["window"] for r in traces)
        common = {"setup": traces[0]["setup"], "seeds": list(range(traces[0]["seed"], traces[0]["seed"]
                                                                   + traces[0]["setup"]["seeds"])),
                  "traces": [{k: r[k] for k in ("label", "file", "source", "models", "reading", "svf1")}
                             for r in traces], "step_seconds": STEP_SECONDS}
        if claim_id == "kong.emp.overhead":
            message, numbers = _overhead(traces)
            return EmpiricalEvidence(name, "empirical", "not_run", message, samples=samples,
                                     wall_time=time.perf_counter() - started, data={**common, "numbers": numbers})
        outcome = row_outcome(claim_id, traces)
        status, message, canary, audit = audit_row(claim_id, traces, outcome, PLANS, judge)
        data = {**common, "summary": outcome["summary"], "readings": outcome["readings"], "audit": audit,
                "rule": f"{WORD_RULE}; {ACROSS_RULE}"}
        return EmpiricalEvidence(name, "empirical", status, message, samples=samples,
                                 wall_time=time.perf_counter() - started, data=data, canary=canary)

    if claim_id == "kong.emp.overhead":
        return needs_no_canary("never judged: it needs GPU end-to-end latencies, and says not_run")(method)
    return declares_canary(CANARY)(method)


SERVING_METHODS = {
    "trace:svf_latency": _method("trace:svf_latency", "kong.emp.svf_latency"),
    "trace:onebit_vs_sjf": _method("trace:onebit_vs_sjf", "kong.emp.onebit"),
    "trace:predictor_overhead": _method("trace:predictor_overhead", "kong.emp.overhead"),
    "trace:throughput": _method("trace:throughput", "kong.emp.throughput"),
    "trace:fairness": _method("trace:fairness", "kong.emp.fairness"),
    "trace:memory_intensive": _method("trace:memory_intensive", "kong.emp.memory_intensive"),
}

_FLIPS = f"{WORD_RULE}; {ACROSS_RULE}"
_WINDOWS = ("seeded windows of each trace's test part (by default the Azure and the Mooncake trace) online at loads "
            "0.8/1.0/1.2 with the trace's learned predictions")
_DIFFERENCE = "traces and the unit-step simulator with recompute evictions, not the papers' GPU testbed"
_NO_DERIVATION = "an empirical claim: measured on the traces, not derived"


def _experiment(claim_id: str, statement: str, formalization: str, difference: str, method: str, position: int,
                flips: str = _FLIPS) -> Claim:
    """A row of Kong et al.'s experiments: every one has their source, one trace method, a place in the ledger's
    ``kong.experiments`` section, and no derivation (it is measured)."""
    return Claim(claim_id, f"{KONG} experiments", statement, formalization, difference, (method,),
                 order=("kong.experiments", position), no_derivation=_NO_DERIVATION, flips=flips)


# the claims these methods check (their rows; the ledger collects them with the theory's)
CLAIMS = (
    _experiment(
        "kong.emp.svf_latency", "SVF has the lowest mean and P95 latency",
        f"{_WINDOWS}: SVF's mean and P95 latency against FCFS, SJF and 1-bit SVF, 1 - m(SVF) / m(baseline) per seed "
        "with its 95% interval over the seeds, at each load, on each trace (verify/kong_serving.py)",
        _DIFFERENCE, "trace:svf_latency", 10),
    _experiment(
        "kong.emp.onebit", "1-bit SVF competitive with SJF, better tail",
        f"same windows: 1-bit SVF (the trace's classifier) against SJF, mean within {COMPETITIVE:.0%} "
        f"({1 + COMPETITIVE:.2f} - L(1-bit SVF) / L(SJF) per seed) and P95 below it, with 95% intervals, at each "
        "load, on each trace; Thm. 3.5's flip penalty and the cost of learned bits over exact bits beside it",
        f"'competitive' read as within {COMPETITIVE:.0%}; {_DIFFERENCE}", "trace:onebit_vs_sjf", 20),
    _experiment(
        "kong.emp.overhead", "predictor overhead <= 0.06% (1-bit: 0.01%)",
        "measured batched predictor seconds per request over the simulated mean latency at load 1, per trace "
        "(reported, never judged)", "our predictors on CPU against simulated latencies, not the paper's models on "
        "GPUs", "trace:predictor_overhead", 30, flips="nothing here: it needs GPU end-to-end latencies"),
    _experiment(
        "kong.emp.throughput", "SVF keeps a higher throughput than SJF",
        f"{_WINDOWS}: requests completed and output tokens decoded per step over the offered period, SVF / SJF - 1 "
        "per seed, with its 95% interval over the seeds, at each load, on each trace",
        f"throughput over the arrivals' span at equal offered load; {_DIFFERENCE}", "trace:throughput", 40),
    _experiment(
        "kong.emp.fairness", "SVF improves fairness for large requests (greedy heuristics starve them)",
        "same windows: against SJF and Oracle-SJF, the mean slowdown (latency / o) of the top decile by volume and "
        "by output, and the maximum wait, 1 - m(SVF) / m(baseline) per seed with its 95% interval, at each load, on "
        "each trace; FCFS, 1-bit SVF, requests waiting over 60 s and Jain's index of slowdowns reported beside them",
        "'large' read as the top decile by volume or output, 'starving' as the longest wait; the greedy heuristics "
        "read as SJF and Oracle-SJF", "trace:fairness", 50),
    _experiment(
        "kong.emp.memory_intensive", "on memory-intensive workloads SVF beats FCFS, SJF and Oracle-SJF",
        f"same windows, read as memory-intensive: a trace with a mean prompt of at least {LONG_PROMPT_MEAN:,} tokens "
        "as recorded (the Mooncake trace's long-context prompts), any other with every prompt x4 (s + o <= 65,536) "
        "on the same memory at the same load (the Azure trace's second, labelled reading): mean latency of SVF "
        "(learned predictions) against FCFS, SJF (learned) and Oracle-SJF (true lengths), 1 - L(SVF) / L(baseline) "
        "per seed with its 95% interval, at each load; Oracle-SVF beside it",
        "long prompts read from a long-context production trace and from the Azure trace with lengthened prompts, "
        "not LongBench; one simulated engine", "trace:memory_intensive", 60),
)
