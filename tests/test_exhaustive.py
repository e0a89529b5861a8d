"""Exhaustive checking: counts, exact OPT, the covered setting, the variants, checkpoints."""

from __future__ import annotations

import concurrent.futures
import itertools
import json

import pytest

from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance, instance_from_dict
from geosched.verify import exhaustive as ex
from geosched.verify.monitor import monitor_run

TINY = ex.Space(max_n=2, max_prompt=1, max_output=3, max_memory=6)
TINY_ARRIVALS = ex.Space(max_n=2, max_prompt=1, max_output=2, max_memory=3, max_arrival=2)


def _independent_instances(space: ex.Space) -> set:
    """Ordered tuples, deduplicated as sorted tuples, then one instance per M in [P, max_memory]."""
    shapes = [(a, s, o) for a in range(space.max_arrival + 1) for s in range(space.min_prompt, space.max_prompt + 1)
              for o in range(1, space.max_output + 1)]
    seen = set()
    for n in range(1, space.max_n + 1):
        for tup in itertools.product(shapes, repeat=n):
            seen.add(tuple(sorted(tup)))
    return {(ms, m) for ms in seen for m in range(max(s + o for _, s, o in ms), space.max_memory + 1)}


def _independent_count(space) -> int:
    boxes = space.boxes if isinstance(space, ex.SpaceUnion) else (space,)
    return len(set().union(*(_independent_instances(b) for b in boxes)))


@pytest.mark.parametrize("space", [TINY, TINY_ARRIVALS, ex.QUICK_SPACE, ex.DEFAULT_SPACE])
def test_count_matches_an_independent_count(space):
    assert ex.count_instances(space) == _independent_count(space)


def test_default_space_holds_the_readme_example_and_reaches_ratios_well_above_1():
    readme = (((0, 1, 5), (0, 6, 3)), 12)  # {(6, 3), (1, 5)}, M = 12: SVF 13, OPT 9
    assert any(ms == readme[0] and low <= readme[1] <= high for ms, low, high in ex.cells(ex.DEFAULT_SPACE))
    assert ex.count_instances(ex.THOROUGH_SPACE) > 30 * ex.count_instances(ex.DEFAULT_SPACE)


def test_union_checks_each_instance_once():
    union = ex.SpaceUnion((ex.Space(1, 0, 2, 3), ex.Space(1, 0, 2, 4)))
    instances = [(tuple((r.arrival, r.prompt, r.output) for r in i.requests), i.memory)
                 for i in ex.enumerate_instances(union)]
    assert len(instances) == len(set(instances)) == 7  # (0,1): M = 1..3, (0,2): M = 2..3, then M = 4 for both


def test_used_share_and_discrimination_by_hand():
    # README example: (M - P)(TEL - OPT)/(2 M OPT) = 3 * 4 / (2 * 12 * 9) = 1/18 of the constant 2
    space = ex.Space(max_n=2, max_prompt=6, max_output=5, max_memory=12)
    res = ex.run_exhaustive(space, arrival_space=None, variants=("svf",), opt_method="dp")
    bound = res.variants["svf"]["checks"]["thm3.2_bound"]
    assert bound["vacuous"] and not bound["discriminating"] and bound["used"]["value"] < 0.5
    assert bound["failed_stronger_half"] == 0
    # Prop. 3.1 is tight: one request (0, 1) with M = 1 has M OPT = 1 = its volume
    prop = res.variants["svf"]["checks"]["prop3.1"]
    assert prop["used"]["fraction"] == "1" and prop["discriminating"] and not prop["vacuous"]


def test_cross_check_on_a_sample_and_chunks_are_pure():
    jobs = ex._jobs(TINY, None, ["svf"], [], "dp", 3, 7)
    assert ex._run_chunk(jobs[0]) == ex._run_chunk(jobs[0])
    res = ex.run_exhaustive(TINY, arrival_space=None, variants=("svf",), opt_method="dp", cross_check=3)
    assert 0 < res.cross_checked < res.instances


def test_one_bit_svf_is_checked_in_every_request_order():
    res = ex.run_exhaustive(ex.Space(max_n=3, max_prompt=0, max_output=3, max_memory=6), arrival_space=None,
                            variants=("svf1_sqrtT_equal",), opt_method="dp")
    v = res.variants["svf1_sqrtT_equal"]
    assert v["orderings"] > v["instances"]  # (0,1),(0,2),(0,3) in 6 orders, ...


