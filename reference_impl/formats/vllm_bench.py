"""The ``vllm-bench`` workload format: vLLM's benchmark ``timed_trace`` JSON lines, for a replay in vLLM.

The JSON-lines ``timed_trace`` dataset of vLLM 0.33's ``vllm bench serve``
(``--dataset-name timed_trace --dataset-path FILE``, which ignores EOS, so that every request
produces exactly ``output_length`` tokens). Lines are in *send order*: by arrival, then by the
tie order (position; the witness's tie rule when exporting a witness), because the client sends
line after line and fires requests with equal timestamps as concurrent tasks, whose order is
lost. Equal arrivals are therefore *staggered*: ``timestamp = arrival * step_seconds + rank *
tie_gap_seconds``, ``rank`` = place among the requests of that arrival step, and the export
refuses a gap for which a staggered request could be read as the next step
(``(k - 1) * tie_gap_seconds < step_seconds / 2`` for ``k`` equal arrivals). Fields:
``timestamp``, ``input_length`` = ``s + 1`` (vLLM's prompt: the model's ``s`` is vLLM's
``P - 1``, ``docs/vllm.md``, step correspondence), ``output_length`` = ``o``, ``hash_ids`` (one
fresh id per 16-token chunk, so no two requests share a cached prefix), and geosched's own
``request_id``, ``geosched_arrival_step``, ``geosched_prompt`` (not ``prompt``, which is the
text field of vLLM's ``custom`` dataset) and ``geosched_position`` (the order of the instance,
restored on reading). The first line also carries ``geosched_workload``: the memory, the
step-to-seconds mapping, the tie order and whether the witness's ratio depends on it, and the
``vllm serve`` settings (:mod:`geosched.reference_impl.formats.serving`). vLLM ignores unknown fields.

Exporting (``geosched export WITNESS --format vllm-bench``) also writes ``NAME.replay.sh``: the
``vllm serve`` settings and the ``vllm bench serve`` command that replay the file
(:func:`export_plan`, :func:`plan_export`), once vLLM 0.33's own parser, engine-config builder and
GPU attention backends accept the settings (:mod:`geosched.reference_impl.formats.server_check`; the
verdict is the first line's ``server_check``). A token-grain witness (block size 1, which every CUDA
backend refuses) gets the file without the script, and a warning that names the block-grain path.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> rows = write(burst_instance(12, [(6, 3), (1, 5)]), step_seconds=0.025).splitlines()
>>> [json.loads(row)["timestamp"] for row in rows]
[0.0, 0.002]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from geosched import limits
from geosched.arguments import non_negative_float, scheduler_file_spec
from geosched.errors import LimitError, ValidationError, WorkloadFormatError
from geosched.reference_impl.code_names import builtin_name
from geosched.reference_impl.formats.common import check_step_seconds, first_json_line, integer_field
from geosched.reference_impl.formats.jsonl import json_rows
from geosched.reference_impl.formats.registry import Companion, ExportPlan, ExportSource, WorkloadFormat
from geosched.reference_impl.model import MAX_VALUE, Instance, Request
from geosched.reference_impl.user_schedulers import scheduler_file_sha256

__all__ = ["FORMAT", "VLLM_CHUNK_TOKENS", "DEFAULT_TIE_GAP_SECONDS", "send_order", "vllm_bench_step_seconds",
           "export_plan"]

VLLM_CHUNK_TOKENS = 16  # vLLM's --timed-trace-chunk-hash-size default: tokens per hash id
# seconds between equal arrivals in a vllm-bench file: large against an asyncio client's send jitter
DEFAULT_TIE_GAP_SECONDS = 0.002
_VLLM_META = "geosched_workload"


def write(instance: Instance, *, step_seconds: float = 0.025, tie_gap_seconds: float | None = None,
          metadata: Mapping[str, Any] | None = None, tie_order: Sequence[int] | None = None,
          max_bytes: int | None = None) -> str:
    """The file's text. ``tie_gap_seconds`` (default :data:`DEFAULT_TIE_GAP_SECONDS`, narrowed to fit when
    the step is too short for it; a gap given explicitly is checked instead), ``metadata`` (merged into
    the first line's ``geosched_workload``) and ``tie_order`` (positions, the send order among equal
    arrivals; default: position order).

    Each line lists one hash id per :data:`VLLM_CHUNK_TOKENS` prompt tokens, so a long prompt makes a large
    file: its size is computed from the instance first, and past ``max_bytes`` (default: the limit in force,
    :mod:`geosched.limits`, ``--max-bytes``) the export is refused before anything is built."""
    limits.check_bytes(hash_id_bytes(instance), max_bytes, "export vllm-bench: the hash_ids lists alone (one id per "
                       f"{VLLM_CHUNK_TOKENS} prompt tokens)")
    try:
        return _vllm_bench_text(instance, check_step_seconds(step_seconds), tie_gap_seconds, metadata or {}, tie_order)
    except MemoryError:  # the machine has less room than the limit allowed: a refusal, not a traceback
        raise LimitError(f"export vllm-bench: the file ({hash_id_bytes(instance)} bytes of hash ids at least) does "
                         "not fit in this machine's memory; lower --max-bytes, or export fewer or shorter requests") \
            from None


def hash_id_bytes(instance: Instance) -> int:
    """The bytes of every ``hash_ids`` list of the file (the ids ``0, 1, ...`` in decimal, each with its
    ``", "`` or bracket): a lower bound on its size, exact in integers, computed without building anything.

    >>> from geosched.reference_impl.model import burst_instance
    >>> hash_id_bytes(burst_instance(10**13, [(10**12, 1)]))  # 62,500,000,001 ids of 1 to 11 digits
    801388888903
    """
    total = sum(-(-(r.prompt + 1) // VLLM_CHUNK_TOKENS) for r in instance.requests)
    digits, low = 0, 0
    for width in range(1, len(str(max(total, 1))) + 1):
        high = min(total, 10**width)
        digits += (high - low) * width
        low = high
    return digits + 2 * total


def vllm_bench_step_seconds(instance: Instance, tie_gap_seconds: float = DEFAULT_TIE_GAP_SECONDS) -> float:
    """The default seconds per step of a ``vllm-bench`` export: 0.025, or wider where equal arrivals need it.

    ``k`` staggered equal arrivals need ``(k - 1) * gap < step / 2``; this returns
    ``max(0.025, 2 * k * gap)`` for the largest ``k``.
    """
    widest = max(Counter(r.arrival for r in instance.requests).values(), default=1)
    return max(0.025, float(2 * widest * _check_tie_gap(tie_gap_seconds)))


def send_order(instance: Instance, tie_order: Sequence[int] | None = None) -> list[int]:
    """Positions in the order a replay must send them: by arrival, then by ``tie_order`` (default: position)."""
    rank = {p: k for k, p in enumerate(tie_order)} if tie_order is not None else None
    if rank is not None and sorted(rank) != list(range(instance.n)):
        raise ValidationError("tie_order", list(tie_order),
                              f"must be a permutation of the positions 0..{instance.n - 1}")
    return sorted(range(instance.n), key=lambda p: (instance.requests[p].arrival, rank[p] if rank else p))


def _vllm_bench_text(instance: Instance, step: Decimal, tie_gap_seconds: Any, metadata: Mapping[str, Any],
                     tie_order: Sequence[int] | None) -> str:
    order = send_order(instance, tie_order)
    ranks: list[int] = []
    for k, p in enumerate(order):
        same = k > 0 and instance.requests[order[k - 1]].arrival == instance.requests[p].arrival
        ranks.append(ranks[-1] + 1 if same else 0)
    widest = max(ranks, default=0)
    if tie_gap_seconds is None:  # the default gap, or the widest that keeps every tie inside its step
        gap = min(Decimal(str(DEFAULT_TIE_GAP_SECONDS)), step / (2 * widest + 2))
    else:
        gap = _check_tie_gap(tie_gap_seconds)
    if widest and Decimal(widest) * gap * 2 >= step:
        raise ValidationError("--tie-gap-seconds", float(gap),
                              f"{widest + 1} requests share an arrival step: {widest} x gap must stay below "
                              f"step_seconds / 2 = {step / 2} (use a larger --step-seconds or a smaller gap)")
    grain = {"block_size": instance.block_size} if instance.block_size != 1 else {}
    meta = {"format": "geosched-vllm-bench", "memory": instance.memory, **grain, "step_seconds": float(step),
            "tie_gap_seconds": float(gap),
            "timestamp_rule": "timestamp = arrival_step * step_seconds + rank * tie_gap_seconds, rank = place among "
                              "equal arrivals in send order; arrival_step = round(timestamp / step_seconds)",
            "send_order": "by arrival, then " + ("the given tie order" if tie_order is not None else "position"),
            **metadata}
    lines, next_hash = [], 0
    for k, p in enumerate(order):
        r = instance.requests[p]
        stamp = Decimal(r.arrival) * step + ranks[k] * gap
        if not math.isfinite(float(stamp)):
            raise ValidationError("step_seconds", float(step), f"makes the timestamp of request {r.id!r} "
                                  f"(arrival step {r.arrival}) overflow a float")
        chunks = -(-(r.prompt + 1) // VLLM_CHUNK_TOKENS)
        row = {"timestamp": float(stamp), "input_length": r.prompt + 1, "output_length": r.output,
               "hash_ids": _IDS, "request_id": r.id,
               "geosched_arrival_step": r.arrival, "geosched_prompt": r.prompt, "geosched_position": p}
        if k == 0:
            row[_VLLM_META] = meta
        head, tail = json.dumps(row).split(json.dumps(_IDS), 1)  # the ids as text, never a list of Python ints
        lines.append(head + _ids_text(next_hash, chunks) + tail)
        next_hash += chunks
    return "\n".join(lines) + "\n"


_IDS = "\x00geosched-hash-ids\x00"  # where a row's hash_ids go (json.dumps escapes it: it cannot be in the data)


def _ids_text(first: int, count: int, chunk: int = 1 << 16) -> str:
    """``json.dumps(list(range(first, first + count)))``, built a chunk of ids at a time (about the text's size in
    memory, not the ~40 bytes per id of a list of ints).

    >>> _ids_text(7, 3, chunk=2) == json.dumps([7, 8, 9])
    True
    """
    return "[" + ", ".join(", ".join(map(str, range(lo, min(lo + chunk, first + count))))
                           for lo in range(first, first + count, chunk)) + "]"


def _check_tie_gap(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValidationError("--tie-gap-seconds", value, "must be a number >= 0")
    return Decimal(str(value))


def read(path: str | Path, *, memory: int | None = None, step_seconds: float = 0.025) -> Instance:
    """The instance of a ``timed_trace`` file: ``memory`` for a trace without geosched's ``memory``,
    ``step_seconds`` for one without ``geosched_arrival_step`` (a file's own ``step_seconds`` wins)."""
    path = Path(path)
    return _read_vllm_bench(path, json_rows(path), memory, step_seconds)


def detect(path: Path) -> bool:
    """Whether the first line is a ``timed_trace`` line (it has ``input_length``)."""
    first = first_json_line(path)
    return isinstance(first, Mapping) and "input_length" in first


def _read_vllm_bench(path: Path, rows: list[tuple[int, Any]], memory: int | None, step_seconds: float) -> Instance:
    meta = rows[0][1].get(_VLLM_META, {}) if isinstance(rows[0][1], Mapping) else {}
    if not isinstance(meta, Mapping):
        raise WorkloadFormatError(f"{path}:{rows[0][0]}: {_VLLM_META!r} must be an object")
    if "step_seconds" in meta:
        step_seconds = meta["step_seconds"]
    step = float(check_step_seconds(step_seconds))
    requests, memories, positions = [], {meta["memory"]} if "memory" in meta else set(), []
    for number, row in rows:
        where = f"{path}:{number}"
        if not isinstance(row, Mapping):
            raise WorkloadFormatError(f"{where}: expected a JSON object")
        requests.append(_vllm_bench_request(row, where, step, len(requests)))
        if "memory" in row:  # files written before geosched_workload carried it on every line
            memories.add(integer_field(row, "memory", where))
        given = "geosched_position" in row
        positions.append(integer_field(row, "geosched_position", where) if given else len(positions))
    if sorted(positions) != list(range(len(requests))):
        raise WorkloadFormatError(f"{path}: 'geosched_position' must number the lines 0..{len(requests) - 1} once each")
    if len(memories) == 1:  # the file's own M wins, as in every format (``memory`` is for a file without one)
        memory = memories.pop()
    elif memory is None:
        raise WorkloadFormatError(f"{path}: no single 'memory' field in the trace; pass --memory M")
    ordered = [request for _, request in sorted(zip(positions, requests, strict=True), key=lambda pair: pair[0])]
    return Instance(memory, ordered, meta.get("block_size", 1))


def _vllm_bench_request(row: Mapping[str, Any], where: str, step: float, index: int) -> Request:
    output = integer_field(row, "output_length", where)
    if "geosched_prompt" in row:
        prompt = integer_field(row, "geosched_prompt", where)
    elif isinstance(row.get("prompt"), int) and not isinstance(row.get("prompt"), bool):
        prompt = row["prompt"]  # geosched's field before it was renamed (vLLM's custom dataset: text)
    else:
        prompt = integer_field(row, "input_length", where) - 1
    arrival_key = next((k for k in ("geosched_arrival_step", "arrival_step") if k in row), None)
    if arrival_key is not None:
        arrival = integer_field(row, arrival_key, where)
    else:
        arrival = _vllm_arrival(row.get("timestamp"), step, where)
    rid = row.get("request_id", f"r{index}")
    if not isinstance(rid, str):
        raise WorkloadFormatError(f"{where}: 'request_id' must be a string, got {rid!r}")
    return Request(rid, arrival, prompt, output)


def _vllm_arrival(stamp: Any, step: float, where: str) -> int:
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp):
        raise WorkloadFormatError(f"{where}: 'timestamp' must be a number, got {stamp!r}")
    steps = stamp / step
    if not math.isfinite(steps) or abs(steps) > MAX_VALUE:
        raise ValidationError(f"{where}: timestamp", stamp, f"is past the last arrival step geosched represents "
                              f"(2^53 steps of {step} s)")
    return round(steps)




