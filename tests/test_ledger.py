"""The claims ledger: statuses come from running checks, and a broken formula changes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geosched.cli import main
from geosched.errors import UnknownNameError
from geosched.verify import ledger
from geosched.verify.ledger import CLAIM_IDS, Claim, Evidence, combine, run_claims

EXPECTED_IDS = ("kong.volume", "kong.prop3.1", "kong.lemmaA.2", "kong.thm3.2", "kong.thm3.3", "kong.thm3.4",
                "kong.thm3.5", "kong.sjf_unbounded", "jaillet.thm4.1", "jaillet.thm4.3", "kong.emp.svf_latency",
                "kong.emp.onebit", "kong.emp.overhead")


def test_claim_ids_are_exactly_the_issue_list():
    assert CLAIM_IDS == EXPECTED_IDS


def test_cli_json_one_claim(capsys):
    assert main(["claims", "--json", "--claim", "kong.volume"]) == 0
    data = json.loads(capsys.readouterr().out)
    (claim,) = data["claims"]
    assert claim["id"] == "kong.volume"
    assert claim["status"] in ("proved", "checked")
    methods = {e["method"]: e for e in claim["evidence"]}
    assert methods["enumeration:volume"]["status"] == "checked"
    assert set(data["versions"]) == {"geosched", "python", "z3", "sympy", "numpy"}
    assert data["seed"] == 0


def test_cli_unknown_claim_is_a_one_line_error(capsys):
    assert main(["claims", "--claim", "kong.nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "kong.nope" in err and "kong.volume" in err


def test_unknown_claim_raises():
    with pytest.raises(UnknownNameError):
        run_claims(["nope"])


def test_broken_volume_formula_is_refuted(monkeypatch, tmp_path):
    import geosched.reference_impl.model as model

    monkeypatch.setattr(model, "volume", lambda s, o: s * o + (o * o - o) // 2)  # (o^2 - o)/2: wrong
    result = run_claims(["kong.volume"], out=tmp_path)
    claim = result.claims[0]
    assert claim.status == "refuted"
    assert claim.counterexample and Path(claim.counterexample).is_file()
    data = json.loads(Path(claim.counterexample).read_text())
    assert data["model_volume"] != data["sum_formula"]


def test_broken_bound_constant_is_refuted(monkeypatch, tmp_path):
    from geosched.verify import exhaustive

    monkeypatch.setattr(exhaustive, "BOUND_NUMERATOR", 0)  # TEL(SVF) <= TEL(OPT): false
    monkeypatch.setattr(exhaustive, "DEFAULT_SPACE", exhaustive.Space(max_n=2, max_prompt=2, max_output=3,
                                                                      max_memory=6))
    claim = run_claims(["kong.thm3.2"], out=tmp_path).claims[0]
    assert claim.status == "refuted"
    assert "exhaustive" in claim.message and Path(claim.counterexample).is_file()


def test_table_has_one_row_per_claim(monkeypatch):
    result = run_claims(["kong.volume"])
    lines = result.table().splitlines()
    assert lines[0].split()[:2] == ["id", "statement"] and len(lines) == 3
    assert lines[2].startswith("kong.volume")


# ------------------------------------------------------------------- the combination rule

CLAIM = Claim("x", "src", "stmt", ())


def _e(kind, status, **kw):
    return Evidence("m-" + kind + "-" + status, kind, status, "detail", **kw)


def test_rule_refuted_wins():
    status, text, cx, _ = combine(CLAIM, [_e("proof", "proved"), _e("bounded", "refuted", counterexample="f.json")],
                                  {})
    assert status == "refuted" and cx == "f.json" and "f.json" in text


def test_rule_proved_needs_every_proof_and_dependency():
    assert combine(CLAIM, [_e("proof", "proved"), _e("bounded", "checked", bound="B")], {})[0] == "proved"
    partial = [_e("proof", "proved"), _e("proof", "unknown"), _e("bounded", "checked", bound="n<=3")]
    status, text, _, note = combine(CLAIM, partial, {})
    assert status == "checked" and text == "checked up to n<=3" and "no complete" in note
    relative = [_e("proof", "proved", depends_on=("dep",)), _e("bounded", "checked", bound="n<=3")]
    assert combine(CLAIM, relative, {"dep": "checked"})[0] == "checked"
    assert combine(CLAIM, relative, {"dep": "proved"})[0] == "proved"


def test_rule_statistical_and_unknown():
    status, text, _, _ = combine(CLAIM, [_e("proof", "unknown"), _e("statistical", "consistent", samples=80)], {})
    assert (status, text) == ("consistent", "consistent in 80 samples")
    assert combine(CLAIM, [_e("proof", "unknown")], {})[0] == "unknown"
    assert combine(CLAIM, [], {})[0] == "unknown"


def test_rule_supporting_never_refutes_nor_checks():
    # a bug in our implementation is not a refutation of the paper, and alone proves nothing
    assert combine(CLAIM, [_e("supporting", "checked")], {})[0] == "unknown"
    assert combine(CLAIM, [_e("supporting", "refuted"), _e("bounded", "checked", bound="B")], {})[0] == "unknown"


def test_a_crashing_check_is_reported_as_unknown(monkeypatch):
    def boom(claim, ctx):
        raise RuntimeError("kaboom")

    monkeypatch.setitem(ledger._METHODS, "enumeration:volume", boom)
    monkeypatch.setitem(ledger._METHODS, "derivation", boom)
    claim = run_claims(["kong.volume"]).claims[0]
    assert claim.status == "unknown"
    assert any("kaboom" in e.message for e in claim.evidence)


@pytest.mark.slow
def test_default_ledger_lists_every_claim_with_a_status():
    result = run_claims()
    assert [c.id for c in result.claims] == list(EXPECTED_IDS)
    for claim in result.claims:
        assert claim.status in ("proved", "checked", "consistent", "refuted", "unknown", "reproduced", "partly",
                                "not_reproduced")
        assert claim.evidence and all(e.status in ledger.EVIDENCE_STATUSES for e in claim.evidence)
    by_id = {c.id: c for c in result.claims}
    assert by_id["kong.thm3.2"].status in ("proved", "checked")
    assert by_id["kong.thm3.4"].status in ("consistent", "checked", "proved")
    assert result.variants["per_variant"]["svf_arrivals"]["failures"]
