"""The vocabulary of the empirical rows, and the scheduling table of the predictions page.

The papers' empirical claims (``kong.emp.*``, :mod:`~geosched.verify.kong_serving`; ``sagesched.*``,
:mod:`~geosched.verify.sagesched_claims`) are re-run on every trace of the trace set
(:mod:`~geosched.verify.trace_set`). What they share is here:

* :func:`seed_interval`: a per-seed statistic's mean and Student-t interval (:class:`SeedInterval`), whose
  ``result`` is ``better`` (the interval lies above 0: the claim's side wins), ``worse`` (below) or ``tie``;
* :func:`word`: a trace's word from its sub-comparisons (all better: ``reproduced``; some better and none worse:
  ``partly``; none better or one worse: ``not_reproduced``);
* :func:`across_traces`: the row's word from the traces' words: ``reproduced`` when every trace reproduced it;
  ``partly`` when some trace reproduced it and another did not (the row's text says where), or when the
  weakest trace's word is ``partly``; else ``not_reproduced``; a trace whose check could not have failed
  (``vacuous``: its canary was not refuted) or did not run makes the row so;
* :func:`combine_empirical`: the ledger's status of a row whose evidence is all empirical;
* :func:`scheduling_table`: docs/predictions.md's table (policies x predictors x loads on a trace's test
  part, one run each; no row's word comes from it).

The theory link (:func:`one_bit_flip_penalty`): Thm. 3.5's distortion penalty, extended (our extension) by
the measured flip rates of the learned classifier.

Example
-------
>>> penalty = one_bit_flip_penalty(mu=0.5, theta=1, flip_short=0.0, flip_long=0.0)
>>> penalty["eps"], penalty["flip_term"]  # Thm. 3.5's eps alone when no class is flipped
(0.5, 0.0)
>>> across_traces({"azure": "reproduced", "mooncake": "not_reproduced"})
'partly'
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from geosched.errors import InfeasibleScheduleError
from geosched.results import Completed
from geosched.verify.evidence import Evidence

__all__ = [
    "LOADS",
    "STEP_SECONDS",
    "COMPETITIVE",
    "EMPIRICAL_STATUSES",
    "ScheduleCell",
    "SchedulingTable",
    "EmpiricalEvidence",
    "VERDICTS",
    "trace_test_instance",
    "scheduling_table",
    "format_scheduling_table",
    "one_bit_flip_penalty",
    "combine_empirical",
    "sub_results_text",
    "SeedInterval",
    "seed_interval",
    "word",
    "across_traces",
    "word_text",
    "WORD_RULE",
    "ACROSS_RULE",
]

LOADS = (0.8, 1.0, 1.2)  # offered KV demand / M
POLICIES = ("fcfs", "sjf", "svf", "svf1")
PREDICTORS = ("oracle", "learned", "noisy")
STEP_SECONDS = 0.025
COMPETITIVE = 0.10  # "competitive": mean latency within 10% of SJF's
# a row's words; "vacuous": its check could not have failed (a planted defect it did not refute), "error": its
# statistics did not re-derive (the interval or word recomputed independently differs)
EMPIRICAL_STATUSES = ("reproduced", "partly", "not_reproduced", "vacuous", "unknown", "not_run", "error")
_ORDER = ("error", "not_run", "unknown", "vacuous", "not_reproduced", "partly", "reproduced")  # weakest first


@dataclass(frozen=True)
class ScheduleCell:
    """One policy under one predictor at one load (latencies from the checker, in seconds)."""

    load: float  # offered KV demand / M
    memory: int  # M (tokens)
    predictor: str  # "oracle", "learned", "noisy"
    policy: str  # "fcfs", "sjf", "svf", "svf1", or "svf-E[v]" (learned dist, expected volume)
    mean_latency: float  # seconds
    p95_latency: float  # seconds
    tel: int  # total end-to-end latency, steps
    restarts: int  # runs ended because a prediction ran short (recomputed from scratch)
    lost_tokens: int  # output tokens decoded by those runs


@dataclass(frozen=True)
class SchedulingTable(Completed):
    """Policies x predictors x loads on a trace's test part."""

    cells: tuple[ScheduleCell, ...]
    n: int  # requests simulated
    source: str  # trace file and slice
    step_seconds: float
    noisy_sigma: float  # scale of the noisy predictor's log-error
    one_bit: dict[str, int]  # theta, short_length, long_length of 1-bit SVF
    seed: int
    mean_volume_rate: float  # V / T, tokens per step
    predictor_seconds: dict[str, float] = field(default_factory=dict)  # kind -> seconds per request (batched)
    models: str = ""  # which models predicted (shipped for this trace, or trained in the run)

    def cell(self, load: float, predictor: str, policy: str) -> ScheduleCell:
        """The cell of one (load, predictor, policy)."""
        for c in self.cells:
            if c.load == load and c.predictor == predictor and c.policy == policy:
                return c
        raise KeyError((load, predictor, policy))

    @property
    def loads(self) -> tuple[float, ...]:
        return tuple(dict.fromkeys(c.load for c in self.cells))


