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

from geosched._lazy import exported_names
from geosched.reference_impl.predictors.artifact import ModelFileError as ModelFileError
from geosched.reference_impl.predictors.artifact import default_model_path as default_model_path
from geosched.reference_impl.predictors.artifact import load_default_model as load_default_model
from geosched.reference_impl.predictors.artifact import load_model as load_model
from geosched.reference_impl.predictors.artifact import save_model as save_model
from geosched.reference_impl.predictors.baselines import BucketEmpirical as BucketEmpirical
from geosched.reference_impl.predictors.baselines import GlobalMedian as GlobalMedian
from geosched.reference_impl.predictors.distribution import LengthDistribution as LengthDistribution
from geosched.reference_impl.predictors.distribution import log_spaced_edges as log_spaced_edges
from geosched.reference_impl.predictors.features import DEFAULT_FEATURES as DEFAULT_FEATURES
from geosched.reference_impl.predictors.features import FEATURES as FEATURES
from geosched.reference_impl.predictors.features import RequestLog as RequestLog
from geosched.reference_impl.predictors.features import feature_matrix as feature_matrix
from geosched.reference_impl.predictors.learned import KINDS as KINDS
from geosched.reference_impl.predictors.learned import LengthModel as LengthModel
from geosched.reference_impl.predictors.learned import MissingExtraError as MissingExtraError
from geosched.reference_impl.predictors.learned_predictor import LearnedPredictor as LearnedPredictor
from geosched.reference_impl.predictors.metrics import AccuracyRow as AccuracyRow
from geosched.reference_impl.predictors.metrics import PredictionSet as PredictionSet
from geosched.reference_impl.predictors.metrics import evaluate_predictions as evaluate_predictions
from geosched.reference_impl.predictors.simple import PREDICTORS as PREDICTORS
from geosched.reference_impl.predictors.simple import NoisyPredictor as NoisyPredictor
from geosched.reference_impl.predictors.simple import OneBitPredictor as OneBitPredictor
from geosched.reference_impl.predictors.simple import OraclePredictor as OraclePredictor
from geosched.reference_impl.predictors.simple import Predictor as Predictor
from geosched.reference_impl.predictors.simple import make_predictor as make_predictor
from geosched.reference_impl.predictors.simple import one_bit_parameters as one_bit_parameters
from geosched.reference_impl.predictors.simple import register_predictor as register_predictor
from geosched.reference_impl.predictors.training import TrainingConfig as TrainingConfig
from geosched.reference_impl.predictors.training import accuracy_table as accuracy_table
from geosched.reference_impl.predictors.training import train_model as train_model

__all__ = exported_names(__file__)  # each name declared once, by its `a as a` import above
