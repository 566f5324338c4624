"""Upper bound, lower bound, selected score and error reduction, from per-candidate counts alone.

Like the BLLIP reranker's corpus files, every candidate carries its integer counts against gold
(gold, test, matched, crossing) under each metric, so the bounds need no tree and no re-parse:

* upper bound (oracle): per sentence, the candidate with the best sentence score under *that*
  metric (ties to the source's earlier candidate), summed over the corpus;
* lower bound (random): the exact expectation of a uniformly random pick, taken on the counts (the
  mean of each count over the forest), so it is not a sample and needs no seed;
* a ranker: the counts of the candidate it selected.

A sentence with no candidate contributes its gold count and nothing else to every system, so a
parser that fails on a sentence is charged for it rather than silently excused.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

GOLD, TEST, MATCHED, CROSSING = range(4)


def _ratio(num, den) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 100.0 * num / np.where(den > 0, den, 1.0), 100.0)


def f1_score(sums: np.ndarray) -> np.ndarray:
    """F1 (percent) of summed counts; 100 when neither side has a bracket (nothing to get wrong)."""
    s = np.asarray(sums, dtype=np.float64)
    return _ratio(2.0 * s[..., MATCHED], s[..., GOLD] + s[..., TEST])


def recall_score(sums: np.ndarray) -> np.ndarray:
    """Recall (percent): matched over gold."""
    s = np.asarray(sums, dtype=np.float64)
    return _ratio(s[..., MATCHED], s[..., GOLD])


def conformance_score(sums: np.ndarray) -> np.ndarray:
    """Conformance (percent, Gaizauskas et al.): key constituents not crossed, over key constituents.

    For this metric the CROSSING column holds the number of key constituents the response violates.
    """
    s = np.asarray(sums, dtype=np.float64)
    return _ratio(s[..., GOLD] - s[..., CROSSING], s[..., GOLD])


class Metric(NamedTuple):
    """A reported metric, one entry for everything that names it.

    The report, ``ranker run``'s tables, ``ranker serve``, the config check (``[loglinear]
    select_metric``, ``[heidorn] tune_metric``) and the CLI (``--metric``, ``--best-f-metric``) take
    their list from :data:`METRICS` (:func:`reported_metric_names`), so a metric over stored counts is one
    entry here: its name, the counts it reads, how summed counts become its score, and the
    ``ranker evaluate`` scheme and figure that reproduce it from a selected-parse file.
    """

    name: str
    title: str
    score: Callable[[np.ndarray], np.ndarray]   # summed counts (gold, test, matched, 4th) -> score
    counts_from: str          # which stored per-candidate counts it reads (the count key in the store)
    scheme: str               # the ranker evaluate --scheme whose figures reproduce it
    figure: str               # the key of that scheme's output that holds it


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("evalb_labeled", "EVALB labelled bracket F", f1_score, "evalb_labeled", "evalb", "f1"),
    # the scheme's --param is then the [evaluation] evalb_param with LABELED 0
    Metric("evalb_unlabeled", "EVALB unlabelled bracket F", f1_score, "evalb_unlabeled", "evalb", "f1"),
    Metric("parseval", "PARSEVAL F after Black et al.'s erasures", f1_score, "parseval", "parseval", "f1"),
    Metric("mph", "Maximal projections of heads F (Ringger et al.)", f1_score, "mph", "mph", "f1"),
    Metric("flat_recall", "Flattened-key recall (Gaizauskas et al.)", recall_score, "flat", "flat", "recall"),
    Metric("flat_conformance", "Flattened-key conformance (Gaizauskas et al.)", conformance_score, "flat", "flat",
           "conformance"),
    # Each dependency figure names its gold (issue 25): the two use different golds, so a typed
    # figure may come out above an untyped one; against one gold it never does.
    Metric("deps_untyped", "Untyped dependency F (gold: dependency_treebank arcs, or gold trees by "
           "head rules where it has none)", f1_score, "deps_untyped", "deps", "f1"),
    Metric("deps_typed", "Typed dependency F (gold: gold trees by head rules)", f1_score, "deps_typed", "deps",
           "typed_f1"),
)}


#: The metric the report leads with (its learning curve, the choices it plots), where it is reported.
PRIMARY_METRIC = "mph"


def reported_metric_names() -> list[str]:
    """The reported metrics' names in report order: the one list the report, config and CLI check against."""
    return list(METRICS)


