"""Coq pinned to the claim (issue 46, item 4): the reviewed file verify/coq/statements.txt, what each kind of planted
defect does to the words, the Coq methods' canary, and the file's hash in the ledger's output.

The audit's misses, each planted here: a whole-claim theorem swapped together with its own true statement, a
statement changed together with the row's copy (now: its pinned copy), a changed definition that keeps every
printed statement identical, an ``Admitted`` (all proved rows ``unknown`` before; now exactly the citing rows are
refuted, by name). No test needs coqc: the builds are what coqc printed, with one defect planted.
"""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from coq_stub import pinned_build

from geosched.verify import coq_engine, coq_evidence, coq_output, coq_pinned
from geosched.verify.evidence import Context, canary_declaration
from geosched.verify.ledger import CLAIMS, METHODS, ROWS, combine, versions

PINNED = coq_pinned.read()


def _coq(claim, build, monkeypatch) -> tuple[str, str, dict]:
    """The word of ``claim`` from its Coq evidence alone, on ``build``."""
    monkeypatch.setattr(coq_engine, "build", lambda *args, **kwargs: build)
    ctx = Context("quick", None, 0, ())
    evidence = [METHODS[m](claim, ctx) for m in claim.methods if m.startswith("coq:")]
    status, text, _, _ = combine(claim, evidence, {})
    return status, text, {e.method: e for e in evidence}


def _reaches(claim, definition: str) -> bool:
    return any(definition in coq_pinned.reach(PINNED.theorems[t], PINNED.definitions)
               for t in coq_evidence.cited_theorems(claim) if t in PINNED.theorems)


# ------------------------------------------------------------------ the file


def test_the_file_parses_back_to_what_was_rendered_and_refuses_what_it_cannot_read():
    text = coq_pinned.render({"t": ("M", "forall n : nat, M.f n = n " + "x " * 80)}, {"M.f": "M.f = fun n => n"})
    parsed = coq_pinned.parse(text)
    assert parsed.theorems["t"] == "forall n : nat, M.f n = n " + " ".join(["x"] * 80)  # wrapped, read back whole
    assert parsed.modules == {"t": "M"} and parsed.definitions == {"M.f": "M.f = fun n => n"}
    assert max(len(line) for line in text.splitlines()) <= 120
    with pytest.raises(ValueError, match="line 2 .*is not 'theorem Module.name'"):
        coq_pinned.parse("# header\nlemma M.t\n    True\n")
    with pytest.raises(ValueError, match="theorem M.t is written twice"):
        coq_pinned.parse("theorem M.t\n    True\n\ntheorem M.t\n    False\n")


def test_the_file_pins_every_theorem_and_exactly_the_definitions_they_reach():
    """Every Theorem/Corollary of the sources, in its module; every definition the statements reach, transitively,
    and nothing else (a stale entry would be reviewed for nothing); each a definition of the sources."""
    assert {n: m for n, m in coq_engine.THEOREMS.items() if n in PINNED.modules} == PINNED.modules
    stale = set(PINNED.theorems) - set(coq_engine.THEOREMS)
    assert stale == set(), f"pinned but not in the sources: {stale}"
    reached = set().union(*(coq_pinned.reach(s, PINNED.definitions) for s in PINNED.theorems.values()))
    assert reached == set(PINNED.definitions)
    assert set(PINNED.definitions) <= set(coq_output.declared_definitions(coq_engine.COQ_DIR))
    for name in ("Model.feasible", "Model.tel", "Model.peak", "Svf.svf", "Model.usage", "Model.req_usage"):
        assert name in PINNED.definitions, name  # the model's definitions the issue names are pinned
    assert PINNED.sha256 == hashlib.sha256(coq_pinned.PINNED_FILE.read_bytes()).hexdigest()


def test_the_development_has_nothing_the_closure_does_not_follow():
    """The closure follows definitions by their qualified names: a development Coercion (printed invisibly), an
    Inductive or a Record (its constructors are named apart from it) would carry meaning the pinned texts do not
    reach. None exists; adding one needs coq_output's closure extended first (this test says so). Notations are no
    such case: the statements script Requires the modules without importing them, so coqc prints no notation of the
    development (Chebyshev.v's local ``x + y`` prints as ``add x y``)."""
    import re

    found = []
    for path in sorted(coq_engine.COQ_DIR.glob("*.v")):
        text = coq_output.strip_comments(path.read_text(encoding="utf-8"))
        found += [f"{path.name}: {m}" for m in re.findall(
            r"^\s*(?:Local\s+|Global\s+)?(Coercion|Inductive|CoInductive|Record|Structure|Variant|Class)\b",
            text, flags=re.M)]
    assert found == []
    assert "le zero (add x y)" in PINNED.theorems["chebyshev_dominated"]  # the local notation is not printed


