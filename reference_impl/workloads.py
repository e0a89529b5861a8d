"""Workloads: instance files, the Azure LLM trace, and seeded synthetic generators.

* Instance JSON (:func:`geosched.reference_impl.model.read_instance`).
* The Azure LLM inference trace 2023 CSV (Patel et al., "Splitwise", ISCA 2024), columns
  ``TIMESTAMP, ContextTokens, GeneratedTokens``. Replayed as a *burst* (all arrivals at step
  0) or *online*, with arrival step ``floor((T - T_0) / step_seconds)``. The default step
  is 0.025 s, one decode iteration of a mid-size model on one GPU (40 tokens/s per stream);
  any other value can be passed. Rows with zero generated tokens are dropped (no decode step
  exists for them) and counted in the returned ``TraceInfo``.
* Generators, all seeded and usable with no file:

  - ``burst``: Jaillet et al.'s synthetic set (arXiv 2502.07115, Sec. 7.1): ``M ~ U[30, 50]``,
    ``s ~ U[1, 5]``, ``o ~ U[1, M - s]``, all arriving at 0 (bounds overridable).
  - ``poisson``: Kong et al.'s stochastic model (Thm. 3.4): Poisson arrivals of rate
    ``lambda`` per step, ``o ~ Geometric(mu)`` on ``{1, 2, ...}``, prompts ``~ U[s_min, s_max]``.
    Either ``rate`` is given, or ``rho`` and then ``lambda = rho (1 - alpha) M / (2 E[v])``
    with ``alpha = alpha_cap``. Geometric lengths are unbounded while the model needs
    ``s + o <= M``: outputs are truncated at ``floor(alpha_cap * M) - s`` (count them
    with ``o == floor(alpha_cap * M) - s``); :func:`poisson_rate` gives the rate for ``rho``.
  - ``chat``: log-normal prompt and output lengths matched to the Azure conversation trace
    (prompt mean 1155 / median 1020, output mean 211 / median 129 tokens; Patel et al.
    2024 and the trace README), clipped to the trace's maxima (14050, 1000).
  - ``longprompt``: log-normal lengths matched to the Azure *code* trace as reported by
    Patel et al. 2024 (Sec. III-B: median prompt 1500 tokens, median output 13 tokens; the
    means are not given there, so the log-scale spread ``sigma = 0.8`` is our choice).

Example
-------
>>> inst = generate("burst", n=5, seed=1)
>>> inst.n, inst.is_burst
(5, True)
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.reference_impl.formats import (
    detect_format,
    formats_for_path,
    parse_token_count,
    parse_trace_timestamp,
    read_workload_file,
)
from geosched.reference_impl.jsonfile import read_text
from geosched.reference_impl.model import MAX_VALUE, Instance, Request

__all__ = [
    "TraceInfo",
    "read_trace",
    "GENERATORS",
    "generate",
    "register_generator",
    "load_workload",
    "with_block_size",
    "DEFAULT_STEP_SECONDS",
    "default_trace_path",
    "shared_traces",
    "is_trace",
    "trace_label",
    "read_trace_instance",
    "poisson_rate",
    "MAX_GENERATED",
]

DEFAULT_STEP_SECONDS = 0.025
_TRACE_SUFFIX = ".csv"  # the Azure trace's; a .csv that a workload format claims is read as that format
_TRACE_COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
_TRACE_PARAMETERS = ("arrivals", "step_seconds", "limit", "offset")  # of the spec trace:k=v,...


@dataclass(frozen=True)
class TraceInfo:
    """What was read from a trace file."""

    path: str  # the file
    rows: int  # data rows read
    dropped_zero_output: int  # rows with GeneratedTokens == 0, dropped
    step_seconds: float | None  # step duration used for online arrivals (None for burst)


def default_trace_path() -> Path | None:
    """``../shared/traces/azure_llm_2023_conv.csv`` beside the project root, when present."""
    for folder in _shared_folders():
        candidate = folder / "azure_llm_2023_conv.csv"
        if candidate.is_file():
            return candidate
    return None


def _shared_folders() -> tuple[Path, ...]:
    root = Path(__file__).resolve().parent.parent
    return root.parent / "shared" / "traces", Path.cwd().parent / "shared" / "traces"


def is_trace(path: str | Path) -> bool:
    """Whether ``path`` is a trace geosched reads: a CSV with the Azure trace's columns (that no workload
    format claims), or a file of a registered workload format (:func:`~geosched.reference_impl.formats.detect_format`:
    the Mooncake trace, a geosched ``jsonl``, a vLLM ``timed_trace``, ...)."""
    path = Path(path)
    if not path.is_file():
        return False
    if detect_format(path) is not None:
        return True
    if not path.name.endswith(_TRACE_SUFFIX):
        return False
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return all(column in header for column in _TRACE_COLUMNS)


def shared_traces() -> tuple[Path, ...]:
    """Every trace in ``../shared/traces/`` beside the project (:func:`is_trace`), by file name: the default
    trace set of the empirical rows (the Azure conversation trace, the Mooncake trace); empty when absent.

    >>> all(is_trace(path) for path in shared_traces())
    True
    """
    for folder in _shared_folders():
        if folder.is_dir():
            return tuple(sorted((p for p in folder.iterdir() if is_trace(p)), key=lambda p: p.name))
    return ()


def trace_label(path: str | Path) -> str:
    """How rows and tables name a trace: its file name without the suffix.

    >>> trace_label("../shared/traces/mooncake_conversation.jsonl")
    'mooncake_conversation'
    """
    return Path(path).name.split(".")[0]


def read_trace_instance(path: str | Path, *, step_seconds: float = DEFAULT_STEP_SECONDS,
                        limit: int | None = None, memory: int | None = None) -> Instance:
    """Any trace (:func:`is_trace`) with online arrivals at ``step_seconds`` per step, its first ``limit``
    requests: the Azure trace by :func:`read_trace`; a file of a workload format by its reader (the Mooncake
    trace's millisecond timestamps at the same convention, ``floor((T - T_0) / step_seconds)``; a file whose
    arrivals are steps keeps them). ``memory``: as the readers' default (twice the largest peak) when None."""
    path = Path(path)
    if detect_format(path) is None and path.name.endswith(_TRACE_SUFFIX):
        instance, _ = read_trace(path, memory=memory, arrivals="online", step_seconds=step_seconds, limit=limit)
        return instance
    instance = read_workload_file(path, memory=memory, step_seconds=step_seconds)
    if limit is not None and limit < instance.n:
        _require_param("limit", limit, 1)
        kept = instance.requests[:limit]
        instance = Instance(memory or 2 * max(r.peak for r in kept), kept)
    return instance


