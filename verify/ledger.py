"""The claims ledger: every claim of the papers, with a status that comes from running its checks.

One row per claim id (:data:`CLAIMS`). Each claim lists its *methods*; running a method gives
an :class:`Evidence` with one of these outcomes:

* ``proved``: a mechanical proof for all values (a sympy derivation every step of which is
  checked, or a Z3 lemma proved, non-vacuous and tight over symbolic values);
* ``checked``: a bounded check found no counterexample (an exhaustive enumeration, a Z3 proof
  for a bounded number of requests, a bounded policy equivalence); it carries its ``bound``;
* ``consistent``: a statistical check agreed (Monte-Carlo); it carries its sample count;
* ``refuted``: a check found a counterexample (written to a file);
* ``unknown``: the check could not decide (partial derivation, timeout, inconclusive
  statistics, a check that raised, a module that is missing).

The claim's status combines them by a fixed rule (documented in ``docs/claims.md``):

1. any ``refuted`` evidence -> ``refuted`` (with the counterexample file);
2. else, ``proved`` if the claim has at least one proof method, *every* proof method of the
   claim returned ``proved`` (each derivation step sympy-checked, each Z3 lemma proved), and
   every claim its derivation relies on (``depends_on``) is itself ``proved`` in this run;
3. else, ``checked up to <bound>`` if some bounded check passed (all bounds are listed);
4. else, ``consistent in <N> samples`` if some statistical check agreed;
5. else ``unknown``.

Bounded or statistical evidence never gives ``proved``; a ``proved`` derivation whose
dependencies are only checked gives ``checked up to`` with the note "proved relative to ...".

Example
-------
>>> result = run_claims(["kong.volume"])
>>> result.claims[0].status
'proved'
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import z3

from geosched.errors import UnknownNameError
from geosched.results import Result
from geosched.theory import get_derivation
from geosched.verify.empirical import EMPIRICAL_METHODS, combine_empirical
from geosched.verify.lemmas import largest_k, run_lemma
from geosched.verify.policy_spec import check_policy_equivalence

__all__ = ["Claim", "Evidence", "ClaimResult", "LedgerResult", "CLAIMS", "CLAIM_IDS", "run_claims",
           "run_claim", "combine", "versions"]

EVIDENCE_STATUSES = ("proved", "checked", "consistent", "refuted", "unknown", "reproduced", "partly",
                     "not_reproduced")


@dataclass(frozen=True)
class Claim:
    """One claim of the papers and the methods that check it."""

    id: str  # ledger key, e.g. "kong.thm3.2"
    source: str  # paper and numbering
    statement: str  # short statement (one line)
    methods: tuple[str, ...]  # method names (keys of _METHODS), run in order


@dataclass(frozen=True)
class Evidence(Result):
    """The outcome of one method on one claim."""

    STATUSES = EVIDENCE_STATUSES
    SUCCESS = ("proved", "checked", "consistent", "reproduced")

    method: str  # e.g. "derivation", "z3:peak_volume", "exhaustive", "monte-carlo"
    kind: str  # "proof", "bounded", "statistical", "supporting"
    status: str  # one of EVIDENCE_STATUSES
    message: str  # one line: what was found
    bound: str | None = None  # bounded checks: the bound reached
    samples: int | None = None  # statistical checks: the number of samples
    counterexample: str | None = None  # refuted: the file with the counterexample
    depends_on: tuple[str, ...] = ()  # derivations: claims the proof relies on
    wall_time: float = 0.0  # seconds
    data: dict[str, Any] = field(default_factory=dict)  # JSON-ready extras


@dataclass(frozen=True)
class ClaimResult(Result):
    """A claim's combined status and the evidence behind it."""

    STATUSES = EVIDENCE_STATUSES
    SUCCESS = ("proved", "checked", "consistent", "reproduced")

    id: str  # claim id
    source: str  # paper and numbering
    statement: str  # short statement
    status: str  # "proved", "checked", "consistent", "refuted" or "unknown"
    message: str  # the ledger's wording: "checked up to <bound>", "consistent in <N> samples", ...
    methods: tuple[str, ...]  # methods run
    evidence: tuple[Evidence, ...]  # one per method
    counterexample: str | None  # file, when refuted
    note: str  # e.g. "proved relative to kong.lemmaA.2"
    wall_time: float  # seconds for this claim's methods (shared runs are charged to the first claim)


