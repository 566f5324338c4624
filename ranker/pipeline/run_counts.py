"""What a run counted, as typed fields: the stages fill them, experiments read them, ``report.py`` words them.

A report's counts used to be a dict keyed by prose ("training sentences kept"), which the
cross-validation runners read back by that prose, so rewording a line broke an experiment. Here
each count is a field with a type; :func:`ranker.pipeline.report.count_rows` is the one place
that turns them into the lines people read, and ``report.json`` keeps the fields.

``None`` means "not counted in this run" (a Link Grammar run imports nothing; ``ranker apply``
trains nothing) and prints no line; a dict prints one line per entry, in its order.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np


@dataclass(frozen=True)
class SourceCounts:
    """What getting one source's candidates did now: Link Grammar's parsing, or a file import."""

    parsed_now: int | None = None             # Link Grammar: sentences parsed in this run
    unmapped_tokens: int | None = None        # Link Grammar: tokens mapped to no word of a linkage
    imported_forests: int | None = None       # files: forests read in this run
    imported_candidates: int | None = None    # files: their candidates

    @classmethod
    def parsed(cls, summary) -> "SourceCounts":
        """Of Link Grammar's :class:`~ranker.sources.parse_run.ParseSummary`."""
        return cls(parsed_now=summary.parsed, unmapped_tokens=summary.unmapped)

    @classmethod
    def imported(cls, summaries: Iterable = ()) -> "SourceCounts":
        """Of the :class:`~ranker.sources.nbest.ImportSummary` of each file read now (none: 0 and 0)."""
        summaries = list(summaries)
        return cls(imported_forests=sum(s.forests for s in summaries),
                   imported_candidates=sum(s.candidates for s in summaries))


@dataclass(frozen=True)
class ForestSizes:
    """The candidates of a set of sentences: in all, per sentence, sentences without any."""

    candidates: int = 0
    mean: float = 0.0
    median: float = 0.0
    without: int = 0
    qualities: dict[str, int] = field(default_factory=dict)   # sentences by forest quality (first candidate's)

    @classmethod
    def of(cls, sizes, qualities: Iterable[tuple[str, ...]] | None = None) -> "ForestSizes":
        """From each sentence's candidate count (and, if given, its candidates' qualities)."""
        sizes = np.asarray(sizes, dtype=np.int64)
        by_quality = Counter(q[0] for q in qualities if q) if qualities is not None else Counter()
        return cls(int(sizes.sum()), float(sizes.mean()) if len(sizes) else 0.0,
                   float(np.median(sizes)) if len(sizes) else 0.0, int((sizes == 0).sum()),
                   dict(sorted(by_quality.items())))


@dataclass
class RunCounts:
    """Every count of a run (``ranker run``) or of an apply (``ranker apply --report``)."""

    sentences: dict[str, int] = field(default_factory=dict)          # per split (train, heldout, test; input)
    skipped: int | None = None                                        # apply: input lines skipped
    extra_sentences: dict[str, int] = field(default_factory=dict)    # per extra corpus (partial annotation only)
    source: SourceCounts | None = None                                # the candidates' source
    evidence: SourceCounts | None = None                              # the [evidence] source
    deps_ceiling: float | None = None         # deps_untyped of the test split's gold trees converted by head rules
    features_before_cutoff: int | None = None
    features_after_cutoff: int | None = None
    training_kept: int | None = None                                  # training sentences the filters kept
    training_dropped: dict[str, int] = field(default_factory=dict)   # ... and dropped, by why
    forests: dict[str, ForestSizes] = field(default_factory=dict)    # per split ("test"; apply: "input")
    trees_written: int | None = None                                  # apply
    # Link Grammar's parse statuses of the run's sentences (every split; apply: the input) by length
    # bin, "1-10" -> status -> sentences (ranker.sources.parse_statuses); empty for forests read from files
    parse_statuses: dict[str, dict[str, int]] = field(default_factory=dict)
