"""A Hypothesis strategy for the model's instances, below every client that searches random ones.

:func:`geosched.testing.instances` (the public name, for a user's property tests) is this function;
it lives here so that :mod:`geosched.reference_impl.vllm.differential`'s search for a diverging instance
imports downward, never the package root.

Example
-------
>>> from hypothesis import find
>>> find(instances(max_n=2), lambda inst: inst.n == 2).n
2
"""

from __future__ import annotations

from hypothesis import strategies as st

from geosched.reference_impl.model import Instance, Request

__all__ = ["instances"]


@st.composite
def instances(
    draw: st.DrawFn,
    *,
    min_n: int = 1,
    max_n: int = 4,
    min_memory: int = 2,
    max_memory: int = 16,
    max_prompt: int = 5,
    max_output: int = 5,
    max_arrival: int = 4,
    burst: bool | None = None,
    plain_ids: bool = True,
) -> Instance:
    """Valid instances: ``n`` in ``[min_n, max_n]``, ``M`` in ``[min_memory, max_memory]``,
    ``1 <= o <= max_output``, ``0 <= s <= max_prompt``, ``s + o <= M``.

    Parameters
    ----------
    burst : bool or None
        True: every arrival is 0; False: arrivals in ``[0, max_arrival]``; None: either.
    plain_ids : bool
        Ids ``r0, r1, ...`` (default) or arbitrary unique text.

    Returns
    -------
    SearchStrategy[Instance]
    """
    memory = draw(st.integers(min_memory, max_memory))
    n = draw(st.integers(min_n, max_n))
    online = draw(st.booleans()) if burst is None else not burst
    if plain_ids:
        names = [f"r{k}" for k in range(n)]
    else:
        names = draw(st.lists(st.text(min_size=1, max_size=6), min_size=n, max_size=n, unique=True))
    requests = []
    for name in names:
        output = draw(st.integers(1, min(max_output, memory)))
        prompt = draw(st.integers(0, min(max_prompt, memory - output)))
        arrival = draw(st.integers(0, max_arrival)) if online else 0
        requests.append(Request(name, arrival, prompt, output))
    return Instance(memory, requests)