@dataclass(frozen=True)
class LedgerResult(Result):
    """The whole ledger: ``status`` is ``"refuted"`` when some claim is refuted, else ``"ok"``."""

    STATUSES = ("ok", "refuted")
    SUCCESS = ("ok",)

    status: str
    message: str  # "10 claims: 1 proved, 7 checked, 2 consistent"
    wall_time: float  # seconds
    claims: tuple[ClaimResult, ...]  # in CLAIMS order
    thorough: bool  # long versions run
    seed: int  # base seed of every random part
    out: str | None  # folder of counterexample files
    versions: dict[str, str]  # geosched, python, z3, sympy, numpy
    variants: dict[str, Any] = field(default_factory=dict)  # exhaustive findings outside the theorems

    def table(self) -> str:
        """The plain-text table ``geosched claims`` prints."""
        headers = ("id", "statement", "methods", "status", "time")
        rows = [(c.id, c.statement, ", ".join(c.methods), c.message, f"{c.wall_time:.1f}s") for c in self.claims]
        widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h) for k, h in enumerate(headers)]
        widths[1] = min(widths[1], 46)
        widths[2] = min(widths[2], 44)

        def fit(text: str, width: int) -> str:
            return text if len(text) <= width else text[: width - 1] + "~"

        lines = ["  ".join(fit(h, w).ljust(w) for h, w in zip(headers, widths)).rstrip(),
                 "  ".join("-" * w for w in widths)]
        for row in rows:
            cells = [fit(row[k], widths[k]) if k in (1, 2) else row[k] for k in range(5)]
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(cells, widths)).rstrip())
        return "\n".join(lines)


CLAIMS: dict[str, Claim] = {
    c.id: c
    for c in (
        Claim("kong.volume", "Kong et al. Eq. (1)", "v = sum_{j<=o} (s+j) = s*o + (o^2+o)/2",
              ("derivation", "enumeration:volume")),
        Claim("kong.prop3.1", "Kong et al. Prop. 3.1", "M*TEL(OPT) >= sum_k (k smallest volumes)",
              ("derivation", "exhaustive:prop3.1")),
        Claim("kong.lemmaA.2", "Kong et al. Lemma A.2", "blocked => active peaks > (1-alpha)M, precede j",
              ("derivation", "z3:peak_volume", "z3:lemmaA2_invariant_k", "z3:lemmaA2_order_invariant",
               "policy-spec:svf", "exhaustive:certificate")),
        Claim("kong.thm3.2", "Kong et al. Thm. 3.2", "TEL(SVF) <= (1 + 2/(1-alpha)) TEL(OPT), burst",
              ("derivation", "z3:thm3_2_composition", "z3:thm3_2_composition_integer", "exhaustive:thm3.2")),
        Claim("kong.thm3.3", "Kong et al. Thm. 3.3", "1-bit SVF is O(T)-competitive",
              ("derivation", "exhaustive:thm3.3")),
        Claim("kong.thm3.4", "Kong et al. Thm. 3.4", "Poisson: E[SVF]/E[OPT] <= 1+2/((1-a)(1-mu)(1-rho))",
              ("derivation", "monte-carlo:svf")),
        Claim("kong.thm3.5", "Kong et al. Thm. 3.5", "1-bit SVF, Poisson: proxies O_0, O_1, penalty eps",
              ("derivation", "monte-carlo:svf1")),
        Claim("kong.sjf_unbounded", "Kong et al. (SJF)", "SJF's competitive ratio is unbounded",
              ("derivation", "simulation:family")),
        Claim("jaillet.thm4.1", "Jaillet et al. Thm. 4.1", "no deterministic online alg. is O(1) (Omega(sqrt n))",
              ("derivation", "simulation:construction")),
        Claim("jaillet.thm4.3", "Jaillet et al. Thm. 4.3", "MC-SF O(1), burst, equal prompts, M >= 2 max p",
              ("derivation", "policy-spec:sjf", "exhaustive:jaillet")),
        # empirical claims (verify/empirical.py): the Azure trace, learned predictors
        Claim("kong.emp.svf_latency", "Kong et al. experiments", "SVF has the lowest mean and P95 latency",
              ("trace:svf_latency",)),
        Claim("kong.emp.onebit", "Kong et al. experiments", "1-bit SVF competitive with SJF, better tail",
              ("trace:onebit_vs_sjf",)),
        Claim("kong.emp.overhead", "Kong et al. experiments", "predictor overhead <= 0.06% (1-bit: 0.01%)",
              ("trace:predictor_overhead",)),
    )
}
CLAIM_IDS: tuple[str, ...] = tuple(CLAIMS)

