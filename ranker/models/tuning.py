"""Choosing hyperparameters on held-out data: the prior variance σ² and Heidorn's K table.

Both searches judge a setting by what the user cares about, the quality of the parses it selects
on held-out sentences (mean per-sentence F, or consistency), not by the training objective.
Ties keep the earlier setting, so results do not depend on floating-point noise in the order of
trials.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np
from sklearn.base import clone

from ..errors import RankerError
from ..parallel import progress_bar
from .groups import first_argmax, group_offsets
from ..trees.ktable import KTable

SIGMA2_GRID = (0.01, 0.1, 1.0, 10.0, 100.0)


def selected_quality(values: np.ndarray, quality: np.ndarray, offsets: np.ndarray) -> float:
    """Mean over groups of ``quality`` at each group's highest ``values`` (ties to the earlier)."""
    if len(offsets) <= 1:
        return 0.0
    chosen = offsets[:-1] + first_argmax(values, offsets)
    return float(np.mean(quality[chosen]))


class SigmaSelection(NamedTuple):
    """The outcome of the σ² search: the chosen value, every trial, and the model fitted with it."""

    sigma2: float
    trials: tuple[tuple[float, float], ...]   # (σ², held-out quality)
    ranker: object
    models: tuple = ()                        # every trial's fitted model, in trial order
    key: str = ""                             # the chosen model's key in the store, when kept there
    names: tuple[str, ...] = ()               # the chosen model's feature index, when known


def select_sigma2(ranker, X, y, groups, X_heldout, groups_heldout, quality_heldout,
                  grid: Sequence[float] = SIGMA2_GRID, fit_params: dict | None = None,
                  warm_start: bool = True, progress: str | None = None, coef_init=None,
                  extend: int = 0) -> SigmaSelection:
    """Fit ``ranker`` once per σ² of ``grid`` and keep the one whose held-out selections score best.

    Values are tried from the smallest up (the strongest prior converges fastest), each fit
    starting from the previous one's weights when ``warm_start``: the objective is strictly
    convex, so the start changes the iterations needed, not the optimum.

    Parameters
    ----------
    ranker : LogLinearRanker
        Unfitted template; it is cloned for every trial.
    X, y, groups
        Training candidates, consistency weights and sentence ids.
    X_heldout, groups_heldout
        Held-out candidates and sentence ids. ``X_heldout`` may be a function making the
        candidates' rows: they are made after each fit, scored and let go, never held beside a
        fit (GUM's and the WSJ sample's held-out splits in a per-corpus model's columns: 0.9 GB).
    quality_heldout : array-like, shape (n_heldout_candidates,)
        Per-candidate F (or any quality) of the held-out candidates.
    grid : sequence of float
    fit_params : dict, optional
        Extra arguments of ``fit`` (``full=``).
    warm_start : bool
        Start each fit from the previous σ²'s weights (``coef_init``).
    progress : str, optional
        Show a progress bar of the grid's solver iterations with this label.
    coef_init : ndarray, optional
        Where the first fit starts (zero weights when None), e.g. a screening fit's weights.
    extend : int
        While the best σ² is the smallest or largest tried and scores above the value next to it,
        at most ``extend`` times, one more value beyond it is tried (:func:`beyond`), warm-started
        from the edge's fit (a grid of one value is not extended: it has no side to go to; a
        level edge is not either: a strong prior's selections tie all the way down).

    Returns
    -------
    SigmaSelection
        ``trials`` (and ``models``) in ascending σ²; a tie keeps the smaller σ².
    """
    if not len(grid):
        raise RankerError("the σ² grid is empty")
    quality = np.asarray(quality_heldout, dtype=np.float64)
    offsets = group_offsets(groups_heldout, len(quality))
    start = None if coef_init is None else np.asarray(coef_init, dtype=np.float64)
    values = sorted(float(s2) for s2 in grid)
    fitted: dict[float, tuple[float, object]] = {}   # σ² -> (held-out quality, model)
    # a bar of solver iterations (each fit counted to its cap, a fit that stops early whole), so its
    # rate and time left move while a fit of minutes runs
    cap = int(ranker.get_params().get("max_iter", 1))
    with progress_bar(cap * len(values), progress or "", unit="it", enabled=bool(progress)) as bar:

        def fit(s2: float, init) -> None:
            bar.set_postfix_str(f"sigma2={s2:g}")
            extra = dict(fit_params or {}, **({"callback": _step_on(bar)} if progress else {}))
            model = clone(ranker).set_params(sigma2=s2).fit(X, y, groups, coef_init=init, **extra)
            bar.update(cap * (len(fitted) + 1) - bar.n)   # this fit counted to its cap
            q = selected_quality(model.decision_function(X_heldout() if callable(X_heldout) else X_heldout),
                                 quality, offsets)
            fitted[s2] = (q, model)

        previous = None
        for s2 in values:
            fit(s2, previous.coef_ if warm_start and previous is not None else (start if previous is None else None))
            previous = fitted[s2][1]
        for _ in range(extend if len(values) > 1 else 0):   # one value given: no side to go to
            tried = sorted(fitted)
            edge = _best(fitted)
            if edge not in (tried[0], tried[-1]):
                break   # the best is inside
            inner = tried[1] if edge == tried[0] else tried[-2]
            if not fitted[edge][0] > fitted[inner][0]:
                break   # level with the value inside it: flat, no reason to go on
            if progress:
                bar.total += cap
            fit(beyond(tried, edge), fitted[edge][1].coef_ if warm_start else None)
    order = sorted(fitted)
    best = _best(fitted)
    return SigmaSelection(best, tuple((s2, fitted[s2][0]) for s2 in order), fitted[best][1],
                          tuple(fitted[s2][1] for s2 in order))


