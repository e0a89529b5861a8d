"""Compiling the Coq development of ``verify/coq`` in parallel, file by file, measuring each file's CPU.

The order comes from ``coqdep`` (the files each ``.v`` file requires); independent files are compiled
side by side, on as many workers as the machine has cores (:func:`default_jobs`). A file that fails to
compile stops only the files that require it, directly or not (they are *skipped*, naming the failed
file): the rest still builds, so a broken proof costs exactly the theorems that rest on it.

A stop (:func:`stop_all`: SIGTERM or Ctrl-C reaching the command, or the program's exit) kills every process a
build of this process started, refuses new ones (:class:`BuildStopped`) and removes the build's working folders
(:func:`working_folder`); a folder is moved into the cache only by :func:`publish`, under the same lock, so the
cache holds a complete build or none.

Each run is measured (:class:`Step`): the CPU seconds of its process (user + system, from ``wait4``) and
its wall seconds. A build records them; the next build uses the recorded CPU to pick the longest chain
first (:func:`critical_paths`) and to estimate how much is left (:func:`left_fraction`), so its progress
comes from measured progress, never from a constant.

Example
-------
>>> deps = {"Model": set(), "Svf": {"Model"}, "Thm32": {"Svf", "Model"}, "Volume": {"Model"}}
>>> topological(deps)
['Model', 'Svf', 'Thm32', 'Volume']
>>> critical_paths(deps, {"Model": 1.0, "Svf": 2.0, "Thm32": 4.0, "Volume": 1.0})["Model"]
7.0
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosched import _signal_waits
from geosched.output import write_text_atomic
from geosched.verify.coq_output import axioms, development_axioms, first_error, parse_statements, statements_script

__all__ = ["Step", "LIBRARY", "default_jobs", "dependencies", "topological", "critical_paths", "run_measured",
           "compile_all", "left_fraction", "check_all", "check_libraries", "library_key", "module_of_library",
           "BuildStopped", "stop_all", "check_stopped", "working_folder", "publish"]

LIBRARY = "GeoSched"  # the logical name of verify/coq (_CoqProject: -R . GeoSched)
_SCRIPT = "GeoschedStatements"  # the statements scripts' file names (written into the build's copy only)


class BuildStopped(RuntimeError):
    """The build was stopped (:func:`stop_all`): no process may start, nothing is published."""


class _Running:
    """What this process's builds hold that must not outlive a stop: their processes and working folders."""

    lock = threading.Lock()
    stopping = threading.Event()
    processes: set[subprocess.Popen] = set()
    folders: set[Path] = set()


