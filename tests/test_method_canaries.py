"""Issue 46, items 1-4: every ledger method runs a canary (a planted defect of its own kind, judged by its own
verdict) and pins its coverage, so that a check switched off, compared with itself or cut short moves the word.

Each test below plants one defect of a kind the issue lists (by monkeypatching the code under test, never the
canary) and sees the evidence, and where cheap the row's word, fall: ``vacuous`` when the check can no longer fail,
``refuted`` when its coverage is lost or the family simulated is not the family stated.
"""

from __future__ import annotations

import dataclasses

import pytest

from geosched.verify import evidence as ev
from geosched.verify import family_evidence as fe
from geosched.verify import implementation_claims as ic
from geosched.verify import ledger, methods, montecarlo, montecarlo_audit, poisson_hypotheses, poisson_residual
from geosched.verify import poisson_workload as pw
from geosched.verify.evidence import Context

# methods whose canaries their owners adopt this wave (NEWS): the Coq theorems (hcoq: a mutated statement must be
# refuted) and the trace's empirical rows (h45, issue 46 item 5)
PENDING = {"coq:": "hcoq (Coq pinned to the claim, issue 46 item 4)", "trace:": "h45 (empirical rows, item 5)"}


def quick() -> Context:
    return Context("quick", None, 0, ("svf", "svf1_sqrtT_equal", "sjf_jaillet"))


def test_every_registered_method_declares_its_canary_or_why_it_needs_none():
    undeclared = [name for name, fn in ledger.METHODS.items()
                  if ev.canary_declaration(fn) is None and not name.startswith(tuple(PENDING))]
    assert undeclared == []
    reasons = {name: ev.canary_declaration(fn)[1] for name, fn in ledger.METHODS.items()
               if (ev.canary_declaration(fn) or ("", ""))[0] == "none"}
    assert reasons["literature:48"] == ("a statement about the literature: nothing is computed and the evidence is "
                                        "always not_run")
    assert all(len(reason) > 20 for reason in reasons.values())  # each says why


CHEAP = ["derivation", "z3:peak_volume", "z3:lemmaA2_invariant_k", "cores:prop3.1", "exhaustive:thm3.2",
         "exhaustive:certificate", "exhaustive:lemmaA2_sum", "exhaustive:occupancy", "simulation:occupancy",
         "consts:thm3.2", "consts:thm3.3", "consts:jaillet", "consts:lemmaA.2", "consts:prop3.1", "consts:poisson",
         "enumeration:volume", "simulation:family", "simulation:svf-family", "simulation:fluid-rates",
         "simulation:construction", "game:jaillet4.1", "z3:svf_ceiling:2", "simulation:sjf-families",
         "simulation:fcfs-families", "simulation:greedy-arrivals", "simulation:svf-alternating",
         "simulation:svf-fillers", "simulation:svf-distinct", "exhaustive:svf-upper", "simulation:svf-frontier",
         "referee:bad-schedules", "referee:brute-force",
         "referee:block-grain", "bounds:bursts", "engine:vllm-semantics", "monte-carlo:svf", "monte-carlo:ecr"]


@pytest.mark.parametrize("name", CHEAP)
def test_on_the_real_input_each_canary_runs_and_is_refuted(name):
    claim = ledger.CLAIMS["kong.thm3.2"] if name == "derivation" else None
    evidence = ledger.METHODS[name](claim, quick())
    assert evidence.canary is not None and evidence.canary.refuted, evidence.canary
    assert evidence.status not in ("refuted", "unknown", "error"), evidence.message
    if evidence.coverage is not None:
        assert not evidence.coverage.fewer() and not evidence.coverage.more()


# ------------------------------------------------------------------ a check switched off or compared with itself


def test_the_family_check_compared_with_itself_is_vacuous(monkeypatch):
    real = fe.member_problems
    monkeypatch.setattr(fe, "member_problems", lambda instance, stated, got, want: real(instance, stated, got, got))
    e = fe.FAMILY_METHODS["simulation:svf-fillers"](None, quick())
    assert e.status == "vacuous" and "could not have failed" in e.message