# The exhaustive variants each claim needs (one shared run per ledger invocation).
_EXHAUSTIVE_VARIANTS = {
    "kong.prop3.1": ("svf",),
    "kong.lemmaA.2": ("svf",),
    "kong.thm3.2": ("svf",),
    "kong.thm3.3": ("svf1_sqrtT_equal",),
    "jaillet.thm4.3": ("sjf_jaillet",),
}
# With every claim requested, the variants outside the theorems run too and are reported.
_REPORTED_VARIANTS = ("svf", "svf_backfill", "svf1", "sjf", "sjf_jaillet", "svf1_sqrtT", "svf1_sqrtT_equal",
                      "fcfs", "svf_arrivals")


def versions() -> dict[str, str]:
    """Versions of geosched, python, z3, sympy and numpy."""
    import numpy
    import sympy

    from geosched import __version__

    return {"geosched": __version__, "python": platform.python_version(), "z3": z3.get_version_string(),
            "sympy": sympy.__version__, "numpy": numpy.__version__}


# --------------------------------------------------------------------------- context


class _Context:
    """Shared state of one ledger run: options, cached expensive runs, the output folder."""

    def __init__(self, thorough: bool, out: str | Path | None, seed: int, variants: tuple[str, ...]) -> None:
        self.thorough = thorough
        self.seed = seed
        self._out = Path(out) if out else None
        self.variants = variants
        self.cache: dict[str, Any] = {}
        self.statuses: dict[str, ClaimResult] = {}

    @property
    def out(self) -> Path:
        """The counterexample folder (a fresh temporary one when none was given)."""
        if self._out is None:
            self._out = Path(tempfile.mkdtemp(prefix="geosched-claims-"))
        self._out.mkdir(parents=True, exist_ok=True)
        return self._out

    @property
    def out_if_set(self) -> Path | None:
        return self._out

    def write(self, name: str, data: Any) -> str:
        path = self.out / name
        path.write_text(json.dumps(data, indent=1, default=str) + "\n")
        return str(path)

    def cached(self, key: str, fn: Callable[[], Any]) -> tuple[Any, float]:
        """``(value, seconds spent now)``: the first caller pays, later ones get 0."""
        if key in self.cache:
            return self.cache[key], 0.0
        t0 = time.perf_counter()
        value = fn()
        self.cache[key] = value
        return value, time.perf_counter() - t0


# --------------------------------------------------------------------------- methods


def _derivation(claim: Claim, ctx: _Context) -> Evidence:
    check = get_derivation(claim.id).check()
    status = {"proved": "proved", "refuted": "refuted"}.get(check.status, "unknown")
    counterexample = ctx.write(f"derivation_{claim.id}.json", check.to_dict()) if status == "refuted" else None
    return Evidence("derivation", "proof", status, check.message, depends_on=check.depends_on,
                    wall_time=check.wall_time, counterexample=counterexample)


def _z3(lemma: str, label: str, kind: str, bound_text: Callable[[Any], str] | None = None, **params: Any):
    def method(claim: Claim, ctx: _Context) -> Evidence:
        timeout_ms = 120_000 if ctx.thorough else 20_000
        chosen = dict(params)
        if lemma == "lemmaA2_invariant_k":
            chosen.setdefault("k", 6 if ctx.thorough else 3)
        t0 = time.perf_counter()
        report = run_lemma(lemma, timeout_ms=timeout_ms, **chosen)
        elapsed = time.perf_counter() - t0
        status = {"proved": "proved" if kind == "proof" else "checked", "refuted": "refuted"}.get(report.status,
                                                                                                 "unknown")
        detail = f"{report.status}: {report.message}"
        counterexample = ctx.write(f"z3_{lemma}.json", report.to_dict()) if status == "refuted" else None
        return Evidence(label, kind, status, detail, wall_time=elapsed, counterexample=counterexample,
                        bound=bound_text(report) if bound_text and status == "checked" else None,
                        data={"parameters": dict(report.parameters)})

    return method


