"""``geosched plot`` and ``geosched lessons``: the teaching commands.

``geosched plot KIND [WORKLOAD] --out FILE`` draws one picture of :mod:`geosched.teaching.plot` (``memory``,
``gantt``, ``certificate``, ``compare``, ``family``, ``ratio-curve``) and writes it as PNG, SVG or PDF; an existing
file is kept unless ``--force``. ``geosched lessons --out DIR`` writes the lessons as Jupyter
notebooks (:mod:`geosched.teaching.lessons`). Registered by :func:`geosched.cli.build_parser` through
``add_commands(subparsers, common)``.
"""

from __future__ import annotations

import argparse

from geosched.arguments import (
    MEMORY_OVERRIDE,
    SEED_WORKLOAD,
    add_command,
    add_work_limits,
    seconds,
    show_progress,
)

__all__ = ["add_commands"]

PLOT_KINDS = ("memory", "gantt", "certificate", "compare", "family", "ratio-curve")


def add_commands(subparsers, common: argparse.ArgumentParser) -> None:
    """Register ``plot`` and ``lessons``."""
    p = add_command(
        subparsers, "plot", common, memory=MEMORY_OVERRIDE, seed=SEED_WORKLOAD,
        help="draw a schedule, its certificate, a family's ratio or policies beside OPT",
        description="Draw one picture and write it to --out (.png, .svg or .pdf). memory: the memory-time "
                    "picture (staircases, M, blocked steps); gantt: a Gantt chart; certificate: Lemma A.2's "
                    "peak mass against (1 - alpha) M at every blocked step; compare: policies and OPT side by "
                    "side; family: a bad family's ratio against its size; ratio-curve: SVF's worst ratio against "
                    "alpha (certified witnesses and families' limits below, proved bounds above, with the ledger's "
                    "words of a quick run). An existing --out is kept unless --force.",
        examples=["geosched plot memory example --policy svf --out svf.png",
                  "geosched plot compare burst:n=8,seed=1 --out compare.svg",
                  "geosched plot ratio-curve --out ratio-curve.png"])
    p.add_argument("kind", choices=PLOT_KINDS, help="which picture")
    p.add_argument("workload", nargs="?", default="example",
                   help="instance .json or generator spec (default: example, the paper's {(6,3), (1,5)}, M = 12)")
    p.add_argument("--policy", default="svf", help="policy whose schedule is drawn (memory, gantt, certificate)")
    p.add_argument("--schedule", default=None, help="memory/gantt: draw this schedule .json instead of a policy's")
    p.add_argument("--policies", default="svf,sjf,fcfs", help="compare: comma-separated policies")
    p.add_argument("--no-opt", action="store_true", help="compare: leave OPT out")
    p.add_argument("--time-limit", type=seconds, default=10.0, help="compare: seconds for OPT (default 10)")
    p.add_argument("--family", default="sjf-blocking", help="family: sjf-blocking or kong.sjf_unbounded")
    p.add_argument("--sizes", default="2:8", help="family: sizes as LO:HI (inclusive) or a list 2,3,5")
    p.add_argument("--witnesses", default=None,
                   help="ratio-curve: folder of witness .json files (default: the repository's docs/witnesses)")
    p.add_argument("--out", default=None, help="output file (default: geosched-KIND.png)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    add_work_limits(p)
    p.set_defaults(handler=_cmd_plot)

    p = add_command(
        subparsers, "lessons", common, help="copy the lessons as Jupyter notebooks to a folder",
        description="Convert the documentation's lessons (MyST markdown) to .ipynb notebooks in --out and say "
                    "how to open them. Existing notebooks are kept unless --force.",
        examples=["geosched lessons --out geosched-lessons"])
    p.add_argument("--out", default="geosched-lessons", help="folder (default: geosched-lessons)")
    p.add_argument("--force", action="store_true", help="overwrite existing notebooks")
    p.set_defaults(handler=_cmd_lessons)


def _sizes(text: str) -> list[int]:
    from geosched.errors import ValidationError

    try:
        if ":" in text:
            low, high = (int(part) for part in text.split(":", 1))
            sizes = list(range(low, high + 1))
        else:
            sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValidationError("--sizes", text, "must be LO:HI or a comma-separated list of integers") from None
    if not sizes or len(sizes) > 40:
        raise ValidationError("--sizes", text, "must name between 1 and 40 sizes")
    return sizes


def _picture(args: argparse.Namespace):
    from geosched.reference_impl.workloads import load_workload
    from geosched.teaching import plot

    if args.kind == "family":
        return plot.family_ratio_picture(args.family, _sizes(args.sizes))
    if args.kind == "ratio-curve":
        from geosched.teaching.ratio_curve import WITNESS_DIR, ratio_curve_data

        return plot.ratio_curve_picture(ratio_curve_data(witnesses=args.witnesses or WITNESS_DIR))
    instance = load_workload(args.workload, memory=args.memory, seed=args.seed)
    if args.kind == "certificate":
        return plot.certificate_picture(instance, args.policy)
    if args.kind == "compare":
        policies = [p.strip() for p in args.policies.split(",") if p.strip()]
        if not policies:
            from geosched.errors import ValidationError

            raise ValidationError("--policies", args.policies, "give at least one policy name")
        return plot.compare_picture(instance, policies, opt=not args.no_opt, time_limit=args.time_limit)
    if args.schedule is not None:
        from geosched.reference_impl.model import read_schedule

        starts, label = read_schedule(args.schedule), f"schedule {args.schedule}"
    else:
        from geosched.reference_impl.simulation import simulate

        starts, label = simulate(instance, args.policy).starts, args.policy
    draw = plot.memory_picture if args.kind == "memory" else plot.gantt
    picture = draw(instance, starts)
    picture.figure.axes[0].set_title(f"{label}: {picture.figure.axes[0].get_title()}")
    return picture


def _cmd_plot(args: argparse.Namespace) -> int:
    from geosched.output import check_target, emit_json, working

    out = check_target(args.out or f"geosched-{args.kind}.png", force=args.force)  # before any work
    with working(f"plot {args.kind}" + (" (solving OPT)" if args.kind == "compare" and not args.no_opt else ""),
                 show_progress(args)):
        picture = _picture(args)
        picture.save(out, force=args.force)
    if args.json:
        emit_json({"kind": args.kind, "out": str(out), "seed": args.seed, **picture.to_dict()})
    else:
        print(f"{picture.message}\nwrote {out}")
    return 0


def _cmd_lessons(args: argparse.Namespace) -> int:
    from geosched.output import emit_json, working
    from geosched.teaching.lessons import export_lessons

    with working("lessons", show_progress(args)):
        result = export_lessons(args.out, force=args.force)
    if args.json:
        emit_json(result.to_dict())
    else:
        for path in result.notebooks:
            print(path)
        print(result.message)
    return 0
