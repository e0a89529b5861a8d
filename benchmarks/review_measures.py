"""Review measures of issue 23 for a folder of modules: the longest parameter lists and the longest functions.

A function's parameter count is every name it takes (positional, keyword-only, ``*args``, ``**kwargs``;
``self``/``cls`` not counted); a function's length is its body in lines without the docstring (the
measure of tests/test_architecture.py). ``tests/test_options.py`` keeps the public functions of
``adversary/`` under a bound with :func:`parameter_counts`.

Usage::

    python benchmarks/review_measures.py [FOLDER] [--top K]
"""

from __future__ import annotations

import argparse
import ast
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(ROOT / "adversary"))
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    rows = parameter_counts(Path(args.folder).resolve())
    print(f"longest parameter lists ({len(rows)} functions)")
    for params, _, where in sorted(rows, key=lambda r: (-r[0], r[2]))[:args.top]:
        print(f"  {params:3d}  {where}")
    print("longest functions (body lines)")
    for _, lines, where in sorted(rows, key=lambda r: (-r[1], r[2]))[:args.top]:
        print(f"  {lines:3d}  {where}")


if __name__ == "__main__":
    main()
