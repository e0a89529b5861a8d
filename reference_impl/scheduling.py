"""The scheduler protocol, and the one registry of everything that schedules.

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

**Priority rules** (:mod:`geosched.reference_impl.policies`: ``fcfs``, ``sjf``, ``svf``,
``svf1``) are one implementation of the protocol
(:class:`geosched.reference_impl.schedulers.priority.PriorityRuleScheduler`) that declares
:attr:`Capability.PRIORITY_RULE`: :func:`~geosched.reference_impl.simulation.simulate` routes
them to the event-driven engine, the fast path, and everything else to the step engine.

**The registry** (:data:`REGISTRY`) holds every name with its capabilities. Each module of
:mod:`geosched.reference_impl.schedulers` declares its own entries, ``SCHEDULERS = (SchedulerEntry(...),
...)``, beside the classes they build; the registry finds them by scanning that package on first use
(as the workload formats and the claims are found: no hand list), so adding a scheduler is one new
module there. :func:`register_scheduler` adds one from outside. A user's scheduler is
named by its file: ``path/to/file.py:ClassName`` (:func:`load_scheduler_class`), everywhere a
policy name is accepted (``simulate``, ``compare``, ``hunt``, the CLI's ``--policy``).

Example
-------
>>> "geo-guess" in scheduler_names(Capability.PREEMPTS), "geo-guess" in scheduler_names(Capability.CLAIRVOYANT)
(True, False)
>>> Decision(admit=("r0",)).preempt
()
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

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
    "SchedulerEntry",
    "SchedulerRegistry",
    "CapabilityError",
    "DecisionError",
    "REGISTRY",
    "scheduler_names",
    "register_scheduler",
    "resolve_factory",
    "load_scheduler_class",
    "is_file_spec",
    "scheduler_file_sha256",
    "load_pinned_class",
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


@dataclass(frozen=True)
class WaitingView:
    """A waiting request as a scheduler sees it."""

    id: str  # a label (ties go by arrival, then position)
    arrival: int  # step it arrived
    prompt: int  # s
    position: int  # index in the instance
    restarts: int = 0  # runs it has had and lost
    kept: int = 0  # outputs it will resume with (Restart.KEEP_OUTPUTS), else 0
    hidden_output: int | None = field(default=None, repr=False)  # None for a non-clairvoyant scheduler

    @property
    def output(self) -> int:
        """The output length ``o``; raises :class:`CapabilityError` unless clairvoyant."""
        if self.hidden_output is None:
            raise CapabilityError(_HIDDEN)
        return self.hidden_output


@dataclass(frozen=True)
class RunningView:
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

    @property
    def output(self) -> int:
        """The output length ``o``; raises :class:`CapabilityError` unless clairvoyant."""
        if self.hidden_output is None:
            raise CapabilityError(_HIDDEN)
        return self.hidden_output


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


@dataclass(frozen=True)
class SchedulerEntry:
    """One registered scheduler."""

    name: str  # the registry key, used on the command line and in every report
    factory: Callable[..., Any] | str  # builds it from its parameters, or "module:attribute"
    summary: str  # one line for help texts
    capabilities: frozenset[Capability]  # what it is and what can run it
    order: int = 100  # place in listings (then the declaring module's order): the paper's rules first

    def build(self, **params: Any) -> Any:
        """The object, built from ``params`` (a bad parameter: :class:`ValidationError`)."""
        factory = resolve_factory(self.factory)
        try:
            return factory(**params)
        except TypeError as exc:
            raise ValidationError(f"policy {self.name!r}", params, f"bad parameters ({exc})") from None


_RULE_ONLY = frozenset({Capability.FAST, Capability.Z3, Capability.VLLM, Capability.PRIORITY_RULE})
SCHEDULER_PACKAGE = "geosched.reference_impl.schedulers"  # every module there may declare SCHEDULERS


class SchedulerRegistry(MutableMapping[str, SchedulerEntry]):
    """name -> :class:`SchedulerEntry`: the entries the modules of :data:`SCHEDULER_PACKAGE` declare
    (``SCHEDULERS``), found by scanning the package on first use and listed by ``order``, then
    those added here (:func:`register_scheduler`, ``register_policy``), in the order they came."""

    def __init__(self, package: str) -> None:
        self._package = package
        self._entries: dict[str, SchedulerEntry] | None = None
        self._added: dict[str, SchedulerEntry] = {}  # entries set before the scan, kept over it

    def _all(self) -> dict[str, SchedulerEntry]:
        if self._entries is None:
            found: list[SchedulerEntry] = []
            package = importlib.import_module(self._package)
            for info in pkgutil.iter_modules(package.__path__):
                declared = getattr(importlib.import_module(f"{self._package}.{info.name}"), "SCHEDULERS", ())
                found += [entry for entry in declared if isinstance(entry, SchedulerEntry)]
            entries: dict[str, SchedulerEntry] = {}
            for entry in sorted(found, key=lambda e: e.order):  # stable: a module's own order is kept
                if entry.name in entries:
                    raise ValidationError("scheduler", entry.name, f"is declared twice in {self._package}")
                entries[entry.name] = entry
            self._entries = {**entries, **self._added}
        return self._entries

    def __getitem__(self, name: str) -> SchedulerEntry:
        return self._all()[name]

    def __setitem__(self, name: str, entry: SchedulerEntry) -> None:
        if self._entries is None:
            self._added[name] = entry
        else:
            self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._all()[name]
        self._added.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"SchedulerRegistry({list(self)})"


REGISTRY = SchedulerRegistry(SCHEDULER_PACKAGE)


def scheduler_names(capability: Capability | None = None) -> tuple[str, ...]:
    """Every registered name, in registration order; with ``capability``, those that have it.

    >>> scheduler_names()[:6]
    ('fcfs', 'sjf', 'svf', 'svf1', 'vllm-fcfs', 'vllm-priority')
    """
    return tuple(name for name, entry in REGISTRY.items()
                 if capability is None or capability in entry.capabilities)


def register_scheduler(name: str, factory: Callable[..., Any] | str, *, summary: str = "",
                       capabilities: Iterable[Capability] = ()) -> None:
    """Add a scheduler under ``name`` (overwrites an existing one on purpose); it always has
    :attr:`Capability.SIMULATOR`. Declare ``CLAIRVOYANT``/``PREEMPTS`` as the class does: the
    engine checks the class's own attributes, whatever the registry says."""
    capabilities = frozenset(capabilities)
    rule_only = capabilities & _RULE_ONLY
    if rule_only:
        raise ValidationError(f"scheduler {name!r} capabilities", sorted(c.value for c in rule_only),
                              "belong to priority rules (register_policy): the compiled evaluator, the Z3 "
                              "specifications and the vLLM plugin run keys, not decide()")
    REGISTRY[name] = SchedulerEntry(name, factory, summary or name, capabilities | {Capability.SIMULATOR})


