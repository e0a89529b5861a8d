"""geosched.reference_impl: the model, the checker, policies, predictors, the simulator,
workloads and the exact optimum. Everything else in geosched is measured against it."""

from geosched.reference_impl.checker import CheckReport, Metrics, Violation, check_schedule
from geosched.reference_impl.model import (
    Instance,
    Request,
    burst_instance,
    read_instance,
    volume,
    write_instance,
)
from geosched.reference_impl.policies import REGISTRY, Capability, make_policy, policy_names, register_policy
from geosched.reference_impl.predictors import PREDICTORS, make_predictor, register_predictor
from geosched.reference_impl.simulator import SimulationResult, admission_step, simulate
from geosched.reference_impl.workloads import generate, load_workload, read_trace

__all__ = [
    "CheckReport",
    "Instance",
    "Metrics",
    "REGISTRY",
    "Capability",
    "policy_names",
    "PREDICTORS",
    "Request",
    "SimulationResult",
    "Violation",
    "admission_step",
    "burst_instance",
    "check_schedule",
    "generate",
    "load_workload",
    "make_policy",
    "make_predictor",
    "read_instance",
    "read_trace",
    "register_policy",
    "register_predictor",
    "simulate",
    "volume",
    "write_instance",
]
