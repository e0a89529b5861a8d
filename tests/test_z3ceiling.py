"""The Z3 ceilings of SVF's ratio (geosched.verify.z3ceiling, the encoding in geosched.reference_impl.z3model).

The expected values come from a brute force written here (every instance, every schedule, its own memory
check), from the simulator and from the independent checker, never from the encoding under test."""

from __future__ import annotations

import functools
import itertools
import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest
import z3

from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import burst_instance, volume
from geosched.reference_impl.simulation import simulate
from geosched.reference_impl.z3model import CUTS, BurstBounds, BurstVariables, ceiling_constraints
from geosched.verify.evidence import Context
from geosched.verify.methods import METHODS, SOLVER_SWEEPS
from geosched.verify.z3ceiling import ceiling_query, ceiling_sweep

RLIMIT = 200_000_000


def _fits(memory: int, lengths: tuple[tuple[int, int], ...], starts: tuple[int, ...]) -> bool:
    end = max(x + o for x, (_, o) in zip(starts, lengths))
    return all(sum(s + t - x for x, (s, o) in zip(starts, lengths) if x < t <= x + o) <= memory
               for t in range(1, end + 1))


def _opt_tel(memory: int, lengths: tuple[tuple[int, int], ...]) -> int:
    horizon = sum(o for _, o in lengths)  # some optimal schedule ends by sum o (no idle step)
    ranges = [range(horizon - o + 1) for _, o in lengths]
    return min(sum(x + o for x, (_, o) in zip(starts, lengths))
               for starts in itertools.product(*ranges) if _fits(memory, lengths, starts))


@functools.cache
def _worst_ratio(n: int, memories: range, max_prompt: int, max_output: int) -> Fraction:
    """max TEL(SVF)/TEL(OPT) over every ordered burst instance of n requests (alpha <= 1/2)."""
    worst = Fraction(0)
    for memory in memories:
        pairs = [(s, o) for s in range(max_prompt + 1) for o in range(1, max_output + 1) if 2 * (s + o) <= memory]
        opt = {}
        for lengths in itertools.product(pairs, repeat=n):
            key = tuple(sorted(lengths))
            if key not in opt:
                opt[key] = _opt_tel(memory, key)
            svf = simulate(burst_instance(memory, lengths), "svf")
            worst = max(worst, Fraction(sum(svf.completions.values()), opt[key]))  # burst: TEL = sum of ends
    return worst


def _recheck(witness: dict, ratio: Fraction) -> None:
    """The witness of a sat answer, re-checked here by the simulator and the checker."""
    instance = burst_instance(witness["memory"], [tuple(p) for p in witness["lengths"]])
    assert simulate(instance, "svf").starts == witness["svf_starts"]
    svf = check_schedule(instance, witness["svf_starts"])
    other = check_schedule(instance, witness["y_starts"])
    assert svf.feasible and other.feasible
    assert Fraction(svf.metrics.tel, other.metrics.tel) > ratio


def test_the_ceiling_is_exactly_the_brute_force_worst_ratio():
    # the canonical cuts keep an optimal schedule: unsat exactly at the worst ratio, sat just below it
    bounds = BurstBounds(n=3, memory=(9, 10), max_prompt=2, max_output=4)
    worst = _worst_ratio(3, range(9, 11), 2, 4)
    assert worst > 1
    assert ceiling_query(bounds, worst, rlimit=RLIMIT).status == "unsat"
    below = ceiling_query(bounds, worst - Fraction(1, 1000), rlimit=RLIMIT)
    assert below.status == "sat" and Fraction(below.witness["ratio"]) == worst
    _recheck(below.witness, worst - Fraction(1, 1000))


@pytest.mark.parametrize("cuts", [(), ("identical", "makespan"), ("idle",), ("shift",)])
def test_every_cut_alone_keeps_the_worst_instance(cuts):
    bounds = BurstBounds(n=3, memory=(10, 10), max_prompt=2, max_output=4)
    worst = _worst_ratio(3, range(10, 11), 2, 4)
    assert ceiling_query(bounds, worst, rlimit=RLIMIT, cuts=cuts).status == "unsat"
    assert ceiling_query(bounds, worst - Fraction(1, 1000), rlimit=RLIMIT, cuts=cuts).status == "sat"


