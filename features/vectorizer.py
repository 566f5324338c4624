"""From forests to one CSR matrix with sentence offsets, a stable feature index, and the cut-off.

Extraction names every property a split instantiates (sorted, so the column order depends on the
data only, never on dict order or process). The frequency cut-off of Crouch et al. (2002, section
4) keeps a property if it occurs in at least N consistent candidates of the training data; the
kept names, in order, are the feature index saved beside the model. Nothing here caches: the
pipeline keeps extracted matrices and fitted family tables in the store, keyed by their content
(:mod:`ranker.pipeline.feature_cache`), as bytes :mod:`.matrix_bytes` writes; the families and the
cut-off come from a feature configuration (:mod:`.feature_sets`).

Speed (``benchmarks/bench_features.py``): families whose output depends on the tree alone run once
per distinct tree of a sentence (Link Grammar's linkages share constituent trees, ~2.75 candidates
per distinct tree on WSJ); node families run once per distinct subtree of a forest (the store
makes equal subtrees one object: 11.7 node occurrences per distinct subtree on WSJ); a tree's part
of a row is one array shared by its candidates; families share one walk and tag list per tree
(:func:`ranker.features.base.facts`); and extraction can run in forked worker processes over runs of
sentences. The matrix is the same for any number of workers and any sharing.
"""
from __future__ import annotations

import gc
from typing import Iterable, NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp

from ranker.matrices.compact import CompactMatrix, as_compact
from ranker.matrices.compact import vstack as vstack_compact

from .registry import FeatureConfigError

class CandidateMatrix(NamedTuple):
    """Property values of every candidate of a split: rows in forest order, sentence offsets.

    ``X`` is a :class:`~ranker.matrices.compact.CompactMatrix`: a property present once is a column
    id alone (4 bytes), other values are kept beside (``X.tocsr()`` gives scipy's CSR). A matrix
    built by hand may hold a scipy sparse ``X``; every function here takes either.
    """

    X: CompactMatrix
    offsets: np.ndarray           # (n_sentences + 1,) int64
    names: tuple[str, ...]        # column names
    sentence_ids: tuple[str, ...]

    def groups(self) -> np.ndarray:
        """Per-row sentence number, the ``groups`` argument of the rankers."""
        return np.repeat(np.arange(len(self.offsets) - 1), np.diff(self.offsets))

    def restrict(self, names: Sequence[str], rows: np.ndarray | None = None) -> CompactMatrix:
        """The matrix with exactly the columns ``names`` in that order (absent ones are zero).

        Only the kept entries are copied (a column renumbering, no product with a selection
        matrix); ``rows``, a boolean mask, keeps only those rows in the same pass.
        """
        pos = {n: i for i, n in enumerate(self.names)}
        return as_compact(self.X).select_columns([pos.get(n, -1) for n in names], rows)


class _Chunk(NamedTuple):
    """Rows of a run of sentences with chunk-local column numbers (merged by :func:`_assemble`)."""

    names: list[str]              # local column number -> property name
    indptr: np.ndarray
    cols: np.ndarray              # int32: half the bytes the parent receives and holds
    vals: np.ndarray
    sizes: list[int]              # candidates per sentence kept
    ids: list[str]


def _sum_pieces(pieces: list) -> tuple[np.ndarray, np.ndarray]:
    """One row from ``(columns, values)`` pieces: each column once, in column order, values added.

    A tree's row is the sum of its distinct subtrees' parts: adding them as arrays (one sort per
    tree) instead of entry by entry in a dict is what keeps 50 near-identical n-best trees cheap.
    """
    if len(pieces) == 1:
        cols, vals = pieces[0]
    else:
        cols = np.concatenate([p[0] for p in pieces])
        vals = np.concatenate([p[1] for p in pieces])
    uniq, inv = np.unique(cols, return_inverse=True)
    if len(uniq) == len(cols):
        order = np.argsort(cols, kind="stable")
        return cols[order], vals[order]
    return uniq.astype(np.int32, copy=False), np.bincount(inv, weights=vals, minlength=len(uniq))


