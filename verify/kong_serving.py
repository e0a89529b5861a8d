"""Kong et al.'s serving claims beyond mean latency, re-run on the Azure trace with intervals over seeds.

Kong, Qi, Ye, Zhou (arXiv 2606.22327, experiments; restated in the project's REFERENCES.md and issue 35)
also report that SVF

1. ``kong.emp.throughput``: keeps a higher throughput than SJF;
2. ``kong.emp.fairness``: unlike greedy heuristics that starve long jobs, frees bounded KV memory
   quickly and improves fairness for large requests;
3. ``kong.emp.memory_intensive``: beats FCFS, SJF and Oracle-SJF (SJF on the true lengths) on
   memory-intensive (long-prompt) workloads.

**Workloads.** The test part of the trace (the last 30% by time, which no shipped model saw;
:func:`~geosched.verify.empirical.trace_test_instance`), replayed online at 0.025 s per step. Seed
``s`` serves the window of ``window`` consecutive requests starting at an offset drawn by
``numpy.random.default_rng(s)``, its arrivals shifted to start at step 0; the seeds of a run are
``seed, seed + 1, ...``. **Loads**: ``u = V / (T M)`` as in :mod:`~geosched.verify.empirical`: the
memory of each window is ``M = max(ceil(V / (T u)), max peak)`` (``V`` the window's volume, ``T`` its
span of arrival steps). The **long-prompt** (memory-intensive) workload is the same window with every
prompt multiplied by :data:`PROMPT_FACTOR` (4: mean prompt about 4,600 tokens) and capped so that
``s + o <= CONTEXT`` (65,536 tokens, the context of Kong et al.'s setup), served with the same memory
``M`` as the trace window at that load (raised to the largest peak if one request would not fit), its
arrival steps stretched by ``V' / (u T M)`` so that the offered load is again ``u``: the same server at
the same load, each request holding four times the memory, so that a few requests fill it (``alpha``,
the largest peak over ``M``, is in the row's data: about 0.3-0.9, against 0.1-0.2 on the trace).
Outputs are unchanged and the predictor sees the request as the trace has it (its features are the
trace's; a lengthened prompt does not change what the output is). Built from the trace at run time,
nothing downloaded.

**Policies**: FCFS, SJF and SVF keyed by the shipped learned point predictor (the admission believes
the same predictions and evicts by recompute when one runs short), 1-bit SVF with the shipped
classifier's bits and parameters, Oracle-SJF on the true lengths (and, on the long-prompt workload,
Oracle-SVF, reported beside the word: it separates the policy from the predictor). Every schedule is re-checked by the
independent checker, whose TEL must equal the sum of the latencies the metrics are computed from.

**Metrics** (per run): throughput over the offered period ``[0, H]``, ``H`` the last arrival step:
requests completed by ``H`` per step and output tokens decoded by ``H`` by the runs that complete
(evicted runs' tokens are lost), per step; latency ``= completion - arrival``, wait ``= latency - o``,
slowdown ``= latency / o`` (``o`` steps is a request's latency alone); the mean slowdown of the top
decile by volume and by output; the maximum wait; the starved requests, whose wait exceeds
:data:`STARVATION_SECONDS`; Jain's index of the slowdowns, ``(sum x)^2 / (n sum x^2)``.

**Words.** Each row is a list of *sub-comparisons*, one per load and baseline (and metric); each is a
per-seed relative difference, positive when SVF is on the claim's side (``1 - m(SVF) / m(B)`` for a
cost, ``m(SVF) / m(B) - 1`` for a throughput), with its Student-t interval over the seeds
(:func:`~geosched.verify.empirical.seed_interval`): ``better`` when the interval lies above 0,
``worse`` below, ``tie`` across. The row is ``reproduced`` when every sub-comparison is ``better``,
``partly`` when some are and none is ``worse``, ``not_reproduced`` otherwise (none better, or one worse:
the opposite of the claim measured somewhere); every sub-comparison is in the message with its
interval and result. What each row compares:

* throughput: SVF against SJF, requests per step and tokens per step, at each load;
* fairness ("improves fairness for large requests", against the greedy shortest-first heuristics that
  "starve long jobs"): SVF against SJF and against Oracle-SJF, on the mean slowdown of the top decile
  by volume and of the top decile by output (the large requests), and on the maximum wait (the
  starving one), at each load; FCFS and 1-bit SVF, the starved count and Jain's index (a measure of
  everyone, not of the large requests) are reported beside them, never judged;
* memory-intensive: SVF against FCFS, SJF and Oracle-SJF, mean latency on the long-prompt workload,
  at each load (P95 beside it).

Without the trace every row is ``not_run`` (the reason in the message); without torch (the learned
predictors) likewise. ``--quick`` does not run them. This is one trace and the unit-step simulated
engine, not the papers' GPU testbed.

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
from typing import Any

import numpy as np

from geosched.errors import InfeasibleScheduleError
from geosched.theory.claim import KONG, Claim
from geosched.verify.empirical import STEP_SECONDS, EmpiricalEvidence, seed_interval

__all__ = ["PROMPT_FACTOR", "CONTEXT", "STARVATION_SECONDS", "ServingSetup", "SETUPS", "jain_index", "run_metrics",
           "serving_runs", "throughput_claim", "fairness_claim", "memory_intensive_claim", "word",
           "SERVING_METHODS", "CLAIMS"]

PROMPT_FACTOR = 4  # the long-prompt workload's prompts, times the trace's
CONTEXT = 65_536  # Kong et al.'s context length: s + o of a long-prompt request is capped there
STARVATION_SECONDS = 60.0  # a wait longer than a minute is starvation
TRACE_POLICIES = ("fcfs", "sjf", "oracle-sjf", "svf", "svf1")
LABELS = {"requests_per_step": "requests/step", "tokens_per_step": "tokens/step", "mean_latency_s": "mean latency",
          "top_volume_slowdown": "top-volume-decile slowdown", "top_output_slowdown": "top-output-decile slowdown",
          "max_wait_s": "max wait", "sjf": "SJF", "oracle-sjf": "Oracle-SJF", "fcfs": "FCFS", "svf1": "1-bit SVF"}
LONG_POLICIES = ("fcfs", "sjf", "oracle-sjf", "svf", "oracle-svf")


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
    """``(window, offset)``: ``size`` consecutive requests at a seeded offset, arrivals from 0."""
    from geosched.reference_impl.model import Request

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
             "svf": ("svf", predicted["point"]), "svf1": (svf1, predicted["onebit"]), "oracle-svf": ("svf", None)}
    policies = LONG_POLICIES if long_prompt else TRACE_POLICIES
    metrics = {p: run_metrics(instance.requests, _simulate(instance, *specs[p]), horizon) for p in policies}
    return {"memory": instance.memory, "alpha": max(r.peak for r in instance.requests) / instance.memory,
            "metrics": metrics}


def _learned_lengths(requests: Sequence[Any]) -> tuple[dict[str, np.ndarray], str]:
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.predictors import LearnedPredictor

    instance = Instance(2 * max(r.peak for r in requests), list(requests))
    point = LearnedPredictor(kind="point", step_seconds=STEP_SECONDS)
    onebit = LearnedPredictor(kind="onebit", step_seconds=STEP_SECONDS)
    lengths = {"point": np.asarray(point.predict(instance)), "onebit": np.asarray(onebit.predict(instance))}
    return lengths, onebit.one_bit_policy()


def serving_runs(setup: ServingSetup, *, seed: int = 0, path: Any = None) -> dict[str, Any]:
    """Every policy on every seed's window at every load, on the trace and on the long-prompt workload.

    Returns ``{"setup", "seed", "svf1", "source", "trace": {load: [per seed]}, "long": {...}}``, each per-seed
    entry ``{"seed", "offset", "memory", "alpha", "metrics": {policy: run_metrics}}``.
    """
    from geosched.reference_impl.workloads import default_trace_path
    from geosched.verify.empirical import trace_test_instance

    requests, _, _ = trace_test_instance(path or default_trace_path())
    lengths, svf1 = _learned_lengths(requests)
    position = {r.id: k for k, r in enumerate(requests)}
    out: dict[str, Any] = {"setup": vars(setup) | {"loads": list(setup.loads)}, "seed": seed, "svf1": svf1,
                           "source": f"test part of the trace ({len(requests)} requests): {setup.seeds} windows of "
                                     f"{setup.window}", "trace": {}, "long": {}}
    for kind in ("trace", "long"):
        for load in setup.loads:
            entries = []
            for s in range(seed, seed + setup.seeds):
                window, offset = _window(requests, s, setup.window)
                index = [position[r.id] for r in window]
                predicted = {k: v[index] for k, v in lengths.items()}
                entries.append({"seed": s, "offset": offset,
                                **_policy_runs(window, predicted, svf1, load, kind == "long")})
            out[kind][str(load)] = entries
    return out


# ------------------------------------------------------------------ the claims


def word(results: Sequence[str]) -> str:
    """``reproduced`` when every sub-comparison is ``better``; ``partly`` when some are and none is ``worse``;
    else ``not_reproduced`` (none better, or one significantly worse: the claim says SVF wins at every load
    against every baseline, and there the opposite was measured).

    >>> word(["better", "better"]), word(["better", "tie"]), word(["tie", "tie"]), word(["better", "worse"])
    ('reproduced', 'partly', 'not_reproduced', 'not_reproduced')
    """
    wins = sum(r == "better" for r in results)
    if wins == len(results):
        return "reproduced"
    return "partly" if wins and "worse" not in results else "not_reproduced"


def _compare(entries: Sequence[dict[str, Any]], metric: str, baseline: str, higher_is_better: bool) -> Any:
    values = []
    for e in entries:
        ours, theirs = e["metrics"]["svf"][metric], e["metrics"][baseline][metric]
        if higher_is_better:
            values.append(ours / theirs - 1 if theirs > 0 else 0.0)
        else:
            values.append(1 - ours / theirs if theirs > 0 else (0.0 if ours == 0 else -1.0))
    return seed_interval(values)


def _outcome(claim: str, runs: dict[str, Any], kind: str, plan: Sequence[tuple[str, str, bool]]) -> dict[str, Any]:
    """Every sub-comparison of ``plan`` ((metric, baseline, higher is better)) at every load, and the word."""
    comparisons = []
    for load, entries in runs[kind].items():
        for metric, baseline, higher in plan:
            interval = _compare(entries, metric, baseline, higher)
            comparisons.append({"load": float(load), "baseline": baseline, "metric": metric, **interval.to_dict()})
    status = word([c["result"] for c in comparisons])
    detail = "; ".join(f"u={c['load']:g} {LABELS[c['metric']]} vs {LABELS[c['baseline']]} {c['mean']:+.1%} "
                       f"[{c['low']:+.1%}, {c['high']:+.1%}] {c['result']}" for c in comparisons)
    counts = {r: sum(c["result"] == r for c in comparisons) for r in ("better", "worse")}
    return {"claim": claim, "status": status, "comparisons": comparisons, "detail": detail,
            "summary": f"SVF better in {counts['better']}, worse in {counts['worse']} of {len(comparisons)} "
                       f"sub-comparisons, 95% intervals over {runs['setup']['seeds']} seeds"}


def _means(runs: dict[str, Any], kind: str, metrics: Sequence[str]) -> dict[str, Any]:
    """Per load and policy, each metric's mean over the seeds (reported beside the word)."""
    out: dict[str, Any] = {}
    for load, entries in runs[kind].items():
        policies = entries[0]["metrics"]
        out[load] = {p: {m: float(np.mean([e["metrics"][p][m] for e in entries])) for m in metrics} for p in policies}
        out[load]["alpha"] = float(np.mean([e["alpha"] for e in entries]))
    return out


