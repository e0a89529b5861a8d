"""Geometric schedulers with restarts: ``geo-guess`` (non-clairvoyant) and ``geo-batch``.

**Whose algorithms.** Feng, Yang and Zhang (arXiv 2601.22996) describe GSA, a
non-clairvoyant KV-cache scheduler with geometric phases that restart jobs (competitive ratio
at most 61.92), and GBA, its clairvoyant counterpart (10.67). Only the paper's *abstract* can
be read here, not its algorithm text, so these two are **geosched's own** schedulers in the
same spirit, not implementations of GSA or GBA, and no bound of that paper is claimed for them.

* :class:`GeometricGuess` (``geo-guess``): it never sees ``o``. A request in its ``k``-th run
  is believed to need ``g_k = min(g_0 * 2^k, M - s)`` outputs (a phase per doubling). Waiting
  requests are scanned in increasing *believed* volume ``s g + (g^2 + g) / 2`` (ties by
  arrival, then position) and admitted, strict head-of-line, when the batch fits at every
  believed completion (the forward-looking check on beliefs). A run that reaches its guess
  without completing is preempted at that step and restarts from scratch with the doubled
  guess: the memory it was believed to hold is never exceeded, so the batch always fits. The
  guess ``M - s`` is the largest output a valid request can have, so the last phase completes.
* :class:`GeometricBatch` (``geo-batch``, clairvoyant): requests are grouped by geometric
  length class ``ceil(log2 o)``. When nothing runs, the smallest non-empty class of waiting
  requests forms a batch, admitted in ``(arrival, position)`` order while the forward check
  passes (misfits skipped); the next batch starts when the whole batch has completed.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> from geosched.reference_impl.engine import run_scheduler
>>> run = run_scheduler(burst_instance(12, [(6, 3), (1, 5)]), GeometricGuess())
>>> [tuple(run) for run in run.runs["r1"]], run.lost_tokens
([(0, 1, 0), (1, 3, 0), (3, 7, 0), (9, 14, 0)], 10)
"""

from __future__ import annotations

from dataclasses import dataclass

from geosched.errors import ValidationError
from geosched.reference_impl.admission import admission_step, earliest_start
from geosched.reference_impl.scheduler_registry import SchedulerEntry
from geosched.reference_impl.scheduling import Capability, Decision, SchedulerState

__all__ = ["GeometricGuess", "GeometricBatch", "length_class", "SCHEDULERS"]


def _volume(prompt: int, output: int) -> int:
    return prompt * output + (output * output + output) // 2


def length_class(output: int) -> int:
    """``ceil(log2 o)``: outputs 1 | 2 | 3-4 | 5-8 | ... are classes 0 | 1 | 2 | 3 | ...

    >>> [length_class(o) for o in (1, 2, 3, 4, 5, 8, 9)]
    [0, 1, 2, 2, 3, 3, 4]
    """
    return (output - 1).bit_length()


@dataclass(eq=False)
class GeometricGuess:
    """Non-clairvoyant doubling guesses with restarts (see the module docstring)."""

    first_guess: int = 1  # g_0: the guess of a request's first run
    name: str = "geo-guess"
    clairvoyant = False
    preempts = True

    def __post_init__(self) -> None:
        if isinstance(self.first_guess, bool) or not isinstance(self.first_guess, int) or self.first_guess < 1:
            raise ValidationError("geo-guess first_guess", self.first_guess, "must be an integer >= 1")

    def guess(self, memory: int, prompt: int, restarts: int) -> int:
        """The believed output of a request in its run number ``restarts`` (from 0)."""
        return max(1, min(self.first_guess << min(restarts, 64), memory - prompt))

    def decide(self, state: SchedulerState) -> Decision:
        t, m = state.time, state.memory
        expired = [r for r in state.running if r.age >= self.guess(m, r.prompt, r.restarts)]
        gone = {r.id for r in expired}
        running = [(r.prompt, r.start, r.start + self.guess(m, r.prompt, r.restarts))
                   for r in state.running if r.id not in gone]
        # (id, prompt, guess, arrival, position): the waiting ones, and the expired ones restarting now
        candidates = [(w.id, w.prompt, self.guess(m, w.prompt, w.restarts), w.arrival, w.position)
                      for w in state.waiting]
        candidates += [(r.id, r.prompt, self.guess(m, r.prompt, r.restarts + 1), r.arrival, r.position)
                       for r in expired]
        candidates.sort(key=lambda c: (_volume(c[1], c[2]), c[3], c[4]))
        chosen = admission_step(m, t, running, [(c[1], c[2]) for c in candidates])
        admit = tuple(candidates[k][0] for k in chosen)
        batch = running + [(candidates[k][1], t, t + candidates[k][2]) for k in chosen]
        # nothing changes before the next believed expiry or the blocked head's earliest start
        # under the forward check (strict head-of-line: nobody behind it starts first)
        quiet = min((end for _, _, end in batch), default=None)
        if len(chosen) < len(candidates):
            head = candidates[len(chosen)]
            start = earliest_start(m, batch, head[1], head[2], t)
            quiet = start if quiet is None else min(quiet, start)
        return Decision(admit=admit, preempt=tuple(r.id for r in expired), quiet_until=quiet)


@dataclass(eq=False)
class GeometricBatch:
    """Clairvoyant batches by geometric length class (see the module docstring)."""

    name: str = "geo-batch"
    clairvoyant = True
    preempts = False

    def decide(self, state: SchedulerState) -> Decision:
        if state.running or not state.waiting:
            return Decision(quiet_until=state.time + state.memory + 1)  # wait for the batch's completions
        smallest = min(length_class(w.output) for w in state.waiting)
        batch = [w for w in state.waiting if length_class(w.output) == smallest]
        chosen = admission_step(state.memory, state.time, [], [(w.prompt, w.output) for w in batch], backfill=True)
        return Decision(admit=tuple(batch[k].id for k in chosen))


SCHEDULERS = (  # this module's registry entries (geosched.reference_impl.scheduling finds them)
    SchedulerEntry("geo-guess", GeometricGuess,
                   "non-clairvoyant: doubling length guesses, restart when exceeded (geosched's own)",
                   frozenset({Capability.SIMULATOR, Capability.PREEMPTS}), order=30),
    SchedulerEntry("geo-batch", GeometricBatch, "clairvoyant batches by geometric length class (geosched's own)",
                   frozenset({Capability.SIMULATOR, Capability.CLAIRVOYANT}), order=30),
)
