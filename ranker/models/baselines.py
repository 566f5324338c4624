"""Reference rankers that bound and anchor the learned ones: the source's choice, chance, the oracle.

They follow the same estimator contract as the learned rankers so every report treats all choices
alike. Each reads one number per candidate as its ``X``:

* :class:`NativeRanker`: the source's own rank (0 = its first choice); the lowest wins.
* :class:`RandomRanker`: ignores ``X`` beyond its length; a seeded uniform pick, reproducible.
* :class:`OracleRanker`: the candidate's true quality (F against gold); the highest wins. Its
  ``X`` is the answer, so it is an upper bound, never a ranker to deploy.
"""
from __future__ import annotations

import numpy as np

from ..settings import ExperimentSection
from .base import GroupedRanker


def _column(X) -> np.ndarray:
    a = np.asarray(X, dtype=np.float64)
    return a.reshape(len(a), -1)[:, 0] if a.ndim > 1 else a


class NativeRanker(GroupedRanker):
    """The source's own choice: the candidate with the lowest source rank (ties to row order)."""

    reads = "source_rank"

    def fit(self, X=None, y=None, groups=None) -> "NativeRanker":
        """Nothing to learn; returns self."""
        self.fitted_ = True
        return self

    def decision_function(self, X) -> np.ndarray:
        """Minus the source rank of each candidate."""
        self._check_fitted("fitted_")
        return -_column(X)


class RandomRanker(GroupedRanker):
    """A uniformly random candidate per group, the same for the same seed and data.

    Parameters
    ----------
    seed : int
    """

    def __init__(self, seed: int = ExperimentSection.seed):   # the config's [experiment] seed
        self.seed = seed

    @classmethod
    def from_config(cls, config) -> "RandomRanker":
        """Seeded by ``[experiment] seed``."""
        return cls(seed=config.experiment.seed)

    def fit(self, X=None, y=None, groups=None) -> "RandomRanker":
        """Nothing to learn; returns self."""
        self.fitted_ = True
        return self

    def decision_function(self, X) -> np.ndarray:
        """Independent uniform scores, one per candidate, from ``seed``."""
        self._check_fitted("fitted_")
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        return np.random.default_rng(self.seed).random(n)


class OracleRanker(GroupedRanker):
    """The best candidate by its known quality (the upper bound), ties to the earlier candidate."""

    reads = "quality"

    def fit(self, X=None, y=None, groups=None) -> "OracleRanker":
        """Nothing to learn; returns self."""
        self.fitted_ = True
        return self

    def decision_function(self, X) -> np.ndarray:
        """The given per-candidate quality."""
        self._check_fitted("fitted_")
        return _column(X)
