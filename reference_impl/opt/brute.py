"""Exhaustive search for the offline optimum of tiny instances.

Independent of the integer programs: a depth-first search over scheduling decisions, step
by step. The state at decision step ``t`` is the set ``U`` of unstarted requests and the
running batch (requests holding memory after ``t``); a decision starts any subset ``S`` of
the arrived requests of ``U`` such that the batch plus ``S`` fits at every later step
(starting more requests later only adds memory, so a subset that does not fit on its own can
never be completed). This enumerates every feasible schedule. Three exact prunings:

* bound: ``cost so far + sum_{i in U} (max(t, a_i) + o_i - a_i) >= best`` stops the branch;
* memo: a state reached before at a cost no higher stops the branch (same future);
* symmetry: among identical unstarted requests (equal ``a, s, o``) the one first in input
  order starts first (exchanging two identical requests preserves feasibility and TEL).

If no request has arrived, ``t`` jumps to the next arrival (nothing can be decided before).

**Block grain.** With the instance's ``block_size`` ``B > 1`` a request holding ``u`` tokens holds
``B * ceil(u / B)``; each member's blocks only grow while it runs, so, as at token grain, checking
every completion step of the batch checks every step (:func:`_fits`).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> result = brute_force_opt(burst_instance(12, [(6, 3), (1, 5)]))
>>> result.status, result.tel, result.starts
('optimal', 9, {'r0': 0, 'r1': 1})
"""

from __future__ import annotations

import sys
import time

from geosched.errors import InfeasibleScheduleError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, block_tokens
from geosched.reference_impl.opt.bounds import best_cheap_bound
from geosched.reference_impl.opt.deadline import Deadline
from geosched.reference_impl.opt.result import OptResult

__all__ = ["brute_force_opt"]


class _NodeLimit(Exception):
    pass


def _fits(members: list[tuple[int, int]], memory: int, block: int = 1) -> bool:
    """Members ``(end, c)`` hold ``c + t'`` tokens at steps ``t' <= end`` (whole blocks of ``block``):
    check every end."""
    if block != 1:
        return all(sum(block_tokens(c + end, block) for e, c in members if e >= end) <= memory
                   for end, _ in members)
    ordered = sorted(members, reverse=True)
    count = 0
    offset = 0
    k = 0
    m = len(ordered)
    while k < m:
        end = ordered[k][0]
        while k < m and ordered[k][0] == end:
            offset += ordered[k][1]
            count += 1
            k += 1
        if offset + count * end > memory:
            return False
    return True


def brute_force_opt(instance: Instance, *, node_limit: int | None = None,
                    deadline: Deadline | None = None) -> OptResult:
    """Exact OPT by exhaustive search (see module doc); for ``n <= 6`` or so with short outputs.

    Parameters
    ----------
    instance : Instance
        The workload, at its own grain (``block_size``).
    node_limit : int, optional
        Caps the search nodes; when reached the result is ``"time_limit"`` with the best
        schedule found (or ``"no_solution"``) and the cheap lower bound as dual bound.
    deadline : Deadline, optional
        Stops the search the same way when it passes (checked every 1024 nodes).

    Returns
    -------
    OptResult
        Re-checked by the independent checker.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> brute_force_opt(burst_instance(12, [(6, 3), (1, 5)])).tel
    9
    """
    t0 = time.perf_counter()
    if node_limit is not None and (isinstance(node_limit, bool) or not isinstance(node_limit, int)
                                   or node_limit < 1):
        raise ValidationError("node_limit", node_limit, "must be a positive integer or None")
    if instance.n == 0:
        return OptResult("optimal", {}, 0, 0.0, time.perf_counter() - t0, "brute", "empty instance", 0)
    search = _BruteSearch(instance, node_limit, deadline or Deadline.never())
    hit_limit = search.run()
    return _result(instance, search, hit_limit, t0)


