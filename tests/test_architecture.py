"""The package's import graph: no cycles (imports inside functions included) and the layers.

Every ``import geosched...`` / ``from geosched... import`` anywhere in a module, at top level or
inside a function, is an edge. The graph must be acyclic, and the layers of DEVELOPERS.md
hold: ``reference_impl`` never imports ``verify`` or ``adversary``; ``theory`` imports only
``reference_impl.model`` (and the root's errors); no module imports another module's
underscore names. Inside ``reference_impl/`` the core is layered floor by floor (:data:`CORE_FLOORS`,
the one table of its floors): a core unit imports only units of the floors below its own, so no
core unit imports a client (:data:`CLIENTS`: workload I/O and formats, predictors, opt, cluster, vllm,
the command line's column path, compare), and the units of ``reference_impl/`` form no loop.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGE_DIRS = _PYPROJECT["tool"]["setuptools"]["package-dir"]


def _modules() -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    modules = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            name = package if path.name == "__init__.py" else f"{package}.{path.stem}"
            modules[name] = path
    return modules


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module a dotted import name refers to (a module, or the package holding a name)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every geosched import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    _drop_type_checking_blocks(tree)
    found = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("geosched"):
                    found.append((alias.name, [], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if not base.startswith("geosched"):
                continue
            names = [alias.name for alias in node.names]
            submodules = [f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES]
            if submodules:
                found += [(sub, [], node.lineno) for sub in submodules]
                names = [n for n in names if f"{base}.{n}" not in MODULES]
            if names:
                found.append((base, names, node.lineno))
    return found


def _drop_type_checking_blocks(tree: ast.AST) -> None:
    """Remove ``if TYPE_CHECKING:`` bodies: they never run, so they are no import edge."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                block[:] = [b for b in block if not (isinstance(b, ast.If) and isinstance(b.test, ast.Name)
                                                     and b.test.id == "TYPE_CHECKING")]


@functools.cache  # every test reads the same graph: built once per session
def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _names, _line in _imports(module, path):
            resolved = _resolve(target)
            if resolved is not None and resolved != module:
                graph[module].add(resolved)
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    colour = dict.fromkeys(graph, 0)
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if colour[nxt] == 1:
                return stack[stack.index(nxt):] + [nxt]
            if colour[nxt] == 0:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        colour[node] = 2
        return None

    for node in sorted(graph):
        if colour[node] == 0:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_walker_sees_function_level_imports_and_cycles():
    # the walker itself must be able to fail: a cycle through an import inside a function
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}}
    assert _find_cycle(graph) == ["a", "b", "c", "a"]
    tree_imports = _imports("geosched.cli", MODULES["geosched.cli"])
    assert any(target.startswith("geosched.reference_impl") for target, _, _ in tree_imports)


