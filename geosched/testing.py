"""Hypothesis strategies for geosched's objects, so that you can property-test your own
scheduler against the verified reference with the same generators our tests use.

* :func:`instances`: valid instances (every peak fits in ``M``), bursts or with arrivals,
  with plain (``r0, r1, ...``) or arbitrary ids;
* :func:`traces`: CSV text in the Azure LLM inference trace schema
  (``TIMESTAMP,ContextTokens,GeneratedTokens``), readable by
  :func:`geosched.reference_impl.workloads.read_trace`;
* :func:`schedules`: start-time maps for an instance, arbitrary or feasible by construction.

Example
-------
>>> from hypothesis import given, settings
>>> import geosched as gs
>>> @settings(max_examples=20, derandomize=True, deadline=None)
... @given(instances(max_n=3))
... def test_svf_is_feasible(instance):
...     result = gs.simulate(instance, "svf")
...     assert gs.check_schedule(instance, result.starts).feasible
>>> test_svf_is_feasible()
"""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import strategies as st

from geosched.reference_impl.model import Instance, Request

__all__ = ["instances", "traces", "schedules"]

_EPOCH = datetime(2023, 11, 16, 18, 0, 0)


@st.composite
def instances(
    draw,
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


@st.composite
def traces(draw, *, min_rows: int = 1, max_rows: int = 30, max_prompt: int = 4000,
           max_output: int = 1000, max_gap_ms: int = 5000) -> str:
    """CSV text in the Azure trace schema, rows in time order (a zero output is allowed: the
    reader drops such rows, as it does in the real trace).

    Returns
    -------
    SearchStrategy[str]
        ``"TIMESTAMP,ContextTokens,GeneratedTokens\\n2023-11-16 18:00:00.0000000,374,44\\n..."``
    """
    n = draw(st.integers(min_rows, max_rows))
    clock = _EPOCH
    lines = ["TIMESTAMP,ContextTokens,GeneratedTokens"]
    for k in range(n):
        clock += timedelta(milliseconds=draw(st.integers(0, max_gap_ms)))
        prompt = draw(st.integers(0, max_prompt))
        output = draw(st.integers(1 if k == 0 else 0, max_output))
        lines.append(f"{clock:%Y-%m-%d %H:%M:%S}.{clock.microsecond * 10:07d},{prompt},{output}")
    return "\n".join(lines) + "\n"


@st.composite
def schedules(draw, instance: Instance, *, feasible: bool | None = None, max_delay: int = 10) -> dict[str, int]:
    """Start times for ``instance``.

    ``feasible=True`` gives a serial schedule (one request at a time, in a drawn order, with
    drawn idle gaps): feasible because every peak fits in ``M``. ``False`` or ``None`` draws
    every start in ``[a_i, a_i + max_delay]`` independently (feasible or not).
    """
    if feasible:
        order = draw(st.permutations(range(instance.n)))
        clock = 0
        starts = {}
        for i in order:
            request = instance.requests[i]
            clock = max(clock, request.arrival) + draw(st.integers(0, 2))
            starts[request.id] = clock
            clock += request.output
        return starts
    return {r.id: r.arrival + draw(st.integers(0, max_delay)) for r in instance.requests}
