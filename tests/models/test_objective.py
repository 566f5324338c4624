"""The vectorised objective against a plain per-sentence loop, and its gradient against differences."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp

from ranker.models.objective import ConditionalObjective, drop_sentence_constants


def random_problem(seed, n_groups=40, n_features=12, fractional=False, dtype=np.float64):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_groups)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = offsets[-1]
    X = sp.random(n, n_features, density=0.4, random_state=seed, format="csr", dtype=dtype)
    X.data = np.round(X.data * 4).astype(dtype)
    w = (rng.random(n) < 0.4).astype(float)
    if fractional:
        w *= rng.random(n)
    # every sentence needs some weight
    w[offsets[:-1]] = np.maximum(w[offsets[:-1]], 0.5 if fractional else 1.0)
    sigma2 = rng.uniform(0.5, 3.0, size=n_features)
    return X, w, offsets, sigma2


def loop_objective(X, w, offsets, sigma2, lam):
    """Crouch et al.'s P(λ) and gradient, written sentence by sentence straight from the paper."""
    Xd = X.toarray().astype(np.float64)
    value, grad = 0.0, np.zeros(Xd.shape[1])
    for j in range(len(offsets) - 1):
        F = Xd[offsets[j]:offsets[j + 1]]
        ww = w[offsets[j]:offsets[j + 1]]
        s = F @ lam
        pos = ww > 0
        value += -logsumexp(s[pos], b=ww[pos]) + logsumexp(s)
        p = np.exp(s - logsumexp(s))
        q = np.zeros_like(s)
        q[pos] = ww[pos] * np.exp(s[pos] - logsumexp(s[pos], b=ww[pos]))
        grad += p @ F - q @ F
    value += np.sum(lam ** 2 / (2 * sigma2))
    grad += lam / sigma2
    return value, grad


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("fractional", [False, True])
@pytest.mark.parametrize("n_jobs", [1, 3])
def test_vectorised_objective_equals_per_sentence_loop(seed, fractional, n_jobs):
    X, w, offsets, sigma2 = random_problem(seed, fractional=fractional)
    lam = np.random.default_rng(seed + 100).normal(0, 1.0, size=X.shape[1])
    v, g = ConditionalObjective(X, w, offsets, sigma2, n_jobs=n_jobs)(lam)
    v_ref, g_ref = loop_objective(X, w, offsets, sigma2, lam)
    assert v == pytest.approx(v_ref, rel=1e-12, abs=1e-10)
    np.testing.assert_allclose(g, g_ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_gradient_matches_central_differences(seed):
    X, w, offsets, sigma2 = random_problem(seed, fractional=True)
    obj = ConditionalObjective(X, w, offsets, sigma2)
    lam = np.random.default_rng(seed).normal(0, 0.5, size=X.shape[1])
    _, g = obj(lam)
    h = 1e-6
    fd = np.array([(obj(lam + h * e)[0] - obj(lam - h * e)[0]) / (2 * h) for e in np.eye(len(lam))])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)


def test_consistent_parses_far_below_the_best_do_not_underflow():
    # Sentence 0: the consistent parse scores 2000 below the inconsistent one; e^-2000 underflows
    # under the shared shift, so the objective must take the separate-shift path and stay finite.
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]))
    w = np.array([1.0, 0.0, 0.0, 1.0])
    offsets = np.array([0, 2, 4])
    lam = np.array([-1000.0, 1000.0])
    v, g = ConditionalObjective(X, w, offsets, np.inf)(lam)
    v_ref, g_ref = loop_objective(X, w, offsets, np.full(2, np.inf), lam)
    assert np.isfinite(v) and v == pytest.approx(v_ref, rel=1e-12)
    np.testing.assert_allclose(g, g_ref, atol=1e-12)
    assert v == pytest.approx(2000.0, rel=1e-9)


def test_float32_storage_agrees_with_float64_to_single_precision():
    X, w, offsets, sigma2 = random_problem(7)
    lam = np.random.default_rng(1).normal(0, 0.5, size=X.shape[1])
    v64, g64 = ConditionalObjective(X, w, offsets, sigma2)(lam)
    v32, g32 = ConditionalObjective(X.astype(np.float32), w, offsets, sigma2)(lam)
    assert v32 == pytest.approx(v64, rel=1e-5)
    np.testing.assert_allclose(g32, g64, rtol=1e-4, atol=1e-4)


def test_sentence_without_consistent_parse_is_rejected():
    X = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="positive consistency weight"):
        ConditionalObjective(X, np.array([1.0, 0.0, 0.0]), np.array([0, 1, 3]), 1.0)


