"""The compiled kernel: the exact model's continuous batching as one numba loop (issue 31, item 1).

The process of :func:`geosched.reference_impl.simulation.simulate` (Kong et al., arXiv 2606.22327,
Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1) for exact lengths: every belief is the
true length, so nothing is ever evicted and the finished members are a prefix of the batch sorted by
end. It is a port of :class:`~geosched.reference_impl.engine.ReplicaEngine`'s exact mode and of
:class:`~geosched.reference_impl.admission.ForwardCheck` (the two sufficient tests, the window check
on suffix sums, ``earliest_start``'s jumps) onto int64 arrays, for strict head-of-line and backfill:
the waiting ranks are a sorted run (a burst's million ranks are one run, read in order) plus, at
head-of-line, a heap for the few that arrive behind a long run; backfill scans the whole run at
every decision, as the engine does. It takes the engine's decisions at the engine's steps, so
starts, admission order and the number of decisions are the engine's, in both modes;
``tests/test_kernel.py`` and ``tests/test_million.py`` compare them on generated instances. Ties
are the caller's ``order``: ranks sorted by ``(key, arrival, position)``, never by ids.

It replaces the two compiled simulators of before (issue 31): the simulator's port for large
instances (``reference_impl/fastsim.py``, head-of-line only) and the adversary's step kernels (batch
and usage-profile, ``adversary/fast.py``); ``benchmarks/bench_kernel.py`` times it against both.
Token grain only: neither of them had block grain (an instance with ``block_size > 1`` runs on the
step engine, whose forward check counts blocks: :func:`~geosched.reference_impl.simulation.compiled_run`
refuses it). It imports nothing of geosched (numba and numpy only).

Entry points: :func:`run_exact` (one instance: starts, admission order, decisions; ``simulate``),
:func:`starts_exact` (the starts alone), :func:`tel_exact` (one instance's TEL: the searches' inner
loop) and :func:`batch_tel` (the TELs of a population in one call). Each allocates its outputs and
one int64 workspace and runs the same loop, which allocates nothing.

int64 cannot wrap: :func:`fits_int64` holds when every quantity of the loop stays below ``2^62``
(no request waits while the batch is empty, so no step passes the last arrival plus the sum of the
outputs). The entry points check it themselves and answer :data:`OUT_OF_RANGE` otherwise; the
caller then takes the Python-integer path (the engine). A request that is not valid
(``a >= 0``, ``s >= 0``, ``o >= 1``, ``s + o <= M``) or an ``order`` that is not a permutation
raises ``ValueError``.

Example
-------
>>> import numpy as np
>>> start, order, decisions = run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]),
...                                     np.array([1, 0]), False)
>>> start.tolist(), order.tolist(), decisions
([5, 0], [1, 0], 2)
"""

from __future__ import annotations

import numpy as np
from numba import njit  # a runtime dependency (pyproject); a million decisions need a compiled loop

__all__ = ["OUT_OF_RANGE", "LIMIT", "run_exact", "starts_exact", "tel_exact", "batch_tel", "fits_int64",
           "priority_order"]

OUT_OF_RANGE = -1  # the decisions or TEL of an instance past fits_int64: the caller runs the engine instead
LIMIT = 2**62  # every quantity of the loop stays below it (fits_int64); a budget M >= LIMIT never runs here
_NEVER = 2**62  # past every step the loop reaches (fits_int64)
# numba's cache records the module's import name; one imported under another name (a doctest run on
# the file) would leave entries that a later process cannot load: only the package's name caches
_CACHE = __name__ == "geosched.reference_impl.kernel"
# The loop and its helpers never allocate, so they are compiled without numba's reference counting
# (``_nrt=False``, numba's own option for that): with it, every helper call counted its array arguments
# up and down with atomic operations, about a third of the 1,000,000-request run (perf, NRT_incref and
# NRT_decref). Only the entry points, which allocate the outputs and the workspace, use the runtime.
_helper = njit(cache=_CACHE, _nrt=False)
_inline = njit(cache=_CACHE, _nrt=False, inline="always")  # per-decision helpers: numba inlines them


