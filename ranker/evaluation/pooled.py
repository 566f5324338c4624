"""EVALB counts per sentence read from files, pooled over cross-validation folds.

A cross-validation compares systems whose selections are files (the ranker's ``selected/*.mrg``,
an outside reranker's output) on every fold's test set. Pooling sums per-sentence integer counts
over all folds before dividing once, as EVALB's totals do over one file, so the pooled F is the F
of the concatenated files (not a mean of fold F values, which would weigh a short fold like a long
one), and a paired test over every sentence of every fold
(:func:`~ranker.evaluation.significance.paired_randomization_test`) reads the same arrays.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .bounds import error_reduction, f1_score
from .evalb_params import EvalbParams
from .evalb_totals import OK


def evalb_sentence_counts(gold_path: str | Path, test_path: str | Path, params: EvalbParams) -> np.ndarray:
    """``(gold, test, matched)`` brackets per line pair of two EVALB input files, shape ``(n, 3)``.

    A line EVALB reports as an error (``Length unmatch``, ``Words unmatch``) or skips adds nothing,
    exactly as EVALB leaves it out of its totals, so the counts' sum gives ``evalb``'s bracketing F.
    """
    from .evalb_fast import score_evalb_files

    cols = score_evalb_files(gold_path, test_path, params)
    ok = cols.status == OK
    return np.stack([np.where(ok, cols.gold, 0), np.where(ok, cols.test, 0),
                     np.where(ok, cols.matched, 0)], axis=1).astype(np.int64)


def pooled_f(per_fold: Sequence[np.ndarray]) -> float:
    """Bracketing F (percent) of the folds' ``(n, 3)`` counts summed together."""
    return float(f1_score(np.concatenate(per_fold).sum(axis=0)))


def pooled_scores(counts: Mapping[str, Sequence[np.ndarray]], first: str, oracle: str) -> dict[str, dict]:
    """Pooled F of every system and its phi, the share of the ``first``-to-``oracle`` gap it closes.

    ``counts`` maps a system to its per-fold count arrays (the same folds, in the same order, for
    every system). Returns ``{system: {"f": F, "phi": percent or None}}``; phi is None for the
    first and oracle systems themselves and when the two coincide.
    """
    f = {name: pooled_f(arrays) for name, arrays in counts.items()}
    return {name: {"f": v, "phi": None if name in (first, oracle)
                   else error_reduction(v, f[first], f[oracle])}
            for name, v in f.items()}
