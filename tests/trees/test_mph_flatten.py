"""Maximal projections (Ringger et al. 2004) and flattening (Gaizauskas et al. 1998, section 6)."""
import pytest

from ranker.errors import RankerError
from ranker.trees.flatten import FlattenRules, flatten
from ranker.trees.heads import HeadRules
from ranker.trees.mph import maximal_projections, mph_brackets
from ranker.trees.penn import parse_tree

WSJ16 = ("( (S (NP-SBJ (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VP (VBN been) (VP (VBG setting) "
         "(NP (NNS records)) (NP-TMP (NP (DT every) (NN month)) (PP (IN since) (NP (NNP March))))))) (. .)) )")
# Gaizauskas et al.'s Flat key of the same sentence (section 5), phrasal and lexical tags included.
FLAT16 = ("( (S (NP (DT The) (JJ monthly) (NNS sales)) (VP (VBP have) (VBN been) (VBG setting) "
          "(NNS records) (NP (DT every) (NN month) (PP (IN since) (NNP March)))) (. .)))")


def test_mph_of_wsj_0016_by_hand():
    # Collins heads: have heads S and the top VP, so that VP is not maximal and 'have' stands
    # under S; one-word brackets (records, March), the period and the VP chain's non-maximal
    # levels go.
    m = maximal_projections(parse_tree(WSJ16), HeadRules.load("collins"))
    assert m.to_penn() == ("(S (NP The monthly sales) have (VP been (VP setting records "
                           "(NP every month (PP since March)))))")
    assert mph_brackets(parse_tree(WSJ16), HeadRules.load("collins")) == [
        (0, 3), (4, 11), (5, 11), (7, 11), (9, 11)]


def test_mph_with_head_reassignment_adds_no_brackets():
    t = parse_tree(WSJ16)
    base = set(mph_brackets(t, HeadRules.load("charniak")))
    re = set(mph_brackets(t, HeadRules.load("ringger-reassign")))
    assert re < base   # reassignment only ever removes brackets here: the verb chain is one MPH
    assert maximal_projections(t, HeadRules.load("ringger-reassign")).to_penn() == \
        "(S (NP The monthly sales) have been setting records (NP every month (PP since March)))"


def test_mph_flattens_non_branching_and_drops_single_words():
    t = parse_tree("(S (NP (NP (DT the) (NN cat))) (VP (VBD sat)) (. .))")
    assert maximal_projections(t, HeadRules.load("collins")).to_penn() == "(S (NP the cat) sat)"


def test_np_recursion_flattening_example():
    rules = FlattenRules.from_text("(NP NP^ PP)")
    t = parse_tree("(NP (NP (DET the) (N man)) (PP (P from) (NP (N Madrid))))")
    assert flatten(t, rules).to_penn() == "(NP (DET the) (N man) (PP (P from) (N Madrid)))"
    # the rule needs exactly the children NP PP
    t2 = parse_tree("(NP (NP (DET the) (N man)) (PP (P from) (N Madrid)) (PP (P to) (N Rome)))")
    assert flatten(t2, rules).to_penn() == t2.to_penn()


def test_ptb_rules_give_the_papers_flat_key_of_wsj_0016():
    assert flatten(parse_tree(WSJ16), FlattenRules.load("ptb")).to_penn() == FLAT16


def test_parent_rules_and_root_protection():
    rules = FlattenRules.from_text("(X^ A B)\nY^")
    t = parse_tree("(X (Z (X (A a) (B b)) (Y (C c) (D d))))")
    assert flatten(t, rules).to_penn() == "(X (Z (A a) (B b) (C c) (D d)))"
    assert flatten(parse_tree("(Y (A a) (B b))"), rules).to_penn() == "(Y (A a) (B b))"


def test_steps_repeat_to_fixpoint():
    # removing the empty subject makes S unary; unary removal then exposes VP-in-VP to the rule
    rules = FlattenRules.from_text("(VP * VP^ *)")
    t = parse_tree("(VP (VB try) (S (NP-SBJ (-NONE- *-1)) (VP (TO to) (VP (VB go) (ADVP (RB home))))))")
    assert flatten(t, rules).to_penn() == "(VP (VB try) (TO to) (VB go) (RB home))"


@pytest.mark.parametrize("line", ["(NP NP PP)", "(NP^ NP^ PP)", "NP", "(NP NP^ PP^)", "(NP (NP^) PP)",
                                  "(NP", "(NP *^)"])
def test_malformed_flatten_rules(tmp_path, line):
    f = tmp_path / "rules.txt"
    f.write_text("# comment\n" + line + "\n")
    with pytest.raises(RankerError, match=f"{f}:2:"):
        FlattenRules.load(f)


@pytest.mark.slow
def test_wsj_flatten_and_mph_never_crash(wsj_trees):
    flat, heads = FlattenRules.load("ptb"), HeadRules.load("charniak")
    for t in wsj_trees[::4]:
        f = flatten(t, flat)
        assert f is not None and flatten(f, flat) == f
        assert all(len(n.children) > 1 or n.is_preterminal or n is f.root for n in f.nodes())
        m = maximal_projections(t, heads)
        assert m is None or all(n.end - n.start > 1 for n in m.nodes() if n is not m.root)
