"""One estimator conformance suite run over every ranker (after scikit-learn's check_estimator)."""
from typing import Callable, NamedTuple

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from ranker.models import HeidornRanker, LogLinearRanker
from ranker.models.baselines import NativeRanker, OracleRanker, RandomRanker
from ranker.models.expected_f import ExpectedFRanker
from ranker.trees.penn import parse_tree

HIGH = "(VP (VERB* See) (NP (ADJ the) (NOUN* man)) (PP (PREP with) (ADJ the) (NOUN* telescope)))"
LOW = "(VP (VERB* See) (NP (ADJ the) (NOUN* man) (PP (PREP with) (ADJ the) (NOUN* telescope))))"


class Case(NamedTuple):
    make: Callable[[], object]
    data: Callable[[int], tuple]      # seed -> (X, y, groups) where y marks the "right" candidates
    separable: bool                   # whether the ranker must pick the y > 0 candidates


def _groups(rng, n_groups):
    sizes = rng.integers(2, 6, size=n_groups)
    return np.repeat(np.arange(n_groups), sizes), sizes


def separable_matrix(seed):
    rng = np.random.default_rng(seed)
    groups, sizes = _groups(rng, 30)
    n = len(groups)
    noise = rng.integers(0, 3, size=(n, 4)).astype(float)
    y = np.zeros(n)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    y[starts + rng.integers(0, sizes)] = 1.0
    X = sp.csr_matrix(np.column_stack([y, noise]))   # column 0 separates consistent candidates
    return X, y, groups


def separable_trees(seed):
    rng = np.random.default_rng(seed)
    high, low = parse_tree(HIGH, "<t>", 1), parse_tree(LOW, "<t>", 1)
    X, y, groups = [], [], []
    for g in range(10):
        order = [high, low] if rng.random() < 0.5 else [low, high]
        X += order
        y += [float(t is low) for t in order]   # Heidorn's metric prefers low attachment
        groups += [g, g]
    return X, np.array(y), np.array(groups)


def separable_ranks(seed):
    X, y, groups = separable_matrix(seed)
    rank = np.zeros(len(y))
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        rank[rows] = np.argsort(np.argsort(-y[rows], kind="stable"), kind="stable")
    return rank, y, groups


def quality_column(seed):
    _, y, groups = separable_matrix(seed)
    return y.copy(), y, groups


class ExpectedFOnTheMarks(ExpectedFRanker):
    """Minimum risk whose gain is ``y`` itself (0/1 here): ``fit(X, y, groups)`` as the suite calls it."""

    def fit(self, X, y, groups):
        return super().fit(X, y, groups, gain=y)


CASES = {
    "loglinear": Case(lambda: LogLinearRanker(sigma2=10.0), separable_matrix, True),
    "loglinear-lbfgs": Case(lambda: LogLinearRanker(sigma2=10.0, solver="lbfgs"), separable_matrix, True),
    "expected_f": Case(lambda: ExpectedFOnTheMarks(sigma2=10.0), separable_matrix, True),
    "heidorn": Case(lambda: HeidornRanker(heads="star", pp_as_np=False), separable_trees, True),   # star-marked trees
    "native": Case(lambda: NativeRanker(), separable_ranks, True),
    "oracle": Case(lambda: OracleRanker(), quality_column, True),
    "random": Case(lambda: RandomRanker(seed=3), separable_matrix, False),
}


def params_equal(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(np.asarray(a[k], dtype=object), np.asarray(b[k], dtype=object)), k


@pytest.fixture(params=sorted(CASES))
def case(request):
    return CASES[request.param]


def test_fit_returns_self_and_leaves_hyperparameters_alone(case):
    est = case.make()
    before = est.get_params()
    X, y, groups = case.data(0)
    assert est.fit(X, y, groups) is est
    params_equal(before, est.get_params())
    params_equal(before, clone(est).get_params())


def test_learned_attributes_end_in_underscore(case):
    est = case.make()
    before = set(vars(est))
    est.fit(*case.data(0))
    learned = set(vars(est)) - before
    assert learned and all(a.endswith("_") and not a.startswith("_") for a in learned)


def test_predict_returns_one_index_per_group_within_the_group(case):
    X, y, groups = case.data(1)
    chosen = case.make().fit(X, y, groups).predict(X, groups)
    sizes = np.unique(groups, return_counts=True)[1]
    assert chosen.shape == (len(sizes),) and chosen.dtype == np.int64
    assert np.all((chosen >= 0) & (chosen < sizes))


def test_training_and_prediction_are_deterministic(case):
    X, y, groups = case.data(2)
    a = case.make().fit(X, y, groups)
    b = case.make().fit(X, y, groups)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.predict(X, groups), b.predict(X, groups))


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c.separable))
def test_separable_data_picks_the_right_candidates(name):
    case = CASES[name]
    X, y, groups = case.data(3)
    est = case.make().fit(X, y, groups)
    assert est.score(X, y, groups) == 1.0


def test_unfitted_ranker_says_so(case):
    from ranker.models import NotFittedError

    X, _, groups = case.data(0)
    with pytest.raises(NotFittedError, match="not fitted"):
        case.make().predict(X, groups)


def test_random_ranker_depends_on_its_seed_only():
    X, y, groups = separable_matrix(4)
    a = RandomRanker(seed=1).fit().predict(X, groups)
    assert np.array_equal(a, RandomRanker(seed=1).fit().predict(X, groups))
    assert not np.array_equal(a, RandomRanker(seed=2).fit().predict(X, groups))
    assert len(set(a.tolist())) > 1


def test_every_registered_ranker_is_in_the_suite():
    from ranker.registries import RANKERS

    registered = {RANKERS.get(n) for n in RANKERS.names()}
    tested = {type(c.make()) for c in CASES.values()}
    assert registered == {next(k for k in t.__mro__ if k in registered) for t in tested}
