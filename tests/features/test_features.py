"""Feature families (one parametrised test over every family), vectorizer, cut-off, store caching."""
import numpy as np
import pytest

from ranker.features import (FeatureConfigError, extract, family_names, feature_set_from_dict,
                      frequency_cutoff, from_bytes, load_feature_set, make_family,
                      to_bytes)
from ranker.store.records import Candidate, Forest, Link, Sentence
from ranker.trees.penn import parse_tree

HIGH = "( (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)) )"
LOW = "( (S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)) )"
RICH = ("( (S (NP (NP (DT the) (NN man)) (CC and) (NP (DT a) (NN dog))) (VP (VBD saw) (NP (NP (DT the) "
        "(NN cat)) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)) )")
COORD = "( (S (NP (NP (DT the) (NN man)) (CC and) (NP (DT a) (NN dog))) (VP (VBD ran)) (. .)) )"


def cand(text, rank=0, quality="full", links=(), scores=None, sid="s1"):
    return Candidate(sid, "test", rank, parse_tree(text, "<t>", 1), quality, scores or {}, links)


def forest(sid, *cands):
    words = cands[0].tree.words
    return Forest(Sentence(sid, "test", "d", 0, words, ("",) * len(words)), None, tuple(cands))


@pytest.mark.parametrize("name", family_names())
def test_every_family_yields_finite_named_values_and_is_deterministic(name):
    fam = make_family(name)
    if fam.needs_fit:
        fam.fit([Forest(Sentence("g", "test", "d", 0, (), ()), parse_tree(t, "<g>", 1), ())
                 for t in (HIGH, LOW, RICH, COORD)])
    c = cand(RICH, rank=2, quality="fragment", links=(Link(0, 2, "Ss*s"), Link(2, 4, "Os")),
             scores={"unused_words": 1.0, "disjunct_cost": 2.0, "link_cost": 5.0, "logprob": -7.5})
    words = c.tree.words
    c = c._replace(source_words=("LEFT-WALL", *words, "RIGHT-WALL"),
                   word_to_token=(-1, *range(len(words)), -1))
    if fam.needs_evidence:   # a second source's analyses of the sentence: here the candidate itself
        fam.begin_forest(forest("s1", c)._replace(evidence=(c,)))
    a, b = list(fam(c)), list(fam(c))
    assert a == b and a
    assert all(isinstance(k, str) and np.isfinite(v) for k, v in a)


def test_families_tell_attachments_apart():
    high, low = cand(HIGH), cand(LOW)
    emb = make_family("embedding/1")
    assert dict(emb(low)).get("embed:NP") == 1.0 and "embed:NP" not in dict(emb(high))
    rules = make_family("local_trees/1", {"parent": True})
    assert ("rule:VP->VBD NP PP^S", 1.0) in list(rules(high))
    assert ("rule:NP->NP PP^VP", 1.0) in list(rules(low))
    heid = make_family("heidorn/1")
    assert dict(heid(low))["heidorn"] < dict(heid(high))["heidorn"]


def test_coordination_quality_rank_and_links():
    co = dict(make_family("coordination/1")(cand(COORD)))
    assert co["coord:same"] == 1.0 and co["coord:NP:NP+NP"] == 1.0
    assert dict(make_family("quality/1")(cand(LOW, quality="timeout"))) == {"quality:timeout": 1.0}
    assert list(make_family("quality/1")(cand(LOW))) == []
    r = dict(make_family("source_rank/1")(cand(LOW, rank=3)))
    assert r["rank:log1p"] == pytest.approx(np.log(4)) and "rank:first" not in r
    lg = list(make_family("link_grammar/1")(cand(LOW, links=(Link(0, 2, "Ss*s"),),
                                                 scores={"link_cost": 4.0})))
    assert ("link:Ss", 1.0) in lg and ("linklen:S:2", 1.0) in lg and ("lgcost:link_cost", 4.0) in lg