def throughput_claim(runs: dict[str, Any]) -> dict[str, Any]:
    """``kong.emp.throughput``: SVF against SJF, requests and tokens per step, at each load."""
    outcome = _outcome("kong.emp.throughput", runs, "trace", (("requests_per_step", "sjf", True),
                                                              ("tokens_per_step", "sjf", True)))
    outcome["means"] = _means(runs, "trace", ("requests_per_step", "tokens_per_step"))
    outcome["message"] = f"throughput over the offered period, SVF / SJF - 1 (learned predictions): {outcome['detail']}"
    return outcome


def fairness_claim(runs: dict[str, Any]) -> dict[str, Any]:
    """``kong.emp.fairness``: SVF against SJF and Oracle-SJF on the top volume and top output deciles' slowdowns and
    the maximum wait, at each load; the other metrics and policies beside it."""
    plan = [(m, b, False) for b in ("sjf", "oracle-sjf")
            for m in ("top_volume_slowdown", "top_output_slowdown", "max_wait_s")]
    outcome = _outcome("kong.emp.fairness", runs, "trace", plan)
    outcome["means"] = _means(runs, "trace", ("top_volume_slowdown", "top_output_slowdown", "max_wait_s", "starved",
                                              "jain_slowdown"))
    beside = "; ".join(f"u={float(load):g} " + ", ".join(
        f"{LABELS.get(p, p.upper())} {m[p]['jain_slowdown']:.3f} / {m[p]['starved']:g} / {m[p]['max_wait_s']:.1f} s"
        for p in TRACE_POLICIES) for load, m in outcome["means"].items())
    outcome["message"] = (f"large requests, 1 - m(SVF) / m(baseline) (learned predictions): {outcome['detail']} "
                          f"(beside the word, means over the seeds: Jain's index of slowdowns / requests waiting over "
                          f"{STARVATION_SECONDS:g} s / max wait: {beside})")
    return outcome


