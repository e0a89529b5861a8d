"""Output helpers shared by every command: the ``--json`` contract and the one safe file writer.

Every file a command writes goes through :func:`write_bytes_atomic` (or its text, JSON and
by-name forms :func:`write_text_atomic`, :func:`write_json_atomic`, :func:`atomic_path`):

* the data goes to a temporary file ``.NAME.PID.XXXX.tmp`` in the target's folder, is fsynced,
  and is renamed onto the target, so that a kill or a full disk leaves the old file or the new
  complete one, never a partial one; the target path itself is never opened;
* an existing target is refused unless ``force`` (``FIELD: PATH exists (use --force)``), and
  without ``force`` the rename cannot clobber a file that appeared meanwhile (a hard link
  is the no-replace rename);
* a symbolic link is refused, with or without ``force``: nothing is written through it and the
  link is not replaced (remove it, or name the real file);
* every :class:`OSError` (a folder as target, a missing or read-only folder, a full disk, a
  name too long) becomes an :class:`OutputError` naming the field, the path and the OS's
  reason, which the CLI prints as one line with exit status 2; the temporary file is removed;
* temporary files left by a killed writer (its pid no longer runs) are removed by the next
  write of the same name;
* one writer at a time: a command that writes one target for a while (``hunt-small --out``,
  ``claims --out``) holds :func:`writer_lock` on it, and a second one is refused in one line naming
  the first (``hunt`` has its own ``.lock`` in its folder).

:func:`rescue_text` keeps finished work whose final write failed (a trained model, a hunt's
results) in a fallback file, so that the error can say where it went.

This module sits below both :mod:`geosched.cli` and the subpackages' ``commands`` modules,
so that neither imports the other's internals (no import cycle through the CLI).

>>> from fractions import Fraction
>>> emit_json({"ratio": Fraction(3, 2)})
{
 "ratio": 1.5
}
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError

__all__ = ["emit_json", "json_default", "to_json", "install_hint", "working", "OutputError", "check_target",
           "check_folder", "write_bytes_atomic", "write_text_atomic", "write_json_atomic", "atomic_path", "rescue_text",
           "writer_lock"]


def json_default(value: Any) -> Any:
    """The ``default=`` hook of :func:`json.dumps` for geosched's values.

    Fractions become floats, numpy scalars Python numbers, and any object with ``to_dict()``
    its dictionary; anything else is a ``TypeError`` as in :mod:`json`.
    """
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    # numpy scalars, without importing numpy here
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def to_json(data: Any) -> str:
    """``data`` as indented JSON text with :func:`json_default`."""
    return json.dumps(data, indent=1, sort_keys=False, default=json_default)


def emit_json(data: Any) -> None:
    """Print one JSON object on stdout (the ``--json`` contract of every command)."""
    print(to_json(data))


@contextlib.contextmanager
def working(description: str, enabled: bool) -> Iterator[Any]:
    """Progress on stderr for a step that reports none of its own: the step's name as the stage
    of the command's :class:`~geosched.progress.Reporter` (its heartbeat prints a line every few
    seconds off a terminal, redraws one on a terminal), or of a reporter opened for the step when
    the command has none. Yields an object whose ``set_description_str`` names the next stage, or
    ``None`` when disabled (``--quiet``); it never writes to stdout, so ``--json`` stays clean.

    >>> with working("solving", enabled=False) as bar:
    ...     bar is None
    True
    """
    from geosched import progress

    if not enabled:
        yield None
        return
    if progress.current() is None:  # a library call (docs/build.py): a reporter of its own, named after the step
        with progress.reporting(description) as reporter:
            yield _Stage(reporter)
        return
    with progress.staged(description) as outer:
        yield _Stage(outer)


class _Stage:
    """What :func:`working` yields: ``set_description_str(text)`` sets the stage."""

    def __init__(self, reporter: Any) -> None:
        self.reporter = reporter

    def set_description_str(self, text: str) -> None:
        self.reporter.stage(text)


def install_hint(extra: str) -> str:
    """How to install an optional extra, valid from a clone and from PyPI alike.

    >>> install_hint("plot")
    "pip install -e '.[plot]' (from a clone) or pip install 'geosched[plot]'"
    """
    return f"pip install -e '.[{extra}]' (from a clone) or pip install 'geosched[{extra}]'"


class OutputError(GeoschedError, OSError):
    """A file could not be written (refused, or the OS said no); the message is one line."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _refusal(path: Path, force: bool, field: str) -> str | None:
    """Why ``path`` may not be written (``None``: it may)."""
    if os.path.islink(path):
        return (f"{field}: {path} is a symbolic link; geosched neither writes through links nor replaces them "
                "(remove it or name the real file)")
    if path.is_dir():
        return f"{field}: {path} is a folder (give a file name)"
    if path.exists() and not force:
        return f"{field}: {path} exists (use --force)"
    if not path.parent.is_dir():
        return f"{field}: cannot write {path} (no folder {path.parent})"
    if not os.access(path.parent, os.W_OK | os.X_OK):  # also a read-only file system, for root
        reason = "Read-only file system" if _read_only(path.parent) else "Permission denied"
        return f"{field}: cannot write {path} ({reason}: the folder {path.parent} is not writable)"
    return None


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_target(path: str | Path, *, force: bool = False, field: str = "--out") -> Path:
    """Refuse a target before any work: a folder, a symlink, a missing folder, or (without
    ``force``) an existing file raise :class:`OutputError`; returns the path.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> check_target(folder, field="--out")
    Traceback (most recent call last):
    ...
    geosched.output.OutputError: --out: ... is a folder (give a file name)
    """
    path = Path(path)
    try:
        why = _refusal(path, force, field)
    except OSError as exc:  # a name too long, a path through a file
        raise OutputError(f"{field}: cannot write {path} ({_os_reason(exc)})") from None
    if why is not None:
        raise OutputError(why)
    return path


