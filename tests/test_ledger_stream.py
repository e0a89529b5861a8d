"""The ledger streams its rows and overlaps the Coq build (issue 44, item 1).

``run_claims(on_row=...)`` is told each row as it is combined; the rows that cite no Coq theorem (and rest on
none) run while the Coq build runs in a background thread; the Coq rows wait for it outside their checks' time,
the wait reported apart (``waited``). ``geosched claims`` prints the table's head at once and each row as it
finishes. Nothing here reads the wall clock to decide: the fake build blocks on an event that the first
Coq-free row's report sets, so the order is forced, not timed.
"""

from __future__ import annotations

import io
import threading

import pytest

from geosched.cli import main
from geosched.progress import Reporter
from geosched.verify import coq_engine
from geosched.verify.evidence import Context
from geosched.verify.ledger import CLAIMS, RowPrinter, cites_coq, run_claims

COQ_ROW = "kong.volume"  # cites coq:volume_is_memory_time, rests on nothing
FREE_ROW = "ours.referee"  # cites no Coq theorem and rests on no row that does


def test_the_rows_chosen_here_are_what_the_test_needs():
    assert cites_coq(CLAIMS[COQ_ROW]) and not CLAIMS[COQ_ROW].depends_on
    assert not cites_coq(CLAIMS[FREE_ROW]) and not CLAIMS[FREE_ROW].depends_on
    assert any(m.startswith("coq:") for m in CLAIMS[COQ_ROW].methods)


def _blocking_build(released: threading.Event, calls: list[str]):
    def build(**kw):
        calls.append(threading.current_thread().name)
        assert released.wait(60), "the Coq-free row was never reported while the build ran"
        return coq_engine.CoqBuild("not_built", "no build (test)", 0.0)

    return build


def test_coq_free_rows_finish_while_the_build_runs_and_coq_rows_wait_for_it(monkeypatch):
    released, calls, told = threading.Event(), [], []
    monkeypatch.setattr(coq_engine, "build", _blocking_build(released, calls))

    def on_row(result):
        told.append((result.id, released.is_set()))
        released.set()  # the build may end only once a row was reported while it ran

    result = run_claims([COQ_ROW, FREE_ROW], mode="quick", on_row=on_row)
    assert told == [(FREE_ROW, False), (COQ_ROW, True)]  # the Coq-free row first, while the build was blocked
    assert [c.id for c in result.claims] == [COQ_ROW, FREE_ROW]  # the result keeps the order asked for
    assert calls == ["geosched-background-coq-build"]  # once, in the background thread, not in a row's check
    coq = result.claims[0]
    assert {e.method: e.status for e in coq.evidence}["coq:volume_is_memory_time"] == "unknown"


def test_only_the_rows_asked_for_are_reported_once_each(monkeypatch):
    monkeypatch.setattr(coq_engine, "build", lambda **kw: coq_engine.CoqBuild("not_built", "no build", 0.0))
    told = []
    result = run_claims(["kong.thm3.2"], mode="quick", on_row=lambda r: told.append(r.id))
    assert told == ["kong.thm3.2"]  # its dependencies ran (kong.lemmaA.2 ...) but were not asked for
    assert {c.id for c in result.claims} == {"kong.thm3.2"}


def test_a_build_that_raises_is_an_error_in_the_coq_check_not_a_crash(monkeypatch):
    def broken(**kw):
        raise RuntimeError("coqc vanished")

    monkeypatch.setattr(coq_engine, "build", broken)
    (claim,) = run_claims([COQ_ROW], mode="quick").claims
    evidence = {e.method: e for e in claim.evidence}["coq:volume_is_memory_time"]
    assert evidence.status == "error" and "coqc vanished" in evidence.message
    assert claim.status == "error"


def test_context_background_runs_once_and_the_wait_is_counted_apart():
    ctx = Context("quick", None, 0, ("svf",))
    runs, gate = [], threading.Event()

    def slow():
        runs.append(1)
        gate.wait(60)
        return "built"

    ctx.background("k", slow)
    ctx.background("k", slow)  # a second start is ignored
    gate.set()
    value, spent = ctx.cached("k", lambda: pytest.fail("the background value must be used"))
    assert (value, spent, runs) == ("built", 0.0, [1])
    assert ctx.lock_wait >= 0.0 and ctx.cached("k", lambda: "other") == ("built", 0.0)
    assert ctx.wait_for("nothing started") == 0.0


def test_context_background_exception_reaches_every_reader():
    ctx = Context("quick", None, 0, ("svf",))

    def broken():
        raise ValueError("no")

    ctx.background("k", broken)
    for _ in range(2):
        with pytest.raises(ValueError, match="no"):
            ctx.cached("k", lambda: "never")


