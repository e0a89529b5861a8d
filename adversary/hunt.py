"""``geosched hunt``: run the searches with checkpoints, certify the elite, write witnesses.

Files written into the output directory (every one atomically: a kill never leaves a partial
file):

* ``checkpoint.json``: every method's resumable state, rewritten every few seconds, so a kill
  loses at most that much; ``resume=True`` (``--resume``) continues from it (counts, history
  and wall time keep growing; ``time_limit`` is the budget of *this* run);
* ``witness_<method>_<k>.json``: the elite re-scored with :func:`certify` (checked witnesses);
  ``best_witness.json``: the best of them;
* ``progress.csv`` and ``progress.png``: each method's best search score against wall time (a ratio against
  the fast heuristic pool, not yet certified: the witness files hold the certified ratios);
* ``summary.json``: the result object (also printed by ``--json``);
* ``.lock`` while a hunt runs: a second hunt into the same directory is refused.

A directory that already holds a hunt is refused unless ``resume`` (continue it) or ``force``
(start over, replacing its files) is given, so an earlier result is never lost silently.

For ``svf`` on burst instances every certified ratio is compared with Kong et al.'s
Thm. 3.2 bound ``1 + 2/(1 - alpha)`` of that instance; exceeding it would refute the theorem
and is reported first, in capitals, with its witness.
"""

from __future__ import annotations

import csv
import io
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from geosched.adversary.options import HuntOptions, SearchOptions
from geosched.adversary.rounds import RoundsRun, checked_rounds_state, run_rounds
from geosched.adversary.schedules import best_witness_schedule
from geosched.adversary.search import (
    SearchResult,
    SearchSpace,
    anneal,
    candidate_to_instance,
    checked_state,
    differential_evolution_search,
)
from geosched.adversary.structured import checked_structured_state, structured_search
from geosched.adversary.targets import get_target
from geosched.adversary.witness import Witness, lower_bound_of, make_witness, write_witness
from geosched.adversary.z3search import Z3_POLICIES, z3_hunt
from geosched.errors import LimitError, ValidationError, WorkloadFormatError
from geosched.executor import SerialExecutor, parse_spec, using_executor
from geosched.output import OutputError, atomic_path, working, write_json_atomic, write_text_atomic
from geosched.progress import update
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.code_names import refuse_code_names
from geosched.reference_impl.jsonfile import read_json
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.user_schedulers import is_file_spec
from geosched.results import Result

__all__ = ["HuntResult", "HuntOptions", "SearchOptions", "hunt", "certify", "svf_theorem_bound"]

METHODS = ("anneal", "de", "z3", "structured")
ALL_METHODS = ("anneal", "de", "z3")  # what --method all runs (structured is asked for by name: it needs large M)


def svf_theorem_bound(alpha: Fraction) -> Fraction | None:
    """``1 + 2/(1 - alpha)`` (Kong et al., Thm. 3.2); None when alpha >= 1."""
    return None if alpha >= 1 else 1 + Fraction(2) / (1 - alpha)


def certify(instance, policy: str, *, found_by: str, seed: int | None, rng: Any = 0,
            time_budget: float = 5.0, exact_n: int = 10, exact_time_limit: float = 10.0) -> Witness:
    """Best witness schedule (:func:`~geosched.adversary.schedules.best_witness_schedule`) as a
    checked :class:`Witness`, with the best proved lower bound on OPT for the upper ratio.

    At block grain (the instance's ``block_size`` ``B > 1``) the schedule is searched on the token-grain
    instance with every prompt padded by ``B - 1`` tokens (``B ceil(u / B) <= u + B - 1``, so a schedule
    feasible there holds its whole blocks in ``M``), checked at block grain, and replaced by the serial
    schedule if the padding did not fit; the lower bound is the token-grain one (block-grain OPT is at
    least it), never the padded instance's optimum."""
    block = instance.block_size
    search = instance if block == 1 else _padded(instance, block)
    ws = best_witness_schedule(search, rng=rng, time_budget=time_budget, exact_n=exact_n if block == 1 else 0,
                               exact_time_limit=exact_time_limit)
    starts, source = ws.starts, ws.source
    if block > 1 and not check_schedule(instance, starts).feasible:
        starts, source = _serial_starts(instance), "serial (block grain)"
    lb, name = lower_bound_of(instance)
    if block == 1 and ws.lower_bound is not None and ws.lower_bound > lb:
        lb, name = ws.lower_bound, ws.lower_bound_name
    return make_witness(instance, policy, starts, found_by=f"{found_by}; witness: {source}", seed=seed,
                        lower_bound=(lb, name))


