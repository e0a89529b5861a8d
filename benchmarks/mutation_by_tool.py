"""Mutation testing by a maintained tool: cosmic-ray's operators pick the mutants, each module's tests judge them.

The hand list of ``benchmarks/mutations.py`` measures mutations the project chose itself.
Here the mutants come from `cosmic-ray <https://cosmic-ray.readthedocs.io>`_ (PyPI
``cosmic-ray``, extra ``[mutation]``): every position where one of its core operators applies
(replace a binary or comparison operator, a number, a unary operator, a boolean, break/continue,
drop an exception handler, ...) in the code of :data:`TARGETS` (the model, the checker, the
simulator, the policies, the 1-bit parameters, the OPT lower bounds, ``theory/``, ``verify/`` and
witness certification; a target is a file, or one top-level class or function of it).

* **Population.** :func:`enumerate_mutants` lists every mutant in a fixed order. A mutant whose
  position lies inside a type annotation of a file with ``from __future__ import annotations`` is
  ``equivalent`` by construction (the annotation is a string that is never evaluated) and is not
  run; :func:`is_annotation` decides it from the syntax tree.
* **Sample.** :func:`sample_mutants` draws a seeded, stratified sample: a fixed number per module.
* **Runner.** Each mutant is applied with cosmic-ray's own ``mutate_code`` in a **fresh temporary
  copy** of the installed layout (never the source tree) and judged by its module's **fast test
  selection** (:data:`MODULE_TESTS`, ``pytest -x -m "not slow"`` under a derandomized Hypothesis
  profile) and the mutated module's **doctests**, in one fresh interpreter; optionally also by the
  ledger (:data:`MODULE_CLAIMS`, ``ledger=True``): killed when a claim's word turns ``refuted`` or
  ``error``.
* **Resource bound.** The verdict never depends on the wall clock: each interpreter runs under a
  CPU-time limit (``RLIMIT_CPU``) and an address-space limit; a mutant that exhausts either, or the
  wall-clock backstop, is a ``timeout`` (unknown: reported apart, never counted as killed or
  survived).

What survives is listed for triage (docs/verification.md: equivalent with the reason, or the test
that now kills it). ``tests/test_mutation_tool.py`` runs a small seeded sample;
``benchmarks/bench_mutation_tool.py`` the stratified sample or the whole population (``--all``,
checkpointed, ``--resume``).

Example
-------
>>> sorted(TARGETS)[:3]
['checker', 'model', 'onebit']
>>> module_name("reference_impl/opt/bounds.py")
'geosched.reference_impl.opt.bounds'
"""

from __future__ import annotations

import ast
import json
import math
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mutations import copy_path, materialize  # noqa: E402 - beside this file in benchmarks/ (dev-only)

from geosched.errors import ValidationError
from geosched.executor import using_executor

__all__ = ["module_name", "TARGETS", "MODULE_TESTS", "MODULE_CLAIMS", "ToolMutant", "ToolOutcome", "Limits",
           "run_limited", "enumerate_mutants", "sample_mutants", "is_annotation", "run_tool_campaign", "scores",
           "wilson", "outcomes_to_json", "outcome_from_json"]

