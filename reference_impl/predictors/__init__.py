"""Output-length predictors: what a policy believes ``o_i`` to be.

* :mod:`.simple`: the oracle, noisy and one-bit predictors, and the registry by name;
* :mod:`.distribution`: :class:`LengthDistribution`, a predicted distribution of lengths.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> make_predictor("oracle").predict(burst_instance(10, [(1, 2)])).tolist()
[2]
"""

from geosched.reference_impl.predictors.distribution import LengthDistribution, log_spaced_edges
from geosched.reference_impl.predictors.simple import (
    PREDICTORS,
    NoisyPredictor,
    OneBitPredictor,
    OraclePredictor,
    Predictor,
    make_predictor,
    one_bit_parameters,
    register_predictor,
)

__all__ = [
    "LengthDistribution",
    "log_spaced_edges",
    "Predictor",
    "OraclePredictor",
    "NoisyPredictor",
    "OneBitPredictor",
    "PREDICTORS",
    "make_predictor",
    "register_predictor",
    "one_bit_parameters",
]
