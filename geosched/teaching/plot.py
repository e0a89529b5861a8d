"""Pictures of the geometry of KV memory: schedules, certificates and bad families.

The central picture of Kong, Qi, Ye, Zhou (arXiv 2606.22327, Sec. 2): a request ``i``
started at step ``x_i`` holds ``s_i + (t - x_i)`` tokens at every step ``x_i < t <= x_i + o_i``,
so over time its memory is a *staircase* of ``o_i`` unit-wide columns whose area is exactly its
volume

.. math::  v_i = \\sum_{j=1}^{o_i} (s_i + j) = s_i o_i + \\frac{o_i^2 + o_i}{2}

(the trapezoid ``s_i o_i + o_i^2/2`` misses half a token per step). Step ``t`` is drawn as the
interval ``[t - 1, t]`` on the time axis, so the staircase of ``i`` spans ``[x_i, x_i + o_i]``.

Functions (each returns a :class:`Picture`: the matplotlib ``Figure`` and the data it drew):

* :func:`memory_picture`: the stacked staircases of a schedule, the memory line ``M`` and the
  blocked steps (decision steps ``t`` at which an arrived request waits, ``a_i <= t < x_i``);
* :func:`gantt`: one row per request, waiting then running;
* :func:`certificate_picture`: Lemma A.2's macroscopic certificate, the running batch's peak
  mass against ``(1 - alpha) M`` at every blocked step of a simulated policy;
* :func:`family_ratio_picture`: a bad family's measured ratio against its size, with the closed form;
* :func:`compare_picture`: policies and OPT side by side on the same axes;
* :func:`ratio_curve_picture`: SVF's ratio against alpha, certified witnesses and families' limits below,
  the proved bounds above, each with its source (:mod:`geosched.teaching.ratio_curve` computes the data).

Figures are deterministic: they are built on a bare :class:`matplotlib.figure.Figure` (no
pyplot state) under fixed rcParams (DejaVu Sans, a fixed SVG hash salt, text as paths), and
:meth:`Picture.save` writes no date or software version into the file. matplotlib is imported on
first use; without it every function raises :class:`MissingExtraError` naming ``geosched[plot]``.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> pic = memory_picture(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 5, "r1": 0})
>>> [(band.id, band.area) for band in pic.data.bands], pic.data.blocked_steps
([('r1', 20), ('r0', 24)], (0, 1, 2, 3, 4))
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geosched.errors import GeoschedError, ValidationError
from geosched.output import atomic_path, install_hint
from geosched.reference_impl.model import Instance
from geosched.results import Result

__all__ = [
    "MissingExtraError",
    "Picture",
    "Band",
    "MemoryData",
    "GanttData",
    "CertificateData",
    "FamilyRatioData",
    "CompareData",
    "memory_picture",
    "memory_layout",
    "request_groups",
    "gantt",
    "certificate_picture",
    "family_ratio_picture",
    "compare_picture",
    "ratio_curve_picture",
    "blocked_steps",
    "PLOT_FAMILIES",
    "RC_PARAMS",
]

# Fixed rcParams: the same bytes on every run of the same matplotlib version.
RC_PARAMS: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "svg.hashsalt": "geosched",
    "svg.fonttype": "path",
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "path.simplify": False,
    "axes.prop_cycle": None,  # replaced below by a fixed colour cycle
}
_COLORS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c",
           "#ccb974", "#64b5cd")
_MEMORY_COLOR = "#222222"
_BLOCKED_COLOR = "#d62728"
_FORMATS = ("png", "svg", "pdf")


class MissingExtraError(GeoschedError, ImportError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtraError(f"matplotlib is not installed: {install_hint('plot')}") from None
    return matplotlib, Figure


@contextmanager
def _style():
    matplotlib, _ = _matplotlib()
    from cycler import cycler

    params = dict(RC_PARAMS, **{"axes.prop_cycle": cycler(color=list(_COLORS))})
    with matplotlib.rc_context(params):
        yield


def _figure(width: float, height: float, ncols: int = 1, *, sharey: bool = False):
    _, Figure = _matplotlib()
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, sharey=sharey, squeeze=False)[0]
    return fig, list(axes)


def _freeze_layout(fig) -> None:
    """Run the constrained layout once, then fix it: every later save draws the same geometry
    (the layout engine otherwise refines the axes' positions a little on each draw)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    with _style():
        fig.draw_without_rendering()
    fig.set_layout_engine("none")


def _integer_ticks():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


@dataclass(frozen=True)
class Picture(Result):
    """A drawn figure and the data it shows (``status``: ``completed``, or ``empty`` when there
    was nothing to draw, e.g. a certificate without a blocked step)."""

    STATUSES = ("completed", "empty")
    SUCCESS = ("completed", "empty")

    status: str  # "completed" or "empty" (nothing to draw)
    message: str  # one line: what the figure shows
    wall_time: float  # seconds spent computing and drawing
    kind: str  # "memory", "gantt", "certificate", "family", "compare", "ratio-curve"
    data: Any  # the plotted data (MemoryData, GanttData, ...): what tests and lessons read
    figure: Any = field(repr=False, compare=False)  # the matplotlib Figure

    def __post_init__(self) -> None:
        super().__post_init__()
        _freeze_layout(self.figure)

    def save(self, path: str | Path, *, force: bool = False) -> Path:
        """Write the figure as PNG, SVG or PDF (by suffix); an existing file needs ``force``."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in _FORMATS:
            raise ValidationError("--out", str(path), f"the file name must end in .{', .'.join(_FORMATS)}")
        metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                    "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}[fmt]
        # drawn into a temporary file of the target's folder, then renamed (geosched.output)
        with atomic_path(path, force=force, field="--out") as temporary, _style():
            self.figure.savefig(temporary, format=fmt, metadata=metadata)
        return path

    def to_bytes(self, fmt: str = "png") -> bytes:
        """The figure as PNG or SVG bytes (the same bytes :meth:`save` writes)."""
        import io

        buffer = io.BytesIO()
        metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
        with _style():
            self.figure.savefig(buffer, format=fmt, metadata=metadata)
        return buffer.getvalue()

    def _repr_png_(self) -> bytes:  # Jupyter shows a Picture as its figure, with or without pyplot
        return self.to_bytes("png")


# ------------------------------------------------------------------ memory-time picture


@dataclass(frozen=True)
class Band:
    """One request's staircase in the stacked picture: column ``t`` (drawn over ``[t - 1, t]``)
    spans ``low[k] .. high[k]`` tokens for ``t = steps[k]``; ``high - low = s + (t - x)``."""

    id: str  # request id
    start: int  # x_i
    steps: tuple[int, ...]  # x_i + 1 .. x_i + o_i
    low: tuple[int, ...]  # stacked base at each step
    high: tuple[int, ...]  # base + tokens held

    @property
    def area(self) -> int:
        """Tokens x steps under the staircase: the request's volume."""
        return sum(h - lo for lo, h in zip(self.low, self.high))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "start": self.start, "steps": list(self.steps), "low": list(self.low),
                "high": list(self.high), "area": self.area}


