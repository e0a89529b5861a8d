"""The workload-format registry (:mod:`geosched.reference_impl.formats`): a new format is one file.

A format module dropped into the package's path is found without any other edit: ``geosched
export --format`` offers it, writes it, and every workload argument (``simulate FILE``) reads it
back through the one suffix rule. :func:`register_format` does the same for a format defined
outside the package.
"""

from __future__ import annotations

import json
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings

import geosched.reference_impl.formats as formats
from geosched.cli import build_parser, main
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.formats import WorkloadFormat, detect_format, formats_for_path, register_format
from geosched.reference_impl.formats import registry as registry_module
from geosched.reference_impl.model import Instance, Request
from geosched.reference_impl.workloads import load_workload
from geosched.testing import instances

# a whole format in one file: "M" on the first line, then "id arrival prompt output" per request
TINY_MODULE = textwrap.dedent('''
    """The ``tiny`` format of the test: one line ``M``, then ``id arrival prompt output`` per request."""
    from pathlib import Path

    from geosched.reference_impl.formats.registry import WorkloadFormat
    from geosched.reference_impl.jsonfile import read_text
    from geosched.reference_impl.model import Instance, Request


    def write(instance, *, step_seconds=0.025):
        rows = [str(instance.memory)] + [f"{r.id} {r.arrival} {r.prompt} {r.output}" for r in instance.requests]
        return "\\n".join(rows) + "\\n"


    def read(path, *, memory=None, step_seconds=0.025):
        first, *rest = read_text(Path(path)).splitlines()
        requests = [Request(i, int(a), int(s), int(o)) for i, a, s, o in (line.split() for line in rest)]
        return Instance(int(first), requests)


    FORMAT = WorkloadFormat(name="tiny", suffixes=(".tiny",), read=read, write=write,
                            description="the test's one-file format")
''')


@pytest.fixture
def tiny_package_dir(tmp_path, monkeypatch):
    """The package's path with one more folder holding ``tinyfmt.py`` (as if the file were added to the package)."""
    folder = tmp_path / "more_formats"
    folder.mkdir()
    (folder / "tinyfmt.py").write_text(TINY_MODULE)
    monkeypatch.setattr(formats, "__path__", [*formats.__path__, str(folder)])
    yield folder
    sys.modules.pop("geosched.reference_impl.formats.tinyfmt", None)


def _export_choices() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return next(a for a in sub.choices["export"]._actions if a.dest == "format").choices


def test_a_format_module_dropped_into_the_package_is_exported_and_read_by_the_cli(tiny_package_dir, tmp_path,
                                                                                   capsys):
    assert "tiny" in formats.FORMATS and "tiny" in _export_choices()
    out = tmp_path / "w.tiny"
    assert main(["export", "burst:n=5,seed=3", "--format", "tiny", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[0] == str(load_workload("burst:n=5,seed=3").memory)
    capsys.readouterr()
    assert main(["simulate", str(out), "--policy", "fcfs", "--json"]) == 0
    ran = json.loads(capsys.readouterr().out)
    reference = load_workload("burst:n=5,seed=3")
    assert ran["n"] == reference.n and ran["memory"] == reference.memory
    assert load_workload(str(out)) == reference  # the same instance, read through the one suffix rule
    # the suffix rule refuses an --out that the format could not read back
    assert main(["export", "example", "--format", "tiny", "--out", str(tmp_path / "w.jsonl")]) == 2
    assert "must end with .tiny for --format tiny" in capsys.readouterr().err


def test_without_the_file_the_format_is_unknown(tmp_path, capsys):
    assert "tiny" not in formats.FORMATS and "tiny" not in _export_choices()
    with pytest.raises(SystemExit):
        main(["export", "example", "--format", "tiny", "--out", str(tmp_path / "w.tiny")])
    assert "invalid choice: 'tiny'" in capsys.readouterr().err


def test_register_format_adds_a_format_from_outside_the_package(tmp_path, monkeypatch):
    monkeypatch.setattr(registry_module, "_REGISTERED", {})
    seen = []

    def read(path, *, memory=None, step_seconds=0.025):
        seen.append(path.name)
        return Instance(memory or 9, [Request("x", 0, 1, 2)])

    fmt = register_format(WorkloadFormat(name="one-request", suffixes=(".one",), read=read,
                                         description="always one request"))
    assert formats.get_format("one-request") is fmt and "one-request" not in formats.FORMATS  # read only
    (tmp_path / "w.one").write_text("")
    assert load_workload(str(tmp_path / "w.one"), memory=7).memory == 7 and seen == ["w.one"]
    with pytest.raises(ValidationError, match="already a workload format"):
        register_format(fmt)
    with pytest.raises(UnknownNameError, match="known: " + ", ".join(sorted(formats.FORMATS))):
        formats.get_format("one-request", writable=True)


def test_a_malformed_declaration_names_its_field():
    with pytest.raises(ValidationError, match="suffixes"):
        WorkloadFormat(name="x", suffixes=("csv",), read=lambda path, **_: None, description="")
    with pytest.raises(ValidationError, match="name"):
        WorkloadFormat(name="", suffixes=(".x",), read=lambda path, **_: None, description="")


@settings(max_examples=30, deadline=None)
@given(instances(max_n=8))
def test_the_suffix_rule_picks_the_format_that_wrote_the_file(inst):
    with tempfile.TemporaryDirectory() as folder:
        for name in ("jsonl", "vllm-bench", "azure-csv"):
            path = Path(folder) / f"w{formats.get_format(name).suffixes[0]}"
            formats.write_workload(inst, path, name, step_seconds=1.0)
            assert detect_format(path).name == name
            assert formats.read_workload_file(path) == inst


def test_an_option_a_format_does_not_take_is_named():
    inst = Instance(12, [Request("a", 0, 6, 3)])
    with pytest.raises(ValidationError, match="is not an option of jsonl .* .got .tie_gap_seconds"):
        formats.workload_text(inst, "jsonl", tie_gap_seconds=0.01)
    assert formats.workload_text(inst, "vllm-bench", tie_gap_seconds=0.01)


def test_a_trace_csv_is_left_to_the_trace_reader(tmp_path):
    assert [f.name for f in formats_for_path("x.jsonl")] == ["jsonl", "mooncake", "vllm-bench"]
    trace = tmp_path / "trace.csv"
    trace.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 00:00:00.0000000,3,4\n")
    assert detect_format(trace) is None  # a .csv no format claims: load_workload reads it as the Azure trace
    read = load_workload(str(trace), memory=40)
    assert (read.memory, [(r.arrival, r.prompt, r.output) for r in read.requests]) == (40, [(0, 3, 4)])
