"""The training rows every log-linear fit learns from, and their key (what they are made of).

The training matrix is built once: properties kept by the cut-off, training corpora stacked, and
the sentences the paper's filters drop removed before any fit, so every fit (each σ² of the grid,
each point of the learning curve) streams only the rows it learns from and the filters inside
``fit`` find nothing more to drop. Its properties are numbered most frequent first and its
matrix is narrow (:mod:`ranker.models.narrow`: 16-bit ids for the first 65,536 columns), which
makes it about 40% smaller than compact and each evaluation faster.

Which sentences a fit learns from is known before any row is built (:func:`row_plan`), and the
rows are named by what they are made of (:func:`rows_key`), so a stored fit of them is found
without building them (:class:`PlannedRows`). This module is part of that key
(:func:`rows_code`): an edit here refits once; the fits themselves are :mod:`.training`'s.
"""
from __future__ import annotations

import sys
from functools import lru_cache
from typing import NamedTuple, Sequence

import numpy as np

from ..matrices.compact import CompactMatrix, as_compact, sentence_slabs
from ..memory import release_free_heap
from ..models.copies import CorpusCopies
from ..models.groups import group_offsets
from ..models.narrow import NARROW_COLUMNS, NarrowMatrix, narrow_vstack, split_columns
from ..models.objective import drop_sentence_constants, frequency_order
from ..models.training_set import TrainingRows, select_training_rows
from .cache import data_digest

class TrainingData(NamedTuple):
    """The rows every fit learns from, with what the filters did to get them."""

    X: NarrowMatrix               # candidates of the kept sentences, kept properties only
    y: np.ndarray                 # consistency weights
    groups: np.ndarray            # sentence of each row, ascending
    full: np.ndarray              # bool, candidate is a full parse
    names: tuple[str, ...]        # the feature index (columns of X), most frequent first
    survivors: TrainingRows       # the filters over every training sentence, before removal
    gain: np.ndarray | None = None  # candidate F in [0, 1] (minimum-risk training), else None
    copies: CorpusCopies | None = None  # each treebank's copies (the names after X's columns), else None
    key: str = ""                 # digest of what the rows are made of (rows_key), or "": fits key them by content


#: Entries of a training block restricted at a time. The column renumbering and the
#: sentence-constant test need a few bytes a visited entry; over slabs of whole sentences they stay
#: tens of MB instead of GBs on the 800 million entries of the WSJ sample plus conll2000.
SLAB_ENTRIES = 1 << 24


def _columns(m, names: Sequence[str]) -> list[int]:
    """``m``'s column of each of ``names`` (-1 where it has none)."""
    pos = {n: i for i, n in enumerate(m.names)}
    return [pos.get(n, -1) for n in names]


def _kept_counts(m, names: Sequence[str], rows: np.ndarray, slab: int) -> np.ndarray:
    """Entries of each of ``names`` in the block's kept rows, counted slab by slab."""
    columns = np.asarray(_columns(m, names), dtype=np.int64)
    X = as_compact(m.X)
    offsets = np.asarray(m.offsets, dtype=np.int64)
    counts = np.zeros(X.shape[1], dtype=np.int64)
    for a, b in sentence_slabs(X, offsets, slab):
        ra, rb = int(offsets[a]), int(offsets[b])
        if rows[ra:rb].any():
            counts += X.row_range(ra, rb).column_counts(rows[ra:rb])
    return np.where(columns >= 0, counts[np.maximum(columns, 0)], 0)


