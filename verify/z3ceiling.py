"""Z3/cvc5 ceilings of SVF's ratio on small bursts, with symmetry breaking and resource limits (issue 25, item 4).

The ceiling at ratio ``r = p/q`` for ``n`` requests is the lemma (CCAC style, :mod:`geosched.verify.z3util`)

    burst instance within the bounds, SVF's schedule x, any feasible schedule y in canonical form
    =>  q TEL(x) <= p TEL(y)

whose assumptions are the constraint families of :mod:`geosched.reference_impl.z3model` (the shared
encoding of the exact model's memory). ``assumptions AND NOT conclusion`` unsat proves that **no burst
instance of n requests within the bounds has TEL(SVF) > r TEL(OPT)**: some optimal schedule is in
canonical form (:func:`~geosched.reference_impl.z3model.canonical_schedule`). Kong et al. (arXiv 2606.22327),
Thm. 3.2 bounds the ratio by 5 at alpha <= 1/2; the best known lower bounds lie near 2 (``svf.lower_bound``).

Every call is limited by the solver's own work units (Z3 ``rlimit``, cvc5 ``rlimit-per``), never by the
clock, so a sweep's reach (:func:`ceiling_sweep`: the largest ``n`` with every ``n' <= n`` unsat) is the same
on every machine however loaded. A ``sat`` answer is a counterexample to the ceiling and is certified before
it is reported: the instance is rebuilt, SVF re-simulated by :func:`geosched.reference_impl.simulation.simulate`
(its starts must equal the model's ``x``), both schedules re-checked by the independent checker
(:func:`geosched.reference_impl.checker.check_schedule`) and the ratio recomputed from the checker's TELs.

Example
-------
>>> b = BurstBounds(n=2, memory=(4, 6), max_prompt=1, max_output=2)
>>> ceiling_query(b, "3/2", rlimit=20_000_000).status
'unsat'
>>> answer = ceiling_query(BurstBounds(n=3, memory=(10, 10), max_prompt=2, max_output=4), "6/5", rlimit=20_000_000)
>>> answer.status, answer.witness["ratio"]    # 3 requests (0, 4), (0, 4), (2, 3) in M = 10
('sat', '15/12')
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from geosched.errors import SolverError, ValidationError
from geosched.reference_impl.z3model import BurstBounds, BurstVariables, ceiling_constraints, ratio_exceeds
from geosched.results import Result
from geosched.theory.claim import KONG, Claim
from geosched.verify.z3util import Lemma, prove

__all__ = ["BurstBounds", "CeilingAnswer", "CeilingSweep", "ceiling_lemma", "ceiling_query", "ceiling_sweep",
           "certify_model", "LEDGER_BOUNDS", "DEFAULT_CUTS"]

KONG_PAPER = "Kong, Qi, Ye, Zhou, arXiv 2606.22327"
# the instances the ledger's ceiling rows cover (svf.z3_ceiling.*): the range of M and the lengths
LEDGER_BOUNDS: dict[str, Any] = {"memory": (2, 10), "max_prompt": 4, "max_output": 5, "alpha_max": "1/2"}
# the cuts the queries use by default: symmetry breaking of identical requests. The other canonical forms
# (z3model.CUTS) are sound and tested, but measured slower (Z3 units at 3/2, M = 10: n = 6 none 89M, identical
# 69M, all 136M; n = 7 none 966M, identical 635M, all 905M; benchmarks/RESULTS.md, "Z3 ceilings of SVF")
DEFAULT_CUTS: tuple[str, ...] = ("identical",)


def _ratio(value: Fraction | str | int) -> Fraction:
    try:
        ratio = Fraction(value)
    except (TypeError, ValueError):
        raise ValidationError("ceiling ratio", value, "must be a rational such as 3/2") from None
    if isinstance(value, float) or ratio < 1:
        raise ValidationError("ceiling ratio", value, "must be an exact rational >= 1 (a string such as '3/2')")
    return ratio


def ceiling_lemma(bounds: BurstBounds, ratio: Fraction | str, *, cuts: tuple[str, ...] = DEFAULT_CUTS) -> Lemma:
    """The ceiling as a :class:`~geosched.verify.z3util.Lemma` (the conclusion: ``q TEL(x) <= p TEL(y)``)."""
    ratio = _ratio(ratio)
    v = BurstVariables.make(bounds.n)
    assumptions = tuple(ceiling_constraints(bounds, v, cuts=cuts))
    slightly_less = ratio * Fraction(999, 1000)
    return Lemma(
        name="svf_ceiling",
        statement=f"{bounds.describe()}: TEL(SVF) <= {ratio} TEL(y) for every feasible canonical y",
        assumptions=assumptions,
        conclusion=z3.Not(ratio_exceeds(ratio, v)),
        stronger=z3.Not(ratio_exceeds(slightly_less, v)),
        variables=v.named(),
        parameters={**bounds.to_dict(), "ratio": str(ratio), "cuts": list(cuts)},
        reference=f"{KONG_PAPER}, Thm. 3.2 (upper side, bounded)",
        encoding="linear integer arithmetic, time-indexed SVF first fit, canonical second schedule",
    )


@dataclass(frozen=True)
class CeilingAnswer(Result):
    """One ceiling query: ``unsat`` (no instance exceeds the ratio), ``sat`` (a certified witness) or
    ``unknown`` (the resource limit was reached; nothing is claimed)."""

    STATUSES = ("unsat", "sat", "unknown")
    SUCCESS = ("unsat", "sat")

    status: str
    message: str
    wall_time: float  # seconds in the solver (reported, never used to decide anything)
    n: int  # requests
    ratio: str  # the r asked, exact
    backend: str  # "z3" or "cvc5"
    rlimit: int  # the resource limit of the call
    resources: int | None  # the solver's work units spent
    bounds: dict[str, Any]  # BurstBounds.to_dict()
    witness: dict[str, Any] | None = None  # sat: instance, both schedules, both TELs (checker's), the ratio


def certify_model(model: dict[str, Any], n: int, ratio: Fraction) -> dict[str, Any]:
    """Rebuild a ``sat`` model's instance and schedules and certify them independently; raise
    :class:`SolverError` when the model disagrees with the simulator or the checker (an encoding bug)."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.model import burst_instance
    from geosched.reference_impl.simulation import simulate

    instance = burst_instance(model["M"], [(model[f"s{i}"], model[f"o{i}"]) for i in range(n)])
    ids = [r.id for r in instance.requests]
    x = {ids[i]: model[f"x{i}"] for i in range(n)}
    y = {ids[i]: model[f"y{i}"] for i in range(n)}
    simulated = simulate(instance, "svf").starts
    if dict(simulated) != x:
        raise SolverError(f"ceiling model's SVF schedule {x} differs from the simulator's {dict(simulated)}")
    reports = {name: check_schedule(instance, starts) for name, starts in (("svf", x), ("y", y))}
    bad = [name for name, report in reports.items() if not report.feasible]
    if bad:
        raise SolverError(f"ceiling model's schedule {bad[0]} is infeasible: {reports[bad[0]].first_violation}")
    tel_x, tel_y = reports["svf"].metrics.tel, reports["y"].metrics.tel
    if not Fraction(tel_x, tel_y) > ratio:
        raise SolverError(f"ceiling model's ratio {tel_x}/{tel_y} does not exceed {ratio}")
    return {"memory": instance.memory, "lengths": [[r.prompt, r.output] for r in instance.requests],
            "svf_starts": x, "y_starts": y, "tel_svf": tel_x, "tel_y": tel_y, "ratio": f"{tel_x}/{tel_y}"}


