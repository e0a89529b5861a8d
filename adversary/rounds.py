"""Rounds of independent restarts with elite exchange: the hunt cut into deterministic jobs.

A time-limited search is not reproducible (how far it gets depends on the machine), so it
cannot be spread over workers and still give one answer. Here a hunt is ``R`` *rounds* of
``K`` *restarts*; each restart is an annealer (:func:`~geosched.adversary.search.anneal` or
:func:`~geosched.adversary.structured.structured_search`) stopped after ``E`` evaluations, with
its cooling cycle measured in iterations (``cycle_evals``), so a restart is a pure function
of its job tuple:

* restart ``j`` of round ``r`` draws from ``SeedSequence(seed, spawn_key=(r, j))``;
* in round 0 every restart starts at random; in round ``r > 0`` an even ``j`` starts from
  member ``j/2 mod |elite|`` of the previous round's elite, an odd ``j`` at random
  (exploration);
* a round's elite is the best :data:`ELITE_SIZE` distinct points over its restarts, taken in
  restart order (equal scores: the earlier restart first).

The jobs of a round go to a :mod:`geosched.executor` executor together and are merged in
restart order, so serial, ``local:N`` and ``tcp://`` runs return the same elite; after each
round the caller's ``save`` receives the JSON-able state (a killed client resumes there).

Example
-------
>>> from geosched.adversary.search import SearchSpace
>>> run = run_rounds(SearchSpace("sjf", max_requests=5, memory=12), "anneal", rounds=2, restarts=2,
...                  evals=60, seed=1)
>>> run.nfev, run.state["rounds_done"], run.fun >= 1.0
(240, 2, True)
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geosched.adversary.options import HuntOptions, SearchOptions
from geosched.adversary.search import Candidate, SearchSpace, anneal, fitness
from geosched.adversary.structured import Description, score_description, structured_search
from geosched.errors import ValidationError, WorkloadFormatError
from geosched.executor import using_executor

__all__ = ["ROUND_METHODS", "ELITE_SIZE", "RoundsRun", "run_rounds", "restart_job", "checked_rounds_state"]

ROUND_METHODS = ("anneal", "structured")
ELITE_SIZE = 5


@dataclass
class RoundsRun:
    """What the rounds found: the fields of a :class:`~geosched.adversary.search.SearchResult` that the
    hunt's certification and progress files read."""

    elite: list[Candidate]
    fun: float
    nfev: int
    nit: int
    wall_time: float
    history: list[tuple[float, float, int]]
    state: dict[str, Any] = field(default_factory=dict)
    status: str = "max_evaluations"
    message: str = ""

    @property
    def evaluations_per_second(self) -> float:
        return self.nfev / self.wall_time if self.wall_time > 0 else 0.0


def restart_job(job: tuple) -> dict[str, Any]:
    """One restart, a pure function of ``(space, method, seed, round, restart, evals, start, options)``.

    ``start`` is a point of the previous elite (a candidate dict for ``anneal``, a description
    list for ``structured``) or None (random); ``options`` the hunt's
    :class:`~geosched.adversary.options.SearchOptions` (the restart reads ``t_start``, ``t_end``,
    ``max_groups`` and ``ties`` of it, and sets its own stop: ``evals`` evaluations, cooling
    cycles of ``evals // 4``). Returns its elite as ``[score, point]`` pairs, best first, and
    its evaluation counts.
    """
    space, method, seed, round_index, restart, evals, start, options = job
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(round_index, restart)))
    restart_options = _restart_options(options, evals)
    if method == "anneal":
        res = anneal(space, restart_options, rng=rng, initial=Candidate.from_dict(start) if start is not None else None)
        elite = [[c.score, c.to_dict()] for c in res.elite]
    else:
        res = structured_search(space, restart_options, rng=rng,
                                initial=Description.from_list(start) if start is not None else None)
        elite = [[float(score), d] for score, d in res.state["elite"]]
    return {"elite": elite, "nfev": res.nfev, "nit": res.nit, "best": res.fun}


# what a restart reads of the hunt's search options; the rest is set by the restart itself
_RESTART_SETTINGS = ("t_start", "t_end", "max_groups", "ties", "proposals")


