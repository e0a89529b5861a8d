"""The simulator's default case compiled: a priority rule with exact lengths, strict head-of-line.

The same process as :func:`geosched.reference_impl.simulation.simulate` (Kong et al.,
arXiv 2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1) for the case that
1,000,000-request runs use (issue 21): every belief is the true length (so nothing is ever
evicted and the finished members are a prefix of the batch sorted by end), no backfill, no
observer or listener, token grain. It is a line-by-line port of
:class:`~geosched.reference_impl.engine.ReplicaEngine`'s decision loop and of
:class:`~geosched.reference_impl.admission.ForwardCheck`'s exact forward check and
``earliest_start`` jumps onto int64 arrays in one compiled loop (numba), so it takes the same
decisions at the same steps; ``tests/test_million.py`` compares the two on generated instances.

int64 cannot wrap: :func:`fits_int64` admits an instance only when every quantity of the loop
is bounded below ``2^62`` (no request waits while the batch is empty, so no step passes the last
arrival plus the sum of the outputs); the simulator keeps its Python-integer path otherwise.

Example
-------
>>> import numpy as np
>>> start, order, decisions = run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]),
...                                     np.array([1, 0]), np.array([0, 1]))
>>> start.tolist(), order.tolist(), decisions
([5, 0], [1, 0], 2)
"""

from __future__ import annotations

import numpy as np
from numba import njit  # a runtime dependency (pyproject); a million decisions need a compiled loop

__all__ = ["run_exact", "fits_int64", "priority_order"]

_LIMIT = 2**62
# numba's cache records the module's import name; one imported under another name (a doctest run on
# the file) would leave entries that a later process cannot load: only the package's name caches
_CACHE = __name__ == "geosched.reference_impl.fastsim"


def fits_int64(memory: int, arrival: np.ndarray, output: np.ndarray) -> bool:
    """Whether every sum of :func:`run_exact` stays below ``2^62`` in magnitude.

    Every step the loop reaches is at most ``T = max(a) + sum(o)``, every member's offset
    ``s - x`` and end are at most ``T + M`` in magnitude, and a sum adds at most ``n`` of them
    or multiplies a step by a count of at most ``n``.

    >>> fits_int64(39, np.array([0, 5]), np.array([3, 4])), fits_int64(2**53, np.array([2**53]), np.array([1]))
    (True, True)
    """
    n = int(output.size)
    horizon = (int(arrival.max()) if n else 0) + int(output.sum(dtype=object)) + memory
    return 4 * (n + 2) * (horizon + memory) < _LIMIT


def priority_order(keys: list, arrival: np.ndarray) -> np.ndarray | None:
    """Positions sorted by ``(key, arrival, position)`` (the simulator's ranks), by ``np.lexsort``
    when every key is a Python ``int`` within int64 (the priority rules' keys); None otherwise."""
    if not keys or not all(type(k) is int for k in keys) or not -_LIMIT <= min(keys) <= max(keys) < _LIMIT:
        return None
    key_column = np.array(keys, dtype=np.int64)
    return np.lexsort((np.arange(len(keys), dtype=np.int64), arrival, key_column))


@njit(cache=_CACHE)
def _bisect_right(a, lo, hi, x):  # pragma: no cover - compiled
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=_CACHE)
def _bisect_left(a, lo, hi, x):  # pragma: no cover - compiled
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=_CACHE)
def _refresh(ends, offsets, suffix, value, base, top):  # pragma: no cover - compiled
    """ForwardCheck._refresh on the live members ``[base, top)``."""
    running = 0
    suffix[top] = 0
    for m in range(top - 1, base - 1, -1):
        running += offsets[m]
        suffix[m] = running
    k = top - base
    m = base
    while m < top:
        end = ends[m]
        first = m
        while m < top and ends[m] == end:
            m += 1
        usage = suffix[first] + end * (k - (first - base))
        for q in range(first, m):
            value[q] = usage + end


@njit(cache=_CACHE)
def _heap_push(heap, size, item):  # pragma: no cover - compiled
    pos = size
    heap[pos] = item
    while pos > 0:
        parent = (pos - 1) >> 1
        if heap[parent] <= item:
            break
        heap[pos] = heap[parent]
        pos = parent
    heap[pos] = item
    return size + 1