def family_kinds(families: list) -> tuple[list, list, list]:
    """``(node families, tree families, candidate families)``: how extraction shares each kind's work.

    Raises
    ------
    FeatureConfigError
        If a family that learns from training data has not been fitted.
    """
    from .base import NodeFamily

    for fam in families:
        if fam.needs_fit and not fam.fitted:
            raise FeatureConfigError(f"feature family {fam.name!r} must be fitted on training data "
                                     "before extraction (ranker.pipeline.feature_cache.fit_families)")
    return ([f for f in families if isinstance(f, NodeFamily)],
            [f for f in families if f.per_tree and not isinstance(f, NodeFamily)],
            [f for f in families if not f.per_tree])


def subtree_parts(tree, by_node: dict, part) -> list:
    """``part(node, up)`` for every node of ``tree`` (``up``: its parent's category), in pre-order.

    Each is computed once per distinct (subtree, parent category, words) and kept in ``by_node``,
    one dict per forest: the forest's equal subtrees are one object, so a node's identity with its
    parent's category and the sentence is its key.
    """
    from .base import facts

    words_id = id(tree.words)
    out = []
    for n, up in facts(tree).walk:
        key = (id(n), up, words_id)
        got = by_node.get(key)
        if got is None:
            got = by_node[key] = part(n, up)
        out.append(got)
    return out


def candidate_parts(forest, kinds: tuple[list, list, list], fill, close):
    """``(candidate, its tree's parts, its own part)`` for each candidate of ``forest``: the walk every extraction shares.

    ``kinds`` is :func:`family_kinds`'s split; ``fill(local, pairs)`` adds a family's ``(name,
    value)`` pairs to a dict and ``close(local)`` turns the dict into a part. A tree's parts (a
    part per node from the node families, see :func:`subtree_parts`, then one of its tree-level
    properties) are made once per distinct tree of the forest and given as the same list to each
    of its candidates; a candidate's own part (the candidate families) is None when there are none.
    Every family sees the forest first (:meth:`~ranker.features.base.Family.begin_forest`).
    """
    node_fams, tree_fams, cand_fams = kinds
    for fam in (*node_fams, *tree_fams, *cand_fams):
        fam.begin_forest(forest)
    by_tree: dict = {}   # equal trees (by value): linkages of one sentence often share their tree
    by_node: dict = {}
    for cand in forest.candidates:
        t = cand.tree
        parts = by_tree.get(t)
        if parts is None:
            parts = []
            if node_fams:
                def node_part(n, up, t=t):
                    local: dict = {}
                    for fam in node_fams:
                        fill(local, fam.node_properties(n, up, t))
                    return close(local)

                parts = subtree_parts(t, by_node, node_part)
            rest: dict = {}
            for fam in node_fams:
                fill(rest, fam.tree_properties(t))
            for fam in tree_fams:
                fill(rest, fam(cand))
            parts.append(close(rest))
            by_tree[t] = parts
        own = None
        if cand_fams:
            local = {}
            for fam in cand_fams:
                fill(local, fam(cand))
            own = close(local)
        yield cand, parts, own