def _parse_timestamp(text: str, where: str) -> Decimal:
    return parse_trace_timestamp(text.strip(), where)


def _parse_count(text: str, column: str, where: str) -> int:
    return parse_token_count(text.strip(), column, where, raw=text)


def _trace_columns(header: list[str], path: Path) -> list[int]:
    """Positions of the three trace columns; each must appear exactly once."""
    for column in _TRACE_COLUMNS:
        if column not in header:
            raise WorkloadFormatError(f"{path}: missing column {column}; found {header}")
        if header.count(column) > 1:
            raise WorkloadFormatError(f"{path}: column {column} appears {header.count(column)} times; found {header}")
    return [header.index(column) for column in _TRACE_COLUMNS]


def _trace_rows(path: Path, offset: int, limit: int | None):
    """``(line number, timestamp, prompt, output)`` of the selected rows, every field checked."""
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise WorkloadFormatError(f"{path}: empty file (expected the header {','.join(_TRACE_COLUMNS)})")
        positions = _trace_columns(header, path)
        taken = 0
        for index, row in enumerate(reader):
            where = f"{path}:{reader.line_num}"
            if len(row) != len(header):
                raise WorkloadFormatError(f"{where}: {len(row)} field(s), the header has {len(header)}")
            if index < offset:
                continue
            if limit is not None and taken >= limit:
                return
            taken += 1
            stamp, prompt, output = (row[k] for k in positions)
            yield (where, _parse_timestamp(stamp, where), _parse_count(prompt, "ContextTokens", where),
                   _parse_count(output, "GeneratedTokens", where))
    except csv.Error as exc:
        raise WorkloadFormatError(f"{path}:{reader.line_num}: not CSV ({exc})") from None


