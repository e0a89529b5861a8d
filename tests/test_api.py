"""The public API: ``import geosched as gs`` gives the names a user needs, lazily."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import geosched as gs

FUNCTIONS = ["load_workload", "generate", "simulate", "compare", "check_schedule", "solve_opt", "lower_bound",
             "run_claims", "derivation", "hunt", "verify_witness"]
CLASSES = ["Instance", "Request"]


def test_import_is_lazy():
    """No heavy module on ``import geosched`` (what makes it fast; the time itself is measured in
    benchmarks/bench_startup.py, never here: no test depends on wall-clock time)."""
    code = ("import sys; import geosched as gs; "
            "print([m for m in ('numpy', 'sympy', 'z3', 'ortools', 'scipy', 'numba') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_every_public_name_resolves_and_is_listed():
    for name in FUNCTIONS + CLASSES:
        assert name in gs.__all__
        assert getattr(gs, name) is not None
    with pytest.raises(AttributeError):
        gs.not_a_name  # noqa: B018


@pytest.mark.parametrize("name", FUNCTIONS)
def test_public_functions_have_numpydoc_sections(name):
    doc = inspect.getdoc(getattr(gs, name))
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n{section}\n---" in doc, f"gs.{name}: no {section} section"


def test_the_readme_example_runs():
    # the "Python" example of README.md, by hand: SVF and OPT on the paper's instance
    inst = gs.Instance(12, [gs.Request("a", 0, 6, 3), gs.Request("b", 0, 1, 5)])
    assert gs.simulate(inst, "svf").starts == {"a": 5, "b": 0}  # volumes 24 > 20: b first
    assert gs.solve_opt(inst).tel == 9  # a at 0, b at 1: 3 + 6
    assert gs.derivation("kong.thm3.2").bound_at(alpha=0.5) == 5


def test_python_dash_m_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "geosched", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("geosched ")
