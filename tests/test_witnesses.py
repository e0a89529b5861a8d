"""Every witness committed under docs/witnesses re-verifies with the checker alone."""

from pathlib import Path

import pytest

from geosched.cli import main

WITNESSES = sorted((Path(__file__).resolve().parent.parent / "docs" / "witnesses").glob("*.json"))


@pytest.mark.parametrize("path", WITNESSES, ids=[p.stem for p in WITNESSES])
def test_committed_witness_verifies(path, capsys):
    assert main(["check-witness", str(path)]) == 0
    assert capsys.readouterr().out.startswith("OK ")


def test_there_are_witnesses():
    assert len(WITNESSES) >= 3
