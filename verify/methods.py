"""The ledger's methods: each runs one kind of check on a claim and returns an :class:`Evidence`.

A method is a function ``(claim, ctx) -> Evidence`` registered by name in :data:`METHODS`
(``geosched.verify.ledger`` lists, per claim row, the names it runs). Expensive runs (the
exhaustive enumeration, the solver cores, the policy specification, the Monte-Carlo) are
computed once per ledger run and shared (:meth:`Context.cached`). Every message is generated
from the constants the check actually used, read from the modules at run time.

Example
-------
>>> from geosched.verify.evidence import Context
>>> ctx = Context("quick", None, 0, ("svf",))
>>> METHODS["enumeration:volume"](None, ctx).status
'checked'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from geosched.errors import ValidationError
from geosched.theory.claim import KONG, Claim
from geosched.verify.evidence import (
    Canary,
    Context,
    Coverage,
    Evidence,
    declares_canary,
    needs_no_canary,
    plant,
    plant_all,
)

__all__ = ["METHODS", "register", "add_methods", "CLAIMS"]

Method = Callable[[Any, Context], Evidence]
METHODS: dict[str, Method] = {}

# Every solver check's reach, per mode, in one place: the largest n (or k) a sweep attempts and the resource
# limit of each solver call (Z3 ``rlimit``, cvc5 ``rlimit-per``: the solvers' own work units). A call past its
# limit is ``unknown`` at that n on every machine, and a sweep's bound is the largest n proved with every smaller
# n proved, so no word or bound depends on machine load; the clock is never consulted (the ledger's per-check
# time limit is only a safety net that makes the row ``unknown (time limit)``). Chosen from the units each query
# needed on a quiet run (docs/verification.md, "Deterministic reach"): the default reaches what the old time
# budgets reached on a quiet machine, with the limit >= 3x the largest need in range.
SOLVER_SWEEPS: dict[str, dict[str, dict[str, int]]] = {
    # the Z3/cvc5 cores: n symbolic requests (largest need at n = 6: Z3 12.9M on prop31_sum, cvc5 126k)
    "cores": {"quick": {"max_n": 3, "z3": 5_000_000, "cvc5": 1_000_000},
              "default": {"max_n": 6, "z3": 50_000_000, "cvc5": 2_000_000},
              "thorough": {"max_n": 24, "z3": 1_000_000_000, "cvc5": 40_000_000}},
    # the blocked-step certificate: k active requests (largest need at k = 10: Z3 1.5M)
    "z3:lemmaA2_invariant_k": {"quick": {"max_n": 4, "z3": 5_000_000},
                               "default": {"max_n": 10, "z3": 20_000_000},
                               "thorough": {"max_n": 16, "z3": 1_000_000_000}},
    # the fixed-size lemmas (Z3 proof, non-vacuity, tightness: at most 1.4M; cvc5 re-proof, not in --quick: both
    # forms of thm3_2_composition are proved within 1.2M, about 3-4 s each, as the old 4 s limit allowed on a quiet
    # machine; Z3 decides the word, cvc5 refutes or is reported)
    "lemmas": {"quick": {"z3": 10_000_000, "cvc5": 1},
               "default": {"z3": 20_000_000, "cvc5": 1_200_000},
               "thorough": {"z3": 1_000_000_000, "cvc5": 40_000_000}},
}


def solver_limits(check: str, ctx: Context) -> dict[str, int]:
    """This mode's row of :data:`SOLVER_SWEEPS` for ``check``."""
    return SOLVER_SWEEPS[check][ctx.mode]


def register(name: str) -> Callable[[Method], Method]:
    """Decorator: register a method under ``name``, the name a claim row lists in ``methods`` (a name
    registered twice is an error: two checks would answer to one name)."""

    def wrap(fn: Method) -> Method:
        add_methods({name: fn})
        return fn

    return wrap


def add_methods(methods: dict[str, Method]) -> None:
    """Register the methods of another module (the trace's, SageSched's, Coq's) under their names;
    a name already registered is a :class:`~geosched.errors.ValidationError`."""
    for name, fn in methods.items():
        if name in METHODS and METHODS[name] is not fn:
            raise ValidationError("method", name, "is registered twice")
        METHODS[name] = fn


# --------------------------------------------------------------------------- derivations and solvers


@register("derivation")
@declares_canary("a sympy-checked step made false (one side + 1)")
def _derivation(claim: Any, ctx: Context) -> Evidence:
    """The claim's sympy derivation, its own steps (the ledger follows ``depends_on`` itself)."""
    from geosched.theory import get_derivation

    derivation = get_derivation(claim.id)
    check = derivation.check()
    status = {"proved": "proved", "proved relative": "proved", "refuted": "refuted"}.get(check.status, "unknown")
    if status == "proved" and check.assumed:  # every step checked or an applied named hypothesis
        status = "proved relative to"
    counterexample = ctx.write(f"derivation_{claim.id}.json", check.to_dict()) if status == "refuted" else None
    open_steps = [o.to_dict() for o in check.open_steps]
    return Evidence("derivation", "proof", status, check.message, depends_on=check.depends_on,
                    wall_time=check.wall_time, counterexample=counterexample,
                    data={"open_steps": open_steps, "assumed": list(check.assumed)},
                    canary=derivation_canary(derivation, check))


def derivation_canary(derivation: Any, check: Any) -> Canary | None:
    """The step sympy checked fastest, made false everywhere (an equation's left side set to its right side + 1,
    an inequality's to the right side -+ 1 against its relation, a limit's value + 1), checked again by the same
    step checker: it must fail. None when no step has two sides (nothing was checked by sympy)."""
    import dataclasses

    sided = [(c.wall_time, i) for i, (s, c) in enumerate(zip(derivation.steps, check.steps))
             if c.status == "checked" and s.method in ("identity", "substitution", "inequality", "limit")]
    if not sided:
        return None
    index = min(sided)[1]
    step = derivation.steps[index]
    if step.method == "limit":
        planted = dataclasses.replace(step, rhs=step.rhs + 1)
    else:
        planted = dataclasses.replace(step, lhs=step.rhs + (-1 if step.relation in (">=", ">") else 1), certificate=())
    return plant(f"step {index + 1} ({step.method}) made false", lambda s: _failed(s.check(index + 1)), planted)


def _failed(step_check: Any) -> str | None:
    return f"sympy: {step_check.message}" if step_check.status == "failed" else None


def _both_solvers(lemma_name: str, label: str, kind: str, **params: Any) -> Method:
    def method(claim: Any, ctx: Context) -> Evidence:
        from geosched.verify.lemmas import LEMMAS
        from geosched.verify.z3util import prove, run_checks

        t0 = time.perf_counter()
        lemma = LEMMAS[lemma_name](**params)
        # Z3: proof, non-vacuity and tightness; cvc5 re-runs the proof (not in --quick)
        limits = solver_limits("lemmas", ctx)
        reports: dict[str, Any] = {"z3": run_checks(lemma, backend="z3", rlimit=limits["z3"])}
        if not ctx.quick:
            reports["cvc5"] = prove(lemma, backend="cvc5", rlimit=limits["cvc5"])
        statuses = {b: r.status for b, r in reports.items()}
        detail = "; ".join(f"{b}: {r.status}" for b, r in reports.items()) + ("; cvc5 not run (--quick)"
                                                                             if ctx.quick else "")
        if "refuted" in statuses.values():
            refuting = next(r for r in reports.values() if r.status == "refuted")
            return Evidence(label, kind, "refuted", f"{lemma.statement}: {detail}", wall_time=time.perf_counter() - t0,
                            counterexample=ctx.write(f"z3_{label.replace(':', '_')}.json", refuting.to_dict()))
        # Z3 must prove it; cvc5's answer is reported (it refutes if it finds a counterexample) but a cvc5
        # timeout does not undo Z3's proof of these small algebraic lemmas (sympy checks them as well)
        ok = statuses["z3"] == "proved"
        status = ("proved" if kind == "proof" else "checked") if ok else "unknown"
        bound = f"n<={lemma.parameters.get('n')} requests" if kind == "bounded" and ok else None
        return Evidence(label, kind, status, f"{lemma.statement}: {detail} (proved, non-vacuous, tight)"
                        if ok else f"{lemma.statement}: {detail}", bound=bound, wall_time=time.perf_counter() - t0,
                        discriminating=ok or None, data={"parameters": dict(lemma.parameters)},
                        covers={label: (status, bound or "all values")},
                        canary=tight_canary([reports["z3"]]))

    return declares_canary(STRONGER_DEFECT)(method)


STRONGER_DEFECT = "the conclusion made stronger (the lemma's own stronger form), proved by the same solver call"


def tight_canary(reports: list[Any]) -> Canary:
    """The solver lemmas' canary: each report's tightness check is :func:`~geosched.verify.z3util.prove` (the
    verdict of the real proof) on the lemma with its stronger conclusion, which must be refuted."""
    blind = [r for r in reports if r.tight.status != "tight"]
    verdict = (f"{len(reports)} stronger conclusion(s) refuted" if not blind else
               f"{blind[0].lemma} {blind[0].parameters}: {blind[0].tight.message}")
    return Canary(STRONGER_DEFECT, bool(reports) and not blind, verdict)


METHODS["z3:peak_volume"] = _both_solvers("peak_volume", "z3:peak_volume", "proof")
METHODS["z3:thm3_2_composition"] = _both_solvers("thm3_2_composition", "z3:thm3_2_composition", "proof")
METHODS["z3:thm3_2_composition_integer"] = _both_solvers("thm3_2_composition", "z3:thm3_2_composition_integer",
                                                         "proof", form="integer")
METHODS["z3:lemmaA2_order_invariant"] = _both_solvers("lemmaA2_order_invariant", "z3:lemmaA2_order_invariant",
                                                      "bounded")


@register("z3:lemmaA2_invariant_k")
@declares_canary(STRONGER_DEFECT)
def _k_sweep(claim: Any, ctx: Context) -> Evidence:
    """The blocked-step certificate proved for k = 1, 2, ... active requests until Z3 stops."""
    from geosched.verify.lemmas import largest_k

    label = "z3:lemmaA2_invariant_k"
    limits = solver_limits(label, ctx)
    t0 = time.perf_counter()
    sweep = largest_k(max_k=limits["max_n"], rlimit=limits["z3"])
    elapsed = time.perf_counter() - t0
    per_k = {report.parameters.get("k"): report.status for report in sweep.reports}
    refuted = [k for k, status in per_k.items() if status == "refuted"]
    if refuted:
        return Evidence(label, "bounded", "refuted", f"k={refuted[0]}: refuted", wall_time=elapsed,
                        data={"per_k": per_k}, counterexample=ctx.write("z3_lemmaA2_invariant_k.json", sweep.to_dict()))
    if sweep.largest_k < 1:
        return Evidence(label, "bounded", "unknown", f"not proved for k=1 ({sweep.stopped_because})", wall_time=elapsed)
    bound = f"k<={sweep.largest_k} active requests, symbolic lengths"
    return Evidence(label, "bounded", "checked",
                    f"blocked step => active peaks > (1-alpha)M, proved (Z3, tight) for every k <= {sweep.largest_k} "
                    f"(stopped: {sweep.stopped_because})", bound=bound, wall_time=elapsed, discriminating=True,
                    data={"largest_k": sweep.largest_k, "per_k": per_k}, covers={label: ("checked", bound)},
                    canary=tight_canary([r for r in sweep.reports if r.status == "proved"]),
                    coverage=Coverage({"k": sweep.largest_k}, {"k": K_REACH[ctx.mode]}))


