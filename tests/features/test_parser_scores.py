"""Feature families on a statistical parser's n-best lists: real BLLIP forests of one WSJ document."""
import gzip

import numpy as np
import pytest

from ranker.features import load_feature_set
from ranker.features.parser_scores import logprob_bin, rank_bin
from ranker.features.registry import make_family
from ranker.features.vectorizer import extract
from ranker.sources.nbest import import_file
from ranker.sources.treebank import store_nltk_files
from ranker.store import Store

DOC = "wsj_0175"
TREE_FAMILIES = ("local_trees/1", "embedding/1", "right_branching/1", "weight/1", "coordination/1",
                 "sibling_ngrams/1", "edges/1", "head_deps/1", "heidorn/1", "source_rank/1")


@pytest.fixture(scope="module")
def forests(tmp_path_factory, bllip_lists):
    tmp = tmp_path_factory.mktemp("lp")
    text = gzip.open(bllip_lists / "nbest-test.txt.gz", "rt", encoding="utf-8").read()
    kept = [b for b in text.split("\n\n") if b.strip() and b.split()[1].startswith(DOC + ".")]
    (tmp / "doc.nbest").write_text("\n\n".join(kept) + "\n")
    with Store.open(tmp / "s.sqlite") as st:
        store_nltk_files(st, "treebank", f"{DOC}.mrg")
        assert import_file(st, tmp / "doc.nbest", "bllip").errors == ()
        return list(st.forests("treebank"))


def _matrix(forests, family, **options):
    return extract(forests, [make_family(family, options)])


@pytest.mark.slow
@pytest.mark.parametrize("family", TREE_FAMILIES)
def test_every_tree_family_fires_on_bllip_trees(forests, family):
    m = _matrix(forests, family)
    assert m.X.nnz > 0 and m.X.shape[0] == sum(len(f.candidates) for f in forests)


def test_tag_families_see_the_parsers_pos_tags(forests):
    names = set(_matrix(forests, "edges/1", words=False).names)
    tags = {n.rsplit("=", 1)[1] for n in names if "=" in n}
    parser_tags = {t for f in forests for c in f.candidates for t in c.tree.tags()}
    assert tags <= parser_tags and {"DT", "NN", "VBD"} <= tags


def test_logprob_is_relative_to_the_sentences_best(forests):
    m = _matrix(forests, "parser_logprob/1")
    col = {n: i for i, n in enumerate(m.names)}
    X = m.X.toarray()
    for j, f in enumerate(forests):
        lps = np.array([c.scores["logprob"] for c in f.candidates])
        rows = X[m.offsets[j]:m.offsets[j + 1]]
        assert rows[:, col["lp:rel"]] == pytest.approx(lps - lps.max())
        n = len(f.sentence.tokens)
        assert rows[:, col["lp:rel/word"]] == pytest.approx((lps - lps.max()) / n)
        best = int(np.argmax(lps))
        assert rows[best, col["lp:bin:0"]] == 1.0
        for k, lp in enumerate(lps):   # exactly one bin per candidate, the one its distance names
            assert rows[k, col[f"lp:bin:{logprob_bin(lps.max() - lp)}"]] == 1.0
        assert rows[:, [i for n_, i in col.items() if n_.startswith("lp:bin:")]].sum() == len(lps)
    # the same matrix from two worker processes: the forest is seen in each worker
    two = extract(forests, [make_family("parser_logprob/1")], workers=2)
    assert two.names == m.names and (two.X.tocsr() != m.X.tocsr()).nnz == 0


def test_rank_bins(forests):
    assert [rank_bin(r) for r in (0, 1, 2, 3, 4, 5, 9, 10, 19, 20, 49, 50, 99)] == \
        ["0", "1", "2", "3-4", "3-4", "5-9", "5-9", "10-19", "10-19", "20-49", "20-49", "50+", "50+"]
    m = _matrix(forests, "parser_rank/1")
    firsts = m.X.toarray()[m.offsets[:-1], m.names.index("nbrank:0")]
    assert firsts.tolist() == [1.0] * len(forests)
    assert m.X.tocsr().sum() == m.X.shape[0]


def test_the_bllip_feature_set_builds_and_extracts(forests):
    fs = load_feature_set("bllip")
    m = extract(forests[:3], fs.build())
    assert any(n.startswith("lp:") for n in m.names) and any(n.startswith("nbrank:") for n in m.names)


@pytest.mark.slow
def test_compact_float32_training_gives_the_float64_model_on_real_forests(forests, monkeypatch):
    """Real BLLIP features (log-probabilities are real values, the rest ones and counts).

    The compact matrix keeps ones as ids and counts as float32, both exact, and real values as
    float64: the model equals the one scipy's float64 CSR products fit (the kernels without numba). ``dtype="float32"`` also rounds the real values;
    its model may differ only within the rounding, and must choose the same parses.
    """
    from ranker.matrices import kernels
    from ranker.matrices.compact import CompactMatrix
    from ranker.models import LogLinearRanker

    m = extract(forests, load_feature_set("bllip").build())
    C = m.X
    assert isinstance(C, CompactMatrix) and C.parts[0].nnz > C.parts[1].nnz > 0 and C.parts[2].nnz > 0
    X64 = C.tocsr()
    assert C.nbytes < 0.6 * (X64.data.nbytes + X64.indices.nbytes + X64.indptr.nbytes)
    groups = m.groups()
    y = np.zeros(C.shape[0])
    y[m.offsets[:-1] + 1] = 1.0        # a partial signal: each sentence's second parse
    fit = {}
    for name, backend, dtype in (("csr64", "scipy", "float64"), ("compact", kernels.BACKEND, "float64"),
                                 ("compact32", kernels.BACKEND, "float32")):
        monkeypatch.setattr(kernels, "BACKEND", backend)
        fit[name] = LogLinearRanker(sigma2=1.0, max_iter=400, tol=1e-8, dtype=dtype).fit(C, y, groups)
    assert kernels.BACKEND == "numba", "pip install -e '.[test]' installs the fast extra (numba)"
    np.testing.assert_allclose(fit["compact"].coef_, fit["csr64"].coef_, rtol=0, atol=1e-6)
    np.testing.assert_allclose(fit["compact32"].coef_, fit["csr64"].coef_, rtol=0, atol=1e-4)
    picks = {k: f.predict(C, groups) for k, f in fit.items()}
    assert np.array_equal(picks["compact"], picks["csr64"])
    assert np.array_equal(picks["compact32"], picks["csr64"])
