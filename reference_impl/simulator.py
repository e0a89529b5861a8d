"""Deprecated: the names :mod:`geosched.verify` still imports from here, re-exported.

The simulator was split into the layered core (issue 31): the forward-looking check is
:mod:`geosched.reference_impl.admission`, the engines :mod:`geosched.reference_impl.engine`, and
:func:`~geosched.reference_impl.simulation.simulate` :mod:`geosched.reference_impl.simulation`.
Import from those; this module goes once ``geosched.verify`` does (it is edited on another branch).
"""

from __future__ import annotations

from geosched.reference_impl.admission import admission_step
from geosched.reference_impl.engine import BlockedInterval
from geosched.reference_impl.simulation import SimulationResult, simulate

__all__ = ["simulate", "SimulationResult", "BlockedInterval", "admission_step"]
