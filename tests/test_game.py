"""Jaillet et al. Thm. 4.1 as a game (geosched.verify.game): values by hand, every schedule re-checked."""

from __future__ import annotations

from fractions import Fraction

import pytest

from geosched.errors import ValidationError
from geosched.verify.game import solve_game


def test_value_for_k2_by_hand():
    # K = 2: M = 12, L = (0, 10, 2), four (2, 1). Starting L at d = 0, the adversary releases at 1:
    # the small ones wait for L (free memory 12 - 11 < 3 at step 2), ALG = 2 + 4 * 2 = 10; OPT runs them
    # at 1 and L at 2 (TEL 4 + 4 = 8): ratio 10/8. Starting L at d = 1 gives the adversary 11/6 (release
    # at 2; OPT = 2 + 4 = 6), waiting longer lets it never release: (d + 2)/2 >= 3/2. So V_2 = 5/4.
    result = solve_game(2)
    assert result.value_fraction == "5/4" and result.best_d == 0 and result.adversary_reply == "release at 1"
    by_d = {row["d"]: Fraction(row["fraction"]) for row in result.per_d}
    assert by_d[0] == Fraction(5, 4) and by_d[1] == Fraction(11, 6)
    assert result.rechecked > 0


def test_value_grows_and_exceeds_k_over_3():
    values = [Fraction(solve_game(k).value_fraction) for k in (2, 3)]
    assert values[1] > values[0] and all(v >= Fraction(k, 3) for v, k in zip(values, (2, 3)))


@pytest.mark.parametrize("bad", [1, 0, 2.5, True])
def test_size_is_validated(bad):
    with pytest.raises(ValidationError):
        solve_game(bad)


def test_every_continuation_is_reexamined_and_matches():
    from geosched.verify.game import brute_continuation, verify_game

    assert verify_game(solve_game(2)) == [] and verify_game(solve_game(3)) == []
    # by hand, K = 2, d = 0, r = 1: L holds 11 of 12 at step 2, so the four small ones run at step 2, two
    # per step... (each needs 3 tokens for one step): exhaustive search gives the DP's value
    assert brute_continuation(2, 0, 1)[0] == 10


def test_an_unsound_lower_bound_or_a_worse_continuation_is_found(monkeypatch):
    from geosched.verify import game

    honest = game._continuation
    monkeypatch.setattr(game, "_continuation", lambda k, d, r: (lambda c: (2 * c[0], c[1]))(honest(k, d, r)))
    problems = game.verify_game(game.solve_game(2))
    assert any("claimed TEL" in p or "exact optimum" in p for p in problems)
    monkeypatch.setattr(game, "_continuation", honest)
    result = game.solve_game(2)
    doubled = [dict(row, fraction=str(2 * Fraction(row["fraction"]))) for row in result.per_d]
    from dataclasses import replace

    assert any("records ratio" in p for p in game.verify_game(replace(result, per_d=doubled)))


def test_the_ledger_refutes_the_game_row_when_the_game_is_wrong(monkeypatch):
    from geosched.verify import game
    from geosched.verify.ledger import run_claims

    honest = game._continuation
    monkeypatch.setattr(game, "_continuation", lambda k, d, r: (lambda c: (c[0] + 1, c[1]))(honest(k, d, r)))
    claim = run_claims(["jaillet.thm4.1"], mode="quick", follow_dependencies=False).claims[0]
    assert claim.status == "refuted" and "game:jaillet4.1" in claim.message


def test_the_audit_says_what_it_rederived():
    from geosched.verify.game import audit_game

    result = solve_game(2)
    full = audit_game(result)
    assert full["problems"] == [] and full["continuations"] == 3 * len(result.per_d)  # r = d+1 .. d+K+1
    assert full["per_d_rechecked"] == len(result.per_d) == full["never_release"]
    partial = audit_game(result, brute_k_max=1)
    assert partial["continuations"] == 0 and partial["per_d_rechecked"] == 0
