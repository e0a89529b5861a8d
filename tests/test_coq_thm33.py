"""Issue 33: the Coq statements of Lemma A.2 (summed), the inversion lemma and Thm. 3.3 against the package.

* differential: Coq's ``onebit`` (OneBit.v) gives the Python ``svf1`` policy's starts, Coq's ``hol`` in a
  given order the Python simulator's starts for a policy with that order, and Coq's ``vol_before`` the
  paper's double sum computed here from the volumes (Coq evaluates its own definitions, ``Eval vm_compute``);
* ground truth: each inequality evaluated on random bursts with the Python simulator and the exact optimum
  (brute force) or a checker-verified schedule, the constants taken from the Coq statements;
* sharpness: where a constant is tight, a slightly stronger one fails on a named instance (the E1 pair ratio
  T; the square-root lemma's order rho; the summed Lemma A.2's 2 cannot go below 1.23).

The Coq parts skip without coqc, unless ``GEOSCHED_REQUIRE_COQ=1`` (CI), where that fails.
"""

from __future__ import annotations

import math
import os
import random
from dataclasses import dataclass
from fractions import Fraction

import pytest

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, burst_instance
from geosched.reference_impl.opt.brute import brute_force_opt
from geosched.reference_impl.simulation import simulate
from geosched.verify import coq_engine