def _padded(instance: Instance, block: int) -> Instance:
    """Every prompt ``s`` as ``min(s + B - 1, M - o)``, at token grain: token-grain feasibility there
    bounds the blocks."""
    return Instance(instance.memory, [Request(r.id, r.arrival, min(r.prompt + block - 1, instance.memory - r.output),
                                              r.output) for r in instance.requests], block_size=1)


def _serial_starts(instance: Instance) -> dict[str, int]:
    """One request at a time, by (arrival, position): feasible whenever each request fits alone."""
    starts, t = {}, 0
    for r in sorted(instance.requests, key=lambda q: q.arrival):
        t = max(t, r.arrival)
        starts[r.id] = t
        t += r.output
    return starts


@dataclass(frozen=True)
class HuntResult(Result):
    """scipy-style summary of a hunt (``fun``: best certified ratio over all methods).

    ``status``: ``"completed"`` (the time budget was used), ``"target_reached"`` (a search
    reached ``target``) or ``"no_witness"`` (nothing was certified).
    """

    STATUSES = ("completed", "target_reached", "no_witness")
    SUCCESS = ("completed", "target_reached")

    status: str
    message: str
    wall_time: float  # seconds of search, cumulative over resumes
    x: Any  # best instance (Instance) or None
    fun: float | None  # best certified ratio, checked by the checker (None: no witness)
    nfev: int  # fitness evaluations over all methods
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)  # per-method summary
    witnesses: tuple[str, ...] = ()  # witness files written
    counterexamples: tuple[str, ...] = ()  # witness files refuting Thm 3.2
    plot: str | None = None  # progress.png (None if matplotlib is missing)
    csv: str | None = None  # progress.csv
    space: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    run_time_limit: float = 0.0  # the budget of this run (a resume adds its own)
    replays: dict[str, dict[str, Any]] = field(default_factory=dict)  # vLLM targets: witness -> replay in vLLM

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.pop("x")
        data["best_instance"] = self.x.to_dict() if self.x is not None else None
        return data


