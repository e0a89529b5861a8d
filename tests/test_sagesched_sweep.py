"""SageSched examined (verify/sagesched_sweep.py): the summary by hand, the star design, and docs/sagesched.md's
sweep tables against the committed run they claim to come from."""

from __future__ import annotations

import copy

import pytest
from docs_pages import tables as pages

from geosched.verify import sagesched_sweep as sw
from geosched.verify.sagesched_sweep import _HEURISTICS, VARIANTS


def _record(latency: dict[str, list[float]], default: list[float]) -> dict:
    """One configuration, three seeds: each variant's mean latency per seed (``default`` for those not named)."""
    config = {"replicas": "memory-bound", "gpus": "mixed", "predictor": "empirical", "load": 1.0}
    rows = [{**config, "seed": s, "variant": v.name, "mean_latency": latency.get(v.name, default)[s],
             "preemptions": 0} for v in VARIANTS for s in range(3)]
    return {"setup": {"design": "star", "seeds": 3, "window": 10}, "seed": 0, "geosched": "x", "rows": rows}


def test_gain_and_the_element_responsible_by_hand():
    # heuristics at 10 except jsq+svf at 8 (the best); SageSched at 6: gain 1 - 6/8 = 25% on every seed
    # the point-mass swap at 8 (the distribution helps by 25%), the others equal to SageSched (no effect)
    gains = _record({"jsq+svf": [8.0, 8.0, 8.0], "sagesched": [6.0, 6.0, 6.0], "point": [8.0, 8.0, 8.0],
                     **{v.name: [6.0, 6.0, 6.0] for v in VARIANTS if v.element and v.name != "point"}},
                    [10.0, 10.0, 10.0])
    (entry,) = sw.summarize_sweep(gains)
    assert entry["best_heuristic"] == "jsq+svf" and entry["outcome"] == "gains"
    assert entry["gain"]["mean"] == pytest.approx(0.25) and entry["responsible"] == "point"
    assert entry["effects"]["no-safety"]["result"] == "tie"
    # SageSched at 12 everywhere: it loses; dropping the safety quantile gives 9 (the quantile hurts), the
    # quantile admission gives 13 (helps: not what is responsible for the loss)
    loses = _record({"sagesched": [12.0, 12.1, 11.9], "no-safety": [9.0, 9.1, 8.9],
                     "quantile-admission": [13.0, 13.0, 13.0]}, [12.0, 12.1, 11.9])
    for row in loses["rows"]:
        if row["variant"] in _HEURISTICS:
            row["mean_latency"] = 10.0
    (entry,) = sw.summarize_sweep(loses)
    assert entry["outcome"] == "loses" and entry["gain"]["high"] < 0 and entry["responsible"] == "no-safety"
    table = sw.format_sweep_table([entry])
    assert "| memory-bound | mixed | empirical | 1 | round-robin+fcfs | 12.00 / 10.00 | -20.0% [" in table


def test_star_design_varies_one_factor_at_a_time():
    configs = sw._configurations(sw.STAR_SWEEP)
    assert configs[0] == sw.BASE and len(configs) == len({tuple(c.items()) for c in configs}) == 7
    assert all(sum(c[k] != sw.BASE[k] for k in sw.BASE) == 1 for c in configs[1:])
    assert len(sw._configurations(sw.DEFAULT_SWEEP)) == 2 * 2 * 3 * 4
    with pytest.raises(ValueError):
        sw._configurations(sw.SweepSetup(window=1, seeds=2, loads=(1.0,), design="grid"))


def test_docs_tables_are_those_of_the_committed_runs():
    """Every figure of docs/sagesched.md's generated tables is recomputed from docs/sagesched_sweep.json (one run
    of benchmarks/bench_sagesched_sweep.py per trace), and each run covers its design: each configuration, seed,
    variant; the traces' rows sit side by side."""
    records = pages.read_sweep_records()
    assert [r["trace"] for r in records] == ["azure_llm_2023_conv.csv", "mooncake_conversation.jsonl"]
    for record in records:
        setup = sw.SweepSetup(**{k: tuple(v) if isinstance(v, list) else v for k, v in record["setup"].items()})
        expected = {(c["replicas"], c["gpus"], c["predictor"], float(c["load"]), s, v.name)
                    for c in sw._configurations(setup) for s in range(record["seed"], record["seed"] + setup.seeds)
                    for v in VARIANTS}
        assert {(r["replicas"], r["gpus"], r["predictor"], float(r["load"]), r["seed"], r["variant"])
                for r in record["rows"]} == expected and len(record["rows"]) == len(expected)
    text = pages.SWEEP_PAGE.read_text()
    tables = sw.docs_tables(records)
    for name, body in tables.items():
        assert pages.block(text, name) == body.strip()
    rows = pages.block(text, "sagesched sweep").splitlines()[4:]
    assert [r.split(" | ")[0] for r in rows[:2]] == ["| azure_llm_2023_conv", "| mooncake_conversation"]
    changed = copy.deepcopy(records)
    sage = next(r for r in changed[1]["rows"] if r["variant"] == "sagesched")
    sage["mean_latency"] *= 1.5  # a different run gives different tables: the comparison can fail
    assert sw.docs_tables(changed) != tables


def test_write_docs_round_trip(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("x\n<!-- generated: sagesched sweep -->\nold\n<!-- end generated: sagesched sweep -->\n"
                    "<!-- generated: sagesched elements -->\n<!-- end generated: sagesched elements -->\n")
    one = {**_record({"sagesched": [6.0, 6.5, 6.2]}, [10.0, 10.2, 9.9]), "trace": "a.csv"}
    two = {**_record({"sagesched": [12.0, 12.5, 12.2]}, [10.0, 10.2, 9.9]), "trace": "b.jsonl"}
    one["rows"][0]["speedup"] = 2.0  # not a field the tables use: trimmed away
    pages.write_sweep_docs([one, two], docs=page, record_path=tmp_path / "record.json")
    kept = pages.read_sweep_records(tmp_path / "record.json")
    assert "speedup" not in kept[0]["rows"][0] and kept[0]["rows"] == sw.docs_record(one)["rows"]
    assert pages.block(page.read_text(), "sagesched sweep") == sw.docs_tables(kept)["sagesched sweep"]
    body = pages.block(page.read_text(), "sagesched sweep")
    assert "| a | memory-bound |" in body and "| b | memory-bound |" in body and "| gains |" in body \
        and "| loses |" in body


def test_a_sweep_runs_on_a_trace_in_the_mooncake_format(tmp_path):
    from synthetic_traces import mooncake_lines, write_mooncake

    path = write_mooncake(tmp_path / "long.jsonl", mooncake_lines(300, seed=5, prompt_median=40_000))
    setup = sw.SweepSetup(window=40, seeds=2, loads=(1.0,), replicas=("memory-bound",), gpus=("mixed",),
                          predictors=("empirical",))
    record = sw.run_sweep(setup, trace=path)
    largest = max(line["input_length"] + line["output_length"] for line in mooncake_lines(300, seed=5,
                                                                                          prompt_median=40_000)[90:])
    assert record["trace"] == "long.jsonl" and record["memory_bound"] == 2 * largest > sw.MEMORY_BOUND
    assert len(record["rows"]) == 2 * len(VARIANTS)
    (entry,) = sw.summarize_sweep(record)
    assert entry["outcome"] in ("gains", "loses", "tie")
