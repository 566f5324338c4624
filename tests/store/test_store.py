"""The store on a real SQLite file: round trips, idempotent writes, consistent sets, versions."""
import sqlite3

import pytest

from ranker.store import (Annotation, Bracket, BracketCounts, Candidate, Link, SchemaVersionError, Sentence, Store,
                          StoreError)
from ranker.trees.penn import parse_tree


def _sent(doc, i, words):
    toks = tuple(words.split())
    return Sentence(f"treebank/{doc}/{i}", "treebank", doc, i, toks, tuple("NN" for _ in toks))


S1 = _sent("wsj_0002.mrg", 0, "dogs bark loudly")
S0 = _sent("wsj_0001.mrg", 1, "cats sleep")
S_TEST = _sent("wsj_0180.mrg", 0, "birds sing")


def _cand(sid, rank, penn, source="lg", quality="full", **kw):
    return Candidate(sid, source, rank, parse_tree(penn), quality, {"link_cost": float(rank)}, **kw)


A = "(S (NP (NN dogs)) (VP (NN bark) (NN loudly)))"
B = "(S (NP (NN dogs) (NN bark)) (NN loudly))"
C = "(S (NN dogs) (NN bark) (NN loudly))"


@pytest.fixture
def st(tmp_path):
    with Store.open(tmp_path / "sub" / "s.sqlite") as s:
        s.add_sentences([S1, S0, S_TEST])
        yield s


def test_open_creates_file_in_wal_mode(tmp_path):
    path = tmp_path / "a" / "b" / "s.sqlite"
    with Store.open(path):
        pass
    assert path.exists()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sentences_in_corpus_order_and_split(st):
    assert [s.id for s in st.sentences()] == [S0.id, S1.id, S_TEST.id]
    assert [s.id for s in st.sentences("treebank", "test")] == [S_TEST.id]
    assert [s.id for s in st.sentences("treebank", fileids="wsj_000*")] == [S0.id, S1.id]
    st.add_sentences([S1, S0])  # idempotent
    assert len(st.sentences()) == 3


def test_candidates_round_trip_with_links_words_and_scores(st):
    c = _cand(S1.id, 0, A, links=(Link(0, 2, "Wd"), Link(1, 2, "S")),
              source_words=("LEFT-WALL", "dogs.n", "bark.v", "loudly.e"), word_to_token=(-1, 0, 1, 2), unmapped=1)
    st.add_candidates([c, _cand(S1.id, 1, B, quality="fragment")])
    st.add_gold(S1.id, parse_tree(A))
    f = st.forest(S1.id)
    assert f.sentence == S1 and f.gold == parse_tree(A)
    assert f.candidates[0] == c
    assert [x.rank for x in f.candidates] == [0, 1]
    assert f.candidates[1].quality == "fragment"


def test_candidate_trees_share_one_tree_per_text_in_forest_order(st):
    st.add_candidates([_cand(S1.id, 0, A), _cand(S1.id, 1, B), _cand(S1.id, 2, A),
                       _cand(S1.id, 0, C, source="other")])
    got = st.candidate_trees(S1.id)
    assert [(s, r) for s, r, _ in got] == [("lg", 0), ("lg", 1), ("lg", 2), ("other", 0)]
    assert [t for _, _, t in got] == [parse_tree(t) for t in (A, B, A, C)]
    assert got[0][2] is got[2][2]
    assert [r for _, r, _ in st.candidate_trees(S1.id, "lg")] == [0, 1, 2]
    assert st.candidate_trees(S0.id) == []


def test_add_candidates_is_idempotent_and_replace_forest_drops_stale_ranks(st):
    cs = [_cand(S1.id, k, t) for k, t in enumerate([A, B, C])]
    st.add_candidates(cs)
    st.add_candidates(cs)
    assert st.forest(S1.id).candidates == tuple(cs)
    st.replace_forest(S1.id, "lg", cs[:1])
    assert st.forest(S1.id).candidates == tuple(cs[:1])


def test_gold_must_have_the_sentence_tokens(st):
    with pytest.raises(StoreError, match="leaves"):
        st.add_gold(S1.id, parse_tree("(S (NN cats) (NN sleep))"))


def test_forests_keep_sentences_without_candidates(st):
    st.add_candidates([_cand(S1.id, 0, A)])
    forests = list(st.forests("treebank", "train"))
    assert [(f.sentence.id, len(f.candidates)) for f in forests] == [(S0.id, 0), (S1.id, 1)]
    assert list(st.forests("treebank", "train", source="other"))[1].candidates == ()


def test_batch_rolls_back_as_a_whole(st):
    with pytest.raises(RuntimeError):
        with st.batch():
            st.add_candidates([_cand(S1.id, 0, A)])
            raise RuntimeError("killed half-way")
    assert st.forest(S1.id).candidates == ()


