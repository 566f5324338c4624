"""A team on one store through Flask's test client: identities, accounts, own work, verdicts, adjudication, export.

Every check reads the real store back (and ``ranker annotate`` / ``ranker store stats`` run for real).
"""
import re

import pytest

from ranker.store import Store

# each test starts with no decision, verdict or adjudication in the module's store
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("empty_team_tables")]


@pytest.fixture(scope="module")
def app(store_path):
    from ranker.serve.app import create_app

    return create_app(store_path)


def _page(client, sid):
    return client.get("/sentence", query_string={"id": sid}).get_data(as_text=True)


def _token(html) -> str:
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def _remaining(html) -> int:
    return int(re.search(r'id="remaining">(\d+)<', html).group(1))


def _keys(html):
    return re.findall(r'<tr data-key="([^"]+)"', html)


def _decide(client, sid, key, accept, token):
    r = client.post("/decide", data={"id": sid, "key": key, "accept": "1" if accept else "0", "token": token})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]


def _annotate_user(store_path):
    from ranker.cli.main import main

    assert main(["annotate", "--store", str(store_path), "--kind", "user"]) == 0
    with Store.open(store_path, readonly=True) as st:
        return {sid: [tuple(b) for b in a.brackets] for sid, a in st.annotations("user").items()}


def _conflict(app, sid):
    """Two annotators, ann and bob, who both accept the first discriminant of ``sid``, then answer the
    next one of that (same) remaining set apart: ``(ann, bob, ann_token, bob_token, key answered apart)``."""
    ann, bob = app.test_client(), app.test_client()
    page = _page(ann, sid)
    ann_token, bob_token = _token(page), _token(_page(bob, sid))
    ann.post("/who", data={"who": "ann", "token": ann_token})
    bob.post("/who", data={"who": "bob", "token": bob_token})
    k1 = _keys(page)[0]
    _decide(ann, sid, k1, True, ann_token)
    _decide(bob, sid, k1, True, bob_token)
    k2 = _keys(_page(ann, sid))[0]
    _decide(ann, sid, k2, True, ann_token)
    _decide(bob, sid, k2, False, bob_token)
    return ann, bob, ann_token, bob_token, k2


# ---------------------------------------------------------------------------------- identities (defect 2)
def test_each_browser_session_is_its_own_annotator_and_undo_takes_back_only_its_own(app, store_path, test_sentence):
    ann, bob = app.test_client(), app.test_client()
    page = _page(ann, test_sentence)
    k1, k2 = _keys(page)[:2]
    _decide(ann, test_sentence, k1, True, _token(page))
    bob_page = _page(bob, test_sentence)
    _decide(bob, test_sentence, k2, False, _token(bob_page))
    with Store.open(store_path, readonly=True) as st:
        first, second = st.decisions(test_sentence)
    assert first.who.startswith("anon-") and second.who.startswith("anon-") and first.who != second.who
    # ann's undo comes after bob's answer, yet takes back ann's own
    ann.post("/undo", data={"id": test_sentence, "token": _token(page)})
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == [second]
    ann.post("/undo", data={"id": test_sentence, "token": _token(page)})   # nothing of ann's left: no effect
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == [second]


def test_a_name_set_later_takes_the_sessions_decisions_and_outlives_browser_and_server(app, store_path,
                                                                                       test_sentence):
    from ranker.serve.app import create_app

    client = app.test_client()
    page = _page(client, test_sentence)
    _decide(client, test_sentence, _keys(page)[0], True, _token(page))
    r = client.post("/who", data={"who": "ann", "token": _token(page)})
    assert r.status_code == 302
    cookies = r.headers.getlist("Set-Cookie")
    assert any(c.startswith("ranker_who=ann;") and "Max-Age=" in c for c in cookies), cookies
    session_cookie = next(c for c in cookies if c.startswith("ranker_session_"))
    assert "Expires=" in session_cookie   # persistent: a browser restart keeps it
    with Store.open(store_path, readonly=True) as st:
        assert [d.who for d in st.decisions(test_sentence)] == ["ann"]
    # a restarted server cannot read the old session, but the name cookie brings the name back
    restarted = create_app(store_path).test_client()
    restarted.set_cookie("ranker_who", "ann")
    page = _page(restarted, test_sentence)
    assert 'name="who" value="ann"' in page and _remaining(page) < int(re.search(r'id="total">(\d+)<', page).group(1))
    restarted.post("/undo", data={"id": test_sentence, "token": _token(page)})
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