# module label -> what cosmic-ray mutates: "path" (the whole file), "path::Name" (one top-level class or
# function), "path::-Name" (the file without it)
TARGETS: dict[str, tuple[str, ...]] = {
    "model": ("reference_impl/model.py",),
    "checker": ("reference_impl/checker.py",),
    "simulator": ("reference_impl/admission.py", "reference_impl/engine.py", "reference_impl/simulation.py"),
    "policies": ("reference_impl/policies.py::-OneBitSVF", "reference_impl/predictors/simple.py"),
    "onebit": ("reference_impl/policies.py::OneBitSVF",),
    "opt-bounds": ("reference_impl/opt/bounds.py", "reference_impl/opt/lower.py"),
    "theory": ("theory/kong_volume.py", "theory/kong_thm3_2.py", "theory/kong_prop3_1.py", "theory/kong_thm3_4.py",
               "theory/jaillet_thm4_1.py"),
    # the Monte-Carlo run and the ledger's re-derivation of it (issue 34: rate and load, hypotheses, bootstrap)
    "verify-montecarlo": ("verify/montecarlo.py", "verify/montecarlo_audit.py", "verify/methods.py::_mc_failures",
                          "verify/methods.py::_estimator_problems", "verify/methods.py::_monte_carlo",
                          "verify/methods.py::_ecr"),
    "verify-game": ("verify/game.py",),
    "verify-exhaustive": ("verify/exhaustive.py",),
    "verify-policy-spec": ("verify/policy_spec.py",),
    "witness": ("adversary/witness.py",),
    "theory-fluid": ("theory/svf_fluid_classes.py", "theory/svf_lower_bound.py"),
    "theory-frontier": ("theory/svf_sharp_bound.py", "theory/svf_head_lemma.py", "theory/svf_prompt_heavy.py",
                        "theory/svf_heavy_limit.py", "verify/frontier_evidence.py"),
    # issue 34: the Coq evidence and the code that reads coqc's output (the names of either tree: a selector whose
    # file or function a tree lacks selects nothing there), the ledger, and sagesched.routing's measurement
    "verify-coq": ("verify/coq_evidence.py", "verify/coq_output.py", "verify/coq_engine.py::_from_manifest",
                   "verify/coq_engine.py::_theorem_fields", "verify/coq_engine.py::_assumptions",
                   "verify/coq_engine.py::_split_marker", "verify/coq_engine.py::_axioms",
                   "verify/coq_engine.py::_coqchk_summary"),
    "verify-ledger": ("verify/ledger.py",),
    "poisson": ("theory/svf_poisson.py", "theory/svf1_poisson.py", "verify/poisson_workload.py",
                "verify/poisson_hypotheses.py", "verify/poisson_residual.py"),
    # issue 46 item 7: the code of the last two waves the audit mutated (with poisson, checker, theory-frontier above)
    "family-evidence": ("verify/family_evidence.py",),
    "ledger-rules": ("verify/evidence.py", "verify/ledger.py::combine", "verify/ledger.py::_combine",
                     "verify/ledger.py::_decide", "verify/ledger.py::_proof_chain",
                     "verify/ledger.py::_weakest_bounds"),
    "empirical": ("verify/empirical.py",),
    "routing": ("verify/sagesched_claims.py::routing_cost", "verify/sagesched_claims.py::routing_claim",
                "verify/sagesched_claims.py::fitted_exponent", "verify/sagesched_claims.py::_Counted",
                "verify/sagesched_claims.py::_counting", "verify/sagesched_claims.py::_CountedList",
                "verify/sagesched_claims.py::_counted_state", "verify/sagesched_claims.py::routing_times",
                "verify/sagesched_claims.py::routing_operations"),
}
_SURVIVORS = "tests/test_mutation_survivors.py"
_CAUSES = "tests/test_audit_causes.py"  # issue 34: one mutation of each of the audit's four kinds flips a word
_CANARIES = "tests/test_method_canaries.py"  # issue 46: every check's canary
_FAMILY_CANARY_TESTS = ("test_the_family_check_compared_with_itself_is_vacuous",
                        "test_a_witness_tel_taken_from_the_closed_form_is_vacuous",
                        "test_the_family_simulated_must_be_the_family_stated",
                        "test_the_fillers_simulation_at_h_1_only_loses_coverage",
                        "test_the_family_pins_are_the_members_of_each_mode")
_LEDGER_RULE_TESTS = ("test_rule_refuted_wins", "test_rule_proved_needs_every_proof_step_and_dependency",
                      "test_rule_refuted_or_unknown_dependencies_propagate",
                      "test_rule_never_stronger_than_a_dependency",
                      "test_rule_vacuous_never_counts_as_checked", "test_rule_statistical_and_unknown",
                      "test_rule_no_refutation_is_masked", "test_rule_error_and_not_run")
