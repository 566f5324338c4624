"""Training rows as differences between similar candidates: a spanning tree over each sentence.

A forest's candidates share most of their properties: two linkages of a sentence that differ in
one link differ in a few dozen properties, not in the 168 each candidate of the WSJ sample's Link
Grammar training rows has on average. A :class:`DeltaMatrix` stores a candidate ``x`` as its
difference ``x - x_parent`` from a parent candidate of the same sentence, the parents forming a
spanning forest of the sentence's candidates (a candidate with no parent keeps its own row):

* scores go down the tree: ``s_x = s_parent + (x - x_parent)·λ``;
* the gradient goes up it: ``Σ_x r_x x = Σ_x R_x (x - x_parent)``, where ``R_x`` sums ``r`` over
  the subtree under ``x`` (a root's "difference" is its own row), gathered from the last row to
  the first so that each difference row is scattered once.

The tree is a minimum spanning tree over the candidates and the empty row under the number of
properties two rows disagree on, which is exactly the number of entries a difference row takes
(Prim's algorithm over exact Hamming distances, counted through each column's minority rows), so
no candidate takes more entries than its own row. Properties constant over a sentence leave no
difference at all. On the WSJ sample's training rows (1,196 sentences, 505,287 candidates, 85.0
million entries without the sentence constants) the differences take 11.6 million entries: each
evaluation streams and multiplies 7 times fewer, and takes a third of the time (0.023 s against
0.072 s on one thread; each candidate's own work, its log-sum-exp terms and row bookkeeping, is
now a large share of it).

A difference is +1 or -1 for a binary property, a count's difference a small integer. Every
value is stored (float32 where exact, else float64, :mod:`.compact` without its ids-only ones
part), so that the kernel walks one float32 loop per row: with 23 entries a row, split into
loops for the +1s, the -1s and the counts, each loop's start and unpredictable exit cost more
than its entries (0.035 s an evaluation on one thread against 0.023 s for the one loop, on the
WSJ sample's training rows; 6 bytes an entry instead of 2 to 6; 16-bit ids, :mod:`.narrow`,
below column 65,536). Rows are kept in the tree's order within each sentence (a parent before
its children; ``perm`` maps them to the caller's rows) and ``back`` gives each row's distance to
its parent's row (0: none), so whole sentences can be cut into blocks and sent to other
processes as they are.

Scores are sums of differences, so they round differently from the plain rows' sums (a model
fitted on either agrees to the optimiser's tolerance: ``tests/models/test_delta.py``); the sums
still run in an order fixed by the data alone. The builder and the kernel need numba (the
``fast`` extra); without it the objective streams the plain rows.
"""
from __future__ import annotations

import hashlib
import threading
import weakref

import numpy as np
import scipy.sparse as sp

from ..matrices.compact import CompactMatrix, Part, as_compact, vstack
from .narrow import NARROW_COLUMNS, NarrowMatrix, split_columns

#: Entries of the plain rows turned into differences at a time (whole sentences): a slab's sorted
#: copy takes 16 bytes an entry (int64 column, float64 value), so the temporaries stay near 300 MB.
SLAB_ENTRIES = 1 << 24


