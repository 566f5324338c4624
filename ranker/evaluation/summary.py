"""Corpus statistics of bracket counts: the rows of EVALB's summary and of Ringger et al.'s Table 1.

Every bracket scheme (EVALB, PARSEVAL, MPH, flat keys, dependencies) reduces a sentence pair to
integer counts (gold, test, matched, crossing); :class:`BracketAccumulator` only adds them, and
:class:`BracketSummary` divides once at the end. The statistics are EVALB's ("most of them computed
by EvalB in the standard ways", Ringger et al. section 4.1): recall and precision over summed
counts, complete match (gold = test = matched), average crossing per sentence, and the shares of
sentences with no crossing and with two or fewer crossings.

Two conventions differ from EVALB's, because here a sentence must never drop out silently:

* a sentence with **no parse** (``parsed=False``; an empty TEST line, no candidate) is counted: its
  gold brackets count, nothing is proposed or matched, it has zero crossings (nothing was proposed
  that could cross) and is never a complete match. EVALB skips such sentences instead.
* a ratio with an empty denominator is 100 (nothing to find, or nothing proposed, is nothing
  wrong), as in :mod:`.bounds`, so that a tree against itself scores 100 even without brackets;
  EVALB prints 0 there.
"""
from __future__ import annotations

from typing import NamedTuple

from .parseval import BracketCounts


def percent(num: int | float, den: int | float) -> float:
    """``100 * num / den``, or 100 when ``den`` is 0 (nothing to get wrong)."""
    return 100.0 * num / den if den else 100.0


class BracketSummary(NamedTuple):
    """Summed counts of a corpus; the percentages are properties computed from them."""

    sentences: int
    no_parse: int
    gold: int
    test: int
    matched: int
    crossing: int
    complete: int
    no_crossing: int
    two_or_fewer: int

    @property
    def recall(self) -> float:
        """Matched over gold brackets, in percent."""
        return percent(self.matched, self.gold)

    @property
    def precision(self) -> float:
        """Matched over test brackets, in percent."""
        return percent(self.matched, self.test)

    @property
    def f1(self) -> float:
        """Harmonic mean of recall and precision from summed counts, in percent."""
        return percent(2 * self.matched, self.gold + self.test)

    @property
    def complete_match(self) -> float:
        """Share of sentences whose test brackets are exactly the gold ones, in percent."""
        return percent(self.complete, self.sentences)

    @property
    def average_crossing(self) -> float:
        """Crossing brackets per sentence (0 for an empty corpus)."""
        return self.crossing / self.sentences if self.sentences else 0.0

    @property
    def no_crossing_rate(self) -> float:
        """Share of sentences without a crossing bracket, in percent."""
        return percent(self.no_crossing, self.sentences)

    @property
    def two_or_fewer_rate(self) -> float:
        """Share of sentences with at most two crossing brackets, in percent."""
        return percent(self.two_or_fewer, self.sentences)

    def table(self) -> list[tuple[str, float | int]]:
        """The rows of Ringger et al.'s Table 1, in their order, with their names."""
        return [("Number of sentences", self.sentences),
                ("Number of reference brackets", self.gold),
                ("Number of hypothesis brackets", self.test),
                ("Number of hypothesis brackets that match reference brackets", self.matched),
                ("Unlabeled bracket recall", self.recall),
                ("Unlabeled bracket precision", self.precision),
                ("Sentences with complete match (%)", self.complete_match),
                ("Average number of crossing brackets / sent.", self.average_crossing),
                ("Sentences with no crossing brackets (%)", self.no_crossing_rate),
                ("Sentences with 2 or fewer crossing brackets (%)", self.two_or_fewer_rate)]

    def as_dict(self) -> dict:
        """Counts and percentages under the names of ``ranker evaluate --format json``."""
        return {"sentences": self.sentences, "no_parse": self.no_parse,
                "gold_brackets": self.gold, "test_brackets": self.test, "matched": self.matched,
                "recall": self.recall, "precision": self.precision, "f1": self.f1,
                "crossing": self.crossing, "average_crossing": self.average_crossing,
                "complete_match": self.complete_match, "no_crossing": self.no_crossing_rate,
                "two_or_fewer_crossing": self.two_or_fewer_rate}


class BracketAccumulator:
    """Adds one sentence's :class:`~.parseval.BracketCounts` at a time; only adds."""

    def __init__(self):
        self._sums = [0] * 9

    def add(self, counts: BracketCounts, parsed: bool = True) -> None:
        """Add a sentence; ``parsed=False`` marks a sentence with no parse (see the module notes)."""
        g, t, m, x = counts
        s = self._sums
        s[0] += 1
        s[1] += not parsed
        s[2] += g
        s[3] += t
        s[4] += m
        s[5] += x
        s[6] += parsed and g == t == m
        s[7] += x == 0
        s[8] += x <= 2

    def add_totals(self, sums) -> None:
        """Add the nine sums of :class:`BracketSummary`'s fields counted elsewhere (a compiled kernel)."""
        self._sums = [a + int(b) for a, b in zip(self._sums, sums)]

    def result(self) -> BracketSummary:
        return BracketSummary(*self._sums)