def test_each_annotator_sees_the_remaining_set_of_their_own_decisions(app, test_sentence):
    ann, bob = app.test_client(), app.test_client()
    page = _page(ann, test_sentence)
    total = _remaining(page)
    _decide(ann, test_sentence, _keys(page)[0], True, _token(page))
    assert _remaining(_page(ann, test_sentence)) < total
    bob_page = _page(bob, test_sentence)
    assert _remaining(bob_page) == total and 'id="n-decisions">0<' in bob_page
    assert 'id="others"' in bob_page and "1 decisions" in bob_page


# ---------------------------------------------------------------------------------- verdicts
def test_no_correct_candidate_counts_done_leaves_training_and_the_comment_is_escaped(app, store_path, test_sentence):
    client = app.test_client()
    page = _page(client, test_sentence)
    token = _token(page)
    _decide(client, test_sentence, _keys(page)[0], False, token)
    assert test_sentence in _annotate_user(store_path)
    evil = "<script>alert('x')</script> & <b>bold</b>"
    r = client.post("/verdict", data={"id": test_sentence, "no_correct": "1", "comment": evil, "token": token})
    assert r.status_code == 302
    page = _page(client, test_sentence)
    assert 'id="verdict-none"' in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    listing = client.get("/sentences?corpus=treebank&split=test&status=done").get_data(as_text=True)
    assert re.findall(r'<a href="/sentence\?id=([^"]+)">', listing) == [test_sentence]
    assert "<strong>1</strong> of" in listing
    # another annotator's progress is their own
    other = app.test_client().get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    assert "<strong>0</strong> of" in other
    assert test_sentence not in _annotate_user(store_path)
    with Store.open(store_path, readonly=True) as st:
        (v,) = st.verdicts(test_sentence)
    assert v.no_correct and v.comment == evil


def test_after_no_correct_candidate_no_discriminant_is_offered_or_taken(app, store_path, test_sentence):
    client = app.test_client()
    page = _page(client, test_sentence)
    token, key = _token(page), _keys(page)[0]
    assert client.post("/verdict", data={"id": test_sentence, "no_correct": "1", "token": token}).status_code == 302
    page = _page(client, test_sentence)
    assert _keys(page) == [] and 'id="said-none"' in page and "button.accept" not in page
    r = client.post("/decide", data={"id": test_sentence, "key": key, "accept": "1", "token": token})
    assert r.status_code == 409 and "untick it in your verdict" in r.get_data(as_text=True)
    client.post("/verdict", data={"id": test_sentence, "no_correct": "0", "token": token})
    assert _keys(_page(client, test_sentence))[0] == key   # unticked: offered again
    with Store.open(store_path, readonly=True) as st:
        assert st.decisions(test_sentence) == []


def test_a_refused_answer_and_a_team_conflict_are_two_names_and_ids_are_unique(app, test_sentence):
    from collections import Counter

    ann, bob, ann_token, _, k2 = _conflict(app, test_sentence)
    # ann answers again from a page where bob's conflict shows: the same span the other way leaves nothing
    r = ann.post("/decide", data={"id": test_sentence, "key": k2, "accept": "0", "token": ann_token})
    page = r.get_data(as_text=True)
    assert r.status_code == 409
    assert 'id="refused"' in page and 'id="team-conflict"' in page
    ids = Counter(re.findall(r'\sid="([^"]+)"', page))
    assert [i for i, n in ids.items() if n > 1] == []


@pytest.mark.parametrize("data, says", [
    ({"no_correct": "maybe"}, "parameter no_correct"),
    ({"comment": "x" * 2001}, "a comment holds at most 2000 characters and this one has 2001"),
    ({"id": "nosuch"}, "no sentence"),
])
def test_bad_verdicts_are_refused_and_nothing_is_stored(app, store_path, test_sentence, data, says):
    client = app.test_client()
    token = _token(_page(client, test_sentence))
    r = client.post("/verdict", data={"id": test_sentence, "token": token, **data})
    assert r.status_code in (400, 404) and says in r.get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        assert st.verdicts() == []


