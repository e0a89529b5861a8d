"""geosched: formal verification and theory companion to geometry-aware LLM scheduling.

The top-level package is small: the version, the error hierarchy and the CLI. The work is
done in the subpackages ``geosched.reference_impl`` (model, checker, policies, simulator,
exact optimum), ``geosched.theory`` (symbolic derivations), ``geosched.verify`` (machine
checks and the claims ledger) and ``geosched.adversary`` (worst-case instance search).
"""

from geosched.errors import (
    GeoschedError,
    InfeasibleScheduleError,
    SolverError,
    UnknownNameError,
    ValidationError,
    WorkloadFormatError,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "GeoschedError",
    "InfeasibleScheduleError",
    "SolverError",
    "UnknownNameError",
    "ValidationError",
    "WorkloadFormatError",
]
