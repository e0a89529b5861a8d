"""Fast candidate evaluation: the adversary's inner loop.

The searches of :mod:`geosched.adversary` evaluate hundreds of thousands of small instances.
This module re-implements, for *exact* output lengths only, the strict head-of-line (or
backfilling) continuous-batching process of :func:`geosched.reference_impl.simulation.simulate`
(Kong et al., arXiv 2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1)
as a compiled step loop (numba), plus a greedy *list-scheduling* builder used to construct
witness schedules.

At step ``t``: requests with ``x_j + o_j <= t`` leave; the arrived waiting requests are
scanned in priority order ``(key, arrival, index)`` and the candidate ``c`` starts at ``t``
when for every ``t' in (t, t + o_c]``

.. math::  \\sum_{j \\in B,\\ t' \\le x_j + o_j} (s_j + t' - x_j) + s_c + t' - t \\le M,

which, the usage being increasing between completions, is checked at the completions
``e_j in (t, t + o_c]`` and at ``t + o_c``. The loop walks every step (cheap for the small
lengths a search uses) and jumps over idle stretches to the next arrival.
:func:`tests.test_adversary` checks equality with the reference simulator on random instances.

Ties: by arrival, then index (the position in the instance), exactly as the reference
simulator; ids are labels only. The policies and their keys come from the one registry
(:mod:`geosched.reference_impl.policies`): a policy with the ``FAST`` capability provides
``array_keys``.

Example
-------
>>> import numpy as np
>>> a, s, o = np.zeros(2, np.int64), np.array([6, 1]), np.array([3, 5])
>>> policy_tel("svf", a, s, o, 12)
13
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit  # a runtime dependency (pyproject)

from geosched.errors import UnknownNameError
from geosched.reference_impl.policies import Capability, make_policy, policy_names

__all__ = [
    "FAST_POLICIES",
    "ids_for",
    "priority_keys",
    "priority_order",
    "simulate_arrays",
    "policy_tel",
    "fast_starts",
    "list_schedule",
    "batch_policy_tel",
]

FAST_POLICIES = policy_names(Capability.FAST)


def ids_for(n: int) -> list[str]:
    """Zero-padded ids ``r0..r9`` or ``r00..r42`` (labels only: ties never look at them)."""
    width = len(str(max(n - 1, 0)))
    return [f"r{k:0{width}d}" for k in range(n)]


def priority_keys(policy: str, prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
    """The policy's integer keys with exact predictions (the registry's ``array_keys``)."""
    if policy not in FAST_POLICIES:
        raise UnknownNameError("fast policy", policy, FAST_POLICIES)
    return np.asarray(make_policy(policy).array_keys(np.asarray(prompt, dtype=np.int64),
                                                     np.asarray(output, dtype=np.int64)), dtype=np.int64)


def priority_order(policy: str, arrival: np.ndarray, prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Request indices in priority order ``(key, arrival, index)``."""
    keys = priority_keys(policy, prompt, output)
    n = len(keys)
    return np.lexsort((np.arange(n), np.asarray(arrival, dtype=np.int64), keys)).astype(np.int64)


@njit(cache=True)
def _fits(memory, t, cand_s, cand_o, run_idx, nrun, start, prompt, output):
    # usage at p of the batch: sum over running j with e_j >= p of (s_j + p - x_j)
    horizon = t + cand_o
    for q in range(nrun + 1):
        if q < nrun:
            j = run_idx[q]
            p = start[j] + output[j]
            if p <= t or p > horizon:
                continue
        else:
            p = horizon
        used = cand_s + p - t
        for r in range(nrun):
            k = run_idx[r]
            if start[k] + output[k] >= p:
                used += prompt[k] + p - start[k]
        if used > memory:
            return False
    return True


@njit(cache=True)
def _simulate_core(arrival, prompt, output, order, memory, backfill):
    n = arrival.shape[0]
    start = np.full(n, -1, np.int64)
    run_idx = np.empty(n, np.int64)
    nrun = 0
    remaining = n
    if n == 0:
        return start
    t = arrival.min()
    first = 0  # first rank not yet started
    while remaining > 0:
        # completions
        q = 0
        while q < nrun:
            j = run_idx[q]
            if start[j] + output[j] <= t:
                nrun -= 1
                run_idx[q] = run_idx[nrun]
            else:
                q += 1
        while first < n and start[order[first]] >= 0:
            first += 1
        any_waiting = False
        for r in range(first, n):
            i = order[r]
            if start[i] >= 0 or arrival[i] > t:
                continue
            if _fits(memory, t, prompt[i], output[i], run_idx, nrun, start, prompt, output):
                start[i] = t
                run_idx[nrun] = i
                nrun += 1
                remaining -= 1
            else:
                any_waiting = True
                if not backfill:
                    break
        if remaining == 0:
            break
        if nrun == 0 and not any_waiting:
            nxt = -1
            for i in range(n):
                if start[i] < 0 and arrival[i] > t and (nxt < 0 or arrival[i] < nxt):
                    nxt = arrival[i]
            t = nxt
        else:
            t += 1
    return start