VERDICTS = ("reproduced", "partly", "not_reproduced")  # the words a verdict predicate gives


@dataclass(frozen=True)
class EmpiricalEvidence(Evidence):
    """Ledger evidence of an empirical row: an :class:`~geosched.verify.evidence.Evidence` of kind ``empirical``
    whose words are :data:`EMPIRICAL_STATUSES`. Its canary (the verdict predicate run on a planted defect) is
    judged for every verdict word, not only ``reproduced``: a predicate that cannot tell a policy made worse
    from the real one says nothing by ``partly`` or ``not_reproduced`` either, so the evidence is ``vacuous``."""

    STATUSES = EMPIRICAL_STATUSES
    SUCCESS = ("reproduced",)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.status in VERDICTS and self.canary is not None and not self.canary.refuted:
            self._become("vacuous", f"could not have failed: its canary ({self.canary.defect}) was not refuted "
                                    f"({self.canary.verdict})")


# ------------------------------------------------------------------ intervals over seeds, words

LEVEL = 0.95  # two-sided level of every interval over seeds


@dataclass(frozen=True)
class SeedInterval:
    """The mean of a per-seed statistic and its Student-t interval over the seeds (``LEVEL``, two-sided).

    ``result`` is the word of one sub-comparison whose statistic is positive when the claim's side wins:
    ``"better"`` when the whole interval lies above 0, ``"worse"`` when it lies below, else ``"tie"``.
    """

    mean: float
    low: float
    high: float
    seeds: int

    @property
    def result(self) -> str:
        return "better" if self.low > 0 else "worse" if self.high < 0 else "tie"

    def text(self, percent: bool = True) -> str:
        """``+4.1% [+1.0%, +7.2%]`` (or plain numbers)."""
        f = (lambda x: f"{x:+.1%}") if percent else (lambda x: f"{x:+.3g}")
        return f"{f(self.mean)} [{f(self.low)}, {f(self.high)}]"

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "seeds": self.seeds, "result": self.result}


def seed_interval(values: Sequence[float], level: float = LEVEL) -> SeedInterval:
    """Mean and Student-t interval of one value per seed (at least 2 seeds; equal values give a point).

    >>> iv = seed_interval([0.1, 0.2, 0.3])
    >>> round(iv.mean, 3), round(iv.low, 3), round(iv.high, 3), iv.result
    (0.2, -0.048, 0.448, 'tie')
    """
    from scipy import stats

    data = np.asarray(values, dtype=np.float64)
    if data.size < 2 or not np.all(np.isfinite(data)):
        raise ValueError(f"an interval over seeds needs at least 2 finite values, got {list(values)}")
    mean = float(data.mean())
    half = float(stats.t.ppf(0.5 + level / 2, data.size - 1) * data.std(ddof=1) / math.sqrt(data.size))
    return SeedInterval(mean, mean - half, mean + half, int(data.size))


WORD_RULE = ("each sub-comparison: better when its 95% interval over the seeds lies above 0, worse below, tie "
             "across; on a trace, all better: reproduced; some better and none worse: partly; none better or one "
             "worse: not reproduced")
ACROSS_RULE = ("over the traces: reproduced on every trace: reproduced; reproduced on some and not on another: "
               "partly, naming where (also with a significantly worse sub-comparison there); else the weakest "
               "trace's word")


def word(results: Sequence[str]) -> str:
    """A trace's word from its sub-comparisons: ``reproduced`` when every one is ``better``; ``partly`` when some
    are and none is ``worse``; else ``not_reproduced`` (none better, or one significantly worse: the claim says
    the policy wins at every load against every baseline, and there the opposite was measured).

    >>> word(["better", "better"]), word(["better", "tie"]), word(["tie", "tie"]), word(["better", "worse"])
    ('reproduced', 'partly', 'not_reproduced', 'not_reproduced')
    """
    wins = sum(r == "better" for r in results)
    if wins == len(results):
        return "reproduced"
    return "partly" if wins and "worse" not in results else "not_reproduced"


