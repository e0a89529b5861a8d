"""The documentation site: built with warnings as errors (every lesson executed), then opened in
headless Chromium page by page.

Both tests are ``slow`` and ``docs``. Outside CI they skip, with the reason, when the ``docs``
extra or Chromium is missing; in CI (``CI`` set) a missing piece fails: ci/setup.sh installs them.
The site is built into ``build/docs`` (``html/``, ``build.log``, ``warnings.txt``, and the
browser's ``screenshots/`` and ``browser_check.json``), which CI keeps.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "docs"
LESSONS = ["lessons/01_geometry.html", "lessons/02_policies_and_opt.html", "lessons/03_certificate.html",
           "lessons/04_sjf_unbounded.html", "lessons/05_poisson.html", "lessons/06_hunting.html",
           "lessons/07_vllm_differential.html", "lessons/08_what_is_proved.html", "lessons/09_thm33_in_coq.html"]
PAGES = sorted(["index.html", "api.html", "teaching.html", "claims.html", "proved.html", "theory.html",
                "verification.html", "poisson.html", "adversary.html", "vllm.html", "schedulers.html",
                "predictions.html",
                "sagesched.html", "cluster.html",
                "architecture.html",
                *LESSONS])
FIGURES = {"lessons/01_geometry.html": 4, "lessons/02_policies_and_opt.html": 2, "lessons/03_certificate.html": 2,
           "lessons/04_sjf_unbounded.html": 3, "lessons/05_poisson.html": 1, "lessons/06_hunting.html": 1}

pytestmark = [pytest.mark.slow, pytest.mark.docs]


def _missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} in CI (ci/setup.sh installs it)")
    pytest.skip(reason)


def _tool(name: str):
    qualified = f"geosched_docs_{name}"  # docs/ is not a package: load the script as a module
    if qualified in sys.modules:
        return sys.modules[qualified]
    spec = importlib.util.spec_from_file_location(qualified, ROOT / "docs" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site() -> dict:
    for dist in ("sphinx", "myst-nb", "furo", "jupytext", "ipykernel", "matplotlib", "sphinx-mathjax-offline"):
        try:
            importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            _missing(f"{dist} is not installed (pip install -e '.[docs]')")
    return _tool("build").build(OUT, clean=True)


def test_site_builds_with_no_warning(site):
    assert site["returncode"] == 0, (OUT / "build.log").read_text()[-5000:]
    assert site["warnings"] == []
    assert site["pages"] == PAGES
    print(f"\nsite built in {site['wall_time']} s: {len(site['pages'])} pages: {' '.join(site['pages'])}")
    html = OUT / "html"
    for page, figures in FIGURES.items():
        text = (html / page).read_text()
        assert text.count('<img alt="_images/') + text.count('src="../_images/') >= figures, page
        assert "Traceback (most recent call last)" not in text, page
    assert (html / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for page in PAGES:
        assert "cdn.jsdelivr" not in (html / page).read_text(), page  # MathJax is served locally


def test_pages_in_headless_chromium(site):
    if site["returncode"] != 0:
        pytest.skip("the site did not build (see test_site_builds_with_no_warning)")
    if importlib.util.find_spec("websocket") is None:
        _missing("websocket-client is not installed (pip install -e '.[docs]')")
    check = _tool("browser_check")
    chromium = check.find_chromium()
    if chromium is None:
        _missing("chromium is not installed (apt-get install chromium)")
    pages = ["index.html", "api.html", *LESSONS]
    results = check.check_site(OUT / "html", pages, chromium=chromium, out=OUT)
    for r in results:
        print(f"{r.page:40} images {r.images - len(r.broken_images)}/{r.images}  math {r.math_typeset}/"
              f"{r.math_blocks}  MathJax errors {len(r.math_errors)}  console errors {len(r.console_errors)}  "
              f"{'ok' if r.ok else 'FAIL'}", file=sys.stderr)
    problems = {r.page: r.problems() for r in results if not r.ok}
    assert problems == {}
    by_page = {r.page: r for r in results}
    for page, figures in FIGURES.items():
        assert by_page[page].images >= figures, page
    assert by_page["lessons/01_geometry.html"].math_blocks > 10  # the math is there, and typeset
    assert all(Path(r.screenshot).stat().st_size > 10_000 for r in results)