def _start(command: Sequence[str], cwd: Path) -> subprocess.Popen:
    with _Running.lock:  # a stop cannot slip between the check and the registration
        if _Running.stopping.is_set():
            raise BuildStopped(f"the Coq build was stopped before {command[0]} started")
        proc = subprocess.Popen(list(command), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        _Running.processes.add(proc)
        return proc


def check_stopped() -> None:
    """Raise :class:`BuildStopped` when a stop came (a build checks between its steps)."""
    if _Running.stopping.is_set():
        raise BuildStopped("the Coq build was stopped")


def working_folder(parent: Path, prefix: str) -> Path:
    """A fresh working folder of a build in ``parent``, removed by :func:`stop_all` unless :func:`publish` moved it
    first (a new build after a finished stop starts afresh: the stop is over when nothing of it is left)."""
    with _Running.lock:
        if _Running.stopping.is_set() and not _Running.processes and not _Running.folders:
            _Running.stopping.clear()
        if _Running.stopping.is_set():
            raise BuildStopped("the Coq build was stopped")
        folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
        _Running.folders.add(folder)
        return folder


def publish(folder: Path, target: Path, finish: Callable[[Path], None] | None) -> bool:
    """Release ``folder``: when no stop came, ``finish(folder)`` (write its manifest) and move it to ``target``
    (replacing an older one) under the stop's lock, else remove it; True when it was published. Without
    ``finish`` (None) the folder is only removed (a failed build is never cached)."""
    with _Running.lock:
        if finish is not None and not _Running.stopping.is_set():
            finish(folder)
            if target.exists():
                shutil.rmtree(target)
            os.replace(folder, target)
            _Running.folders.discard(folder)
            return True
    shutil.rmtree(folder, ignore_errors=True)
    with _Running.lock:  # only once it is gone: a stop waits for the registered folders, then the program may end
        _Running.folders.discard(folder)
    return False


def _kill_all() -> None:
    """Kill this process's build processes now and refuse new ones (an interrupt in a foreground build: the
    executor's shutdown must not wait for coqc to finish)."""
    with _Running.lock:
        _Running.stopping.set()
        for proc in list(_Running.processes):
            with contextlib.suppress(OSError):
                proc.kill()


def stop_all(wait_seconds: float = 30.0) -> None:
    """Stop every Coq build of this process: kill its processes (and refuse new ones), give the build threads up to
    ``wait_seconds`` to clean up after themselves, then remove the working folders still there. The cache is left
    as it was (a build is moved there complete, by :func:`publish`, or not at all). Safe from any thread; a later
    build starts afresh."""
    _kill_all()
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        with _Running.lock:
            if not _Running.folders and not _Running.processes:  # every build ended: the stop is over
                _Running.stopping.clear()
                return
        time.sleep(0.05)
    with _Running.lock:
        left, _Running.folders = set(_Running.folders), set()
    for folder in left:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _killed_on_interrupt() -> Iterator[None]:
    """Inside a pool's ``with``: an interrupt (Ctrl-C, SIGTERM as the CLI raises it) kills the processes first, so
    that the pool's shutdown does not wait for them."""
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        _kill_all()
        raise


@atexit.register
def _stop_at_exit() -> None:  # a program that ends while a background build runs leaves no coqc and no folder
    with _Running.lock:
        busy = bool(_Running.processes or _Running.folders)
    if busy:
        stop_all()


@dataclass(frozen=True)
class Step:
    """One measured process of the build: a file's coqc, or a check (coqchk, the statements, the extraction)."""

    name: str  # the module (file stem) or the check's name
    status: str  # "ok", "failed" (the process failed), "skipped" (a file it requires failed)
    cpu_seconds: float = 0.0  # user + system CPU of the process
    wall_seconds: float = 0.0
    output: str = ""  # what it printed (stdout and stderr together)
    error: str = ""  # failed: its first error; skipped: which required file failed

    def to_dict(self) -> dict[str, object]:
        """The step without its output (a manifest's per-file record)."""
        return {"name": self.name, "status": self.status, "cpu_seconds": round(self.cpu_seconds, 3),
                "wall_seconds": round(self.wall_seconds, 3), "error": self.error}


def default_jobs() -> int:
    """Workers for the build: ``$GEOSCHED_COQ_JOBS``, else the cores this process may use."""
    wanted = os.environ.get("GEOSCHED_COQ_JOBS", "")
    if wanted.isdigit() and int(wanted) >= 1:
        return int(wanted)
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def dependencies(src: Path, modules: Sequence[str]) -> dict[str, set[str]]:
    """Module -> the modules of the development it requires, as ``coqdep`` reads the files of ``src``.

    Raises
    ------
    RuntimeError
        coqdep failed (its first lines in the message).
    """
    done = subprocess.run(["coqdep", "-R", ".", LIBRARY, *(f"{m}.v" for m in modules)], cwd=src,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"coqdep failed: {(done.stderr or done.stdout).strip()[:300]}")
    found: dict[str, set[str]] = {m: set() for m in modules}
    for line in done.stdout.splitlines():
        target, colon, needs = line.partition(":")
        first = target.split()[0] if target.split() else ""
        if not colon or not first.endswith(".vo"):
            continue
        module = Path(first).stem
        if module in found:
            found[module] = {Path(p).stem for p in needs.split() if p.endswith(".vo")} & set(found) - {module}
    return found


def topological(deps: Mapping[str, set[str]]) -> list[str]:
    """The modules, each after everything it requires; ties by name (deterministic).

    Raises
    ------
    ValueError
        A cycle (coqdep would refuse it too).
    """
    order: list[str] = []
    placed: set[str] = set()
    while len(order) < len(deps):
        ready = sorted(m for m in deps if m not in placed and deps[m] <= placed)
        if not ready:
            raise ValueError(f"the Coq files require each other in a cycle: {sorted(set(deps) - placed)}")
        order.append(ready[0])
        placed.add(ready[0])
    return order


def critical_paths(deps: Mapping[str, set[str]], weights: Mapping[str, float]) -> dict[str, float]:
    """Module -> its weight plus the heaviest chain of modules that require it: started first, the longest chain
    finishes first (a module without a recorded weight counts 1)."""
    users: dict[str, set[str]] = {m: set() for m in deps}
    for module, needs in deps.items():
        for need in needs:
            users[need].add(module)
    path: dict[str, float] = {}
    for module in reversed(topological(deps)):
        path[module] = weights.get(module, 1.0) + max((path[u] for u in users[module]), default=0.0)
    return path


def left_fraction(done: Sequence[str], weights: Mapping[str, float], modules: Sequence[str]) -> float | None:
    """The share of the recorded CPU still to come (None without a recorded weight for every module)."""
    if not modules or any(m not in weights for m in modules):
        return None
    total = sum(weights[m] for m in modules)
    return 1.0 - sum(weights[m] for m in done if m in weights) / total if total > 0 else None


def run_measured(name: str, command: Sequence[str], cwd: Path, timeout: float) -> Step:
    """Run ``command`` and measure its CPU (``wait4``: this process's child alone, safe beside other threads).

    A process past ``timeout`` seconds is killed and ``failed`` ("ran past N s"): a hung tool is an error,
    never a verdict."""
    began = time.perf_counter()
    proc = _start(command, cwd)
    killed: list[bool] = []
    timer = threading.Timer(timeout, lambda: (killed.append(True), proc.kill()))
    timer.daemon = True
    timer.start()
    status = None
    try:
        output = proc.stdout.read().decode("utf-8", errors="replace") if proc.stdout else ""
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
        if status is None:  # interrupted here (Ctrl-C in the main thread): the process must not outlive the call
            with contextlib.suppress(OSError):
                proc.kill()
                os.waitpid(proc.pid, 0)
        if proc.stdout:
            proc.stdout.close()
        with _Running.lock:
            _Running.processes.discard(proc)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    wall = time.perf_counter() - began
    cpu = usage.ru_utime + usage.ru_stime
    if _Running.stopping.is_set():
        raise BuildStopped(f"the Coq build was stopped while {name} ran")
    if killed:
        return Step(name, "failed", cpu, wall, output, f"{' '.join(command)} ran past {timeout:g} s")
    if proc.returncode != 0:
        return Step(name, "failed", cpu, wall, output, first_error(output) or f"exit status {proc.returncode}")
    return Step(name, "ok", cpu, wall, output)


def compile_all(src: Path, deps: Mapping[str, set[str]], *, jobs: int, timeout: float,
                weights: Mapping[str, float] | None = None,
                on_file: Callable[[Step], None] | None = None) -> dict[str, Step]:
    """Compile every module of ``deps`` in ``src`` (``coqc -q -R . GeoSched M.v``), ``jobs`` at a time, each as
    soon as the files it requires are compiled, the longest recorded chain first; ``on_file`` is called with
    each file's :class:`Step` as it ends (failed and skipped files included). Returns module -> Step."""
    priority = critical_paths(deps, weights or {})
    results: dict[str, Step] = {}
    running: dict[Future, str] = {}

    def finish(step: Step) -> None:
        results[step.name] = step
        if on_file is not None:
            on_file(step)

    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="coqc") as pool, _killed_on_interrupt():
        while len(results) < len(deps):
            _skip_blocked(deps, results, running, finish)
            started = set(running.values())
            ready = [m for m in deps if m not in results and m not in started
                     and all(results.get(d) is not None and results[d].status == "ok" for d in deps[m])]
            for module in sorted(ready, key=lambda m: (-priority[m], m))[:max(1, jobs) - len(running)]:
                running[pool.submit(run_measured, module, ["coqc", "-q", "-R", ".", LIBRARY, f"{module}.v"], src,
                                    timeout)] = module
            if not running:
                continue  # only skipped files were left: the loop ends once they are recorded
            ended = _signal_waits.wait_first(list(running))  # a stop's signal may land in a worker thread
            for future in ended:
                running.pop(future)
                finish(future.result())
    return results


