"""``gs.simulate(..., engine=...)``: the Python simulator, or the Coq-proved SVF extracted to OCaml.

``engine="python"`` (the default) is :func:`geosched.reference_impl.simulator.simulate`.
``engine="coq"`` runs the function ``svf`` of ``verify/coq/Svf.v`` (strict head-of-line SVF with
the forward-looking check, bursts, ties by position), for which ``verify/coq/Thm32.v`` proves
``(M - P) TEL(SVF) <= (3M - P) TEL(S)`` against every feasible schedule ``S``, extracted by
:mod:`geosched.verify.coq_engine`. It answers in the same :class:`SimulationResult`; the
metrics come from the checker in both cases. It lives in the root package because
``reference_impl`` may not import ``verify``.
"""

from __future__ import annotations

import time
from typing import Any

from geosched.errors import UnknownNameError, ValidationError

__all__ = ["ENGINES", "simulate", "simulate_coq_result"]

ENGINES = ("python", "coq")


def simulate(instance: Any, policy: Any = "svf", *, predictor: Any = "oracle", backfill: bool = False,
             observer: Any = None, block_size: int = 1, engine: str = "python", coq_work_limit: int | None = None,
             coq_time_limit: float | None = None) -> Any:
    """Run ``policy`` on ``instance`` with the Python simulator or the extracted Coq SVF.

    The discrete-time process of Kong et al. (arXiv 2606.22327, Algorithm 1); with
    ``engine="coq"``, the SVF whose bound Thm. 3.2 is proved in Coq for every instance.

    Parameters
    ----------
    instance : Instance
        The workload (``engine="coq"``: a burst, every arrival equal to the first).
    policy : str or Policy
        A registered policy name or spec, or a policy object (``engine="coq"``: ``"svf"`` only).
    engine : {"python", "coq"}
        ``"python"``: :func:`geosched.reference_impl.simulator.simulate`; ``"coq"``: the
        extracted Coq function (needs ``coqc``; built once into a cache, see
        :mod:`geosched.verify.coq_engine`).
    predictor, backfill, observer, block_size
        Those of the Python simulator; ``engine="coq"`` takes only the defaults (exact lengths,
        strict head-of-line, no observer, token grain).
    coq_work_limit, coq_time_limit
        ``engine="coq"`` only: refuse before running when the estimated work exceeds
        ``coq_work_limit`` (default :data:`geosched.verify.coq_engine.WORK_LIMIT`), and stop the
        process after ``coq_time_limit`` seconds (default
        :data:`geosched.verify.coq_engine.TIME_LIMIT`, a :class:`~geosched.errors.TimeLimitError`).

    Returns
    -------
    SimulationResult
        Start times and admission order; metrics come from the checker.

    Raises
    ------
    UnknownNameError
        For an unknown engine (or policy) name.
    ValidationError
        ``engine="coq"`` with another policy, a non-burst instance, other options, no ``coqc``
        or Zarith, or work estimated past ``coq_work_limit``; a ``coq_*`` limit with another engine.
    TimeLimitError
        ``engine="coq"`` ran past ``coq_time_limit``.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf").starts
    {'r0': 5, 'r1': 0}
    >>> simulate(burst_instance(12, [(6, 3), (1, 5)]), "svf", engine="coq").starts  # doctest: +SKIP
    {'r0': 5, 'r1': 0}
    """
    options = {"predictor": predictor, "backfill": backfill, "observer": observer, "block_size": block_size}
    limits = {"work_limit": coq_work_limit, "time_limit": coq_time_limit}
    if engine != "coq":
        for name, value in limits.items():
            if value is not None:
                raise ValidationError(f"coq_{name}", value, "applies to engine='coq' only")
    if engine == "python":
        from geosched.reference_impl.simulator import simulate as python_simulate

        return python_simulate(instance, policy, **options)
    if engine != "coq":
        raise UnknownNameError("engine", engine, ENGINES)
    return simulate_coq_result(instance, policy, **options,
                               **{f"coq_{name}": value for name, value in limits.items() if value is not None})


def _require_coq_options(policy: Any, options: dict[str, Any]) -> None:
    if not (isinstance(policy, str) and policy.strip() == "svf"):
        shown = policy if isinstance(policy, str) else type(policy).__name__
        raise ValidationError("policy", shown, "engine 'coq' runs only 'svf' (the policy proved in Coq)")
    defaults = {"predictor": "oracle", "backfill": False, "observer": None, "block_size": 1}
    for name, value in options.items():
        if name not in defaults:
            raise ValidationError("option", name, f"must be one of {', '.join(defaults)}")
        if value != defaults[name] and not (name == "predictor" and getattr(value, "name", None) == "oracle"):
            shown = value if isinstance(value, (str, bool)) or value is None else type(value).__name__
            raise ValidationError(name, shown, f"engine 'coq' takes only {name}={defaults[name]!r} "
                                               "(the proved SVF: exact lengths, strict head-of-line)")


def simulate_coq_result(instance: Any, policy: Any = "svf", **options: Any) -> Any:
    """:func:`simulate` with ``engine="coq"``: the extracted SVF's starts as a ``SimulationResult``."""
    from geosched.reference_impl.simulator import SimulationResult
    from geosched.verify.coq_engine import simulate_coq

    started = time.perf_counter()
    limits = {name[4:]: options.pop(name) for name in ("coq_work_limit", "coq_time_limit") if name in options}
    _require_coq_options(policy, options)
    starts = simulate_coq(instance, **limits)
    requests = instance.requests
    rank = {r.id: (starts[r.id], r.volume, k) for k, r in enumerate(requests)}  # bursts: a step's scan order
    return SimulationResult(
        policy="svf", predictor="oracle", backfill=False, starts=starts,
        completions={r.id: starts[r.id] + r.output for r in requests},
        admission_order=tuple(sorted(starts, key=rank.__getitem__)), evictions=0, wasted_tokens=0,
        message=f"svf (Coq engine: verify/coq/Svf.v, extracted): {instance.n} requests started, 0 evictions",
        wall_time=time.perf_counter() - started)