def _kept_rows(m, names: Sequence[str], rows: np.ndarray, slab: int) -> list[NarrowMatrix]:
    """The block's kept rows on the kept properties, sentence constants dropped, slab by slab.

    Each slab is renumbered to the feature index and filtered by the row mask in one pass, then
    the properties constant over a sentence's candidates are dropped (they cancel from the
    objective; dropping them here, once, every fit streams fewer nonzeros: on the WSJ sample 213
    to 177 million), then split into the narrow layout (its own copy of every kept entry, so
    the block can go). Filters keep whole sentences, and every step works sentence by sentence,
    so the slabs stacked are exactly the whole block done at once.
    """
    columns = _columns(m, names)
    n_low = min(len(names), NARROW_COLUMNS)
    X = as_compact(m.X)
    offsets = np.asarray(m.offsets, dtype=np.int64)
    groups = m.groups()
    out = []
    for a, b in sentence_slabs(X, offsets, slab):
        ra, rb = int(offsets[a]), int(offsets[b])
        r = rows[ra:rb]
        if not r.any():
            continue
        part = X.row_range(ra, rb).select_columns(columns, None if r.all() else r)
        kept = groups[ra:rb][r]
        out.append(split_columns(drop_sentence_constants(part, group_offsets(kept, len(kept))), n_low))
    return out


def _consistent_counts(m, w: np.ndarray) -> dict[str, int]:
    """Instantiations of each of ``m``'s properties in its consistent candidates (weight > 0)."""
    return dict(zip(m.names, as_compact(m.X).column_counts(np.asarray(w) > 0).tolist()))


def pooled_cutoff(blocks: Sequence, weights: Sequence[np.ndarray], cutoff: int) -> tuple[str, ...]:
    """Names of the properties instantiated in at least ``cutoff`` consistent candidates of the
    blocks together (in order of first appearance): :func:`ranker.features.frequency_cutoff` of
    several treebanks."""
    seen: dict[str, int] = {}
    for m, w in zip(blocks, weights):
        for n, k in _consistent_counts(m, w).items():
            seen[n] = seen.get(n, 0) + k
    return tuple(n for n, k in seen.items() if k >= cutoff)


def copied_names(blocks: Sequence, weights: Sequence[np.ndarray], cutoff: int) -> list[tuple[str, ...]]:
    """For each block (a treebank), the names of the properties whose copy for its corpus the
    cut-off keeps: instantiated ``cutoff`` times in its consistent candidates alone, as the
    cut-off counts a matrix doubled per corpus (:func:`ranker.pipeline.domains.with_corpus_copies`)."""
    return [tuple(n for n, k in _consistent_counts(m, w).items() if k >= cutoff) for m, w in zip(blocks, weights)]


def with_copies(data: "TrainingData", copied: Sequence[Sequence[str]], corpora: Sequence[str],
                block_rows: Sequence[int]) -> "TrainingData":
    """``data`` with a copy of its features per corpus beside the shared one (Daumé III 2007), as
    the objective makes them (:mod:`ranker.models.copies`): no entry is copied.

    ``data`` was made (:func:`training_data`) from blocks of ``block_rows`` rows each; the first
    ``len(corpora)`` (the treebanks) are corpora ``corpora``, the rest (extra corpora) of none.
    ``copied[c]`` names the properties whose copy for corpus ``c`` the cut-off keeps
    (:func:`copied_names`). The copies' names (:func:`ranker.pipeline.domains.corpus_copy`)
    follow the shared names, corpus by corpus, each corpus's in the shared names' order.
    """
    from .domains import corpus_copy

    at = {n: i for i, n in enumerate(data.names)}
    columns, names = [], list(data.names)
    for corpus, kept in zip(corpora, copied):
        cols = sorted(at[n] for n in kept if n in at)
        columns.append(np.asarray(cols, dtype=np.int64))
        names += [corpus_copy(corpus, data.names[i]) for i in cols]
    keep = data.survivors.row_mask
    starts = np.cumsum([0, *block_rows]).tolist()
    corpus = np.concatenate([np.full(int(np.count_nonzero(keep[a:b])), c if c < len(corpora) else -1, np.int32)
                             for c, (a, b) in enumerate(zip(starts, starts[1:]))])
    if len(corpus) != len(data.y):
        raise ValueError(f"{len(corpus)} rows of corpora for {len(data.y)} training rows")
    return data._replace(names=tuple(names), copies=CorpusCopies.of(corpus, columns))


