"""What is known about SVF's worst case, as a function of alpha: the data of ``geosched plot ratio-curve``
and of docs/adversary.md's opening table (issue 32, item 5).

``R(alpha)`` is the supremum of ``TEL(SVF)/OPT`` over bursts whose own ``alpha = max_i (s_i + o_i)/M`` is
``alpha`` (strict head-of-line SVF with the forward-looking check; Kong, Qi, Ye, Zhou, arXiv 2606.22327).
Nothing here is taken from a file's or a claim's word about itself:

* **lower points**: every SVF witness of ``docs/witnesses`` re-verified in this call by the referee
  (:func:`geosched.adversary.witness.verify_witness`: the simulator and the checker recompute both TELs);
  its ratio is ``TEL(SVF)/TEL(S)`` for a feasible ``S``, so at most the instance's ratio to OPT, at the
  instance's own alpha. A witness the referee rejects is refused (:func:`certified_point` raises);
* **family limits**: each SVF family of :data:`geosched.adversary.families.FAMILIES`, its closed-form
  limit (sympy, size ``-> infinity``) at the alpha of a member built here, over a grid of the parameters
  whose growth raises the limit, and its supremum; the ledger row that states it and the row's word;
* **upper curves**: ``1 + 2/(1 - alpha)`` for every burst (``kong.thm3.2``, Thm. 3.2) and
  ``2/(1 - alpha) + sum(o)/OPT`` (``svf.sharp_bound``; ``svf.heavy_limit``: ``-> 2/(1 - alpha)`` on heavy
  bursts), each with the word the ledger gives it in the run made here (``quick`` by default: ``proved``
  only where the Coq build cache holds the proofs, else the weaker word the run earned).

Each lower point also carries its own ceiling by ``svf.sharp_bound`` with ``S`` the witness schedule,
``(M - P) TEL(SVF) <= 2M TEL(S) + (M - P) sum(o)``: ``TEL(SVF)/TEL(S) <= 2/(1 - alpha) + sum(o)/TEL(S)``;
:meth:`RatioCurveData.violations` lists every point above a ceiling (none, unless a theorem or the
referee is wrong).

``python docs/tables.py --ratio-curve quick`` writes :func:`band_table` into docs/adversary.md between the
``generated: svf worst case`` markers (tests/test_ratio_curve.py regenerates it and compares).

Example
-------
>>> from fractions import Fraction
>>> band_of(Fraction(1, 2)), band_of(Fraction(1, 21)), band_of(Fraction(4, 5))
('(1/4, 1/2]', '(0, 1/4]', '(3/4, 1)')
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from geosched.errors import ValidationError
from geosched.results import Result

__all__ = [
    "BANDS",
    "LowerPoint",
    "FamilyLimit",
    "UpperCurve",
    "RatioCurveData",
    "band_of",
    "certified_point",
    "witness_points",
    "family_limits",
    "upper_curves",
    "ledger_words",
    "ratio_curve_data",
    "band_table",
    "WITNESS_DIR",
]

_ROOT = Path(__file__).resolve().parent.parent.parent
WITNESS_DIR = _ROOT / "docs" / "witnesses"
BLOCK = "svf worst case"  # the docs markers' name: <!-- generated: svf worst case -->
MAX_WITNESS_FILES = 500  # the folder is read whole: past this the command refuses before any work
FAMILY_GRID = 64  # values 1 .. FAMILY_GRID of each parameter whose growth raises a family's limit
# (low, high, high included): alpha = 0 has no instance (P > 0) and alpha = 1 leaves Thm. 3.2
BANDS: tuple[tuple[Fraction, Fraction, bool], ...] = (
    (Fraction(0), Fraction(1, 4), True), (Fraction(1, 4), Fraction(1, 2), True),
    (Fraction(1, 2), Fraction(3, 4), True), (Fraction(3, 4), Fraction(1), False))
# the ledger row that states each SVF family's closed forms and limit (an unlisted family: no row)
FAMILY_CLAIMS = {"svf-triangles": "svf.lower_bound", "svf-pairs": "svf.lower_bound",
                 "svf-alternating": "svf.alternating", "svf-fillers": "svf.fillers"}
UPPER_CLAIMS = ("kong.thm3.2", "svf.sharp_bound", "svf.heavy_limit")


def _band_name(band: tuple[Fraction, Fraction, bool]) -> str:
    low, high, closed = band
    return f"({low}, {high}{']' if closed else ')'}"


def band_of(alpha: Fraction) -> str | None:
    """The name of the band of :data:`BANDS` holding ``alpha`` (``None`` outside ``(0, 1)``)."""
    for band in BANDS:
        low, high, closed = band
        if low < alpha < high or (closed and alpha == high):
            return _band_name(band)
    return None


@dataclass(frozen=True)
class LowerPoint:
    """One SVF witness, re-verified in this run: ``ratio = TEL(SVF)/TEL(S) <= TEL(SVF)/OPT`` at ``alpha``."""

    source: str  # the witness file's name
    alpha: Fraction  # max peak / M of the witness's instance (recomputed)
    ratio: Fraction  # certified: both TELs recomputed by the simulator and the checker
    n: int
    memory: int
    policy_tel: int
    witness_tel: int
    sum_output: int  # sum of o_i over the instance

    @property
    def sharp_ceiling(self) -> Fraction | None:
        """``2/(1 - alpha) + sum(o)/TEL(S)``: svf.sharp_bound with S the witness schedule (None at alpha = 1)."""
        if self.alpha >= 1:
            return None
        return 2 / (1 - self.alpha) + Fraction(self.sum_output, self.witness_tel)


@dataclass(frozen=True)
class FamilyLimit:
    """An SVF family's limit (size -> infinity) at the alpha of its members, and its supremum."""

    family: str
    claim: str | None  # the ledger row stating it
    word: str  # that row's word in this run ("no ledger row" when none)
    formula: str  # the limit in the family's parameters (sympy)
    points: tuple[tuple[Fraction, Fraction], ...]  # (alpha, limit) over the parameter grid
    supremum: Fraction | None  # the limit's supremum over the family (the growing parameters -> infinity)
    grows: tuple[str, ...] = ()  # the parameters whose growth approaches the supremum


