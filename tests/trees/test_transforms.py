"""Transforms: exact outputs on small trees, idempotence (Hypothesis), every WSJ tree."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranker.trees.penn import parse_tree
from ranker.trees.transforms import (PUNCT_TAGS, base_label, collapse_unary, delete_punctuation,
                                     function_tags, remove_empty_elements, strip_function_tags,
                                     strip_root)
from ranker.trees.tree import Tree, node


def test_base_label_cuts_function_tags_and_indices():
    assert base_label("NP-SBJ-1") == "NP"
    assert base_label("NP=2") == "NP"
    assert base_label("PP-LOC=1") == "PP"
    assert base_label("PRP$") == "PRP$"
    for keep in ("-NONE-", "-LRB-", "-RRB-"):
        assert base_label(keep) == keep
    assert function_tags("NP-SBJ-1") == {"SBJ"}
    assert function_tags("PP-LOC-CLR=2") == {"LOC", "CLR"}


def test_strip_function_tags_keeps_structure():
    t = parse_tree("(S (NP-SBJ-1 (-NONE- *)) (VP=2 (VBD ran) (-LRB- -LRB-)))")
    assert strip_function_tags(t).to_penn() == "(S (NP (-NONE- *)) (VP (VBD ran) (-LRB- -LRB-)))"


def test_remove_empty_elements_drops_emptied_nodes():
    t = parse_tree("(S (NP-SBJ (-NONE- *-1)) (VP (VBD said) (SBAR (-NONE- 0) (S (-NONE- *T*-2)))) (. .))")
    assert remove_empty_elements(t).to_penn() == "(S (VP (VBD said)) (. .))"
    assert remove_empty_elements(parse_tree("(S (-NONE- *))")) is None


def test_delete_punctuation_uses_evalb_tags():
    t = parse_tree("(S (`` ``) (NP (NNP A)) (, ,) (-LRB- -LRB-) (NP ($ $) (CD 5)) (. .) ('' ''))")
    assert delete_punctuation(t).to_penn() == "(S (NP (NNP A)) (-LRB- -LRB-) (NP ($ $) (CD 5)))"
    assert delete_punctuation(parse_tree("(S (. .))")) is None
    assert PUNCT_TAGS == {",", ".", ":", "``", "''"}


def test_collapse_unary_keeps_upper_label():
    t = parse_tree("( (S (VP (VP (VB go)) ) ) )")
    assert collapse_unary(t).to_penn() == "(S (VB go))"
    assert collapse_unary(t, collapse_pos=True).to_penn() == "(S go)"
    t = parse_tree("(S (NP (NP (DT a) (NN b))) (VP (VB c)))")
    assert collapse_unary(t).to_penn() == "(S (NP (DT a) (NN b)) (VP (VB c)))"


def test_strip_root():
    t = parse_tree("( (S (NN a)) )")
    assert strip_root(t).to_penn() == "(S (NN a))"
    assert strip_root(strip_root(t)) == strip_root(t)
    two = parse_tree("( (NN a) (NN b))")
    assert strip_root(two) == two


LABELS = ["S", "NP", "NP-SBJ", "VP", "PP-LOC=1", "", "-NONE-", ",", ".", "NN", "DT"]


@st.composite
def trees(draw, depth=3):
    counter = [0]

    def build(d):
        label = draw(st.sampled_from(LABELS))
        if d == 0 or draw(st.booleans()):
            counter[0] += 1
            return node(label, [counter[0] - 1])
        kids = [build(d - 1) for _ in range(draw(st.integers(1, 3)))]
        return node(label, kids)

    root = build(depth)
    return Tree(root, tuple(f"w{i}" for i in range(counter[0])))


def _same(f, t):
    once = f(t)
    return once is None or f(once) == once


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(trees())
def test_transforms_are_idempotent(t):
    assert _same(strip_function_tags, t)
    assert _same(remove_empty_elements, t)
    assert _same(delete_punctuation, t)
    assert _same(collapse_unary, t)
    assert _same(lambda x: collapse_unary(x, collapse_pos=True), t)


@pytest.mark.slow
def test_wsj_round_trip_and_transforms(wsj_trees):
    assert len(wsj_trees) == 3914
    for t in wsj_trees:
        assert parse_tree(t.to_penn()) == t
        assert Tree.build(t.root, t.words) == t
        s = strip_function_tags(t)
        e = remove_empty_elements(s)
        assert e is not None and "-NONE-" not in e.tags()
        p = delete_punctuation(e)
        assert p is not None and not PUNCT_TAGS & set(p.tags())
        c = collapse_unary(p)
        assert collapse_unary(c) == c
        assert strip_root(t) == t  # NLTK drops the empty root already


def test_public_names_exported():
    import ranker.trees as trees

    for name in trees.__all__:
        assert hasattr(trees, name), name
