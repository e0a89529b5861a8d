"""Features a production trace has, with no look-ahead (SageSched's history features).

The shared Azure trace has a timestamp, the prompt length and the output length of each
request, no text. The features of request ``i`` (arriving at ``a_i`` seconds) are:

* ``log_prompt``: ``log(1 + s_i)``;
* ``hours_since_start``: ``a_i / 3600``; ``time_of_day_sin``/``time_of_day_cos``: the clock
  time of ``a_i`` on the 24 h circle (needs the log's ``clock_origin``). Not in the default set:
  in a time-ordered split they take values at test time that training never saw (a one-hour
  trace's time of day is its time since start), and the history features below already follow
  the drift;
* the *history*: statistics of the outputs of the requests that had **finished** before
  ``a_i`` (Gan et al., SageSched, arXiv 2603.07917, Sec. 4: predictions from past results),
  overall (``hist_*``) and among requests of a similar prompt length (``bucket_*``, same
  ``floor(log2(1 + s))``): the log-count, the mean of ``log o`` and an exponentially weighted
  mean and spread of ``log o`` over the most recent completions (half-life
  :data:`HALF_LIFE` completions). Before any completion the means start from
  :data:`PRIOR_LOG_OUTPUT`.

**Completion time.** The trace has no completion times. Request ``j`` is taken to finish at
its *nominal* completion time ``c_j = a_j + o_j * step_seconds`` (decoding at one token per
step, ``step_seconds`` = :data:`~geosched.reference_impl.workloads.DEFAULT_STEP_SECONDS`
unless given); it counts in the history of request ``i`` iff ``c_j <= a_i``. Because
``o_j >= 1``, ``c_j > a_j``: no request counts in its own history nor in that of a request that
arrived at the same time or before it. ``c_j`` is a lower bound on any schedule's completion,
so on a *simulated* schedule the history may include a request that has not finished there
yet; in the vLLM plugin the history is fed by real completions instead
(:mod:`geosched.reference_impl.predictors.background`).

:class:`HistoryState` is the one implementation, incremental: the batch function
:func:`history_features` and the online worker both replay completions and arrivals through it.

Example
-------
>>> log = RequestLog(arrival_seconds=[0.0, 1.0, 100.0], prompt=[10, 10, 10], output=[4, 8, 8])
>>> x = feature_matrix(log, ("hist_log_count",), step_seconds=1.0)
>>> x[:, 0].round(3).tolist()  # finished before: none; none (c_0 = 4 > 1); both
[0.0, 0.0, 1.099]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.errors import ValidationError

__all__ = [
    "FEATURE_VERSION",
    "FEATURES",
    "DEFAULT_FEATURES",
    "HISTORY_FEATURES",
    "HALF_LIFE",
    "PRIOR_LOG_OUTPUT",
    "NOMINAL_STEP_SECONDS",
    "RequestLog",
    "HistoryState",
    "prompt_bucket",
    "history_features",
    "feature_matrix",
    "feature_row",
    "check_features",
]

FEATURE_VERSION = 1  # bump when a feature's definition changes: saved models record it
NOMINAL_STEP_SECONDS = 0.025  # = workloads.DEFAULT_STEP_SECONDS: one decode step, seconds per token
HALF_LIFE = 64  # completions: weight of the k-th most recent completion is 2^(-k / HALF_LIFE)
PRIOR_LOG_OUTPUT = math.log(100.0)  # the means' starting value before any completion
_BUCKETS = 16  # prompt buckets floor(log2(1 + s)), the last one open-ended

HISTORY_FEATURES: tuple[str, ...] = (
    "hist_log_count",
    "hist_mean_log_output",
    "hist_recent_log_output",
    "hist_recent_log_spread",
    "bucket_log_count",
    "bucket_mean_log_output",
    "bucket_recent_log_output",
)

FEATURES: dict[str, str] = {
    "log_prompt": "log(1 + prompt tokens)",
    "hours_since_start": "arrival seconds / 3600",
    "time_of_day_sin": "sin(2 pi clock / 24 h) at arrival (needs clock_origin)",
    "time_of_day_cos": "cos(2 pi clock / 24 h) at arrival (needs clock_origin)",
    "hist_log_count": "log(1 + number of requests finished before arrival)",
    "hist_mean_log_output": "mean log(output) of the finished requests",
    "hist_recent_log_output": "exponentially weighted mean log(output) of recent completions",
    "hist_recent_log_spread": "exponentially weighted std of log(output) of recent completions",
    "bucket_log_count": "log(1 + finished requests in the same prompt bucket)",
    "bucket_mean_log_output": "mean log(output) of the finished requests in the same prompt bucket",
    "bucket_recent_log_output": "exponentially weighted mean log(output) in the same prompt bucket",
}

# Chosen on a validation split inside the training part (docs/predictions.md): the prompt and the
# recent history; the full history set and the time features did worse there.
DEFAULT_FEATURES: tuple[str, ...] = ("log_prompt", "hist_recent_log_output")


@dataclass(frozen=True)
class RequestLog:
    """Requests on a time line: what the features are computed from.

    Arrays are aligned, in any order (features never depend on the position); outputs are
    read only through the history rule of the module docstring.
    """

    arrival_seconds: Any  # seconds since the log's origin, float array
    prompt: Any  # prompt tokens, int array
    output: Any  # output tokens (>= 1), int array; used only for the history of later requests
    clock_origin: float | None = None  # seconds after midnight at arrival 0 (None: unknown)
    texts: tuple[str, ...] | None = None  # request text, for a text hook (None: the trace has none)

    def __post_init__(self) -> None:
        arrival = np.asarray(self.arrival_seconds, dtype=np.float64)
        prompt = np.asarray(self.prompt, dtype=np.int64)
        output = np.asarray(self.output, dtype=np.int64)
        if not (arrival.ndim == prompt.ndim == output.ndim == 1) or not (arrival.size == prompt.size == output.size):
            raise ValidationError("request log", (arrival.shape, prompt.shape, output.shape),
                                  "arrival, prompt and output must be 1-d arrays of one length")
        if not np.all(np.isfinite(arrival)) or (arrival.size and arrival.min() < 0):
            raise ValidationError("arrival_seconds", "non-finite or negative", "must be finite and >= 0")
        if prompt.size and prompt.min() < 0:
            raise ValidationError("prompt", int(prompt.min()), "must be >= 0")
        if output.size and output.min() < 1:
            raise ValidationError("output", int(output.min()), "must be >= 1")
        if self.texts is not None and len(self.texts) != arrival.size:
            raise ValidationError("texts", len(self.texts), f"need one text per request ({arrival.size})")
        object.__setattr__(self, "arrival_seconds", arrival)
        object.__setattr__(self, "prompt", prompt)
        object.__setattr__(self, "output", output)

    @property
    def n(self) -> int:
        """Number of requests."""
        return int(self.prompt.size)

    @classmethod
    def from_instance(cls, instance: Any, step_seconds: float = NOMINAL_STEP_SECONDS) -> RequestLog:
        """The log of an :class:`~geosched.reference_impl.model.Instance`: arrival step ``a`` is
        ``a * step_seconds`` seconds (the inverse of the trace reader's online replay)."""
        _check_step(step_seconds)
        requests = instance.requests
        return cls([r.arrival * step_seconds for r in requests], [r.prompt for r in requests],
                   [r.output for r in requests])

    def subset(self, index: Any) -> RequestLog:
        """The requests at ``index`` (an index array or a slice), same origin."""
        texts = None if self.texts is None else tuple(np.asarray(self.texts, dtype=object)[index])
        return RequestLog(self.arrival_seconds[index], self.prompt[index], self.output[index], self.clock_origin,
                          texts)


def _check_step(step_seconds: float) -> None:
    if not (isinstance(step_seconds, (int, float)) and math.isfinite(step_seconds) and step_seconds > 0):
        raise ValidationError("step_seconds", step_seconds, "must be a positive number")


def prompt_bucket(prompt: int) -> int:
    """``min(floor(log2(1 + s)), 15)``: requests of a similar prompt length share a bucket.

    >>> [prompt_bucket(s) for s in (0, 1, 2, 3, 1000, 10**9)]
    [0, 1, 1, 2, 9, 15]
    """
    return min(int(prompt + 1).bit_length() - 1, _BUCKETS - 1)


class _Running:
    """Count, mean and an exponentially weighted mean/second moment of ``log o``."""

    __slots__ = ("count", "total", "recent", "recent_sq")
    decay = 0.5 ** (1.0 / HALF_LIFE)

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.recent = PRIOR_LOG_OUTPUT
        self.recent_sq = PRIOR_LOG_OUTPUT**2

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        # the first completion replaces the prior with weight 1/2, later ones with 1 - decay
        weight = max(1.0 - self.decay, 1.0 / (self.count + 1))
        self.recent += weight * (value - self.recent)
        self.recent_sq += weight * (value * value - self.recent_sq)

    def mean(self) -> float:
        return (self.total + PRIOR_LOG_OUTPUT) / (self.count + 1)

    def spread(self) -> float:
        return math.sqrt(max(0.0, self.recent_sq - self.recent**2))


class HistoryState:
    """The history features as completions arrive, one request at a time (no look-ahead).

    Call :meth:`observe` for each completion in completion order and :meth:`features` for an
    arriving request: the values depend only on the completions observed so far.

    >>> state = HistoryState()
    >>> state.observe(prompt=10, output=100)
    >>> [round(v, 3) for v in state.features(prompt=12)[:2]]  # log 2, (log 100 + prior) / 2
    [0.693, 4.605]
    """

    __slots__ = ("overall", "buckets")

    def __init__(self) -> None:
        self.overall = _Running()
        self.buckets = [_Running() for _ in range(_BUCKETS)]

    def observe(self, prompt: int, output: int) -> None:
        """A request with this prompt finished after ``output`` tokens."""
        value = math.log(output)
        self.overall.add(value)
        self.buckets[prompt_bucket(prompt)].add(value)

    def features(self, prompt: int) -> tuple[float, ...]:
        """The :data:`HISTORY_FEATURES` of a request with this prompt arriving now."""
        overall, bucket = self.overall, self.buckets[prompt_bucket(prompt)]
        return (math.log1p(overall.count), overall.mean(), overall.recent, overall.spread(),
                math.log1p(bucket.count), bucket.mean(), bucket.recent)


def history_features(log: RequestLog, step_seconds: float = NOMINAL_STEP_SECONDS) -> np.ndarray:
    """The :data:`HISTORY_FEATURES` of every request of ``log``, shape ``(n, 7)``.

    Completions (at ``c_j = a_j + o_j * step_seconds``) are replayed in order of ``(c_j, a_j,
    position)`` and arrivals in order of ``a_i``; every completion with ``c_j <= a_i`` is
    observed before the features of ``i`` are read.

    >>> log = RequestLog([0.0, 0.5, 3.0], [1, 1, 1], [2, 5, 9])
    >>> history_features(log, step_seconds=1.0)[:, 0].round(3).tolist()  # c = 2, 5.5, 12
    [0.0, 0.0, 0.693]
    """
    _check_step(step_seconds)
    n = log.n
    arrival, prompt, output = log.arrival_seconds, log.prompt, log.output
    completion = arrival + output * step_seconds
    by_arrival = np.argsort(arrival, kind="stable")
    by_completion = np.lexsort((np.arange(n), arrival, completion))
    rows = np.empty((n, len(HISTORY_FEATURES)), dtype=np.float64)
    state = HistoryState()
    done = 0
    for i in by_arrival.tolist():
        now = arrival[i]
        while done < n and completion[by_completion[done]] <= now:
            j = by_completion[done]
            state.observe(int(prompt[j]), int(output[j]))
            done += 1
        rows[i] = state.features(int(prompt[i]))
    return rows


def check_features(names: Sequence[str], log: RequestLog | None = None) -> tuple[str, ...]:
    """Validate feature names (and that ``log`` can provide them); returns them as a tuple."""
    names = tuple(names)
    if not names:
        raise ValidationError("features", names, "need at least one feature")
    unknown = [name for name in names if name not in FEATURES]
    if unknown:
        raise ValidationError("features", unknown, f"unknown; known: {', '.join(FEATURES)}")
    if len(set(names)) != len(names):
        raise ValidationError("features", names, "must not repeat")
    needs_clock = any(name.startswith("time_of_day") for name in names)
    if log is not None and needs_clock and log.clock_origin is None:
        raise ValidationError("features", [n for n in names if n.startswith("time_of_day")],
                              "need the log's clock_origin (time of day of the first arrival)")
    return names


def feature_matrix(
    log: RequestLog,
    names: Sequence[str] = DEFAULT_FEATURES,
    *,
    step_seconds: float = NOMINAL_STEP_SECONDS,
    text_hook: Callable[[str], Sequence[float]] | None = None,
) -> np.ndarray:
    """The feature matrix of ``log``: one row per request, the columns ``names`` in order,
    then the text hook's values when one is given.

    Parameters
    ----------
    log : RequestLog
        The requests.
    names : sequence of str
        Feature names from :data:`FEATURES` (default :data:`DEFAULT_FEATURES`).
    step_seconds : float
        Seconds per output token for the nominal completion time of the history rule.
    text_hook : callable, optional
        ``text -> sequence of floats`` (the same length for every text): features of the
        request's text, for traces that carry it (``log.texts``).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, len(names) + text columns)``, float64.

    Raises
    ------
    ValidationError
        Unknown names; time-of-day features without a clock origin; a text hook without texts
        or returning rows of different lengths.

    Examples
    --------
    >>> log = RequestLog([0.0, 2.0], [0, 6], [1, 1], texts=("hi", "hello"))
    >>> feature_matrix(log, ("log_prompt",), text_hook=lambda t: [len(t)]).round(3).tolist()
    [[0.0, 2.0], [1.946, 5.0]]
    """
    names = check_features(names, log)
    columns: list[np.ndarray] = []
    history = history_features(log, step_seconds) if any(n in HISTORY_FEATURES for n in names) else None
    for name in names:
        if name == "log_prompt":
            columns.append(np.log1p(log.prompt.astype(np.float64)))
        elif name == "hours_since_start":
            columns.append(log.arrival_seconds / 3600.0)
        elif name.startswith("time_of_day"):
            angle = 2 * math.pi * ((log.clock_origin + log.arrival_seconds) % 86400.0) / 86400.0
            columns.append(np.sin(angle) if name.endswith("sin") else np.cos(angle))
        else:
            columns.append(history[:, HISTORY_FEATURES.index(name)])
    matrix = np.column_stack(columns) if columns else np.empty((log.n, 0))
    if text_hook is None:
        return matrix
    if log.texts is None:
        raise ValidationError("text_hook", getattr(text_hook, "__name__", text_hook), "the log carries no texts")
    text_rows = [np.asarray(text_hook(text), dtype=np.float64).ravel() for text in log.texts]
    widths = {row.size for row in text_rows}
    if len(widths) > 1:
        raise ValidationError("text_hook", sorted(widths), "must return the same number of values for every text")
    return np.column_stack([matrix, np.vstack(text_rows)]) if text_rows else matrix


def feature_row(
    names: Sequence[str],
    prompt: int,
    history: HistoryState,
    *,
    seconds_since_start: float = 0.0,
    clock_seconds: float | None = None,
) -> list[float]:
    """One request's features, online: the same definitions as :func:`feature_matrix`.

    ``history`` holds the completions observed so far; ``clock_seconds`` (seconds after
    midnight at arrival) is needed only by the time-of-day features. The online worker of
    :mod:`~geosched.reference_impl.predictors.background` uses this; a test checks it against
    :func:`feature_matrix` on a replayed log.

    >>> [round(v, 4) for v in feature_row(("log_prompt", "hist_log_count"), 6, HistoryState())]  # log 7, log 1
    [1.9459, 0.0]
    """
    values = history.features(prompt) if any(n in HISTORY_FEATURES for n in names) else ()
    row = []
    for name in names:
        if name == "log_prompt":
            row.append(math.log1p(prompt))
        elif name == "hours_since_start":
            row.append(seconds_since_start / 3600.0)
        elif name.startswith("time_of_day"):
            if clock_seconds is None:
                raise ValidationError("features", name, "needs the clock time of the arrival")
            angle = 2 * math.pi * (clock_seconds % 86400.0) / 86400.0
            row.append(math.sin(angle) if name.endswith("sin") else math.cos(angle))
        else:
            row.append(values[HISTORY_FEATURES.index(name)])
    return row
