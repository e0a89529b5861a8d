"""The scheduler contract: what a scheduler sees, what it returns, what it declares.

A *scheduler* is asked, at every decision step ``t``, what to do with the requests it may
see. It receives a :class:`SchedulerState` (the time, the memory ``M``, the waiting requests
and the running requests with their age and usage) and returns a :class:`Decision`: which
waiting requests to start now and which running requests to preempt. The engine
(:func:`geosched.reference_impl.engine.run_scheduler`) applies the decision,
checks that the batch fits ``M`` at the next step, and records every *run* of every request:
a run started at ``x`` with ``k`` outputs kept holds ``s + k + (t - x)`` tokens at
``x < t <= end``; only the last run completes, ``o - k`` steps after its start.

A preempted request *restarts*: with :attr:`Restart.FROM_SCRATCH` (the default) its decoded
tokens are lost (reported as ``lost_tokens``); with :attr:`Restart.KEEP_OUTPUTS` (vLLM's
recompute preemption: the KV cache is freed, the sampled tokens stay in the sequence and are
re-prefilled on resumption) the next run starts from the outputs decoded so far.

**What a scheduler may know.** Arrival, prompt, position and its own history (restarts,
outputs kept); the output length ``o`` *only if it declares* ``clairvoyant = True``: a
non-clairvoyant scheduler receives views whose :attr:`WaitingView.output` raises
:class:`CapabilityError`. A scheduler that declares ``preempts = False`` and returns a
preemption gets a :class:`DecisionError`. Both are checked by the engine, not trusted.

**Where the rest lives** (one concept per module, as vLLM keeps interface, data and
implementation apart): the one registry of every scheduler with its :class:`Capability` set in
:mod:`geosched.reference_impl.scheduler_registry`; a user's own scheduler file
(``path/to/file.py:Class``), loaded and run in a process of its own, in
:mod:`geosched.reference_impl.user_schedulers`. **Priority rules** (:mod:`geosched.reference_impl.policies`:
``fcfs``, ``sjf``, ``svf``, ``svf1``) are one implementation of the contract
(:class:`geosched.reference_impl.schedulers.priority.PriorityRuleScheduler`) that declares
:attr:`Capability.PRIORITY_RULE`: :func:`~geosched.reference_impl.simulation.simulate` routes
them to the event-driven engine, the fast path, and everything else to the step engine.

Example
-------
>>> Decision(admit=("r0",)).preempt
()
>>> WaitingView("r0", 0, 6, 0).output
Traceback (most recent call last):
...
geosched.reference_impl.scheduling.CapabilityError: a non-clairvoyant scheduler cannot read output lengths ...
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, runtime_checkable

from geosched.errors import GeoschedError, ValidationError
from geosched.reference_impl.model import block_tokens

__all__ = [
    "Capability",
    "Restart",
    "Run",
    "WaitingView",
    "RunningView",
    "SchedulerState",
    "Decision",
    "Scheduler",
    "CapabilityError",
    "DecisionError",
]


class Capability(enum.Enum):
    """What a registered scheduler is, and what can run it."""

    SIMULATOR = "simulator"  # geosched.reference_impl.simulation.simulate (every scheduler)
    FAST = "fast"  # geosched.adversary.fast, the compiled evaluator (priority rules with array_keys)
    Z3 = "z3"  # the Z3 specifications encode its key (verify.policy_spec, adversary.z3search)
    VLLM = "vllm"  # the vLLM scheduler plugin (geosched.reference_impl.vllm) runs it
    PRIORITY_RULE = "priority_rule"  # a key per request under the forward-looking check (the fast path)
    CLAIRVOYANT = "clairvoyant"  # it sees output lengths (priority rules: the predictor's)
    PREEMPTS = "preempts"  # it may return preemptions


class Restart(enum.Enum):
    """What a preempted request keeps."""

    FROM_SCRATCH = "from_scratch"  # its decoded tokens are lost; the next run decodes all o again
    KEEP_OUTPUTS = "keep_outputs"  # vLLM recompute: outputs kept, KV re-prefilled on resumption


class Run(NamedTuple):
    """One run of a request: it holds ``s + kept + (t - start)`` tokens at ``start < t <= end``."""

    start: int  # the decision step it was admitted at
    end: int  # the last step it holds memory (completion step for the last run)
    kept: int = 0  # outputs it resumed with (0: from scratch)


class CapabilityError(GeoschedError, PermissionError):
    """A scheduler read something its declared capabilities do not allow."""


class DecisionError(ValidationError):
    """A scheduler's decision breaks the protocol (an undeclared preemption, an unknown id,
    a batch over ``M`` at the next step)."""


_HIDDEN = ("a non-clairvoyant scheduler cannot read output lengths "
           "(declare clairvoyant = True to receive them)")


class _Output:
    """A request view's ``output``: only a clairvoyant scheduler is given it (``hidden_output``; else None)."""

    hidden_output: int | None

    @property
    def output(self) -> int:
        """The output length ``o``; raises :class:`CapabilityError` unless clairvoyant."""
        if self.hidden_output is None:
            raise CapabilityError(_HIDDEN)
        return self.hidden_output


