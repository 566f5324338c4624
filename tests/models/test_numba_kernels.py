"""numba's compiled loops, each called directly and held against scipy's products and numpy (issue 24).

The loops used to be built inside closures (``kernels._load_numba``, ``delta._load_numba``), so they
could only be tested through the objective. Each is now a module-level function of
:mod:`ranker.matrices.numba_kernels` or :mod:`ranker.models.numba_delta`.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.special import logsumexp

from ranker.matrices import kernels
from ranker.matrices.compact import as_compact
from ranker.models.narrow import split_columns

if kernels.BACKEND != "numba":
    pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra",
                pytrace=False)

from ranker.models import numba_delta as nd      # noqa: E402
from ranker.matrices import numba_kernels as nk  # noqa: E402


def random_csr(seed, n=60, d=40, density=0.25):
    """Rows with ones, small counts (float32-exact) and reals (float64): every part of a compact matrix."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="csr")
    kind = rng.integers(0, 3, size=X.nnz)
    X.data = np.where(kind == 0, 1.0, np.where(kind == 1, rng.integers(2, 5, X.nnz), rng.normal(size=X.nnz)))
    X.sort_indices()
    return X


def sentences(seed, n):
    rng = np.random.default_rng(seed)
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(rng.integers(1, 9)))
    sizes[-1] -= sum(sizes) - n
    sizes = [s for s in sizes if s > 0]
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


