"""Regenerate the docs' computed tables from their runs: ``python docs/tables.py [--check] [--block NAME]``.

Every table of ``docs/`` that shows a status word or a figure is generated (issue 35, item 3). Those of
the ledger (docs/claims.md, docs/proved.md) come from ``python -m geosched.verify.ledger --write-docs``,
the SageSched sweep's from ``geosched.verify.sagesched_sweep``, the SVF worst-case table from
``geosched.teaching.ratio_curve``; every other one is listed in :data:`TABLES` here, with the run it
comes from:

* docs/theory.md's derivation words: :func:`geosched.theory.check_claim` of every derivation, run here;
* docs/predictions.md's accuracy and scheduling tables: the record ``docs/predictions_run.json`` written by
  ``python benchmarks/bench_predictions.py --record docs/predictions_run.json`` (needs the shared trace;
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
from typing import NamedTuple

DOCS = Path(__file__).resolve().parent
THEORY_PAGE = DOCS / "theory.md"
BLOCK = "derivation words"
PREDICTIONS_RECORD = DOCS / "predictions_run.json"
WITNESS_DIR = DOCS / "witnesses"
GAME_SIZES = (2, 3)  # K = 4 takes about 40 s (the ledger's --thorough run)


def derivation_table() -> str:
    """The table, from :func:`geosched.theory.check_claim` of every derivation, in the ledger's order."""
    from geosched.theory.registry import check_claim, claim_ids

    lines = ["| id | `Derivation:` (sympy) | steps sympy cannot check, and what checks them in the ledger |",
             "|---|---|---|"]
    for claim_id in claim_ids():
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


def _marker(end: bool = False) -> str:
    return f"<!-- {'end ' if end else ''}generated: {BLOCK} -->"


def documented(path: Path | None = None) -> str:
    """The table as the page has it."""
    return (path or THEORY_PAGE).read_text().split(_marker(), 1)[1].split(_marker(end=True), 1)[0].strip()


def write(path: Path | None = None) -> None:
    """Replace the page's table with a fresh run's (a temporary file renamed into place)."""
    from geosched.output import write_text_atomic

    path = path or THEORY_PAGE
    text = path.read_text()
    head, rest = text.split(_marker(), 1)
    _, tail = rest.split(_marker(end=True), 1)
    write_text_atomic(path, f"{head}{_marker()}\n{derivation_table()}\n{_marker(end=True)}{tail}")


