"""The ``compute_counts`` stage: every candidate's counts against gold, stored and read back."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ...errors import RankerError
from ...evaluation.bounds import METRICS, TARGET, ForestCounts, candidate_scores
from ...evaluation.scoring import ScoringSettings
from ...store import Store
from ...store.records import Sentence
from ..config import EvaluationSection
from ..candidate_scoring import conversion_ceiling, load_forest_counts, score_candidates
from ..splits import SplitSelection
from .context import StageContext
from ..provenance import record_scoring, scoring_settings, stored_sources


class CountsOutcome(NamedTuple):
    """Per-candidate counts stored for a set of sentences under every metric."""

    settings: ScoringSettings   # what the counts depend on (their store key)
    scored: int                 # sentences scored now (the others were stored already)


def compute_counts(ctx: StageContext, evaluation: EvaluationSection,
                   sentences: Sequence[Sentence]) -> CountsOutcome:
    """Store every candidate's counts against gold under every metric (the oracle's and tuners' data),
    and record in the store the settings they were computed with (:func:`stored_evaluation`)."""
    store, source = ctx.store, ctx.need_source()
    settings = scoring_settings(evaluation)
    gold_deps = {s.id: store.gold_dependencies(s.id) for s in sentences}
    done = score_candidates(store, list(sentences), settings, gold_deps, ctx.n_workers,
                            ctx.progress, source)
    record_scoring(store, evaluation, source)
    return CountsOutcome(settings, done)


def require_counts(ctx: StageContext, evaluation: EvaluationSection, sel: SplitSelection) -> None:
    """Raise unless every sentence of ``sel`` has counts computed from its current forest."""
    from ..candidate_scoring import missing_counts

    store, source = ctx.store, ctx.need_source()
    missing = missing_counts(store, scoring_settings(evaluation), sel.sentences, source)
    if missing:
        raise RankerError(f"{store.path}: {len(missing)} sentences of {sel.corpus}/{sel.name} (e.g. "
                          f"{missing[0]}) have no per-candidate counts for their current forests from "
                          f"{source}; compute them first: {counts_command(store, evaluation, sel, source)}")


def counts_command(store: Store, evaluation: EvaluationSection, sel: SplitSelection, source: str) -> str:
    """The ``ranker counts`` command line that computes the counts ``sel`` lacks, ready to paste."""
    import shlex

    from ..candidate_scoring import SETTING_OPTIONS

    argv = ["ranker", "counts", "--store", str(store.path), "--corpus", sel.corpus]
    if sel.split is not None or sel.name != "all":
        argv += ["--split", sel.name]
    if len(stored_sources(store)) > 1:
        argv += ["--source", source]
    from ..config import default

    for key, flag in SETTING_OPTIONS.items():
        if getattr(evaluation, key) != default(EvaluationSection, key):
            argv += [flag, str(getattr(evaluation, key))]
    return shlex.join(argv)


def load_counts(ctx: StageContext, evaluation: EvaluationSection, sel: SplitSelection,
                metrics: Sequence[str]) -> dict[str, ForestCounts]:
    """The stored counts of a split under each of ``metrics`` (see :func:`compute_counts`)."""
    settings = scoring_settings(evaluation)
    return {m: load_forest_counts(ctx.store, sel, METRICS[m].counts_from, settings, ctx.need_source())
            for m in metrics}


def candidate_quality(fc: ForestCounts, metric: str) -> np.ndarray:
    """Each candidate's own sentence score under ``metric`` as a held-out target (the tuners' quality).

    A candidate the scorer left out (EVALB could not align it) scores 0, not the 100 of a sentence
    with nothing to get wrong: :func:`ranker.evaluation.bounds.candidate_scores` with ``TARGET``.
    """
    return candidate_scores(fc, metric, unscored=TARGET)


def test_ceiling(ctx: StageContext, evaluation: EvaluationSection, sentences: Sequence[Sentence]) -> float:
    """Untyped dependency F of the gold trees converted by the head rules (the report's ceiling)."""
    store = ctx.store
    gold_deps = {s.id: store.gold_dependencies(s.id) for s in sentences}
    return conversion_ceiling(store, sentences, scoring_settings(evaluation), gold_deps)


test_ceiling.__test__ = False   # a stage, not a pytest test
