"""Gold sentences and chunks from the real NLTK corpora; splits; a missing corpus."""
import nltk
import pytest

from ranker.errors import RankerError
from ranker.store.splits import document_filter, get_split
from ranker.sources.nltk_corpora import require_corpus
from ranker.sources.treebank import CONLL2000_CHUNK_TYPES, conll2000_sentences


@pytest.mark.slow
def test_default_splits_have_the_expected_sizes(treebank_sample):
    sizes = {name: sum(get_split(name).contains(g.sentence.document) for g in treebank_sample)
             for name in ("train", "heldout", "test")}
    assert sizes == {"train": 3068, "heldout": 433, "test": 413}
    assert len(treebank_sample) == 3914


@pytest.mark.slow
def test_tokens_are_gold_leaves_without_empty_elements(treebank_sample):
    g = treebank_sample[0]
    assert g.sentence.id == "treebank/wsj_0001.mrg/0"
    assert g.sentence.tokens[:2] == ("Pierre", "Vinken") and g.sentence.tokens[-3:] == ("Nov.", "29", ".")
    assert g.tree.words == g.sentence.tokens
    for g in treebank_sample:
        assert "-NONE-" not in g.sentence.tags
        assert len(g.sentence.tags) == len(g.sentence.tokens) and all(g.sentence.tags)
    # wsj_0003.mrg/0 holds traces (*T*, 0): none survive
    g = next(x for x in treebank_sample if x.sentence.id == "treebank/wsj_0003.mrg/0")
    assert not any(t.startswith("*") or t == "0" for t in g.sentence.tokens)


@pytest.mark.slow
def test_conll2000_chunks():
    items = list(conll2000_sentences())
    assert len(items) == 8936
    sent, ann = items[0]
    assert sent.id == "conll2000/train.txt/0" and sent.tokens[:3] == ("Confidence", "in", "the")
    assert [items[i][0].document for i in (0, 19, 20, 8935)] == \
        ["train.txt#0000", "train.txt#0000", "train.txt#0001", "train.txt#0446"]
    assert not any(w in ("(", ")") for s, _ in items for w in s.tokens)     # PTB escapes
    assert any("-LRB-" in s.tokens for s, _ in items)
    assert ann.kind == "chunks"
    assert [tuple(b[:3]) for b in ann.brackets[:4]] == [("NP", 0, 1), ("PP", 1, 2), ("NP", 2, 4), ("VP", 4, 9)]


def test_unknown_split_names_the_known_ones():
    with pytest.raises(RankerError, match="heldout"):
        document_filter("treebank", "dev")


def test_missing_corpus_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(RankerError, match="python -m nltk.downloader .*treebank"):
        require_corpus("treebank")


@pytest.mark.slow
def test_conll2000_keeps_every_chunk_type():
    """Issue 10: NLTK's reader keeps NP, VP and PP only unless the chunk types are passed."""
    from collections import Counter

    from nltk.corpus import conll2000

    starts = Counter(tag[2:] for sent in conll2000.iob_sents("train.txt") for _, _, tag in sent
                     if tag.startswith("B-"))
    got = Counter(b.label for _, ann in conll2000_sentences() for b in ann.brackets)
    assert got == starts
    assert set(got) == set(CONLL2000_CHUNK_TYPES)
    assert got["SBAR"] == 2207 and got["ADVP"] == 4227 and got["UCP"] == 2
