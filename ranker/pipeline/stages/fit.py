"""The ``fit_loglinear`` stage: one log-linear model per σ², the best on held-out kept."""
from __future__ import annotations

import warnings
from typing import NamedTuple

from ..config import ExperimentSection, LogLinearSection
from .context import StageContext


def loglinear_template(loglinear: LogLinearSection, workers: int = 0):
    """The unfitted log-linear ranker ``[loglinear]`` describes (σ² is chosen later).

    The ranker of its ``objective`` (:data:`ranker.registries.OBJECTIVES`): the likelihood's, or
    minimum risk's (whose ``fit`` also takes ``gain``), built from the section by the registry.
    """
    from ...parallel import resolve_workers
    from ...registries import OBJECTIVES, RANKERS
    from ..config import ExperimentConfig

    config = ExperimentConfig(experiment=ExperimentSection(workers=resolve_workers(workers)),
                              loglinear=loglinear)
    return RANKERS.build(OBJECTIVES.get(loglinear.objective, "[loglinear] objective"), config)


class LogLinearFit(NamedTuple):
    """The log-linear model chosen on held-out (``None`` when no training sentence survived)."""

    model: object                   # fitted LogLinearRanker or None
    chosen: object                  # SigmaSelection (σ², held-out trials) or None
    names: tuple[str, ...]          # the feature index (columns the model scores)
    kept: int                       # training sentences the filters kept
    dropped: dict[str, int]         # ... and dropped, by why
    notes: tuple[str, ...]          # report notes (not trained, early stopping)
    summary: dict | None = None     # typed fit record (report.json "fits"): FitSummary + choice


def fit_loglinear(ctx: StageContext, loglinear: LogLinearSection, template, data, X_heldout,
                  groups_heldout, quality_heldout, feature_config: dict | None = None,
                  tagger=None, mark: bool = True) -> LogLinearFit:
    """Fit one model per σ² of ``[loglinear] sigma2_grid`` and keep the best on held-out (cached).

    Every fit is kept in the store as a model (``ranker models list``), the chosen one marked as
    chosen on held-out under ``[loglinear] select_metric``. ``feature_config`` (the feature set's
    ``to_dict()``) is saved with each model, so ``ranker models export`` gives a model
    ``ranker select`` can extract features for, and ``tagger`` (:func:`.tagger.train_tagger`), so
    that ``ranker apply`` tags untagged text as the training split was tagged. ``mark`` False
    leaves the mark to the caller (a rule grid marks only its winner:
    :func:`ranker.pipeline.stages.rules.fit_rules`).
    """
    from sklearn.exceptions import ConvergenceWarning

    from ...models.summary import FitSummary
    from ..training import select_model

    notes: list[str] = []
    model = chosen = summary = None
    survivors = data.survivors
    if survivors.group_mask.any():
        with warnings.catch_warnings():   # reported once, below, not once per fit
            warnings.simplefilter("ignore", ConvergenceWarning)
            chosen = select_model(ctx.store, template, data, X_heldout, groups_heldout, quality_heldout,
                                  loglinear.sigma2_grid, ctx.progress, feature_config,
                                  chosen_on=f"heldout {loglinear.select_metric}" if mark else "",
                                  tagger=tagger)
        model = chosen.ranker
        if not model.converged_:
            notes.append(f"The chosen log-linear model stopped at [loglinear] max_iter = "
                         f"{loglinear.max_iter} iterations before its gradient reached "
                         f"tol = {loglinear.tol:g} (early stopping).")
        summary = {**FitSummary.of(model).to_dict(), "chosen_on": f"heldout {loglinear.select_metric}",
                   "trials": [list(t) for t in chosen.trials]}
    else:
        notes.append("The log-linear model was not trained: no training sentence survives the "
                     f"filters ({survivors.dropped}); with nothing to learn it selects the "
                     "source's first candidate, like native.")
    return LogLinearFit(model, chosen, data.names, int(survivors.group_mask.sum()),
                        {why: int(k) for why, k in survivors.dropped.items()}, tuple(notes), summary)
