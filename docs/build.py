"""Build the documentation site: ``python docs/build.py [--out build/docs] [--clean]``.

Runs ``sphinx-build -W --keep-going -b html`` on ``docs/`` (warnings are errors; every lesson is
executed, and a lesson that raises fails the build), writes the full log to ``OUT/build.log`` and
prints the page list and the wall time; progress lines go to stderr (``--quiet``: none). Exit status:
Sphinx's (0 when the site built cleanly).
Needs the ``docs`` extra: ``pip install -e '.[docs]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}


def pages(html: Path) -> list[str]:
    """The site's content pages (``.html`` files outside ``_static``/``_sources``), sorted."""
    return sorted(str(p.relative_to(html)) for p in html.rglob("*.html")
                  if not p.relative_to(html).parts[0].startswith("_") and p.name not in SKIP_PAGES)


def _environment(out: Path) -> dict[str, str]:
    """The lessons run on a ``python3`` kernel of *this* interpreter: a kernelspec written into
    the build folder comes first on ``JUPYTER_PATH``, ahead of any system-wide ``python3``."""
    spec = out / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (geosched build)", "language": "python"}))
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(out / "jupyter"), env.get("JUPYTER_PATH")]))
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # the kernel's debugger notice is not a lesson output
    return env


def _run_sphinx(command: list[str], env: dict[str, str], stage) -> tuple[int, str]:
    """Run Sphinx, its output merged into one log; each line it prints ("reading sources... [ 40%]
    lessons/03_certificate", "executing ...") becomes the progress stage, so that the minutes spent
    executing the lessons show what runs."""
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if stage is not None and line.strip():
            stage.set_description_str(f"sphinx: {line.strip()[:100]}")
    return proc.wait(), "".join(lines)


def build(out: Path, *, clean: bool = False, progress: bool = False) -> dict:
    """Build into ``out/html`` (doctrees in ``out/doctrees``); returns a summary dict. With
    ``progress``, a line every few seconds on stderr (:mod:`geosched.progress`, also off a terminal):
    the time spent so far and Sphinx's last line (executing the lessons takes minutes)."""
    from geosched.output import working

    out = Path(out)
    if clean and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    warning_file = out / "warnings.txt"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-d", str(out / "doctrees"),
               "-w", str(warning_file), str(DOCS), str(out / "html")]
    began = time.perf_counter()
    with working("sphinx-build (executing the lessons)", progress) as stage:
        returncode, log = _run_sphinx(command, _environment(out), stage)
    wall = time.perf_counter() - began
    (out / "build.log").write_text(log)
    # Sphinx's own warnings and errors (a kernel's chatter on stderr is not one of them)
    warnings = warning_file.read_text().splitlines() if warning_file.is_file() else []
    summary = {"returncode": returncode, "wall_time": round(wall, 1), "command": " ".join(command),
               "pages": pages(out / "html") if (out / "html").is_dir() else [], "warnings": warnings,
               "log": str(out / "build.log")}
    (out / "build.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "docs"), help="build folder (default build/docs)")
    parser.add_argument("--clean", action="store_true", help="remove the build folder first")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    summary = build(Path(args.out), clean=args.clean, progress=not args.quiet)
    for page in summary["pages"]:
        print(page)
    for warning in summary["warnings"]:
        print(warning, file=sys.stderr)
    status = "built" if summary["returncode"] == 0 else f"FAILED (sphinx exit {summary['returncode']})"
    print(f"site {status} in {summary['wall_time']} s: {len(summary['pages'])} pages, "
          f"{len(summary['warnings'])} warnings; log {summary['log']}")
    return summary["returncode"]


if __name__ == "__main__":
    sys.exit(main())