def check_folder(path: str | Path, *, field: str = "--out") -> Path:
    """Refuse an output *folder* before any work: a file or a symlink in its place, or (for the
    folder or, when it does not exist yet, the nearest folder above it) one this process cannot
    write in, a read-only file system included (:class:`OutputError`, one line); returns the path.
    Nothing is created.

    >>> import tempfile
    >>> check_folder(tempfile.mkstemp()[1])
    Traceback (most recent call last):
    ...
    geosched.output.OutputError: --out: ... is not a folder
    """
    path = Path(path)
    try:
        if os.path.islink(path) or (path.exists() and not path.is_dir()):
            raise OutputError(f"{field}: {path} is not a folder")
        existing = path
        while not existing.exists():
            existing = existing.parent
        if not existing.is_dir():
            raise OutputError(f"{field}: cannot write in {path} ({existing} is not a folder)")
        if not os.access(existing, os.W_OK | os.X_OK) or _read_only(existing):  # root: only the flag tells
            reason = "Read-only file system" if _read_only(existing) else "Permission denied"
            raise OutputError(f"{field}: cannot write in {path} ({reason}: the folder {existing} is not writable)")
    except OSError as exc:
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"{field}: cannot write in {path} ({_os_reason(exc)})") from None
    return path


def _os_reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    return exc.strerror or type(exc).__name__


def _temporary_prefix(path: Path) -> str:
    # a long target name must not make the temporary's name too long (255 bytes on most file systems)
    return f".{path.name[:80]}."