def _k_sweep(claim: Claim, ctx: _Context) -> Evidence:
    """The blocked-step certificate proved for k = 1, 2, ... active requests until Z3 stops."""
    label = "z3:lemmaA2_invariant_k"
    # k <= 10 takes well under a second each; beyond, each k costs several times the previous
    max_k, timeout_ms, budget_s = (16, 60_000, 600.0) if ctx.thorough else (10, 20_000, 20.0)
    t0 = time.perf_counter()
    sweep = largest_k(max_k=max_k, timeout_ms=timeout_ms, budget_s=budget_s)
    elapsed = time.perf_counter() - t0
    per_k = {report.parameters.get("k"): report.status for report in sweep.reports}
    refuted = [k for k, status in per_k.items() if status == "refuted"]
    if refuted:
        return Evidence(label, "bounded", "refuted", f"k={refuted[0]}: refuted", wall_time=elapsed,
                        data={"per_k": per_k},
                        counterexample=ctx.write("z3_lemmaA2_invariant_k.json", sweep.to_dict()))
    if sweep.largest_k < 1:
        return Evidence(label, "bounded", "unknown", f"not proved for k=1 ({sweep.stopped_because})", wall_time=elapsed)
    return Evidence(label, "bounded", "checked",
                    f"proved for every k <= {sweep.largest_k} (stopped: {sweep.stopped_because})",
                    bound=f"k<={sweep.largest_k} active requests, symbolic lengths", wall_time=elapsed,
                    data={"largest_k": sweep.largest_k, "per_k": per_k})


def _policy_spec(policy: str):
    label = f"policy-spec:{policy}"

    def method(claim: Claim, ctx: _Context) -> Evidence:
        t0 = time.perf_counter()
        result = check_policy_equivalence(policy, thorough=ctx.thorough, seed=ctx.seed)
        elapsed = time.perf_counter() - t0
        bound = ", ".join(f"{k}={v}" for k, v in result.bounds.items())
        if result.status.startswith("proved"):
            return Evidence(label, "supporting", "checked",
                            f"admission step == Z3 spec on {result.states_checked} states",
                            bound=f"states with {bound}", wall_time=elapsed)
        if result.status == "refuted":
            return Evidence(label, "supporting", "refuted", result.message, wall_time=elapsed,
                            counterexample=ctx.write(f"policy_spec_{policy}.json", result.to_dict()))
        return Evidence(label, "supporting", "unknown", result.message, wall_time=elapsed)

    return method


def _exhaustive_run(ctx: _Context):
    from geosched.verify import exhaustive as ex

    def run():
        kwargs: dict[str, Any] = {"variants": ctx.variants, "out": ctx.out_if_set}
        if ctx.thorough:
            kwargs.update(arrival_space=ex.THOROUGH_ARRIVAL_SPACE, workers=2, cross_check=True,
                          checkpoint=ctx.out / "exhaustive.checkpoint.json", resume=True)
            return ex.run_exhaustive(ex.THOROUGH_SPACE, **kwargs)
        return ex.run_exhaustive(ex.DEFAULT_SPACE, arrival_space=ex.DEFAULT_ARRIVAL_SPACE, **kwargs)

    return ctx.cached("exhaustive", run)


def _exhaustive(check_names: tuple[str, ...], variant: str, label: str, what: str):
    def method(claim: Claim, ctx: _Context) -> Evidence:
        result, elapsed = _exhaustive_run(ctx)
        vs = result.variants[variant]
        checks = {c: vs["checks"][c] for c in check_names}
        checked = max(d["checked"] for d in checks.values())
        failed = {c: d for c, d in checks.items() if d["failed"]}
        subset = {"jaillet": ", equal prompts, M >= 2P", "equal_prompts": ", equal prompts"}.get(vs["subset"] or "", "")
        bound = f"{result.space}{subset} ({checked} instances, exact OPT)"
        if failed:
            check, data = next(iter(failed.items()))
            path = _counterexample_file(ctx, result, variant, check)
            return Evidence(label, "bounded", "refuted",
                            f"{data['failed']} of {data['checked']} instances fail {check}: "
                            f"{data['counterexample']['detail']}", bound=bound, counterexample=path,
                            wall_time=elapsed)
        if not result.complete:
            return Evidence(label, "bounded", "unknown", f"exhaustive run incomplete: {result.message}",
                            wall_time=elapsed)
        worst = vs["max_ratio"]
        detail = f"{what} on all {checked} instances"
        if worst:
            detail += f"; worst {vs['policy']}/OPT = {worst['fraction']} ({worst['value']:.4f})"
        if "cert_peak_mass" in check_names:
            detail += f"; {vs['blocked_steps']} blocked steps, min slack {vs['min_slack']}"
        return Evidence(label, "bounded", "checked", detail, bound=bound, wall_time=elapsed,
                        data={"max_ratio": worst, "max_bound_use": vs["max_bound_use"],
                              "opt_method": result.opt_method, "cross_checked": result.cross_checked})

    return method


def _counterexample_file(ctx: _Context, result: Any, variant: str, check: str) -> str | None:
    for data in result.counterexamples:
        if data["variant"] == variant and data["check"] == check:
            if data.get("file"):
                return data["file"]
            return ctx.write(f"exhaustive_{variant}_{check.replace('.', '_')}.json", data)
    return None