def _arrival_steps(times: list[Decimal], step_seconds: float) -> list[int]:
    first = min(times)
    step = Decimal(str(step_seconds))
    span = (max(times) - first) / step
    if span > MAX_VALUE:
        raise ValidationError("step_seconds", step_seconds,
                              f"makes the last arrival step {float(span):.3g}, past geosched's limit 2^53")
    return [int((stamp - first) // step) for stamp in times]


def read_trace(
    path: str | Path,
    *,
    memory: int | None = None,
    arrivals: str = "burst",
    step_seconds: float = DEFAULT_STEP_SECONDS,
    limit: int | None = None,
    offset: int = 0,
) -> tuple[Instance, TraceInfo]:
    """Read the Azure trace CSV into an instance.

    ``memory`` defaults to twice the largest peak (the setting of the project benchmarks);
    ``arrivals`` is ``"burst"`` or ``"online"``; ``offset``/``limit`` select a slice of rows.

    The file must be UTF-8 CSV with the columns ``TIMESTAMP``, ``ContextTokens`` and
    ``GeneratedTokens`` (each once; other columns are ignored), every row as many fields as
    the header, counts written in ASCII digits. Anything else is a
    :class:`~geosched.errors.WorkloadFormatError` or :class:`~geosched.errors.ValidationError`
    naming the line.
    """
    if arrivals not in ("burst", "online"):
        raise ValidationError("arrivals", arrivals, "must be 'burst' or 'online'")
    if isinstance(step_seconds, bool) or not (isinstance(step_seconds, (int, float)) and math.isfinite(step_seconds)
                                              and step_seconds > 0):
        raise ValidationError("step_seconds", step_seconds, "must be a positive number")
    _require_param("limit", limit, 1, optional=True)
    _require_param("offset", offset, 0)
    path = Path(path)
    times: list[Decimal] = []
    lengths: list[tuple[int, int]] = []
    dropped = 0
    rows = 0
    for _, stamp, prompt, output in _trace_rows(path, offset, limit):
        rows += 1
        if output == 0:
            dropped += 1
            continue
        times.append(stamp)
        lengths.append((prompt, output))
    if not lengths:
        raise WorkloadFormatError(f"{path}: no usable rows")
    steps = _arrival_steps(times, step_seconds) if arrivals == "online" else [0] * len(lengths)
    if memory is None:
        memory = 2 * max(s + o for s, o in lengths)
    requests = [Request(f"r{k}", a, s, o) for k, (a, (s, o)) in enumerate(zip(steps, lengths))]
    return Instance(memory, requests), TraceInfo(
        str(path), rows, dropped, step_seconds if arrivals == "online" else None
    )


def _require_param(name: str, value: Any, minimum: int, *, optional: bool = False,
                   maximum: int = MAX_VALUE) -> None:
    """An integer parameter (not a bool or a float) in ``[minimum, maximum]``; None if optional."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(name, value, "must be an integer")
    if not minimum <= value <= maximum:
        raise ValidationError(name, value, f"must be an integer in [{minimum}, {maximum}]")


def _require_real(name: str, value: Any, low: float, high: float, *, low_open: bool = True) -> None:
    """A finite number in ``(low, high]`` (``[low, high]`` when not ``low_open``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not (low < value if low_open else low <= value) or value > high:
        bracket = "(" if low_open else "["
        raise ValidationError(name, value, f"must be a finite number in {bracket}{low:g}, {high:g}]")


MAX_GENERATED = 1_000_000  # requests a generator makes at most (memory and time grow with n)


def _rng(seed: int | None) -> np.random.Generator:
    _require_param("seed", seed, 0, optional=True, maximum=2**128 - 1)
    return np.random.default_rng(seed)


def _require_n(n: Any) -> None:
    _require_param("n", n, 1, maximum=MAX_GENERATED)


def _burst(n: int = 20, seed: int = 0, memory: int | None = None, s_min: int = 1,
           s_max: int = 5, m_min: int = 30, m_max: int = 50) -> Instance:
    _require_n(n)
    _require_param("memory", memory, 1, optional=True)
    _require_param("s_min", s_min, 0)
    _require_param("s_max", s_max, s_min)
    _require_param("m_min", m_min, 1)
    _require_param("m_max", m_max, m_min)
    rng = _rng(seed)
    memory = int(rng.integers(m_min, m_max + 1)) if memory is None else memory
    if s_max + 1 > memory:
        raise ValidationError("memory", memory, f"must be >= s_max + 1 = {s_max + 1}")
    requests = []
    for k in range(n):
        s = int(rng.integers(s_min, s_max + 1))
        o = int(rng.integers(1, memory - s + 1))
        requests.append(Request(f"r{k}", 0, s, o))
    return Instance(memory, requests)


def _poisson(n: int = 200, seed: int = 0, memory: int = 200, mu: float = 0.1,
             rho: float | None = 0.5, rate: float | None = None, s_min: int = 1,
             s_max: int = 10, alpha_cap: float = 0.5) -> Instance:
    _require_n(n)
    _require_param("memory", memory, 1)
    _require_param("s_min", s_min, 0)
    _require_param("s_max", s_max, s_min)
    _require_real("mu", mu, 0, 1)
    _require_real("alpha_cap", alpha_cap, 0, 1)
    rng = _rng(seed)
    cap = int(alpha_cap * memory)
    if cap < s_max + 1:
        raise ValidationError("alpha_cap * memory", cap, f"must be >= s_max + 1 = {s_max + 1}")
    if rate is None:
        if rho is None:
            raise ValidationError("rho", rho, "must be > 0 when rate is not given")
        _require_real("rho", rho, 0, math.inf)
        rate = poisson_rate(memory=memory, mu=mu, rho=rho, s_min=s_min, s_max=s_max, alpha_cap=alpha_cap)
    _require_real("rate", rate, 0, math.inf)
    gaps = rng.exponential(1 / rate, size=n)
    times = np.cumsum(gaps) - gaps[0]
    if not (np.isfinite(times[-1]) and times[-1] <= MAX_VALUE):
        raise ValidationError("rate", rate, f"makes the last arrival step {times[-1]:.3g}, past geosched's limit 2^53")
    requests = []
    for k in range(n):
        s = int(rng.integers(s_min, s_max + 1))
        # truncation keeps s + o <= alpha_cap * M, which geometric lengths alone cannot
        o = min(int(rng.geometric(mu)), cap - s)
        requests.append(Request(f"r{k}", int(times[k]), s, o))
    return Instance(memory, requests)


def poisson_rate(*, memory: int, mu: float, rho: float, s_min: int, s_max: int, alpha_cap: float) -> float:
    """Arrival rate per step giving load ``rho = 2 lambda E[v] / ((1 - alpha) M)``
    (Kong et al., Thm. 3.4), with ``E[v] = E[s]/mu + 1/mu^2`` for ``o ~ Geometric(mu)``
    and uniform prompts (the untruncated lengths)."""
    mean_volume = ((s_min + s_max) / 2) / mu + 1 / mu**2
    return rho * (1 - alpha_cap) * memory / (2 * mean_volume)


def _lognormal_lengths(rng: np.random.Generator, n: int, median: float, mean: float | None,
                       sigma: float | None, lo: int, hi: int) -> np.ndarray:
    mu_log = math.log(median)
    if sigma is None:
        # mean / median = exp(sigma^2 / 2) for a log-normal
        sigma = math.sqrt(2 * math.log(mean / median))
    values = np.rint(rng.lognormal(mu_log, sigma, size=n))
    return np.clip(values, lo, hi).astype(np.int64)


def _chat(n: int = 100, seed: int = 0, memory: int | None = None) -> Instance:
    _require_n(n)
    _require_param("memory", memory, 1, optional=True)
    rng = _rng(seed)
    prompts = _lognormal_lengths(rng, n, 1020, 1155, None, 1, 14050)
    outputs = _lognormal_lengths(rng, n, 129, 211, None, 1, 1000)
    memory = 2 * int((prompts + outputs).max()) if memory is None else memory
    return Instance(memory, [Request(f"r{k}", 0, int(s), int(o)) for k, (s, o) in enumerate(zip(prompts, outputs))])


def _longprompt(n: int = 100, seed: int = 0, memory: int | None = None) -> Instance:
    _require_n(n)
    _require_param("memory", memory, 1, optional=True)
    rng = _rng(seed)
    prompts = _lognormal_lengths(rng, n, 1500, None, 0.8, 1, 16000)
    outputs = _lognormal_lengths(rng, n, 13, None, 0.8, 1, 1000)
    memory = 2 * int((prompts + outputs).max()) if memory is None else memory
    return Instance(memory, [Request(f"r{k}", 0, int(s), int(o)) for k, (s, o) in enumerate(zip(prompts, outputs))])


def _example() -> Instance:
    """The two-request instance of the README: SVF TEL 13, OPT TEL 9."""
    return Instance(12, [Request("r0", 0, 6, 3), Request("r1", 0, 1, 5)])


GENERATORS: dict[str, Callable[..., Instance]] = {
    "burst": _burst,
    "poisson": _poisson,
    "chat": _chat,
    "longprompt": _longprompt,
    "example": _example,
}


def register_generator(name: str, factory: Callable[..., Instance]) -> None:
    """Add a named generator (open registry)."""
    GENERATORS[name] = factory


def generate(name: str, **params: Any) -> Instance:
    """Build a synthetic instance by generator name.

    Parameters
    ----------
    name : str
        ``burst``, ``poisson``, ``chat``, ``longprompt`` or ``example`` (see :data:`GENERATORS`).
    **params
        The generator's parameters, e.g. ``n=20, seed=3`` or ``mu=0.2, rho=0.6``.

    Returns
    -------
    Instance

    Raises
    ------
    UnknownNameError
        For an unknown generator (the message lists the known ones).
    ValidationError
        For an unknown or invalid parameter.

    Examples
    --------
    >>> generate("example").to_dict()["requests"][0]
    {'id': 'r0', 'arrival': 0, 'prompt': 6, 'output': 3}
    >>> generate("burst", n=5, seed=1).n
    5
    """
    try:
        factory = GENERATORS[name]
    except KeyError:
        raise UnknownNameError("workload generator", name, list(GENERATORS)) from None
    accepted = _parameters(factory)
    unknown = [key for key in params if accepted is not None and key not in accepted]
    if unknown:  # named here: Python's own message names the private factory (`_burst() got ...`)
        keys = ", ".join(accepted or ()) or "none"
        raise ValidationError(f"generator {name!r}: parameter {unknown[0]!r}", params[unknown[0]],
                              f"is not a parameter of {name} (it accepts: {keys})")
    try:
        return factory(**params)
    except TypeError as exc:
        raise ValidationError(f"generator {name!r}", params, f"bad parameters ({exc})") from None


def _parameters(factory: Callable[..., Instance]) -> list[str] | None:
    """The keyword parameters ``factory`` accepts, in order (``None``: any, it takes ``**kwargs``)."""
    import inspect

    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values()):
        return None
    return [p.name for p in signature.parameters.values()
            if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]


def load_workload(
    spec: str,
    *,
    memory: int | None = None,
    seed: int | None = None,
    arrivals: str = "burst",
    step_seconds: float = DEFAULT_STEP_SECONDS,
    limit: int | None = None,
    block_size: int | None = None,
) -> Instance:
    """Resolve a workload argument: a ``.json`` instance or witness file, a ``.jsonl`` or ``.csv``
    export (:mod:`geosched.reference_impl.formats`), a ``.csv`` trace, ``trace`` (the shared
    Azure trace), or a generator spec ``name[:k=v,...]`` such as ``burst:n=12,seed=3``.

    Parameters
    ----------
    spec : str
        The workload, as on the command line.
    memory : int, optional
        Overrides the instance's memory budget ``M``.
    seed : int, optional
        The generator's seed (when the spec does not give one).
    arrivals : {"burst", "online"}
        For traces: every request at step 0, or at its timestamp.
    step_seconds : float
        For online traces: seconds per decode step.
    limit : int, optional
        For traces: read at most this many rows.
    block_size : int, optional
        Counts the instance's memory in whole blocks of this many tokens (the CLI's ``--block-size``).
        A workload that already has another block size (an instance file's ``"block_size"``) is an
        error naming both: the flag never silently changes what a file says.

    Returns
    -------
    Instance
        The workload, with ``memory`` as its ``M`` and counted in blocks of ``block_size`` tokens when
        they are given.

    Raises
    ------
    WorkloadFormatError
        For an unreadable or malformed file, or a missing shared trace.
    UnknownNameError
        For an unknown generator name.
    ValidationError
        For an invalid value (named in the message).

    Examples
    --------
    >>> load_workload("burst:n=4,seed=2", memory=50).memory
    50
    """
    from geosched.reference_impl.policies import parse_spec

    path = Path(spec)
    if detect_format(path) is not None or (formats_for_path(path) and not spec.endswith(_TRACE_SUFFIX)):
        # a file of a registered format (geosched.reference_impl.formats: the one suffix rule)
        instance = read_workload_file(path, memory=memory, step_seconds=step_seconds)
    elif spec.endswith(_TRACE_SUFFIX):  # a .csv no format claims: the Azure trace
        instance, _ = read_trace(path, memory=memory, arrivals=arrivals, step_seconds=step_seconds, limit=limit)
    elif spec == "trace" or spec.startswith("trace:"):
        trace = default_trace_path()
        if trace is None:
            raise WorkloadFormatError("trace: ../shared/traces/azure_llm_2023_conv.csv not found beside the project")
        _, params = parse_spec(spec)
        unknown = sorted(set(params) - set(_TRACE_PARAMETERS))
        if unknown:
            raise ValidationError(f"spec {spec!r}", ", ".join(unknown),
                                  f"unknown trace parameter(s); known: {', '.join(_TRACE_PARAMETERS)}")
        instance, _ = read_trace(trace, memory=memory, arrivals=params.get("arrivals", arrivals),
                                 step_seconds=params.get("step_seconds", step_seconds),
                                 limit=params.get("limit", limit), offset=params.get("offset", 0))
    else:
        name, params = parse_spec(spec)
        if name not in GENERATORS:
            if path.suffix:
                raise WorkloadFormatError(f"{spec}: not a .json instance or .csv trace")
            raise UnknownNameError("workload", name, [*GENERATORS, "trace", "<file>.json", "<file>.csv"])
        if seed is not None and name != "example":
            params.setdefault("seed", seed)
        if memory is not None and name != "example":
            params.setdefault("memory", memory)
        instance = generate(name, **params)
    if memory is not None and instance.memory != memory:
        instance = instance.with_memory(memory)
    return with_block_size(instance, block_size)


def with_block_size(instance: Instance, block_size: int | None) -> Instance:
    """``instance`` counted in blocks of ``block_size`` tokens (None: as it is); the one rule of the
    command line's ``--block-size``: a workload with another block size of its own is refused.

    >>> with_block_size(generate("example"), 3).block_size
    3
    >>> with_block_size(generate("example").with_block_size(2), 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: --block-size: the workload's own block_size is 2; ... (got 3)
    """
    if block_size is None or block_size == instance.block_size:
        return instance
    if instance.block_size != 1:
        raise ValidationError("--block-size", block_size, f"the workload's own block_size is {instance.block_size}; "
                              "drop the flag or give the same value")
    return instance.with_block_size(block_size)
