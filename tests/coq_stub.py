"""A Coq evidence as the ledger's ``coq:THEOREM`` method returns it, for tests of the ledger's rule (``combine``)
that must not compile: a ``proved`` one has matched the row's recorded statement (coq_evidence)."""

from __future__ import annotations

from geosched.verify import coq_evidence
from geosched.verify.evidence import Evidence


def coq_stub(theorem: str, status: str = "proved") -> Evidence:
    return Evidence(f"coq:{theorem}", "coq", status, f"Coq, every n: {theorem} (build cache 0123)",
                    data={"theorem": theorem}, covers={f"coq:{theorem}": (status, coq_evidence.COQ_BOUND)})
