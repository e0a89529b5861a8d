"""Output-length predictors: what a policy believes ``o_i`` to be.

* :mod:`.simple`: the oracle, noisy and one-bit predictors, and the registry by name;
* :mod:`.distribution`: :class:`LengthDistribution`, a predicted distribution of lengths;
* :mod:`.features`: features with no look-ahead (prompt, time, history of finished requests);
* :mod:`.baselines`: global median and per-prompt-bucket empirical distribution (no torch);
* :mod:`.learned`, :mod:`.training`, :mod:`.artifact`, :mod:`.learned_predictor`: the torch
  models (point, 1-bit, distribution; extra ``geosched[predict]``), their training and
  evaluation, model files, and the ``learned`` registry predictor;
* :mod:`.metrics`: accuracy metrics; :mod:`.background`: off-critical-path batched
  predictions for the vLLM plugin; :mod:`.tracelog`: the trace as a request log.

Importing this package does not import torch.

Example
-------
>>> from geosched.reference_impl.model import burst_instance
>>> make_predictor("oracle").predict(burst_instance(10, [(1, 2)])).tolist()
[2]
"""

from geosched.reference_impl.predictors.artifact import (
    ModelFileError,
    default_model_path,
    load_default_model,
    load_model,
    save_model,
)
from geosched.reference_impl.predictors.baselines import BucketEmpirical, GlobalMedian
from geosched.reference_impl.predictors.distribution import LengthDistribution, log_spaced_edges
from geosched.reference_impl.predictors.features import DEFAULT_FEATURES, FEATURES, RequestLog, feature_matrix
from geosched.reference_impl.predictors.learned import KINDS, LengthModel, MissingExtraError
from geosched.reference_impl.predictors.learned_predictor import LearnedPredictor
from geosched.reference_impl.predictors.metrics import AccuracyRow, PredictionSet, evaluate_predictions
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
from geosched.reference_impl.predictors.training import TrainingConfig, accuracy_table, train_model

__all__ = [
    "LengthDistribution",
    "log_spaced_edges",
    "Predictor",
    "OraclePredictor",
    "NoisyPredictor",
    "OneBitPredictor",
    "LearnedPredictor",
    "PREDICTORS",
    "make_predictor",
    "register_predictor",
    "one_bit_parameters",
    "RequestLog",
    "FEATURES",
    "DEFAULT_FEATURES",
    "feature_matrix",
    "GlobalMedian",
    "BucketEmpirical",
    "KINDS",
    "LengthModel",
    "MissingExtraError",
    "ModelFileError",
    "load_model",
    "save_model",
    "load_default_model",
    "default_model_path",
    "TrainingConfig",
    "train_model",
    "accuracy_table",
    "AccuracyRow",
    "PredictionSet",
    "evaluate_predictions",
]