def memory_intensive_claim(runs: dict[str, Any]) -> dict[str, Any]:
    """``kong.emp.memory_intensive``: SVF against FCFS, SJF and Oracle-SJF, mean latency on the long-prompt
    workload, at each load."""
    plan = [("mean_latency_s", b, False) for b in ("fcfs", "sjf", "oracle-sjf")]
    outcome = _outcome("kong.emp.memory_intensive", runs, "long", plan)
    outcome["means"] = _means(runs, "long", ("mean_latency_s", "p95_latency_s", "mean_wait_s"))
    oracle = "; ".join(f"u={float(load):g} {m['oracle-svf']['mean_latency_s'] / m['oracle-sjf']['mean_latency_s']:.3f}"
                       for load, m in outcome["means"].items())
    outcome["message"] = (f"long prompts (x{PROMPT_FACTOR}, s + o <= {CONTEXT}), mean latency, 1 - L(SVF) / "
                          f"L(baseline): {outcome['detail']} (beside the word, both on the true lengths: mean "
                          f"latency Oracle-SVF / Oracle-SJF, means over the seeds: {oracle})")
    return outcome


# ------------------------------------------------------------------ ledger methods


def _runs_for(ctx: Any) -> Any:
    setup = SETUPS["thorough" if getattr(ctx, "thorough", False) else "default"]
    return ctx.cached("kong-serving", lambda: serving_runs(setup, seed=getattr(ctx, "seed", 0)))


