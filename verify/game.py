"""Jaillet et al.'s Thm. 4.1 as a game: every deterministic online algorithm against an adaptive adversary.

Jaillet, Jiang, Mellou, Molinaro, Podimata, Zhou (arXiv 2502.07115), Thm. 4.1: no deterministic
online algorithm has a constant competitive ratio under adversarial arrivals (``Omega(sqrt n)``).
The adversary of :mod:`geosched.theory.jaillet_thm4_1` (our construction): memory
``M = K^2 (K + 1)``; a long request ``L = (a, s, o) = (0, M - K, K)``; ``K^2`` small requests
``(s, o) = (K, 1)`` released together at a step ``r`` the adversary picks *after* watching the
algorithm, or never.

**The game, solved exactly.** Before the small requests arrive, a deterministic online algorithm
has seen nothing but time passing, so all it can decide is the step ``d`` at which it starts
``L`` (``d = 0, 1, ...``, or never). After a release at ``r`` nothing else arrives, and we grant
the algorithm the best possible continuation (the optimal schedule of what is left, with ``L``
fixed at ``d`` if it has started), which can only lower its ratio. So

.. math::  V_K = \\min_{d} \\max\\Bigl(\\frac{d + K}{K},\\ \\max_{r \\ge 1}
           \\frac{\\mathrm{ALG}^*(d, r)}{\\mathrm{OPT}(r)}\\Bigr)

is a lower bound on the competitive ratio of *every* deterministic online algorithm (the first
term is the adversary never releasing). ``OPT(r)`` is computed by the exhaustive dynamic program
:func:`geosched.verify.exhaustive.dp_opt`, ``ALG*(d, r)`` by a dynamic program over the number of
small requests started at each step (below), and both schedules are re-checked by the
independent schedule checker. Steps ``d > D`` need not be enumerated: never releasing gives them
a ratio ``>= (D + 1 + K)/K``, which enters the minimum as a bound.

**Checked, not assumed** (:func:`verify_game`): every ``ALG*(d, r)`` the game uses is re-derived
by an independent exhaustive search over every way to start the small requests
(:func:`brute_continuation`: all compositions of ``K^2`` into per-step counts, the best feasible
one re-checked by the schedule checker), the never-release ratio ``(d + K)/K`` is recomputed
from the checker's TEL and ``dp_opt``, and each ``per_d`` entry must equal the adversary's best
reply to ``d`` recomputed from those. A continuation that is not the optimum (a doubled cost, an
infeasible shortcut) or an unsound never-release bound is a refutation of the row.

Example
-------
>>> result = solve_game(2)
>>> result.value >= 1, result.n
(True, 5)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.results import Result
from geosched.verify.exhaustive import dp_opt

__all__ = ["GameResult", "solve_game", "verify_game", "audit_game", "brute_continuation"]


@dataclass(frozen=True)
class GameResult(Result):
    """The value of the adversary game for one ``K`` (``status``: ``"completed"`` or ``"error"``)."""

    STATUSES = ("completed", "error")
    SUCCESS = ("completed",)

    status: str
    message: str  # one line
    wall_time: float  # seconds
    K: int  # size parameter
    n: int  # requests when the adversary releases: K^2 + 1
    value: float  # V_K: no deterministic online algorithm does better against this adversary
    value_fraction: str  # V_K exactly
    best_d: int | None  # an algorithm's start step for L attaining V_K (None: the bound for d > D)
    adversary_reply: str  # the adversary's answer to best_d: "never" or "release at r"
    per_d: list[dict[str, Any]] = field(default_factory=list)  # d -> the adversary's best ratio and reply
    rechecked: int = 0  # schedules re-checked by the schedule checker
    problems: list[str] = field(default_factory=list)  # schedules the checker rejected (a refutation)


def _instance(k: int, release: int | None) -> Instance:
    memory = k * k * (k + 1)
    requests = [Request("long", 0, memory - k, k)]
    if release is not None:
        requests += [Request(f"s{i}", release, k, 1) for i in range(1, k * k + 1)]
    return Instance(memory, requests)


def _continuation(k: int, d: int, r: int) -> tuple[int, dict[str, int]]:
    """Least TEL with ``L`` started at ``d`` and the small requests released at ``r > d``:
    a dynamic program over the number ``m`` of small requests still waiting at step ``x``."""
    memory = k * k * (k + 1)
    horizon = max(r, d + k) + 1  # from then on every small request fits at once

    def held_by_long(step: int) -> int:
        return memory - k + (step - d) if d < step <= d + k else 0

    @cache
    def best(x: int, m: int) -> tuple[int, tuple[int, ...]]:
        if m == 0:
            return 0, ()
        options = []
        room = memory - held_by_long(x + 1)
        for start in range(min(m, max(0, room) // (k + 1)), -1, -1):
            if start == 0 and x >= horizon:
                continue
            cost, rest = best(x + 1, m - start)
            options.append((cost + start * (x + 1 - r), (x,) * start + rest))
        return min(options)

    cost, small_starts = best(r, k * k)
    starts = {"long": d, **{f"s{i}": x for i, x in enumerate(small_starts, start=1)}}
    return d + k + cost, starts


def _checked_tel(instance: Instance, starts: dict[str, int], tel: int) -> list[str]:
    """``[]`` when the checker accepts ``starts`` with TEL ``tel``; else the one problem."""
    report = check_schedule(instance, starts)
    if not report.feasible or report.metrics.tel != tel:
        got = report.metrics.tel if report.feasible else "infeasible"
        return [f"the checker rejects a schedule of the game: claimed TEL {tel}, checker {got} ({report.message})"]
    return []


def solve_game(k: int, max_d: int | None = None) -> GameResult:
    """Solve the game for ``K = k`` exactly (see the module docstring).

    Parameters
    ----------
    k : int
        ``K >= 2``; ``n = K^2 + 1`` requests.
    max_d : int, optional
        Enumerate the algorithm's start step ``d = 0..max_d`` (default ``K^2``); larger ``d`` enter
        through the never-release bound.

    Returns
    -------
    GameResult
        ``value`` is ``V_K``; ``per_d`` the adversary's best reply to each ``d``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValidationError("K", k, "must be an integer >= 2")
    begin = time.perf_counter()
    top = k * k if max_d is None else max_d
    opt_cache: dict[int, int] = {}
    rechecked = 0
    per_d: list[dict[str, Any]] = []
    problems: list[str] = []
    for d in range(top + 1):
        reply, value = "never", Fraction(d + k, k)
        for r in range(d + 1, d + k + 2):
            if r not in opt_cache:
                instance = _instance(k, r)
                opt_tel, opt_starts = dp_opt(instance)
                problems += _checked_tel(instance, opt_starts, opt_tel)
                opt_cache[r] = opt_tel
                rechecked += 1
            tel, starts = _continuation(k, d, r)
            problems += _checked_tel(_instance(k, r), starts, tel)
            rechecked += 1
            if Fraction(tel, opt_cache[r]) > value:
                reply, value = f"release at {r}", Fraction(tel, opt_cache[r])
        per_d.append({"d": d, "ratio": float(value), "fraction": str(value), "reply": reply})
    tail = Fraction(top + 1 + k, k)
    best = min(per_d, key=lambda row: Fraction(row["fraction"]))
    value = min(Fraction(best["fraction"]), tail)
    best_d, reply = (best["d"], best["reply"]) if Fraction(best["fraction"]) <= tail else (None, "never")
    message = (f"K={k} (n={k * k + 1}): every deterministic online algorithm has ratio >= {float(value):.3f} "
               f"against this adversary (best start step of L: {best_d}, answered by: {reply})")
    return GameResult("completed", message, time.perf_counter() - begin, k, k * k + 1, float(value), str(value),
                      best_d, reply, per_d, rechecked, problems)


