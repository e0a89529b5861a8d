"""``geosched prove ID [--latex [--standalone]] [--json] [--mode M]``: a claim's derivation, each step marked.

The derivation (:mod:`geosched.theory`) is printed step by step with its sympy check, as before,
and every step is **marked** with what establishes it in the ledger run of the same claim
(:func:`geosched.verify.ledger.run_claim`, mode ``quick`` unless ``--mode`` says otherwise):

* ``sympy``: the step is algebra sympy checked;
* ``Coq, every n: THEOREM (compiled this run | build cache HASH)``: an unchecked step one of
  whose ``covered_by`` names is a Coq theorem closed under the global context
  (:mod:`geosched.verify.coq_evidence`);
* ``checked for <bound>``: an unchecked step covered only by a bounded check (Z3 and cvc5 for
  every ``n`` up to a bound, an exhaustive space);
* ``not established in this run``: anything else.

The end says which ledger run marked the steps (its mode: a bound such as ``n<=3`` is that mode's;
``geosched claims`` runs ``default``, which reaches farther), the words of the claims it rests on in the
same run (not sympy's view of their derivations), the canary of each of the row's checks (the defect planted
and whether the check refuted it: one that did not could not have failed), and, last, one sentence: the
ledger's word for the
claim, the same word (and text) ``geosched claims --MODE --claim ID`` prints, with the ledger's note on
the line before it. It lives in :mod:`geosched.verify` because :mod:`geosched.theory` may not import the
ledger.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_commands", "step_marks", "ledger_footer", "exit_code", "MODE_NOTE", "canary_lines", "evidence_json"]

# what the mode behind the marks means for their bounds (the solver sweeps' reach is per mode: SOLVER_SWEEPS)
MODE_NOTE = {"quick": "quick (bounds here are --quick's: the smallest; geosched claims runs default, which reaches "
                      "farther)",
             "default": "default (as geosched claims)", "thorough": "thorough (the longest checks)"}


def exit_code(result: Any) -> int:
    """0; 1 when some claim is refuted; 3 when none is but a check crashed (``error``); never 2 (bad input)."""
    statuses = {c.status for c in result.claims}
    return 1 if "refuted" in statuses else 3 if "error" in statuses else 0


def add_commands(subparsers, common: argparse.ArgumentParser) -> None:
    """Register ``prove`` (called by :func:`geosched.cli.build_parser`)."""
    from geosched.arguments import add_command

    parser = add_command(
        subparsers, "prove", common,
        help="print a claim's derivation, each step marked sympy / Coq, every n / checked for n <= k",
        description="Print the derivation of a claim (e.g. kong.thm3.2) step by step, with its sympy check, and "
                    "mark every step with what establishes it in the ledger run of the claim (sympy; Coq, every "
                    "n: THEOREM; checked for n <= k). The derivation's own status (proved, proved relative, "
                    "refuted, unknown) is sympy's; the last line is the ledger's word for the claim, the same as "
                    "geosched claims --claim ID in the same mode.",
        examples=["geosched prove kong.thm3.2", "geosched prove kong.thm3.2 --latex --standalone",
                  "geosched prove kong.prop3.1 --mode default"])  # no --seed: the marking run is the ledger's seed 0
    parser.add_argument("claim", help="claim id, e.g. kong.thm3.2 (an unknown id lists the known ones)")
    parser.add_argument("--latex", action="store_true", help="print a LaTeX fragment instead of text")
    parser.add_argument("--standalone", action="store_true",
                        help="with --latex: a complete document (article, amsmath) that pdflatex compiles")
    parser.add_argument("--mode", choices=("quick", "default", "thorough"), default="quick",
                        help="the ledger run that marks the steps (default quick; geosched claims' default is "
                             "'default')")
    parser.set_defaults(handler=_cmd_prove)


def _best(covers: dict[str, tuple[str, str]], names: tuple[str, ...]) -> tuple[str, str, str] | None:
    from geosched.verify.evidence import STRENGTH

    found = [(name, *covers[name]) for name in names if name in covers]
    return max(found, key=lambda f: (STRENGTH[f[1]], f[0].startswith("coq:")), default=None)


def step_marks(derivation: Any, check: Any, result: Any) -> dict[int, str]:
    """Step index (1-based) -> what establishes it, from the derivation's sympy check and the
    ledger's :class:`~geosched.verify.ledger.ClaimResult` of the same claim."""
    covers: dict[str, tuple[str, str]] = {}
    provenance: dict[str, str] = {}
    for evidence in result.evidence:
        covers.update(evidence.covers)
        if evidence.kind == "coq" and evidence.status == "proved":
            provenance[evidence.method] = evidence.data.get("provenance", "")
    marks = {}
    for index, (step, step_check) in enumerate(zip(derivation.steps, check.steps), start=1):
        if step_check.status == "checked":
            marks[index] = "sympy"
            continue
        if step_check.status == "failed":
            marks[index] = "refuted by sympy"
            continue
        if step_check.status == "assumed":  # a named hypothesis applied: stated, never called established
            marks[index] = f"assumed: the named hypotheses {', '.join(step.uses)}"
            continue
        best = _best(covers, step.covered_by)
        if best is not None and best[1] == "proved" and best[0].startswith("coq:"):
            marks[index] = f"Coq, every n: {best[0][4:]} ({provenance.get(best[0], '')})"
        elif best is not None and best[1] == "proved":
            marks[index] = f"proved by {best[0]} for all values"
        elif best is not None and best[1] == "checked":
            marks[index] = f"checked for {best[2]}"
        else:
            marks[index] = "not established in this run"
    return marks