def _instances(count: int, n: int, seed: int) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """Seeded burst instances drawn from few distinct requests (identical requests are common), sorted by volume."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        memory = rng.randint(6, 10)
        pairs = [(s, o) for s in range(3) for o in range(1, 4) if 2 * (s + o) <= memory]
        menu = rng.sample(pairs, min(len(pairs), rng.randint(1, 3)))
        drawn = [rng.choice(menu) for _ in range(n)]
        out.append((memory, tuple(sorted(drawn, key=lambda r: volume(*r)))))  # the encoding's order: by volume
    return out


@pytest.mark.parametrize("memory, lengths", _instances(12, 4, seed=3))
def test_the_canonical_second_schedule_reaches_the_brute_force_opt(memory, lengths):
    # with the instance fixed, the cut schedule y reaches OPT's TEL (every cut is kept by some optimal
    # schedule) and nothing below it (y is feasible)
    n = len(lengths)
    bounds = BurstBounds(n=n, memory=(memory, memory), max_prompt=2, max_output=3)
    v = BurstVariables.make(n)
    opt = _opt_tel(memory, lengths)
    solver = z3.Solver()
    solver.add(ceiling_constraints(bounds, v))
    solver.add([p == s for p, (s, _) in zip(v.prompts, lengths)] + [q == o for q, (_, o) in zip(v.outputs, lengths)])
    tel = z3.Sum([y + q for y, q in zip(v.y, v.outputs)])
    assert solver.check(tel <= opt) == z3.sat
    assert solver.check(tel <= opt - 1) == z3.unsat


def test_not_vacuous_a_ratio_below_the_known_lower_bound_is_sat_and_rechecked():
    # 6/5 is below the certified SVF ratios of the hunts: the same query must find a witness
    answer = ceiling_query(BurstBounds(n=4, memory=(10, 10), max_prompt=4, max_output=5), "6/5", rlimit=RLIMIT)
    assert answer.status == "sat"
    _recheck(answer.witness, Fraction(6, 5))


def test_cvc5_gives_the_same_answers_on_the_same_formula():
    bounds = BurstBounds(n=3, memory=(2, 10), max_prompt=4, max_output=5)
    assert ceiling_query(bounds, "3/2", rlimit=2_000_000, backend="cvc5").status == "unsat"
    answer = ceiling_query(bounds, "6/5", rlimit=2_000_000, backend="cvc5")
    assert answer.status == "sat" and answer.backend == "cvc5"
    _recheck(answer.witness, Fraction(6, 5))


def test_unsat_at_three_halves_for_small_n():
    sweep = ceiling_sweep("3/2", max_n=4, rlimit=RLIMIT)
    assert sweep.status == "checked" and sweep.largest_n == 4
    assert [a.status for a in sweep.answers] == ["unsat"] * 4


_SWEEP = ("import json; from geosched.verify.z3ceiling import ceiling_sweep; "
          "s = ceiling_sweep('3/2', max_n=6, rlimit=600_000); "
          "print(json.dumps([[a.n, a.status, a.resources, a.message] for a in s.answers]))")


def test_the_sweep_is_deterministic_and_stops_on_the_resource_limit():
    # a limit below what n = 4 needs (1.5M units at 3/2; n = 3 needs 174k): in two fresh processes the sweep stops at
    # the same n, unknown, with the same units spent at every n (the clock is never consulted)
    runs = [json.loads(subprocess.run([sys.executable, "-c", _SWEEP], capture_output=True, text=True,
                                      check=True).stdout) for _ in range(2)]
    assert runs[0] == runs[1]
    *proved, last = runs[0]
    assert last[1] == "unknown" and last[2] == 600_000 and "resource limit 600000" in last[3]
    assert len(proved) >= 1 and all(status == "unsat" for _, status, _, _ in proved)
    # in one process the words are the same too (Z3's counts may differ by a few units with the context's history)
    again = ceiling_sweep("3/2", max_n=6, rlimit=600_000)
    assert [(a.n, a.status) for a in again.answers] == [(n, status) for n, status, _, _ in runs[0]]
    assert again.largest_n == len(proved)


def test_bad_arguments_name_the_field():
    with pytest.raises(ValidationError, match="ceiling ratio"):
        ceiling_query(BurstBounds(n=2, memory=(4, 4), max_prompt=1, max_output=1), 1.5, rlimit=RLIMIT)
    with pytest.raises(ValidationError, match="ceiling memory"):
        BurstBounds(n=2, memory=(5, 4), max_prompt=1, max_output=1)
    with pytest.raises(ValidationError, match="ceiling cut"):
        ceiling_query(BurstBounds(n=2, memory=(4, 4), max_prompt=1, max_output=1), "2", rlimit=RLIMIT,
                      cuts=("nope",))
    with pytest.raises(ValueError, match="rlimit"):  # Z3 would wrap 10^10 around to 1.41G silently
        ceiling_query(BurstBounds(n=2, memory=(4, 4), max_prompt=1, max_output=1), "2", rlimit=10**10)
    assert set(CUTS) == {"identical", "makespan", "idle", "shift"}


@pytest.mark.parametrize("ratio", ["3/2", "2"])
def test_ledger_method_quick(ratio):
    evidence = METHODS[f"z3:svf_ceiling:{ratio}"](None, Context("quick", None, 0, ("svf",)))
    limits = SOLVER_SWEEPS[f"z3:svf_ceiling:{ratio}"]["quick"]
    assert evidence.status == "checked" and evidence.discriminating is True
    assert evidence.bound.startswith(f"n <= {limits['max_n']}, M in [2, 10]")
    assert evidence.data["largest_n"] == limits["max_n"]
    _recheck(evidence.data["non_vacuity"], Fraction(6, 5))
