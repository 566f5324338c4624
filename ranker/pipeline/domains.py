"""Several treebanks in one model: each corpus's features copied beside a shared copy (Daumé III 2007).

"Frustratingly easy domain adaptation" gives every feature of a sentence of corpus ``c`` a second
copy that fires on ``c`` alone. A model learns what holds across the corpora in the shared
weights and what holds in one corpus in that corpus's copies: a candidate of ``c`` is scored by
both. Text of no known corpus (``ranker apply`` on plain text) has no copy that fires, so it is
scored by the shared weights alone: a model's columns absent from a matrix are zero
(:meth:`ranker.features.CandidateMatrix.restrict`), so nothing at apply time needs to know.

``[features] domains`` says whether the copies are made (``per-corpus``), not (``shared``: one
feature space for every corpus, the treebanks simply pooled), or both are fitted and held-out
chooses (``auto``). With one corpus there is nothing to copy: ``shared`` alone.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..matrices.compact import CompactMatrix, as_compact, vstack

#: The two feature spaces ``[features] domains`` chooses between.
SHARED, PER_CORPUS = "shared", "per-corpus"


def domain_modes(setting: str, treebanks: int) -> tuple[str, ...]:
    """The feature spaces to fit for ``[features] domains = setting`` with ``treebanks`` treebanks."""
    if treebanks < 2:
        return (SHARED,)
    return (SHARED, PER_CORPUS) if setting == "auto" else (setting,)


def corpus_copy(corpus: str, name: str) -> str:
    """The name of feature ``name``'s copy that fires on corpus ``corpus`` alone (``[gum] name``)."""
    return f"[{corpus}] {name}"


def with_corpus_copies(matrix, corpus: str):
    """``matrix`` (a :class:`~ranker.features.CandidateMatrix` of corpus ``corpus``) with every
    column doubled: the shared column, then its copy for ``corpus`` (:func:`corpus_copy`)."""
    X = as_compact(matrix.X).tocsr()
    both = CompactMatrix.from_csr(sp.hstack([X, X], format="csr"))
    return matrix._replace(X=both, names=(*matrix.names, *(corpus_copy(corpus, n) for n in matrix.names)))


def in_space(matrix, corpus: str, mode: str):
    """``matrix`` of corpus ``corpus`` in the feature space of ``mode`` (:data:`SHARED` or :data:`PER_CORPUS`)."""
    return with_corpus_copies(matrix, corpus) if mode == PER_CORPUS else matrix


def stacked(matrices: Sequence):
    """One :class:`~ranker.features.CandidateMatrix` of several (rows one after the other; the
    columns the union of theirs, in order of first appearance): the held-out splits of several
    treebanks, on which σ², the rule and the feature space are chosen together."""
    if len(matrices) == 1:
        return matrices[0]
    names = tuple(dict.fromkeys(n for m in matrices for n in m.names))
    X = vstack([m.restrict(names) for m in matrices])
    starts = np.cumsum([0, *(int(m.offsets[-1]) for m in matrices[:-1])])
    offsets = np.concatenate([[0], *(m.offsets[1:] + s for m, s in zip(matrices, starts))]).astype(np.int64)
    ids = tuple(i for m in matrices for i in m.sentence_ids)
    return type(matrices[0])(X, offsets, names, ids)
