"""Black-box search for instances on which a policy is far from optimal.

The objective is the *certified* ratio ``TEL(A, I) / TEL(S)`` where ``S`` is the best schedule
of a cheap pool (:func:`geosched.adversary.schedules.heuristic_pool_tel`): every value the
search sees is already a proved lower bound on ``A``'s competitive ratio on ``I`` (the pool's
schedules are feasible), so the search never chases a loose bound. The elite are re-scored
at the end with the stronger witness search (:func:`certify`) and the checker.

Two searches, scipy.optimize-style (one result object, ``rng=``, ``callback``):

* :func:`anneal`: hill climbing / simulated annealing over integer mutations (nudge a
  prompt, output or arrival; add, drop or clone a request; scale a group; move a request in
  the tie order), cyclic temperature with restarts from the best instance;
* :func:`differential_evolution_search`: :func:`scipy.optimize.differential_evolution` with
  ``integrality`` on the encoding ``(s_1, o_1, [a_1], ..., s_N, o_N, [a_N])``, where
  ``o_i = 0`` drops request ``i`` and ``s_i`` is clipped to ``P - o_i`` (``P`` the largest
  allowed peak ``floor(alpha_max * M)``).

Example
-------
>>> space = SearchSpace("sjf", max_requests=6, memory=12, alpha_max=0.5)
>>> result = anneal(space, time_limit=1.0, rng=0)
>>> result.fun >= 1.0
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from geosched.adversary.fast import ids_for
from geosched.adversary.options import ANNEAL_SETTINGS, DE_SETTINGS, SearchOptions
from geosched.adversary.schedules import heuristic_pool_tel
from geosched.adversary.targets import get_target, hunt_target
from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.model import Instance, Request
from geosched.results import Result

__all__ = [
    "SearchSpace",
    "Candidate",
    "SearchResult",
    "fitness",
    "random_candidate",
    "enforce_band",
    "equal_volume_pair",
    "mutate",
    "anneal",
    "differential_evolution_search",
    "candidate_to_instance",
    "checked_state",
    "check_state_counts",
    "checked_history",
    "MAX_SEARCH_REQUESTS",
    "MAX_SEARCH_MEMORY",
]


MAX_SEARCH_REQUESTS = 5000  # N at most: the structured hunts use 2000; N * M int64 steps stay <= 400 MB
MAX_SEARCH_MEMORY = 10_000  # M at most: list scheduling keeps one int64 per step up to N * M


@dataclass(frozen=True)
class SearchSpace:
    """The constraints of a hunt: ``1 <= max_requests <= MAX_SEARCH_REQUESTS`` and
    ``1 <= memory <= MAX_SEARCH_MEMORY`` (the searches keep per-step arrays up to ``N * M``
    steps; the paper-scale hunts use M = 40)."""

    policy: str  # a hunt target (geosched.adversary.targets): fcfs, sjf, svf, svf1, vllm-fcfs, vllm-priority
    max_requests: int  # N: at most this many requests
    memory: int  # M
    alpha_max: float = 0.5  # every peak s + o <= floor(alpha_max * M)
    alpha_min: float = 0.0  # band: alpha = max(s + o)/M > alpha_min (some peak >= peak_min); 0: no lower side
    exact_ties: bool = False  # also the "tie" mutation (a request takes another's exact volume); off: as before
    arrivals: str = "burst"  # "burst" (all at 0) or "online"
    max_arrival: int | None = None  # online: arrivals in [0, max_arrival] (default 2 * peak_max)
    block_size: int = 1  # every instance's KV block size (vLLM targets only; M must be a multiple)

    def __post_init__(self) -> None:
        target = hunt_target(self.policy)  # a name of target_names() or a scheduler file; else one line listing them
        for name, value, limit in (("requests", self.max_requests, MAX_SEARCH_REQUESTS),
                                   ("memory", self.memory, MAX_SEARCH_MEMORY)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= limit:
                raise ValidationError(name, value, f"must be an integer in [1, {limit}] for a search")
        if isinstance(self.alpha_max, bool) or not isinstance(self.alpha_max, (int, float)) \
                or not (0 < self.alpha_max <= 1) or math.isnan(self.alpha_max):
            raise ValidationError("alpha-max", self.alpha_max, "must be in (0, 1]")
        if self.peak_max < 1:
            raise ValidationError("alpha-max", self.alpha_max, f"leaves no room for a request in M = {self.memory}")
        if isinstance(self.alpha_min, bool) or not isinstance(self.alpha_min, (int, float)) \
                or math.isnan(self.alpha_min) or not 0 <= self.alpha_min < self.alpha_max:
            raise ValidationError("alpha-min", self.alpha_min, f"must be in [0, alpha-max = {self.alpha_max})")
        if not isinstance(self.exact_ties, bool):
            raise ValidationError("exact-ties", self.exact_ties, "must be True or False")
        if self.peak_min > self.peak_max:
            raise ValidationError("alpha-min", self.alpha_min, f"leaves no integer peak in ({self.alpha_min}, "
                                  f"{self.alpha_max}] * M for M = {self.memory}")
        if self.block_size != 1 and target.kind != "vllm":
            raise ValidationError("block-size", self.block_size, f"applies to the vLLM targets (vllm-fcfs, "
                                  f"vllm-priority), not {self.policy!r}: the other searches run at token grain")
        Instance(self.memory, [], self.block_size)  # the block size: an integer >= 1 dividing M (model.py's rule)
        if self.arrivals not in ("burst", "online"):
            raise ValidationError("arrivals", self.arrivals, "must be 'burst' or 'online'")
        if self.max_arrival is not None and (isinstance(self.max_arrival, bool) or not isinstance(self.max_arrival, int)
                                             or not 0 <= self.max_arrival <= MAX_SEARCH_MEMORY * MAX_SEARCH_REQUESTS):
            raise ValidationError("max_arrival", self.max_arrival,
                                  f"must be an integer in [0, {MAX_SEARCH_MEMORY * MAX_SEARCH_REQUESTS}]")

    @property
    def peak_max(self) -> int:
        """``P = floor(alpha_max * M)`` (exact for decimal alpha_max)."""
        return math.floor(Fraction(str(self.alpha_max)) * self.memory)

    @property
    def peak_min(self) -> int:
        """The least peak some request must reach: ``floor(alpha_min * M) + 1`` (1 without a band)."""
        return math.floor(Fraction(str(self.alpha_min)) * self.memory) + 1

    def alpha_in_band(self, alpha: Fraction) -> bool:
        """``alpha_min < alpha <= alpha_max`` (exact; 0 < alpha without a lower side)."""
        return Fraction(str(self.alpha_min)) < alpha <= Fraction(str(self.alpha_max))

    @property
    def arrival_max(self) -> int:
        if self.arrivals == "burst":
            return 0
        return self.max_arrival if self.max_arrival is not None else 2 * self.peak_max

    def to_dict(self) -> dict[str, Any]:
        grain = {"block_size": self.block_size} if self.block_size != 1 else {}  # older checkpoints have none
        band = {"alpha_min": self.alpha_min} if self.alpha_min else {}  # older checkpoints have none
        band |= {"exact_ties": True} if self.exact_ties else {}
        return {"policy": self.policy, "max_requests": self.max_requests, "memory": self.memory, **grain,
                "alpha_max": self.alpha_max, **band, "arrivals": self.arrivals, "max_arrival": self.max_arrival}


@dataclass
class Candidate:
    """An instance as arrays (ids are implicit: ``ids_for(n)``, string order = index order)."""

    a: np.ndarray  # arrivals
    s: np.ndarray  # prompts
    o: np.ndarray  # outputs
    score: float = float("nan")  # certified ratio TEL(A)/TEL(pool best)
    policy_tel: int = 0
    pool_tel: int = 0
    note: str = ""  # how it was described (the structured search's groups), for found_by

    def copy(self) -> Candidate:
        return Candidate(self.a.copy(), self.s.copy(), self.o.copy(), self.score, self.policy_tel, self.pool_tel,
                         self.note)

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a.tolist(), "s": self.s.tolist(), "o": self.o.tolist(), "score": self.score,
                "policy_tel": self.policy_tel, "pool_tel": self.pool_tel}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Candidate:
        return cls(np.array(data["a"], np.int64), np.array(data["s"], np.int64), np.array(data["o"], np.int64),
                   float(data["score"]), int(data["policy_tel"]), int(data["pool_tel"]))

    def key(self) -> tuple:
        return (tuple(self.a.tolist()), tuple(self.s.tolist()), tuple(self.o.tolist()))


def candidate_to_instance(c: Candidate, memory: int, block_size: int = 1) -> Instance:
    """The :class:`Instance` with ids ``ids_for(n)``."""
    ids = ids_for(len(c.o))
    return Instance(memory, [Request(i, int(a), int(s), int(o)) for i, a, s, o in zip(ids, c.a, c.s, c.o)],
                    block_size)


def fitness(space: SearchSpace, c: Candidate) -> float:
    """Set and return ``c.score = TEL(policy) / min TEL(pool)``, the pool the compiled heuristics' schedules (a
    search score: :func:`geosched.adversary.hunt.certify` re-checks the best ones with the checker)."""
    tel = get_target(space.policy).array_tel(c.a, c.s, c.o, space.memory, space.block_size)
    pool, _, _ = heuristic_pool_tel(c.a, c.s, c.o, space.memory)
    c.policy_tel, c.pool_tel = tel, pool
    c.score = tel / pool
    return c.score


def random_candidate(space: SearchSpace, rng: np.random.Generator, n: int | None = None) -> Candidate:
    """Uniform random instance: ``o ~ U[1, P]``, ``s ~ U[0, P - o]``, arrivals ``U[0, A]``."""
    n = n if n is not None else space.max_requests
    p = space.peak_max
    o = rng.integers(1, p + 1, size=n)
    s = rng.integers(0, p - o + 1)
    a = rng.integers(0, space.arrival_max + 1, size=n)
    return enforce_band(space, Candidate(a.astype(np.int64), s.astype(np.int64), o.astype(np.int64)))


def enforce_band(space: SearchSpace, c: Candidate) -> Candidate:
    """Raise the largest peak to ``space.peak_min`` when no request reaches it (prompt first, then
    output), so that ``alpha`` lies in the band; peaks must already be ``<= peak_max``."""
    if len(c.o) == 0:
        return c
    peaks = c.s + c.o
    i = int(np.argmax(peaks))
    short = space.peak_min - int(peaks[i])
    if short > 0:
        c.s = c.s.copy()
        c.s[i] += short
    return c


def _clip(space: SearchSpace, c: Candidate) -> Candidate:
    p = space.peak_max
    c.o = np.clip(c.o, 1, p)
    c.s = np.clip(c.s, 0, p - c.o)
    c.a = np.clip(c.a, 0, space.arrival_max)
    return enforce_band(space, c)


def equal_volume_pair(s: int, o: int, peak_max: int, rng: np.random.Generator) -> tuple[int, int]:
    """A random ``(s', o')`` with exactly the volume ``s o + o (o + 1)/2`` and ``s' + o' <= peak_max``
    (``(s, o)`` itself when no other pair has it): an exact volume tie."""
    volume = s * o + o * (o + 1) // 2
    pairs = [(rest // q, q) for q in range(1, peak_max + 1)
             if (rest := volume - q * (q + 1) // 2) >= 0 and rest % q == 0 and rest // q + q <= peak_max]
    return pairs[int(rng.integers(len(pairs)))] if pairs else (s, o)


MUTATIONS = ("prompt", "output", "arrival", "add", "drop", "clone", "scale", "move", "tie")


def mutate(space: SearchSpace, c: Candidate, rng: np.random.Generator) -> tuple[Candidate, str]:
    """One random integer mutation (see :data:`MUTATIONS`); the result is clipped into the space."""
    c = c.copy()
    n = len(c.o)
    p = space.peak_max
    kinds = [k for k in MUTATIONS if not (k == "arrival" and space.arrivals == "burst")
             and not (k == "tie" and not space.exact_ties)]  # without exact_ties: the earlier searches' draws
    kind = kinds[rng.integers(len(kinds))]
    step = int(rng.choice([1, 1, 2, 3, max(1, p // 4)])) * int(rng.choice([-1, 1]))
    i = int(rng.integers(n))
    if kind == "prompt":
        c.s[i] += step
    elif kind == "output":
        c.o[i] += step
    elif kind == "arrival":
        c.a[i] += step
    elif kind == "add" and n < space.max_requests:
        new = random_candidate(space, rng, 1)
        j = int(rng.integers(n + 1))
        c.a, c.s, c.o = (np.insert(arr, j, v[0]) for arr, v in ((c.a, new.a), (c.s, new.s), (c.o, new.o)))
    elif kind == "drop" and n > 1:
        c.a, c.s, c.o = (np.delete(arr, i) for arr in (c.a, c.s, c.o))
    elif kind == "clone" and n < space.max_requests:
        count = min(space.max_requests - n, int(rng.integers(1, 4)))
        j = int(rng.integers(n + 1))
        c.a, c.s, c.o = (np.insert(arr, j, [arr[i]] * count) for arr in (c.a, c.s, c.o))
    elif kind == "scale":
        # a group: all requests sharing i's output (or prompt), scaled up or down together
        field_name = "o" if rng.random() < 0.5 else "s"
        arr = getattr(c, field_name)
        group = arr == arr[i]
        factor = float(rng.choice([0.5, 2.0, 1.5, 0.75]))
        arr[group] = np.maximum(0, np.round(arr[group] * factor)).astype(np.int64)
    elif kind == "move" and n > 1:
        j = int(rng.integers(n))
        order = list(range(n))
        order.insert(j, order.pop(i))
        c.a, c.s, c.o = c.a[order], c.s[order], c.o[order]
    elif kind == "tie" and n > 1:  # request j takes exactly request i's volume (same or another shape)
        j = int(rng.integers(n - 1))
        j += j >= i
        c.s[j], c.o[j] = equal_volume_pair(int(c.s[i]), int(c.o[i]), p, rng)
    else:
        c.s[i] += step
    return _clip(space, c), kind


@dataclass(frozen=True)
class SearchResult(Result):
    """scipy.optimize-style result of a search (``fun`` is the best score found, maximised).

    ``status`` says why the search stopped; every stop is a normal one (``success``).
    """

    STATUSES = ("time_limit", "max_evaluations", "target_reached", "stopped_by_callback")
    SUCCESS = STATUSES

    x: Instance | None  # best instance found
    fun: float  # its score: TEL(policy) / the fast heuristic pool's TEL, not yet certified (certify() does)
    status: str  # why it stopped (one of STATUSES)
    message: str  # human-readable status
    nfev: int  # fitness evaluations (each: one policy run + the heuristic pool)
    nit: int  # iterations (anneal: mutations; de: generations)
    wall_time: float  # seconds, cumulative over resumes
    method: str  # "anneal" or "de"
    seed: int | None  # seed used
    elite: list[Candidate] = field(default_factory=list)  # best distinct candidates, best first
    history: list[tuple[float, float, int]] = field(default_factory=list)  # (wall time, best, nfev)
    state: dict[str, Any] = field(default_factory=dict)  # resumable state (JSON-able)

    @property
    def evaluations_per_second(self) -> float:
        return self.nfev / self.wall_time if self.wall_time > 0 else 0.0


def _status_message(status: str) -> str:
    return {"time_limit": "time limit reached", "max_evaluations": "evaluation limit reached",
            "target_reached": "target ratio reached", "stopped_by_callback": "stopped by callback"}[status]


class _Elite:
    def __init__(self, size: int = 5, items: list[Candidate] | None = None):
        self.size = size
        self.items: list[Candidate] = list(items or [])

    def offer(self, c: Candidate) -> None:
        key = c.key()
        if any(e.key() == key for e in self.items):
            return
        if len(self.items) < self.size or c.score > self.items[-1].score:
            self.items.append(c.copy())
            self.items.sort(key=lambda e: -e.score)
            del self.items[self.size:]


def _rng_from(rng: Any) -> tuple[np.random.Generator, int | None]:
    if isinstance(rng, np.random.Generator):
        return rng, None
    return np.random.default_rng(rng), rng if isinstance(rng, int) else None


def anneal(
    space: SearchSpace,
    options: SearchOptions | None = None,
    *,
    rng: Any = None,
    callback: Callable[[SearchResult], bool | None] | None = None,
    initial: Candidate | None = None,
    state: dict[str, Any] | None = None,
    **settings: Any,
) -> SearchResult:
    """Simulated annealing on ``log(ratio)`` with cyclic geometric cooling.

    Accepts a worse neighbour with probability ``exp((log r' - log r) / T)``; ``T`` decays from
    ``t_start`` to ``t_end`` over each cycle of ``min(cycle_seconds, time_limit)`` seconds, and a
    new cycle restarts from the best instance (or, one time in three, from a fresh random one).
    ``cycle_evals`` measures the cycle in iterations instead of seconds: with ``max_evals`` and
    an infinite ``time_limit`` the search is then a function of ``rng`` alone (the restarts of
    :mod:`geosched.adversary.rounds` rely on it). ``state`` (from a previous result) resumes a
    search: counts and history continue.
    ``callback(result)`` is called about every ``callback_every`` seconds; returning True stops.

    The settings (``time_limit``, ``max_evals``, ``target``, ``callback_every``, ``t_start``,
    ``t_end``, ``cycle_seconds``, ``cycle_evals``: :data:`~geosched.adversary.options.ANNEAL_SETTINGS`)
    are fields of :class:`~geosched.adversary.options.SearchOptions`, given as ``options``, as
    keywords, or both (the keywords win); a bad value raises ValidationError naming it.
    """
    opts = SearchOptions.for_search(options, settings, ANNEAL_SETTINGS, "anneal")
    gen, seed = _rng_from(rng)
    walk = _Annealing.begin(space, gen, seed, initial, state)
    t0 = time.perf_counter()
    status = _anneal_loop(space, walk, gen, opts, callback, t0)
    result = walk.result(space, gen, status, walk.base_time + time.perf_counter() - t0)
    result.history.append((result.wall_time, walk.best.score, walk.nfev))
    return result


@dataclass
class _Annealing:
    """The annealer's mutable state (JSON-able through :meth:`result`'s ``state``)."""

    current: Candidate
    best: Candidate
    elite: _Elite
    history: list[tuple[float, float, int]]
    seed: int | None
    nfev: int = 0
    nit: int = 0
    base_time: float = 0.0

    @classmethod
    def begin(cls, space: SearchSpace, gen: np.random.Generator, seed: int | None, initial: Candidate | None,
              state: dict[str, Any] | None) -> _Annealing:
        """A saved search resumed (``state``; the generator's state is restored in place), or a new one
        at ``initial`` or a random candidate."""
        if state:
            gen.bit_generator.state = state["rng"]
            return cls(Candidate.from_dict(state["current"]), Candidate.from_dict(state["best"]),
                       _Elite(items=[Candidate.from_dict(e) for e in state["elite"]]),
                       [tuple(h) for h in state["history"]], state.get("seed", seed), state["nfev"], state["nit"],
                       state["wall_time"])
        current = initial.copy() if initial is not None else random_candidate(space, gen)
        _clip(space, current)
        fitness(space, current)
        best = current.copy()
        elite = _Elite()
        elite.offer(best)
        return cls(current, best, elite, [(0.0, best.score, 1)], seed, nfev=1)

    def result(self, space: SearchSpace, gen: np.random.Generator, status: str, elapsed: float) -> SearchResult:
        return SearchResult(
            x=candidate_to_instance(self.best, space.memory, space.block_size), fun=self.best.score, status=status,
            message=_status_message(status), nfev=self.nfev, nit=self.nit, wall_time=elapsed, method="anneal",
            seed=self.seed, elite=list(self.elite.items), history=list(self.history),
            state={"rng": gen.bit_generator.state, "wall_time": elapsed, "nfev": self.nfev, "nit": self.nit,
                   "history": self.history, "current": self.current.to_dict(), "best": self.best.to_dict(),
                   "elite": [e.to_dict() for e in self.elite.items], "seed": self.seed},
        )


def _anneal_loop(space: SearchSpace, walk: _Annealing, gen: np.random.Generator, opts: SearchOptions,
                 callback: Callable[[SearchResult], bool | None] | None, t0: float) -> str:
    """Mutate, score, accept by the Metropolis rule until a stop; returns why it stopped."""
    t_start, t_end, cycle_evals = opts.t_start, opts.t_end, opts.cycle_evals
    cycle = max(1e-3, min(opts.cycle_seconds, opts.time_limit))
    last_callback = t0
    cycle_start, cycle_start_it = time.perf_counter(), walk.nit
    while True:
        now = time.perf_counter()
        if now - t0 >= opts.time_limit:
            return "time_limit"
        if opts.max_evals is not None and walk.nfev >= opts.max_evals:
            return "max_evaluations"
        if opts.target is not None and walk.best.score >= opts.target:
            return "target_reached"
        frac = (walk.nit - cycle_start_it) / cycle_evals if cycle_evals else (now - cycle_start) / cycle
        if frac >= 1.0:
            cycle_start, cycle_start_it = now, walk.nit
            walk.current = walk.best.copy() if gen.random() < 2 / 3 else random_candidate(space, gen)
            if np.isnan(walk.current.score):
                fitness(space, walk.current)
                walk.nfev += 1
            frac = 0.0
        temperature = t_start * (t_end / t_start) ** frac
        trial, _ = mutate(space, walk.current, gen)
        fitness(space, trial)
        walk.nfev += 1
        walk.nit += 1
        delta = math.log(trial.score) - math.log(walk.current.score)
        if delta >= 0 or gen.random() < math.exp(delta / temperature):
            walk.current = trial
            if trial.score > walk.best.score:
                walk.best = trial.copy()
                walk.history.append((walk.base_time + now - t0, walk.best.score, walk.nfev))
            walk.elite.offer(trial)
        if callback is not None and now - last_callback >= opts.callback_every:
            last_callback = now
            if callback(walk.result(space, gen, "time_limit", walk.base_time + time.perf_counter() - t0)):
                return "stopped_by_callback"


def _decode(space: SearchSpace, x: np.ndarray) -> Candidate:
    width = 3 if space.arrivals == "online" else 2
    v = np.rint(np.asarray(x, dtype=float)).astype(np.int64).reshape(-1, width)
    o = v[:, 1]
    keep = o > 0
    if not keep.any():
        keep[int(np.argmax(o))] = True
        o = np.maximum(o, 1)
    p = space.peak_max
    o = np.clip(o[keep], 1, p)
    s = np.clip(v[keep, 0], 0, p - o)
    a = v[keep, 2] if width == 3 else np.zeros(len(o), np.int64)
    return enforce_band(space, Candidate(np.clip(a, 0, space.arrival_max).astype(np.int64), s.astype(np.int64),
                                         o.astype(np.int64)))


def _restore_de(state: dict[str, Any] | None, gen: np.random.Generator, seed: int | None) -> tuple:
    """``(wall time, nfev, nit, history, elite, best, initial population, seed)`` of a saved
    search (``state``), or of a fresh one; the generator's state is restored in place."""
    if not state:
        return 0.0, 0, 0, [], _Elite(), None, "latinhypercube", seed
    gen.bit_generator.state = state["rng"]
    return (state["wall_time"], state["nfev"], state["nit"], [tuple(h) for h in state["history"]],
            _Elite(items=[Candidate.from_dict(e) for e in state["elite"]]),
            Candidate.from_dict(state["best"]) if state["best"] is not None else None,
            np.array(state["population"], dtype=float), state.get("seed", seed))


def differential_evolution_search(
    space: SearchSpace,
    options: SearchOptions | None = None,
    *,
    rng: Any = None,
    callback: Callable[[SearchResult], bool | None] | None = None,
    state: dict[str, Any] | None = None,
    **settings: Any,
) -> SearchResult:
    """:func:`scipy.optimize.differential_evolution` (integrality on every coordinate) on
    ``-log(certified ratio)``; the population is evaluated in one vectorised call per generation.
    ``state`` resumes from a saved population (counts continue). The settings (``time_limit``,
    ``max_evals``, ``target``, ``popsize``: :data:`~geosched.adversary.options.DE_SETTINGS`) are
    fields of :class:`~geosched.adversary.options.SearchOptions`, as ``options`` or keywords."""
    opts = SearchOptions.for_search(options, settings, DE_SETTINGS, "differential_evolution_search")
    from scipy.optimize import differential_evolution

    gen, seed = _rng_from(rng)
    n, p = space.max_requests, space.peak_max
    per = [(0, p - 1), (0, p)] + ([(0, space.arrival_max)] if space.arrivals == "online" else [])
    bounds = per * n
    run = _Evolution(space, opts, gen, seed, state, callback)
    init = run.init
    if isinstance(init, np.ndarray) and (init.ndim != 2 or init.shape[1] != len(bounds) or init.shape[0] < 5):
        init = "latinhypercube"
    differential_evolution(
        run.objective, bounds, integrality=np.ones(len(bounds), dtype=bool), popsize=opts.popsize, maxiter=10**9,
        tol=0.0, atol=0.0, polish=False, init=init, rng=gen, vectorized=True, updating="deferred",
        callback=run.generation_done, mutation=(0.5, 1.0), recombination=0.7,
    )
    result = run.result()
    if result.x is not None:
        result.history.append((result.wall_time, result.fun, result.nfev))
    return result


class _Evolution:
    """Differential evolution's bookkeeping: scipy calls :meth:`objective` on each generation's
    population and :meth:`generation_done` after it (which says whether to stop)."""

    def __init__(self, space: SearchSpace, opts: SearchOptions, gen: np.random.Generator, seed: int | None,
                 state: dict[str, Any] | None, callback: Callable[[SearchResult], bool | None] | None) -> None:
        self.space, self.opts, self.gen, self.callback = space, opts, gen, callback
        (self.base_time, self.nfev, self.nit, self.history, self.elite, self.best, self.init,
         self.seed) = _restore_de(state, gen, seed)
        self.population: np.ndarray | None = None
        self.status = "time_limit"
        self.t0 = time.perf_counter()

    def objective(self, xs: np.ndarray) -> np.ndarray:
        xs = np.atleast_2d(xs.T).T if xs.ndim == 1 else xs
        values = np.empty(xs.shape[1])
        for k in range(xs.shape[1]):
            c = _decode(self.space, xs[:, k])
            fitness(self.space, c)
            self.nfev += 1
            values[k] = -math.log(c.score)
            self.elite.offer(c)
            if self.best is None or c.score > self.best.score:
                self.best = c.copy()
                self.history.append((self.base_time + time.perf_counter() - self.t0, c.score, self.nfev))
        self.population = xs.T.copy()
        return values

    def result(self) -> SearchResult:
        elapsed = self.base_time + time.perf_counter() - self.t0
        b, pop = self.best, self.population
        return SearchResult(
            x=candidate_to_instance(b, self.space.memory, self.space.block_size) if b is not None else None,
            fun=b.score if b is not None else float("nan"), status=self.status,
            message=_status_message(self.status), nfev=self.nfev, nit=self.nit, wall_time=elapsed, method="de",
            seed=self.seed, elite=list(self.elite.items), history=list(self.history),
            state={"wall_time": elapsed, "nfev": self.nfev, "nit": self.nit, "history": self.history,
                   "elite": [e.to_dict() for e in self.elite.items], "best": b.to_dict() if b else None,
                   "population": pop.tolist() if pop is not None else None, "rng": self.gen.bit_generator.state,
                   "seed": self.seed},
        )

    def generation_done(self, intermediate_result: Any) -> bool:
        self.nit += 1
        opts = self.opts
        if time.perf_counter() - self.t0 >= opts.time_limit:
            self.status = "time_limit"
        elif opts.max_evals is not None and self.nfev >= opts.max_evals:
            self.status = "max_evaluations"
        elif opts.target is not None and self.best is not None and self.best.score >= opts.target:
            self.status = "target_reached"
        elif self.callback is not None and self.callback(self.result()):
            self.status = "stopped_by_callback"
        else:
            return False
        return True


_STATE_KEYS = {
    "anneal": ("rng", "wall_time", "nfev", "nit", "history", "current", "best", "elite", "seed"),
    "de": ("rng", "wall_time", "nfev", "nit", "history", "best", "elite", "population", "seed"),
}
_MAX_ELITE = 50  # a saved elite longer than this is not one this module wrote


def checked_state(space: SearchSpace, method: str, state: Any, where: str) -> dict[str, Any]:
    """A saved search state (from a hunt checkpoint), every field checked and every score recomputed.

    A checkpoint is input like any other: its generator state must be one numpy accepts, its
    counts non-negative integers, its candidates instances of ``space``, and its population
    the shape the search uses. The scores saved with the candidates are *not* trusted: each
    candidate is evaluated again (:func:`fitness`), and history points above the recomputed
    best are dropped, so a forged score cannot be reported as a search's best.

    Raises
    ------
    WorkloadFormatError
        Naming the field, when the state is malformed.
    """
    def fail(field_name: str, why: str) -> WorkloadFormatError:
        return WorkloadFormatError(f"{where}: {method} state: {field_name}: {why}")

    check_state_counts(state, _STATE_KEYS[method], fail)
    if not isinstance(state["elite"], list) or len(state["elite"]) > _MAX_ELITE:
        raise fail("elite", f"must be a list of at most {_MAX_ELITE} candidates")
    checked = dict(state)
    checked["elite"] = [_checked_candidate(space, item, f"elite[{k}]", fail).to_dict()
                        for k, item in enumerate(state["elite"])]
    checked["best"] = None if state["best"] is None and method == "de" else \
        _checked_candidate(space, state["best"], "best", fail).to_dict()
    if method == "anneal":
        checked["current"] = _checked_candidate(space, state["current"], "current", fail).to_dict()
    else:
        checked["population"] = _checked_population(space, state["population"], fail)
    best_score = max([c["score"] for c in checked["elite"]] + ([checked["best"]["score"]] if checked["best"] else []),
                     default=math.inf)
    checked["history"] = checked_history(state["history"], best_score, fail)
    return checked


def check_state_counts(state: Any, keys: tuple[str, ...], fail: Callable[[str, str], Exception]) -> None:
    """The fields every saved search state has: an object holding ``keys``, a PCG64 generator
    state ``rng``, ``wall_time`` a finite number >= 0, ``nfev`` and ``nit`` integers >= 0, ``seed``
    an integer >= 0 or null; ``fail(field, why)`` makes the error raised."""
    if not isinstance(state, dict):
        raise fail("state", f"expected an object, got {type(state).__name__}")
    missing = [k for k in keys if k not in state]
    if missing:
        raise fail(", ".join(missing), "missing")
    _check_rng_state(state["rng"], fail)
    wall_time = state["wall_time"]
    if isinstance(wall_time, bool) or not isinstance(wall_time, (int, float)) or not 0 <= wall_time < math.inf:
        raise fail("wall_time", f"must be a finite number >= 0, got {wall_time!r}")
    for name in ("nfev", "nit"):
        if isinstance(state[name], bool) or not isinstance(state[name], int) or state[name] < 0:
            raise fail(name, f"must be an integer >= 0, got {state[name]!r}")
    seed = state["seed"]
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise fail("seed", f"must be an integer >= 0 or null, got {seed!r}")


def _check_rng_state(rng_state: Any, fail: Callable[[str, str], Exception]) -> None:
    """The state must be one numpy's default generator (PCG64) takes."""
    probe = np.random.default_rng(0).bit_generator
    try:
        probe.state = rng_state
    except (TypeError, ValueError, KeyError, OverflowError, AttributeError) as exc:
        raise fail("rng", f"not a numpy PCG64 generator state ({exc})") from None


def _checked_candidate(space: SearchSpace, data: Any, field_name: str,
                       fail: Callable[[str, str], Exception]) -> Candidate:
    """A saved candidate, validated against ``space``, with its score recomputed."""
    if not isinstance(data, dict) or not {"a", "s", "o"} <= set(data):
        raise fail(field_name, "must be an object with lists 'a', 's', 'o'")
    columns = []
    for key in ("a", "s", "o"):
        values = data[key]
        if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise fail(f"{field_name}.{key}", "must be a list of integers")
        columns.append(values)
    a, s, o = columns
    if not 1 <= len(o) <= space.max_requests or not len(a) == len(s) == len(o):
        raise fail(field_name, f"must hold 1 to {space.max_requests} requests, with a, s, o of one length")
    peak = space.peak_max
    if any(not 0 <= x <= space.arrival_max for x in a) or any(not 1 <= y <= peak for y in o) \
            or any(not 0 <= p <= peak - y for p, y in zip(s, o)):
        raise fail(field_name, f"is not an instance of the search space (peaks <= {peak}, "
                               f"arrivals <= {space.arrival_max})")
    candidate = Candidate(np.array(a, np.int64), np.array(s, np.int64), np.array(o, np.int64))
    fitness(space, candidate)  # the saved score, policy_tel and pool_tel are not trusted
    return candidate


def _checked_population(space: SearchSpace, population: Any, fail: Callable[[str, str], Exception]) -> Any:
    if population is None:
        return None
    width = space.max_requests * (3 if space.arrivals == "online" else 2)
    if not isinstance(population, list) or not 5 <= len(population) <= 10_000:
        raise fail("population", "must be null or a list of 5 to 10000 vectors")
    for row in population:
        if not isinstance(row, list) or len(row) != width or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in row):
            raise fail("population", f"every vector must hold {width} finite numbers")
    return population


def checked_history(history: Any, best: float, fail: Callable[[str, str], Exception]) -> list[list[float]]:
    """``(wall time, best, nfev)`` points; points above the recomputed best are dropped."""
    if not isinstance(history, list):
        raise fail("history", "must be a list of [wall time, best, nfev]")
    points = []
    for point in history:
        if not isinstance(point, list) or len(point) != 3 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in point):
            raise fail("history", f"every point must be [wall time, best, nfev] of finite numbers, got {point!r}")
        if point[1] <= best * (1 + 1e-12):
            points.append(point)
    return points