# ---------------------------------------------------------------------------------- adjudication
def test_a_conflict_is_listed_with_the_agreement_adjudicated_and_training_reads_the_pick(app, store_path,
                                                                                        test_sentence):
    from ranker.cli.main import main

    ann, bob, ann_token, bob_token, k2 = _conflict(app, test_sentence)
    assert 'id="team-conflict"' in _page(ann, test_sentence)
    listing = ann.get("/adjudicate").get_data(as_text=True)
    assert f'data-id="{test_sentence}"' in listing and "answered differently: " + k2 in listing
    assert 'id="shared-answers">2<' in listing and "1 of 2" in listing and 'id="n-conflicts">1<' in listing
    # (accept, accept) and (accept, reject): po = 1/2; ann always accepts, so pe = 1 * 1/2 = 1/2
    po, pe = 1 / 2, 1 * (1 / 2) + 0 * (1 / 2)
    assert f'id="kappa">{(po - pe) / (1 - pe):.3f}<' in listing
    # neither finished the sentence (many bracketings left): no exact match to compare (issue 37, item 9)
    assert 'id="exact-match">-<' in listing and 'id="compared">0<' in listing and "not finished" in listing
    # a conflict teaches nothing until adjudicated
    assert test_sentence not in _annotate_user(store_path)
    detail = ann.get("/adjudicate/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert 'data-who="ann"' in detail and 'data-who="bob"' in detail and detail.count("<svg") == 2
    r = ann.post("/adjudicate", data={"id": test_sentence, "chosen": "carl", "token": ann_token})
    assert r.status_code == 400 and "parameter chosen" in r.get_data(as_text=True)
    r = ann.post("/adjudicate", data={"id": test_sentence, "chosen": "bob", "token": ann_token})
    assert r.status_code == 302
    with Store.open(store_path, readonly=True) as st:
        bobs = [(d.label, d.start, d.end, d.accept) for d in st.decisions(test_sentence) if d.who == "bob"]
        assert st.adjudications()[test_sentence].chosen == "bob"
    assert sorted(_annotate_user(store_path)[test_sentence]) == sorted(bobs)
    assert 'id="n-adjudicated">1<' in ann.get("/adjudicate").get_data(as_text=True)


def test_store_stats_reports_the_agreement_per_sentence_and_overall(app, store_path, test_sentence, capsys):
    from ranker.cli.main import main

    ann, bob = app.test_client(), app.test_client()
    page = _page(ann, test_sentence)
    ann_token, bob_token = _token(page), _token(_page(bob, test_sentence))
    # each answer is to a discriminant of both annotators' (so far equal) remaining set
    for a, b in ((True, True), (False, False), (True, False)):
        key = _keys(_page(ann, test_sentence))[0]
        _decide(ann, test_sentence, key, a, ann_token)
        _decide(bob, test_sentence, key, b, bob_token)
    capsys.readouterr()
    assert main(["store", "stats", str(store_path)]) == 0
    out = capsys.readouterr().out
    # three shared answers, two agree: po 2/3; ann accepts 2 of 3, bob 1 of 3: pe = 2/3*1/3 + 1/3*2/3 = 4/9
    kappa = (2 / 3 - 4 / 9) / (1 - 4 / 9)
    assert f"Cohen's kappa {kappa:.3f} over 3 shared answers (observed 66.7%; each pair's raters in name order)" in out
    assert f"  {test_sentence}: 2 of 3 shared answers agree" in out and "conflict: answered differently" in out


# ---------------------------------------------------------------------------------- export
def test_the_exported_decisions_read_back_as_the_same_annotation(app, store_path, test_sentence, tmp_path):
    from ranker.cli.main import main

    with Store.open(store_path, readonly=True) as st:
        other = next(s.id for s in st.sentences("treebank", "test")
                     if s.id != test_sentence and len(st.candidate_texts(s.id)) >= 5)
    client = app.test_client()
    for sid, answers in ((test_sentence, (True, False)), (other, (False,))):
        for accept in answers:   # each answer to a discriminant of the set left by the ones before
            page = _page(client, sid)
            _decide(client, sid, _keys(page)[0], accept, _token(page))
    exported = tmp_path / "decisions.tsv"
    assert main(["annotate", "--store", str(store_path), "--kind", "user", "--export", str(exported)]) == 0
    text = exported.read_text()
    assert "\treject\n" in text and text.startswith("# ")
    assert main(["annotate", "--store", str(store_path), "--kind", "file", "--file", str(exported),
                 "--name", "reread"]) == 0
    with Store.open(store_path, readonly=True) as st:
        user, back = st.annotations("user"), st.annotations("reread")
        assert set(user) == set(back) == {test_sentence, other}
        for sid in user:
            assert back[sid].brackets == user[sid].brackets
        # the same candidates are consistent with both
        mine = st.consistent_sets("user", corpus=None, rule="strict")
        theirs = st.consistent_sets("reread", corpus=None, rule="strict")
        for sid in user:
            assert list(mine[sid].weights) == list(theirs[sid].weights)
            assert 0 < sum(mine[sid].weights) < len(mine[sid].weights)


def test_a_name_with_a_bad_page_id_is_refused_before_it_takes_any_decision(app, store_path, test_sentence):
    client = app.test_client()
    page = _page(client, test_sentence)
    _decide(client, test_sentence, _keys(page)[0], True, _token(page))
    r = client.post("/who", data={"who": "ann", "id": "x' OR 1=1", "token": _token(page)})
    assert r.status_code == 404
    with Store.open(store_path, readonly=True) as st:
        assert [d.who.startswith("anon-") for d in st.decisions(test_sentence)] == [True]
    assert 'name="who" value=""' in _page(client, test_sentence)


# ---------------------------------------------------------------------------------- one bracketing (issue 37, item 4)
@pytest.fixture
def one_bracketing(store_path, test_sentence):
    """A test-split sentence (not ``test_sentence``) whose forest is cut to its first candidate, put
    back afterwards: a forest of one bracketing, with no discriminant to answer."""
    with Store.open(store_path) as st:
        sid = next(s.id for s in st.sentences("treebank", "test")
                   if s.id != test_sentence and len(st.candidate_texts(s.id)) > 1)
        forest = st.forest(sid)
        st.replace_forest(sid, forest.candidates[0].source, forest.candidates[:1])
    yield sid
    with Store.open(store_path) as st:
        st.replace_forest(sid, forest.candidates[0].source, forest.candidates)


def test_a_sentence_of_one_bracketing_is_confirmed_done_and_finished(store_path, test_sentence, one_bracketing):
    """Regression (issue 37, item 4): a forest of one bracketing stayed 'untouched' for ever: no
    discriminant to answer and no way to say the parse is right, so progress never reached 100%."""
    from ranker.serve.app import create_app
    from ranker.sources.finished import finished_trees

    app = create_app(store_path)
    client = app.test_client()
    page = _page(client, one_bracketing)
    assert _keys(page) == [] and 'id="confirm-hint"' in page and "confirm: this bracketing is correct" in page
    listing = client.get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    done_before = int(re.search(r'id="progress"><strong>(\d+)</strong>', listing).group(1))
    with Store.open(store_path, readonly=True) as st:
        assert finished_trees(st, [st.sentence(one_bracketing)])[0].status == "untouched"
    # no confirming while several bracketings remain
    r = client.post("/confirm", data={"id": test_sentence, "token": _token(page)})
    assert r.status_code == 409 and "bracketings remain" in r.get_data(as_text=True)
    assert client.post("/confirm", data={"id": one_bracketing, "token": _token(page)}).status_code == 302
    page = _page(client, one_bracketing)
    assert 'id="verdict-confirmed"' in page and 'id="confirm-hint"' not in page
    listing = client.get("/sentences?corpus=treebank&split=test&status=done").get_data(as_text=True)
    assert one_bracketing in re.findall(r'<a href="/sentence\?id=([^"]+)">', listing)
    assert int(re.search(r'id="progress"><strong>(\d+)</strong>', listing).group(1)) == done_before + 1
    with Store.open(store_path, readonly=True) as st:
        (v,) = st.verdicts(one_bracketing)
        assert v.confirmed and not v.no_correct and st.verdicts(test_sentence) == []
        (out,) = finished_trees(st, [st.sentence(one_bracketing)])
        assert out.status == "finished" and out.tree == st.candidate_texts(one_bracketing)[0]
    # a comment keeps the confirmation; "no correct candidate" replaces it; withdrawing removes it
    client.post("/verdict", data={"id": one_bracketing, "comment": "fine", "token": _token(page)})
    with Store.open(store_path, readonly=True) as st:
        assert st.verdicts(one_bracketing)[0][:2] == (False, "fine") and st.verdicts(one_bracketing)[0].confirmed
    client.post("/confirm", data={"id": one_bracketing, "withdraw": "1", "token": _token(page)})
    with Store.open(store_path, readonly=True) as st:
        (v,) = st.verdicts(one_bracketing)
        assert not v.confirmed and v.comment == "fine"
        assert finished_trees(st, [st.sentence(one_bracketing)])[0].status == "untouched"


def test_a_store_written_before_confirmations_reads_and_gains_the_column(store_path, test_sentence, tmp_path):
    import shutil
    import sqlite3

    old = tmp_path / "old.sqlite"
    shutil.copy(store_path, old)
    con = sqlite3.connect(old)
    con.executescript("DROP TABLE verdicts; CREATE TABLE verdicts (sentence_id TEXT NOT NULL, who TEXT NOT NULL, "
                      "no_correct INTEGER NOT NULL, comment TEXT NOT NULL, at TEXT NOT NULL, "
                      "PRIMARY KEY (sentence_id, who)) WITHOUT ROWID; DROP TABLE adjudications; "
                      "CREATE TABLE adjudications (sentence_id TEXT PRIMARY KEY, chosen TEXT NOT NULL, "
                      "who TEXT NOT NULL, at TEXT NOT NULL);")
    con.execute("INSERT INTO verdicts VALUES (?, 'ann', 1, 'old', 'x')", (test_sentence,))
    con.execute("INSERT INTO adjudications VALUES (?, 'ann', 'boss', 'x')", (test_sentence,))
    con.commit()
    con.close()
    with Store.open(old, readonly=True) as st:
        assert st.verdicts(test_sentence)[0].confirmed is False
        assert st.adjudications()[test_sentence].work == ""
    with Store.open(old) as st:   # a writable open adds the columns
        st.set_verdict(test_sentence, "bob", False, "", confirmed=True)
        assert [v.confirmed for v in st.verdicts(test_sentence)] == [False, True]


# ---------------------------------------------------------------------------------- retrain inputs (issue 37, item 1)
def _answer(st, sid, who, k, accept):
    """``who`` answers the ``k``-th discriminant left by their own decisions on ``sid``; returns its key."""
    from ranker.sources.discriminants import decision, discriminants, forest_spans, remaining_mask

    spans = forest_spans(st.forest(sid).candidates)
    mine = [d for d in st.decisions(sid) if d.who == who]
    key = discriminants(spans, remaining_mask(spans, mine))[k].key
    st.add_decision(sid, decision(key, accept, who))
    return key


def test_a_retrain_learns_from_adjudications_and_verdicts_not_from_decisions_alone(store_path, test_sentence):
    """Regression (issue 37, item 1): the retrain's key was a digest of decision rows only, so after an
    adjudication, or a "no correct candidate" on a trained sentence, a retrain said "nothing to do"
    and kept a model trained on the old set (the sentence left out stayed in the training data)."""
    from ranker.pipeline.retrain import retrain
    from ranker.serve.model import stored_model_keys
    from ranker.sources.discriminants import decision

    with Store.open(store_path) as st:
        base = stored_model_keys(st)[0]
        other = next(s.id for s in st.sentences("treebank", "test")
                     if s.id != test_sentence and len(st.candidate_texts(s.id)) >= 10)
        k = _answer(st, test_sentence, "ann", 0, True)
        st.add_decision(test_sentence, decision(k, True, "bob"))
        _answer(st, test_sentence, "ann", 0, True)
        _answer(st, test_sentence, "bob", 0, False)     # the same span answered apart: a conflict
        _answer(st, other, "ann", 0, False)
        first = retrain(st, base)
        assert set(st.annotations("user")) == {other}
        st.adjudicate(test_sentence, "bob", "boss")
        second = retrain(st, base)
        assert second.key != first.key and second.n_iter > 0 and second.sentences == 2
        assert set(st.annotations("user")) == {test_sentence, other}
        st.set_verdict(other, "ann", True, "")     # a trained sentence: no candidate is correct after all
        third = retrain(st, base)
        assert third.key not in (first.key, second.key) and third.sentences == 1
        assert set(st.annotations("user")) == {test_sentence}
        again = retrain(st, base)   # nothing new: looked up, not fitted
        assert again.key == third.key and again.n_iter == 0


# ---------------------------------------------------------------------------------- reopened adjudication (issue 37, item 3)
def test_an_adjudication_is_reopened_when_the_chosen_annotator_changes_their_answers(app, store_path,
                                                                                     test_sentence):
    """Regression (issue 37, item 3): the adjudicator picked alice; alice then undid and answered
    differently, and the page still said "alice's work stands" and training took the new answers."""
    ann, bob, ann_token, bob_token, k2 = _conflict(app, test_sentence)
    detail = ann.get("/adjudicate/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    reviewed = re.search(r'name="chosen" value="ann"><input type="hidden" name="work" value="([0-9a-f]+)"',
                         detail).group(1)
    r = ann.post("/adjudicate", data={"id": test_sentence, "chosen": "ann", "work": reviewed, "token": ann_token})
    assert r.status_code == 302
    assert test_sentence in _annotate_user(store_path)
    # the same answer taken back and given again: the work reviewed, still standing
    ann.post("/undo", data={"id": test_sentence, "token": ann_token})
    _decide(ann, test_sentence, k2, True, ann_token)
    assert 'id="chosen">ann<' in ann.get("/adjudicate/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    # a new answer: the adjudication is reopened, visibly, and training leaves the conflict out
    k3 = _keys(_page(ann, test_sentence))[0]
    _decide(ann, test_sentence, k3, False, ann_token)
    says = "reopened: ann changed their answers after adjudication"
    assert says in _page(bob, test_sentence) and 'id="reopened"' in _page(ann, test_sentence)
    detail = ann.get("/adjudicate/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    assert says in detail and 'id="chosen"' not in detail
    listing = ann.get("/adjudicate").get_data(as_text=True)
    assert says in listing and 'id="n-adjudicated">0<' in listing
    assert test_sentence not in _annotate_user(store_path)
    with Store.open(store_path, readonly=True) as st:
        from ranker.sources.finished import finished_trees

        (out,) = finished_trees(st, [st.sentence(test_sentence)])
        assert out.status == "conflict" and out.adjudicator == ""
    # picking from a page loaded before the change is refused; from a fresh page it stands again
    r = ann.post("/adjudicate", data={"id": test_sentence, "chosen": "ann", "work": reviewed, "token": ann_token})
    assert r.status_code == 409 and "changed their answers since your page was loaded" in r.get_data(as_text=True)
    detail = ann.get("/adjudicate/sentence", query_string={"id": test_sentence}).get_data(as_text=True)
    fresh = re.search(r'name="chosen" value="ann"><input type="hidden" name="work" value="([0-9a-f]+)"',
                      detail).group(1)
    assert ann.post("/adjudicate", data={"id": test_sentence, "chosen": "ann", "work": fresh,
                                         "token": ann_token}).status_code == 302
    assert says not in _page(bob, test_sentence) and test_sentence in _annotate_user(store_path)


# ---------------------------------------------------------------------------------- long comments (issue 37, item 6)
def test_an_over_long_comment_is_refused_with_its_text_kept_and_the_limit_said(app, store_path, test_sentence):
    """Regression (issue 37, item 6): a 100 KB comment got Werkzeug's bare 413 page and the text was
    lost; the field's maxlength=2000 cut typed text without a word."""
    import html as html_lib

    client = app.test_client()
    page = _page(client, test_sentence)
    assert 'maxlength="2000"' not in page and "at most 2000 characters" in page
    long = "<b>a remark</b> & " + "x" * 100_000 + " the end"
    r = client.post("/verdict", data={"id": test_sentence, "no_correct": "0", "comment": long, "token": _token(page)})
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'id="comment-error"' in page
    assert f"a comment holds at most 2000 characters and this one has {len(long)}" in page
    kept = re.search(r'<textarea name="comment" id="comment"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert html_lib.unescape(kept) == long
    # far past what the server reads: a page saying the limit, not the bare 413
    r = client.post("/verdict", data={"id": test_sentence, "comment": "y" * (2 * 1024 * 1024), "token": _token(page)})
    assert r.status_code == 413 and "a comment holds at most 2000 characters" in r.get_data(as_text=True)
    with Store.open(store_path, readonly=True) as st:
        assert st.verdicts() == []



# ---------------------------------------------------------------------------------- comments shown (issue 37, item 7)
def test_every_comment_is_shown_on_the_sentence_page_and_marked_in_the_list(app, store_path, test_sentence):
    """Regression (issue 37, item 7): comments appeared only on the adjudication page, and only where two
    annotators worked: a comment on a sentence one person did was seen by nobody."""
    ann, bob = app.test_client(), app.test_client()
    token = _token(_page(ann, test_sentence))
    r = ann.post("/verdict", data={"id": test_sentence, "comment": "PP attachment <unclear>", "token": token})
    assert r.status_code == 302
    page = _page(bob, test_sentence)   # bob never worked on it
    assert 'id="comments"' in page and "PP attachment &lt;unclear&gt;" in page
    assert re.search(r'<li class="comment" data-who="anon-[0-9a-f]{8}">', page)
    listing = bob.get("/sentences?corpus=treebank&split=test").get_data(as_text=True)
    row = re.search(rf'<a href="/sentence\?id={re.escape(test_sentence)}">[^<]*</a>(.*?)</td>', listing).group(1)
    assert 'class="comment-marker"' in row and "✎1" in row
    assert listing.count('class="comment-marker"') == 1
