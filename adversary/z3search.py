"""Solver search for bad instances (the MetaOpt / CCAC way) with Z3.

One query asks: *is there a burst instance within the bounds, and a feasible schedule S of
it, such that* ``q * TEL(A) >= p * TEL(S)`` (ratio ``r = p/q``)? The instance is free
(integer prompts, outputs and, optionally, M); the policy's schedule ``x`` is **fully
determined** by constraints, so the solver cannot pick a convenient one; the witness schedule
``y`` is free. Three outcomes per query, each with a timeout:

* ``sat``: a witness; it is re-checked by the reference simulator (its schedule must equal the
  model's ``x``) and the independent checker (``y`` feasible), and certifies ratio ``>= r``;
* ``unsat``: **a proof** that no instance within the bounds reaches ``r``: every feasible
  schedule, OPT's included, has ``TEL(A) < r * TEL(S)``. The horizon ``H = n * o_max`` loses
  nothing: an optimal schedule has no idle step before its last start (shift everything after
  an idle step left by one: still feasible, TEL smaller), so its makespan is ``<= sum o_i <= H``,
  and the policy's is too (a head request always fits into an empty batch);
* ``unknown``: the timeout; nothing is claimed.

Constraint families (one function each):

* :func:`instance_constraints`: ``0 <= s_i <= s_max``, ``1 <= o_i <= o_max``, ``M`` in its range,
  ``alpha``: ``den * (s_i + o_i) <= num * M``;
* :func:`priority_constraints`: the priority order *is* the index order: keys non-decreasing
  in ``i`` (``sjf``: ``o_i``; ``svf``: the volume, linearised through a table over ``o``;
  ``fcfs``: none), ties broken by index, as the simulator breaks them by position (this is
  also the first symmetry breaking: each multiset of requests is searched in one order);
* :func:`policy_constraints`: strict head-of-line with burst arrivals admits in index order, so
  ``x_0 = 0`` and ``x_i`` is the **first** step ``t >= x_{i-1}`` at which ``i`` passes the
  forward-looking check against ``{j < i}``: for every ``t`` in the horizon,
  ``x_{i-1} <= t < x_i  =>  not fits(i, t)`` and ``x_i = t => fits(i, t)``; ``fits`` checks
  the usage at every completion ``e_j in (t, t + o_i]`` and at ``t + o_i`` (the usage is
  increasing between completions), exactly as the simulator's check;
* :func:`witness_constraints`: ``y_i >= 0`` and memory ``<= M`` at every step of the horizon;
* :func:`ratio_constraint`: ``q * sum(x_i + o_i) >= p * sum(y_i + o_i)``;
* :func:`strengthening_constraints` (``strengthen=True``; off by default because, measured on
  SVF with n = 5..8, they did not make Z3 faster, and at n = 7, 8 they made it slower:
  ``benchmarks/RESULTS.md``, section 3): sound cuts that restrict the search without losing a
  solution. *Symbolic lengths*: the policy's start obeys
  ``x_i <= max_{j<i} (x_j + o_j)`` (an empty batch admits any head request), hence
  ``x_i <= sum_{j<i} o_j <= i o_max``, so "not fits at ``t``" is unrolled only for
  ``t < i o_max``; both makespans are at most ``sum_i o_i`` (symbolic; OPT has no idle step
  before its last start). For ``svf`` the volume bound (Kong et al., Prop. 3.1) on ``S``.
  *Symmetry breaking* on ``S``: identical requests
  (``s_i = s_j``, ``o_i = o_j``, ``i < j``) start in index order, ``y_i <= y_j`` (permuting
  identical requests keeps a schedule's feasibility and TEL, so some optimal schedule obeys
  all the cuts at once, and an ``unsat`` still covers OPT).

Kong et al. (arXiv 2606.22327), Thm. 3.2 bounds SVF's ratio by ``1 + 2/(1 - alpha)``; Jaillet
et al. (arXiv 2502.07115) show SJF (MC-SF) unbounded in general; the queries here give exact
answers for small bounded instances.

Example
-------
>>> b = Z3Bounds(n=2, memory=(6, 6), max_prompt=3, max_output=3, alpha_max="1/2")
>>> query("sjf", b, "1", timeout=20).status
'sat'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from geosched import _signal_waits
from geosched.errors import ValidationError
from geosched.reference_impl.model import BurstSpace
from geosched.reference_impl.policies import Capability, policy_names
from geosched.results import Completed, Result

__all__ = [
    "Z3Bounds",
    "QueryResult",
    "BisectResult",
    "make_solver",
    "instance_constraints",
    "priority_constraints",
    "policy_constraints",
    "witness_constraints",
    "ratio_constraint",
    "query",
    "bisect_ratio",
    "z3_hunt",
    "Z3HuntResult",
]

Z3_POLICIES = policy_names(Capability.Z3)
MAX_Z3_REQUESTS = 30  # the unrolled model grows like n^3 * o_max: beyond this it is hopeless anyway


@dataclass(frozen=True)
class Z3Bounds(BurstSpace):
    """The instance space a query (and an ``unsat`` proof) covers: a
    :class:`~geosched.reference_impl.model.BurstSpace` of at most :data:`MAX_Z3_REQUESTS` requests."""

    FIELD: ClassVar[str] = "z3"
    distinct_volumes: bool = False  # svf: only instances whose volumes are pairwise distinct (issue 43)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n > MAX_Z3_REQUESTS:
            raise ValidationError("z3 n", self.n, f"must be in 1..{MAX_Z3_REQUESTS}")

    @property
    def horizon(self) -> int:
        return self.n * self.max_output

    def describe(self) -> str:
        return (self.describe_lengths() + ", " + (f"{self.alpha_low} < " if self.alpha_low else "")
                + f"alpha <= {self.alpha}" + (", volumes pairwise distinct" if self.distinct_volumes else ""))

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), **({"distinct_volumes": True} if self.distinct_volumes else {})}


@dataclass
class _Model:
    solver: Any
    M: Any
    s: list
    o: list
    x: list
    y: list
    bounds: Z3Bounds


def instance_constraints(b: Z3Bounds, M, s, o) -> list:
    """Lengths, memory range and the alpha constraint."""
    alpha = b.alpha
    cons = [M >= b.memory[0], M <= b.memory[1]]
    for si, oi in zip(s, o):
        cons += [si >= 0, si <= b.max_prompt, oi >= 1, oi <= b.max_output,
                 alpha.denominator * (si + oi) <= alpha.numerator * M]
    low = b.alpha_low
    if low and s:  # the band: some request's peak exceeds alpha_min * M
        import z3

        cons.append(z3.Or([low.denominator * (si + oi) > low.numerator * M for si, oi in zip(s, o)]))
    return cons


def _volume(b: Z3Bounds, si, oi):
    import z3

    # s*o + (o^2+o)/2, linear in s for each fixed o: a table over o keeps the model linear
    expr = z3.IntVal(0)
    for k in range(b.max_output, 0, -1):
        expr = z3.If(oi == k, si * k + (k * k + k) // 2, expr)
    return expr


def priority_constraints(policy: str, b: Z3Bounds, s, o) -> list:
    """The priority order is the index order (keys non-decreasing; ties by index = position)."""
    if policy == "fcfs":
        return []
    if policy == "sjf":
        return [o[i] <= o[i + 1] for i in range(len(o) - 1)]
    if policy == "svf":
        v = [_volume(b, si, oi) for si, oi in zip(s, o)]
        if getattr(b, "distinct_volumes", False):  # no tie at all: the order is the volumes' (issue 43)
            return [v[i] < v[i + 1] for i in range(len(v) - 1)]
        return [v[i] <= v[i + 1] for i in range(len(v) - 1)]
    raise ValidationError("z3 policy", policy, f"must be one of {', '.join(Z3_POLICIES)} (svf1's keys depend on "
                          "the workload's median and are not encoded)")


def _usage(p, x, s, o, members):
    from geosched.reference_impl.z3model import usage

    return usage([(s[k], x[k], x[k] + o[k]) for k in members], p)  # the shared memory encoding


def _fits_at(i: int, t: int, M, x, s, o):
    import z3

    members = list(range(i))
    conds = []
    for j in members:
        e = x[j] + o[j]
        conds.append(z3.Implies(z3.And(t < e, e <= t + o[i]), _usage(e, x, s, o, members) + s[i] + e - t <= M))
    end = t + o[i]
    conds.append(_usage(end, x, s, o, members) + s[i] + o[i] <= M)
    return z3.And(conds)


def policy_constraints(b: Z3Bounds, M, s, o, x, *, strengthen: bool = False) -> list:
    """Strict head-of-line, burst, priority = index: ``x_i`` = first fitting step ``>= x_{i-1}``.

    ``strengthen``: ``x_i <= i o_max`` (see the module docstring), so the steps ``t`` at which
    ``not fits`` is asserted stop there."""
    import z3

    horizon = b.horizon
    cons = [x[0] == 0]
    for i in range(len(x)):
        cons += [x[i] >= 0, x[i] + o[i] <= horizon]
        if i == 0:
            continue
        cons.append(x[i] >= x[i - 1])
        last = min(horizon, i * b.max_output + 1) if strengthen else horizon
        if strengthen:
            cons.append(x[i] <= i * b.max_output)
        for t in range(last):
            fits = _fits_at(i, t, M, x, s, o)
            cons.append(z3.Implies(x[i] == t, fits))
            cons.append(z3.Implies(z3.And(x[i - 1] <= t, t < x[i]), z3.Not(fits)))
    return cons


def witness_constraints(b: Z3Bounds, M, s, o, y) -> list:
    """A free schedule ``y``, feasible: memory ``<= M`` at every step ``1..H``."""
    horizon = b.horizon
    cons = []
    for i in range(len(y)):
        cons += [y[i] >= 0, y[i] + o[i] <= horizon]
    for t in range(1, horizon + 1):
        cons.append(_usage(t, y, s, o, range(len(y))) <= M)
    return cons


def strengthening_constraints(b: Z3Bounds, s, o, x, y, policy: str = "") -> list:
    """Sound cuts (module docstring): ``x_i <= max_{j<i}(x_j + o_j)``, both makespans
    ``<= sum o``, identical requests start in index order in ``S``; for ``svf`` (volumes sorted
    by index) the volume bound of Kong et al., Prop. 3.1, on ``S``:
    ``M_max TEL(S) >= M TEL(S) >= sum_k (k smallest volumes) = sum_i (n - i) v_i``."""
    import z3

    total = z3.Sum(o)
    cons = []
    if policy == "svf":
        n = len(o)
        prefix = z3.Sum([(n - i) * _volume(b, s[i], o[i]) for i in range(n)])
        cons.append(b.memory[1] * z3.Sum([yi + oi for yi, oi in zip(y, o)]) >= prefix)
    for i in range(len(x)):
        cons += [x[i] + o[i] <= total, y[i] + o[i] <= total]
        if i:
            cons.append(z3.Or([x[i] <= x[j] + o[j] for j in range(i)]))
        for j in range(i + 1, len(x)):
            cons.append(z3.Implies(z3.And(s[i] == s[j], o[i] == o[j]), y[i] <= y[j]))
    return cons


def ratio_constraint(ratio: Fraction, x, y, o) -> Any:
    """``q * TEL(A) >= p * TEL(S)`` (burst: TEL = sum of completions)."""
    import z3

    tel_a = z3.Sum([xi + oi for xi, oi in zip(x, o)])
    tel_s = z3.Sum([yi + oi for yi, oi in zip(y, o)])
    return ratio.denominator * tel_a >= ratio.numerator * tel_s


def make_solver(policy: str, b: Z3Bounds, *, strengthen: bool = False) -> _Model:
    """The solver with every constraint family except the ratio (added per query);
    ``strengthen=True`` adds :func:`strengthening_constraints` (sound, but measured slower:
    ``benchmarks/RESULTS.md``, section 3)."""
    import z3

    n = b.n
    M = z3.Int("M")
    s = [z3.Int(f"s{i}") for i in range(n)]
    o = [z3.Int(f"o{i}") for i in range(n)]
    x = [z3.Int(f"x{i}") for i in range(n)]
    y = [z3.Int(f"y{i}") for i in range(n)]
    solver = z3.Solver()
    solver.add(instance_constraints(b, M, s, o))
    solver.add(priority_constraints(policy, b, s, o))
    solver.add(policy_constraints(b, M, s, o, x, strengthen=strengthen))
    solver.add(witness_constraints(b, M, s, o, y))
    if strengthen:
        solver.add(strengthening_constraints(b, s, o, x, y, policy))
    return _Model(solver, M, s, o, x, y, b)


@dataclass(frozen=True)
class QueryResult(Result):
    """One ``TEL(A) >= r * TEL(S)`` query: ``status`` is Z3's answer.

    ``sat`` comes with a witness re-checked by the simulator and the checker; ``unsat`` is a
    proof that no instance within the bounds reaches ``r``; ``unknown`` claims nothing.
    """

    STATUSES = ("sat", "unsat", "unknown")
    SUCCESS = ("sat", "unsat")

    status: str  # "sat", "unsat" or "unknown"
    message: str
    wall_time: float  # seconds in the solver
    policy: str
    ratio: Fraction  # the r asked
    bounds: Z3Bounds
    witness: Any = None  # a checked Witness when sat
    found_ratio: Fraction | None = None  # TEL(A)/TEL(S) of the model when sat (>= ratio)

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "ratio": str(self.ratio), "ratio_float": float(self.ratio),
                "status": self.status, "success": self.success, "message": self.message,
                "wall_time": round(self.wall_time, 3), "bounds": self.bounds.to_dict(),
                "found_ratio": None if self.found_ratio is None else float(self.found_ratio)}


def _extract(policy: str, model: _Model, z3model) -> tuple[Any, Fraction]:
    from geosched.adversary.fast import ids_for
    from geosched.adversary.witness import make_witness
    from geosched.errors import InfeasibleScheduleError
    from geosched.reference_impl.model import Instance, Request

    val = lambda e: z3model.eval(e, model_completion=True).as_long()  # noqa: E731
    n = model.bounds.n
    ids = ids_for(n)
    inst = Instance(val(model.M), [Request(ids[i], 0, val(model.s[i]), val(model.o[i])) for i in range(n)])
    x = {ids[i]: val(model.x[i]) for i in range(n)}
    y = {ids[i]: val(model.y[i]) for i in range(n)}
    w = make_witness(inst, policy, y, found_by=f"z3 ({model.bounds.describe()})", seed=None)
    if w.policy_starts != x:
        raise InfeasibleScheduleError(
            f"z3 model's {policy} schedule {x} differs from the simulator's {w.policy_starts}: encoding bug")
    return w, Fraction(w.policy_tel, w.witness_tel)


def query(policy: str, bounds: Z3Bounds, ratio: Fraction | str | float, *, timeout: float = 60.0,
          model: _Model | None = None, rlimit: int | None = None) -> QueryResult:
    """Is ``TEL(policy) >= ratio * TEL(S)`` satisfiable within ``bounds``? (see module docstring)

    ``rlimit``: stop on Z3's own work units instead of ``timeout`` seconds (the same answer on every
    machine; the ledger's ceilings, :mod:`geosched.verify.z3ceiling`, always use one)."""
    import z3

    ratio = Fraction(ratio).limit_denominator(10**6) if isinstance(ratio, float) else Fraction(ratio)
    model = model or make_solver(policy, bounds)
    solver = model.solver
    solver.push()
    solver.add(ratio_constraint(ratio, model.x, model.y, model.o))
    if rlimit is None:
        solver.set("timeout", max(1, int(timeout * 1000)))
    else:
        if isinstance(rlimit, bool) or not isinstance(rlimit, int) or not 1 <= rlimit < 2**32:
            raise ValidationError("z3 rlimit", rlimit, "must be an integer in 1..2^32-1 (Z3 reads 32 bits)")
        solver.set("rlimit", rlimit)
    t0 = time.perf_counter()
    answer = interruptible_check(solver)
    seconds = time.perf_counter() - t0
    outcome = "sat" if answer == z3.sat else ("unsat" if answer == z3.unsat else "unknown")
    witness, found = _extract(policy, model, solver.model()) if answer == z3.sat else (None, None)
    solver.pop()
    message = {"sat": f"an instance reaches {float(found) if found else 0:.4f} >= {float(ratio):.4f}",
               "unsat": f"no instance within {bounds.describe()} reaches {ratio}",
               "unknown": f"z3 gave up ({solver.reason_unknown()})" if outcome == "unknown" else ""}[outcome]
    return QueryResult(outcome, message, seconds, policy, ratio, bounds, witness, found)