def training_data(blocks: list, weights: Sequence[np.ndarray], cutoff: int,
                  qualities: dict[str, tuple[str, ...]], template,
                  gains: Sequence[np.ndarray] | None = None, consume: bool = False,
                  slab: int = SLAB_ENTRIES, counted: int = 1) -> TrainingData:
    """Stack the training corpora's matrices, apply the cut-off and the template's filters.

    Parameters
    ----------
    blocks : list of CandidateMatrix
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
    consume : bool
        Empty ``blocks`` as they are used, so that each block's memory is released as soon as
        its kept rows are taken (when the caller holds no other reference to it): the whole
        training data then never sits in memory beside the kept rows.
    slab : int
        Entries restricted at a time (:data:`SLAB_ENTRIES`); the result is the same for any.
    counted : int
        The first ``counted`` blocks are treebanks (the main one and those of ``[[data.also]]``):
        the cut-off counts the consistent candidates of them all, so a property of one of them
        alone is kept as it would be were that treebank trained on by itself.
    """
    from ..features import frequency_cutoff

    plan = row_plan(blocks, weights, qualities, template, gains)
    names = frequency_cutoff(blocks[0], weights[0], cutoff) if counted == 1 else \
        pooled_cutoff(blocks[:counted], weights[:counted], cutoff)
    survivors = plan.survivors
    keep = survivors.row_mask
    # Properties most frequent first (entries in the kept rows): the narrow layout's numbering.
    counts, start = np.zeros(len(names), dtype=np.int64), 0
    for m in blocks:
        counts += _kept_counts(m, names, keep[start:start + m.X.shape[0]], slab)
        start += m.X.shape[0]
    old_of_new, _ = frequency_order(counts)
    if old_of_new is not None:
        names = [names[i] for i in old_of_new]
    # Block by block and slab by slab, so temporaries are a slab's; the kept entries exist once
    # as slabs and once stacked, each slab released as it is copied (vstack with consume).
    parts = []
    start = 0
    todo = blocks if consume else list(blocks)
    while todo:
        m = todo.pop(0)
        n_rows = m.X.shape[0]
        parts += _kept_rows(m, names, keep[start:start + n_rows], slab)
        start += n_rows
        del m
    X = narrow_vstack(parts, consume=True) if parts else \
        split_columns(CompactMatrix.empty(0, len(names)), min(len(names), NARROW_COLUMNS))
    release_free_heap()     # the slabs' temporaries, for the fits to come
    return TrainingData(X, plan.y, plan.groups, plan.full, tuple(names), survivors, plan.gain)


class RowPlan(NamedTuple):
    """What the filters make of a training set's rows, known before any row is read (:func:`row_plan`)."""

    y: np.ndarray                 # consistency weights of the kept rows
    groups: np.ndarray            # sentence of each kept row, ascending
    full: np.ndarray              # bool, each kept row's candidate is a full parse
    survivors: TrainingRows       # the filters over every training sentence, before removal
    gain: np.ndarray | None       # each kept row's candidate F (minimum risk), else None


def row_plan(blocks: Sequence, weights: Sequence[np.ndarray], qualities: dict[str, tuple[str, ...]],
             template, gains: Sequence[np.ndarray] | None = None) -> RowPlan:
    """The template's filters over the blocks' rows, from their weights and forests alone.

    Which sentences a fit learns from, and every kept row's weight, sentence and quality, need no
    property of any candidate: only the blocks' sentence offsets, the weights and the forests'
    qualities. :func:`training_data` builds its rows on this plan; a rule of a grid whose fits
    are stored is counted and keyed from it without reading its matrix (:class:`PlannedRows`).
    """
    y = np.concatenate(weights)
    groups = np.concatenate([m.groups() + k * 10 ** 7 for k, m in enumerate(blocks)])
    full = np.array([q == "full" for m in blocks for sid in m.sentence_ids for q in qualities[sid]],
                    dtype=bool)
    survivors = select_training_rows(y, group_offsets(groups, len(y)),
                                     max_parses=template.max_parses,
                                     full=full if template.full_parses_only else None,
                                     proper_subset=template.proper_subset)
    keep = survivors.row_mask
    return RowPlan(y[keep], groups[keep], full[keep], survivors,
                   None if gains is None else np.concatenate(gains)[keep])


