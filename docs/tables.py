"""Regenerate the docs' computed tables from their runs: ``python docs/tables.py [--check] [--block NAME]``.

Every table of ``docs/`` that shows a status word or a figure is generated (issue 35, item 3). Those of
the ledger (docs/claims.md, docs/proved.md) come from ``python -m geosched.verify.ledger --write-docs``,
the SageSched sweep's from ``geosched.verify.sagesched_sweep``, the SVF worst-case table from
``geosched.teaching.ratio_curve``; every other one is listed in :data:`TABLES` here, with the run it
comes from:

* docs/theory.md's derivation words: :func:`geosched.theory.check_claim` of every derivation, run here;
* docs/predictions.md's accuracy and scheduling tables, per trace and across traces: the record
  ``docs/predictions_run.json`` written by ``python benchmarks/bench_predictions.py --record
  docs/predictions_run.json`` (every trace of ../shared/traces;
  ``tests/test_docs_tables.py`` re-runs it when the trace is there and compares the record);
* docs/adversary.md's table of certified witnesses: every file of ``docs/witnesses/`` re-verified by the
  referee here (the numbers are the referee's, derived from each instance, never the file's own);
* docs/claims.md's game values of Jaillet et al.'s Thm. 4.1: :func:`geosched.verify.game.solve_game`, run here;
* docs/sagesched.md's step-time parameters: :data:`geosched.reference_impl.cluster.steptime.STEP_TIME_MODELS`;
* docs/claims.md's exhaustive spaces: the spaces of :mod:`geosched.verify.exhaustive` and ``count_instances``;
* docs/verification.md's policy state spaces: ``Bounds()`` and ``THOROUGH`` of
  :mod:`geosched.verify.policy_spec`, counted by :func:`count_states`;
* docs/architecture.md's before/after structure of ``reference_impl/``: the record
  ``docs/review_structure_run.json`` written by ``python benchmarks/review_measures.py --structure --record
  docs/review_structure_run.json --before 70b4101 --after 60934ea`` (re-measured by the test, about 3 s).

The ledger's default blocks are rendered from the record ``docs/ledger_default_run.json`` that
``--write-docs`` keeps beside the page. Every generated marker must have a writer (:data:`OTHER_WRITERS`
names those outside this file): ``unowned_blocks``.

``--check`` exits 1 naming each block that differs from a fresh rendering (``tests/test_docs_tables.py``
runs it, and ``tests/test_docs_claims.py`` the derivation words); a guard test fails on a table outside
generated blocks that shows a figure or a status word.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from geosched.errors import AddedAfterRecord  # the warning added_after gives; in the package for pytest-xdist

DOCS = Path(__file__).resolve().parent
THEORY_PAGE = DOCS / "theory.md"
BLOCK = "derivation words"
PREDICTIONS_RECORD = DOCS / "predictions_run.json"
WITNESS_DIR = DOCS / "witnesses"
GAME_SIZES = (2, 3)  # K = 4 takes about 40 s (the ledger's --thorough run)


# ------------------------------------------------------------------ generated blocks of a page


def _marker(name: str, end: bool = False) -> str:
    return f"<!-- {'end ' if end else ''}generated: {name} -->"


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the lines between the ``generated: name`` markers replaced by ``body`` (the markers
    must be there, once each)."""
    from geosched.errors import ValidationError

    start, end = _marker(name), _marker(name, end=True)
    if text.count(start) != 1 or text.count(end) != 1:
        raise ValidationError("docs marker", start, "must occur exactly once, followed by its end marker")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body.rstrip()}\n{end}{tail}"


def block(text: str, name: str) -> str:
    """The lines between the ``generated: name`` markers."""
    return text.split(_marker(name), 1)[1].split(_marker(name, end=True), 1)[0].strip()


def write_block(path: Path, name: str, body: str) -> Path:
    """Replace the block ``name`` of the page ``path`` by ``body`` (a temporary file renamed into place)."""
    from geosched.output import write_text_atomic

    return write_text_atomic(path, replace_block(path.read_text(), name, body))


def added_after(shown: list[str], registered: list[str], where: str, command: str) -> list[str]:
    """The names of ``registered`` (in its order) that ``shown`` lacks, each announced as an
    :class:`AddedAfterRecord` warning naming ``command``; ``shown`` must be in ``registered``'s order and hold
    nothing else (a removed or renamed row is stale, not new)."""
    import warnings

    stale = [name for name in shown if name not in registered]
    order = [name for name in registered if name in shown]
    if stale or order != shown:
        raise AssertionError(f"{where}: shows {stale or 'rows out of order'} that the registry does not have in this "
                             f"order; regenerate it: {command}")
    missing = [name for name in registered if name not in shown]
    for name in missing:
        warnings.warn(f"{name}: {ADDED_AFTER} ({where}); `{command}` records it", AddedAfterRecord, stacklevel=2)
    return missing


def derivation_table(ids: list[str] | None = None) -> str:
    """The table, from :func:`geosched.theory.check_claim` of every derivation (or of those of ``ids``), in the
    ledger's order."""
    from geosched.theory.registry import check_claim, claim_ids

    lines = ["| id | `Derivation:` (sympy) | steps sympy cannot check, and what checks them in the ledger |",
             "|---|---|---|"]
    for claim_id in claim_ids() if ids is None else [i for i in claim_ids() if i in ids]:
        check = check_claim(claim_id)
        word = check.status
        if check.relative_to:
            word += " to " + ", ".join(check.relative_to)
        elif check.status != "proved":
            word += f" ({check.n_checked} of {len(check.steps)} steps)"
        own = [o for o in check.open_steps if o.claim_id == claim_id]
        steps = "; ".join(f"{o.index}: {_short(o.statement)}"
                          + (f" ({', '.join(f'`{m}`' for m in o.covered_by)})" if o.covered_by else " (none)")
                          for o in own)
        lines.append(f"| `{claim_id}` | {word} | {steps or '-'} |")
    return "\n".join(lines)