@dataclass(frozen=True)
class UpperCurve:
    """A proved (or, in this run, weaker) upper bound on ``TEL(SVF)/OPT`` as a function of alpha."""

    claim: str
    word: str  # the ledger's word for the row in this run
    formula: str  # in alpha
    scope: str  # the bursts it is about
    coefficients: tuple[Fraction, Fraction]  # (c, K): the curve is c/(1 - alpha) + K
    every_burst: bool  # the curve bounds every burst's ratio (else only a class's, in the limit)
    term: str = ""  # what the bound adds to the curve on one instance (" + sum(o)/OPT")

    def at(self, alpha: Fraction) -> float:
        """The bound at ``alpha`` (infinite at ``alpha >= 1``)."""
        c, constant = self.coefficients
        return math.inf if alpha >= 1 else float(c / (1 - alpha) + constant)


@dataclass(frozen=True)
class RatioCurveData(Result):
    """The three sides of the picture; ``status`` ``consistent`` unless a lower point is above a ceiling."""

    STATUSES = ("consistent", "inconsistent")
    SUCCESS = ("consistent",)

    status: str
    message: str
    wall_time: float
    lower: tuple[LowerPoint, ...]
    families: tuple[FamilyLimit, ...]
    upper: tuple[UpperCurve, ...]
    mode: str  # the ledger mode the words come from
    words: tuple[tuple[str, str], ...] = ()  # (claim, word) of every row cited, from that run

    def violations(self) -> list[str]:
        """Every lower point above Thm. 3.2's curve or above its own svf.sharp_bound ceiling."""
        bad = []
        for p in self.lower:
            ceilings = [(c.claim, c.at(p.alpha)) for c in self.upper if c.every_burst]
            ceilings.append(("svf.sharp_bound (S = its witness)", p.sharp_ceiling))
            bad += [f"{p.source}: ratio {float(p.ratio):.6g} above {claim} ({float(value):.6g})"
                    for claim, value in ceilings if value is not None and p.ratio > value]
        return bad


