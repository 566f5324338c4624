"""Several treebanks in one model: each corpus's features copied beside a shared copy (Daumé III 2007).

"Frustratingly easy domain adaptation" gives every feature of a sentence of corpus ``c`` a second
copy that fires on ``c`` alone. A model learns what holds across the corpora in the shared
weights and what holds in one corpus in that corpus's copies: a candidate of ``c`` is scored by
both. Text of no known corpus (``ranker apply`` on plain text) has no copy that fires, so it is
scored by the shared weights alone: a model's columns absent from a matrix are zero
(:meth:`ranker.features.CandidateMatrix.restrict`).

``[features] domains`` says whether the copies are made (``per-corpus``), not (``shared``: one
feature space for every corpus, the treebanks simply pooled), or both are fitted and held-out
chooses (``auto``). With one corpus there is nothing to copy: ``shared`` alone.

The training rows are not doubled: the objective makes the copies (:mod:`ranker.models.copies`,
a row of corpus ``c`` scored by the shared weights and ``c``'s copies), so the per-corpus space
trains on the shared space's rows (:func:`ranker.pipeline.training_rows.with_copies`). The held-out
and test matrices a model of the per-corpus space scores are doubled here
(:func:`with_corpus_copies`): their columns are then the model's, by name.

Every front that scores stored sentences with a model (``ranker run``'s select stage, ``ranker
select``, ``ranker apply``, the page) builds their rows with :func:`model_rows`, so a model with
copies of a sentence's corpus scores it by the shared weights and those copies wherever it is
scored; a retrain learns the copies of the corpora its sentences are of (:func:`row_copies`).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

import numpy as np

from ..errors import RankerError
from ..models.copies import CorpusCopies
from ..matrices.compact import CompactMatrix, Part, as_compact, sentence_slabs, vstack

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


#: Entries of a part doubled at a time (bounded temporaries: two int64 an entry of the slab).
_SLAB_ENTRIES = 1 << 24


def _doubled(part: Part, d: int) -> Part:
    """Each row of ``part`` followed by its own entries again, their columns moved by ``d``.

    Part by part on the compact arrays, a slab of rows at a time: through scipy (a float64 CSR
    copy, then ``hstack``'s triplets) doubling GUM's and the WSJ sample's training matrices took
    more than the machine's 24 GB; this takes the result's arrays and a slab's temporaries.
    """
    lens = np.diff(part.indptr)
    n = part.nnz
    indices = np.empty(2 * n, dtype=part.indices.dtype)
    data = None if part.data is None else np.empty(2 * n, dtype=part.data.dtype)
    bounds = np.unique(np.searchsorted(part.indptr, np.arange(0, n, _SLAB_ENTRIES), side="right") - 1)
    for a, b in zip(bounds, [*bounds[1:], len(lens)]):
        e0, e1 = int(part.indptr[a]), int(part.indptr[b])
        if e0 == e1:
            continue
        row = np.repeat(np.arange(a, b), lens[a:b])
        first = part.indptr[row] + np.arange(e0, e1)   # 2 * row start + place in the row
        second = first + lens[row]
        indices[first] = part.indices[e0:e1]
        indices[second] = part.indices[e0:e1] + d
        if data is not None:
            data[first] = part.data[e0:e1]
            data[second] = part.data[e0:e1]
        del row, first, second
    return Part(part.indptr * 2, indices, data)


def with_corpus_copies(matrix, corpus: str):
    """``matrix`` (a :class:`~ranker.features.CandidateMatrix` of corpus ``corpus``) with every
    column doubled: the shared column, then its copy for ``corpus`` (:func:`corpus_copy`)."""
    X = as_compact(matrix.X)
    d = X.shape[1]
    both = CompactMatrix((X.shape[0], 2 * d), [_doubled(p, d) for p in X.parts])
    return matrix._replace(X=both, names=(*matrix.names, *(corpus_copy(corpus, n) for n in matrix.names)))


def in_space(matrix, corpus: str, mode: str):
    """``matrix`` of corpus ``corpus`` in the feature space of ``mode`` (:data:`SHARED` or :data:`PER_CORPUS`)."""
    return with_corpus_copies(matrix, corpus) if mode == PER_CORPUS else matrix


def in_columns(matrix, corpus: str | None, mode: str, names: Sequence[str]) -> CompactMatrix:
    """``in_space(matrix, corpus, mode).restrict(names)``, array for array, a slab of rows at a time.

    Each slab of about :data:`_SLAB_ENTRIES` entries is put in the space (doubled per corpus) and
    restricted to ``names`` before the next, and the restricted slabs are stacked as they are
    released: the doubled matrix is never held whole (GUM's held-out split doubled was 0.7 GB
    beside its restriction, its test split 0.8 GB: issue 45). ``matrix``'s rows may be read from
    the store on demand (:func:`ranker.pipeline.stored_rows.stored_matrix`): a slab is read at a time.
    """
    X = as_compact(matrix.X)
    n, d = X.shape
    if mode == PER_CORPUS:
        at = {name: i for i, name in enumerate((*matrix.names, *(corpus_copy(corpus, m) for m in matrix.names)))}
    else:
        at = {name: i for i, name in enumerate(matrix.names)}
    columns = [at.get(name, -1) for name in names]
    slabs = []
    for a, b in sentence_slabs(X, np.arange(n + 1), _SLAB_ENTRIES):   # runs of rows
        rows = X.row_range(a, b)
        if mode == PER_CORPUS:
            rows = CompactMatrix((b - a, 2 * d), [_doubled(p, d) for p in rows.parts])
        slabs.append(rows.select_columns(columns))
        del rows
    return vstack(slabs, consume=True) if slabs else CompactMatrix.empty(0, len(columns))


def stacked(matrices: Sequence):
    """One :class:`~ranker.features.CandidateMatrix` of several (rows one after the other; the
    columns the union of theirs, in order of first appearance): the held-out splits of several
    treebanks, on which σ², the rule and the feature space are chosen together."""
    if len(matrices) == 1:
        return matrices[0]
    names = tuple(dict.fromkeys(n for m in matrices for n in m.names))
    X = vstack([m.restrict(names) for m in matrices])
    ids = tuple(i for m in matrices for i in m.sentence_ids)
    return type(matrices[0])(X, stacked_offsets(matrices), names, ids)


def stacked_offsets(matrices: Sequence) -> np.ndarray:
    """Candidate offsets of the sentences of ``matrices`` stacked one after another (:func:`stacked`'s)."""
    if len(matrices) == 1:
        return matrices[0].offsets
    starts = np.cumsum([0, *(int(m.offsets[-1]) for m in matrices[:-1])])
    return np.concatenate([[0], *(m.offsets[1:] + s for m, s in zip(matrices, starts))]).astype(np.int64)


class HeldoutSplits:
    """The held-out splits of several treebanks (or one), given in a model's columns one split at a time.

    σ², the rule and the feature space are chosen on every treebank's held-out split together,
    each fit's candidates scored in that fit's columns: :meth:`rows` is what
    ``stacked([in_space(m, c, space) ...]).restrict(names)`` gives, array for array, but makes
    each split's rows in the space (doubled per corpus), restricts them and lets the doubled
    rows go before the next split's are made, then stacks the restricted ones as it releases
    them (:func:`in_columns`: a slab of each split at a time). Holding the doubled splits stacked
    for the whole grid, and their restriction to a fit's columns beside them, took 3 GB of GUM's
    and the WSJ sample's held-out (issue 45). A split whose rows are read on demand
    (:func:`ranker.pipeline.stored_rows.stored_matrix`) is read a slab at a time while its rows
    are made, so between fits the splits take no memory.
    """

    def __init__(self, matrices: Sequence, corpora: Sequence[str | None], keys: Sequence[str] | None = None):
        if len(matrices) != len(corpora) or not matrices or (keys is not None and len(keys) != len(matrices)):
            raise ValueError(f"{len(matrices)} held-out matrices for {len(corpora)} corpora"
                             f"{'' if keys is None else f' and {len(keys)} keys'}")
        self.matrices, self.corpora = tuple(matrices), tuple(corpora)
        self.keys = None if keys is None else tuple(keys)

    def key(self, space: str) -> str:
        """A name of :meth:`rows` in ``space`` by what they are made of ("" when the matrices' store
        keys were not given): the matrices' keys, corpora and the space; the columns are the
        training rows' (part of a search's key beside the training rows' own,
        :func:`ranker.pipeline.training.select_model`)."""
        from .cache import data_digest

        if self.keys is None:
            return ""
        # (the code making them is in the training rows' key beside which this one always stands:
        # training_rows.rows_code reads this module)
        return data_digest([], {"heldout": list(self.keys), "corpora": list(self.corpora), "space": space})

    def groups(self) -> np.ndarray:
        """Per-row sentence number over the splits (as :func:`stacked`'s), the ``groups`` argument of the rankers."""
        offsets = stacked_offsets(self.matrices)
        return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))

    def rows(self, space: str, names: Sequence[str]) -> CompactMatrix:
        """Every split's candidate rows in feature space ``space``, in the columns ``names``."""
        return vstack([in_columns(m, c, space, names) for m, c in zip(self.matrices, self.corpora)], consume=True)


