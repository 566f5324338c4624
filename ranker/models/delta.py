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
evaluation streams and multiplies 7 times fewer, and takes about a third of the time (not a
seventh: each candidate's own work, its log-sum-exp terms and row bookkeeping, is now a large
share of it; the measurements are in ``benchmarks/README.md``).

A difference is +1 or -1 for a binary property, a count's difference a small integer. Every
value is stored (float32 where exact, else float64, :mod:`.compact` without its ids-only ones
part), so that the kernel walks one float32 loop per row: with 23 entries a row, split into
loops for the +1s, the -1s and the counts, each loop's start and unpredictable exit cost more
than its entries (with one loop a row an evaluation takes about a third less time on the WSJ sample's
training rows, ``benchmarks/README.md``, for 6 bytes an entry instead of 2 to 6; 16-bit ids,
:mod:`.narrow`, below column 65,536). Rows are kept in the tree's order within each sentence (a parent before
its children; ``perm`` maps them to the caller's rows) and ``back`` gives each row's distance to
its parent's row (0: none), so whole sentences can be cut into blocks and sent to other
processes as they are.

Scores are sums of differences, so they round differently from the plain rows' sums (a model
fitted on either agrees to the optimiser's tolerance: ``tests/models/test_delta.py``); the sums
still run in an order fixed by the data alone. The builder (:mod:`.numba_delta`) and the kernel
(:mod:`ranker.matrices.numba_kernels`) need numba (the ``fast`` extra); without it the objective streams the plain
rows.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..matrices.compact import CompactMatrix, Part, as_compact, vstack
from .narrow import NARROW_COLUMNS, NarrowMatrix, split_columns
from .rows_memo import RowsMemo

#: Entries of the plain rows turned into differences at a time (whole sentences): a slab's sorted
#: copy takes 16 bytes an entry (int64 column, float64 value), so the temporaries stay near 300 MB.
SLAB_ENTRIES = 1 << 24


def _load_numba():
    """numba's builders (:mod:`.numba_delta`), or None without numba."""
    try:
        from . import numba_delta
    except ModuleNotFoundError as e:
        if e.name != "numba":
            raise
        return None
    return numba_delta


_NUMBA = _load_numba()
_SLAB = None if _NUMBA is None else _NUMBA.slab


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
    scatter, sort = _NUMBA.scatter_part, _NUMBA.sort_rows
    for m, off in ranges:
        for p in m.parts:
            if p.nnz:
                scatter(p.indptr, p.indices, np.zeros(0) if p.data is None else p.data, p.data is not None,
                        off, a, b, out_ptr, fill, out_idx, out_val)
    sort(out_ptr, out_idx, out_val)
    return out_ptr, out_idx, out_val

#: Whether difference rows can be built here (the builder and the objective's kernel need numba).
AVAILABLE = _SLAB is not None


def streamed(backend: str) -> bool:
    """Whether a fit on ``backend``'s kernels (:func:`ranker.matrices.kernels.resolve`) takes difference
    rows: numba's alone stream them, so with ``RANKER_KERNELS=scipy`` a fit asked for ``layout =
    "delta"`` takes the plain rows even where numba is installed."""
    return AVAILABLE and backend == "numba"


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
_BUILT = RowsMemo()


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
    return _BUILT.get(X, offsets, lambda: delta_rows(X, offsets, n_jobs=n_jobs))


def _share_empty(m, zeros: np.ndarray):
    """``m`` with every part that has no entry pointing at one shared array of zero row pointers.

    Difference rows have no ids-only part and a narrow matrix's high range is often empty: four
    of the six parts, each 8 bytes a row (4 MB apiece on the WSJ sample's training rows).
    """
    if isinstance(m, NarrowMatrix):
        return NarrowMatrix(_share_empty(m.low, zeros), _share_empty(m.high, zeros))
    return CompactMatrix(m.shape, [p._replace(indptr=zeros) if p.nnz == 0 else p for p in m.parts])


__all__ = ["AVAILABLE", "DeltaMatrix", "delta_rows", "delta_rows_once", "streamed"]
