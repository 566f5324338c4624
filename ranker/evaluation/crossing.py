"""Crossing brackets: how many test spans overlap a gold span without either containing the other.

Every scheme counts crossings (EVALB, PARSEVAL, MPH, flat keys' violations), so this is the one
place that does. A pair-by-pair check costs gold x test comparisons, which is the fastest way for
sentences of ordinary length but hours for a 100,000-word tree; above :data:`PAIRWISE_LIMIT` pairs
the count is made with range-maximum/minimum queries over per-position tables (a test span
``(s, e)`` is crossed when a gold span starting inside it ends after ``e``, or one ending inside
it starts before ``s``), the method :mod:`.evalb_fast` uses for whole files.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Iterable

if TYPE_CHECKING:
    import numpy as np

# numpy is imported where the large-input path needs it: every scheme imports this module, and
# numpy's import (0.1-0.3 s) would be most of `ranker evaluate`'s time on a file of a few
# thousand pairs.

#: Up to this many gold x test pairs the spans are compared pair by pair.
PAIRWISE_LIMIT = 1 << 14


def crossing_count(gold_spans: Collection[tuple[int, int]], test_spans: Iterable[tuple[int, int]]) -> int:
    """How many test spans (each occurrence counts) cross some gold span.

    Parameters
    ----------
    gold_spans
        Half-open ``(start, end)`` word spans; duplicates change nothing.
    test_spans
        The spans to check, counted as given.
    """
    gold = list(gold_spans)
    test = list(test_spans)
    if len(gold) * len(test) <= PAIRWISE_LIMIT:
        if not gold or not test:
            return 0
        # (ts, te) is crossed when a gold span starting inside it ends after te, or one ending
        # inside it starts before ts: per position, the farthest end of the gold spans starting
        # there and the earliest start of those ending there, compared by slices (C speed)
        size = max(max(max(s, e) for s, e in gold), max(max(s, e) for s, e in test)) + 1
        max_end = [-1] * size
        min_start = [size] * size
        for gs, ge in gold:
            if ge > max_end[gs]:
                max_end[gs] = ge
            if gs < min_start[ge]:
                min_start[ge] = gs
        return sum(1 for ts, te in test if te - ts >= 2 and (
            max(max_end[ts + 1:te]) > te or min(min_start[ts + 1:te]) < ts))
    import numpy as np

    return int(crossed(np.array(gold, dtype=np.int64).reshape(-1, 2),
                       np.array(test, dtype=np.int64).reshape(-1, 2)).sum())


def crossed(gold: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Per test span (rows of ``test``, columns start and end): whether some gold span crosses it."""
    import numpy as np

    out = np.zeros(len(test), dtype=bool)
    if not len(gold) or not len(test):
        return out
    size = int(max(gold.max(), test.max())) + 1
    max_end = np.full(size, -1, dtype=np.int64)
    np.maximum.at(max_end, gold[:, 0], gold[:, 1])
    min_start = np.full(size, size, dtype=np.int64)
    np.minimum.at(min_start, gold[:, 1], gold[:, 0])
    q = np.flatnonzero(test[:, 1] - test[:, 0] >= 2)    # a crossing needs a position inside
    if not len(q):
        return out
    s, e = test[q, 0], test[q, 1]
    levels = int(np.floor(np.log2(max(int((e - s - 1).max()), 1)))) + 1
    later = range_query(range_tables(max_end, levels, np.maximum, -1), s + 1, e - 1, np.maximum)
    earlier = range_query(range_tables(min_start, levels, np.minimum, size), s + 1, e - 1, np.minimum)
    out[q] = (later > e) | (earlier < s)
    return out


def range_tables(values: np.ndarray, levels: int, op, neutral) -> list[np.ndarray]:
    """Sparse table: ``tables[k][i]`` is ``op`` over ``values[i : i + 2**k]`` (``neutral`` past the end)."""
    import numpy as np

    tables = [values]
    for k in range(1, levels + 1):
        prev = tables[-1]
        h = 1 << (k - 1)
        cur = np.full_like(prev, neutral)
        cur[:len(prev) - h] = op(prev[:len(prev) - h], prev[h:])
        tables.append(cur)
    return tables


def range_query(tables, lo, hi, op):
    """``op`` over ``values[lo..hi]`` (inclusive, lo <= hi) for every query, via a sparse table."""
    import numpy as np

    n = hi - lo + 1
    k = np.zeros(len(n), dtype=np.int64)
    if len(n):
        k = np.floor(np.log2(n)).astype(np.int64)
        k -= (1 << k) > n  # guard float rounding
        k += (1 << (k + 1)) <= n
    out = np.empty(len(n), dtype=tables[0].dtype)
    for level in np.unique(k):
        sel = k == level
        t = tables[level]
        out[sel] = op(t[lo[sel]], t[hi[sel] - (1 << level) + 1])
    return out
