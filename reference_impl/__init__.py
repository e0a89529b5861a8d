"""geosched.reference_impl: the model, the checker, the scheduler protocol, policies,
predictors, the simulator, workloads and the exact optimum. Everything else in geosched is measured against it."""

from typing import TYPE_CHECKING

from geosched.lazy import lazy_exports

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from geosched.reference_impl.admission import admission_step
    from geosched.reference_impl.checker import CheckReport, Metrics, Violation, check_schedule
    from geosched.reference_impl.model import Instance, Request, burst_instance, read_instance, volume, write_instance
    from geosched.reference_impl.policies import REGISTRY, Capability, make_policy, policy_names, register_policy
    from geosched.reference_impl.predictors import PREDICTORS, make_predictor, register_predictor
    from geosched.reference_impl.scheduling import Decision, SchedulerState, register_scheduler, scheduler_names
    from geosched.reference_impl.simulation import SimulationResult, simulate
    from geosched.reference_impl.workloads import generate, load_workload, read_trace

# public name -> the module that defines it (imported on first access)
_EXPORTS = {
    "CheckReport": "geosched.reference_impl.checker",
    "Metrics": "geosched.reference_impl.checker",
    "Violation": "geosched.reference_impl.checker",
    "check_schedule": "geosched.reference_impl.checker",
    "Instance": "geosched.reference_impl.model",
    "Request": "geosched.reference_impl.model",
    "burst_instance": "geosched.reference_impl.model",
    "read_instance": "geosched.reference_impl.model",
    "volume": "geosched.reference_impl.model",
    "write_instance": "geosched.reference_impl.model",
    "REGISTRY": "geosched.reference_impl.policies",
    "Capability": "geosched.reference_impl.policies",
    "make_policy": "geosched.reference_impl.policies",
    "policy_names": "geosched.reference_impl.policies",
    "register_policy": "geosched.reference_impl.policies",
    "PREDICTORS": "geosched.reference_impl.predictors",
    "make_predictor": "geosched.reference_impl.predictors",
    "register_predictor": "geosched.reference_impl.predictors",
    "Decision": "geosched.reference_impl.scheduling",
    "SchedulerState": "geosched.reference_impl.scheduling",
    "register_scheduler": "geosched.reference_impl.scheduling",
    "scheduler_names": "geosched.reference_impl.scheduling",
    "SimulationResult": "geosched.reference_impl.simulation",
    "admission_step": "geosched.reference_impl.admission",
    "simulate": "geosched.reference_impl.simulation",
    "generate": "geosched.reference_impl.workloads",
    "load_workload": "geosched.reference_impl.workloads",
    "read_trace": "geosched.reference_impl.workloads",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ = [  # a literal list, as linters and type checkers read it (the same names as _EXPORTS)
    "CheckReport",
    "Metrics",
    "Violation",
    "check_schedule",
    "Instance",
    "Request",
    "burst_instance",
    "read_instance",
    "volume",
    "write_instance",
    "REGISTRY",
    "Capability",
    "make_policy",
    "policy_names",
    "register_policy",
    "PREDICTORS",
    "make_predictor",
    "register_predictor",
    "Decision",
    "SchedulerState",
    "register_scheduler",
    "scheduler_names",
    "SimulationResult",
    "admission_step",
    "simulate",
    "generate",
    "load_workload",
    "read_trace",
]
