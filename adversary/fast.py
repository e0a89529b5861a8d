"""Fast candidate evaluation: the adversary's side of the compiled kernel, and greedy list scheduling.

The searches of :mod:`geosched.adversary` evaluate hundreds of thousands of small instances of the
strict head-of-line (or backfilling) continuous-batching process of
:func:`geosched.reference_impl.simulation.simulate` (Kong et al., arXiv 2606.22327, Algorithm 1;
Jaillet et al., arXiv 2502.07115, Algorithm 1) with *exact* output lengths. The loop that runs them
is the compiled kernel :mod:`geosched.reference_impl.kernel`, the one the simulator also runs for
large instances (issue 31); this module turns a policy name into the kernel's ranks, hands a
population to it in one call, sends an instance the kernel cannot hold in int64 to the simulator
(Python integers), and holds the greedy *list-scheduling* builder used to construct witness schedules.

Ties: by arrival, then index (the position in the instance), exactly as the reference simulator;
ids are labels only. The policies and their keys come from the one registry
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

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit  # a runtime dependency (pyproject)

from geosched.errors import UnknownNameError
from geosched.reference_impl import kernel
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.policies import Capability, make_policy, policy_names
from geosched.reference_impl.simulation import announce_compiling, simulate

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
_rule = functools.cache(make_policy)  # the rules are frozen dataclasses; FAST_POLICIES is read at import too
_KEY_SAFE = 2**30  # s + o below this keeps every key in int64 (the policies' own bound, policies._INT64_SAFE)


def ids_for(n: int) -> list[str]:
    """Zero-padded ids ``r0..r9`` or ``r00..r42`` (labels only: ties never look at them)."""
    width = len(str(max(n - 1, 0)))
    return [f"r{k:0{width}d}" for k in range(n)]


def priority_keys(policy: str, prompt: np.ndarray, output: np.ndarray, *, narrow: bool = False) -> np.ndarray:
    """The policy's integer keys with exact predictions (the registry's ``array_keys``): int64 while
    every ``s + o`` stays below ``2^30``, exact Python integers (an object array) beyond.
    ``narrow``: the caller knows ``s + o < 2^30`` (every request fits a budget below it)."""
    if policy not in FAST_POLICIES:
        raise UnknownNameError("fast policy", policy, FAST_POLICIES)
    s, o = np.asarray(prompt, dtype=np.int64), np.asarray(output, dtype=np.int64)
    if not narrow and s.size and int(s.max()) + int(o.max()) >= _KEY_SAFE:
        s, o = s.astype(object), o.astype(object)
    return np.asarray(_rule(policy).array_keys(s, o), dtype=s.dtype)


def priority_order(policy: str, arrival: np.ndarray, prompt: np.ndarray, output: np.ndarray, *,
                   narrow: bool = False) -> np.ndarray:
    """Request indices in priority order ``(key, arrival, index)``."""
    keys = priority_keys(policy, prompt, output, narrow=narrow)
    n = len(keys)
    return np.lexsort((np.arange(n), np.asarray(arrival, dtype=np.int64), keys)).astype(np.int64)


def _columns(arrival: Any, prompt: Any, output: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.ascontiguousarray(arrival, dtype=np.int64), np.ascontiguousarray(prompt, dtype=np.int64),
            np.ascontiguousarray(output, dtype=np.int64))


def _ranks(policy: str, a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, order: Any) -> np.ndarray:
    if order is None:
        return priority_order(policy, a, s, o, narrow=memory < _KEY_SAFE)  # s + o <= M for a valid request
    return np.ascontiguousarray(order, dtype=np.int64)


def simulate_arrays(
    policy: str,
    arrival: np.ndarray,
    prompt: np.ndarray,
    output: np.ndarray,
    memory: int,
    *,
    backfill: bool = False,
    order: np.ndarray | None = None,
) -> np.ndarray:
    """Start steps of ``policy`` (exact lengths) on the arrays; ``order`` overrides the priority.

    The compiled kernel runs it; an instance past its int64 bound (:func:`~geosched.reference_impl.kernel.fits_int64`)
    runs in the simulator with Python integers (the starts then an object array when past int64).
    """
    a, s, o = _columns(arrival, prompt, output)
    ranks = _ranks(policy, a, s, o, memory, order)
    if 0 < memory < kernel.LIMIT:
        announce_compiling(kernel.starts_exact)
        start, decisions = kernel.starts_exact(int(memory), s, o, a, ranks, bool(backfill))
        if decisions != kernel.OUT_OF_RANGE:
            return start
    return _simulated_starts(a, s, o, memory, ranks, backfill)


class _RankOrder:
    """A priority rule whose keys are given ranks (the simulator's exact path for a given order)."""

    name = "rank-order"

    def __init__(self, ranks: np.ndarray) -> None:
        self.ranks = ranks

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        position = [0] * len(self.ranks)
        for rank, i in enumerate(self.ranks.tolist()):
            position[i] = rank
        return position

    def parameters(self, predicted: Sequence[int]) -> dict[str, Any]:
        return {}


def _simulated_starts(a: np.ndarray, s: np.ndarray, o: np.ndarray, memory: int, ranks: np.ndarray,
                      backfill: bool) -> np.ndarray:
    """The simulator's starts (Python integers) for an instance past the kernel's int64 bound."""
    ids = ids_for(len(o))
    instance = Instance(int(memory), [Request(i, int(x), int(y), int(z)) for i, x, y, z in zip(ids, a, s, o)])
    starts = simulate(instance, _RankOrder(ranks), backfill=backfill).starts
    values = [starts[i] for i in ids]
    return np.array(values, dtype=np.int64 if max(values, default=0) < 2**63 else object)


def policy_tel(policy: str, arrival, prompt, output, memory: int, *, backfill: bool = False) -> int:
    """TEL ``sum(x_i + o_i - a_i)`` of the policy's schedule."""
    a, s, o = _columns(arrival, prompt, output)
    if 0 < memory < kernel.LIMIT:
        announce_compiling(kernel.tel_exact)
        tel = kernel.tel_exact(int(memory), s, o, a, _ranks(policy, a, s, o, memory, None), bool(backfill))
        if tel != kernel.OUT_OF_RANGE:
            return int(tel)
    x = simulate_arrays(policy, a, s, o, memory, backfill=backfill)
    return int(sum((x + o - a).tolist()))


def fast_starts(instance, policy: str, *, backfill: bool = False) -> dict[str, int]:
    """Start times keyed by id (ties by arrival, then position, as the reference simulator)."""
    reqs = instance.requests
    a = np.array([r.arrival for r in reqs], dtype=np.int64)
    s = np.array([r.prompt for r in reqs], dtype=np.int64)
    o = np.array([r.output for r in reqs], dtype=np.int64)
    x = simulate_arrays(policy, a, s, o, instance.memory, backfill=backfill)
    return {r.id: int(v) for r, v in zip(reqs, x)}


def batch_policy_tel(
    policy: str,
    instances: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, int]],
    *,
    backfill: bool = False,
) -> np.ndarray:
    """TELs of a whole population ``[(arrival, prompt, output, M), ...]`` in one compiled call (an
    instance past the kernel's int64 bound by :func:`policy_tel`; the TELs then an object array)."""
    if not instances:
        return np.zeros(0, dtype=np.int64)
    sizes = [len(item[0]) for item in instances]
    offsets = np.zeros(len(instances) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)
    columns = [_columns(*item[:3]) for item in instances]
    memories = [int(item[3]) for item in instances]
    if not all(0 < m < kernel.LIMIT for m in memories):
        return np.array([policy_tel(policy, *item[:3], m, backfill=backfill) for item, m in zip(instances, memories)],
                        dtype=object)
    orders = np.concatenate([_ranks(policy, *cols, m, None) for cols, m in zip(columns, memories)])
    a, s, o = (np.concatenate([cols[k] for cols in columns]) for k in range(3))
    announce_compiling(kernel.batch_tel)
    tels = kernel.batch_tel(np.array(memories, dtype=np.int64), a, s, o, offsets, orders, bool(backfill))
    if (tels == kernel.OUT_OF_RANGE).any():
        return np.array([policy_tel(policy, *cols, m, backfill=backfill) if tel == kernel.OUT_OF_RANGE else int(tel)
                         for cols, m, tel in zip(columns, memories, tels.tolist())], dtype=object)
    return tels


