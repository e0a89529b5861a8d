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
>>> from geosched.reference_impl.opt import best_lower_bound, brute_force_opt, solve_opt
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> solve_opt(inst).tel, brute_force_opt(inst).tel, best_lower_bound(inst).value
(9, 9, 8)
"""

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

# loaded on first use: building the command line reads opt.result alone (no numba, no solver)
if TYPE_CHECKING:
    from geosched.reference_impl.opt.bounds import LowerBound as LowerBound
    from geosched.reference_impl.opt.bounds import best_cheap_bound as best_cheap_bound
    from geosched.reference_impl.opt.bounds import cheap_bounds as cheap_bounds
    from geosched.reference_impl.opt.bounds import completion_order_bound as completion_order_bound
    from geosched.reference_impl.opt.bounds import exclusive_tail_bound as exclusive_tail_bound
    from geosched.reference_impl.opt.bounds import srpt_bound as srpt_bound
    from geosched.reference_impl.opt.bounds import sum_outputs_bound as sum_outputs_bound
    from geosched.reference_impl.opt.bounds import volume_prefix_bound as volume_prefix_bound
    from geosched.reference_impl.opt.brute import brute_force_opt as brute_force_opt
    from geosched.reference_impl.opt.chain import CHAIN_MAX_N as CHAIN_MAX_N
    from geosched.reference_impl.opt.chain import CHAIN_MAX_STATES as CHAIN_MAX_STATES
    from geosched.reference_impl.opt.chain import chain_bound as chain_bound
    from geosched.reference_impl.opt.chain import chain_subset_bounds as chain_subset_bounds
    from geosched.reference_impl.opt.heuristic import heuristic_schedule as heuristic_schedule
    from geosched.reference_impl.opt.lower import best_lower_bound as best_lower_bound
    from geosched.reference_impl.opt.lower import lower_bound as lower_bound
    from geosched.reference_impl.opt.lower import lp_relaxation_bound as lp_relaxation_bound
    from geosched.reference_impl.opt.result import METHODS as METHODS
    from geosched.reference_impl.opt.result import OptResult as OptResult
    from geosched.reference_impl.opt.solve import solve_opt as solve_opt

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
