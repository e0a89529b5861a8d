"""Sphinx configuration of the geosched documentation site (build it with ``python docs/build.py``).

* MyST-NB reads the markdown pages and the lessons (MyST-markdown notebooks under
  ``lessons/``) and executes every lesson at every build (``nb_execution_mode = "force"``);
  an execution error fails the build (``nb_execution_raise_on_error``).
* The API reference comes from the docstrings (autodoc + napoleon, numpydoc style).
* Math is typeset by MathJax 3 served from this site's own ``_static/mathjax`` (copied from the
  ``sphinx-mathjax-offline`` package at build time): no page loads anything from another host.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import geosched

project = "geosched"
author = "the geosched developers"
copyright = "the geosched developers (Apache-2.0)"
release = version = geosched.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

# ---------------------------------------------------------------- sources
root_doc = "index"
exclude_patterns = ["_build", "build.py", "browser_check.py", "witnesses", "exhaustive", "**.ipynb_checkpoints",
                    "jupyter_execute"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings: list[str] = []

# ---------------------------------------------------------------- notebooks (the lessons)
nb_execution_mode = "force"
nb_execution_timeout = 300
nb_execution_raise_on_error = True  # a lesson that fails to run fails the build
nb_execution_show_tb = True
nb_merge_streams = True
nb_render_image_options = {"width": "100%"}

# ---------------------------------------------------------------- API reference
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections say the types
autodoc_default_options = {"members": False}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

# ---------------------------------------------------------------- HTML
html_theme = "furo"
html_title = f"geosched {release}"
html_static_path: list[str] = ["_static"]
html_css_files = ["outputs.css"]  # cell outputs wrap at the page edge instead of being cut there
html_last_updated_fmt = None  # no date in the pages: two builds of one commit are alike
html_favicon = "_static/favicon.svg"  # a staircase; also spares the browser a 404 on /favicon.ico


def _mathjax_static() -> str:
    """The folder holding ``mathjax/`` inside the installed sphinx-mathjax-offline distribution."""
    dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    folder = Path(str(dist.locate_file("sphinx-mathjax-offline/static")))
    if not (folder / "mathjax" / "tex-chtml.js").is_file():
        raise RuntimeError(f"MathJax not found under {folder}: pip install 'geosched[docs]'")
    return str(folder)


html_static_path.append(_mathjax_static())
mathjax_path = "mathjax/tex-chtml.js"