def interruptible_check(solver: Any) -> Any:
    """``solver.check()``, stopped promptly by Ctrl-C or SIGTERM (issue 41 item 5).

    Z3's own Ctrl-C handler would take the signal during a check and answer ``unknown`` (the bisection then
    went on), or let it land in a ctypes cleanup (a traceback). Here Z3 does not watch Ctrl-C; the check runs
    in a thread (ctypes releases the GIL) while this one waits, so the signal's exception is raised here at
    once, and Z3 is interrupted (``Z3_interrupt``, made for this) and waited for before it propagates."""
    import threading

    solver.set("ctrl_c", False)
    box: dict[str, Any] = {}

    def check() -> None:
        try:
            box["answer"] = solver.check()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = exc

    worker = threading.Thread(target=check, name="z3-check", daemon=True)
    worker.start()
    try:
        _signal_waits.join(worker)
    except BaseException:
        solver.ctx.interrupt()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["answer"]


@dataclass(frozen=True)
class BisectResult(Result):
    """Bisection on r: the largest certified (sat) ratio and the smallest proved-impossible one.

    ``status``: ``"interval"`` (both ends known), ``"lower_only"`` (a certified ratio, no
    proved limit), ``"upper_only"`` (a proved limit, no witness) or ``"none"``.
    """

    STATUSES = ("interval", "lower_only", "upper_only", "none")
    SUCCESS = ("interval", "lower_only", "upper_only")

    status: str
    message: str
    wall_time: float
    policy: str
    bounds: Z3Bounds
    best_sat: Fraction | None  # largest ratio with a checked witness
    best_witness: Any  # its Witness
    smallest_unsat: Fraction | None  # proof: no instance within bounds reaches this ratio
    queries: tuple[QueryResult, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "success": self.success, "message": self.message,
                "policy": self.policy, "bounds": self.bounds.to_dict(), "bounds_text": self.bounds.describe(),
                "best_sat": None if self.best_sat is None else float(self.best_sat),
                "best_sat_exact": None if self.best_sat is None else str(self.best_sat),
                "smallest_unsat": None if self.smallest_unsat is None else float(self.smallest_unsat),
                "smallest_unsat_exact": None if self.smallest_unsat is None else str(self.smallest_unsat),
                "queries": [q.to_dict() for q in self.queries], "wall_time": round(self.wall_time, 3)}


