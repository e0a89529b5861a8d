"""Z3 lemmas behind the SVF guarantee of Kong, Qi, Ye, Zhou (arXiv 2606.22327), CCAC style.

Each lemma is built from *constraint families* (one function each) and checked three ways by
:mod:`geosched.verify.z3util`: proved (``assumptions AND NOT conclusion`` unsat), non-vacuous
(assumptions alone sat) and tight (a slightly stronger conclusion has a counterexample).

Lemmas (registry :data:`LEMMAS`):

* ``peak_volume``: integers ``s >= 0, o >= 1``, ``v = s*o + (o^2 + o)/2``, ``p = s + o``
  imply ``p*o + o <= 2v`` (the per-request step of Lemma A.2). Stronger: ``<= 2v - 1``
  (false at ``s = 0``).
* ``thm3_2_composition``: Lemma A.2 summed, ``(1 - alpha) M sum_j W_j <= 2 sum_j sum_{i<j} v_i``;
  Prop. 3.1, ``M TEL(OPT) >= sum_j sum_{i<=j} v_i``; ``TEL(SVF) = sum_j (W_j + o_j)``;
  ``TEL(OPT) >= sum_j o_j``; and ``v_j >= o_j`` imply Thm. 3.2,
  ``TEL(SVF) <= (1 + 2/(1 - alpha)) TEL(OPT)``, over symbolic reals (``form="real"``) or in
  the integer form ``(M - P) TEL(SVF) <= (3M - P) TEL(OPT)``, ``P = alpha M`` (``form="integer"``).
  Stronger: the constant times ``(1 - 1/1000)``.
* ``lemmaA2_invariant_k``: one blocked step with ``k`` active requests (symbolic starts,
  prompts, outputs; the batch feasible at every future step): if the head ``h`` fails the
  forward-looking check (some ``t' in (t, t + o_h]`` with usage ``> M``) and ``alpha M`` bounds
  every peak, then the active peaks sum to ``> (1 - alpha) M``. Stronger: ``> (1 - alpha) M + 1``.
* ``lemmaA2_order_invariant``: the admission-history half of Lemma A.2 for burst arrivals:
  if the started requests precede every waiting one in priority order before a strict
  head-of-line step, they still do after it (the step admits a priority-ordered prefix).
  Stronger: a rank gap of 2. ``admission="backfill"`` drops the prefix rule and is refuted.

Example
-------
>>> run_lemma("peak_volume", timeout_ms=10_000).status
'proved'
>>> run_lemma("peak_volume", slack=1).status   # p*o + o <= 2v - 1 is false at s = 0
'refuted'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.z3model import active_at as shared_active_at
from geosched.reference_impl.z3model import usage
from geosched.results import Result
from geosched.verify.z3util import DEFAULT_TIMEOUT_MS, Lemma, LemmaReport, run_checks

__all__ = [
    "LEMMAS",
    "peak_volume",
    "thm3_2_composition",
    "lemmaA2_invariant_k",
    "lemmaA2_order_invariant",
    "run_lemma",
    "KSweep",
    "largest_k",
    # constraint families
    "request_lengths",
    "volume_definition",
    "lemmaA2_summed",
    "prop31_lower_bound",
    "tel_decomposition",
    "active_at",
    "batch_usage",
    "batch_feasible",
    "check_fails",
    "peaks_bounded",
]

KONG = "Kong, Qi, Ye, Zhou, arXiv 2606.22327"


# ---------------------------------------------------------------- constraint families
def request_lengths(prompt: z3.ArithRef, output: z3.ArithRef) -> list[z3.BoolRef]:
    """A request's lengths: ``s >= 0``, ``o >= 1`` (Kong et al., Sec. 2)."""
    return [prompt >= 0, output >= 1]