# module label -> its fast test selection (pytest arguments; files under tests/)
MODULE_TESTS: dict[str, tuple[str, ...]] = {
    "model": ("tests/test_model.py", "tests/test_checker.py", "tests/test_simulator.py", _SURVIVORS),
    "checker": ("tests/test_checker.py", "tests/test_forward_check.py", _SURVIVORS,
                "tests/test_implementation_claims.py"),
    "simulator": ("tests/test_simulator.py", "tests/test_ties.py", "tests/test_scheduling.py", _SURVIVORS),
    "policies": ("tests/test_scheduling.py", "tests/test_simulator.py", "tests/test_exhaustive.py", _SURVIVORS),
    "onebit": ("tests/test_scheduling.py", "tests/test_exhaustive.py", _SURVIVORS),
    "opt-bounds": ("tests/test_bounds.py", "tests/test_chain_bound.py", _SURVIVORS),
    "theory": ("tests/test_theory.py", "-k", "not cli_prove and not registry_finds", _SURVIVORS),
    "verify-montecarlo": ("tests/test_montecarlo.py", "tests/test_ecr_word.py", _CAUSES, _SURVIVORS),
    "verify-game": ("tests/test_game.py", _SURVIVORS),
    "verify-exhaustive": ("tests/test_exhaustive.py", _SURVIVORS),
    "verify-policy-spec": ("tests/test_policy_spec.py", _SURVIVORS),
    "witness": ("tests/test_witnesses.py", _SURVIVORS),
    # the registry test reads theory/ on disk, which the installed-layout copy does not have
    "theory-fluid": ("tests/test_theory.py", "-k", "not cli_prove and not registry_finds", "tests/test_fluid.py",
                     "tests/test_families.py", _SURVIVORS),
    "theory-frontier": ("tests/test_theory.py", "-k", "svf and not cli_prove and not registry_finds",
                        "tests/test_svf_frontier.py", _SURVIVORS),
    # the tests that compile Coq (marked coq_build) are left out: a mutant that changes the cache key would recompile
    # for a quarter of an hour; the others read coqc's recorded output or a build whose statements are the rows'
    "verify-coq": ("tests/test_coq_statements.py", "tests/test_coq_ledger.py", "-m", "not slow and not coq_build",
                   _CAUSES, _SURVIVORS),
    # the tests that read theory/ or docs/claims.md on disk are left out (the installed-layout copy has neither)
    "verify-ledger": ("tests/test_ledger.py", "-k", "not theory_file and not documented and not docs_table and not "
                      "claims_doc", _CAUSES, _SURVIVORS),
    "routing": ("tests/test_sagesched_claims.py", _CAUSES, _SURVIVORS),
    # the Poisson rows' derivations and their simulated hypotheses (issue 33, item 3); the canaries (issue 46)
    "poisson": ("tests/test_poisson_hypotheses.py", "tests/test_coq_online.py", "tests/test_svf1_poisson.py",
                _SURVIVORS, f"{_CANARIES}::test_z_tests_refuting_only_at_40_are_vacuous_and_svf_poisson_falls",
                f"{_CANARIES}::test_pasta_compared_with_itself_is_vacuous"),
    # issue 46 item 7 (a file a tree lacks is left out of its selection: the "before" tree has no canary tests)
    "family-evidence": ("tests/test_sjf_fcfs_families.py", "tests/test_greedy_arrivals.py",
                        "tests/test_svf_issue32_families.py", _SURVIVORS,
                        *(f"{_CANARIES}::{name}" for name in _FAMILY_CANARY_TESTS)),
    "ledger-rules": ("tests/test_proved_relative.py", "tests/test_canaries.py", _SURVIVORS,
                     *(f"tests/test_ledger.py::{name}" for name in _LEDGER_RULE_TESTS)),
    "empirical": ("tests/test_empirical.py", _CAUSES, _SURVIVORS),
}
# module label -> the ledger claims of the optional ledger runner (quick, dependencies not followed)
MODULE_CLAIMS: dict[str, tuple[str, ...]] = {
    "model": ("kong.volume", "kong.thm3.2"), "checker": ("kong.thm3.2",), "simulator": ("kong.lemmaA.2",),
    "policies": ("kong.thm3.3", "kong.lemmaA.2"), "onebit": ("kong.thm3.3",), "opt-bounds": ("kong.thm3.4",),
    "theory": ("kong.volume", "kong.thm3.2", "kong.prop3.1", "kong.thm3.4", "jaillet.thm4.1"),
    "verify-montecarlo": ("kong.thm3.4", "kong.thm3.5"), "verify-game": ("jaillet.thm4.1",),
    "verify-exhaustive": ("kong.thm3.2", "kong.prop3.1"), "verify-policy-spec": ("kong.lemmaA.2", "kong.thm3.3"),
    "witness": (), "theory-fluid": ("svf.fluid.k1", "svf.fluid.k2", "svf.lower_bound"),
    "theory-frontier": ("svf.sharp_bound", "svf.constant_two", "svf.lemmaA2.head", "svf.prompt_heavy",
                        "svf.heavy_limit"),
    "verify-coq": ("kong.thm3.2", "kong.sjf_unbounded"), "verify-ledger": ("kong.volume", "kong.thm3.2"),
    "routing": (), "poisson": ("svf.poisson", "svf1.poisson"),
    "family-evidence": ("svf.fillers", "fcfs.convoy"), "ledger-rules": ("kong.volume", "kong.thm3.2"),
    "empirical": (),
}


