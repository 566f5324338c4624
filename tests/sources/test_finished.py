"""The treebank a team made: a sentence its standing decisions narrow to one bracketing is its tree.

Real store, forests imported from Penn lists of sentences no corpus holds (``ranker import`` adds
them), decisions as ``ranker serve`` stores them; ``ranker store export --trees`` writes the trees
and lists every sentence with why it is or is not finished.
"""
from ranker.cli.main import main
from ranker.sources.finished import finished_trees
from ranker.store import Store
from ranker.store.records import Decision

# two sentences, two bracketings each; a third with one bracketing only
LISTS = """(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))
(S (NP (DT The) (NN cat)) (VP (VBD sat)) (PP (IN on) (NP (DT the) (NN mat))))

(S (NP (NNS Dogs)) (VP (VBP bark) (ADVP (RB loudly))))
(S (NP (NNS Dogs)) (VP (VBP bark)) (ADVP (RB loudly)))

(S (NP (NNS Birds)) (VP (VBP sing)))
"""


def _store(tmp_path):
    (tmp_path / "own.penn").write_text(LISTS)
    store = tmp_path / "s.sqlite"
    assert main(["import", "--store", str(store), "--format", "penn", str(tmp_path / "own.penn")]) == 0
    return store


def _decide(store, sid, who, label, start, end, accept):
    with Store.open(store) as st:
        st.add_decision(sid, Decision(label, start, end, accept, who, "2026-11-26T00:00:00Z"))


def test_import_adds_sentences_no_store_holds_with_ids_file_and_block(tmp_path):
    store = _store(tmp_path)
    with Store.open(store) as st:
        sents = st.sentences("lists")
    assert [s.id for s in sents] == ["lists/own.penn/0", "lists/own.penn/1", "lists/own.penn/2"]
    assert sents[0].tokens == ("The", "cat", "sat", "on", "the", "mat")
    assert sents[0].tags == ("DT", "NN", "VBD", "IN", "DT", "NN")


def test_a_sentence_narrowed_to_one_bracketing_is_its_tree_the_rest_are_listed(tmp_path, capsys):
    store = _store(tmp_path)
    _decide(store, "lists/own.penn/0", "alice", "VP", 2, 6, True)    # the PP inside the VP
    _decide(store, "lists/own.penn/1", "alice", "ADJP", 0, 2, False)   # rejects a span both lack
    with Store.open(store, readonly=True) as st:
        got = {o.sentence_id: o for o in finished_trees(st, st.sentences("lists"))}
    assert got["lists/own.penn/0"].status == "finished"
    assert got["lists/own.penn/0"].tree == \
        "(S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))))"
    assert got["lists/own.penn/1"].status == "started" and got["lists/own.penn/1"].left == 2
    assert got["lists/own.penn/2"].status == "untouched" and got["lists/own.penn/2"].left == 1
    out = tmp_path / "team.mrg"
    assert main(["store", "export", str(store), "--trees", "-o", str(out)]) == 0
    assert out.read_text() == got["lists/own.penn/0"].tree + "\n"
    rows = [ln.split("\t") for ln in (tmp_path / "team.mrg.tsv").read_text().splitlines()]
    assert rows[0][:3] == ["sentence", "status", "line"]
    assert [r[:3] for r in rows[1:]] == [["lists/own.penn/0", "finished", "1"], ["lists/own.penn/1", "started", "-"],
                                         ["lists/own.penn/2", "untouched", "-"]]
    assert "1 finished sentences of 3; 2 not finished" in capsys.readouterr().err


def test_conflicting_annotators_finish_only_once_adjudicated(tmp_path):
    store = _store(tmp_path)
    sid = "lists/own.penn/0"
    _decide(store, sid, "alice", "VP", 2, 6, True)
    _decide(store, sid, "bob", "VP", 2, 6, False)
    with Store.open(store, readonly=True) as st:
        assert finished_trees(st, [st.sentence(sid)])[0].status == "conflict"
    with Store.open(store) as st:
        st.adjudicate(sid, "bob", "carol")
    with Store.open(store, readonly=True) as st:
        o = finished_trees(st, [st.sentence(sid)])[0]
    assert o.status == "finished" and o.adjudicator == "carol" and o.annotators == ("alice", "bob")
    assert "(VP (VBD sat)) (PP" in o.tree   # bob's: the PP outside the VP


