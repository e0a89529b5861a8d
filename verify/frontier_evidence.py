"""Ledger methods for SVF's upper side (issue 32, item 3): the Coq statements of ``verify/coq/LemmaA2Head.v``
and ``verify/coq/SvfSharp.v`` checked on instances, for the rows of :mod:`geosched.theory.svf_sharp_bound`,
:mod:`geosched.theory.svf_head_lemma`, :mod:`geosched.theory.svf_prompt_heavy` and
:mod:`geosched.theory.svf_heavy_limit`.

``exhaustive:svf-sharp`` runs the reference simulator's SVF on every small burst (each in its enumerated
order and reversed, so that ties go both ways) and checks, against the exact optimum of the brute force
(re-checked by the checker):

* the sharper bound ``(M - P) TEL(SVF) <= 2M OPT + (M - P) sum(o)``, P the largest peak (``svf_sharp_bound``);
* at every step ``t`` at which a request waits, with ``h`` the head (the first request in SVF's order
  not started by ``t``): the peaks of the requests running over ``t`` sum to more than ``M - p_h``
  (``lemmaA2_blocked_head``);
* the charges ``M - p_h(t)``, summed over the steps each request waits, are at most the sum over the
  pairs ``(j started before k)`` of ``p_j o_j`` (``svf_head_charge_po``), at most ``2 sum_k P_k``
  (``svf_head_charge_pairmin``) and at most ``2M OPT`` (``svf_head_charge_competitive``);
* ``(M - Pw) TEL(SVF) <= 2M OPT + (M - Pw) sum(o)``, Pw the largest peak among the requests started
  after step 0 (``svf_waiting_peak_bound``);
* on the instances with ``a o_i <= b s_i`` for all i: ``(2a + b)(M - P) TEL(SVF) <= 2(a + b) M OPT +
  (2a + b)(M - P) sum(o)`` for ``(a, b)`` in :data:`CLASSES` (``svf_prompt_heavy_bound``).

``simulation:svf-frontier`` simulates the svf-triangles ``n x (0, p)``, ``p = 2q - 1``, ``M = qp``
(``verify/coq/SvfTriangles.v``): the starts ``p (k div q)``, the staggered schedule accepted by the
checker, ``p TEL(S) <= q TEL(SVF) + p^2 n``, both closed forms; and the witness of
``svf_sharp_bound_tight`` (``q = 4b``, ``n = 160 b^2``, ``a = 2b - 1``): the strict violation of
``b (M - P) TEL(SVF) <= a M TEL(S) + b (M - P) sum(o)``.

Example
-------
>>> from geosched.verify.evidence import Context
>>> FRONTIER_METHODS["simulation:svf-frontier"](None, Context("quick", None, 0, ())).status
'checked'
"""

from __future__ import annotations

import time
from typing import Any

from geosched.verify.evidence import Canary, Context, Coverage, Evidence, declares_canary, plant, plant_all

__all__ = ["FRONTIER_METHODS", "CLASSES", "instance_facts", "sharp_checks", "head_charges", "triangle_rows",
           "tight_witness"]

CLASSES = ((0, 1), (1, 2), (1, 1), (2, 1))  # (a, b): the prompt-heavy classes a o <= b s checked


def instance_facts(instance: Any, starts: dict[str, int]) -> dict[str, Any]:
    """Peaks, outputs, volumes, starts and SVF's order (volume, arrival, position) of a burst, as lists."""
    reqs = instance.requests
    order = sorted(range(len(reqs)), key=lambda j: (reqs[j].volume, reqs[j].arrival, j))
    return {"M": instance.memory, "peak": [r.peak for r in reqs], "out": [r.output for r in reqs],
            "prompt": [r.prompt for r in reqs], "vol": [r.volume for r in reqs],
            "x": [starts[r.id] for r in reqs], "order": order}


def head_charges(f: dict[str, Any]) -> tuple[list[str], list[int]]:
    """Lemma A.2 with the head at every blocked step: the violations found, and the charge ``M - p_head(t)``
    of every step ``t < max start`` (0 where nobody waits)."""
    x, peak, out, big_m = f["x"], f["peak"], f["out"], f["M"]
    problems, charges = [], []
    for t in range(max(x, default=0)):
        head = next((j for j in f["order"] if x[j] > t), None)
        if head is None:
            charges.append(0)
            continue
        active = sum(peak[j] for j in range(len(x)) if x[j] <= t < x[j] + out[j])
        if not active + peak[head] > big_m:
            problems.append(f"step {t}: active peaks {active} + head peak {peak[head]} <= M = {big_m}")
        charges.append(max(0, big_m - peak[head]))
    return problems, charges


