"""The report of ``ranker apply --report DIR``: what was selected on input without gold trees.

``ranker run`` scores its test split against gold; text a user brings, or a parser's lists of new
sentences, have no gold, so this report says so and gives what can be known without it: how many
sentences came in and were skipped, the forests' sizes and qualities, how many trees were written,
and the costs (time and peak memory per step). It is a :class:`~.report.Report` without metric
tables, written by the same writers (``report.md``, ``report.json``, ``report.html``), so its
counts read line for line as a run's.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .report import Report, write_report

#: The note every such report opens with.
NO_GOLD = ("The input has no gold trees, so nothing here is scored (no bounds, no error reduction): "
           "the counts describe the forests and the selection, the timings its cost. With gold trees "
           "of the same sentences, ranker evaluate GOLD OUT --scheme evalb (or any scheme) scores the "
           "chosen trees.")


def apply_report(name: str, counts: dict[str, float], clock, notes: list[str], versions: dict[str, str]) -> Report:
    """The :class:`Report` of one apply: ``counts`` and the notes, ``clock``'s timings and peaks."""
    return Report(name, {}, counts=dict(counts), timings=dict(clock.seconds), notes=[NO_GOLD, *notes],
                  versions=versions, peak_memory_mb=dict(clock.peak_mb))


def input_counts(store, sentence_ids: list[str | None], source: str, skipped: int, written: int,
                 what: str = "input") -> dict[str, float]:
    """The counts of an apply: input sentences (``None`` = a skipped line), forests, trees written."""
    from .stages import forest_quality_counts, forest_size_counts

    ids = [sid for sid in sentence_ids if sid is not None]
    qualities = store.forest_qualities(source)
    sizes = np.array([len(qualities.get(sid, ())) for sid in ids], dtype=np.int64)
    counts: dict[str, float] = {f"{what} sentences": len(sentence_ids),
                                f"{what} sentences skipped (unreadable, empty or too long)": skipped}
    counts.update(forest_size_counts(sizes, what))
    counts.update(forest_quality_counts((qualities.get(sid, ()) for sid in ids), what))
    counts["trees written"] = written
    return counts


def write_apply_report(report: Report, out_dir: str | Path) -> Path:
    """Write the report files into ``out_dir`` (made if missing); the Markdown file's path."""
    return write_report(report, out_dir, plots=False)["md"]
