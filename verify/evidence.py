"""What one check of the claims ledger returns (:class:`Evidence`), and the state a ledger run shares.

An :class:`Evidence` is the outcome of one *method* on one claim, in one of these words (the
same in ``geosched claims``, ``--json`` and ``docs/claims.md``):

* ``proved``: a mechanical proof for all values (every step of a sympy derivation checked, or a
  solver lemma proved, non-vacuous and tight over symbolic values);
* ``proved relative to``: a mechanical proof for all values *given named hypotheses* (standard
  results, e.g. PASTA or Little's law, each stated with its conditions in the derivation and
  assumed there, never checked by the proof); the message states each of them. It is weaker
  than ``proved`` and never reads as it;
* ``checked``: a bounded check that could have failed found nothing (exhaustive enumeration,
  solver proofs for every ``n`` up to a bound, a game solved for small sizes); it carries its
  ``bound``;
* ``consistent``: a statistical check agreed, and could have disagreed; it carries ``samples``;
* ``vacuous``: a bounded or statistical check passed but could not have failed: the worst case
  it observed is far from the bound (it would still pass with the claim's constant made twice
  as strong, or it observed no use of the constant at all, e.g. a worst ratio of exactly 1);
  it never counts as ``checked``;
* ``refuted``: a check found a counterexample (written to a file) or a bound violated beyond
  its confidence interval;
* ``unknown``: the check did not finish (a timeout, its time limit, a solver that gave up, a
  partial derivation whose open steps no other check covers);
* ``error``: the check crashed (raised an exception): a bug in our tooling or in the code it
  checks; the row says ``error`` and names the check, and the ledger goes on with the other rows;
* ``not_run``: the check was not attempted in this run, and the message names what it needs
  (hardware we do not have, the trace, a mode that runs it).

Every bounded or statistical evidence whose claim has a constant reports ``used`` (the worst
observed value over the bound, read on the constant: the share of the constant the worst case
needs) and ``discriminating`` (the same check with the constant made 10% stronger fails).

**Every check shows in the same run that it can fail** (its *canary*): a method runs its own verdict
predicate, the one that judges the real input, once more on a planted defect of its own kind (a closed
form + 1, a witness start - 1, a hypothesis constant x1.1 in the direction the check guards, a duplicated
workload, a rate x1.1, a schedule one token over M), built from the real run's data, and records the
outcome in :class:`Canary` (:func:`plant` runs it). A passing evidence whose canary was *not* refuted
could not have failed: it becomes ``vacuous`` here, on construction, whatever the method said, and the
ledger's rule lowers the row's word (:mod:`geosched.verify.ledger`, rule 2b). A method declares its canary
with :func:`declares_canary` (or :func:`needs_no_canary` with the reason, e.g. a literature row that
computes nothing); a declared method whose passing evidence carries no canary is ``vacuous`` too
(:func:`settle`, applied by the ledger to every method it runs).

**Coverage is pinned** (:class:`Coverage`): a method records what it covered (members, (s, o) pairs, grid
points, sizes, infeasible and feasible counts) beside the counts pinned for the run's mode; a passing
evidence that covered fewer of anything is ``refuted`` here (a coverage loss is a refutation of the
evidence, never a quieter word), and one that covered more is ``unknown`` (the pin is out of date).

Example
-------
>>> Evidence("demo", "bounded", "checked", "ok", bound="n<=2", used=0.95, discriminating=True).success
True
>>> holds = lambda tel: tel <= 7          # the check's own verdict: the bound TEL <= 7
>>> fails = lambda tel: [] if holds(tel) else [f"TEL {tel} > 7"]
>>> plant("TEL one above the bound", fails, 8)
Canary(defect='TEL one above the bound', refuted=True, verdict='TEL 8 > 7')
>>> e = Evidence("demo", "bounded", "checked", "ok", canary=plant("TEL one above", lambda tel: [], 8))
>>> e.status, e.message
('vacuous', 'could not have failed: its canary (TEL one above) was not refuted; ok')
>>> Evidence("demo", "bounded", "checked", "ok", coverage=Coverage({"members": 5}, {"members": 6})).status
'refuted'
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched import _signal_waits
from geosched.output import json_default, write_text_atomic
from geosched.results import Result

__all__ = ["EVIDENCE_STATUSES", "STRENGTH", "Evidence", "Context", "MODES", "TIME_LIMITS", "Canary", "Coverage",
           "plant", "plant_all", "declares_canary", "needs_no_canary", "canary_declaration", "settle"]

EVIDENCE_STATUSES = ("proved",
                     "proved relative to",  # proved given named hypotheses (standard results) the message names
                     "checked", "consistent", "vacuous", "refuted", "unknown", "error",
                     "not_run",  # a check this run did not attempt (it needs hardware or data it lacks)
                     # empirical claims (geosched.verify.empirical): a paper's experiment re-run on the trace
                     "reproduced", "partly", "not_reproduced")
# how much each word says, for the rule "a claim is never stronger than what it depends on"
# (the empirical words stand apart: no claim depends on an empirical one)
STRENGTH = {"proved": 6, "proved relative to": 5, "checked": 4, "consistent": 3, "vacuous": 2, "unknown": 1,
            "not_run": 1, "refuted": 0, "error": 0, "reproduced": 3, "partly": 2, "not_reproduced": 1}
MODES = ("quick", "default", "thorough")
# every check's time limit in seconds, per mode (a check past it is ``unknown``: it did not finish); generous
# (10x the slowest check on the loaded 2-core machine), so that only a hung check reaches it, never a slow machine
TIME_LIMITS = {"quick": 600.0, "default": 1800.0, "thorough": 6 * 3600.0}


@dataclass(frozen=True)
class Canary:
    """A planted defect of a check's own kind, judged in the same run by the check's own verdict predicate."""

    defect: str  # what was planted, in words ("closed form + 1 at member (2, 1)")
    refuted: bool  # the predicate refuted it: the check can fail
    verdict: str = ""  # what the predicate said on it (its first problem), or that it found nothing


def plant(defect: str, verdict: Callable[[Any], Any], planted: Any) -> Canary:
    """Run ``verdict`` (the check's own predicate, the same function that judges the real input: it returns
    its problems, falsy when it finds none) on ``planted`` (the real run's data with one defect planted);
    the canary is refuted when it finds a problem."""
    found = verdict(planted)
    if isinstance(found, (list, tuple)):
        found = found[0] if found else None
    return Canary(defect, bool(found), str(found) if found else "no problem found: the check accepted the defect")


def plant_all(canaries: list[Canary]) -> Canary:
    """Several planted defects as one canary: refuted only when every one was (the verdicts of those that were
    not come first).

    >>> plant_all([Canary("a", True, "x"), Canary("b", False, "passed")])
    Canary(defect='a; b', refuted=False, verdict='b: passed')
    """
    blind = [c for c in canaries if not c.refuted]
    verdicts = [f"{c.defect}: {c.verdict}" for c in blind or canaries]
    return Canary("; ".join(c.defect for c in canaries), not blind, "; ".join(verdicts))


@dataclass(frozen=True)
class Coverage:
    """What a check covered (counts by name) and what its mode pins (the same names)."""

    covered: dict[str, int]
    expected: dict[str, int]  # pinned exactly
    floor: dict[str, int] = field(default_factory=dict)  # pinned from below only (a seeded sample's share)

    def fewer(self) -> dict[str, tuple[int, int]]:
        """The names covered less than pinned (exactly or from below): ``name -> (covered, pinned)``."""
        pins = list(self.expected.items()) + list(self.floor.items())
        return {k: (self.covered.get(k, 0), v) for k, v in pins if self.covered.get(k, 0) < v}

    def more(self) -> dict[str, tuple[int, int]]:
        """The names covered more than pinned (the pin is out of date)."""
        return {k: (self.covered[k], v) for k, v in self.expected.items() if self.covered.get(k, 0) > v}


def _counts(found: dict[str, tuple[int, int]]) -> str:
    return ", ".join(f"{name} {got} of {pinned}" for name, (got, pinned) in found.items())


@dataclass(frozen=True)
class Evidence(Result):
    """The outcome of one method on one claim."""

    STATUSES = EVIDENCE_STATUSES
    SUCCESS = ("proved", "proved relative to", "checked", "consistent")

    method: str  # e.g. "derivation", "z3:peak_volume", "exhaustive:thm3.2", "monte-carlo:svf"
    kind: str  # "proof", "bounded", "statistical", "supporting" (our code is the paper's algorithm), "source",
    #            "empirical" (geosched.verify.empirical's EmpiricalEvidence carries the same first fields)
    status: str  # one of EVIDENCE_STATUSES
    message: str  # one line, generated from the constants actually checked
    bound: str | None = None  # bounded checks: the bound reached
    samples: int | None = None  # statistical checks: the number of samples
    counterexample: str | None = None  # refuted: the file with the counterexample
    depends_on: tuple[str, ...] = ()  # derivations: claims the proof relies on
    wall_time: float = 0.0  # seconds
    data: dict[str, Any] = field(default_factory=dict)  # JSON-ready extras
    used: float | None = None  # worst observed / bound, read on the claim's constant (None: no constant)
    discriminating: bool | None = None  # the same check with the constant 10% stronger fails (None: n/a)
    implementation: bool = False  # the outcome depends on our simulator/policies (see the supporting checks)
    covers: dict[str, tuple[str, str]] = field(default_factory=dict)  # derivation step names -> (status, bound)
    canary: Canary | None = None  # the planted defect of its own kind and whether the check refuted it
    coverage: Coverage | None = None  # what it covered against the counts its mode pins

    def __post_init__(self) -> None:
        """The two rules no method can skip: a coverage below its pin refutes the evidence (above it: unknown),
        and a canary that was not refuted makes a passing evidence ``vacuous``."""
        super().__post_init__()
        if self.status not in (*self.SUCCESS, "vacuous"):  # a vacuous check that lost coverage is refuted too
            return
        if self.coverage is not None and self.coverage.fewer():
            self._become("refuted", f"coverage lost: covered {_counts(self.coverage.fewer())} pinned for its mode")
            object.__setattr__(self, "implementation", True)
        elif self.coverage is not None and self.coverage.more() and self.status in self.SUCCESS:
            self._become("unknown", f"coverage differs from its pin (more: {_counts(self.coverage.more())}); "
                                    "the pin is out of date")
        elif self.canary is not None and not self.canary.refuted and self.status in self.SUCCESS:
            self._become("vacuous", f"could not have failed: its canary ({self.canary.defect}) was not refuted")

    def _become(self, status: str, why: str) -> None:
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "message", f"{why}; {self.message}")
        object.__setattr__(self, "covers", {name: (status, bound) for name, (_, bound) in self.covers.items()})


def declares_canary(defect: str) -> Callable[[Callable], Callable]:
    """Decorator of a ledger method: it runs a canary of this kind (``defect``, in words) in every run and
    attaches it to its evidence (:func:`plant`); a passing evidence without it is ``vacuous`` (:func:`settle`)."""

    def mark(method: Callable) -> Callable:
        method.canary_defect = defect  # type: ignore[attr-defined]
        return method

    return mark


def needs_no_canary(reason: str) -> Callable[[Callable], Callable]:
    """Decorator of a ledger method of a kind that needs no canary, with the reason (e.g. a literature row that
    computes nothing and never passes)."""

    def mark(method: Callable) -> Callable:
        method.no_canary = reason  # type: ignore[attr-defined]
        return method

    return mark


def canary_declaration(method: Callable) -> tuple[str, str] | None:
    """``("canary", defect)``, ``("none", reason)`` or None (the method declares neither)."""
    if getattr(method, "canary_defect", None):
        return "canary", method.canary_defect
    if getattr(method, "no_canary", None):
        return "none", method.no_canary
    return None


def settle(method: Callable, evidence: Evidence) -> Evidence:
    """``evidence`` of ``method`` under the canary rule: a method that declares a canary and passes without
    one could not have failed (``vacuous``, its canary recorded as not run)."""
    declared = canary_declaration(method)
    if declared is None or declared[0] != "canary" or evidence.canary is not None or not evidence.success:
        return evidence
    return dataclasses.replace(evidence, canary=Canary(declared[1], False, "not run"))


class Context:
    """Shared state of one ledger run: the mode, cached expensive runs, the output folder."""

    def __init__(self, mode: str, out: str | Path | None, seed: int, variants: tuple[str, ...],
                 restart: bool = False, executor: Any = None, time_limit: float | None = None) -> None:
        self.mode = mode
        self.time_limit = TIME_LIMITS[mode] if time_limit is None else time_limit  # seconds per check
        self.executor = executor  # where the chunked runs go (geosched.executor); None: serial
        self.thorough = mode == "thorough"
        self.quick = mode == "quick"
        self.seed = seed
        self._out = Path(out) if out else None
        self.variants = variants
        self.restart = restart
        self.follow_dependencies = True
        self.cache: dict[str, Any] = {}
        self.statuses: dict[str, Any] = {}
        self.lock_wait = 0.0  # seconds spent waiting for another process's lock (the Coq build): not checking
        self._background: dict[str, concurrent.futures.Future] = {}  # runs started ahead (background), by cache key

    def pick(self, quick: Any, default: Any, thorough: Any) -> Any:
        """The setting for this run's mode."""
        return {"quick": quick, "default": default, "thorough": thorough}[self.mode]

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
        """Write ``data`` as JSON to ``out/name`` atomically; returns the path."""
        path = self.out / name
        write_text_atomic(path, json.dumps(data, indent=1, default=json_default) + "\n")
        return str(path)

    def failed_run(self, label: str, run: dict[str, Any], elapsed: float, counterexample: str) -> Evidence | None:
        """The evidence of an exhaustive run that did not finish (``unknown``, its reason) or found a problem
        (``refuted``: ``run`` written to ``counterexample`` in :attr:`out`); None when it ran clean.

        Examples
        --------
        >>> ctx = Context("quick", None, 0, ())
        >>> ctx.failed_run("exhaustive:demo", {"unknown": "time limit reached"}, 5.0, "demo.json").status
        'unknown'
        >>> ctx.failed_run("exhaustive:demo", {"runs": 3}, 0.1, "demo.json") is None
        True
        """
        if "unknown" in run:
            return Evidence(label, "bounded", "unknown", run["unknown"], wall_time=elapsed)
        if "problems" in run:
            return Evidence(label, "bounded", "refuted", f"{run['problems']} on {run['instance']}",
                            implementation=True, wall_time=elapsed, counterexample=self.write(counterexample, run))
        return None

    def background(self, key: str, fn: Callable[[], Any]) -> concurrent.futures.Future | None:
        """Start ``fn`` now in a daemon thread, as the value of ``key``: the ledger starts the Coq build so, and the
        rows that need no Coq run meanwhile. Its time is no row's: :meth:`cached` waits for it and counts the wait
        in :attr:`lock_wait` (reported apart from checking). Returns its future (None when the value is cached)."""
        if key in self.cache or key in self._background:
            return self._background.get(key)
        future: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - raised again in the check that waits for it
                future.set_exception(exc)

        self._background[key] = future
        threading.Thread(target=run, name=f"geosched-background-{key}", daemon=True).start()
        return future

    def wait_for(self, key: str) -> float:
        """Wait for the background run of ``key`` (nothing when none was started); the seconds waited, also
        added to :attr:`lock_wait`. Its value goes into the cache; its exception is raised here."""
        future = self._background.get(key)  # kept until it succeeds: every waiter gets its value or its exception
        if future is None:
            return 0.0
        t0 = time.perf_counter()
        try:
            value = _signal_waits.result(future)  # a SIGTERM landed in another thread still ends the wait
        finally:
            waited = time.perf_counter() - t0
            self.lock_wait += waited
        self.cache[key] = value
        self._background.pop(key, None)
        return waited

    def cached(self, key: str, fn: Callable[[], Any]) -> tuple[Any, float]:
        """``(value, seconds spent now)``: the first caller pays, later ones get 0 (a value started in the
        :meth:`background` costs its caller nothing: the wait is counted apart)."""
        self.wait_for(key)
        if key in self.cache:
            return self.cache[key], 0.0
        t0 = time.perf_counter()
        value = fn()
        self.cache[key] = value
        return value, time.perf_counter() - t0