# the k the certificate sweep reaches per mode (its resource limits: SOLVER_SWEEPS); less is a coverage loss
K_REACH = {"quick": 4, "default": 10, "thorough": 10}


def _cores(group: str) -> Method:
    label = f"cores:{group}"
    prefix = {"prop3.1": "prop31_", "lemmaA.2": "lemmaA2_"}[group]

    def method(claim: Any, ctx: Context) -> Evidence:
        from geosched.verify.cores import N_REQUEST

        limits = solver_limits("cores", ctx)
        mine = [name for name in N_REQUEST if name.startswith(prefix)]
        # --quick proves only this group's lemmas (and the per-request lemmas they use)
        key, chosen = ("cores:" + group, mine) if ctx.quick else ("cores", None)
        report, elapsed = ctx.cached(key, lambda: _run_cores(limits, chosen))
        covers = {f"core:{name}": report.covered(name) for name in mine}
        per_solver = {name: {b: report.sweeps[name][b]["largest_n"] for b in report.backends} for name in mine}
        refuted = [name for name, (status, _) in covers.items() if status == "refuted"]
        text = ", ".join(f"{name.split(':')[1]} n<={n}" for name, (s, n) in covers.items() if s == "checked")
        data = {"per_lemma_largest_n": per_solver, "per_request": report.per_request, "largest_n": report.largest_n}
        if refuted:
            return Evidence(label, "bounded", "refuted", f"{refuted[0]} refuted: {report.counterexample}",
                            wall_time=elapsed, data=data,
                            counterexample=ctx.write(f"cores_{group}.json", report.to_dict()))
        n_min = min((n for status, n in covers.values()), default=0)
        if any(status != "checked" for status, _ in covers.values()):
            return Evidence(label, "bounded", "unknown", f"not every lemma proved by both solvers ({text})",
                            wall_time=elapsed, data=data,
                            covers={k: (s, f"n<={n}") for k, (s, n) in covers.items()})
        bound = f"n<={n_min} symbolic requests (Z3 and cvc5)"
        return Evidence(label, "bounded", "checked", f"proved by Z3 and cvc5 (non-vacuous, tight) for every n up to: "
                        f"{text}; per-request lemmas proved for all values", bound=bound, wall_time=elapsed,
                        discriminating=True, data=data,
                        covers={k: ("checked", f"n<={n} symbolic requests") for k, (s, n) in covers.items()},
                        canary=_cores_canary(report, mine),
                        coverage=Coverage({name: n for name, (_, n) in covers.items()},
                                          {name: CORES_REACH[ctx.mode] for name in covers}))

    return declares_canary(STRONGER_DEFECT)(method)


# the n every core lemma reaches per mode (solver work units, the same on every machine: SOLVER_SWEEPS); a sweep that
# stops earlier lost coverage (refuted), it does not get a quieter bound
CORES_REACH = {"quick": 3, "default": 6, "thorough": 6}


def _cores_canary(report: Any, lemmas: list[str]) -> Canary:
    """Every proof the cores count (each n of each lemma's sweep, each per-request lemma it uses, every solver) had
    its stronger conclusion refuted by the same solver call."""
    from geosched.verify.cores import USES

    calls = [(f"{name} n={row[0]} ({b})", row[4]) for name in lemmas for b in report.backends
             for row in report.sweeps[name][b]["per_n"] if row[1] == "proved"]
    calls += [(f"{u} ({b})", report.per_request[u][b].get("tight")) for name in lemmas for u in USES.get(name, ())
              for b in report.backends if report.per_request[u][b]["status"] == "proved"]
    blind = [what for what, tight in calls if tight != "tight"]
    return Canary(STRONGER_DEFECT, bool(calls) and not blind,
                  f"{len(calls)} stronger conclusions refuted" if not blind else f"not refuted: {blind[0]}")


def _run_cores(limits: dict[str, int], chosen: list[str] | None) -> Any:
    """The cores under ``limits``: each solver gets its own resource limit (their units differ)."""
    from geosched.verify.cores import run_cores

    return run_cores(max_n=limits["max_n"], lemmas=chosen, rlimit={"z3": limits["z3"], "cvc5": limits["cvc5"]})


METHODS["cores:prop3.1"] = _cores("prop3.1")
METHODS["cores:lemmaA.2"] = _cores("lemmaA.2")


# --------------------------------------------------------------------------- exhaustive enumeration


def _exhaustive_run(ctx: Context) -> tuple[Any, float]:
    from geosched.verify import exhaustive as ex

    def run() -> Any:
        kwargs: dict[str, Any] = {"variants": ctx.variants, "out": ctx.out_if_set, "opt_method": "dp",
                                  "cross_check": ctx.pick(10, 25, 50), "executor": ctx.executor}
        if ctx.thorough:
            kwargs.update(checkpoint=ctx.out / "exhaustive.checkpoint.json", resume=True)
        space = ctx.pick(ex.QUICK_SPACE, ex.DEFAULT_SPACE, ex.THOROUGH_SPACE)
        arrivals = ctx.pick(None, ex.DEFAULT_ARRIVAL_SPACE, ex.THOROUGH_ARRIVAL_SPACE)
        return ex.run_exhaustive(space, arrival_space=arrivals, **kwargs)

    return ctx.cached("exhaustive", run)


# the enumeration's size per mode and variant, pinned: (instances, request orders). A run that enumerates fewer (a
# tie order dropped, a subset filtered too hard) has lost coverage: its evidence is refuted; more (the space changed
# without this table) is unknown (tests/test_ledger.py recounts them from the spaces independently)
ENUMERATION_SIZES: dict[str, dict[str, tuple[int, int]]] = {
    "quick": {"svf": (1145, 1365), "svf1_sqrtT_equal": (321, 636), "sjf_jaillet": (139, 139)},
    "default": {"svf": (9509, 10498), "svf1_sqrtT_equal": (1606, 3218), "sjf_jaillet": (453, 453)},
    "thorough": {"svf": (390637, 752147), "svf1_sqrtT_equal": (16866, 62421), "sjf_jaillet": (5703, 5703)},
}


def _constant_text(check: str) -> str:
    """The statement of each exhaustive check, with the constant read from the module now."""
    from geosched.verify import exhaustive as ex

    return {
        "thm3.2_bound": f"(M-P) TEL <= (M-P+{ex.BOUND_NUMERATOR}M) TEL(OPT)",
        "thm3.3_bound": f"(M-P) TEL <= (M-P+{ex.THM33_NUMERATOR}TM) TEL(OPT), theta = floor(sqrt T)",
        "jaillet_bound": f"TEL <= {ex.JAILLET_CONSTANT} TEL(OPT)",
        "prop3.1": "M TEL(OPT) >= sum_k (k smallest volumes)",
        "cert_peak_mass": "blocked => running peak mass > M - P",
        "lemmaA2_sum": f"(M-P) W_j <= {ex.LEMMA_A2_FACTOR} sum_(i before j) v_i",
    }[check]


def _exhaustive(checks: tuple[str, ...], variant: str, label: str, main: str) -> Method:
    """Evidence from the shared exhaustive run: ``main`` is the check whose constant is judged."""

    def method(claim: Any, ctx: Context) -> Evidence:
        result, elapsed = _exhaustive_run(ctx)
        vs = result.variants[variant]
        data = {c: vs["checks"][c] for c in checks}
        bound = (f"{result.space}{_subset_text(vs['subset'])} ({vs['instances']} instances, {vs['orderings']} "
                 f"request orders, exact OPT, {result.cross_checked} cross-checked by a second exact method)")
        failed = {c: d for c, d in data.items() if d["failed"]}
        if failed:
            check, d = next(iter(failed.items()))
            return Evidence(label, "bounded", "refuted", f"{d['failed']} of {d['checked']} instances fail {check}: "
                            f"{d['counterexample']['detail']}", bound=bound, wall_time=elapsed, implementation=True,
                            counterexample=_counterexample_file(ctx, result, variant, check))
        if not result.complete:
            return Evidence(label, "bounded", "unknown", f"exhaustive run incomplete: {result.message}",
                            wall_time=elapsed, implementation=True)
        use = {"used": {"fraction": "0", "value": 0.0}, "discriminating": False, "vacuous": True} | data[main]
        worst = vs["max_ratio"]
        text = (f"{_constant_text(main)} on all {use['checked']} cases; worst case uses "
                f"{use['used']['fraction']} of the constant")
        if worst:
            text += f"; worst {vs['policy']}/OPT = {worst['fraction']}"
        if "cert_peak_mass" in checks:
            text += f"; {vs['blocked_steps']} blocked steps, min slack {vs['min_slack']}"
        status = "vacuous" if use["vacuous"] else "checked"
        if status == "vacuous":
            text += " (vacuous: it would pass with the constant made twice as strong)"
        return Evidence(label, "bounded", status, text, bound=bound, wall_time=elapsed, implementation=True,
                        used=use["used"]["value"], discriminating=use["discriminating"],
                        data={"checks": data, "max_ratio": worst, "opt_method": result.opt_method,
                              "cross_checked": result.cross_checked},
                        covers={label: (status, bound)}, canary=_exhaustive_canary(vs, variant, main, checks),
                        coverage=_enumeration_coverage(vs, variant, ctx, main))

    return declares_canary("each check's own defect planted on the worst instance (OPT at 0, a blocked step with "
                           "nothing running, ...)")(method)


def _exhaustive_canary(vs: dict[str, Any], variant: str, main: str, checks: tuple[str, ...]) -> Canary:
    """Every check of the method that has a planted defect (:data:`geosched.verify.exhaustive.PLANTED`), judged by
    the enumeration's own per-instance code on the instance that used most of the judged check's constant."""
    from geosched.verify import exhaustive as ex

    record = (vs["checks"][main].get("used") or {}).get("instance")
    if record is None:
        return Canary(f"{main}: nothing to plant on", False, "no instance used the constant")
    return plant_all([plant(f"{c}: {ex.PLANTED[c]}", lambda name: ex.planted_problems(record, variant, name), c)
                      for c in checks if c in ex.PLANTED])


