"""A declarative Z3 specification of one scheduling step, and bounded equivalence with the code.

The specification (Kong et al., arXiv 2606.22327, Algorithm 1; Jaillet et al., arXiv
2502.07115, Algorithm 1) of one decision step ``t`` with memory ``M``, a running batch ``R``
of ``(s_r, x_r, e_r)`` (prompt, start, end) and a *set* of waiting requests ``i`` with
``(a_i, pos_i, s_i, o_i)`` (``pos_i`` the request's position in the instance):

* **order**: ``k`` precedes ``i`` (``k < i``) iff ``(key_k, a_k, pos_k)`` is lexicographically
  smaller, with ``key = 2*s*o + o^2 + o`` (twice the volume, ``svf``), ``o`` (``sjf``) or
  ``0`` (``fcfs``). Defined here, in Z3, independently of :mod:`geosched.reference_impl.policies`,
  under the registry's names (:data:`SPEC_KEYS` covers exactly the policies registered with
  the ``Z3`` capability; a test checks it).
* **check**: ``fits(i, S)`` iff ``forall t' > t: usage_R(t') + sum_{k in S + {i}} [t' <= t + o_k]
  (s_k + t' - t) <= M`` with ``usage_R(t') = sum_r [x_r < t' <= e_r] (s_r + t' - x_r)``.
* **strict** (head-of-line): ``admitted_i <-> (forall k < i: admitted_k) and fits(i, {k < i})``,
  i.e. the admitted set is the longest priority-ordered prefix each of whose members passes the
  check with the previously admitted ones added; the first misfit ends the scan.
* **backfill**: ``admitted_i <-> fits(i, {k < i : admitted_k})`` (misfits are skipped).

Within the bounds every request ends by ``t + H`` (``H`` = the largest output), so the
quantifier over ``t'`` is exactly the conjunction over ``t' = t+1 .. t+H``; the formula is
quantifier-free.

**Equivalence check.** :func:`check_policy_equivalence` enumerates every state within the
bounds, runs the simulator's own code path (``make_policy(name).keys`` + sort by ``(key,
arrival, position)`` + :func:`~geosched.reference_impl.admission.admission_step`) and checks that the
specification holds with the Python answer plugged in. Soundness: (1) Z3 proves, once per
shape (numbers of running and waiting requests), that the specification has *at most one*
admitted set for every state (for any key values, so for every policy); (2) for each state the
formula evaluated at the Python answer is true. Hence the Python answer *is* the specified
set. The per-state evaluation runs a Python function compiled from the Z3 formula's syntax
tree (about 50x faster than ``z3.simplify``); a seeded sample of states is re-evaluated by Z3
itself, and any state the compiled evaluator rejects is re-checked by Z3 and solved for the
specified set (reported with the state).

Example
-------
>>> result = check_policy_equivalence("svf", max_memory=5, max_running=1, max_waiting=2)
>>> result.status, result.states_checked > 0
('checked', True)
"""

from __future__ import annotations

import functools
import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from geosched.errors import SolverError, UnknownNameError, ValidationError
from geosched.reference_impl.admission import admission_step
from geosched.reference_impl.model import Instance, Request, instance_to_dict
from geosched.reference_impl.policies import Policy, make_policy
from geosched.reference_impl.z3model import held_tokens, usage
from geosched.results import Result

__all__ = [
    "SPEC_KEYS",
    "Bounds",
    "State",
    "StepSpec",
    "EquivalenceResult",
    "build_spec",
    "prove_unique",
    "spec_admitted",
    "python_order",
    "python_admitted",
    "enumerate_states",
    "check_policy_equivalence",
    "compile_formula",
    "RunSpecCheck",
    "check_runs_against_spec",
    "spec_key",
    "onebit_spec_parameters",
]

# Twice the volume keeps the SVF key integral without division; the order is the same.
SPEC_KEYS: dict[str, Callable[[z3.ArithRef, z3.ArithRef], z3.ArithRef]] = {
    "svf": lambda s, o: 2 * s * o + o * o + o,
    "sjf": lambda s, o: o,
    "fcfs": lambda s, o: z3.IntVal(0),
}

Admission = Callable[..., list[int]]
# 1-bit SVF (Kong et al., Sec. 4, Thm. 3.5), with its parameters in the name, as the registry's spec string
# "svf1:theta=T,short_length=O0,long_length=O1": the class is short iff o <= theta, the key is twice the proxy
# volume 2 s O + O^2 + O with O = O_0 (short) or O_1 (long). The class bit is read from the TRUE output here,
# and the forward-looking check uses the true lengths: the simulated 1-bit SVF is exactly this (oracle
# class bits; admission by exact lengths), and the Thm. 3.3/3.5 rows say so in their hypotheses.
ONEBIT_PARAMETERS = ("theta", "short_length", "long_length")