def test_consistent_sets_statuses_and_rules(st):
    st.add_candidates([_cand(S1.id, k, t) for k, t in enumerate([A, B, C])])
    st.add_annotations([Annotation(S1.id, "riezler", (Bracket("NP", 0, 1),))])
    with pytest.raises(StoreError, match="ranker annotate"):
        st.consistent_sets("riezler", rule="strict")
    st.put_annotation_checks("riezler", [(S1.id, "lg", 0, 0, 0), (S1.id, "lg", 1, 1, 1), (S1.id, "lg", 2, 1, 0)])
    cs = st.consistent_sets("riezler", rule="strict")[S1.id]
    assert cs.weights == (1.0, 0.0, 0.0) and cs.status == "proper" and cs.rule == "consistent"
    st.put_annotation_checks("riezler", [(S1.id, "lg", 0, 2, 0)])
    strict = st.consistent_sets("riezler", rule="strict")[S1.id]
    assert strict.weights == (0.0, 0.0, 0.0) and strict.status == "empty" and strict.rule == "none"
    fewest = st.consistent_sets("riezler", rule="fewest")[S1.id]
    assert fewest.weights == (0.0, 1.0, 1.0) and fewest.status == "empty" and fewest.rule == "fewest-violations"
    assert st.stats().consistent_sets == {"riezler": {"empty": 1, "proper": 0, "all": 0}}


def test_bracket_counts_and_artifacts_round_trip(st):
    rows = [BracketCounts(S1.id, "lg", 1, 3, 2, 1, 1), BracketCounts(S1.id, "lg", 0, 3, 3, 3, 0)]
    st.put_bracket_counts("evalb", rows)
    assert st.bracket_counts("evalb") == {S1.id: (rows[1], rows[0])}
    assert st.bracket_counts("other") == {}
    st.put_artifact("model", "m1", b"\x00\x01", {"sigma": 1.5})
    assert st.get_artifact("model", "m1") == (b"\x00\x01", {"sigma": 1.5})
    assert st.get_artifact("model", "nope") is None


def test_stats_counts(st):
    st.add_candidates([_cand(S1.id, 0, A), _cand(S1.id, 1, B, quality="fragment"), _cand(S0.id, 0,
                       "(S (NN cats) (NN sleep))", quality="timeout")])
    s = st.stats()
    assert (s.sentences, s.sentences_with_candidates, s.candidates) == (3, 2, 3)
    assert (s.full, s.fragment, s.timeout) == (1, 1, 1)
    assert s.mean_candidates == 1.5 and s.median_candidates == 1.5


def test_schema_version_mismatch_is_a_clear_error(tmp_path):
    path = tmp_path / "s.sqlite"
    Store.open(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    con.commit()
    con.close()
    with pytest.raises(SchemaVersionError, match="version 999"):
        Store.open(path)


def test_a_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a ranker store"):
        Store.open(path)


def test_fast_penn_writer_equals_format_tree():
    from ranker.store.store import penn_text
    from ranker.trees.penn import format_tree

    for text in [A, B, C, "( (S (NP a b) c (VP (V d))) (. .))", "(X (Y (Z w)))", "( (X w) v)", "(S (NP (DT the) x) y)"]:
        t = parse_tree(text)
        assert penn_text(t) == format_tree(t)


def test_a_word_penn_text_cannot_hold_is_refused_before_anything_is_written(st):
    from ranker.trees import Tree

    good = parse_tree(A)
    bad = Candidate(S1.id, "lg", 1, Tree(good.root, ("dogs", "(", "loudly")), "full", {})
    with pytest.raises(StoreError, match=r"word '\(' cannot be written as Penn text.*-LRB-"):
        st.add_candidates([_cand(S1.id, 0, A), bad])
    assert st.forest(S1.id).candidates == ()


@pytest.mark.parametrize("kind, hint", [("riezler", "--kind riezler"), ("mine", "--kind file --file BRACKETS --name mine")])
def test_issue_10_a_missing_annotation_says_to_run_ranker_annotate(st, kind, hint):
    st.add_candidates([_cand(S1.id, 0, A)])
    with pytest.raises(StoreError, match=f"no annotation '{kind}' is stored; run: ranker annotate --store .* {hint}"):
        st.consistent_sets(kind, rule="strict")


def test_readonly_open_of_a_path_with_uri_characters(tmp_path):
    path = tmp_path / "we?ird #1 %20.sqlite"   # '?', '#' and '%' mean something in a SQLite URI
    with Store.open(path) as s:
        s.add_sentences([S1])
    with Store.open(path, readonly=True) as s:
        assert [x.id for x in s.sentences()] == [S1.id]
        with pytest.raises(StoreError, match="read-only"):
            s.add_sentences([S0])


def test_deleting_counts_drops_every_metric_of_those_sentences_only(st):
    rows = {sid: [BracketCounts(sid, "lg", r, 3, 2, 1, 0) for r in range(2)] for sid in (S1.id, S0.id)}
    for metric in ("evalb@a", "mph@b"):
        st.put_bracket_counts(metric, [*rows[S1.id], *rows[S0.id]])
    st.put_bracket_counts("evalb@a", [BracketCounts(S1.id, "other", 0, 1, 1, 1, 0)])
    st.delete_bracket_counts(iter([S1.id]), "lg")
    for metric in ("evalb@a", "mph@b"):
        assert st.sentence_bracket_counts(metric, S1.id, "lg") == ()
        assert st.sentence_bracket_counts(metric, S0.id, "lg") == tuple(rows[S0.id])
    assert len(st.sentence_bracket_counts("evalb@a", S1.id, "other")) == 1


def test_deleting_counts_searches_the_primary_key_instead_of_scanning_the_table(st):
    # scoring a cold store deletes every sentence's old counts: a scan each made it quadratic
    from ranker.store.store import _DELETE_COUNTS

    plan = st._conn.execute("EXPLAIN QUERY PLAN " + _DELETE_COUNTS, ("m", S1.id, "lg")).fetchall()
    assert all("SCAN" not in row[-1] for row in plan) and any("SEARCH" in row[-1] for row in plan)
