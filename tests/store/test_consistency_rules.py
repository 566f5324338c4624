"""Issue 11: the consistency rules pick X(y, z) from real trees' missing and crossing counts.

Crouch et al.'s strict rule leaves out a sentence none of whose candidates holds every annotated
bracket; the other rules keep something there, and differ in whether a bracket the candidate
merely lacks (``missing``) counts as much as one it contradicts (``crossing``). The counts come
from :func:`~ranker.sources.annotations.check_store` on a real store, not from numbers typed in.
"""
import pytest

from ranker.sources.annotations import DEFAULT_EQUIVALENCES, LabelEquivalences, check_store
from ranker.store import Annotation, Bracket, Candidate, Sentence, Store, StoreError
from ranker.store.store import RULES, choose_consistent
from ranker.trees.penn import parse_tree


def _sent(doc, i, n):
    toks = tuple(f"w{k}" for k in range(n))
    return Sentence(f"treebank/{doc}/{i}", "treebank", doc, i, toks, tuple("NN" for _ in toks))


NONE = _sent("wsj_0001.mrg", 0, 5)    # no candidate holds every bracket
SOME = _sent("wsj_0001.mrg", 1, 5)    # one candidate does
BRACKETS = (Bracket("NP-SBJ", 0, 1), Bracket("VP", 1, 5), Bracket("NP", 2, 5))
FULL = "(S (NP (NN w0)) (VP (NN w1) (NP (NN w2) (NN w3) (NN w4))))"           # missing 0, crossing 0
CROSSES = "(S (NP (NN w0)) (VP (Z (NN w1) (NN w2)) (NN w3) (NN w4)))"          # Z crosses NP(2, 5): 1, 1
LACKS = "(S (NP (NN w0)) (VP (NN w1) (NN w2) (NN w3) (NN w4)))"               # lacks NP(2, 5): 1, 0
FLAT = "(S (NN w0) (NN w1) (NN w2) (NN w3) (NN w4))"                           # lacks all three: 3, 0


@pytest.fixture
def st(tmp_path):
    with Store.open(tmp_path / "s.sqlite") as s:
        s.add_sentences([NONE, SOME])
        s.add_candidates([Candidate(NONE.id, "lg", k, parse_tree(t), "full", {})
                          for k, t in enumerate([CROSSES, LACKS, FLAT])])
        s.add_candidates([Candidate(SOME.id, "lg", k, parse_tree(t), "full", {})
                          for k, t in enumerate([FULL, CROSSES, FLAT])])
        s.add_annotations([Annotation(NONE.id, "riezler", BRACKETS), Annotation(SOME.id, "riezler", BRACKETS)])
        check_store(s, "riezler", LabelEquivalences.load(DEFAULT_EQUIVALENCES))
        yield s


def test_the_checks_count_what_each_tree_lacks_and_crosses(st):
    got = st._conn.execute("SELECT rank, missing, crossing FROM annotation_checks WHERE sentence_id=? "
                           "ORDER BY rank", (NONE.id,)).fetchall()
    assert [tuple(r) for r in got] == [(0, 1, 1), (1, 1, 0), (2, 3, 0)]


@pytest.mark.parametrize("rule, none, some, how", [
    # where the strict set is empty: CROSSES (1 missing, 1 crossing), LACKS (1, 0), FLAT (3, 0)
    ("strict", (0, 0, 0), (1, 0, 0), "none"),
    ("fewest", (1, 1, 0), (1, 0, 0), "fewest-violations"),       # a crossing counts as a lack
    ("compatible", (0, 1, 1), (1, 0, 1), "compatible"),          # even beside a strict candidate
    ("strict-else-compatible", (0, 1, 1), (1, 0, 0), "fewest-crossing"),
    ("lexicographic", (0, 1, 0), (1, 0, 0), "lexicographic"),
    # issue 43: each candidate by the share of the three brackets it holds; FLAT holds none
    ("graded", (2 / 3, 2 / 3, 0), (1, 0, 0), "graded"),
])
def test_each_rule_keeps_its_own_set(st, rule, none, some, how):
    sets = st.consistent_sets("riezler", rule=rule)
    assert sets[NONE.id].weights == tuple(map(float, none)) and sets[NONE.id].rule == how
    assert sets[NONE.id].status == "empty" and sets[SOME.id].status == "proper"
    assert sets[SOME.id].weights == tuple(map(float, some))


def test_every_rule_is_tested_and_an_unknown_one_refused(st):
    assert set(RULES) == {"strict", "fewest", "compatible", "strict-else-compatible", "lexicographic", "graded"}
    with pytest.raises(StoreError, match="unknown consistency rule 'loose'"):
        st.consistent_sets("riezler", rule="loose")