def test_a_witness_tel_taken_from_the_closed_form_is_vacuous(monkeypatch):
    real = fe.member_problems
    monkeypatch.setattr(fe, "member_problems", lambda instance, stated, got, want: real(
        instance, stated, {**got, "witness": want["witness"]}, want))  # the witness never checked
    e = fe.FAMILY_METHODS["simulation:fcfs-families"](None, quick())
    assert e.status == "vacuous" and "witness start" in e.canary.verdict


def test_the_family_simulated_must_be_the_family_stated(monkeypatch):
    from geosched.reference_impl.model import Instance, Request
    from geosched.theory import svf_fillers

    real = svf_fillers.fillers

    def lighter(size, half=4):  # fillers of peak M/2 - 1: alpha < 1/2, no longer the row's alpha = 1/2 exactly
        inst = real(size, half)
        return Instance(inst.memory, [Request(r.id, r.arrival, r.prompt - 1 if r.id.startswith("u") else r.prompt,
                                              r.output) for r in inst.requests])

    monkeypatch.setattr(svf_fillers, "fillers", lighter)
    e = fe.FAMILY_METHODS["simulation:svf-fillers"](None, quick())
    assert e.status == "refuted" and "not the family stated" in e.message


def test_the_fillers_simulation_at_h_1_only_loses_coverage(monkeypatch):
    real = fe._fillers_sizes
    monkeypatch.setattr(fe, "_fillers_sizes", lambda ctx: ([m for m in real(ctx)[0] if m[1] == 1], ("m", "h")))
    method = fe._method("simulation:svf-fillers", "svf_fillers", "fillers", ("svf",), fe._fillers_sizes)
    e = method(None, quick())
    assert e.status == "refuted" and "coverage lost" in e.message and "h 1 of 2" in e.message


def test_the_exhaustive_bound_switched_off_is_vacuous(monkeypatch):
    from geosched.verify import exhaustive as ex

    monkeypatch.setattr(ex, "bound_holds", lambda *args, **kwargs: True)
    e = methods.METHODS["exhaustive:thm3.2"](None, quick())
    assert e.status == "vacuous" and "thm3.2_bound: OPT planted at 0" in e.canary.verdict


def test_the_constant_comparison_switched_off_is_vacuous(monkeypatch):
    monkeypatch.setattr(methods, "differs", lambda *args: None)
    assert methods.METHODS["consts:jaillet"](None, quick()).status == "vacuous"


def test_a_sympy_step_checker_that_accepts_everything_is_vacuous(monkeypatch):
    from geosched.theory import derivation as d

    monkeypatch.setitem(d._CHECKERS, "identity", lambda step: ("checked", "accepted", None))
    e = methods.METHODS["derivation"](ledger.CLAIMS["kong.thm3.2"], quick())
    assert e.status == "vacuous" and "made false" in e.canary.defect


def test_the_referee_comparison_switched_off_is_vacuous(monkeypatch):
    monkeypatch.setattr(ic, "referee_problems", lambda brute, seen, where: [])
    assert ic.METHODS_HERE["referee:brute-force"](None, quick()).status == "vacuous"


def test_the_referee_sample_that_loses_its_infeasible_schedules_loses_coverage(monkeypatch):
    real = ic._random_cases

    def roomy(seed, count, block, most=5):  # memory far above every peak: hardly anything overflows
        from geosched.reference_impl.model import Instance

        return [(Instance(inst.memory + 40, inst.requests, block_size=block), shapes, starts)
                for inst, shapes, starts in real(seed, count, block, most)]

    monkeypatch.setattr(ic, "_random_cases", roomy)
    e = ic.METHODS_HERE["referee:brute-force"](None, quick())
    assert e.status == "refuted" and "coverage lost: covered infeasible" in e.message


