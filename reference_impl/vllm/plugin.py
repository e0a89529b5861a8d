"""The geosched scheduler for vLLM 0.33: SVF, SJF, 1-bit SVF and FCFS as a V1 ``Scheduler``.

Turn it on with (``docs/vllm.md`` has the full recipe)::

    LLM(model=..., scheduler_cls="geosched.reference_impl.vllm.plugin.GeoschedScheduler",
        additional_config={"geosched": {"policy": "svf", "mode": "paper"}},
        async_scheduling=False)

or ``vllm serve MODEL --scheduler-cls geosched.reference_impl.vllm.plugin.GeoschedScheduler
--additional-config '{"geosched": {"policy": "svf"}}'``, or the ``GEOSCHED_*`` environment
variables (:mod:`geosched.reference_impl.vllm.config`).

What it changes in vLLM's ``Scheduler`` (``vllm/v1/core/sched/scheduler.py``):

* **Order.** Both waiting queues become :class:`KeyOrderedQueue`: ascending ``(key,
  arrival_time, request_id)`` with ``key`` the registry policy's key of the model request
  ``(s, o_hat) = (prompt_tokens - 1, predicted output)``
  (:func:`geosched.reference_impl.vllm.config.order_key`). A preempted request re-enters
  by its key. With ``SchedulerConfig(policy="priority")`` the request's ``priority`` is set
  to the key, so vLLM's victim (largest ``(priority, arrival_time)``) is the largest key;
  with ``policy="fcfs"`` the victim stays vLLM's last running request.
* **Admission** (``mode="paper"`` only). Before vLLM's own waiting loop, the waiting
  requests are offered in order to :class:`~geosched.reference_impl.vllm.admission.PaperGate`
  (the verified simulator's forward-looking check over predicted lengths); only the admitted
  prefix is left in the queue vLLM scans, the rest is put back after ``schedule()``. With
  exact predictions, block size 1 and budgets that never bind, nothing is ever preempted and
  the start steps equal :func:`geosched.reference_impl.simulation.simulate`'s (tested by the
  differential harness). ``mode="native"`` keeps vLLM's on-demand allocation and preemption.
* **Learned predictions off the critical path** (``predictor="learned:..."`` or a
  :class:`~geosched.reference_impl.predictors.background.BackgroundPredictor`). ``add_request``
  only submits the request to the worker and keys it by the worker's ``fallback`` length; every
  completion is reported to the worker (its history features). At the start of each
  ``schedule()`` call, every still-waiting request whose prediction has become ready is re-keyed
  and re-sorted; a request admitted before its prediction was ready keeps the fallback as its
  belief (the gate's belief is fixed at admission, then grows as in the simulator).

Importing this module imports vLLM; the package :mod:`geosched.reference_impl.vllm` does not.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from vllm.v1.core.sched.request_queue import RequestQueue
from vllm.v1.core.sched.scheduler import Scheduler
from vllm.v1.request import Request

from geosched.reference_impl.vllm.admission import PaperGate
from geosched.reference_impl.vllm.config import GeoschedSchedulerConfig, LengthQuery, order_key

__all__ = ["GeoschedScheduler", "KeyOrderedQueue", "make_scheduler_class"]

_KEY_ATTR = "_geosched_key"
_PREDICTED_ATTR = "_geosched_predicted"
_POSITION_ATTR = "_geosched_position"


class KeyOrderedQueue(RequestQueue):
    """A waiting queue sorted by ``(key, arrival_time, position)``; ``prepend`` re-sorts too.

    ``position`` is the order in which the scheduler first saw the request (its place in the
    workload): ties never compare request ids, which are labels only. A request the scheduler
    did not stamp gets the queue's own first-seen number.
    """

    def __init__(self) -> None:
        self._keys: list[tuple[Any, float, int]] = []
        self._requests: list[Request] = []
        self._counter = itertools.count()

    def sort_key(self, request: Request) -> tuple[Any, float, int]:
        if getattr(request, _POSITION_ATTR, None) is None:
            setattr(request, _POSITION_ATTR, next(self._counter))
        return (getattr(request, _KEY_ATTR, 0), request.arrival_time, getattr(request, _POSITION_ATTR))

    def add_request(self, request: Request) -> None:
        entry = self.sort_key(request)
        position = bisect.bisect_right(self._keys, entry)
        self._keys.insert(position, entry)
        self._requests.insert(position, request)

    def pop_request(self) -> Request:
        if not self._requests:
            raise IndexError("pop from an empty queue")
        self._keys.pop(0)
        return self._requests.pop(0)

    def peek_request(self) -> Request:
        if not self._requests:
            raise IndexError("peek from an empty queue")
        return self._requests[0]

    def prepend_request(self, request: Request) -> None:
        self.add_request(request)

    def prepend_requests(self, requests: Iterable[Request]) -> None:
        for request in requests:
            self.add_request(request)

    def remove_request(self, request: Request) -> None:
        for position, queued in enumerate(self._requests):
            if queued is request:
                del self._requests[position]
                del self._keys[position]
                return
        raise ValueError(f"request {request.request_id!r} is not in the queue")

    def remove_requests(self, requests: Iterable[Request]) -> None:
        drop = {id(r) for r in requests}
        kept = [(k, r) for k, r in zip(self._keys, self._requests) if id(r) not in drop]
        self._keys = [k for k, _ in kept]
        self._requests = [r for _, r in kept]

    def __bool__(self) -> bool:
        return bool(self._requests)

    def __len__(self) -> int:
        return len(self._requests)

    def __iter__(self) -> Iterator[Request]:
        return iter(list(self._requests))

    def in_order(self) -> Iterator[Request]:
        """Iterate without copying (the queue must not change meanwhile)."""
        return iter(self._requests)


class GeoschedScheduler(Scheduler):
    """vLLM V1 scheduler ordering by (predicted) volume; see the module docstring.

    ``geosched_config`` (class attribute) overrides ``additional_config["geosched"]`` and the
    environment; :func:`make_scheduler_class` sets it.
    """

    geosched_config: GeoschedSchedulerConfig | None = None

    def __init__(self, vllm_config: Any, kv_cache_config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(vllm_config, kv_cache_config, *args, **kwargs)
        config = type(self).geosched_config
        if config is None:
            additional = vllm_config.additional_config
            section = additional.get("geosched") if isinstance(additional, dict) else None
            config = GeoschedSchedulerConfig.from_sources(section)
        self.geosched = config
        self._geo_policy = config.policy_object()
        self._geo_predict = config.predictor_callable()
        # an asynchronous predictor (submit/get/finished): predictions arrive between steps
        self._geo_async = self._geo_predict if hasattr(self._geo_predict, "submit") else None
        self._geo_pending: dict[str, Request] = {}  # waiting on a prediction, keyed by the fallback
        self._geo_priority_victims = self.scheduler_config.policy == "priority"
        self.waiting = KeyOrderedQueue()
        self.kv_holding_waiting = KeyOrderedQueue()
        self._geo_step = 0
        self._geo_positions = itertools.count()  # first-seen order: the tie-break after arrival
        self._geo_gate: PaperGate | None = None
        if config.mode == "paper":
            self._geo_gate = PaperGate(kv_cache_config.num_blocks - 1, self.block_size, backfill=config.backfill)

    # -- ordering ------------------------------------------------------------------------
    def predict_output_length(self, request: Request) -> int:
        """The predictor's output length for ``request`` (at least 1)."""
        params = request.sampling_params
        query = LengthQuery(
            request_id=request.request_id,
            prompt_tokens=request.num_prompt_tokens,
            max_tokens=getattr(params, "max_tokens", None) if params is not None else None,
            arrival_time=request.arrival_time,
            request=request,
        )
        value = int(self._geo_predict(query))
        if value < 1:
            raise ValueError(f"predictor returned {value} for request {request.request_id!r}; must be >= 1")
        return value

    def add_request(self, request: Request) -> None:
        if request.request_id not in self.requests:
            if self._geo_async is not None:
                self._geo_async.submit(request.request_id, request.num_prompt_tokens, request.arrival_time)
                self._geo_pending[request.request_id] = request
                predicted = self._geo_async.fallback
            else:
                predicted = self.predict_output_length(request)
            setattr(request, _POSITION_ATTR, next(self._geo_positions))
            self._set_prediction(request, predicted)
        super().add_request(request)

    def _set_prediction(self, request: Request, predicted: int) -> None:
        key = order_key(self._geo_policy, max(request.num_prompt_tokens, 1), predicted)
        setattr(request, _PREDICTED_ATTR, predicted)
        setattr(request, _KEY_ATTR, key)
        if self._geo_priority_victims:
            request.priority = key

    def _refresh_predictions(self) -> None:
        """Re-key the waiting requests whose asynchronous prediction is now ready."""
        worker = self._geo_async
        for request_id, request in list(self._geo_pending.items()):
            value = worker.get(request_id)
            if value is None:
                continue
            del self._geo_pending[request_id]
            for queue in (self.waiting, self.kv_holding_waiting):
                try:
                    queue.remove_request(request)
                except ValueError:
                    continue
                self._set_prediction(request, value)
                queue.add_request(request)
                break

    def _free_request(self, request: Request, *args: Any, **kwargs: Any) -> Any:
        worker = self._geo_async
        if worker is not None:
            self._geo_pending.pop(request.request_id, None)
            worker.forget(request.request_id)
            if "ABORTED" not in str(request.status):  # an aborted output is no length observation
                worker.finished(request.num_prompt_tokens, request.num_output_tokens)
        return super()._free_request(request, *args, **kwargs)

    def predictor_stats(self) -> Any:
        """The background predictor's :class:`~geosched.reference_impl.predictors.background.WorkerStats`
        (``None`` with a synchronous predictor)."""
        worker = self._geo_async
        return worker.stats() if worker is not None and hasattr(worker, "stats") else None

    def shutdown(self) -> None:
        super().shutdown()
        if self._geo_async is not None and hasattr(self._geo_async, "close"):
            self._geo_async.close()

    # -- admission -----------------------------------------------------------------------
    def _remaining(self, request: Request) -> int:
        predicted = getattr(request, _PREDICTED_ATTR, None) or request.max_tokens
        return max(1, predicted - request.num_output_tokens)

    def schedule(self, throttle_prefills: bool = False) -> Any:
        step = self._geo_step
        self._geo_step += 1
        if self._geo_pending:
            self._refresh_predictions()
        gate = self._geo_gate
        if gate is None:
            return super().schedule(throttle_prefills)
        running_before = {r.request_id for r in self.running}
        held = self.waiting
        offered: list[Request] = []
        if held:
            seen: dict[str, Request] = {}

            def candidates() -> Iterator[tuple[str, int, int]]:
                # lazy: strict head-of-line stops at the first misfit, so a long queue costs
                # only the admitted prefix plus one check per step
                for request in held.in_order():
                    seen[request.request_id] = request
                    yield request.request_id, request.num_tokens, self._remaining(request)

            offered = [seen[rid] for rid in gate.select(step, running_before, candidates())]
        else:
            gate.forget_except(running_before)
        offer = KeyOrderedQueue()
        for request in offered:
            held.remove_request(request)
            offer.add_request(request)
        self.waiting = offer
        try:
            output = super().schedule(throttle_prefills)
        finally:
            self.waiting = held
            for request in offer:  # not admitted, or preempted this step
                held.add_request(request)
        for request in self.running:
            if request.request_id not in running_before:
                # admitted now; prefill may still be chunked, tokens so far define the belief
                gate.admitted(request.request_id, step, request.num_tokens, self._remaining(request))
                self._geo_pending.pop(request.request_id, None)  # its belief is fixed now
        return output


def make_scheduler_class(
    policy: str = "svf",
    mode: str = "paper",
    predictor: Any = "oracle",
    backfill: bool = False,
    name: str | None = None,
) -> type[GeoschedScheduler]:
    """A ``GeoschedScheduler`` subclass with its configuration baked in (in-process engines).

    Pass it as ``SchedulerConfig(scheduler_cls=cls)``. It lives in this process only: for
    ``vllm serve`` or a multi-process engine use the dotted path and ``additional_config``.

    >>> cls = make_scheduler_class("sjf", "native")  # doctest: +SKIP
    """
    config = GeoschedSchedulerConfig(policy=policy, mode=mode, predictor=predictor, backfill=backfill)
    class_name = name or f"Geosched_{policy.split(':')[0]}_{mode}"
    return type(class_name, (GeoschedScheduler,), {"geosched_config": config, "__module__": __name__})