def test_vectorizer_stacks_candidates_and_names_columns_stably():
    fams = [make_family("embedding/1"), make_family("source_rank/1")]
    forests = [forest("a", cand(HIGH, 0, sid="a"), cand(LOW, 1, sid="a")),
               Forest(Sentence("empty", "test", "d", 1, ("x",), ("",)), None, ()),
               forest("b", cand(LOW, 0, sid="b"))]
    m = extract(forests, fams)
    assert m.X.shape == (3, len(m.names)) and list(m.names) == sorted(m.names)
    assert m.offsets.tolist() == [0, 2, 3] and m.sentence_ids == ("a", "b")
    assert m.groups().tolist() == [0, 0, 1]
    col = m.names.index("embed:NP")
    assert m.X.tocsr()[:, col].toarray().ravel().tolist() == [0.0, 2.0, 2.0]  # "the man", "a telescope"
    back = from_bytes(to_bytes(m))
    assert back.names == m.names and (back.X.tocsr() != m.X.tocsr()).nnz == 0 and back.offsets.tolist() == [0, 2, 3]
    # Restricting to a model's index reorders columns and zero-fills unknown ones.
    R = m.restrict(["unknown", "embed:NP"]).toarray()
    assert R[:, 0].tolist() == [0, 0, 0] and R[:, 1].tolist() == [0, 2, 2]


def test_frequency_cutoff_counts_consistent_candidates_only():
    fams = [make_family("embedding/1"), make_family("source_rank/1")]
    m = extract([forest("a", cand(HIGH, 0, sid="a"), cand(LOW, 1, sid="a"))], fams)
    assert "embed:NP" not in frequency_cutoff(m, np.array([1.0, 0.0]), 1)
    assert "embed:NP" in frequency_cutoff(m, np.array([0.0, 1.0]), 1)
    assert "rank:first" in frequency_cutoff(m, np.array([1.0, 1.0]), 1)
    assert "rank:log1p" not in frequency_cutoff(m, np.array([1.0, 0.0]), 1)  # value 0 at rank 0


def test_feature_configs_are_checked(tmp_path):
    fs = load_feature_set("default")
    assert fs.cutoff == 2 and fs.families[0][0] == "local_trees/1"
    assert fs.version == load_feature_set("default").version
    other = feature_set_from_dict({"name": "default", "family": [{"name": "local_trees/1"}]})
    assert other.version != fs.version
    with pytest.raises(FeatureConfigError, match=r"f.toml: unknown feature family 'trees/9'"):
        feature_set_from_dict({"family": [{"name": "trees/9"}]}, "f.toml")
    with pytest.raises(FeatureConfigError, match="family 'local_trees/1': .*colour"):
        feature_set_from_dict({"family": [{"name": "local_trees/1", "colour": 1}]}, "f.toml")
    with pytest.raises(FeatureConfigError, match="cutoff must be an integer"):
        feature_set_from_dict({"cutoff": -1, "family": [{"name": "quality/1"}]}, "f.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [")
    with pytest.raises(FeatureConfigError, match="bad.toml"):
        load_feature_set(bad)


def _all(st, fileids=None):
    from ranker.pipeline.splits import select_split

    return select_split(st, "test", None, fileids=fileids)


def test_matrices_are_stored_by_content_and_not_extracted_twice(tmp_path):
    from ranker.pipeline.feature_cache import MATRIX_KIND, cached_matrix
    from ranker.store import Store

    fs = feature_set_from_dict({"name": "small", "family": [{"name": "embedding/1"},
                                                            {"name": "source_rank/1"}]})
    with Store.open(tmp_path / "s.sqlite") as st:
        f = forest("test/d/0", cand(HIGH, 0, sid="test/d/0"), cand(LOW, 1, sid="test/d/0"))
        st.add_sentences([f.sentence])
        st.add_candidates(f.candidates)
        m1 = cached_matrix(st, fs, _all(st), None)
        keys = st.artifact_keys(MATRIX_KIND)
        assert len(keys) == 1 and keys[0].startswith(f"{fs.version}/*/")
        payload, meta = st.get_artifact(MATRIX_KIND, keys[0])
        assert meta["rows"] == 2 and meta["feature_set"]["name"] == "small"
        assert cached_matrix(st, fs, _all(st), None).X.shape == m1.X.shape
        assert len(st.artifact_keys(MATRIX_KIND)) == 1   # read back, not extracted again
    with Store.open(tmp_path / "s.sqlite") as st:
        # The forest changed: its matrix is extracted again (issue 10: keyed by content).
        st.add_candidates([cand(LOW, 2, sid="test/d/0")])
        m2 = cached_matrix(st, fs, _all(st), None)
        assert m2.X.shape[0] == 3 and len(st.artifact_keys(MATRIX_KIND)) == 2
        m3 = cached_matrix(st, fs, _all(st), None, refresh=True)
        assert (m3.X.tocsr() != m2.X.tocsr()).nnz == 0