def volume_definition(prompt: z3.ArithRef, output: z3.ArithRef, twice_volume: z3.ArithRef) -> list[z3.BoolRef]:
    """``2v = 2 s o + o^2 + o``, i.e. ``v = sum_{j=1..o} (s + j)`` (Kong et al., Eq. (1)).

    Stated for ``2v`` so that integer division never appears.
    """
    return [twice_volume == 2 * prompt * output + output * output + output]


def lemmaA2_summed(one_minus_alpha_m: z3.ArithRef, total_wait: z3.ArithRef,
                   strict_prefix: z3.ArithRef) -> list[z3.BoolRef]:
    """Lemma A.2 summed over requests: ``(1 - alpha) M sum_j W_j <= 2 sum_j sum_{i<j} v_i``."""
    return [one_minus_alpha_m * total_wait <= 2 * strict_prefix]


def prop31_lower_bound(memory: z3.ArithRef, tel_opt: z3.ArithRef, strict_prefix: z3.ArithRef,
                       total_volume: z3.ArithRef) -> list[z3.BoolRef]:
    """Prop. 3.1: ``M TEL(OPT) >= sum_k prefix_k = sum_j sum_{i<=j} v_i``
    ``= sum_j sum_{i<j} v_i + sum_j v_j``."""
    return [memory * tel_opt >= strict_prefix + total_volume]


def tel_decomposition(tel_svf: z3.ArithRef, tel_opt: z3.ArithRef, total_wait: z3.ArithRef,
                      total_output: z3.ArithRef, total_volume: z3.ArithRef) -> list[z3.BoolRef]:
    """``TEL(SVF) = sum_j (W_j + o_j)`` (burst arrivals), ``TEL(OPT) >= sum_j o_j`` (no request
    finishes faster than its output), ``sum_j v_j >= sum_j o_j >= 0`` (``v_j >= o_j``) and
    nonnegative waits."""
    return [
        tel_svf == total_wait + total_output,
        tel_opt >= total_output,
        total_volume >= total_output,
        total_output >= 0,
        total_wait >= 0,
    ]


def active_at(start: z3.ArithRef, output: z3.ArithRef, step: z3.ArithRef) -> z3.BoolRef:
    """A request started at ``x`` holds memory at ``step`` iff ``x < step <= x + o`` (the shared encoding,
    :func:`geosched.reference_impl.z3model.active_at`, with end ``x + o``)."""
    return shared_active_at(start, start + output, step)


def batch_usage(batch: list[tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]], step: z3.ArithRef) -> z3.ArithRef:
    """``sum_{j active at step} (s_j + step - x_j)`` over ``(prompt, start, output)`` triples
    (:func:`geosched.reference_impl.z3model.usage`)."""
    return usage([(s, x, x + o) for s, x, o in batch], step)


def batch_feasible(batch: list[tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]], memory: z3.ArithRef,
                   step: z3.ArithRef, name: str = "u") -> list[z3.BoolRef]:
    """The running batch fits at every future step: ``forall t' > t: usage(t') <= M``."""
    future = z3.Int(name)
    return [z3.ForAll([future], z3.Implies(future > step, batch_usage(batch, future) <= memory))]


def check_fails(batch: list[tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef]], memory: z3.ArithRef,
                step: z3.ArithRef, prompt: z3.ArithRef, output: z3.ArithRef,
                witness_step: z3.ArithRef) -> list[z3.BoolRef]:
    """The forward-looking check of a candidate ``(s, o)`` started at ``t`` fails: some
    ``t' in (t, t + o]`` has ``usage_B(t') + s + t' - t > M`` (``t'`` is the witness)."""
    return [
        witness_step > step,
        witness_step <= step + output,
        batch_usage(batch, witness_step) + prompt + witness_step - step > memory,
    ]


def peaks_bounded(peaks: list[z3.ArithRef], alpha_m: z3.ArithRef, memory: z3.ArithRef) -> list[z3.BoolRef]:
    """``alpha M >= p`` for every listed peak, ``alpha M <= M`` (valid instance)."""
    return [alpha_m >= p for p in peaks] + [alpha_m <= memory]