# ------------------------------------------------------------------ statistics


def test_the_audit_with_a_tolerance_ten_times_wider_is_vacuous(monkeypatch):
    real = montecarlo_audit.load_problems
    monkeypatch.setattr(montecarlo_audit, "load_problems", lambda point, memory, alpha, s_range, z=0.0: real(
        point, memory, alpha, s_range, 10 * montecarlo_audit.Z))
    e = methods.METHODS["monte-carlo:svf"](None, quick())
    assert not e.canary.refuted and e.canary.verdict.startswith("the measured rate x1.1 at the same load")


def test_the_audit_comparing_the_measured_rate_with_itself_is_vacuous(monkeypatch):
    real = montecarlo_audit.load_problems

    def itself(point, memory, alpha, s_range, z=montecarlo_audit.Z):
        measured = point.workload["measured"]
        with monkeypatch.context() as patch:
            patch.setattr(montecarlo_audit, "statement_rate", lambda *args: measured["gaps"] / measured["span"])
            return real(point, memory, alpha, s_range, z)

    monkeypatch.setattr(montecarlo_audit, "load_problems", itself)
    e = methods.METHODS["monte-carlo:svf"](None, quick())
    assert not e.canary.refuted and e.canary.verdict.startswith("the measured rate x1.1 at the same load")


def test_the_monte_carlo_grid_cut_to_one_point_loses_coverage(monkeypatch):
    monkeypatch.setattr(montecarlo, "HEAVY_GRID", montecarlo.HEAVY_GRID[:2])  # quick runs every other point: one
    e = methods.METHODS["monte-carlo:svf"](None, quick())
    assert e.status == "refuted" and "coverage lost" in e.message


@pytest.fixture
def fresh_runs():
    pw.poisson_runs.cache_clear()
    yield
    pw.poisson_runs.cache_clear()


def test_z_tests_refuting_only_at_40_are_vacuous_and_svf_poisson_falls(monkeypatch, fresh_runs):
    monkeypatch.setattr(pw, "Z_LIMIT", 40.0)
    e = poisson_hypotheses.HYPOTHESIS_METHODS["monte-carlo:poisson-batch"](None, quick())
    assert e.status == "vacuous" and not e.canary.refuted
    monkeypatch.setattr(poisson_residual, "Z_LIMIT", 40.0)
    assert poisson_residual.POISSON_METHODS["monte-carlo:poisson-residual"](None, quick()).status == "vacuous"
    row = ledger.run_claims(["svf.poisson"], mode="quick", follow_dependencies=False).claims[0]
    assert row.status == "vacuous" and "could not have failed" in row.message


def test_pasta_compared_with_itself_is_vacuous(monkeypatch, fresh_runs):
    real = poisson_hypotheses.z_test
    monkeypatch.setattr(poisson_hypotheses, "z_test", lambda name, measured, target, **kw: real(name, measured,
                                                                                                 measured, **kw))
    e = poisson_hypotheses.HYPOTHESIS_METHODS["monte-carlo:poisson-pasta"](None, quick())
    assert e.status == "vacuous"


# ------------------------------------------------------------------ the pins are recounted here, independently


def test_the_family_pins_are_the_members_of_each_mode():
    def count(sizes):
        members, names = sizes
        return {"members": len(members)} | {n: len({m[k] for m in members}) for k, n in enumerate(names)}

    sjf = {mode: [(k, t) for k in ks for t in (1, 2, 5)] for mode, ks in
           (("quick", (2, 3)), ("default", (2, 3, 4, 6)), ("thorough", (2, 3, 4, 6, 8, 12)))}
    assert {m: count((v, ("k", "T"))) for m, v in sjf.items()} == fe.FAMILY_COVERAGE["simulation:sjf-families"]
    fillers = {mode: [(m, h) for m in ms for h in hs] for mode, ms, hs in
               (("quick", (1, 2, 3), (1, 2)), ("default", (1, 2, 3, 5), (1, 2, 3, 5)),
                ("thorough", (1, 2, 3, 5, 8, 13), (1, 2, 3, 5, 8)))}
    assert {m: count((v, ("m", "h"))) for m, v in fillers.items()} == fe.FAMILY_COVERAGE["simulation:svf-fillers"]
    for label in fe.FAMILY_COVERAGE:
        method = fe.FAMILY_METHODS[label]
        assert ev.canary_declaration(method)[0] == "canary"