def _pairmin(vol: list[int]) -> int:
    ordered = sorted(vol)
    return sum(v * (len(ordered) - k) for k, v in enumerate(ordered))  # sum_k P_k


def sharp_checks(f: dict[str, Any], opt: int, tel: int) -> tuple[list[str], dict[str, Any]]:
    """Every statement of the module docstring on one instance: the violations, and the slacks measured."""
    x, peak, out, big_m = f["x"], f["peak"], f["out"], f["M"]
    n, total_o, top = len(x), sum(f["out"]), max(f["peak"])
    problems, charges = head_charges(f)
    wait_charge = sum(sum(charges[:x[k]]) for k in range(n))
    pairs = sum(peak[j] * out[j] for k in range(n) for j in range(n) if x[j] < x[k])
    pm = _pairmin(f["vol"])
    waiting = max((peak[j] for j in range(n) if x[j] > 0), default=0)
    d, dw = max(0, big_m - top), max(0, big_m - waiting)
    checks = {"sharp": d * tel <= 2 * big_m * opt + d * total_o, "charge_po": wait_charge <= pairs,
              "charge_pairmin": wait_charge <= 2 * pm, "charge_opt": wait_charge <= 2 * big_m * opt,
              "waiting_peak": dw * tel <= 2 * big_m * opt + dw * total_o}
    for a, b in CLASSES:
        if all(a * o <= b * s for o, s in zip(out, f["prompt"])):
            lhs = (2 * a + b) * d * tel
            checks[f"class_{a}_{b}"] = lhs <= 2 * (a + b) * big_m * opt + (2 * a + b) * d * total_o
    problems += [name for name, ok in checks.items() if not ok]
    used = (d * (tel - total_o)) / (2 * big_m * opt) if opt else 0.0
    # every step before the last start has a waiting request (a charge of 0 when the head's peak is M)
    return problems, {"used": used, "blocked_steps": max(x, default=0), "waiting_peak_below": waiting < top,
                      "classes": [k for k in checks if k.startswith("class_")]}


def _space(ctx: Context) -> Any:
    from geosched.verify.exhaustive import Space

    return ctx.pick(Space(max_n=3, max_prompt=2, max_output=3, max_memory=7),
                    Space(max_n=3, max_prompt=3, max_output=4, max_memory=10),
                    Space(max_n=4, max_prompt=3, max_output=4, max_memory=12))


def _exhaustive_run(space: Any) -> dict[str, Any]:
    """Every instance of ``space`` in both tie orders: the first violation (with its instance), or the counts."""
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.opt.brute import brute_force_opt
    from geosched.reference_impl.simulation import simulate
    from geosched.verify.exhaustive import enumerate_instances

    run: dict[str, Any] = {"runs": 0, "blocked": 0, "stronger": 0, "worst": 0.0, "classes": set()}
    for base in enumerate_instances(space):
        opt = brute_force_opt(base)  # re-checked by the checker inside
        if opt.status != "optimal":
            return {**run, "unknown": f"the brute force did not finish on {base}"}
        for inst in (base, Instance(base.memory, tuple(reversed(base.requests)))):
            starts = simulate(inst, "svf").starts
            tel = sum(starts[r.id] + r.output for r in inst.requests)  # a burst: TEL = sum of x + o
            problems, info = sharp_checks(instance_facts(inst, starts), opt.tel, tel)
            if problems:
                return {**run, "problems": problems, "instance": {
                    "memory": inst.memory, "requests": [(r.prompt, r.output) for r in inst.requests],
                    "svf_starts": [starts[r.id] for r in inst.requests], "opt": opt.tel}}
            run["runs"] += 1
            run["blocked"] += info["blocked_steps"] > 0
            run["stronger"] += info["blocked_steps"] > 0 and info["waiting_peak_below"]
            if info["used"] > run["worst"] or "worst_case" not in run:
                run["worst_case"] = {"facts": instance_facts(inst, starts), "opt": opt.tel, "tel": tel}
            run["worst"] = max(run["worst"], info["used"])
            run["classes"] |= set(info["classes"])
    return run


