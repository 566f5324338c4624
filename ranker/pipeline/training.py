"""The log-linear stage of ``ranker run``: σ² chosen on held-out, a rule's screening fit, the learning curve.

Every fit streams the rows :mod:`.training_rows` builds (once per training set), keyed by what
they are made of, and is kept in the store (:mod:`.cache`), so a warm rerun fits nothing and
builds no rows to find what it fitted.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.base import clone

from ..models.groups import group_offsets
from ..models.tuning import SigmaSelection, select_sigma2
from .cache import cached_fit, cached_result, carry_tagger, data_digest, fit_params, load_payload, sub_key
from .training_rows import TrainingData

def _fit_arrays(data: TrainingData, rows: int | None = None) -> dict:
    """The extra ``fit`` arguments of the data's first ``rows`` rows (all when None)."""
    out = {"full": data.full[:rows]}
    if data.gain is not None:
        out["gain"] = data.gain[:rows]
    if data.copies is not None:
        out["copies"] = data.copies.take(slice(None, rows))
    return out


def _digested(extra: dict) -> list[np.ndarray]:
    """The arrays of :func:`_fit_arrays`'s arguments, for a fit's cache key."""
    out = [v for k, v in extra.items() if k != "copies"]
    if "copies" in extra:
        out += [extra["copies"].corpus, *extra["copies"].columns]
    return out


def select_model(store, template, data: TrainingData, X_heldout, groups_heldout, quality_heldout,
                 grid: Sequence[float], progress: bool = False,
                 feature_config: dict | None = None, chosen_on: str = "heldout", tagger=None,
                 start: np.ndarray | None = None, extend: int = 0, heldout_key: str = "") -> SigmaSelection:
    """σ² chosen on held-out (warm-started over the grid), or the stored result of the same search.

    Every fit of the grid is kept in the store as a model of its own (``ranker models list``),
    the chosen one marked with ``chosen_on`` (e.g. ``"heldout evalb_unlabeled"``; ``""``: not marked,
    as for a rule of a grid the caller marks only the winner of); the search's
    outcome (σ², every trial's held-out score, the models' keys) is kept under the search's key,
    so a warm rerun fits nothing. Each model's file carries ``tagger`` when one is given (models
    kept before models carried taggers are given it). ``X_heldout`` may be a function making the
    held-out rows (:func:`ranker.models.tuning.select_sigma2`): made once for the key and let go,
    made again after each fit of the search to score it, so no fit runs beside them. ``start`` is
    the first fit's start (a rule's screening weights: :func:`ranker.pipeline.stages.rules.fit_rules`),
    part of the key; zero weights when None. ``extend`` (``[loglinear] extend_grid``) tries up to
    that many σ² beyond the grid's edge while the best is there (:func:`~ranker.models.tuning.select_sigma2`),
    part of the key when not 0. ``heldout_key`` names the held-out rows by their inputs
    (:meth:`ranker.pipeline.domains.HeldoutSplits.key`): with ``data`` keyed by its inputs too
    (:class:`PlannedRows`), the search's key is made from the two keys, and a stored search is
    loaded with neither the training rows nor the held-out rows built.
    """
    started = {} if start is None else {"start": "given"}
    if extend:
        started["extend"] = int(extend)
    given = () if start is None else (np.asarray(start, dtype=np.float64),)
    search_params = {"template": fit_params(template), "grid": sorted(float(g) for g in grid),
                     "search": "ascending, warm", **started}
    if data.key and heldout_key:   # both named by their inputs: neither built to find a stored search
        key = data_digest([groups_heldout, quality_heldout, *given],
                          {**search_params, "data": data.key, "heldout": heldout_key})
    else:
        key = data_digest([data.X, data.y, data.groups, *_digested(_fit_arrays(data)),
                           X_heldout() if callable(X_heldout) else X_heldout, groups_heldout, quality_heldout,
                           *given], {**search_params, "names": data.names})
    fitted: dict = {}

    def search() -> dict:
        c = select_sigma2(template, data.X, data.y, data.groups, X_heldout, groups_heldout,
                          quality_heldout, grid=grid, fit_params=_fit_arrays(data),
                          progress="train (sigma^2 grid)" if progress else None, coef_init=start,
                          extend=extend)
        keys = []
        for (s2, q), model in zip(c.trials, c.models):
            k = sub_key(key, sigma2=s2)
            cached_fit(store, k, data.names, lambda model=model, s2=s2, q=q: (model, {"sigma2": s2, "heldout": q}),
                       feature_config, data=key, tagger=tagger)
            keys.append(k)
        fitted["ranker"], fitted["names"] = c.ranker, data.names
        return {"sigma2": c.sigma2, "trials": [list(t) for t in c.trials],
                "model": keys[[s2 for s2, _ in c.trials].index(c.sigma2)], "models": keys}

    got = cached_result(store, key, search)
    if chosen_on:
        store.choose_model(got["model"], chosen_on)
    for k in got["models"]:
        carry_tagger(store, k, None, tagger)
    if "ranker" in fitted:
        model, names = fitted["ranker"], fitted["names"]
    else:   # the stored search: its model's feature index is its file's (the rows need not be built)
        saved = load_payload(store.model_file(got["model"]), None, got["model"])
        model, names = saved.ranker, saved.feature_names
    return SigmaSelection(got["sigma2"], tuple(tuple(t) for t in got["trials"]), model, key=got["model"],
                          names=tuple(names))


