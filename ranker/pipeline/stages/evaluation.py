"""The ``evaluate`` stage: the report's tables of every metric over the test split, and its breakdowns."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...evaluation.bounds import ForestCounts
from ...store import Store
from ...store.records import Sentence
from ..config import EvaluationSection
from ..splits import SplitSelection
from .context import StageContext


def sentence_quality(store: Store, sentences: Sequence[Sentence], source: str) -> list[str]:
    """Crouch et al.'s parse-quality class of each sentence: full, fragment, timeout or no parse.

    A sentence is "full" when all its candidates are full parses, else "fragment" or "timeout" as
    its candidates are; one with no candidate is "timeout" if the parser ran out of time on it.
    """
    qualities = store.forest_qualities(source)
    status = {row[0]: row[2] for row in store.parse_log(source)}
    out = []
    for s in sentences:
        qs = set(qualities.get(s.id, ()))
        if not qs:
            out.append("timeout" if status.get(s.id) == "timeout" else "no parse")
        elif qs == {"full"}:
            out.append("full")
        else:
            out.append("timeout" if "timeout" in qs else "fragment")
    return out


class Evaluation(NamedTuple):
    """The report's tables: every metric over the test split, and its breakdowns."""

    tables: dict                     # metric -> MetricTable (bounds, rankers, intervals, p-values)
    by_quality: list                 # BreakdownGroup per parse-quality class
    by_length: list                  # BreakdownGroup per sentence-length class
    forest_size: object              # Plot of the primary metric against forest size
    by_group: list = []              # BreakdownGroup per document group (``group_documents``)


def document_groups(sentences, pattern: str) -> list[str]:
    """Each sentence's document group: the first group of ``pattern`` in its document's name ("other": none)."""
    import re

    rx = re.compile(pattern)
    out = []
    for s in sentences:
        m = rx.search(s.document)
        out.append(m.group(1) if m and m.group(1) else "other")
    return out


def evaluate(ctx: StageContext, evaluation: EvaluationSection, seed: int, test: SplitSelection,
             counts: dict[str, ForestCounts], choices: dict[str, np.ndarray], primary: str,
             group_documents: str = "") -> Evaluation:
    """Bounds, every ranker's score with its interval and p-values, and the breakdowns.

    ``group_documents`` (``[report] group_documents``) adds a breakdown by document group.
    """
    from ..tables import breakdown, forest_size_plot, metric_table

    ev = evaluation
    tables = {m: metric_table(m, counts[m], choices, ev, seed, True) for m in counts}
    quality = sentence_quality(ctx.store, test.sentences, ctx.need_source())
    by_quality = breakdown(quality, ("all", "full", "fragment", "timeout", "no parse"), counts, choices,
                           ev, seed)
    lengths = [f"< {ev.length_cutoff} words" if len(s.tokens) < ev.length_cutoff else
               f">= {ev.length_cutoff} words" for s in test.sentences]
    by_length = breakdown(lengths, (f"< {ev.length_cutoff} words", "all"), counts, choices, ev, seed)
    by_group = []
    if group_documents:
        labels = document_groups(test.sentences, group_documents)
        by_group = breakdown(labels, (*sorted(set(labels)), "all"), counts, choices, ev, seed)
    return Evaluation(tables, by_quality, by_length, forest_size_plot(counts[primary], choices, primary),
                      by_group)