def _method(name: str, evaluate: Any):
    def method(claim: Any, ctx: Any) -> EmpiricalEvidence:
        from geosched.reference_impl.predictors.learned import MissingExtraError
        from geosched.reference_impl.workloads import default_trace_path

        started = time.perf_counter()
        if getattr(ctx, "quick", False):
            return EmpiricalEvidence(name, "empirical", "not_run", "not run in --quick (the seeded windows take "
                                     "about a minute); the default run computes it")
        if default_trace_path() is None:
            return EmpiricalEvidence(name, "empirical", "not_run", "not run: the Azure trace is not in "
                                     "../shared/traces (tests and the ledger skip it when absent)")
        try:
            runs, _ = _runs_for(ctx)
        except MissingExtraError as exc:  # a plain `pip install geosched`: the other rows still run
            return EmpiricalEvidence(name, "empirical", "not_run", f"not run: {exc}",
                                     wall_time=time.perf_counter() - started)
        outcome = evaluate(runs)
        setup = runs["setup"]
        data = {"summary": outcome["summary"], "comparisons": outcome["comparisons"], "means": outcome["means"],
                "source": runs["source"], "loads": setup["loads"], "seeds": list(range(runs["seed"], runs["seed"]
                                                                                      + setup["seeds"])),
                "window": setup["window"], "svf1": runs["svf1"], "step_seconds": STEP_SECONDS,
                "offsets": [e["offset"] for e in next(iter(runs["trace"].values()))]}
        return EmpiricalEvidence(name, "empirical", outcome["status"], outcome["message"],
                                 samples=setup["seeds"] * setup["window"], wall_time=time.perf_counter() - started,
                                 data=data)

    return method


