"""One-file additions, done (issue 31, item 3): a scheduler, a claim and a workload format are each added
by writing ONE new file into a copy of the repository, and the commands and suites that must see it do.

Each test copies the package sources, the tests, the docs and ``pyproject.toml`` into ``tmp_path``,
makes ``import geosched`` resolve to the copy in every process started there (a ``sitecustomize`` on
``PYTHONPATH`` that maps each package of ``pyproject.toml``'s ``package-dir`` to the copy's folder; the
first command checks where ``geosched`` was imported from), runs the command that names the new thing
once *before* the file is written (it must be unknown: the test can tell), writes the file, runs the
commands and the registry-driven tests of the suites that list such things, and compares a SHA-256 of
every file of the copy before and after: the files each addition touched are recorded in
:data:`TOUCHED` and must be exactly the new one (docs/architecture.md quotes them). Were any of the
registries a hand-written list, the new name would stay unknown and each test would fail at its first
command after the addition. A Coq lemma with the row citing it is two files (a .v file and the row's module), and
a third, the reviewed ``verify/coq/statements.txt``, for the row's Coq word to become ``proved`` (see
:data:`COQ_ADDED`); that test compiles the one new file against the checkout's compiled development, not the
copy's whole development.

Each test starts Python 4 to 6 times in its copy: about 10 s of CPU each, the Coq one 25 s (two coqc runs and the
Coq suites), 54 s for the file (benchmarks/RESULTS.md, 22.3).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SLOW = pytest.mark.slow  # about 10 s of CPU each (see above)

ROOT = Path(__file__).resolve().parents[1]
# what the suites run here read: the mapped package folders, the tests, the docs (lessons are package data,
# docs/claims.md is compared by the ledger's tests), pyproject.toml (the package-dir mapping) and the README
COPIED = ("pyproject.toml", "README.md", "geosched", "reference_impl", "theory", "verify", "adversary", "tests", "docs")
# caches a run may write; they are not sources, and neither copied nor compared
CACHES = ("__pycache__", ".pytest_cache", ".hypothesis", "_build", ".coqcache")
IGNORED = shutil.ignore_patterns(*CACHES, "*.pyc", "*.vo", "*.vok", "*.vos", "*.glob", ".*.aux")
TOUCHED: dict[str, list[str]] = {}  # addition -> the files of the copy it changed (filled by the tests)
ADDED = {"scheduler": "reference_impl/schedulers/longest_prompt.py", "claim": "theory/growth_sum.py",
         "workload format": "reference_impl/formats/tsv.py",
         "priority rule": "reference_impl/schedulers/longest_prompt_rule.py"}  # addition -> the one file it writes

# imported at start-up by every Python process whose PYTHONPATH holds its folder (the copy's commands and
# the processes those start): each package of pyproject's package-dir is found in the copy, first
SHIM = textwrap.dedent('''
    import importlib.machinery
    import importlib.util
    import os
    import sys
    import tomllib

    _ROOT = os.environ["GEOSCHED_COPY_ROOT"]
    with open(os.path.join(_ROOT, "pyproject.toml"), "rb") as _handle:
        _DIRS = tomllib.load(_handle)["tool"]["setuptools"]["package-dir"]


    class _CopyFinder:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name not in _DIRS:
                return None
            folder = os.path.join(_ROOT, _DIRS[name])
            init = os.path.join(folder, "__init__.py")
            if os.path.isfile(init):
                return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[folder])
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)  # a data folder (the lessons)
            spec.submodule_search_locations = [folder]
            return spec


    sys.meta_path.insert(0, _CopyFinder)
''')


def _hashes(root: Path) -> dict[str, str]:
    return {path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*"))
            if path.is_file() and not set(path.relative_to(root).parts) & set(CACHES) and path.suffix != ".pyc"}


class RepoCopy:
    """The repository copied into ``folder / "repo"``, with the process environment that imports it."""

    def __init__(self, folder: Path) -> None:
        self.root = folder / "repo"
        for name in COPIED:
            source = ROOT / name
            if source.is_dir():
                # links stay links: the editable install's geosched/reference_impl -> ../reference_impl (ci/
                # build_backend.py) must name the copy's folder, not freeze a second copy of the checkout's, which
                # pytest's assertion rewriter (geosched is a pytest11 plugin) would import a new module from
                shutil.copytree(source, self.root / name, ignore=IGNORED, symlinks=True)
            else:
                self.root.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, self.root / name)
        shim = folder / "shim"
        shim.mkdir()
        (shim / "sitecustomize.py").write_text(SHIM)
        path = os.pathsep.join(p for p in (str(shim), os.environ.get("PYTHONPATH", "")) if p)
        self.env = {**os.environ, "PYTHONPATH": path, "GEOSCHED_COPY_ROOT": str(self.root),
                    "PYTHONDONTWRITEBYTECODE": "1", "GEOSCHED_COQ_CACHE": str(folder / "coqcache"),
                    "GEOSCHED_NO_COQ_PREBUILD": "1"}  # the copy's suites run no Coq build (tests/conftest.py)
        self.before = _hashes(self.root)

    def python(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *args], cwd=self.root, env=self.env, capture_output=True, text=True,
                              timeout=600)

    def geosched(self, *args: str) -> subprocess.CompletedProcess:
        return self.python("-m", "geosched", *args)

    def check_imports_resolve_here(self, *modules: str) -> None:
        """``geosched`` and ``modules`` are imported from the copy (not from the checkout under test)."""
        code = ("import importlib, json, sys; "
                "print(json.dumps([importlib.import_module(m).__file__ for m in sys.argv[1:]]))")
        run = self.python("-c", code, "geosched", *modules)
        assert run.returncode == 0, run.stderr
        assert all(Path(f).is_relative_to(self.root) for f in json.loads(run.stdout)), run.stdout

    def add(self, relative: str, text: str) -> None:
        path = self.root / relative
        assert not path.exists(), relative
        path.write_text(text)

    def pytest(self, *tests: str, failing: tuple[str, ...] = ()) -> str:
        """Runs ``tests`` in the copy and checks that exactly ``failing`` failed (none by default); its output."""
        run = self.python("-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-o", "addopts=", *tests)
        output = run.stdout[-6000:] + run.stderr[-2000:]
        failed = sorted(line.split()[1] for line in run.stdout.splitlines() if line.startswith("FAILED "))
        assert run.returncode == (1 if failing else 0) and " passed" in run.stdout, output
        assert failed == sorted(failing), output
        return run.stdout

    def touched(self) -> list[str]:
        after = _hashes(self.root)
        return sorted(p for p in self.before.keys() | after.keys() if self.before.get(p) != after.get(p))


@pytest.fixture
def repo_copy(tmp_path) -> RepoCopy:
    return RepoCopy(tmp_path)


# -- a scheduler ------------------------------------------------------------------------------------
SCHEDULER = textwrap.dedent('''
    """``lpf``: longest prompt first under the forward-looking check (added by tests/test_one_file_additions.py).

    Example
    -------
    >>> from geosched.reference_impl.engine import run_scheduler
    >>> from geosched.reference_impl.model import burst_instance
    >>> run_scheduler(burst_instance(9, [(1, 2), (5, 4)]), LongestPromptFirst()).completions
    {'r0': 6, 'r1': 4}
    """

    from dataclasses import dataclass

    from geosched.reference_impl.admission import admission_step
    from geosched.reference_impl.scheduling import Capability, Decision, SchedulerState
    from geosched.reference_impl.scheduler_registry import SchedulerEntry


    @dataclass(eq=False)
    class LongestPromptFirst:
        """Waiting requests by decreasing prompt (ties: arrival, position), head-of-line, never preempting."""

        name: str = "lpf"
        clairvoyant = True  # the forward-looking check reads the outputs
        preempts = False

        def decide(self, state: SchedulerState) -> Decision:
            waiting = sorted(state.waiting, key=lambda w: (-w.prompt, w.arrival, w.position))
            running = [(r.prompt, r.start, r.start + r.output) for r in state.running]
            chosen = admission_step(state.memory, state.time, running, [(w.prompt, w.output) for w in waiting])
            return Decision(admit=tuple(waiting[k].id for k in chosen))


    SCHEDULERS = (SchedulerEntry("lpf", LongestPromptFirst, "longest prompt first",
                                 frozenset({Capability.SIMULATOR, Capability.CLAIRVOYANT})),)
''')
# M = 9, r0 = (prompt 1, output 2), r1 = (5, 4), both at step 0. By hand: lpf admits r1 first (it holds
# 6, 7, 8, 9 at steps 1..4); r0 beside it would hold 3 at step 2, 7 + 3 > 9, so it waits for r1 to end
# at step 4. (sjf, fcfs and svf start r0 first and r1 at step 1.)
WORKLOAD = ('{"format": "geosched-workload", "memory": 9}\n{"id": "r0", "arrival": 0, "prompt": 1, "output": 2}\n'
            '{"id": "r1", "arrival": 0, "prompt": 5, "output": 4}\n')


@SLOW
def test_a_scheduler_module_is_one_file(repo_copy, tmp_path):
    workload = tmp_path / "two.jsonl"  # outside the copy
    workload.write_text(WORKLOAD)
    repo_copy.check_imports_resolve_here("geosched.reference_impl.schedulers")
    before = repo_copy.geosched("simulate", str(workload), "--policy", "lpf", "--json")
    assert before.returncode == 2 and "unknown policy 'lpf'" in before.stderr, before.stderr

    repo_copy.add(ADDED["scheduler"], SCHEDULER)
    run = repo_copy.geosched("simulate", str(workload), "--policy", "lpf", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["policy"], result["starts"], result["tel"]) == ("lpf", {"r0": 4, "r1": 0}, 10)
    # the registry's suites, over every registered name (lpf among them): declarations, the CLI's choices and
    # the hunt's targets, the unknown-name message, the layering and function lengths, the new doctest
    repo_copy.pytest(
        "tests/test_scheduling.py::test_the_registry_holds_everything_and_checks_declarations",
        "tests/test_registry.py::test_argparse_choices_come_from_the_registry",
        "tests/test_simulator.py::test_unknown_names_list_the_known_ones",
        "tests/test_architecture.py",
        "tests/test_doctests.py::test_doctests[geosched.reference_impl.schedulers.longest_prompt]",
        "tests/test_doctests.py::test_doctests[geosched.reference_impl.scheduling]")
    TOUCHED["scheduler"] = repo_copy.touched()
    assert TOUCHED["scheduler"] == [ADDED["scheduler"]]


# -- a priority rule (issue 47, item 1) ----------------------------------------------------------------
RULE = textwrap.dedent('''
    """``lpf`` as a priority rule: longest prompt first, a key per request under the forward-looking check (added by
    tests/test_one_file_additions.py). The compiled evaluator runs it too (``array_keys``), so hunts can attack it.

    Example
    -------
    >>> from geosched.reference_impl.model import burst_instance
    >>> LongestPromptFirst().keys(burst_instance(9, [(1, 2), (5, 4)]), [2, 4])
    [-1, -5]
    """

    from dataclasses import dataclass

    import numpy as np

    from geosched.reference_impl.scheduling import Capability
    from geosched.reference_impl.scheduler_registry import SchedulerEntry


    @dataclass(frozen=True)
    class LongestPromptFirst:
        """Longest prompt first (ties: arrival, then position, as for every rule)."""

        name: str = "lpf"

        def parameters(self, predicted):
            return {}

        def array_keys(self, prompt, predicted):
            return -np.asarray(prompt, dtype=np.int64)

        def keys(self, instance, predicted):
            return [-r.prompt for r in instance.requests]


    SCHEDULERS = (SchedulerEntry("lpf", LongestPromptFirst, "longest prompt first",
                                 frozenset({Capability.SIMULATOR, Capability.PRIORITY_RULE, Capability.CLAIRVOYANT,
                                            Capability.FAST})),)
''')


@SLOW
def test_a_priority_rule_is_one_file(repo_copy, tmp_path):
    """The rule the review added by hand needed 5 files (two test literals and two doctests listed the four
    built-in rules); now the lists come from the registry. Same workload and hand derivation as the scheduler's."""
    workload = tmp_path / "two.jsonl"
    workload.write_text(WORKLOAD)
    repo_copy.check_imports_resolve_here("geosched.reference_impl.schedulers")
    before = repo_copy.geosched("simulate", str(workload), "--policy", "lpf", "--json")
    assert before.returncode == 2 and "unknown policy 'lpf'" in before.stderr, before.stderr

    repo_copy.add(ADDED["priority rule"], RULE)
    run = repo_copy.geosched("simulate", str(workload), "--policy", "lpf", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["policy"], result["starts"], result["tel"]) == ("lpf", {"r0": 4, "r1": 0}, 10)
    # every suite that lists rules, schedulers, targets or the CLI's choices: the registry's names, lpf among them
    repo_copy.pytest(
        "tests/test_registry.py", "tests/test_scheduling.py", "tests/test_cli.py", "tests/test_completion.py",
        "tests/test_architecture.py",
        "tests/test_doctests.py::test_doctests[geosched.reference_impl.schedulers.longest_prompt_rule]",
        "tests/test_doctests.py::test_doctests[geosched.reference_impl.policies]",
        "tests/test_doctests.py::test_doctests[geosched.reference_impl.scheduling]",
        "tests/test_doctests.py::test_doctests[geosched.adversary.targets]")
    TOUCHED["priority rule"] = repo_copy.touched()
    assert TOUCHED["priority rule"] == [ADDED["priority rule"]]