@pytest.mark.parametrize("seed", range(3))
def test_dot_and_rdot_are_scipys_products(seed):
    X = random_csr(seed)
    C = as_compact(X)
    assert all(p.nnz for p in C.parts)      # ones, float32 and float64 entries all present
    rng = np.random.default_rng(seed)
    lam, r = rng.normal(size=X.shape[1]), rng.normal(size=X.shape[0])
    np.testing.assert_allclose(nk.dot(C.parts, lam, np.empty(X.shape[0])), X @ lam, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(nk.rdot(C.parts, r, np.empty(X.shape[1])), X.T @ r, rtol=1e-13, atol=1e-13)
    # 16-bit column ids (a narrow matrix's low range) index the same
    low = C.with_ids(np.uint16)
    np.testing.assert_array_equal(nk.dot(low.parts, lam, np.empty(X.shape[0])),
                                  nk.dot(C.parts, lam, np.empty(X.shape[0])))


def test_score_score_values_and_add_row_are_one_rows_products():
    from ranker.matrices.compact import CompactMatrix

    X = random_csr(7)
    dense = X.toarray()
    args = nk.unsigned(as_compact(X).parts)
    values = CompactMatrix.from_csr(X, ones=False)   # every value stored: a difference row's layout
    assert values.parts[0].nnz == 0
    v_args = nk.unsigned(values.parts)[2:]
    lam = np.random.default_rng(7).normal(size=X.shape[1])
    for i in range(X.shape[0]):
        assert nk.score(*args, lam, i) == pytest.approx(dense[i] @ lam, rel=1e-13, abs=1e-13)
        assert nk.score_values(*v_args, lam, i) == pytest.approx(dense[i] @ lam, rel=1e-13, abs=1e-13)
        out = np.zeros(X.shape[1])
        nk.add_row(*args, 0.5, i, out)
        np.testing.assert_array_equal(out, 0.5 * dense[i])


def numpy_sentence(s, w, expected_f):
    """A sentence's loss and r from numpy's log-sum-exp: the reference of ``sentence_r``."""
    p = np.exp(s - logsumexp(s))
    if expected_f:
        g_bar = p @ w
        return -g_bar, -p * (w - g_bar)
    pos = w > 0
    log_zc = logsumexp(s[pos], b=w[pos])
    q = np.zeros_like(s)
    q[pos] = w[pos] * np.exp(s[pos] - log_zc)
    return logsumexp(s) - log_zc, p - q


@pytest.mark.parametrize("expected_f", [False, True])
@pytest.mark.parametrize("case", ["ordinary", "fractional", "underflow"])
def test_sentence_r_is_numpys_log_sum_exp(expected_f, case):
    rng = np.random.default_rng(3)
    s = rng.normal(size=6) * 3
    w = np.array([0, 1, 0, 1, 0, 0], dtype=float)
    if case == "fractional":
        w = rng.random(6)
    if case == "underflow":          # the consistent parses 800 nats below the best: their own shift
        s[[1, 3]] -= 800
    r = np.empty(6)
    value = nk.sentence_r(s, r, w, 0, 6, s.max(), expected_f, kernels.TINY)
    want_value, want_r = numpy_sentence(s, w, expected_f)
    assert value == pytest.approx(want_value, rel=1e-12)
    np.testing.assert_allclose(r, want_r, rtol=1e-10, atol=1e-300)


def numpy_objective(dense, w, offsets, lam, expected_f):
    value, grad = 0.0, np.zeros(dense.shape[1])
    for a, b in zip(offsets[:-1], offsets[1:]):
        v, r = numpy_sentence(dense[a:b] @ lam, w[a:b], expected_f)
        value += v
        grad += dense[a:b].T @ r
    return value, grad


@pytest.mark.parametrize("expected_f", [False, True])
@pytest.mark.parametrize("layout", ["compact", "narrow", "delta"])
def test_the_fused_block_objective_is_the_numpy_objective(expected_f, layout):
    from ranker.models.delta import delta_rows

    X = random_csr(11, n=80, d=30)
    offsets = sentences(11, X.shape[0])
    rng = np.random.default_rng(11)
    w = rng.random(X.shape[0]) if expected_f else (rng.random(X.shape[0]) < 0.4).astype(float)
    for a, b in zip(offsets[:-1], offsets[1:]):
        w[a] = w[a] if expected_f else 1.0      # every sentence has a consistent candidate
    lam = rng.normal(size=X.shape[1])
    C = as_compact(X)
    back, weights, rows = np.zeros(0, np.int32), w, C
    if layout == "narrow":
        rows = split_columns(C, 16)             # columns 16.. in the high range
    if layout == "delta":
        D = delta_rows(C, offsets)
        back, weights, rows = D.back, w[D.perm], D.rows
    if hasattr(rows, "low"):
        low, high, n_low = rows.low.parts, rows.high.parts, rows.n_low
    else:
        low, high, n_low = rows.parts, kernels.empty_parts(np.zeros(X.shape[0] + 1, np.int64)), X.shape[1]
    grad = np.empty(X.shape[1])
    value = nk.objective(low, high, back, n_low, weights, offsets, lam, grad, expected_f, kernels.TINY)
    want_value, want_grad = numpy_objective(X.toarray(), w, offsets, lam, expected_f)
    assert value == pytest.approx(want_value, rel=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- difference rows
def test_diff_row_is_the_dense_difference():
    X = random_csr(5, n=10, d=25, density=0.4)
    dense = X.toarray()
    out_idx, out_val = np.empty(2 * X.shape[1], np.int64), np.empty(2 * X.shape[1])
    for i in range(10):
        for p in range(10):
            end = nd.diff_row(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, i, p,
                              out_idx, out_val, 0)
            got = np.zeros(X.shape[1])
            got[out_idx[:end]] = out_val[:end]
            np.testing.assert_array_equal(got, dense[i] - dense[p])
            assert np.all(out_val[:end] != 0) and np.all(np.diff(out_idx[:end]) > 0)


def test_scatter_part_and_sort_rows_give_scipys_sorted_rows():
    X = random_csr(6, n=30, d=20)
    C = as_compact(X)
    a, b, off = 4, 25, 100
    lens = sum(np.diff(p.indptr[a:b + 1]) for p in C.parts)
    out_ptr = np.concatenate(([0], np.cumsum(lens))).astype(np.int64)
    out_idx, out_val = np.empty(out_ptr[-1], np.int64), np.empty(out_ptr[-1])
    fill = np.zeros(b - a, np.int64)
    for p in C.parts:
        nd.scatter_part(p.indptr, p.indices, np.zeros(0) if p.data is None else p.data, p.data is not None,
                        off, a, b, out_ptr, fill, out_idx, out_val)
    nd.sort_rows(out_ptr, out_idx, out_val)
    want = X[a:b]
    np.testing.assert_array_equal(out_ptr, want.indptr)
    np.testing.assert_array_equal(out_idx, want.indices + off)
    np.testing.assert_array_equal(out_val, want.data)


def hamming(dense):
    """Entries of each row's difference from each other row, and from the empty row (node n)."""
    n = len(dense)
    d = np.zeros((n + 1, n + 1))
    for i in range(n):
        for j in range(n):
            d[i, j] = np.count_nonzero(dense[i] != dense[j])
        d[i, n] = d[n, i] = np.count_nonzero(dense[i])
    return d


@pytest.mark.parametrize("seed", range(4))
def test_tree_is_a_minimum_spanning_tree_under_the_hamming_distance(seed):
    rng = np.random.default_rng(seed)
    n, d = 12, 30
    base = (rng.random(d) < 0.5) * rng.integers(1, 3, d)
    dense = np.array([np.where(rng.random(d) < 0.15, (rng.random(d) < 0.5) * 2.0, base) for _ in range(n)])
    X = sp.csr_matrix(dense)
    X.sort_indices()
    where = np.full(d, -1, np.int64)
    A, m = np.zeros((n, n), np.int32), np.zeros(n, np.int64)
    order, parent = np.empty(n, np.int64), np.empty(n, np.int64)
    nd.tree(X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.float64), 0, n,
            where, A, m, order, parent)
    assert np.all(where == -1)                                  # the scratch is left clean
    dist = hamming(dense)
    seen = set()
    for i in order:                                             # a parent before its children
        assert parent[i] == -1 or parent[i] in seen
        seen.add(int(i))
    weight = sum(dist[i, parent[i]] if parent[i] >= 0 else dist[i, n] for i in range(n))
    # the empty row (node n) is the root every row may hang from: scipy's MST over the n + 1 nodes
    # (a zero distance is no edge to scipy, hence the + 1 on every edge, n edges in all)
    assert weight == minimum_spanning_tree(sp.csr_matrix(dist + 1 - np.eye(n + 1))).sum() - n
    for i in range(n):       # no row takes more entries than its own
        assert (dist[i, parent[i]] if parent[i] >= 0 else dist[i, n]) <= dist[i, n]


def test_slab_rows_summed_down_the_tree_are_the_rows():
    X = random_csr(9, n=50, d=20, density=0.3)
    dense = X.toarray()
    offsets = sentences(9, X.shape[0])
    order, back, ptr, idx, val = nd.slab(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                                         X.data.astype(np.float64), offsets, X.shape[1])
    rows = sp.csr_matrix((val, idx, ptr), shape=X.shape).toarray()
    rebuilt = np.zeros_like(rows)
    for r in range(len(rows)):
        rebuilt[r] = rows[r] + (rebuilt[r - back[r]] if back[r] > 0 else 0)
    np.testing.assert_allclose(rebuilt, dense[order], rtol=0, atol=1e-15)   # sums of real differences
    for a, b in zip(offsets[:-1], offsets[1:]):                 # each sentence's rows stay its own
        assert sorted(order[a:b]) == list(range(a, b))
        assert np.all(np.arange(a, b) - back[a:b] >= a)
