"""Tests for bootstrap intervals and the paired randomization test."""
import numpy as np
import pytest

from ranker.evaluation.bounds import f1_score as f1_from_sums
from ranker.evaluation.significance import bootstrap_interval, paired_randomization_test


def _counts(rng, n, quality):
    gold = rng.integers(5, 30, size=n)
    test = gold + rng.integers(-2, 3, size=n)
    matched = np.minimum(np.minimum(gold, test), np.round(gold * quality).astype(int))
    return np.stack([gold, test, matched], axis=1)


def test_f1_matches_formula_and_handles_empty():
    assert f1_from_sums(np.array([10, 8, 6])) == pytest.approx(200 * 6 / 18)
    assert f1_from_sums(np.array([0, 0, 0])) == 100.0  # nothing to find, nothing wrong


def test_identical_systems_are_not_significantly_different():
    c = _counts(np.random.default_rng(1), 50, 0.8)
    assert paired_randomization_test(c, c, n_resamples=200) == 1.0


def test_clearly_better_system_is_significant_and_p_is_reproducible():
    rng = np.random.default_rng(2)
    good, bad = _counts(rng, 200, 0.9), None
    bad = good.copy()
    bad[:, 2] = np.round(bad[:, 2] * 0.7)
    p = paired_randomization_test(good, bad, n_resamples=500, seed=3)
    assert p == pytest.approx(1 / 501)
    assert p == paired_randomization_test(good, bad, n_resamples=500, seed=3)


def test_randomization_equals_a_plain_loop_with_the_same_draws():
    rng = np.random.default_rng(4)
    a, b = _counts(rng, 30, 0.8), _counts(rng, 30, 0.75)
    n = 300
    draws = np.random.default_rng(7).random((n, 30)) < 0.5
    observed = abs(f1_from_sums(a.sum(0)) - f1_from_sums(b.sum(0)))
    hits = 0
    for swap in draws:
        a2 = np.where(swap[:, None], b, a).sum(0)
        b2 = np.where(swap[:, None], a, b).sum(0)
        hits += abs(f1_from_sums(a2) - f1_from_sums(b2)) >= observed - 1e-12
    assert paired_randomization_test(a, b, n_resamples=n, seed=7) == (hits + 1) / (n + 1)


def test_bootstrap_interval_brackets_the_observed_score_and_narrows_with_data():
    rng = np.random.default_rng(5)
    small, large = _counts(rng, 40, 0.8), _counts(rng, 4000, 0.8)
    for c in (small, large):
        lo, hi = bootstrap_interval(c, n_resamples=400, seed=0)
        assert lo <= f1_from_sums(c.sum(0)) <= hi
    w_small = np.subtract(*bootstrap_interval(small, n_resamples=400)[::-1])
    w_large = np.subtract(*bootstrap_interval(large, n_resamples=400)[::-1])
    assert w_large < w_small / 3
    assert bootstrap_interval(small, seed=9) == bootstrap_interval(small, seed=9)