def test_not_yet_pinned_theorems_are_only_new_ones():
    """A theorem added after the last --pin is reported, never silently proved: every cited theorem is pinned, or
    its rows say 'not pinned' (tests/test_coq_pinned.py::test_a_theorem_not_pinned_is_unknown)."""
    new = sorted(set(coq_engine.THEOREMS) - set(PINNED.theorems))
    if new:
        import warnings

        warnings.warn(f"Coq theorems not pinned yet ({', '.join(new)}): python -m geosched.verify.coq_engine --pin",
                      stacklevel=1)


# ------------------------------------------------------------------ the verdict predicate


def test_the_predicate_names_the_statement_the_definition_and_the_axiom():
    printed = coq_pinned.Printed(PINNED.theorems, PINNED.definitions,
                                 {name: coq_output.CLOSED for name in PINNED.theorems})
    assert coq_pinned.problems("thm32_svf_competitive", printed, PINNED) == []
    changed = dataclasses.replace(printed, definitions={**PINNED.definitions,
                                                        "Model.peak": PINNED.definitions["Model.peak"] + " + 1"})
    assert [p.split(",")[0] for p in coq_pinned.problems("thm32_svf_competitive", changed, PINNED)] == [
        "the definition Model.peak"]
    assert coq_pinned.problems("tel_finish_times", changed, PINNED) == []  # tel does not use peak
    opened = dataclasses.replace(printed, assumptions={"tel_finish_times": "Axioms:\nModel.x\n  : False"})
    assert coq_pinned.problems("tel_finish_times", opened, PINNED) == [
        "tel_finish_times is not closed under the global context: rests on Model.x (an Admitted or an Axiom)"]


# ------------------------------------------------------------------ the planted defects, by kind


def test_a_changed_definition_refutes_exactly_the_rows_whose_theorems_use_it(monkeypatch):
    """The audit's third kind: ``Model.peak`` changed keeps every printed statement identical; now the rows whose
    cited theorems reach it are refuted, naming the definition, and the others keep their word."""
    build = pinned_build(definitions={"Model.peak": PINNED.definitions["Model.peak"].replace("+", "*", 1)})
    assert all(build.statements[t] == PINNED.theorems[t] for t in PINNED.theorems)  # no statement moved
    rows = [c for c in ROWS if coq_evidence.cited_theorems(c)]
    users = [c for c in rows if _reaches(c, "Model.peak")]
    assert users and len(users) < len(rows)
    for claim in rows:
        status, text, evidence = _coq(claim, build, monkeypatch)
        if claim in users:
            refuted = [e for e in evidence.values() if e.status == "refuted"]
            assert status == "refuted" and refuted, claim.id
            assert all("the definition Model.peak" in e.message for e in refuted), claim.id
        else:
            assert status != "refuted" and all(e.status != "refuted" for e in evidence.values()), claim.id


def test_an_admitted_lemma_refutes_exactly_the_rows_citing_a_theorem_resting_on_it(monkeypatch):
    """Before: an Admitted stopped the build and every proved row became unknown ("build failed"). Now the theorem
    whose Print Assumptions lists the axiom refutes the rows citing it, by name; the other rows stay proved."""
    build = pinned_build(assumptions={"svf_sim_eq": "Axioms:\nSim.sim_step_admitted : False"})
    citing = {c.id for c in ROWS if "svf_sim_eq" in coq_evidence.cited_theorems(c)}
    assert {"kong.thm3.2", "svf.sharp_bound"} <= citing
    for claim_id in ("kong.thm3.2", "svf.sharp_bound", "kong.volume", "kong.prop3.1"):
        status, text, evidence = _coq(CLAIMS[claim_id], build, monkeypatch)
        if claim_id in citing:
            assert status == "refuted" and text.startswith("refuted by implementation check coq:svf_sim_eq")
            assert "rests on Sim.sim_step_admitted" in evidence["coq:svf_sim_eq"].message
        else:
            assert status == "proved" and "Coq, every n" in text, claim_id


