"""Routers: which replica an arriving request goes to.

Every router reads a :class:`ClusterState` (one list entry per replica, refreshed to the
request's arrival time) and returns a replica index; ties go to the lowest index. Each
decision costs O(N) for N replicas (one pass over the lists, or O(1)).

* ``round-robin``: replicas in turn.
* ``random``: uniformly at random (seeded).
* ``least-kv``: the smallest fraction of the KV budget in use.
* ``jsq``: join the shortest queue, by requests placed and not finished (running + waiting).
* ``p2c``: power of two choices: two distinct replicas at random (seeded), the shorter queue.
* ``sagesched``: SageSched's uncertainty-aware placement (Gan et al., arXiv 2603.07917):
  the replica with the smallest *expected marginal increase in total latency*, among those
  whose memory stays under a *safety quantile*. Our reading of it (the paper's own formula is
  not public beyond its abstract) with the step-time model ``d = c0 + c1 n + c2 U``
  (:mod:`.steptime`) and the request's predicted distribution (``E[o]``, ``E[v]``, and its
  ``q``-quantile ``o_q``):

  - cost of the request on replica ``r``: ``C_r = c_p s + c1 E[o] + c2 E[v]`` seconds, the hybrid
    cost of :mod:`.cost` (the ``memory``/``compute`` ablations drop the compute or the KV terms);
  - its own latency if it joined the current batch: ``C_r + E[o] (c0 + c1 n_r + c2 U_r)``
    (its ``E[o]`` steps, each as long as the batch's plus its own share);
  - the delay it adds to the ``n_r + w_r`` requests already there (running and waiting): each of
    their steps that overlaps it is longer by its share, ``(n_r + w_r) C_r`` in all;
  - memory: ``R_r + s + o_q <= M_r``, where ``R_r`` is the sum of ``s + o_q`` over the requests
    placed on ``r`` and not finished. Replicas that fail are used only when all fail, and then
    pay an expected wait: the fraction of ``M_r`` that is missing times the time the current
    batch needs to decode its expected remaining tokens.

  The router is O(N): a constant number of operations per replica, from sums the replicas keep
  up to date in O(1) per event.

Example
-------
>>> state = ClusterState.empty(3)
>>> state.running[:] = [4, 1, 1]; state.waiting[:] = [0, 2, 0]
>>> make_router("jsq").choose(state, prompt=10, mean=5.0, volume=60.0, reserve=8)
2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from geosched.errors import UnknownNameError, ValidationError

__all__ = ["ClusterState", "Router", "ROUTERS", "ROUTER_NAMES", "make_router", "SageSchedRouter"]


@dataclass
class ClusterState:
    """Per-replica values a router reads: one list entry per replica (plain lists: for a few
    replicas a Python loop is faster than array operations, and it stays O(N))."""

    memory: list[float]  # KV budget M_r (tokens)
    c0: list[float]  # step-time coefficients of each replica
    c1: list[float]
    c2: list[float]
    c_prefill: list[float]
    kv_in_use: list[float]  # tokens held now
    running: list[float]  # requests decoding now
    waiting: list[float]  # requests placed and not started
    reserved: list[float]  # sum of prompt + reserved output over unfinished requests
    remaining_tokens: list[float]  # expected output tokens still to decode (>= running)

    @classmethod
    def empty(cls, n: int) -> ClusterState:
        """N idle unit-step replicas with M = 1 (tests and benchmarks fill the lists in)."""
        return cls([1.0] * n, [1.0] * n, *([0.0] * n for _ in range(8)))

    @property
    def size(self) -> int:
        return len(self.memory)


class Router(Protocol):
    """``choose(state, prompt=, mean=, volume=, reserve=) -> replica index``."""

    name: str

    def choose(self, state: ClusterState, *, prompt: int, mean: float, volume: float, reserve: int) -> int: ...


@dataclass
class RoundRobin:
    """Replicas in turn."""

    name: str = "round-robin"
    _next: int = 0

    def choose(self, state: ClusterState, **request: Any) -> int:
        chosen = self._next % state.size
        self._next += 1
        return chosen


class RandomRouter:
    """Uniformly at random, from a seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, state: ClusterState, **request: Any) -> int:
        return int(self.rng.integers(state.size))


