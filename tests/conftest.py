"""Shared test configuration: Hypothesis profiles and the trace fixture.

Profiles: ``dev`` (default, quick, randomized) and ``ci`` (derandomized, no deadline, more
examples); pick one with ``GEOSCHED_HYPOTHESIS_PROFILE=ci`` (``.ci/run`` sets it).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile(os.environ.get("GEOSCHED_HYPOTHESIS_PROFILE", "dev"))

# Progress lines (geosched.progress) are spaced by the wall clock: so that no test of a command's stderr
# depends on the machine's load, the suite (and every command it starts) spaces them an hour apart;
# tests/test_progress.py sets its own interval and judges the lines by their content.
os.environ["GEOSCHED_PROGRESS_SECONDS"] = "3600"

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT.parent / "shared" / "traces" / "azure_llm_2023_conv.csv"


@pytest.fixture
def trace_path() -> Path:
    """The Azure conversation trace beside the project; skips the test when absent."""
    if not TRACE.is_file():
        pytest.skip(f"trace not found at {TRACE}")
    return TRACE


# --------------------------------------------------------------------------- the Coq build, started first
# A fresh clone compiles verify/coq once (minutes): the first process that collects a Coq test starts that build
# in the background, so that it runs beside the other tests instead of in front of the first Coq test; every
# Coq test then reads the shared build cache (~/.cache/geosched/coq, keyed by the sources, under a lock: a test
# that needs the build before it is done waits for the lock and says so). Another xdist worker that starts one
# too waits for the same lock and then only reads the cache.
_COQ_BUILD: list[subprocess.Popen] = []


def pytest_collection_finish(session: pytest.Session) -> None:
    if not any("coq" in item.nodeid.split("::")[0] or item.get_closest_marker("coq_build") for item in session.items):
        return
    if os.environ.get("GEOSCHED_NO_COQ_PREBUILD") == "1":  # a run that deselects every build (-m "not coq_build"),
        return  # such as tests/test_one_file_additions.py's in a copy: a build there would only be killed at the end
    from geosched.verify import coq_engine

    if coq_engine.missing_tools():
        return
    digest, _ = coq_engine.source_hash()
    if (coq_engine.cache_root() / digest[:16] / "build.json").exists():
        return  # built already: every test reads the cache
    _COQ_BUILD.append(subprocess.Popen([sys.executable, "-m", "geosched.verify.coq_engine"], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))


def pytest_unconfigure(config: pytest.Config) -> None:
    for process in _COQ_BUILD:  # a run that ends first (a subset, Ctrl-C) takes its build down with it
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            process.wait()