@dataclass(frozen=True)
class MemoryData:
    """What :func:`memory_picture` drew (computed by :func:`memory_layout`)."""

    memory: int  # M, the horizontal line
    bands: tuple[Band, ...]  # listed in (start, position) order; stacked as :func:`memory_layout` says
    usage: tuple[int, ...]  # tokens held at steps 1 .. horizon (index t - 1)
    blocked_steps: tuple[int, ...]  # decision steps t with some a_i <= t < x_i
    tel: int  # sum of x_i + o_i - a_i


def blocked_steps(instance: Instance, starts: Mapping[str, int]) -> tuple[int, ...]:
    """Decision steps ``t`` at which some arrived request has not started: ``a_i <= t < x_i``.

    >>> from geosched.reference_impl.model import burst_instance
    >>> blocked_steps(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 5, "r1": 0})
    (0, 1, 2, 3, 4)
    """
    steps: set[int] = set()
    for request in instance.requests:
        steps.update(range(request.arrival, starts[request.id]))
    return tuple(sorted(steps))


def _checked_starts(instance: Instance, starts: Mapping[str, int], what: str) -> dict[str, int]:
    from geosched.reference_impl.checker import check_schedule

    report = check_schedule(instance, starts)
    if not report.feasible:
        raise ValidationError(what, dict(starts), f"is not a feasible schedule: {report.first_violation.message}")
    return {r.id: int(starts[r.id]) for r in instance.requests}


MAX_PICTURE_STEPS = 10**6  # the memory picture keeps a value per step (and per step of every request)


def _memory_data(instance: Instance, starts: Mapping[str, int]) -> MemoryData:
    position = {r.id: k for k, r in enumerate(instance.requests)}
    listed = sorted(instance.requests, key=lambda r: (starts[r.id], position[r.id]))
    # One fixed stacking order for the whole picture, bottom to top: the request that finishes
    # last lies lowest (ties: earlier start, then instance position). No request below a band
    # ends while the band runs, so a band never falls when another finishes; it only rises as the
    # requests beneath it grow or a request that outlasts it starts beneath it.
    stacked = sorted(instance.requests, key=lambda r: (-(starts[r.id] + r.output), starts[r.id], position[r.id]))
    horizon = max((starts[r.id] + r.output for r in instance.requests), default=0)
    drawn = sum(r.output + starts[r.id] - r.arrival for r in instance.requests)  # bands and blocked steps
    if horizon > MAX_PICTURE_STEPS or drawn > 10 * MAX_PICTURE_STEPS:
        raise ValidationError("schedule", f"{horizon} steps", f"too long to draw step by step (at most "
                                                              f"{MAX_PICTURE_STEPS} steps)")
    base = [0] * (horizon + 1)  # base[t]: tokens already stacked at step t
    bands = {}
    for r in stacked:
        x = starts[r.id]
        steps = tuple(range(x + 1, x + r.output + 1))
        low = tuple(base[t] for t in steps)
        high = tuple(base[t] + r.prompt + (t - x) for t in steps)
        for t, h in zip(steps, high):
            base[t] = h
        bands[r.id] = Band(r.id, x, steps, low, high)
    tel = sum(starts[r.id] + r.output - r.arrival for r in instance.requests)
    return MemoryData(instance.memory, tuple(bands[r.id] for r in listed), tuple(base[1:]),
                      blocked_steps(instance, starts), tel)


