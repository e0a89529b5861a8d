"""The reliability campaign of issue 11, rerun: bad inputs, extreme inputs and tampered witnesses.

Every case of ``tests/reliability_cases.py`` is run in this process through
:func:`geosched.cli.main` (files written into a fresh folder first), and classified:

* bad inputs (the right answer is an error): clean error (exit 2, one line
  ``geosched: error: ...``, no traceback, no file changed), traceback, unclean error (another
  exit status, several lines, a file changed), accepted (exit 0: a lenient input);
* extreme valid inputs (huge numbers): answered (exit 0/1 with every number the case
  re-derives by hand, exactly), refused cleanly, traceback, wrong answer (a silent one);
* output paths (issue 21: every writing command against an existing file without ``--force``,
  a symlink, a folder, a missing folder, a name too long, a read-only and a full file system on
  small tmpfs mounts; ``tests/reliability_output_cases.py``): bad inputs as above, a changed
  file being an overwrite or a leftover; the tmpfs cases are "not run" where mount is impossible;
* kills during writes (SIGKILL while the writer is in its fsync, then the same command again):
  the old file kept and no temporary left, or overwritten, or a leftover;
* tampered witnesses (every field of ``docs/witnesses/svf_burst_alpha0.5_ratio1.345.json``
  changed, removed, duplicated, NaN, Infinity, null): rejected (exit 1 with problems),
  malformed (clean exit 2), harmless (the untampered numbers), re-derived (other numbers,
  each equal to an independent re-computation: the per-step reference simulator and a
  per-step memory sum), or accepted with a wrong number;
* tampered witnesses of every kind (issue 30, ``tests/witness_audit.py``): every shipped witness,
  every leaf tampered (``--audit-samples`` positions per per-request collection), through
  ``check-witness --json``, by kind: refused, rejected, harmless, re-derived (to numbers an
  independent implementation gives), accepted with a wrong number, tracebacks;
* code named by data files (issue 30, ``tests/reliability_referee_cases.py``): witnesses,
  workloads and checkpoints naming a scheduler file that marks its import; counted as a category
  of cases, plus how many ran the file;
* work bounds, signals, peers and decisions (issue 30, ``tests/reliability_bound_cases.py``): size
  bombs per command (a 10^12-token output at token and block grain, vllm-bench exports, hunts with
  huge ``--evals``/``--restarts``), a sleeping ``decide()``, malformed decisions, a ``tcp://`` peer
  that answers HTTP, SIGTERM to a running hunt; one line per category with the cases over 60 s.

Each case runs under a time limit (``--case-timeout``) and the process under a data limit
(``--memory-gib``), so that a command that would run away is counted and the campaign goes
on; ``--isolate`` runs each case in its own process instead (killed at the time limit: what
compiled code cannot be interrupted in-process), for versions that may hang. Point it at any
checkout's ``geosched`` by running it with that checkout's interpreter (the cases come from
this file's ``tests/``).

    python benchmarks/reliability_campaign.py [--json] [--show-failures] [--isolate]
    python benchmarks/reliability_campaign.py --only "code named by data files" --audit
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from _machine import machine_summary  # noqa: E402
from reliability_cases import OUTCOMES, TAMPER_OK, all_cases, classify, run_case, tamper_verdict, tampers  # noqa: E402
from reliability_output_cases import KILL_OUTCOMES, kill_cases, kill_verdict, output_cases, prepared  # noqa: E402
from reliability_referee_cases import audit_outcome, audit_rows, code_ran  # noqa: E402


class CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException, so that no ``except Exception`` swallows it."""


def _alarm(signum, frame):
    raise CaseTimeout


def _run_case(case, timeout: int) -> tuple[str, str, float]:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        began = time.perf_counter()
        signal.alarm(timeout)
        try:
            with prepared(case, folder) as why:
                if why is None and case.needs is not None and importlib.util.find_spec(case.needs) is None:
                    why = f"{case.needs} is not installed"
                if why is not None:
                    return "not run", why, 0.0
                run = run_case(case, folder)
        except CaseTimeout:
            return "traceback", f"did not finish in {timeout} s", time.perf_counter() - began
        except MemoryError:
            return "traceback", "MemoryError", time.perf_counter() - began
        finally:
            signal.alarm(0)
        outcome, detail = classify(case, run)
        return outcome, detail, time.perf_counter() - began


