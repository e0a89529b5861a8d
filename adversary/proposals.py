"""Family proposals from the fluid formulas: k-group workloads (k up to 4) with staggered arrivals.

Issue 25, item 2: an outer loop proposes family parameters from the fluid analysis
(:mod:`geosched.adversary.fluid`) for the structured search (:mod:`geosched.adversary.structured`)
to start from. The analysis is that of Kong, Qi, Ye, Zhou, arXiv 2606.22327 (Prop. 3.1 and
Thm. 3.2: bursts, ``alpha <= 1/2``); the proposals are ours.

:func:`propose_families` (random starts: every choice draws from ``rng``):

1. samples single groups ``(s, o)`` with ``s + o <= min(peak_max, M/2)`` (every ``(0, o)`` column
   plus ``sample`` random ones), scores each by SVF's exact cycle rate ``theta`` (cheap) and keeps the
   ``pool`` with the largest ``rho = M/(theta v)`` (the ceiling no family over them can exceed);
2. for ``k = 1 .. max_groups``, draws ``combos`` random ``k``-subsets of the pool with distinct
   volumes, and maximises the *witnessed* fluid ratio ``Q_svf(gamma)/Q_witness(gamma)`` over the
   simplex by the certified branch and bound (:func:`~geosched.adversary.fluid.maximise_gamma`);
3. returns the best as :class:`Proposal`: rows ``[count, s, o, arrival, 0, 0, 0]`` (the layout of
   ``structured.Group.to_list``, so ``Description.from_list(p.rows)`` is the workload) with
   ``count = round(gamma_j n)``, in volume order, and with ``stagger=True`` a second variant whose
   group ``j`` arrives when the paced witness would start it (the witness's phases in Smith order:
   the start of phase ``j`` is the sum of ``count_i * pace_i`` over the phases before it).

The fluid values are limits (``n -> infinity``); a finite member's certified ratio comes from
simulating it (the structured search's scoring, or :func:`geosched.adversary.fluid.finite_member`).

Example
-------
>>> import numpy as np
>>> best = propose_families(30, 15, n=60, rng=np.random.default_rng(0), max_groups=2, combos=4)[0]
>>> best.fluid_lower >= 1.5, sum(row[0] for row in best.rows) <= 61
(True, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from geosched.adversary.fluid import FluidFamily, maximise_gamma, svf_cycle_rate, volume
from geosched.errors import ValidationError

__all__ = ["Proposal", "ProposalSettings", "propose_families", "single_group_pool", "MAX_PROPOSAL_MEMORY"]

MAX_PROPOSAL_MEMORY = 1000  # the cycle detection simulates a few thousand requests per group


@dataclass(frozen=True)
class Proposal:
    """A k-group family proposed by the fluid analysis, with its fluid limits."""

    rows: tuple[tuple[int, ...], ...]  # [count, s, o, arrival, prompt_step, output_step, arrival_step] per group
    types: tuple[tuple[int, int], ...]  # (s_j, o_j), volume order
    gamma: tuple[Fraction, ...]  # the maximiser's shares, volume order
    fluid_lower: Fraction  # Q_svf/Q_witness at gamma: the limit of the certified ratio
    ceiling: Fraction  # certified: no gamma over these types exceeds it (witnessed ratio)
    staggered: bool  # arrivals at the witness's phase starts (else a burst)

    def to_dict(self) -> dict[str, Any]:
        return {"rows": [list(r) for r in self.rows], "types": [list(t) for t in self.types],
                "gamma": [str(g) for g in self.gamma], "fluid_lower": str(self.fluid_lower),
                "fluid_lower_float": float(self.fluid_lower), "ceiling": str(self.ceiling),
                "staggered": self.staggered}


def _check(memory: int, peak_max: int, n: int) -> None:
    for name, value, low in (("memory", memory, 4), ("peak_max", peak_max, 1), ("n", n, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValidationError(name, value, f"must be an integer >= {low}")
    if memory > MAX_PROPOSAL_MEMORY:
        raise ValidationError("memory", memory, f"must be <= {MAX_PROPOSAL_MEMORY} for the fluid proposals")


def single_group_pool(memory: int, peak_max: int, rng: np.random.Generator, *, sample: int = 40,
                      pool: int = 8) -> list[tuple[Fraction, int, int]]:
    """``(rho, s, o)`` of the ``pool`` single groups with the largest ``rho = M/(theta v)`` among every ``(0, o)``
    and ``sample`` random ``(s, o)`` with ``s + o <= min(peak_max, M/2)``; largest first."""
    top = min(peak_max, memory // 2)
    if top < 1:
        raise ValidationError("peak_max", peak_max, f"leaves no request with s + o <= M/2 = {memory / 2:g}")
    types = {(0, o) for o in range(1, top + 1)}
    for _ in range(sample):
        o = int(rng.integers(1, top + 1))
        types.add((int(rng.integers(0, top - o + 1)), o))
    scored = [(Fraction(memory) / (svf_cycle_rate(s, o, memory) * volume(s, o)), s, o) for s, o in sorted(types)]
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    return scored[:pool]


def _rows(family: FluidFamily, gamma: tuple[Fraction, ...], n: int, stagger: bool) -> tuple[tuple[int, ...], ...]:
    order = family.order()
    counts = {j: max(1, round(float(gamma[j]) * n)) for j in order}
    arrival = dict.fromkeys(order, 0)
    if stagger:
        pace = family.rates()["pace"]
        clock = Fraction(0)
        for j in sorted(order, key=lambda j: (pace[j], j)):  # the witness's phases, Smith's rule
            arrival[j] = math.floor(clock)
            clock += counts[j] * pace[j]
    return tuple((counts[j], *family.types[j], arrival[j], 0, 0, 0) for j in order)


def _combinations(pool: list[tuple[Fraction, int, int]], max_groups: int, combos: int,
                  rng: np.random.Generator) -> list[tuple[tuple[int, int], ...]]:
    """Every single group of the pool, then ``combos`` random ``k``-subsets (distinct volumes) per ``k >= 2``."""
    out = [((s, o),) for _, s, o in pool]
    seen = set(out)
    for k in range(2, min(max_groups, len(pool)) + 1):
        for _ in range(combos):
            pick = rng.choice(len(pool), size=k, replace=False)
            types = tuple(sorted({(pool[i][1], pool[i][2]) for i in pick}, key=lambda t: volume(*t)))
            if len({volume(*t) for t in types}) == k and types not in seen:
                seen.add(types)
                out.append(types)
    return out


@functools.lru_cache(maxsize=4096)
def _maximised(memory: int, types: tuple[tuple[int, int], ...], eps: float, max_boxes: int) -> tuple[FluidFamily, dict]:
    """The branch and bound of one family (deterministic, so cached: searches with other seeds draw
    many of the same families, every single group among them). Callers only read the result."""
    family = FluidFamily(memory, types)
    return family, maximise_gamma(family, eps=eps, max_boxes=max_boxes)


@dataclass(frozen=True)
class ProposalSettings:
    """How many families :func:`propose_families` keeps (``top``) and how finely its branch and bound
    maximises each one's group shares (``eps``, ``max_boxes``: see :func:`maximise_gamma`)."""

    top: int = 5
    eps: float = 1e-3
    max_boxes: int = 2000


