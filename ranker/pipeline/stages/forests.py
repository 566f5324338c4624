"""Forest sizes as a report counts them: the same lines for a scored split and for unscored input.

``ranker run`` counts its test split's candidates this way, and ``ranker apply --report`` counts
the input it selected on (text or lists without gold trees), so a reader compares the two line by
line.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

import numpy as np


def forest_size_counts(sizes: np.ndarray, what: str) -> dict[str, float]:
    """``what`` candidates in all, per sentence (mean, median), and sentences without any."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return {f"{what} candidates": int(sizes.sum()),
            f"{what} candidates per sentence (mean)": float(sizes.mean()) if len(sizes) else 0.0,
            f"{what} candidates per sentence (median)": float(np.median(sizes)) if len(sizes) else 0.0,
            f"{what} sentences without candidates": int((sizes == 0).sum())}


def forest_quality_counts(qualities: Iterable[tuple[str, ...]], what: str) -> dict[str, float]:
    """How many sentences' forests are of each quality (their first candidate's: ``full``, ...)."""
    got = Counter(q[0] for q in qualities if q)
    return {f"{what} sentences whose forest is {q}": n for q, n in sorted(got.items())}
