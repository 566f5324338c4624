"""The log-linear stage of ``ranker run``: the training rows, σ² chosen on held-out, the learning curve.

The training matrix is built once: properties kept by the cut-off, training corpora stacked, and
the sentences the paper's filters drop removed before any fit, so every fit (each σ² of the grid,
each point of the learning curve) streams only the rows it learns from and the filters inside
``fit`` find nothing more to drop. Fitted models are kept in the store (:mod:`.cache`).
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np
from sklearn.base import clone

from ..models.compact import CompactMatrix, vstack
from ..models.groups import group_offsets
from ..models.objective import drop_sentence_constants
from ..models.training_set import TrainingRows, select_training_rows
from ..models.tuning import SigmaSelection, select_sigma2
from .cache import cached_fit, data_digest


class TrainingData(NamedTuple):
    """The rows every fit learns from, with what the filters did to get them."""

    X: CompactMatrix              # candidates of the kept sentences, kept properties only
    y: np.ndarray                 # consistency weights
    groups: np.ndarray            # sentence of each row, ascending
    full: np.ndarray              # bool, candidate is a full parse
    names: tuple[str, ...]        # the feature index (columns of X)
    survivors: TrainingRows       # the filters over every training sentence, before removal
    gain: np.ndarray | None = None  # candidate F in [0, 1] (minimum-risk training), else None


def fit_params(ranker) -> dict:
    """The hyperparameters a fitted model depends on: its cache key (threads change nothing)."""
    return {k: v for k, v in ranker.get_params().items() if k != "n_jobs"}


def training_data(blocks: Sequence, weights: Sequence[np.ndarray], cutoff: int,
                  qualities: dict[str, tuple[str, ...]], template,
                  gains: Sequence[np.ndarray] | None = None) -> TrainingData:
    """Stack the training corpora's matrices, apply the cut-off and the template's filters.

    Parameters
    ----------
    blocks : sequence of CandidateMatrix
        The main training split first (the cut-off counts only its consistent candidates, as
        the paper's "labeled training set"), then any extra corpora.
    weights : sequence of ndarray
        Consistency weights of each block's rows.
    cutoff : int
        Frequency cut-off on instantiations in consistent candidates.
    qualities : dict
        ``store.forest_qualities(source)``: sentence id -> candidate qualities in forest order.
    template : LogLinearRanker
        Its filter settings (``max_parses``, ``full_parses_only``, ``proper_subset``) apply.
    gains : sequence of ndarray, optional
        Each block's candidate scores in [0, 1], kept row for row (minimum-risk training).
    """
    from features import frequency_cutoff

    names = frequency_cutoff(blocks[0], weights[0], cutoff)
    y = np.concatenate(weights)
    groups = np.concatenate([m.groups() + k * 10 ** 7 for k, m in enumerate(blocks)])
    full = np.array([q == "full" for m in blocks for sid in m.sentence_ids for q in qualities[sid]],
                    dtype=bool)
    survivors = select_training_rows(y, group_offsets(groups, len(y)),
                                     max_parses=template.max_parses,
                                     full=full if template.full_parses_only else None,
                                     proper_subset=template.proper_subset)
    keep = survivors.row_mask
    # One block at a time, kept properties (a renumbering of column ids) and kept rows in one
    # pass, then the properties constant over a sentence's candidates dropped from that block
    # (they cancel from the objective; dropping them here, once, every fit streams fewer nonzeros
    # and makes no copy of its own: on the WSJ sample 213 to 177 million nonzeros). Each block
    # holds at most two copies of its kept entries at a time, and stacking copies the result once.
    parts = []
    start = 0
    for m in blocks:
        rows = keep[start:start + m.X.shape[0]]
        start += m.X.shape[0]
        if rows.any():
            part = m.restrict(names, None if rows.all() else rows)
            kept_groups = m.groups()[rows]
            parts.append(drop_sentence_constants(part, group_offsets(kept_groups, len(kept_groups))))
            del part
    X = vstack(parts) if parts else CompactMatrix.empty(0, len(names))
    del parts
    y, groups, full = y[keep], groups[keep], full[keep]
    gain = None if gains is None else np.concatenate(gains)[keep]
    return TrainingData(X, y, groups, full, tuple(names), survivors, gain)


def _fit_arrays(data: TrainingData, rows: int | None = None) -> dict:
    """The extra ``fit`` arguments of the data's first ``rows`` rows (all when None)."""
    out = {"full": data.full[:rows]}
    if data.gain is not None:
        out["gain"] = data.gain[:rows]
    return out


def select_model(store, template, data: TrainingData, X_heldout, groups_heldout, quality_heldout,
                 grid: Sequence[float], progress: bool = False,
                 feature_config: dict | None = None) -> SigmaSelection:
    """σ² chosen on held-out (warm-started over the grid), or the stored result of the same search."""

    def fit_all():
        c = select_sigma2(template, data.X, data.y, data.groups, X_heldout, groups_heldout,
                          quality_heldout, grid=grid, fit_params=_fit_arrays(data),
                          progress="train (sigma^2 grid)" if progress else None)
        return c.ranker, {"sigma2": c.sigma2, "trials": [list(t) for t in c.trials]}

    gain = [] if data.gain is None else [data.gain]
    key = data_digest([data.X, data.y, data.groups, data.full, *gain, X_heldout, groups_heldout,
                       quality_heldout],
                      {"template": fit_params(template), "names": data.names,
                       "grid": sorted(float(g) for g in grid), "search": "ascending, warm"})
    model, meta = cached_fit(store, key, data.names, fit_all, feature_config)
    return SigmaSelection(meta["sigma2"], tuple(tuple(t) for t in meta["trials"]), model)


def learning_curve(store, template, data: TrainingData, chosen: SigmaSelection,
                   fractions: Sequence[float], score: Callable[[object], float],
                   progress: bool = False, feature_config: dict | None = None) -> list[tuple[float, float]]:
    """``(training sentences, score(model))`` for models fitted on the first fractions of the data.

    σ² stays at the chosen value. A fraction covering every kept sentence is the chosen model
    itself (same rows, same σ²); smaller ones are fitted from zero weights, so no point borrows
    from data it does not hold, and kept in the store like every model.
    """
    starts = group_offsets(data.groups, len(data.y))
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
        else:
            rows = int(starts[k])    # the first k sentences are a prefix of the rows
            part = clone(template).set_params(sigma2=chosen.sigma2)
            X, y, g = data.X.row_range(0, rows), data.y[:rows], data.groups[:rows]
            extra = _fit_arrays(data, rows)
            model, _ = cached_fit(store, data_digest([X, y, g, *extra.values()],
                                                     {"template": fit_params(part),
                                                      "names": data.names}),
                                  data.names, lambda: (part.fit(X, y, g, **extra), {}),
                                  feature_config)
        curve.append((float(k), float(score(model))))
    return curve
