"""Structured search: worst cases described by a few groups, evaluated at hundreds or thousands of requests.

The black-box searches of :mod:`geosched.adversary.search` mutate requests one at a time, so
they stall at a few dozen requests, while the bad instances of the papers are *large and
regular*: the SJF family of Kong et al. (arXiv 2606.22327, the claim that SJF's ratio is
unbounded) is two groups of identical requests. Here one point of the search is a
:class:`Description`: the memory ``M`` and up to ``G`` :class:`Group` s, each

.. math::  (c, s, o, a, \\delta_s, \\delta_o, \\delta_a): \\quad
           \\text{request } j = 0..c-1 \\text{ is } (a + j\\delta_a,\\ s + j\\delta_s,\\ o + j\\delta_o),

identical requests when every step is 0, an arithmetic progression otherwise (each value
clipped into the space: ``1 <= o <= P``, ``0 <= s <= P - o``, ``0 <= a <= A``, with
``P = floor(alpha_max M)``). Groups are laid out in order, so the group order is the tie
order between equal keys (ties go by arrival, then position).

Each description is expanded and evaluated by the compiled evaluator
(:mod:`geosched.adversary.fast`, on the compiled kernel) or, for vLLM targets,
the vLLM-semantics model (:mod:`geosched.adversary.targets`), against the cheap certified pool
(:func:`geosched.adversary.schedules.heuristic_pool_tel`): every score is already a certified
ratio. :func:`structured_search` anneals over descriptions (change a count, a length, an
arrival or a step; push a length to an extreme; add, drop, split or swap groups; for SVF on
bursts, replace a group by one of the single groups the fluid analysis ranks worst,
:func:`fluid_proposals` from :mod:`geosched.adversary.fluid`), with
cyclic cooling and restarts from the best or a random description (with ``proposals=True``, also
from and to the k-group families of :func:`proposal_descriptions`, issue 25 item 2), scipy-style
(:class:`~geosched.adversary.search.SearchResult`, ``rng=``, ``callback``, resumable ``state``).
The hunt re-scores the elite with :func:`~geosched.adversary.hunt.certify` (several
constructive schedules and local search, re-checked by the checker).

Example
-------
>>> from geosched.adversary.search import SearchSpace
>>> d = Description((Group(4, 5, 1), Group(16, 0, 2)))
>>> [len(v) for v in d.expand(SearchSpace("sjf", max_requests=20, memory=12, alpha_max=0.5))]
[20, 20, 20]
>>> result = structured_search(SearchSpace("sjf", max_requests=40, memory=24), time_limit=1.0, rng=0)
>>> result.fun >= 1.0, result.method
(True, 'structured')
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from geosched.adversary.options import STRUCTURED_SETTINGS, TIES, SearchOptions
from geosched.adversary.proposals import MAX_PROPOSAL_MEMORY, ProposalSettings, propose_families
from geosched.adversary.schedules import heuristic_pool_tel
from geosched.adversary.search import (
    Candidate,
    SearchResult,
    SearchSpace,
    candidate_to_instance,
    check_state_counts,
    checked_history,
    enforce_band,
)
from geosched.adversary.targets import get_target
from geosched.errors import ValidationError, WorkloadFormatError

__all__ = [
    "Group",
    "Description",
    "STRUCTURED_MUTATIONS",
    "fluid_proposals",
    "proposal_descriptions",
    "random_description",
    "mutate_description",
    "score_description",
    "structured_search",
    "checked_structured_state",
    "TIES",
]


@dataclass(frozen=True)
class Group:
    """``count`` requests ``(arrival + j*arrival_step, prompt + j*prompt_step, output + j*output_step)``."""

    count: int  # requests in the group (>= 1)
    prompt: int  # s of the first request
    output: int  # o of the first request
    arrival: int = 0  # a of the first request
    prompt_step: int = 0  # progression of s (0: identical prompts)
    output_step: int = 0  # progression of o
    arrival_step: int = 0  # progression of a

    def to_list(self) -> list[int]:
        return [self.count, self.prompt, self.output, self.arrival, self.prompt_step, self.output_step,
                self.arrival_step]

    def describe(self) -> str:
        def term(base: int, step: int) -> str:
            return str(base) if step == 0 else f"{base}{step:+d}j"

        text = f"{self.count}x(s={term(self.prompt, self.prompt_step)}, o={term(self.output, self.output_step)}"
        if self.arrival or self.arrival_step:
            text += f", a={term(self.arrival, self.arrival_step)}"
        return text + ")"


@dataclass(frozen=True)
class Description:
    """A workload as a few groups, laid out in order (the space gives ``M``)."""

    groups: tuple[Group, ...]

    @property
    def n(self) -> int:
        return sum(g.count for g in self.groups)

    def expand(self, space: SearchSpace) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Arrays ``(a, s, o)`` of the instance, every value clipped into ``space``."""
        p, cap = space.peak_max, space.arrival_max
        parts = []
        for g in self.groups:
            j = np.arange(g.count, dtype=np.int64)
            o = np.clip(g.output + j * g.output_step, 1, p)
            s = np.clip(g.prompt + j * g.prompt_step, 0, p - o)
            a = np.clip(g.arrival + j * g.arrival_step, 0, cap)
            parts.append((a, s, o))
        a, s, o = (np.concatenate([part[k] for part in parts]).astype(np.int64) for k in range(3))
        band = enforce_band(space, Candidate(a, s, o))  # some peak reaches the band's floor (alpha_min)
        return band.a, band.s, band.o

    def describe(self) -> str:
        return " + ".join(g.describe() for g in self.groups)

    def to_list(self) -> list[list[int]]:
        return [g.to_list() for g in self.groups]

    @classmethod
    def from_list(cls, data: list[list[int]]) -> Description:
        return cls(tuple(Group(*[int(v) for v in row]) for row in data))


