"""The mutation campaign: one-line mutations of the code must change the ledger's verdict.

Each :class:`Mutation` replaces one exact fragment of one source file (a formula constant, a
threshold, the volume, a policy key, the simulator's admission, a check's constant) and names
the claim it affects. :func:`run_campaign` applies every mutation in a **copy** of the tree
(never the live one: other tests run against it), runs that claim's checks in the ``quick``
settings in a fresh interpreter on the copy (without following its dependencies, to keep the
campaign short), and requires the claim to come out ``refuted`` (the ledger names the failed
check, implementation or theory: no refutation is masked), or ``error`` (a check crashed on the
mutant). It is kept as a regression suite beside the mutation *tool* (mutmut,
``benchmarks/bench_mutation_tool.py``), which picks the mutants itself. Every mutant gets a
fresh copy, so mutants can run anywhere in any order.

Run it with ``python benchmarks/mutations.py [--cluster local:2] [--json]`` (dev-only: not shipped);
docs/claims.md lists the outcome and explains every survivor; ``tests/test_mutations.py`` (marked ``slow``) runs it.

Example
-------
>>> len(MUTATIONS) >= 30
True
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from geosched.executor import SPEC_HELP, cluster_spec, using_executor

__all__ = ["Mutation", "MUTATIONS", "MutationOutcome", "run_campaign", "main", "materialize", "copy_path",
           "COQ_MUTATIONS", "CoqOutcome", "run_coq_mutations"]


@dataclass(frozen=True)
class Mutation:
    """One one-line change of one file, and the claim whose verdict it must change."""

    id: str  # short name
    path: str  # file, relative to the repository root
    old: str  # exact fragment (must occur exactly once in the file)
    new: str  # its replacement
    claim: str  # the ledger claim checked
    what: str  # what the mutation breaks, in words


M = Mutation
MUTATIONS: tuple[Mutation, ...] = (
    # theory/: the derivations' formulas and constants (sympy must refute the derivation)
    M("theory-volume", "theory/kong_volume.py", "(output**2 + output) / 2", "(output**2 - output) / 2", "kong.volume",
      "the volume's closed form"),
    M("theory-ratio", "theory/kong_thm3_2.py", "return 1 + 2 / (1 - a)", "return 1 + 3 / (1 - a)", "kong.thm3.2",
      "Thm. 3.2's ratio constant"),
    M("theory-lemma-factor", "theory/kong_lemma_a2.py", "FACTOR = 2  #", "FACTOR = 1  #", "kong.lemmaA.2",
      "Lemma A.2's factor 2 (p o + o <= 2v)"),
    M("theory-ev", "theory/kong_thm3_4.py", "    return Es / mu + 1 / mu**2", "    return Es / mu + 2 / mu**2",
      "kong.thm3.4", "E[v] of the geometric lengths"),
    M("theory-bound34", "theory/kong_thm3_4.py", "    return 1 + 2 / ((1 - a) * (1 - m) * (1 - p))",
      "    return 1 + 3 / ((1 - a) * (1 - m) * (1 - p))", "kong.thm3.4", "Thm. 3.4's constant 2"),
    M("theory-o1", "theory/kong_thm3_5.py", "    return th + 1 / mu", "    return th + 3 / mu", "kong.thm3.5",
      "O_1 = theta + 1/mu"),
    M("theory-threshold", "theory/kong_thm3_3.py", "    return math.isqrt(int(t_max))", "    return int(t_max)",
      "kong.thm3.3", "theta = T instead of floor(sqrt T) in theory"),
    M("theory-thm33-constant", "theory/kong_thm3_3.py", "    return 1 + 2 * t_max / (1 - a_)",
      "    return 1 + 1 * t_max / (1 - a_)", "kong.thm3.3", "Thm. 3.3's explicit constant"),
    M("theory-jaillet-constant", "theory/jaillet_thm4_3.py", "def derivation(constant=5)", "def derivation(constant=4)",
      "jaillet.thm4.3", "Jaillet Thm. 4.3's constant"),
    M("theory-sjf-closed-form", "theory/kong_sjf_unbounded.py", "    return m * (m + 1) / 2 + m**3 + m**2 + 1",
      "    return m * (m + 1) / 2 + m**3 + m**2 + 2", "kong.sjf_unbounded", "TEL(SJF) closed form"),
    M("theory-witness", "theory/jaillet_thm4_1.py", "    return K**2 + K + 2", "    return K**2 + K + 1",
      "jaillet.thm4.1", "the witness schedule's TEL"),
    M("theory-prefix", "theory/kong_prop3_1.py", "sp.Add(*volumes[: kk + 1])", "sp.Add(*volumes[: kk])",
      "kong.prop3.1", "the prefix sums P_k"),
    M("theory-ecr", "theory/kong_thm3_4_half.py", "    return 1 + 4 / ((1 - m) * (1 - p))",
      "    return 1 + 2 / ((1 - m) * (1 - p))", "kong.thm3.4.half", "the alpha = 1/2 form's constant 4"),
    # verify/: the checks' constants and thresholds
    M("check-bound-1", "verify/exhaustive.py", "BOUND_NUMERATOR = 2  #", "BOUND_NUMERATOR = 1  #", "kong.thm3.2",
      "the exhaustive Thm. 3.2 constant 2 -> 1"),
    M("check-thm33", "verify/exhaustive.py", "THM33_NUMERATOR = 2\n", "THM33_NUMERATOR = 1\n", "kong.thm3.3",
      "the exhaustive Thm. 3.3 constant"),
    M("check-jaillet", "verify/exhaustive.py", "JAILLET_CONSTANT = 5\n", "JAILLET_CONSTANT = 4\n", "jaillet.thm4.3",
      "the exhaustive Jaillet constant"),
    M("check-lemma-factor", "verify/exhaustive.py", "LEMMA_A2_FACTOR = 2\n", "LEMMA_A2_FACTOR = 1\n", "kong.lemmaA.2",
      "Lemma A.2's summed factor 2 -> 1 in the check"),
    M("check-threshold", "verify/exhaustive.py", 'theta={math.isqrt(max(r.output for r in instance.requests))}',
      'theta={max(r.output for r in instance.requests)}', "kong.thm3.3", "theta = T in the exhaustive check"),
    M("check-prefix", "verify/exhaustive.py", "        running += v\n", "        running += v + 1\n", "kong.prop3.1",
      "the prefix bound of the check"),
    M("check-dp", "verify/exhaustive.py", "cost = sum(1 for i in range(n)", "cost = sum(2 for i in range(n)",
      "kong.prop3.1", "the independent exact solver (TEL doubled)"),
    M("check-monitor-threshold", "verify/monitor.py", "        self.threshold = instance.memory - peak\n",
      "        self.threshold = instance.memory - peak - 1\n", "kong.lemmaA.2", "the certificate's M - P"),
    M("check-monitor-order", "verify/monitor.py", "(r.volume, r.arrival, position)", "(r.output, r.arrival, position)",
      "kong.lemmaA.2", "the certificate's volume order"),
    M("check-mc-constant", "verify/montecarlo.py", "BOUND_CONSTANT = 2  #", "BOUND_CONSTANT = 0.01  #", "kong.thm3.4",
      "the Monte-Carlo bound constant 2 -> 0.01"),
    M("check-mc-o1", "verify/montecarlo.py", "    return 1 / mu - theta * q**theta / (1 - q**theta), theta + 1 / mu",
      "    return 1 / mu - theta * q**theta / (1 - q**theta), theta + 3 / mu", "kong.thm3.5",
      "O_1 = theta + 3/mu in the Monte-Carlo"),
    M("check-spec-key", "verify/policy_spec.py", '"svf": lambda s, o: 2 * s * o + o * o + o,',
      '"svf": lambda s, o: 2 * s * o + o * o,', "kong.lemmaA.2", "the specification's SVF key"),
    M("check-core-increment", "verify/cores.py", "    expected = z3.If(_holds_at(x, o, c), 2 * (s + c - x), 0)",
      "    expected = z3.If(_holds_at(x, o, c), 2 * (s + c - x) + 1, 0)", "kong.prop3.1",
      "the per-request work increment"),
    M("check-core-exchange", "verify/cores.py", "total >= _sum(v[:k]) + extra", "total >= _sum(v[:k + 1]) + extra",
      "kong.prop3.1", "the exchange step's k smallest"),
    M("check-lemma-certificate", "verify/lemmas.py", "        conclusion=total_peak > memory - alpha_m + slack,",
      "        conclusion=total_peak > memory - alpha_m + slack + 1,", "kong.lemmaA.2",
      "the blocked-step certificate's (1 - alpha) M"),
    M("check-composition", "verify/lemmas.py", 'def thm3_2_composition(form: str = "real", numerator: int = 2,',
      'def thm3_2_composition(form: str = "real", numerator: int = 1,', "kong.thm3.2", "the Z3 composition's 2"),
    # reference_impl/: the volume, the policy keys, the simulator's admission
    M("impl-volume", "reference_impl/model.py", "    return prompt * output + (output * output + output) // 2",
      "    return prompt * output + (output * output - output) // 2", "kong.volume", "model.volume"),
    M("impl-svf-key", "reference_impl/policies.py", "    return prompt * output + (output * output + output) // 2",
      "    return prompt * output + (output * output) // 2", "kong.lemmaA.2", "SVF's priority key (the volume)"),
    M("impl-sjf-key", "reference_impl/policies.py", "        return np.array(predicted, dtype=_dtype_of(predicted))",
      "        return np.array(prompt, dtype=_dtype_of(prompt))", "jaillet.thm4.3", "SJF's key (output -> prompt)"),
    M("impl-strict-backfills", "reference_impl/admission.py", "    if backfill:\n        candidates = [",
      "    if True:\n        candidates = [", "kong.lemmaA.2", "simulate's strict path backfills"),
    M("impl-fits", "reference_impl/admission.py", "usage(start + output) + prompt + output <= memory\n",
      "usage(start + output) + prompt + output <= memory + 1\n", "kong.lemmaA.2",
      "the forward-looking check one token loose"),
    M("impl-earliest-start", "reference_impl/admission.py", "bound = max(bound, ends[idx] - output + 1)",
      "bound = max(bound, ends[idx] - output + 2)", "kong.lemmaA.2",
      "the event-driven jump skips a feasible start"),
    # issue 24: the audit's blind spots, each now caught by a named check
    M("game-never-doubled", "verify/game.py", 'reply, value = "never", Fraction(d + k, k)',
      'reply, value = "never", Fraction(2 * (d + k), k)', "jaillet.thm4.1",
      "the game's never-release lower bound doubled (unsound)"),
    M("game-continuation-doubled", "verify/game.py", "    return d + k + cost, starts",
      "    return d + k + 2 * cost, starts", "jaillet.thm4.1", "the algorithm's continuation cost doubled"),
    # (mc-opt-above-policy, montecarlo._sample's exact OPT + 1, is gone: since issue 42 no row cites monte-carlo:svf,
    # the only method that reaches that line, so no ledger row can catch it; kong.thm3.4 rests on paper-stationary)
    # The audit's three Monte-Carlo mutations, moved in issue 46 from verify/montecarlo.py and the generator (which no
    # row's verdict reads since issue 42) to the code that simulates kong.thm3.4 now: monte-carlo:paper-stationary's
    # workload and estimator (verify/poisson_model.py, verify/poisson_stationary.py). The same three defects.
    M("mc-load-doubled", "verify/poisson_model.py", '        return rho_p * self.drain / (2 * self.mean("v"))',
      '        return 2 * rho_p * self.drain / (2 * self.mean("v"))', "kong.thm3.4",
      "the paper rows' arrival rate doubled"),
    M("mc-estimator-ecr", "verify/poisson_stationary.py", "    ratio = float(top.sum() / bottom.sum())",
      "    ratio = float((top / bottom).mean())", "kong.thm3.4",
      "E[SVF]/E[OPT] estimated as the mean of the blocks' ratios"),
    M("mc-pmf-shift", "verify/poisson_model.py", "            types.append((s, o))",
      "            types.append((s, min(o + 1, top)))", "kong.thm3.4",
      "the length pmf shifted by one (min(G + 1, P - s))"),
    M("onebit-boundary", "reference_impl/policies.py", "            proxy = np.where(predicted > theta, o1, o0)",
      "            proxy = np.where(predicted >= theta, o1, o0)", "kong.thm3.3", "1-bit SVF's class boundary"),
    M("onebit-length-key", "reference_impl/policies.py",
      "        return _volumes(np.asarray(prompt, dtype=_dtype_of(prompt)), proxy)",
      "        return np.asarray(proxy)", "kong.thm3.3", "1-bit SVF keyed by the proxy length, not the proxy volume"),
    M("impl-alpha", "reference_impl/model.py", "return Fraction(max(r.peak for r in self.requests), self.memory)",
      "return Fraction(max(r.prompt for r in self.requests), self.memory)", "kong.thm3.2",
      "Instance.alpha = max(s)/M instead of max(s + o)/M"),
    M("impl-ties", "reference_impl/engine.py", "key=lambda i: (keys[i], self.arrival[i], i))",
      "key=lambda i: (keys[i], -i, self.arrival[i]))", "kong.lemmaA.2", "ties broken by reverse position"),
)


@dataclass(frozen=True)
class MutationOutcome:
    """What the ledger said about one mutation."""

    id: str  # the mutation
    claim: str  # the claim checked
    baseline: str  # its status without the mutation (same settings)
    status: str  # its status with the mutation
    message: str  # the ledger's wording with the mutation
    caught: bool  # refuted (naming the failed check) or error (a check crashed)
    seconds: float  # wall time of the run


_SCRIPT = """
import json, sys
import geosched
from geosched.verify.ledger import run_claims
assert geosched.__file__.startswith(sys.argv[1]), geosched.__file__
result = run_claims(sys.argv[2].split(","), mode="quick", follow_dependencies=False, out=sys.argv[3])
print(json.dumps({c.id: {"status": c.status, "message": c.message, "note": c.note} for c in result.claims}))
"""


def _package_dirs(root: Path) -> dict[str, str]:
    with open(root / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["tool"]["setuptools"]["package-dir"]


def materialize(root: Path, dest: Path) -> dict[str, Path]:
    """The installed layout (``geosched/...``) of the source tree under ``dest``; returns, per source
    folder, where its files went."""
    mapping = _package_dirs(root)
    placed: dict[str, Path] = {}
    for package, source in sorted(mapping.items(), key=lambda item: item[0].count(".")):
        target = dest.joinpath(*package.split("."))
        shutil.copytree(root / source, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_build"))
        placed[source] = target
    return placed


def copy_path(placed: dict[str, Path], rel_path: str) -> Path:
    """Where ``rel_path`` (relative to the repository) went in a copy made by :func:`materialize`."""
    source = max((s for s in placed if rel_path.startswith(s.rstrip("/") + "/")), key=len)
    return placed[source] / rel_path[len(source.rstrip("/")) + 1:]


def _run_claims(copy: Path, claims: list[str], timeout: float) -> tuple[dict[str, dict[str, Any]], float]:
    """Run ``claims`` (quick, dependencies not followed) in a fresh interpreter on the copy."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="geosched-mutant-out-") as out:
        try:
            proc = subprocess.run([sys.executable, "-c", _SCRIPT, str(copy), ",".join(claims), out],
                                  capture_output=True, text=True, env=env, cwd=copy, timeout=timeout)
        except subprocess.TimeoutExpired:
            failed = {"status": "timeout", "message": f"no verdict within {timeout:.0f} s", "note": ""}
            return {c: failed for c in claims}, timeout
    elapsed = time.perf_counter() - begin
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {c: {"status": "crashed", "message": tail[:200], "note": ""} for c in claims}, elapsed
    return json.loads(proc.stdout.strip().splitlines()[-1]), elapsed