def resolve_factory(factory: Callable[..., Any] | str) -> Callable[..., Any]:
    """A factory, or the attribute a ``"module:attribute"`` path names."""
    if callable(factory):
        return factory
    module_name, _, attribute = factory.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def is_file_spec(spec: object) -> bool:
    """``True`` for ``"path/to/file.py:Class"`` (a user's scheduler file).

    >>> is_file_spec("my_sched.py:MyScheduler"), is_file_spec("svf1:theta=8")
    (True, False)
    """
    return isinstance(spec, str) and spec.partition(":")[0].endswith(".py")


_LOADED: dict[str, Any] = {}  # absolute file path -> module, so a file is executed once
_LOADED_SHA256: dict[str, str] = {}  # absolute file path -> SHA-256 of the bytes it executed


def scheduler_file_sha256(spec: str) -> str:
    """The SHA-256 (hex) of the scheduler file of ``"path/to/file.py:Class"``: of the bytes this
    process executed if it loaded the file, else of the file now (read, never imported).
    A witness records it, and ``check-witness`` refuses a file that differs."""
    full = os.path.abspath(spec.partition(":")[0])
    if full in _LOADED_SHA256:
        return _LOADED_SHA256[full]
    try:
        with open(full, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError as exc:
        raise ValidationError("policy", spec, f"cannot read the scheduler file ({exc.strerror})") from None


def load_scheduler_class(spec: str) -> type:
    """The class ``Class`` defined in the file of ``"path/to/file.py:Class"``.

    Raises
    ------
    ValidationError
        One line naming the spec: no such file, the file fails to import, no such class, or
        the class is not a scheduler (no ``decide``, ``clairvoyant``, ``preempts``, ``name``).
    """
    path, _, class_name = spec.partition(":")
    if not class_name.isidentifier():
        raise ValidationError("policy", spec, "a scheduler file is named 'path/to/file.py:ClassName'")
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise ValidationError("policy", spec, f"no such file {path!r}")
    module = _LOADED.get(full) or _import_file(full, spec)
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValidationError("policy", spec, f"{path!r} defines no class {class_name!r}")
    missing = [a for a in ("name", "clairvoyant", "preempts", "decide") if not hasattr(cls, a)]
    if missing:
        raise ValidationError("policy", spec, f"not a scheduler: the class lacks {', '.join(missing)}")
    return cls


def _import_file(full: str, spec: str) -> Any:
    try:
        with open(full, "rb") as handle:
            source = handle.read()  # hashed and executed: the same bytes
    except OSError as exc:
        raise ValidationError("policy", spec, f"cannot read the scheduler file ({exc.strerror})") from None
    module = _execute(full, source, spec)
    _LOADED[full] = module
    _LOADED_SHA256[full] = hashlib.sha256(source).hexdigest()
    return module


def _execute(full: str, source: bytes, spec: str) -> Any:
    """A fresh module of ``source`` (the bytes of the file ``full``), registered under a name of its own."""
    name = "geosched_user_" + "".join(c if c.isalnum() else "_" for c in full)
    module_spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        exec(compile(source, full, "exec"), module.__dict__)  # noqa: S102 - the file the user named
    except Exception as exc:  # the user's file: report it in one line
        del sys.modules[name]
        raise ValidationError("policy", spec, f"the file fails to import ({type(exc).__name__}: {exc})") from None
    return module



def load_pinned_class(spec: str, sha256: str, *, field: str = "--scheduler-cls") -> type:
    """The class of ``"path/to/file.py:Class"`` when the file's bytes have the SHA-256 ``sha256`` (a plugin
    scheduler of the user's own, pinned by an export), executed in this process: the bytes hashed are the
    bytes executed. One line naming ``field`` for another file, a missing class or a file that fails."""
    path, _, class_name = spec.partition(":")
    if not is_file_spec(spec) or not class_name.isidentifier():
        raise ValidationError(field, spec, "must be a scheduler file FILE.py:Class")
    full = os.path.abspath(path)
    try:
        with open(full, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        raise ValidationError(field, spec, f"cannot read the file ({exc.strerror})") from None
    actual = hashlib.sha256(source).hexdigest()
    if actual != sha256:
        raise ValidationError(field, spec, f"its SHA-256 {actual} differs from the recorded {sha256}: not the file "
                              "the export was made with")
    module = _execute(full, source, spec)
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValidationError(field, spec, f"{path!r} defines no class {class_name!r}")
    return cls
