"""geosched: formal verification and theory companion to geometry-aware LLM scheduling.

``import geosched as gs`` gives the names a user needs; each is imported on first use, so
that ``import geosched`` stays fast (no numpy, sympy, Z3 or OR-Tools until asked for):

==================  ==================================================================
``Instance``        a memory budget and requests (:mod:`geosched.reference_impl.model`)
``Request``         one request: id, arrival, prompt and output tokens
``load_workload``   an instance from a file, the shared trace or a generator spec
``generate``        a synthetic workload by name (``burst``, ``poisson``, ``example``...)
``simulate``        one policy on an instance (:mod:`geosched.reference_impl.simulation`; ``engine="coq"``:
                    the SVF proved in Coq, extracted, :mod:`geosched.engines`)
``compare``         several policies against OPT or a lower bound
``check_schedule``  the independent referee of a schedule
``solve_opt``       the exact offline optimum, with an honest status
``lower_bound``     the best proved lower bound on TEL(OPT)
``run_claims``      the claims ledger (:mod:`geosched.verify.ledger`)
``derivation``      a claim's symbolic derivation (``.bound`` is a sympy expression)
``hunt``            worst-case search with certified ratios
``verify_witness``  re-verify a witness with the checker alone
==================  ==================================================================

Example
-------
>>> import geosched as gs
>>> inst = gs.Instance(12, [gs.Request("a", 0, 6, 3), gs.Request("b", 0, 1, 5)])
>>> gs.simulate(inst, "svf").starts
{'a': 5, 'b': 0}
>>> gs.check_schedule(inst, {"a": 0, "b": 3}).metrics.tel
11
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from geosched._lazy import lazy_exports

# The public names, each declared once (``name as name``: the typing spec's explicit re-export); at run time
# geosched._lazy reads this block and imports each on first use. The functions are behind the argument checks of
# geosched.api (a bad argument is a ValidationError); type checkers see the functions themselves.
if TYPE_CHECKING:
    from geosched.adversary.hunt import hunt as hunt
    from geosched.adversary.witness import verify_witness as verify_witness
    from geosched.engines import simulate as simulate
    from geosched.errors import GeoschedError as GeoschedError
    from geosched.errors import InfeasibleScheduleError as InfeasibleScheduleError
    from geosched.errors import SolverError as SolverError
    from geosched.errors import TimeLimitError as TimeLimitError
    from geosched.errors import UnknownNameError as UnknownNameError
    from geosched.errors import ValidationError as ValidationError
    from geosched.errors import WorkloadFormatError as WorkloadFormatError
    from geosched.reference_impl.checker import check_schedule as check_schedule
    from geosched.reference_impl.compare import compare as compare
    from geosched.reference_impl.model import Instance as Instance
    from geosched.reference_impl.model import Request as Request
    from geosched.reference_impl.opt import lower_bound as lower_bound
    from geosched.reference_impl.opt import solve_opt as solve_opt
    from geosched.reference_impl.workloads import generate as generate
    from geosched.reference_impl.workloads import load_workload as load_workload
    from geosched.teaching import lessons, plot  # noqa: F401  (reachable, not exported: the teaching wing)
    from geosched.theory.registry import get_derivation
    derivation = get_derivation  # public under the short name
    from geosched.verify.ledger import run_claims as run_claims
    from geosched.version import __version__ as __version__

_declared, __dir__, __all__ = lazy_exports(__name__, __file__, globals())


def __getattr__(name: str) -> Any:
    """A declared name on first use; the functions come behind the argument checks of :mod:`geosched.api`."""
    api = importlib.import_module("geosched.api")  # not `from geosched import api`: that asks this __getattr__
    if name in api.WRAPPED:
        globals()[name] = api.checked(name)
        return globals()[name]
    return _declared(name)