def _caught(verdict: dict[str, Any], baseline: str) -> bool:
    """Caught: the row became ``refuted`` (a failed check, implementation or theory, names itself), or
    ``error`` (a check crashed on the mutant). ``unknown`` is not a catch: it only says a check did not
    finish."""
    return verdict["status"] != baseline and verdict["status"] in ("refuted", "error")


def _mutant_job(job: tuple) -> tuple[dict[str, dict[str, Any]], float]:
    """One job, a pure function of ``(root, mutation or None, claims, timeout)``: a fresh copy of the
    tree (so that jobs share nothing and any worker can run any of them), the mutation applied
    to it, the claims' verdicts and the seconds they took."""
    root, mutation, claims, timeout = job
    with tempfile.TemporaryDirectory(prefix="geosched-mutant-") as tmp:
        dest = Path(tmp) / "copy"
        placed = materialize(Path(root), dest)
        if mutation is not None:
            target = copy_path(placed, mutation.path)
            target.write_text(target.read_text().replace(mutation.old, mutation.new, 1))
        return _run_claims(dest, list(claims), timeout)


def run_campaign(root: str | Path | None = None, mutations: tuple[Mutation, ...] = MUTATIONS, *,
                 executor: Any = None, timeout: float = 300.0, progress: Any = None) -> list[MutationOutcome]:
    """Apply each mutation in a copy of the tree, run its claim, and say whether the ledger caught it.

    Parameters
    ----------
    root : path, optional
        The repository (default: the one this module lives in); on a cluster, a path every
        worker can read (a shared file system).
    mutations : tuple of Mutation
        Default :data:`MUTATIONS`.
    executor : concurrent.futures.Executor or str, optional
        Where the mutants run, one job each: an executor or a spec of
        :func:`geosched.executor.make_executor` (default ``"serial"``; ``"local:2"`` runs two
        at a time). Outcomes come back in the order of ``mutations`` whatever the executor.
    timeout : float
        Seconds per ledger run; a run past it counts as not caught.
    progress : callable, optional
        Called with each :class:`MutationOutcome` as it completes.

    Returns
    -------
    list of MutationOutcome
        In the order of ``mutations``.
    """
    root = Path(root).resolve() if root else Path(__file__).resolve().parent.parent
    _check_fragments(root, mutations)
    outcomes = []
    with using_executor(executor) as pool:
        baseline_job = (str(root), None, tuple(sorted({m.claim for m in mutations})), timeout)
        baselines = {c: v["status"] for c, v in _mutant_job(baseline_job)[0].items()}
        jobs = [(str(root), m, (m.claim,), timeout) for m in mutations]
        for mutation, (verdicts, seconds) in zip(mutations, pool.map(_mutant_job, jobs)):
            verdict = verdicts[mutation.claim]
            outcome = MutationOutcome(mutation.id, mutation.claim, baselines[mutation.claim], verdict["status"],
                                      verdict["message"], _caught(verdict, baselines[mutation.claim]), seconds)
            if progress:
                progress(outcome)
            outcomes.append(outcome)
    return outcomes


