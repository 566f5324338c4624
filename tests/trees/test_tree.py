"""The tree value type: building, validation, spans, conversions."""
import pytest

from ranker.trees import Tree, node, parse_tree


def test_build_accepts_words_mixed_with_phrases_in_order():
    # Regression (found by the store work): a bare word between two phrases.
    t = Tree.build(node("", [node("S", [0]), 1, node("NP", [2])]), ["a", "b", "c"])
    assert t.root.span == (0, 3)
    assert t.to_penn() == "( (S a) b (NP c))"
    assert parse_tree(t.to_penn()) == t


def test_build_rejects_leaves_out_of_order_or_missing():
    with pytest.raises(ValueError):
        Tree.build(node("S", [node("NP", [1]), node("VP", [0])]), ["a", "b"])
    with pytest.raises(ValueError):
        Tree.build(node("S", [0]), ["a", "b"])


def test_spans_tags_and_constituents():
    t = parse_tree("(S (NP (DT the) (NN dog)) (VP barks loudly))")
    assert [n.span for n in t.nodes()] == [(0, 4), (0, 2), (0, 1), (1, 2), (2, 4)]
    assert t.tags() == ("DT", "NN", None, None)
    assert t.constituents() == [("S", 0, 4), ("NP", 0, 2), ("VP", 2, 4)]


def test_node_needs_children():
    with pytest.raises(ValueError):
        node("NP", [])


def test_nltk_round_trip():
    t = parse_tree("( (S (NP-SBJ (NNP John)) (VP (VBZ runs)) (. .)) )")
    assert Tree.from_nltk(t.to_nltk()) == t


def test_trees_read_with_a_shared_dict_share_equal_subtrees_and_words():
    a_text = "(S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NN dog))))"
    b_text = "(S (NP (DT the) (NN man)) (VP (VBD saw) (NP (DT a) (NNS dog))))"
    shared: dict = {}
    a, b = parse_tree(a_text, shared=shared), parse_tree(b_text, shared=shared)
    assert a == parse_tree(a_text) and b == parse_tree(b_text)       # same values as unshared
    assert a.root.children[0] is b.root.children[0]                   # (NP the man)
    assert a.words is b.words
    assert a.root.children[1] is not b.root.children[1]               # the VPs differ
    assert a.root.children[1].children[0] is b.root.children[1].children[0]   # (VBD saw)
    assert parse_tree(a_text, shared=shared) is not a and parse_tree(a_text, shared=shared).root is a.root
