"""EVALB's per-sentence line and its corpus totals: plain counts, no tree in sight.

Kept apart from :mod:`.evalb` (the per-pair reference, which reads trees) so that ``ranker evalb``
can count and print a report without importing the tree package: its start-up is part of the
time a user waits for, and EVALB in C starts in a millisecond.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .evalb_params import EvalbParams

OK, ERROR, SKIP = 0, 1, 2


class EvalbSentence(NamedTuple):
    """EVALB's per-sentence line: status, gold length and the integer counts behind the scores.

    ``words`` is the number of scored words (0 for an error or skip sentence, as EVALB prints).
    ``message`` says why a sentence is an error (EVALB's stderr text), else ``""``.
    """

    status: int
    length: int
    words: int
    gold: int
    test: int
    matched: int
    crossing: int
    correct_tags: int
    message: str = ""

    @property
    def recall(self) -> float:
        """Percent, 0 when there is no gold bracket (as EVALB prints it)."""
        return 100.0 * self.matched / self.gold if self.gold else 0.0

    @property
    def precision(self) -> float:
        return 100.0 * self.matched / self.test if self.test else 0.0

    @property
    def tag_accuracy(self) -> float:
        return 100.0 * self.correct_tags / self.words if self.words else 0.0


@dataclass
class EvalbTotals:
    """EVALB's running totals for one summary block (all sentences, or those within the cut-off)."""

    sentences: int = 0
    errors: int = 0
    skipped: int = 0
    gold: int = 0
    test: int = 0
    matched: int = 0
    complete: int = 0
    words: int = 0
    crossing: int = 0
    no_crossing: int = 0
    two_or_less: int = 0
    correct_tags: int = 0

    def add(self, s: EvalbSentence) -> None:
        """Add one sentence as EVALB's ``individual_result`` does: error and skip add only their count."""
        self.sentences += 1
        if s.status == ERROR:
            self.errors += 1
            return
        if s.status == SKIP:
            self.skipped += 1
            return
        self.gold += s.gold
        self.test += s.test
        self.matched += s.matched
        self.complete += s.gold == s.test == s.matched
        self.words += s.words
        self.crossing += s.crossing
        self.no_crossing += s.crossing == 0
        self.two_or_less += s.crossing <= 2
        self.correct_tags += s.correct_tags

    def __add__(self, other: "EvalbTotals") -> "EvalbTotals":
        """The totals of two blocks of sentences together."""
        return EvalbTotals(*(getattr(self, f) + getattr(other, f) for f in _FIELDS))

    @property
    def valid(self) -> int:
        return self.sentences - self.errors - self.skipped

    @property
    def recall(self) -> float:
        """Bracketing recall in percent (summed over sentences), 0 without gold brackets."""
        return 100.0 * self.matched / self.gold if self.gold > 0 else 0.0

    @property
    def precision(self) -> float:
        return 100.0 * self.matched / self.test if self.test > 0 else 0.0

    @property
    def f1(self) -> float:
        """F-measure from summed counts; 0 when nothing matched (EVALB itself prints NaN there)."""
        den = self.gold + self.test
        return 100.0 * 2 * self.matched / den if den and self.matched else 0.0

    @property
    def complete_match(self) -> float:
        return 100.0 * self.complete / self.valid if self.valid > 0 else 0.0

    @property
    def average_crossing(self) -> float:
        return self.crossing / self.valid if self.valid > 0 else 0.0

    @property
    def no_crossing_rate(self) -> float:
        return 100.0 * self.no_crossing / self.valid if self.valid > 0 else 0.0

    @property
    def two_or_less_rate(self) -> float:
        return 100.0 * self.two_or_less / self.valid if self.valid > 0 else 0.0

    @property
    def tag_accuracy(self) -> float:
        return 100.0 * self.correct_tags / self.words if self.words > 0 else 0.0


_FIELDS = tuple(EvalbTotals.__dataclass_fields__)


class EvalbSummary(NamedTuple):
    """Both of EVALB's summary blocks: every sentence, and gold length <= ``cutoff_len``."""

    all: EvalbTotals
    cut: EvalbTotals
    cutoff_len: int


class EvalbAccumulator:
    """Adds :class:`EvalbSentence` results into EVALB's two summary blocks; only adds."""

    def __init__(self, params: EvalbParams):
        self.cutoff_len = params.cutoff_len
        self.all = EvalbTotals()
        self.cut = EvalbTotals()

    def add(self, s: EvalbSentence) -> None:
        self.all.add(s)
        if s.length <= self.cutoff_len:
            self.cut.add(s)

    def add_columns(self, cols) -> None:
        """Add every line of an :class:`~ranker.evaluation.evalb_fast.EvalbColumns`, vectorised."""
        import numpy as np

        for totals, sel in ((self.all, np.ones(cols.size, dtype=bool)),
                            (self.cut, cols.length <= self.cutoff_len)):
            st = cols.status[sel]
            ok = st == OK
            totals.sentences += int(sel.sum())
            totals.errors += int((st == ERROR).sum())
            totals.skipped += int((st == SKIP).sum())
            g, t, m, c = (a[sel][ok] for a in (cols.gold, cols.test, cols.matched, cols.crossing))
            totals.gold += int(g.sum())
            totals.test += int(t.sum())
            totals.matched += int(m.sum())
            totals.complete += int(((g == t) & (t == m)).sum())
            totals.words += int(cols.words[sel][ok].sum())
            totals.crossing += int(c.sum())
            totals.no_crossing += int((c == 0).sum())
            totals.two_or_less += int((c <= 2).sum())
            totals.correct_tags += int(cols.correct_tags[sel][ok].sum())

    def result(self) -> EvalbSummary:
        return EvalbSummary(self.all, self.cut, self.cutoff_len)