class _Progress:
    """A search's best ratio found so far and its rate, told to the command's progress reporter
    (:mod:`geosched.progress`: a line every few seconds off a terminal). The search's own evaluation found it;
    the checker certifies the witnesses only at the end (the summary's ratio may be lower), so the line says
    "not yet certified"."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def show(self, method: str, best: float, nfev: int, elapsed: float, rate: float, force: bool = False) -> None:
        if self.enabled:
            update(detail=f"best found {best:.4f} (not yet certified), {nfev} evaluations, {rate:.0f} evals/s",
                   stage=f"{method} ({elapsed:.0f} s in)")

    def done(self) -> None:
        pass


_HUNT_FILES = ("checkpoint.json", "summary.json", "best_witness.json", "progress.csv")


class _HuntDirectory:
    """The output directory: refuses to clobber an earlier hunt, locks, reads and writes the checkpoint."""

    def __init__(self, out: str | Path, *, resume: bool, force: bool) -> None:
        self.path = Path(out)
        self.checkpoint_path = self.path / "checkpoint.json"
        self.lock_path = self.path / ".lock"
        if resume and not self.checkpoint_path.is_file():
            raise WorkloadFormatError(f"--resume: no checkpoint at {self.checkpoint_path}")
        earlier = [name for name in _HUNT_FILES if (self.path / name).exists()]
        if earlier and not resume and not force:
            raise ValidationError("--out", str(self.path), f"holds an earlier hunt ({', '.join(earlier)}); pass "
                                  "--resume to continue it or --force to start over and replace it")
        self.created = not self.path.exists()  # removed again if the hunt fails before writing anything
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkloadFormatError(f"--out {self.path}: cannot create the directory ({exc.strerror})") from None

    def __enter__(self) -> _HuntDirectory:
        self.save_error: OutputError | None = None
        try:
            handle = os.open(self.lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except OSError as exc:
            if not isinstance(exc, FileExistsError):
                raise OutputError(f"--out: cannot write {self.lock_path} ({exc.strerror})") from None
            holder = self.lock_path.read_text().strip() if self.lock_path.is_file() else "?"
            if holder.isdigit() and not _process_alive(int(holder)):
                self.lock_path.unlink(missing_ok=True)  # left by a killed hunt
                return self.__enter__()
            raise ValidationError("--out", str(self.path), f"another hunt (pid {holder}) is writing into it; "
                                  f"remove {self.lock_path} if that process is gone") from None
        try:
            try:
                os.write(handle, str(os.getpid()).encode())
            finally:
                os.close(handle)
        except OSError as exc:  # a full disk: no lock without its pid
            self.lock_path.unlink(missing_ok=True)
            raise OutputError(f"--out: cannot write {self.lock_path} ({exc.strerror})") from None
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            self.lock_path.unlink(missing_ok=True)
            if exc_info[0] is not None and self.created and not any(self.path.iterdir()):
                self.path.rmdir()  # a hunt that failed before its first file leaves no empty folder
        except OSError:  # the folder became read-only: the lock names a dead pid, which the next hunt removes
            pass

    def load(self, space: SearchSpace, seed: int | None) -> dict[str, Any]:
        """The saved checkpoint, validated against ``space`` (a resume of another search is an
        error) and field by field: the saved searches' scores are recomputed, not trusted."""
        saved = read_json(self.checkpoint_path)
        where = str(self.checkpoint_path)
        # a checkpoint names the policy of its search: compared with --policy below, never run; a scheduler file
        # there only when --policy is one (the command line's is what runs)
        refuse_code_names(saved, where, own={"policy"} if is_file_spec(space.policy) else ())
        if not isinstance(saved, dict) or set(saved) - {"options"} != {"space", "seed", "methods"} \
                or not isinstance(saved["methods"], dict):
            raise WorkloadFormatError(f"{where}: not a hunt checkpoint (expected an object with exactly "
                                      "'space', 'seed', 'methods' and optionally 'options', 'methods' an object)")
        if "options" in saved:  # the options of the run that wrote it (checkpoints written before have none)
            try:
                HuntOptions.from_dict(saved["options"])
            except ValidationError as exc:
                raise WorkloadFormatError(f"{where}: {exc}") from None
        if saved["space"] != space.to_dict():
            raise ValidationError("--resume", saved["space"],
                                  f"checkpoint was made for another search space than {space.to_dict()}")
        if saved["seed"] is not None and (isinstance(saved["seed"], bool) or not isinstance(saved["seed"], int)
                                          or saved["seed"] < 0):
            raise WorkloadFormatError(f"{where}: seed must be an integer >= 0 or null, got {saved['seed']!r}")
        methods = {}
        for method, entry in saved["methods"].items():
            methods[method] = _checked_method_entry(space, method, entry, where)
        return {**saved, "methods": methods}

    def save(self, checkpoint: dict[str, Any]) -> None:
        """Write the checkpoint; a failure is said once on stderr and the search goes on (its
        results are written, or kept elsewhere, at the end)."""
        try:
            write_json_atomic(self.checkpoint_path, checkpoint)
        except OutputError as exc:
            if self.save_error is None:
                print(f"\ngeosched: warning: {exc}; the search goes on", file=sys.stderr)
            self.save_error = exc


def _checked_method_entry(space: SearchSpace, method: str, entry: Any, where: str) -> dict[str, Any]:
    """One method's saved state: ``{"kind": "search", "state": ...}`` (checked and rescored by
    :func:`~geosched.adversary.search.checked_state`), rounds of restarts (``{"kind": "rounds", ...}``,
    :func:`~geosched.adversary.rounds.checked_rounds_state`) or z3's ``{"kind": "z3", "runs": ...}``."""
    if method not in METHODS:
        raise WorkloadFormatError(f"{where}: methods.{method}: unknown method; known: {', '.join(METHODS)}")
    if method == "z3":
        return _checked_z3_entry(entry, where)
    if isinstance(entry, dict) and entry.get("kind") == "rounds":
        return checked_rounds_state(space, entry, f"{where}: methods.{method}")
    if not isinstance(entry, dict) or set(entry) != {"kind", "state"} or entry["kind"] != "search":
        raise WorkloadFormatError(f"{where}: methods.{method}: expected {{\"kind\": \"search\", \"state\": {{...}}}}")
    if method == "structured":
        return {"kind": "search", "state": checked_structured_state(space, entry["state"], f"{where}: methods")}
    return {"kind": "search", "state": checked_state(space, method, entry["state"], where)}


