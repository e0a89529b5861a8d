"""The ``paper`` admission gate: the simulator's forward-looking check, step by step.

At vLLM scheduling step ``c`` (the model's decision step ``t = c``), the running requests
are described in the model's terms ``(s, x, e)``: prompt ``s``, start step ``x``, believed
end ``e = x + o_hat``; they hold ``s + t - x`` slots at ``x < t <= e``. A waiting
candidate ``(s, o_hat)`` is admitted at ``c`` when the batch with it added fits at every
future step (Kong et al., arXiv 2606.22327, Algorithm 1; Jaillet et al., arXiv 2502.07115,
Algorithm 1). The check is :class:`geosched.reference_impl.admission.ForwardCheck` and the scan
is :func:`geosched.reference_impl.admission.scan_admissions`: the very code the verified simulator
runs, not a re-implementation.

**Blocks.** With block size ``B`` a request holding ``y`` slots takes ``ceil(y / B) <= (y +
B - 1) / B`` blocks, so checking prompts inflated by ``B - 1`` against ``M = usable_blocks *
B`` tokens is safe (exact for ``B = 1``). With nothing running, the head is admitted
whenever it fits alone in blocks (the inflation guards only against the others' rounding).

**Beliefs.** Admitted with ``P`` tokens already in the sequence (the prompt, plus any output
kept from before a preemption) and ``g`` outputs generated, a request is believed to be
``(s, o) = (P - 1 + B - 1, max(1, o_hat - g))`` capped at ``M - s`` like the simulator's
beliefs. A request still running at its believed end gets the simulator's exponential
back-off ``o <- min(2 (c - x), M - s)``.

Example
-------
>>> gate = PaperGate(capacity_blocks=12, block_size=1)
>>> gate.select(0, running=[], candidates=[("a", 7, 3), ("b", 2, 5)])  # (s, o) = (6, 3), (1, 5)
['a']
>>> gate.admitted("a", step=0, sequence_tokens=7, remaining=3)
>>> gate.select(2, running=["a"], candidates=[("b", 2, 5)])  # fits once a frees at step 3
['b']
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass

from geosched.reference_impl.admission import ForwardCheck, scan_admissions

__all__ = ["PaperGate", "Belief"]


@dataclass
class Belief:
    """A running request in the model's terms."""

    start: int  # x: the step it was (last) admitted
    prompt: int  # s: model prompt (sequence tokens at admission - 1, + B - 1)
    output: int  # believed output steps from the start


def _backed_off(belief: Belief, step: int, cap: int) -> int:
    """The belief of a request still running at ``step``, past its believed end.

    The simulator's back-off: at its believed end the belief doubles (capped at ``M - s``),
    as often as needed to pass ``step``. A pure function of the belief and ``step``, so the
    gate believes the same whichever steps it was consulted at (the plugin consults it only
    when requests wait; the semantics model at every step without preemption).
    """
    output = belief.output
    while belief.start + output <= step and output < cap:
        output = min(2 * output, cap)
    return max(output, step - belief.start + 1)


class PaperGate:
    """Forward-looking admission over predicted lengths (see the module docstring)."""

    def __init__(self, capacity_blocks: int, block_size: int = 1, *, backfill: bool = False) -> None:
        if capacity_blocks < 1 or block_size < 1:
            raise ValueError(f"capacity_blocks ({capacity_blocks}) and block_size ({block_size}) must be >= 1")
        self.block_size = block_size
        self.memory = capacity_blocks * block_size
        self.backfill = backfill
        self.beliefs: dict[Hashable, Belief] = {}

    def model_shape(self, sequence_tokens: int, remaining: int) -> tuple[int, int]:
        """``(s, o)`` believed for a request with ``sequence_tokens`` and ``remaining`` outputs.

        ``s`` is inflated by ``B - 1``; ``o`` is capped at ``M - (P - 1)``, the longest
        output a request that fits alone can have (the simulator's cap ``M - s`` for ``B = 1``).
        """
        prompt = sequence_tokens - 1 + self.block_size - 1
        return prompt, max(1, min(remaining, self.memory - (sequence_tokens - 1)))

    def fits_alone(self, prompt: int, output: int) -> bool:
        """Whether a request of model shape ``(prompt, output)`` fits in the blocks by itself:
        ``ceil((P - 1 + o) / B) <= capacity`` with ``P - 1 = prompt - (B - 1)``."""
        return prompt - (self.block_size - 1) + output <= self.memory

    def admitted(self, request_id: Hashable, step: int, sequence_tokens: int, remaining: int) -> None:
        """Record that ``request_id`` was admitted at ``step``."""
        prompt, output = self.model_shape(sequence_tokens, remaining)
        self.beliefs[request_id] = Belief(step, prompt, output)

    def forget_except(self, running: Iterable[Hashable]) -> None:
        """Drop beliefs of requests that are no longer running (finished or preempted)."""
        keep = set(running)
        for request_id in [r for r in self.beliefs if r not in keep]:
            del self.beliefs[request_id]

    def batch(self, step: int, running: Iterable[Hashable]) -> ForwardCheck:
        """The running batch at ``step`` as the simulator's ``ForwardCheck`` (beliefs updated)."""
        members = []
        for request_id in running:
            belief = self.beliefs.get(request_id)
            if belief is None:
                continue
            if belief.start + belief.output <= step:
                belief.output = _backed_off(belief, step, self.memory - belief.prompt)
            members.append((belief.start + belief.output, belief.prompt - belief.start))
        batch = ForwardCheck()
        batch.rebuild(members)
        return batch

    def select(
        self,
        step: int,
        running: Iterable[Hashable],
        candidates: Iterable[tuple[Hashable, int, int]],
    ) -> list[Hashable]:
        """Admissible candidates at ``step``, a prefix of ``candidates`` unless backfilling.

        ``candidates``: ``(request_id, sequence_tokens, predicted_remaining_outputs)`` in
        priority order; consumed lazily (strict head-of-line stops at the first misfit).
        """
        self.forget_except(running)
        batch = self.batch(step, self.beliefs)
        shapes = self._shapes(candidates)
        admitted: list[Hashable] = []
        if not batch.ends and self.block_size > 1:
            # The B - 1 inflation is only needed against *other* requests' rounding: with
            # nothing running, the head runs whenever it fits alone in blocks (otherwise a
            # request near the capacity would never start). Its inflated shape then blocks
            # the rest until it ends: conservative.
            head = next(shapes, None)
            if head is None:
                return admitted
            request_id, prompt, output = head
            if not self.fits_alone(prompt, output):
                return admitted
            batch.add(step + output, prompt - step)
            admitted.append(request_id)
        return admitted + scan_admissions(batch, self.memory, step, shapes, self.backfill)

    def _shapes(self, candidates: Iterable[tuple[Hashable, int, int]]) -> Iterator[tuple[Hashable, int, int]]:
        for request_id, sequence_tokens, remaining in candidates:
            prompt, output = self.model_shape(sequence_tokens, remaining)
            yield request_id, prompt, output
