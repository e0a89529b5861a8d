"""geosched.teaching.ratio_curve and ``geosched plot ratio-curve`` (issue 32, item 5; issue 43, item 4).

The expected numbers are recomputed here from the witness files' instances with the simulator and the checker
(TELs, alpha = max(s + o)/M) and set against the bounds written out by hand (Thm. 3.2's 1 + 2/(1 - alpha); Coq's
svf_sharp_bound in integers); the words come from a ledger run made here, never from the module's own text.
"""

from __future__ import annotations

import copy
import json
import os
from fractions import Fraction

import pytest
from docs_pages import tables

from geosched.adversary.witness import WitnessError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import instance_from_dict
from geosched.reference_impl.simulation import simulate
from geosched.teaching import ratio_curve as rc
from geosched.verify.ledger import run_claims

# the rows the table cites
CITED = ("kong.thm3.2", "svf.upper_bound", "svf.sharp_bound", "svf.heavy_limit", "svf.lower_bound",
         "svf.alternating", "svf.fillers", "svf.distinct")


def _coq_words_available() -> bool:
    """The documented words were written where coqc runs and its build cache holds the proofs."""
    from geosched.verify import coq_engine

    if not coq_engine.coq_available():
        return os.environ.get("GEOSCHED_REQUIRE_COQ") == "1"  # CI: a missing coqc fails below, never skips
    return coq_engine.build().status == "ok"  # compiles once, or reads the cache: --quick only reads it


@pytest.fixture(scope="module")
def words() -> dict[str, str]:
    _coq_words_available()
    return {c.id: c.status for c in run_claims(list(CITED), mode="quick").claims}


@pytest.fixture(scope="module")
def data(words) -> rc.RatioCurveData:
    return rc.ratio_curve_data(words=words)


def _recomputed(path) -> tuple[Fraction, Fraction, int, int, int, int, int]:
    """(alpha, TEL(SVF)/TEL(S), M, P, TEL(SVF), TEL(S), sum o) of a witness file, from its instance alone."""
    raw = json.loads(path.read_text())
    instance = instance_from_dict(raw["instance"])
    svf = check_schedule(instance, simulate(instance, "svf").starts)
    witness = check_schedule(instance, raw["witness_schedule"]["starts"])
    assert svf.feasible and witness.feasible, path.name
    peak = max(r.prompt + r.output for r in instance.requests)
    tel_svf, tel_s = svf.metrics.tel, witness.metrics.tel
    return (Fraction(peak, instance.memory), Fraction(tel_svf, tel_s), instance.memory, peak, tel_svf, tel_s,
            sum(r.output for r in instance.requests))


def test_lower_points_are_the_recomputed_witnesses_and_below_the_proved_bounds(data):
    def svf_burst(path) -> bool:  # every arrival at 0, read from the raw file (not through the module)
        data = json.loads(path.read_text())
        return data["policy"] == "svf" and all(r["arrival"] == 0 for r in data["instance"]["requests"])

    files = sorted(p for p in rc.WITNESS_DIR.glob("*.json") if svf_burst(p))
    assert len(files) >= 7 and {p.source for p in data.lower} == {p.name for p in files}
    for point in data.lower:
        alpha, ratio, memory, peak, tel_svf, tel_s, outputs = _recomputed(rc.WITNESS_DIR / point.source)
        assert (point.alpha, point.ratio, point.sum_output) == (alpha, ratio, outputs), point.source
        assert ratio <= 1 + Fraction(2) / (1 - alpha)  # Thm. 3.2 at the instance's own alpha
        # Coq svf_sharp_bound with S the witness schedule, in integers: (M - P) TEL(SVF) <= 2M TEL(S) + (M - P) sum o
        assert (memory - peak) * tel_svf <= 2 * memory * tel_s + (memory - peak) * outputs, point.source
    assert data.violations() == [] and data.status == "consistent"


def test_a_tampered_witness_is_refused_through_the_referee(data):
    name = "svf_burst_alpha0.5_ratio1.345.json"
    original = json.loads((rc.WITNESS_DIR / name).read_text())
    assert rc.certified_point(original, name).ratio == Fraction(265, 197)  # 265 and 197 recomputed below
    assert _recomputed(rc.WITNESS_DIR / name)[4:6] == (265, 197)
    forged = copy.deepcopy(original)  # the same feasible schedule, its TEL understated: 197 -> 40
    forged["witness_schedule"]["tel"] = 40
    forged["certified_ratio"] = 265 / 40
    assert 265 / 40 > 1 + 2 / (1 - 0.5)  # what it states would break Thm. 3.2 at its alpha = 1/2
    with pytest.raises(WitnessError, match="referee rejects"):
        rc.certified_point(forged, "forged.json")
    # a point that skipped the referee would be caught by the ceilings: the check can fail
    fake = rc.LowerPoint("fake", Fraction(1, 2), Fraction(265, 40), 12, 20, 265, 40, 89)  # sum o = 89
    tampered = rc.RatioCurveData("consistent", "", 0.0, (*data.lower, fake), data.families, data.upper, data.mode)
    bad = tampered.violations()
    assert len(bad) == 3 and all(b.startswith("fake:") for b in bad)
    assert "ratio 6.625 above kong.thm3.2 (5)" in bad[0] and "svf.upper_bound (4)" in bad[1]
    assert "svf.sharp_bound (S = its witness) (6.225)" in bad[2]


