"""``geosched predictor train`` and ``geosched predictor eval``: learned length predictors.

* ``train --trace PATH --kind point|onebit|dist --out FILE``: train on the first 70% of the
  trace by time, score on the last 30%, write the model file (atomically) and print its test
  metrics.
* ``eval [--trace PATH ...] [--model FILE ...]``: the accuracy table on the test part: the
  baselines (global median, per-bucket empirical distribution) and each model (default: the
  shipped models trained on that trace, else the three Azure ones); with several ``--trace``, every
  trace's shipped models and baselines scored on every trace's test part (per trace and across).

``--trace`` (any trace geosched reads: an Azure-format CSV, the Mooncake trace, ...) defaults to the shared
Azure trace beside the project. Both take ``--json``; ``train``
also ``--seed`` (torch's initialisation and the mini-batch order); ``eval`` has nothing random.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from geosched.arguments import add_command, integer, positive_int, show_progress
from geosched.errors import ValidationError, WorkloadFormatError
from geosched.output import emit_json

__all__ = ["add_commands"]


def add_commands(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Register ``predictor train`` and ``predictor eval``."""
    parser = add_command(
        subparsers, "predictor", None, help="train and evaluate learned output-length predictors",
        description="Learned output-length predictors (torch): train a model on the first 70% of a trace by "
                    "time, or print the accuracy table of models and baselines on the last 30%.",
        examples=["geosched predictor eval", "geosched predictor train --kind onebit --out onebit.json"])
    sub = parser.add_subparsers(dest="predictor_command", metavar="ACTION")
    sub.required = True

    p = add_command(
        sub, "train", common, help="train a model on a trace (70/30 split by time)",
        seed="seed of the initial weights and the mini-batch order (>= 0; default 0; the model file records it)",
        description="Train a point, 1-bit or distribution model on the first 70% of an Azure-format trace by time, "
                    "score it on the rest, and write the model file (an existing one is kept unless --force; "
                    "when the write fails the trained model is kept in a fallback file and the error says where).",
        examples=["geosched predictor train --kind onebit --out onebit.json --epochs 10"])
    p.add_argument("--trace", default=None, help="the trace (any format geosched reads; default: the shared Azure "
                                                 "trace)")
    p.add_argument("--kind", required=True, choices=("point", "onebit", "dist"))
    p.add_argument("--out", required=True, help="model file to write (JSON)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--epochs", type=positive_int, default=None, help="passes over the training part (default 40)")
    p.add_argument("--theta", type=positive_int, default=None, help="1-bit threshold (default: median training output)")
    p.add_argument("--features", default=None, help="comma-separated feature names (default: the validated set)")
    p.add_argument("--limit", type=integer, default=None, help="read at most this many rows")
    p.set_defaults(handler=_cmd_train)

    p = add_command(
        sub, "eval", common, help="accuracy table of models and baselines on the test part",
        description="Print the accuracy table on the last 30% of a trace by time: the baselines (global median, "
                    "per-bucket empirical distribution) and each model (default: the three shipped ones).",
        examples=["geosched predictor eval", "geosched predictor eval --model onebit.json --json"])
    p.add_argument("--trace", action="append", default=None,
                   help="a trace (repeatable: per trace and across traces; default: the shared Azure trace)")
    p.add_argument("--model", action="append", default=None,
                   help="model file (repeatable, one trace only; default: the shipped models of the trace)")
    p.add_argument("--limit", type=integer, default=None, help="read at most this many rows")
    p.set_defaults(handler=_cmd_eval)


def _trace_log(args: argparse.Namespace, trace: str | None = None):
    from geosched.reference_impl.predictors.tracelog import read_trace_log
    from geosched.reference_impl.workloads import default_trace_path

    path = trace or args.trace or default_trace_path()
    if path is None:
        raise WorkloadFormatError("--trace: no trace given and ../shared/traces/azure_llm_2023_conv.csv not found")
    if args.limit is not None and args.limit < 2:
        raise ValidationError("--limit", args.limit, "must be >= 2")
    return read_trace_log(path, limit=args.limit), Path(path)