def _load_numba():
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=True, nogil=True)
    def tree(indptr, indices, data, a, b, where, A, m, order, parent):
        # Prim's minimum spanning tree over rows a:b (sorted column ids) under the Hamming
        # distance, counted through each column's minority: with M_c the rows whose value in
        # column c differs from a reference value v_c (0, or the common value of a column present
        # with one value in most rows), rows i and j disagree on c iff exactly one of them is in
        # M_c, or both are with different values: d(i, j) = m_i + m_j - A_ij, where m_i counts
        # the columns whose M_c holds i and A_ij adds 2 (same value) or 1 per column holding both.
        n = b - a
        s, e = indptr[a], indptr[b]
        # local column numbers
        n_loc = 0
        cols = np.empty(e - s, np.int64)
        for k in range(s, e):
            c = indices[k]
            if where[c] < 0:
                where[c] = n_loc
                cols[n_loc] = c
                n_loc += 1
        count = np.zeros(n_loc, np.int64)
        same = np.ones(n_loc, np.bool_)
        first = np.zeros(n_loc)
        for k in range(s, e):
            lc = where[indices[k]]
            if count[lc] == 0:
                first[lc] = data[k]
            elif data[k] != first[lc]:
                same[lc] = False
            count[lc] += 1
        # each column's minority rows: present ones, or absent ones where that is fewer
        flip = np.zeros(n_loc, np.bool_)
        size = np.empty(n_loc, np.int64)
        for lc in range(n_loc):
            flip[lc] = same[lc] and 2 * count[lc] > n
            size[lc] = n - count[lc] if flip[lc] else count[lc]
        start = np.zeros(n_loc + 1, np.int64)
        for lc in range(n_loc):
            start[lc + 1] = start[lc] + size[lc]
        rows = np.empty(start[n_loc], np.int64)
        vals = np.empty(start[n_loc])
        fill = start[:-1].copy()
        present = np.zeros(n, np.bool_)
        for i in range(n):
            for k in range(indptr[a + i], indptr[a + i + 1]):
                lc = where[indices[k]]
                if not flip[lc]:
                    rows[fill[lc]] = i
                    vals[fill[lc]] = data[k]
                    fill[lc] += 1
        # absent rows of the flipped columns: one pass per column over its present rows
        by_col_start = np.zeros(n_loc + 1, np.int64)
        for lc in range(n_loc):
            by_col_start[lc + 1] = by_col_start[lc] + (count[lc] if flip[lc] else 0)
        pres = np.empty(by_col_start[n_loc], np.int64)
        pfill = by_col_start[:-1].copy()
        for i in range(n):
            for k in range(indptr[a + i], indptr[a + i + 1]):
                lc = where[indices[k]]
                if flip[lc]:
                    pres[pfill[lc]] = i
                    pfill[lc] += 1
        for lc in range(n_loc):
            if not flip[lc]:
                continue
            for q in range(by_col_start[lc], by_col_start[lc + 1]):
                present[pres[q]] = True
            for i in range(n):
                if not present[i]:
                    rows[fill[lc]] = i
                    vals[fill[lc]] = 0.0
                    fill[lc] += 1
            for q in range(by_col_start[lc], by_col_start[lc + 1]):
                present[pres[q]] = False
        for q in range(n_loc):
            where[cols[q]] = -1
        # m_i and A (upper triangle, A[i, j] with i < j), a row of A at a time so that the row
        # being counted stays in the core's first-level cache: each row's minority entries
        # (positions in ``rows``), each with its column
        xcol = np.empty(start[n_loc], np.int64)
        for lc in range(n_loc):
            for x in range(start[lc], start[lc + 1]):
                xcol[x] = lc
        rstart = np.zeros(n + 1, np.int64)
        for x in range(start[n_loc]):
            rstart[rows[x] + 1] += 1
        for i in range(n):
            rstart[i + 1] += rstart[i]
        rpos = np.empty(start[n_loc], np.int64)
        rfill = rstart[:-1].copy()
        for x in range(start[n_loc]):
            rpos[rfill[rows[x]]] = x
            rfill[rows[x]] += 1
        urows = rows.view(np.uint64)    # unsigned indices: no negative-index test in the pair loop
        one = np.uint64(1)
        for i in range(n):
            m[i] = rstart[i + 1] - rstart[i]
            Ai = A[i]
            for j in range(n):
                Ai[j] = 0
            for q in range(rstart[i], rstart[i + 1]):
                x = rpos[q]
                lc = xcol[x]
                y, end = np.uint64(x + 1), np.uint64(start[lc + 1])
                if same[lc]:
                    # one value (or absence) throughout the minority: every pair agrees
                    while y < end:
                        Ai[urows[y]] += 2
                        y += one
                else:
                    while y < end:
                        Ai[urows[y]] += 2 if vals[x] == vals[y] else 1
                        y += one
        # the lower triangle mirrored in 64 x 64 tiles, so that Prim's loop reads the row of A of
        # the row it adds (contiguous) instead of a column (a cache miss an element)
        for bi in range(0, n, 64):
            for bj in range(bi, n, 64):
                for i in range(bi, min(bi + 64, n)):
                    for j in range(max(i + 1, bj), min(bj + 64, n)):
                        A[j, i] = A[i, j]
        # Prim from the empty row: a row whose nearest neighbour is further than its own entries
        # keeps them (a tree of its own: ``parent`` -1), so no row takes more than it did
        best = np.empty(n, np.int64)
        done = np.zeros(n, np.bool_)
        for i in range(n):
            best[i] = indptr[a + i + 1] - indptr[a + i]
            parent[i] = -1
        for t in range(n):
            pick, d = -1, np.int64(1) << 62
            for i in range(n):
                if not done[i] and best[i] < d:
                    pick, d = i, best[i]
            done[pick] = True
            order[t] = pick
            Ap = A[pick]
            for i in range(n):
                if not done[i]:
                    dd = m[i] + m[pick] - Ap[i]
                    if dd < best[i]:
                        best[i] = dd
                        parent[i] = pick

    @numba.njit(cache=True, nogil=True)
    def diff_row(indptr, indices, data, i, p, out_idx, out_val, at):
        # entries of row i minus row p (sorted columns), written from ``at``; returns the new end
        ki, ei = indptr[i], indptr[i + 1]
        kp, ep = indptr[p], indptr[p + 1]
        while ki < ei or kp < ep:
            if kp >= ep or (ki < ei and indices[ki] < indices[kp]):
                out_idx[at] = indices[ki]
                out_val[at] = data[ki]
                at += 1
                ki += 1
            elif ki >= ei or indices[kp] < indices[ki]:
                out_idx[at] = indices[kp]
                out_val[at] = -data[kp]
                at += 1
                kp += 1
            else:
                v = data[ki] - data[kp]
                if v != 0.0:
                    out_idx[at] = indices[ki]
                    out_val[at] = v
                    at += 1
                ki += 1
                kp += 1
        return at

    @numba.njit(cache=True, nogil=True)
    def slab(indptr, indices, data, offsets, n_cols):
        # every sentence's tree, then its difference rows in the tree's order
        n_rows = offsets[-1]
        biggest = 1
        for j in range(len(offsets) - 1):
            biggest = max(biggest, offsets[j + 1] - offsets[j])
        where = np.full(n_cols, -1, np.int64)
        A = np.zeros((biggest, biggest), np.int32)
        m = np.zeros(biggest, np.int64)
        order = np.empty(n_rows, np.int64)        # new row -> old row
        back = np.zeros(n_rows, np.int32)         # new row - its parent's new row (0: a root)
        par = np.empty(biggest, np.int64)
        local_order = np.empty(biggest, np.int64)
        pos = np.empty(biggest, np.int64)
        for j in range(len(offsets) - 1):
            a, b = offsets[j], offsets[j + 1]
            n = b - a
            tree(indptr, indices, data, a, b, where, A, m, local_order, par)
            for t in range(n):
                pos[local_order[t]] = t
            for t in range(n):
                i = local_order[t]
                order[a + t] = a + i
                back[a + t] = 0 if par[i] < 0 else t - pos[par[i]]
        # lengths, then entries
        lens = np.zeros(n_rows, np.int64)
        cap = 0
        for r in range(n_rows):
            cap = max(cap, indptr[r + 1] - indptr[r])
        scratch_i = np.empty(2 * cap + 1, np.int64)
        scratch_v = np.empty(2 * cap + 1)
        for r in range(n_rows):
            if back[r] > 0:
                lens[r] = diff_row(indptr, indices, data, order[r], order[r - back[r]], scratch_i, scratch_v, 0)
            else:
                lens[r] = indptr[order[r] + 1] - indptr[order[r]]
        out_ptr = np.zeros(n_rows + 1, np.int64)
        for r in range(n_rows):
            out_ptr[r + 1] = out_ptr[r] + lens[r]
        out_idx = np.empty(out_ptr[-1], np.int32)
        out_val = np.empty(out_ptr[-1])
        for r in range(n_rows):
            at = out_ptr[r]
            if back[r] > 0:
                end = diff_row(indptr, indices, data, order[r], order[r - back[r]], scratch_i, scratch_v, 0)
                for q in range(end):
                    out_idx[at + q] = scratch_i[q]
                    out_val[at + q] = scratch_v[q]
            else:
                k0 = indptr[order[r]]
                for q in range(lens[r]):
                    out_idx[at + q] = indices[k0 + q]
                    out_val[at + q] = data[k0 + q]
        return order, back, out_ptr, out_idx, out_val

    @numba.njit(cache=True, nogil=True)
    def scatter_part(indptr, ids, data, has_data, col_off, a, b, out_ptr, fill, out_idx, out_val):
        # rows a:b of one part into the slab's rows (after the entries of earlier parts)
        for i in range(a, b):
            at = out_ptr[i - a] + fill[i - a]
            for k in range(indptr[i], indptr[i + 1]):
                out_idx[at] = np.int64(ids[k]) + col_off
                out_val[at] = np.float64(data[k]) if has_data else 1.0
                at += 1
            fill[i - a] = at - out_ptr[i - a]

    @numba.njit(cache=True, nogil=True)
    def sort_rows(out_ptr, out_idx, out_val):
        for i in range(len(out_ptr) - 1):
            s, e = out_ptr[i], out_ptr[i + 1]
            if e - s > 1:
                o = np.argsort(out_idx[s:e], kind="mergesort")
                out_idx[s:e] = out_idx[s:e][o]
                out_val[s:e] = out_val[s:e][o]

    return slab, scatter_part, sort_rows