def certified_point(data: Mapping[str, Any], source: str) -> LowerPoint:
    """Re-verify one SVF witness with the referee and return its point.

    Raises
    ------
    WitnessError
        When the referee rejects the witness (a stated TEL, schedule or ratio that does not re-derive), or
        it is not an SVF burst witness with a certified ratio.
    WorkloadFormatError
        For a malformed witness.

    Examples
    --------
    >>> from geosched.adversary.witness import make_witness
    >>> from geosched.reference_impl.model import burst_instance
    >>> w = make_witness(burst_instance(12, [(6, 3), (1, 5)]), "svf", {"r0": 0, "r1": 1}, found_by="hand")
    >>> p = certified_point(w.to_dict(), "hand")
    >>> p.ratio, p.alpha, p.sharp_ceiling
    (Fraction(13, 9), Fraction(3, 4), Fraction(80, 9))
    """
    from geosched.adversary.witness import WitnessError, verify_witness, witness_from_dict
    from geosched.reference_impl.model import Instance

    report = verify_witness(data)
    if not report.ok:
        raise WitnessError(f"{source}: the referee rejects it: {report.message}")
    if report.policy != "svf" or not report.burst or report.certified_ratio is None:
        raise WitnessError(f"{source}: not a certified SVF burst witness (policy {report.policy!r}, "
                           f"burst {report.burst})")
    instance = data["instance"] if isinstance(data.get("instance"), Instance) else \
        witness_from_dict(data, source=source)["instance"]
    return LowerPoint(source, report.alpha, report.certified_ratio, report.n, report.memory, report.policy_tel,
                      report.witness_tel, sum(r.output for r in instance.requests))


def witness_points(folder: str | Path = WITNESS_DIR) -> tuple[LowerPoint, ...]:
    """Every SVF burst witness file (``policy`` ``svf``, every arrival at 0) of ``folder``, re-verified; sorted by
    alpha, then ratio.

    Raises
    ------
    ValidationError
        When ``folder`` is not a folder or holds more than :data:`MAX_WITNESS_FILES` JSON files.
    WitnessError
        When the referee rejects one of them (a folder of witnesses is all certified or refused).
    """
    from geosched.adversary.witness import read_witness

    folder = Path(folder)
    if not folder.is_dir():
        raise ValidationError("--witnesses", str(folder), "must be a folder of witness .json files")
    files = sorted(folder.glob("*.json"))
    if len(files) > MAX_WITNESS_FILES:
        raise ValidationError("--witnesses", str(folder), f"holds {len(files)} files; at most "
                              f"{MAX_WITNESS_FILES} are re-verified")
    points = []
    for path in files:
        data = read_witness(path)  # its instance already parsed
        # the curve is SVF's worst case over bursts: a witness with arrivals over time is another question
        if data["policy"] == "svf" and data["instance"].is_burst:
            points.append(certified_point(data, path.name))
    return tuple(sorted(points, key=lambda p: (p.alpha, p.ratio, p.source)))


def _fraction(value: Any) -> Fraction | None:
    """An exact sympy number as a Fraction (None for infinity or a non-rational)."""
    import sympy as sp

    value = sp.nsimplify(value)
    return Fraction(int(value.p), int(value.q)) if isinstance(value, sp.Rational) else None


