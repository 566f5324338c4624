"""Everything the sentence page shows about one forest, computed from the store in one pass.

The candidates ranked by the model with their probabilities, each ranker's choice, each
candidate's score under every metric (from the stored bracket counts, so no tree is rescored),
and the discriminants left after the sentence's decisions (:mod:`ranker.sources.discriminants`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..evaluation.bounds import METRICS, SHOWN, candidate_scores, oracle_choice, sentence_counts
from ..pipeline.config import LogLinearSection
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
    metrics: dict[str, float | None]   # metric name -> sentence score (percent), when gold counts exist;
                                       # None where the scorer left the candidate out (EVALB could not align it)
    remaining: bool               # consistent with every decision so far
    chosen_by: tuple[str, ...]    # rankers whose choice it is


class PackRow(NamedTuple):
    """Candidates with one bracketing (a pack), as the candidate table lists them: no answer splits them."""

    row: CandidateRow             # the pack's best candidate under the model (its representative)
    members: tuple[int, ...]      # forest indices of every candidate of the pack, the model's order
    prob: float                   # the pack's probability (its members' sum)
    chosen_by: tuple[str, ...]    # rankers whose choice is one of its members


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
    packs: list = []              # PackRow, the model's order (of their best member)
    n_remaining_packs: int = 0
    rank_differs: bool = False    # some candidate's source rank is not its forest position


def metric_counts(store, sentence_id: str, source: str, evaluation) -> dict[str, object]:
    """Each metric's per-candidate counts (one sentence's :class:`~ranker.evaluation.bounds.ForestCounts`,
    forest order) stored under ``evaluation`` (the ``[evaluation]`` section they were computed with:
    :func:`ranker.pipeline.stages.stored_evaluation`)."""
    from ..pipeline.candidate_scoring import metric_key
    from ..pipeline.stages import scoring_settings

    settings = scoring_settings(evaluation)
    out: dict[str, object] = {}
    counts_cache: dict[str, tuple] = {}
    for name, m in METRICS.items():
        if m.counts_from not in counts_cache:
            counts_cache[m.counts_from] = store.sentence_bracket_counts(metric_key(m.counts_from, settings),
                                                                        sentence_id, source)
        rows = counts_cache[m.counts_from]
        if rows:
            out[name] = sentence_counts((r.gold, r.test, r.matched, r.crossing) for r in rows)
    return out


def metric_scores(store, sentence_id: str, source: str, evaluation) -> dict[str, np.ndarray]:
    """Each metric's per-candidate sentence score (forest order; NaN where the scorer left a candidate
    out: :func:`~ranker.evaluation.bounds.candidate_scores`) from :func:`metric_counts`."""
    return {name: candidate_scores(fc, name, unscored=SHOWN)
            for name, fc in metric_counts(store, sentence_id, source, evaluation).items()}


class ForestData(NamedTuple):
    """What a sentence page needs that no decision or model changes (kept in memory between requests)."""

    forest: object                # Forest
    spans: list                   # each candidate's candidate_spans, forest order
    metrics: dict[str, np.ndarray]  # metric -> each candidate's sentence score, NaN where left out
    counts: dict = {}               # metric -> the sentence's ForestCounts (what the oracle chooses by)


def forest_data(store, sentence_id: str, source: str, evaluation, evidence: str | None = None) -> ForestData:
    """Read a forest, its candidates' labelled spans and their metric scores (under ``evaluation``);
    with ``evidence``, the forest holds that second source's candidates for the model's families."""
    from ..sources.discriminants import forest_spans

    forest = store.forest(sentence_id, source, evidence)
    spans = forest_spans(forest.candidates)   # equal candidate texts share one tree object
    n = len(forest.candidates)
    counts = metric_counts(store, sentence_id, source, evaluation) if n else {}
    counts = {k: fc for k, fc in counts.items() if len(fc.counts) == n}
    return ForestData(forest, spans, {k: candidate_scores(fc, k, unscored=SHOWN) for k, fc in counts.items()},
                      counts)


def _order(scores: np.ndarray) -> np.ndarray:
    """Forest indices best first; ties keep source order (as every ranker breaks them)."""
    return np.argsort(-scores, kind="stable")


def sentence_view(data: ForestData, decisions, scores: np.ndarray | None, previous: np.ndarray | None = None,
                  rankers: dict[str, int] | None = None, model_key: str | None = None) -> SentenceView:
    """The page of one sentence.

    Parameters
    ----------
    data
        The sentence's :class:`ForestData`.
    decisions
        Its stored decisions, oldest first.
    scores, previous
        Each candidate's score under the served model, and under the model before the last
        retraining (its order is shown beside); None without.
    rankers
        Each served ranker's choice (:func:`.listing.ranker_choices`: native, heidorn, loglinear,
        through the function ``ranker run`` and ``ranker select`` choose with); the oracle is added
        here from the counts.
    """
    from ..sources.discriminants import discriminants, remaining_mask

    forest, spans, metrics = data.forest, data.spans, data.metrics
    cands = forest.candidates
    n = len(cands)
    probs = probabilities(scores) if scores is not None else np.full(n, 1.0 / n if n else 0.0)
    scores = scores if scores is not None else np.zeros(n)
    order = _order(scores)
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(1, n + 1)
    before = None
    if previous is not None and n:
        before = np.empty(n, dtype=np.int64)
        before[_order(previous)] = np.arange(1, n + 1)
    primary = LogLinearSection().select_metric
    choices: dict[str, int] = {}
    if n:
        choices.update(rankers or {"native": 0})
        if primary in data.counts:   # the report's oracle: a candidate the scorer left out only if all were
            choices["oracle"] = int(oracle_choice(data.counts[primary], METRICS[primary].score)[0])
    mask = np.asarray(remaining_mask(spans, decisions), dtype=bool) if n else np.zeros(0, dtype=bool)
    discs = discriminants(spans, mask, probs) if n else []
    by_index: dict[int, list[str]] = {}
    for r, i in choices.items():
        by_index.setdefault(i, []).append(r)
    columns = {k: [None if x != x else x for x in v.tolist()] for k, v in metrics.items()}   # NaN: left out
    score_list, prob_list, place_list = scores.tolist(), probs.tolist(), place.tolist()
    before_list = None if before is None else before.tolist()
    rows = [CandidateRow(i, cands[i].rank, cands[i].quality, score_list[i], prob_list[i], place_list[i],
                         None if before_list is None else before_list[i],
                         {k: v[i] for k, v in columns.items()}, bool(mask[i]), tuple(by_index.get(i, ())))
            for i in order.tolist()]
    pack_rows = pack_candidates(rows, spans)
    return SentenceView(forest.sentence, forest.gold, tuple(c.tree for c in cands), rows, choices,
                        {k: METRICS[k].title for k in metrics}, primary, list(decisions), discs,
                        int(mask.sum()), model_key, pack_rows, sum(p.row.remaining for p in pack_rows),
                        any(c.rank != i for i, c in enumerate(cands)))


def pack_candidates(rows: list[CandidateRow], spans) -> list[PackRow]:
    """The rows (model order) grouped by identical bracketing, each pack led by its best member."""
    by_spans: dict[frozenset, list[CandidateRow]] = {}
    for r in rows:
        by_spans.setdefault(spans[r.index], []).append(r)
    return [PackRow(members[0], tuple(m.index for m in members), float(sum(m.prob for m in members)),
                    tuple(c for m in members for c in m.chosen_by))
            for members in by_spans.values()]


def default_pair(view: SentenceView) -> tuple[int | None, int | None]:
    """The two candidates shown side by side by default: the best remaining one, and the best of
    another bracketing (remaining first); never two identical trees. ``b`` is None when every
    candidate has one bracketing.
    """
    if not view.packs:
        return None, None
    ordered = [p for p in view.packs if p.row.remaining] + [p for p in view.packs if not p.row.remaining]
    a = ordered[0].row.index
    return a, (ordered[1].row.index if len(ordered) > 1 else None)
