"""``geosched prove ID [--latex [--standalone]] [--json]``: print a claim's derivation step by step, checked."""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def add_commands(subparsers, common: argparse.ArgumentParser) -> None:
    """Register ``prove`` (called by :func:`geosched.cli.build_parser`)."""
    parser = subparsers.add_parser(
        "prove", parents=[common],
        help="print a claim's symbolic derivation with each step's sympy check",
        description="Print the derivation of a claim (e.g. kong.thm3.2) step by step, with how each step "
                    "was checked. Status: proved (every step here and in every claim it relies on is "
                    "checked), proved relative (every step here is checked; the message names the unchecked "
                    "steps of the claims it relies on), refuted (a step is false), unknown (some step not "
                    "mechanically checkable, or it relies on a refuted claim). geosched claims runs the solver "
                    "and exhaustive checks that cover the unchecked steps.",
        # theory imports nothing of ours but the model: the examples block written out (geosched.arguments.examples)
        epilog="examples:\n  geosched prove kong.thm3.2\n  geosched prove kong.thm3.2 --latex --standalone")
    parser.add_argument("claim", help="claim id, e.g. kong.thm3.2 (an unknown id lists the known ones)")
    parser.add_argument("--latex", action="store_true", help="print a LaTeX fragment instead of text")
    parser.add_argument("--standalone", action="store_true",
                        help="with --latex: a complete document (article, amsmath) that pdflatex compiles")
    parser.set_defaults(handler=_cmd_prove)


def _cmd_prove(args: argparse.Namespace) -> int:
    from geosched.output import emit_json
    from geosched.theory import check_claim, get_derivation

    if args.standalone and not args.latex:
        from geosched.errors import ValidationError

        raise ValidationError("--standalone", True, "needs --latex")
    derivation = get_derivation(args.claim)
    check = check_claim(args.claim)
    if args.json:
        emit_json(derivation.to_dict(check))
    elif args.latex:
        print(derivation.render_latex_document(check) if args.standalone else derivation.render_latex(check))
    else:
        print(derivation.render_text(check))
    return 0 if check.status != "refuted" else 1
