"""Tests for oracle/random bounds and error reduction computed from per-candidate counts."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ranker.evaluation.bounds import (CHOOSING, METRICS, SHOWN, TARGET, ForestCounts, candidate_scores,
                                      conformance_score, corpus_score, error_reduction, expected_counts,
                                      f1_score, oracle_choice, selected_counts, sentence_counts,
                                      unscored_rows)

F = METRICS["evalb_unlabeled"]


def _forest():
    # sentence 0: three candidates, the second is best; sentence 1: no candidate; sentence 2: tie
    return ForestCounts.from_lists(
        [[(4, 4, 2, 1), (4, 4, 4, 0), (4, 5, 3, 2)], [], [(2, 2, 1, 0), (2, 2, 1, 0)]],
        gold=[4, 3, 2])


def test_oracle_picks_best_sentence_score_first_on_ties_and_minus_one_for_empty():
    fc = _forest()
    assert oracle_choice(fc, F.score).tolist() == [1, -1, 0]


def test_a_candidate_evalb_leaves_out_is_the_oracle_only_when_every_candidate_is():
    """Regression: an unalignable candidate counts zeros (as evalb skips it) and its sentence F
    would read 100; the oracle must not take it over a scored candidate."""
    fc = ForestCounts.from_lists([[(0, 0, 0, 0), (4, 4, 1, 0)], [(0, 0, 0, 0), (0, 0, 0, 0)],
                                  [(0, 0, 0, 0)]], gold=[4, 3, 0])
    assert unscored_rows(fc.counts, np.array([4, 4, 3, 3, 0])).tolist() == [True, False, True, True,
                                                                             False]
    assert oracle_choice(fc, F.score).tolist() == [1, 0, 0]


def test_one_treatment_of_unscored_candidates():
    """candidate_scores gives a left-out candidate what its use needs; choosing by it is the oracle."""
    fc = ForestCounts.from_lists([[(0, 0, 0, 0), (4, 4, 0, 0)], [(0, 0, 0, 0), (0, 0, 0, 0)],
                                  [(0, 0, 0, 0)]], gold=[4, 3, 0])
    assert candidate_scores(fc, "evalb_unlabeled", TARGET).tolist() == [0, 0, 0, 0, 100]
    assert candidate_scores(fc, F).tolist() == [CHOOSING, 0, CHOOSING, CHOOSING, 100]
    assert np.isnan(candidate_scores(fc, F, SHOWN)).tolist() == [True, False, True, True, False]
    # the finite value of choosing ranks below every score of every metric (none is below 0)
    assert all((m.score(fc.counts) >= 0).all() for m in METRICS.values()) and CHOOSING < 0
    assert oracle_choice(fc, F.score).tolist() == [1, 0, 0]   # F 0 beats an F the scorer never gave
    one = sentence_counts([(0, 0, 0, 0), (4, 4, 0, 0)])
    assert one.gold.tolist() == [4] and candidate_scores(one, F).tolist() == [CHOOSING, 0]
    assert candidate_scores(ForestCounts.from_lists([[]], [2]), F).shape == (0,)


def test_empty_forest_counts_its_gold_against_every_system():
    fc = _forest()
    sel = selected_counts(fc, np.array([0, -1, 1]))
    assert sel[1].tolist() == [3, 0, 0, 0]
    assert expected_counts(fc)[1].tolist() == [3, 0, 0, 0]


def test_lower_bound_is_the_mean_over_each_forest():
    fc = _forest()
    exp = expected_counts(fc)
    assert exp[0].tolist() == pytest.approx([4, 13 / 3, 3, 1])
    assert exp[2].tolist() == [2, 2, 1, 0]
    assert corpus_score(F, exp) == pytest.approx(f1_score(np.array([9, 13 / 3 + 2, 4])))


def test_bad_choices_are_rejected():
    fc = _forest()
    with pytest.raises(ValueError):
        selected_counts(fc, np.array([3, -1, 0]))
    with pytest.raises(ValueError):
        selected_counts(fc, np.array([-1, -1, 0]))


def test_gold_only_candidate_gives_upper_equal_lower_equal_100_and_no_error_reduction():
    fc = ForestCounts.from_lists([[(5, 5, 5, 0)], [(3, 3, 3, 0)]], gold=[5, 3])
    up = corpus_score(F, selected_counts(fc, oracle_choice(fc, F.score)))
    low = corpus_score(F, expected_counts(fc))
    assert up == low == 100.0
    assert error_reduction(100.0, low, up) is None


def test_error_reduction_formula():
    assert error_reduction(72.5, 60.0, 85.0) == pytest.approx(50.0)


def test_conformance_uses_violated_key_constituents():
    assert conformance_score(np.array([10, 7, 5, 2])) == pytest.approx(80.0)


counts_st = st.lists(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9),
                                        st.integers(0, 5)), max_size=6), min_size=1, max_size=8)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(counts_st, st.integers(0, 10_000))
def test_upper_bound_dominates_every_selection_per_sentence(per_sentence, seed):
    # matched can not exceed gold or test in real data
    per_sentence = [[(g, t, min(m, g, t), c) for g, t, m, c in s] for s in per_sentence]
    gold = [s[0][0] if s else 3 for s in per_sentence]
    per_sentence = [[(gold[i], t, m if m <= gold[i] else gold[i], c) for _, t, m, c in s]
                    for i, s in enumerate(per_sentence)]
    fc = ForestCounts.from_lists(per_sentence, gold)
    rng = np.random.default_rng(seed)
    sizes = np.diff(fc.offsets)
    random_choice = np.array([rng.integers(0, n) if n else -1 for n in sizes])
    upper = F.score(selected_counts(fc, oracle_choice(fc, F.score)))
    other = F.score(selected_counts(fc, random_choice))
    assert np.all(upper >= other - 1e-9)
    low = corpus_score(F, expected_counts(fc))
    assert 0.0 <= low <= 100.0 and not np.isnan(low)
