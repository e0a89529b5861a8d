"""geosched.verify: machine checks of the papers' claims and the claims ledger.

* :mod:`.monitor`: the certificate monitor (Kong et al. Lemma A.2 at every blocked step);
* :mod:`.exhaustive`: every small burst instance with exact OPT (Thm. 3.2, Prop. 3.1, Lemma A.2)
  and the variants the proofs do not cover;
* :mod:`.montecarlo`: Monte-Carlo check of Thm. 3.4 / 3.5;
* :mod:`.lemmas`, :mod:`.policy_spec`: Z3 lemmas and the verified admission step;
* :mod:`.ledger`: ``geosched claims``, one status per claim from running its checks.

Submodules are imported on use (``from geosched.verify.ledger import run_claims``), so that
importing the package does not load Z3 or sympy; ``geosched.verify.run_claims`` loads the ledger
on first use (:mod:`geosched._lazy`).
"""

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

# the public names, each declared once (geosched._lazy reads this block; each is imported on first use)
if TYPE_CHECKING:
    from geosched.verify.ledger import run_claims as run_claims

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
