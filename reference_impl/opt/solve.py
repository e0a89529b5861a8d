"""``solve_opt``: the exact offline optimum, with an honest time limit.

Pipeline: validate arguments; compute the best lower bound (the cheap bounds of :mod:`.bounds`
and, for bursts, the chain bound of :mod:`.chain`) and an
incumbent (the warm start if given and feasible, else :func:`~.heuristic.heuristic_schedule`;
either way the checker has accepted it); if the two meet, the incumbent is optimal with no
search. Otherwise solve one formulation (``method``):

===================== =========================================================================
``cpsat``             CP-SAT cumulative (below) + tight windows, hint, symmetry, bound cut,
                      search by earliest start; then the LP relaxation bound (last 20 %), or
                      where the chain table exists (bursts, n <= 20) HiGHS's root cuts on the
                      tight-window program (last 40 %)
``auto`` /
``cpsat-completion``  CP-SAT, completion times only: memory checked at completion steps (exact),
                      pairwise separation and its no-overlap form, tight windows, hint,
                      symmetry, bound cut; then the LP relaxation bound (as for ``cpsat``)
``milp``              HiGHS via ``scipy.optimize.milp``, time-indexed, plain windows (baseline)
``milp-tight``        HiGHS, time-indexed, tight windows ``UB - o_i - LB(I - i)``
``brute``             :func:`~.brute.brute_force_opt` (tiny instances; stops at ``time_limit``)
===================== =========================================================================

**Block grain.** The integer programs count memory in tokens. For an instance with ``block_size``
``B > 1`` (whole KV blocks) ``auto`` and ``brute`` run the exhaustive search, which models blocks
exactly; every other method is refused in one line naming the limitation (never a token-grain
answer for a block-grain instance). The lower bounds count tokens, which bounds the block-grain
optimum from below as well (every block-feasible schedule is token-feasible).

The returned schedule is the better of the solver's and the incumbent's, re-checked by
:func:`~geosched.reference_impl.checker.check_schedule`; the dual bound is the larger of the
solver's and that lower bound. ``status`` is ``"optimal"`` only if the solver proved it (or
the incumbent meets the lower bound); a time limit gives ``"time_limit"`` with the
incumbent and the bound.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> result = solve_opt(burst_instance(12, [(6, 3), (1, 5)]))
>>> result.status, result.tel, result.starts
('optimal', 9, {'r0': 0, 'r1': 1})
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from geosched.errors import InfeasibleScheduleError, UnknownNameError, ValidationError
from geosched.output import working
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance
from geosched.reference_impl.opt.brute import brute_force_opt
from geosched.reference_impl.opt.chain import chain_seconds, chain_subset_bounds
from geosched.reference_impl.opt.cpsat import CPSAT_METHODS, solve_cpsat
from geosched.reference_impl.opt.deadline import BuildStopped, Deadline
from geosched.reference_impl.opt.heuristic import left_shift, timed_heuristic
from geosched.reference_impl.opt.lower import best_lower_bound
from geosched.reference_impl.opt.result import METHODS, OptResult
from geosched.reference_impl.opt.timeindexed import build_model, solve_lp_relaxation, solve_milp

__all__ = ["solve_opt", "METHODS"]



def _tel(instance: Instance, starts: dict[str, int]) -> int:
    return sum(starts[r.id] + r.output - r.arrival for r in instance.requests)


def _checked(instance: Instance, starts: dict[str, int], what: str) -> int:
    report = check_schedule(instance, starts)
    if not report.feasible or report.metrics is None:
        raise InfeasibleScheduleError(f"{what} is infeasible: {report.first_violation.message}")
    return report.metrics.tel


class _ProgressLine:
    """The incumbent and the bound, as the stage of the command's progress reporter (:mod:`geosched.progress`)."""

    def __init__(self, stage: Any, time_limit: float, method: str, lower: int, incumbent: int):
        self.stage, self.label = stage, f"opt[{method}] (limit {time_limit:g} s)"
        self.update(incumbent, lower)

    def update(self, incumbent: float, bound: float) -> None:
        self.stage.set_description_str(f"{self.label}: TEL {incumbent:.0f}, bound {bound:.0f}")


LP_SHARE = 0.2  # of the time limit, reserved by method "cpsat" for the LP relaxation bound
LP_MIN_N = 8  # below this CP-SAT proves optimality quickly; no LP needed
MILP_SHARE = 0.4  # of the time limit, for HiGHS's root cuts where the chain table exists