@dataclass(frozen=True)
class ToolMutant:
    """One cosmic-ray mutation: its file, operator and occurrence (the tool's own coordinates)."""

    module: str  # TARGETS label
    path: str  # file, relative to the repository root
    operator: str  # cosmic-ray operator name, e.g. "core/ReplaceBinaryOperator_Add_Sub"
    occurrence: int  # which position of that operator in the file (counted over the whole file)
    line: int  # first line of the mutated node
    column: int = 0  # its column (0-based)

    @property
    def key(self) -> str:
        """A stable identifier: ``path:operator#occurrence``."""
        return f"{self.path}:{self.operator}#{self.occurrence}"


@dataclass(frozen=True)
class ToolOutcome:
    """What the runner said about one mutant."""

    mutant: ToolMutant
    # "killed", "survived", "timeout" (a resource limit: unknown), "equivalent" (an annotation, not run),
    # "no_change" (the operator did not apply)
    outcome: str
    by: str  # what killed it ("tests: <first failure>", "doctests", "import", "ledger:<claim> -> <word>"), or the limit
    seconds: float  # wall time of the runner (reported, never used for the verdict)
    diff: str  # the mutated line, before -> after
    cpu_seconds: float = 0.0  # CPU time of the runner's interpreters


@dataclass(frozen=True)
class Limits:
    """The per-mutant resource bound: CPU seconds and address space per interpreter, and a wall-clock
    backstop (``wall_factor`` times the CPU limit) for a process that sleeps. Exhausting any is a
    ``timeout``."""

    cpu_seconds: int = 120
    memory_bytes: int = 6 * 2**30
    wall_factor: float = 20.0

    def validate(self) -> Limits:
        if self.cpu_seconds < 1:
            raise ValidationError("cpu_seconds", self.cpu_seconds, "must be >= 1")
        if self.memory_bytes < 2**28:
            raise ValidationError("memory_bytes", self.memory_bytes, "must be >= 256 MiB")
        if not self.wall_factor >= 1:
            raise ValidationError("wall_factor", self.wall_factor, "must be >= 1")
        return self


def _operators() -> list[tuple[str, Any]]:
    import cosmic_ray.plugins as plugins

    out = []
    for name in plugins.operator_names():
        cls = plugins.get_operator(name)
        if name.startswith("core/") and not cls.arguments():
            out.append((name, cls()))
    return out


def _line_filter(root: Path, selector: str) -> tuple[str, Any]:
    """``(path, keep(line) -> bool)`` of a :data:`TARGETS` selector; ``keep`` is None when the tree lacks the file or
    the named definition (a target names the code of two trees, before and after a change: it selects what is
    there)."""
    path, _, name = selector.partition("::")
    if not (root / path).is_file():
        return path, None
    if not name:
        return path, lambda line: True
    exclude, name = name.startswith("-"), name.lstrip("-")
    tree = ast.parse((root / path).read_text())
    spans = [(min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]), n.end_lineno)
             for n in tree.body if getattr(n, "name", None) == name]
    if not spans and not exclude:
        return path, None
    if len(spans) != 1:
        raise ValidationError("target", selector, f"needs exactly one top-level {name} in {path}")
    first, last = spans[0]
    return path, (lambda line: not first <= line <= last) if exclude else (lambda line: first <= line <= last)