@declares_canary("TEL(SVF) one step above the sharper bound; a waiting step with nothing running")
def _exhaustive(claim: Any, ctx: Context) -> Evidence:
    label, space = "exhaustive:svf-sharp", _space(ctx)
    run, elapsed = ctx.cached(f"{label}:{space.label}", lambda: _exhaustive_run(space))  # one run for every row
    failure = ctx.failed_run(label, run, elapsed, "svf_sharp_counterexample.json")
    if failure is not None:
        return failure
    bound = f"every burst with {space.label} (both tie orders)"
    return Evidence(label, "bounded", "checked",
                    f"{run['runs']} SVF runs against the exact optimum, {run['blocked']} with blocked steps: the "
                    f"sharper bound, the head-dependent Lemma A.2 at every blocked step, its three summed forms, the "
                    f"waiting-peak bound (smaller than the largest peak in {run['stronger']} runs with blocked steps) "
                    f"and the classes {sorted(run['classes'])} all hold; largest (M - P)(TEL(SVF) - sum o)/(2M OPT) = "
                    f"{run['worst']:.3f}", bound=bound, used=run["worst"], discriminating=run["worst"] > 1 / 1.1,
                    wall_time=elapsed, implementation=True, data={"runs": run["runs"], "blocked": run["blocked"]},
                    covers={label: ("checked", bound)}, canary=sharp_canary(run["worst_case"]),
                    coverage=Coverage({"runs": run["runs"], "runs with blocked steps": run["blocked"]},
                                      SHARP_RUNS[ctx.mode]))


# the runs each mode makes (every burst of its space in both tie orders) and those with a blocked step, pinned
SHARP_RUNS = {"quick": {"runs": 1852, "runs with blocked steps": 1126},
              "default": {"runs": 11272, "runs with blocked steps": 6844},
              "thorough": {"runs": 73130, "runs with blocked steps": 53422}}


def sharp_canary(case: dict[str, Any]) -> Canary:
    """On the run that used the most of the sharper bound, judged by :func:`sharp_checks`: TEL(SVF) planted one
    step above the sharper bound, and the last start planted after every other request finished (a step with
    nothing running while a request waits)."""
    f, opt, tel = case["facts"], case["opt"], case["tel"]
    d, total = max(0, f["M"] - max(f["peak"])), sum(f["out"])
    over = (2 * f["M"] * opt + d * total) // d + 1 if d else tel
    last = max(range(len(f["x"])), key=lambda j: (f["x"][j], j))
    idle = {**f, "x": [max(x + o for x, o in zip(f["x"], f["out"])) + 1 if j == last else x
                       for j, x in enumerate(f["x"])]}
    return plant_all([plant("TEL(SVF) one step above the sharper bound", lambda t: sharp_checks(f, opt, t)[0], over),
                      plant("the last start after every other finish (a waiting step with nothing running)",
                            lambda g: head_charges(g)[0], idle)])


def triangle_rows(q: int, sizes: tuple[int, ...]) -> tuple[list[str], list[dict[str, Any]]]:
    """svf-triangles ``n x (0, 2q - 1)``, ``M = q(2q - 1)``: SVF simulated, S (one start per step) checked;
    each member judged by :func:`triangle_problems`; the violations and one row per n."""
    problems, rows = [], []
    for n in sizes:
        facts = triangle_facts(q, n)
        problems += triangle_problems(facts)
        rows.append({"q": q, "n": n, "svf": facts["svf"], "staggered": facts["staggered"]})
    return problems, rows


