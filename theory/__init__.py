"""Symbolic derivations of every claim, as data, checked by sympy.

Stable API (the claims ledger in :mod:`geosched.verify` relies on it):

* ``DERIVATIONS: dict[str, Callable[[], Derivation]]``: one factory per claim id (the ids are
  the ledger's keys: ``kong.volume``, ``kong.prop3.1``, ``kong.lemmaA.2``, ``kong.thm3.2``,
  ``kong.thm3.3``, ``kong.thm3.4``, ``kong.thm3.5``, ``kong.sjf_unbounded``,
  ``jaillet.thm4.1``, ``jaillet.thm4.3``, ``svf.lower_bound``).
* ``get_derivation(claim_id) -> Derivation``; an unknown id raises
  :class:`~geosched.errors.UnknownNameError` listing the known ones.
* ``Derivation.check() -> DerivationCheck`` with ``.status`` in ``{"proved", "refuted",
  "unknown"}``, ``.message`` (one line, e.g. "partially checked: 7 of 10 steps ..."),
  ``.wall_time`` (seconds), ``.steps`` (per-step :class:`StepCheck`: ``index``, ``method``,
  ``status`` in ``{"checked", "failed", "inconclusive", "not_checkable", "error"}``,
  ``message``, ``witness``, ``wall_time``), ``.depends_on`` and ``.to_dict()``.
* ``Derivation.render_text(check=None)``, ``render_latex(check=None)``, ``to_dict(check=None)``.

"proved" means every step was mechanically checked, relative to the claim's stated hypotheses
and the claims listed in ``depends_on``; a single step sympy cannot check (a combinatorial or
queueing argument, marked "not mechanically checkable") makes the status "unknown"; a step
sympy finds false makes it "refuted". See :mod:`geosched.theory.derivation` and
``docs/theory.md``.

The families behind ``kong.sjf_unbounded`` and ``jaillet.thm4.1`` are exposed for checks
against the simulator: :func:`~geosched.theory.kong_sjf_unbounded.sjf_family`,
:func:`~geosched.theory.kong_sjf_unbounded.closed_form_tels`,
:func:`~geosched.theory.jaillet_thm4_1.adversarial_family`,
:func:`~geosched.theory.jaillet_thm4_1.closed_form_tels`,
:func:`~geosched.theory.jaillet_thm4_1.witness_starts`.

Example
-------
>>> get_derivation("kong.thm3.2").check().status
'proved'
>>> sorted(DERIVATIONS)[:2]
['jaillet.thm4.1', 'jaillet.thm4.3']
"""

from __future__ import annotations

from collections.abc import Callable

from geosched.errors import UnknownNameError
from geosched.theory import (
    jaillet_thm4_1,
    jaillet_thm4_3,
    kong_lemma_a2,
    kong_prop3_1,
    kong_sjf_unbounded,
    kong_thm3_2,
    kong_thm3_3,
    kong_thm3_4,
    kong_thm3_5,
    kong_volume,
    svf_lower_bound,
)
from geosched.theory.derivation import Derivation, DerivationCheck, Hypothesis, Step, StepCheck

__all__ = [
    "DERIVATIONS",
    "get_derivation",
    "claim_ids",
    "Derivation",
    "DerivationCheck",
    "Hypothesis",
    "Step",
    "StepCheck",
]

_MODULES = (kong_volume, kong_prop3_1, kong_lemma_a2, kong_thm3_2, kong_thm3_3, kong_thm3_4, kong_thm3_5,
            kong_sjf_unbounded, jaillet_thm4_1, jaillet_thm4_3, svf_lower_bound)

DERIVATIONS: dict[str, Callable[[], Derivation]] = {module.CLAIM_ID: module.derivation for module in _MODULES}


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
