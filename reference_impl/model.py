"""The scheduling model of Kong, Qi, Ye, Zhou (arXiv 2606.22327, Sec. 2) and Jaillet et al.
(arXiv 2502.07115, Sec. 2): requests, instances, and their derived quantities.

A request ``i`` arrives at step ``a_i`` with a prompt of ``s_i`` tokens and produces ``o_i``
output tokens. Started at step ``x``, it holds ``s_i + (t - x)`` tokens of KV cache at every
step ``x < t <= x + o_i`` and finishes at step ``x + o_i``. Its memory-time *volume* is

.. math::  v_i = \\sum_{j=1}^{o_i} (s_i + j) = s_i o_i + (o_i^2 + o_i)/2,

its *peak* is ``p_i = s_i + o_i`` and an instance's ``alpha = max_i p_i / M``.

Every arrival, prompt, output and memory budget is an integer of at most
:data:`MAX_VALUE` ``= 2^53`` (a larger one is a :class:`~geosched.errors.ValidationError`
naming it). The bound is far past any KV cache or trace (2^53 decode steps of 25 ms are
seven million years), keeps each value exact as a double (JSON readers in other languages),
and keeps every per-request quantity the compiled code paths form in int64 range; sums over
many requests (TEL, memory held) are computed exactly wherever they can pass ``2^63``.

This module holds only definitions and validation; of geosched it imports only the error
classes and the strict JSON reader (:mod:`.jsonfile`, which imports nothing else), so that
``geosched.theory`` may depend on it alone.

Example
-------
>>> inst = Instance(12, [Request("a", 0, 6, 3), Request("b", 0, 1, 5)])
>>> [r.volume for r in inst.requests], inst.alpha
([24, 20], Fraction(3, 4))
"""

from __future__ import annotations

import gc
import json
import math
import operator
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, cast

from geosched.errors import ValidationError, WorkloadFormatError
from geosched.reference_impl.jsonfile import decode_text, loads, read_bytes

__all__ = [
    "Request",
    "Instance",
    "volume",
    "peak",
    "block_tokens",
    "instance_from_dict",
    "instance_to_dict",
    "read_instance",
    "instance_from_text",
    "canonical_instance",
    "write_instance",
    "burst_instance",
    "BurstSpace",
    "instance_from_columns",
    "schedule_from_dict",
    "read_schedule",
    "canonical_schedule",
    "canonical_rows",
    "canonical_schedule_rows",
    "MAX_VALUE",
    "STEP_LIMIT",
]

MAX_VALUE = 2**53  # the largest arrival, prompt, output or memory (see the module docstring)
STEP_LIMIT = 2**63  # a start time is a step in [-STEP_LIMIT, STEP_LIMIT) (int64, as in every solver)
_REQUEST_KEYS = ("id", "arrival", "prompt", "output")
_INSTANCE_KEYS = ("memory", "requests")
_OPTIONAL_INSTANCE_KEYS = ("block_size",)  # written only when it is not 1


def volume(prompt: int, output: int) -> int:
    """Memory-time volume ``s*o + (o*o + o)/2`` (Kong et al., Eq. (1)); always an integer."""
    return prompt * output + (output * output + output) // 2


def peak(prompt: int, output: int) -> int:
    """Peak KV footprint ``s + o``, reached at the request's last step."""
    return prompt + output