class ForestCounts(NamedTuple):
    """Per-candidate counts of a corpus, candidates of sentence ``i`` in rows ``offsets[i]:offsets[i+1]``.

    ``gold`` holds each sentence's gold count separately, so that a sentence with no candidate still
    counts against every system.
    """

    counts: np.ndarray        # (n_candidates, 4) int64: gold, test, matched, crossing
    offsets: np.ndarray       # (n_sentences + 1,) int64, starting at 0
    gold: np.ndarray          # (n_sentences,) int64

    @property
    def n_sentences(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def from_lists(cls, per_sentence: list[list[tuple[int, int, int, int]]], gold: list[int]):
        """Build from one list of count tuples per sentence (possibly empty)."""
        lengths = [len(x) for x in per_sentence]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        rows = [c for x in per_sentence for c in x]
        counts = np.asarray(rows, dtype=np.int64).reshape(len(rows), 4)
        return cls(counts, offsets, np.asarray(gold, dtype=np.int64))

    def subset(self, sentences: np.ndarray) -> "ForestCounts":
        """The counts of the chosen sentences (a boolean mask or indices), in their order."""
        idx = np.arange(self.n_sentences)[sentences]
        rows = [np.arange(self.offsets[i], self.offsets[i + 1]) for i in idx]
        rows_idx = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        lengths = np.diff(self.offsets)[idx]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return ForestCounts(self.counts[rows_idx], offsets, self.gold[idx])


def _empty_row(gold: np.ndarray) -> np.ndarray:
    rows = np.zeros((len(gold), 4), dtype=np.float64)
    rows[:, GOLD] = gold
    return rows


def selected_counts(fc: ForestCounts, choice: np.ndarray) -> np.ndarray:
    """Per-sentence counts of the chosen candidates; ``choice[i]`` indexes within sentence ``i``, -1 for none."""
    choice = np.asarray(choice, dtype=np.int64)
    if choice.shape != (fc.n_sentences,):
        raise ValueError(f"need one choice per sentence ({fc.n_sentences}), got shape {choice.shape}")
    sizes = np.diff(fc.offsets)
    if np.any(choice >= sizes) or np.any((choice < 0) & (sizes > 0)):
        raise ValueError("a choice falls outside its sentence's candidates")
    out = _empty_row(fc.gold)
    has = choice >= 0
    out[has] = fc.counts[fc.offsets[:-1][has] + choice[has]]
    return out


def unscored_rows(counts: np.ndarray, sentence_gold: np.ndarray) -> np.ndarray:
    """Rows a scorer left out (all counts zero) in sentences that have gold brackets.

    EVALB skips a sentence it cannot align (a candidate's punctuation tags differ from gold's), so
    such a candidate counts zeros and adds nothing to the totals, exactly as ``evalb`` scores it;
    its sentence score would read 100 (nothing to get wrong), so choosing among candidates (the
    oracle, ``best_f``) must rank it below every scored one.

    Parameters
    ----------
    counts : ndarray of shape (n_rows, 4)
    sentence_gold : ndarray of shape (n_rows,)
        The gold count of each row's sentence.
    """
    counts = np.asarray(counts)
    return (sentence_gold > 0) & ~counts.any(axis=1)


def _scores(fc: ForestCounts, score: Callable[[np.ndarray], np.ndarray], unscored: float) -> np.ndarray:
    if not len(fc.counts):
        return np.zeros(0)
    values = np.asarray(score(fc.counts), dtype=np.float64)
    return np.where(unscored_rows(fc.counts, np.repeat(fc.gold, np.diff(fc.offsets))), unscored, values)


#: What a candidate the scorer left out scores, by what the scores are for (``candidate_scores``).
CHOOSING = -1.0      # choosing among candidates (the oracle): below every score (percentages, never below 0),
                     # so chosen only when every candidate is unscored; finite, as a ranker's scores must be
TARGET = 0.0         # a target averaged over sentences (held-out tuning, best_f's gains): a parse that got nothing
SHOWN = np.nan       # shown to a reader (the web page): no score, not the 100 of nothing to get wrong


def candidate_scores(fc: ForestCounts, metric: "Metric | str", unscored: float = CHOOSING) -> np.ndarray:
    """Each candidate's own sentence score (percent) under ``metric`` (a :class:`Metric` or its name).

    The one treatment of a candidate the scorer left out (:func:`unscored_rows`: EVALB could not
    align it), whose counts would read 100: it scores ``unscored`` instead, :data:`CHOOSING` (the
    default) where candidates are chosen by their scores, :data:`TARGET` where the scores are a
    quality to average, :data:`SHOWN` where they are shown. ``ranker run``, ``ranker select`` and
    ``ranker serve`` all read candidates' scores through here.
    """
    m = METRICS[metric] if isinstance(metric, str) else metric
    return _scores(fc, m.score, unscored)


def sentence_counts(rows) -> ForestCounts:
    """One sentence's :class:`ForestCounts` from its candidates' stored count rows (forest order).

    Its gold count is the largest of the rows' (a candidate the scorer left out counts zero gold),
    as :func:`ranker.pipeline.candidate_scoring.load_forest_counts` takes it for a split.
    """
    rows = [tuple(r) for r in rows]
    return ForestCounts.from_lists([rows], [max((r[GOLD] for r in rows), default=0)])


def oracle_choice(fc: ForestCounts, score: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Per sentence, the index of the candidate with the best sentence score (first on ties), -1 if none.

    A candidate the scorer left out (:func:`unscored_rows`) is chosen only when every candidate was.
    """
    n = fc.n_sentences
    choice = np.full(n, -1, dtype=np.int64)
    if len(fc.counts) == 0:
        return choice
    sizes = np.diff(fc.offsets)
    values = _scores(fc, score, CHOOSING)
    nonempty = sizes > 0
    starts = fc.offsets[:-1][nonempty]
    best = np.maximum.reduceat(values, starts)
    seg = np.repeat(np.arange(n)[nonempty], sizes[nonempty])
    is_best = values >= np.repeat(best, sizes[nonempty])
    rows = np.flatnonzero(is_best)
    first_seg, first_pos = np.unique(seg[rows], return_index=True)
    choice[first_seg] = rows[first_pos] - fc.offsets[first_seg]
    return choice


def expected_counts(fc: ForestCounts) -> np.ndarray:
    """Per-sentence expected counts of a uniformly random candidate (the lower bound's counts)."""
    out = _empty_row(fc.gold)
    sizes = np.diff(fc.offsets)
    nonempty = sizes > 0
    if nonempty.any():
        sums = np.add.reduceat(fc.counts.astype(np.float64), fc.offsets[:-1][nonempty], axis=0)
        out[nonempty] = sums / sizes[nonempty, None]
    return out


def error_reduction(score: float, lower: float, upper: float) -> float | None:
    """``(score - lower) / (upper - lower) * 100``; None when the bounds coincide (nothing to reduce)."""
    if not np.isfinite(upper - lower) or abs(upper - lower) < 1e-9:
        return None
    return float((score - lower) / (upper - lower) * 100.0)


def corpus_score(metric: Metric, sentence_counts: np.ndarray) -> float:
    """The metric's corpus-level score from per-sentence counts (summed first, divided once)."""
    return float(metric.score(np.asarray(sentence_counts, dtype=np.float64).sum(axis=0)))
