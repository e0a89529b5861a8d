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

from geosched.lazy import lazy_exports

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load on first use
    from geosched.adversary.search import SearchResult, SearchSpace, anneal, differential_evolution_search
    from geosched.adversary.structured import Description, Group, structured_search
    from geosched.adversary.targets import get_target, target_names
    from geosched.adversary.witness import Witness, make_witness, read_witness, verify_witness, write_witness

# public name -> the module that defines it (imported on first access)
_EXPORTS = {
    "SearchResult": "geosched.adversary.search",
    "SearchSpace": "geosched.adversary.search",
    "anneal": "geosched.adversary.search",
    "differential_evolution_search": "geosched.adversary.search",
    "Description": "geosched.adversary.structured",
    "Group": "geosched.adversary.structured",
    "structured_search": "geosched.adversary.structured",
    "get_target": "geosched.adversary.targets",
    "target_names": "geosched.adversary.targets",
    "Witness": "geosched.adversary.witness",
    "make_witness": "geosched.adversary.witness",
    "read_witness": "geosched.adversary.witness",
    "verify_witness": "geosched.adversary.witness",
    "write_witness": "geosched.adversary.witness",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
__all__ = [  # a literal list, as linters and type checkers read it (the same names as _EXPORTS)
    "SearchResult",
    "SearchSpace",
    "anneal",
    "differential_evolution_search",
    "Description",
    "Group",
    "structured_search",
    "get_target",
    "target_names",
    "Witness",
    "make_witness",
    "read_witness",
    "verify_witness",
    "write_witness",
]
