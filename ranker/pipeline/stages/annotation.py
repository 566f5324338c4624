"""The ``annotate`` stage: the partial bracketing stored and every candidate checked against it."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

from ...errors import RankerError
from ...store.records import Sentence
from ..config import AnnotationSection, EvaluationSection
from .context import StageContext
from .provenance import record_scoring, scoring_settings


class AnnotationOutcome(NamedTuple):
    """Which annotation kinds define the consistent sets, and the rule applied when none is."""

    kind: str          # of the main corpus
    extra_kind: str    # of the extra corpora
    rule: str          # [annotation] rule, one of ranker.store.consistency.RULES (:meth:`Store.consistent_sets`)
    annotated: int = 0             # sentences annotated now
    checked: object = None         # CheckSummary of the main kind: candidates checked now
    best_f: tuple | None = None    # kind best_f: (metric, ScoringSettings) its weights are read by


def annotate(ctx: StageContext, annotation: AnnotationSection, sentences: Sequence[Sentence],
             with_extra: bool = False, equivalences: str | None = None, labelled: bool = True,
             recheck: bool = False, brackets: str | Path | None = None,
             evaluation: EvaluationSection | None = None) -> AnnotationOutcome:
    """Store the partial bracketing of kind ``annotation.kind`` and check every candidate against it.

    The kind says where the brackets come from: ``riezler`` derives them from the gold trees of
    ``sentences`` (Crouch et al. 2.1), ``chunks`` are stored with the conll2000 corpus when it is
    loaded, ``user`` is made of the discriminant decisions stored (``ranker serve``; accepted
    spans must be contained, rejected ones must not; several annotators' work is their adjudicated
    set, :mod:`ranker.sources.adjudication`; sentences whose decisions changed are checked again), and any kind may be read from a user bracket file ``brackets`` (a sentence's
    brackets there replace those stored for it before, so the kind's candidates are all checked
    again).

    Kind ``best_f`` (full annotation, :mod:`.best_f`) instead stores the counts of the context's
    source's candidates under ``[annotation] best_f_metric`` with the ``evaluation`` settings.

    Parameters
    ----------
    with_extra : bool
        Also check the candidates of the extra corpora against their ``extra_kind`` annotation.
    equivalences, labelled, recheck
        Label equivalence table (default the shipped one), whether labels must match, and
        whether candidates checked before are checked again (``ranker annotate`` options).
    brackets : path, optional
        A bracket file (:func:`~ranker.sources.annotations.read_bracket_file`) for ``kind``.
    """
    from ...registries import ANNOTATIONS
    from ...sources.annotations import (DEFAULT_EQUIVALENCES, LabelEquivalences, check_store,
                                       read_bracket_file, riezler_annotations)
    from ...sources.adjudication import store_spans, store_team_work
    from ...sources.discriminants import user_annotations
    from ..best_f import KIND as BEST_F

    store, source, where, progress, workers = ctx.store, ctx.source, ctx.where, ctx.progress, ctx.n_workers
    kind = annotation.kind
    if brackets is None and kind not in ANNOTATIONS.names(bare=True):
        raise RankerError(f"{where}: annotation kind {kind!r} is neither derivable from gold trees "
                          f"(riezler, {BEST_F}), stored with a corpus (chunks) nor made of decisions "
                          f"(user): it needs a bracket file")
    eq = LabelEquivalences.load(equivalences or DEFAULT_EQUIVALENCES, labelled=labelled)
    if kind == BEST_F and brackets is None:
        from ..best_f import ensure_best_f_counts

        if source is None:
            raise RankerError(f"{where}: [annotation] kind {BEST_F!r} needs the candidate source")
        if evaluation is None:
            raise RankerError(f"{where}: [annotation] kind {BEST_F!r} needs the [evaluation] settings "
                              "its counts are computed with")
        settings = scoring_settings(evaluation)
        done = ensure_best_f_counts(store, sentences, source, annotation.best_f_metric, settings,
                                    workers)
        record_scoring(store, evaluation, source)
        if with_extra:
            check_store(store, annotation.extra_kind, eq, progress=progress, workers=workers)
        return AnnotationOutcome(kind, annotation.extra_kind, annotation.rule, done,
                                 None, (annotation.best_f_metric, settings))
    if brackets is not None:
        known = {s.id: len(s.tokens) for s in store.sentences()}
        added = store.add_annotations(read_bracket_file(brackets, kind, known))
        recheck = True   # a user file may have changed since the last check
    elif ANNOTATIONS.get(kind) == "decisions":   # user: the adjudicated set of the answers stored so far
        team = store_team_work(store)
        added = store.replace_annotations(kind, user_annotations(team.adjudicated(store_spans(store, source)), kind))
    elif kind == "riezler":
        have = store.annotations(kind)
        new = [s for s in sentences if s.id not in have]
        added = store.add_annotations(riezler_annotations((s.id, store.gold(s.id)) for s in new)) if new else 0
    else:   # chunks: stored with their corpus (load_corpus)
        added = 0
    checked = check_store(store, kind, eq, recheck=recheck, progress=progress, workers=workers,
                          source=source)
    if with_extra:
        check_store(store, annotation.extra_kind, eq, progress=progress, workers=workers)
    return AnnotationOutcome(kind, annotation.extra_kind, annotation.rule, added, checked)
