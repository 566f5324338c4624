"""The model's columns extracted straight (``ranker apply``'s path) equal training's matrix cut to them.

Over real BLLIP 50-best lists of the WSJ sample, with every tree family of the Charniak-Johnson
set: the matrix :class:`ModelColumns` builds is ``extract(...).restrict(names)`` array for array
(column ids, values, the parts they are kept in, row and sentence offsets), candidate by
candidate, so a model scores and selects exactly as ``ranker select`` does.
"""

import numpy as np
import pytest

from ranker.features.applying import ModelColumns, children_only_conflicts
from ranker.features.feature_sets import load_feature_set
from ranker.features.vectorizer import extract
from bllip_test_lists import first_lists


@pytest.fixture(scope="module")
def forests(bllip_lists):
    """The first 30 lists of the test split and of the held-out split (1,500 candidates each)."""
    return first_lists(bllip_lists, 30)


def _same(a, b):
    for p, q in zip(a.parts, b.parts):
        assert np.array_equal(p.indptr, q.indptr)
        assert np.array_equal(p.indices, q.indices)
        assert (p.data is None) == (q.data is None)
        if p.data is not None:
            assert p.data.dtype == q.data.dtype and np.array_equal(p.data, q.data)
    assert a.shape == b.shape


@pytest.mark.parametrize("features", [pytest.param("bllip-rich", marks=pytest.mark.slow), "reranker"])
def test_the_models_columns_are_trainings_matrix_restricted(forests, features):
    families = load_feature_set(features).build()
    full = extract(forests, families)
    # a model's index: a third of what the data instantiate (real values among them) and names they lack
    names = sorted(full.names[::3] + ("lp:rel", "heidorn", "rule:never->seen", "zzz:absent"))
    names = list(dict.fromkeys(names))
    fast = ModelColumns(families, names).extract(forests)
    _same(full.restrict(names), fast.X)
    assert np.array_equal(full.offsets, fast.offsets) and full.sentence_ids == fast.sentence_ids
    assert fast.X.nnz > 0 and any(p.data is not None and p.nnz for p in fast.X.parts)
    # a candidate's score is the same number either way
    w = np.random.default_rng(0).normal(size=len(names))
    assert np.array_equal(full.restrict(names) @ w, fast.X @ w)


def test_workers_give_the_same_matrix(forests):
    """Twelve lists are as good a test as sixty: they go out in twelve runs of one sentence over the
    two processes (``_spans``: at least eight runs a worker), so the stacking of runs is tested;
    as in tests/features/test_compiled.py (issue 47, item 5)."""
    families = load_feature_set("bllip-rich").build()
    names = sorted(extract(forests[:5], families).names)
    one = ModelColumns(families, names).extract(forests[:12])
    two = ModelColumns(families, names).extract(forests[:12], workers=2)
    _same(one.X, two.X)
    assert np.array_equal(one.offsets, two.offsets) and one.sentence_ids == two.sentence_ids


@pytest.mark.slow   # quick tier under a minute (issue 47, item 5): CI runs it
def test_families_that_read_only_the_childrens_shape_say_one_thing_per_shape(forests):
    """ModelColumns keeps what a children_only family says per shape across sentences: every family
    that claims it (with its default options) says the same of every node of a shape, over 3,000
    trees of 60 sentences; a family reading words (heads/1) does not, so the check can fail."""
    from ranker.features.registry import family_class, family_names, make_family

    claims = [name for name in family_names() if getattr(family_class(name), "children_only", False)]
    assert {"local_trees/1", "ngram/1", "sibling_ngrams/1", "colenpar/1"} <= set(claims)
    for name in claims:
        assert children_only_conflicts(make_family(name), forests) == [], name
    for features in ("bllip-rich", "reranker"):   # and with the shipped sets' options
        for fam in load_feature_set(features).build():
            if getattr(fam, "children_only", False):
                assert children_only_conflicts(fam, forests) == [], (features, fam.name)
    assert children_only_conflicts(make_family("heads/1"), forests[:5])
