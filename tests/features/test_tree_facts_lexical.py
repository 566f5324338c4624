"""The words' forms lexical families name a word by, made once per tree (``TreeFacts.lexical``).

Each lexical family (heads/1, wproj/1, word/1, ...) names a word by its tag, its lower-cased form or
its word class, several times a node; the lists are made once per tree (the words' forms once per
sentence) and must say what each definition says of every word, on real BLLIP trees and on a tree
with words that have no tag.
"""
import gzip
import io

from ranker.features.base import facts, word_forms
from ranker.features.wordclass import word_class
from ranker.pipeline.apply_lists import block_forest
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