def ledger_footer(result: Any, mode: str, claim: str, dependencies: tuple[Any, ...] = ()) -> str:
    """The end of ``prove``'s text: the mode, the dependencies' own words, then the status line in one sentence:
    ``Status: WORD ..., as geosched claims --MODE --claim ID says.`` (the row's word as ``geosched claims``
    computes it: the ledger's text, which starts with the word, then its note's parts)."""
    lines = [f"Marked by the ledger run in mode {MODE_NOTE[mode]}."]
    if dependencies:
        lines.append("Rests on (their own words in the same run): " + "; ".join(
            f"{d.id}: {_worded(d)}" for d in dependencies) + ".")
    lines += canary_lines(result)
    parts = [_worded(result).replace(";", ",")] + [part for part in (result.note or "").split("; ") if part]
    lines.append(f"Status: {', '.join(parts).rstrip('.')}, as geosched claims --{mode} --claim {claim} says.")
    return "\n".join(lines)


def _worded(result: Any) -> str:
    """A row's word said once: the ledger's text when it starts with the word (``proved (Coq, every n: ...)``),
    else ``WORD (TEXT)``.

    >>> from types import SimpleNamespace
    >>> _worded(SimpleNamespace(status="proved", message="proved (Coq, every n: volume_is_memory_time)"))
    'proved (Coq, every n: volume_is_memory_time)'
    >>> _worded(SimpleNamespace(status="unknown", message="did not finish"))
    'unknown (did not finish)'
    """
    return result.message if result.message.startswith(result.status) else f"{result.status} ({result.message})"


def canary_lines(result: Any) -> list[str]:
    """One line per check of the row that ran a canary: the planted defect and whether the check refuted it
    (a check that did not could not have failed, and the row is ``vacuous``)."""
    from geosched.verify.ledger import canary_word

    planted = [e for e in result.evidence if getattr(e, "canary", None) is not None]
    if not planted:
        return []
    return ["Canaries (a planted defect each check must refute, in the same run): " + "; ".join(
        f"{e.method}: {e.canary.defect}: {canary_word(e.canary)}" for e in planted) + "."]


def evidence_json(result: Any) -> list[dict[str, Any]]:
    """Each evidence of the row as ``--json`` shows it in ``prove``: method, status, canary and coverage."""
    from geosched.results import plain

    return [{"method": e.method, "status": e.status, "canary": plain(e.canary), "coverage": plain(e.coverage)}
            for e in result.evidence]


def _cmd_prove(args: argparse.Namespace) -> int:
    from geosched.output import emit_json
    from geosched.theory import check_claim, get_derivation
    from geosched.verify.ledger import CLAIMS, run_claims

    if args.standalone and not args.latex:
        from geosched.errors import ValidationError

        raise ValidationError("--standalone", True, "needs --latex")
    derivation = get_derivation(args.claim)
    check = check_claim(args.claim)
    deps = tuple(dict.fromkeys((*derivation.depends_on, *CLAIMS[args.claim].depends_on)))
    ledger = run_claims([args.claim, *deps], mode=args.mode)
    result, dependencies = ledger.claims[0], ledger.claims[1:]
    marks = step_marks(derivation, check, result)
    footer = ledger_footer(result, args.mode, args.claim, dependencies)
    if args.json:
        data = derivation.to_dict(check)
        for step_data, index in zip(data["steps"], range(1, len(data["steps"]) + 1)):
            step_data["established_by"] = marks[index]
        data["derivation_status"], data["derivation_message"] = data.pop("status"), data.pop("message")
        data.update(status=result.status, ledger_message=result.message, ledger_mode=args.mode)
        data["ledger"] = {"mode": args.mode, "status": result.status, "message": result.message,
                          "note": result.note, "evidence": evidence_json(result),
                          "dependencies": {d.id: {"status": d.status, "message": d.message} for d in dependencies}}
        emit_json(data)
    elif args.latex:
        render = derivation.render_latex_document if args.standalone else derivation.render_latex
        text = render(check, marks, footer).replace(r"\emph{Status:}", r"\emph{Derivation:}", 1)
        print(text)
    else:
        # the derivation's own status is sympy's ("Derivation:"); "Status:" is the ledger's word, once
        text = derivation.render_text(check, marks, footer)
        print(text.replace(f"Status: {check.status} (", f"Derivation: {check.status} (", 1))
    return exit_code(ledger)