def enumerate_mutants(root: str | Path, modules: tuple[str, ...] | None = None) -> list[ToolMutant]:
    """Every mutant cosmic-ray's core operators make in the code of ``modules`` (default all), in a
    deterministic order (module, file, operator, occurrence)."""
    from cosmic_ray.ast import ast_nodes, get_ast_from_path

    root = Path(root)
    chosen = modules or tuple(TARGETS)
    unknown = [m for m in chosen if m not in TARGETS]
    if unknown:
        raise ValidationError("module", unknown[0], f"must be one of {', '.join(TARGETS)}")
    operators = _operators()
    out: list[ToolMutant] = []
    for module in chosen:
        for selector in TARGETS[module]:
            path, keep = _line_filter(root, selector)
            if keep is None:
                continue
            counts: dict[str, int] = {}  # occurrences count over the whole file: mutate_code's coordinates
            for node in ast_nodes(get_ast_from_path(root / path)):
                for name, operator in operators:
                    for start, _ in operator.mutation_positions(node):
                        occurrence = counts.get(name, 0)
                        counts[name] = occurrence + 1
                        if keep(int(start[0])):
                            out.append(ToolMutant(module, path, name, occurrence, int(start[0]), int(start[1])))
    return sorted(out, key=lambda m: (list(TARGETS).index(m.module), m.path, m.operator, m.occurrence))


def _annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    spans = []
    for node in ast.walk(ast.parse(source)):
        found = []
        if isinstance(node, ast.arg | ast.AnnAssign):
            found.append(node.annotation)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node.returns)
        spans += [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in found if a is not None]
    return spans


def is_annotation(root: str | Path, mutant: ToolMutant, _cache: dict | None = None) -> bool:
    """Whether ``mutant`` sits inside a type annotation of a file with ``from __future__ import
    annotations`` (so the annotation is never evaluated and the mutant is equivalent).

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     d = pathlib.Path(folder)
    ...     _ = (d / "f.py").write_text("from __future__ import annotations\\ndef f(x: int | None) -> int:\\n"
    ...                                 "    return x | 1\\n")
    ...     [is_annotation(d, ToolMutant("m", "f.py", "core/ReplaceBinaryOperator_BitOr_Add", k, line, 13))
    ...      for k, line in ((0, 2), (1, 3))]
    [True, False]
    """
    cache = {} if _cache is None else _cache
    if mutant.path not in cache:
        source = (Path(root) / mutant.path).read_text()
        future = any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and
                     any(a.name == "annotations" for a in n.names) for n in ast.parse(source).body)
        cache[mutant.path] = _annotation_spans(source) if future else []
    position = (mutant.line, mutant.column)
    return any(start <= position < end for start, end in cache[mutant.path])


def sample_mutants(mutants: list[ToolMutant], *, per_module: int | None = None, fraction: float | None = None,
                   seed: int = 0) -> list[ToolMutant]:
    """A seeded stratified sample: ``per_module`` mutants, or a ``fraction`` of them (at least one), from each
    module (``fraction=1`` is the whole population)."""
    if (per_module is None) == (fraction is None):
        raise ValidationError("per_module/fraction", (per_module, fraction), "give exactly one")
    if fraction is not None and not 0 < fraction <= 1:
        raise ValidationError("fraction", fraction, "must be in (0, 1]")
    if per_module is not None and per_module < 1:
        raise ValidationError("per_module", per_module, "must be >= 1")
    chosen = []
    for module in TARGETS:
        pool = [m for m in mutants if m.module == module]
        if not pool:
            continue
        k = per_module if per_module is not None else max(1, round(fraction * len(pool)))
        chosen += random.Random(f"{seed}:{module}").sample(pool, min(k, len(pool)))
    return sorted(chosen, key=lambda m: (list(TARGETS).index(m.module), m.path, m.operator, m.occurrence))