SERVING_METHODS = {
    "trace:throughput": _method("trace:throughput", throughput_claim),
    "trace:fairness": _method("trace:fairness", fairness_claim),
    "trace:memory_intensive": _method("trace:memory_intensive", memory_intensive_claim),
}

_WORD = ("each sub-comparison: better when its 95% interval over the seeds lies above 0, worse below, tie across; "
         "all better: reproduced; some better and none worse: partly; none better or one worse: not reproduced")

# the claims these methods check (their rows; the ledger collects them with the theory's)
CLAIMS = (
    Claim(
        "kong.emp.throughput", f"{KONG} experiments", "SVF keeps a higher throughput than SJF",
        "seeded windows of the trace's test part online at loads 0.8/1.0/1.2 with learned predictions: requests "
        "completed and output tokens decoded per step over the offered period, SVF / SJF - 1 per seed, with its "
        "95% interval over the seeds, at each load (verify/kong_serving.py)",
        "one trace and the unit-step simulator; throughput over the arrivals' span at equal offered load",
        ("trace:throughput",), order=("kong.experiments", 40),
        no_derivation="an empirical claim: measured on the trace, not derived", flips=_WORD),
    Claim(
        "kong.emp.fairness", f"{KONG} experiments", "SVF improves fairness for large requests (greedy heuristics "
        "starve them)",
        "same windows: against SJF and Oracle-SJF, the mean slowdown (latency / o) of the top decile by volume and "
        "by output, and the maximum wait, 1 - m(SVF) / m(baseline) per seed with its 95% interval, at each load; "
        "FCFS, 1-bit SVF, requests waiting over 60 s and Jain's index of slowdowns reported beside them",
        "'large' read as the top decile by volume or output, 'starving' as the longest wait; the greedy heuristics "
        "read as SJF and Oracle-SJF", ("trace:fairness",), order=("kong.experiments", 50),
        no_derivation="an empirical claim: measured on the trace, not derived", flips=_WORD),
    Claim(
        "kong.emp.memory_intensive", f"{KONG} experiments", "on memory-intensive workloads SVF beats FCFS, SJF and "
        "Oracle-SJF",
        "the same windows with every prompt x4 (s + o <= 65,536) on the same memory at the same load (arrivals "
        "stretched): mean latency of SVF (learned predictions) against FCFS, SJF (learned) and Oracle-SJF (true "
        "lengths), 1 - L(SVF) / L(baseline) per seed with its 95% interval, at each load; Oracle-SVF beside it",
        "the long-prompt workload is the trace with lengthened prompts, not LongBench; one simulated engine",
        ("trace:memory_intensive",), order=("kong.experiments", 60),
        no_derivation="an empirical claim: measured on the trace, not derived", flips=_WORD),
)