@dataclass(frozen=True)
class WaitingView(_Output):
    """A waiting request as a scheduler sees it."""

    id: str  # a label (ties go by arrival, then position)
    arrival: int  # step it arrived
    prompt: int  # s
    position: int  # index in the instance
    restarts: int = 0  # runs it has had and lost
    kept: int = 0  # outputs it will resume with (Restart.KEEP_OUTPUTS), else 0
    hidden_output: int | None = field(default=None, repr=False)  # None for a non-clairvoyant scheduler


@dataclass(frozen=True)
class RunningView(_Output):
    """A running request as a scheduler sees it at step ``t`` (it started before ``t``)."""

    id: str
    arrival: int
    prompt: int
    position: int
    start: int  # the current run's start step
    age: int  # outputs decoded so far (kept ones included): kept + (t - start)
    usage: int  # tokens it holds at step t: prompt + age
    restarts: int = 0
    hidden_output: int | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SchedulerState:
    """Everything a scheduler sees at one decision step."""

    time: int  # the decision step t: admissions start at t and hold memory from t + 1
    memory: int  # M
    waiting: tuple[WaitingView, ...]  # arrived, not running, not done; by (arrival, position)
    running: tuple[RunningView, ...]  # in admission order
    block_size: int = 1  # KV block grain B: a request holding u tokens holds ceil(u / B) blocks (M % B == 0)

    @property
    def used(self) -> int:
        """Tokens held at step ``t`` by the running requests (whole blocks: ``B * ceil(usage / B)`` each)."""
        b = self.block_size
        return sum(block_tokens(r.usage, b) for r in self.running)


@dataclass(frozen=True)
class Decision:
    """What a scheduler does at one step: preemptions first, then admissions."""

    admit: tuple[str, ...] = ()  # waiting (or just preempted) ids started at t, in order
    preempt: tuple[str, ...] = ()  # running ids stopped at t (they held memory through t)
    quiet_until: int | None = None  # the scheduler promises empty decisions before this step
    # unless a request arrives or completes (the engine may skip to it); None: the next step


@runtime_checkable
class Scheduler(Protocol):
    """Anything that schedules: ``decide(state) -> Decision``.

    Declared as class attributes: ``clairvoyant`` (it receives output lengths), ``preempts``
    (it may preempt) and, optionally, ``restart`` (a :class:`Restart`, default
    ``FROM_SCRATCH``) and ``block_grain`` (``True``: it reads :attr:`SchedulerState.block_size`
    and may run at block grain; default ``False``). A scheduler object serves one run; the
    engine builds a fresh one per run when given a name or a class.
    """

    name: str
    clairvoyant: bool
    preempts: bool

    def decide(self, state: SchedulerState) -> Decision:
        """The decision at ``state.time``."""
        ...
