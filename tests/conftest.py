"""Shared test configuration: Hypothesis profiles and the trace fixture.

Profiles: ``dev`` (default, quick, randomized) and ``ci`` (derandomized, no deadline, more
examples); pick one with ``GEOSCHED_HYPOTHESIS_PROFILE=ci`` (``.ci/run`` sets it).
"""

from __future__ import annotations

import os
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