def _best_known_tel(instance: Instance, raw: dict, incumbent_tel: int) -> int:
    """The smaller of the incumbent's TEL and the search's (its schedule may be missing)."""
    return incumbent_tel if raw["starts"] is None else min(incumbent_tel, _tel(instance, raw["starts"]))


def _raise_dual(raw: dict, bound: float | None, label: str, missing: str) -> dict:
    """A copy of ``raw`` whose dual bound is at least ``bound`` (``None``: nothing proved, and
    the message says ``label missing``)."""
    raw = dict(raw)
    raw["message"] += f"; {label} " + (missing if bound is None else f"{math.ceil(bound - 1e-6)}")
    if bound is not None and (raw["dual_bound"] is None or bound > raw["dual_bound"]):
        raw["dual_bound"] = float(bound)
    return raw


def _with_milp_bound(instance: Instance, raw: dict, incumbent_tel: int, time_limit: float) -> dict:
    """Raise a time-limited search's dual bound with HiGHS on the time-indexed program (tight
    windows from the best TEL known): its root cutting planes bound better than the LP
    relaxation. A HiGHS proof of optimality, or a better schedule, is used as well."""
    best = _best_known_tel(instance, raw, incumbent_tel)
    deadline = Deadline.after(time_limit)
    try:
        model = build_model(instance, upper_bound=best, tight=True, deadline=deadline)
    except BuildStopped as stop:
        return _raise_dual(raw, None, "HiGHS root bound", f"not reached ({stop.reason})")
    outcome = solve_milp(model, time_limit=max(0.05, deadline.remaining()))
    bound = outcome["dual_bound"]
    if outcome["starts"] is not None:
        highs_tel = _checked(instance, outcome["starts"], "HiGHS solution")
        if highs_tel < best:
            raw = dict(raw, starts=outcome["starts"])
            best = highs_tel
        if outcome["proved"]:
            bound = float(best)
    return _raise_dual(raw, bound, "HiGHS root bound", "not reached")


def _with_lp_bound(instance: Instance, raw: dict, incumbent_tel: int, time_limit: float) -> dict:
    """Raise a time-limited search's dual bound with the time-indexed LP relaxation, built on
    the windows of the best TEL known (every schedule at least as good lies inside them)."""
    value = solve_lp_relaxation(instance, upper_bound=_best_known_tel(instance, raw, incumbent_tel),
                                time_limit=time_limit)
    return _raise_dual(raw, value, "LP bound", "not finished")


def solve_opt(
    instance: Instance,
    *,
    time_limit: float = 60.0,
    method: str = "auto",
    warm_start: dict[str, int] | None = None,
    progress: bool = False,
    seed: int = 0,
) -> OptResult:
    """The exact offline optimum of ``instance`` (min TEL), or an honest incumbent and bound.

    Parameters
    ----------
    instance : Instance
        The instance (burst or online arrivals).
    time_limit : float
        Seconds for the whole call: lower bounds, the heuristic incumbent, model building,
        presolve and search all count (one :class:`~.deadline.Deadline`). What may pass it:
        the strict policy runs (the incumbent every result needs, ``O(n log n)`` each), the
        chain bound when its cost estimate was too low (it runs only when estimated at most
        :data:`CHAIN_SHARE` of the time left), and the final checks. A model that cannot be
        built in time, or would be too large, is skipped and the message says why.
    method : str
        One of :data:`METHODS` (table in the module docstring); ``auto`` is ``cpsat-completion``
        (fastest proofs in ``benchmarks/RESULTS.md``, section 2).
    warm_start : dict of str to int, optional
        A start time per request id; used as incumbent and hint when feasible, ignored (with a
        note in ``message``) when the checker rejects it.
    progress : bool
        Report the incumbent and bound on stderr (:mod:`geosched.progress`: the command's reporter, or one
        of its own).
    seed : int
        CP-SAT's random seed (the search is otherwise deterministic only with one worker).

    Returns
    -------
    OptResult
        ``status`` ``optimal`` only when optimality was proved (then ``dual_bound == tel``),
        ``time_limit`` with the best checked schedule and a proved dual bound otherwise;
        ``lower_bound`` and ``lower_bound_name`` give the bound computed before the search.

    Raises
    ------
    UnknownNameError
        For an unknown method.
    ValidationError
        For a time limit that is not a positive finite number.

    Examples
    --------
    >>> from geosched.reference_impl.model import burst_instance
    >>> result = solve_opt(burst_instance(12, [(6, 3), (1, 5)]), time_limit=10)
    >>> result.status, result.tel, result.starts
    ('optimal', 9, {'r0': 0, 'r1': 1})
    """
    t0 = time.perf_counter()
    _validate(method, time_limit)
    if instance.block_size != 1 and method not in ("auto", "brute"):
        raise ValidationError("method", method, f"models memory in tokens, not in blocks of block_size "
                              f"{instance.block_size}: at block grain use method brute (or auto, which runs it)")
    if method == "brute" or instance.block_size != 1:
        return brute_force_opt(instance, deadline=Deadline(t0 + time_limit))
    if instance.n == 0:
        return OptResult("optimal", {}, 0, 0.0, time.perf_counter() - t0, method, "empty instance")
    deadline = Deadline(t0 + time_limit)
    notes: list[str] = []
    lower = _timed_lower_bound(instance, deadline, notes)
    incumbent, incumbent_tel, source = _initial_incumbent(instance, warm_start, deadline, notes)
    if incumbent_tel <= lower.value:
        return OptResult("optimal", incumbent, incumbent_tel, float(incumbent_tel), time.perf_counter() - t0,
                         method, "; ".join([f"{source} schedule meets the {lower.name} lower bound"] + notes),
                         lower_bound=lower.value, lower_bound_name=lower.name)
    used = "cpsat-completion" if method == "auto" else method
    with working(f"opt[{method}]", progress) as stage:
        bar = _ProgressLine(stage, time_limit, method, lower.value, incumbent_tel) if stage is not None else None
        try:
            raw, used = _search(instance, method, incumbent, incumbent_tel, lower.value, deadline, seed, bar)
        except BuildStopped as stop:
            raw = {"proved": False, "starts": None, "dual_bound": None, "nodes": None, "infeasible": False,
                   "message": f"no search: {stop.reason}"}
            incumbent, incumbent_tel = _shift_until(instance, incumbent, incumbent_tel, deadline, notes)
    return _result(instance, raw, used, lower, incumbent, incumbent_tel, source, notes, t0)