def _checked_z3_entry(entry: Any, where: str) -> dict[str, Any]:
    """z3's saved bisections: the shape is checked; their ratios cannot be re-verified (no
    witness is saved with them), so the hunt reports only the witnesses of this run."""
    def fail(why: str) -> WorkloadFormatError:
        return WorkloadFormatError(f"{where}: methods.z3: {why}")

    if not isinstance(entry, dict) or entry.get("kind") != "z3" or set(entry) != {"kind", "runs", "history",
                                                                                    "wall_time"}:
        raise fail('expected {"kind": "z3", "runs": [...], "history": [...], "wall_time": seconds}')
    wall_time = entry["wall_time"]
    if isinstance(wall_time, bool) or not isinstance(wall_time, (int, float)) or not 0 <= wall_time < float("inf"):
        raise fail(f"wall_time must be a finite number >= 0, got {wall_time!r}")
    runs = entry["runs"]
    if not isinstance(runs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("bounds"), dict) and isinstance(r["bounds"].get("n"), int)
            and not isinstance(r["bounds"]["n"], bool) and 1 <= r["bounds"]["n"] <= 10
            and isinstance(r.get("queries"), list)
            and (r.get("best_sat") is None or (isinstance(r["best_sat"], (int, float))
                                               and not isinstance(r["best_sat"], bool)
                                               and 0 <= r["best_sat"] < float("inf")))
            for r in runs):
        raise fail("runs must be bisection results (bounds.n in 1..10, queries, best_sat null or a number)")
    history = entry["history"]
    if not isinstance(history, list) or not all(
            isinstance(p, list) and len(p) == 3 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                      and abs(v) < float("inf") for v in p) for p in history):
        raise fail("history must be a list of [wall time, best, queries]")
    return entry


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _methods_to_run(space: SearchSpace, method: str) -> list[str]:
    methods = list(ALL_METHODS) if method == "all" else [method]
    for m in methods:
        if m not in METHODS:
            raise ValidationError("method", method, f"must be one of {', '.join(METHODS)}, all")
    z3_ok = space.arrivals == "burst" and space.policy in Z3_POLICIES
    if method == "z3" and not z3_ok:
        raise ValidationError("method", method, f"z3 models burst arrivals and policies {', '.join(Z3_POLICIES)} only")
    if not z3_ok and "z3" in methods:
        methods.remove("z3")  # --method all: the z3 share goes to the black-box searches
    return methods


def _shares(methods: list[str]) -> dict[str, float]:
    if len(methods) == 1:
        return {methods[0]: 1.0}
    return {"anneal": 0.45, "de": 0.35, "z3": 0.20} if "z3" in methods else {"anneal": 0.55, "de": 0.45}