def memory_layout(instance: Instance, starts: Mapping[str, int]) -> MemoryData:
    """The geometry :func:`memory_picture` draws, without drawing (no matplotlib needed).

    Every request is one band: at step ``t`` (``x_i < t <= x_i + o_i``) it spans ``low .. high``
    with ``high - low = s_i + (t - x_i)``, the tokens it holds (Kong et al., Sec. 2). The bands
    are stacked in one order fixed for the whole schedule, bottom to top by *decreasing*
    finishing step ``x_i + o_i`` (ties: earlier start, then position in the instance): a band
    keeps its place among the others for its whole life and never falls when another request
    finishes, and the top of the stack at step ``t`` is the memory in use.

    Parameters
    ----------
    instance : Instance
        The workload.
    starts : mapping of str to int
        A feasible start step per request id.

    Returns
    -------
    MemoryData
        The bands (listed in start order), the usage per step, the blocked steps and the TEL.

    Raises
    ------
    ValidationError
        When ``starts`` is not a feasible schedule.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> layout = memory_layout(burst_instance(20, [(6, 3), (1, 5)]), {"r0": 1, "r1": 0})
    >>> [(b.id, b.low, b.high) for b in layout.bands]  # r1 finishes last (step 5): it lies lowest
    [('r1', (0, 0, 0, 0, 0), (2, 3, 4, 5, 6)), ('r0', (3, 4, 5), (10, 12, 14))]
    """
    return _memory_data(instance, _checked_starts(instance, starts, "starts"))


_GROUP_ID = re.compile(r"^([A-Za-z]+)[_.-]?(\d+)$")
MAX_LEGEND_ENTRIES = 12  # more requests than this: the legend names only groups, M and the blocked steps


def request_groups(instance: Instance) -> dict[str, str] | None:
    """The group of every request when the ids name groups, else ``None``.

    Ids name groups when every id is letters followed by a number (``a1``, ``B_07``) and the
    letters take between 2 and 10 values, fewer than the requests (the ``A``/``B`` requests of
    Kong et al.'s SJF family, ``a``/``b`` of ``sjf-blocking``); ``r0 .. r7`` is one letter, so no
    groups. Grouped requests share a colour in every picture.

    >>> from geosched.theory.kong_sjf_unbounded import sjf_family
    >>> sorted(set(request_groups(sjf_family(2)).values()))
    ['a', 'b']
    """
    matches = [_GROUP_ID.match(r.id) for r in instance.requests]
    if not matches or not all(matches):
        return None
    groups = {r.id: m.group(1) for r, m in zip(instance.requests, matches)}
    distinct = len(set(groups.values()))
    return groups if 2 <= distinct <= len(_COLORS) and distinct < len(groups) else None


def _colours(instance: Instance) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """A colour per request id and the legend entries ``(label, colour)``: one per group when the
    ids name groups, else one per request (none when there are too many to read)."""
    groups = request_groups(instance)
    if groups is None:
        colour = {r.id: _COLORS[k % len(_COLORS)] for k, r in enumerate(instance.requests)}
        entries = [(r.id, colour[r.id]) for r in instance.requests] if instance.n <= MAX_LEGEND_ENTRIES else []
        return colour, entries
    names = list(dict.fromkeys(groups.values()))  # in order of first appearance
    count = {g: sum(1 for v in groups.values() if v == g) for g in names}
    by_group = {g: _COLORS[k] for k, g in enumerate(names)}
    entries = [(f"{g}* ({count[g]} request{'s' if count[g] != 1 else ''})", by_group[g]) for g in names]
    return {rid: by_group[g] for rid, g in groups.items()}, entries


def _legend_handles(data: MemoryData, entries: list[tuple[str, str]]) -> list:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=c, edgecolor="white", alpha=0.9, label=label) for label, c in entries]
    handles.append(Line2D([], [], color=_MEMORY_COLOR, linestyle="--", linewidth=1.2, label=f"M = {data.memory}"))
    if data.blocked_steps:
        handles.append(Patch(facecolor=_BLOCKED_COLOR, label="blocked step (someone waits)"))
    return handles


