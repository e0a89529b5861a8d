"""The exact model's memory constraint in Z3, once, for every solver encoding of the package.

Kong, Qi, Ye, Zhou (arXiv 2606.22327), Sec. 2, constraints (2)-(3): a request with prompt ``s``
started at ``x`` with end ``e = x + o`` holds ``s + (t - x)`` tokens at the steps ``x < t <= e``
and nothing otherwise; the running batch fits when the tokens held sum to at most ``M`` at every
step. :func:`held_tokens` and :func:`usage` are that formula over Z3 terms; the lemmas
(:mod:`geosched.verify.lemmas`), the one-step specification (:mod:`geosched.verify.policy_spec`),
the solver search (:mod:`geosched.adversary.z3search`) and the burst ceiling below all build
their memory terms here, so a change of the model is made in one place.

The second half is the **burst ceiling encoding** (issue 25, item 4): constraint families over
``n`` burst requests whose SVF schedule ``x`` is fully determined and whose second schedule
``y`` is free but feasible, so that ``q TEL(x) > p TEL(y)`` unsat proves that no instance within
the bounds has ``TEL(SVF) > (p/q) TEL(OPT)``. Symmetry breaking keeps one representative of each
class of equivalent solutions, and every cut is satisfied by some optimal ``y``
(:func:`canonical_schedule`), so an ``unsat`` still covers OPT:

* the instance is sorted by volume (SVF's order is the index order; requests of equal volume
  keep both orders, as each order is its own instance; identical requests are interchangeable);
* SVF's schedule is the time-indexed first fit of :func:`svf_schedule`: ``x_0 = 0`` and ``x_i``
  the first step ``t >= x_{i-1}`` at which request ``i`` passes the forward-looking check against
  the requests before it, checked at every step of ``(t, t + o_i]`` on prefix usages
  ``u_i(t)`` (the tokens of requests ``0..i-1``), one auxiliary integer per ``(i, t)``;
* ``y`` in canonical form (:data:`CUTS`, each optional): identical requests start in index order; some
  request starts at 0 and every request that starts at ``y_i > 0`` overlaps a request running at step
  ``y_i`` (no idle step before it); no such request can start one step earlier alone (memory would
  overflow at a step of ``[y_i, y_i + o_i)``); the makespan is at most ``sum o``.

Example
-------
>>> import z3
>>> s, x, o, t = z3.Ints("s x o t")
>>> z3.simplify(z3.substitute(usage([(s, x, x + o)], t), (s, z3.IntVal(2)), (x, z3.IntVal(1)),
...                          (o, z3.IntVal(3)), (t, z3.IntVal(3))))
4
>>> b = BurstBounds(n=2, memory=(4, 4), max_prompt=1, max_output=2)
>>> len(ceiling_constraints(b, BurstVariables.make(2))) > 0
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import z3

from geosched.errors import ValidationError
from geosched.reference_impl.model import BurstSpace

__all__ = [
    "active_at",
    "held_tokens",
    "usage",
    "BurstBounds",
    "BurstVariables",
    "volume_term",
    "instance_constraints",
    "svf_order",
    "svf_schedule",
    "feasible_schedule",
    "canonical_schedule",
    "CUTS",
    "ratio_exceeds",
    "ceiling_constraints",
]


# ---------------------------------------------------------------- the memory constraint (one encoding)
def active_at(start: Any, end: Any, step: Any) -> z3.BoolRef:
    """A run ``(start, end]`` holds memory at ``step`` iff ``start < step <= end``."""
    return z3.And(start < step, step <= end)


def held_tokens(prompt: Any, start: Any, end: Any, step: Any) -> z3.ArithRef:
    """Tokens held at ``step`` by a request with prompt ``s`` running ``(start, end]``:
    ``s + step - start`` while active, else 0 (Kong et al., Sec. 2)."""
    return z3.If(active_at(start, end, step), prompt + step - start, 0)


def usage(runs: Iterable[tuple[Any, Any, Any]], step: Any) -> z3.ArithRef:
    """``sum_{(s, x, e) active at step} (s + step - x)`` over ``(prompt, start, end)`` triples (0 when empty)."""
    terms = [held_tokens(s, x, e, step) for s, x, e in runs]
    return z3.Sum(terms) if terms else z3.IntVal(0)


# ---------------------------------------------------------------- the burst ceiling encoding
@dataclass(frozen=True)
class BurstBounds(BurstSpace):
    """The instances a ceiling covers: a :class:`~geosched.reference_impl.model.BurstSpace`."""

    FIELD: ClassVar[str] = "ceiling"

    @property
    def longest(self) -> int:
        """The largest output any instance within the bounds can have."""
        return max(1, min(self.max_output, int(self.alpha * self.memory[1])))

    @property
    def horizon(self) -> int:
        """``H = n * longest``: both makespans are at most ``sum o <= H``."""
        return self.n * self.longest

    def describe(self) -> str:
        return (self.describe_lengths() + f", s + o <= {self.alpha} M"
                + (f", max(s + o) > {self.alpha_low} M" if self.alpha_low else ""))


@dataclass(frozen=True)
class BurstVariables:
    """The Z3 variables of one ceiling query: memory, lengths, SVF's starts ``x``, the free starts ``y``."""

    memory: z3.ArithRef
    prompts: tuple[z3.ArithRef, ...]
    outputs: tuple[z3.ArithRef, ...]
    x: tuple[z3.ArithRef, ...]  # SVF's starts (determined by the constraints)
    y: tuple[z3.ArithRef, ...]  # the free feasible schedule (OPT among them)

    @classmethod
    def make(cls, n: int) -> BurstVariables:
        def ints(prefix: str) -> tuple[z3.ArithRef, ...]:
            return tuple(z3.Int(f"{prefix}{i}") for i in range(n))

        return cls(z3.Int("M"), ints("s"), ints("o"), ints("x"), ints("y"))

    def named(self) -> dict[str, z3.ArithRef]:
        """Every variable by name (for models and counterexamples)."""
        names: dict[str, z3.ArithRef] = {"M": self.memory}
        for group in (self.prompts, self.outputs, self.x, self.y):
            names.update({str(v): v for v in group})
        return names