def hunt(
    space: SearchSpace,
    options: HuntOptions | None = None,
    *,
    out: str | Path = "hunt-out",
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    executor: Any = None,
    **settings: Any,
) -> HuntResult:
    """Search for instances on which ``space.policy`` is far from optimal, with certified ratios.

    What is searched, for how long and how it is certified is one
    :class:`~geosched.adversary.options.HuntOptions` (``options``), whose fields are also
    keywords of ``hunt`` (they override ``options``); so are the search settings it passes on
    to every search (:data:`~geosched.adversary.options.HUNT_SEARCH_SETTINGS`: ``target``,
    ``ties``, ``max_groups``, ...). The options are recorded in the checkpoint.

    Parameters
    ----------
    space : SearchSpace
        Policy, number of requests, memory, ``alpha_max`` and arrivals.
    options : HuntOptions, optional
        All the settings below as one object (default: the defaults).
    out : path
        Output directory (see the module docstring for its files).
    resume, force : bool
        Continue the hunt saved in ``out``; or replace it. Without either, a used directory
        is refused.
    progress : bool
        A progress line on stderr.
    executor : concurrent.futures.Executor or str, optional
        Where the restarts run (:func:`geosched.executor.make_executor` spec: ``"serial"``,
        ``"local:N"``, ``"tcp://HOST:PORT"``); needs ``rounds``. Same result on every executor.
    **settings
        Fields of :class:`~geosched.adversary.options.HuntOptions`:

        ``method`` (str): ``anneal``, ``de``, ``z3``, ``structured``
        (:mod:`geosched.adversary.structured`: a few groups of requests, for hundreds or
        thousands of requests) or ``all`` (anneal, de and z3, time split 45/35/20).
        ``time_limit`` (float): seconds of this run, from the call to the result: the searches share all but
        the last tenth, which certifies their best candidates (a resume adds this much to what was spent
        before). ``seed`` (int or None): seed of every random choice (a resume keeps
        the checkpoint's). ``rounds``, ``restarts``, ``evals`` (int): with ``rounds``, instead of
        one time-limited search, ``rounds`` rounds of ``restarts`` restarts of ``evals``
        evaluations (:mod:`geosched.adversary.rounds`: reproducible, the best witnesses passed
        on between rounds, a checkpoint after each round); ``time_limit`` is then not used, and
        ``method`` must be ``anneal`` or ``structured``. ``checkpoint_every``,
        ``certify_budget`` (float): seconds between checkpoints, and of witness search per
        certified candidate. ``z3_bounds`` (dict): z3's bisection bounds.

        and search settings passed on: ``target`` (float): stop a search once it reaches this
        certified ratio; ``ties`` (``"given"`` or ``"robust"``): ``structured`` only, score the
        worse of the given and the reversed order of equal keys; ``max_groups``, ``t_start``,
        ``t_end``, ``cycle_seconds``, ``cycle_evals``, ``max_evals``, ``popsize``,
        ``callback_every`` (:class:`~geosched.adversary.options.SearchOptions`).

    Returns
    -------
    HuntResult
        The best certified ratio with its witness files, per-method summaries.

    Raises
    ------
    ValidationError
        For a bad setting (naming it), a used or locked directory, or a checkpoint of another space.
    WorkloadFormatError
        When ``resume`` finds no checkpoint or a malformed one.

    Examples
    --------
    >>> import tempfile
    >>> space = SearchSpace("sjf", max_requests=5, memory=12, alpha_max=0.5)
    >>> result = hunt(space, method="anneal", time_limit=1.0, out=tempfile.mkdtemp(), progress=False,
    ...               certify_budget=0.5)
    >>> result.status, result.fun >= 1.0
    ('completed', True)
    >>> options = HuntOptions(method="anneal", rounds=1, restarts=2, evals=50, seed=1, certify_budget=0.5)
    >>> hunt(space, options, out=tempfile.mkdtemp(), progress=False).nfev  # 2 restarts of 50 evaluations
    100
    """
    began = time.perf_counter()  # --time bounds the whole run from here
    opts = HuntOptions.from_keywords(options, **settings)
    methods = _methods_to_run(space, opts.method)
    if opts.rounds is None and not _is_serial(executor):
        raise ValidationError("--cluster", executor, "needs --rounds (a time-limited search cannot be split into "
                              "reproducible jobs; rounds of restarts can)")
    if opts.rounds is not None:
        check_rounds_budget(opts, _local_workers(executor))  # before connecting, for the clusters we can count
    # the cluster is joined before the folder is made: a peer that is not a Dask scheduler leaves nothing behind
    with using_executor(executor if opts.rounds is not None else None) as pool:
        if opts.rounds is not None:
            check_rounds_budget(opts, pool.workers)
        with _HuntDirectory(out, resume=resume, force=force) as directory, working(f"hunt {space.policy}", progress):
            if resume:
                saved = directory.load(space, opts.seed)
                opts = replace(opts, seed=saved.get("seed", opts.seed))
                checkpoint = {"space": saved["space"], "seed": opts.seed, "options": opts.to_dict(),
                              "methods": saved["methods"]}
            else:
                checkpoint = {"space": space.to_dict(), "seed": opts.seed, "options": opts.to_dict(), "methods": {}}
            run = _Hunt(space, opts, directory, checkpoint, _Progress(progress),
                        deadline=began + opts.time_limit if opts.rounds is None else math.inf)
            if opts.rounds is not None:
                return _finish(run, {opts.method: _run_rounds(run, pool)})
            return _finish(run, _run_methods(run, methods, opts))


# The fastest a worker evaluates candidates, with room to spare: about 250/s on this project's 2-core
# machine, a few thousand on a fast core (benchmarks/RESULTS.md); a plan that cannot finish within
# --time even at this rate is refused before it starts.
EVALUATIONS_PER_SECOND = 10_000


def check_rounds_budget(options: HuntOptions, workers: int) -> None:
    """Refuse rounds of restarts (``--rounds R --restarts K --evals E``) that cannot finish within
    ``--time`` even at :data:`EVALUATIONS_PER_SECOND` on each of ``workers`` workers, before any
    evaluation (:class:`~geosched.errors.LimitError`, naming ``--time``, ``--evals`` and ``--restarts``).

    >>> check_rounds_budget(HuntOptions(method="anneal", rounds=1, restarts=8, evals=10**9, time_limit=60.0), 1)
    Traceback (most recent call last):
    ...
    geosched.errors.LimitError: --rounds 1 x --restarts 8 x --evals 1000000000 = 8000000000 evaluations: ...
    """
    total = options.rounds * options.restarts * options.evals
    seconds = total / (EVALUATIONS_PER_SECOND * max(workers, 1))
    if seconds > options.time_limit:
        raise LimitError(f"--rounds {options.rounds} x --restarts {options.restarts} x --evals {options.evals} = "
                         f"{total} evaluations: at least {seconds:.3g} s at {EVALUATIONS_PER_SECOND} evaluations/s "
                         f"on each of {max(workers, 1)} worker(s) (faster than geosched evaluates), past --time "
                         f"{options.time_limit:g} s (raise --time, or lower --evals or --restarts; Python: "
                         "time_limit=, evals=, restarts=)")