def test_a_matrix_key_reads_the_candidates_once_and_again_after_any_write(tmp_path):
    """Issue 45: a run keys a split's matrix more than once (GUM's held-out: as it is extracted, and as
    its rows are made), each a read of every candidate's text; the digests are read once while the
    store is unchanged, and afresh after a write on this connection or another, so a changed forest
    is never keyed by its old texts."""
    from ranker.pipeline.feature_cache import cached_matrix
    from ranker.store import Store

    fs = feature_set_from_dict({"name": "small", "family": [{"name": "source_rank/1"}]})
    with Store.open(tmp_path / "s.sqlite") as st:
        f = forest("test/d/0", cand(HIGH, 0, sid="test/d/0"), cand(LOW, 1, sid="test/d/0"))
        st.add_sentences([f.sentence])
        st.add_candidates(f.candidates)
        cached_matrix(st, fs, _all(st), None)
        reads = []
        st._conn.set_trace_callback(lambda sql: reads.append(sql) if "rank, tree FROM candidates" in sql else None)
        _, key = cached_matrix(st, fs, _all(st), None, keyed=True)   # (read afresh: the matrix was written)
        reads.clear()
        assert cached_matrix(st, fs, _all(st), None, keyed=True)[1] == key and reads == []
        st.add_candidates([cand(LOW, 2, sid="test/d/0")])                     # this connection's write
        m, changed = cached_matrix(st, fs, _all(st), None, keyed=True)
        assert changed != key and m.X.shape[0] == 3 and len(reads) == 1
        with Store.open(tmp_path / "s.sqlite") as other:                        # another connection's
            other.add_candidates([cand(HIGH, 3, sid="test/d/0")])
        m, again = cached_matrix(st, fs, _all(st), None, keyed=True)
        assert again not in (key, changed) and m.X.shape[0] == 4
        st._conn.set_trace_callback(None)


def test_shared_trees_and_worker_processes_give_the_same_matrix_as_one_candidate_at_a_time():
    fs = load_feature_set("default")
    links = (Link(0, 2, "Ss*s"), Link(2, 4, "Os"))
    forests = [forest(f"s{i}", *[cand(t, r, links=links[:r % 3], scores={"link_cost": float(r)},
                                      sid=f"s{i}") for r, t in enumerate([HIGH, LOW, HIGH, LOW, HIGH])])
               for i in range(5)]
    m = extract(forests, fs.build())
    # Reference: every candidate alone (a forest of one), so no tree is shared.
    alone = extract([forest(c.sentence_id, c) for f in forests for c in f.candidates], fs.build())
    assert alone.names == m.names and (alone.X.tocsr() != m.X.tocsr()).nnz == 0
    assert m.X.tocsr()[0].toarray().tolist() != m.X.tocsr()[2].toarray().tolist()  # same tree, other links/rank
    pooled = extract(forests, fs.build(), workers=2)
    assert pooled.names == m.names and (pooled.X.tocsr() != m.X.tocsr()).nnz == 0
    assert pooled.offsets.tolist() == m.offsets.tolist() and pooled.sentence_ids == m.sentence_ids


