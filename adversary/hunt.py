"""``geosched hunt``: run the searches with checkpoints, certify the elite, write witnesses.

Files written into the output directory:

* ``checkpoint.json``: every method's resumable state, rewritten atomically every few
  seconds, so a kill loses at most that much; ``--resume`` continues from it (counts, history
  and wall time keep growing);
* ``witness_<method>_<k>.json``: the elite re-scored with :func:`certify` (checked witnesses);
  ``best_witness.json``: the best of them;
* ``progress.csv`` and ``progress.png``: best certified ratio against wall time per method;
* ``summary.json``: the result object (also printed by ``--json``).

For ``svf`` on burst instances every certified ratio is compared with Kong et al.'s
Thm. 3.2 bound ``1 + 2/(1 - alpha)`` of that instance; exceeding it would refute the theorem
and is reported first, in capitals, with its witness.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from geosched.adversary.search import (
    Candidate,
    SearchSpace,
    anneal,
    candidate_to_instance,
    differential_evolution_search,
)
from geosched.adversary.witness import Witness, make_witness, write_witness
from geosched.errors import ValidationError, WorkloadFormatError

__all__ = ["HuntResult", "hunt", "certify", "svf_theorem_bound"]

METHODS = ("anneal", "de", "z3")


def svf_theorem_bound(alpha: Fraction) -> Fraction | None:
    """``1 + 2/(1 - alpha)`` (Kong et al., Thm. 3.2); None when alpha >= 1."""
    return None if alpha >= 1 else 1 + Fraction(2) / (1 - alpha)


def certify(instance, policy: str, *, found_by: str, seed: int | None, rng: Any = 0,
            time_budget: float = 5.0, exact_n: int = 10, exact_time_limit: float = 10.0) -> Witness:
    """Best witness schedule (:func:`~geosched.adversary.schedules.best_witness_schedule`) as a
    checked :class:`Witness`, with the best proved lower bound on OPT for the upper ratio."""
    from geosched.adversary.schedules import best_witness_schedule
    from geosched.adversary.witness import _best_known_lower_bound

    ws = best_witness_schedule(instance, rng=rng, time_budget=time_budget, exact_n=exact_n,
                               exact_time_limit=exact_time_limit)
    lb, name = _best_known_lower_bound(instance)
    if ws.lower_bound is not None and ws.lower_bound > lb:
        lb, name = ws.lower_bound, ws.lower_bound_name
    return make_witness(instance, policy, ws.starts, found_by=f"{found_by}; witness: {ws.source}", seed=seed,
                        lower_bound=(lb, name))


@dataclass
class HuntResult:
    """scipy-style summary of a hunt (``fun``: best certified ratio over all methods)."""

    x: Any  # best instance (Instance) or None
    fun: float  # best certified ratio, checked by the checker
    status: int  # 0: finished its time; 2: target reached
    message: str
    nfev: int  # fitness evaluations over all methods
    wall_time: float  # seconds, cumulative over resumes
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)  # per-method summary
    witnesses: list[str] = field(default_factory=list)  # witness files written
    counterexamples: list[str] = field(default_factory=list)  # witness files refuting Thm 3.2
    plot: str | None = None  # progress.png (None if matplotlib is missing)
    csv: str | None = None  # progress.csv
    space: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fun": self.fun, "status": self.status, "message": self.message, "nfev": self.nfev,
            "wall_time": self.wall_time, "methods": self.methods, "witnesses": self.witnesses,
            "counterexamples": self.counterexamples, "plot": self.plot, "csv": self.csv,
            "space": self.space, "seed": self.seed,
            "best_instance": self.x.to_dict() if self.x is not None else None,
        }


def _atomic_write(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


class _Progress:
    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def show(self, method: str, best: float, nfev: int, elapsed: float, rate: float, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and now - self.last < (0.5 if self.tty else 10.0):
            return
        self.last = now
        line = f"[{method}] {elapsed:7.1f}s  best certified ratio {best:.4f}  evals {nfev}  {rate:.0f} evals/s"
        if self.tty:
            print("\r" + line.ljust(90), end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.enabled and self.tty:
            print(file=sys.stderr)


def hunt(
    space: SearchSpace,
    *,
    method: str = "all",
    time_limit: float = 60.0,
    seed: int | None = 0,
    out: str | Path = "hunt-out",
    resume: bool = False,
    target: float | None = None,
    progress: bool = True,
    checkpoint_every: float = 3.0,
    z3_bounds: dict[str, Any] | None = None,
    certify_budget: float = 5.0,
) -> HuntResult:
    """Run ``method`` (``anneal``, ``de``, ``z3`` or ``all``: time split 45/35/20) for
    ``time_limit`` seconds in total, checkpointing into ``out``."""
    methods = list(METHODS) if method == "all" else [method]
    for m in methods:
        if m not in METHODS:
            raise ValidationError("method", method, f"must be one of {', '.join(METHODS)}, all")
    from geosched.adversary.z3search import Z3_POLICIES

    z3_ok = space.arrivals == "burst" and space.policy in Z3_POLICIES
    if method == "z3" and not z3_ok:
        raise ValidationError("method", method, f"z3 models burst arrivals and policies {', '.join(Z3_POLICIES)} only")
    if not z3_ok and "z3" in methods:
        methods.remove("z3")  # --method all: the z3 share goes to the black-box searches
    out = Path(out)
    ckpt_path = out / "checkpoint.json"
    if resume and not ckpt_path.is_file():
        raise WorkloadFormatError(f"--resume: no checkpoint at {ckpt_path}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkloadFormatError(f"--out {out}: cannot create the directory ({exc.strerror})") from None
    checkpoint: dict[str, Any] = {"space": space.to_dict(), "seed": seed, "methods": {}}
    if resume:
        if not ckpt_path.is_file():
            raise WorkloadFormatError(f"--resume: no checkpoint at {ckpt_path}")
        try:
            saved = json.loads(ckpt_path.read_text())
        except json.JSONDecodeError as exc:
            raise WorkloadFormatError(f"{ckpt_path}: invalid JSON ({exc.msg})") from None
        if saved.get("space") != space.to_dict():
            raise ValidationError("--resume", saved.get("space"), f"checkpoint was made for another search space than "
                                  f"{space.to_dict()}")
        checkpoint = saved
        seed = saved.get("seed", seed)
    shares = {"anneal": 0.45, "de": 0.35, "z3": 0.20} if "z3" in methods else {"anneal": 0.55, "de": 0.45}
    if len(methods) == 1:
        shares = {methods[0]: 1.0}
    show = _Progress(progress)
    results: dict[str, Any] = {}
    root = np.random.SeedSequence(seed)
    children = dict(zip(METHODS, root.spawn(len(METHODS))))

    for m in methods:
        budget = time_limit * shares[m]
        last_save = [time.perf_counter()]
        state = checkpoint["methods"].get(m)

        def cb(result, m=m, last_save=last_save):
            show.show(m, result.fun, result.nfev, result.wall_time, result.evaluations_per_second)
            if time.perf_counter() - last_save[0] >= checkpoint_every:
                checkpoint["methods"][m] = {"kind": "search", "state": result.state}
                _atomic_write(ckpt_path, checkpoint)
                last_save[0] = time.perf_counter()
            return False

        if m == "z3":
            from geosched.adversary.z3search import z3_hunt

            res = z3_hunt(space, time_limit=budget, bounds=z3_bounds, state=state, progress=show,
                          checkpoint=lambda st: (checkpoint["methods"].__setitem__("z3", st),
                                                 _atomic_write(ckpt_path, checkpoint)))
            checkpoint["methods"]["z3"] = res["state"]
            _atomic_write(ckpt_path, checkpoint)
            results[m] = res
            continue
        rng = np.random.default_rng(children[m])
        search_state = state["state"] if state else None
        if m == "anneal":
            res = anneal(space, time_limit=budget, rng=rng, callback=cb, callback_every=0.5, target=target,
                         state=search_state)
        else:
            res = differential_evolution_search(space, time_limit=budget, rng=rng, callback=cb, target=target,
                                                state=search_state)
        show.show(m, res.fun, res.nfev, res.wall_time, res.evaluations_per_second, force=True)
        show.done()
        checkpoint["methods"][m] = {"kind": "search", "state": res.state}
        _atomic_write(ckpt_path, checkpoint)
        results[m] = res

    # certify the elite of every method with real witnesses
    witnesses: list[tuple[str, Witness]] = []
    summary_methods: dict[str, dict[str, Any]] = {}
    for m, res in results.items():
        if m == "z3":
            for k, w in enumerate(res["witnesses"]):
                witnesses.append((f"z3_{k}", w))
            summary_methods[m] = res["summary"]
            continue
        certified = []
        for k, cand in enumerate(res.elite[:3]):
            inst = candidate_to_instance(cand, space.memory)
            w = certify(inst, space.policy, found_by=f"hunt:{m}", seed=seed, rng=k, time_budget=certify_budget)
            witnesses.append((f"{m}_{k}", w))
            certified.append(w.certified_ratio)
        summary_methods[m] = {
            "search_best": res.fun, "certified": certified, "nfev": res.nfev, "nit": res.nit,
            "wall_time": res.wall_time, "evaluations_per_second": res.evaluations_per_second,
            "message": res.message,
        }
    files, counterexamples = [], []
    for label, w in witnesses:
        path = write_witness(w, out / f"witness_{label}.json")
        files.append(str(path))
        if w.policy == "svf" and w.instance.is_burst:
            bound = svf_theorem_bound(w.instance.alpha)
            if bound is not None and Fraction(w.policy_tel, w.witness_tel) > bound:
                counterexamples.append(str(path))
                print(f"\n!!! COUNTEREXAMPLE TO KONG ET AL. THM 3.2: SVF ratio >= {w.certified_ratio:.4f} > "
                      f"1 + 2/(1 - alpha) = {float(bound):.4f} (alpha = {w.instance.alpha}); witness {path} !!!\n",
                      file=sys.stderr)
    best_label, best = max(witnesses, key=lambda lw: lw[1].certified_ratio) if witnesses else (None, None)
    if best is not None:
        write_witness(best, out / "best_witness.json")
    csv_path, plot_path = _write_progress(out, results)
    total_nfev = sum(r.nfev if hasattr(r, "nfev") else r["summary"].get("queries", 0) for r in results.values())
    wall = sum(r.wall_time if hasattr(r, "wall_time") else r["summary"].get("wall_time", 0.0) for r in results.values())
    result = HuntResult(
        x=best.instance if best else None, fun=best.certified_ratio if best else float("nan"),
        status=0, message=f"best certified ratio from {best_label}" if best else "no witness found",
        nfev=total_nfev, wall_time=wall, methods=summary_methods, witnesses=files, counterexamples=counterexamples,
        plot=plot_path, csv=csv_path, space=space.to_dict(), seed=seed,
    )
    (out / "summary.json").write_text(json.dumps(result.to_dict(), indent=1) + "\n")
    return result


def _write_progress(out: Path, results: dict[str, Any]) -> tuple[str, str | None]:
    rows = []
    for m, res in results.items():
        history = res.history if hasattr(res, "history") else res["history"]
        for t, best, nfev in history:
            rows.append((m, float(t), float(best), int(nfev)))
    csv_path = out / "progress.csv"
    with csv_path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["method", "wall_time_s", "best_certified_ratio", "evaluations"])
        writer.writerows(rows)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return str(csv_path), None
    fig, ax = plt.subplots(figsize=(6, 4))
    for m in results:
        pts = sorted((t, b) for mm, t, b, _ in rows if mm == m)
        if pts:
            ax.step([p[0] for p in pts], [p[1] for p in pts], where="post", label=m)
    ax.set_xlabel("wall time (s)")
    ax.set_ylabel("best certified ratio")
    ax.legend()
    ax.grid(alpha=0.3)
    plot = out / "progress.png"
    fig.tight_layout()
    fig.savefig(plot, dpi=100)
    plt.close(fig)
    return str(csv_path), str(plot)


def candidate_from_instance(instance) -> Candidate:
    """Arrays of an instance (for seeding a search with a known instance)."""
    reqs = instance.requests
    return Candidate(np.array([r.arrival for r in reqs], np.int64), np.array([r.prompt for r in reqs], np.int64),
                     np.array([r.output for r in reqs], np.int64))
