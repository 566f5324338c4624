"""Candidate matrices that store binary properties as column ids alone, values only where needed.

On the WSJ sample's Link Grammar forests 81% of the nonzeros are 1 (a property present once), 98.7%
are small counts, and the rest are real values (Link Grammar's costs, parser scores). A
:class:`CompactMatrix` keeps its entries in up to three row-aligned parts: the ones as int32 column
ids without a value array (4 bytes an entry), the other values exact in float32 with them (8
bytes), and the remaining values in float64 (12 bytes), where scipy's CSR with float64 data takes
12 bytes for every entry. No value is rounded: every product adds in float64
(:mod:`.kernels`; without numba a product goes through a scipy copy made once). Like BLLIP's feature files, a binary property is an id and nothing else.

The matrix is immutable: row ranges are views of the same arrays, and row or column selections
build only the kept entries, part by part, never a float64 copy of the whole.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..memory import release_free_heap
from . import kernels
from .parts import PART_DTYPES, Part


def _indptr(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def _masked(part: Part, entry_mask: np.ndarray) -> Part:
    """The entries of ``part`` where ``entry_mask`` holds, rows kept (empty rows stay).

    Kept entries are counted per row (``reduceat`` over the mask), not by a running count over
    every entry: an int64 per entry was 2 GB on the WSJ training matrix.
    """
    lens = np.diff(part.indptr)
    kept = np.zeros(len(lens), dtype=np.int64)
    full = lens > 0
    if full.any():
        kept[full] = np.add.reduceat(entry_mask, part.indptr[:-1][full], dtype=np.int64)
    return Part(_indptr(kept), part.indices[entry_mask],
                None if part.data is None else part.data[entry_mask])


class CompactMatrix:
    """An ``(n_rows, n_columns)`` sparse matrix as a binary part and value parts (see the module).

    Parameters
    ----------
    shape : (int, int)
    parts : sequence of Part
        One per entry of :data:`PART_DTYPES`, in that order, each with ``n_rows + 1`` row pointers.
    """

    __slots__ = ("shape", "parts", "_csr", "__weakref__")

    def __init__(self, shape, parts: Sequence[Part]):
        self.shape = (int(shape[0]), int(shape[1]))
        if len(parts) != len(PART_DTYPES):
            raise ValueError(f"{len(parts)} parts; expected {len(PART_DTYPES)}")
        for p, dt in zip(parts, PART_DTYPES):
            if len(p.indptr) != self.shape[0] + 1 or (p.data is None) != (dt is None):
                raise ValueError("a part does not match the matrix's rows or its value type")
        self.parts = tuple(parts)
        self._csr = None   # scipy copy, made by the first product with the scipy kernels

    # ------------------------------------------------------------------ conversions
    @classmethod
    def from_csr(cls, X, slab: int = 1 << 24, ones: bool = True) -> "CompactMatrix":
        """The entries of a scipy sparse matrix, one per row and column (duplicates added, zeros dropped).

        With ``ones`` False a 1 is a float32 value like any other and the ids-only part stays
        empty (difference rows, :mod:`ranker.models.delta`, whose kernel walks one value loop per row).

        A matrix with duplicate entries is summed on a copy first (the caller's stays as it is).
        Rows are read in slabs of about ``slab`` entries, so the temporaries stay small: the
        result is written into arrays of its final size (a first pass counts each part's
        entries per row), never assembled from pieces.
        """
        X = sp.csr_matrix(X)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        n = X.shape[0]
        indptr = X.indptr.astype(np.int64, copy=False)
        bounds = [0]
        while bounds[-1] < n:   # row slabs of about ``slab`` entries (at least one row)
            bounds.append(max(bounds[-1] + 1, int(np.searchsorted(indptr, indptr[bounds[-1]] + slab,
                                                                  side="right")) - 1))
            bounds[-1] = min(bounds[-1], n)

        def kinds(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
            s, e = int(indptr[a]), int(indptr[b])
            data = np.asarray(X.data[s:e], dtype=np.float64)
            kind = np.full(e - s, 2, dtype=np.int8)                      # float64
            kind[data.astype(np.float32) == data] = 1                    # exact in float32
            if ones:
                kind[data == 1.0] = 0                                    # a one: the id alone
            kind[data == 0.0] = 3                                        # dropped
            return kind, np.repeat(np.arange(b - a), np.diff(indptr[a:b + 1]))

        counts = np.zeros((len(PART_DTYPES), n), dtype=np.int64)
        kept = None   # the kinds of a matrix of one slab, computed once for both passes
        for a, b in zip(bounds, bounds[1:]):
            kind, row = kinds(a, b)
            for k in range(len(PART_DTYPES)):
                counts[k, a:b] = np.bincount(row[kind == k], minlength=b - a)
            if len(bounds) == 2:
                kept = kind
            del row
        ptrs = [_indptr(c) for c in counts]
        del counts
        idx = [np.empty(int(p[-1]), dtype=np.int32) for p in ptrs]
        vals = [None if dt is None else np.empty(int(p[-1]), dtype=dt) for p, dt in zip(ptrs, PART_DTYPES)]
        for a, b in zip(bounds, bounds[1:]):
            kind = kept if kept is not None else kinds(a, b)[0]
            s, e = int(indptr[a]), int(indptr[b])
            for k in range(len(PART_DTYPES)):
                sel = kind == k
                lo, hi = int(ptrs[k][a]), int(ptrs[k][b])
                idx[k][lo:hi] = X.indices[s:e][sel]
                if vals[k] is not None:
                    vals[k][lo:hi] = X.data[s:e][sel]
        return cls(X.shape, [Part(p, i, v) for p, i, v in zip(ptrs, idx, vals)])

    @classmethod
    def empty(cls, n_rows: int, n_columns: int) -> "CompactMatrix":
        z = np.zeros(n_rows + 1, dtype=np.int64)
        return cls((n_rows, n_columns), [Part(z, np.zeros(0, np.int32), None if dt is None else
                                              np.zeros(0, dt)) for dt in PART_DTYPES])

    def tocsr(self) -> sp.csr_matrix:
        """The same matrix as scipy CSR with float64 data, canonical (sorted, duplicates added)."""
        out = sp.csr_matrix(self.shape, dtype=np.float64)
        for p in self.parts:
            data = np.ones(p.nnz) if p.data is None else p.data.astype(np.float64)
            out = out + sp.csr_matrix((data, p.indices, p.indptr), shape=self.shape)
        out = sp.csr_matrix(out)
        out.sum_duplicates()
        return out

    def toarray(self) -> np.ndarray:
        return self.tocsr().toarray()

    # ------------------------------------------------------------------ properties
    @property
    def nnz(self) -> int:
        return sum(p.nnz for p in self.parts)

    @property
    def nbytes(self) -> int:
        """Bytes of the stored arrays (row pointers included)."""
        return sum(p.nbytes for p in self.parts)

    def arrays(self) -> list[np.ndarray]:
        """Every stored array in a fixed order (for digests)."""
        out = [np.asarray(self.shape, dtype=np.int64)]
        for p in self.parts:
            out += [p.indptr, p.indices] + ([] if p.data is None else [p.data])
        return out

    def row_lengths(self) -> np.ndarray:
        return sum(np.diff(p.indptr) for p in self.parts)

    def entries_before(self, rows: np.ndarray) -> np.ndarray:
        """Entries of the rows before each of ``rows`` (row numbers, ``n_rows`` allowed)."""
        return sum(p.indptr[rows] for p in self.parts)

    # ------------------------------------------------------------------ products
    def _kernel_args(self, backend: str | None) -> tuple[str, sp.csr_matrix | None]:
        backend = kernels.resolve(backend)
        if backend == "scipy" and self._csr is None:
            self._csr = self.tocsr()
        return backend, self._csr

    def dot(self, lam: np.ndarray, out: np.ndarray | None = None, backend: str | None = None) -> np.ndarray:
        """``X λ`` in float64 (one value per row); :mod:`.kernels` for ``backend``."""
        lam = np.ascontiguousarray(lam, dtype=np.float64)
        out = np.empty(self.shape[0]) if out is None else out
        backend, csr = self._kernel_args(backend)
        return kernels.dot(self.parts, lam, out, backend, csr)

    def rdot(self, r: np.ndarray, out: np.ndarray | None = None, backend: str | None = None) -> np.ndarray:
        """``Xᵀ r`` in float64 (one value per column)."""
        r = np.ascontiguousarray(r, dtype=np.float64)
        out = np.empty(self.shape[1]) if out is None else out
        backend, csr = self._kernel_args(backend)
        return kernels.rdot(self.parts, r, out, backend, csr)

    def __matmul__(self, lam):
        return self.dot(np.asarray(lam))

    def with_ids(self, dtype) -> "CompactMatrix":
        """The same matrix with its column ids stored as ``dtype`` (values and row pointers shared)."""
        return CompactMatrix(self.shape, [p._replace(indices=p.indices.astype(dtype, copy=False))
                                          for p in self.parts])

    # ------------------------------------------------------------------ selections
    def row_range(self, a: int, b: int) -> "CompactMatrix":
        """Rows ``a:b`` sharing this matrix's column ids and values (only row pointers are new).

        Row pointers that already start at 0 (the first rows, a part without entries) are shared too.
        """
        parts = []
        for p in self.parts:
            s, e = int(p.indptr[a]), int(p.indptr[b])
            parts.append(Part(p.indptr[a:b + 1] - s if s else p.indptr[a:b + 1], p.indices[s:e],
                              None if p.data is None else p.data[s:e]))
        return CompactMatrix((b - a, self.shape[1]), parts)

    def take_rows(self, rows) -> "CompactMatrix":
        """The given rows in the given order (a boolean mask or row numbers)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            mask = rows
            rows = np.flatnonzero(rows)
        else:
            rows = rows.astype(np.int64, copy=False)
            mask = None
            if len(rows) == 0 or np.all(np.diff(rows) > 0):   # ascending: an entry mask suffices
                mask = np.zeros(self.shape[0], dtype=bool)
                mask[rows] = True
        parts = []
        for p in self.parts:
            lens = np.diff(p.indptr)
            if mask is not None:
                kept = _masked(p, np.repeat(mask, lens))
                parts.append(Part(np.concatenate(([0], kept.indptr[1:][mask])), kept.indices, kept.data))
                continue
            new_ptr = _indptr(lens[rows])
            take = np.repeat(p.indptr[rows] - new_ptr[:-1], lens[rows]) + np.arange(new_ptr[-1])
            parts.append(Part(new_ptr, p.indices[take], None if p.data is None else p.data[take]))
        return CompactMatrix((len(rows), self.shape[1]), parts)

    def map_columns(self, new_of_old: np.ndarray, n_columns: int, rows: np.ndarray | None = None) -> "CompactMatrix":
        """Columns renumbered by ``new_of_old`` (``-1``: dropped), ``n_columns`` in all.

        With ``rows`` (a boolean mask), only those rows are kept, in the same pass: the
        training-row filters and the cut-off together copy each kept entry once.
        """
        new_of_old = np.asarray(new_of_old, dtype=np.int32)
        parts = []
        for p in self.parts:
            new = new_of_old[p.indices]
            keep = new >= 0
            if rows is not None:
                keep &= np.repeat(rows, np.diff(p.indptr))
            kept = Part(p.indptr, new, p.data) if keep.all() else _masked(p._replace(indices=new), keep)
            if rows is not None:
                kept = kept._replace(indptr=np.concatenate(([0], kept.indptr[1:][rows])))
            parts.append(kept)
        n_rows = self.shape[0] if rows is None else int(np.count_nonzero(rows))
        return CompactMatrix((n_rows, n_columns), parts)

    def select_columns(self, columns: Sequence[int], rows: np.ndarray | None = None) -> "CompactMatrix":
        """The matrix with exactly ``columns`` (old numbers, -1 for an absent one) in that order.

        ``rows``: a boolean mask of the rows to keep (all if None), applied in the same pass.
        """
        columns = np.asarray(columns, dtype=np.int64)
        new_of_old = np.full(self.shape[1], -1, dtype=np.int32)
        have = columns >= 0
        new_of_old[columns[have]] = np.flatnonzero(have)
        return self.map_columns(new_of_old, len(columns), rows)

    def used_columns(self) -> np.ndarray:
        """Column numbers with at least one entry, ascending."""
        seen = np.zeros(self.shape[1], dtype=bool)
        for p in self.parts:
            seen[p.indices] = True
        return np.flatnonzero(seen)

    def column_counts(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Entries per column (over the rows where the boolean ``rows`` holds)."""
        out = np.zeros(self.shape[1], dtype=np.int64)
        for p in self.parts:
            idx = p.indices if rows is None else p.indices[np.repeat(rows, np.diff(p.indptr))]
            out += np.bincount(idx, minlength=self.shape[1])
        return out

    def __repr__(self) -> str:
        return (f"CompactMatrix(shape={self.shape}, nnz={[p.nnz for p in self.parts]}, "
                f"{self.nbytes / 2**20:.1f} MiB)")

    def __reduce__(self):
        return (CompactMatrix, (self.shape, self.parts))


#: Bytes of consumed matrices after which :func:`vstack` hands the C heap's free memory back.
#: Pieces below glibc's mmap threshold (32 MB at most: 64 sentences of extraction, a training
#: slab) are freed into the heap, which keeps them resident: stacking 2.8 GB of them held 2.8 GB of
#: freed pieces beside the result.
TRIM_BYTES = 256 * 2**20


def vstack(mats: Sequence[CompactMatrix], consume: bool = False) -> CompactMatrix:
    """Rows of ``mats`` one after another (same number of columns).

    The result's arrays are allocated once and filled matrix by matrix. With ``consume``
    (``mats`` a list) each matrix leaves the list once copied, so when the caller holds no other
    reference the pieces not yet copied and the filled part of the result are all that is held:
    one copy of the entries, not two (the result's untouched pages take no memory), the memory
    of those copied given back as it goes (:data:`TRIM_BYTES`).
    """
    if not mats:
        raise ValueError("nothing to stack")
    d = mats[0].shape[1]
    if any(m.shape[1] != d for m in mats):
        raise ValueError("matrices to stack differ in their columns")
    todo = mats if consume else list(mats)
    if len(todo) == 1:
        return todo.pop()
    n_rows = sum(m.shape[0] for m in todo)
    out = [Part(np.zeros(n_rows + 1, dtype=np.int64),
                np.empty(sum(m.parts[k].nnz for m in todo), dtype=todo[0].parts[k].indices.dtype),
                None if dt is None else np.empty(sum(m.parts[k].nnz for m in todo), dtype=dt))
           for k, dt in enumerate(PART_DTYPES)]
    row, at = 0, [0] * len(PART_DTYPES)
    freed = 0
    while todo:
        m = todo.pop(0)
        r = m.shape[0]
        for k, (o, p) in enumerate(zip(out, m.parts)):
            n = p.nnz
            np.add(p.indptr[1:], at[k], out=o.indptr[row + 1:row + r + 1])
            o.indices[at[k]:at[k] + n] = p.indices
            if o.data is not None:
                o.data[at[k]:at[k] + n] = p.data
            at[k] += n
        row += r
        freed += m.nbytes if consume else 0
        del m, p
        if freed >= TRIM_BYTES:
            release_free_heap()
            freed = 0
    if freed:
        release_free_heap()
    return CompactMatrix((n_rows, d), out)


def sentence_slabs(X: CompactMatrix, offsets: np.ndarray, entries: int) -> list[tuple[int, int]]:
    """Runs of whole sentences ``(first, end)`` holding about ``entries`` nonzeros each (at least one).

    ``offsets`` are the sentences' first rows (``np.arange(n + 1)``: runs of rows); what the
    pipeline's slab-at-a-time loops over training rows, held-out rows and stored rows share.
    """
    n_sent = len(offsets) - 1
    at = X.entries_before(offsets)                    # nonzeros before each sentence
    bounds = [0]
    while bounds[-1] < n_sent:
        nxt = int(np.searchsorted(at, at[bounds[-1]] + entries, side="right")) - 1
        bounds.append(min(n_sent, max(bounds[-1] + 1, nxt)))
    return list(zip(bounds, bounds[1:]))


def as_compact(X) -> CompactMatrix:
    """``X`` itself if compact, else its entries (scipy sparse or dense) as a CompactMatrix.

    A stored matrix read a run of rows at a time (:class:`ranker.pipeline.stored_rows.StoredRows`)
    is taken as it is too: it gives the same row ranges and column counts.
    """
    return X if isinstance(X, CompactMatrix) or getattr(X, "rows_on_demand", False) else CompactMatrix.from_csr(X)