@njit(cache=_CACHE)
def _heap_pop(heap, size):  # pragma: no cover - compiled
    size -= 1
    last = heap[size]
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[pos] = heap[child]
        pos = child
    if size > 0:
        heap[pos] = last
    return size


@njit(cache=_CACHE)
def _earliest(memory, prompt, output, start, ends, suffix, value, base, top):  # pragma: no cover - compiled
    """ForwardCheck.earliest_start's jumps (the members are fresh: suffix and value valid)."""
    k = top - base
    tau = start
    while True:
        lo = _bisect_right(ends, base, top, tau)
        hi = _bisect_right(ends, base, top, tau + output)
        bound = tau
        limit = memory - prompt + tau
        for m in range(lo, hi):
            if value[m] > limit:
                candidate = min(value[m] + prompt - memory, ends[m])
                if candidate > bound:
                    bound = candidate
        idx = _bisect_left(ends, base, top, tau + output)
        if suffix[idx] + (tau + output) * (k - (idx - base)) + prompt + output > memory:
            candidate = ends[idx] - output + 1
            if candidate > bound:
                bound = candidate
        if bound == tau:
            return tau
        tau = bound


@njit(cache=_CACHE)
def run_exact(memory, prompt, output, arrival, order, by_arrival):  # pragma: no cover - compiled
    """The decision loop of ``ReplicaEngine`` in exact mode: ``(start, admission order, decisions)``.

    ``order[r]`` is the request of rank ``r`` (sorted by ``(key, arrival, position)``);
    ``by_arrival`` the requests sorted stably by arrival. Every argument is int64.
    """
    n = prompt.size
    start = np.full(n, -1, np.int64)
    admitted = np.empty(n, np.int64)
    rank = np.empty(n, np.int64)
    for r in range(n):
        rank[order[r]] = r
    heap = np.empty(n, np.int64)
    ends = np.empty(n, np.int64)
    offsets = np.empty(n, np.int64)
    suffix = np.zeros(n + 1, np.int64)
    value = np.empty(n, np.int64)
    base = top = size = n_admitted = next_arrival = decisions = 0
    total_offset = total_end = 0
    stale = False
    if n == 0:
        return start, admitted, 0
    t = arrival[by_arrival[0]]
    while True:
        decisions += 1
        p = _bisect_right(ends, base, top, t)  # drop_through(t): finished members are a prefix
        for m in range(base, p):
            total_offset -= offsets[m]
            total_end -= ends[m]
        base = p
        while next_arrival < n and arrival[by_arrival[next_arrival]] <= t:
            size = _heap_push(heap, size, rank[by_arrival[next_arrival]])
            next_arrival += 1
        while size > 0:  # strict head-of-line admission
            i = order[heap[0]]
            s, o = prompt[i], output[i]
            ok = total_offset + min((top - base) * (t + o), total_end) + s + o <= memory
            if not ok:
                if stale:
                    _refresh(ends, offsets, suffix, value, base, top)
                    stale = False
                ok = True
                limit = memory - s + t
                for m in range(_bisect_right(ends, base, top, t), _bisect_right(ends, base, top, t + o)):
                    if value[m] > limit:
                        ok = False
                        break
                if ok:
                    idx = _bisect_left(ends, base, top, t + o)
                    ok = suffix[idx] + (t + o) * (top - idx) + s + o <= memory
            if not ok:
                break
            end = t + o
            k = _bisect_right(ends, base, top, end)
            for m in range(top, k, -1):
                ends[m] = ends[m - 1]
                offsets[m] = offsets[m - 1]
            ends[k] = end
            offsets[k] = s - t
            top += 1
            total_offset += s - t
            total_end += end
            stale = True
            size = _heap_pop(heap, size)
            start[i] = t
            admitted[n_admitted] = i
            n_admitted += 1
        has_horizon = next_arrival < n
        horizon = arrival[by_arrival[next_arrival]] if has_horizon else 0
        if size > 0:
            i = order[heap[0]]
            s, o = prompt[i], output[i]
            tau = t + 1
            if total_offset + min((top - base) * (tau + o), total_end) + s + o > memory:
                if stale:
                    _refresh(ends, offsets, suffix, value, base, top)
                    stale = False
                tau = _earliest(memory, s, o, tau, ends, suffix, value, base, top)
            if not has_horizon or tau < horizon:
                horizon = tau
            has_horizon = True
        if not has_horizon:
            return start, admitted, decisions
        t = horizon