def export_plan(instance: Instance, report: Mapping[str, Any] | None = None, *, policy: str | None = None,
                engine: Mapping[str, Any] | None = None, scheduler_cls: str | None = None,
                scheduler_sha256: str | None = None) -> tuple[list[int] | None, dict[str, Any]]:
    """How to export ``instance`` for a vLLM replay: of a witness, from the referee's ``report`` of it
    (:meth:`geosched.adversary.witness.WitnessReport.to_dict` of a verified witness: every number in it was
    derived from the instance, none copied from the witness file), or of a workload, with the caller's own
    ``policy`` (the send order) and ``engine`` (the batch limits).

    Returns the send order among equal arrivals (``None``: position order) and the metadata of
    the file's first line: the referee's numbers and tie rule, whether the ratio depends on the
    tie order (its reversed-tie re-run), and the ``vllm serve`` settings
    (:func:`geosched.reference_impl.formats.serving.server_settings`, at the instance's ``block_size``:
    ``geosched export --block-size B`` sets it; the engine of a vLLM target is the referee's, derived from
    the instance). Stock vLLM's priority queue orders equal priorities by arrival time, then by request id
    *string*: an export for that target is sent in id-string order within each arrival step, so that the
    staggered arrival times a server stamps keep that order.

    Raises
    ------
    ValidationError
        When ``report`` is not a verified report (an export carries only numbers the referee derived), or
        the instance's ``block_size`` is not the grain the witness was certified at: a server at another
        block size would not run its schedule.
    """
    from geosched.reference_impl.formats.serving import server_settings

    if report is not None:
        if report.get("status") != "verified" or report.get("ok") is not True or policy is not None or engine:
            raise ValidationError("witness", report.get("status"), "an export of a witness takes the referee's report "
                                  "of a verified witness, and nothing else (geosched check-witness shows why not)")
        policy, engine = report["policy"], report.get("engine")
        refuse_other_grain(report, instance.block_size)
    settings = server_settings(instance, engine=engine, scheduler_cls=scheduler_cls,
                               scheduler_sha256=scheduler_sha256)
    meta: dict[str, Any] = {"server": settings.to_dict()}
    if report is not None:
        meta.update({"policy": report["policy"] if builtin_name("policy", report["policy"]) else None,
                     "policy_tel": report["policy_tel"], "witness_tel": report["witness_tel"],
                     "certified_ratio": report["certified_ratio"],
                     "certified_ratio_exact": report["certified_ratio_exact"],
                     "tie_rule": report["tie_rule"], "tie_order_sensitive": report["depends_on_ties"],
                     "reversed_ties_policy_tel": report["reversed_ties_tel"], "certified_by": "geosched check-witness"})
    order = None
    if policy == "vllm-priority":
        order = sorted(range(instance.n), key=lambda p: (instance.requests[p].arrival, instance.requests[p].id))
    return order, meta