class _BruteSearch:
    """Depth-first search over the admitted subset at every step, with memoisation of
    ``(step, unstarted set, running batch)`` and a bound on the remaining latency."""

    def __init__(self, instance: Instance, node_limit: int | None, deadline: Deadline) -> None:
        requests = instance.requests
        self.n = len(requests)
        self.memory = instance.memory
        self.block = instance.block_size
        self.deadline = deadline
        self.stopped_by = ""
        self.arrival = [r.arrival for r in requests]
        self.prompt = [r.prompt for r in requests]
        self.output = [r.output for r in requests]
        # the previous identical request (same a, s, o) in input order, or -1
        self.twin = [-1] * self.n
        last: dict[tuple[int, int, int], int] = {}
        for i, r in enumerate(requests):
            key = (r.arrival, r.prompt, r.output)
            self.twin[i] = last.get(key, -1)
            last[key] = i
        self.node_limit = node_limit
        self.best_cost: int | None = None
        self.best_starts: list[int] | None = None
        self.start = [-1] * self.n
        self.seen: dict[tuple, int] = {}
        self.nodes = 0

    def run(self) -> bool:
        """Search everything; True when the node limit stopped it."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            self.visit(min(self.arrival), (1 << self.n) - 1, (), 0)
        except _NodeLimit:
            return True
        finally:
            sys.setrecursionlimit(limit)
        return False

    def lower(self, t: int, unstarted: int) -> int:
        """Latency still to come if every unstarted request started now (or at arrival)."""
        return sum(max(t, self.arrival[i]) - self.arrival[i] + self.output[i]
                   for i in range(self.n) if unstarted >> i & 1)

    def visit(self, t: int, unstarted: int, batch: tuple[tuple[int, int], ...], cost: int) -> None:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            self.stopped_by = f"node limit {self.node_limit}"
            raise _NodeLimit
        if self.nodes % 1024 == 0 and self.deadline.passed():
            self.stopped_by = "time limit"
            raise _NodeLimit
        if unstarted == 0:
            if self.best_cost is None or cost < self.best_cost:
                self.best_cost, self.best_starts = cost, list(self.start)
            return
        available = self._available(t, unstarted)
        if not available:
            t = min(self.arrival[i] for i in range(self.n) if unstarted >> i & 1)
            batch = tuple(m for m in batch if m[0] > t)
            available = self._available(t, unstarted)
        if self.best_cost is not None and cost + self.lower(t, unstarted) >= self.best_cost:
            return
        key = (t, unstarted, batch)
        previous = self.seen.get(key)
        if previous is not None and previous <= cost:
            return
        self.seen[key] = cost
        for subset in self._feasible_subsets(t, unstarted, available, batch):
            self._descend(t, unstarted, batch, cost, subset)

    def _available(self, t: int, unstarted: int) -> list[int]:
        return [i for i in range(self.n) if unstarted >> i & 1 and self.arrival[i] <= t]

    def _feasible_subsets(self, t: int, unstarted: int, available: list[int],
                          batch: tuple[tuple[int, int], ...]) -> list[list[int]]:
        """Every subset of ``available`` that fits with the batch, largest-first order of discovery."""
        subsets: list[list[int]] = []

        def extend(pos: int, chosen: list[int], members: list[tuple[int, int]]) -> None:
            if pos == len(available):
                subsets.append(list(chosen))
                return
            i = available[pos]
            j = self.twin[i]
            # symmetry: i may start now only if its earlier twin has started or starts now
            if j < 0 or not (unstarted >> j & 1) or j in chosen:
                trial = members + [(t + self.output[i], self.prompt[i] - t)]
                if _fits(trial, self.memory, self.block):
                    chosen.append(i)
                    extend(pos + 1, chosen, trial)
                    chosen.pop()
            extend(pos + 1, chosen, members)

        extend(0, [], list(batch))
        return subsets

    def _descend(self, t: int, unstarted: int, batch: tuple[tuple[int, int], ...], cost: int,
                 subset: list[int]) -> None:
        members = list(batch)
        for i in subset:
            unstarted &= ~(1 << i)
            cost += t + self.output[i] - self.arrival[i]
            members.append((t + self.output[i], self.prompt[i] - t))
            self.start[i] = t
        self.visit(t + 1, unstarted, tuple(sorted(m for m in members if m[0] > t + 1)), cost)
        for i in subset:
            self.start[i] = -1


def _result(instance: Instance, search: _BruteSearch, hit_limit: bool, t0: float) -> OptResult:
    """The search's outcome, its schedule re-checked by the checker."""
    if search.best_starts is None:
        return OptResult("no_solution", None, None, float(best_cheap_bound(instance).value),
                         time.perf_counter() - t0, "brute", f"{search.stopped_by} reached before any schedule",
                         search.nodes)
    starts = {r.id: search.best_starts[i] for i, r in enumerate(instance.requests)}
    report = check_schedule(instance, starts)
    if not report.feasible or report.metrics is None:
        raise InfeasibleScheduleError(f"brute force produced an infeasible schedule: {report.first_violation}")
    tel = report.metrics.tel
    if hit_limit:
        dual = float(min(tel, best_cheap_bound(instance).value))
        return OptResult("time_limit", starts, tel, dual, time.perf_counter() - t0, "brute",
                         f"{search.stopped_by} reached; incumbent not proved optimal", search.nodes)
    return OptResult("optimal", starts, tel, float(tel), time.perf_counter() - t0, "brute",
                     "exhaustive search complete", search.nodes)