def block_tokens(tokens: int, block_size: int) -> int:
    """Tokens of the whole KV blocks that hold ``tokens`` slots: ``B * ceil(tokens / B)`` (block grain).

    >>> block_tokens(17, 16), block_tokens(16, 16), block_tokens(5, 1)
    (32, 16, 5)
    """
    return -(-tokens // block_size) * block_size


def _require_int(field: str, value: Any, minimum: int) -> int:
    # bool is an int subclass, and a float 3.0 is not a length: both are rejected so that a
    # malformed file cannot slip through as a silently truncated number.
    if isinstance(value, bool) or not _is_integer_type(value):
        if isinstance(value, float) and math.isnan(value):
            raise ValidationError(field, value, "must be an integer, not NaN")
        raise ValidationError(field, value, "must be an integer")
    ivalue = int(value)
    if ivalue < minimum:
        raise ValidationError(field, value, f"must be >= {minimum}")
    if ivalue > MAX_VALUE:
        raise ValidationError(field, value, f"must be <= 2^53 = {MAX_VALUE} (geosched's limit for one value)")
    return ivalue


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_integer_type(value: Any) -> bool:
    if isinstance(value, int):
        return True
    # numpy integers, without importing numpy here
    return type(value).__name__.startswith(("int", "uint")) and hasattr(value, "__index__")


@dataclass(frozen=True, slots=True)
class Request:
    """One inference request.

    ``Request(id, arrival, prompt, output)``; the lengths are token counts and ``arrival`` a
    step index. Construction validates every field.
    """

    id: str  # unique within an instance; any non-empty string
    arrival: int  # a_i >= 0: first step at which the request may start
    prompt: int  # s_i >= 0: prompt tokens held from the first decode step on
    output: int  # o_i >= 1: output tokens; the request runs exactly o_i steps

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ValidationError("id", self.id, "must be a non-empty string")
        if not self.id.isascii() and not _encodable(self.id):
            raise ValidationError("id", self.id, "must be encodable text (UTF-8): a lone surrogate is not")
        where = f"request {self.id!r}"
        object.__setattr__(self, "arrival", _require_int(f"{where}: arrival", self.arrival, 0))
        object.__setattr__(self, "prompt", _require_int(f"{where}: prompt", self.prompt, 0))
        object.__setattr__(self, "output", _require_int(f"{where}: output", self.output, 1))

    @property
    def volume(self) -> int:
        """``s*o + (o*o + o)/2``."""
        return volume(self.prompt, self.output)

    @property
    def peak(self) -> int:
        """``s + o``."""
        return self.prompt + self.output


@dataclass(frozen=True, slots=True, repr=False)
class Instance:
    """A memory budget ``M`` (tokens), a tuple of requests with unique ids, and the KV block size ``B``.

    Every request must satisfy ``peak <= M``: otherwise it can never run and no schedule
    exists, which is reported naming the request. ``block_size`` is the grain memory is counted
    in: a request holding ``u`` tokens holds ``B * ceil(u / B)`` of them (whole KV blocks, as in
    vLLM); ``M`` stays in tokens and must be a multiple of ``B``. ``1`` (the default) is the paper's
    token grain. It is validated here, once, and every simulator, checker, solver and search reads it
    from the instance, as it reads ``M``.

    >>> Instance(32, [Request("a", 0, 17, 3)], block_size=16).block_size
    16
    >>> Instance(30, [], block_size=16)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: block_size: must divide the memory M = 30 (M is in tokens) (got 16)
    """

    memory: int  # M: KV-cache capacity in tokens
    requests: tuple[Request, ...]  # in input order; policies never depend on this order
    block_size: int = 1  # B: memory counted in whole blocks of B tokens (1: token grain); M % B == 0

    def __init__(self, memory: int, requests: Iterable[Request], block_size: int = 1) -> None:
        # written out (dataclass keeps it) so that the signature says what is accepted: any iterable of
        # requests, a list as in the README, kept as a tuple
        object.__setattr__(self, "memory", memory)
        object.__setattr__(self, "requests", requests)
        object.__setattr__(self, "block_size", block_size)
        self.__post_init__()

    def __post_init__(self) -> None:
        object.__setattr__(self, "memory", _require_int("memory", self.memory, 1))
        object.__setattr__(self, "block_size", _require_int("block_size", self.block_size, 1))
        if self.memory % self.block_size:
            raise ValidationError("block_size", self.block_size,
                                  f"must divide the memory M = {self.memory} (M is in tokens)")
        if isinstance(self.requests, (str, bytes, Mapping)) or not isinstance(self.requests, Iterable):
            raise ValidationError("requests", self.requests, "must be a list or tuple of Request")
        requests = tuple(self.requests)
        for position, request in enumerate(requests):
            if not isinstance(request, Request):
                raise ValidationError(f"requests[{position}]", request, "must be a Request")
        object.__setattr__(self, "requests", requests)
        seen: set[str] = set()
        for request in requests:
            if request.id in seen:
                raise ValidationError("id", request.id, "request ids must be unique")
            seen.add(request.id)
            if request.peak > self.memory:  # with M a multiple of B, also: its whole blocks fit in M
                raise ValidationError(
                    f"request {request.id!r}: prompt + output",
                    request.peak,
                    f"must be <= memory {self.memory}, else the request can never run",
                )

    def __repr__(self) -> str:
        grain = f", block_size={self.block_size}" if self.block_size != 1 else ""
        return f"Instance(memory={self.memory!r}, requests={self.requests!r}{grain})"

    @property
    def n(self) -> int:
        """Number of requests."""
        return len(self.requests)

    @property
    def alpha(self) -> Fraction:
        """``max_i (s_i + o_i) / M`` as an exact fraction (0 for an empty instance)."""
        if not self.requests:
            return Fraction(0)
        return Fraction(max(r.peak for r in self.requests), self.memory)

    @property
    def is_burst(self) -> bool:
        """True when every request arrives at step 0 (the setting of Kong et al., Sec. 3)."""
        return all(r.arrival == 0 for r in self.requests)

    def by_id(self) -> dict[str, Request]:
        """Map from id to request."""
        return {r.id: r for r in self.requests}

    def with_memory(self, memory: int) -> Instance:
        """The same requests and block size under another budget (validated again)."""
        return Instance(memory, self.requests, self.block_size)

    def with_requests(self, requests: Iterable[Request]) -> Instance:
        """Other requests under the same budget and block size (validated again)."""
        return Instance(self.memory, requests, self.block_size)

    def with_block_size(self, block_size: int) -> Instance:
        """The same requests and budget counted in blocks of ``block_size`` tokens (validated again)."""
        return Instance(self.memory, self.requests, block_size)

    def to_dict(self) -> dict[str, Any]:
        """The instance JSON object (see :func:`instance_to_dict`)."""
        return instance_to_dict(self)


def burst_instance(memory: int, lengths: Iterable[tuple[int, int]], block_size: int = 1) -> Instance:
    """Instance with all arrivals at 0 from ``(prompt, output)`` pairs, ids ``r0, r1, ...``.

    >>> burst_instance(12, [(6, 3), (1, 5)]).requests[1]
    Request(id='r1', arrival=0, prompt=1, output=5)
    """
    return Instance(
        memory, [Request(f"r{k}", 0, s, o) for k, (s, o) in enumerate(lengths)], block_size
    )


@dataclass(frozen=True)
class BurstSpace:
    """A space of burst instances: exactly ``n`` requests at step 0, ``memory[0] <= M <= memory[1]``,
    ``0 <= s <= max_prompt``, ``1 <= o <= max_output`` and every peak ``s + o <= alpha_max * M``, with (a band)
    ``max(s + o) > alpha_min * M`` (``alpha_min = 0``: no lower side).

    The Z3 queries that cover such a space extend it (:class:`~geosched.reference_impl.z3model.BurstBounds`,
    ``geosched.adversary.z3search.Z3Bounds``): one validation of the bounds and of the band for both; ``FIELD``
    names the query in the error.

    Examples
    --------
    >>> space = BurstSpace(n=2, memory=(8, 8), max_prompt=4, max_output=3, alpha_max="7/8", alpha_min="3/4")
    >>> space.alpha, space.alpha_low
    (Fraction(7, 8), Fraction(3, 4))
    >>> BurstSpace(n=2, memory=(8, 8), max_prompt=4, max_output=3, alpha_min="1/2")
    Traceback (most recent call last):
    geosched.errors.ValidationError: space alpha_min: must be in [0, alpha_max = 1/2) (got '1/2')
    """

    FIELD: ClassVar[str] = "space"
    n: int  # number of requests (exactly n)
    memory: tuple[int, int]  # the range of M
    max_prompt: int  # largest prompt
    max_output: int  # largest output
    alpha_max: str | Fraction = "1/2"  # largest peak over M
    alpha_min: str | Fraction = "0"  # the largest peak over M exceeds this (0: no lower side)

    def __post_init__(self) -> None:
        for name, value, least in (("n", self.n, 1), ("max_prompt", self.max_prompt, 0),
                                   ("max_output", self.max_output, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValidationError(f"{self.FIELD} {name}", value, f"must be an integer >= {least}")
        lo, hi = self.memory
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)) or lo < 1 or hi < lo:
            raise ValidationError(f"{self.FIELD} memory", self.memory, "must be a range 1 <= lo <= hi of integers")
        if not 0 < self.alpha <= 1:
            raise ValidationError(f"{self.FIELD} alpha_max", self.alpha_max, "must be in (0, 1]")
        if not 0 <= self.alpha_low < self.alpha:
            raise ValidationError(f"{self.FIELD} alpha_min", self.alpha_min,
                                  f"must be in [0, alpha_max = {self.alpha})")

    @property
    def alpha(self) -> Fraction:
        """The band's upper side: every peak is at most ``alpha * M``."""
        return Fraction(self.alpha_max)

    @property
    def alpha_low(self) -> Fraction:
        """The band's lower side (exclusive; 0: none)."""
        return Fraction(self.alpha_min)

    def describe_lengths(self) -> str:
        """The bounds in words, without the band (each query words its band its own way)."""
        return (f"burst, n = {self.n}, M in [{self.memory[0]}, {self.memory[1]}], s <= {self.max_prompt}, "
                f"1 <= o <= {self.max_output}")

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "memory": list(self.memory), "max_prompt": self.max_prompt,
                "max_output": self.max_output, "alpha_max": str(self.alpha),
                **({"alpha_min": str(self.alpha_low)} if self.alpha_low else {})}