def test_families_and_upper_curves_carry_their_rows_and_words(data, words):
    triangles = next(f for f in data.families if f.family == "svf-triangles")
    assert triangles.claim == "svf.lower_bound" and triangles.word == words["svf.lower_bound"]
    # the triangles at r: alpha = 1/(r + 1), limit (2r + 1)/(r + 1) = 2 - alpha (svf_lower_bound's docstring)
    assert all(limit == 2 - alpha for alpha, limit in triangles.points) and triangles.supremum == 2
    assert (Fraction(1, 3), Fraction(5, 3)) in triangles.points
    thm = next(c for c in data.upper if c.claim == "kong.thm3.2")
    assert thm.word == words["kong.thm3.2"] and thm.every_burst and thm.at(Fraction(1, 2)) == 5.0
    new = next(c for c in data.upper if c.claim == "svf.upper_bound")
    assert new.word == words["svf.upper_bound"] and new.every_burst
    for alpha in (Fraction(1, 10), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)):
        # written out: max(2/(1 - alpha), (7 - 3 alpha)/(3(1 - alpha))), below 1 + 2/(1 - alpha)
        assert new.at(alpha) == float(max(2 / (1 - alpha), (7 - 3 * alpha) / (3 * (1 - alpha)))) < thm.at(alpha)
    # every drawn curve is a bound for every burst: svf.sharp_bound's term depends on the instance, no curve
    assert {c.claim for c in data.upper} == {"kong.thm3.2", "svf.upper_bound"}
    assert all(c.every_burst for c in data.upper)


def test_witness_markers_say_whether_the_ratio_rests_on_the_tie_order(data):
    by_name = {p.source: p for p in data.lower}
    tied = by_name["svf_burst_alpha0.85_ratio2.080.json"]
    raw = json.loads((rc.WITNESS_DIR / tied.source).read_text())
    instance = instance_from_dict(raw["instance"])
    flipped = type(instance)(instance.memory, tuple(reversed(instance.requests)))
    reversed_tel = check_schedule(instance, {r.id: x for r, x in zip(
        flipped.requests, (simulate(flipped, "svf").starts[r.id] for r in flipped.requests))}).metrics.tel
    assert (tied.ratio, tied.tie_robust, tied.distinct) == (Fraction(52, 25), False, False)
    assert tied.robust_ratio == Fraction(reversed_tel, 25) == Fraction(8, 5)  # the 1.6 of RESULTS section 3
    free = by_name["svf_burst_alpha0.877_family_distinct_k1_h2.json"]
    assert free.distinct and free.tie_robust and free.ratio == Fraction(35, 13)


def test_the_lower_envelope_is_the_running_maximum_at_smaller_alpha(data):
    steps = rc.lower_envelope(data)
    values = [v for _, v, _ in steps]
    assert values == sorted(values) and len(set(values)) == len(values)
    # recomputed: the largest certified ratio or family limit at alpha' <= 1/2
    candidates = [p.ratio for p in data.lower if p.alpha <= Fraction(1, 2)]
    candidates += [v for fam in data.families for a, v in fam.points if a <= Fraction(1, 2)]
    assert max(v for a, v, _ in steps if a <= Fraction(1, 2)) == max(candidates)
    robust = rc.lower_envelope(data, robust=True)
    assert all(src != "family svf-alternating" for _, _, src in robust)  # its trace rests on the tie order
    assert robust[-1][1] <= steps[-1][1]


def test_recorded_ceilings_are_read_per_band(tmp_path):
    record = {"rlimit": 400, "bands": {"1/2-3/4": {"bounds": ["1/2", "3/4", [2, 12], 8, 4], "n": {
        "2": {"certified": "4/3", "proved": "65/48"}, "3": {"certified": "16/11", "proved": "35/24"},
        "4": {"certified": "17/11", "proved": None}, "5": {"certified": "12/7", "proved": "2"}}}}}
    path = tmp_path / "c.json"
    path.write_text(json.dumps(record))
    found = rc.ceilings(path)["(1/2, 3/4]"]
    # n = 4 has no proof, so the ceiling holds for n <= 3 only: the larger of 65/48 and 35/24
    assert (found["n"], found["proved"]) == (3, Fraction(35, 24))
    assert rc.ceilings(tmp_path / "none.json") == {}