def test_no_import_cycle():
    cycle = _find_cycle(_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# (package prefix, prefixes it must not import)
_FORBIDDEN = [
    ("geosched.reference_impl", ("geosched.verify", "geosched.adversary", "geosched.theory", "geosched.cli")),
    ("geosched.theory", ("geosched.verify", "geosched.adversary", "geosched.cli")),
    ("geosched.verify", ("geosched.adversary", "geosched.cli")),
    ("geosched.adversary", ("geosched.verify", "geosched.cli")),
]


@pytest.mark.parametrize("layer, forbidden", _FORBIDDEN)
def test_layers(layer, forbidden):
    bad = []
    for module, targets in _graph().items():
        if module.startswith(layer):
            bad += [f"{module} -> {t}" for t in targets if t.startswith(forbidden)]
    assert not bad, bad


def test_theory_uses_only_the_model():
    allowed = ("geosched.theory", "geosched.reference_impl.model",
               "geosched.errors", "geosched.output", "geosched.results", "geosched._lazy")
    bad = []
    for module, targets in _graph().items():
        if module.startswith("geosched.theory"):
            bad += [f"{module} -> {t}" for t in targets if not t.startswith(allowed)]
    assert not bad, bad


def test_no_underscore_names_imported_across_modules():
    """A private name (``_x``) stays in its module. A private module is the package's private wing
    (ci/private_wing.py): the package's own modules import it, and only those of its wing are private."""
    wing = {m for m in MODULES if m.rsplit(".", 1)[-1].startswith("_") and not m.endswith("__init__")}
    bad = []
    for module, path in MODULES.items():
        for target, names, line in _imports(module, path):
            private_module = target not in wing and any(part.startswith("_") and part != "__init__"
                                                        for part in target.split("."))
            private_names = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private_module or private_names:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {target} {private_names or ''}")
    assert not bad, "\n".join(bad)


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    has_docstring = (len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                     and isinstance(body[0].value.value, str))
    return node.end_lineno - (body[1] if has_docstring else body[0]).lineno + 1


MAX_FUNCTION_LINES = 80  # DEVELOPERS.md: functions a reader can hold


def test_functions_are_short_enough_to_hold():
    long = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _body_lines(node) > MAX_FUNCTION_LINES:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({_body_lines(node)} lines)")
    assert not long, "split these into named steps:\n" + "\n".join(long)


def test_building_the_command_line_loads_no_heavy_library():
    """``geosched --help`` builds the parser of every command: the packages' public names are
    lazy (geosched._lazy), so numba, sympy, Z3, torch and vLLM load only when a command runs."""
    import subprocess
    import sys

    code = ("import sys; from geosched.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('numba', 'sympy', 'z3', 'torch', 'vllm', 'cvc5', 'ortools', 'distributed') "
            "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", loaded


# -- the layered core inside reference_impl/ (issue 31) ---------------------------------------------------------
# A unit is a top-level module of reference_impl/ or one of its subpackages. The core, floor by floor from the
# bottom: a core unit may import only units of lower floors (imports inside functions included).
CORE_FLOORS: tuple[tuple[str, ...], ...] = (
    ("jsonfile",),  # strict JSON input
    ("model",),  # Request, Instance: the memory in tokens and the block size, validated once
    ("checker", "admission", "scheduling", "z3model"),  # the referee; the one forward check; the protocol; Z3
    ("scheduler_registry", "user_schedulers"),  # the one registry of schedulers; a user's scheduler file, run in a
    # worker process (both on the contract: scheduling)
    ("policies", "engine", "kernel", "code_names"),  # the priority rules; the event-driven and the step engine;
    # the compiled kernel (numba; it imports nothing of geosched, but it is the engine's exact mode, so it sits
    # beside it); the gate for names of code in data files (it knows the registered names)
    ("schedulers",),  # every scheduler module, each declaring its registry entries
    ("simulation",),  # simulate(): the kernel, an engine, or an external (Coq) engine
)
# The clients: they use the core and are never imported by it (nor by one another in a loop).
CLIENTS = ("formats", "workloads", "predictors", "opt", "cluster", "vllm", "columns", "compare", "_strategies")
_CORE = "geosched.reference_impl."


def _unit(module: str) -> str | None:
    return module[len(_CORE):].split(".")[0] if module.startswith(_CORE) else None


def _unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        unit = _unit(module)
        if unit is not None:
            graph.setdefault(unit, set()).update(u for u in map(_unit, targets) if u is not None and u != unit)
    return graph


def test_every_unit_of_reference_impl_has_one_place_in_the_table():
    placed = [u for floor in CORE_FLOORS for u in floor] + list(CLIENTS)
    assert len(placed) == len(set(placed)), "a unit is named twice"
    missing = sorted(set(_unit_graph()) - set(placed))
    assert not missing, f"name the floor (CORE_FLOORS) or the client role (CLIENTS) of: {missing}"
    assert not set(placed) - set(_unit_graph()), sorted(set(placed) - set(_unit_graph()))


def test_the_core_imports_only_floors_below_and_never_a_client():
    floor = {u: k for k, units in enumerate(CORE_FLOORS) for u in units}
    bad = []
    for unit, targets in _unit_graph().items():
        if unit in floor:
            bad += [f"{unit} (floor {floor[unit] + 1}) -> {t}" + (" (a client)" if t in CLIENTS else
                                                                   f" (floor {floor[t] + 1})")
                    for t in sorted(targets) if t in CLIENTS or floor[t] >= floor[unit]]
    assert not bad, bad


def test_the_checker_imports_only_the_model():
    assert _unit_graph()["checker"] <= {"model"}


def test_no_loop_among_the_units_of_reference_impl():
    cycle = _find_cycle(_unit_graph())
    assert cycle is None, "loop inside reference_impl/: " + " -> ".join(cycle)


def test_the_layering_test_can_fail():
    # the table's rule, applied to a graph with an upward arrow and a core -> client arrow
    floor = {u: k for k, units in enumerate(CORE_FLOORS) for u in units}
    upward = {"admission": {"engine"}, "engine": {"vllm"}}
    found = [(u, t) for u, ts in upward.items() for t in ts if t in CLIENTS or floor[t] >= floor[u]]
    assert found == [("admission", "engine"), ("engine", "vllm")]