# -- a claim ------------------------------------------------------------------------------------------
CLAIM = textwrap.dedent('''
    """``ours.growth_sum``: the growth term of a request's volume, ``1 + 2 + ... + o = (o^2 + o)/2`` (Kong, Qi,
    Ye, Zhou, arXiv 2606.22327, Eq. (1); added by tests/test_one_file_additions.py).

    Example
    -------
    >>> derivation().check().status
    'proved'
    """

    import sympy as sp

    from geosched.theory.claim import Claim
    from geosched.theory.derivation import Derivation, Hypothesis, Step

    CLAIM = Claim(
        "ours.growth_sum", "Kong et al. Eq. (1), its growth term",
        "1 + 2 + ... + o = (o^2 + o)/2 for every integer o >= 1",
        "sympy: the sum equals the closed form for every integer o >= 1", "none", ("derivation",),
        order=("ours", 999))

    o = sp.Symbol("o", integer=True, positive=True)
    j = sp.Symbol("j", integer=True, positive=True)


    def derivation() -> Derivation:
        """The closed form of the growth term of the volume."""
        return Derivation(
            CLAIM.id, "geosched", "one-file addition", "1 + ... + o = (o^2 + o)/2", bound=(o**2 + o) / 2,
            hypotheses=(Hypothesis("H1", "o >= 1 is an integer",
                                   outside="none: the sum and the closed form are polynomial identities in o"),),
            steps=(Step.identity("the sum of 1..o", sp.Sum(j, (j, 1, o)), (o**2 + o) / 2,
                                 "an arithmetic progression of o terms with mean (o + 1)/2"),))
''')