_NUMBA = _load_numba()
_SLAB = None if _NUMBA is None else _NUMBA[0]


def _sorted_rows(X, a: int, b: int):
    """Rows ``a:b`` of a compact or narrow matrix as sorted CSR arrays: int64 columns, float64 values."""
    if isinstance(X, NarrowMatrix):
        ranges = ((X.low, 0), (X.high, X.n_low))
    else:
        ranges = ((X, 0),)
    lens = np.zeros(b - a, dtype=np.int64)
    for m, _ in ranges:
        for p in m.parts:
            lens += np.diff(p.indptr[a:b + 1])
    out_ptr = np.zeros(b - a + 1, dtype=np.int64)
    np.cumsum(lens, out=out_ptr[1:])
    out_idx = np.empty(int(out_ptr[-1]), dtype=np.int64)
    out_val = np.empty(int(out_ptr[-1]))
    fill = np.zeros(b - a, dtype=np.int64)
    _, scatter, sort = _NUMBA
    for m, off in ranges:
        for p in m.parts:
            if p.nnz:
                scatter(p.indptr, p.indices, np.zeros(0) if p.data is None else p.data, p.data is not None,
                        off, a, b, out_ptr, fill, out_idx, out_val)
    sort(out_ptr, out_idx, out_val)
    return out_ptr, out_idx, out_val

