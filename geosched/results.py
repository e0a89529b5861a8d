"""One result convention for every result object geosched returns (scipy.optimize-like).

Every result is a frozen dataclass that mixes in :class:`Result` and has at least the fields

* ``status``: one string of the class's literal set ``STATUSES``;
* ``message``: one human-readable line;
* ``wall_time``: seconds spent producing it;

and gets ``success`` (``status`` in the class's ``SUCCESS``) and ``to_dict()`` (JSON-ready,
``success`` included) from the mixin. A status outside ``STATUSES`` is a bug and raises.

Example
-------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Probe(Result):
...     STATUSES = ("done", "failed")
...     SUCCESS = ("done",)
...     status: str
...     message: str
...     wall_time: float
>>> Probe("done", "ok", 0.5).to_dict()
{'status': 'done', 'message': 'ok', 'wall_time': 0.5, 'success': True}
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, ClassVar

__all__ = ["Result", "plain"]


class Result:
    """Mixin of every result dataclass: ``success`` and ``to_dict()`` from ``status``."""

    STATUSES: ClassVar[tuple[str, ...]] = ()
    SUCCESS: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        status = getattr(self, "status", None)
        if status not in self.STATUSES:
            raise ValueError(f"{type(self).__name__}.status: {status!r} is not one of {self.STATUSES}")

    @property
    def success(self) -> bool:
        """True when ``status`` is one of the class's successful statuses."""
        return self.status in self.SUCCESS  # type: ignore[attr-defined]

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain JSON values (nested results and dataclasses too), plus ``success``."""
        data = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)  # type: ignore[arg-type]
                if not f.name.startswith("_") and f.repr}
        data["success"] = self.success
        return data


def plain(value: Any) -> Any:
    """``value`` with dataclasses, tuples, Fractions and numpy scalars turned into JSON values."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Fraction):
        return float(value)
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    return value