# the docs' comparisons with the ledger (docs/claims.md's rows, quick and default words, docs/proved.md's papers,
# docs/theory.md's derivation words): the pages record runs; a row added since is announced as "added after the
# recorded run" with the command that records it (an AddedAfterRecord warning), not failed (issue 47, item 2)
DOCS_COMPARISONS = ("tests/test_ledger.py::test_the_printed_order_is_the_documented_order_and_total",
                    "tests/test_ledger.py::test_the_claims_doc_has_every_row",
                    "tests/test_ledger.py::test_the_docs_table_regenerates_byte_for_byte_in_the_ledger_order",
                    "tests/test_ledger.py::test_proved_md_lists_every_paper_statement_with_the_claims_md_word",
                    "tests/test_docs_claims.py::test_the_rows_table_of_claims_md_is_the_ledgers_rows",
                    "tests/test_docs_claims.py::test_the_derivation_words_of_theory_md_are_a_fresh_run",
                    "tests/test_docs_tables.py")


@SLOW
def test_a_claim_module_is_one_file(repo_copy):
    repo_copy.check_imports_resolve_here("geosched.theory")
    before = repo_copy.geosched("claims", "--quick", "--claim", "ours.growth_sum")
    assert before.returncode == 2 and "ours.growth_sum" in before.stderr, before.stderr

    repo_copy.add(ADDED["claim"], CLAIM)
    run = repo_copy.geosched("claims", "--quick", "--claim", "ours.growth_sum", "--json")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["claims"]
    assert (row["id"], row["status"]) == ("ours.growth_sum", "proved"), row
    proof = repo_copy.geosched("prove", "ours.growth_sum", "--mode", "quick")
    assert proof.returncode == 0 and "the sum of 1..o" in proof.stdout, proof.stdout + proof.stderr
    assert proof.stdout.rstrip().splitlines()[-1].startswith("Status: proved, as geosched claims --quick"), proof.stdout
    # the ledger's and the theory's suites over every row: every theory file has its row, every row is complete,
    # runnable and cites its paper, every premise says what happens outside it; the docs' comparisons pass and
    # announce the new row as added after the recorded run, naming the commands that record it
    out = repo_copy.pytest(
        "tests/test_ledger.py::test_every_theory_file_declares_its_row_and_the_ledger_has_it",
        "tests/test_ledger.py::test_every_row_says_statement_formalization_and_difference",
        "tests/test_ledger.py::test_rows_the_ledger_cannot_run_are_refused",
        "tests/test_ledger.py::test_cli_json_one_claim",
        "tests/test_theory.py::test_the_registry_finds_every_module_that_declares_a_claim",
        "tests/test_theory.py::test_docstring_cites_paper_and_numbering[ours.growth_sum]",
        "tests/test_hypotheses.py::test_every_premise_of_every_claim_says_what_happens_outside_it",
        "tests/test_doctests.py::test_doctests[geosched.theory.growth_sum]", *DOCS_COMPARISONS)
    for where, command in (("docs/claims.md quick words", "python docs/tables.py --ledger quick"),
                           ("docs/claims.md rows", "python docs/tables.py"),
                           ("docs/claims.md default words", "python docs/tables.py --ledger-run RUN.json"),
                           ("docs/theory.md derivation words", "python docs/tables.py")):
        assert f"ours.growth_sum: added after the recorded run ({where}); `" in out and command in out, where
    TOUCHED["claim"] = repo_copy.touched()
    assert TOUCHED["claim"] == [ADDED["claim"]]