def _monte_carlo(policy: str):
    label = f"monte-carlo:{policy}"

    def method(claim: Claim, ctx: _Context) -> Evidence:
        from geosched.verify.montecarlo import run_montecarlo

        t0 = time.perf_counter()
        if ctx.thorough:
            result = run_montecarlo(policy=policy, n=400, replications=60, seed=ctx.seed, n_boot=2000)
        else:
            result = run_montecarlo(policy=policy, seed=ctx.seed)
        elapsed = time.perf_counter() - t0
        status = "consistent" if result.status == "consistent" else "unknown"
        points = [{"mu": p.mu, "rho": p.rho, "ratio": round(p.ratio, 4),
                   "ci": [round(p.ci_low, 4), round(p.ci_high, 4)],
                   "bound": round(p.bound, 3), "bound_effective_rho": round(p.bound_effective, 3),
                   "effective_rho": round(p.effective_rho, 3), "truncated_fraction": round(p.truncated_fraction, 4),
                   **({"eps": p.eps, "theta": p.theta, "proxies": p.proxies} if p.eps is not None else {})}
                  for p in result.points]
        return Evidence(label, "statistical", status, result.message + " (hypotheses not all met: see docs)",
                        samples=result.samples, wall_time=elapsed,
                        data={"points": points, "n": result.n, "memory": result.memory, "seed": result.seed,
                              "hypothesis_notes": list(result.hypothesis_notes)})

    return method


def _volume_enumeration(claim: Claim, ctx: _Context) -> Evidence:
    """``model.volume(s, o)`` against the literal sum ``sum_{j=1..o} (s + j)``, and theory's closed form."""
    from geosched.reference_impl import model

    limit = 200 if ctx.thorough else 60
    t0 = time.perf_counter()
    for s in range(limit + 1):
        for o in range(1, limit + 1):
            direct = sum(s + j for j in range(1, o + 1))
            got = model.volume(s, o)
            if got != direct:
                path = ctx.write("enumeration_volume.json", {"prompt": s, "output": o, "model_volume": got,
                                                             "sum_formula": direct})
                return Evidence("enumeration:volume", "bounded", "refuted",
                                f"model.volume({s}, {o}) = {got} != sum_j (s + j) = {direct}",
                                counterexample=path, wall_time=time.perf_counter() - t0)
    return Evidence("enumeration:volume", "bounded", "checked",
                    "geosched.reference_impl.model.volume equals the literal sum",
                    bound=f"0<=s<={limit}, 1<=o<={limit}", wall_time=time.perf_counter() - t0)


