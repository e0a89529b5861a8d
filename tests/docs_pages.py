"""``docs/tables.py``, the one writer of the generated blocks of ``docs/`` (issue 47, item 3), loaded once for the
tests: ``docs/`` is not a package, so ``from docs_pages import tables``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "docs" / "tables.py"


def _load():
    if "docs_tables" not in sys.modules:
        spec = importlib.util.spec_from_file_location("docs_tables", _PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules["docs_tables"] = module
        spec.loader.exec_module(module)
    return sys.modules["docs_tables"]


tables = _load()