# ---------------------------------------------------------------- lemmas
def peak_volume(slack: int = 0) -> Lemma:
    """``p*o + o <= 2v - slack`` for integers ``s >= 0, o >= 1`` (Kong et al., Lemma A.2 step).

    With ``slack = 0`` this is the paper's inequality (``2v - p o - o = s o >= 0``);
    ``slack = 1`` is a deliberately broken variant (false at ``s = 0``).

    >>> peak_volume().name
    'peak_volume'
    """
    _check_int("slack", slack, None)
    s, o, v2 = z3.Ints("s o twice_v")
    p = s + o
    assumptions = (*request_lengths(s, o), *volume_definition(s, o, v2))
    return Lemma(
        name="peak_volume",
        statement=f"s >= 0, o >= 1, v = s*o + (o^2+o)/2, p = s + o  =>  p*o + o <= 2v{_minus(slack)}",
        assumptions=tuple(assumptions),
        conclusion=p * o + o <= v2 - slack,
        stronger=p * o + o <= v2 - slack - 1,
        variables={"s": s, "o": o, "twice_v": v2, "p": p},
        parameters={"slack": slack, "domain": "all integers s >= 0, o >= 1"},
        reference=f"{KONG}, proof of Lemma A.2",
        encoding="nonlinear integer arithmetic, unbounded",
    )


def thm3_2_composition(form: str = "real", numerator: int = 2, epsilon: Fraction = Fraction(1, 1000)) -> Lemma:
    """Lemma A.2 (summed) + Prop. 3.1 + ``TEL(OPT) >= sum o`` imply Thm. 3.2.

    ``form="real"``: symbolic reals ``alpha in [0, 1)``, ``M > 0`` and aggregates; conclusion
    ``TEL(SVF) <= (1 + numerator/(1 - alpha)) TEL(OPT)``. ``form="integer"``: integers
    ``0 <= P < M`` (``P = alpha M``) and aggregates; conclusion
    ``(M - P) TEL(SVF) <= ((M - P) + numerator*M) TEL(OPT)``, i.e. ``(3M - P)`` for 2.
    ``numerator=1`` is a deliberately broken variant. The stronger conclusion multiplies the
    constant by ``1 - epsilon``.
    """
    _check_int("numerator", numerator, 0)
    epsilon = Fraction(epsilon)
    if not 0 < epsilon < 1:
        raise ValidationError("epsilon", epsilon, "must be in (0, 1)")
    if form == "real":
        alpha, memory, wait, before, vol, out, tel_svf, tel_opt = z3.Reals(
            "alpha M sum_W sum_before_v sum_v sum_o TEL_SVF TEL_OPT")
        one_minus_alpha_m = (1 - alpha) * memory
        assumptions = [alpha >= 0, alpha < 1, memory > 0, before >= 0]
        ratio = 1 + numerator / (1 - alpha)
        conclusion = tel_svf <= ratio * tel_opt
        scale = z3.RealVal(str(1 - epsilon))
        stronger = tel_svf <= scale * ratio * tel_opt
        variables = {"alpha": alpha, "M": memory}
        bound = f"(1 + {numerator}/(1 - alpha)) TEL(OPT)"
        encoding = "nonlinear real arithmetic (nlsat), unbounded"
    elif form == "integer":
        memory, peak_m, wait, before, vol, out, tel_svf, tel_opt = z3.Ints(
            "M P sum_W sum_before_v sum_v sum_o TEL_SVF TEL_OPT")
        one_minus_alpha_m = memory - peak_m
        assumptions = [peak_m >= 0, peak_m < memory, before >= 0]
        constant = (memory - peak_m) + numerator * memory
        conclusion = (memory - peak_m) * tel_svf <= constant * tel_opt
        scale = 1 - epsilon
        stronger = scale.denominator * (memory - peak_m) * tel_svf <= scale.numerator * constant * tel_opt
        variables = {"M": memory, "P": peak_m}
        bound = f"((M - P) + {numerator} M) TEL(OPT) / (M - P)"
        encoding = "nonlinear integer arithmetic, unbounded"
    else:
        raise ValidationError("form", form, "must be 'real' or 'integer'")
    assumptions += [
        *lemmaA2_summed(one_minus_alpha_m, wait, before),
        *prop31_lower_bound(memory, tel_opt, before, vol),
        *tel_decomposition(tel_svf, tel_opt, wait, out, vol),
    ]
    variables.update({"sum_W": wait, "sum_before_v": before, "sum_v": vol, "sum_o": out,
                      "TEL_SVF": tel_svf, "TEL_OPT": tel_opt})
    return Lemma(
        name="thm3_2_composition",
        statement=("(1-alpha) M sum W <= 2 sum_{i<j} v_i, M TEL(OPT) >= sum_{i<=j} v_i, TEL(SVF) = sum W + sum o, "
                   f"TEL(OPT) >= sum o, sum v >= sum o  =>  TEL(SVF) <= {bound}"),
        assumptions=tuple(assumptions),
        conclusion=conclusion,
        stronger=stronger,
        variables=variables,
        parameters={"form": form, "numerator": numerator, "epsilon": str(epsilon),
                    "domain": "all alpha in [0,1), M > 0 (symbolic)"},
        reference=f"{KONG}, Thm. 3.2 from Lemma A.2 and Prop. 3.1",
        encoding=encoding,
    )