def _short(text: str, limit: int = 70) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def documented(path: Path | None = None) -> str:
    """The table as the page has it."""
    return block((path or THEORY_PAGE).read_text(), BLOCK)


def write(path: Path | None = None) -> None:
    """Replace the page's table with a fresh run's (a temporary file renamed into place)."""
    write_block(path or THEORY_PAGE, BLOCK, derivation_table())


def _cell3(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _record() -> dict:
    return json.loads(PREDICTIONS_RECORD.read_text())


def _record_line(record: dict) -> str:
    return (f"Generated by `python docs/tables.py` from `docs/predictions_run.json`, the record of "
            f"`{record['command']}` "
            f"(seed {record['seed']}, geosched {record['versions']['geosched']}, {record['machine']}); "
            "`tests/test_docs_tables.py` re-runs it where the trace is present and compares.")


def _traces_line(record: dict) -> str:
    return "; ".join(f"{t['trace']}: test part {t['accuracy']['test_rows']} requests (trained on the first "
                     f"{t['accuracy']['train_rows']}), theta = {t['accuracy']['theta']}, models {t['models']}"
                     for t in record["traces"])


def accuracy_table() -> str:
    """docs/predictions.md's accuracy table: every predictor trained on each trace, scored on each trace's test
    part (per trace: trained on the same trace; across: on the other), from the record."""
    record = _record()
    lines = [_record_line(record), "", _traces_line(record) + ".", "",
             "| tested on | trained on | predictor | theta | median AE | mean AE | Spearman | 1-bit acc. | flip S->L "
             "| flip L->S | NLL/length | CRPS | cov. 50% | cov. 90% |", "|---" * 14 + "|"]
    for t in record["traces"]:
        for r in t["accuracy"]["rows"]:
            name, _, source = r["name"].partition(" (trained on ")
            lines.append(f"| {t['trace']} | {source.rstrip(')')} | {name} | {r['theta']} | {r['median_ae']:.1f} | "
                         f"{r['mean_ae']:.1f} | {_cell3(r['spearman'])} | {r['accuracy']:.3f} | "
                         f"{r['flip_short']:.3f} | {r['flip_long']:.3f} | {_cell3(r['nll'])} | {r['crps']:.1f} | "
                         f"{_cell3(r['coverage50'])} | "
                         f"{_cell3(r['coverage90'])} |")
    return "\n".join(lines)


SCHEDULING_POLICIES = (("fcfs", "FCFS"), ("sjf", "SJF"), ("svf", "SVF"), ("svf1", "1-bit SVF"),
                       ("svf-E[v]", "SVF on E[v]"))


def scheduling_table() -> str:
    """docs/predictions.md's scheduling table: per trace, mean / P95 latency (s) per load, predictor and policy,
    and the evictions, from the record."""
    record = _record()
    lines = [_record_line(record), ""]
    for t in record["traces"]:
        sched = t["scheduling"]
        lines.append(f"{sched['source']}; {sched['step_seconds']} s per step; models "
                     f"{sched['models']}; 1-bit SVF: theta = {sched['one_bit']['theta']}, "
                     f"O_0 = {sched['one_bit']['short_length']}, O_1 = {sched['one_bit']['long_length']}; noisy: "
                     f"sigma = {sched['noisy_sigma']:.3f}, seed {sched['seed']}.")
    lines += ["", "Mean / P95 latency in seconds; restarts (runs recomputed because a prediction ran short): the "
                  "fewest and most of the row's policies.", "",
              "| trace | load | predictor | " + " | ".join(label for _, label in SCHEDULING_POLICIES) + " | restarts |",
              "|---|---|---|" + "---|" * (len(SCHEDULING_POLICIES) + 1)]
    for t in record["traces"]:
        cells = {(c["load"], c["predictor"], c["policy"]): c for c in t["scheduling"]["cells"]}
        rows = sorted({(c["load"], c["predictor"]) for c in t["scheduling"]["cells"]},
                      key=lambda k: (k[0], ("oracle", "learned", "noisy").index(k[1])))
        for load, predictor in rows:
            row = [cells.get((load, predictor, policy)) for policy, _ in SCHEDULING_POLICIES]
            shown = " | ".join(f"{c['mean_latency']:.1f} / {c['p95_latency']:.1f}" if c else "" for c in row)
            restarts = [c["restarts"] for c in row if c]
            lines.append(f"| {t['trace']} | {load:g} | {predictor} | {shown} | {min(restarts)}-{max(restarts)} |")
    return "\n".join(lines)


def witness_table() -> str:
    """docs/adversary.md's table of every certified witness, re-verified by the referee (its numbers)."""
    from geosched.adversary.witness import read_witness, verify_witness

    lines = ["Generated by `python docs/tables.py`: every file of `docs/witnesses/` re-verified by the referee "
             "(`geosched check-witness FILE`); alpha, n, M and the ratio are the referee's, derived from the "
             "instance and the named policy; the last column is the file's own note on how it was found.", "",
             "| witness | policy | arrivals | alpha | n | M | certified ratio TEL(A)/TEL(S) "
             "| found by (the file's note) |",
             "|---|---|---|---|---|---|---|---|"]
    for path in sorted(WITNESS_DIR.glob("*.json")):
        data = read_witness(path)
        report = verify_witness(data)
        if not report.ok:
            raise ValueError(f"{path.name}: the referee rejects it: {report.message}")
        ratio = Fraction(report.certified_ratio)
        note = " ".join(str(data.get("found_by", "")).split()).replace("|", "/")
        lines.append(f"| `{path.name}` | `{report.policy}` | {'burst' if report.burst else 'arrivals'} | "
                     f"{report.alpha} | {report.n} | {report.memory} | **{float(ratio):.4f}** "
                     f"({report.policy_tel}/{report.witness_tel}) | {note} |")
    return "\n".join(lines)


def game_table() -> str:
    """docs/claims.md's values of Jaillet et al.'s Thm. 4.1 game, solved here for K in :data:`GAME_SIZES`."""
    from geosched.theory.jaillet_thm4_1 import closed_form_tels
    from geosched.verify.game import solve_game

    lines = ["Generated by `python docs/tables.py` (`solve_game(K)` for K = "
             + ", ".join(map(str, GAME_SIZES)) + "; every schedule re-checked by the checker).", "",
             "| K | n | V_K (every deterministic algorithm) | attained at | K/3 (our derivation's bound) | greedy "
             "policies (closed form) |", "|---|---|---|---|---|---|"]
    for k in GAME_SIZES:
        game = solve_game(k)
        if game.status != "completed" or game.problems:
            raise ValueError(f"K={k}: {game.message}")
        tels = closed_form_tels(k)
        at = f"d = {game.best_d}, {game.adversary_reply}" if game.best_d is not None else "d > K^2, never"
        lines.append(f"| {k} | {game.n} | {game.value_fraction} = {game.value:.3f} | {at} | {k / 3:.3f} | "
                     f"{tels['greedy']}/{tels['witness']} = {tels['greedy'] / tels['witness']:.2f} |")
    return "\n".join(lines)


def steptime_table() -> str:
    """docs/sagesched.md's named step-time parameter sets, as :mod:`geosched.reference_impl.cluster.steptime`
    derives them."""
    from geosched.reference_impl.cluster.steptime import MODELS, STEP_TIME_MODELS

    lines = ["Generated by `python docs/tables.py` from `STEP_TIME_MODELS` (the derivation above, computed).", "",
             "| model @ GPU | c0 (ms) | c1 = c_p (us) | c2 (ns) | M (tokens) |", "|---|---|---|---|---|"]
    for (model, gpu), s in STEP_TIME_MODELS.items():
        gpus = MODELS[model].gpus
        name = f"{model}{f' ({gpus} GPUs)' if gpus > 1 else ''} @ {gpu}"
        lines.append(f"| {name} | {s.c0 * 1e3:.2f} | {s.c1 * 1e6:.1f} | {s.c2 * 1e9:.1f} | {s.memory:,} |")
    return "\n".join(lines)


def exhaustive_table() -> str:
    """docs/claims.md's exhaustive spaces: each run's burst space and its instance count, computed from
    :mod:`geosched.verify.exhaustive` (``count_instances``); the README example's TELs by the simulator and
    ``dp_opt``."""
    from geosched.reference_impl.model import Instance, Request
    from geosched.reference_impl.simulation import simulate
    from geosched.verify import exhaustive as ex

    example = Instance(12, [Request("r0", 0, 6, 3), Request("r1", 0, 1, 5)])
    svf_tel = sum(simulate(example, "svf").completions.values())
    lines = ["Generated by `python docs/tables.py` from the spaces of `geosched.verify.exhaustive` "
             "(`count_instances`); the README example {(6,3),(1,5)}, M = 12 lies in the default space "
             f"(SVF {svf_tel}, OPT {ex.dp_opt(example)[0]}).", "",
             "| run | burst space | instances |", "|---|---|---|"]
    for run, space in (("`--quick`", ex.QUICK_SPACE), ("default", ex.DEFAULT_SPACE),
                       ("`--thorough`", ex.THOROUGH_SPACE), ("default, the variants", ex.DEFAULT_VARIANT_SPACE)):
        lines.append(f"| {run} | {space.label.replace(' | ', '; ')} | {ex.count_instances(space):,} |")
    return "\n".join(lines)


def count_states(bounds) -> int:
    """The number of states ``enumerate_states(bounds)`` yields, counted without building them (the waiting
    tuples of length w number ``len(wait_items) ** w``); tests compare it with the enumeration on small bounds."""
    from geosched.verify import policy_spec as ps

    bounds.validate()
    total = 0
    for memory in range(bounds.min_memory, bounds.max_memory + 1):
        waits = sum(1 for s in range(bounds.max_prompt + 1) for o in range(1, bounds.max_output + 1)
                    if s + o <= memory) * (bounds.max_arrival + 1)
        batches = sum(1 for n in range(bounds.max_running + 1)
                      for b in itertools.combinations_with_replacement(ps._running_items(bounds, memory), n)
                      if ps._batch_feasible(b, memory, bounds.step, bounds.max_output))
        total += batches * sum(waits ** w for w in range(bounds.max_waiting + 1))
    return total


def state_space_table() -> str:
    """docs/verification.md's state spaces of the policy-equivalence check: ``Bounds()`` and ``THOROUGH``
    of :mod:`geosched.verify.policy_spec`, with their state counts (:func:`count_states`)."""
    from geosched.verify.policy_spec import THOROUGH, Bounds

    lines = ["Generated by `python docs/tables.py` from `Bounds()` and `THOROUGH` of `geosched.verify.policy_spec`, "
             "states counted as `enumerate_states` yields them.", "",
             "| bounds | M | t | running | waiting | s | o | arrivals | states |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, b in (("default", Bounds()), ("`thorough=True`", THOROUGH)):
        lines.append(f"| {name} | {b.min_memory}..{b.max_memory} | {b.step} | <= {b.max_running} | "
                     f"<= {b.max_waiting} | 0..{b.max_prompt} | 1..{b.max_output} | 0..{b.max_arrival} | "
                     f"{count_states(b):,} |")
    return "\n".join(lines)


STRUCTURE_RECORD = DOCS / "review_structure_run.json"


def structure_table() -> str:
    """docs/architecture.md's before/after structure of ``reference_impl/`` (issue 31), from the record
    ``docs/review_structure_run.json`` of ``benchmarks/review_measures.py --structure --record``."""
    record = json.loads(STRUCTURE_RECORD.read_text())
    before, after = record["before"]["measures"], record["after"]["measures"]

    def loops(m: dict) -> str:
        return f"{len(m['loops'])}" + "".join(f", of {len(c)} units ({', '.join(c)})" for c in m["loops"])

    def arrows(m: dict) -> str:
        shown = ", ".join(f"{a} -> {b}" for a, b in m["upward_arrows"])
        return f"{len(m['upward_arrows'])}" + (f" ({shown})" if shown else "")

    new = sorted(set(after["floor_of"]) - set(before["floor_of"]))
    gone = sorted(set(before["floor_of"]) - set(after["floor_of"]))
    rows = [("units of `reference_impl/`", f"{before['units']}",
             f"{after['units']} (new: {', '.join(new) or 'none'}; gone: {', '.join(gone) or 'none'})"),
            ("loops", loops(before), loops(after)),
            ("upward arrows", arrows(before), arrows(after)),
            ("floors", f"{before['floors']} ({before['floors_loops_merged']} with each loop as one node)",
             f"{after['floors']} ({after['floors_loops_merged']} with each loop as one node)"),
            ("lines of `reference_impl/`", f"{before['lines']:,}", f"{after['lines']:,}")]
    lines = [f"Generated by `python docs/tables.py` from `docs/review_structure_run.json`, the record of "
             f"`{record['command']}` (before: `{record['before']['commit'][:7]}`, after: "
             f"`{record['after']['commit'][:7]}`, the commit whose page first showed this comparison).", "",
             "| measure | before | after |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines)


# ------------------------------------------------------------------ the ledger's pages (issue 47, item 3)
# docs/claims.md and docs/proved.md show the ledger's rows and the words of a run: the package computes them
# (geosched.verify.ledger: ROWS, run_claims(...).to_dict()), this file writes them.

CLAIMS_PAGE = DOCS / "claims.md"
PROVED_PAGE = DOCS / "proved.md"
DEFAULT_RECORD = DOCS / "ledger_default_run.json"  # the record of the default run the page shows
PAPER_SECTIONS = ("kong", "jaillet", "kong.experiments")  # the rows that are statements of the papers
ADDED_AFTER = "added after the recorded run"
QUICK_COMMAND = "python docs/tables.py --ledger quick"  # about a minute, no trace
DEFAULT_COMMAND = "geosched claims --json > RUN.json; python docs/tables.py --ledger-run RUN.json"  # needs the trace


def claim_ids() -> list[str]:
    """The ledger's rows, in its order."""
    from geosched.verify.ledger import CLAIM_IDS

    return list(CLAIM_IDS)


def words_table(claims: list[dict[str, Any]], mode: str) -> str:
    """The generated status table: one row per claim with its word in ``mode`` (from ``to_dict()`` claims)."""
    from geosched.verify.evidence import EVIDENCE_STATUSES

    counts = {s: sum(c["status"] == s for c in claims) for s in EVIDENCE_STATUSES}
    lines = [f"Generated from a `{mode}` run by `python docs/tables.py --ledger {mode}`"
             + (" (tests/test_ledger.py regenerates it and compares)." if mode == "quick" else "."), "",
             "| claim | word | what was established |", "|---|---|---|"]
    lines += [f"| `{c['id']}` | `{c['status']}` | {c['message'].replace('|', '/')} |" for c in claims]
    lines += ["", f"{len(claims)} claims: " + ", ".join(f"`{k}` {v}" for k, v in counts.items() if v) + "."]
    return "\n".join(lines)


def default_words_table(record: dict[str, Any], ids: list[str]) -> str:
    """The default run's words for the rows ``ids`` (the ledger's order): a row the record lacks is
    ``added after the recorded run``, with the commands that run it and record it."""
    recorded = {c["id"]: c for c in record["claims"]}
    table = words_table([recorded[i] for i in ids if i in recorded], "default").split("\n")
    added = [f"| `{i}` | {ADDED_AFTER} | `geosched claims --claim {i}` runs it; `{DEFAULT_COMMAND}` records it |"
             for i in ids if i not in recorded]
    if not added:
        return "\n".join(table)
    head, rows, counts = table[:4], table[4:-2], table[-1]
    order = {i: k for k, i in enumerate(ids)}
    rows = sorted(rows + added, key=lambda line: order[line.split("`")[1]])
    return "\n".join(head + rows + ["", f"{counts[:-1]}; {len(added)} {ADDED_AFTER}."])


def figures_table(claims: list[dict[str, Any]]) -> str:
    """Every Monte-Carlo and empirical evidence of a run: the statistic, its interval, what flips it."""
    from geosched.verify.ledger import ROWS

    # what would change each empirical row's word (the rule of its method, in words, declared with its row)
    flips_of = {claim.id: claim.flips for claim in ROWS if claim.flips}
    lines = ["| claim | method | word | statistic and interval | what flips it |", "|---|---|---|---|---|"]
    for claim in claims:
        for e in claim["evidence"]:
            if e["kind"] not in ("statistical", "empirical"):
                continue
            flip = (e.get("data") or {}).get("flip_constant")
            flips = ("-" if e["kind"] == "empirical" else "no positive constant (the interval reaches 1)"
                     if flip is not None and flip <= 0 else f"the constant below {flip:.3g}" if flip else "-")
            if e["kind"] == "empirical":
                flips = flips_of.get(claim["id"], "-")
            lines.append(f"| `{claim['id']}` | `{e['method']}` | `{e['status']}` | "
                         f"{e['message'].replace('|', '/')} | {flips} |")
    return "\n".join(lines)


def cores_table(cores: dict[str, Any]) -> str:
    """The symbolic cores of a default run (``extra["cores"]``): per lemma and solver the largest n proved and
    what stopped the sweep, the per-request lemmas' words, and the largest n with every lemma proved."""
    backends = sorted({b for per in cores["per_lemma"].values() for b in per})
    lines = ["| lemma | " + " | ".join(f"{b}: largest n (stopped by)" for b in backends) + " |",
             "|---|" + "---|" * len(backends)]
    for name, per in cores["per_lemma"].items():
        stopped = cores.get("stopped", {}).get(name, {})
        lines.append(f"| `{name}` | " + " | ".join(f"{per[b]} ({stopped.get(b, '?')})" for b in backends) + " |")
    per_request = "; ".join(f"`{name}` " + ", ".join(f"{b} {w}" for b, w in sorted(words.items()))
                            for name, words in cores.get("per_request", {}).items())
    largest = ", ".join(f"{b} {n}" for b, n in sorted(cores["largest_n"].items()))
    rlimit = cores["rlimit"]
    rlimit = ", ".join(f"{b} {v:,}" for b, v in sorted(rlimit.items())) if isinstance(rlimit, dict) else rlimit
    lines += ["", f"Per-request lemmas (every value): {per_request or '-'}. **Largest n with every core lemma proved: "
              f"{largest}** (resource limit per call: {rlimit}; {cores['wall_time']:.0f} s in this run)."]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "/")


def rows_table(rows: tuple | None = None, ids: list[str] | None = None) -> str:
    """The rows' texts as declared (statement, formalization, difference): docs/claims.md's rows table (the
    ledger's rows, or those of ``ids``)."""
    from geosched.verify.ledger import ROWS

    chosen = [c for c in (ROWS if rows is None else rows) if ids is None or c.id in ids]
    lines = ["| claim | the paper's statement | our formalization (what is checked) | how they differ |",
             "|---|---|---|---|"]
    lines += [f"| `{c.id}` | {_cell(c.statement)} | {_cell(c.formalization)} | {_cell(c.difference)} |"
              for c in chosen]
    return "\n".join(lines)


def rests_on(claim: dict[str, Any]) -> str:
    """What a row's word rests on in a run (a ``to_dict()`` claim): the closed Coq theorems, the sympy
    derivation's reach, the solver proofs, the bounded checks with their bounds, the statistical and
    empirical checks with their words."""
    evidence = claim["evidence"]
    coq = [e["data"]["theorem"] for e in evidence if e["kind"] == "coq" and e["status"] == "proved"]
    missing = [e["message"] for e in evidence if e["kind"] == "coq" and e["status"] != "proved"]
    parts = [f"Coq (every n): {', '.join(coq)}"] if coq else []
    if missing and not coq:
        parts.append(f"Coq: not in this run ({missing[0]})")
    parts += [f"sympy: {e['message']}" for e in evidence if e["method"] == "derivation"]
    solved = [e["method"] for e in evidence if e["kind"] == "proof" and e["method"] != "derivation"
              and e["status"] == "proved"]
    parts += [f"solver proofs: {', '.join(solved)}"] if solved else []
    bounded = [f"{e['method']} ({e['bound']})" for e in evidence if e["kind"] == "bounded" and e["status"] == "checked"]
    parts += [f"bounded checks: {', '.join(bounded)}"] if bounded else []
    vacuous = [e["method"] for e in evidence if e["kind"] == "bounded" and e["status"] == "vacuous"]
    parts += [f"vacuous checks: {', '.join(vacuous)}"] if vacuous else []
    parts += [f"{e['method']}: {e['status']}" for e in evidence if e["kind"] in ("statistical", "empirical")]
    return "; ".join(parts) or "nothing in this run"


def model_of(row: Any) -> str:
    """The model and hypotheses a row is about: its derivation's named hypotheses, then how it differs
    from the paper's statement."""
    from geosched.theory.registry import DERIVATIONS

    hypotheses = DERIVATIONS[row.id]().hypotheses if row.id in DERIVATIONS else ()
    named = "; ".join(f"{h.label}: {h.statement}" for h in hypotheses)
    return "; ".join(x for x in (named, f"differs from the paper: {row.difference}") if x)


def papers_table(claims: list[dict[str, Any]], mode: str) -> str:
    """docs/proved.md's table: every statement of the papers the ledger tracks (Kong et al., Jaillet et al.),
    its word in a ``mode`` run, what the word rests on in that run, and the model and hypotheses."""
    from geosched.verify.ledger import CLAIMS

    lines = [f"Generated from a `{mode}` run by `python docs/tables.py --ledger {mode}` "
             "(the run that writes docs/claims.md's table; tests/test_ledger.py compares the words).", "",
             "| claim | the paper's statement | word | rests on (this run) | model and hypotheses |",
             "|---|---|---|---|---|"]
    for claim in claims:
        row = CLAIMS.get(claim["id"])
        if row is None or row.order is None or row.order[0] not in PAPER_SECTIONS:
            continue
        lines.append(f"| `{claim['id']}` | {_cell(row.statement)} | `{claim['status']}` | {_cell(rests_on(claim))} "
                     f"| {_cell(model_of(row))} |")
    return "\n".join(lines)


def default_record(result: dict[str, Any]) -> dict[str, Any]:
    """The record of a default run (``LedgerResult.to_dict()``) that docs/claims.md's default blocks are
    rendered from: the run's seed and versions, every claim's word and message, its statistical and empirical
    evidence, and the symbolic cores (what the default blocks read; nothing else of the run)."""
    claims = [{"id": c["id"], "status": c["status"], "message": c["message"],
               "evidence": [{"kind": e["kind"], "method": e["method"], "status": e["status"], "message": e["message"],
                             "data": {"flip_constant": (e.get("data") or {}).get("flip_constant")}}
                            for e in c["evidence"] if e["kind"] in ("statistical", "empirical")]}
              for c in result["claims"]]
    record = {"command": DEFAULT_COMMAND + " (or python docs/tables.py --ledger default)",
              "mode": result["mode"], "seed": result.get("seed"), "versions": result.get("versions", {}),
              "source": "the run itself, written by docs/tables.py", "claims": claims}
    if "cores" in result.get("extra", {}):
        record["cores"] = result["extra"]["cores"]
    return record


def default_blocks(record: dict[str, Any], ids: list[str] | None = None) -> dict[str, str]:
    """docs/claims.md's default blocks, by name, rendered from a :func:`default_record` for the rows ``ids``
    (default: the ledger's)."""
    blocks = {"ledger default words": default_words_table(record, claim_ids() if ids is None else ids),
              "ledger default figures": figures_table(record["claims"])}
    if "cores" in record:
        blocks["ledger default cores"] = cores_table(record["cores"])
    return blocks


def lost_verdicts(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """``id (word)`` of every row the record ``old`` gives a verdict that the record ``new`` has as ``not_run``
    (a default run without the trace, or without torch): such a record would lose what the last run showed."""
    words = {c["id"]: c for c in new["claims"]}
    return [f"{c['id']} ({c['status']})" for c in old["claims"]
            if c["status"] != "not_run" and words.get(c["id"], {}).get("status") == "not_run"]


def write_ledger_docs(result: dict[str, Any], path: Path | None = None, proved: Path | None = None) -> list[str]:
    """Write the generated tables of a run (``LedgerResult.to_dict()``) into ``docs/claims.md``: the
    status table of its mode, and with the default mode its record (``ledger_default_run.json`` beside the
    page) and the blocks rendered from it; the rows' texts as declared; a quick run also writes
    ``docs/proved.md``'s table of the papers' statements. Returns the blocks written.

    Raises
    ------
    ValidationError
        A default run that would turn a verdict of the record into ``not_run`` (nothing is written).
    """
    from geosched.errors import ValidationError
    from geosched.output import write_text_atomic

    path, proved, mode = Path(path or CLAIMS_PAGE), Path(proved or PROVED_PAGE), result["mode"]
    text, written = replace_block(path.read_text(), "ledger rows", rows_table()), ["ledger rows"]
    if mode == "default":  # the default run's blocks are rendered from its record, kept beside the page
        record, record_path = default_record(result), path.parent / DEFAULT_RECORD.name
        lost = lost_verdicts(json.loads(record_path.read_text()), record) if record_path.exists() else []
        if lost:  # e.g. a run without the shared trace: the record keeps the last run's verdicts
            reason = next(c["message"] for c in record["claims"] if c["status"] == "not_run")
            raise ValidationError(record_path.name, lost, f"not written: {len(lost)} of its verdicts would become "
                                                          f"not_run in this run ({reason})")
        write_text_atomic(record_path, json.dumps(record, indent=1) + "\n")
        for name, body in default_blocks(record).items():
            text, written = replace_block(text, name, body), written + [name]
    else:
        text, written = replace_block(text, f"ledger {mode} words", words_table(result["claims"], mode)), \
            written + [f"ledger {mode} words"]
    write_text_atomic(path, text)
    if mode == "quick":
        write_block(proved, "papers table", papers_table(result["claims"], mode))
        written.append("papers table")
    return written


def ledger_blocks_from_records(docs: Path = DOCS) -> dict[tuple[str, str], str]:
    """``(page, block) -> body`` of the ledger's blocks that need no run: the rows as declared and the default
    run's blocks from its record (a row added since shows as added after the recorded run)."""
    blocks = {("claims.md", "ledger rows"): rows_table()}
    record_path = docs / DEFAULT_RECORD.name
    if record_path.exists():
        for name, body in default_blocks(json.loads(record_path.read_text())).items():
            blocks[("claims.md", name)] = body
    return blocks


# ------------------------------------------------------------------ the sweep's and the ratio curve's pages


SWEEP_PAGE = DOCS / "sagesched.md"
SWEEP_RECORD = DOCS / "sagesched_sweep.json"
RATIO_PAGE = DOCS / "adversary.md"


def sweep_record_text(records: list[dict[str, Any]]) -> str:
    """The sweep records (one per trace) as JSON with one row per line (a readable diff when a run changes)."""
    parts = []
    for record in records:
        head = json.dumps({k: v for k, v in record.items() if k != "rows"}, indent=1)[:-2]
        parts.append(head + ',\n "rows": [\n' + ",\n".join(json.dumps(r) for r in record["rows"]) + "\n ]\n}")
    return '{"kind": "sagesched-sweeps", "records": [\n' + ",\n".join(parts) + "\n]}\n"


def read_sweep_records(path: Path = SWEEP_RECORD) -> list[dict[str, Any]]:
    """The sweep records of a file: the records kept beside the page (one per trace), or one sweep's record."""
    data = json.loads(Path(path).read_text())
    return list(data["records"]) if data.get("kind") == "sagesched-sweeps" else [data]


def write_sweep_docs(records: list[dict[str, Any]], docs: Path = SWEEP_PAGE,
                     record_path: Path = SWEEP_RECORD) -> list[str]:
    """Write SageSched sweep ``records`` (one per trace, each trimmed by
    :func:`geosched.verify.sagesched_sweep.docs_record`) to ``record_path`` and their tables, the traces side by
    side, into ``docs`` between their markers."""
    from geosched.output import write_text_atomic
    from geosched.verify.sagesched_sweep import docs_record, docs_tables

    trimmed = [docs_record(r) for r in records]
    text, tables = Path(docs).read_text(), docs_tables(trimmed)
    for name, body in tables.items():
        text = replace_block(text, name, body)
    write_text_atomic(Path(record_path), sweep_record_text(trimmed))
    write_text_atomic(Path(docs), text)
    return list(tables)


def write_ratio_curve_docs(mode: str, page: Path = RATIO_PAGE) -> tuple[bool, str]:
    """docs/adversary.md's table of SVF's worst case from a fresh :func:`~geosched.teaching.ratio_curve.
    ratio_curve_data` (witnesses re-verified, the ledger's words of a ``mode`` run): (consistent, message)."""
    from geosched.teaching.ratio_curve import BLOCK as RATIO_BLOCK
    from geosched.teaching.ratio_curve import band_table, ratio_curve_data

    data = ratio_curve_data(mode=mode)
    write_block(page, RATIO_BLOCK, band_table(data))
    return data.success, data.message


class GeneratedTable(NamedTuple):
    """One generated block: the page under ``docs/``, the block's name in its markers, and its renderer."""

    page: str
    block: str
    render: Callable[[], str]


TABLES: tuple[GeneratedTable, ...] = (
    GeneratedTable("predictions.md", "predictor accuracy", accuracy_table),
    GeneratedTable("predictions.md", "scheduling under predictions", scheduling_table),
    GeneratedTable("adversary.md", "certified witnesses", witness_table),
    GeneratedTable("claims.md", "jaillet game", game_table),
    GeneratedTable("sagesched.md", "step-time parameters", steptime_table),
    GeneratedTable("claims.md", "exhaustive spaces", exhaustive_table),
    GeneratedTable("verification.md", "policy state spaces", state_space_table),
    GeneratedTable("architecture.md", "reference_impl structure", structure_table),
)


STATUS_WORDS = ("proved", "checked", "optimal", "certified", "reproduced", "not_reproduced", "partly", "vacuous",
                "not_run", "refuted", "unknown", "unsat", "sat")
# The guard's definition. A data cell (a row after the header and the |---| line) of a table outside generated
# blocks may not show: a status word as the whole cell (STATUS_WORDS, code spans and bold stripped), or, outside
# code spans, a measured figure: a decimal (not a theorem, an arXiv id or a version), a percentage, a duration,
# or a count written with thousands separators (1,145: what a run counts; a small integer is a bound or a size)
FIGURE = re.compile(r"\d+(?:\.\d+)?\s?%|(?<![\w.])\d+(?:\.\d+)?\s?(?:s|ms|min)\b|"
                    r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w.,])|"
                    r"(?<![\w.])(?<!Thm\. )(?<!Prop\. )(?<!Lemma )(?<!arXiv )(?<!vLLM )(?<!Eq\. )"
                    r"\d[\d,]*\.\d+(?![\w.])")
# hand-written tables that may show such a token, each with why it is not a figure or status of a run
ALLOWED = {
    ("claims.md", "| word | evidence (one check) | claim |"):
        "defines the status words (each word is the row's subject, not a result); its one duration says how long "
        "the trace table takes, in a sentence",
    ("sagesched.md", "| the paper (abstract) | ours | what differs |"):
        "compares designs: 30% is our training split, 0.9 our reserve quantile, 3.1 the model's name (Llama-3.1)",
    ("verification.md", "| survivor (file:line, operator#occurrence) | the change | verdict |"):
        "a human triage of each survivor of a recorded mutation run (benchmarks/RESULTS.md, section 10); its one "
        "duration is the mutant's own change (a clock starting at -1 s)",
}


# the generated blocks other writers own, each with its writer and the test that regenerates it and compares
OTHER_WRITERS = {
    "mutation campaign": "benchmarks/mutations.py --write-docs, through replace_block here (tests/test_mutations.py)",
    "coq theorems": "python docs/coq_tables.py, from the Coq sources and the rows (tests/test_coq_docs.py)",
    "coq statements": "python docs/coq_tables.py, from verify/coq/statements.txt (tests/test_coq_docs.py)",
}
# the blocks written here from a run or a record, besides TABLES and the derivation words
RUN_WRITERS = {
    "ledger rows": "the ledger's rows, no run: python docs/tables.py (tests/test_docs_claims.py)",
    "ledger quick words": f"{QUICK_COMMAND} (tests/test_ledger.py, slow)",
    "papers table": f"{QUICK_COMMAND} (tests/test_ledger.py, slow)",
    "ledger default words": f"{DEFAULT_COMMAND}, record docs/ledger_default_run.json (tests/test_docs_tables.py)",
    "ledger default figures": "the same default run and record",
    "ledger default cores": "the same default run and record",
    "sagesched sweep": "python docs/tables.py --sagesched-sweep SWEEP.json (one per trace), record "
                       "docs/sagesched_sweep.json "
                       "(tests/test_sagesched_sweep.py)",
    "sagesched elements": "the same sweep and record",
    "svf worst case": "python docs/tables.py --ratio-curve quick (tests/test_ratio_curve.py)",
}
MARKER = re.compile(r"^<!-- (end )?generated: (.+?) -->$", re.M)


def unowned_blocks(docs: Path = DOCS) -> list[str]:
    """``page: name`` of every generated-block marker of ``docs/`` that no writer owns (:data:`TABLES`, the
    derivation words, :data:`OTHER_WRITERS`) or whose start and end markers are not one pair: markers cannot
    hide a hand-written table from the guard."""
    owned = {t.block for t in TABLES} | {BLOCK} | set(OTHER_WRITERS) | set(RUN_WRITERS)
    found = []
    for path in sorted(docs.rglob("*.md")):
        marks = MARKER.findall(path.read_text())
        for name in dict.fromkeys(name for _, name in marks):
            pair = [end for end, other in marks if other == name]
            if name not in owned or pair != ["", "end "]:
                found.append(f"{path.relative_to(docs)}: {name}")
    return found


def _hand_tables(path: Path):
    """``(first line number, rows)`` of every table of a page outside its generated blocks."""
    inside, current = False, None
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        inside = True if line.startswith("<!-- generated") else False if line.startswith("<!-- end generated") \
            else inside
        if line.startswith("|") and not inside:
            current = current or (number, [])
            current[1].append(line)
        elif current:
            yield current
            current = None
    if current:
        yield current


def cell_findings(cell: str) -> list[str]:
    """The figures (outside code spans) and the status word (a whole cell) that a table cell shows."""
    found = [m.group(0) for m in FIGURE.finditer(re.sub(r"`[^`]*`", "", cell))]
    word = cell.strip().strip("`*").strip()
    return found + ([word] if word in STATUS_WORDS else [])


def hand_written_figures(docs: Path = DOCS) -> list[str]:
    """``page:line: token`` for every figure or status word in a table of ``docs/`` that no run generates and
    :data:`ALLOWED` does not list: what the guard test requires to be empty."""
    found = []
    for path in sorted(docs.rglob("*.md")):
        for number, rows in _hand_tables(path):
            if (str(path.relative_to(docs)), rows[0].strip()) in ALLOWED:
                continue
            for row in rows[2:]:
                for cell in row.strip().strip("|").split("|"):
                    found += [f"{path.relative_to(docs)}:{number}: {token}" for token in cell_findings(cell)]
    return found


def stale_blocks(docs: Path = DOCS, names: tuple[str, ...] | None = None, *, ledger: bool = False) -> list[str]:
    """The names of the :data:`TABLES` blocks whose page differs from a fresh rendering; with ``ledger``, also
    the ledger's blocks that need no run (the rows, the default record's), a row added since included (the
    tests announce such a row instead: :func:`added_after`)."""
    rendered = {(t.page, t.block): t.render for t in TABLES}
    if ledger:
        rendered.update({key: (lambda body=body: body) for key, body in ledger_blocks_from_records(docs).items()})
    return [name for (page, name), render in rendered.items() if (names is None or name in names)
            and block((docs / page).read_text(), name) != render()]


def write_blocks(docs: Path = DOCS, names: tuple[str, ...] | None = None) -> list[str]:
    """Render the :data:`TABLES` blocks and the ledger's blocks that need no run into their pages."""
    written = []
    for table in TABLES:
        if names is None or table.block in names:
            write_block(docs / table.page, table.block, table.render())
            written.append(table.block)
    for (page, name), body in ledger_blocks_from_records(docs).items():
        if names is None or name in names:
            write_block(docs / page, name, body)
            written.append(name)
    return written


def _write_from_runs(args: argparse.Namespace) -> int:
    """``--ledger MODE``, ``--ledger-run RUN.json``, ``--sagesched-sweep SWEEP.json``, ``--ratio-curve MODE``."""
    from geosched.errors import GeoschedError

    try:
        if args.ratio_curve:
            success, message = write_ratio_curve_docs(args.ratio_curve)
            print(f"docs/adversary.md: svf worst case written ({message})")
            return 0 if success else 1
        if args.sagesched_sweep:
            written = write_sweep_docs([r for path in args.sagesched_sweep for r in read_sweep_records(Path(path))])
        else:
            from geosched.verify.ledger import run_claims

            result = (json.loads(Path(args.ledger_run).read_text()) if args.ledger_run
                      else run_claims(mode=args.ledger).to_dict())
            written = write_ledger_docs(result)
    except (GeoschedError, OSError, ValueError) as exc:
        print(f"docs: error: {exc}", file=sys.stderr)
        return 2
    print("docs: tables written: " + ", ".join(written))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page differs from a fresh run")
    parser.add_argument("--block", action="append", default=None,
                        help="only this block (repeatable): 'derivation words' or a name of TABLES")
    runs = parser.add_mutually_exclusive_group()
    runs.add_argument("--ledger", choices=("quick", "default"), help="run the ledger; write its words (claims.md, "
                      "proved.md; default: the record ledger_default_run.json, refused when it would lose a verdict)")
    runs.add_argument("--ledger-run", metavar="RUN.json", help="the same from a saved `geosched claims --json` run")
    runs.add_argument("--sagesched-sweep", metavar="SWEEP.json", action="append",
                      help="sagesched.md's tables from a sweep record (repeatable: one per trace, side by side)")
    runs.add_argument("--ratio-curve", choices=("quick", "default"), help="adversary.md's SVF worst-case table")
    args = parser.parse_args(argv)
    if args.ledger or args.ledger_run or args.sagesched_sweep or args.ratio_curve:
        return _write_from_runs(args)
    names = tuple(args.block) if args.block else None
    theory = names is None or BLOCK in names
    if args.check:
        stale = ([BLOCK] if theory and documented() != derivation_table() else []) + stale_blocks(names=names,
                                                                                                   ledger=True)
        for name in stale:
            print(f"docs: the block '{name}' differs from a fresh run; run python docs/tables.py", file=sys.stderr)
        if stale:
            return 1
        print("docs: every generated table is a fresh run's")
        return 0
    if theory:
        write()
    written = ([BLOCK] if theory else []) + write_blocks(names=names)
    print("docs: tables written: " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
