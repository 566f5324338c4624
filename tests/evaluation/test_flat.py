"""Flattened keys (Gaizauskas et al. 1998): their Table 1, all eight rows and seven columns.

The four analyses of "The monthly sales have been setting records every month since March." (section
5). The PTB tree is wsj_0016's sentence read through NLTK's treebank; the Flat key is as printed.

The ALT trees were damaged in the paper's text extraction (a line ``(VC (VBN been)`` appears twice,
brackets are missing). Reconstruction, checked against every count of the table:

* ALT-good: the duplicated ``(VC (VBN been)`` line is one line, so the verb cluster is
  ``(VC (VBP have) (VC (VBN been) (VBG setting)))``; ``(. .)`` closes the S. 11 constituents.
* ALT-bad: the same verb cluster; "misses the first NP" (``The`` stands directly under S, beside
  ``NBAR``) and "wrongly attaches the PP": ``(VP (VBAR (VBAR (VC ...) (NP records)) (NP every
  month)) (PP since March))``. 11 constituents. The text shows three ``VBAR`` lines; with a third
  VBAR over VP's whole span the constituent set (distinct spans) is the same, so both readings give
  the table.

What counts as a constituent is what makes the table come out: every phrase node's span (one-word
phrases such as the PTB's ``(NP (NNS records))`` included, part-of-speech nodes excluded), the
sentence bracket included, punctuation kept, distinct spans.
"""
import pytest
from nltk.corpus import treebank

from ranker.evaluation.flat import (FlatAccumulator, FlatCounts, flat_constituents, flat_key,
                                    score_flat)
from ranker.trees.flatten import FlattenRules
from ranker.trees.penn import parse_tree
from ranker.trees.tree import Tree

FLAT = ("( (S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VBN been) (VBG setting) "
        "(NNS records) (NP (DT every) (NN month) (PP (IN since) (NNP March)))) (. .)))")
ALT_GOOD = ("((S (NP (DT The) (NBAR (JJ monthly) (NNS sales))) (VP (VBAR (VC (VBP have) (VC (VBN been) "
            "(VBG setting))) (NP (NNS records))) (NP (DT every) (NN month) (PP (IN since) "
            "(NP (NNP March))))) (. .)))")
ALT_BAD = ("((S (DT The) (NBAR (JJ monthly) (NNS sales)) (VP (VBAR (VBAR (VC (VBP have) (VC (VBN been) "
           "(VBG setting))) (NP (NNS records))) (NP (DT every) (NN month))) (PP (IN since) "
           "(NP (NNP March)))) (. .)))")
ALT_BAD_THREE_VBARS = ALT_BAD.replace("(VP (VBAR (VBAR (VC", "(VP (VBAR (VBAR (VBAR (VC").replace(
    "(NP (NNP March)))) (. .)))", "(NP (NNP March))))) (. .)))")

# Key, response, KeyCons, RespCons, Matched, KCV, Recall, Precision, Conformance (rounded as printed)
TABLE_1 = [
    ("Flat", "PTB", 5, 10, 5, 0, 100, 50, 100),
    ("Flat", "ALT-good", 5, 11, 5, 0, 100, 45, 100),
    ("Flat", "ALT-bad", 5, 11, 3, 1, 60, 27, 80),
    ("PTB", "Flat", 10, 5, 5, 0, 50, 100, 100),
    ("PTB", "ALT-good", 10, 11, 7, 2, 70, 64, 80),
    ("PTB", "ALT-bad", 10, 11, 6, 3, 60, 55, 70),
    ("ALT-good", "ALT-bad", 11, 11, 9, 1, 82, 82, 91),
    ("ALT-good", "PTB", 11, 10, 7, 3, 64, 70, 73),
]


@pytest.fixture(scope="module")
def analyses():
    ptb = [t for t in treebank.parsed_sents("wsj_0016.mrg") if t.leaves()[:3] == ["The", "monthly", "sales"]]
    assert len(ptb) == 1
    return {"Flat": parse_tree(FLAT), "PTB": Tree.from_nltk(ptb[0]),
            "ALT-good": parse_tree(ALT_GOOD), "ALT-bad": parse_tree(ALT_BAD)}


@pytest.mark.parametrize("row", TABLE_1, ids=lambda r: f"{r[0]}-vs-{r[1]}")
def test_table_1_row(analyses, row):
    key, response, *expected = row
    c = score_flat(analyses[key], analyses[response])
    got = [c.key, c.response, c.matched, c.violated, round(c.recall), round(c.precision), round(c.conformance)]
    assert got == expected


def test_three_vbar_reading_of_alt_bad_gives_the_same_constituents():
    assert flat_constituents(parse_tree(ALT_BAD_THREE_VBARS)) == flat_constituents(parse_tree(ALT_BAD))


def test_flat_key_from_the_ptb_tree_is_the_papers_flat_key(analyses):
    key = flat_key(analyses["PTB"], FlattenRules.load("ptb"))
    assert flat_constituents(key) == flat_constituents(analyses["Flat"])
    assert score_flat(key, analyses["PTB"]) == FlatCounts(5, 10, 5, 0)


def test_no_parse_charges_the_key_and_violates_nothing(analyses):
    c = score_flat(analyses["Flat"], None)
    assert c == FlatCounts(5, 0, 0, 0) and c.recall == 0 and c.conformance == 100


def test_word_mismatch_is_an_error():
    with pytest.raises(ValueError, match="words differ"):
        score_flat(parse_tree("(S (A a) (B b))"), parse_tree("(S (A a) (B c))"))


def test_empty_elements_are_removed_from_keys_given_as_they_are():
    key = parse_tree("(S (NP (-NONE- *)) (NP (A a) (B b)) (VP (C c) (D d)))")
    assert score_flat(key, parse_tree("(S (X (A a) (B b)) (C c) (D d))")) == FlatCounts(3, 2, 2, 0)


def test_accumulator_sums_the_table():
    acc = FlatAccumulator()
    acc.add(FlatCounts(5, 11, 3, 1))
    acc.add(FlatCounts(10, 11, 6, 3))
    acc.add(FlatCounts(4, 0, 0, 0), parsed=False)
    r = acc.result()
    assert (r.sentences, r.no_parse, r.key, r.response, r.matched, r.violated) == (3, 1, 19, 22, 9, 4)
    assert r.conformance == pytest.approx(100 * 15 / 19) and r.recall == pytest.approx(100 * 9 / 19)
    d = r.as_dict()
    assert d["key_violated"] == 4 and d["gold_brackets"] == 19


def test_issue_10_root_left_out_of_key_and_response():
    key = parse_tree("(S (NP (DT a) (NN b)) (VP (VB c)))")
    resp = parse_tree("(S (NP (DT a) (NN b)) (VP (VB c)))")
    assert score_flat(key, resp) == FlatCounts(3, 3, 3, 0)
    assert score_flat(key, resp, with_root=False) == FlatCounts(2, 2, 2, 0)
    assert score_flat(key, None, with_root=False) == FlatCounts(2, 0, 0, 0)