def ceiling_query(bounds: BurstBounds, ratio: Fraction | str, *, rlimit: int, backend: str = "z3",
                  cuts: tuple[str, ...] = DEFAULT_CUTS) -> CeilingAnswer:
    """Is there an instance within ``bounds`` with ``TEL(SVF) > ratio * TEL(y)``? (module docstring)"""
    ratio = _ratio(ratio)
    result = prove(ceiling_lemma(bounds, ratio, cuts=cuts), backend=backend, rlimit=rlimit)
    witness = None
    if result.status == "proved":
        status, message = "unsat", f"no instance within {bounds.describe()} has TEL(SVF) > {ratio} TEL(OPT)"
    elif result.status == "refuted":
        witness = certify_model(result.counterexample or {}, bounds.n, ratio)
        status, message = "sat", f"certified: TEL(SVF)/TEL(y) = {witness['ratio']} > {ratio}"
    else:
        status, message = "unknown", f"{backend}: resource limit {rlimit} reached ({result.message})"
    return CeilingAnswer(status, message, result.wall_time, bounds.n, str(ratio), backend, rlimit,
                         result.resources, bounds.to_dict(), witness)


@dataclass(frozen=True)
class CeilingSweep(Result):
    """Ceiling queries for ``n = 1, 2, ...`` until one is not ``unsat``.

    ``status``: ``"checked"`` (some ``n`` unsat; ``largest_n`` the largest with every smaller ``n`` unsat),
    ``"refuted"`` (a certified instance exceeds the ratio), ``"unknown"`` (not even ``n = 1``)."""

    STATUSES = ("checked", "refuted", "unknown")
    SUCCESS = ("checked",)

    status: str
    message: str
    wall_time: float  # seconds in total (reported only)
    ratio: str
    largest_n: int  # every n <= largest_n is unsat (0: none)
    answers: tuple[CeilingAnswer, ...]  # one per n tried, in order
    stopped_because: str  # "max_n reached" or "n=K: unknown" / "n=K: sat"

    def bound_text(self) -> str:
        """``"n <= K, M in [lo, hi], s <= S, o <= O, s + o <= M/2"`` for the ledger."""
        if not self.answers:
            return "none"
        b = self.answers[0].bounds
        return (f"n <= {self.largest_n}, M in [{b['memory'][0]}, {b['memory'][1]}], s <= {b['max_prompt']}, "
                f"1 <= o <= {b['max_output']}, s + o <= {b['alpha_max']} M"
                + (f", max(s + o) > {b['alpha_min']} M" if "alpha_min" in b else ""))