def onebit_spec_parameters(name: str) -> tuple[int, int, int] | None:
    """``(theta, O_0, O_1)`` of a 1-bit SVF spec name ``"svf1:theta=..,short_length=..,long_length=.."``
    (all three given, integers >= 1); ``None`` for any other name.

    >>> onebit_spec_parameters("svf1:theta=2,short_length=1,long_length=4"), onebit_spec_parameters("svf")
    ((2, 1, 4), None)
    """
    head, _, tail = name.partition(":")
    if head != "svf1" or not tail:
        return None
    values: dict[str, int] = {}
    for item in tail.split(","):
        key, _, value = item.partition("=")
        if key not in ONEBIT_PARAMETERS or not value.isdigit() or int(value) < 1:
            return None
        values[key] = int(value)
    if set(values) != set(ONEBIT_PARAMETERS):
        return None
    return values["theta"], values["short_length"], values["long_length"]


def spec_key(name: str) -> Callable[[z3.ArithRef, z3.ArithRef], z3.ArithRef]:
    """The specification's key for ``name``: :data:`SPEC_KEYS`, or 1-bit SVF with explicit parameters."""
    if name in SPEC_KEYS:
        return SPEC_KEYS[name]
    parameters = onebit_spec_parameters(name)
    if parameters is None:
        raise UnknownNameError("spec policy", name, [*SPEC_KEYS, "svf1:theta=T,short_length=A,long_length=B"])
    theta, short, long_ = parameters

    def key(s: z3.ArithRef, o: z3.ArithRef) -> z3.ArithRef:
        proxy = z3.If(o <= theta, z3.IntVal(short), z3.IntVal(long_))
        return 2 * s * proxy + proxy * proxy + proxy

    return key


