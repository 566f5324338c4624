"""PARSEVAL after Black et al. (1991): their worked examples, exactly, and the basic properties."""
from fractions import Fraction

from ranker.evaluation.parseval import (BracketCounts, ParsevalAccumulator, constituent_spans,
                                        score_parseval)
from ranker.trees import penn

# Section 4a/4b, in the paper's own unlabelled notation (read with labelled=False).
STANDARD = "((The prospect) (of (cutting back spending)))"
CANDIDATE = "(The (prospect (of ((cutting back) spending))))"


def parse_tree(text):
    return penn.parse_tree(text, labelled=False)


def test_prospect_example_one_crossing_recall_3_of_4_precision_3_of_5():
    for erase in (False, True):
        c = score_parseval(parse_tree(STANDARD), parse_tree(CANDIDATE), erase=erase)
        assert c == BracketCounts(gold=4, test=5, matched=3, crossing=1)
    acc = ParsevalAccumulator()
    acc.add(c)
    r = acc.result()
    assert r.averaged_recall == 75.0 and r.averaged_precision == 60.0
    assert r.crossing_distribution == {1: 1}


def test_averaging_example_700_and_560():
    # section 4c: five parses with these recall and precision ratios; crossings 0,0,0,1,2
    counts = [(4, 5, 3, 0), (8, 10, 7, 0), (4, 5, 2, 2), (8, 10, 5, 0), (4, 5, 3, 1)]
    acc = ParsevalAccumulator()
    for c in counts:
        acc.add(BracketCounts(*c))
    r = acc.result()
    assert Fraction(r.averaged_recall).limit_denominator(1000) == 70
    assert Fraction(r.averaged_precision).limit_denominator(1000) == 56
    assert r.crossing_distribution == {0: 3, 1: 1, 2: 1}
    # summed figures differ from the paper's averages: 20/28 and 20/35
    assert round(r.recall, 2) == 71.43 and round(r.precision, 2) == 57.14


def test_unary_and_one_word_brackets_are_not_constituents():
    t = penn.parse_tree("(S (NP (NP (DT a))) (VP (VB b) (NP (NN c) (NN d))))")
    assert constituent_spans(t) == {(0, 4), (1, 4), (2, 4)}


def test_tree_against_itself_scores_100():
    t = penn.parse_tree("( (S (NP-SBJ (DT The) (NN cat)) (VP (VBZ is) (RB not) (VP (VBG sleeping))) (. .)) )")
    acc = ParsevalAccumulator()
    acc.add(score_parseval(t, t))
    r = acc.result()
    assert r.recall == r.precision == r.f1 == r.averaged_recall == r.averaged_precision == 100.0
    assert r.crossing == 0


def test_no_parse_finds_nothing():
    acc = ParsevalAccumulator()
    acc.add(score_parseval(parse_tree(STANDARD), None))
    r = acc.result()
    assert r.recall == 0.0 and r.gold == 4 and r.test == 0
