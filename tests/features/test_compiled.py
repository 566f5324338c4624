"""numba's loops name the same properties as the Python families: ``ranker apply``'s matrix is the same either way.

:class:`ModelColumns` with the compiled families (:mod:`ranker.features.compiled`, the ``fast``
extra) against the Python families alone, array for array, over real BLLIP 50-best lists of the
WSJ sample, each compiled family alone with the options it accepts, trees with untagged words and
names longer than the loops' first buffer; and without numba (``RANKER_KERNELS=scipy``) the
Python families run.
"""

import numpy as np
import pytest

try:
    import numba  # noqa: F401
except ModuleNotFoundError:
    pytest.fail("numba is not installed: pip install -e '.[test]' installs the fast extra", pytrace=False)

from ranker.features.applying import ModelColumns  # noqa: E402
from ranker.features.compiled import COMPILED, kernels  # noqa: E402
from ranker.features.feature_sets import load_feature_set  # noqa: E402
from ranker.features.registry import make_family  # noqa: E402
from ranker.features.vectorizer import extract  # noqa: E402
from bllip_test_lists import first_lists  # noqa: E402
from ranker.store.records import Candidate, Forest, Sentence  # noqa: E402
from ranker.trees.penn import parse_tree  # noqa: E402


@pytest.fixture(scope="module")
def forests(bllip_lists):
    """The first 25 lists of the test split and of the held-out split (1,250 candidates each)."""
    return first_lists(bllip_lists, 25)


def _same(a, b):
    """Two CandidateMatrix the same array for array."""
    for p, q in zip(a.X.parts, b.X.parts):
        assert np.array_equal(p.indptr, q.indptr)
        assert np.array_equal(p.indices, q.indices)
        assert (p.data is None) == (q.data is None)
        if p.data is not None:
            assert p.data.dtype == q.data.dtype and np.array_equal(p.data, q.data)
    assert a.X.shape == b.X.shape
    assert np.array_equal(a.offsets, b.offsets) and a.sentence_ids == b.sentence_ids


def _both(families, names, forests):
    """The matrix with the compiled families and with the Python families alone (and the compiled columns)."""
    fast = ModelColumns(families, names, compiled=True)
    slow = ModelColumns(families, names, compiled=False)
    assert slow.compiled is None
    return fast.extract(forests), slow.extract(forests), fast


@pytest.mark.parametrize("features", [pytest.param("bllip-rich", marks=pytest.mark.slow), "reranker"])
def test_compiled_and_python_families_give_one_matrix(forests, features):
    families = load_feature_set(features).build()
    full = extract(forests, families)
    # a model's index: a third of what the data instantiate and names they lack
    names = list(dict.fromkeys(sorted(full.names[::3] + ("heidorn", "HV:never:1:--", "zzz:absent"))))
    fast, slow, cols = _both(families, names, forests)
    assert cols.compiled is not None and len(cols.compiled.taken) >= 3
    _same(fast, slow)
    _same(fast, type(fast)(full.restrict(names), full.offsets, tuple(names), full.sentence_ids))
    assert fast.X.nnz > 100_000


# Each compiled family alone, with the shipped options and others it accepts.
FAMILIES = [
    ("edges/1", {}), ("edges/1", {"words": False}),
    ("head_deps/1", {}), ("head_deps/1", {"words": False}),
    ("rule/1", {}),
    ("heads/1", {}), ("heads/1", {"lexical": ["tag", "word"]}), ("heads/1", {"lexical": ["class"], "two_levels": False}),
    ("head_tree/1", {}), ("head_tree/1", {"lexical": ["class", "tag", "word"]}),
    ("ngram_tree/1", {}),
    ("heavy/1", {}),
    ("copar/1", {}), ("copar/1", {"depth": 2}),
    ("word/1", {}), ("word/1", {"ancestors": [2, 3, 4], "lexical": ["tag", "word"]}),
    ("wproj/1", {}), ("wproj/1", {"lexical": ["class"]}),
    ("edges/2", {}), ("edges/2", {"lexical": ["tag", "word", "class"]}),
    ("neighbours/1", {}), ("neighbours/1", {"before": 1}),
    ("embedding/1", {}),
]