def ceiling_sweep(ratio: Fraction | str, *, max_n: int, rlimit: int, memory: tuple[int, int] = (2, 10),
                  max_prompt: int = 4, max_output: int = 5, alpha_max: str = "1/2", alpha_min: str = "0",
                  backend: str = "z3",
                  cuts: tuple[str, ...] = DEFAULT_CUTS, start_n: int = 1) -> CeilingSweep:
    """Ceiling queries at ``ratio`` for ``n = start_n .. max_n``, each limited to ``rlimit`` units, stopping
    at the first answer that is not ``unsat``. Deterministic: the clock is never consulted."""
    ratio = _ratio(ratio)
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < start_n:
        raise ValidationError("max_n", max_n, f"must be an integer >= {start_n}")
    begin = time.perf_counter()
    answers: list[CeilingAnswer] = []
    largest, reason = start_n - 1, "max_n reached"
    for n in range(start_n, max_n + 1):
        bounds = BurstBounds(n=n, memory=memory, max_prompt=max_prompt, max_output=max_output, alpha_max=alpha_max,
                             alpha_min=alpha_min)
        answer = ceiling_query(bounds, ratio, rlimit=rlimit, backend=backend, cuts=cuts)
        answers.append(answer)
        if answer.status != "unsat":
            reason = f"n={n}: {answer.status}"
            break
        largest = n
    refuted = any(a.status == "sat" for a in answers)
    status = "refuted" if refuted else "checked" if largest >= start_n else "unknown"
    message = (f"a certified instance exceeds {ratio}: {answers[-1].witness}" if refuted else
               f"no burst instance with n <= {largest} has TEL(SVF) > {ratio} TEL(OPT) (stopped: {reason})"
               if largest >= start_n else f"not proved for n = {start_n} ({reason})")
    return CeilingSweep(status, message, time.perf_counter() - begin, str(ratio), largest, tuple(answers), reason)


# ---------------------------------------------------------------------------------------------- ledger rows
# the upper side for small bursts (issue 25, item 4): one row per ratio, checked by the sweeps above
CLAIMS = tuple(Claim(
    f"svf.z3_ceiling.{r}", f"ours (Z3 ceiling); {KONG} Thm. 3.2",
    f"no burst instance of n requests (alpha <= 1/2) has TEL(SVF) > {r} TEL(OPT), for every n <= k",
    "Z3 over every burst instance with M in [2, 10], s <= 4, 1 <= o <= 5, s + o <= M/2: SVF's schedule "
    "determined (time-indexed first fit in volume order), a second schedule free, feasible and in a "
    "canonical form some optimal schedule has; q TEL(SVF) > p TEL(y) unsat for n = 1, 2, ... until a query "
    "reaches its resource limit (Z3 rlimit: the same reach on every machine); not vacuous: the same query at "
    "6/5 is sat, its witness certified by the simulator and the checker",
    "not a claim of the papers: the upper side of svf.lower_bound on small bounded instances only; "
    "unknown beyond the n reached", (f"z3:svf_ceiling:{r}",),
    order=("ours", position),
    no_derivation="a bounded solver check: Z3 over every instance within the bounds, nothing to derive")
    for r, position in (("3/2", 80), ("2", 90)))
