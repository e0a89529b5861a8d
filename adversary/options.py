"""Options objects of the searches and of the hunt: every setting declared, defaulted and checked once.

:class:`SearchOptions` holds what the searches take besides the space and their run-time objects
(``rng``, ``callback``, ``initial``, ``state``): the annealers
(:func:`~geosched.adversary.search.anneal`, :func:`~geosched.adversary.structured.structured_search`)
and differential evolution (:func:`~geosched.adversary.search.differential_evolution_search`).
:class:`HuntOptions` holds what :func:`~geosched.adversary.hunt.hunt` takes besides the space and
where it writes, with the :class:`SearchOptions` it passes on to every search and restart it runs.

A new search setting is one field of :class:`SearchOptions` (a default, a comment, a check in
:meth:`SearchOptions.__post_init__`) and its name in the ``*_SETTINGS`` tuples of the searches
that read it: it is then a keyword of those searches and of ``hunt``, checked like every other
value, and recorded in the hunt's checkpoint (:meth:`HuntOptions.to_dict`).

Both objects are frozen; :func:`dataclasses.replace` (or :meth:`SearchOptions.updated`) makes a
changed copy and checks it again. Bad values raise :class:`~geosched.errors.ValidationError`,
one line naming the field and the value, as the command line does.

Example
-------
>>> options = SearchOptions(max_evals=200, cycle_evals=50)
>>> SearchOptions.from_dict(options.to_dict()) == options
True
>>> HuntOptions.from_keywords(method="structured", ties="robust").search.ties
'robust'
>>> SearchOptions(t_end=0)
Traceback (most recent call last):
...
geosched.errors.ValidationError: t_end: must be a finite number > 0 (got 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

from geosched.errors import ValidationError

__all__ = [
    "SearchOptions",
    "HuntOptions",
    "TIES",
    "HUNT_METHODS",
    "ANNEAL_SETTINGS",
    "STRUCTURED_SETTINGS",
    "DE_SETTINGS",
    "HUNT_SEARCH_SETTINGS",
]

TIES = ("given", "robust")
HUNT_METHODS = ("anneal", "de", "z3", "structured", "all")

# which SearchOptions fields each search reads (and so takes as keywords)
ANNEAL_SETTINGS = ("time_limit", "max_evals", "target", "callback_every", "t_start", "t_end", "cycle_seconds",
                   "cycle_evals")
STRUCTURED_SETTINGS = ANNEAL_SETTINGS + ("max_groups", "ties", "proposals")
DE_SETTINGS = ("time_limit", "max_evals", "target", "popsize")
# the search settings hunt() takes as keywords (its own time_limit is the whole budget, split between methods)
HUNT_SEARCH_SETTINGS = ("max_evals", "target", "callback_every", "t_start", "t_end", "cycle_seconds",
                        "cycle_evals", "max_groups", "ties", "proposals", "popsize")


def _is_number(value: Any) -> bool:
    """A real number that a float holds (no bool, no NaN, no int beyond the float range)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return not math.isnan(float(value))
    except OverflowError:
        return False


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _positive(name: str, value: Any) -> None:
    if not _is_number(value) or not 0 < value < math.inf:
        raise ValidationError(name, value, "must be a finite number > 0")


def _non_negative(name: str, value: Any) -> None:
    if not _is_number(value) or not 0 <= value < math.inf:
        raise ValidationError(name, value, "must be a finite number >= 0")


def _count(name: str, value: Any, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if not _is_int(value) or value < 1:
        raise ValidationError(name, value, "must be an integer >= 1" + (" or None" if optional else ""))


def _from_dict(cls: type, data: Any, where: str) -> dict[str, Any]:
    """``data``'s keys checked against ``cls``'s fields (missing ones take their defaults)."""
    if not isinstance(data, dict):
        raise ValidationError(where, data, f"must be an object of {cls.__name__} fields")
    known = [f.name for f in fields(cls)]
    unknown = sorted(set(data) - set(known), key=str)
    if unknown:
        raise ValidationError(f"{where}.{unknown[0]}", data[unknown[0]], f"unknown option; known: {', '.join(known)}")
    return dict(data)


@dataclass(frozen=True)
class SearchOptions:
    """Settings of the searches (module docstring); each search reads the fields in its ``*_SETTINGS``."""

    time_limit: float = 10.0  # seconds of search in this call (math.inf: stop by max_evals or target only)
    max_evals: int | None = None  # stop after this many evaluations
    target: float | None = None  # stop once this certified ratio is reached
    callback_every: float = 1.0  # annealers: seconds between callbacks (de calls back every generation)
    t_start: float = 0.05  # annealers: temperature at the start of a cooling cycle
    t_end: float = 0.0005  # annealers: temperature at its end (geometric cooling in between)
    cycle_seconds: float = 60.0  # annealers: a cycle's length in seconds (at most time_limit)
    cycle_evals: int | None = None  # annealers: the cycle in iterations instead (a function of rng alone)
    max_groups: int = 4  # structured: most groups in a description
    ties: str = "given"  # structured: "robust" scores the worse of the given and the reversed tie order
    popsize: int = 15  # de: scipy's popsize (population = popsize * dimension)
    proposals: bool = False  # structured: also start from and jump to the fluid analysis's family proposals

    def __post_init__(self) -> None:
        if not _is_number(self.time_limit) or self.time_limit < 0:
            raise ValidationError("time_limit", self.time_limit, "must be a number >= 0 (math.inf: no limit)")
        _count("max_evals", self.max_evals, optional=True)
        if self.target is not None:
            _positive("target", self.target)
        _non_negative("callback_every", self.callback_every)
        for name in ("t_start", "t_end"):
            _positive(name, getattr(self, name))
        _positive("cycle_seconds", self.cycle_seconds)
        _count("cycle_evals", self.cycle_evals, optional=True)
        if not _is_int(self.max_groups) or self.max_groups < 1:
            raise ValidationError("max_groups", self.max_groups, "must be >= 1")
        if self.ties not in TIES:
            raise ValidationError("ties", self.ties, f"must be one of {', '.join(TIES)}")
        _count("popsize", self.popsize)
        if not isinstance(self.proposals, bool):
            raise ValidationError("proposals", self.proposals, "must be True or False")

    def updated(self, **changes: Any) -> SearchOptions:
        """A checked copy with ``changes`` (``self`` when there are none)."""
        return replace(self, **changes) if changes else self

    @classmethod
    def for_search(cls, options: SearchOptions | None, settings: dict[str, Any], accepted: tuple[str, ...],
                   function: str) -> SearchOptions:
        """``options`` (default: the defaults) updated by a search's keyword ``settings``, which must
        be among the fields it reads (``accepted``); any other keyword is a TypeError, as Python's."""
        unknown = [name for name in settings if name not in accepted]
        if unknown:
            raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
        if options is None:
            options = cls()
        elif not isinstance(options, cls):
            raise ValidationError("options", options, f"must be a {cls.__name__}")
        return options.updated(**settings)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Any, where: str = "options") -> SearchOptions:
        """The inverse of :meth:`to_dict`; missing fields take their defaults, unknown ones are refused."""
        return cls(**_from_dict(cls, data, where))