def test_all_consistent_sentence_contributes_nothing_but_the_prior():
    X = sp.csr_matrix(np.array([[1.0, 2.0], [3.0, -1.0]]))
    obj = ConditionalObjective(X, np.ones(2), np.array([0, 2]), 2.0)
    lam = np.array([0.3, -0.7])
    v, g = obj(lam)
    assert v == pytest.approx(np.sum(lam ** 2) / 4, abs=1e-15)
    np.testing.assert_allclose(g, lam / 2, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_properties_constant_over_a_sentence_are_dropped_without_changing_the_objective(seed):
    X, w, offsets, sigma2 = random_problem(seed)
    X = X.tolil()
    rng = np.random.default_rng(seed)
    planted = []
    for j in range(len(offsets) - 1):
        col, val = int(rng.integers(X.shape[1])), float(rng.integers(1, 4))
        for i in range(offsets[j], offsets[j + 1]):
            X[i, col] = val                       # one value on every candidate of sentence j
        planted.append((offsets[j], col))
    X = X.tocsr()
    if X.shape[0] > 1:  # a property that differs inside a sentence is kept
        X[offsets[1] - 1, 0] = 7.0 if X[offsets[1] - 1, 0] != 7.0 else 8.0
    X.eliminate_zeros()
    reduced = drop_sentence_constants(X, offsets).tocsr()
    assert reduced.nnz < X.nnz
    for row, col in planted:
        assert reduced[row, col] == 0
    changed = (reduced != X).tocoo()
    assert np.all(X.toarray()[changed.row, changed.col] != 0)   # only existing entries go
    lam = rng.normal(0, 1.0, size=X.shape[1])
    v, g = ConditionalObjective(X, w, offsets, sigma2)(lam)
    v_ref, g_ref = loop_objective(X, w, offsets, sigma2, lam)
    assert v == pytest.approx(v_ref, rel=1e-12, abs=1e-10)
    np.testing.assert_allclose(g, g_ref, rtol=1e-10, atol=1e-10)


def test_a_property_with_two_values_in_a_sentence_is_kept():
    X = sp.csr_matrix(np.array([[1.0, 2.0], [1.0, 3.0], [5.0, 0.0]]))
    reduced = drop_sentence_constants(X, np.array([0, 2, 3]))
    np.testing.assert_array_equal(reduced.toarray(), [[0.0, 2.0], [0.0, 3.0], [0.0, 0.0]])


@pytest.mark.parametrize("n_groups", [1, 5, 200])
def test_threads_do_not_change_a_single_bit(n_groups):
    """Blocks are fixed and added in order, so any number of threads gives the same sums."""
    X, w, offsets, sigma2 = random_problem(11, n_groups=n_groups, fractional=True)
    lam = np.random.default_rng(3).normal(0, 1.0, size=X.shape[1])
    one = ConditionalObjective(X, w, offsets, sigma2, n_jobs=1)
    results = [ConditionalObjective(X, w, offsets, sigma2, n_jobs=k)(lam) for k in (2, 4, 16)]
    v1, g1 = one(lam)
    assert 1 <= len(one.blocks) <= min(n_groups, 8)
    assert n_groups < 100 or len(one.blocks) == 8
    for v, g in results:
        assert v == v1
        assert np.array_equal(g, g1)


def test_blocks_share_the_matrix_and_cover_every_row_once():
    X, w, offsets, sigma2 = random_problem(12, n_groups=100)
    obj = ConditionalObjective(X, w, offsets, sigma2)
    assert sum(b.X.shape[0] for b in obj.blocks) == X.shape[0]
    assert sum(b.X.nnz for b in obj.blocks) == obj.X.nnz
    for b in obj.blocks:
        for part, whole in zip(b.X.parts, obj.X.parts):
            assert part.nnz == 0 or np.shares_memory(part.indices, whole.indices)
        assert b.offsets[0] == 0 and b.offsets[-1] == b.X.shape[0]


@pytest.mark.parametrize("seed", range(3))
def test_a_prior_centred_elsewhere_shifts_only_the_prior_term(seed):
    X, w, offsets, sigma2 = random_problem(seed)
    rng = np.random.default_rng(seed + 7)
    lam, mu = rng.normal(0, 1.0, size=X.shape[1]), rng.normal(0, 1.0, size=X.shape[1])
    v0, g0 = ConditionalObjective(X, w, offsets, sigma2)(lam)
    v, g = ConditionalObjective(X, w, offsets, sigma2, prior_mean=mu)(lam)
    assert v == pytest.approx(v0 - np.sum(lam ** 2 / (2 * sigma2)) + np.sum((lam - mu) ** 2 / (2 * sigma2)))
    np.testing.assert_allclose(g, g0 - lam / sigma2 + (lam - mu) / sigma2, rtol=1e-12, atol=1e-12)
    obj = ConditionalObjective(X, w, offsets, sigma2, prior_mean=mu)
    h = 1e-6
    fd = np.array([(obj(lam + h * e)[0] - obj(lam - h * e)[0]) / (2 * h) for e in np.eye(len(lam))])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="prior_mean"):
        ConditionalObjective(X, w, offsets, sigma2, prior_mean=mu[:-1])


def test_columns_are_renumbered_by_frequency_without_touching_the_callers_matrix():
    """The objective streams its own copy most frequent column first; the caller's matrix and λ's order stay."""
    from ranker.matrices.compact import CompactMatrix
    from ranker.models.objective import by_frequency

    X, w, offsets, sigma2 = random_problem(5, n_groups=60, n_features=30)
    C = CompactMatrix.from_csr(X)
    assert by_frequency(C, C) == (C, None)                    # the caller's arrays: left alone
    R, old_of_new = by_frequency(CompactMatrix.from_csr(X))
    assert old_of_new is not None
    counts = R.column_counts()
    assert np.all(np.diff(counts) <= 0)                       # most frequent first
    np.testing.assert_array_equal(counts, C.column_counts()[old_of_new])
    assert (R.tocsr()[:, np.argsort(old_of_new)] != C.tocsr()).nnz == 0
    assert by_frequency(R)[1] is None                         # already in that order
    before = [p.indices.copy() for p in C.parts]
    lam = np.random.default_rng(2).normal(0, 1.0, size=X.shape[1])
    for given in (X, C):       # scipy (converted: the objective's own copy) or compact (shared)
        obj = ConditionalObjective(given, w, offsets, sigma2, layout="plain")   # plain rows renumber
        assert obj.old_of_new is not None     # its own copy (converted, or constants dropped)
        v, g = obj(lam)
        v_ref, g_ref = loop_objective(X, w, offsets, sigma2, lam)
        assert v == pytest.approx(v_ref, rel=1e-12)
        np.testing.assert_allclose(g, g_ref, rtol=1e-10, atol=1e-10)
    assert all(np.array_equal(p.indices, b) for p, b in zip(C.parts, before))
