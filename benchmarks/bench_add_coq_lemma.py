"""Adding a Coq lemma and the row citing it, to ``proved``: which files and how long (issue 47, item 1).

In a copy of the repository (tests/test_one_file_additions.py's ``RepoCopy``), this writes the test's two files
(``verify/coq/AddedTelNil.v`` and ``theory/tel_nil.py``), then walks the whole way the test stops short of:

1. ``python -m geosched.verify.coq_engine``: the copy's development built from clean (its own empty cache);
2. ``geosched claims --quick --claim ours.tel_nil --json``: the row's Coq evidence, read from that build, must be
   ``unknown`` with "not pinned" (a theorem nobody reviewed is never ``proved``);
3. ``python -m geosched.verify.coq_engine --pin``: the reviewed file ``verify/coq/statements.txt`` rewritten from
   the build (in a real change, its diff is what a reviewer reads);
4. the row again: its Coq evidence must now be ``proved``.

Reported: the files each stage touched, wall and CPU seconds per stage (this process's children), the load.

    python benchmarks/bench_add_coq_lemma.py
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT / "tests"))
from _machine import machine_summary  # noqa: E402
from test_one_file_additions import COQ_ADDED, RepoCopy  # noqa: E402  (the test's two files and copy helper)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _coq_word(copy: RepoCopy) -> dict:
    run = copy.geosched("claims", "--quick", "--claim", "ours.tel_nil", "--json")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["claims"]
    (coq,) = [e for e in row["evidence"] if e["method"] == "coq:added_tel_nil"]
    return coq


def main() -> int:
    print(f"machine: {machine_summary()}; load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        copy = RepoCopy(Path(folder))
        for path, text in COQ_ADDED.items():
            copy.add(path, text)
        stages = {}
        began, cpu = time.perf_counter(), _children_cpu()
        build = copy.python("-m", "geosched.verify.coq_engine")
        assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
        stages["build from clean"] = (time.perf_counter() - began, _children_cpu() - cpu, build.stdout.splitlines()[0])
        before = _coq_word(copy)
        assert before["status"] == "unknown" and "not pinned" in before["message"], before
        print(f"after the build, the row's Coq evidence: {before['status']}: {before['message']}; files touched: "
              f"{copy.touched()}")
        began, cpu = time.perf_counter(), _children_cpu()
        pin = copy.python("-m", "geosched.verify.coq_engine", "--pin")
        assert pin.returncode == 0, pin.stdout + pin.stderr
        stages["--pin"] = (time.perf_counter() - began, _children_cpu() - cpu, pin.stdout.strip().splitlines()[-1])
        after = _coq_word(copy)
        assert after["status"] == "proved", after
        print(f"after the pin: {after['status']}: {after['message']}; files touched: {copy.touched()}")
    for stage, (wall, used, line) in stages.items():
        print(f"{stage}: {wall:.1f} s wall, {used:.1f} s CPU ({line})")
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