def lemmaA2_invariant_k(k: int = 2, slack: int = 0, feasibility: str = "quantified") -> Lemma:
    """The blocked-step certificate of Lemma A.2 for ``k`` active requests, symbolic lengths.

    Variables: memory ``M``, decision step ``t``; active ``j = 1..k`` with ``s_j >= 0``,
    ``o_j >= 1``, ``0 <= x_j <= t < x_j + o_j`` (started, still holding memory at ``t + 1``);
    head ``h`` with ``s_h >= 0, o_h >= 1``; real ``A = alpha M >= p_j, p_h`` and ``A <= M``.
    Assumptions: the batch is feasible (``forall t' > t: usage(t') <= M``; with
    ``feasibility="completion_points"`` only at the batch's completion steps) and ``h`` fails
    the forward-looking check at ``t``. Conclusion: ``sum_j p_j > M - A`` (``+ slack``).

    Not used (and not needed): that ``h`` is the smallest-volume waiting request; that is
    the order half, :func:`lemmaA2_order_invariant`.
    """
    _check_int("k", k, 1)
    _check_int("slack", slack, None)
    memory, step, witness = z3.Ints("M t t_fail")
    alpha_m = z3.Real("alphaM")
    head_s, head_o = z3.Ints("s_h o_h")
    batch = []
    variables: dict[str, z3.ExprRef] = {"M": memory, "t": step, "alphaM": alpha_m, "s_h": head_s,
                                         "o_h": head_o, "t_fail": witness}
    assumptions: list[z3.BoolRef] = [memory >= 1, step >= 0, *request_lengths(head_s, head_o)]
    for j in range(k):
        s, x, o = z3.Int(f"s_{j}"), z3.Int(f"x_{j}"), z3.Int(f"o_{j}")
        variables.update({f"s_{j}": s, f"x_{j}": x, f"o_{j}": o})
        assumptions += [*request_lengths(s, o), x >= 0, x <= step, step < x + o]
        batch.append((s, x, o))
    peaks = [s + o for s, _, o in batch]
    assumptions += peaks_bounded([*peaks, head_s + head_o], alpha_m, memory)
    if feasibility == "quantified":
        assumptions += batch_feasible(batch, memory, step)
    elif feasibility == "completion_points":
        assumptions += [batch_usage(batch, x + o) <= memory for _, x, o in batch]
    else:
        raise ValidationError("feasibility", feasibility, "must be 'quantified' or 'completion_points'")
    assumptions += check_fails(batch, memory, step, head_s, head_o, witness)
    total_peak = z3.Sum(peaks)
    return Lemma(
        name="lemmaA2_invariant_k",
        statement=(f"k={k} active requests, batch feasible, head fails the forward-looking check, "
                   f"alpha M >= every peak  =>  sum of active peaks > (1 - alpha) M{_plus(slack)}"),
        assumptions=tuple(assumptions),
        conclusion=total_peak > memory - alpha_m + slack,
        stronger=total_peak > memory - alpha_m + slack + 1,
        variables=variables,
        parameters={"k": k, "slack": slack, "feasibility": feasibility,
                    "domain": "all integer lengths and steps (symbolic), alpha M real"},
        reference=f"{KONG}, Lemma A.2 (macroscopic certificate)",
        encoding=("linear integer/real arithmetic; batch feasibility "
                  + ("as a universally quantified future step" if feasibility == "quantified"
                     else "at the batch's completion steps")),
    )