def test_subtrees_shared_between_linkages_give_the_same_matrix_as_separate_trees():
    # The store parses a sentence's candidates with one shared dict, so equal subtrees are one
    # object and node families compute them once; the rows must not change.
    texts = [HIGH, LOW, HIGH.replace("(NN man)", "(NNS man)"), LOW.replace("(VBD saw)", "(VBZ saw)")]
    shared: dict = {}
    trees = [parse_tree(t, "<t>", 1, shared=shared) for t in texts]
    assert trees[0].root.children[0].children[0] is trees[1].root.children[0].children[0]  # NP I
    shared_forest = forest("s1", *[Candidate("s1", "test", r, t, "full", {"link_cost": float(r)},
                                             (Link(0, 1 + r, "Ss"),)) for r, t in enumerate(trees)])
    separate = forest("s1", *[cand(t, r, links=(Link(0, 1 + r, "Ss"),), scores={"link_cost": float(r)})
                              for r, t in enumerate(texts)])
    for fs in (load_feature_set("default"), load_feature_set("lexical")):
        if any(f.needs_fit for f in fs.build()):
            continue
        a, b = extract([shared_forest], fs.build()), extract([separate], fs.build())
        assert a.names == b.names and (a.X.tocsr() != b.X.tocsr()).nnz == 0
        # each node family alone, one candidate at a time, gives the same properties
        for fam in fs.build():
            for c1, c2 in zip(shared_forest.candidates, separate.candidates):
                assert sorted(fam(c1)) == sorted(fam(c2))


@pytest.mark.slow
def test_stored_matrix_on_a_subset_of_files_and_in_worker_processes(tmp_path):
    from ranker.pipeline.feature_cache import MATRIX_KIND, cached_matrix
    from ranker.store import Store

    fs = feature_set_from_dict({"name": "small", "family": [{"name": "local_trees/1"},
                                                            {"name": "source_rank/1"}]})
    with Store.open(tmp_path / "s.sqlite") as st:
        for doc, k in (("a.mrg", 0), ("b.mrg", 1), ("b.mrg", 2)):
            sid = f"test/{doc}/{k}"
            second = HIGH if doc == "a.mrg" else LOW   # document a instantiates fewer properties
            f = forest(sid, cand(HIGH, 0, sid=sid), cand(second, 1, sid=sid))
            st.add_sentences([f.sentence._replace(document=doc, index=k)])
            st.add_candidates(f.candidates)
        part = cached_matrix(st, fs, _all(st, ["b*"]), None)
        assert part.sentence_ids == ("test/b.mrg/1", "test/b.mrg/2") and part.X.shape[0] == 4
        assert len(st.artifact_keys(MATRIX_KIND)) == 1  # the subset has its own key
        whole = cached_matrix(st, fs, _all(st), None)
        assert len(st.artifact_keys(MATRIX_KIND)) == 2
        for globs in (["b*"], ["a*"], ["a*", "b.mrg"]):
            sliced = cached_matrix(st, fs, _all(st, globs), None, workers=2, refresh=True)
            alone = cached_matrix(st, fs, _all(st, globs), None, refresh=True)
            assert sliced.names == alone.names and sliced.sentence_ids == alone.sentence_ids
            assert sliced.offsets.tolist() == alone.offsets.tolist()
            assert sliced.X.shape == alone.X.shape and (sliced.X.tocsr() != alone.X.tocsr()).nnz == 0
        assert len(cached_matrix(st, fs, _all(st, ["a*"]), None).names) < len(whole.names)
        pooled = cached_matrix(st, fs, _all(st), None, refresh=True, workers=2)
        assert pooled.names == whole.names and (pooled.X.tocsr() != whole.X.tocsr()).nnz == 0


def test_matrices_stored_before_the_faster_deflate_level_still_load():
    import io
    import json

    import numpy as np

    m = extract([forest("a", cand(HIGH, 0, sid="a"), cand(LOW, 1, sid="a"))],
                [make_family("embedding/1"), make_family("source_rank/1")])
    buf = io.BytesIO()   # what to_bytes wrote until 2026-11-23
    X = m.X.tocsr()
    np.savez_compressed(buf, data=X.data, indices=X.indices, indptr=X.indptr,
                        shape=np.array(X.shape), offsets=m.offsets,
                        names=np.array(json.dumps(m.names)), ids=np.array(json.dumps(m.sentence_ids)))
    for payload in (buf.getvalue(), to_bytes(m)):
        back = from_bytes(payload)
        assert back.names == m.names and back.sentence_ids == m.sentence_ids
        assert (back.X.tocsr() != m.X.tocsr()).nnz == 0 and back.offsets.tolist() == m.offsets.tolist()