def _enumeration_coverage(vs: dict[str, Any], variant: str, ctx: Context, main: str) -> Coverage | None:
    """The instances and request orders enumerated, and the orders the judged check ``main`` ran on, against
    :data:`ENUMERATION_SIZES` (fewer: a coverage loss)."""
    pinned = ENUMERATION_SIZES[ctx.mode].get(variant)
    if pinned is None:
        return None
    return Coverage({"instances": vs["instances"], "request orders": vs["orderings"],
                     f"orders judged by {main}": vs["checks"][main]["checked"]},
                    {"instances": pinned[0], "request orders": pinned[1], f"orders judged by {main}": pinned[1]})


def _subset_text(subset: str | None) -> str:
    return {"jaillet": ", equal prompts, M >= 2P", "equal_prompts": ", equal prompts"}.get(subset or "", "")


def _counterexample_file(ctx: Context, result: Any, variant: str, check: str) -> str | None:
    for data in result.counterexamples:
        if data["variant"] == variant and data["check"] == check:
            if data.get("file"):
                return data["file"]
            return ctx.write(f"exhaustive_{variant}_{check.replace('.', '_')}.json", data)
    return None


METHODS["exhaustive:prop3.1"] = _exhaustive(("prop3.1", "prop3.1_identity", "opt_ge_sum_outputs"), "svf",
                                            "exhaustive:prop3.1", "prop3.1")
METHODS["exhaustive:certificate"] = _exhaustive(("cert_peak_mass", "cert_order"), "svf", "exhaustive:certificate",
                                                "cert_peak_mass")
METHODS["exhaustive:lemmaA2_sum"] = _exhaustive(("lemmaA2_sum",), "svf", "exhaustive:lemmaA2_sum", "lemmaA2_sum")
METHODS["exhaustive:thm3.2"] = _exhaustive(("thm3.2_bound", "opt_le_policy"), "svf", "exhaustive:thm3.2",
                                           "thm3.2_bound")
METHODS["exhaustive:thm3.3"] = _exhaustive(("thm3.3_bound", "opt_le_policy", "onebit_spec"), "svf1_sqrtT_equal",
                                           "exhaustive:thm3.3", "thm3.3_bound")
METHODS["exhaustive:jaillet"] = _exhaustive(("jaillet_bound", "opt_le_policy"), "sjf_jaillet", "exhaustive:jaillet",
                                            "jaillet_bound")


@register("exhaustive:occupancy")
@declares_canary("a blocked step planted with nothing running (the peak reading must fail)")
def _occupancy(claim: Any, ctx: Context) -> Evidence:
    """The occupancy reading of the certificate fails on some instance while the peak reading holds."""
    result, elapsed = _exhaustive_run(ctx)
    vs = result.variants["svf"]
    occupancy, peak = vs["checks"]["cert_occupancy"], vs["checks"]["cert_peak_mass"]
    bound = f"{result.space} ({vs['instances']} instances)"
    if peak["failed"]:
        return Evidence("exhaustive:occupancy", "bounded", "refuted", "the peak reading fails too: "
                        f"{peak['counterexample']['detail']}", bound=bound, wall_time=elapsed, implementation=True,
                        counterexample=_counterexample_file(ctx, result, "svf", "cert_peak_mass"))
    kept = {"canary": _exhaustive_canary(vs, "svf", "cert_peak_mass", ("cert_peak_mass",)),
            "coverage": _enumeration_coverage(vs, "svf", ctx, "cert_peak_mass")}
    if not occupancy["failed"]:
        return Evidence("exhaustive:occupancy", "bounded", "checked", f"peak reading holds on all {peak['checked']} "
                        "instances; no instance of this space separates the two readings (the example does: "
                        "simulation:occupancy)", bound=bound, wall_time=elapsed, implementation=True,
                        discriminating=True, **kept)
    smallest = occupancy["counterexample"]
    return Evidence("exhaustive:occupancy", "bounded", "checked",
                    f"peak reading holds on all {peak['checked']} instances; occupancy reading fails on "
                    f"{occupancy['failed']} (smallest: {smallest['detail']})", bound=bound, wall_time=elapsed,
                    implementation=True, discriminating=True, data={"smallest": smallest},
                    covers={"exhaustive:occupancy": ("checked", bound)}, **kept)


def occupancy_problems(monitor: Any, starts: dict[str, int], step: int) -> list[str]:
    """The example's verdict: the peak reading holds at every blocked step and the occupancy reading fails at
    ``step``."""
    problems = [] if monitor.result().ok else [f"the peak reading fails: {monitor.result().message}"]
    if dict(monitor.occupancy_failures(starts)).get(step) is None:
        problems.append(f"the occupancy reading holds at t={step}")
    return problems


@register("simulation:occupancy")
@declares_canary("a blocked step planted with nothing running (the peak reading must fail)")
def _occupancy_example(claim: Any, ctx: Context) -> Evidence:
    """theory's counterexample, M = 16 and three requests (0, 8), simulated under the monitor."""
    from geosched.reference_impl.engine import BlockedInterval
    from geosched.reference_impl.model import burst_instance
    from geosched.reference_impl.simulation import simulate
    from geosched.theory.kong_certificate_reading import EXAMPLE
    from geosched.verify.monitor import CertificateMonitor

    t0 = time.perf_counter()
    instance = burst_instance(EXAMPLE["memory"], EXAMPLE["requests"])
    monitor = CertificateMonitor(instance, record_intervals=True)
    starts = simulate(instance, "svf", observer=monitor).starts
    failures = dict(monitor.occupancy_failures(starts))
    step = EXAMPLE["blocked_step"]
    problems = occupancy_problems(monitor, starts, step)
    text = (f"M={instance.memory}, {len(EXAMPLE['requests'])} x (0, 8): starts {starts}; at t={step} the head waits "
            f"with occupancy {failures.get(step)} <= M - P = {monitor.threshold} while the peak reading holds: "
            f"{monitor.result().ok}")

    def planted(interval: Any) -> list[str]:
        monitor(interval)  # after the real verdict: the monitor now has seen one blocked step more
        return occupancy_problems(monitor, starts, step)

    canary = plant("a blocked step planted with nothing running", planted,
                   BlockedInterval(step, step + 1, (instance.requests[-1].id,), (), 0))
    status = "refuted" if problems else "checked"
    return Evidence("simulation:occupancy", "bounded", status, "; ".join(problems) or text, bound="the example",
                    wall_time=time.perf_counter() - t0, implementation=True, discriminating=not problems or None,
                    data={"starts": starts, "occupancy_failures": failures}, canary=canary,
                    covers={"simulation:occupancy": (status, "the example")})


# --------------------------------------------------------------------------- our code is the paper's algorithm


def _run_instances(seed: int, count: int, most: int) -> list[Any]:
    """Seeded small instances with arrivals (up to ``most`` requests) for the every-decision spec check."""
    import random

    from geosched.reference_impl.model import Instance, Request

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        n = rng.randint(1, most)
        requests = [Request(f"q{i}", rng.randint(0, 4), rng.randint(0, 3), rng.randint(1, 5)) for i in range(n)]
        peak = max(r.peak for r in requests)
        out.append(Instance(rng.randint(peak, peak + 6), requests))
    return out


# 1-bit SVF's specification (geosched.verify.policy_spec.spec_key) with explicit parameters: the class boundary
# at theta, the proxy volume (not the proxy length); states with outputs up to 3, runs with outputs up to 5
ONEBIT_STATES = "svf1:theta=1,short_length=1,long_length=3"
ONEBIT_RUNS = "svf1:theta=2,short_length=1,long_length=4"


def onebit_differs(instances: list[Any], policy: str) -> int:
    """How many of ``instances`` 1-bit SVF (``policy``) schedules differently from SVF (the spec check of
    1-bit SVF must run where the two differ)."""
    from geosched.reference_impl.simulation import simulate

    return sum(simulate(i, policy).starts != simulate(i, "svf").starts for i in instances)


@register("policy-spec")
@declares_canary("the admission one token generous (M + 1), judged by the same equivalence check")
def _policy_spec(claim: Any, ctx: Context) -> Evidence:
    """The Z3 specification against the simulator's own admission code (every state in bounds) and
    against every decision of simulated runs (svf, sjf, fcfs; strict, and svf with backfill)."""
    from geosched.verify.policy_spec import check_policy_equivalence, check_runs_against_spec

    def run() -> dict[str, Any]:
        # prompts up to 2: equal volumes of different shapes ((0, 2) and (2, 1)) occur, in both orders
        bounds = ctx.pick({"max_memory": 3, "max_waiting": 2, "max_prompt": 2},
                          {"max_memory": 4, "max_waiting": 2, "max_prompt": 2}, {})
        out: dict[str, Any] = {}
        for policy in ctx.pick(("svf", ONEBIT_STATES), ("svf", "sjf", ONEBIT_STATES), ("svf", "sjf", ONEBIT_STATES)):
            out[f"states:{policy}"] = check_policy_equivalence(policy, thorough=ctx.thorough, seed=ctx.seed, **bounds)
        instances = _run_instances(ctx.seed, ctx.pick(300, 600, 3000), ctx.pick(4, 5, 6))
        runs = (("svf", False), ("sjf", False), ("svf", True), (ONEBIT_RUNS, False)) + (
            () if ctx.quick else (("fcfs", False),))
        for policy, backfill in runs:
            out[f"runs:{policy}{'+backfill' if backfill else ''}"] = check_runs_against_spec(instances, policy,
                                                                                            backfill=backfill)
        out["onebit_differs"] = onebit_differs(instances, ONEBIT_RUNS)
        return out

    results, elapsed = ctx.cached("policy-spec", run)
    canary = _policy_spec_canary(ctx)
    differs = results["onebit_differs"]
    results = {k: r for k, r in results.items() if k != "onebit_differs"}
    bad = {k: r for k, r in results.items() if r.status not in ("checked", "held")}
    states = {k: r.states_checked for k, r in results.items() if k.startswith("states:")}
    decisions = sum(r.decisions for k, r in results.items() if k.startswith("runs:"))
    data = {**{k: r.to_dict() for k, r in results.items()}, "onebit_differs_from_svf": differs}
    if not differs:
        return Evidence("policy-spec", "supporting", "refuted", f"the 1-bit SVF check ({ONEBIT_RUNS}) ran on no "
                        "instance where its schedule differs from SVF's: it could not tell the two apart",
                        wall_time=elapsed, data=data)
    if bad:
        key, first = next(iter(bad.items()))
        status = "refuted" if first.status in ("refuted", "violated") else "unknown"
        return Evidence("policy-spec", "supporting", status, f"{key}: {first.message}", wall_time=elapsed, data=data,
                        counterexample=ctx.write("policy_spec.json", data) if status == "refuted" else None)
    return Evidence("policy-spec", "supporting", "checked",
                    f"the simulator's admission code equals the Z3 specification on {sum(states.values())} states "
                    f"({', '.join(f'{k[7:]}: {v}' for k, v in states.items())}) and at every one of {decisions} "
                    f"decision steps of simulated runs (svf, sjf, fcfs strict; svf backfill; 1-bit SVF "
                    f"{ONEBIT_RUNS[5:]}, whose schedule differs from SVF's on {differs} of the runs; class bits and "
                    "admission by the exact lengths)", wall_time=elapsed, data=data, canary=canary,
                    coverage=Coverage({"states": sum(states.values()), "decision steps": decisions},
                                      {}, floor=POLICY_SPEC_FLOOR[ctx.mode]))