@pytest.mark.parametrize("name,options", FAMILIES, ids=[f"{n}{o or ''}" for n, o in FAMILIES])
def test_each_compiled_family_names_what_the_python_family_names(forests, name, options):
    fam = make_family(name, dict(options))
    few = forests[:6] + forests[25:31]
    names = extract(few, [fam]).names
    assert len(names) > 3
    fast, slow, cols = _both([fam], names, few)
    assert [f.name for f in cols.compiled.taken] == [name]
    _same(fast, slow)
    assert fast.X.nnz > 0


def test_every_compiled_family_is_tested():
    assert {n for n, _ in FAMILIES} == set(COMPILED)


def test_options_the_loops_do_not_have_stay_in_python(forests):
    """rule/1 with three ancestors or lexical heads, ngram_tree/1 with words: the Python family runs, same matrix."""
    families = [make_family("rule/1", {"ancestors": 3}), make_family("rule/1", {"lexical": ["word"]}),
                make_family("ngram_tree/1", {"words": True}), make_family("heavy/1")]
    names = extract(forests[:4], families).names
    fast, slow, cols = _both(families, names, forests[:4])
    assert [f.name for f in cols.compiled.taken] == ["heavy/1"]
    _same(fast, slow)


def _forest(trees: list[str], number: int = 0) -> Forest:
    got = [parse_tree(t) for t in trees]
    sid = f"made/{number}"
    words = got[0].words
    sentence = Sentence(sid, "made", "made", number, tuple(words), tuple(x or "" for x in got[0].tags()))
    return Forest(sentence, None, tuple(Candidate(sid, "made", r, t, "full", {"logprob": -10.0 - r})
                                        for r, t in enumerate(got)))


def test_untagged_words_long_names_and_unusual_labels():
    """Words straight under a phrase (no tag: ``None`` in some names, ``WORD`` in others), a word of
    20,000 characters (names longer than the loops' buffer: the forest runs again with room), labels
    spelt as the loops' literals (``TOP``, ``W``, ``WORD``) and non-ASCII words."""
    long = "x" * 20_000
    forests = [
        _forest(["(S (NP John Smith) (VP (VBD saw) (NP (DT the) (NN dog))) (. .))",
                 "(S (NP (NNP John) (NNP Smith)) (VP saw (NP the dog)) (. .))",
                 "(S (NP John) (NP Smith) (VP (VBD saw) (NP (DT the) (NN dog)) (. .)))"]),
        _forest([f"(TOP (W (WORD Zoë) (CC and) (W Ünal)) (VP (VB {long}) (CONJP (CC and)) (VP (VB ran) (, ,))))",
                 f"(TOP (W (WORD Zoë) (CC and) (W Ünal)) (VP (VB {long}) (CONJP (CC and)) (VP ran (, ,))))"], 1),
    ]
    families = load_feature_set("bllip-rich").build()
    names = extract(forests, families).names
    assert any(len(n.encode()) > 20_000 for n in names)
    fast, slow, cols = _both(families, names, forests)
    _same(fast, slow)
    # and with no room at all for the columns at first
    cols.compiled.out = np.empty(1, dtype=np.int32)
    cols.compiled.buf = np.empty(1, dtype=np.uint8)
    _same(cols.extract(forests), slow)


def test_workers_give_the_same_matrix(forests):
    families = load_feature_set("bllip-rich").build()
    names = extract(forests[:5], families).names
    one = ModelColumns(families, names, compiled=True).extract(forests[:12])
    two = ModelColumns(families, names, compiled=True).extract(forests[:12], workers=2)
    _same(one, two)


def test_without_numba_the_python_families_run(monkeypatch, forests):
    monkeypatch.setenv("RANKER_KERNELS", "scipy")
    assert kernels() is None
    families = load_feature_set("bllip-rich").build()
    names = extract(forests[:3], families).names
    assert ModelColumns(families, names).compiled is None
    with pytest.raises(ValueError, match="numba"):
        ModelColumns(families, names, compiled=True)
    monkeypatch.delenv("RANKER_KERNELS")
    assert ModelColumns(families, names).compiled is not None
