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
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt.bounds import best_cheap_bound
from geosched.reference_impl.opt.result import OptResult

__all__ = ["brute_force_opt"]


class _NodeLimit(Exception):
    pass


def _fits(members: list[tuple[int, int]], memory: int) -> bool:
    """Members ``(end, c)`` hold ``c + t'`` tokens at steps ``t' <= end``: check every end."""
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


def brute_force_opt(instance: Instance, *, node_limit: int | None = None) -> OptResult:
    """Exact OPT by exhaustive search (see module doc); for ``n <= 6`` or so with short outputs.

    ``node_limit`` caps the search nodes; when reached the result is ``"time_limit"`` with the
    best schedule found (or ``"no_solution"``) and the cheap lower bound as dual bound.
    """
    t0 = time.perf_counter()
    if node_limit is not None and (isinstance(node_limit, bool) or not isinstance(node_limit, int)
                                   or node_limit < 1):
        raise ValidationError("node_limit", node_limit, "must be a positive integer or None")
    requests = instance.requests
    n = len(requests)
    if n == 0:
        return OptResult("optimal", {}, 0, 0.0, time.perf_counter() - t0, "brute", "empty instance", 0)
    memory = instance.memory
    arrival = [r.arrival for r in requests]
    prompt = [r.prompt for r in requests]
    output = [r.output for r in requests]
    # the previous identical request (same a, s, o) in input order, or -1
    twin = [-1] * n
    last: dict[tuple[int, int, int], int] = {}
    for i, r in enumerate(requests):
        key = (r.arrival, r.prompt, r.output)
        twin[i] = last.get(key, -1)
        last[key] = i

    best_cost = [None]
    best_starts: list[list[int] | None] = [None]
    start = [-1] * n
    seen: dict[tuple, int] = {}
    nodes = [0]

    def lower(t: int, unstarted: int) -> int:
        total = 0
        for i in range(n):
            if unstarted >> i & 1:
                total += max(t, arrival[i]) - arrival[i] + output[i]
        return total

    def visit(t: int, unstarted: int, batch: tuple[tuple[int, int], ...], cost: int) -> None:
        nodes[0] += 1
        if node_limit is not None and nodes[0] > node_limit:
            raise _NodeLimit
        if unstarted == 0:
            if best_cost[0] is None or cost < best_cost[0]:
                best_cost[0] = cost
                best_starts[0] = list(start)
            return
        available = [i for i in range(n) if unstarted >> i & 1 and arrival[i] <= t]
        if not available:
            t = min(arrival[i] for i in range(n) if unstarted >> i & 1)
            batch = tuple(m for m in batch if m[0] > t)
            available = [i for i in range(n) if unstarted >> i & 1 and arrival[i] <= t]
        if best_cost[0] is not None and cost + lower(t, unstarted) >= best_cost[0]:
            return
        key = (t, unstarted, batch)
        previous = seen.get(key)
        if previous is not None and previous <= cost:
            return
        seen[key] = cost
        # every feasible subset of `available`, largest-first order of discovery
        subsets: list[list[int]] = []

        def extend(pos: int, chosen: list[int], members: list[tuple[int, int]]) -> None:
            if pos == len(available):
                subsets.append(list(chosen))
                return
            i = available[pos]
            j = twin[i]
            # symmetry: i may start now only if its earlier twin has started or starts now
            if j < 0 or not (unstarted >> j & 1) or j in chosen:
                member = (t + output[i], prompt[i] - t)
                trial = members + [member]
                if _fits(trial, memory):
                    chosen.append(i)
                    extend(pos + 1, chosen, trial)
                    chosen.pop()
            extend(pos + 1, chosen, members)

        extend(0, [], list(batch))
        for subset in subsets:
            new_unstarted = unstarted
            new_cost = cost
            new_members = list(batch)
            for i in subset:
                new_unstarted &= ~(1 << i)
                new_cost += t + output[i] - arrival[i]
                new_members.append((t + output[i], prompt[i] - t))
                start[i] = t
            next_batch = tuple(sorted(m for m in new_members if m[0] > t + 1))
            visit(t + 1, new_unstarted, next_batch, new_cost)
            for i in subset:
                start[i] = -1

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20000))
    hit_limit = False
    try:
        visit(min(arrival), (1 << n) - 1, (), 0)
    except _NodeLimit:
        hit_limit = True
    finally:
        sys.setrecursionlimit(limit)

    elapsed = time.perf_counter() - t0
    if best_starts[0] is None:
        return OptResult("no_solution", None, None, float(best_cheap_bound(instance).value), elapsed, "brute",
                         f"node limit {node_limit} reached before any schedule", nodes[0])
    starts = {requests[i].id: best_starts[0][i] for i in range(n)}
    report = check_schedule(instance, starts)
    if not report.feasible or report.metrics is None:
        raise InfeasibleScheduleError(f"brute force produced an infeasible schedule: {report.first_violation}")
    tel = report.metrics.tel
    if hit_limit:
        dual = float(min(tel, best_cheap_bound(instance).value))
        return OptResult("time_limit", starts, tel, dual, time.perf_counter() - t0, "brute",
                         f"node limit {node_limit} reached; incumbent not proved optimal", nodes[0])
    return OptResult("optimal", starts, tel, float(tel), time.perf_counter() - t0, "brute",
                     "exhaustive search complete", nodes[0])