def test_limits_are_written_as_math():
    import sympy as sp

    r = sp.Symbol("r")
    assert rc.math_text((2 * r + 1) / (r + 1)) == "(2 r + 1)/(r + 1)"
    assert "**" not in rc.math_text(r**2 + 1) and "*" not in rc.math_text(3 * r)


def test_docs_table_is_a_fresh_run(data, words, tmp_path):
    if not _coq_words_available():
        pytest.skip("coqc is not installed: the documented words include the Coq proofs")
    text = tables.RATIO_PAGE.read_text()
    assert tables.block(text, rc.BLOCK) == rc.band_table(data).strip()
    copy_ = tmp_path / "adversary.md"
    copy_.write_text(text)
    tables.write_block(copy_, rc.BLOCK, rc.band_table(data))
    assert copy_.read_text() == text  # writing a fresh run's table leaves the committed page as it is
    table = tables.block(text, rc.BLOCK)
    for claim in ("kong.thm3.2", "svf.upper_bound", "svf.sharp_bound", "svf.lower_bound", "svf.heavy_limit"):
        assert f"`{claim}`, `{words[claim]}`" in table or f"`{claim}` (`{words[claim]}`)" in table, claim
    # each band's best witness: the largest ratio recomputed here among the files of that band
    best: dict[str, Fraction] = {}
    for path in rc.WITNESS_DIR.glob("*.json"):
        raw = json.loads(path.read_text())
        if raw["policy"] == "svf" and all(r["arrival"] == 0 for r in raw["instance"]["requests"]):  # bursts only
            alpha, ratio = _recomputed(path)[:2]
            name = rc.band_of(alpha)
            best[name] = max(best.get(name, ratio), ratio)
    rows = [line for line in table.splitlines() if line.startswith("| (")]
    assert [r.split(" | ")[0][2:] for r in rows] == ["(0, 1/4]", "(1/4, 1/2]", "(1/2, 3/4]", "(3/4, 1)"]
    for row in rows:
        band, cell = row.split(" | ")[0][2:], row.split(" | ")[1]
        assert cell == "none" if band not in best else cell.startswith(f"**{float(best[band]):.4f}**"), row


def test_plot_ratio_curve_writes_a_png_and_refuses_an_existing_file(data, monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from geosched.cli import main

    monkeypatch.setattr(rc, "ratio_curve_data", lambda **_: data)  # the ledger ran once, in the fixture
    out = tmp_path / "curve.png"
    assert main(["plot", "ratio-curve", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and "wrote" in capsys.readouterr().out
    before = out.read_bytes()
    assert main(["plot", "ratio-curve", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--force" in err[0] and out.read_bytes() == before
    assert main(["plot", "ratio-curve", "--out", str(out), "--force"]) == 0


def test_plot_ratio_curve_draws_every_side_with_its_source(data):
    pytest.importorskip("matplotlib")
    from geosched.teaching.plot import ratio_curve_picture

    ax = ratio_curve_picture(data).figure.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert any("kong.thm3.2" in x and data.upper[0].word in x for x in labels)
    assert any("svf.upper_bound" in x for x in labels) and any("svf-triangles" in x for x in labels)
    assert not any("svf.sharp_bound" in x for x in labels)  # no curve that is not a bound for every burst
    assert all(line.get_linestyle() != "--" for line in ax.get_lines())
    assert any("lower envelope" in x for x in labels) and not any("**" in x for x in labels)
    witnesses = [line for line in ax.get_lines() if line.get_label().startswith("certified SVF witness")]
    assert len(witnesses) == 3  # distinct volumes, tie-robust, tie-dependent
    assert sorted(y for line in witnesses for y in line.get_ydata()) == sorted(float(p.ratio) for p in data.lower)
    legend = ratio_curve_picture(data).figure.legends[0]
    assert not any(t.get_text().startswith("_") for t in legend.get_texts())


def test_a_missing_witness_folder_is_one_line(tmp_path, monkeypatch, capsys):
    from geosched.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["plot", "ratio-curve", "--witnesses", str(tmp_path / "none"), "--out", "c.png"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--witnesses" in err[0] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("alpha, band", [
    (Fraction(1, 21), "(0, 1/4]"), (Fraction(1, 4), "(0, 1/4]"), (Fraction(1, 3), "(1/4, 1/2]"),
    (Fraction(1, 2), "(1/4, 1/2]"), (Fraction(3, 4), "(1/2, 3/4]"), (Fraction(99, 100), "(3/4, 1)"),
    (Fraction(0), None), (Fraction(1), None)])
def test_bands_are_closed_on_the_right_and_stop_before_one(alpha, band):
    assert rc.band_of(alpha) == band