def family_limits(words: Mapping[str, str]) -> tuple[FamilyLimit, ...]:
    """The SVF families' limits at their members' alpha (the member of the least size is built here for
    each point of the grid; alpha does not depend on the size), with the ledger's ``words``."""
    import itertools

    from geosched.adversary.families import FAMILIES, MAX_REQUESTS

    limits = []
    for name, fam in FAMILIES.items():
        if fam.policy != "svf":
            continue
        limit = fam.limit
        grid = [range(fam.minimum.get(p, 1), FAMILY_GRID + 1) if p in fam.grows else [default]
                for p, default in fam.parameters.items()]
        points = set()
        for values in itertools.product(*grid):
            chosen = dict(zip(fam.parameters, values))
            if fam.requests(fam.min_size, **chosen) > MAX_REQUESTS:  # work bounded as `geosched family` bounds it
                continue
            instance, _ = fam.build(fam.min_size, **chosen)
            value = _fraction(limit.subs({fam.symbols[p]: v for p, v in chosen.items()}))
            if value is not None:
                points.add((instance.alpha, value))
        claim = FAMILY_CLAIMS.get(name)
        limits.append(FamilyLimit(name, claim, words.get(claim, "no ledger row"), str(limit),
                                  tuple(sorted(points)), _fraction(fam.supremum), tuple(fam.grows)))
    return tuple(limits)


def upper_curves(words: Mapping[str, str]) -> tuple[UpperCurve, ...]:
    """Thm. 3.2's curve and svf.sharp_bound's, each with the ledger's word (the formulas are the rows')."""
    import sympy as sp

    from geosched.theory import kong_thm3_2, svf_heavy_limit

    a = sp.Symbol("alpha", positive=True)
    thm = sp.simplify(kong_thm3_2.ratio(a) - 2 / (1 - a))  # its constant: 1
    heavy = sp.simplify(svf_heavy_limit.upper_bound().subs({svf_heavy_limit.a: a, svf_heavy_limit.e: 0})
                        - 2 / (1 - a))  # 0: the e of the heavy class -> 0
    return (
        UpperCurve("kong.thm3.2", words["kong.thm3.2"], "1 + 2/(1 - alpha)", "every burst",
                   (Fraction(2), _fraction(thm)), True),
        UpperCurve("svf.sharp_bound", words["svf.sharp_bound"], "2/(1 - alpha) + sum(o)/OPT",
                   "heavy bursts (sum(o) <= e OPT, e -> 0: svf.heavy_limit, "
                   f"{words['svf.heavy_limit']}); every burst has its own sum(o)/OPT <= 1",
                   (Fraction(2), _fraction(heavy)), False, " + sum(o)/OPT"),
    )


def ledger_words(mode: str = "quick", seed: int = 0) -> dict[str, str]:
    """The ledger's word for each row this picture cites, from one run (``mode``) made now."""
    from geosched.verify.ledger import run_claims

    ids = tuple(dict.fromkeys((*UPPER_CLAIMS, *FAMILY_CLAIMS.values())))
    return {c.id: c.status for c in run_claims(list(ids), mode=mode, seed=seed).claims}


def ratio_curve_data(*, witnesses: str | Path = WITNESS_DIR, mode: str = "quick",
                     words: Mapping[str, str] | None = None) -> RatioCurveData:
    """The lower points, the family limits and the upper curves, with the ledger's words of one ``mode`` run
    (``words``: a run's words given instead, e.g. by a caller that ran the ledger already).

    Raises
    ------
    ValidationError, WitnessError
        As :func:`witness_points`.
    """
    began = time.perf_counter()
    lower = witness_points(witnesses)  # the witnesses first: a bad folder is refused before the ledger runs
    words = dict(words) if words is not None else ledger_words(mode)
    data = RatioCurveData("consistent", "", 0.0, lower, family_limits(words), upper_curves(words), mode,
                          tuple(sorted(words.items())))
    bad = data.violations()
    best = max(lower, key=lambda p: p.ratio, default=None)
    message = (f"{len(lower)} certified SVF witness(es)" + (f", best {float(best.ratio):.4f} at alpha = {best.alpha}"
                                                           if best else "")
               + f"; {len(data.families)} famil(ies); upper: " + ", ".join(f"{c.claim} {c.word}" for c in data.upper)
               + (f"; {len(bad)} point(s) ABOVE a ceiling: {bad[0]}" if bad else ""))
    return RatioCurveData("inconsistent" if bad else "consistent", message, time.perf_counter() - began, lower,
                          data.families, data.upper, mode, data.words)