def _extract_chunk(forests: Iterable, families: list) -> _Chunk:
    """Run the families over the forests, sharing what equal trees and equal subtrees have in common.

    Tree-only families run once per distinct tree of a sentence; node families
    (:class:`ranker.features.base.NodeFamily`) once per distinct (subtree, parent category, words)
    of a forest, the store having made equal subtrees one object.
    """
    node_fams, tree_fams, cand_fams = family_kinds(families)
    vocab: dict[str, int] = {}
    lengths: list[int] = []
    cols: list[np.ndarray] = []    # row pieces: a tree's part is one array shared by its candidates
    vals: list[np.ndarray] = []
    sizes: list[int] = []
    ids: list[str] = []

    def arrays(row: dict) -> tuple[np.ndarray, np.ndarray]:
        return (np.fromiter(row.keys(), dtype=np.int32, count=len(row)),
                np.fromiter(row.values(), dtype=np.float64, count=len(row)))

    def add(row: dict, pairs) -> None:
        for name, value in pairs:
            j = vocab.get(name)
            if j is None:
                j = vocab[name] = len(vocab)
            row[j] = row.get(j, 0.0) + value

    kinds = (node_fams, tree_fams, cand_fams)
    for forest in forests:
        if not forest.candidates:
            continue
        summed: dict = {}   # id(a tree's parts) -> its row part, shared by the tree's candidates
        for cand, parts, own in candidate_parts(forest, kinds, add, arrays):
            base = summed.get(id(parts))
            if base is None:
                base = summed[id(parts)] = _sum_pieces(parts)
            cols.append(base[0])
            vals.append(base[1])
            length = len(base[0])
            if own is not None and len(own[0]):
                # A name both parts give ends up twice in the row; _assemble adds such duplicates.
                cols.append(own[0])
                vals.append(own[1])
                length += len(own[0])
            lengths.append(length)
        sizes.append(len(forest.candidates))
        ids.append(forest.sentence.id)
    indptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return _Chunk(list(vocab), indptr,
                  np.concatenate(cols) if cols else np.zeros(0, dtype=np.int32),
                  np.concatenate(vals) if vals else np.zeros(0, dtype=np.float64), sizes, ids)


class _Compact(NamedTuple):
    """A chunk's rows made canonical where they were extracted (:func:`_canonical`), columns chunk-local."""

    names: list[str]              # local column number -> property name, sorted
    X: CompactMatrix              # rows sorted by column, a name given twice added, ones as ids alone
    sizes: list[int]              # candidates per sentence kept
    ids: list[str]


def _canonical(c: _Chunk) -> _Compact:
    """The chunk's rows in their final form but for the column numbers, which stay the chunk's own.

    Its names are numbered in sorted order, so the numbers of the whole matrix (the sorted union of
    every chunk's names) keep each row's order: the parent only renumbers (:func:`_assemble`).
    Done in the worker, on a chunk's raw rows (12 bytes an entry), this keeps the sort, the
    float64 values and their pickled copies out of the parent, and sends it about 4 bytes an
    entry instead of 12.
    """
    by_name = sorted(range(len(c.names)), key=c.names.__getitem__)
    rank = np.empty(len(by_name), dtype=np.int32)
    rank[by_name] = np.arange(len(by_name), dtype=np.int32)
    index_dtype = np.int32 if len(c.cols) < np.iinfo(np.int32).max else np.int64
    X = sp.csr_matrix((len(c.indptr) - 1, len(by_name)), dtype=np.float64)   # scipy wants one index type
    X.data, X.indptr = c.vals, c.indptr.astype(index_dtype)
    X.indices = np.take(rank, c.cols).astype(index_dtype, copy=False) if len(c.cols) else \
        np.zeros(0, dtype=index_dtype)
    X.has_sorted_indices = False
    X.sum_duplicates()                 # sorted columns, duplicates added (in place)
    return _Compact([c.names[i] for i in by_name], CompactMatrix.from_csr(X), c.sizes, c.ids)


