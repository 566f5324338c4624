"""Gold dependencies in the store, loaded from NLTK's dependency_treebank."""
import pytest

from ranker.errors import RankerError
from ranker.sources.dependencies import dependency_gold, ensure_dependency_gold
from ranker.sources.treebank import store_nltk_files
from ranker.store import Store, StoreError
from ranker.trees.dependencies import Dependency, dependencies_from_conll


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as st:
        store_nltk_files(st, "treebank", fileids=["wsj_0001.mrg", "wsj_0002.mrg"])
        yield st


def test_loaded_once_and_equal_to_the_corpus(store):
    from nltk.corpus import dependency_treebank

    assert ensure_dependency_gold(store) == 3
    assert ensure_dependency_gold(store) == 0            # marker: not loaded twice
    want = dependencies_from_conll(dependency_treebank.parsed_sents("wsj_0001.dp")[0])
    assert store.gold_dependencies("treebank/wsj_0001.mrg/0") == want
    assert len(want) == len(store.sentence("treebank/wsj_0001.mrg/0").tokens)


def test_bad_dependencies_are_refused(store):
    sid = "treebank/wsj_0002.mrg/0"
    n = len(store.sentence(sid).tokens)
    with pytest.raises(StoreError, match="one head to each"):
        store.add_gold_dependencies(sid, [Dependency(-1, 0, "")])
    with pytest.raises(StoreError, match="outside the sentence"):
        store.add_gold_dependencies(sid, [Dependency(n + 5, i, "") for i in range(n)])
    assert store.gold_dependencies(sid) is None


def test_token_mismatch_with_the_dependency_corpus_is_an_error(store):
    s = store.sentence("treebank/wsj_0002.mrg/0")
    wrong = s._replace(tokens=("Not",) + s.tokens[1:])
    with pytest.raises(RankerError, match="words differ"):
        dependency_gold([wrong])
