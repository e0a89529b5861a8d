"""An empirical output-length distribution per prompt-length bucket, fitted without look-ahead.

SageSched (Gan et al., arXiv 2603.07917) predicts a *distribution* of output lengths "from
prompt content plus past results". Until a learned distribution model is available to the
cluster, this module gives the simplest honest one: the requests of a *training* part (the
first fraction of the workload in arrival order; :func:`time_ordered_split`) are grouped by
prompt length into buckets of about equal counts, and each bucket's predicted distribution
is the histogram of its outputs over about log-spaced bins
(:func:`~geosched.reference_impl.predictors.log_spaced_edges`), a
:class:`~geosched.reference_impl.predictors.LengthDistribution` (uniform inside a bin). A
bucket with fewer than ``min_count`` requests uses the histogram of the whole training part.
Nothing of the part being served is seen: its requests are only looked up by prompt length.

The cluster simulator takes any callable ``request -> LengthDistribution``
(:class:`EmpiricalLengthModel` is one, :func:`oracle_distribution` another). The learned
distribution model of :mod:`geosched.reference_impl.predictors` (issue 13: prompt length and the
recent outputs of finished requests, SageSched's "prompt content plus past results") plugs in
through :func:`learned_distribution` (``lengths="learned"``; needs torch, ``geosched[predict]``).

Example
-------
>>> from geosched.reference_impl.model import Request
>>> train = [Request(f"r{k}", k, s, o) for k, (s, o) in enumerate([(10, 2), (10, 4), (900, 50), (800, 70)])]
>>> model = EmpiricalLengthModel.fit(train, prompt_buckets=2, length_bins=4, min_count=1)
>>> model.prompt_edges  # two buckets: prompts below 405 and the rest
(405,)
>>> model(Request("x", 9, 12, 1)).mean()  # outputs 2 and 4 fall in bins [1, 2] and [3, 7]: (1.5 + 5) / 2
3.25
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.predictors import LengthDistribution, log_spaced_edges

__all__ = ["EmpiricalLengthModel", "time_ordered_split", "oracle_distribution", "ServingSplit", "serving_split",
           "learned_distribution", "LENGTH_SOURCES"]

LENGTH_SOURCES = ("empirical", "oracle", "learned")


def time_ordered_split(instance: Instance, train_fraction: float) -> tuple[list[Request], list[Request]]:
    """``(train, serve)``: the first ``train_fraction`` of the requests by ``(arrival, position)``, and the rest.

    >>> from geosched.reference_impl.model import burst_instance
    >>> [len(part) for part in time_ordered_split(burst_instance(10, [(1, 1)] * 10), 0.3)]
    [3, 7]
    """
    if not 0 <= train_fraction < 1:
        raise ValidationError("train_fraction", train_fraction, "must be in [0, 1)")
    ordered = sorted(range(instance.n), key=lambda i: (instance.requests[i].arrival, i))
    cut = int(train_fraction * instance.n)
    return [instance.requests[i] for i in ordered[:cut]], [instance.requests[i] for i in ordered[cut:]]


def oracle_distribution(request: Request) -> LengthDistribution:
    """A point mass on the true output length (the perfect predictor, for references and tests)."""
    return LengthDistribution.point(request.output)


@dataclass(frozen=True)
class EmpiricalLengthModel:
    """Per-prompt-bucket histograms of output lengths: ``model(request) -> LengthDistribution``."""

    prompt_edges: tuple[int, ...]  # bucket k holds prompts in [edges[k-1], edges[k]); k = 0 below edges[0]
    distributions: tuple[LengthDistribution, ...]  # one per bucket (len(prompt_edges) + 1)
    counts: tuple[int, ...]  # training requests per bucket
    training_requests: int  # size of the training part

    @classmethod
    def fit(cls, train: Sequence[Request], *, prompt_buckets: int = 8, length_bins: int = 16,
            min_count: int = 30) -> EmpiricalLengthModel:
        """Fit on ``train`` (the past): bucket edges at prompt-length quantiles, log-spaced length bins."""
        if not train:
            raise ValidationError("training requests", 0, "need at least one request to fit a distribution")
        if prompt_buckets < 1 or length_bins < 1:
            raise ValidationError("prompt_buckets, length_bins", (prompt_buckets, length_bins), "must be >= 1")
        prompts = np.array([r.prompt for r in train], dtype=np.int64)
        outputs = np.array([r.output for r in train], dtype=np.int64)
        quantiles = np.quantile(prompts, np.arange(1, prompt_buckets) / prompt_buckets) if prompt_buckets > 1 else []
        prompt_edges = tuple(sorted({int(np.ceil(q)) for q in quantiles}))
        length_edges = log_spaced_edges(int(outputs.max()), length_bins)
        overall = _histogram(outputs, length_edges)
        bucket_of = np.searchsorted(np.array(prompt_edges, dtype=np.int64), prompts, side="right")
        distributions, counts = [], []
        for bucket in range(len(prompt_edges) + 1):
            members = outputs[bucket_of == bucket]
            counts.append(int(members.size))
            distributions.append(_histogram(members, length_edges) if members.size >= min_count else overall)
        return cls(prompt_edges, tuple(distributions), tuple(counts), len(train))

    def bucket(self, prompt: int) -> int:
        """The bucket of a prompt length."""
        return bisect.bisect_right(self.prompt_edges, prompt)

    def __call__(self, request: Request) -> LengthDistribution:
        return self.distributions[self.bucket(request.prompt)]


def _histogram(outputs: np.ndarray, edges: list[int]) -> LengthDistribution:
    counts, _ = np.histogram(outputs, bins=np.array(edges, dtype=np.float64) - 0.5)
    return LengthDistribution.from_bins(edges, (counts / counts.sum()).tolist())


@dataclass(frozen=True)
class ServingSplit:
    """A workload cut in time: the past to learn from, and the requests to serve."""

    train: tuple[Request, ...]  # the first part in arrival order (seen only by the predictor)
    serve: tuple[Request, ...]  # the rest, to be served
    distribution: Callable[[Request], LengthDistribution]  # the predicted distribution of a request
    lengths: str  # "empirical", "oracle" or "learned"


def serving_split(instance: Instance, *, train_fraction: float = 0.3, lengths: str = "empirical",
                  prompt_buckets: int = 8, length_bins: int = 16, step_seconds: float = 0.025,
                  model: str | None = None) -> ServingSplit:
    """Split ``instance`` in time and fit the predictor on the first part (``oracle``: no fit;
    ``learned``: the trained distribution model ``model``, default the shipped one, which needs
    ``train_fraction`` at least the fraction it was trained on, so that no served request was
    in its training data; arrival step ``a`` is ``a * step_seconds`` seconds).

    >>> from geosched.reference_impl.workloads import generate
    >>> split = serving_split(generate("chat", n=100, seed=1), train_fraction=0.5)
    >>> len(split.train), len(split.serve), split.distribution(split.serve[0]).mean() > 1
    (50, 50, True)
    """
    if lengths not in LENGTH_SOURCES:
        raise ValidationError("lengths", lengths, f"must be one of {', '.join(LENGTH_SOURCES)}")
    train, serve = time_ordered_split(instance, train_fraction)
    if lengths == "oracle":
        return ServingSplit(tuple(train), tuple(serve), oracle_distribution, lengths)
    if lengths == "learned":
        return ServingSplit(tuple(train), tuple(serve),
                            learned_distribution(instance, step_seconds=step_seconds, model=model,
                                                 train_fraction=train_fraction), lengths)
    if not train:
        raise ValidationError("train_fraction", train_fraction, "leaves no request to fit the empirical predictor on")
    model = EmpiricalLengthModel.fit(train, prompt_buckets=prompt_buckets, length_bins=length_bins)
    return ServingSplit(tuple(train), tuple(serve), model, lengths)


def learned_distribution(instance: Instance, *, step_seconds: float = 0.025, model: str | None = None,
                         train_fraction: float | None = None) -> Callable[[Request], LengthDistribution]:
    """The trained distribution model's prediction for every request of ``instance``, by id.

    Features come from :func:`geosched.reference_impl.predictors.features.feature_matrix`: a
    request's history holds only requests that finished (nominally) before it arrived. With
    ``train_fraction`` given, it must be at least the fraction of the trace the model was
    trained on (its provenance), else served requests would have been training data.

    Raises
    ------
    MissingExtraError
        Without torch (``pip install 'geosched[predict]'``).
    ValidationError
        For a model that is not a distribution model, or a ``train_fraction`` below its own.
    """
    from geosched.reference_impl.predictors.artifact import default_model_path, load_model
    from geosched.reference_impl.predictors.features import RequestLog, feature_matrix

    path = model if model is not None else default_model_path("dist")
    loaded = load_model(path, kind="dist")
    trained_on = loaded.provenance.get("config", {}).get("train_fraction")
    if train_fraction is not None and trained_on is not None and train_fraction < trained_on:
        raise ValidationError("train_fraction", train_fraction,
                              f"must be >= {trained_on}, the part of the trace the model {path} was trained on")
    log = RequestLog.from_instance(instance, step_seconds)
    rows = feature_matrix(log, loaded.features, step_seconds=step_seconds)
    by_id = {r.id: d for r, d in zip(instance.requests, loaded.distributions(rows))}
    return lambda request: by_id[request.id]