#: Whether difference rows can be built here (the builder and the objective's kernel need numba).
AVAILABLE = _SLAB is not None


class DeltaMatrix:
    """Candidates as differences from a parent candidate of the same sentence (see the module).

    Parameters
    ----------
    rows : NarrowMatrix (or CompactMatrix)
        The difference rows, every value stored (its ones parts empty: a +1 and a -1 alike are
        float32 values).
    back : ndarray of int32, shape (n_rows,)
        Rows back to each row's parent (0: none, the row holds its own entries).
    perm : ndarray of int64, shape (n_rows,)
        The caller's row of each row (rows are kept in the tree's order within each sentence).
    """

    __slots__ = ("rows", "back", "perm", "shape")

    def __init__(self, rows, back: np.ndarray, perm: np.ndarray):
        if len(back) != rows.shape[0] or len(perm) != rows.shape[0]:
            raise ValueError("a delta matrix needs back and perm for each of its rows")
        ones = [rows.low.parts[0], rows.high.parts[0]] if isinstance(rows, NarrowMatrix) else [rows.parts[0]]
        if any(p.nnz for p in ones):
            raise ValueError("difference rows store every value: their ones parts must be empty")
        self.rows = rows
        self.back = np.asarray(back, dtype=np.int32)
        self.perm = np.asarray(perm, dtype=np.int64)
        self.shape = rows.shape

    @property
    def parts(self) -> tuple[Part, ...]:
        """Every part of the rows (for row lengths and value checks)."""
        return self.rows.parts

    @property
    def nnz(self) -> int:
        return self.rows.nnz

    @property
    def nbytes(self) -> int:
        """Bytes of every array, an array the parts share (their empty row pointers) once."""
        arrays = [a for p in self.parts for a in (p.indptr, p.indices, p.data) if a is not None]
        return sum({id(a): a.nbytes for a in arrays}.values()) + self.back.nbytes + self.perm.nbytes

    @property
    def has_float64(self) -> bool:
        if isinstance(self.rows, NarrowMatrix):
            return self.rows.has_float64
        return bool(self.rows.parts[2].nnz)

    def row_range(self, a: int, b: int) -> "DeltaMatrix":
        """Rows ``a:b`` (whole sentences: a parent stays inside), sharing this matrix's arrays."""
        return DeltaMatrix(self.rows.row_range(a, b), self.back[a:b], self.perm[a:b] - a)

    def take_rows(self, rows) -> "DeltaMatrix":
        """The caller's ``rows`` (ascending row numbers or a mask), which must be whole sentences."""
        rows = np.asarray(rows)
        mask = rows if rows.dtype == bool else np.isin(np.arange(self.shape[0]), rows)
        # a whole sentence holds the same rows in either order; a parent then stays with its child
        if not np.array_equal(mask[self.perm], mask):
            raise ValueError("difference rows can only be cut into whole sentences")
        new_of_old = np.cumsum(mask) - 1
        return DeltaMatrix(self.rows.take_rows(mask), self.back[mask], new_of_old[self.perm[mask]])

    def arrays(self) -> list[np.ndarray]:
        return self.rows.arrays() + [self.back, self.perm]

    def __repr__(self) -> str:
        return f"DeltaMatrix(shape={self.shape}, nnz={self.nnz}, {self.nbytes / 2**20:.1f} MiB)"

    def __reduce__(self):
        return (DeltaMatrix, (self.rows, self.back, self.perm))