def fits_int64(memory: int, arrival: np.ndarray, output: np.ndarray) -> bool:
    """Whether every sum of the kernel stays below ``2^62`` in magnitude.

    Every step the loop reaches is at most ``T = max(a) + sum(o)``, every member's offset
    ``s - x`` and end are at most ``T + M`` in magnitude, and a sum adds at most ``n`` of them
    or multiplies a step by a count of at most ``n``: ``4 (n + 2) (T + 2M) < 2^62`` suffices.

    >>> fits_int64(39, np.array([0, 5]), np.array([3, 4])), fits_int64(2**53, np.array([2**53]), np.array([1]))
    (True, True)
    """
    if not 0 < memory < LIMIT:
        return False
    return bool(_fits_int64(int(memory), np.ascontiguousarray(arrival, dtype=np.int64),
                            np.ascontiguousarray(output, dtype=np.int64)))


def priority_order(keys: list, arrival: np.ndarray) -> np.ndarray | None:
    """Positions sorted by ``(key, arrival, position)`` (the simulator's ranks), by ``np.lexsort``
    when every key is a Python ``int`` within int64 (the priority rules' keys); None otherwise."""
    if not keys or not all(type(k) is int for k in keys) or not -LIMIT <= min(keys) <= max(keys) < LIMIT:
        return None
    key_column = np.array(keys, dtype=np.int64)
    return np.lexsort((np.arange(len(keys), dtype=np.int64), arrival, key_column))


@_helper
def _fits_int64(memory, arrival, output):  # pragma: no cover - compiled
    """``4 (n + 2) (max(a) + sum(o) + 2M) < 2^62``, summed without overflow (every term is checked
    against the cap before it is added); negative values are the validity check's business."""
    n = output.size
    cap = (LIMIT - 1) // (4 * (n + 2))
    room = cap - 2 * memory if memory <= cap // 2 else -1
    latest = 0
    for i in range(n):
        if arrival[i] > latest:
            latest = arrival[i]
        if output[i] > room:
            return False
        room -= output[i]
    return room >= 0 and latest <= room


@_helper
def _rank_input(memory, prompt, output, arrival, order, rank, ranked_prompt, ranked_output):  # pragma: no cover
    """Raise on an invalid request or an ``order`` that is not a permutation; fill ``rank`` and the
    lengths by rank (the loop reads them in the queue's order: a burst's million requests in order)."""
    n = prompt.size
    if output.size != n or arrival.size != n or order.size != n:
        raise ValueError("kernel: prompt, output, arrival and order must have the same length")
    for i in range(n):
        if arrival[i] < 0 or prompt[i] < 0 or output[i] < 1 or prompt[i] > memory - output[i]:
            raise ValueError("kernel: every request needs a >= 0, s >= 0, o >= 1 and s + o <= M")
        rank[i] = -1
    for r in range(n):
        i = order[r]
        if i < 0 or i >= n or rank[i] >= 0:
            raise ValueError("kernel: order must be a permutation of 0 .. n - 1")
        rank[i] = r
        ranked_prompt[r] = prompt[i]
        ranked_output[r] = output[i]


@_helper
def _ordered(arrival):  # pragma: no cover - compiled
    for i in range(1, arrival.size):
        if arrival[i] < arrival[i - 1]:
            return False
    return True


@_helper
def _arrival_ranks(arrival, by_arrival, rank, arriving, arrives):  # pragma: no cover - compiled
    """The ranks in order of arrival (``arriving``) and their arrivals (``arrives``); False, nothing
    filled, when every arrival is the same (a burst)."""
    n = arrival.size
    if by_arrival.size == 0 and arrival[0] == arrival[n - 1]:
        return False
    for k in range(n):
        i = by_arrival[k] if by_arrival.size else k
        arriving[k] = rank[i]
        arrives[k] = arrival[i]
    return True


@_inline
def _bisect_right(a, lo, hi, x):  # pragma: no cover - compiled
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@_inline
def _bisect_left(a, lo, hi, x):  # pragma: no cover - compiled
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_inline
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


@_inline
def _window_fits(memory, s, o, t, ends, suffix, value, base, top):  # pragma: no cover - compiled
    """ForwardCheck.fits' exact test (fresh suffix sums): every completion in ``(t, t + o]``, then ``t + o``."""
    limit = memory - s + t
    for m in range(_bisect_right(ends, base, top, t), _bisect_right(ends, base, top, t + o)):
        if value[m] > limit:
            return False
    idx = _bisect_left(ends, base, top, t + o)
    return suffix[idx] + (t + o) * (top - idx) + s + o <= memory