def instance_to_dict(instance: Instance) -> dict[str, Any]:
    """``{"memory": M, "requests": [{"id", "arrival", "prompt", "output"}, ...]}``, with
    ``"block_size": B`` after ``memory`` when ``B != 1`` (a token-grain file is unchanged).

    >>> instance_to_dict(burst_instance(32, [(1, 2)]).with_block_size(16))
    {'memory': 32, 'block_size': 16, 'requests': [{'id': 'r0', 'arrival': 0, 'prompt': 1, 'output': 2}]}
    """
    grain = {"block_size": instance.block_size} if instance.block_size != 1 else {}
    return {
        "memory": instance.memory,
        **grain,
        "requests": [
            {"id": r.id, "arrival": r.arrival, "prompt": r.prompt, "output": r.output}
            for r in instance.requests
        ],
    }


def instance_from_dict(data: Any, source: str = "instance") -> Instance:
    """Parse the instance JSON object; unknown or missing keys are errors naming the key."""
    if not isinstance(data, Mapping):
        raise WorkloadFormatError(f"{source}: expected a JSON object, got {type(data).__name__}")
    _check_keys(data, _INSTANCE_KEYS, source, optional=_OPTIONAL_INSTANCE_KEYS)
    raw_requests = data["requests"]
    if not isinstance(raw_requests, list):
        raise WorkloadFormatError(f"{source}: 'requests' must be a list")
    requests = []
    for position, item in enumerate(raw_requests):
        where = f"{source}: requests[{position}]"
        if not isinstance(item, Mapping):
            raise WorkloadFormatError(f"{where}: expected an object, got {type(item).__name__}")
        _check_keys(item, _REQUEST_KEYS, where)
        requests.append(Request(item["id"], item["arrival"], item["prompt"], item["output"]))
    return Instance(data["memory"], requests, data.get("block_size", 1))


