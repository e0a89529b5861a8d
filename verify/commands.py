"""``geosched claims``: the claims ledger on the command line (:mod:`geosched.verify.ledger`);
``geosched prove`` lives in :mod:`geosched.verify.prove`.

``geosched claims`` prints one row per claim (id, status, the share of its constant the
headline check used, whether that check is discriminating, time, statement), then one row per
evidence; the rows print as they finish (the rows that need no Coq first, while the Coq build
runs in the background), the legend and the evidence after them; ``--json`` prints the same as
one object (with versions and seed); ``--claim ID`` runs one claim (an unknown id is a one-line
error, exit 2); ``--quick`` a smaller set of checks (about 20 s of CPU; what it cannot reach
stays ``unknown`` or ``vacuous``); ``--thorough`` the long
versions; ``--out DIR`` is where counterexample files (and the thorough run's checkpoint) go, and
``--restart`` starts a thorough run over instead of resuming its checkpoint; ``--trace PATH`` (repeatable) sets the
traces of the empirical rows (default: every trace in ``../shared/traces/``); ``--cluster local:N``
or ``--cluster tcp://HOST:PORT`` runs the exhaustive and Monte-Carlo chunks on Dask (same
result as serial, the default; docs/cluster.md). Progress goes to
stderr while the checks run, a line every few seconds off a terminal (not with ``--quiet`` or ``--no-progress``).
Exit status: 0; 1 when some claim is refuted; 3 when no claim is refuted but a check crashed
(a row says ``error``); 2 stays for bad input.
"""

from __future__ import annotations

import argparse
import contextlib

from geosched.arguments import add_command, show_progress
from geosched.executor import SPEC_HELP, cluster_spec
from geosched.verify import prove
from geosched.verify.prove import exit_code

__all__ = ["add_commands"]


def add_commands(subparsers, common) -> None:
    """Register ``claims`` on the ``geosched`` parser."""
    p = add_command(
        subparsers, "claims", common, help="run every claim's checks and print the ledger",
        description="Run every claim's checks (sympy derivations, Z3/cvc5 lemmas, exhaustive and Monte-Carlo "
                    "checks) and print the ledger: one row per claim with its status (proved, checked, vacuous, "
                    "refuted, unknown, not_run), then one row per evidence. Exit 1 when a claim is refuted.",
        examples=["geosched claims --quick", "geosched claims --claim kong.volume --json"],
        seed="base seed of the Monte-Carlo and sampled checks (>= 0; default 0; the report records it)")
    p.add_argument("--claim", action="append", default=None, metavar="ID",
                   help="run only this claim (repeatable); default: all")
    speed = p.add_mutually_exclusive_group()
    speed.add_argument("--thorough", action="store_true", help="long versions of the checks (an hour or more)")
    speed.add_argument("--quick", action="store_true",
                       help="a smaller set of checks, about 20 s of CPU (statuses stay honest: less is checked)")
    p.add_argument("--trace", action="append", default=None, metavar="PATH",
                   help="a trace for the empirical rows (repeatable; any format geosched reads: an Azure-format CSV, "
                        "a Mooncake .jsonl, ...); default: every trace in ../shared/traces/")
    p.add_argument("--out", default=None, metavar="DIR", help="folder for counterexample files and checkpoints")
    p.add_argument("--restart", action="store_true",
                   help="with --thorough: start the exhaustive run over instead of resuming its checkpoint in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    p.add_argument("--cluster", type=cluster_spec, default="serial", metavar="SPEC",
                   help=f"where the chunked checks run: {SPEC_HELP}; default serial (same result everywhere)")
    p.set_defaults(handler=_cmd_claims)
    prove.add_commands(subparsers, common)  # `prove`: the derivation (theory) marked by the ledger (verify)


