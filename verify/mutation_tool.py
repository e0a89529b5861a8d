"""Mutation testing by a maintained tool: cosmic-ray's operators pick the mutants, the ledger judges them.

The hand list of :mod:`geosched.verify.mutations` measures mutations the project chose itself.
Here the mutants come from `cosmic-ray <https://cosmic-ray.readthedocs.io>`_ (PyPI
``cosmic-ray``, extra ``[mutation]``): every position where one of its core operators applies
(replace a binary or comparison operator, a number, a unary operator, a boolean, break/continue,
drop an exception handler, ...) in the files of :data:`TARGETS` (the model, the checker, the
simulator, the policies and the 1-bit parameters, the OPT lower bounds, ``theory/``, ``verify/``
and witness certification). A seeded sample is drawn per module; each mutant is applied with
cosmic-ray's own ``mutate_code`` in a **copy** of the installed layout (never the live tree), and
its *runner* decides whether it is killed:

* the **ledger**: the file's claims (``quick``, dependencies not followed) in a fresh interpreter;
  killed when a claim's word changes to ``refuted`` or ``error``, or the interpreter fails
  (an import-time crash kills a mutant too);
* the file's **fast tests** (``pytest -x -m "not slow"``, Hypothesis profile ``ci``) and the mutated
  module's own **doctests**: killed when they fail.

A runner past its time limit is a ``timeout`` (reported apart, not a kill). What survives is
listed for triage (docs/verification.md: equivalent, with the reason, or the check that now
kills it). ``tests/test_mutation_tool.py`` (slow) runs a small seeded sample;
``benchmarks/bench_mutation_tool.py`` a per-module sample with a stated fraction.

Example
-------
>>> sorted(TARGETS)[:3]
['checker', 'model', 'opt-bounds']
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError
from geosched.executor import using_executor
from geosched.verify.mutations import copy_path, materialize

__all__ = ["module_name", "TARGETS", "FILE_RUNNERS", "ToolMutant", "ToolOutcome", "enumerate_mutants", "sample_mutants",
           "run_tool_campaign", "scores", "outcomes_to_json"]

# module label -> the files cosmic-ray mutates
TARGETS: dict[str, tuple[str, ...]] = {
    "model": ("reference_impl/model.py",),
    "checker": ("reference_impl/checker.py",),
    "simulator": ("reference_impl/simulator.py",),
    "policies": ("reference_impl/policies.py", "reference_impl/predictors/simple.py"),
    "opt-bounds": ("reference_impl/opt/bounds.py", "reference_impl/opt/lower.py"),
    "theory": ("theory/kong_volume.py", "theory/kong_thm3_2.py", "theory/kong_prop3_1.py", "theory/kong_thm3_4.py",
               "theory/jaillet_thm4_1.py"),
    "verify": ("verify/montecarlo.py", "verify/game.py", "verify/exhaustive.py", "verify/policy_spec.py"),
    "witness": ("adversary/witness.py",),
}
# file -> (ledger claims, fast test files): the runner of its mutants
FILE_RUNNERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "reference_impl/model.py": (("kong.volume", "kong.thm3.2"),
                                ("tests/test_model.py", "tests/test_mutation_survivors.py")),
    "reference_impl/checker.py": (("kong.thm3.2",), ("tests/test_checker.py",)),
    "reference_impl/simulator.py": (("kong.lemmaA.2",), ()),
    "reference_impl/policies.py": (("kong.thm3.3", "kong.lemmaA.2"), ("tests/test_mutation_survivors.py",)),
    "reference_impl/predictors/simple.py": (("kong.thm3.3", "kong.thm3.5"), ("tests/test_mutation_survivors.py",)),
    "reference_impl/opt/bounds.py": (("kong.thm3.4",), ("tests/test_bounds.py",)),
    "reference_impl/opt/lower.py": (("kong.thm3.4",), ("tests/test_bounds.py",)),
    "theory/kong_volume.py": (("kong.volume",), ()),
    "theory/kong_thm3_2.py": (("kong.thm3.2",), ()),
    "theory/kong_prop3_1.py": (("kong.prop3.1",), ()),
    "theory/kong_thm3_4.py": (("kong.thm3.4",), ("tests/test_mutation_survivors.py",)),
    "theory/jaillet_thm4_1.py": (("jaillet.thm4.1",), ()),
    "verify/montecarlo.py": (("kong.thm3.4", "kong.thm3.5"), ()),
    "verify/game.py": (("jaillet.thm4.1",), ()),
    "verify/exhaustive.py": (("kong.thm3.2", "kong.prop3.1"), ()),
    "verify/policy_spec.py": (("kong.lemmaA.2", "kong.thm3.3"), ("tests/test_mutation_survivors.py",)),
    "adversary/witness.py": ((), ("tests/test_witnesses.py", "tests/test_mutation_survivors.py")),
}


@dataclass(frozen=True)
class ToolMutant:
    """One cosmic-ray mutation: its file, operator and occurrence (the tool's own coordinates)."""

    module: str  # TARGETS label
    path: str  # file, relative to the repository root
    operator: str  # cosmic-ray operator name, e.g. "core/ReplaceBinaryOperator_Add_Sub"
    occurrence: int  # which position of that operator in the file
    line: int  # first line of the mutated node


@dataclass(frozen=True)
class ToolOutcome:
    """What the runner said about one mutant."""

    mutant: ToolMutant
    outcome: str  # "killed", "survived", "timeout", "no_change" (the operator did not apply)
    by: str  # what killed it: "ledger:<claim> -> <word>", "tests", "crash", or "" when it survived
    seconds: float  # wall time of the runner
    diff: str  # the mutated line, before -> after


def _operators() -> list[tuple[str, Any]]:
    import cosmic_ray.plugins as plugins

    out = []
    for name in plugins.operator_names():
        cls = plugins.get_operator(name)
        if name.startswith("core/") and not cls.arguments():
            out.append((name, cls()))
    return out


def enumerate_mutants(root: str | Path, modules: tuple[str, ...] | None = None) -> list[ToolMutant]:
    """Every mutant cosmic-ray's core operators make in the files of ``modules`` (default all), in a
    deterministic order (file, operator, occurrence)."""
    from cosmic_ray.ast import ast_nodes, get_ast_from_path

    root = Path(root)
    chosen = modules or tuple(TARGETS)
    unknown = [m for m in chosen if m not in TARGETS]
    if unknown:
        raise ValidationError("module", unknown[0], f"must be one of {', '.join(TARGETS)}")
    operators = _operators()
    out: list[ToolMutant] = []
    for module in chosen:
        for path in TARGETS[module]:
            tree = get_ast_from_path(root / path)
            counts: dict[str, int] = {}
            for node in ast_nodes(tree):
                for name, operator in operators:
                    for start, _ in operator.mutation_positions(node):
                        occurrence = counts.get(name, 0)
                        counts[name] = occurrence + 1
                        out.append(ToolMutant(module, path, name, occurrence, int(start[0])))
    return sorted(out, key=lambda m: (list(TARGETS).index(m.module), m.path, m.operator, m.occurrence))


def sample_mutants(mutants: list[ToolMutant], *, per_module: int | None = None, fraction: float | None = None,
                   seed: int = 0) -> list[ToolMutant]:
    """A seeded sample: ``per_module`` mutants, or a ``fraction`` of them (at least one), from each module."""
    if (per_module is None) == (fraction is None):
        raise ValidationError("per_module/fraction", (per_module, fraction), "give exactly one")
    if fraction is not None and not 0 < fraction <= 1:
        raise ValidationError("fraction", fraction, "must be in (0, 1]")
    chosen = []
    for module in TARGETS:
        pool = [m for m in mutants if m.module == module]
        if not pool:
            continue
        k = per_module if per_module is not None else max(1, round(fraction * len(pool)))
        chosen += random.Random(f"{seed}:{module}").sample(pool, min(k, len(pool)))
    return sorted(chosen, key=lambda m: (list(TARGETS).index(m.module), m.path, m.operator, m.occurrence))


_LEDGER = """
import json, sys
import geosched
from geosched.verify.ledger import run_claims
assert geosched.__file__.startswith(sys.argv[1]), geosched.__file__
result = run_claims(sys.argv[2].split(","), mode="quick", follow_dependencies=False, out=sys.argv[3])
print(json.dumps({c.id: c.status for c in result.claims}))
"""


def _mutated_source(source: str, mutant: ToolMutant) -> str | None:
    import cosmic_ray.plugins as plugins
    from cosmic_ray.mutating import mutate_code

    return mutate_code(source, plugins.get_operator(mutant.operator)(), mutant.occurrence)


def _environment(copy: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1",
            "GEOSCHED_HYPOTHESIS_PROFILE": "ci"}


def _ledger_words(copy: Path, claims: tuple[str, ...], deadline: float) -> dict[str, str] | str:
    """The claims' words in the copy, or ``"crash"`` / ``"timeout"``."""
    with tempfile.TemporaryDirectory(prefix="geosched-tool-out-") as out:
        try:
            proc = subprocess.run([sys.executable, "-c", _LEDGER, str(copy), ",".join(claims), out],
                                  capture_output=True, text=True, env=_environment(copy), cwd=copy,
                                  timeout=max(1.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            return "timeout"
    if proc.returncode != 0 or not proc.stdout.strip():
        return "crash"
    return json.loads(proc.stdout.strip().splitlines()[-1])


_DOCTEST = """
import doctest, importlib, sys
module = importlib.import_module(sys.argv[1])
assert module.__file__.startswith(sys.argv[2]), module.__file__
sys.exit(1 if doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed else 0)
"""


def module_name(path: str) -> str:
    """The import name of a source file, e.g. ``reference_impl/model.py`` -> ``geosched.reference_impl.model``.

    >>> module_name("reference_impl/opt/bounds.py")
    'geosched.reference_impl.opt.bounds'
    """
    parts = Path(path).with_suffix("").parts
    return ".".join(("geosched", *parts))


def _doctests_pass(copy: Path, path: str, deadline: float) -> bool | str:
    try:
        proc = subprocess.run([sys.executable, "-c", _DOCTEST, module_name(path), str(copy)], capture_output=True,
                              text=True, env=_environment(copy), cwd=copy,
                              timeout=max(1.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return "timeout"
    return proc.returncode == 0


def _tests_pass(copy: Path, tests: tuple[str, ...], deadline: float) -> bool | str:
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-m", "not slow", "-p", "no:cacheprovider",
                               *tests], capture_output=True, text=True, env=_environment(copy), cwd=copy,
                              timeout=max(1.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        return "timeout"
    return proc.returncode == 0


def _prepare_copy(root: Path, dest: Path) -> dict[str, Path]:
    """The installed layout plus what the fast tests need (tests/, pyproject.toml for pytest's settings)."""
    placed = materialize(root, dest)
    shutil.copytree(root / "tests", dest / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")
    if (root / "docs" / "witnesses").is_dir():  # the witness tests certify the files there
        shutil.copytree(root / "docs" / "witnesses", dest / "docs" / "witnesses")
    return placed


def _judge(copy: Path, path: str, baseline: dict[str, str], timeout: float) -> tuple[str, str]:
    """``(outcome, by)`` of the runner for ``path`` on the (mutated) copy."""
    claims, tests = FILE_RUNNERS[path]
    tests = tuple(t for t in tests if (copy / t).is_file())  # an older tree (a "before" run) may lack one
    deadline = time.perf_counter() + timeout
    if claims:
        words = _ledger_words(copy, claims, deadline)
        if words == "timeout":
            return "timeout", "ledger"
        if words == "crash":
            return "killed", "crash (the ledger's interpreter failed)"
        for claim, word in words.items():
            if word != baseline.get(claim) and word in ("refuted", "error"):
                return "killed", f"ledger:{claim} -> {word}"
    if tests:
        passed = _tests_pass(copy, tests, deadline)
        if passed == "timeout":
            return "timeout", "tests"
        if not passed:
            return "killed", "tests"
    passed = _doctests_pass(copy, path, deadline)
    if passed == "timeout":
        return "timeout", "doctests"
    return ("survived", "") if passed else ("killed", "doctests")


def _tool_job(job: tuple) -> tuple[str, str, float, str]:
    """One mutant, a pure function of ``(root, mutant, baseline, timeout)``: a fresh copy, the mutation
    applied by cosmic-ray, the runner's verdict."""
    root, mutant, baseline, timeout = job
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="geosched-tool-") as tmp:
        dest = Path(tmp) / "copy"
        placed = _prepare_copy(Path(root), dest)
        target = copy_path(placed, mutant.path)
        source = target.read_text()
        mutated = _mutated_source(source, mutant)
        if mutated is None or mutated == source:
            return "no_change", "", time.perf_counter() - begin, ""
        target.write_text(mutated)
        diff = _changed_line(source, mutated)
        outcome, by = _judge(dest, mutant.path, baseline, timeout)
    return outcome, by, time.perf_counter() - begin, diff


def _changed_line(before: str, after: str) -> str:
    old, new = before.splitlines(), after.splitlines()
    for a, b in zip(old, new):
        if a != b:
            return f"{a.strip()} -> {b.strip()}"
    return "(lines added or removed)"


def _baseline(root: Path, mutants: list[ToolMutant], timeout: float) -> dict[str, str]:
    """The unmutated words of every claim the sample's runners use (their fast tests must pass)."""
    claims = sorted({c for m in mutants for c in FILE_RUNNERS[m.path][0]})
    tests = tuple(sorted({t for m in mutants for t in FILE_RUNNERS[m.path][1] if (root / t).is_file()}))
    with tempfile.TemporaryDirectory(prefix="geosched-tool-") as tmp:
        dest = Path(tmp) / "copy"
        _prepare_copy(root, dest)
        deadline = time.perf_counter() + timeout
        words = _ledger_words(dest, tuple(claims), deadline) if claims else {}
        if not isinstance(words, dict):
            raise RuntimeError(f"the unmutated ledger run failed ({words}): fix it before testing mutants")
        if tests and _tests_pass(dest, tests, time.perf_counter() + timeout) is not True:
            raise RuntimeError(f"the unmutated fast tests {list(tests)} fail: fix them before testing mutants")
        for path in sorted({m.path for m in mutants}):
            if _doctests_pass(dest, path, time.perf_counter() + timeout) is not True:
                raise RuntimeError(f"the unmutated doctests of {path} fail: fix them before testing mutants")
    return words


def run_tool_campaign(mutants: list[ToolMutant], *, root: str | Path | None = None, executor: Any = None,
                      timeout: float = 300.0, progress: Any = None) -> tuple[list[ToolOutcome], dict[str, str]]:
    """Run every mutant of ``mutants`` (e.g. from :func:`sample_mutants`) through its runner.

    Returns the outcomes in the order of ``mutants`` (whatever the ``executor``: an executor or a
    spec of :func:`geosched.executor.make_executor`) and the baseline words of the claims used.
    """
    root = Path(root).resolve() if root else Path(__file__).resolve().parent.parent
    baseline = _baseline(root, mutants, timeout)
    jobs = [(str(root), m, baseline, timeout) for m in mutants]
    outcomes = []
    with using_executor(executor) as pool:
        for mutant, (outcome, by, seconds, diff) in zip(mutants, pool.map(_tool_job, jobs)):
            result = ToolOutcome(mutant, outcome, by, seconds, diff)
            if progress:
                progress(result)
            outcomes.append(result)
    return outcomes, baseline


def scores(outcomes: list[ToolOutcome]) -> dict[str, dict[str, Any]]:
    """Per module: mutants run, killed, survived, timeouts, and the score killed / (killed + survived)."""
    out: dict[str, dict[str, Any]] = {}
    for module in TARGETS:
        mine = [o for o in outcomes if o.mutant.module == module and o.outcome != "no_change"]
        if not mine:
            continue
        killed = sum(o.outcome == "killed" for o in mine)
        survived = sum(o.outcome == "survived" for o in mine)
        out[module] = {"run": len(mine), "killed": killed, "survived": survived,
                       "timeout": sum(o.outcome == "timeout" for o in mine),
                       "score": killed / (killed + survived) if killed + survived else None}
    return out


def outcomes_to_json(outcomes: list[ToolOutcome]) -> list[dict[str, Any]]:
    """JSON-ready outcomes."""
    return [{**asdict(o.mutant), "outcome": o.outcome, "by": o.by, "seconds": round(o.seconds, 1), "diff": o.diff}
            for o in outcomes]
