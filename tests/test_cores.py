"""The combinatorial cores (geosched.verify.cores): proved by Z3 and cvc5, non-vacuous, tight, and they can fail."""

from __future__ import annotations

import z3

from geosched.verify import cores
from geosched.verify.cores import N_REQUEST, PER_REQUEST, core_lemma, run_cores, twice_work
from geosched.verify.z3util import Lemma, run_checks


def test_every_per_request_lemma_is_proved_by_both_solvers():
    for name, factory in PER_REQUEST.items():
        for backend in ("z3", "cvc5"):
            report = run_checks(factory(), 20_000, backend)
            assert report.status == "proved", (name, backend, report.message)


def test_every_n_request_lemma_small_n_both_solvers():
    for name in N_REQUEST:
        for backend in ("z3", "cvc5"):
            report = run_checks(core_lemma(name, 3), 20_000, backend)
            assert report.status == "proved", (name, backend, report.message)


def test_twice_work_by_hand():
    # s = 2, o = 3, x = 1: held tokens 3, 4, 5 at steps 2, 3, 4, so the work by step C is 0, 3, 7, 12
    s, o, x, c = z3.Ints("s o x c")
    for step, work in ((1, 0), (2, 3), (3, 7), (4, 12), (9, 12)):
        value = z3.simplify(z3.substitute(twice_work(s, o, x, c), (s, z3.IntVal(2)), (o, z3.IntVal(3)),
                                          (x, z3.IntVal(1)), (c, z3.IntVal(step))))
        assert value.as_long() == 2 * work


def test_a_false_core_is_refuted_by_both_solvers():
    # the exchange step with the k+1 smallest instead of the k smallest: false (choose exactly k)
    lemma = core_lemma("prop31_exchange", 3)
    broken = Lemma("broken", "k+1 smallest", lemma.assumptions,
                   z3.substitute(lemma.stronger, []), lemma.stronger, lemma.variables)
    for backend in ("z3", "cvc5"):
        assert run_checks(broken, 10_000, backend).status == "refuted"


def test_sweep_reports_largest_n_per_solver_and_coverage():
    report = run_cores(max_n=3, backends=("z3", "cvc5"), rlimit={"z3": 50_000_000, "cvc5": 2_000_000})
    assert report.status == "checked"
    assert set(report.largest_n) == {"z3", "cvc5"} and all(n >= 2 for n in report.largest_n.values())
    status, n = report.covered("prop31_exchange")
    assert status == "checked" and n == 3
    assert report.covered("lemmaA2_blocked_sum")[0] == "checked"


def test_a_broken_per_request_lemma_makes_its_users_refuted(monkeypatch):
    original = PER_REQUEST["work_increment"]

    def wrong_increment() -> Lemma:
        lemma = original()
        return Lemma(lemma.name, lemma.statement, lemma.assumptions, lemma.stronger, lemma.stronger, lemma.variables)

    monkeypatch.setitem(cores.PER_REQUEST, "work_increment", wrong_increment)
    report = run_cores(max_n=2, backends=("z3",), lemmas=("prop31_work",), rlimit=50_000_000)
    assert report.status == "refuted"
    assert report.covered("prop31_work")[0] == "refuted"
