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
    from geosched.output import emit_json
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
                print(f"  {name:<16} worst ratio vs OPT {v['max_ratio']}; "
                      f"{'failing checks:' if v['failures'] else 'no check fails'}")
                for check, d in v["failures"].items():
                    smallest = d["smallest"] or {}
                    where = f" -> {smallest['file']}" if smallest.get("file") else ""
                    compact = _compact(smallest.get("instance"))
                    print(f"    {check:<13} {d['failed']}/{d['of']}; smallest {compact}{where}")
        print(f"\n{len(result.claims)} claims in {result.wall_time:.1f}s "
              f"(geosched {result.versions['geosched']}, z3 {result.versions['z3']}, seed {seed})"
              + (f"; counterexamples in {result.out}" if result.out else ""))
    return 1 if any(c.status == "refuted" for c in result.claims) else 0


def _compact(instance) -> str:
    """``M=5 [(s,o), ...]`` or ``M=5 [(a,s,o), ...]`` when some arrival is not 0."""
    if not instance:
        return "-"
    requests = instance["requests"]
    if any(r["arrival"] for r in requests):
        items = ", ".join(f"({r['arrival']},{r['prompt']},{r['output']})" for r in requests)
        return f"M={instance['memory']} (a,s,o)=[{items}]"
    items = ", ".join(f"({r['prompt']},{r['output']})" for r in requests)
    return f"M={instance['memory']} (s,o)=[{items}]"
