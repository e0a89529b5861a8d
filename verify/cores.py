"""The combinatorial cores of Kong et al.'s proofs, proved by Z3 and by cvc5 over symbolic schedules.

Kong, Qi, Ye, Zhou (arXiv 2606.22327): the steps of Prop. 3.1 and Lemma A.2 that sympy cannot
check (``Step.unchecked`` in :mod:`geosched.theory.kong_prop3_1` and
:mod:`geosched.theory.kong_lemma_a2`, each naming the lemma below in ``covered_by``) are sums
and counts over the steps of a schedule. Here each is a :class:`~geosched.verify.z3util.Lemma`
over ``n`` requests with *symbolic* integer prompts ``s_i >= 0``, outputs ``o_i >= 1`` and start
times ``x_i >= 0`` (every feasible burst schedule of ``n`` requests), proved (assumptions AND NOT
conclusion unsat), non-vacuous and tight, for every ``n`` up to ``max_n`` or the first ``n`` whose query
exceeds its resource limit (``rlimit``: the solvers' own work units, so the reach is the same on every
machine, however loaded; no sweep consults the clock), by Z3 and again by cvc5 on the very same
formula (:func:`~geosched.verify.z3util.smtlib`).

Two layers, so that the ``n``-request formulas stay linear:

* **per-request lemmas** (one request, nonlinear integer arithmetic, all values symbolic):
  ``work_increment``: the twice-work ``w(C) = 2 d s + d (d + 1)``, ``d = clamp(C - x, 0, o)``
  (twice the memory-time a request holds in steps ``1..C``) grows by ``2 (s + C - x)`` exactly at
  the steps ``x < C <= x + o`` at which it holds memory; ``work_bounds``: ``w(0) = 0``,
  ``w >= 0``, and ``w(C) = 2v`` once ``C >= x + o``; ``blocked_increment`` and
  ``blocked_bounds``: the same for ``p n(T)`` with ``n(T) = clamp(T - x, 0, o)`` (steps ``t < T``
  at which it is active), ``n(T) = 0`` while ``x >= T``, and ``p n(T) <= 2v - o``;
* **n-request lemmas** (linear; the per-request facts enter as assumptions on fresh variables):
  ``prop31_work`` (induction step of ``W(C) <= M C``: with ``W(C-1) <= M (C-1)`` and the memory
  constraint at step ``C``), ``prop31_completed`` (``W(C) >= `` the volume of the requests done
  by ``C``), ``prop31_exchange`` (any ``k`` volumes sum to at least the ``k`` smallest),
  ``prop31_order`` (the ``k``-th smallest completion has ``k`` requests done by it),
  ``prop31_sum`` (``M C_(k) >= P_k`` for every ``k`` gives ``M TEL >= sum_k P_k``),
  ``lemmaA2_precede`` (start times monotone in the priority order, i.e. strict head-of-line
  admission with burst arrivals, make every request active while ``j`` waits precede ``j``, for
  *any* priority order), ``lemmaA2_blocked_sum`` (induction step of ``(1-alpha) M W_j <=
  sum_{i before j} p_i n_ij`` from the certificate at each blocked step), ``lemmaA2_sum_over_j``
  (the per-request bounds summed over ``j``).

The induction principle itself (base + step => every ``C``) is the one meta step; base cases
are the per-request lemmas ``work_bounds`` / ``blocked_bounds``.

Example
-------
>>> report = run_cores(max_n=2, backends=("z3",), rlimit=50_000_000)
>>> report.largest_n["z3"] >= 2, report.status
(True, 'checked')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from geosched.errors import UnknownNameError, ValidationError
from geosched.results import Result
from geosched.verify.z3util import BACKENDS, Lemma, LemmaReport, run_checks

__all__ = ["PER_REQUEST", "N_REQUEST", "CoreReport", "run_cores", "core_lemma"]

KONG = "Kong, Qi, Ye, Zhou, arXiv 2606.22327"


# ---------------------------------------------------------------- helpers
def _sum(terms: Sequence[z3.ArithRef]) -> z3.ArithRef:
    """A sum that is never a unary ``+`` (cvc5 rejects those in SMT-LIB)."""
    terms = list(terms)
    if not terms:
        return z3.IntVal(0)
    return terms[0] if len(terms) == 1 else z3.Sum(terms)


def _clamp(value: z3.ArithRef, low: z3.ArithRef, high: z3.ArithRef) -> z3.ArithRef:
    return z3.If(value <= low, low, z3.If(value >= high, high, value))


def _requests(n: int) -> tuple[list[z3.ArithRef], list[z3.ArithRef], list[z3.ArithRef], list[z3.BoolRef]]:
    """``n`` requests with symbolic prompt, output and start: ``s >= 0, o >= 1, x >= 0`` (burst: a = 0)."""
    s = [z3.Int(f"s_{i}") for i in range(n)]
    o = [z3.Int(f"o_{i}") for i in range(n)]
    x = [z3.Int(f"x_{i}") for i in range(n)]
    domain = [c for i in range(n) for c in (s[i] >= 0, o[i] >= 1, x[i] >= 0)]
    return s, o, x, domain


def _holds_at(x: z3.ArithRef, o: z3.ArithRef, step: z3.ArithRef) -> z3.BoolRef:
    """Started at ``x``, the request holds memory at step ``x < step <= x + o``."""
    return z3.And(x < step, step <= x + o)


def _active_at(x: z3.ArithRef, o: z3.ArithRef, step: z3.ArithRef) -> z3.BoolRef:
    """Active at decision step ``t``: holds memory at ``t + 1``, i.e. ``x <= t < x + o``."""
    return z3.And(x <= step, step < x + o)


def twice_work(s: z3.ArithRef, o: z3.ArithRef, x: z3.ArithRef, c: z3.ArithRef) -> z3.ArithRef:
    """``2 sum_{t=1..c} footprint(t) = 2 d s + d (d + 1)``, ``d = clamp(c - x, 0, o)``."""
    d = _clamp(c - x, 0, o)
    return 2 * d * s + d * (d + 1)


def _twice_volume(s: z3.ArithRef, o: z3.ArithRef) -> z3.ArithRef:
    return 2 * s * o + o * o + o


def _variables(**groups: Any) -> dict[str, z3.ExprRef]:
    out: dict[str, z3.ExprRef] = {}
    for name, value in groups.items():
        if isinstance(value, list):
            out.update({f"{name}_{i}": v for i, v in enumerate(value)})
        else:
            out[name] = value
    return out


# ---------------------------------------------------------------- per-request lemmas
def work_increment() -> Lemma:
    """``w(C) - w(C-1) = [x < C <= x + o] 2 (s + C - x)`` for every ``C >= 1`` (one request)."""
    (s,), (o,), (x,), domain = _requests(1)
    c = z3.Int("C")
    increment = twice_work(s, o, x, c) - twice_work(s, o, x, c - 1)
    expected = z3.If(_holds_at(x, o, c), 2 * (s + c - x), 0)
    return Lemma("work_increment", "w(C) - w(C-1) = [x < C <= x+o] 2 (s + C - x), w = 2 d s + d(d+1), "
                 "d = clamp(C - x, 0, o)", (*domain, c >= 1), increment == expected,
                 z3.And(increment == expected, increment > 0), _variables(s=s, o=o, x=x, C=c),
                 {"n": 1, "domain": "all integers s >= 0, o >= 1, x >= 0, C >= 1"}, f"{KONG}, Prop. 3.1 step 1",
                 "nonlinear integer arithmetic, one request")


def work_bounds() -> Lemma:
    """``w(0) = 0``, ``w(C) >= 0``, and ``w(C) = 2v`` once ``C >= x + o`` (one request)."""
    (s,), (o,), (x,), domain = _requests(1)
    c = z3.Int("C")
    work = twice_work(s, o, x, c)
    conclusion = z3.And(twice_work(s, o, x, z3.IntVal(0)) == 0, work >= 0,
                        z3.Implies(c >= x + o, work == _twice_volume(s, o)))
    return Lemma("work_bounds", "w(0) = 0, w(C) >= 0, C >= x + o => w(C) = 2v", (*domain, c >= 0), conclusion,
                 z3.And(conclusion, work >= 1), _variables(s=s, o=o, x=x, C=c),
                 {"n": 1, "domain": "all integers s >= 0, o >= 1, x >= 0, C >= 0"}, f"{KONG}, Prop. 3.1 steps 1-2",
                 "nonlinear integer arithmetic, one request")


def blocked_increment() -> Lemma:
    """``p n(T) - p n(T-1) = [x <= T-1 < x + o] p`` with ``n(T) = clamp(T - x, 0, o)`` (one request)."""
    (s,), (o,), (x,), domain = _requests(1)
    t = z3.Int("T")
    p = s + o
    increment = p * _clamp(t - x, 0, o) - p * _clamp(t - 1 - x, 0, o)
    expected = z3.If(_active_at(x, o, t - 1), p, 0)
    return Lemma("blocked_increment", "p n(T) - p n(T-1) = [x <= T-1 < x+o] p, n(T) = clamp(T - x, 0, o)",
                 (*domain, t >= 1), increment == expected, z3.And(increment == expected, increment > 0),
                 _variables(s=s, o=o, x=x, T=t), {"n": 1, "domain": "all integers s >= 0, o >= 1, x >= 0, T >= 1"},
                 f"{KONG}, Lemma A.2 (double counting)", "nonlinear integer arithmetic, one request")


def blocked_bounds() -> Lemma:
    """``n(0) = 0``, ``n(T) = 0`` while ``x >= T``, and ``p n(T) <= 2v - o`` (one request)."""
    (s,), (o,), (x,), domain = _requests(1)
    t = z3.Int("T")
    p = s + o
    count = _clamp(t - x, 0, o)
    # 2v = twice_volume: p n(T) <= 2v - o, i.e. p o + o <= 2v since n(T) <= o
    conclusion = z3.And(_clamp(0 - x, 0, o) == 0, z3.Implies(x >= t, count == 0),
                        p * count <= _twice_volume(s, o) - o)
    return Lemma("blocked_bounds", "n(0) = 0, x >= T => n(T) = 0, p n(T) <= 2v - o", (*domain, t >= 0), conclusion,
                 z3.And(conclusion, p * count <= _twice_volume(s, o) - o - 1), _variables(s=s, o=o, x=x, T=t),
                 {"n": 1, "domain": "all integers s >= 0, o >= 1, x >= 0, T >= 0"}, f"{KONG}, Lemma A.2 step 9",
                 "nonlinear integer arithmetic, one request")


# ---------------------------------------------------------------- n-request lemmas (linear)
def prop31_work(n: int) -> Lemma:
    """Induction step of ``W(C) <= M C`` for ``n`` requests (Prop. 3.1, step 1).

    ``w_i, u_i`` stand for ``w_i(C), w_i(C - 1)`` and satisfy :func:`work_increment`; the memory
    constraint holds at step ``C``; the induction hypothesis is ``sum u_i <= 2 M (C - 1)``.
    """
    _check_n(n)
    s, o, x, domain = _requests(n)
    memory, c = z3.Ints("M C")
    w = [z3.Int(f"w_{i}") for i in range(n)]
    u = [z3.Int(f"u_{i}") for i in range(n)]
    assumptions = [*domain, memory >= 1, c >= 1]
    assumptions += [w[i] - u[i] == z3.If(_holds_at(x[i], o[i], c), 2 * (s[i] + c - x[i]), 0) for i in range(n)]
    assumptions.append(_sum([z3.If(_holds_at(x[i], o[i], c), s[i] + c - x[i], 0) for i in range(n)]) <= memory)
    assumptions.append(_sum(u) <= 2 * memory * (c - 1))
    return Lemma("prop31_work", f"n={n}: W(C-1) <= M(C-1), usage(C) <= M, per-request increments  =>  W(C) <= M C",
                 tuple(assumptions), _sum(w) <= 2 * memory * c, _sum(w) <= 2 * memory * c - 1,
                 _variables(s=s, o=o, x=x, w=w, u=u, M=memory, C=c), _params(n), f"{KONG}, Prop. 3.1 step 1",
                 "linear integer arithmetic with the per-request lemma work_increment as assumptions")


def prop31_completed(n: int) -> Lemma:
    """``W(C) >= sum of the volumes of the requests done by C`` (Prop. 3.1, step 2)."""
    _check_n(n)
    s, o, x, domain = _requests(n)
    c = z3.Int("C")
    w = [z3.Int(f"w_{i}") for i in range(n)]
    tv = [z3.Int(f"twice_v_{i}") for i in range(n)]
    assumptions = [*domain, c >= 0]
    assumptions += [z3.And(w[i] >= 0, z3.Implies(c >= x[i] + o[i], w[i] == tv[i])) for i in range(n)]
    done = _sum([z3.If(x[i] + o[i] <= c, tv[i], 0) for i in range(n)])
    return Lemma("prop31_completed", f"n={n}: per-request work bounds  =>  W(C) >= sum of volumes done by C",
                 tuple(assumptions), _sum(w) >= done, _sum(w) >= done + 1,
                 _variables(s=s, o=o, x=x, w=w, twice_v=tv, C=c), _params(n), f"{KONG}, Prop. 3.1 step 2",
                 "linear integer arithmetic with the per-request lemma work_bounds as assumptions")


def prop31_exchange(n: int) -> Lemma:
    """Any ``k`` of ``n`` sorted volumes sum to at least the ``k`` smallest, every ``k`` (Prop. 3.1, step 3)."""
    _check_n(n)
    v = [z3.Int(f"v_{i}") for i in range(n)]
    chosen = [z3.Bool(f"done_{i}") for i in range(n)]
    assumptions = [vi >= 0 for vi in v] + [v[i] <= v[i + 1] for i in range(n - 1)]
    count = _sum([z3.If(d, 1, 0) for d in chosen])
    total = _sum([z3.If(chosen[i], v[i], 0) for i in range(n)])

    def claim(extra: int) -> z3.BoolRef:
        return z3.And([z3.Implies(count >= k, total >= _sum(v[:k]) + extra) for k in range(1, n + 1)])

    return Lemma("prop31_exchange", f"n={n}: volumes sorted, |D| >= k  =>  sum_D v >= P_k, every k",
                 tuple(assumptions), claim(0), claim(1), _variables(v=v, done=chosen), _params(n),
                 f"{KONG}, Prop. 3.1 step 3", "linear integer arithmetic over booleans")


def _sorted_completions(n: int, x: list[z3.ArithRef], o: list[z3.ArithRef]) -> tuple[list, list, list]:
    """``c_1 <= ... <= c_n``, a permutation ``pi`` of the completions ``x_i + o_i``."""
    perm = [z3.Int(f"pi_{k}") for k in range(n)]
    sorted_c = [_sum([z3.If(perm[k] == i, x[i] + o[i], 0) for i in range(n)]) for k in range(n)]
    constraints = [z3.And(p >= 0, p < n) for p in perm]
    if n > 1:
        constraints.append(z3.Distinct(*perm))
    constraints += [sorted_c[k] <= sorted_c[k + 1] for k in range(n - 1)]
    return perm, sorted_c, constraints


def prop31_order(n: int) -> Lemma:
    """The ``k``-th smallest completion has at least ``k`` requests done by it (Prop. 3.1, step 5)."""
    _check_n(n)
    s, o, x, domain = _requests(n)
    perm, sorted_c, constraints = _sorted_completions(n, x, o)

    def claim(extra: int) -> z3.BoolRef:
        return z3.And([_sum([z3.If(x[i] + o[i] <= sorted_c[k], 1, 0) for i in range(n)]) >= k + 1 + extra
                       for k in range(n)])

    return Lemma("prop31_order", f"n={n}: c sorted permutation of the completions  =>  #{{i: C_i <= c_k}} >= k",
                 (*domain, *constraints), claim(0), claim(1), _variables(s=s, o=o, x=x, pi=perm), _params(n),
                 f"{KONG}, Prop. 3.1 step 5", "linear integer arithmetic with a permutation")


def prop31_sum(n: int) -> Lemma:
    """``M C_(k) >= P_k`` for every ``k`` gives ``M TEL >= sum_k P_k`` (Prop. 3.1, step 6; burst).

    Divided by ``M > 0``: with real ``q_k = P_k / M``, ``c_k >= q_k`` for every ``k`` gives
    ``TEL = sum_i C_i >= sum_k q_k`` (linear; multiplying back by ``M`` is the only step left out).
    """
    _check_n(n)
    s, o, x, domain = _requests(n)
    share = [z3.Real(f"q_{k}") for k in range(n)]
    perm, sorted_c, constraints = _sorted_completions(n, x, o)
    assumptions = [*domain, *constraints] + [sorted_c[k] >= share[k] for k in range(n)]
    tel = _sum([x[i] + o[i] for i in range(n)])
    total = z3.Sum(share) if n > 1 else share[0]
    return Lemma("prop31_sum", f"n={n}: c_k >= P_k/M for every k  =>  TEL >= sum_k P_k/M",
                 tuple(assumptions), tel >= total, tel >= total + 1,
                 _variables(s=s, o=o, x=x, pi=perm, q=share), _params(n), f"{KONG}, Prop. 3.1 step 6",
                 "linear integer/real arithmetic with a permutation")


def _monotone_starts(n: int, x: list[z3.ArithRef], rank: list[z3.ArithRef]) -> list[z3.BoolRef]:
    """Strict head-of-line admission with burst arrivals: a request never starts before one ahead of it."""
    out = [z3.Distinct(*rank)] if n > 1 else []
    return out + [z3.Implies(rank[i] < rank[j], x[i] <= x[j]) for i in range(n) for j in range(n) if i != j]


def lemmaA2_precede(n: int) -> Lemma:
    """Every request active while ``j`` waits precedes ``j``, for any priority order (Lemma A.2 item 2)."""
    _check_n(n, minimum=2)
    s, o, x, domain = _requests(n)
    rank = [z3.Int(f"rank_{i}") for i in range(n)]
    t = z3.Int("t")

    def claim(gap: int) -> z3.BoolRef:
        return z3.And([z3.Implies(z3.And(_active_at(x[i], o[i], t), t < x[j]), rank[i] + gap <= rank[j])
                       for i in range(n) for j in range(n) if i != j] + [z3.BoolVal(True)])

    return Lemma("lemmaA2_precede", f"n={n}: starts monotone in the priority order  =>  active while j waits "
                 "precede j", (*domain, t >= 0, *_monotone_starts(n, x, rank)), claim(1), claim(2),
                 _variables(s=s, o=o, x=x, rank=rank, t=t), _params(n), f"{KONG}, Lemma A.2 item 2",
                 "linear integer arithmetic")


def lemmaA2_blocked_sum(n: int) -> Lemma:
    """Induction step of ``(1-alpha) M T <= sum_{i before j} p_i n_i(T)`` while ``j`` waits (Lemma A.2 step 8).

    Request 0 is ``j`` (burst: it waits at every decision step ``t < x_0``); ``c_i, e_i`` stand for
    ``p_i n_i(T), p_i n_i(T-1)`` and satisfy :func:`blocked_increment` and :func:`blocked_bounds`;
    the certificate (item 1) holds at step ``T - 1``; ``D = (1 - alpha) M`` is an integer ``M - P``.
    """
    _check_n(n, minimum=2)
    s, o, x, domain = _requests(n)
    rank = [z3.Int(f"rank_{i}") for i in range(n)]
    drain, t = z3.Ints("D T")
    c = [z3.Int(f"c_{i}") for i in range(n)]
    e = [z3.Int(f"e_{i}") for i in range(n)]
    p = [s[i] + o[i] for i in range(n)]
    others = range(1, n)
    assumptions = [*domain, *_monotone_starts(n, x, rank), drain >= 0, t >= 1, t <= x[0]]
    for i in others:
        assumptions += [c[i] - e[i] == z3.If(_active_at(x[i], o[i], t - 1), p[i], 0),
                        z3.Implies(x[i] >= t, c[i] == 0), z3.Implies(x[i] >= t - 1, e[i] == 0)]
    assumptions.append(_sum([z3.If(_active_at(x[i], o[i], t - 1), p[i], 0) for i in others]) > drain)
    before = [i for i in others]
    assumptions.append(drain * (t - 1) <= _sum([z3.If(rank[i] < rank[0], e[i], 0) for i in before]))
    total = _sum([z3.If(rank[i] < rank[0], c[i], 0) for i in before])
    return Lemma("lemmaA2_blocked_sum", f"n={n}: certificate at T-1, D(T-1) <= sum_before p n(T-1)  =>  "
                 "D T <= sum_before p n(T)", tuple(assumptions), drain * t <= total, drain * t + 2 <= total,
                 _variables(s=s, o=o, x=x, rank=rank, c=c, e=e, D=drain, T=t), _params(n),
                 f"{KONG}, Lemma A.2 step 8", "integer arithmetic (D T, D (T - 1) as monomials), per-request lemmas "
                 "blocked_increment and blocked_bounds as assumptions")


def lemmaA2_sum_over_j(n: int) -> Lemma:
    """``D W_j <= 2 B_j`` for every ``j`` gives ``D sum_j W_j <= 2 sum_j B_j`` (Lemma A.2 step 10)."""
    _check_n(n)
    drain = z3.Int("D")
    wait = [z3.Int(f"W_{j}") for j in range(n)]
    before = [z3.Int(f"B_{j}") for j in range(n)]
    assumptions = [drain >= 0] + [z3.And(wait[j] >= 0, before[j] >= 0, drain * wait[j] <= 2 * before[j])
                                  for j in range(n)]
    return Lemma("lemmaA2_sum_over_j", f"n={n}: D W_j <= 2 B_j for every j  =>  D sum W <= 2 sum B",
                 tuple(assumptions), drain * _sum(wait) <= 2 * _sum(before),
                 drain * _sum(wait) + 1 <= 2 * _sum(before), _variables(W=wait, B=before, D=drain), _params(n),
                 f"{KONG}, Lemma A.2 step 10", "integer arithmetic, D times a sum (nonlinear in D)")


def _params(n: int) -> dict[str, Any]:
    return {"n": n, "domain": f"{n} requests, every integer prompt, output and start time (symbolic)"}


def _check_n(n: Any, minimum: int = 1) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise ValidationError("n", n, f"must be an integer >= {minimum}")


PER_REQUEST: dict[str, Callable[[], Lemma]] = {
    "work_increment": work_increment,
    "work_bounds": work_bounds,
    "blocked_increment": blocked_increment,
    "blocked_bounds": blocked_bounds,
}
N_REQUEST: dict[str, Callable[[int], Lemma]] = {
    "prop31_work": prop31_work,
    "prop31_completed": prop31_completed,
    "prop31_exchange": prop31_exchange,
    "prop31_order": prop31_order,
    "prop31_sum": prop31_sum,
    "lemmaA2_precede": lemmaA2_precede,
    "lemmaA2_blocked_sum": lemmaA2_blocked_sum,
    "lemmaA2_sum_over_j": lemmaA2_sum_over_j,
}
# which per-request lemmas each n-request lemma takes as assumptions
USES: dict[str, tuple[str, ...]] = {
    "prop31_work": ("work_increment", "work_bounds"),
    "prop31_completed": ("work_bounds",),
    "lemmaA2_blocked_sum": ("blocked_increment", "blocked_bounds"),
}
_SMALLEST_N = {"lemmaA2_blocked_sum": 2, "lemmaA2_precede": 2}


def core_lemma(name: str, n: int | None = None) -> Lemma:
    """The lemma ``name`` (per-request: no ``n``; n-request: ``n`` requests).

    >>> core_lemma("prop31_exchange", 3).parameters["n"]
    3
    """
    if name in PER_REQUEST:
        return PER_REQUEST[name]()
    if name in N_REQUEST:
        return N_REQUEST[name](n if n is not None else 2)
    raise UnknownNameError("core lemma", name, [*PER_REQUEST, *N_REQUEST])


@dataclass(frozen=True)
class CoreReport(Result):
    """Every core lemma, per solver: the per-request lemmas and the largest ``n`` reached by each sweep.

    ``status``: ``"refuted"`` when some call found a counterexample; ``"checked"`` when every
    per-request lemma is proved by every solver and every n-request lemma is proved for at least
    its smallest ``n`` by every solver; ``"unknown"`` otherwise.
    """

    STATUSES = ("checked", "refuted", "unknown")
    SUCCESS = ("checked",)

    status: str
    message: str  # "largest n with every lemma proved: z3 12, cvc5 9"
    wall_time: float  # seconds in total
    backends: tuple[str, ...]  # solvers run
    per_request: dict[str, dict[str, dict[str, Any]]]  # lemma -> backend -> {"status", "seconds"}
    sweeps: dict[str, dict[str, dict[str, Any]]]  # lemma -> backend -> {"largest_n", "stopped", "per_n"}
    largest_n: dict[str, int]  # backend -> min over n-request lemmas of their largest n (0: none)
    rlimit: Any  # resource limit (int, or solver -> int) of each solver call (None: the time limit timeout_ms instead)
    timeout_ms: int  # time limit of each solver call, used only when rlimit is None
    max_n: int  # the sweep stops there at the latest
    counterexample: dict[str, Any] | None = None  # the first refuting model, with lemma, n and backend
    extra: dict[str, Any] = field(default_factory=dict)

    def covered(self, lemma: str) -> tuple[str, int]:
        """``(status, n)`` for an n-request lemma across all solvers: ``("checked", N)`` with ``N`` the
        largest ``n`` proved by every solver (its per-request lemmas proved too), ``("refuted", n)``
        or ``("unknown", 0)``."""
        sweep = self.sweeps.get(lemma, {})
        if any(s.get("refuted_at") for s in sweep.values()):
            return "refuted", min(s["refuted_at"] for s in sweep.values() if s.get("refuted_at"))
        uses = USES.get(lemma, ())
        if any(self.per_request[u][b]["status"] == "refuted" for u in uses for b in self.backends):
            return "refuted", 1
        if not sweep or any(self.per_request[u][b]["status"] != "proved" for u in uses for b in self.backends):
            return "unknown", 0
        n = min(sweep[b]["largest_n"] for b in self.backends)
        return ("checked", n) if n >= _SMALLEST_N.get(lemma, 1) else ("unknown", 0)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "success": self.success, "message": self.message,
                "wall_time": round(self.wall_time, 3), "backends": list(self.backends),
                "per_request": self.per_request, "sweeps": self.sweeps, "largest_n": self.largest_n,
                "rlimit": dict(self.rlimit) if isinstance(self.rlimit, Mapping) else self.rlimit,
                "timeout_ms": self.timeout_ms, "max_n": self.max_n,
                "counterexample": self.counterexample}


def run_cores(max_n: int = 8, backends: Sequence[str] = BACKENDS, timeout_ms: int = 10_000,
              lemmas: Sequence[str] | None = None,
              rlimit: int | Mapping[str, int] | None = None) -> CoreReport:
    """Prove the per-request lemmas, then sweep each n-request lemma over ``n = 1, 2, ...``.

    Parameters
    ----------
    max_n : int
        The largest ``n`` tried; a sweep stops there or at the first ``n`` not proved (the clock is
        never consulted).
    backends : sequence of str
        ``"z3"`` and/or ``"cvc5"``: each runs every lemma on the same formula.
    timeout_ms : int
        Time limit of each solver call when ``rlimit`` is ``None`` (a timeout is ``unknown``, never
        ``proved``; interactive use only, since it depends on machine load).
    rlimit : int, optional
        Resource limit of each solver call (Z3 ``rlimit``, cvc5 ``rlimit-per``): a query past it is
        ``unknown`` at that ``n`` on every machine; a mapping gives each solver its own (their units
        differ). The claims ledger always passes one.
    lemmas : sequence of str, optional
        The n-request lemmas to sweep (default: all of :data:`N_REQUEST`).

    Returns
    -------
    CoreReport
        Per lemma and solver the largest ``n`` proved; ``largest_n`` the minimum over lemmas.
    """
    _check_n(max_n)
    chosen = list(lemmas) if lemmas is not None else list(N_REQUEST)
    for name in chosen:
        if name not in N_REQUEST:
            raise UnknownNameError("core lemma", name, list(N_REQUEST))
    for backend in backends:
        if backend not in BACKENDS:
            raise UnknownNameError("solver", backend, list(BACKENDS))
    begin = time.perf_counter()
    needed = sorted({u for name in chosen for u in USES.get(name, ())}) or []
    per_request: dict[str, dict[str, dict[str, Any]]] = {}
    counterexample = None
    for name in (needed if lemmas is not None else list(PER_REQUEST)):
        per_request[name] = {}
        for backend in backends:
            report = run_checks(PER_REQUEST[name](), timeout_ms, backend, _limit(rlimit, backend))
            per_request[name][backend] = {"status": report.status, "seconds": round(report.wall_time, 4),
                                          "resources": _resources(report), "tight": report.tight.status}
            if report.status == "refuted" and counterexample is None:
                counterexample = _counterexample(report, backend)
    sweeps: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in chosen}
    for backend in backends:
        for name in chosen:
            sweeps[name][backend], found = _sweep(name, backend, max_n, timeout_ms, _limit(rlimit, backend))
            counterexample = counterexample or found
    largest = {b: min((sweeps[name][b]["largest_n"] for name in chosen), default=0) for b in backends}
    if any(per_request[u][b]["status"] != "proved" for u in per_request for b in backends):
        largest = {b: 0 if any(per_request[u][b]["status"] != "proved" for u in per_request) else n
                   for b, n in largest.items()}
    status = "refuted" if counterexample else (
        "checked" if all(n >= 1 for n in largest.values()) and largest else "unknown")
    message = "largest n with every core lemma proved: " + ", ".join(f"{b} {n}" for b, n in largest.items())
    return CoreReport(status, message, time.perf_counter() - begin, tuple(backends), per_request, sweeps, largest,
                      rlimit, timeout_ms, max_n, counterexample)


def _limit(rlimit: int | Mapping[str, int] | None, backend: str) -> int | None:
    return rlimit.get(backend) if isinstance(rlimit, Mapping) else rlimit


def _resources(report: LemmaReport) -> int | None:
    """The most work units any of the three calls spent (what its ``rlimit`` must allow)."""
    spent = [c.resources for c in (report.proof, report.nonvacuous, report.tight) if c.resources is not None]
    return max(spent) if spent else None


def _sweep(name: str, backend: str, max_n: int, timeout_ms: int,
           rlimit: int | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``n = smallest .. max_n`` until one is not proved: the reach depends on the solvers' answers
    alone (under ``rlimit``, the same on every machine), never on elapsed time."""
    begin = time.perf_counter()
    smallest = _SMALLEST_N.get(name, 1)
    best = smallest - 1
    per_n: list[list[Any]] = []
    stopped = "max_n reached"
    found = None
    refuted_at = None
    for n in range(smallest, max_n + 1):
        report: LemmaReport = run_checks(N_REQUEST[name](n), timeout_ms, backend, rlimit)
        # the last field is the canary: the same proof call on the stronger conclusion must refute it ("tight")
        per_n.append([n, report.status, round(report.wall_time, 4), _resources(report), report.tight.status])
        if report.status != "proved":
            stopped = f"n={n}: {report.status}"
            if report.status == "refuted":
                refuted_at = n
                found = _counterexample(report, backend)
            break
        best = n
    return {"largest_n": max(best, 0), "stopped": stopped, "per_n": per_n, "refuted_at": refuted_at,
            "seconds": round(time.perf_counter() - begin, 3)}, found


def _counterexample(report: LemmaReport, backend: str) -> dict[str, Any]:
    return {"lemma": report.lemma, "parameters": report.parameters, "backend": backend,
            "model": report.proof.counterexample, "statement": report.statement}