# one interpreter per mutant: the copy's geosched (checked), the module's doctests, then its fast tests
_RUNNER = """
import doctest, importlib, sys
from hypothesis import HealthCheck, settings
settings.register_profile("mutation", max_examples=20, derandomize=True, deadline=None, database=None,
                          suppress_health_check=list(HealthCheck))
copy, name = sys.argv[1], sys.argv[2]
import geosched
assert geosched.__file__.startswith(copy), geosched.__file__
try:
    module = importlib.import_module(name)
except Exception as error:
    print(f"@@killed import {type(error).__name__}: {error}"[:300]); sys.exit(1)
assert module.__file__.startswith(copy), module.__file__
if doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False).failed:
    print("@@killed doctests"); sys.exit(1)
if len(sys.argv) > 3:
    import pytest
    code = pytest.main(["-x", "-q", "-m", "not slow", "-p", "no:cacheprovider", "-W", "ignore", *sys.argv[3:]])
    print(f"@@pytest {int(code)}"); sys.exit(int(code))
print("@@pytest none")
"""

_LEDGER = """
import json, sys
import geosched
from geosched.verify.ledger import run_claims
assert geosched.__file__.startswith(sys.argv[1]), geosched.__file__
result = run_claims(sys.argv[2].split(","), mode="quick", follow_dependencies=False, out=sys.argv[3])
print(json.dumps({c.id: c.status for c in result.claims}))
"""


def module_name(path: str) -> str:
    """The import name of a source file, e.g. ``reference_impl/model.py`` -> ``geosched.reference_impl.model``."""
    return ".".join(("geosched", *Path(path).with_suffix("").parts))


def _environment(copy: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "HYPOTHESIS", "COV_"))}
    return {**keep, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
            "GEOSCHED_HYPOTHESIS_PROFILE": "mutation", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1"}


def run_limited(argv: list[str], copy: Path, limits: Limits) -> tuple[str, int, str, float]:
    """Run ``argv`` in ``copy`` under ``limits``: ``(status, returncode, output, cpu_seconds)`` with
    status ``"done"`` or the limit hit (``"cpu limit"``, ``"memory limit"``, ``"wall backstop"``)."""
    def bound() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))

    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=copy,
                            env=_environment(copy), preexec_fn=bound, start_new_session=True)
    chunks: list[str] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    reader.start()
    backstop = time.monotonic() + limits.cpu_seconds * limits.wall_factor
    status = "done"
    while True:  # os.wait4: this child's own CPU time (not every child's of this process)
        pid, wait_status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > backstop and status == "done":
            status = "wall backstop"
            os.killpg(proc.pid, signal.SIGKILL)
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(wait_status)
    reader.join()
    output, cpu = "".join(chunks), usage.ru_utime + usage.ru_stime
    if status == "done" and proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        status = "cpu limit"
    if status == "done" and ("MemoryError" in output or "Cannot allocate memory" in output):
        status = "memory limit"
    return status, proc.returncode, output, cpu


def _first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" - ")[0][:160]
    return ""


def _run_tests(copy: Path, module: str, path: str, limits: Limits) -> tuple[str, str, float]:
    """``(outcome, by, cpu)`` of the doctests and fast tests of ``module`` on the (mutated) copy."""
    tests = [t for t in MODULE_TESTS[module] if not t.startswith("tests/") or (copy / t.split("::")[0]).is_file()]
    argv = [sys.executable, "-c", _RUNNER, str(copy), module_name(path), *tests]
    status, code, output, cpu = run_limited(argv, copy, limits)
    if status != "done":
        return "timeout", status, cpu
    marks = [line for line in output.splitlines() if line.startswith("@@")]
    if not marks:  # the interpreter died before reporting (a crash of the mutated code)
        return "killed", f"crash (exit {code})", cpu
    last = marks[-1]
    if last.startswith("@@killed"):
        return "killed", last[len("@@killed "):], cpu
    if last in ("@@pytest 0", "@@pytest none") and code == 0:
        return "survived", "", cpu
    if last in ("@@pytest 1", "@@pytest 2"):
        return "killed", f"tests: {_first_failure(output)}".rstrip(": "), cpu
    return "killed", f"tests (pytest exit {last[len('@@pytest '):]})", cpu


def _ledger_words(copy: Path, claims: tuple[str, ...], limits: Limits) -> tuple[dict[str, str] | str, float]:
    """The claims' words in the copy, or ``"crash"`` / the limit hit; and the CPU time."""
    with tempfile.TemporaryDirectory(prefix="geosched-tool-out-") as out:
        status, code, output, cpu = run_limited([sys.executable, "-c", _LEDGER, str(copy), ",".join(claims), out],
                                                 copy, limits)
    if status != "done":
        return status, cpu
    if code != 0 or not output.strip():
        return "crash", cpu
    return json.loads(output.strip().splitlines()[-1]), cpu