def test_hand_counted_space():
    # s in {0,1}, o in {1,2}: peaks 1,2,2,3; n=1: 4+3+3+2 = 12 instances with M <= 4;
    # n=2, the 10 multisets have max peaks 1,2,2,3,2,2,3,2,3,3: 4+3+3+2+3+3+2+3+2+2 = 27
    space = ex.Space(max_n=2, max_prompt=1, max_output=2, max_memory=4)
    peaks = [1, 2, 2, 3]
    n1 = sum(4 - p + 1 for p in peaks)
    n2 = sum(4 - max(a, b) + 1 for a, b in itertools.combinations_with_replacement(peaks, 2))
    assert (n1, n2) == (12, 27)
    assert ex.count_instances(space) == 39


def test_dp_opt_hand_example():
    # the README example: SVF TEL 13, OPT TEL 9 (r0 at 0: 6+1..6+3 <= 12 with r1 from step 1)
    inst = burst_instance(12, [(6, 3), (1, 5)])
    tel, starts = ex.dp_opt(inst)
    assert tel == 9
    report = check_schedule(inst, starts)
    assert report.feasible and report.metrics.tel == 9


def test_dp_opt_with_arrivals_by_hand():
    # M = 1: two (s=0, o=1) requests arriving at 0 and 1 run one after the other: TEL = 1 + 1
    inst = Instance(1, [Request("a", 0, 0, 1), Request("b", 1, 0, 1)])
    assert ex.dp_opt(inst)[0] == 2
    # identical burst requests, M = 2, o = 2, s = 0: peaks 2 each, so one at a time: 2 + 4
    assert ex.dp_opt(burst_instance(2, [(0, 2), (0, 2)]))[0] == 6


def test_run_counts_and_both_exact_methods_agree():
    res = ex.run_exhaustive(TINY, arrival_space=TINY_ARRIVALS, variants=("svf", "svf_arrivals"), cross_check=True)
    assert res.complete and res.status == "ok"
    assert res.instances == _independent_count(TINY)
    assert res.arrival_instances == _independent_count(TINY_ARRIVALS)
    assert res.cross_checked == res.instances + res.arrival_instances
    svf = res.variants["svf"]
    assert all(d["failed"] == 0 for c, d in svf["checks"].items() if c not in ex.READING_CHECKS)
    assert svf["checks"]["thm3.2_bound"]["checked"] == res.instances
    assert svf["max_ratio"]["checker_confirmed"]


def test_arrivals_break_prop31_with_the_hand_derived_smallest_instance(tmp_path):
    # By hand: M = 1, (a, s, o) = (0, 0, 1) and (1, 0, 1): OPT runs them back to back, TEL = 2,
    # M * TEL = 2 < prefix sum 1 + 2 = 3. No instance with n = 1 fails (M o >= v when s + o <= M),
    # and no smaller total length exists at n = 2, M = 1 with an arrival after 0.
    res = ex.run_exhaustive(TINY, arrival_space=TINY_ARRIVALS, variants=("svf_arrivals",), out=tmp_path)
    check = res.variants["svf_arrivals"]["checks"]["prop3.1"]
    assert check["failed"] > 0
    cx = check["counterexample"]
    assert cx["instance"]["memory"] == 1
    triples = sorted((r["arrival"], r["prompt"], r["output"]) for r in cx["instance"]["requests"])
    assert triples == [(0, 0, 1), (1, 0, 1)]
    data = json.loads(open(cx["file"]).read())
    assert data["opt_schedule"]["checker_feasible"] and data["opt_schedule"]["checker_tel"] == 2
    assert data["policy_schedule"]["checker_feasible"]


def test_backfill_breaks_the_order_half_and_the_counterexample_reproduces(tmp_path):
    space = ex.Space(max_n=3, max_prompt=2, max_output=3, max_memory=7)
    res = ex.run_exhaustive(space, arrival_space=None, variants=("svf", "svf_backfill"), out=tmp_path)
    assert res.status == "ok"  # the covered setting holds
    order = res.variants["svf_backfill"]["checks"]["cert_order"]
    assert order["failed"] > 0
    instance = instance_from_dict(order["counterexample"]["instance"])
    _, mon = monitor_run(instance, "svf", backfill=True)  # re-found independently of the run
    assert mon.order_violations > 0
    _, strict = monitor_run(instance, "svf")
    assert strict.ok


