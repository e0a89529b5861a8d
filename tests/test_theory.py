"""Tests of geosched.theory: every derivation checks, broken copies do not, rendering, the
registry, the ``prove`` command, and the closed-form families against the simulator.

Expected values here come from hand computation or from an independent method (the
simulator plus the schedule checker, brute-force enumeration, direct numeric summation),
never from the code under test.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from geosched.cli import main
from geosched.errors import UnknownNameError, ValidationError
from geosched.reference_impl.checker import check_schedule
from geosched.reference_impl.model import Instance, Request, burst_instance
from geosched.reference_impl.simulation import simulate
from geosched.theory import (
    CLAIMS,
    DERIVATIONS,
    check_claim,
    claim_ids,
    get_derivation,
    jaillet_thm4_1,
    jaillet_thm4_3,
    kong_lemma_a2,
    kong_sjf_unbounded,
    kong_thm3_2,
    kong_thm3_4,
    kong_thm3_5,
    kong_volume,
    svf_lower_bound,
)
from geosched.theory.derivation import Derivation, Step, manifestly_nonnegative

CLAIM_IDS = claim_ids()  # from the registry (the modules' own rows), never a list kept here


@pytest.fixture(scope="module")
def checks():
    """Each derivation checked once for the whole module (sympy is slow-ish)."""
    return {claim: (factory(), factory().check()) for claim, factory in DERIVATIONS.items()}


# ------------------------------------------------------------------ every derivation


def test_the_registry_finds_every_module_that_declares_a_claim():
    """Read on disk, not through the package walk: every ``CLAIM = Claim(`` or ``CLAIMS =`` in theory/ is
    registered, with its derivation, and is a ledger row that runs it."""
    from pathlib import Path

    from geosched.verify import ledger

    theory = Path(__file__).resolve().parent.parent / "theory"
    declaring = {p.stem for p in theory.glob("*.py") if re.search(r"^CLAIMS? = ", p.read_text(), re.M)}
    assert declaring and declaring == {DERIVATIONS[c].__module__.rsplit(".", 1)[1] for c in CLAIM_IDS}
    assert [c.id for c in CLAIMS] == CLAIM_IDS == list(DERIVATIONS)
    for claim in CLAIMS:
        assert ledger.CLAIMS[claim.id] == claim and "derivation" in claim.methods and not claim.no_derivation
    # in the ledger's order: the theory's rows keep their relative order there
    assert [c for c in ledger.CLAIM_IDS if c in DERIVATIONS] == CLAIM_IDS


@pytest.mark.parametrize("claim", CLAIM_IDS)
def test_derivation_checks(claim, checks):
    derivation, check = checks[claim]
    assert derivation.claim_id == claim == check.claim_id
    assert check.status in ("proved", "proved relative", "unknown")
    for step, result in zip(derivation.steps, check.steps):
        # a mechanical step must check; only steps declared uncheckable may stay open
        expected = {"unchecked": "not_checkable", "assumption": "assumed"}.get(step.method, "checked")
        assert result.status == expected, (claim, result.index, result.message)
    assert check.wall_time >= 0 and len(check.steps) == len(derivation.steps)
    # the status follows from the steps: any open step leaves it unknown; else proved, relative to what it uses
    if any(step.method == "unchecked" for step in derivation.steps):
        assert check.status == "unknown" and "partially checked" in check.message
    elif derivation.depends_on or any(step.method == "assumption" for step in derivation.steps):
        assert check.status == "proved relative" and "proved relative to" in check.message
    else:
        assert check.status == "proved"
    for open_step in check.open_steps:  # an open step says which ledger check covers it, if any
        assert derivation.steps[open_step.index - 1].method == "unchecked"


def test_proved_only_when_every_step_of_the_closure_is_checked():
    """kong.thm3.2's own steps are all checked, but Lemma A.2 and Prop. 3.1 have unchecked steps."""
    check = check_claim("kong.thm3.2")
    assert check.status == "proved relative"
    assert check.relative_to == ("kong.lemmaA.2", "kong.prop3.1")
    labels = [o.label() for o in check.open_steps]
    assert "kong.lemmaA.2 step 5" in labels and "kong.prop3.1 step 1" in labels
    assert "unchecked: kong.lemmaA.2 steps 5, 8, 10" in check.message
    assert check_claim("kong.volume").status == "proved"
    assert check_claim("jaillet.thm4.3").status == "proved relative"


def test_a_refuted_dependency_makes_the_claim_unknown(monkeypatch):
    monkeypatch.setattr(kong_lemma_a2, "FACTOR", 1)  # item 3 becomes p o + o <= v: false at s = 0
    assert check_claim("kong.lemmaA.2").status == "refuted"
    check = check_claim("kong.thm3.2")
    assert check.status == "unknown" and "kong.lemmaA.2, which is refuted" in check.message


def test_the_alpha_half_form_and_the_ratio_of_means_differ():
    from geosched.theory import kong_thm3_4_half

    check = kong_thm3_4_half.derivation().check()
    assert [s.status for s in check.steps[:3]] == ["checked"] * 3
    assert check.steps[3].status == "not_checkable"
    # by hand at mu = rho = 1/2: 1 + 4/(1/4) = 17, Thm. 3.4's bound at alpha = 1/2 (its step 17)
    assert kong_thm3_4_half.derivation().bound_at(mu=sp.Rational(1, 2), rho=sp.Rational(1, 2)) == 17


def test_the_occupancy_counterexample_by_hand():
    from geosched.theory import kong_certificate_reading

    check = kong_certificate_reading.derivation().check()
    assert [s.status for s in check.steps[:5]] == ["checked"] * 5
    # by hand: M = 16, two (0, 8) started at 0 hold 1 + 1 = 2 tokens at t = 1, while (1 - alpha) M = 8
    assert kong_certificate_reading.EXAMPLE == {"memory": 16, "requests": [(0, 8)] * 3, "blocked_step": 1}


@pytest.mark.parametrize("claim", CLAIM_IDS)
def test_docstring_cites_paper_and_numbering(claim):
    module = DERIVATIONS[claim].__module__
    import importlib

    doc = importlib.import_module(module).__doc__
    assert claim in doc and "arXiv" in doc and re.search(r"(Thm|Theorem|Prop|Lemma|Eq|Sec)\.?", doc)


# ------------------------------------------------------------------ broken copies


o = sp.Symbol("o", integer=True, positive=True)
s = sp.Symbol("s", integer=True, nonnegative=True)


def test_broken_volume_formula_is_refuted():
    check = kong_volume.derivation(s * o + (o**2 - o) / 2).check()
    assert check.status == "refuted"
    first = check.steps[0]
    assert first.status == "failed" and first.witness is not None
    # the witness really is a counterexample: sum_{j<=o} (s + j) != s o + (o^2 - o)/2 there
    ov = int(first.witness["o"])
    assert ov * (ov + 1) // 2 != (ov * ov - ov) // 2


def test_broken_ratio_is_refuted():
    alpha = kong_thm3_2.alpha
    assert kong_thm3_2.derivation(1 + 3 / (1 - alpha)).check().status == "refuted"


@pytest.mark.parametrize("build", [
    lambda: kong_lemma_a2.derivation(s * o + 1),  # a wrong certificate for p o + o <= 2 v
    lambda: kong_thm3_4.derivation(kong_thm3_4.Es / kong_thm3_4.mu + 2 / kong_thm3_4.mu**2),
    lambda: kong_thm3_5.derivation((kong_thm3_5.theta * kong_thm3_5.q**kong_thm3_5.theta
                                    / (1 - kong_thm3_5.q**kong_thm3_5.theta)) ** 2),
    lambda: kong_sjf_unbounded.derivation(kong_sjf_unbounded.tel_sjf_expr() + 1),
    lambda: jaillet_thm4_1.derivation(jaillet_thm4_1.K**3),
    lambda: jaillet_thm4_3.derivation(4),
    lambda: svf_lower_bound.derivation(svf_lower_bound.tel_svf_expr() + 1),
], ids=["lemmaA.2", "thm3.4", "thm3.5", "sjf_unbounded", "jaillet4.1", "jaillet4.3", "svf_lower_bound"])
def test_broken_copies_are_not_proved(build):
    check = build().check()
    assert check.status in ("refuted", "unknown")
    assert any(r.status in ("failed", "inconclusive") for r in check.steps)


# ------------------------------------------------------------------ step machinery


x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", nonnegative=True)


def test_step_kinds():
    assert Step.identity("ok", (x + 1) ** 2, x**2 + 2 * x + 1, "").check().status == "checked"
    bad = Step.identity("bad", (x + 1) ** 2, x**2 + 1, "").check()
    assert bad.status == "failed" and bad.witness
    assert Step.inequality("amgm", x**2 + 1, ">=", 2 * x, "", certificate=[(x - 1) ** 2]).check().status == "checked"
    assert Step.inequality("auto", x + y, ">", 0, "").check().status == "checked"
    assert Step.inequality("false", y, ">=", y + 1, "").check().status == "failed"
    # a wrong certificate for a true inequality: not proved, not refuted
    assert Step.inequality("wrongcert", x + 1, ">", x, "", certificate=[2]).check().status == "inconclusive"
    assert Step.substitution("pt", x**2, 9, {x: 3}, "").check().status == "checked"
    assert Step.substitution("pt", x**2, 8, {x: 3}, "").check().status == "failed"
    assert Step.limit("lim", 1 / x, x, sp.oo, 0, "").check().status == "checked"
    assert Step.limit("lim", 1 / x, x, sp.oo, 1, "").check().status == "failed"
    assert Step.unchecked("u", "why", "reason").check().status == "not_checkable"


def test_premises_are_used_only_as_stated():
    step = Step.inequality("p", x, ">=", y, "", certificate=[x - y], premises=[x - y])
    assert step.check().status == "checked"
    assert Step.inequality("p", x, ">=", y, "", certificate=[x - y]).check().status == "inconclusive"


def test_manifest_nonnegativity():
    assert manifestly_nonnegative(x * y / (x + 1) + (y - 3) ** 2)
    assert not manifestly_nonnegative(y - 1)
    assert not manifestly_nonnegative(-x * y)


def test_step_errors_are_reported_not_raised():
    step = Step.limit("bad limit", x, "not-a-symbol", 0, 0, "")
    result = step.check()
    assert result.status in ("error", "failed", "inconclusive")
    assert Derivation("t", "p", "n", "c", steps=[step]).check().status != "proved"


def test_empty_derivation_is_not_proved():
    assert Derivation("t", "p", "n", "c").check().status == "unknown"


# ------------------------------------------------------------------ rendering


@pytest.mark.parametrize("claim", CLAIM_IDS)
def test_rendering(claim, checks):
    derivation, check = checks[claim]
    text = derivation.render_text(check)
    assert claim in text and f"Status: {check.status}" in text
    for step in derivation.steps:
        assert step.statement in text
    latex = derivation.render_latex(check)
    assert latex.count(r"\begin{enumerate}") == latex.count(r"\end{enumerate}") == 1
    assert latex.count(r"\item") == len(derivation.steps)
    unescaped = re.sub(r"\\[{}]", "", latex)
    assert unescaped.count("{") == unescaped.count("}")
    data = json.loads(json.dumps(derivation.to_dict(check)))
    assert data["status"] == check.status and len(data["steps"]) == len(derivation.steps)


def test_latex_uses_sympy_printer():
    # displayed formulas are printed by sympy.latex
    step = get_derivation("kong.thm3.2").steps[0]
    assert r"\frac{2}{1 - \alpha}" in step.formula_latex()


# ------------------------------------------------------------------ registry and CLI


def test_unknown_claim_lists_known_ids():
    with pytest.raises(UnknownNameError) as info:
        get_derivation("kong.thm9")
    message = str(info.value)
    assert "kong.thm9" in message and all(claim in message for claim in CLAIM_IDS)


def test_cli_prove_text(capsys):
    assert main(["prove", "kong.volume"]) == 0
    out = capsys.readouterr().out
    assert "Step 1 [identity: checked]" in out
    assert re.search(r"^Status: proved\b.*, as geosched claims .* says\.$", out, re.M)  # one sentence
    assert main(["prove", "kong.thm3.2"]) == 0
    out = capsys.readouterr().out
    assert "Derivation: proved relative (" in out and "unchecked: kong.lemmaA.2 steps 5, 8, 10" in out
    # the Status line is the ledger's word for the row (the same function decides both, issue 24)
    from geosched.verify.ledger import run_claims

    assert re.search(rf"^Status: {run_claims(['kong.thm3.2'], mode='quick').claims[0].status}\b", out, re.M)


def test_cli_prove_says_its_mode_and_the_dependencies_own_words(capsys):
    """Issue 34, item 6: ``prove svf.fluid.k2`` used to list "kong.prop3.1 (not proved)" (sympy's view of its
    derivation) while the ledger said proved, and showed quick's n<=3 without saying it was quick's."""
    from geosched.verify.ledger import run_claims

    assert main(["prove", "svf.fluid.k2"]) == 0
    out = capsys.readouterr().out
    words = {c.id: c for c in run_claims(["svf.fluid.k2", "kong.prop3.1"], mode="quick").claims}
    assert "Marked by the ledger run in mode quick (bounds here are --quick's" in out
    status, message = words["kong.prop3.1"].status, words["kong.prop3.1"].message
    # each word once (issue 44): a message that already begins with the word is printed alone
    said = message if message.startswith(status) else f"{status} ({message})"
    assert f"kong.prop3.1: {said}" in out and f"{status} ({status}" not in out
    assert "(not proved)" not in out and "not proved by sympy alone" in out
    status = out.rstrip().splitlines()[-1]
    assert status.startswith(f"Status: {words['svf.fluid.k2'].status}") and status.endswith(
        ", as geosched claims --quick --claim svf.fluid.k2 says.")
    assert ". " not in status and ";" not in status  # one sentence


def test_cli_prove_latex_and_json(capsys):
    assert main(["prove", "jaillet.thm4.3", "--latex"]) == 0
    assert r"\begin{enumerate}" in capsys.readouterr().out
    assert main(["prove", "kong.prop3.1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["claim_id"] == "kong.prop3.1" and data["derivation_status"] == "unknown"
    from geosched.verify.ledger import run_claims

    assert data["status"] == run_claims(["kong.prop3.1"], mode="quick").claims[0].status
    assert data["ledger_mode"] == "quick"
    assert [step["check"]["status"] for step in data["steps"]][:3] == ["not_checkable"] * 3


def test_cli_unknown_claim(capsys):
    assert main(["prove", "no.such.claim"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown claim 'no.such.claim'" in err and "kong.thm3.2" in err


# ------------------------------------------------------------------ families vs the simulator


def _tel(instance: Instance, starts: dict[str, int]) -> int:
    report = check_schedule(instance, starts)
    assert report.feasible, report.first_violation
    return report.metrics.tel


@pytest.mark.parametrize("m", [2, 3, 4, 5, 7])
def test_sjf_family_matches_simulator(m):
    instance = kong_sjf_unbounded.sjf_family(m)
    assert instance.memory == 2 * m * m and instance.n == m + m * m and instance.alpha < 1
    closed = kong_sjf_unbounded.closed_form_tels(m)
    # hand-derived values for m = 3 (see the module docstring): 3*4/2 + 27 + 9 + 1 and 18 + 6 + 6
    if m == 3:
        assert closed == {"sjf": 43, "svf": 30}
    for policy in ("sjf", "svf"):
        assert _tel(instance, simulate(instance, policy).starts) == closed[policy]


def test_sjf_ratio_grows():
    ratios = [kong_sjf_unbounded.closed_form_tels(m)["sjf"] / kong_sjf_unbounded.closed_form_tels(m)["svf"]
              for m in range(2, 12)]
    assert all(b > a for a, b in zip(ratios, ratios[1:]))
    assert all(r >= m / 3 for r, m in zip(ratios, range(2, 12)))


@pytest.mark.parametrize("K", [2, 3, 4, 5])
def test_adversarial_family_matches_simulator(K):
    instance = jaillet_thm4_1.adversarial_family(K)
    assert instance.n == K * K + 1
    closed = jaillet_thm4_1.closed_form_tels(K)
    assert closed["greedy"] == K**3 + K and closed["witness"] == K * K + K + 2  # by hand
    for policy in ("fcfs", "sjf", "svf", "svf1"):
        assert _tel(instance, simulate(instance, policy).starts) == closed["greedy"]
    assert _tel(instance, jaillet_thm4_1.witness_starts(K)) == closed["witness"]


def test_adversarial_ratio_grows_like_sqrt_n():
    for K in range(2, 10):
        closed = jaillet_thm4_1.closed_form_tels(K)
        ratio = closed["greedy"] / closed["witness"]
        assert ratio >= K - 1 >= math.sqrt(K * K) - 1


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, True])
def test_family_sizes_are_validated(bad):
    with pytest.raises(ValidationError):
        kong_sjf_unbounded.sjf_family(bad)
    with pytest.raises(ValidationError):
        jaillet_thm4_1.adversarial_family(bad)


@given(prompt=st.integers(0, 6), outputs=st.lists(st.integers(1, 8), min_size=1, max_size=8),
       extra=st.integers(0, 10))
def test_mcsf_equals_svf_under_equal_prompts(prompt, outputs, extra):
    """jaillet.thm4.3 step 1-2: with equal prompts, sjf and svf schedules coincide."""
    memory = 2 * (prompt + max(outputs)) + extra
    instance = burst_instance(memory, [(prompt, out) for out in outputs])
    assert simulate(instance, "sjf").starts == simulate(instance, "svf").starts


# ------------------------------------------------------------------ independent numeric checks


def test_prefix_identity_brute_force():
    """kong.prop3.1's identity on explicit integer lists (pure Python, no sympy)."""
    for values in itertools.product(range(4), repeat=4):
        ordered = sorted(values)
        prefix = sum(sum(ordered[:k]) for k in range(1, len(ordered) + 1))
        pairs = sum(min(a, b) for a, b in itertools.combinations(values, 2))
        assert prefix == sum(values) + pairs


def test_reversed_prefix_counterexample_by_simulation():
    instance = Instance(2, [Request("a", 0, 0, 1), Request("b", 0, 0, 2)])
    tel = _tel(instance, {"a": 0, "b": 0})
    volumes = sorted((r.volume for r in instance.requests), reverse=True)
    assert instance.memory * tel < sum(sum(volumes[:k]) for k in (1, 2))


@pytest.mark.parametrize("mu,theta", [(0.3, 4), (0.05, 20), (0.7, 1)])
def test_geometric_class_means_numerically(mu, theta):
    q = 1 - mu
    pmf = [mu * q ** (k - 1) for k in range(1, 4000)]
    short = sum(k * p for k, p in enumerate(pmf[:theta], start=1)) / sum(pmf[:theta])
    long_ = sum(k * p for k, p in enumerate(pmf[theta:], start=theta + 1)) / sum(pmf[theta:])
    o0 = float(kong_thm3_5.o0().subs({kong_thm3_5.mu: mu, kong_thm3_5.q: q, kong_thm3_5.theta: theta}))
    o1 = float(kong_thm3_5.o1().subs({kong_thm3_5.mu: mu, kong_thm3_5.theta: theta}))
    assert short == pytest.approx(o0, rel=1e-9) and long_ == pytest.approx(o1, rel=1e-9)
    ev = sum((2 * k + (k * k + k) / 2) * p for k, p in enumerate(pmf, start=1))  # s = 2
    assert ev == pytest.approx(float(kong_thm3_4.expected_volume().subs({kong_thm3_4.Es: 2, kong_thm3_4.mu: mu})),
                               rel=1e-9)