def _compositions(total: int, parts: int, cap: int):
    """Every tuple of ``parts`` counts in ``[0, cap]`` summing to ``total`` (lexicographic)."""
    if parts == 1:
        if total <= cap:
            yield (total,)
        return
    for first in range(min(total, cap), -1, -1):
        for rest in _compositions(total - first, parts - 1, cap):
            yield (first, *rest)


def brute_continuation(k: int, d: int, r: int) -> tuple[int, dict[str, int]]:
    """``ALG*(d, r)`` by exhaustive search, independent of :func:`_continuation`'s dynamic program:
    every assignment of per-step start counts to the steps ``r .. max(r, d + K) + 1`` (from then
    on all fit at once), feasibility and TEL from the schedule checker for each candidate."""
    instance = _instance(k, r)
    horizon = max(r, d + k) + 1
    best: tuple[int, dict[str, int]] | None = None
    for counts in _compositions(k * k, horizon - r + 1, k * k):
        starts, index = {"long": d}, 1
        for offset, count in enumerate(counts):
            for _ in range(count):
                starts[f"s{index}"] = r + offset
                index += 1
        report = check_schedule(instance, starts)
        if report.feasible and (best is None or report.metrics.tel < best[0]):
            best = (report.metrics.tel, starts)
    if best is None:
        raise RuntimeError(f"no feasible continuation for K={k}, d={d}, r={r}")
    return best


