"""Fluid analysis of k-group burst families: SVF's limit, a witness's limit, the volume bound.

A *k-group family* has ``k`` types of identical requests ``(s_j, o_j)`` in memory ``M``,
``c_j = round(gamma_j N)`` of each, all arriving at 0, and ``N -> infinity``. Index the groups
by volume (``v_1 < ... < v_k``; Kong, Qi, Ye, Zhou, arXiv 2606.22327, Eq. (1)).

**SVF** (strict head-of-line, forward-looking check) serves the groups in this order, one
*phase* per group: a request of group ``j + 1`` starts only once every request of group ``j`` has.
Inside a phase SVF's state is the ages of the running requests; the dynamics are
deterministic, so once a state repeats the phase is periodic, with ``theta_j`` starts per step
(:func:`svf_cycle_rate`: exact, as a fraction, by state repetition from the empty batch). The
transitions last ``O(1)`` steps, so

.. math::  \\lim_{N\\to\\infty} \\frac{TEL(SVF)}{N^2} = Q(\\gamma; \\tau) = \\sum_j \\gamma_j
           \\Bigl(\\sum_{i<j} \\gamma_i \\tau_i + \\frac{\\gamma_j \\tau_j}{2}\\Bigr),
           \\qquad \\tau_j = 1/\\theta_j

(:func:`phase_limit`; hypothesis: every phase runs at the rate of the cycle reached from the
empty batch; :func:`finite_member` and ``tests/test_fluid.py`` compare with the simulator).

**Witness** (an explicit schedule, an upper bound on OPT): the groups in an order ``pi``, each
*paced*: group ``j``'s ``i``-th request starts at ``floor(i d_j)`` with the smallest pace
``d_j >= v_j / M`` from a finite list whose periodic schedule fits ``M`` at every step of a period
(:func:`witness_pace`: an exact finite check, so the schedule is feasible for every ``N``). Its limit
is ``Q(gamma_pi; d_pi)``; Smith's rule (ascending ``d``) is the best order of phases.

**Volume bound** (Kong et al., Prop. 3.1: ``M TEL(OPT) >= sum_k`` of the ``k`` smallest volumes):
``lim TEL(OPT)/N^2 >= Q(gamma; v/M)``.

So, for every ``gamma``, ``Q(tau)/Q(d) <= lim TEL(SVF)/TEL(OPT) <= Q(tau)/Q(v/M) <= max_j rho_j``
with ``rho_j = M/(theta_j v_j)`` (:func:`ratio_bound_step`: ``rho Q(v/M) - Q(tau)`` is a sum of
nonnegative terms once ``tau_j <= rho v_j/M``, checked by sympy): **no k-group family, for any k,
exceeds the worst single group.** The single-group value ``rho`` is exact per ``(s, o, M)``
(:func:`single_group_bound`); ``svf-triangles`` (:mod:`geosched.theory.svf_lower_bound`) has a
perfect witness (``d = v/M = 1``), so its lower and upper limits agree, ``2p/(p+1) -> 2``.

:func:`maximise_gamma` maximises the witnessed ratio ``Q(tau)/Q(d)`` over the simplex by branch
and bound with exact rational box bounds (the forms have nonnegative coefficients, so a box's
corners bound them; no rounding), returning the best point found and a certified ceiling
("no gamma exceeds ``ceiling``").

Example
-------
>>> svf_cycle_rate(0, 5, 15)  # batches of 3 every 5 steps
Fraction(3, 5)
>>> witness_pace(0, 5, 15)  # one start per step fills M = 15 exactly
Fraction(1, 1)
>>> fam = FluidFamily(15, ((0, 5),))
>>> fam.limits((1,))["lower"], fam.limits((1,))["upper"]
(5/3, 5/3)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from geosched.adversary.fast import simulate_arrays
from geosched.errors import ValidationError

__all__ = ["FluidFamily", "volume", "svf_cycle_rate", "witness_pace", "phase_limit", "single_group_bound",
           "peak_count_bound", "ratio_bound_step", "maximise_gamma", "finite_member", "single_group_scan"]

MAX_FLUID_MEMORY = 2000  # cycle detection simulates a few thousand requests of at most M/2 steps


def _check_type(s: int, o: int, memory: int) -> None:
    for name, value, low in (("memory", memory, 2), ("output", o, 1), ("prompt", s, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValidationError(name, value, f"must be an integer >= {low}")
    if memory > MAX_FLUID_MEMORY:
        raise ValidationError("memory", memory, f"must be <= {MAX_FLUID_MEMORY} for the fluid analysis")
    if 2 * (s + o) > memory:
        raise ValidationError("prompt + output", s + o, f"must be <= M/2 = {memory / 2:g} (alpha <= 1/2)")


def volume(s: int, o: int) -> int:
    """``v = s o + (o^2 + o)/2`` (Kong et al., Eq. (1))."""
    return s * o + (o * o + o) // 2


def svf_cycle_rate(s: int, o: int, memory: int) -> Fraction:
    """SVF's long-run starts per step on identical requests ``(s, o)`` from the empty batch, exact.

    The state after the last start of a step is the sorted tuple of the running requests' ages;
    the queue holds identical requests, so the dynamics are a function of it. The first repeated
    state closes a cycle: ``(starts in the cycle) / (steps in the cycle)``.
    """
    _check_type(s, o, memory)
    n = 64 * (memory // (s + o) + 2)
    while True:
        zeros = np.zeros(n, np.int64)
        x = simulate_arrays("svf", zeros, np.full(n, s, np.int64), np.full(n, o, np.int64), memory)
        seen: dict[tuple[int, ...], tuple[int, int]] = {}
        width = memory // max(1, s) + o + 2  # at most this many requests run at once
        for j in range(n - width - 1):  # the queue is still long: the finite run is the infinite one
            t = int(x[j])
            if x[j + 1] == t:
                continue
            state = tuple(sorted(t - int(x[i]) for i in range(max(0, j - width), j + 1) if x[i] + o > t))
            if state in seen:
                j0, t0 = seen[state]
                return Fraction(j - j0, t - t0)
            seen[state] = (j, t)
        n *= 2  # no repetition yet: a longer run (the state space is finite, so this ends)


def _paced_peak(s: int, o: int, pace: Fraction) -> int:
    """Largest usage of the infinite schedule ``x_i = floor(i pace)`` (periodic: one period after warm-up)."""
    g, h = pace.numerator, pace.denominator  # h starts every g steps
    span = o + g + 1
    first = -((o + g) * h // max(g, 1)) - 2 * h  # enough earlier requests to be in steady state
    count = (span + o) * h // max(g, 1) + 4 * h
    starts = [(i * g) // h for i in range(first, first + count + h * (o + 2))]
    best = 0
    for t in range(1, g + 1):  # one period of steps in steady state
        best = max(best, sum(s + t - x for x in starts if x < t <= x + o))
    return best


def witness_pace(s: int, o: int, memory: int, max_denominator: int = 8) -> Fraction:
    """Smallest pace ``d >= v/M`` (steps between starts, ``d = g/h`` with ``h <= max_denominator``)
    whose periodic schedule ``x_i = floor(i d)`` holds at most ``M`` tokens at every step."""
    _check_type(s, o, memory)
    v = volume(s, o)
    candidates = sorted({Fraction(num, den) for den in range(1, max_denominator + 1)
                         for num in range(max(1, (v * den) // memory), o * den + 1)
                         if Fraction(num, den) >= Fraction(v, memory)})
    for pace in candidates:
        if _paced_peak(s, o, pace) <= memory:
            return pace
    return Fraction(o)  # one request at a time: always fits (s + o <= M)


def phase_limit(gammas: Any, taus: Any) -> sp.Expr:
    """``Q(gamma; tau) = sum_j gamma_j (sum_{i<j} gamma_i tau_i + gamma_j tau_j / 2)``: the limit of
    ``TEL/N^2`` of phases served in the given order, ``gamma_j N`` requests at ``1/tau_j`` per step."""
    total = sp.Integer(0)
    done = sp.Integer(0)
    for g, tau in zip(gammas, taus):
        total += g * (done + g * tau / 2)
        done += g * tau
    return sp.expand(total)


def single_group_bound(s: int, o: int, memory: int) -> Fraction:
    """``rho = M / (theta v)``: the fluid ratio of SVF over the volume bound on one group, exact."""
    return Fraction(memory) / (svf_cycle_rate(s, o, memory) * volume(s, o))


def peak_count_bound(s: int, o: int, memory: int) -> dict[str, Any]:
    """The single-group bound of :func:`geosched.theory.svf_fluid_classes.single_group_steps`, with no simulation:
    ``M = q(s + o) + r``; SVF keeps at least ``q`` requests running after every decision and ``q + 1`` at the
    ``r - s`` decisions before each completion, so ``theta o >= count = q + min(1, max(0, r - s)/o)`` and
    ``rho <= bound = 2M/(count (2s + o + 1))``; ``proves``: ``bound <= 2M/(M + 2)`` (the derivation's algebra
    says always).

    >>> peak_count_bound(0, 5, 14)["count"], peak_count_bound(0, 5, 14)["proves"]
    (Fraction(14, 5), True)
    """
    _check_type(s, o, memory)
    q, r = divmod(memory, s + o)
    count = q + min(Fraction(1), Fraction(max(0, r - s), o))
    bound = Fraction(2 * memory) / (count * (2 * s + o + 1))
    return {"q": q, "r": r, "count": count, "bound": bound, "proves": bound <= Fraction(2 * memory, memory + 2)}


def ratio_bound_step(k: int) -> dict[str, Any]:
    """The sympy check that ``rho Q(gamma; v/M) - Q(gamma; tau) >= 0`` when ``tau_j = rho v_j/M - e_j``
    (``e_j >= 0``), for ``k`` groups: the difference is a sum of products of nonnegative symbols.

    >>> ratio_bound_step(3)["checked"]
    True
    """
    g = sp.symbols(f"gamma1:{k + 1}", nonnegative=True)
    w = sp.symbols(f"w1:{k + 1}", nonnegative=True)  # v_j / M
    e = sp.symbols(f"e1:{k + 1}", nonnegative=True)
    rho = sp.Symbol("rho", positive=True)
    diff = sp.expand(rho * phase_limit(g, w) - phase_limit(g, [rho * wj - ej for wj, ej in zip(w, e)]))
    terms = sp.Add.make_args(diff)
    checked = all(t.is_nonnegative for t in terms)
    return {"k": k, "difference": diff, "terms": len(terms), "checked": bool(checked)}


@dataclass(frozen=True)
class FluidFamily:
    """``k`` groups of identical requests in memory ``M`` (``types``: ``(s_j, o_j)``, distinct volumes)."""

    memory: int
    types: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not self.types:
            raise ValidationError("types", self.types, "needs at least one group")
        for s, o in self.types:
            _check_type(s, o, self.memory)
        vols = [volume(s, o) for s, o in self.types]
        if len(set(vols)) != len(vols):
            raise ValidationError("types", self.types, "must have distinct volumes (equal volumes tie)")

    def order(self) -> list[int]:
        return sorted(range(len(self.types)), key=lambda j: volume(*self.types[j]))

    def rates(self) -> dict[str, list[Fraction]]:
        """Per group: SVF's ``tau = 1/theta``, the witness pace ``d`` and ``v/M`` (steps per request)."""
        return {"tau": [1 / svf_cycle_rate(s, o, self.memory) for s, o in self.types],
                "pace": [witness_pace(s, o, self.memory) for s, o in self.types],
                "volume": [Fraction(volume(s, o), self.memory) for s, o in self.types]}

    def forms(self, gammas: Any = None) -> dict[str, sp.Expr]:
        """The three limits of ``TEL/N^2`` as sympy expressions in ``gamma`` (symbols by default)."""
        k = len(self.types)
        gam = list(gammas) if gammas is not None else list(sp.symbols(f"gamma1:{k + 1}", nonnegative=True))
        rates = self.rates()
        svf_order = self.order()
        witness_order = sorted(range(k), key=lambda j: (rates["pace"][j], j))  # Smith's rule
        pick = [sp.Rational(x.numerator, x.denominator) for x in rates["tau"]]
        pace = [sp.Rational(x.numerator, x.denominator) for x in rates["pace"]]
        vol = [sp.Rational(x.numerator, x.denominator) for x in rates["volume"]]
        return {"svf": phase_limit([gam[j] for j in svf_order], [pick[j] for j in svf_order]),
                "witness": phase_limit([gam[j] for j in witness_order], [pace[j] for j in witness_order]),
                "volume_bound": phase_limit([gam[j] for j in svf_order], [vol[j] for j in svf_order])}

    def limits(self, gammas: Any) -> dict[str, sp.Expr]:
        """``lower = Q_svf/Q_witness`` (certified) and ``upper = Q_svf/Q_volume`` at ``gammas``."""
        f = self.forms([sp.nsimplify(g) for g in gammas])
        return {"lower": sp.nsimplify(f["svf"] / f["witness"]), "upper": sp.nsimplify(f["svf"] / f["volume_bound"])}

    def ceiling(self) -> Fraction:
        """``max_j rho_j``: no ``gamma`` makes the fluid ratio of this family exceed it."""
        return max(single_group_bound(s, o, self.memory) for s, o in self.types)


