"""The offline optimum: exact solvers, lower bounds and the best heuristic schedule.

* :func:`solve_opt`: exact OPT (min TEL) by CP-SAT or HiGHS on a time-indexed program, with an
  honest time limit (:mod:`.solve`, :mod:`.cpsat`, :mod:`.timeindexed`);
* :func:`brute_force_opt`: an exhaustive search for tiny instances, independent of the
  integer programs (:mod:`.brute`);
* lower bounds (:mod:`.bounds`, the subset dynamic program of :mod:`.chain`, the best of them in
  :mod:`.lower`) and
  :func:`heuristic_schedule` (:mod:`.heuristic`).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> solve_opt(inst).tel, brute_force_opt(inst).tel, best_lower_bound(inst).value
(9, 9, 8)
"""

from geosched.reference_impl.opt.bounds import (
    LowerBound,
    best_cheap_bound,
    cheap_bounds,
    completion_order_bound,
    exclusive_tail_bound,
    srpt_bound,
    sum_outputs_bound,
    volume_prefix_bound,
)
from geosched.reference_impl.opt.brute import brute_force_opt
from geosched.reference_impl.opt.chain import CHAIN_MAX_N, CHAIN_MAX_STATES, chain_bound, chain_subset_bounds
from geosched.reference_impl.opt.heuristic import heuristic_schedule
from geosched.reference_impl.opt.lower import best_lower_bound, lower_bound, lp_relaxation_bound
from geosched.reference_impl.opt.result import OptResult
from geosched.reference_impl.opt.solve import METHODS, solve_opt

__all__ = [
    "CHAIN_MAX_N",
    "CHAIN_MAX_STATES",
    "METHODS",
    "LowerBound",
    "OptResult",
    "best_cheap_bound",
    "best_lower_bound",
    "lower_bound",
    "brute_force_opt",
    "chain_bound",
    "chain_subset_bounds",
    "cheap_bounds",
    "completion_order_bound",
    "exclusive_tail_bound",
    "heuristic_schedule",
    "lp_relaxation_bound",
    "solve_opt",
    "srpt_bound",
    "sum_outputs_bound",
    "volume_prefix_bound",
]
