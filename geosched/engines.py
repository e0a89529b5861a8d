"""``gs.simulate(..., engine=...)``: names for the engines of :func:`geosched.reference_impl.simulation.simulate`.

The choosing is :func:`~geosched.reference_impl.simulation.simulate`'s (the compiled kernel, the
event-driven engine or the step engine for ``engine="python"``; an
:class:`~geosched.reference_impl.simulation.ExternalEngine` given to it). This root module binds the
names a user types: ``"coq"`` is ``svf_engine`` of ``verify/coq/SvfEngine.v``, proved equal to the
function ``svf`` of ``verify/coq/Svf.v`` (strict head-of-line SVF with the forward-looking check,
bursts, ties by position), for which ``verify/coq/Thm32.v`` proves
``(M - P) TEL(SVF) <= (3M - P) TEL(S)`` against every feasible schedule ``S``, extracted by
:mod:`geosched.verify.coq_engine` (its work and time limits passed through); it lives here because
``reference_impl`` may not import ``verify``.
A predictor given by name is resolved here too (:func:`geosched.reference_impl.predictors.make_predictor`:
the core takes predictor objects, never importing the predictors package).
"""

from __future__ import annotations

from typing import Any

from geosched.errors import UnknownNameError, ValidationError

__all__ = ["ENGINES", "simulate", "coq_engine"]

ENGINES = ("python", "coq")


def coq_engine(**limits: Any) -> Any:
    """The extracted Coq SVF as an :class:`~geosched.reference_impl.simulation.ExternalEngine`.

    ``limits`` are :func:`geosched.verify.coq_engine.simulate_coq`'s ``work_limit`` (estimated
    before the run) and ``time_limit`` (seconds; past it a :class:`~geosched.errors.TimeLimitError`).
    """
    from functools import partial

    from geosched.reference_impl.simulation import ExternalEngine
    from geosched.verify.coq_engine import simulate_coq

    return ExternalEngine("coq", "svf", partial(simulate_coq, **limits),
                          "Coq: verify/coq/SvfEngine.v, proved equal to svf of Svf.v, extracted to OCaml")


def simulate(instance: Any, policy: Any = "svf", *, predictor: Any = "oracle", backfill: bool = False,
             observer: Any = None, engine: str = "python", max_steps: int | None = None,
             decide_seconds: float | None = None, coq_work_limit: int | None = None,
             coq_time_limit: float | None = None) -> Any:
    """Run ``policy`` on ``instance`` with the Python engines or the extracted Coq SVF.

    The discrete-time process of Kong et al. (arXiv 2606.22327, Algorithm 1); with
    ``engine="coq"``, the SVF whose bound Thm. 3.2 is proved in Coq for every instance.

    Parameters
    ----------
    instance : Instance
        The workload, its memory counted in whole blocks of its ``block_size`` (``engine="coq"``: a
        burst, every arrival equal to the first, at token grain).
    policy : str or Policy
        A registered policy name or spec, or a policy object (``engine="coq"``: ``"svf"`` only).
    predictor : str or Predictor
        A registered predictor name or spec (``"noisy:sigma=0.5"``) or a predictor object.
    engine : {"python", "coq"}
        ``"python"``: :func:`geosched.reference_impl.simulation.simulate`'s own choice; ``"coq"``: the
        extracted Coq function (needs ``coqc``; built once into a cache, see
        :mod:`geosched.verify.coq_engine`).
    backfill, observer
        Those of :func:`geosched.reference_impl.simulation.simulate`; ``engine="coq"`` takes only the
        defaults (exact lengths, strict head-of-line, no observer).
    max_steps, decide_seconds : optional
        The step engine's work limits (:mod:`geosched.limits`): a run spanning more than ``max_steps``
        steps is refused before it starts; one ``decide()`` call may take ``decide_seconds``.
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
        For an unknown engine (or policy, or predictor) name.
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
    from geosched.reference_impl.simulation import simulate as simulate_core

    if engine not in ENGINES:
        raise UnknownNameError("engine", engine, ENGINES)
    limits = {"work_limit": coq_work_limit, "time_limit": coq_time_limit}
    if engine != "coq":
        for name, value in limits.items():
            if value is not None:
                raise ValidationError(f"coq_{name}", value, "applies to engine='coq' only")
    if isinstance(predictor, str) and predictor != "oracle":
        from geosched.reference_impl.predictors import make_predictor

        predictor = make_predictor(predictor)
    chosen = coq_engine(**{k: v for k, v in limits.items() if v is not None}) if engine == "coq" else "python"
    return simulate_core(instance, policy, predictor=predictor, backfill=backfill, observer=observer, engine=chosen,
                         max_steps=max_steps, decide_seconds=decide_seconds)