def lemmaA2_order_invariant(n: int = 4, admission: str = "strict") -> Lemma:
    """Admission-history half of Lemma A.2 for burst arrivals, one step, ``n`` requests.

    Requests ``i`` carry distinct priority ranks ``r_i`` (the policy order: volume, arrival,
    id) and booleans ``started_i`` (before the step) and ``admitted_i`` (at the step). All
    requests have arrived (burst), so the waiting ones are the unstarted ones. Invariant
    ``I``: every started request precedes every waiting one. A strict head-of-line step
    admits a downward-closed set of waiting requests (a priority-ordered prefix: the first
    misfit stops the scan); ``admission="backfill"`` admits any subset of the waiting ones.
    Conclusion: ``I`` holds after the step. Since the active batch is a subset of the
    started requests, every active request precedes every waiting request ``j``.
    """
    _check_int("n", n, 2)
    if admission not in ("strict", "backfill"):
        raise ValidationError("admission", admission, "must be 'strict' or 'backfill'")
    ranks = [z3.Int(f"rank_{i}") for i in range(n)]
    started = [z3.Bool(f"started_{i}") for i in range(n)]
    admitted = [z3.Bool(f"admitted_{i}") for i in range(n)]
    after = [z3.Or(started[i], admitted[i]) for i in range(n)]
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    assumptions: list[z3.BoolRef] = [z3.Distinct(*ranks)]
    assumptions += [z3.Implies(z3.And(started[a], z3.Not(started[b])), ranks[a] < ranks[b]) for a, b in pairs]
    assumptions += [z3.Implies(admitted[i], z3.Not(started[i])) for i in range(n)]
    if admission == "strict":
        assumptions += [
            z3.Implies(z3.And(admitted[b], z3.Not(started[a]), ranks[a] < ranks[b]), admitted[a])
            for a, b in pairs
        ]

    def invariant(gap: int) -> z3.BoolRef:
        return z3.And([z3.Implies(z3.And(after[a], z3.Not(after[b])), ranks[a] + gap <= ranks[b])
                       for a, b in pairs])

    variables: dict[str, z3.ExprRef] = {}
    for i in range(n):
        variables.update({f"rank_{i}": ranks[i], f"started_{i}": started[i], f"admitted_{i}": admitted[i]})
    return Lemma(
        name="lemmaA2_order_invariant",
        statement=(f"{n} burst requests; started precede waiting in priority order; a {admission} step "
                   "=> started still precede waiting"),
        assumptions=tuple(assumptions),
        conclusion=invariant(1),
        stronger=invariant(2),
        variables=variables,
        parameters={"n": n, "admission": admission, "domain": "all rank orders and start sets of n requests"},
        reference=f"{KONG}, Lemma A.2 ('every active request precedes j'), burst arrivals",
        encoding="linear integer arithmetic over ranks, propositional start/admit flags",
    )