def _skip_blocked(deps: Mapping[str, set[str]], results: dict[str, Step], running: Mapping[Future, str],
                  finish: Callable[[Step], None]) -> None:
    """Record as skipped every module that requires a failed or skipped one (it cannot be compiled)."""
    changed = True
    while changed:
        changed = False
        for module in deps:
            if module in results or module in running.values():
                continue
            broken = sorted(d for d in deps[module] if d in results and results[d].status != "ok")
            if broken:
                cause = results[broken[0]]
                root = cause.error.partition("needs ")[2].partition(".v")[0] if cause.status == "skipped" else ""
                finish(Step(module, "skipped", error=f"needs {root or broken[0]}.v, which did not compile"))
                changed = True


def module_of_library(path: str) -> str:
    """``Coq.Arith.PeanoNat`` for ``/usr/lib/coq/theories/Arith/PeanoNat.vo`` (the standard library's logical
    name from its file), or "" for a file outside it.

    >>> module_of_library("/usr/lib/ocaml/coq/theories/Lists/List.vo")
    'Coq.Lists.List'
    >>> module_of_library("/usr/lib/ocaml/coq/user-contrib/Ltac2/Ltac2.vo")
    'Ltac2.Ltac2'
    """
    found = re.search(r"/(theories|user-contrib)/(.+)\.vo$", path)
    if not found:
        return ""
    parts = found.group(2).split("/")
    return ".".join((["Coq"] if found.group(1) == "theories" else []) + parts)


