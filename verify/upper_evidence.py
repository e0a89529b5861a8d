"""Ledger method ``exhaustive:svf-upper`` for the row ``svf.upper_bound`` (issue 43): the statements of
``verify/coq/SvfUpper.v`` checked on every small burst against the exact optimum.

On every instance of a small box (each in its enumerated order and reversed, so that ties go both ways), with
the reference simulator's SVF and the exact optimum of the brute force (re-checked by the checker), one verdict
predicate, :func:`upper_problems`, checks:

* Lemma A.2 summed in its pairs form: ``(M - P) sum_i x_i <= 2Q``, ``Q = sum_{i<j} min(v_i, v_j)``
  (``lemmaA2_summed``, ``lemmaA2_summed_pairs``);
* the mean-busy-time bound ``6M OPT >= 6Q + 3V + 2M sum o`` (``opt_mean_busy``);
* the bound ``3(M - P) TEL(SVF) <= (6M + max(0, M - 3P)) OPT``, P the largest peak (``svf_upper_bound``).

Its canary, in the same run and through the same predicate: at the instance closest to the bound, SVF's TEL
one above the bound (a simulator that loses one step there must be caught).

Example
-------
>>> upper_problems({"M": 12, "P": 9, "x": [5, 0], "tel": 13, "opt": 9, "Q": 20, "V": 44, "O": 8})
[]
>>> upper_problems({"M": 12, "P": 9, "x": [5, 0], "tel": 80, "opt": 9, "Q": 20, "V": 44, "O": 8})
['3(M - P) TEL(SVF) = 720 > (6M + max(0, M - 3P)) OPT = 648']
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from geosched.verify.evidence import Canary, Context, Evidence, declares_canary, plant

__all__ = ["UPPER_METHODS", "upper_problems", "case_of", "bound_factor"]

LABEL = "exhaustive:svf-upper"
CANARY = "SVF's TEL one above the proved bound at the instance closest to it"


def bound_factor(memory: int, peak: int) -> int:
    """``6M + max(0, M - 3P)``: the right side's factor of ``svf_upper_bound``."""
    return 6 * memory + max(0, memory - 3 * peak)


def case_of(instance: Any, starts: dict[str, int], opt: int) -> dict[str, Any]:
    """The quantities of one run: M, P, SVF's starts and TEL, the optimum, Q, V and sum o."""
    reqs = instance.requests
    vols = sorted(r.volume for r in reqs)
    return {"M": instance.memory, "P": max(r.peak for r in reqs), "x": [starts[r.id] for r in reqs],
            "tel": sum(starts[r.id] + r.output for r in reqs), "opt": opt,
            "Q": sum(v * (len(vols) - 1 - k) for k, v in enumerate(vols)), "V": sum(vols),
            "O": sum(r.output for r in reqs)}


def upper_problems(case: dict[str, Any]) -> list[str]:
    """The verdict predicate: every statement of the module docstring on one run; the violations found."""
    big_m, p, opt, q, v, o = case["M"], case["P"], case["opt"], case["Q"], case["V"], case["O"]
    d, problems = max(0, big_m - p), []
    if d * sum(case["x"]) > 2 * q:
        problems.append(f"Lemma A.2 summed: (M - P) sum x = {d * sum(case['x'])} > 2Q = {2 * q}")
    if 6 * big_m * opt < 6 * q + 3 * v + 2 * big_m * o:
        problems.append(f"mean busy time: 6M OPT = {6 * big_m * opt} < 6Q + 3V + 2M sum o = "
                        f"{6 * q + 3 * v + 2 * big_m * o}")
    if 3 * d * case["tel"] > bound_factor(big_m, p) * opt:
        problems.append(f"3(M - P) TEL(SVF) = {3 * d * case['tel']} > (6M + max(0, M - 3P)) OPT = "
                        f"{bound_factor(big_m, p) * opt}")
    return problems


