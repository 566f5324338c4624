"""Per-candidate counts against gold under every metric: computed in parallel, kept in the store.

The counts of a candidate are four integers per metric; once stored, bounds and selections are sums
(see :mod:`ranker.evaluation.bounds`), and a rerun computes nothing again. The stored metric key
names everything the counts depend on (:class:`ScoringSettings`), and a digest of each sentence's
candidate texts, recorded with its counts, says which forest they were computed from: a forest
imported or parsed again is counted again (3 µs per candidate to check, about 3 s on the WSJ
training split's 1.07 million candidates).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import RankerError
from ..evaluation.bounds import METRICS, ForestCounts, corpus_score
from ..store import BracketCounts, Store
from ..store.records import Sentence
from ..trees.penn import parse_tree
from ..evaluation.scoring import Scorer, ScoringSettings
from .splits import SplitSelection


def _score_handler(settings: ScoringSettings):
    scorer = Scorer(settings)

    def handle(item):
        sid, gold_text, gold_deps, texts = item
        gold = parse_tree(gold_text, f"gold:{sid}")
        side = scorer.gold_side(gold, gold_deps)
        seen: dict[str, dict] = {}
        shared: dict = {}   # equal subtrees of the candidates are one object: converted once
        rows = {m: [] for m in scorer.metrics}
        for text in texts:                       # identical text is an identical tree: score once
            c = seen.get(text)
            if c is None:
                c = seen[text] = scorer.count(side, parse_tree(text, f"candidate:{sid}", shared=shared))
            for m in rows:
                rows[m].append(c[m])
        return sid, rows

    return handle


def _score_failed(item, reason):
    return item[0], RankerError(f"scoring {item[0]} failed: {reason}")


def metric_key(metric: str, settings: ScoringSettings) -> str:
    """Store key of a metric's counts: the metric and everything its counts depend on."""
    return f"{metric}@{settings.key()}"


#: The ``[evaluation]`` keys the counts are computed under and the ``ranker counts`` option of each.
SETTING_OPTIONS = {"evalb_param": "--evalb-param", "head_rules": "--head-rules",
                   "flatten_rules": "--flatten-rules"}

#: Store kind of the per-sentence forest digests the stored counts were computed from.
DIGEST_KIND = "counts-digest"


def score_candidates(store: Store, sentences: Sequence[Sentence], settings: ScoringSettings,
                     gold_deps: dict, workers: int, progress: bool, source: str) -> int:
    """Store per-candidate counts under every metric for ``sentences`` lacking them; returns how many.

    Whether a sentence's counts are current is decided by content: a digest of its candidates'
    texts is recorded with them, so a forest imported or parsed again is scored again (and its
    old counts dropped), while an unchanged one is never rescored.
    """
    from ..parallel import progress_bar, run_pool
    from .cache import text_digest

    metrics = Scorer(settings).metrics
    last = metric_key(metrics[-1], settings)
    got = store.get_artifact(DIGEST_KIND, f"{last}/{source}")
    recorded: dict[str, str] = dict(got[1]) if got is not None else {}
    current = {}
    todo = []
    no_gold = []
    for s in sentences:
        texts = store.candidate_texts(s.id, source)
        if texts and not _current(store, recorded, s.id, d := text_digest(texts), last, source):
            gold = store.gold(s.id)
            if gold is None:
                no_gold.append(s)
                continue
            current[s.id] = d
            todo.append((s, gold, texts))
    if no_gold:
        corpora = sorted({s.corpus for s in no_gold})
        raise RankerError(f"{store.path}: corpus {', '.join(corpora)} has no gold trees to count candidates "
                          f"against ({len(no_gold)} sentences to count lack one, e.g. {no_gold[0].id}); counts "
                          "(and the oracle, sigma^2 on held-out and the report, which read them) need a corpus "
                          "with gold trees, such as treebank")

    def items():
        for s, gold, texts in todo:
            yield (s.id, gold.to_penn(), gold_deps.get(s.id), texts)

    done = 0
    pending: dict[str, list] = {m: [] for m in metrics}
    scored: list[str] = []

    def flush():
        with store.batch():   # counts and the digests saying what they were computed from, together
            _flush_counts(store, pending, settings, scored, source)
            recorded.update((sid, current[sid]) for sid in scored)
            store.put_artifact(DIGEST_KIND, f"{last}/{source}", b"", recorded)
        scored.clear()

    with progress_bar(len(todo), "score", enabled=progress) as bar:
        for sid, rows in run_pool(items(), _score_handler, settings, workers, _score_failed):
            if isinstance(rows, Exception):
                raise rows
            for m, counts in rows.items():
                pending[m].extend(BracketCounts(sid, source, rank, *c) for rank, c in enumerate(counts))
            scored.append(sid)
            done += 1
            bar.update(1)
            if len(pending[metrics[0]]) > 20000:
                flush()
        if scored:
            flush()
    return done


