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