def _polynomial(expr: sp.Expr, syms: list[sp.Symbol]) -> list[tuple[Fraction, tuple[int, ...]]]:
    """``expr`` as exact ``(coefficient, exponents)`` terms."""
    return [(Fraction(int(sp.Rational(c).p), int(sp.Rational(c).q)), exps)
            for exps, c in sp.Poly(expr, *syms).terms()]


def _evaluate(terms: list[tuple[Fraction, tuple[int, ...]]], point: list[Fraction]) -> Fraction:
    total = Fraction(0)
    for coeff, exps in terms:
        term = coeff
        for value, e in zip(point, exps):
            if e:
                term *= value**e
        total += term
    return total


def maximise_gamma(family: FluidFamily, *, eps: float = 1e-3, max_boxes: int = 20000) -> dict[str, Any]:
    """Branch and bound of ``R(gamma) = Q_svf(gamma)/Q_witness(gamma)`` over ``gamma >= 0``.

    ``R`` is homogeneous of degree 0, so its maximum over the simplex is its maximum over the
    ``k`` faces ``{gamma_j = 1, 0 <= gamma_i <= 1}`` of the unit cube. Both forms have
    nonnegative coefficients, hence are nondecreasing in every ``gamma_i >= 0``: on a box,
    ``R <= Q_svf(upper corner)/Q_witness(lower corner)``, an exact rational bound (no rounding;
    ``Q_witness >= tau_j/2 > 0`` on face ``j``). Boxes whose bound is ``<= best + eps`` are
    discarded; the others are halved along their widest side.

    Returns ``best`` (exact value at ``gamma``), ``ceiling`` (no ``gamma`` exceeds it: the best plus
    ``eps`` when every box was discarded, else the largest remaining bound), ``status``
    (``"certified"`` or ``"budget"``) and ``boxes`` (examined).
    """
    k = len(family.types)
    syms = list(sp.symbols(f"gamma1:{k + 1}", nonnegative=True))
    forms = family.forms(syms)
    num, den = _polynomial(forms["svf"], syms), _polynomial(forms["witness"], syms)
    best_value, best_gamma = Fraction(0), None
    for j in range(k):  # the vertices: single groups
        point = [Fraction(int(i == j)) for i in range(k)]
        value = _evaluate(num, point) / _evaluate(den, point)
        if value > best_value:
            best_value, best_gamma = value, tuple(point)
    margin = Fraction(eps).limit_denominator(10**9)
    boxes = [(j, [(Fraction(0), Fraction(1))] * (k - 1)) for j in range(k)] if k > 1 else []
    examined = 0
    while boxes and examined < max_boxes:
        face, box = boxes.pop()
        examined += 1
        lo = [b[0] for b in box]
        hi = [b[1] for b in box]
        lo.insert(face, Fraction(1))
        hi.insert(face, Fraction(1))
        if _evaluate(num, hi) / _evaluate(den, lo) <= best_value + margin:
            continue
        mid = [(a + b) / 2 for a, b in zip(lo, hi)]
        value = _evaluate(num, mid) / _evaluate(den, mid)
        if value > best_value:
            best_value, best_gamma = value, tuple(mid)
        widest = max(range(k - 1), key=lambda d: box[d][1] - box[d][0])
        a, b = box[widest]
        for half in ((a, (a + b) / 2), ((a + b) / 2, b)):
            boxes.append((face, box[:widest] + [half] + box[widest + 1:]))
    remaining = [_evaluate(num, [*b_hi]) / _evaluate(den, [*b_lo]) for b_lo, b_hi in
                 ((_corner(face, box, 0), _corner(face, box, 1)) for face, box in boxes)]
    ceiling = max([best_value + margin] + remaining)
    total = sum(best_gamma)
    return {"best": best_value, "gamma": tuple(g / total for g in best_gamma), "ceiling": ceiling,
            "status": "certified" if not boxes else "budget", "boxes": examined}