def _prepare_copy(root: Path, dest: Path) -> dict[str, Path]:
    """The installed layout plus what the fast tests need (tests/, pyproject.toml, docs/ with the witness files)."""
    placed = materialize(root, dest)
    shutil.copytree(root / "tests", dest / "tests", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(root / "pyproject.toml", dest / "pyproject.toml")
    (dest / "benchmarks").mkdir(exist_ok=True)  # the tests that read the hand list import it from there
    for name in ("mutations.py", "mutation_by_tool.py"):
        if (root / "benchmarks" / name).is_file():  # a tree from before the move keeps them in verify/
            shutil.copy2(root / "benchmarks" / name, dest / "benchmarks" / name)
    if (root / "docs").is_dir():  # the witness tests certify the files there; test modules import docs/tables.py
        shutil.copytree(root / "docs", dest / "docs", ignore=shutil.ignore_patterns("_build", "__pycache__"))
    return placed


def _judge(copy: Path, mutant: ToolMutant, baseline: dict[str, str], limits: Limits,
           ledger: bool) -> tuple[str, str, float]:
    """``(outcome, by, cpu)`` of the runner for ``mutant`` on the (mutated) copy."""
    outcome, by, cpu = _run_tests(copy, mutant.module, mutant.path, limits)
    claims = MODULE_CLAIMS[mutant.module] if ledger else ()
    if outcome != "survived" or not claims:
        return outcome, by, cpu
    words, more = _ledger_words(copy, claims, limits)
    if words == "crash":
        return "killed", "crash (the ledger's interpreter failed)", cpu + more
    if isinstance(words, str):
        return "timeout", f"ledger {words}", cpu + more
    for claim, word in words.items():
        if word != baseline.get(claim) and word in ("refuted", "error"):
            return "killed", f"ledger:{claim} -> {word}", cpu + more
    return "survived", "", cpu + more


def _tool_job(job: tuple) -> ToolOutcome:
    """One mutant, a pure function of ``(root, mutant, baseline, limits, ledger)``: a fresh temporary copy,
    the mutation applied by cosmic-ray, the runner's verdict."""
    import cosmic_ray.plugins as plugins
    from cosmic_ray.mutating import mutate_code

    root, mutant, baseline, limits, ledger = job
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="geosched-tool-") as tmp:
        dest = Path(tmp) / "copy"
        target = copy_path(_prepare_copy(Path(root), dest), mutant.path)
        source = target.read_text()
        mutated = mutate_code(source, plugins.get_operator(mutant.operator)(), mutant.occurrence)
        if mutated is None or mutated == source:
            return ToolOutcome(mutant, "no_change", "", time.perf_counter() - begin, "")
        target.write_text(mutated)
        outcome, by, cpu = _judge(dest, mutant, baseline, limits, ledger)
    return ToolOutcome(mutant, outcome, by, time.perf_counter() - begin, _changed_line(source, mutated), cpu)


def _changed_line(before: str, after: str) -> str:
    for a, b in zip(before.splitlines(), after.splitlines()):
        if a != b:
            return f"{a.strip()} -> {b.strip()}"
    return "(lines added or removed)"


def _baseline_job(job: tuple) -> tuple[str, str, str, str]:
    """The unmutated runner of one ``(module, path)``: ``(module, path, outcome, by)``."""
    root, module, path, limits = job
    with tempfile.TemporaryDirectory(prefix="geosched-tool-") as tmp:
        dest = Path(tmp) / "copy"
        _prepare_copy(Path(root), dest)
        outcome, by, _ = _run_tests(dest, module, path, limits)
    return module, path, outcome, by


