"""The estimator contract every ranker shares: grouped candidates in, one chosen index per group out.

A ranker is a scikit-learn estimator (``get_params``/``set_params``/``clone`` work) whose data come
with an explicit ``groups`` argument: the sentence of each candidate row, rows of one sentence
adjacent and in the source's order. ``decision_function`` scores candidates (higher is better);
``predict`` picks the best candidate of every group, a tie going to the source's earlier candidate.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from ..errors import RankerError
from .groups import first_argmax, group_offsets


#: The forms a ranker's candidates ``X`` come in; each ranker says which it reads (``reads``), so a
#: caller hands every ranker its input by that, never by the ranker's name.
INPUTS = {
    "features": "the candidates' property values, a matrix with a row per candidate",
    "trees": "the candidate trees (or the compiled trees of HeidornRanker.compile)",
    "source_rank": "the source's rank of each candidate (0: its first choice)",
    "candidates": "anything with a row per candidate (only the number of rows is read)",
    "quality": "each candidate's known score against gold, the unscored ones below every other",
}


class NotFittedError(RankerError):
    """A ranker was asked to score before it was fitted or loaded."""


class GroupedRanker(BaseEstimator):
    """Shared ``predict`` and ``score`` over grouped candidates, given ``decision_function``.

    Class attributes say what a caller must know without naming the ranker: ``reads``, the form of
    its ``X`` (one of :data:`INPUTS`); ``needs_model``, whether it can only choose once trained (a
    model file); ``needs_gain``, whether its ``fit`` takes each candidate's score (``gain``).
    """

    reads = "candidates"
    needs_model = False
    needs_gain = False

    @classmethod
    def from_config(cls, config) -> "GroupedRanker":
        """The ranker an :class:`~ranker.pipeline.config.ExperimentConfig` describes (its own
        sections; :meth:`ranker.component_registry.Registry.build`). A ranker without settings: ``cls()``."""
        return cls()

    def _check_fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            raise NotFittedError(f"{type(self).__name__} is not fitted yet: call fit or load a model")

    def predict(self, X, groups) -> np.ndarray:
        """Choose one candidate per group.

        Parameters
        ----------
        X
            The candidates, in the ranker's input form.
        groups : array-like, shape (n_candidates,)
            Sentence id of each row; rows of a sentence adjacent.

        Returns
        -------
        ndarray of int64, shape (n_groups,)
            Index of the chosen candidate within its group (0 = the group's first row).
        """
        values = np.asarray(self.decision_function(X), dtype=np.float64)
        offsets = group_offsets(groups, len(values))
        if not np.all(np.isfinite(values)):
            raise RankerError(f"{type(self).__name__}: candidate scores are not all finite")
        return first_argmax(values, offsets)

    def score(self, X, y, groups) -> float:
        """The mean over groups of ``y`` at the chosen candidate (the mean F or consistency chosen).

        Parameters
        ----------
        X
            The candidates.
        y : array-like, shape (n_candidates,)
            Per-candidate quality: consistency weight or sentence F.
        groups : array-like, shape (n_candidates,)

        Returns
        -------
        float
        """
        y = np.asarray(y, dtype=np.float64)
        offsets = group_offsets(groups, len(y))
        if len(offsets) <= 1:
            return 0.0
        chosen = self.predict(X, groups)
        return float(np.mean(y[offsets[:-1] + chosen]))