def triangle_facts(q: int, n: int) -> dict[str, Any]:
    """SVF's starts and TEL (checked) and the staggered schedule's TEL (-1 when infeasible) on ``n x (0, p)``."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    inst = Instance(q * (2 * q - 1), [Request(f"r{k:05d}", 0, 0, 2 * q - 1) for k in range(n)])
    starts = simulate(inst, "svf").starts
    svf = check_schedule(inst, starts)
    stagger = check_schedule(inst, {f"r{k:05d}": k for k in range(n)})
    return {"q": q, "n": n, "starts": [starts[f"r{k:05d}"] for k in range(n)], "svf_feasible": svf.feasible,
            "svf": svf.metrics.tel, "staggered": stagger.metrics.tel if stagger.feasible else -1}


def triangle_problems(f: dict[str, Any]) -> list[str]:
    """The Coq facts of SvfTriangles.v on one member: SVF's starts ``p (k div q)``, S feasible with its closed
    form, ``p TEL(S) <= q TEL(SVF) + p^2 n``, SVF's closed form (when ``q`` divides ``n``)."""
    q, n, tv, ts = f["q"], f["n"], f["svf"], f["staggered"]
    p, problems = 2 * q - 1, []
    if not f["svf_feasible"] or f["starts"] != [p * (k // q) for k in range(n)]:
        problems.append(f"q={q}, n={n}: SVF infeasible, or its starts differ from p (k div q)")
    if ts < 0 or 2 * ts != n * (n - 1) + 2 * p * n:
        problems.append(f"q={q}, n={n}: the staggered schedule is infeasible or its TEL is not the closed form")
    if not p * ts <= q * tv + p * p * n:
        problems.append(f"q={q}, n={n}: p TEL(S) > q TEL(SVF) + p^2 n")
    if n % q == 0 and 2 * tv != p * q * (n // q) * (n // q + 1):
        problems.append(f"q={q}, n={n}: TEL(SVF) is not the closed form")
    return problems


def triangle_canary(q: int, n: int) -> Canary:
    """On the member ``(q, n)``, judged by :func:`triangle_problems`: SVF's last start one step earlier, the
    staggered TEL + 1, and SVF's TEL + 1."""
    f = triangle_facts(q, n)
    return plant_all([
        plant("SVF's last start - 1", triangle_problems, {**f, "starts": f["starts"][:-1] + [f["starts"][-1] - 1]}),
        plant("the staggered TEL + 1", triangle_problems, {**f, "staggered": f["staggered"] + 1}),
        plant("TEL(SVF) + 1", triangle_problems, {**f, "svf": f["svf"] + 1})])


def tight_witness(b: int) -> dict[str, Any]:
    """The witness of ``svf_sharp_bound_tight`` at ``a = 2b - 1``: q = 4b, p = 2q - 1, n = 160 b^2 requests
    (0, p), M = qp; SVF simulated, S (one start per step) checked; whether the violation is strict."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate

    a, q = 2 * b - 1, 4 * b
    p, n = 2 * q - 1, 160 * b * b
    inst = Instance(q * p, [Request(f"r{k:05d}", 0, 0, p) for k in range(n)])
    tv = check_schedule(inst, simulate(inst, "svf").starts).metrics.tel
    stagger = check_schedule(inst, {f"r{k:05d}": k for k in range(n)})
    d, big_m = q * p - p, q * p
    lhs, rhs = b * d * tv, a * big_m * stagger.metrics.tel + b * d * p * n
    return {"a": a, "b": b, "q": q, "n": n, "memory": big_m, "tel_svf": tv, "tel_s": stagger.metrics.tel,
            "feasible": stagger.feasible, "violated": stagger.feasible and lhs > rhs, "lhs": lhs, "rhs": rhs}


@declares_canary("SVF's last start - 1, the staggered TEL + 1, TEL(SVF) + 1 (one member)")
def _triangles(claim: Any, ctx: Context) -> Evidence:
    label, t0 = "simulation:svf-frontier", time.perf_counter()
    top_q, top_b = ctx.pick((4, 1), (6, 2), (10, 3))
    problems, rows = [], []
    for q in range(1, top_q + 1):
        found, more = triangle_rows(q, (1, q, 2 * q + 1, 6 * q, 40))
        problems, rows = problems + found, rows + more
    witnesses = [tight_witness(b) for b in range(1, top_b + 1)]
    problems += [f"b={w['b']}: no strict violation ({w['lhs']} <= {w['rhs']})" for w in witnesses if not w["violated"]]
    if problems:
        return Evidence(label, "bounded", "refuted", "; ".join(problems[:3]), implementation=True,
                        wall_time=time.perf_counter() - t0,
                        counterexample=ctx.write("svf_frontier_triangles.json", {"problems": problems, "rows": rows}))
    bound = f"svf-triangles q <= {top_q}, n <= 40; the tightness witness at b <= {top_b}"
    return Evidence(label, "bounded", "checked",
                    f"svf-triangles: starts p (k div q), S feasible, p TEL(S) <= q TEL(SVF) + p^2 n and both closed "
                    f"forms at {len(rows)} members; c = 2 - 1/b fails the sharper bound at b = 1..{top_b} "
                    f"(TEL(SVF)/TEL(S) = " + ", ".join(f"{w['tel_svf'] / w['tel_s']:.3f}" for w in witnesses) + ")",
                    bound=bound, wall_time=time.perf_counter() - t0, implementation=True, discriminating=True,
                    data={"rows": rows, "witnesses": witnesses}, covers={label: ("checked", bound)},
                    canary=triangle_canary(2, 4), coverage=Coverage({"members": len(rows), "witnesses": len(witnesses)},
                                                                    TRIANGLE_MEMBERS[ctx.mode]))


# the svf-triangles members (5 per q) and tightness witnesses each mode checks, pinned
TRIANGLE_MEMBERS = {"quick": {"members": 20, "witnesses": 1}, "default": {"members": 30, "witnesses": 2},
                    "thorough": {"members": 50, "witnesses": 3}}


FRONTIER_METHODS = {"exhaustive:svf-sharp": _exhaustive, "simulation:svf-frontier": _triangles}
