"""The ledger's Coq evidence: a claim (or a step of its derivation) proved in Coq for every ``n``, as pinned.

One method per citable Coq theorem, ``coq:THEOREM`` (:data:`COQ_METHODS`: every ``Theorem`` and
``Corollary`` of ``verify/coq``, read from the sources; merged into the ledger's methods). A row cites
theorems **by name** (``Claim.coq`` for the steps of its derivation, ``Claim.coq_whole`` for the theorems
that together state the whole claim); what each theorem states is written once, in the reviewed file
``verify/coq/statements.txt`` (:mod:`geosched.verify.coq_pinned`), with every definition of the development
the statement uses. The method says ``proved`` and names its theorem **only** when

* the development was compiled (this run, or the build cache keyed by the sources, the tools' versions and
  the build method: :mod:`geosched.verify.coq_engine`), the theorem's file among those that compiled, and
  ``coqchk`` accepted its module; the message says where: ``Coq, every n: thm32_svf_competitive
  (compiled this run)`` or ``... (build cache <hash>)``;
* coqc's output for it equals the pinned file (:func:`geosched.verify.coq_pinned.problems`, this method's
  verdict predicate): its statement, every definition the statement reaches, and ``Print Assumptions`` saying
  "Closed under the global context". A difference **refutes** the row, naming the theorem or the definition;
  an ``Admitted`` or an axiom refutes exactly the rows that cite a theorem resting on it, by name;
* for the row's ``coq_constant`` theorem (where the row has a formal content: its derivation's bound), the
  statement's conclusion, read as a bound on TEL(ALG)/TEL(S), equals that bound (:func:`constant_problems`):
  a whole-claim theorem swapped, or changed together with its pinned copy, is refuted by the row's own
  constant.

The same run plants a defect of each kind and judges it with the same predicates (the canary: one constant of
the statement changed, a definition it uses changed, an axiom in its assumptions; for the constant theorem,
the statement and its pinned copy changed together); a predicate that accepts one makes the evidence
``vacuous``. Without coqc it is ``unknown`` (``coqc not installed``); a file that did not compile, a theorem
that is not pinned, or no build in the cache (``--quick``) is ``unknown`` too, never ``proved``.

The evidence has kind ``"coq"``: it *covers* the derivation steps that name ``coq:THEOREM`` in their
``covered_by``; a row whose ``coq_whole`` theorems are all proved is proved as a whole
(:func:`whole_claim_proofs`, the ledger's rule 4).

Example
-------
>>> theorem_of("coq:thm32_svf_competitive"), theorem_of("core:prop31_work")
('thm32_svf_competitive', None)
>>> sorted(read_ratio("forall M P, (M - P) * Model.tel rs (Svf.svf M rs) <= (3 * M - P) * Model.tel rs xs").items())
[('ratio', (3*M - P)/(M - P))]
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
from pathlib import Path
from typing import Any

import sympy as sp

from geosched.theory.registry import DERIVATIONS
from geosched.verify import coq_compile, coq_engine, coq_pinned
from geosched.verify.evidence import Canary, Context, Evidence, declares_canary, plant

__all__ = ["COQ_METHODS", "COQ_BOUND", "CANARY", "coq_method_name", "theorem_of", "cited_theorems",
           "whole_claim_proofs", "start_build", "await_build", "stops_build_on_interrupt", "pinned", "read_ratio",
           "constant_problems", "plant_constant"]

COQ_BOUND = "every n (Coq)"  # the reach a closed Coq theorem gives
CANARY = "one constant of the statement changed, a definition it uses changed, an axiom in its assumptions"
_BUILD = "coq-build"  # the run's Coq build, in the ledger's Context cache


def coq_method_name(theorem: str) -> str:
    """``coq:THEOREM``, the ledger method (and the ``covered_by`` name) of a Coq theorem."""
    return f"coq:{theorem}"


def theorem_of(method: str) -> str | None:
    """The theorem of a ``coq:THEOREM`` name, else None.

    >>> theorem_of("coq:prop31_lower_bound"), theorem_of("coq:no_such_theorem")
    ('prop31_lower_bound', None)
    """
    return method[4:] if method.startswith("coq:") and method[4:] in coq_engine.THEOREMS else None


def cited_theorems(claim: Any) -> tuple[str, ...]:
    """The theorems ``claim`` cites (``coq``, then ``coq_whole``), by name."""
    return (*getattr(claim, "coq", ()), *getattr(claim, "coq_whole", ()))


def whole_claim_proofs(claim: Any, evidence: list[Evidence]) -> list[Evidence]:
    """The ``proved`` Coq evidence of every theorem of ``claim.coq_whole``, or ``[]`` unless all of them are
    there and proved (each proved evidence has matched the pinned file and the row's constant)."""
    wanted = list(getattr(claim, "coq_whole", ()))
    found = {e.data.get("theorem"): e for e in evidence if e.kind == "coq" and e.status == "proved"}
    return [found[t] for t in wanted] if wanted and all(t in found for t in wanted) else []


def pinned() -> coq_pinned.Pinned:
    """The pinned statements file, read once per version of it (its hash is in every Coq evidence's data)."""
    path = coq_pinned.PINNED_FILE
    stamp = path.stat().st_mtime_ns if path.exists() else 0
    return _pinned_at(str(path), stamp)


@functools.lru_cache(maxsize=4)
def _pinned_at(path: str, stamp: int) -> coq_pinned.Pinned:
    return coq_pinned.read(Path(path))


# --------------------------------------------------------------------------- the build, in the background


def start_build(ctx: Context) -> Any:
    """Start the run's Coq build (or its cache read) in the background: the ledger calls it first, and the rows
    that cite no Coq theorem run while coqc compiles; the first ``coq:`` check waits for it (the wait is reported
    apart from checking time, never charged to a row). Returns the build's future."""
    return ctx.background(_BUILD, lambda: _read_or_build(ctx))


def await_build(ctx: Context) -> None:
    """Wait for the build :func:`start_build` started, outside any check's time limit (a first build may take
    minutes; the wait is counted apart from checking). A build that raised raises again in the check that reads
    it: an ``error`` there."""
    with contextlib.suppress(Exception):
        ctx.wait_for(_BUILD)


def stops_build_on_interrupt(run: Any) -> Any:
    """Decorate a function that may start the background build (the ledger's run): when SIGTERM or Ctrl-C ends it
    (a ``KeyboardInterrupt``, as the CLI raises both), the build's coqc processes are killed and its working folder
    removed before the exception goes on; the cache keeps what it had (a complete build or none)."""
    @functools.wraps(run)
    def stopping(*args: Any, **kwargs: Any) -> Any:
        try:
            return run(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit):
            coq_compile.stop_all()
            raise
    return stopping


def _read_or_build(ctx: Context) -> Any:
    # --quick never compiles (a clean build takes minutes): it reads the build cache or says it could not
    return coq_engine.build(cached_only=ctx.quick)


def _build(ctx: Context) -> tuple[Any, float]:
    result, elapsed = ctx.cached(_BUILD, lambda: _read_or_build(ctx))
    if elapsed:  # built (or read) now: the time waited for another process's build lock is not checking time
        waited = getattr(result, "lock_wait_seconds", 0.0)
        ctx.lock_wait += waited
        elapsed = max(elapsed - waited, 0.0)
    return result, elapsed


# --------------------------------------------------------------------------- the row's constant


_TEL_OF_S = "Model.tel rs xs"
_SUM_OUTPUTS = "Model.sumf Model.output rs"


def _conclusion(statement: str) -> str:
    """The statement after its last top-level ``->`` or ``,`` of a leading ``forall`` (parentheses respected)."""
    depth, cut = 0, 0
    for k, char in enumerate(statement):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and (statement.startswith("->", k) or (char == "," and statement.startswith("forall"))):
            cut = k + (2 if char == "-" else 1)
    return statement[cut:].strip()


def _atom(text: str, start: int) -> int:
    """The end of the application argument at ``start``: a parenthesised group or one word."""
    if text[start] != "(":
        return re.match(r"[\w'.]+", text[start:]).end() + start
    depth = 0
    for k in range(start, len(text)):
        depth += text[k] == "("
        depth -= text[k] == ")"
        if depth == 0:
            return k + 1
    raise ValueError("unbalanced parentheses")


def _expression(text: str, symbols: dict[str, Any], truncated: bool = False) -> Any:
    """``text`` (``+ - * / ( )``, numerals, names) as a sympy expression, each name a symbol (``symbols``' when
    given): names are replaced by placeholders first, so that a name like ``lambda`` is never read as Python.
    ``truncated``: ``a - b`` is Coq's subtraction on nat, ``Max(a - b, 0)``."""
    names = list(dict.fromkeys(re.findall(r"[A-Za-z_]\w*", text)))
    local = {f"_v{k}": symbols.get(name, sp.Symbol(name)) for k, name in enumerate(names)}
    coded = re.sub(r"[A-Za-z_]\w*", lambda m: f"_v{names.index(m.group(0))}", text)
    if not truncated:
        return sp.sympify(coded, locals=local)
    return _nat_term(ast.parse(coded.strip(), mode="eval").body, local)


def _nat_term(node: ast.AST, local: dict[str, Any]) -> Any:
    """A parsed nat term as sympy, its subtractions truncated at 0."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        a, b = _nat_term(node.left, local), _nat_term(node.right, local)
        return {ast.Add: a + b, ast.Sub: sp.Max(a - b, 0), ast.Mult: a * b, ast.Div: a / b}[type(node.op)]
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return sp.Integer(node.value)
    if isinstance(node, ast.Name) and node.id in local:
        return local[node.id]
    raise ValueError(f"not a nat term: {ast.dump(node)}")


def read_ratio(statement: str, truncated: bool = False) -> dict[str, Any]:
    """The bound a statement ``c * TEL(ALG) <= r * TEL(S) [+ e * sum(o)]`` gives on TEL(ALG)/TEL(S), in the
    statement's own variables: ``{"ratio": r/c}`` plus ``"omega"`` (``e/c``, the coefficient of
    ``omega = sum(o)/TEL(S)``) when the sum of the outputs appears; ``{}`` when the conclusion has another form.
    ``TEL(S)`` is ``Model.tel rs xs``, ``TEL(ALG)`` any other ``Model.tel rs (...)``; Coq's truncated ``-`` is
    read as subtraction (the statements bound ``P < M`` or read the ratio where it is positive), or with
    ``truncated`` as ``Max(a - b, 0)``."""
    conclusion = _conclusion(statement)
    if conclusion.count("<=") != 1:
        return {}
    text = conclusion.replace(_TEL_OF_S, " TS ").replace(_SUM_OUTPUTS, " SO ")
    while (k := text.find("Model.tel rs ")) >= 0:
        end = _atom(text, k + len("Model.tel rs "))
        text = text[:k] + " TA " + text[end:]
    if not re.fullmatch(r"[\w\s+*()<=-]+", text) or re.search(r"[A-Za-z_]\w*\.", text):
        return {}
    left, right = (_expression(side, {}, truncated) for side in text.split("<="))
    ta, ts, so = sp.Symbol("TA"), sp.Symbol("TS"), sp.Symbol("SO")
    c, r, e = sp.expand(left).coeff(ta), sp.expand(right).coeff(ts), sp.expand(right).coeff(so)
    if c == 0 or sp.expand(left - c * ta) != 0 or sp.expand(right - r * ts - e * so) != 0:
        return {}
    found = {"ratio": sp.together(r / c) if truncated else sp.factor(r / c)}
    if e != 0:
        found["omega"] = sp.simplify(e / c)
    return found


def _ratio_problems(statement: str, bound: Any, substitutions: tuple[str, ...]) -> list[str]:
    """Why ``statement``'s conclusion does not state the row's ``bound`` (its derivation's, with ``omega`` the sum
    of the outputs over TEL(S)) once ``substitutions`` (``"P = alpha * M"``) rename its variables into the
    row's: empty when ratio + omega-coefficient * omega equals the bound."""
    read = read_ratio(statement)
    if not read:
        return [f"the statement's conclusion is not a bound c TEL(ALG) <= r TEL(S) [+ e sum(o)]: {statement!r}"]
    if bound is None:
        return ["the row's derivation states no bound to compare the statement's ratio with"]
    plain = {s: sp.Symbol(s.name) for s in bound.free_symbols}
    names = {s.name: s for s in plain.values()}
    value = read["ratio"] + read.get("omega", 0) * sp.Symbol("omega")
    for rule in substitutions:
        variable, _, expression = rule.partition("=")
        value = value.subs(sp.Symbol(variable.strip()), _expression(expression, names))
    value = value.subs({sp.Symbol(n): s for n, s in names.items()})
    pieces = _by_pieces(_truncated_value(statement, substitutions, names), bound, plain, names.get("alpha"))
    if pieces is not None:  # the statement's truncated subtractions resolved on each piece of the row's bound
        return pieces
    if sp.simplify(value - bound.subs(plain)) != 0:
        return [f"the statement bounds TEL(ALG)/TEL(S) by {sp.simplify(value)}, but the row's bound is "
                f"{bound} (its derivation's)"]
    return []


