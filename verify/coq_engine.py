"""The Coq development of ``verify/coq`` as a program: built, checked, extracted and run.

``verify/coq`` proves, for every ``n``, every ``M`` and every instance, the volume identity,
Prop. 3.1, Lemma A.2 (peak-mass form) and Thm. 3.2 of Kong, Qi, Ye, Zhou (arXiv 2606.22327)
for a Coq function ``svf`` (strict head-of-line SVF with the forward-looking check, bursts,
ties by position). This module links that development to the package:

* :func:`build` compiles every ``.v`` file with the development's own ``build.sh``, which runs
  ``Check`` and ``Print Assumptions`` on every ``Theorem`` and ``Corollary`` (:data:`THEOREMS`, read
  from the sources) and ``coqchk`` on the compiled library; the statements and assumptions are parsed
  from coqc's raw output by :mod:`geosched.verify.coq_output` on every read, so a ledger row compares
  the statement it relies on with what coqc printed; it extracts the engine's functions to OCaml
  (``Extract.v``) and compiles them with ``engine/main.ml`` into one executable, which runs only while
  each ``*_engine_eq`` is closed and states what :data:`ENGINE_THEOREMS` records. Everything
  goes to a cache folder keyed by the SHA-256 of the sources and the ``coqc`` and ``ocamlopt``
  versions (``$GEOSCHED_COQ_CACHE``, else ``$XDG_CACHE_HOME/geosched/coq``, else
  ``~/.cache/geosched/coq``), never into the source tree; a later call with the same key
  reads the cache (``from_cache=True``) and says so.
* :func:`simulate_coq` runs the extracted SVF on a burst instance; :func:`run_batch` sends
  many instances (and schedules to check) to one process.

The executable runs ``svf_engine``, ``sjf_engine``, ``tel_engine`` and ``feasibleb_engine``
(``verify/coq/SvfEngine.v``), proved equal to ``svf``, ``sjf``, ``tel`` and ``feasibleb`` on
every input (``svf_engine_eq`` ...): the placement jumps between events instead of stepping
through time (SvfJump.v), so its cost depends on the number of requests and the batch size,
not on the lengths. ``nat`` is extracted to Zarith's arbitrary-precision integers (Debian
package ``libzarith-ocaml-dev``; ``Extract.v`` states the trusted mapping): no value can
overflow. Without Zarith the proofs still build and are checked; only the engine is unavailable.

Work is bounded before it starts: :func:`estimate_work` bounds the element visits from the
instance, and a run past ``work_limit`` (default :data:`WORK_LIMIT`; ``--coq-work-limit``)
is refused in one line; the process runs under ``time_limit`` seconds (default
:data:`TIME_LIMIT`; ``--coq-time-limit``), and a run past it is a
:class:`~geosched.errors.TimeLimitError`.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> if coq_available():  # doctest: +SKIP
...     simulate_coq(burst_instance(12, [(6, 3), (1, 5)]))
{'r0': 5, 'r1': 0}
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from geosched.errors import SolverError, TimeLimitError, ValidationError
from geosched.output import write_text_atomic
from geosched.progress import note, stage, staged
from geosched.reference_impl.model import Instance
from geosched.results import Result
from geosched.verify import coq_compile, coq_output, coq_pinned

__all__ = ["COQ_DIR", "THEOREMS", "ENGINE_THEOREMS", "CoqBuild", "CoqRun", "coq_available", "missing_tools",
           "engine_missing", "source_hash", "cache_root", "build", "run_batch", "simulate_coq", "burst_lengths",
           "estimate_work", "batch_bound", "WORK_LIMIT", "TIME_LIMIT", "Differential", "differential",
           "probe_schedules", "unary_arithmetic"]

COQ_DIR = Path(__file__).resolve().parent / "coq"
# every citable theorem (a `Theorem` or `Corollary` of verify/coq) -> its module (file): read from the sources,
# never kept by hand; build.sh checks each of them (Print Assumptions), and a ledger row cites them by statement
THEOREMS: dict[str, str] = coq_output.declared_theorems(COQ_DIR)
# the executable runs these functions: it runs only while each is proved equal to the model's (svf, sjf, ...), with
# the statement (and the definitions it reaches) that the pinned file (verify/coq/statements.txt) records for it
ENGINE_THEOREMS: tuple[str, ...] = ("svf_engine_eq", "sjf_engine_eq", "tel_engine_eq", "feasibleb_engine_eq")
BUILD_FORMAT = 4  # bump when the build procedure or the manifest changes (part of the cache key)
WORK_LIMIT = 5 * 10**7  # default bound on estimate_work: 1 to 7 million units a second measured (benchmarks/RESULTS.md)
TIME_LIMIT = 50.0  # default seconds the engine process may run
_MAX_BITS = 4096  # the driver reads decimal numbers (Python writes at most 4300 digits by default)
CLOSED = coq_output.CLOSED
BINARY = "geosched-coq"
EXTRACTED = "geosched_coq.ml"
_BUILD_TIMEOUT_S = 7200  # a hung coqc is an error after this long, never a verdict
# nat operations that must not run as unary recursions in the extracted code (Extract.v maps them)
_ARITHMETIC = ("add", "mul", "sub", "max", "min", "leb", "ltb", "eqb", "compare", "div", "modulo", "pow", "divmod")
_UNARY_CASE = "(fun fO fS n ->"  # ExtrOcamlNatInt's case analysis on an int-as-nat
_BUILD_OUTPUTS = shutil.ignore_patterns("*.vo", "*.vok", "*.vos", "*.glob", ".*.aux", "__pycache__", "Makefile*",
                                        ".lia.cache", "Assumptions.out", "Assumptions.v", "geosched_coq.ml*")
_BUILT_THIS_PROCESS: set[str] = set()  # source hashes compiled by this process (not read from the cache)
_NO_ZARITH = "zarith not installed (Debian package libzarith-ocaml-dev): the engine is not linked"


@dataclass(frozen=True)
class CoqBuild(Result):
    """One build of the Coq development (compiled now or read from the build cache)."""

    STATUSES = ("ok", "partial", "failed", "unavailable", "not_built")
    SUCCESS = ("ok",)

    status: str  # "ok": every file compiled and checked; "partial": some file did not compile (the rest was checked);
    #              "failed": nothing could be checked; "unavailable": no coqc; "not_built": cached_only, not cached
    message: str  # one line
    wall_time: float  # seconds this call took
    source_hash: str = ""  # SHA-256 of the sources, the tools' versions and the build method
    coqc_version: str = ""  # first line of `coqc --version`
    theorems: dict[str, bool] = field(default_factory=dict)  # theorem -> Print Assumptions says closed
    assumptions: dict[str, str] = field(default_factory=dict)  # theorem -> Print Assumptions output
    statements: dict[str, str] = field(default_factory=dict)  # theorem -> its normalised `Check` (coq_output)
    definitions: dict[str, str] = field(default_factory=dict)  # Module.name -> its normalised `Print`
    coqchk: bool = False  # coqchk accepted every compiled module (and the standard library they load)
    coqchk_axioms: str = ""  # the axioms coqchk -o found in the development ("<none>")
    coqchk_rejected: dict[str, str] = field(default_factory=dict)  # module -> coqchk's error, when it rejects one
    from_cache: bool = False  # read from the build cache rather than compiled by this call
    built_this_run: bool = False  # compiled by this process (this call or an earlier one)
    build_seconds: float | None = None  # wall seconds of the whole build (compiling and checking)
    coqc_seconds: float | None = None  # of those, the wall seconds until the last file compiled
    cpu_seconds: float | None = None  # CPU seconds of every process of the build (coqc, coqchk, the extraction)
    lines_of_coq: int = 0  # lines of the .v files (Extract.v included)
    directory: str = ""  # the cache folder (compiled library under src/, the executable)
    failed_step: str = ""  # "failed": which step ("coqdep", "coqc", "statements")
    lock_wait_seconds: float = 0.0  # of wall_time, seconds spent waiting for another process's build lock
    engine: bool = False  # the executable was linked (needs Zarith; the proofs do not)
    modules: dict[str, bool] = field(default_factory=dict)  # the modules that compiled
    failed_files: dict[str, str] = field(default_factory=dict)  # module -> why it did not compile (or was skipped)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # module -> its coqc step (CPU, wall, status)

    def closed(self, theorem: str) -> bool:
        """``theorem`` compiled, closed under the global context, in a module coqchk accepted."""
        module = THEOREMS.get(theorem, "")
        return (self.status in ("ok", "partial") and self.coqchk and self.theorems.get(theorem, False)
                and module not in self.coqchk_rejected)

    def provenance(self) -> str:
        """``compiled this run`` or ``build cache <hash>``: where the theorems' status comes from."""
        return "compiled this run" if self.built_this_run else f"build cache {self.source_hash[:16]}"