def test_the_fluid_groups_pinned_are_every_group_with_and_without_a_prompt():
    for mode, top in (("quick", 10), ("default", 16), ("thorough", 30)):
        groups = [(memory, s, o) for memory in range(4, top + 1) for o in range(1, memory // 2 + 1)
                  for s in range(memory // 2 - o + 1)]
        assert methods.FLUID_GROUPS[mode] == {"groups": len(groups),
                                              "prompt-free groups": sum(s == 0 for _, s, _ in groups)}


def test_the_referee_brute_force_metrics_are_numpys_percentiles_written_out():
    import numpy as np

    values = [3, 9, 1, 14, 6, 6, 2, 11, 8, 5, 7, 4]
    for q in (50, 95, 99):
        assert ic._percentile(sorted(values), q) == pytest.approx(float(np.percentile(values, q)))


# ------------------------------------------------------------------ each method's verdict switched off: vacuous


def _off(value):
    return lambda *args, **kwargs: value


SWITCHED_OFF = [
    ("enumeration:volume", methods, "volume_problem", _off(None)),
    ("simulation:family", fe, "tel_problems", _off([])),
    ("simulation:svf-family", fe, "tel_problems", _off([])),
    ("simulation:construction", fe, "tel_problems", _off([])),
    ("simulation:fluid-rates", methods, "rho_problem", _off(None)),
    ("game:jaillet4.1", methods, "game_problems", _off([])),
    ("simulation:occupancy", methods, "occupancy_problems", _off([])),
    ("referee:bad-schedules", ic, "bad_case_problem", _off(None)),
    ("referee:block-grain", ic, "referee_problems", _off([])),
    ("bounds:bursts", ic, "bound_problem", _off(None)),
    ("engine:vllm-semantics", ic, "engine_problem", _off(None)),
]


@pytest.mark.parametrize("name, module, predicate, replacement", SWITCHED_OFF,
                         ids=[f"{n}-{p}" for n, _, p, _ in SWITCHED_OFF])
def test_a_method_whose_verdict_is_switched_off_is_vacuous(monkeypatch, name, module, predicate, replacement):
    monkeypatch.setattr(module, predicate, replacement)
    e = ledger.METHODS[name](None, quick())
    assert e.status == "vacuous" and not e.canary.refuted, (e.status, e.canary)


def test_the_exhaustive_certificate_switched_off_is_vacuous(monkeypatch):
    from geosched.verify import exhaustive as ex

    monkeypatch.setattr(ex, "_check_certificate", _off(None))
    for name in ("exhaustive:certificate", "exhaustive:occupancy", "exhaustive:lemmaA2_sum"):
        e = ledger.METHODS[name](None, quick())  # it judged no request order: a coverage loss, and blind
        assert e.status == "refuted" and "coverage lost" in e.message and not e.canary.refuted, name


def test_the_frontier_checks_switched_off_are_vacuous(monkeypatch):
    from geosched.verify import frontier_evidence as fr

    real = fr.sharp_checks
    monkeypatch.setattr(fr, "sharp_checks", lambda f, opt, tel: ([], real(f, opt, tel)[1]))
    monkeypatch.setattr(fr, "head_charges", lambda f: ([], [0] * max(f["x"], default=0)))
    assert fr.FRONTIER_METHODS["exhaustive:svf-sharp"](None, quick()).status == "vacuous"
    monkeypatch.setattr(fr, "triangle_problems", _off([]))
    assert fr.FRONTIER_METHODS["simulation:svf-frontier"](None, quick()).status == "vacuous"


def test_the_spec_check_that_ignores_the_admission_under_test_is_vacuous(monkeypatch):
    from geosched.verify import policy_spec

    real = policy_spec.check_policy_equivalence
    monkeypatch.setattr(policy_spec, "check_policy_equivalence",
                        lambda policy, admission=None, **kwargs: real(policy, **kwargs))
    assert methods.METHODS["policy-spec"](None, quick()).status == "vacuous"


def test_a_solver_that_proves_everything_moves_the_word(monkeypatch):
    from geosched.verify import z3util

    real = z3util.prove
    monkeypatch.setattr(z3util, "prove", lambda lemma, *args, **kwargs: dataclasses.replace(
        real(lemma, *args, **kwargs), status="proved"))
    assert methods.METHODS["z3:peak_volume"](None, quick()).status == "unknown"  # not tight: nothing proved


def test_sagesched_routings_canary_sees_a_quadratic_router(monkeypatch):
    from geosched.verify import sagesched_claims as sc

    linear = {str(n): {"reads": 3.0 * n, "value_ops": 5.0 * n, "bytecode": 40.0 * n, "cpu_seconds": 1e-5 * n}
              for n in (2, 8, 32, 128, 512, 1024)}
    outcome = sc.routing_claim({int(n): c for n, c in linear.items()})
    assert outcome.status == "reproduced"

    def canary():
        return sc.with_canaries({"sagesched.routing": outcome}, {}, [])["sagesched.routing"].canary

    assert canary().refuted  # counts x N (a router comparing pairs) must not be reproduced
    monkeypatch.setattr(sc, "routing_claim", lambda cost: sc.ClaimOutcome("reproduced", "always", {}))
    assert not canary().refuted


@pytest.mark.parametrize("mode", ["quick", "default", "thorough"])
def test_each_modes_members_are_the_pinned_ones(mode):
    """The sizes each mode runs (its own function) against the literal pins: a size dropped or changed in any mode,
    not only the one the tests run, is a coverage loss."""
    ctx = Context(mode, None, 0, ())
    sizes = {"simulation:sjf-families": fe._sjf_sizes, "simulation:fcfs-families": fe._fcfs_sizes,
             "simulation:greedy-arrivals": fe._greedy_sizes, "simulation:svf-alternating": fe._alternating_sizes,
             "simulation:svf-fillers": fe._fillers_sizes}
    for label, pick in sizes.items():
        members, names = pick(ctx)
        covered = {"members": len(members)} | {n: len({m[k] for m in members}) for k, n in enumerate(names)}
        assert covered == fe.FAMILY_COVERAGE[label][mode], label
    literal = {"quick": ((2, 3), (1, 2, 3), (1, 2), (2, 3, 5)), "default": ((2, 3, 4, 6), (1, 2, 3, 5), (1, 2, 3, 5),
                                                                           (2, 3, 5, 8, 20)),
               "thorough": ((2, 3, 4, 6, 8, 12), (1, 2, 3, 5, 8, 13), (1, 2, 3, 5, 8), (2, 3, 5, 8, 20, 22))}[mode]
    assert sorted({m[0] for m in fe._sjf_sizes(ctx)[0]}) == list(literal[0])
    assert sorted({m[1] for m in fe._fillers_sizes(ctx)[0]}) == list(literal[2])
    assert sorted({m[1] for m in fe._alternating_sizes(ctx)[0]}) == list(literal[3])
    convoy = {"quick": (1, 2, 3), "default": (1, 2, 3, 5, 8), "thorough": (1, 2, 3, 5, 8, 16, 32)}[mode]
    for pick in (fe._fcfs_sizes, fe._greedy_sizes):
        assert sorted({m[0] for m in pick(ctx)[0]}) == list(convoy)
        assert {m[1] for m in pick(ctx)[0]} == {t for k in convoy for t in (1, 3, k * k)}
