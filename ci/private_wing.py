"""The private wing (issue 47, item 4): the modules that are geosched's implementation, not its API.

A module of the wing carries a leading underscore (``geosched._lazy``), as Hypothesis keeps
``hypothesis.internal``: a user sees at a glance what may change without notice, while the public names it
implements stay where the user imports them (``geosched.testing.instances`` is defined in
``geosched.reference_impl._strategies``). :data:`WING` is the one list; this script moves every module of it
that is not moved yet (``git mv``) and rewrites every reference to its old name in the tracked sources and
docs: the dotted name (``geosched.lazy`` -> ``geosched._lazy``), the file's path
(``geosched/lazy.py``, ``reference_impl/strategies.py``) and ``from PARENT import NAME``. A module of
:data:`RETIRED` (a re-export kept for old imports) is removed, and each import from it or dotted name through it
goes to the module that defines the name; what the table cannot place is left for ``--check`` to name. The history
(CHANGELOG.md, benchmarks/RESULTS.md) and data files (JSON) keep the names they were written with.

It is re-runnable, and meant to run LAST, after every branch is merged: a merged branch that still imports
an old name is rewritten by the next run; ``--check`` changes nothing and exits 1 naming what is left
(tests/test_private_wing.py runs it on the checkout). Adding a module to the wing is one line of
:data:`WING`, then one run.

    python ci/private_wing.py [--check] [--root DIR]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# old dotted name -> its place in the wing (same package, a leading underscore)
WING = {
    "geosched.lazy": "geosched._lazy",  # the lazy exports every package's __init__ derives from its import block
    "geosched.dask_nodes": "geosched._dask_nodes",  # Dask nodes that never bind a socket (geosched.executor's)
    "geosched.reference_impl.strategies": "geosched.reference_impl._strategies",  # geosched.testing's instances
}

# retired re-export modules: each name they re-exported -> the module that defines it
RETIRED = {
    "geosched.reference_impl.simulator": {  # the pre-layering simulator's names (issue 31), kept for old imports
        "simulate": "geosched.reference_impl.simulation", "SimulationResult": "geosched.reference_impl.simulation",
        "BlockedInterval": "geosched.reference_impl.engine", "admission_step": "geosched.reference_impl.admission"},
}

# pyproject.toml's package-dir: where a dotted name's file lies in the checkout (longest prefix first)
FOLDERS = (("geosched.reference_impl", "reference_impl"), ("geosched.theory", "theory"),
           ("geosched.adversary", "adversary"), ("geosched.verify", "verify"), ("geosched", "geosched"))
TEXT_SUFFIXES = (".py", ".md", ".toml", ".cfg", ".txt", ".sh", ".ini")
# history (written once), this list itself, and its test's fixture (old names on purpose)
KEPT = ("CHANGELOG.md", "benchmarks/RESULTS.md", "ci/private_wing.py", "tests/test_private_wing.py")


def module_path(dotted: str) -> str:
    """The checkout path of a module's file: ``geosched.reference_impl.x`` -> ``reference_impl/x.py``."""
    for package, folder in FOLDERS:
        if dotted.startswith(package + "."):
            return f"{folder}/{dotted[len(package) + 1:].replace('.', '/')}.py"
    raise ValueError(f"{dotted}: not a module of the package")


