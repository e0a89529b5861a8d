"""Review measures for a folder of modules (issue 23) and the structure of the core (issue 31).

**Functions** (issue 23): the longest parameter lists and the longest functions. A function's parameter
count is every name it takes (positional, keyword-only, ``*args``, ``**kwargs``;
``self``/``cls`` not counted); a function's length is its body in lines without the docstring (the
measure of tests/test_architecture.py). ``tests/test_options.py`` keeps the public functions of
``adversary/`` under a bound with :func:`parameter_counts`.

**Structure** (issue 31, ``--structure``): the import graph of ``reference_impl/`` drawn from the
source with the mapped folders understood as ``geosched.*`` (``pyproject.toml``'s ``package-dir``), every
``import`` counted, at top level or inside a function (``if TYPE_CHECKING:`` blocks are not imports). A
*unit* is a top-level module of ``reference_impl/`` or one of its subpackages; the package's ``__init__``
(lazy exports, no imports) is left out. Reported:

* **loops**: the strongly connected components of more than one unit (units that reach each other);
* **upward arrows**: the fewest imports whose removal leaves no loop (a minimum feedback arc set,
  found exactly by trying every set of increasing size): the imports that point up whatever order
  one draws the floors in;
* **floors**: the levels of the graph once the upward arrows are removed (a unit's floor is one above
  the highest floor it imports; the bottom floor is 1): how many storeys the core has. Also given with
  each loop taken as one node (``floors_loops_merged``);
* **lines**: the lines of every ``.py`` file of ``reference_impl/``.

**House** (issue 47, ``--house``): the same graph over the whole package, a *unit* being each of
``reference_impl/``, ``theory/``, ``adversary/``, ``verify/``, ``geosched/teaching/`` and each module of the
``geosched/`` root (the CLI, the API, ``testing``, the shared helpers); its loops and upward arrows (found as
above), the modules, the private modules (a leading underscore: the private wing, ``ci/private_wing.py``) and
the lines of the package (every ``.py`` file of the mapped folders).

``--root`` measures another checkout (``git archive COMMIT | tar -x -C DIR``). ``--record FILE --before C1
--after C2`` measures both commits of this repository (each unpacked by ``git archive`` into a temporary
folder) and writes the record ``docs/architecture.md``'s before/after table is generated from
(``docs/review_structure_run.json``, rendered by ``docs/tables.py``).

Usage::

    python benchmarks/review_measures.py [FOLDER] [--top K]
    python benchmarks/review_measures.py --structure [--root DIR]
    python benchmarks/review_measures.py --structure --record FILE --before COMMIT --after COMMIT
    python benchmarks/review_measures.py --house [--root DIR]
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _functions(path: Path):
    """``(qualified name, node)`` of every function and method of a module (nested ones included)."""
    tree = ast.parse(path.read_text())
    stack = [("", tree)]
    while stack:
        prefix, node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + child.name, child
                stack.append((prefix + child.name + ".", child))
            elif isinstance(child, ast.ClassDef):
                stack.append((prefix + child.name + ".", child))


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return len([n for n in names if n not in ("self", "cls")])


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    has_docstring = (len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                     and isinstance(body[0].value.value, str))
    return node.end_lineno - (body[1] if has_docstring else body[0]).lineno + 1


def parameter_counts(folder: Path) -> list[tuple[int, int, str]]:
    """``(parameters, body lines, "file:line name")`` of every function under ``folder``."""
    rows = []
    for path in sorted(folder.glob("*.py")):
        for name, node in _functions(path):
            rows.append((parameter_count(node), body_lines(node), f"{path.relative_to(ROOT)}:{node.lineno} {name}"))
    return rows


CORE = "geosched.reference_impl"


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``: dotted name (``geosched.*``) -> file."""
    dirs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    modules = {}
    for package, folder in dirs.items():
        for path in sorted((root / folder).glob("*.py")):
            modules[package if path.name == "__init__.py" else f"{package}.{path.stem}"] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules ``name`` imports anywhere in its file (not under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                block[:] = [b for b in block if not (isinstance(b, ast.If) and isinstance(b.test, ast.Name)
                                                     and b.test.id == "TYPE_CHECKING")]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    found = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name and target.startswith("geosched"):
            found.add(target)
    return found


def core_unit(module: str) -> str | None:
    """The unit of ``reference_impl/`` a module belongs to (its top-level module or subpackage)."""
    if not module.startswith(CORE + "."):
        return None
    return module[len(CORE) + 1:].split(".")[0]


def core_graph(root: Path) -> dict[str, set[str]]:
    """unit -> the units it imports, inside ``reference_impl/``."""
    modules = package_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        unit = core_unit(name)
        if unit is None:
            continue
        graph.setdefault(unit, set())
        for target in imported_modules(name, path, modules):
            other = core_unit(target)
            if other is not None and other != unit:
                graph[unit].add(other)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components, each sorted; every unit is in exactly one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """unit -> floor, loops taken as one node (1: imports nothing of the core)."""
    component_of = {u: tuple(c) for c in strongly_connected(graph) for u in c}
    level: dict[tuple[str, ...], int] = {}

    def floor_of(component: tuple[str, ...]) -> int:
        if component not in level:
            below = {component_of[t] for u in component for t in graph[u]} - {component}
            level[component] = 1 + max((floor_of(c) for c in below), default=0)
        return level[component]

    return {u: floor_of(component_of[u]) for u in graph}


def _acyclic(nodes: list[str], edges: list[tuple[str, str]]) -> bool:
    sub = {u: {v for a, v in edges if a == u} for u in nodes}
    return all(len(c) == 1 for c in strongly_connected(sub))


def upward_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """A minimum set of imports whose removal leaves no loop (exact: sets of increasing size per loop)."""
    removed: list[tuple[str, str]] = []
    for component in strongly_connected(graph):
        if len(component) == 1:
            continue
        edges = sorted((u, v) for u in component for v in graph[u] if v in component)
        for size in range(1, len(edges) + 1):
            cut = next((c for c in itertools.combinations(edges, size)
                        if _acyclic(component, [e for e in edges if e not in c])), None)
            if cut is not None:
                removed += cut
                break
    return removed


def structure(root: Path) -> dict[str, object]:
    """The structure measures of ``reference_impl/`` under ``root`` (see the module docstring)."""
    graph = core_graph(root)
    up = upward_arrows(graph)
    levels = floors({u: {v for v in targets if (u, v) not in up} for u, targets in graph.items()})
    loops = [c for c in strongly_connected(graph) if len(c) > 1]
    lines = sum(len(p.read_text().splitlines()) for p in (root / "reference_impl").rglob("*.py"))
    return {"units": len(graph), "floors": max(levels.values(), default=0),
            "floors_loops_merged": max(floors(graph).values(), default=0), "loops": loops,
            "upward_arrows": up, "lines": lines, "floor_of": levels}


HOUSE_FOLDERS = ("reference_impl", "theory", "adversary", "verify", "teaching")


def house_unit(module: str) -> str:
    """The unit of the whole package a module belongs to (see the module docstring)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in HOUSE_FOLDERS else module


def house(root: Path) -> dict[str, object]:
    """Units, loops, upward arrows, modules and lines of the whole package under ``root``."""
    modules = package_modules(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        unit = house_unit(name)
        graph.setdefault(unit, set())
        graph[unit] |= {house_unit(t) for t in imported_modules(name, path, modules)} - {unit}
    return {"units": len(graph), "loops": [c for c in strongly_connected(graph) if len(c) > 1],
            "upward_arrows": upward_arrows(graph), "modules": len(modules),
            "private_modules": sorted(m for m in modules if m.rsplit(".", 1)[-1].startswith("_")
                                      and not m.endswith(("__init__", "__main__"))),
            "lines": sum(len(p.read_text().splitlines()) for p in modules.values())}


def _print_structure(root: Path) -> None:
    data = structure(root)
    print(f"reference_impl/ of {root}: {data['units']} units, {data['lines']} lines")
    print(f"floors {data['floors']} ({data['floors_loops_merged']} with each loop as one node)")
    by_floor: dict[int, list[str]] = {}
    for unit, level in data["floor_of"].items():
        by_floor.setdefault(level, []).append(unit)
    for level in sorted(by_floor):
        print(f"  {level:2d}  {', '.join(sorted(by_floor[level]))}")
    print(f"loops {len(data['loops'])}: " + "; ".join(f"{len(c)} units ({', '.join(c)})" for c in data["loops"]))
    print(f"upward arrows {len(data['upward_arrows'])}: "
          + ", ".join(f"{a} -> {b}" for a, b in data["upward_arrows"]))


def structure_at(commit: str, repo: Path = ROOT) -> dict[str, object]:
    """:func:`structure` of ``commit`` of the git repository ``repo``, unpacked by ``git archive``."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(repo), "archive", commit], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        data = structure(Path(folder))
    data["loops"] = [sorted(c) for c in data["loops"]]
    data["upward_arrows"] = [list(a) for a in data["upward_arrows"]]
    return data


def write_record(path: Path, before: str, after: str) -> None:
    """The record of the before/after structure table: the command, both commits (full hashes) and the raw
    measures of each."""
    full = [subprocess.run(["git", "-C", str(ROOT), "rev-parse", c], check=True, capture_output=True,
                           text=True).stdout.strip() for c in (before, after)]
    record = {"command": f"python benchmarks/review_measures.py --structure --record {path} "
                         f"--before {before} --after {after}",
              "mode": "structure", "seed": None, "versions": {"python": sys.version.split()[0]},
              "source": "a fresh run of the command (deterministic: no seed; the import graph of each commit)",
              "before": {"commit": full[0], "measures": structure_at(full[0])},
              "after": {"commit": full[1], "measures": structure_at(full[1])}}
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    print(f"record written: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT / "adversary"))
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--structure", action="store_true", help="the import structure of reference_impl/")
    parser.add_argument("--house", action="store_true", help="the import structure and lines of the whole package")
    parser.add_argument("--root", default=str(ROOT), help="the checkout to measure (default: this one)")
    parser.add_argument("--record", default=None, help="with --structure: write the before/after record here")
    parser.add_argument("--before", default=None, help="with --record: the commit before")
    parser.add_argument("--after", default=None, help="with --record: the commit after")
    args = parser.parse_args()
    if args.record:
        if not (args.structure and args.before and args.after):
            print("--record: needs --structure, --before and --after", file=sys.stderr)
            sys.exit(2)
        write_record(Path(args.record), args.before, args.after)
        return
    if args.structure:
        _print_structure(Path(args.root).resolve())
        return
    if args.house:
        data = house(Path(args.root).resolve())
        print(f"package of {args.root}: {data['modules']} modules, {data['lines']} lines, {data['units']} units; "
              f"loops {data['loops']}; upward arrows {data['upward_arrows']}; private modules (the wing) "
              f"{data['private_modules']}")
        return
    rows = parameter_counts(Path(args.folder).resolve())
    print(f"longest parameter lists ({len(rows)} functions)")
    for params, _, where in sorted(rows, key=lambda r: (-r[0], r[2]))[:args.top]:
        print(f"  {params:3d}  {where}")
    print("longest functions (body lines)")
    for _, lines, where in sorted(rows, key=lambda r: (-r[1], r[2]))[:args.top]:
        print(f"  {lines:3d}  {where}")


if __name__ == "__main__":
    main()