def refuse_other_grain(witness: Mapping[str, Any] | None, block: int) -> None:
    """Refuse to export ``witness`` at block size ``block`` when it was certified at another grain: a
    server at ``block`` would not run its schedule (the export command also asks this first, so that a
    memory that ``block`` does not divide gets this reason, not only the divisibility)."""
    grain = _certified_grain(witness)
    if grain is not None and grain != block:
        raise ValidationError("--block-size", block,
                              f"the witness was certified at block size {grain}: a server at {block} would not run "
                              f"its schedule; export at {grain}, or hunt at block grain {block} "
                              f"(hunt --block-size {block})")


def _certified_grain(witness: Mapping[str, Any] | None) -> int | None:
    """The block size a witness was certified at: the referee's report's (the instance's), its instance's (the
    one place a witness file carries it), else its engine's; None for a workload or a witness that states
    neither."""
    if not witness:
        return None
    if witness.get("status") == "verified" and isinstance(witness.get("block_size"), int):
        return witness["block_size"]
    own = witness.get("instance")
    if isinstance(own, Instance):
        return own.block_size
    if isinstance(own, Mapping):
        return int(own.get("block_size", 1))
    engine = witness.get("engine")
    return int(engine["block_size"]) if isinstance(engine, Mapping) and "block_size" in engine else None


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """``geosched export``'s options for this format."""
    parser.add_argument("--tie-gap-seconds", type=non_negative_float, default=DEFAULT_TIE_GAP_SECONDS,
                        help="vllm-bench: seconds between requests of equal arrival, so that a replay sends them in "
                        "the instance's order (default 0.002; (k-1) x gap must stay below step-seconds / 2)")
    parser.add_argument("--scheduler-cls", type=scheduler_file_spec, default=None, metavar="FILE.py:Class",
                        help="vllm-bench: a plugin scheduler of your own for the vllm serve settings (default: stock "
                        "vLLM): the export records the file's SHA-256, and serve-model runs it only when you name a "
                        "file with that SHA-256 again (NAME.replay.sh asks for its module path)")
    parser.add_argument("--no-vllm-check", dest="vllm_check", action="store_false",
                        help="vllm-bench: check the server settings with geosched's record of vLLM 0.33's block-size "
                        "rule only, not with vLLM's own parser, engine config and backends (when vLLM is installed "
                        "they run, in a subprocess: about the time of `import vllm`)")


