"""The one registry of everything that schedules: every name with its capabilities.

:data:`REGISTRY` maps a name to a :class:`SchedulerEntry` (its factory, a one-line summary and its
:class:`~geosched.reference_impl.scheduling.Capability` set). Each module of
:mod:`geosched.reference_impl.schedulers` declares its own entries, ``SCHEDULERS = (SchedulerEntry(...),
...)``, beside the classes they build; the registry finds them by scanning that package on first use
(as the workload formats and the claims are found: no hand list), so adding a scheduler is one new
module there. :func:`register_scheduler` adds one from outside. A user's scheduler is not registered:
it is named by its file, ``path/to/file.py:Class``, everywhere a policy name is accepted
(:mod:`geosched.reference_impl.user_schedulers`).

Example
-------
>>> from geosched.reference_impl.scheduling import Capability
>>> "geo-guess" in scheduler_names(Capability.PREEMPTS), "geo-guess" in scheduler_names(Capability.CLAIRVOYANT)
(True, False)
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.scheduling import Capability

__all__ = ["SchedulerEntry", "SchedulerRegistry", "REGISTRY", "SCHEDULER_PACKAGE", "scheduler_names",
           "register_scheduler", "resolve_factory"]


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