# -- a workload format ------------------------------------------------------------------------------
FORMAT = textwrap.dedent('''
    """The ``tsv`` workload format (added by tests/test_one_file_additions.py): a line ``# memory M``, then
    ``"id"<TAB>arrival<TAB>prompt<TAB>output`` per request (the id as a JSON string: any id reads back).

    Example
    -------
    >>> from geosched.reference_impl.model import burst_instance
    >>> print(write(burst_instance(12, [(6, 3)])), end="")
    # memory 12
    "r0"	0	6	3
    """

    import json
    from pathlib import Path

    from geosched.errors import WorkloadFormatError
    from geosched.reference_impl.formats.registry import WorkloadFormat
    from geosched.reference_impl.jsonfile import read_text
    from geosched.reference_impl.model import Instance, Request


    def write(instance, *, step_seconds=0.025):
        rows = [f"# memory {instance.memory}"]
        rows += [f"{json.dumps(r.id)}\\t{r.arrival}\\t{r.prompt}\\t{r.output}" for r in instance.requests]
        return "\\n".join(rows) + "\\n"


    def read(path, *, memory=None, step_seconds=0.025):
        first, *rest = read_text(Path(path)).split("\\n")
        if not first.startswith("# memory "):
            raise WorkloadFormatError(f"{path}:1: expected '# memory M'")
        rows = [line.split("\\t") for line in rest if line]
        requests = [Request(json.loads(i), int(a), int(s), int(o)) for i, a, s, o in rows]
        return Instance(int(first.removeprefix("# memory ")), requests)


    FORMAT = WorkloadFormat(name="tsv", suffixes=(".tsv",), read=read, write=write,
                            description="tab-separated requests under a '# memory M' line")
''')


