"""The registry of workload formats: one module per format in this package, found by discovery.

A format is a module of :mod:`geosched.reference_impl.formats` that defines ``FORMAT``, a
:class:`WorkloadFormat`: its name, the file suffixes it is read from (an export's ``--out`` must
end with one of them), a one-line description (the ``--format`` help), a reader, a writer (if
it can be exported), and optionally how it tells its files from another format's of the same
suffix and the extra options of ``geosched export``. No list of formats is kept anywhere: the
modules of the package are scanned (:func:`workload_formats`), and a format living outside the
package is added with :func:`register_format`. Adding a format is one file.

The suffix rule is written once, here: a file is read by the formats whose suffixes it ends
with, in their ``order``; where several share a suffix, the first whose ``detect`` claims the
file reads it (:func:`detect_format`).

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> {'azure-csv', 'json', 'jsonl', 'vllm-bench'} <= set(workload_formats())  # and any module added
True
>>> set(writable_format_names()) < set(workload_formats())  # json (instance files) is read only
True
>>> print(workload_text(burst_instance(12, [(6, 3)]), "jsonl"), end="")
{"format": "geosched-workload", "memory": 12}
{"id": "r0", "arrival": 0, "prompt": 6, "output": 3}
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.reference_impl.formats.common import check_step_seconds
from geosched.reference_impl.jsonfile import require_regular_file
from geosched.reference_impl.model import Instance

__all__ = [
    "WorkloadFormat",
    "ExportSource",
    "ExportPlan",
    "Companion",
    "workload_formats",
    "register_format",
    "get_format",
    "writable_format_names",
    "workload_suffixes",
    "formats_for_path",
    "detect_format",
    "check_export_path",
    "read_workload_file",
    "workload_text",
    "write_workload",
]


@dataclass(frozen=True)
class ExportSource:
    """What ``geosched export`` was asked to write."""

    spec: str  # the workload argument as given (a witness file, an instance file, a generator spec...)
    instance: Instance  # the instance read from it
    witness: Callable[[], Mapping[str, Any] | None] = lambda: None  # the witness object, read on demand


@dataclass(frozen=True)
class Companion:
    """A file written beside an export (after the export itself)."""

    path: str  # where
    text: str  # its contents
    note: str  # the line printed after "wrote PATH: "


@dataclass(frozen=True)
class ExportPlan:
    """A format's own part of an export: writer options, a default step length, companion files."""

    options: Mapping[str, Any] = field(default_factory=dict)  # keyword arguments of the writer
    step_seconds: float | None = None  # the default --step-seconds (None: 0.025)
    companions: tuple[Companion, ...] = ()  # written after the export, refused before it if present
    warnings: tuple[str, ...] = ()  # printed on stderr once the export is written (an error stays one line)


@dataclass(frozen=True)
class WorkloadFormat:
    """One workload file format (define it as ``FORMAT`` in a module of this package).

    ``read(path, *, memory, step_seconds)`` returns the :class:`Instance` (``memory``: ``M`` for
    a file that lacks it; ``step_seconds``: for a file whose arrivals are in seconds);
    ``write(instance, *, step_seconds, **options)`` returns the file's text; ``detect(path)``
    tells whether a file of a shared suffix is this format's (never raises);
    ``add_export_arguments(parser)`` adds the options ``geosched export`` takes for this format,
    and ``plan_export(source, args)`` turns them into an :class:`ExportPlan`.
    """

    name: str  # the --format name
    suffixes: tuple[str, ...]  # the file endings read as this format (an export's --out must end with one)
    description: str  # one line: what the format is (the --format help)
    read: Callable[..., Instance]  # read(path, *, memory, step_seconds) -> Instance
    write: Callable[..., str] | None = None  # write(instance, *, step_seconds, **options) -> text; None: read only
    label: str = ""  # how the export command's help names such a file (default: the name)
    detect: Callable[[Path], bool] | None = None  # among formats sharing a suffix: is this file ours
    order: int = 100  # place in listings and among formats sharing a suffix (then by name)
    add_export_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    plan_export: Callable[[ExportSource, argparse.Namespace], ExportPlan] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or self.name.strip() != self.name:
            raise ValidationError("WorkloadFormat.name", self.name, "must be a non-empty name without spaces")
        if not self.suffixes or not all(isinstance(s, str) and s.startswith(".") and len(s) > 1
                                        for s in self.suffixes):
            raise ValidationError("WorkloadFormat.suffixes", self.suffixes, "must be file endings such as '.jsonl'")
        if not callable(self.read):
            raise ValidationError("WorkloadFormat.read", self.read, "must be a function")


_REGISTERED: dict[str, WorkloadFormat] = {}  # formats added with register_format
_DISCOVERED: dict[tuple[str, ...], dict[str, WorkloadFormat]] = {}  # package path -> its formats


def _discover() -> dict[str, WorkloadFormat]:
    """The ``FORMAT`` of every module of this package (cached per package path)."""
    package = importlib.import_module(__package__)
    key = tuple(package.__path__)
    if key not in _DISCOVERED:
        found: dict[str, WorkloadFormat] = {}
        for module in pkgutil.iter_modules(package.__path__):
            declared = getattr(importlib.import_module(f"{__package__}.{module.name}"), "FORMAT", None)
            if isinstance(declared, WorkloadFormat):
                if declared.name in found:
                    raise ValidationError("workload format", declared.name, f"is declared twice ({module.name})")
                found[declared.name] = declared
        _DISCOVERED[key] = found
    return _DISCOVERED[key]