def test_a_file_that_does_not_compile_costs_only_its_theorems(monkeypatch):
    """A broken proof in one file: its theorems (and those of the files that need it) are unknown, naming the file;
    every other row keeps its word (the build goes on with what still builds)."""
    missing = {n for n, m in coq_engine.THEOREMS.items() if m == "SjfFamily"}
    build = pinned_build(status="partial", failed_files={"SjfFamily": "File \"./SjfFamily.v\", line 9: Error: x"},
                         statements={n: s for n, s in PINNED.theorems.items() if n not in missing})
    status, _, evidence = _coq(CLAIMS["kong.sjf_unbounded"], build, monkeypatch)
    assert status != "proved"
    assert evidence["coq:sjf_not_competitive"].message.startswith("Coq: SjfFamily.v did not compile (File")
    assert _coq(CLAIMS["kong.thm3.2"], build, monkeypatch)[0] == "proved"


def test_a_theorem_not_pinned_is_unknown_with_the_command_that_pins_it(monkeypatch):
    monkeypatch.setattr(coq_evidence, "pinned", lambda: dataclasses.replace(
        PINNED, theorems={n: s for n, s in PINNED.theorems.items() if n != "volume_is_memory_time"}))
    status, text, evidence = _coq(CLAIMS["kong.volume"], pinned_build(), monkeypatch)
    coq = evidence["coq:volume_is_memory_time"]
    assert coq.status == "unknown" and "not pinned" in coq.message and "--pin" in coq.message
    assert status != "refuted" and "Coq, every n" not in text


def test_a_statement_changed_together_with_its_pinned_copy_is_refuted_by_the_rows_constant(monkeypatch):
    """The audit's second kind: Thm. 3.2's 3M made 4M in the proof AND in the reviewed copy. The comparison agrees;
    the row's own constant (its derivation's 1 + 2/(1 - alpha)) does not."""
    weaker = PINNED.theorems["thm32_svf_competitive"].replace("(3 * M - P)", "(4 * M - P)")
    monkeypatch.setattr(coq_evidence, "pinned", lambda: dataclasses.replace(
        PINNED, theorems={**PINNED.theorems, "thm32_svf_competitive": weaker}))
    status, text, evidence = _coq(CLAIMS["kong.thm3.2"], pinned_build({"thm32_svf_competitive": weaker}), monkeypatch)
    coq = evidence["coq:thm32_svf_competitive"]
    assert coq.status == "refuted" and "the row's bound is 1 + 2/(1 - alpha)" in coq.message, coq.message
    assert status == "refuted"


@pytest.mark.parametrize("claim_id, swap", [("kong.thm3.2", "svf_sharp_bound"), ("kong.thm3.2", "thm33_onebit_T"),
                                            ("svf.sharp_bound", "thm32_svf_competitive"),
                                            ("svf.constant_two", "svf_sharp_bound"),
                                            ("kong.sjf_unbounded", "svf_family_tel")])
def test_a_whole_claim_theorem_swapped_for_another_true_one_is_refuted(claim_id, swap, monkeypatch):
    """The audit's first kind: the row's whole-claim theorem replaced by another closed, pinned theorem (its true
    statement comes with it). The row's constant, read from the swapped statement, does not match."""
    row = CLAIMS[claim_id]
    old = row.coq_constant[0]
    swapped = dataclasses.replace(
        row, coq_whole=tuple(swap if n == old else n for n in row.coq_whole),
        coq=tuple(n for n in row.coq if n != swap), coq_constant=(swap, *row.coq_constant[1:]),
        methods=tuple(m for m in row.methods if m not in (f"coq:{old}", f"coq:{swap}")) + (f"coq:{swap}",))
    assert _coq(row, pinned_build(), monkeypatch)[0] == "proved"
    status, text, evidence = _coq(swapped, pinned_build(), monkeypatch)
    assert status == "refuted" and f"coq:{swap}" in text, (status, text)
    assert evidence[f"coq:{swap}"].data["problems"], evidence[f"coq:{swap}"].message