# ----------------------------------------------------------------------------------- the table


def _best_point(data: RatioCurveData, name: str) -> str:
    inside = [p for p in data.lower if band_of(p.alpha) == name]
    if not inside:
        return "none"
    p = max(inside, key=lambda q: (q.ratio, -q.n))
    return f"**{float(p.ratio):.4f}** at alpha = {p.alpha} (n = {p.n}; `{p.source}`)"


def _family_cell(data: RatioCurveData, name: str) -> str:
    cells = []
    for fam in data.families:
        inside = [(alpha, value) for alpha, value in fam.points if band_of(alpha) == name]
        if not inside:
            continue
        smallest = min(fam.points)[0]
        source = f"(`{fam.claim}`, `{fam.word}`)"
        if fam.grows and fam.supremum is not None and band_of(smallest) == name:
            # the supremum is approached along the growing parameters, whose members lie in this band: the grid's
            # last member is no landmark, the band's largest alpha is
            alpha, value = max(inside)
            cells.append(f"`{fam.family}`: sup {fam.supremum} (approached as {', '.join(fam.grows)} -> infinity; "
                         f"{value} = {float(value):.4f} at alpha = {alpha}) {source}")
            continue
        alpha, value = max(inside, key=lambda point: (point[1], -point[0]))
        cells.append(f"`{fam.family}`: {value} = {float(value):.4f} at alpha = {alpha} {source}")
    return "; ".join(cells) or "none known"


def _upper_cell(data: RatioCurveData, band: tuple[Fraction, Fraction, bool]) -> str:
    _, high, closed = band
    cells = []
    for c in data.upper:
        at = f"{c.at(high):.4g}{c.term} at alpha = {high}" if closed else "unbounded as alpha -> 1"
        cells.append(f"{c.formula}: {at} (`{c.claim}`, `{c.word}`)")
    return "; ".join(cells)


def band_table(data: RatioCurveData) -> str:
    """docs/adversary.md's opening table: per alpha band, the best certified lower ratio with its witness,
    the families' limits, and the upper bounds with their words."""
    lines = [f"Generated by `python docs/tables.py --ratio-curve {data.mode}` (witnesses re-verified by the "
             f"referee, words from a `{data.mode}` ledger run; tests/test_ratio_curve.py regenerates it and "
             "compares). alpha is max(s + o)/M of each instance; a witness's ratio TEL(SVF)/TEL(S) is at most its "
             "ratio to OPT. The picture: `geosched plot ratio-curve --out FILE.png`.", "",
             "| alpha band | best certified SVF ratio (witness) | family limit (size -> infinity) | upper bound |",
             "|---|---|---|---|"]
    for band in BANDS:
        name = _band_name(band)
        lines.append(f"| {name} | {_best_point(data, name)} | {_family_cell(data, name)} | "
                     f"{_upper_cell(data, band)} |")
    bad = data.violations()
    heavy = dict(data.words).get("svf.heavy_limit", "not in this run")
    verdict = (f"all {len(data.lower)} certified SVF witnesses lie below theirs and below Thm. 3.2's curve."
               if not bad else f"**{len(bad)} lie above a ceiling**: " + "; ".join(bad))
    lines += ["", f"`svf.heavy_limit` (`{heavy}`): on heavy bursts (sum(o) <= e OPT) the two sides meet as alpha, "
              "e -> 0, R -> 2. Each witness's own ceiling by `svf.sharp_bound` with S its witness schedule is "
              f"2/(1 - alpha) + sum(o)/TEL(S); {verdict}"]
    return "\n".join(lines)
