"""Candidates grouped by sentence: validation of group ids, offsets, and segment-wise reductions.

Every ranker sees all candidates of a corpus stacked in one array, sentence ``g`` in rows
``offsets[g]:offsets[g + 1]``. The reductions here work on whole segments at once through
``np.ufunc.reduceat`` so that no ranker loops over sentences in Python.
"""
from __future__ import annotations

import numpy as np

from ..errors import RankerError
from ..matrices import fixed


class GroupError(RankerError):
    """Group ids that do not describe contiguous, non-empty sentences of the candidate rows."""


def group_offsets(groups, n_rows: int | None = None) -> np.ndarray:
    """Turn per-row group ids into segment offsets, checking that every group is contiguous.

    Parameters
    ----------
    groups : array-like of int or str, shape (n_rows,)
        The sentence each candidate row belongs to; rows of one sentence must be adjacent.
    n_rows : int, optional
        The number of rows the groups must describe (the rows of ``X``).

    Returns
    -------
    offsets : ndarray of int64, shape (n_groups + 1,)
        ``offsets[0] == 0`` and ``offsets[-1] == n_rows``.
    """
    g = np.asarray(groups)
    if g.ndim != 1:
        raise GroupError(f"groups must be one id per candidate row, got shape {g.shape}")
    if n_rows is not None and len(g) != n_rows:
        raise GroupError(f"groups has {len(g)} ids but there are {n_rows} candidate rows")
    if len(g) == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(g[1:] != g[:-1]) + 1
    offsets = np.concatenate(([0], starts, [len(g)])).astype(np.int64)
    firsts = g[offsets[:-1]]
    if len(np.unique(firsts)) != len(firsts):
        # A repeated id means one sentence's candidates are split by another's.
        vals, counts = np.unique(firsts, return_counts=True)
        raise GroupError(f"group {vals[counts > 1][0].item()!r} is not contiguous: the candidates of a "
                         "sentence must be adjacent rows")
    return offsets


def row_group_index(offsets: np.ndarray) -> np.ndarray:
    """The group number of every row (``0..n_groups-1``), as int64."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def segment_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The maximum of each segment; segments must be non-empty."""
    return np.maximum.reduceat(values, offsets[:-1])


def segment_logsumexp(values: np.ndarray, offsets: np.ndarray, weights: np.ndarray | None = None):
    """``log sum_x w_x exp(v_x)`` per segment, stable, and the normalised weights ``w e^v / sum``.

    Entries with zero weight are left out of both the sum and its shift, so a segment whose
    weighted mass sits far below its maximum does not underflow; a segment with no positive
    weight gets ``-inf`` and probabilities of zero.

    Returns
    -------
    lse : ndarray, shape (n_groups,)
    prob : ndarray, shape (n_rows,)
    """
    idx = row_group_index(offsets)
    if weights is None:
        shifted = values
        m = segment_max(values, offsets)
    else:
        pos = weights > 0
        shifted = np.where(pos, values, -np.inf)
        m = segment_max(shifted, offsets)
    m_safe = np.where(np.isfinite(m), m, 0.0)
    e = fixed.exp(shifted - m_safe[idx])      # fdlibm's: the same bits on every CPU
    if weights is not None:
        e *= weights
    s = np.add.reduceat(e, offsets[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        lse = fixed.log(s) + m_safe
        prob = np.where(s[idx] > 0, e / np.where(s > 0, s, 1.0)[idx], 0.0)
    return lse, prob


def first_argmax(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The index within each segment of its largest value; a tie goes to the earlier row.

    Returns
    -------
    ndarray of int64, shape (n_groups,)
        Positions relative to the segment's first row.
    """
    if len(offsets) <= 1:
        return np.zeros(0, dtype=np.int64)
    m = segment_max(values, offsets)
    idx = row_group_index(offsets)
    rows = np.arange(len(values), dtype=np.int64)
    hit = np.where(values == m[idx], rows, np.iinfo(np.int64).max)
    return np.minimum.reduceat(hit, offsets[:-1]) - offsets[:-1]