# the states and decision steps each mode's spec check reaches at least (seed 0: quick 7,538 states and 3,635
# decisions, default 52,257 and 10,466); fewer is a coverage loss
POLICY_SPEC_FLOOR = {"quick": {"states": 7_000, "decision steps": 3_000},
                     "default": {"states": 50_000, "decision steps": 9_000},
                     "thorough": {"states": 50_000, "decision steps": 9_000}}


def _policy_spec_canary(ctx: Context) -> Canary:
    """The simulator's admission planted one token generous (it admits as if M were one larger), judged by the same
    state-space equivalence check (:func:`~geosched.verify.policy_spec.check_policy_equivalence`) on SVF: it must
    find the difference."""
    from geosched.reference_impl.admission import admission_step
    from geosched.verify.policy_spec import check_policy_equivalence

    def generous(memory: int, *args: Any, **kwargs: Any) -> list[int]:
        return admission_step(memory + 1, *args, **kwargs)

    def verdict(admission: Any) -> str | None:
        result = check_policy_equivalence("svf", admission=admission, seed=ctx.seed, max_memory=3, max_waiting=2,
                                          max_prompt=2)
        return None if result.status in ("checked", "held") else f"{result.status}: {result.message}"

    return plant("the admission one token generous (M + 1)", verdict, generous)


Comparison = tuple[str, Any, Any, float]  # (what, ours, theory's, relative tolerance: 0 for exact)


def differs(what: str, ours: Any, theirs: Any, tolerance: float = 0.0) -> str | None:
    """The one verdict of the constant checks: ``ours`` (what a check uses) against ``theirs`` (theory's), exactly
    or within a relative ``tolerance``."""
    if tolerance:
        same = abs(ours - theirs) <= tolerance * max(1.0, abs(theirs))
    else:
        same = ours == theirs
    return None if same else f"{what}: ours {ours}, theory's {theirs}"


def _planted(value: Any) -> Any:
    """Theory's value with a defect planted: a number + 1 (exact) or x1.1 (a float), a text with a digit appended."""
    if isinstance(value, str):
        return value + "1"
    return value * PERTURB if isinstance(value, float) else value + 1


PERTURB = 1.1  # a float constant planted 10% larger


def _supporting(label: str, comparisons: list[Comparison], checked: str, t0: float,
                extra: list[str] = ()) -> Evidence:
    """The evidence of the constant checks: every comparison by :func:`differs`; the canary plants a defect in
    theory's side of the last comparison (the largest instance) and must be refuted by the same :func:`differs`."""
    problems = [p for c in comparisons if (p := differs(*c))] + list(extra)
    if problems:
        return Evidence(label, "supporting", "refuted", "; ".join(problems[:3]), wall_time=time.perf_counter() - t0,
                        data={"problems": problems})
    what, ours, theirs, tolerance = comparisons[-1]
    canary = plant(f"{what}: theory's value planted {'x1.1' if isinstance(theirs, float) else '+ 1'}",
                   lambda planted: differs(what, ours, planted, tolerance), _planted(theirs))
    return Evidence(label, "supporting", "checked", f"{checked} ({len(comparisons)} comparisons)",
                    wall_time=time.perf_counter() - t0, canary=canary)


_CONSTANT_DEFECT = "theory's side of the last comparison planted + 1 (x1.1 for a float)"


@register("consts:thm3.2")
@declares_canary(_CONSTANT_DEFECT)
def _consts_thm32(claim: Any, ctx: Context) -> Evidence:
    """The exhaustive check's integer bound is theory's 1 + 2/(1 - alpha) at every M <= 12, P < M."""
    from fractions import Fraction

    from geosched.theory import get_derivation
    from geosched.verify import exhaustive as ex

    t0 = time.perf_counter()
    derivation = get_derivation("kong.thm3.2")
    comparisons = []
    for memory in range(1, 13):
        for peak in range(0, memory):
            ratio = Fraction(str(derivation.bound_at(alpha=Fraction(peak, memory))))
            largest = next(t for t in range(1, 10**6) if not ex.bound_holds(t + 1, 1, memory, peak))
            # the largest TEL(SVF) the check accepts at TEL(OPT) = 1
            comparisons.append((f"the largest TEL accepted at M={memory}, P={peak}", largest, int(ratio), 0.0))
    return _supporting("consts:thm3.2", comparisons, "bound_holds accepts exactly TEL <= floor(1 + 2/(1 - P/M)) "
                       "(theory's expression) at every M <= 12, P < M; Instance.alpha = max(s + o)/M on 200 "
                       "seeded instances", t0, extra=_alpha_problems(ctx.seed))


def _alpha_problems(seed: int) -> list[str]:
    """``Instance.alpha`` (the theorem's alpha) against ``max_i (s_i + o_i) / M`` computed here."""
    from fractions import Fraction

    for instance in _run_instances(seed, 200, 4):
        direct = Fraction(max(r.prompt + r.output for r in instance.requests), instance.memory)
        if instance.alpha != direct:
            return [f"Instance.alpha = {instance.alpha} != max(s + o)/M = {direct} on M={instance.memory}, "
                    f"{[(r.prompt, r.output) for r in instance.requests]}"]
    return []


@register("consts:thm3.3")
@declares_canary(_CONSTANT_DEFECT)
def _consts_thm33(claim: Any, ctx: Context) -> Evidence:
    """The exhaustive check's threshold and constant are theory's (theta = floor(sqrt T), 1 + 2T/(1-alpha))."""
    import sympy as sp

    from geosched.reference_impl.model import burst_instance
    from geosched.theory import kong_thm3_3
    from geosched.verify import exhaustive as ex

    t0 = time.perf_counter()
    t, a = sp.symbols("T alpha", positive=True)
    difference = sp.simplify(kong_thm3_3.constant(t, a) - (1 + ex.THM33_NUMERATOR * t / (1 - a)))
    comparisons = [("the constant's difference from 1 + 2T/(1-alpha)", difference, 0, 0.0)]
    for longest in range(1, 61):
        spec = ex.sqrt_threshold_svf1(burst_instance(longest + 1, [(0, longest)]))
        comparisons.append((f"the threshold run at T={longest}", spec, f"svf1:theta={kong_thm3_3.threshold(longest)}",
                            0.0))
    return _supporting("consts:thm3.3", comparisons, "threshold floor(sqrt T) for T <= 60 and the constant "
                       f"1 + {ex.THM33_NUMERATOR}T/(1-alpha) equal theory's", t0)


@register("consts:jaillet")
@declares_canary(_CONSTANT_DEFECT)
def _consts_jaillet(claim: Any, ctx: Context) -> Evidence:
    from geosched.theory import get_derivation
    from geosched.verify import exhaustive as ex

    t0 = time.perf_counter()
    theory = get_derivation("jaillet.thm4.3").bound
    return _supporting("consts:jaillet", [("Jaillet's constant", ex.JAILLET_CONSTANT, theory, 0.0)],
                       f"the checked constant {ex.JAILLET_CONSTANT} is theory's", t0)


@register("consts:lemmaA.2")
@declares_canary(_CONSTANT_DEFECT)
def _consts_lemma(claim: Any, ctx: Context) -> Evidence:
    """The exhaustive check's summed factor and the monitor's threshold M - P are theory's."""
    from geosched.reference_impl.model import burst_instance
    from geosched.theory import kong_lemma_a2
    from geosched.verify import exhaustive as ex
    from geosched.verify.monitor import CertificateMonitor

    t0 = time.perf_counter()
    comparisons = [("Lemma A.2's factor", ex.LEMMA_A2_FACTOR, kong_lemma_a2.FACTOR, 0.0)]
    for memory, pairs in ((12, [(6, 3), (1, 5)]), (16, [(0, 8)] * 3), (9, [(2, 2)])):
        threshold = CertificateMonitor(burst_instance(memory, pairs)).threshold
        comparisons.append((f"the monitor's threshold on M={memory}, {pairs}", threshold,
                            memory - max(s + o for s, o in pairs), 0.0))
    return _supporting("consts:lemmaA.2", comparisons, f"factor {ex.LEMMA_A2_FACTOR} and threshold M - P are theory's",
                       t0)


@register("consts:prop3.1")
@declares_canary(_CONSTANT_DEFECT)
def _consts_prop31(claim: Any, ctx: Context) -> Evidence:
    """The exhaustive check's prefix bound equals theory's prefix-sum expression on seeded lists."""
    import random

    from geosched.theory import kong_prop3_1
    from geosched.verify import exhaustive as ex

    t0 = time.perf_counter()
    rng = random.Random(ctx.seed)
    comparisons = []
    for _ in range(200):
        values = sorted(rng.randint(1, 60) for _ in range(rng.randint(1, 6)))
        comparisons.append((f"prefix_bound({values})", ex.prefix_bound(values),
                            int(kong_prop3_1.prefix_sum_total(values)), 0.0))
    return _supporting("consts:prop3.1", comparisons, "prefix_bound equals theory's sum_k P_k on 200 seeded lists", t0)


