"""geosched's pytest plugin: fixtures for testing your own scheduler (entry point ``pytest11``).

Installed with geosched, pytest loads it by itself (``pytest -p no:geosched`` turns it off). It adds
no hook that changes a test run, only these fixtures and one option:

* ``check_scheduler``: :func:`geosched.testing.check_scheduler` with the number of examples of
  ``--geosched-examples N`` (default 100): ``check_scheduler(MyScheduler)`` runs your scheduler class
  through the step engine on generated instances and fails the test with the rule broken and the
  smallest instance that breaks it;
* ``paper_instance``: the papers' example ``{(6, 3), (1, 5)}``, ``M = 12`` (SVF's TEL 13, OPT's 9);
* ``sample_instances``: a fixed corpus of 40 small instances (:func:`geosched.testing.sample_instances`).

Example (a test file of yours; docs/schedulers.md runs one)::

    from my_sched import MyScheduler

    def test_my_scheduler_keeps_every_rule(check_scheduler):
        check_scheduler(MyScheduler)

Nothing heavy is imported until a fixture is used.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

__all__ = ["pytest_addoption", "check_scheduler", "paper_instance", "sample_instances"]

DEFAULT_EXAMPLES = 100


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("geosched", "geosched: testing your own scheduler")
    group.addoption("--geosched-examples", type=int, default=DEFAULT_EXAMPLES, metavar="N",
                    help=f"instances the check_scheduler fixture runs (default {DEFAULT_EXAMPLES})")


@pytest.fixture
def check_scheduler(request: pytest.FixtureRequest) -> Any:
    """:func:`geosched.testing.check_scheduler`, its ``examples`` from ``--geosched-examples``."""
    from geosched.testing import check_scheduler as check

    return functools.partial(check, examples=request.config.getoption("geosched_examples"))


@pytest.fixture
def paper_instance() -> Any:
    """The papers' example: ``M = 12``, ``r0 = (6, 3)``, ``r1 = (1, 5)`` at step 0."""
    from geosched.reference_impl.model import Instance, Request

    return Instance(12, [Request("r0", 0, 6, 3), Request("r1", 0, 1, 5)])


@pytest.fixture(scope="session")
def sample_instances() -> Any:
    """40 small instances, bursts and arrivals, the same in every run."""
    from geosched.testing import sample_instances as corpus

    return corpus()