def plan_export(source: ExportSource, args: argparse.Namespace) -> ExportPlan:
    """The send order and metadata (:func:`export_plan`), the default step, and ``NAME.replay.sh``.

    The server settings are checked as vLLM 0.33 checks them
    (:func:`geosched.reference_impl.formats.server_check.check_server_settings`) and the verdict goes into
    the metadata (``server_check``). A block size that vLLM's GPU backends refuse is an error when asked
    for with ``--block-size``; when it is the witness's or workload's own grain (token grain: 1), the file is written
    without ``NAME.replay.sh`` and a warning names the block-grain path and the CPU replay. Any other
    refusal of vLLM (its parser, its engine config) is an error naming vLLM's reason.
    """
    from geosched.progress import note
    from geosched.reference_impl.formats.server_check import check_server_settings
    from geosched.reference_impl.formats.serving import ServerSettings, replay_script

    instance = source.instance
    sha = scheduler_file_sha256(args.scheduler_cls) if args.scheduler_cls else None  # read, never imported
    order, meta = export_plan(instance, source.witness(), scheduler_cls=args.scheduler_cls, scheduler_sha256=sha)
    server = ServerSettings.from_dict(meta["server"])
    stem = next(args.out[: -len(s)] for s in FORMAT.suffixes if args.out.endswith(s))

    check = check_server_settings(server, use_vllm=None if getattr(args, "vllm_check", True) else False,
                                  progress=lambda line: note(f"{line} (--no-vllm-check skips it)"))
    meta["server_check"] = check.to_dict()
    plan = ExportPlan(options={"tie_gap_seconds": args.tie_gap_seconds, "metadata": meta, "tie_order": order},
                      step_seconds=vllm_bench_step_seconds(instance, args.tie_gap_seconds))
    script = Companion(stem + ".replay.sh", replay_script(server, args.out, instance.n),
                       "the vllm serve settings and the vllm bench serve command that replay it")
    if check.accepted is None:
        plan = replace(plan, warnings=(f"vLLM could not check the server settings ({'; '.join(check.problems)}); "
                                       f"{script.path} is written unchecked",))
    if check.accepted is not False:
        return replace(plan, companions=(script,))
    return _refused(check, args, plan, instance, meta, stem)