#: A copy's name (:func:`corpus_copy`): its corpus (a corpus name's characters) and the shared name.
_COPY = re.compile(r"\[([A-Za-z0-9._+-]+)\] (.+)\Z", re.S)


@lru_cache(maxsize=8)
def model_copies(names: tuple[str, ...]) -> tuple[int, dict[str, np.ndarray]]:
    """``(d, columns)`` of a model's feature names: its first ``d`` names are the shared columns,
    the rest each corpus's copies, ``columns[c]`` the shared columns corpus ``c`` has a copy of.

    A model of the shared space has ``d == len(names)`` and no copies. The copies follow the shared
    names corpus by corpus, each corpus's in the shared names' order, as
    :func:`ranker.pipeline.training_rows.with_copies` writes them (the layout of the weights,
    :class:`~ranker.models.copies.CorpusCopies`); a model whose names are not so laid out is refused.
    """
    at: dict[str, int] = {}
    d = len(names)
    for i, n in enumerate(names):
        m = _COPY.match(n)
        if m and m.group(2) in at:   # the first copy of a shared name ends the shared columns
            d = i
            break
        at[n] = i
    columns: dict[str, list[int]] = {}
    last = ""
    for i, n in enumerate(names[d:], d):
        m = _COPY.match(n)
        col = at.get(m.group(2), -1) if m else -1
        corpus = m.group(1) if m else ""
        if col < 0 or (corpus in columns and (last != corpus or columns[corpus][-1] >= col)):
            raise RankerError(f"the model's feature {i} ({n!r}) is not a copy of one of its shared features in "
                              "the order ranker writes a model with a copy per corpus: a model file changed "
                              "by hand or by another program")
        last = corpus
        columns.setdefault(corpus, []).append(col)
    return d, {c: np.asarray(cols, dtype=np.int64) for c, cols in columns.items()}


