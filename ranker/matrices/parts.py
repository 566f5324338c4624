"""One part of a compact matrix: row-aligned entries of one value type, as CSR arrays.

Both :class:`~.compact.CompactMatrix` (which keeps up to three parts) and the kernels that walk
them (:mod:`.kernels`, which also make empty ones) read this layout, so it sits below both.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Value type of each part, in the fixed order parts are kept and summed (None: every value is 1).
PART_DTYPES = (None, np.dtype(np.float32), np.dtype(np.float64))


class Part(NamedTuple):
    """Row-aligned entries of one value type: CSR arrays with ``data`` None when every value is 1."""

    indptr: np.ndarray             # int64, (n_rows + 1,), from 0
    indices: np.ndarray            # int32 column ids (uint16 in a narrow matrix's low range)
    data: np.ndarray | None

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.indices.nbytes + (0 if self.data is None else self.data.nbytes)