# cached under the package name only, as the kernel: another import name leaves entries others cannot load
@njit(cache=__name__ == "geosched.adversary.fast")
def _list_core(arrival, prompt, output, order, memory, horizon, monotone, pace):
    # usage[t] = tokens held at step t by the requests placed so far; pace[i] > 0 releases request i no earlier
    # than the running sum of the paces of those placed before it (the paced schedules of adversary.stagger)
    usage = np.zeros(horizon + 2, np.int64)
    n = arrival.shape[0]
    start = np.full(n, -1, np.int64)
    previous = 0
    release = 0.0
    for q in range(n):
        i = order[q]
        if q > 0:
            release += pace[i]
        x = max(arrival[i], previous) if monotone else arrival[i]
        x = max(x, int(np.floor(release + 1e-9)))
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


def list_schedule(arrival, prompt, output, memory: int, order: Sequence[int], *, monotone: bool = False,
                  pace: Any = None) -> np.ndarray:
    """Greedy list scheduling: place requests in ``order``, each at its earliest feasible start
    given those already placed (anywhere in time, not only the running batch).

    ``monotone``: never start before the previous request in ``order`` (a serial schedule: it
    cannot fill earlier holes, but costs ``O(makespan + sum o)`` instead of ``O(n * makespan)``,
    which matters for thousands of requests).

    ``pace``: per request, a release pace: the ``q``-th request of ``order`` starts no earlier than
    ``floor`` of the sum of the paces of requests ``1..q`` of ``order`` (the paced schedules of
    :mod:`geosched.adversary.stagger`; none by default).

    Every order yields a feasible schedule, and an optimal schedule is reached by the order of
    its own start times only when greedy placement reproduces it, so local search over orders
    is a heuristic for OPT, never a bound.

    >>> list_schedule([0, 0], [6, 1], [3, 5], 12, [1, 0]).tolist()
    [5, 0]
    """
    a = np.ascontiguousarray(arrival, dtype=np.int64)
    o = np.ascontiguousarray(output, dtype=np.int64)
    release = np.zeros(len(a), np.float64) if pace is None else np.ascontiguousarray(pace, dtype=np.float64)
    horizon = int(a.max(initial=0) + o.sum() + float(release.sum()) + o.max(initial=0) + 2)
    return _list_core(a, np.ascontiguousarray(prompt, dtype=np.int64), o, np.ascontiguousarray(order, dtype=np.int64),
                      int(memory), horizon, bool(monotone), release)
