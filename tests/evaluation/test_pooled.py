"""EVALB counts read from files and pooled over folds (ranker/evaluation/pooled.py), hand-worked."""
import numpy as np
import pytest

from ranker.evaluation.evalb_params import load_params
from ranker.evaluation.pooled import evalb_sentence_counts, pooled_f, pooled_scores
from ranker.evaluation.significance import paired_randomization_test

GOLD = ["(S (NP (DT the) (NN dog)) (VP (VBD ran)) (. .))",
        "(S (NP (PRP I)) (VP (VBP see)))",
        "(S (NP (PRP It)) (VP (VBZ is)))"]
TEST = ["(S (NP (DT the)) (VP (NN dog) (VBD ran)) (. .))",   # S right; NP and VP wrong: (3, 3, 1)
        "(S (NP (PRP I)) (VP (VBP see)))",                   # all three right: (3, 3, 3)
        "(S (NP (PRP It)) (VP (VBZ is) (RB not)))"]          # a word more: EVALB's error, adds nothing


def test_counts_per_line_are_gold_test_matched_and_an_evalb_error_adds_nothing(tmp_path):
    (tmp_path / "gold").write_text("\n".join(GOLD) + "\n")
    (tmp_path / "test").write_text("\n".join(TEST) + "\n")
    got = evalb_sentence_counts(tmp_path / "gold", tmp_path / "test", load_params("COLLINS"))
    # COLLINS.prm deletes the '.' terminal; S spans the three words either way
    assert got.tolist() == [[3, 3, 1], [3, 3, 3], [0, 0, 0]]


def test_pooled_f_sums_the_folds_before_dividing():
    a = [np.array([[3, 3, 1], [3, 3, 3]]), np.array([[0, 0, 0]])]
    assert pooled_f(a) == pytest.approx(200 * 4 / 12)
    # not the mean of the folds' F (66.7 and the empty fold's 100)
    assert pooled_f([np.array([[10, 10, 5]]), np.array([[2, 2, 2]])]) == pytest.approx(200 * 7 / 24)


def test_phi_is_the_share_of_the_first_to_oracle_gap_closed():
    counts = {"first": [np.array([[6, 6, 4]])], "oracle": [np.array([[6, 6, 6]])],
              "ranker": [np.array([[3, 3, 2]]), np.array([[3, 3, 3]])], "worse": [np.array([[6, 6, 3]])]}
    got = pooled_scores(counts, "first", "oracle")
    assert got["first"] == {"f": pytest.approx(200 * 4 / 12), "phi": None}
    assert got["oracle"] == {"f": 100.0, "phi": None}
    assert got["ranker"]["f"] == pytest.approx(200 * 5 / 12)
    assert got["ranker"]["phi"] == pytest.approx(50.0)      # (83.3 - 66.7) / (100 - 66.7)
    assert got["worse"]["phi"] == pytest.approx(-50.0)


def test_pooled_counts_feed_the_projects_randomization_test():
    same = [np.array([[3, 3, 2]] * 20)]
    assert paired_randomization_test(np.concatenate(same), np.concatenate(same), n_resamples=200) == 1.0
    better = np.array([[3, 3, 3]] * 40)
    worse = np.array([[3, 3, 1]] * 40)
    assert paired_randomization_test(better, worse, n_resamples=200) == pytest.approx(1 / 201)
