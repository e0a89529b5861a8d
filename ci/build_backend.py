"""setuptools' build backend, with an editable install that Python, mypy and IDEs all follow (issue 44, item 5).

pyproject's ``package-dir`` maps ``geosched.reference_impl``, ``theory``, ``verify``, ``adversary`` and
``lesson_files`` from top-level folders. setuptools' default editable install reaches them through an import hook,
which mypy and IDEs do not run and which a folder named ``geosched`` in the current directory (a clone's default
name, seen from its parent) shadows. :func:`build_editable` instead links each of those folders into ``geosched/``
(relative directory symlinks, git-ignored) and installs in setuptools' ``compat`` mode: a static ``.pth`` naming
the repository's root. The package is then a plain folder on ``sys.path`` whose subpackages are real directories:
a module added later is importable at once, mypy resolves every name, and the regular package ``geosched`` beats a
namespace folder found earlier on ``sys.path``. Wheels and sdists are setuptools' own, untouched.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own

ROOT = Path(__file__).resolve().parent.parent


def link_subpackages(root: Path = ROOT) -> list[Path]:
    """Link every top-level subpackage that pyproject maps from outside ``geosched/`` into it; the links made."""
    mapping = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    made = []
    for package, folder in mapping.items():
        parts = package.split(".")
        if len(parts) != 2:  # geosched itself, or a deeper package, which lies inside its parent's folder
            continue
        link, target = root / "geosched" / parts[1], root / folder
        if link.resolve() == target.resolve():
            continue  # already inside geosched/ (geosched/teaching) or linked
        if link.is_symlink():
            link.unlink()  # a stale link
        elif link.exists():
            raise RuntimeError(f"{link} exists and is not a link to {target}: remove it and install again")
        link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)
        made.append(link)
    return made


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: F811 - the override
    link_subpackages()
    settings = {**(config_settings or {}), "editable_mode": "compat"}  # the static .pth of the repository root
    return build_meta.build_editable(wheel_directory, settings, metadata_directory)
