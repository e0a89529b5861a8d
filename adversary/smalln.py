"""Seeded random search over small burst instances in an alpha band, certified against the exact optimum.

For ``n <= 8`` the exact optimum is cheap (:func:`geosched.reference_impl.opt.solve_opt`, which
must report ``optimal``), so a ratio found here is not a lower bound through a witness schedule
but the instance's exact ratio ``TEL(A)/OPT``. The search draws random instances
(:func:`geosched.adversary.search.random_candidate` in a :class:`~geosched.adversary.search.SearchSpace`
with an alpha band), climbs by the space's mutations (including exact volume ties,
:func:`geosched.adversary.search.mutate`), screens by the cheap certified ratio against the
heuristic pool, and calls the exact solver on every instance whose screened ratio beats the best
exact one so far by less than the pool's slack allows (``TEL(A)/LB > best``, ``LB`` the
best cheap lower bound, so no instance that could win is skipped).

Example
-------
>>> r = small_search("svf", n_max=4, memory=(6, 8), band=(0.5, 0.75), max_evals=60, rng=0)
>>> r.status, 0.5 < float(r.alpha) <= 0.75, r.fun >= 1
('optimal', True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from geosched.adversary.search import Candidate, SearchSpace, anneal, candidate_to_instance, random_candidate
from geosched.adversary.targets import get_target
from geosched.adversary.witness import Witness, make_witness
from geosched.errors import LimitError, ValidationError
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt import best_lower_bound, solve_opt
from geosched.results import Result

__all__ = ["SmallSearchResult", "small_search", "small_witness", "SMALL_MAX_N", "SMALL_MAX_EVALS",
           "check_small_budget"]

SMALL_MAX_N = 8  # the exact solver proves these in well under a second each
SMALL_MAX_EVALS = 10**7  # instances scored in one search, whatever the time: about a day at the fastest rate
# the fastest the screen scores small instances, with room to spare (a few thousand per second on one core,
# benchmarks/RESULTS.md): a plan of more evaluations than this rate times --time is refused before it starts
SMALL_EVALUATIONS_PER_SECOND = 10_000


@dataclass(frozen=True)
class SmallSearchResult(Result):
    """The best exact ratio found (``fun``) and its instance (``x``) with its optimal schedule."""

    STATUSES = ("optimal", "none")
    SUCCESS = ("optimal",)

    x: Instance | None  # the instance of the best exact ratio
    fun: float  # TEL(A)/OPT on it (exact: OPT proved optimal)
    policy_tel: int  # TEL(A)
    opt_tel: int  # OPT (proved)
    opt_starts: dict[str, int] | None  # an optimal schedule
    alpha: Fraction  # max(s + o)/M of x
    status: str  # "optimal" when fun is an exact ratio; "none" when nothing was certified
    nfev: int  # instances scored by the cheap screen
    nexact: int  # exact solver calls that reported optimal
    nunknown: int  # exact solver calls that did not prove optimality (skipped)
    seed: Any  # the rng seed
    message: str  # one line
    wall_time: float  # seconds
    history: list[tuple[int, float]] = field(default_factory=list)  # (nfev, best exact ratio) at each gain
    stopped: str = "evaluations"  # "evaluations" (max_evals scored: reproducible by the seed) or "time"


@dataclass
class _Best:
    """The search's running state (frozen into a SmallSearchResult at the end)."""

    x: Instance | None = None
    fun: float = 0.0
    policy_tel: int = 0
    opt_tel: int = 0
    opt_starts: dict[str, int] | None = None
    alpha: Fraction = Fraction(0)
    nfev: int = 0
    nexact: int = 0
    nunknown: int = 0
    history: list[tuple[int, float]] = field(default_factory=list)


def _check(n_max: Any, memory: Any, max_evals: Any) -> tuple[int, int]:
    if isinstance(n_max, bool) or not isinstance(n_max, int) or not 1 <= n_max <= SMALL_MAX_N:
        raise ValidationError("n-max", n_max, f"must be an integer in [1, {SMALL_MAX_N}]")
    if (not isinstance(memory, tuple) or len(memory) != 2
            or any(isinstance(m, bool) or not isinstance(m, int) for m in memory)
            or not 1 <= memory[0] <= memory[1] <= 64):
        raise ValidationError("memory", memory, "must be a pair of integers 1 <= lo <= hi <= 64")
    if isinstance(max_evals, bool) or not isinstance(max_evals, int) or max_evals < 1:
        raise ValidationError("max-evals", max_evals, "must be an integer >= 1")
    return memory