def model_rows(matrix, corpus: str | None, names: Sequence[str]):
    """``matrix`` (candidate rows of sentences of corpus ``corpus``) in a model's columns ``names``.

    How every front scores stored sentences with a model: with the copies of ``corpus`` beside the
    shared columns where the model has them (a per-corpus model, :func:`in_space`), else the shared
    columns alone (a shared model, a corpus the model has no copy of, text of no known corpus:
    ``corpus`` None); a column the matrix lacks is zero.
    """
    names = tuple(names)
    copied = corpus is not None and corpus in model_copies(names)[1]
    return in_columns(matrix, corpus, PER_CORPUS if copied else SHARED, names)


def row_copies(names: Sequence[str], corpora: Sequence[str]) -> tuple[int, CorpusCopies | None]:
    """``(d, copies)``: a model's shared columns and the :class:`~ranker.models.copies.CorpusCopies`
    of training rows of corpora ``corpora`` (one a row), so that a fit (a retrain) learns the copies
    of the rows' corpora as ``ranker run`` trained them: the objective makes them (the rows hold
    the first ``d`` columns, the shared ones). A row of a corpus the model has no copy of is
    scored by the shared weights alone. ``copies`` is None for a model without copies.
    """
    d, columns = model_copies(tuple(names))
    if not columns:
        return d, None
    number = {c: k for k, c in enumerate(columns)}
    corpus = np.array([number.get(c, -1) for c in corpora], dtype=np.int32)
    return d, CorpusCopies.of(corpus, list(columns.values()))