# Coq-side mutations (issue 22): each must stop the build of verify/coq or leave a main theorem open.
# verify/coq marks the lines with (* MUT: ... *); the claim field names the row the theorem serves.
COQ_MUTATIONS: tuple[Mutation, ...] = (
    M("coq-factor2", "verify/coq/Thm32.v", "<= 2 * pairmin rs. (* MUT: factor2 *)",
      "<= 1 * pairmin rs. (* MUT: factor2 *)", "kong.thm3.2", "Lemma A.2's summed factor 2 made 1 (svf_starts_bound)"),
    M("coq-thm32-constant", "verify/coq/Thm32.v", "(3 * M - P) * tel rs xs.", "(2 * M - P) * tel rs xs.",
      "kong.thm3.2", "Thm. 3.2's 2 made 1: (M - P) TEL(SVF) <= (2M - P) TEL(S)"),
    M("coq-window", "verify/coq/Svf.v", "let last := t + output r in (* MUT: window *)",
      "let last := t + output r - 1 in (* MUT: window *)", "kong.lemmaA.2",
      "the forward check's window one step short"),
    M("coq-growth", "verify/coq/Model.v", "then prompt r + (t - x) (* MUT: growth *)",
      "then prompt r (* MUT: growth *)", "kong.volume", "usage without the growth term"),
    M("coq-tel-shift", "verify/coq/Model.v", "snd e + output (fst e). (* MUT: tel *)",
      "snd e + output (fst e) + 1. (* MUT: tel *)", "kong.thm3.2",
      "TEL shifted by +1 per request (every ratio theorem stays true; tel_finish_times does not)"),
)


