"""MPH scores (Ringger et al. 2004): per-pair counts and the statistics of their Table 1."""
import pytest

from ranker.evaluation.mph import MphAccumulator, mph_counts, mph_side, score_mph
from ranker.evaluation.parseval import BracketCounts
from ranker.trees.heads import HeadRules
from ranker.trees.penn import parse_tree

# wsj_0016's third sentence, as in the treebank (Gaizauskas et al. use it too).
WSJ16 = ("( (S (NP-SBJ (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting) "
         "(NP (NNS records)) (NP-TMP (NP (DT every) (NN month)) (PP (IN since) (NP (NNP March))))))) (. .)) )")
# 'every month' wrongly inside the object NP: (records every month) crosses (every month since March).
LOW = ("(S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting) "
       "(NP (NNS records) (NP (DT every) (NN month))) (PP (IN since) (NP (NNP March)))))) (. .))")


@pytest.fixture(scope="module")
def ringger():
    return HeadRules.load("ringger-reassign")


def test_gold_side_keeps_only_maximal_projections(ringger):
    # with the reassignment the verb chain is one projection of 'setting': no VP bracket is left;
    # one-word NPs, the top bracket and the period are ignored.
    side = mph_side(parse_tree(WSJ16), ringger)
    assert side.brackets == ((0, 3), (7, 11), (9, 11))
    assert side.words[-1] == "March"


def test_wrong_attachment_one_crossing(ringger):
    # test MPH brackets: (0,3) (6,9) (7,9) (9,11); (0,3) and (9,11) match, (6,9) crosses (7,11)
    assert score_mph(parse_tree(WSJ16), parse_tree(LOW), ringger) == BracketCounts(3, 4, 2, 1)


def test_no_parse_charges_the_gold_brackets(ringger):
    assert score_mph(parse_tree(WSJ16), None, ringger) == BracketCounts(3, 0, 0, 0)


def test_word_mismatch_is_an_error(ringger):
    with pytest.raises(ValueError, match="words differ"):
        score_mph(parse_tree(WSJ16), parse_tree("(S (NP (DT A) (NN dog)) (VP (VBD ran)))"), ringger)


def test_brackets_match_as_a_multiset():
    assert mph_counts([(0, 2), (0, 2), (2, 4)], [(0, 2), (1, 3)]) == BracketCounts(3, 2, 1, 1)


def _paper_column():
    """Per-sentence counts whose totals are Ringger et al.'s Table 1, WSJ 23, NLPWin column.

    2416 sentences; 17686 reference, 17669 hypothesis, 13131 matched brackets; 655 complete matches
    (27.11%); 1691 crossings (0.70 per sentence); 1651 sentences without crossing (68.34%), 2185
    with at most two (90.44%).
    """
    rows = [(5, 5, 5, 0)] * 655                                  # complete matches
    crossings = [0] * (1651 - 655) + [1] * 70 + [2] * 464 + [3] * 231
    rest = len(crossings)
    g, t, m = 17686 - 5 * 655, 17669 - 5 * 655, 13131 - 5 * 655
    for k, x in enumerate(crossings):
        gi = g // rest + (k < g % rest)
        ti = t // rest + (k < t % rest)
        mi = m // rest + (k < m % rest)
        rows.append((gi, ti, mi, x))
    return rows


def test_table_1_statistics_from_the_papers_counts():
    acc = MphAccumulator()
    for r in _paper_column():
        assert not (r[0] == r[1] == r[2]) or r[3] == 0
        acc.add(BracketCounts(*r))
    s = acc.result()
    table = dict(s.table())
    assert table["Number of sentences"] == 2416
    assert (s.gold, s.test, s.matched) == (17686, 17669, 13131)
    assert round(s.recall, 2) == 74.25 and round(s.precision, 2) == 74.32
    assert round(s.complete_match, 2) == 27.11
    assert round(s.average_crossing, 2) == 0.70
    assert round(s.no_crossing_rate, 2) == 68.34
    assert round(s.two_or_fewer_rate, 2) == 90.44
    assert [name for name, _ in s.table()][4:6] == ["Unlabeled bracket recall", "Unlabeled bracket precision"]


def test_no_parse_is_never_a_complete_match():
    acc = MphAccumulator()
    acc.add(BracketCounts(0, 0, 0, 0), parsed=False)
    acc.add(BracketCounts(0, 0, 0, 0))
    s = acc.result()
    assert (s.sentences, s.no_parse, s.complete) == (2, 1, 1)
    assert s.recall == s.precision == s.f1 == 100.0   # nothing to find, nothing proposed
