"""The public API's argument checks: ``gs.simulate(...)`` and the others validate like the CLI.

Every function :mod:`geosched` exports is, here, the same function behind a check of its
arguments: a wrong type or a value outside its range (a ``str`` where an
:class:`~geosched.reference_impl.model.Instance` is expected, a float ``n``, a bool seed, a
negative ``time_limit``, an unknown keyword) raises :class:`~geosched.errors.ValidationError`
naming the argument and the value, the one-line error the CLI prints, never a raw
``TypeError`` or ``AttributeError`` from deep inside. Unknown names (policies, methods, claims)
stay :class:`~geosched.errors.UnknownNameError`, which lists the known ones. The checks are
on types and ranges only; each function still validates what it reads (instances, files).

The wrapped functions are imported on first call, so that ``import geosched`` stays light.

Example
-------
>>> import geosched as gs
>>> gs.simulate("burst:n=3")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
geosched.errors.ValidationError: simulate: instance: must be an Instance (use gs.load_workload ...) (got 'burst:n=3')
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import os
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from geosched.errors import ValidationError

__all__ = ["WRAPPED", "checked", "unchecked"]

# the functions this module serves as attributes (``geosched.api.simulate``), each checked
WRAPPED = ("simulate", "compare", "check_schedule", "solve_opt", "lower_bound", "run_claims", "derivation",
           "hunt", "verify_witness", "load_workload", "generate")

Check = Callable[[str, Any], None]


# ---------------------------------------------------------------- checks of one argument


def instance(label: str, value: Any) -> None:
    from geosched.reference_impl.model import Instance

    if not isinstance(value, Instance):
        raise ValidationError(label, value, "must be an Instance (use gs.load_workload for a spec or file)")


def boolean(label: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValidationError(label, value, "must be True or False")


def integer(minimum: int, *, optional: bool = False) -> Check:
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValidationError(label, value, f"must be an integer >= {minimum}" + (" or None" if optional else ""))

    return check


def positive_real(*, optional: bool = False) -> Check:
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) \
                or not math.isfinite(value) or value <= 0:
            raise ValidationError(label, value, "must be a finite number > 0" + (" or None" if optional else ""))

    return check


def real(label: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, Fraction))
                              or not math.isfinite(value)):
        raise ValidationError(label, value, "must be a finite number or None")


def text(*, optional: bool = False) -> Check:
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, str) or not value:
            raise ValidationError(label, value, "must be a non-empty string" + (" or None" if optional else ""))

    return check


def names(*, optional: bool = False) -> Check:
    """A list or tuple of non-empty strings (a lone string is refused: it is not a list of names)."""
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) \
                or not all(isinstance(v, str) and v for v in value):
            raise ValidationError(label, value, "must be a list of names" + (" or None" if optional else ""))

    return check


def mapping(*, optional: bool = False) -> Check:
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, Mapping):
            raise ValidationError(label, value, "must be a mapping (a dict)" + (" or None" if optional else ""))

    return check


def path(*, optional: bool = False) -> Check:
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
            raise ValidationError(label, value, "must be a path (str or os.PathLike)"
                                  + (" or None" if optional else ""))

    return check


def paths(*, optional: bool = False) -> Check:
    """A list or tuple of paths (a lone path is refused: it is not a list of paths)."""
    def check(label: str, value: Any) -> None:
        if value is None and optional:
            return
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)) \
                or not all(isinstance(v, (str, os.PathLike)) and os.fspath(v) for v in value):
            raise ValidationError(label, value, "must be a list of paths" + (" or None" if optional else ""))

    return check


def rule(method: str, kind: str) -> Check:
    """A name, or an object with a ``name`` and the method ``method`` (a policy's ``keys``, a
    predictor's ``predict``)."""
    def check(label: str, value: Any) -> None:
        if isinstance(value, str) and value:
            return
        if not isinstance(value, str) and callable(getattr(value, method, None)) and hasattr(value, "name"):
            return
        raise ValidationError(label, value, f"must be a {kind} name or a {kind} object (with name and {method}())")

    return check


def policy_like(label: str, value: Any) -> None:
    """A policy or scheduler name, a priority rule (``name`` and ``keys``), or a scheduler of the
    protocol, object or class (``decide``: :mod:`geosched.reference_impl.scheduling`)."""
    if isinstance(value, str) and value:
        return
    if not isinstance(value, str) and callable(getattr(value, "decide", None)):
        return
    rule("keys", "policy")(label, value)


def callable_or_none(label: str, value: Any) -> None:
    if value is not None and not callable(value):
        raise ValidationError(label, value, "must be callable or None")


def segments(label: str, value: Any) -> None:
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(item, (list, tuple)) and len(item) == 3 and isinstance(item[0], str)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:]) for item in value):
        raise ValidationError(label, value, "must be a list of (id, start, last_step) tuples")


def search_space(label: str, value: Any) -> None:
    from geosched.adversary.search import SearchSpace

    if not isinstance(value, SearchSpace):
        raise ValidationError(label, value, "must be a geosched.adversary.search.SearchSpace")


def anything(label: str, value: Any) -> None:
    """An argument the function itself checks (an executor spec, a progress callback)."""


def hunt_options(label: str, value: Any) -> None:
    from geosched.adversary.options import HuntOptions

    if value is not None and not isinstance(value, HuntOptions):
        raise ValidationError(label, value, "must be a geosched.adversary.options.HuntOptions or None")