def test_fewest_crossing_is_the_least_crossing_when_every_candidate_crosses():
    cs = choose_consistent("s", (2, 1, 3), "strict-else-compatible", (1, 1, 2))
    assert cs.weights == (1.0, 1.0, 0.0)
    assert choose_consistent("s", (2, 1, 3), "lexicographic", (1, 1, 2)).weights == (0.0, 1.0, 0.0)
    # crossings first: one contradiction outweighs any number of lacks
    assert choose_consistent("s", (1, 3), "lexicographic", (1, 0)).weights == (0.0, 1.0)
    assert choose_consistent("s", (1, 3), "fewest", (1, 0)).weights == (1.0, 0.0)
    assert choose_consistent("s", (2, 1, 3), "compatible", (1, 1, 2)).rule == "none"
    with pytest.raises(StoreError, match="crossing count"):
        choose_consistent("s", (2, 1), "compatible")


def test_crossing_rules_refuse_rejected_brackets(st):
    # a rejected span the candidate contains is missing, never crossed: a crossing rule would
    # call the candidate that holds it compatible
    st.add_annotations([Annotation(NONE.id, "user", (Bracket("NP", 2, 5, accept=False),))])
    check_store(st, "user", LabelEquivalences.load(DEFAULT_EQUIVALENCES))
    assert st.consistent_sets("user", rule="fewest")[NONE.id].weights == (1.0, 1.0, 1.0)
    with pytest.raises(StoreError, match="rejected brackets"):
        st.consistent_sets("user", rule="compatible")


def test_graded_needs_the_count_of_annotated_brackets():
    assert choose_consistent("s", (0, 2), "graded", annotated=4).weights == (1.0, 0.0)   # the strict set first
    assert choose_consistent("s", (1, 4), "graded", annotated=4).weights == (0.75, 0.0)
    with pytest.raises(StoreError, match="number of annotated brackets"):
        choose_consistent("s", (1, 2), "graded")


def test_the_checks_are_read_once_for_every_rule_and_again_after_any_write(st, tmp_path):
    """Issue 45: a rule grid asks for the same checks under each rule; a warm rerun of GUM's six rules
    read them 19 times (4 s each). They are read once while the store is unchanged, and afresh after
    a write on this connection or another, so a changed check is never answered from memory."""
    reads = []
    st._conn.set_trace_callback(lambda sql: reads.append(sql) if "annotation_checks k" in sql else None)
    by_rule = {rule: st.consistent_sets("riezler", rule=rule) for rule in RULES}
    assert len(reads) == 2   # the two sentences' candidates, once, for all six rules
    assert by_rule["fewest"][NONE.id].weights == (1, 1, 0) and by_rule["strict"][NONE.id].weights == (0, 0, 0)
    st._conn.execute("UPDATE annotation_checks SET missing=0, crossing=0 WHERE sentence_id=? AND rank=2",
                     (NONE.id,))   # FLAT now holds every bracket (a write on this connection)
    assert st.consistent_sets("riezler", rule="strict")[NONE.id].weights == (0, 0, 1)
    assert len(reads) == 4
    with Store.open(st.path) as other:   # another connection's write
        other._conn.execute("UPDATE annotation_checks SET missing=3 WHERE sentence_id=? AND rank=2", (NONE.id,))
    assert st.consistent_sets("riezler", rule="strict")[NONE.id].weights == (0, 0, 0)
    assert len(reads) == 6
    st.consistent_sets("riezler", rule="graded", source="lg")   # another selection: its own read
    assert len(reads) == 8
    # a document named as a string, or in a list or a generator, selects the same (regression: the
    # string was read as a tuple of its letters, which named no document)
    for fileids in ("wsj_0001.mrg", ["wsj_0001.mrg"], (f for f in ["wsj_0001.mrg"])):
        assert set(st.consistent_sets("riezler", fileids=fileids, rule="strict")) == {NONE.id, SOME.id}
    st._conn.set_trace_callback(None)


def test_forest_qualities_are_read_once_and_again_after_any_write(st):
    """Issue 45: a run read every forest's qualities at five stages (GUM's millions of candidates, each
    read a scan); they are read once while the store is unchanged, afresh after a write on this
    connection or another, and each source's own."""
    reads = []
    st._conn.set_trace_callback(lambda sql: reads.append(sql) if "quality FROM candidates" in sql else None)
    assert st.forest_qualities("lg") == {NONE.id: ("full",) * 3, SOME.id: ("full",) * 3}
    assert st.forest_qualities("lg") is st.forest_qualities("lg") and len(reads) == 1
    st._conn.execute("UPDATE candidates SET quality='skim' WHERE sentence_id=? AND rank=1", (SOME.id,))
    assert st.forest_qualities("lg")[SOME.id] == ("full", "skim", "full") and len(reads) == 2
    with Store.open(st.path) as other:   # another connection's write
        other._conn.execute("UPDATE candidates SET quality='null' WHERE sentence_id=? AND rank=0", (NONE.id,))
    assert st.forest_qualities("lg")[NONE.id] == ("null", "full", "full") and len(reads) == 3
    assert st.forest_qualities("other") == {} and len(reads) == 4
    assert st.forest_qualities("lg")[NONE.id][0] == "null" and len(reads) == 5   # one value kept per name
    st._conn.set_trace_callback(None)
