"""What families read from a tree's shared facts (``facts(t)``) instead of walking it themselves.

The words' forms lexical families name a word by (``TreeFacts.lexical``: heads/1, wproj/1, word/1,
...: its tag, its lower-cased form or its word class, several times a node) are made once per tree
(the words' forms once per sentence) and must say what each definition says of every word, on real
BLLIP trees and on a tree with words that have no tag. embedding/1 reads the tree's phrases in
pre-order and must count what its definition counts.
"""
import gzip
import io

from ranker.features.base import facts, word_forms
from ranker.features.wordclass import word_class
from ranker.pipeline.apply.lists import block_forest
from ranker.sources.nbest import stream_blocks
from ranker.trees.penn import parse_tree


def _forests(bllip_lists, n):
    with gzip.open(bllip_lists / "nbest-test.txt.gz", "rb") as raw:
        for k, block in enumerate(stream_blocks(io.TextIOWrapper(raw, encoding="utf-8"), "test", "bllip")):
            if k == n:
                return
            yield block_forest(block, k, "test")


def test_each_words_forms_are_its_tag_lower_case_and_class(bllip_lists):
    checked = 0
    for forest in _forests(bllip_lists, 20):
        for cand in forest.candidates[:5]:
            t = cand.tree
            forms = facts(t).lexical()
            assert forms["tag"] == [tag or "WORD" for tag in t.tags()]
            assert forms["word"] == [w.lower() for w in t.words]
            assert forms["class"] == [word_class(w) for w in t.words]
            checked += len(t.words)
    assert checked > 1000


def test_words_without_a_tag_are_named_word_and_forms_follow_the_sentence():
    t = parse_tree("(S (NP John Smith) (VP (VBD Left) (NP (CD 1,987) (NNS telescopes))))")
    forms = facts(t).lexical()
    assert forms["tag"] == ["WORD", "WORD", "VBD", "CD", "NNS"]
    assert forms["word"] == ["john", "smith", "left", "1,987", "telescopes"]
    assert forms["class"] == ["Xx", "Xx", "Xx", "d,d", "x~pes"]
    # another sentence's words get their own forms, not the last sentence's
    u = parse_tree("(S (NP (PRP We)) (VP (VBD saw)))")
    assert facts(u).lexical()["word"] == ["we", "saw"]
    assert word_forms(t.words)[0] == forms["word"] and word_forms(u.words)[0] == ["we", "saw"]


def _embedding_by_definition(t):
    """embedding/1 by its definition: each phrase, with the number of phrases of its category above it."""
    from collections import Counter

    from ranker.features.base import CATEGORY

    out = Counter()
    todo = [(t.root, ())]
    while todo:
        n, above = todo.pop()
        if len(n.children) == 1 and type(n.children[0]) is int:
            continue
        k = CATEGORY[n.label]
        d = above.count(k)
        if d:
            out[f"embed:{k}"] += 1.0
            out[f"embed:{k}:{min(d, 4)}"] += 1.0
        todo.extend((c, above + (k,)) for c in n.children if type(c) is not int)
    return out


def test_embedding_counts_the_phrases_of_a_category_open_above_each_phrase(bllip_lists):
    # embedding/1 reads the tree's phrases in pre-order from facts() and closes a phrase by spans;
    # unary chains (a phrase over one phrase of the same span), words standing under phrases and
    # deep nesting are where spans could mislead
    from collections import Counter

    from ranker.features.registry import make_family
    from ranker.store.records import Candidate

    fam = make_family("embedding/1")
    trees = [c.tree for forest in _forests(bllip_lists, 20) for c in forest.candidates[:10]]
    trees += [parse_tree("(S (NP (NP (NP John) (PP of (NP (NP x) y))) (NP z)) (VP (VP (VB go)) (S (S (VP w)))))"),
              parse_tree("(S (S (S (S (S (S (NN a)))))) (NP (NP (NP (NP (NP (NP b)))))))"),
              parse_tree("(NN word)")]
    fired = 0
    for t in trees:
        got = Counter()
        for name, value in fam(Candidate("s", "x", 0, t, "full", {})):
            got[name] += value
        assert got == _embedding_by_definition(t)
        fired += len(got)
    assert fired > 100