def _sjf_family(claim: Claim, ctx: _Context) -> Evidence:
    """theory's SJF family: simulated TEL(SJF), TEL(SVF) against the closed forms; the ratio grows."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulator import simulate
    from geosched.theory import kong_sjf_unbounded as fam

    label = "simulation:family"
    t0 = time.perf_counter()
    sizes = (2, 3, 4, 6, 8, 12, 16, 24) if ctx.thorough else (2, 3, 4, 6, 8)
    rows = []
    for k in sizes:
        instance = fam.sjf_family(k)
        expected = fam.closed_form_tels(k)
        row: dict[str, Any] = {"size": k, "n": instance.n, "memory": instance.memory, "closed_form": expected}
        for policy in ("sjf", "svf"):
            report = check_schedule(instance, simulate(instance, policy).starts)
            row[policy] = report.metrics.tel
            if int(expected[policy]) != row[policy]:
                path = ctx.write("family_kong.sjf_unbounded.json", row)
                return Evidence(label, "bounded", "refuted",
                                f"size {k}: simulated TEL({policy}) = {row[policy]} != closed form {expected[policy]}",
                                counterexample=path, wall_time=time.perf_counter() - t0)
        rows.append(row)
    ratios = [r["sjf"] / r["svf"] for r in rows]
    growing = all(b > a for a, b in zip(ratios, ratios[1:]))
    detail = ("simulation == closed form; TEL(SJF)/TEL(SVF) = "
              + ", ".join(f"{x:.3f}" for x in ratios) + f" at sizes {list(sizes)}")
    if not growing:
        return Evidence(label, "bounded", "unknown", detail + " (not increasing)", wall_time=time.perf_counter() - t0,
                        data={"rows": rows})
    return Evidence(label, "bounded", "checked", detail, bound=f"family sizes {sizes[0]}..{sizes[-1]}",
                    wall_time=time.perf_counter() - t0, data={"rows": rows})


def _jaillet_construction(claim: Claim, ctx: _Context) -> Evidence:
    """theory's adversarial arrivals: every implemented policy's TEL equals the greedy closed form, the
    witness schedule is feasible with the witness closed form, and TEL/witness grows with K."""
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.policies import policy_names
    from geosched.reference_impl.simulator import simulate
    from geosched.theory import jaillet_thm4_1 as fam

    label = "simulation:construction"
    t0 = time.perf_counter()
    sizes = (2, 3, 4, 5, 6, 8, 10) if ctx.thorough else (2, 3, 4, 5, 6)
    policies = list(policy_names())
    rows = []
    for k in sizes:
        instance = fam.adversarial_family(k)
        expected = fam.closed_form_tels(k)
        witness = check_schedule(instance, fam.witness_starts(k))
        row: dict[str, Any] = {"K": k, "n": instance.n, "closed_form": expected,
                               "witness_feasible": witness.feasible,
                               "witness_tel": witness.metrics.tel if witness.metrics else None}
        problems = []
        if not witness.feasible or row["witness_tel"] != int(expected["witness"]):
            problems.append(f"witness schedule: feasible={witness.feasible}, TEL {row['witness_tel']} "
                            f"vs closed form {expected['witness']}")
        for policy in policies:
            report = check_schedule(instance, simulate(instance, policy).starts)
            row[policy] = report.metrics.tel
            if row[policy] != int(expected["greedy"]):
                problems.append(f"TEL({policy}) = {row[policy]} != closed form {expected['greedy']}")
        if problems:
            path = ctx.write("construction_jaillet.thm4.1.json", row)
            return Evidence(label, "bounded", "refuted", f"K={k}: " + "; ".join(problems), counterexample=path,
                            wall_time=time.perf_counter() - t0)
        rows.append(row)
    ratios = [min(r[p] for p in policies) / r["witness_tel"] for r in rows]
    growing = all(b > a for a, b in zip(ratios, ratios[1:]))
    detail = (f"{', '.join(policies)} all match the closed form; certified TEL/OPT >= "
              + ", ".join(f"{x:.2f}" for x in ratios) + f" at K = {list(sizes)} (n = K^2 + 1)")
    status = "checked" if growing else "unknown"
    return Evidence(label, "bounded", status, detail, bound=f"K = {sizes[0]}..{sizes[-1]}, policies {policies}",
                    wall_time=time.perf_counter() - t0, data={"rows": rows})


def _with_theory_constant(inner: Callable[[Claim, _Context], Evidence], agree: Callable[[], str | None]):
    """Run ``inner``; downgrade a pass to unknown when our constant is not theory's (``agree`` says why)."""

    def method(claim: Claim, ctx: _Context) -> Evidence:
        evidence = inner(claim, ctx)
        problem = agree()
        if problem and evidence.status == "checked":
            return replace(evidence, status="unknown", message=f"{evidence.message}; {problem}")
        return evidence

    return method


def _thm33_constant_agrees() -> str | None:
    import sympy as sp

    from geosched.theory import kong_thm3_3
    from geosched.verify.exhaustive import THM33_NUMERATOR

    t, a = sp.symbols("T alpha", positive=True)
    if sp.simplify(kong_thm3_3.constant(t, a) - (1 + THM33_NUMERATOR * t / (1 - a))) != 0:
        return f"theory's constant {kong_thm3_3.constant(t, a)} differs from the checked 1 + {THM33_NUMERATOR}T/(1-a)"
    return None


def _jaillet_constant_agrees() -> str | None:
    import inspect

    from geosched.theory import jaillet_thm4_3
    from geosched.verify.exhaustive import JAILLET_CONSTANT

    default = inspect.signature(jaillet_thm4_3.derivation).parameters["constant"].default
    if default != JAILLET_CONSTANT:
        return f"theory's constant {default} differs from the checked {JAILLET_CONSTANT}"
    return None


