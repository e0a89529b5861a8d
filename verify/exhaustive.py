"""Exhaustive checking of Kong et al.'s burst-arrival claims on every small instance.

For every burst instance in a finite *space* (multisets of ``(s, o)`` pairs with
``n <= max_n``, ``min_prompt <= s <= max_prompt``, ``1 <= o <= max_output``, and every budget
``P <= M <= max_memory`` with ``P = max_i (s_i + o_i)``), the exact optimum is computed and
these claims of Kong, Qi, Ye, Zhou (arXiv 2606.22327) are checked in exact integers:

* ``thm3.2_bound`` (Thm. 3.2): ``TEL(SVF) <= (1 + 2/(1 - alpha)) TEL(OPT)``, ``alpha = P/M``,
  in the integer form ``(M - P) TEL(SVF) <= (3M - P) TEL(OPT)`` (vacuous when ``M = P``);
* ``prop3.1`` (Prop. 3.1): ``M TEL(OPT) >= sum_k (sum of the k smallest volumes)``, and the
  identity ``sum_k prefix_k = sum_i v_i + sum_{a<b} min(v_a, v_b)``;
* ``cert_peak_mass`` (Lemma A.2): at every blocked step the running peak mass is ``> M - P``
  (:class:`~geosched.verify.monitor.CertificateMonitor`);
* ``cert_order`` (Lemma A.2): every running request precedes the waiting head in volume order;
* ``lemmaA2_sum`` (Lemma A.2 summed per request): ``(M - P) W_j <= 2 sum_{i before j} v_i``
  with ``W_j = x_j - a_j`` and "before" the order ``(volume, arrival, id)``;
* sanity of the optimum itself: ``TEL(OPT) >= sum_i o_i`` and ``TEL(OPT) <= TEL(A)`` for
  every policy ``A`` run (an exact solver above a heuristic would be a solver bug).

The same checks run for the *variants* the proofs do not cover: backfilling SVF, 1-bit SVF
(``svf1``, default threshold and proxies), SJF (MC-SF), FCFS, and strict SVF with arrivals
over time (a second space with arrivals ``0 <= a <= max_arrival``). For each variant and check
the result counts the instances checked and failed, and keeps the *smallest* failing instance
(fewest requests, then smallest ``M``, then smallest total length, then lexicographic), saved
with both schedules, each re-checked by :func:`geosched.reference_impl.checker.check_schedule`.

The optimum comes from the project's exact solver
(:func:`geosched.reference_impl.opt.brute_force_opt`) when importable, else from this
module's independent dynamic program :func:`dp_opt`; ``cross_check=True`` runs both and
stops on any disagreement. A run is split into chunks of multisets; after each chunk the
accumulated state goes to a checkpoint file (``checkpoint=``) so that a killed run continues
with ``resume=True``.

Example
-------
>>> res = run_exhaustive(Space(max_n=2, max_prompt=1, max_output=2, max_memory=4),
...                      arrival_space=None, variants=("svf",))
>>> res.instances, res.variants["svf"]["checks"]["thm3.2_bound"]["failed"]
(39, 0)
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.executor import using_executor
from geosched.output import write_text_atomic
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.model import Instance, Request, instance_from_dict, instance_to_dict
from geosched.reference_impl.opt import brute_force_opt
from geosched.reference_impl.simulation import simulate
from geosched.results import Result
from geosched.verify.monitor import CertificateMonitor

__all__ = [
    "PLANTED",
    "planted_problems",
    "Space",
    "Variant",
    "VARIANTS",
    "DEFAULT_SPACE",
    "DEFAULT_ARRIVAL_SPACE",
    "THOROUGH_SPACE",
    "THOROUGH_ARRIVAL_SPACE",
    "ExhaustiveResult",
    "multisets",
    "enumerate_instances",
    "count_instances",
    "dp_opt",
    "run_exhaustive",
    "bound_holds",
    "prefix_bound",
    "check_checkpoint",
    "cells",
    "SpaceUnion",
]

# --------------------------------------------------------------------------- the formulas
# Module-level so that a test can break one in a copy (monkeypatch) and see the check fail.


BOUND_NUMERATOR = 2  # the "2" of Thm. 3.2's 1 + 2/(1 - alpha)


def bound_holds(svf_tel: int, opt_tel: int, memory: int, peak: int, numerator: Any = None) -> bool:
    """Kong et al. Thm. 3.2 in integers: ``(M - P) TEL(SVF) <= (3M - P) TEL(OPT)``.

    Equivalent to ``TEL(SVF) <= (1 + 2/(1 - alpha)) TEL(OPT)`` for ``alpha = P/M < 1``,
    because ``1 + 2/(1 - P/M) = (3M - P)/(M - P)``; written with :data:`BOUND_NUMERATOR`
    ``c`` (or ``numerator``) as ``(M - P) TEL(SVF) <= (M - P + c M) TEL(OPT)``.

    >>> bound_holds(13, 9, 12, 9)   # 3*13 <= 27*9
    True
    """
    c = BOUND_NUMERATOR if numerator is None else numerator
    return (memory - peak) * svf_tel <= (memory - peak + c * memory) * opt_tel


# the "2" of the explicit Thm. 3.3 bound 1 + 2T/(1 - alpha) (geosched.theory.kong_thm3_3, our constant)
THM33_NUMERATOR = 2
# the explicit Jaillet et al. Thm. 4.3 constant (geosched.theory.jaillet_thm4_3: Thm. 3.2 at alpha <= 1/2)
JAILLET_CONSTANT = 5
# the "2" of Lemma A.2 summed per request: (M - P) W_j <= 2 sum_{i before j} v_i
LEMMA_A2_FACTOR = 2


def thm33_bound_holds(tel: int, opt_tel: int, memory: int, peak: int, longest: int, numerator: Any = None) -> bool:
    """Explicit Thm. 3.3 bound (our constant): ``TEL <= (1 + 2T/(1 - alpha)) TEL(OPT)``, ``T = max o``.

    Integer form ``(M - P) TEL <= (M - P + 2 T M) TEL(OPT)``.

    >>> thm33_bound_holds(8, 6, 5, 4, 3)   # 1*8 <= (1 + 30)*6
    True
    """
    c = THM33_NUMERATOR if numerator is None else numerator
    return (memory - peak) * tel <= (memory - peak + c * longest * memory) * opt_tel


def prefix_bound(volumes: Sequence[int]) -> int:
    """``sum_k (sum of the k smallest volumes)`` (Kong et al., Prop. 3.1's right-hand side).

    >>> prefix_bound([24, 20])   # 20 + (20 + 24)
    64
    """
    total = running = 0
    for v in sorted(volumes):
        running += v
        total += running
    return total


def _pair_identity_rhs(volumes: Sequence[int]) -> int:
    """``sum_i v_i + sum_{a<b} min(v_a, v_b)``, the identity's right-hand side."""
    return sum(volumes) + sum(min(a, b) for a, b in itertools.combinations(volumes, 2))


# --------------------------------------------------------------------------- the spaces


@dataclass(frozen=True)
class Space:
    """A finite set of instances: multisets of ``(a, s, o)`` and every ``M`` in ``[P, max_memory]``."""

    max_n: int  # requests per instance: 1..max_n
    max_prompt: int  # s in [min_prompt, max_prompt]
    max_output: int  # o in [1, max_output]
    max_memory: int  # M in [P, max_memory], P the instance's largest s + o
    min_prompt: int = 0  # smallest prompt
    max_arrival: int = 0  # a in [0, max_arrival]; 0 gives burst instances
    alpha_band: tuple[Fraction, Fraction] | None = None  # only M with lo < P/M <= hi (issue 32); None: every M

    def __post_init__(self) -> None:
        if self.alpha_band is not None:
            try:
                lo, hi = (Fraction(v) for v in self.alpha_band)
            except (TypeError, ValueError, ZeroDivisionError):
                raise ValidationError("space alpha_band", self.alpha_band, "must be a pair of fractions") from None
            if not 0 <= lo < hi <= 1:
                raise ValidationError("space alpha_band", self.alpha_band, "must satisfy 0 <= lo < hi <= 1")
            object.__setattr__(self, "alpha_band", (lo, hi))
        for name in ("max_n", "max_output", "max_memory"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValidationError(f"space {name}", value, "must be an integer >= 1")
        for name in ("max_prompt", "min_prompt", "max_arrival"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValidationError(f"space {name}", value, "must be an integer >= 0")
        if self.min_prompt > self.max_prompt:
            raise ValidationError("space min_prompt", self.min_prompt, f"must be <= max_prompt {self.max_prompt}")

    @property
    def label(self) -> str:
        """Human-readable bound, e.g. ``n<=4, 0<=s<=4, 1<=o<=5, M<=16``."""
        text = f"n<={self.max_n}, {self.min_prompt}<=s<={self.max_prompt}, 1<=o<={self.max_output}, " \
               f"P<=M<={self.max_memory}"
        if self.max_arrival:
            text += f", 0<=a<={self.max_arrival}"
        if self.alpha_band is not None:
            text += f", {self.alpha_band[0]}<P/M<={self.alpha_band[1]}"
        return text

    def memory_range(self, peak: int) -> tuple[int, int]:
        """The ``M`` of this box for an instance of largest peak ``P``: ``[P, max_memory]``, cut to the
        band ``lo < P/M <= hi`` (``M >= P/hi``, ``M < P/lo``); empty when ``low > high``."""
        low, high = peak, self.max_memory
        if self.alpha_band is not None:
            lo, hi = self.alpha_band
            low = max(low, math.ceil(peak / hi))
            if lo > 0:
                high = min(high, math.ceil(peak / lo) - 1)
        return low, high

    def shapes(self) -> list[tuple[int, int, int]]:
        """The ``(a, s, o)`` triples, in lexicographic order."""
        return [(a, s, o) for a in range(self.max_arrival + 1)
                for s in range(self.min_prompt, self.max_prompt + 1)
                for o in range(1, self.max_output + 1)]


@dataclass(frozen=True)
class SpaceUnion:
    """A union of :class:`Space` boxes; an instance in several boxes is checked once (in the first)."""

    boxes: tuple[Space, ...]  # the boxes, in order

    def __post_init__(self) -> None:
        object.__setattr__(self, "boxes", tuple(self.boxes))
        if not self.boxes:
            raise ValidationError("space boxes", (), "must hold at least one Space")
        if len({b.max_arrival > 0 for b in self.boxes}) > 1:
            raise ValidationError("space boxes", [b.label for b in self.boxes], "must be all burst or all arrivals")
        if len({b.alpha_band for b in self.boxes}) > 1:  # the boxes' overlap is computed per M range below
            raise ValidationError("space boxes", [b.label for b in self.boxes], "must all have the same alpha band")

    @property
    def label(self) -> str:
        """The boxes' labels joined by `` | ``."""
        return " | ".join(b.label for b in self.boxes)

    @property
    def max_arrival(self) -> int:
        return max(b.max_arrival for b in self.boxes)


AnySpace = Space | SpaceUnion

# README's example {(6, 3), (1, 5)}, M = 12 lies in the first box (SVF 13, OPT 9)
DEFAULT_SPACE = SpaceUnion((Space(max_n=2, max_prompt=6, max_output=6, max_memory=12),
                            Space(max_n=3, max_prompt=3, max_output=4, max_memory=10)))
DEFAULT_ARRIVAL_SPACE = Space(max_n=2, max_prompt=2, max_output=3, max_memory=6, max_arrival=3)
# the variants outside the theorems, in the default run (a smaller box: they cost a simulation each)
DEFAULT_VARIANT_SPACE = Space(max_n=3, max_prompt=2, max_output=4, max_memory=10)
THOROUGH_SPACE = SpaceUnion((Space(max_n=2, max_prompt=10, max_output=10, max_memory=24),
                             Space(max_n=3, max_prompt=6, max_output=6, max_memory=16),
                             Space(max_n=4, max_prompt=4, max_output=5, max_memory=16)))
THOROUGH_ARRIVAL_SPACE = Space(max_n=3, max_prompt=2, max_output=3, max_memory=8, max_arrival=3)
QUICK_SPACE = Space(max_n=3, max_prompt=2, max_output=3, max_memory=8)  # geosched claims --quick


def _boxes(space: AnySpace) -> tuple[Space, ...]:
    return space.boxes if isinstance(space, SpaceUnion) else (space,)


def _within(box: Space, multiset: tuple[tuple[int, int, int], ...]) -> bool:
    return len(multiset) <= box.max_n and all(
        a <= box.max_arrival and box.min_prompt <= s <= box.max_prompt and o <= box.max_output for a, s, o in multiset)


def cells(space: AnySpace) -> list[tuple[tuple[tuple[int, int, int], ...], int, int]]:
    """``(multiset, M_low, M_high)``: every instance of ``space`` exactly once, boxes in order.

    An instance ``(multiset, M)`` already in an earlier box is left to that box.

    >>> cells(SpaceUnion((Space(1, 0, 2, 3), Space(1, 0, 2, 4))))
    [(((0, 0, 1),), 1, 3), (((0, 0, 2),), 2, 3), (((0, 0, 1),), 4, 4), (((0, 0, 2),), 4, 4)]
    """
    out = []
    boxes = _boxes(space)
    for k, box in enumerate(boxes):
        for ms in multisets(box):
            low, high = box.memory_range(max(s + o for _, s, o in ms))
            for earlier in boxes[:k]:
                if _within(earlier, ms):
                    low = max(low, earlier.max_memory + 1)
            if low <= high:
                out.append((ms, low, high))
    return out


def multisets(space: AnySpace) -> list[tuple[tuple[int, int, int], ...]]:
    """Every multiset of ``(a, s, o)`` triples of size ``1..max_n``: n first, then lexicographic
    (for a union, the boxes' multisets in order, each once)."""
    if isinstance(space, SpaceUnion):
        return list(dict.fromkeys(ms for ms, _, _ in cells(space)))
    shapes = space.shapes()
    out: list[tuple[tuple[int, int, int], ...]] = []
    for n in range(1, space.max_n + 1):
        out.extend(itertools.combinations_with_replacement(shapes, n))
    return out


def _instances_of(multiset: tuple[tuple[int, int, int], ...], low: int, high: int) -> Iterator[Instance]:
    requests = [Request(f"r{k}", a, s, o) for k, (a, s, o) in enumerate(multiset)]
    for memory in range(low, high + 1):
        yield Instance(memory, requests)


def enumerate_instances(space: AnySpace) -> Iterator[Instance]:
    """Every instance of ``space`` (ids ``r0, r1, ...`` in the multiset's order)."""
    for ms, low, high in cells(space):
        yield from _instances_of(ms, low, high)


def count_instances(space: AnySpace) -> int:
    """``sum over multisets of (max_memory - P + 1)``, multisets with ``P > max_memory`` counting 0
    (for a union, every instance once)."""
    return sum(high - low + 1 for _, low, high in cells(space))


def dp_opt(instance: Instance) -> tuple[int, dict[str, int]]:
    """Exact ``(TEL(OPT), starts)`` by a shortest path over per-step states (tiny instances).

    Independent of the simulator, the policies and the project's solvers. The state at
    decision step ``t`` gives each request's status (not started, running with ``k`` tokens
    decoded, done), plus ``min(t, max a)`` while arrivals are pending; a transition starts
    any subset of the arrived, unstarted requests, is allowed when the tokens held at step
    ``t + 1`` (``sum (s_i + k_i + 1)`` over the running) are ``<= M``, and costs the number
    of arrived unfinished requests, so the path cost is ``sum_i (C_i - a_i) = TEL``.
    Identical requests are interchangeable (states are canonicalised). Dijkstra.

    >>> from geosched.reference_impl.model import burst_instance
    >>> dp_opt(burst_instance(12, [(6, 3), (1, 5)]))[0]
    9
    """
    reqs = sorted(instance.requests, key=lambda r: (r.arrival, r.prompt, r.output, r.id))
    n = len(reqs)
    if n == 0:
        return 0, {}
    memory = instance.memory
    arrival = [r.arrival for r in reqs]
    prompt = [r.prompt for r in reqs]
    output = [r.output for r in reqs]
    last_arrival = max(arrival)
    group_of = [0] * n
    groups: list[list[int]] = []
    for k in range(n):
        if k and (arrival[k], prompt[k], output[k]) == (arrival[k - 1], prompt[k - 1], output[k - 1]):
            groups[-1].append(k)
        else:
            groups.append([k])
        group_of[k] = len(groups) - 1
    multi = [g for g in groups if len(g) > 1]

    def canon(status: list[int]) -> tuple[int, ...]:
        for g in multi:
            values = sorted(status[i] for i in g)
            for i, v in zip(g, values):
                status[i] = v
        return tuple(status)

    # status: -1 not started, 0 done, k >= 1 running with k tokens decoded
    start_key = (0, tuple([-1] * n))
    dist = {start_key: 0}
    parent: dict[Any, Any] = {start_key: None}
    heap = [(0, 0, start_key)]
    goal = None
    while heap:
        d, t, key = heapq.heappop(heap)
        if dist[key] != d:
            continue
        status = key[1]
        if all(x == 0 for x in status):
            goal = key
            break
        cost = sum(1 for i in range(n) if status[i] != 0 and arrival[i] <= t)
        held = sum(prompt[i] + status[i] + 1 for i in range(n) if status[i] >= 1)
        advanced = [0 if x == 0 else (-1 if x == -1 else (0 if x + 1 == output[i] else x + 1))
                    for i, x in enumerate(status)]
        waiting = [i for i in range(n) if status[i] == -1 and arrival[i] <= t]
        # identical waiting requests: start the first k of the group only
        seen: set[tuple[int, ...]] = set()
        next_t = min(t + 1, last_arrival)
        for size in range(len(waiting) + 1):
            for chosen in itertools.combinations(waiting, size):
                signature = tuple(sorted(group_of[i] for i in chosen))
                if signature in seen:
                    continue
                seen.add(signature)
                if held + sum(prompt[i] + 1 for i in chosen) > memory:
                    continue
                nxt = list(advanced)
                for i in chosen:
                    nxt[i] = 0 if output[i] == 1 else 1
                new_key = (next_t, canon(nxt))
                nd = d + cost
                if nd < dist.get(new_key, 1 << 62):
                    dist[new_key] = nd
                    parent[new_key] = (key, t, signature)
                    heapq.heappush(heap, (nd, t + 1, new_key))
    assert goal is not None, "every valid instance has a feasible schedule"
    # starts per group along the path, then assigned to the group's ids in order
    per_group: list[list[int]] = [[] for _ in groups]
    key = goal
    while parent[key] is not None:
        key, t, signature = parent[key]
        for g in signature:
            per_group[g].append(t)
    starts = {}
    for g, members in enumerate(groups):
        for i, t in zip(members, sorted(per_group[g])):
            starts[reqs[i].id] = t
    return dist[goal], starts


def _fast_tel(instance: Instance, starts: dict[str, int]) -> int | None:
    """TEL of ``starts`` if feasible (every step's tokens <= M, no early start), else None.

    A plain per-step sum in integers, used on every enumerated schedule because it is ~50x
    cheaper than the full checker on tiny instances; every schedule that is *reported*
    (counterexamples, worst ratios) is re-checked by ``check_schedule`` as well.
    """
    usage: dict[int, int] = {}
    tel = 0
    for r in instance.requests:
        x = starts.get(r.id)
        if not isinstance(x, int) or x < r.arrival:
            return None
        tel += x + r.output - r.arrival
        for t in range(x + 1, x + r.output + 1):
            usage[t] = usage.get(t, 0) + r.prompt + t - x
    if any(u > instance.memory for u in usage.values()):
        return None
    return tel


def _project_opt(instance: Instance) -> tuple[int, dict[str, int]]:
    result = brute_force_opt(instance)
    if result.status != "optimal":
        raise RuntimeError(f"brute_force_opt returned status {result.status!r} on {instance_to_dict(instance)}")
    return int(result.tel), dict(result.starts)


def _resolve_opt(method: str) -> tuple[str, Callable[[Instance], tuple[int, dict[str, int]]]]:
    if method == "dp":
        return "dp", dp_opt
    if method in ("project", "auto"):
        return "project", _project_opt
    raise ValidationError("opt_method", method, "must be 'auto', 'project' or 'dp'")


# --------------------------------------------------------------------------- variants


@dataclass(frozen=True)
class OneBitReference:
    """1-bit SVF as the enumeration specifies it, written here independently of ``policies.py``
    (Kong et al., Sec. 4): short iff the (oracle) output is ``<= theta``; the proxy lengths are the
    rounded mean true output of each class (an empty class: ``max(1, theta // 2)`` or ``2 theta``), or
    the given ones; the key is the proxy volume ``s O + (O^2 + O)/2``."""

    theta: int
    short_length: int | None = None
    long_length: int | None = None
    name: str = "svf1-reference"

    def lengths(self, outputs: Sequence[int]) -> tuple[int, int]:
        short = [o for o in outputs if o <= self.theta]
        long_ = [o for o in outputs if o > self.theta]
        o0 = self.short_length or (max(1, round(sum(short) / len(short))) if short else max(1, self.theta // 2))
        o1 = self.long_length or (max(1, round(sum(long_) / len(long_))) if long_ else 2 * self.theta)
        return o0, o1

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        o0, o1 = self.lengths(list(predicted))
        proxy = [o0 if p <= self.theta else o1 for p in predicted]
        return [r.prompt * o + (o * o + o) // 2 for r, o in zip(instance.requests, proxy)]

    def parameters(self, predicted: Sequence[int]) -> dict[str, Any]:
        o0, o1 = self.lengths(list(predicted))
        return {"theta": self.theta, "short_length": o0, "long_length": o1}


def onebit_reference(spec: str, instance: Instance) -> OneBitReference | None:
    """The enumeration's 1-bit SVF for a policy spec ``"svf1[:theta=..,...]"`` (``None`` for other
    policies); the default threshold is the median true output, as the policy's."""
    if not spec.startswith("svf1"):
        return None
    params = dict(item.split("=") for item in spec.partition(":")[2].split(",") if item)
    outputs = sorted(r.output for r in instance.requests)
    middle = len(outputs) // 2
    median = outputs[middle] if len(outputs) % 2 else (outputs[middle - 1] + outputs[middle]) / 2
    theta = int(params.get("theta", int(median)))
    return OneBitReference(theta, int(params["short_length"]) if "short_length" in params else None,
                           int(params["long_length"]) if "long_length" in params else None)


def sqrt_threshold_svf1(instance: Instance) -> str:
    """1-bit SVF with ``theta = floor(sqrt(T))``, ``T = max o`` (the threshold of our Thm. 3.3
    derivation); proxies are the class means of the true lengths, so ``O_0 < O_1``."""
    import math

    return f"svf1:theta={math.isqrt(max(r.output for r in instance.requests))}"


@dataclass(frozen=True)
class Variant:
    """A policy setting to check; ``covered`` marks the setting the proofs are about."""

    name: str  # key in the result
    policy: str | Callable[[Instance], str]  # registered policy spec, or a function of the instance
    backfill: bool = False  # skip misfits
    arrivals: bool = False  # run on the arrival space instead of the burst space
    covered: bool = False  # True for strict SVF on burst instances (Thm. 3.2's hypotheses)
    subset: str | None = None  # "jaillet": equal prompts and M >= 2P (Jaillet Thm. 4.3); "equal_prompts"
    orderings: str = "one"  # "one": the multiset's order; "ties": every order when keys tie; "all": every order

    @property
    def policy_label(self) -> str:
        """The policy spec, or the function's name."""
        return self.policy if isinstance(self.policy, str) else self.policy.__name__


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        # the theorem holds for every tie-break: instances with equal volumes of different shapes run in every order
        Variant("svf", "svf", covered=True, orderings="ties"),
        Variant("svf_backfill", "svf", backfill=True),
        Variant("svf1", "svf1"),
        Variant("sjf", "sjf"),
        Variant("sjf_jaillet", "sjf", subset="jaillet"),
        Variant("svf1_sqrtT", sqrt_threshold_svf1),
        # 1-bit SVF orders a class by arrival, then position: every order of the requests is checked
        Variant("svf1_sqrtT_equal", sqrt_threshold_svf1, subset="equal_prompts", orderings="all"),
        Variant("fcfs", "fcfs"),
        Variant("svf_arrivals", "svf", arrivals=True),
    )
}

CHECKS = ("thm3.2_bound", "thm3.3_bound", "jaillet_bound", "prop3.1", "prop3.1_identity", "cert_peak_mass",
          "cert_order", "lemmaA2_sum", "cert_occupancy", "opt_ge_sum_outputs", "opt_le_policy", "onebit_spec")
# checks of a *reading* we expect to fail (not a theorem): never a refutation of the covered setting
READING_CHECKS = ("cert_occupancy",)
# checks with a constant, and how "stronger" is read: "le" holds iff used <= 1, "lt" iff used < 1
CONSTANT_CHECKS = {"thm3.2_bound": "le", "thm3.3_bound": "le", "jaillet_bound": "le", "prop3.1": "le",
                   "cert_peak_mass": "lt", "lemmaA2_sum": "le"}
STRONGER = {"10%": Fraction(9, 10), "half": Fraction(1, 2)}  # the constant scaled this way


def _in_subset(instance: Instance, subset: str | None) -> bool:
    if subset is None:
        return True
    equal = len({r.prompt for r in instance.requests}) == 1
    if subset == "equal_prompts":
        return equal
    if subset == "jaillet":
        return equal and instance.memory >= 2 * max(r.peak for r in instance.requests)
    raise ValidationError("variant subset", subset, "must be None, 'equal_prompts' or 'jaillet'")


def _orderings(instance: Instance, mode: str) -> list[Instance]:
    """The instance with its requests in the orders ``mode`` asks for (ids follow positions)."""
    shapes = [(r.arrival, r.prompt, r.output) for r in instance.requests]
    if mode == "one" or len(shapes) < 2:
        return [instance]
    if mode == "ties":
        volumes: dict[int, set] = {}
        for r in instance.requests:
            volumes.setdefault(r.volume, set()).add((r.arrival, r.prompt, r.output))
        if all(len(v) == 1 for v in volumes.values()):
            return [instance]
    orders = sorted(set(itertools.permutations(shapes)))
    return [Instance(instance.memory, [Request(f"r{k}", a, s, o) for k, (a, s, o) in enumerate(order)])
            for order in orders]


# --------------------------------------------------------------------------- the state


def _new_check_state() -> dict[str, Any]:
    return {"checked": 0, "failed": 0, "smallest": None, "used": None, "fail_10%": 0, "fail_half": 0}


def _new_variant_state() -> dict[str, Any]:
    return {
        "instances": 0,
        "orderings": 0,  # request orders checked (>= instances where ties or orders matter)
        "nonvacuous": 0,  # instances with M > P
        "blocked_steps": 0,
        "min_slack": None,
        "max_ratio": None,  # [num, den, record]
        "max_ratio_over_T": None,  # [num, den, record]: ratio / max o (Thm. 3.3's scale)
        "checks": {c: _new_check_state() for c in CHECKS},
    }


def _new_state(variants: Iterable[str]) -> dict[str, Any]:
    return {"instances": 0, "arrival_instances": 0, "chunks_done": 0, "cross_checked": 0,
            "variants": {v: _new_variant_state() for v in variants}}


def _size_key(instance: Instance) -> list[Any]:
    triples = [(r.arrival, r.prompt, r.output) for r in instance.requests]
    return [instance.n, instance.memory, sum(a + s + o for a, s, o in triples), sorted(triples), triples]


def _better_max(current: list | None, num: int, den: int, record: dict | Callable[[], dict]) -> list:
    if current is None or Fraction(num, den) > Fraction(current[0], current[1]):
        return [num, den, record() if callable(record) else record]
    return current


def _record(instance: Instance, policy_starts: dict[str, int], policy_tel: int,
            opt_starts: dict[str, int], opt_tel: int) -> dict[str, Any]:
    return {"instance": instance_to_dict(instance), "policy_starts": policy_starts, "policy_tel": policy_tel,
            "opt_starts": opt_starts, "opt_tel": opt_tel}


def _fail(check_state: dict[str, Any], instance: Instance, record_fn: Callable[[], dict[str, Any]],
          detail: str) -> None:
    check_state["failed"] += 1
    key = _size_key(instance)
    smallest = check_state["smallest"]
    if smallest is None or key < smallest["key"]:
        check_state["smallest"] = {"key": key, "detail": detail, **record_fn()}


def _use(check_state: dict[str, Any], kind: str, num: int, den: int, record_fn: Callable[[], dict]) -> None:
    """How much of the claim's constant this instance uses (``num/den``), and whether the same check
    with the constant made 10% / 50% stronger fails on it."""
    if den <= 0:  # a constant of 0: any use at all exceeds it
        for label in STRONGER:
            check_state[f"fail_{label}"] += int(num > 0)
        return
    used = Fraction(num, den)
    for label, scale in STRONGER.items():
        if used > scale or (kind == "lt" and used == scale):
            check_state[f"fail_{label}"] += 1
    check_state["used"] = _better_max(check_state["used"], used.numerator, used.denominator, record_fn)


@dataclass(frozen=True)
class _Facts:
    """What every variant's checks need to know about one instance and its optimum."""

    instance: Instance
    opt_tel: int
    opt_starts: dict[str, int]
    memory: int
    peak: int
    threshold: int  # M - P
    sum_outputs: int
    longest: int
    prefix: int  # sum_k (sum of the k smallest volumes)
    identity_ok: bool
    before_volume: dict[str, int]  # per request: total volume of those before it in strict-SVF order

    @classmethod
    def of(cls, instance: Instance, opt: tuple[int, dict[str, int]]) -> _Facts:
        requests = instance.requests
        volumes = [r.volume for r in requests]
        # strict SVF order: (volume, arrival, position)
        order_key = [(r.volume, r.arrival, position) for position, r in enumerate(requests)]
        before = {r.id: sum(q.volume for k, q in enumerate(requests) if order_key[k] < order_key[position])
                  for position, r in enumerate(requests)}
        peak = max(r.peak for r in requests)
        prefix = prefix_bound(volumes)
        return cls(instance, opt[0], opt[1], instance.memory, peak, instance.memory - peak,
                   sum(r.output for r in requests), max(r.output for r in requests), prefix,
                   prefix == _pair_identity_rhs(volumes), before)


def _check_instance(instance: Instance, opt: tuple[int, dict[str, int]], variants: Sequence[Variant],
                    state: dict[str, Any]) -> None:
    cache: dict[tuple, tuple[dict[str, int], int, Any, list]] = {}
    for variant in variants:
        if not _in_subset(instance, variant.subset):
            continue
        vs = state["variants"][variant.name]
        vs["instances"] += 1
        for ordered in _orderings(instance, variant.orderings):
            opt_here = opt if ordered is instance else (opt[0], _reordered_starts(instance, ordered, opt[1]))
            _check_variant(ordered, _Facts.of(ordered, opt_here), variant, vs, cache)


def _reordered_starts(instance: Instance, ordered: Instance, starts: dict[str, int]) -> dict[str, int]:
    """``starts`` of ``instance`` carried over to the same requests in another order (requests of one
    shape are matched in order: they are interchangeable)."""
    queues: dict[tuple[int, int, int], list[str]] = {}
    for r in instance.requests:
        queues.setdefault((r.arrival, r.prompt, r.output), []).append(r.id)
    out = {}
    for r in ordered.requests:
        out[r.id] = starts[queues[(r.arrival, r.prompt, r.output)].pop(0)]
    return out


def _check_variant(instance: Instance, facts: _Facts, variant: Variant, vs: dict[str, Any], cache: dict) -> None:
    spec = variant.policy if isinstance(variant.policy, str) else variant.policy(instance)
    key = (spec, variant.backfill, tuple((r.arrival, r.prompt, r.output) for r in instance.requests))
    if key not in cache:
        monitor = CertificateMonitor(instance, check_order=True, record_intervals=variant.covered)
        sim = simulate(instance, spec, backfill=variant.backfill, observer=monitor)
        tel = _fast_tel(instance, sim.starts)
        if tel is None:
            raise RuntimeError(f"infeasible {spec} schedule on {instance_to_dict(instance)}")
        occupancy = monitor.occupancy_failures(sim.starts) if variant.covered else []
        cache[key] = (sim.starts, tel, monitor.result(), occupancy)
    starts, tel, mon, occupancy = cache[key]

    def record(starts=starts, tel=tel):
        return _record(instance, starts, tel, facts.opt_starts, facts.opt_tel)

    vs["orderings"] += 1
    _record_extremes(vs, facts, tel, mon, record)
    _check_bounds(vs["checks"], facts, tel, record)
    _check_certificate(vs["checks"], facts, starts, mon, record)
    if variant.covered:
        _check_occupancy(vs["checks"]["cert_occupancy"], facts, occupancy, record)
    _check_optimum(vs["checks"], facts, tel, spec, record)
    _check_onebit(vs["checks"]["onebit_spec"], instance, spec, variant.backfill, starts, record)


def _check_onebit(check: dict[str, Any], instance: Instance, spec: str, backfill: bool, starts: dict[str, int],
                  record: Callable[[], dict]) -> None:
    """1-bit SVF's schedule equals the one of the enumeration's own 1-bit SVF (:class:`OneBitReference`)."""
    reference = onebit_reference(spec, instance)
    if reference is None:
        return
    check["checked"] += 1
    expected = simulate(instance, reference, backfill=backfill).starts
    if expected != starts:
        _fail(check, instance, record, f"{spec} starts {starts}, the specified 1-bit SVF {expected}")


def _record_extremes(vs: dict[str, Any], facts: _Facts, tel: int, mon: Any, record: Callable[[], dict]) -> None:
    vs["nonvacuous"] += int(facts.threshold > 0)
    vs["blocked_steps"] += mon.blocked_steps
    if mon.min_slack is not None and (vs["min_slack"] is None or mon.min_slack < vs["min_slack"]):
        vs["min_slack"] = mon.min_slack
    vs["max_ratio"] = _better_max(vs["max_ratio"], tel, facts.opt_tel, record)
    vs["max_ratio_over_T"] = _better_max(vs["max_ratio_over_T"], tel, facts.opt_tel * facts.longest, record)


def _check_bounds(checks: dict[str, Any], facts: _Facts, tel: int, record: Callable[[], dict]) -> None:
    """Thm 3.2, Thm 3.3 (our constant), Jaillet 4.3 (our constant), Prop 3.1 and its identity, with the
    share of each constant that the instance uses."""
    instance, opt_tel, memory, threshold = facts.instance, facts.opt_tel, facts.memory, facts.threshold
    c2, c3 = checks["thm3.2_bound"], checks["thm3.3_bound"]
    c2["checked"] += 1
    c3["checked"] += 1
    if threshold > 0:  # M = P: the bound is infinite, nothing to use
        _use(c2, "le", threshold * (tel - opt_tel), BOUND_NUMERATOR * memory * opt_tel, record)
        _use(c3, "le", threshold * (tel - opt_tel), THM33_NUMERATOR * facts.longest * memory * opt_tel, record)
    if not bound_holds(tel, opt_tel, memory, facts.peak):
        _fail(c2, instance, record, f"(M-P) TEL = {threshold * tel} > (M-P+{BOUND_NUMERATOR}M) OPT = "
                                    f"{(threshold + BOUND_NUMERATOR * memory) * opt_tel}")
    if not thm33_bound_holds(tel, opt_tel, memory, facts.peak, facts.longest):
        _fail(c3, instance, record, f"(M-P) TEL = {threshold * tel} > (M-P+{THM33_NUMERATOR}TM) OPT = "
                                    f"{(threshold + THM33_NUMERATOR * facts.longest * memory) * opt_tel}")
    cj = checks["jaillet_bound"]
    cj["checked"] += 1
    _use(cj, "le", tel, JAILLET_CONSTANT * opt_tel, record)
    if tel > JAILLET_CONSTANT * opt_tel:
        _fail(cj, instance, record, f"TEL {tel} > {JAILLET_CONSTANT} OPT = {JAILLET_CONSTANT * opt_tel}")
    cp = checks["prop3.1"]
    cp["checked"] += 1
    _use(cp, "le", facts.prefix, memory * opt_tel, record)
    if memory * opt_tel < facts.prefix:
        _fail(cp, instance, record, f"M*OPT = {memory * opt_tel} < prefix sum {facts.prefix}")
    checks["prop3.1_identity"]["checked"] += 1
    if not facts.identity_ok:
        volumes = [r.volume for r in instance.requests]
        _fail(checks["prop3.1_identity"], instance, record,
              f"prefix sum {facts.prefix} != sum v + sum min = {_pair_identity_rhs(volumes)}")


def _check_certificate(checks: dict[str, Any], facts: _Facts, starts: dict[str, int], mon: Any,
                       record: Callable[[], dict]) -> None:
    """Lemma A.2: peak mass and volume order at every blocked step, and the per-request sum."""
    instance, threshold = facts.instance, facts.threshold
    cm = checks["cert_peak_mass"]
    cm["checked"] += 1
    if mon.min_slack is not None and threshold > 0:
        _use(cm, "lt", threshold, mon.min_slack + threshold, record)
    if mon.peak_mass_violations:
        v = next(x for x in mon.violations if x.kind == "peak_mass")
        _fail(cm, instance, record, f"step {v.first_step}: running peak mass {v.running_peak_mass} <= M - P = "
                                    f"{threshold} while {v.head} waits")
    checks["cert_order"]["checked"] += 1
    if mon.order_violations:
        v = next(x for x in mon.violations if x.kind == "order")
        _fail(checks["cert_order"], instance, record,
              f"step {v.first_step}: running {', '.join(v.offenders)} after waiting head {v.head} in volume order")
    cs = checks["lemmaA2_sum"]
    cs["checked"] += 1
    by_id = instance.by_id()
    failed = False
    for rid, x in starts.items():
        wait = x - by_id[rid].arrival
        before = facts.before_volume[rid]
        if threshold > 0 and wait > 0 and before > 0:
            _use(cs, "le", threshold * wait, LEMMA_A2_FACTOR * before, record)
        if not failed and threshold * wait > LEMMA_A2_FACTOR * before:
            failed = True
            _fail(cs, instance, record, f"{rid}: (M-P) W = {threshold * wait} > {LEMMA_A2_FACTOR} sum_before v = "
                                        f"{LEMMA_A2_FACTOR * before}")


def _check_occupancy(check: dict[str, Any], facts: _Facts, failures: list[tuple[int, int]],
                     record: Callable[[], dict]) -> None:
    """The occupancy reading of the certificate (expected to fail: Lemma A.2 is about peaks)."""
    check["checked"] += 1
    if failures:
        step, held = failures[0]
        _fail(check, facts.instance, record, f"blocked at step {step} with occupancy {held} <= M - P = "
                                             f"{facts.threshold}")


def _check_optimum(checks: dict[str, Any], facts: _Facts, tel: int, spec: str, record: Callable[[], dict]) -> None:
    """Sanity of the optimum itself: OPT >= sum of outputs and OPT <= the policy's TEL."""
    checks["opt_ge_sum_outputs"]["checked"] += 1
    if facts.opt_tel < facts.sum_outputs:
        _fail(checks["opt_ge_sum_outputs"], facts.instance, record,
              f"OPT {facts.opt_tel} < sum o {facts.sum_outputs}")
    checks["opt_le_policy"]["checked"] += 1
    if facts.opt_tel > tel:
        _fail(checks["opt_le_policy"], facts.instance, record, f"OPT {facts.opt_tel} > {spec} {tel}")


# the canaries (issue 46): per check, the defect planted on one instance, judged by the check's own code
# (_check_bounds, _check_optimum, _check_certificate, _check_onebit) exactly as the enumeration runs it
PLANTED = {
    "thm3.2_bound": "OPT planted at 0", "thm3.3_bound": "OPT planted at 0", "jaillet_bound": "OPT planted at 0",
    "prop3.1": "OPT planted at 0", "opt_ge_sum_outputs": "OPT planted at 0",
    "opt_le_policy": "OPT planted one above the policy's TEL",
    "cert_peak_mass": "a blocked step planted with nothing running",
    "cert_order": "a blocked step planted with the last request in volume order running before the head",
    "lemmaA2_sum": "the last request in volume order planted to wait one step past 2 sum_before v / (M - P)",
    "onebit_spec": "1-bit SVF's last start planted one step later",
}


def planted_problems(instance_dict: dict[str, Any], variant: str, check: str) -> list[str]:
    """What ``check`` says on the instance ``instance_dict`` (in the variant's setting) with :data:`PLANTED`'s
    defect of that check planted: its failure details (empty: the defect passed)."""
    from dataclasses import replace

    from geosched.reference_impl.engine import BlockedInterval

    instance = instance_from_dict(instance_dict)
    setting = VARIANTS[variant]
    spec = setting.policy if isinstance(setting.policy, str) else setting.policy(instance)
    facts = _Facts.of(instance, dp_opt(instance))
    monitor = CertificateMonitor(instance, check_order=True)
    starts = simulate(instance, spec, backfill=setting.backfill, observer=monitor).starts
    tel = _fast_tel(instance, starts)
    checks = {c: _new_check_state() for c in CHECKS}
    order = sorted(instance.requests, key=lambda r: (r.volume, r.arrival, instance.requests.index(r)))
    if check in ("opt_le_policy",):
        _check_optimum(checks, replace(facts, opt_tel=tel + 1), tel, spec, dict)
    elif PLANTED[check] == "OPT planted at 0":
        _check_bounds(checks, replace(facts, opt_tel=0), tel, dict)
        _check_optimum(checks, replace(facts, opt_tel=0), tel, spec, dict)
    elif check in ("cert_peak_mass", "cert_order"):
        running = () if check == "cert_peak_mass" else (order[-1].id,)
        monitor(BlockedInterval(0, 1, (order[0].id,), running, sum(r.peak for r in order[-1:])))
        _check_certificate(checks, facts, starts, monitor, dict)
    elif check == "lemmaA2_sum" and facts.threshold > 0:
        last = order[-1]
        wait = LEMMA_A2_FACTOR * facts.before_volume[last.id] // facts.threshold + 1
        _check_certificate(checks, facts, {**starts, last.id: last.arrival + wait}, monitor, dict)
    elif check == "onebit_spec":
        latest = max(starts, key=lambda rid: (starts[rid], rid))
        _check_onebit(checks[check], instance, spec, setting.backfill, {**starts, latest: starts[latest] + 1}, dict)
    state = checks[check]
    return [state["smallest"]["detail"]] if state["failed"] else []


def _merge(into: dict[str, Any], part: dict[str, Any]) -> None:
    for key in ("instances", "arrival_instances", "chunks_done", "cross_checked"):
        into[key] += part[key]
    for name, vp in part["variants"].items():
        vi = into["variants"][name]
        for key in ("instances", "orderings", "nonvacuous", "blocked_steps"):
            vi[key] += vp[key]
        if vp["min_slack"] is not None and (vi["min_slack"] is None or vp["min_slack"] < vi["min_slack"]):
            vi["min_slack"] = vp["min_slack"]
        for key in ("max_ratio", "max_ratio_over_T"):
            if vp[key] is not None:
                vi[key] = _better_max(vi[key], *vp[key])
        for check, cp in vp["checks"].items():
            ci = vi["checks"][check]
            for key in ("checked", "failed", "fail_10%", "fail_half"):
                ci[key] += cp[key]
            if cp["used"] is not None:
                ci["used"] = _better_max(ci["used"], *cp["used"])
            if cp["smallest"] is not None and (ci["smallest"] is None or cp["smallest"]["key"] < ci["smallest"]["key"]):
                ci["smallest"] = cp["smallest"]


def _run_chunk(args: tuple) -> dict[str, Any]:
    """One job: a pure function of its tuple ``(cells, variants, opt method, cross-check stride, arrivals)``.

    With a stride ``k > 0`` every ``k``-th instance of the chunk is solved by both exact methods.
    """
    chunk, variant_names, opt_method, stride, arrivals = args
    variants = [VARIANTS[v] for v in variant_names]
    state = _new_state(variant_names)
    _, solver = _resolve_opt(opt_method)
    position = 0
    for ms, low, high in chunk:
        for instance in _instances_of(tuple(map(tuple, ms)), low, high):
            opt = solver(instance)
            if stride and position % stride == 0:
                other = dp_opt(instance) if solver is not dp_opt else _project_opt(instance)
                if other[0] != opt[0]:
                    raise RuntimeError(f"exact solvers disagree on {instance_to_dict(instance)}: "
                                       f"{opt[0]} vs {other[0]}")
                state["cross_checked"] += 1
            position += 1
            if _fast_tel(instance, opt[1]) != opt[0]:
                raise RuntimeError(f"optimum schedule infeasible or TEL mismatch on {instance_to_dict(instance)}")
            state["arrival_instances" if arrivals else "instances"] += 1
            _check_instance(instance, opt, variants, state)
    state["chunks_done"] = 1
    return state


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class ExhaustiveResult(Result):
    """What an exhaustive run found (scipy-like: ``status``, ``message``, counts)."""

    STATUSES = ("ok", "refuted", "partial")
    SUCCESS = ("ok",)

    space: str  # the burst space's label
    arrival_space: str | None  # the arrival space's label, or None
    instances: int  # burst instances checked (each with exact OPT)
    arrival_instances: int  # arrival instances checked
    expected_instances: int  # burst + arrival instances in the spaces (== checked when complete)
    complete: bool  # every instance of the spaces was checked
    variants: dict[str, dict[str, Any]]  # per variant: counts, checks, worst ratios (JSON-ready)
    counterexamples: list[dict[str, Any]]  # smallest failing instance per (variant, check)
    bounds_covered: list[str]  # which statements were checked on which space
    opt_method: str  # "project" (brute_force_opt) or "dp" (this module's dynamic program)
    cross_checked: int  # instances whose optimum was computed by both exact methods
    wall_time: float  # seconds
    status: str  # "ok" (covered setting holds everywhere), "refuted" or "partial"
    message: str  # one line
    checkpoint: str | None = None  # checkpoint file used
    extra: dict[str, Any] = field(default_factory=dict)

    def failures(self, variant: str) -> dict[str, int]:
        """``{check: failed count}`` with failures only."""
        return {c: d["failed"] for c, d in self.variants[variant]["checks"].items() if d["failed"]}

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "success": self.success}


def _ratio_json(entry: list | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    num, den, record = entry
    instance = instance_from_dict(record["instance"])
    # the witness's two schedules, re-checked by the independent referee
    rechecked = []
    for starts, tel in ((record["policy_starts"], record["policy_tel"]), (record["opt_starts"], record["opt_tel"])):
        report = check_schedule(instance, starts)
        rechecked.append(report.feasible and report.metrics.tel == tel)
    return {"value": num / den, "fraction": f"{Fraction(num, den)}", "instance": record["instance"],
            "policy_tel": record["policy_tel"], "opt_tel": record["opt_tel"],
            "policy_starts": record["policy_starts"], "opt_starts": record["opt_starts"],
            "checker_confirmed": all(rechecked)}


def _config(space: AnySpace, arrival_space: AnySpace | None, variants: Sequence[str], opt_method: str,
            stride: int, chunk_size: int) -> dict[str, Any]:
    def boxes(sp: AnySpace | None) -> list[dict[str, int]] | None:
        return [asdict(b) for b in _boxes(sp)] if sp is not None else None

    return {"space": boxes(space), "arrival_space": boxes(arrival_space), "variants": list(variants),
            "opt_method": opt_method, "cross_check_stride": stride, "chunk_size": chunk_size, "version": 3}


def _write_counterexample(out: Path | None, variant: Variant, check: str, smallest: dict[str, Any]) -> dict[str, Any]:
    instance = instance_from_dict(smallest["instance"])
    policy_report = check_schedule(instance, smallest["policy_starts"])
    opt_report = check_schedule(instance, smallest["opt_starts"])
    data = {
        "kind": "exhaustive_counterexample",
        "variant": variant.name,
        "policy": variant.policy_label,
        "backfill": variant.backfill,
        "check": check,
        "detail": smallest["detail"],
        "instance": smallest["instance"],
        "policy_schedule": {"starts": smallest["policy_starts"], "tel": smallest["policy_tel"],
                            "checker_feasible": policy_report.feasible,
                            "checker_tel": policy_report.metrics.tel if policy_report.metrics else None},
        "opt_schedule": {"starts": smallest["opt_starts"], "tel": smallest["opt_tel"],
                         "checker_feasible": opt_report.feasible,
                         "checker_tel": opt_report.metrics.tel if opt_report.metrics else None},
    }
    path = None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"exhaustive_{variant.name}_{check.replace('.', '_')}.json"
        write_text_atomic(path, json.dumps(data, indent=1) + "\n")
    data["file"] = str(path) if path else None
    return data


def run_exhaustive(
    space: AnySpace = DEFAULT_SPACE,
    *,
    arrival_space: AnySpace | None = DEFAULT_ARRIVAL_SPACE,
    variants: Sequence[str] = tuple(VARIANTS),
    opt_method: str = "auto",
    cross_check: bool | int = False,
    out: str | Path | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    max_seconds: float | None = None,
    executor: Executor | str | None = None,
    chunk_size: int = 200,
    callback: Callable[[dict[str, Any]], None] | None = None,
) -> ExhaustiveResult:
    """Check every instance of ``space`` (and ``arrival_space`` for arrival variants).

    Parameters
    ----------
    space, arrival_space:
        The burst space (``max_arrival`` must be 0) and the space for variants with
        ``arrivals=True`` (``None`` skips them).
    variants:
        Names from :data:`VARIANTS`.
    opt_method:
        ``"auto"`` or ``"project"`` (the project's ``brute_force_opt``), or ``"dp"`` (this
        module's :func:`dp_opt`); ``cross_check`` runs both and stops on a disagreement: ``True``
        on every instance, an integer ``k`` on every ``k``-th instance of each chunk (a sample).
    out:
        Folder for counterexample files (smallest failing instance per variant and check).
    checkpoint, resume:
        State file written after every chunk; with ``resume=True`` a matching file is continued.
    max_seconds:
        Stop after the chunk that passes this time (``status="partial"``; resume later).
    executor:
        Where the chunks run: a :class:`concurrent.futures.Executor` (left open) or a spec for
        :func:`geosched.executor.make_executor` (``"serial"``, the default; ``"local:N"``;
        ``"tcp://HOST:PORT"``). Chunks are merged in order, so every executor gives the serial result.
    callback:
        Called with ``{"chunks_done", "chunks", "instances"}`` after every chunk.
    """
    t0 = time.perf_counter()
    if space.max_arrival:
        raise ValidationError("space max_arrival", space.max_arrival, "must be 0 (burst); use arrival_space")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise UnknownNameError("exhaustive variant", unknown[0], list(VARIANTS))
    method, _ = _resolve_opt(opt_method)
    stride = 1 if cross_check is True else int(cross_check or 0)
    burst_variants = [v for v in variants if not VARIANTS[v].arrivals]
    arrival_variants = [v for v in variants if VARIANTS[v].arrivals] if arrival_space else []
    jobs = _jobs(space, arrival_space, burst_variants, arrival_variants, method, stride, chunk_size)
    config = _config(space, arrival_space if arrival_variants else None, variants, method, stride, chunk_size)
    checkpoint_path = Path(checkpoint) if checkpoint else None
    state, previous_elapsed = _saved_state(checkpoint_path, config, variants, resume)

    def save() -> None:
        if checkpoint_path is not None:
            checkpoint_path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(checkpoint_path, json.dumps({"config": config, "state": state,
                                                           "elapsed": previous_elapsed + time.perf_counter() - t0}))

    with using_executor(executor) as pool:
        _run_jobs(jobs, state, save, callback, pool, None if max_seconds is None else t0 + max_seconds)
    complete = state["chunks_done"] == len(jobs)
    expected = (count_instances(space) if burst_variants else 0) + \
        (count_instances(arrival_space) if arrival_variants else 0)
    variants_json, counterexamples = _summarise_variants(state, variants, Path(out) if out else None)
    bounds_covered = []
    if burst_variants:
        bounds_covered.append(f"burst: {space.label} ({count_instances(space)} instances)")
    if arrival_variants:
        bounds_covered.append(f"arrivals: {arrival_space.label} ({count_instances(arrival_space)} instances)")
    status, message = _verdict(variants, variants_json, complete, state["chunks_done"], len(jobs), space)
    return ExhaustiveResult(
        space=space.label,
        arrival_space=arrival_space.label if arrival_variants else None,
        instances=state["instances"],
        arrival_instances=state["arrival_instances"],
        expected_instances=expected,
        complete=complete,
        variants=variants_json,
        counterexamples=counterexamples,
        bounds_covered=bounds_covered,
        opt_method=method,
        cross_checked=state["cross_checked"],
        wall_time=previous_elapsed + time.perf_counter() - t0,
        status=status,
        message=message,
        checkpoint=str(checkpoint_path) if checkpoint_path else None,
    )


def _jobs(space: AnySpace, arrival_space: AnySpace | None, burst_variants: Sequence[str],
          arrival_variants: Sequence[str], method: str, stride: int, chunk_size: int) -> list[tuple]:
    """The work in deterministic chunks of cells (burst space first, then the arrival space)."""
    jobs: list[tuple] = []
    for chosen, sp, arrivals in ((burst_variants, space, False), (arrival_variants, arrival_space, True)):
        if not chosen:
            continue
        work = [[[list(t) for t in ms], low, high] for ms, low, high in cells(sp)]
        for k in range(0, len(work), chunk_size):
            jobs.append((work[k:k + chunk_size], tuple(chosen), method, stride, arrivals))
    return jobs


def check_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read an exhaustive checkpoint; a file that is not one is a one-line error naming it and the way
    to start over.

    Raises
    ------
    WorkloadFormatError
        When the file is not valid JSON or not a checkpoint.
    """
    path = Path(path)
    try:
        saved = read_json(path)
    except WorkloadFormatError as exc:
        raise WorkloadFormatError(f"{path}: not an exhaustive checkpoint ({exc}); start over with "
                                  "'geosched claims --thorough --out DIR --restart' or delete the file") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("state"), dict) or "config" not in saved:
        raise WorkloadFormatError(f"{path}: not an exhaustive checkpoint; start over with "
                                  "'geosched claims --thorough --out DIR --restart' or delete the file")
    return saved


def _saved_state(path: Path | None, config: dict[str, Any], variants: Sequence[str],
                 resume: bool) -> tuple[dict[str, Any], float]:
    """The checkpoint's state when resuming a run of the same configuration, else a fresh one.

    A checkpoint that cannot be read is an error naming the file and how to start over
    (``geosched claims --thorough --out DIR --restart``, or delete the file): silently starting
    over would hide that earlier work was lost.
    """
    if not (resume and path and path.is_file()):
        return _new_state(variants), 0.0
    saved = check_checkpoint(path)
    fresh = _new_state(variants)
    if not isinstance(saved.get("elapsed", 0.0), (int, float)) \
            or {k: type(v) for k, v in saved["state"].items()} != {k: type(v) for k, v in fresh.items()}:
        raise WorkloadFormatError(f"{path}: not an exhaustive checkpoint (its state has another outline); start "
                                  "over with 'geosched claims --thorough --out DIR --restart' or delete the file")
    if saved["config"] != config:
        return _new_state(variants), 0.0
    return saved["state"], float(saved.get("elapsed", 0.0))


def _run_jobs(jobs: list[tuple], state: dict[str, Any], save: Callable[[], None],
              callback: Callable[[dict[str, Any]], None] | None, pool: Executor, deadline: float | None) -> None:
    """Run the chunks not yet done on ``pool``, merging (in chunk order) and checkpointing after each one."""
    for part in pool.map(_run_chunk, jobs[state["chunks_done"]:]):
        _merge(state, part)
        save()
        if callback:
            callback({"chunks_done": state["chunks_done"], "chunks": len(jobs), "instances": state["instances"]})
        if deadline is not None and time.perf_counter() > deadline:
            break


def _summarise_variants(state: dict[str, Any], variants: Sequence[str],
                        out: Path | None) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Per variant: counts, checks (with the share of each constant used), worst ratios (re-checked),
    and the counterexample files."""
    counterexamples = []
    variants_json: dict[str, dict[str, Any]] = {}
    for name in variants:
        vs = state["variants"][name]
        variant = VARIANTS[name]
        checks_json = {}
        for check, cs in vs["checks"].items():
            entry = {"checked": cs["checked"], "failed": cs["failed"], "counterexample": None}
            if check in CONSTANT_CHECKS and cs["checked"]:
                entry.update(_constant_use(cs))
            if cs["smallest"] is not None:
                data = _write_counterexample(out, variant, check, cs["smallest"])
                entry["counterexample"] = {"file": data["file"], "instance": data["instance"],
                                           "detail": data["detail"]}
                counterexamples.append(data)
            checks_json[check] = entry
        variants_json[name] = {
            "policy": variant.policy_label, "backfill": variant.backfill, "arrivals": variant.arrivals,
            "covered_by_theorem": variant.covered, "subset": variant.subset, "orderings_mode": variant.orderings,
            "instances": vs["instances"], "orderings": vs["orderings"], "nonvacuous_instances": vs["nonvacuous"],
            "blocked_steps": vs["blocked_steps"], "min_slack": vs["min_slack"],
            "max_ratio": _ratio_json(vs["max_ratio"]), "max_ratio_over_T": _ratio_json(vs["max_ratio_over_T"]),
            "checks": checks_json,
        }
    return variants_json, counterexamples


def _constant_use(cs: dict[str, Any]) -> dict[str, Any]:
    """``used``: the largest share of the constant any instance needed (0 when none needed any);
    ``discriminating``: the check with the constant made 10% stronger fails somewhere;
    ``vacuous``: it would still pass with the constant made twice as strong."""
    used = cs["used"]
    witness = used[2] if used else None
    return {"used": {"value": used[0] / used[1], "fraction": f"{Fraction(used[0], used[1])}",
                     "instance": witness["instance"] if witness else None} if used else
            {"value": 0.0, "fraction": "0", "instance": None},
            "failed_stronger_10%": cs["fail_10%"], "failed_stronger_half": cs["fail_half"],
            "discriminating": cs["fail_10%"] > 0, "vacuous": cs["fail_half"] == 0}


def _verdict(variants: Sequence[str], variants_json: dict[str, dict[str, Any]], complete: bool, done: int,
             total: int, space: AnySpace) -> tuple[str, str]:
    covered_failures = [f"{n}:{c}" for n in variants if VARIANTS[n].covered
                        for c, d in variants_json[n]["checks"].items() if d["failed"] and c not in READING_CHECKS]
    if covered_failures:
        return "refuted", "check(s) failed in the theorem's own setting: " + ", ".join(covered_failures)
    if not complete:
        return "partial", f"stopped after {done} of {total} chunks; resume=True continues from the checkpoint"
    return "ok", f"all checks hold for strict SVF on every instance with {space.label}"
