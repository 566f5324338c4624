"""Confidence intervals and significance tests for corpus-level scores, from per-sentence counts.

Corpus F is a ratio of sums, not a mean of sentence scores, so neither a t-test nor a sentence-level
bootstrap of F values is right. Both procedures here resample *sentences* and recompute the corpus
score from the summed integer counts, as Koehn (2004) and Berg-Kirkpatrick et al. (2012) do for MT
and Bikel's comparator does for parsing. Everything is vectorized over resamples and seeded, so a
report is reproducible to the digit.

Counts are arrays of shape ``(n_sentences, 3)`` holding ``(gold, test, matched)`` per sentence; for
recall-only or conformance metrics the caller passes a ``score`` function of the summed columns.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .bounds import f1_score

Score = Callable[[np.ndarray], np.ndarray]


class Interval(NamedTuple):
    """A two-sided percentile interval around an observed score."""

    low: float
    high: float


def _resample_sums(counts: np.ndarray, idx: np.ndarray) -> np.ndarray:
    # counts (n, k), idx (B, n) -> (B, k) sums; chunked so memory stays bounded for big B*n.
    out = np.empty((idx.shape[0], counts.shape[1]), dtype=np.float64)
    step = max(1, 2_000_000 // max(1, idx.shape[1]))
    for a in range(0, idx.shape[0], step):
        out[a:a + step] = counts[idx[a:a + step]].sum(axis=1)
    return out


def bootstrap_interval(counts, *, score: Score = f1_score, n_resamples: int = 1000,
                       confidence: float = 0.95, seed: int = 0) -> Interval:
    """Percentile bootstrap interval of a corpus score over resampled sentences.

    Parameters
    ----------
    counts
        ``(n_sentences, k)`` per-sentence integer counts.
    score
        Maps summed counts (last axis ``k``) to a score; vectorized over leading axes.
    n_resamples, confidence, seed
        Resamples drawn, interval coverage, and the seed that makes the interval reproducible.

    Returns
    -------
    Interval
        ``(low, high)``; both equal the observed score when there is a single sentence.
    """
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.shape[0]
    if n == 0:
        return Interval(0.0, 0.0)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_resamples, n))
    stats = score(_resample_sums(counts, idx))
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return Interval(float(lo), float(hi))


def paired_randomization_test(counts_a, counts_b, *, score: Score = f1_score,
                              n_resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided p-value that systems A and B score the same, by approximate randomization.

    Each resample swaps the two systems' outputs on every sentence independently with probability
    1/2 (the null hypothesis makes them exchangeable) and recomputes the corpus-score difference.
    The p-value is ``(r + 1) / (n_resamples + 1)`` where ``r`` counts resamples whose absolute
    difference is at least the observed one (Noreen 1989; the +1 keeps it a valid p-value).
    """
    a = np.asarray(counts_a, dtype=np.float64)
    b = np.asarray(counts_b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"count arrays differ in shape: {a.shape} vs {b.shape}")
    observed = abs(float(score(a.sum(axis=0)) - score(b.sum(axis=0))))
    if a.shape[0] == 0:
        return 1.0
    diff = a - b                     # swapping a sentence flips the sign of its contribution
    base_b = b.sum(axis=0)
    rng = np.random.default_rng(seed)
    hits = 0
    step = max(1, 2_000_000 // max(1, a.shape[0]))
    for start in range(0, n_resamples, step):
        m = min(step, n_resamples - start)
        swap = rng.random((m, a.shape[0])) < 0.5
        keep = ~swap
        # system A' takes a where kept, b where swapped: A' = b + keep*diff, B' = a - keep*diff
        a_sums = base_b + keep.astype(np.float64) @ diff
        b_sums = a.sum(axis=0) - keep.astype(np.float64) @ diff
        d = np.abs(score(a_sums) - score(b_sums))
        hits += int(np.count_nonzero(d >= observed - 1e-12))
    return (hits + 1) / (n_resamples + 1)