def propose_families(memory: int, peak_max: int, *, n: int, rng: np.random.Generator, max_groups: int = 3,
                     combos: int = 6, stagger: bool = False,
                     settings: ProposalSettings = ProposalSettings()) -> list[Proposal]:  # noqa: B008 - frozen
    """The ``settings.top`` best k-group families (``k <= max_groups``) for SVF in memory ``memory``, by
    their witnessed fluid ratio; with ``stagger`` each also comes with staggered arrivals (see the module
    docstring). Every random choice draws from ``rng``; the same seed gives the same proposals.

    Raises
    ------
    ValidationError
        For a bad ``memory``, ``peak_max``, ``n`` or ``max_groups`` (1 to 4).
    """
    _check(memory, peak_max, n)
    if isinstance(max_groups, bool) or not isinstance(max_groups, int) or not 1 <= max_groups <= 4:
        raise ValidationError("max_groups", max_groups, "must be an integer in 1..4")
    pool = single_group_pool(memory, peak_max, rng)
    found: list[tuple[Fraction, FluidFamily, dict[str, Any]]] = []
    for types in _combinations(pool, max_groups, combos, rng):
        family, result = _maximised(memory, types, settings.eps, settings.max_boxes)
        found.append((result["best"], family, result))
    found.sort(key=lambda item: (-item[0], len(item[1].types)))
    proposals: list[Proposal] = []
    for value, family, result in found[:settings.top]:
        order = family.order()
        gamma = tuple(result["gamma"][j] for j in order)
        for staggered in ((False, True) if stagger and len(order) > 1 else (False,)):
            rows = _rows(family, result["gamma"], n, staggered)
            if all(p.rows != rows for p in proposals):  # a staggered variant may equal the burst one
                proposals.append(Proposal(rows, tuple(family.types[j] for j in order), gamma, value,
                                          result["ceiling"], staggered))
    return proposals
