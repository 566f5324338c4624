"""Discriminant decisions in the store: order, undo, bad spans, two writers at once, stores made before the table."""
import multiprocessing
import sqlite3

import pytest

from ranker.sources.discriminants import Decision
from ranker.store import Annotation, Bracket, Sentence, Store, StoreError

TOKS = tuple("I saw the man with a telescope".split())
S = Sentence("treebank/wsj_0001.mrg/0", "treebank", "wsj_0001.mrg", 0, TOKS, ("",) * len(TOKS))
T = Sentence("treebank/wsj_0001.mrg/1", "treebank", "wsj_0001.mrg", 1, TOKS[:3], ("",) * 3)


def _d(label, start, end, accept=True, who="ann", at="2026-11-23T16:00:00Z"):
    return Decision(label, start, end, accept, who, at)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "s.sqlite"
    with Store.open(p) as st:
        st.add_sentences([S, T])
    return p


def test_decisions_keep_their_order_and_sentence_and_undo_removes_the_latest(path):
    with Store.open(path) as st:
        assert st.decisions(S.id) == [] and st.undo_decision(S.id) is None
        assert st.add_decision(S.id, _d("NP", 2, 7)) == 1
        assert st.add_decision(T.id, _d("VP", 1, 3, False, "bob")) == 1
        assert st.add_decision(S.id, _d("VP", 1, 4, False)) == 2
        assert st.decisions(S.id) == [_d("NP", 2, 7), _d("VP", 1, 4, False)]
        assert st.decisions() == [(S.id, _d("NP", 2, 7)), (S.id, _d("VP", 1, 4, False)),
                                  (T.id, _d("VP", 1, 3, False, "bob"))]
        assert st.stats().decisions == {"answers": 3, "sentences": 2}   # ranker store stats counts them
        assert st.undo_decision(S.id) == _d("VP", 1, 4, False)
        assert st.add_decision(S.id, _d("PP", 4, 7)) == 2
    with Store.open(path, readonly=True) as st:         # stored, not just cached
        assert st.decisions(S.id) == [_d("NP", 2, 7), _d("PP", 4, 7)]
        assert isinstance(st.decisions(S.id)[0].accept, bool)


@pytest.mark.parametrize("sid, dec, msg", [
    ("nope", _d("NP", 0, 1), "no sentence 'nope'"),
    (T.id, _d("NP", 2, 4), r"span \[2, 4\) is not inside the 3 tokens"),
    (T.id, _d("NP", 1, 1), r"span \[1, 1\) is not inside"),
    (T.id, _d("NP", -1, 1), r"span \[-1, 1\) is not inside"),
    (T.id, _d("", 0, 1), "needs a label, who and when"),
    (T.id, _d("NP", 0, 1, who=""), "needs a label, who and when"),
    (T.id, _d("N P", 0, 1), "needs a label, who and when"),
    (T.id, _d("NP", 0, 1, at="yesterday"), "time must be ISO-8601"),
])
def test_a_bad_decision_is_refused_and_nothing_is_written(path, sid, dec, msg):
    with Store.open(path) as st:
        with pytest.raises(StoreError, match=msg):
            st.add_decision(sid, dec)
        assert st.decisions() == []


def _answer(path, who, n, start):
    start.wait()
    with Store.open(path) as st:
        for i in range(n):
            st.add_decision(S.id, _d("NP", i % 7, 7, bool(i % 2), who))
            if i % 10 == 9:
                st.undo_decision(S.id, who)   # interleaved undos remove one's own latest answer each


def test_an_undo_takes_back_the_annotators_own_latest_answer(path):
    """Regression: an undo took back the sentence's latest answer, even another person's."""
    with Store.open(path) as st:
        st.add_decision(S.id, _d("NP", 0, 7, True, "ann"))
        st.add_decision(S.id, _d("PP", 4, 7, False, "bob"))
        assert st.undo_decision(S.id, "ann") == _d("NP", 0, 7, True, "ann")
        assert st.decisions(S.id) == [_d("PP", 4, 7, False, "bob")]
        assert st.undo_decision(S.id, "ann") is None
        assert st.undo_decision(S.id) == _d("PP", 4, 7, False, "bob")   # anyone's latest


@pytest.mark.slow
def test_two_processes_answering_at_once_lose_nothing(path):
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_answer, args=(path, who, 40, start)) for who in ("ann", "bob")]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with Store.open(path, readonly=True) as st:
        got = st.decisions(S.id)
    assert len(got) == 2 * (40 - 4)
    assert sorted(d.who for d in got) == ["ann"] * 36 + ["bob"] * 36
    seqs = [r[0] for r in sqlite3.connect(path).execute(
        "SELECT seq FROM decisions WHERE sentence_id=? ORDER BY seq", (S.id,))]
    assert len(set(seqs)) == len(seqs)


def test_a_store_made_before_the_decisions_table_opens_and_gains_it(path):
    con = sqlite3.connect(path)
    con.execute("DROP TABLE decisions")
    con.commit()
    con.close()
    with Store.open(path, readonly=True) as st:      # read-only: nothing to read, nothing written
        assert st.decisions(S.id) == [] and st.decisions() == []
    assert "decisions" not in {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    with Store.open(path, readonly=True) as st:      # store stats of such a store: nothing decided
        assert st.stats().decisions == {"answers": 0, "sentences": 0}
    with Store.open(path) as st:                     # writable: the table is created
        assert st.add_decision(S.id, _d("NP", 2, 7)) == 1
        assert [s.id for s in st.sentences()] == [S.id, T.id]


def test_rejected_brackets_round_trip_and_accepted_ones_keep_their_old_encoding(path):
    with Store.open(path) as st:
        st.add_annotations([Annotation(S.id, "user", (Bracket("NP", 2, 7), Bracket("VP", 1, 4, False)))])
        assert st.annotations("user")[S.id].brackets == (Bracket("NP", 2, 7, True), Bracket("VP", 1, 4, False))
    stored = sqlite3.connect(path).execute("SELECT brackets FROM annotations").fetchone()[0]
    assert stored == '[["NP",2,7],["VP",1,4,false]]'
