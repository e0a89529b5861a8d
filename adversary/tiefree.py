"""Tie-free versions of small instances (issue 43, item 2): scale a burst up and break every volume tie.

SVF's worst small instances rest on ties of volume, which the tie rule (earlier position first) decides; a
tie-free instance has one order whatever the rule. In a box with ``M <= 64`` a tie can rarely be broken without
changing which requests fit together; scaled by ``K`` (prompts, outputs and ``M`` times ``K``) the same shape has
room for small offsets. :func:`scaled_variants` gives, for one instance, the scaled versions with every tie
broken both ways (each tied group's prompts raised by ``0, 1, 2, ...`` in position order, or in reverse order:
the two tie orders, each made strict), with the prompt rounded down (``K s``) or up (``K s + K - 1``, so that a
scaled request holds at its first step what the original held at its first step, times ``K``). Each variant is
an instance of its own: :mod:`geosched.adversary.smalln` simulates the policy on it and solves it exactly, so
nothing is assumed about how well the scaling keeps the ratio.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> variants = scaled_variants(burst_instance(40, [(6, 4), (33, 1), (6, 4), (33, 1)]), 3)
>>> len(variants), all(pairwise_distinct(v) for v in variants), variants[0].memory
(4, True, 122)
"""

from __future__ import annotations

from geosched.errors import ValidationError
from geosched.reference_impl.model import Instance, Request

__all__ = ["pairwise_distinct", "scaled_variants", "MAX_SCALE"]

MAX_SCALE = 64  # the largest factor: M <= 64 * 64 = 4096 from hunt-small's boxes


def pairwise_distinct(instance: Instance) -> bool:
    """No two requests of ``instance`` have the same volume."""
    volumes = [r.volume for r in instance.requests]
    return len(set(volumes)) == len(volumes)


def _break_ties(prompts: list[int], outputs: list[int], reverse: bool) -> list[int] | None:
    """Raise the prompts of each group of equal volumes by 0, 1, 2, ... (in position order, or reversed) until
    every volume is distinct; None when that takes more than a few rounds (the offsets would distort the shape)."""
    prompts = list(prompts)
    for _ in range(8):
        volumes = [s * o + (o * o + o) // 2 for s, o in zip(prompts, outputs)]
        groups: dict[int, list[int]] = {}
        for i, v in enumerate(volumes):
            groups.setdefault(v, []).append(i)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            return prompts
        for group in tied:
            for rank, i in enumerate(reversed(group) if reverse else group):
                prompts[i] += rank
    return None


def scaled_variants(instance: Instance, scale: int) -> list[Instance]:
    """``instance`` (a burst) scaled by ``scale`` and made tie-free, in up to four ways (module docstring); every
    variant has pairwise distinct volumes and every peak within its memory ``scale * M + offsets``.

    Raises
    ------
    ValidationError
        When ``scale`` is not an integer in ``[1, MAX_SCALE]`` or ``instance`` is not a burst.
    """
    if isinstance(scale, bool) or not isinstance(scale, int) or not 1 <= scale <= MAX_SCALE:
        raise ValidationError("scale", scale, f"must be an integer in [1, {MAX_SCALE}]")
    if not instance.is_burst:
        raise ValidationError("instance", "arrivals", "must be a burst (every arrival 0)")
    outputs = [scale * r.output for r in instance.requests]
    variants, seen = [], set()
    for rounded_up in (False, True):
        base = [scale * r.prompt + (scale - 1 if rounded_up else 0) for r in instance.requests]
        for reverse in (False, True):
            prompts = _break_ties(base, outputs, reverse)
            if prompts is None:
                continue
            memory = scale * instance.memory + (scale - 1 if rounded_up else 0) + max(
                p - b for p, b in zip(prompts, base))
            key = (memory, tuple(prompts))
            if key in seen:
                continue
            seen.add(key)
            variants.append(Instance(memory, [Request(r.id, 0, p, o) for r, p, o in
                                              zip(instance.requests, prompts, outputs)]))
    return variants
