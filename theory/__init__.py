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

from geosched._lazy import lazy_exports

# the public names, each declared once (geosched._lazy reads this block; each is imported on first use)
if TYPE_CHECKING:
    from geosched.theory.claim import Claim as Claim
    from geosched.theory.derivation import Derivation as Derivation
    from geosched.theory.derivation import DerivationCheck as DerivationCheck
    from geosched.theory.derivation import Hypothesis as Hypothesis
    from geosched.theory.derivation import OpenStep as OpenStep
    from geosched.theory.derivation import Step as Step
    from geosched.theory.derivation import StepCheck as StepCheck
    from geosched.theory.registry import CLAIMS as CLAIMS
    from geosched.theory.registry import DERIVATIONS as DERIVATIONS
    from geosched.theory.registry import check_claim as check_claim
    from geosched.theory.registry import claim_ids as claim_ids
    from geosched.theory.registry import get_derivation as get_derivation

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