def verify_game(result: GameResult, *, brute_k_max: int = 3) -> list[str]:
    """Problems found re-deriving ``result`` independently (empty: every value is the exact optimum);
    :func:`audit_game`'s ``problems``."""
    return audit_game(result, brute_k_max=brute_k_max)["problems"]


def audit_game(result: GameResult, *, brute_k_max: int = 3) -> dict[str, Any]:
    """Re-derive ``result`` independently and say what was re-derived.

    For every start step ``d`` of ``result.per_d``: the never-release ratio from the checker and
    ``dp_opt`` (``OPT = K``: ``L`` alone), each release ``r`` in ``d+1 .. d+K+1`` with ``ALG*(d, r)``
    by :func:`brute_continuation` (only for ``K <= brute_k_max``: exhaustive search grows too fast) and
    ``OPT(r)`` by ``dp_opt``; the adversary's best reply must equal the recorded one.

    Returns ``{"K", "problems", "continuations" (re-derived by exhaustive search), "never_release" (ratios
    recomputed), "per_d_rechecked" (recorded ratios compared)}``: a message names exactly what was re-derived.
    """
    k = result.K
    problems: list[str] = list(result.problems)
    alone = _instance(k, None)
    opt_alone = check_schedule(alone, dp_opt(alone)[1]).metrics.tel
    opts: dict[int, int] = {}
    continuations = never = compared = 0
    for row in result.per_d:
        d = row["d"]
        value = Fraction(check_schedule(alone, {"long": d}).metrics.tel, opt_alone)
        never += 1
        for r in range(d + 1, d + k + 2):
            if r not in opts:
                opts[r] = dp_opt(_instance(k, r))[0]
            if k <= brute_k_max:
                tel = brute_continuation(k, d, r)[0]
                continuations += 1
                dp_tel = _continuation(k, d, r)[0]
                if tel != dp_tel:
                    problems.append(f"K={k}, d={d}, r={r}: the game's continuation has TEL {dp_tel}, the exact "
                                    f"optimum is {tel}")
                value = max(value, Fraction(tel, opts[r]))
        if k <= brute_k_max:
            compared += 1
            if Fraction(row["fraction"]) != value:
                problems.append(f"K={k}, d={d}: the game records ratio {row['fraction']}, re-derived {value}")
    tail = Fraction(len(result.per_d) + k, k)
    if Fraction(result.value_fraction) > min([tail] + [Fraction(r["fraction"]) for r in result.per_d]):
        problems.append(f"K={k}: V_K = {result.value_fraction} exceeds the minimum over d of the recorded ratios")
    return {"K": k, "problems": problems, "continuations": continuations, "never_release": never,
            "per_d_rechecked": compared}