@dataclass(frozen=True)
class CoqRun:
    """The extracted program's answer on one instance (and on the schedules sent with it)."""

    starts: tuple[int, ...]  # Coq svf, aligned with the requests (arrival subtracted)
    tel: int  # Coq tel of those starts
    feasible: bool  # Coq feasibleb of those starts
    checks: tuple[bool, ...] = ()  # Coq feasibleb of each schedule sent
    tels: tuple[int, ...] = ()  # Coq tel of each schedule sent
    sjf: tuple[int, ...] = ()  # Coq sjf (SjfFamily.v: the same placement by output length), aligned likewise


# --------------------------------------------------------------------------- tools and the cache key


def missing_tools() -> list[str]:
    """The programs the build needs that are not on ``PATH`` (``coqc``, ``coqchk``, ``ocamlopt``)."""
    return [tool for tool in ("coqc", "coqchk", "ocamlopt") if shutil.which(tool) is None]


def coq_available() -> bool:
    """``coqc``, ``coqchk`` and ``ocamlopt`` are installed (Debian: ``coq``, which brings OCaml)."""
    return not missing_tools()


@functools.lru_cache(maxsize=1)
def _zarith_dir() -> Path | None:
    """The folder of Zarith's native library (``zarith.cmxa``), found with ``ocamlfind`` or under
    ``ocamlopt -where``; None when it is not installed (Debian: ``libzarith-ocaml-dev``)."""
    found = []
    if shutil.which("ocamlfind"):
        found.append(_version(["ocamlfind", "query", "zarith"]))
    if shutil.which("ocamlopt"):
        found.append(str(Path(_version(["ocamlopt", "-where"])) / "zarith"))
    for folder in found:
        if folder and (Path(folder) / "zarith.cmxa").is_file() and (Path(folder) / "z.cmi").is_file():
            return Path(folder)
    return None


def engine_missing() -> list[str]:
    """What the extracted engine needs beyond :func:`missing_tools`: Zarith's native library
    (the Coq ``nat`` is extracted to its integers). The proofs build without it."""
    return [] if _zarith_dir() is not None else ["zarith (Debian package libzarith-ocaml-dev)"]


