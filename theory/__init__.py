"""Symbolic derivations of every claim, as data, checked by sympy.

Stable API (the claims ledger in :mod:`geosched.verify` relies on it):

* ``DERIVATIONS: dict[str, Callable[[], Derivation]]``: one factory per claim id (the ids are
  the ledger's keys, each declared beside its derivation as ``CLAIM = Claim(...)``; ``CLAIMS``: those
  rows in the papers' order; :mod:`geosched.theory.claim`).
* ``get_derivation(claim_id) -> Derivation``; an unknown id raises
  :class:`~geosched.errors.UnknownNameError` listing the known ones.
* ``check_claim(claim_id) -> DerivationCheck``: the derivation's steps *and* those of every
  claim it relies on (transitively); this is what ``geosched prove`` prints.
* ``Derivation.check() -> DerivationCheck`` with ``.status`` in ``{"proved", "proved relative",
  "refuted", "unknown"}``, ``.message`` (one line, e.g. "partially checked: 7 of 10 steps ..."),
  ``.wall_time`` (seconds), ``.steps`` (per-step :class:`StepCheck`: ``index``, ``method``,
  ``status`` in ``{"checked", "failed", "inconclusive", "not_checkable", "error"}``,
  ``message``, ``witness``, ``wall_time``), ``.depends_on`` and ``.to_dict()``.
* ``Derivation.render_text(check=None)``, ``render_latex(check=None)``, ``to_dict(check=None)``.

"proved" means every step was mechanically checked, and (``check_claim``) every step of every
claim it relies on; "proved relative" means its own steps are all checked but a claim it relies
on is not proved (the message names the unchecked steps); a single step sympy cannot check (a
combinatorial or queueing argument, marked "not mechanically checkable") makes the status
"unknown", and so does relying on a refuted claim; a step sympy finds false makes it "refuted".
See :mod:`geosched.theory.derivation` and ``docs/theory.md``.

The families behind ``kong.sjf_unbounded`` and ``jaillet.thm4.1`` are exposed for checks
against the simulator: :func:`~geosched.theory.kong_sjf_unbounded.sjf_family`,
:func:`~geosched.theory.kong_sjf_unbounded.closed_form_tels`,
:func:`~geosched.theory.jaillet_thm4_1.adversarial_family`,
:func:`~geosched.theory.jaillet_thm4_1.closed_form_tels`,
:func:`~geosched.theory.jaillet_thm4_1.witness_starts`.

Example
-------
>>> from geosched.theory import DERIVATIONS, check_claim, get_derivation
>>> get_derivation("kong.thm3.2").check().status
'proved relative'
>>> check_claim("kong.volume").status
'proved'
>>> [claim for claim in sorted(DERIVATIONS) if claim.startswith("jaillet.")]
['jaillet.thm4.1', 'jaillet.thm4.3']
"""

from typing import TYPE_CHECKING

from geosched.lazy import lazy_exports

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use (sympy is slow)
    from geosched.theory.claim import Claim
    from geosched.theory.derivation import Derivation, DerivationCheck, Hypothesis, OpenStep, Step, StepCheck
    from geosched.theory.registry import CLAIMS, DERIVATIONS, check_claim, claim_ids, get_derivation

# public name -> the module that defines it (imported on first access)
_EXPORTS = {
    "DERIVATIONS": "geosched.theory.registry",
    "CLAIMS": "geosched.theory.registry",
    "Claim": "geosched.theory.claim",
    "get_derivation": "geosched.theory.registry",
    "check_claim": "geosched.theory.registry",
    "claim_ids": "geosched.theory.registry",
    "Derivation": "geosched.theory.derivation",
    "DerivationCheck": "geosched.theory.derivation",
    "Hypothesis": "geosched.theory.derivation",
    "OpenStep": "geosched.theory.derivation",
    "Step": "geosched.theory.derivation",
    "StepCheck": "geosched.theory.derivation",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ = [  # a literal list, as linters and type checkers read it (the same names as _EXPORTS)
    "DERIVATIONS",
    "CLAIMS",
    "Claim",
    "get_derivation",
    "check_claim",
    "claim_ids",
    "Derivation",
    "DerivationCheck",
    "Hypothesis",
    "OpenStep",
    "Step",
    "StepCheck",
]
