"""geosched.adversary: hunting worst-case instances for SJF, SVF, 1-bit SVF and FCFS.

Every ratio reported here is *certified*: ``TEL(A, I) / TEL(S)`` for a feasible schedule ``S``
re-verified by the independent checker, a proved lower bound on the policy's competitive
ratio on ``I`` (Kong et al., arXiv 2606.22327; Jaillet et al., arXiv 2502.07115). Modules:

* :mod:`.fast`: the policies on the compiled kernel (:mod:`geosched.reference_impl.kernel`) and greedy
  list scheduling;
* :mod:`.targets`: what a hunt attacks: registry policies, or stock vLLM (``vllm-fcfs``,
  ``vllm-priority``) through the vLLM-semantics model; tie rules and reversed-tie re-runs;
* :mod:`.witness`: witness files, :func:`verify_witness`;
* :mod:`.schedules`: the best witness schedule (heuristics, local search, exact solver);
* :mod:`.search`: simulated annealing and differential evolution (scipy-style results);
* :mod:`.structured`: annealing over a few groups of requests, at hundreds or thousands of requests;
* :mod:`.vllm_replay`: a vLLM-target witness replayed in vLLM's real scheduler;
* :mod:`.z3search`: Z3 queries ``TEL(A) >= r TEL(S)`` with bisection (sat / unsat / unknown);
* :mod:`.families`: parametrised bad families with closed-form TELs;
* :mod:`.hunt`: the ``geosched hunt`` driver with checkpoints.
"""

from typing import TYPE_CHECKING

from geosched._lazy import lazy_exports

# the public names, each declared once (geosched._lazy reads this block; each is imported on first use)
if TYPE_CHECKING:
    from geosched.adversary.search import SearchResult as SearchResult
    from geosched.adversary.search import SearchSpace as SearchSpace
    from geosched.adversary.search import anneal as anneal
    from geosched.adversary.search import differential_evolution_search as differential_evolution_search
    from geosched.adversary.structured import Description as Description
    from geosched.adversary.structured import Group as Group
    from geosched.adversary.structured import structured_search as structured_search
    from geosched.adversary.targets import get_target as get_target
    from geosched.adversary.targets import target_names as target_names
    from geosched.adversary.witness import Witness as Witness
    from geosched.adversary.witness import make_witness as make_witness
    from geosched.adversary.witness import read_witness as read_witness
    from geosched.adversary.witness import verify_witness as verify_witness
    from geosched.adversary.witness import write_witness as write_witness

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__, globals())