def _cmd_claims(args: argparse.Namespace) -> int:
    from geosched.errors import ValidationError
    from geosched.output import emit_json
    from geosched.progress import above
    from geosched.verify.ledger import CLAIMS, RowPrinter, run_claims

    if args.restart and not (args.thorough and args.out):
        raise ValidationError("--restart", True, "needs --thorough and --out DIR (the checkpoint lives there)")
    unknown = [claim_id for claim_id in args.claim or [] if claim_id not in CLAIMS]
    if unknown:  # before the progress bar draws: an error is one line on stderr
        from geosched.errors import UnknownNameError

        raise UnknownNameError("claim", unknown[0], sorted(CLAIMS))
    seed = args.seed if args.seed is not None else 0
    mode = "thorough" if args.thorough else "quick" if args.quick else "default"
    counter = _Counter(args.claim or list(CLAIMS), CLAIMS) if show_progress(args) else None
    if args.trace:
        from geosched.verify.trace_set import check_traces

        check_traces(args.trace)  # before the progress bar draws
    printer = None if args.json else RowPrinter(args.claim or list(CLAIMS))
    if printer is not None:  # the table grows: its head now, each row as it finishes (progress.above)
        above("\n".join(printer.head()))
    from geosched.output import writer_lock

    with writer_lock(args.out) if args.out else contextlib.nullcontext():  # one writer of --out (issue 41)
        result = run_claims(args.claim, mode=mode, out=args.out, seed=seed, restart=args.restart,
                            progress=counter, executor=args.cluster, traces=args.trace,
                            on_row=None if printer is None else lambda claim: above("\n".join(printer.row(claim))))
    if args.json:
        emit_json(result.to_dict())
    else:
        _print_text(result, seed)
    return exit_code(result)


class _Counter:
    """The ledger's ``progress`` callback: the rows and checks begun and the check now running, told to the
    command's reporter (:mod:`geosched.progress`): ``claims: 12/29 rows, 41 s, check 41/112, now ID METHOD``."""

    def __init__(self, ids: list[str], claims: dict) -> None:
        self.claims, self.seen, self.done, self.checks = claims, set(), 0, 0
        stack = list(ids)
        while stack:  # the claims asked for and those they rest on: each runs its methods once
            claim_id = stack.pop()
            if claim_id in self.seen or claim_id not in claims:
                continue
            self.seen.add(claim_id)
            self.checks += len(claims[claim_id].methods)
            stack += list(claims[claim_id].depends_on)
        self.rows, self.seen = len(self.seen), set()

    def __call__(self, label: str) -> None:
        from geosched.progress import update

        claim_id = label.split(" ", 1)[0]
        if claim_id in self.claims:  # "<claim> <method>"; else a stage after the rows (the variants)
            self.seen.add(claim_id)
            self.done += 1
        update(done=min(len(self.seen), self.rows), total=self.rows, unit="rows",
               detail=f"check {min(self.done, self.checks)}/{self.checks}", stage=label)


def _print_text(result, seed: int) -> None:
    """What follows the rows printed as they finished: the legend and counts, the evidence, the variants."""
    print()
    print("\n".join(result.legend()))
    print()
    print(result.evidence_table())
    for claim in result.claims:
        if claim.status == "refuted":
            print(f"REFUTED {claim.id}: {claim.note}")
    if result.variants:
        _print_variants(result.variants)
    extra = result.extra
    if "exhaustive" in extra:
        ex = extra["exhaustive"]
        print(f"\nexhaustive: {ex['instances']} burst + {ex['arrival_instances']} arrival instances, exact OPT by "
              f"{ex['opt_method']}, {ex['cross_checked']} cross-checked by the other exact method; space {ex['space']}")
    if "cores" in extra:
        print("solver cores: largest n with every lemma proved: "
              + ", ".join(f"{b} {n}" for b, n in extra["cores"]["largest_n"].items()))
    print(f"\n{len(result.claims)} claims in {result.wall_time:.1f}s ({result.mode}; geosched "
          f"{result.versions['geosched']}, z3 {result.versions['z3']}, cvc5 {result.versions['cvc5']}, seed {seed}, "
          f"Coq statements {result.versions.get('coq_statements', '')[:12] or 'not pinned'})"
          + (f"; counterexamples in {result.out}" if result.out else ""))


def _print_variants(variants: dict) -> None:
    print(f"\noutside the theorems' hypotheses (exhaustive, {variants['space']}"
          f"{'; arrivals ' + variants['arrival_space'] if variants['arrival_space'] else ''}):")
    for name, v in variants["per_variant"].items():
        print(f"  {name:<16} worst ratio vs OPT {v['max_ratio']}; "
              f"{'failing checks:' if v['failures'] else 'no check fails'}")
        for check, d in v["failures"].items():
            smallest = d["smallest"] or {}
            where = f" -> {smallest['file']}" if smallest.get("file") else ""
            print(f"    {check:<14} {d['failed']}/{d['of']}; smallest {_compact(smallest.get('instance'))}{where}")


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
