"""Report tables from per-candidate counts: bounds, rankers, intervals, p-values, breakdowns, plots."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..evaluation.bounds import (METRICS, ForestCounts, corpus_score, error_reduction,
                                 expected_counts, oracle_choice, selected_counts)
from ..evaluation.significance import bootstrap_interval, paired_randomization_test
from .config import EvaluationSection
from .report import BreakdownGroup, MetricTable, Plot, RankerScore


#: The choices every other ranker is tested against (the report's p columns, in their order).
BASELINES = ("native", "heidorn")


def metric_table(metric: str, fc: ForestCounts, choices: dict[str, np.ndarray], ev: EvaluationSection,
                 seed: int, with_tests: bool) -> MetricTable:
    m = METRICS[metric]
    upper = corpus_score(m, selected_counts(fc, oracle_choice(fc, m.score)))
    lower = corpus_score(m, expected_counts(fc))
    sel = {r: selected_counts(fc, c) for r, c in choices.items()}
    rankers = {}
    native = corpus_score(m, sel["native"]) if "native" in sel else None
    for r, counts in sel.items():
        score = corpus_score(m, counts)
        ci = bootstrap_interval(counts, score=m.score, n_resamples=ev.bootstrap_resamples,
                                confidence=ev.confidence, seed=seed)
        # each ranker against each baseline it is not (a test of a choice against itself says nothing)
        p_native, p_heidorn = (
            paired_randomization_test(counts, sel[b], score=m.score, n_resamples=ev.randomization_resamples,
                                      seed=seed) if with_tests and b in sel and b != r else None
            for b in BASELINES)
        # phi is error reduction measured from the native choice instead of from random
        phi = error_reduction(score, native, upper) if native is not None else None
        rankers[r] = RankerScore(score, error_reduction(score, lower, upper), tuple(ci),
                                 p_native, p_heidorn, phi)
    return MetricTable(metric, m.title, upper, lower, rankers, fc.n_sentences)


def breakdown(labels: Sequence[str], order: Sequence[str], fcs: dict[str, ForestCounts],
              choices: dict[str, np.ndarray], ev: EvaluationSection, seed: int) -> list:
    labels = np.asarray(labels)
    n = len(labels)
    groups = []
    for g in order:
        mask = labels == g if g != "all" else np.ones(n, dtype=bool)
        k = int(mask.sum())
        if k == 0:
            continue
        tables = {m: metric_table(m, fc.subset(mask), {r: c[mask] for r, c in choices.items()}, ev, seed,
                                  False)
                  for m, fc in fcs.items()}
        groups.append(BreakdownGroup(g, k, 100.0 * k / max(n, 1), tables))
    return groups


def forest_size_plot(fc: ForestCounts, choices: dict[str, np.ndarray], metric: str) -> Plot:
    sizes = np.diff(fc.offsets)
    edges = [(1, 1), (2, 10), (11, 100), (101, 1000), (1001, 10 ** 9)]
    m = METRICS[metric]
    series: dict[str, tuple[list, list]] = {k: ([], []) for k in ("upper", *choices, "lower")}
    for lo, hi in edges:
        mask = (sizes >= lo) & (sizes <= hi)
        if not mask.any():
            continue
        sub = fc.subset(mask)
        x = float(np.median(sizes[mask]))
        vals = {"upper": corpus_score(m, selected_counts(sub, oracle_choice(sub, m.score))),
                "lower": corpus_score(m, expected_counts(sub))}
        for r, c in choices.items():
            vals[r] = corpus_score(m, selected_counts(sub, c[mask]))
        for k, v in vals.items():
            series[k][0].append(x)
            series[k][1].append(v)
    return Plot("forest_size", f"{metric} against forest size (test)", "candidates per sentence "
                "(median of bin)", f"{metric} (%)",
                {k: (tuple(x), tuple(y)) for k, (x, y) in series.items() if x}, "log")
