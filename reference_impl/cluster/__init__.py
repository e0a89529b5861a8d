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

from geosched.reference_impl.cluster.cost import COST_KINDS, HybridCost
from geosched.reference_impl.cluster.empirical import EmpiricalLengthModel, oracle_distribution, time_ordered_split
from geosched.reference_impl.cluster.replica import Replica, StepClock
from geosched.reference_impl.cluster.routers import ROUTER_NAMES, ClusterState, make_router
from geosched.reference_impl.cluster.simulator import (
    ABLATIONS,
    LOCAL_POLICIES,
    ClusterResult,
    ReplicaReport,
    simulate_cluster,
)
from geosched.reference_impl.cluster.steptime import STEP_TIME_MODELS, StepTimeModel, step_time_model

__all__ = [
    "StepTimeModel",
    "STEP_TIME_MODELS",
    "step_time_model",
    "HybridCost",
    "COST_KINDS",
    "EmpiricalLengthModel",
    "time_ordered_split",
    "oracle_distribution",
    "Replica",
    "StepClock",
    "ClusterState",
    "ROUTER_NAMES",
    "make_router",
    "simulate_cluster",
    "ClusterResult",
    "ReplicaReport",
    "LOCAL_POLICIES",
    "ABLATIONS",
]