@_inline
def _earliest(memory, s, o, tau, ends, suffix, value, base, top, cap):  # pragma: no cover - compiled
    """ForwardCheck.earliest_start's jumps from ``tau`` (fresh suffix sums), stopped at ``cap``:
    the exact earliest start when it is below ``cap``, else a step ``>= cap``."""
    k = top - base
    while tau < cap:
        bound = tau
        limit = memory - s + tau
        for m in range(_bisect_right(ends, base, top, tau), _bisect_right(ends, base, top, tau + o)):
            if value[m] > limit:
                candidate = min(value[m] + s - memory, ends[m])
                if candidate > bound:
                    bound = candidate
        idx = _bisect_left(ends, base, top, tau + o)
        if suffix[idx] + (tau + o) * (k - (idx - base)) + s + o > memory:
            candidate = ends[idx] - o + 1
            if candidate > bound:
                bound = candidate
        if bound == tau:
            return tau
        tau = bound
    return tau


@_inline
def _insert(ends, offsets, base, top, end, offset):  # pragma: no cover - compiled
    """A member into the batch sorted by end (after the members with the same end)."""
    k = _bisect_right(ends, base, top, end)
    for m in range(top, k, -1):
        ends[m] = ends[m - 1]
        offsets[m] = offsets[m - 1]
    ends[k] = end
    offsets[k] = offset


@_inline
def _compact(ends, offsets, suffix, value, base, top):  # pragma: no cover - compiled
    """Move the live members ``[base, top)`` to the front (the loop does it once at least as many have
    finished, and 64): the batch's arrays stay about as long as the largest batch, not as the instance."""
    for m in range(top - base + 1):  # suffix[top] = 0 comes along
        ends[m] = ends[base + m]
        offsets[m] = offsets[base + m]
        suffix[m] = suffix[base + m]
        value[m] = value[base + m]


@_inline
def _heap_push(heap, size, item):  # pragma: no cover - compiled
    pos = size
    while pos > 0:
        parent = (pos - 1) >> 1
        if heap[parent] <= item:
            break
        heap[pos] = heap[parent]
        pos = parent
    heap[pos] = item
    return size + 1


@_inline
def _heap_pop(heap, size):  # pragma: no cover - compiled
    """Remove the smallest item (``heap[0]``); returns the new size."""
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


