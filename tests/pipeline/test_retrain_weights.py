"""A retrain weighs a store of several corpora as ``ranker run`` does (issue 47, tidy item 3).

``ranker models retrain`` (:func:`ranker.pipeline.retrain.retrain`) weighs every annotated sentence
in one call, over all corpora at once (``consistency_weights(..., corpus=None, split=None, ...)``),
where ``ranker run`` weighs each corpus's training block through the stage
(:func:`ranker.pipeline.stages.consistency`, the annotation kind's ``weights``). The two give the
same model only because a sentence's consistent set depends on that sentence alone, under any
rule, never on which others are asked about with it. This checks that on a real store of two
corpora whose sentences share a document name and candidates, for every rule: if a rule ever read
the selection (a corpus's share, a split's), the retrain's single call would have to become one
stage call per corpus, and this test says so.
"""
from types import SimpleNamespace

import numpy as np
import pytest

from ranker.features.datasets import consistency_weights
from ranker.pipeline import stages
from ranker.pipeline.splits import SplitSelection
from ranker.sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, check_store
from ranker.store import Annotation, Bracket, Candidate, Sentence, Store
from ranker.store.store import RULES
from ranker.trees.penn import parse_tree

BRACKETS = (Bracket("NP-SBJ", 0, 1), Bracket("VP", 1, 5), Bracket("NP", 2, 5))
TREES = {
    "full": "(S (NP (NN w0)) (VP (NN w1) (NP (NN w2) (NN w3) (NN w4))))",
    "crosses": "(S (NP (NN w0)) (VP (Z (NN w1) (NN w2)) (NN w3) (NN w4)))",
    "lacks": "(S (NP (NN w0)) (VP (NN w1) (NN w2) (NN w3) (NN w4)))",
    "flat": "(S (NN w0) (NN w1) (NN w2) (NN w3) (NN w4))",
}
#: Per corpus, each sentence's candidates: one with no strict candidate, one with, in each corpus.
FORESTS = {"treebank": (("crosses", "lacks", "flat"), ("full", "crosses", "flat")),
           "gum": (("lacks", "flat"), ("flat", "full", "lacks", "crosses"))}


def _sentence(corpus: str, i: int) -> Sentence:
    toks = tuple(f"w{k}" for k in range(5))
    return Sentence(f"{corpus}/doc_0001/{i}", corpus, "doc_0001", i, toks, tuple("NN" for _ in toks))


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as st:
        for corpus, forests in FORESTS.items():
            sents = [_sentence(corpus, i) for i in range(len(forests))]
            st.add_sentences(sents)
            for s, forest in zip(sents, forests):
                st.add_candidates([Candidate(s.id, "lg", k, parse_tree(TREES[t]), "full", {})
                                   for k, t in enumerate(forest)])
            st.add_annotations([Annotation(s.id, "riezler", BRACKETS) for s in sents])
        check_store(st, "riezler", LabelEquivalences.load(DEFAULT_EQUIVALENCES))
        yield st


@pytest.mark.parametrize("rule", RULES)
def test_one_call_over_all_corpora_weighs_as_the_stage_does_corpus_by_corpus(store, rule):
    sentences = [s for corpus in FORESTS for s in store.sentences(corpus)]
    sizes = [len(store.candidate_texts(s.id)) for s in sentences]
    rows = SimpleNamespace(sentence_ids=tuple(s.id for s in sentences),
                           offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))
    # the retrain's call (ranker/pipeline/retrain.py)
    retrain = consistency_weights(store, rows, "riezler", None, None, "lg", rule)
    # ranker run's: the stage, each corpus's block on its own selection
    ctx = stages.StageContext(store, "lg", 1)
    row_corpus = np.repeat([s.corpus for s in sentences], sizes)
    run = np.zeros_like(retrain)
    for corpus in FORESTS:
        sel = SplitSelection(f"{corpus} train", corpus, None, None,
                             tuple(s for s in sentences if s.corpus == corpus))
        got = stages.consistency(ctx, rows, "riezler", sel, rule)
        assert not np.any(got[row_corpus != corpus])   # another corpus's rows weigh nothing here
        run += got
    assert retrain.sum() > 0
    assert np.array_equal(retrain, run), rule
