"""The mutation campaign (geosched.verify.mutations): one-line mutations must change the ledger's verdict.

The campaign runs in a copy of the tree (never the live one). At least 30 mutations across
theory/, verify/ and reference_impl/, at least 95% caught (refuted, or unknown naming the failed
supporting check), and every survivor named in docs/claims.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from geosched.verify.mutations import MUTATIONS, _check_fragments, run_campaign

ROOT = Path(__file__).resolve().parent.parent


def test_the_campaign_has_enough_mutations_everywhere():
    assert len(MUTATIONS) >= 30
    folders = {m.path.split("/")[0] for m in MUTATIONS}
    assert {"theory", "verify", "reference_impl"} <= folders
    assert len({m.id for m in MUTATIONS}) == len(MUTATIONS)
    _check_fragments(ROOT, MUTATIONS)  # every fragment occurs exactly once in the live tree


def test_a_mutation_is_applied_to_a_copy_and_caught():
    live = (ROOT / "theory" / "kong_volume.py").read_text()
    (outcome,) = run_campaign(ROOT, tuple(m for m in MUTATIONS if m.id == "theory-volume"), workers=1)
    assert (ROOT / "theory" / "kong_volume.py").read_text() == live  # the live tree is untouched
    assert outcome.baseline == "proved" and outcome.status == "refuted" and outcome.caught


@pytest.mark.slow
def test_the_campaign_catches_at_least_95_percent():
    outcomes = run_campaign(ROOT, MUTATIONS, workers=2)
    caught = [o for o in outcomes if o.caught]
    assert len(caught) >= 0.95 * len(outcomes), [(o.id, o.status, o.message) for o in outcomes if not o.caught]
    claims_doc = (ROOT / "docs" / "claims.md").read_text()
    for survivor in (o for o in outcomes if not o.caught):
        assert f"`{survivor.id}`" in claims_doc, f"survivor {survivor.id} is not explained in docs/claims.md"
