"""Training signal ``best_f``: the candidates closest to the full gold tree are the consistent set.

Charniak and Johnson (2005) train their reranker towards the parses of an n-best list with the
highest F-score against the gold tree (several when they tie); the consistent set X(y, z) of the
log-linear objective (:mod:`ranker.models.objective`) becomes exactly those candidates, each tied
winner with weight 1/k, so the same objective trains from full annotation as it does from partial
bracketings (kind ``riezler``), and a report can say what partial annotation costs.

The metric is ``[annotation] best_f_metric`` (any reported metric; EVALB labelled F by default, the
one Charniak and Johnson optimise). Only its own counts are computed (EVALB alone is six times
cheaper than every scheme), in worker processes, and kept in the store under a key of their own
(``best_f:<counts>@<settings>``), so a warm rerun reads them and the scored-sentence marker of
:func:`ranker.pipeline.candidate_scoring.score_candidates` is never touched.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import RankerError
from ..evaluation.bounds import METRICS, unscored_rows
from ..evaluation.scoring import DEPENDENCY_TREEBANK_COUNTS, EVALB_COUNTS, Scorer, ScoringSettings
from ..store import BracketCounts, Store
from ..store.records import Sentence

KIND = "best_f"


def _count_handler(arg):
    settings, counts_from = arg
    scorer = Scorer(settings)
    plain = counts_from in EVALB_COUNTS   # EVALB needs no gold side
    if plain:
        from ..evaluation.evalb import ERROR, score_evalb

        params = getattr(scorer, EVALB_COUNTS[counts_from])

        def count(gold, tree):
            s = score_evalb(gold, tree, params)
            if s.status == ERROR:    # as Scorer.count: left out, as evalb leaves it out
                return (0, 0, 0, 0)
            return (s.gold, s.test, s.matched, s.crossing)
    else:
        def count(side, tree):
            return scorer.count(side, tree)[counts_from]

    def handle(item):
        from ..trees.penn import parse_tree

        sid, gold_text, gold_deps, texts = item
        gold = parse_tree(gold_text, f"gold:{sid}")
        side = gold if plain else scorer.gold_side(gold, gold_deps)
        seen: dict[str, tuple] = {}
        out = []
        try:
            for text in texts:
                c = seen.get(text)
                if c is None:
                    c = seen[text] = count(side, parse_tree(text, f"candidate:{sid}"))
                out.append(c)
        except RankerError as e:
            return sid, RankerError(f"{sid}: {e}")
        return sid, out

    return handle


def _count_failed(item, reason):
    return item[0], RankerError(f"scoring {item[0]} for best_f failed: {reason}")


def best_f_key(metric: str, settings: ScoringSettings) -> str:
    """Store key of the per-candidate counts that ``best_f`` under ``metric`` reads."""
    if metric not in METRICS:
        raise RankerError(f"best_f_metric {metric!r} is not a metric "
                          f"(known: {', '.join(METRICS)})")
    return f"{KIND}:{METRICS[metric].counts_from}@{settings.key()}"


def ensure_best_f_counts(store: Store, sentences: Sequence[Sentence], source: str, metric: str,
                         settings: ScoringSettings, workers: int = 1) -> int:
    """Store the counts ``best_f`` needs for every sentence lacking them; returns how many were scored."""
    from ..parallel import run_pool

    key = best_f_key(metric, settings)
    have = store.bracket_counts(key, None, None, source=source)
    todo = [s for s in sentences if s.id not in have]

    deps = METRICS[metric].counts_from in DEPENDENCY_TREEBANK_COUNTS   # scored against dependency_treebank

    def items():
        for s in todo:
            texts = store.candidate_texts(s.id, source)
            if texts:
                yield (s.id, store.gold(s.id).to_penn(),
                       store.gold_dependencies(s.id) if deps else None, texts)

    rows: list[BracketCounts] = []
    done = 0
    for sid, counts in run_pool(items(), _count_handler, (settings, METRICS[metric].counts_from),
                                max(1, workers), _count_failed):
        if isinstance(counts, Exception):
            raise counts
        rows.extend(BracketCounts(sid, source, rank, *c) for rank, c in enumerate(counts))
        done += 1
        if len(rows) > 20000:
            store.put_bracket_counts(key, rows)
            rows = []
    if rows:
        store.put_bracket_counts(key, rows)
    return done


def best_f_set(scores: np.ndarray, unscored: np.ndarray | None = None) -> np.ndarray:
    """Weights of one sentence's candidates: 1/k on the k candidates with the top score, 0 elsewhere.

    Scores are compared after rounding to 1e-9 (F-scores are ratios of small integers: equal
    fractions must tie however they were computed). Candidates marked ``unscored`` (EVALB could
    not align them: :func:`ranker.evaluation.bounds.unscored_rows`) rank below every scored one.
    """
    if len(scores) == 0:
        return np.zeros(0)
    s = np.round(np.asarray(scores, dtype=np.float64), 9)
    if unscored is not None:
        s = np.where(unscored, -np.inf, s)
    top = s == s.max()
    return top / top.sum()


def scores_and_unscored(got: Sequence[BracketCounts], metric: str) -> tuple[np.ndarray, np.ndarray]:
    """One sentence's candidates' scores under ``metric`` and, beside them, which EVALB left out.

    ``got`` are the sentence's stored :class:`BracketCounts` in forest order (as
    :meth:`Store.sentence_bracket_counts` under :func:`best_f_key` gives them); the pair is what
    :func:`best_f_set` takes. A left-out candidate keeps the score its counts give, and the mask says
    which those are (:func:`ranker.evaluation.bounds.candidate_scores` instead gives it a score chosen
    for the use).
    """
    counts = np.array([(r.gold, r.test, r.matched, r.crossing) for r in got], dtype=np.int64).reshape(-1, 4)
    if len(counts) == 0:
        return np.zeros(0), np.zeros(0, dtype=bool)
    return (np.asarray(METRICS[metric].score(counts), dtype=np.float64),
            unscored_rows(counts, np.full(len(counts), counts[:, 0].max())))


def _sentence_scores(store: Store, rows, metric: str, settings: ScoringSettings, source: str):
    """Per sentence of ``rows``: its rows' slice, sentence scores under ``metric`` and unscored mask."""
    key = best_f_key(metric, settings)
    stored = store.bracket_counts(key, None, None, source=source)
    for j, sid in enumerate(rows.sentence_ids):
        a, b = int(rows.offsets[j]), int(rows.offsets[j + 1])
        got = stored.get(sid, ())
        if len(got) != b - a:
            raise RankerError(f"{store.path}: {sid} has {b - a} candidates but {len(got)} {key!r} "
                              "counts; the best_f set cannot be formed")
        yield (a, b, *scores_and_unscored(got, metric))