def volume_term(longest: int, prompt: Any, output: Any) -> z3.ArithRef:
    """``v = s o + (o^2 + o)/2`` (Kong et al., Eq. (1)), linear in ``s`` for each ``o <= longest``: a table over
    ``o`` keeps the model linear."""
    expr: z3.ArithRef = z3.IntVal(0)
    for k in range(longest, 0, -1):
        expr = z3.If(output == k, prompt * k + (k * k + k) // 2, expr)
    return expr


def instance_constraints(b: BurstBounds, v: BurstVariables) -> list[z3.BoolRef]:
    """Lengths, the memory range and ``den (s_i + o_i) <= num M`` (``alpha = num/den``)."""
    cons = [v.memory >= b.memory[0], v.memory <= b.memory[1]]
    for s, o in zip(v.prompts, v.outputs):
        cons += [s >= 0, s <= b.max_prompt, o >= 1, o <= b.longest,
                 b.alpha.denominator * (s + o) <= b.alpha.numerator * v.memory]
    low = b.alpha_low
    if low and v.prompts:  # the band: some request's peak exceeds alpha_min * M
        cons.append(z3.Or([low.denominator * (s + o) > low.numerator * v.memory
                           for s, o in zip(v.prompts, v.outputs)]))
    return cons


def svf_order(b: BurstBounds, v: BurstVariables) -> list[z3.BoolRef]:
    """Volumes non-decreasing in the index: SVF's order (ties by position) is the index order."""
    vol = [volume_term(b.longest, s, o) for s, o in zip(v.prompts, v.outputs)]
    return [vol[i] <= vol[i + 1] for i in range(len(vol) - 1)]


def _prefix_usages(b: BurstBounds, v: BurstVariables) -> tuple[list[list[Any]], list[z3.BoolRef]]:
    """``u[i][t]``, the tokens SVF's requests ``0..i-1`` hold at step ``t`` (``t = 0..H``), as auxiliary
    integers defined one request at a time."""
    horizon = b.horizon
    zero = z3.IntVal(0)
    prefix: list[list[Any]] = [[zero] * (horizon + 1)]
    cons: list[z3.BoolRef] = []
    for i in range(b.n - 1):
        row: list[Any] = [zero]
        for t in range(1, horizon + 1):
            aux = z3.Int(f"u_{i + 1}_{t}")
            cons.append(aux == prefix[i][t] + held_tokens(v.prompts[i], v.x[i], v.x[i] + v.outputs[i], t))
            row.append(aux)
        prefix.append(row)
    return prefix, cons


def svf_schedule(b: BurstBounds, v: BurstVariables) -> list[z3.BoolRef]:
    """SVF's strict head-of-line schedule of a burst in index order: ``x_0 = 0``; ``x_i`` is the first step
    ``t >= x_{i-1}`` at which ``u_i(t + d) + s_i + d <= M`` for every ``d = 1..o_i``. Every start is at most
    ``sum_{j<i} o_j <= i * longest`` (an empty batch admits the head), so ``t`` runs to there."""
    prefix, cons = _prefix_usages(b, v)
    s, o, x = v.prompts, v.outputs, v.x
    cons.append(x[0] == 0)
    for i in range(1, b.n):
        cons += [x[i] >= x[i - 1], x[i] <= i * b.longest]
        for t in range(i * b.longest + 1):
            fits = z3.And([z3.Or(o[i] < d, prefix[i][t + d] + s[i] + d <= v.memory) for d in range(1, b.longest + 1)])
            flag = z3.Bool(f"fits_{i}_{t}")
            cons += [flag == fits, z3.Implies(x[i] == t, flag),
                     z3.Implies(z3.And(x[i - 1] <= t, t < x[i]), z3.Not(flag))]
    return cons


def feasible_schedule(b: BurstBounds, v: BurstVariables) -> tuple[list[z3.BoolRef], list[Any]]:
    """A free schedule ``y`` that fits at every step ``1..H``; also returns its usage terms ``w[t]``
    (auxiliary integers, ``w[0] = 0``)."""
    runs = [(s, y, y + o) for s, y, o in zip(v.prompts, v.y, v.outputs)]
    cons: list[z3.BoolRef] = [c for y, o in zip(v.y, v.outputs) for c in (y >= 0, y + o <= b.horizon)]
    held: list[Any] = [z3.IntVal(0)]
    for t in range(1, b.horizon + 1):
        aux = z3.Int(f"w_{t}")
        cons += [aux == usage(runs, t), aux <= v.memory]
        held.append(aux)
    return cons, held


CUTS = ("identical", "makespan", "idle", "shift")  # every cut canonical_schedule knows


def canonical_schedule(b: BurstBounds, v: BurstVariables, held: Sequence[Any],
                       cuts: Iterable[str] = CUTS) -> list[z3.BoolRef]:
    """Cuts on ``y`` that every optimal schedule satisfies after permuting identical requests (module
    docstring), so ``unsat`` with them still speaks of OPT; ``cuts`` names those to add:

    * ``identical``: identical requests ``i < j`` start in index order (a permutation keeps feasibility and TEL);
    * ``makespan``: the makespan is at most ``sum o`` (no idle step before the last start);
    * ``idle``: some request starts at 0, and each ``y_i > 0`` overlaps a request running at step ``y_i``
      (else every request from ``y_i`` on moves one step left: feasible, smaller TEL);
    * ``shift``: each ``y_i > 0`` cannot move one step left alone: at its first step ``w + s_i + 1 > M`` or at a
      later step of its run ``w + 1 > M`` (moving it adds ``s_i + 1`` tokens at step ``y_i`` and one at each
      step up to ``y_i + o_i - 1``).
    """
    chosen = set(cuts)
    if chosen - set(CUTS):
        raise ValidationError("ceiling cut", sorted(chosen - set(CUTS))[0], f"must be one of {', '.join(CUTS)}")
    s, o, y, memory = v.prompts, v.outputs, v.y, v.memory
    n, total = b.n, z3.Sum(list(o))
    cons: list[z3.BoolRef] = [z3.Or([yi == 0 for yi in y])] if "idle" in chosen else []
    for i in range(n):
        if "makespan" in chosen:
            cons.append(y[i] + o[i] <= total)
        if "identical" in chosen:
            cons += [z3.Implies(z3.And(s[i] == s[j], o[i] == o[j]), y[i] <= y[j]) for j in range(i + 1, n)]
        if "idle" in chosen:
            others = [z3.And(y[j] < y[i], y[i] <= y[j] + o[j]) for j in range(n) if j != i]
            cons.append(z3.Or(y[i] == 0, *others))
        if "shift" in chosen:
            blocked = [z3.And(y[i] <= t, t < y[i] + o[i], held[t] + 1 + z3.If(y[i] == t, s[i], 0) > memory)
                       for t in range(1, b.horizon + 1)]
            cons.append(z3.Or(y[i] == 0, *blocked))
    return cons


def ratio_exceeds(ratio: Fraction, v: BurstVariables) -> z3.BoolRef:
    """``q TEL(x) > p TEL(y)`` for ``ratio = p/q`` (burst: TEL is the sum of completions)."""
    tel_x = z3.Sum([x + o for x, o in zip(v.x, v.outputs)])
    tel_y = z3.Sum([y + o for y, o in zip(v.y, v.outputs)])
    return ratio.denominator * tel_x > ratio.numerator * tel_y


def ceiling_constraints(b: BurstBounds, v: BurstVariables, *, cuts: Iterable[str] = CUTS) -> list[z3.BoolRef]:
    """Every family but the ratio: the instance, SVF's order and schedule, a feasible ``y`` with the
    canonical-form ``cuts`` (:func:`canonical_schedule`; ``()``: none)."""
    cons = instance_constraints(b, v) + svf_order(b, v) + svf_schedule(b, v)
    feasible, held = feasible_schedule(b, v)
    return cons + feasible + canonical_schedule(b, v, held, cuts)