def missing_counts(store: Store, settings: ScoringSettings, sentences: Sequence[Sentence],
                   source: str) -> list[str]:
    """Ids of sentences with candidates whose counts are absent or were computed from another forest."""
    from .cache import text_digest

    last = metric_key(Scorer(settings).metrics[-1], settings)
    got = store.get_artifact(DIGEST_KIND, f"{last}/{source}")
    recorded = got[1] if got is not None else {}
    out = []
    for s in sentences:
        texts = store.candidate_texts(s.id, source)
        if texts and not _current(store, recorded, s.id, text_digest(texts), last, source):
            out.append(s.id)
    return out


def _current(store: Store, recorded: dict, sentence_id: str, digest: str, key: str, source: str) -> bool:
    """Whether a sentence's stored counts are its current forest's: recorded with this digest of
    its candidates' texts and still there (replacing a forest drops its counts, even when the
    new forest is the same, so the digest alone does not say)."""
    return recorded.get(sentence_id) == digest and store.has_bracket_counts(key, sentence_id, source)


def conversion_ceiling(store: Store, sentences: Sequence[Sentence], settings: ScoringSettings,
                       gold_deps: dict) -> float:
    """Untyped dependency F of the gold trees themselves, converted with the head rules.

    Untyped dependencies are scored against ``dependency_treebank``, whose head conventions differ
    from any head-rule table, so even the gold tree does not score 100: this is the ceiling of
    every tree-based selection, and the report says what it is.
    """
    scorer = Scorer(settings)
    sums = np.zeros(4)
    for s in sentences:
        gold = store.gold(s.id)
        sums += scorer.count(scorer.gold_side(gold, gold_deps.get(s.id)), gold)["deps_untyped"]
    return corpus_score(METRICS["deps_untyped"], sums[None, :])


def _flush_counts(store: Store, pending: dict[str, list], settings: ScoringSettings,
                  sentence_ids: Sequence[str], source: str) -> None:
    # One transaction: a sentence's old counts (of an earlier forest) go, its new ones come.
    with store.batch():
        store.delete_bracket_counts(sentence_ids, source)
        for m, rows in pending.items():
            store.put_bracket_counts(metric_key(m, settings), rows)
            rows.clear()


def load_forest_counts(store: Store, sel: SplitSelection, metric: str,
                       settings: ScoringSettings, source: str) -> ForestCounts:
    """Per-candidate counts of a split under one stored metric, sentences in split order."""
    stored = store.bracket_counts(metric_key(metric, settings), sel.corpus, sel.split,
                                  fileids=list(sel.fileids) if sel.fileids else None, source=source)
    per, gold = [], []
    for s in sel.sentences:
        rows = stored.get(s.id, ())
        per.append([(r.gold, r.test, r.matched, r.crossing) for r in rows])
        # the largest: a candidate EVALB skips counts zero gold (bounds.unscored_rows)
        gold.append(max(r.gold for r in rows) if rows else _gold_count(store, s, metric, settings))
    return ForestCounts.from_lists(per, gold)


def _gold_count(store: Store, s: Sentence, metric: str, settings: ScoringSettings) -> int:
    # A sentence with no candidate still owes its gold brackets: score gold against nothing.
    scorer = Scorer(settings)
    gold = store.gold(s.id)
    side = scorer.gold_side(gold)
    return scorer.count(side, gold)[metric][0]