def _restart_options(options: SearchOptions | str | None, evals: int) -> SearchOptions:
    """A restart's settings: ``evals`` evaluations without a time limit, cycles of ``evals // 4``."""
    if options is None or isinstance(options, str):  # a job of the earlier form: its last entry was ``ties``
        options = SearchOptions(ties=options or "given")
    kept = {name: getattr(options, name) for name in _RESTART_SETTINGS}
    return SearchOptions(time_limit=math.inf, max_evals=evals, cycle_evals=max(1, evals // 4), **kept)


def _merge_elite(parts: list[dict[str, Any]]) -> list[list]:
    """The best distinct points over the restarts, in restart order for equal scores."""
    merged: list[list] = []
    seen: set[str] = set()
    for part in parts:
        for score, point in part["elite"]:
            key = json.dumps([point["a"], point["s"], point["o"]] if isinstance(point, dict) else point)
            if key not in seen:
                seen.add(key)
                merged.append([score, point])
    merged.sort(key=lambda item: -item[0])  # stable: ties keep restart order
    return merged[:ELITE_SIZE]


def _check(method: str, rounds: int, restarts: int, evals: int, seed: Any) -> None:
    if method not in ROUND_METHODS:
        raise ValidationError("--method", method, f"rounds of restarts (--rounds) run {' or '.join(ROUND_METHODS)}")
    for name, value in (("--rounds", rounds), ("--restarts", restarts), ("--evals", evals)):
        if not isinstance(value, int) or value < 1:
            raise ValidationError(name, value, "must be an integer >= 1")
    if not isinstance(seed, int) or seed < 0:
        raise ValidationError("--seed", seed, "rounds of restarts need an integer seed >= 0 (they are reproducible)")


def _candidates(space: SearchSpace, method: str, elite: list[list], ties: str) -> list[Candidate]:
    if method == "anneal":
        return [Candidate.from_dict(point) for _, point in elite]
    out = []
    for _, point in elite:
        description = Description.from_list(point)
        cand = score_description(space, description, ties)
        cand.note = description.describe()
        out.append(cand)
    return out


def run_rounds(space: SearchSpace, method: str | None = None, *, options: HuntOptions | None = None,
               executor: Any = None, state: dict[str, Any] | None = None, save: Any = None,
               **settings: Any) -> RoundsRun:
    """``rounds`` rounds of ``restarts`` restarts of ``evals`` evaluations each (module docstring).

    Parameters
    ----------
    space : SearchSpace
        What is searched.
    method : {"anneal", "structured"}
        The annealer each restart runs (``options.method`` when not given).
    options : HuntOptions, optional
        The settings below as one object (:class:`~geosched.adversary.options.HuntOptions`);
        keywords override its fields.
    executor : concurrent.futures.Executor or str, optional
        Where the restarts run (:func:`geosched.executor.make_executor` spec, default serial).
    state, save : optional
        ``state`` continues an earlier run (``RoundsRun.state``); ``save(state)`` is called
        after every round.
    **settings
        ``rounds``, ``restarts``, ``evals`` (int): the budget, ``rounds * restarts * evals``
        evaluations in all (a few more: each restart's first point). ``seed`` (int): seed of
        every restart. ``ties``, ``t_start``, ``t_end``, ``max_groups``: the restarts' search
        settings (:class:`~geosched.adversary.options.SearchOptions`).

    Returns
    -------
    RoundsRun
        The final elite (best first), counts, the best score after each round in ``history``.

    Raises
    ------
    ValidationError
        For a method without restarts, a budget below 1, a seed that is not an integer, or a
        ``state`` made with other settings.
    """
    if method is not None:
        settings["method"] = method
    opts = HuntOptions.from_keywords(options, function="run_rounds", **settings)
    method, rounds, restarts, evals, seed = opts.method, opts.rounds, opts.restarts, opts.evals, opts.seed
    _check(method, rounds, restarts, evals, seed)
    config = _config(space, opts)
    if state and state.get("config") != config:
        raise ValidationError("--resume", state.get("config"), f"the checkpoint's rounds were run with other settings "
                              f"than {config}")
    fresh = {"kind": "rounds", "config": config, "rounds_done": 0, "elite": [], "nfev": 0, "nit": 0,
             "wall_time": 0.0, "history": []}
    state = json.loads(json.dumps(state)) if state else fresh  # a copy: the caller's dict stays as it was
    t0, base = time.perf_counter(), state["wall_time"]
    with using_executor(executor) as pool:
        for r in range(state["rounds_done"], rounds):
            elite = state["elite"]
            starts = [elite[(j // 2) % len(elite)][1] if elite and j % 2 == 0 else None for j in range(restarts)]
            jobs = [(space, method, seed, r, j, evals, starts[j], opts.search) for j in range(restarts)]
            parts = list(pool.map(restart_job, jobs))
            state["elite"] = _merge_elite(parts + [{"elite": elite}])
            state["nfev"] += sum(p["nfev"] for p in parts)
            state["nit"] += sum(p["nit"] for p in parts)
            state["rounds_done"] = r + 1
            state["wall_time"] = base + time.perf_counter() - t0
            state["history"].append([state["wall_time"], state["elite"][0][0], state["nfev"]])
            if save is not None:
                save(state)
    best = state["elite"][0][0] if state["elite"] else float("nan")
    return RoundsRun(elite=_candidates(space, method, state["elite"], opts.search.ties), fun=best,
                     nfev=state["nfev"], nit=state["nit"], wall_time=state["wall_time"],
                     history=[tuple(h) for h in state["history"]], state=state,
                     message=f"{state['rounds_done']} rounds of {restarts} {method} restarts of {evals} evaluations")


def _config(space: SearchSpace, options: HuntOptions) -> dict[str, Any]:
    """The settings a rounds state is made with (a resume must keep them). The restarts' search
    settings other than ``ties`` are recorded under ``search`` only where they differ from the
    defaults, so a state saved before they could be set resumes."""
    search, default = options.search, SearchOptions()
    config = {"method": options.method, "rounds": options.rounds, "restarts": options.restarts,
              "evals": options.evals, "seed": options.seed, "ties": search.ties, "space": space.to_dict()}
    changed = {name: getattr(search, name) for name in _RESTART_SETTINGS
               if name != "ties" and getattr(search, name) != getattr(default, name)}
    if changed:
        config["search"] = changed
    return config


_STATE_KEYS = {"kind", "config", "rounds_done", "elite", "nfev", "nit", "wall_time", "history"}


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _rescored(space: SearchSpace, method: str, point: Any, where: str) -> list:
    """``[recomputed score, point]`` for a saved elite point, which must be a point of ``space``."""
    if method == "structured":
        try:
            description = Description.from_list(point)
            return [float(score_description(space, description).score), description.to_list()]
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise WorkloadFormatError(f"{where}: elite: not a structured description ({exc})") from None
    columns = [point.get(key) if isinstance(point, dict) else None for key in ("a", "s", "o")]
    if not all(isinstance(c, list) and all(_is_count(v) for v in c) for c in columns) \
            or not 1 <= len(columns[2]) <= space.max_requests or len({len(c) for c in columns}) != 1:
        raise WorkloadFormatError(f"{where}: elite: every point must hold lists a, s, o of 1 to "
                                  f"{space.max_requests} integers >= 0")
    a, s, o = columns
    if any(x > space.arrival_max for x in a) or any(not 1 <= y <= space.peak_max - p for p, y in zip(s, o)):
        raise WorkloadFormatError(f"{where}: elite: a point is not an instance of the search space "
                                  f"(peaks <= {space.peak_max}, arrivals <= {space.arrival_max})")
    candidate = Candidate(np.array(a, np.int64), np.array(s, np.int64), np.array(o, np.int64))
    fitness(space, candidate)  # the saved score is not trusted
    return [candidate.score, candidate.to_dict()]


def checked_rounds_state(space: SearchSpace, state: Any, where: str) -> dict[str, Any]:
    """A saved rounds state (a hunt checkpoint's ``methods.<m>``), every field checked and every
    elite score recomputed (a forged score is never reported); the settings are compared with
    the resumed run's by :func:`run_rounds`.

    Raises
    ------
    WorkloadFormatError
        Naming the field, when the state is malformed.
    """
    if not isinstance(state, dict) or set(state) != _STATE_KEYS or state["kind"] != "rounds":
        raise WorkloadFormatError(f"{where}: expected a rounds state with exactly {', '.join(sorted(_STATE_KEYS))}")
    config = state["config"]
    if not isinstance(config, dict) or config.get("method") not in ROUND_METHODS:
        raise WorkloadFormatError(f"{where}: config: must name a method among {', '.join(ROUND_METHODS)}")
    for name in ("rounds_done", "nfev", "nit"):
        if not _is_count(state[name]):
            raise WorkloadFormatError(f"{where}: {name}: must be an integer >= 0, got {state[name]!r}")
    if not _is_number(state["wall_time"]) or state["wall_time"] < 0:
        raise WorkloadFormatError(f"{where}: wall_time: must be a finite number >= 0, got {state['wall_time']!r}")
    elite = state["elite"]
    if not isinstance(elite, list) or len(elite) > ELITE_SIZE or not all(
            isinstance(item, list) and len(item) == 2 for item in elite) or (state["rounds_done"] > 0) != bool(elite):
        raise WorkloadFormatError(f"{where}: elite: must be a list of at most {ELITE_SIZE} [score, point] pairs, "
                                  "empty exactly when no round is done")
    rescored = sorted((_rescored(space, config["method"], point, where) for _, point in elite), key=lambda e: -e[0])
    history = state["history"]
    if not isinstance(history, list) or not all(
            isinstance(row, list) and len(row) == 3 and all(_is_number(v) for v in row) for row in history):
        raise WorkloadFormatError(f"{where}: history: must be a list of [wall time, best, evaluations]")
    best = rescored[0][0] if rescored else -math.inf
    return {**state, "elite": rescored, "history": [row for row in history if row[1] <= best * (1 + 1e-12)]}
