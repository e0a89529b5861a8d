"""Family proposals from the fluid formulas (adversary/proposals.py): reproducible from a seed, inside the
space, the fluid value below its certified ceiling, and a proposed member's certified ratio (simulated, both
schedules checked by the checker) close to its fluid value."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from geosched.adversary.fast import ids_for
from geosched.adversary.fluid import FluidFamily, finite_member, single_group_bound
from geosched.adversary.proposals import propose_families, single_group_pool
from geosched.errors import ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.simulation import simulate


@pytest.fixture(scope="module")
def proposals():
    return propose_families(30, 15, n=120, rng=np.random.default_rng(3), max_groups=3, combos=4, stagger=True)


def test_same_seed_same_proposals(proposals):
    again = propose_families(30, 15, n=120, rng=np.random.default_rng(3), max_groups=3, combos=4, stagger=True)
    assert [p.to_dict() for p in again] == [p.to_dict() for p in proposals]


def test_proposals_lie_in_the_space_and_under_their_ceiling(proposals):
    assert proposals and any(len(p.types) > 1 for p in proposals)
    values = [p.fluid_lower for p in proposals]
    assert values == sorted(values, reverse=True)
    for p in proposals:
        assert all(s + o <= 15 for s, o in p.types)
        assert p.fluid_lower <= p.ceiling
        assert sum(p.gamma) == 1 and all(g >= 0 for g in p.gamma)
        assert abs(sum(row[0] for row in p.rows) - 120) <= len(p.rows)
        # no family over these types beats its worst single group (the fluid analysis' bound)
        assert p.fluid_lower <= max(single_group_bound(s, o, 30) for s, o in p.types)
    staggered = [p for p in proposals if p.staggered]
    assert staggered and all(any(row[3] > 0 for row in p.rows) for p in staggered)


def test_pool_is_the_largest_rho(proposals):
    pool = single_group_pool(30, 15, np.random.default_rng(3))
    rhos = [rho for rho, _, _ in pool]
    assert rhos == sorted(rhos, reverse=True)
    assert rhos[0] == max(single_group_bound(0, o, 30) for o in range(1, 16))  # every (0, o) is in the pool


def test_a_proposed_member_certifies_near_its_fluid_value(proposals):
    best = proposals[0]
    family = FluidFamily(30, best.types)
    counts = tuple(row[0] for row in best.rows)
    member = finite_member(family, counts)
    n = len(member["prompt"])
    ids = ids_for(n)
    inst = Instance(30, [Request(ids[i], 0, int(member["prompt"][i]), int(member["output"][i])) for i in range(n)])
    report = check_schedule(inst, {ids[i]: int(x) for i, x in enumerate(member["witness_starts"])})
    assert report.feasible and report.metrics.tel == member["witness_tel"]
    assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == member["svf_tel"]
    ratio = Fraction(member["svf_tel"], member["witness_tel"])
    assert abs(ratio - best.fluid_lower) < Fraction(1, 10) * best.fluid_lower


def test_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValidationError, match="memory"):
        propose_families(5000, 15, n=10, rng=rng)
    with pytest.raises(ValidationError, match="max_groups"):
        propose_families(30, 15, n=10, rng=rng, max_groups=5)
    with pytest.raises(ValidationError, match="n"):
        propose_families(30, 15, n=0, rng=rng)