def _used(case: dict[str, Any]) -> Fraction:
    """How much of the bound the run uses: 3(M - P) TEL(SVF) / ((6M + max(0, M - 3P)) OPT)."""
    return Fraction(3 * max(0, case["M"] - case["P"]) * case["tel"], bound_factor(case["M"], case["P"]) * case["opt"])


def _space(ctx: Context) -> Any:
    from geosched.verify.exhaustive import Space

    return ctx.pick(Space(max_n=3, max_prompt=2, max_output=3, max_memory=7),
                    Space(max_n=3, max_prompt=3, max_output=4, max_memory=10),
                    Space(max_n=4, max_prompt=3, max_output=4, max_memory=12))


def _exhaustive_run(space: Any) -> dict[str, Any]:
    """Every instance of ``space`` in both tie orders: the first violation (with its instance), or the counts and
    the case closest to the bound."""
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.opt.brute import brute_force_opt
    from geosched.reference_impl.simulation import simulate
    from geosched.verify.exhaustive import enumerate_instances

    run: dict[str, Any] = {"runs": 0, "closest": None, "used": Fraction(0), "busy": Fraction(0)}
    for base in enumerate_instances(space):
        opt = brute_force_opt(base)  # re-checked by the checker inside
        if opt.status != "optimal":
            return {**run, "unknown": f"the brute force did not finish on {base}"}
        for inst in (base, Instance(base.memory, tuple(reversed(base.requests)))):
            case = case_of(inst, simulate(inst, "svf").starts, opt.tel)
            problems = upper_problems(case)
            if problems:
                return {**run, "problems": problems, "instance": {
                    "memory": inst.memory, "requests": [(r.prompt, r.output) for r in inst.requests], **case}}
            run["runs"] += 1
            run["busy"] = max(run["busy"], Fraction(6 * case["Q"] + 3 * case["V"] + 2 * case["M"] * case["O"],
                                                    6 * case["M"] * case["opt"]))
            if case["P"] < case["M"] and _used(case) > run["used"]:
                run["used"], run["closest"] = _used(case), case
    return run


def _canary(run: dict[str, Any]) -> Canary:
    """SVF's TEL one above the bound at the closest case, judged by :func:`upper_problems`."""
    case = dict(run["closest"])
    d = case["M"] - case["P"]
    case["tel"] = bound_factor(case["M"], case["P"]) * case["opt"] // (3 * d) + 1
    return plant(CANARY + f" (TEL {case['tel']})", upper_problems, case)


@declares_canary(CANARY)
def _exhaustive(claim: Any, ctx: Context) -> Evidence:
    space = _space(ctx)
    run, elapsed = ctx.cached(f"{LABEL}:{space.label}", lambda: _exhaustive_run(space))
    failure = ctx.failed_run(LABEL, run, elapsed, "svf_upper_counterexample.json")
    if failure is not None:
        return failure
    bound = f"every burst with {space.label} (both tie orders)"
    closest = run["closest"]
    return Evidence(LABEL, "bounded", "checked",
                    f"{run['runs']} SVF runs against the exact optimum: Lemma A.2 summed (pairs form), the "
                    f"mean-busy-time bound and 3(M - P) TEL(SVF) <= (6M + max(0, M - 3P)) OPT all hold; the closest "
                    f"run uses {float(run['used']):.3f} of the bound (M = {closest['M']}, P = {closest['P']}, TEL(SVF) "
                    f"= {closest['tel']}, OPT = {closest['opt']}); the mean-busy-time bound reaches "
                    f"{float(run['busy']):.3f} of OPT at best", bound=bound, used=float(run["used"]),
                    discriminating=False, wall_time=elapsed, implementation=True, canary=_canary(run),
                    data={"runs": run["runs"], "closest": closest, "busy": float(run["busy"])},
                    covers={LABEL: ("checked", bound)})


UPPER_METHODS = {LABEL: _exhaustive}