@dataclass(frozen=True)
class Bounds:
    """The finite state space of the equivalence check."""

    max_memory: int = 5  # M ranges over min_memory..max_memory
    min_memory: int = 1  # smallest M
    step: int = 2  # the decision step t; starts range over 0..t (ages 0..t)
    max_running: int = 2  # running batches of 0..max_running requests (multisets)
    max_waiting: int = 3  # waiting sets of 0..max_waiting requests (ids w0, w1, ... in all orders)
    max_prompt: int = 1  # prompts 0..max_prompt
    max_output: int = 3  # outputs 1..max_output (running: end - start <= max_output)
    max_arrival: int = 1  # waiting arrivals 0..max_arrival (<= step)

    def validate(self) -> None:
        """Raise :class:`ValidationError` naming the first bad field."""
        for name in ("max_memory", "min_memory", "max_output"):
            if getattr(self, name) < 1:
                raise ValidationError(name, getattr(self, name), "must be >= 1")
        for name in ("step", "max_running", "max_waiting", "max_prompt", "max_arrival"):
            if getattr(self, name) < 0:
                raise ValidationError(name, getattr(self, name), "must be >= 0")
        if self.min_memory > self.max_memory:
            raise ValidationError("min_memory", self.min_memory, f"must be <= max_memory {self.max_memory}")
        if self.max_waiting > 10:
            raise ValidationError("max_waiting", self.max_waiting, "must be <= 10 (ids compare as strings)")
        if self.max_arrival > self.step:
            raise ValidationError("max_arrival", self.max_arrival, f"must be <= step {self.step}")

    def to_dict(self) -> dict[str, int]:
        """Plain dictionary of the bounds."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class State:
    """One scheduling state: memory, step, running batch, waiting set."""

    memory: int  # M
    step: int  # t
    running: tuple[tuple[int, int, int], ...]  # (prompt, start, end), end > step
    waiting: tuple[tuple[int, int, int], ...]  # (arrival, prompt, output); request i has id f"w{i}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {
            "memory": self.memory,
            "step": self.step,
            "running": [{"prompt": s, "start": x, "end": e} for s, x, e in self.running],
            "waiting": [{"id": f"w{i}", "arrival": a, "prompt": s, "output": o}
                        for i, (a, s, o) in enumerate(self.waiting)],
        }


@dataclass(frozen=True)
class StepSpec:
    """The specification formula for one shape, with its variables."""

    policy: str  # spec order: svf / sjf / fcfs
    backfill: bool  # admission rule
    n_running: int  # number of running requests
    n_waiting: int  # number of waiting requests
    horizon: int  # H: every request ends by t + H
    formula: z3.BoolRef  # domain AND order AND admission rule
    rule: z3.BoolRef  # the admission rule alone, keys as free variables
    domain: z3.BoolRef  # validity of a state of this shape
    memory: z3.ArithRef
    step: z3.ArithRef
    running: tuple[tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef], ...]  # (s, x, e)
    waiting: tuple[tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef], ...]  # (a, id, s, o)
    keys: tuple[z3.ArithRef, ...]  # key variables
    admitted: tuple[z3.BoolRef, ...]  # admitted flags

    def assignment(self, state: State, admitted: set[int]) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        """Substitution pairs fixing this spec's variables to ``state`` and ``admitted``
        (keys are left free: the formula defines them)."""
        pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = [(self.memory, z3.IntVal(state.memory)),
                                                      (self.step, z3.IntVal(state.step))]
        for variables, values in zip(self.running, state.running):
            pairs += [(v, z3.IntVal(x)) for v, x in zip(variables, values)]
        for i, (variables, (a, s, o)) in enumerate(zip(self.waiting, state.waiting)):
            pairs += [(v, z3.IntVal(x)) for v, x in zip(variables, (a, i, s, o))]
        pairs += [(flag, z3.BoolVal(i in admitted)) for i, flag in enumerate(self.admitted)]
        return pairs


def build_spec(policy: str, n_running: int, n_waiting: int, horizon: int, *, backfill: bool = False) -> StepSpec:
    """The Z3 specification of one step for a shape (see the module docstring).

    >>> spec = build_spec("svf", 1, 2, 3)
    >>> spec.n_waiting, len(spec.admitted)
    (2, 2)
    """
    key_of = spec_key(policy)
    if horizon < 1:
        raise ValidationError("horizon", horizon, "must be >= 1")
    memory, step = z3.Ints("M t")
    running = tuple(tuple(z3.Ints(f"s_r{r} x_r{r} e_r{r}")) for r in range(n_running))
    waiting = tuple(tuple(z3.Ints(f"a_{i} pos_{i} s_{i} o_{i}")) for i in range(n_waiting))
    keys = tuple(z3.Int(f"key_{i}") for i in range(n_waiting))
    admitted = tuple(z3.Bool(f"admitted_{i}") for i in range(n_waiting))

    domain = [memory >= 1, step >= 0]
    for s, x, e in running:
        domain += [s >= 0, x >= 0, x <= step, e > step, e <= step + horizon]
    for a, ident, s, o in waiting:
        domain += [a >= 0, a <= step, ident >= 0, s >= 0, o >= 1, o <= horizon]
    if n_waiting > 1:
        domain.append(z3.Distinct(*[w[1] for w in waiting]))

    def precedes(k: int, i: int) -> z3.BoolRef:
        (ak, idk, _, _), (ai, idi, _, _) = waiting[k], waiting[i]
        return z3.Or(keys[k] < keys[i],
                     z3.And(keys[k] == keys[i], z3.Or(ak < ai, z3.And(ak == ai, idk < idi))))

    def usage_running(future: z3.ArithRef) -> z3.ArithRef:
        return usage(running, future)  # the shared memory encoding; running triples are (s, x, e)

    def candidate_usage(k: int, future: z3.ArithRef) -> z3.ArithRef:
        _, _, s, o = waiting[k]  # a candidate would start at t and run (t, t + o]
        return held_tokens(s, step, step + o, future)

    def fits(i: int, included: list[z3.BoolRef]) -> z3.BoolRef:
        # forall t' > t, expanded: every term is 0 after t + H within the domain
        constraints = []
        for d in range(1, horizon + 1):
            future = step + d
            total = usage_running(future) + candidate_usage(i, future) + z3.Sum(
                [z3.If(inc, candidate_usage(k, future), 0) for k, inc in enumerate(included) if k != i]
                + [z3.IntVal(0)])
            constraints.append(total <= memory)
        return z3.And(constraints)

    rule = []
    for i in range(n_waiting):
        before = [precedes(k, i) if k != i else z3.BoolVal(False) for k in range(n_waiting)]
        if backfill:
            included = [z3.And(before[k], admitted[k]) for k in range(n_waiting)]
            rule.append(admitted[i] == fits(i, included))
        else:
            all_before = z3.And([z3.Implies(before[k], admitted[k]) for k in range(n_waiting) if k != i]
                                + [z3.BoolVal(True)])
            rule.append(admitted[i] == z3.And(all_before, fits(i, before)))
    key_definition = [keys[i] == key_of(w[2], w[3]) for i, w in enumerate(waiting)]
    domain_f = z3.And(domain)
    rule_f = z3.And(rule + [z3.BoolVal(True)])
    return StepSpec(policy, backfill, n_running, n_waiting, horizon,
                    z3.And(domain_f, z3.And(key_definition + [z3.BoolVal(True)]), rule_f),
                    rule_f, domain_f, memory, step, running, waiting, keys, admitted)


# Z3 resource limits (its own work units, the same on every machine, so no word depends on machine load): the
# largest uniqueness query measured (3 running, 4 waiting, horizon 8, backfill) needs 5.2M units (0.3 s)
UNIQUE_RLIMIT = 400_000_000
ADMITTED_RLIMIT = 50_000_000


def _limit(solver: z3.Solver, timeout_ms: int, rlimit: int | None) -> None:
    if rlimit is None:
        solver.set("timeout", timeout_ms)
    else:
        solver.set("rlimit", rlimit)


def prove_unique(spec: StepSpec, timeout_ms: int = 60_000, rlimit: int | None = UNIQUE_RLIMIT) -> tuple[str, float]:
    """Z3: for every valid state of this shape and *any* key values, the admission rule has
    at most one solution. Returns ``("proved" | "refuted" | "unknown", seconds)``. The call is
    limited to ``rlimit`` Z3 work units (deterministic), or to ``timeout_ms`` when ``rlimit`` is None."""
    other = [z3.Bool(f"other_admitted_{i}") for i in range(spec.n_waiting)]
    rule_other = z3.substitute(spec.rule, *zip(spec.admitted, other)) if other else spec.rule
    solver = z3.Solver()
    _limit(solver, timeout_ms, rlimit)
    solver.add(spec.domain, spec.rule, rule_other, z3.Or([a != b for a, b in zip(spec.admitted, other)]
                                                         + [z3.BoolVal(False)]))
    begin = time.perf_counter()
    outcome = solver.check()
    elapsed = time.perf_counter() - begin
    status = "proved" if outcome == z3.unsat else "refuted" if outcome == z3.sat else "unknown"
    return status, elapsed


def spec_admitted(spec: StepSpec, state: State, timeout_ms: int = 10_000,
                  rlimit: int | None = ADMITTED_RLIMIT) -> set[int] | None:
    """Solve the specification for ``state``: the specified admitted set (``None`` if Z3
    fails or the state is outside the spec's domain); limits as in :func:`prove_unique`."""
    solver = z3.Solver()
    _limit(solver, timeout_ms, rlimit)
    solver.add(spec.formula)
    solver.add([var == value for var, value in spec.assignment(state, set())[: -spec.n_waiting or None]])
    if solver.check() != z3.sat:
        return None
    model = solver.model()
    return {i for i, flag in enumerate(spec.admitted) if z3.is_true(model.eval(flag, model_completion=True))}


def _z3_holds(spec: StepSpec, state: State, admitted: set[int]) -> bool:
    value = z3.simplify(z3.substitute(spec.formula, *spec.assignment(state, admitted)))
    # keys stay symbolic in the substitution: solve for them
    if z3.is_true(value):
        return True
    if z3.is_false(value):
        return False
    solver = z3.Solver()
    solver.add(value)
    return solver.check() == z3.sat


def python_order(policy: Policy, memory: int, waiting: Sequence[tuple[int, int, int]]) -> list[int]:
    """The simulator's priority order of ``waiting`` (``(arrival, prompt, output)``, at
    positions ``0, 1, ...``): ``policy.keys`` on the instance, then sort by ``(key, arrival,
    position)``."""
    requests = [Request(f"w{i}", a, s, o) for i, (a, s, o) in enumerate(waiting)]
    keys = policy.keys(Instance(memory, requests), [o for _, _, o in waiting])
    return sorted(range(len(requests)), key=lambda i: (keys[i], requests[i].arrival, i))


def python_admitted(policy: Policy, state: State, *, backfill: bool = False,
                    admission: Admission = admission_step, order: Sequence[int] | None = None) -> set[int]:
    """The simulator's code path: :func:`python_order`, then ``admission(memory, step,
    running, ordered waiting, backfill=)``; returns the admitted waiting indices. ``order``
    may be passed in when already computed for the same memory and waiting set."""
    if order is None:
        order = python_order(policy, state.memory, state.waiting)
    positions = admission(state.memory, state.step, list(state.running),
                          [(state.waiting[i][1], state.waiting[i][2]) for i in order], backfill=backfill)
    return {order[p] for p in positions}


def _running_items(bounds: Bounds, memory: int) -> list[tuple[int, int, int]]:
    t = bounds.step
    return [(s, x, e) for s in range(bounds.max_prompt + 1) for x in range(t + 1)
            for e in range(t + 1, x + bounds.max_output + 1) if s + e - x <= memory]


def _batch_feasible(batch: Sequence[tuple[int, int, int]], memory: int, step: int, horizon: int) -> bool:
    return all(sum(s + u - x for s, x, e in batch if x < u <= e) <= memory
               for u in range(step + 1, step + horizon + 1))


def enumerate_states(bounds: Bounds) -> Iterator[State]:
    """Every state within ``bounds``: running batches are multisets (feasible at every future
    step, as in any reachable state), waiting requests are ordered tuples, so every assignment
    of ids, i.e. every tie-break, occurs."""
    bounds.validate()
    t = bounds.step
    for memory in range(bounds.min_memory, bounds.max_memory + 1):
        run_items = _running_items(bounds, memory)
        wait_items = [(a, s, o) for a in range(bounds.max_arrival + 1) for s in range(bounds.max_prompt + 1)
                      for o in range(1, bounds.max_output + 1) if s + o <= memory]
        for n_run in range(bounds.max_running + 1):
            for batch in itertools.combinations_with_replacement(run_items, n_run):
                if not _batch_feasible(batch, memory, t, bounds.max_output):
                    continue
                for n_wait in range(bounds.max_waiting + 1):
                    for waiting in itertools.product(wait_items, repeat=n_wait):
                        yield State(memory, t, batch, waiting)


@dataclass(frozen=True)
class EquivalenceResult(Result):
    """The outcome of a bounded equivalence check (scipy-like result object)."""

    STATUSES = ("checked", "refuted", "unknown")
    SUCCESS = ("checked",)

    policy: str  # the Python policy's name
    spec_policy: str  # the order the specification uses
    backfill: bool  # admission rule checked
    status: str  # "checked" / "refuted" / "unknown"
    states_checked: int  # states evaluated (all of them unless refuted early)
    bounds: dict[str, int]  # the state space
    wall_time: float  # seconds
    uniqueness: dict[str, Any]  # per shape "r<R>w<W>": status and seconds of the Z3 uniqueness proof
    z3_cross_checked: int  # states also evaluated by Z3 itself (seeded sample)
    counterexample: dict[str, Any] | None  # first differing state, Python's and the spec's admitted ids
    message: str  # one line
    by_shape: dict[str, int] = field(default_factory=dict)  # states per shape

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {
            "policy": self.policy,
            "spec_policy": self.spec_policy,
            "backfill": self.backfill,
            "status": self.status,
            "states_checked": self.states_checked,
            "bounds": dict(self.bounds),
            "success": self.success,
            "wall_time": round(self.wall_time, 3),
            "uniqueness": dict(self.uniqueness),
            "z3_cross_checked": self.z3_cross_checked,
            "counterexample": self.counterexample,
            "message": self.message,
            "by_shape": dict(self.by_shape),
        }


THOROUGH = Bounds(max_memory=8, max_running=2, max_waiting=3, max_prompt=2, max_output=3, step=2, max_arrival=1)


def check_policy_equivalence(
    policy: str | Policy,
    *,
    backfill: bool = False,
    spec_policy: str | None = None,
    admission: Admission = admission_step,
    thorough: bool = False,
    bounds: Bounds | None = None,
    z3_sample: int = 200,
    seed: int = 0,
    timeout_ms: int = 60_000,
    **bound_overrides: int,
) -> EquivalenceResult:
    """Check that the Python step admits exactly the specified set on every state in bounds.

    Parameters
    ----------
    policy:
        A registered policy name (``svf``, ``sjf``, ``fcfs``) or a policy object with
        ``name`` and ``keys(instance, predicted)`` (e.g. a deliberately wrong one).
    backfill:
        Check the backfilling rule instead of strict head-of-line.
    spec_policy:
        The specification's order; default: the policy's name.
    admission:
        The admission function under test (default: the simulator's ``admission_step``).
    thorough, bounds, **bound_overrides:
        The state space: :class:`Bounds` defaults, :data:`THOROUGH` with ``thorough=True``,
        an explicit ``bounds``, then keyword overrides such as ``max_memory=5``.
    z3_sample, seed:
        How many states (seeded random sample) are also evaluated by Z3's simplifier.
    """
    begin = time.perf_counter()
    policy_obj = make_policy(policy) if isinstance(policy, str) else policy
    spec_name = spec_policy or (policy if isinstance(policy, str) else policy_obj.name)
    spec_key(spec_name)  # an unknown name fails here, listing the known ones
    chosen = _resolve_bounds(thorough, bounds, bound_overrides)
    specs, evaluators, uniqueness = _specs_by_shape(spec_name, chosen, backfill, timeout_ms)
    checked, cross, by_shape, counterexample = _check_states(policy_obj, chosen, specs, evaluators, backfill,
                                                             admission, z3_sample, seed)
    unique_ok = all(u["status"] == "proved" for u in uniqueness.values())
    if counterexample is not None:
        status = "refuted"
        message = (f"state {checked}: Python admits {counterexample['python_admitted']}, "
                   f"the specification {counterexample['spec_admitted']}")
    elif not unique_ok:
        status = "unknown"
        message = "every state satisfies the spec, but uniqueness of the specified set was not proved"
    else:
        status = "checked"
        message = f"{checked} states: Python's admitted set equals the specified one"
    return EquivalenceResult(policy_obj.name, spec_name, backfill, status, checked, chosen.to_dict(),
                             time.perf_counter() - begin, uniqueness, cross, counterexample, message, by_shape)


def _resolve_bounds(thorough: bool, bounds: Bounds | None, overrides: dict[str, int]) -> Bounds:
    chosen = bounds or (THOROUGH if thorough else Bounds())
    if overrides:
        unknown = set(overrides) - set(Bounds.__dataclass_fields__)
        if unknown:
            raise UnknownNameError("bound", sorted(unknown)[0], list(Bounds.__dataclass_fields__))
        chosen = Bounds(**{**chosen.to_dict(), **overrides})
    chosen.validate()
    return chosen


def _specs_by_shape(spec_name: str, chosen: Bounds, backfill: bool, timeout_ms: int) -> tuple[dict, dict, dict]:
    """Per shape (running, waiting): the specification, its compiled evaluator, and Z3's proof
    that the specified admitted set is unique."""
    specs: dict[tuple[int, int], StepSpec] = {}
    evaluators: dict[tuple[int, int], Callable[[list[int]], bool]] = {}
    uniqueness: dict[str, Any] = {}
    for n_run in range(chosen.max_running + 1):
        for n_wait in range(chosen.max_waiting + 1):
            spec = build_spec(spec_name, n_run, n_wait, chosen.max_output, backfill=backfill)
            status, seconds = prove_unique(spec, timeout_ms)
            uniqueness[f"r{n_run}w{n_wait}"] = {"status": status, "seconds": round(seconds, 4)}
            specs[n_run, n_wait] = spec
            evaluators[n_run, n_wait] = compile_formula(spec.formula, _variable_order(spec), spec.keys)
    return specs, evaluators, uniqueness


def _check_states(policy_obj: Policy, chosen: Bounds, specs: dict, evaluators: dict, backfill: bool,
                  admission: Admission, z3_sample: int, seed: int) -> tuple[int, int, dict[str, int], dict | None]:
    """Every state in bounds: the Python answer plugged into the specification; a seeded sample
    (and every failure) re-evaluated by Z3 itself. Stops at the first counterexample."""
    total = sum(1 for _ in enumerate_states(chosen))
    sampled = set(random.Random(seed).sample(range(total), min(z3_sample, total)))
    orders: dict[tuple[int, tuple[tuple[int, int, int], ...]], list[int]] = {}
    checked = 0
    cross = 0
    by_shape: dict[str, int] = {}
    for state in enumerate_states(chosen):
        shape = (len(state.running), len(state.waiting))
        spec = specs[shape]
        # the policy's keys are a function of (instance, predictions): cache per memory and waiting set
        order_key = (state.memory, state.waiting)
        order = orders.get(order_key)
        if order is None:
            if len(orders) > 200_000:
                orders.clear()
            order = orders[order_key] = python_order(policy_obj, state.memory, state.waiting)
        answer = python_admitted(policy_obj, state, backfill=backfill, admission=admission, order=order)
        holds = evaluators[shape](_values(spec, state, answer))
        by_shape[f"r{shape[0]}w{shape[1]}"] = by_shape.get(f"r{shape[0]}w{shape[1]}", 0) + 1
        if checked in sampled or not holds:
            cross += 1
            if _z3_holds(spec, state, answer) != holds:
                raise SolverError(f"compiled evaluator and Z3 disagree on state {state.to_dict()}")
        checked += 1
        if not holds:
            expected = spec_admitted(spec, state)
            return checked, cross, by_shape, {
                "state": state.to_dict(),
                "python_admitted": sorted(f"w{i}" for i in answer),
                "spec_admitted": None if expected is None else sorted(f"w{i}" for i in expected),
            }
    return checked, cross, by_shape, None


# ---------------------------------------------------------------- compiled evaluation
def _variable_order(spec: StepSpec) -> list[z3.ExprRef]:
    names: list[z3.ExprRef] = [spec.memory, spec.step]
    for triple in spec.running:
        names += list(triple)
    for quad in spec.waiting:
        names += list(quad)
    names += list(spec.admitted)
    return names


def _values(spec: StepSpec, state: State, admitted: set[int]) -> list[int]:
    values = [state.memory, state.step]
    for triple in state.running:
        values += list(triple)
    for i, (a, s, o) in enumerate(state.waiting):
        values += [a, i, s, o]
    values += [1 if i in admitted else 0 for i in range(spec.n_waiting)]
    return values


_BINARY = {
    z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "==",
    z3.Z3_OP_IFF: "==",
}
_NARY = {z3.Z3_OP_ADD: "+", z3.Z3_OP_MUL: "*", z3.Z3_OP_SUB: "-"}


def compile_formula(formula: z3.BoolRef, variables: Sequence[z3.ExprRef],
                    defined: Sequence[z3.ArithRef] = ()) -> Callable[[Sequence[int]], bool]:
    """A Python function evaluating a quantifier-free Z3 formula at concrete values.

    ``variables`` fixes the argument order (booleans as 0/1). ``defined`` variables are not
    arguments: the formula must contain a conjunct ``var == expr`` for each, which is
    evaluated first and substituted (this is how the spec's keys are defined). Supported:
    and, or, not, implies, if-then-else, +, -, *, unary minus, comparisons, integer and
    boolean constants; anything else raises :class:`SolverError`.
    """
    index = {v.get_id(): k for k, v in enumerate(variables)}
    definitions: dict[int, str] = {}
    defined_ids = {d.get_id() for d in defined}

    memo: dict[int, str] = {}

    def emit(e: z3.ExprRef) -> str:
        key = e.get_id()
        if key not in memo:
            memo[key] = emit_new(e)
        return memo[key]

    def emit_new(e: z3.ExprRef) -> str:
        if z3.is_int_value(e):
            return str(e.as_long())
        if z3.is_true(e):
            return "True"
        if z3.is_false(e):
            return "False"
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            if e.get_id() in index:
                return f"v[{index[e.get_id()]}]"
            if e.get_id() in defined_ids:
                return f"d{e.get_id()}"
            raise SolverError(f"formula variable {e} has no value")
        kind = e.decl().kind()
        args = [emit(a) for a in e.children()]
        if kind == z3.Z3_OP_AND:
            return "(" + " and ".join(args) + ")" if args else "True"
        if kind == z3.Z3_OP_OR:
            return "(" + " or ".join(args) + ")" if args else "False"
        if kind == z3.Z3_OP_NOT:
            return f"(not {args[0]})"
        if kind == z3.Z3_OP_IMPLIES:
            return f"((not {args[0]}) or {args[1]})"
        if kind == z3.Z3_OP_ITE:
            return f"({args[1]} if {args[0]} else {args[2]})"
        if kind == z3.Z3_OP_UMINUS:
            return f"(-{args[0]})"
        if kind == z3.Z3_OP_DISTINCT:
            return f"(len({{{', '.join(args)}}}) == {len(args)})"
        if kind in _BINARY:
            return f"({args[0]} {_BINARY[kind]} {args[1]})"
        if kind in _NARY:
            return "(" + f" {_NARY[kind]} ".join(args) + ")"
        raise SolverError(f"compile_formula: unsupported operator {e.decl().name()} in {e}")

    conjuncts = list(_flatten_and(formula))
    lines = []
    rest = []
    for c in conjuncts:
        sides = c.children() if z3.is_eq(c) else []
        if sides and sides[1].get_id() in defined_ids and sides[0].get_id() not in defined_ids:
            sides = sides[::-1]
        if sides and sides[0].get_id() in defined_ids and sides[0].get_id() not in definitions:
            definitions[sides[0].get_id()] = emit(sides[1])
            lines.append(f"    d{sides[0].get_id()} = {definitions[sides[0].get_id()]}")
        else:
            rest.append(c)
    missing = defined_ids - set(definitions)
    if missing:
        raise SolverError("compile_formula: a defined variable has no defining conjunct")
    body = " and ".join(emit(c) for c in rest) or "True"
    source = "def evaluate(v):\n" + "\n".join(lines) + f"\n    return bool({body})\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<compiled z3 formula>", "exec"), namespace)  # noqa: S102 - generated from a Z3 AST
    return namespace["evaluate"]


