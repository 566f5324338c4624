"""Per-candidate labels from the store, aligned with the rows of a :class:`CandidateMatrix`.

The rankers need, beside the matrix, one number per candidate row: its consistency weight (for
training) or its F against gold under a metric (for choosing σ² or K on held-out data, and for the
oracle). Both come from the store in forest candidate order, which is the matrix's row order.
"""
from __future__ import annotations

import numpy as np

from ranker.errors import RankerError

from .vectorizer import CandidateMatrix


def consistency_weights(store, rows: CandidateMatrix, kind: str, corpus: str | None,
                        split: str | None, source: str | None = None, rule: str = "strict") -> np.ndarray:
    """Consistency weight of every row of ``rows`` (a matrix, or anything with ``sentence_ids`` and
    ``offsets``);  sentences without the annotation get zeros (and are dropped
    by the trainer's filters).

    Raises
    ------
    RankerError
        If a stored set does not have one weight per candidate of its sentence.
    """
    sets = store.consistent_sets(kind, corpus, split, source=source, rule=rule)
    w = np.zeros(int(rows.offsets[-1]))
    for j, sid in enumerate(rows.sentence_ids):
        cs = sets.get(sid)
        if cs is None:
            continue
        a, b = rows.offsets[j], rows.offsets[j + 1]
        if len(cs.weights) != b - a:
            raise RankerError(f"{store.path}: {sid} has {b - a} candidates but {len(cs.weights)} "
                              f"consistency weights for {kind!r}; re-run ranker annotate")
        w[a:b] = cs.weights
    return w


def candidate_f(store, rows: CandidateMatrix, metric: str, corpus: str | None, split: str | None,
                source: str | None = None) -> np.ndarray:
    """Sentence F1 (percent) of every row under ``metric``'s stored bracket counts.

    ``rows`` is as for :func:`consistency_weights`.

    Raises
    ------
    RankerError
        If a sentence has no stored counts under ``metric``.
    """
    counts = store.bracket_counts(metric, corpus, split, source=source)
    f = np.zeros(int(rows.offsets[-1]))
    for j, sid in enumerate(rows.sentence_ids):
        found = counts.get(sid)
        a, b = rows.offsets[j], rows.offsets[j + 1]
        if found is None or len(found) != b - a:
            raise RankerError(f"{store.path}: no {metric!r} bracket counts for the candidates of {sid}; "
                              "compute them first (ranker evaluate)")
        for i, r in enumerate(found):
            den = r.gold + r.test
            f[a + i] = 100.0 * 2 * r.matched / den if den else 100.0
    return f
