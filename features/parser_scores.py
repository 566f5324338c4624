"""Families over the parser's own scores, for any n-best source: log-probability and rank.

Charniak and Johnson (2005) give their reranker the first-stage parser's log-probability as a
feature, and rerankers commonly add the candidate's rank in the n-best list. Both are features
of the candidate, not of its tree, and both only mean something next to the rest of the forest:
the log-probability is taken relative to the sentence's best (``0`` for the parser's choice,
negative below it; in a conditional model this equals the raw value up to a per-sentence
constant, but keeps the numbers small and comparable across sentences), also divided by the
sentence length, and binned; the rank is binned. Candidates without a ``logprob`` score (Link
Grammar's) get nothing from :class:`ParserLogProb`.
"""
from __future__ import annotations

import math

from .base import Family, named

#: Upper edges of the bins of the log-probability's distance below the sentence's best (nats).
LOGPROB_EDGES = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: Rank bins: (first rank, last rank, name).
RANK_BINS = ((0, 0, "0"), (1, 1, "1"), (2, 2, "2"), (3, 4, "3-4"), (5, 9, "5-9"),
             (10, 19, "10-19"), (20, 49, "20-49"))


def logprob_bin(distance: float) -> str:
    """The bin of a distance below the best log-probability: ``0``, ``<=0.5``, ..., ``>16``."""
    for edge in LOGPROB_EDGES:
        if distance <= edge:
            return "0" if edge == 0.0 else f"<={edge:g}"
    return f">{LOGPROB_EDGES[-1]:g}"


def rank_bin(rank: int) -> str:
    """The bin of an n-best rank (0 = the parser's first parse)."""
    for lo, hi, name in RANK_BINS:
        if lo <= rank <= hi:
            return name
    return "50+"


@named("parser_logprob/1")
class ParserLogProb(Family):
    """The parser's log-probability relative to the sentence's best: value, per word, and binned."""

    def __init__(self, per_word: bool = True, bins: bool = True):
        self.per_word = per_word
        self.bins = bins
        self._best = 0.0

    def begin_forest(self, forest) -> None:
        lps = [c.scores["logprob"] for c in forest.candidates if "logprob" in c.scores]
        self._best = max(lps) if lps else 0.0

    def __call__(self, c):
        lp = c.scores.get("logprob")
        if lp is None or not math.isfinite(lp):
            return
        rel = float(lp) - self._best
        yield ("lp:rel", rel)
        if self.per_word:
            yield ("lp:rel/word", rel / max(1, len(c.tree.words)))
        if self.bins:
            yield (f"lp:bin:{logprob_bin(-rel)}", 1.0)


@named("parser_rank/1")
class ParserRank(Family):
    """The candidate's rank in its n-best list, binned (0, 1, 2, 3-4, 5-9, 10-19, 20-49, 50+)."""

    def __call__(self, c):
        yield (f"nbrank:{rank_bin(c.rank)}", 1.0)
