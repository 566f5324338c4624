"""The compact matrix equals scipy's CSR under every operation, with either kernel, and trains the same model."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.matrices import kernels
from ranker.matrices.compact import CompactMatrix, vstack
from ranker.models import LogLinearRanker
from ranker.models.objective import ConditionalObjective

BACKENDS = ["scipy"] + (["numba"] if kernels.BACKEND == "numba" else [])


def mixed_matrix(seed, n=60, d=25):
    """Ones, small counts, float32-exact halves and values only float64 holds, some rows empty."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.3, format="csr", random_state=seed)
    kind = rng.integers(0, 4, size=X.nnz)
    X.data = np.choose(kind, [np.ones(X.nnz), rng.integers(2, 5, X.nnz).astype(float),
                              np.full(X.nnz, -0.5), rng.normal(size=X.nnz)])
    X.data[X.indptr[5]:X.indptr[6]] = 0.0     # an empty row
    X.eliminate_zeros()
    return X


@pytest.mark.parametrize("slab", [1, 13, 1 << 24])
def test_the_parts_hold_each_value_once_and_lose_none(slab):
    X = mixed_matrix(0)
    C = CompactMatrix.from_csr(X, slab=slab)
    assert C.parts[0].data is None and C.parts[1].data.dtype == np.float32
    assert C.parts[2].data.dtype == np.float64
    assert all(p.nnz > 0 for p in C.parts) and C.nnz == X.nnz
    assert (C.tocsr() != X).nnz == 0
    assert np.all(C.parts[2].data.astype(np.float32).astype(np.float64) != C.parts[2].data)
    assert C.nbytes < X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def test_duplicate_entries_are_added_not_taken_for_a_sentence_constant():
    """Regression: a property given twice in one candidate and absent from the other is not constant."""
    X = sp.csr_matrix((np.ones(3), np.array([0, 0, 1]), np.array([0, 2, 3])), shape=(2, 2))
    C = CompactMatrix.from_csr(X)
    assert C.tocsr().toarray().tolist() == [[2.0, 0.0], [0.0, 1.0]] and X.nnz == 3
    obj = ConditionalObjective(X, np.array([1.0, 0.0]), np.array([0, 2]), 1.0)
    assert obj.nnz == 2
    v, g = obj(np.zeros(2))
    assert g.tolist() == pytest.approx([-1.0, 0.5])


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_products_equal_scipy(backend):
    X = mixed_matrix(1)
    C = CompactMatrix.from_csr(X)
    rng = np.random.default_rng(2)
    lam, r = rng.normal(size=X.shape[1]), rng.normal(size=X.shape[0])
    np.testing.assert_allclose(C.dot(lam, backend=backend), X @ lam, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(C.rdot(r, backend=backend), X.T @ r, rtol=1e-13, atol=1e-13)


def test_row_and_column_selections_equal_scipy_slicing():
    X = mixed_matrix(5)
    C = CompactMatrix.from_csr(X)
    for rows in (np.array([0, 3, 5, 7, 59]), np.array([9, 2, 2, 40]), np.arange(60) % 3 == 0,
                 np.zeros(0, dtype=np.int64)):
        idx = np.flatnonzero(rows) if rows.dtype == bool else rows
        assert (C.take_rows(rows).tocsr() != X[idx]).nnz == 0
    assert (C.row_range(10, 30).tocsr() != X[10:30]).nnz == 0
    cols = [4, -1, 0, 24]
    want = sp.hstack([X[:, 4], sp.csr_matrix((60, 1)), X[:, 0], X[:, 24]]).tocsr()
    assert (C.select_columns(cols).tocsr() != want).nnz == 0
    assert C.select_columns(cols).shape == (60, 4)
    keep = np.arange(60) % 4 != 1
    keep[5] = False                           # an empty row among the dropped
    assert (C.select_columns(cols, keep).tocsr() != want[np.flatnonzero(keep)]).nnz == 0
    assert (vstack([C.row_range(0, 7), C.row_range(7, 60)]).tocsr() != X).nnz == 0
    counts = C.column_counts(np.arange(60) < 30)
    assert counts.tolist() == np.diff(X[:30].tocsc().indptr).tolist()


def test_a_block_is_picklable_and_gives_the_same_result_after():
    X = mixed_matrix(6, n=80)
    offsets = np.arange(0, 81, 4)
    w = (np.arange(80) % 4 == 0).astype(float)
    obj = ConditionalObjective(X, w, offsets, 1.0)
    lam = np.random.default_rng(7).normal(size=X.shape[1])
    for blk in obj.blocks:
        v, g = blk(lam)
        v2, g2 = pickle.loads(pickle.dumps(blk))(lam)
        assert v == v2 and np.array_equal(g, g2)


def test_the_scipy_kernels_fit_the_model_numba_fits(monkeypatch):
    """The optional compiled kernels change nothing but speed: the scipy path gives the same model."""
    if len(BACKENDS) < 2:
        pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra")
    rng = np.random.default_rng(8)
    X = mixed_matrix(9, n=600, d=30)
    groups = np.repeat(np.arange(100), 6)
    y = (rng.random(600) < 0.3).astype(float)
    y[::6] = 1.0
    y[1::6] = 0.0
    fits = {}
    for b in BACKENDS:
        monkeypatch.setattr(kernels, "BACKEND", b)
        fits[b] = LogLinearRanker(sigma2=1.0, max_iter=300, tol=1e-8).fit(X, y, groups)
    # the same optimum to the solver's tolerance (1e-8 on the gradient), the same choices
    np.testing.assert_allclose(fits["scipy"].coef_, fits["numba"].coef_, rtol=0, atol=1e-6)
    assert np.array_equal(fits["scipy"].predict(X, groups), fits["numba"].predict(X, groups))
    assert fits["scipy"].converged_ and fits["numba"].converged_


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_the_fused_numba_pass_equals_the_scipy_products(seed, n_jobs):
    """One pass per sentence (scores, log-sum-exps, p - q) gives the two-product path's value and gradient."""
    if len(BACKENDS) < 2:
        pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra")
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=40)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(offsets[-1])
    X = mixed_matrix(seed, n=n, d=40)
    w = rng.random(n) * (rng.random(n) < 0.4)
    w[offsets[:-1]] = np.maximum(w[offsets[:-1]], 0.3)       # every sentence has some weight
    lam = rng.normal(0, 1.0, size=40)
    lam[:3] = [400.0, -400.0, 300.0]    # some sentences' consistent parses far below the best
    got = {b: ConditionalObjective(X, w, offsets, 0.5, n_jobs=n_jobs, backend=b)(lam) for b in BACKENDS}
    assert np.isfinite(got["numba"][0])
    assert got["numba"][0] == pytest.approx(got["scipy"][0], rel=1e-12)
    np.testing.assert_allclose(got["numba"][1], got["scipy"][1], rtol=1e-10, atol=1e-10)


def test_vstack_consume_empties_the_list_and_gives_the_same_matrix():
    # issue 13: stacking the training slabs releases each one as it is copied
    rng = np.random.default_rng(5)
    X = sp.random(90, 40, density=0.2, random_state=5, format="csr")
    X.data = np.where(rng.random(X.nnz) < 0.6, 1.0, np.round(X.data * 4) + 0.5)
    C = CompactMatrix.from_csr(X)
    cuts = [0, 10, 10, 47, 90]
    pieces = [C.row_range(a, b) for a, b in zip(cuts, cuts[1:])]
    kept = list(pieces)
    got = vstack(pieces, consume=True)
    assert pieces == []
    assert (got.tocsr() != X).nnz == 0 and got.shape == X.shape
    plain = vstack(kept)
    assert len(kept) == 4
    for p, q in zip(got.arrays(), plain.arrays()):
        assert p.dtype == q.dtype and np.array_equal(p, q)
    for p, q in zip(got.arrays(), C.arrays()):
        assert np.array_equal(p, q)
