"""The simulated annotator of the annotation-economy experiment, on a real store.

Link Grammar forests of the first treebank sentences, each candidate's EVALB counts stored by
``ranker annotate --kind best_f``: the annotator answers through the page's path and must end every
sentence with best-F candidates only, never with none, its answers stored and counted.
"""
import shutil

import numpy as np
import pytest

from ranker.cli.main import main
from ranker.pipeline.best_f import best_f_key, scores_and_unscored
from ranker.pipeline.simulate import (ANNOTATOR, MODEL, annotate_sentence, best_candidates, decide,
                                      oracle_answer)
from ranker.pipeline.stages import scoring_settings, stored_evaluation
from ranker.sources.discriminants import candidate_spans, discriminants, remaining_mask
from ranker.store import Store

pytestmark = [pytest.mark.slow, pytest.mark.linkgrammar]
METRIC = "evalb_labeled"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("simulate")
    store = d / "s.sqlite"
    assert main(["parse", "--store", str(store), "--corpus", "treebank", "--split", "train", "--limit", "12",
                 "--linkage-limit", "60", "--no-progress", "--workers", "1"]) == 0
    assert main(["annotate", "--store", str(store), "--kind", "best_f", "--workers", "1"]) == 0
    return store


@pytest.fixture
def store(built, tmp_path):
    path = tmp_path / "s.sqlite"
    shutil.copy(built, path)
    with Store.open(path) as st:
        yield st


def _forest(st, sid):
    source = "link-grammar"
    spans = [candidate_spans(t) for _, _, t in st.candidate_trees(sid, source)]
    settings = scoring_settings(stored_evaluation(st, source))
    f, unscored = scores_and_unscored(st.sentence_bracket_counts(best_f_key(METRIC, settings), sid, source), METRIC)
    return spans, f, unscored


def _ambiguous(st):
    out = []
    for s in st.sentences("treebank"):
        spans = [candidate_spans(t) for _, _, t in st.candidate_trees(s.id)]
        if len(spans) > 1 and discriminants(spans):
            out.append(s.id)
    assert len(out) >= 5, "too few ambiguous forests to test on"
    return out


def test_every_sentence_ends_with_best_f_candidates_only(store):
    total = 0
    for sid in _ambiguous(store):
        spans, f, unscored = _forest(store, sid)
        best = best_candidates(f, unscored, np.ones(len(spans), dtype=bool))
        got = annotate_sentence(store, sid, spans, f, unscored)
        stored = store.decisions(sid)
        mask = remaining_mask(spans, stored)
        assert mask.sum() > 0 and (mask & best).any()
        # a worse candidate remains only when its labelled spans are a best one's (the page cannot tell them)
        best_spans = {spans[i] for i in np.flatnonzero(mask & best)}
        assert all(spans[i] in best_spans for i in np.flatnonzero(mask & ~best)), f"{sid}: a worse candidate remains"
        assert got.remaining == mask.sum() and got.best_remaining == (mask & best).sum()
        assert got.asked == len(stored) and got.automatic == 0
        assert all(d.who == ANNOTATOR for d in stored)
        # every answer was a discriminant of the candidates remaining when it was given
        for k, d in enumerate(stored):
            before = remaining_mask(spans, stored[:k])
            assert (d.label, d.start, d.end) in {(x.label, x.start, x.end) for x in discriminants(spans, before)}
        total += got.asked
    assert total > 0


def test_answers_are_those_of_the_best_candidates(store):
    sid = _ambiguous(store)[0]
    spans, f, unscored = _forest(store, sid)
    best = best_candidates(f, unscored, np.ones(len(spans), dtype=bool))
    annotate_sentence(store, sid, spans, f, unscored)
    for d in store.decisions(sid):
        assert oracle_answer(spans, f"{d.label}:{d.start}-{d.end}", best) is d.accept


def test_a_confident_model_answers_in_the_annotators_place_and_never_empties_the_forest(store):
    rng = np.random.default_rng(0)
    asked_alone = asked_with_model = automatic = 0
    for sid in _ambiguous(store):
        spans, f, unscored = _forest(store, sid)
        alone = annotate_sentence(store, sid, spans, f, unscored)
        asked_alone += alone.asked
        while store.undo_decision(sid) is not None:
            pass
        # a peaked, partly wrong model: it favours one random candidate
        probs = np.full(len(spans), 0.01)
        probs[rng.integers(len(spans))] = 1.0
        got = annotate_sentence(store, sid, spans, f, unscored, probs=probs / probs.sum(), confident=0.9)
        stored = store.decisions(sid)
        mask = remaining_mask(spans, stored)
        assert mask.sum() > 0 and got.remaining == mask.sum()
        assert got.asked == sum(d.who == ANNOTATOR for d in stored)
        assert got.automatic == sum(d.who == MODEL for d in stored)
        asked_with_model += got.asked
        automatic += got.automatic
    assert automatic > 0 and asked_with_model < asked_alone


def test_decide_stores_the_answer_as_the_page_does(store):
    sid = _ambiguous(store)[0]
    spans, _, _ = _forest(store, sid)
    d = discriminants(spans)[0]
    decide(store, sid, spans, d.key, False, ANNOTATOR)
    (got,) = store.decisions(sid)
    assert (got.label, got.start, got.end, got.accept, got.who) == (d.label, d.start, d.end, False, ANNOTATOR)
    assert remaining_mask(spans, [got]).sum() == d.remaining - d.count
    # the page's check: the same answer again is no discriminant of what is left, and is refused
    from ranker.sources.discriminants import DecisionRefused

    with pytest.raises(DecisionRefused):
        decide(store, sid, spans, d.key, False, ANNOTATOR)
    assert len(store.decisions(sid)) == 1
