"""The registry of derivations: one factory per claim id, and the transitive check.

No list of modules: every module of this package that declares a claim row (``CLAIM = Claim(...)``
with ``derivation()``, or ``CLAIMS`` with ``DERIVATIONS``; :mod:`geosched.theory.claim`) is found by
walking the package, and the rows are sorted into the papers' order by their ``order`` key.
:mod:`geosched.theory` re-exports these names; this module is what imports every derivation
(and so sympy), which the package itself does not do until a name is used.

Example
-------
>>> check_claim("kong.volume").status
'proved'
"""


from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

import geosched.theory
from geosched.errors import UnknownNameError, ValidationError
from geosched.theory.claim import Claim, sort_key
from geosched.theory.derivation import Derivation, DerivationCheck, OpenStep

__all__ = ["DERIVATIONS", "CLAIMS", "get_derivation", "check_claim", "claim_ids", "theory_modules"]

# the modules of this package that are not one claim's derivation
_INFRASTRUCTURE = ("claim", "derivation", "registry")


def theory_modules() -> tuple[ModuleType, ...]:
    """Every module of :mod:`geosched.theory` that declares a claim (``CLAIM``, or ``CLAIMS`` with
    ``DERIVATIONS``), found by walking the package: a new module is registered by being there."""
    found = []
    for info in pkgutil.iter_modules(geosched.theory.__path__):
        if info.name in _INFRASTRUCTURE or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"geosched.theory.{info.name}")
        if hasattr(module, "CLAIM") or hasattr(module, "CLAIMS"):
            found.append(module)
    return tuple(found)


def _declared(module: ModuleType) -> list[tuple[Claim, Callable[[], Derivation]]]:
    """The module's rows with their derivation factories: ``CLAIM`` with ``derivation``, or ``CLAIMS``
    with ``DERIVATIONS[id]`` (a row whose factory is missing is an error now, not when it runs)."""
    if hasattr(module, "CLAIM"):
        return [(module.CLAIM, module.derivation)]
    factories = getattr(module, "DERIVATIONS", {})
    missing = [c.id for c in module.CLAIMS if c.id not in factories]
    if missing:
        raise ValidationError(f"{module.__name__}.DERIVATIONS", missing[0], "must map every id of CLAIMS to its "
                              "derivation factory")
    return [(claim, factories[claim.id]) for claim in module.CLAIMS]


def _collect() -> list[tuple[Claim, Callable[[], Derivation]]]:
    rows = [pair for module in theory_modules() for pair in _declared(module)]
    return sorted(rows, key=lambda pair: sort_key(pair[0]))


_ROWS = _collect()
CLAIMS: tuple[Claim, ...] = tuple(claim for claim, _ in _ROWS)  # the theory's ledger rows, in the papers' order
DERIVATIONS: dict[str, Callable[[], Derivation]] = {claim.id: factory for claim, factory in _ROWS}


def claim_ids() -> list[str]:
    """The registered claim ids, in the papers' order."""
    return list(DERIVATIONS)


def get_derivation(claim_id: str) -> Derivation:
    """The derivation of ``claim_id``: its steps, each checked by sympy on ``.check()``.

    Parameters
    ----------
    claim_id : str
        A ledger id such as ``"kong.thm3.2"`` (see :func:`claim_ids`).

    Returns
    -------
    Derivation
        ``.bound`` is the claim's bound as a sympy expression (``None`` where the claim has no
        single one); ``.check()`` gives the status (``proved``, ``refuted``, ``unknown``).

    Raises
    ------
    UnknownNameError
        For an unknown id (the message lists the known ones).

    Examples
    --------
    >>> import sympy as sp
    >>> d = get_derivation("kong.thm3.2")
    >>> d.bound
    1 + 2/(1 - alpha)
    >>> d.bound.subs(sp.Symbol("alpha", positive=True), sp.Rational(1, 2))
    5
    """
    try:
        factory = DERIVATIONS[claim_id]
    except KeyError:
        raise UnknownNameError("claim", claim_id, list(DERIVATIONS)) from None
    return factory()