_ALPHA = sp.Interval.Ropen(0, 1)  # alpha = P/M with P < M: where the rows' bounds are stated


def _truncated_value(statement: str, substitutions: tuple[str, ...], names: dict[str, Any]) -> Any:
    read = read_ratio(statement, truncated=True)
    value = read["ratio"] + read.get("omega", 0) * sp.Symbol("omega")
    for rule in substitutions:
        variable, _, expression = rule.partition("=")
        value = value.subs(sp.Symbol(variable.strip()), _expression(expression, names))
    return value.subs({sp.Symbol(n): s for n, s in names.items()})


def _by_pieces(value: Any, bound: Any, plain: dict[Any, Any], alpha: Any) -> list[str] | None:
    """The statement's ratio read with Coq's truncated subtraction, compared with each piece of the row's bound
    (a ``Piecewise`` in alpha, or one piece on 0 <= alpha < 1): each ``Max(M g(alpha), 0)`` is ``M g`` or 0 where
    ``g`` keeps its sign on the piece. None when a truncation is not of that form (then the plain reading holds:
    the statements bound ``P < M``); a problem when a sign changes inside a piece or a piece differs."""
    truncations = value.atoms(sp.Max)
    if alpha is None or not truncations:
        return None
    pieces, rest = [], _ALPHA
    for expr, cond in (bound.args if isinstance(bound, sp.Piecewise) else ((bound, sp.true),)):
        region = rest if cond == sp.true else rest.intersect(cond.subs(plain).as_set())
        pieces.append((expr.subs(plain), region))
        rest = rest - region
    m = sp.Symbol("M")
    for expr, region in pieces:
        resolved = {}
        for term in truncations:
            inner = [a for a in term.args if a != 0]
            g = sp.simplify(inner[0] / m) if len(term.args) == 2 and len(inner) == 1 else None
            if g is None or not g.free_symbols <= {alpha}:
                return None
            if sp.solveset(g < 0, alpha, region) == sp.EmptySet:
                resolved[term] = inner[0]
            elif sp.solveset(g > 0, alpha, region) == sp.EmptySet:
                resolved[term] = sp.Integer(0)
            else:
                return [f"the statement's truncated subtraction {inner[0]} changes sign where the row's bound is "
                        f"{expr}"]
        if sp.simplify(value.subs(resolved) - expr) != 0:
            where = f" for alpha in {region}" if isinstance(bound, sp.Piecewise) else ""
            return [f"the statement bounds TEL(ALG)/TEL(S) by {sp.simplify(value.subs(resolved))}{where}, but the "
                    f"row's bound {'there ' if where else ''}is {expr} (its derivation's)"]
    return []