_METHODS: dict[str, Callable[[Claim, _Context], Evidence]] = {
    "derivation": _derivation,
    "enumeration:volume": _volume_enumeration,
    "exhaustive:prop3.1": _exhaustive(("prop3.1", "prop3.1_identity", "opt_ge_sum_outputs"), "svf",
                                      "exhaustive:prop3.1", "M*OPT >= sum of prefix sums and the pair identity hold"),
    "exhaustive:certificate": _exhaustive(("cert_peak_mass", "cert_order", "lemmaA2_sum"), "svf",
                                          "exhaustive:certificate",
                                          "certificate (peak mass > M-P, volume order, per-request sum) holds"),
    "exhaustive:thm3.2": _exhaustive(("thm3.2_bound", "opt_le_policy"), "svf", "exhaustive:thm3.2",
                                     "(M-P) TEL(SVF) <= (3M-P) TEL(OPT) holds"),
    "exhaustive:thm3.3": _with_theory_constant(
        _exhaustive(("thm3.3_bound", "opt_le_policy"), "svf1_sqrtT_equal", "exhaustive:thm3.3",
                    "(M-P) TEL(1-bit SVF, theta=floor(sqrt T)) <= (M-P+2TM) TEL(OPT) holds (E1-E3)"),
        _thm33_constant_agrees),
    "exhaustive:jaillet": _with_theory_constant(
        _exhaustive(("jaillet_bound", "opt_le_policy"), "sjf_jaillet", "exhaustive:jaillet",
                    "TEL(MC-SF) <= 5 TEL(OPT) holds"),
        _jaillet_constant_agrees),
    "z3:peak_volume": _z3("peak_volume", "z3:peak_volume", "proof"),
    "z3:lemmaA2_invariant_k": _k_sweep,
    "z3:lemmaA2_order_invariant": _z3("lemmaA2_order_invariant", "z3:lemmaA2_order_invariant", "bounded",
                                      lambda r: f"n<={r.parameters.get('n')} requests (order half)"),
    "z3:thm3_2_composition": _z3("thm3_2_composition", "z3:thm3_2_composition", "proof"),
    "z3:thm3_2_composition_integer": _z3("thm3_2_composition", "z3:thm3_2_composition_integer", "proof",
                                         form="integer"),
    "policy-spec:svf": _policy_spec("svf"),
    "policy-spec:sjf": _policy_spec("sjf"),
    "monte-carlo:svf": _monte_carlo("svf"),
    "monte-carlo:svf1": _monte_carlo("svf1"),
    "simulation:family": _sjf_family,
    "simulation:construction": _jaillet_construction,
    **EMPIRICAL_METHODS,
}


# --------------------------------------------------------------------------- combining


def combine(claim: Claim, evidence: list[Evidence],
            dependency_status: dict[str, str]) -> tuple[str, str, str | None, str]:
    """``(status, status_text, counterexample, note)`` by the ledger's rule (module docstring).

    ``supporting`` evidence (that our implementation is the paper's algorithm, e.g. the
    admission step against its Z3 specification) never raises a status by itself; when it
    fails, the claim is ``unknown`` (a bug of ours does not refute the paper) unless a
    proof settles it.
    """
    empirical = combine_empirical(evidence)  # reproduced / partly / not_reproduced / unknown
    if empirical is not None:
        return empirical
    refuted = [e for e in evidence if e.status == "refuted" and e.kind != "supporting"]
    if refuted:
        first = refuted[0]
        where = f" ({first.counterexample})" if first.counterexample else ""
        return "refuted", f"refuted by {first.method}{where}", first.counterexample, first.message
    proofs = [e for e in evidence if e.kind == "proof"]
    notes = []
    if proofs and all(e.status == "proved" for e in proofs):
        missing = sorted({d for e in proofs for d in e.depends_on if dependency_status.get(d) != "proved"})
        if not missing:
            return "proved", "proved", None, ""
        notes.append(f"proved relative to {', '.join(missing)} (not itself proved)")
    elif proofs:
        open_ones = [f"{e.method}: {e.status}" for e in proofs if e.status != "proved"]
        notes.append("no complete mechanical proof (" + "; ".join(open_ones) + ")")
    broken = [e for e in evidence if e.kind == "supporting" and e.status != "checked"]
    if broken:
        notes.append("implementation check not passed: " + "; ".join(f"{e.method}: {e.status} ({e.message})"
                                                                    for e in broken))
        return "unknown", "unknown", None, "; ".join(notes)
    bounded = [e for e in evidence if e.kind == "bounded" and e.status == "checked"]
    if bounded:
        # the headline bound: the exhaustive/enumeration check when there is one
        primary = next((e for e in bounded if e.method.startswith(("exhaustive", "enumeration"))), bounded[0])
        others = len(bounded) - 1
        text = f"checked up to {primary.bound}" + (f" (+{others} bounded check{'s' * (others > 1)})" if others else "")
        return "checked", text, None, "; ".join(notes)
    statistical = [e for e in evidence if e.status == "consistent"]
    if statistical:
        samples = sum(e.samples or 0 for e in statistical)
        return "consistent", f"consistent in {samples} samples", None, "; ".join(notes)
    return "unknown", "unknown", None, "; ".join(notes)


