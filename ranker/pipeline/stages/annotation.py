"""The ``annotate`` stage: the partial bracketing stored and every candidate checked against it."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ...store.records import Sentence
from ..annotation_kinds import AnnotationOutcome, kind_of
from ..config import AnnotationSection, EvaluationSection
from .context import StageContext

__all__ = ["AnnotationOutcome", "annotate"]


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
    from ...sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences
    eq = LabelEquivalences.load(equivalences or DEFAULT_EQUIVALENCES, labelled=labelled)
    return kind_of(annotation.kind).annotate(ctx, annotation, sentences, with_extra, eq, recheck, brackets,
                                             evaluation)