def _check_keys(data: Mapping[str, Any], expected: tuple[str, ...], where: str,
                optional: tuple[str, ...] = ()) -> None:
    extra = sorted(set(data) - set(expected) - set(optional))
    if extra:
        raise WorkloadFormatError(
            f"{where}: unexpected key(s) {', '.join(map(repr, extra))}; "
            f"allowed: {', '.join(expected + optional)}"
        )
    missing = [key for key in expected if key not in data]
    if missing:
        raise WorkloadFormatError(f"{where}: missing key(s) {', '.join(map(repr, missing))}")


def read_instance(path: str | Path) -> Instance:
    """Read an instance JSON file (strictly: see :mod:`geosched.reference_impl.jsonfile`)."""
    raw = read_bytes(path)
    instance = canonical_instance(raw)
    return instance if instance is not None else instance_from_text(decode_text(raw, path), source=str(path))


def instance_from_text(text: str, source: str = "instance") -> Instance:
    """The instance of a JSON text, exactly as ``instance_from_dict(loads(text))`` reads it.

    A text in the layout :func:`write_instance` writes (keys in its order, ids of letters, digits
    and ``_.:-``, non-negative integers of at most 16 digits) is read by :func:`_canonical_rows`
    (no dict per request, about a third of the memory and time); every other text, and every
    text whose values break a rule, goes through the strict reader, which gives the same
    instance or names the error. ``tests/test_inputs.py`` checks that the two agree.

    >>> instance_from_text('{"memory": 12, "requests": [{"id": "a", "arrival": 0, "prompt": 6, "output": 3}]}')
    Instance(memory=12, requests=(Request(id='a', arrival=0, prompt=6, output=3),))
    """
    instance = canonical_instance(text)
    return instance if instance is not None else instance_from_dict(loads(text, source), source=source)


