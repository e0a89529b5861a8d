"""geosched.adversary: hunting worst-case instances for SJF, SVF, 1-bit SVF and FCFS.

Every ratio reported here is *certified*: ``TEL(A, I) / TEL(S)`` for a feasible schedule ``S``
re-verified by the independent checker, a proved lower bound on the policy's competitive
ratio on ``I`` (Kong et al., arXiv 2606.22327; Jaillet et al., arXiv 2502.07115). Modules:

* :mod:`.fast`: compiled evaluator of the policies (batch and usage-profile kernels) and greedy
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

from geosched.adversary.search import SearchResult, SearchSpace, anneal, differential_evolution_search
from geosched.adversary.structured import Description, Group, structured_search
from geosched.adversary.targets import get_target, target_names
from geosched.adversary.witness import Witness, make_witness, read_witness, verify_witness, write_witness

__all__ = [
    "Description",
    "Group",
    "SearchResult",
    "SearchSpace",
    "Witness",
    "anneal",
    "differential_evolution_search",
    "get_target",
    "structured_search",
    "target_names",
    "make_witness",
    "read_witness",
    "verify_witness",
    "write_witness",
]
