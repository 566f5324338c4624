"""Rankers over grouped candidate parses: Heidorn's metric and the conditional log-linear model."""
from .base import GroupedRanker, NotFittedError
from .groups import GroupError, group_offsets
from .loglinear import LogLinearRanker
from .objective import ConditionalObjective
from .training_set import TrainingRows, select_training_rows

__all__ = [
    "ConditionalObjective", "GroupError", "GroupedRanker", "LogLinearRanker", "NotFittedError",
    "TrainingRows", "group_offsets", "select_training_rows",
]