def canonical_instance(text: str | bytes) -> Instance | None:
    """The instance of a text (or a file's bytes) in :func:`write_instance`'s layout whose values keep
    every rule, read without a dict per request; None for any other text (see :func:`instance_from_text`)."""
    if isinstance(text, str):
        if not text.isascii():
            return None
        text = text.encode("ascii")
    rows = _canonical_rows(text)
    return None if rows is None else _trusted_instance(text, *rows)


_WS = "[ \t\n\r]*"  # JSON's whitespace (a regex \\s would also take Unicode spaces)
_COUNT = "(0|[1-9][0-9]{0,15})"
# bytes patterns: a file is matched before it is decoded (a 100 MB file is not held twice)
_HEAD = re.compile(f'{_WS}\\{{{_WS}"memory"{_WS}:{_WS}{_COUNT}{_WS},{_WS}"requests"{_WS}:{_WS}\\[{_WS}'.encode())
_TAIL = re.compile(f'\\]{_WS}\\}}{_WS}\\Z'.encode())
_NUMBER = "(?:0|[1-9][0-9]{0,15})"  # a JSON integer >= 0 of at most 16 digits (no leading zero)
_ID = '"[A-Za-z0-9_.:\\-]{1,256}"'  # no escapes, quotes or brackets: the text is the id


def _rows_pattern(open_: str, key: str, comma: str, close: str, between: str) -> tuple[re.Pattern[bytes], bytes]:
    """One or more request objects in one exact layout, separated by ``between``: literal text
    only (a regex of whitespace classes is three times slower on a million rows)."""
    row = (re.escape(open_ + key.format("id")) + _ID + re.escape(comma + key.format("arrival")) + _NUMBER
           + re.escape(comma + key.format("prompt")) + _NUMBER + re.escape(comma + key.format("output")) + _NUMBER
           + re.escape(close))
    return re.compile(f"{row}(?:{re.escape(between)}{row})*".encode()), between.encode()


# the layouts geosched's writers produce: write_instance (indent=1) and json.dumps' default
_LAYOUTS = (_rows_pattern("{\n", '   "{}": ', ",\n", "\n  }", ",\n  "),
            _rows_pattern("{", '"{}": ', ", ", "}", ", "))
_FIELDS = {key: re.compile((f'"{key}"{_WS}:{_WS}' + ('"([^"]*)"' if key == "id" else _COUNT)).encode())
           for key in _REQUEST_KEYS}


def _canonical_rows(text: bytes) -> tuple[int, int, int] | None:
    """``(memory, start, stop)`` when ``text`` is exactly one instance object in the canonical layout
    with its request rows at ``text[start:stop]`` (the rows must tile the list, so no other key,
    value or separator can hide between them), else None."""
    head = _HEAD.match(text)
    end = text.rfind(b"]")
    if head is None or end < head.end() or not _TAIL.match(text, end):
        return None
    start, stop = head.end(), end
    while stop > start and text[stop - 1] in b" \t\n\r":
        stop -= 1
    if stop == start or not any(_tiles(text, start, stop, rows, between) for rows, between in _LAYOUTS):
        return None
    return int(head.group(1)), start, stop