LEMMAS: dict[str, Callable[..., Lemma]] = {
    "peak_volume": peak_volume,
    "thm3_2_composition": thm3_2_composition,
    "lemmaA2_invariant_k": lemmaA2_invariant_k,
    "lemmaA2_order_invariant": lemmaA2_order_invariant,
}


def run_lemma(name: str, timeout_ms: int = DEFAULT_TIMEOUT_MS, rlimit: int | None = None,
              **params: Any) -> LemmaReport:
    """Build lemma ``name`` with ``params`` and run prove + non-vacuity + tightness.

    >>> run_lemma("lemmaA2_invariant_k", k=1).status
    'proved'
    """
    try:
        factory = LEMMAS[name]
    except KeyError:
        raise UnknownNameError("lemma", name, list(LEMMAS)) from None
    return run_checks(factory(**params), timeout_ms, rlimit=rlimit)


@dataclass(frozen=True)
class KSweep(Result):
    """The result of proving :func:`lemmaA2_invariant_k` for ``k = 1, 2, ...``.

    ``status``: ``"refuted"`` when some ``k`` was refuted, ``"checked"`` when at least
    ``k = 1`` was proved (``largest_k`` says how far), ``"unknown"`` otherwise.
    """

    STATUSES = ("checked", "refuted", "unknown")
    SUCCESS = ("checked",)

    status: str
    message: str  # "proved for every k <= 6 (stopped: k=7: unknown)"
    wall_time: float  # seconds in total
    largest_k: int  # largest k with overall status "proved" and all smaller k proved too (0: none)
    reports: tuple[LemmaReport, ...]  # one per k tried, in order
    stopped_because: str  # "max_k reached" or the first non-proved status (e.g. "k=7: unknown")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary with per-k status and seconds."""
        return {
            "status": self.status,
            "success": self.success,
            "message": self.message,
            "largest_k": self.largest_k,
            "stopped_because": self.stopped_because,
            "wall_time": round(self.wall_time, 3),
            "per_k": [{"k": r.parameters["k"], "status": r.status, "prove_s": round(r.proof.wall_time, 4),
                       "total_s": round(r.wall_time, 4),
                       "resources": max((c.resources or 0 for c in (r.proof, r.nonvacuous, r.tight)), default=0)}
                      for r in self.reports],
        }


def largest_k(max_k: int = 8, timeout_ms: int = 60_000, feasibility: str = "quantified",
              rlimit: int | None = None) -> KSweep:
    """Prove the blocked-step certificate for ``k = 1 .. max_k`` until one is not proved.

    Each call is limited to ``rlimit`` Z3 work units (deterministic: a call past it is ``unknown``
    at that ``k`` on every machine) or, when ``rlimit`` is ``None``, to ``timeout_ms``. The reach
    depends on the answers alone: the clock is never consulted.
    """
    _check_int("max_k", max_k, 1)
    begin = time.perf_counter()
    reports: list[LemmaReport] = []
    best = 0
    reason = "max_k reached"
    for k in range(1, max_k + 1):
        report = run_checks(lemmaA2_invariant_k(k, feasibility=feasibility), timeout_ms, rlimit=rlimit)
        reports.append(report)
        if report.status != "proved":
            reason = f"k={k}: {report.status}"
            break
        best = k
    if any(r.status == "refuted" for r in reports):
        status = "refuted"
    else:
        status = "checked" if best >= 1 else "unknown"
    message = f"proved for every k <= {best} (stopped: {reason})" if best else f"not proved for k=1 ({reason})"
    return KSweep(status, message, time.perf_counter() - begin, best, tuple(reports), reason)


def _check_int(name: str, value: Any, minimum: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(name, value, "must be an integer")
    if minimum is not None and value < minimum:
        raise ValidationError(name, value, f"must be >= {minimum}")


def _minus(slack: int) -> str:
    return f" - {slack}" if slack else ""


def _plus(slack: int) -> str:
    return f" + {slack}" if slack else ""
