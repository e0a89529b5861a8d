"""The background Coq build's progress, measured (issue 44, item 1): files compiled so far, and the rest estimated
at the rate measured so far, never from a recorded constant.

:func:`geosched.verify.coq_evidence.start_build` starts the build in a background thread while the ledger runs the
rows that need no Coq; :func:`watch` follows it from another daemon thread: it counts the ``.vo`` files in the
build's working folder (:func:`~geosched.verify.coq_engine.build` compiles a copy of the sources in
``CACHE/.<hash>.*/src``) against the ``.v`` files of ``verify/coq``, and says on the command's progress stream,
once at least one file is compiled and then every :data:`EVERY` seconds, how far it is and how long the rest
takes at that rate. It reads the folder only: nothing it finds changes a result.

Example
-------
>>> estimate(10, 40, 120.0)
'10/40 files compiled in 120 s; about 6 min left at this rate'
>>> estimate(0, 40, 5.0) is None
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from geosched.progress import note
from geosched.verify import coq_engine

__all__ = ["watch", "estimate", "compiled_files", "EVERY"]

EVERY = 60.0  # seconds between two lines after the first
_POLL = 5.0  # seconds between two looks at the folder
_NOT_COUNTED = ("Assumptions", "Extract")  # not among the build's files (coq_engine: the extraction step compiles them)


def estimate(done: int, total: int, elapsed: float) -> str | None:
    """``done/total files compiled in N s; about M min left at this rate`` (None before the first file)."""
    if done <= 0 or total <= 0:
        return None
    left = elapsed / done * max(total - done, 0)
    when = f"about {max(1, round(left / 60))} min left at this rate" if done < total else "compiling done"
    return f"{done}/{total} files compiled in {elapsed:.0f} s; {when}"


def compiled_files(cache: Path, digest: str, sources: Path = coq_engine.COQ_DIR) -> tuple[int, int]:
    """``(files compiled, files in all)`` of the build of ``digest`` under way in ``cache``: the ``.vo`` files of its
    newest working folder, and the ``.v`` files of the sources: the files the build's first line counts (the
    generated Assumptions.v and Extract.v, compiled by the extraction step after the files, not counted)."""
    files = {p.stem for p in sources.glob("*.v") if p.stem not in _NOT_COUNTED}
    folders = sorted(cache.glob(f".{digest[:16]}.*/src"), key=lambda p: p.stat().st_mtime)
    done = sum(1 for p in folders[-1].glob("*.vo") if p.stem in files) if folders else 0  # not the checks' scripts
    return done, len(files)


def watch(build: Future, *, cache: Path | None = None, digest: str | None = None, sources: Path = coq_engine.COQ_DIR,
          clock: Callable[[], float] = time.monotonic, wait: Callable[[float], bool] | None = None) -> threading.Thread:
    """Follow ``build`` (the background build's future) in a daemon thread until it is done; returns the thread.
    ``cache``, ``digest``, ``sources``, ``clock`` and ``wait`` (``wait(seconds)`` returns True to stop) are a
    test's to replace."""
    began = clock()
    stop = threading.Event()
    pause = wait if wait is not None else stop.wait

    def follow() -> None:
        root = cache if cache is not None else coq_engine.cache_root()
        key = digest if digest is not None else coq_engine.source_hash()[0]
        said = None
        while not build.done() and not pause(_POLL):
            text = estimate(*compiled_files(root, key, sources), clock() - began)
            if text is not None and (said is None or clock() - said >= EVERY):
                note(f"Coq build: {text}")
                said = clock()

    thread = threading.Thread(target=follow, name="geosched-coq-watch", daemon=True)
    thread.start()
    return thread
