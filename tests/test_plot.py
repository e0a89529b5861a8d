"""geosched.teaching.plot and ``geosched plot``: the figures are compared by content, never by eye.

Expected numbers are derived by hand in the comments (volumes, usages, blocked steps, TELs),
and read back from the matplotlib Axes (polygon areas by the shoelace formula, line and
rectangle coordinates), not from the data object the code under test returns.
"""

from __future__ import annotations

import doctest
import hashlib
import json
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("matplotlib")

import geosched.teaching.plot as plot  # noqa: E402
from geosched.cli import main  # noqa: E402
from geosched.errors import ValidationError  # noqa: E402
from geosched.reference_impl.model import Instance, Request, burst_instance  # noqa: E402

EXAMPLE = burst_instance(12, [(6, 3), (1, 5)])
# a: (s, o) = (2, 3) holds 3, 4, 5 at steps 1..3 (volume 12); b: (1, 2) holds 2, 3 at steps 1..2
# (volume 5); c arrives at 1, (0, 4), started at 3 holds 1..4 at steps 4..7 (volume 10).
SMALL = Instance(10, [Request("a", 0, 2, 3), Request("b", 0, 1, 2), Request("c", 1, 0, 4)])
SMALL_STARTS = {"a": 0, "b": 0, "c": 3}


def shoelace(vertices) -> float:
    total = 0.0
    for (x0, y0), (x1, y1) in zip(vertices, [*vertices[1:], vertices[0]]):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2


def filled_areas(ax) -> dict[str, float]:
    """Area of each labelled filled polygon (fill_between) on the Axes."""
    areas = {}
    for collection in ax.collections:
        label = collection.get_label()
        if label.startswith("_") or label == "blocked step":
            continue
        areas[label] = sum(shoelace(path.vertices) for path in collection.get_paths())
    return areas


def rectangles(ax, label: str) -> list[tuple[float, float]]:
    """(x, width) of the rectangles of the collection labelled ``label``."""
    for collection in ax.collections:
        if collection.get_label() == label:
            out = []
            for path in collection.get_paths():
                xs = [x for x, _ in path.vertices]
                out.append((min(xs), max(xs) - min(xs)))
            return sorted(out)
    return []


def horizontal_lines(ax) -> dict[str, float]:
    return {line.get_label(): float(line.get_ydata()[0]) for line in ax.lines
            if len(set(map(float, line.get_ydata()))) == 1}


# ------------------------------------------------------------------ memory picture


def test_memory_picture_areas_are_the_volumes():
    pic = plot.memory_picture(SMALL, SMALL_STARTS)
    ax = pic.figure.axes[0]
    assert filled_areas(ax) == {"a": pytest.approx(12), "b": pytest.approx(5), "c": pytest.approx(10)}
    assert horizontal_lines(ax)["M = 10"] == 10
    # c waits at the decision steps 1 and 2 (arrived at 1, started at 3): one unit bar each
    assert rectangles(ax, "blocked step") == [(1, 1), (2, 1)]
    assert pic.data.usage == (5, 7, 5, 1, 2, 3, 4) and pic.data.tel == 3 + 2 + 6
    assert pic.status == "completed" and pic.success


def test_memory_picture_of_the_paper_example():
    # SVF's schedule: r1 (volume 20) at 0, r0 (volume 24) at 5; r0 waits at steps 0..4
    pic = plot.memory_picture(EXAMPLE, {"r0": 5, "r1": 0})
    ax = pic.figure.axes[0]
    assert filled_areas(ax) == {"r0": pytest.approx(24), "r1": pytest.approx(20)}
    assert rectangles(ax, "blocked step") == [(t, 1) for t in range(5)]
    assert ax.get_xlim() == (0, 8)


def test_stacked_band_tops_follow_the_memory_usage():
    # with a and b together: the upper band's top is the total usage 3 + 2 = 5 at step 1, 4 + 3 = 7 at step 2
    pic = plot.memory_picture(SMALL, SMALL_STARTS)
    top = {}
    for band in pic.data.bands:
        for t, high in zip(band.steps, band.high):
            top[t] = max(top.get(t, 0), high)
    assert [top[t] for t in sorted(top)] == [5, 7, 5, 1, 2, 3, 4]


def test_infeasible_schedule_is_rejected():
    with pytest.raises(ValidationError, match="not a feasible schedule"):
        plot.memory_picture(EXAMPLE, {"r0": 0, "r1": 0})  # 9 + 4 = 13 > 12 at step 3


