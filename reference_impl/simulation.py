"""``simulate()``: run a scheduler on an instance, choosing the engine that runs it exactly.

The discrete-time process of Kong et al. (arXiv 2606.22327, Sec. 2 and Algorithm 1) and Jaillet et
al. (arXiv 2502.07115, Sec. 3): at every step the running requests decode one token, and waiting
requests are admitted under the forward-looking check (:mod:`.admission`). :func:`simulate` takes a
scheduler by name, spec, object or file and picks what runs it:

* a **priority rule** (:mod:`.policies`: ``fcfs``, ``sjf``, ``svf``, ``svf1``) at token grain runs on
  the event-driven engine (:class:`~.engine.ReplicaEngine`), or, for exact lengths, no observer
  and at least :data:`COMPILED_MIN_REQUESTS` requests (strict head-of-line or backfill), on the
  **compiled kernel** (:mod:`.kernel` through :func:`compiled_run`: the same decisions, one compiled
  loop, ``tests/test_kernel.py``, ``tests/test_million.py``); the kernel counts tokens, so block grain
  never reaches it;
* every other scheduler of the protocol (:mod:`.scheduling`), and every scheduler at block grain
  (the instance's ``block_size > 1``), runs on the **step engine** (:func:`~.engine.run_scheduler`),
  restarts included;
* an :class:`ExternalEngine` given as ``engine`` (the SVF proved in Coq and extracted to OCaml:
  ``geosched.simulate(..., engine="coq")`` passes it, because the core may not import
  :mod:`geosched.verify`) runs the one policy it was proved for, with exact lengths, strict
  head-of-line, at token grain; anything else is refused in one line.

**Predictions.** Priority rules order and check with *predicted* lengths (a predictor object,
:mod:`geosched.reference_impl.predictors`; ``"oracle"``, the default, is the exact lengths); memory is
freed at the *true* length, and a request whose prediction ran out is restarted when memory
overflows (:class:`~.engine.ReplicaEngine`). Names of other predictors are resolved by the callers
above the core (``geosched.simulate``, the command line, ``compare``), never imported here.

Ties in the priority key are broken by arrival, then by the request's position in the instance; ids
are labels only (``tests/test_ties.py`` renames them).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> result = simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf")
>>> result.starts, result.restarts
({'r0': 5, 'r1': 0}, 0)
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from geosched import limits
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.engine import BlockedInterval, ReplicaEngine, StepRun, capabilities_of, run_scheduler
from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import Policy, make_policy, parse_spec
from geosched.reference_impl.scheduler_registry import REGISTRY
from geosched.reference_impl.schedulers.priority import PriorityRuleScheduler
from geosched.reference_impl.scheduling import Capability, Run
from geosched.reference_impl.user_schedulers import is_file_spec, load_scheduler_class
from geosched.results import Result

if TYPE_CHECKING:
    from geosched.reference_impl.predictors import Predictor

__all__ = ["SimulationResult", "ExternalEngine", "simulate", "resolve", "compiled_run", "COMPILED_MIN_REQUESTS"]

COMPILED_MIN_REQUESTS = 20_000  # from here on the compiled loop pays for loading numba (about a second)


@dataclass(frozen=True)
class SimulationResult(Result):
    """What one simulation produced; metrics come from the checker, not from here.

    ``status`` is always ``"completed"``: every request is started (a valid request always
    fits alone), so a simulation cannot end otherwise; errors raise instead. The restarts are the
    engines' one record (:class:`~.engine.Restarts`): ``restarts`` runs ended before completion,
    ``lost_tokens`` outputs they decoded and the next run did not keep, and ``runs``, every run of
    every request whenever some request restarted or the step engine ran (None: each request ran
    once, from its start to its completion).
    """

    STATUSES = ("completed",)
    SUCCESS = ("completed",)

    policy: str  # policy name
    predictor: str  # predictor name
    backfill: bool  # whether misfits were skipped
    starts: dict[str, int]  # start step of every request's last run
    completions: dict[str, int]  # start + true output (less the outputs kept from earlier runs)
    admission_order: tuple[str, ...]  # ids in the order they were (finally) admitted
    restarts: int = 0  # runs ended before completion (0 with exact predictions and no preemption)
    lost_tokens: int = 0  # outputs decoded by those runs and not kept by the next one
    runs: dict[str, tuple[Run, ...]] | None = None  # every run of every request (None: one run each)
    recomputed_tokens: int = 0  # tokens re-prefilled on resumption (Restart.KEEP_OUTPUTS)
    decisions: int = 0  # decision points processed (a measure of the engine's work)
    extra: dict[str, Any] = field(default_factory=dict)  # policy parameters resolved at run time
    status: str = "completed"
    message: str = ""  # one line: policy, requests, restarts
    wall_time: float = field(default=0.0, compare=False)  # seconds (not part of equality)

    @property
    def schedule(self) -> dict[str, Any]:
        """What the checker takes: the runs of every request, or the start times."""
        return dict(self.runs) if self.runs is not None else dict(self.starts)


@dataclass(frozen=True)
class ExternalEngine:
    """An engine outside the core that runs one proved policy: ``run(instance) -> starts`` (by id).

    It takes exact lengths, strict head-of-line, no observer and token grain; :func:`simulate`
    refuses anything else in one line before calling it. ``geosched.engines`` builds the Coq one.
    """

    name: str  # "coq"
    policy: str  # the one policy it runs ("svf")
    run: Callable[[Instance], Mapping[str, int]]
    source: str  # where its proof and code live, for the result's message


def simulate(
    instance: Instance,
    policy: Any = "svf",
    *,
    predictor: str | Predictor = "oracle",
    backfill: bool = False,
    observer: Callable[[BlockedInterval], None] | None = None,
    engine: str | ExternalEngine = "python",
    max_steps: int | None = None,
    decide_seconds: float | None = None,
) -> SimulationResult:
    """Run ``policy`` on ``instance`` and return the start times (see the module docstring).

    Parameters
    ----------
    instance : Instance
        The workload. Its ``block_size`` ``B`` is the grain memory is counted in: a request holding
        ``u`` tokens holds ``ceil(u / B)`` blocks of ``B`` tokens, as in vLLM. ``1`` is the paper's
        token grain; at ``B > 1`` every scheduler runs on the step engine (priority rules with the
        block-grain forward check, exact lengths only).
    policy : str, Policy or Scheduler
        A registered name or spec (``"svf"``, ``"svf1:theta=8"``, ``"geo-guess"``), a user's
        scheduler file ``"path/to/file.py:Class"``, a policy object, or a scheduler (object
        or class) of :mod:`geosched.reference_impl.scheduling`.
    predictor : "oracle" or Predictor
        What a priority rule believes the output lengths to be: an object with ``name`` and
        ``predict(instance)`` (:mod:`geosched.reference_impl.predictors`); ``"oracle"`` (default) is
        the exact lengths. Other names are resolved above the core (``geosched.simulate``).
    backfill : bool
        Skip a misfit and try later requests instead of stopping the scan.
    observer : callable, optional
        Called with a :class:`~.engine.BlockedInterval` for every maximal run of steps with the same
        state during which some arrived request waits (the certificate monitor of
        :mod:`geosched.verify` uses it). Attaching one makes every completion an event.
    engine : "python" or ExternalEngine
        ``"python"``: the kernel, the event-driven engine or the step engine, as the case requires;
        an :class:`ExternalEngine`: that engine (``geosched.simulate`` maps ``"coq"`` to it).
    max_steps, decide_seconds : optional
        The step engine's limits (:mod:`geosched.limits`; default: those in force): a run spanning
        more than ``max_steps`` steps is refused before it starts, and one ``decide()`` call may take
        ``decide_seconds``. The event-driven engine and the compiled kernel jump between events: their
        work grows with the requests, not the steps, and needs no step limit.

    Returns
    -------
    SimulationResult
        Start times, admission order, restarts; metrics come from the checker.

    Raises
    ------
    UnknownNameError
        For an unknown policy or engine name.
    ValidationError
        When the predictor does not return one prediction ``>= 1`` per request, or an option the
        chosen engine cannot honour.
    LimitError
        When the step engine's run would pass ``max_steps`` or a ``decide()`` call ``decide_seconds``.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf").starts
    {'r0': 5, 'r1': 0}
    """
    started = time.perf_counter()
    if isinstance(engine, ExternalEngine):
        return _simulate_external(instance, policy, engine, predictor, backfill, observer, started)
    if engine != "python":
        raise UnknownNameError("engine", engine, ["python", "an ExternalEngine (geosched.simulate: coq)"])
    steps = {"max_steps": limits.max_steps(max_steps), "decide_seconds": limits.decide_seconds(decide_seconds)}
    policy_obj = resolve(policy)
    if instance.block_size != 1:
        return _simulate_blocks(instance, policy_obj, predictor, backfill, observer, started, steps)
    if not isinstance(policy_obj, Policy) and hasattr(policy_obj, "decide"):
        return _simulate_steps(instance, policy_obj, predictor, backfill, started, steps)
    if not isinstance(policy_obj, Policy):
        raise ValidationError("policy", type(policy_obj).__name__,
                              "must have name, keys(instance, predicted) and parameters(predicted)")
    return _simulate_rule(instance, policy_obj, predictor, backfill, observer, started)


def _predictions(instance: Instance, predictor: Any) -> tuple[str, list[int]]:
    """The predictor's name and one checked prediction per request."""
    if isinstance(predictor, str):
        if predictor != "oracle":
            raise ValidationError("predictor", predictor, "the core simulator takes 'oracle' or a predictor object; "
                                  "names are resolved by geosched.simulate, the command line and make_predictor")
        return "oracle", [r.output for r in instance.requests]
    predicted = [int(v) for v in np.asarray(predictor.predict(instance)).tolist()]
    if len(predicted) != instance.n or any(v < 1 for v in predicted):
        raise ValidationError(f"predictor {predictor.name!r}", len(predicted),
                              f"must return one prediction >= 1 per request ({instance.n} requests)")
    return predictor.name, predicted