def _run_one(claim: Claim, ctx: _Context) -> ClaimResult:
    if claim.id in ctx.statuses:
        return ctx.statuses[claim.id]
    t0 = time.perf_counter()
    evidence = []
    for name in claim.methods:
        started = time.perf_counter()
        try:
            item = _METHODS[name](claim, ctx)
        except Exception as exc:  # noqa: BLE001 - a crashing check is reported, never hidden
            item = Evidence(name, "bounded", "unknown", f"check raised {type(exc).__name__}: {exc}",
                            wall_time=time.perf_counter() - started)
        evidence.append(item)
    dependency_status = {}
    # dependencies matter only when every proof method proved its part (rule 2)
    proofs = [e for e in evidence if e.kind == "proof"]
    needed = bool(proofs) and all(e.status == "proved" for e in proofs) and not any(
        e.status == "refuted" and e.kind != "supporting" for e in evidence)
    for dep in sorted({d for e in evidence for d in e.depends_on} if needed else ()):
        if dep in CLAIMS and dep != claim.id:
            dependency_status[dep] = _run_one(CLAIMS[dep], ctx).status
    status, text, counterexample, note = combine(claim, evidence, dependency_status)
    result = ClaimResult(claim.id, claim.source, claim.statement, status, text, tuple(claim.methods), tuple(evidence),
                         counterexample, note, time.perf_counter() - t0)
    ctx.statuses[claim.id] = result
    return result


def run_claim(claim_id: str, *, thorough: bool = False, out: str | Path | None = None, seed: int = 0) -> ClaimResult:
    """Run one claim's checks (and those of the claims its proof relies on)."""
    return run_claims([claim_id], thorough=thorough, out=out, seed=seed).claims[0]


def run_claims(claim_ids: list[str] | tuple[str, ...] | None = None, *, thorough: bool = False,
               out: str | Path | None = None, seed: int = 0) -> LedgerResult:
    """Run the checks of ``claim_ids`` (default: all) and combine them into statuses.

    Parameters
    ----------
    claim_ids : sequence of str, optional
        Ledger ids (see :data:`CLAIM_IDS`); default: every claim.
    thorough : bool
        The long versions of the checks (minutes to an hour).
    out : path, optional
        Folder for counterexample files (a temporary one when needed and not given).
    seed : int
        Base seed of every random part.

    Returns
    -------
    LedgerResult
        One :class:`ClaimResult` per claim with its status and evidence, versions and seed.

    Raises
    ------
    UnknownNameError
        For an unknown claim id (the message lists the known ones).

    Examples
    --------
    >>> result = run_claims(["kong.volume"])
    >>> result.claims[0].status, result.status
    ('proved', 'ok')
    """
    t0 = time.perf_counter()
    ids = list(CLAIM_IDS) if claim_ids is None else list(claim_ids)
    for claim_id in ids:
        if claim_id not in CLAIMS:
            raise UnknownNameError("claim", claim_id, list(CLAIMS))
    if claim_ids is None:
        variants = _REPORTED_VARIANTS
    else:
        variants = tuple(dict.fromkeys(v for c in ids for v in _EXHAUSTIVE_VARIANTS.get(c, ())))
    ctx = _Context(thorough, out, seed, variants or ("svf",))
    results = [_run_one(CLAIMS[c], ctx) for c in ids]
    variant_summary: dict[str, Any] = {}
    if "exhaustive" in ctx.cache:
        ex = ctx.cache["exhaustive"]
        variant_summary = {
            "space": ex.space, "arrival_space": ex.arrival_space, "instances": ex.instances,
            "arrival_instances": ex.arrival_instances, "opt_method": ex.opt_method,
            "cross_checked": ex.cross_checked, "wall_time": round(ex.wall_time, 3),
            "per_variant": {
                name: {"instances": v["instances"], "covered_by_theorem": v["covered_by_theorem"],
                       "max_ratio": v["max_ratio"]["fraction"] if v["max_ratio"] else None,
                       "failures": {c: {"failed": d["failed"], "of": d["checked"],
                                        "smallest": d["counterexample"]}
                                    for c, d in v["checks"].items() if d["failed"]}}
                for name, v in ex.variants.items()
            },
        }
    counts = {status: sum(c.status == status for c in results) for status in EVIDENCE_STATUSES}
    message = f"{len(results)} claims: " + ", ".join(f"{k} {v}" for k, v in counts.items() if v)
    return LedgerResult("refuted" if counts["refuted"] else "ok", message, time.perf_counter() - t0, tuple(results),
                        thorough, seed, str(ctx.out_if_set) if ctx.out_if_set else None, versions(), variant_summary)
