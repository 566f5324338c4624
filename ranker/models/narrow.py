"""A training matrix whose frequent columns take two bytes an entry: 16-bit column ids below 65,536.

The log-linear objective streams its training matrix at every evaluation, and after the compact
layout (:mod:`.compact`: a binary property is its column id alone) the column ids are most of the
bytes: 4 of the 5 bytes an entry on the WSJ sample. With the columns numbered most frequent first,
the first 65,536 columns hold 99.4% of the entries of the Link Grammar training matrix that
``benchmarks/peer_compare.py`` uses (192.8 million entries, 133,497 properties; the main job's,
60,955 properties, fits in them whole), so a :class:`NarrowMatrix` keeps the matrix as two column ranges side
by side, each a :class:`~.compact.CompactMatrix`:

* ``low``: columns ``0 .. n_low - 1`` with ``uint16`` ids (``n_low`` at most 65,536);
* ``high``: columns ``n_low ..`` with ``int32`` ids counted from ``n_low``.

A row's score is its ``low`` sum plus its ``high`` sum, each added in a fixed order
(:func:`ranker.matrices.kernels.block_objective`), so a result depends on the data alone. Only training builds
one (:func:`ranker.pipeline.training_rows.training_data` numbers the kept properties by frequency and
splits each slab of kept rows with :func:`split_columns`); the stored matrices stay compact. It
offers what a fit uses of a compact matrix: row ranges and selections, the products, a scipy
copy, the parts for checks and digests.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..matrices.compact import CompactMatrix, Part, _masked

#: Columns a 16-bit id can name.
NARROW_COLUMNS = 1 << 16


class NarrowMatrix:
    """An ``(n_rows, n_columns)`` matrix as a 16-bit ``low`` column range and an ``int32`` ``high`` one.

    Parameters
    ----------
    low : CompactMatrix
        Columns ``0 .. n_low - 1``, ``uint16`` ids (``n_low = low.shape[1] <= 65536``).
    high : CompactMatrix
        The remaining columns, ids counted from ``n_low``; the same rows.
    """

    __slots__ = ("low", "high", "shape", "_csr", "__weakref__")

    def __init__(self, low: CompactMatrix, high: CompactMatrix):
        if low.shape[0] != high.shape[0] or low.shape[1] > NARROW_COLUMNS:
            raise ValueError("a narrow matrix needs two column ranges of the same rows, the first "
                             f"of at most {NARROW_COLUMNS} columns")
        if any(p.indices.dtype != np.uint16 for p in low.parts):
            raise ValueError("the low column range's ids must be uint16")
        self.low, self.high = low, high
        self.shape = (low.shape[0], low.shape[1] + high.shape[1])
        self._csr = None

    @property
    def n_low(self) -> int:
        return self.low.shape[1]

    @property
    def parts(self) -> tuple[Part, ...]:
        """Every part of both ranges (``low``'s first): for checks over values and row lengths."""
        return self.low.parts + self.high.parts

    @property
    def nnz(self) -> int:
        return self.low.nnz + self.high.nnz

    @property
    def nbytes(self) -> int:
        return self.low.nbytes + self.high.nbytes

    @property
    def has_float64(self) -> bool:
        """Whether some value needs float64 (else every value is exact in float32)."""
        return bool(self.low.parts[2].nnz or self.high.parts[2].nnz)

    def arrays(self) -> list[np.ndarray]:
        """Every stored array in a fixed order (for digests)."""
        return [np.asarray([self.n_low], dtype=np.int64)] + self.low.arrays() + self.high.arrays()

    def row_lengths(self) -> np.ndarray:
        return self.low.row_lengths() + self.high.row_lengths()

    def row_range(self, a: int, b: int) -> "NarrowMatrix":
        """Rows ``a:b`` sharing this matrix's arrays (see :meth:`.CompactMatrix.row_range`)."""
        return NarrowMatrix(self.low.row_range(a, b), self.high.row_range(a, b))

    def take_rows(self, rows) -> "NarrowMatrix":
        """The given rows in the given order (see :meth:`.CompactMatrix.take_rows`)."""
        return NarrowMatrix(self.low.take_rows(rows), self.high.take_rows(rows))

    def column_counts(self, rows: np.ndarray | None = None) -> np.ndarray:
        return np.concatenate((self.low.column_counts(rows), self.high.column_counts(rows)))

    def tocsr(self) -> sp.csr_matrix:
        """The same matrix as scipy CSR with float64 data, canonical."""
        out = sp.hstack([self.low.tocsr(), self.high.tocsr()], format="csr")
        out.sum_duplicates()
        return out

    def toarray(self) -> np.ndarray:
        return self.tocsr().toarray()

    def dot(self, lam: np.ndarray, out: np.ndarray | None = None, backend: str | None = None) -> np.ndarray:
        """``X λ`` in float64: the low range's sums plus the high range's."""
        lam = np.ascontiguousarray(lam, dtype=np.float64)
        out = self.low.dot(lam[:self.n_low], out, backend)
        out += self.high.dot(lam[self.n_low:], backend=backend)
        return out

    def rdot(self, r: np.ndarray, out: np.ndarray | None = None, backend: str | None = None) -> np.ndarray:
        """``Xᵀ r`` in float64 (one value per column)."""
        out = np.empty(self.shape[1]) if out is None else out
        self.low.rdot(r, out[:self.n_low], backend)
        self.high.rdot(r, out[self.n_low:], backend)
        return out

    def __matmul__(self, lam):
        return self.dot(np.asarray(lam))

    def __repr__(self) -> str:
        return (f"NarrowMatrix(shape={self.shape}, n_low={self.n_low}, nnz={self.low.nnz}+{self.high.nnz}, "
                f"{self.nbytes / 2**20:.1f} MiB)")

    def __reduce__(self):
        return (NarrowMatrix, (self.low, self.high))


def split_columns(m: CompactMatrix, n_low: int) -> NarrowMatrix:
    """``m`` as a narrow matrix: its columns below ``n_low`` with 16-bit ids, the rest beside them.

    Each part's entries keep their order within a row on either side. The result shares no
    array with ``m`` (a slab of a stored matrix can be released once split).
    """
    if n_low > NARROW_COLUMNS:
        raise ValueError(f"n_low {n_low} is over {NARROW_COLUMNS}")
    n_low = min(int(n_low), m.shape[1])
    low, high = [], []
    for p in m.parts:
        is_low = p.indices < n_low
        if is_low.all():
            lo = Part(p.indptr.copy(), p.indices, None if p.data is None else p.data.copy())
        else:
            lo = _masked(p, is_low)
        hi = _masked(p, ~is_low)
        low.append(lo._replace(indices=lo.indices.astype(np.uint16)))
        high.append(hi._replace(indices=(hi.indices - n_low).astype(np.int32)))
    return NarrowMatrix(CompactMatrix((m.shape[0], n_low), low),
                        CompactMatrix((m.shape[0], m.shape[1] - n_low), high))


def narrow_vstack(mats: Sequence[NarrowMatrix], consume: bool = False) -> NarrowMatrix:
    """Rows of ``mats`` one after another (same column ranges); see :func:`.compact.vstack`."""
    from ..matrices.compact import vstack

    todo = mats if consume else list(mats)
    if not todo:
        raise ValueError("nothing to stack")
    if len({m.n_low for m in todo}) != 1 or len({m.shape[1] for m in todo}) != 1:
        raise ValueError("narrow matrices to stack differ in their columns")
    lows, highs = [m.low for m in todo], [m.high for m in todo]
    todo.clear()
    low = vstack(lows, consume=True)
    return NarrowMatrix(low, vstack(highs, consume=True))