def _simulate_rule(instance: Instance, policy_obj: Policy, predictor: Any, backfill: bool, observer: Any,
                   started: float) -> SimulationResult:
    """A priority rule at token grain: the compiled kernel when it applies, else the event-driven engine."""
    predictor_name, predicted = _predictions(instance, predictor)
    keys = policy_obj.keys(instance, predicted)
    if observer is None and instance.n >= COMPILED_MIN_REQUESTS:
        compiled = _simulate_compiled(instance, policy_obj, predictor_name, keys, predicted, backfill, started)
        if compiled is not None:
            return compiled
    run = ReplicaEngine.from_instance(instance, keys, predicted, backfill=backfill, observer=observer)
    run.run()
    requests, log = instance.requests, run.restarts
    runs = None
    if log.count:
        runs = {r.id: log.runs(i, Run(run.start[i], run.start[i] + r.output)) for i, r in enumerate(requests)}
    return SimulationResult(
        policy=policy_obj.name,
        predictor=predictor_name,
        backfill=backfill,
        starts={r.id: run.start[i] for i, r in enumerate(requests)},
        completions={r.id: run.start[i] + r.output for i, r in enumerate(requests)},
        admission_order=tuple(requests[i].id for i in run.admission_order),
        restarts=log.count,
        lost_tokens=log.lost_tokens,
        runs=runs,
        decisions=run.decisions,
        extra=dict(policy_obj.parameters(predicted)),
        message=f"{policy_obj.name}: {instance.n} requests started, {log.count} restarts, "
                f"{run.decisions} decision points",
        wall_time=time.perf_counter() - started,
    )