def _baseline(root: Path, mutants: list[ToolMutant], limits: Limits, ledger: bool, pool: Any) -> dict[str, str]:
    """The unmutated runs: every sampled module's tests and doctests must pass (else the campaign refuses to
    start); returns the unmutated words of the ledger claims used."""
    jobs = [(str(root), module, path, limits) for module, path in sorted({(m.module, m.path) for m in mutants})]
    for module, path, outcome, by in pool.map(_baseline_job, jobs):
        if outcome != "survived":
            raise RuntimeError(f"the unmutated runner of {module} ({path}) says {outcome} {by}: fix it first")
    claims = sorted({c for m in mutants for c in MODULE_CLAIMS[m.module]}) if ledger else []
    if not claims:
        return {}
    with tempfile.TemporaryDirectory(prefix="geosched-tool-") as tmp:
        dest = Path(tmp) / "copy"
        _prepare_copy(root, dest)
        words, _ = _ledger_words(dest, tuple(claims), limits)
    if not isinstance(words, dict):
        raise RuntimeError(f"the unmutated ledger run failed ({words}): fix it before testing mutants")
    return words


def run_tool_campaign(mutants: list[ToolMutant], *, root: str | Path | None = None, executor: Any = None,
                      limits: Limits | None = None, ledger: bool = False, progress: Any = None,
                      skip_baseline: bool = False) -> tuple[list[ToolOutcome], dict[str, str]]:
    """Run every mutant of ``mutants`` (e.g. from :func:`sample_mutants`) through its runner.

    Annotation mutants (:func:`is_annotation`) are ``equivalent`` without a run. Returns the outcomes in
    the order of ``mutants`` (whatever the ``executor``: an executor or a spec of
    :func:`geosched.executor.make_executor`) and the baseline words of the claims used.
    """
    root = Path(root).resolve() if root else Path(__file__).resolve().parent.parent
    limits = (limits or Limits()).validate()
    cache: dict = {}
    static = {m: is_annotation(root, m, cache) for m in mutants}
    dynamic = [m for m in mutants if not static[m]]
    done: dict[ToolMutant, ToolOutcome] = {}
    for m in mutants:
        if static[m]:
            done[m] = ToolOutcome(m, "equivalent", "annotation (never evaluated)", 0.0, "")
            if progress:
                progress(done[m])
    with using_executor(executor) as pool:
        baseline = _baseline(root, dynamic, limits, ledger, pool) if dynamic and not skip_baseline else {}
        for result in pool.map(_tool_job, [(str(root), m, baseline, limits, ledger) for m in dynamic]):
            done[result.mutant] = result
            if progress:
                progress(result)
    return [done[m] for m in mutants], baseline


def wilson(killed: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval (95% by default) of a proportion ``killed / n``.

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n == 0:
        return None
    p = killed / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def scores(outcomes: list[ToolOutcome]) -> dict[str, dict[str, Any]]:
    """Per module: mutants run, killed, survived, timeouts, equivalents, and the score killed / (killed +
    survived) with its 95% Wilson interval (timeouts and equivalents are in neither)."""
    out: dict[str, dict[str, Any]] = {}
    for module in TARGETS:
        mine = [o for o in outcomes if o.mutant.module == module and o.outcome != "no_change"]
        if not mine:
            continue
        killed = sum(o.outcome == "killed" for o in mine)
        survived = sum(o.outcome == "survived" for o in mine)
        out[module] = {"run": len(mine), "killed": killed, "survived": survived,
                       "timeout": sum(o.outcome == "timeout" for o in mine),
                       "equivalent": sum(o.outcome == "equivalent" for o in mine),
                       "score": killed / (killed + survived) if killed + survived else None,
                       "interval": wilson(killed, killed + survived)}
    return out


def outcomes_to_json(outcomes: list[ToolOutcome]) -> list[dict[str, Any]]:
    """JSON-ready outcomes."""
    return [{**asdict(o.mutant), "outcome": o.outcome, "by": o.by, "seconds": round(o.seconds, 1),
             "cpu_seconds": round(o.cpu_seconds, 1), "diff": o.diff} for o in outcomes]


def outcome_from_json(row: dict[str, Any]) -> ToolOutcome:
    """The inverse of :func:`outcomes_to_json` for one row (a checkpoint's)."""
    fields = ("module", "path", "operator", "occurrence", "line", "column")
    mutant = ToolMutant(*(row[f] for f in fields[:5]), row.get("column", 0))
    return ToolOutcome(mutant, row["outcome"], row["by"], float(row["seconds"]), row["diff"],
                       float(row.get("cpu_seconds", 0.0)))