def _tiles(text: bytes, start: int, stop: int, rows: re.Pattern[bytes], between: bytes) -> bool:
    """Whether ``text[start:stop]`` is rows of one layout, ``row (between row)*``, matched a chunk of
    rows at a time (one match of a million rows holds hundreds of MB of the regex engine's stack)."""
    while True:
        end = text.find(b"}", min(start + _CHUNK_BYTES, stop - 1), stop)
        end = stop if end < 0 else end + 1
        if not rows.fullmatch(text, start, end):  # no slice: 100 MB
            return False
        if end == stop:
            return True
        if not text.startswith(between, end):
            return False
        start = end + len(between)


_CHUNK_BYTES = 1 << 20  # rows parsed at a time: the columns of one chunk, never of the whole file, are held


def canonical_rows(text: bytes) -> tuple[int, Iterator[tuple[list[bytes], list[int], list[int], list[int]]]] | None:
    """``(memory, chunks)`` of a file's bytes in :func:`write_instance`'s layout, else None: ``chunks``
    yields ``(ids, arrivals, prompts, outputs)`` of consecutive runs of rows, the ids as bytes. The
    values are *not* checked against the model's rules (:mod:`.columns` checks them on whole columns).

    >>> text = b'{"memory": 9, "requests": [{"id": "a", "arrival": 0, "prompt": 2, "output": 3}]}'
    >>> memory, chunks = canonical_rows(text)
    >>> memory, list(chunks)
    (9, [([b'a'], [0], [2], [3])])
    """
    rows = _canonical_rows(text)
    return None if rows is None else (rows[0], _row_chunks(text, rows[1], rows[2], decode=False))


def _row_chunks(text: bytes, start: int, stop: int, decode: bool = True) -> Any:
    """``(ids, arrivals, prompts, outputs)`` of consecutive runs of whole rows (a ``}`` ends a row:
    no id holds one)."""
    while start < stop:
        end = text.find(b"}", min(start + _CHUNK_BYTES, stop - 1), stop)
        end = stop if end < 0 else end + 1
        ids = _FIELDS["id"].findall(text, start, end)
        if decode:
            ids = list(map(bytes.decode, ids))  # ASCII ids
        yield (ids, *(list(map(int, _FIELDS[key].findall(text, start, end))) for key in _REQUEST_KEYS[1:]))
        start = end


def _trusted_instance(text: bytes, memory: int, start: int, stop: int) -> Instance | None:
    """The instance of the canonical rows ``text[start:stop]``, built without per-request validation:
    every rule of :class:`Request` and :class:`Instance` is checked here over whole columns, a chunk
    at a time; None if one fails."""
    return _column_instance(memory, _row_chunks(text, start, stop))


def instance_from_columns(memory: int, ids: list[str], arrivals: list[int], prompts: list[int],
                          outputs: list[int]) -> Instance:
    """The instance of four equally long columns (Python ints, ASCII ids), every rule of :class:`Request`
    and :class:`Instance` checked over whole columns rather than request by request: the same instance as
    ``Instance(memory, map(Request, ids, arrivals, prompts, outputs))`` (and its refusals), in half its CPU time
    (10^5 generated requests: 0.09 s against 0.17 s).

    >>> instance_from_columns(12, ["r0", "r1"], [0, 0], [6, 1], [3, 5]) == burst_instance(12, [(6, 3), (1, 5)])
    True
    >>> instance_from_columns(12, ["a"], [0], [20], [3])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geosched.errors.ValidationError: ...
    """
    columns = (ids, arrivals, prompts, outputs)
    ok = (len({len(c) for c in columns}) == 1 and all(isinstance(i, str) and i and i.isascii() for i in ids)
          and all(type(v) is int for c in columns[1:] for v in c) and (not ids or min(arrivals) >= 0)
          and (not ids or min(prompts) >= 0))
    instance = _column_instance(memory, [columns]) if ok and type(memory) is int else None
    if instance is None:  # the request-by-request constructor names the first field that breaks a rule
        instance = Instance(memory, map(Request, ids, arrivals, prompts, outputs))
    return instance