def check_claim(claim_id: str) -> DerivationCheck:
    """Check ``claim_id``'s derivation and, transitively, every derivation it relies on.

    The one rule for the word ``proved`` (shared with the ledger, ``geosched claims``):

    * ``"proved"``: every step here and in every claim it relies on is mechanically checked;
    * ``"proved relative"``: every step here is checked, but some claim it relies on is not
      proved; the message reads "proved relative to X; unchecked: X steps 5, 8, ...";
    * ``"refuted"``: a step here is false (sympy found a witness);
    * ``"unknown"``: a step here is not checked, or a claim it relies on is refuted.

    Parameters
    ----------
    claim_id : str
        A derivation id (see :func:`claim_ids`).

    Returns
    -------
    DerivationCheck
        Own steps in ``steps``; every unchecked step of the closure in ``open_steps`` (with the
        ledger methods that cover it); the dependencies not proved in ``relative_to``.

    Raises
    ------
    UnknownNameError
        For an unknown id.

    Examples
    --------
    >>> check = check_claim("kong.thm3.2")
    >>> check.status, check.relative_to
    ('proved relative', ('kong.lemmaA.2', 'kong.prop3.1'))
    >>> [o.label() for o in check.open_steps][:2]
    ['kong.lemmaA.2 step 5', 'kong.lemmaA.2 step 8']
    """
    return _check_closure(claim_id, {})


def _check_closure(claim_id: str, memo: dict[str, DerivationCheck]) -> DerivationCheck:
    if claim_id in memo:
        return memo[claim_id]
    own = get_derivation(claim_id).check()
    deps = [_check_closure(dep, memo) for dep in own.depends_on if dep in DERIVATIONS and dep != claim_id]
    open_steps = list(own.open_steps)
    for dep in deps:
        open_steps += [step for step in dep.open_steps if step not in open_steps]
    refuted = [d.claim_id for d in deps if d.status == "refuted"]
    relative = tuple(d.claim_id for d in deps if d.status != "proved")
    # a dependency's hypotheses carry its claim id (two derivations may both call a premise H1)
    inherited = [_qualified(d.claim_id, label) for d in deps for label in d.assumed]
    assumed = tuple(dict.fromkeys([*own.assumed, *inherited]))
    status, message = own.status, own.message
    if own.status in ("proved", "proved relative"):
        if refuted:
            status, message = "unknown", f"every step checked, but it relies on {', '.join(refuted)}, which is refuted"
        elif relative:
            status = "proved relative"
            message = f"all {len(own.steps)} steps mechanically checked; proved relative to {', '.join(relative)}"
            message += f"; unchecked: {_describe(open_steps)}" if open_steps else ""
            message += f"; assumed: {', '.join(assumed)}" if assumed else ""
        elif assumed:
            status = "proved relative"
            message = own.message if own.assumed == assumed else \
                f"{own.message}; proved relative to the hypotheses {', '.join(assumed)} (with its dependencies)"
        else:
            status = "proved"
            message = f"all {len(own.steps)} steps mechanically checked" + (
                f", and every step of {', '.join(own.depends_on)}" if own.depends_on else "")
    elif own.status == "unknown" and relative:
        message += f"; relies on {', '.join(relative)} (not proved by sympy alone: see the ledger's words)"
    result = DerivationCheck(status, message, own.wall_time + sum(d.wall_time for d in deps), claim_id, own.steps,
                             own.depends_on, tuple(open_steps), relative if status != "proved" else (), assumed)
    memo[claim_id] = result
    return result


def _qualified(claim_id: str, assumed: str) -> str:
    """``assumed`` prefixed with the claim that assumes it, once."""
    return assumed if assumed.startswith(f"{claim_id} ") else f"{claim_id} {assumed}"


def _describe(open_steps: list[OpenStep]) -> str:
    """``kong.lemmaA.2 steps 5, 8, 10; kong.prop3.1 steps 1, 2``."""
    by_claim: dict[str, list[int]] = {}
    for step in open_steps:
        by_claim.setdefault(step.claim_id, []).append(step.index)
    return "; ".join(f"{claim} step{'s' * (len(ix) > 1)} {', '.join(map(str, ix))}" for claim, ix in by_claim.items())