def test_every_row_whose_whole_claim_reads_as_its_bound_declares_the_form():
    """A row whose derivation has a bound and cites a whole-claim theorem that reads as a bound on TEL(ALG)/TEL(S)
    must declare ``coq_constant`` (otherwise a swap of that theorem would go unseen)."""
    from geosched.theory.registry import DERIVATIONS

    undeclared = []
    for claim in ROWS:
        derivation = DERIVATIONS.get(claim.id)
        if derivation is None or derivation().bound is None:
            continue
        ratios = [t for t in claim.coq_whole if t in PINNED.theorems and coq_evidence.read_ratio(PINNED.theorems[t])]
        if ratios and not (claim.coq_constant and claim.coq_constant[0] in ratios):
            undeclared.append(claim.id)
    assert undeclared == []


def test_a_truncated_subtraction_is_read_as_coq_computes_it():
    """svf_upper_bound's right side is (6 M + (M - 3 P)): nat subtraction, 0 for P >= M/3. Read so, it states the
    row's bound max(2/(1 - alpha), (7 - 3 alpha)/(3(1 - alpha))) piece by piece; the same statement with a real
    subtraction (7 M - 3 P) states only the first piece, and must be refuted on the second."""
    from geosched.theory.registry import DERIVATIONS

    statement = PINNED.theorems["svf_upper_bound"]
    assert "(6 * M + (M - 3 * P))" in statement
    bound = DERIVATIONS["svf.upper_bound"]().bound
    assert coq_evidence.constant_problems(statement, bound, "ratio", ("P = alpha * M",)) == []
    untruncated = statement.replace("(6 * M + (M - 3 * P))", "(7 * M - 3 * P)")
    problems = coq_evidence.constant_problems(untruncated, bound, "ratio", ("P = alpha * M",))
    assert len(problems) == 1 and "Ropen(1/3, 1)" in problems[0], problems


# ------------------------------------------------------------------ the canary


def test_every_coq_method_declares_its_canary():
    assert all(canary_declaration(method) == ("canary", coq_evidence.CANARY)
               for method in coq_evidence.COQ_METHODS.values())


def test_the_canary_is_refuted_by_the_same_predicate_in_the_same_run(monkeypatch):
    status, _, evidence = _coq(CLAIMS["kong.thm3.2"], pinned_build(), monkeypatch)
    canary = evidence["coq:thm32_svf_competitive"].canary
    assert status == "proved" and canary.refuted
    assert canary.defect.startswith("thm32_svf_competitive's constant ") and "definition" in canary.defect
    assert "ratio constant changed in the statement and its pinned copy" in canary.defect


def test_a_comparison_that_cannot_fail_makes_the_coq_rows_vacuous(monkeypatch):
    """Mutation: the comparison with the pinned file switched off (printed compared with itself). The canary sees it:
    every Coq evidence is vacuous and the rows fall, in the same run."""
    real = coq_pinned.problems
    monkeypatch.setattr(coq_pinned, "problems", lambda name, printed, pinned: real(
        name, printed, dataclasses.replace(pinned, theorems=dict(printed.statements),
                                           definitions=dict(printed.definitions))))
    status, text, evidence = _coq(CLAIMS["kong.volume"], pinned_build(), monkeypatch)
    assert evidence["coq:volume_is_memory_time"].status == "vacuous"
    assert status == "vacuous" and "could not have failed" in text


def test_a_constant_reader_that_cannot_fail_makes_the_row_vacuous(monkeypatch):
    monkeypatch.setitem(coq_evidence.FORMS, "ratio", (lambda *args: [], coq_evidence.FORMS["ratio"][1]))
    status, _, evidence = _coq(CLAIMS["kong.thm3.2"], pinned_build(), monkeypatch)
    assert evidence["coq:thm32_svf_competitive"].status == "vacuous" and status == "vacuous"
    assert _coq(CLAIMS["kong.volume"], pinned_build(), monkeypatch)[0] == "proved"  # no constant: unaffected


# ------------------------------------------------------------------ the hash in the output


def test_the_files_hash_is_in_the_ledgers_output(monkeypatch):
    assert versions()["coq_statements"] == PINNED.sha256 and len(PINNED.sha256) == 64
    _, _, evidence = _coq(CLAIMS["kong.volume"], pinned_build(), monkeypatch)
    coq = evidence["coq:volume_is_memory_time"]
    assert coq.data["pinned"] == PINNED.sha256 and f"statements pinned {PINNED.sha256[:12]}" in coq.message