def _draw_memory(ax, data: MemoryData, colour: Mapping[str, str], *, label_steps: float = 3) -> None:
    """Draw the bands; a band is labelled with its id and volume only where the label fits inside
    it: at least ``label_steps`` columns wide and 15% of ``M`` high (else the text spills over others)."""
    for band in data.bands:
        edges = [band.start, *band.steps]
        ax.fill_between(edges, [*band.low, band.low[-1]], [*band.high, band.high[-1]], step="post",
                        facecolor=colour[band.id], edgecolor="white", linewidth=0.6, alpha=0.9,
                        label=band.id)
        k = len(band.steps) // 2
        if (len(data.bands) <= 12 and len(band.steps) >= max(3, label_steps)
                and band.high[k] - band.low[k] >= 0.15 * data.memory):
            ax.text(band.steps[k] - 0.5, (band.low[k] + band.high[k]) / 2, f"{band.id}\nv={band.area}",
                    ha="center", va="center", fontsize=7, color="white")
    horizon = max(len(data.usage), 1)
    ax.axhline(data.memory, color=_MEMORY_COLOR, linestyle="--", linewidth=1.2, label=f"M = {data.memory}")
    if data.blocked_steps:
        height = data.memory * 0.04
        ax.broken_barh([(t, 1) for t in data.blocked_steps], (-1.5 * height, height), facecolors=_BLOCKED_COLOR,
                       label="blocked step")
    ax.set_xlim(0, horizon)
    ax.xaxis.set_major_locator(_integer_ticks())
    ax.yaxis.set_major_locator(_integer_ticks())  # tokens are whole numbers
    ax.set_ylim(-0.08 * data.memory, data.memory * 1.08)
    ax.set_xlabel("time (step t drawn over [t - 1, t])")
    ax.set_ylabel("KV tokens held")


def memory_picture(instance: Instance, starts: Mapping[str, int], *, title: str | None = None) -> Picture:
    """The memory-time picture of a schedule: stacked staircases, ``M`` and the blocked steps.

    Parameters
    ----------
    instance : Instance
        The workload.
    starts : mapping of str to int
        A start step per request id; it must be feasible (checked by
        :func:`geosched.reference_impl.checker.check_schedule`).
    title : str, optional
        The axes title (default: the TEL and the number of blocked steps).

    Returns
    -------
    Picture
        ``kind == "memory"``; ``data`` is a :class:`MemoryData` whose bands' areas are the volumes.

    Raises
    ------
    ValidationError
        When ``starts`` is not a feasible schedule.
    MissingExtraError
        When matplotlib is not installed.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> pic = memory_picture(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 0, "r1": 3})
    >>> pic.data.usage, pic.data.tel
    ((7, 8, 9, 2, 3, 4, 5, 6), 11)
    """
    began = time.perf_counter()
    starts = _checked_starts(instance, starts, "starts")
    data = _memory_data(instance, starts)
    with _style():
        fig, (ax,) = _figure(7.0, 3.6)
        colour, entries = _colours(instance)
        _draw_memory(ax, data, colour, label_steps=0.06 * len(data.usage))
        ax.legend(handles=_legend_handles(data, entries), loc="upper right", fontsize=7, ncols=2)
        ax.set_title(title or f"TEL {data.tel}, {len(data.blocked_steps)} blocked step(s)")
    return Picture("completed", f"memory-time picture: n={instance.n}, M={instance.memory}, TEL={data.tel}",
                   time.perf_counter() - began, "memory", data, fig)


# ------------------------------------------------------------------ Gantt chart


@dataclass(frozen=True)
class GanttData:
    """Rows of :func:`gantt`, top to bottom in instance order: ``(id, arrival, start, end)``."""

    rows: tuple[tuple[str, int, int, int], ...]
    tel: int


def gantt(instance: Instance, starts: Mapping[str, int], *, title: str | None = None) -> Picture:
    """A Gantt chart: per request a grey waiting bar ``[a_i, x_i]`` and a running bar ``[x_i, x_i + o_i]``.

    Parameters
    ----------
    instance : Instance
        The workload.
    starts : mapping of str to int
        A feasible start step per request id.
    title : str, optional
        The axes title.

    Returns
    -------
    Picture
        ``kind == "gantt"``; ``data`` is a :class:`GanttData`.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> gantt(burst_instance(12, [(6, 3), (1, 5)]), {"r0": 5, "r1": 0}).data.rows
    (('r0', 0, 5, 8), ('r1', 0, 0, 5))
    """
    began = time.perf_counter()
    starts = _checked_starts(instance, starts, "starts")
    rows = tuple((r.id, r.arrival, starts[r.id], starts[r.id] + r.output) for r in instance.requests)
    tel = sum(end - arrival for _, arrival, _, end in rows)
    with _style():
        fig, (ax,) = _figure(7.0, 1.0 + 0.28 * max(len(rows), 1))
        waits = [(arrival, start - arrival, len(rows) - 1 - k) for k, (_, arrival, start, _) in enumerate(rows)
                 if start > arrival]
        for n_drawn, (arrival, length, y) in enumerate(waits):  # one legend entry for all waiting bars
            ax.broken_barh([(arrival, length)], (y - 0.35, 0.7), facecolors="#dddddd", edgecolor="#999999",
                           linewidth=0.5, label="waiting" if n_drawn == 0 else None)
        colour, _ = _colours(instance)
        for k, (rid, _, start, end) in enumerate(rows):
            y = len(rows) - 1 - k
            ax.broken_barh([(start, end - start)], (y - 0.35, 0.7), facecolors=colour[rid], label=rid)
        ax.set_yticks(range(len(rows)), [rid for rid, *_ in reversed(rows)])
        ax.set_xlim(0, max((end for *_, end in rows), default=1))
        ax.xaxis.set_major_locator(_integer_ticks())
        ax.set_xlabel("time (steps)")
        ax.set_title(title or f"Gantt chart, TEL {tel}")
    return Picture("completed", f"Gantt chart: n={instance.n}, TEL={tel}", time.perf_counter() - began, "gantt",
                   GanttData(rows, tel), fig)