@register("consts:poisson")
@declares_canary(_CONSTANT_DEFECT)
def _consts_poisson(claim: Any, ctx: Context) -> Evidence:
    """The Monte-Carlo's bound, O_0, O_1 and eps equal theory's expressions and direct sums."""
    import sympy as sp

    from geosched.theory import get_derivation, kong_thm3_5
    from geosched.verify import montecarlo as mc

    t0 = time.perf_counter()
    comparisons = []
    bound34, bound_half = get_derivation("kong.thm3.4"), get_derivation("kong.thm3.4.half")
    for mu, rho in ((0.2, 0.5), (0.35, 0.9), (0.5, 0.99)):
        theirs = float(bound34.bound_at(alpha=sp.Rational(1, 2), mu=sp.nsimplify(mu), rho=sp.nsimplify(rho)))
        half = float(bound_half.bound_at(mu=sp.nsimplify(mu), rho=sp.nsimplify(rho)))
        mine = mc.svf_stochastic_bound(0.5, mu, rho)
        comparisons += [(f"the bound at mu={mu}, rho={rho}", mine, theirs, 1e-9),
                        (f"the bound at mu={mu}, rho={rho} (alpha = 1/2 form)", mine, half, 1e-9)]
    for mu, theta in ((0.3, 4), (0.1, 12), (0.5, 1)):
        q = 1 - mu
        pmf = [mu * q ** (k - 1) for k in range(1, 3000)]
        short = sum(k * p for k, p in enumerate(pmf[:theta], 1)) / sum(pmf[:theta])
        long_ = sum(k * p for k, p in enumerate(pmf[theta:], theta + 1)) / sum(pmf[theta:])
        o0, o1 = mc.one_bit_parameters(mu, theta)
        point = {kong_thm3_5.mu: mu, kong_thm3_5.q: q, kong_thm3_5.theta: theta}
        eps = float(kong_thm3_5.distortion().subs(point))
        comparisons += [(f"{name} at mu={mu}, theta={theta}", got, want, 1e-7) for name, got, want in (
            ("O_0", o0, short), ("O_1", o1, long_), ("eps", mc.distortion_penalty(mu, theta), eps),
            ("O_1 (theory)", o1, float(kong_thm3_5.o1().subs(point))))]
    return _supporting("consts:poisson", comparisons, "bound, O_0, O_1 and eps equal theory's expressions and direct "
                       "sums of the geometric distribution", t0)


# --------------------------------------------------------------------------- stochastic claims


def _poisson_run(policy: str, ctx: Context) -> tuple[Any, float]:
    from geosched.verify.montecarlo import HEAVY_GRID, OUTSIDE_GRID, run_montecarlo

    def run() -> Any:
        grid = ctx.pick(HEAVY_GRID[1::2], HEAVY_GRID, HEAVY_GRID)
        # 2,000 resamples even in --quick (a few ms): the second bootstrap can then tell a 2.5% end from a 5% one
        return run_montecarlo(grid, policy=policy, n=ctx.pick(8, 10, 12), replications=ctx.pick(12, 40, 200),
                              memory=12, alpha_cap=0.5, s_min=0, s_max=3, seed=ctx.seed,
                              n_boot=ctx.pick(2000, 2000, 4000), lp_samples=ctx.pick(1, 3, 10),
                              opt="exact", outside=ctx.pick((), OUTSIDE_GRID, OUTSIDE_GRID), executor=ctx.executor)

    return ctx.cached(f"poisson:{policy}", run)


def _point_rows(result: Any) -> list[dict[str, Any]]:
    return [{"mu": p.mu, "rho": p.rho, "effective_rho": round(p.effective_rho, 3), "opt": p.opt,
             "e_ratio": round(p.ratio, 5), "e_ratio_ci": [round(p.ci_low, 5), round(p.ci_high, 5)],
             "e_cr": None if p.mean_cr is None else round(p.mean_cr, 5),
             "e_cr_ci": None if p.cr_ci is None else [round(p.cr_ci[0], 5), round(p.cr_ci[1], 5)],
             "bound": round(p.bound, 4), "used": p.used, "discriminating": p.discriminating, "vacuous": p.vacuous,
             "verdict": p.verdict, "mean_wait": p.mean_wait, "flip_constant": p.flip_constant,
             "workload": p.workload, "sanity_failures": p.sanity_failures,
             **({"eps": p.eps, "theta": p.theta, "proxies": p.proxies} if p.eps is not None else {})}
            for p in result.points]


def _mc_failures(result: Any, estimator: str) -> list[str]:
    """What makes a Monte-Carlo run fail before its bound is looked at: a per-sample sanity violation
    (the checker, OPT <= TEL(policy), every lower bound <= OPT), a workload that is not the statement's
    (lengths; the rate and the load measured against the statement's, :mod:`~geosched.verify.montecarlo_audit`),
    a point judged outside the theorem's hypotheses, an estimate that is not the named statistic recomputed
    from the samples (``ratio``: E[TEL]/E[OPT] as the ratio of the sample means; ``cr``: the mean of TEL/OPT),
    or a bootstrap interval a second implementation does not reproduce."""
    return [problem for p in result.points for problem in point_failures(p, result, estimator)]


def point_failures(p: Any, result: Any, estimator: str) -> list[str]:
    """:func:`_mc_failures` at one point (the predicate the canary's planted points go through too)."""
    from geosched.verify import montecarlo_audit as audit

    memory, alpha = result.memory, result.extra["alpha_cap"]
    where = f"mu={p.mu}, rho={p.rho}"
    problems = [f"per-sample sanity at {where}: {x}" for x in p.sanity]
    problems += [f"workload at {where}: {x}" for x in p.workload.get("problems", [])]
    problems += audit.load_problems(p, memory, alpha, tuple(result.extra["s_range"]))
    if p.in_hypotheses != audit.inside(p, memory, alpha):
        problems.append(f"hypotheses at {where}: the run says in_hypotheses={p.in_hypotheses}, recomputed "
                        f"{audit.inside(p, memory, alpha)} (0 < mu < 1, rho < 1, peaks <= alpha M)")
    if p.tel_samples:
        problems += _estimator_problems(p, estimator, result, where)
    return problems


MC_DEFECT = ("the measured rate x1.1, the measured load x1.1, a peak above alpha M, the reported estimate x1.1, and "
             "every TEL planted above the bound (at the heaviest judged point)")
# the grid points each mode runs and judges (inside the hypotheses), pinned: fewer is a coverage loss
MC_POINTS = {"quick": {"points": 3, "judged": 3}, "default": {"points": 8, "judged": 6},
             "thorough": {"points": 8, "judged": 6}}


def mc_canary(result: Any, judged: list[Any], estimator: str) -> Canary:
    """Four defects planted at the heaviest judged point, each judged by the run's own predicates: the workload's
    measured rate x1.1 (the audit's rate and load), a measured peak above alpha M (the hypotheses), the reported
    estimate x1.1 (the estimator and its interval, re-derived), and every TEL sample planted one step above the
    bound times OPT (the point's verdict, :func:`geosched.verify.montecarlo.judge_point`: must be refuted)."""
    import dataclasses
    import math

    from geosched.verify.montecarlo import judge_point

    top = max(judged, key=lambda p: (p.rho, p.mu))
    measured = top.workload["measured"]
    # the rate 10% higher at the same load (the volumes 10% smaller), and the load 10% higher at the same rate:
    # each seen only by its own line of the audit
    faster = {**top.workload, "measured": {**measured, "span": measured["span"] / PERTURB,
                                           "sum_volume": measured["sum_volume"] / PERTURB,
                                           "sum_volume_sq": measured["sum_volume_sq"] / PERTURB**2}}
    heavier = {**top.workload, "measured": {**measured, "sum_volume": measured["sum_volume"] * PERTURB,
                                            "sum_volume_sq": measured["sum_volume_sq"] * PERTURB**2}}
    peaked = {**top.workload, "measured": {**measured, "max_peak": result.extra["alpha_cap"] * result.memory + 1}}
    field = "ratio" if estimator == "ratio" else "mean_cr"
    plants = [
        plant("the measured rate x1.1 at the same load", lambda pt: point_failures(pt, result, estimator),
              dataclasses.replace(top, workload=faster)),
        plant("the measured load x1.1 at the same rate", lambda pt: point_failures(pt, result, estimator),
              dataclasses.replace(top, workload=heavier)),
        plant("a measured peak above alpha M", lambda pt: point_failures(pt, result, estimator),
              dataclasses.replace(top, workload=peaked)),
        plant(f"the reported {field} x1.1", lambda pt: point_failures(pt, result, estimator),
              dataclasses.replace(top, **{field: getattr(top, field) * PERTURB}))]
    if top.opt_samples and top.opt == "exact":
        generous = max(top.bound, top.bound_effective) * (1 + (top.eps or 0.0))
        over = [math.floor(generous * o) + 1 for o in top.opt_samples]
        plants.append(plant("every TEL one step above the bound x OPT",
                            lambda tel: "the point's verdict: refuted"
                            if judge_point(top, result, tel).verdict == "refuted" else None, over))
    return plant_all(plants)


def _estimator_problems(p: Any, estimator: str, result: Any, where: str) -> list[str]:
    """The point estimate recomputed from the samples, and its interval by a second bootstrap."""
    from geosched.verify import montecarlo_audit as audit

    tel, opt = [float(x) for x in p.tel_samples], [float(x) for x in p.opt_samples]
    if estimator == "ratio":
        recomputed, got, interval = sum(tel) / sum(opt), p.ratio, (p.ci_low, p.ci_high)
        numerators, denominators = tel, opt
    elif p.mean_cr is not None:
        numerators, denominators = [t / o for t, o in zip(tel, opt)], None
        recomputed, got, interval = sum(numerators) / len(numerators), p.mean_cr, p.cr_ci
    else:
        return []
    problems = []
    if abs(got - recomputed) > 1e-9 * recomputed:
        problems.append(f"estimator at {where}: reported {got:.6f}, the named statistic recomputed from the "
                        f"samples is {recomputed:.6f}")
    if interval is not None and p.opt in ("exact", "lower_bound"):
        problems += audit.bootstrap_problems(f"{estimator} at {where}", interval, numerators, denominators,
                                             result.confidence, result.extra.get("n_boot", 0), seed=result.seed)
    return problems


def _flip_text(flip: float | None, constant: int) -> str:
    """The sensitivity check in words: which replacement of the bound's ``constant`` refutes the row."""
    if flip is None:
        return "no exact OPT, so no constant flips it"
    if flip <= 0:
        return (f"no positive constant in place of {constant} flips it (the interval's lower end is 1: "
                "TEL = OPT lies inside it)")
    return f"it flips only with the constant {constant} replaced by one below {flip:.3g}"