@njit(cache=True)
def _profile_bound(usage, memory, t, s, o, run_idx, nrun, start, output):
    # -1 when the candidate (s, o) fits at t; else the earliest step at which it might.
    # usage[p] = tokens held at step p by the started requests (their whole future is known
    # with exact lengths); usage + own tokens grows between completions, so only the
    # completions in (t, t + o] and t + o are checked. A violation at p by e tokens cannot
    # disappear before min(t + e, p): the candidate's own tokens at p shrink by one a step
    # (the largest such step over all violations is returned).
    bound = -1
    for q in range(nrun + 1):
        if q < nrun:
            j = run_idx[q]
            p = start[j] + output[j]
            if p <= t or p > t + o:
                continue
        else:
            p = t + o
        excess = usage[p] + s + p - t - memory
        if excess > 0:
            bound = max(bound, min(t + excess, p))
    return bound


@njit(cache=True)
def _simulate_profile_core(arrival, prompt, output, order, memory, backfill):
    # The same process as _simulate_core (tests hold them equal) with O(1) usage look-ups and
    # time jumps: between admissions and arrivals nothing changes, so the clock moves to the
    # earliest step at which a blocked candidate might fit (see _profile_bound) or the next
    # arrival. Faster for large n.
    n = arrival.shape[0]
    start = np.full(n, -1, np.int64)
    if n == 0:
        return start
    horizon = arrival.max() + output.sum() + 2
    usage = np.zeros(horizon + 2, np.int64)
    run_idx = np.empty(n, np.int64)
    nrun = 0
    remaining = n
    t = arrival.min()
    first = 0
    while remaining > 0:
        q = 0
        while q < nrun:
            j = run_idx[q]
            if start[j] + output[j] <= t:
                nrun -= 1
                run_idx[q] = run_idx[nrun]
            else:
                q += 1
        while first < n and start[order[first]] >= 0:
            first += 1
        wake = horizon + 1
        failed_s = -1  # the last blocked candidate's lengths: an identical one is blocked too
        failed_o = -1
        for r in range(first, n):
            i = order[r]
            if start[i] >= 0 or arrival[i] > t:
                continue
            if prompt[i] == failed_s and output[i] == failed_o:
                continue
            bound = _profile_bound(usage, memory, t, prompt[i], output[i], run_idx, nrun, start, output)
            if bound < 0:
                start[i] = t
                for p in range(t + 1, t + output[i] + 1):
                    usage[p] += prompt[i] + p - t
                run_idx[nrun] = i
                nrun += 1
                remaining -= 1
            else:
                wake = min(wake, bound)
                failed_s = prompt[i]
                failed_o = output[i]
                if not backfill:
                    break
        if remaining == 0:
            break
        for i in range(n):
            if start[i] < 0 and arrival[i] > t and arrival[i] < wake:
                wake = arrival[i]
        t = wake
    return start


PROFILE_MIN_REQUESTS = 32  # from about here on the profile kernel is the faster one (benchmarks/bench_adversary.py)


def simulate_arrays(
    policy: str,
    arrival: np.ndarray,
    prompt: np.ndarray,
    output: np.ndarray,
    memory: int,
    *,
    backfill: bool = False,
    order: np.ndarray | None = None,
    kernel: str = "auto",
) -> np.ndarray:
    """Start steps of ``policy`` (exact lengths) on the arrays; ``order`` overrides the priority.

    ``kernel``: ``"batch"`` re-sums the running batch at every check (fast for small batches),
    ``"profile"`` keeps the usage profile and jumps over steps where nothing can change (fast
    for hundreds or thousands of requests); ``"auto"`` picks by ``n``. Both give the same starts.
    """
    a = np.ascontiguousarray(arrival, dtype=np.int64)
    s = np.ascontiguousarray(prompt, dtype=np.int64)
    o = np.ascontiguousarray(output, dtype=np.int64)
    if order is None:
        order = priority_order(policy, a, s, o)
    if kernel not in ("auto", "batch", "profile"):
        raise ValueError(f"kernel must be 'auto', 'batch' or 'profile', got {kernel!r}")
    use_profile = kernel == "profile" or (kernel == "auto" and len(a) >= PROFILE_MIN_REQUESTS)
    core = _simulate_profile_core if use_profile else _simulate_core
    return core(a, s, o, np.ascontiguousarray(order, dtype=np.int64), int(memory), bool(backfill))