def test_no_correct_candidate_is_listed_with_its_comment(tmp_path):
    store = _store(tmp_path)
    sid = "lists/own.penn/2"
    with Store.open(store) as st:
        st.set_verdict(sid, "alice", True, "birds is a noun here")
    with Store.open(store, readonly=True) as st:
        o = finished_trees(st, [st.sentence(sid)])[0]
    assert o.status == "no correct candidate" and o.comments == ("alice: birds is a noun here",)


def test_export_of_a_corpus_the_store_lacks_is_an_error(tmp_path, capsys):
    """Regression: 'store export S --trees --corpus nosuch' said '0 finished sentences of 0', exit 0."""
    store = _store(tmp_path)
    capsys.readouterr()
    for trees in (["--trees"], []):
        assert main(["store", "export", str(store), *trees, "--corpus", "nosuch"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("ranker: error: ") and "no stored sentence of corpus nosuch" in err and "lists 3" in err


def test_one_definition_of_done_for_an_annotator_and_the_team():
    """Issue 46, defect 1: an annotator's done (:func:`work_status`) and the export's finished
    (:func:`team_status`) are one test; a confirmation beside several bracketings is no done, and
    bracketings no answer can split (S and SINV on one span, equivalent labels) are settled."""
    from ranker.sources.adjudication import work_by_annotator
    from ranker.sources.finished import settled, team_status, work_status
    from ranker.store.records import Verdict

    spans = [frozenset({("NP", 0, 2), ("VP", 2, 4), ("S", 0, 4)}),
             frozenset({("NP", 0, 1), ("VP", 1, 4), ("S", 0, 4)})]
    d = Decision("NP", 0, 2, True, "ann", "2026-11-26T00:00:00Z")
    stale = work_by_annotator([], [Verdict(False, "", "ann", "x", confirmed=True)])
    assert work_status(stale["ann"], spans) == "started"
    assert team_status(stale, None, spans).status == "started"
    done = work_by_annotator([d], [Verdict(False, "", "ann", "x", confirmed=True)])
    assert work_status(done["ann"], spans) == "done" and team_status(done, None, spans).status == "finished"
    assert work_status(None, spans) == "untouched" and team_status({}, None, spans).status == "untouched"
    twins = [frozenset({("S", 0, 4), ("NP", 0, 1)}), frozenset({("SINV", 0, 4), ("NP", 0, 1)})]
    assert settled(twins, [True, True]) and not settled(twins, [False, False]) and not settled(spans, [True, True])


def test_the_listing_names_whose_work_each_tree_follows(tmp_path):
    """Issue 46, item 5: FILE.tsv named the annotators and the adjudicator, not whose decisions the
    exported tree follows: the adjudicator's pick, every agreeing annotator, or the one who did it."""
    import csv

    store = _store(tmp_path)
    conflict, agreed, alone = "lists/own.penn/0", "lists/own.penn/1", "lists/own.penn/2"
    _decide(store, conflict, "alice", "VP", 2, 6, True)
    _decide(store, conflict, "bob", "VP", 2, 6, False)
    _decide(store, agreed, "alice", "VP", 1, 3, True)
    _decide(store, agreed, "bob", "VP", 1, 3, True)
    with Store.open(store) as st:
        st.set_verdict(alone, "carol", False, "", confirmed=True)   # one bracketing, confirmed
    out = tmp_path / "team.mrg"
    assert main(["store", "export", str(store), "--trees", "-o", str(out)]) == 0
    with open(f"{out}.tsv", newline="") as f:
        rows = {r["sentence"]: r for r in csv.DictReader(f, delimiter="\t")}
    assert (rows[conflict]["status"], rows[conflict]["follows"]) == ("conflict", "")
    assert (rows[agreed]["status"], rows[agreed]["follows"]) == ("finished", "alice,bob")
    assert (rows[alone]["status"], rows[alone]["follows"]) == ("finished", "carol")
    with Store.open(store) as st:
        st.adjudicate(conflict, "bob", "dave")
    assert main(["store", "export", str(store), "--trees", "-o", str(out)]) == 0
    with open(f"{out}.tsv", newline="") as f:
        row = next(r for r in csv.DictReader(f, delimiter="\t") if r["sentence"] == conflict)
    assert (row["status"], row["annotators"], row["adjudicator"], row["follows"]) == ("finished", "alice,bob", "dave", "bob")