def bisect_ratio(policy: str, bounds: Z3Bounds, *, lo: Fraction | str = "1", hi: Fraction | str = "5",
                 tol: Fraction | str = "1/100", timeout: float = 60.0, time_limit: float | None = None,
                 on_query: Callable[[QueryResult], None] | None = None, strengthen: bool = False) -> BisectResult:
    """Bisect ``r`` in ``[lo, hi]``: a ``sat`` answer raises ``lo`` to the witness's own ratio; an
    ``unsat`` lowers ``hi``; an ``unknown`` ends the bisection (nothing is claimed for it).
    ``hi`` itself is queried first, so ``smallest_unsat`` is always a proved limit when set."""
    lo, hi, tol = Fraction(lo), Fraction(hi), Fraction(tol)
    t0 = time.perf_counter()
    model = make_solver(policy, bounds, strengthen=strengthen)
    queries: list[QueryResult] = []

    def ask(r: Fraction) -> QueryResult:
        remaining = timeout if time_limit is None else min(timeout, time_limit - (time.perf_counter() - t0))
        q = query(policy, bounds, r, timeout=max(0.5, remaining), model=model)
        queries.append(q)
        if on_query:
            on_query(q)
        return q

    first = ask(hi)
    if first.status != "sat" and lo < hi:  # lo == hi: one query (the ceiling of a given ratio)
        hi_known = first.status == "unsat"
        q = ask(lo)
        if q.status == "sat":
            lo = max(lo, q.found_ratio)
        while hi - lo > tol and (time_limit is None or time.perf_counter() - t0 < time_limit):
            mid = Fraction(lo + hi, 2).limit_denominator(1000)
            if not lo < mid < hi:
                break
            q = ask(mid)
            if q.status == "sat":
                lo = q.found_ratio
            elif q.status == "unsat":
                hi = mid
            else:
                if not hi_known:
                    break
                hi = mid  # unknown: try lower, but hi is NOT a proved limit (smallest_unsat unchanged)
                hi_known = False
    return _bisect_result(policy, bounds, queries, time.perf_counter() - t0)