def compiled_run(memory: int, prompt: np.ndarray, output: np.ndarray, arrival: np.ndarray, keys: Any, *,
                 backfill: bool = False, block_size: int = 1) -> tuple[np.ndarray, np.ndarray, int] | None:
    """``(start, admission order, decisions)`` of a priority rule with exact lengths at token grain,
    strict head-of-line or ``backfill``, from the compiled kernel; None when it does not apply (the
    caller then runs the engine): block grain (``block_size > 1``: the kernel counts tokens, the
    step engine's forward check counts blocks), or keys or sums past its int64 bounds.

    The one call into the compiled kernel (:mod:`.kernel`, a port of :class:`~.engine.ReplicaEngine`'s
    exact mode: the same decisions, ``tests/test_kernel.py``, ``tests/test_million.py``): the simulator
    and the command line's column path (:mod:`.columns`) both come through here. ``keys``: one
    priority key per request (Python ints or an int64 array); the order is ``(key, arrival, position)``.

    >>> start, order, decisions = compiled_run(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]), [24, 20])
    >>> start.tolist(), order.tolist(), decisions
    ([5, 0], [1, 0], 2)
    >>> compiled_run(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]), [24, 20], block_size=2) is None
    True
    """
    if block_size != 1:
        return None
    from geosched.reference_impl import kernel  # numba: only once a compiled run is asked for

    announce_compiling(kernel.run_exact)
    if not kernel.fits_int64(memory, arrival, output):
        return None
    if isinstance(keys, np.ndarray):
        order = np.lexsort((np.arange(keys.size, dtype=np.int64), arrival, keys))
    else:
        order = kernel.priority_order(keys, arrival)
    if order is None:
        return None
    start, admitted, decisions = kernel.run_exact(memory, prompt, output, arrival, order, bool(backfill))
    return start, admitted, int(decisions)


