"""The empirical rows' statistics re-derived in the same run, and the canaries of their verdicts.

An empirical row (:mod:`~geosched.verify.kong_serving`) turns per-seed measurements into intervals, each interval
into a result (``better``, ``worse``, ``tie``), the results into a trace's word and the traces' words into the
row's. :func:`audit_row` checks every one of those steps in the run that produced them:

* **Intervals** are recomputed from the stored per-seed values by a second routine that shares no code with
  :func:`~geosched.verify.empirical.seed_interval`: the mean and standard deviation with :mod:`statistics`
  (``math.fsum``), the Student-t quantile by bisection on the t distribution's CDF, itself the regularized
  incomplete beta function by its continued fraction (:func:`t_quantile`; no scipy). Each stored mean, bound,
  seed count and result must agree (to 1e-9), else the evidence is ``error``.
* **Words** are re-derived from the results by an independent reading of the rules (:func:`trace_word`,
  :func:`row_word`), else ``error``.
* **Canaries** (a planted defect the verdict must refute, through the same predicate ``judge``): on each trace,
  for each baseline of the row, the claim's policy is replaced by that baseline made 50% worse on every metric
  (a cost x1.5, a throughput x0.5; the metric's direction is this module's own table, not the row's); the
  trace's word must then be ``not_reproduced`` with every comparison against that baseline ``worse`` (:func:`canaries`
  allows a tie only where the baseline's metric is 0 on a seed), none ``better``. They are
  summed up in one :class:`~geosched.verify.evidence.Canary` (refuted when every case was): one not refuted
  makes the evidence ``vacuous`` (it could not have failed; :class:`~geosched.verify.empirical.EmpiricalEvidence`).
* The audit itself is shown able to fail in the same run: a copy of one stored interval narrowed as if divided by
  ``n`` instead of ``sqrt(n)``, and a copy of a trace's word read ``partly`` beside a worse result, must both be
  flagged.

Example
-------
>>> round(t_quantile(0.975, 4), 4)  # the 95% two-sided Student-t quantile with 4 degrees of freedom
2.7764
>>> recomputed_interval([0.1, 0.2, 0.3])["result"]
'tie'
>>> trace_word(["better", "worse"]), row_word(["reproduced", "not_reproduced"])
('not_reproduced', 'partly')
"""

from __future__ import annotations

import copy
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from geosched.verify.evidence import Canary

__all__ = ["t_quantile", "recomputed_interval", "interval_findings", "trace_word", "row_word", "planted_worse",
           "canaries", "audit_row", "PLANTED_FACTOR", "TOLERANCE", "CANARY"]

