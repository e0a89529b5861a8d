"""A user's own scheduler, ``path/to/file.py:Class``: loaded from its file and run in a process of its own.

A scheduler file is named everywhere a policy name is accepted (``simulate``, ``compare``, ``hunt``,
``hunt-small``, the CLI's ``--policy``). :func:`load_scheduler_class` gives a class that the engines use as
they use any scheduler class, but the user's code never runs in this process: the file is executed, and
every ``decide()`` called, in a **worker process** of its own (:class:`_Worker`), so that whatever the
code does, geosched can always stop it:

* the per-call limit (``--decide-seconds``, :mod:`geosched.limits`), SIGTERM and Ctrl-C end the call by
  killing the worker (SIGKILL: a ``while True`` under ``except BaseException``, or one long call into C,
  cannot refuse it), and the command says so in one line; the next call starts a fresh worker from the
  same bytes;
* anything the code raises, ``SystemExit`` and ``KeyboardInterrupt`` included, is an error naming the
  scheduler, the step and where it was raised, never an exit of geosched; a worker that dies is one too;
* what comes back is plain data (a :class:`~geosched.reference_impl.scheduling.Decision`'s fields, read
  by a restricted unpickler), checked by the engine field by field as before;
* the worker starts in isolated mode (``python -I``: no ``PYTHONPATH``, no current folder on
  ``sys.path``), in a session of its own (a terminal's Ctrl-C reaches geosched, which stops it), dies
  with its parent (``PR_SET_PDEATHSIG``), and writes what the code prints to geosched's stderr.

**What is pinned.** The SHA-256 of the file's bytes (:func:`scheduler_file_sha256`; a witness records it,
``check-witness`` refuses a file that differs): the worker executes exactly the bytes that were hashed. A
scheduler file must be *one* file: importing a **local module** (anything outside the Python standard
library, the installed packages and geosched itself, e.g. a ``helpers.py`` beside it or a module found
through ``PYTHONPATH``) is refused at its import, naming the module, since its bytes would not be
covered by the SHA-256 (``docs/adversary.md``, "Security"). Built-in schedulers never leave the process
(their speed is the point); a scheduler object or class given in Python is the caller's and runs in
the caller's process.

A vLLM plugin scheduler of the user's own (``serve-model --scheduler-cls FILE.py:Class``) must live in
vLLM's process: :func:`load_pinned_class` executes it here, after checking its SHA-256 against the one an
export recorded.

Example
-------
>>> is_file_spec("my_sched.py:MyScheduler"), is_file_spec("svf1:theta=8")
(True, False)
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import io
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from typing import Any

from geosched import limits
from geosched.errors import LimitError, ValidationError
from geosched.reference_impl.scheduling import CapabilityError, Decision, DecisionError, Restart

__all__ = ["is_file_spec", "scheduler_file_sha256", "load_scheduler_class", "load_pinned_class", "UserScheduler",
           "LOCAL_MODULE_REFUSAL"]

LOCAL_MODULE_REFUSAL = "a scheduler file must be one file"  # the start of the reason a local import is refused
_STARTUP_SECONDS = 60.0  # a worker that has not loaded the file by then is stopped (a file that never ends loading)


def is_file_spec(spec: object) -> bool:
    """``True`` for ``"path/to/file.py:Class"`` (a user's scheduler file).

    >>> is_file_spec("my_sched.py:MyScheduler"), is_file_spec("svf1:theta=8")
    (True, False)
    """
    return isinstance(spec, str) and spec.partition(":")[0].endswith(".py")


_SOURCES: dict[str, bytes] = {}  # absolute file path -> the bytes this process's workers execute (read once)


def scheduler_file_sha256(spec: str) -> str:
    """The SHA-256 (hex) of the scheduler file of ``"path/to/file.py:Class"``: of the bytes this
    process's workers executed if it loaded the file, else of the file now (read, never executed).
    A witness records it, and ``check-witness`` refuses a file that differs."""
    full = os.path.abspath(spec.partition(":")[0])
    if full in _SOURCES:
        return hashlib.sha256(_SOURCES[full]).hexdigest()
    try:
        with open(full, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError as exc:
        raise ValidationError("policy", spec, f"cannot read the scheduler file ({exc.strerror})") from None


def load_scheduler_class(spec: str) -> type:
    """A class standing for ``Class`` of the file of ``"path/to/file.py:Class"`` (a :class:`UserScheduler`):
    its declarations (``name``, ``clairvoyant``, ``preempts``, ``restart``, ``block_grain``) are the class's,
    read in the worker; each object built from it is an object of the user's class in the worker, and its
    ``decide(state)`` runs there (module docstring).

    Raises
    ------
    ValidationError
        One line naming the spec: no such file, the file fails to import (or imports a local module), no
        such class, or the class is not a scheduler (no ``decide``, ``clairvoyant``, ``preempts``, ``name``).
    """
    path, _, class_name = spec.partition(":")
    if not class_name.isidentifier():
        raise ValidationError("policy", spec, "a scheduler file is named 'path/to/file.py:ClassName'")
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise ValidationError("policy", spec, f"no such file {path!r}")
    key = (full, class_name)
    if key not in _CLASSES:
        worker = _worker_of(full, spec)
        declared = worker.call(("class", class_name), spec=spec)
        _CLASSES[key] = _proxy_class(worker, class_name, declared, spec)
    return _CLASSES[key]


_CLASSES: dict[tuple[str, str], type] = {}  # (file, class name) -> its UserScheduler subclass
_WORKERS: dict[str, _Worker] = {}  # absolute file path -> the worker that runs it in this process


def _worker_of(full: str, spec: str) -> _Worker:
    worker = _WORKERS.get(full)
    if worker is None or worker.owner != os.getpid():  # a forked child starts its own
        if full not in _SOURCES:
            try:
                with open(full, "rb") as handle:
                    _SOURCES[full] = handle.read()  # hashed and executed: the same bytes, every time
            except OSError as exc:
                raise ValidationError("policy", spec, f"cannot read the scheduler file ({exc.strerror})") from None
        worker = _WORKERS[full] = _Worker(full, _SOURCES[full])
    return worker


class UserScheduler:
    """A scheduler of the user's own file, run in its worker process (see the module docstring).

    Subclassed once per (file, class) by :func:`load_scheduler_class` with the class's declarations."""

    name: str = ""
    clairvoyant: bool = False
    preempts: bool = False
    restart: Restart = Restart.FROM_SCRATCH
    block_grain: bool = False
    _worker: _Worker
    _class_name: str
    _spec: str

    def __init__(self, **params: Any) -> None:
        self._generation, self._handle = self._worker.new(self._class_name, params, self._spec)

    def decide(self, state: Any) -> Any:
        """The user's ``decide(state)``, run in the worker under the per-call limit in force."""
        return self._worker.decide(self, state)

    def __del__(self) -> None:
        worker = getattr(self, "_worker", None)
        if worker is not None and getattr(self, "_handle", None) is not None:
            worker.forget(self._generation, self._handle)


def _proxy_class(worker: _Worker, class_name: str, declared: dict[str, Any], spec: str) -> type:
    restart = declared.get("restart")
    attributes = {"name": declared["name"], "clairvoyant": declared["clairvoyant"] is True,
                  "preempts": declared["preempts"] is True, "block_grain": declared["block_grain"] is True,
                  "restart": Restart(restart) if restart in {r.value for r in Restart} else Restart.FROM_SCRATCH,
                  "_worker": worker, "_class_name": class_name, "_spec": spec,
                  "__doc__": f"{spec}, run in a worker process (geosched.reference_impl.user_schedulers)"}
    return type(class_name, (UserScheduler,), attributes)


# ---------------------------------------------------------------- this side of the worker


def _frame(data: Any) -> bytes:
    payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<Q", len(payload)) + payload


class _PlainData(pickle.Unpickler):
    """Reads only plain data (numbers, strings, bytes, lists, tuples, dicts, sets, None): an object the
    user's code made cannot become code in this process when it is read back."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


class _Worker:
    """One worker process for one scheduler file (module docstring): started on first use, killed and
    started again when a call must be stopped; one call at a time (a lock), from any thread."""

    def __init__(self, full: str, source: bytes) -> None:
        self.full, self.source, self.owner = full, source, os.getpid()
        self.process: subprocess.Popen | None = None
        self.generation = 0  # increases at each start: objects of an earlier worker are gone
        self.handles = 0
        self.forgotten: list[int] = []  # objects to drop in the worker, sent with the next call
        self.lock = threading.RLock()

    # -- life cycle

    def _start(self, spec: str) -> None:
        read_here, write_there = os.pipe()
        read_there, write_here = os.pipe()
        boot = f"from geosched.reference_impl.user_schedulers import _serve; _serve({read_there}, {write_there})"
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", boot], stdin=subprocess.DEVNULL, stdout=sys.__stderr__.fileno(),
                pass_fds=(read_there, write_there), start_new_session=True, close_fds=True)
        finally:
            os.close(read_there)
            os.close(write_there)
        self.reader, self.writer = read_here, write_here
        self.generation += 1
        self.forgotten.clear()
        reply = self._exchange(("load", self.full, self.source), _STARTUP_SECONDS,
                               lambda: ValidationError("policy", spec, f"the file did not finish loading in "
                                                                       f"{_STARTUP_SECONDS:g} s"))
        if reply[0] == "error":
            self.stop()
            raise ValidationError("policy", spec, f"the file fails to import ({reply[1]}: {reply[2]})")

    def stop(self) -> None:
        """Kill the worker (its whole session) and forget its objects."""
        process, self.process = self.process, None
        if process is None:
            return
        for fd in (self.reader, self.writer):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()

    def _running(self, spec: str) -> None:
        if self.owner != os.getpid():  # a forked copy of geosched: the worker is its parent's, left alone
            for fd in (self.reader, self.writer) if self.process is not None else ():
                os.close(fd)
            self.process, self.owner = None, os.getpid()
        if self.process is None or self.process.poll() is not None:
            self.stop()
            self._start(spec)

    # -- one request, one reply

    def _exchange(self, message: Any, seconds: float, on_timeout: Any) -> Any:
        """Send ``message`` and wait at most ``seconds`` for the reply. On a timeout, a signal (SIGTERM,
        Ctrl-C, the per-call alarm: any exception raised here) or a dead worker, the worker is killed."""
        try:
            _write_all(self.writer, _frame(message))
            header = self._read(8, seconds, on_timeout)
            (size,) = struct.unpack("<Q", header)
            return _PlainData(io.BytesIO(self._read(size, seconds, on_timeout))).load()
        except BaseException:
            self.stop()
            raise

    def _read(self, size: int, seconds: float, on_timeout: Any) -> bytes:
        deadline = time.monotonic() + seconds
        chunks, got = [], 0
        while got < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.reader], [], [], left)[0]:
                if time.monotonic() >= deadline:
                    raise on_timeout()
                continue
            chunk = os.read(self.reader, min(size - got, 1 << 20))
            if not chunk:
                code = self.process.wait() if self.process is not None else None
                raise _WorkerDied(code)
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def call(self, message: tuple, *, spec: str) -> Any:
        """A request that is not a decision (the class's declarations): its reply, or one line naming ``spec``."""
        with self.lock:
            self._running(spec)
            reply = self._declarations(message, spec, "the worker did not answer")
        if reply[0] == "error":
            raise ValidationError("policy", spec, reply[2])
        return reply[1]

    def _declarations(self, message: tuple, spec: str, late: str) -> tuple:
        """The reply to a message that is not a decision, within the start-up limit (the lock held), or one line
        naming ``spec``: ``late`` and the limit when it does not come, the exit when the worker dies."""
        try:
            return self._exchange(message, _STARTUP_SECONDS, lambda: ValidationError(
                "policy", spec, f"{late} in {_STARTUP_SECONDS:g} s"))
        except _WorkerDied as died:
            raise ValidationError("policy", spec, f"the scheduler's process exited ({died})") from None

    def new(self, class_name: str, params: dict[str, Any], spec: str) -> tuple[int, int]:
        """A new object of the user's class in the worker: (worker generation, handle)."""
        with self.lock:
            self._running(spec)
            self.handles += 1
            handle = self.handles
            message = ("new", handle, class_name, params, tuple(self.forgotten))
            self.forgotten.clear()
            reply = self._declarations(message, spec, f"building {class_name} did not finish")
            if reply[0] == "error":
                if reply[1] == "TypeError":  # the engine words "must build with no arguments" itself
                    raise TypeError(reply[2])
                raise ValidationError("policy", spec, f"building {class_name} raised {reply[1]}: {reply[2]}")
            return self.generation, handle

    def forget(self, generation: int, handle: int) -> None:
        if generation == self.generation:
            self.forgotten.append(handle)

    def decide(self, scheduler: UserScheduler, state: Any) -> Any:
        """``decide(state)`` of ``scheduler``'s object in the worker, under the per-call limit in force."""
        name, spec = scheduler.name, scheduler._spec
        seconds = limits.decide_seconds()
        with self.lock:
            if scheduler._generation != self.generation or self.process is None or self.owner != os.getpid():
                raise DecisionError(f"scheduler {name!r} at step {state.time}", spec,
                                    "its process was stopped by an earlier call (a limit or a signal), or belongs "
                                    "to the process this one was forked from: build a fresh scheduler")
            message = ("decide", scheduler._handle, state, tuple(self.forgotten))
            self.forgotten.clear()
            try:
                expired = limits.decide_expired(seconds, f"scheduler {name!r}")
                reply = self._exchange(message, seconds, lambda: LimitError(expired))
            except _WorkerDied as died:
                raise DecisionError(f"scheduler {name!r} at step {state.time}", spec,
                                    f"its process exited during decide() ({died})") from None
            except pickle.UnpicklingError as exc:
                raise DecisionError(f"scheduler {name!r} at step {state.time}", spec,
                                    f"decide() returned what is not plain data ({exc})") from None
        return _decision(reply, name, state.time)


def _decision(reply: tuple, name: str, time_step: int) -> Any:
    kind = reply[0]
    if kind == "decision":
        decision = object.__new__(Decision)  # the fields as the user's object had them: the engine checks them
        for field_name, value in zip(("admit", "preempt", "quiet_until"), reply[1:], strict=True):
            object.__setattr__(decision, field_name, value)
        return decision
    if kind == "other":  # not a Decision: an object of that type's name, which the engine refuses by name
        return type(reply[1], (), {})()
    _, error_type, message, where = reply
    if error_type == "CapabilityError":
        raise CapabilityError(message)
    raise DecisionError(f"scheduler {name!r} at step {time_step}", f"{error_type}: {message}",
                        f"decide() raised{where}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _WorkerDied(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__("signal " + str(-code) if code is not None and code < 0 else f"exit status {code}")


@atexit.register
def _stop_workers() -> None:
    for worker in list(_WORKERS.values()):
        if worker.owner == os.getpid():
            worker.stop()


# ---------------------------------------------------------------- the worker's side


def _serve(reader: int, writer: int) -> None:  # pragma: no cover - runs in the worker process
    """The worker's loop: load the file, then answer requests until the pipe closes."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # geosched stops the worker; the terminal's Ctrl-C is geosched's
    module, objects = None, {}
    while True:
        header = _read_exactly(reader, 8)
        if header is None:
            return
        request = pickle.loads(_read_exactly(reader, struct.unpack("<Q", header)[0]))
        reply = _answer(request, module, objects)
        if request[0] == "load" and reply[0] == "loaded":
            module, reply = reply[1], ("loaded",)
        try:
            payload = _frame(reply)
        except Exception as exc:  # noqa: BLE001 - what the user's code returned cannot be sent back
            payload = _frame(("error", type(exc).__name__, f"decide() returned what cannot be sent back ({exc})",
                              ""))
        _write_all(writer, payload)


def _answer(request: tuple, module: Any, objects: dict[int, Any]) -> tuple:  # pragma: no cover - in the worker
    kind = request[0]
    try:
        if kind == "load":
            return "loaded", _load_module(request[1], request[2])
        if kind == "class":
            return "ok", _declarations(module, request[1])
        for handle in request[-1]:
            objects.pop(handle, None)
        if kind == "new":
            objects[request[1]] = getattr(module, request[2])(**request[3])
            return ("ok",)
        return _decide_here(objects[request[1]], request[2])
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt included: an error, never an exit
        return "error", type(exc).__name__, str(exc), _where(exc)


def _decide_here(scheduler: Any, state: Any) -> tuple:  # pragma: no cover - in the worker
    decision = scheduler.decide(state)
    if isinstance(decision, Decision):
        return "decision", decision.admit, decision.preempt, decision.quiet_until
    return "other", type(decision).__name__


def _declarations(module: Any, class_name: str) -> dict[str, Any]:  # pragma: no cover - in the worker
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise LookupError(f"{os.path.basename(module.__file__)!r} defines no class {class_name!r}")
    missing = [a for a in ("name", "clairvoyant", "preempts", "decide") if not hasattr(cls, a)]
    if missing:
        raise LookupError(f"not a scheduler: the class lacks {', '.join(missing)}")
    restart = getattr(cls, "restart", Restart.FROM_SCRATCH)
    return {"name": str(cls.name), "clairvoyant": cls.clairvoyant is True, "preempts": cls.preempts is True,
            "block_grain": getattr(cls, "block_grain", False) is True,
            "restart": restart.value if isinstance(restart, Restart) else None}


def _where(exc: BaseException) -> str:
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return f" (at {frame.tb_frame.f_code.co_filename}:{frame.tb_lineno})" if frame is not None else ""


def _load_module(full: str, source: bytes) -> Any:  # pragma: no cover - in the worker
    sys.meta_path.insert(0, _NoLocalModules())
    sys.path.append(os.path.dirname(full))  # last: a local module is found only to be refused by name
    name = "geosched_user_" + "".join(c if c.isalnum() else "_" for c in full)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, full))
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    exec(compile(source, full, "exec"), module.__dict__)  # noqa: S102 - the file the user named
    return module


class _NoLocalModules:
    """A finder, first on ``sys.meta_path`` in the worker: a module found outside the standard library, the
    installed packages and geosched is a local module, refused by name (module docstring)."""

    def __init__(self) -> None:
        import sysconfig

        roots = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
        roots |= {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        roots |= set(getattr(__import__("site"), "getsitepackages", lambda: [])())
        package = importlib.util.find_spec("geosched")
        roots |= {os.path.dirname(p) for p in (package.submodule_search_locations or ())} if package else set()
        self.roots = tuple(os.path.join(os.path.realpath(r), "") for r in roots if r)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name.split(".")[0] == "geosched":
            return None  # geosched's own modules, wherever its editable install maps them
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                self._check(name, spec)
                return spec
        return None

    def _check(self, name: str, spec: Any) -> None:
        places = [spec.origin] if spec.origin not in (None, "built-in", "frozen") else []
        places += list(spec.submodule_search_locations or ()) if spec.origin is None else []
        for place in places:
            if not os.path.join(os.path.realpath(place), "").startswith(self.roots):
                raise ImportError(f"{LOCAL_MODULE_REFUSAL}: it imports the local module {name!r} ({place}), whose "
                                  "bytes its SHA-256 does not cover; put that code in the scheduler file, or "
                                  "install it as a package")


def _read_exactly(fd: int, size: int) -> bytes | None:  # pragma: no cover - in the worker
    chunks, got = [], 0
    while got < size:
        chunk = os.read(fd, size - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _die_with_parent() -> None:  # pragma: no cover - in the worker
    """``PR_SET_PDEATHSIG``: the kernel kills the worker when geosched dies, even by SIGKILL (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before the call
        os._exit(1)


# ---------------------------------------------------------------- a vLLM plugin of the user's own: in vLLM's process


def load_pinned_class(spec: str, sha256: str, *, field: str = "--scheduler-cls") -> type:
    """The class of ``"path/to/file.py:Class"`` when the file's bytes have the SHA-256 ``sha256`` (a plugin
    scheduler of the user's own, pinned by an export), executed in this process (vLLM calls it here): the
    bytes hashed are the bytes executed. One line naming ``field`` for another file, a missing class or a
    file that fails."""
    path, _, class_name = spec.partition(":")
    if not is_file_spec(spec) or not class_name.isidentifier():
        raise ValidationError(field, spec, "must be a scheduler file FILE.py:Class")
    full = os.path.abspath(path)
    try:
        with open(full, "rb") as handle:
            source = handle.read()
    except OSError as exc:
        raise ValidationError(field, spec, f"cannot read the file ({exc.strerror})") from None
    actual = hashlib.sha256(source).hexdigest()
    if actual != sha256:
        raise ValidationError(field, spec, f"its SHA-256 {actual} differs from the recorded {sha256}: not the file "
                              "the export was made with")
    name = "geosched_plugin_" + "".join(c if c.isalnum() else "_" for c in full)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, full))
    sys.modules[name] = module
    try:
        exec(compile(source, full, "exec"), module.__dict__)  # noqa: S102 - the file the user named, pinned
    except Exception as exc:  # the user's file: one line
        del sys.modules[name]
        raise ValidationError(field, spec, f"the file fails to import ({type(exc).__name__}: {exc})") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValidationError(field, spec, f"{path!r} defines no class {class_name!r}")
    return cls