_ANNOUNCED: set[object] = set()  # the kernel's entry points this process has checked (each once)


def announce_compiling(function: object) -> None:
    """Before the first call of a compiled kernel entry point in this process: when numba's disk cache holds no
    machine code for it (a fresh clone, changed sources), say on the command's progress stream, once a process,
    that it compiles now and where it is kept, so that the next run starts at once. A no-op after the first call."""
    if function in _ANNOUNCED:
        return
    _ANNOUNCED.add(function)
    from geosched.reference_impl import kernel

    if kernel.cached_on_disk(function) is False and "said" not in _ANNOUNCED:
        from geosched.progress import note

        _ANNOUNCED.add("said")  # once a process: the other entry points compile as they are first used
        folder = kernel.cache_folder(function)
        note("compiling the simulation kernel (numba) once for this machine, each entry point as it is first used: "
             "seconds on a quiet 2-core machine, minutes under load; "
             + (f"cached in {folder}, so later runs start at once" if folder
                else "not cached (numba cannot write its cache here)"))


def _simulate_compiled(instance: Instance, policy_obj: Policy, predictor_name: str, keys: list[Any],
                       predicted: list[int], backfill: bool, started: float) -> SimulationResult | None:
    """:func:`simulate`'s result from :func:`compiled_run`, for exact lengths; None otherwise (the
    engine then runs)."""
    requests = instance.requests
    n, memory = len(requests), instance.memory
    prompt = np.fromiter(map(operator.attrgetter("prompt"), requests), dtype=np.int64, count=n)
    output = np.fromiter(map(operator.attrgetter("output"), requests), dtype=np.int64, count=n)
    arrival = np.fromiter(map(operator.attrgetter("arrival"), requests), dtype=np.int64, count=n)
    belief = np.asarray(predicted)  # the engine's beliefs are min(prediction, M - s): exact mode needs them = o
    if belief.dtype != np.int64 or not np.array_equal(np.minimum(belief, memory - prompt), output):
        return None
    compiled = compiled_run(memory, prompt, output, arrival, keys, backfill=backfill, block_size=instance.block_size)
    if compiled is None:
        return None
    start, admitted, decisions = compiled
    ids = [r.id for r in requests]
    return SimulationResult(
        policy=policy_obj.name,
        predictor=predictor_name,
        backfill=backfill,
        starts=dict(zip(ids, start.tolist())),
        completions=dict(zip(ids, (start + output).tolist())),
        admission_order=tuple(map(ids.__getitem__, admitted.tolist())),
        decisions=decisions,
        extra=dict(policy_obj.parameters(predicted)),
        message=f"{policy_obj.name}: {n} requests started, 0 restarts, {decisions} decision points",
        wall_time=time.perf_counter() - started,
    )


def resolve(policy: Any) -> Any:
    """A priority rule (:class:`Policy`) or a scheduler object, from a name, a spec, a user's
    ``file.py:Class``, a class or an object; a protocol scheduler that wraps a priority rule
    (``priority_rule``) gives the rule itself (the fast path).

    >>> type(resolve("svf")).__name__, type(resolve("geo-guess")).__name__
    ('SmallestVolumeFirst', 'GeometricGuess')
    """
    if isinstance(policy, str):
        if is_file_spec(policy):
            policy = load_scheduler_class(policy)
        else:
            return _registered(policy)
    if isinstance(policy, type):
        try:
            policy = policy()
        except TypeError as exc:
            raise ValidationError("policy", policy.__name__, f"a scheduler class must build with no arguments "
                                  f"({exc})") from None
    return getattr(policy, "priority_rule", None) or policy


def _registered(spec: str) -> Any:
    """The object a registry name or spec builds (an unknown name lists every registered one)."""
    base = spec.partition(":")[0]
    entry = REGISTRY.get(base)
    if entry is None:
        raise UnknownNameError("policy", base, [*REGISTRY, "FILE.py:Class"])
    if Capability.PRIORITY_RULE in entry.capabilities:
        return make_policy(spec)
    obj = entry.build(**(parse_spec(spec)[1] if ":" in spec else {}))
    declared = entry.capabilities & {Capability.CLAIRVOYANT, Capability.PREEMPTS}
    if declared != capabilities_of(obj) - {Capability.SIMULATOR}:
        raise ValidationError(f"policy {base!r}", sorted(c.value for c in declared),
                              "the registry's capabilities differ from the scheduler's own declaration")
    return obj