_UNBOUNDED = re.compile(r"^forall c : nat, exists .*(?:^|, |/\\ )c \* Model\.tel rs xs < Model\.tel rs \([^()]*\)$")
_SHARP = re.compile(r"^forall a b : nat, a < (\d+) \* b -> exists .* a \* M \* Model\.tel rs xs .*< b \* .*"
                    r"Model\.tel rs \([^()]*\)$")


def _unbounded_problems(statement: str, bound: Any, arguments: tuple[str, ...]) -> list[str]:
    """Why the statement does not say "for every c some instance has c TEL(S) < TEL(ALG)", or the row's derivation
    (its ratio on the family) does not grow without bound."""
    found = [] if _UNBOUNDED.match(statement) else [
        f"the statement is not 'for every c, some instance with c TEL(S) < TEL(ALG)': {statement!r}"]
    if bound is None or len(bound.free_symbols) != 1 or sp.limit(bound, next(iter(bound.free_symbols)), sp.oo) != sp.oo:
        found.append(f"the row's derivation does not state a ratio that grows without bound ({bound})")
    return found


def _sharp_problems(statement: str, bound: Any, arguments: tuple[str, ...]) -> list[str]:
    """Why the statement does not say "for every a < K b some instance violates the bound with a/b in place of K",
    K the row's constant (``arguments[0]``)."""
    found = _SHARP.match(statement)
    if not found:
        return [f"the statement is not 'for every a < K b, some instance with a M TEL(S) + ... < b ... TEL(ALG)': "
                f"{statement!r}"]
    if arguments[:1] != (found.group(1),):
        return [f"the statement lowers the constant {found.group(1)}, but the row's constant is "
                f"{arguments[0] if arguments else '(none)'}"]
    return []


