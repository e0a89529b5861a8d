"""The traces an empirical row reads (the *trace set*), and the length models each trace is predicted with.

Every empirical row (``kong.emp.*``, ``sagesched.gain``, ``sagesched.ablation``) is judged on each trace of the
set, and its word is the cross-trace rule of :func:`geosched.verify.empirical.across_traces`. The set is a
parameter: ``geosched claims --trace PATH`` (repeatable) or ``run_claims(traces=...)``; by default every trace
of ``../shared/traces/`` (:func:`~geosched.reference_impl.workloads.shared_traces`: the Azure conversation
trace and the Mooncake trace). A user's own trace in any format geosched reads (an Azure-format CSV, a
Mooncake file, a geosched ``jsonl``, a vLLM ``timed_trace``, ...) is added the same way.

**Models per trace.** A trace is predicted by models trained on its own first 70% by time: the shipped
models whose recorded training-data hash is that part's
(:func:`~geosched.reference_impl.predictors.training.shipped_models_for`; the Azure and Mooncake traces have
them), else models trained in this run with the shipped configuration and seed 0 (a user's trace; a few
seconds each, torch needed), never a model of another trace.

Example
-------
>>> [trace_label(p) for p in check_traces(shared_traces())] == [trace_label(p) for p in shared_traces()]
True
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError
from geosched.reference_impl.workloads import is_trace, shared_traces, trace_label

__all__ = ["TraceModels", "check_traces", "trace_set", "trace_models", "KINDS_USED"]

KINDS_USED = ("point", "onebit", "dist")  # the models an empirical row may use


def check_traces(paths: Sequence[str | Path], *, read: bool = True) -> tuple[Path, ...]:
    """``paths`` as a trace set: each a trace geosched reads, no two with the same label (file name without
    suffix), in the order given; anything else a one-line :class:`~geosched.errors.ValidationError` naming it.
    With ``read``, each file is read once (a malformed line is a one-line
    :class:`~geosched.errors.WorkloadFormatError` naming it, before any check runs)."""
    from geosched.reference_impl.workloads import read_trace_instance

    out: list[Path] = []
    for given in paths:
        path = Path(given)
        if not is_trace(path):
            raise ValidationError("--trace", str(given), "must be a trace file geosched reads (an Azure-format CSV, "
                                  "a Mooncake .jsonl or another workload format)")
        if trace_label(path) in {trace_label(p) for p in out}:
            raise ValidationError("--trace", str(given), f"has the label {trace_label(path)!r} of an earlier "
                                  "trace (rows name traces by file name)")
        if read:
            read_trace_instance(path)
        out.append(path)
    return tuple(out)


def trace_set(ctx: Any) -> tuple[Path, ...]:
    """The traces of a ledger run: ``ctx.traces`` when given, else every shared trace (empty when none)."""
    given = getattr(ctx, "traces", None)
    return check_traces(given, read=False) if given else shared_traces()


@dataclass(frozen=True)
class TraceModels:
    """The model files a trace is predicted with, and where they come from."""

    paths: dict[str, str]  # kind -> model file
    origin: str  # "shipped" or "trained in this run ... (N s, seed S)"


def trace_models(path: str | Path, log: Any, *, seed: int = 0) -> TraceModels:
    """The point, 1-bit and distribution models of the trace at ``path`` (module docstring).

    Raises
    ------
    MissingExtraError
        When models must be trained and torch is not installed.
    """
    from geosched.reference_impl.predictors.training import TrainingConfig, shipped_models_for, train_model

    shipped = shipped_models_for(log)
    if set(KINDS_USED) <= set(shipped):
        return TraceModels({k: str(shipped[k]) for k in KINDS_USED}, "shipped")
    from geosched.reference_impl.predictors.artifact import save_model

    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="geosched-models-"))
    paths = {}
    for kind in KINDS_USED:
        result = train_model(log, TrainingConfig(kind, seed=seed), source=Path(path).name)
        paths[kind] = str(save_model(result.model, folder / f"{kind}.json"))
    return TraceModels(paths, f"trained in this run on its first 70% ({time.perf_counter() - started:.0f} s, "
                              f"seed {seed})")