def best_f_weights(store: Store, rows, metric: str, settings: ScoringSettings,
                   source: str) -> np.ndarray:
    """The ``best_f`` consistency weight of every row of ``rows`` (a matrix with ``sentence_ids``, ``offsets``).

    Raises
    ------
    RankerError
        If a sentence's stored counts do not cover its candidates (run :func:`ensure_best_f_counts`).
    """
    w = np.zeros(int(rows.offsets[-1]))
    for a, b, scores, unscored in _sentence_scores(store, rows, metric, settings, source):
        w[a:b] = best_f_set(scores, unscored)
    return w


def best_f_gains(store: Store, rows, metric: str, settings: ScoringSettings,
                 source: str) -> np.ndarray:
    """Each row's sentence score under ``metric`` in ``[0, 1]`` (0 for a candidate EVALB left out).

    What minimum-risk training (:class:`ranker.models.expected_f.ExpectedFRanker`) maximises in
    expectation; same stored counts and errors as :func:`best_f_weights`.
    """
    g = np.zeros(int(rows.offsets[-1]))
    for a, b, scores, unscored in _sentence_scores(store, rows, metric, settings, source):
        g[a:b] = np.where(unscored, 0.0, np.clip(np.asarray(scores, dtype=np.float64) / 100.0, 0, 1))
    return g