def workload_formats() -> dict[str, WorkloadFormat]:
    """Every format, name -> :class:`WorkloadFormat`, in listing order (``order``, then name)."""
    every = {**_discover(), **_REGISTERED}
    return {f.name: f for f in sorted(every.values(), key=lambda f: (f.order, f.name))}


def register_format(fmt: WorkloadFormat, *, replace: bool = False) -> WorkloadFormat:
    """Add a format defined outside this package (the hook for a user's own format).

    A name already taken is refused unless ``replace``. Returns ``fmt``.
    """
    if not isinstance(fmt, WorkloadFormat):
        raise ValidationError("format", fmt, "must be a WorkloadFormat")
    if fmt.name in workload_formats() and not replace:
        raise ValidationError("format", fmt.name, "is already a workload format (pass replace=True)")
    _REGISTERED[fmt.name] = fmt
    return fmt


def get_format(name: str, *, writable: bool = False) -> WorkloadFormat:
    """The format called ``name`` (with ``writable``: one that can be exported)."""
    known = workload_formats()
    if writable:
        known = {n: f for n, f in known.items() if f.write is not None}
    if name not in known:
        raise UnknownNameError("workload format", name, list(known))
    return known[name]


def writable_format_names() -> tuple[str, ...]:
    """The names ``geosched export --format`` accepts, in listing order."""
    return tuple(name for name, fmt in workload_formats().items() if fmt.write is not None)


def workload_suffixes() -> tuple[str, ...]:
    """Every suffix some format reads, in listing order."""
    return tuple(dict.fromkeys(s for fmt in workload_formats().values() for s in fmt.suffixes))


def formats_for_path(path: str | Path) -> list[WorkloadFormat]:
    """The formats whose suffixes ``path`` ends with, in listing order (the suffix rule)."""
    text = str(path)
    return [fmt for fmt in workload_formats().values() if any(text.endswith(s) for s in fmt.suffixes)]


def detect_format(path: str | Path) -> WorkloadFormat | None:
    """The format that reads ``path``: the first of :func:`formats_for_path` whose ``detect``
    claims the file (a format without ``detect`` claims every file of its suffixes); None if none."""
    for fmt in formats_for_path(path):
        if fmt.detect is None or fmt.detect(Path(path)):
            return fmt
    return None


def check_export_path(out: str, fmt: WorkloadFormat) -> None:
    """``--out`` must end with one of ``fmt``'s suffixes, so that reading it back finds the format."""
    if not any(out.endswith(s) for s in fmt.suffixes):
        raise ValidationError("--out", out, f"must end with {' or '.join(fmt.suffixes)} for --format {fmt.name} "
                              "(so that load_workload reads it back)")


def read_workload_file(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """Read a workload file of any registered format, chosen by suffix (and ``detect``).

    Parameters
    ----------
    path : path
        The file: an instance or witness ``.json``, a ``.jsonl`` (a geosched workload or a vLLM
        ``timed_trace``, told apart by its first line), an ``azure-csv`` export ``.csv`` (an Azure
        trace without geosched's columns is read by :func:`geosched.reference_impl.workloads.read_trace`).
    memory : int, optional
        ``M`` for a file without one (a vLLM trace without geosched's ``memory`` field).
    step_seconds : float
        Seconds per step, for a file whose arrivals are times (a vLLM trace without ``arrival_step``).

    Returns
    -------
    Instance
        The file's requests, ids and arrivals, in the file's order.

    Raises
    ------
    WorkloadFormatError
        For an unreadable or malformed file (the message names the line and field).
    """
    candidates = formats_for_path(path)
    if not candidates:
        suffixes = workload_suffixes()
        raise WorkloadFormatError(f"{path}: not a {', '.join(suffixes[:-1])} or {suffixes[-1]} workload")
    fmt = detect_format(path) if len(candidates) > 1 else candidates[0]
    if fmt is None:  # no format of this suffix claims it: the first one's reader says what is wrong
        require_regular_file(path)
        fmt = candidates[0]
    return fmt.read(Path(path), memory=memory, step_seconds=step_seconds)


def workload_text(instance: Instance, fmt: str, *, step_seconds: float = 0.025, **options: Any) -> str:
    """The file contents of ``instance`` in format ``fmt``; ``options``: the format's writer's.

    Raises
    ------
    ValidationError
        For an unknown or read-only format, or a bad ``step_seconds``.
    """
    check_step_seconds(step_seconds)  # every writer gets a checked step, used or not
    formats = workload_formats()
    if fmt not in formats or formats[fmt].write is None:
        raise ValidationError("--format", fmt, f"must be one of {', '.join(writable_format_names())}")
    writer = formats[fmt].write
    try:
        inspect.signature(writer).bind(instance, step_seconds=step_seconds, **options)
    except TypeError:  # an option this format's writer does not take: named, never a TypeError from inside
        known = [p for p in inspect.signature(writer).parameters if p not in ("instance", "step_seconds")]
        unknown = sorted(set(options) - set(known))
        raise ValidationError(f"workload_text({fmt!r}) option", ", ".join(unknown) or str(options),
                              f"is not an option of {fmt} (its options: {', '.join(known) or 'none'})") from None
    return writer(instance, step_seconds=step_seconds, **options)


def write_workload(instance: Instance, path: str | Path, fmt: str, *, step_seconds: float = 0.025,
                   force: bool = True, **options: Any) -> Path:
    """Write ``instance`` to ``path`` in format ``fmt`` atomically (``force=False`` refuses an
    existing file; :func:`geosched.output.write_text_atomic`); ``options``: those of
    :func:`workload_text`. Returns the path."""
    from geosched.output import write_text_atomic

    return write_text_atomic(path, workload_text(instance, fmt, step_seconds=step_seconds, **options), force=force)