# ------------------------------------------------------------------ Gantt


def test_gantt_rows_and_bars():
    pic = plot.gantt(SMALL, SMALL_STARTS)
    ax = pic.figure.axes[0]
    assert pic.data.rows == (("a", 0, 0, 3), ("b", 0, 0, 2), ("c", 1, 3, 7))
    assert rectangles(ax, "a") == [(0, 3)] and rectangles(ax, "c") == [(3, 4)]
    assert rectangles(ax, "waiting") == [(1, 2)]  # c waits from its arrival 1 to its start 3
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "b", "a"]


# ------------------------------------------------------------------ certificate


def test_certificate_of_svf_on_the_example():
    # M - P = 12 - 9 = 3; r1 (peak 6) runs alone while r0 waits at steps 0..4
    pic = plot.certificate_picture(EXAMPLE, "svf")
    ax = pic.figure.axes[0]
    bars = sorted((patch.get_x() + patch.get_width() / 2, patch.get_height()) for patch in ax.patches)
    assert bars == [(t + 0.5, 6) for t in range(5)]
    assert horizontal_lines(ax)["(1 - alpha) M = 3"] == 3
    assert pic.data.holds and pic.data.min_slack == 3
    assert pic.data.usage == (2, 3, 4, 5, 6)  # r1 holds 1 + t at step t + 1


def test_certificate_failure_is_marked():
    # Predictions 10 and 19 (b's true output is 1): b's believed staircase meets a's at step 10
    # (10 + 11 > 20), so b waits at step 0 while the batch {a} has peak 10 = M - P: no slack.
    class Fixed:
        name = "fixed"

        def predict(self, instance):
            return [10, 19]

    instance = Instance(20, [Request("a", 0, 0, 10), Request("b", 0, 1, 1)])
    pic = plot.certificate_picture(instance, "svf", predictor=Fixed())
    ax = pic.figure.axes[0]
    assert not pic.data.holds and pic.data.steps == (0,) and pic.data.min_slack == 0
    failed = [line for line in ax.lines if line.get_label() == "certificate fails"]
    assert len(failed) == 1 and list(failed[0].get_xdata()) == [0.5]


def test_certificate_without_a_blocked_step_is_empty():
    pic = plot.certificate_picture(EXAMPLE.with_memory(15), "svf")  # both fit together: 9 + 4 = 13
    assert pic.status == "empty" and pic.data.steps == () and pic.success


# ------------------------------------------------------------------ families


def test_family_ratio_against_hand_closed_forms():
    # kong.sjf_unbounded: TEL(SJF) = m(m+1)/2 + m^3 + m^2 + 1, TEL(SVF) = 2m^2 + 2m + m(m+1)/2
    # m = 2: 3 + 8 + 4 + 1 = 16 and 8 + 4 + 3 = 15; m = 3: 6 + 27 + 9 + 1 = 43 and 18 + 6 + 6 = 30;
    # m = 4: 10 + 64 + 16 + 1 = 91 and 32 + 8 + 10 = 50
    pic = plot.family_ratio_picture("kong.sjf_unbounded", [2, 3, 4])
    ax = pic.figure.axes[0]
    points = [line for line in ax.lines if line.get_marker() == "o"][0]
    assert list(points.get_xdata()) == [2, 3, 4]
    assert list(points.get_ydata()) == pytest.approx([16 / 15, 43 / 30, 91 / 50])
    assert pic.data.match and pic.data.policy_tel == (16, 43, 91)


def test_sjf_blocking_family():
    # k = 3 (the module's docstring): TEL(SJF) = 3*4 + 9*5 = 57, witness 2*9 + 9 + 12 - 1 = 38
    pic = plot.family_ratio_picture("sjf-blocking", [3])
    assert pic.data.policy_tel == (57,) and pic.data.reference_tel == (38,) and pic.data.match


@pytest.mark.parametrize("family, sizes, field", [("nope", [2], "family"), ("sjf-blocking", [1], "sizes"),
                                                  ("kong.sjf_unbounded", [], "sizes")])
def test_family_bad_input(family, sizes, field):
    from geosched.errors import GeoschedError

    with pytest.raises(GeoschedError, match=field):
        plot.family_ratio_picture(family, sizes)


# ------------------------------------------------------------------ compare with OPT


