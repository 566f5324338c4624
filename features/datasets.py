"""Per-candidate labels from the store, aligned with the rows of a :class:`CandidateMatrix`.

The trainer needs, beside the matrix, one number per candidate row: its consistency weight. It
comes from the store in forest candidate order, which is the matrix's row order. (A candidate's
score against gold, for choosing σ² or K and for the oracle, comes from the per-candidate counts
of :mod:`ranker.pipeline.candidate_scoring`.)
"""
from __future__ import annotations

import numpy as np

from ranker.errors import RankerError

from .vectorizer import CandidateMatrix


def consistency_weights(store, rows: CandidateMatrix, kind: str, corpus: str | None,
                        split: str | None, source: str | None, rule: str) -> np.ndarray:
    """Consistency weight of every row of ``rows`` (a matrix, or anything with ``sentence_ids`` and
    ``offsets``);  sentences without the annotation get zeros (and are dropped
    by the trainer's filters). ``rule`` is the consistency rule (no default here: the one default
    is the config's ``[annotation] rule``, which the caller passes).

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
