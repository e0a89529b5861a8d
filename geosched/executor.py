"""One execution interface for the long checks: serial here, or a Dask cluster.

The exhaustive checker, the Monte-Carlo, the hunts' restarts, the mutation campaign and
``geosched claims --thorough`` cut their work into *deterministic chunks*: each chunk is a
job tuple handed to a pure, module-level function, and the results are merged in chunk
order. Where a chunk runs therefore cannot change the answer: every executor returns
exactly the serial result.

An executor is a :class:`concurrent.futures.Executor` (``submit``, ``map``, ``shutdown``,
a context manager) made by :func:`make_executor` from a *spec*:

* ``"serial"`` (the default, also ``None``): every job runs in this process, when its result
  is asked for;
* ``"local:N"``: a Dask ``LocalCluster`` of ``N`` single-threaded worker processes on this
  machine, started here and closed with the executor;
* ``"tcp://HOST:PORT"``: join a running Dask scheduler (``dask scheduler`` /
  ``dask-jobqueue`` / ``dask-kubernetes``; docs/cluster.md); the cluster stays up afterwards. A peer
  that is not a Dask scheduler is refused in at most 10 s (:func:`check_dask_peer`).

The Dask executors need the optional extra ``geosched[cluster]`` (``distributed``); without
it a spec other than ``serial`` is a one-line error naming the extra.

Faults: a Dask worker that dies takes its running jobs with it; the scheduler re-runs them on
the remaining workers (each job may be lost with up to ``allowed_failures`` workers, Dask's
default 3), and since a job is a pure function of its tuple the merged result is unchanged.
A killed *client* loses only the chunks since its last checkpoint (``--resume``).

Example
-------
>>> with make_executor("serial") as pool:
...     list(pool.map(abs, [-2, 1, -3]))
[2, 1, 3]
>>> parse_spec("local:4")
('local', 4)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import re
import socket
import struct
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from geosched.errors import GeoschedError, ValidationError
from geosched.output import install_hint

__all__ = ["SerialExecutor", "DaskExecutor", "make_executor", "parse_spec", "cluster_spec", "using_executor",
           "ClusterUnavailableError", "SPEC_HELP", "check_dask_peer"]

SPEC_HELP = "serial, local:N (N >= 1 Dask worker processes here) or tcp://HOST:PORT (a running Dask scheduler)"
_LOCAL = re.compile(r"local:([0-9]{1,4})")
_TCP = re.compile(r"tcp://[A-Za-z0-9.\-\[\]:]+:([0-9]{1,5})")


class ClusterUnavailableError(GeoschedError):
    """A cluster spec was given but Dask distributed is not installed, or the scheduler is unreachable."""


def parse_spec(spec: str | None) -> tuple[str, Any]:
    """``("serial", None)``, ``("local", N)`` or ``("tcp", address)`` for an executor spec.

    Raises
    ------
    ValidationError
        Naming ``--cluster`` and the value, when the spec is none of the three forms.

    Examples
    --------
    >>> parse_spec(None), parse_spec("tcp://10.0.0.5:8786")
    (('serial', None), ('tcp', 'tcp://10.0.0.5:8786'))
    >>> parse_spec("local:0")
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: --cluster: must be serial, local:N (N >= 1 Dask worker processes here) or \
tcp://HOST:PORT (a running Dask scheduler) (got 'local:0')
    """
    text = "serial" if spec is None else str(spec).strip()
    if text == "serial":
        return "serial", None
    local = _LOCAL.fullmatch(text)
    if local and int(local.group(1)) >= 1:
        return "local", int(local.group(1))
    tcp = _TCP.fullmatch(text)
    if tcp and 1 <= int(tcp.group(1)) <= 65535:
        return "tcp", text
    raise ValidationError("--cluster", spec, f"must be {SPEC_HELP}")


def cluster_spec(text: str) -> str:
    """argparse ``type=`` for ``--cluster``: the spec, checked (a bad one is a one-line usage error)."""
    try:
        parse_spec(text)
    except ValidationError:
        raise argparse.ArgumentTypeError(f"must be {SPEC_HELP}, got {text!r}") from None
    return text


class SerialExecutor(concurrent.futures.Executor):
    """Runs every job in this process; ``map`` is lazy (a job runs when its result is taken).

    >>> SerialExecutor().submit(pow, 2, 10).result()
    1024
    """

    spec = "serial"
    workers = 1

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - handed to the caller through the future, as a pool would
            future.set_exception(exc)
        return future

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any], timeout: float | None = None,
            chunksize: int = 1, buffersize: int | None = None) -> Iterator[Any]:
        return (fn(*args) for args in zip(*iterables))


class DaskExecutor(concurrent.futures.Executor):
    """A Dask ``distributed.Client`` behind the executor interface.

    ``map`` keeps at most ``buffersize`` jobs in flight (default: 8 per worker thread, at least
    32) and yields results in submission order, so a caller can checkpoint after each chunk and
    stop early without having queued the whole run. The window is wide because the results
    are taken in order: a slow chunk at its head must not leave the workers idle
    (benchmarks/RESULTS.md, section 8: a window of 2 per worker left them idle much of the time).
    """

    def __init__(self, spec: str, client: Any, cluster: Any = None) -> None:
        self.spec = spec
        self.client = client
        self._cluster = cluster

    @property
    def workers(self) -> int:
        """Worker threads the scheduler knows now (at least 1)."""
        return max(1, sum(self.client.nthreads().values()))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        # pure=False: two equal jobs are two runs (a job's result must not be taken from a cache keyed by hash)
        return self.client.submit(fn, *args, pure=False, **kwargs)

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any], timeout: float | None = None,
            chunksize: int = 1, buffersize: int | None = None) -> Iterator[Any]:
        return self._ordered(fn, zip(*iterables), buffersize or max(32, 8 * self.workers))

    def _ordered(self, fn: Callable[..., Any], jobs: Iterator[tuple], window: int) -> Iterator[Any]:
        pending: deque = deque()
        try:
            for args in jobs:
                pending.append(self.submit(fn, *args))
                if len(pending) >= window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:  # an early stop cancels what was queued
            if pending:
                self.client.cancel(list(pending))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        # bounded: a worker that does not answer must not keep the caller waiting for ever
        self.client.close(timeout=_CLOSE_SECONDS)
        if self._cluster is not None:
            self._cluster.close(timeout=_CLOSE_SECONDS)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterUnavailableError(f"--cluster needs Dask distributed: {install_hint('cluster')}") from None
    return distributed


_CLOSE_SECONDS = 60
_HANDSHAKE_SECONDS = 5.0  # to connect, then again to receive a Dask scheduler's greeting


def _local_cluster(distributed: Any, spec: str, workers: int) -> DaskExecutor:
    """``local:N``: a cluster only this process can use, with no HTTP listener.

    Dask's scheduler and workers accept any client that reaches their port and run the code it
    sends. Here every connection is TLS with an ephemeral certificate authority made in this
    process (:meth:`distributed.security.Security.temporary`, which needs ``cryptography``), so
    another local user who finds the port on 127.0.0.1 cannot connect, let alone submit work.
    No HTTP server ever listens (:mod:`geosched._dask_nodes`: the scheduler and the workers never
    bind one, not even during start-up).
    """
    try:
        security = distributed.security.Security.temporary()
    except ImportError:
        raise ClusterUnavailableError("--cluster local:N needs the cryptography package for its private TLS "
                                      f"certificates: {install_hint('cluster')}") from None
    from geosched._dask_nodes import private_cluster

    cluster = private_cluster(workers, security)
    try:
        client = distributed.Client(cluster, security=security)
    except BaseException:
        cluster.close()
        raise
    return DaskExecutor(spec, client, cluster)


def check_dask_peer(address: str, seconds: float = _HANDSHAKE_SECONDS) -> None:
    """Refuse, in at most ``2 * seconds``, a ``tcp://HOST:PORT`` peer that is not a Dask scheduler.

    A Dask scheduler greets every connection at once with its handshake: an 8-byte length, then a
    msgpack message naming ``pickle-protocol``. Anything else (a peer that waits for a request, as an
    HTTP server does, or sends something else) would make Dask read foreign bytes as a frame length and
    try to allocate it; here it is one :class:`ClusterUnavailableError` instead, before Dask connects.
    Bounded: ``seconds`` to connect, then ``seconds`` for the greeting, whatever the peer sends.
    """
    host, _, port = address[len("tcp://"):].rpartition(":")
    host = host.strip("[]")
    not_dask = f"--cluster {address}: the peer is not a Dask scheduler"
    try:
        conn = socket.create_connection((host, int(port)), timeout=seconds)
    except OSError as exc:
        raise ClusterUnavailableError(f"--cluster {address}: no Dask scheduler reachable "
                                      f"({exc.strerror or exc or 'timed out'})") from None
    try:
        with conn:
            deadline = time.monotonic() + seconds
            (size,) = struct.unpack("<Q", _receive(conn, 8, deadline))
            if not 0 < size <= 1 << 16:
                raise ClusterUnavailableError(f"{not_dask} (its first bytes are no Dask handshake)")
            greeting = _receive(conn, size, deadline)
    except TimeoutError:
        raise ClusterUnavailableError(f"{not_dask} (no Dask handshake within {seconds:g} s: a Dask scheduler "
                                      "greets every connection at once)") from None
    except OSError as exc:
        raise ClusterUnavailableError(f"{not_dask} ({exc.strerror or 'it closed the connection'})") from None
    if b"pickle-protocol" not in greeting:
        raise ClusterUnavailableError(f"{not_dask} (its first message is no Dask handshake)")


def _receive(conn: socket.socket, count: int, deadline: float) -> bytes:
    data = b""
    while len(data) < count:
        conn.settimeout(max(deadline - time.monotonic(), 1e-3))
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise ConnectionError(0, "it closed the connection before a Dask handshake")
        data += chunk
    return data


def make_executor(spec: str | None = "serial") -> concurrent.futures.Executor:
    """The executor for ``spec`` (see the module docstring); close it with ``shutdown`` or ``with``.

    Parameters
    ----------
    spec : str or None
        ``"serial"`` (or None), ``"local:N"`` or ``"tcp://HOST:PORT"``.

    Returns
    -------
    concurrent.futures.Executor
        :class:`SerialExecutor` or :class:`DaskExecutor`.

    Raises
    ------
    ValidationError
        For a spec of none of these forms (naming ``--cluster``).
    ClusterUnavailableError
        When Dask distributed is missing (naming the extra ``geosched[cluster]``) or the
        scheduler cannot be reached.

    Examples
    --------
    >>> make_executor().submit(sum, [1, 2]).result()
    3
    """
    kind, value = parse_spec(spec)
    if kind == "serial":
        return SerialExecutor()
    distributed = _distributed()
    if kind == "local":
        return _local_cluster(distributed, str(spec), value)
    check_dask_peer(value)
    try:
        client = distributed.Client(value, timeout="20s")
    except OSError as exc:
        raise ClusterUnavailableError(f"--cluster {value}: no Dask scheduler reachable ({exc})") from None
    return DaskExecutor(str(spec), client)


@contextmanager
def using_executor(executor: concurrent.futures.Executor | str | None) -> Iterator[concurrent.futures.Executor]:
    """The executor given (left open), or one made from a spec (closed on exit).

    >>> with using_executor(None) as pool:
    ...     pool.spec
    'serial'
    """
    if isinstance(executor, concurrent.futures.Executor):
        yield executor
        return
    made = make_executor(executor)
    try:
        yield made
    finally:
        made.shutdown()
