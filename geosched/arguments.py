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
import math
import re
import sys
from typing import NoReturn

__all__ = ["OneLineParser", "integer", "positive_int", "non_negative_int", "positive_float", "non_negative_float",
           "finite_float",
           "unit_fraction", "probability_level", "MAX_SEED"]

MAX_SEED = 2**63 - 1  # seeds reach numpy, numba and Hypothesis: int64 suits them all


class OneLineParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage errors are one line on stderr, exit 2.

    Subparsers made by :meth:`add_subparsers` inherit the class, so every command's errors
    take the same form: ``geosched: error: simulate: argument --seed: ...``.
    """

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


def integer(text: str) -> int:
    """An integer written in ASCII digits (the range is the command's to check)."""
    return _integer(text)


def positive_int(text: str) -> int:
    """An integer >= 1 (``--memory``, ``--requests``, ``--limit``)."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An integer in ``[0, 2^63)`` (``--seed``: numpy seeds are non-negative)."""
    try:
        value = _integer(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0 or value > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2^63), got {text!r}")
    return value


def finite_float(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, ratios)."""
    value = finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a gap in seconds)."""
    value = finite_float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


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
