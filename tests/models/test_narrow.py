"""The narrow training matrix: 16-bit ids below column 65,536, the same objective and fit as compact."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from ranker.models import LogLinearRanker
from ranker.matrices.compact import CompactMatrix
from ranker.models.narrow import NARROW_COLUMNS, NarrowMatrix, narrow_vstack, split_columns
from ranker.models.objective import ConditionalObjective


def _matrix(n=2000, d=NARROW_COLUMNS + 3000, seed=0):
    """Counts, ones and real values, some in columns past 65,536, a dense head of frequent columns."""
    rng = np.random.default_rng(seed)
    k = 60
    X = sp.csr_matrix((rng.choice([1.0, 1.0, 2.0, 0.5, np.pi], size=n * k),
                       (np.repeat(np.arange(n), k), rng.integers(0, d, size=n * k))), shape=(n, d))
    head = sp.csr_matrix((np.ones(n * 3), rng.integers(0, 50, n * 3), np.arange(0, n * 3 + 1, 3)),
                         shape=(n, d))
    X = (X + head).tocsr()
    X.sum_duplicates()
    sizes = rng.integers(2, 12, size=n)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    offsets = np.append(offsets[offsets < n - 1], n)
    y = np.zeros(n)
    y[offsets[:-1]] = 1.0
    y[offsets[:-1] + 1] = 0.5
    return CompactMatrix.from_csr(X), y, offsets


def test_split_keeps_every_entry_in_two_bytes_below_65536():
    C, _, _ = _matrix()
    N = split_columns(C, NARROW_COLUMNS)
    assert N.shape == C.shape and N.n_low == NARROW_COLUMNS and N.nnz == C.nnz
    assert N.high.nnz > 0 and all(p.indices.dtype == np.uint16 for p in N.low.parts)
    assert (N.tocsr() != C.tocsr()).nnz == 0
    # the low ids take half the bytes of compact's
    assert N.nbytes < C.nbytes - 2 * N.low.nnz + 8 * 3 * (C.shape[0] + 1) + 1
    # nothing shared with the compact matrix (a slab of a stored matrix can go once split)
    assert not any(np.shares_memory(a, b) for a in N.arrays() for b in C.arrays())
    with pytest.raises(ValueError):
        split_columns(C, NARROW_COLUMNS + 1)
    with pytest.raises(ValueError):
        NarrowMatrix(C, C)          # int32 ids in the low range


@pytest.mark.slow
def test_rows_stacks_and_pickles_are_compact_ones():
    C, _, _ = _matrix(n=500)
    N = split_columns(C, NARROW_COLUMNS)
    rows = np.array([3, 1, 400, 7])
    assert (N.take_rows(rows).tocsr() != C.take_rows(rows).tocsr()).nnz == 0
    assert (N.row_range(10, 90).tocsr() != C.row_range(10, 90).tocsr()).nnz == 0
    stacked = narrow_vstack([split_columns(C.row_range(0, 200), NARROW_COLUMNS),
                             split_columns(C.row_range(200, 500), NARROW_COLUMNS)])
    assert all(np.array_equal(a, b) for a, b in zip(stacked.arrays(), N.arrays()))
    back = pickle.loads(pickle.dumps(N.row_range(5, 50)))
    assert all(np.array_equal(a, b) for a, b in zip(back.arrays(), N.row_range(5, 50).arrays()))
    assert np.array_equal(N.column_counts(), C.column_counts())
    lam = np.random.default_rng(2).normal(size=C.shape[1])
    np.testing.assert_allclose(N.dot(lam), C.dot(lam), rtol=1e-12, atol=1e-12)
    r = np.random.default_rng(3).normal(size=C.shape[0])
    np.testing.assert_allclose(N.rdot(r), C.rdot(r), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", ["numba", "scipy"])
def test_objective_on_the_narrow_matrix_is_compact_s(backend):
    C, y, offsets = _matrix()
    N = split_columns(C, NARROW_COLUMNS)
    lam = np.random.default_rng(1).normal(0, 0.2, size=C.shape[1])
    v1, g1 = ConditionalObjective(C, y, offsets, 2.0, backend=backend)(lam)
    v2, g2 = ConditionalObjective(N, y, offsets, 2.0, backend=backend)(lam)
    assert abs(v1 - v2) < 1e-10 * abs(v1)
    np.testing.assert_allclose(g2, g1, rtol=1e-9, atol=1e-11)
    # threads change nothing, to the bit
    v3, g3 = ConditionalObjective(N, y, offsets, 2.0, backend=backend, n_jobs=2)(lam)
    assert v3 == v2 and np.array_equal(g3, g2)


@pytest.mark.slow
def test_fit_on_the_narrow_matrix_is_the_compact_fit():
    C, y, offsets = _matrix(n=1500, seed=4)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    a = LogLinearRanker(sigma2=1.0, max_iter=500, tol=1e-8).fit(C, y, groups)
    b = LogLinearRanker(sigma2=1.0, max_iter=500, tol=1e-8).fit(split_columns(C, NARROW_COLUMNS), y, groups)
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-5)
    N = split_columns(C, NARROW_COLUMNS)
    np.testing.assert_allclose(b.decision_function(N), a.decision_function(C), atol=1e-4)