def fit_rows(template, data: TrainingData, rows: int):
    """The first ``rows`` rows (whole sentences) of ``data`` as ``template``'s fit streams them.

    With difference rows (``layout = "delta"``) these are a cut of the rows built once for the
    whole training set (:func:`ranker.models.delta.delta_rows_once`), shared by every fit of it
    (the σ² grid's and each point of the learning curve), not built again for each prefix.
    """
    from ..matrices import kernels
    from ..models import delta

    if getattr(template, "layout", "plain") != "delta" or not delta.streamed(kernels.resolve(None)):
        return data.X.row_range(0, rows)
    offsets = group_offsets(data.groups, len(data.y))
    return delta.delta_rows_once(data.X, offsets, n_jobs=template._threads()).row_range(0, rows)


def learning_curve(store, template, data: TrainingData, chosen: SigmaSelection,
                   fractions: Sequence[float], progress: bool = False,
                   feature_config: dict | None = None) -> list[tuple[float, object]]:
    """``(training sentences, model)`` for models fitted on the first fractions of the data.

    σ² stays at the chosen value. A fraction covering every kept sentence is the chosen model
    itself (same rows, same σ²); smaller ones are fitted from zero weights, so no point borrows
    from data it does not hold, and kept in the store like every model. The models are scored by
    the caller, later: ``ranker run`` fits them with the training rows at hand and lets the rows go
    before it selects and evaluates on the test split (issue 45: GUM's and the WSJ sample's 2.7 GB).
    """
    starts = group_offsets(data.groups, len(data.groups))
    n_groups = len(starts) - 1
    points = sorted({max(1, min(n_groups, int(round(f * n_groups)))) for f in fractions})
    bar = None
    if progress and points:
        from tqdm import tqdm

        bar = tqdm(points, desc="learning curve", unit="fit", dynamic_ncols=True)
    curve = []
    for k in bar if bar is not None else points:
        if k == n_groups:
            model = chosen.ranker
        else:   # the first k sentences are a prefix of the rows
            model = fit_sigma2(store, template, data, chosen.sigma2, feature_config, int(starts[k]))
        curve.append((float(k), model))
    return curve


def fit_screen(store, template, data: TrainingData, sigma2: float, max_iter: int,
               feature_config: dict | None = None, callback=None):
    """``template`` fitted with ``sigma2`` for at most ``max_iter`` iterations from zero weights: a rule's
    screening fit (:func:`ranker.pipeline.stages.rules.fit_rules`), kept in the store as a model.

    Fitted on the rows as :func:`select_model`'s fits take them (``data.X``), so the template's
    preconditioner applies as in the full fits it stands for: :func:`fit_sigma2` hands the fit
    difference rows built once, which the preconditioner cannot scale (such a fit runs
    unscaled), and a short fit's path, unlike the optimum, depends on the scaling (on GUM dev
    the 20-iteration scores of the two paths differ by up to 0.46). ``callback(iteration,
    max_iter)`` is called after each solver iteration of a fit (progress; none when stored).
    Returns ``(model, names)``: its feature index, the rows' or its stored file's (``data`` keyed
    by its inputs, a :class:`PlannedRows`, is not built when the fit is stored).
    """
    part = clone(template).set_params(sigma2=sigma2, max_iter=max_iter)
    key = screen_key(template, data, sigma2, max_iter)
    names: list = []

    def fit():
        names.append(data.names)
        return part.fit(data.X, data.y, data.groups, callback=callback, **_fit_arrays(data)), {}

    model, _ = cached_fit(store, key, lambda: data.names, fit, feature_config)
    return model, tuple(names[0]) if names else stored_names(store, key)


def screen_key(template, data: TrainingData, sigma2: float, max_iter: int) -> str:
    """The store key of :func:`fit_screen`'s model: the rows' key (their inputs,
    :class:`PlannedRows`), or a digest of the rows when they have none."""
    part = clone(template).set_params(sigma2=sigma2, max_iter=max_iter)
    if data.key:   # keyed by the rows' inputs: a stored fit is loaded without building the rows
        return data_digest([], {"template": fit_params(part), "data": data.key, "rows": "as select_model's"})
    return data_digest([data.X, data.y, data.groups, *_digested(_fit_arrays(data))],
                       {"template": fit_params(part), "names": data.names, "rows": "as select_model's"})


def stored_names(store, key: str) -> tuple[str, ...]:
    """The feature index of the model stored under ``key`` (its file's)."""
    return tuple(load_payload(store.model_file(key), None, key).feature_names)


def fit_sigma2(store, template, data: TrainingData, sigma2: float, feature_config: dict | None = None,
               rows: int | None = None, tagger=None):
    """``template`` fitted with ``sigma2`` on the first ``rows`` rows of ``data`` (all when None).

    Fitted from zero weights and kept in the store as a model (``ranker models list``): a point of
    the learning curve, or ``ranker train --sigma2`` (a σ² given, not chosen), its file carrying
    ``tagger`` when one is given.
    """
    rows = len(data.groups) if rows is None else rows
    part = clone(template).set_params(sigma2=sigma2)
    y, g = data.y[:rows], data.groups[:rows]
    if data.key:   # keyed by the rows' inputs: a stored fit is loaded without building the rows
        key = data_digest([], {"template": fit_params(part), "data": data.key, "prefix": int(rows)})
    else:
        key = data_digest([data.X.row_range(0, rows), y, g, *_digested(_fit_arrays(data, rows))],
                          {"template": fit_params(part), "names": data.names})
    model, _ = cached_fit(store, key, lambda: data.names,
                          lambda: (part.fit(fit_rows(part, data, rows), y, g, **_fit_arrays(data, rows)), {}),
                          feature_config, tagger=tagger)
    return model