def _flatten_and(formula: z3.BoolRef) -> Iterator[z3.BoolRef]:
    if z3.is_and(formula):
        for child in formula.children():
            yield from _flatten_and(child)
    else:
        yield formula


# ---------------------------------------------------------------- every decision of a simulated run
@dataclass(frozen=True)
class RunSpecCheck(Result):
    """The specification evaluated at every decision step of simulated runs (``status``:
    ``"held"``, ``"violated"``)."""

    STATUSES = ("held", "violated", "unknown")
    SUCCESS = ("held",)

    status: str  # "unknown" when Z3 did not prove, for some shape used, that the specified set is unique
    message: str  # one line
    wall_time: float  # seconds
    policy: str  # the spec's policy name
    backfill: bool  # admission rule
    runs: int  # simulated runs checked
    decisions: int  # decision steps checked (every step with a waiting request)
    counterexample: dict[str, Any] | None  # the first step at which the run and the spec differ


def check_runs_against_spec(instances: Sequence[Instance], policy: str, *, backfill: bool = False,
                            horizon: int | None = None) -> RunSpecCheck:
    """Simulate ``policy`` on every instance and check, at *every* step ``t`` at which some arrived
    request waits, that the set the simulator started at ``t`` is the one the specification admits
    in the state the run was in (running batch, waiting set, positions as tie-breaks).

    This checks the simulator end to end: the admission scan it calls at each decision, its
    incremental forward-check state, and its event-driven jumps (a step skipped by the simulator
    is a step at which the specification must admit nothing).

    >>> from geosched.reference_impl.model import burst_instance
    >>> check_runs_against_spec([burst_instance(12, [(6, 3), (1, 5)])], "svf").status
    'held'
    """
    from geosched.reference_impl.simulation import simulate

    begin = time.perf_counter()
    spec_key(policy)  # an unknown name fails here, listing the known ones
    height = horizon or max((r.output for inst in instances for r in inst.requests), default=1)
    compiled: dict[tuple[int, int], tuple[StepSpec, Callable[[list[int]], bool]]] = {}
    unique: dict[tuple[int, int], str] = {}
    decisions = 0
    for count, instance in enumerate(instances, start=1):
        starts = simulate(instance, policy, backfill=backfill).starts
        for t, values, shape, admitted in _decision_states(instance, starts):
            if shape not in compiled:
                spec = build_spec(policy, shape[0], shape[1], height, backfill=backfill)
                compiled[shape] = (spec, compile_formula(spec.formula, _variable_order(spec), spec.keys))
                unique[shape] = _unique(shape[0], shape[1], height, backfill)
            decisions += 1
            if not compiled[shape][1](values):
                return RunSpecCheck("violated", f"{policy}: run {count}, step {t}: the simulator started "
                                    f"{sorted(admitted)}, which the specification does not admit",
                                    time.perf_counter() - begin, policy, backfill, count, decisions,
                                    {"instance": instance_to_dict(instance), "starts": starts, "step": t,
                                     "started_at_step": sorted(admitted)})
    open_shapes = sorted(shape for shape, status in unique.items() if status != "proved")
    if open_shapes:
        return RunSpecCheck("unknown", f"{policy}: every step satisfies the specification, but uniqueness of the "
                            f"specified set was not proved for shapes {open_shapes}", time.perf_counter() - begin,
                            policy, backfill, len(instances), decisions, None)
    return RunSpecCheck("held", f"{policy}: the specification admits exactly what the simulator started at "
                        f"{decisions} decision steps of {len(instances)} runs", time.perf_counter() - begin, policy,
                        backfill, len(instances), decisions, None)


