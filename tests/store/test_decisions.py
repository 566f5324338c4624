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


TREES = (   # five readings of "I saw the man with a telescope" (PP attachment, flat NP, SINV)
    "(S (NP (PRP I)) (VP (VBD saw) (NP (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope))))))",
    "(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))))",
    "(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man))) (PP (IN with) (NP (DT a) (NN telescope))))",
    "(SINV (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))))",
    "(S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man) (PP (IN with) (NP (DT a) (NN telescope))))))",
)


def _spans():
    from ranker.sources.discriminants import candidate_spans
    from ranker.trees.penn import parse_tree

    return [candidate_spans(parse_tree(t)) for t in TREES]


def _decide_racing(path, who, accept, rounds, barrier, left):
    """Each round: answer every discriminant of the undecided forest (a page loaded before the other's answers)."""
    from ranker.sources.discriminants import DecisionRefused, decide, discriminants, remaining_mask

    spans = _spans()
    with Store.open(path) as st:
        for _ in range(rounds):
            keys = discriminants(spans)
            barrier.wait()
            for d in keys:
                try:
                    decide(st, S.id, spans, _d(d.label, d.start, d.end, accept, who))
                except DecisionRefused:
                    pass
            barrier.wait()
            if accept:   # one of the two records what the round left, then clears it
                left.append(int(remaining_mask(spans, st.decisions(S.id)).sum()))
                while st.undo_decision(S.id) is not None:
                    pass
            barrier.wait()


@pytest.mark.slow
def test_two_processes_deciding_one_sentence_at_once_never_leave_no_candidate(path):
    """Regression: two answers checked against pages loaded before each other's left 0 candidates.

    Two processes of one annotator (each annotator's answers are checked against their own; two
    annotators' conflicts are adjudicated, tests/sources/test_adjudication.py)."""
    ctx = multiprocessing.get_context("spawn")
    barrier, manager = ctx.Barrier(2), ctx.Manager()
    left = manager.list()
    procs = [ctx.Process(target=_decide_racing, args=(path, who, accept, 15, barrier, left))
             for who, accept in (("ann", True), ("ann", False))]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    assert len(left) == 15 and min(left) >= 1, list(left)
    manager.shutdown()


def test_decide_refuses_an_answer_that_is_no_discriminant_and_writes_nothing(path):
    from ranker.sources.discriminants import DecisionRefused, decide

    spans = _spans()
    with Store.open(path) as st:
        with pytest.raises(DecisionRefused, match="no remaining candidate holds ZZZ:0-1"):
            decide(st, S.id, spans, _d("ZZZ", 0, 1, True))
        with pytest.raises(DecisionRefused, match="every remaining candidate holds NP:0-1"):
            decide(st, S.id, spans, _d("NP", 0, 1, False))
        with pytest.raises(DecisionRefused, match="every remaining candidate holds PP:4-7"):
            decide(st, S.id, spans, _d("PP", 4, 7, True))
        assert st.decisions(S.id) == []
        assert decide(st, S.id, spans, _d("NP", 2, 7, True)) == 1      # two of five hold it
        with pytest.raises(DecisionRefused, match="no remaining candidate holds VP:1-4"):
            decide(st, S.id, spans, _d("VP", 1, 4, True))             # only a reading NP:2-7 ruled out
        with pytest.raises(DecisionRefused, match="every remaining candidate holds NP:2-7"):
            decide(st, S.id, spans, _d("NP", 2, 7, False))            # the stale page's contradiction
        assert [(d.label, d.accept) for d in st.decisions(S.id)] == [("NP", True)]


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


def test_a_checkpoint_puts_the_decisions_in_the_store_file_and_a_backup_is_one_file(path, tmp_path):
    import shutil

    with Store.open(path) as st, Store.open(path, readonly=True) as reader:
        st.add_decision(S.id, _d("NP", 2, 7))
        assert (tmp_path / "s.sqlite-wal").stat().st_size > 0
        alone = tmp_path / "alone.sqlite"
        shutil.copy(path, alone)                      # before the checkpoint: the answer is in -wal only
        with Store.open(alone, readonly=True) as copy:
            assert copy.decisions(S.id) == []
        assert st.checkpoint() and reader.checkpoint()   # a reader has nothing to checkpoint
        assert (tmp_path / "s.sqlite-wal").stat().st_size == 0
        alone.unlink()
        shutil.copy(path, alone)
        with Store.open(alone, readonly=True) as copy:
            assert copy.decisions(S.id) == [_d("NP", 2, 7)]
        st.add_decision(S.id, _d("PP", 4, 7, False))
        reader.backup(tmp_path / "b.sqlite")          # from a read-only connection, the log included
        with pytest.raises(StoreError, match="already exists"):
            st.backup(tmp_path / "b.sqlite")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("b.")) == ["b.sqlite"]
    with Store.open(tmp_path / "b.sqlite", readonly=True) as b:
        assert b.decisions(S.id) == [_d("NP", 2, 7), _d("PP", 4, 7, False)]


def test_decide_checks_an_answer_against_its_own_annotators_decisions_only(path):
    """Each annotator disambiguates for themselves: bob may reject what ann accepted (a conflict to
    adjudicate), but ann may not contradict herself."""
    from ranker.sources.discriminants import DecisionRefused, decide, discriminants, remaining_mask

    spans = _spans()
    d = discriminants(spans)[0]
    with Store.open(path) as st:
        decide(st, S.id, spans, _d(d.label, d.start, d.end, True, "ann"))
        decide(st, S.id, spans, _d(d.label, d.start, d.end, False, "bob"))
        with pytest.raises(DecisionRefused):
            decide(st, S.id, spans, _d(d.label, d.start, d.end, False, "ann"))
        got = st.decisions(S.id)
        assert [(x.who, x.accept) for x in got] == [("ann", True), ("bob", False)]
        for who in ("ann", "bob"):
            assert remaining_mask(spans, [x for x in got if x.who == who]).sum() >= 1