@_helper
def _sort(items, count):  # pragma: no cover - compiled
    """``items[:count]`` ascending, in place (a heap, then its smallest item taken ``count`` times)."""
    for k in range(count):
        _heap_push(items, k, items[k])
    for size in range(count, 1, -1):
        least = items[0]
        _heap_pop(items, size)
        items[size - 1] = least
    for k in range(count // 2):  # the pops left them descending
        items[k], items[count - 1 - k] = items[count - 1 - k], items[k]


@_inline
def _enqueue(t, arriving, arrives, next_arrival, queue, rp, rsize, heap, hsize, spare,
             backfill):  # pragma: no cover - compiled
    """The arrivals up to ``t`` join the waiting ranks: the sorted run ``queue[rp:rsize]`` (merged in,
    from the back), or, head-of-line, the heap when they are few behind a long run. Returns
    ``(next_arrival, rsize, hsize)``."""
    c = 0
    while next_arrival < arrives.size and arrives[next_arrival] <= t:
        spare[c] = arriving[next_arrival]
        c += 1
        next_arrival += 1
    if not backfill and 8 * c < rsize - rp:
        for k in range(c):
            hsize = _heap_push(heap, hsize, spare[k])
        return next_arrival, rsize, hsize
    _sort(spare, c)
    i, k = rsize - 1, rsize + c - 1  # every rank enters the run once: rsize + c <= n
    for j in range(c - 1, -1, -1):
        while i >= rp and queue[i] > spare[j]:
            queue[k] = queue[i]
            i -= 1
            k -= 1
        queue[k] = spare[j]
        k -= 1
    return next_arrival, rsize + c, hsize


@_inline
def _head(queue, rp, rsize, heap, hsize):  # pragma: no cover - compiled
    """``(rank, from the heap)`` of the first waiting rank (head-of-line: the run's head or the heap's)."""
    if hsize > 0 and (rp == rsize or heap[0] < queue[rp]):
        return heap[0], True
    return queue[rp], False


@_inline
def _fits(memory, s, o, t, ends, offsets, suffix, value, base, top, total_offset, total_end,
          stale):  # pragma: no cover - compiled
    """ForwardCheck.fits: the two O(1) sufficient tests, then the window check (suffix sums refreshed
    when stale). Returns ``(fits, stale)``."""
    if total_offset + min((top - base) * (t + o), total_end) + s + o <= memory:
        return True, stale
    if stale:
        _refresh(ends, offsets, suffix, value, base, top)
    return _window_fits(memory, s, o, t, ends, suffix, value, base, top), False


@_inline
def _admit(memory, t, backfill, order, prompt, output, queue, rp, rsize, heap, hsize, ends, offsets, suffix, value,
           base, top, total_offset, total_end, stale, start, admitted, n_admitted):  # pragma: no cover - compiled
    """One admission scan at ``t`` (the engine's ``_admit``): the head while it fits (head-of-line), or
    every waiting rank in order, misfits kept in place (backfill); ``prompt``, ``output`` by rank.
    Returns ``(rp, rsize, hsize, top, total_offset, total_end, stale, n_admitted)``."""
    keep = rp  # backfill: where the next misfit is kept
    failed_s = failed_o = -1  # the last misfit of this scan: a request at least as large misfits too
    q = rp
    while (q < rsize) if backfill else (rp < rsize or hsize > 0):
        if backfill:
            r, from_heap = queue[q], False
        else:
            r, from_heap = _head(queue, rp, rsize, heap, hsize)
        s, o = prompt[r], output[r]
        ok = False
        if not (backfill and failed_s >= 0 and s >= failed_s and o >= failed_o):
            ok, stale = _fits(memory, s, o, t, ends, offsets, suffix, value, base, top, total_offset, total_end,
                              stale)
        if ok:
            _insert(ends, offsets, base, top, t + o, s - t)
            top += 1
            total_offset += s - t
            total_end += t + o
            stale = True
            i = order[r]
            start[i] = t
            admitted[n_admitted] = i
            n_admitted += 1
            if from_heap:
                hsize = _heap_pop(heap, hsize)
            elif not backfill:
                rp += 1
        elif not backfill:
            break
        else:
            if failed_s < 0 or s < failed_s or o < failed_o:
                failed_s, failed_o = s, o
            queue[keep] = r
            keep += 1
        q += 1
    return rp, (keep if backfill else rsize), hsize, top, total_offset, total_end, stale, n_admitted


@_inline
def _next_event(memory, t, backfill, order, prompt, output, queue, rp, rsize, heap, hsize, ends, offsets, suffix,
                value, base, top, total_offset, total_end, stale, horizon):  # pragma: no cover - compiled
    """The engine's ``_next_event``: the earliest of ``horizon`` (the next arrival or :data:`_NEVER`)
    and the first step after ``t`` at which the head (head-of-line) or some waiting request (backfill)
    passes the check with the batch unchanged (``prompt``, ``output`` by rank). Returns ``(step, stale)``."""
    done_s = done_o = -1  # the last shape computed: its earliest start is >= horizon from then on,
    for q in range(rsize - rp if backfill else 1):  # so is any request at least as large
        r = queue[rp + q] if backfill else _head(queue, rp, rsize, heap, hsize)[0]
        s, o = prompt[r], output[r]
        if done_s >= 0 and s >= done_s and o >= done_o:
            continue
        done_s, done_o = s, o
        tau = t + 1
        if total_offset + min((top - base) * (tau + o), total_end) + s + o > memory:
            if stale:
                _refresh(ends, offsets, suffix, value, base, top)
                stale = False
            tau = _earliest(memory, s, o, tau, ends, suffix, value, base, top, horizon)
        if tau < horizon:
            horizon = tau
            if horizon == t + 1:  # nothing is earlier
                break
    return horizon, stale


@_helper
def _loop(memory, prompt, output, backfill, order, arriving, arrives, t, start, admitted, queue, heap, ends,
          offsets, suffix, value, spare):  # pragma: no cover - compiled
    """The decision loop of ``ReplicaEngine`` in exact mode from the first arrival ``t``; fills ``start``
    and ``admitted`` (the admission order) and returns the number of decisions. ``prompt`` and ``output``
    by rank, the ranks in order of arrival and their arrivals (empty for a burst) come from :func:`_run`."""
    n = prompt.size
    zero = n - n  # an int64, not the literal 0: numba would compile every helper once more for literals
    base = top = rp = rsize = hsize = n_admitted = next_arrival = decisions = zero
    if arrives.size == 0:  # a burst, everyone at once: the run is every rank, in order
        for k in range(n):
            queue[k] = k
        rsize = n
    total_offset = total_end = zero
    stale = n < 0
    while True:
        decisions += 1
        p = _bisect_right(ends, base, top, t)  # drop_through(t): finished members are a prefix
        for m in range(base, p):
            total_offset -= offsets[m]
            total_end -= ends[m]
        base = p
        if base >= 64 and 2 * base >= top:
            _compact(ends, offsets, suffix, value, base, top)
            base, top = 0, top - base
        if next_arrival < arrives.size and arrives[next_arrival] <= t:
            next_arrival, rsize, hsize = _enqueue(t, arriving, arrives, next_arrival, queue, rp, rsize, heap, hsize,
                                                  spare, backfill)
        if rp < rsize or hsize > 0:
            rp, rsize, hsize, top, total_offset, total_end, stale, n_admitted = _admit(
                memory, t, backfill, order, prompt, output, queue, rp, rsize, heap, hsize, ends, offsets, suffix,
                value, base, top, total_offset, total_end, stale, start, admitted, n_admitted)
        horizon = arrives[next_arrival] if next_arrival < arrives.size else _NEVER
        if rp < rsize or hsize > 0:
            horizon, stale = _next_event(memory, t, backfill, order, prompt, output, queue, rp, rsize, heap, hsize,
                                         ends, offsets, suffix, value, base, top, total_offset, total_end, stale,
                                         horizon)
        if horizon == _NEVER:
            return decisions
        t = horizon


_ROWS = 11  # the loop's int64 workspace: queue, heap, ends, offsets, suffix, value, arriving, arrives, spare,
# prompt and output by rank (each n + 1 long; pages the run never needs are never touched)


@_helper
def _run(memory, prompt, output, arrival, order, by_arrival, backfill, start, admitted, work):  # pragma: no cover
    """One instance on the workspace: the decisions, or OUT_OF_RANGE (starts left at -1).
    ``by_arrival``: the positions by arrival, or empty when the arrivals are ordered."""
    n = prompt.size
    ranked_prompt, ranked_output = work[9, :n], work[10, :n]
    _rank_input(memory, prompt, output, arrival, order, admitted, ranked_prompt, ranked_output)  # ranks in admitted
    for i in range(n):
        start[i] = -1
    if n == 0:
        return 0
    if not _fits_int64(memory, arrival, output):
        return OUT_OF_RANGE
    arriving, arrives = work[6, :n], work[7, :n]
    if not _arrival_ranks(arrival, by_arrival, admitted, arriving, arrives):
        arrives = arrives[:0]  # a burst
    first = arrives[0] if arrives.size else arrival[0]
    return _loop(memory, ranked_prompt, ranked_output, backfill, order, arriving, arrives, first, start, admitted,
                 work[0], work[1], work[2], work[3], work[4], work[5], work[8])


@_helper
def _tel(memory, prompt, output, arrival, order, lo, hi, by_arrival, backfill, start, admitted,
         work):  # pragma: no cover - compiled
    """The TEL ``sum(x + o - a)`` of the instance ``[lo, hi)`` of the columns, or OUT_OF_RANGE."""
    n = hi - lo
    a, o = arrival[lo:hi], output[lo:hi]
    if _run(memory, prompt[lo:hi], o, a, order[lo:hi], by_arrival, backfill, start[:n], admitted[:n],
            work) == OUT_OF_RANGE:
        return OUT_OF_RANGE
    total = 0
    for k in range(n):
        total += start[k] + o[k] - a[k]
    return total


@_helper
def _check_offsets(memories, arrival, prompt, output, offsets, orders):  # pragma: no cover - compiled
    """Raise unless ``offsets`` cut the columns (all of one length) into ``memories.size`` instances."""
    n = arrival.size
    if prompt.size != n or output.size != n or orders.size != n or offsets.size != memories.size + 1 \
            or offsets[0] != 0 or offsets[offsets.size - 1] != n:
        raise ValueError("kernel: offsets must cut the columns into one instance per memory")
    for b in range(memories.size):
        if offsets[b + 1] < offsets[b]:
            raise ValueError("kernel: offsets must not decrease")


@njit(cache=_CACHE)
def run_exact(memory, prompt, output, arrival, order, backfill):  # pragma: no cover - compiled
    """``(start, admission order, decisions)`` of the exact model, int64 throughout.

    ``order[r]`` is the request of rank ``r`` (sorted by ``(key, arrival, position)``); ``backfill``
    skips misfits instead of ending the scan. ``decisions`` is :data:`OUT_OF_RANGE` (and nothing is
    simulated) when :func:`fits_int64` does not hold.
    """
    n = prompt.size
    start = np.empty(n, np.int64)
    admitted = np.empty(n, np.int64)
    work = np.empty((_ROWS, n + 1), np.int64)
    by_arrival = work[0, :0] if _ordered(arrival) else np.argsort(arrival, kind="mergesort")  # no allocation
    return start, admitted, _run(memory, prompt, output, arrival, order, by_arrival, backfill, start, admitted, work)


@njit(cache=_CACHE)
def starts_exact(memory, prompt, output, arrival, order, backfill):  # pragma: no cover - compiled
    """``(start, decisions)`` of :func:`run_exact` without the admission order (one array less to
    allocate and hand to Python: the searches' schedules)."""
    n = prompt.size
    start = np.empty(n, np.int64)
    work = np.empty((_ROWS + 1, n + 1), np.int64)
    by_arrival = work[0, :0] if _ordered(arrival) else np.argsort(arrival, kind="mergesort")  # no allocation
    return start, _run(memory, prompt, output, arrival, order, by_arrival, backfill, start, work[_ROWS], work)


@njit(cache=_CACHE)
def tel_exact(memory, prompt, output, arrival, order, backfill):  # pragma: no cover - compiled
    """The TEL ``sum(x + o - a)`` of :func:`run_exact`'s schedule (one number back: the searches' inner
    loop), or :data:`OUT_OF_RANGE`."""
    n = prompt.size
    work = np.empty((_ROWS + 2, n + 1), np.int64)
    by_arrival = work[0, :0] if _ordered(arrival) else np.argsort(arrival, kind="mergesort")  # no allocation
    return _tel(memory, prompt, output, arrival, order, 0, n, by_arrival, backfill, work[_ROWS], work[_ROWS + 1],
                work)


@njit(cache=_CACHE)
def batch_tel(memories, arrival, prompt, output, offsets, orders, backfill):  # pragma: no cover - compiled
    """TELs ``sum(x + o - a)`` of a population: instance ``b`` is ``[offsets[b], offsets[b + 1])`` of
    the columns with budget ``memories[b]`` and local ``orders``; :data:`OUT_OF_RANGE` where
    :func:`fits_int64` does not hold. One workspace for the whole population."""
    _check_offsets(memories, arrival, prompt, output, offsets, orders)
    count = memories.size
    widest = 0
    for b in range(count):
        widest = max(widest, offsets[b + 1] - offsets[b])
    work = np.empty((_ROWS, widest + 1), np.int64)
    start, admitted, ordered = np.empty(widest, np.int64), np.empty(widest, np.int64), np.empty(0, np.int64)
    tels = np.empty(count, np.int64)
    for b in range(count):
        lo, hi = offsets[b], offsets[b + 1]
        by_arrival = ordered if _ordered(arrival[lo:hi]) else np.argsort(arrival[lo:hi], kind="mergesort")
        tels[b] = _tel(memories[b], prompt, output, arrival, orders, lo, hi, by_arrival, backfill, start, admitted,
                       work)
    return tels


def cached_on_disk(function: object) -> bool | None:
    """Whether numba's disk cache holds machine code of the entry point ``function`` for this source (an index
    that is current: numba drops one whose source changed); None when numba does not say. A function already
    compiled or loaded in this process counts as cached.

    >>> cached_on_disk(run_exact) in (True, False, None)
    True
    """
    if getattr(function, "signatures", None):
        return True
    cache = getattr(function, "_cache", None)
    try:
        return bool(cache._cache_file._load_index())  # type: ignore[union-attr]  # numba's own check of the index
    except Exception:  # noqa: BLE001 - numba's private layout changed, or no cache: say nothing rather than guess
        return None


def cache_folder(function: object) -> str:
    """The folder where numba caches ``function``'s machine code (``""`` when it does not cache)."""
    return str(getattr(getattr(function, "_cache", None), "_cache_path", "") or "")
