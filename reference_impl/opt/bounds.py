"""Lower bounds on the TEL of the offline optimum.

Every function returns a :class:`LowerBound` whose ``value`` is an integer ``<= TEL(OPT)``
(TEL is an integer, so real-valued bounds are rounded up), or ``None`` where the bound does
not apply. Notation: request ``i`` has arrival ``a_i``, prompt ``s_i``, output ``o_i``,
volume ``v_i = s_i o_i + o_i(o_i+1)/2``; start ``x_i``; completion ``C_i = x_i + o_i``;
``TEL = sum_i (C_i - a_i)``.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> [b.value for b in (sum_outputs_bound(inst), volume_prefix_bound(inst), srpt_bound(inst))]
[8, 6, 6]
>>> best_cheap_bound(inst).name
'completion_order'
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from geosched.reference_impl.model import Instance

__all__ = [
    "LowerBound",
    "sum_outputs_bound",
    "volume_prefix_bound",
    "completion_order_bound",
    "srpt_bound",
    "exclusive_tail_bound",
    "capacity_bound",
    "best_cheap_bound",
    "cheap_bounds",
]


@dataclass(frozen=True)
class LowerBound:
    """A valid lower bound on TEL(OPT)."""

    name: str  # "sum_outputs", "volume_prefix", "completion_order", "srpt", "exclusive_tail", "chain", ...
    value: int  # an integer <= TEL(OPT)
    source: str  # where the bound comes from (paper and statement, or this module)


def _ceil_div(p: int, q: int) -> int:
    return -(-p // q)


def sum_outputs_bound(instance: Instance) -> LowerBound:
    """``TEL(OPT) >= sum_i o_i``.

    A request cannot start before it arrives (``x_i >= a_i``) and runs exactly ``o_i`` steps,
    so each term ``x_i + o_i - a_i >= o_i``; arrivals need no further care because TEL
    subtracts them. Tight when everything fits at once (e.g. a single request).

    >>> from geosched.reference_impl.model import burst_instance
    >>> sum_outputs_bound(burst_instance(12, [(6, 3), (1, 5)])).value
    8
    """
    return LowerBound("sum_outputs", sum(r.output for r in instance.requests),
                      "trivial: x_i >= a_i, so x_i + o_i - a_i >= o_i")


def _prefix_sums(values: list[int]) -> list[int]:
    out, total = [], 0
    for v in sorted(values):
        total += v
        out.append(total)
    return out


def volume_prefix_bound(instance: Instance) -> LowerBound | None:
    """Burst arrivals only: ``TEL(OPT) >= sum_k ceil(P_k / M)``, ``P_k`` = sum of the ``k``
    smallest volumes; ``None`` (not applicable) when some request arrives after step 0.

    Kong et al. (arXiv 2606.22327, Prop. 3.1) state ``M * TEL(OPT) >= sum_k P_k``. Proof:
    let ``C_(1) <= ... <= C_(n)`` be the completions of any schedule. The ``k`` requests
    completed by ``C_(k)`` held their whole volume inside steps ``1..C_(k)``, and at most
    ``M`` tokens are held per step, so ``M C_(k) >= P_k``; with burst arrivals
    ``TEL = sum_k C_(k)``. Because ``C_(k)`` is an integer we round up term by term, which
    is at least Kong et al.'s ``ceil(sum_k P_k / M)``.

    With arrivals the same argument only gives ``M (C_(k) - min a) >= P_k``, which is weak;
    use :func:`srpt_bound` there instead.

    >>> from geosched.reference_impl.model import burst_instance
    >>> volume_prefix_bound(burst_instance(12, [(6, 3), (1, 5)])).value  # ceil(20/12)+ceil(44/12)
    6
    """
    if not instance.is_burst:
        return None
    memory = instance.memory
    value = sum(_ceil_div(p, memory) for p in _prefix_sums([r.volume for r in instance.requests]))
    return LowerBound("volume_prefix", value,
                      "Kong, Qi, Ye, Zhou, arXiv 2606.22327, Prop. 3.1 (rounded up per completion rank)")


def completion_order_bound(instance: Instance) -> LowerBound | None:
    """Burst arrivals only: ``TEL(OPT) >= sum_k max(ceil(P_k / M), o_[k])``; ``None`` otherwise.

    ``o_[k]`` is the ``k``-th smallest output. For the ``k``-th completion of any schedule,
    ``C_(k) >= P_k / M`` (proof of :func:`volume_prefix_bound`) and ``C_(k) >= o_[k]``: the
    ``k`` requests completed by then each ran its ``o_i`` steps from step 0 on, and ``k``
    distinct outputs have maximum at least ``o_[k]``. Both bound the same ``C_(k)``, so their
    maximum does; summing over ``k`` dominates both :func:`volume_prefix_bound` and
    :func:`sum_outputs_bound` (burst).

    >>> from geosched.reference_impl.model import burst_instance
    >>> completion_order_bound(burst_instance(12, [(6, 3), (1, 5)])).value  # max(2,3)+max(4,5)
    8
    """
    if not instance.is_burst:
        return None
    memory = instance.memory
    prefix = _prefix_sums([r.volume for r in instance.requests])
    outputs = sorted(r.output for r in instance.requests)
    value = sum(max(_ceil_div(p, memory), o) for p, o in zip(prefix, outputs))
    return LowerBound("completion_order", value,
                      "this module: volume prefix + output order per completion rank")


def srpt_bound(instance: Instance) -> LowerBound:
    """Preemptive single-machine relaxation solved by SRPT; valid with arrivals.

    Relaxation: one machine of speed ``M`` (token-steps per step); job ``i`` has work
    ``v_i``, release ``a_i``, and may be preempted. Any feasible schedule induces a schedule
    of the relaxation: during step ``t`` (the time interval ``(t-1, t]``) request ``i``
    receives ``s_i + t - x_i`` units, which sum to ``<= M`` (memory constraint), nothing
    before ``a_i`` (as ``x_i >= a_i``), and its work ``v_i`` is done by ``C_i``. This is a
    processor-sharing schedule; processing the available job with the earliest such ``C_i``
    (preemptive EDF, optimal for release dates and deadlines on one machine: Horn 1974)
    finishes each job by ``C_i``, so a preemptive single-machine schedule with
    ``sum C'_i <= sum C_i`` exists, and SRPT minimises ``sum C'_i`` over those (Schrage
    1968; Baker 1974, 1|r_j,pmtn|sum C_j). Hence ``TEL(OPT) >= sum_i (C_i^SRPT - a_i)``,
    rounded up. Times are scaled by ``M`` so the computation is exact in integers. For
    burst arrivals this equals ``ceil(sum_k P_k / M)``, Kong et al.'s Prop. 3.1. The bound
    ignores that each request also needs ``o_i`` steps (see :func:`best_cheap_bound` for
    the max with :func:`sum_outputs_bound`).

    >>> from geosched.reference_impl.model import Instance, Request
    >>> srpt_bound(Instance(10, [Request("a", 0, 4, 2), Request("b", 1, 0, 4)])).value
    3
    """
    memory = instance.memory
    # in units of 1/M step: releases a_i * M, work v_i at speed 1
    total_completion = _srpt_total_completion([(r.arrival * memory, r.volume) for r in instance.requests])
    numerator = total_completion - memory * sum(r.arrival for r in instance.requests)
    return LowerBound("srpt", max(0, _ceil_div(numerator, memory)),
                      "preemptive one-machine relaxation (work v_i, speed M), SRPT: Schrage 1968")


def _srpt_total_completion(jobs: list[tuple[int, int]]) -> int:
    """``sum_j C_j`` of SRPT on one machine for ``(release, processing)`` integer jobs."""
    return sum(_srpt_completions(jobs))


def _srpt_completions(jobs: list[tuple[int, int]]) -> list[int]:
    """The completion times of SRPT on one machine for ``(release, processing)`` integer jobs (in completion order)."""
    jobs = sorted(jobs)
    now = k = 0
    done: list[int] = []
    heap: list[int] = []
    n = len(jobs)
    while k < n or heap:
        if not heap:
            now = max(now, jobs[k][0])
        while k < n and jobs[k][0] <= now:
            heapq.heappush(heap, jobs[k][1])
            k += 1
        remaining = heapq.heappop(heap)
        next_release = jobs[k][0] if k < n else None
        if next_release is None or now + remaining <= next_release:
            now += remaining
            done.append(now)
        else:
            heapq.heappush(heap, remaining - (next_release - now))
            now = next_release
    return done


def capacity_bound(instance: Instance) -> LowerBound:
    """The memory-time relaxation and the outputs, combined at every instant; valid with arrivals.

    Let ``N(t)`` be the number of requests in the system at time ``t`` (arrived, not finished) under
    any feasible schedule, so that ``TEL = integral of N``. Two counts bound it from below at every
    ``t``: ``N_o(t) = #{i : a_i <= t < a_i + o_i}`` (a request is in the system for at least its ``o_i``
    steps), and ``N_SRPT(t)``, the number in the system under SRPT in :func:`srpt_bound`'s relaxation
    (one machine of speed ``M``, work ``v_i``, release ``a_i``): every feasible schedule induces a
    schedule of the relaxation that finishes each request by ``C_i``, and SRPT minimises the number in
    the system at every instant over all such schedules (Schrage 1968). Hence ``TEL(OPT) >=
    integral of max(N_o, N_SRPT)``, rounded up: at least :func:`sum_outputs_bound` and
    :func:`srpt_bound`, and larger where memory is the bottleneck at some times and the outputs at
    others. Times are scaled by ``M`` (exact integers).

    >>> from geosched.reference_impl.model import Instance, Request
    >>> capacity_bound(Instance(10, [Request("a", 0, 4, 2), Request("b", 1, 0, 4)])).value
    6
    """
    return LowerBound("capacity", _ceil_div(_capacity_area(instance), instance.memory),
                      "this module: max of the output count and the SRPT count at every instant (Schrage 1968)")


def _capacity_area(instance: Instance) -> int:
    """``integral of max(N_o, N_SRPT)`` in units of ``1/M`` step."""
    import numpy as np

    memory = instance.memory
    released = np.sort(np.array([r.arrival * memory for r in instance.requests], dtype=np.int64))
    outputs_done = np.sort(np.array([(r.arrival + r.output) * memory for r in instance.requests], dtype=np.int64))
    srpt_done = np.sort(np.array(_srpt_completions([(r.arrival * memory, r.volume) for r in instance.requests]),
                                 dtype=np.int64))
    times = np.unique(np.concatenate([released, outputs_done, srpt_done]))
    arrived = np.searchsorted(released, times, side="right")
    count_o = arrived - np.searchsorted(outputs_done, times, side="right")
    count_srpt = arrived - np.searchsorted(srpt_done, times, side="right")
    widths = np.diff(times)
    return int((np.maximum(count_o, count_srpt)[:-1] * widths).sum())


def exclusive_tail_bound(instance: Instance) -> LowerBound:
    """Tails above ``M/2`` never overlap: a one-machine relaxation; valid with arrivals.

    Let ``theta = floor(M/2) + 1``. Request ``i`` holds ``s_i + d`` tokens in the ``d``-th
    step of its run, so it holds ``>= theta`` exactly in its last
    ``l_i = max(0, min(o_i, s_i + o_i - theta + 1))`` steps, its *tail* ``(C_i - l_i, C_i]``.
    Two requests in their tails at the same step would hold ``>= 2 theta > M`` tokens, so the
    tails are disjoint: they form a non-preemptive one-machine schedule of jobs with
    processing ``l_i`` and release ``a_i + o_i - l_i`` (a run starts at or after ``a_i``).
    Preemptive SRPT minimises ``sum C`` for such jobs (Schrage 1968), and a request without a
    tail has ``C_i >= a_i + o_i``; hence ``TEL(OPT) >= SRPT + sum_{l_i = 0} (a_i + o_i) - sum_i a_i``.
    It complements the volume bounds when many peaks exceed ``M/2`` (this module's own bound).

    >>> from geosched.reference_impl.model import burst_instance
    >>> exclusive_tail_bound(burst_instance(12, [(6, 3), (1, 5)])).value  # tails 3 and 0: 3 + 5
    8
    """
    theta = instance.memory // 2 + 1
    jobs, rest = [], 0
    for r in instance.requests:
        tail = max(0, min(r.output, r.prompt + r.output - theta + 1))
        if tail:
            jobs.append((r.arrival + r.output - tail, tail))
        else:
            rest += r.arrival + r.output
    value = _srpt_total_completion(jobs) + rest - sum(r.arrival for r in instance.requests)
    return LowerBound("exclusive_tail", value,
                      "this module: tails above M/2 are disjoint; one-machine SRPT (Schrage 1968)")


def cheap_bounds(instance: Instance) -> list[LowerBound]:
    """Every applicable bound that costs ``O(n log n)``."""
    bounds = [sum_outputs_bound(instance), exclusive_tail_bound(instance), srpt_bound(instance)]
    for fn in (volume_prefix_bound, completion_order_bound):
        b = fn(instance)
        if b is not None:
            bounds.append(b)
    return bounds


def best_cheap_bound(instance: Instance) -> LowerBound:
    """The largest of :func:`cheap_bounds` (ties go to the bound listed last, the strongest family).

    >>> from geosched.reference_impl.model import burst_instance
    >>> best_cheap_bound(burst_instance(12, [(6, 3), (1, 5)])).value
    8
    """
    best = None
    for b in cheap_bounds(instance):
        if best is None or b.value >= best.value:
            best = b
    assert best is not None
    return best
