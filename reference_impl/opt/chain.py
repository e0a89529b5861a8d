"""The big-request chain bound: a subset dynamic program over completion orders (burst arrivals).

Notation as in :mod:`.bounds`: request ``i`` has prompt ``s_i``, output ``o_i``, peak
``p_i = s_i + o_i``, volume ``v_i``; start ``x_i``, completion ``C_i = x_i + o_i``. Call ``i``
*big* when ``2 p_i > M``.

**Separation** (the rule behind the ``cpsat-completion`` model). If ``C_i <= C_j`` then
``C_j - C_i >= sep(i, j) = max(0, min(o_j, p_i + p_j - M))``: at step ``C_i`` request ``i``
holds ``p_i``; either ``j`` has not started (``C_j >= C_i + o_j``) or it holds
``s_j + (C_i - x_j) <= M - p_i`` tokens, so ``C_j - C_i = o_j - (C_i - x_j) >= p_i + p_j - M``.
Two big requests have ``p_i + p_j > M``, so they never complete at the same step and every
pair of them is separated: the big requests run almost one after another, which volume
arguments (Kong et al., arXiv 2606.22327, Prop. 3.1) cannot see.

**The relaxation.** Fix any feasible schedule and order its requests by completion,
``pi(1), ..., pi(n)`` (ties only between requests with ``p_i + p_j <= M``, broken
arbitrarily). With ``T_k = {pi(1..k)}`` and ``b`` the last big request among
``pi(1..k-1)``:

``C_pi(k) >= c_k = max(o_pi(k), ceil(V(T_k) / M), C_b + sep(b, pi(k)))``

(the requests of ``T_k`` hold their whole volume ``V(T_k)`` by step ``C_pi(k)``, at most ``M``
tokens per step). Minimising ``sum_k c_k`` over orders is a relaxation of min TEL. The dynamic
program runs over states ``(S, b)``, ``S`` the set completed first and ``b`` its last big
request: ``G(S, b)`` is a lower bound on ``sum_{i in S} C_i`` and ``D(S, b)`` a lower bound on
``C_b``, over every order reaching the state. Appending ``j``:
``c = max(o_j, ceil(V(S + j) / M), D(S, b) + sep(b, j))``, ``G(S + j, b') <= G(S, b) + c``, and
``D(S + j, j) <= c`` if ``j`` is big (else ``D`` is carried). Keeping the two minima apart
(rather than a Pareto front) only weakens the bound: by induction on ``k``, every order's
prefix has ``G <= sum C`` and ``D <= C_b``. So ``f(S) = min_b G(S, b) <= TEL(OPT of S)``
for every subset ``S`` at once (the recursion over prefixes of ``S`` does not depend on the
other requests), which :func:`~.timeindexed.start_windows` uses for its ``LB(I - i)``.

Cost: ``O(2^n n (n_big + 1))`` time and ``8 * 2^n (n_big + 1)`` bytes, so the full table is
built up to :data:`CHAIN_MAX_N` requests and :data:`CHAIN_MAX_STATES` states (about 1 s and
100 MB at ``n = 20``); larger bursts get the split bound of :func:`chain_bound`. On the
benchmark's ``n = 20`` instances it raises the best cheap bound from 905 / 928 / 1128 to
999 / 1284 / 1406 (``benchmarks/RESULTS.md``, section 2). This module's own bound.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(10, [(1, 8), (1, 8)])  # two big requests: one after the other
>>> chain_bound(inst).value                     # 8 + (8 + sep = min(8, 9 + 9 - 10))
24
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit  # a runtime dependency (pyproject); 2^20 states need compiled loops

from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.opt.bounds import LowerBound, best_cheap_bound

__all__ = ["CHAIN_MAX_N", "CHAIN_MAX_STATES", "chain_subset_bounds", "chain_bound", "is_big", "chain_seconds"]

CHAIN_MAX_N = 20  # requests in one table
CHAIN_MAX_STATES = 1 << 24  # (subset, last big) pairs; two int32 tables: at most 128 MiB


def is_big(request: Request, memory: int) -> bool:
    """``2 p_i > M``: two such requests are always separated (module docstring)."""
    return 2 * request.peak > memory


@njit(cache=True)
def _chain_dp(output, peak, volume, memory):  # pragma: no cover - compiled; tested through chain_subset_bounds
    n = output.size
    big_index = np.full(n, -1, np.int64)
    n_big = 0
    for i in range(n):
        if 2 * peak[i] > memory:
            big_index[i] = n_big
            n_big += 1
    big_request = np.empty(n_big, np.int64)
    for i in range(n):
        if big_index[i] >= 0:
            big_request[big_index[i]] = i
    n_sets = 1 << n
    width = n_big + 1  # column n_big: no big request completed yet
    unreached = np.int32(1 << 30)  # TELs of instances this small stay far below 2^30
    total = np.full(n_sets * width, unreached, np.int32)
    last_big_completion = np.full(n_sets * width, unreached, np.int32)
    set_volume = np.zeros(n_sets, np.int64)
    for subset in range(1, n_sets):
        low = 0
        while not (subset >> low) & 1:
            low += 1
        set_volume[subset] = set_volume[subset & ~(1 << low)] + volume[low]
    total[n_big] = 0
    last_big_completion[n_big] = 0
    best = np.full(n_sets, unreached, np.int32)
    for subset in range(n_sets):
        for column in range(width):
            g = total[subset * width + column]
            if g >= unreached:
                continue
            if g < best[subset]:
                best[subset] = g
            d = last_big_completion[subset * width + column]
            for j in range(n):
                if (subset >> j) & 1:
                    continue
                grown = subset | (1 << j)
                c = output[j]
                by_volume = (set_volume[grown] + memory - 1) // memory
                if by_volume > c:
                    c = by_volume
                if column < n_big:
                    gap = peak[big_request[column]] + peak[j] - memory
                    if gap > output[j]:
                        gap = output[j]
                    if gap > 0 and d + gap > c:
                        c = d + gap
                if big_index[j] >= 0:
                    key = grown * width + big_index[j]
                    carried = c
                else:
                    key = grown * width + column
                    carried = d
                if g + c < total[key]:
                    total[key] = g + c
                if carried < last_big_completion[key]:
                    last_big_completion[key] = carried
    return best


def _states(requests, memory: int) -> int:
    return (1 << len(requests)) * (sum(1 for r in requests if is_big(r, memory)) + 1)


_STATE_STEPS_PER_SECOND = 1.5e8  # (state, request) steps of the DP per second (measured: about 2e8)
_LOAD_SECONDS = 2.5  # loading the cached compiled DP into a fresh process (measured: 2.1 s)


def chain_seconds(instance: Instance) -> float:
    """A conservative estimate of :func:`chain_bound`'s cost in seconds (``solve_opt`` skips the
    chain bound under a time limit it would not fit in): loading the compiled code once per
    process, then ``O(states * n)`` per table (two tables in the split form)."""
    if not instance.is_burst or instance.n == 0:
        return 0.0
    by_peak = sorted(instance.requests, key=lambda r: -r.peak)[:CHAIN_MAX_N]
    size = len(by_peak)
    while size and _states(by_peak[:size], instance.memory) > CHAIN_MAX_STATES:
        size -= 1
    tables = 1 if instance.n <= CHAIN_MAX_N else 2
    load = 0.0 if _chain_dp.signatures else _LOAD_SECONDS
    return load + tables * _states(by_peak[:size], instance.memory) * max(1, size) / _STATE_STEPS_PER_SECOND


def chain_subset_bounds(instance: Instance) -> np.ndarray | None:
    """``f[S]`` for every subset ``S`` (bit ``i`` = ``instance.requests[i]``): a lower bound on
    the optimal TEL of the burst instance made of ``S`` alone (module docstring).

    ``None`` when some request arrives after step 0, ``n > CHAIN_MAX_N``, the table would
    exceed :data:`CHAIN_MAX_STATES` entries, or its TELs could reach ``2^30`` (its entries
    are int32: long requests would wrap around and give a false bound). The table is read-only (shared by a small cache:
    the solver asks for the same instance several times in a row).
    """
    if not instance.is_burst or instance.n > CHAIN_MAX_N:
        return None
    if _states(instance.requests, instance.memory) > CHAIN_MAX_STATES:
        return None
    # the tables are int32 with 2^30 as "unreached": every c_k <= ceil(V / M) + sum o (each
    # step adds at most o_j past the last big completion), so n such terms must stay below it
    total_output = sum(r.output for r in instance.requests)
    total_volume = sum(r.volume for r in instance.requests)
    if instance.n * (total_output + total_volume // instance.memory + 1) >= 1 << 30:
        return None
    return _table(instance.memory, tuple((r.output, r.peak, r.volume) for r in instance.requests))


@lru_cache(maxsize=4)
def _table(memory: int, lengths: tuple[tuple[int, int, int], ...]) -> np.ndarray:
    output, peak, volume = (np.array([row[k] for row in lengths], dtype=np.int64) for k in range(3))
    table = _chain_dp(output, peak, volume, np.int64(memory))
    table.flags.writeable = False
    return table


def chain_bound(instance: Instance) -> LowerBound | None:
    """``TEL(OPT) >= f(all requests)`` (module docstring); for larger bursts a split bound.

    **Split.** For any partition of the requests into ``A`` and ``B``, the TEL of a schedule
    is the sum of the two parts' TELs, and each part is a feasible schedule of its own burst
    instance (removing requests only frees memory), so ``TEL(OPT) >= f(A) + LB(B)`` with
    ``LB`` the best cheap bound (:func:`~.bounds.best_cheap_bound`). ``A`` is grown from the
    largest peaks down (where the separations are) while the table stays within
    :data:`CHAIN_MAX_STATES` entries and :data:`CHAIN_MAX_N` requests, or is the set of big
    requests (when its table fits); the larger of the two values is returned.

    ``None`` with arrivals (the volume and separation steps assume a burst).
    """
    if not instance.is_burst:
        return None
    if instance.n == 0:
        return LowerBound("chain", 0, "empty instance")
    source = ("this package: subset DP over completion orders with big-request separation "
              "(geosched.reference_impl.opt.chain)")
    f = chain_subset_bounds(instance)
    if f is not None:
        return LowerBound("chain", int(f[-1]), source)
    memory = instance.memory
    by_peak = sorted(instance.requests, key=lambda r: -r.peak)
    size = 0
    while size < min(CHAIN_MAX_N, len(by_peak)) and _states(by_peak[: size + 1], memory) <= CHAIN_MAX_STATES:
        size += 1
    n_big = sum(1 for r in by_peak if is_big(r, memory))
    best = None
    for cut, what in ((size, f"the {size} largest peaks"), (n_big, f"the {n_big} big requests")):
        part = Instance(memory, by_peak[:cut])
        table = chain_subset_bounds(part) if cut else None
        if table is None:
            continue
        value = int(table[-1]) + best_cheap_bound(Instance(memory, by_peak[cut:])).value
        if best is None or value > best[0]:
            best = (value, what)
    if best is None:
        return None
    return LowerBound("chain", best[0], source + f"; split: chain over {best[1]} + cheap bound of the rest")