needs_coq = pytest.mark.skipif(not coq_engine.coq_available() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                               reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")


def volume(s: int, o: int) -> int:
    return s * o + (o * o + o) // 2


def coq_list(lengths) -> str:
    return "[" + "; ".join(f"({s}, {o})" for s, o in lengths) + "]"


def starts_of(instance: Instance, policy) -> list[int]:
    result = simulate(instance, policy).starts
    return [result[r.id] for r in instance.requests]


def random_bursts(seed: int, count: int, *, max_n: int = 6, max_memory: int = 18, equal_prompts: bool = False):
    rng = random.Random(seed)
    for _ in range(count):
        memory = rng.randint(4, max_memory)
        n = rng.randint(1, max_n)
        s0 = rng.randint(0, memory // 3)
        lengths = []
        for _ in range(n):
            o = rng.randint(1, min(8, memory - s0 if equal_prompts else memory))
            s = s0 if equal_prompts else rng.randint(0, memory - o)
            lengths.append((s, o))
        yield memory, lengths


@dataclass(frozen=True)
class RankPolicy:
    """A priority rule with a given order: request k has key rank[k] (ties by position)."""

    rank: tuple[int, ...]
    name: str = "rank"

    def keys(self, instance, predicted):
        return list(self.rank)

    def parameters(self, predicted):
        return {}


# ------------------------------------------------------------------ differential: Coq's functions are the package's


@needs_coq
def test_coq_onebit_and_hol_are_the_python_policies():
    from geosched.verify.coq_session import evaluate

    rng = random.Random(33)
    cases, expressions = [], []
    for memory, lengths in random_bursts(1, 250):
        theta, o0 = rng.randint(1, 6), rng.randint(1, 6)
        o1 = rng.randint(o0 + 1, 9)
        order = list(range(len(lengths)))
        rng.shuffle(order)
        cases.append((memory, lengths, theta, o0, o1, order))
        expressions.append(f"onebit {memory} {theta} {o0} {o1} {coq_list(lengths)}")
        todo = "[" + "; ".join(f"({k}, ({lengths[k][0]}, {lengths[k][1]}))" for k in order) + "]"
        expressions.append(f"hol {memory} {todo} {len(lengths)}")
    values = evaluate(expressions, imports=("Model", "Svf", "Hol", "OneBit"))
    differs = 0
    for k, (memory, lengths, theta, o0, o1, order) in enumerate(cases):
        instance = burst_instance(memory, lengths)
        python = starts_of(instance, f"svf1:theta={theta},short_length={o0},long_length={o1}")
        assert values[2 * k] == str(python).replace(",", ";"), (memory, lengths, theta, o0, o1)
        rank = [0] * len(lengths)
        for position, request in enumerate(order):
            rank[request] = position
        assert values[2 * k + 1] == str(starts_of(instance, RankPolicy(tuple(rank)))).replace(",", ";")
        differs += python != starts_of(instance, "svf")
    assert differs >= 10  # the 1-bit order is not SVF's on many of them: the comparison sees the proxies


@needs_coq
def test_coq_vol_before_is_the_papers_double_sum():
    from geosched.verify.coq_session import evaluate

    cases = [lengths for _, lengths in random_bursts(2, 60, max_n=7)]
    values = evaluate([f"vol_before (map snd (svf_order {coq_list(lengths)}))" for lengths in cases],
                      imports=("Model", "Svf", "LemmaA2Sum"))
    for lengths, value in zip(cases, values):
        ordered = sorted(range(len(lengths)), key=lambda k: (volume(*lengths[k]), k))  # SVF's order
        vols = [volume(*lengths[k]) for k in ordered]
        assert int(value) == sum(sum(vols[:j]) for j in range(len(vols)))  # sum_j sum_{i before j} v_i
        assert int(value) == sum(min(a, b) for i, a in enumerate(vols) for b in vols[i + 1:])


# ------------------------------------------------------------------ ground truth: the inequalities on simulated bursts


def summed_a2_share(memory: int, lengths) -> Fraction:
    """(M - P) sum_j W_j over 2 sum_j sum_{i before j} v_i (P the largest peak): at most 1 by lemmaA2_summed."""
    instance = burst_instance(memory, lengths)
    waits = sum(starts_of(instance, "svf"))
    vols = sorted(volume(s, o) for s, o in lengths)
    pairs = sum(sum(vols[:j]) for j in range(len(vols)))
    peak = max(s + o for s, o in lengths)
    return Fraction((memory - peak) * waits, 2 * pairs) if pairs else Fraction(0)


def test_lemmaA2_summed_holds_and_its_2_cannot_go_below_1_23():
    shares = [summed_a2_share(m, lengths) for m, lengths in random_bursts(3, 600, max_n=7, max_memory=30)]
    assert max(shares) <= 1
    # 20 requests (0, 39), M = 156: (M - P) sum W = 117 * 1560 against 2 * 148200: a constant 2c with c < 0.6158
    # fails here, i.e. the 2 of the summed form cannot be replaced by 1.23
    share = summed_a2_share(156, [(0, 39)] * 20)
    assert share == Fraction(117 * 1560, 2 * 148200) and share > Fraction(615, 1000)


def test_lemmaA2_items_and_the_per_request_bounds_on_simulated_bursts():
    # lemmaA2_active_precede (v_i <= v_j for i active while j waits), lemmaA2_double_count ((M - P) W_j <=
    # sum_i p_i n_ij) and lemmaA2_wait ((M - P) W_j <= 2 sum_{x_i < x_j} v_i), with the simulator's SVF
    waited = 0
    for memory, lengths in random_bursts(7, 300, max_n=7, max_memory=24):
        starts = starts_of(burst_instance(memory, lengths), "svf")
        peak = max(s + o for s, o in lengths)
        for j, x_j in enumerate(starts):
            active = [[i for i, x in enumerate(starts) if x <= t < x + lengths[i][1]] for t in range(x_j)]
            assert all(volume(*lengths[i]) <= volume(*lengths[j]) for step in active for i in step)
            counted = sum((s + o) * sum(i in step for step in active) for i, (s, o) in enumerate(lengths))
            before = sum(volume(*lengths[i]) for i, x in enumerate(starts) if x < x_j)
            assert (memory - peak) * x_j <= counted <= 2 * before
            waited += x_j > 0
    assert waited >= 100  # the bounds were evaluated on requests that wait, not only on zeros


def exact_opt(instance: Instance) -> int:
    result = brute_force_opt(instance)
    assert result.status == "optimal"
    return result.tel


def test_thm33_E1_bound_on_equal_prompt_bursts():
    # thm33_onebit_E1: (M - P) TEL <= (M - P + 2 T M) OPT, theta = floor(sqrt T), O_0 < O_1 (here the default
    # proxies, the class means)
    worst = Fraction(0)
    for memory, lengths in random_bursts(4, 150, max_n=5, max_memory=16, equal_prompts=True):
        instance = burst_instance(memory, lengths)
        peak, big_t = max(s + o for s, o in lengths), max(o for _, o in lengths)
        if peak > memory:
            continue
        tel = check_schedule(instance, simulate(instance, f"svf1:theta={math.isqrt(big_t)}").starts).metrics.tel
        opt = exact_opt(instance)
        assert (memory - peak) * tel <= (memory - peak + 2 * big_t * memory) * opt, (memory, lengths)
        worst = max(worst, Fraction((memory - peak) * (tel - opt), 2 * big_t * memory * opt))
    assert 0 < worst < 1


def test_thm33_general_bound_on_unequal_prompt_bursts():
    # thm33_onebit_T: proxies 1 <= O_0 < O_1 <= T, any theta: (M - P) TEL <= (M - P + 2 (2T - 1) M) OPT
    rng = random.Random(5)
    checked = 0
    for memory, lengths in random_bursts(5, 200, max_n=5, max_memory=16):
        instance = burst_instance(memory, lengths)
        peak, big_t = max(s + o for s, o in lengths), max(o for _, o in lengths)
        if big_t < 2:
            continue  # no two proxies 1 <= O_0 < O_1 <= T
        o0 = rng.randint(1, big_t - 1)
        o1, theta = rng.randint(o0 + 1, big_t), rng.randint(1, big_t)
        spec = f"svf1:theta={theta},short_length={o0},long_length={o1}"
        tel = check_schedule(instance, simulate(instance, spec).starts).metrics.tel
        assert (memory - peak) * tel <= (memory - peak + 2 * (2 * big_t - 1) * memory) * exact_opt(instance)
        checked += 1
    assert checked >= 100


def test_hol_inversion_on_random_orders():
    # hol_inversion: any order, R >= every placed pair's v_i / v_j: (M - P) TEL <= (M - P + 2 R M) OPT
    rng = random.Random(6)
    for memory, lengths in random_bursts(6, 150, max_n=5, max_memory=14):
        instance = burst_instance(memory, lengths)
        peak = max(s + o for s, o in lengths)
        order = list(range(len(lengths)))
        rng.shuffle(order)
        rank = [0] * len(lengths)
        for position, request in enumerate(order):
            rank[request] = position
        vols = [volume(*lengths[k]) for k in order]
        ratio = max([Fraction(a, b) for i, a in enumerate(vols) for b in vols[i + 1:]], default=Fraction(1))
        big_r = max(1, math.ceil(ratio))
        rho = next(r for r in range(1, 10**6) if r * r >= ratio)  # hol_inversion_sqrt: v_i <= rho^2 v_j
        starts = starts_of(instance, RankPolicy(tuple(rank)))
        # hol_starts_bound: (M - P) sum_j x_j <= 2 sum_{(i, j): x_i < x_j} v_i
        pairs = sum(volume(*lengths[i]) for i, x in enumerate(starts) for y in starts if x < y)
        assert (memory - peak) * sum(starts) <= 2 * pairs
        tel = check_schedule(instance, {r.id: x for r, x in zip(instance.requests, starts)}).metrics.tel
        opt = exact_opt(instance)
        assert (memory - peak) * tel <= (memory - peak + 2 * big_r * memory) * opt
        assert (memory - peak) * tel <= (memory - peak + 2 * (2 * rho - 1) * memory) * opt


# ------------------------------------------------------------------ sharpness of the pair constants


def onebit_pairs(lengths, theta: int, o0: int, o1: int) -> list[tuple[int, int]]:
    """The (earlier, later) volume pairs of 1-bit SVF's order (proxy-volume key, ties by position)."""
    def key(k):
        s, o = lengths[k]
        return (volume(s, o0 if o <= theta else o1), k)

    order = sorted(range(len(lengths)), key=key)
    vols = [volume(*lengths[k]) for k in order]
    return [(a, b) for i, a in enumerate(vols) for b in vols[i + 1:]]


def test_the_E1_pair_constant_T_is_tight():
    # onebit_pair_E1: v_a <= T v_b for every placed pair under E1; at theta = 20, T = theta^2 + 2 theta = 440,
    # the long pair (0, 440) before (0, 21) has ratio theta (theta + 1) / T = 21/22 of T: 0.9 T fails
    theta = 20
    big_t = theta * theta + 2 * theta
    assert math.isqrt(big_t) == theta
    pairs = onebit_pairs([(0, big_t), (0, theta + 1)], theta, 1, 2)
    worst = max(Fraction(a, b) for a, b in pairs)
    assert worst <= big_t and worst == Fraction(21, 22) * big_t > Fraction(9, 10) * big_t


@needs_coq
def test_the_square_root_lemma_has_the_right_order():
    # Inversion.psum_gsq_bound: psum (gsq rho) <= (2 rho - 1) (sum v + sum_{i<j} min); on 10 volumes rho^2 = 16
    # before 40 volumes 1 the ratio is 3.76 > 0.9 rho: rho cannot be replaced by 0.9 rho (nor 2 rho - 1 by
    # less than rho). Coq's definitions and this file's arithmetic agree.
    from geosched.verify.coq_session import evaluate

    rho, vols = 4, [16] * 10 + [1] * 40
    text = "[" + "; ".join(map(str, vols)) + "]"
    gsq_sum, pm = evaluate([f"psum (gsq {rho}) {text}", f"sumf (fun x => x) {text} + psum Nat.min {text}"],
                           imports=("Model", "Inversion"))

    def gsq(x, y):
        return max(x, y) if max(x, y) <= rho * rho * min(x, y) else min(x, y)

    pairs = [(a, b) for i, a in enumerate(vols) for b in vols[i + 1:]]
    assert int(gsq_sum) == sum(gsq(a, b) for a, b in pairs) == 7900
    assert int(pm) == sum(vols) + sum(min(a, b) for a, b in pairs) == 2100
    assert Fraction(7900, 2100) <= 2 * rho - 1 and Fraction(7900, 2100) > Fraction(9, 10) * rho