# ------------------------------------------------------------------ the certificate


@dataclass(frozen=True)
class CertificateData:
    """The certificate at every blocked step of a simulated policy."""

    policy: str  # the simulated policy
    threshold: int  # (1 - alpha) M = M - P
    steps: tuple[int, ...]  # blocked decision steps t
    peak_mass: tuple[int, ...]  # sum of s + o over the batch running on (t, t + 1]
    usage: tuple[int, ...]  # tokens actually held at step t + 1
    holds: bool | None  # peak_mass > threshold at every blocked step; None when the theorem does not apply
    min_slack: int | None  # min of peak_mass - threshold (None without a blocked step or when it does not apply)
    alpha: str = ""  # alpha = max(s + o) / M, as a fraction
    verdict: str = ""  # "holds", "fails", "not applicable" (alpha >= 1) or "nothing to certify" (no blocked step)


def certificate_picture(instance: Instance, policy: str = "svf", *, predictor: Any = "oracle",
                        backfill: bool = False) -> Picture:
    """Kong et al.'s macroscopic certificate (Lemma A.2) drawn on the schedule of ``policy``.

    At every blocked step ``t`` the running batch ``B(t)`` should satisfy
    ``sum_{i in B(t)} (s_i + o_i) > (1 - alpha) M``: with exact lengths the head failed the
    forward-looking check, so it holds under any policy (Lemma A.2's *order* part is SVF's);
    with predicted lengths it can fail, and the failing steps are marked. When ``alpha = 1``
    (a request's peak ``s + o`` is all of ``M``) the threshold ``(1 - alpha) M`` is 0, Theorem 3.2's
    hypothesis ``alpha < 1`` fails and there is nothing to certify: the picture says so, draws no
    threshold, and ``holds`` is ``None`` (``verdict == "not applicable"``), never "holds".
    The blocked intervals come from the simulator's ``observer`` and the peak masses are
    recomputed from the instance (as :class:`geosched.verify.monitor.CertificateMonitor` does).

    Parameters
    ----------
    instance : Instance
        The workload.
    policy : str
        A registered policy name (default ``"svf"``).
    predictor : str or predictor object
        Output-length predictions the scheduler uses (default ``"oracle"``: exact lengths).
    backfill : bool
        Simulate with backfilling.

    Returns
    -------
    Picture
        ``kind == "certificate"``; ``data`` is a :class:`CertificateData`; ``status == "empty"``
        when no request ever waits.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> d = certificate_picture(burst_instance(12, [(6, 3), (1, 5)])).data
    >>> d.threshold, d.steps, d.peak_mass, d.holds, d.verdict
    (3, (0, 1, 2, 3, 4), (6, 6, 6, 6, 6), True, 'holds')
    >>> certificate_picture(burst_instance(12, [(6, 6), (1, 5)])).message
    'certificate of svf: alpha = 1: Thm 3.2 does not apply; no threshold (5 blocked step(s) drawn)'
    """
    from geosched.reference_impl.simulation import simulate
    from geosched.verify.monitor import CertificateMonitor

    began = time.perf_counter()
    monitor = CertificateMonitor(instance, check_order=False)
    intervals = []

    def observe(interval) -> None:
        intervals.append(interval)
        monitor(interval)

    result = simulate(instance, policy, predictor=predictor, backfill=backfill, observer=observe)
    peak = {r.id: r.peak for r in instance.requests}
    usage_at = _memory_data(instance, result.starts).usage
    steps, mass, usage = [], [], []
    for interval in intervals:
        total = sum(peak[i] for i in interval.running)
        for t in range(interval.first_step, max(interval.first_step + 1, interval.end_step)):
            steps.append(t)
            mass.append(total)
            usage.append(usage_at[t] if t < len(usage_at) else 0)
    checked = monitor.result()
    applies = monitor.threshold > 0  # (1 - alpha) M > 0 <=> alpha < 1, Thm 3.2's hypothesis
    holds = checked.peak_mass_violations == 0 if applies and steps else None if not applies else True
    verdict = ("not applicable" if not applies else "nothing to certify" if not steps
               else "holds" if holds else "fails")
    data = CertificateData(str(policy), monitor.threshold, tuple(steps), tuple(mass), tuple(usage), holds,
                           checked.min_slack if applies else None, str(instance.alpha), verdict)
    with _style():
        fig, (ax,) = _figure(7.5, 3.4)
        _draw_certificate(ax, data, instance)
    status = "completed" if steps else "empty"
    if not applies:
        message = (f"certificate of {policy}: {_not_applicable(data)} ({len(steps)} blocked step(s) drawn)")
    elif steps:
        message = (f"certificate of {policy}: {len(steps)} blocked step(s), it {'holds' if holds else 'FAILS'} "
                   f"(min slack {data.min_slack})")
    else:
        message = f"certificate of {policy}: no blocked step, nothing to certify"
    return Picture(status, message, time.perf_counter() - began, "certificate", data, fig)


