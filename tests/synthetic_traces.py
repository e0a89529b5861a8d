"""Traces written by the tests themselves (never committed copies of the shared ones): a synthetic trace in the
Mooncake format, and slices of the shared traces taken at run time."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "traces"
AZURE = SHARED / "azure_llm_2023_conv.csv"
MOONCAKE = SHARED / "mooncake_conversation.jsonl"


def mooncake_lines(n: int, *, seed: int = 0, prompt_median: float = 7000.0, output_median: float = 300.0,
                   rate_per_second: float = 3.0) -> list[dict]:
    """``n`` requests in the Mooncake format: Poisson arrivals in whole milliseconds, log-normal lengths, a
    512-token system prompt shared by every request (hash id 0), the rest of each prompt in fresh blocks."""
    rng = np.random.default_rng(seed)
    stamps = np.floor(np.cumsum(rng.exponential(1000.0 / rate_per_second, n))).astype(int)
    prompts = np.clip(np.rint(rng.lognormal(math.log(prompt_median), 0.9, n)), 513, 120_000).astype(int)
    outputs = np.clip(np.rint(rng.lognormal(math.log(output_median), 0.8, n)), 1, 2000).astype(int)
    lines, fresh = [], 1
    for stamp, prompt, output in zip(stamps, prompts, outputs):
        blocks = -(-int(prompt) // 512)
        lines.append({"timestamp": int(stamp), "input_length": int(prompt), "output_length": int(output),
                      "hash_ids": [0, *range(fresh, fresh + blocks - 1)]})
        fresh += blocks - 1
    return lines


def write_mooncake(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def shared_slice(source: Path, folder: Path, rows: int) -> Path:
    """The first ``rows`` requests of a shared trace, copied at run time into ``folder`` (same file name: rows
    and tables name a trace by it); skips the test when the trace is absent."""
    if not source.is_file():
        pytest.skip(f"trace not found at {source}")
    lines = source.read_text().splitlines(keepends=True)
    header = 1 if source.suffix == ".csv" else 0
    target = folder / source.name
    target.write_text("".join(lines[:header + rows]))
    return target
