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
                    max_examples: int = 100, seed: int | None = 0) -> Instance | None:
    """Search random small instances (:func:`geosched.reference_impl._strategies.instances`) for one on which
    ``diverges`` holds; Hypothesis shrinks it to a minimal one. None when none was found.
    ``seed`` picks the instances tried (the same seed, the same search); None: Hypothesis's own
    derandomized choice."""
    import random

    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    from geosched.reference_impl._strategies import instances

    try:
        return find(instances(max_n=max_n, max_memory=max_memory, max_prompt=max_memory // 2,
                              max_output=max_memory // 2, max_arrival=8),
                    diverges, settings=settings(max_examples=max_examples, database=None, deadline=None,
                                                derandomize=seed is None,
                                                suppress_health_check=list(HealthCheck)),
                    random=None if seed is None else random.Random(seed))
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
    instance_label: str = "the shrunk instance"  # what `instance` is: "the shrunk instance" or "the given workload"

    def report(self) -> str:
        """The divergence on the minimal instance: the first line, the instance with labelled fields (the model's
        prompt ``s`` and what vLLM receives, ``P = s + 1``), the engine, both states at the first differing
        ``schedule()`` call, a one-line interpretation, and the calls before it (which agreed)."""
        if self.status == "agree":
            return self.message
        subject = self.scheduler.rsplit(".", 1)[-1].replace(" (stock)", "") + " in vLLM"
        diff, instance = self.diff, self.instance
        width = max(len(subject), len(self.reference))
        lines = [self.message, *instance_table(instance, self.instance_label),
                 engine_line(diff.workload.get("params", {}), instance.memory),
                 f"at schedule() call {diff.step} (the model's admissions of step {diff.step}; differing: "
                 f"{', '.join(diff.fields)}):",
                 f"  {subject:<{width}} : {state_line(diff.vllm_state)}",
                 f"  {self.reference:<{width}} : {state_line(diff.model_state)}",
                 "interpretation: " + interpret_divergence(diff.vllm_state, diff.model_state, subject, self.reference,
                                                           instance)]
        if diff.history:
            lines.append("the calls before it (both sides agree):")
            lines += [f"  call {ours.step}: {state_line(ours)}" for ours, _ in diff.history]
        return "\n".join(lines)


def instance_table(instance: Instance, title: str = "the instance") -> list[str]:
    """The instance's requests with labelled fields: the model's ``(arrival, s, o)`` and vLLM's ``P = s + 1``.

    >>> from geosched.reference_impl.model import burst_instance
    >>> for line in instance_table(burst_instance(12, [(6, 3)])):
    ...     print(line)
    the instance, M = 12 tokens (the model's prompt s, output o; vLLM receives P = s + 1, max_tokens = o):
      id | arrival | prompt s | output o || vLLM prompt P = s + 1 | vLLM max_tokens
      r0 | 0       | 6        | 3        || 7                     | 3
    """
    head = ("id", "arrival", "prompt s", "output o", "vLLM prompt P = s + 1", "vLLM max_tokens")
    rows = [head] + [(r.id, str(r.arrival), str(r.prompt), str(r.output), str(r.prompt + 1), str(r.output))
                     for r in instance.requests]
    widths = [max(len(row[k]) for row in rows) for k in range(len(head))]

    def cells(row: tuple[str, ...]) -> str:
        padded = [f"{x:<{w}}" for x, w in zip(row, widths, strict=True)]
        return ("  " + " | ".join(padded[:4]) + " || " + " | ".join(padded[4:])).rstrip()

    return [f"{title}, M = {instance.memory} tokens (the model's prompt s, output o; vLLM receives P = s + 1, "
            "max_tokens = o):", *(cells(row) for row in rows)]


def engine_line(params: dict[str, Any], memory: int) -> str:
    """The vLLM engine of the run, in words."""
    if not params:
        return "engine: (not recorded)"
    block = params.get("block_size", 1)
    return (f"engine: {params.get('capacity_blocks')} usable KV blocks of {block} token{'s' * (block != 1)} "
            f"(+ vLLM's null block; M = {memory}), max_num_seqs {params.get('max_num_seqs')}, max_num_batched_tokens "
            f"{params.get('max_num_batched_tokens')}, chunked prefill "
            f"{'on' if params.get('enable_chunked_prefill', True) else 'off'}, preemption {params.get('preemption')}")


def state_line(state: Any) -> str:
    """One ``schedule()`` call's state with labelled fields."""
    if state is None:
        return "(no state)"
    names = lambda ids: ", ".join(ids) or "none"  # noqa: E731
    scheduled = ", ".join(f"{rid}: {tokens}" for rid, tokens in state.scheduled) or "none"
    return (f"admitted {names(state.admitted)} | running {names(state.running)} | tokens scheduled {scheduled} | "
            f"finished {names(state.finished)} | preempted {names(state.preempted)} | KV blocks in use "
            f"{state.blocks_used}")


def interpret_divergence(ours: Any, theirs: Any, subject: str, reference: str, instance: Instance) -> str:
    """One line that reads the first differing call: what ``subject`` (the class in vLLM) did that
    ``reference`` (the model) did not.

    >>> from geosched.reference_impl.model import burst_instance
    >>> from geosched.reference_impl.vllm.semantics import StepState
    >>> leak = StepState(3, (), (), (), (), (), 1)
    >>> interpret_divergence(leak, StepState(3, (), (), (), (), (), 0), "Mine in vLLM", "model",
    ...                      burst_instance(4, [(1, 1)]))
    'Mine in vLLM holds 1 KV block with nothing running (the model holds 0): a block leak'
    """
    label = {r.id: f"{r.id} (s = {r.prompt}, o = {r.output})" for r in instance.requests}
    said = lambda ids: ", ".join(label.get(rid, rid) for rid in ids)  # noqa: E731
    if ours.blocks_used != theirs.blocks_used and not ours.running and ours.blocks_used:
        plural = "s" * (ours.blocks_used != 1)
        return (f"{subject} holds {ours.blocks_used} KV block{plural} with nothing running (the {reference} holds "
                f"{theirs.blocks_used}): a block leak")
    if set(ours.preempted) != set(theirs.preempted):
        return _preemption_reading(ours, theirs, subject, reference, said)
    if ours.admitted != theirs.admitted:
        return _admission_reading(ours, theirs, subject, reference, said)
    if ours.running != theirs.running:
        return (f"the same admissions, but the running lists differ ({subject}: {', '.join(ours.running)}; the "
                f"{reference}: {', '.join(theirs.running)}): vLLM preempts from the end of this list")
    if ours.scheduled != theirs.scheduled:
        return (f"the same requests run, with other token counts ({subject}: {dict(ours.scheduled)}; the "
                f"{reference}: {dict(theirs.scheduled)}): a prefill chunked differently (token budget)")
    if ours.finished != theirs.finished:
        return (f"{subject} finishes {said(ours.finished) or 'nothing'}, the {reference} "
                f"{said(theirs.finished) or 'nothing'}: an output length (max_tokens) read differently")
    return (f"the same requests run, but {subject} holds {ours.blocks_used} KV blocks and the {reference} "
            f"{theirs.blocks_used}: blocks allocated or freed at another time")


def _preemption_reading(ours: Any, theirs: Any, subject: str, reference: str, said: Callable) -> str:
    extra, missing = set(ours.preempted) - set(theirs.preempted), set(theirs.preempted) - set(ours.preempted)
    if extra and not missing:
        return f"{subject} preempts {said(sorted(extra))}, which the {reference} keeps running"
    if missing and not extra:
        return f"the {reference} preempts {said(sorted(missing))}, which {subject} keeps running"
    return (f"another victim: {subject} preempts {said(sorted(extra))}, the {reference} "
            f"{said(sorted(missing))}")


def _admission_reading(ours: Any, theirs: Any, subject: str, reference: str, said: Callable) -> str:
    if set(ours.admitted) == set(theirs.admitted):
        k = next(j for j, (a, b) in enumerate(zip(ours.admitted, theirs.admitted, strict=True)) if a != b)
        return (f"the same requests are admitted in another order: {subject} starts {said([ours.admitted[k]])} "
                f"before {said([theirs.admitted[k]])}, the {reference} the other way round (the queue order "
                "differs)")
    extra = [rid for rid in ours.admitted if rid not in theirs.admitted]
    missing = [rid for rid in theirs.admitted if rid not in ours.admitted]
    if extra and not missing:
        return (f"{subject} admits {said(extra)}, which the {reference} holds back (its memory check or the head "
                "of its queue)")
    if missing and not extra and _leaks(ours, theirs):
        return (f"the {reference} admits {said(missing)}, which {subject} holds back while it holds "
                f"{ours.blocks_used} KV blocks for a subset of the {reference}'s running requests (the "
                f"{reference} holds {theirs.blocks_used} with them and more): blocks no running request holds, "
                "a block leak")
    if missing and not extra:
        return (f"the {reference} admits {said(missing)}, which {subject} holds back (a stricter admission or "
                "another queue head)")
    return f"another choice: {subject} admits {said(extra)}, the {reference} {said(missing)} (the queue order differs)"


def _leaks(ours: Any, theirs: Any) -> bool:
    """``ours`` runs only requests ``theirs`` runs, fewer of them, yet holds at least as many KV blocks: every
    running request holds a block of its own, so some of ours belong to no running request (never freed)."""
    return (set(ours.running) < set(theirs.running) and ours.blocks_used >= theirs.blocks_used
            and ours.blocks_used > 0)


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
    if not first.ok:
        what = "the given workload" if minimal == instance else "the shrunk instance"
        origin = ("not shrunk (--no-shrink)" if not shrink else "already minimal" if minimal == instance else
                  f"shrunk from the given {instance.n} requests, M = {instance.memory}, in {checks} runs")
    else:
        what = "the shrunk instance"
        origin = (f"random instance {counts['searched']} of the search, {tally.agreed} before it agreed; shrunk by "
                  f"Hypothesis in {tally.ran - counts['searched']} runs")
    message = (f"{name} DIVERGES from the {label} on {what} ({minimal.n} requests, M = {minimal.memory}; {origin}): "
               f"first difference at schedule() call {diff.step}, in {', '.join(diff.fields)}")
    return SchedulerDiff("diverged", message, time.perf_counter() - started, name, label, first, minimal, diff,
                         checks, **counts, instance_label=what)


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

