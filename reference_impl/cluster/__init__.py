"""Serving on a cluster of GPUs: SageSched (Gan et al., arXiv 2603.07917) and the heuristics it is measured against.

* :mod:`.steptime`: seconds per iteration, ``c0 + c1 batch + c2 KV + c_p prefill``, with
  named parameter sets derived from published GPU and model figures;
* :mod:`.cost`: the hybrid cost ``w_c E[FLOPs] + w_m E[volume]``, weights from the step-time model;
* :mod:`.empirical`: a per-prompt-bucket output-length distribution fitted on the past;
* :mod:`.replica`: one replica, the simulator's own engine plus a seconds clock;
* :mod:`.routers`: round-robin, random, least-KV, JSQ, power of two, SageSched (O(N) each);
* :mod:`.simulator`: the cluster simulator, every replica's schedule re-checked by the checker;
* :mod:`.commands`: ``geosched cluster``.

Example
-------
>>> from geosched.reference_impl.cluster import StepTimeModel, simulate_cluster
>>> from geosched.reference_impl.model import burst_instance
>>> simulate_cluster(burst_instance(12, [(6, 3), (1, 5)]).requests, [StepTimeModel.unit(12)] * 2,
...                  router="round-robin", local="svf").metrics["mean_latency"]
4.0
"""

from geosched._lazy import exported_names
from geosched.reference_impl.cluster.cost import COST_KINDS as COST_KINDS
from geosched.reference_impl.cluster.cost import HybridCost as HybridCost
from geosched.reference_impl.cluster.empirical import EmpiricalLengthModel as EmpiricalLengthModel
from geosched.reference_impl.cluster.empirical import oracle_distribution as oracle_distribution
from geosched.reference_impl.cluster.empirical import time_ordered_split as time_ordered_split
from geosched.reference_impl.cluster.replica import Replica as Replica
from geosched.reference_impl.cluster.replica import StepClock as StepClock
from geosched.reference_impl.cluster.routers import ROUTER_NAMES as ROUTER_NAMES
from geosched.reference_impl.cluster.routers import ClusterState as ClusterState
from geosched.reference_impl.cluster.routers import make_router as make_router
from geosched.reference_impl.cluster.simulator import ABLATIONS as ABLATIONS
from geosched.reference_impl.cluster.simulator import LOCAL_POLICIES as LOCAL_POLICIES
from geosched.reference_impl.cluster.simulator import ClusterResult as ClusterResult
from geosched.reference_impl.cluster.simulator import ReplicaReport as ReplicaReport
from geosched.reference_impl.cluster.simulator import simulate_cluster as simulate_cluster
from geosched.reference_impl.cluster.steptime import STEP_TIME_MODELS as STEP_TIME_MODELS
from geosched.reference_impl.cluster.steptime import StepTimeModel as StepTimeModel
from geosched.reference_impl.cluster.steptime import step_time_model as step_time_model

__all__ = exported_names(__file__)  # each name declared once, by its `a as a` import above