def _version(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({type(exc).__name__})"
    return " ".join(done.stdout.split("\n")[0].split())


@functools.cache
def _tool_version(*command: str) -> str:
    """:func:`_version`, asked once per process (``coqc --version`` alone takes 0.1-0.2 s, and the
    cache key is computed on every engine call)."""
    return _version(list(command))


def _sources(root: Path = COQ_DIR) -> list[Path]:
    """Every file the build reads: the .v files (not Assumptions.v, which build.sh generates in place),
    _CoqProject, engine/*.ml (build.sh is not one: the build is coq_compile's, part of the key)."""
    files = [p for p in root.glob("*.v") if p.name != "Assumptions.v"]
    files += [p for p in (root / "_CoqProject",) if p.exists()]
    files += list((root / "engine").glob("*.ml"))
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def source_hash(root: Path = COQ_DIR) -> tuple[str, str]:
    """``(sha256 hex, coqc version)``: the build cache's key: the sources, the tools' versions (and Zarith's),
    the build procedure and the code that reads coqc's output (:mod:`geosched.verify.coq_output`)."""
    coqc = _tool_version("coqc", "--version")
    digest = hashlib.sha256()
    for path in _sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(coqc.encode() + b"\0" + _tool_version("ocamlopt", "-version").encode())
    zarith = _zarith_dir()  # whether the engine can be linked, and against which Zarith
    meta = zarith / "META" if zarith is not None else None
    digest.update(b"\0" + (meta.read_bytes() if meta is not None and meta.is_file() else str(zarith).encode()))
    # what a build records depends on the procedure and on the code that reads coqc's output too
    # the build method (coq_compile: a build from another branch with other scripts never shares a folder)
    for method in (coq_output, coq_compile):
        digest.update(Path(method.__file__).read_bytes())
    digest.update(json.dumps([BUILD_FORMAT]).encode())
    return digest.hexdigest(), coqc


def cache_root() -> Path:
    """``$GEOSCHED_COQ_CACHE``, else ``$XDG_CACHE_HOME/geosched/coq``, else ``~/.cache/geosched/coq``."""
    if os.environ.get("GEOSCHED_COQ_CACHE"):
        return Path(os.environ["GEOSCHED_COQ_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "geosched" / "coq"


def _lines_of_coq(root: Path = COQ_DIR) -> int:
    """Lines of the ``.v`` files of ``root`` (Extract.v included)."""
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in root.glob("*.v"))


@contextlib.contextmanager
def _locked(path: Path, what: str = "the Coq build lock") -> Iterator[list[float]]:
    """Hold ``path``'s lock; yields ``[seconds waited for it]``. A process that must wait says so first, in
    one line on stderr: what it waits for, and which process holds it since when (the holder writes its
    pid and the UTC time it took the lock into the file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    waited = [0.0]
    with open(path, "a+") as handle:  # "a+": a waiter must not erase the holder's line
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            print(f"geosched: waiting for {what} {path} (held by {holder}); "
                  f"waiting since {time.strftime('%H:%M:%S', time.gmtime())} UTC", file=sys.stderr, flush=True)
            began = time.perf_counter()
            fcntl.flock(handle, fcntl.LOCK_EX)
            waited[0] = time.perf_counter() - began
        handle.truncate(0)
        handle.write(f"process {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC\n")
        handle.flush()
        try:
            yield waited
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- building


def build(force: bool = False, *, cached_only: bool = False,
          on_progress: Callable[[int, int], None] | None = None) -> CoqBuild:
    """Compile, check and extract the Coq development, or read it from the build cache.

    Safe to call from any thread (it starts processes only); a background build (the ledger's) passes
    ``on_progress`` and then changes no progress line itself.

    Parameters
    ----------
    force : bool
        Rebuild even when the cache holds a build for these sources and this ``coqc``.
    cached_only : bool
        Never compile: read the cache, else return ``status="not_built"`` at once (``geosched claims --quick``);
        it never waits for another process's build (the cache is written by an atomic rename).
    on_progress : callable (steps done, steps in all), optional
        Called as each step ends: each file's coqc, then each check (the statements, coqchk, the extraction).
        When given, :func:`build` neither sets the progress stage nor prints a note.

    Returns
    -------
    CoqBuild
        ``status`` ``ok`` (every file compiled; each theorem's statement, ``Print Assumptions`` and ``coqchk``
        recorded), ``partial`` (a file failed to compile: the files that do not need it were built and checked;
        ``failed_files`` names them), ``failed`` (the build could not start or check anything), ``unavailable``
        (a tool is missing) or ``not_built``. ``closed(theorem)`` says whether a theorem compiled, closed under
        the global context, in modules ``coqchk`` accepted; ``from_cache`` and :meth:`CoqBuild.provenance` say
        where it came from.
    """
    started = time.perf_counter()
    missing = missing_tools()
    if missing:
        return CoqBuild("unavailable", f"{', '.join(missing)} not installed (Debian package coq)",
                        time.perf_counter() - started)
    digest, coqc = source_hash()
    root = cache_root()
    target = root / digest[:16]
    cached = None if force else _read_manifest(target, digest)
    if cached is not None or cached_only:
        if cached is None:
            return CoqBuild("not_built", f"no build of these sources ({digest[:16]}) in {root}",
                            time.perf_counter() - started, source_hash=digest, coqc_version=coqc)
        return _from_manifest(cached, target, digest, time.perf_counter() - started, from_cache=True)
    with _locked(root / f"{digest[:16]}.lock") as waited:
        cached = None if force else _read_manifest(target, digest)  # built by another process meanwhile
        if cached is not None:
            return replace(_from_manifest(cached, target, digest, time.perf_counter() - started, from_cache=True),
                           lock_wait_seconds=waited[0])
        if on_progress is None:
            note(f"compiling the Coq proofs once ({len(_modules_of(COQ_DIR))} files on {coq_compile.default_jobs()} "
                 f"workers; cached in {target})")
            with staged("compiling the Coq proofs (once)"):
                data = _build_into(target, digest, coqc, _StageLine(root))
        else:
            data = _build_into(target, digest, coqc, on_progress)
    return replace(_from_manifest(data, target, digest, time.perf_counter() - started, from_cache=False),
                   lock_wait_seconds=waited[0])


class _StageLine:
    """The progress stage of a build in the foreground: steps done of all, and the time left at the rate measured
    so far, weighted by each file's CPU in the last build on this machine when it recorded every file."""

    def __init__(self, root: Path, clock: Callable[[], float] = time.perf_counter) -> None:
        self.weights = recorded_weights(root)
        self.clock = clock
        self.began = clock()
        self.done: list[str] = []

    def __call__(self, done: int, total: int, name: str = "") -> None:
        self.done.append(name)
        modules = list(self.weights) if self.weights else []
        left = coq_compile.left_fraction(self.done, self.weights, modules) if modules else None
        left = 1.0 - done / total if left is None else left
        elapsed = self.clock() - self.began
        rate = f", about {_minutes(elapsed * left / (1.0 - left))} left at this rate" if 0.0 < left < 1.0 else ""
        stage(f"compiling the Coq proofs (once): {done}/{total} steps{rate}")


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def recorded_weights(root: Path | None = None) -> dict[str, float]:
    """Module -> the CPU seconds its coqc took in the newest build recorded in the cache on this machine (of any
    sources): what a build's progress estimate and its order are weighted by; empty when none is recorded."""
    newest: tuple[float, dict[str, float]] = (0.0, {})
    for manifest in (root or cache_root()).glob("*/build.json"):
        with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
            files = json.loads(manifest.read_text(encoding="utf-8")).get("files") or {}
            weights = {m: float(f["cpu_seconds"]) for m, f in files.items() if f.get("status") == "ok"}
            if weights and manifest.stat().st_mtime > newest[0]:
                newest = (manifest.stat().st_mtime, weights)
    return newest[1]


def expected_files() -> list[tuple[str, float | None]]:
    """Each ``.v`` file the build compiles, by name, with the CPU seconds its coqc took in the newest build
    recorded on this machine (None when none is recorded): for a progress estimate weighted by measured cost."""
    weights = recorded_weights()
    return [(module, weights.get(module)) for module in _modules_of(COQ_DIR)]


def _modules_of(root: Path) -> list[str]:
    """The modules the build compiles: every ``.v`` file but ``Extract.v`` (compiled by the extraction step)."""
    return sorted(p.stem for p in root.glob("*.v") if p.name not in ("Extract.v", "Assumptions.v"))


def _read_manifest(target: Path, digest: str) -> dict[str, Any] | None:
    try:
        data = json.loads((target / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("source_hash") != digest or (data.get("engine", True) and not (target / BINARY).exists()):
        return None
    return data


def _from_manifest(data: dict[str, Any], target: Path, digest: str, wall: float, *, from_cache: bool) -> CoqBuild:
    names = ("status", "message", "coqc_version", "coqchk", "coqchk_axioms", "build_seconds", "coqc_seconds",
             "cpu_seconds", "lines_of_coq", "failed_step", "engine", "modules", "failed_files", "coqchk_rejected")
    keep = {k: data[k] for k in names if k in data}
    keep.update(_theorem_fields(data.get("statements") or []))  # parsed now, from coqc's own words
    keep["files"] = {m: f for m, f in (data.get("files") or {}).items()}
    return CoqBuild(wall_time=wall, source_hash=digest, from_cache=from_cache,
                    built_this_run=digest in _BUILT_THIS_PROCESS, directory=str(target), **keep)


def _theorem_fields(parts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``theorems``, ``assumptions``, ``statements`` and ``definitions`` of a build, parsed from the raw output of
    its statements scripts (each with its queries)."""
    fields: dict[str, dict[str, Any]] = {"theorems": {}, "assumptions": {}, "statements": {}, "definitions": {}}
    for part in parts:
        parsed = coq_output.parse_statements(part.get("output", ""), [tuple(q) for q in part.get("queries", [])])
        fields["theorems"].update(parsed["closed"])
        fields["assumptions"].update(parsed["assumptions"])
        fields["statements"].update(parsed["statements"])
        fields["definitions"].update(parsed["definitions"])
    return fields


def _build_into(target: Path, digest: str, coqc: str, on_progress: Callable[..., None]) -> dict[str, Any]:
    """Build in a fresh folder next to ``target`` and move it into place when every file compiled; returns the
    manifest (a build with a failed file is reported, never cached: the next call tries again). A stop
    (SIGTERM, Ctrl-C, the program's exit: :func:`coq_compile.stop_all`) kills its processes and removes the
    folder; the cache keeps what it had."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = coq_compile.working_folder(target.parent, f".{digest[:16]}.")
    data: dict[str, Any] = {"status": "stopped"}
    try:
        shutil.copytree(COQ_DIR, work / "src", ignore=_BUILD_OUTPUTS)
        coq_compile.check_stopped()
        data = _compile_and_check(work / "src", work, coqc, on_progress, library_cache=target.parent)
        data.update(source_hash=digest, coqc_version=coqc, lines_of_coq=_lines_of_coq())
    finally:  # published only when complete; removed otherwise (an exception or a stop included)
        manifest = json.dumps(data, indent=1) + "\n"

        def finish(folder: Path) -> None:
            write_text_atomic(folder / "build.json", manifest)

        published = coq_compile.publish(work, target, finish if data["status"] == "ok" else None)
    if data["status"] == "ok" and not published:
        raise coq_compile.BuildStopped("the Coq build was stopped before it was cached")
    if published:
        _BUILT_THIS_PROCESS.add(digest)
    return data


def _compile_and_check(src: Path, work: Path | None, coqc: str, on_progress: Callable[..., None] | None,
                       library_cache: Path | None) -> dict[str, Any]:
    """Compile the copy ``src`` (in parallel, what still builds), then check it (statements, ``Print
    Assumptions``, coqchk) and, with ``work``, extract and link the engine there: the manifest."""
    began = time.perf_counter()
    modules = _modules_of(src)
    jobs = coq_compile.default_jobs()
    try:
        deps = coq_compile.dependencies(src, modules)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        return {"status": "failed", "message": f"coqdep: {exc}", "failed_step": "coqdep"}
    coq_compile.check_stopped()
    total = len(deps) + jobs + 2 + (work is not None)  # the files, the statements scripts, coqchk, the extraction
    done: list[int] = [0]

    def tick(step: coq_compile.Step) -> None:
        done[0] += 1
        if on_progress is not None:
            on_progress(done[0], total, step.name) if isinstance(on_progress, _StageLine) \
                else on_progress(done[0], total)

    files = coq_compile.compile_all(src, deps, jobs=jobs, timeout=_BUILD_TIMEOUT_S, weights=recorded_weights(),
                                    on_file=tick)
    coqc_wall = time.perf_counter() - began
    compiled = [m for m in coq_compile.topological(deps) if files[m].status == "ok"]
    extra = [("extraction", lambda: _extract_and_compile(src, work))] if work is not None else []
    checks = coq_compile.check_all(src, compiled, coq_output.declared_theorems(src),
                                   coq_output.declared_definitions(src), jobs=jobs, timeout=_BUILD_TIMEOUT_S,
                                   coqc_version=coqc, library_cache=library_cache, extra=extra, on_step=tick)
    return _manifest(files, checks, compiled, coqc_wall, time.perf_counter() - began, work is not None)


def _manifest(files: dict[str, coq_compile.Step], checks: dict[str, Any], compiled: list[str], coqc_wall: float,
              wall: float, extracted: bool) -> dict[str, Any]:
    """The build's record: each file's and check's step, the statements scripts' raw output, coqchk's findings."""
    failed = {m: s.error for m, s in files.items() if s.status != "ok"}
    steps = {**{m: s.to_dict() for m, s in files.items()}, **checks["steps"]}
    coqchk, stdlib = checks.get("coqchk", {}), checks.get("stdlib", {})
    scripts_ok = all(part.get("status") == "ok" for part in checks["statements"])
    engine = checks["steps"].get("extraction", {})
    data: dict[str, Any] = {
        "files": {m: s.to_dict() for m, s in files.items()}, "statements": checks["statements"],
        "build_seconds": round(wall, 3), "coqc_seconds": round(coqc_wall, 3),
        "cpu_seconds": round(sum(s["cpu_seconds"] for s in steps.values()) + stdlib.get("cpu_seconds", 0.0), 3),
        "steps": steps, "stdlib": stdlib, "failed_files": failed,
        "coqchk": coqchk.get("status") == "ok" and stdlib.get("status") == "ok",
        "coqchk_axioms": ", ".join(coqchk.get("axioms") or []) or stdlib.get("axioms") or "unparsed",
        "coqchk_rejected": coqchk.get("rejected", {}),
        "engine": extracted and engine.get("status") == "ok" and engine.get("error") != _NO_ZARITH,
        "modules": {m: True for m in compiled}}
    parsed = _theorem_fields(checks["statements"])
    closed = sum(parsed["theorems"].values())
    if not compiled or not scripts_ok:
        broken = next((p.get("error") for p in checks["statements"] if p.get("status") != "ok"), "") or \
            next(iter(failed.values()), "")
        data.update(status="failed", failed_step="statements" if compiled else "coqc",
                    message=f"{'the statements script' if compiled else 'no file compiled'}: {broken}")
        return data
    data.update(status="ok" if not failed else "partial",
                message=(f"compiled {len(compiled)} of {len(files)} files in {wall:.1f} s ({data['cpu_seconds']:.0f} "
                         f"s CPU); {closed} of {len(parsed['theorems'])} theorems closed under the global context; "
                         f"coqchk {'passed' if data['coqchk'] else 'did not pass'} (axioms: {data['coqchk_axioms']})")
                + (f"; not compiled: {', '.join(sorted(failed))}" if failed else "")
                + ("" if data["engine"] or not extracted else f"; engine not linked: {engine.get('error') or '?'}"))
    return data


def check_sources(root: Path) -> CoqBuild:
    """Compile a copy of the Coq sources in ``root`` from clean and check it (statements, Print Assumptions,
    coqchk), in a temporary folder, without the cache or the extraction: the mutation campaign's check.

    ``status`` is ``failed`` when nothing could be checked, ``partial`` when a file did not compile (``message``
    and ``failed_files`` name it), else ``ok`` with ``theorems`` saying which theorems are closed.
    """
    started = time.perf_counter()
    if missing_tools():
        return CoqBuild("unavailable", f"{', '.join(missing_tools())} not installed (Debian package coq)",
                        time.perf_counter() - started)
    digest, coqc = source_hash(root)
    tmp = coq_compile.working_folder(Path(tempfile.gettempdir()), "geosched-coq-check-")  # removed by a stop too
    try:
        shutil.copytree(root, tmp / "src", ignore=_BUILD_OUTPUTS)
        data = _compile_and_check(tmp / "src", None, coqc, None, library_cache=cache_root())
    finally:
        coq_compile.publish(tmp, tmp, None)  # never kept
    data.update(coqc_version=coqc, lines_of_coq=_lines_of_coq(root))
    return _from_manifest(data, tmp, digest, time.perf_counter() - started, from_cache=False)


def unary_arithmetic(code: str) -> list[str]:
    r"""Arithmetic functions of extracted OCaml ``code`` that recurse on unary ``nat`` and are used.

    A definition ``let rec add ...`` whose body case-splits on ``n = 0`` is Coq's unary
    definition, exponentially slow in the values' bit length; one that no other definition
    refers to (``divmod`` behind a mapped ``div``) is dead code and allowed.

    >>> unary_arithmetic("let rec add n m = (fun fO fS n -> 0) n\nlet f x = add x x\n")
    ['add']
    >>> unary_arithmetic("let rec divmod x = (fun fO fS n -> 0) x\nlet div = fun n m -> n / m\n")
    []
    """
    code = re.sub(r"\(\*.*?\*\)", "", code, flags=re.S)  # comments name the functions too
    chunks = re.split(r"^(?=\s*let (?:rec )?\w+)", code, flags=re.M)
    found = []
    for name in _ARITHMETIC:
        own = [c for c in chunks if re.match(rf"\s*let rec {name}\b", c)]
        if not own or _UNARY_CASE not in own[0]:
            continue
        others = "".join(c for c in chunks if c is not own[0])
        if re.search(rf"(?<![\w']){name}(?![\w'])", others):
            found.append(name)
    return found


def _extract_and_compile(src: Path, work: Path) -> coq_compile.Step:
    """Extract (Extract.v), check that no arithmetic is left unary, and link the executable against Zarith, in
    ``work``: one measured step (``failed`` with :data:`_NO_ZARITH` when Zarith is not installed: the proofs build
    without it, the engine does not)."""
    extraction = coq_compile.run_measured("extraction", ["coqc", "-R", ".", "GeoSched", "Extract.v"], src,
                                          _BUILD_TIMEOUT_S)
    if extraction.status != "ok":
        return extraction
    code = (src / EXTRACTED).read_text(encoding="utf-8")
    unary = unary_arithmetic(code)
    if unary:
        return replace(extraction, status="failed", error=f"nat operations left unary in {EXTRACTED}: "
                                                          f"{', '.join(unary)} (map them in Extract.v)")
    zarith = _zarith_dir()
    if zarith is None:
        return replace(extraction, status="failed", error=_NO_ZARITH)
    for name in (EXTRACTED, EXTRACTED + "i"):
        shutil.copy(src / name, work / name)
    shutil.copy(src / "engine" / "main.ml", work / "main.ml")
    linked = coq_compile.run_measured("ocamlopt", ["ocamlopt", "-I", str(zarith), str(zarith / "zarith.cmxa"),
                                                   f"{EXTRACTED}i", EXTRACTED, "main.ml", "-o", BINARY], work,
                                      _BUILD_TIMEOUT_S)
    for pattern in ("*.cm*", "*.o"):
        for leftover in work.glob(pattern):
            leftover.unlink()
    return coq_compile.Step("extraction", linked.status, extraction.cpu_seconds + linked.cpu_seconds,
                            extraction.wall_seconds + linked.wall_seconds, error=linked.error)


# --------------------------------------------------------------------------- running the extracted SVF


def batch_bound(memory: int, prompts: Sequence[int]) -> int:
    """The most requests that can hold memory at once in a feasible schedule: each holds at least
    ``s + 1`` while it runs, so at most the largest ``k`` whose ``k`` smallest ``s + 1`` fit in ``M``.

    >>> batch_bound(10, [0, 0, 4, 9]), batch_bound(10, []), batch_bound(0, [0])
    (3, 0, 0)
    """
    total, count = 0, 0
    for prompt in sorted(prompts):
        total += prompt + 1
        if total > memory:
            break
        count += 1
    return count


def estimate_work(memory: int, lengths: Sequence[tuple[int, int]], schedules: Sequence[Sequence[int]] = (),
                  *, starts_only: bool = False) -> int:
    """Element visits of the extracted engine on one instance, estimated before it runs.

    With ``n`` requests and a batch of at most ``k + 1`` (:func:`batch_bound`): the two merge
    sorts visit ``2 n log2 n`` elements; each placement step passes over the batch a few times
    per jump, ``n (k + 1)`` in all when a start takes O(1) jumps (SvfJump.v proves at most
    ``2k + 1``; the time limit covers the rest); without ``starts_only`` the SJF placement
    again, and the feasibility check (at every finish) of the SVF starts and of each schedule,
    ``n^2`` each. Numbers past 62 bits cost one unit per 62-bit word.

    >>> estimate_work(12, [(6, 3), (1, 5)], starts_only=True)
    14
    """
    n = len(lengths)
    k = min(n, batch_bound(memory, [s for s, _ in lengths]))
    sort = 2 * n * max(1, n.bit_length())
    work = sort + n * (k + 1)
    if not starts_only:
        work = 2 * work + (len(schedules) + 1) * n * n
    biggest = max([memory, *(v for pair in lengths for v in pair), *(x for xs in schedules for x in xs)])
    return work * max(1, -(-biggest.bit_length() // 62))


Item = tuple[int, Sequence[tuple[int, int]], Sequence[Sequence[int]]]


def _encode(items: Sequence[Item]) -> str:
    out = []
    for memory, lengths, schedules in items:
        out.append(f"{memory} {len(lengths)}")
        out += [f"{s} {o}" for s, o in lengths]
        out.append(str(len(schedules)))
        out += [" ".join(map(str, xs)) if xs else "" for xs in schedules]
    return "\n".join(out) + "\n"


def _decode(text: str, items: Sequence[Item], starts_only: bool = False) -> list[CoqRun]:
    lines = text.splitlines()
    keys = ["starts"] if starts_only else ["starts", "tel", "feasible", "checks", "tels", "sjf"]
    if len(lines) != len(keys) * len(items):
        raise SolverError(f"the Coq engine printed {len(lines)} lines for {len(items)} instances")
    runs = []
    for k in range(len(items)):
        block = [line.split() for line in lines[len(keys) * k: len(keys) * (k + 1)]]
        if [b[0] if b else "" for b in block] != keys:
            raise SolverError(f"the Coq engine's output for instance {k + 1} is malformed: {lines[len(keys) * k]!r}")
        if starts_only:
            runs.append(CoqRun(tuple(map(int, block[0][1:])), 0, False))
            continue
        runs.append(CoqRun(tuple(map(int, block[0][1:])), int(block[1][1]), block[2][1] == "1",
                           tuple(v == "1" for v in block[3][1:]), tuple(map(int, block[4][1:])),
                           tuple(map(int, block[5][1:]))))
    return runs


def _ready_build() -> CoqBuild:
    result = build()
    if result.status == "unavailable":
        raise ValidationError("engine", "coq", f"needs {result.message.replace(' not installed', '')}, "
                                               "which is not installed")
    if result.status != "ok":
        raise SolverError(f"the Coq development did not build: {result.message}")
    if not result.engine:
        raise ValidationError("engine", "coq", f"needs {', '.join(engine_missing()) or 'zarith'}, which is not "
                                               "installed (the proofs build without it; the engine does not)")
    # the executable runs the *_engine functions: only their proved equalities make them svf, sjf, tel, feasibleb,
    # each closed and stating (by the pinned file, definitions included) what it is reviewed to state
    opened = [name for name in ENGINE_THEOREMS if not result.closed(name)]
    if opened:
        raise SolverError(f"the extracted engine is not proved equal to the model ({', '.join(opened)} not closed)")
    pinned = coq_pinned.read()
    printed = coq_pinned.Printed(result.statements, result.definitions, result.assumptions)
    for theorem in ENGINE_THEOREMS:  # by statement, not by name
        found = coq_pinned.problems(theorem, printed, pinned) if theorem in pinned.theorems else \
            [f"{theorem} is not pinned in {coq_pinned.PINNED_FILE.name}"]
        if found:
            raise SolverError(f"the engine's equality {theorem} is not the reviewed one: {found[0]}")
    return result


def _check_limits(work_limit: Any, time_limit: Any) -> None:
    if isinstance(work_limit, bool) or not isinstance(work_limit, int) or work_limit < 1:
        raise ValidationError("work_limit", work_limit, "must be an integer >= 1")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0 \
            or time_limit == float("inf"):
        raise ValidationError("time_limit", time_limit, "must be a finite number of seconds > 0")


def run_batch(items: Sequence[Item], *, starts_only: bool = False, work_limit: int = WORK_LIMIT,
              time_limit: float = TIME_LIMIT) -> list[CoqRun]:
    """Run the extracted program once on many instances.

    Parameters
    ----------
    items : sequence of (memory, lengths, schedules)
        ``lengths`` are ``(prompt, output)`` pairs (a burst at step 0, ties by position);
        ``schedules`` are start lists (one start per request) for Coq's ``feasibleb`` and ``tel``.
    starts_only : bool
        Only the SVF starts (``CoqRun.tel`` is then 0 and the other fields empty).
    work_limit : int
        Refuse, before running, when :func:`estimate_work` summed over the items exceeds it
        (default :data:`WORK_LIMIT`; ``--coq-work-limit`` in the CLI).
    time_limit : float
        Seconds the process may run (default :data:`TIME_LIMIT`; ``--coq-time-limit``).

    Returns
    -------
    list of CoqRun
        One per item, in order.

    Raises
    ------
    ValidationError
        No ``coqc`` or Zarith (``engine``), a value outside the model, or the estimated work past ``work_limit``.
    TimeLimitError
        The process ran past ``time_limit`` (it is killed).
    SolverError
        The development does not build, or the program failed.
    """
    _check_limits(work_limit, time_limit)
    work = 0
    for k, (memory, lengths, schedules) in enumerate(items):
        if any(len(xs) != len(lengths) for xs in schedules):
            raise ValidationError(f"items[{k}]: schedules", [len(xs) for xs in schedules],
                                  f"need one start per request ({len(lengths)})")
        values = [memory, *(v for pair in lengths for v in pair), *(x for xs in schedules for x in xs)]
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 or v.bit_length() > _MAX_BITS for v in values):
            raise ValidationError(f"items[{k}]", f"M={memory}, n={len(lengths)}",
                                  f"every value must be an int >= 0 of at most {_MAX_BITS} bits")
        work += estimate_work(memory, lengths, schedules, starts_only=starts_only)
    if work > work_limit:
        raise ValidationError("Coq engine work", work, f"the estimate must be at most the limit {work_limit} "
                                                       "(raise it with --coq-work-limit, or work_limit=)")
    if not items:
        return []
    binary = Path(_ready_build().directory) / BINARY
    command = [str(binary), *(["--starts-only"] if starts_only else [])]
    try:
        done = subprocess.run(command, input=_encode(items), capture_output=True, text=True, check=False,
                              timeout=time_limit)
    except subprocess.TimeoutExpired:
        raise TimeLimitError(f"the Coq engine ran past its time limit of {time_limit:g} s and was stopped "
                             "(raise it with --coq-time-limit, or time_limit=)") from None
    if done.returncode != 0:
        raise SolverError(f"the Coq engine failed (exit {done.returncode}): {done.stderr.strip()[:300]}")
    return _decode(done.stdout, items, starts_only)


def burst_lengths(instance: Instance) -> tuple[int, list[tuple[int, int]]]:
    """``(common arrival, [(prompt, output), ...])`` of a burst instance; a
    :class:`~geosched.errors.ValidationError` naming the first request that arrives later."""
    if not isinstance(instance, Instance):
        raise ValidationError("instance", type(instance).__name__, "must be a geosched Instance")
    requests = instance.requests
    first = requests[0].arrival if requests else 0
    for request in requests:
        if request.arrival != first:
            raise ValidationError(f"request {request.id!r}: arrival", request.arrival,
                                  f"must equal the first arrival {first}: the Coq SVF is proved for bursts")
    return first, [(r.prompt, r.output) for r in requests]


def simulate_coq(instance: Instance, *, work_limit: int = WORK_LIMIT, time_limit: float = TIME_LIMIT
                 ) -> dict[str, int]:
    """Start steps of the Coq-proved SVF (extracted) on a burst instance, keyed by id.

    Every arrival must equal the first (a burst; the starts are shifted by it), prompts are
    ``>= 0`` and outputs ``>= 1`` (the :class:`~geosched.reference_impl.model.Instance` checks).
    ``work_limit`` and ``time_limit`` are :func:`run_batch`'s.
    """
    _check_limits(work_limit, time_limit)
    first, lengths = burst_lengths(instance)
    if not lengths:
        return {}
    run = run_batch([(instance.memory, lengths, ())], starts_only=True, work_limit=work_limit,
                    time_limit=time_limit)[0]
    return {r.id: first + x for r, x in zip(instance.requests, run.starts)}


# --------------------------------------------------------------------------- Coq against Python


@dataclass(frozen=True)
class Differential:
    """The extracted Coq SVF against the Python simulator and checker on many burst instances."""

    instances: int  # instances compared
    schedules: int  # extra schedules whose feasibility and TEL were compared with the checker
    infeasible: int  # of those, how many the checker rejected (the comparison saw both answers)
    mismatches: tuple[str, ...]  # one line per disagreement (empty: they agree everywhere)


def probe_schedules(starts: Sequence[int], lengths: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Schedules around ``starts`` for the feasibility comparison: everyone at 0, the last
    starter one step earlier, everyone one step later, everyone in sequence.

    >>> probe_schedules([5, 0], [(6, 3), (1, 5)])
    [[0, 0], [4, 0], [6, 1], [0, 3]]
    """
    n = len(starts)
    last = max(range(n), key=lambda k: (starts[k], k)) if n else 0
    earlier = [max(0, x - 1) if k == last else x for k, x in enumerate(starts)]
    sequence, clock = [], 0
    for _, o in lengths:
        sequence.append(clock)
        clock += o
    return [[0] * n, earlier, [x + 1 for x in starts], sequence]


def differential(instances: Sequence[Instance]) -> Differential:
    """Run the Coq SVF (one process for all) and the Python simulator and checker on ``instances``.

    For every burst instance: the starts and the TEL of Coq's ``svf`` must equal the Python
    simulator's SVF and the checker's TEL; Coq's ``feasibleb`` must say feasible; on the
    Python starts and on :func:`probe_schedules`, Coq's ``feasibleb`` and ``tel`` must equal the
    checker's verdict and TEL; and Coq's ``sjf`` must equal the Python simulator's SJF.
    """
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate

    items, expected, sjf = [], [], []
    for instance in instances:
        first, lengths = burst_lengths(instance)
        python = [simulate(instance, "svf").starts[r.id] - first for r in instance.requests]
        sjf.append([simulate(instance, "sjf").starts[r.id] - first for r in instance.requests])
        schedules = [python, *probe_schedules(python, lengths)]
        verdicts = []
        for xs in schedules:
            report = check_schedule(instance, {r.id: first + x for r, x in zip(instance.requests, xs)})
            tel = report.metrics.tel if report.metrics is not None else None
            verdicts.append((report.feasible, tel))
        items.append((instance.memory, lengths, schedules))
        expected.append((python, verdicts))
    runs = run_batch(items)
    mismatches, infeasible = [], 0
    for k, (run, (python, verdicts)) in enumerate(zip(runs, expected)):
        where = f"instance {k} (M={items[k][0]}, {list(items[k][1])})"
        if list(run.starts) != python:
            mismatches.append(f"{where}: starts Coq {list(run.starts)} != Python {python}")
        if list(run.sjf) != sjf[k]:
            mismatches.append(f"{where}: SJF starts Coq {list(run.sjf)} != Python {sjf[k]}")
        if run.tel != verdicts[0][1] or not run.feasible:
            mismatches.append(f"{where}: Coq TEL {run.tel} feasible {run.feasible}; checker TEL {verdicts[0][1]}")
        for j, ((feasible, tel), check, coq_tel) in enumerate(zip(verdicts, run.checks, run.tels)):
            infeasible += not feasible
            if check != feasible or (tel is not None and coq_tel != tel):
                mismatches.append(f"{where}: schedule {items[k][2][j]}: Coq feasibleb {check} tel {coq_tel}; "
                                  f"checker {feasible} tel {tel}")
    return Differential(len(items), sum(len(i[2]) for i in items), infeasible, tuple(mismatches))


def pin(result: CoqBuild, path: Path | None = None) -> Path:
    """Write the pinned statements file (:mod:`geosched.verify.coq_pinned`) from a complete build: every theorem's
    statement and every definition the statements reach, as coqc printed them. Its diff is the review.

    Raises
    ------
    SolverError
        The build is not ``ok`` (a partial build would pin less than the development proves).
    """
    if result.status != "ok":
        raise SolverError(f"pinning needs a complete build, not {result.status}: {result.message}")
    printed = coq_pinned.Printed(result.statements, result.definitions, result.assumptions)
    theorems = {name: (module, result.statements[name]) for name, module in THEOREMS.items()
                if name in result.statements}
    definitions = {d: result.definitions[d] for d in coq_pinned.cited_definitions(theorems, printed)}
    target = path or coq_pinned.PINNED_FILE
    write_text_atomic(target, coq_pinned.render(theorems, definitions))
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m geosched.verify.coq_engine [--force] [--json | --statements | --pin]``: build (or read the
    cache) and report; ``--statements`` prints each theorem's normalised statement; ``--pin`` rewrites
    verify/coq/statements.txt from the build (then review its diff)."""
    import argparse

    parser = argparse.ArgumentParser(description="Build the Coq development of verify/coq and report its theorems.")
    parser.add_argument("--force", action="store_true", help="rebuild even when the cache holds this build")
    parser.add_argument("--json", action="store_true", help="print the CoqBuild as JSON")
    parser.add_argument("--statements", action="store_true", help="print THEOREM: STATEMENT per theorem")
    parser.add_argument("--pin", action="store_true", help="rewrite verify/coq/statements.txt from this build "
                                                          "(every statement and the definitions they use)")
    args = parser.parse_args(argv)
    result = build(force=args.force)
    if args.pin:
        if result.status != "ok":
            print(f"geosched: not pinned: the build is {result.status}: {result.message}", file=sys.stderr)
            return 1
        print(f"pinned {len(result.statements)} statements in {pin(result)} "
              f"(sha256 {coq_pinned.file_hash()[:16]}); review its diff")
        return 0
    if args.statements:
        for theorem, statement in result.statements.items():
            print(f"{theorem}: {statement}")
        return 0 if result.success else 1
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0 if result.success else 1
    print(f"{result.status}: {result.message}")
    print(f"sources {result.source_hash[:16]} ({result.lines_of_coq} lines of Coq), {result.coqc_version}, "
          f"{result.provenance()}, cache {result.directory or '-'}")
    for theorem, closed in result.theorems.items():
        text = result.assumptions.get(theorem, "").replace("\n", " ")
        print(f"  {'closed' if closed else 'OPEN  '}  {THEOREMS.get(theorem, '?')}.{theorem}: {text}")
    for module, why in result.failed_files.items():
        print(f"  NOT COMPILED  {module}.v: {why}")
    return 0 if result.success else 1


if __name__ == "__main__":  # pragma: no cover - the command line
    raise SystemExit(main())