@lru_cache(maxsize=1)
def rows_code() -> str:
    """A digest of the source of every module that turns a stored matrix into training rows.

    A key of the rows' inputs (:func:`rows_key`), unlike a digest of the rows, does not change
    when the code building them does: this part of it does, so a stored fit is never read for
    rows that code would now build otherwise (any edit of these modules refits once).
    """
    import hashlib
    import inspect

    from ..features import vectorizer
    from ..matrices import compact
    from ..models import copies, narrow, objective, training_set
    from . import domains, stored_rows

    h = hashlib.sha1()
    for module in (sys.modules[__name__], vectorizer, compact, copies, narrow, objective, training_set, stored_rows,
                   domains):
        h.update(inspect.getsource(module).encode())
    return h.hexdigest()


def rows_key(matrix_keys: Sequence[str], weights: Sequence[np.ndarray], plan: RowPlan, template, cutoff: int,
             counted: int, space: str, parts: dict | None = None) -> str:
    """The key of a training set's rows made from what they are made of, before they are built.

    The stored matrices' keys (their feature set, learned tables and forests:
    :func:`ranker.pipeline.feature_cache.cached_matrix`), every row's weight, the plan's kept
    rows, qualities, gains and filter counts, the template's filters, the cut-off, the blocks
    it counts, the feature space and ``parts`` (its copies' corpora and blocks), and the code
    that builds rows (:func:`rows_code`). Every fit of the rows is keyed by it
    (:class:`TrainingData`'s ``key``), so a warm rerun finds a rule's fits without building its
    rows (GUM's grid of six rules built them all again: 3.5 of a warm rerun's 5.5 minutes).
    """
    s = plan.survivors
    arrays = [*weights, plan.y, plan.groups, plan.full, s.row_mask, s.group_mask,
              *(() if plan.gain is None else (plan.gain,))]
    return data_digest(arrays, {"matrices": list(matrix_keys), "cutoff": int(cutoff), "counted": int(counted),
                                "filters": {"max_parses": template.max_parses,
                                            "full_parses_only": template.full_parses_only,
                                            "proper_subset": template.proper_subset},
                                "dropped": {k: int(v) for k, v in s.dropped.items()},
                                "space": space, "parts": parts or {}, "code": rows_code()})


class PlannedRows:
    """A training set's rows, built when a fit first needs them (a :class:`TrainingData` then).

    ``key``, ``survivors`` and the kept rows' ``y``, ``groups``, ``full`` and ``gain`` are the
    plan's (:func:`row_plan`), known without reading the matrices; any other field (``X``,
    ``names``, ``copies``) builds the rows with ``build()``, kept until :meth:`release`. A fit
    keyed by ``key`` and stored is loaded without them (:func:`cached_fit`'s names given as a
    function), so a warm rerun of a rule grid builds only the rows it fits or curves from.
    """

    def __init__(self, key: str, plan: RowPlan, build):
        self.key, self.plan, self._build, self._data = key, plan, build, None
        self.y, self.groups, self.full, self.survivors, self.gain = plan

    @property
    def built(self) -> bool:
        """Whether the rows have been built."""
        return self._data is not None

    def rows(self) -> TrainingData:
        """The rows (built on the first call), keyed by :attr:`key`."""
        if self._data is None:
            got = self._build()
            if len(got.y) != len(self.y):
                raise ValueError(f"built {len(got.y)} training rows for a plan of {len(self.y)}")
            self._data = got._replace(key=self.key)
        return self._data

    def release(self) -> None:
        """Let the built rows go (built again if read again): the plan and the key stay."""
        self._data = None

    def _replace(self, **fields) -> TrainingData:
        return self.rows()._replace(**fields)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.rows(), name)
