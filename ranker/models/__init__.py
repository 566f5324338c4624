"""Rankers over grouped candidate parses: Heidorn's metric and the conditional log-linear model.

Names load on first use (as in :mod:`ranker`): a module that needs one piece (the pipeline's cache
reads :class:`~.narrow.NarrowMatrix`, ``ranker counts`` no ranker at all) does not import
scikit-learn, which every estimator here derives from and which costs a second of start-up.
"""
from ..lazy import lazy_getattr

#: Public name -> the submodule that defines it.
_PUBLIC = {
    "GroupedRanker": "base", "NotFittedError": "base",
    "NativeRanker": "baselines", "OracleRanker": "baselines", "RandomRanker": "baselines",
    "GroupError": "groups", "group_offsets": "groups",
    "HeidornRanker": "heidorn",
    "LogLinearRanker": "loglinear",
    "ConditionalObjective": "objective",
    "ModelFileError": "persistence", "SavedModel": "persistence", "load_model": "persistence",
    "save_model": "persistence",
    "TrainingRows": "training_set", "select_training_rows": "training_set",
    "SigmaSelection": "tuning", "select_sigma2": "tuning", "selected_quality": "tuning",
    "tune_k_table": "tuning",
}

__all__ = sorted(_PUBLIC)

__getattr__ = lazy_getattr(__name__, _PUBLIC, globals(), prefix=__name__ + ".")


def __dir__():
    return __all__
