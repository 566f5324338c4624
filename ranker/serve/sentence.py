"""Everything the sentence page shows about one forest, computed from the store in one pass.

The candidates ranked by the model with their probabilities, each ranker's choice, each
candidate's score under every metric (from the stored bracket counts, so no tree is rescored),
and the discriminants left after the sentence's decisions (:mod:`ranker.sources.discriminants`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..evaluation.bounds import METRICS
from ..pipeline.config import EvaluationSection, LogLinearSection
from .model import probabilities


class CandidateRow(NamedTuple):
    """One candidate as the page lists it."""

    index: int                    # position in the forest (source order)
    rank: int                     # the source's own rank
    quality: str
    score: float                  # λ·f(x) (0 without a model)
    prob: float                   # P(x | y) under the model (uniform without one)
    position: int                 # 1-based place in the model's order
    previous: int | None          # its place under the model before the last retraining
    metrics: dict[str, float]     # metric name -> sentence score (percent), when gold counts exist
    remaining: bool               # consistent with every decision so far
    chosen_by: tuple[str, ...]    # rankers whose choice it is


class SentenceView(NamedTuple):
    """One sentence's page."""

    sentence: object              # Sentence
    gold: object                  # Tree or None
    trees: tuple                  # candidate trees in forest order
    rows: list[CandidateRow]      # in the model's order
    choices: dict[str, int]       # ranker -> forest index
    metric_titles: dict[str, str]
    primary_metric: str
    decisions: list               # Decision records, oldest first
    discriminants: list           # Discriminant records, best first
    n_remaining: int
    model_key: str | None


def metric_scores(store, sentence, source: str) -> dict[str, np.ndarray]:
    """Each metric's per-candidate sentence score (forest order) from the stored counts."""
    from ..pipeline.counts import metric_key
    from ..pipeline.stages import scoring_settings

    settings = scoring_settings(EvaluationSection())
    out: dict[str, np.ndarray] = {}
    counts_cache: dict[str, tuple] = {}
    for name, m in METRICS.items():
        if m.counts_from not in counts_cache:
            got = store.bracket_counts(metric_key(m.counts_from, settings), sentence.corpus,
                                       fileids=[sentence.document], source=source)
            counts_cache[m.counts_from] = got.get(sentence.id, ())
        rows = counts_cache[m.counts_from]
        if rows:
            arr = np.array([(r.gold, r.test, r.matched, r.crossing) for r in rows], dtype=np.float64)
            out[name] = np.asarray(m.score(arr), dtype=np.float64)
    return out


def _order(scores: np.ndarray) -> np.ndarray:
    """Forest indices best first; ties keep source order (as every ranker breaks them)."""
    return np.argsort(-scores, kind="stable")


def sentence_view(store, sentence_id: str, source: str, model=None, previous=None, heidorn=None) -> SentenceView:
    """The page of one sentence.

    Parameters
    ----------
    store
        An open :class:`~ranker.store.Store`.
    sentence_id
        A stored sentence (checked by the caller).
    source
        The candidate source shown.
    model, previous
        The :class:`~.model.ServedModel` ranking the candidates, and the one before the last
        retraining (its order is shown beside), or None.
    heidorn
        Heidorn's ranker with a stored tuned K table, or None.
    """
    from ..sources.discriminants import candidate_spans, discriminants, remaining_mask

    forest = store.forest(sentence_id, source)
    cands = forest.candidates
    n = len(cands)
    scores = model.scores(forest) if model is not None and n else np.zeros(n)
    probs = probabilities(scores) if model is not None else np.full(n, 1.0 / n if n else 0.0)
    order = _order(scores)
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(1, n + 1)
    before = None
    if previous is not None and n:
        before = np.empty(n, dtype=np.int64)
        before[_order(previous.scores(forest))] = np.arange(1, n + 1)
    metrics = metric_scores(store, forest.sentence, source) if n else {}
    primary = LogLinearSection().select_metric
    choices: dict[str, int] = {}
    if n:
        choices["native"] = 0
        if heidorn is not None:
            choices["heidorn"] = int(np.argmax(heidorn.decision_function([c.tree for c in cands])))
        if model is not None:
            choices["loglinear"] = int(order[0])
        if primary in metrics and len(metrics[primary]) == n:
            choices["oracle"] = int(np.argmax(metrics[primary]))
    spans = [candidate_spans(c.tree) for c in cands]
    decisions = list(store.decisions(sentence_id))
    mask = np.asarray(remaining_mask(spans, decisions), dtype=bool) if n else np.zeros(0, dtype=bool)
    discs = discriminants(spans, mask, probs) if n else []
    by_index: dict[int, list[str]] = {}
    for r, i in choices.items():
        by_index.setdefault(i, []).append(r)
    rows = [CandidateRow(int(i), cands[i].rank, cands[i].quality, float(scores[i]), float(probs[i]),
                         int(place[i]), None if before is None else int(before[i]),
                         {k: float(v[i]) for k, v in metrics.items() if len(v) == n},
                         bool(mask[i]), tuple(by_index.get(int(i), ())))
            for i in order]
    return SentenceView(forest.sentence, forest.gold, tuple(c.tree for c in cands), rows, choices,
                        {k: METRICS[k].title for k in metrics}, primary, decisions, discs,
                        int(mask.sum()), None if model is None else model.key)


def disambiguated(store, source: str, sentence_id: str, decisions) -> bool:
    """True when the decisions leave no discriminant: the remaining candidates agree on every span."""
    from ..sources.discriminants import candidate_spans, discriminants, remaining_mask

    spans = [candidate_spans(t) for _, _, t in store.candidate_trees(sentence_id, source)]
    if not spans:
        return False
    return not discriminants(spans, np.asarray(remaining_mask(spans, decisions), dtype=bool))
