"""Training and evaluation of the learned length predictors, beside their baselines.

Protocol (the same for every kind and every baseline):

* **Time-ordered split.** The requests are sorted by arrival (stable); the first
  ``train_fraction`` (70%) train, the rest (30%) test. Features are computed on the whole
  time line with the no-look-ahead rule of :mod:`~geosched.reference_impl.predictors.features`
  (a test request's history holds every request finished before it arrived, training ones
  included: what a deployed predictor sees). Standardisation, ``theta`` (the median training
  output), the proxies ``O_0``/``O_1`` and the bins (:func:`log_spaced_edges` up to the largest
  training output) come from the training part only.
* **Deterministic torch.** Training runs under ``torch.random.fork_rng`` with
  ``torch.manual_seed(seed)``, ``torch.use_deterministic_algorithms(True)`` and one thread
  (the caller's settings are restored afterwards); mini-batches come from a seeded generator.
  The same seed, data and torch build give bit-identical weights.
* Adam with cosine learning-rate decay, fixed epochs (no early stopping, so the test part is
  never looked at during training); losses: absolute error of ``log o`` (point), logistic
  (onebit), cross-entropy over bins (dist).

Example
-------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> prompt = rng.integers(1, 2000, 400); output = np.maximum(1, prompt // 10 + rng.integers(0, 5, 400))
>>> log = RequestLog(np.arange(400.0), prompt, output)
>>> result = train_model(log, TrainingConfig("point", features=("log_prompt",), epochs=30))
>>> result.status, result.test_rows, result.metrics.spearman > 0.9
('completed', 120, True)
"""

from __future__ import annotations

import contextlib
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from geosched.errors import LimitError, ValidationError
from geosched.reference_impl.predictors.artifact import shipped_model_paths, training_data_hash
from geosched.reference_impl.predictors.baselines import BucketEmpirical, GlobalMedian
from geosched.reference_impl.predictors.distribution import log_spaced_edges
from geosched.reference_impl.predictors.features import (
    DEFAULT_FEATURES,
    NOMINAL_STEP_SECONDS,
    RequestLog,
    check_features,
    feature_matrix,
)
from geosched.reference_impl.predictors.learned import KINDS, LengthModel, build_module, require_torch
from geosched.reference_impl.predictors.metrics import AccuracyRow, evaluate_predictions
from geosched.reference_impl.predictors.simple import one_bit_parameters
from geosched.results import Completed

__all__ = ["TrainingConfig", "TrainingResult", "AccuracyTable", "time_split", "shipped_models_for", "accuracy_across",
           "train_model", "evaluate_model",
           "baseline_rows", "accuracy_table", "format_accuracy_table"]


MAX_SAMPLE_PASSES = 10**9  # epochs x training rows: minutes of CPU at most on the model sizes here


