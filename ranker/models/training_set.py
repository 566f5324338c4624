"""The training-set filters of Crouch et al. (2002) section 4, each an option of the trainer.

The paper kept a sentence only if it had a full parse, at most 1,000 parses, and a consistent set
that was a proper, non-empty subset of its parses (a sentence whose parses are all consistent, or
none, teaches a discriminative learner nothing). Filters work on whole sentences, never on single
candidates, so the conditional distribution of a kept sentence is unchanged.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .groups import row_group_index


class TrainingRows(NamedTuple):
    """Which sentences and candidate rows survive the filters, and why the others went."""

    group_mask: np.ndarray    # (n_groups,) bool, kept sentences
    row_mask: np.ndarray      # (n_candidates,) bool, rows of kept sentences
    dropped: dict[str, int]   # filter name -> sentences it removed (first filter that fired)


def select_training_rows(weights, offsets, *, max_parses: int | None = None,
                         full: np.ndarray | None = None, proper_subset: bool = True) -> TrainingRows:
    """Apply the sentence filters.

    Parameters
    ----------
    weights : ndarray, shape (n_candidates,)
        Consistency weights.
    offsets : ndarray, shape (n_groups + 1,)
    max_parses : int, optional
        Drop sentences with more candidates than this (0 or None: no limit, as ``[loglinear]
        max_parses = 0`` says).
    full : ndarray of bool, shape (n_candidates,), optional
        Whether each candidate is a full parse; given, sentences with any non-full candidate go.
    proper_subset : bool
        Drop sentences whose consistent set is every candidate with one weight (``q`` is then
        ``p``: the sentence adds nothing to the gradient). Graded weights that differ teach even
        when none is zero. Sentences with an empty consistent set are always dropped: their
        likelihood is zero whatever the weights.

    Returns
    -------
    TrainingRows
    """
    w = np.asarray(weights, dtype=np.float64)
    n_groups = len(offsets) - 1
    keep = np.ones(n_groups, dtype=bool)
    dropped: dict[str, int] = {}
    if n_groups == 0:
        return TrainingRows(keep, np.ones(len(w), dtype=bool), dropped)
    starts = offsets[:-1]
    sizes = np.diff(offsets)

    def apply(name: str, bad: np.ndarray) -> None:
        dropped[name] = int(np.count_nonzero(bad & keep))
        keep[bad] = False

    if max_parses:
        apply("max_parses", sizes > max_parses)
    if full is not None:
        nonfull = np.add.reduceat((~np.asarray(full, dtype=bool)).astype(np.int64), starts) > 0
        apply("full_parses_only", nonfull)
    positive = np.add.reduceat((w > 0).astype(np.int64), starts)
    apply("empty_consistent_set", positive == 0)
    if proper_subset:
        whole = positive == sizes
        if whole.any():   # ... and one weight on all of them (0/1 weights: always)
            lo, hi = np.minimum.reduceat(w, starts), np.maximum.reduceat(w, starts)
            whole &= lo == hi
        apply("all_consistent", whole)
    return TrainingRows(keep, keep[row_group_index(offsets)], dropped)