@functools.cache
def _unique(n_running: int, n_waiting: int, horizon: int, backfill: bool) -> str:
    """Z3's uniqueness proof for a shape; the rule leaves the keys free, so it holds for every policy."""
    return prove_unique(build_spec("fcfs", n_running, n_waiting, horizon, backfill=backfill), 20_000)[0]


def _decision_states(instance: Instance, starts: dict[str, int]) -> Iterator[tuple[int, list[int], tuple, set]]:
    """``(t, values for the compiled spec, (n_running, n_waiting), ids started at t)`` for every step
    ``t`` with a waiting request, rebuilt from the start times alone (exact lengths)."""
    requests = instance.requests
    steps = sorted({max(r.arrival, 0) for r in requests} | set(range(min(r.arrival for r in requests),
                                                                     max(starts.values()) + 1)))
    for t in steps:
        waiting = [(k, r) for k, r in enumerate(requests) if r.arrival <= t and starts[r.id] >= t]
        if not waiting:
            continue
        running = [r for r in requests if starts[r.id] < t < starts[r.id] + r.output]
        values = [instance.memory, t]
        for r in running:
            values += [r.prompt, starts[r.id], starts[r.id] + r.output]
        for k, r in waiting:
            values += [r.arrival, k, r.prompt, r.output]
        values += [1 if starts[r.id] == t else 0 for _, r in waiting]
        yield t, values, (len(running), len(waiting)), {r.id for _, r in waiting if starts[r.id] == t}
