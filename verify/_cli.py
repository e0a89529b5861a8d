"""``geosched claims``: the claims ledger on the command line (see :mod:`geosched.verify.ledger`).

``geosched claims`` prints one row per claim (id, statement, methods, status, time);
``--json`` prints the same as one object (with versions and seeds); ``--claim ID`` runs one
claim (an unknown id is a one-line error, exit 2); ``--thorough`` runs the long versions;
``--out DIR`` is where counterexample files (and the thorough run's checkpoint) go.
Exit status: 0, or 1 when some claim is refuted.
"""

from __future__ import annotations

import argparse

__all__ = ["add_commands"]


def add_commands(subparsers, common) -> None:
    """Register ``claims`` on the ``geosched`` parser."""
    p = subparsers.add_parser("claims", parents=[common], help="run every claim's checks and print the ledger")
    p.add_argument("--claim", action="append", default=None, metavar="ID",
                   help="run only this claim (repeatable); default: all")
    p.add_argument("--thorough", action="store_true", help="long versions of the checks (minutes to an hour)")
    p.add_argument("--out", default=None, metavar="DIR", help="folder for counterexample files")
    p.set_defaults(handler=_cmd_claims)


def _cmd_claims(args: argparse.Namespace) -> int:
    from geosched.cli import emit_json
    from geosched.verify.ledger import run_claims

    seed = args.seed if args.seed is not None else 0
    result = run_claims(args.claim, thorough=args.thorough, out=args.out, seed=seed)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(result.table())
        refuted = [c for c in result.claims if c.status == "refuted"]
        for claim in refuted:
            print(f"REFUTED {claim.id}: {claim.note}")
        if result.variants:
            print()
            print(f"outside the theorems' hypotheses (exhaustive, {result.variants['space']}"
                  f"{'; arrivals ' + result.variants['arrival_space'] if result.variants['arrival_space'] else ''}):")
            for name, v in result.variants["per_variant"].items():
                if v["covered_by_theorem"]:
                    continue
                failures = ", ".join(f"{c} {d['failed']}/{d['of']}" for c, d in v["failures"].items()) or "none"
                print(f"  {name:<13} worst ratio {v['max_ratio']}; failing checks: {failures}")
        print(f"\n{len(result.claims)} claims in {result.elapsed:.1f}s "
              f"(geosched {result.versions['geosched']}, z3 {result.versions['z3']}, seed {seed})"
              + (f"; counterexamples in {result.out}" if result.out else ""))
    return 1 if any(c.status == "refuted" for c in result.claims) else 0
