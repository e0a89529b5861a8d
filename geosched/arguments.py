"""Typed command-line values: argparse ``type=`` functions that reject what the model cannot use.

Each raises :class:`argparse.ArgumentTypeError` with the value and the requirement, which
:class:`OneLineParser` prints as one line ``geosched: error: ...`` with exit status 2 (no
usage block, no traceback), the form every other user error takes.

Example
-------
>>> positive_int("12")
12
>>> non_negative_int("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be an integer in [0, 2^63), got '-1'
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import math
import os
import pkgutil
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

__all__ = ["OneLineParser", "integer", "positive_int", "non_negative_int", "positive_float", "non_negative_float",
           "seconds", "MAX_SECONDS", "scheduler_file_spec",
           "dotted_name", "finite_float", "unit_fraction", "probability_level", "MAX_SEED", "add_verbosity",
           "add_block_size", "add_command", "command_modules",
           "MEMORY_OVERRIDE", "SEED_WORKLOAD", "show_progress", "configure_logging",
           "examples", "HelpFormatter", "add_work_limits", "LIMIT_OPTIONS"]

MAX_SEED = 2**63 - 1  # seeds reach numpy, numba and Hypothesis: int64 suits them all


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that a description or epilog keeps its line breaks: each
    line is wrapped on its own, so that an ``examples:`` block stays one command a line."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            if line.startswith(" "):  # an example command: as written, never wrapped
                lines.append(indent + line)
            else:
                lines.append(super()._fill_text(line, width, indent) if line.strip() else "")
        return "\n".join(lines)


def examples(*commands: str) -> str:
    """The ``epilog=`` of a command's ``--help``: its example command lines.

    >>> print(examples("geosched simulate example --policy svf"))
    example:
      geosched simulate example --policy svf
    """
    return ("example:" if len(commands) == 1 else "examples:") + "".join(f"\n  {c}" for c in commands)


_example_lines = examples  # add_command's keyword ``examples`` shadows the function there


class OneLineParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage errors are one line on stderr, exit 2.

    Subparsers made by :meth:`add_subparsers` inherit the class, so every command's errors
    take the same form: ``geosched: error: simulate: argument --seed: ...``. Help keeps the
    line breaks of descriptions and examples (:class:`HelpFormatter`).
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """argparse's, except that an option the command does not take is named with the command
        (``geosched: error: prove: unrecognized arguments: --seed 1 (see 'geosched prove --help')``)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._chosen(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _chosen(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The (sub)command parser that ``parsed`` went down to: the one whose options are the ones to read."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                sub = action.choices.get(getattr(parsed, action.dest or "", None) or "")
                if isinstance(sub, OneLineParser):
                    return sub._chosen(parsed)
        return self

    def error(self, message: str) -> NoReturn:
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        where = f"{command}: " if command else ""
        sys.stderr.write(f"geosched: error: {where}{message} (see '{self.prog} --help')\n")
        sys.exit(2)


_INTEGER = re.compile(r"-?[0-9]+")


def _integer(text: str) -> int:
    # int() also takes '1_000', '+5' and non-ASCII digits; a number on the command line is plain ASCII
    if not _INTEGER.fullmatch(text.strip()) or len(text) > 4300:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}")
    return int(text.strip())


def _refuse_unless(ok: bool, expected: str, text: str) -> None:
    """Every argument type's refusal, in one form: ``must be EXPECTED, got 'TEXT'`` (argparse adds the flag)."""
    if not ok:
        raise argparse.ArgumentTypeError(f"must be {expected}, got {text!r}")


def integer(text: str) -> int:
    """An integer written in ASCII digits (the range is the command's to check)."""
    return _integer(text)


def positive_int(text: str) -> int:
    """An integer >= 1 (``--memory``, ``--requests``, ``--limit``)."""
    value = _integer(text)
    _refuse_unless(value >= 1, "an integer >= 1", text)
    return value


def non_negative_int(text: str) -> int:
    """An integer in ``[0, 2^63)`` (``--seed``: numpy seeds are non-negative)."""
    try:
        value = _integer(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    _refuse_unless(0 <= value <= MAX_SEED, "an integer in [0, 2^63)", text)
    return value


def finite_float(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    _refuse_unless(math.isfinite(value), "a finite number", text)
    return value


MAX_SECONDS = 7 * 86_400  # the longest time limit a command takes: a week (a larger one bounds nothing)


def seconds(text: str) -> float:
    """A time limit: a number of seconds in ``(0, MAX_SECONDS]`` (``--time``, ``--time-limit``, ``--timeout``).

    >>> seconds("1e30")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number of seconds in (0, 604800] (a week), got '1e30'
    """
    value = positive_float(text)
    _refuse_unless(value <= MAX_SECONDS, f"a number of seconds in (0, {MAX_SECONDS}] (a week)", text)
    return value


def scheduler_file_spec(text: str) -> str:
    """``FILE.py:Class``, a scheduler file of the user's own (``--scheduler-cls``): a module path is refused,
    since it would be a name that vLLM imports rather than a file whose SHA-256 is pinned.

    >>> scheduler_file_spec("mine.py:Mine")
    'mine.py:Mine'
    """
    path, sep, name = text.rpartition(":")
    if not sep or not path.endswith(".py") or not name.isidentifier() or "\n" in text:
        raise argparse.ArgumentTypeError(f"must be a scheduler file FILE.py:Class, got {text!r}")
    return text


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, ratios)."""
    value = finite_float(text)
    _refuse_unless(value > 0, "> 0", text)
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a gap in seconds)."""
    value = finite_float(text)
    _refuse_unless(value >= 0, ">= 0", text)
    return value


def dotted_name(text: str) -> str:
    """A Python path ``module.Class`` (``--scheduler-cls``): dotted identifiers, at least two."""
    parts = text.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        raise argparse.ArgumentTypeError(f"must be a dotted path module.Class, got {text!r}")
    return text


def unit_fraction(text: str) -> float:
    """A number strictly between 0 and 1 (a part of a workload, ``--train-fraction``)."""
    value = finite_float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text!r}")
    return value


def probability_level(text: str) -> float:
    """A number in ``(0, 1]`` (a quantile level, ``--safety-quantile``)."""
    value = finite_float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text!r}")
    return value