def _not_applicable(data: CertificateData) -> str:
    return f"alpha = {data.alpha}: Thm 3.2 does not apply; no threshold"


def _draw_certificate(ax, data: CertificateData, instance: Instance) -> None:
    if data.steps:
        ax.bar([t + 0.5 for t in data.steps], data.peak_mass, width=0.9, color=_COLORS[0],
               label="peak mass of the running batch")
        ax.plot([t + 0.5 for t in data.steps], data.usage, linestyle="none", marker="_", markersize=12,
                markeredgewidth=2.0, color=_COLORS[1], label="tokens held at t + 1")
        bad = [(t, m) for t, m in zip(data.steps, data.peak_mass) if m <= data.threshold]
        if bad and data.verdict != "not applicable":
            ax.plot([t + 0.5 for t, _ in bad], [m for _, m in bad], linestyle="none", marker="x", markersize=8,
                    color=_BLOCKED_COLOR, label="certificate fails")
        ax.set_xlim(min(data.steps), max(data.steps) + 1)
    if data.verdict != "not applicable":
        ax.axhline(data.threshold, color=_BLOCKED_COLOR, linestyle="--", linewidth=1.2,
                   label=f"(1 - alpha) M = {data.threshold}")
    ax.axhline(instance.memory, color=_MEMORY_COLOR, linestyle=":", linewidth=1.0, label=f"M = {instance.memory}")
    ax.set_ylim(0, max((*data.peak_mass, instance.memory)) * 1.1)
    ax.set_xlabel("blocked decision step t")
    ax.set_ylabel("tokens")
    ax.set_title(f"macroscopic certificate of {data.policy}\n" + {
        "holds": "holds at every blocked step", "fails": "fails somewhere",
        "nothing to certify": "no blocked step, nothing to certify"}.get(data.verdict, _not_applicable(data)))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, borderaxespad=0)  # beside, not over, the bars


# ------------------------------------------------------------------ ratio against size


@dataclass(frozen=True)
class FamilyRatioData:
    """Measured ratio against size for a family, beside its closed form."""

    family: str  # the family's name
    policy: str  # the policy it hurts
    reference: str  # what the ratio divides by (a witness schedule or SVF's schedule)
    sizes: tuple[int, ...]
    policy_tel: tuple[int, ...]  # from the simulator, checked by the checker
    reference_tel: tuple[int, ...]  # checked by the checker
    ratio: tuple[float, ...]  # policy_tel / reference_tel: a lower bound on the ratio to OPT
    closed_form: tuple[float, ...]  # the closed-form ratio at each size
    formula: str  # the closed-form ratio (sympy, in the size variable)
    match: bool  # every measured TEL equals its closed form


def _adversary_member(name: str, size: int) -> tuple[int, int, int, int]:
    from geosched.adversary.families import evaluate_family

    r = evaluate_family(name, size)
    return r.policy_tel, r.witness_tel, r.policy_tel_closed_form_value, r.witness_tel_closed_form_value


def _kong_member(size: int) -> tuple[int, int, int, int]:
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate
    from geosched.theory.kong_sjf_unbounded import closed_form_tels, sjf_family

    instance = sjf_family(size)
    tels = [check_schedule(instance, simulate(instance, p).starts).metrics.tel for p in ("sjf", "svf")]
    forms = closed_form_tels(size)
    return tels[0], tels[1], forms["sjf"], forms["svf"]


def _family_spec(name: str) -> tuple[str, str, Any, Any, int]:
    """(policy, reference label, closed-form ratio expr, its symbol, minimum size)."""
    if name == "kong.sjf_unbounded":
        from geosched.theory.kong_sjf_unbounded import m, tel_sjf_expr, tel_svf_expr

        return "sjf", "TEL(SVF)", tel_sjf_expr() / tel_svf_expr(), m, 2
    from geosched.adversary.families import FAMILIES, k

    fam = FAMILIES[name]
    return fam.policy, "TEL(witness schedule)", fam.ratio, k, fam.min_size


PLOT_FAMILIES = ("sjf-blocking", "kong.sjf_unbounded")