def _cmd_train(args: argparse.Namespace) -> int:
    from geosched.output import check_target
    from geosched.reference_impl.predictors.training import TrainingConfig, train_model

    out = check_target(args.out, force=args.force)  # before training: a refused --out costs nothing
    log, path = _trace_log(args)
    options: dict[str, Any] = {"kind": args.kind, "seed": args.seed if args.seed is not None else 0}
    if args.epochs is not None:
        options["epochs"] = args.epochs
    if args.theta is not None:
        options["theta"] = args.theta
    if args.features:
        options["features"] = tuple(f.strip() for f in args.features.split(",") if f.strip())
    config = TrainingConfig(**options)
    command = "geosched predictor train " + " ".join(shlex.quote(a) for a in (
        "--trace", path.name, "--kind", args.kind, "--seed", str(config.seed),
        *(("--epochs", str(args.epochs)) if args.epochs is not None else ()),
        *(("--theta", str(args.theta)) if args.theta is not None else ()),
        *(("--features", args.features) if args.features else ()),
        *(("--limit", str(args.limit)) if args.limit is not None else ())))
    from geosched.output import working

    with working(f"training {args.kind} on {path.name}", show_progress(args)):
        result = train_model(log, config, source=path.name, command=command)
    _save_or_rescue(result.model, out, args.force)
    if args.json:
        emit_json({"out": str(out), **result.to_dict(), "provenance": result.model.provenance})
        return 0
    from geosched.reference_impl.predictors.training import format_accuracy_table

    print(f"trained {args.kind} on {result.train_rows} requests of {path.name} in {result.train_seconds:.1f} s "
          f"(seed {config.seed}); tested on the last {result.test_rows}")
    print(format_accuracy_table([result.metrics]))
    print(f"wrote {out}")
    return 0


def _save_or_rescue(model: Any, out: Path, force: bool) -> None:
    """Write the model file; when that fails, keep the finished training in a fallback file and
    say where (:func:`geosched.output.rescue_text`), exit 2: training is never discarded."""
    from geosched.output import OutputError, rescue_text, write_text_atomic
    from geosched.reference_impl.predictors.artifact import model_text

    text = model_text(model)
    try:
        write_text_atomic(out, text, force=force)
    except OutputError as exc:
        kept = rescue_text(out, text)
        where = f"the trained model was kept in {kept}" if kept else "the trained model could not be kept anywhere"
        raise OutputError(f"{exc}; {where}") from None


def _cmd_eval(args: argparse.Namespace) -> int:
    from geosched.reference_impl.predictors.artifact import default_model_path, load_model
    from geosched.reference_impl.predictors.training import accuracy_table, shipped_models_for

    traces = args.trace or [None]
    if len(traces) > 1:
        return _eval_across(args, traces)
    log, path = _trace_log(args, traces[0])
    own = shipped_models_for(log)
    files = args.model or [str(own.get(kind) or default_model_path(kind)) for kind in ("point", "onebit", "dist")]
    models = {}
    for file in files:
        model = load_model(file)
        label = f"learned {model.kind}" if not args.model else f"{model.kind} ({Path(file).name})"
        models[label] = model
    from geosched.output import working

    with working("predictor eval", show_progress(args)):
        table = accuracy_table(log, models)
        held_out = {label: _held_out(model, log) for label, model in models.items()}
    if args.json:
        emit_json({"trace": path.name, "held_out": held_out, **table.to_dict()})
        return 0
    print(f"{path.name}: trained on the first {table.train_rows} requests by time, tested on the last "
          f"{table.test_rows}; theta = {table.theta} (long iff o > theta)")
    print(table.text())
    for label, ok in held_out.items():
        if not ok:
            print(f"note: {label} was not trained on the first 70% of this trace (its data hash differs): "
                  "the test part may not be held out")
    return 0


def _eval_across(args: argparse.Namespace, traces: list[str]) -> int:
    """Several traces: each trace's shipped models and baselines on every trace's test part."""
    from geosched.output import working
    from geosched.reference_impl.predictors.artifact import load_model
    from geosched.reference_impl.predictors.training import accuracy_across, shipped_models_for
    from geosched.reference_impl.workloads import trace_label

    if args.model:
        raise ValidationError("--model", args.model[0], "takes one --trace (with several, each trace's shipped "
                              "models are used)")
    logs = {}
    for trace in traces:
        log, path = _trace_log(args, trace)
        if trace_label(path) in logs:
            raise ValidationError("--trace", trace, "names a trace already given (by its file name)")
        logs[trace_label(path)] = log
    models = {label: {kind: load_model(file) for kind, file in shipped_models_for(log).items()}
              for label, log in logs.items()}
    with working("predictor eval", show_progress(args)):
        tables = accuracy_across(logs, models)
    if args.json:
        emit_json({"traces": {label: table.to_dict() for label, table in tables.items()},
                   "models": {label: sorted(kinds) for label, kinds in models.items()}})
        return 0
    for label, table in tables.items():
        print(f"tested on {label}: the last {table.test_rows} requests by time (rows: trained on each trace; "
              "1-bit columns at the training trace's theta)")
        print(table.text() + "\n")
    for label, kinds in models.items():
        if not kinds:
            print(f"note: no shipped model was trained on {label} (train one with geosched predictor train): "
                  "baselines only")
    return 0


def _held_out(model: Any, log: Any) -> bool:
    """True when the model's training-data hash is that of this log's training part."""
    from geosched.reference_impl.predictors.artifact import training_data_hash
    from geosched.reference_impl.predictors.training import time_split

    fraction = model.provenance.get("config", {}).get("train_fraction", 0.7)
    train, _ = time_split(log, fraction)
    return model.provenance.get("data_sha256") == training_data_hash(log.subset(train))
