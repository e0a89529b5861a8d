"""Differential testing of *any* vLLM scheduler class against a model of what it should do.

You wrote a vLLM 0.33 scheduler (a subclass of ``vllm.v1.core.sched.scheduler.Scheduler``,
or the geosched plugin with your own priority rule). :func:`diff_scheduler` drives it on CPU
with fake model outputs (:class:`~geosched.reference_impl.vllm.harness.VllmDriver`), call by
call, against one of two references, and compares every ``schedule()`` call (admitted,
preempted, running, scheduled tokens, finished, KV blocks in use):

* ``reference="semantics"``: the vLLM-semantics model
  (:class:`~geosched.reference_impl.vllm.semantics.VllmSemantics`): with ``policy=None``,
  stock vLLM's rules (FCFS deque or priority heap, by ``params.preemption``); with a policy,
  vLLM's rules with the waiting queue ordered by that registry policy's key (what the
  geosched plugin does in ``native`` mode);
* ``reference="policy"``: the verified simulator of ``policy``
  (:func:`geosched.reference_impl.simulation.simulate`, Kong et al., arXiv 2606.22327,
  Algorithm 1), on the exact-agreement engine (block size 1, budgets that never bind):
  what the plugin does in ``paper`` mode; or, when ``policy`` is a protocol scheduler that
  is not a priority rule (``vllm-fcfs``, ``vllm-priority``, a user's ``FILE.py:Class``), its
  runs in the exact model (:func:`geosched.reference_impl.vllm.exact.diff_exact`).

A workload is a model :class:`~geosched.reference_impl.model.Instance`: request
``(a, s, o)`` is vLLM's ``(arrival a, P = s + 1 prompt tokens, max_tokens = o)``
(``docs/vllm.md``, step correspondence). When the run diverges, :func:`shrink_instance`
removes requests and lowers lengths, arrivals and ``M`` while it still diverges, and returns
a minimal instance; :func:`find_divergence` searches random small instances with Hypothesis
(which shrinks what it finds). :func:`vllm_diff` does all of it and returns a
:class:`SchedulerDiff` report; ``geosched vllm-diff --scheduler pkg.mod.Class WORKLOAD`` is
the same on the command line.

``VLLM_TARGET_DEVICE=cpu`` is set before vLLM resolves its platform
(:func:`~geosched.reference_impl.vllm.harness.ensure_vllm_device`); if vLLM already resolved
it without a device, the error says what to set.

Example (needs vLLM)
--------------------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.vllm.plugin import make_scheduler_class  # doctest: +SKIP
>>> diff_scheduler(make_scheduler_class("svf", "paper"), burst_instance(12, [(6, 3), (1, 5)]),
...                reference="policy", policy="svf").status  # doctest: +SKIP
'agree'
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from geosched import limits
from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance
from geosched.reference_impl.policies import policy_names
from geosched.reference_impl.vllm.exact import diff_exact
from geosched.reference_impl.vllm.harness import (
    DiffResult,
    diff_native,
    diff_paper,
    ensure_vllm_device,
    paper_params,
    requests_from_instance,
)
from geosched.reference_impl.vllm.semantics import EngineParams
from geosched.results import Result

__all__ = ["REFERENCES", "SchedulerDiff", "at_grain", "diff_scheduler", "engine_for", "find_divergence",
           "resolve_scheduler", "shrink_instance", "vllm_diff"]

REFERENCES = ("semantics", "policy")


def resolve_scheduler(spec: Any) -> Any:
    """A scheduler class from a class, ``"pkg.mod.Class"`` or ``"pkg.mod:Class"`` (None: stock vLLM).

    The class must implement vLLM's ``SchedulerInterface`` (subclass it, as vLLM's own
    ``Scheduler`` does): anything else would fail deep inside the engine with a traceback.

    Raises
    ------
    ValidationError
        When the path does not import, does not name a class, or names a class that is not a
        vLLM scheduler.

    Examples
    --------
    >>> resolve_scheduler("vllm.v1.core.sched.scheduler.Scheduler").__name__
    'Scheduler'
    >>> resolve_scheduler("collections.OrderedDict")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: --scheduler: must be a vLLM scheduler class (a subclass of ...)
    """
    if spec is None:
        return spec
    if isinstance(spec, type):
        return _scheduler_class(spec, spec.__qualname__)
    if not isinstance(spec, str) or not spec:
        raise ValidationError("--scheduler", spec, "must be a class or a dotted path 'pkg.module.Class'")
    module_name, sep, attr = spec.partition(":")
    if not sep:
        module_name, _, attr = spec.rpartition(".")
    if not module_name or not attr:
        raise ValidationError("--scheduler", spec, "must be a dotted path 'pkg.module.Class'")
    ensure_vllm_device()  # the user's module imports vLLM: the device must be set before that
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValidationError("--scheduler", spec, f"cannot be imported ({exc})") from None
    if not isinstance(target, type):
        raise ValidationError("--scheduler", spec, "does not name a class")
    return _scheduler_class(target, spec)


def _scheduler_class(target: type, spec: str) -> type:
    ensure_vllm_device()
    from vllm.v1.core.sched.interface import SchedulerInterface

    if not issubclass(target, SchedulerInterface):
        raise ValidationError("--scheduler", spec,
                              "must be a vLLM scheduler class (a subclass of vllm.v1.core.sched.interface."
                              "SchedulerInterface)")
    return target


def diff_scheduler(
    scheduler: Any,
    instance: Instance,
    *,
    reference: str = "semantics",
    policy: str | None = None,
    params: EngineParams | None = None,
    preemption: str = "fcfs",
    max_steps: int | None = None,
) -> DiffResult:
    """One workload through ``scheduler`` in vLLM and through the reference, call by call.

    Parameters
    ----------
    scheduler : class, str or None
        The vLLM scheduler class under test (or its dotted path; None: vLLM's stock one).
    instance : Instance
        The workload (model requests; see the module docstring for the vLLM requests).
    reference : {"semantics", "policy"}
        The vLLM-semantics model, or the verified simulator of ``policy``.
    policy : str, optional
        A registry policy: the reference's queue order (``semantics``; None: stock vLLM's)
        or the verified policy (``policy``: required).
    params : EngineParams, optional
        The engine (``semantics`` only), fixed whatever the instance's ``M``. By default it is
        derived from the instance: :func:`engine_for` (``M / B`` blocks of the instance's
        ``block_size`` ``B``, ``max_num_seqs = n``, a budget that never binds, ``preemption``).
        ``policy`` always uses block size 1.
    preemption
        vLLM's ``SchedulerConfig.policy`` (victim rule, and the stock queue: ``fcfs`` deque or
        ``priority`` heap).

    Returns
    -------
    DiffResult
        ``agree`` or ``diverged``; :meth:`~geosched.reference_impl.vllm.harness.DiffResult.report`
        names the first differing call and shows both states.

    Raises
    ------
    ValidationError
        For an unknown reference, a missing policy, or a scheduler path that does not import.
    """
    cls = resolve_scheduler(scheduler)
    if reference not in REFERENCES:
        raise ValidationError("--reference", reference, f"must be one of {', '.join(REFERENCES)}")
    if reference == "policy":
        if policy is None:
            raise ValidationError("--policy", None, "reference 'policy' needs the verified policy to compare with")
        if params is not None:
            raise ValidationError("params", params, "reference 'policy' runs on the exact-agreement engine only")
        if policy.partition(":")[0] not in policy_names():  # a protocol scheduler: its runs, call by call
            return diff_exact(instance, policy, scheduler=cls if cls is not None else _stock(),
                              preemption=preemption, max_steps=max_steps)
        return diff_paper(instance, policy, max_steps=max_steps, scheduler=cls if cls is not None else _stock())
    engine = params if params is not None else engine_for(instance, preemption)
    specs = requests_from_instance(instance, policy or "fcfs")
    return diff_native(specs, engine, policy=policy, mode="native", max_steps=max_steps,
                       scheduler=cls if cls is not None else _stock())


def engine_for(instance: Instance, preemption: str = "fcfs") -> EngineParams:
    """The default engine of a workload: ``M / B`` blocks of the instance's ``block_size`` ``B``,
    ``max_num_seqs = n``, every prompt in one step (the exact-agreement setting of the harness at
    block size 1).

    >>> from geosched.reference_impl.model import burst_instance
    >>> engine_for(burst_instance(12, [(6, 3), (1, 5)], block_size=4)).capacity_blocks
    3
    """
    base = paper_params(instance)
    block = instance.block_size
    return EngineParams(capacity_blocks=instance.memory // block, block_size=block,
                        max_num_seqs=base.max_num_seqs, max_num_batched_tokens=base.max_num_batched_tokens,
                        preemption=preemption)


def _stock() -> Any:
    from vllm.v1.core.sched.scheduler import Scheduler

    return Scheduler


def shrink_instance(instance: Instance, diverges: Callable[[Instance], bool], *,
                    max_checks: int = 400) -> tuple[Instance, int]:
    """A minimal diverging instance: greedily drop requests, then lower each output, prompt and
    arrival and ``M`` while ``diverges`` stays true (delta debugging; deterministic).

    Returns ``(instance, checks)``; ``instance`` is the input when it does not diverge.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> small, _ = shrink_instance(burst_instance(20, [(3, 4), (5, 2), (0, 9)]), lambda i: i.n >= 2)
    >>> small.n, [(r.prompt, r.output) for r in small.requests]
    (2, [(0, 1), (0, 1)])
    """
    checks = [0]

    def still(candidate: Instance) -> bool:
        if checks[0] >= max_checks:
            return False
        checks[0] += 1
        return diverges(candidate)

    current = instance
    if not still(current):
        return instance, checks[0]
    changed = True
    while changed and checks[0] < max_checks:
        changed = False
        for candidate in _smaller(current):
            if still(candidate):
                current, changed = candidate, True
                break
    return current, checks[0]


def _smaller(instance: Instance):
    """Candidates one step smaller than ``instance``, biggest reductions first."""
    reqs = list(instance.requests)
    for k in range(len(reqs)):  # drop one request
        if len(reqs) > 1:
            yield instance.with_requests(reqs[:k] + reqs[k + 1:])
    for k, r in enumerate(reqs):
        for field_name, low in (("output", 1), ("prompt", 0), ("arrival", 0)):
            value = getattr(r, field_name)
            for smaller in sorted({low, (value + low) // 2, value - 1}):
                if low <= smaller < value:
                    yield instance.with_requests(reqs[:k] + [replace(r, **{field_name: smaller})] + reqs[k + 1:])
    floor = max(r.peak for r in reqs)
    b = instance.block_size  # a smaller M stays a multiple of the block size
    for memory in sorted({b * -(-m // b) for m in (floor, (floor + instance.memory) // 2, instance.memory - 1)}):
        if floor <= memory < instance.memory:
            yield instance.with_memory(memory)


def find_divergence(diverges: Callable[[Instance], bool], *, max_n: int = 6, max_memory: int = 30,
                    max_examples: int = 100, seed: int = 0) -> Instance | None:
    """Search random small instances (:func:`geosched.testing.instances`) for one on which
    ``diverges`` holds; Hypothesis shrinks it to a minimal one. None when none was found."""
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from geosched.testing import instances

    try:
        return find(instances(max_n=max_n, max_memory=max_memory, max_prompt=max_memory // 2,
                              max_output=max_memory // 2, max_arrival=8),
                    diverges, settings=settings(max_examples=max_examples, database=None, deadline=None,
                                                derandomize=seed is not None,
                                                suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return None


class _SearchTally:
    """Counts the random instances a search ran before its first mismatch (all of them when there is
    none: those agreed) and the runs after it (Hypothesis shrinking), for the report and a progress bar."""

    def __init__(self, run: Callable[[Instance], DiffResult], total: int,
                 progress: Callable[[int, int], None] | None) -> None:
        self.run, self.total, self.progress = run, total, progress
        self.ran = self.agreed = 0
        self.found = False

    def diverges(self, candidate: Instance) -> bool:
        ok = self.run(candidate).ok
        self.ran += 1
        if not self.found:
            self.agreed += 1 if ok else 0
            self.found = not ok
            if self.progress is not None:
                self.progress(min(self.ran, self.total), self.total)
        return not ok


@dataclass(frozen=True)
class SchedulerDiff(Result):
    """A scheduler under test against its reference, with the minimal diverging instance.

    ``status``: ``"agree"`` (the workload, and the search if asked, found no divergence) or
    ``"diverged"`` (``instance`` is the shrunk one, ``diff`` its report).
    """

    STATUSES = ("agree", "diverged")
    SUCCESS = ("agree",)

    status: str
    message: str
    wall_time: float
    scheduler: str  # the class under test
    reference: str  # "semantics" or "policy" (with the policy)
    workload_diff: DiffResult  # the given workload's run
    instance: Instance | None = None  # the minimal diverging instance (None when they agree)
    diff: DiffResult | None = None  # its run: the first diverging call, both states
    shrink_checks: int = 0  # differential runs spent shrinking or searching
    searched: int = 0  # random instances the search ran up to its first mismatch (0: no search)
    searched_agreed: int = 0  # of those, the ones on which both agreed (all when no mismatch was found)

    def report(self) -> str:
        """The message, the shrunk instance and the divergence at its first differing call, with the
        scheduler under test and the reference named on each side."""
        if self.status == "agree":
            return self.message
        subject = self.scheduler.rsplit(".", 1)[-1].replace(" (stock)", "") + " in vLLM"
        return "\n".join([self.message, f"shrunk instance: {self.instance.to_dict()}",
                          self.diff.report(subject, self.reference)])


def vllm_diff(scheduler: Any, instance: Instance, *, reference: str = "semantics", policy: str | None = None,
              params: EngineParams | None = None, preemption: str = "fcfs",
              shrink: bool = True, search: int = 0, seed: int = 0,
              progress: Callable[[int, int], None] | None = None, max_steps: int | None = None) -> SchedulerDiff:
    """:func:`diff_scheduler` on ``instance``; on a divergence, :func:`shrink_instance` it. When
    the workload agrees and ``search > 0``, :func:`find_divergence` tries up to that many random small
    instances (``progress(done, total)`` is called after each). The returned report names the
    scheduler under test and the reference, holds the minimal diverging instance and its run, and
    says how many random instances agreed.

    vLLM is driven one step at a time: a workload whose run spans more than ``max_steps`` steps
    (default: the limit in force, :mod:`geosched.limits`) is refused before vLLM is imported
    (:class:`~geosched.errors.LimitError`)."""
    started = time.perf_counter()
    with limits.work_limits(max_steps=max_steps):
        limits.check_steps(limits.busy_steps((r.arrival, r.output) for r in instance.requests), None,
                           "vllm-diff: vLLM's scheduler, one step at a time")
        return _vllm_diff(scheduler, instance, reference, policy, params, preemption, shrink, search, seed, progress,
                          started)


def _vllm_diff(scheduler: Any, instance: Instance, reference: str, policy: str | None, params: EngineParams | None,
               preemption: str, shrink: bool, search: int, seed: int, progress: Callable[[int, int], None] | None,
               started: float) -> SchedulerDiff:
    cls = resolve_scheduler(scheduler)
    name = "vllm.v1.core.sched.scheduler.Scheduler (stock)" if cls is None else f"{cls.__module__}.{cls.__qualname__}"
    label = reference + (f":{policy}" if policy else "") + " model"

    def run(candidate: Instance) -> DiffResult:
        return diff_scheduler(cls, at_grain(candidate, instance.block_size), reference=reference, policy=policy,
                              params=params, preemption=preemption)

    first = run(instance)
    minimal, checks, tally = None, 0, _SearchTally(run, search, progress)
    if not first.ok and shrink:
        minimal, checks = shrink_instance(instance, lambda c: _fits(c, params) and not run(c).ok)
    elif not first.ok:
        minimal = instance
    elif search > 0:
        minimal = find_divergence(tally.diverges, max_examples=search, seed=seed)
        minimal = None if minimal is None else at_grain(minimal, instance.block_size)
        checks = tally.ran
    counts = {"searched": tally.agreed + (1 if tally.found else 0), "searched_agreed": tally.agreed}
    if minimal is None:
        found = (f"; {tally.agreed} random instances (n <= 6, M <= 30, seed {seed}) agreed too, no mismatch found"
                 if search > 0 else "")
        return SchedulerDiff("agree", f"{name} agrees with the {label}: {first.message}{found}",
                             time.perf_counter() - started, name, label, first, shrink_checks=checks, **counts)
    diff = run(minimal)
    where = first.message if not first.ok else (f"on random instance {counts['searched']} ({tally.agreed} before "
                                                f"it agreed; {tally.ran - counts['searched']} runs shrank it)")
    message = (f"{name} DIVERGES from the {label}: {where}; minimal instance: {minimal.n} requests, "
               f"M = {minimal.memory}")
    return SchedulerDiff("diverged", message, time.perf_counter() - started, name, label, first, minimal, diff,
                         checks, **counts)


def at_grain(candidate: Instance, block_size: int) -> Instance:
    """``candidate`` (a random search's, at token grain) counted in blocks of the workload's
    ``block_size``, its ``M`` rounded up to a multiple of it.

    >>> from geosched.reference_impl.model import burst_instance
    >>> at_grain(burst_instance(10, [(1, 2)]), 4).memory
    12
    """
    if candidate.block_size == block_size:
        return candidate
    return Instance(block_size * -(-candidate.memory // block_size), candidate.requests, block_size)


def _fits(candidate: Instance, params: EngineParams | None) -> bool:
    """A shrunk instance must still fit the given engine (every request alone in the KV cache)."""
    if params is None:
        return True
    blocks = max(-(-(r.prompt + r.output) // params.block_size) for r in candidate.requests)
    return blocks <= params.capacity_blocks