def family_ratio_picture(family: str = "sjf-blocking", sizes: Iterable[int] = range(2, 9)) -> Picture:
    """Ratio against size for a bad family: every member simulated and checked, beside the closed form.

    Families: ``sjf-blocking`` (:mod:`geosched.adversary.families`, divided by a checked witness
    schedule) and ``kong.sjf_unbounded`` (:mod:`geosched.theory.kong_sjf_unbounded`, divided by
    SVF's schedule). Any feasible schedule's TEL is at least OPT's, so each plotted ratio is a
    lower bound on the policy's competitive ratio on that member (Kong et al., Sec. 3).

    Parameters
    ----------
    family : str
        One of :data:`PLOT_FAMILIES`.
    sizes : iterable of int
        The family sizes ``k`` (or ``m``) to simulate.

    Returns
    -------
    Picture
        ``kind == "family"``; ``data`` is a :class:`FamilyRatioData`.

    Raises
    ------
    UnknownNameError
        For an unknown family.
    ValidationError
        For a size below the family's minimum.

    Examples
    --------
    >>> d = family_ratio_picture("kong.sjf_unbounded", [2, 3]).data
    >>> d.policy_tel, d.reference_tel, d.match
    ((16, 43), (15, 30), True)
    """
    import sympy as sp

    from geosched.errors import UnknownNameError

    began = time.perf_counter()
    if family not in PLOT_FAMILIES:
        raise UnknownNameError("family", family, list(PLOT_FAMILIES))
    policy, reference, ratio_expr, symbol, min_size = _family_spec(family)
    sizes = tuple(sizes)
    if not sizes:
        raise ValidationError("sizes", sizes, "give at least one size")
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, int) or size < min_size:
            raise ValidationError("sizes", size, f"must be integers >= {min_size}")
    members = [_kong_member(s) if family == "kong.sjf_unbounded" else _adversary_member(family, s) for s in sizes]
    closed = tuple(float(ratio_expr.subs(symbol, s)) for s in sizes)
    data = FamilyRatioData(
        family, policy, reference, sizes, tuple(m[0] for m in members), tuple(m[1] for m in members),
        tuple(m[0] / m[1] for m in members), closed, str(sp.simplify(ratio_expr)),
        all(m[0] == m[2] and m[1] == m[3] for m in members))
    curve = sp.lambdify(symbol, ratio_expr, "math")
    grid = [min(sizes) + (max(sizes) - min(sizes)) * j / 200 for j in range(201)]
    with _style():
        fig, (ax,) = _figure(6.0, 3.4)
        ax.plot(grid, [curve(g) for g in grid], color=_COLORS[1], label=f"closed form {data.formula}")
        ax.plot(sizes, data.ratio, linestyle="none", marker="o", color=_COLORS[0],
                label=f"simulated, checked: TEL({policy}) / {reference}")
        ax.set_xlabel(f"family size {symbol}")
        ax.set_ylabel("ratio (a lower bound on the ratio to OPT)")
        ax.set_title(f"{family}: {policy}'s ratio grows without bound")
        ax.legend(loc="upper left", fontsize=7)
    return Picture("completed", f"{family}: ratio {data.ratio[-1]:.3f} at size {sizes[-1]}; closed form "
                   f"{'matches' if data.match else 'DOES NOT MATCH'}", time.perf_counter() - began, "family", data, fig)


# ------------------------------------------------------------------ policies beside OPT


@dataclass(frozen=True)
class CompareData:
    """The panels of :func:`compare_picture`, left to right."""

    labels: tuple[str, ...]  # "svf", ..., and "OPT" (or "best found (time_limit)")
    panels: tuple[MemoryData, ...]
    tels: tuple[int, ...]
    opt_status: str | None  # the solver's status, None when OPT was not asked for


def compare_picture(instance: Instance, policies: Sequence[str] = ("svf",), *, opt: bool | Mapping[str, int] = True,
                    time_limit: float = 10.0) -> Picture:
    """Policies' schedules and OPT side by side, on the same axes (shared time and memory scales).

    Parameters
    ----------
    instance : Instance
        The workload (keep it small when ``opt=True``: OPT is solved exactly).
    policies : sequence of str
        Policy names, one panel each.
    opt : bool or mapping of str to int
        ``True``: solve OPT with :func:`geosched.reference_impl.opt.solve_opt`; its panel is titled
        ``OPT`` only when optimality was proved, else ``best found (<status>)``. A mapping is a
        given schedule, drawn as ``given schedule``. ``False``: no such panel.
    time_limit : float
        Seconds for the solver.

    Returns
    -------
    Picture
        ``kind == "compare"``; ``data`` is a :class:`CompareData`.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> d = compare_picture(burst_instance(12, [(6, 3), (1, 5)]), ["svf", "sjf"]).data
    >>> d.labels, d.tels, d.opt_status
    (('svf', 'sjf', 'OPT'), (13, 9, 9), 'optimal')
    """
    from geosched.reference_impl.simulation import simulate

    began = time.perf_counter()
    labels, schedules = [], []
    for policy in policies:
        labels.append(str(policy))
        schedules.append(simulate(instance, policy).starts)
    opt_status = None
    if isinstance(opt, Mapping):
        labels.append("given schedule")
        schedules.append(dict(opt))
    elif opt:
        from geosched.reference_impl.opt import solve_opt

        solved = solve_opt(instance, time_limit=time_limit)
        opt_status = solved.status
        if solved.starts is None:
            raise ValidationError("opt", solved.status, f"the solver found no schedule: {solved.message}")
        labels.append("OPT" if solved.status == "optimal" else f"best found ({solved.status})")
        schedules.append(solved.starts)
    panels = tuple(_memory_data(instance, _checked_starts(instance, s, label)) for label, s in zip(labels, schedules))
    data = CompareData(tuple(labels), panels, tuple(p.tel for p in panels), opt_status)
    with _style():
        fig, axes = _figure(3.4 * len(panels) + 0.6, 3.4, ncols=len(panels), sharey=True)
        horizon = max(len(p.usage) for p in panels)
        colour, entries = _colours(instance)
        for ax, label, panel in zip(axes, labels, panels):
            _draw_memory(ax, panel, colour, label_steps=0.12 * horizon)
            ax.set_xlim(0, horizon)
            ax.set_title(f"{label}: TEL {panel.tel}")
            if ax is not axes[0]:
                ax.set_ylabel("")
        blocked = next((p for p in panels if p.blocked_steps), panels[0])  # name the blocked bar if any panel has one
        fig.legend(handles=_legend_handles(blocked, entries), loc="outside right upper", fontsize=7)
    return Picture("completed", "; ".join(f"{label} TEL {tel}" for label, tel in zip(labels, data.tels)),
                   time.perf_counter() - began, "compare", data, fig)