# form -> (its verdict predicate on a statement, the defect its canary plants in a statement)
FORMS: dict[str, tuple[Any, Any]] = {
    "ratio": (_ratio_problems, lambda s: _plant_after(s, _conclusion(s))),
    "unbounded": (_unbounded_problems, lambda s: s.replace(" c * Model.tel rs xs < ", " c * Model.tel rs xs <= ", 1)),
    "sharp": (_sharp_problems, lambda s: re.sub(r"a < (\d+) \* b", lambda m: f"a < {int(m.group(1)) + 1} * b", s,
                                                count=1)),
}


def constant_problems(statement: str, bound: Any, form: str, arguments: tuple[str, ...] = ()) -> list[str]:
    """Why ``statement`` does not state the row's formal content in the ``form`` the row declares
    (``Claim.coq_constant = (theorem, form, *arguments)``): ``ratio`` (its conclusion, read as a bound on
    TEL(ALG)/TEL(S) after the renamings ``arguments``, equals the derivation's ``bound``), ``unbounded`` (for every
    c some instance has c TEL(S) < TEL(ALG), and the derivation's ratio grows without bound) or ``sharp`` (for
    every a < K b some instance violates the bound with a/b in place of K, K = ``arguments[0]``)."""
    if form not in FORMS:
        return [f"unknown form {form!r} of the row's constant (one of {', '.join(FORMS)})"]
    return FORMS[form][0](statement, bound, arguments)


