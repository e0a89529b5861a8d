"""The result object of every exact or time-limited solve of the offline optimum."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from geosched.results import Result

__all__ = ["OptResult", "STATUSES", "METHODS"]

# solve_opt's formulations (reference_impl/opt/solve.py's table), the one list: ``auto`` is ``cpsat-completion``
METHODS = ("auto", "cpsat-completion", "cpsat", "milp", "milp-tight", "brute")

STATUSES = ("optimal", "time_limit", "no_solution", "error")


@dataclass(frozen=True)
class OptResult(Result):
    """Outcome of :func:`~geosched.reference_impl.opt.solve_opt` or
    :func:`~geosched.reference_impl.opt.brute_force_opt` (scipy.optimize-like).

    A schedule in ``starts`` has always been re-checked by
    :func:`geosched.reference_impl.checker.check_schedule`, and ``tel`` is the checker's TEL.
    ``status == "optimal"`` only when the solver *proved* optimality; then ``dual_bound == tel``.
    ``success`` is true only then.
    """

    STATUSES = STATUSES
    SUCCESS = ("optimal",)

    status: str  # "optimal" | "time_limit" (incumbent, not proved) | "no_solution" | "error"
    starts: dict[str, int] | None  # best schedule found (checker-verified), None if none
    tel: int | None  # its total end-to-end latency (from the checker)
    dual_bound: float | None  # proven lower bound on OPT's TEL (== tel when optimal)
    wall_time: float  # seconds, including model building and the final check
    method: str  # "cpsat-completion", "cpsat", "milp", "brute", ... (opt.solve.METHODS)
    message: str  # one human-readable line (solver status, limits, incumbent source)
    nodes: int | None = None  # search nodes (brute force, MILP) or CP-SAT branches, if known
    lower_bound: int | None = None  # the proved lower bound computed before the search (solve_opt)
    lower_bound_name: str | None = None  # which bound it is ("chain", "completion_order", ...)

    @property
    def gap(self) -> float | None:
        """Relative optimality gap ``(tel - dual_bound) / tel``; 0 when optimal, None when unknown."""
        if self.tel is None or self.dual_bound is None:
            return None
        if self.tel == 0:
            return 0.0
        return max(0.0, (self.tel - self.dual_bound) / self.tel)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the shape ``geosched opt --json`` and ``compare --json`` emit)."""
        return {
            "status": self.status,
            "success": self.success,
            "tel": self.tel,
            "dual_bound": self.dual_bound,
            "gap": self.gap,
            "starts": None if self.starts is None else dict(self.starts),
            "wall_time": self.wall_time,
            "method": self.method,
            "message": self.message,
        }