def policy_tel(policy: str, arrival, prompt, output, memory: int, *, backfill: bool = False) -> int:
    """TEL ``sum(x_i + o_i - a_i)`` of the policy's schedule."""
    a = np.asarray(arrival, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    x = simulate_arrays(policy, a, prompt, o, memory, backfill=backfill)
    return int((x + o - a).sum())


def fast_starts(instance, policy: str, *, backfill: bool = False) -> dict[str, int]:
    """Start times keyed by id (ties by arrival, then position, as the reference simulator)."""
    reqs = instance.requests
    a = np.array([r.arrival for r in reqs], dtype=np.int64)
    s = np.array([r.prompt for r in reqs], dtype=np.int64)
    o = np.array([r.output for r in reqs], dtype=np.int64)
    x = simulate_arrays(policy, a, s, o, instance.memory, backfill=backfill)
    return {r.id: int(v) for r, v in zip(reqs, x)}


@njit(cache=True)
def _batch_core(arrival, prompt, output, offsets, memories, orders, backfill):
    count = offsets.shape[0] - 1
    tels = np.empty(count, np.int64)
    for b in range(count):
        lo = offsets[b]
        hi = offsets[b + 1]
        if hi - lo >= 32:  # PROFILE_MIN_REQUESTS (a numba function cannot read the module global lazily)
            x = _simulate_profile_core(arrival[lo:hi], prompt[lo:hi], output[lo:hi], orders[lo:hi], memories[b],
                                       backfill)
        else:
            x = _simulate_core(arrival[lo:hi], prompt[lo:hi], output[lo:hi], orders[lo:hi], memories[b], backfill)
        total = 0
        for i in range(hi - lo):
            total += x[i] + output[lo + i] - arrival[lo + i]
        tels[b] = total
    return tels


def batch_policy_tel(
    policy: str,
    instances: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, int]],
    *,
    backfill: bool = False,
) -> np.ndarray:
    """TELs of a whole population ``[(arrival, prompt, output, M), ...]`` in one compiled call."""
    sizes = [len(item[0]) for item in instances]
    offsets = np.zeros(len(instances) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    a = np.concatenate([np.asarray(i[0], np.int64) for i in instances]) if instances else np.zeros(0, np.int64)
    s = np.concatenate([np.asarray(i[1], np.int64) for i in instances]) if instances else np.zeros(0, np.int64)
    o = np.concatenate([np.asarray(i[2], np.int64) for i in instances]) if instances else np.zeros(0, np.int64)
    orders = np.concatenate(
        [priority_order(policy, *item[:3]) for item in instances]
    ) if instances else np.zeros(0, np.int64)
    memories = np.array([int(i[3]) for i in instances], dtype=np.int64)
    return _batch_core(a, s, o, offsets, memories, orders, bool(backfill))


@njit(cache=True)
def _list_core(arrival, prompt, output, order, memory, horizon, monotone):
    # usage[t] = tokens held at step t by the requests placed so far
    usage = np.zeros(horizon + 2, np.int64)
    n = arrival.shape[0]
    start = np.full(n, -1, np.int64)
    previous = 0
    for q in range(n):
        i = order[q]
        x = max(arrival[i], previous) if monotone else arrival[i]
        s = prompt[i]
        o = output[i]
        while True:
            jump = -1
            for t in range(x + o, x, -1):
                excess = usage[t] + s + t - x - memory
                if excess > 0:  # no start before min(x + excess, t) can clear step t
                    jump = max(jump, min(x + excess, t))
                    if jump >= t:  # no later violation can push further than t - 1 + ... : stop
                        break
            if jump < 0:
                break
            x = jump
        start[i] = x
        previous = x
        for t in range(x + 1, x + o + 1):
            usage[t] += s + t - x
    return start


def list_schedule(arrival, prompt, output, memory: int, order: Sequence[int], *, monotone: bool = False) -> np.ndarray:
    """Greedy list scheduling: place requests in ``order``, each at its earliest feasible start
    given those already placed (anywhere in time, not only the running batch).

    ``monotone``: never start before the previous request in ``order`` (a serial schedule: it
    cannot fill earlier holes, but costs ``O(makespan + sum o)`` instead of ``O(n * makespan)``,
    which matters for thousands of requests).

    Every order yields a feasible schedule, and an optimal schedule is reached by the order of
    its own start times only when greedy placement reproduces it, so local search over orders
    is a heuristic for OPT, never a bound.

    >>> list_schedule([0, 0], [6, 1], [3, 5], 12, [1, 0]).tolist()
    [5, 0]
    """
    a = np.ascontiguousarray(arrival, dtype=np.int64)
    o = np.ascontiguousarray(output, dtype=np.int64)
    horizon = int(a.max(initial=0) + o.sum() + 1)
    return _list_core(a, np.ascontiguousarray(prompt, dtype=np.int64), o,
                      np.ascontiguousarray(order, dtype=np.int64), int(memory), horizon, bool(monotone))
