"""geosched.reference_impl: the model, the checker, the scheduler protocol, policies,
predictors, the simulator, workloads and the exact optimum. Everything else in geosched is measured against it."""

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

# the public names, each declared once (geosched._lazy reads this block; each is imported on first use)
if TYPE_CHECKING:
    from geosched.reference_impl.admission import admission_step as admission_step
    from geosched.reference_impl.checker import CheckReport as CheckReport
    from geosched.reference_impl.checker import Metrics as Metrics
    from geosched.reference_impl.checker import Violation as Violation
    from geosched.reference_impl.checker import check_schedule as check_schedule
    from geosched.reference_impl.model import Instance as Instance
    from geosched.reference_impl.model import Request as Request
    from geosched.reference_impl.model import burst_instance as burst_instance
    from geosched.reference_impl.model import read_instance as read_instance
    from geosched.reference_impl.model import volume as volume
    from geosched.reference_impl.model import write_instance as write_instance
    from geosched.reference_impl.policies import REGISTRY as REGISTRY
    from geosched.reference_impl.policies import Capability as Capability
    from geosched.reference_impl.policies import make_policy as make_policy
    from geosched.reference_impl.policies import policy_names as policy_names
    from geosched.reference_impl.policies import register_policy as register_policy
    from geosched.reference_impl.predictors import PREDICTORS as PREDICTORS
    from geosched.reference_impl.predictors import make_predictor as make_predictor
    from geosched.reference_impl.predictors import register_predictor as register_predictor
    from geosched.reference_impl.scheduler_registry import register_scheduler as register_scheduler
    from geosched.reference_impl.scheduler_registry import scheduler_names as scheduler_names
    from geosched.reference_impl.scheduling import Decision as Decision
    from geosched.reference_impl.scheduling import SchedulerState as SchedulerState
    from geosched.reference_impl.simulation import SimulationResult as SimulationResult
    from geosched.reference_impl.workloads import generate as generate
    from geosched.reference_impl.workloads import load_workload as load_workload
    from geosched.reference_impl.workloads import read_trace as read_trace

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