@SLOW
def test_a_format_module_is_one_file(repo_copy, tmp_path):
    out = tmp_path / "burst.tsv"  # outside the copy
    repo_copy.check_imports_resolve_here("geosched.reference_impl.formats")
    before = repo_copy.geosched("export", "burst:n=6,seed=2", "--format", "tsv", "--out", str(out))
    assert before.returncode == 2 and "invalid choice: 'tsv'" in before.stderr and not out.exists(), before.stderr

    repo_copy.add(ADDED["workload format"], FORMAT)
    export = repo_copy.geosched("export", "burst:n=6,seed=2", "--format", "tsv", "--out", str(out))
    assert export.returncode == 0, export.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# memory ") and len(lines) == 7 and all(len(x.split("\t")) == 4 for x in lines[1:])
    # read back through the one suffix rule: the same schedule as the generator's own instance
    runs = [repo_copy.geosched("simulate", spec, "--policy", "svf", "--json")
            for spec in (str(out), "burst:n=6,seed=2")]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    read_back, generated = (json.loads(r.stdout) for r in runs)
    for key in ("memory", "n", "tel", "starts"):
        assert read_back[key] == generated[key], key
    # the format suites over every registered format: the export's choices and suffix rule, the readers, the doctests
    repo_copy.pytest("tests/test_formats.py", "tests/test_export.py", "tests/test_completion.py",
                     "tests/test_doctests.py::test_doctests[geosched.reference_impl.formats.tsv]",
                     "tests/test_doctests.py::test_doctests[geosched.reference_impl.formats.registry]")
    TOUCHED["workload format"] = repo_copy.touched()
    assert TOUCHED["workload format"] == [ADDED["workload format"]]


