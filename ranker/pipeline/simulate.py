"""A simulated annotator: answers a forest's discriminants from the gold tree, as a person would on the page.

What a discriminant decision is worth to the model (issue 26, "the annotation economy") can only be
measured with many answers; a person cannot give thousands of them for an experiment, so this
annotator gives them instead, through the same code path the ``ranker serve`` page uses: the
decisions stored for the sentence are read back, the remaining candidates are those
:func:`~ranker.sources.discriminants.remaining_mask` keeps, the discriminants come in the page's
order (:func:`~ranker.sources.discriminants.discriminants`, with the model's probabilities when
the page has a model), and each answer is stored as the page stores it (:func:`decide`).
No discriminant logic of its own: which candidates hold a span is asked of ``remaining_mask``.

The oracle accepts a span exactly when the best-F candidates (``best_f``: the top candidates of
the sentence under ``[annotation] best_f_metric``) hold it and rejects it when none holds it; a
span some best-F candidates hold and others do not has no right answer, so it is passed over for
the next one on the page. When a confident model has answered (Baldridge and Osborne 2004) and
taken the best-F candidates out, the oracle answers for the best candidates still remaining, so an
answer never leaves zero candidates. Should no discriminant be answerable while candidates worse
than the best remain (they mix spans of several best-F candidates), the annotator settles on one
best-F candidate and answers for it alone, so every sentence ends with best-F candidates only, or
with candidates no discriminant tells from them: the page matches labelled spans as a set, so a
unary chain of one label (``(PP (PP ...))``, which EVALB counts twice) looks like a single ``PP``.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from ..sources.discriminants import decision, discriminants, remaining_mask
from .best_f import best_f_set

#: Who the simulated annotator's answers are stored as.
ANNOTATOR = "simulated-annotator"
#: Who the answers a confident model gave in the annotator's place are stored as.
MODEL = "model"


def decide(store, sentence_id: str, spans: Sequence[frozenset], key: str, accept: bool, who: str):
    """Store one answer to the discriminant ``key`` of ``sentence_id``, as the page stores it.

    The page's own path (:func:`ranker.sources.discriminants.decide`): the answer is checked, in its
    write transaction, to be a discriminant of ``who``'s remaining candidates, and refused
    (:class:`~ranker.sources.discriminants.DecisionRefused`) otherwise. The simulator only answers
    discriminants of the candidates every stored answer leaves, a subset of ``who``'s own, so a
    refusal here is a bug.
    """
    from ..sources.discriminants import decide as checked_decide

    d = decision(key, accept, who)
    checked_decide(store, sentence_id, spans, d)
    return d


class SentenceOutcome(NamedTuple):
    """What annotating one sentence took and left."""

    asked: int         # answers the annotator gave (the cost)
    automatic: int     # answers the confident model gave in the annotator's place (free)
    candidates: int    # the forest's size
    remaining: int     # candidates consistent with every answer at the end
    best_remaining: int  # of those, candidates with the sentence's top F: all of them unless a confident model
                         # erred or some have the labelled spans of a best one (a unary chain of one label)


def best_candidates(f_scores: np.ndarray, unscored: np.ndarray | None, mask: np.ndarray) -> np.ndarray:
    """The candidates among ``mask`` with the top F (:func:`~.best_f.best_f_set` of the remaining ones)."""
    out = np.zeros(len(mask), dtype=bool)
    if mask.any():
        out[mask] = best_f_set(f_scores[mask], None if unscored is None else unscored[mask]) > 0
    return out


def holders(spans: Sequence[frozenset], key: str) -> np.ndarray:
    """Which candidates hold the discriminant ``key``: those an accept would keep (``remaining_mask``)."""
    return remaining_mask(spans, [decision(key, True, ANNOTATOR, "1970-01-01T00:00:00Z")])


def oracle_answer(spans: Sequence[frozenset], key: str, targets: np.ndarray) -> bool | None:
    """Accept when every target candidate holds ``key``, reject when none does, None when they differ."""
    held = holders(spans, key)[targets]
    if held.all():
        return True
    if not held.any():
        return False
    return None


def annotate_sentence(store, sentence_id: str, spans: Sequence[frozenset], f_scores: np.ndarray,
                      unscored: np.ndarray | None = None, probs: np.ndarray | None = None,
                      confident: float | None = None, who: str = ANNOTATOR) -> SentenceOutcome:
    """Answer the page's discriminants of one sentence until none is left that the oracle can answer.

    Parameters
    ----------
    store
        An open, writable store holding the sentence (answers are stored as they are given).
    spans
        Each candidate's :func:`~ranker.sources.discriminants.candidate_spans`, forest order.
    f_scores, unscored
        Each candidate's sentence score under the best-F metric and which ones EVALB left out
        (:func:`~.best_f.scores_and_unscored`).
    probs
        The model's probability of each candidate (the page's order and the model's confidence);
        None: the page's order without a model, every answer asked of the annotator.
    confident
        With ``probs``: a discriminant whose model probability (``Discriminant.mass``) is at least
        this is accepted, at most ``1 - confident`` rejected, by the model without asking
        (stored as :data:`MODEL`'s answer); None: the annotator answers everything.
    """
    n = len(spans)
    if len(f_scores) != n:
        raise ValueError(f"{sentence_id}: {len(f_scores)} F-scores for {n} candidates")
    if confident is not None and not 0.5 < confident <= 1.0:
        raise ValueError(f"confidence threshold must be in (0.5, 1], not {confident}")
    asked = automatic = 0
    single: int | None = None     # the one best-F candidate answered for, once the set cannot be
    while True:
        mask = remaining_mask(spans, store.decisions(sentence_id))   # what the page reads back
        targets = best_candidates(f_scores, unscored, mask)
        if single is not None:
            targets = np.zeros(n, dtype=bool)
            targets[single] = True
        answered = False
        for d in discriminants(spans, mask, probs):
            if confident is not None and probs is not None and (d.mass >= confident or d.mass <= 1 - confident):
                decide(store, sentence_id, spans, d.key, d.mass >= confident, MODEL)
                automatic += 1
                answered = True
                break
            accept = oracle_answer(spans, d.key, targets)
            if accept is not None:
                decide(store, sentence_id, spans, d.key, accept, who)
                asked += 1
                answered = True
                break
        if answered:
            continue
        if single is None and (mask & ~targets).any():
            single = int(np.flatnonzero(targets)[0])   # worse candidates mix the best ones' spans
            continue
        best = best_candidates(f_scores, unscored, np.ones(n, dtype=bool))
        return SentenceOutcome(asked, automatic, n, int(mask.sum()), int((mask & best).sum()))
