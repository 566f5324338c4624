"""A feature family of one's own, done once as docs/extending.md says: registered, named in a feature
configuration file, extracted from real forests in a real store by the stage ``ranker run`` uses,
and applied through a model's columns; and what a wrong ``children_only`` does there.

The forests are real BLLIP 50-best lists of the WSJ sample (``../shared/nbest``), stored as
``ranker apply --lists`` reads them.
"""
import gzip
import io
from collections import Counter

import numpy as np
import pytest

from ranker.features import registry
from ranker.features.applying import ModelColumns, children_only_conflicts
from ranker.features.base import NodeFamily, cat
from ranker.features.feature_sets import load_feature_set
from ranker.features.vectorizer import extract
from ranker.pipeline.apply.lists import block_forest
from ranker.sources.nbest import stream_blocks
from ranker.trees.transforms import base_label


class ParentLabels(NodeFamily):
    """The toy: ``toy:LABEL^PARENT`` for each phrase, and the tree's length in words.

    It reads a node's label and its parent's category only, so it may claim ``children_only``.
    """

    children_only = True

    def node_properties(self, node, up, tree):
        c = node.children
        if len(c) == 1 and type(c[0]) is int:   # a preterminal: no property
            return ()
        return ((f"toy:{cat(node)}^{up}", 1.0),)

    def tree_properties(self, tree):
        return (("toy:words", float(len(tree.words))),)


class FirstWord(NodeFamily):
    """A family that claims ``children_only`` wrongly: it reads the first word of each phrase."""

    children_only = True

    def node_properties(self, node, up, tree):
        c = node.children
        if len(c) == 1 and type(c[0]) is int:
            return ()
        return ((f"first:{cat(node)}:{tree.words[node.start].lower()}", 1.0),)


@pytest.fixture
def toy_families(monkeypatch):
    """Both families registered as a plug-in would be (:func:`ranker.features.register`), for this test only."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    registry.register("toy_parents/1")(ParentLabels)
    registry.register("toy_first_word/1")(FirstWord)


@pytest.fixture(scope="module")
def forests(bllip_lists):
    """The first 12 lists of the test split (600 candidates)."""
    out = []
    with gzip.open(bllip_lists / "nbest-test.txt.gz", "rb") as raw:
        for k, block in enumerate(stream_blocks(io.TextIOWrapper(raw, encoding="utf-8"), "test", "bllip")):
            if k == 12:
                break
            out.append(block_forest(block, len(out), "test"))
    return out


def _expected(tree) -> Counter:
    """The toy's properties of one tree, by a plain walk of it (no sharing, no family code)."""
    got = Counter({"toy:words": len(tree.words)})

    def walk(node, up):
        if len(node.children) == 1 and isinstance(node.children[0], int):
            return
        label = base_label(node.label) or "ROOT"
        got[f"toy:{label}^{up}"] += 1
        for child in node.children:
            if not isinstance(child, int):
                walk(child, label)

    walk(tree.root, "TOP")
    return got


def test_a_toy_family_is_extracted_from_stored_forests_by_the_features_stage(toy_families, forests, tmp_path):
    from ranker.pipeline.config import FeaturesSection
    from ranker.pipeline.feature_cache import MATRIX_KIND
    from ranker.pipeline.splits import select_split
    from ranker.pipeline.stages import StageContext, extract_features
    from ranker.store import Store

    (tmp_path / "toy.toml").write_text('name = "toy"\ncutoff = 1\n\n[[family]]\nname = "toy_parents/1"\n')
    with Store.open(tmp_path / "s.sqlite") as st:
        st.add_sentences([f.sentence for f in forests])
        st.add_candidates([c for f in forests for c in f.candidates])
        sel = select_split(st, "lists", None)
        ctx = StageContext(st, source="lists", workers=1)
        m = extract_features(ctx, FeaturesSection(set=str(tmp_path / "toy.toml")), sel)
        assert len(st.artifact_keys(MATRIX_KIND)) == 1                     # stored, keyed by content
    cands = [c for f in forests for c in f.candidates]
    assert m.X.shape[0] == len(cands) == 600 and m.sentence_ids == tuple(f.sentence.id for f in forests)
    rows = m.X.tocsr()
    want = [_expected(c.tree) for c in cands]
    assert m.names == tuple(sorted(set().union(*want)))                 # the columns: sorted property names
    for k, (c, w) in enumerate(zip(cands, want)):
        row = rows[k]
        assert {m.names[j]: v for j, v in zip(row.indices, row.data)} == w, (k, c.sentence_id)
    assert "toy:NP^S" in m.names and "toy:S^TOP" in m.names
    # a model's columns (ranker apply's path: children_only families kept per shape) give the same
    families = load_feature_set(tmp_path / "toy.toml").build()
    assert [type(f) for f in families] == [ParentLabels]
    names = m.names[::2] + ("toy:never^seen",)
    applied = ModelColumns(families, names).extract(forests)
    assert (applied.X.tocsr() != m.restrict(names).tocsr()).nnz == 0 and applied.X.nnz > 0
    assert children_only_conflicts(ParentLabels(), forests) == []       # the claim holds on these trees


def test_a_wrong_children_only_gives_other_columns_when_applied_and_is_told(toy_families, forests):
    wrong = FirstWord()
    trained = extract(forests, [wrong])
    names = trained.names
    applied = ModelColumns([wrong], names).extract(forests)
    # silently wrong: same shape, no error, but the properties of the first node of each shape
    # stand for every later node of that shape
    assert applied.X.shape == trained.X.shape
    assert (applied.X.tocsr() != trained.restrict(names).tocsr()).nnz > 0
    # what tells: the family says two things under one shape on real trees
    assert children_only_conflicts(wrong, forests)
    # without the claim, the model's columns are training's matrix again
    honest = FirstWord()
    honest.children_only = False
    again = ModelColumns([honest], names).extract(forests)
    assert (again.X.tocsr() != trained.restrict(names).tocsr()).nnz == 0
    assert np.array_equal(again.offsets, trained.offsets)