def _column_instance(memory: int, chunks: Iterable[tuple[list[str], list[int], list[int], list[int]]]
                     ) -> Instance | None:
    """An :class:`Instance` from chunks of columns ``(ids, arrivals, prompts, outputs)`` (ASCII ids, Python
    ints, arrivals and prompts >= 0), built without per-request validation: the remaining rules of
    :class:`Request` and :class:`Instance` are checked over whole columns; None if one fails."""
    if not 1 <= memory <= MAX_VALUE:
        return None
    slots, instance_slots = cast(Any, Request), cast(Any, Instance)  # the slots' descriptors (typed as the fields)
    new, set_id, set_arrival, set_prompt, set_output = (object.__new__, slots.id.__set__, slots.arrival.__set__,
                                                        slots.prompt.__set__, slots.output.__set__)
    requests: list[Request] = []
    append = requests.append
    seen: set[str] = set()
    collecting = gc.isenabled()
    gc.disable()  # a million acyclic objects: the cyclic collector's passes over them would double the time
    try:
        for ids, arrivals, prompts, outputs in chunks:
            n = len(ids)
            if not n == len(arrivals) == len(prompts) == len(outputs):  # cannot happen once the rows tile
                return None
            if n and (min(outputs) < 1 or max(max(arrivals), max(prompts), max(outputs)) > MAX_VALUE
                      or max(map(operator.add, prompts, outputs)) > memory):
                return None
            seen.update(ids)
            for request_id, arrival, prompt, output in zip(ids, arrivals, prompts, outputs):
                request = new(Request)
                set_id(request, request_id)
                set_arrival(request, arrival)
                set_prompt(request, prompt)
                set_output(request, output)
                append(request)
    finally:
        if collecting:
            gc.enable()
    if len(seen) != len(requests):
        return None
    instance = new(Instance)
    instance_slots.memory.__set__(instance, memory)
    instance_slots.requests.__set__(instance, tuple(requests))
    instance_slots.block_size.__set__(instance, 1)  # the canonical layout has no block_size key
    return instance


def schedule_from_dict(data: Any, source: str = "schedule") -> dict[str, Any]:
    """The start times of a schedule object: ``{"starts": {id: step, ...}}`` or ``{id: step, ...}``.

    In the wrapped form ``"starts"`` must be the only key (a request named ``starts`` needs the
    wrapped form). An integer start outside ``[-2^63, 2^63)`` (:data:`STEP_LIMIT`) is an error;
    other values are returned as given, for the checker to judge (a start that is not an
    integer is a violation it reports).

    >>> schedule_from_dict({"starts": {"r0": 0, "r1": 1}})
    {'r0': 0, 'r1': 1}
    >>> schedule_from_dict({"starts": {"r0": 0}, "tel": 3})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geosched.errors.WorkloadFormatError: schedule: unexpected top-level key(s) 'tel'; a schedule is ...
    """
    if isinstance(data, Mapping) and "starts" in data:
        extra = sorted(set(data) - {"starts"})
        if extra:
            raise WorkloadFormatError(f"{source}: unexpected top-level key(s) {', '.join(map(repr, extra))}; "
                                      'a schedule is {"starts": {id: step}} or {id: step}')
        data = data["starts"]
    if not isinstance(data, Mapping):
        raise WorkloadFormatError(f"{source}: expected an object of start times keyed by request id, "
                                  f"got {type(data).__name__}")
    values = data.values()
    if values and all(type(value) is int for value in values) and -STEP_LIMIT <= min(values) \
            and max(values) < STEP_LIMIT:
        return dict(data)  # the common case, checked in C-speed passes
    for request_id, value in data.items():
        if isinstance(value, int) and not isinstance(value, bool) and not -STEP_LIMIT <= value < STEP_LIMIT:
            raise ValidationError(f"{source}: start of {request_id!r}", value, "must be a step in [-2^63, 2^63)")
    return dict(data)