def test_compare_picture_shares_axes_and_labels_opt_honestly():
    # the paper: SVF 13, SJF 9 (r1 fits beside r0 from step 1), OPT 9, proved
    pic = plot.compare_picture(EXAMPLE, ["svf", "sjf"], opt=True)
    axes = pic.figure.axes
    assert [ax.get_title() for ax in axes] == ["svf: TEL 13", "sjf: TEL 9", "OPT: TEL 9"]
    assert len({ax.get_xlim() for ax in axes}) == 1 and len({ax.get_ylim() for ax in axes}) == 1
    assert pic.data.opt_status == "optimal"
    for ax in axes:
        assert sum(filled_areas(ax).values()) == pytest.approx(44)  # 24 + 20 in every schedule


def test_compare_picture_with_a_given_schedule():
    pic = plot.compare_picture(EXAMPLE, ["svf"], opt={"r0": 0, "r1": 3})
    assert pic.data.labels == ("svf", "given schedule") and pic.data.tels == (13, 11)
    assert pic.data.opt_status is None


# ------------------------------------------------------------------ determinism and files


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_figures_are_byte_identical_across_builds(fmt):
    first = plot.compare_picture(EXAMPLE, ["svf"], opt={"r0": 0, "r1": 3}).to_bytes(fmt)
    second = plot.compare_picture(EXAMPLE, ["svf"], opt={"r0": 0, "r1": 3}).to_bytes(fmt)
    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(second).hexdigest()
    if fmt == "svg":
        assert b"<dc:date>" not in first  # no build date in the file


def test_save_refuses_to_overwrite(tmp_path):
    pic = plot.gantt(EXAMPLE, {"r0": 5, "r1": 0})
    target = tmp_path / "g.svg"
    pic.save(target)
    before = target.read_bytes()
    target.write_text("keep me")
    with pytest.raises(Exception, match="exists"):
        pic.save(target)
    assert target.read_text() == "keep me"
    pic.save(target, force=True)
    assert target.read_bytes() == before
    with pytest.raises(ValidationError, match="--out"):
        pic.save(tmp_path / "g.txt")


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(plot.MissingExtraError, match=r"geosched\[plot\]"):
        plot.memory_picture(EXAMPLE, {"r0": 5, "r1": 0})