def _slab_bounds(X, offsets: np.ndarray, entries: int) -> list[int]:
    """Sentence numbers cutting the rows into runs of about ``entries`` entries (whole sentences)."""
    at = sum(p.indptr[offsets] for p in X.parts)
    bounds = [0]
    n_sent = len(offsets) - 1
    while bounds[-1] < n_sent:
        nxt = int(np.searchsorted(at, at[bounds[-1]] + entries, side="right")) - 1
        bounds.append(min(n_sent, max(bounds[-1] + 1, nxt)))
    return bounds


def delta_rows(X, offsets: np.ndarray, slab_entries: int = SLAB_ENTRIES, n_jobs: int = 1) -> DeltaMatrix:
    """``X`` (compact or narrow; sentence ``j`` is rows ``offsets[j]:offsets[j+1]``) as difference rows.

    Built a slab of whole sentences at a time (the slab's rows sorted, then its trees and
    differences), so the temporaries stay small beside the result; ``n_jobs`` threads build
    slabs at once (the trees are compiled loops that release the GIL). The result does not
    depend on either. The difference rows are narrow (:mod:`.narrow`), with ``X``'s column split if
    ``X`` is narrow.
    """
    if _SLAB is None:
        raise RuntimeError("difference rows need numba: pip install 'ranker[fast]'")
    offsets = np.asarray(offsets, dtype=np.int64)
    if not isinstance(X, (CompactMatrix, NarrowMatrix)):
        X = as_compact(X)
    n, d = X.shape
    bounds = _slab_bounds(X, offsets, slab_entries)

    def one_slab(sa: int, sb: int):
        ra, rb = int(offsets[sa]), int(offsets[sb])
        s_ptr, s_idx, s_val = _sorted_rows(X, ra, rb)
        order, back, ptr, idx, val = _SLAB(s_ptr, s_idx, s_val, offsets[sa:sb + 1] - ra, d)
        del s_ptr, s_idx, s_val
        return CompactMatrix.from_csr(sp.csr_matrix((val, idx, ptr), shape=(rb - ra, d)), ones=False), \
            back, order + ra

    if n_jobs > 1 and len(bounds) > 2:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_jobs) as pool:
            slabs = list(pool.map(one_slab, bounds[:-1], bounds[1:]))
    else:
        slabs = [one_slab(sa, sb) for sa, sb in zip(bounds, bounds[1:])]
    rows, backs, perms = (list(x) for x in zip(*slabs))
    del slabs
    # 16-bit ids below column 65,536 whatever ``X`` was: 8% less time an evaluation on
    # bench_train's synthetic rows, whose 500 columns a compact ``X`` gives 32-bit ids
    rows_m = split_columns(vstack(rows, consume=True), X.n_low if isinstance(X, NarrowMatrix)
                           else min(d, NARROW_COLUMNS))
    return DeltaMatrix(_share_empty(rows_m, np.zeros(n + 1, dtype=np.int64)), np.concatenate(backs),
                       np.concatenate(perms))