# --------------------------------------------------------------------------- the checks after compiling


def _statement_parts(compiled: Sequence[str], theorems: Mapping[str, str], definitions: Sequence[str],
                     parts: int) -> list[tuple[str, list[tuple[str, str]]]]:
    """The statements scripts: the theorems of the compiled modules spread over ``parts`` scripts (each runs in
    its own coqc, side by side), and one more with every definition's ``Print`` and ``Print Libraries``."""
    mine = [(name, module) for name, module in theorems.items() if module in compiled]
    scripts = []
    for k in range(max(1, parts)):
        share = dict(mine[k::max(1, parts)])
        if share:
            scripts.append(statements_script(compiled, share, (), libraries=False))
    printable = [d for d in definitions if d.rpartition(".")[0] in compiled]
    scripts.append(statements_script(compiled, {}, printable, libraries=True))
    return scripts


def _library_file(coqlib: Path, name: str) -> Path:
    parts = name.split(".")
    if parts[0] == "Coq":
        return coqlib / "theories" / Path(*parts[1:]).with_suffix(".vo")
    return coqlib / "user-contrib" / Path(*parts).with_suffix(".vo")


def library_key(libraries: Sequence[str], coqc_version: str) -> str | None:
    """SHA-256 of the standard-library files the development loads (and coqc's version): the key of their
    ``coqchk`` (they change only with the installation); None when one of them cannot be read."""
    where = subprocess.run(["coqc", "-where"], capture_output=True, text=True, timeout=60, check=False).stdout.strip()
    digest = hashlib.sha256(coqc_version.encode())
    for name in sorted(libraries):
        try:
            digest.update(b"\0" + name.encode() + b"\0" + _library_file(Path(where), name).read_bytes())
        except OSError:
            return None
    return digest.hexdigest()