def _local_workers(executor: Any) -> int:
    """Workers known before connecting: ``local:N`` has N; serial 1; a remote cluster at least 1 (counted after)."""
    if isinstance(executor, str):
        kind, value = parse_spec(executor)
        return value if kind == "local" else 1
    return getattr(executor, "workers", 1) if executor is not None else 1


# the share of --time kept for certifying the best candidates after the searches (each certification gets its
# part of what is left before the deadline, at most certify_budget): --time bounds the whole run. A tenth, so that
# the run ends within 10% of --time on either side: with a fifth, `hunt --time 60` ended at 50.3 s (its six
# certifications took 1.8 s; benchmarks/RESULTS.md 18.4), 16% early.
CERTIFY_SHARE = 0.1
# what the end of a run costs at the least, whatever --time is: each certification's floor (a witness search and an
# exact OPT of CERTIFY_FLOOR / 2 seconds each, see _certify_elite) and writing a dozen files, the plot among them.
# A short --time keeps this much instead of its tenth: `hunt --time 2` searched 1.8 s and ended at 2.9 s.
CERTIFY_FLOOR = 0.05
WRITE_RESERVE = 0.2


def _finish_reserve(time_limit: float, methods: list[str]) -> float:
    """Seconds of ``time_limit`` kept for certifying and writing after the searches."""
    certifications = 3 * sum(m != "z3" for m in methods)  # each search method's three best (_certify_elite)
    return max(CERTIFY_SHARE * time_limit, certifications * CERTIFY_FLOOR + WRITE_RESERVE)


def _run_methods(run: _Hunt, methods: list[str], opts: HuntOptions) -> dict[str, Any]:
    """The time-limited searches, one after another, each with its share of the search time still left (so that
    a method's start-up, such as loading the compiled kernel, is paid by the time left, not added to the run)."""
    results: dict[str, Any] = {}
    children = dict(zip(METHODS, np.random.SeedSequence(opts.seed).spawn(len(METHODS))))
    shares = _shares(methods)
    _pyplot()  # the plot's import (about 0.3 s) is paid from the search time, not after the deadline
    searches_end = run.deadline - _finish_reserve(opts.time_limit, methods)
    unspent = sum(shares[m] for m in methods)
    for m in methods:
        window = max(searches_end - time.perf_counter(), 0.0)
        results[m] = _run_method(run, m, window * shares[m] / unspent, children[m])
        unspent -= shares[m]
    return results


@dataclass
class _Hunt:
    """One hunt under way: what it searches, with which options, where it writes, its checkpoint."""

    space: SearchSpace
    options: HuntOptions
    directory: _HuntDirectory
    checkpoint: dict[str, Any]
    show: _Progress
    deadline: float = math.inf  # time.perf_counter() by which a time-limited run ends, certification included

    def save_method(self, method: str, entry: dict[str, Any]) -> None:
        self.checkpoint["methods"][method] = entry
        self.directory.save(self.checkpoint)


def _run_method(run: _Hunt, m: str, budget: float, seed_sequence: Any) -> Any:
    """One search method for ``budget`` seconds, checkpointing as it goes."""
    space, show = run.space, run.show
    state = run.checkpoint["methods"].get(m)
    if m == "z3":
        res = z3_hunt(space, time_limit=budget, bounds=run.options.z3_bounds, state=state, progress=show,
                      checkpoint=lambda z3_state: run.save_method("z3", z3_state))
        run.save_method("z3", res.state)
        return res
    last_save = [time.perf_counter()]
    latest: list[dict[str, Any]] = []  # the search's state at its last callback

    def callback(result: SearchResult) -> bool:
        latest[:] = [result.state]
        show.show(m, result.fun, result.nfev, result.wall_time, result.evaluations_per_second)
        if time.perf_counter() - last_save[0] >= run.options.checkpoint_every:
            run.save_method(m, {"kind": "search", "state": result.state})
            last_save[0] = time.perf_counter()
        return False

    search = _SEARCHES[m]
    try:
        res = search(space, run.options.search.updated(time_limit=budget), rng=np.random.default_rng(seed_sequence),
                     callback=callback, state=state["state"] if state else None)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (geosched.cli): the last state the search reported is kept
        if latest:
            run.save_method(m, {"kind": "search", "state": latest[-1]})
        raise
    show.show(m, res.fun, res.nfev, res.wall_time, res.evaluations_per_second, force=True)
    show.done()
    run.save_method(m, {"kind": "search", "state": res.state})
    return res


