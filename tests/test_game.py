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