def check_libraries(libraries: Sequence[str], coqc_version: str, cache: Path | None, timeout: float,
                    cwd: Path) -> dict[str, Any]:
    """``coqchk`` of the standard-library files the development loads (not ``GeoSched``'s: those are checked with
    the build), read from ``cache`` when this installation's files were checked before on this machine (the same
    files, byte for byte: repeated work, not less checking)."""
    outside = [lib for lib in libraries if not lib.startswith(f"{LIBRARY}.")]
    if not outside:
        return {"status": "failed", "error": "no library list (the statements script did not finish)",
                "cpu_seconds": 0.0, "checked": "not checked"}
    key = library_key(outside, coqc_version)
    record = cache / f"stdlib-{key[:16]}.json" if cache is not None and key else None
    if record is not None and record.is_file():
        with contextlib.suppress(OSError, ValueError):
            known = json.loads(record.read_text(encoding="utf-8"))
            if known.get("key") == key and known.get("status") == "ok":
                return {**known, "checked": f"earlier on this machine (stdlib {key[:16]})", "cpu_seconds": 0.0}
    step = run_measured("coqchk (standard library)", ["coqchk", "-silent", "-o", *outside], cwd, timeout)
    found = {"key": key, "status": step.status, "error": step.error, "libraries": len(outside),
             "axioms": axioms(step.output) if step.status == "ok" else "", "cpu_seconds": round(step.cpu_seconds, 3)}
    if record is not None and step.status == "ok":
        write_text_atomic(record, json.dumps(found, indent=1) + "\n")
    return {**found, "checked": "this build"}


def check_all(src: Path, compiled: Sequence[str], theorems: Mapping[str, str], definitions: Sequence[str], *,
              jobs: int, timeout: float, coqc_version: str, library_cache: Path | None,
              extra: Sequence[tuple[str, Callable[[], Step]]] = (),
              on_step: Callable[[Step], None] | None = None) -> dict[str, Any]:
    """The checks of the compiled modules, side by side on ``jobs`` workers: the statements scripts (``Check``,
    ``Print Assumptions`` of every theorem, ``Print`` of every definition), ``coqchk`` of every compiled module
    (``-norec``: each checked once, the libraries they load admitted there and checked by
    :func:`check_libraries` as soon as the statements script has listed them), and the ``extra`` steps (the
    extraction). Returns the manifest's record."""
    scripts = _statement_parts(compiled, theorems, definitions, jobs)
    record: dict[str, Any] = {"statements": [{"queries": queries} for _, queries in scripts], "steps": {}}
    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="coq-check") as pool, _killed_on_interrupt():
        pending: dict[Future, str] = {}
        for k, (script, _) in enumerate(scripts):
            (src / f"{_SCRIPT}{k}.v").write_text(script, encoding="utf-8")
            pending[pool.submit(run_measured, f"statements {k + 1} of {len(scripts)}",
                                ["coqc", "-q", "-R", ".", LIBRARY, f"{_SCRIPT}{k}.v"], src, timeout)] = f"s{k}"
        modules = [arg for m in compiled for arg in ("-norec", f"{LIBRARY}.{m}")]
        pending[pool.submit(run_measured, "coqchk", ["coqchk", "-silent", "-o", "-R", ".", LIBRARY, *modules], src,
                            timeout)] = "coqchk"
        for name, task in extra:
            pending[pool.submit(task)] = name
        while pending:
            ended = _signal_waits.wait_first(list(pending))
            for future in ended:
                which = pending.pop(future)
                result = future.result()
                if which == "stdlib":
                    record["stdlib"] = result
                    continue
                record["steps"][result.name] = result.to_dict()
                if on_step is not None:
                    on_step(result)
                if which.startswith("s"):
                    part = record["statements"][int(which[1:])]
                    part.update(output=result.output, status=result.status, error=result.error)
                    libraries = parse_statements(result.output, part["queries"])["libraries"]
                    if any(kind == "libraries" for kind, _ in part["queries"]):
                        pending[pool.submit(check_libraries, libraries, coqc_version, library_cache, timeout,
                                            src)] = "stdlib"
                elif which == "coqchk":
                    record["coqchk"] = {"status": result.status, "error": result.error,
                                        "axioms": development_axioms(result.output) if result.status == "ok" else []}
    if record["coqchk"]["status"] != "ok":  # which module the kernel rejects: one coqchk each, only on a failure
        record["coqchk"]["rejected"] = {}
        for module in compiled:
            alone = run_measured(module, ["coqchk", "-silent", "-R", ".", LIBRARY, "-norec", f"{LIBRARY}.{module}"],
                                 src, timeout)
            if alone.status != "ok":
                record["coqchk"]["rejected"][module] = alone.error
    return record
