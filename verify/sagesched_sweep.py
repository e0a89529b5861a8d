"""SageSched examined: its elements against their simple baselines, where each should matter (issue 35).

SageSched (Gan et al., arXiv 2603.07917) has three elements: a predicted output-length *distribution*
(prompt plus recent results), a *hybrid* compute-plus-memory cost, and *uncertainty-aware placement*
(O(N) per request). The default ledger measures its gain in two configurations (``sagesched.gain``);
this sweep measures it in every combination of the conditions under which one element or another
should matter, with an interval over seeds, and swaps each element for its simple baseline:

* **replicas**: *compute-bound* (the full KV budget of the step-time model, 411,529 tokens for
  Llama-3.1-8B: memory never binds and latency grows with the step time) or *memory-bound* (the KV
  budget cut to :func:`memory_bound` tokens per replica, so that admission waits for memory:
  :data:`MEMORY_BOUND` on the Azure trace, twice the largest request on the Mooncake trace);
* **GPUs**: *homogeneous* (4 x A100-80G) or *mixed* (2 x A100-80G + 2 x H100-80G);
* **predictor quality**: *oracle* (a point mass at the true length), *empirical* (the histogram of
  the training part's outputs per prompt-length bucket, the ledger's), *poor* (one histogram for
  every request: no information beyond the marginal);
* **load** ``rho`` (:func:`~geosched.verify.sagesched_claims.offered_speedup`): light to overload.

**Traces.** A sweep runs on one trace (``trace``: any trace geosched reads; by default the Azure
conversation trace); ``benchmarks/bench_sagesched_sweep.py --trace`` runs one per trace, and the docs show
every trace's record side by side.

**Seeds.** The trace is split in time (the first 30% fits the predictors); seed
``s`` serves the window of ``window`` consecutive requests of the rest that starts at an offset drawn
by ``numpy.random.default_rng(s)``. Every variant of a configuration runs on the same windows.

**Variants** (:data:`VARIANTS`): the 20 heuristic pairs (5 routers x 4 local policies, beliefs at the
predicted mean, as in the ledger); SageSched (router and local order ``sagesched``); and one swap per
element: the distribution for a point mass at its mean (``point``), the hybrid cost for its memory
or compute term (``memory-only``, ``compute-only``), the local order by that cost for FCFS
(``fcfs-order``), the placement for join-the-shortest-queue
(``jsq-placement``: SageSched's local order behind the ``jsq`` router), the placement's safety
quantile for the mean (``no-safety``), and the admission rule SageSched's pairs had before issue 35
(``quantile-admission``: the replica admits by the 0.9 quantile).

**Summary** (:func:`summarize_sweep`), per configuration: the best heuristic is the pair with the
lowest mean TTLT averaged over the seeds; SageSched's gain ``1 - L(SageSched) / L(best)`` is computed
per seed and given with its Student-t interval (:func:`~geosched.verify.empirical.seed_interval`),
``gains`` when the interval lies above 0, ``loses`` below, ``tie`` across; each swap's effect
``1 - L(SageSched) / L(swapped)`` likewise (positive: the element helps). The element *responsible*
for a gain is the swap that costs the most where its interval lies above 0; for a loss, the swap that
gains the most where its interval lies below 0 (the element that hurts).

**Docs.** ``docs/sagesched.md``'s sweep tables are generated from a run's record
(``python docs/tables.py --sagesched-sweep OUT/sweep.json``), which is kept,
trimmed to what the tables are computed from, as ``docs/sagesched_sweep.json``; a test regenerates
the tables from it and compares them with the page byte for byte.

Example
-------
>>> [v.name for v in VARIANTS if v.element][:3]
['point', 'memory-only', 'compute-only']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from geosched.output import write_json_atomic
from geosched.reference_impl.cluster import simulate_cluster
from geosched.reference_impl.cluster.empirical import EmpiricalLengthModel, oracle_distribution, time_ordered_split
from geosched.reference_impl.cluster.steptime import replica_models
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.workloads import default_trace_path, read_trace_instance
from geosched.verify.empirical import seed_interval
from geosched.verify.sagesched_claims import HEURISTIC_LOCALS, HEURISTIC_ROUTERS, STEP_SECONDS, offered_speedup

__all__ = ["MEMORY_BOUND", "memory_bound", "Variant", "VARIANTS", "SweepSetup", "DEFAULT_SWEEP", "STAR_SWEEP", "BASE",
           "run_sweep", "summarize_sweep",
           "format_sweep_table", "format_element_table", "docs_record", "docs_tables"]

MEMORY_BOUND = 30_000  # KV tokens per replica in the memory-bound configurations
GPUS = {"homogeneous": "4xA100-80G", "mixed": "2xA100-80G,2xH100-80G"}
REPLICAS = {"compute-bound": None, "memory-bound": MEMORY_BOUND}
PREDICTORS = ("oracle", "empirical", "poor")


@dataclass(frozen=True)
class Variant:
    """One pair of router and local policy, with an ablation or an admission belief; ``element`` names the
    SageSched element it swaps for its baseline ("" for the heuristics and SageSched itself)."""

    name: str
    router: str
    local: str
    ablation: str | None = None
    belief: str = "auto"
    element: str = ""


VARIANTS: tuple[Variant, ...] = (
    *(Variant(f"{router}+{local}", router, local) for router in HEURISTIC_ROUTERS for local in HEURISTIC_LOCALS),
    Variant("sagesched", "sagesched", "sagesched"),
    Variant("point", "sagesched", "sagesched", ablation="point", element="distribution -> point mass at its mean"),
    Variant("memory-only", "sagesched", "sagesched", ablation="memory-only", element="hybrid cost -> memory term"),
    Variant("compute-only", "sagesched", "sagesched", ablation="compute-only", element="hybrid cost -> compute term"),
    Variant("fcfs-order", "sagesched", "fcfs", element="local order by hybrid cost -> FCFS"),
    Variant("jsq-placement", "jsq", "sagesched", element="placement -> join the shortest queue"),
    Variant("no-safety", "sagesched", "sagesched", ablation="no-safety",
            element="placement's safety quantile -> the mean"),
    Variant("quantile-admission", "sagesched", "sagesched", belief="quantile",
            element="admission by the mean -> by the 0.9 quantile (before issue 35)"),
)
_HEURISTICS = tuple(v.name for v in VARIANTS[:len(HEURISTIC_ROUTERS) * len(HEURISTIC_LOCALS)])


@dataclass(frozen=True)
class SweepSetup:
    """What one sweep runs (every field is recorded in its result)."""

    window: int  # served requests per seed
    seeds: int  # windows (seeds seed, seed + 1, ...)
    loads: tuple[float, ...]
    replicas: tuple[str, ...] = tuple(REPLICAS)
    gpus: tuple[str, ...] = tuple(GPUS)
    predictors: tuple[str, ...] = PREDICTORS
    train_fraction: float = 0.3
    design: str = "full"  # "full": every combination; "star": BASE, then each factor varied alone from BASE


DEFAULT_SWEEP = SweepSetup(window=600, seeds=5, loads=(0.5, 0.8, 1.0, 1.3))
# the run docs/sagesched.md shows: what 2 shared cores finish in an evening (7 configurations, 3 seeds)
STAR_SWEEP = SweepSetup(window=600, seeds=3, loads=(0.5, 1.0, 1.3), design="star")
BASE = {"replicas": "memory-bound", "gpus": "mixed", "predictor": "empirical", "load": 1.0}


def _predictor(name: str, train: Sequence[Any]) -> Callable[[Any], Any]:
    if name == "oracle":
        return oracle_distribution
    return EmpiricalLengthModel.fit(train, prompt_buckets=8 if name == "empirical" else 1)


def _windows(serve: Sequence[Any], setup: SweepSetup, seed: int) -> list[tuple[int, list[Any]]]:
    out = []
    for s in range(seed, seed + setup.seeds):
        offset = int(np.random.default_rng(s).integers(0, len(serve) - setup.window + 1))
        out.append((s, list(serve[offset:offset + setup.window])))
    return out


def _configurations(setup: SweepSetup) -> list[dict[str, Any]]:
    """Every combination of the factors (``full``), or ``BASE`` and each factor varied alone from it (``star``)."""
    levels = {"replicas": setup.replicas, "gpus": setup.gpus, "predictor": setup.predictors, "load": setup.loads}
    if setup.design == "star":
        return [dict(BASE)] + [{**BASE, factor: value} for factor, values in levels.items()
                               for value in values if value != BASE[factor]]
    if setup.design != "full":
        raise ValueError(f"design must be 'full' or 'star', got {setup.design!r}")
    return [{"replicas": r, "gpus": g, "predictor": p, "load": load}
            for r in setup.replicas for g in setup.gpus for p in setup.predictors for load in setup.loads]


def _key(config: dict[str, Any], seed: int, variant: str) -> str:
    return f"{config['replicas']}|{config['gpus']}|{config['predictor']}|{config['load']:g}|{seed}|{variant}"


def run_sweep(setup: SweepSetup = DEFAULT_SWEEP, *, seed: int = 0, trace: str | Path | None = None,
              checkpoint: str | Path | None = None, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run every variant in every configuration on every seed's window (module docstring).

    With ``checkpoint``, finished runs are saved (atomically) after each configuration and reused,
    so a killed sweep resumes where it stopped. Returns a JSON-ready record: ``kind``, ``setup``,
    ``seed``, ``trace``, ``rows`` (one per configuration, seed and variant: mean, P50, P99 TTLT in
    seconds and preemptions).
    """
    path = Path(trace) if trace else default_trace_path()
    if path is None or not Path(path).is_file():
        raise FileNotFoundError("the sweep needs a trace (default: ../shared/traces/azure_llm_2023_conv.csv)")
    done: dict[str, dict[str, Any]] = {}
    if checkpoint is not None and Path(checkpoint).is_file():
        done = {row["key"]: row for row in read_json(checkpoint)["rows"]}
    instance = read_trace_instance(path, step_seconds=STEP_SECONDS)
    train, serve = time_ordered_split(instance, setup.train_fraction)
    windows = _windows(serve, setup, seed)
    bound = memory_bound(serve)
    svf1_lengths = [r.output for r in train]
    started = time.perf_counter()
    for config in _configurations(setup):
        models = replica_models(GPUS[config["gpus"]], memory=bound if config["replicas"] == "memory-bound" else None)
        distribution = _predictor(config["predictor"], train)
        for s, window in windows:
            speedup = offered_speedup(window, models, step_seconds=STEP_SECONDS, rho=config["load"])
            for variant in VARIANTS:
                key = _key(config, s, variant.name)
                if key in done:
                    continue
                result = simulate_cluster(window, models, router=variant.router, local=variant.local,
                                          distribution=distribution, step_seconds=STEP_SECONDS, speedup=speedup,
                                          ablation=variant.ablation, belief=variant.belief,
                                          svf1_lengths=svf1_lengths, seed=s)
                m = result.metrics
                done[key] = {"key": key, **config, "seed": s, "variant": variant.name, "speedup": speedup,
                             "mean_latency": m["mean_latency"], "p50_latency": m["p50_latency"],
                             "p99_latency": m["p99_latency"], "preemptions": m["preemptions"]}
        if checkpoint is not None:
            write_json_atomic(checkpoint, {"rows": list(done.values())})
        if progress is not None:
            progress(f"{_key(config, seed, '')} done, {time.perf_counter() - started:.0f} s")
    rows = [done[_key(c, s, v.name)] for c in _configurations(setup) for s, _ in windows for v in VARIANTS]
    from geosched.version import __version__

    return {"kind": "sagesched-sweep", "setup": asdict(setup), "seed": seed, "trace": Path(path).name,
            "served": len(serve), "memory_bound": bound, "geosched": __version__, "rows": rows}


