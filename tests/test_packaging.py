"""Build the wheel, install it in a fresh virtual environment, import every subpackage."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def declared_packages():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_every_source_folder_is_declared():
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    declared = set(declared_packages())
    assert set(mapping) == declared
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            name = ".".join([package, *relative.parts]) if relative.parts else package
            assert name in declared, f"{init} is not listed in pyproject's packages"


@pytest.mark.packaging
@pytest.mark.slow
def test_wheel_installs_and_imports(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    wheels = list(dist.glob("geosched-*.whl"))
    assert len(wheels) == 1
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], check=True,
                   capture_output=True)
    names = declared_packages()
    code = (
        "import importlib, geosched, pathlib\n"
        f"names = {names!r}\n"
        "for n in names: importlib.import_module(n)\n"
        "assert 'site-packages' in geosched.__file__, geosched.__file__\n"
        "from importlib import resources\n"
        "models = resources.files('geosched.reference_impl.predictors').joinpath('models')\n"
        "assert all(models.joinpath(k + '.json').is_file() for k in ('point', 'onebit', 'dist'))\n"
        "print(len(names))\n"
    )
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(len(names))
    proc = subprocess.run([str(venv / "bin" / "geosched"), "simulate", "example", "--json"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the installed wheel's format registry finds the same format modules as the source tree
    from geosched.reference_impl.formats import workload_formats

    proc = subprocess.run([str(python), "-c", "from geosched.reference_impl.formats import workload_formats; "
                           "print(sorted(workload_formats()))"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip() == str(sorted(workload_formats())), proc.stderr
    # the wheel carries the typing marker, and the README's Python example runs from it
    proc = subprocess.run([str(python), "-c", "import geosched, pathlib; "
                           "print((pathlib.Path(geosched.__file__).parent / 'py.typed').is_file())"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.stdout.strip() == "True", proc.stderr
    readme = (ROOT / "README.md").read_text()
    example = readme.split("```python runnable\n", 1)[1].split("```", 1)[0]
    proc = subprocess.run([str(python), "-c", example], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "optimal 9" in proc.stdout