@dataclass(frozen=True)
class CoqOutcome:
    """What the Coq build said about one Coq-side mutation."""

    id: str  # the mutation
    what: str  # what it breaks, in words
    caught: bool  # the build stopped, or a main theorem is not closed
    how: str  # "build stopped: <first error>", "not closed: <theorems>" or "SURVIVED"
    seconds: float  # wall time of the build


def run_coq_mutations(root: str | Path | None = None,
                      mutations: tuple[Mutation, ...] = COQ_MUTATIONS) -> list[CoqOutcome]:
    """Apply each Coq-side mutation to a copy of ``verify/coq`` and build it from clean
    (:func:`geosched.verify.coq_engine.check_sources`); a mutation is caught when the build stops or
    a main theorem is no longer closed under the global context. Needs coqc."""
    from geosched.verify import coq_engine

    root = Path(root).resolve() if root else Path(__file__).resolve().parent.parent
    _check_fragments(root, mutations)
    outcomes = []
    for mutation in mutations:
        with tempfile.TemporaryDirectory(prefix="geosched-coq-mutant-") as tmp:
            copy = Path(tmp) / "coq"
            shutil.copytree(root / "verify" / "coq", copy,
                            ignore=shutil.ignore_patterns("*.vo", "*.vok", "*.vos", "*.glob", ".*.aux"))
            target = copy / Path(mutation.path).relative_to("verify/coq")
            target.write_text(target.read_text().replace(mutation.old, mutation.new, 1))
            result = coq_engine.check_sources(copy)
        if result.status == "unavailable":
            raise RuntimeError(f"Coq mutations need coqc: {result.message}")
        opened = sorted(t for t, closed in result.theorems.items() if not closed)
        how = (f"build stopped: {result.message}" if result.status in ("failed", "partial")  # a file did not compile
               else f"not closed: {', '.join(opened)}" if opened else "SURVIVED")
        outcomes.append(CoqOutcome(mutation.id, mutation.what, how != "SURVIVED", how, result.wall_time))
    return outcomes


