"""A model's copies per corpus read from its feature names (issue 43 item 3), without a parser.

:func:`ranker.pipeline.domains.model_rows` is how every front builds a model's rows of a corpus's
sentences, :func:`~ranker.pipeline.domains.row_copies` how a retrain learns the copies; both read
which corpora a model has copies of, and of which columns, from its names
(:func:`~ranker.pipeline.domains.model_copies`), laid out as ``ranker run`` writes them.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from ranker.errors import RankerError
from ranker.features import CandidateMatrix
from ranker.models import LogLinearRanker
from ranker.pipeline.domains import in_space, model_copies, model_rows, row_copies
from ranker.pipeline.training_rows import with_copies

SHARED = ("a", "b", "c")
# as with_copies writes them: the shared names, then gum's copies, then treebank's, each ascending
PER_CORPUS = (*SHARED, "[gum] a", "[gum] c", "[treebank] b")


def matrix(rows, names=SHARED, sizes=(2, 1), ids=("s/d/0", "s/d/1")):
    X = sp.csr_matrix(np.array(rows, dtype=float))
    return CandidateMatrix(X, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), tuple(names), tuple(ids))


def test_the_copies_are_read_from_the_names_as_the_training_set_writes_them():
    assert model_copies(SHARED) == (3, {})
    d, cols = model_copies(PER_CORPUS)
    assert d == 3 and {c: v.tolist() for c, v in cols.items()} == {"gum": [0, 2], "treebank": [1]}
    from ranker.pipeline.training_rows import TrainingData

    fields = {f: None for f in TrainingData._fields}
    data = TrainingData(**{**fields, "names": SHARED, "y": np.ones(3),
                           "survivors": type("S", (), {"row_mask": np.ones(3, bool)})()})
    made = with_copies(data, [("a", "c"), ("b",)], ["gum", "treebank"], [2, 1])
    assert made.names == PER_CORPUS
    got = row_copies(PER_CORPUS, ["gum", "gum", "treebank"])[1]
    assert got.corpus.tolist() == made.copies.corpus.tolist()
    assert [c.tolist() for c in got.columns] == [c.tolist() for c in made.copies.columns]


@pytest.mark.parametrize("names", [
    (*SHARED, "[gum] c", "[gum] a"),                       # a corpus's copies out of the shared order
    (*SHARED, "[gum] a", "[treebank] b", "[gum] c"),      # one corpus's copies in two runs
    (*SHARED, "[gum] a", "d"),                            # a shared name after the copies
    (*SHARED, "[gum] a", "[gum] z"),                      # a copy of no shared name
])
def test_names_not_laid_out_as_a_model_with_copies_holds_them_are_refused(names):
    with pytest.raises(RankerError, match="is not a copy of one of its shared features"):
        model_copies(names)


def test_a_corpus_s_rows_get_its_copies_and_a_corpus_without_copies_the_shared_columns_alone():
    m = matrix([[1, 0, 2], [0, 3, 0], [4, 5, 6]])
    lam = np.arange(1, len(PER_CORPUS) + 1, dtype=float)
    model = LogLinearRanker()
    model.coef_, model.n_features_in_ = lam, len(lam)
    gum = model.decision_function(model_rows(m, "gum", PER_CORPUS))
    assert np.array_equal(gum, model.decision_function(in_space(m, "gum", "per-corpus").restrict(PER_CORPUS)))
    assert gum.tolist() == [1 * (1 + 4) + 2 * (3 + 5), 3 * 2, 4 * (1 + 4) + 5 * 2 + 6 * (3 + 5)]
    for corpus in ("other", None):   # no copy of it, or text of no corpus: the shared weights
        assert np.array_equal(model.decision_function(model_rows(m, corpus, PER_CORPUS)),
                              model.decision_function(m.restrict(PER_CORPUS)))
    # a shared model's rows are its columns
    model.coef_, model.n_features_in_ = lam[:3], 3
    assert np.array_equal(model.decision_function(model_rows(m, "gum", SHARED)),
                          model.decision_function(m.restrict(SHARED)))