def _remove_stale_temporaries(path: Path) -> None:
    """Remove ``.NAME.PID.*.tmp`` files of ``path`` whose writer process no longer runs."""
    prefix = _temporary_prefix(path)
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _process_alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _commit(temporary: str, path: Path, force: bool, field: str) -> None:
    """Rename ``temporary`` onto ``path``; without ``force``, never over a file that exists now."""
    why = _refusal(path, force, field)  # again: the target may have appeared during the work
    if why is not None:
        raise OutputError(why)
    if force:
        os.replace(temporary, path)
        return
    try:
        os.link(temporary, path)  # fails if path exists: the no-replace rename
    except FileExistsError:
        raise OutputError(f"{field}: {path} exists (use --force)") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        os.replace(temporary, path)  # a file system without hard links: checked just above
    else:
        os.unlink(temporary)


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextlib.contextmanager
def atomic_path(path: str | Path, *, force: bool = True, field: str = "--out") -> Iterator[Path]:
    """A temporary path in ``path``'s folder for a library that writes by file name (matplotlib's
    ``savefig``, jupytext); on a clean exit it is fsynced and renamed onto ``path``.

    Refusals and OS errors are :class:`OutputError`; the temporary file never outlives the block.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_path(target) as temporary:
    ...     _ = temporary.write_text("hello")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('hello', ['a.txt'])
    """
    path = Path(path)
    check_target(path, force=force, field=field)
    _remove_stale_temporaries(path)
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f"{_temporary_prefix(path)}{os.getpid()}.", suffix=".tmp",
                                             dir=path.parent)
        os.close(handle)
        yield Path(temporary)
        handle = os.open(temporary, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600: an output file is meant to be read
        _commit(temporary, path, force, field)
        _sync_folder(path.parent)
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"{field}: cannot write {path} ({_os_reason(exc)})") from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _write_all(handle: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(handle, view)
        view = view[written:]


def write_bytes_atomic(path: str | Path, data: bytes, *, force: bool = True, field: str = "--out") -> Path:
    """Write ``data`` to ``path`` so that a reader (or a kill, or a full disk) never sees a partial file.

    The bytes go to a temporary file in the same folder, are fsynced, and the file is renamed
    onto ``path`` (see the module docstring for the refusals). ``force=False`` refuses an
    existing file: commands pass their ``--force``; checkpoints, which replace their own
    earlier state, keep the default.

    Raises
    ------
    OutputError
        A refused target (``FIELD: PATH exists (use --force)``, a symlink, a folder) or an OS
        error (``FIELD: cannot write PATH (REASON)``); nothing is left behind.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "a.bin"
    >>> _ = write_bytes_atomic(target, b"one")
    >>> write_bytes_atomic(target, b"two", force=False)
    Traceback (most recent call last):
    ...
    geosched.output.OutputError: --out: ... exists (use --force)
    >>> target.read_bytes()
    b'one'
    """
    with atomic_path(path, force=force, field=field) as temporary:
        handle = os.open(temporary, os.O_WRONLY | os.O_TRUNC)
        try:
            _write_all(handle, data)
        finally:
            os.close(handle)
    return Path(path)


def write_text_atomic(path: str | Path, text: str, *, force: bool = True, field: str = "--out") -> Path:
    """:func:`write_bytes_atomic` of ``text`` in UTF-8 (a text that cannot be encoded is an
    :class:`OutputError`, before any file is made)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise OutputError(f"{field}: cannot write {path} (text not encodable as UTF-8 at position {exc.start})") \
            from None
    return write_bytes_atomic(path, data, force=force, field=field)


def write_json_atomic(path: str | Path, data: Any, *, force: bool = True, field: str = "--out") -> Path:
    """:func:`write_text_atomic` of :func:`to_json` (indented, one trailing newline)."""
    return write_text_atomic(path, to_json(data) + "\n", force=force, field=field)


def rescue_text(path: str | Path, text: str) -> Path | None:
    """Keep ``text`` (finished work whose write to ``path`` failed) in a fallback file: a sibling
    ``NAME.rescued-PID``, else the same name in the system's temporary folder. Returns where
    it went, or ``None`` when both failed.

    >>> import tempfile
    >>> missing = Path(tempfile.mkdtemp()) / "no-such-folder" / "model.json"
    >>> kept = rescue_text(missing, "{}")
    >>> kept.name.startswith("model.json.rescued-"), kept.read_text()
    (True, '{}')
    """
    path = Path(path)
    name = f"{path.name[:200]}.rescued-{os.getpid()}"
    for folder in (path.parent, Path(tempfile.gettempdir())):
        for attempt in range(100):  # never over an earlier rescue: NAME.rescued-PID, then .1, .2, ...
            target = folder / (name if attempt == 0 else f"{name}.{attempt}")
            if target.exists() or target.is_symlink():
                continue
            try:
                return write_text_atomic(target, text, force=False, field="rescue")
            except OutputError:
                break  # this folder refuses writes: try the next one
    return None


LOCK_FOLDER = Path(tempfile.gettempdir()) / "geosched-writers"  # one lock file per target, outside the target's folder


@contextlib.contextmanager
def writer_lock(path: str | Path, *, field: str = "--out") -> Iterator[None]:
    """Hold the one-writer lock of ``path`` (a file or folder to be written) for the block; refuse, in one line
    naming ``field``, the pid and the command of the holder, when another process holds it.

    The lock is ``fcntl.flock`` on a file named by the SHA-256 of the target's real path in
    :data:`LOCK_FOLDER` (nothing is left beside the target; the kernel releases it when its holder dies,
    even by SIGKILL, so no lock outlives a writer).
    """
    import hashlib
    import sys

    from geosched.progress import locked_file

    target = Path(path)
    real = os.path.join(os.path.realpath(target.parent), target.name)
    LOCK_FOLDER.mkdir(parents=True, exist_ok=True)
    lock = LOCK_FOLDER / (hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".lock")

    def refuse(handle: int) -> None:
        holder = os.pread(handle, 300, 0).decode("utf-8", "replace").strip() or "another process"
        raise OutputError(f"{field}: {path}: another geosched is writing it ({holder}); wait for it to end or "
                          "choose another path") from None

    with locked_file(lock, lambda: f"pid {os.getpid()}: geosched {' '.join(sys.argv[1:3])}", refuse):
        yield
