"""The ``fit_loglinear`` and ``fit_warm`` stages: log-linear models per σ² (the best kept), or one adapted."""
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
                  tagger=None, mark: bool = True, start=None, heldout_key: str = "") -> LogLinearFit:
    """Fit one model per σ² of ``[loglinear] sigma2_grid`` (and up to ``extend_grid`` beyond its edge
    while the best is there) and keep the best on held-out (cached).

    Every fit is kept in the store as a model (``ranker models list``), the chosen one marked as
    chosen on held-out under ``[loglinear] select_metric``. ``feature_config`` (the feature set's
    ``to_dict()``) is saved with each model, so ``ranker models export`` gives a model
    ``ranker select`` can extract features for, and ``tagger`` (:func:`.tagger.train_tagger`), so
    that ``ranker apply`` tags untagged text as the training split was tagged. ``X_heldout`` is
    the held-out rows in the model's columns, or a function making them when they are needed
    (:func:`ranker.pipeline.training.select_model`: not held beside a fit). ``mark`` False
    leaves the mark to the caller (a rule grid marks only its winner:
    :func:`ranker.pipeline.stages.rules.fit_rules`). ``start`` (weights, e.g. a rule's screening
    fit) is where the grid's first fit starts instead of zero weights. ``heldout_key`` names the
    held-out rows by their inputs (:meth:`ranker.pipeline.domains.HeldoutSplits.key`): with
    ``data`` keyed so too (:class:`ranker.pipeline.training_rows.PlannedRows`), a stored search is
    loaded without building either (:func:`ranker.pipeline.training.select_model`).
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
                                  tagger=tagger, start=start, extend=loglinear.extend_grid,
                                  heldout_key=heldout_key)
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
    return LogLinearFit(model, chosen, chosen.names if chosen is not None and chosen.names else data.names,
                        int(survivors.group_mask.sum()),
                        {why: int(k) for why, k in survivors.dropped.items()}, tuple(notes), summary)


class WarmFit(NamedTuple):
    """A model adapted from another (:func:`fit_warm`), as the store keeps it."""

    key: str         # its key in the store (ranker models list)
    model: object    # the fitted LogLinearRanker
    meta: dict       # its stored metadata (the caller's, and ``trained``: the sentences the filters kept)
    n_iter: int      # solver iterations (0: loaded from the store, fitted before)


def fit_warm(ctx: StageContext, base, X, y, groups, full, names, meta: dict, key_params: dict,
             feature_config: dict | None = None, parent: str | None = None, tagger=None,
             progress=None, refused: str = "", copies=None) -> WarmFit:
    """Adapt the log-linear model ``base`` to the rows ``(X, y, groups, full)``: its prior centred on
    ``base``'s weights, the solver started there (MAP adaptation), and keep the result in the store.

    The likelihood's fit of ``base``'s settings (an expected-F model's own fit has no prior
    centre), on ``ctx.workers`` threads (the model is the same for any number). Its key is a
    digest of the rows, the start, ``base``'s settings, ``names`` and ``key_params``, so the same
    adaptation is fitted once (:func:`ranker.pipeline.cache.cached_fit`; ``n_iter`` 0 when it is
    loaded). ``meta`` is stored with it, ``trained`` added. A fit with nothing to learn raises
    RankerError, prefixed by ``refused`` when given. ``copies`` (a
    :class:`~ranker.models.copies.CorpusCopies`: ``X`` then holds the shared columns alone) makes
    the copies per corpus of a per-corpus model in the objective, as ``ranker run`` trained them.
    """
    import numpy as np

    from ...errors import RankerError
    from ...models import LogLinearRanker
    from ..cache import cached_fit, data_digest, fit_params

    keep = LogLinearRanker().get_params()
    new = LogLinearRanker(**{**{k: v for k, v in base.get_params().items() if k in keep}, "n_jobs": ctx.n_workers})
    start = np.asarray(base.coef_, dtype=np.float64)
    ran = {"n_iter": 0}

    def fit():
        try:
            new.fit(X, y, groups, full=full, coef_init=start, prior_mean=start, callback=progress, copies=copies)
        except RankerError as e:
            if not refused:
                raise
            raise RankerError(f"{refused} ({e})") from None
        ran["n_iter"] = new.n_iter_
        return new, {**meta, "trained": int(new.n_training_sentences_)}

    rows = [X, y, groups, full, start, *(() if copies is None else (copies.corpus, *copies.columns))]
    key = data_digest(rows, {**key_params, "template": fit_params(base), "names": list(names)})
    fitted, stored = cached_fit(ctx.store, key, names, fit, feature_config, parent=parent, tagger=tagger)
    return WarmFit(key, fitted, stored, ran["n_iter"])
