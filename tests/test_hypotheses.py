"""Every hypothesis in a claim's text (issue 34, item 5): outside each premise, an instance where the conclusion fails,
or why none is known.

Each premise of each derivation says it in ``Hypothesis.outside`` (in its theory module, beside the claim): a text
beginning ``fails:`` names an instance, which this file computes (:data:`COMPUTED`); any other text must say why no
instance is known (``none ...``). A new claim therefore states, premise by premise, what happens without it.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance, volume
from geosched.reference_impl.simulation import simulate
from geosched.theory.registry import DERIVATIONS


def _tel(instance: Instance, policy: str = "svf", backfill: bool = False) -> int:
    return check_schedule(instance, simulate(instance, policy, backfill=backfill).starts).metrics.tel


def _volume_growth() -> None:
    # (s, o) = (0, 1) started at 0 holds s = 0 tokens at its one step without the growth term; v = 1 with it
    held_without_growth = sum(0 for _ in range(1, 2))
    assert held_without_growth == 0 != volume(0, 1) == 1


def _volume_integers() -> None:
    s, o = 1, -1
    assert sum(s + j for j in range(1, o + 1)) == 0 != s * o + (o * o + o) // 2 == -1


def _prefix(volumes: list[int]) -> int:
    ordered = sorted(volumes)
    return sum(sum(ordered[:k]) for k in range(1, len(ordered) + 1))


def _prop31_bursts() -> None:
    from geosched.verify.exhaustive import dp_opt

    instance = Instance(1, [Request("r0", 0, 0, 1), Request("r1", 1, 0, 1)])
    assert instance.memory * dp_opt(instance)[0] == 2 < _prefix([1, 1]) == 3


def _prop31_feasibility() -> None:
    instance = burst_instance(1, [(0, 1), (0, 1)])
    report = check_schedule(instance, {"r0": 0, "r1": 0})
    assert not report.feasible and instance.memory * 2 < _prefix([1, 1])  # TEL 2: both finish at 1


def _lemma_a2_order() -> None:
    def excess(instance: Instance, policy: str) -> bool:
        starts = simulate(instance, policy).starts
        slack = instance.memory - max(r.peak for r in instance.requests)
        order = sorted(instance.requests, key=lambda r: (r.volume, r.arrival))
        return any(slack * (starts[r.id] - r.arrival) > 2 * sum(q.volume for q in order[:order.index(r)])
                   for r in instance.requests)

    assert excess(Instance(3, [Request("r0", 0, 0, 2), Request("r1", 1, 1, 1)]), "svf")  # arrivals
    assert excess(burst_instance(4, [(0, 3), (1, 2)]), "fcfs")  # not in volume order
    assert not excess(burst_instance(4, [(0, 3), (1, 2)]), "svf")  # inside the hypotheses it holds


def _onebit_geometric() -> None:
    from geosched.verify.montecarlo import one_bit_parameters

    # o uniform on {1, 2, 3} (mean 2, the geometric with the same mean has mu = 1/2), theta = 1
    assert Fraction(2 + 3, 2) == Fraction(5, 2) != one_bit_parameters(0.5, 1)[1] == 3.0


def _onebit_threshold() -> None:
    from geosched.verify.montecarlo import one_bit_parameters

    with pytest.raises(ZeroDivisionError):
        one_bit_parameters(0.5, 0)


def _sjf_backfill() -> None:
    from geosched.theory.kong_sjf_unbounded import sjf_family

    strict = [_tel(sjf_family(m), "sjf") / _tel(sjf_family(m)) for m in (2, 4, 8)]
    backfill = [_tel(sjf_family(m), "sjf", backfill=True) / _tel(sjf_family(m)) for m in (2, 4, 8)]
    assert strict[-1] > 3 and all(r < 1 for r in backfill), (strict, backfill)


def _fluid_outside() -> None:
    from geosched.adversary.fluid import single_group_bound

    def member(memory: int, a: tuple[int, int], b: tuple[int, int], n: int) -> Fraction:
        """TEL(SVF) of the interleaved member over the best of the grouped SVF schedules (an upper bound on OPT)."""
        def inst(pick) -> Instance:
            return Instance(memory, [Request(f"r{k}", 0, *pick(k)) for k in range(2 * n)])
        interleaved = _tel(inst(lambda k: a if k % 2 == 0 else b))
        grouped = min(_tel(inst(lambda k: a if k < n else b)), _tel(inst(lambda k: b if k < n else a)))
        return Fraction(interleaved, grouped)

    # equal volumes, every peak <= M/2: the member exceeds its worst single group's rho
    assert volume(3, 3) == volume(6, 2) == 15 and 2 * max(3 + 3, 6 + 2) <= 16
    rho = max(single_group_bound(3, 3, 16), single_group_bound(6, 2, 16))
    assert rho <= Fraction(16, 15) and member(16, (3, 3), (6, 2), 120) >= Fraction(124, 100)
    # equal volumes and a peak above M/2: the ratio grows like (o + 1)/2
    growth = [member(o * (o + 1) // 2, (o * (o + 1) // 2 - 1, 1), (0, o), 60) for o in (3, 5, 7)]
    assert growth[0] < growth[1] < growth[2] and growth[2] > 3


def _onebit_proxy_range() -> None:
    from geosched.adversary.families import FAMILIES, svf1_proxy_range

    # T = 2, alpha = 1/2: Coq's reading (a) bounds 1-bit SVF by 1 + (4T - 2)/(1 - alpha) = 13 with proxies in [1, T];
    # the long proxy O_1 = 2^20 > T sends the blockers first and a feasible schedule is 13-fold better
    instance, witness = svf1_proxy_range(40)
    policy = check_schedule(instance, simulate(instance, FAMILIES["svf1-proxy-range"].policy).starts)
    feasible = check_schedule(instance, witness)
    assert feasible.feasible and max(r.output for r in instance.requests) == 2
    assert 2 * max(r.peak for r in instance.requests) <= instance.memory  # alpha <= 1/2
    assert Fraction(policy.metrics.tel, feasible.metrics.tel) > 1 + Fraction(4 * 2 - 2, 1 - Fraction(1, 2))


def _sharp_infeasible() -> None:
    # svf.sharp_bound H2: against an infeasible S (20 requests (0, 1) all at step 0, M = 2, P = 1) the bound fails
    instance = Instance(2, [Request(f"r{k:02d}", 0, 0, 1) for k in range(20)])
    crowded = check_schedule(instance, {r.id: 0 for r in instance.requests})
    assert not crowded.feasible and crowded.metrics.tel == 20
    assert (2 - 1) * _tel(instance) == 110 > 2 * 2 * crowded.metrics.tel + (2 - 1) * 20 == 100


def _upper_infeasible() -> None:
    # svf.upper_bound H2: the same infeasible S (M = 2, P = 1 >= M/3: the factor is 6M = 12)
    instance = Instance(2, [Request(f"r{k:02d}", 0, 0, 1) for k in range(20)])
    crowded = check_schedule(instance, {r.id: 0 for r in instance.requests})
    assert not crowded.feasible
    assert 3 * (2 - 1) * _tel(instance) == 330 > (6 * 2 + max(0, 2 - 3 * 1)) * crowded.metrics.tel == 240


def _prompt_heavy_class() -> None:
    # svf.prompt_heavy H2 at (a, b) = (1, 1): the triangles (prompt 0 < output) exceed the class's constant 4/3
    q, n = 8, 640
    p, memory = 2 * q - 1, q * (2 * q - 1)
    instance = Instance(memory, [Request(f"r{k:04d}", 0, 0, p) for k in range(n)])
    staggered = check_schedule(instance, {r.id: k for k, r in enumerate(instance.requests)})
    assert staggered.feasible and all(1 * r.output > 1 * r.prompt for r in instance.requests)
    lhs, rhs = 3 * (memory - p) * _tel(instance), 4 * memory * staggered.metrics.tel + 3 * (memory - p) * p * n
    assert (lhs, rhs) == (122_472_000, 105_782_400)


def _arrivals_lag_zero() -> None:
    # greedy.arrivals H2: the convoy's requests all at step 0 (k = 4, T = 16, M = 64): SVF runs the short pairs
    # first (at 0..3), the long pair at 4: TEL 2(1 + 2 + 3 + 4) + 2(4 + 16) = 60, the witness's own: ratio 1
    instance = Instance(64, [Request(f"a{i}", 0, 16, 16) for i in range(2)]
                        + [Request(f"b{i:05d}", 0, 31, 1) for i in range(8)])
    assert _tel(instance) == 60 == 2 * (1 + 2 + 3 + 4) + 2 * (4 + 16)


# (claim, premise) -> the computation of the instance its ``outside`` text names
COMPUTED = {
    ("kong.volume", "H1"): _volume_growth,
    ("kong.volume", "H2"): _volume_integers,
    ("kong.prop3.1", "H1"): _prop31_bursts,
    ("kong.prop3.1", "H2"): _prop31_feasibility,
    ("kong.lemmaA.2", "H1"): _lemma_a2_order,
    ("kong.thm3.5", "H1"): _onebit_geometric,
    ("kong.thm3.5", "H2"): _onebit_threshold,
    ("kong.sjf_unbounded", "H1"): _sjf_backfill,
    ("kong.thm3.3", "E3'"): _onebit_proxy_range,
    **{(f"svf.fluid.k{k}", "H2"): _fluid_outside for k in (2, 3, 4)},
    ("svf.sharp_bound", "H2"): _sharp_infeasible,
    ("svf.upper_bound", "H2"): _upper_infeasible,
    ("svf.prompt_heavy", "H2"): _prompt_heavy_class,
    ("greedy.arrivals", "H2"): _arrivals_lag_zero,
}


def _premises() -> list[tuple[str, object]]:
    return [(claim_id, h) for claim_id, build in DERIVATIONS.items() for h in build().hypotheses]


def test_every_premise_of_every_claim_says_what_happens_outside_it():
    premises = _premises()
    assert len(premises) >= 40
    for claim_id, h in premises:
        assert h.outside.startswith(("fails", "none")), (claim_id, h.label, h.outside)
    failing = {(claim_id, h.label) for claim_id, h in premises if h.outside.startswith("fails")}
    assert failing == set(COMPUTED), failing ^ set(COMPUTED)


@pytest.mark.parametrize("case", sorted({f.__name__: f for f in COMPUTED.values()}.items()), ids=lambda c: c[0])
def test_outside_the_premise_the_conclusion_fails(case):
    case[1]()


def test_the_fluid_rows_print_every_hypothesis():
    """The statements as printed say peaks <= M/2 and distinct volumes, and let a group be empty (the "sup = 2" half
    uses the triangles with the other groups empty)."""
    from geosched.verify.ledger import CLAIMS

    for k in (2, 3, 4):
        text = CLAIMS[f"svf.fluid.k{k}"].statement
        assert "every peak s_j + o_j <= M/2" in text and "distinct volumes" in text and "gamma_j >= 0" in text
        derivation = DERIVATIONS[f"svf.fluid.k{k}"]()
        assert "a group may be empty" in derivation.hypotheses[1].statement
        assert any("the other groups empty, which H2 allows" in s.statement for s in derivation.steps)
    assert "peak s + o <= M/2" in CLAIMS["svf.fluid.k1"].statement