def _patterns(old: str, new: str) -> list[tuple[re.Pattern[str], str]]:
    """The rewrites of one wing entry: its dotted name, its path, and ``from PARENT import NAME``."""
    parent, name = old.rsplit(".", 1)
    new_name = new.rsplit(".", 1)[1]
    return [
        (re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"), new),
        (re.compile(rf"(?<![\w.]){re.escape(module_path(old))}"), module_path(new)),
        (re.compile(rf"^(\s*from {re.escape(parent)} import ){name}(?=\s*(#|$))", re.M), rf"\g<1>{new_name} as {name}"),
    ]


def _texts(root: Path) -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    return [root / f for f in listed.split() if f.endswith(TEXT_SUFFIXES) and f not in KEPT
            and (root / f).is_file() and not (root / f).is_symlink()]


def pending(root: Path = ROOT, wing: dict[str, str] = WING,
            retired: dict[str, dict[str, str]] = RETIRED) -> list[str]:
    """What a run would do or cannot do, one line each (empty: the wing is applied, the retired are gone)."""
    left = [f"move {module_path(old)} -> {module_path(new)}" for old, new in wing.items()
            if (root / module_path(old)).exists()]
    left += [f"remove {module_path(old)}" for old in retired if (root / module_path(old)).exists()]
    for path in _texts(root):
        text = path.read_text()
        left += [f"{path.relative_to(root)}: {old}" for old, new in wing.items()
                 if any(p.search(text) for p, _ in _patterns(old, new))]
        left += [f"{path.relative_to(root)}: {old}" for old in retired if _retired_left(text, old)]
    return left


def _import_lines(old: str, origins: dict[str, str]) -> tuple[re.Pattern[str], object]:
    """``from OLD import a, b  # why`` (a doctest's too) -> one import from each name's own module."""
    pattern = re.compile(rf"^([ \t]*(?:>>> )?)from {re.escape(old)} import ([\w, ]+?)([ \t]*#.*)?$", re.M)

    def split(match: re.Match[str]) -> str:
        names = [n.strip() for n in match.group(2).split(",")]
        if not all(n in origins for n in names):
            return match.group(0)  # a name the table does not know: left for pending() to name
        by_module: dict[str, list[str]] = {}
        for name in names:
            by_module.setdefault(origins[name], []).append(name)
        lines = [f"{match.group(1)}from {module} import {', '.join(found)}" for module, found in by_module.items()]
        return "\n".join(lines) + (match.group(3) or "")

    return pattern, split


def _retired_patterns(old: str, origins: dict[str, str]) -> list[tuple[re.Pattern[str], object]]:
    dotted = [(re.compile(rf"(?<![\w.]){re.escape(old)}\.{name}(?![\w])"), f"{module}.{name}")
              for name, module in origins.items()]
    return [_import_lines(old, origins), *dotted]


def _retired_left(text: str, old: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(old)}(?![\w])", text) is not None


def apply(root: Path = ROOT, wing: dict[str, str] = WING,
          retired: dict[str, dict[str, str]] = RETIRED) -> list[str]:
    """Move the wing's modules not moved yet, remove the retired ones, rewrite every reference; returns what
    it did."""
    done = []
    for old in retired:
        if (root / module_path(old)).exists():
            subprocess.run(["git", "rm", "-q", module_path(old)], cwd=root, check=True)
            done.append(f"removed {module_path(old)}")
    for old, new in wing.items():
        source, target = root / module_path(old), root / module_path(new)
        if source.exists():
            if target.exists():
                raise SystemExit(f"private_wing: {module_path(new)} already exists beside {module_path(old)}")
            subprocess.run(["git", "mv", module_path(old), module_path(new)], cwd=root, check=True)
            done.append(f"moved {module_path(old)} -> {module_path(new)}")
    for path in _texts(root):
        text = original = path.read_text()
        for old, new in wing.items():
            for pattern, replacement in _patterns(old, new):
                text = pattern.sub(replacement, text)
        for old, origins in retired.items():
            for pattern, replacement in _retired_patterns(old, origins):
                text = pattern.sub(replacement, text)
        if text != original:
            path.write_text(text)
            done.append(f"rewrote {path.relative_to(root)}")
    rewritten = [line.split(" ", 1)[1] for line in done if line.startswith("rewrote ") and line.endswith(".py")]
    if rewritten:  # a new name sorts elsewhere in its import block (ruff's I rule, as tests/test_style.py runs it)
        subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "--select", "I", "-q", *rewritten], cwd=root,
                       capture_output=True)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 naming what is left to do")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    if args.check:
        left = pending(args.root)
        print("\n".join(left) if left else "the private wing is applied")
        return 1 if left else 0
    done = apply(args.root)
    print("\n".join(done) if done else "nothing to do: the private wing is applied")
    return 0


if __name__ == "__main__":
    sys.exit(main())