def _monte_carlo(policy: str) -> Method:
    label = f"monte-carlo:{policy}"

    def method(claim: Any, ctx: Context) -> Evidence:
        from geosched.verify.montecarlo import svf_stochastic_bound
        from geosched.verify.montecarlo_audit import inside

        result, elapsed = _poisson_run(policy, ctx)
        judged = [p for p in result.points if inside(p, result.memory, result.extra["alpha_cap"])]
        used = max((p.used for p in judged if p.used is not None), default=None)
        # the sensitivity result, recomputed: the same check refutes with the constant 2 made 1.8 at some point
        disc = any(p.ratio_upper_ci_low is not None and p.ratio_upper_ci_low > (1 + (p.eps or 0.0)) *
                   svf_stochastic_bound(p.alpha, p.mu, p.rho, 1.8) for p in judged)
        data = {"points": _point_rows(result), "n": result.n, "memory": result.memory, "seed": result.seed,
                "statistic": "E[TEL]/E[OPT] as the ratio of the sample means (sum TEL / sum OPT), exact OPT",
                "hypothesis_notes": list(result.hypothesis_notes)}
        failures = _mc_failures(result, "ratio")
        if failures or result.status == "refuted":
            return Evidence(label, "statistical", "refuted", failures[0] if failures else result.message,
                            samples=result.samples, wall_time=elapsed, used=used, discriminating=disc,
                            implementation=bool(failures), data={**data, "failures": failures[:20]},
                            counterexample=ctx.write(f"montecarlo_{policy}.json", result.to_dict()))
        if not judged:
            return Evidence(label, "statistical", "unknown", "no point inside the theorem's hypotheses: nothing "
                            "judged", samples=result.samples, wall_time=elapsed, implementation=True, data=data)
        top = max(judged, key=lambda p: p.ratio)
        # the check refutes at some point iff the constant is below the largest per-point flip constant
        flip = max((p.flip_constant for p in judged if p.flip_constant is not None), default=None)
        data["flip_constant"] = flip
        consistent = all(p.consistent for p in judged) and result.status == "consistent"
        # the sensitivity check: the same run refutes with the constant 2 replaced by 1.8 (discriminating);
        # else it could not have failed at any constant near the paper's
        status = "consistent" if consistent and disc else "vacuous" if consistent else "unknown"
        measured = [p.workload["measured"] for p in judged]
        text = (f"E[TEL]/E[OPT] (ratio of means, exact OPT, {result.samples} workloads of n={result.n}, "
                f"M={result.memory}) at most {top.ratio:.4f}, 95% CI ({top.ci_low:.4f}, {top.ci_high:.4f}) at "
                f"mu={top.mu}, rho={top.rho}, against bounds >= {min(p.bound for p in judged):.2f}, judged at "
                f"{len(judged)} of {len(result.points)} points (the others outside the hypotheses); per-sample "
                f"OPT <= TEL and bounds <= OPT; rate and load measured on {sum(m['requests'] for m in measured)} "
                f"requests within 4 standard errors of the statement's; the interval re-derived by a second "
                f"bootstrap; sensitivity: {'refutes' if disc else 'does not refute'} with the constant 1.8")
        if status == "vacuous":
            text += f"; vacuous: {_flip_text(flip, 2)}"
        return Evidence(label, "statistical", status, text, samples=result.samples, wall_time=elapsed, used=used,
                        discriminating=disc, implementation=True, data=data, canary=mc_canary(result, judged, "ratio"),
                        coverage=Coverage({"points": len(result.points), "judged": len(judged)}, MC_POINTS[ctx.mode]))

    return declares_canary(MC_DEFECT)(method)


METHODS["monte-carlo:svf"] = _monte_carlo("svf")
METHODS["monte-carlo:svf1"] = _monte_carlo("svf1")


@register("monte-carlo:ecr")
@declares_canary(MC_DEFECT)
def _ecr(claim: Any, ctx: Context) -> Evidence:
    """E[SVF/OPT] (the summary's E[CR], exact OPT) against 1 + 4/((1-mu)(1-rho)) at alpha = 1/2."""
    from geosched.theory.kong_thm3_4_half import ecr_bound
    from geosched.verify.montecarlo_audit import inside

    result, elapsed = _poisson_run("svf", ctx)
    rows, refuted, vacuous, used_all, disc = [], [], True, [], False
    for p in result.points:
        if not inside(p, result.memory, result.extra["alpha_cap"]) or p.cr_ci is None:
            continue
        bound = float(ecr_bound(p.mu, p.rho))
        half = 1 + 2 / ((1 - p.mu) * (1 - p.rho))  # the constant 4 halved
        used = (p.mean_cr - 1) * (1 - p.mu) * (1 - p.rho) / 4
        used_all.append(used)
        refuted += [p] if p.cr_ci[0] > bound else []
        vacuous = vacuous and p.cr_ci[1] <= half
        disc = disc or p.cr_ci[0] > 1 + 3.6 / ((1 - p.mu) * (1 - p.rho))
        flip = (p.cr_ci[0] - 1) * (1 - p.mu) * (1 - p.rho)  # refutes iff the constant 4 is replaced by less
        rows.append({"mu": p.mu, "rho": p.rho, "e_cr": p.mean_cr, "ci": list(p.cr_ci), "bound": bound, "used": used,
                     "flip_constant": flip})
    data = {"points": rows, "n": result.n, "memory": result.memory,
            "statistic": "E[SVF/OPT]: the mean of the per-workload ratios TEL/OPT, exact OPT"}
    failures = _mc_failures(result, "cr")
    if failures:
        return Evidence("monte-carlo:ecr", "statistical", "refuted", failures[0], samples=result.samples,
                        wall_time=elapsed, implementation=True, data={**data, "failures": failures[:20]},
                        counterexample=ctx.write("montecarlo_ecr.json", {**data, "failures": failures}))
    if not rows:
        return Evidence("monte-carlo:ecr", "statistical", "unknown", "no point with exact OPT on every workload",
                        wall_time=elapsed, implementation=True, data=data)
    used = max(used_all)
    if refuted:
        p = refuted[0]
        return Evidence("monte-carlo:ecr", "statistical", "refuted", f"E[CR] CI low {p.cr_ci[0]:.4f} > "
                        f"{float(ecr_bound(p.mu, p.rho)):.4f} at mu={p.mu}, rho={p.rho}", samples=result.samples,
                        wall_time=elapsed, used=used, discriminating=disc, implementation=True, data=data,
                        counterexample=ctx.write("montecarlo_ecr.json", data))
    top = max(rows, key=lambda r: r["e_cr"])
    flip = max(r["flip_constant"] for r in rows)
    data["flip_constant"] = flip
    text = (f"E[SVF/OPT] (mean of per-workload ratios, exact OPT) at most {top['e_cr']:.4f}, 95% CI "
            f"({top['ci'][0]:.4f}, {top['ci'][1]:.4f}) at mu={top['mu']}, rho={top['rho']}, against "
            f"1 + 4/((1-mu)(1-rho)) >= {min(r['bound'] for r in rows):.2f}; uses {used:.2g} of the constant 4")
    vacuous = vacuous or not disc
    judged = [p for p in result.points if inside(p, result.memory, result.extra["alpha_cap"]) and p.cr_ci]
    return Evidence("monte-carlo:ecr", "statistical", "vacuous" if vacuous else "consistent",
                    text + (f"; vacuous: {_flip_text(flip, 4)}" if vacuous else ""),
                    samples=result.samples, wall_time=elapsed, used=used, discriminating=disc, implementation=True,
                    data=data, canary=mc_canary(result, judged, "cr"),
                    coverage=Coverage({"points": len(result.points), "judged": len(rows)}, MC_POINTS[ctx.mode]))


# --------------------------------------------------------------------------- constructions and games


@register("enumeration:volume")
@declares_canary("model.volume + 1 at the largest (s, o)")
def _volume_enumeration(claim: Any, ctx: Context) -> Evidence:
    """``model.volume(s, o)`` against the literal sum ``sum_{j=1..o} (s + j)``."""
    from geosched.reference_impl import model

    limit = ctx.pick(30, 60, 200)
    t0 = time.perf_counter()
    pairs = 0
    for s in range(limit + 1):
        for o in range(1, limit + 1):
            problem = volume_problem(s, o, model.volume(s, o))
            pairs += 1
            if problem:
                path = ctx.write("enumeration_volume.json", {"prompt": s, "output": o, "model_volume":
                                                             model.volume(s, o), "sum_formula": sum(
                                                                 s + j for j in range(1, o + 1))})
                return Evidence("enumeration:volume", "bounded", "refuted", problem, counterexample=path,
                                wall_time=time.perf_counter() - t0)
    canary = plant(f"model.volume({limit}, {limit}) + 1", lambda got: volume_problem(limit, limit, got),
                   model.volume(limit, limit) + 1)
    return Evidence("enumeration:volume", "bounded", "checked",
                    f"geosched.reference_impl.model.volume equals the literal sum at {pairs} (s, o) pairs",
                    bound=f"0<=s<={limit}, 1<=o<={limit}", wall_time=time.perf_counter() - t0, used=1.0,
                    discriminating=True, canary=canary,
                    coverage=Coverage({"(s, o) pairs": pairs}, {"(s, o) pairs": VOLUME_PAIRS[ctx.mode]}))


VOLUME_PAIRS = {"quick": 31 * 30, "default": 61 * 60, "thorough": 201 * 200}  # 0 <= s <= L, 1 <= o <= L, pinned


def volume_problem(s: int, o: int, got: int) -> str | None:
    """The volume's verdict: ``got`` against the literal sum ``sum_{j=1..o} (s + j)``."""
    direct = sum(s + j for j in range(1, o + 1))
    return None if got == direct else f"model.volume({s}, {o}) = {got} != sum_j (s + j) = {direct}"


@register("simulation:family")
@declares_canary("closed form + 1 (the largest member)")
def _sjf_family(claim: Any, ctx: Context) -> Evidence:
    """theory's SJF family: simulated TEL(SJF), TEL(SVF) equal the closed forms; the ratio grows."""
    from geosched.theory import kong_sjf_unbounded as fam
    from geosched.verify.family_evidence import STATED, member_problems, simulated_tels, tel_canary

    label = "simulation:family"
    t0 = time.perf_counter()
    sizes = ctx.pick((2, 3, 4), (2, 3, 4, 6, 8), (2, 3, 4, 6, 8, 12, 16, 24))
    rows = []
    for k in sizes:
        instance = fam.sjf_family(k)
        want = {policy: int(value) for policy, value in fam.closed_form_tels(k).items()}
        got = simulated_tels(instance, ("sjf", "svf"), None)
        rows.append({"size": k, "n": instance.n, "memory": instance.memory, "closed_form": want, **got})
        problems = member_problems(instance, STATED["kong_sjf_unbounded"](k), got, want)
        if problems:
            return Evidence(label, "bounded", "refuted", f"size {k}: {problems[0]}", implementation=True,
                            counterexample=ctx.write("family_kong.sjf_unbounded.json", rows[-1]),
                            wall_time=time.perf_counter() - t0)
    ratios = [r["sjf"] / r["svf"] for r in rows]
    growing = all(b > a for a, b in zip(ratios, ratios[1:]))
    bound = f"family sizes {sizes[0]}..{sizes[-1]}"
    detail = (f"at {len(rows)} sizes the member built is the family stated (M, every request, alpha) and "
              "simulation == closed form; TEL(SJF)/TEL(SVF) = "
              + ", ".join(f"{x:.3f}" for x in ratios) + f" at sizes {list(sizes)}")
    status = "checked" if growing else "refuted"
    return Evidence(label, "bounded", status, detail + ("" if growing else " (not increasing)"), bound=bound,
                    wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                    data={"rows": rows}, covers={label: (status, bound)},
                    canary=tel_canary(instance, f"size {sizes[-1]}", got, want, None),
                    coverage=Coverage({"sizes": len(rows)}, {"sizes": ctx.pick(3, 5, 8)}))


