"""Rankers over grouped candidate parses: Heidorn's metric and the conditional log-linear model."""
from .base import GroupedRanker, NotFittedError
from .baselines import NativeRanker, OracleRanker, RandomRanker
from .groups import GroupError, group_offsets
from .heidorn import HeidornRanker
from .loglinear import LogLinearRanker
from .objective import ConditionalObjective
from .persistence import ModelFileError, SavedModel, load_model, save_model
from .training_set import TrainingRows, select_training_rows
from .tuning import SigmaSelection, select_sigma2, selected_quality, tune_k_table

__all__ = [
    "ConditionalObjective", "GroupError", "GroupedRanker",
    "HeidornRanker", "LogLinearRanker", "ModelFileError", "NativeRanker", "NotFittedError",
    "OracleRanker", "RandomRanker",
    "SavedModel", "SigmaSelection", "TrainingRows", "group_offsets", "load_model",
    "save_model", "select_sigma2", "select_training_rows",
    "selected_quality", "tune_k_table",
]