def _hunt_keywords() -> tuple[str, ...]:
    from geosched.adversary.options import HuntOptions

    return HuntOptions.keyword_names()


def keywords(known: Callable[[], tuple[str, ...]], checks: dict[str, Check]) -> Check:
    """A ``**settings`` parameter: every keyword one of ``known()``, each value through its check in
    ``checks`` where there is one (the others are checked by the options object they build)."""

    def check(label: str, value: Any) -> None:
        function = label.rsplit(":", 1)[0]
        names = known()
        for key, item in value.items():
            if key not in names:
                raise ValidationError(f"{function}: keyword", key, f"is not a setting (known: {', '.join(names)})")
            if key in checks:
                checks[key](f"{function}: {key}", item)

    return check


# ---------------------------------------------------------------- the wrapped functions


def _checked(module: str, attribute: str, checks: dict[str, Check]) -> Callable[..., Any]:
    """``module.attribute`` behind ``checks`` (parameter name -> check), imported on first call."""
    target = importlib.import_module(module)  # light: the wrapped modules import their heavy parts lazily
    function = getattr(target, attribute)
    signature = inspect.signature(function)
    label = attribute if attribute != "get_derivation" else "derivation"

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            given = f"{len(args)} positional, keywords {sorted(kwargs)}"
            raise ValidationError(f"{label}: arguments", given, str(exc)) from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            if name in checks:
                checks[name](f"{label}: {name}", value)
        return function(*bound.args, **bound.kwargs)

    return wrapper


_OPTIONAL_INT = integer(0, optional=True)
_TIME = positive_real()
_INSTANCE = {"instance": instance}
_LIMITS = {"max_steps": integer(1, optional=True), "decide_seconds": positive_real(optional=True)}  # geosched.limits


def unchecked(name: str) -> list[str]:
    """The parameters of ``name`` without a check here (a new one is passed through as given;
    ``tests/test_inputs.py`` requires this list to be empty)."""
    module, attribute, checks = _table()[name]
    signature = inspect.signature(getattr(importlib.import_module(module), attribute))
    return sorted(set(signature.parameters) - set(checks) - {"params"})


@functools.cache
def checked(name: str) -> Callable[..., Any]:
    """The function ``name`` of :data:`WRAPPED` behind its argument checks (built once)."""
    module, attribute, checks = _table()[name]
    return _checked(module, attribute, checks)


def _table() -> dict[str, tuple[str, str, dict[str, Check]]]:
    return {
        "simulate": ("geosched.engines", "simulate", {
            **_INSTANCE, "policy": policy_like, "predictor": rule("predict", "predictor"),
            "backfill": boolean, "observer": callable_or_none, "engine": text(), **_LIMITS,
            "coq_work_limit": integer(1, optional=True), "coq_time_limit": positive_real(optional=True)}),
        "compare": ("geosched.reference_impl.compare", "compare", {
            **_INSTANCE, "policies": names(), "predictor": rule("predict", "predictor"), "backfill": boolean,
            "opt": boolean, "time_limit": _TIME, "progress": boolean, **_LIMITS}),
        "check_schedule": ("geosched.reference_impl.checker", "check_schedule", {
            **_INSTANCE, "starts": mapping(), "evicted_segments": segments}),
        "solve_opt": ("geosched.reference_impl.opt", "solve_opt", {
            **_INSTANCE, "time_limit": _TIME, "method": text(), "warm_start": mapping(optional=True),
            "progress": boolean, "seed": integer(0)}),
        "lower_bound": ("geosched.reference_impl.opt", "lower_bound", {**_INSTANCE, "chain": boolean}),
        "run_claims": ("geosched.verify.ledger", "run_claims", {
            "claim_ids": names(optional=True), "thorough": boolean, "mode": text(optional=True),
            "out": path(optional=True), "seed": integer(0), "restart": boolean, "progress": anything,
            "follow_dependencies": boolean, "executor": anything, "time_limit": positive_real(optional=True),
            "on_row": callable_or_none, "traces": paths(optional=True)}),
        "derivation": ("geosched.theory", "get_derivation", {"claim_id": text()}),
        "hunt": ("geosched.adversary.hunt", "hunt", {
            "space": search_space, "options": hunt_options, "out": path(), "resume": boolean, "force": boolean,
            "progress": boolean, "executor": anything,
            "settings": keywords(_hunt_keywords, {
                "method": text(), "time_limit": _TIME, "seed": _OPTIONAL_INT, "target": real,
                "checkpoint_every": _TIME, "z3_bounds": mapping(optional=True), "certify_budget": _TIME,
                "ties": text(), "rounds": integer(1, optional=True), "restarts": integer(1), "evals": integer(1),
                "max_evals": integer(1, optional=True), "max_groups": integer(1), "popsize": integer(1),
                "proposals": boolean})}),
        "verify_witness": ("geosched.adversary.witness", "verify_witness", {"data": mapping(),
                                                                            "scheduler": text(optional=True)}),
        "load_workload": ("geosched.reference_impl.workloads", "load_workload", {
            "spec": text(), "memory": integer(1, optional=True), "seed": _OPTIONAL_INT, "arrivals": text(),
            "step_seconds": _TIME, "limit": integer(1, optional=True), "block_size": integer(1, optional=True)}),
        "generate": ("geosched.reference_impl.workloads", "generate", {"name": text()}),
    }


def __getattr__(name: str) -> Any:
    if name in WRAPPED:
        return checked(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