PLANTED_FACTOR = 0.5  # the canary's policy is its baseline made this much worse (a cost x1.5, a throughput x0.5)
TOLERANCE = 1e-9  # a recomputed bound differs from the stored one by at most this (absolute, on fractions)
_HIGHER_IS_BETTER = ("requests_per_step", "tokens_per_step")  # every other metric is a cost


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` by its continued fraction (modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast on this side only
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            numerator = 1.0
        elif i % 2 == 0:
            numerator = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            numerator = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + numerator * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + numerator / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(1.0 - c * d) < 1e-15:
            break
    return front * (f - 1.0)


def _t_cdf(t: float, df: int) -> float:
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``1/2 < p < 1``), by bisection on the CDF."""
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if _t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def recomputed_interval(values: Sequence[float], level: float = 0.95) -> dict[str, Any]:
    """The mean, bounds and result of ``values`` computed again from scratch (module docstring)."""
    n = len(values)
    mean = math.fsum(values) / n
    half = t_quantile(0.5 + level / 2, n - 1) * statistics.stdev(values, mean) / math.sqrt(n)
    low, high = mean - half, mean + half
    result = "worse" if high < 0 else "better" if low > 0 else "tie"
    return {"mean": mean, "low": low, "high": high, "seeds": n, "result": result}


def interval_findings(comparisons: Sequence[Mapping[str, Any]], where: str) -> list[str]:
    """Each stored interval that its recomputation contradicts, named."""
    findings = []
    for c in comparisons:
        again = recomputed_interval(c["values"])
        off = [k for k in ("mean", "low", "high") if not abs(again[k] - c[k]) <= TOLERANCE * max(1.0, abs(again[k]))]
        off += [k for k in ("seeds", "result") if again[k] != c[k]]
        if off:
            findings.append(f"{where} {c['label']}: stored {', '.join(f'{k} {c[k]}' for k in off)}, recomputed "
                            + ", ".join(f"{k} {again[k]}" for k in off))
    return findings


def trace_word(results: Sequence[str]) -> str:
    """A trace's word from its results, read again: a worse one means the opposite of the claim was measured."""
    if "worse" in results or "better" not in results:
        return "not_reproduced"
    return "reproduced" if set(results) == {"better"} else "partly"


def row_word(words: Sequence[str]) -> str:
    """The row's word from the traces', read again: a check that did not run or could not fail first; then
    all reproduced; one reproduced beside another word: partly; else the weaker of partly / not reproduced."""
    for blocking in ("error", "not_run", "unknown", "vacuous"):
        if blocking in words:
            return blocking
    if all(w == "reproduced" for w in words):
        return "reproduced"
    if "reproduced" in words:
        return "partly"
    return "not_reproduced" if "not_reproduced" in words else "partly"


def planted_worse(runs: Mapping[str, Sequence[Mapping[str, Any]]], ours: str, baseline: str) -> dict[str, Any]:
    """A copy of ``runs`` (``{load: per-seed entries}``) in which ``ours`` is ``baseline`` made worse on every
    metric: a cost x(1 + :data:`PLANTED_FACTOR`) (1 where the baseline's is 0), a throughput x(1 - it)."""
    planted = copy.deepcopy(dict(runs))
    for entries in planted.values():
        for entry in entries:
            theirs = entry["metrics"][baseline]
            entry["metrics"][ours] = {m: (v * (1 - PLANTED_FACTOR) if m in _HIGHER_IS_BETTER else
                                          v * (1 + PLANTED_FACTOR) if v > 0 else 1.0) for m, v in theirs.items()}
    return planted


def canaries(plan: Sequence[Any], runs: Mapping[str, Any], judge: Callable[..., dict[str, Any]],
             where: str) -> list[dict[str, Any]]:
    """For each baseline of ``plan``: the verdict of ``judge`` on :func:`planted_worse` data, and whether it
    refuted the planted defect: the trace's word ``not_reproduced``, and every comparison against that baseline
    ``worse`` (``tie`` allowed only where the baseline's metric is 0 on some seed: a relative difference from 0 is
    not defined, and the comparison counts it as lost, not as a fixed amount), none ``better``."""
    out = []
    ours = plan[0].ours
    for baseline in dict.fromkeys(sub.baseline for sub in plan):
        zero = {(float(load), m) for load, entries in runs.items() for e in entries
                for m, v in e["metrics"][baseline].items() if v == 0}
        verdict = judge(plan, planted_worse(runs, ours, baseline))
        against = [c for c in verdict["comparisons"] if c["baseline"] == baseline]
        missed = [c for c in against if c["result"] == "better" or (c["result"] == "tie"
                                                                    and (c["load"], c["metric"]) not in zero)]
        refuted = verdict["status"] == "not_reproduced" and bool(against) and not missed
        out.append({"trace": where, "planted": f"{ours} := {baseline} made {PLANTED_FACTOR:.0%} worse",
                    "word": verdict["status"], "against": [c["result"] for c in against], "refuted": refuted})
    return out


_SELF_TEST_VALUES = (0.12, 0.03, 0.2, 0.07, 0.15)  # a spread sample, so that a narrowed interval differs


def _self_test() -> list[str]:
    """The audit shown able to fail: an interval narrowed as if divided by ``n`` instead of ``sqrt(n)``, and a word
    read ``partly`` beside a worse result, must both be flagged."""
    failures = []
    stored = {"label": "self-test", "values": list(_SELF_TEST_VALUES), **recomputed_interval(_SELF_TEST_VALUES)}
    n = len(_SELF_TEST_VALUES)
    half = (stored["high"] - stored["low"]) / 2 * math.sqrt(n) / n
    if not interval_findings([{**stored, "low": stored["mean"] - half, "high": stored["mean"] + half}], "self-test"):
        failures.append("an interval divided by n instead of sqrt(n) was not flagged")
    if trace_word(["better", "worse"]) != "not_reproduced":
        failures.append("partly beside a worse result was not flagged")
    return failures


CANARY = "the claim's policy made 50% worse than each baseline, on each trace"


def audit_row(claim_id: str, traces: Sequence[Mapping[str, Any]], outcome: Mapping[str, Any],
              plans: Mapping[str, Sequence[Any]],
              judge: Callable[..., dict[str, Any]]) -> tuple[str, str, Canary, dict[str, Any]]:
    """``(status, message, canary, audit record)`` of a row's ``outcome`` (module docstring): ``error`` when a
    statistic does not re-derive, else the outcome's word; the canary sums up every planted case (refuted when
    each was), for :class:`~geosched.verify.empirical.EmpiricalEvidence` to judge."""
    findings, planted = [], []
    for runs, read in zip(traces, outcome["readings"], strict=True):
        findings += interval_findings(read["comparisons"], read["name"])
        again = trace_word([c["result"] for c in read["comparisons"]])
        if again != read["status"]:
            findings.append(f"{read['name']}: word {read['status']}, re-derived {again}")
        planted += canaries(plans[claim_id], runs[read["kind"]], judge, read["name"])
    findings += [f"audit self-test: {f}" for f in _self_test()]
    again = row_word([r["status"] for r in outcome["readings"]])
    if again != outcome["status"]:
        findings.append(f"row word {outcome['status']}, re-derived {again}")
    record = {"intervals_recomputed": sum(len(r["comparisons"]) for r in outcome["readings"]),
              "findings": findings, "canaries": planted}
    missed = [f"{c['trace']}: {c['planted']} judged {c['word']}" for c in planted if not c["refuted"]]
    canary = Canary(f"{CANARY} ({len(planted)} planted cases)", bool(planted) and not missed,
                    "; ".join(missed) if missed else f"all {len(planted)} judged not reproduced, every comparison "
                                                     "against the planted baseline worse")
    if findings:
        return "error", f"statistics did not re-derive: {'; '.join(findings)} | {outcome['message']}", canary, record
    note = (f" (re-derived: {record['intervals_recomputed']} intervals and every word; canaries: "
            f"{len(planted) - len(missed)} of {len(planted)} planted worse policies refuted)")
    return outcome["status"], outcome["message"] + note, canary, record
