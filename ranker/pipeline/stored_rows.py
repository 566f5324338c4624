"""A stored feature matrix read a run of rows at a time, never whole (issue 45).

Training needs each training matrix three times over, slab by slab (the cut-off's counts, the
frequency order's counts, the kept rows: :func:`ranker.pipeline.training_rows.training_data`), and
never all of it at once; held in memory whole, the matrix sat beside the training rows being built
from it (GUM's training split under ``best_f``: 2.1 million candidates, a compact matrix of
about 2.8 GB, beside the training rows). :func:`stored_matrix` gives a
:class:`~ranker.features.CandidateMatrix` whose ``X`` (:class:`StoredRows`) holds the row
pointers only and reads each run of rows from the store's pieces when asked
(:meth:`ranker.store.Store.artifact_bytes`): the same row ranges, array for array, as the matrix
read whole (:func:`ranker.pipeline.feature_cache._read_matrix`).
"""
from __future__ import annotations

import json

import numpy as np

from ..matrices.compact import CompactMatrix, Part, sentence_slabs
from ..matrices.parts import PART_DTYPES

#: Entries read at a time for column counts over the whole matrix.
SLAB_ENTRIES = 1 << 24


class StoredRows:
    """The rows of a stored matrix, read from the store a row range at a time.

    Offers what training takes of a :class:`~ranker.matrices.compact.CompactMatrix`: ``shape``,
    :meth:`row_range`, :meth:`column_counts` and :meth:`entries_before`. Anything else (a column
    selection of the whole) is refused loudly, never answered from a part of the rows.
    """

    rows_on_demand = True   # ranker.matrices.compact.as_compact takes it as it is

    def __init__(self, read, shape, indptrs: list[np.ndarray], where: list[tuple]):
        self._read = read                  # (start, size) -> bytes of the stored matrix
        self.shape = (int(shape[0]), int(shape[1]))
        self._indptrs = indptrs            # each part's row pointers (int64, in memory)
        self._where = where                # each part's (indices start, dtype, data start or None, dtype)

    @property
    def nnz(self) -> int:
        return int(sum(p[-1] for p in self._indptrs))

    def entries_before(self, rows: np.ndarray) -> np.ndarray:
        """Entries of the rows before each of ``rows`` (row numbers, ``n_rows`` allowed)."""
        return sum(p[rows] for p in self._indptrs)

    def _array(self, start: int, dtype: np.dtype, a: int, b: int) -> np.ndarray:
        return np.frombuffer(self._read(start + a * dtype.itemsize, (b - a) * dtype.itemsize), dtype=dtype)

    def row_range(self, a: int, b: int) -> CompactMatrix:
        """Rows ``a:b`` as a compact matrix of their own (read from the store)."""
        parts = []
        for ptr, (at, idt, dat, ddt) in zip(self._indptrs, self._where):
            s, e = int(ptr[a]), int(ptr[b])
            parts.append(Part(ptr[a:b + 1] - s, self._array(at, idt, s, e),
                              None if dat is None else self._array(dat, ddt, s, e)))
        return CompactMatrix((b - a, self.shape[1]), parts)

    def column_counts(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Entries per column (over the rows where the boolean ``rows`` holds), a slab at a time."""
        out = np.zeros(self.shape[1], dtype=np.int64)
        for a, b in sentence_slabs(self, np.arange(self.shape[0] + 1), SLAB_ENTRIES):   # runs of rows
            if rows is None:
                out += self.row_range(a, b).column_counts()
            elif rows[a:b].any():
                out += self.row_range(a, b).column_counts(rows[a:b])
        return out

    def __repr__(self) -> str:
        return f"StoredRows(shape={self.shape}, nnz={self.nnz})"


def stored_matrix(read):
    """The matrix a store holds, whose bytes ``read(start, size)`` gives, with rows read on demand.

    ``read`` reads the bytes :func:`ranker.features.matrix_bytes.to_pieces` wrote
    (:func:`ranker.pipeline.feature_cache.stored_bytes`). Returns None for a matrix of the previous
    format (a deflated npz), which only a whole read can give.
    """
    from ..features import CandidateMatrix
    from ..features.matrix_bytes import MAGIC, aligned

    if read(0, len(MAGIC)) != MAGIC:
        return None
    n = int.from_bytes(read(len(MAGIC), 8), "little")
    head = json.loads(read(len(MAGIC) + 8, n))
    base = aligned(len(MAGIC) + 8 + n)
    table = {name: (base + off, np.dtype(dt), size) for name, dt, size, off in head["arrays"]}

    def whole(name: str) -> np.ndarray:
        at, dt, size = table[name]
        return np.frombuffer(read(at, size * dt.itemsize), dtype=dt).astype(np.int64)

    indptrs, where = [], []
    for k in range(len(PART_DTYPES)):
        indptrs.append(whole(f"indptr{k}"))
        data = table.get(f"data{k}")
        where.append((table[f"indices{k}"][0], table[f"indices{k}"][1],
                      None if data is None else data[0], None if data is None else data[1]))
    X = StoredRows(read, head["shape"], indptrs, where)
    return CandidateMatrix(X, whole("offsets"), tuple(head["names"]), tuple(head["ids"]))