def _random_group(space: SearchSpace, rng: np.random.Generator, count_max: int) -> Group:
    p = space.peak_max
    # lengths log-uniform in [1, P]: every scale is as likely (and short requests, where the
    # papers' bad cases live, are not drowned out by the many long ones)
    o = int(np.clip(round(math.exp(rng.uniform(0, math.log(p + 1)))), 1, p))
    s = int(np.clip(round(math.exp(rng.uniform(0, math.log(p - o + 2)))) - 1, 0, p - o))
    a = int(rng.integers(0, space.arrival_max + 1))
    steps = [int(rng.integers(-2, 3)) if rng.random() < 0.3 else 0 for _ in range(3)]
    if space.arrivals == "burst":
        steps[2] = 0
    return Group(int(rng.integers(1, max(1, count_max) + 1)), s, o, a, *steps)


def random_description(space: SearchSpace, rng: np.random.Generator, max_groups: int = 4) -> Description:
    """1 to ``max_groups`` random groups sharing at most ``space.max_requests`` requests."""
    count = int(rng.integers(1, max_groups + 1))
    share = max(1, space.max_requests // count)
    return Description(tuple(_random_group(space, rng, share) for _ in range(count)))


STRUCTURED_MUTATIONS = ("count", "prompt", "output", "arrival", "step", "extreme", "add", "drop", "split", "swap",
                        "fluid")
FLUID_PROPOSALS = 5  # the "fluid" mutation draws among this many best single groups of the fluid analysis
FLUID_MEMORY_MAX = 1000  # above this M the proposals' cycle detection costs more than it brings
_FLUID_CACHE: dict[tuple[int, int], list[tuple[int, int]]] = {}


def fluid_proposals(space: SearchSpace) -> list[tuple[int, int]]:
    """The single groups ``(0, o)`` whose fluid limit of SVF over the paced witness,
    ``(1/theta)/d`` (:func:`geosched.adversary.fluid.svf_cycle_rate`, :func:`~geosched.adversary.fluid.witness_pace`),
    is largest in this space, best first; cached per ``(M, P)``. Only for ``svf`` on bursts with
    ``M <= FLUID_MEMORY_MAX``, where the analysis applies and is cheap (otherwise empty)."""
    from geosched.adversary.fluid import svf_cycle_rate, witness_pace

    key = (space.memory, space.peak_max)
    if space.policy != "svf" or space.arrivals != "burst" or space.memory > FLUID_MEMORY_MAX \
            or 2 * space.peak_max > space.memory:
        return []
    if key not in _FLUID_CACHE:
        scored = [(1 / (svf_cycle_rate(0, o, space.memory) * witness_pace(0, o, space.memory, max_denominator=4)), o)
                  for o in range(1, space.peak_max + 1)]
        scored.sort(key=lambda item: (-item[0], item[1]))
        _FLUID_CACHE[key] = [(0, o) for _, o in scored[:FLUID_PROPOSALS]]
    return _FLUID_CACHE[key]


PROPOSAL_RATE = 0.05  # with options.proposals: the share of moves that jump to a family proposal
PROPOSAL_SHARE = 0.5  # ... and of the random starts and restarts that are one
# the shares need not be maximised finely to start a search: 4-5x faster than the default (measured at M = 20, 60)
PROPOSAL_SETTINGS = ProposalSettings(eps=1e-2, max_boxes=300)
_PROPOSAL_CACHE: dict[tuple[int, ...], list[Description]] = {}
_PROPOSAL_CACHE_SIZE = 64


def _fitted(rows: Any, n: int) -> list[list[int]]:
    """``rows`` with at most ``n`` requests in all: the largest group gives up the excess (rounding
    ``gamma_j n`` may overshoot ``n`` by a few), single requests at the end go when nothing else can."""
    rows = [list(row) for row in rows]
    excess = sum(row[0] for row in rows) - n
    while excess > 0:
        big = max(range(len(rows)), key=lambda k: (rows[k][0], -k))
        if rows[big][0] > 1:
            cut = min(excess, rows[big][0] - 1)
            rows[big][0] -= cut
            excess -= cut
        else:
            excess -= rows.pop()[0]
    return rows


def proposal_descriptions(space: SearchSpace, proposal_seed: int, max_groups: int = 4) -> list[Description]:
    """The family proposals of :func:`geosched.adversary.proposals.propose_families` for this space as
    descriptions (at most ``space.max_requests`` requests each; staggered variants for online
    arrivals), drawn with ``np.random.default_rng(proposal_seed)`` and cached per
    ``(M, P, n, arrivals, max_groups, proposal_seed)``. Empty where the proposals do not apply
    (``M > MAX_PROPOSAL_MEMORY``).

    The proposals are families of SVF's fluid analysis (Kong, Qi, Ye, Zhou, arXiv 2606.22327,
    Prop. 3.1, Thm. 3.2); for any target they are points of the space, scored like every other.

    Examples
    --------
    >>> ds = proposal_descriptions(SearchSpace("svf", max_requests=40, memory=20), 7, max_groups=2)
    >>> len(ds) >= 1 and all(d.n <= 40 for d in ds)
    True
    """
    if space.memory > MAX_PROPOSAL_MEMORY or space.memory < 4:
        return []
    groups = min(4, max_groups)
    key = (space.memory, space.peak_max, space.max_requests, int(space.arrivals == "online"), groups, proposal_seed)
    if key not in _PROPOSAL_CACHE:
        if len(_PROPOSAL_CACHE) >= _PROPOSAL_CACHE_SIZE:
            _PROPOSAL_CACHE.clear()
        found = propose_families(space.memory, space.peak_max, n=space.max_requests,
                                 rng=np.random.default_rng(proposal_seed), max_groups=groups,
                                 stagger=space.arrivals == "online", settings=PROPOSAL_SETTINGS)
        _PROPOSAL_CACHE[key] = [Description.from_list(_fitted(p.rows, space.max_requests)) for p in found]
    return _PROPOSAL_CACHE[key]


def _nudge(value: int, rng: np.random.Generator, scale: int) -> int:
    step = int(rng.choice([1, 1, 2, 3, max(1, scale // 8), max(1, scale // 3)]))
    return value + step * int(rng.choice([-1, 1]))


def _mutate_group(g: Group, kind: str, space: SearchSpace, rng: np.random.Generator, room: int) -> Group:
    """One change to one group (``room``: requests that may still be added)."""
    p = space.peak_max
    if kind == "count":
        factor = float(rng.choice([0.5, 0.7, 0.9, 1.1, 1.4, 2.0]))
        new = int(round(g.count * factor)) if rng.random() < 0.5 else _nudge(g.count, rng, g.count)
        return replace(g, count=int(np.clip(new, 1, g.count + room)))
    if kind == "prompt":
        return replace(g, prompt=int(np.clip(_nudge(g.prompt, rng, p), 0, p - 1)))
    if kind == "output":
        return replace(g, output=int(np.clip(_nudge(g.output, rng, p), 1, p)))
    if kind == "arrival":
        return replace(g, arrival=int(np.clip(_nudge(g.arrival, rng, space.arrival_max), 0, space.arrival_max)))
    if kind == "step":
        which = ["prompt_step", "output_step"] + (["arrival_step"] if space.arrivals == "online" else [])
        name = which[int(rng.integers(len(which)))]
        return replace(g, **{name: 0 if rng.random() < 0.4 else int(rng.integers(-3, 4))})
    choice = int(rng.integers(4))  # "extreme": the corners where the papers' bad cases live
    if choice == 0:
        return replace(g, prompt=max(0, p - g.output), prompt_step=0)
    if choice == 1:
        return replace(g, prompt=0, prompt_step=0)
    if choice == 2:
        return replace(g, output=1, output_step=0)
    return replace(g, output=max(1, p - g.prompt), output_step=0)


def mutate_description(space: SearchSpace, d: Description, rng: np.random.Generator,
                       max_groups: int = 4) -> tuple[Description, str]:
    """One random change (:data:`STRUCTURED_MUTATIONS`); the total stays ``<= space.max_requests``."""
    groups = list(d.groups)
    room = max(0, space.max_requests - d.n)
    kinds = [k for k in STRUCTURED_MUTATIONS if not (k == "arrival" and space.arrivals == "burst")
             and not (k == "fluid" and not fluid_proposals(space))]
    kind = kinds[int(rng.integers(len(kinds)))]
    i = int(rng.integers(len(groups)))
    if kind == "add" and len(groups) < max_groups and room > 0:
        groups.insert(int(rng.integers(len(groups) + 1)), _random_group(space, rng, room))
    elif kind == "drop" and len(groups) > 1:
        del groups[i]
    elif kind == "split" and groups[i].count > 1 and len(groups) < max_groups:
        first = int(rng.integers(1, groups[i].count))
        groups[i:i + 1] = [replace(groups[i], count=first), replace(groups[i], count=groups[i].count - first)]
    elif kind == "swap" and len(groups) > 1:
        j = int(rng.integers(len(groups)))
        groups[i], groups[j] = groups[j], groups[i]
    elif kind == "fluid" and fluid_proposals(space):
        s, o = fluid_proposals(space)[int(rng.integers(len(fluid_proposals(space))))]
        groups[i] = Group(groups[i].count + room, s, o)  # a proposal of the fluid analysis, with every free slot
    elif kind in ("count", "prompt", "output", "arrival", "step", "extreme"):
        groups[i] = _mutate_group(groups[i], kind, space, rng, room)
    else:
        groups[i] = _mutate_group(groups[i], "count", space, rng, room)
    return Description(tuple(groups)), kind


def score_description(space: SearchSpace, d: Description, ties: str = "given") -> Candidate:
    """The expanded instance with its certified score ``TEL(target) / min TEL(pool)``.

    ``ties="robust"`` scores ``min(TEL, TEL with the tie order reversed) / min TEL(pool)``:
    only what holds under both orders of equal keys counts (see :mod:`geosched.adversary.targets`).
    """
    a, s, o = d.expand(space)
    target = get_target(space.policy)
    tel = target.array_tel(a, s, o, space.memory, space.block_size)
    if ties == "robust":  # reversed arrays: positions (and the ids_for(n) id order) reversed
        tel = min(tel, target.array_tel(a[::-1].copy(), s[::-1].copy(), o[::-1].copy(), space.memory,
                                        space.block_size))
    pool, _, _ = heuristic_pool_tel(a, s, o, space.memory)
    return Candidate(a, s, o, tel / pool, tel, pool)


class _Elite:
    """The best distinct descriptions, best first."""

    def __init__(self, size: int = 5, items: list[tuple[float, Description]] | None = None) -> None:
        self.size = size
        self.items = list(items or [])

    def offer(self, score: float, d: Description) -> None:
        if any(other == d for _, other in self.items):
            return
        self.items.append((score, d))
        self.items.sort(key=lambda item: -item[0])
        del self.items[self.size:]


@dataclass
class _Walk:
    """The annealer's mutable state (JSON-able through :meth:`state`)."""

    current: Description
    current_score: float
    best: Description
    best_score: float
    elite: _Elite
    history: list[tuple[float, float, int]]
    nfev: int = 0
    nit: int = 0
    base_time: float = 0.0
    proposal_seed: int | None = None  # with options.proposals: the seed of the family proposals (from the rng)
    proposal_counts: list[int] | None = None  # with options.proposals: [jumps and starts tried, accepted]

    def state(self, gen: np.random.Generator, elapsed: float, seed: int | None,
              options: SearchOptions) -> dict[str, Any]:
        out = {"rng": gen.bit_generator.state, "wall_time": elapsed, "nfev": self.nfev, "nit": self.nit,
               "history": self.history, "current": [self.current_score, self.current.to_list()],
               "best": [self.best_score, self.best.to_list()],
               "elite": [[score, d.to_list()] for score, d in self.elite.items], "seed": seed,
               "max_groups": options.max_groups, "ties": options.ties}
        if self.proposal_seed is not None:  # only with proposals: the default state is as before
            out.update(proposal_seed=self.proposal_seed, proposal_counts=list(self.proposal_counts or [0, 0]))
        return out

    @classmethod
    def restore(cls, state: dict[str, Any], gen: np.random.Generator) -> _Walk:
        gen.bit_generator.state = state["rng"]
        elite = _Elite(items=[(float(score), Description.from_list(d)) for score, d in state["elite"]])
        walk = cls(Description.from_list(state["current"][1]), float(state["current"][0]),
                   Description.from_list(state["best"][1]), float(state["best"][0]), elite,
                   [tuple(h) for h in state["history"]], int(state["nfev"]), int(state["nit"]),
                   float(state["wall_time"]))
        if state.get("proposal_seed") is not None:
            walk.proposal_seed = int(state["proposal_seed"])
            walk.proposal_counts = [int(v) for v in state.get("proposal_counts", [0, 0])]
        return walk


def _random_start(space: SearchSpace, walk: _Walk | None, gen: np.random.Generator,
                  options: SearchOptions) -> tuple[Description, bool]:
    """A random description, or with ``options.proposals`` (a share :data:`PROPOSAL_SHARE`) a proposal;
    True when it is one."""
    if options.proposals and walk is not None and gen.random() < PROPOSAL_SHARE:
        proposal = _draw_proposal(space, walk, gen, options.max_groups)
        if proposal is not None:
            return proposal, True
    return random_description(space, gen, options.max_groups), False


def _draw_proposal(space: SearchSpace, walk: _Walk, gen: np.random.Generator, max_groups: int) -> Description | None:
    found = proposal_descriptions(space, walk.proposal_seed, max_groups)
    if not found:
        return None
    walk.proposal_counts[0] += 1
    return found[int(gen.integers(len(found)))]


def _start(space: SearchSpace, gen: np.random.Generator, options: SearchOptions,
           initial: Description | None) -> _Walk:
    empty = Description((Group(1, 0, 1),))
    walk = _Walk(empty, 0.0, empty, 0.0, _Elite(), [], nfev=1)
    if options.proposals:
        walk.proposal_seed, walk.proposal_counts = int(gen.integers(2**32)), [0, 0]
    d, from_proposal = (initial, False) if initial is not None else _random_start(space, walk, gen, options)
    score = score_description(space, d, options.ties).score
    if from_proposal:
        walk.proposal_counts[1] += 1
    walk.current = walk.best = d
    walk.current_score = walk.best_score = score
    walk.elite.offer(score, d)
    walk.history.append((0.0, score, 1))
    return walk


def _elite_candidates(space: SearchSpace, walk: _Walk, ties: str) -> list[Candidate]:
    out = []
    for _, d in walk.elite.items:
        cand = score_description(space, d, ties)
        cand.note = d.describe()
        out.append(cand)
    return out


def structured_search(
    space: SearchSpace,
    options: SearchOptions | None = None,
    *,
    rng: Any = None,
    callback: Callable[[SearchResult], bool | None] | None = None,
    initial: Description | None = None,
    state: dict[str, Any] | None = None,
    **settings: Any,
) -> SearchResult:
    """Simulated annealing on ``log(certified ratio)`` over :class:`Description` s.

    Parameters
    ----------
    space : SearchSpace
        Target, memory ``M``, at most ``max_requests`` requests, ``alpha_max``, arrivals.
    options : SearchOptions, optional
        The settings below as one object (:class:`~geosched.adversary.options.SearchOptions`);
        keywords override its fields.
    rng : int, Generator or None
        Seed of every random choice.
    callback : callable, optional
        Called with a :class:`~geosched.adversary.search.SearchResult` about every
        ``callback_every`` seconds; returning True stops the search.
    initial : Description, optional
        Start here instead of at a random description.
    state : dict, optional
        ``result.state`` of an earlier call: the search resumes (counts, history, time).
    **settings
        Fields of :class:`~geosched.adversary.options.SearchOptions` this search reads
        (:data:`~geosched.adversary.options.STRUCTURED_SETTINGS`):

        ``time_limit`` (float): seconds of search in this call (a resumed ``state`` keeps its
        earlier time). ``max_evals``, ``target``: stop after this many evaluations, or once this
        certified ratio is reached. ``callback_every`` (float). ``max_groups`` (int): most groups
        in a description. ``ties`` (``"given"`` or ``"robust"``): ``"robust"`` scores the worse
        of the given and the reversed tie order (a ratio that survives any order of equal keys
        between the two); ``"given"``: the instance's order. ``t_start``, ``t_end``,
        ``cycle_seconds``: the temperature falls geometrically from ``t_start`` to ``t_end``
        over each cycle; a new cycle restarts from the best description (two times in three)
        or a random one. ``cycle_evals`` (int): the cycle in iterations instead of seconds: with
        ``max_evals`` and an infinite ``time_limit`` the search is a function of ``rng`` alone
        (:mod:`geosched.adversary.rounds`). ``proposals`` (bool, default False): a share
        :data:`PROPOSAL_SHARE` of the random starts and restarts, and :data:`PROPOSAL_RATE` of the
        moves, are family proposals of the fluid analysis (:func:`proposal_descriptions`; their seed
        is drawn from ``rng`` and kept in ``state``); the message counts them.

    Returns
    -------
    SearchResult
        ``x`` the best instance, ``fun`` its certified ratio, ``elite`` the best distinct
        expanded instances (each with its description in ``note``), ``method`` ``"structured"``.

    Raises
    ------
    ValidationError
        For a bad setting (``max_groups < 1``, an unknown ``ties``, ...), naming it.

    Examples
    --------
    >>> r = structured_search(SearchSpace("sjf", max_requests=30, memory=20), time_limit=0.5, rng=1)
    >>> r.status, r.nfev > 1
    ('time_limit', True)
    """
    opts = SearchOptions.for_search(options, settings, STRUCTURED_SETTINGS, "structured_search")
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    seed = rng if isinstance(rng, int) else None
    walk = _Walk.restore(state, gen) if state else _start(space, gen, opts, initial)
    if state:  # a resumed search keeps its own settings
        seed = state.get("seed", seed)
        opts = opts.updated(max_groups=state.get("max_groups", opts.max_groups), ties=state.get("ties", opts.ties))
        if opts.proposals and walk.proposal_seed is None:  # proposals switched on at a resume
            walk.proposal_seed, walk.proposal_counts = int(gen.integers(2**32)), [0, 0]
    run = _Run(opts, seed, max(1e-3, min(opts.cycle_seconds, opts.time_limit)))
    t0 = time.perf_counter()
    status = _anneal_loop(space, walk, gen, t0, callback, run)
    elapsed = walk.base_time + time.perf_counter() - t0
    walk.history.append((elapsed, walk.best_score, walk.nfev))
    return _snapshot(space, walk, gen, status, elapsed, run, with_elite=True)


@dataclass(frozen=True)
class _Run:
    """What one call of :func:`structured_search` runs with: its settings, seed and cycle in seconds."""

    options: SearchOptions
    seed: int | None
    cycle: float


def _snapshot(space: SearchSpace, walk: _Walk, gen: np.random.Generator, status: str, elapsed: float,
              run: _Run, *, with_elite: bool) -> SearchResult:
    a, s, o = walk.best.expand(space)
    best = Candidate(a, s, o, walk.best_score)
    messages = {"time_limit": "time limit reached", "max_evaluations": "evaluation limit reached",
                "target_reached": "target ratio reached", "stopped_by_callback": "stopped by callback"}
    return SearchResult(
        x=candidate_to_instance(best, space.memory, space.block_size), fun=walk.best_score, status=status,
        message=f"{messages[status]}; best: {walk.best.describe()}{_proposal_note(walk)}", nfev=walk.nfev, nit=walk.nit,
        wall_time=elapsed, method="structured", seed=run.seed,
        elite=_elite_candidates(space, walk, run.options.ties) if with_elite else [], history=list(walk.history),
        state=walk.state(gen, elapsed, run.seed, run.options))


def _proposal_note(walk: _Walk) -> str:
    if walk.proposal_counts is None:
        return ""
    tried, accepted = walk.proposal_counts
    return f"; family proposals: {tried} drawn, {accepted} accepted"


def _anneal_loop(space: SearchSpace, walk: _Walk, gen: np.random.Generator, t0: float,
                 callback: Callable[[SearchResult], Any] | None, run: _Run) -> str:
    """Mutate, score, accept by the Metropolis rule; returns why it stopped."""
    opts = run.options
    time_limit, max_evals, target = opts.time_limit, opts.max_evals, opts.target
    t_start, t_end, cycle, cycle_evals = opts.t_start, opts.t_end, run.cycle, opts.cycle_evals
    max_groups, ties = opts.max_groups, opts.ties
    cycle_start = last_callback = t0
    cycle_start_it = walk.nit
    while True:
        now = time.perf_counter()
        if now - t0 >= time_limit:
            return "time_limit"
        if max_evals is not None and walk.nfev >= max_evals:
            return "max_evaluations"
        if target is not None and walk.best_score >= target:
            return "target_reached"
        frac = (walk.nit - cycle_start_it) / cycle_evals if cycle_evals else (now - cycle_start) / cycle
        if frac >= 1.0:
            cycle_start, cycle_start_it, frac = now, walk.nit, 0.0
            if gen.random() < 2 / 3:
                walk.current, walk.current_score = walk.best, walk.best_score
            else:
                walk.current, from_proposal = _random_start(space, walk, gen, opts)
                walk.current_score = score_description(space, walk.current, ties).score
                walk.nfev += 1
                if from_proposal:
                    walk.proposal_counts[1] += 1
        temperature = t_start * (t_end / t_start) ** frac
        trial = _draw_proposal(space, walk, gen, max_groups) \
            if opts.proposals and gen.random() < PROPOSAL_RATE else None
        jumped = trial is not None
        if trial is None:
            trial, _ = mutate_description(space, walk.current, gen, max_groups)
        score = score_description(space, trial, ties).score
        walk.nfev += 1
        walk.nit += 1
        delta = math.log(score) - math.log(walk.current_score)
        if delta >= 0 or gen.random() < math.exp(delta / temperature):
            walk.current, walk.current_score = trial, score
            if jumped:
                walk.proposal_counts[1] += 1
            if score > walk.best_score:
                walk.best, walk.best_score = trial, score
                walk.history.append((walk.base_time + now - t0, score, walk.nfev))
            walk.elite.offer(score, trial)
        if callback is not None and now - last_callback >= opts.callback_every:
            last_callback = now
            elapsed = walk.base_time + now - t0
            if callback(_snapshot(space, walk, gen, "time_limit", elapsed, run, with_elite=False)):
                return "stopped_by_callback"


_STATE_KEYS = ("rng", "wall_time", "nfev", "nit", "history", "current", "best", "elite", "seed", "max_groups", "ties")
_MAX_ELITE = 50  # a saved elite longer than this is not one this module wrote
_MAX_GROUP_VALUE = 10**9  # lengths, arrivals and steps beyond this are not points of any search space


def checked_structured_state(space: SearchSpace, state: Any, where: str) -> dict[str, Any]:
    """A saved :func:`structured_search` state (a hunt checkpoint's), every field checked and every
    score recomputed with :func:`score_description` (a forged score is never reported; history
    points above the recomputed best are dropped).

    Raises
    ------
    WorkloadFormatError
        Naming the field, when the state is malformed.
    """
    def fail(field_name: str, why: str) -> WorkloadFormatError:
        return WorkloadFormatError(f"{where}: structured state: {field_name}: {why}")

    check_state_counts(state, _STATE_KEYS, fail)
    try:
        settings = SearchOptions(max_groups=state["max_groups"], ties=state["ties"])
    except ValidationError as exc:
        raise fail(exc.field, f"{exc.requirement}, got {state[exc.field]!r}") from None
    _check_proposal_fields(state, fail)
    if not isinstance(state["elite"], list) or not 1 <= len(state["elite"]) <= _MAX_ELITE:
        raise fail("elite", f"must be a list of 1 to {_MAX_ELITE} [score, description] pairs")
    points = {"current": state["current"], "best": state["best"]}
    points.update({f"elite[{k}]": item for k, item in enumerate(state["elite"])})
    rescored = {name: _rescored_point(space, item, settings.ties, name, fail) for name, item in points.items()}
    best = max(score for score, _ in rescored.values())
    return {**state, "current": rescored["current"], "best": rescored["best"],
            "elite": sorted((rescored[f"elite[{k}]"] for k in range(len(state["elite"]))), key=lambda e: -e[0]),
            "history": checked_history(state["history"], best, fail)}


def _check_proposal_fields(state: dict[str, Any], fail: Callable[[str, str], Exception]) -> None:
    """The optional fields of a search with proposals: ``proposal_seed`` below 2**32, two counts."""
    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    seed = state.get("proposal_seed")
    if seed is not None and not (whole(seed) and seed < 2**32):
        raise fail("proposal_seed", f"must be an integer in [0, 2**32) or null, got {seed!r}")
    counts = state.get("proposal_counts")
    if seed is not None and not (isinstance(counts, list) and len(counts) == 2 and all(map(whole, counts))):
        raise fail("proposal_counts", f"must be two integers >= 0 (drawn, accepted), got {counts!r}")


def _rescored_point(space: SearchSpace, item: Any, ties: str, field_name: str,
                    fail: Callable[[str, str], Exception]) -> list:
    """``[recomputed score, description list]`` of a saved ``[score, description]`` pair."""
    if not isinstance(item, list) or len(item) != 2 or not isinstance(item[1], list) or not item[1]:
        raise fail(field_name, "must be [score, description] with a non-empty list of groups")
    for group in item[1]:
        if not isinstance(group, list) or len(group) != 7 or not all(
                isinstance(v, int) and not isinstance(v, bool) and abs(v) <= _MAX_GROUP_VALUE for v in group) \
                or group[0] < 1:
            raise fail(field_name, f"every group must be 7 integers of at most {_MAX_GROUP_VALUE} in size "
                                   f"(count >= 1, prompt, output, arrival, three steps), got {group!r}")
    description = Description.from_list(item[1])
    if description.n > space.max_requests:
        raise fail(field_name, f"holds {description.n} requests, more than the space's {space.max_requests}")
    return [float(score_description(space, description, ties).score), description.to_list()]
