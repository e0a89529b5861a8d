"""The best proved lower bound on TEL(OPT): the cheap bounds, the chain bound, the LP relaxation.

The cheap bounds live in :mod:`.bounds`, the chain bound (a subset DP) in :mod:`.chain` and
the time-indexed LP in :mod:`.timeindexed`; this module sits above all three, so that none of
them needs to import another's caller (no import cycle).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> best_lower_bound(inst).value, best_lower_bound(inst, chain=True).value
(8, 9)
"""

from __future__ import annotations

from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt.bounds import LowerBound, cheap_bounds
from geosched.reference_impl.opt.chain import chain_bound
from geosched.reference_impl.opt.timeindexed import solve_lp_relaxation

__all__ = ["best_lower_bound", "lower_bound", "lp_relaxation_bound"]


def best_lower_bound(instance: Instance, *, chain: bool = False) -> LowerBound:
    """The largest of the cheap bounds (sum of outputs, exclusive tails, SRPT, and for burst
    arrivals the volume prefix and completion-order bounds); the LP relaxation is not
    included (costly). ``chain=True`` adds :func:`~.chain.chain_bound` (bursts of up to
    :data:`~.chain.CHAIN_MAX_N` requests; exponential, about 1 s at ``n = 20``).

    Ties go to the bound listed last (the strongest family).
    """
    candidates = cheap_bounds(instance)
    if chain:
        extra = chain_bound(instance)
        if extra is not None:
            candidates.append(extra)
    best = None
    for b in candidates:
        if best is None or b.value >= best.value:
            best = b
    assert best is not None
    return best


def lower_bound(instance: Instance, *, chain: bool = True) -> LowerBound:
    """The best proved lower bound on ``TEL(OPT)`` that is cheap to compute.

    Parameters
    ----------
    instance : Instance
        The workload.
    chain : bool
        Include the chain bound (bursts of up to 20 requests, about 1 s at ``n = 20``).

    Returns
    -------
    LowerBound
        ``name``, ``value`` (an integer ``<= TEL(OPT)``) and ``source`` (the statement it rests
        on). See :func:`best_lower_bound` for the bounds compared.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> lower_bound(burst_instance(12, [(6, 3), (1, 5)])).value
    9
    """
    return best_lower_bound(instance, chain=chain)


def lp_relaxation_bound(instance: Instance, *, upper_bound: int | None = None,
                        time_limit: float = 60.0) -> LowerBound | None:
    """LP relaxation of the time-indexed model (:mod:`.timeindexed`), rounded up.

    The model has ``x_{i,k} in [0, 1]`` with ``sum_k x_{i,k} = 1`` and, for every step ``t``,
    ``sum_i sum_k x_{i,k} (s_i + t - k) [k < t <= k + o_i] <= M``; start windows are cut by
    an upper bound ``UB`` (default: :func:`~.heuristic.heuristic_schedule`'s TEL), which
    every schedule of TEL ``<= UB`` respects, so the LP optimum is ``<= TEL(OPT)``
    (Jaillet et al., arXiv 2502.07115, Sec. 5 use the same integer program). Returns ``None``
    if HiGHS does not finish within ``time_limit`` seconds (a partial LP value is no bound).
    Costly: ``n * horizon`` variables.

    >>> from geosched.reference_impl.model import burst_instance
    >>> lp_relaxation_bound(burst_instance(12, [(6, 3), (1, 5)])).value
    9
    """
    value = solve_lp_relaxation(instance, upper_bound=upper_bound, time_limit=time_limit)
    if value is None:
        return None
    return LowerBound("lp_relaxation", value,
                      "LP relaxation of the time-indexed IP (Jaillet et al., arXiv 2502.07115, Sec. 5)")