# -- a Coq lemma and the row citing it (issue 47, item 1) ----------------------------------------------------------
# The lemma is Coq and the row Python: two files by nature (a row cannot live in a .v file). For the row's Coq word
# to become `proved`, a third file is needed: verify/coq/statements.txt, the reviewed record of each statement that
# every build compares coqc's output against. `python -m geosched.verify.coq_engine --pin` writes it from a build;
# it is not derived at check time, because a record written from the output it is compared with could not fail.
COQ_LEMMA = textwrap.dedent('''
    From GeoSched Require Import Model.
    From Coq Require Import List.
    Import ListNotations.

    (** A schedule with no start has TEL 0, whatever the requests (added by tests/test_one_file_additions.py). *)
    Theorem added_tel_nil : forall rs : list req, tel rs [] = 0.
    Proof. intros rs. unfold tel, tel_js. destruct rs; reflexivity. Qed.
''')
COQ_ROW = textwrap.dedent('''
    """``ours.tel_nil``: a schedule that starts no request has TEL 0 (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Sec. 2:
    TEL sums x_i + o_i - a_i over the requests), in sympy and in Coq (``added_tel_nil``; added by
    tests/test_one_file_additions.py).

    Example
    -------
    >>> derivation().check().status
    'proved'
    """

    import sympy as sp

    from geosched.theory.claim import Claim
    from geosched.theory.derivation import Derivation, Hypothesis, Step

    CLAIM = Claim(
        "ours.tel_nil", "Kong et al. Sec. 2, its TEL", "TEL of a schedule with no start is 0",
        "sympy: the empty sum is 0; Coq: added_tel_nil, every list of requests", "none",
        ("derivation", "coq:added_tel_nil"), coq_whole=("added_tel_nil",), order=("ours", 998))

    i = sp.Symbol("i", integer=True, positive=True)


    def derivation() -> Derivation:
        """TEL of no start, an empty sum."""
        return Derivation(
            CLAIM.id, "geosched", "one-file addition", "TEL of no start = 0", bound=None,
            hypotheses=(Hypothesis("H1", "TEL sums x_i + o_i - a_i over the started requests",
                                   outside="none: it is the definition of TEL"),),
            steps=(Step.identity("no started request: the empty sum", sp.Sum(i, (i, 1, 0)), 0, "no terms"),))
''')
COQ_ADDED = {"verify/coq/AddedTelNil.v": COQ_LEMMA, "theory/tel_nil.py": COQ_ROW}  # the two files it writes
# what coqc prints for the new theorem (its Check, normalised as the build records it), written here by hand
ADDED_STATEMENT = "forall rs : list Model.req, Model.tel rs nil = 0"


def _coq_tools() -> bool:
    from geosched.verify import coq_engine

    return coq_engine.coq_available()