# ---------------------------------------------------------------- --quiet / --verbose

# Libraries whose log lines are not our report: vLLM's CPU notices, torch's, Dask's
_LIBRARY_LOGGERS = ("vllm", "torch", "distributed", "numba", "jax")


def add_verbosity(parser: argparse.ArgumentParser) -> None:
    """``--quiet``/``--verbose`` (exclusive), on the parent parser every command shares."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true",
                       help="no progress lines and no library log lines below errors (vLLM, torch)")
    group.add_argument("-v", "--verbose", action="store_true", help="library INFO log lines on stderr")


MEMORY_OVERRIDE = "override the workload's memory budget M (tokens)"  # --memory of the workload commands
# --seed of the commands whose only random thing is a generated workload (load_workload's seed)
SEED_WORKLOAD = ("seed of a generated workload such as burst:n=10 (>= 0; a spec's own seed=... wins; files and "
                 "traces have none)")


def add_command(subparsers: Any, name: str, common: argparse.ArgumentParser | None, *, help: str,
                description: str, examples: Sequence[str], memory: str | None = None,
                seed: str | None = None) -> argparse.ArgumentParser:
    """One ``geosched`` subcommand, the way every ``commands.py`` adds it: the shared options of
    ``common`` (``--json``, ``--quiet``/``--verbose``; None for a group of subcommands), a
    description, an ``example:`` epilog, and ``--memory`` and ``--seed`` only for a command that
    reads them (``memory``, ``seed``: the help line, which names what the value reaches).

    >>> parser = OneLineParser(prog="geosched")
    >>> p = add_command(parser.add_subparsers(), "demo", None, help="a demo", description="A demo.",
    ...                 examples=["geosched demo"], memory=MEMORY_OVERRIDE, seed=SEED_WORKLOAD)
    >>> args = p.parse_args(["--memory", "12", "--seed", "3"])
    >>> args.memory, args.seed, p.epilog.splitlines()
    (12, 3, ['example:', '  geosched demo'])
    """
    parser = subparsers.add_parser(name, parents=[common] if common is not None else [], help=help,
                                   description=description, epilog=_example_lines(*examples))
    if memory is not None:
        parser.add_argument("--memory", type=positive_int, default=None, help=memory)
    if seed is not None:
        parser.add_argument("--seed", type=non_negative_int, default=None, help=seed)
    return parser


def add_block_size(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--block-size B``, the one spelling of the KV block size: it sets the instance's ``block_size``
    (:class:`geosched.reference_impl.model.Instance`, through ``load_workload(block_size=...)``); a
    workload that has another block size of its own is an error naming both."""
    parser.add_argument("--block-size", type=positive_int, default=None, metavar="B",
                        help="count memory in whole KV blocks of B tokens: a request holds ceil(tokens / B) blocks "
                        "(M stays in tokens and must be a multiple of B; default: the workload's own block_size, "
                        f"else 1, the paper's token grain){note}")