def _corner(face: int, box: list[tuple[Fraction, Fraction]], side: int) -> list[Fraction]:
    point = [b[side] for b in box]
    point.insert(face, Fraction(1))
    return point


def finite_member(family: FluidFamily, counts: tuple[int, ...]) -> dict[str, Any]:
    """The member with ``counts`` requests per group (volume order): SVF's TEL (fast evaluator)
    and the paced phase witness's starts (ids ``ids_for(n)``), for checking and witness files."""
    from geosched.adversary.stagger import paced_list_schedule

    order = family.order()
    s = np.concatenate([np.full(counts[j], family.types[j][0], np.int64) for j in order])
    o = np.concatenate([np.full(counts[j], family.types[j][1], np.int64) for j in order])
    a = np.zeros(len(s), np.int64)
    svf = simulate_arrays("svf", a, s, o, family.memory)
    rates = family.rates()
    pace_of = {j: rates["pace"][j] for j in order}
    witness_groups = sorted(order, key=lambda j: (pace_of[j], j))
    offsets = np.cumsum([0] + [counts[j] for j in order])
    block = {j: np.arange(offsets[i], offsets[i + 1]) for i, j in enumerate(order)}
    wit_order = np.concatenate([block[j] for j in witness_groups])
    factor = [float(pace_of[j]) / (volume(*family.types[j]) / family.memory) for j in witness_groups]
    best = None
    for f in sorted(set(factor)) or [1.0]:
        x = paced_list_schedule(a, s, o, family.memory, wit_order, f)
        tel = int((x + o).sum())
        if best is None or tel < best[0]:
            best = (tel, x)
    return {"prompt": s, "output": o, "svf_starts": svf, "svf_tel": int((svf + o).sum()),
            "witness_starts": best[1], "witness_tel": best[0]}


def single_group_scan(max_memory: int, min_memory: int = 4) -> dict[str, Any]:
    """Every single group ``(s, o)`` with ``s + o <= M/2`` for ``min_memory <= M <= max_memory``: the largest
    ``rho`` per ``M`` and overall (exact fractions), and how many groups :func:`peak_count_bound` bounds by
    ``2M/(M + 2)`` (``proved``) and how many it does not (``open``: none, by the derivation's algebra)."""
    per_memory: dict[int, tuple[Fraction, int, int]] = {}
    proved = open_groups = 0
    for memory in range(min_memory, max_memory + 1):
        best: tuple[Fraction, int, int] | None = None
        for o in range(1, memory // 2 + 1):
            for s in range(0, memory // 2 - o + 1):
                rho = single_group_bound(s, o, memory)
                if peak_count_bound(s, o, memory)["proves"]:
                    proved += 1
                else:
                    open_groups += 1
                if best is None or rho > best[0]:
                    best = (rho, s, o)
        per_memory[memory] = best
    top = max(per_memory.items(), key=lambda item: item[1][0])
    return {"per_memory": per_memory, "max": top[1][0], "at": (top[0], top[1][1], top[1][2]), "proved": proved,
            "open": open_groups}
