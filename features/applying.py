"""The properties a trained model has weights for, extracted straight into the model's columns.

``ranker apply`` scores new candidates with a model whose feature index is fixed. Training's
extraction (:func:`ranker.features.vectorizer.extract`) names every property a split instantiates,
grows a vocabulary of all of them, sorts it and builds the whole matrix, which ``restrict`` then
cuts down to the model's columns: on BLLIP lists most of what it builds is thrown away there.
Here each property is looked up in the model's index as it is produced and kept only when the
model knows it; the pieces a forest's distinct subtrees give are kept once (as in training) and a
chunk's rows are put together with a few array operations at the end, instead of a sort of each
tree's row. The result is the matrix ``extract(...).restrict(names)`` gives, array for array, so
scores and selections are those of ``ranker select`` (``tests/features/test_applying.py``).

The families run as in training (the same :class:`~ranker.features.base.NodeFamily` sharing:
once per distinct subtree and parent category of a forest, tree families once per distinct tree,
candidate families per candidate), but for the node families that read only a node's children's
shape (:class:`ByShape`), which run once per shape met in the whole input, not once per forest;
what is saved is everything after a property's name. With numba (the ``fast`` extra) the
Charniak-Johnson families it knows name their properties in compiled loops instead
(:mod:`ranker.features.compiled`), once per distinct node under its parent's category of a forest
and once per distinct tree as here: the same matrix, bit for bit (``tests/features/test_compiled.py``).
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp

from ranker.matrices.compact import CompactMatrix, vstack

from .base import children_shape, facts
from .vectorizer import CandidateMatrix, candidate_parts, family_kinds


class ModelColumns:
    """Extracts the properties named in ``names`` (a model's feature index, in its order).

    Parameters
    ----------
    families : list of Family
        Built families (:meth:`~ranker.features.feature_sets.FeatureSet.build`), none needing a fit.
    names : sequence of str
        The model's feature names; column ``j`` of the result is ``names[j]``.
    compiled : bool or None
        Whether the families :mod:`ranker.features.compiled` knows run in numba's loops: None
        when numba is there (:func:`~ranker.features.compiled.kernels`), True (ValueError without
        numba) or False (every family in Python). The matrix is the same.
    """

    def __init__(self, families: list, names: Sequence[str], compiled: bool | None = None):
        node_fams, self.tree_fams, self.cand_fams = family_kinds(families)
        self.families = list(families)
        self.names = tuple(names)
        self.index = {n: j for j, n in enumerate(self.names)}
        self.compiled = None
        if compiled is None or compiled:
            from .compiled import CompiledFamilies, kernels

            nk = kernels()
            if nk is None and compiled:
                raise ValueError("the compiled families need numba: pip install 'ranker[fast]'")
            if nk is not None:
                got = CompiledFamilies(families, self.names, nk)
                if got.taken:
                    self.compiled = got
                    taken = {id(f) for f in got.taken}
                    node_fams = [f for f in node_fams if id(f) not in taken]
                    self.tree_fams = [f for f in self.tree_fams if id(f) not in taken]
        shaped = [f for f in node_fams if f.children_only]
        self.node_fams = [f for f in node_fams if not f.children_only] + \
            ([ByShape(shaped, self.index.get)] if shaped else [])

    def extract(self, forests: Iterable, workers: int = 1) -> CandidateMatrix:
        """The candidates of ``forests`` in the model's columns (sentences with none give no rows).

        With ``workers`` > 1, runs of sentences are extracted in forked processes (as training's
        :func:`~ranker.features.vectorizer.extract`) and their rows stacked: the same matrix.
        """
        if workers > 1:
            from ranker.parallel import ordered_map

            from .vectorizer import _spans

            forests = list(forests)
            got = list(ordered_map(_extract_span, _spans(len(forests), workers), workers,
                                   state={"columns": self, "forests": forests}))
            sizes = np.concatenate([np.diff(m.offsets) for m in got])
            offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            return CandidateMatrix(vstack([m.X for m in got]), offsets, self.names,
                                   tuple(i for m in got for i in m.sentence_ids))
        return self._extract(forests)

    def _extract(self, forests: Iterable) -> CandidateMatrix:
        cols: list[int] = []       # every piece's entries, one piece after another
        vals: list[float] = []
        starts: list[int] = [0]    # piece k is cols[starts[k]:starts[k + 1]]
        rows: list[int] = []       # the pieces of each row: (row, piece) pairs
        pieces: list[int] = []
        sizes: list[int] = []
        ids: list[str] = []
        look, put, put_value = self.index.get, cols.append, vals.append

        def known(local, pairs) -> None:
            """Append the pairs whose property the model knows to the open piece.

            A piece may name a column twice: the rows' duplicates are added when they are put
            together (:func:`_rows`), so no dict is kept per piece.
            """
            if type(pairs) is Columns:   # already the model's columns (ByShape)
                cols.extend(pairs.cols)
                vals.extend(pairs.vals)
                return
            for name, value in pairs:
                j = look(name)
                if j is not None:
                    put(j)
                    put_value(value)

        def piece(local) -> int:
            """Close the open piece: its number, or -1 when it has no entry."""
            if len(cols) == starts[-1]:
                return -1
            starts.append(len(cols))
            return len(starts) - 2

        row = 0
        kinds = (self.node_fams, self.tree_fams, self.cand_fams)
        for forest in forests:
            if not forest.candidates:
                continue
            if self.compiled is not None:
                row = self._forest_compiled(forest, known, piece, cols, vals, starts, rows, pieces, row)
                sizes.append(len(forest.candidates))
                ids.append(forest.sentence.id)
                continue
            kept: dict = {}   # id(a tree's parts) -> its pieces with entries
            for cand, parts, own in candidate_parts(forest, kinds, known, piece):
                mine = kept.get(id(parts))
                if mine is None:
                    mine = kept[id(parts)] = [k for k in parts if k >= 0]
                pieces.extend(mine)
                rows.extend([row] * len(mine))
                if own is not None and own >= 0:
                    pieces.append(own)
                    rows.append(row)
                row += 1
            sizes.append(len(forest.candidates))
            ids.append(forest.sentence.id)
        X = _rows(np.asarray(cols, dtype=np.int32), np.asarray(vals, dtype=np.float64),
                  np.asarray(starts, dtype=np.int64), np.asarray(rows, dtype=np.int64),
                  np.asarray(pieces, dtype=np.int64), row, len(self.names))
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return CandidateMatrix(X, offsets, self.names, tuple(ids))

    def _forest_compiled(self, forest, known, piece, cols, vals, starts, rows, pieces, row: int) -> int:
        """One forest's rows, the compiled families' pieces (:mod:`.compiled`) beside the Python families'.

        As :func:`~.vectorizer.candidate_parts` shares work: the Python node families run once per
        distinct (node, parent's category) of the forest and the loops name each such job's
        properties once; tree families once per distinct tree. The number of the next row is returned.
        """
        node_fams, tree_fams, cand_fams = self.node_fams, self.tree_fams, self.cand_fams
        for fam in (*node_fams, *tree_fams, *cand_fams):
            fam.begin_forest(forest)
        arrays = self.compiled.forest(forest)
        by_tree: dict = {}   # a tree (by value) -> (its Python pieces, its jobs, its number)
        by_node: dict = {}   # (id(node), parent's category) -> (Python piece, job)
        made = []
        for cand in forest.candidates:
            t = cand.tree
            got = by_tree.get(t)
            if got is None:
                number = arrays.tree(t)
                mine, jobs = [], []
                for n, up in facts(t).walk:
                    key = (id(n), up)
                    g = by_node.get(key)
                    if g is None:
                        p = -1
                        if node_fams:
                            for fam in node_fams:
                                known(None, fam.node_properties(n, up, t))
                            p = piece(None)
                        g = by_node[key] = (p, arrays.job(n, up, number))
                    if g[0] >= 0:
                        mine.append(g[0])
                    jobs.append(g[1])
                for fam in node_fams:
                    known(None, fam.tree_properties(t))
                for fam in tree_fams:
                    known(None, fam(cand))
                p = piece(None)
                if p >= 0:
                    mine.append(p)
                got = by_tree[t] = (mine, jobs, number)
            own = -1
            if cand_fams:
                for fam in cand_fams:
                    known(None, fam(cand))
                own = piece(None)
            made.append((got, own))
        found, where = arrays.run()
        first_entry, first_piece = len(cols), len(starts) - 1
        cols.extend(found.tolist())
        vals.extend([1.0] * len(found))
        starts.extend((where[1:] + first_entry).tolist())
        full = np.diff(where) > 0           # the jobs' and trees' pieces with entries
        n_jobs = len(arrays.jobs_node)
        compiled: dict = {}
        for (mine, jobs, number), own in made:
            theirs = compiled.get(number)
            if theirs is None:
                jobs = np.asarray(jobs, dtype=np.int64)
                theirs = (jobs[full[jobs]] + first_piece).tolist()
                if full[n_jobs + number]:
                    theirs.append(first_piece + n_jobs + number)
                theirs = compiled[number] = mine + theirs
            pieces.extend(theirs)
            rows.extend([row] * len(theirs))
            if own >= 0:
                pieces.append(own)
                rows.append(row)
            row += 1
        return row


class Columns(NamedTuple):
    """Entries already in the model's columns (what :class:`ByShape` gives for a node)."""

    cols: tuple
    vals: tuple


class ByShape:
    """The node families that read only a node's children's shape (:attr:`~ranker.features.base.
    NodeFamily.children_only`), run once per shape and kept in the model's columns across sentences.

    Such families say the same of every node of one shape (its label, its parent's category, each
    child's label, preterminal-ness and length: :func:`~ranker.features.base.children_shape`), and
    on the WSJ sample's lists 87% of a sentence's distinct nodes have a shape met before, where a
    forest shares only equal subtrees. In :class:`ModelColumns` they stand as one node family whose
    properties for a node come already looked up (:class:`Columns`). At most ``limit`` shapes are
    kept (then forgotten at once), so memory does not grow with the input.
    """

    per_tree = True
    children_only = False

    def __init__(self, families: list, look, limit: int = 50_000):
        self.families = list(families)
        self.look = look
        self.limit = limit
        self.kept: dict = {}

    def begin_forest(self, forest) -> None:
        for f in self.families:
            f.begin_forest(forest)

    def tree_properties(self, t):
        for f in self.families:
            yield from f.tree_properties(t)

    def node_properties(self, n, up: str, t) -> Columns:
        key = children_shape(n, up)
        got = self.kept.get(key)
        if got is None:
            look = self.look
            cols, vals = [], []
            for f in self.families:
                for name, value in f.node_properties(n, up, t):
                    j = look(name)
                    if j is not None:
                        cols.append(j)
                        vals.append(value)
            if len(self.kept) >= self.limit:
                self.kept.clear()
            got = self.kept[key] = Columns(tuple(cols), tuple(vals))
        return got


def children_only_conflicts(family, forests: Iterable) -> list[tuple]:
    """The children shapes (:func:`~ranker.features.base.children_shape`) under which ``family`` says
    different things of two nodes of ``forests``' trees: empty when it may claim ``children_only``.

    :class:`ByShape` keeps what a family says of the first node of a shape for every later node of
    that shape, so a family that claims :attr:`~ranker.features.base.NodeFamily.children_only` but
    reads more (a word, a grandchild) gets wrong columns in :class:`ModelColumns`, silently. This
    is how to tell, on real trees (``tests/features/test_applying.py`` runs it on every family
    that claims it).
    """
    from .base import facts

    said: dict = {}
    bad = []
    for forest in forests:
        for cand in forest.candidates:
            t = cand.tree
            for n, up in facts(t).walk:
                got = sorted(family.node_properties(n, up, t))
                key = children_shape(n, up)
                if said.setdefault(key, got) != got:
                    bad.append(key)
    return bad


def _extract_span(state: dict, span: tuple[int, int]) -> CandidateMatrix:
    return state["columns"]._extract(state["forests"][span[0]:span[1]])


def _rows(cols, vals, starts, rows, pieces, n_rows: int, n_cols: int) -> CompactMatrix:
    """The matrix whose row ``rows[i]`` holds piece ``pieces[i]`` (``rows`` ascending), equal entries added.

    The pieces are gathered in row order, each row's columns put in order by transposing the
    chunk twice (scipy's compiled counting sorts, linear in the entries) and equal columns added by
    scipy's ``sum_duplicates``: a sort of every entry of the chunk at once took a quarter of the
    extraction's time, a comparison sort of each row (``sum_duplicates`` alone) twice the two
    transposes' CPU.
    """
    lengths = starts[1:][pieces] - starts[:-1][pieces]
    total = int(lengths.sum())
    index_dtype = np.int32 if max(total, len(cols)) < np.iinfo(np.int32).max else np.int64
    first = np.zeros(len(pieces), dtype=np.int64)   # where each piece's entries begin in the output
    np.cumsum(lengths[:-1], out=first[1:])
    at = np.repeat((starts[:-1][pieces] - first).astype(index_dtype), lengths)
    at += np.arange(total, dtype=index_dtype)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, weights=lengths, minlength=n_rows).astype(np.int64), out=indptr[1:])
    X = sp.csr_matrix((n_rows, n_cols), dtype=np.float64)
    X.data, X.indices, X.indptr = vals[at], cols[at].astype(index_dtype, copy=False), indptr.astype(index_dtype)
    X.has_sorted_indices = False
    # Each row's columns put in order by transposing twice (two counting sorts, a row's equal
    # columns kept in the order of its pieces), not by a comparison sort of each row: half the CPU
    X = X.tocsc().tocsr()
    X.sum_duplicates()             # duplicates added (in place): the columns are in order already
    return CompactMatrix.from_csr(X)