def _bisect_result(policy: str, bounds: Z3Bounds, queries: list[QueryResult], wall_time: float) -> BisectResult:
    sats = [q for q in queries if q.status == "sat"]
    best = max(sats, key=lambda q: q.found_ratio, default=None)
    unsat = min((q.ratio for q in queries if q.status == "unsat"), default=None)
    best_sat = best.found_ratio if best is not None else None
    status = {(True, True): "interval", (True, False): "lower_only", (False, True): "upper_only",
              (False, False): "none"}[(best is not None, unsat is not None)]
    message = (f"certified ratio {float(best_sat) if best_sat else '-'}; "
               f"proved limit {unsat if unsat is not None else '-'} ({len(queries)} queries)")
    return BisectResult(status, message, wall_time, policy, bounds, best_sat, best.witness if best else None,
                        unsat, tuple(queries))


@dataclass(frozen=True)
class Z3HuntResult(Completed):
    """The ``z3`` method of a hunt: one bisection per number of requests, while time remains.
    ``wall_time`` is cumulative over resumes."""

    fun: float  # the best certified ratio (0.0 when no query was sat)
    nfev: int  # queries, cumulative over resumes
    witnesses: tuple[Any, ...]  # checked witnesses found in this run
    history: tuple[tuple[float, float, int], ...]  # (wall time, best, queries)
    state: dict[str, Any]  # resumable state (JSON-able)
    runs: tuple[dict[str, Any], ...]  # every bisection, as dictionaries

    def summary(self) -> dict[str, Any]:
        """The hunt summary's entry for this method."""
        return {"runs": list(self.runs), "best_sat": self.fun, "queries": self.nfev, "wall_time": self.wall_time}


