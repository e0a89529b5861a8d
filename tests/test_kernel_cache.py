"""The compiled kernel says when it compiles, once, and is cached on disk (issue 44, item 3).

A fresh numba cache folder stands for a fresh clone: the first ``simulate`` of a large instance says once that
the kernel compiles and where it is cached; the second says nothing and loads it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from geosched.reference_impl import kernel
from geosched.reference_impl.simulation import COMPILED_MIN_REQUESTS

NOTICE = "compiling the simulation kernel (numba) once"


def _simulate(cache: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "GEOSCHED_PROGRESS_SECONDS": "3600"}
    return subprocess.run([sys.executable, "-m", "geosched", "simulate", f"burst:n={COMPILED_MIN_REQUESTS},seed=1",
                           "--policy", "svf"], capture_output=True, text=True, env=env, timeout=900, check=True)


@pytest.mark.slow
def test_the_first_run_says_it_compiles_once_and_the_second_loads_the_cache(tmp_path):
    first, second = _simulate(str(tmp_path)), _simulate(str(tmp_path))
    assert first.stderr.count(NOTICE) == 1, first.stderr
    assert f"cached in {tmp_path}" in first.stderr
    assert any(p.suffix == ".nbi" for p in tmp_path.rglob("*"))  # numba's index, on disk
    assert NOTICE not in second.stderr, second.stderr
    assert first.stdout == second.stdout


def test_a_function_compiled_in_this_process_counts_as_cached():
    import numpy as np

    kernel.run_exact(12, np.array([6, 1]), np.array([3, 5]), np.array([0, 0]), np.array([1, 0]), False)
    assert kernel.cached_on_disk(kernel.run_exact) is True
    assert kernel.cached_on_disk(len) is None  # not a numba function: nothing is claimed