@dataclass(frozen=True)
class TrainingConfig:
    """What to train and how (every field is recorded in the model's provenance)."""

    kind: str  # "point", "onebit" or "dist"
    features: tuple[str, ...] = DEFAULT_FEATURES  # input features, in column order
    hidden: tuple[int, ...] = (32, 32)  # hidden layer widths
    epochs: int = 40  # passes over the training part
    batch_size: int = 256  # mini-batch size
    learning_rate: float = 3e-3  # Adam's initial step (cosine decay to 0)
    weight_decay: float = 1e-4  # Adam's L2 penalty
    bins: int = 16  # dist: log-spaced bins up to the largest training output
    theta: int | None = None  # 1-bit threshold (None: the median training output)
    train_fraction: float = 0.7  # first part of the time line used for training
    step_seconds: float = NOMINAL_STEP_SECONDS  # seconds per output token of the history rule
    seed: int = 0  # seeds initialisation and mini-batch order

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValidationError("kind", self.kind, f"must be one of {', '.join(KINDS)}")
        object.__setattr__(self, "features", check_features(self.features))
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        for name in ("epochs", "batch_size", "bins"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(name, value, "must be an integer >= 1")
        if not 0 < self.train_fraction < 1:
            raise ValidationError("train_fraction", self.train_fraction, "must be in (0, 1)")
        if self.theta is not None and (isinstance(self.theta, bool) or not isinstance(self.theta, int)
                                       or self.theta < 1):
            raise ValidationError("theta", self.theta, "must be an integer >= 1")


@dataclass(frozen=True)
class TrainingResult(Completed):
    """A trained model and its test metrics. ``wall_time``: features + training + evaluation."""

    model: LengthModel = field(repr=False)  # not in to_dict(): the model file holds it
    metrics: AccuracyRow  # the model on the test part
    train_rows: int
    test_rows: int
    train_seconds: float  # the torch training loop alone


@dataclass(frozen=True)
class AccuracyTable(Completed):
    """Models and baselines scored on the same test part."""

    rows: tuple[AccuracyRow, ...]
    train_rows: int
    test_rows: int
    theta: int

    def text(self) -> str:
        """The table as aligned text."""
        return format_accuracy_table(self.rows)


def time_split(log: RequestLog, train_fraction: float = 0.7) -> tuple[np.ndarray, np.ndarray]:
    """``(train, test)`` index arrays: the first ``train_fraction`` of the requests by arrival, then the rest.

    >>> [a.tolist() for a in time_split(RequestLog([5.0, 1.0, 3.0, 2.0], [1] * 4, [1] * 4), 0.5)]
    [[1, 3], [2, 0]]
    """
    if not 0 < train_fraction < 1:
        raise ValidationError("train_fraction", train_fraction, "must be in (0, 1)")
    order = np.argsort(log.arrival_seconds, kind="stable")
    cut = int(np.floor(train_fraction * log.n))
    if cut < 1 or cut >= log.n:
        raise ValidationError("requests", log.n, f"too few for a {train_fraction:.0%} / rest split")
    return order[:cut], order[cut:]


def shipped_models_for(log: RequestLog) -> dict[str, Any]:
    """The shipped model files trained on ``log``'s training part, by kind: those whose recorded ``data_sha256``
    is the hash of ``log``'s first ``train_fraction`` by time (the fraction each file records), so that a model
    is found by what it was trained on, never by a file name. Empty when none was.

    >>> shipped_models_for(RequestLog([0.0, 1.0, 2.0], [1, 2, 3], [4, 5, 6]))
    {}
    """
    from geosched.reference_impl.jsonfile import read_json

    found: dict[str, Any] = {}
    hashes: dict[float, str] = {}
    for path in shipped_model_paths():
        data = read_json(path)
        provenance = data.get("provenance", {})
        fraction = provenance.get("config", {}).get("train_fraction", 0.7)
        if fraction not in hashes:
            try:
                hashes[fraction] = training_data_hash(log.subset(time_split(log, fraction)[0]))
            except ValidationError:  # too few requests for a split: nothing was trained on it
                return {}
        if provenance.get("data_sha256") == hashes[fraction] and data.get("kind") in KINDS:
            found.setdefault(data["kind"], path)
    return found


@contextlib.contextmanager
def _deterministic(torch: Any, seed: int) -> Iterator[Any]:
    threads = torch.get_num_threads()
    was_deterministic = torch.are_deterministic_algorithms_enabled()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        torch.set_num_threads(1)
        torch.use_deterministic_algorithms(True)
        try:
            yield torch.Generator().manual_seed(seed)
        finally:
            torch.use_deterministic_algorithms(was_deterministic)
            torch.set_num_threads(threads)


def _targets(torch: Any, kind: str, output: np.ndarray, theta: int, edges: list[int]) -> tuple[Any, Any]:
    if kind == "point":
        return torch.from_numpy(np.log(output).astype(np.float32))[:, None], torch.nn.L1Loss()
    if kind == "onebit":
        return torch.from_numpy((output > theta).astype(np.float32))[:, None], torch.nn.BCEWithLogitsLoss()
    bins = np.searchsorted(np.asarray(edges), np.clip(output, edges[0], edges[-1] - 1), side="right") - 1
    return torch.from_numpy(bins.astype(np.int64)), torch.nn.CrossEntropyLoss()


def _fit(config: TrainingConfig, z: np.ndarray, output: np.ndarray, theta: int, edges: list[int]) -> tuple:
    if config.epochs * len(z) > MAX_SAMPLE_PASSES:  # before torch and any pass: the whole work is epochs x rows
        raise LimitError(f"training: {config.epochs} epochs x {len(z)} training rows = {config.epochs * len(z)} "
                         f"row passes, past the limit of {MAX_SAMPLE_PASSES} (lower --epochs, or --limit the rows)")
    torch = require_torch()
    outputs = len(edges) - 1 if config.kind == "dist" else 1
    with _deterministic(torch, config.seed) as generator:
        net = build_module(torch, z.shape[1], config.hidden, outputs)
        x = torch.from_numpy(z.astype(np.float32))
        y, loss_fn = _targets(torch, config.kind, output, theta, edges)
        if config.kind == "point":  # start at the median, so the absolute loss has a gradient everywhere
            with torch.no_grad():
                net[-1].bias.fill_(float(np.median(np.log(output))))
        optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        batches = -(-len(z) // config.batch_size)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=config.epochs * batches)
        for _ in range(config.epochs):
            permutation = torch.randperm(len(z), generator=generator)
            for first in range(0, len(z), config.batch_size):
                index = permutation[first:first + config.batch_size]
                optimizer.zero_grad()
                loss_fn(net(x[index]), y[index]).backward()
                optimizer.step()
                schedule.step()
        return tuple(p.detach().numpy().astype(np.float32).copy() for p in net.parameters()), torch.__version__


def train_model(
    log: RequestLog,
    config: TrainingConfig,
    *,
    text_hook: Callable[[str], Sequence[float]] | None = None,
    source: str | None = None,
    command: str | None = None,
) -> TrainingResult:
    """Train one model on the first part of ``log`` and score it on the rest.

    Parameters
    ----------
    log : RequestLog
        The trace (timestamps, prompts, outputs; texts when a hook is given).
    config : TrainingConfig
        Kind, features, architecture, optimiser, split and seed.
    text_hook : callable, optional
        ``text -> floats``: extra feature columns from the request text (``log.texts``).
    source, command : str, optional
        Recorded in the model's provenance (the trace file name; the command that trained it).

    Returns
    -------
    TrainingResult
        The model (its provenance records the data hash, versions and seed) and its test metrics.

    Raises
    ------
    MissingExtraError
        torch is not installed.
    ValidationError
        A bad configuration or too few requests.
    """
    started = time.perf_counter()
    x = feature_matrix(log, config.features, step_seconds=config.step_seconds, text_hook=text_hook)
    train, test = time_split(log, config.train_fraction)
    output = log.output[train]
    theta, o0, o1 = one_bit_parameters(output, config.theta)
    edges = log_spaced_edges(int(output.max()), config.bins)
    mean = x[train].mean(axis=0)
    std = np.maximum(x[train].std(axis=0), 1e-6)
    fit_started = time.perf_counter()
    weights, torch_version = _fit(config, (x[train] - mean) / std, output, theta, edges)
    train_seconds = time.perf_counter() - fit_started
    provenance = {
        "source": source, "rows": log.n, "train_rows": int(train.size), "test_rows": int(test.size),
        "data_sha256": training_data_hash(log.subset(train)), "config": _config_dict(config),
        "train_mean_output": float(output.mean()),
        "text_hook": getattr(text_hook, "__name__", None) if text_hook is not None else None,
        "versions": _versions(torch_version), "train_seconds": round(train_seconds, 3), "command": command,
    }
    model = LengthModel(
        kind=config.kind, features=config.features, text_features=x.shape[1] - len(config.features),
        step_seconds=config.step_seconds, mean=mean, std=std, hidden=config.hidden, weights=weights, theta=theta,
        short_length=o0, long_length=o1, max_output=int(output.max()),
        edges=tuple(edges) if config.kind == "dist" else (), provenance=provenance,
    )
    metrics = evaluate_predictions(f"learned {config.kind}", log.output[test], model.prediction_set(x[test]),
                                   theta=theta)
    model = replace(model, metrics=metrics.to_dict())
    message = (f"{config.kind}: trained on {train.size} requests in {train_seconds:.1f} s; test MAE "
               f"{metrics.mean_ae:.1f}, Spearman {metrics.spearman}")
    return TrainingResult("completed", message, time.perf_counter() - started, model, metrics, int(train.size),
                          int(test.size), train_seconds)


def _config_dict(config: TrainingConfig) -> dict[str, Any]:
    return {name: (list(v) if isinstance(v, tuple) else v) for name, v in
            ((n, getattr(config, n)) for n in config.__dataclass_fields__)}


def _versions(torch_version: str | None) -> dict[str, str | None]:
    from geosched.version import __version__

    return {"geosched": __version__, "torch": torch_version, "numpy": np.__version__,
            "python": platform.python_version()}


def evaluate_model(model: LengthModel, log: RequestLog, index: Any, *, name: str | None = None,
                   text_hook: Callable[[str], Sequence[float]] | None = None) -> AccuracyRow:
    """Score ``model`` on the requests ``index`` of ``log`` (features from the whole log)."""
    if model.text_features and text_hook is None:
        raise ValidationError("text_hook", None, f"the model reads {model.text_features} text columns; pass its hook")
    x = feature_matrix(log, model.features, step_seconds=model.step_seconds, text_hook=text_hook)
    return evaluate_predictions(name or f"learned {model.kind}", log.output[index],
                                model.prediction_set(x[index]), theta=model.theta)


def baseline_rows(log: RequestLog, train: Any, test: Any, *, theta: int, edges: Sequence[int],
                  fit: RequestLog | None = None, suffix: str = "") -> list[AccuracyRow]:
    """The global median and the per-bucket empirical distribution, fitted on ``train`` (of ``fit``, default
    ``log``: another trace's training part for a transfer), scored on ``test`` of ``log``; ``suffix`` is added to
    their names."""
    source = log if fit is None else fit
    median = GlobalMedian.fit(source.output[train])
    bucket = BucketEmpirical.fit(source.prompt[train], source.output[train], edges=edges, theta=theta)
    truth = log.output[test]
    return [evaluate_predictions(median.name + suffix, truth, median.predict(log.prompt[test]), theta=theta),
            evaluate_predictions(bucket.name + suffix, truth, bucket.predict(log.prompt[test]), theta=theta)]


def accuracy_table(log: RequestLog, models: dict[str, LengthModel], *, train_fraction: float = 0.7) -> AccuracyTable:
    """Baselines and ``models`` (label -> model) on the test part of ``log``.

    The baselines use the ``theta`` and bins of the first dist model (else of the first model,
    with 16 log-spaced bins), so that every row is scored at the same threshold and, for
    distributions, on comparable terms (NLL per length).
    """
    started = time.perf_counter()
    train, test = time_split(log, train_fraction)
    if not models:
        raise ValidationError("models", [], "give at least one model")
    first = next((m for m in models.values() if m.kind == "dist"), next(iter(models.values())))
    edges = list(first.edges) if first.edges else log_spaced_edges(int(log.output[train].max()), 16)
    thetas = {m.theta for m in models.values()}
    rows = baseline_rows(log, train, test, theta=first.theta, edges=edges)
    rows += [evaluate_model(model, log, test, name=label) for label, model in models.items()]
    note = "" if len(thetas) == 1 else f"; models use different thetas {sorted(thetas)}"
    return AccuracyTable("completed", f"{len(rows)} predictors on {test.size} test requests{note}",
                         time.perf_counter() - started, tuple(rows), int(train.size), int(test.size), first.theta)


def accuracy_across(logs: dict[str, RequestLog], models: dict[str, dict[str, LengthModel]], *,
                    train_fraction: float = 0.7) -> dict[str, AccuracyTable]:
    """Per trace and across traces: for each trace ``T`` of ``logs`` (label -> log), every predictor trained on each
    trace ``S`` (``models[S]``: kind -> model; the baselines fitted on ``S``'s training part) scored on ``T``'s test
    part. Rows are named ``"<predictor> (trained on S)"``; ``S == T`` is the per-trace table, the others the
    transfer. Each row is scored at its training trace's ``theta`` (the row's ``theta`` says which), the
    baselines on the bins of that trace's dist model.

    >>> rng = np.random.default_rng(0)
    >>> def log(scale):
    ...     prompt = rng.integers(1, 2000, 300)
    ...     return RequestLog(np.arange(300.0), prompt, np.maximum(1, prompt // scale + rng.integers(0, 5, 300)))
    >>> logs = {"a": log(10), "b": log(3)}
    >>> tables = accuracy_across(logs, {"a": {}, "b": {}})
    >>> [r.name.split(" (")[1] for r in tables["a"].rows]
    ['trained on a)', 'trained on a)', 'trained on b)', 'trained on b)']
    """
    out = {}
    for target, log in logs.items():
        started = time.perf_counter()
        train, test = time_split(log, train_fraction)
        rows: list[AccuracyRow] = []
        for source, source_log in logs.items():
            fit, _ = time_split(source_log, train_fraction)
            kinds = models.get(source, {})
            dist = kinds.get("dist") or next(iter(kinds.values()), None)
            theta = dist.theta if dist is not None else one_bit_parameters(source_log.output[fit], None)[0]
            edges = list(dist.edges) if dist is not None and dist.edges else log_spaced_edges(
                int(source_log.output[fit].max()), 16)
            rows += baseline_rows(log, fit, test, theta=theta, edges=edges, fit=source_log,
                                  suffix=f" (trained on {source})")
            rows += [evaluate_model(model, log, test, name=f"learned {kind} (trained on {source})")
                     for kind, model in kinds.items()]
        own = models.get(target, {})
        theta = next(iter(own.values())).theta if own else one_bit_parameters(log.output[train], None)[0]
        out[target] = AccuracyTable("completed", f"{len(rows)} predictors trained on {len(logs)} traces, tested on "
                                    f"{target}", time.perf_counter() - started, tuple(rows), int(train.size),
                                    int(test.size), theta)
    return out


def format_accuracy_table(rows: Sequence[AccuracyRow]) -> str:
    """Aligned text: one line per predictor, ``-`` where a metric does not apply."""
    def cell(value: Any, digits: int = 3) -> str:
        return "-" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)

    width = max([22, *(len(r.name) for r in rows)])
    header = (f"{'predictor':<{width}} {'medAE':>7} {'MAE':>7} {'Spearman':>8} {'1bit acc':>8} {'flip S':>7} "
              f"{'flip L':>7} {'NLL':>7} {'CRPS':>7} {'cov50':>6} {'cov90':>6}")
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(f"{r.name:<{width}} {cell(r.median_ae, 1):>7} {cell(r.mean_ae, 1):>7} {cell(r.spearman):>8} "
                     f"{cell(r.accuracy):>8} {cell(r.flip_short):>7} {cell(r.flip_long):>7} {cell(r.nll):>7} "
                     f"{cell(r.crps, 1):>7} {cell(r.coverage50):>6} {cell(r.coverage90):>6}")
    return "\n".join(lines)