def _shift_until(instance: Instance, incumbent: dict[str, int], incumbent_tel: int, deadline: Deadline,
                 notes: list[str]) -> tuple[dict[str, int], int]:
    """With no search possible, the time left goes to the left-shift pass (checked)."""
    if deadline.remaining() < MIN_BOUND_SECONDS:
        return incumbent, incumbent_tel
    shifted = left_shift(instance, incumbent, deadline=deadline)
    tel = _checked(instance, shifted, "left-shifted incumbent")
    notes.append("the time left went to the left-shift pass")
    return (shifted, tel) if tel < incumbent_tel else (incumbent, incumbent_tel)


CHAIN_SHARE = 0.5  # the chain bound runs when its estimated cost is at most this share of the time left


def _timed_lower_bound(instance: Instance, deadline: Deadline, notes: list[str]):
    """The best lower bound: the cheap bounds, and the chain bound when its estimated cost
    (:func:`~.chain.chain_seconds`) is at most :data:`CHAIN_SHARE` of the time left."""
    estimate = chain_seconds(instance)
    if estimate <= CHAIN_SHARE * deadline.remaining():
        return best_lower_bound(instance, chain=True)
    notes.append(f"chain bound skipped (estimated {estimate:.1f} s, more than {CHAIN_SHARE:g} of the time left)")
    return best_lower_bound(instance, chain=False)


def _result(instance: Instance, raw: dict, used: str, lower, incumbent: dict[str, int], incumbent_tel: int,
            source: str, notes: list[str], t0: float) -> OptResult:
    """The better of the incumbent and the solver's (checked) schedule, with the proved bound."""
    if raw["infeasible"]:
        # the windows admit every schedule of TEL <= incumbent, which is itself one of them
        raise InfeasibleScheduleError(f"{used} reported the model infeasible, contradicting the "
                                      f"checked incumbent of TEL {incumbent_tel}: a solver or model bug")
    tel, starts = incumbent_tel, incumbent
    if raw["starts"] is not None:
        solver_tel = _checked(instance, raw["starts"], f"{used} solution")
        if solver_tel <= tel:
            tel, starts, source = solver_tel, raw["starts"], used
    dual = float(lower.value)
    if raw["dual_bound"] is not None:
        # the solver's objective is an integer TEL, so its bound may be rounded up
        dual = max(dual, float(math.ceil(raw["dual_bound"] - 1e-6)))
    proved = raw["proved"] or dual >= tel
    message = "; ".join([raw["message"], f"incumbent from {source}"] + notes)
    return OptResult("optimal" if proved else "time_limit", starts, tel, float(tel) if proved else dual,
                     time.perf_counter() - t0, used, message, raw.get("nodes"), lower_bound=lower.value,
                     lower_bound_name=lower.name)


