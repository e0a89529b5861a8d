"""The lessons' sources and ``geosched lessons``: notebooks a reader opens in Jupyter."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from geosched.cli import main
from geosched.lessons import lesson_sources

ROOT = Path(__file__).resolve().parent.parent
LESSONS = ROOT / "docs" / "lessons"
EXPECTED = ["01_geometry", "02_policies_and_opt", "03_certificate", "04_sjf_unbounded", "05_poisson",
            "06_hunting", "07_vllm_differential", "08_what_is_proved"]


def test_the_eight_lessons_are_found_in_order():
    assert [p.stem for p in lesson_sources()] == EXPECTED
    assert [p.stem for p in sorted(LESSONS.glob("*.md"))] == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_every_lesson_ends_with_exercises_and_hidden_solutions(name):
    text = (LESSONS / f"{name}.md").read_text()
    assert text.startswith("---\njupytext:") and "format_name: myst" in text
    assert re.search(r"^# Lesson \d: ", text, re.M)
    exercises = text.index("\n## Exercises\n")
    tail = text[exercises:]
    solutions = "```{code-cell} ipython3\n:tags: [hide-cell]\n"  # the solutions, collapsed on the site
    assert solutions in tail and tail.index("```{code-cell}") == tail.index(solutions)  # exercises come first
    assert "import geosched as gs" in text


@pytest.mark.parametrize("name, names", [("03_certificate", ("M", "alpha", "n", "seed")),
                                         ("05_poisson", ("alpha", "mu", "rhos", "M", "n"))])
def test_parameter_cells_come_first(name, names):
    text = (LESSONS / f"{name}.md").read_text()
    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", text, re.S)
    first = cells[0]
    assert first.startswith(":tags: [parameters]\n")
    for variable in names:
        assert re.search(rf"^{variable} = ", first, re.M), variable


def test_cli_lessons_writes_notebooks(tmp_path, capsys):
    pytest.importorskip("jupytext")
    nbformat = pytest.importorskip("nbformat")
    out = tmp_path / "nb"
    assert main(["lessons", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "jupyter lab" in printed and str(out) in printed
    written = sorted(out.glob("*.ipynb"))
    assert [p.stem for p in written] == EXPECTED
    for path in written:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        assert notebook.metadata["kernelspec"]["name"] == "python3"
        assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    params = nbformat.read(out / "03_certificate.ipynb", as_version=4)
    first_code = next(cell for cell in params.cells if cell.cell_type == "code")
    assert first_code.metadata["tags"] == ["parameters"] and "alpha = 0.5" in first_code.source
    solutions = [c for c in nbformat.read(out / "01_geometry.ipynb", as_version=4).cells
                 if "hide-cell" in c.metadata.get("tags", [])]
    assert len(solutions) == 1 and "Solution 1" in solutions[0].source


def test_cli_lessons_never_overwrites_without_force(tmp_path, capsys):
    pytest.importorskip("jupytext")
    out = tmp_path / "nb"
    out.mkdir()
    (out / "01_geometry.ipynb").write_text("mine")
    assert main(["lessons", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "01_geometry.ipynb" in err[0] and "--force" in err[0]
    assert (out / "01_geometry.ipynb").read_text() == "mine" and len(list(out.iterdir())) == 1
    assert main(["lessons", "--out", str(out), "--force", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "written" and len(data["notebooks"]) == len(EXPECTED)
    assert json.loads((out / "01_geometry.ipynb").read_text())["nbformat"] == 4


def test_cli_lessons_refuses_a_file_as_folder(tmp_path, capsys):
    target = tmp_path / "f"
    target.write_text("x")
    assert main(["lessons", "--out", str(target)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_missing_jupytext_names_the_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "jupytext", None)
    assert main(["lessons", "--out", str(tmp_path / "nb")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "geosched[docs]" in err[0]
    assert not (tmp_path / "nb").exists()
