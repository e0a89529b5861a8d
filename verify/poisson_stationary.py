"""The Poisson rows on long, stationary workloads: the paper's bounds, ours, and the policies' ranking.

The paper rows' old Monte-Carlo used 10-request workloads from an empty system, which never reach
the stationary regime that Kong et al.'s Thm. 3.4 and 3.5 are about. Here each point is one long
Poisson workload of a :class:`~geosched.verify.poisson_model.ClassWorkload` (the paper's model,
truncated geometric lengths, :data:`~geosched.verify.poisson_model.PAPER_WORKLOADS`) at the paper's
load ``rho_p``, simulated under SVF, 1-bit SVF and FCFS on the same arrivals:

* **window and warm-up** (:func:`warmup_problems`): the first tenth of the arrivals is dropped and the
  rest cut into :data:`BLOCKS` blocks; the mean TEL per request of the late half of the blocks must
  agree with the early half's (``|z| <= 4`` by batch means), else the run is not stationary. Its
  canary: the late half's TEL made 10% larger must be refuted by the same predicate;
* **the workload audited** (:func:`workload_problems`): the simulated requests themselves (not the
  workload's type table) against the statement's parameters (:data:`~geosched.verify.poisson_model.PAPER_MODELS`):
  the paper's load ``rho_p`` measured as ``2 E[work per step]/D``, the mean output against the truncated
  geometric's ``E[min(G, P - s)]`` in closed form, the mean prompt, each within ``Z_LIMIT`` standard errors,
  and every peak ``<= P``; a run of another workload refutes the row (an implementation error). Its canary:
  the measured load and the mean output each made 10% larger;
* **E[OPT] from below**: the capacity relaxation
  (:func:`~geosched.reference_impl.opt.bounds.capacity_bound`) of each block's requests, summed
  (a schedule restricted to a block's requests is feasible for them, so ``TEL(OPT) >= sum of the
  blocks' bounds``); ``E[SVF]/E[OPT] <= sum TEL / sum LB``, and ``>= TEL(SVF)/TEL(best policy)``; both ratios and their
  intervals are re-derived from the stored block sums by a second routine (:func:`estimate_problems`; its
  canary: a reported ratio 10% larger);
* **verdict against a bound** (:func:`bound_problems`): refuted when the lower confidence end of
  ``TEL(SVF)/TEL(best)`` exceeds it, consistent when the upper end of ``TEL/LB`` is below it at every
  point, and vacuous when it could not have failed (the estimate never reaches 90% of the bound's
  excess: the paper's constant is far from anything observed);
* **ranking** (:func:`ranking_problems`): on one workload, the mean waits of SVF, 1-bit SVF and FCFS
  (paired, block by block) against the order of their per-type bounds ``sum_k pi_k b_l(k)``: refuted
  when a difference is significant (``|z| > 4``) against that order, consistent when every adjacent
  difference is significant with it; its canary: two policies' waits swapped.

Example
-------
>>> point = stationary_point(PAPER_WORKLOADS[0], 0.5, 4000, 1)
>>> point["ratio_lb"] >= point["ratio_best"] >= 1, point["cond"]
(True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from geosched.verify.evidence import Canary, Context, Evidence, declares_canary, plant, plant_all
from geosched.verify.poisson_model import (
    PAPER_MODELS,
    PAPER_WORKLOADS,
    ClassWorkload,
    class_bounds,
    paper_terms,
    simulate_classes,
)

__all__ = ["BLOCKS", "Z_LIMIT", "GRID", "stationary_point", "warmup_problems", "bound_problems", "ranking_problems",
           "lower_bound_problems", "late_vs_early_z", "statement_moments", "workload_problems", "estimate_problems",
           "ranking_measure", "STATIONARY_METHODS"]

BLOCKS = 20
Z_LIMIT = 4.0
GRID = (0.5, 0.8, 0.9, 0.95)  # the paper's load rho_p
POLICIES = ("svf", "svf1", "fcfs")


def _block_index(n: int) -> tuple[int, np.ndarray]:
    """The first request of the window (after a tenth) and each window request's block."""
    first = n // 10
    return first, np.repeat(np.arange(BLOCKS), [len(b) for b in np.array_split(np.arange(n - first), BLOCKS)])