_SEARCHES = {"anneal": anneal, "structured": structured_search, "de": differential_evolution_search}


def _is_serial(executor: Any) -> bool:
    if executor is None or isinstance(executor, SerialExecutor):
        return True
    return isinstance(executor, str) and parse_spec(executor)[0] == "serial"


def _run_rounds(run: _Hunt, executor: Any) -> RoundsRun:
    """Rounds of restarts (:func:`~geosched.adversary.rounds.run_rounds`), the checkpoint written after each."""
    method = run.options.method
    state = run.checkpoint["methods"].get(method)
    if state is not None and state.get("kind") != "rounds":
        raise ValidationError("--resume", str(run.directory.checkpoint_path),
                              "holds a time-limited search; resume it without --rounds, or start over with --force")

    def save(round_state: dict[str, Any]) -> None:
        run.save_method(method, round_state)
        run.show.show(method, round_state["elite"][0][0], round_state["nfev"], round_state["wall_time"],
                      round_state["nfev"] / max(round_state["wall_time"], 1e-9), force=True)

    result = run_rounds(run.space, options=run.options, executor=executor, state=state, save=save)
    run.show.done()
    return result


def _certify_elite(run: _Hunt, results: dict[str, Any]) -> tuple[list[tuple[str, Witness]], dict[str, dict[str, Any]]]:
    """Re-score each method's best candidates with real witnesses (checked schedules)."""
    space, seed = run.space, run.options.seed
    witnesses: list[tuple[str, Witness]] = []
    summary: dict[str, dict[str, Any]] = {}
    left = sum(len(res.elite[:3]) for m, res in results.items() if m != "z3")  # certifications still to run
    for m, res in results.items():
        if m == "z3":
            witnesses += [(f"z3_{k}", w) for k, w in enumerate(res.witnesses)]
            summary[m] = _z3_summary(res)
            continue
        certified = []
        for k, cand in enumerate(res.elite[:3]):
            inst = candidate_to_instance(cand, space.memory, space.block_size)
            found_by = f"hunt:{m}" + (f" [{cand.note}]" if cand.note else "")
            # its part of the time left before the deadline, split between the witness search and the exact OPT
            part = max((run.deadline - time.perf_counter()) / max(left, 1), 0.1) / 2
            left -= 1
            w = certify(inst, space.policy, found_by=found_by, seed=seed, rng=k,
                        time_budget=min(run.options.certify_budget, part), exact_time_limit=min(10.0, part))
            witnesses.append((f"{m}_{k}", w))
            certified.append(w.certified_ratio)
        summary[m] = {
            "search_best": res.fun, "certified": certified, "nfev": res.nfev, "nit": res.nit,
            "wall_time": res.wall_time, "evaluations_per_second": res.evaluations_per_second,
            "message": res.message, "status": res.status,
        }
    return witnesses, summary


def _z3_summary(res: Any) -> dict[str, Any]:
    """z3's entry: ``best_sat`` is the best ratio among this run's checked witnesses; a larger
    one carried over from a checkpoint's bisections (saved without witness) is kept apart,
    marked as not re-verified."""
    summary = res.summary()
    verified = max((w.certified_ratio for w in res.witnesses), default=0.0)
    if summary["best_sat"] > verified:
        summary["best_sat_from_checkpoint_not_reverified"] = summary["best_sat"]
    summary["best_sat"] = verified
    return summary


def _write_witnesses(out: Path, witnesses: list[tuple[str, Witness]]) -> tuple[list[str], list[str]]:
    files, counterexamples = [], []
    for label, w in witnesses:
        path = write_witness(w, out / f"witness_{label}.json")
        files.append(str(path))
        if w.policy == "svf" and w.instance.is_burst:
            bound = svf_theorem_bound(w.instance.alpha)
            if bound is not None and Fraction(w.policy_tel, w.witness_tel) > bound:
                counterexamples.append(str(path))
                print(f"\n!!! COUNTEREXAMPLE TO KONG ET AL. THM 3.2: SVF ratio >= {w.certified_ratio:.4f} > "
                      f"1 + 2/(1 - alpha) = {float(bound):.4f} (alpha = {w.instance.alpha}); witness {path} !!!\n",
                      file=sys.stderr)
    return files, counterexamples


