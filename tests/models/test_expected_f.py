"""Minimum-risk (expected-F) training: the objective against a per-sentence loop, its gradient, the ranker."""
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from sklearn.base import clone

from ranker.errors import RankerError
from ranker.models import LogLinearRanker
from ranker.models.expected_f import ExpectedFObjective, ExpectedFRanker


def random_problem(seed, n_groups=40, n_features=12):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_groups)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = offsets[-1]
    X = sp.random(n, n_features, density=0.4, random_state=seed, format="csr")
    X.data = np.round(X.data * 4)
    gain = rng.random(n)
    sigma2 = rng.uniform(0.5, 3.0, size=n_features)
    return X, gain, offsets, sigma2


def loop_risk(X, gain, offsets, sigma2, lam):
    """R(λ) sentence by sentence: minus the expected gain under the model, plus the prior."""
    Xd = X.toarray()
    value = np.sum(lam ** 2 / (2 * sigma2))
    for j in range(len(offsets) - 1):
        s = Xd[offsets[j]:offsets[j + 1]] @ lam
        p = np.exp(s - s.max())
        p /= p.sum()
        value -= p @ gain[offsets[j]:offsets[j + 1]]
    return value


@pytest.mark.parametrize("backend", ["numba", "scipy"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_value_equals_the_loop_and_the_gradient_equals_differences(seed, backend):
    X, gain, offsets, sigma2 = random_problem(seed)
    gain[offsets[0]:offsets[1]] = 0.0       # a sentence whose candidates all score 0 is no error
    obj = ExpectedFObjective(X, gain, offsets, sigma2, backend=backend)
    lam = np.random.default_rng(seed + 10).normal(size=X.shape[1])
    v, g = obj(lam)
    assert v == pytest.approx(loop_risk(X, gain, offsets, sigma2, lam), rel=1e-10)
    err = scipy.optimize.check_grad(lambda x: obj(x)[0], lambda x: obj(x)[1], lam)
    assert err < 1e-5 * max(1.0, np.linalg.norm(g))
    # the log-likelihood's blocks and threads: any number of threads gives the same bits, and
    # the narrow layout the pipeline trains on the same value
    from ranker.matrices.compact import CompactMatrix
    from ranker.models.narrow import split_columns

    v2, g2 = ExpectedFObjective(X, gain, offsets, sigma2, backend=backend, n_jobs=2)(lam)
    assert v2 == v and np.array_equal(g2, g)
    narrow = split_columns(CompactMatrix.from_csr(X), X.shape[1] // 2)
    v3, g3 = ExpectedFObjective(narrow, gain, offsets, sigma2, backend=backend)(lam)
    assert v3 == pytest.approx(v, rel=1e-12) and np.allclose(g3, g, rtol=1e-10, atol=1e-12)


def test_training_raises_the_expected_gain_over_the_log_likelihood_start():
    X, gain, offsets, _ = random_problem(4, n_groups=120)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    best = np.zeros(len(gain))
    for a, b in zip(offsets[:-1], offsets[1:]):
        best[a + np.argmax(gain[a:b])] = 1.0
    ll = LogLinearRanker(sigma2=1.0, max_iter=500).fit(X, best, groups)
    ef = ExpectedFRanker(sigma2=1.0, max_iter=500).fit(X, best, groups, gain=gain)
    obj = ExpectedFObjective(X, gain, offsets, np.ones(X.shape[1]))
    # measured on the sentences the filters keep (with several candidates), like the fit itself
    assert obj(ef.coef_)[0] < obj(ll.coef_)[0]
    assert ef.converged_ and ef.n_training_sentences_ == ll.n_training_sentences_
    # scikit-learn conventions: parameters are the log-linear ranker's, clone keeps them
    assert clone(ef).get_params() == ef.get_params()
    # the same data gives the same model (deterministic)
    again = ExpectedFRanker(sigma2=1.0, max_iter=500).fit(X, best, groups, gain=gain)
    assert np.array_equal(again.coef_, ef.coef_)


def test_bad_gains_are_refused():
    X, gain, offsets, _ = random_problem(5)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    y = (gain == gain).astype(float)
    with pytest.raises(RankerError, match="needs each candidate's score"):
        ExpectedFRanker().fit(X, y, groups)
    with pytest.raises(RankerError, match=r"must lie in \[0, 1\]"):
        ExpectedFRanker().fit(X, y, groups, gain=gain * 100)
    with pytest.raises(RankerError, match="one score per candidate"):
        ExpectedFRanker().fit(X, y, groups, gain=gain[:-1])


def test_a_fitted_model_is_saved_as_the_log_linear_model_it_is(tmp_path):
    from ranker.models import load_model, save_model

    X, gain, offsets, _ = random_problem(6)
    groups = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    best = np.zeros(len(gain))
    best[offsets[:-1] + np.array([np.argmax(gain[a:b]) for a, b in zip(offsets[:-1], offsets[1:])])] = 1
    ef = ExpectedFRanker(sigma2=1.0).fit(X, best, groups, gain=gain)
    save_model(tmp_path / "m.json", ef, [f"f{i}" for i in range(X.shape[1])])
    back = load_model(tmp_path / "m.json").ranker
    assert type(back) is LogLinearRanker and np.array_equal(back.coef_, ef.coef_)
    assert np.array_equal(back.predict(X, groups), ef.predict(X, groups))
