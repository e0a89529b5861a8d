"""The forward-looking admission check, once, at token and block grain.

At a decision step ``t`` a candidate ``c`` (prompt ``s``, believed output ``o``) is admitted when the
running batch, with ``c`` started at ``t``, fits in ``M`` at every future step (Kong et al., arXiv
2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115, Algorithm 1):

.. math::  \\forall t' > t:\\ \\sum_{j \\in B \\cup \\{c\\},\\ x_j < t' \\le e_j} h(s_j + t' - x_j) \\le M,

with ``h(u) = u`` at token grain and ``h(u) = B ceil(u / B)`` at block grain (the instance's
``block_size``). Every member's holding only grows while it runs, so the usage is non-decreasing
between completions and it suffices to check ``t'`` at every completion step of the batch inside
``c``'s lifetime and at ``c``'s own completion. The scan is strict head-of-line (the first misfit
ends it, as in the proof of Kong et al., Thm. 3.2) unless ``backfill``, which skips misfits.

* :class:`ForwardCheck`: the token-grain batch state the event-driven engine keeps between decisions
  (O(1) admissions while memory has room, exact window checks when it is nearly full), and
  :meth:`ForwardCheck.earliest_start`, the first step at which a blocked candidate passes (a blocked
  request can become admissible with no event at all);
* :func:`admission_step`: one decision step of the check on plain tuples, at either grain; the
  engine's decisions (:func:`admit_from_queue`), the priority rules as protocol schedulers and the
  Z3 specification of :mod:`geosched.verify` all run this one code path.

This module imports only the model.

Example
-------
>>> admission_step(12, 1, [(6, 0, 3)], [(1, 5)])
[0]
>>> admission_step(16, 1, [(6, 0, 3)], [(1, 5)], block_size=8)  # at step 3: 16 + 8 blocks' tokens
[]
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Sequence
from typing import Any

from geosched.reference_impl.model import block_tokens

__all__ = ["ForwardCheck", "earliest_start", "scan_admissions", "admission_step", "admit_from_queue"]


class ForwardCheck:
    """The running batch as the scheduler believes it, for the forward-looking check.

    Ends ``E`` sorted ascending; ``U(t') = sum_{E_j >= t'} (c_j + t')`` with ``c_j = s_j - x_j``
    is the believed usage at step ``t'``. ``V[m] = U(E_m) + E_m`` serves the window check.

    **Cost.** :meth:`fits` first tries two sufficient conditions in O(1). Every member's term
    ``c_j + t'`` is positive for ``t' > x_j``, so ``U(t') <= C + k t'`` with ``C = sum_j c_j``
    and ``k`` members: the candidate fits whenever ``C + k (x + o) + s + o <= M`` (the batch
    fits even if nobody finished). And a member never holds more than its peak
    ``c_j + E_j``, so it also fits whenever ``C + sum_j E_j + s + o <= M`` (every member at its
    peak at once: the test that passes when members end at different steps, which the first
    one overestimates by ``x + o - E_j`` each). Only when both fail is the exact window check run,
    on suffix sums refreshed lazily after insertions. Insertions wait in a pending list until
    the sorted order is needed (an exact check, a completion, a usage query), then merge in one
    pass: a batch with room to spare costs ``O(1)`` per admission (the 100,000-request burst of
    ``benchmarks/bench_simulator.py``), and the exact ``O(k)`` work is paid only when memory is
    nearly full, where ``k`` is bounded by ``M`` over the peaks.
    """

    __slots__ = ("_ends", "_offsets", "_pending", "_suffix", "_value", "_total_offset", "_total_end", "_stale")

    _SMALL_MERGE = 8  # this few pending members are inserted one by one (bisection + list insert)

    def __init__(self) -> None:
        self._ends: list[int] = []
        self._offsets: list[int] = []
        self._pending: list[tuple[int, int]] = []
        self._suffix: list[int] = [0]
        self._value: list[int] = []
        self._total_offset = 0
        self._total_end = 0
        self._stale = False

    @property
    def ends(self) -> list[int]:
        """Believed completion steps of the members, ascending."""
        self._merge()
        return self._ends

    @property
    def offsets(self) -> list[int]:
        """``s_j - x_j`` of the members, in the order of :attr:`ends`."""
        self._merge()
        return self._offsets

    def rebuild(self, members: Sequence[tuple[int, int]]) -> None:
        """``members``: (believed end, prompt - start) pairs."""
        pairs = sorted(members)
        self._ends = [e for e, _ in pairs]
        self._offsets = [c for _, c in pairs]
        self._pending = []
        self._total_offset = sum(self._offsets)
        self._total_end = sum(self._ends)
        self._stale = True

    def add(self, end: int, offset: int) -> None:
        """Insert one member (kept pending until the order is needed; the suffix sums go stale)."""
        self._pending.append((end, offset))
        self._total_offset += offset
        self._total_end += end
        self._stale = True

    def _merge(self) -> None:
        """Bring the pending members into the sorted lists (members with equal ends are
        interchangeable: every quantity here sums over whole groups of equal ends)."""
        pending = self._pending
        if not pending:
            return
        self._pending = []
        if len(pending) <= self._SMALL_MERGE:
            for end, offset in pending:
                k = bisect.bisect_right(self._ends, end)
                self._ends.insert(k, end)
                self._offsets.insert(k, offset)
            return
        pending.sort()
        pairs = list(heapq.merge(zip(self._ends, self._offsets), pending))
        self._ends = [e for e, _ in pairs]
        self._offsets = [c for _, c in pairs]

    def drop_through(self, step: int) -> None:
        """Forget members that end at or before ``step``: a prefix, counted by no one else.

        The suffix sums of the members left are unchanged, so nothing goes stale.
        """
        self._merge()
        p = bisect.bisect_right(self._ends, step)
        if p:
            self._total_offset -= sum(self._offsets[:p])
            self._total_end -= sum(self._ends[:p])
            del self._ends[:p], self._offsets[:p]
            if not self._stale:
                del self._suffix[:p], self._value[:p]

    def __len__(self) -> int:
        return len(self._ends) + len(self._pending)

    def _refresh(self) -> None:
        self._merge()
        ends, offsets = self._ends, self._offsets
        k = len(ends)
        suffix = [0] * (k + 1)
        running = 0
        for m in range(k - 1, -1, -1):
            running += offsets[m]
            suffix[m] = running
        value = [0] * k
        m = 0
        while m < k:
            # U(E_m) counts every j with E_j >= E_m: the first index of the tie group.
            end = ends[m]
            first = m
            while m < k and ends[m] == end:
                m += 1
            usage = suffix[first] + end * (k - first)
            for q in range(first, m):
                value[q] = usage + end
        self._suffix, self._value, self._stale = suffix, value, False

    def usage(self, step: int) -> int:
        """Believed tokens held at ``step`` by the batch."""
        if self._stale:
            self._refresh()
        idx = bisect.bisect_left(self._ends, step)
        return self._suffix[idx] + step * (len(self._ends) - idx)

    def _fits_without_completions(self, memory: int, prompt: int, output: int, start: int) -> bool:
        # the smaller of two upper bounds on the batch's usage during the candidate's run:
        # everyone still running at its last step, or everyone at its own peak (class docstring)
        held = self._total_offset + min(len(self) * (start + output), self._total_end)
        return held + prompt + output <= memory

    def fits(self, memory: int, prompt: int, output: int, start: int) -> bool:
        """Forward-looking check for a candidate started at ``start``."""
        if self._fits_without_completions(memory, prompt, output, start):
            return True
        if self._stale:
            self._refresh()
        ends, value = self._ends, self._value
        lo = bisect.bisect_right(ends, start)
        hi = bisect.bisect_right(ends, start + output)
        limit = memory - prompt + start
        for m in range(lo, hi):
            if value[m] > limit:
                return False
        return self.usage(start + output) + prompt + output <= memory

    def earliest_start(self, memory: int, prompt: int, output: int, start: int) -> int:
        """Smallest ``tau >= start`` at which the candidate passes, the batch unchanged.

        Each violated constraint gives a lower bound on any feasible ``tau``: a window
        point ``E_m`` needs ``tau >= min(V_m + s - M, E_m)``; the candidate's own completion
        point needs ``tau + o`` past the next batch completion (the usage only grows until
        then). Jumping to the largest bound never skips a feasible step.
        """
        if self._fits_without_completions(memory, prompt, output, start):
            return start
        if self._stale:
            self._refresh()
        ends, value = self._ends, self._value
        k = len(ends)
        tau = start
        while True:
            lo = bisect.bisect_right(ends, tau)
            hi = bisect.bisect_right(ends, tau + output)
            bound = tau
            limit = memory - prompt + tau
            for m in range(lo, hi):
                if value[m] > limit:
                    bound = max(bound, min(value[m] + prompt - memory, ends[m]))
            idx = bisect.bisect_left(ends, tau + output)
            if self._suffix[idx] + (tau + output) * (k - idx) + prompt + output > memory:
                bound = max(bound, ends[idx] - output + 1)
            if bound == tau:
                return tau
            tau = bound


def earliest_start(
    memory: int,
    running: Sequence[tuple[int, int, int]],
    prompt: int,
    output: int,
    step: int,
) -> int:
    """Earliest step ``>= step`` at which a candidate passes the forward-looking check.

    ``running``: ``(prompt, start, believed_end)`` of the batch, all ends ``> step``.
    """
    batch = ForwardCheck()
    batch.rebuild([(end, s - x) for s, x, end in running])
    return batch.earliest_start(memory, prompt, output, step)


def scan_admissions(
    batch: ForwardCheck,
    memory: int,
    step: int,
    candidates: Sequence[tuple[int, int, int]],
    backfill: bool,
) -> list[int]:
    """One admission scan: ``candidates`` are ``(handle, prompt, believed_output)`` in
    priority order; returns the admitted handles, adding them to ``batch``."""
    admitted = []
    for handle, prompt, output in candidates:
        if batch.fits(memory, prompt, output, step):
            batch.add(step + output, prompt - step)
            admitted.append(handle)
        elif not backfill:
            break
    return admitted


def admission_step(
    memory: int,
    step: int,
    running: Sequence[tuple[int, int, int]],
    waiting: Sequence[tuple[int, int]],
    *,
    backfill: bool = False,
    block_size: int = 1,
) -> list[int]:
    """The admitted set of one scheduling step, as positions in ``waiting``.

    ``running``: ``(prompt, start, believed_end)`` with ends ``> step``; ``waiting``:
    ``(prompt, believed_output)`` already in priority order. At token grain it calls the very
    function every decision of the event-driven engine calls (:func:`admit_from_queue`, on a
    waiting queue of ranks), so that :mod:`geosched.verify` checks the engine's own code path
    against a declarative specification; at ``block_size > 1`` every member holds whole blocks
    (:func:`_block_admissions`). There is no second admission implementation.

    >>> admission_step(12, 0, [(1, 0, 5)], [(6, 3)])
    []
    >>> admission_step(12, 1, [(6, 0, 3)], [(1, 5)])
    [0]
    """
    if block_size != 1:
        return _block_admissions(memory, step, list(running), list(waiting), block_size, backfill)
    batch = ForwardCheck()
    batch.rebuild([(end, s - x) for s, x, end in running])
    ranks = list(range(len(waiting)))  # rank k is position k; a sorted list is a valid heap
    prompts = [s for s, _ in waiting]
    beliefs = [o for _, o in waiting]
    return sorted(admit_from_queue(batch, memory, step, ranks, ranks[:], prompts, beliefs, backfill))


def admit_from_queue(
    batch: ForwardCheck,
    memory: int,
    t: int,
    waiting: list[Any],
    order: Any,
    prompt: list[int],
    belief: list[int],
    backfill: bool,
) -> list[int]:
    """Scan the waiting items in priority order with :func:`scan_admissions`; remove the admitted.

    ``waiting`` holds priority items: a heap for strict head-of-line, a sorted list with backfill;
    ``order`` maps an item to its request (a list of ranks or a dict of online items). Returns the
    admitted requests, in admission order."""
    if backfill:
        candidates = [(r, prompt[order[r]], belief[order[r]]) for r in waiting]
        admitted_ranks = scan_admissions(batch, memory, t, candidates, True)
        if admitted_ranks:
            taken = set(admitted_ranks)
            waiting[:] = [r for r in waiting if r not in taken]
        return [order[r] for r in admitted_ranks]
    admitted = []
    while waiting:
        i = order[waiting[0]]
        if not scan_admissions(batch, memory, t, [(i, prompt[i], belief[i])], False):
            break
        heapq.heappop(waiting)
        admitted.append(i)
    return admitted


def _blocks_at(batch: list[tuple[int, int, int]], step: int, block: int) -> int:
    """Tokens of the whole blocks the batch ``(s, x, end)`` holds at ``step``."""
    return sum(block_tokens(s + step - x, block) for s, x, end in batch if x < step <= end)


def _block_admissions(memory: int, t: int, running: list[tuple[int, int, int]],
                      candidates: list[tuple[int, int]], block: int, backfill: bool) -> list[int]:
    """:func:`admission_step` at block grain: which ``candidates`` (in priority order) start at ``t``.

    A candidate ``(s, o)`` is admitted when the batch with it holds at most ``M`` tokens of whole
    blocks at every step of its lifetime; as at token grain it suffices to check each completion
    step in ``(t, t + o]`` and ``t + o``. Cost ``O(k^2)`` per candidate for ``k`` running (the step
    engine's priority rules; the event-driven engine runs token grain only).
    """
    batch = list(running)
    chosen = []
    for index, (s, o) in enumerate(candidates):
        member = (s, t, t + o)
        checkpoints = {end for _, _, end in batch if t < end <= t + o} | {t + o}
        if all(_blocks_at(batch + [member], step, block) <= memory for step in checkpoints):
            batch.append(member)
            chosen.append(index)
        elif not backfill:
            break
    return chosen