def _seconds(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isnan(value):
        raise ValidationError(name, value, "must be a number of seconds > 0")
    return float(value)


def check_small_budget(max_evals: int, climb_evals: Any, time_limit: float) -> None:
    """Refuse, before any evaluation, a search that no machine finishes: more than :data:`SMALL_MAX_EVALS`
    evaluations, or more than ``time_limit`` seconds at :data:`SMALL_EVALUATIONS_PER_SECOND` (faster than
    geosched scores), or walks of fewer than 2 or more than :data:`SMALL_MAX_EVALS` evaluations (a walk
    longer than ``max_evals`` is cut to it)
    (:class:`~geosched.errors.LimitError` / :class:`~geosched.errors.ValidationError`, naming the option).

    >>> check_small_budget(10**12, 300, 60.0)
    Traceback (most recent call last):
    ...
    geosched.errors.LimitError: hunt-small --evals 1000000000000: more than the most evaluations of one search, ...
    """
    if isinstance(climb_evals, bool) or not isinstance(climb_evals, int) or not 2 <= climb_evals <= SMALL_MAX_EVALS:
        raise ValidationError("--climb", climb_evals, f"must be an integer in [2, {SMALL_MAX_EVALS}] (evaluations "
                              "per walk; a walk longer than --evals is cut to it)")
    if max_evals > SMALL_MAX_EVALS:
        raise LimitError(f"hunt-small --evals {max_evals}: more than the most evaluations of one search, "
                         f"{SMALL_MAX_EVALS} (about {SMALL_MAX_EVALS // SMALL_EVALUATIONS_PER_SECOND} s at the "
                         f"fastest rate); lower --evals (Python: max_evals=)")
    seconds = max_evals / SMALL_EVALUATIONS_PER_SECOND
    if seconds > time_limit:
        raise LimitError(f"hunt-small --evals {max_evals}: at least {seconds:.3g} s at "
                         f"{SMALL_EVALUATIONS_PER_SECOND} evaluations/s (faster than geosched scores), past --time "
                         f"{time_limit:g} s (raise --time, or lower --evals; Python: time_limit=, max_evals=)")


def _spaces(policy: str, n_max: int, memory: tuple[int, int], alpha_min: float, alpha_max: float
            ) -> list[SearchSpace]:
    """One space per memory size that has a peak inside the band (checked by SearchSpace)."""
    spaces = []
    for m in range(memory[0], memory[1] + 1):
        if math.floor(Fraction(str(alpha_max)) * m) > math.floor(Fraction(str(alpha_min)) * m):
            spaces.append(SearchSpace(policy, max_requests=n_max, memory=m, alpha_min=alpha_min,
                                      alpha_max=alpha_max, exact_ties=True))
    if not spaces:
        raise ValidationError("memory", memory, f"no M in the range has a peak in ({alpha_min}, {alpha_max}] * M")
    return spaces


def _exact(space: SearchSpace, c: Candidate, time_limit: float) -> tuple[str, int, dict[str, int]]:
    instance = candidate_to_instance(c, space.memory)
    res = solve_opt(instance, time_limit=time_limit)
    return res.status, res.tel, dict(res.starts)


def small_search(policy: str = "svf", *, n_max: int = 6, memory: tuple[int, int] = (4, 24),
                 band: tuple[float, float] = (0.75, 0.85), max_evals: int = 2000,
                 solver_time: float = 20.0, climb_evals: int = 300, rng: int | None = 0,
                 ties: str = "given", time_limit: float = 600.0) -> SmallSearchResult:
    """Random restarts with short climbs; every improvement is checked against the exact optimum.

    Parameters
    ----------
    policy : str
        A hunt target (``svf``, ``sjf``, ...).
    n_max : int
        Most requests (``<= SMALL_MAX_N``); each point draws ``n`` uniformly in ``[2, n_max]``.
    memory : tuple of int
        Range of ``M`` drawn uniformly (only sizes with a peak in the band).
    band : tuple of float
        ``(alpha_min, alpha_max)``: every instance has ``alpha_min < max(s + o)/M <= alpha_max``.
    max_evals : int
        Instances scored (the whole work bound).
    climb_evals : int
        Evaluations of each annealing walk from a random point (its elite go to the exact solver);
        in ``[2, SMALL_MAX_EVALS]``, cut to what is left of ``max_evals``.
    solver_time : float
        Seconds per exact solve (at most what is left of ``time_limit``); a solve that does not
        prove optimality is counted and skipped.
    time_limit : float
        Seconds for the whole search (``hunt-small --time``). A plan of more evaluations than
        :func:`check_small_budget` allows in it is refused before it starts; a search that reaches it
        stops between two evaluations with what it has certified (``stopped == "time"``: then the result
        depends on the machine's speed, not on the seed alone).
    rng : int or None
        Seed.
    ties : str
        ``"given"``: the ratio under the stated tie order (equal keys: earlier position first);
        ``"robust"``: each instance sent to the exact solver is scored by ``min(TEL, TEL with the
        request order reversed) / OPT``, a ratio that holds under both orders of equal keys (the
        walks still climb on the given order; only the exact scoring is robust); ``"distinct"``: only
        instances whose volumes are pairwise distinct are scored (no tie for any rule to decide);
        ``"distinct:K"`` (``K > 1``): each instance sent to the exact solver is replaced by its tie-free
        versions scaled by ``K`` (:func:`geosched.adversary.tiefree.scaled_variants`: ``M`` up to ``64 K``),
        each simulated and solved exactly on its own (``hunt-small --scale K``).

    Returns
    -------
    SmallSearchResult
    """
    memory = _check(n_max, memory, max_evals)
    time_limit, solver_time = _seconds(time_limit, "time_limit"), _seconds(solver_time, "solver_time")
    check_small_budget(max_evals, climb_evals, time_limit)
    ties, scale = _ties_and_scale(ties)
    alpha_min, alpha_max = band
    spaces = _spaces(policy, n_max, memory, alpha_min, alpha_max)
    gen = np.random.default_rng(rng)
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    best = _Best()
    stopped = "evaluations"
    while best.nfev < max_evals:
        left = deadline - time.perf_counter()
        climb = min(climb_evals, max_evals - best.nfev)
        if left <= 0:
            stopped = "time"
            break
        if climb < 2:
            break
        space = spaces[int(gen.integers(len(spaces)))]
        start = random_candidate(space, gen, int(gen.integers(min(2, n_max), n_max + 1)))
        walk = anneal(space, rng=gen, initial=start, max_evals=climb, time_limit=left,
                      cycle_evals=max(1, climb // 2))
        best.nfev += walk.nfev
        for c in walk.elite:
            solve_time = min(solver_time, deadline - time.perf_counter())
            if not (_consider_distinct(space, c, best, solve_time, scale) if ties == "distinct"
                    else _consider(space, c, best, solve_time, ties)):
                break
    return _result(best, rng, ties, stopped, max_evals, time_limit, time.perf_counter() - t0, scale)


def _result(best: _Best, rng: Any, ties: str, stopped: str, max_evals: int, time_limit: float,
            wall_time: float, scale: int = 1) -> SmallSearchResult:
    message = (f"{best.nexact} exact optima, {best.nunknown} unproved; best TEL(A)/OPT = {best.fun:.4f}"
               if best.x is not None else f"no instance certified ({best.nunknown} solves unproved)")
    message = {"robust": "ties robust (TEL the smaller of both orders); ",
               "distinct": "pairwise distinct volumes" + (f", scaled by {scale}" if scale > 1 else "") + "; "
               }.get(ties, "") + message
    if stopped == "time":
        message += (f"; stopped at --time {time_limit:g} s after {best.nfev} of {max_evals} evaluations (raise "
                    "--time to score them all: only a search that ends by --evals is reproduced by its seed)")
    return SmallSearchResult(best.x, best.fun, best.policy_tel, best.opt_tel, best.opt_starts, best.alpha,
                             "optimal" if best.x is not None else "none", best.nfev, best.nexact, best.nunknown,
                             rng, message, wall_time, best.history, stopped)


def _consider(space: SearchSpace, c: Candidate, best: _Best, solver_time: float, ties: str = "given") -> bool:
    """Solve ``c`` exactly when its ratio against a proved lower bound could beat the best; False when no
    time is left for a solve (the search's deadline passed)."""
    instance = candidate_to_instance(c, space.memory)
    policy_tel = c.policy_tel
    if ties == "robust":  # reversed arrays: the request order (and so the order of equal keys) reversed
        policy_tel = min(policy_tel, get_target(space.policy).array_tel(
            c.a[::-1].copy(), c.s[::-1].copy(), c.o[::-1].copy(), space.memory, space.block_size))
    if policy_tel <= best.fun * best_lower_bound(instance).value:
        return True  # TEL(A)/OPT <= TEL(A)/LB <= best: cannot win
    if solver_time <= 0:
        return False
    status, tel, starts = _exact(space, c, solver_time)
    if status != "optimal":
        best.nunknown += 1
        return True
    best.nexact += 1
    ratio = policy_tel / tel
    if ratio > best.fun:
        best.x, best.fun, best.policy_tel, best.opt_tel, best.opt_starts = instance, ratio, policy_tel, tel, starts
        best.alpha = instance.alpha
        best.history.append((best.nfev, ratio))
    return True


def _ties_and_scale(ties: Any) -> tuple[str, int]:
    """``(rule, K)`` of a ``ties`` argument: ``given``, ``robust``, ``distinct`` (K = 1) or ``distinct:K``."""
    rule, _, factor = ties.partition(":") if isinstance(ties, str) else (ties, "", "")
    if rule not in ("given", "robust", "distinct") or (factor and rule != "distinct"):
        raise ValidationError("ties", ties, "must be 'given', 'robust', 'distinct' or 'distinct:K' (K an integer > 1)")
    if not factor:
        return rule, 1
    scale = int(factor) if factor.isdigit() and factor.isascii() else factor
    _check_scale(scale)
    return rule, scale


def _check_scale(scale: Any) -> None:
    from geosched.adversary.tiefree import MAX_SCALE

    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ValidationError("scale", scale, f"must be an integer in [1, {MAX_SCALE}]")


def _consider_distinct(space: SearchSpace, c: Candidate, best: _Best, solver_time: float, scale: int) -> bool:
    """Score ``c`` on pairwise distinct volumes only: the instance itself when its volumes are distinct, or
    (``scale > 1``) each of its scaled tie-free versions, simulated and solved exactly on its own; False when no
    time is left for a solve (the search's deadline passed)."""
    from geosched.adversary.tiefree import pairwise_distinct, scaled_variants

    instance = candidate_to_instance(c, space.memory)
    candidates = scaled_variants(instance, scale) if scale > 1 else [instance] if pairwise_distinct(instance) else []
    target = get_target(space.policy)
    for inst in candidates:
        policy_tel = target.run(inst).tel
        if policy_tel <= best.fun * best_lower_bound(inst).value:
            continue  # cannot win
        if solver_time <= 0:
            return False
        res = solve_opt(inst, time_limit=solver_time)
        if res.status != "optimal":
            best.nunknown += 1
            continue
        best.nexact += 1
        if policy_tel / res.tel > best.fun:
            best.x, best.fun, best.policy_tel, best.opt_tel = inst, policy_tel / res.tel, policy_tel, res.tel
            best.opt_starts, best.alpha = dict(res.starts), inst.alpha
            best.history.append((best.nfev, best.fun))
    return True


def small_witness(result: SmallSearchResult, policy: str) -> Witness:
    """The best instance of ``result`` as a witness: the optimal schedule as witness schedule and the
    proved optimum as the lower bound (so ``certified_ratio == ratio_upper``, the exact ratio)."""
    if result.x is None or result.opt_starts is None:
        raise ValidationError("result", result.status, "has no certified instance")
    return make_witness(result.x, policy, result.opt_starts, seed=result.seed if isinstance(result.seed, int) else None,
                        lower_bound=(result.opt_tel, "optimal"),
                        found_by=f"geosched hunt-small (seeded random starts, annealing walks, exact OPT proved "
                                 f"optimal by solve_opt); {result.nfev} evaluations")
