"""Predictions off the scheduling critical path: a background worker that batches requests.

SVF's deployment runs its length predictor beside vLLM, not inside the scheduler step (Kong et
al., arXiv 2606.22327, experiments). :class:`BackgroundPredictor` does the same for a
:class:`~geosched.reference_impl.predictors.learned.LengthModel`:

* the scheduler calls :meth:`~BackgroundPredictor.submit` when a request arrives and
  :meth:`~BackgroundPredictor.finished` when one completes: both only append an event to a
  queue (O(1), no feature computation, no torch);
* a worker thread takes every pending event, in order, replays them through one
  :class:`~geosched.reference_impl.predictors.features.HistoryState` (so each arrival's history
  holds exactly the completions reported before it: no look-ahead), builds the feature rows and
  runs the model **once per batch**, then publishes the predictions;
* the scheduler reads :meth:`~BackgroundPredictor.get`: the prediction when it is ready, else
  ``None``, and then uses :attr:`~BackgroundPredictor.fallback` (by default the model's
  ``theta``: the median training output unless another threshold was trained) until the
  prediction arrives.

With ``start=False`` no thread runs and :meth:`~BackgroundPredictor.drain` processes the pending
events in the caller's thread: tests use it to place "prediction ready" at an exact step.
:meth:`~BackgroundPredictor.wait_idle` waits for the thread to empty the queue.

Example
-------
>>> from geosched.reference_impl.predictors.artifact import load_default_model
>>> worker = BackgroundPredictor(load_default_model("point"), start=False)
>>> worker.submit("a", prompt_tokens=500, arrival_time=0.0)
>>> worker.get("a") is None, worker.drain(), worker.get("a") is not None
(True, 1, True)
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from geosched.errors import ValidationError
from geosched.reference_impl.predictors.features import HistoryState, check_features, feature_row
from geosched.reference_impl.predictors.learned import POINT_MODES, LengthModel

__all__ = ["BackgroundPredictor", "WorkerStats"]


@dataclass(frozen=True)
class WorkerStats:
    """What the worker has done so far."""

    predicted: int  # requests with a published prediction
    batches: int  # model calls
    busy_seconds: float  # CPU seconds of the worker thread in features + model calls (time.thread_time)
    largest_batch: int  # most requests in one model call
    fallbacks: int  # get() calls that found no prediction yet

    @property
    def seconds_per_request(self) -> float:
        """Worker time per predicted request."""
        return self.busy_seconds / self.predicted if self.predicted else 0.0


class BackgroundPredictor:
    """Batched, asynchronous length predictions for an online scheduler (module docstring).

    Parameters
    ----------
    model : LengthModel
        The trained model (its features may use the prompt, the history and the time).
    fallback : int, optional
        Length used while a prediction is not ready (default ``model.theta``).
    point : str
        How a dist model becomes one length: ``median``, ``mean`` or ``volume``.
    max_batch : int
        Most arrivals in one model call.
    start : bool
        Start the worker thread now (``False``: call :meth:`drain` yourself).
    """

    def __init__(self, model: LengthModel, *, fallback: int | None = None, point: str = "median",
                 max_batch: int = 256, start: bool = True) -> None:
        if model.text_features:
            raise ValidationError("model", "text features", "the online worker has no request text")
        check_features(model.features)
        if point not in POINT_MODES:
            raise ValidationError("point", point, f"must be one of {', '.join(POINT_MODES)}")
        self.model = model
        self.fallback = int(fallback if fallback is not None else model.theta)
        if self.fallback < 1:
            raise ValidationError("fallback", self.fallback, "must be >= 1")
        self.point = point
        self.max_batch = max_batch
        self._events: collections.deque[tuple] = collections.deque()
        self._ready: dict[str, int] = {}
        self._history = HistoryState()
        self._origin: float | None = None
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._in_flight = 0
        self._closed = False
        self._stats = [0, 0, 0.0, 0, 0]
        self._thread: threading.Thread | None = None
        self._needs_clock = any(name.startswith("time_of_day") for name in model.features)
        if start:
            self._thread = threading.Thread(target=self._run, name="geosched-predictor", daemon=True)
            self._thread.start()

    # ---------------------------------------------------------------- scheduler side (O(1))
    def submit(self, request_id: str, prompt_tokens: int, arrival_time: float | None = None) -> None:
        """A request arrived (``arrival_time`` in seconds, e.g. vLLM's ``time.time()``)."""
        with self._lock:
            self._events.append(("arrive", request_id, int(prompt_tokens),
                                 time.time() if arrival_time is None else float(arrival_time)))
            self._wake.notify()

    def finished(self, prompt_tokens: int, output_tokens: int) -> None:
        """A request completed after ``output_tokens`` tokens: later arrivals see it in their history."""
        if output_tokens >= 1:
            with self._lock:
                self._events.append(("finish", int(prompt_tokens), int(output_tokens)))
                self._wake.notify()

    def get(self, request_id: str) -> int | None:
        """The prediction of ``request_id`` if it is ready, else ``None`` (then use :attr:`fallback`)."""
        value = self._ready.get(request_id)
        if value is None:
            self._stats[4] += 1
        return value

    def forget(self, request_id: str) -> None:
        """Drop a published prediction (the request left the scheduler)."""
        self._ready.pop(request_id, None)

    def __call__(self, query: Any) -> int:
        """The ``LengthQuery -> int`` interface: the ready prediction or the fallback (never blocks)."""
        value = self.get(query.request_id)
        return self.fallback if value is None else value

    # ---------------------------------------------------------------- worker side
    def drain(self) -> int:
        """Process every pending event in the caller's thread; returns the predictions published."""
        published = 0
        while True:
            with self._lock:
                batch = self._take()
            if not batch:
                return published
            published += self._process(batch)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no event is pending or in flight (the thread caught up); ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._events or self._in_flight:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._wake.wait(remaining)
        return True

    def close(self) -> None:
        """Stop the thread (pending events are processed first)."""
        with self._lock:
            self._closed = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)

    @property
    def completions_seen(self) -> int:
        """Completions replayed into the history so far."""
        return self._history.overall.count

    def stats(self) -> WorkerStats:
        """Counters of the work done so far."""
        predicted, batches, busy, largest, fallbacks = self._stats
        return WorkerStats(predicted, batches, busy, largest, fallbacks)

    def _take(self) -> list[tuple]:
        """Pending events up to ``max_batch`` arrivals, in order (the lock is held)."""
        batch: list[tuple] = []
        arrivals = 0
        while self._events and arrivals < self.max_batch:
            event = self._events.popleft()
            batch.append(event)
            arrivals += event[0] == "arrive"
        self._in_flight += 1 if batch else 0
        return batch

    def _process(self, batch: list[tuple]) -> int:
        started = time.thread_time()  # this thread's CPU time: waiting for the GIL does not count
        try:
            ids, prompts, rows = [], [], []
            for event in batch:
                if event[0] == "finish":
                    self._history.observe(event[1], event[2])
                    continue
                _, request_id, prompt, arrival = event
                if self._origin is None:
                    self._origin = arrival
                clock = None
                if self._needs_clock:
                    local = time.localtime(arrival)
                    clock = local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec + arrival % 1.0
                rows.append(feature_row(self.model.features, prompt, self._history,
                                        seconds_since_start=arrival - self._origin, clock_seconds=clock))
                ids.append(request_id)
                prompts.append(prompt)
            if rows:
                lengths = self.model.predict_lengths(np.array(rows), np.array(prompts), self.point)
                self._ready.update(zip(ids, (int(v) for v in lengths)))
                self._stats[1] += 1
                self._stats[3] = max(self._stats[3], len(rows))
            self._stats[0] += len(rows)
            return len(rows)
        finally:
            self._stats[2] += time.thread_time() - started
            with self._lock:
                self._in_flight -= 1
                self._wake.notify_all()

    def _run(self) -> None:
        # build the module and pay the first call's set-up before any request waits on it
        self.model.predict_lengths(np.zeros((1, self.model.inputs)), np.ones(1, dtype=np.int64), self.point)
        while True:
            with self._lock:
                while not self._events and not self._closed:
                    self._wake.wait()
                if self._closed and not self._events:
                    return
                batch = self._take()
            self._process(batch)