def across_traces(words: Mapping[str, str]) -> str:
    """The row's word from each trace's (module docstring; :data:`ACROSS_RULE`).

    >>> across_traces({"a": "reproduced", "b": "reproduced"}), across_traces({"a": "partly", "b": "reproduced"})
    ('reproduced', 'partly')
    >>> across_traces({"a": "partly", "b": "not_reproduced"}), across_traces({"a": "vacuous", "b": "reproduced"})
    ('not_reproduced', 'vacuous')
    """
    if not words:
        return "not_run"
    weakest = min(words.values(), key=_ORDER.index)
    if _ORDER.index(weakest) >= _ORDER.index("not_reproduced") and "reproduced" in words.values() \
            and weakest != "reproduced":
        return "partly"
    return weakest


def word_text(status: str) -> str:
    """``not_reproduced`` -> ``not reproduced`` (how texts write a word)."""
    return status.replace("_", " ")


# ------------------------------------------------------------------ the workload


def trace_test_instance(path: str | Path, *, limit: int | None = None, train_fraction: float = 0.7,
                        step_seconds: float = STEP_SECONDS) -> tuple[Any, Any, Any]:
    """``(requests, log, test_index)``: the test part of a trace (first ``limit`` requests of it)
    as online requests (arrival step ``floor((a - a_first) / step_seconds)``), the whole log, and
    the test indices in arrival order. Any trace geosched reads
    (:func:`~geosched.reference_impl.predictors.tracelog.read_trace_log`)."""
    from geosched.reference_impl.model import Request
    from geosched.reference_impl.predictors.tracelog import read_trace_log
    from geosched.reference_impl.predictors.training import time_split

    log = read_trace_log(path)
    _, test = time_split(log, train_fraction)
    if limit is not None:
        test = test[:limit]
    arrival = log.arrival_seconds[test]
    steps = np.floor((arrival - arrival.min()) / step_seconds).astype(np.int64)
    requests = [Request(f"r{k}", int(a), int(log.prompt[i]), int(log.output[i]))
                for k, (a, i) in enumerate(zip(steps, test))]
    return requests, log, test


@dataclass(frozen=True)
class _Fixed:
    """Predictions computed once (they do not depend on the memory budget)."""

    name: str
    lengths: Any = field(repr=False)

    def predict(self, instance: Any) -> np.ndarray:
        return self.lengths


def _noisy_sigma(log: Any, test: Any, model: Any) -> float:
    """Std of ``log(o_hat / o)`` of the learned point model on the requests before the test part."""
    from geosched.reference_impl.predictors.features import feature_matrix

    before = np.setdiff1d(np.arange(log.n), test)
    x = feature_matrix(log, model.features, step_seconds=model.step_seconds)[before]
    error = np.log(model.predict_lengths(x) / log.output[before])
    return float(np.std(error))


def _predictions(instance: Any, log: Any, test: Any, seed: int, models: dict[str, str]) -> tuple[dict, dict, float,
                                                                                                   dict]:
    from geosched.reference_impl.predictors import LearnedPredictor, NoisyPredictor, OraclePredictor

    point = LearnedPredictor(kind="point", model=models["point"], step_seconds=STEP_SECONDS)
    onebit = LearnedPredictor(kind="onebit", model=models["onebit"], step_seconds=STEP_SECONDS)
    dist = LearnedPredictor(kind="dist", model=models["dist"], point="volume", step_seconds=STEP_SECONDS)
    seconds = {}
    lengths = {}
    for label, predictor in (("point", point), ("onebit", onebit), ("dist", dist)):
        predictor.predict(instance)  # warm-up: torch import, module build
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            lengths[label] = predictor.predict(instance)
            runs.append(time.perf_counter() - started)
        seconds[label] = statistics.median(runs) / instance.n
    sigma = _noisy_sigma(log, test, point.length_model)
    oracle = OraclePredictor().predict(instance)
    noisy = NoisyPredictor(sigma=sigma, seed=seed).predict(instance)
    by_predictor = {
        "oracle": {"default": _Fixed("oracle", oracle), "svf1": _Fixed("oracle", oracle)},
        "learned": {"default": _Fixed("learned point", lengths["point"]),
                    "svf1": _Fixed("learned onebit", lengths["onebit"]),
                    "svf-E[v]": _Fixed("learned dist", lengths["dist"])},
        "noisy": {"default": _Fixed("noisy", noisy), "svf1": _Fixed("noisy", noisy)},
    }
    model = onebit.length_model
    one_bit = {"theta": model.theta, "short_length": model.short_length, "long_length": model.long_length}
    return by_predictor, one_bit, sigma, seconds