@dataclass
class LeastKV:
    """The smallest fraction of the KV budget in use."""

    name: str = "least-kv"

    def choose(self, state: ClusterState, **request: Any) -> int:
        used = [u / m for u, m in zip(state.kv_in_use, state.memory)]
        return used.index(min(used))


@dataclass
class JoinShortestQueue:
    """The fewest requests placed and not finished."""

    name: str = "jsq"

    def choose(self, state: ClusterState, **request: Any) -> int:
        load = [r + w for r, w in zip(state.running, state.waiting)]
        return load.index(min(load))


class PowerOfTwo:
    """Two distinct replicas at random (seeded); the shorter queue, ties to the lower index."""

    name = "p2c"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, state: ClusterState, **request: Any) -> int:
        if state.size == 1:
            return 0
        a, b = sorted(int(v) for v in self.rng.choice(state.size, size=2, replace=False))
        load_a, load_b = state.running[a] + state.waiting[a], state.running[b] + state.waiting[b]
        return b if load_b < load_a else a


@dataclass
class SageSchedRouter:
    """Expected marginal latency under the length distribution, memory under a safety quantile.

    ``cost`` drops terms for the ablations: ``"memory"`` (no compute terms), ``"compute"`` (no
    KV terms); ``hybrid`` keeps both. The safety quantile itself is applied by the caller,
    which passes ``reserve`` (the quantile, or the mean for the no-safety ablation).
    """

    cost: str = "hybrid"
    name: str = "sagesched"

    def __post_init__(self) -> None:
        if self.cost not in ("hybrid", "memory", "compute"):
            raise ValidationError("sagesched cost", self.cost, "must be hybrid, memory or compute")

    def scores(self, state: ClusterState, *, prompt: int, mean: float, volume: float, reserve: int) -> list[float]:
        """Expected marginal latency (seconds) of the request on every replica (module docstring)."""
        compute = 0.0 if self.cost == "memory" else 1.0
        memory = 0.0 if self.cost == "compute" else 1.0
        scores = []
        for c0, c1, c2, c_prefill, capacity, used, n, w, reserved, remaining in zip(
                state.c0, state.c1, state.c2, state.c_prefill, state.memory, state.kv_in_use, state.running,
                state.waiting, state.reserved, state.remaining_tokens):
            cost = compute * (c_prefill * prompt + c1 * mean) + memory * c2 * volume
            own = cost + mean * (c0 + compute * c1 * n + memory * c2 * used)
            imposed = (n + w) * cost
            need = reserved + prompt + reserve
            wait = 0.0
            if need > capacity:
                wait = (need - capacity) / capacity * remaining / max(n, 1.0) * (c0 + c1 * n + c2 * used)
            scores.append(own + imposed + wait)
        return scores

    def choose(self, state: ClusterState, *, prompt: int, mean: float, volume: float, reserve: int) -> int:
        scores = self.scores(state, prompt=prompt, mean=mean, volume=volume, reserve=reserve)
        best, best_safe = 0, -1
        for k, (score, reserved, capacity) in enumerate(zip(scores, state.reserved, state.memory)):
            if score < scores[best]:
                best = k
            if reserved + prompt + reserve <= capacity and (best_safe < 0 or score < scores[best_safe]):
                best_safe = k
        return best_safe if best_safe >= 0 else best


ROUTERS: dict[str, Any] = {
    "round-robin": lambda seed=0, cost="hybrid": RoundRobin(),
    "random": lambda seed=0, cost="hybrid": RandomRouter(seed),
    "least-kv": lambda seed=0, cost="hybrid": LeastKV(),
    "jsq": lambda seed=0, cost="hybrid": JoinShortestQueue(),
    "p2c": lambda seed=0, cost="hybrid": PowerOfTwo(seed),
    "sagesched": lambda seed=0, cost="hybrid": SageSchedRouter(cost),
}
ROUTER_NAMES: tuple[str, ...] = tuple(ROUTERS)


def make_router(name: str, *, seed: int = 0, cost: str = "hybrid") -> Router:
    """A fresh router by name (``seed`` for the random ones, ``cost`` for ``sagesched``).

    Raises
    ------
    UnknownNameError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> make_router("p2c", seed=3).name
    'p2c'
    """
    if name not in ROUTERS:
        raise UnknownNameError("router", name, list(ROUTERS))
    return ROUTERS[name](seed=seed, cost=cost)
