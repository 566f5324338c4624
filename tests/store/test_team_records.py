"""Verdicts, adjudications and annotator renaming in the store, and stores made before their tables."""
import sqlite3

import pytest

from ranker.sources.discriminants import Decision
from ranker.store import Adjudication, Sentence, Store, StoreError, Verdict
from ranker.store.team import MAX_COMMENT

TOKS = tuple("I saw the man with a telescope".split())
S = Sentence("treebank/wsj_0001.mrg/0", "treebank", "wsj_0001.mrg", 0, TOKS, ("",) * len(TOKS))


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "s.sqlite"
    with Store.open(p) as st:
        st.add_sentences([S])
    return p


def test_a_verdict_is_kept_per_annotator_replaced_and_removed_when_empty(path):
    with Store.open(path) as st:
        v = st.set_verdict(S.id, "ann", True, "  PP attachment: <none> fits  ", at="2026-11-25T10:00:00Z")
        assert v == Verdict(True, "PP attachment: <none> fits", "ann", "2026-11-25T10:00:00Z")
        st.set_verdict(S.id, "bob", False, "unsure")
        st.set_verdict(S.id, "ann", False, "changed my mind", at="2026-11-25T11:00:00Z")
    with Store.open(path, readonly=True) as st:
        assert [(v.who, v.no_correct, v.comment) for v in st.verdicts(S.id)] == \
            [("ann", False, "changed my mind"), ("bob", False, "unsure")]
        assert [sid for sid, _ in st.verdicts()] == [S.id, S.id]
    with Store.open(path) as st:
        assert st.set_verdict(S.id, "bob", False, "") is None
        assert [v.who for v in st.verdicts(S.id)] == ["ann"]


@pytest.mark.parametrize("sid, who, comment, msg", [
    ("nope", "ann", "", "no sentence 'nope'"),
    (S.id, "", "x", "needs who"),
    (S.id, "ann", "x" * (MAX_COMMENT + 1), f"at most {MAX_COMMENT}"),
])
def test_a_bad_verdict_is_refused_and_nothing_is_written(path, sid, who, comment, msg):
    with Store.open(path) as st:
        with pytest.raises(StoreError, match=msg):
            st.set_verdict(sid, who, True, comment)
        assert st.verdicts() == []


def test_an_adjudication_is_replaced_and_cleared(path):
    with Store.open(path) as st:
        st.adjudicate(S.id, "ann", "boss", at="2026-11-25T10:00:00Z")
        st.adjudicate(S.id, "bob", "boss", at="2026-11-25T11:00:00Z")
        assert st.adjudications() == {S.id: Adjudication(S.id, "bob", "boss", "2026-11-25T11:00:00Z")}
        with pytest.raises(StoreError, match="no sentence"):
            st.adjudicate("nope", "ann", "boss")
        assert st.clear_adjudication(S.id) and not st.clear_adjudication(S.id)
        assert st.adjudications() == {}


def test_renaming_an_anonymous_annotator_moves_only_their_decisions_and_verdicts(path):
    at = "2026-11-25T10:00:00Z"
    with Store.open(path) as st:
        st.add_decision(S.id, Decision("NP", 2, 4, True, "anon-1a2b3c4d", at))
        st.add_decision(S.id, Decision("VP", 1, 4, False, "anon-99999999", at))
        st.set_verdict(S.id, "anon-1a2b3c4d", True, "")
        st.set_verdict(S.id, "ann", False, "earlier")
        assert st.rename_annotator("anon-1a2b3c4d", "ann") == 1
        assert [d.who for d in st.decisions(S.id)] == ["ann", "anon-99999999"]
        assert [(v.who, v.no_correct) for v in st.verdicts(S.id)] == [("ann", True)]


def test_a_store_made_before_the_team_tables_reads_empty_and_gains_them(path):
    con = sqlite3.connect(path)
    con.execute("DROP TABLE verdicts")
    con.execute("DROP TABLE adjudications")
    con.commit()
    con.close()
    with Store.open(path, readonly=True) as st:
        assert st.verdicts() == [] and st.verdicts(S.id) == [] and st.adjudications() == {}
    with Store.open(path) as st:
        st.set_verdict(S.id, "ann", True)
        assert st.verdicts(S.id)[0].no_correct


