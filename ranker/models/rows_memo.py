"""What a fit computes from its training rows once, kept for as long as the rows themselves live.

The fits of one training set (each σ² of the grid, the learning curve's prefixes) stream the same
rows object, and some of what they derive from it costs as much as tens of evaluations: the
difference rows (:func:`.delta.delta_rows_once`) and the preconditioner's Hessian diagonal
(:func:`.precondition.jacobi_scales`, in numpy a sort of every entry, once per σ² of the grid).
A :class:`RowsMemo` keeps one result per rows object, weakly (it goes with the rows), and checks
the rows' content again at every use (shapes, sentence cuts and sums of every array), so rows
changed in place are computed anew, never answered from the old result.
"""
from __future__ import annotations

import hashlib
import threading
import weakref
from typing import Callable

import numpy as np


def fingerprint(X, offsets: np.ndarray) -> tuple:
    """What identifies the rows' content cheaply: shapes, the sentence cuts, sums of every array."""
    return (X.shape, hashlib.blake2b(np.asarray(offsets, dtype=np.int64).tobytes(), digest_size=16).digest(),
            tuple((p.nnz, int(p.indices.sum(dtype=np.int64)),
                   None if p.data is None else float(p.data.sum(dtype=np.float64))) for p in X.parts))


class RowsMemo:
    """One result per rows object (a compact or narrow matrix), kept while the rows live."""

    def __init__(self):
        self._kept: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, X, offsets: np.ndarray, build: Callable[[], object]):
        """``build()``'s result for the rows ``X`` cut by ``offsets``: computed once while they live unchanged."""
        key = fingerprint(X, offsets)
        with self._lock:
            hit = self._kept.get(X)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = build()
        with self._lock:
            self._kept[X] = (key, value)
        return value