def _best(fitted: dict) -> float:
    """The σ² whose held-out quality is highest; a tie keeps the smaller σ²."""
    return min(fitted, key=lambda s2: (-fitted[s2][0], s2))


def beyond(tried: Sequence[float], edge: float) -> float:
    """The σ² one step past ``edge``, the smallest or largest of ``tried`` (two values at least):
    the grid's own ratio at that end, below the smallest or above the largest."""
    tried = sorted(tried)
    if edge == tried[0]:
        return tried[0] * tried[0] / tried[1]
    return tried[-1] * tried[-1] / tried[-2]


def _step_on(bar):
    """A fit's ``callback(iteration, max_iter)`` moving ``bar`` one iteration a call."""
    def step(_iteration, _cap):
        bar.update(1)
    return step


def tune_k_table(compiled, quality: np.ndarray, groups, table: KTable,
                 grid: Sequence[float] = (0.0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
                 max_rounds: int = 3) -> tuple[KTable, list[tuple[int, tuple[str, ...], float | None, float]]]:
    """Coordinate search over K per modifier type, maximising the quality of the selected parses.

    Types are visited from the most to the least frequent; for each, every K of ``grid`` is tried
    with the others fixed and the best kept (a tie keeps the current K). Rounds repeat until one
    changes nothing or ``max_rounds`` is reached.

    Parameters
    ----------
    compiled : CompiledTrees
        The candidates' modifiers (:func:`ranker.trees.heidorn_score.compile_trees`).
    quality : ndarray, shape (n_candidates,)
        Per-candidate quality on the tuning data (e.g. sentence F).
    groups : array-like, shape (n_candidates,)
    table : KTable
        Starting table; its type fields decide what a type is.
    grid : sequence of float
    max_rounds : int

    Returns
    -------
    table : KTable
        The tuned table.
    history : list of (round, type key, K, quality)
        Every accepted change, starting with ``(0, (), nan, start quality)``.
    """
    offsets = group_offsets(groups, compiled.n_trees)
    if len(quality) != compiled.n_trees:
        raise RankerError(f"{len(quality)} quality values for {compiled.n_trees} candidates")
    # Types under the table's fields, and for each compiled (modifier, head, side) its key.
    keys = [table.type_of(*t) for t in compiled.types]
    distinct = sorted(set(keys))
    key_index = {k: i for i, k in enumerate(distinct)}
    occ_key = np.array([key_index[k] for k in keys], dtype=np.int64)
    counts = np.bincount(occ_key[compiled.type_ids], minlength=len(distinct)) if len(occ_key) else \
        np.zeros(len(distinct), dtype=np.int64)
    order = sorted(range(len(distinct)), key=lambda i: (-counts[i], distinct[i]))
    k = np.array([table.lookup(key) for key in distinct], dtype=np.float64)

    def evaluate(kv: np.ndarray) -> float:
        return selected_quality(-compiled.scores_from_k(kv[occ_key]), quality, offsets)

    best = evaluate(k)
    history = [(0, (), None, best)]   # the starting table: no K changed (None, not NaN: it is saved as JSON)
    for rnd in range(1, max_rounds + 1):
        changed = False
        for i in order:
            current = k[i]
            for value in grid:
                if value == current:
                    continue
                k[i] = value
                q = evaluate(k)
                if q > best:
                    best, current, changed = q, float(value), True
                    history.append((rnd, distinct[i], float(value), q))
            k[i] = current
        if not changed:
            break
    tuned = table
    for i, key in enumerate(distinct):
        if k[i] != table.lookup(key):
            tuned = tuned.with_k(key, k[i])
    return tuned, history
