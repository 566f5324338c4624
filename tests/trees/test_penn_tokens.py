"""Penn text as ``iter_trees`` reads it: a bracket over one word is one token, messages still place every error.

The reader takes ``(TAG word)`` and ``(LABEL`` as single tokens (half the tokens of a tree are its
preterminals' four), so the loop turns half as often. The trees are the ones bracket-by-bracket
reading gives (built here by hand with :func:`~ranker.trees.tree.node`), whatever the whitespace,
and a message names the line and column of the bracket or token at fault as before: the column
counts the text's own characters, never the reader's tokens.
"""
import pytest

from ranker.trees.penn import TreeSyntaxError, iter_trees, parse_tree
from ranker.trees.tree import Tree, node


def test_a_bracket_over_one_word_is_read_as_any_bracket_whatever_the_whitespace():
    expected = Tree(node("S", [node("NP", [node("DT", [0]), node("NN", [1])]), node("VP", [node("VBD", [2])])]),
                    ("the", "dog", "barked"))
    for text in ("(S (NP (DT the) (NN dog)) (VP (VBD barked)))",
                 "(S(NP(DT the)(NN dog))(VP(VBD barked)))",
                 "( S (NP ( DT  the ) (NN\ndog\n)) (VP (VBD barked )) )",
                 "(S\n  (NP (DT the)\n      (NN dog))\n  (VP (VBD barked)))"):
        assert parse_tree(text) == expected, text


def test_a_phrase_over_bare_words_and_the_empty_root_read_as_before():
    got = parse_tree("( (S (NP John Smith) (VP (VBD left))) )")
    assert got.words == ("John", "Smith", "left")
    assert got.root.label == "" and got.root.children[0].children[0] == node("NP", [0, 1])
    # a whole tree of one bracket over one word
    assert list(iter_trees("(X y) (Z w)")) == [Tree(node("X", [0]), ("y",)), Tree(node("Z", [0]), ("w",))]


def test_unlabelled_text_reads_every_token_as_a_word():
    got = parse_tree("((The prospect) (of cutting))", labelled=False)
    assert got.words == ("The", "prospect", "of", "cutting")
    assert got.root == node("", [node("", [0, 1]), node("", [2, 3])])


CASES = [
    # (text, message): the column is where the bracket or token at fault stands
    ("(S (NP (DT the) (NN dog)) (VBD barked)))", "<t>:1:40: unmatched ')'"),
    ("(S (DT the) (X) (NN dog))", "<t>:1:13: bracket (X) has no word or child"),
    ("(S (DT the) ( ) (NN dog))", "<t>:1:13: empty bracket ()"),
    ("(S (DT the))\n(S (DT a) (NN b)) stray", "<t>:2:19: stray text 'stray' outside any bracket"),
    ("(S (DT the) (NN dog)\n(VP (VBD barked))", "<t>:1:1: unclosed bracket: missing ')'"),
    ("(S\n  (NP (DT the) (NN dog))\n  (VP (VBD barked) (X)))", "<t>:3:20: bracket (X) has no word or child"),
    ("(S (NP (DT the) (NN dog)) (VP (VBD barked) (NP (DT a)", "<t>:1:44: unclosed bracket: missing ')'"),
]


@pytest.mark.parametrize("text,message", CASES)
def test_errors_name_the_line_and_column_of_the_fault(text, message):
    with pytest.raises(TreeSyntaxError) as e:
        list(iter_trees(text, "<t>"))
    assert str(e.value) == message


def test_with_lines_gives_the_line_of_each_trees_first_bracket():
    text = "(S (DT a))\n\n   (X y)\n(S\n (NP (DT the) (NN dog)))"
    assert [line for line, _ in iter_trees(text, with_lines=True, line_offset=10)] == [11, 13, 14]