def _hunt_search_default() -> SearchOptions:
    return SearchOptions(callback_every=0.5)  # the hunt's progress line and checkpoint look twice a second


@dataclass(frozen=True)
class HuntOptions:
    """Settings of a hunt (what it searches, for how long, how it certifies); ``search`` is passed on.

    ``search.time_limit`` is not used: each method's time limit is its share of ``time_limit``;
    in rounds mode the restarts run ``evals`` evaluations each, cooling cycles of ``evals // 4``.
    """

    method: str = "all"  # anneal, de, z3, structured, or all (anneal, de and z3)
    time_limit: float = 60.0  # seconds of this run, its searches and their certification (a resume adds this much)
    seed: int | None = 0  # seed of every random choice (a resume keeps the checkpoint's)
    rounds: int | None = None  # reproducible mode: rounds of restarts instead of a time limit
    restarts: int = 8  # with rounds: restarts per round
    evals: int = 2000  # with rounds: evaluations per restart
    checkpoint_every: float = 3.0  # seconds between checkpoints of a time-limited search
    certify_budget: float = 5.0  # seconds of witness search per certified candidate
    z3_bounds: dict[str, Any] | None = field(default=None, hash=False)  # z3's bisection bounds (z3search)
    search: SearchOptions = field(default_factory=_hunt_search_default)  # passed on to every search

    def __post_init__(self) -> None:
        if self.method not in HUNT_METHODS:
            raise ValidationError("method", self.method, f"must be one of {', '.join(HUNT_METHODS)}")
        _positive("time_limit", self.time_limit)
        if self.seed is not None and (not _is_int(self.seed) or self.seed < 0):
            raise ValidationError("seed", self.seed, "must be an integer >= 0 or None")
        _count("rounds", self.rounds, optional=True)
        _count("restarts", self.restarts)
        _count("evals", self.evals)
        _positive("checkpoint_every", self.checkpoint_every)
        _positive("certify_budget", self.certify_budget)
        if self.z3_bounds is not None and not isinstance(self.z3_bounds, dict):
            raise ValidationError("z3_bounds", self.z3_bounds, "must be a dict of z3search bounds or None")
        if not isinstance(self.search, SearchOptions):
            raise ValidationError("search", self.search, "must be a SearchOptions")
        if math.isinf(self.search.time_limit):  # not used by a hunt, but recorded in its (strict JSON) checkpoint
            raise ValidationError("search.time_limit", self.search.time_limit, "must be finite in a hunt (the hunt "
                                  "sets each search's time limit)")

    @classmethod
    def keyword_names(cls) -> tuple[str, ...]:
        """The keywords ``hunt`` takes besides its own parameters: every field but ``search``, then the
        search settings of :data:`HUNT_SEARCH_SETTINGS`."""
        return tuple(f.name for f in fields(cls) if f.name != "search") + HUNT_SEARCH_SETTINGS

    @classmethod
    def from_keywords(cls, options: HuntOptions | None = None, *, function: str = "hunt",
                      **settings: Any) -> HuntOptions:
        """``options`` (default: the defaults) updated by ``hunt``'s keywords: a HuntOptions field, or a
        search setting of :data:`HUNT_SEARCH_SETTINGS` (``target``, ``ties``, ...) that goes to ``search``."""
        if options is None:
            options = cls()
        elif not isinstance(options, cls):
            raise ValidationError("options", options, "must be a HuntOptions")
        own = {f.name for f in fields(cls)} - {"search"}
        unknown = [name for name in settings if name not in cls.keyword_names()]
        if unknown:
            raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
        search = {k: v for k, v in settings.items() if k in HUNT_SEARCH_SETTINGS}
        changes = {k: v for k, v in settings.items() if k in own}
        if search:
            changes["search"] = options.search.updated(**search)
        return replace(options, **changes) if changes else options

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["z3_bounds"] = dict(self.z3_bounds) if self.z3_bounds is not None else None
        data["search"] = self.search.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "options") -> HuntOptions:
        """The inverse of :meth:`to_dict`; missing fields take their defaults, unknown ones are refused."""
        values = _from_dict(cls, data, where)
        if "search" in values:
            values["search"] = SearchOptions.from_dict(values["search"], f"{where}.search")
        return cls(**values)