def _plant_after(statement: str, part: str) -> str:
    """``statement`` with the first numeral of its tail ``part`` (the conclusion) + 1, else its ``<=`` made ``<``."""
    head = statement[:len(statement) - len(part)]
    number = re.search(r"(?<![\w.'])\d+(?![\w'])", part)
    if number:
        return head + part[:number.start()] + str(int(number.group()) + 1) + part[number.end():]
    return head + part.replace(" <= ", " < ", 1)


def plant_constant(statement: str) -> tuple[str, str]:
    """``(the statement with one constant changed, what was changed)``: the first numeral + 1, else the first
    ``<=`` made ``<``, else the first ``=`` made ``<>``, else the statement negated.

    >>> plant_constant("forall M P, (M - P) * t <= (3 * M - P) * s")
    ('forall M P, (M - P) * t <= (4 * M - P) * s', 'constant 3 -> 4')
    """
    number = re.search(r"(?<![\w.'])\d+(?![\w'])", statement)
    if number:
        value = int(number.group())
        return (statement[:number.start()] + str(value + 1) + statement[number.end():],
                f"constant {value} -> {value + 1}")
    for old, new in ((" <= ", " < "), (" = ", " <> ")):
        if old in statement:
            return statement.replace(old, new, 1), f"'{old.strip()}' -> '{new.strip()}'"
    return f"~ ({statement})", "negated"


def _constant_of(claim: Any, theorem: str) -> tuple[Any, str, tuple[str, ...]] | None:
    """``(the row's bound, form, arguments)`` when ``theorem`` is the row's ``coq_constant`` theorem."""
    declared = tuple(getattr(claim, "coq_constant", ()))
    if len(declared) < 2 or declared[0] != theorem:
        return None
    derivation = DERIVATIONS.get(claim.id)
    return (derivation().bound if derivation is not None else None), declared[1], declared[2:]


# --------------------------------------------------------------------------- the method


def _not_proved(label: str, why: str, short: str, elapsed: float, data: dict[str, Any]) -> Evidence:
    return Evidence(label, "coq", "unknown", why, wall_time=elapsed, data=data, covers={label: ("unknown", short)})


def _unusable(result: Any, theorem: str, pin: coq_pinned.Pinned) -> tuple[str, str] | None:
    """``(why, short)`` when the build cannot say anything about ``theorem`` (then the evidence is unknown)."""
    module = coq_engine.THEOREMS[theorem]
    if result.status == "unavailable":
        return "coqc not installed", "coqc not installed"
    if result.status == "not_built":
        return ("Coq build not in the cache (--quick does not compile; geosched claims or python -m "
                "geosched.verify.coq_engine does)", "not built")
    if result.status not in ("ok", "partial"):
        return f"the Coq build failed: {result.message}", "build failed"
    if module in result.failed_files:
        return f"Coq: {module}.v did not compile ({result.failed_files[module]})", "not compiled"
    if theorem not in result.statements or theorem not in result.assumptions:
        return f"Coq: coqc printed no statement for {theorem}", "not printed"
    if theorem not in pin.theorems:
        return (f"Coq: {theorem} is not pinned in verify/coq/statements.txt (python -m geosched.verify.coq_engine "
                "--pin records it; review the diff)", "not pinned")
    if not result.coqchk and module not in result.coqchk_rejected:
        return f"Coq: coqchk did not pass ({result.message})", "coqchk"
    return None