def _refused(check: Any, args: argparse.Namespace, plan: ExportPlan, instance: Instance, meta: Mapping[str, Any],
             stem: str) -> ExportPlan:
    """A refused server: an error, or (the witness's own token grain) the file alone and a warning."""
    from geosched.reference_impl.formats.server_check import VLLM_VERSION, block_grain_fix

    witness = "policy" in meta
    fix = block_grain_fix(instance.memory, meta.get("policy"), Path(stem).name, witness=witness)
    if not check.block_refused:
        raise ValidationError("server settings", meta["server"], f"vLLM {VLLM_VERSION} refuses them: "
                              + "; ".join(check.problems))
    rule = f"rejected by every CUDA attention backend of vLLM {VLLM_VERSION} (multiples of 16)"
    if getattr(args, "block_size", None) is not None:
        raise ValidationError("--block-size", args.block_size, f"{rule}; {fix}")
    grain = ("the witness's grain" if witness else "token grain, the default" if instance.block_size == 1
             else "the workload's own block size")
    return replace(plan, warnings=(
        f"{stem}.replay.sh not written: block size {check.block_size} ({grain}) is {rule}; for a GPU replay, {fix}; "
        f"{args.out} itself replays on CPU, at its grain, in vLLM's engine core: "
        f"`python benchmarks/gpu_replay.py {args.out} --server step`",))


FORMAT = WorkloadFormat(
    name="vllm-bench", suffixes=(".jsonl",), order=30, read=read, write=write, detect=detect,
    label="vLLM benchmark", add_export_arguments=add_export_arguments, plan_export=plan_export,
    description="vLLM's `vllm bench serve` timed_trace JSON lines (staggered ties; writes NAME.replay.sh too)")
