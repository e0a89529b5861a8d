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

from typing import TYPE_CHECKING

from geosched.errors import (
    GeoschedError,
    InfeasibleScheduleError,
    SolverError,
    TimeLimitError,
    UnknownNameError,
    ValidationError,
    WorkloadFormatError,
)
from geosched.lazy import lazy_exports
from geosched.version import __version__

# public name -> (module, attribute): resolved on first access by __getattr__ (geosched.lazy)
_LAZY = {
    "Instance": ("geosched.reference_impl.model", "Instance"),
    "Request": ("geosched.reference_impl.model", "Request"),
    # the functions, behind the argument checks of geosched.api (a bad argument is a ValidationError)
    **{name: ("geosched.api", name) for name in (
        "load_workload", "generate", "simulate", "compare", "check_schedule", "solve_opt", "lower_bound",
        "run_claims", "derivation", "hunt", "verify_witness")},
    # the teaching wing's modules (geosched.teaching), for `from geosched import plot`; not in __all__
    "plot": ("geosched.teaching", "plot"),
    "lessons": ("geosched.teaching", "lessons"),
}

__all__ = [
    "__version__",
    "Instance",
    "Request",
    "load_workload",
    "generate",
    "simulate",
    "compare",
    "check_schedule",
    "solve_opt",
    "lower_bound",
    "run_claims",
    "derivation",
    "hunt",
    "verify_witness",
    "GeoschedError",
    "InfeasibleScheduleError",
    "SolverError",
    "TimeLimitError",
    "UnknownNameError",
    "ValidationError",
    "WorkloadFormatError",
]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names are lazy
    from geosched.adversary.hunt import hunt
    from geosched.adversary.witness import verify_witness
    from geosched.engines import simulate
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.compare import compare
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.opt import lower_bound, solve_opt
    from geosched.reference_impl.workloads import generate, load_workload
    from geosched.theory import get_derivation as derivation
    from geosched.verify.ledger import run_claims


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
