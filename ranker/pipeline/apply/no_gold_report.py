"""The report of ``ranker apply --report DIR``: what was selected on input without gold trees.

``ranker run`` scores its test split against gold; text a user brings, or a parser's lists of new
sentences, have no gold, so this report says so and gives what can be known without it: how many
sentences came in and were skipped, the forests' sizes and qualities, how many trees were written,
and the costs (time and peak memory per step). It is a :class:`~ranker.pipeline.report.Report` without metric
tables, written by the same writers (``report.md``, ``report.json``, ``report.html``), so its
counts read line for line as a run's.
"""
from __future__ import annotations

from ..report import Report
from ..run_counts import ForestSizes, RunCounts

#: The note every such report opens with.
NO_GOLD = ("The input has no gold trees, so nothing here is scored (no bounds, no error reduction): "
           "the counts describe the forests and the selection, the timings its cost. With gold trees "
           "of the same sentences, ranker evaluate GOLD OUT --scheme evalb (or any scheme) scores the "
           "chosen trees.")


def apply_report(name: str, counts: RunCounts, clock, notes: list[str], versions: dict[str, str]) -> Report:
    """The :class:`Report` of one apply: ``counts`` and the notes, ``clock``'s timings and peaks."""
    return Report(name, {}, counts=counts, timings=dict(clock.seconds), notes=[NO_GOLD, *notes],
                  versions=versions, peak_memory_mb=dict(clock.peak_mb))


def input_counts(store, sentence_ids: list[str | None], source: str, skipped: int, written: int) -> RunCounts:
    """The counts of an apply: input sentences (``None`` = a skipped line), their forests, trees written."""
    from ...sources.parse_statuses import stored_statuses_by_length

    ids = [sid for sid in sentence_ids if sid is not None]
    qualities = store.forest_qualities(source)
    sizes = [len(qualities.get(sid, ())) for sid in ids]
    return RunCounts(sentences={"input": len(sentence_ids)}, skipped=skipped,
                     forests={"input": ForestSizes.of(sizes, (qualities.get(sid, ()) for sid in ids))},
                     trees_written=written, parse_statuses=stored_statuses_by_length(store, source, ids))