def _run(instance: Any, policy: str, predictor: Any) -> tuple[Any, Any]:
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate

    result = simulate(instance, policy, predictor=predictor)
    report = check_schedule(instance, result.schedule)  # the runs, when a prediction ran short
    if not report.feasible:
        raise InfeasibleScheduleError(f"{policy}: the checker rejected the schedule: {report.first_violation.message}")
    return report.metrics, result


def scheduling_table(
    path: str | Path | None = None,
    *,
    limit: int | None = None,
    loads: Sequence[float] = LOADS,
    predictors: Sequence[str] = PREDICTORS,
    seed: int = 0,
    expected_volume: bool = True,
) -> SchedulingTable:
    """Run FCFS, SJF, SVF and 1-bit SVF under each predictor and load on a trace's test part.

    The test part (the last 30% by time) is replayed online at ``STEP_SECONDS`` per step under each
    **load** ``u`` = offered KV demand / ``M``: ``M = max(ceil(V / (T u)), max peak)``, ``V`` the total volume
    and ``T`` the span of arrival steps. **Predictors**: ``oracle`` (true lengths), ``learned`` (the trace's own
    models, :func:`~geosched.verify.trace_set.trace_models`: the point model for FCFS/SJF/SVF, the 1-bit
    classifier for 1-bit SVF) and ``noisy`` (log-normal error of the learned point model's size on the training
    part). Every schedule is re-checked by the independent checker, which gives the latencies.

    Parameters
    ----------
    path : str or Path, optional
        Any trace geosched reads (default: the shared Azure trace).
    limit : int, optional
        Use only the first ``limit`` requests of the test part.
    loads : sequence of float
        Offered KV demand over ``M``.
    predictors : sequence of str
        Among ``oracle``, ``learned``, ``noisy``.
    seed : int
        Seed of the noisy predictor.
    expected_volume : bool
        Also run SVF on the learned distributions' expected volumes (``svf-E[v]``, learned only).

    Returns
    -------
    SchedulingTable

    Raises
    ------
    WorkloadFormatError
        No trace.
    """
    from geosched.errors import WorkloadFormatError
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.workloads import default_trace_path
    from geosched.verify.trace_set import trace_models

    started = time.perf_counter()
    path = path or default_trace_path()
    if path is None:
        raise WorkloadFormatError("trace: ../shared/traces/azure_llm_2023_conv.csv not found beside the project")
    requests, log, test = trace_test_instance(path, limit=limit)
    volume = sum(r.volume for r in requests)
    span = max(1, max(r.arrival for r in requests))
    peak = max(r.peak for r in requests)
    models = trace_models(path, log, seed=seed)
    by_predictor, one_bit, sigma, seconds = _predictions(Instance(2 * peak, requests), log, test, seed, models.paths)
    cells = _table_cells(requests, volume, span, peak, loads, predictors, by_predictor, one_bit, expected_volume)
    source = f"{Path(path).name}: test part (last 30% by time), first {len(requests)} requests, online"
    return SchedulingTable("completed", f"{len(cells)} runs of {len(requests)} requests", time.perf_counter() - started,
                           tuple(cells), len(requests), source, STEP_SECONDS, sigma, one_bit, seed,
                           volume / span, seconds, models.origin)


def _table_cells(requests: Sequence[Any], volume: int, span: int, peak: int, loads: Sequence[float],
                 predictors: Sequence[str], by_predictor: dict, one_bit: dict, expected_volume: bool) -> list:
    from geosched.reference_impl.model import Instance

    svf1 = f"svf1:theta={one_bit['theta']},short_length={one_bit['short_length']},long_length={one_bit['long_length']}"
    cells = []
    for load in loads:
        memory = max(math.ceil(volume / (span * load)), peak)
        instance = Instance(memory, requests)
        for name in predictors:
            runs = [(policy, svf1 if policy == "svf1" else policy, by_predictor[name]["svf1" if policy == "svf1"
                                                                                    else "default"])
                    for policy in POLICIES]
            if expected_volume and name == "learned":
                runs.append(("svf-E[v]", "svf", by_predictor[name]["svf-E[v]"]))
            for label, spec, predictor in runs:
                metrics, result = _run(instance, spec, predictor)
                cells.append(ScheduleCell(load, memory, name, label, metrics.mean_latency * STEP_SECONDS,
                                          metrics.p95_latency * STEP_SECONDS, int(metrics.tel), result.restarts,
                                          result.lost_tokens))
    return cells