def _validate(method: str, time_limit: Any) -> None:
    if method not in METHODS:
        raise UnknownNameError("opt method", method, list(METHODS))
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not math.isfinite(time_limit) \
            or time_limit <= 0:
        raise ValidationError("time_limit", time_limit, "must be a finite number of seconds > 0")


def _initial_incumbent(instance: Instance, warm_start: dict[str, int] | None, deadline: Deadline,
                       notes: list[str]) -> tuple[dict[str, int], int, str]:
    """The better of the heuristic schedule and a (checked) warm start."""
    incumbent, heuristic_notes = timed_heuristic(instance, deadline)
    notes.extend(heuristic_notes)
    incumbent_tel = _checked(instance, incumbent, "heuristic schedule")
    source = "heuristic"
    if warm_start is not None:
        report = check_schedule(instance, dict(warm_start))
        if report.feasible and report.metrics is not None:
            if report.metrics.tel < incumbent_tel:
                incumbent, incumbent_tel, source = dict(warm_start), report.metrics.tel, "warm start"
        else:
            notes.append("warm start rejected by the checker")
    return incumbent, incumbent_tel, source


MIN_BOUND_SECONDS = 0.2  # the LP / HiGHS bound step is skipped with less time than this left
SOLVER_LOAD_SECONDS = 2.5  # importing scipy.optimize and OR-Tools into a fresh process (measured: 2.3 s)
SOLVER_MARGIN = 0.2  # HiGHS and CP-SAT stop up to about 0.15 s after their own limit (measured)


def _search(instance: Instance, method: str, incumbent: dict[str, int], incumbent_tel: int, lower: int,
            deadline: Deadline, seed: int, bar: _ProgressLine | None) -> tuple[dict, str]:
    """Run the chosen solver until ``deadline``; returns its raw outcome and the method used.

    Raises :class:`~.deadline.BuildStopped` when the model cannot be built in time."""
    if deadline.remaining() < MIN_BOUND_SECONDS:
        raise BuildStopped("the lower bound and the heuristic used the time limit")
    # loading the solvers takes seconds in a fresh process: done first, so the shares below
    # are shares of what is left after it, and not at all when it would not fit
    loaded = all(name in sys.modules for name in ("scipy.optimize", "ortools.sat.python.cp_model"))
    if not loaded and deadline.remaining() < SOLVER_LOAD_SECONDS + MIN_BOUND_SECONDS:
        raise BuildStopped(f"too little time left to load the solvers (about {SOLVER_LOAD_SECONDS:g} s)")
    import scipy.optimize  # noqa: F401
    if method not in ("auto",) + CPSAT_METHODS:
        model = build_model(instance, upper_bound=incumbent_tel, tight=method == "milp-tight", deadline=deadline)
        return solve_milp(model, time_limit=max(0.05, deadline.remaining() - SOLVER_MARGIN)), method
    from ortools.sat.python import cp_model  # noqa: F401
    used = "cpsat-completion" if method == "auto" else method
    # the default keeps a share of the limit for the LP bound (after the search, with the
    # search's incumbent, whose smaller TEL narrows the windows)
    share = LP_SHARE if used in ("cpsat", "cpsat-completion") and instance.n >= LP_MIN_N else 0.0
    # with the full chain table (bursts of n <= 20) the LP relaxation is weaker than the chain
    # bound (n = 20: 996 / 992 / 1241 against 999 / 1284 / 1406), but HiGHS's root cuts on the
    # tight-window program go past it (1099 / 1288 / 1407 in 24 s)
    root_cuts = bool(share) and chain_subset_bounds(instance) is not None
    if root_cuts:
        share = MILP_SHARE
    raw = solve_cpsat(instance, method=used, upper_bound=incumbent_tel, hint=incumbent, lower_bound=lower,
                      time_limit=max(0.05, deadline.remaining() * (1 - share)), seed=seed,
                      progress=bar.update if bar else None)
    if share and not raw["proved"]:
        left = deadline.remaining() - SOLVER_MARGIN
        if left < MIN_BOUND_SECONDS:
            raw = _raise_dual(raw, None, "LP bound", "skipped (time limit reached)")
        else:
            raw = (_with_milp_bound if root_cuts else _with_lp_bound)(instance, raw, incumbent_tel, left)
    return raw, used


def _describe(result: OptResult) -> dict[str, Any]:  # pragma: no cover - debugging aid
    return result.to_dict()
