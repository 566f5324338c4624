"""Alignment of parser words to gold tokens by character offsets, and trees over gold tokens."""
from ranker.sources.alignment import align_words, build_tree, parse_label_brackets, token_offsets


def test_split_and_rewritten_words_map_to_their_token():
    tokens = ["director", "Nov.", "29", "-LRB-"]
    text, starts, ends = token_offsets(tokens)
    assert text == "director Nov. 29 -LRB-"
    # LEFT-WALL, director.n, Nov.x, ., 29, -.r, LRB-.v, RIGHT-WALL
    offsets = [(0, 0), (0, 8), (9, 12), (12, 13), (14, 16), (17, 18), (18, 22), (22, 22)]
    walls = [True, False, False, False, False, False, False, True]
    al = align_words(offsets, walls, starts, ends)
    assert al.word_to_token == (-1, 0, 1, 1, 2, 3, 3, -1)
    assert al.unmappable_words == 0 and al.uncovered_tokens == ()


def test_uncovered_tokens_and_unmappable_pieces_are_counted():
    tokens = ["a", "b", "c"]
    _, starts, ends = token_offsets(tokens)
    al = align_words([(0, 1), (1, 2), (4, 5)], [False] * 3, starts, ends)   # (1,2) is the space
    assert al.word_to_token == (0, -1, 2)
    assert al.unmappable_words == 1 and al.uncovered_tokens == (1,)


def test_tree_places_each_token_once_in_order_with_gold_tags():
    items, leaves = parse_label_brackets("[S [NP a b NP] [VP c d VP] S]")
    assert leaves == 4
    # words a b c d; b and c are pieces of token 1 ("bc"); token 2 ("e") is covered by nothing
    tree = build_tree(items, [0, 1, 2, 3], [0, 1, 1, 3], ["a", "bc", "e", "d"], ["DT", "NN", "X", "VB"])
    assert tree.to_penn() == "(S (NP (DT a) (NN bc)) (VP (X e) (VB d)))"


def test_fragments_get_an_unlabelled_root():
    items, _ = parse_label_brackets("[S a S] b [NP c NP]")
    tree = build_tree(items, [0, 1, 2], [0, 1, 2], ["a", "b", "c"], ["", "", ""])
    assert tree.to_penn() == "( (S a) b (NP c))"


def _both(brackets, leaf_word, w2t, tokens, tags):
    """Penn text by the direct path and by building the tree; they must agree exactly."""
    from ranker.sources.alignment import bracket_penn
    from ranker.store.store import penn_text

    items, _ = parse_label_brackets(brackets)
    tree_text = penn_text(build_tree(items, leaf_word, w2t, tokens, tags))
    leaf_texts = [f"({g} {t})" if g else t for t, g in zip(tokens, tags)]
    direct = bracket_penn(brackets, [w2t[j] for j in leaf_word], leaf_texts, [not g for g in tags])
    assert direct == tree_text
    return direct


def test_direct_penn_text_equals_the_built_tree():
    # split token, uncovered token, tagged and bare leaves
    assert _both("[S [NP a b NP] [VP c d VP] S]", [0, 1, 2, 3], [0, 1, 1, 3],
                 ["a", "bc", "e", "d"], ["DT", "NN", "X", "VB"]) == "(S (NP (DT a) (NN bc)) (VP (X e) (VB d)))"
    # a phrase left empty (its only leaf is a later piece of a placed token) is dropped
    assert _both("[S [NP a NP] [ADJP b ADJP] c S]", [0, 1, 2], [0, 0, 1], ["ab", "c"], ["NN", ""]) == "(S (NP (NN ab)) c)"
    # unmappable piece (-1) and a trailing uncovered token at the top level
    assert _both("[S a [VP x b VP] S]", [0, 1, 2], [0, -1, 1], ["a", "b", "c"], ["", "", "Z"]) == "( (S a (VP b)) (Z c))"
    # fragments: several top-level pieces get an unlabelled root
    assert _both("[S a S] b [NP c NP]", [0, 1, 2], [0, 1, 2], ["a", "b", "c"], ["", "", ""]) == "( (S a) b (NP c))"
    # one token: a bare word gets a root, a tagged one is its own root, a phrase is the root
    assert _both("a", [0], [0], ["a"], [""]) == "( a)"
    assert _both("a", [0], [0], ["a"], ["UH"]) == "(UH a)"
    assert _both("[S a S]", [0], [0], ["a"], [""]) == "(S a)"
    # walls are not leaves: leaf_word skips them
    assert _both("[S a b S]", [1, 2], [-1, 0, 1, -1], ["a", "b"], ["", "T"]) == "(S a (T b))"


def test_direct_penn_text_rejects_what_build_tree_cannot_read():
    import pytest

    from ranker.sources.alignment import BracketSyntaxError, bracket_penn

    with pytest.raises(BracketSyntaxError):
        bracket_penn("[S a b", [0, 1], ["a", "b"], [True, True])          # unclosed
    with pytest.raises(BracketSyntaxError):
        bracket_penn("[S a b c S]", [0, 1], ["a", "b"], [True, True])     # more leaves than words
    with pytest.raises(BracketSyntaxError):
        bracket_penn("[S a S]", [0, 1], ["a", "b"], [True, True])         # fewer