def _simulate_blocks(instance: Instance, policy_obj: Any, predictor: Any, backfill: bool, observer: Any,
                     started: float, steps: dict[str, Any]) -> SimulationResult:
    """:func:`simulate` of an instance with ``block_size > 1``: every scheduler on the step engine."""
    block_size = instance.block_size
    if getattr(predictor, "name", predictor) != "oracle" or observer is not None:
        raise ValidationError("block_size", block_size, "block grain runs exact lengths without an observer "
                              "(predictor 'oracle')")
    if isinstance(policy_obj, Policy):
        policy_obj = PriorityRuleScheduler(policy_obj, instance, backfill=backfill)
        backfill = False
    if getattr(policy_obj, "block_grain", False) is not True:
        raise ValidationError("block_size", block_size,
                              f"scheduler {getattr(policy_obj, 'name', policy_obj)!r} counts tokens, not blocks "
                              "(block grain: the priority rules and vllm-fcfs/vllm-priority; a scheduler declares "
                              "block_grain = True when it reads SchedulerState.block_size)")
    return _simulate_steps(instance, policy_obj, predictor, backfill, started, steps)


def _simulate_steps(instance: Instance, scheduler: Any, predictor: Any, backfill: bool,
                    started: float, steps: dict[str, Any]) -> SimulationResult:
    """A protocol scheduler on the step engine, as a :class:`SimulationResult` with its runs."""
    if getattr(predictor, "name", predictor) != "oracle" or backfill:
        raise ValidationError("policy", getattr(scheduler, "name", scheduler),
                              "a protocol scheduler sees what it declares: predictor and backfill apply "
                              "to priority rules only")
    run: StepRun = run_scheduler(instance, scheduler, **steps)
    name = getattr(scheduler, "name", type(scheduler).__name__)
    return SimulationResult(
        policy=name, predictor="oracle", backfill=False,
        starts={i: runs[-1].start for i, runs in run.runs.items()},
        completions=run.completions,
        admission_order=run.admission_order,
        restarts=run.restarts,
        lost_tokens=run.lost_tokens,
        runs=run.runs,
        recomputed_tokens=run.recomputed_tokens,
        decisions=run.decisions,
        extra=dict(run.extra),
        message=f"{name}: {instance.n} requests completed, {run.restarts} restarts, "
                f"{run.lost_tokens} tokens lost, {run.decisions} decision points",
        wall_time=time.perf_counter() - started,
    )


def _simulate_external(instance: Instance, policy: Any, engine: ExternalEngine, predictor: Any, backfill: bool,
                       observer: Any, started: float) -> SimulationResult:
    """An :class:`ExternalEngine`'s starts as a :class:`SimulationResult` (its options checked first)."""
    if not (isinstance(policy, str) and policy.strip() == engine.policy):
        shown = policy if isinstance(policy, str) else type(policy).__name__
        raise ValidationError("policy", shown, f"engine {engine.name!r} runs only {engine.policy!r} "
                                               f"(the policy proved in {engine.source})")
    for name, value, default in (("predictor", getattr(predictor, "name", predictor), "oracle"),
                                 ("backfill", backfill, False), ("observer", observer, None),
                                 ("block_size", instance.block_size, 1)):
        if value != default:
            shown = value if isinstance(value, (str, bool, int)) or value is None else type(value).__name__
            raise ValidationError(name, shown, f"engine {engine.name!r} takes only {name}={default!r} "
                                               "(the proved policy: exact lengths, strict head-of-line, token grain)")
    starts = dict(engine.run(instance))
    requests = instance.requests
    keys = make_policy(engine.policy).keys(instance, [r.output for r in requests])
    rank = {r.id: (starts[r.id], key, r.arrival, k) for k, (r, key) in enumerate(zip(requests, keys))}  # scan order
    return SimulationResult(
        policy=engine.policy, predictor="oracle", backfill=False, starts=starts,
        completions={r.id: starts[r.id] + r.output for r in requests},
        admission_order=tuple(sorted(starts, key=rank.__getitem__)),
        message=f"{engine.policy} ({engine.name} engine: {engine.source}): {instance.n} requests started, 0 restarts",
        wall_time=time.perf_counter() - started)