def test_claims_prints_the_head_first_and_each_row_once_then_the_legend(monkeypatch, capsys):
    released, calls = threading.Event(), []
    monkeypatch.setattr(coq_engine, "build", _blocking_build(released, calls))
    from geosched.verify import ledger

    real = ledger._emitter

    def emitter(ids, on_row):  # the CLI's printer, then the release of the blocked build
        emit = real(ids, on_row)
        return lambda result: (emit(result), released.set())

    monkeypatch.setattr(ledger, "_emitter", emitter)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["claims", "--quick", "--claim", COQ_ROW, "--claim", FREE_ROW, "--no-progress"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["id", "status", "used", "disc.", "time"]
    firsts = [line.split()[0] for line in out[2:] if line[:1].strip()]
    assert firsts[:2] == [FREE_ROW, COQ_ROW]  # as they finished
    legend = next(k for k, line in enumerate(out) if line.startswith("Legend:"))
    assert legend > min(k for k, line in enumerate(out) if line.startswith(COQ_ROW))  # the row, then the legend
    # its table row once, then one evidence row per method
    assert sum(line.startswith(f"{FREE_ROW} ") for line in out) == 1 + len(CLAIMS[FREE_ROW].methods)
    assert any(line.startswith("2 claims: ") for line in out)


def test_a_row_wider_than_its_columns_widens_itself_within_the_terminal():
    from geosched.verify.ledger import ClaimResult

    printer = RowPrinter(["a"], width=60)
    claim = ClaimResult("a", "src", "a statement long enough to wrap " * 3, "proved relative to",
                        "proved relative to H", (), (), None, "", 12.5, waited=321.0)
    lines = printer.row(claim)
    assert lines[0].split()[:4] == ["a", "proved", "relative", "to"]
    assert "+321.0s waiting" in lines[0]
    assert max(len(line) for line in [*printer.head(), *lines]) <= 60
    flat = " ".join(" ".join(lines).split())
    assert "a statement long enough to wrap a statement long enough to wrap" in flat  # nothing cut


def test_above_erases_the_terminal_line_prints_the_row_and_draws_the_line_again():
    err, out = io.StringIO(), io.StringIO()
    bar = Reporter("claims", stream=err, terminal=True, interval=5.0, clock=lambda: 0.0)
    bar.stage("kong.volume derivation")
    drawn = err.getvalue()
    assert drawn.endswith("now kong.volume derivation\x1b[K")
    bar.above("kong.volume  proved", stream=out)
    assert out.getvalue() == "kong.volume  proved\n"
    assert err.getvalue()[len(drawn):] == "\r\x1b[K" + "\rclaims: 0 s, now kong.volume derivation\x1b[K"


def test_the_coq_builds_estimate_comes_from_the_files_compiled_so_far(tmp_path):
    """coq_watch counts the .vo files of the build's working folder and estimates the rest at the rate measured
    so far; the fake clock and the fake wait make the run deterministic."""
    from concurrent.futures import Future

    from geosched import progress
    from geosched.verify import coq_watch

    sources = tmp_path / "sources"
    sources.mkdir()
    for name in ("A", "B", "C", "D", "Assumptions", "Extract"):  # the last two are not the build's files
        (sources / f"{name}.v").write_text("")
    work = tmp_path / "cache" / ".0123456789abcdef.xyz" / "src"
    work.mkdir(parents=True)
    assert coq_watch.compiled_files(tmp_path / "cache", "0123456789abcdef" * 4, sources) == (0, 4)
    (work / "A.vo").write_text("")
    (work / "GeoschedStatements0.vo").write_text("")  # a check's script, compiled after the files: not one of them
    (work / "Extract.vo").write_text("")
    assert coq_watch.compiled_files(tmp_path / "cache", "0123456789abcdef" * 4, sources) == (1, 4)

    clock, build = [0.0], Future()
    ticks = iter([30.0, 30.0, 60.0, 90.0])

    def wait(seconds):  # a poll: the clock moves; after the ticks the build ends
        step = next(ticks, None)
        if step is None:
            build.set_result("done")
            return True
        clock[0] = step
        if step == 60.0:
            (work / "B.vo").write_text("")
        return False

    out = io.StringIO()
    with progress.reporting("claims", stream=out, terminal=False, interval=3600.0, heartbeat=False):
        coq_watch.watch(build, cache=tmp_path / "cache", digest="0123456789abcdef" * 4, sources=sources,
                        clock=lambda: clock[0], wait=wait).join(10)
    lines = out.getvalue().splitlines()
    # 1 of 4 files in 30 s: 90 s left (about 2 min); at 60 s nothing (EVERY = 60 s since the first line); at 90 s
    # 2 of 4 in 90 s: 90 s left
    assert lines == ["claims: Coq build: 1/4 files compiled in 30 s; about 2 min left at this rate",
                     "claims: Coq build: 2/4 files compiled in 90 s; about 2 min left at this rate"], lines
    assert coq_watch.estimate(2, 4, 60.0) == "2/4 files compiled in 60 s; about 1 min left at this rate"
