"""What a fit did, as typed fields: the record kept with every stored model and in ``report.json``.

Reports, ``ranker models list`` and the experiments read these fields, never prose: the words a
report prints are made from them in :mod:`ranker.pipeline.report` alone.
"""
from __future__ import annotations

import math
from typing import NamedTuple


class FitSummary(NamedTuple):
    """One fit of a log-linear ranker (any objective); Heidorn's tuning fills what applies."""

    estimator: str              # the estimator class, e.g. "LogLinearRanker", "ExpectedFRanker"
    optimizer: str              # "cg", "lbfgs", or "coordinate" (Heidorn's K search)
    iterations: int
    evaluations: int            # objective evaluations (K settings tried, for Heidorn)
    converged: bool
    sigma2: float | None
    objective: float | None     # the objective at the solution (per training sentence), if any
    training_sentences: int | None
    grad_max: float | None = None   # largest gradient component per sentence at the end (the stop's measure)

    @classmethod
    def of(cls, ranker) -> "FitSummary":
        """The summary of a fitted ranker, from its fitted attributes."""
        if hasattr(ranker, "coef_"):
            objective = getattr(ranker, "objective_", None)
            return cls(type(ranker).__name__, str(getattr(ranker, "solver", "")),
                       int(getattr(ranker, "n_iter_", 0)), int(getattr(ranker, "n_evaluations_", 0)),
                       bool(getattr(ranker, "converged_", False)), float(ranker.sigma2),
                       None if objective is None or not math.isfinite(objective) else float(objective),
                       int(getattr(ranker, "n_training_sentences_", 0)), _finite(getattr(ranker, "grad_max_", None)))
        history = tuple(getattr(ranker, "tuning_history_", ()))
        return cls(type(ranker).__name__, "coordinate" if history else "", len(history), len(history),
                   True, None, None, None)

    def to_dict(self) -> dict:
        return self._asdict()


def _finite(v) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)