@register("simulation:svf-family")
@declares_canary("closed form + 1 and a witness start - 1 (one member)")
def _svf_family(claim: Any, ctx: Context) -> Evidence:
    """theory's SVF lower-bound family (svf-triangles; r = 1 is svf-pairs) against the simulator and the
    checker; the best known lower bound (the supremum of the family limits) beside Thm. 3.2's upper bound."""
    import sympy as sp

    from geosched.theory import kong_thm3_2
    from geosched.theory import svf_lower_bound as fam
    from geosched.verify.family_evidence import STATED, member_problems, simulated_tels, tel_canary

    label = "simulation:svf-family"
    t0 = time.perf_counter()
    sizes = [(m, r, q) for m in ctx.pick((1, 2, 3), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8, 20, 60)) for r in (1, 2, 4)
             for q in (1, 2)]
    for m, r, q in sizes:
        instance, want = fam.svf_triangles(m, r, q), fam.triangle_closed_form_tels(m, r, q)
        witness = fam.triangle_witness_starts(m, r, q)
        got = simulated_tels(instance, ("svf",), witness)
        problems = member_problems(instance, STATED["svf_lower_bound"](m, r, q), got, want)
        if problems:
            return Evidence(label, "bounded", "refuted", f"m={m}, r={r}, q={q}: {problems[0]}",
                            implementation=True, wall_time=time.perf_counter() - t0,
                            counterexample=ctx.write("family_svf.lower_bound.json",
                                                     {"m": m, "r": r, "q": q, "simulated": got, "closed_form": want}))
    first = sizes[0]
    canary = tel_canary(fam.svf_triangles(*first), f"(m, r, q) = {first}",
                        simulated_tels(fam.svf_triangles(*first), ("svf",), fam.triangle_witness_starts(*first)),
                        fam.triangle_closed_form_tels(*first), fam.triangle_witness_starts(*first))
    lower, family = fam.best_known_lower_bound()
    upper = kong_thm3_2.derivation().bound_at(alpha=sp.Rational(1, 2))
    bound = f"m <= {sizes[-1][0]}, r <= 4, q <= 2"
    return Evidence(label, "bounded", "checked",
                    f"{family}: at {len(sizes)} members the member built is the family stated (M, every request, "
                    "alpha = 1/(r + 1)) and simulation == closed form; best known lower bound "
                    f"(supremum of the family limits) {lower} vs the proved upper bound {upper} (Thm. 3.2, "
                    "alpha = 1/2)",
                    bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                    data={"lower_bound": str(lower), "family": family, "upper_bound": str(upper)},
                    covers={label: ("checked", bound)}, canary=canary,
                    coverage=Coverage({"members": len(sizes)}, {"members": ctx.pick(18, 30, 42)}))


