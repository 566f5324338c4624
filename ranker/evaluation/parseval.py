"""PARSEVAL as Black et al. (1991) define it: crossing, recall and precision over unlabelled constituents.

Per sentence, after Black et al.'s erasures (:func:`ranker.trees.black.black_erase`, optional), the
constituents are the distinct word spans of brackets over more than one word ("the convention ...
of excluding unary constituents"). Crossing counts the candidate constituents that are neither
substrings nor superstrings of some standard constituent.

Two corpus figures, both offered because they differ: the paper *averages per sentence*
(``averaged_recall``, ``averaged_precision``: the mean of the sentences' ratios, section 4c), while
EVALB and most later work *sum* counts first (``recall``, ``precision``, ``f1``). Sentences are
counted with exact fractions until the final division.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import NamedTuple

from ..trees.tree import Tree
from .crossing import crossing_count


class BracketCounts(NamedTuple):
    """Integer counts of one sentence pair: gold and test constituents, matched, crossing."""

    gold: int
    test: int
    matched: int
    crossing: int


def constituent_spans(tree: Tree | None) -> set[tuple[int, int]]:
    """The distinct spans of brackets covering more than one word."""
    if tree is None:
        return set()
    return {(n.start, n.end) for n in tree.nodes() if n.end - n.start > 1}


def span_counts(gold_spans, test_spans) -> BracketCounts:
    """Counts for two span collections compared as sets."""
    g, t = set(gold_spans), set(test_spans)
    return BracketCounts(len(g), len(t), len(g & t), crossing_count(g, t))


def score_parseval(gold: Tree, test: Tree | None, erase: bool = True) -> BracketCounts:
    """Black et al.'s per-sentence statistics for one candidate parse against the standard parse.

    Parameters
    ----------
    gold, test
        Standard and candidate trees over the same words (``test`` None: no parse, nothing found).
    erase
        Apply Black et al.'s erasures (auxiliaries, "not", pre-infinitival "to", null categories,
        possessive endings, word-external punctuation, trivial brackets) to both trees first; which
        words are erased is decided on the gold tree and applied to both.

    Returns
    -------
    BracketCounts

    Raises
    ------
    ValueError
        If the two trees are not over the same words.
    """
    if gold is not None and test is not None and gold.words != test.words:
        raise ValueError(f"gold and test words differ: {' '.join(gold.words)!r} vs "
                         f"{' '.join(test.words)!r}")
    if erase:
        from ..trees.black import black_erase, erased_words

        # the standard decides which words go, so a candidate with other tags keeps the same words
        erasure = erased_words(gold)
        gold = black_erase(gold, erasure)
        test = black_erase(test, erasure) if test is not None else None
    return span_counts(constituent_spans(gold), constituent_spans(test))


class ParsevalResult(NamedTuple):
    """Corpus PARSEVAL figures in percent; ``averaged_*`` per sentence (Black et al.), others summed."""

    sentences: int
    gold: int
    test: int
    matched: int
    crossing: int
    crossing_distribution: dict[int, int]
    averaged_recall: float
    averaged_precision: float
    recall: float
    precision: float
    f1: float


def _pct(x: Fraction) -> float:
    return float(100 * x)


class ParsevalAccumulator:
    """Adds :class:`BracketCounts`; keeps exact per-sentence ratio sums for the paper's averages."""

    def __init__(self):
        self.n = 0
        self.sums = [0, 0, 0, 0]
        self.recall_sum = Fraction(0)
        self.precision_sum = Fraction(0)
        self.distribution: Counter = Counter()

    def add(self, c: BracketCounts, times: int = 1) -> None:
        """Add a sentence's counts (``times`` sentences with the same counts, as a compiled path sums them)."""
        self.n += times
        self.sums = [a + times * b for a, b in zip(self.sums, c)]
        # a sentence with nothing to find (or nothing proposed) is perfect on that side
        self.recall_sum += times * (Fraction(c.matched, c.gold) if c.gold else 1)
        self.precision_sum += times * (Fraction(c.matched, c.test) if c.test else 1)
        self.distribution[c.crossing] += times

    def result(self) -> ParsevalResult:
        g, t, m, x = self.sums
        n = self.n
        return ParsevalResult(
            n, g, t, m, x, dict(sorted(self.distribution.items())),
            _pct(self.recall_sum / n) if n else 100.0,
            _pct(self.precision_sum / n) if n else 100.0,
            _pct(Fraction(m, g)) if g else 100.0,
            _pct(Fraction(m, t)) if t else 100.0,
            _pct(Fraction(2 * m, g + t)) if g + t else 100.0)