def _compile_against_the_library(tmp_path: Path) -> dict:
    """The new .v file compiled on its own against the checkout's compiled development (the shared build cache: the
    copy's full build is what this test avoids), then the build's own statements script on it: what coqc printed
    for the theorem, parsed by the build's reader."""
    from geosched.verify import coq_engine, coq_output

    library = coq_engine.build()
    assert library.status == "ok", library.message
    folder = tmp_path / "one_file"
    folder.mkdir()
    (folder / "AddedTelNil.v").write_text(COQ_LEMMA)
    script, queries = coq_output.statements_script(["Model", "AddedTelNil"], {"added_tel_nil": "AddedTelNil"}, ())
    (folder / "Statements.v").write_text(script)
    paths = ["-R", str(Path(library.directory) / "src"), "GeoSched", "-R", ".", "GeoSched"]
    for name in ("AddedTelNil.v", "Statements.v"):
        run = subprocess.run(["coqc", "-q", *paths, name], cwd=folder, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
    return coq_output.parse_statements(run.stdout, queries)


@SLOW
@pytest.mark.coq_build  # it reads the checkout's compiled development (the shared build cache)
@pytest.mark.skipif(not _coq_tools() and os.environ.get("GEOSCHED_REQUIRE_COQ") != "1",
                    reason="coqc not installed (Debian package coq; ci/setup.sh installs it)")
def test_a_coq_lemma_and_its_row_are_two_files(repo_copy, tmp_path):
    repo_copy.check_imports_resolve_here("geosched.theory", "geosched.verify.coq_evidence")
    before = repo_copy.geosched("claims", "--quick", "--claim", "ours.tel_nil")
    assert before.returncode == 2 and "ours.tel_nil" in before.stderr, before.stderr

    for path, text in COQ_ADDED.items():
        repo_copy.add(path, text)
    # the lemma compiles against the development and is closed; coqc states it as written
    printed = _compile_against_the_library(tmp_path)
    assert printed["closed"] == {"added_tel_nil": True}, printed["assumptions"]
    assert printed["statements"] == {"added_tel_nil": ADDED_STATEMENT}
    # the row runs; its Coq evidence is unknown, never proved, until the copy's development is built and the
    # statement pinned (--quick compiles nothing)
    run = repo_copy.geosched("claims", "--quick", "--claim", "ours.tel_nil", "--json")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["claims"]
    coq = [e for e in row["evidence"] if e["method"] == "coq:added_tel_nil"]
    assert [e["status"] for e in coq] == ["unknown"] and "not in the cache" in coq[0]["message"], row
    # the suites that list theorems and rows: the theorem list and its words read from the sources, the Coq methods,
    # the pinned file's tests (a theorem not pinned yet is announced), the generated Coq tables (the new theorem and
    # its citation announced as added after the page), the ledger's and the theory's row suites, the docs'
    # comparisons; every Coq build left out (-m "not coq_build": the copy's development is not compiled)
    out = repo_copy.pytest(
        "-m", "not coq_build",
        "tests/test_coq_docs.py", "tests/test_coq_pinned.py", "tests/test_coq_statements.py",
        "tests/test_coq_ledger.py",
        "tests/test_ledger.py::test_every_theory_file_declares_its_row_and_the_ledger_has_it",
        "tests/test_ledger.py::test_every_row_says_statement_formalization_and_difference",
        "tests/test_ledger.py::test_rows_the_ledger_cannot_run_are_refused",
        "tests/test_theory.py::test_the_registry_finds_every_module_that_declares_a_claim",
        "tests/test_theory.py::test_docstring_cites_paper_and_numbering[ours.tel_nil]",
        "tests/test_hypotheses.py::test_every_premise_of_every_claim_says_what_happens_outside_it",
        "tests/test_doctests.py::test_doctests[geosched.theory.tel_nil]", *DOCS_COMPARISONS)
    assert "Coq theorems not pinned yet (added_tel_nil)" in out, out[-3000:]
    assert "added_tel_nil added after the page" in out, out[-3000:]
    TOUCHED["coq lemma + row"] = repo_copy.touched()
    assert TOUCHED["coq lemma + row"] == sorted(COQ_ADDED)


def test_the_architecture_map_quotes_these_additions():
    """docs/architecture.md's table of one-file additions names the file each test above writes, and 1 file (2 for a
    Coq lemma and its row)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    for addition, path in ADDED.items():
        assert f"| a {addition} (`{path}`) | `tests/test_one_file_additions.py` | 1 |" in text, addition
    both = ", ".join(f"`{path}`" for path in COQ_ADDED)
    assert f"| a Coq lemma and the row citing it ({both}) | `tests/test_one_file_additions.py` | 2 (" in text
