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

Example
-------
>>> Evidence("demo", "bounded", "checked", "ok", bound="n<=2", used=0.95, discriminating=True).success
True
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched.output import json_default, write_text_atomic
from geosched.results import Result

__all__ = ["EVIDENCE_STATUSES", "STRENGTH", "Evidence", "Context", "MODES", "TIME_LIMITS"]

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

    def cached(self, key: str, fn: Callable[[], Any]) -> tuple[Any, float]:
        """``(value, seconds spent now)``: the first caller pays, later ones get 0."""
        if key in self.cache:
            return self.cache[key], 0.0
        t0 = time.perf_counter()
        value = fn()
        self.cache[key] = value
        return value, time.perf_counter() - t0