def _assemble(chunks: Iterable) -> CandidateMatrix:
    """Stack chunks in order; columns are the sorted union of names (a function of the data alone).

    ``chunks`` may be an iterator (the worker pool's results as they arrive), of raw chunks
    (:class:`_Chunk`, made canonical here) or of chunks the workers made canonical already
    (:class:`_Compact`: the pool's). Each is kept compact, with its own column numbers, until every
    name is known; then, chunk by chunk, its columns take their sorted numbers (the chunk's
    names were sorted, so each row stays sorted) and the chunks are stacked, each released
    once copied. So the parent holds the compact matrix and one chunk beside it, never
    a float64 matrix of the whole split nor a chunk's float64 values (the GUM training split's
    2 million candidates with 250 to a sentence took 4.3 GB in the parent before). The matrix is
    the one a single float64 matrix made canonical gives, array for array.
    """
    vocab: dict[str, int] = {}
    held = []                          # (compact rows with local columns, local column -> vocabulary id)
    sizes, ids = [], []
    for c in chunks:
        if isinstance(c, _Chunk):
            c = _canonical(c)
        local = np.fromiter((vocab.setdefault(n, len(vocab)) for n in c.names), dtype=np.int32,
                            count=len(c.names))
        held.append((c.X, local))
        sizes.extend(c.sizes)
        ids.extend(c.ids)
        del c, local
    names = sorted(vocab)
    # vocabulary order -> sorted order
    order = np.empty(len(vocab), dtype=np.int32)
    order[np.fromiter((vocab[n] for n in names), dtype=np.int64, count=len(names))] = \
        np.arange(len(names), dtype=np.int32)
    del vocab
    parts = []
    while held:                        # front to back: a chunk's old column ids go as its new ones come
        X, local = held.pop(0)
        new_of_local = order[local]
        parts.append(CompactMatrix((X.shape[0], len(names)),
                                   [p._replace(indices=np.take(new_of_local, p.indices)) for p in X.parts]))
        del X, local, new_of_local
    X = vstack_compact(parts, consume=True) if parts else CompactMatrix.empty(0, len(names))
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return CandidateMatrix(X, offsets, tuple(names), tuple(ids))


def _collected(chunk: _Compact) -> _Compact:
    """``chunk``, once the run's reference cycles are collected.

    A worker forked inside a stage inherits its paused collector (:mod:`ranker.gcpause`), so the
    cycles reading and extracting a run leaves (about 1,800 objects a GUM sentence) were never
    freed: each worker grew by 9 MB a run of 64 sentences, to 700 MB over GUM's training split.
    """
    gc.collect()
    return chunk


def _work_on_forests(state: dict, span: tuple[int, int]) -> _Compact:
    return _collected(_canonical(_extract_chunk(state["forests"][span[0]:span[1]], state["families"])))


def _work_on_store(state: dict, sentence_ids: list[str]) -> _Compact:
    from ranker.store import Store

    with Store.open(state["path"], readonly=True) as st:
        chunk = _extract_chunk((st.forest(sid, state["source"], state.get("evidence"))
                                for sid in sentence_ids), state["families"])
    return _collected(_canonical(chunk))


#: Most sentences in one worker's run: a run's raw rows (12 bytes an entry until made canonical)
#: and its pickled result are held at once, so a run of a big split's sixteenth (640 GUM training
#: sentences, 40 million entries) took a GB in each worker; 64 sentences take tens of MB.
RUN_SENTENCES = 64


