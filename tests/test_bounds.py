"""Lower bounds on TEL(OPT): hand-computed values and validity against the exact optimum."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.opt import (
    LowerBound,
    best_lower_bound,
    brute_force_opt,
    cheap_bounds,
    completion_order_bound,
    exclusive_tail_bound,
    lp_relaxation_bound,
    srpt_bound,
    sum_outputs_bound,
    volume_prefix_bound,
)
from geosched.testing import instances


def tiny_instances(burst: bool | None = None):
    return instances(max_n=4, max_memory=16, burst=burst)


README = burst_instance(12, [(6, 3), (1, 5)])  # volumes 24 and 20; OPT = 9 (test_opt.py)


def test_readme_instance_by_hand():
    # sum o = 3 + 5
    assert sum_outputs_bound(README).value == 8
    # sorted volumes 20, 24: prefix sums 20, 44 -> ceil(20/12) + ceil(44/12) = 2 + 4
    assert volume_prefix_bound(README).value == 6
    # per rank max(ceil(P_k/M), o_[k]): max(2, 3) + max(4, 5)
    assert completion_order_bound(README).value == 8
    # burst SRPT = SPT by volume: completions 20/12 and 44/12, sum 64/12 -> 6
    assert srpt_bound(README).value == 6
    best = best_lower_bound(README)
    assert isinstance(best, LowerBound) and best.value == 8


def test_srpt_with_arrivals_by_hand():
    # M = 10; a: released 0, work v = 4*2 + 3 = 11; b: released 1, work 0*4 + 10 = 10.
    # In units of 1/M step: a runs [0, 10), b arrives at 10 with 10 > 1 left of a, a ends at
    # 11, b at 21; sum C = 32/10 steps, minus arrivals 0 + 1 -> 2.2 -> 3.
    inst = Instance(10, [Request("a", 0, 4, 2), Request("b", 1, 0, 4)])
    assert srpt_bound(inst).value == 3
    assert volume_prefix_bound(inst) is None
    assert completion_order_bound(inst) is None
    assert {b.name for b in cheap_bounds(inst)} == {"sum_outputs", "srpt", "exclusive_tail"}


def test_exclusive_tail_bound_by_hand():
    # M = 10, two requests (s 0, o 10). theta = 6: each holds >= 6 tokens in steps 6..10 of
    # its run, a tail of 5; tails are released at 5, so one machine finishes them at 10 and
    # 15: TEL >= 25. Volume 55 each: prefix bound ceil(55/10) + ceil(110/10) = 17,
    # completion order max(6, 10) + max(11, 10) = 21. OPT = 30: if the second run starts at
    # x < 10, step 10 holds 10 + (10 - x) > 10 tokens, so x >= 10 and TEL = 10 + 20.
    inst = burst_instance(10, [(0, 10), (0, 10)])
    assert exclusive_tail_bound(inst).value == 25
    assert volume_prefix_bound(inst).value == 17
    assert completion_order_bound(inst).value == 21
    assert best_lower_bound(inst).name == "exclusive_tail"
    assert brute_force_opt(inst).tel == 30
    # with arrivals: the second arrives at 3, its tail is released at 3 + 5 = 8 and runs after
    # the first (10): completions 10 and 15, minus arrivals 0 + 3 -> 22
    online = Instance(10, [Request("a", 0, 0, 10), Request("b", 3, 0, 10)])
    assert exclusive_tail_bound(online).value == 22


def test_srpt_equals_kong_prefix_form_for_bursts():
    inst = burst_instance(40, [(3, 10), (1, 30), (5, 2), (2, 17), (4, 4)])
    volumes = sorted(s * o + (o * o + o) // 2 for s, o in [(3, 10), (1, 30), (5, 2), (2, 17), (4, 4)])
    prefix_total = sum(sum(volumes[: k + 1]) for k in range(len(volumes)))
    assert srpt_bound(inst).value == math.ceil(prefix_total / 40)
    # per-rank rounding is at least Kong et al.'s single rounding
    assert volume_prefix_bound(inst).value >= math.ceil(prefix_total / 40)


def test_best_lower_bound_is_the_max_of_cheap_bounds():
    inst = burst_instance(40, [(3, 10), (1, 30), (5, 2), (2, 17), (4, 4)])
    assert best_lower_bound(inst).value == max(b.value for b in cheap_bounds(inst))


def test_empty_instance_bounds_are_zero():
    inst = Instance(5, [])
    assert best_lower_bound(inst).value == 0
    assert srpt_bound(inst).value == 0


@settings(max_examples=80)
@given(tiny_instances())
def test_every_cheap_bound_is_below_opt(inst):
    opt = brute_force_opt(inst)
    assert opt.status == "optimal"
    for bound in cheap_bounds(inst):
        assert bound.value <= opt.tel, (bound, opt)


@settings(max_examples=25)
@given(tiny_instances())
def test_lp_relaxation_is_below_opt(inst):
    opt = brute_force_opt(inst)
    lp = lp_relaxation_bound(inst)
    assert lp is not None
    assert sum_outputs_bound(inst).value <= lp.value <= opt.tel


@pytest.mark.parametrize("fn", [sum_outputs_bound, volume_prefix_bound, completion_order_bound, srpt_bound,
                                exclusive_tail_bound, lp_relaxation_bound])
def test_every_bound_documents_its_statement_with_an_example(fn):
    assert fn.__doc__ is not None and "TEL" in fn.__doc__ and ">>>" in fn.__doc__