def _canary(theorem: str, printed: coq_pinned.Printed, pin: coq_pinned.Pinned,
            constant: tuple[Any, str, tuple[str, ...]] | None) -> Canary:
    """The defects of this method's kind, planted in coqc's real output and judged by the same predicates."""
    def judged(**planted: Any) -> list[str]:
        view = coq_pinned.Printed(**{"statements": printed.statements, "definitions": printed.definitions,
                                     "assumptions": printed.assumptions, **planted})
        return coq_pinned.problems(theorem, view, pin)

    statement, changed = plant_constant(printed.statements[theorem])
    canaries = [plant(f"{theorem}'s {changed}", lambda s: judged(statements={**printed.statements, theorem: s}),
                      statement)]
    reached = sorted(coq_pinned.reach(printed.statements[theorem], printed.definitions))
    if reached:
        canaries.append(plant(f"definition {reached[0]} changed", lambda d: judged(definitions=d),
                              {**printed.definitions, reached[0]: printed.definitions[reached[0]] + " + 1"}))
    canaries.append(plant("an axiom in its assumptions", lambda a: judged(assumptions=a),
                          {**printed.assumptions, theorem: f"Axioms:\n{theorem}_planted : False"}))
    if constant is not None and constant[1] in FORMS:  # the statement changed with its pinned copy: the row sees it
        bound, form, arguments = constant
        canaries.append(plant(f"its {form} constant changed in the statement and its pinned copy",
                              lambda s: constant_problems(s, bound, form, arguments),
                              FORMS[form][1](printed.statements[theorem])))
    missed = [c for c in canaries if not c.refuted]
    return Canary("; ".join(c.defect for c in canaries), not missed,
                  (missed[0] if missed else canaries[0]).verdict)


def _method(theorem: str):
    label = coq_method_name(theorem)

    @declares_canary(CANARY)
    def method(claim: Any, ctx: Context) -> Evidence:
        result, elapsed = _build(ctx)
        pin = pinned()
        data = {"theorem": theorem, "module": f"verify/coq/{coq_engine.THEOREMS[theorem]}.v", "build": result.status,
                "source_hash": result.source_hash, "coqc_version": result.coqc_version, "pinned": pin.sha256}
        unusable = _unusable(result, theorem, pin)
        if unusable is not None:
            return _not_proved(label, *unusable, elapsed, data)
        printed = coq_pinned.Printed(result.statements, result.definitions, result.assumptions)
        constant = _constant_of(claim, theorem)
        found = coq_pinned.problems(theorem, printed, pin)
        if constant is not None:
            found += constant_problems(printed.statements[theorem], constant[0], constant[1], constant[2])
        if not found and not result.closed(theorem):  # what coqc printed and the build's record disagree
            found.append(f"{theorem} is not closed in this build ({result.message})")
        rejected = result.coqchk_rejected.get(coq_engine.THEOREMS[theorem])
        if rejected:
            found.append(f"coqchk rejects {coq_engine.THEOREMS[theorem]}.v: {rejected}")
        data.update(provenance=result.provenance(), statement=printed.statements[theorem],
                    pinned_statement=pin.theorems[theorem], assumptions=result.assumptions[theorem],
                    coqchk_axioms=result.coqchk_axioms, problems=found)
        canary = _canary(theorem, printed, pin, constant)
        if found:
            return Evidence(label, "coq", "refuted", f"Coq: {found[0]}" + (f" (+{len(found) - 1} more)"
                                                                           if len(found) > 1 else ""),
                            wall_time=elapsed, data=data, implementation=True, canary=canary,
                            counterexample=ctx.write(f"coq_statement_{theorem}.json", data),
                            covers={label: ("refuted", "differs from the pinned file")})
        return Evidence(label, "coq", "proved", f"Coq, every n: {theorem} ({result.provenance()}; statements "
                        f"pinned {pin.sha256[:12]})", bound=COQ_BOUND, wall_time=elapsed, data=data, canary=canary,
                        covers={label: ("proved", COQ_BOUND)})

    return method


COQ_METHODS = {coq_method_name(theorem): _method(theorem) for theorem in coq_engine.THEOREMS}
