"""Difference rows: each candidate as its difference from a near one, and the objective over them."""
import numpy as np
import pytest
import scipy.sparse as sp

from ranker.errors import RankerError
from ranker.models import LogLinearRanker
from ranker.matrices.compact import as_compact
from ranker.models.delta import AVAILABLE, DeltaMatrix, delta_rows
from ranker.models.expected_f import ExpectedFObjective
from ranker.models.narrow import split_columns
from ranker.models.objective import ConditionalObjective

from test_objective import loop_objective

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="difference rows need numba (the fast extra)")


def forest_like(seed, n_sent=60, d=80, flip=0.04):
    """Sentences whose candidates share most properties (as a parser's do), with counts and reals."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, size=n_sent)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    dense = np.repeat(rng.random((n_sent, d)) < 0.3, sizes, axis=0).astype(float)
    flips = rng.random((n, d)) < flip
    dense[flips] = 1 - dense[flips]
    dense[:, :4] *= rng.integers(1, 4, size=(n, 4))          # counts: float32 values
    dense[:, 4] *= rng.normal(size=n)                          # a parser's cost: float64 values
    y = (rng.random(n) < 0.3).astype(float)
    y[offsets[:-1]] = 1.0
    return sp.csr_matrix(dense), y, offsets


@pytest.mark.parametrize("narrow", [False, True])
def test_every_row_is_its_parent_plus_its_difference(narrow):
    X, _, offsets = forest_like(0)
    M = as_compact(X)
    if narrow:
        M = split_columns(M, 50)
    D = delta_rows(M, offsets, slab_entries=200)     # several slabs
    diff = D.rows.tocsr().toarray()
    rows = X.toarray()[D.perm]
    for j in range(len(offsets) - 1):
        a, b = offsets[j], offsets[j + 1]
        assert sorted(D.perm[a:b]) == list(range(a, b))           # a permutation within the sentence
        for i in range(a, b):
            parent = rows[i - D.back[i]] if D.back[i] else 0.0
            # exact for binary properties and counts; a real value's difference rounds
            np.testing.assert_allclose(rows[i], parent + diff[i], rtol=0, atol=1e-12)
            assert np.array_equal(rows[i, 5:], (parent + diff[i])[5:])
    # every value stored, +1 and -1 alike, in one float32 loop per row (the ids-only parts empty)
    assert all(p.nnz == 0 for p in D.parts[0::3])
    assert {-1.0, 1.0} <= set(np.concatenate([p.data for p in D.parts[1::3]]).tolist())
    assert D.nnz < 0.5 * X.nnz


def test_never_more_entries_than_the_rows_themselves():
    # unrelated random rows: each keeps its own entries rather than a longer difference
    rng = np.random.default_rng(3)
    offsets = np.array([0, 40, 41, 90])
    X = sp.random(90, 60, density=0.2, random_state=3, format="csr")
    X.data[:] = 1.0
    D = delta_rows(as_compact(X), offsets)
    assert D.nnz <= X.nnz
    same = sp.csr_matrix(np.repeat(rng.random((1, 60)) < 0.5, 90, axis=0).astype(float))
    D = delta_rows(as_compact(same), offsets)
    # identical candidates: one row each sentence, the rest nothing
    assert D.nnz == 3 * same[0].nnz


@pytest.mark.slow
@pytest.mark.parametrize("narrow", [False, True])
@pytest.mark.parametrize("cls", [ConditionalObjective, ExpectedFObjective])
def test_objective_over_differences_matches_the_plain_rows(cls, narrow):
    X, y, offsets = forest_like(1)
    weights = y if cls is ConditionalObjective else np.random.default_rng(2).random(len(y))
    lam = np.random.default_rng(4).normal(0, 0.4, X.shape[1])

    def make(layout, n_jobs=1):
        M = as_compact(X)
        return cls(split_columns(M, 50) if narrow else M, weights, offsets, 0.7, n_jobs=n_jobs, layout=layout)

    plain, delta = make("plain"), make("delta")
    assert isinstance(delta.X, DeltaMatrix) and delta.X.nnz < 0.5 * X.nnz
    v0, g0 = plain(lam)
    v1, g1 = delta(lam)
    assert v1 == pytest.approx(v0, rel=1e-12)
    np.testing.assert_allclose(g1, g0, rtol=1e-9, atol=1e-12)
    # threads add the same fixed blocks in the same order: the same bits
    v2, g2 = make("delta", n_jobs=2)(lam)
    assert v2 == v1 and np.array_equal(g2, g1)
    if cls is ConditionalObjective:
        lv, lg = loop_objective(X, y, offsets, np.full(X.shape[1], 0.7), lam)
        assert v1 == pytest.approx(lv, rel=1e-10)
        np.testing.assert_allclose(g1, lg, rtol=1e-8, atol=1e-10)


@pytest.mark.slow
def test_fit_on_differences_gives_the_plain_model():
    X, y, offsets = forest_like(5, n_sent=120)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    kw = dict(sigma2=1.0, tol=1e-9, max_iter=5000)
    plain = LogLinearRanker(layout="plain", **kw).fit(X, y, groups)
    delta = LogLinearRanker(layout="delta", **kw).fit(X, y, groups)
    np.testing.assert_allclose(delta.coef_, plain.coef_, atol=1e-6)
    # a prebuilt DeltaMatrix is taken as it is, sentences the filters drop cut out whole
    prebuilt = LogLinearRanker(layout="delta", **kw).fit(delta_rows(as_compact(X), offsets), y, groups)
    np.testing.assert_allclose(prebuilt.coef_, plain.coef_, atol=1e-6)


def test_cutting_differences_inside_a_sentence_is_an_error():
    X, y, offsets = forest_like(6)
    D = delta_rows(as_compact(X), offsets)
    keep = np.ones(X.shape[0], dtype=bool)
    whole = D.take_rows(np.r_[np.zeros(offsets[1], bool), keep[offsets[1]:]])
    assert whole.shape[0] == X.shape[0] - offsets[1]
    big = int(np.argmax(np.diff(offsets)))
    keep[offsets[big]] = False
    with pytest.raises(ValueError, match="whole sentences"):
        D.take_rows(keep)


def test_difference_rows_with_ids_only_entries_are_refused():
    # the kernel walks difference rows' value parts alone: a +1 kept as an id would be lost
    X, _, offsets = forest_like(9, n_sent=4)
    D = delta_rows(as_compact(X), offsets)
    with pytest.raises(ValueError, match="ones parts must be empty"):
        DeltaMatrix(as_compact(D.rows.tocsr()), D.back, D.perm)


def test_unknown_layout_is_a_one_line_error():
    X, y, offsets = forest_like(7, n_sent=5)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    with pytest.raises(RankerError, match="layout must be one of"):
        LogLinearRanker(layout="tree").fit(X, y, groups)


def test_every_fit_of_one_training_set_shares_one_build_and_a_change_in_place_builds_anew():
    from ranker.models.delta import delta_rows_once
    from ranker.pipeline.training import fit_rows
    from ranker.pipeline.training_rows import TrainingData

    X, y, offsets = forest_like(8, n_sent=80)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    N = split_columns(as_compact(X), 60)
    data = TrainingData(N, y, groups, np.ones(len(y), bool), tuple(map(str, range(X.shape[1]))), None)
    template = LogLinearRanker(sigma2=1.0, tol=1e-9, max_iter=5000)
    rows = int(offsets[30])
    part = fit_rows(template, data, rows)          # a learning-curve prefix: a cut of the one build
    assert isinstance(part, DeltaMatrix) and part.shape[0] == rows
    assert delta_rows_once(N, offsets) is delta_rows_once(N, offsets)
    assert fit_rows(template, data, rows).rows.low.parts[1].indices.base is part.rows.low.parts[1].indices.base
    got = LogLinearRanker(sigma2=1.0, tol=1e-9, max_iter=5000).fit(part, y[:rows], groups[:rows])
    want = LogLinearRanker(sigma2=1.0, tol=1e-9, max_iter=5000, layout="plain").fit(
        N.row_range(0, rows), y[:rows], groups[:rows])
    np.testing.assert_allclose(got.coef_, want.coef_, atol=1e-6)
    before = delta_rows_once(N, offsets)
    N.low.parts[0].indices[0] ^= 1                 # the rows changed in place: never the old build
    assert delta_rows_once(N, offsets) is not before