def format_scheduling_table(table: SchedulingTable) -> str:
    """Markdown: one row per (load, predictor, policy)."""
    lines = ["| load | M | predictor | policy | mean (s) | P95 (s) | TEL (steps) | restarts |",
             "|---|---|---|---|---|---|---|---|"]
    for c in table.cells:
        lines.append(f"| {c.load:g} | {c.memory} | {c.predictor} | {c.policy} | {c.mean_latency:.2f} | "
                     f"{c.p95_latency:.2f} | {c.tel} | {c.restarts} |")
    return "\n".join(lines)


# ------------------------------------------------------------------ the theory link


def one_bit_flip_penalty(mu: float, theta: int, flip_short: float, flip_long: float) -> dict[str, float]:
    """Thm. 3.5's distortion ``eps`` plus a flip term (our extension, not the paper's).

    With exact class bits Thm. 3.5's penalty is ``eps = (1/2)(theta q^theta / (1 - q^theta))^2``
    (:func:`geosched.verify.montecarlo.distortion_penalty`), the quadratic remainder of the volume
    between ``O_0`` and ``E[o]``. A flipped request is keyed by the other class's proxy, off by
    ``O_1 - O_0``, whose quadratic remainder is ``(O_1 - O_0)^2 / 2``; a fraction
    ``P(short) f_S + P(long) f_L`` of requests is flipped, ``P(short) = 1 - q^theta``:

    .. math::  \\varepsilon_f = \\varepsilon + \\tfrac12 (O_1 - O_0)^2 \\,
               \\big((1 - q^\\theta) f_S + q^\\theta f_L\\big).

    ``relative`` divides by ``E[o^2]/2 = (2 - mu) / (2 mu^2)``, the quadratic part of the
    expected volume, to give a dimensionless size.

    >>> p = one_bit_flip_penalty(0.5, 1, 1.0, 0.0)  # O_0 = 1, O_1 = 3, P(short) = 1/2
    >>> p["flip_term"], p["total"]
    (1.0, 1.5)
    """
    from geosched.verify.montecarlo import distortion_penalty, one_bit_parameters

    q = 1 - mu
    o0, o1 = one_bit_parameters(mu, theta)
    eps = distortion_penalty(mu, theta)
    flipped = (1 - q**theta) * flip_short + q**theta * flip_long
    flip_term = 0.5 * (o1 - o0) ** 2 * flipped
    total = eps + flip_term
    return {"mu": mu, "theta": theta, "eps": eps, "flip_term": flip_term, "total": total,
            "flipped_fraction": flipped, "relative": total / ((2 - mu) / (2 * mu**2))}


# ------------------------------------------------------------------ the ledger's status of an empirical row


def sub_results_text(sub: Sequence[Sequence[str]]) -> str:
    """``"2 of 4 held: mean at load 0.8 held, P95 at load 0.8 failed, ..."``: every sub-comparison with its own
    result, so that a change of any of them changes the row's text.

    >>> sub_results_text([("mean", "held"), ("P95", "failed")])
    '1 of 2 held: mean held, P95 failed'
    """
    held = sum(result == "held" for _, result in sub)
    return f"{held} of {len(sub)} held: " + ", ".join(f"{label} {result}" for label, result in sub)


def combine_empirical(evidence: Sequence[Any]) -> tuple[str, str, None, str] | None:
    """The ledger status of a claim whose evidence is all empirical: the weakest outcome wins
    (``error`` < ``not_run`` < ``unknown`` < ``vacuous`` < ``not_reproduced`` < ``partly`` < ``reproduced``);
    ``None`` for other claims."""
    if not evidence or any(e.kind != "empirical" for e in evidence):
        return None
    status = min((e.status for e in evidence), key=_ORDER.index)
    text = word_text(status) + (f" on {evidence[0].samples} trace requests" if evidence[0].samples else "")
    datas = [e.data for e in evidence if isinstance(getattr(e, "data", None), dict)]
    summaries = [d["summary"] for d in datas if "summary" in d]
    subs = [sub_results_text(d["sub"]) for d in datas if d.get("sub")]
    if summaries or subs:  # a few numbers beside the status, and every sub-comparison with its own result
        text += f" ({'; '.join(summaries + subs)})"
    return status, text, None, "; ".join(e.message for e in evidence)
