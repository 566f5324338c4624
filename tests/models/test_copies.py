"""Corpus copies made by the objective (issue 43): the doubled matrix's function without its entries.

A row of corpus ``c`` is scored by the shared weights with ``w_c = λ_s + λ_c`` on the columns ``c``
has a copy of; the objective searches over ``θ = (λ_s, w_c)``. Held here against the matrix doubled
per corpus, on every layout and kernel the objective streams, with rows of no corpus (extra
corpora) and copies the cut-off left out; and the same bits for any number of threads.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from ranker.errors import RankerError
from ranker.matrices import kernels
from ranker.matrices.compact import CompactMatrix
from ranker.models import delta
from ranker.models.copies import CorpusCopies
from ranker.models.loglinear import LogLinearRanker
from ranker.models.narrow import split_columns
from ranker.models.objective import ConditionalObjective
from ranker.models.precondition import hessian_diagonal, jacobi_scales


def problem(seed: int, one_consistent: bool = False):
    """Sentences of corpora 0, 1 and none (-1), in runs; a copy of some columns per corpus.

    With ``one_consistent`` each sentence has one consistent candidate, and the objective is
    convex (several make it the log of a sum over them, which is not)."""
    rng = np.random.default_rng(seed)
    n_sent = 50
    sizes = rng.integers(2, 9, n_sent)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n, d = int(offsets[-1]), 25
    A = sp.random(n, d, density=0.25, random_state=seed, format="csr")
    A.data = np.where(rng.random(A.nnz) < 0.6, 1.0, np.round(A.data * 4, 2))    # ones, float32, float64
    corpus_of_sentence = np.repeat([0, 1, -1, 0], [15, 20, 5, 10])   # corpus 0 in two runs
    corpus = np.repeat(corpus_of_sentence, sizes).astype(np.int32)
    y = np.zeros(n)
    y[offsets[:-1]] = 1.0
    y[offsets[:-1] + 1] = 0 if one_consistent else rng.integers(0, 2, n_sent)   # some two consistent
    columns = (np.flatnonzero(rng.random(d) < 0.7), np.flatnonzero(rng.random(d) < 0.5))
    return A, y, offsets, CorpusCopies.of(corpus, columns)


def doubled(A, copies: CorpusCopies) -> sp.csr_matrix:
    """The matrix the copies stand for: each row's copied columns again, in its corpus's copy columns."""
    blocks = [A]
    for c, cols in enumerate(copies.columns):
        mask = sp.diags((copies.corpus == c).astype(float))
        blocks.append(mask @ A[:, cols])
    return sp.csr_matrix(sp.hstack(blocks))


@pytest.mark.parametrize("layout, backend, narrow", [
    ("plain", "numba", False), ("plain", "scipy", False), ("plain", "numba", True), ("delta", "numba", False)])
@pytest.mark.parametrize("seed", range(3))
def test_the_objective_with_copies_is_the_doubled_matrix_s(seed, layout, backend, narrow):
    if backend == "numba" and kernels.BACKEND != "numba" or layout == "delta" and not delta.AVAILABLE:
        pytest.skip("needs numba (the fast extra)")
    A, y, offsets, copies = problem(seed)
    d = A.shape[1]
    D = doubled(A, copies)
    lam = np.random.default_rng(seed + 10).normal(size=D.shape[1])
    X = CompactMatrix.from_csr(A)
    X = split_columns(X, 10) if narrow else X
    v1, g1 = ConditionalObjective(CompactMatrix.from_csr(D), y, offsets, 2.0, backend=backend, layout=layout)(lam)
    v2, g2 = ConditionalObjective(X, y, offsets, 2.0, backend=backend, layout=layout, copies=copies)(
        copies.to_theta(lam, d))
    assert v2 == pytest.approx(v1, rel=1e-13)
    assert np.max(np.abs(g2 - copies.pull_back(g1, d))) <= 1e-13 * np.max(np.abs(g1))


def test_threads_change_no_bit_and_the_parameters_map_back():
    A, y, offsets, copies = problem(0)
    d = A.shape[1]
    theta = np.random.default_rng(1).normal(size=d + copies.n_copies)
    one = ConditionalObjective(CompactMatrix.from_csr(A), y, offsets, 1.0, copies=copies)(theta)
    two = ConditionalObjective(CompactMatrix.from_csr(A), y, offsets, 1.0, copies=copies, n_jobs=3)(theta)
    assert one[0] == two[0] and np.array_equal(one[1], two[1])
    assert np.allclose(copies.to_lambda(copies.to_theta(theta, d), d), theta, rtol=0, atol=1e-15)
    folded = copies.folded(theta, d)
    lam = copies.to_lambda(theta, d)
    for c, (cols, a) in enumerate(zip(copies.columns, copies.starts(d))):
        assert np.array_equal(folded[c, cols], theta[a:a + len(cols)])   # w_c in place: no addition
        assert np.allclose(lam[:d][cols] + lam[a:a + len(cols)], folded[c, cols], rtol=0, atol=1e-15)
    assert np.array_equal(folded[-1], theta[:d])                          # no corpus: the shared weights


def test_a_fit_with_copies_is_a_model_of_the_doubled_columns():
    """Its weights the shared ones then each corpus's copies; the doubled matrix's minimum is a
    minimum of the copies' objective (a fit started there stops at once), and where the objective
    is convex a fit from zero reaches the same one."""
    A, y, offsets, copies = problem(2, one_consistent=True)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    D = CompactMatrix.from_csr(doubled(A, copies))
    kw = dict(sigma2=1.0, solver="lbfgs", precondition=True)
    old = LogLinearRanker(tol=1e-9, max_iter=2000, **kw).fit(D, y, groups)
    at_old = LogLinearRanker(tol=1e-6, **kw).fit(A, y, groups, copies=copies, coef_init=old.coef_)
    assert at_old.n_iter_ == 0 and np.allclose(at_old.coef_, old.coef_, rtol=0, atol=1e-14)
    new = LogLinearRanker(tol=1e-9, max_iter=2000, **kw).fit(A, y, groups, copies=copies)
    assert new.converged_ and new.n_features_in_ == D.shape[1]
    assert new.objective_ == pytest.approx(old.objective_, rel=1e-9)
    assert np.allclose(new.coef_, old.coef_, rtol=0, atol=1e-5)
    assert np.allclose(new.decision_function(D), old.decision_function(D), rtol=0, atol=1e-5)


def test_the_preconditioner_sees_each_parameter_s_curvature():
    """``w_c``: its corpus's rows and its prior; ``u``: the rows where it has no copy, its prior
    and its copies' priors (``λ_c = w_c - u``)."""
    A, y, offsets, copies = problem(1)
    d = A.shape[1]
    X = CompactMatrix.from_csr(A)
    n = len(offsets) - 1
    sigma2 = np.full(d + copies.n_copies, 4.0)
    sentence_corpus = copies.corpus[offsets[:-1]]
    by = {}
    for c in (0, 1, -1):
        keep = np.repeat(sentence_corpus == c, np.diff(offsets))
        sizes = np.diff(offsets)[sentence_corpus == c]
        by[c] = hessian_diagonal(X.take_rows(np.flatnonzero(keep)), np.concatenate([[0], np.cumsum(sizes)]))
    u = by[-1].copy()
    for c in (0, 1):
        mask = np.ones(d, bool)
        mask[copies.columns[c]] = False
        u += np.where(mask, by[c], 0.0)
    prior_u = np.full(d, 0.25)
    for cols in copies.columns:
        prior_u[cols] += 0.25
    h = np.concatenate([u + prior_u, *(by[c][copies.columns[c]] + 0.25 for c in (0, 1))]) / n
    want = np.exp2(np.round(-0.5 * np.log2(h)))
    assert np.array_equal(jacobi_scales(X, offsets, sigma2, copies), want)


@pytest.mark.parametrize("copies, message", [
    (lambda c: c._replace(corpus=c.corpus[:-1]), "corpus copies: "),
    (lambda c: c._replace(columns=(c.columns[0], np.array([0, 99]))), "not one of the 25 shared columns"),
    (lambda c: c._replace(corpus=np.where(np.arange(len(c.corpus)) == 1, 1, c.corpus).astype(np.int32)),
     "the rows of a sentence are of more than one corpus"),
])
def test_copies_that_do_not_fit_the_rows_are_refused(copies, message):
    A, y, offsets, good = problem(0)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    with pytest.raises(RankerError, match=message):
        LogLinearRanker().fit(A, y, groups, copies=copies(good))
    with pytest.raises(ValueError, match="ascending"):
        CorpusCopies.of(good.corpus, (np.array([3, 1]),))
