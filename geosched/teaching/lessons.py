"""The lessons of the documentation site, as Jupyter notebooks to run and change.

The lessons are MyST-markdown notebooks (plain text, reviewable diffs) under ``docs/lessons/``
in the source tree; the wheel ships them as the data package ``geosched.lesson_files``. The
documentation build executes them (``docs/build.py``); :func:`export_lessons` converts them
with jupytext into ``.ipynb`` files a reader opens in Jupyter. Lessons 3 and 5 start with a
cell tagged ``parameters`` (alpha, mu, rho, M...) to change and re-run.

Example
-------
>>> [p.name for p in lesson_sources()][:2]
['01_geometry.md', '02_policies_and_opt.md']
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from geosched.errors import WorkloadFormatError
from geosched.output import OutputError, install_hint, write_text_atomic
from geosched.results import Completed

__all__ = ["LessonsExport", "lesson_sources", "export_lessons", "OPEN_HINT"]

OPEN_HINT = ("open them with:  jupyter lab {out}   (pip install jupyterlab, and the docs extra: "
             + install_hint("docs").replace("{", "{{").replace("}", "}}") + "), "
             "or in VS Code's notebook editor; each lesson imports geosched as gs")


def _lessons_dir() -> Path:
    """The folder holding the lesson sources: the installed data package, else the source tree."""
    import importlib.util

    try:  # a data-only package (no __init__.py): its folders are its search locations
        spec = importlib.util.find_spec("geosched.lesson_files")
    except ModuleNotFoundError:
        spec = None
    for location in (spec.submodule_search_locations or []) if spec is not None else []:
        folder = Path(location)
        if folder.is_dir() and any(folder.glob("[0-9][0-9]_*.md")):
            return folder
    # an editable install does not map a data-only package: read the source tree
    return Path(__file__).resolve().parents[2] / "docs" / "lessons"


def lesson_sources() -> list[Path]:
    """The lesson files ``NN_name.md`` in order; an empty list when none is installed."""
    folder = _lessons_dir()
    return sorted(folder.glob("[0-9][0-9]_*.md")) if folder.is_dir() else []


@dataclass(frozen=True)
class LessonsExport(Completed):
    """What :func:`export_lessons` wrote. ``message`` says how to open the notebooks."""

    out: str  # the folder
    notebooks: tuple[str, ...]  # the .ipynb files written, in lesson order


def export_lessons(out: str | Path, *, force: bool = False) -> LessonsExport:
    """Convert every lesson to ``out/NN_name.ipynb`` (without outputs, tags kept).

    Parameters
    ----------
    out : str or Path
        The folder (created if missing).
    force : bool
        Overwrite notebooks that already exist; without it nothing is written when any exists.

    Returns
    -------
    LessonsExport
        The files written.

    Raises
    ------
    WorkloadFormatError
        When a notebook exists and ``force`` is false, ``out`` is not a folder, or no lesson is installed.
    MissingExtraError
        When jupytext (the ``docs`` extra) is not installed.
    """
    from geosched.teaching.plot import MissingExtraError

    began = time.perf_counter()
    try:
        import jupytext
    except ImportError:
        raise MissingExtraError(f"jupytext is not installed: {install_hint('docs')}") from None
    sources = lesson_sources()
    if not sources:
        raise WorkloadFormatError(f"no lesson found in {_lessons_dir()} (a source checkout has them in docs/lessons)")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise WorkloadFormatError(f"--out {out}: exists and is not a folder")
    targets = [out / (source.stem + ".ipynb") for source in sources]
    existing = [t.name for t in targets if t.exists()]
    if existing and not force:
        raise WorkloadFormatError(f"--out {out}: {', '.join(existing)} already exist; pass --force to overwrite them")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create the folder {out} ({exc.strerror})") from None
    for source, target in zip(sources, targets):
        notebook = jupytext.read(source)
        notebook.metadata.pop("jupytext", None)  # a plain notebook, not paired with the .md
        text = jupytext.writes(notebook, fmt="ipynb")
        write_text_atomic(target, text if text.endswith("\n") else text + "\n", force=force)  # temp + rename
    message = f"wrote {len(targets)} notebooks to {out}; " + OPEN_HINT.format(out=out)
    return LessonsExport("completed", message, time.perf_counter() - began, str(out), tuple(map(str, targets)))
