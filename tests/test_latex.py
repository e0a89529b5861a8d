"""``geosched prove ID --latex --standalone``: a complete document that a real LaTeX engine compiles.

The compile test needs ``pdflatex`` (Debian's texlive-latex-base, installed by ci/setup.sh);
outside CI it skips when pdflatex is absent, in CI (``CI`` set) a missing engine fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from geosched.cli import main
from geosched.theory import claim_ids, get_derivation

_DOCUMENTS: dict[str, str] = {}  # claim -> its document: `prove` runs the claim's checks, once per claim here


def standalone(claim: str, capsys) -> str:
    if claim not in _DOCUMENTS:
        assert main(["prove", claim, "--latex", "--standalone"]) in (0, 1)
        _DOCUMENTS[claim] = capsys.readouterr().out
    return _DOCUMENTS[claim]


@pytest.mark.parametrize("claim", claim_ids())
def test_document_sets_claim_and_hypotheses_in_math(claim, capsys):
    derivation = get_derivation(claim)
    text = standalone(claim, capsys)
    assert text.startswith(r"\documentclass") and r"\usepackage{amsmath,amssymb}" in text
    assert text.rstrip().endswith(r"\end{document}")
    assert derivation.statement_latex and derivation.statement_latex in text
    head = text.split(r"\section*{Derivation}")[0]
    for hypothesis in derivation.hypotheses:
        assert hypothesis.latex and rf"\item[{hypothesis.label}] {hypothesis.latex}" in head
    # no ASCII math left in the claim and the hypotheses: no escaped carets, no <=, >=, ->
    for ascii_math in (r"\^{}", "<=", ">=", "->"):
        assert ascii_math not in head, ascii_math
    assert head.count("$") % 2 == 0
    unescaped = re.sub(r"\\[{}$]", "", text)
    assert unescaped.count("{") == unescaped.count("}")


def test_standalone_needs_latex(capsys):
    assert main(["prove", "kong.volume", "--standalone"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--standalone" in err[0]


def _pdflatex() -> str:
    engine = shutil.which("pdflatex")
    if engine is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing in CI: ci/setup.sh installs texlive-latex-base")
        pytest.skip("pdflatex not found (apt-get install texlive-latex-base); CI installs it")
    return engine


@pytest.mark.latex
@pytest.mark.parametrize("claim", claim_ids())
def test_document_compiles_with_pdflatex(claim, capsys, tmp_path):
    engine = _pdflatex()
    (tmp_path / "claim.tex").write_text(standalone(claim, capsys))
    proc = subprocess.run([engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "claim.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    log = (tmp_path / "claim.log").read_text(errors="replace") if (tmp_path / "claim.log").exists() else ""
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "claim.pdf").stat().st_size > 1000
    assert "Undefined control sequence" not in log and "Missing $ inserted" not in log
