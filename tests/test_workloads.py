"""Workloads: generators, the trace reader, workload specs."""

import numpy as np
import pytest

from geosched.errors import UnknownNameError, ValidationError, WorkloadFormatError
from geosched.reference_impl.workloads import generate, load_workload, poisson_rate, read_trace


def test_generators_are_seeded_and_valid():
    for name, params in [("burst", dict(n=15)), ("poisson", dict(n=50)), ("chat", dict(n=40)),
                         ("longprompt", dict(n=40))]:
        a = generate(name, seed=7, **params)
        b = generate(name, seed=7, **params)
        c = generate(name, seed=8, **params)
        assert a == b and a != c
        assert all(r.peak <= a.memory for r in a.requests)


def test_burst_matches_jaillet_ranges():
    for seed in range(20):
        inst = generate("burst", n=30, seed=seed)
        assert 30 <= inst.memory <= 50 and inst.is_burst
        assert all(1 <= r.prompt <= 5 and 1 <= r.output <= inst.memory - r.prompt for r in inst.requests)


def test_poisson_rate_and_truncation():
    # rho = 2 lambda E[v] / ((1 - alpha) M): with s ~ U[1, 10] (mean 5.5), mu = 0.1:
    # E[v] = 5.5 / 0.1 + 1 / 0.01 = 155; M = 200, alpha = 0.5, rho = 0.5 -> lambda = 50 / 310
    assert poisson_rate(memory=200, mu=0.1, rho=0.5, s_min=1, s_max=10, alpha_cap=0.5) == pytest.approx(50 / 310)
    inst = generate("poisson", n=3000, seed=1, memory=200, mu=0.1, rho=0.5)
    assert max(r.peak for r in inst.requests) <= 100
    arrivals = np.array([r.arrival for r in inst.requests])
    assert np.all(np.diff(arrivals) >= 0)
    assert arrivals[-1] / 3000 == pytest.approx(310 / 50, rel=0.1)
    with pytest.raises(ValidationError, match="mu"):
        generate("poisson", mu=0)


def test_chat_statistics_near_the_trace_summary():
    inst = generate("chat", n=20000, seed=0)
    prompts = np.array([r.prompt for r in inst.requests])
    outputs = np.array([r.output for r in inst.requests])
    assert np.median(prompts) == pytest.approx(1020, rel=0.05)
    assert np.median(outputs) == pytest.approx(129, rel=0.05)
    assert outputs.max() <= 1000


def test_unknown_workload_lists_known():
    with pytest.raises(UnknownNameError, match="known: .*burst.*poisson"):
        load_workload("zigzag")
    with pytest.raises(ValidationError) as info:
        load_workload("burst:wings=3")
    message = str(info.value)  # the generator's name and its accepted keys, never a private function's name
    assert "'wings'" in message and "it accepts: n, seed, memory, s_min, s_max, m_min, m_max" in message
    assert "_burst" not in message and "unexpected keyword" not in message


def test_an_unknown_generator_key_is_one_line_naming_the_keys(capsys):
    from geosched.cli import main

    assert main(["simulate", "burst:q=3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "parameter 'q'" in err and "it accepts: n, seed" in err and "_burst" not in err


def test_load_workload_overrides():
    inst = load_workload("burst:n=4", seed=3, memory=60)
    assert inst.memory == 60 and inst.n == 4
    assert load_workload("example").memory == 12


CSV_HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens\n"


def test_trace_reader_burst_and_online(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(CSV_HEADER + "2023-11-16 18:15:46.6805900,10,5\n2023-11-16 18:15:46.7305900,3,0\n"
                    "2023-11-16 18:15:47.0000000,4,2\n")
    inst, info = read_trace(path)
    assert [(r.arrival, r.prompt, r.output) for r in inst.requests] == [(0, 10, 5), (0, 4, 2)]
    assert info.dropped_zero_output == 1 and inst.memory == 30
    inst, _ = read_trace(path, arrivals="online", step_seconds=0.1)
    # (47.0 - 46.68059) / 0.1 = 3.19 -> step 3
    assert [r.arrival for r in inst.requests] == [0, 3]


@pytest.mark.parametrize(
    "body, pattern",
    [
        ("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n", "missing column.*GeneratedTokens"),
        (CSV_HEADER + "yesterday,1,2\n", "TIMESTAMP 'yesterday'"),
        (CSV_HEADER + "2023-11-16 18:15:46,-4,2\n", "ContextTokens.*-4"),
        (CSV_HEADER + "2023-11-16 18:15:46,4,2.5\n", "GeneratedTokens.*2.5"),
        (CSV_HEADER, "no usable rows"),
    ],
)
def test_malformed_traces(tmp_path, body, pattern):
    path = tmp_path / "bad.csv"
    path.write_text(body)
    with pytest.raises((WorkloadFormatError, ValidationError), match=pattern):
        read_trace(path)


@pytest.mark.trace
def test_real_trace(trace_path):
    inst, info = read_trace(trace_path)
    assert inst.n + info.dropped_zero_output == 19366
    prompts = np.array([r.prompt for r in inst.requests])
    outputs = np.array([r.output for r in inst.requests])
    # the trace README: prompt mean 1155 / max 14050, output mean 211 / max 1000
    assert round(prompts.mean()) == 1155 and prompts.max() == 14050
    assert round(outputs.mean()) == 211 and outputs.max() == 1000
    online, _ = read_trace(trace_path, arrivals="online", limit=500)
    assert online.n == 500 and online.requests[0].arrival == 0
