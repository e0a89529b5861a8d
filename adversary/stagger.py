"""Staggered witness schedules: requests started at the pace of perfect memory packing.

SVF's worst cases found so far (Kong, Qi, Ye, Zhou, arXiv 2606.22327, Thm. 3.2 is the upper
bound) are *synchronisation* losses: the forward-looking check, run greedily, starts a batch of
identical requests together, and a batch of triangles ``(0, p)`` holds on average half of its
peak. A schedule that starts them one at a time, spaced by ``v / M`` steps (``v`` the volume),
holds ``sum_{age=1}^{p} age = v`` tokens per request in flight: perfect packing when
``v / M`` is an integer pace. Greedy list scheduling (:func:`geosched.adversary.fast.list_schedule`)
never finds that, since it starts every request as early as possible and so rebuilds the batches.

:func:`paced_list_schedule` places requests in a given order, request ``q`` no earlier than its
*release* ``floor(T_q)`` with ``T_q = T_{q-1} + f v_q / M`` (``f`` the slack factor; ``f = 1``
is the fluid pace), and then at the earliest feasible start (the jump rule of the list
scheduler, the same compiled loop), never before the previous request. :func:`stagger_pool_tel` is the best over a few
orders and factors: a cheap witness for the searches, the hunts' certification and the families.
Every schedule it returns is feasible by construction; the callers re-check it with the checker.

Example
-------
>>> import numpy as np
>>> a, s, o = np.zeros(6, np.int64), np.zeros(6, np.int64), np.full(6, 5, np.int64)
>>> paced_list_schedule(a, s, o, 15, np.arange(6), 1.0).tolist()  # M = 15 = v: one start per step
[0, 1, 2, 3, 4, 5]
>>> stagger_pool_tel(a, s, o, 15)[0]  # sum of (x + 5)
45
"""

from __future__ import annotations

import numpy as np

from geosched.adversary.fast import list_schedule  # the one compiled list-scheduling loop, with a release pace

__all__ = ["PACE_FACTORS", "paced_list_schedule", "stagger_pool_tel"]

PACE_FACTORS = (1.0, 1.05, 1.1, 1.2, 1.35, 1.5, 2.0, 0.9, 0.75, 0.5)  # slack factors tried by the pool


def paced_list_schedule(arrival, prompt, output, memory: int, order, factor: float) -> np.ndarray:
    """Start times of the paced list schedule (see the module docstring); feasible for any
    ``factor > 0`` (every placement is checked against the usage of those already placed)."""
    a = np.ascontiguousarray(arrival, dtype=np.int64)
    s = np.ascontiguousarray(prompt, dtype=np.int64)
    o = np.ascontiguousarray(output, dtype=np.int64)
    v = s * o + (o * o + o) // 2
    pace = factor * v.astype(np.float64) / float(memory)
    return list_schedule(a, s, o, memory, order, monotone=True, pace=pace)


def stagger_pool_tel(arrival, prompt, output, memory: int,
                     factors: tuple[float, ...] = PACE_FACTORS) -> tuple[int, np.ndarray, str]:
    """Best ``(tel, starts, source)`` over paced list schedules in volume order (ties by arrival,
    then position) and in position order, for each slack factor."""
    a = np.asarray(arrival, dtype=np.int64)
    s = np.asarray(prompt, dtype=np.int64)
    o = np.asarray(output, dtype=np.int64)
    n = len(a)
    v = s * o + (o * o + o) // 2
    orders = {"volume": np.lexsort((np.arange(n), a, v)), "position": np.lexsort((np.arange(n), a))}
    best: tuple[int, np.ndarray, str] | None = None
    for label, order in orders.items():
        for f in factors:
            x = paced_list_schedule(a, s, o, memory, order, f)
            tel = int((x + o - a).sum())
            if best is None or tel < best[0]:
                best = (tel, x, f"paced:{label}x{f:g}")
    return best