def read_schedule(path: str | Path) -> dict[str, Any]:
    """Read a schedule JSON file strictly (see :func:`schedule_from_dict` for its two forms).

    A file in ``json.dumps({"starts": starts})``'s layout is read by :func:`canonical_schedule`
    (no JSON objects built); any other text by the strict reader, with the same result."""
    raw = read_bytes(path)
    starts = canonical_schedule(raw)
    if starts is not None:
        return starts
    return schedule_from_dict(loads(decode_text(raw, path), str(path)), source=str(path))


_STEP = "-?(?:0|[1-9][0-9]{0,17})"  # at most 18 digits: always inside [-2^63, 2^63)
_SCHEDULE_ROWS = re.compile(f"{_ID}: {_STEP}(?:, {_ID}: {_STEP})*".encode())
_SCHEDULE_HEAD = re.compile(f'{_WS}\\{{{_WS}"starts"{_WS}:{_WS}\\{{'.encode())
_SCHEDULE_TAIL = re.compile(f"\\}}{_WS}\\}}{_WS}\\Z".encode())
_SCHEDULE_IDS = re.compile(b'"([A-Za-z0-9_.:\\-]{1,256})": ')
_SCHEDULE_STEPS = re.compile(f'": ({_STEP})'.encode())


def canonical_schedule(text: bytes) -> dict[str, int] | None:
    """The starts of a schedule file's bytes in ``json.dumps({"starts": {id: step, ...}})``'s layout
    (ids of letters, digits and ``_.:-``, distinct; integer steps of at most 18 digits), exactly as
    the strict reader gives them; None for any other text (the strict reader then decides).
    Matched and parsed a chunk of rows at a time, as instance files are.

    >>> canonical_schedule(b'{"starts": {"r0": 5, "r1": -0}}')
    {'r0': 5, 'r1': 0}
    >>> canonical_schedule(b'{"starts": {"r0": 5, "r0": 6}}') is None  # a duplicate key: the strict reader's error
    True
    """
    chunks = canonical_schedule_rows(text)
    if chunks is None:
        return None
    starts: dict[str, int] = {}
    rows = 0
    for chunk in chunks:
        if chunk is None:
            return None
        ids, steps = chunk
        starts.update(zip(map(bytes.decode, ids), steps))
        rows += len(ids)
    return starts if len(starts) == rows else None


def canonical_schedule_rows(text: bytes) -> Iterator[tuple[list[bytes], list[int]] | None] | None:
    """The rows of a schedule file's bytes in ``json.dumps({"starts": ...})``'s layout, a chunk at a
    time as ``(ids as bytes, steps)``; None (at once, or as a chunk) where the text leaves that layout.
    Duplicate ids are not detected here (:func:`canonical_schedule` counts them).

    >>> list(canonical_schedule_rows(b'{"starts": {"r0": 5, "r1": -0}}'))
    [([b'r0', b'r1'], [5, 0])]
    """
    head = _SCHEDULE_HEAD.match(text)
    stop = text.rfind(b"}", 0, text.rfind(b"}"))  # the end of the rows: the inner object's brace
    if head is None or stop < head.end() or not _SCHEDULE_TAIL.match(text, stop):
        return None
    return _schedule_chunks(text, head.end(), stop)


def _schedule_chunks(text: bytes, start: int, stop: int) -> Iterator[tuple[list[bytes], list[int]] | None]:
    while True:
        end = text.find(b', "', min(start + _CHUNK_BYTES, stop), stop)  # ', "' only separates rows
        end = stop if end < 0 else end
        if not _SCHEDULE_ROWS.fullmatch(text, start, end):  # no slice: 20 MB
            yield None
            return
        ids = _SCHEDULE_IDS.findall(text, start, end)
        steps = list(map(int, _SCHEDULE_STEPS.findall(text, start, end)))
        if len(ids) != len(steps):  # cannot happen once the rows match; checked all the same
            yield None
            return
        yield ids, steps
        if end == stop:
            return
        start = end + 2


def write_instance(instance: Instance, path: str | Path) -> None:
    """Write an instance JSON file (the exact shape :func:`read_instance` accepts), atomically
    (:func:`geosched.output.write_text_atomic`)."""
    from geosched.output import write_text_atomic

    write_text_atomic(path, json.dumps(instance_to_dict(instance), indent=1) + "\n")
