"""The time a parse has left, from the lengths of the sentences still to parse.

A parse run deals the longest sentences out first (:func:`ranker.sources.parse_run.parse_into_store`),
so its rate so far says little about what is left: the first minutes parse the slowest sentences,
and a rate-based estimate (tqdm's own) is hours too long at the start and falls as the sentences
shorten. This one predicts each sentence left from its length: the mean seconds of the sentences of
its length band parsed so far, or, for a band none of which is done yet, a power law of length
fitted to the bands that are (parse time grows steeply with length); no sentence is predicted
beyond its budget (which bounds its passes). The predicted seconds are turned into wall time by
the run's own ratio of wall time to parse seconds so far, which takes in the workers and the load.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Iterable

#: Tokens per band of the per-length means.
BAND = 5
#: The exponent of length the sentences left are predicted with until two bands below the budget are
#: done, and the most a fit may give: Link Grammar's parser is cubic in the sentence's length (Sleator
#: and Temperley 1991); a lower one, anchored at the budget-bound longest sentences, predicts the
#: short ones several times too slow (replayed on GUM's parse log: benchmarks/README.md).
DEFAULT_EXPONENT = 3.0
#: A band whose mean is at least this share of the budget is mostly sentences that reached it: its
#: time says what the budget is, not how time grows with length, so no exponent is fitted to it.
SATURATED = 0.5
#: Sentences a band needs before its mean counts in the exponent (one odd sentence, a 245-token
#: list that fails in a millisecond, would otherwise tilt it).
FEW = 5


class TimeLeft:
    """An estimate of a parse's time left, updated as sentences finish.

    Parameters
    ----------
    lengths
        Tokens of every sentence to parse.
    budget
        A sentence's parse budget in seconds (its passes end within it; a little is added for
        reading its linkages), or None for no bound.
    """

    def __init__(self, lengths: Iterable[int], budget: float | None = None):
        self.left: Counter = Counter(max(1, n) for n in lengths)
        self.budget = budget
        self.cap = None if budget is None else budget * 1.1 + 0.5
        self._sums: dict[int, list[float]] = {}   # band -> [seconds, sentences, tokens]
        self.parse_seconds = 0.0

    def done(self, tokens: int, seconds: float) -> None:
        """One sentence of ``tokens`` tokens finished after ``seconds`` of parsing."""
        tokens = max(1, tokens)
        if self.left[tokens] > 0:
            self.left[tokens] -= 1
        band = self._sums.setdefault(tokens // BAND, [0.0, 0, 0])
        band[0] += seconds
        band[1] += 1
        band[2] += tokens
        self.parse_seconds += seconds

    def _law(self) -> tuple[float, float] | None:
        """``(a, k)``: a sentence of ``n`` tokens takes ``a * n ** k`` seconds.

        ``k`` is fitted by least squares of log seconds on log length over the bands of at least
        :data:`FEW` sentences below the budget, each weighted by its sentences (the few longest
        bands are noisy, and a band at the budget would flatten the law and predict short
        sentences hours), at most :data:`DEFAULT_EXPONENT`, and that until two such bands are
        done. ``a`` then fits the same bands, weighted by their sentences, or every band done while
        none is below the budget (a band at it is a floor of what its sentences would take).
        """
        if not self._sums:
            return None
        points = [(math.log(t / n), math.log(max(s / n, 1e-4)), n) for s, n, t in self._sums.values()]
        below = [p for p, (s, n, _) in zip(points, self._sums.values())
                 if n >= FEW and (self.budget is None or s / n < SATURATED * self.budget)]
        k = DEFAULT_EXPONENT
        if len(below) >= 2:
            w = sum(n for _, _, n in below)
            mx = sum(x * n for x, _, n in below) / w
            my = sum(y * n for _, y, n in below) / w
            sxx = sum(n * (x - mx) ** 2 for x, _, n in below)
            if sxx > 0:
                k = min(max(sum(n * (x - mx) * (y - my) for x, y, n in below) / sxx, 1.0), DEFAULT_EXPONENT)
        fit = below or points
        w = sum(n for _, _, n in fit)
        return math.exp(sum(n * (y - k * x) for x, y, n in fit) / w), k

    def predicted_seconds(self) -> float | None:
        """Parse seconds the sentences left will take (None: nothing done yet to predict from)."""
        law = self._law()
        if law is None:
            return None
        a, k = law
        total = 0.0
        for tokens, n in self.left.items():
            if n <= 0:
                continue
            band = self._sums.get(tokens // BAND)
            each = band[0] / band[1] if band else a * tokens ** k
            if self.cap is not None:
                each = min(each, self.cap)
            total += n * each
        return total

    def seconds_left(self, elapsed: float) -> float | None:
        """Wall seconds left, given ``elapsed`` wall seconds so far (None: not known yet)."""
        if not any(n > 0 for n in self.left.values()):
            return 0.0
        predicted = self.predicted_seconds()
        if predicted is None or self.parse_seconds <= 0:
            return None
        return predicted * elapsed / self.parse_seconds

    def describe(self, elapsed: float) -> str:
        """``"about 1:02:03 left"`` (or ``"time left: estimating"`` before any sentence is done)."""
        left = self.seconds_left(elapsed)
        if left is None:
            return "time left: estimating"
        return f"about {clock(left)} left"


def clock(seconds: float) -> str:
    """``h:mm:ss`` (``m:ss`` under an hour) of a number of seconds."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
