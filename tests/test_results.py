"""One result vocabulary (issue 47, item 4): every status word of every result class is an outcome (how a run
ended) or a verdict (what it established), never both, each with one meaning (geosched.results)."""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import pytest

from geosched.results import OUTCOMES, VERDICTS, Result

ROOT = Path(__file__).resolve().parent.parent
_DIRS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def _result_classes() -> list[tuple[str, str]]:
    """``(module, class)`` of every class of the package that names ``Result`` or ``Completed`` among its bases."""
    found = []
    for package, folder in _DIRS.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            for node in ast.parse(path.read_text()).body:
                bases = [ast.unparse(b) for b in getattr(node, "bases", ())]
                if isinstance(node, ast.ClassDef) and any(b.endswith(("Result", "Completed")) for b in bases):
                    found.append((package if path.name == "__init__.py" else f"{package}.{path.stem}", node.name))
    return found


CLASSES = _result_classes()


def test_the_two_vocabularies_share_no_word():
    assert not set(OUTCOMES) & set(VERDICTS)
    assert len(CLASSES) >= 40  # the walk finds the result classes (46 when this was written)


@pytest.mark.parametrize("module, name", CLASSES)
def test_every_status_word_is_an_outcome_or_a_verdict(module, name):
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, Result)):
        pytest.skip(f"{module}.{name} is not a geosched.results.Result")
    unknown = [word for word in cls.STATUSES if word not in OUTCOMES and word not in VERDICTS]
    assert not unknown, f"{module}.{name}: {unknown}: add each to geosched.results with its one meaning"


def test_the_outcome_of_a_verdict_is_completed():
    from geosched.reference_impl.opt.result import OptResult

    assert OptResult.STATUSES and "time_limit" in OUTCOMES and "optimal" in VERDICTS
    probe = type("Probe", (Result,), {"STATUSES": ("optimal", "time_limit")})
    for status, outcome in (("optimal", "completed"), ("time_limit", "time_limit")):
        result = probe.__new__(probe)
        result.status = status
        assert result.outcome == outcome