def test_a_malformed_checkpoint_names_the_file_and_restart(tmp_path):
    from geosched.errors import WorkloadFormatError

    ckpt = tmp_path / "ck.json"
    ckpt.write_text("{not json")
    with pytest.raises(WorkloadFormatError) as info:
        ex.run_exhaustive(TINY, arrival_space=None, variants=("svf",), checkpoint=ckpt, resume=True)
    assert str(ckpt) in str(info.value) and "--restart" in str(info.value)


def test_checkpoint_resume_gives_the_same_counts(tmp_path):
    ckpt = tmp_path / "ck.json"
    space = ex.Space(max_n=2, max_prompt=2, max_output=3, max_memory=7)
    full = ex.run_exhaustive(space, arrival_space=None, variants=("svf",), chunk_size=5)
    part = ex.run_exhaustive(space, arrival_space=None, variants=("svf",), chunk_size=5, checkpoint=ckpt,
                             max_seconds=0)
    assert not part.complete and part.status == "partial" and 0 < part.instances < full.instances
    resumed = ex.run_exhaustive(space, arrival_space=None, variants=("svf",), chunk_size=5, checkpoint=ckpt,
                                resume=True)
    assert resumed.complete and resumed.instances == full.instances
    assert resumed.variants["svf"]["checks"] == full.variants["svf"]["checks"]


def test_svf_suboptimal_by_hand():
    # M = 5, r0 = (0, 3) (v 6, peak 3), r1 = (2, 2) (v 7, peak 4). SVF starts r0 at 0; r1 fits
    # only from step 3 (at x = 1 step 3 holds 3 + 4 = 7 > 5): TEL 3 + 5 = 8. OPT starts r1 at 0
    # and r0 at 1 (step 2 holds 4 + 1 = 5): TEL 2 + 4 = 6.
    inst = burst_instance(5, [(0, 3), (2, 2)])
    assert ex.dp_opt(inst)[0] == 6
    from geosched.reference_impl.simulation import simulate

    assert check_schedule(inst, simulate(inst, "svf").starts).metrics.tel == 8


def test_a_broken_bound_constant_is_caught(monkeypatch):
    # with the "2" of 1 + 2/(1 - alpha) replaced by 0 the bound claims TEL(SVF) <= TEL(OPT),
    # false on the instance of test_svf_suboptimal_by_hand (inside this space)
    monkeypatch.setattr(ex, "BOUND_NUMERATOR", 0)
    res = ex.run_exhaustive(ex.Space(max_n=2, max_prompt=2, max_output=3, max_memory=6), arrival_space=None,
                            variants=("svf",))
    assert res.status == "refuted"
    assert res.variants["svf"]["checks"]["thm3.2_bound"]["failed"] > 0


def test_bad_space_and_variant():
    from geosched.errors import UnknownNameError, ValidationError

    with pytest.raises(ValidationError, match="max_n"):
        ex.Space(max_n=0, max_prompt=1, max_output=1, max_memory=2)
    with pytest.raises(UnknownNameError, match="nope"):
        ex.run_exhaustive(TINY, variants=("nope",))


@pytest.mark.slow
def test_default_space_all_variants():
    res = ex.run_exhaustive(ex.DEFAULT_VARIANT_SPACE, opt_method="dp", cross_check=20)
    assert res.complete and res.status == "ok"
    assert res.instances == ex.count_instances(ex.DEFAULT_VARIANT_SPACE)
    for name, variant in res.variants.items():
        assert variant["checks"]["opt_le_policy"]["failed"] == 0, name
        assert variant["checks"]["opt_ge_sum_outputs"]["failed"] == 0, name


def test_a_union_on_a_thread_pool_with_a_checkpoint_equals_one_process(tmp_path):
    union = ex.SpaceUnion((ex.Space(max_n=2, max_prompt=2, max_output=2, max_memory=5), TINY))
    one = ex.run_exhaustive(union, arrival_space=None, variants=("svf",), opt_method="dp", chunk_size=4)
    # any concurrent.futures executor will do (left open by run_exhaustive); tests/test_cluster.py runs Dask
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        two = ex.run_exhaustive(union, arrival_space=None, variants=("svf",), opt_method="dp", chunk_size=4,
                                executor=pool, checkpoint=tmp_path / "ck.json", resume=True)
    assert one.instances == two.instances == ex.count_instances(union) == _independent_count(union)
    assert one.variants["svf"]["checks"] == two.variants["svf"]["checks"]
    assert ex.check_checkpoint(tmp_path / "ck.json")["state"]["chunks_done"] > 1