def memory_bound(serve: Sequence[Any]) -> int:
    """The KV budget per replica of the memory-bound configurations: :data:`MEMORY_BOUND` tokens when every
    served request fits in it (the Azure trace: largest peak 15,050), else twice the largest peak ``s + o`` (the
    Mooncake trace, whose prompts reach 126k tokens: a request must fit a replica alone, and twice its peak keeps
    admission waiting for memory).

    >>> from geosched.reference_impl.model import Request
    >>> memory_bound([Request("a", 0, 100, 5)]), memory_bound([Request("a", 0, 100_000, 5)])
    (30000, 200010)
    """
    peak = max(r.prompt + r.output for r in serve)
    return MEMORY_BOUND if peak <= MEMORY_BOUND else 2 * peak


def _mean_latency(rows: Sequence[dict[str, Any]], variant: str) -> dict[int, float]:
    return {r["seed"]: r["mean_latency"] for r in rows if r["variant"] == variant}


def _effect(full: dict[int, float], other: dict[int, float]) -> Any:
    """``1 - L(full) / L(other)`` per seed, with its interval."""
    return seed_interval([1 - full[s] / other[s] for s in sorted(full)])


def summarize_sweep(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per configuration: the best heuristic, SageSched's gain over it, each swap's effect, the
    element responsible (module docstring); intervals as :meth:`SeedInterval.to_dict`."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in record["rows"]:
        groups.setdefault((row["replicas"], row["gpus"], row["predictor"], row["load"]), []).append(row)
    out = []
    for (replicas, gpus, predictor, load), rows in groups.items():
        sage = _mean_latency(rows, "sagesched")
        best = min(_HEURISTICS, key=lambda name: float(np.mean(list(_mean_latency(rows, name).values()))))
        gain = _effect(sage, _mean_latency(rows, best))
        effects = {v.name: _effect(sage, _mean_latency(rows, v.name)) for v in VARIANTS if v.element}
        out.append({"replicas": replicas, "gpus": gpus, "predictor": predictor, "load": load,
                    "best_heuristic": best, "sagesched_mean": float(np.mean(list(sage.values()))),
                    "best_mean": float(np.mean(list(_mean_latency(rows, best).values()))),
                    "gain": gain.to_dict(), "outcome": {"better": "gains", "worse": "loses"}.get(gain.result, "tie"),
                    "effects": {name: iv.to_dict() for name, iv in effects.items()},
                    "responsible": _responsible(gain.result, effects)})
    return out


def _responsible(result: str, effects: dict[str, Any]) -> str:
    if result == "better":
        helping = [(iv.mean, name) for name, iv in effects.items() if iv.result == "better"]
        return max(helping)[1] if helping else "-"
    if result == "worse":
        hurting = [(iv.mean, name) for name, iv in effects.items() if iv.result == "worse"]
        return min(hurting)[1] if hurting else "-"
    return "-"


def _pct(interval: dict[str, Any]) -> str:
    return f"{interval['mean']:+.1%} [{interval['low']:+.1%}, {interval['high']:+.1%}]"


def format_sweep_table(summary: Sequence[dict[str, Any]], traces: Sequence[str] | None = None) -> str:
    """Markdown: one row per configuration (per trace, side by side: each configuration's rows one under the other,
    ``traces`` naming each summary entry's trace), SageSched's gain over the best heuristic with its interval,
    the outcome and the element responsible."""
    named = traces is not None
    lines = [("| trace " if named else "") + "| replicas | GPUs | predictor | rho | best heuristic | mean TTLT (s): "
             "SageSched / best | gain [95% CI] | outcome | element responsible |",
             ("|---" if named else "") + "|---|---|---|---|---|---|---|---|---|"]
    for k, c in enumerate(summary):
        lines.append((f"| {traces[k]} " if named else "")
                     + f"| {c['replicas']} | {c['gpus']} | {c['predictor']} | {c['load']:g} | {c['best_heuristic']} | "
                     f"{c['sagesched_mean']:.2f} / {c['best_mean']:.2f} | {_pct(c['gain'])} | {c['outcome']} | "
                     f"{c['responsible']} |")
    return "\n".join(lines)


def format_element_table(summary: Sequence[dict[str, Any]], traces: Sequence[str] | None = None) -> str:
    """Markdown: per configuration (and trace, as :func:`format_sweep_table`), the effect of each swap
    (``1 - L(SageSched) / L(swapped)``, positive when the element helps) with its interval."""
    names = [v.name for v in VARIANTS if v.element]
    named = traces is not None
    lines = [("| trace " if named else "") + "| replicas | GPUs | predictor | rho | " + " | ".join(names) + " |",
             ("|---" if named else "") + "|---|---|---|---|" + "---|" * len(names)]
    for k, c in enumerate(summary):
        cells = [_pct(c["effects"][name]) for name in names]
        lines.append((f"| {traces[k]} " if named else "") + f"| {c['replicas']} | {c['gpus']} | {c['predictor']} | "
                     f"{c['load']:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------ the docs tables' data (docs/tables.py writes them)

ROW_FIELDS = ("replicas", "gpus", "predictor", "load", "seed", "variant", "mean_latency", "preemptions")


def docs_record(record: dict[str, Any]) -> dict[str, Any]:
    """The record with each row trimmed to :data:`ROW_FIELDS` (what the tables are computed from)."""
    return {**{k: v for k, v in record.items() if k != "rows"},
            "rows": [{k: row[k] for k in ROW_FIELDS} for row in record["rows"]]}


def _side_by_side(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Every record's summary interleaved by configuration (each configuration's traces one under the other)."""
    summaries = [summarize_sweep(r) for r in records]
    labels = [r["trace"].split(".")[0] for r in records]
    order: dict[tuple, list[tuple[str, dict[str, Any]]]] = {}
    for label, summary in zip(labels, summaries):
        for c in summary:
            order.setdefault((c["replicas"], c["gpus"], c["predictor"], c["load"]), []).append((label, c))
    pairs = [pair for group in order.values() for pair in group]
    return [c for _, c in pairs], [label for label, _ in pairs]


def docs_tables(records: dict[str, Any] | Sequence[dict[str, Any]]) -> dict[str, str]:
    """The generated blocks of ``docs/sagesched.md`` (marker name -> body), computed from the sweep ``records``
    (one per trace, or one record), every trace's configurations side by side."""
    records = [records] if isinstance(records, dict) else list(records)
    sources = []
    for record in records:
        setup = record["setup"]
        sources.append(f"`{record['trace']}`: `{record.get('command', 'run_sweep')}` (design {setup['design']}, "
                       f"{setup['seeds']} seeds from {record['seed']}, windows of {setup['window']} served requests, "
                       f"memory-bound replicas of {record.get('memory_bound', MEMORY_BOUND):,} KV tokens, geosched "
                       f"{record['geosched']})")
    command = " ".join(f"--sagesched-sweep {r['trace'].split('.')[0]}.json" for r in records)
    source = (f"Generated from {'; '.join(sources)} by `python docs/tables.py {command}`; the records are "
              f"docs/sagesched_sweep.json and tests/test_sagesched_sweep.py regenerates this table from them and "
              f"compares.")
    summary, labels = _side_by_side(records)
    return {"sagesched sweep": f"{source}\n\n{format_sweep_table(summary, labels)}",
            "sagesched elements": f"{source}\n\n{format_element_table(summary, labels)}"}