def test_missing_matplotlib_is_one_cli_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert main(["plot", "memory", "--out", str(tmp_path / "m.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "geosched[plot]" in err[0]


def test_doctests():
    failures, tried = doctest.testmod(plot)
    assert tried >= 6 and failures == 0


# ------------------------------------------------------------------ the command


def test_cli_plot_kinds(tmp_path, capsys):
    for kind, extra in (("memory", []), ("gantt", ["--policy", "sjf"]), ("certificate", []),
                        ("compare", ["--policies", "svf,sjf"]), ("family", ["--sizes", "2:4"])):
        out = tmp_path / f"{kind}.svg"
        assert main(["plot", kind, *extra, "--out", str(out)]) == 0, kind
        assert out.read_bytes().startswith(b"<?xml")
    printed = capsys.readouterr().out
    assert "wrote" in printed and "svf TEL 13; sjf TEL 9; OPT TEL 9" in printed


def test_cli_plot_json_and_overwrite(tmp_path, capsys):
    out = tmp_path / "m.png"
    assert main(["plot", "memory", "example", "--policy", "svf", "--out", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "memory" and data["status"] == "completed"
    assert [b["area"] for b in data["data"]["bands"]] == [20, 24]
    before = out.read_bytes()
    assert main(["plot", "gantt", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--force" in err[0] and out.read_bytes() == before
    assert main(["plot", "gantt", "--out", str(out), "--force"]) == 0


def test_cli_plot_schedule_file(tmp_path, capsys):
    schedule = tmp_path / "s.json"
    schedule.write_text(json.dumps({"starts": {"r0": 0, "r1": 3}}))
    assert main(["plot", "memory", "--schedule", str(schedule), "--out", str(tmp_path / "m.png"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["data"]["tel"] == 11
    schedule.write_text(json.dumps({"r0": 0, "r1": 0}))
    assert main(["plot", "memory", "--schedule", str(schedule), "--out", str(tmp_path / "n.png")]) == 2
    assert "not a feasible schedule" in capsys.readouterr().err
    assert not (tmp_path / "n.png").exists()


@pytest.mark.parametrize("argv, field", [
    (["plot", "family", "--sizes", "a:b"], "--sizes"),
    (["plot", "family", "--family", "nope"], "family"),
    (["plot", "memory", "--out", "x.bmp"], "--out"),
    (["plot", "memory", "nope:n=2"], "nope"),
])
def test_cli_plot_bad_input(argv, field, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and field in err[0]
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ issue 21: the pictures read correctly

# Lesson 3's instance (M = 40, alpha = 0.5, n = 8, seed = 3), the one whose r2 used to jump from
# the top of the stack to the bottom at t = 9. SVF starts (read off the lesson's schedule): see below.
LESSON3 = Instance(40, [Request(f"r{k}", 0, s, o) for k, (s, o) in
                        enumerate([(4, 2), (1, 5), (1, 16), (5, 9), (0, 2), (1, 9), (3, 9), (1, 4)])])


def band_problems(instance, starts, layout, *, connected=()) -> list[str]:
    """What is wrong with the bands of ``layout``, recomputed from the instance by hand; the bands
    named in ``connected`` must also be one connected piece (consecutive columns touch)."""
    req = {r.id: r for r in instance.requests}
    problems = []
    usage = {}
    for band in layout.bands:
        r, x = req[band.id], starts[band.id]
        if band.steps != tuple(range(x + 1, x + r.output + 1)):
            problems.append(f"{band.id}: steps {band.steps}")
        for t, lo, hi in zip(band.steps, band.low, band.high):
            usage[t] = usage.get(t, 0) + r.prompt + (t - x)
            if hi - lo != r.prompt + (t - x):
                problems.append(f"{band.id}: height {hi - lo} at t = {t}, holds {r.prompt + t - x}")
        for k in range(1, len(band.steps)):
            if band.low[k] < band.low[k - 1]:
                problems.append(f"{band.id} falls from {band.low[k - 1]} to {band.low[k]} at t = {band.steps[k]}")
            # one connected piece: the columns of consecutive steps touch
            if band.id in connected and (band.low[k] > band.high[k - 1] or band.high[k] < band.low[k - 1]):
                problems.append(f"{band.id} splits at t = {band.steps[k]}")
    for a in layout.bands:  # a fixed stacking order: a below b at one common step => at all of them
        for b in layout.bands:
            common = sorted(set(a.steps) & set(b.steps))
            below = {a.high[a.steps.index(t)] <= b.low[b.steps.index(t)] for t in common}
            if a.id < b.id and common and len(below) > 1:
                problems.append(f"{a.id} and {b.id} swap places")
    top = {}
    for band in layout.bands:
        for t, hi in zip(band.steps, band.high):
            top[t] = max(top.get(t, 0), hi)
    if top != usage:
        problems.append(f"stack top {top} is not the usage {usage}")
    return problems


def test_lesson3_bands_are_continuous():
    from geosched.reference_impl.simulation import simulate

    starts = simulate(LESSON3, "svf").starts
    assert starts["r2"] == 6 and starts["r2"] + 16 == 22  # r2 runs 7..22; bands below it used to end at 9
    layout = plot.memory_layout(LESSON3, starts)
    # r2 and r3 (the long ones) are one piece each; the short ones on top rise with the growth beneath
    assert band_problems(LESSON3, starts, layout, connected=("r2", "r3", "r5", "r6")) == []
    r2 = next(b for b in layout.bands if b.id == "r2")
    assert r2.low == (0,) * 16  # it finishes last, so it lies lowest for its whole life
    # and the figure draws exactly that geometry: one polygon per request, area = volume
    areas = filled_areas(plot.memory_picture(LESSON3, starts).figure.axes[0])
    assert areas == {r.id: pytest.approx(r.volume) for r in LESSON3.requests}


def test_sjf_family_bands_never_fall():
    # Lesson 4's SJF panel: the B used to sit on a3 and drop to the floor when a3 finished
    from geosched.reference_impl.simulation import simulate
    from geosched.theory.kong_sjf_unbounded import sjf_family

    for size in (2, 3, 4):
        instance = sjf_family(size)
        for policy in ("sjf", "svf"):
            starts = simulate(instance, policy).starts
            layout = plot.memory_layout(instance, starts)
            pieces = [r.id for r in instance.requests if r.id.startswith("a")]
            assert band_problems(instance, starts, layout, connected=pieces) == [], (size, policy)




@settings(deadline=None, max_examples=60)
@given(data=st.data())
def test_bands_keep_their_place_on_any_schedule(data):
    # any feasible schedule (the policies' and arbitrary ones): exact heights, a fixed order, no band
    # falls, the top is the usage. "Connected" is not asked here: no gap-free stacking of growing
    # staircases can promise it (three requests (0, 2) started together: the top one sits on 2t tokens
    # while it holds t, so its columns [2, 3] and [4, 6] do not touch, whatever the order).
    from geosched.reference_impl.checker import check_schedule
    from geosched.reference_impl.simulation import simulate
    from geosched.testing import instances

    instance = data.draw(instances(max_n=6, max_memory=20))
    choice = data.draw(st.sampled_from(["svf", "sjf", "fcfs", "drawn"]))
    if choice == "drawn":
        starts = {r.id: r.arrival + data.draw(st.integers(0, 6)) for r in instance.requests}
        assume(check_schedule(instance, starts).feasible)
    else:
        starts = simulate(instance, choice).starts
    layout = plot.memory_layout(instance, starts)
    assert band_problems(instance, starts, layout) == []


def colours_by_label(ax) -> dict[str, tuple]:
    """The face colour of each labelled filled band on the Axes."""
    return {c.get_label(): tuple(c.get_facecolor()[0]) for c in ax.collections
            if not c.get_label().startswith("_") and c.get_label() != "blocked step"}


def test_compare_panels_have_a_legend_and_groups_have_colours():
    from geosched.theory.kong_sjf_unbounded import sjf_family

    pic = plot.compare_picture(sjf_family(3), ["sjf", "svf"], opt=False)  # lesson 4's picture
    assert len(pic.figure.legends) == 1
    texts = [t.get_text() for t in pic.figure.legends[0].get_texts()]
    assert texts == ["a* (3 requests)", "b* (9 requests)", "M = 18", "blocked step (someone waits)"]
    for ax in pic.figure.axes:
        colours = colours_by_label(ax)
        assert len(colours) == 12
        a = {colours[f"a{i}"] for i in range(1, 4)}
        b = {colours[f"b{i}"] for i in range(1, 10)}
        assert len(a) == 1 and len(b) == 1 and a != b  # one colour per group, distinct groups differ
    handles = {t: h.get_facecolor() for t, h in zip(texts, pic.figure.legends[0].legend_handles) if "*" in t}
    assert tuple(handles["a* (3 requests)"])[:3] == next(iter(a))[:3]  # the legend's swatch is the bands' colour


def test_compare_legend_names_each_request_without_groups():
    pic = plot.compare_picture(EXAMPLE, ["svf", "sjf"], opt=True)
    texts = [t.get_text() for t in pic.figure.legends[0].get_texts()]
    assert texts[:2] == ["r0", "r1"] and "M = 12" in texts
    colours = colours_by_label(pic.figure.axes[0])
    assert colours["r0"] != colours["r1"]
    assert plot.request_groups(EXAMPLE) is None


@pytest.mark.parametrize("ids, grouped", [(["a1", "a2", "b1"], True), (["r0", "r1", "r2"], False),
                                          (["a1", "b1"], False), (["x", "y1", "y2"], False),
                                          (["A_01", "A_02", "B_01"], True)])
def test_request_groups_rule(ids, grouped):
    instance = Instance(10, [Request(i, 0, 0, 1) for i in ids])
    groups = plot.request_groups(instance)
    assert (groups is not None) == grouped


def test_certificate_at_alpha_one_says_the_theorem_does_not_apply(tmp_path, capsys):
    # burst:n=12,seed=2 has a request with s + o = M: alpha = 1, (1 - alpha) M = 0, Thm 3.2 needs alpha < 1
    from geosched.reference_impl.workloads import load_workload

    instance = load_workload("burst:n=12,seed=2")
    assert max(r.prompt + r.output for r in instance.requests) == instance.memory
    pic = plot.certificate_picture(instance, "svf")
    ax = pic.figure.axes[0]
    assert "holds" not in pic.message and "alpha = 1: Thm 3.2 does not apply; no threshold" in pic.message
    assert "does not apply" in ax.get_title() and "holds" not in ax.get_title()
    assert not any(label.startswith("(1 - alpha) M") for label in horizontal_lines(ax))
    assert pic.data.holds is None and pic.data.verdict == "not applicable" and pic.data.min_slack is None
    out = tmp_path / "c.svg"
    assert main(["plot", "certificate", "burst:n=12,seed=2", "--out", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "does not apply" in data["message"] and data["data"]["verdict"] == "not applicable"