def z3_hunt(space, *, time_limit: float, bounds: dict[str, Any] | None = None, state: dict | None = None,
            progress=None, checkpoint: Callable[[dict], Any] | None = None) -> Z3HuntResult:
    """The ``z3`` method of ``geosched hunt``: bisection on small bounds derived from the space
    (n = min(N, 3), M = the space's M, lengths capped at 4 unless ``bounds`` says otherwise),
    growing n while time remains. Resumable: finished bound sets are kept in ``state``."""
    if space.arrivals != "burst":
        raise ValidationError("arrivals", space.arrivals, "the z3 method models burst arrivals only")
    if space.policy not in Z3_POLICIES:
        raise ValidationError("policy", space.policy, f"the z3 method supports {', '.join(Z3_POLICIES)}")
    cfg = {"n": min(space.max_requests, 3), "max_output": min(space.peak_max, 4),
           "max_prompt": min(space.peak_max - 1, max(4, space.peak_min - min(space.peak_max, 4))), **(bounds or {})}
    done: list[dict[str, Any]] = list((state or {}).get("runs", []))
    history = [tuple(h) for h in (state or {}).get("history", [])]
    base = float((state or {}).get("wall_time", 0.0))
    t0 = time.perf_counter()
    witnesses = []
    best = max((r["best_sat"] or 0.0 for r in done), default=0.0)
    n = max([cfg["n"]] + [r["bounds"]["n"] + 1 for r in done])
    queries = sum(len(r["queries"]) for r in done)
    while n <= min(space.max_requests, 10) and time.perf_counter() - t0 < time_limit:
        b = Z3Bounds(n=n, memory=(space.memory, space.memory), max_prompt=cfg["max_prompt"],
                     max_output=cfg["max_output"], alpha_max=Fraction(str(space.alpha_max)),
                     alpha_min=Fraction(str(space.alpha_min)))
        remaining = time_limit - (time.perf_counter() - t0)
        res = bisect_ratio(space.policy, b, timeout=min(120.0, remaining), time_limit=remaining, tol="1/50")
        queries += len(res.queries)
        if res.best_witness is not None:
            witnesses.append(res.best_witness)
            if float(res.best_sat) > best:
                best = float(res.best_sat)
                history.append((base + time.perf_counter() - t0, best, queries))
        done.append(res.to_dict())
        if progress is not None:
            progress.show("z3", best, queries, base + time.perf_counter() - t0, 0.0, force=True)
            progress.done()
        if checkpoint is not None:
            checkpoint({"kind": "z3", "runs": done, "history": history,
                        "wall_time": base + time.perf_counter() - t0})
        n += 1
    wall = base + time.perf_counter() - t0
    history.append((wall, best, queries))
    return Z3HuntResult("completed", f"{len(done)} bisections, best certified ratio {best:.4f}", wall, best, queries,
                        tuple(witnesses), tuple(history),
                        {"kind": "z3", "runs": done, "history": history, "wall_time": wall}, tuple(done))