def test_a_ruling_that_none_is_right_keeps_its_comment_needs_one_and_an_older_table_gains_the_column(path):
    """Issue 46, item 4: an adjudication may rule that no candidate is right, with a comment."""
    from ranker.store.records import NONE_IS_RIGHT

    with Store.open(path) as st:
        with pytest.raises(StoreError, match="needs a comment saying why"):
            st.adjudicate(S.id, NONE_IS_RIGHT, "boss", comment="  ")
        assert st.adjudications() == {}
        with pytest.raises(StoreError, match=f"at most {MAX_COMMENT}"):
            st.adjudicate(S.id, NONE_IS_RIGHT, "boss", comment="x" * (MAX_COMMENT + 1))
        st.adjudicate(S.id, NONE_IS_RIGHT, "boss", at="2026-11-26T00:00:00Z", comment=" no PRN in any ")
    with Store.open(path, readonly=True) as st:
        a = st.adjudications()[S.id]
    assert a.none and a.comment == "no PRN in any" and not Adjudication(S.id, "ann", "boss", "x").none
    # a table written before the comment column reads '' and gains it at the next writable open
    con = sqlite3.connect(path)
    con.execute("DROP TABLE adjudications")
    con.execute("CREATE TABLE adjudications (sentence_id TEXT PRIMARY KEY, chosen TEXT NOT NULL, who TEXT NOT NULL, "
                "at TEXT NOT NULL, work TEXT NOT NULL DEFAULT '')")
    con.execute("INSERT INTO adjudications VALUES (?, 'ann', 'boss', 'x', '')", (S.id,))
    con.commit()
    con.close()
    with Store.open(path, readonly=True) as st:
        assert st.adjudications()[S.id].comment == ""
    with Store.open(path) as st:
        st.adjudicate(S.id, NONE_IS_RIGHT, "boss", comment="why")
        assert st.adjudications()[S.id].comment == "why"


def test_an_adjudicators_own_decisions_are_kept_apart_and_stand_with_their_adjudication(path):
    """Issue 46, item 4: answers given on the adjudication page are no annotator's work: they are
    not among ``decisions()`` (agreement and conflicts read those), and an adjudication
    ``ADJUDICATOR_DECIDED`` carries them; one without any is refused. An older store read-only
    (no such table) reads none."""
    from ranker.sources.adjudication import resolve, work_by_annotator
    from ranker.store.records import ADJUDICATOR_DECIDED

    at = "2026-11-26T00:00:00Z"
    with Store.open(path) as st:
        st.add_decision(S.id, Decision("NP", 0, 1, True, "ann", at))
        with pytest.raises(StoreError, match="cannot stand: there are none"):
            st.adjudicate(S.id, ADJUDICATOR_DECIDED, "boss")
        assert st.adjudications() == {}
        mine = [Decision("VP", 1, 7, True, "boss", at), Decision("PP", 4, 7, False, "boss", at)]
        for d in mine:
            st.add_decision(S.id, d, adjudication=True)
        with pytest.raises(StoreError, match="not inside the 7 tokens"):
            st.add_decision(S.id, Decision("NP", 3, 9, True, "boss", at), adjudication=True)
        a = st.adjudicate(S.id, ADJUDICATOR_DECIDED, "boss", at=at)
    with Store.open(path, readonly=True) as st:
        assert [d.who for d in st.decisions(S.id)] == ["ann"]
        assert st.decisions(S.id, adjudication=True) == mine
        got = st.adjudications()[S.id]
        work = work_by_annotator(st.decisions(S.id), st.verdicts(S.id))
    assert got == a and got.decided and got.ruling and not got.none and got.decisions == tuple(mine)
    assert resolve(work, True, got) == tuple(mine)   # a conflict's sentence teaches the adjudicator's answers
    with Store.open(path) as st:
        assert st.undo_decision(S.id, adjudication=True) == mine[1]
        assert st.decisions(S.id, adjudication=True) == mine[:1] and len(st.decisions(S.id)) == 1
    con = sqlite3.connect(path)
    con.execute("DROP TABLE adjudication_decisions")
    con.commit()
    con.close()
    with Store.open(path, readonly=True) as st:
        assert st.decisions(S.id, adjudication=True) == [] and st.adjudications()[S.id].decisions == ()