# ------------------------------------------------------------------ SVF's ratio against alpha


def ratio_curve_picture(data: Any = None) -> Picture:
    """SVF's worst-case ratio against alpha: certified witnesses (marked by whether their ratio holds under both
    orders of equal volumes), families' limits and the lower envelope as the lower side, the proved bounds for every
    burst as the upper side, each labelled with its source and its ledger word (issues 32 and 43).

    Parameters
    ----------
    data : RatioCurveData, optional
        From :func:`geosched.teaching.ratio_curve.ratio_curve_data` (default: computed now, the witnesses
        of ``docs/witnesses`` re-verified and the ledger's ``quick`` words).

    Returns
    -------
    Picture
        ``kind == "ratio-curve"``; ``data`` is the :class:`~geosched.teaching.ratio_curve.RatioCurveData`.
    """
    from geosched.teaching import ratio_curve

    began = time.perf_counter()
    data = ratio_curve.ratio_curve_data() if data is None else data
    with _style():
        fig, (ax,) = _figure(11.0, 5.2)
        _draw_ratio_curve(ax, data, ratio_curve.BANDS)
        fig.legend(handles=[line for line in ax.get_lines() if not line.get_label().startswith("_")],
                   loc="outside right upper", fontsize=6.5)
    return Picture("completed", f"SVF's ratio against alpha: {data.message}", time.perf_counter() - began,
                   "ratio-curve", data, fig)


_Y_TOP = 24.0  # the upper curves leave the axes near alpha = 1: their values there are in the table
_UPPER_COLORS = ("#222222", _BLOCKED_COLOR)


def _draw_ratio_curve(ax, data: Any, bands: Sequence[tuple[Any, Any, bool]]) -> None:
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    from geosched.teaching.ratio_curve import lower_envelope

    grid = [j / 800 for j in range(1, 800)]
    for k, curve in enumerate(data.upper):  # every drawn curve is a proved bound for every burst: solid lines
        ax.plot(grid, [min(curve.at(g), 10 * _Y_TOP) for g in grid], color=_UPPER_COLORS[k % 2], linestyle="-",
                linewidth=1.5, label=f"upper: {curve.latex or curve.formula} ({curve.claim}: {curve.word})")
    for robust, colour, what in ((False, _COLORS[0], "as stated"), (True, _COLORS[2], "under both tie orders")):
        steps = lower_envelope(data, robust=robust)
        if steps:
            xs = [float(a) for a, _, _ in steps] + [1.0]
            ax.step(xs, [float(v) for _, v, _ in steps] + [float(steps[-1][1])], where="post", color=colour,
                    linewidth=1.6 if robust else 1.0, label=f"lower envelope, {what}: the best certified ratio or "
                    r"family limit at $\alpha' \leq \alpha$")
    for k, fam in enumerate(data.families):
        colour = _COLORS[(3 + k) % len(_COLORS)]
        ax.plot([float(a) for a, _ in fam.points], [float(v) for _, v in fam.points], linestyle=":", marker="D",
                markersize=2, alpha=0.8, color=colour, label=f"family {fam.family}: limit {fam.latex or fam.formula} "
                f"({fam.claim}: {fam.word}{'' if fam.order_free else '; rests on the tie order'})")
    kinds = (("distinct", lambda p: p.distinct, "*", "volumes pairwise distinct"),
             ("robust", lambda p: not p.distinct and p.tie_robust, "o", "ratio holds under both tie orders"),
             ("tied", lambda p: not p.tie_robust, "o", "ratio rests on the tie order (reversed: lower)"))
    for kind, keep, marker, what in kinds:
        points = [p for p in data.lower if keep(p)]
        if points:
            ax.plot([float(p.alpha) for p in points], [float(p.ratio) for p in points], linestyle="none",
                    marker=marker, markersize=7 if marker == "*" else 5, alpha=0.85, color=_COLORS[1],
                    markerfacecolor="none" if kind == "tied" else _COLORS[1],
                    label=f"certified SVF witness, re-verified by the referee: {what}")
    for low, _, _ in bands[1:]:
        ax.axvline(float(low), color="#bbbbbb", linewidth=0.6)
    ax.set_xlim(0, 1)
    ax.set_yscale("log")
    ax.set_ylim(1, _Y_TOP)
    ax.yaxis.set_major_locator(FixedLocator([1, 1.5, 2, 3, 4, 5, 8, 10, 20]))
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(r"$\alpha$ = max(s + o)/M of the instance")
    ax.set_ylabel("TEL(SVF) / OPT (log scale)")
    ax.set_title("SVF's worst case for bursts: certified below, proved above")