def _block_sums(values: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    return np.bincount(blocks, weights=values.astype(float), minlength=BLOCKS)


def _capacity_blocks(run: Any, first: int, blocks: np.ndarray) -> np.ndarray:
    """The capacity bound of each block's requests, as an instance of their own."""
    from geosched.reference_impl.model import Instance
    from geosched.reference_impl.opt.bounds import capacity_bound

    requests = run.instance.requests[first:]
    return np.array([capacity_bound(Instance(run.instance.memory, [r for r, b in zip(requests, blocks) if b == k]))
                     .value for k in range(BLOCKS)], dtype=float)


def _ratio_interval(top: np.ndarray, bottom: np.ndarray) -> tuple[float, float, float]:
    """``sum top / sum bottom`` with a batch-means interval (delta method, ``Z_LIMIT`` standard errors)."""
    ratio = float(top.sum() / bottom.sum())
    resid = top - ratio * bottom
    se = float(resid.std(ddof=1) / math.sqrt(len(top)) / bottom.mean())
    return ratio, ratio - Z_LIMIT * se, ratio + Z_LIMIT * se


def late_vs_early_z(early: np.ndarray, late: np.ndarray) -> float:
    """The z of the late blocks' mean against the early blocks' (batch means; 0 when both are constant)."""
    se = math.hypot(early.std(ddof=1), late.std(ddof=1)) / math.sqrt(len(late))
    return float((late.mean() - early.mean()) / se) if se > 0 else 0.0


def warmup_problems(early: np.ndarray, late: np.ndarray) -> list[str]:
    """The verdict of the warm-up test: the late blocks' mean TEL per request against the early blocks'."""
    z = late_vs_early_z(early, late)
    return [] if abs(z) <= Z_LIMIT else [f"not stationary: late vs early mean TEL per request, z = {z:+.1f}"]


def _measured_workload(run: Any) -> dict[str, Any]:
    """What the simulated requests are, read from the instance itself (never from the workload's type table): the
    work ``sum v`` arriving per step (the last arrival step left out: the n-th arrival may cut it), the outputs',
    the prompts' mean and standard deviation, and the largest peak."""
    requests = run.instance.requests
    arrival = np.array([r.arrival for r in requests])
    s = np.array([r.prompt for r in requests], dtype=float)
    o = np.array([r.output for r in requests], dtype=float)
    steps = int(arrival[-1])
    whole = arrival < steps
    work = np.bincount(arrival[whole], weights=(s * o + (o * o + o) / 2)[whole], minlength=steps)
    return {"steps": steps, "requests": len(requests), "work_mean": float(work.mean()),
            "work_sd": float(work.std(ddof=1)), "o_mean": float(o.mean()), "o_sd": float(o.std(ddof=1)),
            "s_mean": float(s.mean()), "s_sd": float(s.std(ddof=1)), "max_peak": int((s + o).max())}


def statement_moments(name: str) -> dict[str, float]:
    """The statement's numbers for the paper workload ``name``, from its parameters in
    :data:`~geosched.verify.poisson_model.PAPER_MODELS` alone: ``P = floor(alpha M)``, ``D = M - P``, the mean
    prompt, and the mean output ``E[min(G, P - s)] = sum_{k < P - s} q^k = (1 - q^(P - s))/mu`` (``G`` geometric on
    ``{1, 2, ...}``), averaged over the uniform prompts.

    >>> m = statement_moments("W1")
    >>> m["cap"], m["drain"], m["e_s"], round(m["e_o"], 4)
    (20, 20, 1.5, 4.9169)
    """
    _, mu, s_min, s_max, memory, alpha = next(m for m in PAPER_MODELS if m[0] == name)
    cap, q = int(alpha * memory), 1 - mu
    prompts = range(s_min, s_max + 1)
    return {"cap": cap, "drain": memory - cap, "e_s": (s_min + s_max) / 2,
            "e_o": sum((1 - q ** (cap - s)) / mu for s in prompts) / len(prompts)}


def workload_problems(point: dict[str, Any]) -> list[str]:
    """The workload audit of one run: the measured paper load, mean output and mean prompt against the
    statement's (:func:`statement_moments`, the run's ``rho_p``), refuted beyond ``Z_LIMIT`` standard errors (the
    work per step and the requests are i.i.d.), and a peak above ``P``."""
    stated, measured = statement_moments(point["workload"]), point["audit"]
    n, steps, drain = measured["requests"], measured["steps"], stated["drain"]
    tests = (("the paper's load rho_p", 2 * measured["work_mean"] / drain, point["rho_p"],
              2 * measured["work_sd"] / math.sqrt(steps) / drain),
             ("the mean output", measured["o_mean"], stated["e_o"], measured["o_sd"] / math.sqrt(n)),
             ("the mean prompt", measured["s_mean"], stated["e_s"], measured["s_sd"] / math.sqrt(n)))
    where = f"{point['workload']} rho_p={point['rho_p']}"
    problems = []
    for label, got, want, se in tests:
        z = (got - want) / se if se > 0 else 0.0 if got == want else math.inf
        if abs(z) > Z_LIMIT:
            problems.append(f"{where}: the simulated workload is not the statement's: {label} measured {got:.4g}, "
                            f"stated {want:.4g} (z = {z:+.1f})")
    if measured["max_peak"] > stated["cap"]:
        problems.append(f"{where}: a simulated peak {measured['max_peak']} above P = {stated['cap']}")
    return problems


def _rederived_ratio(top: list[float], bottom: list[float]) -> tuple[float, float, float]:
    """A second routine for :func:`_ratio_interval` (pure Python, exact sums): ``sum top / sum bottom`` and its
    delta-method interval from the residuals ``top - ratio bottom``."""
    k = len(top)
    ratio = math.fsum(top) / math.fsum(bottom)
    resid = [t - ratio * b for t, b in zip(top, bottom)]
    centre = math.fsum(resid) / k
    se = math.sqrt(math.fsum((r - centre) ** 2 for r in resid) / (k - 1)) / math.sqrt(k) / (math.fsum(bottom) / k)
    return ratio, ratio - Z_LIMIT * se, ratio + Z_LIMIT * se


def estimate_problems(point: dict[str, Any]) -> list[str]:
    """The reported ratios and the interval ends the verdict reads, against :func:`_rederived_ratio` on the stored
    block sums (relative tolerance ``1e-9``)."""
    blocks, where = point["blocks"], f"{point['workload']} rho_p={point['rho_p']}"
    lb, best = _rederived_ratio(blocks["svf"], blocks["lower"]), _rederived_ratio(blocks["svf"], blocks["best"])
    pairs = (("TEL/LB", point["ratio_lb"], lb[0]), ("TEL/LB's upper end", point["ratio_lb_high"], lb[2]),
             (f"TEL/TEL({point['best']})", point["ratio_best"], best[0]),
             (f"TEL/TEL({point['best']})'s lower end", point["ratio_best_low"], best[1]))
    return [f"{where}: the reported {label} {got:.6f} is not the estimate re-derived from the block sums, "
            f"{want:.6f}" for label, got, want in pairs if abs(got - want) > 1e-9 * abs(want)]


def stationary_point(workload: ClassWorkload, rho_p: float, n: int, seed: int) -> dict[str, Any]:
    """One long run at the paper's load ``rho_p``: per-policy waits and TEL, the bounds, the warm-up test."""
    run = simulate_classes(workload, workload.rate_paper(rho_p), n, seed, POLICIES)
    first, blocks = _block_index(len(run.arrivals))
    outputs = run.outputs[first:]
    tel = {p: _block_sums(run.waits(p)[first:] + outputs, blocks) for p in POLICIES}
    counts = np.bincount(blocks, minlength=BLOCKS).astype(float)
    per_request = tel["svf"] / counts
    lower = _capacity_blocks(run, first, blocks)
    best = min(POLICIES, key=lambda p: tel[p].sum())
    ratio_lb, _, lb_high = _ratio_interval(tel["svf"], lower)
    ratio_best, best_low, _ = _ratio_interval(tel["svf"], tel[best])
    bounds = {p: class_bounds(workload, workload.keys(p), paper_terms(workload, rho_p, 1.0)["rho"]) for p in POLICIES}
    terms = paper_terms(workload, rho_p, bounds["svf"]["phi"])
    e_o = workload.mean("o")
    return {
        "workload": workload.name, "rho_p": rho_p, "rho": terms["rho"], "n": len(run.arrivals), "seed": seed,
        "mean_wait": {p: float(run.waits(p)[first:].mean()) for p in POLICIES},
        "e_tel_over_e_o": float(tel["svf"].sum() / outputs.sum()), "lb_over_e_o": float(lower.sum() / outputs.sum()),
        "ratio_lb": ratio_lb, "ratio_lb_high": lb_high, "ratio_best": ratio_best, "ratio_best_low": best_low,
        "tel_over_lb": {q: float(tel[q].sum() / lower.sum()) for q in POLICIES},
        "best": best, "paper": terms["paper"], "gamma": terms["gamma"], "cond": terms["cond"],
        "ours_before": 1 + bounds["svf"]["square"] / e_o, "ours_after": 1 + bounds["svf"]["chebyshev"] / e_o,
        "per_class": {p: bounds[p]["per_class"] for p in POLICIES}, "phi": {p: bounds[p]["phi"] for p in POLICIES},
        "early": per_request[: BLOCKS // 2].tolist(), "late": per_request[BLOCKS // 2:].tolist(),
        "blocks": {"svf": tel["svf"].tolist(), "best": tel[best].tolist(), "lower": lower.tolist()},
        "audit": _measured_workload(run),
    }


def bound_problems(points: list[dict[str, Any]], bound: str = "paper") -> tuple[list[str], bool]:
    """The verdict against ``point[bound]`` (a bound on E[SVF]/E[OPT]): its problems (a refutation), and whether
    every point is consistent (the upper end of TEL/LB below the bound)."""
    problems = [f"{p['workload']} rho_p={p['rho_p']}: TEL(SVF)/TEL({p['best']}) >= {p['ratio_best_low']:.4f} > "
                f"{bound} {p[bound]:.4f}" for p in points if p["ratio_best_low"] > p[bound]]
    return problems, all(p["ratio_lb_high"] <= p[bound] for p in points)


def _runs(ctx: Context) -> list[dict[str, Any]]:
    """Every grid point's run, shared by the paper rows' methods (cached in the ledger run)."""
    def compute() -> list[dict[str, Any]]:
        workloads = ctx.pick(PAPER_WORKLOADS[:1], PAPER_WORKLOADS, PAPER_WORKLOADS)
        grid = ctx.pick((0.5, 0.95), GRID, GRID)
        n = ctx.pick(20_000, 40_000, 200_000)
        return [stationary_point(w, rho_p, n, ctx.seed + 41 + 7 * i)
                for i, (w, rho_p) in enumerate((w, r) for w in workloads for r in grid)]

    return ctx.cached("poisson:stationary", compute)[0]


def _warmup_canary(points: list[dict[str, Any]]) -> tuple[list[str], Canary]:
    problems = [f"{p['workload']} rho_p={p['rho_p']}: {x}" for p in points
                for x in warmup_problems(np.array(p["early"]), np.array(p["late"]))]
    worst = min(points, key=lambda p: np.mean(p["late"]))
    canary = plant("the late half's TEL per request made 10% larger (a run still drifting)",
                   lambda pt: warmup_problems(np.array(pt["early"]), 1.1 * np.array(pt["late"])), worst)
    return problems, canary


def _table_text(points: list[dict[str, Any]]) -> str:
    return "; ".join(f"{p['workload']} rho_p={p['rho_p']}: E[SVF]/E[LB] {p['ratio_lb']:.3f} (<= "
                     f"{p['ratio_lb_high']:.3f}), ours {p['ours_after']:.2f}, paper {p['paper']:.2f}" for p in points)


def _audit_canary(points: list[dict[str, Any]]) -> tuple[list[str], Canary]:
    """The workload audit and the re-derived estimates of every run, and their canaries at the run where each is
    hardest to see (the largest standard error relative to the value; the largest ratio)."""
    problems = [x for p in points for x in (*workload_problems(p), *estimate_problems(p))]
    noisy_load = max(points, key=lambda p: p["audit"]["work_sd"] / math.sqrt(p["audit"]["steps"]) /
                     p["audit"]["work_mean"])
    noisy_o = max(points, key=lambda p: p["audit"]["o_sd"] / math.sqrt(p["audit"]["requests"]) / p["audit"]["o_mean"])
    top = max(points, key=lambda p: p["ratio_lb"])
    return problems, plant_all([
        plant("the measured load x1.1", workload_problems,
              {**noisy_load, "audit": {**noisy_load["audit"], "work_mean": 1.1 * noisy_load["audit"]["work_mean"]}}),
        plant("the measured mean output x1.1", workload_problems,
              {**noisy_o, "audit": {**noisy_o["audit"], "o_mean": 1.1 * noisy_o["audit"]["o_mean"]}}),
        plant("the reported TEL/LB x1.1", estimate_problems, {**top, "ratio_lb": 1.1 * top["ratio_lb"]})])


@declares_canary("the late half's TEL made 10% larger must fail the warm-up test; the measured load and mean output "
                 "x1.1 must fail the workload audit; a reported ratio x1.1 must fail its re-derivation")
def _paper_stationary(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:paper-stationary``: E[SVF]/E[OPT] on long stationary workloads against Thm. 3.4's bound."""
    started = time.perf_counter()
    points = _runs(ctx)
    warm, warm_canary = _warmup_canary(points)
    audit, audit_canary = _audit_canary(points)
    canary = plant_all([warm_canary, audit_canary])
    problems, consistent = bound_problems(points)
    problems = audit + problems
    used = max((p["ratio_lb"] - 1) / (p["paper"] - 1) for p in points)
    data = {"points": points, "used": used}
    samples = sum(p["n"] for p in points)
    if problems or warm:
        status = "refuted" if problems else "unknown"
        return Evidence("monte-carlo:paper-stationary", "statistical", status, "; ".join(problems or warm),
                        samples=samples, wall_time=time.perf_counter() - started, data=data, canary=canary,
                        implementation=bool(audit))
    text = (f"{len(points)} stationary runs (warm-up test passed, {samples} arrivals; the simulated load, mean output "
            f"and prompt within {Z_LIMIT:g} standard errors of the statement's, peaks <= P; the ratios re-derived from "
            f"the block sums), E[SVF]/E[OPT] <= TEL/capacity bound: {_table_text(points)}; COND holds at "
            f"{sum(p['cond'] for p in points)} of {len(points)}")
    discriminating = used >= 0.9
    status = "consistent" if consistent and discriminating else "vacuous" if consistent else "unknown"
    if status == "vacuous":
        text += f"; vacuous: the estimate uses at most {used:.2g} of the paper's excess, it could not have failed"
    return Evidence("monte-carlo:paper-stationary", "statistical", status, text, samples=samples,
                    wall_time=time.perf_counter() - started, used=used, discriminating=discriminating, data=data,
                    canary=canary)


def lower_bound_problems(ratios: dict[str, float]) -> list[str]:
    """The one thing the report-only checks judge: TEL over the capacity lower bound on OPT is at least 1 (``LB <=
    OPT <= TEL``); below 1, the bound or the simulated schedule is wrong."""
    return [f"{label}: TEL/LB = {value:.4f} < 1 (a lower bound above a schedule's TEL)"
            for label, value in ratios.items() if value < 1 - 1e-12]


def _report(method: str, text: str, ratios: dict[str, float], samples: int, started: float,
            data: dict[str, Any]) -> Evidence:
    """An ``unknown`` report (the statement decides nothing), refuted only if its own data are impossible."""
    low = min(ratios, key=ratios.get)
    canary = plant(f"TEL/LB at {low} planted at 0.99", lower_bound_problems, {**ratios, low: 0.99})
    problems = lower_bound_problems(ratios)
    return Evidence(method, "statistical", "refuted" if problems else "unknown",
                    "; ".join(problems) if problems else text, samples=samples,
                    wall_time=time.perf_counter() - started, data=data, canary=canary, implementation=bool(problems))


@declares_canary("a TEL/LB ratio planted below 1 must be refuted (the report itself judges nothing)")
def _paper_stationary_svf1(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:paper-stationary-svf1``: 1-bit SVF on the same runs, reported against B and B(1 + eps)."""
    from geosched.verify.montecarlo import distortion_penalty

    started = time.perf_counter()
    points = _runs(ctx)
    rows = []
    for p in points:
        workload = next(w for w in PAPER_WORKLOADS if w.name == p["workload"])
        theta = int(workload.one_bit.split("theta=")[1].split(",")[0])
        eps = distortion_penalty(workload.mu, theta)
        rows.append({"workload": p["workload"], "rho_p": p["rho_p"], "mean_wait_svf1": p["mean_wait"]["svf1"],
                     "paper": p["paper"], "paper_with_eps": p["paper"] * (1 + eps), "eps": eps})
    worst = max(rows, key=lambda r: r["mean_wait_svf1"])
    text = (f"not judged: Thm. 3.5 does not say how eps enters its bound; 1-bit SVF on {len(rows)} stationary runs "
            f"waits at most {worst['mean_wait_svf1']:.3f} steps per request ({worst['workload']}, rho_p = "
            f"{worst['rho_p']}), against bounds B >= {min(r['paper'] for r in rows):.1f} (eps = "
            + ", ".join(sorted({f"{r['eps']:.2g}" for r in rows})) + ")")
    ratios = {f"{p['workload']} rho_p={p['rho_p']}": p["tel_over_lb"]["svf1"] for p in points}
    return _report("monte-carlo:paper-stationary-svf1", text, ratios, sum(p["n"] for p in points), started,
                   {"points": rows})


@declares_canary("a TEL/LB ratio planted below 1 must be refuted (the report itself judges nothing)")
def _paper_ecr(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:paper-ecr``: E[TEL(SVF)/LB] of n-request workloads from empty, for several n."""
    from geosched.reference_impl.opt.bounds import capacity_bound

    started = time.perf_counter()
    workload, rho_p = PAPER_WORKLOADS[0], 0.9
    rows = []
    for n, reps in ((10, ctx.pick(20, 60, 200)), (100, ctx.pick(10, 30, 100)), (1000, ctx.pick(4, 10, 40))):
        ratios = []
        for k in range(reps):
            run = simulate_classes(workload, workload.rate_paper(rho_p), n, ctx.seed + 97 + 1000 * n + k, ("svf",))
            tel = float((run.waits("svf") + run.outputs).sum())
            ratios.append(tel / capacity_bound(run.instance).value)
        rows.append({"n": n, "workloads": reps, "mean_tel_over_lb": float(np.mean(ratios)),
                     "min_tel_over_lb": float(np.min(ratios))})
    text = ("not judged: E[CR] = E[TEL(SVF)/TEL(OPT)] is not defined until n and the starting state are fixed; from "
            "empty it depends on n (" + ", ".join(f"n={r['n']}: E[TEL/LB] {r['mean_tel_over_lb']:.4f}" for r in rows)
            + f"; W1, rho_p = {rho_p}; TEL/LB >= CR)")
    return _report("monte-carlo:paper-ecr", text, {f"n={r['n']}": r["min_tel_over_lb"] for r in rows},
                   sum(r["workloads"] for r in rows), started, {"rows": rows})


def ranking_measure(workload: ClassWorkload, rho: float, n: int, seed: int) -> dict[str, Any]:
    """SVF, 1-bit SVF and FCFS on one workload at ``svf.poisson``'s load ``rho``: per-block mean waits (paired on
    the same arrivals) and the per-type bounds' order."""
    run = simulate_classes(workload, workload.rate(rho), n, seed, POLICIES)
    first, blocks = _block_index(len(run.arrivals))
    counts = np.bincount(blocks, minlength=BLOCKS)
    waits = {p: (_block_sums(run.waits(p)[first:], blocks) / counts).tolist() for p in POLICIES}
    bounds = {p: class_bounds(workload, workload.keys(p), rho)["per_class"] for p in POLICIES}
    return {"workload": workload.name, "rho": rho, "n": len(run.arrivals), "waits": waits, "bounds": bounds,
            "order": sorted(POLICIES, key=lambda p: bounds[p])}


def ranking_problems(measured: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The ranking's verdict: differences significant against the bounds' order (problems), and the adjacent
    pairs whose difference is not significant either way (undecided)."""
    order, waits = measured["order"], measured["waits"]
    problems, undecided = [], []
    for better, worse in zip(order, order[1:]):
        diff = np.array(waits[worse]) - np.array(waits[better])
        z = float(diff.mean() / (diff.std(ddof=1) / math.sqrt(len(diff)))) if diff.std() > 0 else 0.0
        if z < -Z_LIMIT:
            problems.append(f"{worse} waits less than {better} (z = {z:+.1f}) against the bounds' order")
        elif z <= Z_LIMIT:
            undecided.append(f"{better} < {worse} not significant (z = {z:+.1f})")
    return problems, undecided


@declares_canary("the 1-bit SVF and FCFS waits swapped must be refuted")
def _ranking(claim: Any, ctx: Context) -> Evidence:
    """``monte-carlo:poisson-ranking``: the policies' simulated order against their per-type bounds' order."""
    started = time.perf_counter()
    measured, _ = ctx.cached("poisson:ranking", lambda: ranking_measure(
        PAPER_WORKLOADS[0], 0.9, ctx.pick(100_000, 200_000, 800_000), ctx.seed + 59))
    problems, undecided = ranking_problems(measured)
    swapped = {**measured, "waits": {**measured["waits"], "svf1": measured["waits"]["fcfs"],
                                     "fcfs": measured["waits"]["svf1"]}}
    canary = plant("1-bit SVF's and FCFS's waits swapped", lambda m: ranking_problems(m)[0], swapped)
    means = {p: float(np.mean(w)) for p, w in measured["waits"].items()}
    text = (f"{measured['workload']}, rho = {measured['rho']}, {measured['n']} arrivals: bounds sum pi b "
            + ", ".join(f"{p} {measured['bounds'][p]:.2f}" for p in measured["order"]) + "; simulated mean waits "
            + ", ".join(f"{p} {means[p]:.4f}" for p in measured["order"]))
    status = "refuted" if problems else "unknown" if undecided else "consistent"
    text = "; ".join([*problems, *undecided, text])
    return Evidence("monte-carlo:poisson-ranking", "statistical", status, text, samples=measured["n"],
                    wall_time=time.perf_counter() - started, data=measured, canary=canary,
                    discriminating=not undecided)


STATIONARY_METHODS = {
    "monte-carlo:paper-stationary": _paper_stationary,
    "monte-carlo:paper-stationary-svf1": _paper_stationary_svf1,
    "monte-carlo:paper-ecr": _paper_ecr,
    "monte-carlo:poisson-ranking": _ranking,
}