def _run_isolated(case, timeout: int, memory_gib: float) -> tuple[str, str, float]:
    """The case in a fresh interpreter, killed at ``timeout``."""
    began = time.perf_counter()
    command = [sys.executable, __file__, "--one", case.name, "--case-timeout", str(timeout),
               "--memory-gib", str(memory_gib)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        return "traceback", f"did not finish in {timeout} s (killed)", time.perf_counter() - began
    try:
        outcome, detail = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        outcome, detail = "traceback", f"the process died (exit {done.returncode}): {done.stderr[-300:]}"
    return outcome, detail, time.perf_counter() - began


def _run_tamper(text: str, timeout: int) -> str:
    signal.alarm(timeout)
    try:
        verdict = tamper_verdict(text)
    except CaseTimeout:
        return f"traceback: did not finish in {timeout} s"
    except Exception as exc:  # noqa: BLE001 - an error of the verdict's own re-computation
        return f"traceback: {type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
    return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case-timeout", type=int, default=120, help="seconds per case (default 120)")
    parser.add_argument("--memory-gib", type=float, default=6.0, help="data limit of this process (default 6)")
    parser.add_argument("--json", action="store_true", help="print every case's outcome as JSON")
    parser.add_argument("--show-failures", action="store_true", help="list every case that is not right")
    parser.add_argument("--progress", action="store_true", help="one line per case on stderr as it finishes")
    parser.add_argument("--isolate", action="store_true", help="each case in its own process")
    parser.add_argument("--only", default=None, help="comma-separated name prefixes: run only those cases "
                        "(e.g. the categories of tests/reliability_inputs.py), plus the API table")
    parser.add_argument("--api", action="store_true", help="only the public API's bad arguments "
                        "(tests/reliability_inputs.py), in this process without the data limit")
    parser.add_argument("--audit", action="store_true", help="with --only: also the tampered witnesses of every "
                        "kind (always run without --only)")
    parser.add_argument("--audit-samples", type=int, default=2, help="tampered positions per per-request "
                        "collection of each witness (default 2)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # --isolate's worker: one case by name
    args = parser.parse_args()
    if args.api:
        rows = _api_rows()
        _print_categories(rows)
        for row in rows:
            if args.show_failures and row["outcome"] != "clean error":
                print(f"- {row['outcome']}: {row['case']}: {row['detail'][:200]}")
        return 0
    limit = int(args.memory_gib * 2**30)
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    signal.signal(signal.SIGALRM, _alarm)
    import geosched

    if args.one is not None:
        case = next(c for c in all_cases() + output_cases() if c.name == args.one)
        outcome, detail, _ = _run_case(case, args.case_timeout)
        print(json.dumps([outcome, detail]))
        return 0
    began = time.perf_counter()
    rows = []
    prefixes = tuple(args.only.split(",")) if args.only else None
    for case in all_cases() + output_cases():
        if prefixes and not case.name.startswith(prefixes):
            continue
        if args.isolate:
            outcome, detail, seconds = _run_isolated(case, args.case_timeout, args.memory_gib)
        else:
            outcome, detail, seconds = _run_case(case, args.case_timeout)
        rows.append({"case": case.name, "expect": case.expect, "outcome": outcome, "detail": detail,
                     "seconds": round(seconds, 3), "output": case.name.startswith("output ")})
        if args.progress:
            print(f"{seconds:7.2f}s {outcome:<15} {case.name}", file=sys.stderr, flush=True)
    kill_rows = [] if prefixes else _run_kills()
    tamper_rows = [] if prefixes else [{"tamper": label, "verdict": _run_tamper(text, args.case_timeout)}
                                       for label, text in tampers()]
    audit = audit_rows(args.audit_samples) if args.audit or not prefixes else []
    wall = time.perf_counter() - began
    if args.json:
        print(json.dumps({"geosched": geosched.__version__, "geosched_path": str(Path(geosched.__file__).parent),
                          "cases": rows, "kills": kill_rows, "tampers": tamper_rows, "audit": audit,
                          "wall_time": wall}, indent=1))
        return 0
    print(f"machine: {machine_summary()}; geosched from {Path(geosched.__file__).parent}; {wall:.0f} s")
    _print_tables(rows, tamper_rows)
    if kill_rows:
        _print_kills(kill_rows)
    if prefixes:
        _print_categories(rows)
    _print_referee(rows, audit)
    if args.show_failures:
        for row in rows:
            if row["outcome"] not in ("clean error", "answered", "refused cleanly"):
                print(f"- {row['outcome']}: {row['case']}: {row['detail'][:300]}")
        for row in kill_rows:
            if row["outcome"] != KILL_OUTCOMES[0]:
                print(f"- {row['outcome']}: {row['case']}: {row['detail'][:300]}")
        for row in tamper_rows:
            if row["verdict"] not in TAMPER_OK:
                print(f"- tamper {row['tamper']}: {row['verdict'][:300]}")
        for row in audit:
            if audit_outcome(row["verdict"]) not in ("refused", "rejected", "harmless", "re-derived"):
                print(f"- audit {row['tamper']}: {row['verdict'][:300]}")
    return 0


def _print_referee(rows: list[dict], audit: list[dict]) -> None:
    """Issue 30's tables: the tampered witnesses by kind, and the cases whose files name code."""
    columns = ("refused", "rejected", "harmless", "re-derived", "accepted with a wrong number", "traceback", "other")
    if audit:
        print()
        print("| tampered witnesses, by kind | files | tried | " + " | ".join(columns) + " |")
        print("|---|---|---|" + "---|" * len(columns))
        kinds: dict[str, list[dict]] = {}
        for row in audit:
            kinds.setdefault(row["kind"], []).append(row)
        for kind, members in [*kinds.items(), ("all", audit)]:
            counts = collections.Counter(audit_outcome(r["verdict"]) for r in members)
            files = len({r["file"] for r in members})
            print(f"| {kind} | {files} | {len(members)} | " + " | ".join(str(counts[c]) for c in columns) + " |")
    code = [r for r in rows if r["case"].startswith("code named by data files")]
    if code:
        ran = sum(code_ran(r["detail"]) for r in code)
        right = sum(r["outcome"] in ("clean error", "answered", "refused cleanly") for r in code)
        tracebacks = sum(r["outcome"] == "traceback" for r in code)
        print()
        print("| code named by data files | tried | clean error or clean answer | code executed | tracebacks |")
        print("|---|---|---|---|---|")
        print(f"| witnesses, workloads, checkpoints naming a scheduler file | {len(code)} | {right} | {ran} | "
              f"{tracebacks} |")


def _run_kills() -> list[dict]:
    rows = []
    for case in kill_cases():
        with tempfile.TemporaryDirectory() as folder:
            try:
                outcome, detail = kill_verdict(case, Path(folder))
            except Exception as exc:  # noqa: BLE001 - a crash of the rerun is a traceback of ours
                outcome, detail = "rerun failed", f"{type(exc).__name__}: {exc}"
        rows.append({"case": case.name, "outcome": outcome, "detail": detail})
    return rows


def _print_kills(kill_rows: list[dict]) -> None:
    counts = collections.Counter(r["outcome"] for r in kill_rows)
    print()
    print("| kills during writes | tried | " + " | ".join(KILL_OUTCOMES) + " |")
    print("|---|---|" + "---|" * len(KILL_OUTCOMES))
    print(f"| SIGKILL in the writer's fsync, then the command again | {len(kill_rows)} | "
          + " | ".join(str(counts[o]) for o in KILL_OUTCOMES) + " |")


def _api_rows() -> list[dict]:
    """The public API's bad arguments (tests/reliability_inputs.py), as rows of category ``API arguments``."""
    from reliability_inputs import api_cases, bound_at_cases, run_api_case, run_bound_at_case

    rows = []
    for label, name, args, kwargs in api_cases():
        outcome, detail = run_api_case(name, args, kwargs)
        rows.append({"case": f"API arguments: {label}", "expect": "error", "outcome": outcome, "detail": detail,
                     "seconds": 0.0})
    for label, claim, values in bound_at_cases():
        outcome, detail = run_bound_at_case(claim, values)
        rows.append({"case": f"API arguments: {label}", "expect": "error", "outcome": outcome, "detail": detail,
                     "seconds": 0.0})
    return rows


def _print_categories(rows: list[dict]) -> None:
    """One line per category (the case name up to its first colon)."""
    table: dict[str, collections.Counter] = {}
    for row in rows:
        counts = table.setdefault(row["case"].split(":")[0], collections.Counter())
        counts[row["outcome"]] += 1
        counts["over 60 s"] += row["seconds"] > 60 or "did not finish" in row["detail"]
    print()
    print("| category | tried | clean errors | answered / refused | tracebacks | unclean errors | lenient (accepted) "
          "| silent wrong answers | over 60 s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for category, c in table.items():
        print(f"| {category} | {sum(c.values()) - c['over 60 s']} | {c['clean error']} | "
              f"{c['answered'] + c['refused cleanly']} | {c['traceback']} | {c['unclean error']} | {c['accepted']} | "
              f"{c['wrong answer']} | {c['over 60 s']} |")


def _print_tables(rows: list[dict], tamper_rows: list[dict]) -> None:
    _print_output_table([r for r in rows if r.get("output")])
    rows = [r for r in rows if not r.get("output")]
    bad = collections.Counter(r["outcome"] for r in rows if r["expect"] == "error")
    extreme = collections.Counter(r["outcome"] for r in rows if r["expect"] == "answer")
    verdicts = collections.Counter(v["verdict"] if v["verdict"] in TAMPER_OK else
                                   ("traceback" if v["verdict"].startswith("traceback") else
                                    "accepted with a wrong number" if v["verdict"].startswith("ACCEPTED") else
                                    "other") for v in tamper_rows)
    print()
    print("| inputs | tried | clean errors | answered exactly | tracebacks | unclean errors | lenient (accepted) "
          "| silent wrong answers |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| bad inputs | {sum(bad.values())} | {bad['clean error']} | - | {bad['traceback']} | "
          f"{bad['unclean error']} | {bad['accepted']} | - |")
    print(f"| extreme valid inputs | {sum(extreme.values())} | {extreme['refused cleanly']} (refused) | "
          f"{extreme['answered']} | {extreme['traceback']} | {extreme['unclean error']} | - | "
          f"{extreme['wrong answer']} |")
    print()
    print("| tampered witnesses | tried | rejected (exit 1) | malformed (exit 2) | harmless | re-derived "
          "| accepted with a wrong number | tracebacks / other |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| svf_burst_alpha0.5_ratio1.345.json | {len(tamper_rows)} | {verdicts['rejected']} | "
          f"{verdicts['malformed']} | {verdicts['harmless']} | {verdicts['re-derived']} | "
          f"{verdicts['accepted with a wrong number']} | {verdicts['traceback'] + verdicts['other']} |")
    assert set(bad) | set(extreme) <= set(OUTCOMES)


def _print_output_table(rows: list[dict]) -> None:
    """Issue 21's output categories: a changed file is an overwrite (an old file changed) or a
    leftover (a file created); "not run" where a tmpfs cannot be mounted."""
    counts = collections.Counter(r["outcome"] for r in rows)
    changed = [r for r in rows if r["outcome"] in ("unclean error", "accepted") and "changed [" in r["detail"]]
    overwrites = sum(1 for r in changed if any(n.startswith(("old", "real", "disk/old")) for n in _changed(r)))
    leftovers = sum(1 for r in changed if any(not n.startswith(("old", "real", "disk/old")) for n in _changed(r)))
    print()
    print("| output paths | tried | clean errors | tracebacks | unclean errors | accepted (exit 0) | overwrites "
          "| leftovers | not run |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| every writing command x bad target | {len(rows)} | {counts['clean error']} | {counts['traceback']} | "
          f"{counts['unclean error']} | {counts['accepted']} | {overwrites} | {leftovers} | {counts['not run']} |")


def _changed(row: dict) -> list[str]:
    text = row["detail"].rsplit("changed [", 1)[1].rstrip("]")
    return [name.strip().strip("'") for name in text.split(",") if name.strip()]


if __name__ == "__main__":
    sys.exit(main())