LIMIT_OPTIONS = ("max_steps", "decide_seconds", "max_bytes")  # geosched.limits.work_limits, set by cli.main


def add_work_limits(parser: argparse.ArgumentParser, *, steps: bool = True, decide: bool = True,
                    max_bytes: bool = False) -> None:
    """The work limits of :mod:`geosched.limits` a command's work depends on, one spelling each:
    ``--max-steps`` (a step-by-step run), ``--decide-seconds`` (one ``decide()`` call of a scheduler),
    ``--max-bytes`` (a file built in memory). :func:`geosched.cli.main` sets them for the whole command."""
    from geosched.limits import DEFAULT_DECIDE_SECONDS, DEFAULT_MAX_BYTES, DEFAULT_MAX_STEPS

    if steps:
        parser.add_argument("--max-steps", type=positive_int, default=None, metavar="N",
                            help="refuse, before it starts, a step-by-step run (the step engine, vLLM's scheduler) "
                            f"that spans more than N steps, and stop one that decides more often (default "
                            f"{DEFAULT_MAX_STEPS})")
    if decide:
        parser.add_argument("--decide-seconds", type=positive_float, default=None, metavar="S",
                            help="seconds one decide() call of a scheduler may take, a scheduler of your own "
                            f"included (default {DEFAULT_DECIDE_SECONDS:g}; 0.001 to 86400)")
    if max_bytes:
        parser.add_argument("--max-bytes", type=positive_int, default=None, metavar="N",
                            help=f"refuse, before building it, a file of more than N bytes (default "
                            f"{DEFAULT_MAX_BYTES}; at most 2^31, the file is built in memory)")


def show_progress(args: argparse.Namespace) -> bool:
    """Whether a command reports progress on stderr (never on stdout): always, on a terminal or
    not (a line every few seconds off one, :mod:`geosched.progress`), except with ``--quiet`` (or a
    command's ``--no-progress``).

    >>> show_progress(argparse.Namespace(quiet=True, verbose=False))
    False
    >>> show_progress(argparse.Namespace(quiet=False, verbose=False))
    True
    """
    return not (getattr(args, "quiet", False) or getattr(args, "no_progress", False))


def configure_logging(args: argparse.Namespace) -> None:
    """Set the libraries' log levels before any of them is imported: by default and with
    ``--quiet`` only errors (vLLM's platform notices would otherwise interleave with hunt,
    check-witness and lesson output), with ``--verbose`` INFO on stderr.

    vLLM reads ``VLLM_LOGGING_LEVEL`` when it is imported, so it is set here (a value the user
    exported is kept unless ``--quiet``/``--verbose`` says otherwise).
    """
    verbose = bool(getattr(args, "verbose", False))
    level = logging.INFO if verbose else logging.ERROR
    name = logging.getLevelName(level)
    if verbose or getattr(args, "quiet", False):
        os.environ["VLLM_LOGGING_LEVEL"] = name
    else:
        os.environ.setdefault("VLLM_LOGGING_LEVEL", name)
    for logger in _LIBRARY_LOGGERS:
        logging.getLogger(logger).setLevel(level)
    if verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


# The layout's packages (pyproject's package-dir; the folders an editable install maps): searched, with every
# package below them, for the modules that own commands
LAYOUT = ("geosched.reference_impl", "geosched.theory", "geosched.adversary", "geosched.verify", "geosched")


def command_modules() -> list[str]:
    """Every module named ``commands`` in the package tree, each with ``add_commands(subparsers, common)``: a
    package owns its commands by having one (no list kept by hand). Found without importing them (nor any
    package that has no package below it), in the order of :data:`LAYOUT`, then alphabetically.

    >>> "geosched.adversary.commands" in command_modules()
    True
    """
    found: list[str] = []
    pending, seen = list(LAYOUT), set()
    while pending:
        package = pending.pop(0)
        spec = importlib.util.find_spec(package)
        if package in seen or spec is None or not spec.submodule_search_locations:
            continue
        seen.add(package)
        children = sorted(pkgutil.iter_modules(spec.submodule_search_locations), key=lambda m: m.name)
        found += [f"{package}.commands" for m in children if m.name == "commands" and not m.ispkg]
        pending[:0] = [f"{package}.{m.name}" for m in children if m.ispkg]
    return found
