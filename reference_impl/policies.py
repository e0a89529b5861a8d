"""Scheduling policies as priority keys, and the registry of policies by name.

Every policy here is a *priority rule*: waiting requests are scanned in increasing
``(key, arrival, id)`` order and admitted while the simulator's forward-looking memory check
passes. The rule sees only the prompt and the *predicted* output length.

* ``fcfs``: key 0, so the order is arrival then id.
* ``sjf``: key ``o_hat``: shortest (predicted) output first. With the forward-looking check
  this is MC-SF, the Memory-Constrained Shortest-First rule of Jaillet et al.
  (arXiv 2502.07115, Algorithm 1).
* ``svf``: key ``s*o_hat + (o_hat^2 + o_hat)/2``: Smallest Volume First (Kong et al.,
  arXiv 2606.22327, Algorithm 1).
* ``svf1``: 1-bit SVF (Kong et al., Sec. 4): the class is short iff ``o_hat <= theta``, and
  the key is the *proxy* volume ``s*O + (O^2 + O)/2`` with ``O = O_0`` for short and
  ``O = O_1`` for long requests. Defaults: ``theta`` = the median predicted output of the
  workload, ``O_0``/``O_1`` = the mean predicted output of each class.

The registry is open: :func:`register_policy` adds a factory; :func:`make_policy` with an
unknown name raises :class:`~geosched.errors.UnknownNameError` listing the known ones.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> inst = burst_instance(12, [(6, 3), (1, 5)])
>>> make_policy("svf").keys(inst, [3, 5]), make_policy("sjf").keys(inst, [3, 5])
([24, 20], [3, 5])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.model import Instance, volume
from geosched.reference_impl.predictors import one_bit_parameters

__all__ = [
    "Policy",
    "FCFS",
    "ShortestJobFirst",
    "SmallestVolumeFirst",
    "OneBitSVF",
    "POLICIES",
    "make_policy",
    "register_policy",
    "parse_spec",
]


class Policy(Protocol):
    """A priority rule: smaller key = served first; ties by arrival, then id."""

    name: str

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[Any]:
        """One comparable key per request, aligned with ``instance.requests``."""
        ...


@dataclass(frozen=True)
class FCFS:
    """First come, first served."""

    name: str = "fcfs"

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        return [0] * instance.n


@dataclass(frozen=True)
class ShortestJobFirst:
    """Shortest predicted output first (MC-SF with the forward-looking check)."""

    name: str = "sjf"

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        return [int(o) for o in predicted]


@dataclass(frozen=True)
class SmallestVolumeFirst:
    """Smallest predicted memory-time volume first."""

    name: str = "svf"

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        return [volume(r.prompt, int(o)) for r, o in zip(instance.requests, predicted)]


@dataclass(frozen=True)
class OneBitSVF:
    """1-bit SVF: proxy volume of the predicted class (short iff ``o_hat <= theta``)."""

    theta: int | None = None  # class threshold; None: median predicted output
    short_length: int | None = None  # O_0; None: mean predicted output of the short class
    long_length: int | None = None  # O_1; None: mean predicted output of the long class
    name: str = "svf1"

    def __post_init__(self) -> None:
        for field_name in ("theta", "short_length", "long_length"):
            value = getattr(self, field_name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValidationError(f"svf1 {field_name}", value, "must be an integer >= 1")

    def parameters(self, predicted: Sequence[int]) -> tuple[int, int, int]:
        """``(theta, O_0, O_1)`` resolved for these predictions."""
        return one_bit_parameters(predicted, self.theta, self.short_length, self.long_length)

    def keys(self, instance: Instance, predicted: Sequence[int]) -> list[int]:
        theta, o0, o1 = self.parameters(predicted)
        return [
            volume(r.prompt, o1 if int(o) > theta else o0)
            for r, o in zip(instance.requests, predicted)
        ]


POLICIES: dict[str, Callable[..., Policy]] = {
    "fcfs": FCFS,
    "sjf": ShortestJobFirst,
    "svf": SmallestVolumeFirst,
    "svf1": OneBitSVF,
}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Add a policy factory under ``name`` (overwrites an existing one on purpose)."""
    POLICIES[name] = factory


def make_policy(name: str, **params: Any) -> Policy:
    """Build a registered policy; accepts a spec ``"svf1:theta=10,short_length=3"`` too."""
    if ":" in name:
        name, extra = parse_spec(name)
        params = {**extra, **params}
    try:
        factory = POLICIES[name]
    except KeyError:
        raise UnknownNameError("policy", name, list(POLICIES)) from None
    try:
        return factory(**params)
    except TypeError as exc:
        raise ValidationError(f"policy {name!r}", params, f"bad parameters ({exc})") from None


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"name:k=v,k2=v2"`` into the name and typed parameters (int, float or str)."""
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValidationError(f"spec {spec!r}", item, "parameters must look like key=value")
        params[key.strip()] = _parse_value(raw.strip())
    return name.strip(), params


def _parse_value(raw: str) -> Any:
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return raw