def _check_fragments(root: Path, mutations: tuple[Mutation, ...]) -> None:
    for m in mutations:
        count = (root / m.path).read_text().count(m.old)
        if count != 1:
            raise ValueError(f"mutation {m.id}: the fragment occurs {count} times in {m.path} (must be once)")


def docs_table(outcomes: list[dict[str, Any]]) -> str:
    """The generated mutation table of docs/claims.md from a campaign's outcomes (``asdict`` of each)."""
    import re

    by_id = {m.id: m for m in MUTATIONS}
    caught = sum(o["caught"] for o in outcomes)
    lines = [f"**{len(outcomes)} tried, {caught} caught** (generated by `python benchmarks/mutations.py "
             "--write-docs`; a row is caught when its word becomes `refuted` or `error`). The words are the "
             "row's checks alone, dependencies not followed (the campaign's setting: e.g. `kong.thm3.2` alone "
             "is `proved` relative to its lemmas); the ledger's word for each row is in the generated words "
             "tables above.", "",
             "| mutation | file | what it breaks | claim | own checks: unmutated -> mutated | caught by |",
             "|---|---|---|---|---|---|"]
    for o in outcomes:
        m = by_id.get(o["id"])
        how = re.sub(r" \(/[^)]*\)", "", o["message"]).replace("|", "/") if o["caught"] else "SURVIVED"
        lines.append(f"| `{o['id']}` | {m.path if m else '?'} | {m.what if m else '?'} | `{o['claim']}` | "
                     f"{o['baseline']} -> {o['status']} | {how} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python benchmarks/mutations.py``: run the campaign and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", type=cluster_spec, default="serial", metavar="SPEC",
                        help=f"where the mutants run: {SPEC_HELP}")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", action="append", default=None, help="run only these mutation ids")
    parser.add_argument("--write-docs", action="store_true", help="write the table into docs/claims.md")
    parser.add_argument("--from", dest="source", default=None, metavar="CAMPAIGN.json",
                        help="with --write-docs: a saved --json campaign instead of a new run")
    parser.add_argument("--coq", action="store_true", help="run the Coq-side mutations of verify/coq instead")
    args = parser.parse_args(argv)
    if args.write_docs:
        return _write_docs(args)
    if args.coq:
        found = run_coq_mutations(mutations=tuple(m for m in COQ_MUTATIONS if not args.only or m.id in args.only))
        for o in found:
            print(f"{o.id:<20} {'caught' if o.caught else 'SURVIVED'}  {o.seconds:6.1f}s  {o.how[:90]}", flush=True)
        print(f"\n{sum(o.caught for o in found)} of {len(found)} Coq mutations caught")
        return 0
    chosen = tuple(m for m in MUTATIONS if not args.only or m.id in args.only)
    begin = time.perf_counter()
    outcomes = run_campaign(mutations=chosen, executor=args.cluster,
                            progress=None if args.json else lambda o: print(
                                f"{o.id:<26} {o.claim:<18} {o.baseline:>9} -> {o.status:<9} "
                                f"{'caught' if o.caught else 'SURVIVED'}  {o.seconds:5.1f}s  {o.message[:70]}",
                                flush=True))
    caught = sum(o.caught for o in outcomes)
    if args.json:
        print(json.dumps({"tried": len(outcomes), "caught": caught, "seconds": round(time.perf_counter() - begin, 1),
                          "outcomes": [asdict(o) for o in outcomes]}, indent=1))
    else:
        print(f"\n{caught} of {len(outcomes)} mutations caught ({100 * caught / max(1, len(outcomes)):.0f}%) in "
              f"{time.perf_counter() - begin:.0f} s")
    return 0


def _write_docs(args: argparse.Namespace) -> int:
    import importlib.util

    # docs/ writes its pages (docs/tables.py, a script of the checkout, not of the package)
    spec = importlib.util.spec_from_file_location("docs_tables", Path.cwd() / "docs" / "tables.py")
    tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tables)
    if args.source:
        outcomes = json.loads(Path(args.source).read_text())["outcomes"]
    else:
        outcomes = [asdict(o) for o in run_campaign(executor=args.cluster)]
    tables.write_block(tables.CLAIMS_PAGE, "mutation campaign", docs_table(outcomes))
    print(f"docs/claims.md: mutation table written ({len(outcomes)} mutations)")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    raise SystemExit(main())