#: Difference rows already built, while the rows they came from live (see :func:`delta_rows_once`).
_BUILT: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_BUILT_LOCK = threading.Lock()


def _fingerprint(X, offsets: np.ndarray) -> tuple:
    """What identifies the rows' content cheaply: shapes, the sentence cuts, sums of every array."""
    parts = X.parts
    return (X.shape, hashlib.blake2b(offsets.tobytes(), digest_size=16).digest(),
            tuple((p.nnz, int(p.indices.sum(dtype=np.int64)),
                   None if p.data is None else float(p.data.sum(dtype=np.float64))) for p in parts))


def delta_rows_once(X, offsets: np.ndarray, n_jobs: int = 1) -> DeltaMatrix:
    """:func:`delta_rows` of ``X``, kept for as long as ``X`` itself lives.

    The fits of one training set (each σ² of the grid, the learning curve's prefixes) stream the
    same rows, and building their trees costs about as much as 30 evaluations, so it is done once.
    The content is checked again at every use (shapes, sentence cuts and sums of every array),
    so rows changed in place are built anew, never answered from the old build.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    if not isinstance(X, (CompactMatrix, NarrowMatrix)):
        return delta_rows(X, offsets, n_jobs=n_jobs)     # a scipy matrix: its compact copy is new each time
    key = _fingerprint(X, offsets)
    with _BUILT_LOCK:
        hit = _BUILT.get(X)
    if hit is not None and hit[0] == key:
        return hit[1]
    D = delta_rows(X, offsets, n_jobs=n_jobs)
    with _BUILT_LOCK:
        _BUILT[X] = (key, D)
    return D


def _share_empty(m, zeros: np.ndarray):
    """``m`` with every part that has no entry pointing at one shared array of zero row pointers.

    Difference rows have no ids-only part and a narrow matrix's high range is often empty: four
    of the six parts, each 8 bytes a row (4 MB apiece on the WSJ sample's training rows).
    """
    if isinstance(m, NarrowMatrix):
        return NarrowMatrix(_share_empty(m.low, zeros), _share_empty(m.high, zeros))
    return CompactMatrix(m.shape, [p._replace(indptr=zeros) if p.nnz == 0 else p for p in m.parts])


__all__ = ["AVAILABLE", "DeltaMatrix", "delta_rows", "delta_rows_once"]