def _cycle_rate(s: int, o: int, memory: int) -> Any:
    """SVF's starts per step on identical ``(s, o)`` from the empty batch, by state repetition in the
    reference simulator's trace (independent of geosched.adversary.fluid, which uses the compiled one)."""
    from fractions import Fraction

    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    n = 24 * (memory // (s + o) + 2)
    while True:
        inst = Instance(memory, [Request(f"r{j:05d}", 0, s, o) for j in range(n)])
        x = sorted(simulate(inst, "svf").starts.values())
        seen: dict[tuple[int, ...], tuple[int, int]] = {}
        width = memory // max(1, s) + o + 2
        for j in range(n - width - 1):
            if x[j + 1] == x[j]:
                continue
            state = tuple(sorted(x[j] - x[i] for i in range(max(0, j - width), j + 1) if x[i] + o > x[j]))
            if state in seen:
                return Fraction(j - seen[state][0], x[j] - seen[state][1])
            seen[state] = (j, x[j])
        n *= 2


def rho_problem(memory: int, s: int, o: int, rate: Any) -> str | None:
    """svf.fluid.k*'s step on one group: ``rho = M/(theta v) <= 2M/(M + 2)`` at SVF's cycle rate ``theta``."""
    from fractions import Fraction

    rho = Fraction(memory) / (rate * (s * o + (o * o + o) // 2))
    return f"M={memory}, (s, o) = ({s}, {o}): rho = {rho} > 2M/(M+2)" if rho > Fraction(2 * memory, memory + 2) \
        else None


def phase_problem(gaps: list[Any], limit: Any) -> str | None:
    """A two-group member's TEL/N^2 approaches the phase limit like 1/N (``gaps`` at N = 200, 400)."""
    if gaps[1] < gaps[0] and gaps[1] * 400 <= 20:
        return None
    return f"TEL/N^2 does not approach the phase limit {limit}: gaps {[float(g) for g in gaps]}"


# the groups (s, o), s + o <= M/2, 4 <= M <= top, per mode: all of them, and those without a prompt (s = 0)
FLUID_GROUPS = {"quick": {"groups": 53, "prompt-free groups": 23}, "default": {"groups": 202, "prompt-free groups": 62},
                "thorough": {"groups": 1238, "prompt-free groups": 223}}


@register("simulation:fluid-rates")
@declares_canary("SVF's cycle rate halved at the worst group; the phase limit + 1")
def _fluid_rates(claim: Any, ctx: Context) -> Evidence:
    """Every single group (s, o), s + o <= M/2, M <= bound: rho = M/(theta v) <= 2M/(M + 2) (the step of
    svf.fluid.k*), and a two-group member's TEL/N^2 against the phase limit Q(gamma; 1/theta)."""
    from fractions import Fraction

    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    label = "simulation:fluid-rates"
    t0 = time.perf_counter()
    top = ctx.pick(10, 16, 30)
    worst, covered = (Fraction(0), 0, 0, 0, Fraction(1)), {"groups": 0, "prompt-free groups": 0}
    for memory in range(4, top + 1):
        for o in range(1, memory // 2 + 1):
            for s in range(0, memory // 2 - o + 1):
                rate = _cycle_rate(s, o, memory)
                problem = rho_problem(memory, s, o, rate)
                if problem:
                    return Evidence(label, "bounded", "refuted", problem, implementation=True,
                                    wall_time=time.perf_counter() - t0)
                covered["groups"] += 1
                covered["prompt-free groups"] += s == 0
                worst = max(worst, (Fraction(memory) / (rate * (s * o + (o * o + o) // 2)), memory, s, o, rate))
    # the phase limit: (0, 5) and (2, 3) in M = 15, half each (volume order: (2, 3) first)
    tau = {(0, 5): 1 / _cycle_rate(0, 5, 15), (2, 3): 1 / _cycle_rate(2, 3, 15)}
    limit = Fraction(1, 4) * (tau[(2, 3)] / 2 + tau[(2, 3)] + tau[(0, 5)] / 2)
    gaps = []
    for n in (200, 400):
        inst = Instance(15, [Request(f"a{j:04d}", 0, 2, 3) for j in range(n // 2)]
                        + [Request(f"b{j:04d}", 0, 0, 5) for j in range(n // 2)])
        gaps.append(Fraction(check_schedule(inst, simulate(inst, "svf").starts).metrics.tel, n * n))
    problem = phase_problem([abs(g - limit) for g in gaps], limit)
    if problem:
        return Evidence(label, "bounded", "refuted", problem, implementation=True, wall_time=time.perf_counter() - t0)
    rho, memory, s, o, rate = worst
    canary = plant_all([plant(f"the cycle rate halved at M = {memory}, (s, o) = ({s}, {o})",
                              lambda r: rho_problem(memory, s, o, r), rate / 2),
                        plant("the phase limit + 1", lambda x: phase_problem([abs(g - x) for g in gaps], x),
                              limit + 1)])
    bound = f"4 <= M <= {top}, every (s, o) with s + o <= M/2"
    return Evidence(label, "bounded", "checked",
                    f"largest rho = M/(theta v) = {rho} at M = {memory}, (s, o) = ({s}, {o}) over {covered['groups']} "
                    f"groups ({covered['prompt-free groups']} prompt-free), never above 2M/(M+2) < 2; a two-group "
                    f"member's TEL/N^2 approaches the phase limit {limit} (gap {float(abs(gaps[1] - limit)):.2g} at "
                    "N = 400)", bound=bound, wall_time=time.perf_counter() - t0,
                    implementation=True, discriminating=True, data={"max_rho": str(rho), "memory_max": top},
                    covers={label: ("checked", bound)}, canary=canary,
                    coverage=Coverage(covered, FLUID_GROUPS[ctx.mode]))


@register("simulation:construction")
@declares_canary("closed form + 1 and a witness start - 1 (the smallest K)")
def _jaillet_construction(claim: Any, ctx: Context) -> Evidence:
    """theory's adversarial arrivals against every registered simulator policy (the greedy ones)."""
    from geosched.reference_impl.policies import policy_names
    from geosched.theory import jaillet_thm4_1 as fam
    from geosched.verify.family_evidence import simulated_tels, tel_canary, tel_problems

    label = "simulation:construction"
    t0 = time.perf_counter()
    sizes = ctx.pick((2, 3), (2, 3, 4, 5, 6), (2, 3, 4, 5, 6, 8, 10))
    policies = tuple(policy_names())
    rows, canary = [], None
    for k in sizes:
        instance = fam.adversarial_family(k)
        expected = fam.closed_form_tels(k)
        want = {policy: int(expected["greedy"]) for policy in policies} | {"witness": int(expected["witness"])}
        got = simulated_tels(instance, policies, fam.witness_starts(k))
        rows.append({"K": k, "n": instance.n, "closed_form": expected, "witness_tel": got["witness"], **got})
        problems = tel_problems(got, want)
        if problems:
            return Evidence(label, "bounded", "refuted", f"K={k}: {problems[0]}", implementation=True,
                            counterexample=ctx.write("construction_jaillet.thm4.1.json", rows[-1]),
                            wall_time=time.perf_counter() - t0)
        canary = canary or tel_canary(instance, f"K = {k}", got, want, fam.witness_starts(k))
    ratios = [min(r[p] for p in policies) / r["witness_tel"] for r in rows]
    growing = all(b > a for a, b in zip(ratios, ratios[1:]))
    detail = (f"the greedy policies {', '.join(policies)} match the closed form; certified TEL/OPT >= "
              + ", ".join(f"{x:.2f}" for x in ratios) + f" at K = {list(sizes)} (n = K^2 + 1)")
    return Evidence(label, "bounded", "checked" if growing else "refuted", detail + ("" if growing else
                                                                                     " (not increasing)"),
                    bound=f"K = {sizes[0]}..{sizes[-1]}, policies {list(policies)}", wall_time=time.perf_counter() - t0,
                    implementation=True, discriminating=True, data={"rows": rows}, canary=canary,
                    coverage=Coverage({"K": len(rows)}, {"K": ctx.pick(2, 5, 7)}))


@register("game:jaillet4.1")
@declares_canary("a value planted below K/3; a recorded ratio + 1 (the audit)")
def _game(claim: Any, ctx: Context) -> Evidence:
    """Every deterministic online algorithm against theory's adaptive adversary, solved exactly."""
    import dataclasses
    from fractions import Fraction

    from geosched.verify.game import audit_game, solve_game

    label = "game:jaillet4.1"
    t0 = time.perf_counter()
    sizes = ctx.pick((2, 3), (2, 3), (2, 3, 4))
    results = [solve_game(k) for k in sizes]
    values = [Fraction(r.value_fraction) for r in results]
    # the continuations re-derived by exhaustive search (where it is small enough) and every ratio recomputed
    audits = [audit_game(r) for r in results]
    problems = [p for a in audits for p in a["problems"]]
    # the derivation's claim: ratio >= K/3 = sqrt(n - 1)/3 for every algorithm; "used" reads it on the 1/3
    used = max(Fraction(r.K, 3) / v for r, v in zip(results, values))
    fails_stronger = any(v < Fraction(r.K, 3) / Fraction(9, 10) for r, v in zip(results, values))
    ok = not game_problems(sizes, values)
    bound = f"K = {sizes[0]}..{sizes[-1]} (n = {', '.join(str(r.n) for r in results)}), every deterministic algorithm"
    text = ("against the adversary of theory, every deterministic online algorithm has ratio >= "
            + ", ".join(f"{float(v):.3f}" for v in values) + f" at K = {list(sizes)} (>= K/3, increasing: {ok}); "
            + _rederived_text(audits))
    data = {"games": [r.to_dict() for r in results], "problems": problems, "audits": audits}
    if problems or not ok:
        why = problems[0] if problems else text
        return Evidence(label, "bounded", "refuted", why, bound=bound, wall_time=time.perf_counter() - t0,
                        used=float(used), discriminating=fails_stronger, implementation=bool(problems),
                        counterexample=ctx.write("game_jaillet4.1.json", data), data=data)
    first = results[0]
    wrong_row = {**first.per_d[0], "fraction": str(Fraction(first.per_d[0]["fraction"]) + 1)}
    canary = plant_all([
        plant(f"V_K at K = {sizes[-1]} planted just below K/3", lambda v: game_problems(sizes, v),
              values[:-1] + [Fraction(sizes[-1], 3) - Fraction(1, 100)]),
        plant(f"the recorded ratio at K = {first.K}, d = {first.per_d[0]['d']} + 1",
              lambda game: audit_game(game)["problems"],
              dataclasses.replace(first, per_d=[wrong_row, *first.per_d[1:]]))])
    return Evidence(label, "bounded", "checked", text, bound=bound, wall_time=time.perf_counter() - t0,
                    used=float(used), discriminating=fails_stronger, data=data, covers={label: ("checked", bound)},
                    canary=canary)


def game_problems(sizes: tuple[int, ...], values: list[Any]) -> list[str]:
    """The game's verdict on its values: ``V_K >= K/3`` at every K, increasing in K."""
    from fractions import Fraction

    problems = [f"K={k}: V_K = {v} < K/3" for k, v in zip(sizes, values) if v < Fraction(k, 3)]
    if not all(b > a for a, b in zip(values, values[1:])):
        problems.append(f"V_K not increasing: {[str(v) for v in values]}")
    return problems


def _rederived_text(audits: list[dict[str, Any]]) -> str:
    """What the game's audit re-derived, from its counts: the K whose continuations were searched exhaustively
    and how many, and the K where only the never-release ratios and the minimum were recomputed."""
    searched = [a for a in audits if a["continuations"]]
    rest = [a["K"] for a in audits if not a["continuations"]]
    parts = []
    if searched:
        parts.append(f"the continuations re-derived as the exact optimum by exhaustive search at K = "
                     f"{[a['K'] for a in searched]} ({', '.join(str(a['continuations']) for a in searched)} of them)")
    if rest:
        parts.append(f"at K = {rest} only the never-release ratios and the minimum recomputed")
    return "; ".join(parts) or "nothing re-derived"


@register("literature:48")
@needs_no_canary("a statement about the literature: nothing is computed and the evidence is always not_run")
def _literature_48(claim: Any, ctx: Context) -> Evidence:
    """Where the abstract's "48" comes from: what was found, nothing computed."""
    return Evidence("literature:48", "source", "not_run",
                    "needs the source of the 48 (not found); not established: Kong et al.'s v1 abstract says "
                    "'CR <= 48 -> CR <= 5' with no citation we could "
                    "read; a secondary summary (sciencestack.ai) attributes a bound of 48 to Sorted-F of Wang, Ye, "
                    "Zhou (arXiv 2508.06133: offline batch, heterogeneous prompts), not checked against that paper; "
                    "Feng et al. (arXiv 2601.22996) call the best earlier clairvoyant bound 'over 9000', near "
                    "Jaillet et al.'s implied constant (~9216)", data={"sources": [
                        "arXiv 2606.22327v1 abstract", "sciencestack.ai/paper/2508.06133 (secondary)",
                        "arXiv 2601.22996 (Feng, Yang, Zhang)"]})


# the claim checked here alone (its row; the ledger collects it with the theory's)
CLAIMS = (Claim(
    "kong.cr48", f"{KONG} abstract (v1)", "the prior best competitive ratio was 48",
    "none: a statement about the literature", "nothing to compute; the sources found are listed",
    ("literature:48",),
    order=("literature", 10), no_derivation="a statement about the literature: nothing to derive"),)


# --------------------------------------------------------------------------- Z3 ceilings of SVF (issue 25)

# the ceiling sweeps' reach per mode (verify/z3ceiling.py): the largest n attempted and each query's Z3 resource
# limit. Units needed (M in [2, 10], s <= 4, o <= 5, the default cuts; benchmarks/RESULTS.md, "Z3 ceilings of
# SVF"): at 3/2 n = 5: 13.6M, n = 6: 129M; at 2 n = 6: 26M, n = 7: 144M; both past 200M one n later. The default
# stops at that frontier (about 20 s of one core for both rows) with a limit >= 3x the largest need in range;
# thorough asks larger n (n = 7 at 3/2 needs 731M, n = 8 at 2 needs 574M).
SOLVER_SWEEPS["z3:svf_ceiling:3/2"] = {"quick": {"max_n": 4, "z3": 20_000_000},
                                       "default": {"max_n": 6, "z3": 500_000_000},
                                       "thorough": {"max_n": 10, "z3": 2_000_000_000}}
SOLVER_SWEEPS["z3:svf_ceiling:2"] = {"quick": {"max_n": 4, "z3": 20_000_000},
                                     "default": {"max_n": 7, "z3": 500_000_000},
                                     "thorough": {"max_n": 10, "z3": 2_000_000_000}}


def _svf_ceiling(ratio: str) -> Method:
    label = f"z3:svf_ceiling:{ratio}"

    def method(claim: Any, ctx: Context) -> Evidence:
        from geosched.verify.z3ceiling import LEDGER_BOUNDS, BurstBounds, ceiling_query, ceiling_sweep

        limits = solver_limits(label, ctx)
        t0 = time.perf_counter()
        sweep = ceiling_sweep(ratio, max_n=limits["max_n"], rlimit=limits["z3"], **LEDGER_BOUNDS)
        # not vacuous: the same query at 6/5 (below the hunts' certified ratios) must find a certified witness
        probe = ceiling_query(BurstBounds(n=4, **LEDGER_BOUNDS), "6/5", rlimit=limits["z3"])
        elapsed = time.perf_counter() - t0
        per_n = [{"n": a.n, "status": a.status, "resources": a.resources} for a in sweep.answers]
        data = {"largest_n": sweep.largest_n, "per_n": per_n, "rlimit": limits["z3"], "stopped": sweep.stopped_because,
                "non_vacuity": probe.witness, "bounds": dict(LEDGER_BOUNDS, memory=list(LEDGER_BOUNDS["memory"]))}
        if sweep.status == "refuted":
            return Evidence(label, "bounded", "refuted", sweep.message, wall_time=elapsed, data=data,
                            counterexample=ctx.write(f"z3_svf_ceiling_{ratio.replace('/', '_')}.json",
                                                     sweep.answers[-1].to_dict()))
        if sweep.status != "checked":
            return Evidence(label, "bounded", "unknown", sweep.message, wall_time=elapsed, data=data)
        if probe.status == "unsat":
            return Evidence(label, "bounded", "vacuous", f"{sweep.message}; but the same query at 6/5 is unsat "
                            "(the encoding admits too little)", wall_time=elapsed, data=data)
        bound = sweep.bound_text()
        probe_text = (f"the same query at 6/5 is sat (n = 4, certified {probe.witness['ratio']})"
                      if probe.status == "sat" else "the 6/5 probe reached its limit")
        canary = Canary(CEILING_DEFECT, probe.status == "sat", probe_text)
        return Evidence(label, "bounded", "checked", f"{sweep.message}; Z3 rlimit {limits['z3']} per query; "
                        f"{probe_text}", bound=bound, wall_time=elapsed,
                        discriminating=True if probe.status == "sat" else None, data=data,
                        covers={label: ("checked", bound)}, canary=canary,
                        coverage=Coverage({"n": sweep.largest_n}, {"n": CEILING_REACH[ratio][ctx.mode]}))

    return declares_canary(CEILING_DEFECT)(method)


CEILING_DEFECT = "the ceiling planted at 6/5 (below the ratios the hunts certify): the same query must find a witness"
# the n each ceiling sweep reaches per mode under its resource limit (SOLVER_SWEEPS); less is a coverage loss
CEILING_REACH = {"3/2": {"quick": 4, "default": 6, "thorough": 6}, "2": {"quick": 4, "default": 7, "thorough": 7}}


METHODS["z3:svf_ceiling:3/2"] = _svf_ceiling("3/2")
METHODS["z3:svf_ceiling:2"] = _svf_ceiling("2")