def _cell3(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _record() -> dict:
    return json.loads(PREDICTIONS_RECORD.read_text())


def _record_line(record: dict) -> str:
    return (f"Generated by `python docs/tables.py` from `docs/predictions_run.json`, the record of "
            f"`{record['command']}` "
            f"(seed {record['seed']}, geosched {record['versions']['geosched']}, {record['machine']}); "
            "`tests/test_docs_tables.py` re-runs it where the trace is present and compares.")


def accuracy_table() -> str:
    """docs/predictions.md's accuracy table: the record's test-part metrics of each predictor."""
    record = _record()
    acc = record["accuracy"]
    lines = [_record_line(record), "",
             f"Test part: {acc['test_rows']} requests (trained on the first {acc['train_rows']}); "
             f"theta = {acc['theta']}.", "",
             "| predictor | median AE | mean AE | Spearman | 1-bit acc. | flip S->L | flip L->S | NLL/length "
             "| CRPS | cov. 50% | cov. 90% |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in acc["rows"]:
        lines.append(f"| {r['name']} | {r['median_ae']:.1f} | {r['mean_ae']:.1f} | {_cell3(r['spearman'])} | "
                     f"{r['accuracy']:.3f} | {r['flip_short']:.3f} | {r['flip_long']:.3f} | {_cell3(r['nll'])} | "
                     f"{r['crps']:.1f} | {_cell3(r['coverage50'])} | {_cell3(r['coverage90'])} |")
    return "\n".join(lines)


SCHEDULING_POLICIES = (("fcfs", "FCFS"), ("sjf", "SJF"), ("svf", "SVF"), ("svf1", "1-bit SVF"),
                       ("svf-E[v]", "SVF on E[v]"))


def scheduling_table() -> str:
    """docs/predictions.md's scheduling table: mean / P95 latency (s) per load, predictor and policy, and the
    evictions, from the record."""
    record = _record()
    sched = record["scheduling"]
    cells = {(c["load"], c["predictor"], c["policy"]): c for c in sched["cells"]}
    rows = sorted({(c["load"], c["predictor"]) for c in sched["cells"]},
                  key=lambda k: (k[0], ("oracle", "learned", "noisy").index(k[1])))
    lines = [_record_line(record), "",
             f"{sched['source']}; {sched['step_seconds']} s per step; 1-bit SVF: theta = {sched['one_bit']['theta']}, "
             f"O_0 = {sched['one_bit']['short_length']}, O_1 = {sched['one_bit']['long_length']}; noisy: sigma = "
             f"{sched['noisy_sigma']:.3f}, seed {sched['seed']}. Mean / P95 latency in seconds; restarts (runs "
             "recomputed because a prediction ran short): the fewest and most of the row's policies.", "",
             "| load | predictor | " + " | ".join(label for _, label in SCHEDULING_POLICIES) + " | restarts |",
             "|---|---|" + "---|" * (len(SCHEDULING_POLICIES) + 1)]
    for load, predictor in rows:
        row = [cells.get((load, predictor, policy)) for policy, _ in SCHEDULING_POLICIES]
        shown = " | ".join(f"{c['mean_latency']:.1f} / {c['p95_latency']:.1f}" if c else "" for c in row)
        restarts = [c["restarts"] for c in row if c]
        lines.append(f"| {load:g} | {predictor} | {shown} | {min(restarts)}-{max(restarts)} |")
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
        if game.status != "solved" or game.problems:
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
    from geosched.reference_impl.simulator import simulate
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
    "ledger rows": "geosched.verify.ledger --write-docs (tests/test_docs_claims.py)",
    "ledger quick words": "geosched.verify.ledger --write-docs --mode quick (tests/test_ledger.py, slow)",
    "papers table": "geosched.verify.ledger --write-docs --mode quick (tests/test_ledger.py, slow)",
    "ledger default words": "geosched.verify.ledger --write-docs --mode default, record docs/ledger_default_run.json "
                            "(tests/test_docs_tables.py)",
    "ledger default figures": "the same default run and record",
    "ledger default cores": "the same default run and record",
    "mutation campaign": "geosched.verify.mutations (tests/test_mutations.py)",
    "sagesched sweep": "geosched.verify.sagesched_sweep, record docs/sagesched_sweep.json "
                       "(tests/test_sagesched_sweep.py)",
    "sagesched elements": "the same sweep and record",
    "svf worst case": "geosched.teaching.ratio_curve (tests/test_ratio_curve.py)",
}
MARKER = re.compile(r"^<!-- (end )?generated: (.+?) -->$", re.M)


def unowned_blocks(docs: Path = DOCS) -> list[str]:
    """``page: name`` of every generated-block marker of ``docs/`` that no writer owns (:data:`TABLES`, the
    derivation words, :data:`OTHER_WRITERS`) or whose start and end markers are not one pair: markers cannot
    hide a hand-written table from the guard."""
    owned = {t.block for t in TABLES} | {BLOCK} | set(OTHER_WRITERS)
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


def block_of(text: str, name: str) -> str:
    """The text between a page's markers of block ``name``."""
    return text.split(f"<!-- generated: {name} -->", 1)[1].split(f"<!-- end generated: {name} -->", 1)[0].strip()


def stale_blocks(docs: Path = DOCS, names: tuple[str, ...] | None = None) -> list[str]:
    """The names of the :data:`TABLES` blocks whose page differs from a fresh rendering."""
    return [t.block for t in TABLES if (names is None or t.block in names)
            and block_of((docs / t.page).read_text(), t.block) != t.render()]


def write_blocks(docs: Path = DOCS, names: tuple[str, ...] | None = None) -> list[str]:
    """Render the :data:`TABLES` blocks into their pages (a temporary file renamed into place)."""
    from geosched.output import write_text_atomic

    written = []
    for table in TABLES:
        if names is not None and table.block not in names:
            continue
        path = docs / table.page
        text = path.read_text()
        start, end = f"<!-- generated: {table.block} -->", f"<!-- end generated: {table.block} -->"
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        write_text_atomic(path, f"{head}{start}\n{table.render()}\n{end}{tail}")
        written.append(table.block)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page differs from a fresh run")
    parser.add_argument("--block", action="append", default=None,
                        help="only this block (repeatable): 'derivation words' or a name of TABLES")
    args = parser.parse_args(argv)
    names = tuple(args.block) if args.block else None
    theory = names is None or BLOCK in names
    if args.check:
        stale = ([BLOCK] if theory and documented() != derivation_table() else []) + stale_blocks(names=names)
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