def _finish(run: _Hunt, results: dict[str, Any]) -> HuntResult:
    """Certify, then write the witnesses, progress files and summary into the output folder; when
    that fails, into a fresh folder of the system's temporary folder (with the checkpoint, so that
    ``--resume`` continues from there), and the error says where: finished work is kept."""
    certified = _certify_elite(run, results)
    directory = run.directory
    try:
        if directory.save_error is not None:
            raise directory.save_error
        return _write_results(run, directory.path, results, certified)
    except OutputError as exc:
        try:
            kept = Path(tempfile.mkdtemp(prefix="geosched-hunt-rescued-"))
            write_json_atomic(kept / "checkpoint.json", run.checkpoint)
            _write_results(run, kept, results, certified)
        except OSError:
            raise OutputError(f"{exc}; the hunt's results could not be kept anywhere") from None
        raise OutputError(f"{exc}; the hunt's results were kept in {kept} (resume with --out {kept} --resume)") \
            from None


def _write_results(run: _Hunt, out: Path, results: dict[str, Any],
                   certified: tuple[list[tuple[str, Witness]], dict[str, dict[str, Any]]]) -> HuntResult:
    witnesses, summary_methods = certified
    space, target = run.space, run.options.search.target
    files, counterexamples = _write_witnesses(out, witnesses)
    replays = _replay_in_vllm(space, files, witnesses)
    best_label, best = max(witnesses, key=lambda lw: lw[1].certified_ratio) if witnesses else (None, None)
    if best is not None:
        write_witness(best, out / "best_witness.json")
    csv_path, plot_path = _write_progress(out, results)
    if best is None:
        status, message = "no_witness", "no witness found"
    elif target is not None and best.certified_ratio >= target:
        status, message = "target_reached", f"the target {target:g} reached, by the witness {best_label}"
    else:
        status, message = "completed", f"by the witness {best_label}"
    result = HuntResult(
        status=status, message=message, wall_time=sum(r.wall_time for r in results.values()),
        x=best.instance if best else None, fun=best.certified_ratio if best else None,
        nfev=sum(r.nfev for r in results.values()), methods=summary_methods, witnesses=tuple(files),
        counterexamples=tuple(counterexamples), plot=plot_path, csv=csv_path, space=space.to_dict(),
        seed=run.options.seed, run_time_limit=run.options.time_limit, replays=replays,
    )
    write_json_atomic(out / "summary.json", result.to_dict())
    return result


def _replay_in_vllm(space: SearchSpace, files: list[str], witnesses: list[tuple[str, Witness]]
                    ) -> dict[str, dict[str, Any]]:
    """vLLM targets: every witness replayed in vLLM's real scheduler (status "unavailable"
    without vLLM), keyed by its file."""
    if get_target(space.policy).kind != "vllm":
        return {}
    # imported here: the replay module loads the vLLM harness, which sets VLLM_TARGET_DEVICE=cpu
    from geosched.adversary.vllm_replay import replay_in_vllm

    return {path: replay_in_vllm(w).to_dict() for path, (_, w) in zip(files, witnesses)}


def _pyplot() -> Any:
    """``matplotlib.pyplot`` on the file backend, or None without the optional extra geosched[plot]."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _write_progress(out: Path, results: dict[str, Any]) -> tuple[str, str | None]:
    rows = []
    for m, res in results.items():
        for t, best, nfev in res.history:
            rows.append((m, float(t), float(best), int(nfev)))
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["method", "wall_time_s", "best_found_ratio", "evaluations"])  # search scores, not certified
    writer.writerows(rows)
    csv_path = write_text_atomic(out / "progress.csv", buffer.getvalue())
    plt = _pyplot()
    if plt is None:
        return str(csv_path), None
    fig, ax = plt.subplots(figsize=(6, 4))
    for m in results:
        pts = sorted((t, b) for mm, t, b, _ in rows if mm == m)
        if pts:
            ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=m)
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("best ratio found (not yet certified)")
    ax.legend()
    ax.grid(alpha=0.3)
    plot = out / "progress.png"
    fig.tight_layout()
    try:
        with atomic_path(plot) as partial:
            fig.savefig(partial, dpi=100, format="png")
    finally:
        plt.close(fig)
    return str(csv_path), str(plot)