def _spans(n: int, workers: int, most: int = RUN_SENTENCES) -> list[tuple[int, int]]:
    """Contiguous runs of sentences, several per worker so that long sentences even out, none longer than ``most``."""
    k = max(1, min(n, max(workers * 8, -(-n // most))))
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def _pool_map(fn, tasks: list, workers: int, state: dict, progress: str | None = None):
    """The chunks of ``tasks`` in order, yielded as the workers finish them.

    ``state`` (forests or the store's path, and the families) reaches the workers without being
    pickled in the local pool (inherited by fork), pickled by another executor.
    """
    from ranker.parallel import ordered_map

    return ordered_map(fn, tasks, workers, progress, state=state)


def extract(forests: Iterable, families: list, workers: int = 1) -> CandidateMatrix:
    """Run every family over every candidate of every forest (sentences with none give no rows).

    Parameters
    ----------
    forests : iterable of Forest
    families : list of Family
        Built families (:meth:`~.feature_sets.FeatureSet.build`), fitted where they need it.
    workers : int
        Processes to extract in (data-parallel over sentences, forked so nothing is pickled on
        the way in); the result is identical for any number.

    Returns
    -------
    CandidateMatrix
    """
    if workers <= 1:
        return _assemble([_extract_chunk(forests, families)])
    forests = list(forests)
    return _assemble(_pool_map(_work_on_forests, _spans(len(forests), workers), workers,
                               {"forests": forests, "families": families}))


def extract_stored(store, sentence_ids: Sequence[str], source: str | None, families: list,
                   workers: int = 1, progress: str | None = None,
                   evidence: str | None = None) -> CandidateMatrix:
    """The matrix of stored sentences' candidates (rows in the order of ``sentence_ids``).

    Nothing is cached here: the pipeline keeps matrices in the store keyed by their content
    (:mod:`ranker.pipeline.feature_cache`). With ``workers`` > 1 each process reads its own
    sentences from the store, so the re-parsing of candidate trees is parallel too. ``evidence``
    names the source whose candidates each forest carries for the evidence families.

    Raises
    ------
    FeatureConfigError
        If a family reads evidence and ``evidence`` is None.
    """
    check_evidence(families, evidence)
    sids = list(sentence_ids)
    if workers <= 1:
        return _assemble([_extract_chunk((store.forest(sid, source, evidence) for sid in sids),
                                         families)])
    return _assemble(_pool_map(_work_on_store, [sids[a:b] for a, b in _spans(len(sids), workers)],
                               workers, {"path": str(store.path), "source": source,
                                         "evidence": evidence, "families": families}, progress))


def check_evidence(families: list, evidence: str | None) -> None:
    """Refuse families that read a second source's candidates when none is given (else they would
    fail in a worker, or a model would be scored without the evidence it was trained with)."""
    wanting = [f.name for f in families if f.needs_evidence]
    if wanting and evidence is None:
        raise FeatureConfigError(f"feature families {', '.join(wanting)} read a second source's "
                                 "candidates of each sentence: name that source in the config's "
                                 "[evidence] source")


def stack_rows(parts: Iterable[CandidateMatrix]) -> CandidateMatrix:
    """The rows of several matrices one after the other, columns the sorted union of their names.

    Equal to extracting their sentences together (the column order is a function of the data).
    """
    parts = list(parts)
    names = sorted(set().union(*(m.names for m in parts)))
    pos = {n: i for i, n in enumerate(names)}
    blocks = [as_compact(m.X).map_columns(np.fromiter((pos[n] for n in m.names), dtype=np.int32,
                                          count=len(m.names)), len(names)) for m in parts]
    X = vstack_compact(blocks) if blocks else CompactMatrix.empty(0, 0)
    sizes = np.concatenate([np.diff(m.offsets) for m in parts]) if parts else np.zeros(0, np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return CandidateMatrix(X, offsets, tuple(names), tuple(s for m in parts for s in m.sentence_ids))


def select_sentences(m: CandidateMatrix, sentence_ids: Sequence[str]) -> CandidateMatrix:
    """The rows of ``sentence_ids`` (in that order; ids without rows are skipped) as a matrix of its own.

    Columns are the properties those rows instantiate, sorted, exactly as if they had been
    extracted alone (unused columns of ``m`` are dropped).
    """
    where = {sid: k for k, sid in enumerate(m.sentence_ids)}
    picked = [where[sid] for sid in sentence_ids if sid in where]
    starts, ends = m.offsets[picked], m.offsets[np.asarray(picked, dtype=np.int64) + 1]
    rows = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends)]) if picked else \
        np.zeros(0, dtype=np.int64)
    X = as_compact(m.X).take_rows(rows)
    used = X.used_columns()
    X = X.select_columns(used)
    offsets = np.zeros(len(picked) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    return CandidateMatrix(X, offsets, tuple(m.names[i] for i in used),
                           tuple(m.sentence_ids[k] for k in picked))


def frequency_cutoff(matrix: CandidateMatrix, weights: np.ndarray, min_count: int) -> tuple[str, ...]:
    """Names of the properties instantiated in at least ``min_count`` consistent candidates.

    Parameters
    ----------
    matrix : CandidateMatrix
        Training candidates.
    weights : ndarray, shape (n_candidates,)
        Consistency weights; a candidate counts as consistent when its weight is positive.
    min_count : int

    Returns
    -------
    tuple of str
        The feature index, in the matrix's column order.
    """
    seen = as_compact(matrix.X).column_counts(np.asarray(weights) > 0)
    return tuple(n for n, k in zip(matrix.names, seen) if k >= min_count)
